"""A comparison names the groups each side's row compares (they may differ).

Between groups a criterion compares each side's extreme pair, so a baseline and a
candidate row can compare other groups; ``compare`` returns each side's pair, and
``polars-fair compare`` lists the rows where they differ. Expected pairs are read from
each side's own summary.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_fair

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

COMPAS = Path(__file__).resolve().parent / "data" / "compas_race_sex.csv"
KW = {"y_true": "two_year_recid", "y_pred": pl.col("decile_score") >= 5,
      "sensitive_features": "race"}  # fmt: skip


OPTIONS = ["--y-true", "two_year_recid", "--y-pred", "decile_score >= 5",
           "--sensitive-features", "race"]  # fmt: skip


def _compare(*args: str) -> subprocess.CompletedProcess[str]:
    """``polars-fair compare`` with `args` and the audit's column options."""
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "compare", *args, *OPTIONS],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def _halves() -> tuple[pl.DataFrame, pl.DataFrame]:
    df = pl.read_csv(COMPAS).with_row_index("i")
    return df.filter(pl.col("i") % 2 == 0), df.filter(pl.col("i") % 2 == 1)


def test_each_side_names_its_pair() -> None:
    base, cand = _halves()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b, c = base.fair.report(**KW), cand.fair.report(**KW)
    out = c.compare(b)
    for side, report in (("baseline", b), ("candidate", c)):
        want = report.summary.select(
            "criterion",
            pl.col("group").alias(f"{side}_group"),
            pl.col("compared_with").alias(f"{side}_compared_with"),
        )
        got = out.select("criterion", f"{side}_group", f"{side}_compared_with")
        assert got.sort("criterion").equals(want.sort("criterion"))
    # on these halves some rows compare other groups (the test means something)
    differ = out.filter(pl.col("baseline_group") != pl.col("candidate_group"))
    assert differ.height > 0


def test_cli_lists_the_rows_whose_pairs_differ(tmp_path: Path) -> None:
    base, cand = _halves()
    paths = [tmp_path / "base.parquet", tmp_path / "cand.parquet"]
    base.write_parquet(paths[0])
    cand.write_parquet(paths[1])
    run = _compare(*map(str, paths))
    assert run.returncode == 0, run.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = base.fair.report(**KW).summary
        c = cand.fair.report(**KW).summary
    joined = c.join(b, on="criterion", suffix="_b")
    differ = joined.filter(
        (pl.col("group") != pl.col("group_b"))
        | (pl.col("compared_with") != pl.col("compared_with_b"))
    )
    assert differ.height > 0
    listed = run.stdout.split("The two sides compare other groups in:\n")[1].splitlines()
    want = [
        f"  {r['criterion']}: baseline {r['group_b']} against {r['compared_with_b']}, "
        f"candidate {r['group']} against {r['compared_with']}"
        for r in differ.sort("criterion").iter_rows(named=True)
    ]
    assert listed == want


def test_no_list_when_the_pairs_agree(tmp_path: Path) -> None:
    base, _ = _halves()
    path = tmp_path / "base.parquet"
    base.write_parquet(path)
    run = _compare(str(path), str(path))
    assert run.returncode == 0, run.stderr
    assert "compare other groups" not in run.stdout


@pytest.mark.parametrize("key", ["change", "ci_level", "baseline_group", "candidate_verdict"])
def test_a_batch_key_named_like_a_comparison_column_is_refused(key: str) -> None:
    base, _ = _halves()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = base.with_columns(pl.col("sex").alias(key)).fair.report(**KW, by=key)
    with pytest.raises(polars_fair.InvalidParameterError, match=f"batch key '{key}' clashes"):
        report.compare(report)


def test_cli_the_renamed_key_the_hint_gives_compares(tmp_path: Path) -> None:
    base, _ = _halves()
    path = tmp_path / "base.parquet"
    base.with_columns(pl.col("sex").alias("change")).write_parquet(path)
    clash = _compare(str(path), str(path), "--by", "change")
    assert clash.returncode == 2, clash.stderr
    assert "clashes with a column of the comparison" in clash.stderr
    assert '--by "change AS change_"' in clash.stderr
    fixed = _compare(str(path), str(path), "--by", "change AS change_")
    assert fixed.returncode == 0, fixed.stderr
    assert "change_" in fixed.stdout
