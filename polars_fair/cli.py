"""The public path of :mod:`polars_fair.io.cli` (where the module lives: see the layers)."""

from polars_fair.io.cli import (
    main,
)

__all__ = [
    "main",
]
