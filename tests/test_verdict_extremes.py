"""The summary's extremes and bootstrap intervals, against numpy written from the definitions.

* With a reference group, ``lowest`` / ``highest`` are the smallest and largest
  per-group comparison with the reference: over every part of a composite
  (equalized odds: TPR and FPR), each group's own Cohen's d and 2-SD z. One-sided
  gates read them, so a gate on the other side of the headline must see them.
* The bootstrap redraws each group's cells from their exact shares (weighted cells
  are not rounded away) and leaves out a replicate in which a rate defined on the
  data is undefined: such a replicate is not scored on the remaining groups.

Data: ``tests/data/compas_race_sex.csv`` (see its ATTRIBUTION.md).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers the namespace
from tests.conftest import shuffled_unfair

DATA = Path(__file__).parent / "data"
REFERENCE = "Caucasian"


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return pl.read_csv(DATA / "compas_race_sex.csv").select(
        "race", "two_year_recid", (pl.col("decile_score") >= 5).cast(pl.Int8).alias("pred")
    )


def _groups(df: pl.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    for race in df["race"].unique().to_list():
        part = df.filter(pl.col("race") == race)
        out[race] = (part["two_year_recid"].to_numpy(), part["pred"].to_numpy())
    return out


def _rate(y: np.ndarray, p: np.ndarray, name: str) -> float:
    mask = {"tpr": y == 1, "fpr": y == 0, "ppv": p == 1, "npv": p == 0, "sr": np.ones_like(y) == 1}
    hit = {"tpr": p == 1, "fpr": p == 1, "ppv": y == 1, "npv": y == 0, "sr": p == 1}
    return float(hit[name][mask[name]].mean())


def _z(x1: float, n1: float, x2: float, n2: float) -> float:
    pooled = (x1 + x2) / (n1 + n2)
    return (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))


def _d(x1: float, n1: float, x2: float, n2: float) -> float:
    p1, p2 = x1 / n1, x2 / n2
    pooled = ((n1 - 1) * p1 * (1 - p1) + (n2 - 1) * p2 * (1 - p2)) / (n1 + n2 - 2)
    return (p1 - p2) / math.sqrt(pooled)


def _comparisons(df: pl.DataFrame, criterion: str, min_size: int) -> list[float]:
    """Every per-group (and per-part) signed comparison with the reference."""
    groups = {k: v for k, v in _groups(df).items() if len(v[0]) >= min_size}
    yr, pr = groups.pop(REFERENCE)
    parts = {
        "equalized_odds_difference": ("tpr", "fpr"),
        "conditional_use_accuracy_difference": ("ppv", "npv"),
        "demographic_parity_difference": ("sr",),
    }
    out = []
    for y, p in groups.values():
        if criterion in ("cohen_d", "two_sd_rule"):
            stat = _d if criterion == "cohen_d" else _z
            out.append(stat(float(p.sum()), len(p), float(pr.sum()), len(pr)))
            continue
        out += [_rate(y, p, m) - _rate(yr, pr, m) for m in parts[criterion]]
    return out


@pytest.mark.parametrize(
    "criterion",
    [
        "equalized_odds_difference",
        "conditional_use_accuracy_difference",
        "demographic_parity_difference",
        "cohen_d",
        "two_sd_rule",
    ],
)
def test_extremes_over_every_group_and_part(compas: pl.DataFrame, criterion: str) -> None:
    summary = compas.fair.summary(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group=REFERENCE, criteria=[criterion],
    )  # fmt: skip
    row = summary.row(0, named=True)
    expected = _comparisons(compas, criterion, min_size=30)
    assert row["lowest"] == pytest.approx(min(expected), rel=1e-9)
    assert row["highest"] == pytest.approx(max(expected), rel=1e-9)
    # the headline is one of the comparisons, between the extremes
    assert min(expected) - 1e-12 <= row["value"] <= max(expected) + 1e-12


@pytest.mark.parametrize(
    ("condition", "group"),
    [
        ("equalized_odds_difference < -0.1", "Other"),
        ("two_sd_rule < -2", "Other"),
        ("cohen_d < -0.2", "Other"),
    ],
)
def test_gate_on_the_other_side_of_the_headline(
    compas: pl.DataFrame, condition: str, group: str
) -> None:
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group=REFERENCE,
    )  # fmt: skip
    name = condition.split()[0]
    assert report.summary.filter(pl.col("criterion") == name)["value"].item() > 0
    lines = report.failures(verdicts=[], conditions=[condition])
    assert len(lines) == 1
    assert lines[0].startswith(f"{name} = -")
    assert f": {group} (n=" in lines[0]


# ---- the bootstrap ----------------------------------------------------------------


def _numpy_bootstrap(
    groups: dict[str, tuple[np.ndarray, np.ndarray]],
    reps: int,
    parts: bool = False,
    balanced: bool = False,
) -> np.ndarray:
    """Equalized-odds distances of a row bootstrap within groups (no reference).

    A replicate where a group has no positives or no negatives is left out. With
    `parts`, the two part distances (TPR, FPR) per replicate instead of their maximum;
    with `balanced`, the ratio of the lowest to the highest balanced accuracy ``(TPR + 1 -
    FPR) / 2``.
    """
    rng = np.random.default_rng(12345)
    out = []
    for _ in range(reps):
        tpr, fpr = [], []
        for y, p in groups.values():
            idx = rng.integers(0, len(y), len(y))
            yb, pb = y[idx], p[idx]
            if (yb == 1).sum() == 0 or (yb == 0).sum() == 0:
                break
            tpr.append(pb[yb == 1].mean())
            fpr.append(pb[yb == 0].mean())
        else:
            both = (max(tpr) - min(tpr), max(fpr) - min(fpr))
            accuracy = [(t + 1 - f) / 2 for t, f in zip(tpr, fpr, strict=True)]
            balanced_ratio = min(accuracy) / max(accuracy)
            out.append(balanced_ratio if balanced else both if parts else max(both))
    return np.array(out)


def test_bootstrap_leaves_out_replicates_with_an_undefined_rate() -> None:
    # group A: one positive in 50 rows, predicted positive (TPR 1); in about
    # (49/50)**50 = 36% of redraws it has no positive: those redraws are left out,
    # not scored on group B alone (a distance of 0)
    a_y = np.array([1] + [0] * 49)
    a_p = np.array([1] + [1] * 5 + [0] * 44)
    b_y = np.array([1] * 100 + [0] * 200)
    b_p = np.array([1] * 30 + [0] * 70 + [1] * 20 + [0] * 180)
    # (the ratio of balanced accuracies, (TPR + TNR) / 2: still bootstrapped; the
    # ratio's distance |log r| maps the percentiles of r onto its own)
    df = pl.DataFrame({"g": ["A"] * 50 + ["B"] * 300, "y": [*a_y, *b_y], "p": [*a_p, *b_p]})
    row = df.fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", criteria=["balanced_accuracy_ratio"]
    ).row(0, named=True)
    assert row["interval_method"] == "bootstrap"
    assert row["value"] == pytest.approx((0.3 + 0.9) / 2 / ((1 + 44 / 49) / 2))
    ref = _numpy_bootstrap({"A": (a_y, a_p), "B": (b_y, b_p)}, reps=4000, balanced=True)
    assert 0.55 < len(ref) / 4000 < 0.75  # about 64% of the redraws are defined
    low, high = np.quantile(ref, [0.025, 0.975])
    assert row["ci_low"] == pytest.approx(low, abs=0.03)
    assert row["ci_high"] == pytest.approx(high, abs=0.03)
    assert row["verdict"] == "unfair"


def test_a_fractional_weighted_cell_is_not_rounded_away() -> None:
    # group A's only positive weighs 0.3: about 0.3 effective positives. Its TPR is
    # undefined in most redraws, so a bootstrapped criterion reading it gets no
    # interval; a closed form (Wilson on 0.3 effective rows) one reaching into the band.
    # Neither is ever `fair` while the value lies far outside the band
    a = pl.DataFrame(
        {"g": "A", "y": [0] * 200 + [1], "p": [1] * 20 + [0] * 180 + [1], "w": [1.0] * 200 + [0.3]}
    )
    b = pl.DataFrame(
        {"g": "B", "y": [1] * 100 + [0] * 200, "p": [1] * 20 + [0] * 80 + [1] * 20 + [0] * 180,
         "w": 1.0}
    )  # fmt: skip
    summary = pl.concat([a, b]).fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", sample_weight="w",
        criteria=["equalized_odds_difference", "average_odds_difference",
                  "average_abs_odds_difference"],
    )  # fmt: skip
    for row in summary.iter_rows(named=True):
        assert abs(row["value"]) > 0.3  # far outside the band [-0.1, 0.1]
        assert row["verdict"] == "inconclusive"
        if row["interval_method"] == "bootstrap":
            assert row["ci_low"] is None
            assert "bootstrap" in row["note"]
        else:
            assert row["ci_low"] <= 0.1 < row["ci_high"]


def test_integer_counts_redraw_as_before() -> None:
    # exact shares of integer cells are the old integer shares: the same draws
    from polars_fair.metrics._bootstrap import resample_stats

    stats = pl.LazyFrame(
        {"g": ["a", "b"], "n": [10, 20], "tp": [3, 5], "fp": [2, 5], "fn": [1, 5], "tn": [4, 5]}
    )
    ints = resample_stats(stats, by=[], n_resamples=50, seed=7, scheme="stratified").collect()
    floats = resample_stats(
        stats.with_columns(pl.col("tp", "fp", "fn", "tn").cast(pl.Float64)),
        by=[], n_resamples=50, seed=7, scheme="stratified",
    ).collect()  # fmt: skip
    assert ints.equals(floats)
    sizes = ints.group_by("g").agg((pl.col("n") == pl.col("n").first()).all())
    assert sizes["n"].all()


@pytest.mark.parametrize(
    ("value", "low", "high", "verdict"),
    [
        (0.05, 0.01, 0.08, "fair"),
        (0.30, 0.20, 0.40, "unfair"),
        (0.30, 0.01, 0.08, "inconclusive"),  # the interval inside, the value outside
        (0.05, 0.20, 0.40, "inconclusive"),  # the interval outside, the value inside
        (0.05, 0.01, 0.20, "inconclusive"),  # the interval across the edge
        (-0.30, -0.40, -0.20, "unfair"),
    ],
)
def test_a_verdict_never_contradicts_its_value(
    value: float, low: float, high: float, verdict: str
) -> None:
    from polars_fair.metrics._verdicts import _verdict

    row = pl.DataFrame(
        {"value": [value], "ci_low": [low], "ci_high": [high], "fair_low": [-0.1],
         "fair_high": [0.1], "interval_method": ["bootstrap"], "n_groups": [2]}
    )  # fmt: skip
    assert row.select(_verdict("interval")).item(0, "verdict") == verdict


def test_weighted_share_of_predicted_positives_extremes() -> None:
    # a share of all predicted positives (weights as given): R predicts 219 of the 269
    # weighted positives, G 50. The per-group rescaling to effective sizes must not
    # move the comparison a gate reads away from the value
    r = pl.DataFrame(
        {"g": "R", "y": [1, 0] * 200, "p": [1] * 200 + [0] * 200, "w": [20.0] + [1.0] * 399}
    )
    g = pl.DataFrame({"g": "G", "y": [1, 0] * 50, "p": [1] * 50 + [0] * 50, "w": 1.0})
    report = pl.concat([r, g]).fair.report(
        y_true="y", y_pred="p", sensitive_features="g", sample_weight="w", reference_group="R",
        criteria=["predicted_positive_share_difference"],
    )  # fmt: skip
    row = report.summary.row(0, named=True)
    expected = 50 / 269 - 219 / 269
    assert row["value"] == pytest.approx(expected)
    assert row["lowest"] == pytest.approx(expected)
    assert row["highest"] == pytest.approx(expected)
    lines = report.failures(verdicts=[], conditions=["predicted_positive_share_difference < -0.5"])
    assert len(lines) == 1
    assert row["verdict"] == "unfair"
    # the bootstrap redraws effective counts, each group scaled back to its weight
    # total: the interval is around the value, not around the effective-count share
    assert row["ci_low"] < expected < row["ci_high"]


def _never_selected() -> pl.DataFrame:
    """A group of two never selected (A) and one of 100 selected half the time (B)."""
    return pl.DataFrame({"g": ["A"] * 2 + ["B"] * 100, "y": [0, 1] * 51, "p": [0, 0] + [0, 1] * 50})


def test_a_bootstrapped_ratio_of_zero_has_no_interval() -> None:
    # A's F1 is 0, so its ratio to the whole population's is 0, and every redraw
    # repeats it: the percentile interval of |log r| is infinite, so there is none
    row = _never_selected().fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", min_group_size=0,
        criteria=["f1_ratio"], method="to_overall",
    ).row(0, named=True)  # fmt: skip
    assert row["value"] == 0.0
    assert row["interval_method"] == "bootstrap"
    assert row["ci_low"] is None
    assert row["ci_high"] is None
    assert row["verdict"] == "inconclusive"


def test_a_katz_ratio_of_zero_against_the_rest_is_corrected() -> None:
    # A's selection rate is 0: against the rest (B, 50 of 100) Katz's interval takes
    # the counts plus 0.5 (Haldane-Anscombe), mapped to the population's rate through
    # A's share w = 2/102 (p / p_all = r / (w r + 1 - w)), read as a distance from 1;
    # two rows are too few to judge: the interval spans the band
    row = _never_selected().fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", min_group_size=0,
        criteria=["disparate_impact_ratio"], method="to_overall",
    ).row(0, named=True)  # fmt: skip
    z = 1.959963984540054
    r = (0.5 / 2.5) / (50.5 / 100.5)
    se = math.sqrt(1 / 0.5 - 1 / 2.5 + 1 / 50.5 - 1 / 100.5)
    w = 2 / 102
    logs = [math.log(b / (w * b + 1 - w)) for b in (r * math.exp(-z * se), r * math.exp(z * se))]
    assert logs[0] < 0 < logs[1]  # the interval holds the ideal: from 1 to the farther
    assert row["value"] == 0.0
    assert row["interval_method"] == "katz_overall"
    assert row["ci_low"] == pytest.approx(math.exp(-max(abs(v) for v in logs)), rel=1e-9)
    assert row["ci_high"] == pytest.approx(1.0, rel=1e-12)
    assert row["verdict"] == "inconclusive"


def test_bootstrap_per_batch_key_equals_each_key_alone() -> None:
    # the losses are marked per (batch key, replicate) on the drawn table: with batch
    # keys, each key's intervals are those of its own audit (seeded per key). Key "x"
    # has a group with one positive, so about a third of its redraws (e**-1) are left
    # out, and the other keys' none
    rng = np.random.default_rng(3)
    n = 600
    df = pl.DataFrame(
        {
            "k": rng.choice(["x", "y", "z"], n),
            "g": rng.choice(["a", "b", "c"], n, p=[0.45, 0.45, 0.1]),
            "y": (rng.random(n) < 0.4).astype(np.int8),
            "p": (rng.random(n) < 0.5).astype(np.int8),
        }
    ).with_columns(
        y=pl.when((pl.col("k") == "x") & (pl.col("g") == "c"))
        .then((pl.int_range(pl.len()).over("k", "g") == 0).cast(pl.Int8))
        .otherwise(pl.col("y"))
    )
    kw = {
        "y_true": "y", "y_pred": "p", "sensitive_features": "g", "min_group_size": 0,
        "criteria": ["equalized_odds_difference", "average_odds_difference"],
    }  # fmt: skip
    together = df.fair.summary(**kw, by="k")
    for key in ("x", "y", "z"):
        alone = df.filter(pl.col("k") == key).fair.summary(**kw)
        mine = together.filter(pl.col("k") == key).drop("k")
        assert mine.equals(alone), key


@pytest.mark.parametrize("criterion", ["cohen_d", "two_sd_rule"])
def test_summary_statistic_is_the_method_s(criterion: str) -> None:
    # with a reference the headline is the group's statistic largest in absolute value:
    # a large group with a small gap (A) has the larger z than a small group with the
    # largest gap (B)
    def group(name: str, selected: int, size: int) -> pl.DataFrame:
        return pl.DataFrame(
            {"g": name, "p": [1] * selected + [0] * (size - selected), "y": [1, 0] * (size // 2)}
        )

    df = pl.concat([group("ref", 50, 100), group("A", 6000, 10000), group("B", 3, 10)])
    kw = {"y_pred": "p", "sensitive_features": "g", "reference_group": "ref"}
    method = getattr(df.fair, criterion)(**kw)
    row = df.fair.summary(y_true="y", **kw, criteria=[criterion], min_group_size=0).row(
        0, named=True
    )
    assert row["value"] == pytest.approx(method)
    stats = {
        name: (_d if criterion == "cohen_d" else _z)(x, n, 50, 100)
        for name, x, n in (("A", 6000, 10000), ("B", 3, 10))
    }
    best = max(stats, key=lambda k: abs(stats[k]))
    assert row["group"] == best
    assert row["value"] == pytest.approx(stats[best])


# ---- the bootstrap compares the groups the row names --------------------------------


def _pair_bootstrap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray],
                    reps: int) -> np.ndarray:  # fmt: skip
    """Equalized-odds part distances (TPR, FPR) of groups `a` and `b` only, in a row
    bootstrap of each."""
    rng = np.random.default_rng(2024)
    out = np.empty((reps, 2))
    for r in range(reps):
        rates = []
        for y, p in (a, b):
            idx = rng.integers(0, len(y), len(y))
            yb, pb = y[idx], p[idx]
            rates.append((pb[yb == 1].mean(), pb[yb == 0].mean()))
        out[r] = abs(rates[0][0] - rates[1][0]), abs(rates[0][1] - rates[1][1])
    return out


def _equalized_odds_row(groups: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, Any]:
    """The summary row of equalized odds on the frame of `groups` (labels, predictions)."""
    df = pl.DataFrame(
        {
            "g": [g for g, (y, _) in groups.items() for _ in y],
            "y": np.concatenate([y for y, _ in groups.values()]),
            "p": np.concatenate([p for _, p in groups.values()]),
        }
    )
    return df.fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", criteria=["equalized_odds_difference"]
    ).row(0, named=True)


def _wilson(x: float, m: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of ``x / m``, from its formula."""
    p = x / m
    denom = 1 + z * z / m
    center = (p + z * z / (2 * m)) / denom
    half = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
    return (0.0 if x == 0 else max(center - half, 0.0)), (
        1.0 if x == m else min(center + half, 1.0)
    )


def _part_bounds(a: tuple[float, float], b: tuple[float, float], z: float) -> tuple[float, float]:
    """Bounds of ``|a - b|`` (proportions ``(x, m)``) from Newcombe's interval at `z`."""
    (x1, m1), (x2, m2) = a, b
    p1, p2 = x1 / m1, x2 / m2
    (l1, u1), (l2, u2) = _wilson(x1, m1, z), _wilson(x2, m2, z)
    d = p1 - p2
    low, high = d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)
    near = low if low > 0 else -high if high < 0 else 0.0
    return near, max(abs(low), abs(high))


def test_a_composite_is_bounded_by_its_parts_at_the_bonferroni_level() -> None:
    """Equalized odds is the larger of two part distances (0.3 and 0.3 here).

    A percentile bootstrap of that maximum sits above both parts (the larger of two
    noisy distances): its lower bound, 0.19 here, called a fair model unfair three times
    as often as stated. Each part's Newcombe interval at the Bonferroni level (tails of
    1.25%), combined from the largest lower to the largest upper bound, holds the
    composite whenever both parts hold theirs. Written here from the formulas.
    """
    groups: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, n, tpr, fpr in (("A", 80, 0.7, 0.5), ("B", 80, 0.4, 0.2)):
        y = (np.arange(n) % 2).astype(np.int8)
        p = np.zeros(n, dtype=np.int8)
        p[np.flatnonzero(y == 1)[: round(tpr * n / 2)]] = 1
        p[np.flatnonzero(y == 0)[: round(fpr * n / 2)]] = 1
        groups[name] = (y, p)
    row = _equalized_odds_row(groups)
    assert row["value"] == pytest.approx(0.3)
    assert row["interval_method"] == "newcombe_parts"
    z = NormalDist().inv_cdf(1 - 0.025 / 2)
    cells = {}
    for name, (y, p) in groups.items():
        cells[name] = [(float(p[y == k].sum()), float((y == k).sum())) for k in (1, 0)]
    tpr = _part_bounds(cells["A"][0], cells["B"][0], z)
    fpr = _part_bounds(cells["A"][1], cells["B"][1], z)
    assert row["ci_low"] == pytest.approx(max(tpr[0], fpr[0]), rel=1e-9)
    assert row["ci_high"] == pytest.approx(max(tpr[1], fpr[1]), rel=1e-9)
    # the percentile bootstrap of the maximum: far above
    parts = _pair_bootstrap(groups["A"], groups["B"], reps=4000)
    assert np.quantile(parts.max(axis=1), 0.025) > row["ci_low"] + 0.08


def test_no_true_disparity_is_rarely_called_unfair(compas: pl.DataFrame) -> None:
    # race shuffled: the groups are exchangeable and every true disparity is 0, so
    # every `unfair` is wrong; the stated rate is 2.5%. With the extremes re-chosen in
    # each redraw, treatment equality (FN / FP) was called unfair in nearly every
    # shuffle and equalized odds in a quarter; with the named pair but one percentile
    # interval of the composite's maximum, the composites in about a tenth, treatment
    # equality's difference in 15%. Closed forms now (the parts at the Bonferroni
    # level; MOVER for treatment equality): here 2%, 3%, 0.5% and 3% of 200;
    # average_abs_odds_difference, bootstrapped with its extremes re-chosen, 7.5% of
    # 200, with MOVER over its two parts 0.7% of 300. A bound of
    # 4% (8 of 200) allows for the simulation's own noise and fails on any of the
    # former intervals. (Shuffles seeded, closed forms: the counts are deterministic.)
    criteria = ["equalized_odds_difference", "equalized_odds_ratio",
                "conditional_use_accuracy_difference", "treatment_equality_difference",
                "average_abs_odds_difference"]  # fmt: skip
    unfair, _ = shuffled_unfair(compas, criteria, seed=7, runs=200)
    assert max(unfair.values()) <= 8, unfair


@pytest.mark.parametrize("name", ["cohen_d", "two_sd_rule"])
def test_a_gate_on_another_group_gives_its_statistic_s_interval(
    compas: pl.DataFrame, name: str
) -> None:
    # "< -0.2" fires on Other, not on the headline (African-American): its line gives
    # Other's own interval against Caucasian, written here from the definitions
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group=REFERENCE,
    )  # fmt: skip
    bound = -0.2 if name == "cohen_d" else -2.0
    (line,) = report.failures(verdicts=[], conditions=[f"{name} < {bound}"])
    assert ": Other (n=" in line
    sizes = compas.group_by("race").agg(pl.len().alias("n"), pl.col("pred").sum().alias("x"))
    cells = {r["race"]: (float(r["x"]), float(r["n"])) for r in sizes.iter_rows(named=True)}
    (x1, n1), (x2, n2) = cells["Other"], cells[REFERENCE]
    p1, p2 = x1 / n1, x2 / n2
    z = NormalDist().inv_cdf(0.975)
    if name == "cohen_d":
        pooled = ((n1 - 1) * p1 * (1 - p1) + (n2 - 1) * p2 * (1 - p2)) / (n1 + n2 - 2)
        d = (p1 - p2) / math.sqrt(pooled)
        half = z * math.sqrt((n1 + n2) / (n1 * n2) + d * d / (2 * (n1 + n2)))
    else:
        pooled_rate = (x1 + x2) / (n1 + n2)
        d = (p1 - p2) / math.sqrt(pooled_rate * (1 - pooled_rate) * (1 / n1 + 1 / n2))
        half = z
    found = re.search(r"interval \[(\S+), (\S+)\]", line)
    assert found is not None, line
    assert float(found.group(1)) == pytest.approx(d - half, rel=1e-3)
    assert float(found.group(2)) == pytest.approx(d + half, rel=1e-3)
