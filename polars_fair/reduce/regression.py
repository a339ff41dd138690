"""Reductions for regression: additive sums, and success counts at prediction quantiles.

Two reductions, both lazy:

* :func:`regression_stats`: one ``group_by`` pass giving, per (batch key, group),
  ``n`` and the sums of the prediction, its square and, with true values, of the
  truth, its square, their product and the absolute and squared errors. Additive
  like the statistics table, so it merges across files and partitions by summing.
* :func:`quantile_grid_stats`: success counts (prediction at or above a threshold)
  where the thresholds are quantiles of the predictions of each batch key. A
  quantile is not additive: this reduction sorts the predictions once (the
  *second pass* that a quantile needs; Polars holds the prediction column and the
  keys in memory for it), computes the thresholds from the sorted values exactly
  as :func:`numpy.quantile` does (linear interpolation, numpy's rounding), and
  assigns every row to the highest threshold it reaches with one as-of join.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from polars_fair._numeric import (
    BAD_WEIGHTS,
    CANCELLATION_TOLERANCE,
    MSG_CANCELLATION,
    WEIGHT_HINT,
    bad_weight_aggs,
    check_sums_finite,
    check_weight_values,
)
from polars_fair._utils import check_in_plan, warn_data
from polars_fair._validate import (
    MSG_EMPTY,
    format_values,
    resolve_column,
    resolve_keys,
    resolve_weight,
)
from polars_fair.exceptions import (
    EmptyDataError,
    InvalidParameterError,
    NumericalWarning,
    ValueRangeError,
)
from polars_fair.reduce import REGRESSION_SUMS, WEIGHT_SQUARES

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns

__all__ = [
    "QUANTILE_KEYS",
    "REGRESSION_SUMS",
    "check_levels",
    "quantile_grid_stats",
    "regression_stats",
]

#: Key columns the quantile grid adds: the quantile level, and the threshold value.
QUANTILE_KEYS = ("quantile", "threshold")

MSG_REGRESSION_DTYPE = (
    "`{param}` column {name!r} must be numeric for a regression audit, got dtype {dtype}"
    "\n\nHint: cast it, e.g. `pl.col({name!r}).cast(pl.Float64)`"
)
MSG_REGRESSION_EXPR_DTYPE = (
    "`{param}` expression {expr} must be numeric for a regression audit, got dtype {dtype}"
    "\n\nHint: give numeric values (an expression of dtype {dtype} is not a continuous "
    "prediction or truth), e.g. the expression cast to Float64"
)
MSG_REGRESSION_VALUES = (
    "`{param}` column {name!r} must hold finite numbers, found {found}"
    "\n\nHint: drop or impute those rows before the audit; rows with a null value are "
    "excluded and counted in `n_null`"
)

_BAD = "__pf_bad_"
_RANGE = "__pf_range_"
_Y = "__pf_y"
_J = "__pf_j"


@dataclass(frozen=True)
class _Column:
    param: str
    name: str
    expr: pl.Expr


def _numeric(lf: pl.LazyFrame, schema: pl.Schema, spec: IntoColumn, param: str) -> _Column:
    hint = f"pass the {'prediction' if param == 'y_pred' else 'true value'} column as `{param}=`"
    expr, dtype, name = resolve_column(lf, schema, spec, param, hint)
    if dtype != pl.Null and (not dtype.is_numeric() or dtype == pl.Boolean):
        msg = (
            MSG_REGRESSION_EXPR_DTYPE.format(param=param, expr=spec, dtype=dtype)
            if isinstance(spec, pl.Expr)  # its output name is not a column of this dtype
            else MSG_REGRESSION_DTYPE.format(param=param, name=name, dtype=dtype)
        )
        raise InvalidParameterError(msg)
    return _Column(param, name, expr.cast(pl.Float64))


def _finite_checker(
    columns: Sequence[_Column], weight: str | None, keys: Sequence[str] = ()
) -> Callable[[pl.DataFrame], None]:
    """In-plan check of the aggregated table: no NaN or infinite value was counted.

    Then (the values being finite) no sum overflowed, and no column varies so little
    against its magnitude that its sums of squares cancel (a warning, where the
    ranges were aggregated).
    """

    def check(table: pl.DataFrame) -> None:
        _check_values(table)
        _check_sums(table)

    def _check_sums(table: pl.DataFrame) -> None:
        names = {c.param: f"`{c.param}` column {c.name!r}" for c in columns}
        both = " and ".join(names.values())
        if weight is not None:
            weights = {"n": f"`sample_weight` column {weight!r}"}
            if WEIGHT_SQUARES in table.columns:
                weights[WEIGHT_SQUARES] = weights["n"]
            check_sums_finite(table, weights, WEIGHT_HINT, keys)
        sources = {
            "sum_pred": names["y_pred"], "sum_pred_sq": names["y_pred"],
            "sum_true": names.get("y_true", ""), "sum_true_sq": names.get("y_true", ""),
            "sum_pred_true": both, "sum_abs_error": both, "sum_sq_error": both,
        }  # fmt: skip
        hint = (
            "rescale the values, e.g. `pl.col(...) / 1e100` (predictions and true values by "
            "the same factor): ratios and correlations do not change"
        )
        check_sums_finite(table, sources, hint, keys)
        for column in columns:
            if _RANGE + column.param in table.columns:
                warn_cancellation(table, column, keys)
        warn_underflow(table, columns, keys)

    def _check_values(table: pl.DataFrame) -> None:
        for column in columns:
            bad = int(table.get_column(_BAD + column.param).sum())
            if bad:
                msg = MSG_REGRESSION_VALUES.format(
                    param=column.param, name=column.name, found=f"{bad} NaN or infinite value(s)"
                )
                raise ValueRangeError(msg)
        if weight is not None:
            check_weight_values(table, weight)

    return check


def warn_cancellation(table: pl.DataFrame, column: _Column, keys: Sequence[str]) -> None:
    """Warn about groups whose values vary by less than ``CANCELLATION_TOLERANCE`` of their size.

    There ``sum_sq / n - mean²`` loses most of its digits to cancellation (values of
    1e6 ± 1 give a standard deviation of 0): the aggregated range and mean square of
    each group tell, at no extra pass.
    """
    spread = pl.col(_RANGE + column.param)
    squares = "sum_pred_sq" if column.param == "y_pred" else "sum_true_sq"
    rms = (pl.col(squares) / pl.col("n")).sqrt()  # the (weighted) root mean square
    # n > 0: a group without (weighted) rows has no mean square (0 / 0) and no spread
    flagged = table.filter(
        (pl.col("n") > 0) & (spread > 0) & (spread < CANCELLATION_TOLERANCE * rms)
    )
    if keys:
        flagged = flagged.sort(keys, nulls_last=True)
    if not flagged.height:
        return
    rows = flagged.select(keys).rows() if keys else [("all",)]
    groups = format_values([r[0] if len(r) == 1 else r for r in rows])
    centre = float(flagged.select(rms).item(0, 0))
    msg = MSG_CANCELLATION.format(
        param=column.param, name=column.name, tolerance=CANCELLATION_TOLERANCE,
        groups=groups, example=f"{centre:.6g} ± {flagged.get_column(_RANGE + column.param)[0]:.3g}",
        centre=float(f"{centre:.3g}"),
    )  # fmt: skip
    warn_data(msg, NumericalWarning)


MSG_UNDERFLOW = (
    "values too small for float64 to hold their squares: {found}, in groups {groups}; "
    "{measures} computed from those sums come out 0 or null there\n\nHint: rescale the "
    "values, e.g. `{example}` (predictions and true values by the same factor): ratios "
    "and correlations do not change, differences and RMSE scale by the factor"
)
#: The smallest positive normal float64: a mean square below it is made of squares
#: that underflowed (to 0, or to subnormals, which keep few digits).
_TINY = sys.float_info.min


def warn_underflow(table: pl.DataFrame, columns: Sequence[_Column], keys: Sequence[str]) -> None:
    """Warn (once) about groups whose values are so small that their squares underflow.

    Values below about 1.5e-154 have squares below the smallest normal float64, so
    ``sum_pred_sq``, ``sum_true_sq`` and ``sum_sq_error`` come out 0 or imprecise, and
    the standard deviation, RMSE and correlation would read 0 or null without a word.
    Read from the sums already aggregated (and each column's range): no extra pass.
    Computing scaled squares instead would change the additive table (profiles,
    merges); a rescaled input gives exact results, so the warning says how.
    """
    if "n" not in table.columns or "sum_pred_sq" not in table.columns:  # not a sums table
        return
    n = pl.col("n")
    names = {c.param: c.name for c in columns}
    checks = [
        (f"`y_pred` column {names['y_pred']!r}", "sum_pred_sq", pl.col("sum_pred") / n,
         (pl.col("sum_pred") != 0) | (pl.col(_RANGE + "y_pred") > 0),
         "the standard deviation, correlation and z-score"),
    ]  # fmt: skip
    if "y_true" in names:
        checks += [
            (f"`y_true` column {names['y_true']!r}", "sum_true_sq", pl.col("sum_true") / n,
             (pl.col("sum_true") != 0) | (pl.col(_RANGE + "y_true") > 0), "the correlation"),
            ("their errors", "sum_sq_error", pl.col("sum_abs_error") / n,
             pl.col("sum_abs_error") > 0, "the RMSE"),
        ]  # fmt: skip
    found: list[str] = []
    measures: list[str] = []
    groups: dict[object, None] = {}
    sizes: list[float] = []
    for what, squares, size, nonzero, measure in checks:
        flagged = table.filter((n > 0) & nonzero & (pl.col(squares) / n < _TINY))
        if not flagged.height:
            continue
        if keys:
            flagged = flagged.sort(keys, nulls_last=True)
            for row in flagged.select(keys).rows():
                groups[row[0] if len(row) == 1 else row] = None
        value = float(flagged.select(size.abs()).item(0, 0))
        found.append(f"{what} (values near {value:.3g})")
        measures.append(measure)
        sizes.append(value)
    if not found:
        return
    # a power of ten that brings the smallest values found near 1
    factor = f"1e{-math.floor(math.log10(min(sizes)))}" if min(sizes) > 0 else "1e150"
    example = ", ".join(f"{param}=pl.col({name!r}) * {factor}" for param, name in names.items())
    msg = MSG_UNDERFLOW.format(
        found=", ".join(found), groups=format_values(list(groups) or ["all"]),
        measures=_join(measures), example=example,
    )  # fmt: skip
    warn_data(msg, NumericalWarning)


def _join(measures: list[str]) -> str:
    """The measures named once each, in order ("a, b and c")."""
    words = list(dict.fromkeys(m.removeprefix("the ") for part in measures for m in
                               part.replace(" and ", ", ").split(", ")))  # fmt: skip
    return "the " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1])


def regression_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    y_true: IntoColumn | None = None,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    weight_squares: bool = False,
) -> pl.LazyFrame:
    """
    Reduce continuous predictions to per-group sums, lazily, in one pass.

    Parameters
    ----------
    frame
        The predictions. Never modified.
    y_pred
        Column (or expression) of numeric predictions.
    sensitive_features
        Column name(s) defining the groups.
    y_true
        Column (or expression) of numeric true values; adds the error sums.
    by
        Batch key column(s): everything is computed per key.
    sample_weight
        Column of non-negative weights; the sums are weighted and ``n`` is the
        weight total.
    weight_squares
        With `sample_weight`, add ``sum_w2``, the sum of squared weights (additive,
        same ``group_by``): a group's Kish effective size is ``n**2 / sum_w2``. The
        slice search tests weighted means on those sizes.

    Returns
    -------
    LazyFrame
        One row per (batch key, group), sorted by the keys: ``n, n_null,
        sum_pred, sum_pred_sq`` and, with `y_true`, ``sum_true, sum_true_sq,
        sum_pred_true, sum_abs_error, sum_sq_error`` (the error is
        ``y_pred - y_true``). Additive across disjoint parts of the data.

    Notes
    -----
    Rows with a null prediction, true value or weight are excluded and counted in
    ``n_null``. NaN or infinite values raise
    :class:`~polars_fair.exceptions.ValueRangeError` when the plan runs.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce.regression import regression_stats
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "pred": [1.0, 3.0, 2.0], "y": [1.0, 2.0, 4.0]})
    >>> regression_stats(df, y_pred="pred", y_true="y", sensitive_features="g").collect()
    shape: (2, 10)
    ┌─────┬─────┬────────┬──────────┬───┬─────────────┬───────────────┬───────────────┬──────────────┐
    │ g   ┆ n   ┆ n_null ┆ sum_pred ┆ … ┆ sum_true_sq ┆ sum_pred_true ┆ sum_abs_error ┆ sum_sq_error │
    │ --- ┆ --- ┆ ---    ┆ ---      ┆   ┆ ---         ┆ ---           ┆ ---           ┆ ---          │
    │ str ┆ i64 ┆ i64    ┆ f64      ┆   ┆ f64         ┆ f64           ┆ f64           ┆ f64          │
    ╞═════╪═════╪════════╪══════════╪═══╪═════════════╪═══════════════╪═══════════════╪══════════════╡
    │ a   ┆ 2   ┆ 0      ┆ 4.0      ┆ … ┆ 5.0         ┆ 7.0           ┆ 1.0           ┆ 1.0          │
    │ b   ┆ 1   ┆ 0      ┆ 2.0      ┆ … ┆ 16.0        ┆ 8.0           ┆ 2.0           ┆ 4.0          │
    └─────┴─────┴────────┴──────────┴───┴─────────────┴───────────────┴───────────────┴──────────────┘
    """
    lf, schema, sens, by_ = resolve_keys(frame, sensitive_features, by, "regression")
    columns = [_numeric(lf, schema, y_pred, "y_pred")]
    if y_true is not None:
        columns.append(_numeric(lf, schema, y_true, "y_true"))
    weight, weight_name = resolve_weight(lf, schema, sample_weight)

    valid = pl.lit(True)
    for column in columns:
        valid = valid & column.expr.is_not_null()
    if weight is not None:
        valid = valid & weight.is_not_null()

    def kept(e: pl.Expr) -> pl.Expr:
        """`e` (times the weight) on counted rows, null elsewhere."""
        return pl.when(valid).then(e if weight is None else e * weight)

    p = columns[0].expr
    aggs = [
        (valid.sum() if weight is None else kept(pl.lit(1.0)).sum()).alias("n"),
        (~valid).sum().cast(pl.Int64).alias("n_null"),
        kept(p).sum().alias("sum_pred"),
        kept(p * p).sum().alias("sum_pred_sq"),
    ]
    if y_true is not None:
        t = columns[1].expr
        err = p - t
        aggs += [
            kept(t).sum().alias("sum_true"),
            kept(t * t).sum().alias("sum_true_sq"),
            kept(p * t).sum().alias("sum_pred_true"),
            kept(err.abs()).sum().alias("sum_abs_error"),
            kept(err * err).sum().alias("sum_sq_error"),
        ]
    if weight is not None and weight_squares:
        aggs.append(kept(weight).sum().alias(WEIGHT_SQUARES))
    # validity checks cost one cheap aggregate per column; the precision check one more
    # (the range of each column, read against its mean square from the sums)
    aggs += [(~c.expr.is_finite()).sum().alias(_BAD + c.param) for c in columns]
    for c in columns:
        counted = pl.when(valid).then(c.expr)
        aggs.append((counted.max() - counted.min()).alias(_RANGE + c.param))
    if weight is not None:
        aggs += bad_weight_aggs(weight)
    keys = [*by_, *sens]
    table = lf.group_by(keys).agg(aggs)
    table = check_in_plan(table, _finite_checker(columns, weight_name, keys))
    drop = [_BAD + c.param for c in columns] + [_RANGE + c.param for c in columns]
    drop += list(BAD_WEIGHTS) if weight is not None else []
    table = table.drop(drop)
    if weight is None:
        table = table.with_columns(pl.col("n").cast(pl.Int64))
    return table.sort(keys, nulls_last=True)


def check_levels(levels: object, param: str = "q") -> list[float]:
    """Check quantile levels: numbers in [0, 1]; returns them as floats."""
    values = levels if isinstance(levels, (list, tuple, np.ndarray)) else [levels]
    out: list[float] = []
    for v in values:
        number = isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)
        level = float(v) if number else math.nan  # type: ignore[arg-type]
        if not 0 <= level <= 1:
            msg = f"`{param}` must be a quantile level in [0, 1], got {v!r}\n\nHint: e.g. `{param}=0.8`"
            raise InvalidParameterError(msg)
        out.append(level)
    if not out:
        msg = f"`{param}` must give at least one quantile level, got {levels!r}"
        raise InvalidParameterError(msg)
    return out


def _numpy_quantiles(sorted_values: pl.Expr, levels: Sequence[float]) -> pl.Expr:
    """Quantiles of sorted values (nulls last) at `levels`, as :func:`numpy.quantile`.

    numpy's "linear" method: virtual index ``h = (n - 1) q``, then its ``_lerp``,
    which interpolates from the upper neighbour when the fraction is >= 0.5.
    Reproducing the rounding as well makes the thresholds (and so which rows
    reach them) identical to numpy's.
    """
    n = sorted_values.count().cast(pl.Int64)  # the non-null values come first
    # a trailing null keeps every index in bounds when a key has no values (n = 0:
    # the index is -1 or 0), so the quantile is null there rather than an error
    s = sorted_values.append(pl.lit(None, dtype=pl.Float64))
    q = pl.lit(pl.Series(np.asarray(levels, dtype=np.float64)))
    h = (n - 1).cast(pl.Float64) * q
    lo = h.floor()
    # h <= n - 1 since q <= 1; at the top both neighbours are the largest value
    # (arithmetic only: when/then over the levels panics in Polars' in-memory engine)
    lo_i = lo.cast(pl.Int64)
    hi_i = lo_i + (lo_i < n - 1).cast(pl.Int64)
    gamma = h - lo
    a, b = s.gather(lo_i), s.gather(hi_i)
    d = b - a
    upper = (gamma >= 0.5).cast(pl.Float64)  # exact: x * 1 + 0 * y == x for finite y
    return upper * (b - d * (1 - gamma)) + (1 - upper) * (a + d * gamma)


def _require_rows(table: pl.DataFrame) -> None:
    if table.height == 0:
        raise EmptyDataError(MSG_EMPTY.format(where=""))


def quantile_grid_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    levels: Sequence[float],
    by: IntoColumns | None = None,
) -> pl.LazyFrame:
    """
    Success counts per group at thresholds set by quantiles of the predictions.

    For each batch key, the threshold at level ``q`` is the ``q``-quantile of all
    its (non-null) predictions, linearly interpolated exactly as
    :func:`numpy.quantile`; a row is a success at that level when its prediction
    is at or above the threshold (Holistic AI's definition).

    Parameters
    ----------
    frame
        The predictions. Never modified.
    y_pred
        Column (or expression) of numeric predictions.
    sensitive_features
        Column name(s) defining the groups.
    levels
        Quantile levels in [0, 1].
    by
        Batch key column(s): thresholds and counts are per key.

    Returns
    -------
    LazyFrame
        One row per (batch key, level, group), sorted by them: the keys,
        ``quantile`` (the level), the sensitive features, ``threshold``, then the
        counts ``n, pred_pos, pred_neg, n_null`` (``pred_pos``: rows at or above
        the threshold). Every criterion of selection rates applies to it with
        ``quantile`` as an extra batch key.

    Notes
    -----
    Two passes: the predictions are sorted once for the quantiles, then each row
    is matched to the highest threshold it reaches. Polars holds the prediction
    and key columns in memory for the sort and caches the sorted rows for their
    second use, so the source itself is read once.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce.regression import quantile_grid_stats
    >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "pred": [1.0, 4.0, 2.0, 3.0]})
    >>> quantile_grid_stats(df, y_pred="pred", sensitive_features="g", levels=[0.5]).collect()
    shape: (2, 7)
    ┌──────────┬─────┬───────────┬─────┬──────────┬──────────┬────────┐
    │ quantile ┆ g   ┆ threshold ┆ n   ┆ pred_pos ┆ pred_neg ┆ n_null │
    │ ---      ┆ --- ┆ ---       ┆ --- ┆ ---      ┆ ---      ┆ ---    │
    │ f64      ┆ str ┆ f64       ┆ i64 ┆ i64      ┆ i64      ┆ i64    │
    ╞══════════╪═════╪═══════════╪═════╪══════════╪══════════╪════════╡
    │ 0.5      ┆ a   ┆ 2.5       ┆ 2   ┆ 1        ┆ 1        ┆ 0      │
    │ 0.5      ┆ b   ┆ 2.5       ┆ 2   ┆ 1        ┆ 1        ┆ 0      │
    └──────────┴─────┴───────────┴─────┴──────────┴──────────┴────────┘
    """
    lf, schema, sens, by_ = resolve_keys(frame, sensitive_features, by, "regression")
    for name in QUANTILE_KEYS:
        if name in (*sens, *by_):
            msg = (
                f"column {name!r} clashes with an output column of the quantile grid"
                f"\n\nHint: rename it first, e.g. `.rename({{{name!r}: {name + '_'!r}}})`"
            )
            raise InvalidParameterError(msg)
    column = _numeric(lf, schema, y_pred, "y_pred")
    levels = sorted({float(v) for v in levels})
    keys = [*by_, *sens]
    y = pl.col(_Y)

    # sorted once (nulls last); the thresholds and the row matching both read it
    ranked = lf.select(*keys, column.expr.alias(_Y)).sort(_Y, nulls_last=True)
    # no rows: EmptyDataError here, before the per-key quantiles (Polars 2.1 panics on
    # those over an empty frame with batch keys); the sort materialises the rows anyway
    ranked = check_in_plan(ranked, _require_rows).cache()
    level_frame = pl.LazyFrame(
        {
            _J: pl.Series(range(len(levels)), dtype=pl.Int64),
            "quantile": pl.Series(levels, dtype=pl.Float64),
        }
    )
    thresholds = (
        ranked.group_by(by_ or pl.lit(0).alias("__pf_all"), maintain_order=True)
        .agg(
            _numpy_quantiles(y, levels).alias("threshold"),
            pl.int_range(len(levels)).alias(_J),
        )
        .explode("threshold", _J)
        .with_columns(pl.col(_J).cast(pl.Int64))
        .sort("threshold", _J)
    )
    if not by_:
        thresholds = thresholds.drop("__pf_all")
    thresholds = thresholds.cache()  # matched against the rows, then reported
    # each row's highest threshold reached (null: below the lowest one, or a null value)
    reached = ranked.join_asof(
        thresholds,
        left_on=_Y,
        right_on="threshold",
        by=by_ or None,
        strategy="backward",
        check_sortedness=False,
    )
    hist = reached.group_by(*keys, _J, y.is_null().alias("__pf_null")).agg(
        pl.len().cast(pl.Int64).alias("__pf_c"),
        (~y.is_finite()).sum().alias(_BAD + "y_pred"),
    )
    hist = check_in_plan(hist, _finite_checker([column], None)).drop(_BAD + "y_pred").cache()
    missing, c = pl.col("__pf_null"), pl.col("__pf_c")
    per_group = hist.group_by(keys).agg(
        c.filter(~missing).sum().alias("n"), c.filter(missing).sum().alias("n_null")
    )
    reached_at = hist.filter(~missing & pl.col(_J).is_not_null()).select(*keys, _J, "__pf_c")
    grid = (
        per_group.join(level_frame, how="cross")
        .join(reached_at, on=[*keys, _J], how="left", nulls_equal=True)
        .join(thresholds, on=[*by_, _J], how="left", nulls_equal=True)
        .sort([*keys, _J], nulls_last=True)
    )
    # a row reaches level j when its highest threshold index is >= j
    reach = pl.col("__pf_c").fill_null(0).cum_sum(reverse=True).over(keys)
    grid = grid.with_columns(reach.alias("pred_pos")).with_columns(
        (pl.col("n") - pl.col("pred_pos")).alias("pred_neg")
    )
    out = [*by_, "quantile", *sens, "threshold", "n", "pred_pos", "pred_neg", "n_null"]
    return grid.select(out).sort([*by_, "quantile", *sens], nulls_last=True)
