"""Fixed cost per call on small data: polars_fair against the hand-written query.

On 10^3 rows the data costs nothing; what is left is the library's fixed cost per
call (validation, plan building, collects). Targets (DESIGN.md section 6): an eager
criterion within 2x of the hand-written Polars query for the same number, and a full
``report()`` under 25 ms. Every pair is measured back to back in one process
(alternated, median of the per-round ratios), so machine drift cancels.

Usage::

    python benches/bench_overhead.py            # prints a JSON dict of medians (ms) and ratios
    python benches/bench_overhead.py --rounds 50
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers the namespace)


def make(rows: int = 1000, seed: int = 0) -> pl.DataFrame:
    """A seeded frame: 4 groups, labels, predictions and a score."""
    rng = np.random.default_rng(seed)
    score = rng.uniform(0, 1, rows)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c", "d"], rows),
            "y_true": (rng.uniform(0, 1, rows) < score).astype(np.int8),
            "y_pred": (score >= 0.5).astype(np.int8),
            "score": score,
        }
    )


def hand_written(df: pl.DataFrame) -> float:
    """The demographic parity difference as one hand-written Polars query."""
    rates = df.lazy().group_by("g").agg(pl.col("y_pred").mean().alias("sr"))
    out = rates.select((pl.col("sr").max() - pl.col("sr").min()).alias("dpd")).collect()
    return float(out.item())


def criterion(df: pl.DataFrame) -> float | None:
    """The same number through ``df.fair``."""
    value = df.fair.demographic_parity_difference(y_pred="y_pred", sensitive_features="g")
    assert value is None or isinstance(value, float)
    return value


def report(df: pl.DataFrame) -> object:
    """A full report (labels and predictions)."""
    return df.fair.report(y_true="y_true", y_pred="y_pred", sensitive_features="g")


def report_score(df: pl.DataFrame) -> object:
    """A full report with a score (calibration, ROC, balance criteria)."""
    return df.fair.report(y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="g")


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def pair(a: Callable[[], object], b: Callable[[], object], rounds: int) -> dict[str, float]:
    """Alternate a and b; medians in ms and the median of per-round ratios a/b."""
    a(), b()  # warm-up
    ta, tb, ratio = [], [], []
    for i in range(rounds):
        if i % 2:
            y, x = _time(b), _time(a)
        else:
            x, y = _time(a), _time(b)
        ta.append(x), tb.append(y), ratio.append(x / y)
    return {
        "a_ms": round(statistics.median(ta), 3),
        "b_ms": round(statistics.median(tb), 3),
        "ratio": round(statistics.median(ratio), 2),
    }


def main() -> None:
    """Print the fixed-cost measurements as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    df = make(args.rows)
    assert abs(criterion(df) - hand_written(df)) < 1e-12  # type: ignore[operator]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = {
            "criterion_vs_hand_written": pair(
                lambda: criterion(df), lambda: hand_written(df), args.rounds
            ),
            "report_vs_hand_written": pair(
                lambda: report(df), lambda: hand_written(df), args.rounds
            ),
            "report_score_vs_hand_written": pair(
                lambda: report_score(df), lambda: hand_written(df), args.rounds
            ),
        }
    print(json.dumps({"rows": args.rows, "polars_fair": polars_fair.__file__, **result}, indent=1))


if __name__ == "__main__":
    main()
