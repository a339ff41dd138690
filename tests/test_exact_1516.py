"""Acceptance pass on issues 15 (profiles) and 16 (slices): defects found and fixed.

Each test fails before its fix. Expected values are written from the definitions,
never read from the library's own output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_cli_profile_files import cli  # polars-fair in a subprocess, this checkout

import polars_fair
from polars_fair.exceptions import FileReadError
from polars_fair.sources import check_columns, read_error

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

ROOT = Path(polars_fair.__file__).resolve().parents[1]
COLUMNS = ["--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]


def _frame(n: int = 400, seed: int = 1516) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
        }
    )


@pytest.fixture
def folder_with_profile(tmp_path: Path) -> Path:
    """A day's data file beside the profile written into the same folder."""
    _frame().write_parquet(tmp_path / "day1.parquet")
    prof = _frame(seed=7).fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    prof.write_parquet(tmp_path / "profile.parquet")
    return tmp_path


# --- a profile read as a data file is named as a profile ---------------------------


def test_check_columns_names_a_profile_read_as_data(folder_with_profile: Path) -> None:
    path = folder_with_profile / "profile.parquet"
    schema = pl.read_parquet_schema(path)
    with pytest.raises(FileReadError, match="is a fairness profile") as info:
        check_columns([path], [pl.Schema(schema)], ["y", "p", "g"])
    assert "--profile" in str(info.value)


def test_read_error_names_a_profile_read_as_data(folder_with_profile: Path) -> None:
    path = folder_with_profile / "profile.parquet"
    err = read_error(path, pl.exceptions.ColumnNotFoundError("y"))
    assert "is a fairness profile" in str(err)
    plain = read_error(folder_with_profile / "day1.parquet", ValueError("broken"))
    assert "fairness profile" not in str(plain)


@pytest.mark.parametrize("command", ["audit", "profile"])
def test_cli_data_glob_picking_up_a_profile(folder_with_profile: Path, command: str) -> None:
    files = sorted(str(p) for p in folder_with_profile.glob("*.parquet"))  # the shell's glob
    out = ["-o", str(folder_with_profile / "next.parquet")] if command == "profile" else []
    proc = cli(folder_with_profile, command, *files, *COLUMNS, *out, "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert "profile.parquet' is a fairness profile" in proc.stderr
    assert "--profile" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- the command line's hint names --score-bins, not the Python keyword -------------


def test_cli_merge_hint_names_the_score_bins_option(tmp_path: Path) -> None:
    frame = _frame().with_columns(s=pl.Series(np.linspace(0.0, 1.0, 400)))
    for bins in (1000, 100):
        frame.write_parquet(tmp_path / f"d{bins}.parquet")
        args = [*COLUMNS, "--y-prob", "s", "--score-bins", str(bins), "--no-progress"]
        made = cli(tmp_path, "profile", f"d{bins}.parquet", "-o", f"p{bins}.parquet", *args)
        assert made.returncode == 0, made.stderr
    proc = cli(tmp_path, "audit", "--profile", "p*.parquet")
    assert proc.returncode == 2, proc.stderr
    assert "`score_bins`: 100 against 1000" in proc.stderr  # the difference, as stored
    hint = proc.stderr.split("Hint:")[1]
    assert "`--score-bins`" in hint
    assert "`score_bins`" not in hint


# --- a `by` expression refused by a profile is shown as an expression ---------------


def test_profile_refusing_another_by_expression_shows_both_expressions() -> None:
    frame = _frame().with_columns(t=pl.int_range(pl.len()))
    prof = frame.fair.profile(
        y_true="y", y_pred="p", sensitive_features="g", by=(pl.col("t") % 2).alias("half")
    )
    prof.report(by=(pl.col("t") % 2).alias("half"))  # its own expression: accepted
    with pytest.raises(polars_fair.exceptions.InvalidParameterError) as info:
        prof.report(by=(pl.col("t") % 3).alias("half"))
    first = str(info.value).splitlines()[0]
    assert "<Expr" not in first
    assert " at 0x" not in first
    assert "% (dyn int: 3)" in first  # the expression given
    assert "% (dyn int: 2)" in first  # the profile's


# --- the compare gate's false-alarm rate is stated per gate, not only per criterion --


def test_profiles_page_states_the_gate_rate_over_all_criteria() -> None:
    page = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    text = " ".join(page.split())
    assert "rate is **per criterion**" in text
    assert "fails when *any* criterion of any batch key is `worse`" in text
    assert "`--confidence-level 0.99`" in text


# --- the text and Markdown "Worst slices" say what was compared and how many --------


def _compas_rows() -> pl.DataFrame:
    from polars_fair.datasets import load_compas

    return load_compas().select("two_year_recid", "y_pred", "race", "sex", "age_cat")


def _section(text: str, title: str) -> str:
    return text.split(title, 1)[1]


@pytest.mark.parametrize("render", ["to_text", "to_markdown"])
def test_worst_slices_caption_names_metric_counts_and_strategy(render: str) -> None:
    rows = _compas_rows()
    cands = ["race", "sex", "age_cat"]
    report = rows.fair.report(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race", slices=cands,
        slice_metric="true_positive_rate",
    )  # fmt: skip
    tested = report.slices.height  # the report keeps one row per tested slice
    caption = getattr(report, render)().split("Worst slices", 1)[1].split("\n")
    line = next(x for x in caption if x.strip() and not x.startswith(("|", "┌", "│")))
    assert "true_positive_rate" in line
    assert f"{tested} slices tested" in line
    untested = int(report.slices["n_untested"][0])
    assert f"{untested} not tested" in line
    assert "finest" in line
    assert "q_value ≤ 0.05" in line


def test_worst_slices_caption_says_when_no_slice_was_tested() -> None:
    rows = _compas_rows().head(40)
    report = rows.fair.report(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race",
        slices=["race", "sex"],
    )  # fmt: skip
    assert report.slices.height == 0
    text = _section(report.to_text(), "Worst slices")
    assert "no slice tested" in text.splitlines()[1]
    assert "30 rows" in text.splitlines()[1]


def test_worst_slices_html_caption_states_counts_and_strategy() -> None:
    rows = _compas_rows()
    report = rows.fair.report(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race",
        slices=["race", "sex", "age_cat"],
    )  # fmt: skip
    page = report.to_html()
    section = page.split("Worst slices", 1)[1]
    assert f"{report.slices.height} slices tested" in section
    assert f"{int(report.slices['n_untested'][0])} not tested" in section
    assert "strategy finest" in section


# --- one profile object merged twice would count its rows twice ---------------------


def test_merging_one_profile_object_twice_is_refused() -> None:
    frame = _frame()
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    first, second = frame[:200].fair.profile(**kw), frame[200:].fair.profile(**kw)
    with pytest.raises(polars_fair.exceptions.ProfileError, match="profiles 0 and 1 are the same"):
        first + first  # noqa: B018
    with pytest.raises(polars_fair.exceptions.ProfileError, match="profiles 0 and 2 are the same"):
        polars_fair.merge_profiles([first, second, first])
    whole = polars_fair.merge_profiles([first, second])  # disjoint pieces: fine
    counts = frame.group_by("g").len().sort("g")["len"].to_list()  # rows per group
    assert whole.tables["stats"].sort("g")["n"].to_list() == counts


# --- the 2-SD rule's z grows with the rows: compare judges it per sqrt(rows) --------


def _two_sd_z(frame: pl.DataFrame) -> float:
    """The 2-SD rule's z from its definition (African-American against Caucasian)."""
    sel = frame["y_pred"].to_numpy().astype(bool)
    aa = (frame["race"] == "African-American").to_numpy()
    n, p_g = len(sel), aa.mean()
    diff = sel[aa].mean() - sel[~aa].mean()
    total = sel.mean()
    return float(diff / np.sqrt(total * (1 - total) / (n * p_g * (1 - p_g))))


def test_compare_judges_the_two_sd_rule_per_square_root_of_rows() -> None:
    rows = _compas_rows().filter(pl.col("race").is_in(["African-American", "Caucasian"]))
    bigger = pl.concat([rows] * 4)  # the same rates on four times the rows
    kw = {"y_true": "two_year_recid", "y_pred": "y_pred", "sensitive_features": "race"}
    base, cand = rows.fair.profile(**kw), bigger.fair.profile(**kw)
    changes = cand.compare(base, reference_group="Caucasian")
    z = changes.filter(pl.col("criterion") == "two_sd_rule").row(0, named=True)
    assert z["baseline"] == pytest.approx(_two_sd_z(rows), rel=1e-9)
    assert z["candidate"] == pytest.approx(2 * _two_sd_z(rows), rel=1e-9)  # sqrt(4)
    assert abs(z["distance_change"]) < 1e-12  # no change in fairness
    assert z["verdict"] != "worse"
    # the effect sizes did not move either
    dp = changes.filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    assert dp["change"] == pytest.approx(0.0, abs=1e-12)
    assert dp["verdict"] != "worse"


def test_trend_judges_the_two_sd_rule_per_square_root_of_rows() -> None:
    rows = _compas_rows().filter(pl.col("race").is_in(["African-American", "Caucasian"]))
    windows = pl.concat(
        [rows.with_columns(week=pl.lit(1)), *[rows.with_columns(week=pl.lit(2))] * 4]
    )
    prof = windows.fair.profile(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race", by="week"
    )
    trend = prof.trend("two_sd_rule", time="week", reference_group="Caucasian")
    later = trend.filter(pl.col("week") == 2).row(0, named=True)
    assert later["value"] == pytest.approx(2 * _two_sd_z(rows), rel=1e-9)
    assert later["change_verdict"] != "worse"
