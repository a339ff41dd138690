"""Hypothesis invariants of the statistics table, the rates and the criteria.

Every property here follows from the definitions in DESIGN.md sections 3-5, so it
must hold on any input: row order and group names do not matter, the statistics
table is additive, relabelling the positive class swaps the confusion counts,
weights act like row multiplicities, and every rate lies in [0, 1] or is null.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal, assert_series_equal
from strategies import integer_weights, labelled_frames

import polars_fair as pf
from polars_fair.metrics._catalogue import CATALOGUE

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

KW = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
RATES = list(pf.RATES)
TOL = {"rel_tol": 1e-9, "abs_tol": 1e-12}

#: Every scalar criterion of the namespace over confusion counts (``<rate>_difference``,
#: aliases, composites); the score criteria (balance) are tested in test_scores.py.
CRITERIA = sorted(
    name
    for name, entry in CATALOGUE.items()
    if entry.family == "rate" and not name.startswith("balance_for_")
)
#: Criteria whose per-group measure is not a rate in [0, 1] (FN / FP is unbounded).
UNBOUNDED = {"treatment_equality_difference", "treatment_equality_ratio"}

#: Top-level expression functions of (y_true, y_pred) and the by_group column each equals.
PAIR_EXPRESSIONS = [
    pf.true_positive_rate,
    pf.false_negative_rate,
    pf.false_positive_rate,
    pf.true_negative_rate,
    pf.positive_predictive_value,
    pf.negative_predictive_value,
    pf.false_discovery_rate,
    pf.false_omission_rate,
    pf.accuracy,
    pf.error_rate,
    pf.f1,
    pf.balanced_accuracy,
]

frames = labelled_frames(nulls=True)
weighted_frames = labelled_frames(nulls=True, weights=True)
any_frames = st.one_of(frames, weighted_frames)
nonempty_frames = st.one_of(
    labelled_frames(min_rows=1, nulls=True), labelled_frames(min_rows=1, nulls=True, weights=True)
)


def weight_kw(df: pl.DataFrame) -> dict[str, Any]:
    return {"sample_weight": "w"} if "w" in df.columns else {}


def stats(df: pl.DataFrame, **kw: Any) -> pl.DataFrame:
    return df.fair.group_stats(**{**KW, **weight_kw(df), **kw})


def by_group(df: pl.DataFrame, **kw: Any) -> pl.DataFrame:
    return df.fair.by_group(**{**KW, **weight_kw(df), **kw})


def criterion_kw(name: str, df: pl.DataFrame) -> dict[str, Any]:
    params = inspect.signature(getattr(pf.FairNamespace, name)).parameters
    kw: dict[str, Any] = {"sensitive_features": "g", **weight_kw(df)}
    for label in ("y_true", "y_pred"):
        if label in params:
            kw[label] = label
    return kw


def criterion(df: pl.DataFrame, name: str, **kw: Any) -> float | None:
    return getattr(df.fair, name)(**criterion_kw(name, df), **kw)


def assert_close(a: float | None, b: float | None) -> None:
    if a is None or b is None:
        assert a is None, (a, b)
        assert b is None, (a, b)
    else:
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)


def assert_tables_equal(left: pl.DataFrame, right: pl.DataFrame, *, weighted: bool) -> None:
    """Exact for integer counts, a tight tolerance for float weight sums and rates."""
    if weighted:
        assert_frame_equal(left, right, **TOL)
    else:
        assert_frame_equal(left, right, check_exact=True)


# ---- invariance under row order ---------------------------------------------------


@given(df=any_frames, data=st.data())
def test_row_order_invariance(df: pl.DataFrame, data: st.DataObject) -> None:
    perm = data.draw(st.permutations(range(df.height)), label="permutation")
    shuffled = df.select(pl.all().gather(perm))
    weighted = "w" in df.columns
    assert_tables_equal(stats(shuffled), stats(df), weighted=weighted)
    if df.height:
        assert_tables_equal(by_group(shuffled), by_group(df), weighted=weighted)


# ---- additivity of the statistics table ------------------------------------------


def _manual_sum(*tables: pl.DataFrame) -> pl.DataFrame:
    return pl.concat(tables).group_by("g").agg(pl.exclude("g").sum()).sort("g", nulls_last=True)


@given(
    a=labelled_frames(groups=("a", "b"), max_rows=30, nulls=True),
    b=labelled_frames(groups=("b", "c"), max_rows=30, nulls=True),
)
def test_additivity_with_groups_absent_from_a_part(a: pl.DataFrame, b: pl.DataFrame) -> None:
    # "a" never occurs in b and "c" never occurs in a; either part may be empty
    whole = stats(pl.concat([a, b]))
    sa, sb = stats(a), stats(b)
    merged = pf.merge_group_stats(sa, sb)
    assert isinstance(merged, pl.LazyFrame)
    assert_frame_equal(merged.collect(), whole, check_exact=True)
    assert_frame_equal(_manual_sum(sa, sb), whole, check_exact=True)
    lazy_parts = pf.merge_group_stats(
        pf.group_stats(a.lazy(), **KW), pf.group_stats(b.lazy(), **KW)
    ).collect()
    assert_frame_equal(lazy_parts, whole, check_exact=True)


@given(df=any_frames, data=st.data())
def test_additivity_of_any_split(df: pl.DataFrame, data: st.DataObject) -> None:
    cut1 = data.draw(st.integers(0, df.height), label="cut1")
    cut2 = data.draw(st.integers(cut1, df.height), label="cut2")
    parts = [df[:cut1], df[cut1:cut2], df[cut2:]]
    tables = [stats(p) for p in parts]
    whole = stats(df)
    weighted = "w" in df.columns
    if weighted:
        assert whole.schema == tables[0].schema
        # n, tp, fp, fn, tn and the sums of squared weights, all and per cell (additive too)
        assert whole.select(pl.exclude("n_null")).dtypes == [pl.String] + [pl.Float64] * 10
    else:
        assert whole.select(pl.exclude("g")).dtypes == [pl.Int64] * 6
    assert_tables_equal(pf.merge_group_stats(*tables).collect(), whole, weighted=weighted)
    assert_tables_equal(_manual_sum(*tables), whole, weighted=weighted)


# ---- relabelling the positive class -----------------------------------------------


@given(df=st.one_of(labelled_frames(min_rows=1), labelled_frames(min_rows=1, weights=True)))
def test_label_complement(df: pl.DataFrame) -> None:
    # null-free binary labels: pos_label=0 swaps the roles of the two classes
    s1, s0 = stats(df, pos_label=1), stats(df, pos_label=0)
    swapped = s1.select(
        "g", "n", pl.col("tn").alias("tp"), pl.col("fn").alias("fp"),
        pl.col("fp").alias("fn"), pl.col("tp").alias("tn"), "n_null",
        *(["sum_w2"] if "sum_w2" in s1.columns else []),
        *(  # each cell's squared weights swap with the cells
            [pl.col("tn_w2").alias("tp_w2"), pl.col("fn_w2").alias("fp_w2"),
             pl.col("fp_w2").alias("fn_w2"), pl.col("tp_w2").alias("tn_w2")]
            if "tp_w2" in s1.columns else []
        ),
    )  # fmt: skip
    assert_frame_equal(s0, swapped, check_exact=True)

    r1, r0 = by_group(df, pos_label=1), by_group(df, pos_label=0)
    assert_series_equal(r0["selection_rate"], 1 - r1["selection_rate"], **TOL)
    assert_series_equal(r0["base_rate"], 1 - r1["base_rate"], **TOL)
    pairs = {
        "true_positive_rate": "true_negative_rate",
        "true_negative_rate": "true_positive_rate",
        "false_positive_rate": "false_negative_rate",
        "false_negative_rate": "false_positive_rate",
        "positive_predictive_value": "negative_predictive_value",
        "negative_predictive_value": "positive_predictive_value",
        "false_discovery_rate": "false_omission_rate",
        "false_omission_rate": "false_discovery_rate",
        "accuracy": "accuracy",
        "error_rate": "error_rate",
        "balanced_accuracy": "balanced_accuracy",
    }
    for rate0, rate1 in pairs.items():
        assert_series_equal(r0[rate0], r1[rate1], check_names=False, **TOL)


@given(df=st.one_of(labelled_frames(min_rows=1), labelled_frames(min_rows=1, weights=True)))
def test_label_complement_of_criteria(df: pl.DataFrame) -> None:
    # TPR(pos_label=0) == TNR(pos_label=1) per group, so their comparisons agree too
    assert_close(
        criterion(df, "true_positive_rate_difference", pos_label=0),
        criterion(df, "true_negative_rate_difference", pos_label=1),
    )
    # 1 - SR keeps max - min
    assert_close(
        criterion(df, "demographic_parity_difference", pos_label=0),
        criterion(df, "demographic_parity_difference", pos_label=1),
    )


# ---- weights ------------------------------------------------------------------------


@given(df=labelled_frames(min_rows=1, nulls=True, weights=True), c=st.floats(1e-3, 1e3))
def test_weight_scaling_changes_no_rate(df: pl.DataFrame, c: float) -> None:
    scaled = df.with_columns(pl.col("w") * c)
    base, big = by_group(df), by_group(scaled)
    assert_frame_equal(big.select("g", *RATES), base.select("g", *RATES), **TOL)
    assert_frame_equal(
        big.select("n", "tp", "fp", "fn", "tn"),
        base.select(pl.col("n", "tp", "fp", "fn", "tn") * c),
        **TOL,
    )
    assert_series_equal(big["n_null"], base["n_null"])
    for name in ("equalized_odds_difference", "demographic_parity_ratio"):
        assert_close(criterion(scaled, name), criterion(df, name))


@given(df=labelled_frames(min_rows=1, nulls=True, weights=True, weight_values=integer_weights))
def test_integer_weights_equal_duplicated_rows(df: pl.DataFrame) -> None:
    repeats = [i for i, k in enumerate(df["w"].to_list()) for _ in range(int(k))]
    dup = df.drop("w")[repeats]
    weighted = stats(df)
    # groups that weigh nothing vanish from the duplicated frame
    present = set(dup["g"].to_list())
    keep = pl.col("g").is_in([g for g in present if g is not None])
    if None in present:
        keep = keep | pl.col("g").is_null()
    counts = ["g", "n", "tp", "fp", "fn", "tn"]
    dup_stats = stats(dup).select(counts).with_columns(pl.exclude("g").cast(pl.Float64))
    assert_frame_equal(weighted.filter(keep).select(counts), dup_stats, check_exact=True)
    absent = weighted.filter(~keep)
    assert (absent["n"] == 0).all()
    if dup.height:
        rates = ["g", *RATES]
        assert_frame_equal(
            by_group(df).filter(keep).select(rates), by_group(dup).select(rates), **TOL
        )


# ---- ranges and identities of the rates -------------------------------------------


@given(df=nonempty_frames, zd=st.sampled_from([None, 0.0, 1.0]))
def test_every_rate_in_unit_interval_or_null(df: pl.DataFrame, zd: float | None) -> None:
    table = by_group(df, zero_division=zd)
    for rate in RATES:
        col = table[rate]
        assert col.dtype == pl.Float64
        assert not col.is_nan().any(), rate
        assert not col.is_infinite().any(), rate
        values = col.drop_nulls()
        assert ((values >= 0) & (values <= 1)).all(), (rate, col.to_list())
        if zd is not None:
            assert col.null_count() == 0, rate


@given(df=nonempty_frames)
def test_complementary_rates_sum_to_one(df: pl.DataFrame) -> None:
    table = by_group(df)
    complements = [
        ("true_positive_rate", "false_negative_rate"),
        ("false_positive_rate", "true_negative_rate"),
        ("positive_predictive_value", "false_discovery_rate"),
        ("negative_predictive_value", "false_omission_rate"),
        ("accuracy", "error_rate"),
        ("selection_rate", None),
    ]
    for left, right in complements:
        a = table[left]
        b = 1 - a if right is None else table[right]
        assert_series_equal(a.is_null(), b.is_null(), check_names=False)
        total = (a + b).drop_nulls()
        assert ((total - 1).abs() < 1e-12).all(), (left, right, total.to_list())
    # undefined exactly when the denominator is 0
    assert_series_equal(
        table["true_positive_rate"].is_null(), (table["tp"] + table["fn"]) == 0, check_names=False
    )
    assert_series_equal(
        table["false_positive_rate"].is_null(), (table["fp"] + table["tn"]) == 0, check_names=False
    )
    # PPV * SR == TPR * BR (both equal tp / n) wherever all four are defined
    lhs = table["positive_predictive_value"] * table["selection_rate"]
    rhs = table["true_positive_rate"] * table["base_rate"]
    both = lhs.is_not_null() & rhs.is_not_null()
    assert ((lhs.filter(both) - rhs.filter(both)).abs() < 1e-12).all()


# ---- criteria ---------------------------------------------------------------------


@given(
    df=nonempty_frames,
    name=st.sampled_from(CRITERIA),
    method=st.sampled_from(["between_groups", "to_overall"]),
)
def test_criteria_bounds(df: pl.DataFrame, name: str, method: str) -> None:
    value = criterion(df, name, method=method)
    if value is None:
        return
    assert isinstance(value, float)
    assert not math.isnan(value)
    if name.endswith("_ratio"):
        assert 0.0 <= value <= 1.0, (name, method, value)
    else:
        assert value >= 0.0, (name, method, value)
        if name not in UNBOUNDED:
            assert value <= 1.0, (name, method, value)


@given(
    df=nonempty_frames,
    names=st.permutations(["a", "b", "c"]).map(
        lambda p: dict(zip(["a", "b", "c"], p, strict=True))
    ),
    criterion_name=st.sampled_from(CRITERIA),
    method=st.sampled_from(["between_groups", "to_overall"]),
)
def test_group_relabelling_invariance(
    df: pl.DataFrame, names: dict[str, str], criterion_name: str, method: str
) -> None:
    # a bijection of group names (it also changes their sort order) changes no criterion
    renamed = df.with_columns(pl.col("g").replace(names))
    assert_close(
        criterion(renamed, criterion_name, method=method),
        criterion(df, criterion_name, method=method),
    )


@given(df=nonempty_frames, suffix=st.sampled_from(["_x", "0", " (new)"]))
def test_group_renaming_permutes_by_group_rows(df: pl.DataFrame, suffix: str) -> None:
    renamed = df.with_columns(pl.col("g") + suffix)
    expected = by_group(df).with_columns(pl.col("g") + suffix)
    assert_frame_equal(by_group(renamed), expected, check_exact=True)


# ---- surfaces agree -----------------------------------------------------------------


@given(df=nonempty_frames, pos_label=st.sampled_from([1, 0]))
def test_expression_functions_equal_by_group(df: pl.DataFrame, pos_label: int) -> None:
    wkw: dict[str, Any] = {**weight_kw(df), "pos_label": pos_label}
    table = by_group(df, pos_label=pos_label)
    via_expr = (
        df.group_by("g")
        .agg(fn("y_true", "y_pred", **wkw) for fn in PAIR_EXPRESSIONS)
        .sort("g", nulls_last=True)
    )
    names = ["g", *(fn.__name__ for fn in PAIR_EXPRESSIONS)]
    assert via_expr.columns == names
    assert_frame_equal(via_expr, table.select(names), **TOL)

    # one-column rates see only their own label; compare on rows where both are known
    both = df.filter(pl.col("y_true").is_not_null() & pl.col("y_pred").is_not_null())
    if both.height:
        single = (
            both.group_by("g")
            .agg(pf.selection_rate("y_pred", **wkw), pf.base_rate("y_true", **wkw))
            .sort("g", nulls_last=True)
        )
        expected = by_group(both, pos_label=pos_label).select("g", "selection_rate", "base_rate")
        assert_frame_equal(single, expected, **TOL)


@given(df=nonempty_frames)
def test_expression_functions_over_windows(df: pl.DataFrame) -> None:
    wkw = weight_kw(df)
    windowed = df.with_columns(pf.true_positive_rate("y_true", "y_pred", **wkw).over("g"))
    lookup = by_group(df).select("g", pl.col("true_positive_rate").alias("expected"))
    joined = windowed.join(lookup, on="g", how="left", nulls_equal=True)
    assert_series_equal(joined["true_positive_rate"], joined["expected"], check_names=False, **TOL)


@given(
    df=nonempty_frames,
    with_by=st.booleans(),
    name=st.sampled_from(CRITERIA),
    method=st.sampled_from(["between_groups", "to_overall", "to_reference"]),
)
def test_eager_lazy_streaming_agree(
    df: pl.DataFrame, with_by: bool, name: str, method: str
) -> None:
    kw: dict[str, Any] = {**KW, **weight_kw(df)}
    if with_by:
        df = df.with_columns(m=pl.int_range(pl.len()).mod(2).cast(pl.String))
        kw["by"] = "m"
    for table in ("group_stats", "by_group", "disparities"):
        eager = getattr(df.fair, table)(**kw)
        lazy = getattr(df.lazy().fair, table)(**kw)
        assert isinstance(lazy, pl.LazyFrame)
        assert_frame_equal(lazy.collect(engine="in-memory"), eager, **TOL)
        assert_frame_equal(lazy.collect(engine="streaming"), eager, **TOL)
    # one criterion per example (the "largest" reference when method="to_reference")
    ckw = {**criterion_kw(name, df), "method": method}
    if with_by:
        ckw["by"] = "m"
    eager_value = getattr(df.fair, name)(**ckw)
    plan = getattr(df.lazy().fair, name)(**ckw)
    for engine in ("in-memory", "streaming"):
        lazy_value = plan.collect(engine=engine)
        if with_by:
            assert_frame_equal(lazy_value, eager_value, **TOL)
        else:
            assert lazy_value.shape == (1, 1)
            assert_close(lazy_value.item(), eager_value)


def _first_largest(stats_table: pl.DataFrame) -> str | None:
    """The documented tie-break: the first group in sort order among the largest."""
    return stats_table.filter(pl.col("n") == stats_table["n"].max()).row(0, named=True)["g"]


@given(df=nonempty_frames, engine=st.sampled_from(["eager", "in-memory", "streaming"]))
def test_largest_reference_is_first_largest_group(df: pl.DataFrame, engine: str) -> None:
    # Polars' arg_max returns the *last* index of a tie on a column flagged sorted, so
    # the tie-break of reference_group="largest" is worth pinning on every engine.
    kw: dict[str, Any] = {**KW, **weight_kw(df), "metrics": ["selection_rate", "accuracy"]}
    reference = _first_largest(stats(df))
    explicit = df.fair.disparities(**kw, reference_group=(reference,))
    if engine == "eager":
        largest = df.fair.disparities(**kw)
    else:
        largest = df.lazy().fair.disparities(**kw).collect(engine=engine)
    assert_frame_equal(largest, explicit, **TOL)


@given(df=nonempty_frames)
def test_boolean_labels_equal_integer_labels(df: pl.DataFrame) -> None:
    as_bool = df.with_columns(pl.col("y_true", "y_pred").cast(pl.Boolean))
    assert_frame_equal(by_group(as_bool), by_group(df), check_exact=True)
