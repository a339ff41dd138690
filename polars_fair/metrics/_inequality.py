"""Inequality indices of the benefit b = y_pred - y_true + 1, from the counts.

Speicher et al. (2018) measure unfairness as inequality of the individual benefit
``b_i = ŷ_i - y_i + 1``: 1 for a correct prediction, 2 for a false positive and 0
for a false negative. Because b takes three values, every index is a function of
the confusion counts: ``sum_i f(b_i) = (tp + tn) f(1) + fp f(2) + fn f(0)``.

The generalized entropy index (textbook form, Jurity's documentation):

* ``GE(a) = 1 / (n a (a - 1)) * sum[(b_i / mu)^a - 1]`` for ``a`` not 0 or 1;
* ``GE(1) = 1 / n * sum (b_i / mu) ln(b_i / mu)`` (the Theil index; 0 ln 0 = 0);
* ``GE(0) = -1 / n * sum ln(b_i / mu)`` (infinite as soon as one b_i is 0).

The between-group index replaces each ``b_i`` by its group's mean benefit.
"""

from __future__ import annotations

import polars as pl

from polars_fair._utils import per_key

__all__ = ["entropy_table"]


def _term(count: pl.Expr, x: pl.Expr, alpha: float) -> pl.Expr:
    """``count * g(x)``, where g is the summand of GE(alpha) at ``x = b / mu``."""
    if alpha == 1:
        value = pl.when(x == 0).then(0.0).otherwise(x * x.log())
    elif alpha == 0:
        value = pl.when(x == 0).then(float("inf")).otherwise(-x.log())
    else:
        value = x.pow(alpha) - 1
    return pl.when(count == 0).then(0.0).otherwise(count * value)


def _scale(total: pl.Expr, n: pl.Expr, alpha: float) -> pl.Expr:
    if alpha in (0, 1):
        return total / n
    return total / (n * alpha * (alpha - 1))


def entropy_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    alpha: float,
    between_groups: bool,
    name: str,
    root: bool = False,
) -> pl.LazyFrame:
    """One row per batch key with the (between-group) generalized entropy index.

    ``root=True`` returns ``sqrt(2 GE(2))``, the coefficient of variation.
    """
    f64 = pl.Float64
    tp, fp, fn, tn = (pl.col(c).cast(f64) for c in ("tp", "fp", "fn", "tn"))
    n_g = tp + fp + fn + tn
    benefit_g = tp + tn + 2 * fp  # sum of b over the group
    n = n_g.sum()
    mu = benefit_g.sum() / n
    if between_groups:
        mu_g = benefit_g / n_g
        total = _term(n_g, mu_g / mu, alpha).sum()
    else:
        total = (
            _term(tp + tn, 1 / mu, alpha).sum()
            + _term(fp, 2 / mu, alpha).sum()
            + _term(fn, pl.lit(0.0), alpha).sum()
        )
    value: pl.Expr = pl.when((n > 0) & (mu > 0)).then(_scale(total, n, alpha))
    if root:
        value = (2 * value).sqrt()
    result = value.cast(f64).alias(name)
    return per_key(stats, result, by)
