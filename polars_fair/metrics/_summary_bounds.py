"""The summary's intervals: ``ci_low`` and ``ci_high`` of every criterion row.

One computation over the stacked summary (a row's ``interval_method`` picks its
formula), for the methods the summary's criteria use only, with each formula's
shared parts computed once as columns (``with_columns`` stages, as
:func:`~polars_fair.metrics._intervals.wilson_stages`): the same operations as the
nested expressions, which Polars would plan for every method on every call (a
report on small data spends most of its summary there otherwise).

The inputs are the pick's ``__pf_x1, __pf_m1, __pf_x2, __pf_m2`` (a proportion's
numerator and denominator, or a mean score's class count ``m`` and score sum ``x``
with its sums of squares ``__pf_q1, __pf_q2``), ``value``, and the bootstrap
distances ``__pf_dlow, __pf_dhigh`` with ``__pf_ratio`` (see ``_verdicts``).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_fair.metrics._intervals import (
    bonferroni_z,
    count_ratio_interval,
    count_ratio_parts,
    haldane,
    katz_bounds,
    katz_parts,
    newcombe_difference,
    wilson_stages,
)
from polars_fair.metrics._rates import safe_div
from polars_fair.metrics._score_intervals import (
    delta_log_from_moments,
    moments,
    welch_from_moments,
)

__all__ = [
    "INTERVAL_ORDER",
    "PART_METHODS",
    "average_interval",
    "mean_part_distances",
    "part_distances",
    "summary_bounds",
    "treatment_comparisons",
]

#: The closed forms of a composite of two comparisons, read as distance bounds
#: (``__pf_plow``, ``__pf_phigh``): each part's Newcombe (or Katz) interval as the
#: interval of its distance from the ideal (:func:`part_distances`), combined as that
#: of the largest distance, each part at the Bonferroni level (equalized odds,
#: conditional use accuracy), or of the mean distance by MOVER
#: (``average_abs_odds_difference``, :func:`mean_part_distances`).
PART_METHODS = ("newcombe_parts", "katz_parts", "mover_abs_average")

#: The interval methods, in the order the bounds test them.
INTERVAL_ORDER = (
    "newcombe",
    "katz",
    "newcombe_overall",
    "katz_overall",
    "count_ratio",
    "count_mover",
    "count_ratio_overall",
    "count_mover_overall",
    "delta",
    "normal",
    "welch",
    "delta_log",
    "newcombe_parts",
    "katz_parts",
    "mover_abs_average",
    "mover_average",
    "bootstrap",
)


#: Treatment equality's interval methods (of ratios of counts).
_COUNTS = tuple(m for m in INTERVAL_ORDER if m.startswith("count_"))


def summary_bounds(
    z: float, methods: Sequence[str], method: str | None = None
) -> tuple[list[list[pl.Expr]], list[pl.Expr]]:
    """``with_columns`` stages, then the ``ci_low`` and ``ci_high`` expressions.

    `methods` are the ``interval_method`` values the rows can hold (others get a
    null interval, as ``"none"`` does). A row without a value (null or NaN) gets no
    interval. Add the stages in order, then the bounds;
    the staged ``__pf_b*`` columns are left for the caller's final ``select``.
    Given the summary's `method`, treatment equality's intervals (``count_ratio``,
    ``count_mover`` and their ``_overall`` forms) hold for all the comparisons the
    row reports the most extreme of (:func:`treatment_comparisons`; Bonferroni,
    :func:`~polars_fair.metrics._intervals.bonferroni_z`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._summary_bounds import summary_bounds
    >>> df = pl.DataFrame({"interval_method": ["newcombe", "none"], "value": [0.2, 0.1],
    ...                    "__pf_x1": [6.0, 1.0], "__pf_m1": [10.0, 2.0],
    ...                    "__pf_x2": [4.0, 1.0], "__pf_m2": [10.0, 2.0]})
    >>> stages, bounds = summary_bounds(1.959964, ["newcombe"])
    >>> for stage in stages:
    ...     df = df.with_columns(stage)
    >>> # Newcombe: 0.2 - sqrt(0.2873**2 + 0.2873**2), 0.2 + sqrt(0.2318**2 + 0.2318**2)
    >>> df.with_columns(bounds).select(pl.col("ci_low", "ci_high").round(4)).rows()
    [(-0.2063, 0.5278), (None, None)]
    """
    x1, m1, x2, m2 = (pl.col(f"__pf_{k}") for k in ("x1", "m1", "x2", "m2"))
    value = pl.col("value")
    stages: list[list[pl.Expr]] = []
    formulas: dict[str, tuple[pl.Expr, pl.Expr]] = {}

    def staged(names: Sequence[str], exprs: Sequence[pl.Expr]) -> list[pl.Expr]:
        """`exprs` as one stage of columns ``__pf_b<name>``; returns those columns."""
        stages.append([e.alias(f"__pf_b{n}") for n, e in zip(names, exprs, strict=True)])
        return [pl.col(f"__pf_b{n}") for n in names]

    # against the whole population (``method="to_overall"``): the group ``x1 / m1``
    # against the rest ``x2 / m2``, and the group's share ``w`` of the rate's
    # denominator (as weighted): ``p - p_all = (1 - w)(p - p_rest)`` and ``p / p_all =
    # r / (w r + 1 - w)`` with ``r = p / p_rest``, exactly (see :func:`_to_overall`)
    if "newcombe" in methods or "newcombe_overall" in methods:
        p1, p2 = staged(("p1", "p2"), (safe_div(x1, m1), safe_div(x2, m2)))
        wilson_steps, ci, _ = wilson_stages([("1", x1, m1), ("2", x2, m2)], z)
        stages.extend(wilson_steps)
        l1, u1, l2, u2 = staged(("l1", "u1", "l2", "u2"), (*ci["1"], *ci["2"]))
        formulas["newcombe"] = newcombe_difference(p1, (l1, u1), p2, (l2, u2))
        if "newcombe_overall" in methods:
            low, high = staged(("nl", "nh"), formulas["newcombe"])
            formulas["newcombe_overall"] = _to_overall(low, high, ratio=False)
    if "katz" in methods or "katz_overall" in methods:
        counts = staged(("kh1", "kh2", "kh3", "kh4"), haldane(x1, m1, x2, m2))
        ratio, se, defined = staged(("kr", "ks", "kd"), katz_parts(*counts))
        formulas["katz"] = katz_bounds(ratio, se, defined, z)
        if "katz_overall" in methods:
            low, high = staged(("kl", "kh"), formulas["katz"])
            formulas["katz_overall"] = _to_overall(low, high, ratio=True)
    # treatment equality FN / FP of each group; against the whole population (with
    # ``__pf_w`` the group's share of FP) mapped through the rest, as a proportion's;
    # the most extreme of several comparisons: an interval holding for all (Bonferroni)
    zc: float | pl.Expr = z
    if method is not None and set(_COUNTS) & set(methods):
        (zc,) = staged(("cz",), (bonferroni_z(treatment_comparisons(method), z),))
    if "count_ratio" in methods or "count_ratio_overall" in methods:
        counts = staged(("ch1", "ch2", "ch3", "ch4"), haldane(x1, m1, x2, m2))
        ratio, se, defined = staged(("cr", "cs", "cd"), count_ratio_parts(*counts))
        formulas["count_ratio"] = katz_bounds(ratio, se, defined, zc)
        if "count_ratio_overall" in methods:
            low, high = staged(("crl", "crh"), formulas["count_ratio"])
            formulas["count_ratio_overall"] = _to_overall(low, high, ratio=True)
    if "count_mover" in methods or "count_mover_overall" in methods:  # FN1/FP1 - FN2/FP2
        first, second = count_ratio_interval(x1, m1, zc), count_ratio_interval(x2, m2, zc)
        r1, l1, u1, r2, l2, u2 = staged(("tr1", "tl1", "tu1", "tr2", "tl2", "tu2"),
                                        (*first, *second))  # fmt: skip
        formulas["count_mover"] = newcombe_difference(r1, (l1, u1), r2, (l2, u2))
        if "count_mover_overall" in methods:
            low, high = staged(("cml", "cmh"), formulas["count_mover"])
            formulas["count_mover_overall"] = _to_overall(low, high, ratio=False)
    if "delta" in methods:  # Cohen's d (Hedges and Olkin)
        (se,) = staged(("ds",), (((m1 + m2) / (m1 * m2) + value**2 / (2 * (m1 + m2))).sqrt(),))
        ok = (m1 > 0) & (m2 > 0)
        formulas["delta"] = pl.when(ok).then(value - z * se), pl.when(ok).then(value + z * se)
    if "normal" in methods:  # a z statistic, unit variance
        formulas["normal"] = value - z, value + z
    if "welch" in methods or "delta_log" in methods:
        first, second = (m1, x1, pl.col("__pf_q1")), (m2, x2, pl.col("__pf_q2"))
        names = ("mu1", "v1", "n1", "mu2", "v2", "n2")
        parts = staged(names, moments(first, second))
        formulas["welch"] = welch_from_moments(*parts, z=z)
        formulas["delta_log"] = delta_log_from_moments(*parts, z=z)
    if "mover_average" in methods:  # (TPR + FPR or TNR) / 2 of each group, then the difference
        xb1, mb1, xb2, mb2 = (pl.col(f"__pf_{k}") for k in ("xb1", "mb1", "xb2", "mb2"))
        fractions = [("t1", x1, m1), ("f1", xb1, mb1), ("t2", x2, m2), ("f2", xb2, mb2)]
        wilson_steps, ci, _ = wilson_stages(fractions, z)
        stages.extend(wilson_steps)
        rates = staged(("t1", "f1", "t2", "f2"), [x.cast(pl.Float64) / m for _, x, m in fractions])
        cis = staged([f"{e}{k}" for k, _, _ in fractions for e in ("l", "u")],
                     [b for k, _, _ in fractions for b in ci[k]])  # fmt: skip
        first, second = (
            average_interval(
                rates[i], cis[2 * i : 2 * i + 2], rates[i + 1], cis[2 * i + 2 : 2 * i + 4]
            )
            for i in (0, 2)
        )
        a1, l1, u1, a2, l2, u2 = staged(("aa1", "al1", "au1", "aa2", "al2", "au2"),
                                        (*first, *second))  # fmt: skip
        formulas["mover_average"] = newcombe_difference(a1, (l1, u1), a2, (l2, u2))
    # the bootstrap and the composites' parts give distances from the ideal, signed
    # like the value
    for distances in ("bootstrap", *PART_METHODS):
        if distances not in methods:
            continue
        ratio_b, difference_b = _signed_interval("ratio"), _signed_interval("difference")
        formulas[distances] = tuple(  # type: ignore[assignment]
            pl.when(pl.col("__pf_ratio")).then(r).otherwise(d)
            for r, d in zip(ratio_b, difference_b, strict=True)
        )
    how = pl.col("interval_method")
    chosen = [m for m in INTERVAL_ORDER if m in methods and m in formulas]
    bounds = []
    # no value, no interval: a criterion undefined on the groups compared (four-fifths
    # with one group) has no interval either, even where the pair's counts give one
    undefined = value.is_null() | value.is_nan()
    for i, name in enumerate(("ci_low", "ci_high")):
        bound = pl.lit(None, dtype=pl.Float64)  # no method: no interval
        for m in reversed(chosen):  # nested from the last: the first method tested first
            bound = pl.when(how == m).then(formulas[m][i].cast(pl.Float64)).otherwise(bound)
        bound = pl.when(undefined).then(None).otherwise(bound)
        bounds.append(bound.cast(pl.Float64).alias(name))
    return stages, bounds


def treatment_comparisons(method: str) -> pl.Expr:
    """How many comparisons a treatment equality row reports the most extreme of.

    Over the summary's ``n_groups`` groups ``k``: between groups the ``k (k - 1) / 2``
    pairs, against a reference group the ``k - 1`` others, against the rest
    (``to_overall``) each of the ``k`` (one for two groups: each is the rest of the
    other, one comparison seen from either side). Treatment equality's band (0.1 in ``FN / FP``
    for the difference) is narrow beside the noise of a ratio of counts, so the
    selection of the most extreme comparison shows in its verdicts, where a rate's band
    absorbs it (measured in docs/report.md).
    """
    k = pl.col("n_groups").cast(pl.Float64)
    if method == "between_groups":
        return k * (k - 1) / 2
    if method == "to_reference":
        return k - 1
    # two groups against the rest are one comparison, seen from either side
    return pl.when(k > 2).then(k).otherwise(1.0)


def _to_overall(low: pl.Expr, high: pl.Expr, *, ratio: bool) -> tuple[pl.Expr, pl.Expr]:
    """A group against the whole population, from its comparison with the rest.

    The population's rate is ``p_all = w p + (1 - w) p_rest`` (``w``: the group's share
    ``__pf_w`` of the rate's denominator, as weighted), so ``p - p_all = (1 - w)(p -
    p_rest)`` and ``q = p / p_all = f(r) = r / (w r + 1 - w)`` with ``r = p / p_rest``,
    increasing in ``r``: the interval of the group against the rest (two disjoint sets
    of rows; the rest's effective counts give its weighted rate), `low` and `high`
    (Newcombe's of ``p - p_rest``, Katz's of ``r``), mapped through, is the signed
    comparison's. The criterion is the distance from the ideal (``|p -
    p_all|``, ``min(q, 1 / q)``): its interval runs from the signed interval's bound
    nearer the ideal (the ideal itself when the interval holds it) to the farther one.
    """
    w = pl.col("__pf_w")
    if ratio:
        lo, hi = ((r / (w * r + 1 - w)).log() for r in (low, high))
    else:
        lo, hi = (1 - w) * low, (1 - w) * high
    # no interval of the comparison with the rest (a denominator of 0): none
    defined = lo.is_not_null() & hi.is_not_null() & lo.is_not_nan() & hi.is_not_nan()
    near = pl.when(lo > 0).then(lo).when(hi < 0).then(-hi).otherwise(0.0)
    far = pl.max_horizontal(lo.abs(), hi.abs())
    # a distance's interval; a ratio's (<= 1) from the distances on the log
    bounds = ((-far).exp(), (-near).exp()) if ratio else (near, far)
    return pl.when(defined).then(bounds[0]), pl.when(defined).then(bounds[1])


def _signed_interval(kind: str) -> list[pl.Expr]:
    """``ci_low``, ``ci_high`` from the bootstrap distances, on the value's side."""
    lo, hi, v = pl.col("__pf_dlow"), pl.col("__pf_dhigh"), pl.col("value")
    low: pl.Expr
    high: pl.Expr
    if kind == "ratio":  # a ratio of 0 or infinity: |log r| of every redraw is infinite
        up, finite = v >= 1, (v > 0) & (v < float("inf"))
        low = pl.when(finite).then(pl.when(up).then(lo.exp()).otherwise((-hi).exp()))
        high = pl.when(finite).then(pl.when(up).then(hi.exp()).otherwise((-lo).exp()))
    else:
        up = v >= 0
        low = pl.when(up).then(lo).otherwise(-hi)
        high = pl.when(up).then(hi).otherwise(-lo)
    return [low.alias("ci_low"), high.alias("ci_high")]


def part_distances(
    ratio: bool, z: float, pair: Sequence[str] = ("x1", "m1", "x2", "m2"), out: str = "p"
) -> list[list[pl.Expr]]:
    """``with_columns`` stages giving a part's distance bounds ``__pf_plow``, ``__pf_phigh``.

    The part's pair is ``__pf_x1 / __pf_m1`` against ``__pf_x2 / __pf_m2`` (the
    columns ``__pf_`` + `pair`; the bounds ``__pf_<out>low``, ``__pf_<out>high``): Newcombe's
    interval of the difference (Katz's of the ratio, on the log) at `z`, then the
    interval of its absolute value: from the bound nearer 0 (0 when the interval holds
    0) to the farther. Null when there is no interval (a denominator of 0). With
    each of ``k`` parts at the Bonferroni level, ``z`` for tails of ``(1 - level) /
    2k``, the largest lower bound and the largest upper bound hold the composite's
    distance whenever every part's interval holds its own. Staged as columns, as
    :func:`summary_bounds` (nested, the planner would search their common parts).
    """
    x1, m1, x2, m2 = (pl.col(f"__pf_{k}").cast(pl.Float64) for k in pair)
    stages: list[list[pl.Expr]] = []
    if ratio:
        names = ("__pf_kh1", "__pf_kh2", "__pf_kh3", "__pf_kh4")
        stages.append([c.alias(n) for c, n in zip(haldane(x1, m1, x2, m2), names, strict=True)])
        r, se, defined = katz_parts(*(pl.col(n) for n in names))
        stages.append([r.alias("__pf_kr"), se.alias("__pf_ks"), defined.alias("__pf_kd")])
        low, high = katz_bounds(pl.col("__pf_kr"), pl.col("__pf_ks"), pl.col("__pf_kd"), z)
        low, high = low.log(), high.log()
    else:
        wilson_steps, ci, _ = wilson_stages([("1", x1, m1), ("2", x2, m2)], z)
        stages.extend(wilson_steps)
        stages.append(
            [(x1 / m1).alias("__pf_pp1"), (x2 / m2).alias("__pf_pp2"),
             *(b.alias(f"__pf_pw{i}") for i, b in enumerate((*ci["1"], *ci["2"])))]
        )  # fmt: skip
        l1, u1, l2, u2 = (pl.col(f"__pf_pw{i}") for i in range(4))
        low, high = newcombe_difference(pl.col("__pf_pp1"), (l1, u1), pl.col("__pf_pp2"), (l2, u2))
    stages.append([low.alias("__pf_pl"), high.alias("__pf_ph")])
    low, high = pl.col("__pf_pl"), pl.col("__pf_ph")
    missing = low.is_null() | high.is_null() | low.is_nan() | high.is_nan()
    near = pl.when(low > 0).then(low).when(high < 0).then(-high).otherwise(0.0)
    far = pl.max_horizontal(low.abs(), high.abs())
    stages.append(
        [pl.when(~missing).then(near).alias(f"__pf_{out}low"),
         pl.when(~missing).then(far).alias(f"__pf_{out}high")]
    )  # fmt: skip
    return stages


def mean_part_distances(z: float) -> list[list[pl.Expr]]:
    """Stages giving ``__pf_plow``, ``__pf_phigh``: the interval of a mean of two distances.

    ``average_abs_odds_difference`` is ``(d_T + d_F) / 2`` with ``d_T = |TPR1 - TPR2|``
    (the pair ``__pf_x1 / __pf_m1`` against ``__pf_x2 / __pf_m2``) and ``d_F = |FPR1 -
    FPR2|`` (``__pf_xb1 / __pf_mb1`` against ``__pf_xb2 / __pf_mb2``): one pair of
    groups against a reference; between groups, each part's own extreme pair. Each
    part's distance interval ``[l, u]`` at `z` (:func:`part_distances`); the parts
    count disjoint rows (positives, negatives), so they are independent and their
    mean's interval is MOVER's (Zou and Donner 2008), as for average odds:
    ``mean -+ sqrt((d - l)_T^2 + (d - l)_F^2) / 2`` (``(u - d)`` above), the lower
    bound no lower than 0. Null when a part has no interval.
    """
    stages = part_distances(False, z, out="ta")
    stages += part_distances(False, z, ("xb1", "mb1", "xb2", "mb2"), out="fa")

    def distance(*names: str) -> pl.Expr:
        x1, m1, x2, m2 = (pl.col(f"__pf_{k}").cast(pl.Float64) for k in names)
        return (x1 / m1 - x2 / m2).abs()

    stages.append(
        [distance("x1", "m1", "x2", "m2").alias("__pf_tad"),
         distance("xb1", "mb1", "xb2", "mb2").alias("__pf_fad")]
    )  # fmt: skip
    (dt, lt, ut), (df, lf, uf) = (
        (pl.col(f"__pf_{k}ad"), pl.col(f"__pf_{k}alow"), pl.col(f"__pf_{k}ahigh"))
        for k in ("t", "f")
    )
    mean = (dt + df) / 2
    low = mean - ((dt - lt) ** 2 + (df - lf) ** 2).sqrt() / 2
    high = mean + ((ut - dt) ** 2 + (uf - df) ** 2).sqrt() / 2
    stages.append([low.clip(lower_bound=0.0).alias("__pf_plow"), high.alias("__pf_phigh")])
    return stages


def average_interval(
    t: pl.Expr, t_ci: Sequence[pl.Expr], f: pl.Expr, f_ci: Sequence[pl.Expr]
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(t + f) / 2`` of one group and its interval (average odds, balanced accuracy).

    Average odds: ``t`` the TPR, ``f`` the FPR; balanced accuracy: ``f`` the TNR.
    The two proportions count disjoint rows (the positives and the negatives), so they
    are independent: their Wilson intervals `t_ci`, `f_ci` combine by the method of
    variance estimates recovery (MOVER, Zou and Donner 2008) into the interval of their
    mean; two groups' intervals then into that of the difference (Newcombe's
    construction, :func:`newcombe_difference`).
    """
    (lt, ut), (lf, uf) = t_ci, f_ci
    mean = (t + f) / 2
    low = mean - ((t - lt) ** 2 + (f - lf) ** 2).sqrt() / 2
    high = mean + ((ut - t) ** 2 + (uf - f) ** 2).sqrt() / 2
    return mean, low, high
