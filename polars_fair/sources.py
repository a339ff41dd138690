"""The public path of :mod:`polars_fair.io.sources` (where the module lives: see the layers)."""

from polars_fair.io.sources import (
    READERS,
    scan_file,
)

__all__ = [
    "READERS",
    "scan_file",
]
