"""Per-group measures defined by formulas over additive sums, and their comparisons.

The regression and ensemble statistics tables hold sums (``n``, ``sum_pred``,
``sum_label_stability``, ...). A measure is a :data:`Formula` of those sums, so the
same formula gives a group's value (from its own sums), the whole population's
(from the totals) and the pooled rest of the population (totals minus the
group's): every reference policy of the classification tables applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._utils import over
from polars_fair.metrics._criteria import Formula
from polars_fair.metrics._rates import safe_div
from polars_fair.metrics._reference import is_reference

__all__ = ["measure_disparity_table", "measure_table"]

_TOTAL = "__pf_total_"


def _fill(expr: pl.Expr, zero_division: float | None) -> pl.Expr:
    return expr if zero_division is None else expr.fill_null(zero_division)


def measure_table(
    stats: pl.LazyFrame,
    *,
    formula: Formula,
    measures: Sequence[str],
    zero_division: float | None = None,
) -> pl.LazyFrame:
    """The statistics table with one column per measure."""
    return stats.with_columns(
        _fill(formula(m, pl.col), zero_division).cast(pl.Float64).alias(m) for m in measures
    )


def measure_disparity_table(
    stats: pl.LazyFrame,
    *,
    formula: Formula,
    measures: Sequence[str],
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
) -> pl.LazyFrame:
    """The long table ``keys, metric, value, reference_value, difference, ratio``.

    For ``"overall"`` and ``"rest"`` the reference is the formula over the pooled
    sums: every column but the keys and ``n_null`` is summed. ``metric`` is
    an Enum in the order of `measures`.
    """
    if reference in ("overall", "rest"):
        not_summed = {*by, *sensitive, "n_null"}
        sums = [c for c in stats.collect_schema().names() if c not in not_summed]
        stats = stats.with_columns(over(pl.col(s).sum(), by).alias(_TOTAL + s) for s in sums)
    structs = []
    for m in measures:
        value = formula(m, pl.col)
        if reference == "min":
            ref = over(value.min(), by)
        elif reference == "overall":
            ref = formula(m, lambda col: pl.col(_TOTAL + col))
        elif reference == "rest":
            ref = formula(m, lambda col: pl.col(_TOTAL + col) - pl.col(col))
        else:
            mask = is_reference(reference, sensitive, by)
            ref = over(value.filter(mask).first(), by)
        v, r = _fill(value, zero_division), _fill(ref, zero_division)
        fields = [
            v.cast(pl.Float64).alias("value"),
            r.cast(pl.Float64).alias("reference_value"),
            (v - r).cast(pl.Float64).alias("difference"),
            pl.when((v < 0) | (r < 0)).then(None).otherwise(safe_div(v, r)).alias("ratio"),
        ]
        structs.append(pl.struct(fields).alias(m))
    keys = [*by, *sensitive]
    wide = stats.select(*keys, *structs)
    long = wide.unpivot(on=list(measures), index=keys, variable_name="metric", value_name="__pf_s")
    return (
        long.with_columns(pl.col("metric").cast(pl.Enum(list(measures))))
        .unnest("__pf_s")
        .sort([*keys, "metric"], nulls_last=True)
    )
