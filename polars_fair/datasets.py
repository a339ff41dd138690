"""The public path of :mod:`polars_fair.io.datasets` (where the module lives: see the layers)."""

from polars_fair.io.datasets import (
    load_compas,
    scan_compas,
)

__all__ = [
    "load_compas",
    "scan_compas",
]
