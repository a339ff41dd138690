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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._utils import as_names, check_in_plan
from polars_fair._validate import (
    MSG_LABEL_VALUES,
    MSG_WEIGHT_VALUES,
    check_keys,
    check_label_dtype,
    check_weight_dtype,
    ensure_lazy,
    format_values,
    resolve_column,
)
from polars_fair.exceptions import InvalidParameterError, LabelError, ValueRangeError

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = ["CONFUSION_COLUMNS", "group_stats", "merge_group_stats", "stats_keys"]

#: Count columns of the statistics table when both labels are given.
CONFUSION_COLUMNS = ("n", "tp", "fp", "fn", "tn")
#: Count columns when only predictions, or only true labels, are given.
PREDICTION_COLUMNS = ("n", "pred_pos", "pred_neg")
LABEL_COLUMNS = ("n", "pos", "neg")
_ALL_COUNTS = frozenset({*CONFUSION_COLUMNS, *PREDICTION_COLUMNS, *LABEL_COLUMNS, "n_null"})

_ROWS = "__pf_rows"
_WSUM = "__pf_wsum"
_WNULL = "__pf_wnull"
_WBAD = "__pf_wbad"


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


def _label_checker(labels: Sequence[_Label], pos_label: PosLabel, weight: str | None) -> callable:  # type: ignore[valid-type]
    """Build the in-plan check of label values and weights on the partial table."""

    def check(partial: pl.DataFrame) -> None:
        negatives: dict[str, set[object]] = {}
        for label in labels:
            if label.is_bool:
                continue
            values = partial.get_column(label.alias).drop_nulls().unique().to_list()
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
            bad = int(partial.get_column(_WBAD).sum())
            if bad:
                msg = MSG_WEIGHT_VALUES.format(
                    name=weight, found=f"{bad} negative, infinite or NaN weight(s)"
                )
                raise ValueRangeError(msg)

    return check


def _sorted_values(values: Sequence[object]) -> list[object]:
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique)  # type: ignore[type-var]
    except TypeError:
        return sorted(unique, key=repr)


def _is_positive(label: _Label, pos_label: PosLabel) -> pl.Expr:
    col = pl.col(label.alias)
    return col if label.is_bool else col == pos_label


def group_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn | None = None,
    y_pred: IntoColumn | None = None,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
) -> pl.LazyFrame:
    """
    Reduce labelled predictions to the per-group statistics table, lazily.

    One ``group_by`` pass over the data. The result has one row per (batch key,
    group): the keys, then ``n, tp, fp, fn, tn, n_null``. Without `y_true` the
    counts are ``n, pred_pos, pred_neg, n_null``; without `y_pred` they are
    ``n, pos, neg, n_null``.

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

    Returns
    -------
    LazyFrame
        The statistics table, sorted by the keys with nulls last. Counts are Int64;
        with `sample_weight` they are Float64 sums of weights (``n_null`` stays a
        row count).

    Notes
    -----
    A row with a null label or weight is excluded and counted in ``n_null``. A null
    sensitive value is its own group. Label columns that are not boolean must hold
    exactly two values, `pos_label` and one other; any other value raises
    :class:`~polars_fair.exceptions.LabelError` when the plan runs. Empty input gives
    an empty table (the identity of :func:`merge_group_stats`).

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
    lf = ensure_lazy(frame)
    sens = as_names(sensitive_features)
    by_ = as_names(by)
    schema = lf.collect_schema()
    check_keys(schema, sens, by_)
    if y_true is None and y_pred is None:
        msg = (
            "at least one of `y_true` and `y_pred` must be given, got neither"
            "\n\nHint: pass `y_pred=` for selection rates, `y_true=` for base rates"
        )
        raise InvalidParameterError(msg)

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
        check_label_dtype(dtype, pos_label, param, name)
        labels.append(_Label(param, name, alias, expr.alias(alias), dtype == pl.Boolean))

    keys = [*by_, *sens]
    aggs: list[pl.Expr] = [pl.len().alias(_ROWS)]
    weight_name: str | None = None
    if sample_weight is not None:
        w_expr, w_dtype, weight_name = resolve_column(
            lf, schema, sample_weight, "sample_weight", "pass the weight column as `sample_weight=`"
        )
        check_weight_dtype(w_dtype, weight_name)
        w = w_expr.cast(pl.Float64)
        aggs += [
            w.sum().alias(_WSUM),
            w.null_count().cast(pl.Int64).alias(_WNULL),
            ((w < 0) | ~w.is_finite()).sum().cast(pl.Int64).alias(_WBAD),
        ]

    partial = lf.group_by(*keys, *(label.expr for label in labels)).agg(aggs)
    partial = check_in_plan(partial, _label_checker(labels, pos_label, weight_name))

    rows = pl.col(_ROWS).cast(pl.Int64)
    valid = pl.lit(True)
    for label in labels:
        valid = valid & pl.col(label.alias).is_not_null()
    count = pl.col(_WSUM) if weight_name is not None else rows
    null_rows = rows.filter(~valid).sum()
    if weight_name is not None:
        null_rows = null_rows + pl.col(_WNULL).filter(valid).sum()

    def total(mask: pl.Expr) -> pl.Expr:
        return count.filter(valid & mask).sum()

    if len(labels) == 2:
        yt = _is_positive(labels[0], pos_label)
        yp = _is_positive(labels[1], pos_label)
        counts = [
            total(pl.lit(True)).alias("n"),
            total(yt & yp).alias("tp"),
            total(~yt & yp).alias("fp"),
            total(yt & ~yp).alias("fn"),
            total(~yt & ~yp).alias("tn"),
        ]
    else:
        pos = _is_positive(labels[0], pos_label)
        names = ("pos", "neg") if labels[0].param == "y_true" else ("pred_pos", "pred_neg")
        counts = [
            total(pl.lit(True)).alias("n"),
            total(pos).alias(names[0]),
            total(~pos).alias(names[1]),
        ]
    counts.append(null_rows.alias("n_null"))
    stats = partial.group_by(keys).agg(counts)
    return stats.sort(keys, nulls_last=True)


def stats_keys(stats: pl.LazyFrame | pl.DataFrame) -> list[str]:
    """Return the key columns of a statistics table (everything but the counts)."""
    names = stats.collect_schema().names() if isinstance(stats, pl.LazyFrame) else stats.columns
    return [c for c in names if c not in _ALL_COUNTS]


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
    merged = pl.concat(lazy, how="vertical").group_by(keys).agg(pl.col(counts).sum())
    return merged.sort(keys, nulls_last=True)
