"""The public path of :mod:`polars_fair.reduce.multiclass` (where the module lives: see the layers)."""

from polars_fair.reduce.multiclass import (
    CLASS,
    multiclass_stats,
)

__all__ = [
    "CLASS",
    "multiclass_stats",
]
