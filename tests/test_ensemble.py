"""Ensemble stability and uncertainty: every table and criterion against the reference.

Reference: `tests/reference_ensemble.py` (per-row loops with itertools pairs, numpy
``std(ddof=1)``, :func:`scipy.stats.iqr` and :func:`scipy.stats.entropy`; no polars).
Every check runs on eager, lazy in-memory and lazy streaming frames (`run`), with the
members given as several columns, as one List column and as one Array column.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_ensemble as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair.exceptions import (
    InvalidParameterError,
    NullDataWarning,
    ReferenceGroupError,
    ValueRangeError,
)

M = 5
TOL = {"rel_tol": 1e-9, "abs_tol": 1e-12}
MEASURES = ref.MEASURES
CRITERIA = [f"{m}_{k}" for m in MEASURES for k in ("difference", "ratio")]
LAYOUTS = ("columns", "list", "array")
ENGINES = ("eager", "lazy", "streaming")

# name -> make_data kwargs; sensitive columns
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "plain": (dict(seed=11), ["g"]),
    "weighted": (dict(seed=12, weights=True), ["g"]),
    "intersectional": (dict(seed=13, second=("x", "y")), ["g", "h"]),
    "nulls": (dict(seed=14, nulls=True), ["g"]),
}


# ------------------------------------------------------------------ helpers


def _close(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return math.isclose(got, want, **TOL)


@functools.cache
def _data(case: str) -> dict[str, list[Any]]:
    return ref.make_data(**CASES[case][0])


@functools.cache
def _rows(case: str, threshold: float = 0.5) -> ref.Rows:
    data = _data(case)
    sens = CASES[case][1]
    w = data["w"] if "w" in data else None
    return ref.Rows(ref.member_rows(data, M), [data[s] for s in sens], w, threshold)


def _frame(data: dict[str, list[Any]], layout: str, members: int = M) -> pl.DataFrame:
    """`data` with its members as columns p0…, or as one List / Array column `probs`."""
    member_cols = [f"p{j}" for j in range(members)]
    rest = {k: v for k, v in data.items() if k not in member_cols}
    if layout == "columns":
        return pl.DataFrame({**rest, **{c: data[c] for c in member_cols}}).with_columns(
            pl.col(member_cols).cast(pl.Float64)
        )
    rows = ref.member_rows(data, members)
    dtype = pl.List(pl.Float64) if layout == "list" else pl.Array(pl.Float64, members)
    return pl.DataFrame(rest).with_columns(pl.Series("probs", rows, dtype=dtype))


def _y_prob(layout: str, members: int = M) -> Any:
    return [f"p{j}" for j in range(members)] if layout == "columns" else "probs"


def _kw(case: str, layout: str = "columns") -> dict[str, Any]:
    data = _data(case)
    kw: dict[str, Any] = {"y_prob": _y_prob(layout), "sensitive_features": CASES[case][1]}
    if "w" in data:
        kw["sample_weight"] = "w"
    return kw


def _warns_if_eager(run: Any, expected: bool) -> contextlib.AbstractContextManager[Any]:
    if expected and run.kind == "eager":
        return pytest.warns(NullDataWarning)
    return contextlib.nullcontext()


def _keyed(
    table: pl.DataFrame, keys: list[str]
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    for row in table.iter_rows(named=True):
        yield tuple(row[k] for k in keys), row


# ------------------------------------------------------------- the reference


def test_reference_row_measures_by_hand() -> None:
    # members .9 .8 .3: labels 1 1 0 -> stability 1/3, 2 disagreeing pairs of 3
    got = ref.row_measures([0.9, 0.8, 0.3])
    assert math.isclose(got["label_stability"], 1 / 3)
    assert math.isclose(got["jitter"], 2 / 3)
    mu = (0.9 + 0.8 + 0.3) / 3
    assert math.isclose(
        got["std"], math.sqrt(((0.9 - mu) ** 2 + (0.8 - mu) ** 2 + (0.3 - mu) ** 2) / 2)
    )
    # iqr of 3 values, linear: q25 = .3 + .5 * .5 = .55, q75 = .8 + .5 * .1 = .85
    assert math.isclose(got["iqr"], 0.3)

    def h(p: float) -> float:
        return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))

    assert math.isclose(got["aleatoric_uncertainty"], (h(0.9) + h(0.8) + h(0.3)) / 3)
    assert math.isclose(got["overall_uncertainty"], h(2 / 3))
    assert got["epistemic_uncertainty"] >= 0
    # H(0) = H(1) = 0
    assert ref.row_measures([0.0, 1.0])["aleatoric_uncertainty"] == 0.0
    assert ref.row_measures([0.0, 1.0])["overall_uncertainty"] == 1.0


# ------------------------------------------------------------------ tables


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(CASES))
def test_by_group_vs_reference(run: Any, case: str, layout: str) -> None:
    df = _frame(_data(case), layout)
    rows = _rows(case)
    with _warns_if_eager(run, case == "nulls"):
        got = run(df, "ensemble_by_group", **_kw(case, layout))
    sens = CASES[case][1]
    assert got.columns == [*sens, "n", "n_null", *MEASURES]
    want = ref.group_table(rows)
    assert [k for k, _ in _keyed(got, sens)] == list(want)
    for key, row in _keyed(got, sens):
        assert _close(row["n"], want[key]["n"]), key
        assert row["n_null"] == want[key]["n_null"], key
        for m in MEASURES:
            assert _close(row[m], want[key][m]), (key, m, row[m], want[key][m])
    if case == "nulls":
        assert got["n_null"].sum() > 0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", ["plain", "weighted"])
def test_stats_vs_reference(run: Any, case: str, layout: str) -> None:
    got = run(_frame(_data(case), layout), "ensemble_stats", **_kw(case, layout))
    sens = CASES[case][1]
    assert got.columns == [*sens, "n", "n_null", *(f"sum_{m}" for m in MEASURES)]
    want = ref.group_table(_rows(case))
    for key, row in _keyed(got, sens):
        for m in MEASURES:
            assert _close(row[f"sum_{m}"], want[key][f"sum_{m}"]), (key, m)
    if case == "plain":
        assert got.schema["n"] == pl.Int64
    else:
        assert got.schema["n"] == pl.Float64


def test_layouts_give_the_same_numbers(run: Any) -> None:
    data = _data("weighted")
    tables = [
        run(_frame(data, layout), "ensemble_by_group", **_kw("weighted", layout))
        for layout in LAYOUTS
    ]
    for other in tables[1:]:
        assert other["g"].to_list() == tables[0]["g"].to_list()
        for m in MEASURES:
            a, b = tables[0][m].to_numpy(), other[m].to_numpy()
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reference", ["value", "largest", "min", "overall", "rest", None], ids=str)
@pytest.mark.parametrize("case", ["plain", "weighted", "nulls"])
def test_disparities_vs_reference(run: Any, case: str, reference: Any) -> None:
    rows = _rows(case)
    table = ref.group_table(rows)
    rg = reference
    if reference == "value":
        largest = ref.largest_group(table)
        rg = next(k for k in table if k != largest)[0]
    kw = _kw(case) | ({} if rg is None else {"reference_group": rg})
    with _warns_if_eager(run, case == "nulls"):
        got = run(_frame(_data(case), "columns"), "ensemble_disparities", **kw)
    assert got.columns == ["g", "metric", "value", "reference_value", "difference", "ratio"]
    assert got.height == len(table) * len(MEASURES)
    assert got.schema["metric"] == pl.Enum(list(MEASURES))
    want = {m: ref.disparities(rows, m, "largest" if rg is None else rg) for m in MEASURES}
    for row in got.iter_rows(named=True):
        w = want[row["metric"]][(row["g"],)]
        for col in ("value", "reference_value", "difference", "ratio"):
            assert _close(row[col], w[col]), (row, col, w)


def test_disparities_metrics_subset_and_intersection(run: Any) -> None:
    case = "intersectional"
    rows = _rows(case)
    table = ref.group_table(rows)
    rg = ("b", "y")
    assert rg in table
    got = run(
        _frame(_data(case), "list"),
        "ensemble_disparities",
        **_kw(case, "list"),
        reference_group=rg,
        metrics=["jitter", "epistemic_uncertainty"],
    )
    assert got["metric"].cast(pl.String).unique(maintain_order=True).to_list() == [
        "jitter",
        "epistemic_uncertainty",
    ]
    for row in got.iter_rows(named=True):
        w = ref.disparities(rows, row["metric"], rg)[(row["g"], row["h"])]
        for col in ("value", "reference_value", "difference", "ratio"):
            assert _close(row[col], w[col]), (row, col)


def test_disparities_unknown_reference_group(run: Any) -> None:
    with pytest.raises(ReferenceGroupError):
        run(_frame(_data("plain"), "columns"), "ensemble_disparities", **_kw("plain"),
            reference_group="nope")  # fmt: skip


# ---------------------------------------------------------------- criteria

METHODS = ["between_groups", "to_overall", "to_reference", "named"]


@pytest.mark.parametrize(
    ("case", "method"),
    [*(("plain", m) for m in METHODS), ("weighted", "to_overall"), ("weighted", "named")],
)
@pytest.mark.parametrize("name", CRITERIA)
def test_criterion_vs_reference(run: Any, case: str, name: str, method: str) -> None:
    measure, kind = name.rsplit("_", 1)
    rows = _rows(case)
    kw = _kw(case)
    if method == "named":
        table = ref.group_table(rows)
        largest = ref.largest_group(table)
        rg = next(k for k in table if k != largest)[0]
        want = ref.criterion(rows, measure, kind, "to_reference", rg)
        got = run(_frame(_data(case), "columns"), name, **kw, reference_group=rg)
    else:
        want = ref.criterion(rows, measure, kind, method)
        got = run(_frame(_data(case), "columns"), name, **kw, method=method)
    assert want is not None
    assert _close(got, want), (got, want)


@pytest.mark.parametrize("layout", ["list", "array"])
@pytest.mark.parametrize("name", ["iqr_ratio", "jitter_difference", "epistemic_uncertainty_ratio"])
def test_criterion_intersectional_tuple_reference(run: Any, layout: str, name: str) -> None:
    case = "intersectional"
    measure, kind = name.rsplit("_", 1)
    rows = _rows(case)
    for rg in [("a", "x"), {"g": "c", "h": "y"}]:
        key = rg if isinstance(rg, tuple) else (rg["g"], rg["h"])
        want = ref.criterion(rows, measure, kind, "to_reference", key)
        got = run(_frame(_data(case), layout), name, **_kw(case, layout), reference_group=rg)
        assert _close(got, want), (rg, got, want)
    want = ref.criterion(rows, measure, kind, "between_groups")
    assert _close(run(_frame(_data(case), layout), name, **_kw(case, layout)), want)


def test_criterion_to_reference_is_signed(run: Any) -> None:
    # group a unanimous (stability 1), b split 2-1 (1/3): reference b -> +2/3, a -> -2/3
    df = pl.DataFrame(
        {"g": ["a", "a", "b"], "m1": [0.9, 0.1, 0.9], "m2": [0.8, 0.2, 0.8], "m3": [0.7, 0.3, 0.2]}
    )
    kw = {"y_prob": ["m1", "m2", "m3"], "sensitive_features": "g"}
    rows = ref.Rows([[0.9, 0.8, 0.7], [0.1, 0.2, 0.3], [0.9, 0.8, 0.2]], [["a", "a", "b"]])
    for rg in ("a", "b"):
        want = ref.criterion(rows, "label_stability", "difference", "to_reference", rg)
        got = run(df, "label_stability_difference", **kw, reference_group=rg)
        assert _close(got, want)
    assert run(df, "label_stability_difference", **kw, reference_group="b") > 0
    assert run(df, "label_stability_difference", **kw, reference_group="a") < 0


# ------------------------------------------------------------------ by keys


def test_by_batches(run: Any) -> None:
    data = ref.make_data(21, rows=400, batches=("m1", "m2", "m3"), weights=True)
    df = _frame(data, "array")
    kw = {"y_prob": "probs", "sensitive_features": "g", "sample_weight": "w", "by": "batch"}
    table = run(df, "ensemble_by_group", **kw)
    assert table.columns[:2] == ["batch", "g"]
    crit = run(df, "std_ratio", **kw, method="to_overall")
    assert crit.columns == ["batch", "std_ratio"]
    assert crit["batch"].to_list() == ["m1", "m2", "m3"]
    per_batch = {}
    for b in ("m1", "m2", "m3"):
        sub = ref.subset(data, "batch", b)
        per_batch[b] = ref.Rows(ref.member_rows(sub, M), [sub["g"]], sub["w"])
    for (b,), row in _keyed(crit, ["batch"]):
        rows = per_batch[b]
        assert _close(row["std_ratio"], ref.criterion(rows, "std", "ratio", "to_overall"))
        want = ref.group_table(rows)
        part = table.filter(pl.col("batch") == b)
        for (g,), r in _keyed(part, ["g"]):
            for m in MEASURES:
                assert _close(r[m], want[(g,)][m]), (b, g, m)
    disp = run(df, "ensemble_disparities", **kw, reference_group="rest")
    assert disp.columns[:3] == ["batch", "g", "metric"]
    for row in disp.iter_rows(named=True):
        w = ref.disparities(per_batch[row["batch"]], row["metric"], "rest")[(row["g"],)]
        assert _close(row["difference"], w["difference"])


@pytest.mark.parametrize("layout", ["columns", "expressions", "list"])
def test_many_members_with_ties(run: Any, layout: str) -> None:
    # 12 members on a 0.1 grid: many ties, which the column path's ranks must break
    rng = np.random.default_rng(22)
    probs = np.round(rng.random((150, 12)), 1)
    data: dict[str, list[Any]] = {"g": rng.choice(["a", "b"], 150).tolist()}
    data |= {f"p{j}": probs[:, j].tolist() for j in range(12)}
    if layout == "expressions":
        df, y_prob = _frame(data, "columns", 12), [pl.col(f"p{j}") * 1.0 for j in range(12)]
    else:
        df, y_prob = _frame(data, layout, 12), _y_prob(layout, 12)
    got = run(df, "ensemble_by_group", y_prob=y_prob, sensitive_features="g")
    want = ref.group_table(ref.Rows(probs.tolist(), [data["g"]]))
    for key, row in _keyed(got, ["g"]):
        for m in MEASURES:
            assert _close(row[m], want[key][m]), (key, m)


def test_all_rows_excluded_gives_null(run: Any) -> None:
    df = pl.DataFrame({"g": ["a", "b"], "p0": [None, None], "p1": [0.1, 0.2]})
    kw = {"y_prob": ["p0", "p1"], "sensitive_features": "g"}
    with _warns_if_eager(run, True):
        table = run(df, "ensemble_by_group", **kw)
    assert table["n"].to_list() == [0, 0]
    assert table["n_null"].to_list() == [1, 1]
    assert table["jitter"].to_list() == [None, None]
    with _warns_if_eager(run, True):
        assert run(df, "jitter_difference", **kw) is None


# ---------------------------------------------------------------- threshold


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.7, 1.0])
@pytest.mark.parametrize("layout", ["columns", "list"])
def test_threshold(run: Any, layout: str, threshold: float) -> None:
    rows = _rows("plain", threshold)
    got = run(
        _frame(_data("plain"), layout), "ensemble_by_group", **_kw("plain", layout),
        threshold=threshold,
    )  # fmt: skip
    want = ref.group_table(rows)
    for key, row in _keyed(got, ["g"]):
        for m in ("label_stability", "jitter"):
            assert _close(row[m], want[key][m]), (key, m)
    if threshold == 0.0:  # every member positive
        assert got["label_stability"].to_list() == [1.0] * got.height
        assert got["jitter"].to_list() == [0.0] * got.height
    # the probability measures do not depend on the threshold
    base = run(_frame(_data("plain"), layout), "ensemble_by_group", **_kw("plain", layout))
    for m in MEASURES[2:]:
        np.testing.assert_array_equal(got[m].to_numpy(), base[m].to_numpy())


def test_threshold_is_inclusive(run: Any) -> None:
    # a member exactly at the threshold votes positive
    df = pl.DataFrame({"g": ["a"], "m1": [0.5], "m2": [0.5], "m3": [0.4999]})
    got = run(df, "ensemble_by_group", y_prob=["m1", "m2", "m3"], sensitive_features="g")
    want = ref.row_measures([0.5, 0.5, 0.4999])
    assert _close(got["label_stability"].item(), want["label_stability"])
    assert _close(got["label_stability"].item(), 1 / 3)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), "0.5", True])
def test_threshold_out_of_range(run: Any, threshold: Any) -> None:
    df = _frame(_data("plain"), "columns")
    with pytest.raises(InvalidParameterError):
        run(df, "ensemble_by_group", **_kw("plain"), threshold=threshold)
    with pytest.raises(InvalidParameterError):
        run(df, "jitter_difference", **_kw("plain"), threshold=threshold)


# --------------------------------------------------------------------- nulls


@pytest.mark.parametrize("layout", LAYOUTS)
def test_null_members_are_excluded(run: Any, layout: str) -> None:
    data = {
        "g": ["a", "a", "a", "b", "b"],
        "p0": [0.9, 0.2, None, 0.6, 0.4],
        "p1": [0.8, 0.1, 0.5, 0.3, 0.7],
        "p2": [0.7, None, 0.4, 0.55, 0.45],
    }
    df = _frame(data, layout, members=3)
    rows = ref.Rows(ref.member_rows(data, 3), [data["g"]])
    with _warns_if_eager(run, True):
        got = run(df, "ensemble_by_group", y_prob=_y_prob(layout, 3), sensitive_features="g")
    assert got["n"].to_list() == [1, 2]
    assert got["n_null"].to_list() == [2, 0]
    want = ref.group_table(rows)
    for key, row in _keyed(got, ["g"]):
        for m in MEASURES:
            assert _close(row[m], want[key][m])


def test_null_list_row_and_null_weight(run: Any) -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "b", "b", "b"],
            "probs": [[0.9, 0.8], None, [0.1, 0.7], [0.3, 0.3], [0.2, 0.6]],
            "w": [1.0, 2.0, None, 1.5, 0.5],
        }
    )
    with _warns_if_eager(run, True):
        got = run(
            df, "ensemble_by_group", y_prob="probs", sensitive_features="g", sample_weight="w"
        )
    rows = ref.Rows(
        [[0.9, 0.8], None, [0.1, 0.7], [0.3, 0.3], [0.2, 0.6]],
        [["a", "a", "b", "b", "b"]],
        [1.0, 2.0, None, 1.5, 0.5],
    )
    want = ref.group_table(rows)
    assert got["n_null"].to_list() == [1, 1]
    assert got["n"].to_list() == [1.0, 2.0]
    for key, row in _keyed(got, ["g"]):
        for m in MEASURES:
            assert _close(row[m], want[key][m])


def test_no_warning_without_nulls() -> None:
    # filterwarnings=error: any warning here fails the test
    df = _frame(_data("plain"), "columns")
    df.fair.ensemble_by_group(**_kw("plain"))
    df.fair.jitter_difference(**_kw("plain"))


# -------------------------------------------------------------------- errors


@pytest.mark.parametrize("bad", [1.2, -0.1, float("nan")], ids=["above", "below", "nan"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_probabilities_outside_unit_interval(run: Any, layout: str, bad: float) -> None:
    data = {"g": ["a", "a", "b"], "p0": [0.9, 0.2, 0.6], "p1": [0.8, bad, 0.3]}
    df = _frame(data, layout, members=2)
    with pytest.raises(ValueRangeError):
        run(df, "ensemble_by_group", y_prob=_y_prob(layout, 2), sensitive_features="g")
    with pytest.raises(ValueRangeError):
        run(df, "std_difference", y_prob=_y_prob(layout, 2), sensitive_features="g")


def test_single_member_or_non_numeric(run: Any) -> None:
    df = pl.DataFrame(
        {"g": ["a", "b"], "p0": [0.1, 0.2], "p1": [0.3, 0.4], "s": ["x", "y"], "b": [True, False]}
    )
    for y_prob in (["p0"], [], "p0", ["p0", "s"], ["p0", "b"], "s"):
        with pytest.raises(InvalidParameterError):
            run(df, "ensemble_by_group", y_prob=y_prob, sensitive_features="g")
    strings = pl.DataFrame({"g": ["a"], "probs": [["0.1", "0.2"]]})
    with pytest.raises(InvalidParameterError):
        run(strings, "ensemble_by_group", y_prob="probs", sensitive_features="g")


def test_list_rows_of_different_lengths(run: Any) -> None:
    df = pl.DataFrame({"g": ["a", "a", "b"], "probs": [[0.1, 0.2], [0.3, 0.4, 0.5], [0.6, 0.7]]})
    with pytest.raises(ValueRangeError):
        run(df, "ensemble_by_group", y_prob="probs", sensitive_features="g")
    single = pl.DataFrame({"g": ["a", "b"], "probs": [[0.1], [0.6]]})
    with pytest.raises(ValueRangeError):
        run(single, "ensemble_by_group", y_prob="probs", sensitive_features="g")


def test_negative_weight(run: Any) -> None:
    df = _frame(_data("weighted"), "columns").with_columns(pl.col("w") * -1)
    with pytest.raises(ValueRangeError):
        run(df, "ensemble_by_group", **_kw("weighted"))


# ---------------------------------------------------------------- properties


def _collect(df: pl.DataFrame, engine: str, name: str, **kw: Any) -> pl.DataFrame:
    if engine == "eager":
        out: pl.DataFrame = getattr(df.fair, name)(**kw)
        return out
    lazy = getattr(df.lazy().fair, name)(**kw)
    return lazy.collect(engine="in-memory" if engine == "lazy" else "streaming")


probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
prob_rows = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), probabilities), min_size=1, max_size=20
)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25)
@given(rows=prob_rows, members=st.integers(2, 6), layout=st.sampled_from(LAYOUTS))
def test_identical_members_are_perfectly_stable(
    engine: str, rows: list[tuple[str, float]], members: int, layout: str
) -> None:
    data: dict[str, list[Any]] = {"g": [g for g, _ in rows]}
    for j in range(members):
        data[f"p{j}"] = [p for _, p in rows]
    got = _collect(
        _frame(data, layout, members), engine, "ensemble_by_group",
        y_prob=_y_prob(layout, members), sensitive_features="g",
    )  # fmt: skip
    assert got["label_stability"].to_list() == [1.0] * got.height
    assert got["jitter"].to_list() == [0.0] * got.height
    for m in ("std", "iqr", "epistemic_uncertainty"):
        assert all(abs(v) <= 1e-12 for v in got[m].to_list()), (m, got[m].to_list())
    # aleatoric = overall = the entropy of the common probability
    np.testing.assert_allclose(
        got["aleatoric_uncertainty"].to_numpy(), got["overall_uncertainty"].to_numpy(), atol=1e-12
    )


member_rows = st.integers(2, 6).flatmap(
    lambda m: st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.lists(probabilities, min_size=m, max_size=m)),
        min_size=1,
        max_size=15,
    )
)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25)
@given(rows=member_rows, perm_seed=st.integers(0, 2**32 - 1), layout=st.sampled_from(LAYOUTS))
def test_member_order_does_not_matter(
    engine: str, rows: list[tuple[str, list[float]]], perm_seed: int, layout: str
) -> None:
    m = len(rows[0][1])
    perm = np.random.default_rng(perm_seed).permutation(m)
    data = {"g": [g for g, _ in rows], **{f"p{j}": [p[j] for _, p in rows] for j in range(m)}}
    shuffled = {"g": data["g"], **{f"p{j}": data[f"p{int(perm[j])}"] for j in range(m)}}
    kw = {"y_prob": _y_prob(layout, m), "sensitive_features": "g"}
    a = _collect(_frame(data, layout, m), engine, "ensemble_by_group", **kw)
    b = _collect(_frame(shuffled, layout, m), engine, "ensemble_by_group", **kw)
    assert a["g"].to_list() == b["g"].to_list()
    assert a["n"].to_list() == b["n"].to_list()
    assert a["label_stability"].to_list() == b["label_stability"].to_list()
    assert a["jitter"].to_list() == b["jitter"].to_list()
    for name in MEASURES[2:]:
        np.testing.assert_allclose(a[name].to_numpy(), b[name].to_numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=25)
@given(rows=member_rows, layout=st.sampled_from(LAYOUTS))
def test_epistemic_uncertainty_is_nonnegative_and_matches_reference(
    engine: str, rows: list[tuple[str, list[float]]], layout: str
) -> None:
    m = len(rows[0][1])
    # every row its own group: the per-row measure itself
    data = {
        "g": [f"r{i:03d}" for i in range(len(rows))],
        **{f"p{j}": [p[j] for _, p in rows] for j in range(m)},
    }
    got = _collect(
        _frame(data, layout, m), engine, "ensemble_by_group",
        y_prob=_y_prob(layout, m), sensitive_features="g",
    )  # fmt: skip
    assert all(v >= -1e-12 for v in got["epistemic_uncertainty"].to_list())
    for i, row in enumerate(got.iter_rows(named=True)):
        want = ref.row_measures(rows[i][1])
        for name in MEASURES:
            assert math.isclose(row[name], want[name], rel_tol=1e-9, abs_tol=1e-12), (name, row)


# ---------------------------------------------------------------- Virny parity


def test_virny_parity() -> None:
    stability = pytest.importorskip("virny.metrics.stability_metrics")
    label_stability = getattr(stability, "compute_label_stability", None)
    jitter = getattr(stability, "compute_jitter", None)
    if label_stability is None or jitter is None:
        pytest.skip("this virny version lacks compute_label_stability / compute_jitter")
    data = _data("plain")
    df = _frame(data, "columns")
    got = df.fair.ensemble_by_group(**_kw("plain"))
    for (g,), row in _keyed(got, ["g"]):
        sub = ref.subset(data, "g", g)
        labels = [[int(p >= 0.5) for p in sub[f"p{j}"]] for j in range(M)]  # model x row
        per_row = [label_stability([labels[j][i] for j in range(M)]) for i in range(len(sub["g"]))]
        assert math.isclose(row["label_stability"], float(np.mean(per_row)), **TOL)
        assert math.isclose(row["jitter"], float(jitter(labels)), **TOL)
