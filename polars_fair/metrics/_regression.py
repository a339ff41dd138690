"""Regression measures from the additive sums, and criteria over prediction quantiles.

Per-group measures (``n`` is the row count, or the weight total):

* ``mean_prediction = sum_pred / n`` (Holistic AI's "average score");
* ``std_prediction = sqrt(sum_pred_sq / n - mean²)`` (population, ``ddof=0``);
* ``mean_true``, ``rmse = sqrt(sum_sq_error / n)``, ``mae = sum_abs_error / n``;
* ``correlation``: Pearson's r of prediction and truth from the sums (null when
  either is constant in the group).

Sums of squares lose about ``eps · (mean / std)²`` of relative precision to
cancellation, so a standard deviation far below the mean's magnitude is
imprecise, and one below about ``3e-6`` of the root mean square counts as 0 (a
constant group): centre the predictions first when their spread is that small.

Criteria over quantiles read a :func:`~polars_fair.reduce.regression.quantile_grid_stats`
table (``quantile`` is one more batch key) and reuse the selection-rate criteria.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from polars_fair._utils import over, per_key
from polars_fair.metrics._criteria import criterion_table, farthest_from_reference
from polars_fair.metrics._rates import safe_div
from polars_fair.metrics._reference import is_reference

__all__ = [
    "LABEL_MEASURES",
    "PREDICTION_MEASURES",
    "REGRESSION_MEASURES",
    "grid_criterion_table",
    "no_disparate_impact_level_table",
    "quantile_criterion_table",
    "regression_formula",
    "zscore_table",
]

#: Measures that need only predictions, and those that need true values too.
PREDICTION_MEASURES = ("mean_prediction", "std_prediction")
LABEL_MEASURES = ("mean_true", "rmse", "mae", "correlation")
REGRESSION_MEASURES = PREDICTION_MEASURES + LABEL_MEASURES

Getter = Callable[[str], pl.Expr]
_REF = "__pf_is_ref"


#: A variance below this fraction of the mean square is rounding: the group is constant.
CONSTANT_TOLERANCE = 1e-11


def _variance(total: pl.Expr, squares: pl.Expr, n: pl.Expr) -> pl.Expr:
    """Population variance from sums; 0 when within rounding of 0 (constant values).

    ``E[x²] - E[x]²`` of a constant that binary floating point cannot hold exactly
    (0.3, say) comes out a few ulps of ``E[x²]`` away from 0, which would turn a
    constant group's correlation into a number and its standard deviation into
    noise. Below ``CONSTANT_TOLERANCE · E[x²]`` (a spread under about 3e-6 of the
    root mean square) the variance is 0.
    """
    mean_square = safe_div(squares, n)
    mean = safe_div(total, n)
    var = mean_square - mean * mean
    small = pl.when(var.is_not_null()).then(0.0)  # no rows (n = 0): undefined, null
    return pl.when(var > CONSTANT_TOLERANCE * mean_square).then(var).otherwise(small)


def regression_formula(name: str, get: Getter) -> pl.Expr:
    """The expression of regression measure `name` from sum columns read by `get`."""
    n = get("n")
    if name == "mean_prediction":
        return safe_div(get("sum_pred"), n)
    if name == "std_prediction":
        return _variance(get("sum_pred"), get("sum_pred_sq"), n).sqrt()
    if name == "mean_true":
        return safe_div(get("sum_true"), n)
    if name == "rmse":
        return safe_div(get("sum_sq_error"), n).sqrt()
    if name == "mae":
        return safe_div(get("sum_abs_error"), n)
    if name == "correlation":
        mp, mt = safe_div(get("sum_pred"), n), safe_div(get("sum_true"), n)
        cov = safe_div(get("sum_pred_true"), n) - mp * mt
        vp = _variance(get("sum_pred"), get("sum_pred_sq"), n)
        vt = _variance(get("sum_true"), get("sum_true_sq"), n)
        r = safe_div(cov, (vp * vt).sqrt())
        return pl.when((vp > 0) & (vt > 0)).then(r.clip(-1.0, 1.0))
    msg = f"unknown regression measure {name!r}; known: {list(REGRESSION_MEASURES)}"
    raise ValueError(msg)


def zscore_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
) -> pl.LazyFrame:
    """Difference of mean predictions over the pooled standard deviation.

    ``(m_g - m_ref) / sqrt(((n_g - 1) s_g² + (n_ref - 1) s_ref²) / (n_g + n_ref - 2))``
    with population variances ``s²`` (Holistic AI's ``zscore_diff``; the same pooling
    as :func:`cohen_d`); the signed value of the group farthest from the reference.
    """
    mean = regression_formula("mean_prediction", pl.col)
    var = _variance(pl.col("sum_pred"), pl.col("sum_pred_sq"), pl.col("n"))
    table = stats.with_columns(
        is_reference(reference, sensitive, by).alias(_REF),
        pl.col("n").cast(pl.Float64).alias("__pf_n"),
        mean.alias("__pf_m"),
        var.alias("__pf_v"),
    )
    is_ref = pl.col(_REF)
    table = table.with_columns(
        over(pl.col(c).filter(is_ref).first(), by).alias(c + "_r")
        for c in ("__pf_n", "__pf_m", "__pf_v")
    )
    n, m, v = pl.col("__pf_n"), pl.col("__pf_m"), pl.col("__pf_v")
    n_r, m_r, v_r = pl.col("__pf_n_r"), pl.col("__pf_m_r"), pl.col("__pf_v_r")
    dof = n + n_r - 2
    pooled = safe_div((n - 1) * v + (n_r - 1) * v_r, dof)
    z = pl.when(dof > 0).then(safe_div(m - m_r, pooled.sqrt()))
    table = table.with_columns(z.alias("__pf_z"))
    zc = pl.col("__pf_z")
    value = (
        farthest_from_reference(zc, zc.abs(), is_ref).cast(pl.Float64).alias("zscore_difference")
    )
    return per_key(table, value, by)


def quantile_criterion_table(
    grid: pl.LazyFrame,
    *,
    name: str,
    kind: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
) -> pl.LazyFrame:
    """The selection-rate criterion at each level: ``by…, quantile, threshold, name``."""
    keys = [*by, "quantile"]
    grid = grid.cache()  # read for the criterion and for the thresholds
    values = criterion_table(
        grid, name=name, measures=("selection_rate",), kind=kind,  # type: ignore[arg-type]
        method=method, agg="worst_case", by=keys, sensitive=sensitive,
        reference=reference, zero_division=zero_division,
    )  # fmt: skip
    thresholds = grid.group_by(keys).agg(pl.col("threshold").first())
    return (
        values.join(thresholds, on=keys, how="left", nulls_equal=True)
        .select(*keys, "threshold", name)
        .sort(keys, nulls_last=True)
    )


def grid_criterion_table(
    grid: pl.LazyFrame,
    *,
    name: str,
    how: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
) -> pl.LazyFrame:
    """The largest (``how="max"``) or mean (``"mean"``) |statistical parity| over levels."""
    per_level = quantile_criterion_table(
        grid, name="__pf_d", kind="difference", method=method, by=by, sensitive=sensitive,
        reference=reference, zero_division=zero_division,
    )  # fmt: skip
    d = pl.col("__pf_d").abs()
    value = (d.max() if how == "max" else d.mean()).cast(pl.Float64).alias(name)
    return per_key(per_level, value, by)


def no_disparate_impact_level_table(
    grid: pl.LazyFrame,
    *,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    band: tuple[float, float],
) -> pl.LazyFrame:
    """The highest threshold on the grid whose disparate impact lies within `band`."""
    per_level = quantile_criterion_table(
        grid, name="__pf_di", kind="ratio", method=method, by=by, sensitive=sensitive,
        reference=reference, zero_division=None,
    )  # fmt: skip
    di = pl.col("__pf_di")
    inside = (di >= band[0]) & (di <= band[1])
    value = (
        pl.col("threshold").filter(inside).max().cast(pl.Float64).alias("no_disparate_impact_level")
    )
    return per_key(per_level, value, by)
