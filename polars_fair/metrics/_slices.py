r"""Slice discovery: every conjunction of attribute values against its complement.

A *slice* fixes one value for each of up to ``max_depth`` candidate attributes
(``sex=Female & age_cat=Less than 25``). Its statistics are a sum of rows of the
statistics table at the finest crossing of the candidates, because that table is
additive: the slice of the attribute subset ``T`` is a ``group_by(by, T)`` sum of
the finest table, and its complement (the rest of the data, per batch key) is the
total minus the slice. So one pass over the rows gives every slice, and the number
of derived ``group_by`` plans is the number of attribute subsets, known from the
parameters (never a loop over rows or groups).

The test of a slice against its complement
------------------------------------------
*Rates* (proportions ``x / m`` such as the false positive rate ``fp / (fp + tn)``):

* difference ``p_s - p_r`` with Newcombe's hybrid score interval (method 10, from
  the two Wilson intervals), ratio ``p_s / p_r``;
* p-value of the pooled two-proportion z test,
  :math:`z = (p_s - p_r) / \sqrt{\bar p (1 - \bar p) (1/m_s + 1/m_r)}` with the
  pooled :math:`\bar p = (x_s + x_r) / (m_s + m_r)`; the same as Pearson's
  chi-square test of the 2x2 table without continuity correction. Where
  :math:`\bar p` is 0 or 1 both rates are equal and the p-value is 1.

*Means* (``mean_prediction``, ``mean_true``, ``mae``, from the regression sums):
the difference of means with the large-sample Welch interval
:math:`d \pm z \sqrt{s_s^2/n_s + s_r^2/n_r}` (sample variances from the sums of
squares; the mean absolute error's variance uses ``E|e|^2 = E e^2``) and the
matching two-sided normal p-value.

Intervals are marginal, at level ``1 - alpha``; the false-discovery control acts on
the p-values. With weights the counts are weight sums, treated as frequency weights
(as in :mod:`polars_fair.metrics._intervals`), unless the statistics table carries
``sum_w2`` (the sum of squared weights per group): then each side's sums are
rescaled to its Kish effective size ``n**2 / sum_w2`` before the test and the
interval (the rates and means do not change), and ``min_size`` applies to the
effective sizes. The weighted statistics table has ``sum_w2``, and so do the
regression sums that :meth:`~polars_fair.FairNamespace.slices` reduces (sampling
weights, for rates and means alike: rescaling every weight changes no test). For a
mean the rescaled sums give the weighted mean, the variance
``n_eff / (n_eff - 1) * sum w (y - mean)**2 / sum w`` and the standard error
:math:`\sqrt{s_s^2/n_{eff,s} + s_r^2/n_{eff,r}}`.

Slices that repeat a parent
---------------------------
A slice whose counted rows are those of one of its parents (the slice without one
of its attributes; for a one-attribute slice, all the data of its batch key) is not
a slice of its own: it is left out, neither tested nor counted, so that it does not
enter the correction twice. That is every slice of a candidate of a single value
(a constant column, or a numeric one in a single bin: the eager path warns, naming
it), and a slice such as ``race=X & sex=Male`` where every ``race=X`` row is male.
When no slice of a batch key is tested the result is empty for it and the eager
path warns with the number of slices left untested and `min_size`.

Multiple testing
----------------
All slices tested for one batch key form one family. ``correction="bh"``
(Benjamini-Hochberg) gives q-values: ``q_(i) = min_{j >= i} m p_(j) / j`` over the
p-values sorted ascending; calling the slices with ``q_value <= alpha`` significant
keeps the expected share of false discoveries among them at most ``alpha``
(exactly so for independent or positively dependent tests). ``correction="holm"``
gives Holm's adjusted p-values ``max_{j <= i} min(1, (m - j + 1) p_(j))``, which
control the probability of any false discovery. A slice is tested only when it and
its complement have at least ``min_size`` rows and the measure is defined on both
sides, and, for a rate, each side expects at least ``min(5, min_size)`` events and
non-events at the pooled rate (``m_s p``, ``m_s (1 - p)``, ``m_r p``, ``m_r (1 - p)``:
Cochran's rule; below it the z test's normal tail is far too light, and shuffled
attributes on Adult gave a discovery in 11% of the runs at ``alpha=0.05``); the
others are counted (``n_untested``) and not shown.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import polars as pl

from polars_fair._names import check_key_name, key_error
from polars_fair._utils import check_in_plan, warn_data
from polars_fair._validate import INTERNAL_PREFIX, MSG_INTERNAL_NAME, as_python, format_values
from polars_fair.exceptions import DegenerateDataWarning, InvalidParameterError
from polars_fair.metrics._intervals import (
    INTERVAL_RATES,
    cell_squares,
    effective_size,
    large_enough,
    newcombe_difference,
    normal_two_sided_p,
    rate_fraction,
    wilson,
    z_value,
)
from polars_fair.metrics._rates import Counts, safe_div
from polars_fair.reduce import WEIGHT_SQUARES

__all__ = [
    "MEAN_MEASURES",
    "SLICE_COLUMNS",
    "SLICE_METRICS",
    "adjust_p_values",
    "attribute_subsets",
    "check_direction",
    "check_free_names",
    "check_slice_parameters",
    "slice_table",
    "slices_from_stats",
]

#: Regression measures a slice can be tested on: name -> (sum, sum of squares).
MEAN_MEASURES: Final[dict[str, tuple[str, str]]] = {
    "mean_prediction": ("sum_pred", "sum_pred_sq"),
    "mean_true": ("sum_true", "sum_true_sq"),
    "mae": ("sum_abs_error", "sum_sq_error"),
}
#: Every measure `slices` accepts: the proportion rates, then the means.
SLICE_METRICS: Final[tuple[str, ...]] = (*INTERVAL_RATES, *MEAN_MEASURES)
#: The result columns (after the batch keys), in order.
SLICE_COLUMNS: Final[tuple[str, ...]] = (
    "rank", "slice", "depth", "metric", "n", "value", "rest_n", "rest_value",
    "difference", "ratio", "ci_low", "ci_high", "p_value", "q_value", "significant",
    "attributes", "n_effective", "rest_n_effective",
)  # fmt: skip
#: Above this many attribute subsets the derivation plan gets unwieldy.
MAX_SUBSETS: Final = 5_000

Correction = Literal["bh", "holm"]
Direction = Literal["both", "higher", "lower"]
#: Decimals of the absolute difference used for ranking (ties then go by slice name).
_EFFECT_DIGITS: Final = 10

#: The fewest expected events and non-events (at the pooled rate) on each side of a
#: tested rate, or `min_size` if smaller: the z test's normal tail needs a handful.
MIN_EXPECTED: Final = 5.0

MSG_METRIC = "`{param}` must be one of {known}, got {value!r}\n\nHint: {hint}"
_HINT_METRIC = (
    "slices compare proportions (e.g. 'false_positive_rate') or means "
    "('mean_prediction', 'mean_true', 'mae'); ratios of several rates such as 'f1' have "
    "no two-sample test here"
)

# internal columns of the derivation
_N, _M, _A, _B = "__pf_sn", "__pf_sm", "__pf_sa", "__pf_sb"
_TN, _TM, _TA, _TB = "__pf_tn", "__pf_tm", "__pf_ta", "__pf_tb"
#: The sum of squared weights (a weighted statistics table's ``sum_w2``), and its total.
_W2, _TW2 = "__pf_sw2", "__pf_tw2"
#: A rate's squared weights over its numerator's and denominator's other rows, and totals.
_SX, _SO, _TSX, _TSO = "__pf_ssx", "__pf_sso", "__pf_tsx", "__pf_tso"
#: Flags a slice whose rows (those counted) are those of a parent: not a slice of its own.
_SAME = "__pf_same"

MSG_SINGLE_VALUE = (
    "candidate(s) {names} take a single value{where} (a numeric candidate: all its values "
    "in one quantile bin), so every slice fixing them is the whole data or a slice "
    "without them: they add no slice, tested or counted\n\nHint: drop them from "
    "`candidates`"
)
MSG_NONE_TESTED = (
    "no slice was tested{where}: each of the {count} slices, or its complement, has fewer "
    "than `min_size`={min_size:g} rows (the Kish effective size with `sample_weight`), or "
    "the measure is undefined on one side, or (a rate) a side expects fewer than "
    "min(5, `min_size`) events or non-events at the pooled rate; the result is "
    "empty\n\nHint: lower "
    "`min_size`, or pass fewer candidates or a smaller `max_depth`"
)


@dataclass(frozen=True)
class _Measure:
    """How a measure is summed: the row count, the denominator, the sum(s)."""

    name: str
    is_mean: bool

    def parts(self, columns: Sequence[str]) -> list[pl.Expr]:
        """Per-row summable parts of the statistics table: n, m, a (and b for means)."""
        if self.is_mean:
            total, squares = MEAN_MEASURES[self.name]
            missing = [c for c in ("n", total, squares) if c not in columns]
            if missing:
                msg = (
                    f"`metric`={self.name!r} needs the regression sums {missing} in the "
                    "statistics table\n\nHint: build it with `regression_stats` (with "
                    "`y_true=` for 'mean_true' and 'mae')"
                )
                raise InvalidParameterError(msg)
            n = pl.col("n")
            return [
                n.alias(_N), n.alias(_M),
                pl.col(total).cast(pl.Float64).alias(_A),
                pl.col(squares).cast(pl.Float64).alias(_B),
            ]  # fmt: skip
        counts = Counts.from_columns(columns)
        try:
            x, m = rate_fraction(self.name, counts)
        except (ValueError, AssertionError, TypeError):
            msg = (
                f"`metric`={self.name!r} cannot be computed from the statistics table "
                f"columns {list(columns)}\n\nHint: pass both `y_true` and `y_pred` for "
                "rates other than 'selection_rate' and 'base_rate'"
            )
            raise InvalidParameterError(msg) from None
        return [pl.col("n").alias(_N), m.alias(_M), x.alias(_A)]

    def squares(self, columns: Sequence[str]) -> list[pl.Expr]:
        """A rate's squared weights over its numerator's and denominator's other rows.

        As ``_SX``, ``_SO``, when the table has each cell's (``tp_w2``, ...); else none.
        """
        found = None if self.is_mean else cell_squares(self.name, Counts.from_columns(columns))
        return [] if found is None else [found[0].alias(_SX), found[1].alias(_SO)]


def check_metric(metric: object, param: str = "metric") -> str:
    """Check `metric` (given as `param`) names a measure slices can test."""
    if not isinstance(metric, str) or metric not in SLICE_METRICS:
        msg = MSG_METRIC.format(
            param=param, known=list(SLICE_METRICS), value=metric, hint=_HINT_METRIC
        )
        raise InvalidParameterError(msg)
    return metric


def check_slice_parameters(
    *,
    candidates: object,
    metric: object,
    max_depth: object,
    min_size: object,
    alpha: object,
    top: object,
    correction: object,
) -> tuple[list[str], str, int, float, float, int | None, Correction]:
    """Check the parameters shared by every slice surface; return them normalised.

    `max_depth` above the number of candidates is lowered to it.
    """
    if isinstance(candidates, str):
        msg = (
            f"`candidates` must be a list of column names, got {candidates!r}"
            f"\n\nHint: `candidates=[{candidates!r}]`"
        )
        raise InvalidParameterError(msg)
    if isinstance(candidates, pl.Expr):  # the one wording of every key parameter
        raise key_error(candidates, "candidates")
    if not isinstance(candidates, Sequence) or not candidates:
        msg = (
            f"`candidates` must be a non-empty list of column names, got {candidates!r}"
            '\n\nHint: e.g. `candidates=["race", "sex", "age_cat"]`'
        )
        raise InvalidParameterError(msg)
    names: list[str] = []
    for c in candidates:
        if not isinstance(c, str):
            raise key_error(c, "candidates")
        if c in names:
            msg = f"column {c!r} appears more than once in `candidates`\n\nHint: name each column once"
            raise InvalidParameterError(msg)
        names.append(c)
    check_free_names(names, "candidates")
    metric_ = check_metric(metric)
    # the candidates are the keys of the statistics table the slices are sums of: a
    # candidate named like one of its columns is refused here, under its own name
    family = "regression" if metric_ in MEAN_MEASURES else "binary"
    for c in names:
        check_key_name(c, "candidates", family)
    max_depth = as_python(max_depth)  # a numpy integer is an integer
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1:
        msg = (
            f"`max_depth` must be a positive integer, got {max_depth!r}"
            "\n\nHint: `max_depth=2` tests every single attribute value and every pair"
        )
        raise InvalidParameterError(msg)
    depth = min(max_depth, len(names))
    n_subsets = sum(_n_choose(len(names), d) for d in range(1, depth + 1))
    if n_subsets > MAX_SUBSETS:
        msg = (
            f"`max_depth`={max_depth} over {len(names)} candidates gives {n_subsets} attribute "
            f"subsets, more than {MAX_SUBSETS}\n\nHint: lower `max_depth` or pass fewer candidates"
        )
        raise InvalidParameterError(msg)
    ok = isinstance(min_size, (int, float)) and not isinstance(min_size, bool)
    if not ok or not float(min_size) >= 0:  # type: ignore[arg-type]
        msg = f"`min_size` must be a non-negative number, got {min_size!r}\n\nHint: e.g. `min_size=30`"
        raise InvalidParameterError(msg)
    ok = isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
    if not ok or not 0 < float(alpha) < 1:  # type: ignore[arg-type]
        msg = f"`alpha` must be a float strictly between 0 and 1, got {alpha!r}\n\nHint: e.g. `alpha=0.05`"
        raise InvalidParameterError(msg)
    if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 1):
        msg = f"`top` must be None or a positive integer, got {top!r}\n\nHint: e.g. `top=20`"
        raise InvalidParameterError(msg)
    if not isinstance(correction, str) or correction not in ("bh", "holm"):
        msg = (
            f"`correction` must be 'bh' or 'holm', got {correction!r}\n\nHint: 'bh' "
            "(Benjamini-Hochberg) controls the false discovery rate; 'holm' the chance of any"
        )
        raise InvalidParameterError(msg)
    corr: Correction = "bh" if correction == "bh" else "holm"
    size, level = float(min_size), float(alpha)  # type: ignore[arg-type]
    return names, metric_, depth, size, level, top, corr


#: Output columns a candidate or batch key may not be named after.
_OUTPUT_NAMES: Final = frozenset({*SLICE_COLUMNS, "n_tested", "n_untested", "strategy"})


def check_free_names(names: Sequence[str], param: str) -> None:
    """Candidates and batch keys may not clash with the slice table's own columns.

    Nor start with the prefix of polars_fair's internal columns (as every key).
    """
    for name in names:
        if name.startswith(INTERNAL_PREFIX):
            new = name.lstrip("_")
            msg = MSG_INTERNAL_NAME.format(name=name, param=param, prefix=INTERNAL_PREFIX, new=new)
            raise InvalidParameterError(msg)
        if name in _OUTPUT_NAMES:
            msg = (
                f"column {name!r} (given as `{param}`) clashes with an output column of "
                f"`slices`\n\nHint: rename it first, e.g. `.rename({{{name!r}: {name + '_'!r}}})`"
            )
            raise InvalidParameterError(msg)


def check_direction(direction: object) -> Direction:
    """Check `direction`: which differences rank first."""
    if not isinstance(direction, str) or direction not in ("both", "higher", "lower"):
        msg = (
            f"`direction` must be 'both', 'higher' or 'lower', got {direction!r}\n\nHint: "
            "'higher' ranks the slices whose value most exceeds the rest first (e.g. error "
            "rates), 'lower' those most below it (e.g. true positive rate)"
        )
        raise InvalidParameterError(msg)
    return "both" if direction == "both" else "higher" if direction == "higher" else "lower"


def _n_choose(n: int, k: int) -> int:
    return math.comb(n, k)


def attribute_subsets(candidates: Sequence[str], max_depth: int) -> list[tuple[str, ...]]:
    """Every subset of 1 to `max_depth` candidates, by size then in candidate order."""
    return [
        subset
        for depth in range(1, min(max_depth, len(candidates)) + 1)
        for subset in itertools.combinations(candidates, depth)
    ]


def _label(subset: Sequence[str]) -> pl.Expr:
    """The readable slice: ``a=v & b=w`` (``a=null`` for a missing value)."""
    pieces: list[pl.Expr] = []
    for i, name in enumerate(subset):
        sep = "" if i == 0 else " & "
        pieces += [
            pl.lit(f"{sep}{name}="),
            pl.col(name).cast(pl.String).fill_null("null"),
        ]
    return pl.concat_str(pieces)


def adjust_p_values(p: pl.Expr, by: list[str], correction: Correction) -> pl.Expr:
    """Benjamini-Hochberg q-values or Holm adjusted p-values of `p`, per batch key.

    The frame must be sorted by the batch keys then `p` ascending (nulls last);
    null p-values stay null and do not count in the family size.
    """
    rank = p.cum_count()
    m = p.count()
    if correction == "bh":
        raw = p * m / rank
        adjusted = raw.reverse().cum_min().reverse()
    else:
        raw = p * (m - rank + 1)
        adjusted = raw.cum_max()
    adjusted = pl.min_horizontal(adjusted, pl.lit(1.0))
    return adjusted.over(by) if by else adjusted


def _subset_part(
    base: pl.LazyFrame,
    subset: tuple[str, ...],
    by: list[str],
    candidates: Sequence[str],
    dtypes: dict[str, pl.DataType],
    sums: list[str],
) -> pl.LazyFrame:
    """The slices of one attribute subset: a group_by sum of the base table."""
    keys = [*by, *subset]
    part = base.group_by(keys).agg(_in_turn(sums, base))
    absent = [pl.lit(None, dtype=dtypes[c]).alias(c) for c in candidates if c not in subset]
    return part.with_columns(
        *absent,
        _label(subset).alias("slice"),
        pl.lit(len(subset), dtype=pl.Int64).alias("depth"),
        pl.lit(list(subset), dtype=pl.List(pl.String)).alias("attributes"),
        _same_as_parent(subset, by).alias(_SAME),
    ).select(*by, "slice", "depth", "attributes", *candidates, *sums, _SAME)


def _in_turn(sums: Sequence[str], table: pl.LazyFrame) -> list[pl.Expr]:
    """Sums of `sums` per group of `table`; a float one over the rows in their order.

    A parallel ``group_by`` adds partial sums in a varying order (a weighted slice's last
    bit changed from run to run): floats are gathered and summed as a list. Counts add
    exactly as they are (gathered too, unweighted slices took 1.4x the time at 10^7 rows).
    """
    schema = table.collect_schema()
    return [
        pl.col(s).sum() if schema[s].is_integer() else pl.col(s).implode().list.sum().alias(s)
        for s in sums
    ]


def _same_as_parent(subset: Sequence[str], by: Sequence[str]) -> pl.Expr:
    """A non-empty slice that is the only non-empty one of some parent: the same rows.

    The parent of a slice drops one of its attributes (of a one-attribute slice: the
    whole data of its batch key). Among the slices of `subset` sharing a parent's
    values, the parent's counted rows are split; if only one of them has any, it is
    the parent (a candidate of a single value, or one value implying another).
    """
    filled = (pl.col(_N) > 0).cast(pl.Int64)
    alone = []
    for name in subset:
        parent = [*by, *(c for c in subset if c != name)]
        siblings = filled.sum().over(parent) if parent else filled.sum()
        alone.append(siblings <= 1)
    return pl.any_horizontal(alone) & (pl.col(_N) > 0)


def slice_table(
    parts: Sequence[tuple[pl.LazyFrame, Sequence[tuple[str, ...]]]],
    *,
    candidates: Sequence[str],
    metric: str,
    by: Sequence[str] = (),
    min_size: float = 30,
    alpha: float = 0.05,
    top: int | None = None,
    correction: Correction = "bh",
    direction: Direction = "both",
) -> pl.LazyFrame:
    """The slice table from statistics tables and the attribute subsets each serves.

    `parts` pairs a statistics table (keyed by `by` and at least the attributes of its
    subsets) with the subsets derived from it; every subset must appear once. The
    totals (for the complements) come from the first table. Parameters are as in
    :func:`slices_from_stats` and are assumed checked.
    """
    by_ = list(by)
    measure = _Measure(metric, metric in MEAN_MEASURES)
    sums = [_N, _M, _A, _B] if measure.is_mean else [_N, _M, _A]
    kish = WEIGHT_SQUARES in parts[0][0].collect_schema().names() if parts else False
    if kish:
        sums.append(_W2)
    cells = kish and all(measure.squares(stats.collect_schema().names()) for stats, _ in parts)
    if cells:
        sums += [_SX, _SO]
    frames: list[pl.LazyFrame] = []
    first: pl.LazyFrame | None = None
    dtypes: dict[str, pl.DataType] = {}
    for stats, subsets in parts:
        schema = stats.collect_schema()
        for c in candidates:
            if c in schema:
                dtypes.setdefault(c, schema[c])
        base = stats.select(
            *by_, *(c for c in candidates if c in schema), *measure.parts(schema.names()),
            *([pl.col(WEIGHT_SQUARES).cast(pl.Float64).alias(_W2)] if kish else []),
            *(measure.squares(schema.names()) if cells else []),
        )  # fmt: skip
        if first is None:
            first = base
        frames.extend(_subset_part(base, s, by_, candidates, dtypes, sums) for s in subsets)
    if first is None or not frames:
        msg = "no attribute subsets to derive slices from"
        raise InvalidParameterError(msg)
    allslices = pl.concat(frames, how="vertical")
    totals_names = {_N: _TN, _M: _TM, _A: _TA, _B: _TB, _W2: _TW2, _SX: _TSX, _SO: _TSO}
    totals_aggs = [pl.col(s).sum().alias(totals_names[s]) for s in sums]
    if by_:  # float sums over each key's rows in turn, as in `_subset_part`
        renamed = [
            e.alias(totals_names[s]) for e, s in zip(_in_turn(sums, first), sums, strict=True)
        ]
        totals = first.group_by(by_).agg(renamed)
        table = allslices.join(totals, on=by_, how="left", nulls_equal=True)
    else:
        table = allslices.join(first.select(totals_aggs), how="cross")
    table = _compare(table, measure, alpha, kish, cells)
    ranking = _Ranking(min_size, alpha, top, correction, direction)
    return _rank(table, by_, measure, ranking, list(candidates))


def _compare(
    table: pl.LazyFrame, measure: _Measure, alpha: float, kish: bool, cells: bool = False
) -> pl.LazyFrame:
    """Slice value, complement value, difference, ratio, interval, z statistic.

    With `kish`, each side's sums are rescaled to its Kish effective size
    ``n**2 / sum_w2`` (the rates stay the same; the tests and intervals use it); with
    `cells` (each cell's squared weights), a rate's to its own effective size
    (:func:`~polars_fair.metrics._intervals.effective_size`), ``n`` to the group's.
    """
    z = z_value(1 - alpha)
    n = pl.col(_N)
    rn = pl.col(_TN) - n
    sides: dict[str, tuple[pl.Expr, pl.Expr]] = {
        "n": (n, rn),
        "m": (pl.col(_M), pl.col(_TM) - pl.col(_M)),
        "a": (pl.col(_A), pl.col(_TA) - pl.col(_A)),
    }
    if measure.is_mean:
        sides["b"] = (pl.col(_B), pl.col(_TB) - pl.col(_B))
    if kish:
        w2, rw2 = pl.col(_W2), pl.col(_TW2) - pl.col(_W2)
        f_s = pl.when(w2 > 0).then(n.cast(pl.Float64) / w2).otherwise(0.0)
        f_r = pl.when(rw2 > 0).then(rn.cast(pl.Float64) / rw2).otherwise(0.0)
        raw, sides = sides, {k: (s * f_s, r * f_r) for k, (s, r) in sides.items()}
        if cells:  # a rate at each side's own size (at 0 or 1: at most the side's)
            inside, other = pl.col(_SX), pl.col(_SO)
            squares = ((inside, other), (pl.col(_TSX) - inside, pl.col(_TSO) - other))
            own = []
            for a, m, (sx, so), f in zip(raw["a"], raw["m"], squares, (f_s, f_r), strict=True):
                k = pl.when(m > 0).then(effective_size(a, m, sx, so, m * f) / m).otherwise(0.0)
                own.append((a * k, m * k))
            sides["a"], sides["m"] = (own[0][0], own[1][0]), (own[0][1], own[1][1])
    table = table.with_columns(
        rn.alias("rest_n"),
        *(e.alias(f"__pf_es{k}") for k, (e, _) in sides.items()),
        *(e.alias(f"__pf_er{k}") for k, (_, e) in sides.items()),
    )
    # the sizes the tests and `min_size` read: Kish's with sampling weights, else `n`
    table = table.with_columns(
        pl.col("__pf_esn").cast(pl.Float64).alias("n_effective"),
        pl.col("__pf_ern").cast(pl.Float64).alias("rest_n_effective"),
    )
    m, a, rm, ra = (pl.col(f"__pf_e{c}") for c in ("sm", "sa", "rm", "ra"))
    value, rest = safe_div(a, m), safe_div(ra, rm)
    table = table.with_columns(value.alias("value"), rest.alias("rest_value"))
    value, rest = pl.col("value"), pl.col("rest_value")
    diff = value - rest
    if measure.is_mean:
        b, rb = pl.col("__pf_esb"), pl.col("__pf_erb")
        var_s = pl.max_horizontal(safe_div(b - a * value, m - 1), pl.lit(0.0))
        var_r = pl.max_horizontal(safe_div(rb - ra * rest, rm - 1), pl.lit(0.0))
        se = (safe_div(var_s, m) + safe_div(var_r, rm)).sqrt()
        low, high = diff - z * se, diff + z * se
        stat = pl.when(se > 0).then(diff / se).when(diff == 0).then(0.0).otherwise(float("inf"))
        defined = (m > 1) & (rm > 1)
        expected = pl.lit(float("inf"))
    else:
        pooled = safe_div(a + ra, m + rm)
        se0 = (
            pooled * (1 - pooled) * (safe_div(pl.lit(1.0), m) + safe_div(pl.lit(1.0), rm))
        ).sqrt()
        stat = pl.when(se0 > 0).then(diff / se0).otherwise(0.0)
        low, high = newcombe_difference(value, wilson(a, m, z), rest, wilson(ra, rm, z))
        defined = (m > 0) & (rm > 0)
        # the fewest expected events or non-events of a side at the pooled rate: the z
        # test's normal tail needs a handful (Cochran's rule), which `_rank` asks for
        expected = pl.min_horizontal(m, rm) * pl.min_horizontal(pooled, 1 - pooled)
    return table.with_columns(
        diff.alias("difference"),
        safe_div(value, rest).alias("ratio"),
        pl.when(defined).then(low).alias("ci_low"),
        pl.when(defined).then(high).alias("ci_high"),
        pl.when(defined).then(stat).alias("__pf_z"),
        defined.alias("__pf_defined"),
        expected.cast(pl.Float64).alias("__pf_expected"),
    )


@dataclass(frozen=True)
class _Ranking:
    min_size: float
    alpha: float
    top: int | None
    correction: Correction
    direction: Direction


def _rank(
    table: pl.LazyFrame,
    by: list[str],
    measure: _Measure,
    ranking: _Ranking,
    candidates: list[str],
) -> pl.LazyFrame:
    """Test, adjust for multiplicity, rank; drop the untested slices (counted)."""
    min_size, alpha, top = ranking.min_size, ranking.alpha, ranking.top
    tested = (
        pl.col("__pf_defined").fill_null(False)
        & large_enough(pl.col("__pf_esn"), min_size)
        & large_enough(pl.col("__pf_ern"), min_size)
        & (pl.col("__pf_expected") >= min(MIN_EXPECTED, min_size))
    )
    table = table.with_columns(tested.alias("__pf_tested"))
    # the warnings (eager path) read the small table of every slice, in the plan
    table = check_in_plan(table, _untested_warnings(by, min_size))
    table = table.filter(~pl.col(_SAME))
    counts = [
        pl.col("__pf_tested").sum().cast(pl.Int64),
        (~pl.col("__pf_tested")).sum().cast(pl.Int64),
    ]
    if by:
        table = table.with_columns(
            counts[0].over(by).alias("n_tested"), counts[1].over(by).alias("n_untested")
        )
    else:
        table = table.with_columns(counts[0].alias("n_tested"), counts[1].alias("n_untested"))
    table = table.filter(pl.col("__pf_tested")).with_columns(
        normal_two_sided_p(pl.col("__pf_z")).alias("p_value")
    )
    table = table.sort([*by, "p_value", "slice"], nulls_last=True)
    adjusted = adjust_p_values(pl.col("p_value"), by, ranking.correction)
    table = table.with_columns(adjusted.alias("q_value"))
    table = table.with_columns(
        (pl.col("q_value") <= alpha).alias("significant"),
        pl.lit(measure.name).alias("metric"),
        pl.col(_N).alias("n"),
    )
    # |difference| rounded so that float summation order (which differs between
    # engines) cannot reorder a slice and its complement (equal |difference|)
    d = pl.col("difference")
    effect = {"both": d.abs(), "higher": d, "lower": -d}[ranking.direction].round(_EFFECT_DIGITS)
    table = table.sort(
        [*by, "significant", effect, "slice"],
        descending=[*(False for _ in by), True, True, False],
        nulls_last=True,
    )
    rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    table = table.with_columns((rank.over(by) if by else rank).alias("rank"))
    if top is not None:
        table = table.filter(pl.col("rank") <= top)
    return table.select(*by, *SLICE_COLUMNS, *candidates, "n_tested", "n_untested")


def _untested_warnings(by: list[str], min_size: float) -> Callable[[pl.DataFrame], None]:
    """The warnings about the slices: candidates of one value; nothing tested."""

    def where(rows: pl.DataFrame) -> str:
        if not by:
            return ""
        keys = rows.select(by).unique(maintain_order=True).rows()
        return f" for the batch key(s) {format_values(k[0] if len(k) == 1 else k for k in keys)}"

    def check(table: pl.DataFrame) -> None:
        single = table.filter(pl.col(_SAME) & (pl.col("depth") == 1))
        if single.height:
            names = single.get_column("attributes").list.first().unique(maintain_order=True)
            msg = MSG_SINGLE_VALUE.format(names=format_values(names), where=where(single))
            warn_data(msg, DegenerateDataWarning)
        kept = table.filter(~pl.col(_SAME))
        tested = pl.col("__pf_tested")
        summary = (
            kept.group_by(by, maintain_order=True).agg(tested.any(), pl.len())
            if by
            else kept.select(tested.any(), pl.len())
        )
        none = summary.filter(~tested & (pl.col("len") > 0))
        if none.height:
            count = int(none.get_column("len").sum())
            msg = MSG_NONE_TESTED.format(where=where(none), count=count, min_size=min_size)
            warn_data(msg, DegenerateDataWarning)

    return check


def slices_from_stats(
    stats: pl.DataFrame | pl.LazyFrame,
    *,
    candidates: Sequence[str],
    metric: str = "false_positive_rate",
    by: str | Sequence[str] | None = None,
    max_depth: int = 2,
    min_size: float = 30,
    alpha: float = 0.05,
    top: int | None = None,
    correction: Correction = "bh",
    direction: Direction = "both",
) -> pl.LazyFrame:
    r"""
    The worst-treated slices, derived from a statistics table at the crossing of `candidates`.

    Every conjunction of up to `max_depth` attribute values (a *slice*) is summed from
    the rows of `stats`, compared with its complement (the rest of the data, per batch
    key) on `metric`, tested, corrected for multiplicity and ranked. This is the
    derivation behind :meth:`~polars_fair.FairNamespace.slices`, and the entry point
    for a profile made at the crossing of the candidates: it reads no rows.

    .. versionadded:: 0.1.0

    Parameters
    ----------
    stats
        A statistics table keyed by `by` and `candidates` (the finest crossing):
        :func:`~polars_fair.group_stats` with ``sensitive_features=candidates`` for
        rates, :func:`~polars_fair.reduce_regression.regression_stats` for means.
    candidates
        The attribute columns whose values define slices.
    metric
        A proportion rate (``"false_positive_rate"``, ``"selection_rate"``, ...) or a
        mean (``"mean_prediction"``, ``"mean_true"``, ``"mae"``).
    by
        Batch key column(s): slices are found, tested and corrected per key.
    max_depth
        Largest number of attributes in a slice (lowered to the number of candidates).
    min_size
        Slices, or complements, with fewer rows (with ``sum_w2`` in `stats`, a smaller
        Kish effective size; else the total weight) are not tested, nor rates where a
        side expects fewer than ``min(5, min_size)`` events or non-events at the
        pooled rate; they are counted in ``n_untested``.
    alpha
        The false discovery rate (``"bh"``) or family-wise error rate (``"holm"``) of
        the slices flagged ``significant``; the intervals have level ``1 - alpha``.
    top
        Keep only the `top` best-ranked slices per batch key (None: all tested).
    correction
        ``"bh"`` (Benjamini-Hochberg q-values) or ``"holm"`` (Holm adjusted p-values).
    direction
        Ranking among significant (then other) slices: ``"both"`` by the absolute
        difference, ``"higher"`` the largest positive difference first (where a higher
        value is worse: error rates, ``mae``), ``"lower"`` the most negative first. The
        tests are two-sided whatever the direction.

    Returns
    -------
    LazyFrame
        One row per tested slice, sorted by the batch keys then ``rank`` (significant
        slices first, then by the difference as `direction` says): ``rank, slice, depth, metric,
        n, value, rest_n, rest_value, difference, ratio, ci_low, ci_high, p_value,
        q_value, significant, attributes`` (the list of attributes fixed),
        ``n_effective, rest_n_effective`` (the sizes the tests and `min_size` read:
        Kish's with a ``sum_w2`` column, else ``n`` and ``rest_n``), the candidate
        columns (null where an attribute is not part of the slice; read
        ``attributes`` to tell that from a null value), ``n_tested`` and
        ``n_untested``.

    Notes
    -----
    See the module documentation (:mod:`polars_fair.metrics._slices`) and the
    slices page for the tests (two-proportion z test, Newcombe interval; Welch for
    means) and the meaning of the q-values.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import group_stats
    >>> from polars_fair.metrics import slices_from_stats
    >>> df = pl.DataFrame(
    ...     {
    ...         "sex": ["F", "M"] * 200,
    ...         "age": ["young"] * 200 + ["old"] * 200,
    ...         "y_true": [0] * 400,
    ...         "y_pred": [1, 0, 0, 0] * 50 + [0] * 200,
    ...     }
    ... )
    >>> stats = group_stats(
    ...     df, y_true="y_true", y_pred="y_pred", sensitive_features=["sex", "age"]
    ... )
    >>> slices_from_stats(stats, candidates=["sex", "age"], top=3).select(
    ...     "rank", "slice", "n", "value", "rest_value", "significant"
    ... ).collect()
    shape: (3, 6)
    ┌──────┬───────────────────┬─────┬───────┬────────────┬─────────────┐
    │ rank ┆ slice             ┆ n   ┆ value ┆ rest_value ┆ significant │
    │ ---  ┆ ---               ┆ --- ┆ ---   ┆ ---        ┆ ---         │
    │ i64  ┆ str               ┆ i64 ┆ f64   ┆ f64        ┆ bool        │
    ╞══════╪═══════════════════╪═════╪═══════╪════════════╪═════════════╡
    │ 1    ┆ sex=F & age=young ┆ 100 ┆ 0.5   ┆ 0.0        ┆ true        │
    │ 2    ┆ age=old           ┆ 200 ┆ 0.0   ┆ 0.25       ┆ true        │
    │ 3    ┆ age=young         ┆ 200 ┆ 0.25  ┆ 0.0        ┆ true        │
    └──────┴───────────────────┴─────┴───────┴────────────┴─────────────┘
    """
    names, metric_, depth, size, alpha_, top_, corr = check_slice_parameters(
        candidates=candidates, metric=metric, max_depth=max_depth, min_size=min_size,
        alpha=alpha, top=top, correction=correction,
    )  # fmt: skip
    direction_ = check_direction(direction)
    lf = stats.lazy()
    schema = lf.collect_schema()
    by_ = [by] if isinstance(by, str) else list(by or [])
    check_free_names(by_, "by")
    missing = [c for c in (*by_, *names) if c not in schema]
    if missing:
        msg = (
            f"the statistics table has no column(s) {missing}; its columns: {schema.names()}"
            "\n\nHint: make it at the crossing of the candidates, e.g. "
            "`group_stats(..., sensitive_features=candidates, by=by)`"
        )
        raise InvalidParameterError(msg)
    return slice_table(
        [(lf, attribute_subsets(names, depth))], candidates=names, metric=metric_, by=by_,
        min_size=size, alpha=alpha_, top=top_, correction=corr, direction=direction_,
    )  # fmt: skip
