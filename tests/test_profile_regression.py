"""Regression profiles: ``df.fair.profile(..., task="regression")`` keeps the regression sums.

Expected values come from ``tests/reference_regression.py`` (numpy, from the
definitions, no library code); the rows' own methods are the second oracle (the
profile promises what they return). A profile counts a row only when every column it
reads is set, so the references are built from the rows with both values set.
"""

from __future__ import annotations

import math
import re
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_regression as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_profile import Source  # an IO-plugin source counting its reads

import polars_fair as pf
from polars_fair.exceptions import InvalidParameterError, NullDataWarning, ProfileError

KW: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
REG = {"task": "regression"}
#: The sources a profile is made from: a DataFrame, a LazyFrame on each engine.
SOURCES = ("eager", "lazy", "streaming")


def close(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def _data(seed: int = 3, **kw: Any) -> dict[str, list[Any]]:
    return ref.make_data(seed, **kw)


def _frame(data: dict[str, list[Any]]) -> pl.DataFrame:
    schema = {"y_pred": pl.Float64, "y_true": pl.Float64}
    if "w" in data:
        schema["w"] = pl.Float64
    return pl.DataFrame(data, schema_overrides=schema)


def _profile(df: pl.DataFrame, source: str, **kw: Any) -> pf.FairnessProfile:
    if source == "eager":
        return df.fair.profile(**kw, **REG)
    with pl.Config() as cfg:
        cfg.set_engine_affinity("in-memory" if source == "lazy" else "streaming")
        return df.lazy().fair.profile(**kw, **REG)


CASES: dict[str, dict[str, Any]] = {
    "plain": {"data": dict(seed=1), "sens": ["g"]},
    "weighted": {"data": dict(seed=2, groups=tuple("wxyz"), weights=True, rows=400), "sens": ["g"]},
    "nulls": {"data": dict(seed=4, nulls=True), "sens": ["g"]},
    "intersectional-weighted-nulls": {
        "data": dict(seed=6, second=("x", "y"), weights=True, nulls=True), "sens": ["g", "h"],
    },
}  # fmt: skip


def _case(name: str) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    data = _data(**CASES[name]["data"])
    kw = {**KW, "sensitive_features": CASES[name]["sens"]}
    if "w" in data:
        kw["sample_weight"] = "w"
    return data, kw


def _warns(rows: ref.RegRows) -> Any:
    """The eager warning about rows excluded for nulls, where the reference drops some."""
    return pytest.warns(NullDataWarning, match="excluded") if rows.dropped else nullcontext()


def _rows(data: dict[str, list[Any]], kw: dict[str, Any]) -> ref.RegRows:
    return ref.rows_of(data, kw["sensitive_features"], weighted="sample_weight" in kw)


# ---- the kept table and the tables derived from it, against the reference ---------------


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("case", list(CASES))
def test_profile_table_and_measures_vs_reference(source: str, case: str) -> None:
    data, kw = _case(case)
    prof = _profile(_frame(data), source, **kw)
    rows = _rows(data, kw)
    assert prof.task == "regression"
    assert prof.rows == len(data["y_pred"])  # rows excluded for nulls included
    sens = kw["sensitive_features"]
    with _warns(rows):
        stats = prof.regression_stats()
    assert stats.columns == [*sens, "n", "n_null", *ref.SUMS]
    assert stats.schema["n"] == (pl.Float64 if "w" in data else pl.Int64)
    assert [tuple(r) for r in stats.select(sens).rows()] == rows.groups()
    for row in stats.iter_rows(named=True):
        want = ref.stats_of(rows, tuple(row[s] for s in sens))
        assert row["n_null"] == want["n_null"]  # exact counts
        if "w" in data:
            assert close(row["n"], want["n"])
        else:
            assert row["n"] == want["n"]
        for s in ref.SUMS:
            assert close(row[s], want[s]), (s, row, want)
    want_measures = ref.by_group(rows)
    with _warns(rows):
        by_group = prof.regression_by_group()
    for row in by_group.iter_rows(named=True):
        key = tuple(row[s] for s in sens)
        for m in ref.MEASURES:
            assert close(row[m], want_measures[key][m]), (key, m)


@pytest.mark.parametrize("reference", ["largest", "overall", "rest", "min", "named"])
@pytest.mark.parametrize("case", list(CASES))
def test_disparities_vs_reference(case: str, reference: str) -> None:
    data, kw = _case(case)
    rows = _rows(data, kw)
    prof = _frame(data).fair.profile(**kw, **REG)
    key = next(k for k in rows.groups() if k != ref.largest(ref.sizes(rows)))
    given_ref = (key[0] if len(key) == 1 else key) if reference == "named" else reference
    want = ref.disparities(rows, key if reference == "named" else reference)
    with _warns(rows):
        got = prof.regression_disparities(reference_group=given_ref)
    sens = kw["sensitive_features"]
    assert got.height == len(want)
    for row in got.iter_rows(named=True):
        expected = want[(tuple(row[s] for s in sens), row["metric"])]
        for col, value in zip(
            ("value", "reference_value", "difference", "ratio"), expected, strict=True
        ):
            assert close(row[col], value), (row, col, value)


METHODS = ("between_groups", "to_overall", "to_reference", "named")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(ref.CRITERIA))
@pytest.mark.parametrize("case", list(CASES))
def test_every_criterion_of_the_sums_vs_reference(case: str, name: str, method: str) -> None:
    data, kw = _case(case)
    rows = _rows(data, kw)
    measure, kind = ref.CRITERIA[name]
    prof = _frame(data).fair.profile(**kw, **REG)
    if method == "named":
        key = next(k for k in rows.groups() if k != ref.largest(ref.sizes(rows)))
        options: dict[str, Any] = {"reference_group": key[0] if len(key) == 1 else key}
        want = ref.criterion(rows, measure, kind, "to_reference", key)
    else:
        options = {"method": method}
        want = ref.criterion(rows, measure, kind, method, "largest")
    with _warns(rows):
        got = prof.criterion(name, **options)
    assert want is not None
    assert isinstance(got, float)
    assert close(got, want), (got, want)


@pytest.mark.parametrize("case", list(CASES))
def test_zscore_difference_vs_reference(case: str) -> None:
    data, kw = _case(case)
    rows = _rows(data, kw)
    prof = _frame(data).fair.profile(**kw, **REG)
    key = rows.groups()[0]
    for reference, given_ref in (("largest", None), (key, key[0] if len(key) == 1 else key)):
        want = ref.zscore_difference(rows, reference)
        options = {} if given_ref is None else {"reference_group": given_ref}
        with _warns(rows):
            got = prof.criterion("zscore_difference", **options)
        assert close(got, want), (got, want)


def test_with_batch_keys_every_derivation_equals_the_rows() -> None:
    data = _data(21, batches=("m1", "m2"), rows=500, weights=True)
    df = _frame(data)
    kw = {**KW, "by": "batch", "sample_weight": "w"}
    prof = df.lazy().fair.profile(**kw, **REG)
    for name in ("regression_stats", "regression_by_group"):
        assert_frame_equal(getattr(prof, name)(), getattr(df.fair, name)(**kw))
    assert_frame_equal(
        prof.regression_disparities(reference_group="a"),
        df.fair.regression_disparities(**kw, reference_group="a"),
    )
    for name, (measure, _) in ref.CRITERIA.items():
        cols = kw if measure not in ref.PREDICTION_MEASURES else {
            k: v for k, v in kw.items() if k != "y_true"
        }  # fmt: skip
        assert_frame_equal(prof.criterion(name), getattr(df.fair, name)(**cols))
    no_truth = {k: v for k, v in kw.items() if k != "y_true"}
    assert_frame_equal(prof.criterion("zscore_difference"), df.fair.zscore_difference(**no_truth))
    for batch in ("m1", "m2"):  # and the reference, batch by batch
        rows = ref.rows_of(ref.subset(data, "batch", batch), weighted=True)
        got = prof.criterion("rmse_ratio").filter(pl.col("batch") == batch).item(0, "rmse_ratio")
        assert close(got, ref.criterion(rows, "rmse", "ratio", "between_groups"))


def test_the_rows_own_options_pass_through() -> None:
    data, kw = _case("plain")
    df = _frame(data)
    prof = df.fair.profile(**kw, **REG)
    # the profile's own columns may be given again (so `**kw` of the rows works)
    assert close(prof.criterion("mae_ratio", **kw), df.fair.mae_ratio(**kw))  # sums: rounding
    assert_frame_equal(
        prof.regression_disparities(**kw, metrics=["mae"], zero_division=0.0),
        df.fair.regression_disparities(**kw, metrics=["mae"], zero_division=0.0),
    )
    with pytest.raises(InvalidParameterError, match="fixed when the profile is made"):
        prof.regression_by_group(y_true="y_pred")


# ---- slices ----------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
@pytest.mark.parametrize("metric", ["mae", "mean_prediction", "mean_true"])
def test_slices_of_a_mean_equal_the_rows(metric: str, weighted: bool) -> None:
    data = _data(31, second=("x", "y"), weights=weighted, rows=900, batches=("m1", "m2"))
    df = _frame(data).with_columns(k=pl.col("g").cast(pl.String) + "-" + pl.col("h"))
    kw = {**KW, "sensitive_features": ["g", "h", "k"], "by": "batch"}
    if weighted:
        kw["sample_weight"] = "w"
    prof = df.fair.profile(**kw, **REG)
    rows_kw = {k: v for k, v in kw.items() if k != "sensitive_features"}
    for candidates in (["g", "h"], ["g", "h", "k"], ["h"]):
        opts = {"metric": metric, "min_size": 5, "max_depth": 2}
        got = prof.slices(candidates=candidates, **opts)
        want = df.fair.slices(**rows_kw, candidates=candidates, strategy="finest", **opts)
        assert got.height > 0
        assert_frame_equal(got, want)


# ---- merge = whole, round trip -----------------------------------------------------------------


def test_merge_group_stats_sums_regression_tables() -> None:
    """The regression sums were taken for keys: the merge kept one row per part and group."""
    from polars_fair.reduce.regression import regression_stats

    df = _frame(_data(15, weights=True))
    kw = {"y_pred": "y_pred", "y_true": "y_true", "sensitive_features": "g", "sample_weight": "w"}
    parts = [regression_stats(df[:150], **kw), regression_stats(df[150:], **kw)]
    merged = pf.merge_group_stats(*parts).collect()
    whole = regression_stats(df, **kw).collect()
    assert merged.columns == whole.columns
    assert merged["g"].to_list() == whole["g"].to_list() == ["a", "b", "c"]
    assert_frame_equal(merged, whole, check_exact=False)


@settings(max_examples=40)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 80),
    cuts=st.lists(st.integers(0, 80), max_size=4),
    weighted=st.booleans(),
    nulls=st.booleans(),
    by=st.booleans(),
)
def test_profile_of_whole_is_merge_of_pieces(
    seed: int, n: int, cuts: list[int], weighted: bool, nulls: bool, by: bool
) -> None:
    rng = np.random.default_rng(seed)
    null = rng.random((4, n)) < (0.15 if nulls else 0.0)  # truth, prediction, weight, group
    df = pl.DataFrame(
        {
            "g": [None if z else v for z, v in zip(null[3], rng.choice(["a", "b", "c"], n).tolist(), strict=True)],
            "m": (np.arange(n) % 2).tolist(),
            "y_true": [None if z else float(v) for z, v in zip(null[0], rng.normal(size=n), strict=True)],
            "y_pred": [None if z else float(v) for z, v in zip(null[1], rng.normal(size=n).round(3), strict=True)],
            "w": [None if z else float(v) for z, v in zip(null[2], rng.uniform(0.1, 3, n), strict=True)],
        },
        schema_overrides={"g": pl.String, "y_true": pl.Float64, "y_pred": pl.Float64, "w": pl.Float64},
    )  # fmt: skip
    kw = {**KW, "sample_weight": "w" if weighted else None, "by": "m" if by else None}
    bounds = sorted({0, n, *(min(c, n) for c in cuts)})
    pieces = [df[lo:hi] for lo, hi in zip(bounds, bounds[1:], strict=False)]
    whole = df.fair.profile(**kw, **REG)
    merged = pf.merge_profiles([p.fair.profile(**kw, **REG) for p in pieces])
    assert merged.rows == whole.rows == n
    assert merged.meta["pieces"] == len(pieces)
    got, want = merged.tables["regression"], whole.tables["regression"]
    assert got.schema == want.schema
    ints = [c for c, t in want.schema.items() if t.is_integer()]
    assert got.select(ints).equals(want.select(ints))  # bit-identical counts
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-9, abs_tol=1e-9)
    if not weighted:
        assert got["n"].sum() + got["n_null"].sum() == n


def test_merge_by_plus_and_glob(tmp_path: Path) -> None:
    data, kw = _case("intersectional-weighted-nulls")
    df = _frame(data)
    whole = df.fair.profile(**kw, **REG)
    parts = [df[:100], df[100:101], df[101:]]
    for i, part in enumerate(parts):
        part.fair.profile(**kw, **REG).write_parquet(tmp_path / f"p{i}.parquet")
    summed = sum((p.lazy().fair.profile(**kw, **REG) for p in parts), start=0)
    assert isinstance(summed, pf.FairnessProfile)
    read = pf.read_profile(str(tmp_path / "p*.parquet"))
    for merged in (summed, read):
        assert merged.task == "regression"
        assert merged.rows == df.height
        assert_frame_equal(merged.tables["regression"], whole.tables["regression"],
                           check_exact=False)  # fmt: skip
        with pytest.warns(NullDataWarning):
            assert close(merged.criterion("mae_ratio"), whole.criterion("mae_ratio"))


def test_parquet_round_trip_keeps_everything(tmp_path: Path) -> None:
    data = _data(41, batches=(1, 2), weights=True)
    df = _frame(data).with_columns(pl.col("g").cast(pl.Enum(["c", "b", "a"])))
    kw = {**KW, "by": pl.col("batch").cast(pl.Int8).alias("b8"), "sample_weight": "w"}
    prof = df.fair.profile(**kw, **REG)
    prof.write_parquet(tmp_path / "p.parquet")
    back = pf.read_profile(tmp_path / "p.parquet")
    assert back == prof
    assert back.meta == prof.meta
    assert back.task == "regression"
    assert back.meta["key_dtypes"] == {"b8": "Int8", "g": "Enum(categories=['c', 'b', 'a'])"}
    assert back.tables["regression"].schema == prof.tables["regression"].schema
    assert back.tables["regression"].equals(prof.tables["regression"])
    assert "sum_w2" in back.tables["regression"].columns  # the slices' Kish sizes
    assert_frame_equal(back.regression_by_group(), prof.regression_by_group())


def test_a_regression_profile_has_its_own_format_number(tmp_path: Path) -> None:
    """Format 2: a reader of format 1 only (a version of polars_fair without regression
    profiles) refuses it as newer, naming the upgrade; a classification profile stays 1,
    and a file claiming the other task's number is refused."""
    import json

    import pyarrow.parquet as pq

    from polars_fair.plans._profile_meta import parse_meta

    df = _frame(_data(5))
    df.fair.profile(**KW, **REG).write_parquet(tmp_path / "r.parquet")
    raw = pq.read_metadata(tmp_path / "r.parquet").metadata[b"polars_fair.profile"].decode()
    assert json.loads(raw)["format_version"] == 2
    with pytest.raises(ProfileError, match=r"(?s)profile format 2.*reads format 1.*upgrade"):
        parse_meta(raw, "r.parquet", 1, 1)  # what a reader of format 1 alone does
    assert pf.read_profile(tmp_path / "r.parquet").meta["format_version"] == 2
    labels = pl.DataFrame({"g": ["a", "b"], "y": [0, 1], "p": [1, 1]})
    plain = labels.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    assert plain.meta["format_version"] == 1
    wrong = {**json.loads(raw), "format_version": 1}
    with pytest.raises(ProfileError, match="profile format 1"):
        parse_meta(json.dumps(wrong), "r.parquet", 1, 2)


# ---- incompatible merges ------------------------------------------------------------------------


def test_regression_and_classification_profiles_do_not_merge(tmp_path: Path) -> None:
    df = _frame(_data(5))
    reg = df.fair.profile(**KW, **REG)
    cls = df.with_columns(y=pl.col("y_true") > 2, p=pl.col("y_pred") > 2).fair.profile(
        y_true="y", y_pred="p", sensitive_features="g"
    )
    pattern = re.escape("they differ in `task`: 'regression' against 'classification'")
    with pytest.raises(ProfileError, match="(?s)" + pattern + r".*same `task`"):
        reg + cls
    with pytest.raises(ProfileError, match="'classification' against 'regression'"):
        pf.merge_profiles([cls, reg])
    reg.write_parquet(tmp_path / "a.parquet")
    cls.write_parquet(tmp_path / "b.parquet")
    with pytest.raises(ProfileError, match="a.parquet' and '.*b.parquet' cannot be merged"):
        pf.read_profile(str(tmp_path / "*.parquet"))


@pytest.mark.parametrize(
    ("other", "named"),
    [
        ({"y_true": "y_pred", "y_pred": "y_true"}, "`y_true`: 'y_true' against 'y_pred'"),
        ({"sample_weight": "w"}, "`sample_weight`: None against 'w'"),
        ({"by": "batch"}, "`by`: [] against ['batch']"),
        ({"sensitive_features": ["g", "h"]}, "`sensitive_features`: ['g'] against ['g', 'h']"),
    ],
    ids=["columns", "weights", "by", "groups"],
)
def test_regression_profiles_made_otherwise_do_not_merge(other: dict[str, Any], named: str) -> None:
    df = _frame(_data(7, weights=True, batches=("m1", "m2"), second=("x", "y")))
    first = df.fair.profile(**KW, **REG)
    second = df.fair.profile(**{**KW, **other}, **REG)
    with pytest.raises(ProfileError, match=re.escape(named)):
        first + second


def test_a_key_dtype_difference_is_named() -> None:
    df = _frame(_data(8))
    first = df.fair.profile(**KW, **REG)
    second = df.with_columns(pl.col("g").cast(pl.Categorical)).fair.profile(**KW, **REG)
    with pytest.raises(ProfileError, match="key dtypes: 'g' String against Categorical"):
        first + second


# ---- one read, and no read after --------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
def test_profile_reads_once_and_its_derivations_read_nothing(weighted: bool) -> None:
    df = _frame(_data(9, weights=True, second=("x", "y"), batches=("m1", "m2")))
    kw = {**KW, "sensitive_features": ["g", "h"], "by": "batch"}
    if weighted:
        kw["sample_weight"] = "w"
    source = Source(df)
    prof = source.lazy().fair.profile(**kw, **REG)
    assert source.calls == 1
    assert prof.rows == df.height
    source.allowed = False
    assert_frame_equal(prof.regression_by_group(), df.fair.regression_by_group(**kw))
    prof.regression_stats()
    prof.regression_disparities(reference_group="rest")
    for name in [*ref.CRITERIA, "zscore_difference"]:
        prof.criterion(name)
    prof.slices(candidates=["g", "h"], metric="mae", min_size=5)


# ---- what a regression profile refuses, and why --------------------------------------------------


@pytest.fixture
def reg_profile() -> pf.FairnessProfile:
    return _frame(_data(10, batches=("m1", "m2"))).fair.profile(**KW, by="batch", **REG)


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.report(), lambda p: p.summary(), lambda p: p.by_group(),
        lambda p: p.disparities(), lambda p: p.compare(p),
        lambda p: p.trend("rmse_ratio", time="batch"),
        lambda p: p.criterion("demographic_parity_difference"),
        lambda p: p.slices(candidates=["g"], metric="false_positive_rate"),
    ],
    ids=["report", "summary", "by_group", "disparities", "compare", "trend", "rate-criterion",
         "rate-slices"],
)  # fmt: skip
def test_classification_derivations_say_what_a_regression_profile_offers(
    reg_profile: pf.FairnessProfile, call: Any
) -> None:
    with pytest.raises(ProfileError) as err:
        call(reg_profile)
    text = str(err.value)
    assert "no intervals or verdicts" in text
    assert "profile.regression_by_group()" in text
    assert "'rmse_ratio'" in text
    assert "metric='mae'" in text


@pytest.mark.parametrize(
    "name",
    [
        "disparate_impact_quantile", "statistical_parity_quantile", "max_statistical_parity",
        "statistical_parity_auc", "no_disparate_impact_level",
    ],
)  # fmt: skip
def test_quantile_criteria_need_the_rows(reg_profile: pf.FairnessProfile, name: str) -> None:
    assert hasattr(pf.fair(pl.DataFrame()), name)  # a criterion of the rows
    pattern = rf"(?s)quantiles of the predictions.*not a sum.*df\.fair\.{name}\(\.\.\.\)"
    with pytest.raises(ProfileError, match=pattern):
        reg_profile.criterion(name)


def test_unknown_regression_criterion_is_named(reg_profile: pf.FairnessProfile) -> None:
    with pytest.raises(InvalidParameterError, match="did you mean 'rmse_ratio'"):
        reg_profile.criterion("rmse_rato")


def test_a_classification_profile_refuses_regression_derivations() -> None:
    df = pl.DataFrame({"g": ["a", "b"] * 3, "y": [1, 0, 1, 1, 0, 0], "p": [1, 0, 0, 1, 0, 1]})
    prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    assert prof.task == "classification"
    hint = r"(?s)needs a regression profile.*task='regression'"
    for call in (
        prof.regression_stats, prof.regression_by_group, prof.regression_disparities,
        lambda: prof.slices(candidates=["g"], metric="mae"),
    ):  # fmt: skip
        with pytest.raises(ProfileError, match=hint):
            call()
    for name in ("rmse_ratio", "zscore_difference"):
        pattern = rf"(?s)'{name}' is a regression criterion.*with `task='regression'`"
        with pytest.raises(InvalidParameterError, match=pattern):
            prof.criterion(name)
    with pytest.raises(InvalidParameterError, match="is a regression criterion") as err:
        prof.criterion("disparate_impact_quantile")  # a regression profile does not help
    assert "task=" not in str(err.value)
    assert "`df.fair.disparate_impact_quantile(...)`" in str(err.value)


@pytest.mark.parametrize(
    ("option", "named"),
    [
        ({"y_prob": "y_pred"}, "['y_prob']"), ({"pos_label": 0}, "['pos_label']"),
        ({"pos_label": True}, "['pos_label']"), ({"n_bins": 5}, "['n_bins']"),
        ({"score_bins": 10}, "['score_bins']"), ({"exact_scores": True}, "['exact_scores']"),
    ],
)  # fmt: skip
def test_classification_options_are_refused(option: dict[str, Any], named: str) -> None:
    df = _frame(_data(11))
    pattern = "(?s)" + re.escape(named) + r" are options of a classification profile.*Hint: drop"
    with pytest.raises(InvalidParameterError, match=pattern):
        df.fair.profile(**KW, **REG, **option)


@pytest.mark.parametrize("task", ["regresion", None, 1])
def test_task_must_be_known(task: object) -> None:
    df = _frame(_data(12))
    with pytest.raises(InvalidParameterError, match=r"`task` must be one of \['classification'"):
        df.fair.profile(**KW, task=task)  # type: ignore[arg-type]


def test_non_numeric_predictions_are_named() -> None:
    df = _frame(_data(13)).with_columns(pl.col("y_pred").cast(pl.String))
    with pytest.raises(InvalidParameterError, match="'y_pred' must be numeric"):
        df.fair.profile(**KW, **REG)


def test_the_users_frame_is_not_modified() -> None:
    df = _frame(_data(14))
    before = df.clone()
    df.fair.profile(**KW, by=pl.col("g").alias("g2"), **REG)
    assert df.equals(before)


# ---- command line ---------------------------------------------------------------------------------


def test_cli_profile_task_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from polars_fair.cli import main

    df = _frame(_data(16, weights=True, batches=("m1", "m2")))
    for i, lo in enumerate(range(0, df.height, 100)):
        df[lo : lo + 100].write_parquet(tmp_path / f"day{i}.parquet")
    out = tmp_path / "profile.parquet"
    args = [
        "profile", str(tmp_path / "day*.parquet"), "-o", str(out), "--y-true", "y_true",
        "--y-pred", "y_pred", "--sensitive-features", "g", "--by", "batch",
        "--sample-weight", "w", "--no-progress",
    ]  # fmt: skip
    assert main([*args, "--task", "regression"]) == 0
    prof = pf.read_profile(out)
    kw = {**KW, "by": "batch", "sample_weight": "w"}
    assert prof.task == "regression"
    assert prof.rows == df.height
    assert prof.meta["pieces"] == 3
    assert_frame_equal(prof.tables["regression"], df.fair.profile(**kw, **REG).tables[
        "regression"], check_exact=False)  # fmt: skip
    assert_frame_equal(prof.criterion("rmse_ratio"), df.fair.rmse_ratio(**kw))
    capsys.readouterr()
    assert main([*args, "--task", "regression", "--pos-label", "2"]) == 2
    assert "--pos-label cannot be combined with --task regression" in capsys.readouterr().err
    assert main(["audit", "--profile", str(out)]) == 2
    assert "regression profile offers" in capsys.readouterr().err


def test_auc_error_bound_of_a_regression_profile_says_it_keeps_no_scores() -> None:
    df = pl.DataFrame({"g": ["a", "b"] * 2, "y": [1.0, 2, 3, 4], "p": [1.5, 2, 2.5, 4]})
    prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g", task="regression")
    with pytest.raises(pf.ProfileError, match="a regression profile keeps no scores") as err:
        prof.auc_error_bound()
    assert "profile with `y_prob=`" not in str(err.value)  # not a fix for regression
