"""``compare(..., familywise=True)`` and ``polars-fair compare --familywise``: one gate.

A release gate fails when *any* row of the comparison is ``worse``. Per row, each is
``worse`` by chance at most (1 - level) / 2 of the time, so a gate over many rows fails
far more often with nothing changed. With ``familywise=True`` the changes' intervals are
Bonferroni intervals over the m rows that can be judged (level 1 - (1 - level) / m).

* The intervals and verdicts equal the definition (numpy), with m counted by hand.
* Simulated families of rows from one distribution: some ``worse`` row in at most the
  stated share of families (and far more often per row, which is why the option exists);
  a planted degradation is still found.
* The trend's family: every window compared with its baseline window.
* The command line: the rule names the rows and the level; the gate's exit status.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from test_profile_compare import _binomial_quantile, _replicates, _report

import polars_fair as pf
from polars_fair.metrics._compare import compare_summaries
from polars_fair.metrics._intervals import z_value

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")


def _summary(rows: list[tuple[str, float, float, float]]) -> pl.DataFrame:
    """A summary of difference criteria (ideal 0): criterion, value, ci_low, ci_high."""
    return pl.DataFrame(
        [(c, 0.0, "fair", v, lo, hi) for c, v, lo, hi in rows],
        schema=["criterion", "ideal", "verdict", "value", "ci_low", "ci_high"],
        orient="row",
    )


def test_bonferroni_intervals_from_the_definition() -> None:
    base = _summary([("c1", 0.05, 0.01, 0.09), ("c2", 0.02, 0.0, 0.04), ("c3", 0.1, None, None),
                     ("c4", 0.03, 0.01, 0.05)])  # fmt: skip
    cand = _summary([("c1", 0.16, 0.11, 0.21), ("c2", 0.05, 0.03, 0.07), ("c3", 0.1, 0.0, 0.2),
                     ("c5", 0.0, -0.1, 0.1)])  # fmt: skip
    out = compare_summaries(cand, base, familywise=True).sort("criterion")
    m = 2  # c1 and c2: c3 lacks the baseline's interval, c4 and c5 a side
    z1 = z_value(0.95)
    zm = z_value(1 - 0.05 / m)
    assert out["ci_level"].to_list() == pytest.approx([1 - 0.05 / m] * out.height)
    for name, b, c in [("c1", (0.05, 0.01, 0.09), (0.16, 0.11, 0.21)),
                       ("c2", (0.02, 0.0, 0.04), (0.05, 0.03, 0.07))]:  # fmt: skip
        se = math.hypot((b[2] - b[1]) / (2 * z1), (c[2] - c[1]) / (2 * z1))
        d = abs(c[0]) - abs(b[0])
        row = out.filter(pl.col("criterion") == name)
        assert row["distance_ci_low"].item() == pytest.approx(d - zm * se)
        assert row["ci_high"].item() == pytest.approx(c[0] - b[0] + zm * se)
        want = "worse" if d > 0.02 and d - zm * se > 0 else "inconclusive"
        assert row["verdict"].item() == want
    # c2: worse per row (0.03 - 1.96 * 0.0144 > 0), not over the family (2.24 * 0.0144)
    per_row = compare_summaries(cand, base).sort("criterion")
    assert per_row["verdict"].to_list()[:2] == ["worse", "worse"]
    assert out["verdict"].to_list()[:2] == ["worse", "inconclusive"]
    assert per_row["ci_level"].to_list() == pytest.approx([0.95] * per_row.height)


def test_familywise_at_most_at_the_stated_rate_per_family() -> None:
    rng = np.random.default_rng(11)
    reps, size = 300, 5  # 60 families of 5 batch keys x 4 criteria
    base = _report(_replicates(rng, reps, 1500)).summary
    cand = _report(_replicates(rng, reps, 1500)).summary
    family = pl.col("rep") // size
    fails = {False: 0, True: 0}
    cand, base = cand.with_columns(family.alias("f")), base.with_columns(family.alias("f"))
    b_parts = base.partition_by("f", as_dict=True)
    for key, c_part in cand.partition_by("f", as_dict=True).items():
        for familywise in (False, True):
            out = compare_summaries(c_part, b_parts[key], by=["rep"], familywise=familywise)
            fails[familywise] += bool((out["verdict"] == "worse").any())
    families = reps // size
    stated = (1 - 0.95) / 2
    assert fails[True] <= _binomial_quantile(families, stated, 0.999)
    # per row, the same families fail more often than the gate's stated rate
    assert fails[False] > fails[True]


def test_planted_degradation_still_found_family_wise() -> None:
    rng = np.random.default_rng(7)
    baseline = _report(_replicates(rng, 20, 3000))
    candidate = _report(_replicates(rng, 20, 3000, drop=0.15))
    out = candidate.compare(baseline, familywise=True)
    assert out["ci_level"].unique().item() == pytest.approx(1 - 0.05 / out.height)
    for name in ("demographic_parity_difference", "disparate_impact_ratio"):
        assert (out.filter(pl.col("criterion") == name)["verdict"] == "worse").all()


def test_profiles_and_trend_family_wise() -> None:
    rng = np.random.default_rng(3)
    parts = [
        _replicates(rng, 1, 4000, drop=d).with_columns(week=pl.lit(i))
        for i, d in enumerate([0.0, 0.0, 0.0, 0.2])
    ]
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "by": "week"}
    prof = pf.merge_profiles(p.fair.profile(**kw) for p in parts)
    trend = prof.trend("demographic_parity_difference", time="week", familywise=True)
    # three windows compared with the first (the first with itself is not a comparison)
    assert trend["change_ci_level"].to_list() == pytest.approx([1 - 0.05 / 3] * 4)
    assert trend.filter("first_alert")["week"].to_list() == [3]
    plain = prof.trend("demographic_parity_difference", time="week")
    assert plain["change_ci_level"].to_list() == pytest.approx([0.95] * 4)
    wider = (trend["change_ci_high"] - trend["change_ci_low"]) / (
        plain["change_ci_high"] - plain["change_ci_low"]
    )
    ratio = z_value(1 - 0.05 / 3) / z_value(0.95)
    assert wider.slice(1).to_list() == pytest.approx([ratio] * 3)
    a, b = prof, pf.merge_profiles(p.with_columns(p=1 - pl.col("p")).fair.profile(**kw)
                                   for p in parts)  # fmt: skip
    got = b.compare(a, familywise=True)
    want = b.report().compare(a.report(), familywise=True)
    assert got.equals(want)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_familywise_must_be_a_bool(bad: object) -> None:
    rng = np.random.default_rng(1)
    report = _report(_replicates(rng, 1, 500))
    with pytest.raises(pf.InvalidParameterError, match="`familywise` must be True or False"):
        report.compare(report, familywise=bad)  # type: ignore[arg-type]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", *args], capture_output=True, text=True, check=False
    )


def _two_groups(rate_b: float) -> pl.DataFrame:
    """1,000 rows per group, half positive; group a selects 50%, group b `rate_b` (exactly)."""
    rows = []
    for g, rate in (("a", 0.5), ("b", rate_b)):
        for y in (0, 1):
            chosen = round(500 * rate)
            rows += [(g, y, 1)] * chosen + [(g, y, 0)] * (500 - chosen)
    return pl.DataFrame(rows, schema=["g", "y", "p"], orient="row")


def test_cli_gate_family_wise(tmp_path) -> None:  # type: ignore[no-untyped-def]
    base, cand = tmp_path / "base.parquet", tmp_path / "cand.parquet"
    _two_groups(0.45).write_parquet(base)
    _two_groups(0.385).write_parquet(cand)
    opts = ["--y-true", "y", "--y-pred", "p", "--sensitive-features", "g", "--fail-on-worse",
            "--criteria", "demographic_parity_difference,equal_opportunity_difference"]  # fmt: skip
    # the selection rate gap grows from 0.05 to 0.116: per row, the interval of that
    # change (se about 0.031) excludes 0 at z = 1.96, not at z = 2.24 (m = 2)
    per_row = _cli("compare", str(base), str(cand), *opts)
    assert per_row.returncode == 1, per_row.stderr
    assert "--familywise bounds the whole gate at 2.5%" in per_row.stderr
    assert "each of the 2 rows judged" in per_row.stderr
    fw = _cli("compare", str(base), str(cand), *opts, "--familywise")
    assert fw.returncode == 0, fw.stderr
    assert "97.5% interval (--familywise: Bonferroni over the 2 rows judged, 95% for them all)" \
        in fw.stdout  # fmt: skip
    assert "worse" not in fw.stdout
