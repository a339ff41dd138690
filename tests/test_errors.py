"""Every input error of DESIGN.md section 5, with the exact message.

Messages are matched against the constants of :mod:`polars_fair._validate`
(``pytest.raises(..., match=re.escape(MSG_....format(...)))``), so a change of
wording is a deliberate change of both. Schema-level errors are raised when the
method is called, before anything is read (checked on an IO source that fails
if read); data-level errors (label values, weights, reference group, empty input)
are raised on the eager path and inside the lazy plan at ``collect``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source

import polars_fair
from polars_fair import exceptions as exc
from polars_fair._numeric import MSG_WEIGHT_DTYPE, MSG_WEIGHT_VALUES
from polars_fair._validate import (
    MSG_AGG,
    MSG_COLUMN_NOT_FOUND,
    MSG_DUPLICATE_KEY,
    MSG_EMPTY,
    MSG_FRAME,
    MSG_LABEL_DTYPE,
    MSG_LABEL_VALUES,
    MSG_METHOD,
    MSG_NO_SENSITIVE,
    MSG_REFERENCE_ABSENT,
    MSG_REFERENCE_POLICY,
    MSG_REFERENCE_SHAPE,
    MSG_RESERVED,
    MSG_ZERO_DIVISION,
    format_values,
)
from polars_fair.datasets import load_compas

ENGINES = ("eager", "in-memory", "streaming")
PAIR = {"y_true": "y", "y_pred": "p"}


@pytest.fixture
def df() -> pl.DataFrame:
    """Two groups x two sexes, each cell holding tp, fn, fp and tn rows (plus one).

    Every rate is defined in every (intersectional) group, so the eager path
    emits no warning.
    """
    rows = [
        (g, h, y, p)
        for g in ("a", "b")
        for h in ("F", "M")
        for y, p in ((1, 1), (1, 0), (0, 1), (0, 0))
    ]
    rows.append(("a", "F", 1, 1))
    frame = pl.DataFrame(rows, schema=["g", "h", "y", "p"], orient="row")
    return frame.with_columns(
        w=(pl.int_range(pl.len()) % 4 + 1).cast(pl.Float64) / 2,
        # distinct scores in (0, 1), high when predicted positive
        s=pl.col("p") * 0.5 + (pl.int_range(pl.len()) + 1) / 40,
    )


def _replace(frame: pl.DataFrame, column: str, values: dict[int, Any]) -> pl.DataFrame:
    """`frame` with ``column[i] = v`` for each ``i: v`` of `values`."""
    data = frame.get_column(column).to_list()
    for i, v in values.items():
        data[i] = v
    return frame.with_columns(pl.Series(column, data))


def collect(frame: pl.DataFrame, engine: str, method: str, **kwargs: Any) -> Any:
    """Run `method` eagerly, or build it lazily and collect on `engine`."""
    if engine == "eager":
        return getattr(frame.fair, method)(**kwargs)
    return getattr(frame.lazy().fair, method)(**kwargs).collect(engine=engine)


def _unreadable(schema: pl.Schema) -> pl.LazyFrame:
    """A LazyFrame whose source fails if it is ever read."""

    def read(*_: Any) -> Iterator[pl.DataFrame]:
        msg = "the data source was read"
        raise AssertionError(msg)
        yield pl.DataFrame()  # pragma: no cover

    return register_io_source(read, schema=schema)


def _available(frame: pl.DataFrame) -> list[str]:
    return list(frame.columns)


# ---- frames and columns ---------------------------------------------------------------


@pytest.mark.parametrize("bad", [{"g": ["a"]}, [1, 2], None])
def test_not_a_frame(bad: Any) -> None:
    msg = MSG_FRAME.format(type_name=type(bad).__name__)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        polars_fair.group_stats(bad, y_pred="p", sensitive_features="g")


@pytest.mark.parametrize(
    ("param", "kwargs", "hint"),
    [
        (
            "sensitive_features",
            {**PAIR, "sensitive_features": "race"},
            "pass an existing column as `sensitive_features=`",
        ),
        (
            "sensitive_features",
            {**PAIR, "sensitive_features": ["g", "race"]},
            "pass an existing column as `sensitive_features=`",
        ),
        (
            "by",
            {**PAIR, "sensitive_features": "g", "by": "race"},
            "pass an existing column as `by=`",
        ),
        (
            "y_true",
            {"y_true": "race", "y_pred": "p", "sensitive_features": "g"},
            "pass the true label column as `y_true=`",
        ),
        (
            "y_pred",
            {"y_true": "y", "y_pred": "race", "sensitive_features": "g"},
            "pass the prediction column as `y_pred=`",
        ),
        (
            "sample_weight",
            {**PAIR, "sensitive_features": "g", "sample_weight": "race"},
            "pass the weight column as `sample_weight=`",
        ),
    ],
)
@pytest.mark.parametrize(
    "method", ["group_stats", "by_group", "disparities", "equalized_odds_difference"]
)
def test_unknown_column(
    df: pl.DataFrame, param: str, kwargs: dict[str, Any], hint: str, method: str
) -> None:
    msg = MSG_COLUMN_NOT_FOUND.format(name="race", param=param, available=_available(df), hint=hint)
    with pytest.raises(exc.ColumnNotFoundError, match=re.escape(msg)):
        getattr(df.fair, method)(**kwargs)
    # raised from the schema when the lazy method is called, nothing read
    with pytest.raises(exc.ColumnNotFoundError, match=re.escape(msg)):
        getattr(_unreadable(df.schema).fair, method)(**kwargs)


def test_unknown_column_is_also_a_polars_error(df: pl.DataFrame) -> None:
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="race"):
        df.fair.by_group(**PAIR, sensitive_features="race")
    with pytest.raises(exc.FairError):
        df.fair.by_group(**PAIR, sensitive_features="race")


def test_unknown_column_in_expression_names_column_and_available(df: pl.DataFrame) -> None:
    with pytest.raises(exc.ColumnNotFoundError) as info:
        df.fair.by_group(y_true="y", y_pred=pl.col("score") >= 0.5, sensitive_features="g")
    text = str(info.value)
    assert "score" in text
    assert "(given as `y_pred`)" in text
    assert f"available columns: {_available(df)}" in text


def test_unknown_column_in_expression_exact_message(df: pl.DataFrame) -> None:
    msg = MSG_COLUMN_NOT_FOUND.format(
        name="score",
        param="y_pred",
        available=_available(df),
        hint="pass the prediction column as `y_pred=`",
    )
    with pytest.raises(exc.ColumnNotFoundError, match=re.escape(msg)):
        df.fair.by_group(y_true="y", y_pred=pl.col("score") >= 0.5, sensitive_features="g")


def test_no_sensitive_feature(df: pl.DataFrame) -> None:
    msg = MSG_NO_SENSITIVE.format(value=[])
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        df.fair.by_group(**PAIR, sensitive_features=[])


def test_duplicate_key(df: pl.DataFrame) -> None:
    msg = MSG_DUPLICATE_KEY.format(name="g")
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        df.fair.by_group(**PAIR, sensitive_features="g", by="g")


@pytest.mark.parametrize("name", ["n", "tp", "n_null", "metric", "value", "ratio"])
@pytest.mark.parametrize("param", ["sensitive_features", "by"])
def test_key_named_like_an_output_column(df: pl.DataFrame, name: str, param: str) -> None:
    frame = df.with_columns(pl.col("h").alias(name))
    kwargs: dict[str, Any] = {**PAIR, "sensitive_features": "g", param: name}
    msg = MSG_RESERVED.format(name=name, param=param)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        frame.fair.by_group(**kwargs)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        _unreadable(frame.schema).fair.disparities(**kwargs)


# ---- label dtypes and values ------------------------------------------------------------


BOOL_HINT = (
    "boolean labels use `pos_label=True` (the default 1 means True); to make False the"
    ' positive label, negate `{param}`, e.g. `{param}=~pl.col("flag")`'
)


@pytest.mark.parametrize(
    ("dtype", "pos_label", "hint"),
    [
        (pl.String, 1, 'string labels need a string `pos_label`, e.g. `pos_label="yes"`'),
        (pl.Int64, "yes", "numeric labels need a numeric `pos_label`, e.g. `pos_label=1`"),
        (pl.Float64, "1", "numeric labels need a numeric `pos_label`, e.g. `pos_label=1`"),
        (pl.Boolean, 0, BOOL_HINT),
        (pl.Boolean, "True", BOOL_HINT),
        (pl.Date, 1, "labels must be boolean, numeric or string"),
    ],
)
@pytest.mark.parametrize("param", ["y_true", "y_pred"])
def test_label_dtype_vs_pos_label(
    df: pl.DataFrame, dtype: pl.DataType, pos_label: Any, hint: str, param: str
) -> None:
    frame = df.with_columns(pl.col("y").cast(dtype).alias("label"))
    kwargs = {"y_true": "label", "y_pred": "label", "sensitive_features": "g"}
    msg = MSG_LABEL_DTYPE.format(
        param="y_true", name="label", dtype=dtype, pos_label=pos_label,
        hint=hint.format(param="y_true"),
    )  # fmt: skip
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        frame.fair.by_group(**kwargs, pos_label=pos_label)
    # one label alone is checked the same way, before anything is read
    # (a boolean prediction alone too: `pos_label` is then its own, and False, 0 or
    # "True" would be silently read as True)
    alone = {param: "label", "sensitive_features": "g", "pos_label": pos_label}
    msg = MSG_LABEL_DTYPE.format(
        param=param, name="label", dtype=dtype, pos_label=pos_label,
        hint=hint.format(param=param),
    )  # fmt: skip
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        _unreadable(frame.schema).fair.group_stats(**alone)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pos_label", [0, 1])
def test_a_boolean_rule_is_true_for_the_true_labels_pos_label(
    df: pl.DataFrame, engine: str, pos_label: int
) -> None:
    """With `y_true`, a rule's True is the positive label, whichever value that is."""
    rule = pl.col("s") >= 0.5
    got = collect(df, engine, "group_stats", y_true="y", y_pred=rule, sensitive_features="g",
                  pos_label=pos_label).sort("g")  # fmt: skip
    y = df.get_column("y").to_numpy() == pos_label
    p = df.get_column("s").to_numpy() >= 0.5
    for g in ("a", "b"):
        in_g = df.get_column("g").to_numpy() == g
        row = got.filter(pl.col("g") == g).row(0, named=True)
        assert row["tp"] == int((in_g & y & p).sum())
        assert row["fp"] == int((in_g & ~y & p).sum())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pos_label", [False, 0])
def test_a_boolean_prediction_alone_refuses_a_false_pos_label(engine: str, pos_label: Any) -> None:
    """Without `y_true`, `pos_label=False` asked for False as positive: it was read as True.

    On COMPAS the disparate impact of ``decile_score >= 5`` was reported where that of
    ``decile_score < 5`` was asked for; the fix the message gives, negating the rule,
    gives the asked-for number (checked against numpy).
    """
    compas = load_compas()
    rule = pl.col("decile_score") >= 5
    msg = MSG_LABEL_DTYPE.format(
        param="y_pred", name="decile_score", dtype=pl.Boolean, pos_label=pos_label,
        hint=BOOL_HINT.format(param="y_pred"),
    )  # fmt: skip
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(compas, engine, "disparate_impact_ratio", y_pred=rule,
                sensitive_features="race", pos_label=pos_label)  # fmt: skip
    got = collect(compas, engine, "disparate_impact_ratio", y_pred=~rule,
                  sensitive_features="race")  # fmt: skip
    if isinstance(got, pl.DataFrame):
        got = got.item()
    low = compas.get_column("decile_score").to_numpy() < 5
    race = compas.get_column("race").to_numpy()
    rates = [low[race == r].mean() for r in np.unique(race)]
    assert got == pytest.approx(min(rates) / max(rates), rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "method", ["group_stats", "by_group", "disparities", "equal_opportunity_difference"]
)
def test_label_with_a_third_value(df: pl.DataFrame, engine: str, method: str) -> None:
    """A 2 is not silently cast to True: the plan raises, naming the values found."""
    frame = _replace(df, "y", {2: 2})
    assert sorted(frame.get_column("y").unique()) == [0, 1, 2]
    msg = MSG_LABEL_VALUES.format(
        param="y_true",
        name="y",
        pos_label=1,
        found="[0, 1, 2]",
        hint="recode the labels to two values, or set `pos_label` to the favourable value",
    )
    if engine != "eager":
        # the lazy method builds its plan without error: the check runs at collect
        plan = getattr(frame.lazy().fair, method)(**PAIR, sensitive_features="g")
        assert isinstance(plan, pl.LazyFrame)
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(frame, engine, method, **PAIR, sensitive_features="g")


@pytest.mark.parametrize("engine", ENGINES)
def test_prediction_with_a_third_value(df: pl.DataFrame, engine: str) -> None:
    frame = _replace(df, "p", {2: 2})
    msg = MSG_LABEL_VALUES.format(
        param="y_pred",
        name="p",
        pos_label=1,
        found="[0, 1, 2]",
        hint="threshold a score, e.g. `y_pred=pl.col('p') >= 0.5`, or set `pos_label` to the favourable value",
    )
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(frame, engine, "demographic_parity_difference", y_pred="p", sensitive_features="g")


@pytest.mark.parametrize("engine", ENGINES)
def test_string_label_with_a_third_value(engine: str) -> None:
    frame = pl.DataFrame({"g": ["a", "a", "b", "b"], "y": ["yes", "no", "maybe", "no"]})
    msg = MSG_LABEL_VALUES.format(
        param="y_true",
        name="y",
        pos_label="yes",
        found="['maybe', 'no', 'yes']",
        hint="recode the labels to two values, or set `pos_label` to the favourable value",
    )
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(
            frame,
            engine,
            "base_rate_difference",
            y_true="y",
            sensitive_features="g",
            pos_label="yes",
        )


@pytest.mark.parametrize("engine", ENGINES)
def test_labels_disagree_between_columns(df: pl.DataFrame, engine: str) -> None:
    """y_true in {0, 1} and y_pred in {1, 2}: each has two values, together three."""
    frame = df.with_columns(p=pl.when(pl.col("p") == 0).then(2).otherwise(1))
    msg = MSG_LABEL_VALUES.format(
        param="y_true and y_pred",
        name="y / p",
        pos_label=1,
        found="[0, 1, 2]",
        hint="both columns must use the same two label values",
    )
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(frame, engine, "by_group", **PAIR, sensitive_features="g")


@pytest.mark.parametrize("engine", ENGINES)
def test_probability_passed_as_y_pred(df: pl.DataFrame, engine: str) -> None:
    """A float score is not a prediction: the message suggests a threshold."""
    # the first ten values found (in repr order), then a count of the others
    found = sorted(df.get_column("s").to_list(), key=repr)
    assert len(found) == 17
    msg = MSG_LABEL_VALUES.format(
        param="y_pred",
        name="s",
        pos_label=1,
        found=format_values(found),
        hint="threshold a score, e.g. `y_pred=pl.col('s') >= 0.5`, or set `pos_label` to the favourable value",
    )
    with pytest.raises(exc.LabelError, match=re.escape(msg)):
        collect(
            df, engine, "equalized_odds_difference", y_true="y", y_pred="s", sensitive_features="g"
        )
    # the suggested fix works
    fixed = collect(
        df,
        engine,
        "equalized_odds_difference",
        y_true="y",
        y_pred=pl.col("s") >= 0.5,
        sensitive_features="g",
    )
    assert fixed is not None


@pytest.mark.parametrize("engine", ENGINES)
def test_many_values_are_elided(engine: str) -> None:
    frame = pl.DataFrame({"g": ["a"] * 20, "p": [i / 20 for i in range(20)]})
    with pytest.raises(exc.LabelError, match=re.escape("and 10 more]")):
        collect(frame, engine, "group_stats", y_pred="p", sensitive_features="g")


# ---- weights ------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "bad",
    [
        {1: -1.0},
        {2: float("nan")},
        {0: -1.0, 2: float("nan"), 11: -0.5},
        {2: -3},
        {4: float("inf")},
    ],
    ids=["negative", "nan", "both", "negative-int", "inf"],
)
def test_negative_or_nan_weights(df: pl.DataFrame, engine: str, bad: dict[int, float]) -> None:
    # the message counts the invalid weights and shows the lowest (NaN when only NaN)
    numbers = [v for v in bad.values() if v == v]
    lowest = min(numbers) if numbers else float("nan")
    found = f"{len(bad)} negative, infinite or NaN weight(s), e.g. {lowest:g}"
    if all(isinstance(v, int) for v in bad.values()):
        df = df.with_columns(pl.col("w").cast(pl.Int64) + 1)
    frame = _replace(df, "w", bad)
    assert frame.schema["w"] == df.schema["w"]
    msg = MSG_WEIGHT_VALUES.format(name="w", found=found)
    with pytest.raises(exc.ValueRangeError, match=re.escape(msg)):
        collect(frame, engine, "by_group", **PAIR, sensitive_features="g", sample_weight="w")
    with pytest.raises(exc.ValueRangeError, match=re.escape(msg)):
        collect(
            frame,
            engine,
            "demographic_parity_ratio",
            y_pred="p",
            sensitive_features="g",
            sample_weight="w",
        )


@pytest.mark.parametrize(
    "weights",
    [pl.lit("1"), pl.lit(True), pl.lit(None, dtype=pl.Date)],
    ids=["string", "bool", "date"],
)
def test_non_numeric_weights(df: pl.DataFrame, weights: pl.Expr) -> None:
    frame = df.with_columns(w=weights)
    msg = MSG_WEIGHT_DTYPE.format(name="w", dtype=frame.schema["w"])
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        frame.fair.by_group(**PAIR, sensitive_features="g", sample_weight="w")
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        _unreadable(frame.schema).fair.by_group(**PAIR, sensitive_features="g", sample_weight="w")


# ---- parameters ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", True, [0.0], "warn", float("nan"), 2, -1.0, 1.5])
@pytest.mark.parametrize("method", ["by_group", "disparities", "equal_opportunity_ratio"])
def test_bad_zero_division(df: pl.DataFrame, value: Any, method: str) -> None:
    msg = MSG_ZERO_DIVISION.format(value=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(df.fair, method)(**PAIR, sensitive_features="g", zero_division=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(_unreadable(df.schema).fair, method)(
            **PAIR, sensitive_features="g", zero_division=value
        )


@pytest.mark.parametrize("value", ["max", "between", "overall", 1])
def test_bad_method(df: pl.DataFrame, value: Any) -> None:
    msg = MSG_METHOD.format(value=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        df.fair.equal_opportunity_difference(**PAIR, sensitive_features="g", method=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        _unreadable(df.schema).fair.equal_opportunity_difference(
            **PAIR, sensitive_features="g", method=value
        )


@pytest.mark.parametrize("value", ["max", "worst", None, "mean "])
@pytest.mark.parametrize("method", ["equalized_odds_difference", "equalized_odds_ratio"])
def test_bad_agg(df: pl.DataFrame, value: Any, method: str) -> None:
    msg = MSG_AGG.format(value=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(df.fair, method)(**PAIR, sensitive_features="g", agg=value)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(_unreadable(df.schema).fair, method)(**PAIR, sensitive_features="g", agg=value)


@pytest.mark.parametrize("frame_kind", ["eager", "lazy"])
def test_unknown_metric_in_disparities(df: pl.DataFrame, frame_kind: str) -> None:
    frame: Any = df if frame_kind == "eager" else _unreadable(df.schema)
    with pytest.raises(
        exc.InvalidParameterError, match=re.escape("`metrics` must name rates from")
    ):
        frame.fair.disparities(**PAIR, sensitive_features="g", metrics=["foo"], zero_division=0.0)


def test_unknown_metric_in_eager_disparities_default_zero_division(df: pl.DataFrame) -> None:
    with pytest.raises(
        exc.InvalidParameterError, match=re.escape("`metrics` must name rates from")
    ):
        df.fair.disparities(**PAIR, sensitive_features="g", metrics=["foo"])


# ---- reference groups -------------------------------------------------------------------


@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("criterion", ["equal_opportunity_difference", "disparate_impact_ratio"])
def test_reference_group_with_a_method_that_ignores_it(
    df: pl.DataFrame, method: str, criterion: str
) -> None:
    labels = {"y_pred": "p"} if criterion == "disparate_impact_ratio" else PAIR
    msg = (
        f"`reference_group` is only used with `method`='to_reference', got `method`={method!r}"
        "\n\nHint: drop `method` or `reference_group`"
    )
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(df.fair, criterion)(
            **labels, sensitive_features="g", reference_group="a", method=method
        )
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(_unreadable(df.schema).fair, criterion)(
            **labels, sensitive_features="g", reference_group="a", method=method
        )


@pytest.mark.parametrize("policy", ["min", "overall", "rest"])
def test_reference_policy_without_a_single_group(df: pl.DataFrame, policy: str) -> None:
    """A criterion needs one reference group: "min"/"overall"/"rest" are for `disparities`."""
    msg = MSG_REFERENCE_POLICY.format(value=policy, method="to_reference")
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        df.fair.equal_opportunity_difference(**PAIR, sensitive_features="g", reference_group=policy)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "method", ["disparities", "equal_opportunity_difference", "average_odds_difference"]
)
def test_reference_group_absent(df: pl.DataFrame, engine: str, method: str) -> None:
    msg = MSG_REFERENCE_ABSENT.format(value="z", where="", present="['a', 'b']")
    if engine != "eager":
        # the schema cannot tell: the lazy method builds, the plan raises at collect
        plan = getattr(df.lazy().fair, method)(**PAIR, sensitive_features="g", reference_group="z")
        assert isinstance(plan, pl.LazyFrame)
    with pytest.raises(exc.ReferenceGroupError, match=re.escape(msg)):
        collect(df, engine, method, **PAIR, sensitive_features="g", reference_group="z")


@pytest.mark.parametrize("engine", ENGINES)
def test_reference_group_absent_in_one_batch(engine: str) -> None:
    frame = pl.DataFrame({"m": ["x", "x", "y", "y"], "g": ["a", "b", "b", "c"], "p": [1, 0, 1, 0]})
    msg = MSG_REFERENCE_ABSENT.format(value="a", where=" for {'m': 'y'}", present="['b', 'c']")
    with pytest.raises(exc.ReferenceGroupError, match=re.escape(msg)):
        collect(
            frame,
            engine,
            "selection_rate_difference",
            y_pred="p",
            sensitive_features="g",
            by="m",
            reference_group="a",
        )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("reference", [("b", "M"), {"h": "M", "g": "b"}], ids=["tuple", "dict"])
def test_intersectional_reference_absent(engine: str, reference: Any) -> None:
    frame = pl.DataFrame({"g": ["a", "a", "b", "b"], "h": ["F", "M", "F", "F"], "p": [1, 0, 1, 0]})
    msg = MSG_REFERENCE_ABSENT.format(
        value=("b", "M"), where="", present="[('a', 'F'), ('a', 'M'), ('b', 'F')]"
    )
    with pytest.raises(exc.ReferenceGroupError, match=re.escape(msg)):
        collect(
            frame,
            engine,
            "selection_rate_difference",
            y_pred="p",
            sensitive_features=["g", "h"],
            reference_group=reference,
        )


@pytest.mark.parametrize(
    ("sensitive", "reference", "shown"),
    [
        (["g"], ("a", "F"), ("a", "F")),
        (["g", "h"], ("a",), ("a",)),
        (["g", "h"], ("a", "F", "x"), ("a", "F", "x")),
        (["g", "h"], "a", "a"),
        (["g", "h"], {"g": "a"}, {"g": "a"}),
        (["g"], {"x": "a"}, {"x": "a"}),
    ],
)
@pytest.mark.parametrize("method", ["disparities", "equal_opportunity_difference"])
def test_reference_of_the_wrong_shape(
    df: pl.DataFrame, sensitive: list[str], reference: Any, shown: Any, method: str
) -> None:
    msg = MSG_REFERENCE_SHAPE.format(
        names=sensitive, value=shown, example={s: "..." for s in sensitive}
    )
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(df.fair, method)(**PAIR, sensitive_features=sensitive, reference_group=reference)
    with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
        getattr(_unreadable(df.schema).fair, method)(
            **PAIR, sensitive_features=sensitive, reference_group=reference
        )


def test_reference_shape_checked_before_reading(df: pl.DataFrame) -> None:
    """Proof of the order: data with an undefined rate would warn if it were read."""
    frame = df.with_columns(p=pl.lit(0))  # no predicted positives: PPV undefined
    msg = MSG_REFERENCE_SHAPE.format(names=["g"], value=("a", "F"), example={"g": "..."})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(exc.InvalidParameterError, match=re.escape(msg)):
            frame.fair.disparities(**PAIR, sensitive_features="g", reference_group=("a", "F"))
    assert [str(w.message) for w in seen] == []


# ---- empty input -------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "method",
    [
        "by_group",
        "disparities",
        "equal_opportunity_difference",
        "demographic_parity_ratio",
        "equalized_odds_ratio",
    ],
)
@pytest.mark.parametrize("by", [None, "h"])
def test_empty_input_for_criteria(
    df: pl.DataFrame, engine: str, method: str, by: str | None
) -> None:
    msg = MSG_EMPTY.format(where="")
    labels = {"y_pred": "p"} if method.startswith("demographic") else PAIR
    with pytest.raises(exc.EmptyDataError, match=re.escape(msg)):
        collect(df.clear(), engine, method, **labels, sensitive_features="g", by=by)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_input_filtered_upstream(df: pl.DataFrame, engine: str) -> None:
    empty = df.filter(pl.col("g") == "nobody")
    with pytest.raises(exc.EmptyDataError, match=re.escape(MSG_EMPTY.format(where=""))):
        collect(
            empty,
            engine,
            "equalized_odds_difference",
            **PAIR,
            sensitive_features="g",
            reference_group="a",
        )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("weighted", [False, True])
def test_empty_input_for_group_stats_is_an_empty_table(
    df: pl.DataFrame, engine: str, weighted: bool
) -> None:
    out = collect(
        df.clear(), engine, "group_stats", **PAIR, sensitive_features="g", by="h",
        sample_weight="w" if weighted else None,
    )  # fmt: skip
    count = pl.Float64 if weighted else pl.Int64
    assert out.height == 0
    expected = {
        "h": pl.String, "g": pl.String, "n": count, "tp": count, "fp": count,
        "fn": count, "tn": count, "n_null": pl.Int64,
    }  # fmt: skip
    if weighted:  # the sums of squared weights (effective sizes): all, then per cell
        for name in ("sum_w2", "tp_w2", "fp_w2", "fn_w2", "tn_w2"):
            expected[name] = pl.Float64
    assert out.schema == pl.Schema(expected)


# ---- one base class ----------------------------------------------------------------------


def test_every_error_is_a_fair_error_and_a_builtin() -> None:
    assert issubclass(exc.InvalidParameterError, (exc.FairError, ValueError))
    assert issubclass(exc.InvalidParameterError, TypeError)
    for cls in (exc.LabelError, exc.ValueRangeError, exc.ReferenceGroupError, exc.EmptyDataError):
        assert issubclass(cls, exc.FairError)
        assert issubclass(cls, ValueError)
    assert issubclass(exc.ColumnNotFoundError, pl.exceptions.ColumnNotFoundError)


@pytest.mark.parametrize("dtype", [pl.List(pl.String), pl.Array(pl.String, 1)])
@pytest.mark.parametrize("param", ["sensitive_features", "by"])
def test_key_column_of_lists(df: pl.DataFrame, dtype: pl.DataType, param: str) -> None:
    frame = df.with_columns(pl.concat_list(pl.col("g").cast(pl.String)).cast(dtype).alias("k"))
    kwargs: dict[str, Any] = {**PAIR, "sensitive_features": "g", param: "k"}
    with pytest.raises(exc.InvalidParameterError, match=r"`.*` column 'k' has dtype .*lists") as e:
        frame.fair.by_group(**kwargs)
    ns = "list" if isinstance(dtype, pl.List) else "arr"
    assert f"pl.col('k').{ns}.first()" in str(e.value)
    # the hint works: one value per row
    fixed = frame.with_columns(getattr(pl.col("k"), ns).first())
    assert (
        fixed.fair.by_group(**kwargs).height
        == df.fair.by_group(**PAIR, sensitive_features="g").height
    )


@pytest.mark.parametrize(
    "criterion", ["balance_for_positive_class_difference", "balance_for_negative_class_ratio"]
)
def test_score_criterion_without_a_score(df: pl.DataFrame, criterion: str) -> None:
    with pytest.raises(exc.InvalidParameterError, match=f"'{criterion}' compares mean scores"):
        df.fair.summary(**PAIR, sensitive_features="g", criteria=[criterion])


_PARAM_CASES = {
    "report-ratio-band-none": ("report", {"ratio_band": None}, "`ratio_band`"),
    "report-ratio-band-number": ("report", {"ratio_band": 0.8}, "`ratio_band`"),
    "report-criteria-int": ("report", {"criteria": 1}, "`criteria`"),
    "summary-criteria-int": ("summary", {"criteria": 1}, "`criteria`"),
    "summary-reference-expr": ("summary", {"reference_group": pl.col("g")}, "`reference_group`"),
    "disparities-reference-expr": (
        "disparities", {"reference_group": pl.col("g")}, "`reference_group`"
    ),
    "report-reference-expr": ("report", {"reference_group": pl.col("g")}, "`reference_group`"),
    "summary-method-expr": ("summary", {"method": pl.col("g")}, "`method`"),
    "summary-rule-expr": ("summary", {"verdict_rule": pl.col("g")}, "`verdict_rule`"),
    "summary-frequency-weights-text": ("summary", {"frequency_weights": "yes"}, "True or False"),
    "report-frequency-weights-text": ("report", {"frequency_weights": "yes"}, "True or False"),
    "profile-by-int": ("profile", {"by": 1}, "`by`"),
}  # fmt: skip


@pytest.mark.parametrize(("method", "extra", "named"), _PARAM_CASES.values(), ids=_PARAM_CASES)
def test_misused_parameters_are_named(
    df: pl.DataFrame, method: str, extra: dict[str, Any], named: str
) -> None:
    with pytest.raises(exc.InvalidParameterError, match=re.escape(named)):
        getattr(df.fair, method)(**PAIR, sensitive_features="g", **extra)


@pytest.mark.parametrize("param", ["correction", "strategy", "direction"])
def test_slice_choices_given_an_expression(df: pl.DataFrame, param: str) -> None:
    with pytest.raises(exc.InvalidParameterError, match=f"`{param}`"):
        df.fair.slices(**PAIR, candidates=["g"], **{param: pl.col("g")})


def test_a_rate_without_its_labels(df: pl.DataFrame) -> None:
    with pytest.raises(exc.InvalidParameterError, match="needs both `y_true` and `y_pred`"):
        df.fair.equalized_odds_difference(y_true=None, y_pred="p", sensitive_features="g")


def test_ensemble_members_not_a_list(df: pl.DataFrame) -> None:
    for members in (5, None, 0.5):
        with pytest.raises(exc.InvalidParameterError, match="`y_prob` must give the ensemble"):
            df.fair.label_stability_difference(y_prob=members, sensitive_features="g")


@pytest.mark.parametrize("q", [[0.5], (0.5,), np.array([0.5]), [0.2, 0.9]])
def test_quantile_criterion_takes_one_level(df: pl.DataFrame, q: Any) -> None:
    frame = df.with_columns(score=pl.col("y").cast(pl.Float64))
    with pytest.raises(exc.InvalidParameterError, match="`q` must be one quantile level"):
        frame.fair.disparate_impact_quantile(y_pred="score", sensitive_features="g", q=q)


@pytest.mark.parametrize("classes", ["cat", 5])
def test_classes_must_be_a_list(classes: object) -> None:
    frame = pl.DataFrame({"g": ["a", "b"] * 4, "y": ["cat", "dog"] * 4, "p": ["dog", "cat"] * 4})
    with pytest.raises(exc.InvalidParameterError, match="`classes` must be a list"):
        frame.fair.multiclass_group_stats(
            y_true="y", y_pred="p", sensitive_features="g", classes=classes
        )
