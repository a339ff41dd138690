"""Timings of regression profiles: ``df.fair.profile(..., task="regression")`` against
one ``regression_stats`` reduction of the same columns (the table it keeps).

Usage::

    python benches/bench_profile_regression.py               # 1e7 rows
    python benches/bench_profile_regression.py --rows 1e6 --repeats 3

Alternate runs of the two (the machine is shared); median of `repeats` after one
warm-up, wall-clock seconds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair.reduce.regression import regression_stats


def make(rows: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 4, rows).astype(np.int32)
    truth = rng.normal(50.0, 10.0, rows)
    return pl.DataFrame(
        {
            "g": g,
            "model": rng.integers(0, 2, rows).astype(np.int32),
            "y_true": truth,
            "y_pred": truth + rng.normal(0.0, 4.0, rows) * (1 + 0.2 * g),
            "w": rng.uniform(0.5, 2.0, rows),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    df = make(int(args.rows))
    for weighted in (False, True):
        kw: dict[str, Any] = {
            "y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g", "by": "model",
            "sample_weight": "w" if weighted else None,
        }  # fmt: skip
        runs: dict[str, Callable[[], object]] = {
            "regression_stats": lambda kw=kw: regression_stats(df.lazy(), **kw).collect(),
            "profile": lambda kw=kw: df.fair.profile(**kw, task="regression"),
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        for fn in runs.values():  # warm-up
            fn()
        for _ in range(args.repeats):
            for name, fn in runs.items():
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        med = {name: statistics.median(t) for name, t in times.items()}
        label = "weighted" if weighted else "unweighted"
        print(
            f"{int(args.rows):.0e} rows, {label}: regression_stats {med['regression_stats']:.3f} s, "
            f"profile {med['profile']:.3f} s, ratio {med['profile'] / med['regression_stats']:.2f}"
        )


if __name__ == "__main__":
    main()
