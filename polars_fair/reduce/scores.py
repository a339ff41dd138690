"""Score reductions: per-group histograms of a score, in one ``group_by`` pass.

The confusion-count table of :mod:`polars_fair.reduce` summarises hard predictions.
Metrics of a *score* need the score's distribution per group and class; these
reductions produce it, still as small additive tables (sums of counts and scores
per group and bin), so they stream and merge like the statistics table:

* :func:`calibration_stats`: per group and calibration bin, the rows, positives
  and score sum;
* :func:`threshold_stats`: per group and threshold interval, the positives and
  negatives, from which every rate at every threshold follows by cumulative sums;
* :func:`roc_stats`: per group and *distinct score*, the positives and negatives.
  This is exact (no binning), so its size grows with the number of distinct scores;
  ROC curves and AUC then need a sort within each group, on this table, not the data.

Scores must lie in [0, 1] (checked inside the plan on the partial table, like the
labels); rows with a null label, score or weight are excluded and counted in ``n_null``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from polars_fair._utils import check_in_plan
from polars_fair._validate import check_at_most
from polars_fair.exceptions import InvalidParameterError
from polars_fair.reduce import _SMAX, _SMIN, _W2SUM, SCORE_SUM, Inputs, resolve_inputs

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "bin_edges",
    "bin_index",
    "calibration_stats",
    "check_thresholds",
    "roc_stats",
    "score_histograms",
    "threshold_stats",
]


#: The most calibration bins (each is a row per group of the calibration table).
MAX_BINS = 10_000


def bin_edges(n_bins: int = 10, bins: Sequence[float] | None = None) -> np.ndarray:
    """The calibration bin edges: uniform over [0, 1], or checked explicit edges."""
    if bins is None:
        if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
            msg = f"`n_bins` must be a positive integer, got {n_bins!r}\n\nHint: e.g. `n_bins=10`"
            raise InvalidParameterError(msg)
        check_at_most(
            int(n_bins), "n_bins", MAX_BINS, "calibration bins each need rows: e.g. `n_bins=10`"
        )
        return np.linspace(0.0, 1.0, int(n_bins) + 1)
    edges = np.asarray(bins, dtype=np.float64)
    ok = (
        edges.ndim == 1
        and edges.size >= 2
        and edges[0] == 0.0
        and edges[-1] == 1.0
        and bool(np.all(np.diff(edges) > 0))
    )
    if not ok:
        msg = (
            f"`bins` must be strictly increasing edges from 0 to 1, got {list(bins)!r}"
            "\n\nHint: e.g. `bins=[0, 0.2, 0.5, 1]`, or give `n_bins` for uniform bins"
        )
        raise InvalidParameterError(msg)
    return edges


#: Up to this many interior edges, :func:`bin_index` counts the edges below the score
#: with one comparison each (vectorised, ~4 ms per edge per 10^7 rows), otherwise it
#: searches them (``search_sorted`` on a literal: ~27 ns per row, whatever the edges).
_COMPARED_EDGES = 32


def bin_index(score: pl.Expr, edges: np.ndarray) -> pl.Expr:
    """
    The calibration bin of `score` (Int64): the number of interior edges below it.

    Bin ``b`` holds ``(edges[b], edges[b + 1]]`` (the first also ``edges[0]``). It
    equals ``search_sorted(edges[1:-1], score, side="left")`` on every value (a null
    score falls in bin 0, NaN, greater than every number in Polars, in the last), but
    with few bins it is computed as a sum of comparisons, ~7x faster (a profile's
    score histograms use it).

    Examples
    --------
    >>> import numpy as np
    >>> import polars as pl
    >>> from polars_fair.reduce.scores import bin_index
    >>> df = pl.DataFrame({"s": [0.0, 0.5, 0.50001, 1.0, None]})
    >>> df.select(bin_index(pl.col("s"), np.array([0, 0.5, 1])))["s"].to_list()
    [0, 0, 1, 1, 0]
    """
    interior = [float(e) for e in edges[1:-1]]
    if 0 < len(interior) <= _COMPARED_EDGES:
        return pl.sum_horizontal([score > e for e in interior]).cast(pl.Int64)
    series = pl.Series("edges", interior, dtype=pl.Float64)
    return pl.lit(series).search_sorted(score, side="left").cast(pl.Int64)


def check_thresholds(thresholds: Sequence[float] | None) -> np.ndarray:
    """Sorted, distinct, finite thresholds (default: 0, 0.01, ..., 1)."""
    if thresholds is None:
        return np.linspace(0.0, 1.0, 101)
    values = np.asarray(thresholds, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        msg = (
            f"`thresholds` must be a non-empty list of finite numbers, got {thresholds!r}"
            "\n\nHint: e.g. `thresholds=[0.3, 0.5, 0.7]`"
        )
        raise InvalidParameterError(msg)
    if np.any(np.diff(values) <= 0):
        msg = (
            f"`thresholds` must be strictly increasing, got {list(thresholds)!r}"
            "\n\nHint: sort them and drop duplicates, e.g. `sorted(set(thresholds))`"
        )
        raise InvalidParameterError(msg)
    return values


def _inputs(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: IntoColumn | None,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None,
    sample_weight: IntoColumn | None,
    pos_label: PosLabel,
) -> Inputs:
    return resolve_inputs(
        frame, y_true=y_true, y_pred=None, sensitive_features=sensitive_features, by=by,
        sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob, family="scores",
    )  # fmt: skip


def _histogram(
    inp: Inputs, key: pl.Expr, name: str, with_sum: bool, squares: bool = False
) -> pl.LazyFrame:
    """Counts per (keys, `key`): ``n``, with labels ``pos, neg``, ``sum_prob``, ``n_null``.

    Rows excluded for a null label, score or weight are counted in ``n_null`` (in
    whatever bin their null score falls); metrics keep the rows with ``n > 0``.
    `squares` (a ROC table): with weights, also ``pos_w2, neg_w2`` after ``neg``.
    """
    partial = inp.lf.group_by(*inp.keys, *inp.label_keys, key.alias(name)).agg(inp.partial_aggs())
    return _totals(inp, check_in_plan(partial, inp.checker()), pl.col(name), with_sum, squares)


def _totals(
    inp: Inputs, partial: pl.LazyFrame, key: pl.Expr, with_sum: bool, squares: bool = False
) -> pl.LazyFrame:
    """The second stage of :func:`_histogram`: the partial table summed per (keys, `key`).

    ``pos_w2, neg_w2`` (`squares`, with weights) sum the squared weights of the rows
    ``pos, neg`` count, under the same null rules.
    """
    total = inp.total
    aggs = [total(pl.lit(True)).alias("n")]
    if inp.labels:
        yt = inp.positive("y_true")
        aggs += [total(yt).alias("pos"), total(~yt).alias("neg")]
        if squares and inp.weight is not None:
            w2 = pl.col(_W2SUM)
            aggs += [total(yt, w2).alias("pos_w2"), total(~yt, w2).alias("neg_w2")]
    if with_sum:
        aggs.append(total(pl.lit(True), pl.col(SCORE_SUM)).alias("sum_prob"))
    aggs.append(inp.null_rows().alias("n_null"))
    return partial.group_by(*inp.keys, key).agg(aggs)


def calibration_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    edges: np.ndarray,
) -> pl.LazyFrame:
    """
    Per (keys, bin): ``n, pos, neg, sum_prob, n_null``.

    Bin ``b`` holds the scores in ``(edges[b], edges[b + 1]]`` (the first bin also
    holds ``edges[0]``), exactly :func:`sklearn.calibration.calibration_curve`'s
    binning. One pass; the table is additive.

    Examples
    --------
    >>> import numpy as np
    >>> import polars as pl
    >>> from polars_fair.reduce.scores import calibration_stats
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "s": [0.9, 0.5, 0.5]})
    >>> calibration_stats(
    ...     df, y_true="y", y_prob="s", sensitive_features="g", edges=np.array([0, 0.5, 1])
    ... ).collect()
    shape: (3, 7)
    ┌─────┬─────┬─────┬─────┬─────┬──────────┬────────┐
    │ g   ┆ bin ┆ n   ┆ pos ┆ neg ┆ sum_prob ┆ n_null │
    │ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---      ┆ ---    │
    │ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64      ┆ i64    │
    ╞═════╪═════╪═════╪═════╪═════╪══════════╪════════╡
    │ a   ┆ 0   ┆ 1   ┆ 0   ┆ 1   ┆ 0.5      ┆ 0      │
    │ a   ┆ 1   ┆ 1   ┆ 1   ┆ 0   ┆ 0.9      ┆ 0      │
    │ b   ┆ 0   ┆ 1   ┆ 1   ┆ 0   ┆ 0.5      ┆ 0      │
    └─────┴─────┴─────┴─────┴─────┴──────────┴────────┘
    """
    inp = _inputs(frame, y_true, y_prob, sensitive_features, by, sample_weight, pos_label)
    assert inp.score is not None
    # search_sorted rather than `bin_index`: the same bins, but with it a streaming
    # collect sums the scores in a fixed order, so repeated runs agree to the bit
    interior = pl.Series("edges", edges[1:-1], dtype=pl.Float64)
    key = pl.lit(interior).search_sorted(inp.score, side="left").cast(pl.Int64)
    return _histogram(inp, key, "bin", with_sum=True).sort([*inp.keys, "bin"], nulls_last=True)


def threshold_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn | None,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    thresholds: np.ndarray,
) -> pl.LazyFrame:
    """
    Per (keys, ``k``): ``n`` (and ``pos, neg`` with `y_true`), ``n_null``.

    ``k`` is the number of thresholds at or below the score, so a row is predicted
    positive at threshold ``thresholds[j]`` (``score >= threshold``) exactly when
    ``k > j``. One pass; cumulative sums over ``k`` give every threshold.
    """
    inp = _inputs(frame, y_true, y_prob, sensitive_features, by, sample_weight, pos_label)
    assert inp.score is not None
    grid = pl.Series("thresholds", thresholds, dtype=pl.Float64)
    key = pl.lit(grid).search_sorted(inp.score, side="right").cast(pl.Int64)
    return _histogram(inp, key, "k", with_sum=False).sort([*inp.keys, "k"], nulls_last=True)


def roc_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
) -> pl.LazyFrame:
    """
    Per (keys, distinct score): ``n, pos, neg, n_null``, sorted by keys then score.

    With `sample_weight` the counts are weight sums, and ``pos_w2, neg_w2`` (after
    ``neg``) the sums of the squared weights of the positives and negatives: each
    class's Kish effective size, for DeLong's variance of a weighted AUC. One pass;
    the table has one row per distinct score per group (exact ROC), and a null score
    row (last) holding the rows excluded for a null score. The order is the order of
    :func:`~polars_fair.reduce.merge_group_stats`, so tables of disjoint parts,
    summed, are ready for the same derivations.
    """
    inp = _inputs(frame, y_true, y_prob, sensitive_features, by, sample_weight, pos_label)
    assert inp.score is not None
    hist = _histogram(inp, inp.score, "score", with_sum=False, squares=True)
    return hist.sort([*inp.keys, "score"], nulls_last=True)


_FINE = "__pf_fine_bin"


def score_histograms(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    edges: np.ndarray,
    score_bins: int,
    check_range: bool = True,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """
    The calibration table and the binned ROC table of a profile, from one ``group_by``.

    (A profile now takes them, with its statistics tables, from the single
    ``group_by`` of :func:`polars_fair.reduce.fused.fused_tables`.)

    The first is :func:`calibration_stats` with `edges`; the second is
    :func:`roc_stats` of the score rounded down to ``score_bins`` equal-width bins,
    ``floor(s * score_bins) / score_bins``. Both are sums of one partial table
    grouped by (keys, labels, calibration bin, fine bin): the two bins are computed
    each from the score itself, so the counts (with weights, the ROC table's
    ``pos_w2, neg_w2`` too) are exactly those of the two reductions (a fine bin can straddle a calibration edge, e.g. 0.1 is in
    calibration bin 0 but in the fine bin starting at 0.1: coarsening fine bins
    would move it); only the order of summation of ``sum_prob`` differs. Collect
    both together (``pl.collect_all``): the partial table is computed once.

    ``check_range=False`` leaves out the check that the scores lie in [0, 1] (the
    per-group minimum and maximum: half the cost of this ``group_by``, whose groups
    are as many as the score bins) for a caller that checks them in the same
    collection, as a profile does in its statistics table; labels and weights are
    still checked (a NaN score is left to the caller too).

    Examples
    --------
    >>> import numpy as np
    >>> import polars as pl
    >>> from polars_fair.reduce.scores import score_histograms
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "s": [0.1, 0.15, 0.5]})
    >>> cal, roc = score_histograms(df, y_true="y", y_prob="s", sensitive_features="g",
    ...                             edges=np.linspace(0, 1, 11), score_bins=10)
    >>> cal.collect()["bin"].to_list(), roc.collect()[["score", "n"]].rows()
    ([0, 1, 4], [(0.1, 2), (0.5, 1)])
    """
    inp = _inputs(frame, y_true, y_prob, sensitive_features, by, sample_weight, pos_label)
    assert inp.score is not None
    # one Int64 key per (fine bin, calibration bin): hashing one integer instead of
    # a float and an integer is ~30% faster; a null score (and a NaN, which fails the
    # check through its NaN score sum anyway) gives a null key
    n_cal = len(edges) - 1
    fine = (inp.score * score_bins).floor().cast(pl.Int64, strict=False)
    code = (fine * n_cal + bin_index(inp.score, edges)).alias(_FINE)
    aggs = inp.partial_aggs()
    if not check_range:  # the checker then reads neither the minimum nor the maximum
        skip = {_SMIN, _SMAX}
        aggs = [a for a in aggs if a.meta.output_name() not in skip]
        inp = dataclasses.replace(inp, score_name=None)
    partial = inp.lf.group_by(*inp.keys, *inp.label_keys, code).agg(aggs)
    partial = check_in_plan(partial, inp.checker()).cache()
    cal_bin = (pl.col(_FINE) % n_cal).fill_null(0).alias("bin")  # null score: bin 0
    cal = _totals(inp, partial, cal_bin, with_sum=True)
    # k / score_bins, with k = floor(s * score_bins) exact as an integer: the same
    # float as floor(s * score_bins) / score_bins
    score = ((pl.col(_FINE) // n_cal).cast(pl.Float64) / score_bins).alias("score")
    roc = _totals(inp, partial, score, with_sum=False, squares=True)
    return (
        cal.sort([*inp.keys, "bin"], nulls_last=True),
        roc.sort([*inp.keys, "score"], nulls_last=True),
    )
