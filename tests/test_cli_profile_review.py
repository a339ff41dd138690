"""Review of the profile commands: files given twice, CSV options, options a profile fixes.

* a data file given twice (the same path, overlapping globs, one file spelled two ways
  or reached through a link) is refused by ``profile``, ``audit`` and ``compare``
  (exit status 2, naming the file), as ``read_profile`` refuses a profile given twice;
* ``profile`` and ``compare`` accept audit's CSV options ``--null-values`` and
  ``--infer-schema-length``, which their read errors tell the user to pass;
* ``audit --profile`` refuses every column or reading option (exit status 2, naming
  it), and ``compare`` of two profiles refuses them too.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import polars as pl
import pytest

import polars_fair as pf
from polars_fair.io import cli_profile
from polars_fair.io.cli import _parser, main

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

COLS = ["--y-true", "y", "--y-pred", "p", "--sensitive-features", "g", "--no-progress"]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/data/a.csv`` (40 rows), the working directory being `tmp_path`."""
    folder = tmp_path / "data"
    folder.mkdir()
    df = pl.DataFrame({"g": ["a", "b"] * 20, "y": [1, 0, 1, 1] * 10, "p": [1, 1, 0, 1] * 10})
    df.write_csv(folder / "a.csv")
    monkeypatch.chdir(tmp_path)
    return folder


TWICE = {
    "same path": ["data/a.csv", "data/a.csv"],
    "overlapping glob": ["data/a*.csv", "data/a.csv"],
    "two spellings": ["data/a.csv", "./data/../data/a.csv"],
}


@pytest.mark.parametrize("paths", TWICE.values(), ids=TWICE.keys())
@pytest.mark.parametrize("command", ["profile", "audit"])
def test_a_file_given_twice_is_refused(
    data: Path, capsys: pytest.CaptureFixture[str], command: str, paths: list[str]
) -> None:
    out = ["-o", "p.parquet"] if command == "profile" else ["-o", os.devnull]
    assert main([command, *paths, *out, *COLS]) == 2
    err = capsys.readouterr().err
    assert f"'{paths[-1]}' is given twice" in err
    assert "Hint: give each file once" in err
    assert not Path("p.parquet").exists()


def test_a_file_reached_twice_through_a_link_is_refused_by_compare(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "b.csv").symlink_to(data / "a.csv")
    assert main(["compare", "data/a.csv", "data/*.csv", *COLS]) == 2
    assert "'data/b.csv' is given twice (as 'data/a.csv' too)" in capsys.readouterr().err


def test_distinct_files_are_all_counted(data: Path) -> None:
    (data / "b.csv").write_bytes((data / "a.csv").read_bytes())  # a copy is another file
    assert main(["profile", "data/*.csv", "-o", "p.parquet", *COLS]) == 0
    assert pf.read_profile("p.parquet").rows == 80


# ---- CSV options of profile and compare -------------------------------------------------


def _late(folder: Path) -> None:
    """``late_na.csv``: an ``NA`` label; ``late_float.csv``: a float score, both at row 150."""
    n = 200
    labels = [str(i % 2) for i in range(n)]
    labels[150] = "NA"
    scores = [str(i % 2) for i in range(n)]
    scores[150] = "0.7"
    g = ["a", "b"] * (n // 2)
    pl.DataFrame({"g": g, "y": labels, "p": [1] * n}).write_csv(folder / "late_na.csv")
    pl.DataFrame({"g": g, "y": [1] * n, "s": scores}).write_csv(folder / "late_float.csv")


def test_profile_reads_csv_with_the_options_its_errors_suggest(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _late(data)
    assert main(["profile", "data/late_na.csv", "-o", "p.parquet", *COLS]) == 2
    assert "--null-values 'NA'" in capsys.readouterr().err  # the hint
    argv = ["profile", "data/late_na.csv", "-o", "p.parquet", *COLS, "--null-values", "NA"]
    assert main(argv) == 0
    assert pf.read_profile("p.parquet").tables["stats"]["n_null"].sum() == 1
    scored = ["--y-true", "y", "--y-pred", "s >= 0.5", "--sensitive-features", "g"]
    argv = ["profile", "data/late_float.csv", "-o", "q.parquet", *scored, "--no-progress"]
    assert main(argv) == 2
    assert "--infer-schema-length 0" in capsys.readouterr().err
    assert main([*argv, "--infer-schema-length", "0"]) == 0
    assert main([*argv, "--infer-schema-length", "-1"]) == 2
    assert "--infer-schema-length must be >= 0, got -1" in capsys.readouterr().err


def test_compare_reads_csv_with_null_values(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _late(data)
    argv = ["compare", "data/late_na.csv", "data/late_na.csv", *COLS, "-o", os.devnull]
    assert main(argv) == 2
    assert "--null-values 'NA'" in capsys.readouterr().err
    assert main([*argv, "--null-values", "NA"]) == 0


@pytest.mark.parametrize("command", ["profile", "compare"])
def test_csv_options_have_audits_help(command: str) -> None:
    def helps(name: str) -> dict[str, str | None]:
        sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
        return {a.dest: a.help for a in parser._actions}

    audit, other = helps("audit"), helps(command)
    for dest in ("null_values", "infer_schema_length"):
        assert other[dest] == audit[dest]


# ---- options a profile fixes ------------------------------------------------------------

FIXED = [
    ["--sensitive-feature", "g"],
    ["--sensitive-features", "g"],
    ["--pos-label-pred", "0"],
    ["--pos-label", "0"],
    ["--null-values", "NA"],
    ["--infer-schema-length", "0"],
    ["--infer-schema-length", "1000"],
    ["--threshold", "0"],
]


@pytest.fixture
def prof(data: Path) -> Path:
    assert main(["profile", "data/a.csv", "-o", "p.parquet", *COLS]) == 0
    return data.parent / "p.parquet"


@pytest.mark.parametrize("option", FIXED, ids=[o[0] + "=" + o[1] for o in FIXED])
def test_audit_profile_refuses_every_option_a_profile_fixes(
    prof: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    assert main(["audit", "--profile", str(prof), *option, "-o", os.devnull]) == 2
    err = capsys.readouterr().err
    assert f"{option[0]} cannot be combined with --profile" in err


@pytest.mark.parametrize("option", [["--null-values", "NA"], ["--infer-schema-length", "0"]])
def test_compare_of_two_profiles_refuses_reading_options(
    prof: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    assert main(["compare", str(prof), str(prof), *option]) == 2
    assert f"{option[0]} cannot be combined with two profiles" in capsys.readouterr().err


def test_audit_profile_without_fixed_options_runs(prof: Path) -> None:
    assert main(["audit", "--profile", str(prof), "--min-group-size", "0", "-o", os.devnull]) == 0


def test_every_profiling_option_is_one_a_profile_fixes() -> None:
    """A new column or reading option of ``profile`` is refused with a profile too."""
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    own = {"help", "paths", "output", "no_progress"}
    dests = {a.dest for a in sub.choices["profile"]._actions} - own
    assert dests <= set(cli_profile._PROFILE_FIXES)
