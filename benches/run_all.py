"""Regenerate benches/RESULTS.md: every target of issue 6 measured in one run.

Each (method, size) case runs in its own Python process, so its peak memory
(``ru_maxrss``) is its own: the data (read from a Parquet cache under
``benches/_cache``, generated once, git-ignored) plus what the method allocates.
Times are the median of ``--repeats`` runs after one warm-up.

Usage::

    python benches/run_all.py                   # the full run (about 20 minutes)
    python benches/run_all.py --quick           # 1e5 and 1e6 rows only
    python benches/run_all.py --case group_stats --rows 1e6 --groups 50   # one case, JSON
    python benches/run_all.py --pairs           # only the back-to-back target ratios

Cases (``--case``):

numpy_floor
    ``np.bincount`` of ``g*4 + y_true*2 + y_pred`` in cache-sized chunks (single-threaded).
polars_groupby
    The hand-written ``df.lazy().group_by("g", "y_true", "y_pred").len().collect()``
    (the eager ``df.group_by(...).len()`` builds row-index groups: 5x slower at 10^8).
group_stats, by_group, report
    polars_fair: the reduction, the 15 rates, the full report (one read).
batch, batch_blocks
    ``by="model"``: 100 models of ``rows / 100`` rows each, ``group_stats`` with ``by``;
    row ``i`` is model ``i % 100`` (interleaved: the hash table of every batch of rows
    holds all 100 models), or the same rows sorted by model (blocks: the models'
    predictions concatenated, as they usually arrive).
intersectional
    ``group_stats`` over two sensitive features (``g`` and a 2-valued ``s``).
pandas
    ``DataFrame.groupby(["g", "y_true", "y_pred"]).size()``.
fairlearn
    ``MetricFrame`` with selection rate, TPR and FPR (numpy inputs).
aif360
    ``ClassificationMetric`` with the same three rates per group, 2 groups.
streaming
    ``lf.fair.group_stats`` over ``pl.scan_parquet`` of many files, streaming engine
    (``--rows`` total rows, files of 10^7 rows generated under ``benches/_cache``).
pair:A/B
    Cases A and B on the same data in one process, alternated (A B, then B A, ...):
    the median of the per-round ratios A/B. This is what the targets table reports:
    on a shared machine the speed drifts by 10-30% over minutes, so a ratio of two
    medians taken minutes apart in different processes carries that drift; a ratio
    of back-to-back calls does not.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benches"))

from _data import CACHE_DIR, make_arrays  # noqa: E402
from bench_reduce import floor_counts  # noqa: E402

import polars_fair as pf  # noqa: E402

KW = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
STREAM_FILE_ROWS = 10_000_000


# ---- data ------------------------------------------------------------------------------


def _cached(rows: int, groups: int, models: int = 0, *, blocks: bool = False) -> Path:
    """The case's data as a cached Parquet file.

    With `models`, a ``model`` column: row ``i`` belongs to model ``i % models``
    (interleaved), or, with `blocks`, the same rows sorted by model (each model's
    rows together, as when the models' predictions are concatenated).
    """
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"data_{rows}_{groups}_{models}{'_blocks' if blocks else ''}.parquet"
    if blocks and not path.exists():
        frame = pl.read_parquet(_cached(rows, groups, models))
        frame.sort("model", maintain_order=True).write_parquet(path, statistics=False)
    if not path.exists():
        arrays = make_arrays(rows, groups)
        df = pl.DataFrame(
            {
                "g": pl.Series(arrays["g"], dtype=pl.Int32),
                "y_true": pl.Series(arrays["y_true"], dtype=pl.Int8),
                "y_pred": pl.Series(arrays["y_pred"], dtype=pl.Int8),
            }
        )
        if models:
            df = df.with_columns((pl.int_range(pl.len()) % models).cast(pl.Int16).alias("model"))
        df = df.with_columns((pl.col("g") % 2).cast(pl.Int8).alias("s"))
        df.write_parquet(path, statistics=False)
    return path


def _stream_files(rows: int) -> list[Path]:
    directory = CACHE_DIR / f"stream_{rows}"
    files = max(1, rows // STREAM_FILE_ROWS)
    paths = [directory / f"part{i:04d}.parquet" for i in range(files)]
    if not all(p.exists() for p in paths):
        directory.mkdir(parents=True, exist_ok=True)
        for i, path in enumerate(paths):
            if path.exists():
                continue
            arrays = make_arrays(min(rows, STREAM_FILE_ROWS), 50, seed=i)
            pl.DataFrame(
                {
                    "g": pl.Series(arrays["g"], dtype=pl.Int32),
                    "y_true": pl.Series(arrays["y_true"], dtype=pl.Int8),
                    "y_pred": pl.Series(arrays["y_pred"], dtype=pl.Int8),
                }
            ).write_parquet(path)
    return paths


# ---- one case, in this process ---------------------------------------------------------------


def _methods(df: pl.DataFrame, groups: int) -> dict[str, Callable[[], Any]]:
    arrays = {c: df.get_column(c).to_numpy() for c in ("g", "y_true", "y_pred")}

    def fairlearn_case() -> Any:
        from fairlearn.metrics import (
            MetricFrame,
            false_positive_rate,
            selection_rate,
            true_positive_rate,
        )

        return MetricFrame(
            metrics={"sr": selection_rate, "tpr": true_positive_rate, "fpr": false_positive_rate},
            y_true=arrays["y_true"], y_pred=arrays["y_pred"], sensitive_features=arrays["g"],
        ).by_group  # fmt: skip

    def aif360_case() -> Any:
        import warnings

        import pandas as pd

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from aif360.datasets import BinaryLabelDataset
            from aif360.metrics import ClassificationMetric

            g = (arrays["g"] % 2).astype(float)
            truth = BinaryLabelDataset(
                df=pd.DataFrame({"g": g, "y": arrays["y_true"].astype(float)}),
                label_names=["y"], protected_attribute_names=["g"],
            )  # fmt: skip
            pred = truth.copy()
            pred.labels = arrays["y_pred"].astype(float).reshape(-1, 1)
            metric = ClassificationMetric(
                truth, pred, unprivileged_groups=[{"g": 0}], privileged_groups=[{"g": 1}]
            )
            return (
                [metric.selection_rate(privileged=p) for p in (True, False)]
                + [metric.true_positive_rate(privileged=p) for p in (True, False)]
                + [metric.false_positive_rate(privileged=p) for p in (True, False)]
            )

    def pandas_case() -> Any:
        return (
            df.select("g", "y_true", "y_pred").to_pandas().groupby(["g", "y_true", "y_pred"]).size()
        )

    return {
        "numpy_floor": lambda: floor_counts(
            arrays["g"], arrays["y_true"], arrays["y_pred"], groups
        ),
        "polars_groupby": lambda: df.lazy().group_by("g", "y_true", "y_pred").len().collect(),
        "group_stats": lambda: pf.group_stats(df, **KW).collect(),
        "by_group": lambda: df.fair.by_group(**KW),
        "report": lambda: df.fair.report(**KW, min_group_size=0),
        "batch": lambda: pf.group_stats(df, **KW, by="model").collect(),
        "batch_blocks": lambda: pf.group_stats(df, **KW, by="model").collect(),
        "intersectional": lambda: pf.group_stats(
            df, y_true="y_true", y_pred="y_pred", sensitive_features=["g", "s"]
        ).collect(),
        "pandas": pandas_case,
        "fairlearn": fairlearn_case,
        "aif360": aif360_case,
    }


def run_case(case: str, rows: int, groups: int, repeats: int) -> dict[str, Any]:
    """Time one case here; returns median seconds, peak RSS and the row count."""
    if case == "streaming":
        paths = _stream_files(rows)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        lf = pl.scan_parquet(paths)
        t0 = time.perf_counter()
        stats = pf.group_stats(lf, **KW).collect(engine="streaming")
        elapsed = time.perf_counter() - t0
        assert int(stats["n"].sum()) == rows
        return {
            "case": case, "rows": rows, "groups": 50, "median_s": elapsed, "times": [elapsed],
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "rss_before_mib": rss_before / 1024, "files": len(paths),
        }  # fmt: skip
    if case.startswith("pair:"):
        return _run_pair(case, rows, groups, repeats)
    df = pl.read_parquet(_data_path(case, rows, groups)).rechunk()
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    fn = _methods(df, groups)[case]
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {
        "case": case, "rows": rows, "groups": groups, "median_s": statistics.median(times),
        "times": times, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_data_mib": rss_data / 1024,
    }  # fmt: skip


def _data_path(case: str, rows: int, groups: int) -> Path:
    if case.startswith("batch"):
        return _cached(rows, groups, models=100, blocks=case == "batch_blocks")
    return _cached(rows, groups)


def _run_pair(case: str, rows: int, groups: int, repeats: int) -> dict[str, Any]:
    """Alternate cases A and B of ``pair:A/B`` on one frame; the median ratio of rounds."""
    a_name, b_name = case.removeprefix("pair:").split("/")
    batch = next((n for n in (a_name, b_name) if n.startswith("batch")), a_name)
    df = pl.read_parquet(_data_path(batch, rows, groups)).rechunk()
    methods = _methods(df, groups)
    a, b = methods[a_name], methods[b_name]
    a(), b()  # warm-up
    times_a, times_b = [], []
    for i in range(repeats):
        for name in ("a", "b") if i % 2 == 0 else ("b", "a"):
            fn, out = (a, times_a) if name == "a" else (b, times_b)
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    ratios = [ta / tb for ta, tb in zip(times_a, times_b, strict=True)]
    return {
        "case": case, "rows": rows, "groups": groups,
        "median_s": statistics.median(times_a), "times": times_a,
        "base_median_s": statistics.median(times_b), "base_times": times_b,
        "ratio": statistics.median(ratios), "ratios": ratios,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }  # fmt: skip


# ---- the whole run: a subprocess per case ----------------------------------------------------


def _sub(case: str, rows: int, groups: int, repeats: int, timeout: int) -> dict[str, Any] | None:
    cmd = [sys.executable, __file__, "--case", case, "--rows", str(rows), "--groups",
           str(groups), "--repeats", str(repeats)]  # fmt: skip
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        print(f"  {case} rows={rows} groups={groups}: over {timeout} s, skipped", file=sys.stderr)
        return None
    except subprocess.CalledProcessError as exc:
        print(
            f"  {case} rows={rows} groups={groups}: failed\n{exc.stderr[-2000:]}", file=sys.stderr
        )
        return None
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"  {case:>15} rows={rows:.0e} groups={groups:>6}: {result['median_s']:.4f} s, "
          f"{result['peak_rss_mib']:.0f} MiB", file=sys.stderr)  # fmt: skip
    return result


def plan(quick: bool) -> list[tuple[str, int, int, int]]:
    """(case, rows, groups, repeats) of the full run."""
    sizes = [10**5, 10**6] if quick else [10**5, 10**6, 10**7, 10**8]
    cases: list[tuple[str, int, int, int]] = []
    for rows in sizes:
        reps = 5 if rows <= 10**7 else 3
        for groups in (2, 50, 100_000):
            if groups > rows // 10:
                continue
            for case in ("numpy_floor", "polars_groupby", "group_stats", "by_group"):
                cases.append((case, rows, groups, reps))
            if rows <= 10**7:
                cases.append(("pandas", rows, groups, reps))
        cases += [("report", rows, 50, reps), ("intersectional", rows, 50, reps)]
        if rows <= 10**6:
            cases += [("fairlearn", rows, 50, 2), ("aif360", rows, 2, 2)]
    if not quick:
        cases += [("batch", 10**8, 50, 3), ("batch_blocks", 10**8, 50, 3)]
        cases += [(f"pair:{a}/{b}", rows, groups, PAIR_ROUNDS) for a, b, rows, groups in PAIRS]
    return cases


PAIR_ROUNDS = 9

#: The targets' ratios, measured back to back (see ``pair:A/B``): (A, B, rows, groups).
PAIRS = [
    ("group_stats", "numpy_floor", 10**8, 2),
    ("group_stats", "numpy_floor", 10**8, 50),
    ("polars_groupby", "numpy_floor", 10**8, 50),
    ("report", "group_stats", 10**8, 50),
    ("batch", "group_stats", 10**8, 50),
    ("batch_blocks", "group_stats", 10**8, 50),
]


def _ratio(results: list[dict[str, Any]], case: str, rows: int, groups: int, base: str) -> str:
    def find(name: str) -> dict[str, Any] | None:
        return next(
            (r for r in results if (r["case"], r["rows"], r["groups"]) == (name, rows, groups)),
            None,
        )

    a, b = find(case), find(base)
    return "—" if a is None or b is None else f"{a['median_s'] / b['median_s']:.2f}x"


def write_results(results: list[dict[str, Any]], path: Path) -> None:
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `python benches/run_all.py` on {time.strftime('%Y-%m-%d')}; "
        f"{platform.processor() or platform.machine()}, {_cpus()} CPUs, Python "
        f"{platform.python_version()}, polars {pl.__version__}, numpy {np.__version__}. "
        "Median of the repeats after one warm-up; peak RSS of the case's own process "
        "(the data, read from Parquet, included).",
        "",
        "| case | rows | groups | median s | x numpy floor | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    pairs = [r for r in results if r["case"].startswith("pair:")]
    for r in results:
        if r in pairs:
            continue
        floor = _ratio(results, r["case"], r["rows"], r["groups"], "numpy_floor")
        lines.append(
            f"| {r['case']} | {r['rows']:.0e} | {r['groups']} | {r['median_s']:.4f} | {floor} "
            f"| {r['peak_rss_mib']:.0f} |"
        )
    if pairs:
        lines += [
            "",
            "## Back-to-back ratios",
            "",
            "A and B alternated in one process on the same data (`pair:A/B`); the median "
            "of the rounds' ratios, with the range of the rounds.",
            "",
            "| A / B | rows | groups | A median s | B median s | median ratio | range |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in pairs:
            lines.append(
                f"| {r['case'].removeprefix('pair:')} | {r['rows']:.0e} | {r['groups']} "
                f"| {r['median_s']:.4f} | {r['base_median_s']:.4f} | {r['ratio']:.2f}x "
                f"| {min(r['ratios']):.2f}–{max(r['ratios']):.2f}x |"
            )
    lines += [
        "",
        "## Targets (issue 6)",
        "",
        "Ratios measured back to back where a pair was run; the ratio of the separate "
        "medians in the first table follows in brackets.",
        "",
        "| target | measured | met |",
        "|---|---:|:---:|",
    ]
    lines += _targets(results)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _targets(results: list[dict[str, Any]]) -> list[str]:
    def t(case: str, rows: int, groups: int) -> float | None:
        hit = [r for r in results if (r["case"], r["rows"], r["groups"]) == (case, rows, groups)]
        return hit[0]["median_s"] if hit else None

    def paired(a: str, b: str, rows: int, groups: int) -> float | None:
        name = f"pair:{a}/{b}"
        hit = [r for r in results if (r["case"], r["rows"], r["groups"]) == (name, rows, groups)]
        return hit[0]["ratio"] if hit else None

    def row(label: str, case: tuple[str, str, int, int], limit: float, above: bool = False) -> str:
        a, b, rows, groups = case
        ta, tb = t(a, rows, groups), t(b, rows, groups)
        apart = None if ta is None or tb is None else ta / tb
        pair = paired(a, b, rows, groups)
        ratio = pair if pair is not None else apart
        if ratio is None:
            return f"| {label} | not measured | — |"
        met = ratio >= limit if above else ratio <= limit
        shown = f"{ratio:.2f}x" + (f" ({apart:.2f}x)" if pair is not None and apart else "")
        return f"| {label} | {shown} | {'yes' if met else 'no'} |"

    big = 10**8
    out = [
        row("reduction at 1e8 rows, 2 groups, within 1.5x of the numpy floor",
            ("group_stats", "numpy_floor", big, 2), 1.5),
        row("reduction at 1e8 rows, 50 groups, within 1.5x of the numpy floor",
            ("group_stats", "numpy_floor", big, 50), 1.5),
        row("full report within 1.2x of one reduction (1e8 rows, 50 groups)",
            ("report", "group_stats", big, 50), 1.2),
        row("100-model batch (by, 1e6 rows each, models in blocks) within 1.5x of one 1e8 "
            "reduction", ("batch_blocks", "group_stats", big, 50), 1.5),
        row("the same, rows of the 100 models interleaved (row i is model i % 100)",
            ("batch", "group_stats", big, 50), 1.5),
        row("at least 1000x faster than fairlearn MetricFrame at 1e6 rows (50 groups)",
            ("fairlearn", "group_stats", 10**6, 50), 1000, above=True),
    ]  # fmt: skip
    stream = [r for r in results if r["case"] == "streaming"]
    if stream:
        r = stream[0]
        rate = r["rows"] / r["median_s"]
        met = "yes" if r["peak_rss_mib"] <= 1024 else "no"
        out.append(
            f"| {r['rows']:.0e} rows streamed from {r['files']} Parquet files, peak RSS <= 1 GiB "
            f"| {r['peak_rss_mib']:.0f} MiB, {r['median_s']:.1f} s, {rate / 1e6:.0f} M rows/s | {met} |"
        )
    return out


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case")
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=10**6)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--streaming-rows", type=lambda t: int(float(t)), default=10**9)
    parser.add_argument("--output", type=Path, default=ROOT / "benches" / "RESULTS.md")
    parser.add_argument(
        "--only", help="re-run these cases (comma-separated) and update the existing results"
    )
    parser.add_argument(
        "--pairs", action="store_true",
        help="re-run only the back-to-back target ratios into the existing results",
    )  # fmt: skip
    parser.add_argument("--pair-rounds", type=int, default=PAIR_ROUNDS)
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case, args.rows, args.groups, args.repeats)))
        return 0
    if args.pairs:
        results = json.loads(args.output.with_suffix(".json").read_text())
        results = [r for r in results if not r["case"].startswith("pair:")]
        for a, b, rows, groups in PAIRS:
            new = _sub(f"pair:{a}/{b}", rows, groups, args.pair_rounds, args.timeout)
            if new is not None:
                results.append(new)
        write_results(results, args.output)
        args.output.with_suffix(".json").write_text(json.dumps(results, indent=1))
        return 0
    if args.only:
        only = set(args.only.split(","))
        results = json.loads(args.output.with_suffix(".json").read_text())
        for case, rows, groups, repeats in plan(quick=False):
            if case not in only:
                continue
            new = _sub(case, rows, groups, repeats, args.timeout)
            if new is None:
                continue
            at = [
                i
                for i, r in enumerate(results)
                if (r["case"], r["rows"], r["groups"]) == (case, rows, groups)
            ]
            if at:
                results[at[0]] = new
            else:  # a case new to the plan: before the streaming and pair rows
                tail = [
                    i
                    for i, r in enumerate(results)
                    if r["case"] == "streaming" or r["case"].startswith("pair:")
                ]
                results.insert(tail[0] if tail else len(results), new)
        write_results(results, args.output)
        args.output.with_suffix(".json").write_text(json.dumps(results, indent=1))
        return 0
    results = []
    for case, rows, groups, repeats in plan(args.quick):
        result = _sub(case, rows, groups, repeats, args.timeout)
        if result is not None:
            results.append(result)
    if not args.quick:
        result = _sub("streaming", args.streaming_rows, 50, 1, 3 * args.timeout)
        if result is not None:
            results.append(result)
    write_results(results, args.output)
    (args.output.with_suffix(".json")).write_text(json.dumps(results, indent=1))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
