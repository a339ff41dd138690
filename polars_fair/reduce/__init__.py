"""The reduction layer: the only code in polars_fair that touches rows.

One lazy ``group_by`` turns predictions into the *statistics table*: one row per
(batch key, group) with the confusion counts ``n, tp, fp, fn, tn`` and ``n_null``.
Everything else in the library is derived from that small table.

How the pass works
------------------
The rows are grouped by the batch keys, the sensitive features **and the raw label
values** and only counted (``len``, plus a weight sum when weighted). That is the
cheapest group_by Polars can run (no per-row comparison or cast), and because the
raw label values survive into the small partial table, validating them is free:
a label column holding a third value shows up as a third key, and the check runs
on the partial table inside the plan. The partial table (at most four rows per
group) is then pivoted into ``tp, fp, fn, tn``.

The table is additive: ``stats(A ∪ B) == stats(A) + stats(B)`` column by column
for every count column, which is what batch evaluation, streaming over files and
scale-out rely on (see :func:`merge_group_stats`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._numeric import (
    WEIGHT_HINT,
    bad_weight_aggs,
    check_sums_finite,
    check_weight_values,
    weight_scale_problem,
)
from polars_fair._utils import check_in_plan, warn_data
from polars_fair._validate import (
    MSG_LABEL_VALUES,
    MSG_POS_LABEL_ABSENT,
    MSG_SCORE_VALUES,
    as_python,
    check_label_dtype,
    check_score_dtype,
    ensure_lazy,
    format_values,
    resolve_column,
    resolve_keys,
    resolve_weight,
)
from polars_fair.exceptions import (
    DegenerateDataWarning,
    InvalidParameterError,
    LabelError,
    NumericalWarning,
    ValueRangeError,
)

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "CELL_WEIGHT_SQUARES",
    "CONFUSION_COLUMNS",
    "REGRESSION_SUMS",
    "ROC_WEIGHT_SQUARES",
    "SCORE_SQUARES",
    "SCORE_SUM",
    "WEIGHT_SQUARES",
    "WEIGHT_SQUARE_COLUMNS",
    "Inputs",
    "group_stats",
    "merge_group_stats",
    "resolve_inputs",
    "stats_keys",
]

#: Count columns of the statistics table when both labels are given.
CONFUSION_COLUMNS = ("n", "tp", "fp", "fn", "tn")
#: Count columns when only predictions, or only true labels, are given.
PREDICTION_COLUMNS = ("n", "pred_pos", "pred_neg")
LABEL_COLUMNS = ("n", "pos", "neg")
#: Score sums (with ``y_prob``).
SCORE_COLUMNS = ("sum_prob_pos", "sum_prob_neg", "sum_prob")
#: Sums of squared scores (with ``y_prob``), beside the score sums: with them and the
#: counts they give each class's score variance, for the intervals of the balance
#: criteria (:mod:`polars_fair.metrics._score_intervals`).
SCORE_SQUARES = ("sum_prob2_pos", "sum_prob2_neg", "sum_prob2")
#: The sum of squared weights (with ``sample_weight``): with ``n`` (the weight sum) it
#: gives a group's Kish effective size ``n**2 / sum_w2``; additive like every count.
WEIGHT_SQUARES = "sum_w2"
#: A weighted ROC table's sums of squared weights of the positives and negatives per
#: score: with ``pos`` and ``neg`` they give each class's Kish effective size, for
#: DeLong's variance of a weighted AUC (:mod:`polars_fair.metrics._auc`).
ROC_WEIGHT_SQUARES = ("pos_w2", "neg_w2")
#: A weighted table's sums of squared weights of each confusion cell (with both
#: labels), after ``sum_w2``: each rate (over ``tp + fn``, ``fp + tn``, ...) then has
#: its own effective size, whatever the weights of the other cells
#: (:func:`~polars_fair.metrics._intervals.effective_fraction`).
CELL_WEIGHT_SQUARES = ("tp_w2", "fp_w2", "fn_w2", "tn_w2")
#: Every sum of squared weights of a statistics table: what `frequency_weights` (weights
#: read as row counts, no effective sizes) leaves unread.
WEIGHT_SQUARE_COLUMNS = (WEIGHT_SQUARES, *CELL_WEIGHT_SQUARES)
#: Sum columns of the regression statistics table (the last five need `y_true`; see
#: :mod:`polars_fair.reduce.regression`): additive, so merged by summing like the counts.
REGRESSION_SUMS = (
    "sum_pred", "sum_pred_sq", "sum_true", "sum_true_sq", "sum_pred_true", "sum_abs_error",
    "sum_sq_error",
)  # fmt: skip
_ALL_COUNTS = frozenset(
    {*CONFUSION_COLUMNS, *PREDICTION_COLUMNS, *LABEL_COLUMNS, *SCORE_COLUMNS, *SCORE_SQUARES,
     "n_null", WEIGHT_SQUARES, *CELL_WEIGHT_SQUARES, *ROC_WEIGHT_SQUARES, *REGRESSION_SUMS}
)  # fmt: skip

_ROWS = "__pf_rows"
_MISSING = "__pf_missing"
_WSUM = "__pf_wsum"
_W2SUM = "__pf_w2sum"
_SSUM = SCORE_SUM = "__pf_ssum"
_S2SUM = "__pf_s2sum"
_SMIN = "__pf_smin"
_SMAX = "__pf_smax"


@dataclass(frozen=True)
class _Label:
    param: str  # "y_true" or "y_pred"
    name: str  # display name of the column or expression
    alias: str  # internal key name in the partial table
    expr: pl.Expr
    is_bool: bool


def _hint_labels(label: _Label) -> str:
    if label.param == "y_pred":
        return (
            f"threshold a score, e.g. `y_pred=pl.col({label.name!r}) >= 0.5`, "
            "or set `pos_label` to the favourable value"
        )
    return "recode the labels to two values, or set `pos_label` to the favourable value"


def warn_if_never_positive(label: _Label, values: Sequence[object], pos_label: object) -> None:
    """Warn when a label column has values but none equals `pos_label` (all negative).

    Runs on the partial aggregate inside the plan, so it costs no pass; on the lazy
    path the warning is issued when the plan is collected.
    """
    if not values or any(v == pos_label for v in values):
        return
    example = next((v for v in values if v is not None), pos_label)
    msg = MSG_POS_LABEL_ABSENT.format(
        param=label.param, name=label.name, pos_label=pos_label,
        found=format_values(_sorted_values(list(values))), example=example,
    )  # fmt: skip
    warn_data(msg, DegenerateDataWarning)


def _label_checker(
    labels: Sequence[_Label], pos_label: PosLabel, weight: str | None, score: str | None
) -> Callable[[pl.DataFrame], None]:
    """Build the in-plan check of label values and weights on the partial table."""

    def check(partial: pl.DataFrame) -> None:
        distinct = {
            label.alias: _distinct_values(partial.get_column(label.alias)) for label in labels
        }
        _check(partial, distinct)
        # the data is valid: say so where a label column never equals `pos_label`
        for label in labels:
            values = distinct[label.alias]
            warn_if_never_positive(label, values, True if label.is_bool else pos_label)

    def _check(partial: pl.DataFrame, distinct: dict[str, list[object]]) -> None:
        negatives: dict[str, set[object]] = {}
        for label in labels:
            if label.is_bool:
                continue
            values = distinct[label.alias]
            others = {v for v in values if v != pos_label}
            negatives[label.alias] = others
            if len(others) > 1:
                found = _sorted_values(values)
                msg = MSG_LABEL_VALUES.format(
                    param=label.param,
                    name=label.name,
                    pos_label=pos_label,
                    found=format_values(found),
                    hint=_hint_labels(label),
                )
                raise LabelError(msg)
        union = set().union(*negatives.values()) if negatives else set()
        if len(union) > 1:
            label = labels[-1]
            found = _sorted_values([pos_label, *union])
            msg = MSG_LABEL_VALUES.format(
                param="y_true and y_pred",
                name=" / ".join(lbl.name for lbl in labels),
                pos_label=pos_label,
                found=format_values(found),
                hint="both columns must use the same two label values",
            )
            raise LabelError(msg)
        if weight is not None:
            check_weight_values(partial, weight)
            # every count is a sum of weights at most their total: check the total
            total = pl.DataFrame({"n": [partial.get_column(_WSUM).sum()]})
            check_sums_finite(total, {"n": f"`sample_weight` column {weight!r}"}, WEIGHT_HINT)
            squares = partial.get_column(_W2SUM)
            smallest = squares.filter(partial.get_column(_WSUM) > 0).min()
            problem = weight_scale_problem(
                weight, float(total.item()), float(squares.sum()),
                float("inf") if smallest is None else float(smallest),  # type: ignore[arg-type]
            )  # fmt: skip
            if problem is not None:
                warn_data(problem, NumericalWarning)
        if score is not None and partial.height:
            low = partial.get_column(_SMIN).min()
            high = partial.get_column(_SMAX).max()
            outside = (low is not None and low < 0) or (high is not None and high > 1)  # type: ignore[operator]
            if outside or partial.get_column(_SSUM).is_nan().any():
                detail = f"values from {low!r} to {high!r}" if outside else "NaN"
                raise ValueRangeError(MSG_SCORE_VALUES.format(name=score, found=detail))

    return check


def _distinct_values(column: pl.Series) -> list[object]:
    """The distinct non-null values of a label column of a partial table.

    A partial table has a few rows per group: there reading the values in Python
    costs less than Polars' ``unique`` (a query of its own). Floats go through
    Polars, whose ``unique`` counts every NaN as one value.
    """
    if column.len() <= _FEW_ROWS and not column.dtype.is_float():
        return list(dict.fromkeys(v for v in column.to_list() if v is not None))
    return column.drop_nulls().unique().to_list()


#: Below this many rows a partial table's label values are read in Python.
_FEW_ROWS = 1_000


def _sorted_values(values: Sequence[object]) -> list[object]:
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique)  # type: ignore[type-var]
    except TypeError:
        return sorted(unique, key=repr)


def _is_positive(label: _Label, pos_label: PosLabel) -> pl.Expr:
    col = pl.col(label.alias)
    if label.is_bool:
        return col
    # a boolean `pos_label` of numeric labels is 1 or 0, as Python compares them;
    # Polars compares integers with it but refuses ``Decimal == true``
    value = as_python(pos_label)
    return col == (int(value) if isinstance(value, bool) else pos_label)


@dataclass(frozen=True)
class Inputs:
    """The resolved columns of one reduction (schema only; nothing is read)."""

    lf: pl.LazyFrame
    keys: list[str]
    labels: list[_Label]
    pos_label: PosLabel
    weight: pl.Expr | None
    weight_name: str | None
    score: pl.Expr | None
    score_name: str | None

    def positive(self, param: str) -> pl.Expr:
        """Boolean expression over the partial table: the label `param` is positive."""
        for label in self.labels:
            if label.param == param:
                return _is_positive(label, self.pos_label)
        msg = f"no {param} column"  # pragma: no cover - guarded by callers
        raise ValueError(msg)

    @property
    def label_keys(self) -> list[pl.Expr]:
        """The raw label expressions, used as extra group_by keys."""
        return [label.expr for label in self.labels]

    def valid(self) -> pl.Expr:
        """Partial-table rows whose labels are all non-null."""
        valid = pl.lit(True)
        for label in self.labels:
            valid = valid & pl.col(label.alias).is_not_null()
        return valid

    def partial_aggs(self, squares: bool = False) -> list[pl.Expr]:
        """Aggregates of the partial table: counted rows, excluded rows, sums, checks.

        `squares`: also the (weighted) sum of squared scores (the statistics table's
        ``sum_prob2*`` columns; the score histograms do without).
        """
        s, w = self.score, self.weight
        aggs: list[pl.Expr] = [pl.len().cast(pl.Int64).alias(_ROWS)]
        if s is not None and w is not None:
            aggs.append((s.is_null() | w.is_null()).sum().cast(pl.Int64).alias(_MISSING))
        elif s is not None or w is not None:
            column = s if s is not None else w
            aggs.append(column.null_count().cast(pl.Int64).alias(_MISSING))  # type: ignore[union-attr]
        if w is not None:
            kept = w if s is None else pl.when(s.is_not_null()).then(w)
            aggs += [
                kept.sum().alias(_WSUM),
                (kept * kept).sum().alias(_W2SUM),
                *bad_weight_aggs(w),
            ]
        if s is not None:
            # the range check costs two cheap aggregates: min and max ignore NaN, and a
            # NaN score of a counted row makes the score sum NaN
            weighted = s if w is None else s * w
            aggs += [
                weighted.sum().alias(_SSUM),
                s.min().alias(_SMIN),
                s.max().alias(_SMAX),
            ]
            if squares:
                aggs.append((weighted * s).sum().alias(_S2SUM))
        return aggs

    def checker(self) -> Callable[[pl.DataFrame], None]:
        """The in-plan check of labels, weights and scores on a partial table."""
        return _label_checker(self.labels, self.pos_label, self.weight_name, self.score_name)

    def count(self) -> pl.Expr:
        """Rows (or weight) counted per partial row: excluded rows left out."""
        if self.weight is not None:
            return pl.col(_WSUM)
        if self.score is not None:
            return pl.col(_ROWS) - pl.col(_MISSING)
        return pl.col(_ROWS)

    def null_rows(self) -> pl.Expr:
        """Rows excluded for a null label, score or weight (an aggregate)."""
        valid = self.valid()
        null_labels = pl.col(_ROWS).filter(~valid).sum()
        if self.score is None and self.weight is None:
            return null_labels
        return null_labels + pl.col(_MISSING).filter(valid).sum()

    def total(self, mask: pl.Expr, column: pl.Expr | None = None) -> pl.Expr:
        """Sum of `column` (default: the counted rows) over valid partial rows in `mask`."""
        col = self.count() if column is None else column
        return col.filter(self.valid() & mask).sum()


def resolve_inputs(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn | None,
    y_pred: IntoColumn | None,
    sensitive_features: IntoColumns | None,
    by: IntoColumns | None,
    sample_weight: IntoColumn | None,
    pos_label: PosLabel,
    y_prob: IntoColumn | None = None,
    family: str = "binary",
) -> Inputs:
    """Check the schema and resolve every column of a reduction (reads no data).

    `family` names the tables the reduction feeds (``"scores"`` for the score
    histograms): their columns are refused as key names.
    """
    lf, schema, sens, by_ = resolve_keys(frame, sensitive_features, by, family)
    labels: list[_Label] = []
    for param, spec, alias in (
        ("y_true", y_true, "__pf_y_true"),
        ("y_pred", y_pred, "__pf_y_pred"),
    ):
        if spec is None:
            continue
        hint = (
            f"pass the {'true label' if param == 'y_true' else 'prediction'} column as `{param}=`"
        )
        expr, dtype, name = resolve_column(lf, schema, spec, param, hint)
        if not (param == "y_pred" and dtype == pl.Boolean and y_true is not None):
            # a boolean prediction (a rule such as `score >= 0.5`) is True for the
            # positive label, whatever `pos_label` the true labels use; without
            # true labels `pos_label` is the prediction's own, and must be True
            check_label_dtype(dtype, pos_label, param, name)
        labels.append(_Label(param, name, alias, expr.alias(alias), dtype == pl.Boolean))
    weight, weight_name = resolve_weight(lf, schema, sample_weight)
    score = score_name = None
    if y_prob is not None:
        s_expr, s_dtype, score_name = resolve_column(
            lf, schema, y_prob, "y_prob", "pass the score column as `y_prob=`"
        )
        check_score_dtype(s_dtype, score_name)
        score = s_expr.cast(pl.Float64)
    return Inputs(lf, [*by_, *sens], labels, pos_label, weight, weight_name, score, score_name)


def group_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn | None = None,
    y_pred: IntoColumn | None = None,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    y_prob: IntoColumn | None = None,
) -> pl.LazyFrame:
    """
    Reduce labelled predictions to the per-group statistics table, lazily.

    One ``group_by`` pass over the data. The result has one row per (batch key,
    group): the keys, then ``n, tp, fp, fn, tn, n_null``. Without `y_true` the
    counts are ``n, pred_pos, pred_neg, n_null``; without `y_pred` they are
    ``n, pos, neg, n_null``. With `y_prob` the score sums follow:
    ``sum_prob_pos, sum_prob_neg`` (the sum of the score over rows whose true
    label is positive / negative) or, without `y_true`, ``sum_prob``, and then the
    sums of squared scores ``sum_prob2_pos, sum_prob2_neg`` (or ``sum_prob2``), which
    give the balance criteria their intervals.

    Parameters
    ----------
    frame
        The predictions. Never modified.
    y_true
        Column (or expression) of true labels.
    y_pred
        Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.
    sensitive_features
        Column name(s) defining the groups; several names form intersectional groups.
    by
        Batch key column(s) (model, fold, date, ...): everything is computed per key.
    sample_weight
        Column of non-negative weights. If None, each row counts once.
    pos_label
        Label value treated as positive (favourable). Boolean labels use True.
    y_prob
        Column (or expression) of scores in [0, 1]. Adds one sum column and one sum
        of squares column per label class.

    Returns
    -------
    LazyFrame
        The statistics table, sorted by the keys with nulls last. Counts are Int64;
        with `sample_weight` they are Float64 sums of weights (``n_null`` stays a
        row count), the score sums are weighted and ``sum_w2`` (the sum of squared
        weights, for effective sizes) follows ``n_null``; with both labels, so do
        ``tp_w2, fp_w2, fn_w2, tn_w2`` (each cell's, for each rate's own size).

    Notes
    -----
    A row with a null label, score or weight is excluded and counted in ``n_null``. A
    null sensitive value is its own group. Label columns that are not boolean must hold
    exactly two values, `pos_label` and one other; any other value raises
    :class:`~polars_fair.exceptions.LabelError` when the plan runs, and a score outside
    [0, 1] (or NaN) raises :class:`~polars_fair.exceptions.ValueRangeError`. Empty input
    gives an empty table (the identity of :func:`merge_group_stats`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce import group_stats
    >>> df = pl.DataFrame(
    ...     {
    ...         "sex": ["F", "F", "F", "M", "M", "M", "M"],
    ...         "y_true": [1, 0, 1, 1, 0, 0, None],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1],
    ...     }
    ... )
    >>> group_stats(df, y_true="y_true", y_pred="y_pred", sensitive_features="sex").collect()
    shape: (2, 7)
    ┌─────┬─────┬─────┬─────┬─────┬─────┬────────┐
    │ sex ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ n_null │
    │ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---    │
    │ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64    │
    ╞═════╪═════╪═════╪═════╪═════╪═════╪════════╡
    │ F   ┆ 3   ┆ 1   ┆ 1   ┆ 1   ┆ 0   ┆ 0      │
    │ M   ┆ 3   ┆ 1   ┆ 1   ┆ 0   ┆ 1   ┆ 1      │
    └─────┴─────┴─────┴─────┴─────┴─────┴────────┘
    """
    if y_true is None and y_pred is None:
        msg = (
            "at least one of `y_true` and `y_pred` must be given, got neither"
            "\n\nHint: pass `y_pred=` for selection rates, `y_true=` for base rates"
        )
        raise InvalidParameterError(msg)
    inp = resolve_inputs(
        frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, by=by,
        sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
    )  # fmt: skip
    keys = inp.keys
    partial = inp.lf.group_by(*keys, *inp.label_keys).agg(inp.partial_aggs(squares=True))
    partial = check_in_plan(partial, inp.checker())
    stats = partial.group_by(keys).agg(_counts(inp))
    return stats.sort(keys, nulls_last=True)


#: The count expressions of the second stage, by the shape of the inputs (see `_counts`).
_COUNTS: dict[tuple[object, ...], list[pl.Expr]] = {}


def _counts(inp: Inputs) -> list[pl.Expr]:
    """The second stage's count expressions (over the partial table's own columns).

    They depend only on which labels, weight and score there are and on
    `pos_label` (keyed with its type: ``1`` and ``True`` are different literals),
    so they are built once per shape: building them is part of an eager call's
    fixed cost on small data.
    """
    pos = inp.pos_label
    labels = tuple((label.param, label.alias, label.is_bool) for label in inp.labels)
    key = (labels, type(pos).__name__, pos, inp.weight is None, inp.score is None)
    try:
        found = _COUNTS.get(key)
    except TypeError:  # an unhashable `pos_label`: build anew
        return _build_counts(inp)
    if found is None:
        if len(_COUNTS) >= 256:
            _COUNTS.clear()
        found = _COUNTS[key] = _build_counts(inp)
    return found


def _paired(cells: Sequence[pl.Expr]) -> pl.Expr:
    """``(tp + tn) + (fp + fn)`` of the cells ``tp, fp, fn, tn`` (see `_build_counts`)."""
    tp, fp, fn, tn = cells
    return (tp + tn) + (fp + fn)


def _build_counts(inp: Inputs) -> list[pl.Expr]:
    total = inp.total
    if len(inp.labels) == 2:
        yt, yp = inp.positive("y_true"), inp.positive("y_pred")
        cells = (yt & yp, ~yt & yp, yt & ~yp, ~yt & ~yp)
        # weighted, `n` and `sum_w2` add the four cells (each one partial row) as
        # ``(tp + tn) + (fp + fn)``: a float sum in the order the hash group_by hands the
        # cells over changed its last bit from run to run, and this order is the same
        # with the other label positive (a sum of two floats, or of counts, is exact)
        n = total(pl.lit(True)) if inp.weight is None else _paired([total(c) for c in cells])
        counts = [
            n.alias("n"),
            *(total(c).alias(a) for c, a in zip(cells, CONFUSION_COLUMNS[1:], strict=True)),
        ]
    else:
        label = inp.labels[0]
        pos = inp.positive(label.param)
        names = ("pos", "neg") if label.param == "y_true" else ("pred_pos", "pred_neg")
        counts = [
            total(pl.lit(True)).alias("n"),
            total(pos).alias(names[0]),
            total(~pos).alias(names[1]),
        ]
    counts.append(inp.null_rows().alias("n_null"))
    if inp.weight is not None:
        w2 = pl.col(_W2SUM)
        if len(inp.labels) == 2:
            squares = [total(c, w2) for c in cells]
            counts.append(_paired(squares).alias(WEIGHT_SQUARES))
            counts += [e.alias(a) for e, a in zip(squares, CELL_WEIGHT_SQUARES, strict=True)]
        else:
            counts.append(total(pl.lit(True), w2).alias(WEIGHT_SQUARES))
    if inp.score is not None:
        ssum, s2sum = pl.col(_SSUM), pl.col(_S2SUM)
        if any(label.param == "y_true" for label in inp.labels):
            yt = inp.positive("y_true")
            counts += [
                total(yt, ssum).alias("sum_prob_pos"),
                total(~yt, ssum).alias("sum_prob_neg"),
                total(yt, s2sum).alias("sum_prob2_pos"),
                total(~yt, s2sum).alias("sum_prob2_neg"),
            ]
        else:
            counts += [
                total(pl.lit(True), ssum).alias("sum_prob"),
                total(pl.lit(True), s2sum).alias("sum_prob2"),
            ]
    return counts


def stats_keys(stats: pl.LazyFrame | pl.DataFrame) -> list[str]:
    """Return the key columns of a statistics table (everything but the counts)."""
    names = stats.collect_schema().names() if isinstance(stats, pl.LazyFrame) else stats.columns
    return [c for c in names if c not in _ALL_COUNTS]


MSG_NOT_STATS = (
    "`merge_group_stats` sums statistics tables, but table {index} has no count columns "
    "(columns {columns})\n\nHint: pass tables made by `pf.group_stats(...)` or "
    "`df.fair.group_stats(...)`, not the data itself"
)
MSG_MERGE_SCHEMA = (
    "`merge_group_stats` needs tables with the same columns; table {index} has "
    "{got}, table 0 has {want}\n\nHint: compute every part with the same arguments (the "
    "same sensitive features, `by`, weights and scores)"
)


def check_mergeable(schemas: list[pl.Schema], counts: list[str]) -> None:
    """Refuse tables that are not statistics tables or do not match the first one."""
    if not counts:
        msg = MSG_NOT_STATS.format(index=0, columns=schemas[0].names())
        raise InvalidParameterError(msg)
    for i, schema in enumerate(schemas[1:], start=1):
        if schema.names() != schemas[0].names():
            msg = MSG_MERGE_SCHEMA.format(index=i, got=schema.names(), want=schemas[0].names())
            raise InvalidParameterError(msg)


def merge_group_stats(*tables: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """
    Sum statistics tables computed on disjoint parts of the data.

    The statistics table is additive, so the table of a union is the sum of the
    tables of its parts: this is how files, row groups or Ray partitions combine.

    Parameters
    ----------
    *tables
        Statistics tables with the same key and count columns.

    Returns
    -------
    LazyFrame
        The merged table, sorted by the keys with nulls last.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce import group_stats, merge_group_stats
    >>> a = pl.DataFrame({"g": ["x", "y"], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> b = pl.DataFrame({"g": ["x"], "y_true": [0], "y_pred": [0]})
    >>> kw = dict(y_true="y_true", y_pred="y_pred", sensitive_features="g")
    >>> merged = merge_group_stats(group_stats(a, **kw), group_stats(b, **kw)).collect()
    >>> merged.equals(group_stats(pl.concat([a, b]), **kw).collect())
    True
    """
    if not tables:
        msg = "`merge_group_stats` needs at least one table, got none"
        raise InvalidParameterError(msg)
    lazy = [ensure_lazy(t) for t in tables]
    keys = stats_keys(lazy[0])
    counts = [c for c in lazy[0].collect_schema().names() if c not in keys]
    check_mergeable([t.collect_schema() for t in lazy], counts)
    merged = pl.concat(lazy, how="vertical").group_by(keys).agg(pl.col(counts).sum())
    return merged.sort(keys, nulls_last=True)
