"""Closed-form intervals of the balance criteria (differences and ratios of mean scores).

Kleinberg et al.'s balance criteria compare a group's mean score among its actual
positives (``balance_for_positive_class``) or actual negatives
(``balance_for_negative_class``). The statistics table carries, per group and label
class, the count ``m``, the score sum ``S`` and the sum of squared scores ``Q``
(``sum_prob_pos`` / ``sum_prob2_pos`` over the positives, ``_neg`` over the
negatives; weighted sums with weights). They give the class's mean score and the
sample variance of its scores::

    mean = S / m        s² = (Q - S² / m) / (m - 1)

so each criterion gets a closed-form interval without a pass or a resample (group 1
is the summary's ``group``, group 2 its ``compared_with``):

* a difference ``d = mean_1 - mean_2`` (``interval_method="welch"``): Welch's
  unequal-variance standard error with the normal quantile,
  ``d ± z sqrt(s_1² / m_1 + s_2² / m_2)``;
* a ratio ``r = mean_1 / mean_2`` (``"delta_log"``): the delta method on the log of
  the ratio, ``var(log r) ≈ s_1² / (m_1 mean_1²) + s_2² / (m_2 mean_2²)``, so
  ``r · exp(± z se)`` (null when a mean is 0).

Both are null where a class has at most one (effective) member. With weights the
summary first rescales every count and sum of a group by ``n / sum_w2`` (its Kish
effective size over its weight sum, see
:func:`~polars_fair.metrics._verdicts.effective_counts`), like the rate intervals:
``m`` is then the class's share of the group's effective size, the means and the
weighted variances are unchanged, and rescaling every weight by a constant changes
nothing.

A statistics table without the sums of squares (a profile written by a version
before them) gives no interval: the summary judges those criteria on the point
value (``interval_method="none"``), as it does with ``method="to_overall"``
(a group is not independent of the population that contains it).
"""

from __future__ import annotations

from collections.abc import Collection

import polars as pl

__all__ = [
    "SCORE_INTERVALS",
    "delta_log_from_moments",
    "delta_log_ratio",
    "mean_variance",
    "moments",
    "score_columns",
    "score_interval_method",
    "welch_difference",
    "welch_from_moments",
]

#: The interval methods of the balance criteria: differences, ratios.
SCORE_INTERVALS = ("welch", "delta_log")
#: Per score measure: the label class's count, score sum and sum of squared scores.
_COLUMNS = {
    "balance_for_positive_class": ("pos", "sum_prob_pos", "sum_prob2_pos"),
    "balance_for_negative_class": ("neg", "sum_prob_neg", "sum_prob2_neg"),
}


def score_columns(measure: str, names: Collection[str]) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """The count, score sum and sum of squared scores of `measure`'s label class.

    `names` are the statistics table's columns: the class count is ``tp + fn``
    (``fp + tn``) with both labels, ``pos`` (``neg``) with true labels only. The sum
    of squares is a null literal where the table has none.

    Examples
    --------
    >>> m, s, q = score_columns("balance_for_positive_class", ["n", "pos", "neg"])
    >>> m.meta.output_name(), s.meta.output_name()
    ('pos', 'sum_prob_pos')
    """
    cls, total, squares = _COLUMNS[measure]
    if "tp" in names:
        a, b = ("tp", "fn") if cls == "pos" else ("fp", "tn")
        count = (pl.col(a) + pl.col(b)).alias(cls)
    else:
        count = pl.col(cls)
    q = pl.col(squares) if squares in names else pl.lit(None, dtype=pl.Float64)
    return count, pl.col(total), q


def score_interval_method(interval: str, method: str, names: Collection[str] | None) -> str:
    """The summary's interval of a balance criterion: `interval`, or ``"none"``.

    ``"none"`` with ``method="to_overall"`` or when the statistics table (columns
    `names`; None: not known yet, assumed current) has no sums of squared scores.

    Examples
    --------
    >>> score_interval_method("welch", "between_groups", ["sum_prob_pos", "sum_prob2_pos"])
    'welch'
    >>> score_interval_method("welch", "between_groups", ["sum_prob_pos"])
    'none'
    """
    if method == "to_overall":
        return "none"
    if names is not None and not any(c.startswith("sum_prob2") for c in names):
        return "none"
    return interval


def mean_variance(m: pl.Expr, s: pl.Expr, q: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Mean ``s / m`` and sample variance ``(q - s²/m) / (m - 1)`` of a class's scores.

    The mean is null where ``m == 0``, the variance where ``m <= 1`` (rounding can
    take it a hair below 0: it is floored at 0).

    Examples
    --------
    >>> import polars as pl
    >>> x = [0.2, 0.4, 0.9]
    >>> df = pl.DataFrame({"m": [3.0], "s": [sum(x)], "q": [sum(v * v for v in x)]})
    >>> mean, var = mean_variance(pl.col("m"), pl.col("s"), pl.col("q"))
    >>> df.select(mean.round(6).alias("mean"), var.round(6).alias("var")).row(0)
    (0.5, 0.13)
    """
    m, s, q = (e.cast(pl.Float64) for e in (m, s, q))
    mean = pl.when(m > 0).then(s / m)
    var = pl.when(m > 1).then(pl.max_horizontal((q - s * s / m) / (m - 1), pl.lit(0.0)))
    return mean, var


def moments(
    first: tuple[pl.Expr, pl.Expr, pl.Expr], second: tuple[pl.Expr, pl.Expr, pl.Expr]
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """``mean1, var1, n1, mean2, var2, n2`` of two classes' ``(count, sum, sum of squares)``."""
    (m1, s1, q1), (m2, s2, q2) = first, second
    mean1, var1 = mean_variance(m1, s1, q1)
    mean2, var2 = mean_variance(m2, s2, q2)
    return mean1, var1, m1.cast(pl.Float64), mean2, var2, m2.cast(pl.Float64)


def welch_difference(
    first: tuple[pl.Expr, pl.Expr, pl.Expr],
    second: tuple[pl.Expr, pl.Expr, pl.Expr],
    z: float,
) -> tuple[pl.Expr, pl.Expr]:
    """Normal interval of ``mean_1 - mean_2`` with Welch's standard error.

    `first` and `second` are each a class's ``(count, score sum, sum of squares)``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"m": [4.0, 5.0], "s": [2.4, 2.0], "q": [1.6, 1.0]})
    >>> one = tuple(pl.col(c).first() for c in "msq")
    >>> two = tuple(pl.col(c).last() for c in "msq")
    >>> low, high = welch_difference(one, two, 1.959964)  # 0.6 - 0.4 ± 1.96 · 0.1528
    >>> df.select(low.round(4).alias("low"), high.round(4).alias("high")).row(0)
    (-0.0994, 0.4994)
    """
    return welch_from_moments(*moments(first, second), z=z)


def welch_from_moments(*parts: pl.Expr, z: float) -> tuple[pl.Expr, pl.Expr]:
    """:func:`welch_difference` from the six :func:`moments` (expressions or columns)."""
    mean1, var1, n1, mean2, var2, n2 = parts
    se = (var1 / n1 + var2 / n2).sqrt()
    d = mean1 - mean2
    return d - z * se, d + z * se


def delta_log_ratio(
    first: tuple[pl.Expr, pl.Expr, pl.Expr],
    second: tuple[pl.Expr, pl.Expr, pl.Expr],
    z: float,
) -> tuple[pl.Expr, pl.Expr]:
    """Delta-method interval of ``mean_1 / mean_2`` on the log scale, exponentiated.

    ``se(log r) = sqrt(s_1² / (m_1 mean_1²) + s_2² / (m_2 mean_2²))``; null when a
    mean is 0 (the log is undefined) or a class has at most one member.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"m": [4.0, 5.0], "s": [2.4, 2.0], "q": [1.6, 1.0]})
    >>> one = tuple(pl.col(c).first() for c in "msq")
    >>> two = tuple(pl.col(c).last() for c in "msq")
    >>> low, high = delta_log_ratio(one, two, 1.959964)  # 1.5 · exp(± 1.96 · 0.3155)
    >>> df.select(low.round(4).alias("low"), high.round(4).alias("high")).row(0)
    (0.8082, 2.7838)
    """
    return delta_log_from_moments(*moments(first, second), z=z)


def delta_log_from_moments(*parts: pl.Expr, z: float) -> tuple[pl.Expr, pl.Expr]:
    """:func:`delta_log_ratio` from the six :func:`moments` (expressions or columns)."""
    mean1, var1, n1, mean2, var2, n2 = parts
    se = (var1 / (n1 * mean1 * mean1) + var2 / (n2 * mean2 * mean2)).sqrt()
    ratio = mean1 / mean2
    ok = (mean1 > 0) & (mean2 > 0)
    return pl.when(ok).then(ratio * (-z * se).exp()), pl.when(ok).then(ratio * (z * se).exp())
