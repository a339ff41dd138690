"""Per-group rate tables and the long disparity table, from the statistics table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._utils import over
from polars_fair.metrics._rates import RATES, Counts, available_rates, rate_expr, safe_div
from polars_fair.metrics._reference import is_reference

__all__ = ["METRIC_DTYPE", "disparity_table", "rate_columns", "rates_table"]

#: The ``metric`` column of the disparity table: an Enum in catalogue order.
METRIC_DTYPE = pl.Enum(list(RATES))


def rate_columns(
    names: Sequence[str], by: list[str], metrics: Sequence[str] | None = None
) -> dict[str, pl.Expr]:
    """Rate expressions over a statistics table with columns `names`."""
    c = Counts.from_columns(names)
    total_pp = over(c.PP().sum(), by) if c.tp is not None or c.pred_pos is not None else None
    wanted = available_rates(c) if metrics is None else tuple(metrics)
    return {r: rate_expr(r, c, total_pp) for r in wanted}


def _fill(expr: pl.Expr, zero_division: float | None) -> pl.Expr:
    return expr if zero_division is None else expr.fill_null(zero_division)


def rates_table(stats: pl.LazyFrame, *, by: list[str], zero_division: float | None) -> pl.LazyFrame:
    """The statistics table with one column per computable rate."""
    cols = rate_columns(stats.collect_schema().names(), by)
    return stats.with_columns(_fill(e, zero_division).alias(r) for r, e in cols.items())


def _reference_value(
    rate: str,
    value: pl.Expr,
    c: Counts,
    reference: tuple[Any, ...] | str,
    sensitive: Sequence[str],
    by: list[str],
) -> pl.Expr:
    if reference == "min":
        return over(value.min(), by)
    if reference in ("overall", "rest"):
        total = c.map(lambda e: over(e.sum(), by))
        pooled = total if reference == "overall" else total.minus(c)
        total_pp = total.PP() if rate == "predicted_positive_share" else None
        return rate_expr(rate, pooled, total_pp)
    mask = is_reference(reference, sensitive, by)
    return over(value.filter(mask).first(), by)


def disparity_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    metrics: Sequence[str] | None,
    zero_division: float | None,
) -> pl.LazyFrame:
    """The long table ``keys, metric, value, reference_value, difference, ratio``."""
    names = stats.collect_schema().names()
    c = Counts.from_columns(names)
    values = rate_columns(names, by, metrics)
    structs = []
    for rate, value in values.items():
        v = _fill(value, zero_division)
        ref = _fill(_reference_value(rate, value, c, reference, sensitive, by), zero_division)
        structs.append(
            pl.struct(
                v.alias("value"),
                ref.alias("reference_value"),
                (v - ref).alias("difference"),
                safe_div(v, ref).alias("ratio"),
            ).alias(rate)
        )
    keys = [*by, *sensitive]
    wide = stats.select(*keys, *structs)
    long = wide.unpivot(on=list(values), index=keys, variable_name="metric", value_name="__pf_s")
    return (
        long.with_columns(pl.col("metric").cast(METRIC_DTYPE))
        .unnest("__pf_s")
        .sort([*keys, "metric"], nulls_last=True)
    )
