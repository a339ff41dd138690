"""Fourth bad-input campaign (command-line SQL, hostile groups, exotic dtypes, files).

Every case failed before its fix:

* a group value holding a control character (``"\\x00"``) made ``to_html`` abort the
  whole Python process (vl-convert panicked on the SVG text), and a sensitive column
  whose name holds a line break raised vl-convert's raw ``ValueError``;
* a Duration column as a group or batch key passed the checks and raised Polars' raw
  ``InvalidOperationError`` (no cast of a duration to text) in ``report``,
  ``profile`` and ``slices``;
* Decimal labels with ``pos_label=True`` raised Polars' raw ``SchemaError``; with
  ``pos_label=Decimal("1")`` (or ``--pos-label 1`` on the command line) they were
  refused as "numeric labels need a numeric `pos_label`";
* ``file_profile`` / ``file_group_stats`` of a corrupt file or of a glob matching no
  file raised Polars' raw ``ComputeError``; ``ray_profile(None)`` a raw ``TypeError``;
* a SQL aggregate on the command line (``--y-pred "max(s) >= 0.5"``, ``--by
  "count(*)"``) ran: one value broadcast to every row, audited without a word;
* ``--by "... AS selection_rate"`` was told to write ``--by "selection_rate AS
  selection_rate_"`` (a column the data lacks), and ``--by '... AS ""'`` made a key
  with no name;
* a SQL ``CAST`` that failed on the values was reported as an unreadable file ("check
  that the file is complete");
* ``--reference-group "a, b"`` (one sensitive feature, a group holding a comma) was
  refused as two values, and ``--reference-group "c "`` silently chose group ``c``;
* ``polars-fair compare --format markdown`` wrote a batch key holding ``|`` or a line
  break into its table unescaped (a broken table);
* ``--reference-group 18:30:00`` for a Time column was refused with a hint to pass "a
  Python value" (the command line read it as text only).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_fair.cli import main
from polars_fair.distributed import file_group_stats, file_profile, ray_profile
from polars_fair.exceptions import FileReadError, InvalidParameterError, LabelError
from polars_fair.report import plots

K = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
needs_plot = pytest.mark.skipif(not plots.available(), reason="needs altair and vl-convert")


def frame(n: int = 240, seed: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n),
            "age": rng.integers(18, 80, n),
        }
    )


# ---- charts of hostile group names and column names ----------------------------------------


@needs_plot
def test_a_control_character_in_a_group_does_not_abort_the_html_report() -> None:
    # before: vl-convert panicked and the process aborted (no exception to catch), so
    # the report is made in a child process
    code = (
        "import polars as pl, polars_fair, warnings; warnings.simplefilter('ignore');"
        "df = pl.DataFrame({'g': ['\\x00a'] * 40 + ['\\x1b[31mb'] * 40,"
        " 'y': [0, 1] * 40, 'p': [1, 0, 0, 1] * 20});"
        "html = df.fair.report(y_true='y', y_pred='p', sensitive_features='g').to_html();"
        "print('<svg' in html, '\\u2400a' in html)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]  # charted, the NUL shown as its symbol


@needs_plot
def test_a_line_break_in_a_column_name_is_charted() -> None:
    df = frame().rename({"g": "group\nname"})
    report = df.fair.report(y_true="y", y_pred="p", sensitive_features="group\nname")
    html = report.to_html()
    assert "<svg" in html
    assert "group\u240aname" in html  # the chart's title: the line break as its symbol
    counts = dict(zip(*np.unique(df["group\nname"].to_numpy(), return_counts=True), strict=True))
    assert dict(report.by_group.select("group\nname", "n").iter_rows()) == counts


# ---- exotic dtypes ----------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["sensitive_features", "by"])
def test_a_duration_key_is_refused_with_the_fix(where: str) -> None:
    df = frame().with_columns(k=pl.duration(days=pl.col("age") // 20))
    keys = {"sensitive_features": "k"} if where == "sensitive_features" else {"by": "k"}
    with pytest.raises(InvalidParameterError) as err:
        df.fair.profile(**{**K, **keys})
    text = str(err.value)
    assert f"`{where}` column 'k' has dtype Duration" in text
    assert "pl.col('k').dt.total_days()" in text
    # the fix works, and gives the counts by hand
    fixed = df.with_columns(pl.col("k").dt.total_days())
    got = fixed.fair.report(y_true="y", y_pred="p", sensitive_features="k").by_group
    want = dict(zip(*np.unique(df["age"].to_numpy() // 20, return_counts=True), strict=True))
    assert dict(got.select("k", "n").iter_rows()) == want


@pytest.mark.parametrize("pos_label", [True, False])
def test_decimal_labels_take_a_boolean_pos_label(pos_label: bool) -> None:
    df = frame().with_columns(pl.col("y", "p").cast(pl.Decimal(10, 2)))
    got = df.fair.equalized_odds_difference(
        y_true="y", y_pred="p", sensitive_features="g", pos_label=pos_label
    )
    y, p, g = (frame()[c].to_numpy() for c in ("y", "p", "g"))
    want_pos = int(pos_label)
    yy, pp = y == want_pos, p == want_pos
    tpr = [pp[(g == k) & yy].mean() for k in ("a", "b")]
    fpr = [pp[(g == k) & ~yy].mean() for k in ("a", "b")]
    assert got == pytest.approx(max(abs(tpr[0] - tpr[1]), abs(fpr[0] - fpr[1])), abs=1e-12)


# ---- files read by the distributed helpers -------------------------------------------------


@pytest.mark.parametrize("read", [file_profile, file_group_stats])
@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("empty.parquet", "cannot read '{path}': parquet: File out of specification"),
        ("csv.parquet", "cannot read '{path}': parquet: File out of specification"),
        ("zz*.parquet", "cannot read '{path}': no file matches it\n\nHint: check the folder"),
    ],
)
def test_a_file_that_cannot_be_read_is_named(
    tmp_path: Path, read: object, name: str, says: str
) -> None:
    (tmp_path / "empty.parquet").write_bytes(b"")
    (tmp_path / "csv.parquet").write_text("g,y,p\na,1,0\n")
    path = str(tmp_path / name)
    with pytest.raises(FileReadError) as err:
        read(path, dict(K))  # type: ignore[operator]
    assert str(err.value).startswith(says.format(path=path))


@pytest.mark.parametrize("paths", [None, 5, [1, 2], b"a.parquet"])
def test_ray_profile_needs_paths(paths: object) -> None:
    with pytest.raises(InvalidParameterError, match="`paths` must be a path or a list of paths"):
        ray_profile(paths, **K)  # type: ignore[arg-type]


# ---- SQL options of the command line -------------------------------------------------------


@pytest.fixture
def data(tmp_path: Path) -> str:
    path = tmp_path / "d.parquet"
    frame().write_parquet(path)
    return str(path)


@pytest.mark.parametrize("command", ["audit", "profile", "compare"])
@pytest.mark.parametrize(
    ("option", "sql"),
    [
        ("--y-pred", "max(s) >= 0.5"),
        ("--y-true", "min(age) > 20"),
        ("--sensitive-features", "sum(age)"),
        ("--by", "count(*)"),
        ("--by-key", "avg(s) AS m"),
    ],
)
def test_a_sql_aggregate_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: str,
    command: str, option: str, sql: str,
) -> None:  # fmt: skip
    head = {
        "audit": ["audit", data],
        "compare": ["compare", data, data, "--no-progress"],
        "profile": ["profile", data, "-o", str(tmp_path / "p.parquet"), "--no-progress"],
    }
    cols = {"--y-true": "y", "--y-pred": "p", "--sensitive-features": "g"}
    cols[option if option in cols else "--by"] = sql
    argv = [*head[command], *(x for kv in cols.items() for x in kv)]  # fmt: skip
    if option == "--by-key":
        argv = [*argv[: argv.index("--by")], "--by-key", sql]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{option} {sql!r} is an aggregate: one value for all the rows" in err
    assert "Hint: give an expression of each row's columns" in err
    assert not (tmp_path / "p.parquet").exists()


def test_a_sql_expression_of_each_row_still_runs(
    capsys: pytest.CaptureFixture[str], data: str
) -> None:
    # a literal is one value too, but a constant is what it says; a comparison with an
    # aggregate is one value per row
    argv = ["audit", data, "--y-true", "y", "--sensitive-features", "g", "--format", "json"]
    assert main([*argv, "--y-pred", "s >= avg(s)"]) == 0
    report = json.loads(capsys.readouterr().out)
    s, g = frame()["s"].to_numpy(), frame()["g"].to_numpy()
    want = {k: int((s[g == k] >= s.mean()).sum()) for k in ("a", "b")}
    got = {r["g"]: r["tp"] + r["fp"] for r in report["tables"]["by_group"]}
    assert got == want
    assert main([*argv, "--y-pred", "p", "--by", "'all' AS everyone"]) == 0


@pytest.mark.parametrize(
    ("alias", "says", "fix"),
    [
        ("selection_rate", "'selection_rate', a column polars_fair adds to its results",
         'age > 30 AS selection_rate_key"'),
        ("equalized_odds_difference", "a column polars_fair adds", "AS equalized_odds_difference_key"),
        ('""', "'', a blank name, which no table or file shows", 'e.g. --by "age > 30 AS key"'),
    ],
)  # fmt: skip
def test_a_sql_key_alias_of_a_result_column_or_blank_is_told_a_working_name(
    capsys: pytest.CaptureFixture[str], data: str, alias: str, says: str, fix: str
) -> None:
    argv = ["audit", data, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    assert main([*argv, "--by", f"age > 30 AS {alias}"]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert fix in err
    assert main([*argv, "--by", "age > 30 AS key", "-o", "/dev/null"]) == 0  # the fix works


def test_a_failed_sql_cast_blames_the_expression_not_the_file(
    capsys: pytest.CaptureFixture[str], data: str
) -> None:
    argv = ["audit", data, "--y-true", "y", "--y-pred", "p", "--sensitive-features"]
    assert main([*argv, "CAST(g AS INT)"]) == 2
    err = capsys.readouterr().err
    assert "a cast in an expression given for a column failed" in err
    assert "conversion from `str` to `i32` failed in column 'g'" in err
    assert "TRY_CAST(x AS INT)" in err
    assert "check that the file is complete" not in err
    assert main([*argv, "TRY_CAST(g AS INT)", "-o", "/dev/null"]) == 0  # the fix runs


@pytest.mark.parametrize("group", ["a, b", "c "])
@pytest.mark.parametrize("source", ["data", "profile"])
def test_a_reference_group_holding_a_comma_or_a_space_is_taken_as_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, group: str, source: str
) -> None:
    df = pl.DataFrame({"g": [group] * 40 + ["c"] * 50, "y": [0, 1] * 45, "p": [1, 0, 0] * 30})
    df.write_parquet(tmp_path / "d.parquet")
    df.fair.profile(**K).write_parquet(tmp_path / "p.parquet")
    head = (
        ["audit", str(tmp_path / "d.parquet"), "--y-true", "y", "--y-pred", "p",
         "--sensitive-features", "g"]
        if source == "data"
        else ["audit", "--profile", str(tmp_path / "p.parquet")]
    )  # fmt: skip
    assert main([*head, "--reference-group", group, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["params"]["reference_group"] == group
    rows = [r for r in report["tables"]["disparities"] if r["metric"] == "selection_rate"]
    g, p = df["g"].to_numpy(), df["p"].to_numpy()
    rates = {k: float(p[g == k].mean()) for k in (group, "c")}
    assert {r["g"]: r["reference_value"] for r in rows} == pytest.approx(
        {group: rates[group], "c": rates[group]}
    )


def test_decimal_labels_take_a_decimal_pos_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    df = frame().with_columns(pl.col("y", "p").cast(pl.Decimal(10, 2)))
    y, p, g = (frame()[c].to_numpy() for c in ("y", "p", "g"))
    rates = [p[g == k].mean() for k in ("a", "b")]
    got = df.fair.demographic_parity_difference(
        y_pred="p", sensitive_features="g", pos_label=Decimal("1")
    )
    assert got == pytest.approx(max(rates) - min(rates), abs=1e-12)
    with pytest.raises(LabelError, match="cannot be compared with `pos_label`=Decimal"):
        df.fair.demographic_parity_difference(
            y_pred="p", sensitive_features="g", pos_label=Decimal("NaN")
        )
    # on the command line, --pos-label is read as a decimal for a decimal column
    df.write_parquet(tmp_path / "d.parquet")
    argv = ["audit", str(tmp_path / "d.parquet"), "--y-true", "y", "--y-pred", "p",
            "--sensitive-features", "g", "--format", "json"]  # fmt: skip
    assert main([*argv, "--pos-label", "1.00"]) == 0
    report = json.loads(capsys.readouterr().out)
    got_tp = {r["g"]: r["tp"] for r in report["tables"]["by_group"]}
    assert got_tp == {k: int(((y == 1) & (p == 1) & (g == k)).sum()) for k in ("a", "b")}


def test_compare_markdown_escapes_batch_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    keys = ["a|b", "line\nbreak"]
    df = pl.concat([frame(seed=i).with_columns(m=pl.lit(k)) for i, k in enumerate(keys)])
    kw = {**K, "by": "m"}
    df.fair.profile(**kw).write_parquet(tmp_path / "p.parquet")
    argv = ["compare", str(tmp_path / "p.parquet"), str(tmp_path / "p.parquet")]
    assert main([*argv, "--format", "markdown", "--criteria", "demographic_parity_difference"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    cells = [len(re.split(r"(?<!\\)\|", line)) for line in rows]
    assert len(rows) == 2 + len(keys)  # header, rule, one row per key
    assert set(cells) == {cells[0]}
    assert any(r.startswith(r"| a\|b ") for r in rows)
    assert any(r.startswith("| line break ") for r in rows)


def test_a_time_reference_group_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    df = frame().with_columns(
        t=pl.when(pl.col("g") == "a").then(pl.time(12, 0)).otherwise(pl.time(18, 30))
    )
    df.write_parquet(tmp_path / "d.parquet")
    argv = ["audit", str(tmp_path / "d.parquet"), "--y-true", "y", "--y-pred", "p",
            "--sensitive-features", "t", "--format", "json"]  # fmt: skip
    assert main([*argv, "--reference-group", "18:30:00"]) == 0
    report = json.loads(capsys.readouterr().out)
    p, g = frame()["p"].to_numpy(), frame()["g"].to_numpy()
    rows = [r for r in report["tables"]["disparities"] if r["metric"] == "selection_rate"]
    assert {r["t"]: r["reference_value"] for r in rows} == pytest.approx(
        {"12:00:00": p[g == "b"].mean(), "18:30:00": p[g == "b"].mean()}
    )
