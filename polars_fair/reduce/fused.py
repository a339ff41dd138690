"""A scored profile's four reductions from one ``group_by`` over the rows.

A profile with a score keeps four tables: the statistics table with the score's sums
(``group_stats(..., y_prob=)``), the statistics table without them (the report's
confusion-count criteria: a row with a null score still counts there), the
calibration histogram and the binned ROC histogram (:func:`.scores.score_histograms`).
Each is a sum over rows, so all four are sums of one *partial table*, grouped by the
keys, both raw labels and one Int64 code per (fine score bin, calibration bin), with
every additive sum any of them needs: rows, weight sums, sums of squared weights,
score sums and sums of squared scores. The partial table has at most a few rows per
(group, fine bin); the four tables are small ``group_by``s of it (:func:`fused_tables`).
With the default uniform calibration bins the rows are grouped by a cheaper Int32
code, the fine bin and one bit, which gives the calibration bin exactly; the partial
table's code is then read from a lookup table (:func:`_row_code`).

**Null rules.** Each table keeps its own: the statistics table without the score
excludes a row for a null label or weight, the others also for a null score, and the
histograms read only ``y_true``. The code is null exactly when the score is null or NaN
(a NaN score of a counted row fails the check through its score sum), so the rows a
null score excludes are those of the partial rows with a null code.

**Score range.** The code also says whether a score lies outside [0, 1]: the fine bin
``floor(s * score_bins)`` (clipped, so an infinite score keeps a code) is negative
exactly when ``s < 0``, and the calibration part counts ``s > 1`` as one more edge. No
per-group minimum or maximum is computed (they would cost as much as the sums); the
error, which names the smallest and largest score, reads them from the rows on that
path only (:func:`score_range_error`).

**Float sums.** Counts are exact (integers, or sums of the same weights); weight and
score sums are summed in another order than by separate reductions (per fine bin first),
so they may differ from them in the last bits, as any two parallel or streaming runs of
one reduction may (summing like-sized per-bin sums first is, if anything, more accurate:
see benches/README.md, "Scored profile, one read").
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from polars_fair._numeric import bad_weight_aggs
from polars_fair._utils import check_in_plan
from polars_fair._validate import MSG_SCORE_VALUES, resolve_column
from polars_fair.exceptions import ValueRangeError
from polars_fair.reduce import (
    _MISSING,
    _ROWS,
    _S2SUM,
    _SSUM,
    _W2SUM,
    _WSUM,
    Inputs,
    _counts,
    resolve_inputs,
)
from polars_fair.reduce.scores import bin_index

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = ["ScoreOutOfRange", "fused_tables", "score_range_error"]

_CODE = "__pf_code"
_WNULL = "__pf_wnull"


class ScoreOutOfRange(Exception):  # noqa: N818 - internal signal, never seen by users
    """Raised in the plan when a score lies outside [0, 1] (see :func:`score_range_error`)."""


def fused_tables(
    frame: pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    y_prob: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | None,
    sample_weight: IntoColumn | None,
    pos_label: PosLabel,
    edges: np.ndarray,
    score_bins: int,
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    """
    The statistics tables with and without the score, calibration and binned ROC tables.

    And a fifth plan: the number of rows read (one row, ``rows``).

    Equal, counts exactly and float sums to rounding, to ``group_stats`` with and
    without `y_prob` and to :func:`.scores.score_histograms`; all four derive from
    one cached partial table, so collected together (``pl.collect_all``) they read
    the rows once. A score outside [0, 1] raises :class:`ScoreOutOfRange` when the
    plan runs (the caller words the error with :func:`score_range_error`).

    Examples
    --------
    >>> import numpy as np
    >>> import polars as pl
    >>> from polars_fair.reduce import group_stats
    >>> from polars_fair.reduce.fused import fused_tables
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "p": [1, 1, 0],
    ...                    "s": [0.9, None, 0.2]})
    >>> kw = dict(y_true="y", y_pred="p", sensitive_features="g")
    >>> stats, plain, cal, roc, rows = pl.collect_all(fused_tables(
    ...     df.lazy(), **kw, y_prob="s", by=None, sample_weight=None, pos_label=1,
    ...     edges=np.linspace(0, 1, 11), score_bins=100))
    >>> stats.equals(group_stats(df, **kw, y_prob="s").collect())
    True
    >>> plain.equals(group_stats(df, **kw).collect())
    True
    >>> cal["bin"].to_list(), roc["score"].to_list()
    ([0, 8, 1], [0.9, None, 0.2])
    """
    inp = resolve_inputs(
        frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, by=by,
        sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob, family="scores",
    )  # fmt: skip
    s, w = inp.score, inp.weight
    assert s is not None
    n_code = len(edges)  # the calibration bins and the "above 1" slot
    code, decode = _row_code(s, edges, score_bins)
    weighted = s if w is None else s * w
    aggs = [
        pl.len().cast(pl.Int64).alias(_ROWS),
        weighted.sum().alias(_SSUM),
        (weighted * s).sum().alias(_S2SUM),
    ]
    if w is not None:
        aggs += [
            w.null_count().cast(pl.Int64).alias(_WNULL),
            w.sum().alias(_WSUM),
            (w * w).sum().alias(_W2SUM),
            *bad_weight_aggs(w),
        ]
    partial = inp.lf.group_by(*inp.keys, *inp.label_keys, code.alias(_CODE)).agg(aggs)
    if decode is not None:  # back to (fine bin, calibration slot), on the small table
        partial = partial.with_columns(decode.alias(_CODE))
    labels_and_weights = dataclasses.replace(inp, score_name=None).checker()
    score_name = inp.score_name

    def check(table: pl.DataFrame) -> None:
        labels_and_weights(table)  # labels, then weights, then scores: as `group_stats`
        codes = table.get_column(_CODE)
        outside = ((codes < 0) | (codes % n_code == n_code - 1)).any()
        if outside:
            raise ScoreOutOfRange
        if table.get_column(_SSUM).is_nan().any():
            raise ValueRangeError(MSG_SCORE_VALUES.format(name=score_name, found="NaN"))

    partial = check_in_plan(partial, check).cache()
    # the rules with the score: a null code (score) excludes every row of its partial row
    none = pl.col(_CODE).is_null()
    if w is None:
        scored = partial.with_columns(
            pl.when(none).then(pl.col(_ROWS)).otherwise(0).cast(pl.Int64).alias(_MISSING)
        )
        plain = partial
    else:
        scored = partial.with_columns(
            pl.when(none).then(pl.col(_ROWS)).otherwise(pl.col(_WNULL)).alias(_MISSING),
            pl.when(none).then(0.0).otherwise(pl.col(_WSUM)).alias(_WSUM),
            pl.when(none).then(0.0).otherwise(pl.col(_W2SUM)).alias(_W2SUM),
        )
        plain = partial.with_columns(pl.col(_WNULL).alias(_MISSING))
    keys = inp.keys
    labels = [label.alias for label in inp.labels]
    # the statistics tables: first summed over the code (to a few rows per group)
    weights = [] if w is None else [_WSUM, _W2SUM]
    sums = [_ROWS, _MISSING, *weights, _SSUM, _S2SUM]
    small = scored.group_by(*keys, *labels).agg(pl.col(sums).sum())
    stats = small.group_by(keys).agg(_counts(inp)).sort(keys, nulls_last=True)
    unscored = dataclasses.replace(inp, score=None, score_name=None)
    plain_sums = [_ROWS] if w is None else [_ROWS, _MISSING, *weights]
    small_plain = plain.group_by(*keys, *labels).agg(pl.col(plain_sums).sum())
    stats_plain = small_plain.group_by(keys).agg(_counts(unscored)).sort(keys, nulls_last=True)
    # the histograms read the true label only (a null prediction is counted there)
    cal_bin = (pl.col(_CODE) % n_code).fill_null(0).alias("bin")  # null score: bin 0
    cal = _histogram(inp, scored, cal_bin, with_sum=True)
    # k / score_bins with k = floor(s * score_bins) exact as an integer: the same float
    score = ((pl.col(_CODE) // n_code).cast(pl.Float64) / score_bins).alias("score")
    roc = _histogram(inp, scored, score, with_sum=False, squares=True)
    return (
        stats,
        stats_plain,
        cal.sort([*keys, "bin"], nulls_last=True),
        roc.sort([*keys, "score"], nulls_last=True),
        partial.select(pl.col(_ROWS).sum().cast(pl.Int64).alias("rows")),
    )


#: The flagged code (:func:`_row_code`) is used up to this many score bins (its lookup
#: table has two entries per bin; the proof holds far beyond).
_FLAGGED_MAX = 2**20


def _row_code(s: pl.Expr, edges: np.ndarray, score_bins: int) -> tuple[pl.Expr, pl.Expr | None]:
    """The row's group code, and the expression giving the partial table's code from it.

    The partial table's code is ``fine * (n + 1) + r`` (``n`` bins): the fine bin
    ``k = floor(s * score_bins)`` (clipped to [-1, score_bins + 1], so that an infinite
    score keeps a code; null for a null or NaN score) and the slot
    ``r = bin_index(s, edges) + [s > 1]``, the number of edges ``edges[1:]`` below
    ``s``. Computed per row, ``r`` and the clip cost about a quarter of the ``group_by``;
    with uniform edges (``edges[j] == j * (1 / n)`` as numpy computes them, also for
    ``j = n``) and ``score_bins >= 2n + 1`` the rows are grouped by ``2k + flag``
    instead (Int32, clipped by ``min``/``max``), with ``flag = s > J * (1 / n)`` where
    ``J = floor((s + 0.5 / n) * n)`` is the edge nearest to ``s``, and ``(k, flag)``
    gives ``r`` exactly (the lookup of :func:`_decode_table`):

    * ``r = clip(J - 1 + flag, 0, n)`` for every score: for ``1 <= J <= n``,
      ``edges[J - 1] < s <= edges[J + 1]`` (read ``edges[n + 1]`` as infinity;
      ``|s * n - J| <= 1/2`` up to a relative rounding of a few 2^-53, and the edges
      are ``1/n`` apart up to rounding); ``J = 0`` means ``s < edges[1]``, ``J < 0`` a
      negative score, ``J > n`` one above 1.
    * The fine bins 0 to ``score_bins`` are narrower than ``1 / (2n)``: over one,
      ``J`` (monotone in ``s``) takes one value, or two, ``j, j + 1``, and then the rows
      with ``J = j`` lie above ``edges[j]`` (flag 1) and those with ``J = j + 1`` below
      ``edges[j + 1]`` (flag 0): ``r = j`` for both. So ``r`` is ``clip(J, 0, n)`` of
      the bin's lowest float for flag 1, ``clip(J - 1, 0, n)`` of its highest for flag
      0. The clipped bins hold scores below 0 (``r = 0``) and above 1 (``r = n``) only.

    Two partial rows may then share a code (bin 0: ``s = 0`` and ``s > 0``; a bin
    where ``J`` changes); the consumers sum over codes. Other edges or fewer score
    bins keep the direct code (lookup ``None``). Both forms are checked row by row
    against numpy at every edge and its neighbouring floats (tests/test_profile_fused.py).
    """
    n = len(edges) - 1
    uniform = np.array_equal(edges, np.arange(n + 1) * (1.0 / n))
    if not (uniform and 2 * n + 1 <= score_bins <= _FLAGGED_MAX):
        fine = (s * score_bins).floor().clip(-1.0, score_bins + 1.0).cast(pl.Int64, strict=False)
        above = (s > 1.0).cast(pl.Int64)
        return fine * (n + 1) + bin_index(s, edges) + above, None
    s = s.fill_nan(None)  # null code: null through the flag (min/max skip nulls)
    b = float(score_bins)
    fine = pl.max_horizontal(pl.min_horizontal((s * b).floor(), b + 1.0), -1.0)  # clipped
    nearest = ((s + 0.5 / n) * float(n)).floor() * (1.0 / n)  # edges[J] for 0 <= J <= n
    # the fine bin lies in [-1, score_bins + 1]: a plain (saturating) cast, 2.5x cheaper
    code = fine.cast(pl.Int32, wrap_numerical=True) * 2 + (s > nearest).cast(pl.Int32)
    table = pl.Series(_decode_table(n, score_bins), dtype=pl.Int64)
    return code, pl.lit(table).gather(pl.col(_CODE) + 2)


@functools.lru_cache(maxsize=8)
def _decode_table(n: int, score_bins: int) -> np.ndarray:
    """``fine * (n + 1) + r`` of the flagged code ``2 * fine + flag``, at index code + 2.

    ``r`` is ``clip(J, 0, n)`` of the fine bin's lowest float for flag 1 and
    ``clip(J - 1, 0, n)`` of its highest for flag 0 (see :func:`_row_code`). The
    lowest float of each fine bin is found from ``k / score_bins`` by steps of one
    float, computing ``floor(s * score_bins)`` as the plan does.
    """
    b = float(score_bins)
    k = np.arange(score_bins + 2, dtype=np.float64)  # fine bins 0 .. score_bins + 1
    low = k / b
    while (down := (np.floor(np.nextafter(low, -np.inf) * b) >= k)).any():
        low = np.where(down, np.nextafter(low, -np.inf), low)
    while (up := (np.floor(low * b) < k)).any():
        low = np.where(up, np.nextafter(low, np.inf), low)
    lowest = np.concatenate([[-np.inf], low])  # fine bins -1 .. score_bins + 1
    highest = np.concatenate([np.nextafter(low, -np.inf), [np.inf]])

    def slot(x: np.ndarray, minus: float) -> np.ndarray:  # clip(J - minus, 0, n)
        nearest = np.floor((x + 0.5 / n) * float(n))
        return np.clip(nearest - minus, 0.0, float(n)).astype(np.int64)

    fine = np.arange(-1, score_bins + 2, dtype=np.int64) * (n + 1)
    table = np.empty(2 * fine.size, dtype=np.int64)
    table[0::2] = fine + slot(highest, 1.0)
    table[1::2] = fine + slot(lowest, 0.0)
    table.setflags(write=False)  # cached: shared by every plan
    return table


def _histogram(
    inp: Inputs, scored: pl.LazyFrame, key: pl.Expr, with_sum: bool, squares: bool = False
) -> pl.LazyFrame:
    """The columns of :func:`.scores._totals` (``n, pos, neg``, ..., ``n_null``).

    The same sums, as plain sums of per-row terms (a filtered sum per group costs
    more on the ~100,000 groups of a ROC histogram); only ``y_true`` is read.
    `squares`: with weights, the sums of squared weights of the positives and
    negatives (the ROC table's; ``scored`` zeroes them for a null score, as the
    weight sums).
    """
    valid = pl.col(inp.labels[0].alias).is_not_null()
    yt = inp.positive("y_true")
    count = pl.col(_WSUM) if inp.weight is not None else pl.col(_ROWS) - pl.col(_MISSING)
    zero = pl.lit(0, dtype=pl.Int64) if inp.weight is None else pl.lit(0.0)
    terms = [
        pl.when(valid).then(count).otherwise(zero).alias("n"),
        pl.when(valid & yt).then(count).otherwise(zero).alias("pos"),
        pl.when(valid & ~yt).then(count).otherwise(zero).alias("neg"),
    ]
    if squares and inp.weight is not None:
        w2 = pl.col(_W2SUM)
        terms += [
            pl.when(valid & yt).then(w2).otherwise(0.0).alias("pos_w2"),
            pl.when(valid & ~yt).then(w2).otherwise(0.0).alias("neg_w2"),
        ]
    if with_sum:
        terms.append(pl.when(valid).then(pl.col(_SSUM)).otherwise(0.0).alias("sum_prob"))
    terms.append(pl.when(valid).then(pl.col(_MISSING)).otherwise(pl.col(_ROWS)).alias("n_null"))
    names = [term.meta.output_name() for term in terms]
    return (
        scored.select(*inp.keys, key, *terms)
        .group_by(*inp.keys, key.meta.output_name())
        .agg(pl.col(names).sum())
    )


def score_range_error(frame: pl.LazyFrame, y_prob: IntoColumn) -> ValueRangeError:
    """The error for scores outside [0, 1], naming the smallest and largest score.

    Reads the score column once more: only on this error path (the profile's single
    pass keeps no per-group minimum or maximum).
    """
    hint = "pass the score column as `y_prob=`"
    expr, _, name = resolve_column(frame, frame.collect_schema(), y_prob, "y_prob", hint)
    score = expr.cast(pl.Float64)
    low, high = frame.select(score.min().alias("low"), score.max().alias("high")).collect().row(0)
    detail = f"values from {low!r} to {high!r}"
    return ValueRangeError(MSG_SCORE_VALUES.format(name=name, found=detail))
