"""Timings of the regression, ensemble and multiclass audits (issue 4).

Each method runs on an in-memory frame and is compared with a floor for what it
must at least do: the regression sums with the hand-written Polars ``group_by`` of
the same sums, the quantile criteria with numpy sorting the predictions, the
ensemble measures with one numpy pass over the member matrix, the multiclass
table with the binary ``group_stats``.

Usage::

    python benches/bench_tasks.py            # 1e6 and 1e7 rows, 8 groups
    python benches/bench_tasks.py --rows 1e6 --repeats 3

Checks (not timings) are asserted: the regression sums equal numpy's, the
quantile threshold equals ``numpy.quantile`` exactly, the ensemble label
stability equals numpy's, the multiclass counts add up to the rows.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401
from polars_fair.reduce_regression import quantile_grid_stats


def make(rows: int, groups: int, members: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows).astype(np.int32)
    y = rng.normal(50 + g, 10, rows)
    pred = y + rng.normal(0, 5 + g % 3, rows)
    base = rng.random(rows)
    cols = {f"m{i}": np.clip(base + rng.normal(0, 0.1, rows), 0, 1) for i in range(members)}
    k = rng.integers(0, 5, rows).astype(np.int8)
    k_hat = np.where(rng.random(rows) < 0.7, k, rng.integers(0, 5, rows)).astype(np.int8)
    return pl.DataFrame({"g": g, "y": y, "pred": pred, "k": k, "k_hat": k_hat, **cols})


def best(fn: Callable[[], Any], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(rows: int, groups: int, members: int, repeats: int) -> list[tuple[str, float, str]]:
    df = make(rows, groups, members)
    lf = df.lazy()
    names = [f"m{i}" for i in range(members)]
    p, t = pl.col("pred"), pl.col("y")
    exprs = [p, p * p, t, t * t, p * t, (p - t).abs(), (p - t) ** 2]
    sums = [e.sum().alias(f"s{i}") for i, e in enumerate(exprs)] + [pl.len()]
    pred = df["pred"].to_numpy()
    matrix = df.select(names).to_numpy()

    def numpy_ensemble() -> None:
        pos = (matrix >= 0.5).sum(axis=1)
        stab = np.abs(2 * pos - members) / members
        std = matrix.std(axis=1, ddof=1)
        q = np.percentile(matrix, [25, 75], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -(matrix * np.log2(matrix) + (1 - matrix) * np.log2(1 - matrix))
        np.nan_to_num(h, copy=False)
        g = df["g"].to_numpy()
        for v in (stab, std, q[1] - q[0], h.mean(axis=1)):
            np.bincount(g, weights=v)

    kw = {"sensitive_features": "g"}
    cases: list[tuple[str, Callable[[], Any], str]] = [
        ("hand-written group_by of the 8 regression sums",
         lambda: lf.group_by("g").agg(sums).collect(), "floor"),
        ("regression_stats (y_true: 7 sums, checks)",
         lambda: lf.fair.regression_stats(y_pred="pred", y_true="y", **kw).collect(), "floor"),
        ("regression_by_group (6 measures)",
         lambda: df.fair.regression_by_group(y_pred="pred", y_true="y", **kw), "floor"),
        ("rmse_ratio", lambda: df.fair.rmse_ratio(y_pred="pred", y_true="y", **kw), "floor"),
        ("numpy sort of the predictions", lambda: np.sort(pred), "sort"),
        ("disparate_impact_quantile (q=0.8)",
         lambda: df.fair.disparate_impact_quantile(y_pred="pred", **kw), "sort"),
        ("max_statistical_parity (150 quantiles)",
         lambda: df.fair.max_statistical_parity(y_pred="pred", **kw), "sort"),
        ("no_disparate_impact_level (100 quantiles)",
         lambda: df.fair.no_disparate_impact_level(y_pred="pred", **kw), "sort"),
        (f"numpy: 4 ensemble measures, {members} members", numpy_ensemble, "ensemble"),
        (f"ensemble_by_group ({members} member columns)",
         lambda: df.fair.ensemble_by_group(y_prob=names, **kw), "ensemble"),
        ("group_stats of one binary label (baseline)",
         lambda: df.fair.group_stats(y_true=pl.col("k") == 0, y_pred=pl.col("k_hat") == 0, **kw),
         "binary"),
        ("multiclass_by_group (5 classes)",
         lambda: df.fair.multiclass_by_group(y_true="k", y_pred="k_hat", **kw), "binary"),
    ]  # fmt: skip
    out = [(name, best(fn, repeats), floor) for name, fn, floor in cases]
    _check(df, names)
    return out


def _check(df: pl.DataFrame, names: list[str]) -> None:
    stats = df.fair.regression_stats(y_pred="pred", y_true="y", sensitive_features="g")
    g0 = df.filter(pl.col("g") == 0)
    got = stats.filter(pl.col("g") == 0).item(0, "sum_sq_error")
    expected = float(((g0["pred"].to_numpy() - g0["y"].to_numpy()) ** 2).sum())
    assert abs(got - expected) <= 1e-9 * expected
    grid = quantile_grid_stats(df, y_pred="pred", sensitive_features="g", levels=[0.8]).collect()
    assert grid.item(0, "threshold") == float(np.quantile(df["pred"].to_numpy(), 0.8))
    by_group = df.fair.ensemble_by_group(y_prob=names, sensitive_features="g")
    m = g0.select(names).to_numpy()
    pos = (m >= 0.5).sum(axis=1)
    stab = float((np.abs(2 * pos - len(names)) / len(names)).mean())
    assert abs(by_group.item(0, "label_stability") - stab) < 1e-12
    counts = df.fair.multiclass_group_stats(y_true="k", y_pred="k_hat", sensitive_features="g")
    assert (counts["tp"] + counts["fp"] + counts["fn"] + counts["tn"] == counts["n"]).all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), nargs="+", default=[10**6, 10**7])
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for rows in args.rows:
        print(f"\n### {rows:.0e} rows, {args.groups} groups (best of {args.repeats})\n")
        print("| method | seconds | x floor |\n|---|---:|---:|")
        results = run(rows, args.groups, args.members, args.repeats)
        floors: dict[str, float] = {}
        for name, t, floor in results:
            base = floors.setdefault(floor, t)
            print(f"| {name} | {t:.4f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
