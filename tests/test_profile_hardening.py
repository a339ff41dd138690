"""Profiles, comparisons and trends against inputs they silently mishandled.

Each test names the defect it guards: comparisons of audits made differently,
``by`` expressions (stored, and named like a column another parameter reads), key
names that collide with the file layout or the tables, corrupt metadata, files
given twice, string baselines, merge messages, tolerances, and the command line.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.cli import main
from polars_fair.exceptions import InvalidParameterError, ProfileError

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

KW = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


def _data(n: int = 400, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 91, n)]
    s = rng.random(n)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "sex": rng.choice(["F", "M"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": s,
            "ts": days,
        }
    )


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    return status, capsys.readouterr().err


# ---- 1. compare: audits made differently, the baseline's type, each side's level ----


@pytest.mark.parametrize("reverse", [False, True])
def test_compare_refuses_other_batch_keys(reverse: bool) -> None:
    df = _data()
    per_sex, whole = df.fair.profile(**KW, by="sex"), df.fair.profile(**KW)
    cand, base = (per_sex, whole) if reverse else (whole, per_sex)
    want = "`by`: [] (baseline) against ['sex']" if reverse else "`by`: ['sex'] (baseline)"
    with pytest.raises(InvalidParameterError, match=r"(?s)cannot compare.*Hint: audit both"):
        cand.compare(base, min_group_size=0)
    with pytest.raises(InvalidParameterError, match=re.escape(want)):
        cand.report(min_group_size=0).compare(base.report(min_group_size=0))


@pytest.mark.parametrize(
    ("option", "baseline", "candidate"),
    [
        ("sensitive_features", "g", "sex"),
        ("pos_label", 1, 0),
        ("reference_group", None, "a"),
        ("method", None, "to_overall"),
        ("min_group_size", 30, 0),
        ("zero_division", None, 0.0),
    ],
)
def test_compare_refuses_other_options(option: str, baseline: object, candidate: object) -> None:
    df = _data()
    base_kw = {**KW, "min_group_size": 0, option: baseline}
    cand_kw = {**KW, "min_group_size": 0, option: candidate}
    base, cand = df.fair.report(**base_kw), df.fair.report(**cand_kw)
    shown_b = ["g"] if option == "sensitive_features" else baseline
    shown_c = ["sex"] if option == "sensitive_features" else candidate
    want = f"`{option}`: {shown_b!r} (baseline) against {shown_c!r} (candidate)"
    with pytest.raises(InvalidParameterError) as exc:
        cand.compare(base)
    assert want in str(exc.value)
    assert "Hint: audit both with the same options" in str(exc.value)


def test_compare_names_every_difference() -> None:
    df = _data()
    base = df.fair.report(**KW, min_group_size=0)
    cand = df.fair.report(**{**KW, "sensitive_features": "sex"}, pos_label=0, min_group_size=5)
    with pytest.raises(InvalidParameterError) as exc:
        cand.compare(base)
    for key in ("sensitive_features", "pos_label", "min_group_size"):
        assert f"`{key}`" in str(exc.value)


def test_compare_needs_a_report_or_a_profile() -> None:
    df = _data()
    report, prof = df.fair.report(**KW), df.fair.profile(**KW)
    with pytest.raises(InvalidParameterError, match="`baseline` must be a FairnessReport, got str"):
        report.compare("baseline.parquet")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="must be a FairnessProfile, got FairnessRep"):
        prof.compare(report)  # type: ignore[arg-type]


def test_compare_reads_each_side_at_its_own_level() -> None:
    df = _data(2000)
    base = df[:1000].fair.report(**KW, min_group_size=0, confidence_level=0.8)
    cand = df[1000:].fair.report(**KW, min_group_size=0, confidence_level=0.95)
    out = cand.compare(base)
    name = "demographic_parity_difference"
    row = out.filter(pl.col("criterion") == name).row(0, named=True)
    b = base.summary.filter(pl.col("criterion") == name).row(0, named=True)
    c = cand.summary.filter(pl.col("criterion") == name).row(0, named=True)
    z80, z95 = NormalDist().inv_cdf(0.9), NormalDist().inv_cdf(0.975)
    se = math.hypot(
        (b["ci_high"] - b["ci_low"]) / (2 * z80), (c["ci_high"] - c["ci_low"]) / (2 * z95)
    )
    change = c["value"] - b["value"]
    assert row["ci_low"] == pytest.approx(change - z95 * se)
    assert row["ci_high"] == pytest.approx(change + z95 * se)


def test_cli_compare_of_other_batch_keys_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = _data()
    df[:200].fair.profile(**KW).write_parquet(tmp_path / "a.parquet")
    df[200:].fair.profile(**KW, by="sex").write_parquet(tmp_path / "b.parquet")
    df[200:].fair.profile(**{**KW, "sensitive_features": "sex"}).write_parquet(
        tmp_path / "c.parquet"
    )
    for base, cand, key in (
        ("b", "a", "`by`"),
        ("a", "b", "`by`"),
        ("a", "c", "`sensitive_features`"),
    ):
        argv = ["compare", str(tmp_path / f"{base}.parquet"), str(tmp_path / f"{cand}.parquet")]
        status, err = _run([*argv, "--fail-on-worse"], capsys)
        assert status == 2
        assert f"differ in {key}" in err
        assert "Hint: audit both with the same options" in err


# ---- 2. `by` expressions are kept and compared ----------------------------------


def test_profiles_of_other_by_expressions_do_not_merge() -> None:
    df = _data()
    month = df[:200].fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    week = df[200:].fair.profile(**KW, by=pl.col("ts").dt.truncate("1w"))
    with pytest.raises(ProfileError, match=r"`by` expressions: \[.*1mo.*\] against \[.*1w.*\]"):
        month + week
    same = df[200:].fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    whole = df.fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    assert (month + same).tables["stats"].equals(whole.tables["stats"])
    with pytest.raises(InvalidParameterError, match="`by` expressions"):
        month.compare(week)


def test_a_name_and_an_expression_of_that_name_differ() -> None:
    df = _data().with_columns(month=pl.col("ts").dt.truncate("1mo"))
    named = df.fair.profile(**KW, by="month")
    expr = df.fair.profile(**KW, by=pl.col("ts").dt.truncate("1w").alias("month"))
    with pytest.raises(ProfileError, match=r"`by` expressions: \['month'\] against"):
        named + expr


def test_profiles_without_the_by_items_still_read_and_merge(tmp_path: Path) -> None:
    df = _data()
    by = pl.col("ts").dt.truncate("1mo")
    old = df[:200].fair.profile(**KW, by=by)
    del old.meta["spec"]["by_items"]  # as written before the items were kept
    old.write_parquet(tmp_path / "old.parquet")
    df[200:].fair.profile(**KW, by=by).write_parquet(tmp_path / "new.parquet")
    merged = pf.read_profile([tmp_path / "old.parquet", tmp_path / "new.parquet"])
    assert merged.tables["stats"].equals(df.fair.profile(**KW, by=by).tables["stats"])
    # and an old profile merges with a profile of another expression: unknown, no error
    week = df[200:].fair.profile(**KW, by=pl.col("ts").dt.truncate("1w"))
    assert (pf.read_profile(tmp_path / "old.parquet") + week).rows == df.height


# ---- 3. a `by` expression named like a column another parameter reads --------------


@pytest.mark.parametrize(
    ("param", "by"),
    [
        ("y_pred", pl.col("s") >= 0.8),
        ("sensitive_features", pl.col("g").str.to_uppercase()),
        ("y_true", pl.col("y") * 2),
    ],
)
def test_by_expression_replacing_a_read_column_is_refused(param: str, by: pl.Expr) -> None:
    df = _data()
    kw = {**KW, "y_pred": pl.col("s") >= 0.5}
    name = by.meta.output_name()
    with pytest.raises(InvalidParameterError) as exc:
        df.fair.profile(**kw, by=by)
    message = str(exc.value)
    assert f"named {name!r}, a column that `{param}` reads" in message
    assert str(by) in message
    assert f".alias('{name}_window')" in message


def test_by_expressions_that_replace_nothing_work() -> None:
    df = _data()
    kw = {**KW, "y_pred": pl.col("s") >= 0.5}
    by = (pl.col("s") >= 0.8).alias("s_window")
    prof = df.fair.profile(**kw, by=by)
    rows = df.with_columns(by).fair.report(**kw, by="s_window", min_group_size=0)
    assert prof.report(min_group_size=0).by_group.equals(rows.by_group)
    month = df.fair.profile(**kw, by=pl.col("ts").dt.truncate("1mo"))  # the documented use
    rows = df.with_columns(pl.col("ts").dt.truncate("1mo")).fair.report(**kw, by="ts")
    assert month.report().by_group.equals(rows.by_group)


# ---- 4. a key named like the file's layout column --------------------------------


@pytest.mark.parametrize("scored", [False, True])
def test_a_key_named_table_round_trips(tmp_path: Path, scored: bool) -> None:
    df = _data().rename({"g": "table"})
    kw = {**KW, "sensitive_features": "table", "y_pred": pl.col("s") >= 0.5}
    prof = df.fair.profile(**kw, y_prob="s" if scored else None, by="sex")
    prof.write_parquet(tmp_path / "t.parquet")
    back = pf.read_profile(tmp_path / "t.parquet")
    for name, table in prof.tables.items():
        assert back.tables[name].equals(table), name
    assert back.tables["stats"]["table"].unique().sort().to_list() == ["a", "b"]


def test_internal_names_stay_refused_as_keys() -> None:
    df = _data().rename({"g": "__pf_table"})
    with pytest.raises(InvalidParameterError, match="'__pf_table'"):
        df.fair.profile(**{**KW, "sensitive_features": "__pf_table"})


def test_files_without_the_layout_record_read_with_table(tmp_path: Path) -> None:
    prof = _data().fair.profile(**KW)
    prof.write_parquet(tmp_path / "p.parquet")
    raw = pl.read_parquet_metadata(tmp_path / "p.parquet")["polars_fair.profile"]
    long = pl.read_parquet(tmp_path / "p.parquet")
    long.write_parquet(tmp_path / "old.parquet", metadata={"polars_fair.profile": raw})
    assert pf.read_profile(tmp_path / "old.parquet").tables["stats"].equals(prof.tables["stats"])


# ---- 5. keys named like a column of the profile's tables -----------------------------


@pytest.mark.parametrize("name", ["score", "sum_prob"])
def test_keys_named_like_score_table_columns(name: str) -> None:
    df = _data().rename({"sex": name})
    kw = {**KW, "y_pred": pl.col("s") >= 0.5}
    plain = df.fair.profile(**kw, by=name)  # without a score there is no clash
    rows = df.fair.report(**kw, by=name, min_group_size=0)
    assert plain.report(min_group_size=0).by_group.equals(rows.by_group)
    with pytest.raises(InvalidParameterError) as exc:
        df.fair.profile(**kw, y_prob="s", by=name)
    assert f"column {name!r} (given as `by`) clashes" in str(exc.value)
    assert "Hint: rename it first" in str(exc.value)


# ---- 6. corrupt or incomplete metadata ------------------------------------------


def _with_meta(path: Path, raw: str) -> None:
    pl.DataFrame({"table": ["stats"], "n": [1]}).write_parquet(
        path, metadata={"polars_fair.profile": raw}
    )


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("{oops", "corrupt profile metadata"),
        ("[1, 2]", "incomplete profile metadata"),
        (json.dumps({"format_version": 1}), "'tables'"),
    ],
)
def test_corrupt_metadata_is_a_profile_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: str, want: str
) -> None:
    bad = tmp_path / "bad.parquet"
    _with_meta(bad, raw)
    with pytest.raises(ProfileError, match=want) as exc:
        pf.read_profile(bad)
    assert str(bad) in str(exc.value)
    _data().fair.profile(**KW).write_parquet(tmp_path / "good.parquet")
    status, err = _run(
        ["compare", str(bad), str(tmp_path / "good.parquet"), "--fail-on-worse"], capsys
    )
    assert status == 2
    assert str(bad) in err


def test_metadata_missing_a_table_entry(tmp_path: Path) -> None:
    prof = _data().fair.profile(**KW)
    meta = {**prof.meta, "columns": {}}
    _with_meta(tmp_path / "p.parquet", json.dumps(meta))
    with pytest.raises(ProfileError, match=r"columns\.stats"):
        pf.read_profile(tmp_path / "p.parquet")


# ---- 7. a file given twice --------------------------------------------------------


def test_a_file_given_twice_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    df = _data()
    df.fair.profile(**KW).write_parquet(tmp_path / "day1.parquet")
    df.fair.profile(**KW).write_parquet(tmp_path / "day2.parquet")
    with pytest.raises(ProfileError, match="day1.parquet' is given twice"):
        pf.read_profile([str(tmp_path / "day*.parquet"), tmp_path / "day1.parquet"])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProfileError, match=re.escape("(as 'day2.parquet' too)")):
        pf.read_profile(["day2.parquet", tmp_path / "day2.parquet"])
    assert pf.read_profile(str(tmp_path / "day*.parquet")).rows == 2 * df.height


# ---- 8. a string baseline for a temporal key ----------------------------------------


@pytest.mark.parametrize("dtype", [pl.Date, pl.Datetime("us"), pl.Datetime("ns", "UTC")])
def test_trend_takes_a_string_baseline_for_a_temporal_key(dtype: pl.DataType) -> None:
    df = _data(2000).with_columns(pl.col("ts").cast(dtype))
    prof = df.fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    window = prof.tables["stats"]["ts"].unique().sort()[1]
    want = prof.trend("demographic_parity_difference", time="ts", baseline=window)
    got = prof.trend("demographic_parity_difference", time="ts", baseline="2024-02-01")
    assert got.equals(want)
    assert got["baseline_window"].unique().to_list() == [window]


@pytest.mark.parametrize(
    ("baseline", "why"),
    [("2024-13-01", "cannot be a value of"), ("2024-02-02", "does not occur in"),
     (3, "does not occur in"), ("x", "cannot be a value of")],
)  # fmt: skip
def test_trend_refuses_a_baseline_that_is_no_window(baseline: object, why: str) -> None:
    prof = _data().fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    with pytest.raises(InvalidParameterError) as exc:
        prof.trend("demographic_parity_difference", time="ts", baseline=baseline)
    message = str(exc.value)
    assert f"`baseline` window {baseline!r} {why} the `time` column 'ts' (Date)" in message
    assert "2024-01-01" in message.split("Hint:")[1]  # the windows


# ---- 9. merge messages ---------------------------------------------------------------


def test_merge_errors_name_the_files_and_stay_short(tmp_path: Path) -> None:
    df = _data()
    df.fair.profile(**KW).write_parquet(tmp_path / "a.parquet")
    df.fair.profile(**{**KW, "y_pred": "y"}).write_parquet(tmp_path / "b.parquet")
    with pytest.raises(ProfileError) as exc:
        pf.read_profile([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    message = str(exc.value)
    assert f"{str(tmp_path / 'a.parquet')!r} and {str(tmp_path / 'b.parquet')!r}" in message
    assert "`y_pred`: 'p' against 'y'" in message
    assert "column 'p' read by the first only" in message
    assert "column dtypes: ;" not in message


def test_table_differences_name_only_the_columns_that_differ() -> None:
    prof = _data().fair.profile(**{**KW, "y_pred": pl.col("s") >= 0.5}, y_prob="s")
    columns = dict(prof.meta["columns"])
    columns["stats"] = [c for c in columns["stats"] if not c.startswith("sum_prob2")]
    older = pf.FairnessProfile(prof.tables, {**prof.meta, "columns": columns})
    with pytest.raises(ProfileError) as exc:
        prof + older
    message = str(exc.value)
    assert "table 'stats' columns: ['sum_prob2_pos', 'sum_prob2_neg'] in the first only" in message
    assert "'calibration'" not in message


def test_cli_profile_names_the_files_that_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = _data()
    df[:200].write_csv(tmp_path / "a.csv")
    df[200:].with_columns(pl.col("g").replace({"a": "1", "b": "2"}).cast(pl.Int64)).write_csv(
        tmp_path / "b.csv"
    )
    argv = [
        "profile",
        str(tmp_path / "a.csv"),
        str(tmp_path / "b.csv"),
        "-o",
        str(tmp_path / "p.parquet"),
    ]
    status, err = _run(
        [*argv, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"], capsys
    )
    assert status == 2
    assert f"{str(tmp_path / 'a.csv')!r} and {str(tmp_path / 'b.csv')!r} cannot be merged" in err
    assert "key dtypes: 'g' String against Int64" in err


# ---- 10. tolerance, column options with two profiles, corrupt data files --------------


@pytest.mark.parametrize("tolerance", [-1.0, float("nan"), float("inf")])
def test_tolerance_must_be_a_finite_non_negative_number(tolerance: float) -> None:
    prof = _data().fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo"))
    report = prof.report(min_group_size=0)
    with pytest.raises(InvalidParameterError, match="`tolerance` must be a finite number >= 0"):
        report.compare(report, tolerance=tolerance)
    with pytest.raises(InvalidParameterError, match="`tolerance`"):
        prof.compare(prof, tolerance=tolerance)
    with pytest.raises(InvalidParameterError, match="`tolerance`"):
        prof.trend("demographic_parity_difference", time="ts", tolerance=tolerance)


def test_cli_compare_checks_its_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    df = _data()
    df.fair.profile(**KW).write_parquet(tmp_path / "a.parquet")
    sides = [str(tmp_path / "a.parquet"), str(tmp_path / "a.parquet")]
    status, err = _run(["compare", *sides, "--tolerance", "-1"], capsys)
    assert (status, "--tolerance must be a finite number >= 0" in err) == (2, True)
    status, err = _run(["compare", *sides, "--y-true", "x", "--score-bins", "10"], capsys)
    assert status == 2
    assert "--y-true, --score-bins cannot be combined with two profiles" in err
    assert main(["compare", *sides, "--min-group-size", "0", "-o", str(tmp_path / "o")]) == 0


@pytest.mark.parametrize("command", ["profile", "compare"])
def test_cli_names_a_corrupt_data_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet PAR1")
    cols = ["--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    if command == "profile":
        argv = ["profile", str(bad), "-o", str(tmp_path / "p.parquet"), *cols]
    else:
        _data().fair.profile(**KW).write_parquet(tmp_path / "a.parquet")
        argv = ["compare", str(tmp_path / "a.parquet"), str(bad), *cols]
    status, err = _run(argv, capsys)
    assert status == 2
    assert f"cannot read {str(bad)!r}" in err


# ---- 11. CSV shards whose numbers read with other dtypes --------------------------


def test_profiles_of_numbers_read_as_other_dtypes_merge() -> None:
    df = _data()
    kw = {**KW, "y_pred": pl.col("s") >= 0.5, "y_prob": "s"}
    whole = df[200:].with_columns(pl.col("s").round(0).cast(pl.Int64))
    merged = df[:200].fair.profile(**kw) + whole.fair.profile(**kw)
    rows = pl.concat([df[:200], whole.with_columns(pl.col("s").cast(pl.Float64))])
    want = rows.fair.report(**kw, min_group_size=0).summary
    assert_frame_equal(merged.report(min_group_size=0).summary, want)
    text = df.with_columns(pl.col("y", "p").cast(pl.String))
    with pytest.raises(ProfileError, match="column 'y' dtype Int64 against String"):
        df.fair.profile(**KW) + text.fair.profile(**KW, pos_label="1")


def test_cli_profiles_csv_shards_with_whole_number_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = _data()
    df[:200].write_csv(tmp_path / "a.csv")
    df[200:].with_columns(pl.col("s").round(0).cast(pl.Int64)).write_csv(tmp_path / "b.csv")
    out = tmp_path / "p.parquet"
    cols = ["--y-true", "y", "--y-pred", "s >= 0.5", "--y-prob", "s", "--sensitive-features", "g"]
    status, err = _run(
        ["profile", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "-o", str(out), *cols], capsys
    )
    assert status == 0, err
    rows = pl.concat(
        [pl.read_csv(tmp_path / "a.csv"), pl.read_csv(tmp_path / "b.csv")], how="vertical_relaxed"
    )
    kw = {**KW, "y_pred": pl.col("s") >= 0.5, "y_prob": "s"}
    assert_frame_equal(
        pf.read_profile(out).tables["stats"], rows.fair.profile(**kw).tables["stats"]
    )


@pytest.mark.parametrize(
    ("baseline", "candidate", "key"),
    [
        ({}, {"sample_weight": "w"},
         "`sample_weight`: unweighted \\(baseline\\) against weighted by 'w'"),
        ({"sample_weight": "w"}, {"sample_weight": "w", "frequency_weights": True},
         "`frequency_weights`: False \\(baseline\\) against True"),
    ],
)  # fmt: skip
def test_compare_refuses_another_reading_of_the_rows(
    baseline: dict[str, object], candidate: dict[str, object], key: str
) -> None:
    df = _data().with_columns(w=pl.int_range(pl.len()) % 3 + 1.0)
    base = df.fair.report(**KW, min_group_size=0, **baseline)  # type: ignore[arg-type]
    cand = df.fair.report(**KW, min_group_size=0, **candidate)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=key):
        cand.compare(base)
    # the weight columns' names may differ
    renamed = df.rename({"w": "weight"}).fair.report(
        **KW,
        min_group_size=0,
        **{**candidate, "sample_weight": "weight"},  # type: ignore[arg-type]
    )
    out = renamed.compare(cand)
    assert out.height == cand.summary.height
    assert out["verdict"].to_list().count("worse") == 0
    assert (out["change"].drop_nulls().abs() < 1e-12).all()


def test_key_dtype_clash_is_said_once_with_its_fix() -> None:
    df = _data()
    a = df.fair.profile(**KW)
    b = df.with_columns(pl.col("g").cast(pl.Categorical)).fair.profile(**KW)
    with pytest.raises(ProfileError) as exc:
        a + b
    text = str(exc.value)
    assert text.count("'g' String against Categorical") == 1
    assert "give the key one dtype in every piece" in text
