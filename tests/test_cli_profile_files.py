"""``profile`` and ``compare`` (and ``audit``) on files a careless user passes.

Real subprocess runs with their exit codes, on COMPAS (``tests/data``):

* a CSV with a header and no rows, or with blank lines after the header (which
  Polars reads as rows of nulls, every column a String: it was reported as a
  String label column), is refused naming the file, exit 2;
* when every file is empty the message names them;
* ``-o`` into a missing directory (or onto a directory) is refused before any data
  is read: the data given is unreadable, and the error is the one about ``-o``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from test_hardening_files import assert_input_error

ROOT = Path(__file__).resolve().parents[1]
COMPAS = ROOT / "tests" / "data" / "compas_race_sex.csv"
COLS = ("--y-true", "two_year_recid", "--y-pred", "decile_score >= 5",
        "--sensitive-features", "race")  # fmt: skip


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``polars-fair`` with this checkout's package, in `cwd`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120, check=False,
    )  # fmt: skip


def _header() -> str:
    return COMPAS.read_text(encoding="utf-8").splitlines()[0]


def _command(command: str, path: str, out: Path) -> list[str]:
    """`command` on the data file `path` (compare: against COMPAS itself)."""
    if command == "profile":
        return ["profile", path, "-o", str(out), *COLS, "--no-progress"]
    if command == "compare":
        return ["compare", str(COMPAS), path, *COLS, "--no-progress"]
    return ["audit", path, *COLS]


COMMANDS = ["profile", "compare", "audit"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("after", "lines"), [("\n", 0), ("\n\n", 1), ("\n\n\n", 2), ("\r\n,,,,,\r\n", 1)]
)
def test_header_only_csv_is_named(tmp_path: Path, command: str, after: str, lines: int) -> None:
    (tmp_path / "header.csv").write_text(_header() + after, encoding="utf-8")
    proc = cli(tmp_path, *_command(command, "header.csv", tmp_path / "p.parquet"))
    assert_input_error(proc, "'header.csv' has a header and no rows: nothing to audit")
    if lines:  # blank lines, which Polars reads as rows of nulls
        assert f"(the {lines} line(s) after the header hold no value)" in proc.stderr
    assert "dtype String" not in proc.stderr
    assert not (tmp_path / "p.parquet").exists()


def test_empty_lines_beyond_the_inference_window(tmp_path: Path) -> None:
    # more empty rows than the types are inferred from: no type can be inferred
    (tmp_path / "late.csv").write_text(_header() + "\n" + ",,,,,\n" * 150, encoding="utf-8")
    proc = cli(tmp_path, *_command("profile", "late.csv", tmp_path / "p.parquet"))
    assert_input_error(
        proc, "'late.csv' has no value in its first 100 rows (empty lines)",
        "Hint: remove the empty lines, or raise --infer-schema-length",
    )  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_every_file_empty_names_them(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "days"
    folder.mkdir()
    for name in ("a.csv", "b.csv"):
        (folder / name).write_text(_header() + "\n\n", encoding="utf-8")
    proc = cli(tmp_path, *_command(command, "days/*.csv", tmp_path / "p.parquet"))
    assert_input_error(proc, "every file is empty (2 given): 'days/a.csv', 'days/b.csv'")


@pytest.mark.parametrize("command", COMMANDS)
def test_header_only_csv_among_others_is_left_out(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "days"
    folder.mkdir()
    pl.read_csv(COMPAS).write_csv(folder / "a.csv")
    (folder / "b.csv").write_text(_header() + "\n\n", encoding="utf-8")
    proc = cli(tmp_path, *_command(command, "days/*.csv", tmp_path / "p.parquet"))
    assert proc.returncode == 0, proc.stderr
    assert "polars-fair: note: left out 'days/b.csv' has a header and no rows" in proc.stderr


# ---- -o is checked before any data is read ---------------------------------------------------


def _unreadable(folder: Path) -> str:
    (folder / "broken.parquet").write_bytes(b"PAR1 this is not a parquet file")
    return "broken.parquet"


@pytest.mark.parametrize(
    ("command", "example"),
    [("profile", "profile.parquet"), ("compare", "comparison.txt"), ("audit", "report.html")],
)
def test_output_into_a_missing_directory_is_checked_first(
    tmp_path: Path, command: str, example: str
) -> None:
    data = _unreadable(tmp_path)
    sides = {"profile": [data], "compare": [data, data], "audit": [data]}[command]
    for output, words in [
        ("nodir/out.file", ("--output 'nodir/out.file': the directory 'nodir' does not exist",
                            "Hint: create it first (mkdir -p 'nodir') or write elsewhere")),
        (".", ("--output '.' is a directory", f"Hint: give a file name, e.g. '{example}'")),
    ]:  # fmt: skip
        proc = cli(tmp_path, command, *sides, *COLS, "-o", output)
        assert_input_error(proc, *words)
        assert "broken.parquet" not in proc.stderr  # nothing was read
    assert not (tmp_path / "nodir").exists()


def test_audit_profile_output_is_checked_before_reading_profiles(tmp_path: Path) -> None:
    data = _unreadable(tmp_path)
    proc = cli(tmp_path, "audit", "--profile", data, "-o", "nodir/report.txt")
    assert_input_error(proc, "--output 'nodir/report.txt': the directory 'nodir' does not exist")
    assert "broken.parquet" not in proc.stderr
