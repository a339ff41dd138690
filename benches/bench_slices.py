"""Benchmark slice discovery against one reduction over the same columns.

Usage::

    python benches/bench_slices.py                  # 1e7 rows, 8 attributes, max_depth=3
    python benches/bench_slices.py --rows 1e6 --rounds 3
    python benches/bench_slices.py --json benches/out/slices.json

The data: ``--rows`` labelled predictions with 8 categorical attributes (``pl.Enum``)
of 2, 3, 4, 5, 6, 7, 8 and 10 values (403,200 possible intersections) and a false
positive rate that depends on three of them. The cases:

* ``reduce``: :func:`polars_fair.group_stats` with all 8 attributes as sensitive
  features, collected (the one reduction at the finest crossing: the baseline);
* ``slices``: ``df.fair.slices(..., max_depth=3)`` (strategy ``"finest"``): the same
  reduction plus the derivation of 8 + 28 + 56 = 92 attribute subsets, the tests and
  the corrections;
* ``slices-subsets``: the same with ``strategy="subsets"`` (56 reductions of three
  attributes over the cached rows).

Time: the cases alternate in one process on the same data (A B C, C B A, ...), after
one warm-up each; the ratio to ``reduce`` is the median over rounds of the per-round
ratios (this shared machine's speed drifts over minutes). Peak memory: each case runs
once more in its own subprocess, which builds the data and reports ``ru_maxrss`` (the
process's peak, data generation included), the resident size once the data is built,
and the peak of the case alone (``VmHWM`` after resetting it through
``/proc/self/clear_refs``).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent)]

import polars_fair  # noqa: E402

CARDS = (2, 3, 4, 5, 6, 7, 8, 10)
NAMES = [f"a{i}" for i in range(len(CARDS))]
CASES = ("reduce", "slices", "slices-subsets")


def make_data(rows: int, seed: int = 0) -> pl.DataFrame:
    """Seeded rows: 8 Enum attributes, y_true, y_pred (FPR raised in one intersection)."""
    rng = np.random.default_rng(seed)
    columns: dict[str, pl.Series] = {}
    codes = []
    for name, k in zip(NAMES, CARDS, strict=True):
        c = rng.integers(0, k, rows, dtype=np.int8)
        codes.append(c)
        columns[name] = pl.Series(name, c).cast(pl.String).cast(pl.Enum([str(i) for i in range(k)]))
    inside = (codes[0] == 0) & (codes[3] == 1) & (codes[7] == 2)
    y_true = (rng.random(rows, dtype=np.float32) < 0.4).astype(np.int8)
    fpr = np.where(inside, 0.4, 0.1).astype(np.float32)
    u = rng.random(rows, dtype=np.float32)
    y_pred = np.where(y_true == 1, u < 0.7, u < fpr).astype(np.int8)
    del codes, inside, fpr, u
    return pl.DataFrame(
        [*columns.values(), pl.Series("y_true", y_true), pl.Series("y_pred", y_pred)]
    )


def run_case(case: str, df: pl.DataFrame) -> int:
    """Run one case; return the number of rows of its result."""
    if case == "reduce":
        out = polars_fair.group_stats(
            df, y_true="y_true", y_pred="y_pred", sensitive_features=NAMES
        ).collect()
        return out.height
    strategy = "subsets" if case == "slices-subsets" else "finest"
    res = df.fair.slices(
        y_true="y_true", y_pred="y_pred", candidates=NAMES, max_depth=3, strategy=strategy
    )
    return res.height


def _status_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory_child(case: str, rows: int) -> None:
    """Entry point of the memory subprocess: print a JSON line."""
    df = make_data(rows)
    gc.collect()
    before = _status_mib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM: the case's own peak
    height = run_case(case, df)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    case_peak = _status_mib("VmHWM")
    out = {
        "case": case, "rss_before_mib": before, "peak_mib": peak,
        "case_peak_mib": case_peak, "height": height,
    }  # fmt: skip
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = int(args.rows)
    if args.memory_child:
        memory_child(args.memory_child, rows)
        return

    df = make_data(rows)
    times: dict[str, list[float]] = {c: [] for c in CASES}
    heights = {c: run_case(c, df) for c in CASES}  # warm-up
    for r in range(args.rounds):
        order = CASES if r % 2 == 0 else tuple(reversed(CASES))
        for case in order:
            t0 = time.perf_counter()
            run_case(case, df)
            times[case].append(time.perf_counter() - t0)
    ratios = {
        c: statistics.median(t / b for t, b in zip(times[c], times["reduce"], strict=True))
        for c in CASES
    }
    del df
    memory: dict[str, Any] = {}
    for case in CASES:
        cmd = [sys.executable, __file__, "--rows", str(rows), "--memory-child", case]
        line = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
        memory[case] = json.loads(line.splitlines()[-1])
    result = {
        "rows": rows,
        "attributes": dict(zip(NAMES, CARDS, strict=True)),
        "max_depth": 3,
        "polars": pl.__version__,
        "cases": {
            c: {
                "median_s": statistics.median(times[c]),
                "best_s": min(times[c]),
                "ratio_to_reduce": ratios[c],
                "result_rows": heights[c],
                "peak_rss_mib": memory[c]["peak_mib"],
                "case_peak_rss_mib": memory[c]["case_peak_mib"],
                "rss_before_mib": memory[c]["rss_before_mib"],
            }
            for c in CASES
        },
    }
    print(f"rows={rows:.0e}  attributes={list(CARDS)}  max_depth=3  rounds={args.rounds}")
    print(
        f"{'case':<16}{'median s':>10}{'best s':>9}{'x reduce':>10}{'peak MiB':>10}{'case pk':>9}{'data MiB':>10}"
    )
    for c, v in result["cases"].items():  # type: ignore[union-attr]
        print(
            f"{c:<16}{v['median_s']:>10.2f}{v['best_s']:>9.2f}{v['ratio_to_reduce']:>10.2f}"
            f"{v['peak_rss_mib']:>10.0f}{v['case_peak_rss_mib']:>9.0f}{v['rss_before_mib']:>10.0f}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
