"""The public path of :mod:`polars_fair.reduce.scores` (where the module lives: see the layers)."""

from polars_fair.reduce.scores import (
    bin_edges,
    calibration_stats,
    check_thresholds,
    roc_stats,
    threshold_stats,
)

__all__ = [
    "bin_edges",
    "calibration_stats",
    "check_thresholds",
    "roc_stats",
    "threshold_stats",
]
