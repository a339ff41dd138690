"""The profile commands take the audit's column options; a side compared with itself is unchanged.

* ``polars-fair profile`` and ``compare`` read the groups as ``audit`` does: SQL
  expressions in ``--sensitive-features``, the repeatable ``--sensitive-feature``, and
  ``--pos-label-pred`` for text predictions; ``audit --profile`` of such a profile
  prints what ``audit`` prints on the rows.
* ``compare`` takes ``--criteria``, ``--verdict-rule`` and ``--frequency-weights``,
  and the same data on both sides is ``unchanged`` (exit 0 with ``--fail-on-worse``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_fair.cli import main
from tests.reference_stats import compare_verdict

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")


def _data(path: Path, n: int = 3000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    df = pl.DataFrame(
        {
            "race": rng.choice(["x", "y", "z"], n),
            "age": rng.integers(18, 70, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n),
            "w": rng.random(n) + 0.5,
        }
    ).with_columns(risk=pl.when(pl.col("s") >= 0.6).then(pl.lit("High")).otherwise(pl.lit("Low")))
    df.write_csv(path)
    return df


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


GROUPS = ["--sensitive-feature", "race", "--sensitive-feature", "age > 40"]
COLS = ["--y-true", "y", "--y-pred", "risk", "--pos-label-pred", "High", *GROUPS]


def test_profile_reads_the_groups_and_predictions_as_audit_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.csv"
    df = _data(data)
    prof = tmp_path / "p.parquet"
    assert main(["profile", str(data), "-o", str(prof), *COLS, "--no-progress"]) == 0
    capsys.readouterr()
    code, from_profile = _run(["audit", "--profile", str(prof), "--format", "json"], capsys)
    assert code == 0
    code, from_rows = _run(["audit", str(data), *COLS, "--format", "json"], capsys)
    assert code == 0
    a, b = json.loads(from_profile), json.loads(from_rows)
    assert a["tables"]["by_group"] == b["tables"]["by_group"]
    assert a["tables"]["summary"] == b["tables"]["summary"]
    # the counts, from numpy: groups race x (age > 40), predictions risk == "High"
    older = df["age"].to_numpy() > 40
    pred = df["risk"].to_numpy() == "High"
    race = df["race"].to_numpy()
    rows = {(r["race"], r["age > 40"]): r for r in a["tables"]["by_group"]}
    for (group, old), row in rows.items():
        mask = (race == group) & (older == old)
        assert row["n"] == int(mask.sum())
        assert row["selection_rate"] == pytest.approx(pred[mask].mean())
    # a SQL expression in --sensitive-features, as in audit
    assert main(["profile", str(data), "-o", str(prof), "--y-true", "y", "--y-pred",
                 "s >= 0.5", "--sensitive-features", "age > 40", "--no-progress"]) == 0  # fmt: skip


def test_compare_takes_the_audit_options_and_the_same_side_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.csv"
    _data(data)
    cols = [*COLS, "--y-prob", "s", "--sample-weight", "w"]
    chosen = "demographic_parity_difference,balance_for_positive_class_difference"
    options = ["--criteria", chosen, "--verdict-rule", "point", "--frequency-weights"]
    code, out = _run(["compare", str(data), str(data), *cols, *options, "--fail-on-worse",
                      "--format", "json", "--no-progress"], capsys)  # fmt: skip
    assert code == 0
    rows = json.loads(out)
    assert sorted(r["criterion"] for r in rows) == sorted(chosen.split(","))
    assert {r["verdict"] for r in rows} == {"unchanged"}
    assert {r["change"] for r in rows} == {0.0}


def test_data_compared_with_a_profile_take_its_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, later = tmp_path / "data.csv", tmp_path / "later.csv"
    df = _data(data)
    # the candidate: the same rows, predictions lenient for group z (a planted degradation)
    lenient = pl.when(pl.col("race") == "z").then(pl.col("s") >= 0.2).otherwise(pl.col("s") >= 0.6)
    df.with_columns(s=pl.when(lenient).then(0.9).otherwise(0.1)).write_csv(later)
    prof = tmp_path / "p.parquet"
    cols = ["--y-true", "y", "--y-pred", "s >= 0.6", "--y-prob", "s", "--sensitive-features",
            "race"]  # fmt: skip
    assert main(["profile", str(data), "-o", str(prof), *cols, "--exact-scores"]) == 0
    capsys.readouterr()
    code, out = _run(["compare", str(prof), str(data), "--format", "json", "--fail-on-worse"],
                     capsys)  # fmt: skip
    assert code == 0
    assert {r["verdict"] for r in json.loads(out)} == {"unchanged"}
    code, out = _run(["compare", str(prof), str(later), "--format", "json", "--fail-on-worse"],
                     capsys)  # fmt: skip
    assert code == 1
    worse = {r["criterion"] for r in json.loads(out) if r["verdict"] == "worse"}
    assert "demographic_parity_difference" in worse
    # data without the profile's columns: the error says to give the column options
    pl.DataFrame({"a": [1, 2]}).write_csv(tmp_path / "other.csv")
    assert main(["compare", str(prof), str(tmp_path / "other.csv")]) == 2
    err = capsys.readouterr().err
    assert "column 'y'" in err or "'race'" in err
    assert "give the column options" in err


def test_a_profile_is_recognised_by_its_metadata_not_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.csv"
    _data(data)
    cols = ["--y-true", "y", "--y-pred", "s >= 0.5", "--sensitive-features", "race"]
    prof = tmp_path / "baseline.pq"
    assert main(["profile", str(data), "-o", str(prof), *cols]) == 0
    capsys.readouterr()
    code, out = _run(["compare", str(prof), str(prof), "--format", "json"], capsys)
    assert code == 0
    assert {r["verdict"] for r in json.loads(out)} == {"unchanged"}
    # a profile named like a data file is refused before any data is read
    assert main(["profile", str(data), "-o", str(tmp_path / "p.csv"), *cols]) == 2
    err = capsys.readouterr().err
    assert "written as Parquet, not .csv" in err
    assert "'p.parquet'" in err
    assert not (tmp_path / "p.csv").exists()
    # data given to audit --profile: the error says what a profile is
    assert main(["audit", "--profile", str(data)]) == 2
    assert "audit data files as data" in capsys.readouterr().err


def test_compare_shows_the_distance_its_verdict_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = tmp_path / "base.csv", tmp_path / "cand.csv"
    _data(base, seed=1)
    df = _data(cand, seed=2)
    df.with_columns(
        s=pl.when(pl.col("race") == "z").then(pl.col("s") ** 0.3).otherwise("s")
    ).write_csv(cand)
    cols = ["--y-true", "y", "--y-pred", "s >= 0.5", "--sensitive-features", "race"]
    code, out = _run(["compare", str(base), str(cand), *cols, "--format", "json"], capsys)
    assert code == 0
    rows = json.loads(out)
    # the 2-SD rule's z grows with the rows compared: its distance is per square root of them
    summary = {"y_true": "y", "y_pred": pl.col("s") >= 0.5, "sensitive_features": "race"}
    per_rows = {
        side: pl.read_csv(path).fair.summary(**summary, criteria=["two_sd_rule"])
        .select(1 / (pl.col("group_n") + pl.col("compared_n")).sqrt()).item()
        for side, path in (("baseline", base), ("candidate", cand))
    }  # fmt: skip
    for r in rows:
        ideal = r["ideal"]
        scale = np.log if ideal == 1.0 else (lambda x: x)
        k = per_rows if r["criterion"] == "two_sd_rule" else {"baseline": 1, "candidate": 1}
        dist = k["candidate"] * abs(scale(r["candidate"]) - scale(ideal)) - k["baseline"] * abs(
            scale(r["baseline"]) - scale(ideal)
        )
        assert r["distance_change"] == pytest.approx(dist)
        want = compare_verdict(dist, r["distance_ci_low"], r["distance_ci_high"], 0.02)
        assert r["verdict"] == want
    assert "worse" in {r["verdict"] for r in rows}
    code, out = _run(["compare", str(base), str(cand), *cols], capsys)
    assert "distance_change" in out
    assert "beyond ±0.02" in out


def test_audit_profile_takes_slices_at_the_profiled_crossing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.csv"
    _data(data, n=6000)
    cols = ["--y-true", "y", "--y-pred", "s >= 0.5", "--sensitive-features", "race,risk"]
    prof = tmp_path / "p.parquet"
    assert main(["profile", str(data), "-o", str(prof), *cols]) == 0
    capsys.readouterr()
    slicing = ["--slices", "race,risk", "--slice-metric", "selection_rate", "--format", "json"]
    code, from_profile = _run(["audit", "--profile", str(prof), *slicing, "--fail-on-slices"],
                              capsys)  # fmt: skip
    want_code, from_rows = _run(["audit", str(data), *cols, *slicing, "--fail-on-slices"], capsys)
    assert code == want_code == 1  # the risk slices select differently
    a, b = json.loads(from_profile)["tables"]["slices"], json.loads(from_rows)["tables"]["slices"]
    assert a == b
    assert len(a) > 0
    # a column the profile did not group by: the crossing to profile with
    assert main(["audit", "--profile", str(prof), "--slices", "race,age"]) == 2
    assert "--sensitive-features race,risk,age" in capsys.readouterr().err
    assert main(["audit", "--profile", str(prof), "--fail-on-slices"]) == 2
    assert "--fail-on-slices needs --slices" in capsys.readouterr().err


def test_data_compared_with_a_profile_of_sql_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.csv"
    _data(data)
    prof = tmp_path / "p.parquet"
    assert main(["profile", str(data), "-o", str(prof), *COLS]) == 0  # groups: race, age > 40
    capsys.readouterr()
    code, out = _run(["compare", str(prof), str(data), "--format", "json", "--fail-on-worse"],
                     capsys)  # fmt: skip
    assert code == 0
    assert {r["verdict"] for r in json.loads(out)} == {"unchanged"}
