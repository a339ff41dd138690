"""Files on the command line (issue 14, class 6): every read error names the file.

Each case runs the real program (``python -m polars_fair audit``) in a subprocess
and checks its exit status, its streams and its message: a corrupt Parquet file,
a 0-byte CSV, malformed NDJSON (in the rows read for the schema and after them, in
one file and in the second of two), a directory, a header-only CSV, a value that
does not parse (``N/A`` on row 252) and its command-line fixes, a file lacking a
column the audit reads, files whose columns hold different kinds of values, and
``-o`` into a directory that does not exist (refused before the audit runs).
The mechanism: every file's schema is read (no data pass) and checked against the
columns the audit needs before anything runs, and every read goes through
:mod:`polars_fair.sources`, which names the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair.exceptions import EmptyDataError, FileReadError
from polars_fair.sources import check_path, file_schema, read_error, scan_file

ROOT = Path(polars_fair.__file__).resolve().parents[1]
AUDIT = ["--y-true", "label", "--y-pred", "pred", "--sensitive-features", "group"]


def audit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``polars-fair audit`` with this checkout's package, in `cwd`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "audit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def assert_input_error(proc: subprocess.CompletedProcess[str], *pieces: str) -> None:
    """Exit 2, nothing on stdout, one error line with a hint, no traceback."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("polars-fair: error: "), proc.stderr
    assert "\nHint: " in proc.stderr
    assert "Traceback" not in proc.stderr
    for piece in pieces:
        assert piece in proc.stderr, (piece, proc.stderr)


def make_frame(n: int = 600, seed: int = 14) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "group": rng.choice(["a", "b"], n),
            "label": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
        }
    )


@pytest.fixture
def frame() -> pl.DataFrame:
    return make_frame()


# ---- corrupt and empty files ----------------------------------------------------------


def test_corrupt_parquet_names_the_file(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_parquet(tmp_path / "good.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 this is not a parquet file")
    proc = audit(tmp_path, "good.parquet", "broken.parquet", *AUDIT)
    assert_input_error(proc, "cannot read 'broken.parquet'", "parquet")
    assert "good.parquet" not in proc.stderr


def test_truncated_parquet_names_the_file(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_parquet(tmp_path / "whole.parquet")
    data = (tmp_path / "whole.parquet").read_bytes()
    (tmp_path / "cut.parquet").write_bytes(data[: len(data) // 2])
    proc = audit(tmp_path, "cut.parquet", *AUDIT)
    assert_input_error(proc, "cannot read 'cut.parquet'")


def test_zero_byte_csv(tmp_path: Path) -> None:
    (tmp_path / "empty.csv").write_bytes(b"")
    proc = audit(tmp_path, "empty.csv", *AUDIT)
    assert_input_error(proc, "'empty.csv'", "empty (0 bytes)")


def test_header_only_csv_is_empty_input(tmp_path: Path) -> None:
    (tmp_path / "header.csv").write_text("group,label,pred\n", encoding="utf-8")
    proc = audit(tmp_path, "header.csv", *AUDIT)
    assert_input_error(proc, "'header.csv' has a header and no rows")
    assert "String" not in proc.stderr
    assert "label values" not in proc.stderr


def test_header_only_csv_among_others_is_left_out(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_csv(tmp_path / "day1.csv")
    (tmp_path / "day2.csv").write_text("group,label,pred\n", encoding="utf-8")
    both = audit(tmp_path, "day1.csv", "day2.csv", *AUDIT, "--format", "json")
    alone = audit(tmp_path, "day1.csv", *AUDIT, "--format", "json")
    assert both.returncode == 0, both.stderr
    assert "polars-fair: note: left out 'day2.csv' has a header and no rows" in both.stderr
    assert json.loads(both.stdout)["tables"] == json.loads(alone.stdout)["tables"]
    # the counts are those of the data itself
    by_group = json.loads(both.stdout)["tables"]["by_group"]
    expected = frame.group_by("group").len().sort("group")
    assert [(r["group"], r["n"]) for r in by_group] == expected.rows()


def test_every_file_empty(tmp_path: Path) -> None:
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("group,label,pred\n", encoding="utf-8")
    proc = audit(tmp_path, "a.csv", "b.csv", *AUDIT)
    assert_input_error(proc, "every file is empty (2 given)")


def _ndjson(frame: pl.DataFrame, bad_line: int) -> str:
    lines = [json.dumps(row) for row in frame.iter_rows(named=True)]
    lines[bad_line] = '{"group": "a", label: 1}'
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("bad_line", [3, 500], ids=["in-schema-rows", "after-schema-rows"])
def test_malformed_ndjson_names_the_file(
    tmp_path: Path, frame: pl.DataFrame, bad_line: int
) -> None:
    (tmp_path / "preds.ndjson").write_text(_ndjson(frame, bad_line), encoding="utf-8")
    proc = audit(tmp_path, "preds.ndjson", *AUDIT)
    assert_input_error(proc, "cannot read 'preds.ndjson'")


def test_malformed_second_ndjson_is_found(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_ndjson(tmp_path / "first.ndjson")
    (tmp_path / "second.ndjson").write_text(_ndjson(frame, 500), encoding="utf-8")
    proc = audit(tmp_path, "first.ndjson", "second.ndjson", *AUDIT)
    assert_input_error(proc, "cannot read 'second.ndjson'")
    assert "first.ndjson" not in proc.stderr


# ---- paths -----------------------------------------------------------------------------


def test_directory_suggests_a_glob(tmp_path: Path, frame: pl.DataFrame) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(3):
        frame.slice(200 * i, 200).write_parquet(folder / f"part-{i}.parquet")
    proc = audit(tmp_path, "parts", *AUDIT)
    assert_input_error(proc, "'parts' is a directory, not a file", "'parts/*.parquet'")
    assert "not found" not in proc.stderr
    # the suggested glob works, and reads every row
    fixed = audit(tmp_path, "parts/*.parquet", *AUDIT, "--format", "json")
    assert fixed.returncode == 0, fixed.stderr
    n = sum(r["n"] for r in json.loads(fixed.stdout)["tables"]["by_group"])
    assert n == frame.height


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    proc = audit(tmp_path, "nowhere.parquet", *AUDIT)
    assert_input_error(proc, "file not found: 'nowhere.parquet'")


# ---- a value that does not parse -----------------------------------------------------------


@pytest.fixture
def na_csv(tmp_path: Path, frame: pl.DataFrame) -> Path:
    """The frame as CSV with the label of row 252 written as N/A."""
    lines = frame.write_csv().splitlines()
    cells = lines[1 + 252].split(",")
    cells[1] = "N/A"
    lines[1 + 252] = ",".join(cells)
    (tmp_path / "labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_na_label_names_file_column_value_and_fix(na_csv: Path) -> None:
    proc = audit(na_csv, "labels.csv", *AUDIT)
    assert_input_error(
        proc, "cannot read 'labels.csv'", "column 'label'", "'N/A'", "--null-values",
        "--infer-schema-length",
    )  # fmt: skip
    assert "ignore_errors" not in proc.stderr  # no Python-only advice


def test_null_values_reads_na_as_missing(na_csv: Path, frame: pl.DataFrame) -> None:
    proc = audit(na_csv, "labels.csv", *AUDIT, "--null-values", "N/A", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "polars-fair: warning: 1 row(s) with a null label" in proc.stderr
    by_group = json.loads(proc.stdout)["tables"]["by_group"]
    kept = frame.with_row_index().filter(pl.col("index") != 252)
    dropped_group = frame.item(252, "group")
    for row in by_group:
        rows = kept.filter(pl.col("group") == row["group"])
        assert row["n"] == rows.height
        assert row["n_null"] == (1 if row["group"] == dropped_group else 0)
        tp = rows.filter((pl.col("label") == 1) & (pl.col("pred") == 1)).height
        assert row["tp"] == tp


def test_infer_schema_length_reads_every_row(na_csv: Path) -> None:
    # every row read: the label column is text (N/A is not a number), which the
    # label check refuses, naming the column and its dtype
    proc = audit(na_csv, "labels.csv", *AUDIT, "--infer-schema-length", "0")
    assert_input_error(proc, "'label'", "String")
    bad = audit(na_csv, "labels.csv", *AUDIT, "--infer-schema-length", "-1")
    assert_input_error(bad, "--infer-schema-length must be >= 0")


# ---- columns across files ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dropped", "args"),
    [
        ("pred", AUDIT),
        ("group", AUDIT),
        ("label", AUDIT),
        (
            "score",
            ["--y-true", "label", "--y-pred", "score >= 0.5", "--sensitive-features", "group"],
        ),
    ],
    ids=["y-pred", "sensitive", "y-true", "sql-expression-column"],
)
def test_second_file_lacking_a_column(
    tmp_path: Path, frame: pl.DataFrame, dropped: str, args: list[str]
) -> None:
    full = frame.with_columns(score=pl.col("pred").cast(pl.Float64))
    full.write_parquet(tmp_path / "one.parquet")
    full.drop(dropped).write_parquet(tmp_path / "two.parquet")
    proc = audit(tmp_path, "one.parquet", "two.parquet", *args)
    assert_input_error(proc, f"'two.parquet' has no column {dropped!r}")


def test_columns_of_different_kinds(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_parquet(tmp_path / "ints.parquet")
    words = frame.with_columns(pl.col("label").replace_strict({0: "no", 1: "yes"}))
    words.write_parquet(tmp_path / "words.parquet")
    proc = audit(tmp_path, "ints.parquet", "words.parquet", *AUDIT)
    assert_input_error(proc, "column 'label'", "'words.parquet'", "'ints.parquet'")


# ---- the output ------------------------------------------------------------------------------


def test_output_into_missing_directory_fails_first(tmp_path: Path) -> None:
    # the data is corrupt too: the output is checked before any file is read
    (tmp_path / "broken.parquet").write_bytes(b"not parquet")
    proc = audit(tmp_path, "broken.parquet", *AUDIT, "-o", "out/report.html")
    assert_input_error(proc, "--output 'out/report.html'", "'out' does not exist", "mkdir")
    assert not (tmp_path / "out").exists()


def test_output_is_a_directory(tmp_path: Path, frame: pl.DataFrame) -> None:
    frame.write_parquet(tmp_path / "p.parquet")
    (tmp_path / "out").mkdir()
    proc = audit(tmp_path, "p.parquet", *AUDIT, "-o", "out")
    assert_input_error(proc, "--output 'out' is a directory")


# ---- the library functions behind it ------------------------------------------------------------


def test_read_error_and_file_schema(tmp_path: Path, frame: pl.DataFrame) -> None:
    (tmp_path / "e.csv").write_bytes(b"")
    with pytest.raises(EmptyDataError, match="'.*e.csv': the file is empty"):
        file_schema(tmp_path / "e.csv")
    with pytest.raises(FileReadError, match="is a directory"):
        check_path(tmp_path)
    frame.write_csv(tmp_path / "f.csv")
    assert file_schema(tmp_path / "f.csv") == frame.schema
    err = read_error("x.csv", ValueError("could not parse `?` as dtype `i64` at column 'y'"))
    assert "column 'y' holds '?'" in str(err)
    assert isinstance(err, FileReadError)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_scan_file_null_values(na_csv: Path, frame: pl.DataFrame, engine: str) -> None:
    got = scan_file(na_csv / "labels.csv", null_values=["N/A"]).collect(engine=engine)  # type: ignore[call-overload]
    assert got.get_column("label").null_count() == 1
    assert got.get_column("label").drop_nulls().sum() == (
        frame.with_row_index().filter(pl.col("index") != 252).get_column("label").sum()
    )
