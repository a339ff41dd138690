"""The public path of :mod:`polars_fair.io.distributed` (where the module lives: see the layers)."""

from polars_fair.io.distributed import (
    dataset_group_stats,
    file_group_stats,
    file_profile,
    file_report_reductions,
    ray_group_stats,
    ray_profile,
    ray_report,
)

__all__ = [
    "dataset_group_stats",
    "file_group_stats",
    "file_profile",
    "file_report_reductions",
    "ray_group_stats",
    "ray_profile",
    "ray_report",
]
