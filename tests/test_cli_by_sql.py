"""``--by`` and ``--by-key`` take SQL expressions: time windows on the command line.

On ProPublica's COMPAS rows (``tests/data/compas_race_sex.csv``: the rows of
``compas-scores-two-years.csv``, ``screening_date`` as text), written as Parquet with a
real Date column and kept as CSV, the per-month results of ``audit``, ``profile``,
``audit --profile`` and ``compare`` are checked against a computation by hand: the
file read with Python's ``csv`` module, the rows of each month counted with numpy.
Then the profile round trip (the key's name and expression kept, ``audit --profile
--by`` judged by them), ``date_trunc`` against Polars' own SQL engine, and the usage
errors (exit status 2, naming the option, the text and a fix).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.io._cli_sql import TRUNC_UNITS, column_or_sql, split_keys
from polars_fair.io._output import UsageError
from polars_fair.io.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

DATA = Path(__file__).parent / "data" / "compas_race_sex.csv"
COLS = ["--y-true", "two_year_recid", "--y-pred", "decile_score >= 5",
        "--sensitive-features", "race"]  # fmt: skip
MONTH = "strftime(screening_date, '%Y-%m') AS month"  # on a Date column
MONTH_CSV = "strftime(date(screening_date), '%Y-%m') AS month"  # on text
TRUNC = "date_trunc('month', screening_date) AS month"
TRUNC_CSV = "date_trunc('month', date(screening_date)) AS month"


# ---- the reference: the file read without Polars, each month counted by hand ----------


def _rows() -> dict[str, np.ndarray]:
    with DATA.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {
        "race": np.array([r["race"] for r in rows]),
        "sex": np.array([r["sex"] for r in rows]),
        "month": np.array([r["screening_date"][:7] for r in rows]),
        "y": np.array([int(r["two_year_recid"]) for r in rows]),
        "p": np.array([int(r["decile_score"]) >= 5 for r in rows]),
    }


def _by_hand(keys: tuple[str, ...] = ("month",)) -> dict[tuple[str, ...], dict[str, float]]:
    """Per (keys..., race): n and the rates, from boolean masks."""
    r = _rows()
    out: dict[tuple[str, ...], dict[str, float]] = {}
    combos = sorted({tuple(r[k][i] for k in (*keys, "race")) for i in range(len(r["y"]))})
    for combo in combos:
        mask = np.ones(len(r["y"]), dtype=bool)
        for k, v in zip((*keys, "race"), combo, strict=True):
            mask &= r[k] == v
        y, p = r["y"][mask], r["p"][mask]
        out[combo] = {
            "n": float(mask.sum()),
            "selection_rate": float(p.mean()),
            "true_positive_rate": float(p[y == 1].mean()) if (y == 1).any() else np.nan,
            "false_positive_rate": float(p[y == 0].mean()) if (y == 0).any() else np.nan,
        }
    return out


def _parity_by_month() -> dict[str, float]:
    """Per month: max - min selection rate over every race (--min-group-size 0)."""
    rates: dict[str, list[float]] = {}
    for (month, _race), v in _by_hand().items():
        rates.setdefault(month, []).append(v["selection_rate"])
    return {m: max(v) - min(v) for m, v in rates.items()}


# ---- the inputs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The COMPAS rows as Parquet with a Date column (whole, and one file per year)."""
    path = tmp_path_factory.mktemp("by_sql")
    dated = pl.read_csv(DATA).with_columns(pl.col("screening_date").str.to_date())
    assert dated.schema["screening_date"] == pl.Date
    dated.write_parquet(path / "compas.parquet")
    for year, part in dated.group_by(pl.col("screening_date").dt.year()):
        part.write_parquet(path / f"year{year[0]}.parquet")
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = _run(capsys, *args, "--format", "json", "--min-group-size", "0")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def _month_text(value: Any) -> str:
    """A month key as 'YYYY-MM' (text keys are; date_trunc keys are the month's first day)."""
    return str(value)[:7]


def _check_by_group(report: dict[str, Any], keys: tuple[str, ...] = ("month",)) -> None:
    want = _by_hand(keys)
    rows = report["tables"]["by_group"]
    got = {tuple(_month_text(r[k]) if k == "month" else r[k] for k in (*keys, "race")): r
           for r in rows}  # fmt: skip
    assert set(got) == set(want)
    for combo, w in want.items():
        g = got[combo]
        assert g["n"] == w["n"], combo
        for rate in ("selection_rate", "true_positive_rate", "false_positive_rate"):
            if np.isnan(w[rate]):
                assert g[rate] is None, (combo, rate)
            else:
                assert g[rate] == pytest.approx(w[rate], abs=1e-12), (combo, rate)


def _check_parity(report: dict[str, Any]) -> None:
    want = _parity_by_month()
    summary = [r for r in report["tables"]["summary"]
               if r["criterion"] == "demographic_parity_difference"]  # fmt: skip
    got = {_month_text(r["month"]): r["value"] for r in summary}
    assert got.keys() == want.keys()
    assert len(want) == 24  # 2013-01 .. 2014-12
    for month, value in want.items():
        assert got[month] == pytest.approx(value, abs=1e-12), month


# ---- audit by month: Parquet (Date) and CSV (text) -------------------------------------


@pytest.mark.parametrize(
    ("kind", "key", "dtype"),
    [("parquet", MONTH, "str"), ("parquet", TRUNC, "date"),
     ("csv", MONTH_CSV, "str"), ("csv", TRUNC_CSV, "date")],
)  # fmt: skip
def test_audit_by_month_matches_the_rows_counted_by_hand(
    capsys: pytest.CaptureFixture[str], folder: Path, kind: str, key: str, dtype: str
) -> None:
    data = str(folder / "compas.parquet") if kind == "parquet" else str(DATA)
    report = _json(capsys, "audit", data, *COLS, "--by", key,
                   "--criteria", "demographic_parity_difference")  # fmt: skip
    assert report["params"]["by"] == ["month"]  # the alias names the key
    first = report["tables"]["by_group"][0]["month"]
    # strftime gives text keys; date_trunc keeps the date (the month's first day)
    assert first == ("2013-01" if dtype == "str" else "2013-01-01")
    _check_by_group(report)
    _check_parity(report)


def test_audit_several_files_and_keys(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    # one file per year: every file is checked for the column the expression reads
    files = str(folder / "year*.parquet")
    report = _json(capsys, "audit", files, *COLS, "--by", f"sex,{MONTH}")
    assert report["params"]["by"] == ["sex", "month"]
    _check_by_group(report, keys=("sex", "month"))
    # --by-key, repeatable, after --by: the same keys in the same order
    same = _json(capsys, "audit", files, *COLS, "--by", "sex", "--by-key", MONTH)
    assert same["tables"]["by_group"] == report["tables"]["by_group"]


def test_a_key_without_alias_is_named_by_its_text(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    text = "strftime(screening_date, '%Y-%m')"
    report = _json(capsys, "audit", str(folder / "compas.parquet"), *COLS, "--by", text)
    assert report["params"]["by"] == [text]
    assert report["tables"]["by_group"][0][text] == "2013-01"
    _check_by_group({"tables": {"by_group": [
        {**r, "month": r[text]} for r in report["tables"]["by_group"]]}})  # fmt: skip


def test_split_keys_at_commas_outside_parentheses_and_quotes() -> None:
    assert split_keys(f"sex, {MONTH}") == ["sex", MONTH]
    assert split_keys("CASE WHEN race IN ('a','b') THEN 1 ELSE 0 END,sex") == [
        "CASE WHEN race IN ('a','b') THEN 1 ELSE 0 END", "sex"]  # fmt: skip
    assert split_keys('"a,b",c') == ['"a,b"', "c"]
    # quotes or parentheses that do not balance: names, split at every comma
    assert split_keys("driver's race,sex") == ["driver's race", "sex"]


# ---- date_trunc: what Polars' SQL engine gives, with the types known --------------------


@pytest.mark.parametrize("unit", sorted(TRUNC_UNITS))
@pytest.mark.parametrize("dtype", [pl.Date(), pl.Datetime("ms", "Europe/Paris")])
def test_date_trunc_equals_polars_sql_engine(unit: str, dtype: pl.DataType) -> None:
    # pl.sql_expr cannot type date_trunc's argument; SQLContext (a frame) can: the oracle
    with pytest.raises(Exception, match="cannot determine the type"):
        pl.select(pl.sql_expr(f"date_trunc('{unit}', ts)"))
    rng = np.random.default_rng(11)
    start = dt.datetime(2013, 1, 1, 0, 0, 0)
    stamps = [start + dt.timedelta(seconds=int(s)) for s in rng.integers(0, 3 * 10**7, 200)]
    frame = pl.DataFrame({"ts": stamps}).with_columns(
        pl.col("ts").dt.replace_time_zone("Europe/Paris").dt.cast_time_unit("ms")
        if isinstance(dtype, pl.Datetime) else pl.col("ts").dt.date()
    )  # fmt: skip
    text = f"DATE_TRUNC('{unit.upper()}', ts) AS w"
    expr = column_or_sql(text, frame.schema, "--by")
    assert isinstance(expr, pl.Expr)
    ours = frame.select(expr)["w"]
    theirs = frame.sql(f"SELECT {text} FROM self")["w"]
    assert ours.dtype == dtype  # a Date stays a Date
    assert ours.cast(theirs.dtype).to_list() == theirs.to_list()


# ---- profiles: the key kept, audited, compared ------------------------------------------


def test_profile_round_trip_by_month(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path
) -> None:
    data = str(folder / "compas.parquet")
    prof_path = str(tmp_path / "months.parquet")
    code, _, err = _run(capsys, "profile", data, "-o", prof_path, *COLS, "--by", MONTH,
                        "--no-progress")  # fmt: skip
    assert code == 0, err
    prof = pf.read_profile(prof_path)
    assert prof.by == ["month"]
    item = prof.meta["spec"]["by_items"][0]
    assert isinstance(item, dict)  # the expression is kept, not only its name
    # the profile's report is the data's, per month
    crit = ["--criteria", "demographic_parity_difference"]
    from_profile = _json(capsys, "audit", "--profile", prof_path, *crit)
    from_rows = _json(capsys, "audit", data, *COLS, "--by", MONTH, *crit)
    assert from_profile["tables"]["by_group"] == from_rows["tables"]["by_group"]
    _check_by_group(from_profile)
    _check_parity(from_profile)
    # the trend over the months, from the profile alone
    trend = prof.trend("demographic_parity_difference", time="month", min_group_size=0)
    want = _parity_by_month()
    assert trend["month"].to_list() == sorted(want)
    assert trend["value"].to_list() == pytest.approx([want[m] for m in sorted(want)])
    # --by naming the profile's own key: its name, or the same SQL (as --by or --by-key)
    for given in (["--by", "month"], ["--by", MONTH], ["--by-key", MONTH]):
        again = _json(capsys, "audit", "--profile", prof_path, *given, *crit)
        assert again["tables"] == from_profile["tables"], given


@pytest.mark.parametrize(
    ("given", "says"),
    [(["--by", "race"], "differs from the profile's batch keys month"),
     (["--by", "strftime(screening_date, '%Y-%m')"], "differs from the profile's batch keys"),
     (["--by", "strftime(screening_date, '%Y-%W') AS month"], "another expression"),
     (["--by", "month,race"], "differs from the profile's batch keys")],
)  # fmt: skip
def test_audit_profile_refuses_other_keys(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path,
    given: list[str], says: str,
) -> None:  # fmt: skip
    prof_path = str(tmp_path / "months.parquet")
    assert main(["profile", str(folder / "compas.parquet"), "-o", prof_path, *COLS,
                 "--by", MONTH, "--no-progress"]) == 0  # fmt: skip
    capsys.readouterr()
    code, _, err = _run(capsys, "audit", "--profile", prof_path, *given)
    assert code == 2
    assert says in err
    assert "Hint:" in err


def test_merged_daily_profiles_by_month_equal_the_whole(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path
) -> None:
    # one profile per year file (as pieces arrive), merged by a glob: the months' counts
    for year in (2013, 2014):
        code, _, err = _run(capsys, "profile", str(folder / f"year{year}.parquet"),
                            "-o", str(tmp_path / f"p{year}.parquet"), *COLS,
                            "--by", TRUNC, "--no-progress")  # fmt: skip
        assert code == 0, err
    merged = _json(capsys, "audit", "--profile", str(tmp_path / "p*.parquet"))
    _check_by_group(merged)


def test_compare_data_files_by_month(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path
) -> None:
    data = str(folder / "compas.parquet")
    prof_path = str(tmp_path / "months.parquet")
    assert main(["profile", data, "-o", prof_path, *COLS, "--by", MONTH,
                 "--no-progress"]) == 0  # fmt: skip
    capsys.readouterr()
    crit = ["--criteria", "demographic_parity_difference", "--min-group-size", "0"]
    # data files against the profile, without column options: profiled with its key
    code, out, err = _run(capsys, "compare", prof_path, data, "--no-progress", *crit,
                          "--format", "json")  # fmt: skip
    assert code == 0, err
    table = pl.DataFrame(json.loads(out))
    assert table.height == 24
    assert sorted(table["month"].to_list()) == sorted(_parity_by_month())
    assert table["change"].to_list() == [0.0] * 24
    # two data sides, the key given as SQL (CSV text dates against Parquet dates)
    code, out, err = _run(capsys, "compare", str(DATA), data, *COLS[:4], "--sensitive-feature",
                          "race", "--by", "date_trunc('month', screening_date) AS month",
                          "--no-progress", *crit, "--format", "json")  # fmt: skip
    assert code == 2  # the CSV holds text: its date_trunc needs date()
    assert "date(screening_date)" in err
    code, out, err = _run(capsys, "compare", data, data, *COLS, "--by", TRUNC,
                          "--no-progress", *crit, "--format", "json")  # fmt: skip
    assert code == 0, err
    table = pl.DataFrame(json.loads(out))
    want = _parity_by_month()
    assert {_month_text(m): b for m, b in zip(table["month"], table["baseline"], strict=True)
            } == pytest.approx(want)  # fmt: skip


# ---- usage errors: the option, the text and a fix, exit status 2 ------------------------


def _errors() -> Iterator[Any]:
    cases = [
        (["--by", "screening_month"], ["--by column 'screening_month' not found",
                                        "Hint: columns are"]),
        (["--by", "strftime(screening_dte, '%Y') AS y"], ["--by \"strftime(screening_dte",
                                                           "screening_dte", "Hint: columns are"]),
        (["--by-key", "strftime(screening_date, '%Y' AS y"], ["--by-key", "Hint:"]),
        (["--by", "date_trunc('fortnight', screening_date)"], ["no unit 'fortnight'",
                                                              "Hint: one of year"]),
        (["--by", "strftime(date_trunc('month', screening_date), '%Y') AS y"],
         ["cannot determine the type", "date_trunc works as a whole expression only",
          "strftime(ts, '%Y-%m')"]),
        (["--by", "strftime(screening_date, '%Y') AS race"],
         ["names its key 'race', a column of the data",
          "Hint: give it another name, e.g. --by \"strftime(screening_date, '%Y') AS race_key\""]),
        (["--by", "strftime(screening_date, '%Y') AS n"],
         ["names its key 'n', a column polars_fair adds", "AS n_key"]),
        (["--by", "strftime(screening_date, '%Y') AS y,strftime(screening_date, '%m') AS y"],
         ["two keys named 'y'", "Hint:"]),
        (["--by", "strftime(screening_date, '%Y') AS y", "--by-key",
          "strftime(screening_date, '%m') AS y"], ["second batch key named 'y'", "Hint:"]),
    ]  # fmt: skip
    for command in ("audit", "profile", "compare"):
        for extra, says in cases:
            yield pytest.param(command, extra, says, id=f"{command}-{' '.join(extra)[:40]}")


@pytest.mark.parametrize(("command", "extra", "says"), list(_errors()))
def test_bad_keys_are_usage_errors(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path,
    command: str, extra: list[str], says: list[str],
) -> None:  # fmt: skip
    data = str(folder / "compas.parquet")
    head = {"audit": ["audit", data], "profile": ["profile", data, "-o",
            str(tmp_path / "p.parquet"), "--no-progress"],
            "compare": ["compare", data, data, "--no-progress"]}[command]  # fmt: skip
    code, out, err = _run(capsys, *head, *COLS, *extra)
    assert code == 2, err
    assert out == ""
    assert err.startswith("polars-fair: error: ")
    for text in says:
        assert text in err, (text, err)
    assert not (tmp_path / "p.parquet").exists()


def test_text_dates_are_told_to_parse(capsys: pytest.CaptureFixture[str]) -> None:
    # strftime over a column of text would fail on the first row read, blamed on the file
    code, _, err = _run(capsys, "audit", str(DATA), *COLS, "--by", MONTH)
    assert code == 2
    assert err.startswith(f"polars-fair: error: --by {MONTH!r}")
    assert MONTH in err
    assert "column 'screening_date' holds text (String)" in err
    assert "strftime(date(screening_date), '%Y-%m')" in err
    code, _, err = _run(capsys, "audit", str(DATA), *COLS, "--by", TRUNC)
    assert code == 2
    assert "date_trunc needs a date or a time, and 'screening_date' holds String" in err
    assert "date_trunc('month', date(screening_date))" in err
    # the fixes given work
    for fixed in (MONTH_CSV, TRUNC_CSV):
        assert main(["audit", str(DATA), *COLS, "--by", fixed, "-o", "/dev/null"]) == 0


def test_list_batch_key_is_told_the_sql_that_picks_one_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "lists.parquet"
    pl.DataFrame({"g": ["a", "b"] * 20, "y": [0, 1] * 20, "p": [1, 1, 0, 0] * 10,
                  "m": [["x", "z"], ["w"]] * 20}).write_parquet(path)  # fmt: skip
    base = ["audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    code, _, err = _run(capsys, *base, "--by", "m")
    assert code == 2
    assert 'Hint: batch by one value per row with a SQL expression: --by "m[1]"' in err
    report = _json(capsys, *base, "--by", "m[1] AS first")  # the hint's fix works
    got = {(r["first"], r["g"]): r["n"] for r in report["tables"]["by_group"]}
    assert got == {("x", "a"): 20, ("w", "b"): 20}


# ---- the worked example of docs/report.md ------------------------------------------------


def test_docs_month_example_is_what_the_command_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = (Path(__file__).parents[1] / "docs" / "report.md").read_text(encoding="utf-8")
    section = page.split("### Batch keys and time windows from SQL", 1)[1]
    command = section.split("```bash\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    args = " ".join(command.replace("\\\n", " ").split())
    assert args == (
        "polars-fair audit compas-scores-two-years.csv --y-true two_year_recid --y-pred "
        '"decile_score >= 5" --sensitive-features race --by '
        "\"strftime(date(screening_date), '%Y-%m') AS month\" --reference-group Caucasian "
        "--criteria disparate_impact_ratio"
    )
    # tests/data holds the file's rows and these columns: the same output
    code, out, err = _run(
        capsys, "audit", str(DATA), *COLS, "--by", MONTH_CSV, "--reference-group",
        "Caucasian", "--criteria", "disparate_impact_ratio",
    )  # fmt: skip
    assert code == 0, err
    lines = [line for line in shown.splitlines() if line.strip() and line != "..."]
    assert len(lines) >= 12
    for line in lines:
        assert line in out.splitlines(), line


def test_groups_split_the_same_way(capsys: pytest.CaptureFixture[str]) -> None:
    # the splitting is shared: a group expression with commas inside needs no other option
    case = "CASE WHEN race IN ('African-American','Caucasian') THEN race ELSE 'other' END"
    report = _json(capsys, "audit", str(DATA), *COLS[:4], "--sensitive-features",
                   f"{case},sex")  # fmt: skip
    assert report["params"]["sensitive_features"] == [case, "sex"]
    r = _rows()
    band = np.where(np.isin(r["race"], ["African-American", "Caucasian"]), r["race"], "other")
    want = {(b, s): int(((band == b) & (r["sex"] == s)).sum())
            for b in set(band) for s in set(r["sex"])}  # fmt: skip
    got = {(row[case], row["sex"]): row["n"] for row in report["tables"]["by_group"]}
    assert got == want


def test_a_misspelt_column_in_sql_is_named_once_with_its_near_spelling() -> None:
    # Polars' message lists every column after the missing one; the hint lists them
    # again: the reason names the column and its nearest spellings instead
    schema = pl.Schema({"decile_score": pl.Int64, "race": pl.String, "two_year_recid": pl.Int64})
    with pytest.raises(UsageError) as err:
        column_or_sql("decile_scor >= 5", schema, "--y-pred")
    text = str(err.value)
    assert "(no column 'decile_scor'; did you mean 'decile_score'?)" in text
    assert text.count("'two_year_recid'") == 1  # the hint's list of columns only


def test_trend_of_a_misspelt_criterion_says_the_near_spelling() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "p": [1, 1], "w": [1, 2]})
    prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g", by="w")
    with pytest.raises(
        pf.InvalidParameterError, match="did you mean 'demographic_parity_difference'"
    ):
        prof.trend("demographic_parity_diference", time="w")


@pytest.mark.parametrize(
    ("command", "flag"),
    [("audit", "--by-key"), ("profile", "--by-key"), ("audit", "--sensitive-feature")],
)
def test_a_blank_repeated_key_is_refused_not_dropped(
    capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path, command: str, flag: str
) -> None:
    """`--by-key ""` ran as if no key were given (campaign 4); now exit 2 naming the flag."""
    data = str(folder / "compas.parquet")
    extra = ["-o", str(tmp_path / "p.parquet")] if command == "profile" else []
    code, _, err = _run(capsys, command, data, *COLS, flag, "  ", *extra)
    assert code == 2
    assert f"{flag} '  ' is blank: it names no key" in err
    assert "Hint: give a column or a SQL expression" in err
