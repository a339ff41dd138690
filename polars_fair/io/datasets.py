"""Small example datasets bundled with polars_fair.

The only dataset so far is an extract of ProPublica's COMPAS two-year recidivism data
(Broward County, Florida), filtered the way ProPublica's "Machine Bias" analysis
filtered it. It is shipped as an example and test fixture only; the original carries
no stated licence. See ``polars_fair/data/ATTRIBUTION.md`` for the source, the exact
filter and how to regenerate the file (``python scripts/make_example_data.py``).
"""

from __future__ import annotations

import os
from importlib.resources import files

import polars as pl

__all__ = ["load_compas", "scan_compas"]

_COMPAS = "compas.parquet"


def _source(name: str) -> str | bytes:
    """A path to a bundled data file, or its bytes if it is not on the file system."""
    resource = files("polars_fair") / "data" / name
    if isinstance(resource, os.PathLike):
        return str(os.fspath(resource))
    # e.g. imported from a zip archive: no real path to hand to Polars.
    return resource.read_bytes()


def scan_compas() -> pl.LazyFrame:
    """
    Lazily read the bundled COMPAS example dataset.

    The same data as :func:`load_compas`, as a :class:`polars.LazyFrame`, so that
    a query on it is optimised (projection and predicate pushdown) before the file
    is read.

    Returns
    -------
    LazyFrame
        6,172 rows and 11 columns; see :func:`load_compas` for the columns.

    See Also
    --------
    load_compas : Read the same data eagerly.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.io.datasets import scan_compas
    >>> (
    ...     scan_compas()
    ...     .group_by("sex")
    ...     .agg(
    ...         pl.len(),
    ...         base_rate=pl.col("two_year_recid").mean().round(3),
    ...         selection_rate=pl.col("y_pred").mean().round(3),
    ...     )
    ...     .sort("sex")
    ...     .collect()
    ... )
    shape: (2, 4)
    ┌────────┬──────┬───────────┬────────────────┐
    │ sex    ┆ len  ┆ base_rate ┆ selection_rate │
    │ ---    ┆ ---  ┆ ---       ┆ ---            │
    │ str    ┆ u32  ┆ f64       ┆ f64            │
    ╞════════╪══════╪═══════════╪════════════════╡
    │ Female ┆ 1175 ┆ 0.351     ┆ 0.405          │
    │ Male   ┆ 4997 ┆ 0.479     ┆ 0.455          │
    └────────┴──────┴───────────┴────────────────┘
    """
    return pl.scan_parquet(_source(_COMPAS))


def load_compas() -> pl.DataFrame:
    """
    Read the bundled COMPAS example dataset.

    ProPublica's COMPAS two-year recidivism data for Broward County, Florida
    (``compas-scores-two-years.csv`` from ``propublica/compas-analysis``), filtered
    as in ProPublica's "Machine Bias" analysis: ``|days_b_screening_arrest| <= 30``
    (rows where it is missing are dropped), ``is_recid != -1``,
    ``c_charge_degree != "O"`` and ``score_text != "N/A"``. Rows are sorted by
    ``id``. The data has no stated licence and is bundled as an example and test
    fixture only; see ``polars_fair/data/ATTRIBUTION.md``.

    Returns
    -------
    DataFrame
        6,172 rows with the columns:

        - ``id`` (Int64): the person's id in the source file (unique).
        - ``sex`` (String): ``"Female"`` or ``"Male"``.
        - ``race`` (String): ``"African-American"``, ``"Asian"``,
          ``"Caucasian"``, ``"Hispanic"``, ``"Native American"`` or ``"Other"``.
        - ``age_cat`` (String): ``"Less than 25"``, ``"25 - 45"`` or
          ``"Greater than 45"``.
        - ``age`` (Int64): age in years.
        - ``priors_count`` (Int64): number of prior offences.
        - ``decile_score`` (Int64): the COMPAS recidivism risk decile, 1 to 10.
        - ``score_text`` (String): ``"Low"`` (deciles 1-4), ``"Medium"`` (5-7)
          or ``"High"`` (8-10).
        - ``two_year_recid`` (Int64): 1 if the person re-offended within two
          years, else 0. The true label.
        - ``y_prob`` (Float64): ``decile_score / 10``, a score in ``[0.1, 1.0]``.
        - ``y_pred`` (Int64): 1 if ``decile_score >= 5`` (score_text
          ``"Medium"`` or ``"High"``), else 0. ProPublica's binary prediction.

    See Also
    --------
    scan_compas : Read the same data lazily.

    Examples
    --------
    >>> from polars_fair.io.datasets import load_compas
    >>> df = load_compas()
    >>> df.shape
    (6172, 11)
    >>> df.group_by("race").len().sort("race")
    shape: (6, 2)
    ┌──────────────────┬──────┐
    │ race             ┆ len  │
    │ ---              ┆ ---  │
    │ str              ┆ u32  │
    ╞══════════════════╪══════╡
    │ African-American ┆ 3175 │
    │ Asian            ┆ 31   │
    │ Caucasian        ┆ 2103 │
    │ Hispanic         ┆ 509  │
    │ Native American  ┆ 11   │
    │ Other            ┆ 343  │
    └──────────────────┴──────┘
    >>> df.select("id", "race", "decile_score", "y_prob", "y_pred", "two_year_recid").head(3)
    shape: (3, 6)
    ┌─────┬──────────────────┬──────────────┬────────┬────────┬────────────────┐
    │ id  ┆ race             ┆ decile_score ┆ y_prob ┆ y_pred ┆ two_year_recid │
    │ --- ┆ ---              ┆ ---          ┆ ---    ┆ ---    ┆ ---            │
    │ i64 ┆ str              ┆ i64          ┆ f64    ┆ i64    ┆ i64            │
    ╞═════╪══════════════════╪══════════════╪════════╪════════╪════════════════╡
    │ 1   ┆ Other            ┆ 1            ┆ 0.1    ┆ 0      ┆ 0              │
    │ 3   ┆ African-American ┆ 3            ┆ 0.3    ┆ 0      ┆ 1              │
    │ 4   ┆ African-American ┆ 4            ┆ 0.4    ┆ 0      ┆ 1              │
    └─────┴──────────────────┴──────────────┴────────┴────────┴────────────────┘
    """
    return pl.read_parquet(_source(_COMPAS))
