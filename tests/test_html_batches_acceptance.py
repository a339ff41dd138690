"""Acceptance of the HTML page with batch keys (a time bucket): defects found using it.

COMPAS (the bundled example file) by year of screening (an integer batch key) and race.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_fair as pf

COMPAS = Path(pf.__file__).parent / "data" / "compas.parquet"


@pytest.fixture(scope="module")
def yearly() -> pl.DataFrame:
    """The example with an integer time bucket: two scrambled halves called 2013 and 2014."""
    df = pl.read_parquet(COMPAS)
    return df.with_columns(year=pl.when(pl.col("id") % 3 == 0).then(2014).otherwise(2013))


def _page(df: pl.DataFrame) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups' warnings are not the point
        report = df.fair.report(
            y_true="two_year_recid", y_pred="y_pred", y_prob="y_prob", sensitive_features="race",
            by="year", criteria=["roc_auc_difference", "demographic_parity_difference"],
        )  # fmt: skip
    return report.to_html()


def test_an_integer_batch_key_shows_as_written(yearly: pl.DataFrame) -> None:
    # the year 2013 showed as "2,013", in every table
    page = _page(yearly)
    for year in yearly["year"].unique().to_list():
        assert f"{year:,}" not in page
        assert f">{year}<" in page


def test_small_groups_are_named_with_their_size_in_the_batch(yearly: pl.DataFrame) -> None:
    # a group small in a batch was named with its rows summed over the batches, so the
    # page said "smaller than min_group_size = 30: Native American (36)"
    page = _page(yearly)
    sentence = re.search(r"smaller than min_group_size = 30[^:]*: ([^<]*)\.</p>", page)
    assert sentence is not None
    sizes = yearly.group_by("year", "race").len().filter(pl.col("len") < 30)
    want = dict(sizes.group_by("race").agg(pl.col("len").min()).iter_rows())
    listed = dict(re.findall(r"([^,]+?) \((\d+)\)(?:, |$)", sentence.group(1)))
    assert {k.strip(): int(v) for k, v in listed.items()} == want
