"""The metric layer: pure Polars expressions over the statistics table.

Nothing here reads rows: every function takes the (small) statistics table built
by :mod:`polars_fair.reduce` and returns a LazyFrame plan over it.
"""

from __future__ import annotations

from polars_fair.metrics._criteria import criterion_table
from polars_fair.metrics._rates import COMPOSITES, RATES, SCORE_RATES, Counts, rate_expr, safe_div
from polars_fair.metrics._reference import (
    build_nonempty,
    require_nonempty,
    require_reference,
    require_rows,
    require_unshadowed,
    resolve_reference,
    warn_one_group,
)
from polars_fair.metrics._slices import SLICE_METRICS, slices_from_stats
from polars_fair.metrics._tables import METRIC_DTYPE, disparity_table, rates_table

__all__ = [
    "COMPOSITES",
    "METRIC_DTYPE",
    "RATES",
    "SLICE_METRICS",
    "SCORE_RATES",
    "Counts",
    "criterion_table",
    "disparity_table",
    "rate_expr",
    "rates_table",
    "build_nonempty",
    "require_nonempty",
    "require_rows",
    "require_reference",
    "require_unshadowed",
    "resolve_reference",
    "warn_one_group",
    "safe_div",
    "slices_from_stats",
]
