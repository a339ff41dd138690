"""Build the bundled COMPAS example dataset ``polars_fair/data/compas.parquet``.

Source: ``compas-scores-two-years.csv`` from ProPublica's ``propublica/compas-analysis``
repository (commit ``bafff5da3f2e45eca6c2d5055faad269defd135a``), the data behind the
story "Machine Bias" (2016). See ``polars_fair/data/ATTRIBUTION.md``.

The script applies ProPublica's own filter (as in their ``Compas Analysis.ipynb``)::

    -30 <= days_b_screening_arrest <= 30   (rows where it is missing are dropped)
    is_recid != -1
    c_charge_degree != "O"
    score_text != "N/A"

keeps a handful of columns (no names, dates or case numbers), adds the derived
columns ``y_prob = decile_score / 10`` and ``y_pred = (decile_score >= 5)`` (ProPublica's
binarisation: "Low" means deciles 1-4), sorts by ``id`` and writes zstd-compressed
Parquet. The output is deterministic for a given Polars version.

Usage::

    python scripts/make_example_data.py [SOURCE_CSV] [--output PATH]

``SOURCE_CSV`` defaults to ``$POLARS_FAIR_COMPAS_CSV`` or, failing that,
``/work/shared/data/compas-scores-two-years.csv``. The script checks the source's
SHA-256 before reading it (``--no-verify`` skips the check).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import polars as pl

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = Path(
    os.environ.get("POLARS_FAIR_COMPAS_CSV", "/work/shared/data/compas-scores-two-years.csv")
)
DEFAULT_OUTPUT = REPO_ROOT / "polars_fair" / "data" / "compas.parquet"

#: SHA-256 of compas-scores-two-years.csv at propublica/compas-analysis@bafff5da
#: (git blob sha1 of the same bytes: 7455fddc73b01158eb75e2489ee6839d05ea202d).
SOURCE_SHA256 = "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d"
EXPECTED_ROWS = 6172
MAX_BYTES = 200_000

#: Output columns, in order, with their dtypes.
SCHEMA = pl.Schema(
    {
        "id": pl.Int64,
        "sex": pl.String,
        "race": pl.String,
        "age_cat": pl.String,
        "age": pl.Int64,
        "priors_count": pl.Int64,
        "decile_score": pl.Int64,
        "score_text": pl.String,
        "two_year_recid": pl.Int64,
        "y_prob": pl.Float64,
        "y_pred": pl.Int64,
    }
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(source: Path) -> pl.DataFrame:
    raw = pl.read_csv(source, infer_schema_length=None)
    # The header repeats ``decile_score`` and ``priors_count``; Polars renames the
    # second copy to ``*_duplicated_0``. Both copies hold identical values: check, drop.
    for name in ("decile_score", "priors_count"):
        dup = f"{name}_duplicated_0"
        if not raw.get_column(name).equals(raw.get_column(dup)):
            msg = f"columns {name!r} and {dup!r} differ"
            raise ValueError(msg)
    raw = raw.drop(pl.selectors.ends_with("_duplicated_0"))

    df = (
        raw.lazy()
        .filter(
            pl.col("days_b_screening_arrest") <= 30,
            pl.col("days_b_screening_arrest") >= -30,
            pl.col("is_recid") != -1,
            pl.col("c_charge_degree") != "O",
            pl.col("score_text") != "N/A",
        )
        .select(
            pl.col("id").cast(pl.Int64, strict=True),
            pl.col("sex", "race", "age_cat").cast(pl.String, strict=True),
            pl.col("age", "priors_count", "decile_score").cast(pl.Int64, strict=True),
            pl.col("score_text").cast(pl.String, strict=True),
            pl.col("two_year_recid").cast(pl.Int64, strict=True),
        )
        .with_columns(
            y_prob=(pl.col("decile_score") / 10).cast(pl.Float64),
            y_pred=(pl.col("decile_score") >= 5).cast(pl.Int64),
        )
        .sort("id")
        .collect()
    )
    check(df)
    return df


def check(df: pl.DataFrame) -> None:
    """Fail loudly if the result is not what the attribution file documents."""
    problems = []
    if df.schema != SCHEMA:
        problems.append(f"schema {df.schema} != {SCHEMA}")
    if df.height != EXPECTED_ROWS:
        problems.append(f"{df.height} rows, expected {EXPECTED_ROWS}")
    if df.null_count().sum_horizontal().item() != 0:
        problems.append(f"null values: {df.null_count()}")
    if not df.get_column("id").is_unique().all():
        problems.append("id is not unique")
    if not df.get_column("decile_score").is_between(1, 10).all():
        problems.append("decile_score outside 1-10")
    for name in ("two_year_recid", "y_pred"):
        if not df.get_column(name).is_in([0, 1]).all():
            problems.append(f"{name} not 0/1")
    # score_text must agree with the decile bands: Low 1-4, Medium 5-7, High 8-10.
    band = (
        pl.when(pl.col("decile_score") <= 4)
        .then(pl.lit("Low"))
        .when(pl.col("decile_score") <= 7)
        .then(pl.lit("Medium"))
        .otherwise(pl.lit("High"))
    )
    if not df.select((band == pl.col("score_text")).all()).item():
        problems.append("score_text disagrees with decile_score bands")
    if problems:
        raise ValueError("unexpected COMPAS extract:\n  " + "\n  ".join(problems))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--no-verify", action="store_true", help="skip the SHA-256 check")
    args = parser.parse_args(argv)

    if not args.no_verify:
        digest = sha256(args.source)
        if digest != SOURCE_SHA256:
            parser.error(f"{args.source}: sha256 {digest} != expected {SOURCE_SHA256}")

    df = build(args.source)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    df.write_parquet(args.output, compression="zstd", statistics=True)

    size = args.output.stat().st_size
    print(f"wrote {args.output} ({df.height} rows x {df.width} columns, {size:,} bytes)")
    print(df.schema)
    print(df.group_by("race").len().sort("race"))
    if size >= MAX_BYTES:
        print(f"error: {size:,} bytes >= {MAX_BYTES:,}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
