"""Degenerate inputs on every engine (eager, lazy in-memory, lazy streaming).

One group, one class, no predicted positives, all-null predictions, empty input,
zero weights, null groups, absent reference groups, intersections and batches.
Undefined rates must come out null (never 0, NaN or inf), criteria on them None,
and the eager path must warn while the lazy paths stay silent (warnings are errors
in the pytest configuration, so a stray warning on a lazy path fails the test).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.exceptions import (
    DegenerateDataWarning,
    FairWarning,
    NullDataWarning,
    UndefinedMetricWarning,
)
from polars_fair.metrics._catalogue import CATALOGUE

#: Issue 14: the eager path says when a criterion compares one group with itself,
#: and when a label column never equals `pos_label`.
ONE_GROUP_WARNING = (DegenerateDataWarning, "only one group of ['g'] has rows")
NO_POSITIVE_WARNING = (DegenerateDataWarning, "never equals `pos_label`=1")

IGNORE_WARNINGS = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

KW = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
RATES = list(pf.RATES)
#: Every criterion comparing rates of the statistics table (from the catalogue).
CRITERIA = sorted(name for name, entry in CATALOGUE.items() if entry.family == "rate")


def criterion_kw(name: str, **extra: Any) -> dict[str, Any]:
    """Keyword arguments for criterion `name`: only the label columns it takes."""
    params = inspect.signature(getattr(pf.FairNamespace, name)).parameters
    kw: dict[str, Any] = {"sensitive_features": "g"}
    for label in ("y_true", "y_pred"):
        if label in params:
            kw[label] = label
    if "y_prob" in params:
        kw["y_prob"] = "p"
    return {**kw, **extra}


def is_ratio(name: str) -> bool:
    return name.endswith("_ratio")


@contextlib.contextmanager
def expect_warnings(run: Any, *expected: tuple[type[Warning], str]) -> Iterator[None]:
    """On the eager path, require each (category, text) warning; lazy paths never warn."""
    if run.kind != "eager":
        yield
        return
    with pytest.warns(FairWarning) as record:
        yield
    seen = [(w.category, str(w.message)) for w in record]
    for category, text in expected:
        assert any(issubclass(c, category) and text in m for c, m in seen), (category, text, seen)


def frame(**columns: Any) -> pl.DataFrame:
    schema = {"g": pl.String, "y_true": pl.Int64, "y_pred": pl.Int64, "w": pl.Float64,
              "s": pl.String, "m": pl.String, "p": pl.Float64}  # fmt: skip
    return pl.DataFrame(columns, schema={k: schema[k] for k in columns})


# ---- one group ----------------------------------------------------------------------

# tp = 2, fn = 1, fp = 1, tn = 2: every rate (and FN / FP) is defined and non-zero
ONE_GROUP = frame(
    g=["a"] * 6,
    y_true=[1, 1, 0, 0, 1, 0],
    y_pred=[1, 0, 1, 0, 1, 0],
    p=[0.9, 0.2, 0.7, 0.4, 0.8, 0.1],  # a score, for the balance criteria
)


@pytest.mark.parametrize("name", CRITERIA)
def test_one_group_criteria_are_ideal(run: Any, name: str) -> None:
    ideal = 1.0 if is_ratio(name) else 0.0
    for method in ("between_groups", "to_overall"):
        with expect_warnings(run, ONE_GROUP_WARNING):
            value = run(ONE_GROUP, name, **criterion_kw(name, method=method))
        assert value == pytest.approx(ideal, abs=1e-15), (name, method, value)


def test_one_group_tables(run: Any) -> None:
    table = run(ONE_GROUP, "by_group", **KW)
    assert table.height == 1
    assert table["predicted_positive_share"].to_list() == [1.0]
    assert table.select(RATES).null_count().sum_horizontal().item() == 0
    with expect_warnings(run, ONE_GROUP_WARNING):  # as the summary, eagerly
        disp = run(ONE_GROUP, "disparities", **KW)
    assert disp.height == len(RATES)
    assert disp["difference"].to_list() == [0.0] * len(RATES)
    assert disp["ratio"].to_list() == [1.0] * len(RATES)


def test_one_group_against_itself_has_no_comparison(run: Any) -> None:
    # with `reference_group` the only group is the reference: nothing is compared
    kw = criterion_kw("statistical_parity_difference", reference_group="a")
    with expect_warnings(run, ONE_GROUP_WARNING):
        assert run(ONE_GROUP, "statistical_parity_difference", **kw) is None


@pytest.mark.parametrize("reference", [None, "a"])
def test_one_group_tradeoffs_say_why_they_are_empty(run: Any, reference: str | None) -> None:
    # one block per group other than the reference: none, and the eager path says why
    with expect_warnings(run, ONE_GROUP_WARNING):
        table = run(ONE_GROUP, "tradeoffs", **KW, reference_group=reference)
    assert table.height == 0


# ---- one class in y_true ---------------------------------------------------------------

# rates undefined when every y_true is `cls`, and criteria built on them
UNDEFINED_FOR_CLASS = {
    1: ["false_positive_rate", "true_negative_rate", "balanced_accuracy"],
    0: ["true_positive_rate", "false_negative_rate", "balanced_accuracy"],
}
NULL_CRITERIA_FOR_CLASS = {
    1: [
        "false_positive_rate_difference", "false_positive_rate_ratio",
        "predictive_equality_difference", "predictive_equality_ratio",
        "true_negative_rate_difference", "true_negative_rate_ratio",
        "equalized_odds_difference", "equalized_odds_ratio",
        "average_odds_difference", "average_abs_odds_difference",
        "balanced_accuracy_difference",
    ],
    0: [
        "true_positive_rate_difference", "true_positive_rate_ratio",
        "equal_opportunity_difference", "equal_opportunity_ratio",
        "false_negative_rate_difference", "false_negative_rate_ratio",
        "equalized_odds_difference", "equalized_odds_ratio",
        "average_odds_difference", "average_abs_odds_difference",
        "balanced_accuracy_difference",
    ],
}  # fmt: skip


def one_class(cls: int) -> pl.DataFrame:
    return frame(g=["a", "a", "a", "b", "b", "b"], y_true=[cls] * 6, y_pred=[1, 0, 1, 0, 0, 1])


@pytest.mark.parametrize("cls", [0, 1])
def test_one_class_by_group_shows_null(run: Any, cls: int) -> None:
    undefined = UNDEFINED_FOR_CLASS[cls]
    with expect_warnings(
        run, *((UndefinedMetricWarning, f"{rate} is undefined") for rate in undefined)
    ):
        table = run(one_class(cls), "by_group", **KW)
    for rate in RATES:
        nulls = table[rate].null_count()
        assert nulls == (2 if rate in undefined else 0), (rate, table[rate].to_list())
    assert table["base_rate"].to_list() == [float(cls)] * 2


@pytest.mark.parametrize("cls", [0, 1])
def test_one_class_zero_division_fills(run: Any, cls: int) -> None:
    # no undefined-rate warning: zero_division says what to do (an all-0 y_true still
    # gets the warning that it never equals `pos_label`)
    never = (NO_POSITIVE_WARNING,) if cls == 0 else ()
    with expect_warnings(run, *never) if never else contextlib.nullcontext():
        table = run(one_class(cls), "by_group", **KW, zero_division=0.0)
    for rate in UNDEFINED_FOR_CLASS[cls]:
        assert table[rate].to_list() == [0.0, 0.0], rate
    with expect_warnings(run, *never) if never else contextlib.nullcontext():
        filled = run(one_class(cls), "by_group", **KW, zero_division=0.25)
    rate = UNDEFINED_FOR_CLASS[cls][0]
    assert filled[rate].to_list() == [0.25, 0.25]


@pytest.mark.parametrize("cls", [0, 1])
@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
def test_one_class_criteria_are_none(run: Any, cls: int, method: str) -> None:
    extra: dict[str, Any] = {"method": method}
    if method == "to_reference":
        extra["reference_group"] = "a"
    for name in NULL_CRITERIA_FOR_CLASS[cls]:
        with expect_warnings(run, (UndefinedMetricWarning, "is undefined")):
            value = run(one_class(cls), name, **criterion_kw(name, **extra))
        assert value is None, (name, method, value)


@pytest.mark.parametrize("cls", [0, 1])
def test_one_class_criteria_with_zero_division(run: Any, cls: int) -> None:
    rate = "false_positive_rate" if cls == 1 else "true_positive_rate"
    kw = criterion_kw(f"{rate}_difference")
    never = (NO_POSITIVE_WARNING,) if cls == 0 else ()
    with expect_warnings(run, *never) if never else contextlib.nullcontext():
        assert run(one_class(cls), f"{rate}_difference", **kw, zero_division=0.0) == 0.0
    with expect_warnings(run, *never) if never else contextlib.nullcontext():
        assert run(one_class(cls), f"{rate}_ratio", **kw, zero_division=1.0) == 1.0
    # 0 / 0 is still undefined for a ratio
    with expect_warnings(run, *never) if never else contextlib.nullcontext():
        assert run(one_class(cls), f"{rate}_ratio", **kw, zero_division=0.0) is None


@IGNORE_WARNINGS
def test_undefined_group_left_out_of_comparisons(run: Any) -> None:
    # group "c" has no negatives: its FPR is undefined and it is left out
    df = frame(
        g=["a", "a", "a", "a", "b", "b", "b", "c", "c"],
        y_true=[0, 0, 0, 0, 0, 0, 1, 1, 1],
        y_pred=[1, 0, 0, 0, 1, 1, 1, 0, 1],
    )
    kw = criterion_kw("false_positive_rate_difference")
    # FPR: a = 1/4, b = 2/2
    assert run(df, "false_positive_rate_difference", **kw) == pytest.approx(0.75)
    assert run(df, "false_positive_rate_ratio", **kw) == pytest.approx(0.25)
    # zero_division=0.0 brings "c" back in with FPR 0
    assert run(df, "false_positive_rate_difference", **kw, zero_division=0.0) == 1.0
    assert run(df, "false_positive_rate_ratio", **kw, zero_division=0.0) == 0.0


# ---- no predicted positives ---------------------------------------------------------------

NO_POSITIVES = frame(g=["a", "a", "a", "b", "b"], y_true=[1, 0, 1, 1, 0], y_pred=[0] * 5)


def test_no_predicted_positives(run: Any) -> None:
    with expect_warnings(
        run,
        (UndefinedMetricWarning, "positive_predictive_value is undefined"),
        (UndefinedMetricWarning, "false_discovery_rate is undefined"),
    ):
        table = run(NO_POSITIVES, "by_group", **KW)
    assert table["selection_rate"].to_list() == [0.0, 0.0]
    assert table["true_positive_rate"].to_list() == [0.0, 0.0]
    assert table["false_positive_rate"].to_list() == [0.0, 0.0]
    assert table["f1"].to_list() == [0.0, 0.0]
    for rate in ("positive_predictive_value", "false_discovery_rate", "predicted_positive_share"):
        assert table[rate].null_count() == 2, rate
    assert table["negative_predictive_value"].to_list() == pytest.approx([1 / 3, 1 / 2])


def test_no_predicted_positives_criteria(run: Any) -> None:
    dp = criterion_kw("demographic_parity_difference")
    with expect_warnings(run, NO_POSITIVE_WARNING):
        assert run(NO_POSITIVES, "demographic_parity_difference", **dp) == 0.0
    # min / max = 0 / 0: undefined
    with expect_warnings(run, NO_POSITIVE_WARNING):
        assert run(NO_POSITIVES, "demographic_parity_ratio", **dp) is None
    with expect_warnings(run, (UndefinedMetricWarning, "positive_predictive_value")):
        assert run(NO_POSITIVES, "predictive_parity_difference", **KW) is None
    with expect_warnings(run, (UndefinedMetricWarning, "positive_predictive_value")):
        assert run(NO_POSITIVES, "predictive_parity_ratio", **KW) is None


ALL_POSITIVE = frame(g=["a", "a", "b", "b", "b"], y_true=[1, 0, 0, 1, 0], y_pred=[1] * 5)


def test_all_predicted_positive(run: Any) -> None:
    with expect_warnings(
        run,
        (UndefinedMetricWarning, "negative_predictive_value is undefined"),
        (UndefinedMetricWarning, "false_omission_rate is undefined"),
    ):
        table = run(ALL_POSITIVE, "by_group", **KW)
    assert table["selection_rate"].to_list() == [1.0, 1.0]
    assert table["true_positive_rate"].to_list() == [1.0, 1.0]
    assert table["false_positive_rate"].to_list() == [1.0, 1.0]
    assert table["predicted_positive_share"].to_list() == [0.4, 0.6]
    for rate in ("negative_predictive_value", "false_omission_rate"):
        assert table[rate].null_count() == 2, rate
    dp = criterion_kw("demographic_parity_ratio")
    assert run(ALL_POSITIVE, "demographic_parity_ratio", **dp) == 1.0
    assert run(ALL_POSITIVE, "demographic_parity_difference", **dp) == 0.0


# ---- all-null predictions ---------------------------------------------------------------

ALL_NULL_PRED = frame(g=["a", "a", "b", "b", "b"], y_true=[1, 0, 1, 0, 0], y_pred=[None] * 5)


def test_all_null_predictions_group_stats(run: Any) -> None:
    with expect_warnings(run, (NullDataWarning, "5 row(s)")):
        stats = run(ALL_NULL_PRED, "group_stats", **KW)
    expected = pl.DataFrame(
        {"g": ["a", "b"], "n": [0, 0], "tp": [0, 0], "fp": [0, 0], "fn": [0, 0], "tn": [0, 0],
         "n_null": [2, 3]},
        schema_overrides={c: pl.Int64 for c in ("n", "tp", "fp", "fn", "tn", "n_null")},
    )  # fmt: skip
    assert_frame_equal(stats, expected, check_exact=True)


def test_all_null_predictions_rates_are_null(run: Any) -> None:
    with expect_warnings(
        run, (NullDataWarning, "excluded"), (UndefinedMetricWarning, "selection_rate")
    ):
        table = run(ALL_NULL_PRED, "by_group", **KW)
    assert table["n"].to_list() == [0, 0]
    assert table["n_null"].to_list() == [2, 3]
    for rate in RATES:
        assert table[rate].null_count() == 2, rate


def test_all_null_predictions_criteria_are_none(run: Any) -> None:
    for name in ("demographic_parity_difference", "equalized_odds_difference"):
        with expect_warnings(run, (NullDataWarning, "excluded")):
            assert run(ALL_NULL_PRED, name, **criterion_kw(name)) is None


# ---- empty input --------------------------------------------------------------------------

EMPTY = frame(g=[], y_true=[], y_pred=[], w=[], m=[])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("by", [None, "m"])
def test_empty_group_stats(run: Any, weighted: bool, by: str | None) -> None:
    kw: dict[str, Any] = {**KW, "by": by}
    if weighted:
        kw["sample_weight"] = "w"
    stats = run(EMPTY, "group_stats", **kw)
    count = pl.Float64 if weighted else pl.Int64
    expected = {"g": pl.String, **{c: count for c in ("n", "tp", "fp", "fn", "tn")},
                "n_null": pl.Int64}  # fmt: skip
    if weighted:  # the sums of squared weights (issue 13: effective sizes), then per cell
        for name in ("sum_w2", "tp_w2", "fp_w2", "fn_w2", "tn_w2"):
            expected[name] = pl.Float64
    if by:
        expected = {"m": pl.String, **expected}
    assert stats.height == 0
    assert stats.schema == pl.Schema(expected)


def test_empty_group_stats_prediction_only(run: Any) -> None:
    stats = run(EMPTY, "group_stats", y_pred="y_pred", sensitive_features="g")
    assert stats.height == 0
    assert stats.schema == pl.Schema(
        {"g": pl.String, "n": pl.Int64, "pred_pos": pl.Int64, "pred_neg": pl.Int64,
         "n_null": pl.Int64}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("method", "kw"),
    [
        ("by_group", KW),
        ("disparities", KW),
        ("disparities", {**KW, "reference_group": "a"}),
        ("demographic_parity_difference", criterion_kw("demographic_parity_difference")),
        ("equalized_odds_ratio", KW),
        ("base_rate_difference", criterion_kw("base_rate_difference", method="to_overall")),
        ("statistical_parity_difference",
         criterion_kw("statistical_parity_difference", reference_group="a")),
        ("by_group", {**KW, "by": "m"}),
        ("equalized_odds_difference", {**KW, "by": "m"}),
    ],
)  # fmt: skip
def test_empty_input_raises(run: Any, method: str, kw: dict[str, Any]) -> None:
    with pytest.raises(pf.EmptyDataError, match="no rows to evaluate"):
        run(EMPTY, method, **kw)


def test_empty_input_raises_at_collect_on_lazy_path() -> None:
    lazy = EMPTY.lazy().fair.by_group(**KW)
    assert isinstance(lazy, pl.LazyFrame)
    for engine in ("in-memory", "streaming"):
        with pytest.raises(pf.EmptyDataError):
            lazy.collect(engine=engine)
    filtered = ONE_GROUP.lazy().filter(pl.col("g") == "zz")
    with pytest.raises(pf.EmptyDataError):
        filtered.fair.demographic_parity_ratio(y_pred="y_pred", sensitive_features="g").collect()


# ---- zero weights -------------------------------------------------------------------------

ZERO_WEIGHTS = frame(
    g=["a", "a", "b", "b", "b", "c", "c"],
    y_true=[1, 0, 1, 0, 0, 1, 0],
    y_pred=[1, 1, 0, 1, 1, 1, 0],
    w=[0.0, 0.0, 1.0, 2.0, 0.5, 1.0, 3.0],
)
WKW = {**KW, "sample_weight": "w"}


def test_zero_weight_group_counts(run: Any) -> None:
    stats = run(ZERO_WEIGHTS, "group_stats", **WKW)
    row = stats.row(0, named=True)
    assert row == {
        "g": "a", "n": 0.0, "tp": 0.0, "fp": 0.0, "fn": 0.0, "tn": 0.0, "n_null": 0, "sum_w2": 0.0,
        "tp_w2": 0.0, "fp_w2": 0.0, "fn_w2": 0.0, "tn_w2": 0.0,
    }  # fmt: skip
    assert stats["n"].to_list() == [0.0, 3.5, 4.0]
    assert stats["sum_w2"].to_list() == [0.0, 1.0 + 4.0 + 0.25, 1.0 + 9.0]


def test_zero_weight_group_rates_are_null(run: Any) -> None:
    with expect_warnings(run, (UndefinedMetricWarning, "['a']")):
        table = run(ZERO_WEIGHTS, "by_group", **WKW)
    zero = table.filter(pl.col("g") == "a")
    for rate in RATES:
        if rate == "predicted_positive_share":
            # a share of the population's predicted positives: 0 of a positive total
            assert zero[rate].item() == 0.0
        else:
            assert zero[rate].item() is None, rate
    others = table.filter(pl.col("g") != "a").select(RATES)
    assert others.null_count().sum_horizontal().item() == 0


@IGNORE_WARNINGS
def test_zero_weight_group_left_out_of_criteria(run: Any) -> None:
    # selection rates: a undefined, b = 2.5 / 3.5, c = 1 / 4
    kw = criterion_kw("demographic_parity_difference", sample_weight="w")
    assert run(ZERO_WEIGHTS, "demographic_parity_difference", **kw) == pytest.approx(
        2.5 / 3.5 - 0.25
    )
    assert run(ZERO_WEIGHTS, "demographic_parity_ratio", **kw) == pytest.approx(0.25 / (2.5 / 3.5))
    # the largest group by weight is c (4.0), never the empty one
    disp = run(ZERO_WEIGHTS, "disparities", **WKW, metrics=["selection_rate"])
    assert disp["reference_value"].to_list() == [0.25, 0.25, 0.25]


def test_all_weights_zero(run: Any) -> None:
    df = ZERO_WEIGHTS.with_columns(w=pl.lit(0.0))
    stats = run(df, "group_stats", **WKW)
    assert stats["n"].to_list() == [0.0, 0.0, 0.0]
    with expect_warnings(run, (UndefinedMetricWarning, "selection_rate")):
        table = run(df, "by_group", **WKW)
    for rate in RATES:
        assert table[rate].null_count() == 3, rate


def test_null_weight_rows_are_excluded_and_counted(run: Any) -> None:
    df = frame(
        g=["a", "a", "a", "b"], y_true=[1, 0, None, 1], y_pred=[1, 0, 1, 0], w=[None, 2.0, 1.0, 1.0]
    )
    with expect_warnings(run, (NullDataWarning, "2 row(s)")):
        stats = run(df, "group_stats", **WKW)
    assert stats.rows() == [
        ("a", 2.0, 0.0, 0.0, 0.0, 2.0, 2, 4.0, 0.0, 0.0, 0.0, 4.0),
        ("b", 1.0, 0.0, 0.0, 1.0, 0.0, 0, 1.0, 0.0, 0.0, 1.0, 0.0),
    ]  # then the sum of squared weights of the counted rows, all and per cell


# ---- null sensitive values --------------------------------------------------------------

NULL_GROUP = frame(
    g=[None, "b", "a", None, "b", "a", None],
    y_true=[1, 0, 1, 0, 1, 0, 1],
    y_pred=[1, 1, 0, 1, 0, 0, 1],
)


@IGNORE_WARNINGS
def test_null_group_is_its_own_group_sorted_last(run: Any) -> None:
    stats = run(NULL_GROUP, "group_stats", **KW)
    assert stats["g"].to_list() == ["a", "b", None]
    assert stats["n"].to_list() == [2, 2, 3]
    table = run(NULL_GROUP, "by_group", **KW)
    assert table["g"].to_list() == ["a", "b", None]
    assert table["selection_rate"].to_list() == [0.0, 0.5, 1.0]
    disp = run(NULL_GROUP, "disparities", **KW, metrics=["selection_rate", "accuracy"])
    assert disp["g"].to_list() == ["a", "a", "b", "b", None, None]


@IGNORE_WARNINGS
def test_null_group_counts_in_criteria(run: Any) -> None:
    kw = criterion_kw("demographic_parity_difference")
    assert run(NULL_GROUP, "demographic_parity_difference", **kw) == 1.0
    # the null group is the largest one, hence the default reference
    disp = run(NULL_GROUP, "disparities", **KW, metrics=["selection_rate"])
    assert disp["reference_value"].to_list() == [1.0, 1.0, 1.0]
    # and it can be named as the reference
    ref = run(NULL_GROUP, "statistical_parity_difference", **kw, reference_group=(None,))
    assert ref == -1.0


def test_null_groups_in_intersections_sorted_last(run: Any) -> None:
    df = NULL_GROUP.with_columns(s=pl.Series(["x", None, "y", "x", "x", None, None]))
    stats = run(df, "group_stats", **{**KW, "sensitive_features": ["g", "s"]})
    assert stats.select("g", "s").rows() == [
        ("a", "y"), ("a", None), ("b", "x"), ("b", None), (None, "x"), (None, None),
    ]  # fmt: skip
    assert stats["n"].sum() == df.height


# ---- absent reference group --------------------------------------------------------------

TWO_MODELS = frame(
    m=["m1"] * 6 + ["m2"] * 5,
    g=["a", "a", "a", "b", "b", "c", "b", "b", "b", "c", "c"],
    y_true=[1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0],
    y_pred=[1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0],
)


@pytest.mark.parametrize(
    ("method", "kw"),
    [
        ("disparities", {**KW, "reference_group": "zz"}),
        ("statistical_parity_difference",
         criterion_kw("statistical_parity_difference", reference_group="zz")),
        ("equalized_odds_ratio", {**KW, "reference_group": "zz"}),
        # present in m1, absent in m2
        ("disparities", {**KW, "by": "m", "reference_group": "a"}),
        ("equal_opportunity_difference", {**KW, "by": "m", "reference_group": "a"}),
        # each value occurs, the combination does not
        ("disparities", {**KW, "sensitive_features": ["g", "m"], "reference_group": ("a", "m2")}),
        ("predictive_parity_ratio",
         {**KW, "sensitive_features": ["g", "m"], "reference_group": {"g": "a", "m": "m2"}}),
    ],
)  # fmt: skip
@IGNORE_WARNINGS
def test_absent_reference_group_raises(run: Any, method: str, kw: dict[str, Any]) -> None:
    with pytest.raises(pf.ReferenceGroupError, match="does not occur in the data"):
        run(TWO_MODELS, method, **kw)


@IGNORE_WARNINGS
def test_absent_reference_group_raises_at_collect_on_lazy_path() -> None:
    lf = TWO_MODELS.lazy()
    plans = [
        lf.fair.disparities(**KW, reference_group="zz"),
        lf.fair.demographic_parity_difference(
            y_pred="y_pred", sensitive_features="g", reference_group="zz"
        ),
    ]
    for plan in plans:
        assert isinstance(plan, pl.LazyFrame)  # building the plan reads no data
        for engine in ("in-memory", "streaming"):
            with pytest.raises(pf.ReferenceGroupError):
                plan.collect(engine=engine)


# ---- intersectional reference: dict and tuple ---------------------------------------------

INTERSECTIONAL = frame(
    g=["a", "a", "a", "b", "b", "b", "a", "b", "a", "b"],
    s=["x", "y", "x", "x", "y", "y", "y", "x", "x", "y"],
    y_true=[1, 0, 1, 1, 0, 1, 0, 0, 1, 1],
    y_pred=[1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
)
IKW = {**KW, "sensitive_features": ["g", "s"]}


@IGNORE_WARNINGS
def test_dict_and_tuple_reference_agree(run: Any) -> None:
    as_tuple = run(INTERSECTIONAL, "disparities", **IKW, reference_group=("b", "x"))
    as_dict = run(INTERSECTIONAL, "disparities", **IKW, reference_group={"s": "x", "g": "b"})
    assert_frame_equal(as_tuple, as_dict)
    ref = as_tuple.filter((pl.col("g") == "b") & (pl.col("s") == "x"))
    assert ref["difference"].drop_nulls().abs().max() == 0.0
    names = (
        "statistical_parity_difference",
        "disparate_impact_ratio",
        "equalized_odds_difference",
        "accuracy_difference",
    )
    for name in names:
        kw = criterion_kw(name, sensitive_features=["g", "s"])
        by_tuple = run(INTERSECTIONAL, name, **kw, reference_group=("b", "x"))
        by_dict = run(INTERSECTIONAL, name, **kw, reference_group={"s": "x", "g": "b"})
        assert by_tuple is not None
        assert by_tuple == by_dict, name


# ---- batches: `by=` -------------------------------------------------------------------------


def _per_model(run: Any, name: str, **kw: Any) -> None:
    batched = run(TWO_MODELS, name, **kw, by="m")
    assert isinstance(batched, pl.DataFrame)
    assert batched["m"].unique(maintain_order=True).to_list() == ["m1", "m2"]
    for model in ("m1", "m2"):
        alone = run(TWO_MODELS.filter(pl.col("m") == model).drop("m"), name, **kw)
        mine = batched.filter(pl.col("m") == model).drop("m")
        if isinstance(alone, pl.DataFrame):
            assert_frame_equal(mine, alone)
        else:
            assert mine.columns == [name]
            assert mine.item() == pytest.approx(alone), (name, model)


@IGNORE_WARNINGS
@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("group_stats", KW),
        ("by_group", KW),
        ("disparities", KW),  # "largest" is a in m1 and b in m2
        ("disparities", {**KW, "reference_group": "b"}),
        ("disparities", {**KW, "reference_group": "rest"}),
        ("demographic_parity_difference", criterion_kw("demographic_parity_difference")),
        ("predicted_positive_share_ratio", criterion_kw("predicted_positive_share_ratio")),
        ("equalized_odds_difference", KW),
        ("equalized_odds_ratio", {**KW, "method": "to_overall"}),
        ("statistical_parity_difference",
         criterion_kw("statistical_parity_difference", reference_group="b")),
        ("average_odds_difference", {**KW, "reference_group": "c"}),
        ("false_positive_rate_ratio", {**KW, "reference_group": "largest"}),
    ],
)  # fmt: skip
def test_by_equals_filtering_each_model(run: Any, name: str, kw: dict[str, Any]) -> None:
    _per_model(run, name, **kw)


def test_untyped_all_null_prediction_column(run: Any) -> None:
    """A column of Polars' Null dtype (no type at all) is all-null, not a dtype error."""
    import polars_fair as pf

    df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "p": [None, None, None]})
    assert df.schema["p"] == pl.Null
    if run.kind == "eager":
        with pytest.warns(pf.NullDataWarning, match="3 row"):
            out = run(df, "group_stats", y_true="y", y_pred="p", sensitive_features="g")
    else:
        out = run(df, "group_stats", y_true="y", y_pred="p", sensitive_features="g")
    assert out["n"].to_list() == [0, 0]
    assert out["n_null"].to_list() == [2, 1]
