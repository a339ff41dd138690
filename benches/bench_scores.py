"""Timings of the score metrics, statistics and bootstrap (issue 3).

Each method runs on an in-memory frame with a score column and is compared with
the plain reduction (``group_stats`` without a score) on the same frame, so the
cost of what the score metrics add is visible. Exact ROC/AUC needs one row per
distinct score and a sort (reported separately, with scores rounded to 3 decimals
and with continuous scores). The counts bootstrap is timed apart: its cost does not
depend on the number of rows once the statistics table exists.

Usage::

    python benches/bench_scores.py            # 1e6 and 1e7 rows, 8 groups
    python benches/bench_scores.py --rows 1e6 --repeats 3

Checks (not timings) are asserted: AUC equals scikit-learn on one group, the
threshold sweep at 0.5 equals ``by_group`` with ``y_pred = score >= 0.5``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401


def make(rows: int, groups: int, seed: int = 0, decimals: int | None = None) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows).astype(np.int32)
    y = (rng.random(rows) < 0.3 + 0.04 * (g % 5)).astype(np.int8)
    s = np.clip(0.35 * y + 0.65 * rng.random(rows), 0, 1)
    if decimals is not None:
        s = np.round(s, decimals)
    return pl.DataFrame({"g": g, "y_true": y, "score": s}).with_columns(
        y_pred=(pl.col("score") >= 0.5).cast(pl.Int8)
    )


def best(fn: Callable[[], Any], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(rows: int, groups: int, repeats: int) -> list[tuple[str, float]]:
    df = make(rows, groups)
    lf = df.lazy()
    kw = {"y_true": "y_true", "sensitive_features": "g"}
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("group_stats (no score): the baseline",
         lambda: lf.fair.group_stats(y_pred="y_pred", **kw).collect()),
        ("group_stats + y_prob sums",
         lambda: lf.fair.group_stats(y_pred="y_pred", y_prob="score", **kw).collect()),
        ("balance_for_positive_class_difference",
         lambda: df.fair.balance_for_positive_class_difference(y_prob="score", **kw)),
        ("by_group + Wilson intervals",
         lambda: df.fair.by_group(y_pred="y_pred", confidence_level=0.95, **kw)),
        ("calibration (10 bins)", lambda: df.fair.calibration(y_prob="score", **kw)),
        ("threshold_sweep (101 thresholds)",
         lambda: df.fair.threshold_sweep(y_prob="score", **kw)),
        ("summary (13 criteria, one pass)", lambda: df.fair.summary(y_pred="y_pred", **kw)),
        ("generalized_entropy_index", lambda: df.fair.generalized_entropy_index(
            y_pred="y_pred", y_true="y_true")),
        ("roc_auc, continuous scores (exact: sort)",
         lambda: df.fair.roc_auc(y_prob="score", **kw)),
        ("abroca, continuous scores", lambda: df.fair.abroca(y_prob="score", **kw)),
    ]  # fmt: skip
    out = [(name, best(fn, repeats)) for name, fn in cases]
    rounded = make(rows, groups, decimals=3)
    out.append(("roc_auc, scores rounded to 3 decimals",
                best(lambda: rounded.fair.roc_auc(y_prob="score", **kw), repeats)))  # fmt: skip
    out.append(("bootstrap 1000 replicates x 2 criteria",
                best(lambda: df.fair.bootstrap(y_pred="y_pred", n_resamples=1000, **kw),
                     repeats)))  # fmt: skip
    _check(df)
    return out


def _check(df: pl.DataFrame) -> None:
    from sklearn.metrics import roc_auc_score

    one = df.filter(pl.col("g") == 0)
    auc = df.fair.roc_auc(y_true="y_true", y_prob="score", sensitive_features="g")
    got = auc.filter(pl.col("g") == 0).item(0, "roc_auc")
    assert abs(got - roc_auc_score(one["y_true"], one["score"])) < 1e-12
    sweep = df.fair.threshold_sweep(
        y_true="y_true", y_prob="score", sensitive_features="g", thresholds=[0.5]
    ).select("g", "tp", "fp", "fn", "tn")
    direct = df.fair.group_stats(y_true="y_true", y_pred="y_pred", sensitive_features="g").select(
        "g", "tp", "fp", "fn", "tn"
    )
    assert sweep.equals(direct)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), nargs="+", default=[10**6, 10**7])
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for rows in args.rows:
        print(f"\n### {rows:.0e} rows, {args.groups} groups (best of {args.repeats})\n")
        print("| method | seconds | x baseline |\n|---|---:|---:|")
        results = run(rows, args.groups, args.repeats)
        base = results[0][1]
        for name, t in results:
            print(f"| {name} | {t:.4f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
