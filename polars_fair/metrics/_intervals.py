"""Confidence intervals from the counts alone: Wilson, Newcombe and Katz.

Every interval here is a closed-form function of a rate's numerator ``x`` and
denominator ``m`` (weight sums when weighted), so it costs no pass over the data
and no resampling:

* a rate ``x / m``: the Wilson score interval (Wilson, 1927), which stays inside
  [0, 1] and behaves at 0 and 1, unlike the Wald interval;
* a difference of two independent rates: Newcombe's hybrid score interval
  (Newcombe, 1998, method 10), built from the two Wilson intervals;
* a ratio of two independent rates: the Katz log interval (Katz et al., 1978);
  when a numerator is 0 (a ratio of 0 or infinity, whose log has no standard
  error), with 0.5 added to both counts of both groups (the Haldane-Anscombe
  correction), so that a group selected 0 times out of 100 against 50 of 100 is
  judged (its interval [0.0006, 0.16] lies below the band) instead of having none.

With weights, ``x`` and ``m`` are weight sums, which treats the weights as
frequency weights (the intervals are exact for integer replication weights and an
approximation otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import polars as pl

from polars_fair._utils import added
from polars_fair.metrics._rates import RATES, Counts

__all__ = [
    "INTERVAL_RATES",
    "cell_squares",
    "count_ratio_interval",
    "count_ratio_parts",
    "effective_fraction",
    "effective_size",
    "haldane",
    "katz_bounds",
    "katz_parts",
    "katz_ratio",
    "kish_factor",
    "large_enough",
    "newcombe_difference",
    "normal_two_sided_p",
    "rate_fraction",
    "wilson",
    "z_value",
]


#: the relative tolerance of `large_enough`: a Kish size is a ratio of float sums,
#: whose last bits depend on the scale of the weights
SIZE_RTOL = 1e-9


def large_enough(size: pl.Expr, min_size: float) -> pl.Expr:
    """Whether a group's (effective) size reaches `min_size`, to 9 significant digits.

    A Kish size ``(sum w)**2 / sum w**2`` of 30 rows of equal weight is 30 only up
    to rounding (29.999999999999982 for weights of 0.7, 30.000000000000007 for 0.1),
    so an exact ``>=`` would keep or drop such a group depending on the scale of the
    weights. Sizes within a relative ``1e-9`` below `min_size` count as reaching it.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._intervals import large_enough
    >>> df = pl.DataFrame({"n": [29.999999999999982, 29.9, 30.0]})
    >>> df.select(large_enough(pl.col("n"), 30))["n"].to_list()
    [True, False, True]
    """
    return size >= min_size * (1 - SIZE_RTOL)


def kish_factor(n: pl.Expr, sum_w2: pl.Expr) -> pl.Expr:
    """The factor taking a weighted group's counts to its Kish effective counts.

    ``n / sum_w2`` (`n` the weight sum, `sum_w2` the sum of squared weights): the
    weight sum becomes the effective size ``n**2 / sum_w2``, every rate is kept, and
    rescaling every weight by a constant changes no interval. 0 without weight.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._intervals import kish_factor
    >>> df = pl.DataFrame({"n": [4.0, 0.0], "w2": [8.0, 0.0]})  # weights 2, 2
    >>> df.select(kish_factor(pl.col("n"), pl.col("w2")))["n"].to_list()
    [0.5, 0.0]
    """
    return pl.when(sum_w2 > 0).then(n.cast(pl.Float64) / sum_w2).otherwise(0.0)


#: Rates that are binomial proportions ``x / m`` (they get Wilson intervals): all but
#: the share of predicted positives (its groups are not independent), F1 and balanced
#: accuracy.
INTERVAL_RATES: tuple[str, ...] = tuple(
    r for r in RATES if r not in {"predicted_positive_share", "f1", "balanced_accuracy"}
)


def z_value(confidence_level: float) -> float:
    """The two-sided standard normal quantile for `confidence_level`."""
    return NormalDist().inv_cdf((1 + confidence_level) / 2)


#: Each proportion's numerator and denominator as confusion cells.
_CELLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "selection_rate": (("tp", "fp"), ("tp", "fp", "fn", "tn")),
    "base_rate": (("tp", "fn"), ("tp", "fp", "fn", "tn")),
    "true_positive_rate": (("tp",), ("tp", "fn")),
    "false_negative_rate": (("fn",), ("tp", "fn")),
    "false_positive_rate": (("fp",), ("fp", "tn")),
    "true_negative_rate": (("tn",), ("fp", "tn")),
    "positive_predictive_value": (("tp",), ("tp", "fp")),
    "false_discovery_rate": (("fp",), ("tp", "fp")),
    "negative_predictive_value": (("tn",), ("fn", "tn")),
    "false_omission_rate": (("fn",), ("fn", "tn")),
    "accuracy": (("tp", "tn"), ("tp", "fp", "fn", "tn")),
    "error_rate": (("fp", "fn"), ("tp", "fp", "fn", "tn")),
}


def _cells_sum(c: Counts, cells: tuple[str, ...]) -> pl.Expr:
    """The sum of the count expressions of `cells` (names of confusion cells)."""
    return added([getattr(c, k) for k in cells])


def rate_fraction(name: str, c: Counts) -> tuple[pl.Expr, pl.Expr]:
    """Numerator and denominator count expressions of a proportion rate (`_CELLS`).

    Selection and base rate need one label only (``pred_pos`` or ``pos`` then); a
    denominator of all four cells is ``n``.
    """
    if name == "selection_rate":
        return c.PP(), c.n
    if name == "base_rate":
        return c.P(), c.n
    if not c.has_confusion or c.fp is None or c.fn is None or c.tn is None:
        msg = f"rate {name!r} needs both `y_true` and `y_pred`"
        raise ValueError(msg)
    num, den = _CELLS[name]
    return _cells_sum(c, num), c.n if len(den) == 4 else _cells_sum(c, den)


def cell_squares(name: str, c: Counts) -> tuple[pl.Expr, pl.Expr] | None:
    """Squared weights over a rate's numerator rows, and over its denominator's others.

    Summed from the cells' (``tp_w2``, ...) for rate `name`; None without them.
    """
    cells = _CELLS.get(name)
    if cells is None:
        return None
    num, den = cells
    squares = {k: getattr(c, f"{k}_w2") for k in den}
    if any(v is None for v in squares.values()):
        return None
    return added([squares[k] for k in num]), added([squares[k] for k in den if k not in num])


def effective_size(
    x: pl.Expr, m: pl.Expr, inside: pl.Expr, outside: pl.Expr, whole: pl.Expr | None = None
) -> pl.Expr:
    """The effective size of a weighted proportion ``x / m`` (see `effective_fraction`).

    `inside`, `outside`: the squared weights over the numerator's rows and over the
    rest of the denominator's. The smaller of Kish's ``m**2 / sum w**2`` and the size
    of the linearised variance, ``p (1 - p) m**2 / (inside (1 - p)**2 + outside p**2)``.
    At ``p`` of 0 or 1 the rows show one outcome, so nothing tells whether the other
    would weigh more: the smaller of Kish's and `whole`, ``m`` at the size of the
    whole group (its ``n / sum_w2``), the size used before the cells were kept.
    """
    x, m = x.cast(pl.Float64), m.cast(pl.Float64)
    total = inside + outside
    kish = pl.when(total > 0).then(m * m / total).otherwise(0.0)
    p = x / m
    spread = inside * (1 - p) ** 2 + outside * p * p
    inner = (m > 0) & (p > 0) & (p < 1) & (spread > 0)
    linear = p * (1 - p) * m * m / spread
    edge = kish if whole is None else pl.min_horizontal(kish, whole.cast(pl.Float64))
    return pl.when(inner).then(pl.min_horizontal(kish, linear)).otherwise(edge)


def effective_fraction(name: str, c: Counts, factor: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The effective numerator and denominator of rate `name`, for its interval.

    A weighted rate ``x / m`` is as precise as ``m_eff`` unweighted rows. With the
    squared weights of each confusion cell in `c` (``tp_w2``, ...), ``m_eff`` is the
    rate's own: the smaller of Kish's size of the rows it divides by, ``m**2 / sum
    w**2`` over them, and the size its linearised (sandwich) variance gives, ``p (1 -
    p) / var``. Kish's holds when the weights do not depend on the outcome, and guards
    small samples with uneven weights; the linearised one holds when they do (true
    and false positives weighted apart), where Kish's overstates the size. At a rate
    of 0 or 1, at most the group's size (``m`` times `factor`). Weights
    that differ between the label classes (a case-control sample) then give TPR the
    precision of the positives, not of the group. Otherwise (a table without cell
    squares) ``(x, m)`` times `factor`: the group's ``n / sum_w2`` (1 unweighted).
    The rate ``x / m`` is kept either way.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._rates import Counts
    >>> cols = ["n", "tp", "fp", "fn", "tn", "tp_w2", "fp_w2", "fn_w2", "tn_w2"]
    >>> df = pl.DataFrame([[40.0], [20.0], [2.0], [10.0], [8.0], [200.0], [2.0], [100.0], [8.0]],
    ...                   schema=cols)  # positives weigh 10, negatives 1
    >>> c = Counts.from_columns(cols)
    >>> x, m = effective_fraction("true_positive_rate", c, pl.lit(1.0))
    >>> df.select(x.alias("x"), m.alias("m")).row(0)  # the 3 positive rows, 2 of them predicted
    (2.0, 3.0)
    """
    x, m = rate_fraction(name, c)
    squares = cell_squares(name, c)
    if squares is None:
        return x * factor, m * factor
    m_eff = effective_size(x, m, *squares, whole=m * factor)
    k = pl.when(m > 0).then(m_eff / m.cast(pl.Float64)).otherwise(0.0)
    return x * k, m * k


def wilson(x: pl.Expr, m: pl.Expr, z: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson score interval ``(low, high)`` of ``x / m``; null when ``m == 0``."""
    x, m = x.cast(pl.Float64), m.cast(pl.Float64)
    p = x / m
    z2 = z * z
    denom = 1 + z2 / m
    center = (p + z2 / (2 * m)) / denom
    half = z * (p * (1 - p) / m + z2 / (4 * m * m)).sqrt() / denom
    return _wilson_bounds(x, m, center, half)


def wilson_stages(
    fractions: Sequence[tuple[str, pl.Expr, pl.Expr]], z: float
) -> tuple[list[list[pl.Expr]], dict[str, tuple[pl.Expr, pl.Expr]], list[str]]:
    """:func:`wilson` of several fractions, in ``with_columns`` stages of plain columns.

    `fractions` are ``(key, x, m)``. Returns the stages (add them in order), each
    key's ``(low, high)`` over the staged columns, and the staged column names (to
    drop). The same operations as :func:`wilson`, each computed once as a column:
    a table of many intervals then plans and runs in a fraction of the time the
    nested expressions take (their common subexpressions need not be found).
    """
    z2 = z * z
    cast: list[pl.Expr] = []
    parts: list[pl.Expr] = []
    bounds: list[pl.Expr] = []
    out: dict[str, tuple[pl.Expr, pl.Expr]] = {}
    names: list[str] = []
    for key, x_expr, m_expr in fractions:
        xn, mn, pn, dn, cn, hn = (f"__pf_w{k}_{key}" for k in ("x", "m", "p", "d", "c", "h"))
        names += [xn, mn, pn, dn, cn, hn]
        cast += [x_expr.cast(pl.Float64).alias(xn), m_expr.cast(pl.Float64).alias(mn)]
        x, m = pl.col(xn), pl.col(mn)
        parts += [(x / m).alias(pn), (1 + z2 / m).alias(dn)]
        p, denom = pl.col(pn), pl.col(dn)
        bounds += [
            ((p + z2 / (2 * m)) / denom).alias(cn),
            (z * (p * (1 - p) / m + z2 / (4 * m * m)).sqrt() / denom).alias(hn),
        ]
        out[key] = _wilson_bounds(x, m, pl.col(cn), pl.col(hn))
    return [cast, parts, bounds], out, names


def _wilson_bounds(
    x: pl.Expr, m: pl.Expr, center: pl.Expr, half: pl.Expr
) -> tuple[pl.Expr, pl.Expr]:
    defined = m > 0
    # at x = 0 (x = m) the limit is exactly 0 (1); the formula lands an ulp inside
    low = (
        pl.when(~defined)
        .then(None)
        .when(x <= 0)
        .then(0.0)
        .otherwise(pl.max_horizontal(center - half, pl.lit(0.0)))
    )
    high = (
        pl.when(~defined)
        .then(None)
        .when(x >= m)
        .then(1.0)
        .otherwise(pl.min_horizontal(center + half, pl.lit(1.0)))
    )
    return low, high


def newcombe_difference(
    p1: pl.Expr,
    ci1: tuple[pl.Expr, pl.Expr],
    p2: pl.Expr,
    ci2: tuple[pl.Expr, pl.Expr],
) -> tuple[pl.Expr, pl.Expr]:
    """Newcombe's hybrid score interval of ``p1 - p2`` from the two Wilson intervals."""
    (l1, u1), (l2, u2) = ci1, ci2
    d = p1 - p2
    low = d - ((p1 - l1) ** 2 + (u2 - p2) ** 2).sqrt()
    high = d + ((u1 - p1) ** 2 + (p2 - l2) ** 2).sqrt()
    return low, high


def katz_ratio(
    x1: pl.Expr, m1: pl.Expr, x2: pl.Expr, m2: pl.Expr, z: float
) -> tuple[pl.Expr, pl.Expr]:
    """Katz log interval of ``(x1 / m1) / (x2 / m2)`` (corrected at a zero numerator).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._intervals import katz_ratio
    >>> df = pl.DataFrame({"x1": [0, 20], "m1": [100, 100], "x2": [50, 40], "m2": [100, 100]})
    >>> low, high = katz_ratio(pl.col("x1"), pl.col("m1"), pl.col("x2"), pl.col("m2"), 1.96)
    >>> df.select(low.round(5).alias("low"), high.round(4).alias("high")).rows()
    [(0.00062, 0.1583), (0.31575, 0.7918)]
    """
    return katz_bounds(*katz_parts(*haldane(x1, m1, x2, m2)), z)


def katz_parts(
    x1: pl.Expr, m1: pl.Expr, x2: pl.Expr, m2: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """The ratio, the standard error of its log and where both are defined (Katz).

    Pass the counts of :func:`haldane` (staged as columns: the correction read four
    times in each expression made a report's derivation 7% slower): with a zero
    numerator corrected, the ratio stands for the interval's centre only (the
    criterion's value is the ratio of the counts as they are).
    """
    x1, m1, x2, m2 = (e.cast(pl.Float64) for e in (x1, m1, x2, m2))
    ratio = (x1 / m1) / (x2 / m2)
    se = (1 / x1 - 1 / m1 + 1 / x2 - 1 / m2).sqrt()
    defined = (x1 > 0) & (x2 > 0) & (m1 > 0) & (m2 > 0)
    return ratio, se, defined


def haldane(
    x1: pl.Expr, m1: pl.Expr, x2: pl.Expr, m2: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """The counts as floats, each plus 0.5 where a numerator is 0 and both `m` are not.

    A ratio of 0 or infinity has a log without a standard error; the Haldane-Anscombe
    correction gives it a finite interval (as for a log odds ratio), and changes
    nothing where both numerators are positive. Both denominators must be positive:
    a rate of no rows stays undefined.
    """
    x1, m1, x2, m2 = (e.cast(pl.Float64) for e in (x1, m1, x2, m2))
    c = pl.when(((x1 == 0) | (x2 == 0)) & (m1 > 0) & (m2 > 0)).then(0.5).otherwise(0.0)
    return x1 + c, m1 + c, x2 + c, m2 + c


def count_ratio_parts(
    x1: pl.Expr, m1: pl.Expr, x2: pl.Expr, m2: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """The ratio of two ratios of counts, the standard error of its log, where defined.

    ``(x1 / m1) / (x2 / m2)`` where ``x`` and ``m`` are two cells of one group's
    multinomial counts (treatment equality: ``FN / FP``). By the delta method,
    ``Var(log x - log m) = 1/x + 1/m`` (the cells' covariance, ``-n p_x p_m``, cancels
    the ``-1/n`` terms), and the two groups are independent: the variance of the log
    ratio is ``1/x1 + 1/m1 + 1/x2 + 1/m2``. Katz's interval of a ratio of
    proportions, with a plus where the proportions' denominators contain their
    numerators. Pass the counts of :func:`haldane`, as for :func:`katz_parts`.
    """
    x1, m1, x2, m2 = (e.cast(pl.Float64) for e in (x1, m1, x2, m2))
    ratio = (x1 / m1) / (x2 / m2)
    se = (1 / x1 + 1 / m1 + 1 / x2 + 1 / m2).sqrt()
    defined = (x1 > 0) & (x2 > 0) & (m1 > 0) & (m2 > 0)
    return ratio, se, defined


def count_ratio_interval(
    x: pl.Expr, m: pl.Expr, z: float | pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """A group's ``x / m`` (two cells of its counts) and its log-scale interval.

    ``r · exp(± z sqrt(1/x + 1/m))`` (as :func:`count_ratio_parts`, for one group);
    for ``x = 0`` (a ratio of 0) from 0 to the upper bound of the counts plus 0.5
    (Haldane-Anscombe); null when ``m`` is 0. With two groups' intervals, the
    interval of the difference of the ratios is Newcombe's (MOVER) construction,
    :func:`newcombe_difference`, which keeps their skew.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._intervals import count_ratio_interval
    >>> df = pl.DataFrame({"x": [0, 10], "m": [20, 10]})
    >>> r, low, high = count_ratio_interval(pl.col("x"), pl.col("m"), 1.96)
    >>> df.select(r, low.round(4).alias("low"), high.round(4).alias("high")).rows()
    [(0.0, 0.0, 0.4033), (1.0, 0.4162, 2.4026)]
    """
    x, m = x.cast(pl.Float64), m.cast(pl.Float64)
    zero = x == 0
    xc, mc = (pl.when(zero).then(v + 0.5).otherwise(v) for v in (x, m))
    ratio = xc / mc
    se = (1 / xc + 1 / mc).sqrt()
    low = pl.when(m > 0).then(pl.when(zero).then(0.0).otherwise(ratio * (-z * se).exp()))
    high = pl.when(m > 0).then(ratio * (z * se).exp())
    return pl.when(m > 0).then(x / m), low, high


def katz_bounds(
    ratio: pl.Expr, se: pl.Expr, defined: pl.Expr, z: float | pl.Expr
) -> tuple[pl.Expr, pl.Expr]:
    """The Katz interval from :func:`katz_parts` (expressions or their columns)."""
    low = pl.when(defined).then(ratio * (-z * se).exp())
    high = pl.when(defined).then(ratio * (z * se).exp())
    return low, high


def bonferroni_z(comparisons: pl.Expr, z: float) -> pl.Expr:
    """The normal quantile of `z`'s level shared among `comparisons` intervals.

    Bonferroni: the two-sided ``1 - level`` of `z` divided by the number of
    comparisons (`z` itself for one or none), so that the intervals of all of them
    hold together at `z`'s level. The column is a derived table's (one row per
    criterion and batch key): mapped in one batch, one quantile per distinct number.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._intervals import bonferroni_z
    >>> df = pl.DataFrame({"m": [1, 10, None]})
    >>> df.select(bonferroni_z(pl.col("m"), 1.959964).round(4))["m"].to_list()
    [1.96, 2.807, 1.96]
    """
    alpha = math.erfc(z / math.sqrt(2))  # two-sided, of z's level

    def quantiles(s: pl.Series) -> pl.Series:
        m = np.maximum(s.cast(pl.Float64).fill_null(1.0).to_numpy(), 1.0)
        distinct, where = np.unique(m, return_inverse=True)
        q = np.array([z_value(1 - alpha / k) for k in distinct])
        return pl.Series(s.name, np.where(m <= 1, z, q[where]))

    return comparisons.map_batches(quantiles, return_dtype=pl.Float64)


def normal_two_sided_p(z: pl.Expr) -> pl.Expr:
    """Two-sided p-value of a standard normal statistic: ``erfc(|z| / sqrt(2))``.

    Polars has no ``erfc``; the column this runs on is a derived table (one value
    per criterion and batch key), never the data, so it is mapped through
    :func:`math.erfc` in one batch.
    """
    erfc = np.frompyfunc(math.erfc, 1, 1)

    def p_values(s: pl.Series) -> pl.Series:
        values = s.cast(pl.Float64).to_numpy()
        out = np.full(values.shape, np.nan)
        ok = ~np.isnan(values)
        out[ok] = erfc(np.abs(values[ok]) / math.sqrt(2)).astype(np.float64)
        return pl.Series(s.name, out).fill_nan(None)

    return z.map_batches(p_values, return_dtype=pl.Float64)
