"""Multiclass label columns that are null in every row (COMPAS, ``tests/data``).

Rows with a null true or predicted class are left out; when that leaves no row,
the classes found are none and the result used to read "the input has no rows to
evaluate" (both columns null) or a table of zeros with generic warnings (one
column null). The reduction's check on its small aggregate now raises a
:class:`LabelError` naming the label column(s) null in every row and the fix, on
every engine and for every multiclass method (they share the reduction).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_fair.exceptions import LabelError
from polars_fair.reduce.multiclass import MSG_LABELS_ALL_NULL

COMPAS = Path(__file__).resolve().parent / "data" / "compas_race_sex.csv"
KINDS = ("eager", "lazy", "streaming")
METHODS = ("multiclass_by_group", "multiclass_group_stats", "multiclass_disparities",
           "multiclass_criteria", "multiclass_summary")  # fmt: skip


def _compas() -> pl.DataFrame:
    return pl.read_csv(COMPAS).select("race", "age_cat")


def _run(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> pl.DataFrame:
    target = df if kind == "eager" else df.lazy()
    out = getattr(target.fair, name)(y_true="y", y_pred="p", sensitive_features="race", **kw)
    if kind == "eager":
        return out  # type: ignore[no-any-return]
    return out.collect(engine="in-memory" if kind == "lazy" else "streaming")  # type: ignore[no-any-return]


NULL = pl.lit(None, dtype=pl.String)
CASES = {
    "both": (NULL, NULL, "`y_true` column 'y' and `y_pred` column 'p' are"),
    "both_untyped": (pl.lit(None), pl.lit(None), "`y_true` column 'y' and `y_pred` column 'p' are"),
    "y_true": (NULL, pl.col("age_cat"), "`y_true` column 'y' is"),
    "y_pred": (pl.col("age_cat"), NULL, "`y_pred` column 'p' is"),
    # each has values, never in the same row
    "disjoint": (
        pl.when(pl.col("race") == "Asian").then(pl.col("age_cat")),
        pl.when(pl.col("race") != "Asian").then(pl.col("age_cat")),
        "`y_true` column 'y' or `y_pred` column 'p' (one or the other) is",
    ),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("case", list(CASES))
def test_all_null_labels_name_the_column(case: str, name: str, kind: str) -> None:
    y, p, columns = CASES[case]
    df = _compas().with_columns(y.alias("y"), p.alias("p"))
    msg = MSG_LABELS_ALL_NULL.format(columns=columns, rows=df.height)
    with pytest.raises(LabelError, match=re.escape(msg)):
        _run(df, kind, name)
    assert msg.startswith(f"{columns} null in every row ({df.height} rows)")
    assert "\n\nHint: check the label column(s) upstream" in msg


@pytest.mark.parametrize("kind", KINDS)
def test_labels_null_in_part_of_the_rows_are_counted(kind: str) -> None:
    # a null label in some rows only: those rows are left out and counted, as before
    df = _compas().with_columns(
        pl.when(pl.col("race") != "Asian").then(pl.col("age_cat")).alias("y"),
        pl.col("age_cat").alias("p"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the eager path warns about the excluded rows
        got = _run(df, kind, "multiclass_group_stats")
    asian = df.filter(pl.col("race") == "Asian").height
    per_class = got.filter(pl.col("race") == "Asian")
    assert per_class.get_column("n_null").to_list() == [asian] * per_class.height
    assert per_class.get_column("n").to_list() == [0] * per_class.height
    kept = got.filter(pl.col("race") != "Asian").group_by("class").agg(pl.col("n").sum())
    assert kept.get_column("n").to_list() == [df.height - asian] * kept.height
