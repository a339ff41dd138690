"""The public path of :mod:`polars_fair.reduce.ensemble` (where the module lives: see the layers)."""

from polars_fair.reduce.ensemble import (
    ENSEMBLE_MEASURES,
    column_steps,
    ensemble_stats,
    list_measures,
)

__all__ = [
    "ENSEMBLE_MEASURES",
    "column_steps",
    "ensemble_stats",
    "list_measures",
]
