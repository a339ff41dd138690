"""The AUC criteria with sampling weights: DeLong's interval over Kish effective sizes.

Every interval is checked against ``reference_auc.auc_delong_kish``: weighted
placements per row (every positive against every negative), each class's weighted
variance of placements and its Kish effective size, from the definition.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_auc as ref_auc
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.metrics._intervals import z_value
from polars_fair.plans._profile_meta import encode_schema

NAMES = ["roc_auc_difference", "roc_auc_ratio"]
KINDS = {"roc_auc_difference": "difference", "roc_auc_ratio": "ratio"}
COLS = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
KW = {**COLS, "y_pred": "p", "sample_weight": "w"}
Z = z_value(0.95)
DATA = Path("/work/shared/data")


def _frame(
    seed: int = 0, *, step: float = 0.05, sizes: tuple[int, ...] = (90, 70, 60)
) -> pl.DataFrame:
    """Groups a, b, c with their own separations, scores on a grid of `step` (ties),
    predictions ``p`` and sampling weights ``w`` uniform on [0.3, 4]."""
    rng = np.random.default_rng(seed)
    parts = []
    for name, n, shift in zip("abc", sizes, (1.2, 0.6, 0.9), strict=False):
        y = (rng.random(n) < 0.45).astype(np.int64)
        s = np.round(1 / (1 + np.exp(-rng.normal(shift * y, 1.0))) / step) * step
        w = rng.uniform(0.3, 4.0, n)
        parts.append(pl.DataFrame({"g": [name] * n, "y": y, "s": np.clip(s, 0, 1), "w": w}))
    return pl.concat(parts).with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))


def _oracle(df: pl.DataFrame) -> dict[Any, tuple[float | None, float | None, float]]:
    arrays = (df[c].to_numpy() for c in ("g", "y", "s", "w"))
    return ref_auc.per_group_kish(*arrays)


def _close(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def _check_rows(got: pl.DataFrame, oracle: dict[Any, Any]) -> None:
    """Each row's value, interval and sizes are the oracle's for the pair it names."""
    for row in got.iter_rows(named=True):
        kind = KINDS[row["criterion"]]
        a1, v1, n1 = oracle[row["group"]]
        a2, v2, n2 = oracle[row["compared_with"]]
        assert row["interval_method"] == ("delong" if kind == "difference" else "delong_log")
        assert _close(row["value"], a1 - a2 if kind == "difference" else a1 / a2)
        low, high = ref_auc.pair_interval(a1, v1, a2, v2, kind, Z)
        assert _close(row["ci_low"], low), (row, low)
        assert _close(row["ci_high"], high), (row, high)
        assert _close(row["group_n"], n1)
        assert _close(row["compared_n"], n2)
        assert row["note"] is None or "weighted AUC" not in row["note"]


# ---- the report path: eager, lazy, streaming ------------------------------------------


@pytest.mark.parametrize("reference", [None, "b"])
def test_weighted_interval_is_kish_delong(run: Any, reference: str | None) -> None:
    df = _frame(1)
    extra = {"reference_group": reference} if reference else {}
    got = run(df, "summary", **KW, criteria=NAMES, **extra)
    assert got["criterion"].to_list() == NAMES
    _check_rows(got, _oracle(df))
    if reference:
        assert got["compared_with"].to_list() == ["b", "b"]


def test_weighted_roc_table_keeps_the_squares(run: Any) -> None:
    df = _frame(2).with_columns(
        s=pl.when(pl.int_range(pl.len()) % 17 == 0).then(None).otherwise(pl.col("s")),
        w=pl.when(pl.int_range(pl.len()) % 13 == 0).then(None).otherwise(pl.col("w")),
    )
    from polars_fair.reduce_scores import roc_stats  # noqa: PLC0415

    kw = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
    plain = roc_stats(df, **kw).collect()
    assert "pos_w2" not in plain.columns
    got = roc_stats(df, **kw, sample_weight="w").collect()
    assert got.columns == ["g", "score", "n", "pos", "neg", "pos_w2", "neg_w2", "n_null"]
    kept = df.drop_nulls(["s", "w"])
    want = (
        kept.group_by("g", pl.col("s").alias("score"))
        .agg(
            (pl.col("w") ** 2).filter(pl.col("y") == 1).sum().alias("pos_w2"),
            (pl.col("w") ** 2).filter(pl.col("y") == 0).sum().alias("neg_w2"),
        )
        .sort("g", "score")
    )
    mine = got.filter(pl.col("score").is_not_null() & (pl.col("n") > 0))
    assert_frame_equal(mine.select(want.columns), want, rel_tol=1e-12)


def test_unit_weights_give_the_unweighted_interval_exactly() -> None:
    df = _frame(3).with_columns(w=pl.lit(1.0))
    crit = ["roc_auc_ratio", "equal_opportunity_difference", "roc_auc_difference"]
    plain = {k: v for k, v in KW.items() if k != "sample_weight"}
    for extra in ({}, {"reference_group": "c"}):
        weighted = df.fair.summary(**KW, criteria=NAMES, **extra)
        unweighted = df.fair.summary(**plain, criteria=NAMES, **extra)
        assert_frame_equal(weighted, unweighted, check_exact=True)
        assert weighted["ci_low"].null_count() == 0
    report = (
        df.lazy().fair.report(**KW, criteria=crit).summary.filter(pl.col("criterion").is_in(NAMES))
    )
    assert_frame_equal(
        report,
        df.fair.report(**plain, criteria=crit).summary.filter(pl.col("criterion").is_in(NAMES)),
        check_exact=True,
    )
    for options in ({"score_bins": 10}, {"exact_scores": True}):
        w = df.fair.profile(**KW, **options).summary(criteria=NAMES)
        u = df.fair.profile(**plain, **options).summary(criteria=NAMES)
        assert_frame_equal(w, u, check_exact=True)


@pytest.mark.parametrize("scale", [1e-6, 1e6])
def test_rescaled_weights_change_no_interval(scale: float) -> None:
    df = _frame(4)
    base = df.fair.summary(**KW, criteria=NAMES, reference_group="a")
    scaled = df.with_columns(pl.col("w") * scale).fair.summary(
        **KW, criteria=NAMES, reference_group="a"
    )
    cols = ["value", "ci_low", "ci_high", "group_n", "compared_n"]
    assert_frame_equal(scaled.select(cols), base.select(cols), rel_tol=1e-9)
    assert scaled["verdict"].equals(base["verdict"])
    assert base["ci_low"].null_count() == 0


def test_small_groups_are_judged_by_their_kish_size() -> None:
    df = _frame(5, sizes=(90, 70, 60))
    # group c's weights: one row dominates, its effective size is a few rows
    df = df.with_columns(
        w=pl.when((pl.col("g") == "c") & (pl.int_range(pl.len()).over("g") == 0))
        .then(500.0)
        .otherwise(pl.col("w"))
    )
    oracle = _oracle(df)
    assert oracle["c"][2] < 30 < min(oracle["a"][2], oracle["b"][2])
    got = df.fair.summary(**KW, criteria=NAMES)  # min_group_size 30
    assert got["excluded"].to_list() == [f"c (n={oracle['c'][2]:.1f})"] * 2
    _check_rows(got, oracle)


def test_a_class_of_one_effective_row_has_no_variance() -> None:
    df = _frame(6)
    # group c's positives: all but one weigh 0
    first_pos = (pl.col("y") == 1) & (pl.int_range(pl.len()).over("g", "y") == 0)
    df = df.with_columns(
        w=pl.when((pl.col("g") == "c") & (pl.col("y") == 1) & ~first_pos)
        .then(0.0)
        .otherwise(pl.col("w"))
    )
    assert _oracle(df)["c"][1] is None
    got = df.fair.summary(**KW, criteria=NAMES, reference_group="c", min_group_size=0)
    assert got["ci_low"].null_count() == 2
    assert got["value"].null_count() == 0


def test_a_reference_of_one_class_filled_by_zero_division_has_no_interval() -> None:
    df = _frame(12).with_columns(y=pl.when(pl.col("g") == "a").then(1).otherwise(pl.col("y")))
    with pytest.warns(pf.UndefinedMetricWarning, match=r"\['a'\]"):
        got = df.fair.summary(**KW, criteria=NAMES, reference_group="a", zero_division=0.5)
    assert got["value"].null_count() == 0
    assert got["ci_low"].to_list() == [None, None]  # null, not NaN
    assert got["ci_high"].to_list() == [None, None]


# ---- the profile path -----------------------------------------------------------------


def test_binned_profile_is_the_definition_on_floored_scores() -> None:
    df = _frame(7).with_columns(s=(pl.col("s") + 0.013).clip(0, 1))  # scores off the bins
    bins = 10
    prof = df.fair.profile(**KW, score_bins=bins)
    assert {"pos_w2", "neg_w2"} <= set(prof.tables["roc"].columns)
    floored = df.with_columns(s=(pl.col("s") * bins).floor() / bins)
    _check_rows(prof.summary(criteria=NAMES), _oracle(floored))
    _check_rows(prof.summary(criteria=NAMES, reference_group="b"), _oracle(floored))


def test_exact_profile_and_its_merged_pieces_are_the_definition(tmp_path: Path) -> None:
    df = _frame(8)
    prof = df.fair.profile(**KW, exact_scores=True)
    summary = prof.summary(criteria=NAMES)
    _check_rows(summary, _oracle(df))
    assert_frame_equal(summary, df.fair.summary(**KW, criteria=NAMES), rel_tol=1e-12)
    # pieces merged: the same table (counts and squares summed), the same rows
    pieces = [df[:100], df[100:150], df[150:]]
    for i, piece in enumerate(pieces):
        piece.fair.profile(**KW, score_bins=20).write_parquet(tmp_path / f"{i}.parquet")
    merged = pf.read_profile(str(tmp_path / "*.parquet"))
    whole = df.fair.profile(**KW, score_bins=20)
    assert_frame_equal(merged.tables["roc"], whole.tables["roc"], rel_tol=1e-12)
    assert_frame_equal(merged.summary(criteria=NAMES), whole.summary(criteria=NAMES), rel_tol=1e-9)


def _older(prof: pf.FairnessProfile) -> pf.FairnessProfile:
    """`prof` as polars_fair wrote it before ROC tables kept the squared weights."""
    roc = prof.tables["roc"].drop("pos_w2", "neg_w2")
    meta = {
        **prof.meta,
        "columns": {**prof.meta["columns"], "roc": roc.columns},
        "table_schemas": {**prof.meta["table_schemas"], "roc": encode_schema(roc.schema)},
    }
    return pf.FairnessProfile({**prof.tables, "roc": roc}, meta)


def test_an_older_weighted_profile_reports_without_an_interval(tmp_path: Path) -> None:
    df = _frame(9)
    path = tmp_path / "old.parquet"
    _older(df.fair.profile(**KW, score_bins=20)).write_parquet(path)
    old = pf.read_profile(path)
    assert "pos_w2" not in old.tables["roc"].columns
    got = old.summary(criteria=NAMES)
    assert got["interval_method"].to_list() == ["none", "none"]
    assert got["ci_low"].null_count() == 2
    assert all("older polars_fair" in note for note in got["note"])
    new = df.fair.profile(**KW, score_bins=20)
    assert_frame_equal(got["value"].to_frame(), new.summary(criteria=NAMES)["value"].to_frame())
    # sizes are the weight sums there (no squares to give Kish sizes)
    sums = df.group_by("g").agg(pl.col("w").sum()).sort("g")["w"].to_list()
    assert _close(max(got["group_n"][0], got["compared_n"][0]), max(sums))
    assert _close(old.criterion("roc_auc_difference"), new.criterion("roc_auc_difference"))
    crit = ["demographic_parity_difference", "roc_auc_difference"]
    report = old.report(criteria=crit).summary
    assert report["criterion"].to_list() == crit
    assert report["interval_method"][1] == "none"


def test_merging_an_older_weighted_profile_is_refused_naming_the_fix(tmp_path: Path) -> None:
    df = _frame(10)
    old = _older(df[:120].fair.profile(**KW))
    new = df[120:].fair.profile(**KW)
    fix = "profile the older pieces again with this version"
    with pytest.raises(pf.ProfileError, match=r"(?s)'roc' columns.*profile 0 was made by an "
                       rf"older polars_fair.*{fix}"):  # fmt: skip
        pf.merge_profiles([old, new])
    with pytest.raises(pf.ProfileError, match=r"profile 1 was made by an older"):
        new + old
    old.write_parquet(tmp_path / "a.parquet")
    new.write_parquet(tmp_path / "b.parquet")
    with pytest.raises(pf.ProfileError, match=r"'[^']*a\.parquet' was made by an older"):
        pf.read_profile(str(tmp_path / "*.parquet"))
    # two older ones still merge (and still report without the interval)
    both = _older(df[:120].fair.profile(**KW)) + old
    assert both.summary(criteria=NAMES)["interval_method"].to_list() == ["none", "none"]


def test_unweighted_profiles_are_unchanged() -> None:
    df = _frame(11)
    plain = {k: v for k, v in KW.items() if k != "sample_weight"}
    prof = df.fair.profile(**plain)
    assert prof.tables["roc"].columns == ["g", "score", "n", "pos", "neg", "n_null"]
    frequency = df.fair.profile(**KW, score_bins=20)
    rows = frequency.summary(criteria=NAMES, frequency_weights=True)
    assert rows["interval_method"].to_list() == ["delong", "delong_log"]


# ---- real data and coverage ------------------------------------------------------------


def test_adult_weighted_by_fnlwgt_has_an_interval() -> None:
    adult = pl.read_csv(DATA / "adult.csv")
    x = (
        (pl.col("education-num") - 10) / 2.5
        + (pl.col("age") - 38) / 15
        + (pl.col("hours-per-week") - 40) / 12
    )
    df = adult.select(
        g=pl.col("sex"),
        y=(pl.col("income-per-year") == ">50K").cast(pl.Int64),
        s=(1 / (1 + (-x).exp())).round(3),
        w=pl.col("fnlwgt").cast(pl.Float64),
    ).with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))
    got = df.fair.summary(**KW, criteria=NAMES, reference_group="Male")
    assert got["ci_low"].null_count() == 0
    _check_rows(got, _oracle(df))
    # the effective sizes are below the row counts, and far below the weight sums
    female = got["group_n"][0]
    assert female < (df["g"] == "Female").sum() < df.filter(pl.col("g") == "Female")["w"].sum()


def test_interval_of_the_weighted_difference_covers_at_the_stated_rate() -> None:
    """400 draws of two groups (120 rows each, the same score distribution, weights
    uniform on [0.3, 4]): the 95% interval of the difference excluded 0 in 20 of 400
    draws (5.0%) when written (reading the same weights as row counts,
    ``frequency_weights=True``, in 95 of 400: 24%); a correct 95% interval gives 20 on
    average (binomial sd 4.4): we ask for 8 to 36 (within about 3 sd)."""
    rng = np.random.default_rng(2027)
    draws, n = 400, 120
    y = (rng.random((draws, 2 * n)) < 0.4).astype(np.int64)
    s = np.round(1 / (1 + np.exp(-rng.normal(0.8 * y, 1.0))), 3)
    w = rng.uniform(0.3, 4.0, (draws, 2 * n))
    df = pl.DataFrame({
        "draw": np.repeat(np.arange(draws), 2 * n), "g": np.tile(["a"] * n + ["b"] * n, draws),
        "y": y.ravel(), "s": s.ravel(), "w": w.ravel(),
    }).with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))  # fmt: skip
    got = df.fair.summary(**KW, criteria=["roc_auc_difference"], by="draw")
    assert got.height == draws
    assert got["ci_low"].null_count() == 0
    missed = int(((got["ci_low"] > 0) | (got["ci_high"] < 0)).sum())
    assert 8 <= missed <= 36, missed
    for d in (0, 199, 399):  # draw by draw, Kish-DeLong's
        _check_rows(
            got.filter(pl.col("draw") == d).drop("draw"), _oracle(df.filter(pl.col("draw") == d))
        )


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b"]),
            st.integers(0, 1),
            st.integers(0, 10),
            st.floats(0.01, 100.0),
        ),
        min_size=2,
        max_size=40,
    )
)
def test_group_variance_is_the_oracle_s_on_any_weights_and_ties(rows: list[Any]) -> None:
    from polars_fair.metrics._auc import auc_groups  # noqa: PLC0415
    from polars_fair.reduce_scores import roc_stats  # noqa: PLC0415

    df = pl.DataFrame(rows, schema=["g", "y", "s", "w"], orient="row").with_columns(
        pl.col("s") / 10
    )
    roc = roc_stats(df, y_true="y", y_prob="s", sensitive_features="g", sample_weight="w")
    got = auc_groups(roc, ["g"], kish=True).collect()
    oracle = _oracle(df)
    for g, auc, var in got.select("g", "roc_auc", "roc_auc_var").iter_rows():
        want_auc, want_var, _ = oracle[g]
        assert _close(auc, want_auc)
        assert (var is None) == (want_var is None)  # a class of one row: no variance
        if var is not None:
            assert math.isclose(var, want_var, rel_tol=1e-7, abs_tol=1e-15)
