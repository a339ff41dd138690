"""The broadcast helper `over`: exact, on every engine, whatever the first column holds."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_fair._utils import SMALL_TABLE_ROWS, derive_engine, over

ENGINES = ["in-memory", "streaming"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "first",
    [
        pl.Series("k", ["a", None, "b"] * 20_000, dtype=pl.String),
        pl.Series("k", [None] * 60_000, dtype=pl.Int64),
        pl.Series("k", [True, False, None] * 20_000),
    ],
    ids=["string-with-nulls", "all-null", "boolean"],
)
def test_whole_frame_broadcast_divides_exactly(first: pl.Series, engine: str) -> None:
    # a / a[0] through a broadcast scalar is a multiplication by the reciprocal in
    # Polars (about a fifth of the quotients 1 ulp off); the window keeps true division
    a = np.random.default_rng(0).random(first.len()) * 1000
    lf = pl.DataFrame([first, pl.Series("a", a)]).lazy()
    out = lf.select(q=pl.col("a") / over(pl.col("a").first(), [])).collect(engine=engine)
    np.testing.assert_array_equal(out["q"].to_numpy(), a / a[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_whole_frame_broadcast_is_one_partition(engine: str) -> None:
    lf = pl.LazyFrame({"k": ["x", None, "y", "x"], "v": [1, 2, 3, 4]})
    out = lf.select(s=over(pl.col("v").sum(), []), per=over(pl.col("v").sum(), ["k"])).collect(
        engine=engine
    )
    assert out["s"].to_list() == [10, 10, 10, 10]
    assert out["per"].to_list() == [5, 2, 3, 5]


def test_derivation_engine_by_table_size() -> None:
    assert derive_engine(0) == "in-memory"
    assert derive_engine(SMALL_TABLE_ROWS) == "in-memory"
    assert derive_engine(SMALL_TABLE_ROWS + 1) == "auto"
