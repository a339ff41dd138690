"""Verdicts a person can trust (issue 13): what was compared, small groups, intervals,
effective sizes, orientation, and the Python gates.

Every expectation is re-derived here with numpy from the definitions:

* the Kish effective size of a group is ``(sum w)**2 / sum w**2``; its effective
  count of a cell is ``n_eff * (weighted share of the cell)``;
* intervals are Wilson / Newcombe / Katz of those effective counts
  (``reference_stats``, written from the papers);
* verdicts: ``fair`` iff the interval lies inside the band, ``unfair`` iff it lies
  wholly outside, ``inconclusive`` otherwise; ``undefined`` with < 2 groups.

Real data: ``tests/data`` (see its ATTRIBUTION.md): every COMPAS row (5 columns) and
a 4,000-row sample of UCI Adult.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_stats as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair.exceptions import FairnessGateError, InvalidParameterError

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

DATA = Path(__file__).parent / "data"
VERDICTS = {"fair", "unfair", "inconclusive", "undefined"}


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return pl.read_csv(DATA / "compas_race_sex.csv").with_columns(
        (pl.col("decile_score") >= 5).alias("pred")
    )


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(DATA / "adult_sample.csv").with_columns(
        (pl.col("income-per-year") == ">50K").alias("y"),
        (pl.col("education-num") >= 13).alias("pred"),
    )


def _np_groups(df: pl.DataFrame, keys: list[str]) -> dict[str, dict[str, float]]:
    """Per group (label "a / b"): n, selection count, with numpy masks."""
    labels = np.array([" / ".join(map(str, r)) for r in df.select(keys).iter_rows()])
    pred = df["pred"].to_numpy().astype(bool)
    out = {}
    for g in np.unique(labels):
        mask = labels == g
        out[str(g)] = {"n": float(mask.sum()), "pp": float(pred[mask].sum())}
    return out


def _interval_verdict(row: dict[str, Any]) -> str:
    lo, hi, fl, fh = row["ci_low"], row["ci_high"], row["fair_low"], row["fair_high"]
    if row["value"] is None or row["n_groups"] < 2:
        return "undefined"
    if lo is None or hi is None:
        return "inconclusive"
    if fl <= lo and hi <= fh:
        return "fair"
    if hi < fl or lo > fh:
        return "unfair"
    return "inconclusive"


# ---- 1-2: what was compared, small groups out of the judgement ----------------------------


def test_compas_by_race_small_group_excluded(run: Any, compas: pl.DataFrame) -> None:
    out = run(
        compas, "summary", y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian",
    )  # fmt: skip
    groups = _np_groups(compas, ["race"])
    small = sorted(g for g, s in groups.items() if s["n"] < 30)
    assert small == ["Native American"]  # 18 rows
    assert set(out["verdict"].cast(pl.String)) <= VERDICTS - {"undefined"}
    assert (out["excluded"] == "Native American (n=18)").all()
    assert (out["n_groups"] == len(groups) - 1).all()
    dp = out.filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    # numpy: the group farthest from Caucasian in selection rate, among the kept groups
    sr = {g: s["pp"] / s["n"] for g, s in groups.items() if g not in small}
    far = max((g for g in sr if g != "Caucasian"), key=lambda g: abs(sr[g] - sr["Caucasian"]))
    assert (dp["group"], dp["compared_with"]) == (far, "Caucasian")
    assert (dp["group_n"], dp["compared_n"]) == (groups[far]["n"], groups["Caucasian"]["n"])
    assert math.isclose(dp["value"], sr[far] - sr["Caucasian"], rel_tol=1e-12)
    assert dp["verdict"] == "unfair"  # 0.24 apart with thousands of rows


def test_compas_race_sex_two_person_group_is_out(compas: pl.DataFrame) -> None:
    kw = {
        "y_true": "two_year_recid", "y_pred": "pred", "sensitive_features": ["race", "sex"],
        "reference_group": ("Caucasian", "Male"),
    }  # fmt: skip
    out = compas.fair.summary(**kw, criteria=["disparate_impact_ratio"])
    row = out.row(0, named=True)
    groups = _np_groups(compas, ["race", "sex"])
    kept = {g: s for g, s in groups.items() if s["n"] >= 30}
    sr = {g: s["pp"] / s["n"] for g, s in kept.items()}
    ratios = {g: sr[g] / sr["Caucasian / Male"] for g in sr if g != "Caucasian / Male"}
    assert row["value"] != 0.0  # the 2-person Asian / Female group no longer sets it
    assert "Asian / Female (n=2)" in row["excluded"]
    assert math.isclose(row["highest"], max(ratios.values()), rel_tol=1e-12)
    assert row["highest_group"] == max(ratios, key=ratios.__getitem__)  # AA men, 1.81
    assert math.isclose(row["lowest"], min(ratios.values()), rel_tol=1e-12)
    # min_group_size=0 keeps every group: the 2-person group is back, and sets 0.0
    every = compas.fair.summary(**kw, criteria=["disparate_impact_ratio"], min_group_size=0)
    assert every.item(0, "n_groups") == len(groups)
    assert every.item(0, "excluded") is None
    assert every.item(0, "value") == 0.0


def test_by_group_still_shows_small_groups(compas: pl.DataFrame) -> None:
    report = compas.fair.report(y_true="two_year_recid", y_pred="pred", sensitive_features="race")
    flagged = report.by_group.filter(pl.col("small_group"))["race"].to_list()
    assert flagged == ["Native American"]
    assert "Left out of the criteria (too small): Native American (n=18)" in report.to_markdown()


def test_one_group_is_never_fair(run: Any, compas: pl.DataFrame) -> None:
    one = compas.filter(pl.col("race") == "Caucasian")
    out = run(one, "summary", y_true="two_year_recid", y_pred="pred", sensitive_features="race")
    assert set(out["verdict"].cast(pl.String)) == {"undefined"}
    assert out["note"].str.contains("fewer than two groups").all()


# ---- 3: verdicts from intervals -----------------------------------------------------------


@pytest.mark.parametrize("reference", [None, "Caucasian"])
def test_interval_verdicts_follow_the_rule(compas: pl.DataFrame, reference: Any) -> None:
    out = compas.fair.summary(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group=reference,
    )  # fmt: skip
    for row in out.iter_rows(named=True):
        assert row["interval_method"] in (
            "newcombe",
            "katz",
            "count_ratio",
            "count_mover",
            "newcombe_parts",
            "katz_parts",
            "mover_average",
            "delta",
            "normal",
            "bootstrap",
        )
        assert row["ci_low"] is not None, row  # every criterion gets an interval
        assert row["verdict"] == _interval_verdict(row), row
        if row["verdict"] == "unfair" and row["fair_low"] == -row["fair_high"]:
            assert not row["ci_low"] <= 0 <= row["ci_high"], row  # never "unfair" around 0
    point = compas.fair.summary(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group=reference, verdict_rule="point",
    )  # fmt: skip
    for row in point.iter_rows(named=True):
        inside = row["fair_low"] <= row["value"] <= row["fair_high"]
        assert row["verdict"] == ("fair" if inside else "unfair"), row


def test_closed_form_intervals_vs_numpy(compas: pl.DataFrame) -> None:
    out = compas.fair.summary(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian", confidence_level=0.9,
        criteria=["demographic_parity_difference", "disparate_impact_ratio", "cohen_d",
                  "two_sd_rule"],
    )  # fmt: skip
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    groups = _np_groups(compas, ["race"])
    g, r = groups[rows["demographic_parity_difference"]["group"]], groups["Caucasian"]
    nd = ref.newcombe(g["pp"], g["n"], r["pp"], r["n"], 0.9)
    kz = ref.katz(g["pp"], g["n"], r["pp"], r["n"], 0.9)
    assert nd is not None
    assert kz is not None
    dp, di = rows["demographic_parity_difference"], rows["disparate_impact_ratio"]
    assert np.allclose([dp["ci_low"], dp["ci_high"]], nd, rtol=1e-12)
    assert np.allclose([di["ci_low"], di["ci_high"]], kz, rtol=1e-12)
    # Cohen's d: delta method sqrt(1/n1 + 1/n2 + d^2 / (2 (n1 + n2)))
    z = ref.z_value(0.9)
    d = rows["cohen_d"]["value"]
    se = math.sqrt(1 / g["n"] + 1 / r["n"] + d * d / (2 * (g["n"] + r["n"])))
    assert np.allclose([rows["cohen_d"]["ci_low"], rows["cohen_d"]["ci_high"]],
                       [d - z * se, d + z * se], rtol=1e-12)  # fmt: skip
    t = rows["two_sd_rule"]["value"]
    assert np.allclose([rows["two_sd_rule"]["ci_low"], rows["two_sd_rule"]["ci_high"]],
                       [t - z, t + z], rtol=1e-12)  # fmt: skip


def test_simulated_wrong_verdict_rate_is_at_most_alpha() -> None:
    # 400 audits of two groups of 300 whose true selection rates differ by exactly the
    # band edge (0.1): the hardest case. An interval verdict may call it "fair" only
    # when its 95% interval misses the true value: at most 2.5% of the time, plus noise.
    rng = np.random.default_rng(13)
    sims, n = 400, 300
    frames = []
    for p_a, p_b, name in ((0.5, 0.4, "edge"), (0.45, 0.45, "equal"), (0.6, 0.35, "far")):
        pred = np.concatenate(
            [rng.random((sims, n)) < p_a, rng.random((sims, n)) < p_b], axis=1
        ).ravel()
        frames.append(
            pl.DataFrame({
                "case": name,
                "sim": np.repeat(np.arange(sims), 2 * n),
                "g": np.tile(np.repeat(["a", "b"], n), sims),
                "y": rng.random(sims * 2 * n) < 0.5,
                "pred": pred,
            })
        )  # fmt: skip
    df = pl.concat(frames)
    out = df.fair.summary(
        y_true="y", y_pred="pred", sensitive_features="g", by=["case", "sim"],
        reference_group="b", criteria=["demographic_parity_difference"],
    )  # fmt: skip
    rate = out.group_by("case").agg(
        (pl.col("verdict") == "fair").mean().alias("fair"),
        (pl.col("verdict") == "unfair").mean().alias("unfair"),
    )
    r = {row["case"]: row for row in rate.iter_rows(named=True)}
    # binomial sd of 2.5% over 400 runs is 0.8%: allow 2.5% + 3 sd
    assert r["edge"]["fair"] <= 0.05, r
    assert r["edge"]["unfair"] <= 0.05, r
    assert r["equal"]["unfair"] <= 0.05, r  # truly fair: "unfair" at most alpha / 2
    assert r["far"]["fair"] <= 0.05, r  # truly unfair (0.25): "fair" at most alpha / 2
    assert r["far"]["unfair"] >= 0.9, r  # and the rule has power where it should


# ---- 4: weights with a meaning ------------------------------------------------------------


def test_effective_sizes_vs_numpy(adult: pl.DataFrame) -> None:
    out = adult.fair.summary(
        y_true="y", y_pred="pred", sensitive_features="sex", sample_weight="fnlwgt",
        reference_group="Male",
        criteria=["demographic_parity_difference", "disparate_impact_ratio"],
    )  # fmt: skip
    sex = adult["sex"].to_numpy()
    w = adult["fnlwgt"].to_numpy().astype(float)
    pred = adult["pred"].to_numpy()
    eff, kish = {}, {}
    for g in ("Female", "Male"):
        m = sex == g
        kish[g] = w[m].sum() ** 2 / (w[m] ** 2).sum()  # the group's size, shown
        # the selection rate's own size: the smaller of Kish's and the linearised one
        eff[g] = ref.effective_size(w[m], pred[m], w[m])
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    dp = rows["demographic_parity_difference"]
    assert math.isclose(dp["group_n"], kish["Female"], rel_tol=1e-9)
    assert math.isclose(dp["compared_n"], kish["Male"], rel_tol=1e-9)
    nd = ref.newcombe(*eff["Female"], *eff["Male"])
    kz = ref.katz(*eff["Female"], *eff["Male"])
    assert nd is not None
    assert kz is not None
    assert np.allclose([dp["ci_low"], dp["ci_high"]], nd, rtol=1e-9)
    di = rows["disparate_impact_ratio"]
    assert np.allclose([di["ci_low"], di["ci_high"]], kz, rtol=1e-9)
    # the point values are the weighted ones
    sr = {g: w[(sex == g) & pred].sum() / w[sex == g].sum() for g in ("Female", "Male")}
    assert math.isclose(dp["value"], sr["Female"] - sr["Male"], rel_tol=1e-12)


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(1e-6, 1e6), seed=st.integers(0, 2**16))
def test_rescaling_weights_changes_nothing(scale: float, seed: int) -> None:
    data = ref.make_data(seed, rows=300, weights="float")
    df = pl.DataFrame(data).with_columns((pl.col("w") * scale).alias("w_scaled"))
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g", "min_group_size": 5}
    a = df.fair.summary(**kw, sample_weight="w")
    b = df.fair.summary(**kw, sample_weight="w_scaled")
    assert a["criterion"].to_list() == b["criterion"].to_list()
    assert a["verdict"].to_list() == b["verdict"].to_list()
    assert a["excluded"].to_list() == b["excluded"].to_list()
    for col in ("value", "ci_low", "ci_high", "group_n", "compared_n", "lowest", "highest"):
        x, y = a[col].to_numpy().astype(float), b[col].to_numpy().astype(float)
        assert np.allclose(x, y, rtol=1e-7, atol=1e-12, equal_nan=True), col


def test_frequency_weights_are_row_counts() -> None:
    # integer weights read as row counts equal the duplicated rows, unweighted
    data = ref.make_data(7, rows=200, groups=("a", "b"))
    df = pl.DataFrame(data).with_columns(pl.Series("k", np.arange(200) % 3 + 1))
    crits = ["demographic_parity_difference", "disparate_impact_ratio", "two_sd_rule"]
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g", "criteria": crits}
    weighted = df.fair.summary(**kw, sample_weight="k", frequency_weights=True)
    repeated = df.select(pl.exclude("k").repeat_by(pl.col("k")).explode())
    plain = repeated.fair.summary(**kw)
    for col in ("value", "ci_low", "ci_high", "group_n"):
        assert np.allclose(weighted[col].to_numpy(), plain[col].to_numpy(), rtol=1e-12), col


def test_statistics_table_carries_sum_of_squared_weights(adult: pl.DataFrame) -> None:
    stats = adult.fair.group_stats(
        y_true="y", y_pred="pred", sensitive_features="sex", sample_weight="fnlwgt"
    )
    w = adult["fnlwgt"].to_numpy().astype(float)
    for row in stats.iter_rows(named=True):
        m = adult["sex"].to_numpy() == row["sex"]
        assert math.isclose(row["sum_w2"], float((w[m] ** 2).sum()), rel_tol=1e-12)
    # additive: the halves' tables sum to the whole
    half = adult.height // 2
    kw = {"y_true": "y", "y_pred": "pred", "sensitive_features": "sex", "sample_weight": "fnlwgt"}
    parts = [adult[:half].fair.group_stats(**kw), adult[half:].fair.group_stats(**kw)]
    summed = pl.concat(parts).group_by("sex").agg(pl.col("sum_w2").sum()).sort("sex")
    assert np.allclose(summed["sum_w2"].to_numpy(), stats.sort("sex")["sum_w2"].to_numpy())


# ---- 5: one orientation per audit -----------------------------------------------------------


def test_orientation_between_groups(compas: pl.DataFrame) -> None:
    out = compas.fair.summary(y_true="two_year_recid", y_pred="pred", sensitive_features="race")
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    groups = {g: s for g, s in _np_groups(compas, ["race"]).items() if s["n"] >= 30}
    sr = {g: s["pp"] / s["n"] for g, s in groups.items()}
    hi, lo = max(sr, key=sr.__getitem__), min(sr, key=sr.__getitem__)
    for name in ("demographic_parity_difference", "two_sd_rule", "cohen_d"):
        assert (rows[name]["group"], rows[name]["compared_with"]) == (hi, lo), name
        assert rows[name]["value"] >= 0, name
    assert math.isclose(rows["four_fifths_rule"]["value"], sr[lo] / sr[hi], rel_tol=1e-12)
    n1, n2 = groups[hi]["n"], groups[lo]["n"]
    pooled = (groups[hi]["pp"] + groups[lo]["pp"]) / (n1 + n2)
    z = (sr[hi] - sr[lo]) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    assert math.isclose(rows["two_sd_rule"]["value"], z, rel_tol=1e-12)


def test_orientation_signed_against_the_reference(compas: pl.DataFrame) -> None:
    out = compas.fair.summary(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian",
    )  # fmt: skip
    rows = {r["criterion"]: r for r in out.iter_rows(named=True)}
    dp, di = rows["demographic_parity_difference"], rows["disparate_impact_ratio"]
    # same pair, same sign: 1.74-style ratio beside a +0.24 difference, never 0.57
    assert rows["four_fifths_rule"]["value"] == di["value"]
    for name in ("two_sd_rule", "cohen_d"):
        assert rows[name]["group"] == dp["group"]
        assert math.copysign(1, rows[name]["value"]) == math.copysign(1, dp["value"])
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian",
    )  # fmt: skip
    assert "signed against the reference group Caucasian" in report.to_markdown()


# ---- 6: gates in Python ----------------------------------------------------------------------


def test_python_gates(compas: pl.DataFrame) -> None:
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features=["race", "sex"],
        reference_group=("Caucasian", "Male"),
        criteria=["disparate_impact_ratio", "demographic_parity_ratio"],
    )  # fmt: skip
    # "> 1.25" reads the highest group: African-American men, not the farthest (low) one
    lines = report.failures(verdicts=[], conditions=["disparate_impact_ratio > 1.25"])
    assert len(lines) == 1
    assert "African-American / Male (n=3044) vs Caucasian / Male (n=1887)" in lines[0]
    assert report.failures(verdicts=[], conditions=["disparate_impact_ratio > 2"]) == []
    unfair = report.failures()
    assert unfair
    assert all(" is unfair: " in line for line in unfair)
    with pytest.raises(FairnessGateError) as info:
        report.check()
    assert info.value.failures == unfair
    with pytest.raises(InvalidParameterError, match="finite number"):
        report.failures(conditions=["disparate_impact_ratio < nan"])
    with pytest.raises(InvalidParameterError, match="not in this report's summary"):
        report.failures(conditions=["equalized_odds_ratio < 0.8"])
    blind = report.one_sided_misses(["disparate_impact_ratio > 1.25"])
    assert len(blind) == 1
    assert "Hispanic / Female" in blind[0]


def test_gate_on_an_undefined_value_fails(compas: pl.DataFrame) -> None:
    one = compas.filter(pl.col("race") == "Caucasian")
    report = one.fair.report(y_true="two_year_recid", y_pred="pred", sensitive_features="race")
    cond = ["demographic_parity_difference > 0.1"]
    lines = report.failures(verdicts=[], conditions=cond)
    assert len(lines) == 1
    assert "undefined (fewer than two groups compared" in lines[0]
    assert report.failures(verdicts=[], conditions=cond, allow_undefined=True) == []
    assert report.failures(verdicts=["undefined"])  # and as a verdict gate


def test_by_group_flags_small_groups_by_effective_size(adult: pl.DataFrame) -> None:
    # weights summing to about 1 would make every group "small" read as row counts
    df = adult.with_columns((pl.col("fnlwgt") / pl.col("fnlwgt").sum()).alias("w"))
    table = df.fair.by_group(
        y_true="y", y_pred="pred", sensitive_features="race", sample_weight="w", min_group_size=30
    )
    race, w = df["race"].to_numpy(), df["w"].to_numpy()
    for row in table.iter_rows(named=True):
        m = race == row["race"]
        n_eff = w[m].sum() ** 2 / (w[m] ** 2).sum()
        assert row["small_group"] == (n_eff < 30), (row, n_eff)
    assert not table["small_group"].all()


def test_text_names_orientation_and_comparison(compas: pl.DataFrame) -> None:
    # the plain-text summary (what the command line prints) says how the criteria are
    # oriented and, per row, which groups were compared, with numpy-counted sizes
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian",
    )  # fmt: skip
    text = report.to_text()
    assert "orientation: signed against the reference group Caucasian" in text
    counts = _np_groups(compas, ["race"])
    row = report.summary.row(by_predicate=pl.col("criterion") == "demographic_parity_difference",
                             named=True)  # fmt: skip
    n, n_ref = int(counts[row["group"]]["n"]), int(counts["Caucasian"]["n"])
    assert f"{row['group']} (n={n}) vs Caucasian (n={n_ref})" in text
    assert f"Native American (n={int(counts['Native American']['n'])})" in text  # left out


def test_text_shows_effective_sizes_with_weights(adult: pl.DataFrame) -> None:
    report = adult.fair.report(
        y_true="y", y_pred="pred", sensitive_features="sex", sample_weight="fnlwgt"
    )
    text = report.to_text()
    assert "n_effective" in text
    for sex in ("Female", "Male"):
        w = adult.filter(pl.col("sex") == sex)["fnlwgt"].to_numpy().astype(float)
        kish = w.sum() ** 2 / (w**2).sum()
        assert f"{sex} (n={round(kish, 1)})" in text  # the comparison's size is Kish's


@pytest.mark.parametrize("method", ["between_groups", "to_reference", "to_overall"])
def test_bootstrap_interval_of_a_criterion_asked_twice(compas: pl.DataFrame, method: str) -> None:
    """A bootstrapped criterion named twice has the interval it has named once."""
    # average_abs_odds_difference (its own extremes in each redraw) only with to_overall
    first = "average_abs_odds_difference" if method == "to_overall" else "balanced_accuracy_ratio"
    boot = [first, "f1_difference"]
    kw: dict[str, Any] = {"y_true": "two_year_recid", "y_pred": "pred", "method": method}
    kw["sensitive_features"] = "race"
    once = compas.fair.summary(criteria=boot, **kw)
    twice = compas.fair.summary(criteria=boot * 2, **kw)
    assert once["interval_method"].to_list() == ["bootstrap"] * 2
    assert twice.height == 4
    assert_frame_equal(twice.head(2), once, check_exact=True)
    assert_frame_equal(twice.tail(2), once, check_exact=True)
