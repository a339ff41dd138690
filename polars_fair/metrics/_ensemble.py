"""Ensemble measures: per-group means of the per-row stability and uncertainty.

The statistics table of :func:`~polars_fair.reduce.ensemble.ensemble_stats` holds
``n`` and ``sum_<measure>``; a group's measure is ``sum_<measure> / n`` (Virny's
``E_{x in group}[U(x)]``), the population's is the ratio of the totals.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_fair.metrics._rates import safe_div
from polars_fair.reduce.ensemble import ENSEMBLE_MEASURES

__all__ = ["ENSEMBLE_MEASURES", "ensemble_formula"]


def ensemble_formula(name: str, get: Callable[[str], pl.Expr]) -> pl.Expr:
    """Mean of per-row measure `name` over the rows summed in `get`'s columns."""
    if name not in ENSEMBLE_MEASURES:
        msg = f"unknown ensemble measure {name!r}; known: {list(ENSEMBLE_MEASURES)}"
        raise ValueError(msg)
    return safe_div(get(f"sum_{name}"), get("n"))
