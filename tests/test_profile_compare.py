"""Baselines and time: ``report.compare`` and the trend of a criterion per window.

* On two independent samples of one distribution, ``worse`` appears at most at the
  stated rate, (1 - level) / 2 per criterion (simulated: many replicates at once,
  as batch keys of one report), and a planted degradation is found.
* The change and its interval are checked against numpy from the definition.
* The trend on COMPAS by screening month equals the criterion computed per month
  on the rows, and flags the first window that leaves its band.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.metrics._compare import compare_summaries
from polars_fair.metrics._intervals import z_value

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

# every COMPAS row, with its screening date (tests/data/ATTRIBUTION.md)
COMPAS_CSV = Path(__file__).resolve().parent / "data" / "compas_race_sex.csv"
CRITERIA = [
    "demographic_parity_difference",
    "disparate_impact_ratio",
    "equal_opportunity_difference",
    "predictive_parity_difference",
]


def _replicates(rng: np.random.Generator, reps: int, n: int, drop: float = 0.0) -> pl.DataFrame:
    """`reps` independent samples of `n` rows (batch key ``rep``); group b's rate lowered by `drop`."""
    size = reps * n
    g = rng.choice(["a", "b"], size)
    y = rng.random(size) < 0.4
    rate = np.where(g == "a", 0.5, 0.45 - drop) + np.where(y, 0.2, -0.2)
    return pl.DataFrame(
        {
            "rep": np.repeat(np.arange(reps), n),
            "g": g,
            "y": y.astype(np.int64),
            "p": (rng.random(size) < rate).astype(np.int64),
        }
    )


def _report(df: pl.DataFrame) -> pf.FairnessReport:
    return df.fair.report(
        y_true="y", y_pred="p", sensitive_features="g", by="rep", criteria=CRITERIA
    )


def _binomial_quantile(n: int, p: float, q: float) -> int:
    total = 0.0
    for k in range(n + 1):
        total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if total >= q:
            return k
    return n


def test_worse_at_most_at_the_stated_rate_on_one_distribution() -> None:
    rng = np.random.default_rng(2026)
    reps = 150
    baseline = _report(_replicates(rng, reps, 1500))
    candidate = _report(_replicates(rng, reps, 1500))
    out = candidate.compare(baseline)
    assert out.height == reps * len(CRITERIA)
    worse = int((out["verdict"] == "worse").sum())
    stated = (1 - 0.95) / 2
    assert worse <= _binomial_quantile(out.height, stated, 0.999)
    better = int((out["verdict"] == "better").sum())
    assert better <= _binomial_quantile(out.height, stated, 0.999)


def test_planted_degradation_is_found() -> None:
    rng = np.random.default_rng(7)
    baseline = _report(_replicates(rng, 20, 3000))
    candidate = _report(_replicates(rng, 20, 3000, drop=0.15))
    out = candidate.compare(baseline)
    dp = out.filter(pl.col("criterion") == "demographic_parity_difference")
    assert (dp["verdict"] == "worse").all()
    di = out.filter(pl.col("criterion") == "disparate_impact_ratio")
    assert (di["verdict"] == "worse").all()
    # and the baseline, seen from the degraded model, got better
    back = baseline.compare(candidate)
    assert (back.filter(pl.col("criterion") == "demographic_parity_difference")["verdict"]
            == "better").all()  # fmt: skip


def test_change_and_interval_from_the_definition() -> None:
    rng = np.random.default_rng(1)
    a, b = _report(_replicates(rng, 3, 800)), _report(_replicates(rng, 3, 800))
    level = 0.9
    out = compare_summaries(b.summary, a.summary, by=["rep"], confidence_level=level)
    z = z_value(level)
    joined = b.summary.join(a.summary, on=["rep", "criterion"], suffix="_b")
    for row in joined.iter_rows(named=True):
        got = out.filter((pl.col("rep") == row["rep"]) & (pl.col("criterion") == row["criterion"]))
        cand, base = row["value"], row["value_b"]
        se = math.hypot(
            (row["ci_high"] - row["ci_low"]) / (2 * z),
            (row["ci_high_b"] - row["ci_low_b"]) / (2 * z),
        )
        assert got["change"].item() == pytest.approx(cand - base)
        assert got["ci_low"].item() == pytest.approx(cand - base - z * se)
        if row["ideal"] == 1.0:  # ratios: distance on the log scale
            dist = abs(math.log(cand)) - abs(math.log(base))
            se_d = math.hypot(
                (math.log(row["ci_high"]) - math.log(row["ci_low"])) / (2 * z),
                (math.log(row["ci_high_b"]) - math.log(row["ci_low_b"])) / (2 * z),
            )
        else:
            dist, se_d = abs(cand) - abs(base), se
        assert got["distance_change"].item() == pytest.approx(dist)
        lo, hi = dist - z * se_d, dist + z * se_d
        assert got["distance_ci_high"].item() == pytest.approx(hi)
        want = (
            "worse" if dist > 0.02 and lo > 0
            else "better" if dist < -0.02 and hi < 0
            else "unchanged" if lo >= -0.02 and hi <= 0.02
            else "inconclusive"
        )  # fmt: skip
        assert got["verdict"].item() == want


def test_missing_interval_or_side_is_inconclusive() -> None:
    schema = {"criterion": pl.String, "ideal": pl.Float64, "verdict": pl.String,
              "value": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}  # fmt: skip
    base = pl.DataFrame(
        [("two_sd_rule", 0.0, "fair", 0.5, None, None)], schema=schema, orient="row"
    )
    cand = pl.DataFrame(
        [("two_sd_rule", 0.0, "fair", 5.0, None, None), ("cohen_d", 0.0, "fair", 0.1, 0.0, 0.2)],
        schema=schema, orient="row",
    )  # fmt: skip
    out = compare_summaries(cand, base)
    assert out["verdict"].to_list() == ["inconclusive", "inconclusive"]


def test_profiles_compare_like_reports() -> None:
    rng = np.random.default_rng(5)
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "by": "rep"}
    a, b = _replicates(rng, 2, 2000), _replicates(rng, 2, 2000, drop=0.1)
    got = b.fair.profile(**kw).compare(a.fair.profile(**kw))
    want = b.fair.report(**kw).compare(a.fair.report(**kw))
    assert_frame_equal(got, want)


# ---- time -----------------------------------------------------------------------------


def test_trend_on_compas_by_screening_month() -> None:
    df = pl.read_csv(COMPAS_CSV).with_columns(pl.col("screening_date").str.to_date())
    df = df.filter(pl.col("race").is_in(["African-American", "Caucasian"]))
    kw = {"y_true": "two_year_recid", "y_pred": pl.col("decile_score") >= 5,
          "sensitive_features": "race"}  # fmt: skip
    month = pl.col("screening_date").dt.truncate("1mo").alias("month")
    # pieces: one profile per quarter, merged, as they would arrive
    quarters = df.with_columns(q=pl.col("screening_date").dt.quarter()).partition_by("q")
    prof = pf.merge_profiles(q.fair.profile(**kw, by=month) for q in quarters)
    # every group kept (issue 13 leaves groups below min_group_size out of the criteria)
    trend = prof.trend("demographic_parity_difference", time="month", min_group_size=0)
    assert trend.height == 24  # 2013-01 .. 2014-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = df.with_columns(month).fair.demographic_parity_difference(
            y_pred=kw["y_pred"], sensitive_features="race", by="month"
        )
    assert_frame_equal(
        trend.select("month", pl.col("value").alias("demographic_parity_difference")), want,
        check_exact=False,
    )  # fmt: skip
    assert trend["baseline_window"].unique().to_list() == [trend["month"].min()]
    # an alert is the interval wholly outside the band, or a significant worsening
    alert = (trend["verdict"] == "unfair") | (trend["change_verdict"] == "worse")
    assert trend["alert"].to_list() == alert.to_list()
    first = trend.filter("first_alert")
    assert first.height == int(alert.any())
    if first.height:
        assert first["month"].item() == trend.filter("alert")["month"].min()


def test_trend_against_a_chosen_window_and_errors() -> None:
    rng = np.random.default_rng(3)
    parts = [
        _replicates(rng, 1, 4000, drop=d).with_columns(week=pl.lit(i)) for i, d in
        enumerate([0.0, 0.0, 0.2])
    ]  # fmt: skip
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "by": "week"}
    prof = pf.merge_profiles(p.fair.profile(**kw) for p in parts)
    trend = prof.trend("demographic_parity_difference", time="week", baseline=1)
    assert trend["change_verdict"][2] == "worse"
    assert trend.filter("first_alert")["week"].to_list() == [2]
    with pytest.raises(pf.InvalidParameterError, match="`baseline` window 9"):
        prof.trend("demographic_parity_difference", time="week", baseline=9)
    with pytest.raises(pf.InvalidParameterError, match="`time` must be one of"):
        prof.trend("demographic_parity_difference", time="day")


def test_trend_chart_when_altair_is_present() -> None:
    pytest.importorskip("altair")
    rng = np.random.default_rng(4)
    parts = [
        _replicates(rng, 1, 1000).with_columns(week=pl.lit(i), model=pl.lit("m")) for i in range(3)
    ]
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "by": ["model", "week"]}
    prof = sum(p.fair.profile(**kw) for p in parts)
    assert isinstance(prof, pf.FairnessProfile)
    chart = prof.trend_chart("demographic_parity_difference", time="week")
    spec = chart.to_dict()
    assert len(spec["layer"]) == 4
    values = next(iter(spec["datasets"].values()))
    assert [v["week"] for v in values] == [0, 1, 2]
