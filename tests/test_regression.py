"""Regression audit (issue 4): sums, per-group measures, criteria, quantile criteria.

Reference: ``tests/reference_regression.py`` (numpy, written from the definitions in
api4.md: two-pass moments, ``numpy.corrcoef``, ``numpy.quantile`` thresholds, explicit
loops over the threshold grid), compared at ``rel 1e-9`` (counts exactly). Holistic
AI is a separate oracle (``@pytest.mark.oracle``). Every comparison runs on the eager,
lazy in-memory and lazy streaming paths (the ``run`` fixture); the eager path must warn
``NullDataWarning`` when rows are excluded, the lazy paths never warn.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_regression as ref
from hypothesis import assume, given
from hypothesis import strategies as st

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair.exceptions import InvalidParameterError, NullDataWarning, ValueRangeError
from polars_fair.reduce_regression import quantile_grid_stats

REL = 1e-9
ABS = 1e-12
METHODS = ("between_groups", "to_overall", "to_reference", "named")
ENGINE_OF = {"lazy": "in-memory", "streaming": "streaming"}


def close(got: Any, want: Any, rel: float = REL, abs_tol: float = ABS) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return bool(math.isclose(got, want, rel_tol=rel, abs_tol=abs_tol))


@dataclass
class Case:
    """A dataset, how to call the library on it and how to build the reference."""

    data: dict[str, list[Any]]
    sens: list[str] = field(default_factory=lambda: ["g"])
    weighted: bool = False
    nulls: bool = False
    integer: bool = False

    @property
    def df(self) -> pl.DataFrame:
        schema: dict[str, Any] = {"y_pred": pl.Int64 if self.integer else pl.Float64}
        schema["y_true"] = pl.Float64
        if "w" in self.data:
            schema["w"] = pl.Float64
        return pl.DataFrame(self.data, schema_overrides=schema)

    def kw(self, *, truth: bool, weights: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"y_pred": "y_pred", "sensitive_features": self.sens}
        if truth:
            out["y_true"] = "y_true"
        if weights and self.weighted:
            out["sample_weight"] = "w"
        return out

    def rows(self, *, truth: bool, weights: bool = True) -> ref.RegRows:
        return ref.rows_of(self.data, self.sens, truth=truth, weighted=weights and self.weighted)

    def ref_value(self, rows: ref.RegRows) -> Any:
        """A group other than the largest, as a `reference_group` value."""
        key = next(k for k in rows.groups() if k != ref.largest(ref.sizes(rows)))
        return key[0] if len(key) == 1 else key


def make_case(
    seed: int,
    *,
    second: bool = False,
    weighted: bool = False,
    nulls: bool = False,
    integer: bool = False,
    **kw: Any,
) -> Case:
    data = ref.make_data(
        seed,
        second=("x", "y") if second else None,
        weights=weighted,
        nulls=nulls,
        integer=integer,
        **kw,
    )
    sens = ["g", "h"] if second else ["g"]
    return Case(data, sens, weighted, nulls, integer)


CASES: dict[str, dict[str, Any]] = {
    "three-groups": dict(seed=1),
    "two-int-groups": dict(seed=2, groups=(0, 1), group_p=(0.35, 0.65)),
    "four-groups-weighted": dict(seed=3, groups=tuple("wxyz"), weighted=True, rows=400),
    "nulls": dict(seed=4, nulls=True),
    "intersectional": dict(seed=5, second=True),
    "intersectional-weighted-nulls": dict(seed=6, second=True, weighted=True, nulls=True),
}

#: datasets of the quantile criteria (never weighted): integer predictions give ties
QCASES: dict[str, dict[str, Any]] = {
    "continuous": dict(seed=11),
    "integer-ties": dict(seed=12, integer=True),
    "two-groups-ties": dict(seed=13, integer=True, groups=(0, 1), group_p=(0.3, 0.7)),
    "nulls-ties": dict(seed=14, integer=True, nulls=True),
    "intersectional-ties": dict(seed=15, integer=True, second=True),
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return make_case(**CASES[request.param])


@pytest.fixture(params=list(QCASES), ids=list(QCASES))
def qcase(request: pytest.FixtureRequest) -> Case:
    return make_case(**QCASES[request.param])


def call(run: Any, df: pl.DataFrame, name: str, *, warns: bool, **kw: Any) -> Any:
    """``run(df, name, **kw)``; the eager path must warn about excluded rows iff `warns`."""
    if warns and run.kind == "eager":
        with pytest.warns(NullDataWarning, match="excluded"):
            return run(df, name, **kw)
    return run(df, name, **kw)


def method_kw(method: str, case: Case, rows: ref.RegRows) -> tuple[dict[str, Any], str, Any]:
    """(library kwargs, reference method, reference group) of a METHODS entry."""
    if method == "named":
        value = case.ref_value(rows)
        return {"reference_group": value}, "to_reference", value
    if method == "to_reference":
        return {"method": "to_reference"}, "to_reference", "largest"
    return {"method": method}, method, None


# --------------------------------------------------------------- statistics table


@pytest.mark.parametrize("truth", [True, False], ids=["with-truth", "pred-only"])
def test_regression_stats_sums(run: Any, case: Case, truth: bool) -> None:
    rows = case.rows(truth=truth)
    got = call(run, case.df, "regression_stats", warns=case.nulls, **case.kw(truth=truth))
    sums = list(ref.SUMS if truth else ref.SUMS[:2])
    assert got.columns == [*case.sens, "n", "n_null", *sums]
    assert got.schema["n"] == (pl.Float64 if case.weighted else pl.Int64)
    assert got.schema["n_null"] == pl.Int64
    assert [tuple(r) for r in got.select(case.sens).rows()] == rows.groups()
    for row in got.iter_rows(named=True):
        want = ref.stats_of(rows, tuple(row[s] for s in case.sens))
        assert row["n_null"] == want["n_null"]
        if case.weighted:
            assert close(row["n"], want["n"])
        else:
            assert row["n"] == want["n"]
        for s in sums:
            assert close(row[s], want[s]), (s, row, want)


@pytest.mark.parametrize("truth", [True, False], ids=["with-truth", "pred-only"])
def test_regression_by_group_measures(run: Any, case: Case, truth: bool) -> None:
    rows = case.rows(truth=truth)
    got = call(run, case.df, "regression_by_group", warns=case.nulls, **case.kw(truth=truth))
    names = list(ref.MEASURES if truth else ref.PREDICTION_MEASURES)
    assert got.columns[-len(names) :] == names
    assert [tuple(r) for r in got.select(case.sens).rows()] == rows.groups()
    want = ref.by_group(rows)
    for row in got.iter_rows(named=True):
        key = tuple(row[s] for s in case.sens)
        for m in names:
            assert close(row[m], want[key][m]), (key, m, row[m], want[key][m])


def test_regression_by_group_with_by(run: Any) -> None:
    c = make_case(21, batches=("m1", "m2"), rows=400, nulls=True)
    got = call(run, c.df, "regression_by_group", warns=True, by="batch", **c.kw(truth=True))
    assert got.columns[:2] == ["batch", "g"]
    assert got["batch"].unique(maintain_order=True).to_list() == ["m1", "m2"]
    for b in ("m1", "m2"):
        part = got.filter(pl.col("batch") == b)
        want = ref.by_group(ref.rows_of(ref.subset(c.data, "batch", b)))
        assert [(g,) for g in part["g"].to_list()] == list(want)
        for row in part.iter_rows(named=True):
            for m in ref.MEASURES:
                assert close(row[m], want[(row["g"],)][m]), (b, row["g"], m)


# ------------------------------------------------------------------ criteria


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(ref.CRITERIA))
def test_criterion_vs_reference(run: Any, case: Case, name: str, method: str) -> None:
    measure, kind = ref.CRITERIA[name]
    truth = measure not in ref.PREDICTION_MEASURES
    rows = case.rows(truth=truth)
    extra, ref_method, reference = method_kw(method, case, rows)
    want = ref.criterion(rows, measure, kind, ref_method, reference)
    assert want is not None
    got = call(run, case.df, name, warns=case.nulls, **case.kw(truth=truth), **extra)
    assert isinstance(got, float)
    assert close(got, want), (got, want)


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "named"])
def test_criteria_by_batches(run: Any, method: str) -> None:
    c = make_case(22, batches=("m1", "m2", "m3"), rows=600, weighted=True)
    for name, (measure, kind) in ref.CRITERIA.items():
        extra: dict[str, Any] = {"method": method} if method != "named" else {}
        if method == "named":
            extra["reference_group"] = "b"
        truth = measure not in ref.PREDICTION_MEASURES
        got = run(c.df, name, by="batch", **c.kw(truth=truth), **extra)
        assert got.columns == ["batch", name]
        assert got["batch"].to_list() == ["m1", "m2", "m3"]
        for b, value in got.iter_rows():
            sub = ref.subset(c.data, "batch", b)
            rows = ref.rows_of(sub, truth=truth, weighted=True)
            ref_method = "to_reference" if method == "named" else method
            want = ref.criterion(rows, measure, kind, ref_method, "b")
            assert close(value, want), (name, b, value, want)


def test_criterion_signed_farthest_group(run: Any) -> None:
    # reference b (largest, mean 5); a mean 4 (d = -1, r = .8), c mean 7 (d = +2, r = 1.4):
    # difference picks c (|2| > |-1|): +2; ratio picks c (|log 1.4| = .336 > |log .8| = .223)
    df = pl.DataFrame(
        {"g": ["a"] * 2 + ["b"] * 4 + ["c"] * 2, "p": [3.0, 5.0, 4.0, 6.0, 5.0, 5.0, 6.0, 8.0]}
    )
    kw: dict[str, Any] = {"y_pred": "p", "sensitive_features": "g", "method": "to_reference"}
    assert close(run(df, "average_score_difference", **kw), 2.0)
    assert close(run(df, "average_score_ratio", **kw), 1.4)
    # reference c: a gives 4/7 (|log| .56) and b 5/7 (.34): a is farthest, signed -3 / 4/7
    assert close(run(df, "average_score_difference", **kw, reference_group="c"), -3.0)
    assert close(run(df, "average_score_ratio", **kw, reference_group="c"), 4 / 7)


# --------------------------------------------------------------------- z-score


@pytest.mark.parametrize("reference", ["default", "largest", "named"])
def test_zscore_difference(run: Any, case: Case, reference: str) -> None:
    rows = case.rows(truth=False)
    extra: dict[str, Any] = {}
    rg: Any = None
    if reference == "largest":
        extra = {"reference_group": "largest"}
    elif reference == "named":
        rg = case.ref_value(rows)
        extra = {"reference_group": rg}
    want = ref.zscore_difference(rows, rg)
    assert want is not None
    got = call(run, case.df, "zscore_difference", warns=case.nulls, **case.kw(truth=False), **extra)
    assert close(got, want), (got, want)


def test_zscore_difference_by(run: Any) -> None:
    c = make_case(23, batches=("m1", "m2"), rows=500)
    got = run(c.df, "zscore_difference", by="batch", reference_group="a", **c.kw(truth=False))
    assert got.columns == ["batch", "zscore_difference"]
    for b, value in got.iter_rows():
        rows = ref.rows_of(ref.subset(c.data, "batch", b), truth=False)
        assert close(value, ref.zscore_difference(rows, "a")), b


def test_zscore_hand_computed(run: Any) -> None:
    # a: [1, 3] mean 2, population var 1; b: [2, 4, 6] mean 4, var 8/3 (largest)
    # pooled = (1 * 1 + 2 * 8/3) / 3 = (19/3) / 3 = 19/9; z_a = (2 - 4) / sqrt(19/9)
    df = pl.DataFrame({"g": ["a", "a", "b", "b", "b"], "p": [1.0, 3.0, 2.0, 4.0, 6.0]})
    got = run(df, "zscore_difference", y_pred="p", sensitive_features="g")
    assert close(got, -2 / math.sqrt(19 / 9))


def test_integer_weights_are_row_multiplicities(run: Any) -> None:
    # weights 1..3 == each row repeated that many times (library), and the reference's
    # weighted moments agree with numpy's unweighted ones on the repeated rows
    c = make_case(25, rows=200)
    rng = np.random.default_rng(25)
    w = rng.integers(1, 4, 200)
    df = c.df.with_columns(pl.Series("w", w, dtype=pl.Float64))
    repeated = df.select(pl.all().repeat_by("w").explode()).drop("w")
    kw: dict[str, Any] = {"y_pred": "y_pred", "y_true": "y_true", "sensitive_features": "g"}
    weighted = run(df, "regression_by_group", sample_weight="w", **kw)
    plain = run(repeated, "regression_by_group", **kw)
    data = {**c.data, "w": w.astype(float).tolist()}
    ref_w = ref.by_group(ref.rows_of(data, weighted=True))
    rep = {
        k: [v for v, n in zip(col, w, strict=True) for _ in range(n)] for k, col in c.data.items()
    }
    ref_rep = ref.by_group(ref.rows_of(rep))
    assert weighted["n"].to_list() == [float(n) for n in plain["n"].to_list()]
    for m in ref.MEASURES:
        for i, key in enumerate(ref_w):
            assert close(weighted[m][i], plain[m][i]), (m, key)
            assert close(ref_w[key][m], ref_rep[key][m]), (m, key)
            assert close(weighted[m][i], ref_w[key][m]), (m, key)


# ------------------------------------------------------------------ disparities


@pytest.mark.parametrize("reference", ["value", "largest", "min", "overall", "rest"])
@pytest.mark.parametrize("truth", [True, False], ids=["with-truth", "pred-only"])
def test_regression_disparities(run: Any, case: Case, reference: str, truth: bool) -> None:
    rows = case.rows(truth=truth)
    rg = case.ref_value(rows) if reference == "value" else reference
    got = call(
        run, case.df, "regression_disparities", warns=case.nulls, reference_group=rg,
        **case.kw(truth=truth),
    )  # fmt: skip
    names = list(ref.MEASURES if truth else ref.PREDICTION_MEASURES)
    assert got.columns == [
        *case.sens, "metric", "value", "reference_value", "difference", "ratio"
    ]  # fmt: skip
    assert got.schema["metric"] == pl.Enum(names)
    want = ref.disparities(rows, rg)
    expected_keys = [(k, m) for k in rows.groups() for m in names]
    got_keys = [(tuple(r[s] for s in case.sens), r["metric"]) for r in got.iter_rows(named=True)]
    assert got_keys == expected_keys
    for row in got.iter_rows(named=True):
        key = (tuple(row[s] for s in case.sens), row["metric"])
        value, reference_value, difference, ratio = want[key]
        assert close(row["value"], value), (key, row, want[key])
        assert close(row["reference_value"], reference_value), (key, row, want[key])
        assert close(row["difference"], difference), (key, row, want[key])
        assert close(row["ratio"], ratio), (key, row, want[key])


def test_regression_disparities_metrics_subset(run: Any) -> None:
    c = make_case(24)
    got = run(
        c.df, "regression_disparities", reference_group="overall",
        metrics=["rmse", "mean_prediction"], **c.kw(truth=True),
    )  # fmt: skip
    assert got.schema["metric"] == pl.Enum(["rmse", "mean_prediction"])
    assert got["metric"].cast(pl.String).to_list() == ["rmse", "mean_prediction"] * 3
    want = ref.disparities(c.rows(truth=True), "overall")
    for row in got.iter_rows(named=True):
        assert close(row["value"], want[((row["g"],), row["metric"])][0])


# ------------------------------------------------------------- quantile criteria


QS = (0.8, 0.5, 0.0, 1.0, 0.37)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("name", "kind"),
    [("disparate_impact_quantile", "ratio"), ("statistical_parity_quantile", "difference")],
)
def test_quantile_rate_criteria(run: Any, qcase: Case, name: str, kind: str, method: str) -> None:
    rows = qcase.rows(truth=False)
    extra, ref_method, reference = method_kw(method, qcase, rows)
    for q in QS:
        want = ref.quantile_criterion(rows, q, kind, ref_method, reference)
        got = call(run, qcase.df, name, warns=qcase.nulls, q=q, **qcase.kw(truth=False), **extra)
        assert close(got, want), (q, got, want)


def test_quantile_defaults(run: Any) -> None:
    # disparate impact defaults to q = 0.8, statistical parity to q = 0.5
    c = make_case(31, integer=True)
    rows = c.rows(truth=False)
    kw = c.kw(truth=False)
    want_di = ref.quantile_criterion(rows, 0.8, "ratio", "between_groups")
    want_sp = ref.quantile_criterion(rows, 0.5, "difference", "between_groups")
    assert close(run(c.df, "disparate_impact_quantile", **kw), want_di)
    assert close(run(c.df, "statistical_parity_quantile", **kw), want_sp)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["max_statistical_parity", "statistical_parity_auc"])
def test_grid_parity_criteria(run: Any, qcase: Case, name: str, method: str) -> None:
    rows = qcase.rows(truth=False)
    extra, ref_method, reference = method_kw(method, qcase, rows)
    fn = getattr(ref, name)
    wants = {n: fn(rows, n, ref_method, reference) for n in (150, 7, 2)}
    for n, want in wants.items():
        kw = {**qcase.kw(truth=False), **extra, "n_thresholds": n}
        got = call(run, qcase.df, name, warns=qcase.nulls, **kw)
        assert close(got, want), (n, got, want)
    # the default grid has 150 levels
    got = call(run, qcase.df, name, warns=qcase.nulls, **qcase.kw(truth=False), **extra)
    assert close(got, wants[150])


@pytest.mark.parametrize("method", METHODS)
def test_no_disparate_impact_level(run: Any, qcase: Case, method: str) -> None:
    rows = qcase.rows(truth=False)
    extra, ref_method, reference = method_kw(method, qcase, rows)
    for n, band in [(100, (0.8, 1.25)), (100, (0.8, 1.2)), (13, (0.95, 1.0)), (41, (1.0, 1.0))]:
        want = ref.no_disparate_impact_level(rows, n, ref_method, reference, band)
        kw = {**qcase.kw(truth=False), **extra, "n_thresholds": n, "ratio_band": band}
        got = call(run, qcase.df, "no_disparate_impact_level", warns=qcase.nulls, **kw)
        # a prediction value picked on the grid: exact
        assert got == want, (n, band, got, want)
    want = ref.no_disparate_impact_level(rows, 100, ref_method, reference, (0.8, 1.25))
    got = call(
        run, qcase.df, "no_disparate_impact_level", warns=qcase.nulls,
        **qcase.kw(truth=False), **extra,
    )  # fmt: skip
    assert got == want


def test_no_disparate_impact_level_closed_band(run: Any) -> None:
    # a: [1, 2, 3, 4, 5] (n 5), b: [1, 2, 3, 4, 6] (n 5); with 2 levels the thresholds are
    # q=1 -> 6 (a: 0/5, b: 1/5, DI = min/max = 0) and q=0 -> 1 (DI 1): band (1, 1), closed,
    # holds only DI = 1, reached at threshold 1
    df = pl.DataFrame({"g": list("aaaaabbbbb"), "p": [1.0, 2, 3, 4, 5, 1, 2, 3, 4, 6]})
    kw: dict[str, Any] = {"y_pred": "p", "sensitive_features": "g", "ratio_band": (1.0, 1.0)}
    assert run(df, "no_disparate_impact_level", n_thresholds=2, **kw) == 1.0
    # thresholds of linspace(1, 0, 5) = [1, .75, .5, .25, 0]: 6, 4, 3, 2, 1 (numpy linear)
    assert np.quantile(df["p"].to_numpy(), np.linspace(1, 0, 5)).tolist() == [6, 4, 3, 2, 1]
    # DI at t=4: a 2/5, b 2/5 -> 1 (in the closed band): 4 is the answer
    assert run(df, "no_disparate_impact_level", n_thresholds=5, **kw) == 4.0


def test_quantile_criteria_by(run: Any) -> None:
    c = make_case(32, batches=("m1", "m2"), rows=500, integer=True)
    kw = c.kw(truth=False)
    checks = [
        ("disparate_impact_quantile", {"q": 0.8}, lambda r: ref.quantile_criterion(r, 0.8, "ratio", "between_groups")),
        ("statistical_parity_quantile", {"q": 0.5, "reference_group": "a"}, lambda r: ref.quantile_criterion(r, 0.5, "difference", "to_reference", "a")),
        ("max_statistical_parity", {"n_thresholds": 20}, lambda r: ref.max_statistical_parity(r, 20)),
        ("statistical_parity_auc", {"method": "to_overall"}, lambda r: ref.statistical_parity_auc(r, 150, "to_overall")),
        ("no_disparate_impact_level", {}, lambda r: ref.no_disparate_impact_level(r)),
    ]  # fmt: skip
    for name, extra, fn in checks:
        got = run(c.df, name, by="batch", **kw, **extra)
        assert got.columns == ["batch", name]
        assert got["batch"].to_list() == ["m1", "m2"]
        for b, value in got.iter_rows():
            want = fn(ref.rows_of(ref.subset(c.data, "batch", b), truth=False))
            assert close(value, want), (name, b, value, want)


# ----------------------------------------------------------- thresholds == numpy


@pytest.mark.parametrize("engine", ["eager", "in-memory", "streaming"])
@pytest.mark.parametrize("integer", [False, True], ids=["continuous", "integer-ties"])
def test_quantile_grid_thresholds_are_numpy(engine: str, integer: bool) -> None:
    c = make_case(41, batches=("m1", "m2", "m3"), rows=500, integer=integer, nulls=True)
    levels = [*ref.levels(150).tolist(), 0.8, 0.5, 0.123, 1 / 3]
    frame: Any = c.df if engine == "eager" else c.df.lazy()
    got = quantile_grid_stats(
        frame, y_pred="y_pred", sensitive_features="g", levels=levels, by="batch"
    ).collect(engine="auto" if engine == "eager" else engine)
    assert got.columns == [
        "batch", "quantile", "g", "threshold", "n", "pred_pos", "pred_neg", "n_null"
    ]  # fmt: skip
    for b in ("m1", "m2", "m3"):
        sub = ref.subset(c.data, "batch", b)
        preds = [v for v in sub["y_pred"] if v is not None]
        rows = ref.rows_of(sub, truth=False)
        part = got.filter(pl.col("batch") == b)
        assert sorted(set(part["quantile"].to_list())) == sorted(set(levels))
        for (q,), level in part.group_by("quantile", maintain_order=True):
            t = float(np.quantile(preds, q))
            assert set(level["threshold"].to_list()) == {t}, (b, q)  # exact
            assert t == float(np.quantile(np.asarray(preds, dtype=np.float64), q))
            assert [(g,) for g in level["g"].to_list()] == rows.groups()
            for row in level.iter_rows(named=True):
                m = rows.mask((row["g"],))
                assert row["n"] == int(m.sum())
                assert row["pred_pos"] == int(np.sum(rows.p[m] >= t)), (b, q, row)
                assert row["pred_neg"] == row["n"] - row["pred_pos"]
                assert row["n_null"] == sum(1 for k in rows.dropped if k == (row["g"],))


# ------------------------------------------------------------------ properties

_dyadic = st.integers(-40, 40).map(lambda k: k / 4)


@st.composite
def regression_frames(
    draw: st.DrawFn, groups: Sequence[str] = ("a", "b", "c"), values: Any = _dyadic
) -> pl.DataFrame:
    """Every group present with 2..12 rows; dyadic values (exact sums and shifts)."""
    g: list[str] = []
    p: list[float] = []
    t: list[float] = []
    for name in groups:
        k = draw(st.integers(2, 12))
        g += [name] * k
        p += draw(st.lists(values, min_size=k, max_size=k))
        t += draw(st.lists(values, min_size=k, max_size=k))
    return pl.DataFrame(
        {"g": g, "p": p, "y": t}, schema={"g": pl.String, "p": pl.Float64, "y": pl.Float64}
    )


@given(df=regression_frames(), c=st.integers(-400, 400).map(lambda j: j / 4))
def test_shift_invariance(df: pl.DataFrame, c: float) -> None:
    shifted = df.with_columns(pl.col("p") + c, pl.col("y") + c)
    kw: dict[str, Any] = {"y_pred": "p", "y_true": "y", "sensitive_features": "g"}
    for name in ("rmse_ratio", "mae_ratio"):
        # dyadic values: (p + c) - (y + c) == p - y exactly, so the errors are identical
        assert getattr(shifted.fair, name)(**kw) == getattr(df.fair, name)(**kw)
    a = df.fair.regression_by_group(**kw)["mean_prediction"].to_list()
    b = shifted.fair.regression_by_group(**kw)["mean_prediction"].to_list()
    for x, y in zip(a, b, strict=True):
        assert math.isclose(y, x + c, rel_tol=1e-12, abs_tol=1e-12), (x, y, c)
    kw.pop("y_true")
    d0 = df.fair.average_score_difference(**kw)
    d1 = shifted.fair.average_score_difference(**kw)
    assert math.isclose(d0, d1, rel_tol=1e-9, abs_tol=1e-9)


@given(
    df=regression_frames(groups=("a", "b")),
    c=st.floats(0.01, 100, allow_nan=False, allow_infinity=False),
)
def test_scale_invariance(df: pl.DataFrame, c: float) -> None:
    # two groups: the z-score compares the one non-reference group (no tie between groups)
    by_group = df.fair.regression_by_group(y_pred="p", sensitive_features="g")
    assume(all(v > 0 for v in by_group["std_prediction"].to_list()))
    scaled = df.with_columns(pl.col("p") * c)
    kw: dict[str, Any] = {"y_pred": "p", "sensitive_features": "g"}
    d0 = df.fair.average_score_difference(**kw)
    d1 = scaled.fair.average_score_difference(**kw)
    assert math.isclose(d1, c * d0, rel_tol=1e-9, abs_tol=1e-9 * c)
    z0 = df.fair.zscore_difference(**kw, reference_group="a")
    z1 = scaled.fair.zscore_difference(**kw, reference_group="a")
    assert math.isclose(z0, z1, rel_tol=1e-9, abs_tol=1e-9), (z0, z1)


@given(
    df=regression_frames(values=st.integers(0, 1000).map(lambda k: k / 100)),
    q=st.sampled_from([0.25, 0.5, 0.75]),
    method=st.sampled_from(["between_groups", "to_overall", "to_reference"]),
)
def test_quantile_criteria_invariant_under_increasing_transform(
    df: pl.DataFrame, q: float, method: str
) -> None:
    # exp is strictly increasing: the same rows reach the q-quantile, so the same rates.
    # Levels with a dyadic (n - 1) q keep the interpolated threshold strictly between
    # two distinct neighbours (never rounded onto one of them) on both scales.
    transformed = df.with_columns(pl.col("p").exp())
    kw: dict[str, Any] = {"y_pred": "p", "sensitive_features": "g", "q": q, "method": method}
    for name in ("statistical_parity_quantile", "disparate_impact_quantile"):
        assert getattr(transformed.fair, name)(**kw) == getattr(df.fair, name)(**kw), name


# ---------------------------------------------------------- Holistic AI parity


def _hai_data(seed: int, integer: bool = False) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    data = ref.make_data(seed, rows=300, groups=("a", "b"), group_p=(0.4, 0.6), integer=integer)
    df = pl.DataFrame(data)
    ga = (df["g"] == "a").cast(pl.Int64).to_numpy()
    return df.with_columns(pl.col("y_pred").cast(pl.Float64)), ga, 1 - ga


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("seed", "integer"), [(51, False), (52, False), (53, True)], ids=["s51", "s52", "ties"]
)
def test_holisticai_parity(run: Any, seed: int, integer: bool) -> None:
    hai = pytest.importorskip("holisticai.bias.metrics")
    df, ga, gb = _hai_data(seed, integer)
    p, y = df["y_pred"].to_numpy(), df["y_true"].to_numpy()
    # HAI f(group_a, group_b, ...): group_a the unprivileged one; ours: reference b
    to_b: dict[str, Any] = {"y_pred": "y_pred", "sensitive_features": "g", "reference_group": "b"}
    with_y = {**to_b, "y_true": "y_true"}
    pairs = [
        ("disparate_impact_quantile", {**to_b, "q": 0.8}, lambda: hai.disparate_impact_regression(ga, gb, p, q=0.8)),
        ("disparate_impact_quantile", {**to_b, "q": 0.5}, lambda: hai.disparate_impact_regression(ga, gb, p, q=0.5)),
        ("statistical_parity_quantile", {**to_b, "q": 0.5}, lambda: hai.statistical_parity_regression(ga, gb, p, q=0.5)),
        ("average_score_difference", to_b, lambda: hai.avg_score_diff(ga, gb, p)),
        ("average_score_ratio", to_b, lambda: hai.avg_score_ratio(ga, gb, p)),
        ("zscore_difference", to_b, lambda: hai.zscore_diff(ga, gb, p)),
        ("max_statistical_parity", to_b, lambda: hai.max_statistical_parity(ga, gb, p)),
        ("statistical_parity_auc", to_b, lambda: hai.statistical_parity_auc(ga, gb, p)),
        ("rmse_ratio", with_y, lambda: hai.rmse_ratio(ga, gb, p, y)),
        ("mae_ratio", with_y, lambda: hai.mae_ratio(ga, gb, p, y)),
        ("correlation_difference", with_y, lambda: hai.correlation_diff(ga, gb, p, y)),
    ]  # fmt: skip
    if not integer:  # exact ties at the (open vs closed) band edges: continuous data only
        pairs.append(
            ("no_disparate_impact_level", {**to_b, "ratio_band": (0.8, 1.2)},
             lambda: hai.no_disparate_impact_level(ga, gb, p)),
        )  # fmt: skip
    for name, kw, oracle in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(oracle())
        got = run(df, name, **kw)
        assert close(got, want, rel=1e-12, abs_tol=1e-14), (name, got, want)
    # max / AUC of |SP| with two groups do not depend on the method
    for name in ("max_statistical_parity", "statistical_parity_auc"):
        got = run(df, name, y_pred="y_pred", sensitive_features="g")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(getattr(hai, name)(ga, gb, p))
        assert close(got, want, rel=1e-12, abs_tol=1e-14), name


@pytest.mark.oracle
def test_holisticai_no_disparate_impact_level_is_not_trivial(run: Any) -> None:
    # the level the parity test checks is not just the lowest prediction (DI at the top
    # is outside the band, it enters the band part-way down the grid)
    hai = pytest.importorskip("holisticai.bias.metrics")
    df, ga, gb = _hai_data(51)
    p = df["y_pred"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(hai.no_disparate_impact_level(ga, gb, p))
    assert p.min() < want < p.max()
    got = run(
        df, "no_disparate_impact_level", y_pred="y_pred", sensitive_features="g",
        reference_group="b", ratio_band=(0.8, 1.2),
    )  # fmt: skip
    assert got == want


# ---------------------------------------------------------------------- errors

ERR_DF = pl.DataFrame(
    {
        "g": ["a", "a", "b", "b", "a", "b"],
        "p": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "y": [1.5, 2.5, 2.0, 3.0, 5.0, 7.0],
        "s": ["x"] * 6,
        "flag": [True, False, True, False, True, True],
    }
)


def _raise_on_collect(
    engine: str, df: pl.DataFrame, name: str, exc: Any, match: str, **kw: Any
) -> None:
    """Eager raises on the call; lazy builds the plan and raises on collect."""
    if engine == "eager":
        with pytest.raises(exc, match=match):
            getattr(df.fair, name)(**kw)
        return
    plan = getattr(df.lazy().fair, name)(**kw)
    with pytest.raises(exc, match=match):
        plan.collect(engine=ENGINE_OF[engine])


BAD_VALUE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("regression_stats", {"y_true": "y"}),
    ("regression_by_group", {"y_true": "y"}),
    ("regression_disparities", {}),
    ("rmse_ratio", {"y_true": "y"}),
    ("average_score_difference", {}),
    ("zscore_difference", {}),
    ("disparate_impact_quantile", {}),
    ("max_statistical_parity", {"n_thresholds": 5}),
    ("no_disparate_impact_level", {}),
]


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize(
    "bad", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"]
)
@pytest.mark.parametrize(("name", "extra"), BAD_VALUE_CALLS, ids=[n for n, _ in BAD_VALUE_CALLS])
def test_non_finite_predictions(engine: str, bad: float, name: str, extra: dict[str, Any]) -> None:
    df = ERR_DF.with_columns(
        pl.when(pl.int_range(pl.len()) == 2).then(bad).otherwise(pl.col("p")).alias("p")
    )
    msg = re.escape(
        "`y_pred` column 'p' must hold finite numbers, found 1 NaN or infinite value(s)"
    )
    _raise_on_collect(
        engine, df, name, ValueRangeError, msg, y_pred="p", sensitive_features="g", **extra
    )


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize(
    "name", ["regression_by_group", "mae_difference", "correlation_difference"]
)
def test_non_finite_truths(engine: str, name: str) -> None:
    df = ERR_DF.with_columns(pl.Series("y", [1.0, float("nan"), 2.0, float("inf"), 1.0, 0.0]))
    msg = re.escape(
        "`y_true` column 'y' must hold finite numbers, found 2 NaN or infinite value(s)"
    )
    _raise_on_collect(
        engine, df, name, ValueRangeError, msg, y_pred="p", y_true="y", sensitive_features="g"
    )


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("regression_stats", {"y_pred": "s"}),
        ("regression_by_group", {"y_pred": "flag"}),
        ("average_score_ratio", {"y_pred": "s"}),
        ("zscore_difference", {"y_pred": "flag"}),
        ("statistical_parity_quantile", {"y_pred": "s"}),
        ("max_statistical_parity", {"y_pred": "flag"}),
        ("rmse_difference", {"y_pred": "p", "y_true": "s"}),
        ("regression_by_group", {"y_pred": "p", "y_true": "flag"}),
    ],
)
def test_non_numeric_columns(lazy: bool, name: str, kw: dict[str, Any]) -> None:
    frame: Any = ERR_DF.lazy() if lazy else ERR_DF
    param = "y_true" if "y_true" in kw else "y_pred"
    col = kw[param]
    with pytest.raises(InvalidParameterError, match=rf"`{param}` column '{col}' must be numeric"):
        getattr(frame.fair, name)(sensitive_features="g", **kw)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("q", [-0.1, 1.5, float("nan"), True, "0.5", None])
@pytest.mark.parametrize("name", ["disparate_impact_quantile", "statistical_parity_quantile"])
def test_bad_quantile_level(lazy: bool, q: Any, name: str) -> None:
    frame: Any = ERR_DF.lazy() if lazy else ERR_DF
    with pytest.raises(InvalidParameterError, match="quantile level in"):
        getattr(frame.fair, name)(y_pred="p", sensitive_features="g", q=q)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("n", [1, 0, -5, 2.0, True, None, "150"])
@pytest.mark.parametrize(
    "name", ["max_statistical_parity", "statistical_parity_auc", "no_disparate_impact_level"]
)
def test_bad_n_thresholds(lazy: bool, n: Any, name: str) -> None:
    frame: Any = ERR_DF.lazy() if lazy else ERR_DF
    with pytest.raises(InvalidParameterError, match="`n_thresholds` must be an integer >= 2"):
        getattr(frame.fair, name)(y_pred="p", sensitive_features="g", n_thresholds=n)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize(
    "band",
    [(1.2, 0.8), (0.0, 1.2), (-0.5, 1.2), (0.8,), (0.8, 1.0, 1.2), [0.8, 1.2], (0.8, float("inf")),
     (float("nan"), 1.2), (1.1, 1.3), (0.5, 0.9), ("0.8", 1.2), None, 0.8],
)  # fmt: skip
def test_bad_ratio_band(lazy: bool, band: Any) -> None:
    frame: Any = ERR_DF.lazy() if lazy else ERR_DF
    with pytest.raises(InvalidParameterError, match="`ratio_band` must be a tuple"):
        frame.fair.no_disparate_impact_level(y_pred="p", sensitive_features="g", ratio_band=band)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize(
    "name",
    ["rmse_difference", "rmse_ratio", "mae_difference", "mae_ratio", "correlation_difference"],
)
def test_criteria_of_errors_need_y_true(lazy: bool, name: str) -> None:
    frame: Any = ERR_DF.lazy() if lazy else ERR_DF
    with pytest.raises(InvalidParameterError, match="needs `y_true`"):
        getattr(frame.fair, name)(y_pred="p", sensitive_features="g")


def test_prediction_criteria_do_not_need_y_true(run: Any) -> None:
    rows = ref.RegRows(ERR_DF["p"].to_list(), [ERR_DF["g"].to_list()])
    for name in ("average_score_difference", "average_score_ratio"):
        measure, kind = ref.CRITERIA[name]
        got = run(ERR_DF, name, y_pred="p", sensitive_features="g")
        assert close(got, ref.criterion(rows, measure, kind, "between_groups"))


# ------------------------------------------------------------------- degenerate


def test_constant_group_has_null_correlation(run: Any) -> None:
    # group a predicts 2.0 on every row (exact in binary): std 0, correlation undefined;
    # correlation_difference compares b and c only
    c = make_case(61, rows=300)
    data = {k: list(v) for k, v in c.data.items()}
    data["y_pred"] = [
        2.0 if g == "a" else p for g, p in zip(data["g"], data["y_pred"], strict=True)
    ]
    df = pl.DataFrame(data)
    kw: dict[str, Any] = {"y_pred": "y_pred", "y_true": "y_true", "sensitive_features": "g"}
    table = run(df, "regression_by_group", **kw)
    assert table["g"].to_list() == ["a", "b", "c"]
    assert table["std_prediction"][0] == 0.0
    assert table["correlation"][0] is None
    assert table["correlation"][1:].null_count() == 0
    rows = ref.rows_of(data)
    for method in ("between_groups", "to_overall"):
        want = ref.criterion(rows, "correlation", "difference", method)
        r = ref.by_group(rows)
        if method == "between_groups":  # by hand: |r_b - r_c|, a left out
            assert close(want, abs(r[("b",)]["correlation"] - r[("c",)]["correlation"]))  # type: ignore[operator]
        assert close(run(df, "correlation_difference", method=method, **kw), want)
    # reference a (the constant group): nothing to compare against -> None
    assert run(df, "correlation_difference", reference_group="a", **kw) is None


def test_constant_truth_has_null_correlation(run: Any) -> None:
    df = pl.DataFrame(
        {"g": list("aaabbb"), "p": [1.0, 2, 4, 1, 2, 3], "y": [3.0] * 3 + [1.0, 3, 2]}
    )
    table = run(df, "regression_by_group", y_pred="p", y_true="y", sensitive_features="g")
    assert table["correlation"][0] is None
    # b: r of (1, 2, 3) and (1, 3, 2) = cov 1/3 / (2/3) = 0.5
    assert close(table["correlation"][1], 0.5)


@pytest.mark.parametrize(("value", "n"), [(0.3, 3), (0.7, 3), (123.456, 10), (0.1, 7)])
def test_constant_inexact_predictions_have_null_correlation(run: Any, value: float, n: int) -> None:
    df = pl.DataFrame(
        {"g": ["a"] * n + ["b"] * 5, "p": [value] * n + [1.0, 2, 3, 4, 5],
         "y": [float(i) for i in range(n)] + [2.0, 1, 4, 3, 5]}
    )  # fmt: skip
    table = run(df, "regression_by_group", y_pred="p", y_true="y", sensitive_features="g")
    assert table["std_prediction"][0] == 0.0
    assert table["correlation"][0] is None


@pytest.mark.parametrize(
    ("method", "extra"),
    [("max_statistical_parity", {"n_thresholds": 10}), ("statistical_parity_quantile", {})],
)
def test_quantile_criteria_warning_counts_rows_once(method: str, extra: dict[str, Any]) -> None:
    df = pl.DataFrame({"g": list("aabbab"), "p": [1.0, None, 2.0, 3.0, 4.0, None]})
    with pytest.warns(NullDataWarning, match=r"^2 row\(s\) .* in groups \['a', 'b'\]"):
        getattr(df.fair, method)(y_pred="p", sensitive_features="g", **extra)


def test_single_level_warning_counts_rows(run: Any) -> None:
    df = pl.DataFrame({"g": list("aabbab"), "p": [1.0, None, 2.0, 3.0, 4.0, None]})
    if run.kind == "eager":
        with pytest.warns(NullDataWarning, match=r"^2 row\(s\)"):
            run(df, "regression_by_group", y_pred="p", sensitive_features="g")
    else:
        run(df, "regression_by_group", y_pred="p", sensitive_features="g")
