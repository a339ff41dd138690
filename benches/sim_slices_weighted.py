"""False discoveries of slice discovery with and without weights (not a benchmark).

All 32,561 Adult rows (/work/shared/data/adult.csv; set ADULT to another path), the
false positive rate, depth 2, the candidate attributes shuffled together so that none
has an effect: the share of runs that report a significant slice (q <= 0.05, BH),
weighted by `fnlwgt` and not, over the same shuffles. Candidate set A: sex, race,
workclass, marital status, relationship, age by decade; B: sex, race, education,
marital status, workclass, quartile of `fnlwgt`. Numbers in docs/slices.md.

Usage::

    python benches/sim_slices_weighted.py 500 A
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers the namespace)


def main(runs: int, which: str) -> dict[str, float]:
    raw = pl.read_csv(os.environ.get("ADULT", "/work/shared/data/adult.csv"))
    base = raw.select(
        y=(pl.col("income-per-year").str.strip_chars() == ">50K").cast(pl.Int8),
        p=((pl.col("education-num") >= 13) | (pl.col("capital-gain") > 5000)).cast(pl.Int8),
        w=pl.col("fnlwgt").cast(pl.Float64),
    )
    if which == "A":
        attrs = raw.select(
            "sex", "race", "workclass", "marital-status", "relationship",
            age=(pl.col("age") // 10).cast(pl.String),
        )  # fmt: skip
    else:
        quartile = (pl.col("fnlwgt").rank() * 4 // (raw.height + 1)).cast(pl.String)
        attrs = raw.select("sex", "race", "education", "marital-status", "workclass", fw=quartile)
    hits = {"weighted": 0, "plain": 0}
    for r in range(runs):
        perm = np.random.default_rng(r).permutation(raw.height)
        df = pl.concat([base, attrs[perm]], how="horizontal")
        for kind in hits:
            out = df.fair.slices(
                y_true="y", y_pred="p", candidates=attrs.columns, metric="false_positive_rate",
                max_depth=2, sample_weight="w" if kind == "weighted" else None,
            )  # fmt: skip
            hits[kind] += int(out.height > 0 and bool(out["significant"].any()))
    return {k: v / runs for k, v in hits.items()}


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    runs, which = int(sys.argv[1]), sys.argv[2]
    print(which, runs, main(runs, which))
