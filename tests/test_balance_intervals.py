"""Intervals of the balance criteria (mean score of the actual positives / negatives).

Every expectation is re-derived here with numpy from the raw rows and the definitions:

* per group and label class, the (weighted) mean score and the weighted variance of the
  scores about it, ``sum w (s - mean)² / sum w``, Bessel-corrected with the class's
  effective size ``m``: the class's weight sum times the group's Kish factor
  ``sum w / sum w²`` (``m`` is the row count without weights);
* the pair compared: without a reference the groups with the highest and lowest mean
  (``max - min``, ``min / max``), with one the group farthest from it (``|d|``, or
  ``|log r|`` for ratios);
* a difference: Welch's normal interval ``d ± z sqrt(v1/m1 + v2/m2)``; a ratio: the
  delta method on the log, ``r exp(± z sqrt(v1/(m1 mean1²) + v2/(m2 mean2²)))``;
* the verdict: ``fair`` iff the interval lies inside the band, ``unfair`` iff wholly
  outside, ``inconclusive`` otherwise.

A simulation (400 replicate data sets with known mean scores) checks that the
intervals cover the true difference and ratio at about the nominal 95%.
"""

from __future__ import annotations

import copy
import math
import os
import tempfile
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.exceptions import ProfileError
from polars_fair.namespace._profile import FairnessProfile
from polars_fair.plans._profile_meta import encode_schema
from polars_fair.reduce import group_stats, merge_group_stats

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

BALANCE = (
    "balance_for_positive_class_difference",
    "balance_for_positive_class_ratio",
    "balance_for_negative_class_difference",
    "balance_for_negative_class_ratio",
)
Z = NormalDist().inv_cdf(0.975)
COMPAS = Path(pf.__file__).parent / "data" / "compas.parquet"


def _frame(seed: int = 7, sizes: tuple[int, ...] = (300, 500, 800)) -> pl.DataFrame:
    """Three groups whose mean scores differ by class; positive lognormal weights."""
    rng = np.random.default_rng(seed)
    names = ["a", "b", "c"][: len(sizes)]
    g = np.repeat(names, sizes)
    shift = np.repeat([0.0, 0.8, -0.5][: len(sizes)], sizes)
    y = rng.random(g.size) < 0.4 + shift / 10
    s = rng.beta(2 + 2 * y + shift, 3 - y)
    w = rng.lognormal(0.0, 0.7, g.size)
    return pl.DataFrame({"g": g, "y": y.astype(np.int64), "s": s, "w": w}).with_columns(
        (pl.col("s") >= 0.5).cast(pl.Int64).alias("p")
    )


def _moments(
    g: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, cls: int
) -> dict[str, tuple[float, float, float]]:
    """Per group: (effective class size m, mean score, variance) of class `cls`."""
    w = np.ones(s.size) if w is None else w
    out = {}
    for name in np.unique(g):
        in_g = g == name
        kish = w[in_g].sum() / (w[in_g] ** 2).sum()  # n_eff / sum w (1 without weights)
        mask = in_g & (y == cls)
        ws, ss = w[mask], s[mask]
        mean = float(np.average(ss, weights=ws))
        spread = float(np.average((ss - mean) ** 2, weights=ws))
        m = float(ws.sum() * kish)
        out[str(name)] = (m, mean, spread * m / (m - 1))
    return out


def _pair(means: dict[str, float], kind: str, reference: str | None) -> tuple[str, str]:
    if reference is None:
        top, bottom = max(means, key=means.__getitem__), min(means, key=means.__getitem__)
        return (top, bottom) if kind == "difference" else (bottom, top)

    def dist(k: str) -> float:
        if kind == "difference":
            return abs(means[k] - means[reference])
        return abs(math.log(means[k] / means[reference]))

    return max((k for k in means if k != reference), key=dist), reference


def _expected(
    df: pl.DataFrame,
    name: str,
    reference: str | None,
    weight: str | None,
    cols: tuple[str, str, str] = ("g", "y", "s"),
) -> dict[str, Any]:
    """Value, interval and pair of criterion `name`, from the raw rows with numpy."""
    g = df[cols[0]].cast(pl.String).to_numpy()
    y, s = df[cols[1]].to_numpy(), df[cols[2]].to_numpy().astype(float)
    w = None if weight is None else df[weight].to_numpy().astype(float)
    mom = _moments(g, y, s, w, 1 if "positive" in name else 0)
    kind = "ratio" if name.endswith("_ratio") else "difference"
    first, second = _pair({k: v[1] for k, v in mom.items()}, kind, reference)
    (m1, a, v1), (m2, b, v2) = mom[first], mom[second]
    if kind == "difference":
        value, se = a - b, math.sqrt(v1 / m1 + v2 / m2)
        low, high = value - Z * se, value + Z * se
        band = (-0.1, 0.1)
    else:
        value, se = a / b, math.sqrt(v1 / (m1 * a * a) + v2 / (m2 * b * b))
        low, high = value * math.exp(-Z * se), value * math.exp(Z * se)
        band = (0.8, 1.25)
    if band[0] <= low and high <= band[1]:
        verdict = "fair"
    elif high < band[0] or low > band[1]:
        verdict = "unfair"
    else:
        verdict = "inconclusive"
    return {
        "value": value, "ci_low": low, "ci_high": high, "group": first,
        "compared_with": second, "verdict": verdict,
        "interval_method": "welch" if kind == "difference" else "delta_log",
    }  # fmt: skip


def _check(row: dict[str, Any], want: dict[str, Any]) -> None:
    for key in ("group", "compared_with", "interval_method"):
        assert row[key] == want[key], (row["criterion"], key)
    for key in ("value", "ci_low", "ci_high"):
        assert row[key] == pytest.approx(want[key], rel=1e-9, abs=1e-12), (row["criterion"], key)
    assert row["verdict"] == want["verdict"], row["criterion"]
    assert row["note"] is None


# ---- the statistics table ----------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_group_stats_carries_sums_of_squared_scores(run: Any, weighted: bool) -> None:
    df = _frame()
    weight = "w" if weighted else None
    out = run(
        df, "group_stats", y_true="y", y_pred="p", y_prob="s", sensitive_features="g",
        sample_weight=weight,
    ).sort("g")  # fmt: skip
    g, y, s = df["g"].to_numpy(), df["y"].to_numpy(), df["s"].to_numpy()
    w = np.ones(s.size) if weight is None else df["w"].to_numpy()
    for row in out.iter_rows(named=True):
        for cls, suffix in ((1, "pos"), (0, "neg")):
            mask = (g == row["g"]) & (y == cls)
            assert row[f"sum_prob_{suffix}"] == pytest.approx((w[mask] * s[mask]).sum())
            assert row[f"sum_prob2_{suffix}"] == pytest.approx((w[mask] * s[mask] ** 2).sum())


def test_group_stats_without_true_labels_has_sum_prob2(run: Any) -> None:
    df = _frame()
    out = run(df, "group_stats", y_pred="p", y_prob="s", sensitive_features="g").sort("g")
    g, s = df["g"].to_numpy(), df["s"].to_numpy()
    assert "sum_prob2_pos" not in out.columns
    for row in out.iter_rows(named=True):
        assert row["sum_prob2"] == pytest.approx((s[g == row["g"]] ** 2).sum())


def test_sums_of_squares_are_additive() -> None:
    df = _frame()
    kw: dict[str, Any] = dict(
        y_true="y", y_pred="p", y_prob="s", sensitive_features="g", sample_weight="w"
    )
    parts = [group_stats(df[i::3], **kw) for i in range(3)]
    merged = merge_group_stats(*parts).collect()
    whole = group_stats(df, **kw).collect()
    assert merged.columns == whole.columns
    for col in ("sum_prob2_pos", "sum_prob2_neg", "sum_w2"):
        np.testing.assert_allclose(merged[col].to_numpy(), whole[col].to_numpy(), rtol=1e-12)


# ---- the intervals against numpy ---------------------------------------------------


@pytest.mark.parametrize("reference", [None, "a", "largest"])
@pytest.mark.parametrize("weighted", [False, True])
def test_intervals_match_numpy(run: Any, reference: str | None, weighted: bool) -> None:
    df = _frame()
    # "largest": the group with the largest total weight (the row count without weights)
    g, w = df["g"].to_numpy(), df["w"].to_numpy() if weighted else np.ones(df.height)
    largest = max(np.unique(g), key=lambda k: w[g == k].sum())
    weight = "w" if weighted else None
    out = run(
        df, "summary", y_true="y", y_pred="p", y_prob="s", sensitive_features="g",
        criteria=list(BALANCE), reference_group=reference, sample_weight=weight,
    )  # fmt: skip
    assert out["criterion"].to_list() == list(BALANCE)
    named = largest if reference == "largest" else reference
    for row in out.iter_rows(named=True):
        _check(row, _expected(df, row["criterion"], named, weight))


def test_frequency_weights_use_the_weight_sums_as_sizes() -> None:
    df = _frame().with_columns(pl.col("w").round(0) + 1)  # integer replication weights
    out = df.fair.summary(
        y_true="y", y_pred="p", y_prob="s", sensitive_features="g", criteria=list(BALANCE),
        sample_weight="w", frequency_weights=True,
    )  # fmt: skip
    # integer weights read as row counts are duplicated rows
    rows = df[np.repeat(np.arange(df.height), df["w"].cast(pl.Int64).to_numpy())]
    for row in out.iter_rows(named=True):
        _check(row, _expected(rows, row["criterion"], None, None))


def test_rescaling_weights_changes_nothing() -> None:
    df = _frame()
    kw: dict[str, Any] = dict(
        y_true="y",
        y_pred="p",
        y_prob="s",
        sensitive_features="g",
        criteria=list(BALANCE),
        sample_weight="w",
        reference_group="b",
    )
    base = df.fair.summary(**kw)
    for scaled in (df["w"] * 1000, df["w"] / df["w"].sum(), df["w"] * 1e-6):
        other = df.with_columns(scaled.alias("w")).fair.summary(**kw)
        assert other["verdict"].to_list() == base["verdict"].to_list()
        for col in ("value", "ci_low", "ci_high", "group_n", "compared_n"):
            np.testing.assert_allclose(other[col].to_numpy(), base[col].to_numpy(), rtol=1e-9)


def test_interval_contains_the_value_and_verdicts_follow_it() -> None:
    df = _frame()
    out = df.fair.summary(
        y_true="y", y_pred="p", y_prob="s", sensitive_features="g", criteria=list(BALANCE),
        reference_group="c",
    )  # fmt: skip
    for row in out.iter_rows(named=True):
        assert row["ci_low"] < row["value"] < row["ci_high"]
        if row["verdict"] == "unfair":
            assert row["ci_high"] < row["fair_low"] or row["ci_low"] > row["fair_high"]


# ---- coverage ------------------------------------------------------------------------

#: Beta parameters of the scores by (group, class): the true mean is a / (a + b).
_BETA = {("ref", 1): (3.0, 2.0), ("g", 1): (4.0, 2.0), ("ref", 0): (2.0, 3.0), ("g", 0): (2.0, 4.0)}


def _replicates(n_seeds: int, weighted: bool) -> pl.DataFrame:
    """`n_seeds` data sets (batch key ``seed``): groups ``ref`` (150 rows), ``g`` (250)."""
    rng = np.random.default_rng(20261123)
    sizes = {"ref": 150, "g": 250}
    group = np.tile(np.repeat(list(sizes), list(sizes.values())), n_seeds)
    seed = np.repeat(np.arange(n_seeds), sum(sizes.values()))
    y = (rng.random(group.size) < 0.5).astype(np.int64)
    a = np.array([_BETA[(k, c)][0] for k, c in zip(group, y, strict=True)])
    b = np.array([_BETA[(k, c)][1] for k, c in zip(group, y, strict=True)])
    s = rng.beta(a, b)
    w = rng.lognormal(0.0, 0.6, group.size) if weighted else np.ones(group.size)
    return pl.DataFrame({"seed": seed, "g": group, "y": y, "s": s, "w": w}).with_columns(
        (pl.col("s") >= 0.5).cast(pl.Int64).alias("p")
    )


def _truth(name: str) -> float:
    cls = 1 if "positive" in name else 0
    mean = {k: a / (a + b) for k, (a, b) in ((k, _BETA[(k, cls)]) for k in ("g", "ref"))}
    return mean["g"] - mean["ref"] if name.endswith("difference") else mean["g"] / mean["ref"]


@pytest.mark.parametrize("weighted", [False, True])
def test_intervals_cover_the_truth_at_the_nominal_rate(weighted: bool) -> None:
    n_seeds = 400
    df = _replicates(n_seeds, weighted)
    out = df.fair.summary(
        y_true="y", y_pred="p", y_prob="s", sensitive_features="g", by="seed",
        criteria=list(BALANCE), reference_group="ref", sample_weight="w",
    )  # fmt: skip
    assert out.height == n_seeds * len(BALANCE)
    # a binomial tolerance: 3 standard errors of a 95% coverage over 400 draws (0.033)
    tolerance = 3 * math.sqrt(0.95 * 0.05 / n_seeds)
    for name in BALANCE:
        rows = out.filter(pl.col("criterion") == name)
        assert (rows["group"] == "g").all()
        truth = _truth(name)
        covered = ((rows["ci_low"] <= truth) & (truth <= rows["ci_high"])).mean()
        assert isinstance(covered, float)
        assert abs(covered - 0.95) <= tolerance, (name, covered)


# ---- real data, orientations, older profiles, distributed sums ---------------------------


@pytest.mark.parametrize("reference", [None, "Caucasian"])
def test_compas_balance_criteria_get_intervals(reference: str | None) -> None:
    df = pl.read_parquet(COMPAS)
    out = df.fair.summary(
        y_true="two_year_recid", y_pred="y_pred", y_prob="y_prob", sensitive_features="race",
        reference_group=reference,
    )  # fmt: skip
    balance = out.filter(pl.col("criterion").str.starts_with("balance_for"))
    assert set(balance["criterion"]) == {
        "balance_for_positive_class_difference", "balance_for_negative_class_difference",
    }  # fmt: skip
    # groups below min_group_size (30) are left out: Native American (11 rows)
    kept = df.filter(pl.col("race") != "Native American")
    for row in balance.iter_rows(named=True):
        assert math.isfinite(row["ci_low"])
        assert math.isfinite(row["ci_high"])
        _check(row, _expected(kept, row["criterion"], reference, None,
                              ("race", "two_year_recid", "y_prob")))  # fmt: skip
    ratios = kept.fair.summary(
        y_true="two_year_recid", y_pred="y_pred", y_prob="y_prob", sensitive_features="race",
        reference_group=reference, criteria=list(BALANCE),
    )  # fmt: skip
    for row in ratios.iter_rows(named=True):
        _check(row, _expected(kept, row["criterion"], reference, None,
                              ("race", "two_year_recid", "y_prob")))  # fmt: skip


def test_to_overall_is_judged_on_the_point_value() -> None:
    df = _frame()
    out = df.fair.summary(
        y_true="y", y_pred="p", y_prob="s", sensitive_features="g", criteria=list(BALANCE),
        method="to_overall",
    )  # fmt: skip
    for row in out.iter_rows(named=True):
        assert row["interval_method"] == "none"
        assert row["ci_low"] is None
        assert row["ci_high"] is None
        assert "judged on the point value" in row["note"]
        inside = row["fair_low"] <= row["value"] <= row["fair_high"]
        assert row["verdict"] == ("fair" if inside else "unfair")


def _kw() -> dict[str, Any]:
    return dict(y_true="y", y_pred="p", y_prob="s", sensitive_features="g", sample_weight="w")


def test_profile_without_sums_of_squares_loads_and_uses_the_point_rule() -> None:
    df = _frame()
    prof = df.fair.profile(**_kw())
    # a profile as an older version wrote it: no sums of squared scores
    tables = {
        k: t.drop("sum_prob2_pos", "sum_prob2_neg", strict=False) for k, t in prof.tables.items()
    }
    meta = copy.deepcopy(prof.meta)
    for k, t in tables.items():
        meta["columns"][k] = t.columns
        meta["table_schemas"][k] = encode_schema(t.schema)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "old.parquet")
        FairnessProfile(tables, meta).write_parquet(path)
        old = pf.read_profile(path)
    summary = old.summary(criteria=[*BALANCE, "demographic_parity_difference"])
    new = prof.summary(criteria=list(BALANCE))
    for row in summary.iter_rows(named=True):
        if row["criterion"] == "demographic_parity_difference":
            assert row["interval_method"] == "newcombe"
            continue
        assert row["interval_method"] == "none"
        assert "older profile" in row["note"]
        inside = row["fair_low"] <= row["value"] <= row["fair_high"]
        assert row["verdict"] == ("fair" if inside else "unfair")
    np.testing.assert_allclose(summary["value"][:4].to_numpy(), new["value"].to_numpy())
    with pytest.raises(ProfileError, match="cannot be merged"):
        old + prof


def test_merged_profiles_and_summed_reductions_give_the_same_intervals() -> None:
    df = _frame()
    whole = df.fair.summary(**_kw(), criteria=list(BALANCE))
    merged = (df[:700].fair.profile(**_kw()) + df[700:].fair.profile(**_kw())).summary(
        criteria=list(BALANCE)
    )
    spec = pf.ReportSpec.of(**_kw(), criteria=list(BALANCE))
    parts = [pl.collect_all(pf.report_reductions(f, spec)) for f in (df[:500], df[500:])]
    summed = pf.derive_report(spec, pf.sum_reductions(*parts), df.schema).summary
    for other in (merged, summed):
        assert other["verdict"].to_list() == whole["verdict"].to_list()
        for col in ("value", "ci_low", "ci_high"):
            np.testing.assert_allclose(other[col].to_numpy(), whole[col].to_numpy(), rtol=1e-9)


def test_by_group_shows_the_new_sums() -> None:
    df = _frame()
    out = df.fair.by_group(y_true="y", y_pred="p", y_prob="s", sensitive_features="g")
    names = out.columns
    assert names.index("sum_prob2_pos") == names.index("sum_prob_neg") + 1
    assert names.index("sum_prob2_neg") == names.index("sum_prob2_pos") + 1
