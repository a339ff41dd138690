"""Multiclass summaries: the class on which each criterion is farthest from its ideal.

Per-class criteria come from the one-vs-rest statistics table (``class`` is one
more batch key), so they are the binary criteria unchanged. The worst class of a
criterion is the one whose value is farthest from the ideal: ``|value|`` for
differences and the signed statistics (Cohen's d, the 2-SD z), ``|log value|`` for
ratios and the four-fifths ratio (a ratio of 0 is farthest).
"""

from __future__ import annotations

import polars as pl

from polars_fair.metrics._registry import CRITERIA

__all__ = ["worst_class_table"]

_INF = float("inf")


def _distance(criterion: pl.Expr, value: pl.Expr) -> pl.Expr:
    ratios = [n for n, s in CRITERIA.items() if s.kind == "ratio"] + ["four_fifths_rule"]
    log_distance = pl.when(value == 0).then(_INF).otherwise(value.abs().log().abs())
    return pl.when(criterion.is_in(ratios)).then(log_distance).otherwise(value.abs())


def worst_class_table(per_class: pl.LazyFrame, *, by: list[str], class_column: str) -> pl.LazyFrame:
    """From ``by…, class, criterion, value``: ``by…, criterion, worst_class, value, n_classes``.

    ``n_classes`` counts the classes with a defined value; a criterion undefined on
    every class has a null worst class and value.
    """
    value, criterion = pl.col("value"), pl.col("criterion")
    table = per_class.with_columns(_distance(criterion, value).alias("__pf_dist"))
    defined = value.is_not_null()
    at = pl.col("__pf_dist").filter(defined).arg_max()
    return table.group_by(*by, "criterion", maintain_order=True).agg(
        pl.col(class_column).filter(defined).get(at, null_on_oob=True).alias("worst_class"),
        value.filter(defined).get(at, null_on_oob=True).alias("value"),
        defined.sum().cast(pl.Int64).alias("n_classes"),
    )
