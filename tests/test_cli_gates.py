"""The release gates of the command line, as real subprocess runs (issue 13).

Exit status 0: every gate passes; 1: a gate fails (named with the groups compared);
2: usage error. Data: ``tests/data`` (see its ATTRIBUTION.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_fair

DATA = Path(__file__).parent / "data"
COMPAS = [
    str(DATA / "compas_race_sex.csv"), "--y-true", "two_year_recid",
    "--y-pred", "decile_score >= 5",
]  # fmt: skip
ADULT = [
    str(DATA / "adult_sample.csv"), "--y-true", "income-per-year", "--pos-label", ">50K",
    "--sensitive-features", "sex",
]  # fmt: skip


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    root = str(Path(polars_fair.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "audit", "--format", "json", "-o", os.devnull,
         *args],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip


def err_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return proc.stderr.strip().splitlines()


@pytest.mark.parametrize(
    ("args", "code", "pieces"),
    [
        pytest.param(
            ["--example", "compas", "--fail-on", "disparate_impact_ratio < 0.8"], 0,
            ["warning: 'disparate_impact_ratio < 0.8' watches one side only",
             "add 'disparate_impact_ratio > 1.25'"],
            id="readme-one-sided-passes-with-a-warning",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on", "disparate_impact_ratio < 0.8",
             "--fail-on", "disparate_impact_ratio > 1.25"], 1,
            ["disparate_impact_ratio = 1.741 > 1.25 (interval [", "]): African-American"],
            id="two-sided-fails",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on-verdict", "unfair"], 1,
            ["disparate_impact_ratio is unfair", "African-American (n=3175) vs Caucasian (n=2103)"],
            id="fail-on-verdict",
        ),
        pytest.param(
            [*COMPAS, "--sensitive-features", "race,sex", "--reference-group", "Caucasian,Male",
             "--fail-on", "disparate_impact_ratio > 1.25"], 1,
            ["African-American / Male (n=3044) vs Caucasian / Male (n=1887)"],
            id="race-sex-highest-group",
        ),
        pytest.param(
            [*COMPAS, "--sensitive-features", "race", "--reference-group", "Caucasian",
             "--fail-on-verdict", "unfair", "--criteria", "demographic_parity_difference"], 1,
            ["demographic_parity_difference is unfair",
             "African-American (n=3696) vs Caucasian (n=2454)"],
            id="full-compas-by-race",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on", "demographic_parity_ratio > 1.25"], 1,
            ["demographic_parity_ratio = 1.741 > 1.25"],
            id="fairlearn-name-added-to-the-audit",
        ),
        pytest.param(
            [*COMPAS, "--sensitive-features", "race", "--fail-on",
             "balance_for_negative_class_difference > 0.1"], 2,
            ["compares mean scores, and no score column was given", "--y-prob"],
            id="score-criterion-without-a-score",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on", "disparate_impact_ratio < nan"], 2,
            ["error: --fail-on", "finite number"], id="nan-bound",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on", "disparate_impact_ratio > inf"], 2,
            ["finite number", "> +infinity holds for no value, so the gate could never fail"],
            id="inf-bound",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on", "disparate_impact_ratio < inf"], 2,
            ["< +infinity holds for every finite value, so the gate would always fail"],
            id="inf-bound-always",
        ),
        pytest.param(
            [*COMPAS, "--sensitive-features", "race", "--reference-group", "Asian",
             "--min-group-size", "50", "--fail-on-verdict", "unfair"], 1,
            ["fail-on: no criterion could be judged (the reference group Asian (n=32) is "
             "smaller than min_group_size = 50", "--min-group-size) to 32 or less",
             "--allow-undefined"],
            id="reference-too-small-fails",
        ),
        pytest.param(
            [*COMPAS, "--sensitive-features", "race", "--reference-group", "Asian",
             "--min-group-size", "50", "--fail-on-verdict", "unfair", "--allow-undefined"], 0,
            ["warning: verdict gate unfair: 13 of 13 criteria could not be judged (the "
             "reference group Asian (n=32)"],
            id="reference-too-small-allowed-warns",
        ),
        pytest.param(
            ["--example", "compas", "--fail-on-verdict", "bad"], 2,
            ["--fail-on-verdict: unknown verdict"], id="unknown-verdict",
        ),
        pytest.param(
            ["--example", "compas", "--criteria", "demographic_parity_difference,nope"], 2,
            ["--criteria: unknown criterion 'nope'"], id="unknown-criterion",
        ),
    ],
)  # fmt: skip
def test_gate_exit_codes(args: list[str], code: int, pieces: list[str]) -> None:
    proc = audit(*args)
    assert proc.returncode == code, proc.stderr
    for piece in pieces:
        assert piece in proc.stderr, (piece, proc.stderr)
    for line in err_lines(proc):  # clean messages: our lines only, no Python source
        assert line.startswith(("polars-fair: ", "Hint: ")), line


def test_one_group_undefined_gate(tmp_path: Path) -> None:
    one = tmp_path / "one.csv"
    pl.read_csv(DATA / "compas_race_sex.csv").filter(pl.col("race") == "Caucasian").write_csv(one)
    base = [str(one), "--y-true", "two_year_recid", "--y-pred", "decile_score >= 5",
            "--sensitive-features", "race"]  # fmt: skip
    gate = ["--fail-on", "demographic_parity_difference > 0.1"]
    proc = audit(*base, *gate)
    assert proc.returncode == 1
    assert "undefined (fewer than two groups compared" in proc.stderr
    assert audit(*base, *gate, "--allow-undefined").returncode == 0
    # a verdict gate that could judge no criterion does not pass (nothing was compared)
    failed = audit(*base, "--fail-on-verdict", "unfair")
    assert failed.returncode == 1
    assert "no criterion could be judged (fewer than two groups compared" in failed.stderr
    assert "--allow-undefined" in failed.stderr  # the way to let it pass
    passed = audit(*base, "--fail-on-verdict", "unfair", "--allow-undefined")
    assert passed.returncode == 0  # ... said in a warning, with the stricter gate
    assert "criteria could not be judged (fewer than two groups compared" in passed.stderr
    assert "--fail-on-verdict unfair,undefined" in passed.stderr
    assert audit(*base, "--fail-on-verdict", "unfair,undefined").returncode == 1


def test_adult_weighted_rescaling_and_labels(tmp_path: Path) -> None:
    # a boolean rule against string labels, census weights: the same verdicts whatever
    # the scale of the weights
    frame = pl.read_csv(DATA / "adult_sample.csv")
    path = tmp_path / "adult.csv"
    frame.with_columns(
        (pl.col("fnlwgt") / pl.col("fnlwgt").sum()).alias("w_unit"),
        (pl.col("fnlwgt") * 1000).alias("w_k"),
    ).write_csv(path)
    base = [str(path), *ADULT[1:], "--y-pred", '"education-num" >= 13']
    outs = []
    for weight in ("fnlwgt", "w_unit", "w_k"):
        out = tmp_path / f"{weight}.json"
        proc = subprocess.run(
            [sys.executable, "-m", "polars_fair", "audit", *base, "--sample-weight", weight,
             "--format", "json", "-o", str(out), "--fail-on", "two_sd_rule > 2"],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ,
                 "PYTHONPATH": str(Path(polars_fair.__file__).resolve().parents[1])},
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        summary = pl.read_json(out).select(pl.col("tables").struct.field("summary")).item()
        outs.append([(r["criterion"], r["verdict"], round(r["value"], 9)) for r in summary])
    assert outs[0] == outs[1] == outs[2]


def test_label_expressions_and_pos_label_pred() -> None:
    # --y-true as an expression, --pos-label-pred for the predictions' own labels,
    # a sensitive feature computed by SQL (with a comma: --sensitive-feature)
    proc = audit(
        str(DATA / "adult_sample.csv"),
        "--y-true", "\"income-per-year\" = '>50K'",
        "--y-pred", "CASE WHEN \"education-num\" >= 13 THEN 'high' ELSE 'low' END",
        "--pos-label-pred", "high",
        "--sensitive-feature", "CASE WHEN race IN ('White', 'Black') THEN race ELSE 'Other' END",
        "--fail-on-verdict", "unfair",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert "error" not in proc.stderr
    assert audit(str(DATA / "adult_sample.csv"), "--y-true", "nope", "--y-pred", "sex",
                 "--sensitive-features", "sex").returncode == 2  # fmt: skip


def test_warnings_are_single_lines() -> None:
    # race x sex: Asian women have no predicted positives, PPV is undefined (a warning)
    proc = audit(*COMPAS, "--sensitive-features", "race,sex", "--min-group-size", "0")
    assert proc.returncode == 0, proc.stderr
    lines = err_lines(proc)
    assert lines
    assert all(line.startswith("polars-fair: warning: ") for line in lines), lines
    assert "sys.exit" not in proc.stderr


def test_label_error_suggests_command_line_options() -> None:
    # a score given as predictions: the fix is written as options, not Python
    proc = audit(str(DATA / "compas_race_sex.csv"), "--y-true", "two_year_recid",
                 "--y-pred", "decile_score", "--sensitive-features", "race")  # fmt: skip
    assert proc.returncode == 2
    assert "column 'decile_score' must hold exactly two label values" in proc.stderr
    assert '`--y-pred "decile_score >= 0.5"`' in proc.stderr
    assert "pl.col" not in proc.stderr
