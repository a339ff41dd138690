"""Rates as plain Polars expressions, for any aggregation context.

These functions return :class:`polars.Expr` aggregations over raw label columns,
usable wherever Polars takes an aggregation::

    df.group_by("model", "race").agg(pf.selection_rate("y_pred"))
    df.with_columns(pf.true_positive_rate("y_true", "y_pred").over("race"))

They count with row-level sums and then apply the very same rate formulas as the
``fair`` namespace (:mod:`polars_fair.metrics._rates`), so both surfaces agree by
construction. Rows with a null label (or weight) are left out. A non-boolean label
column must hold `pos_label` and at most one other value within the evaluation
context; otherwise the expression raises a Polars ``InvalidOperationError`` whose
message names the column (the namespace methods raise
:class:`~polars_fair.exceptions.LabelError` instead).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from polars_fair._names import check_single_output
from polars_fair._validate import as_python
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._rates import Counts, rate_expr

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, PosLabel

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "base_rate",
    "error_rate",
    "f1",
    "false_discovery_rate",
    "false_negative_rate",
    "false_omission_rate",
    "false_positive_rate",
    "negative_predictive_value",
    "positive_predictive_value",
    "selection_rate",
    "true_negative_rate",
    "true_positive_rate",
]


def _col(spec: IntoColumn) -> pl.Expr:
    if isinstance(spec, str):
        return pl.col(spec)
    if not isinstance(spec, pl.Expr):
        msg = (
            f"a column must be given by name or as a polars expression, got "
            f'{type(spec).__name__} {spec!r}\n\nHint: e.g. `pf.selection_rate("y_pred")` or '
            '`pf.selection_rate(pl.col("score") >= 0.5)`'
        )
        raise InvalidParameterError(msg)
    return spec


def _checked_col(spec: IntoColumn, param: str) -> pl.Expr:
    """:func:`_col`, refusing an expression with several outputs (``pl.col("a", "b")``)."""
    col = _col(spec)
    check_single_output(col, param)
    return col


def _check_pos_label(pos_label: Any) -> PosLabel:
    """`pos_label` as a Python label value; refused when no label can equal it.

    Checked when the expression is built: ``None`` or ``NaN`` equal no label (every
    row came out negative, or null), a list or dict is no label value.
    """
    value = as_python(pos_label)
    if isinstance(value, float) and math.isnan(value):
        msg = (
            "`pos_label` is NaN, which equals no label\n\nHint: pass the positive label "
            'value, e.g. `pos_label=1` or `pos_label="yes"`'
        )
        raise InvalidParameterError(msg)
    if not isinstance(value, (bool, int, float, str)):
        msg = (
            f"`pos_label` must be one label value (a bool, number or string), got "
            f"{type(pos_label).__name__} {pos_label!r}\n\nHint: e.g. `pos_label=1`, "
            '`pos_label=True` or `pos_label="yes"`'
        )
        raise InvalidParameterError(msg)
    return value


def _name(spec: IntoColumn) -> str:
    if isinstance(spec, str):
        return spec
    return spec.meta.output_name(raise_if_undetermined=False) or str(spec)


def _positive(spec: IntoColumn, pos_label: PosLabel) -> tuple[pl.Expr, pl.Expr]:
    """``(is_positive, guard)``: the guard is 0, or raises if labels are invalid."""
    col = _col(spec)
    if isinstance(pos_label, bool):
        # boolean labels: only the two values exist, nothing to validate
        return col == pos_label, pl.lit(0, dtype=pl.Int8)
    positive = col == pos_label
    other = col.filter(col != pos_label).first()
    bad = ((col != pos_label) & (col != other)).any()
    msg = (
        f"label column {_name(spec)!r} must hold exactly two values (`pos_label`="
        f"{pos_label!r} and one other); threshold a score, e.g. "
        f"`pl.col({_name(spec)!r}) >= 0.5`, or set `pos_label`"
    )
    guard = pl.when(bad).then(pl.lit(msg)).otherwise(pl.lit("0")).cast(pl.Int8)
    return positive, guard


def _counts(
    y_true: IntoColumn | None,
    y_pred: IntoColumn | None,
    pos_label: PosLabel,
    sample_weight: IntoColumn | None,
) -> tuple[Counts, pl.Expr]:
    valid = pl.lit(True)
    guard = pl.lit(0, dtype=pl.Int8)
    yt = yp = None
    pos_label = _check_pos_label(pos_label)
    for spec, param in ((y_true, "y_true"), (y_pred, "y_pred"), (sample_weight, "sample_weight")):
        if spec is not None:
            _checked_col(spec, param)
    if y_true is not None:
        yt, g = _positive(y_true, pos_label)
        valid = valid & _col(y_true).is_not_null()
        guard = guard + g
    if y_pred is not None:
        yp, g = _positive(y_pred, pos_label)
        valid = valid & _col(y_pred).is_not_null()
        guard = guard + g
    if sample_weight is not None:
        w = _col(sample_weight).cast(pl.Float64)
        valid = valid & w.is_not_null()
        bad_w = ((w < 0) | ~w.is_finite()).any()
        msg = (
            f"`sample_weight` column {_name(sample_weight)!r} must hold finite, "
            "non-negative weights"
        )
        guard = guard + pl.when(bad_w).then(pl.lit(msg)).otherwise(pl.lit("0")).cast(pl.Int8)

        def total(mask: pl.Expr) -> pl.Expr:
            return pl.when(valid & mask).then(w).otherwise(0.0).sum()
    else:

        def total(mask: pl.Expr) -> pl.Expr:
            return (valid & mask).sum().cast(pl.Int64)

    n = total(pl.lit(True))
    if yt is not None and yp is not None:
        counts = Counts(
            n=n, tp=total(yt & yp), fp=total(~yt & yp), fn=total(yt & ~yp), tn=total(~yt & ~yp)
        )
    elif yp is not None:
        counts = Counts(n=n, pred_pos=total(yp), pred_neg=total(~yp))
    else:
        assert yt is not None
        counts = Counts(n=n, pos=total(yt), neg=total(~yt))
    return counts, guard


def _rate(
    name: str,
    y_true: IntoColumn | None,
    y_pred: IntoColumn | None,
    pos_label: PosLabel,
    sample_weight: IntoColumn | None,
) -> pl.Expr:
    counts, guard = _counts(y_true, y_pred, pos_label, sample_weight)
    return (rate_expr(name, counts) + guard).alias(name)


def selection_rate(
    y_pred: IntoColumn, *, pos_label: PosLabel = 1, sample_weight: IntoColumn | None = None
) -> pl.Expr:
    r"""
    Fraction of rows predicted positive, :math:`P(\hat{Y} = 1)`, as an aggregation.

    Parameters
    ----------
    y_pred
        Column (or expression) of predicted labels.
    pos_label
        Label value treated as positive.
    sample_weight
        Column of non-negative weights. If None, each row counts once.

    Returns
    -------
    Expr
        A Float64 aggregation named ``selection_rate``; null when no row is counted.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "p": [1, 0, 1, 1]})
    >>> df.group_by("g").agg(pf.selection_rate("p")).sort("g")
    shape: (2, 2)
    ┌─────┬────────────────┐
    │ g   ┆ selection_rate │
    │ --- ┆ ---            │
    │ str ┆ f64            │
    ╞═════╪════════════════╡
    │ a   ┆ 0.5            │
    │ b   ┆ 1.0            │
    └─────┴────────────────┘
    >>> df.with_columns(pf.selection_rate("p").over("g"))["selection_rate"].to_list()
    [0.5, 0.5, 1.0, 1.0]
    """
    return _rate("selection_rate", None, y_pred, pos_label, sample_weight)


def base_rate(
    y_true: IntoColumn, *, pos_label: PosLabel = 1, sample_weight: IntoColumn | None = None
) -> pl.Expr:
    """
    Fraction of rows whose true label is positive, :math:`P(Y = 1)`.

    Parameters
    ----------
    y_true
        Column (or expression) of true labels.
    pos_label
        Label value treated as positive.
    sample_weight
        Column of non-negative weights. If None, each row counts once.

    Returns
    -------
    Expr
        A Float64 aggregation named ``base_rate``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"y": [1, 0, 0, 1, None]})
    >>> df.select(pf.base_rate("y")).item()
    0.5
    """
    return _rate("base_rate", y_true, None, pos_label, sample_weight)


_PAIR_DOC = """
    {summary}

    Defined as :math:`{formula}` from the confusion counts of the rows in the
    evaluation context (see the rate table in the conventions page).

    Parameters
    ----------
    y_true
        Column (or expression) of true labels.
    y_pred
        Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.
    pos_label
        Label value treated as positive.
    sample_weight
        Column of non-negative weights. If None, each row counts once.

    Returns
    -------
    Expr
        A Float64 aggregation named ``{name}``; null when its denominator is 0.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame(
    ...     {{
    ...         "g": ["a", "a", "a", "a", "b", "b", "b", "b"],
    ...         "y": [1, 1, 0, 0, 1, 0, 0, 0],
    ...         "p": [1, 0, 1, 0, 1, 1, 0, 0],
    ...     }}
    ... )
    >>> df.group_by("g").agg(pf.{name}("y", "p").round(4)).sort("g").rows()
    {example}
"""


def _pair_doc(name: str, summary: str, formula: str, example: str) -> Callable[[F], F]:
    """Fill the shared docstring template of the two-column rate expressions."""

    def deco(fn: F) -> F:
        fn.__doc__ = _PAIR_DOC.format(name=name, summary=summary, formula=formula, example=example)
        return fn

    return deco


@_pair_doc(
    "true_positive_rate",
    "True positive rate (recall): the share of actual positives predicted positive.",
    "TP / (TP + FN)",
    "[('a', 0.5), ('b', 1.0)]",
)
def true_positive_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("true_positive_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "false_negative_rate",
    "False negative rate: the share of actual positives predicted negative.",
    "FN / (TP + FN)",
    "[('a', 0.5), ('b', 0.0)]",
)
def false_negative_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("false_negative_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "false_positive_rate",
    "False positive rate: the share of actual negatives predicted positive.",
    "FP / (FP + TN)",
    "[('a', 0.5), ('b', 0.3333)]",
)
def false_positive_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("false_positive_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "true_negative_rate",
    "True negative rate (specificity): the share of actual negatives predicted negative.",
    "TN / (FP + TN)",
    "[('a', 0.5), ('b', 0.6667)]",
)
def true_negative_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("true_negative_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "positive_predictive_value",
    "Positive predictive value (precision): the share of predicted positives that are positive.",
    "TP / (TP + FP)",
    "[('a', 0.5), ('b', 0.5)]",
)
def positive_predictive_value(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("positive_predictive_value", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "negative_predictive_value",
    "Negative predictive value: the share of predicted negatives that are negative.",
    "TN / (TN + FN)",
    "[('a', 0.5), ('b', 1.0)]",
)
def negative_predictive_value(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("negative_predictive_value", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "false_discovery_rate",
    "False discovery rate: the share of predicted positives that are negative.",
    "FP / (TP + FP)",
    "[('a', 0.5), ('b', 0.5)]",
)
def false_discovery_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("false_discovery_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "false_omission_rate",
    "False omission rate: the share of predicted negatives that are positive (not FN / N).",
    "FN / (TN + FN)",
    "[('a', 0.5), ('b', 0.0)]",
)
def false_omission_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("false_omission_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "accuracy",
    "Accuracy: the share of rows predicted correctly.",
    "(TP + TN) / n",
    "[('a', 0.5), ('b', 0.75)]",
)
def accuracy(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("accuracy", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "error_rate",
    "Error rate: the share of rows predicted wrongly.",
    "(FP + FN) / n",
    "[('a', 0.5), ('b', 0.25)]",
)
def error_rate(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("error_rate", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "f1",
    "F1 score: the harmonic mean of precision and recall.",
    "2 TP / (2 TP + FP + FN)",
    "[('a', 0.5), ('b', 0.6667)]",
)
def f1(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("f1", y_true, y_pred, pos_label, sample_weight)


@_pair_doc(
    "balanced_accuracy",
    "Balanced accuracy: the mean of the true positive and true negative rates.",
    "(TPR + TNR) / 2",
    "[('a', 0.5), ('b', 0.8333)]",
)
def balanced_accuracy(
    y_true: IntoColumn, y_pred: IntoColumn, *, pos_label: PosLabel = 1,
    sample_weight: IntoColumn | None = None,
) -> pl.Expr:  # fmt: skip
    return _rate("balanced_accuracy", y_true, y_pred, pos_label, sample_weight)
