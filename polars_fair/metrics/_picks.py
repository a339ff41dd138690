"""The pair of groups behind each summary row: the picks.

A *pick* is, per batch key, the pair of groups whose comparison gives a criterion's
value (one measure compared one way, :func:`pick_table`), with the counts its interval
reads: the proportions' numerators and denominators, a mean score's sums of squares,
average odds' FPR counts, and, against a reference, the lowest and highest
comparison. A composite of several measures takes its worst part's pick
(:func:`worst_pick`); ``average_abs_odds_difference`` has its own, the two rates of
one pair against a reference, or each rate's extreme pair between groups. Cohen's d
and the 2-SD z are computed from a pick's counts (:func:`statistic_stages`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._utils import built_once, over, per_key
from polars_fair.metrics._criteria import log_distance, tied
from polars_fair.metrics._intervals import (
    INTERVAL_RATES,
    cell_squares,
    effective_fraction,
    effective_size,
    kish_factor,
    rate_fraction,
)
from polars_fair.metrics._rates import SCORE_RATES, Counts, rate_expr, safe_div
from polars_fair.metrics._reference import is_reference
from polars_fair.metrics._score_intervals import score_columns
from polars_fair.metrics._summary_bootstrap import N_RAW
from polars_fair.reduce import WEIGHT_SQUARES

__all__ = [
    "EXTREMES",
    "LABEL",
    "NAMED",
    "NEFF",
    "ODDS",
    "PICK",
    "PP_RAW",
    "REF",
    "SQUARES",
    "STATISTICS",
    "OVERALL",
    "pick_table",
    "statistic_from_pair",
    "statistic_stages",
    "worst_pick",
]

#: A group's effective size and its label (the columns the picks read).
NEFF = "__pf_neff"
LABEL = "__pf_label"
#: Whether a row is the reference group's.
REF = "__pf_is_ref"
#: A weighted table's predicted positives as given (the predicted-positive share).
PP_RAW = "__pf_pp_raw"
#: A group's share of the rate's denominator, in a pick against the whole population.
OVERALL = ("w",)

#: Statistics compared group by group with the reference (their pick's kind): the pair
#: is the group whose statistic is largest in absolute value, as the methods pick it.
STATISTICS = ("cohen_d", "two_sd_rule")
PICK = ("group", "group_n", "compared_with", "compared_n", "x1", "m1", "x2", "m2", "dist")
#: The extremes of the per-group comparisons (against the reference): what a
#: one-sided gate reads ("> 1.25" fails on the highest group, "< 0.8" the lowest).
EXTREMES = ("lowest", "lowest_group", "lowest_n", "highest", "highest_group", "highest_n")
#: The columns of a pick naming the groups compared (the bootstrap compares those).
NAMED = ("group", "compared_with")
#: A mean score's sums of squares of both groups of a pick.
SQUARES = ("q1", "q2")
#: The second proportion of both groups of a pick averaging two (average odds' FPR,
#: balanced accuracy's TNR: ``xb / mb``, beside TPR's ``x / m``).
ODDS = ("xb1", "mb1", "xb2", "mb2")


def pick_table(
    table: pl.LazyFrame,
    *,
    names: Sequence[str],
    measure: str,
    kind: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
) -> pl.LazyFrame:
    """The pair of groups whose comparison of `measure` gives a criterion, per key.

    `table` (with columns `names`) holds effective counts, ``NEFF`` and ``LABEL``.
    Columns: ``by…`` and ``__pf_`` + each of :data:`PICK` (labels, effective sizes,
    the proportions' numerators and denominators where `measure` is one, or a score
    measure's class count ``m`` and score sum ``x``, then its sums of squares ``q1``,
    ``q2``; the distance from ideal).
    """
    stages, rows, aggs = built_once(
        _pick_exprs, tuple(names), measure, kind, method, tuple(by), tuple(sensitive), reference
    )
    for stage in stages:
        table = table.with_columns(stage)
    if rows is not None:
        table = table.filter(rows)
    return per_key(table, list(aggs), by)


_Stages = tuple[tuple[tuple[pl.Expr, ...], ...], pl.Expr | None, tuple[pl.Expr, ...]]


def _pick_exprs(
    names: tuple[str, ...],
    measure: str,
    kind: str,
    method: str,
    by_: tuple[str, ...],
    sensitive: tuple[str, ...],
    reference: tuple[Any, ...] | str,
) -> _Stages:
    """The ``with_columns`` stages and the per-key aggregations of :func:`pick_table`."""
    by = list(by_)
    statistic_name, cols_xm = kind, ("__pf_x", "__pf_m")
    c = Counts.from_columns(names)
    total_pp = over(c.PP().sum(), by) if measure == "predicted_positive_share" else None
    # average_abs_odds_difference's own pick: two rates of each group, TPR (``v``, ``x
    # / m``) and FPR (``vb``, ``xb / mb``), compared on the same pair with a reference
    odds = measure == "average_abs_odds"
    value = rate_expr("true_positive_rate" if odds else measure, c, total_pp)
    if measure == "predicted_positive_share" and PP_RAW in names:  # weighted: as given
        value = safe_div(pl.col(PP_RAW), over(pl.col(PP_RAW).sum(), by))
    # a pick's second numbers of each side: a mean score's sum of squares (``q``), or
    # the second proportion of a mean of two (average odds' FPR, balanced accuracy's
    # TNR: ``xb / mb``, beside TPR's ``x / m``)
    extra: dict[str, pl.Expr] = {}
    one = pl.lit(1.0)  # the table holds effective counts: a rate over `n` keeps them
    if measure in INTERVAL_RATES:
        xe, me = effective_fraction(measure, c, one)
    elif measure == "treatment_equality" and c.fn is not None and c.fp is not None:
        xe, me = c.fn, c.fp  # the counts of `count_ratio_parts`
    elif measure in SCORE_RATES:
        me, xe, qe = score_columns(measure, names)
        extra = {"q": qe}
    elif measure in ("average_odds", "average_abs_odds") and c.tp is not None and c.fp is not None:
        xe, me = effective_fraction("true_positive_rate", c, one)
        xb, mb = effective_fraction("false_positive_rate", c, one)
        extra = {"xb": xb, "mb": mb}
    elif measure == "balanced_accuracy" and c.tp is not None and c.tn is not None:
        xe, me = effective_fraction("true_positive_rate", c, one)  # (TPR + TNR) / 2
        xb, mb = effective_fraction("true_negative_rate", c, one)
        extra = {"xb": xb, "mb": mb}
    else:
        xe = me = pl.lit(None, dtype=pl.Float64)
    stages: list[tuple[pl.Expr, ...]] = [
        (
            value.cast(pl.Float64).alias("__pf_v"),
            xe.cast(pl.Float64).alias("__pf_x"),
            me.cast(pl.Float64).alias("__pf_m"),
            *(e.cast(pl.Float64).alias(f"__pf_{k}") for k, e in extra.items()),
            *((rate_expr("false_positive_rate", c).alias("__pf_vb"),) if odds else ()),
        )
    ]
    v = pl.col("__pf_v")
    rows: pl.Expr | None = None  # the rows the aggregations read (all by default)
    cols = {"group": LABEL, "group_n": NEFF, "x1": "__pf_x", "m1": "__pf_m"}
    other = {"compared_with": LABEL, "compared_n": NEFF, "x2": "__pf_x", "m2": "__pf_m"}
    for k in extra:
        cols[f"{k}1"], other[f"{k}2"] = f"__pf_{k}", f"__pf_{k}"
    if method == "to_reference":
        stages.append((is_reference(reference, sensitive, by).alias(REF),))
        ref = pl.col(REF)
        stages.append((over(v.filter(ref).first(), by).alias("__pf_vr"),))
        vr = pl.col("__pf_vr")
        statistic = kind in STATISTICS
        if statistic:  # each group's d or z against the reference; the pair: the largest
            refs = [over(pl.col(c).filter(ref).first(), by).alias(f"{c}r") for c in cols_xm]
            stages.append(tuple(refs))
            columns = ("__pf_x", "__pf_m", "__pf_xr", "__pf_mr")
            stages += statistic_stages(statistic_name, columns, temp="__pf_t", out="__pf_s")
            dist = pl.col("__pf_s").abs()
        elif odds:  # the mean of the two absolute differences, >= 0
            vb = pl.col("__pf_vb")
            signed = ((v - vr).abs() + (vb - over(vb.filter(ref).first(), by)).abs()) / 2
            dist = pl.col("__pf_s")
            stages.append((signed.alias("__pf_s"),))
        else:
            dist = (v - vr).abs() if kind == "difference" else log_distance(safe_div(v, vr))
            signed = v - vr if kind == "difference" else safe_div(v, vr)
            stages.append((signed.alias("__pf_s"),))
        stages.append((dist.alias("__pf_d"),))
        keep = ~ref & pl.col("__pf_d").is_not_null()
        d, s = tied(pl.col("__pf_d")), tied(pl.col("__pf_s"))
        far = keep & (d == d.filter(keep).max())
        i = _first_named(far & (s == s.filter(far).min()), keep)  # as `farthest_from_reference`
        aggs = [pl.col(src).filter(keep).get(i).alias(f"__pf_{k}") for k, src in cols.items()]
        aggs += [pl.col(src).filter(ref).first().alias(f"__pf_{k}") for k, src in other.items()]
        aggs.append(pl.col("__pf_d").filter(keep).max().alias("__pf_dist"))
        sv = pl.col("__pf_s").filter(keep)
        lo_i = _first_named(keep & (s == s.filter(keep).min()), keep)
        hi_i = _first_named(keep & (s == s.filter(keep).max()), keep)
        aggs += [
            sv.get(lo_i).alias("__pf_lowest"),
            pl.col(LABEL).filter(keep).get(lo_i).alias("__pf_lowest_group"),
            pl.col(NEFF).filter(keep).get(lo_i).alias("__pf_lowest_n"),
            sv.get(hi_i).alias("__pf_highest"),
            pl.col(LABEL).filter(keep).get(hi_i).alias("__pf_highest_group"),
            pl.col(NEFF).filter(keep).get(hi_i).alias("__pf_highest_n"),
        ]
    elif method == "between_groups" and odds:
        aggs = _range_pairs(cols, other)
    elif method == "between_groups":
        # the groups with a value only (filtered once, for every column): a batch key
        # without any has no row, which the summary's join to its keys fills with
        # nulls, as the aggregations of no rows would be
        rows = v.is_not_null()
        # ties: the first group by name is the top, the last the bottom (two groups
        # even when every value is equal), whatever order the table's rows come in
        label = pl.col(LABEL)
        vt = tied(v)
        top_label = label.filter(vt == vt.max()).min()
        bottom_label = label.filter(vt == vt.min()).max()
        top, bottom = (label == top_label).arg_max(), (label == bottom_label).arg_max()
        first, second = (top, bottom) if kind == "difference" else (bottom, top)
        aggs = [pl.col(src).get(first).alias(f"__pf_{k}") for k, src in cols.items()]
        aggs += [pl.col(src).get(second).alias(f"__pf_{k}") for k, src in other.items()]
        hi, lo = v.max(), v.min()
        dist = hi - lo if kind == "difference" else log_distance(safe_div(lo, hi))
        aggs.append(dist.alias("__pf_dist"))
    else:  # to_overall: the group farthest from the whole population
        # treatment equality FN / FP mixes like a proportion (denominator FP)
        proportion = measure in INTERVAL_RATES or measure == "treatment_equality"
        if proportion:  # the whole population's rate as weighted (the value's)
            squares = cell_squares(measure, c)  # a rate's own effective size, if any
            own = None if squares is None else (rate_fraction(measure, c)[1], *squares)
            stages.append(_raw_counts(names, own))
            xr, mr = pl.col("__pf_xraw"), pl.col("__pf_mraw")
            stages.append((safe_div(over(xr.sum(), by), over(mr.sum(), by)).alias("__pf_vr"),))
        else:
            total = c.map(lambda e: over(e.sum(), by))
            t_pp = total.PP() if measure == "predicted_positive_share" else None
            stages.append((rate_expr(measure, total, t_pp).cast(pl.Float64).alias("__pf_vr"),))
        vr = pl.col("__pf_vr")
        dist = (v - vr).abs() if kind == "difference" else log_distance(safe_div(v, vr))
        stages.append((dist.alias("__pf_d"),))
        keep = pl.col("__pf_d").is_not_null()
        d = tied(pl.col("__pf_d"))
        i = _first_named(keep & (d == d.filter(keep).max()), keep)
        aggs = [pl.col(src).filter(keep).get(i).alias(f"__pf_{k}") for k, src in cols.items()]
        x2 = m2 = share = pl.lit(None, dtype=pl.Float64)
        if proportion:  # the rest of the population, for the closed forms
            x2, m2, share = _rest(keep, i, cells=own is not None)
        aggs += [
            pl.lit("overall").alias("__pf_compared_with"),
            pl.col(NEFF).sum().alias("__pf_compared_n"),
            x2.alias("__pf_x2"),
            m2.alias("__pf_m2"),
            share.alias("__pf_w"),
            pl.col("__pf_d").filter(keep).max().alias("__pf_dist"),
        ]
    return tuple(stages), rows, tuple(aggs)


def _first_named(rows: pl.Expr, keep: pl.Expr) -> pl.Expr:
    """The position, among the `keep` rows, of the first-named group of `rows`.

    Ties between groups (statistics equal to 12 significant digits, :func:`tied`) go
    to the first name, whatever order the table's rows come in (a streaming run's).
    """
    label = pl.col(LABEL)
    return (rows & (label == label.filter(rows).min())).filter(keep).arg_max()


def _raw_counts(
    names: Sequence[str], own: tuple[pl.Expr, pl.Expr, pl.Expr] | None = None
) -> tuple[pl.Expr, ...]:
    """A proportion's count ``__pf_x``, ``__pf_m`` as weighted, and the weight sums.

    :func:`~._verdicts.effective_counts` multiplies a weighted group's counts by ``n /
    sum_w2`` (``n`` the weight sum, kept as ``__pf_n_raw``); undone here (``__pf_xraw``,
    ``__pf_mraw``), with ``__pf_nraw`` and ``__pf_w2`` the group's weight sum and sum of
    squared weights. A rate with its own effective size (`own`: its denominator and
    the squared weights over its numerator's rows and the rest of its denominator's,
    as rescaled, see ``effective_fraction``) is undone with its own, and the squared
    weights are kept as ``__pf_sx``, ``__pf_so``, the group's sums as ``__pf_gn``,
    ``__pf_gw2`` (for the rest's own size, `_rest`).
    Without weights (or with frequency weights) the counts are as given, and ``n``
    stands for both sums.
    """
    x, m = pl.col("__pf_x"), pl.col("__pf_m")
    if N_RAW not in names or WEIGHT_SQUARES not in names:
        n = pl.col("n").cast(pl.Float64)
        return x.alias("__pf_xraw"), m.alias("__pf_mraw"), n.alias("__pf_nraw"), n.alias("__pf_w2")
    n_raw, w2 = pl.col(N_RAW).cast(pl.Float64), pl.col(WEIGHT_SQUARES).cast(pl.Float64)
    if own is not None:  # rescaled by the group's factor k (the squares by k**2)
        k = kish_factor(n_raw, w2)
        m_raw, inside, outside = (
            safe_div(own[0], k),
            safe_div(own[1], k * k),
            safe_div(own[2], k * k),
        )
        back = pl.when(m > 0).then(m_raw / m).otherwise(0.0)  # x_eff / x, m_eff / m
        return (
            (x * back).alias("__pf_xraw"), (m * back).alias("__pf_mraw"),
            m_raw.alias("__pf_nraw"), (inside + outside).alias("__pf_w2"),
            inside.alias("__pf_sx"), outside.alias("__pf_so"),
            n_raw.alias("__pf_gn"), w2.alias("__pf_gw2"),
        )  # fmt: skip
    back = pl.when(n_raw > 0).then(w2 / n_raw).otherwise(0.0)
    return (
        (x * back).alias("__pf_xraw"), (m * back).alias("__pf_mraw"),
        n_raw.alias("__pf_nraw"), w2.alias("__pf_w2"),
    )  # fmt: skip


def _rest(keep: pl.Expr, i: pl.Expr, *, cells: bool = False) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """The rest of the population beside group `i`, as one group: ``x2``, ``m2``, ``w``.

    Its effective counts (its weighted counts times its own ``sum w / sum w^2``, as
    :func:`~._verdicts.effective_counts` scales a group; with `cells`, the rate's own
    effective size from the rest's pooled squared weights, see ``effective_fraction``),
    so that ``x2 / m2`` is the rest's rate as weighted, and the group's share ``w`` of
    the rate's weighted denominator (see ``_summary_bounds._to_overall``).
    """

    def rest(name: str) -> pl.Expr:
        column = pl.col(name)
        return column.sum() - column.filter(keep).get(i)

    if cells:  # the rate's own effective size, from the rest's pooled cells
        m_rest = rest("__pf_mraw")
        whole = m_rest * kish_factor(rest("__pf_gn"), rest("__pf_gw2"))  # at 0 or 1
        size = effective_size(rest("__pf_xraw"), m_rest, rest("__pf_sx"), rest("__pf_so"), whole)
        scale = pl.when(m_rest > 0).then(size / m_rest).otherwise(0.0)
    else:
        scale = kish_factor(rest("__pf_nraw"), rest("__pf_w2"))
    mraw = pl.col("__pf_mraw")
    share = safe_div(mraw.filter(keep).get(i), mraw.sum())
    return rest("__pf_xraw") * scale, rest("__pf_mraw") * scale, share


def _range_pairs(cols: dict[str, str], other: dict[str, str]) -> list[pl.Expr]:
    """The pick of ``average_abs_odds_difference`` between groups: two extreme pairs.

    Its value is the mean of the TPR range and the FPR range, each between its own
    extreme groups (``v``, ``vb``; a group without one of the rates is left out of
    that range only): ``x1, m1, x2, m2`` are the TPR pair's, ``xb1, mb1, xb2, mb2``
    the FPR pair's; the groups named are those of the larger range (the TPR's on a
    tie), as a worst-case composite names its worst part's.
    """
    label = pl.col(LABEL)
    pairs = []
    for v in (pl.col("__pf_v"), pl.col("__pf_vb")):
        vt = tied(v)
        top_label = label.filter(vt == vt.max()).min()  # ties as in the other picks
        bottom_label = label.filter(vt == vt.min()).max()
        pairs.append(((label == top_label).arg_max(), (label == bottom_label).arg_max()))
    (t_top, t_bottom), (f_top, f_bottom) = pairs
    t_range = pl.col("__pf_v").max() - pl.col("__pf_v").min()
    f_range = pl.col("__pf_vb").max() - pl.col("__pf_vb").min()
    tpr_named = t_range.fill_null(-1.0) >= f_range.fill_null(-1.0)
    aggs = []
    for side, (t_index, f_index) in ((cols, (t_top, f_top)), (other, (t_bottom, f_bottom))):
        for k, src in side.items():
            if k.startswith(("xb", "mb")):  # the FPR pair's counts
                aggs.append(pl.col(src).get(f_index).alias(f"__pf_{k}"))
            elif k.startswith(("x", "m")):  # the TPR pair's counts
                aggs.append(pl.col(src).get(t_index).alias(f"__pf_{k}"))
            else:  # the groups named: the larger range's
                named = pl.col(src).get(t_index), pl.col(src).get(f_index)
                aggs.append(
                    pl.when(tpr_named).then(named[0]).otherwise(named[1]).alias(f"__pf_{k}")
                )
    aggs.append(((t_range + f_range) / 2).alias("__pf_dist"))
    return aggs


def worst_pick(
    picks: list[pl.LazyFrame],
    by: list[str],
    *,
    with_extremes: bool,
    parts: list[list[pl.Expr]] | None = None,
) -> pl.LazyFrame:
    """Of several measures' picks, the one farthest from the ideal (per key).

    `with_extremes`: the picks have the :data:`EXTREMES` columns. `parts`: each
    part's distance bounds (:func:`~._summary_bounds.part_distances`), combined as
    ``__pf_plow``, ``__pf_phigh`` (the largest of each; none when a part with a value
    has no interval).
    """
    if len(picks) == 1:
        return picks[0]
    tagged = [p.with_columns(pl.lit(i).alias("__pf_part")) for i, p in enumerate(picks)]
    stacked = pl.concat(tagged, how="vertical")
    combined: list[pl.Expr] = []
    if parts is not None:
        for stage in parts:  # the part's distance bounds, `__pf_plow` and `__pf_phigh`
            stacked = stacked.with_columns(stage)
        valued = pl.col("__pf_dist").is_not_null()
        for k in ("plow", "phigh"):
            bound = pl.col(f"__pf_{k}")
            lost = (valued & bound.is_null()).any()
            combined.append(pl.when(~lost).then(bound.filter(valued).max()).alias(f"__pf_{k}"))
    # the largest distance; ties (and nulls) go to the first measure
    order = tied(pl.col("__pf_dist")).fill_null(-1.0)
    best = stacked.sort([*by, "__pf_part"], nulls_last=True)
    aggs = [pl.col(f"__pf_{k}").get(order.arg_max()) for k in PICK] + combined
    if with_extremes:  # the lowest and highest comparison over every part
        low = tied(pl.col("__pf_lowest")).fill_null(float("inf")).arg_min()
        high = tied(pl.col("__pf_highest")).fill_null(float("-inf")).arg_max()
        aggs += [pl.col(f"__pf_{k}").get(low) for k in EXTREMES[:3]]
        aggs += [pl.col(f"__pf_{k}").get(high) for k in EXTREMES[3:]]
    return per_key(best, aggs, by)


def statistic_from_pair(name: str) -> tuple[tuple[pl.Expr, ...], ...]:
    """Cohen's d or the 2-SD z of the picked pair (effective counts of selection).

    ``with_columns`` stages, the last giving ``value``: the proportions, the pooled
    parts and the statistic each computed once as a column (the nested expression
    repeats them, and plans in several times the time).
    """
    pair = ("__pf_x1", "__pf_m1", "__pf_x2", "__pf_m2")
    return statistic_stages(name, pair, temp="__pf_s", out="value")


def statistic_stages(
    name: str, columns: tuple[str, str, str, str], *, temp: str, out: str
) -> tuple[tuple[pl.Expr, ...], ...]:
    """Stages computing Cohen's d or the 2-SD z of ``x1 / n1`` against ``x2 / n2``.

    `columns` names ``x1, n1, x2, n2``; the stages add columns `temp` + ``p1``,
    ``p2``, ``a``, ``b`` (``c``), the last stage the statistic as `out`.
    """
    x1, n1, x2, n2 = (pl.col(c) for c in columns)
    p1, p2, a, b, c = (pl.col(f"{temp}{k}") for k in ("p1", "p2", "a", "b", "c"))
    first = (safe_div(x1, n1).alias(f"{temp}p1"), safe_div(x2, n2).alias(f"{temp}p2"))
    if name == "cohen_d":
        dof = (n1 + n2 - 2).alias(f"{temp}a")  # the degrees of freedom
        pooled = safe_div((n1 - 1) * p1 * (1 - p1) + (n2 - 1) * p2 * (1 - p2), a)
        value: pl.Expr = pl.when(a > 0).then(safe_div(p1 - p2, b.sqrt()))
        stages = [(*first, dof), (pooled.alias(f"{temp}b"),)]
    else:
        total = (n1 + n2).alias(f"{temp}a")
        pooled_rate = safe_div(x1 + x2, a).alias(f"{temp}b")
        se = safe_div(b * (1 - b) * a, n1 * n2).sqrt().alias(f"{temp}c")
        value = safe_div(p1 - p2, c)
        stages = [(*first, total), (pooled_rate,), (se,)]
    return (*stages, (value.cast(pl.Float64).alias(out),))
