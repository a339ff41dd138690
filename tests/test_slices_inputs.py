"""Slice discovery's inputs: candidates that overlap the labels, `by` and NaN.

* a candidate may not be the `y_true`, `y_pred` or `sample_weight` column, and a
  numeric (binned) candidate may not be read by them: its bins would replace the
  values they read; slicing a copy of the column works;
* `by` takes names only (an expression is a clean error);
* a NaN in a numeric candidate is missing: the `x=null` slice, not the top bin.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers the namespace
from polars_fair.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n = 2000
    hours = rng.integers(10, 70, n).astype(np.float64)
    return pl.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "hours": hours,
            "y": rng.random(n) < 0.4,
            "edu": rng.integers(5, 17, n),
        }
    )


RULE = (pl.col("edu") >= 13) & (pl.col("hours") >= 40)


def test_a_binned_candidate_read_by_the_prediction(df: pl.DataFrame) -> None:
    with pytest.raises(InvalidParameterError, match="candidate 'hours' is numeric") as exc:
        df.fair.slices(y_true="y", y_pred=RULE, candidates=["sex", "hours"])
    assert "`y_pred` reads its values" in str(exc.value)
    # the hint works: slice a copy; the rule reads the raw hours
    copy = df.with_columns(pl.col("hours").alias("hours_bin"))
    out = copy.fair.slices(
        y_true="y", y_pred=RULE, candidates=["sex", "hours_bin"], metric="selection_rate", top=100
    )
    rule_rate = df.select(RULE.mean()).item()
    assert out.height > 0
    top = out.filter(pl.col("slice") == "sex=F")
    expected = df.filter(pl.col("sex") == "F").select(RULE.mean()).item()
    assert top["value"].item() == pytest.approx(expected)
    assert 0 < rule_rate < 1


@pytest.mark.parametrize("param", ["y_true", "y_pred"])
def test_a_candidate_that_is_a_label(df: pl.DataFrame, param: str) -> None:
    labels = {"y_true": "y", "y_pred": "p"}
    frame = df.with_columns(p=pl.col("edu") >= 13)
    with pytest.raises(InvalidParameterError, match=f"is the `{param}` column"):
        frame.fair.slices(y_true="y", y_pred="p", candidates=["sex", labels[param]])


@pytest.mark.parametrize("by", [pl.col("sex"), [pl.col("sex")]])
def test_by_takes_names(df: pl.DataFrame, by: object) -> None:
    with pytest.raises(InvalidParameterError, match="`by` must be a column name"):
        df.fair.slices(y_true="y", y_pred=RULE, candidates=["edu"], by=by)  # type: ignore[arg-type]


def test_nan_in_a_numeric_candidate_is_missing(df: pl.DataFrame) -> None:
    frame = df.with_columns(
        h=pl.when(pl.col("hours") > 60).then(float("nan")).otherwise(pl.col("hours"))
    )
    out = frame.fair.slices(
        y_true="y", y_pred=pl.col("edu") >= 13, candidates=["h"], top=100, min_size=1
    )
    nan_rows = frame.filter(pl.col("h").is_nan()).height
    assert nan_rows > 0
    assert out.filter(pl.col("slice") == "h=null")["n"].item() == nan_rows
    top_bin = out.filter(pl.col("slice").str.ends_with("inf)"))
    below = frame.filter(pl.col("h").is_not_nan())
    lower = float(top_bin["slice"].item().split("[")[1].split(",")[0])
    assert top_bin["n"].item() == below.filter(pl.col("h") >= lower).height


def test_max_depth_may_be_a_numpy_integer(df: pl.DataFrame) -> None:
    kw = {"y_true": "y", "y_pred": pl.col("edu") >= 13, "candidates": ["sex", "hours"]}
    assert df.fair.slices(**kw, max_depth=np.int64(2)).equals(df.fair.slices(**kw, max_depth=2))


def test_cli_empty_slices_is_a_usage_error(tmp_path: Path) -> None:
    from polars_fair.cli import main

    path = str(tmp_path / "d.csv")
    pl.DataFrame({"g": ["a", "b"] * 20, "y": [0, 1] * 20, "p": [1, 0, 0, 1] * 10}).write_csv(path)
    args = ["audit", path, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    assert main([*args, "--slices", ""]) == 2
