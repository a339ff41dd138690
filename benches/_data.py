"""Seeded synthetic data for the benchmarks.

Nothing is generated at import time: call :func:`make_frame` (or
:func:`make_arrays` for the raw numpy arrays the numpy floor needs).

The frame has one row per prediction::

    g       Int32 group index in [0, groups)   (or String "g00", ... / Categorical)
    y_true  Int8 0/1
    y_pred  Int8 0/1

Group sizes are uneven (weights ~ 1..2) and each group has its own base rate
and error rates, so per-group statistics differ as in a real audit. Optional
extras, off by default: a Float64 ``w`` weight column and nulls in ``y_true``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl

GroupDtype = Literal["int32", "string", "categorical"]

#: Parquet cache for benches that read from disk (git-ignored).
CACHE_DIR = Path(__file__).resolve().parent / "_cache"


def make_arrays(rows: int, groups: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Return the raw columns as numpy arrays: g (int32), y_true and y_pred (int8)."""
    if rows < 0 or groups < 1:
        msg = f"need rows >= 0 and groups >= 1, got rows={rows}, groups={groups}"
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    # Uneven group sizes, per-group base rate, TPR and FPR.
    sizes = rng.uniform(1.0, 2.0, groups)
    g = rng.choice(groups, size=rows, p=sizes / sizes.sum()).astype(np.int32)
    base = rng.uniform(0.2, 0.6, groups)
    tpr = rng.uniform(0.6, 0.9, groups)
    fpr = rng.uniform(0.05, 0.3, groups)
    u = rng.random(rows, dtype=np.float32)
    y_true = (u < base[g]).astype(np.int8)
    v = rng.random(rows, dtype=np.float32)
    y_pred = (v < np.where(y_true == 1, tpr[g], fpr[g])).astype(np.int8)
    return {"g": g, "y_true": y_true, "y_pred": y_pred}


def make_frame(
    rows: int,
    groups: int,
    seed: int = 0,
    *,
    g_dtype: GroupDtype = "int32",
    weights: bool = False,
    null_ratio: float = 0.0,
) -> pl.DataFrame:
    """
    Build a seeded DataFrame of ``rows`` labelled predictions over ``groups`` groups.

    Parameters
    ----------
    rows
        Number of rows.
    groups
        Number of distinct groups in ``g``.
    seed
        Seed of the numpy generator; same arguments give the same frame.
    g_dtype
        ``"int32"`` (group index), ``"string"`` (``"g00"``, ``"g01"``, ...) or
        ``"categorical"`` (the same strings as Categorical).
    weights
        Add a Float64 ``w`` column of positive weights.
    null_ratio
        Fraction of ``y_true`` values set to null (0 keeps the column null-free).

    Returns
    -------
    DataFrame
        Columns ``g, y_true, y_pred`` (and ``w`` when asked).
    """
    arrays = make_arrays(rows, groups, seed)
    df = pl.DataFrame(
        {
            "g": pl.Series("g", arrays["g"], dtype=pl.Int32),
            "y_true": pl.Series("y_true", arrays["y_true"], dtype=pl.Int8),
            "y_pred": pl.Series("y_pred", arrays["y_pred"], dtype=pl.Int8),
        }
    )
    if g_dtype != "int32":
        width = len(str(groups - 1))
        labels = pl.Series([f"g{i:0{width}d}" for i in range(groups)], dtype=pl.String)
        g = labels.gather(df.get_column("g"))
        if g_dtype == "categorical":
            g = g.cast(pl.Categorical)
        elif g_dtype != "string":
            msg = f"g_dtype must be 'int32', 'string' or 'categorical', got {g_dtype!r}"
            raise ValueError(msg)
        df = df.with_columns(g.alias("g"))
    rng = np.random.default_rng([seed, 1])
    if weights:
        df = df.with_columns(w=pl.Series(rng.uniform(0.5, 2.0, rows)))
    if null_ratio > 0:
        mask = pl.Series(rng.random(rows) < null_ratio)
        df = df.with_columns(y_true=pl.when(mask).then(None).otherwise(pl.col("y_true")))
    return df


def parquet_path(rows: int, groups: int, seed: int = 0, **kwargs: object) -> Path:
    """Write (once) and return a cached Parquet file of :func:`make_frame`'s output."""
    extra = "".join(f"_{k}-{v}" for k, v in sorted(kwargs.items()))
    path = CACHE_DIR / f"frame_r{rows}_g{groups}_s{seed}{extra}.parquet"
    if not path.exists():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        make_frame(rows, groups, seed, **kwargs).write_parquet(tmp)  # type: ignore[arg-type]
        tmp.replace(path)
    return path
