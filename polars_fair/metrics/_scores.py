"""Score metrics from the score histograms of :mod:`polars_fair.reduce.scores`.

Calibration tables and gaps, exact ROC curves and AUC, ABROCA and threshold
sweeps. Everything here is a Polars plan over a small table (one row per group and
bin, threshold or distinct score); nothing reads rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_fair._utils import check_in_plan, over, per_key, show_groups, warn_data
from polars_fair.exceptions import UndefinedMetricWarning
from polars_fair.metrics._rates import safe_div
from polars_fair.metrics._reference import is_reference, require_reference
from polars_fair.metrics._tables import rates_table

__all__ = [
    "abroca_table",
    "calibration_difference_table",
    "calibration_table",
    "ece_table",
    "roc_auc_table",
    "trapezoid_auc",
    "roc_curve_table",
    "sweep_table",
]

_REF = "__pf_is_ref"
#: Where the one-class warning names what follows for the groups (see `warn_one_class`).
NO_ROC_CURVE = "so they have no ROC curve: "


def calibration_table(hist: pl.LazyFrame, *, keys: list[str], edges: np.ndarray) -> pl.LazyFrame:
    """Per group and non-empty bin: bounds, ``n``, mean score, fraction positive, gap."""
    bounds = pl.LazyFrame(
        {"bin": np.arange(edges.size - 1), "bin_low": edges[:-1], "bin_high": edges[1:]},
        schema={"bin": pl.Int64, "bin_low": pl.Float64, "bin_high": pl.Float64},
    )
    mean_prob = safe_div(pl.col("sum_prob"), pl.col("n"))
    fraction = safe_div(pl.col("pos"), pl.col("n"))
    return (
        hist.filter(pl.col("n") > 0)
        .join(bounds, on="bin", how="left")
        .select(
            *keys,
            "bin",
            "bin_low",
            "bin_high",
            "n",
            mean_prob.alias("mean_prob"),
            fraction.alias("fraction_positive"),
            (fraction - mean_prob).abs().alias("calibration_gap"),
        )
        .sort([*keys, "bin"], nulls_last=True)
    )


def ece_table(calibration: pl.LazyFrame, *, keys: list[str]) -> pl.LazyFrame:
    """Expected calibration error per group: bin gaps weighted by bin size."""
    n = pl.col("n").cast(pl.Float64)
    ece = (n * pl.col("calibration_gap")).sum() / n.sum()
    return (
        calibration.group_by(keys)
        .agg(ece.alias("expected_calibration_error"))
        .sort(keys, nulls_last=True)
    )


def _group_reference(
    table: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
) -> pl.LazyFrame:
    """Per group (``by`` and sensitive keys): total ``n`` and the reference flag."""
    keys = [*by, *sensitive]
    groups = table.group_by(keys).agg(pl.col("n").sum()).filter(pl.col("n") > 0)
    groups = groups.sort(keys, nulls_last=True)
    if isinstance(reference, tuple):
        groups = require_reference(groups, reference, sensitive, by)
    return groups.select(*keys, is_reference(reference, sensitive, by).alias(_REF))


def calibration_difference_table(
    calibration: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    min_bin_size: float,
    name: str,
) -> pl.LazyFrame:
    """The largest |fraction positive gap| to the reference over shared, large-enough bins."""
    keys = [*by, *sensitive]
    calibration = calibration.cache()  # read twice below: computed once
    flags = _group_reference(calibration, by=by, sensitive=sensitive, reference=reference)
    big = pl.col("n") >= min_bin_size
    frac = pl.col("fraction_positive")
    table = calibration.join(flags, on=keys, how="left", nulls_equal=True).with_columns(
        over(frac.filter(pl.col(_REF) & big).first(), [*by, "bin"]).alias("__pf_ref_frac")
    )
    gap = (frac - pl.col("__pf_ref_frac")).abs()
    value = gap.filter(~pl.col(_REF) & big).max().cast(pl.Float64).alias(name)
    return per_key(table, value, by)


def _scored(roc: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of a ROC table that hold evaluated rows (not only excluded ones)."""
    return roc.filter(pl.col("score").is_not_null() & (pl.col("n") > 0))


def roc_curve_table(roc: pl.LazyFrame, *, keys: list[str]) -> pl.LazyFrame:
    """ROC points per group: ``threshold, fpr, tpr``, starting at (+inf, 0, 0).

    `roc` is sorted by score ascending within each group (as :func:`roc_stats` and
    :func:`merge_group_stats` leave it); the reverse cumulative sums of positives
    and negatives are the true and false positives at each threshold, and the points
    are listed from the highest threshold down.
    """
    roc = _scored(roc).cache()  # read twice below: computed once
    tps = pl.col("pos").cum_sum(reverse=True).over(keys)
    fps = pl.col("neg").cum_sum(reverse=True).over(keys)
    points = roc.select(
        *keys,
        pl.col("score").alias("threshold"),
        tps.alias("__pf_tps"),
        fps.alias("__pf_fps"),
        pl.int_range(pl.len(), 0, -1).over(keys).alias("__pf_i"),
    )
    zero = pl.lit(0).cast(roc.collect_schema()["pos"])
    start = (
        roc.select(keys)
        .unique()
        .with_columns(
            pl.lit(float("inf")).alias("threshold"),
            zero.alias("__pf_tps"),
            zero.alias("__pf_fps"),
            pl.lit(0, dtype=pl.Int64).alias("__pf_i"),
        )
    )
    curve = pl.concat([start, points.with_columns(pl.col("__pf_i").cast(pl.Int64))])
    total_p = pl.col("__pf_tps").max().over(keys)
    total_n = pl.col("__pf_fps").max().over(keys)
    return (
        curve.sort([*keys, "__pf_i"], nulls_last=True)
        .with_columns(
            safe_div(pl.col("__pf_fps"), total_n).alias("fpr"),
            safe_div(pl.col("__pf_tps"), total_p).alias("tpr"),
        )
        .select(*keys, "threshold", "fpr", "tpr")
    )


def warn_one_class(roc: pl.LazyFrame, *, keys: list[str], outcome: str) -> pl.LazyFrame:
    """Warn (eager path) naming the groups whose labels hold one class: no ROC curve.

    Their AUC is null and ABROCA leaves them out; without a word, a criterion over
    two groups of which one has a single class came back None with no reason given.
    """

    def check(df: pl.DataFrame) -> None:
        sums = df.group_by(keys, maintain_order=True).agg(pl.col("pos", "neg").sum())
        bad = sums.filter((pl.col("pos") == 0) | (pl.col("neg") == 0)).select(keys).rows()
        if bad:
            msg = (
                f"groups {show_groups(bad)} have labels of one class only (no positives or no "
                f"negatives), {NO_ROC_CURVE}{outcome}"
            )
            warn_data(msg, UndefinedMetricWarning)

    return check_in_plan(roc, check)


def trapezoid_auc() -> pl.Expr:
    """The AUC of one group's ``pos, neg`` per score, sorted ascending: an aggregation.

    ``sum neg_i (tps_{i-1} + tps_i) / (2 P N)``, ``tps_i`` the positives scored at or
    above score ``i``; null for a group of one label class.
    """
    pos = pl.col("pos").cast(pl.Float64)
    neg = pl.col("neg").cast(pl.Float64)
    tps = pos.cum_sum(reverse=True)
    return safe_div((neg * (2 * tps - pos)).sum(), 2 * pos.sum() * neg.sum())


def roc_auc_table(roc: pl.LazyFrame, *, keys: list[str]) -> pl.LazyFrame:
    """Exact AUC per group from counts: ``sum neg_i (tps_{i-1} + tps_i) / (2 P N)``.

    Tied scores contribute half (the trapezoid), as :func:`sklearn.metrics.roc_auc_score`.
    `roc` is sorted by score ascending within each group: ``tps_i`` is the reverse
    cumulative sum (the positives scored at or above score ``i``).
    """
    return (
        roc.group_by(keys, maintain_order=True)
        .agg(trapezoid_auc().alias("roc_auc"))
        .sort(keys, nulls_last=True)
    )


def abroca_table(
    roc: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    name: str,
) -> pl.LazyFrame:
    """The largest exact area between a group's ROC curve and the reference's.

    Each curve is piecewise linear in the false positive rate (vertical where only
    positives share a score). On the union of both curves' breakpoints, each curve
    has a left value (entering the breakpoint) and a right value (leaving it); on
    each interval the difference of the curves is linear, and its absolute value is
    integrated exactly (a sign change inside an interval splits it in two triangles).
    Groups without positives or negatives (no ROC curve) are left out.
    """
    keys = [*by, *sensitive]
    roc = roc.cache()  # read twice below (reference flags, curves): computed once
    flags = _group_reference(roc, by=by, sensitive=sensitive, reference=reference)
    curve = roc_curve_table(roc, keys=keys)
    f = pl.col("fpr")
    points = (
        curve.filter(f.is_not_null() & pl.col("tpr").is_not_null())
        .group_by(*keys, "fpr")
        .agg(pl.col("tpr").min().alias("__pf_lo"), pl.col("tpr").max().alias("__pf_hi"))
        .join(flags, on=keys, how="left", nulls_equal=True)
    )
    ref = points.filter(pl.col(_REF)).select(
        *by, "fpr", pl.col("__pf_lo").alias("__pf_r_lo"), pl.col("__pf_hi").alias("__pf_r_hi")
    )
    others = points.filter(~pl.col(_REF)).drop(_REF)
    pairs = others.select(keys).unique()
    ref_per_group = (
        pairs.join(ref, on=by, how="inner", nulls_equal=True)
        if by
        else (pairs.join(ref, how="cross"))
    )
    grid = others.join(ref_per_group, on=[*keys, "fpr"], how="full", coalesce=True,
                       nulls_equal=True).sort([*keys, "fpr"], nulls_last=True)  # fmt: skip

    def sides(lo: str, hi: str) -> tuple[pl.Expr, pl.Expr]:
        known = pl.col(hi).is_not_null()
        f_prev = pl.when(known).then(f).forward_fill().over(keys)
        t_prev = pl.col(hi).forward_fill().over(keys)
        f_next = pl.when(known).then(f).backward_fill().over(keys)
        t_next = pl.col(lo).backward_fill().over(keys)
        interp = t_prev + (t_next - t_prev) * safe_div(f - f_prev, f_next - f_prev).fill_null(0)
        return (
            pl.when(known).then(pl.col(lo)).otherwise(interp),
            pl.when(known).then(pl.col(hi)).otherwise(interp),
        )

    g_left, g_right = sides("__pf_lo", "__pf_hi")
    r_left, r_right = sides("__pf_r_lo", "__pf_r_hi")
    table = grid.with_columns(
        (g_left - r_left).alias("__pf_dl"), (g_right - r_right).alias("__pf_dr")
    )
    d0 = pl.col("__pf_dr")
    d1 = pl.col("__pf_dl").shift(-1).over(keys)
    h = f.shift(-1).over(keys) - f
    a0, a1 = d0.abs(), d1.abs()
    piece = (
        pl.when(d0 * d1 >= 0)
        .then(h * (a0 + a1) / 2)
        .otherwise(h * (d0 * d0 + d1 * d1) / (2 * (a0 + a1)))
    )
    areas = table.group_by(keys).agg(piece.sum().alias("__pf_area"))
    value = pl.col("__pf_area").max().cast(pl.Float64).alias(name)
    if by:
        full = flags.select(by).unique()
        return full.join(areas.group_by(by).agg(value), on=by, how="left", nulls_equal=True).sort(
            by, nulls_last=True
        )
    return areas.select(value)


def sweep_table(
    hist: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    thresholds: np.ndarray,
    zero_division: float | None,
) -> pl.LazyFrame:
    """Counts and rates at every threshold, from per-interval counts by cumulative sums."""
    keys = [*by, *sensitive]
    hist = hist.cache()  # read twice below: computed once
    names = hist.collect_schema()
    labelled = "pos" in names
    # k = 0..T: k thresholds at or below the score (k = T: above every threshold)
    grid = pl.LazyFrame(
        {"k": np.arange(thresholds.size + 1), "threshold": [*thresholds.tolist(), None]},
        schema={"k": pl.Int64, "threshold": pl.Float64},
    )
    full = hist.select(keys).unique().join(grid, how="cross")
    cols = ["n", "pos", "neg"] if labelled else ["n"]
    table = (
        full.join(hist, on=[*keys, "k"], how="left", nulls_equal=True)
        .with_columns(pl.col(cols).fill_null(0))
        .sort([*keys, "k"], nulls_last=True)
    )
    # at threshold k: rows with k' <= k are predicted negative, rows with k' > k positive;
    # both are direct sums (never total minus a part: weighted sums must not cancel)

    def below(c: str) -> pl.Expr:
        return pl.col(c).cum_sum().over(keys)

    def above(c: str) -> pl.Expr:
        return pl.col(c).cum_sum(reverse=True).shift(-1, fill_value=0).over(keys)

    n = pl.col("n").sum().over(keys).alias("n")
    if labelled:
        counts = [
            n,
            above("pos").alias("tp"),
            above("neg").alias("fp"),
            below("pos").alias("fn"),
            below("neg").alias("tn"),
        ]
    else:
        counts = [n, above("n").alias("pred_pos"), below("n").alias("pred_neg")]
    stats = table.select(*keys, "threshold", *counts).filter(pl.col("threshold").is_not_null())
    rated = rates_table(stats, by=[*by, "threshold"], zero_division=zero_division)
    return rated.sort([*keys, "threshold"], nulls_last=True)


def auc_error_bound(roc: pl.DataFrame, keys: list[str], *, binned: bool) -> pl.DataFrame:
    """The largest error score bins can cause in each group's AUC (0 with exact scores).

    `roc` is a (binned) ROC histogram: ``keys…, score, pos, neg`` per score. Within
    a bin the order of a positive and a negative is unknown: at most half the
    share of (positive, negative) pairs that share a bin.

    >>> import polars as pl
    >>> roc = pl.DataFrame({"g": ["a", "a"], "score": [0.1, 0.5], "pos": [0, 2], "neg": [1, 1]})
    >>> auc_error_bound(roc, ["g"], binned=True)["auc_error_bound"].to_list()
    [0.25]
    """
    roc = roc.filter(pl.col("score").is_not_null())
    if not binned:
        return roc.group_by(keys).agg(pl.lit(0.0).alias("auc_error_bound")).sort(keys)
    pairs = (pl.col("pos") * pl.col("neg")).sum()
    bound = 0.5 * pairs / (pl.col("pos").sum() * pl.col("neg").sum())
    return (
        roc.group_by(keys)
        .agg(bound.cast(pl.Float64).alias("auc_error_bound"))
        .sort(keys, nulls_last=True)
    )
