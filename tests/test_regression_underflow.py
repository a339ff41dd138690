"""Regression values so small that their squares underflow float64 (issue 14, class 5).

Values near 1e-170 have squares near 1e-340, below the smallest float64: the sums of
squares come out 0, and the standard deviation, RMSE and correlation read 0 or null
without a word. Decision (docs/conventions.md, "Underflow"): the reduction's check on
its aggregated sums warns (``NumericalWarning``, eager path; a LazyFrame stays
silent) naming the columns, the groups and a rescaling factor; no second scan.
The rescaled input gives the numpy reference, computed here from COMPAS's integer
columns before they were made tiny.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hardening_cases import collect, frame, method_kwargs

from polars_fair.exceptions import NumericalWarning
from polars_fair.reduce.regression import MSG_UNDERFLOW

KINDS = ("eager", "lazy", "streaming")
COMPAS = Path(__file__).resolve().parent / "data" / "compas_race_sex.csv"
TINY = 1e-170
#: Every method reading the regression sums (not the quantile grid, which has none).
SUMS_METHODS = [
    "regression_stats", "regression_by_group", "regression_disparities",
    "average_score_difference", "average_score_ratio", "rmse_difference", "rmse_ratio",
    "mae_difference", "mae_ratio", "correlation_difference", "zscore_difference",
]  # fmt: skip


def _warnings(target: Any, kind: str, name: str, **kw: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = collect(getattr(target.fair, name)(**kw), kind, name)
    return out, [str(w.message) for w in caught if w.category is NumericalWarning]


def _target(df: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return df if kind == "eager" else df.lazy()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SUMS_METHODS)
def test_tiny_values_warn_on_the_eager_path(name: str, kind: str) -> None:
    df = frame().with_columns(pl.col("q") * TINY, pl.col("t") * TINY)
    kw = method_kwargs(name)
    _, found = _warnings(_target(df, kind), kind, name, **kw)
    if kind != "eager":
        assert found == []
        return
    assert len(found) == 1, found
    text = found[0]
    head = MSG_UNDERFLOW.split("{found}")[0]
    assert text.startswith(head + "`y_pred` column 'q' (values near ")
    assert "in groups ['a', 'x']" in text
    # the factor brings the smallest values near 1
    sizes = [float(v) for v in re.findall(r"values near ([0-9.e+-]+)\)", text)]
    factor = re.search(r"`y_pred=pl\.col\('q'\) \* (1e\d+)", text)
    assert factor is not None
    assert 1 <= min(sizes) * float(factor.group(1)) < 10
    if "y_true" in kw:
        assert "`y_true` column 't' (values near " in text
        assert "their errors (values near " in text
        assert "the standard deviation, correlation, z-score and RMSE" in text
        assert f"y_true=pl.col('t') * {factor.group(1)}`" in text
    else:
        assert "`y_true`" not in text
        assert "the standard deviation, correlation and z-score computed" in text


def _compas(scale: float) -> pl.DataFrame:
    df = pl.read_csv(COMPAS).select("sex", "decile_score", "two_year_recid")
    return df.with_columns(
        (pl.col("decile_score") * scale).alias("q"),
        ((pl.col("two_year_recid") * 5 + 3) * scale).alias("t"),
    )


def _reference(df: pl.DataFrame) -> dict[str, float]:
    """RMSE ratio, std ratio and correlation difference (min / max, max - min) in numpy."""
    out: dict[str, list[float]] = {"rmse": [], "std": [], "corr": []}
    for sex in sorted(set(df["sex"].to_list())):
        part = df.filter(pl.col("sex") == sex)
        q = part["decile_score"].to_numpy().astype(np.float64)
        t = (part["two_year_recid"].to_numpy() * 5 + 3).astype(np.float64)
        out["rmse"].append(float(np.sqrt(np.mean((q - t) ** 2))))
        out["std"].append(float(np.std(q)))
        out["corr"].append(float(np.corrcoef(q, t)[0, 1]))
    return {
        "rmse_ratio": min(out["rmse"]) / max(out["rmse"]),
        "std_ratio": min(out["std"]) / max(out["std"]),
        "correlation_difference": max(out["corr"]) - min(out["corr"]),
    }


@pytest.mark.parametrize("kind", KINDS)
def test_the_hint_gives_the_reference_on_compas(kind: str) -> None:
    tiny = _compas(TINY)
    ref = _reference(tiny)
    kw = {"y_pred": "q", "y_true": "t", "sensitive_features": "sex"}
    # as given: the warning on the eager path, and the silent values it warns about
    value, found = _warnings(_target(tiny, kind), kind, "rmse_ratio", **kw)
    assert value is None  # 0 / 0: every squared error underflowed
    assert (len(found) == 1) == (kind == "eager")
    if kind == "eager":
        factor = re.search(r"pl\.col\('q'\) \* (1e\d+)", found[0])
        assert factor is not None
        assert factor.group(1) == "1e170"
    # rescaled as the hint says: the numpy reference, no warning
    rescaled = tiny.with_columns(pl.col("q") * 1e170, pl.col("t") * 1e170)
    for name in ("rmse_ratio", "correlation_difference"):
        got, found = _warnings(_target(rescaled, kind), kind, name, **kw)
        assert found == []
        assert got == pytest.approx(ref[name], rel=1e-9), name
    table, _ = _warnings(_target(rescaled, kind), kind, "regression_by_group", **kw)
    stds = table.sort("sex").get_column("std_prediction").to_list()
    assert min(stds) / max(stds) == pytest.approx(ref["std_ratio"], rel=1e-9)


@pytest.mark.parametrize(
    "case",
    ["normal", "zeros", "tiny_among_normal"],
)
def test_no_false_alarm(case: str) -> None:
    df = frame()
    if case == "zeros":  # exact zeros: the squares are exact too
        df = df.with_columns(pl.lit(0.0).alias("q"), pl.lit(0.0).alias("t"))
    if case == "tiny_among_normal":  # tiny values beside normal ones: the sums hold
        df = df.with_columns(
            pl.when(pl.int_range(pl.len()) % 2 == 0).then(pl.col("q") * TINY).otherwise("q")
        )
    kw = method_kwargs("regression_by_group")
    _, found = _warnings(df, "eager", "regression_by_group", **kw)
    assert found == []
