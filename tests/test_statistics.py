"""Statistical rules (Cohen's d, 2-SD rule, four-fifths) and count-based intervals.

Reference: `tests/reference_stats.py` (numpy masks per group, formulas written from
api3.md and the Holistic AI seed 003 with the square root of the pooled variance
restored, DESIGN.md section 4). Intervals: Wilson (1927), Newcombe (1998) method 10
and Katz (1978) from their textbook formulas; the reference itself is checked against
Newcombe's published Table II and against scipy's Wilson interval.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_stats as ref

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

REL = 1e-12
RULES = {"cohen_d": ref.cohen_d, "two_sd_rule": ref.two_sd_rule}


def _frame(data: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(data, schema_overrides={"y_true": pl.Int64, "y_pred": pl.Int64})


def _close(got: Any, want: Any, rel: float = REL) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return bool(math.isclose(got, want, rel_tol=rel, abs_tol=1e-13))


# name -> make_data kwargs, weighted
CASES: dict[str, tuple[dict[str, Any], bool]] = {
    "two-groups": (dict(seed=101, groups=(0, 1), group_p=(0.3, 0.7), flip=0.4), False),
    "three-groups": (dict(seed=102, flip=0.4), False),
    "four-groups-weighted": (dict(seed=103, groups=tuple("wxyz"), weights="float", rows=600), True),
    "nulls": (dict(seed=104, nulls=True), False),
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[pl.DataFrame, dict[str, Any], ref.Rows]:
    spec, weighted = CASES[request.param]
    data = ref.make_data(**spec)
    kw: dict[str, Any] = {"y_pred": "y_pred", "sensitive_features": "g"}
    if weighted:
        kw["sample_weight"] = "w"
    return (
        _frame(data),
        kw,
        ref.Rows(None, data["y_pred"], [data["g"]], data.get("w") if weighted else None),
    )


def _non_largest(rows: ref.Rows) -> Any:
    stats = ref.group_sizes_and_rates(rows)
    largest = ref.largest_group(stats)
    return next(k for k in stats if k != largest)[0]


# ------------------------------------------------------------------ scalar rules


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("reference", ["default", "largest", "named"])
def test_rule_vs_reference(run: Any, case: Any, name: str, reference: str) -> None:
    df, kw, rows = case
    if reference == "named":
        rg: Any = _non_largest(rows)
        want = RULES[name](rows, rg)
        got = run(df, name, reference_group=rg, **kw)
    elif reference == "largest":
        want = RULES[name](rows, "largest")
        got = run(df, name, reference_group="largest", **kw)
    else:
        want = RULES[name](rows, None)
        got = run(df, name, **kw)
    assert want is not None
    assert _close(got, want), (got, want)


def test_rules_pick_the_signed_extreme_group(run: Any) -> None:
    # three groups around reference "b" (largest): a below, c further above -> positive
    data = ref.make_data(111, rows=900, groups=("a", "b", "c"), group_p=(0.2, 0.5, 0.3))
    y = data["y_pred"]
    for i, g in enumerate(data["g"]):  # a: SR ~ 0.3, b: ~ 0.5, c: ~ 0.9 (deterministic)
        y[i] = {"a": int(i % 10 < 3), "b": int(i % 2 == 0), "c": int(i % 10 < 9)}[g]
    df = _frame(data)
    rows = ref.Rows(None, y, [data["g"]])
    for name, fn in (("cohen_d", ref.cohen_d_by_group), ("two_sd_rule", ref.two_sd_by_group)):
        per = fn(rows)
        assert set(per) == {("a",), ("c",)}
        assert per[("a",)] < 0 < per[("c",)]
        assert abs(per[("c",)]) > abs(per[("a",)])
        assert _close(run(df, name, y_pred="y_pred", sensitive_features="g"), per[("c",)])


def test_two_sd_rule_is_the_pooled_two_proportion_z_test(run: Any) -> None:
    # independent check: for two groups z^2 equals Pearson's chi-square without continuity
    # correction on the 2x2 table (group x predicted), and the p-value matches
    scipy_stats = pytest.importorskip("scipy.stats")
    data = ref.make_data(112, rows=700, groups=(0, 1), group_p=(0.4, 0.6), flip=0.45)
    df = _frame(data)
    z = run(df, "two_sd_rule", y_pred="y_pred", sensitive_features="g", reference_group=1)
    table = df.group_by("g", "y_pred").len().sort("g", "y_pred")["len"].to_numpy().reshape(2, 2)
    chi2, p, _, _ = scipy_stats.chi2_contingency(table, correction=False)
    assert _close(z * z, chi2, rel=1e-10)
    assert _close(ref.two_sided_p(z), p, rel=1e-9)
    # sign: group 0 minus reference 1
    sr = table[:, 1] / table.sum(axis=1)
    assert np.sign(z) == np.sign(sr[0] - sr[1])


def test_cohen_d_hand_computed(run: Any) -> None:
    # a: 10 rows, 6 selected (SR .6, s^2 .24); b: 20 rows, 5 selected (SR .25, s^2 .1875)
    # pooled var = (9*.24 + 19*.1875)/28 = (2.16 + 3.5625)/28 = 5.7225/28
    # reference b (largest): d_a = (.6 - .25)/sqrt(5.7225/28)
    df = pl.DataFrame(
        {"g": ["a"] * 10 + ["b"] * 20, "y_pred": [1] * 6 + [0] * 4 + [1] * 5 + [0] * 15}
    )
    want = 0.35 / math.sqrt(5.7225 / 28)
    assert _close(run(df, "cohen_d", y_pred="y_pred", sensitive_features="g"), want)
    # 2-SD: N = 30, P_a = 1/3, SR_tot = 11/30; z = .35 / sqrt(SR_tot(1-SR_tot)/(30 * 1/3 * 2/3))
    z = 0.35 / math.sqrt((11 / 30) * (19 / 30) / (30 * (1 / 3) * (2 / 3)))
    assert _close(run(df, "two_sd_rule", y_pred="y_pred", sensitive_features="g"), z)
    # four-fifths: .25 / .6
    assert _close(run(df, "four_fifths_rule", y_pred="y_pred", sensitive_features="g"), 0.25 / 0.6)


@pytest.mark.parametrize("reference", ["default", "largest", "named"])
def test_four_fifths_rule(run: Any, case: Any, reference: str) -> None:
    df, kw, rows = case
    if reference == "default":
        want, extra = ref.four_fifths_rule(rows, None), {}
    elif reference == "largest":
        want, extra = ref.four_fifths_rule(rows, "largest"), {"reference_group": "largest"}
    else:
        rg = _non_largest(rows)
        want, extra = ref.four_fifths_rule(rows, rg), {"reference_group": rg}
    assert want is not None
    got = run(df, "four_fifths_rule", **kw, **extra)
    assert _close(got, want), (got, want)


def test_four_fifths_with_reference_is_symmetric_ratio(run: Any) -> None:
    # reference SR 0.5; a: 0.25 -> min(.5, 2) = .5; c: 0.6 -> min(1.2, 1/1.2) = 1/1.2
    df = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 10 + ["c"] * 5,
            "y_pred": [1, 0, 0, 0] + [1] * 5 + [0] * 5 + [1, 1, 1, 0, 0],
        }
    )
    assert _close(
        run(df, "four_fifths_rule", y_pred="y_pred", sensitive_features="g", reference_group="b"),
        0.5,
    )
    assert _close(
        run(df, "four_fifths_rule", y_pred="y_pred", sensitive_features="g", reference_group="c"),
        0.25 / 0.6,
    )
    # without reference: min / max = .25 / .6
    assert _close(run(df, "four_fifths_rule", y_pred="y_pred", sensitive_features="g"), 0.25 / 0.6)


@pytest.mark.parametrize("name", ["cohen_d", "two_sd_rule", "four_fifths_rule"])
def test_rules_by_batches(run: Any, name: str) -> None:
    data = ref.make_data(121, rows=900, batches=("m1", "m2"), flip=0.4)
    got = run(_frame(data), name, y_pred="y_pred", sensitive_features="g", by="batch")
    assert got.columns == ["batch", name]
    assert got["batch"].to_list() == ["m1", "m2"]
    fn = {**RULES, "four_fifths_rule": ref.four_fifths_rule}[name]
    for b, value in got.iter_rows():
        sub = ref.subset(data, "batch", b)
        want = fn(ref.Rows(None, sub["y_pred"], [sub["g"]]), None)
        assert _close(value, want), (b, value, want)


def test_rules_are_null_when_undefined(run: Any) -> None:
    # every prediction 0: pooled variance 0 (Cohen), SR_tot = 0 (2-SD), max SR = 0 (4/5)
    df = pl.DataFrame({"g": list("aabbb"), "y_pred": [0] * 5})
    for name in ("cohen_d", "two_sd_rule", "four_fifths_rule"):
        assert run(df, name, y_pred="y_pred", sensitive_features="g") is None, name


# ---------------------------------------------------------------- small groups


@pytest.mark.parametrize("k", [1, 50, 130, 10_000])
def test_min_group_size_flag(run: Any, k: int) -> None:
    data = ref.make_data(131, rows=400, nulls=True)
    got = run(
        _frame(data),
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        min_group_size=k,
    )
    assert got.schema["small_group"] == pl.Boolean
    rows = ref.Rows(data["y_true"], data["y_pred"], [data["g"]])
    sizes = {key[0]: n for key, (n, _, _) in ref.group_sizes_and_rates(rows).items()}
    assert got["g"].to_list() == list(sizes)
    assert got["small_group"].to_list() == [sizes[g] < k for g in sizes]


def test_min_group_size_weighted_uses_effective_size(run: Any) -> None:
    # issue 13: weights are sampling weights, a group's size is (sum w)^2 / sum w^2
    data = ref.make_data(132, rows=200, weights="float")
    got = run(
        _frame(data),
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        sample_weight="w",
        min_group_size=60,
    )
    w, g = np.asarray(data["w"], dtype=float), np.asarray(data["g"])
    kish = {k: w[g == k].sum() ** 2 / (w[g == k] ** 2).sum() for k in np.unique(g)}
    assert got["small_group"].to_list() == [kish[k] < 60 for k in got["g"].to_list()]


def test_no_small_group_column_by_default() -> None:
    df = _frame(ref.make_data(133, rows=50))
    out = df.fair.by_group(y_true="y_true", y_pred="y_pred", sensitive_features="g")
    assert "small_group" not in out.columns
    assert not any(c.endswith("_ci_low") for c in out.columns)


# ----------------------------------------------------------------- the reference


def test_reference_newcombe_matches_published_table() -> None:
    # Newcombe (1998), Stat. Med. 17:873-890, Table II, method 10 (hand-copied, 4 d.p.)
    published = {
        (56, 70, 48, 80): (0.0524, 0.3339),
        (9, 10, 3, 10): (0.1705, 0.8090),
        (6, 7, 2, 7): (0.0582, 0.8062),
        (5, 56, 0, 29): (-0.0381, 0.1926),
    }
    for (x1, m1, x2, m2), (lo, hi) in published.items():
        got = ref.newcombe(x1, m1, x2, m2)
        assert got is not None
        assert abs(got[0] - lo) < 5e-5
        assert abs(got[1] - hi) < 5e-5


def test_reference_wilson_closed_form_vs_roots_and_scipy() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    for x, m in [(0, 10), (1, 10), (7, 20), (20, 20), (333, 1000)]:
        a = ref.wilson(x, m)
        assert a is not None
        b = ref.wilson_by_roots(x, m)
        ci = scipy_stats.binomtest(x, m).proportion_ci(0.95, method="wilson")
        assert np.allclose(a, b, rtol=0, atol=1e-14)
        assert np.allclose(a, (ci.low, ci.high), rtol=0, atol=1e-12)


# ------------------------------------------------------------------ Wilson in by_group

WILSON_CASES = {
    "plain": (dict(seed=141, rows=300), False),
    "weighted": (dict(seed=142, rows=300, weights="float"), True),
    "nulls-2d": (dict(seed=143, rows=300, nulls=True, second=("x", "y")), False),
}


@pytest.mark.parametrize("cl", [0.95, 0.8])
@pytest.mark.parametrize("which", list(WILSON_CASES))
def test_by_group_wilson_columns(run: Any, which: str, cl: float) -> None:
    spec, weighted = WILSON_CASES[which]
    data = ref.make_data(**spec)
    sens = ["g", "h"] if "h" in data else ["g"]
    kw: dict[str, Any] = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": sens,
        "confidence_level": cl,
    }
    if weighted:
        kw["sample_weight"] = "w"
    got = run(_frame(data), "by_group", **kw)
    rows = ref.rows_of(data, sens, weighted=weighted)
    assert [tuple(r) for r in got.select(sens).iter_rows()] == rows.groups()
    for rate in ref.PROPORTIONS:
        assert got.schema[f"{rate}_ci_low"] == pl.Float64
        assert got.schema[f"{rate}_ci_high"] == pl.Float64
    for row in got.iter_rows(named=True):
        key = tuple(row[s] for s in sens)
        # weighted: the Kish effective size of the rows each rate divides by
        for rate in ref.PROPORTIONS:
            x, m = ref.effective_proportion(rows, rows.mask(key), rate)
            want = ref.wilson(x, m, cl)
            lo, hi = row[f"{rate}_ci_low"], row[f"{rate}_ci_high"]
            if want is None:
                assert (lo, hi) == (None, None), (rate, row)
                continue
            assert _close(lo, want[0]), (rate, lo, want)
            assert _close(hi, want[1]), (rate, hi, want)
            # containment up to rounding (exact containment at 0 and 1: see the edge test)
            assert lo - 1e-15 <= row[rate] <= hi + 1e-15


def test_wilson_interval_contains_the_rate_at_the_edges(run: Any) -> None:
    # x = m: the Wilson upper limit is exactly 1 (the score test never rejects p = 1 when
    # every trial succeeds; scipy's binomtest(...).proportion_ci(method="wilson") returns
    # 1.0); x = 0: the lower limit is exactly 0. So the interval always contains the rate.
    sizes = [1, 2, 3, 7, 13, 20, 29, 41, 57, 99, 150, 301]
    df = pl.DataFrame(
        {
            "g": [i for i, m in enumerate(sizes) for _ in range(m)],
            "y_true": [1] * sum(sizes),
            "y_pred": [1] * sum(sizes),
        }
    )
    got = run(
        df,
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        confidence_level=0.95,
    )
    assert got["selection_rate"].to_list() == [1.0] * len(sizes)
    assert got["selection_rate_ci_high"].to_list() == [1.0] * len(sizes)
    assert got["false_negative_rate"].to_list() == [0.0] * len(sizes)
    assert got["false_negative_rate_ci_low"].to_list() == [0.0] * len(sizes)


def test_by_group_wilson_selection_only(run: Any) -> None:
    data = ref.make_data(144, rows=200)
    got = run(
        _frame(data),
        "by_group",
        y_true=None,
        y_pred="y_pred",
        sensitive_features="g",
        confidence_level=0.9,
    )
    rows = ref.Rows(None, data["y_pred"], [data["g"]])
    for key, (n, pp, _) in ref.group_sizes_and_rates(rows).items():
        row = got.filter(pl.col("g") == key[0]).row(0, named=True)
        want = ref.wilson(pp, n, 0.9)
        assert want is not None
        assert _close(row["selection_rate_ci_low"], want[0])
        assert _close(row["selection_rate_ci_high"], want[1])


def test_by_group_wilson_vs_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.stats.proportion")
    data = ref.make_data(145, rows=300)
    got = _frame(data).fair.by_group(
        y_true="y_true", y_pred="y_pred", sensitive_features="g", confidence_level=0.95
    )
    for row in got.iter_rows(named=True):
        lo, hi = sm.proportion_confint(
            row["tp"], row["tp"] + row["fn"], alpha=0.05, method="wilson"
        )
        assert _close(row["true_positive_rate_ci_low"], lo, rel=1e-10)
        assert _close(row["true_positive_rate_ci_high"], hi, rel=1e-10)


def test_wilson_coverage_simulation() -> None:
    # 2000 independent batches of m = 40 Bernoulli(0.3) predictions. The exact coverage
    # of the 95% Wilson interval at (m, p) is a finite binomial sum (reference); the
    # simulated coverage is a mean of 2000 Bernoulli(coverage) draws, SE <= 0.005, so it
    # must lie within 4 SE (0.02) of the exact value; the exact value must be near 0.95.
    m, p, draws = 40, 0.3, 2000
    rng = np.random.default_rng(151)
    df = pl.DataFrame(
        {
            "batch": np.repeat(np.arange(draws), m),
            "g": np.zeros(draws * m, dtype=np.int64),
            "y_pred": (rng.random(draws * m) < p).astype(np.int64),
        }
    )
    out = (
        df.lazy()
        .fair.by_group(
            y_true=None, y_pred="y_pred", sensitive_features="g", by="batch", confidence_level=0.95
        )
        .collect()
    )
    assert out.height == draws
    covered = ((out["selection_rate_ci_low"] <= p) & (p <= out["selection_rate_ci_high"])).mean()
    exact = ref.wilson_exact_coverage(m, p)
    assert 0.93 < exact < 0.97
    assert abs(covered - exact) < 4 * math.sqrt(exact * (1 - exact) / draws)


# ------------------------------------------------------------ Newcombe / Katz


CI_COLS = ("difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high")


def _disparity_check(
    got: pl.DataFrame, rows: ref.Rows, ref_key: tuple[Any, ...] | None, sens: list[str], cl: float
) -> int:
    """Check every row's intervals; ``ref_key`` None means "rest" (all other groups pooled).

    The reference group's own row has null intervals (the library's documented choice:
    api3.md leaves it open, "null for reference row of itself?"), as have the rates that
    are not proportions (f1, balanced_accuracy, predicted_positive_share).
    """
    checked = 0
    for row in got.iter_rows(named=True):
        metric = str(row["metric"])
        key = tuple(row[s] for s in sens)
        if metric not in ref.PROPORTIONS or key == ref_key:
            assert all(row[c] is None for c in CI_COLS), row
            continue
        # weighted: each side at the Kish effective size of the rows the rate divides
        # by (unit weights: the counts); "rest": the other groups' rows pooled
        x1, m1 = ref.effective_proportion(rows, rows.mask(key), metric)
        other = ~rows.mask(key) if ref_key is None else rows.mask(ref_key)
        x2, m2 = ref.effective_proportion(rows, other, metric)
        nd = ref.newcombe(x1, m1, x2, m2, cl)
        kz = ref.katz(x1, m1, x2, m2, cl)
        if nd is None:
            assert (row["difference_ci_low"], row["difference_ci_high"]) == (None, None), row
        else:
            assert _close(row["difference_ci_low"], nd[0]), (row, nd)
            assert _close(row["difference_ci_high"], nd[1]), (row, nd)
            assert nd[0] <= row["difference"] <= nd[1]
        if kz is None:
            assert (row["ratio_ci_low"], row["ratio_ci_high"]) == (None, None), row
        else:
            assert _close(row["ratio_ci_low"], kz[0]), (row, kz)
            assert _close(row["ratio_ci_high"], kz[1]), (row, kz)
            assert kz[0] <= row["ratio"] <= kz[1]
        checked += 1
    return checked


@pytest.mark.parametrize(
    ("reference", "weighted"),
    [("largest", False), ("named", True)],
    ids=["largest-unweighted", "named-weighted"],
)
def test_disparities_intervals(run: Any, reference: str, weighted: bool) -> None:
    data = ref.make_data(161, rows=500, weights="float" if weighted else None, nulls=True)
    rows = ref.rows_of(data, ["g"], weighted=weighted)
    largest = ref.largest_group(
        {k: (float(rows.w[rows.mask(k)].sum()), 0.0, None) for k in rows.groups()}
    )
    ref_key = largest if reference == "largest" else next(k for k in rows.groups() if k != largest)
    kw: dict[str, Any] = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "g",
        "confidence_level": 0.95,
        "reference_group": "largest" if reference == "largest" else ref_key[0],
    }
    if weighted:
        kw["sample_weight"] = "w"
    got = run(_frame(data), "disparities", **kw)
    assert _disparity_check(got, rows, ref_key, ["g"], 0.95) == 12 * (len(rows.groups()) - 1)


def test_disparities_intervals_default_reference_and_level(run: Any) -> None:
    data = ref.make_data(162, rows=400, second=("x", "y"))
    rows = ref.rows_of(data, ["g", "h"])
    ref_key = ref.largest_group({k: (float(rows.mask(k).sum()), 0.0, None) for k in rows.groups()})
    got = run(
        _frame(data),
        "disparities",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features=["g", "h"],
        confidence_level=0.8,
    )
    assert _disparity_check(got, rows, ref_key, ["g", "h"], 0.8) == 12 * (len(rows.groups()) - 1)


def test_katz_corrected_when_a_numerator_is_zero(run: Any) -> None:
    # group a selects nobody: the selection_rate ratio is 0, its Katz interval that of
    # the counts plus 0.5 (Haldane-Anscombe, computed here by hand), Newcombe as usual
    df = pl.DataFrame(
        {"g": ["a"] * 5 + ["b"] * 8, "y_true": [1, 0] * 6 + [1], "y_pred": [0] * 5 + [1, 0] * 4}
    )
    got = run(
        df,
        "disparities",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        reference_group="b",
        confidence_level=0.95,
    )
    row = got.filter((pl.col("g") == "a") & (pl.col("metric") == "selection_rate")).row(
        0, named=True
    )
    assert row["ratio"] == 0.0
    z = 1.959963984540054  # the two-sided 95% normal quantile
    r = (0.5 / 5.5) / (4.5 / 8.5)
    se = math.sqrt(1 / 0.5 - 1 / 5.5 + 1 / 4.5 - 1 / 8.5)
    assert _close(row["ratio_ci_low"], r * math.exp(-z * se))
    assert _close(row["ratio_ci_high"], r * math.exp(z * se))
    nd = ref.newcombe(0, 5, 4, 8)
    assert nd is not None
    assert _close(row["difference_ci_low"], nd[0])
    assert _close(row["difference_ci_high"], nd[1])


@pytest.mark.parametrize("policy", ["overall", "min"])
def test_disparities_intervals_null_for_dependent_references(run: Any, policy: str) -> None:
    # "overall" and "min" are not independent of the group compared: no interval
    data = ref.make_data(163, rows=300)
    got = run(
        _frame(data),
        "disparities",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        reference_group=policy,
        confidence_level=0.95,
    )
    for c in CI_COLS:
        assert got[c].null_count() == got.height, c


def test_disparities_intervals_against_the_rest(run: Any) -> None:
    # NOTE api3.md says null for "rest" too; the library (docstring of `disparities`) gives
    # intervals against the pooled other groups, which ARE independent of the group. We
    # check those numbers against Newcombe/Katz on the pooled counts.
    data = ref.make_data(164, rows=400, nulls=True)
    rows = ref.rows_of(data, ["g"])
    got = run(
        _frame(data),
        "disparities",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        reference_group="rest",
        confidence_level=0.95,
    )
    assert _disparity_check(got, rows, None, ["g"], 0.95) == 12 * len(rows.groups())


def test_disparities_no_interval_columns_by_default() -> None:
    df = _frame(ref.make_data(165, rows=60))
    out = df.fair.disparities(y_true="y_true", y_pred="y_pred", sensitive_features="g")
    assert "difference_ci_low" not in out.columns
    assert "ratio_ci_low" not in out.columns
