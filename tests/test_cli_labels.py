"""The command line's labels, group columns and file errors, against the library.

A rule (``--y-pred "education-num >= 13"``) is a boolean prediction: beside labels
whose positive value is not 1 the command line reads ``y_true == --pos-label``, and
checks the labels as given in the same read, as the library does (exactly two values,
``--pos-label`` one of them). Every expected value here comes from the library on the
same data: its report (with the prediction written in the labels' own values), or the
first line of the `LabelError` it raises.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from test_cli import run  # ``main(["audit", *args])``: exit status, stdout, stderr

import polars_fair as pf
import polars_fair.sources
from polars_fair.exceptions import FairError, FileReadError, LabelError

ADULT = Path(__file__).with_name("data") / "adult_sample.csv"
SHARED = Path("/work/shared/data")
RULE = '"education-num" >= 13'
ADULT_ARGS = ["--y-true", "income-per-year", "--y-pred", RULE, "--sensitive-features", "sex"]

# ---- helpers --------------------------------------------------------------------------


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    rc, out, err = run(capsys, *args, "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert isinstance(doc, dict)
    return doc


def library(frame: pl.DataFrame, **kwargs: Any) -> dict[str, Any]:
    doc = json.loads(frame.fair.report(**kwargs).to_json())
    assert isinstance(doc, dict)
    return doc


def library_error(frame: pl.DataFrame, **kwargs: Any) -> str:
    """The first line of the error the library raises for this report."""
    with pytest.raises(FairError) as info:
        frame.fair.report(**kwargs)
    return str(info.value).splitlines()[0]


def cli_error(err: str) -> str:
    """The first line of the command line's error message (without its prefix)."""
    lines = [line for line in err.splitlines() if line.startswith("polars-fair: error: ")]
    assert len(lines) == 1, err
    return lines[0].removeprefix("polars-fair: error: ")


def assert_tables_equal(cli: dict[str, Any], lib: dict[str, Any]) -> None:
    """The same tables (floats to 1e-12), the report's parameters aside."""
    for name in ("by_group", "summary", "disparities"):
        got = pl.DataFrame(cli["tables"][name], infer_schema_length=None)
        want = pl.DataFrame(lib["tables"][name], infer_schema_length=None)
        assert got.columns == want.columns, name
        from polars.testing import assert_frame_equal

        assert_frame_equal(got, want, check_dtypes=False, abs_tol=1e-12, rel_tol=1e-12)


def label_words(rule: pl.Expr, positive: Any, negative: Any) -> pl.Expr:
    """A boolean rule written in the labels' own values (what the library takes)."""
    return pl.when(rule).then(pl.lit(positive)).otherwise(pl.lit(negative))


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(ADULT)


@pytest.fixture(scope="module")
def credit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    """Integer-coded labels (1 good, 2 bad, as in German credit) and an amount."""
    n = 400
    frame = pl.DataFrame(
        {
            "status": ["A91", "A92", "A93", "A94"] * (n // 4),
            "amount": [(i * 37) % 9000 + 250 for i in range(n)],
            "credit": [1 if (i * 7) % 10 < 7 else 2 for i in range(n)],
        }
    )
    path = tmp_path_factory.mktemp("credit") / "credit.csv"
    frame.write_csv(path)
    return path, frame


CREDIT_ARGS = ["--y-true", "credit", "--y-pred", "amount < 5000", "--sensitive-features", "status"]

# ---- a --pos-label that is not a label value --------------------------------------------


def test_misspelt_pos_label_beside_a_rule_is_the_library_error(
    capsys: pytest.CaptureFixture[str], adult: pl.DataFrame
) -> None:
    rc, out, err = run(capsys, str(ADULT), *ADULT_ARGS, "--pos-label", ">50k")
    expected = library_error(adult, y_true="income-per-year", y_pred="income-per-year",
                             sensitive_features="sex", pos_label=">50k")  # fmt: skip
    assert rc == 2
    assert out == ""
    assert cli_error(err) == expected
    assert "'income-per-year'" in expected
    assert "'>50k'" in expected
    assert "\nHint: " in err


def test_absent_integer_pos_label_beside_a_rule_is_the_library_error(
    capsys: pytest.CaptureFixture[str], credit: tuple[Path, pl.DataFrame]
) -> None:
    path, frame = credit
    rc, _, err = run(capsys, str(path), *CREDIT_ARGS, "--pos-label", "3")
    expected = library_error(frame, y_true="credit", y_pred="credit",
                             sensitive_features="status", pos_label=3)  # fmt: skip
    assert rc == 2
    assert cli_error(err) == expected
    assert "found [1, 2]" in expected


@pytest.mark.skipif(not (SHARED / "german.csv").is_file(), reason="shared data not here")
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("adult.csv", ["--y-true", "income-per-year", "--pos-label", ">50k", "--y-pred", RULE,
                       "--sensitive-features", "sex"]),
        ("german.csv", ["--y-true", "credit", "--pos-label", "3", "--y-pred",
                        "credit_amount < 5000", "--sensitive-features", "personal_status"]),
    ],
)  # fmt: skip
def test_reported_commands_exit_2(
    capsys: pytest.CaptureFixture[str], name: str, args: list[str]
) -> None:
    rc, out, err = run(capsys, str(SHARED / name), *args)
    assert rc == 2
    assert out == ""
    assert "must hold exactly two label values" in cli_error(err)


def test_third_label_value_beside_a_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    frame = pl.DataFrame(
        {
            "g": ["a", "b"] * 30,
            "y": ["good", "bad", "good", "bad", "unknown", "good"] * 10,
            "x": list(range(60)),
        }
    )
    frame.write_csv(tmp_path / "three.csv")
    args = ["--y-true", "y", "--y-pred", "x >= 30", "--sensitive-features", "g"]
    rc, _, err = run(capsys, str(tmp_path / "three.csv"), *args, "--pos-label", "good")
    expected = library_error(frame, y_true="y", y_pred="y", sensitive_features="g",
                             pos_label="good")  # fmt: skip
    assert rc == 2
    assert cli_error(err) == expected
    assert "['bad', 'good', 'unknown']" in expected


def test_third_value_in_one_of_several_files(
    capsys: pytest.CaptureFixture[str], credit: tuple[Path, pl.DataFrame], tmp_path: Path
) -> None:
    _, frame = credit
    frame.write_csv(tmp_path / "a.csv")
    bad = frame.with_columns(credit=pl.when(pl.col("amount") > 8000).then(3).otherwise("credit"))
    bad.write_csv(tmp_path / "b.csv")
    rc, _, err = run(capsys, str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), *CREDIT_ARGS,
                     "--pos-label", "2")  # fmt: skip
    assert rc == 2
    assert "`y_true` column 'credit' must hold exactly two label values" in err
    assert "found [1, 2, 3]" in err


def test_never_positive_labels_warn_as_in_python(
    capsys: pytest.CaptureFixture[str], adult: pl.DataFrame, tmp_path: Path
) -> None:
    low = adult.filter(pl.col("income-per-year") == "<=50K")
    low.write_csv(tmp_path / "low.csv")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        low.fair.report(
            y_true="income-per-year", y_pred=label_words(pl.sql_expr(RULE), ">50K", "<=50K"),
            sensitive_features="sex", pos_label=">50K",
        )  # fmt: skip
    degenerate = [w for w in caught if w.category is pf.exceptions.DegenerateDataWarning]
    assert degenerate
    # "`y_true` column 'income-per-year' never equals `pos_label`='>50K' (values found: ..."
    expected = str(degenerate[0].message).split(" (values found")[0]
    rc, _, err = run(capsys, str(tmp_path / "low.csv"), *ADULT_ARGS, "--pos-label", ">50K")
    assert rc == 0
    assert expected in err
    assert "'income-per-year' never equals `pos_label`='>50K'" in err


def test_boolean_labels_refuse_pos_label_false_as_in_python(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    frame = pl.DataFrame({"g": ["a", "b"] * 20, "flag": [True, False, False] * 13 + [True],
                          "x": list(range(40))})  # fmt: skip
    frame.write_parquet(tmp_path / "flags.parquet")
    args = ["--y-true", "flag", "--y-pred", "x >= 20", "--sensitive-features", "g"]
    rc, _, err = run(capsys, str(tmp_path / "flags.parquet"), *args, "--pos-label", "false")
    expected = library_error(frame, y_true="flag", y_pred=pl.col("x") >= 20,
                             sensitive_features="g", pos_label=False)  # fmt: skip
    assert rc == 2
    assert cli_error(err) == expected


# ---- the right --pos-label: the library's numbers ---------------------------------------


def test_adult_rule_with_string_labels_matches_library(
    capsys: pytest.CaptureFixture[str], adult: pl.DataFrame
) -> None:
    cli = audit_json(capsys, str(ADULT), *ADULT_ARGS, "--pos-label", ">50K")
    lib = library(
        adult, y_true="income-per-year", sensitive_features="sex", pos_label=">50K",
        y_pred=label_words(pl.col("education-num") >= 13, ">50K", "<=50K"),
    )  # fmt: skip
    assert cli["params"]["pos_label"] == ">50K"
    assert_tables_equal(cli, lib)
    base = {r["sex"]: r["base_rate"] for r in cli["tables"]["by_group"]}
    counts = adult.group_by("sex").agg((pl.col("income-per-year") == ">50K").mean())
    assert base == pytest.approx(dict(counts.iter_rows()), rel=1e-12)


@pytest.mark.parametrize(("positive", "negative"), [(2, 1), (1, 2)])
def test_integer_labels_with_a_rule_match_library(
    capsys: pytest.CaptureFixture[str],
    credit: tuple[Path, pl.DataFrame],
    positive: int,
    negative: int,
) -> None:
    path, frame = credit
    cli = audit_json(capsys, str(path), *CREDIT_ARGS, "--pos-label", str(positive))
    lib = library(
        frame, y_true="credit", sensitive_features="status", pos_label=positive,
        y_pred=label_words(pl.col("amount") < 5000, positive, negative),
    )  # fmt: skip
    assert cli["params"]["pos_label"] == positive
    assert_tables_equal(cli, lib)


@pytest.mark.skipif(not (SHARED / "german.csv").is_file(), reason="shared data not here")
def test_german_good_credit_matches_library(capsys: pytest.CaptureFixture[str]) -> None:
    path = SHARED / "german.csv"
    args = ["--y-true", "credit", "--pos-label", "1", "--y-pred", "credit_amount < 5000",
            "--sensitive-features", "personal_status"]  # fmt: skip
    cli = audit_json(capsys, str(path), *args)
    lib = library(
        pl.read_csv(path), y_true="credit", sensitive_features="personal_status", pos_label=1,
        y_pred=label_words(pl.col("credit_amount") < 5000, 1, 2),
    )  # fmt: skip
    assert_tables_equal(cli, lib)


# ---- list and array group columns --------------------------------------------------------


@pytest.mark.parametrize("kind", ["list", "array"])
def test_list_sensitive_column_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    frame = pl.DataFrame(
        {"g": [["a", "x"], ["b"]] * 20, "y": [0, 1, 1, 0] * 10, "p": [1, 1, 0, 0] * 10}
    )
    if kind == "array":
        frame = frame.with_columns(pl.col("g").list.head(1).list.to_array(1))
    frame.write_parquet(tmp_path / "lists.parquet")
    base = [str(tmp_path / "lists.parquet"), "--y-true", "y", "--y-pred", "p"]
    rc, out, err = run(capsys, *base, "--sensitive-features", "g")
    assert rc == 2
    assert out == ""
    message = cli_error(err)
    assert message == (
        f"--sensitive-features column 'g' holds lists ({frame.schema['g']}), not one value per row"
    )
    joined = """--sensitive-feature "array_to_string(g, ',')" (the values joined)"""
    assert "\nHint: group by one value per row with a SQL expression: " in err
    assert joined in err
    # the hint works, and gives the library's report of the values joined
    sql = "array_to_string(g, ',')"
    cli = audit_json(capsys, *base, "--sensitive-feature", sql, "--min-group-size", "0")
    values = pl.col("g") if kind == "list" else pl.col("g").arr.to_list()
    lib_frame = frame.with_columns(values.list.join(",").alias(sql))
    lib = library(lib_frame, y_true="y", y_pred="p", sensitive_features=sql, min_group_size=0)
    assert_tables_equal(cli, lib)
    if kind == "list":  # and its first element
        assert '--sensitive-features "g[1]" (the first element)' in err
        cli = audit_json(capsys, *base, "--sensitive-features", "g[1]", "--min-group-size", "0")
        first = frame.with_columns(pl.col("g").list.first().alias("g[1]"))
        lib = library(first, y_true="y", y_pred="p", sensitive_features="g[1]", min_group_size=0)
        assert_tables_equal(cli, lib)


def test_list_by_column_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    frame = pl.DataFrame({"m": [["x"], ["y"]] * 20, "g": ["a"] * 20 + ["b"] * 20,
                          "y": [0, 1] * 20, "p": [1, 0, 0, 1] * 10})  # fmt: skip
    frame.write_parquet(tmp_path / "by.parquet")
    rc, _, err = run(capsys, str(tmp_path / "by.parquet"), "--y-true", "y", "--y-pred", "p",
                     "--sensitive-features", "g", "--by", "m")  # fmt: skip
    assert rc == 2
    assert cli_error(err).startswith("--by column 'm' holds lists (List(String)), not one value")
    assert "\nHint: " in err


# ---- scan_file: public, and the hint that names it ---------------------------------------


def test_scan_file_is_exported() -> None:
    assert pf.scan_file is polars_fair.sources.scan_file
    assert "scan_file" in pf.__all__


def test_parse_error_hint_names_a_function_that_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    y = ["1", "0"] * 60 + ["N/A"] + ["1", "0"] * 5 + ["1"]
    frame = pl.DataFrame({"g": ["a", "b", "c"] * 44, "y": y, "p": ["1", "0"] * 66})
    path = tmp_path / "na.csv"
    frame.write_csv(path)
    rc, _, err = run(capsys, str(path), "--y-true", "y", "--y-pred", "p",
                     "--sensitive-features", "g")  # fmt: skip
    assert rc == 2
    assert "column 'y' holds 'N/A'" in err
    assert "Python: polars_fair.scan_file(path, null_values=['N/A'])" in err
    # what the hint says to a Python user runs, and reads N/A as missing
    scanned = pf.scan_file(path, null_values=["N/A"]).collect()
    assert scanned.schema["y"] == pl.Int64
    assert scanned.get_column("y").null_count() == 1
    # the library's own message for the same failure, through `read_error`
    with pytest.raises(pl.exceptions.ComputeError) as info:
        pf.scan_file(path).collect()
    error = polars_fair.sources.read_error(path, info.value)
    assert isinstance(error, FileReadError)
    assert "polars_fair.scan_file(path, null_values=['N/A'])" in str(error)


def test_label_error_type_in_python_is_label_error(adult: pl.DataFrame) -> None:
    # the CLI's message above is this error's: check it is the library's `LabelError`
    with pytest.raises(LabelError, match="must hold exactly two label values"):
        adult.fair.report(y_true="income-per-year", y_pred="income-per-year",
                          sensitive_features="sex", pos_label=">50k")  # fmt: skip


def test_a_rule_beside_string_labels_in_python() -> None:
    # a boolean prediction is True for `pos_label`, whatever the true labels' values:
    # the same numbers as with the labels recoded by hand
    adult = pl.read_csv(Path(__file__).parent / "data" / "adult_sample.csv")
    rule = pl.col("education-num") >= 13
    kw = {"y_pred": rule, "sensitive_features": "sex"}
    given = adult.fair.by_group(y_true="income-per-year", pos_label=">50K", **kw)
    recoded = adult.with_columns(y=pl.col("income-per-year") == ">50K").fair.by_group(
        y_true="y", **kw
    )
    assert given.equals(recoded)
    with pytest.raises(LabelError, match="'>50k'"):
        adult.fair.by_group(y_true="income-per-year", pos_label=">50k", **kw)
