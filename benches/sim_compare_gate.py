"""How often does the release gate (``compare --fail-on-worse``) fail, per row and family-wise?

The measurement behind docs/profiles.md ("Compare a candidate with its baseline"): on
ProPublica's COMPAS file (African-American and Caucasian defendants, reference
Caucasian, ``y_pred = decile_score >= 5``), two samples of ``--rows`` rows each are drawn
from the same rows (with replacement), ``--pairs`` times. Both are audited with the
summary's criteria and compared, per row (the default) and with ``familywise=True``.
Printed: the share of rows and of pairs with a ``worse`` verdict, with Wilson 95%
intervals. With ``--lenient T`` the candidate predicts ``decile_score >= T`` for
African-American defendants (a planted degradation): the printed shares are then the
gate's power.

All pairs are audited in one pass (the pair is a batch key); each pair is compared
on its own, so the family of ``familywise=True`` is one pair's rows.

Usage::

    python benches/sim_compare_gate.py --pairs 1000 --rows 2000
    python benches/sim_compare_gate.py --pairs 400 --rows 2000 --lenient 4
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair.metrics._compare import compare_summaries

CSV = Path(__file__).resolve().parents[1] / "tests" / "data" / "compas_race_sex.csv"


def _wilson(k: int, n: int) -> str:
    z = 1.959964
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{100 * p:.2f}% ({100 * (mid - half):.2f}-{100 * (mid + half):.2f}%)"


def _samples(rows: pl.DataFrame, pairs: int, n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    take = rng.integers(0, rows.height, size=pairs * n)
    return rows[take].with_columns(pair=pl.Series(np.repeat(np.arange(pairs), n)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--lenient", type=int, help="candidate threshold for African-American")
    parser.add_argument("--confidence-level", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rows = pl.read_csv(CSV).filter(pl.col("race").is_in(["African-American", "Caucasian"]))
    kw = dict(
        y_true="two_year_recid", sensitive_features="race", by="pair",
        reference_group="Caucasian", confidence_level=args.confidence_level,
    )  # fmt: skip
    base_pred = pl.col("decile_score") >= 5
    cand_pred = base_pred
    if args.lenient is not None:
        aa = pl.col("race") == "African-American"
        cand_pred = pl.when(aa).then(pl.col("decile_score") >= args.lenient).otherwise(base_pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = _samples(rows, args.pairs, args.rows, args.seed).fair.report(y_pred=base_pred, **kw)
        cand = _samples(rows, args.pairs, args.rows, args.seed + 1).fair.report(
            y_pred=cand_pred, **kw
        )
    b_parts = base.summary.partition_by("pair", as_dict=True)
    c_parts = cand.summary.partition_by("pair", as_dict=True)
    for familywise in (False, True):
        worse_rows = judged = worse_pairs = 0
        for key, c_sum in c_parts.items():
            out = compare_summaries(
                c_sum, b_parts[key], by=["pair"], familywise=familywise,
                confidence_level=args.confidence_level,
            )  # fmt: skip
            worse = int((out["verdict"] == "worse").sum())
            worse_rows += worse
            judged += out.height
            worse_pairs += worse > 0
        print(
            f"familywise={familywise}: rows worse {_wilson(worse_rows, judged)} of {judged}; "
            f"pairs with a worse row {_wilson(worse_pairs, len(c_parts))} of {len(c_parts)}"
        )


if __name__ == "__main__":
    main()
