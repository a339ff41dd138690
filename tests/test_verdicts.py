"""`summary`: one row per criterion with its value, fair band and verdict (api3.md, Verdicts).

Each row's ``value`` must equal the plain criterion method called with the same
arguments; the verdict is re-derived here from the value and the bands:

* differences (ideal 0): fair iff |d| <= difference_band;
* ratios (ideal 1): fair iff ratio_band[0] <= r <= ratio_band[1];
* two_sd_rule: unfair iff |z| > 2; four_fifths_rule: fair iff in [0.8, 1.25];
* "undefined" when the value is null.

These are the point rule (``verdict_rule="point"``); the interval rule, small-group
exclusion, effective sizes and orientation are tested in ``test_verdicts_intervals.py``.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_stats as ref

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

COLUMNS = [
    "criterion",
    "value",
    "ideal",
    "fair_low",
    "fair_high",
    "verdict",
    "ci_low",
    "ci_high",
    "interval_method",
    "p_value",
    "group",
    "group_n",
    "compared_with",
    "compared_n",
    "n_groups",
    "excluded",
    "note",
    "min_group_n",
    "lowest",
    "lowest_group",
    "lowest_n",
    "highest",
    "highest_group",
    "highest_n",
]
CRITERIA = [
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equal_opportunity_difference",
    "equalized_odds_difference",
    "disparate_impact_ratio",
    "statistical_parity_difference",
    "predictive_equality_ratio",
    "cohen_d",
    "two_sd_rule",
    "four_fifths_rule",
]


def _frame(data: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(data, schema_overrides={"y_true": pl.Int64, "y_pred": pl.Int64})


def _plain(df: pl.DataFrame, name: str, **kw: Any) -> Any:
    fn = getattr(df.fair, name)
    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kw.items() if k in params and v is not None})


def _kind(name: str) -> str:
    if name in ("two_sd_rule", "four_fifths_rule", "cohen_d"):
        return name
    if name.endswith("_ratio"):
        return "ratio"
    return "difference"


def _expected_verdict(
    name: str,
    value: float | None,
    *,
    band: float = 0.1,
    ratio_band: tuple[float, float] = (0.8, 1.25),
) -> str:
    if value is None:
        return "undefined"
    kind = _kind(name)
    if kind == "two_sd_rule":
        return "unfair" if abs(value) > 2 else "fair"
    if kind == "four_fifths_rule":
        return "fair" if 0.8 <= value <= 1.25 else "unfair"
    if kind == "ratio":
        return "fair" if ratio_band[0] <= value <= ratio_band[1] else "unfair"
    if kind == "difference":
        return "fair" if abs(value) <= band else "unfair"
    msg = f"no rule for {name}"
    raise AssertionError(msg)  # cohen_d: checked with its own band


@pytest.fixture(scope="module")
def data() -> dict[str, list[Any]]:
    # three groups of >= 100 rows (no "too_small" at the default min_group_size=30)
    return ref.make_data(
        301, rows=600, groups=("a", "b", "c"), group_p=(0.25, 0.4, 0.35), flip=0.35
    )


@pytest.mark.parametrize("reference", [None, "b"])
def test_one_row_per_criterion_and_values(run: Any, data: Any, reference: Any) -> None:
    df = _frame(data)
    kw = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "g",
        "reference_group": reference,
    }
    out = run(
        df,
        "summary",
        **{k: v for k, v in kw.items() if v is not None},
        criteria=CRITERIA,
        verdict_rule="point",
    )
    assert out.columns == COLUMNS
    assert out["criterion"].to_list() == CRITERIA
    # api3.md says `verdict` is a str; the library returns an Enum of the four verdicts
    # (like `metric` in `disparities`): accepted, with exactly those categories
    dtype = out.schema["verdict"]
    assert dtype == pl.Enum(["fair", "unfair", "inconclusive", "undefined"])
    assert out.schema["criterion"] == pl.String
    for row in out.iter_rows(named=True):
        name = row["criterion"]
        if _kind(name) in ("two_sd_rule", "four_fifths_rule", "cohen_d") and reference is None:
            # one orientation: between the most and least selected groups (>= 0; the
            # four-fifths ratio <= 1), checked against numpy in test_verdicts_intervals
            assert row["value"] >= 0 if name != "four_fifths_rule" else row["value"] <= 1
            continue
        if name == "four_fifths_rule":  # signed against the reference: the DI
            name = "disparate_impact_ratio"
        plain = _plain(df, name, **kw)
        assert plain is not None
        assert math.isclose(row["value"], plain, rel_tol=1e-12, abs_tol=1e-15), (row, plain)
        if _kind(name) != "cohen_d":
            assert row["verdict"] == _expected_verdict(name, row["value"]), row
        assert row["fair_low"] <= row["fair_high"]
        inside = row["fair_low"] <= row["value"] <= row["fair_high"]
        assert row["verdict"] == ("fair" if inside else "unfair"), row


def test_ideal_and_bands(data: Any) -> None:
    out = _frame(data).fair.summary(
        y_true="y_true", y_pred="y_pred", sensitive_features="g", criteria=CRITERIA
    )
    for row in out.iter_rows(named=True):
        kind = _kind(row["criterion"])
        if kind == "difference":
            assert (row["ideal"], row["fair_low"], row["fair_high"]) == (0.0, -0.1, 0.1), row
        elif kind == "ratio":
            assert (row["ideal"], row["fair_low"], row["fair_high"]) == (1.0, 0.8, 1.25), row
        elif kind == "two_sd_rule":
            assert (row["ideal"], row["fair_low"], row["fair_high"]) == (0.0, -2.0, 2.0), row
        elif kind == "four_fifths_rule":
            assert (row["ideal"], row["fair_low"]) == (1.0, 0.8), row
        else:
            assert row["ideal"] == 0.0, row


def test_configurable_bands(data: Any) -> None:
    df = _frame(data)
    kw = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "g",
        "criteria": CRITERIA,
        "verdict_rule": "point",
    }
    default = df.fair.summary(**kw)
    values = dict(default.select("criterion", "value").iter_rows())
    # pick bands that fall strictly between the observed values and the defaults
    dp, di = values["demographic_parity_difference"], values["demographic_parity_ratio"]
    assert 0 < dp < 0.1
    assert 0.8 < di < 1
    out = df.fair.summary(**kw, difference_band=dp / 2, ratio_band=(di + (1 - di) / 2, 1.1))
    for row in out.iter_rows(named=True):
        name = row["criterion"]
        if _kind(name) in ("difference", "ratio"):
            assert row["verdict"] == _expected_verdict(
                name, row["value"], band=dp / 2, ratio_band=(di + (1 - di) / 2, 1.1)
            ), row
    verdicts = dict(out.select("criterion", "verdict").iter_rows())
    assert verdicts["demographic_parity_difference"] == "unfair"
    assert verdicts["demographic_parity_ratio"] == "unfair"
    assert (
        dict(default.select("criterion", "verdict").iter_rows())["demographic_parity_difference"]
        == "fair"
    )
    row = out.filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    assert (row["fair_low"], row["fair_high"]) == (-dp / 2, dp / 2)


def test_two_sd_rule_p_value(data: Any) -> None:
    out = _frame(data).fair.summary(
        y_true="y_true", y_pred="y_pred", sensitive_features="g", criteria=CRITERIA
    )
    for row in out.iter_rows(named=True):
        if row["criterion"] == "two_sd_rule":
            assert math.isclose(row["p_value"], ref.two_sided_p(row["value"]), rel_tol=1e-12)
        else:
            assert row["p_value"] is None, row


def test_two_sd_rule_unfair_beyond_two() -> None:
    # group a selects 80 of 100, group b 50 of 100: z is far beyond 2 (hand: SR_tot .65,
    # z = .3 / sqrt(.65 * .35 / 50) = 4.45)
    df = pl.DataFrame(
        {
            "g": ["a"] * 100 + ["b"] * 100,
            "y_true": [1, 0] * 100,
            "y_pred": [1] * 80 + [0] * 20 + [1] * 50 + [0] * 50,
        }
    )
    out = df.fair.summary(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        criteria=["two_sd_rule", "four_fifths_rule"],
    )
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    z = 0.3 / math.sqrt(0.65 * 0.35 / 50)
    assert math.isclose(abs(rows["two_sd_rule"]["value"]), z, rel_tol=1e-12)
    assert rows["two_sd_rule"]["verdict"] == "unfair"
    assert math.isclose(rows["four_fifths_rule"]["value"], 50 / 80, rel_tol=1e-12)
    assert rows["four_fifths_rule"]["verdict"] == "unfair"


def test_four_fifths_boundary_is_fair() -> None:
    # SR 0.4 vs 0.5: ratio exactly 0.8 in binary floating point? 0.4/0.5 = 0.8 -> fair
    df = pl.DataFrame(
        {
            "g": ["a"] * 50 + ["b"] * 50,
            "y_true": [1, 0] * 50,
            "y_pred": [1] * 20 + [0] * 30 + [1] * 25 + [0] * 25,
        }
    )
    assert 0.4 / 0.5 >= 0.8
    out = df.fair.summary(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        criteria=["four_fifths_rule"],
        verdict_rule="point",
    )
    assert out["verdict"].to_list() == ["fair"]


def test_undefined_verdict(run: Any) -> None:
    # no positive labels at all: every TPR is undefined, equal_opportunity_difference is null
    df = pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y_true": [0] * 80, "y_pred": [1, 0] * 40})
    out = run(
        df,
        "summary",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        criteria=["equal_opportunity_difference", "demographic_parity_difference"],
        verdict_rule="point",
    )
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    assert rows["equal_opportunity_difference"]["value"] is None
    assert rows["equal_opportunity_difference"]["verdict"] == "undefined"
    assert rows["demographic_parity_difference"]["verdict"] == "fair"


@pytest.mark.parametrize("min_group_size", [None, 20, 60])
def test_small_groups_excluded(run: Any, min_group_size: int | None) -> None:
    # group c has 25 rows: left out at the default 30 and at 60, kept at 20
    data = ref.make_data(311, rows=400, groups=("a", "b"))
    data["g"][:25] = ["c"] * 25
    df = _frame(data)
    kw: dict[str, Any] = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "g",
        "criteria": ["demographic_parity_difference", "four_fifths_rule"],
    }
    if min_group_size is not None:
        kw["min_group_size"] = min_group_size
    out = run(df, "summary", **kw)
    threshold = 30 if min_group_size is None else min_group_size
    sizes = dict(df.group_by("g").len().iter_rows())
    big = {g for g, n in sizes.items() if n >= threshold}
    excluded = sorted(f"{g} (n={n})" for g, n in sizes.items() if n < threshold)
    for row in out.iter_rows(named=True):
        assert row["n_groups"] == len(big), row
        assert row["excluded"] == ("; ".join(excluded) or None), row
        assert {row["group"], row["compared_with"]} <= big, row
        assert row["value"] is not None
        # the value is that of the kept groups only
        sub = df.filter(pl.col("g").is_in(sorted(big)))
        plain = _plain(sub, "demographic_parity_difference", **kw)
        if row["criterion"] == "demographic_parity_difference":
            assert math.isclose(row["value"], plain, rel_tol=1e-12), row


def test_by_batches(run: Any) -> None:
    data = ref.make_data(321, rows=800, batches=("m1", "m2"))
    df = _frame(data)
    crits = ["demographic_parity_difference", "disparate_impact_ratio", "two_sd_rule"]
    out = run(
        df,
        "summary",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        by="batch",
        criteria=crits,
        verdict_rule="point",
    )
    assert out.columns == ["batch", *COLUMNS]
    assert sorted(out.select("batch", "criterion").iter_rows()) == sorted(
        (b, c) for b in ("m1", "m2") for c in crits
    )
    for row in out.iter_rows(named=True):
        sub = df.filter(pl.col("batch") == row["batch"])
        plain = _plain(
            sub, row["criterion"], y_true="y_true", y_pred="y_pred", sensitive_features="g"
        )
        if row["criterion"] == "two_sd_rule":
            # one orientation: the z of the most against the least selected group (numpy)
            sizes = sub.group_by("g").agg(pl.len().alias("n"), pl.col("y_pred").sum().alias("pp"))
            n, pp = sizes["n"].to_numpy().astype(float), sizes["pp"].to_numpy().astype(float)
            hi, lo = int(np.argmax(pp / n)), int(np.argmin(pp / n))
            pooled = (pp[hi] + pp[lo]) / (n[hi] + n[lo])
            se = math.sqrt(pooled * (1 - pooled) * (1 / n[hi] + 1 / n[lo]))
            plain = (pp[hi] / n[hi] - pp[lo] / n[lo]) / se
        assert math.isclose(row["value"], plain, rel_tol=1e-12), row
        assert row["verdict"] == _expected_verdict(row["criterion"], row["value"]), row
        sizes = dict(sub.group_by("g").len().iter_rows())
        assert row["group_n"] == sizes[row["group"]], row
        assert row["compared_n"] == sizes[row["compared_with"]], row
        assert row["min_group_n"] == min(row["group_n"], row["compared_n"])


def test_weighted_values(run: Any) -> None:
    data = ref.make_data(331, rows=500, weights="float")
    df = _frame(data)
    crits = [
        "demographic_parity_difference",
        "equal_opportunity_difference",
        "disparate_impact_ratio",
    ]
    out = run(
        df,
        "summary",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        sample_weight="w",
        criteria=crits,
    )
    for row in out.iter_rows(named=True):
        plain = _plain(
            df,
            row["criterion"],
            y_true="y_true",
            y_pred="y_pred",
            sensitive_features="g",
            sample_weight="w",
        )
        assert math.isclose(row["value"], plain, rel_tol=1e-12), row


def test_intervals_contain_the_value(data: Any) -> None:
    # api3.md does not say which interval each criterion gets; wherever one is given it
    # must contain the point value (true for Wilson/Newcombe/Katz and for percentiles of
    # a bootstrap around a smooth statistic)
    out = _frame(data).fair.summary(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        reference_group="b",
        criteria=CRITERIA,
    )
    given = out.filter(pl.col("ci_low").is_not_null())
    assert given.height > 0
    for row in given.iter_rows(named=True):
        assert row["ci_low"] <= row["value"] <= row["ci_high"], row


def test_statistical_parity_interval_is_newcombe(data: Any) -> None:
    # two groups, named reference: the difference interval is Newcombe's, from the counts
    two = ref.make_data(341, rows=500, groups=("p", "q"))
    df = _frame(two)
    out = df.fair.summary(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        reference_group="q",
        confidence_level=0.9,
        criteria=["statistical_parity_difference", "disparate_impact_ratio"],
    )
    rows = ref.Rows(None, two["y_pred"], [two["g"]])
    stats = ref.group_sizes_and_rates(rows)
    (n_p, pp_p, _), (n_q, pp_q, _) = stats[("p",)], stats[("q",)]
    nd = ref.newcombe(pp_p, n_p, pp_q, n_q, 0.9)
    kz = ref.katz(pp_p, n_p, pp_q, n_q, 0.9)
    assert nd is not None
    assert kz is not None
    got = {r["criterion"]: r for r in out.iter_rows(named=True)}
    sp, di = got["statistical_parity_difference"], got["disparate_impact_ratio"]
    assert math.isclose(sp["ci_low"], nd[0], rel_tol=1e-12)
    assert math.isclose(sp["ci_high"], nd[1], rel_tol=1e-12)
    assert math.isclose(di["ci_low"], kz[0], rel_tol=1e-12)
    assert math.isclose(di["ci_high"], kz[1], rel_tol=1e-12)


def test_by_batches_row_order() -> None:
    data = ref.make_data(322, rows=800, batches=("m1", "m2", "m3"))
    crits = ["demographic_parity_difference", "disparate_impact_ratio", "two_sd_rule"]
    want = [(b, c) for b in ("m1", "m2", "m3") for c in crits]
    for _ in range(5):  # the order must not change between runs either
        out = (
            _frame(data)
            .lazy()
            .fair.summary(
                y_true="y_true", y_pred="y_pred", sensitive_features="g", by="batch", criteria=crits
            )
            .collect()
        )
        assert list(out.select("batch", "criterion").iter_rows()) == want


def _pair_interval(
    rows: ref.Rows, rate: str, kind: str, reference: Any, cl: float
) -> tuple[float, float] | None:
    """The interval of the pair a one-rate criterion reports, from the reference.

    between_groups (no reference): max - min -> Newcombe(max group, min group); min / max
    -> Katz(min group, max group). to_reference: the group farthest from the reference
    (|d|, or |ln r|) against the reference.
    """
    xm = {k: ref.proportion(ref.cells(rows, k), rate) for k in rows.groups()}
    p = {k: x / m for k, (x, m) in xm.items() if m > 0}
    if reference is None:
        hi = max(p, key=lambda k: p[k])
        lo = min(p, key=lambda k: p[k])
        if kind == "difference":
            return ref.newcombe(*xm[hi], *xm[lo], cl)
        return ref.katz(*xm[lo], *xm[hi], cl)
    rk = (reference,)
    others = [k for k in p if k != rk]
    if kind == "difference":
        far = max(others, key=lambda k: abs(p[k] - p[rk]))
        return ref.newcombe(*xm[far], *xm[rk], cl)
    far = max(others, key=lambda k: abs(math.log(p[k] / p[rk])))
    return ref.katz(*xm[far], *xm[rk], cl)


ONE_RATE = {
    "demographic_parity_difference": ("selection_rate", "difference"),
    "disparate_impact_ratio": ("selection_rate", "ratio"),
    "equal_opportunity_difference": ("true_positive_rate", "difference"),
    "predictive_equality_ratio": ("false_positive_rate", "ratio"),
    "accuracy_difference": ("accuracy", "difference"),
}


@pytest.mark.parametrize("reference", [None, "a", "c"])
def test_criterion_intervals_vs_reference(run: Any, reference: Any) -> None:
    data = ref.make_data(351, rows=700, groups=("a", "b", "c"), flip=0.35)
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    extra = {} if reference is None else {"reference_group": reference}
    out = run(_frame(data), "summary", **kw, **extra, criteria=list(ONE_RATE), confidence_level=0.9)
    rows = ref.rows_of(data, ["g"])
    for row in out.iter_rows(named=True):
        rate, kind = ONE_RATE[row["criterion"]]
        want = _pair_interval(rows, rate, kind, reference, 0.9)
        assert want is not None
        assert math.isclose(row["ci_low"], want[0], rel_tol=1e-12), (row, want)
        assert math.isclose(row["ci_high"], want[1], rel_tol=1e-12), (row, want)


@pytest.mark.parametrize("by", [None, "batch"])
def test_repeated_criteria(run: Any, by: str | None) -> None:
    # a criterion named twice gets two identical rows where it was asked for; each
    # row equals the summary of that criterion alone (statistics, composites included)
    data = ref.make_data(322, rows=600, batches=("m1", "m2"))
    df = _frame(data)
    asked = [
        "four_fifths_rule", "cohen_d", "four_fifths_rule", "equalized_odds_difference",
        "disparate_impact_ratio", "cohen_d", "equalized_odds_difference",
    ]  # fmt: skip
    kw: dict[str, Any] = dict(y_true="y_true", y_pred="y_pred", sensitive_features="g", by=by)
    out = run(df, "summary", **kw, criteria=asked)
    keys = [by] if by else []
    for key, rows in out.group_by(keys, maintain_order=True) if by else [((), out)]:
        assert rows["criterion"].to_list() == asked
        for i, name in enumerate(asked):
            alone = run(df, "summary", **kw, criteria=[name])
            if by:
                alone = alone.filter(pl.col(by) == key[0])
            assert rows.slice(i, 1).equals(alone), name
