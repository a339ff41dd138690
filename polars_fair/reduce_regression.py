"""The public path of :mod:`polars_fair.reduce.regression` (where the module lives: see the layers)."""

from polars_fair.reduce.regression import (
    QUANTILE_KEYS,
    REGRESSION_SUMS,
    check_levels,
    quantile_grid_stats,
    regression_stats,
)

__all__ = [
    "QUANTILE_KEYS",
    "REGRESSION_SUMS",
    "check_levels",
    "quantile_grid_stats",
    "regression_stats",
]
