"""Timings of fairness profiles (issue 15).

1. *Profiling* against one reduction of the same columns: ``df.fair.profile`` (every
   reduction a report needs, collected together) against ``group_stats`` of the same
   columns (with the score's sums when there is a score), and, with a score, against
   the report's own reductions (exact per-score ROC table), and against one hand-written
   ``group_by`` of the profile's cells (group, labels, 1,000-bin score), with four keys
   and with one packed integer key (the fastest form; it needs integer keys).
2. *Merging and deriving*: 365 daily profiles of 100 models x 50 groups merged with
   ``merge_profiles`` and the report derived from the result; also read from 365
   Parquet files with one glob.

Usage::

    python benches/bench_profile.py                  # 1e7 rows
    python benches/bench_profile.py --rows 1e6 --repeats 3

Median of `repeats` after one warm-up; wall-clock seconds on this machine (shared:
alternate runs of what you compare).
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_fair as pf


def make(rows: int, groups: int, models: int = 1, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows).astype(np.int32)
    y = (rng.random(rows) < 0.3 + 0.04 * (g % 5)).astype(np.int8)
    s = np.clip(0.35 * y + 0.65 * rng.random(rows), 0, 1)
    frame = pl.DataFrame({"g": g, "y_true": y, "score": s}).with_columns(
        y_pred=(pl.col("score") >= 0.5).cast(pl.Int8)
    )
    if models > 1:
        frame = frame.with_columns(model=pl.Series(rng.integers(0, models, rows).astype(np.int32)))
    return frame


def best(fn: Callable[[], Any], repeats: int) -> float:
    """The median wall-clock time of `repeats` runs after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def profiling(rows: int, repeats: int) -> None:
    df = make(rows, 50)
    lf = df.lazy()
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    plain = best(lambda: pf.group_stats(lf, **kw).collect(), repeats)
    prof = best(lambda: df.fair.profile(**kw), repeats)
    print(f"labels only   rows={rows:.0e}  group_stats {plain:.3f} s  profile {prof:.3f} s  "
          f"ratio {prof / plain:.2f}")  # fmt: skip
    scored = best(lambda: pf.group_stats(lf, **kw, y_prob="score").collect(), repeats)
    prof_s = best(lambda: df.fair.profile(**kw, y_prob="score"), repeats)
    # one hand-written group_by of the same columns, at the profile's resolution: the
    # single reduction that keeps what the profile keeps (counts and score sums per
    # group, labels and 1,000-bin score bin)
    score = pl.col("score")
    fine = (score * 1000).floor().cast(pl.Int32).alias("bin")
    sums = [pl.len(), score.sum().alias("s1"), (score * score).sum().alias("s2")]
    binned = best(lambda: lf.group_by("g", "y_true", "y_pred", fine).agg(sums).collect(), repeats)
    # the same cells under one Int64 key packed in the plan: Polars' fastest group_by of
    # them, usable here only because this bench's group and labels are small integers
    cell = pl.col("g").cast(pl.Int64) * 4 + pl.col("y_true").cast(pl.Int64) * 2
    packed = ((cell + pl.col("y_pred").cast(pl.Int64)) * 1001 + fine.cast(pl.Int64)).alias("k")
    one_key = best(lambda: lf.group_by(packed).agg(sums).collect(), repeats)
    spec = pf.ReportSpec.of(**kw, y_prob="score")
    report_red = best(lambda: pl.collect_all(pf.report_reductions(lf, spec, shared=True)), repeats)
    print(f"with a score  rows={rows:.0e}  group_stats(+score sums) {scored:.3f} s  "
          f"profile {prof_s:.3f} s  ratio {prof_s / scored:.2f}; report reductions "
          f"(exact ROC) {report_red:.3f} s  ratio {prof_s / report_red:.2f}; one group_by "
          f"at 1,000 score bins {binned:.3f} s  ratio {prof_s / binned:.2f}; the same on one "
          f"packed key {one_key:.3f} s  ratio {prof_s / one_key:.2f}")  # fmt: skip


def merging(days: int, repeats: int) -> None:
    kw: dict[str, Any] = {
        "y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g", "by": "model"
    }  # fmt: skip
    daily = [make(200_000, 50, models=100, seed=d).fair.profile(**kw) for d in range(4)]
    profiles = [copy.copy(daily[d % 4]) for d in range(days)]  # 365 distinct objects
    assert daily[0].tables["stats"].height == 100 * 50
    merge = best(lambda: pf.merge_profiles(profiles), repeats)
    merged = pf.merge_profiles(profiles)
    derive = best(lambda: merged.report(), repeats)
    both = best(lambda: pf.merge_profiles(profiles).report(), repeats)
    print(f"merge {days} profiles of 100 models x 50 groups: merge {merge:.3f} s, report "
          f"{derive:.3f} s, together {both:.3f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for d, p in enumerate(profiles):
            p.write_parquet(Path(tmp) / f"day{d:03d}.parquet")
        read = best(lambda: pf.read_profile(str(Path(tmp) / "day*.parquet")), repeats)
    print(f"read_profile of {days} files (glob, merged): {read:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-merge", action="store_true", help="time profiling only")
    args = parser.parse_args()
    profiling(int(args.rows), args.repeats)
    if not args.skip_merge:
        merging(args.days, args.repeats)


if __name__ == "__main__":
    main()
