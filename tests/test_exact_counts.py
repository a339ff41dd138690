"""Counts stay exact past 2^32 rows when statistics tables are summed (DESIGN.md 1).

Pieces of a huge audit (files, partitions) are reduced separately and summed with
``merge_group_stats``. The pieces here carry counts of billions without
materialising rows: each is the statistics table of a small frame, scaled, so
every total is known exactly in Python integers.
"""

from __future__ import annotations

from fractions import Fraction

import polars as pl
import pytest

import polars_fair as pf
from polars_fair.metrics import rates_table

BIG = 3_000_000_007  # > 2^31; three of them exceed 2^33
COUNTS = ["n", "tp", "fp", "fn", "tn", "n_null"]


def _piece(scale: int, shift: int) -> pl.DataFrame:
    frame = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "b"],
            "y": [1, 0, 1, 1, 0, 0],
            "p": [1, 1, 0, 1, 0, 1],
        }
    )
    stats = pf.group_stats(frame, y_true="y", y_pred="p", sensitive_features="g").collect()
    cells = stats.with_columns(pl.col(c) * scale for c in ("tp", "fp", "fn", "tn")).with_columns(
        pl.col("tp") + shift
    )
    return cells.with_columns(
        (pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn")).alias("n")
    )


def test_summed_counts_exceed_2_32_exactly() -> None:
    pieces = [_piece(BIG, k) for k in range(3)]
    merged = pf.merge_group_stats(*pieces).collect()
    assert merged.select(COUNTS).dtypes == [pl.Int64] * len(COUNTS)
    for col in ("n", "tp", "fp", "fn", "tn"):
        expected = [sum(int(p.item(i, col)) for p in pieces) for i in range(2)]
        assert merged[col].to_list() == expected
    assert merged["n"].max() > 2**33
    # the cells still add up to n, exactly
    total = merged.select(pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn"))
    assert total.to_series().to_list() == merged["n"].to_list()


def test_rates_from_huge_counts_are_correctly_rounded() -> None:
    merged = pf.merge_group_stats(*(_piece(BIG, k) for k in range(3)))
    rates = rates_table(merged, by=[], zero_division=None).collect()
    for i in range(rates.height):
        tp, fp, n = (int(rates.item(i, c)) for c in ("tp", "fp", "n"))
        # the float rate is the exact fraction rounded once
        assert rates.item(i, "selection_rate") == float(Fraction(tp + fp, n))


def test_group_stats_counts_are_int64_not_uint32() -> None:
    frame = pl.DataFrame({"g": ["a"], "y": [1], "p": [1]})
    stats = pf.group_stats(frame, y_true="y", y_pred="p", sensitive_features="g").collect()
    assert all(stats.schema[c] == pl.Int64 for c in COUNTS)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_merge_is_lazy_and_engine_independent(engine: str) -> None:
    pieces = [_piece(BIG, k).lazy() for k in range(3)]
    merged = pf.merge_group_stats(*pieces)
    assert isinstance(merged, pl.LazyFrame)
    assert merged.collect(engine=engine).equals(pf.merge_group_stats(*pieces).collect())
