"""Reduction for multiclass labels: one-vs-rest confusion counts per class and group.

One ``group_by`` over the keys and the raw (true, predicted) label pairs counts
the confusion cells; that small table is then crossed with the classes and
summed into, per (batch key, class, group), the binary counts of "class c against
the rest": ``tp`` (true c, predicted c), ``fp`` (true other, predicted c), ``fn``
(true c, predicted other) and ``tn``. The result has the shape of the statistics
table with ``class`` as one more batch key, so every rate, comparison and
criterion of the binary case applies per class unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._numeric import (
    WEIGHT_HINT,
    bad_weight_aggs,
    check_sums_finite,
    check_weight_values,
)
from polars_fair._utils import check_in_plan
from polars_fair._validate import format_values, resolve_column, resolve_keys, resolve_weight
from polars_fair.exceptions import InvalidParameterError, LabelError

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns

__all__ = ["CLASS", "multiclass_stats"]

#: The key column holding the class of each one-vs-rest row.
CLASS = "class"

_T = "__pf_t"
_P = "__pf_p"
_C = "__pf_c"

MSG_MULTICLASS_DTYPE = (
    "`y_true` and `y_pred` must hold labels of the same kind for a multiclass audit, "
    "got {dt_true} ({name_true!r}) and {dt_pred} ({name_pred!r})\n\nHint: cast one "
    "to the other's dtype, e.g. `pl.col({name_pred!r}).cast(pl.{dt_true})`"
)
MSG_UNKNOWN_CLASSES = (
    "`{param}` column {name!r} holds values not in `classes`: {found}\n\nHint: add "
    "them to `classes`, or leave `classes` out to use every value in the data"
)


def _label_dtype(dtype: pl.DataType) -> bool:
    return (
        dtype.is_integer()
        or dtype in (pl.String, pl.Boolean, pl.Null)
        or isinstance(dtype, (pl.Enum, pl.Categorical))
    )


MSG_LABELS_ALL_NULL = (
    "{columns} null in every row ({rows} rows), so no row has a true and a predicted "
    "class to audit\n\nHint: check the label column(s) upstream (a join that matched "
    "nothing, a cast that failed, a wrong column); rows with a null label are left out"
)


def _all_null_labels(cells: pl.DataFrame, names: dict[str, str]) -> None:
    """Refuse input with rows none of which has both labels (every row would be excluded).

    The message names the label column(s) null in every row: without it the classes
    found are none and the result reads as an empty input.
    """
    if cells.height == 0 or (cells[_T].is_not_null() & cells[_P].is_not_null()).any():
        return
    null = [
        (p, a) for a, p in ((_T, "y_true"), (_P, "y_pred")) if cells[a].null_count() == cells.height
    ]
    if not null:  # each has values, never in the same row
        columns = (
            f"`y_true` column {names['y_true']!r} or `y_pred` column {names['y_pred']!r} "
            "(one or the other) is"
        )
    else:
        listed = " and ".join(f"`{p}` column {names[p]!r}" for p, _ in null)
        columns = listed + (" are" if len(null) > 1 else " is")
    rows = int(cells.get_column("__pf_rows").sum())
    raise LabelError(MSG_LABELS_ALL_NULL.format(columns=columns, rows=rows))


def _checker(
    names: dict[str, str], classes: Sequence[object] | None, weight: str | None
) -> Callable[[pl.DataFrame], None]:
    def check(cells: pl.DataFrame) -> None:
        _all_null_labels(cells, names)
        if classes is not None:
            allowed = set(classes)
            for alias, param in ((_T, "y_true"), (_P, "y_pred")):
                found = [
                    v for v in cells[alias].drop_nulls().unique().to_list() if v not in allowed
                ]
                if found:
                    msg = MSG_UNKNOWN_CLASSES.format(
                        param=param, name=names[param], found=format_values(sorted(found, key=repr))
                    )
                    raise LabelError(msg)
        if weight is not None:
            check_weight_values(cells, weight)
        if weight is not None:  # every weighted count is at most the weight total
            total = pl.DataFrame({"n": [cells.get_column("__pf_wsum").sum()]})
            check_sums_finite(total, {"n": f"`sample_weight` column {weight!r}"}, WEIGHT_HINT)

    return check


def check_classes(classes: object) -> None:
    """`classes`: None, or a list of class values (a string is one class, not a list)."""
    if classes is not None and (isinstance(classes, str) or not isinstance(classes, Sequence)):
        msg = (
            f"`classes` must be a list of class values, got {classes!r}\n\nHint: e.g. "
            f"`classes=[{classes!r}]`, or leave `classes` out to use every value in the data"
        )
        raise InvalidParameterError(msg)


def _class_series(classes: Sequence[object], dtype: pl.DataType) -> pl.Series:
    """The requested classes as a Series of the label dtype (exact values, no duplicates)."""
    values = list(classes)
    if not values or len(set(values)) != len(values):
        msg = (
            f"`classes` must list distinct classes, got {values!r}\n\nHint: name each "
            "class once, or leave `classes` out to use every value in the data"
        )
        raise InvalidParameterError(msg)
    try:
        series = pl.Series(values, dtype=dtype if dtype != pl.Null else None, strict=True)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        msg = (
            f"`classes` {values!r} cannot be labels of dtype {dtype}: every class must be a "
            "value the label columns can hold\n\nHint: drop the classes that are not "
            "labels, or cast the label columns"
        )
        raise InvalidParameterError(msg) from exc
    if series.null_count():
        lost = [v for v, ok in zip(values, series.is_not_null().to_list(), strict=True) if not ok]
        msg = (
            f"`classes` values {lost!r} cannot be labels of dtype {dtype}\n\nHint: drop "
            "them, or extend the label dtype (an Enum's categories) first"
        )
        raise InvalidParameterError(msg)
    return series


def multiclass_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    classes: Sequence[object] | None = None,
) -> pl.LazyFrame:
    """
    One-vs-rest confusion counts per (batch key, class, group), lazily, in one pass.

    Parameters
    ----------
    frame
        The predictions. Never modified.
    y_true
        Column (or expression) of true class labels (integers, strings, enums).
    y_pred
        Column (or expression) of predicted class labels, of the same kind.
    sensitive_features
        Column name(s) defining the groups.
    by
        Batch key column(s): everything is computed per key.
    sample_weight
        Column of non-negative weights (the counts become weight sums).
    classes
        The classes to report. Default: every value found in `y_true`
        or `y_pred` (over the whole input, so each batch key and group reports the
        same classes), sorted. With `classes`, a label outside it is an error.

    Returns
    -------
    LazyFrame
        The statistics table with a ``class`` key after the batch keys:
        ``by…, class, sensitive…, n, tp, fp, fn, tn, n_null``, sorted by the keys.

    Notes
    -----
    Rows with a null true or predicted label (or weight) are excluded and counted
    in ``n_null`` (the same count on every class row of the group).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce.multiclass import multiclass_stats
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y": ["x", "y", "z"], "p": ["x", "z", "z"]})
    >>> multiclass_stats(df, y_true="y", y_pred="p", sensitive_features="g").collect()
    shape: (6, 8)
    ┌───────┬─────┬─────┬─────┬─────┬─────┬─────┬────────┐
    │ class ┆ g   ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ n_null │
    │ ---   ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---    │
    │ str   ┆ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64    │
    ╞═══════╪═════╪═════╪═════╪═════╪═════╪═════╪════════╡
    │ x     ┆ a   ┆ 2   ┆ 1   ┆ 0   ┆ 0   ┆ 1   ┆ 0      │
    │ x     ┆ b   ┆ 1   ┆ 0   ┆ 0   ┆ 0   ┆ 1   ┆ 0      │
    │ y     ┆ a   ┆ 2   ┆ 0   ┆ 0   ┆ 1   ┆ 1   ┆ 0      │
    │ y     ┆ b   ┆ 1   ┆ 0   ┆ 0   ┆ 0   ┆ 1   ┆ 0      │
    │ z     ┆ a   ┆ 2   ┆ 0   ┆ 1   ┆ 0   ┆ 1   ┆ 0      │
    │ z     ┆ b   ┆ 1   ┆ 1   ┆ 0   ┆ 0   ┆ 0   ┆ 0      │
    └───────┴─────┴─────┴─────┴─────┴─────┴─────┴────────┘
    """
    check_classes(classes)
    lf, schema, sens, by_ = resolve_keys(frame, sensitive_features, by, "multiclass")
    if CLASS in (*sens, *by_):
        msg = (
            f"column {CLASS!r} clashes with the class column of the multiclass tables"
            f'\n\nHint: rename it first, e.g. `.rename({{"{CLASS}": "{CLASS}_"}})`'
        )
        raise InvalidParameterError(msg)
    resolved = {}
    for param, spec in (("y_true", y_true), ("y_pred", y_pred)):
        hint = f"pass the {'true' if param == 'y_true' else 'predicted'} class column as `{param}=`"
        expr, dtype, name = resolve_column(lf, schema, spec, param, hint)
        if not _label_dtype(dtype):
            msg = (
                f"`{param}` column {name!r} must hold class labels (integers, strings or "
                f"enums), got dtype {dtype}\n\nHint: cast it, e.g. `pl.col({name!r}).cast(pl.Int64)`"
            )
            raise InvalidParameterError(msg)
        resolved[param] = (expr, dtype, name)
    (t_expr, t_dtype, t_name), (p_expr, p_dtype, p_name) = resolved["y_true"], resolved["y_pred"]
    if pl.Null not in (t_dtype, p_dtype) and t_dtype != p_dtype:
        same_kind = t_dtype.is_integer() and p_dtype.is_integer()
        if not same_kind:
            msg = MSG_MULTICLASS_DTYPE.format(
                dt_true=t_dtype, dt_pred=p_dtype, name_true=t_name, name_pred=p_name
            )
            raise InvalidParameterError(msg)
        t_expr, p_expr = t_expr.cast(pl.Int64), p_expr.cast(pl.Int64)
    elif t_dtype == pl.Null and p_dtype != pl.Null:
        t_expr = t_expr.cast(p_dtype)
    elif p_dtype == pl.Null and t_dtype != pl.Null:
        p_expr = p_expr.cast(t_dtype)
    weight, weight_name = resolve_weight(lf, schema, sample_weight)

    keys = [*by_, *sens]
    t, p = pl.col(_T), pl.col(_P)
    aggs = [pl.len().cast(pl.Int64).alias("__pf_rows")]
    if weight is not None:
        aggs += [
            weight.sum().alias("__pf_wsum"),
            weight.null_count().cast(pl.Int64).alias("__pf_wnull"),
            *bad_weight_aggs(weight),
        ]
    cells = lf.group_by(*keys, t_expr.alias(_T), p_expr.alias(_P)).agg(aggs)
    names = {"y_true": t_name, "y_pred": p_name}
    cells = check_in_plan(cells, _checker(names, classes, weight_name))
    if weight is not None:
        # the second stage sums each group's cells in a fixed order: the hash group_by
        # hands them over in an order that varies, and a weighted sum's last bit with it
        cells = cells.sort(pl.nth(range(len(keys) + 2)), nulls_last=True)

    valid = t.is_not_null() & p.is_not_null()
    if weight is None:
        count = pl.col("__pf_rows")
        excluded = pl.when(valid).then(0).otherwise(pl.col("__pf_rows"))
    else:
        count = pl.col("__pf_wsum")
        excluded = pl.when(valid).then(pl.col("__pf_wnull")).otherwise(pl.col("__pf_rows"))
    cells = cells.with_columns(
        pl.when(valid).then(count).otherwise(0).alias(_C), excluded.alias("__pf_excl")
    )
    # the classes as a list on every cell, then one row per (cell, class): a linear
    # plan, so the source is read once even where Polars cannot cache a subplan
    if classes is None:
        found = pl.col(_T).append(pl.col(_P)).drop_nulls().unique().sort().implode()
    else:
        found = pl.lit(_class_series(classes, t_dtype if t_dtype != pl.Null else p_dtype)).implode()
    crossed = cells.with_columns(found.alias(CLASS)).explode(CLASS).drop_nulls(CLASS)
    c = pl.col(CLASS)
    is_t, is_p = (t == c).fill_null(False), (p == c).fill_null(False)
    cnt = pl.col(_C)
    # weighted, each cell's parts are gathered and summed in their (sorted) order: a
    # grouped sum over the exploded cells added them in an order that varied from run
    # to run (the last bit of a weighted count); counts add exactly as they come
    parts = {"tp": is_t & is_p, "fp": ~is_t & is_p, "fn": is_t & ~is_p, "tn": ~is_t & ~is_p}
    stats = crossed.group_by(*by_, CLASS, *sens).agg(
        *(
            (cnt.filter(f).sum() if weight is None else cnt.filter(f).implode().list.sum()).alias(k)
            for k, f in parts.items()
        ),
        pl.col("__pf_excl").sum().cast(pl.Int64).alias("n_null"),
    )
    cells_ = list(parts)
    n = pl.sum_horizontal(cells_).alias("n")  # the four cells split the counted rows
    keys_out = [*by_, CLASS, *sens]
    stats = stats.select(*keys_out, n, *cells_, "n_null")
    return stats.sort(keys_out, nulls_last=True)
