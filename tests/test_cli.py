"""End-to-end tests of the ``polars-fair audit`` command line.

Most tests call :func:`polars_fair.cli.main` in-process and read what it printed
with ``capsys``; a few run ``python -m polars_fair`` in a subprocess to check the
real program's exit statuses and streams. Reports are compared, as parsed JSON,
with the report the library computes directly on the same data.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair.cli import main
from polars_fair.datasets import scan_compas

COMPAS_GROUPS = ["African-American", "Caucasian"]
BASE = ["--y-true", "label", "--sensitive-features", "race"]
N_PARTS = 3

# ---- data ---------------------------------------------------------------------------


def _make_data(n: int = 600, seed: int = 20240607) -> pl.DataFrame:
    """A small audit dataset without nulls: two races, two sexes, two models."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B"], n, p=[0.55, 0.45])
    sex = rng.choice(["F", "M"], n)
    score = np.round(rng.uniform(0, 1, n), 3)
    label = (rng.uniform(0, 1, n) < 0.25 + 0.5 * score).astype(np.int64)
    model = np.tile(["m1", "m2"], n // 2)
    # model m2 favours race A; m1 thresholds everyone alike
    cut = np.where(model == "m1", 0.5, np.where(race == "A", 0.3, 0.7))
    return pl.DataFrame(
        {
            "race": race,
            "sex": sex,
            "grp": np.where(race == "A", 1, 2).astype(np.int64),
            "model": model,
            "label": label,
            "score": score,
            "pred": (score >= 0.5).astype(np.int64),
            "biased": (score >= cut).astype(np.int64),
            "w": np.round(rng.uniform(0.5, 2.0, n), 2),
        }
    )


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    return _make_data()


@pytest.fixture(scope="module")
def files(data: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the data as one Parquet file, in parts, and some bad inputs."""
    root = tmp_path_factory.mktemp("cli")
    data.write_parquet(root / "all.parquet")
    (root / "data").mkdir()
    size = data.height // N_PARTS
    for i in range(N_PARTS):
        data.slice(i * size, size).write_parquet(root / "data" / f"part-{i}.parquet")
    three = data.with_columns(
        label=pl.when(pl.col("score") > 0.9).then(2).otherwise(pl.col("label"))
    )
    three.write_parquet(root / "three.parquet")
    (root / "notes.txt").write_text("race,label\nA,1\n", encoding="utf-8")
    return root


@pytest.fixture
def in_files(files: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the test from inside the data folder (relative paths and globs)."""
    monkeypatch.chdir(files)
    return files


# ---- helpers --------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``main(["audit", *args])``: exit status, stdout, stderr."""
    capsys.readouterr()
    rc = main(["audit", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    rc, out, err = run(capsys, *args, "--format", "json")
    assert rc == 0, err
    assert err == ""
    doc = json.loads(out)
    assert isinstance(doc, dict)
    return doc


def library(frame: pl.DataFrame | pl.LazyFrame, **kwargs: Any) -> dict[str, Any]:
    """The library's report for the same audit, as parsed JSON."""
    doc = json.loads(frame.fair.report(**kwargs).to_json())
    assert isinstance(doc, dict)
    return doc


def assert_close(actual: Any, expected: Any, path: str = "") -> None:
    """Equal JSON documents, floats to 1e-12 (sums may be added in another order)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), path
        assert actual.keys() == expected.keys(), (path, actual.keys() ^ expected.keys())
        for key in expected:
            assert_close(actual[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), path
        assert len(actual) == len(expected), (path, len(actual), len(expected))
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_close(a, e, f"{path}[{i}]")
    elif isinstance(expected, float) and isinstance(actual, (int, float)):
        assert math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-12), (
            path,
            actual,
            expected,
        )
    else:
        assert actual == expected, (path, actual, expected)


def by_criterion(doc: dict[str, Any], *, by: str | None = None) -> dict[Any, dict[str, Any]]:
    rows = doc["tables"]["summary"]
    if by is None:
        return {row["criterion"]: row for row in rows}
    return {(row[by], row["criterion"]): row for row in rows}


def compas_library() -> dict[str, Any]:
    compared = scan_compas().filter(pl.col("race").is_in(COMPAS_GROUPS)).collect()
    return library(
        compared,
        y_true="two_year_recid",
        y_pred=pl.col("decile_score") >= 5,
        sensitive_features="race",
        reference_group="Caucasian",
    )


def has_charts() -> bool:
    """Whether the HTML report should hold charts (polars_fair.plots may not exist yet)."""
    if importlib.util.find_spec("polars_fair.plots") is None:
        return False
    from polars_fair import plots

    return bool(plots.available())


def subprocess_audit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the package under test, wherever the interpreter's own install points
    root = str(Path(polars_fair.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
        env=env,
    )


# ---- the COMPAS example (exit 0) ---------------------------------------------------------


def test_compas_table(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "--example", "compas")
    assert rc == 0
    assert err == ""
    assert "Rates per group" in out
    assert "Criteria and verdicts" in out
    for group in COMPAS_GROUPS:
        assert group in out
    assert "Hispanic" not in out  # only the two compared groups
    assert "disparate_impact_ratio" in out


def test_compas_json_matches_library(capsys: pytest.CaptureFixture[str]) -> None:
    cli = audit_json(capsys, "--example", "compas")
    lib = compas_library()
    assert cli["params"]["reference_group"] == "Caucasian"
    assert cli["params"]["sensitive_features"] == ["race"]
    assert cli["params"]["y_true"] == "two_year_recid"
    assert cli["params"]["y_pred"] == "decile_score >= 5"
    got, want = by_criterion(cli), by_criterion(lib)
    assert got.keys() == want.keys()
    for name, row in want.items():
        if row["value"] is None:
            assert got[name]["value"] is None, name
        else:
            assert got[name]["value"] == pytest.approx(row["value"], rel=1e-12, abs=1e-12), name
        assert got[name]["verdict"] == row["verdict"], name
    assert sorted(r["race"] for r in cli["tables"]["by_group"]) == COMPAS_GROUPS
    assert_close(cli["tables"]["by_group"], lib["tables"]["by_group"])
    assert_close(cli["tables"]["disparities"], lib["tables"]["disparities"])
    assert got["disparate_impact_ratio"]["value"] == pytest.approx(1.7406, abs=1e-4)


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("markdown", ["# Fairness report", "## Criteria and verdicts", "`decile_score >= 5`"]),
        ("html", ["<!DOCTYPE html>", "<h1>Fairness report</h1>", "decile_score &gt;= 5"]),
    ],
)
def test_compas_formats_to_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, expected: list[str]
) -> None:
    target = tmp_path / f"report.{fmt}"
    rc, out, err = run(capsys, "--example", "compas", "--format", fmt, "--output", str(target))
    assert rc == 0
    assert out == ""
    assert err == ""
    text = target.read_text(encoding="utf-8")
    for piece in [*expected, *COMPAS_GROUPS, "decile_score", "unfair"]:
        assert piece in text
    if fmt == "html":
        assert text.rstrip().endswith("</html>")
        if has_charts():
            assert "<svg" in text
        else:
            assert "Charts need the plot extra" in text


def test_markdown_keeps_one_row_per_criterion(capsys: pytest.CaptureFixture[str]) -> None:
    criteria = list(by_criterion(audit_json(capsys, "--example", "compas")))
    rc, out, _ = run(capsys, "--example", "compas", "--format", "markdown")
    assert rc == 0
    lines = out.splitlines()
    for name in criteria:
        assert any(line.startswith(f"| {name} ") for line in lines), name
    header = next(line for line in lines if line.startswith("| criterion"))
    assert "| verdict " in header


def test_json_to_file_equals_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    rc, out, _ = run(capsys, "--example", "compas", "--format", "json", "-o", str(target))
    assert rc == 0
    assert out == ""
    assert json.loads(target.read_text(encoding="utf-8")) == audit_json(
        capsys, "--example", "compas"
    )


# ---- files ----------------------------------------------------------------------------


_WRITERS = {
    "csv": pl.DataFrame.write_csv,
    "parquet": pl.DataFrame.write_parquet,
    "pq": pl.DataFrame.write_parquet,
    "ndjson": pl.DataFrame.write_ndjson,
    "jsonl": pl.DataFrame.write_ndjson,
    "arrow": pl.DataFrame.write_ipc,
    "ipc": pl.DataFrame.write_ipc,
    "feather": pl.DataFrame.write_ipc,
}
SCORED = [*BASE, "--y-pred", "pred", "--y-prob", "score"]


@pytest.mark.parametrize("ext", list(_WRITERS))
def test_every_format_gives_the_same_report(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, tmp_path: Path, ext: str
) -> None:
    path = tmp_path / f"data.{ext}"
    _WRITERS[ext](data, path)
    cli = audit_json(capsys, str(path), *SCORED)
    lib = library(data, y_true="label", y_pred="pred", y_prob="score", sensitive_features="race")
    assert_close(cli, lib)


def test_glob_equals_one_file(capsys: pytest.CaptureFixture[str], in_files: Path) -> None:
    args = [*BASE, "--y-pred", "pred", "--by", "model"]
    whole = audit_json(capsys, "all.parquet", *args)
    assert_close(audit_json(capsys, "data/*.parquet", *args), whole)
    parts = sorted(str(p) for p in (in_files / "data").glob("*.parquet"))
    assert len(parts) == N_PARTS
    assert_close(audit_json(capsys, *parts, *args), whole)


def test_several_files_of_mixed_formats(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, tmp_path: Path
) -> None:
    size = data.height // N_PARTS
    paths = []
    for i, ext in enumerate(["csv", "ndjson", "arrow"]):
        path = tmp_path / f"part-{i}.{ext}"
        _WRITERS[ext](data.slice(i * size, size), path)
        paths.append(str(path))
    cli = audit_json(capsys, *paths, *BASE, "--y-pred", "pred", "--sample-weight", "w")
    lib = library(data, y_true="label", y_pred="pred", sensitive_features="race", sample_weight="w")
    assert_close(cli, lib)


def test_by_model(capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path) -> None:
    cli = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "biased", "--by", "model")
    lib = library(data, y_true="label", y_pred="biased", sensitive_features="race", by="model")
    assert cli["params"]["by"] == ["model"]
    assert {r["model"] for r in cli["tables"]["summary"]} == {"m1", "m2"}
    assert {(r["model"], r["race"]) for r in cli["tables"]["by_group"]} == {
        ("m1", "A"), ("m1", "B"), ("m2", "A"), ("m2", "B"),
    }  # fmt: skip
    assert_close(cli, lib)


def test_by_model_table_output(capsys: pytest.CaptureFixture[str], in_files: Path) -> None:
    rc, out, _ = run(capsys, "all.parquet", *BASE, "--y-pred", "biased", "--by", "model")
    assert rc == 0
    assert "model" in out
    assert "m1" in out
    assert "m2" in out


def test_sample_weight(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    cli = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "pred", "--sample-weight", "w")
    lib = library(data, y_true="label", y_pred="pred", sensitive_features="race", sample_weight="w")
    assert cli["params"]["sample_weight"] == "w"
    assert_close(cli, lib)
    unweighted = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "pred")
    assert by_criterion(cli) != by_criterion(unweighted)


def test_reference_group_string(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    cli = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "biased", "--reference-group", "B")
    lib = library(
        data, y_true="label", y_pred="biased", sensitive_features="race", reference_group="B"
    )
    assert cli["params"]["reference_group"] == "B"
    assert_close(cli, lib)
    largest = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "biased")  # A is larger
    di = by_criterion(cli)["disparate_impact_ratio"]["value"]
    di_largest = by_criterion(largest)["disparate_impact_ratio"]["value"]
    assert di != pytest.approx(di_largest)


def test_reference_group_integer_coded(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    args = ["--y-true", "label", "--sensitive-features", "grp", "--y-pred", "biased"]
    cli = audit_json(capsys, "all.parquet", *args, "--reference-group", "2")
    assert cli["params"]["reference_group"] == 2  # converted to the column's dtype
    lib = library(
        data, y_true="label", y_pred="biased", sensitive_features="grp", reference_group=2
    )
    assert_close(cli, lib)
    assert {r["grp"] for r in cli["tables"]["by_group"]} == {1, 2}


def test_two_sensitive_features(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    cli = audit_json(
        capsys, "all.parquet", "--y-true", "label", "--sensitive-features", "race,sex",
        "--y-pred", "pred", "--reference-group", "A,F",
    )  # fmt: skip
    lib = library(
        data,
        y_true="label",
        y_pred="pred",
        sensitive_features=["race", "sex"],
        reference_group=("A", "F"),
    )
    assert cli["params"]["sensitive_features"] == ["race", "sex"]
    assert cli["params"]["reference_group"] == ["A", "F"]
    assert len(cli["tables"]["by_group"]) == 4
    assert_close(cli, lib)


def test_pos_label_string(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "words.parquet"
    words = data.with_columns(
        label=pl.when(pl.col("label") == 1).then(pl.lit("yes")).otherwise(pl.lit("no")),
        pred=pl.when(pl.col("pred") == 1).then(pl.lit("yes")).otherwise(pl.lit("no")),
    )
    words.write_parquet(path)
    cli = audit_json(capsys, str(path), *BASE, "--y-pred", "pred", "--pos-label", "yes")
    numeric = library(data, y_true="label", y_pred="pred", sensitive_features="race")
    assert cli["params"]["pos_label"] == "yes"
    assert_close(cli["tables"], numeric["tables"])


def _without_prob(doc: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    summary = {k: v for k, v in by_criterion(doc).items() if not k.startswith("balance_")}
    by_group = [
        {k: v for k, v in row.items() if "prob" not in k and not k.startswith("balance_")}
        for row in doc["tables"]["by_group"]
    ]
    return summary, by_group


def test_sql_prediction_equals_threshold(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    sql = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "score >= 0.5")
    thresholded = audit_json(
        capsys, "all.parquet", *BASE, "--y-prob", "score", "--threshold", "0.5"
    )
    assert any(k.startswith("balance_") for k in by_criterion(thresholded))
    assert sql["params"]["y_pred"] == "score >= 0.5"  # shown as given
    assert thresholded["params"]["y_pred"] == "score >= 0.5"
    assert thresholded["params"]["y_prob"] == "score"
    sql_summary, sql_groups = _without_prob(sql)
    thr_summary, thr_groups = _without_prob(thresholded)
    assert_close(thr_summary, sql_summary)
    assert_close(thr_groups, sql_groups)
    # and both equal the precomputed prediction column
    column = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "pred")
    assert_close(_without_prob(column)[0], sql_summary)


def test_y_prob_adds_calibration_and_roc(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    plain = audit_json(capsys, "all.parquet", *BASE, "--y-pred", "pred")
    assert set(plain["tables"]) == {"summary", "by_group", "disparities", "tradeoffs"}
    scored = audit_json(capsys, "all.parquet", *SCORED)
    assert {"calibration", "roc_auc", "roc_curve"} <= set(scored["tables"])
    assert scored["params"]["y_prob"] == "score"
    lib = library(data, y_true="label", y_pred="pred", y_prob="score", sensitive_features="race")
    assert_close(scored["tables"]["roc_auc"], lib["tables"]["roc_auc"])
    assert_close(scored["tables"]["calibration"], lib["tables"]["calibration"])
    for row in scored["tables"]["roc_auc"]:
        assert 0.5 < row["roc_auc"] < 1  # the score is informative


# ---- one file at a time, with a progress bar ------------------------------------------


def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the (captured) stderr look like a terminal, as the CLI checks at run time."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)


@pytest.mark.parametrize(
    "extra",
    [
        ["--y-pred", "pred"],
        ["--y-pred", "biased", "--by", "model", "--sample-weight", "w"],
        [
            "--y-pred",
            "score >= 0.4",
            "--sensitive-features",
            "race,sex",
            "--reference-group",
            "B,M",
        ],
        ["--y-pred", "pred", "--sensitive-features", "grp", "--reference-group", "1"],
    ],
    ids=["plain", "by-weighted", "two-features-sql", "integer-group"],
)
def test_progress_sums_reductions_file_by_file(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    in_files: Path,
    extra: list[str],
) -> None:
    args = [*BASE, *extra]
    single = audit_json(capsys, "all.parquet", *args)
    _terminal(monkeypatch)
    rc, out, err = run(capsys, "data/*.parquet", *args, "--format", "json")
    assert rc == 0
    assert f"{N_PARTS}/{N_PARTS} files" in err
    assert "\r[" in err
    assert err.endswith("\n")
    assert_close(json.loads(out), single)


def test_progress_with_scores(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, in_files: Path
) -> None:
    single = audit_json(capsys, "all.parquet", *SCORED)
    _terminal(monkeypatch)
    rc, out, err = run(capsys, "data/*.parquet", *SCORED, "--format", "json")
    assert rc == 0
    assert f"{N_PARTS}/{N_PARTS} files" in err
    per_file = json.loads(out)
    # the score histograms of the files, summed, give the same ROC curves and AUC
    # (they once came out reversed: 1 - AUC)
    assert_close(per_file["tables"]["roc_auc"], single["tables"]["roc_auc"])
    assert_close(per_file["tables"]["roc_curve"], single["tables"]["roc_curve"])
    assert_close(per_file, single)


def test_no_progress_without_terminal_or_with_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, in_files: Path
) -> None:
    args = [*BASE, "--y-pred", "pred"]
    rc, _, err = run(capsys, "data/*.parquet", *args)
    assert rc == 0
    assert err == ""  # captured stderr is not a terminal
    _terminal(monkeypatch)
    rc, _, err = run(capsys, "data/*.parquet", *args, "--no-progress")
    assert rc == 0
    assert err == ""
    rc, _, err = run(capsys, "all.parquet", *args)  # one file: one pass, no bar
    assert rc == 0
    assert err == ""


# ---- --fail-on (exit 1) ----------------------------------------------------------------


def test_fail_on_compas(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "--example", "compas", "--fail-on", "disparate_impact_ratio > 1.5")
    assert rc == 1
    assert "Rates per group" in out  # the report is still printed
    assert "fail-on" in err
    assert "disparate_impact_ratio" in err
    assert "1.741" in err
    assert len(err.strip().splitlines()) == 1


def test_fail_on_several_one_crossed(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(
        capsys, "--example", "compas",
        "--fail-on", "disparate_impact_ratio > 2",
        "--fail-on", "demographic_parity_difference >= 0.2",
        "--fail-on", "accuracy_difference < -0.5",
    )  # fmt: skip
    assert rc == 1
    assert "demographic_parity_difference" in err
    assert "disparate_impact_ratio" not in err
    assert "accuracy_difference" not in err


def test_fail_on_none_crossed(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(
        capsys, "--example", "compas",
        "--fail-on", "disparate_impact_ratio > 2",
        "--fail-on", "disparate_impact_ratio<1",
        "--fail-on", "accuracy_difference <= -0.5",
    )  # fmt: skip
    assert rc == 0
    assert err == ""  # "> 2" and "< 1" watch both sides: no one-sided warning
    assert "Rates per group" in out


def test_fail_on_names_the_batch_key(
    capsys: pytest.CaptureFixture[str], data: pl.DataFrame, in_files: Path
) -> None:
    lib = library(data, y_true="label", y_pred="biased", sensitive_features="race", by="model")
    dp = {
        model: abs(row["value"])
        for (model, criterion), row in by_criterion(lib, by="model").items()
        if criterion == "demographic_parity_difference"
    }
    worst, best = sorted(dp, key=dp.__getitem__, reverse=True)
    assert dp[worst] > dp[best] + 0.1  # model m2 favours race A
    bound = (dp[worst] + dp[best]) / 2
    rc, _, err = run(
        capsys, "all.parquet", *BASE, "--y-pred", "biased", "--by", "model", "--format", "json",
        "--fail-on", f"demographic_parity_difference > {bound}",
        "--fail-on", f"demographic_parity_difference < {-bound}",
    )  # fmt: skip
    assert rc == 1
    assert f"model={worst}" in err
    assert f"model={best}" not in err
    assert "demographic_parity_difference" in err
    assert len(err.strip().splitlines()) == 1


# ---- usage and input errors (exit 2) -----------------------------------------------------


ERRORS = [
    pytest.param(["missing.parquet", *BASE, "--y-pred", "pred"], ["file not found", "missing.parquet"], id="missing-file"),
    pytest.param(["notes.txt", *BASE, "--y-pred", "pred"], ["unknown extension", ".txt", ".parquet"], id="unknown-extension"),
    pytest.param(["nothing/*.parquet", *BASE, "--y-pred", "pred"], ["no file matches", "nothing/*.parquet"], id="glob-matches-nothing"),
    pytest.param(["all.parquet", "--y-true", "lab", "--sensitive-features", "race", "--y-pred", "pred"], ["--y-true", "'lab' not found", "label"], id="unknown-y-true"),
    pytest.param(["all.parquet", "--y-true", "label", "--sensitive-features", "rac", "--y-pred", "pred"], ["'rac' not found"], id="unknown-sensitive-feature"),
    pytest.param(["all.parquet", "--y-true", "label", "--sensitive-features", "race,gender", "--y-pred", "pred"], ["'gender' not found"], id="unknown-second-feature"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--by", "mdl"], ["'mdl' not found"], id="unknown-by"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--sample-weight", "weight"], ["--sample-weight", "'weight' not found"], id="unknown-weight"),
    pytest.param(["all.parquet", *BASE, "--y-prob", "prob", "--threshold", "0.5"], ["--y-prob", "'prob' not found"], id="unknown-y-prob"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "score >>= 0.5"], ["--y-pred", "score >>= 0.5", "SQL"], id="invalid-sql"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "scor >= 0.5"], ["--y-pred", "scor >= 0.5", "SQL"], id="sql-unknown-column"),
    pytest.param(["all.parquet", *BASE, "--threshold", "0.5"], ["--threshold needs --y-prob"], id="threshold-without-y-prob"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--y-prob", "score", "--threshold", "0.5"], ["--threshold", "--y-pred"], id="threshold-with-y-pred"),
    pytest.param(["all.parquet", *BASE, "--y-prob", "score", "--threshold", "1.5"], ["--threshold", "[0, 1]", "1.5"], id="threshold-above-1"),
    pytest.param(["all.parquet", *BASE, "--y-prob", "score", "--threshold", "-0.1"], ["--threshold", "[0, 1]"], id="threshold-below-0"),
    pytest.param(["all.parquet", *BASE, "--y-prob", "score", "--threshold", "nan"], ["--threshold", "[0, 1]"], id="threshold-nan"),
    pytest.param(["all.parquet", *BASE], ["missing the predictions"], id="no-predictions"),
    pytest.param(["all.parquet", "--sensitive-features", "race", "--y-pred", "pred"], ["missing --y-true"], id="missing-y-true"),
    pytest.param(["all.parquet", "--y-true", "label", "--y-pred", "pred"], ["missing --sensitive-features"], id="missing-sensitive-features"),
    pytest.param([*BASE, "--y-pred", "pred"], ["nothing to audit", "--example"], id="no-path-no-example"),
    pytest.param(["all.parquet", "--example", "compas"], ["PATH", "--example", "not both"], id="path-and-example"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--reference-group", "A,F"], ["'A,F' does not occur", "'A', 'B'"], id="reference-group-one-feature-whole-text"),
    pytest.param(["all.parquet", "--y-true", "label", "--sensitive-features", "race,sex", "--y-pred", "pred", "--reference-group", "A"], ["--reference-group", "1 value(s)", "2 sensitive feature"], id="reference-group-count-two-features"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--reference-group", "C"], ["'C' does not occur", "'A', 'B'"], id="reference-group-absent"),
    pytest.param(["all.parquet", "--y-true", "label", "--sensitive-features", "grp", "--y-pred", "pred", "--reference-group", "3"], ["3 does not occur", "[1, 2]"], id="integer-reference-group-absent"),
    pytest.param(["--example", "compas", "--reference-group", "Martian"], ["'Martian' does not occur"], id="compas-reference-group-absent"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--fail-on", "disparate_impact_ratio >> 1"], ["--fail-on", "CRITERION OP NUMBER"], id="fail-on-syntax"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--fail-on", "disparate_impact_ratio"], ["--fail-on", "CRITERION OP NUMBER"], id="fail-on-no-operator"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--fail-on", "disparate_impact_ratio > x"], ["--fail-on", "'x' is not a number"], id="fail-on-not-a-number"),
    pytest.param(["all.parquet", *BASE, "--y-pred", "pred", "--fail-on", "disparate_ratio > 1"], ["unknown criterion 'disparate_ratio'", "disparate_impact_ratio"], id="fail-on-unknown-criterion"),
    pytest.param(["three.parquet", *BASE, "--y-pred", "pred"], ["'label'", "two label values", "[0, 1, 2]"], id="three-label-values"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "expected"), ERRORS)
def test_usage_error(
    capsys: pytest.CaptureFixture[str], in_files: Path, args: list[str], expected: list[str]
) -> None:
    rc, out, err = run(capsys, *args)
    assert rc == 2
    assert err.startswith("polars-fair: error: ")
    for piece in expected:
        assert piece in err
    assert "Traceback" not in err
    assert out == ""  # nothing printed: every check runs before the audit


@pytest.mark.parametrize(
    ("args", "expected"),
    ERRORS,
)
def test_usage_error_has_hint(
    capsys: pytest.CaptureFixture[str], in_files: Path, args: list[str], expected: list[str]
) -> None:
    rc, _, err = run(capsys, *args)
    assert rc == 2
    assert "\nHint: " in err


@pytest.mark.parametrize("condition", ["disparate_impact_ratio >> 1", "disparate_impact_ratio > x"])
def test_bad_fail_on_is_found_before_the_audit(
    capsys: pytest.CaptureFixture[str], in_files: Path, condition: str
) -> None:
    rc, out, _ = run(capsys, "all.parquet", *BASE, "--y-pred", "pred", "--fail-on", condition)
    assert rc == 2
    assert out == ""


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["audit", "--example", "compas", "--bogus"], "unrecognized arguments: --bogus"),
        (["audit", "--example", "compas", "--format", "xml"], "invalid choice: 'xml'"),
        (["audit", "--example", "compas", "--threshold", "half"], "invalid float value"),
        (["audit", "--example", "iris"], "invalid choice: 'iris'"),
        (["report"], "invalid choice: 'report'"),
        ([], "required"),
    ],
)
def test_argparse_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert expected in err
    assert "usage: polars-fair" in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["audit", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--y-true", "--y-pred", "--fail-on", "--example", "Exit status"):
        assert flag in out


# ---- the real program (subprocess) -----------------------------------------------------


def test_program_json_exit_0(tmp_path: Path) -> None:
    proc = subprocess_audit(tmp_path, "--example", "compas", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    cli = json.loads(proc.stdout)
    lib = compas_library()
    assert_close(cli["tables"]["summary"], lib["tables"]["summary"])


def test_program_fail_on_exit_1(tmp_path: Path) -> None:
    proc = subprocess_audit(
        tmp_path, "--example", "compas", "--fail-on", "disparate_impact_ratio > 1.5"
    )
    assert proc.returncode == 1
    assert "Rates per group" in proc.stdout
    assert "disparate_impact_ratio" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_program_input_error_exit_2(in_files: Path) -> None:
    proc = subprocess_audit(in_files, "missing.parquet", *BASE, "--y-pred", "pred")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("polars-fair: error: file not found")
    assert "Hint:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_program_argparse_error_exit_2(tmp_path: Path) -> None:
    proc = subprocess_audit(tmp_path, "--example", "compas", "--bogus")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "unrecognized arguments: --bogus" in proc.stderr
