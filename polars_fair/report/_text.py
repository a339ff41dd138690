"""Plain-text pieces of the report: flat tables and the summary as a person reads it.

Used by :meth:`FairnessReport.to_text` (what ``polars-fair audit`` prints) and by the
other renderings (``flat``).
"""

from __future__ import annotations

import polars as pl

from polars_fair._validate import SUMMARY_COLUMNS
from polars_fair.metrics._verdicts import size_text

#: The summary's columns in the plain-text table, first; other columns follow.
_SUMMARY_TEXT = (
    "criterion", "value", "fair_low", "fair_high", "verdict", "ci_low", "ci_high", "group",
    "group_n", "compared_with", "compared_n",
)  # fmt: skip


def summary_text(summary: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The summary for plain text: the comparison as ``group (n=..) vs other (n=..)``."""
    first = [c for c in _SUMMARY_TEXT if c in summary.columns]
    extra = [c for c in summary.columns if c not in (*SUMMARY_COLUMNS, *by)]
    if {"group", "group_n", "compared_with", "compared_n"} <= set(summary.columns):
        compared = pl.format(
            "{} (n={}) vs {} (n={})", pl.col("group").cast(pl.String),
            size_text(pl.col("group_n")), pl.col("compared_with").cast(pl.String),
            size_text(pl.col("compared_n")),
        ).alias("compared")  # fmt: skip
        shown = [c for c in first if c not in ("group", "group_n", "compared_with", "compared_n")]
        return flat(summary.select(*by, *shown, compared, *extra))
    return flat(summary.select(*by, *first, *extra))


def undefined_lines(summary: pl.DataFrame, by: list[str], most: int) -> list[str]:
    """One line per criterion without a value, saying why (the summary's ``note``)."""
    if "note" not in summary.columns:
        return []
    rows = summary.filter(pl.col("note").is_not_null()).head(most)
    out = []
    for row in rows.iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in by)
        out.append(f"{row['criterion']}{f' ({where})' if where else ''}: {row['note']}")
    return out


def flat(table: pl.DataFrame) -> pl.DataFrame:
    """`table` with list columns joined into text and Enum/Categorical columns as text."""
    exprs = []
    for name, dtype in table.schema.items():
        col = pl.col(name)
        if isinstance(dtype, pl.List):
            exprs.append(col.list.eval(pl.element().cast(pl.String)).list.join(", "))
        elif isinstance(dtype, (pl.Enum, pl.Categorical)):
            exprs.append(col.cast(pl.String))
        else:
            exprs.append(col)
    return table.select(exprs)
