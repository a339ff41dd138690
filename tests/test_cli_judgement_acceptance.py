"""Acceptance of the command line's judgement options: defects found using them.

COMPAS (the bundled example file), race, against Caucasian defendants.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from sklearn.metrics import roc_auc_score

import polars_fair as pf
from polars_fair.io.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

COMPAS = Path(pf.__file__).parent / "data" / "compas.parquet"
SIDE_COLUMNS = ["--y-true", "two_year_recid", "--y-pred", "p", "--sensitive-features", "race"]
#: Long names: a wrapped cell would split them over two lines.
CRITERIA = (
    "equal_opportunity_difference,conditional_use_accuracy_difference,predictive_parity_ratio"
)


def test_compare_markdown_is_one_line_per_row_and_states_the_level(
    sides: tuple[Path, Path], tmp_path: Path
) -> None:
    # the Markdown table wrapped its cells over several lines (a broken table), and
    # did not state the level of the interval its verdicts judge, as the text does
    base, cand = (str(p) for p in sides)
    args = ["compare", base, cand, *SIDE_COLUMNS, "--no-progress", "--criteria", CRITERIA,
            "--reference-group", "Caucasian", "--confidence-level", "0.99"]  # fmt: skip
    out_json, out_md = tmp_path / "cmp.json", tmp_path / "cmp.md"
    assert main([*args, "--format", "json", "--output", str(out_json)]) == 0
    assert main([*args, "--format", "markdown", "--output", str(out_md)]) == 0
    rows = json.loads(out_json.read_text())
    text = out_md.read_text()
    assert "with its 99% interval excluding 0" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    header, rule, *body = table
    assert set(rule) <= {"|", "-", ":"}
    assert len(body) == len(rows)  # one line per row: no cell wrapped
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in body]
    names = header.strip("|").split("|")
    assert all(len(row) == len(names) for row in cells)
    assert sorted(row[0] for row in cells) == sorted(r["criterion"] for r in rows)


def test_frequency_weights_reach_the_auc_rows(tmp_path: Path) -> None:
    # --frequency-weights is not ignored by the AUC rows: the weights are row counts,
    # so the interval is the replicated rows' DeLong interval
    frame = pl.read_parquet(COMPAS).with_columns(w=pl.col("id") % 3 + 1)
    data = tmp_path / "weighted.parquet"
    frame.write_parquet(data)
    args = [
        "audit",
        str(data),
        "--y-true",
        "two_year_recid",
        "--y-prob",
        "y_prob",
        "--y-pred",
        "y_pred",
        "--sensitive-features",
        "race",
        "--sample-weight",
        "w",
        "--criteria",
        "roc_auc_difference,roc_auc_ratio",
        "--no-progress",
        "--min-group-size",
        "0",
    ]  # fmt: skip  (the same groups under either size)
    out = tmp_path / "report.json"
    assert main([*args, "--format", "json", "--output", str(out)]) == 0
    sampling = json.loads(out.read_text())["tables"]["summary"]
    assert main([*args, "--frequency-weights", "--format", "json", "--output", str(out)]) == 0
    counted = json.loads(out.read_text())["tables"]["summary"]
    replicated = tmp_path / "replicated.parquet"
    frame.select(pl.all().repeat_by("w").explode()).write_parquet(replicated)
    args[1] = str(replicated)
    assert main([*args[:10], *args[12:], "--format", "json", "--output", str(out)]) == 0
    rows = json.loads(out.read_text())["tables"]["summary"]
    for got, want in zip(counted, rows, strict=True):
        for key in ("value", "ci_low", "ci_high"):
            assert got[key] == pytest.approx(want[key], rel=1e-9)
    # sampling weights (Kish sizes): the same values, wider intervals
    for kish, counts in zip(sampling, counted, strict=True):
        assert kish["value"] == pytest.approx(counts["value"], rel=1e-12)
        assert kish["ci_high"] - kish["ci_low"] > counts["ci_high"] - counts["ci_low"]


@pytest.mark.parametrize(
    "criteria", ["roc_auc_difference,demographic_parity_difference", "roc_auc_ratio", None]
)
def test_an_audit_with_scores_reads_the_file_once(
    criteria: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # with a score the command read the file once per reduction (statistics,
    # calibration, ROC table: 4 reads), where `report()` reads it once
    from test_profile import Source  # noqa: PLC0415 (the counting IO source)

    from polars_fair.io import cli  # noqa: PLC0415

    frame = pl.read_parquet(COMPAS)
    sources: list[Source] = []

    def scan(path: Path, **_: object) -> pl.LazyFrame:
        sources.append(Source(pl.read_parquet(path)))
        return sources[-1].lazy()

    monkeypatch.setattr(cli, "scan_file", scan)
    out = tmp_path / "report.json"
    args = ["audit", str(COMPAS), "--y-true", "two_year_recid", "--y-pred", "y_pred",
            "--y-prob", "y_prob", "--sensitive-features", "race", "--no-progress",
            *(["--criteria", criteria] if criteria else []),
            "--format", "json", "--output", str(out)]  # fmt: skip
    assert main(args) == 0
    assert [s.calls for s in sources] == [1]
    got = dict((r["race"], r["roc_auc"]) for r in json.loads(out.read_text())["tables"]["roc_auc"])
    for race, part in frame.group_by("race"):
        if part["two_year_recid"].n_unique() == 2:
            want = roc_auc_score(part["two_year_recid"], part["y_prob"])
            assert got[race[0]] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_between_groups_with_a_reference_group_says_between_groups(
    fmt: str, tmp_path: Path
) -> None:
    # `--method between_groups` beside `--reference-group` (which the disparities use)
    # compares the extreme groups, but every output said "signed against the reference
    # group Caucasian (group - reference, group / reference)"
    out = tmp_path / f"report.{fmt}"
    args = ["audit", str(COMPAS), "--y-true", "two_year_recid", "--y-pred", "y_pred",
            "--sensitive-features", "race", "--no-progress", "--reference-group", "Caucasian",
            "--criteria", "demographic_parity_difference"]  # fmt: skip
    assert main([*args, "--method", "between_groups", "--format", fmt, "-o", str(out)]) == 0
    text = out.read_text()
    assert "orientation: between groups (max - min, min / max)" in text
    assert "signed against" not in text
    assert main([*args, "--method", "between_groups", "--format", "json", "-o", str(out)]) == 0
    value = json.loads(out.read_text())["tables"]["summary"][0]["value"]
    frame = pl.read_parquet(COMPAS)
    rates = [
        part["y_pred"].cast(pl.Float64).mean()
        for _, part in frame.group_by("race")
        if part.height >= 30  # min_group_size
    ]
    assert value == pytest.approx(max(rates) - min(rates), rel=1e-12)  # type: ignore[operator]


def test_to_reference_without_a_reference_group_names_the_largest(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    args = ["audit", str(COMPAS), "--y-true", "two_year_recid", "--y-pred", "y_pred",
            "--sensitive-features", "race", "--no-progress", "--method", "to_reference",
            "--criteria", "demographic_parity_difference", "-o", str(out)]  # fmt: skip
    assert main(args) == 0
    assert "orientation: signed against the largest group (group - reference" in out.read_text()


@pytest.mark.parametrize("method", ["bogus", "to_ref", ""])
def test_a_bad_method_hints_the_option_not_the_keyword(
    method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the hint said "(or 'to_reference' with `reference_group`)", the Python keyword
    assert main(["audit", "--example", "compas", "--method", method]) == 2
    err = capsys.readouterr().err
    hint = err.split("Hint:", 1)[1]
    assert "`--reference-group`" in hint
    assert "`reference_group`" not in hint
