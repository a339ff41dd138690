"""Benchmark the reduction to the per-group statistics table against a numpy floor.

Usage::

    python benches/bench_reduce.py                 # 1e6 and 1e7 rows, 2 and 50 groups
    python benches/bench_reduce.py --quick         # 1e5 and 1e6 rows (smoke run)
    python benches/bench_reduce.py --json benches/out/reduce.json
    python benches/bench_reduce.py --rows 1e7 --groups 50 --repeats 3

Every method is timed ``--repeats`` times (default 5) after one untimed warm-up
call; the table reports the best and the median, and the ratio of the best to the
best of the numpy floor for the same (rows, groups). fairlearn's ``MetricFrame``
is slow, so it runs only at 1e6 rows (``--fairlearn-rows``), without warm-up,
``--fairlearn-runs`` times (default 2).

The counts of every Polars method are checked against the numpy floor (the bench
fails with an AssertionError if they differ), and fairlearn's selection rate,
TPR and FPR against rates computed from the floor's counts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

# Bench the checkout this file lives in (and import _data next to it).
_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]

from _data import make_arrays, make_frame  # noqa: E402

import polars_fair as pf  # noqa: E402

KW = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
CHUNK = 1 << 16

FLOOR = "numpy bincount floor (2^16-row chunks)"
PF_MEM = "pf.group_stats().collect()  [in-memory]"
PF_STREAM = "pf.group_stats().collect(engine='streaming')"
PL_MEM = "polars group_by(g, y_true, y_pred).len()  [in-memory]"
PL_STREAM = "polars group_by(g, y_true, y_pred).len()  [streaming]"
BY_GROUP = "df.fair.by_group()  [eager]"
FAIRLEARN = "fairlearn MetricFrame (sel. rate, TPR, FPR)"


@dataclass
class Result:
    rows: int
    groups: int
    method: str
    best_s: float
    median_s: float
    ratio: float | None = None
    times_s: list[float] = field(default_factory=list)


# --------------------------------------------------------------------------- floor


def floor_counts(g: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray, groups: int) -> np.ndarray:
    """Count ``code = g*4 + y_true*2 + y_pred`` with np.bincount over cache-sized chunks.

    Returns an int64 array of shape (groups, 4): columns tn, fp, fn, tp.
    """
    n = g.shape[0]
    size = groups * 4
    counts = np.zeros(size, dtype=np.int64)
    code = np.empty(CHUNK, dtype=np.intp)
    tmp = np.empty(CHUNK, dtype=np.intp)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        m = stop - start
        c, t = code[:m], tmp[:m]
        np.multiply(g[start:stop], 4, out=c)
        np.multiply(y_true[start:stop], 2, out=t)
        c += t
        c += y_pred[start:stop]
        counts += np.bincount(c, minlength=size)
    return counts.reshape(groups, 4)


# ------------------------------------------------------------------ conversions


def _group_index(g: pl.Series) -> np.ndarray:
    """Map the g column (Int32, or "g07"-style String/Categorical) to int indices."""
    if g.dtype.is_integer():
        return g.to_numpy().astype(np.intp)
    return g.cast(pl.String).str.slice(1).cast(pl.Int64).to_numpy().astype(np.intp)


def _stats_as_counts(stats: pl.DataFrame, groups: int) -> np.ndarray:
    """pf statistics table -> (groups, 4) array tn, fp, fn, tp (absent groups are 0)."""
    assert (stats.get_column("n_null") == 0).all(), "unexpected null rows"
    out = np.zeros((groups, 4), dtype=np.int64)
    idx = _group_index(stats.get_column("g"))
    for j, name in enumerate(("tn", "fp", "fn", "tp")):
        out[idx, j] = stats.get_column(name).to_numpy()
    assert (out.sum(axis=1)[idx] == stats.get_column("n").to_numpy()).all(), "n != tp+fp+fn+tn"
    return out


def _len_as_counts(table: pl.DataFrame, groups: int) -> np.ndarray:
    """group_by(g, y_true, y_pred).len() -> (groups, 4) array tn, fp, fn, tp."""
    code = (
        _group_index(table.get_column("g")) * 4
        + table.get_column("y_true").to_numpy().astype(np.intp) * 2
        + table.get_column("y_pred").to_numpy().astype(np.intp)
    )
    out = np.zeros(groups * 4, dtype=np.int64)
    np.add.at(out, code, table.get_column("len").to_numpy())
    return out.reshape(groups, 4)


def _check_fairlearn(mf: Any, floor: np.ndarray) -> None:
    tn, fp, fn, tp = floor.T.astype(np.float64)
    bg = mf.by_group
    idx = np.asarray(bg.index, dtype=np.intp)
    expected = {
        "selection_rate": ((tp + fp) / (tp + fp + fn + tn))[idx],
        "tpr": (tp / (tp + fn))[idx],
        "fpr": (fp / (fp + tn))[idx],
    }
    for name, want in expected.items():
        got = bg[name].to_numpy(dtype=np.float64)
        assert np.allclose(got, want, rtol=1e-12, atol=0), f"fairlearn {name} differs from floor"


# ---------------------------------------------------------------------- timing


def _time(fn: Callable[[], Any], repeats: int, *, warmup: bool = True) -> tuple[list[float], Any]:
    """Return the wall times of `repeats` calls and the last result."""
    result = fn() if warmup else None
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def bench_case(
    rows: int,
    groups: int,
    *,
    repeats: int,
    seed: int,
    g_dtype: str,
    fairlearn_rows: set[int],
    fairlearn_runs: int,
) -> list[Result]:
    """Time every method on one (rows, groups) case and check their counts."""
    arrays = make_arrays(rows, groups, seed)  # prepared beforehand: not timed
    df = make_frame(rows, groups, seed, g_dtype=g_dtype)  # type: ignore[arg-type]
    g, yt, yp = arrays["g"], arrays["y_true"], arrays["y_pred"]
    results: list[Result] = []

    def record(method: str, times: list[float]) -> None:
        results.append(
            Result(rows, groups, method, min(times), statistics.median(times), times_s=times)
        )
        r = results[-1]
        print(
            f"  {rows:>11,} rows {groups:>3} groups  {method:<55} "
            f"best {r.best_s:8.4f} s  median {r.median_s:8.4f} s",
            file=sys.stderr,
            flush=True,
        )

    times, floor = _time(lambda: floor_counts(g, yt, yp, groups), repeats)
    assert floor.sum() == rows
    record(FLOOR, times)

    cases: list[tuple[str, Callable[[], Any], Callable[[Any], np.ndarray]]] = [
        (PF_MEM, lambda: pf.group_stats(df, **KW).collect(), lambda r: _stats_as_counts(r, groups)),
        (
            PF_STREAM,
            lambda: pf.group_stats(df, **KW).collect(engine="streaming"),
            lambda r: _stats_as_counts(r, groups),
        ),
        (
            PL_MEM,
            lambda: df.lazy().group_by("g", "y_true", "y_pred").len().collect(),
            lambda r: _len_as_counts(r, groups),
        ),
        (
            PL_STREAM,
            lambda: df.lazy().group_by("g", "y_true", "y_pred").len().collect(engine="streaming"),
            lambda r: _len_as_counts(r, groups),
        ),
        (
            BY_GROUP,
            lambda: df.fair.by_group(**KW),  # type: ignore[attr-defined]
            lambda r: _stats_as_counts(r, groups),
        ),
    ]
    for method, fn, as_counts in cases:
        times, out = _time(fn, repeats)
        got = as_counts(out)
        assert np.array_equal(got, floor), f"{method}: counts differ from the numpy floor"
        record(method, times)

    if rows in fairlearn_rows and fairlearn_runs > 0:
        try:
            from fairlearn.metrics import (  # type: ignore[import-untyped]
                MetricFrame,
                false_positive_rate,
                selection_rate,
                true_positive_rate,
            )
        except ImportError:
            print("  fairlearn not installed: skipped", file=sys.stderr)
        else:
            metrics = {
                "selection_rate": selection_rate,
                "tpr": true_positive_rate,
                "fpr": false_positive_rate,
            }
            times, mf = _time(
                lambda: MetricFrame(metrics=metrics, y_true=yt, y_pred=yp, sensitive_features=g),
                fairlearn_runs,
                warmup=False,
            )
            _check_fairlearn(mf, floor)
            record(FAIRLEARN, times)

    best_floor = results[0].best_s
    for r in results:
        r.ratio = r.best_s / best_floor
    return results


# ---------------------------------------------------------------------- output


def markdown_table(results: list[Result]) -> str:
    lines = [
        "| rows | groups | method | best (s) | median (s) | best / floor best |",
        "|---:|---:|:---|---:|---:|---:|",
    ]
    for r in results:
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        lines.append(
            f"| {r.rows:,} | {r.groups} | {r.method} | {r.best_s:.4f} | {r.median_s:.4f} | {ratio} |"
        )
    return "\n".join(lines)


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "polars": pl.__version__,
        "polars_threads": pl.thread_pool_size(),
        "numpy": np.__version__,
        "polars_fair": pf.__version__,
        "polars_fair_path": str(Path(pf.__file__).parent),
    }
    try:
        import fairlearn  # type: ignore[import-untyped]

        info["fairlearn"] = fairlearn.__version__
    except ImportError:
        info["fairlearn"] = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        info["memory_gib"] = round(pages / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        info["memory_gib"] = None
    return info


def _parse_int(text: str) -> int:
    value = float(text)
    if value != int(value) or value < 1:
        msg = f"expected a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return int(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=_parse_int, nargs="+", help="row counts (1e6 ok)")
    parser.add_argument("--groups", type=_parse_int, nargs="+", default=[2, 50])
    parser.add_argument("--quick", action="store_true", help="1e5 and 1e6 rows only")
    parser.add_argument("--repeats", type=_parse_int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--g-dtype", choices=["int32", "string", "categorical"], default="int32",
        help="dtype of the group column in the Polars frame (the floor always uses int32)",
    )  # fmt: skip
    parser.add_argument(
        "--fairlearn-rows", type=_parse_int, nargs="*", default=[10**6],
        help="row counts at which fairlearn runs (none: skip it)",
    )  # fmt: skip
    parser.add_argument("--fairlearn-runs", type=int, default=2)
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    args = parser.parse_args(argv)

    rows = args.rows or ([10**5, 10**6] if args.quick else [10**6, 10**7])
    info = machine_info()
    print(
        f"# polars {info['polars']} ({info['polars_threads']} threads), numpy {info['numpy']}, "
        f"fairlearn {info['fairlearn']}, {info['cpu_count']} CPUs, {info['memory_gib']} GiB, "
        f"g dtype {args.g_dtype}, {info['date']}",
        file=sys.stderr,
    )
    results: list[Result] = []
    start = time.perf_counter()
    with warnings.catch_warnings():
        # A warning from polars_fair (e.g. an undefined rate) is a bench failure.
        warnings.simplefilter("error", pf.FairWarning)
        for n in rows:
            for k in args.groups:
                results += bench_case(
                    n, k,
                    repeats=args.repeats,
                    seed=args.seed,
                    g_dtype=args.g_dtype,
                    fairlearn_rows=set(args.fairlearn_rows),
                    fairlearn_runs=args.fairlearn_runs,
                )  # fmt: skip
    elapsed = time.perf_counter() - start
    print(f"# total {elapsed:.1f} s; all counts equal the numpy floor", file=sys.stderr)
    print(markdown_table(results))

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "machine": info,
            "settings": {
                "rows": rows,
                "groups": args.groups,
                "repeats": args.repeats,
                "seed": args.seed,
                "g_dtype": args.g_dtype,
                "chunk_rows": CHUNK,
                "fairlearn_rows": args.fairlearn_rows,
                "fairlearn_runs": args.fairlearn_runs,
                "total_s": round(elapsed, 3),
            },
            "results": [asdict(r) for r in results],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
