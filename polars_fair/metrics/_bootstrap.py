"""Bootstrap from the statistics table alone: multinomial redraws of the counts.

A row bootstrap only changes how many rows fall in each (group, confusion cell):
redrawing those cell counts from the right multinomial gives exactly the
distribution of a row bootstrap, at a cost independent of the number of rows.

* ``"stratified"``: each group keeps its size ``n_g`` and its cells are redrawn
  from ``Multinomial(n_g, cells_g / n_g)``: a row bootstrap within each group.
* ``"joint"``: all cells of all groups are redrawn together from
  ``Multinomial(N, cells / N)``: a row bootstrap of the whole frame (group sizes
  vary too), as fairlearn's bootstrap resamples rows.

Both are seeded (NumPy's PCG64) and reproducible. The redraw runs inside the plan
on the small statistics table; the metric code then computes every criterion per
replicate with ``replicate`` as one more batch key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import polars as pl

from polars_fair._validate import check_table_keys
from polars_fair.reduce import WEIGHT_SQUARE_COLUMNS

__all__ = ["REPLICATE", "bootstrap_summary", "count_cells", "resample_stats"]

#: A function adding columns to a replicate table, and the dtypes of those columns.
Annotation = tuple[Callable[[pl.DataFrame], pl.DataFrame], Mapping[str, pl.DataType]]

#: The batch-key column that numbers the replicates.
REPLICATE = "replicate"

_CELLS = (("tp", "fp", "fn", "tn"), ("pred_pos", "pred_neg"), ("pos", "neg"))


def count_cells(names: list[str]) -> tuple[str, ...]:
    """The count columns of a statistics table: the confusion cells, or the one-label pair."""
    for cells in _CELLS:
        if all(c in names for c in cells):
            return cells
    msg = "no count columns in the statistics table"  # pragma: no cover
    raise ValueError(msg)


def _draw(
    df: pl.DataFrame, by: list[str], cells: tuple[str, ...], n_resamples: int, seed: int,
    scheme: str, seed_per_key: bool = False,
) -> pl.DataFrame:  # fmt: skip
    # integer counts, or effective (weighted) ones: drawn from their exact shares
    counts = df[list(cells)].to_numpy().astype(np.float64)  # (R, C)
    if by:
        block = df.select(pl.struct(by).rank("dense").cast(pl.Int64) - 1).to_series().to_numpy()
    else:
        block = np.zeros(df.height, dtype=np.int64)
    if by:
        slot = df.select(pl.int_range(pl.len()).over(by)).to_series()
        slot_ = slot.to_numpy().astype(np.int64)
    else:
        slot_ = np.arange(df.height, dtype=np.int64)
    n_blocks = int(block.max()) + 1 if df.height else 0
    width = int(slot_.max()) + 1 if df.height else 0
    n_cells = counts.shape[1]
    # padded (block, slot, cell) arrays; padding slots hold no rows
    grid = np.zeros((n_blocks, width, n_cells), dtype=np.float64)
    grid[block, slot_] = counts
    mass = grid.sum(axis=2)  # (K, G)
    # the redraw's size: the count rounded (at least 1 where there is any)
    sizes = np.where(mass > 0, np.maximum(np.rint(mass), 1), 0).astype(np.int64)
    rng = np.random.default_rng(seed)
    if scheme == "joint":
        totals = sizes.sum(axis=1)  # (K,)
        share = np.where(totals[:, None] > 0, sizes / np.maximum(totals, 1)[:, None], 0.0)
        share[totals == 0, 0] = 1.0
        drawn_sizes = rng.multinomial(totals, share, size=(n_resamples, n_blocks))
    else:
        drawn_sizes = np.broadcast_to(sizes, (n_resamples, n_blocks, width))
    probs = np.where(mass[..., None] > 0, grid / np.where(mass > 0, mass, 1.0)[..., None], 0.0)
    probs[sizes == 0, 0] = 1.0  # empty slot: any valid distribution (it draws 0 rows)
    if seed_per_key and scheme == "stratified":
        # each batch key redrawn from its own generator seeded with `seed`: a key's
        # replicates do not depend on the other keys (one loop step per batch key,
        # over its few groups; never over rows)
        drawn = np.zeros((n_resamples, n_blocks, width, n_cells), dtype=np.int64)
        used = np.bincount(block, minlength=n_blocks)
        for k in range(n_blocks):
            g = int(used[k])
            key_rng = np.random.default_rng(seed)
            drawn[:, k, :g] = key_rng.multinomial(sizes[k, :g], probs[k, :g], size=(n_resamples, g))
    else:
        drawn = rng.multinomial(drawn_sizes, probs, size=(n_resamples, n_blocks, width))
    per_row = drawn[:, block, slot_, :]  # (B, R, C)
    per_row = np.transpose(per_row, (1, 0, 2)).reshape(-1, n_cells)  # row-major (R, B)
    keys = [c for c in df.columns if c not in (*cells, "n", "n_null", *WEIGHT_SQUARE_COLUMNS)]
    groups = [k for k in keys if k not in by]
    return _replicates(df[keys], block, per_row, by, groups, cells, n_resamples)


def _replicates(
    keys: pl.DataFrame, block: np.ndarray, per_row: np.ndarray, by: list[str], groups: list[str],
    cells: tuple[str, ...], n_resamples: int,
) -> pl.DataFrame:  # fmt: skip
    """The replicate tables, sorted by batch key, replicate and group.

    `block` numbers the batch key of each row of `keys`; `per_row` holds the drawn
    cells of row ``i`` of `keys` in replicate ``b`` at ``i * n_resamples + b``. The
    small table is sorted once by (batch key, group); each batch key's block of rows
    then repeats once per replicate.
    """
    if keys.height == 0:
        order = np.zeros(0, dtype=np.int64)
        reps = np.zeros(0, dtype=np.int64)
    else:
        ranked = keys.with_row_index("__pf_row").sort([*by, *groups], nulls_last=True)
        rows = ranked.get_column("__pf_row").to_numpy().astype(np.int64)
        # the blocks of equal batch keys (contiguous once sorted), in sorted order
        blocks = np.split(rows, np.flatnonzero(np.diff(block[rows])) + 1)
        order = np.concatenate([np.tile(b, n_resamples) for b in blocks])
        reps = np.concatenate([np.repeat(np.arange(n_resamples), len(b)) for b in blocks])
    # the numbers as one (column, row) block: replicate, n, cells
    numbers = np.empty((2 + len(cells), len(order)), dtype=np.int64)
    numbers[0] = reps
    numbers[2:] = per_row[order * n_resamples + reps].T
    numbers[1] = numbers[2:].sum(axis=0)
    names = [REPLICATE, "n", *cells]
    out = keys[order].hstack(
        [pl.Series(x, column) for x, column in zip(names, numbers, strict=True)]
    )
    return out[[*by, REPLICATE, *groups, "n", *cells]]  # indexing: no plan to build


def resample_stats(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    n_resamples: int,
    seed: int,
    scheme: str,
    seed_per_key: bool = False,
    annotate: Annotation | None = None,
) -> pl.LazyFrame:
    """Replicate statistics tables, stacked, with ``replicate`` after the batch keys.

    Runs inside the plan (on the statistics table, never on rows). `seed_per_key`
    (stratified only) seeds every batch key alike, so that a key's replicates are
    those of its own audit whatever the other keys. `annotate`: a function adding
    columns to the (small, collected) replicate table where it is drawn, and the
    dtypes of the columns it adds (no node in the plan).
    """
    schema = stats.collect_schema()
    cells = count_cells(schema.names())
    keys = [c for c in schema.names() if c not in (*cells, "n", "n_null", *WEIGHT_SQUARE_COLUMNS)]
    check_table_keys("replicates", by, [k for k in keys if k not in by])
    out_schema = {
        **{k: schema[k] for k in by},
        REPLICATE: pl.Int64,
        **{k: schema[k] for k in keys if k not in by},
        "n": pl.Int64,
        **dict.fromkeys(cells, pl.Int64),
    }
    add, added = annotate if annotate is not None else (None, {})

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        out = _draw(df, by, cells, n_resamples, seed, scheme, seed_per_key)
        return out if add is None else add(out)

    return stats.map_batches(draw, schema={**out_schema, **added}, streamable=False)


def bootstrap_summary(
    replicates: pl.LazyFrame, points: pl.LazyFrame, *, by: list[str], confidence_level: float
) -> pl.LazyFrame:
    """Point estimate, mean, std and percentile interval of each criterion.

    `replicates` and `points` are long tables ``by…, [replicate,] criterion, value``;
    replicates where a criterion is undefined are left out (``n_defined`` counts the
    others).
    """
    check_table_keys("bootstrap", by)
    v = pl.col("value").drop_nulls()
    tail = (1 - confidence_level) / 2
    spread = replicates.group_by(*by, "criterion").agg(
        v.mean().alias("mean"),
        v.std().alias("std"),
        v.quantile(tail, interpolation="linear").alias("ci_low"),
        v.quantile(1 - tail, interpolation="linear").alias("ci_high"),
        v.len().alias("n_defined"),
    )
    out = points.join(
        spread, on=[*by, "criterion"], how="left", nulls_equal=True, maintain_order="left"
    )
    # by keys first, criteria in the order asked for within each key
    return out.sort(by, nulls_last=True, maintain_order=True) if by else out
