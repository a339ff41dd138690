"""Review 12: defects found in the family-wise gate, the group columns of compare and
``--by`` SQL keys on the command line (each test failed before its fix).

* ``audit --profile P --by K`` on a profile written before the ``by`` expressions were
  kept (no ``by_items``) crashed with a raw ``ValueError`` (exit status 1, the gate's
  failure) instead of accepting the profile's own key by name.
* ``compare --familywise`` with no row that can be judged (one group on each side)
  said "Bonferroni over the 1 row judged".
* ``audit --profile P --by month,month`` (or ``--by month --by-key month``) was read
  as the key once, where ``audit FILES --by sex,sex`` is refused (exit 2).
* A batch key given as SQL and named like a column of the comparison got the hint
  ``--by "change AS change_"``, which names a column the files lack.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.io.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

DATA = Path(__file__).parent / "data" / "compas_race_sex.csv"
COLS = ["--y-true", "two_year_recid", "--y-pred", "decile_score >= 5",
        "--sensitive-features", "race"]  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def rows() -> pl.DataFrame:
    return pl.read_csv(DATA).with_columns(month=pl.col("screening_date").str.slice(0, 7))


def test_audit_profile_by_its_key_on_a_profile_without_key_expressions(
    capsys: pytest.CaptureFixture[str], rows: pl.DataFrame, tmp_path: Path
) -> None:
    prof = rows.fair.profile(
        y_true="two_year_recid", y_pred=pl.col("decile_score") >= 5,
        sensitive_features="race", by="month",
    )  # fmt: skip
    del prof.meta["spec"]["by_items"]  # as written before the expressions were kept
    path = tmp_path / "old.parquet"
    prof.write_parquet(path)
    assert "by_items" not in pf.read_profile(path).meta["spec"]
    crit = ["--criteria", "demographic_parity_difference", "--format", "json"]
    code, plain, err = _run(capsys, "audit", "--profile", str(path), *crit)
    assert code == 0, err
    code, given, err = _run(capsys, "audit", "--profile", str(path), "--by", "month", *crit)
    assert code == 0, err
    assert json.loads(given)["tables"] == json.loads(plain)["tables"]
    # the months by hand (numpy): one summary row per month of the file
    months = np.unique(np.array([d[:7] for d in rows["screening_date"].to_list()]))
    summary = json.loads(given)["tables"]["summary"]
    assert [r["month"] for r in summary] == months.tolist()
    # another name is still refused (exit 2)
    code, _, err = _run(capsys, "audit", "--profile", str(path), "--by", "race", *crit)
    assert code == 2
    assert "differs from the profile's batch keys month" in err


def test_familywise_rule_with_no_row_judged(
    capsys: pytest.CaptureFixture[str], rows: pl.DataFrame, tmp_path: Path
) -> None:
    # one group on each side: no criterion has a value, so no row can be judged
    path = tmp_path / "one.csv"
    rows.filter(pl.col("race") == "Caucasian").head(400).write_csv(path)
    crit = ["--criteria", "demographic_parity_difference,disparate_impact_ratio"]
    code, out, err = _run(capsys, "compare", str(path), str(path), *COLS, *crit,
                          "--familywise", "--no-progress")  # fmt: skip
    assert code == 0, err
    rule = out.splitlines()[0]
    assert "row judged" not in rule
    assert "no row could be judged" in rule
    # one row judged: the count is still named
    both = tmp_path / "two.csv"
    rows.head(3000).write_csv(both)
    one = ["--criteria", "demographic_parity_difference"]
    code, out, err = _run(capsys, "compare", str(both), str(both), *COLS, *one,
                          "--familywise", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "Bonferroni over the 1 row judged" in out.splitlines()[0]


def test_sql_key_named_like_a_comparison_column_is_told_to_rename_its_expression(
    capsys: pytest.CaptureFixture[str], rows: pl.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "rows.parquet"
    rows.head(2000).with_columns(pl.col("screening_date").str.to_date()).write_parquet(path)
    key = "strftime(screening_date, '%Y') AS change"
    code, _, err = _run(capsys, "compare", str(path), str(path), *COLS, "--by", key,
                        "--no-progress")  # fmt: skip
    assert code == 2
    assert "batch key 'change' clashes with a column of the comparison" in err
    assert '--by "EXPR AS change_"' in err
    # and the fix it gives works
    fixed = "strftime(screening_date, '%Y') AS change_"
    code, out, err = _run(capsys, "compare", str(path), str(path), *COLS, "--by", fixed,
                          "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "change_" in out


@pytest.mark.parametrize(
    "given",
    [["--by", "month,month"], ["--by", "month", "--by-key", "month"],
     ["--by", "month", "--by-key", "strftime(date(screening_date), '%Y-%m') AS month"]],
)  # fmt: skip
def test_audit_profile_refuses_a_key_given_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, given: list[str]
) -> None:
    # as `audit FILES --by sex,sex` is refused (exit 2), not read as the key once
    path = str(tmp_path / "months.parquet")
    code, _, err = _run(capsys, "profile", str(DATA), "-o", path, *COLS, "--by",
                        "strftime(date(screening_date), '%Y-%m') AS month", "--no-progress")  # fmt: skip
    assert code == 0, err
    code, _, err = _run(capsys, "audit", "--profile", path, *given)
    assert code == 2
    assert "--by gives two keys named 'month'" in err
    code, _, err = _run(capsys, "audit", "--profile", path, "--by", "month")
    assert code == 0, err
