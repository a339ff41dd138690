"""Cutting the report's tables to their largest groups (``max_rows``), with notes.

Used by :meth:`FairnessReport._capped` (Markdown, text and HTML) and by the HTML
page's summary of the groups.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair._validate import POLICY_NAMES

#: The most groups a rendered table shows by default (``max_rows``).
MAX_ROWS = 50
#: Reference-group policies (not values of a group): the checks' one list.
POLICIES = POLICY_NAMES


def group_sizes(by_group: pl.DataFrame, keys: list[str], by: list[str]) -> pl.DataFrame:
    """One row per group: its keys, rows `n` (summed over batch keys) and `small_group`.

    And ``sum_w2``, summed too, when the table has it (weighted: ``n`` is a weight
    total, ``n**2 / sum_w2`` the Kish effective size).
    """
    small = ["small_group"] if "small_group" in by_group.columns else []
    squares = ["sum_w2"] if "sum_w2" in by_group.columns else []
    if not [b for b in by if b in by_group.columns]:  # already one row per group
        return by_group.select(*keys, "n", *squares, *small)
    return by_group.group_by(keys).agg(
        pl.col("n", *squares).sum(), *(pl.col(c).any() for c in small)
    )


def largest(sizes: pl.DataFrame, keys: list[str], k: int) -> pl.DataFrame:
    """The `k` largest groups of `sizes` (ties: the first keys), without a full sort."""
    return sizes.top_k(k, by=["n", *keys], reverse=[False] + [True] * len(keys))


def reference_rows(sizes: pl.DataFrame, params: dict[str, Any], keys: list[str]) -> pl.DataFrame:
    """The rows of `sizes` that are the reference group, when it is given as a value."""
    reference = params.get("reference_group")
    if reference is None or isinstance(reference, str) and reference in POLICIES:
        return sizes.clear()
    if isinstance(reference, dict):
        values = [reference.get(k) for k in keys]
    elif isinstance(reference, (tuple, list)):
        values = list(reference)
    else:
        values = [reference]
    if len(values) != len(keys):
        return sizes.clear()
    mask = pl.lit(True)
    for key, value in zip(keys, values, strict=True):
        mask = mask & (pl.col(key).is_null() if value is None else pl.col(key) == value)
    try:
        return sizes.filter(mask.fill_null(False))
    except pl.exceptions.PolarsError:  # a value of another type: no such group
        return sizes.clear()


def semi(table: pl.DataFrame, kept: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The rows of `table` whose keys are in `kept` (nulls match), in `table`'s order."""
    kept = kept.select(pl.col(k).cast(table.schema[k]) for k in keys)
    return table.join(kept, on=keys, how="semi", nulls_equal=True, maintain_order="left")


def cut_note(
    total: int, shown: int, max_rows: int, what: str, name: str, *, largest: bool = True
) -> str:
    """The line under a cut table: how many were left out, and where to find all."""
    which = f"the {max_rows:,} largest" if largest else f"the first {max_rows:,}"
    return (
        f"{total - shown:,} of {total:,} {what} left out (shown: {which}). Every row: "
        f"``report.{name}``, ``max_rows=None``, or on the command line ``--max-rows 0`` "
        "or ``--format json``."
    )
