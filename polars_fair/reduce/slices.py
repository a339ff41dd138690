"""The reductions behind slice discovery: quantile bins, and one or several group_bys.

Two strategies, both correct, both one read of the source:

* ``"finest"``: one :func:`~polars_fair.reduce.group_stats` (or
  :func:`~polars_fair.reduce.regression.regression_stats`) at the finest crossing
  of all candidates; every slice is then a sum of rows of that table. Its size is
  at most the product of the candidates' cardinalities and at most the row count.
* ``"subsets"``: one reduction per subset of ``max_depth`` candidates, over a
  ``.cache()``-d source so that the plan reads it once; each smaller subset is
  derived from the first reduction whose attributes contain it. The tables stay
  small however many candidates there are, at the price of one group_by over the
  rows per subset (and, for a file scan, the cached columns held in memory).

``"auto"`` decides from the schema alone, because the plan cannot know the number
of distinct values of a column without reading it: a candidate's cardinality is
known for an ``Enum`` (its categories, plus null), a ``Boolean`` (3) and a binned
numeric column (``n_bins`` + 1); any other column counts as 2, the least an
attribute can have. When the product (a lower bound of the finest table's
possible size) exceeds :data:`MAX_FINEST_CELLS`, ``"subsets"`` runs; otherwise
``"finest"``. Pass ``strategy="subsets"`` yourself for many string attributes of
high cardinality.

Numeric candidates (integer or float, not Boolean) are cut into at most ``n_bins``
quantile bins of the whole column, inside the same plan. The breakpoints are the
"lower" quantiles (values of the column) at the levels ``1/n_bins, ...,
(n_bins-1)/n_bins``, computed once as one list (one selection over that column) and
broadcast to the rows; each value is then placed by ``n_bins`` comparisons. Bins are
left-closed and labelled by their breakpoints, e.g. ``[25, 34)``; the first and last
run to ``-inf`` and ``inf``. Breakpoints that coincide are merged, so ties give fewer,
distinct bins and never an empty one: a value that several levels share (the minimum
counting as level 0) holds at least ``1/n_bins`` of the rows and is a bin of its own,
``{0}``, and the next bin opens after it, ``(0, 3)``. A mostly-zero count with
``n_bins=4`` gives ``{0}`` and ``(0, inf)``; a constant column gives one bin, the
whole data, which defines no slice (see :mod:`polars_fair.metrics._slices`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Literal

import polars as pl

from polars_fair._names import key_error
from polars_fair._validate import INTERNAL_PREFIX, check_at_most, column_not_found, ensure_lazy
from polars_fair.exceptions import InvalidParameterError
from polars_fair.reduce import group_stats
from polars_fair.reduce.regression import regression_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "MAX_FINEST_CELLS",
    "PART",
    "STRATEGIES",
    "SliceReduction",
    "bin_labels",
    "choose_strategy",
    "slice_reduction",
]

Strategy = Literal["auto", "finest", "subsets"]
STRATEGIES: Final = ("auto", "finest", "subsets")
#: ``"auto"`` switches to ``"subsets"`` above this many possible finest cells.
MAX_FINEST_CELLS: Final = 1 << 22
#: Column of the ``"subsets"`` reduction naming the subset a row belongs to.
PART: Final = "__pf_part"
#: Columns of the slice table a batch key may not be named after.
_OUTPUT_NAMES: Final = frozenset(
    {"rank", "slice", "depth", "metric", "n", "value", "rest_n", "rest_value", "difference",
     "ratio", "ci_low", "ci_high", "p_value", "q_value", "significant", "attributes",
     "n_effective", "rest_n_effective",
     "n_tested", "n_untested", "strategy"}
)  # fmt: skip
#: Regression measures (read the regression sums, not the confusion counts).
_MEANS: Final = ("mean_prediction", "mean_true", "mae")


def _is_binned(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() and dtype != pl.Boolean


def _cardinality(dtype: pl.DataType, n_bins: int) -> int:
    if isinstance(dtype, pl.Enum):
        return len(dtype.categories) + 1
    if dtype == pl.Boolean:
        return 3
    if _is_binned(dtype):
        return n_bins + 1
    return 2


def choose_strategy(
    strategy: object,
    schema: pl.Schema,
    candidates: Sequence[str],
    max_depth: int,
    n_bins: int,
) -> Literal["finest", "subsets"]:
    """The strategy that runs (see the module documentation for the ``"auto"`` rule)."""
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        msg = (
            f"`strategy` must be one of {list(STRATEGIES)}, got {strategy!r}\n\nHint: "
            "'auto' picks 'subsets' only when the finest crossing can be very large"
        )
        raise InvalidParameterError(msg)
    if max_depth >= len(candidates):
        return "finest"  # the one subset of max_depth attributes is the finest crossing
    if strategy != "auto":
        return strategy  # type: ignore[return-value]
    cells = math.prod(_cardinality(schema[c], n_bins) for c in candidates)
    return "subsets" if cells > MAX_FINEST_CELLS else "finest"


def _bin(lf: pl.LazyFrame, name: str, n_bins: int, dtype: pl.DataType) -> pl.LazyFrame:
    """Quantile bins of a numeric candidate, tied breakpoints merged (see the module docs).

    A NaN is missing (the null slice), as a null. The struct's ``bin`` orders the bins,
    ``left``/``right`` are their bounds (null: infinite) and ``closed`` says whether
    the left bound is in the bin; a bin of one value has ``left == right``. The
    breakpoints are computed once, as one list of quantiles broadcast over the rows
    (temporary columns), then compared with each value by ``n_bins`` expressions.
    """
    col = pl.col(name).fill_nan(None) if dtype.is_float() else pl.col(name)
    # the "lower" quantiles at the levels j / n_bins: values of the column; level 0 is
    # the minimum, which is a breakpoint only where another level shares it
    levels = [j / n_bins for j in range(n_bins)]
    temp = f"{INTERNAL_PREFIX}q_{name}"
    names = [f"{temp}_{j}" for j in range(n_bins)]
    lf = lf.with_columns(col.quantile(levels, interpolation="lower").alias(temp))
    lf = lf.with_columns(pl.col(temp).list.get(j).cast(dtype).alias(c) for j, c in enumerate(names))
    q = [pl.col(c) for c in names]
    breaks = range(1, n_bins)
    tied = {j: q[j] == q[j - 1] for j in breaks}
    new = {j: pl.lit(True) if j == 1 else q[j] != q[j - 1] for j in breaks}

    def is_point(value: pl.Expr) -> pl.Expr:
        """`value` is a breakpoint that several levels share: a bin of its own."""
        return pl.any_horizontal(tied[j] & (value == q[j]) for j in breaks).fill_null(False)

    parts = [f"{temp}_{part}" for part in ("point", "lower", "upper", "above")]
    lf = lf.with_columns(
        is_point(col).alias(parts[0]),
        pl.max_horizontal(pl.when(q[j] <= col).then(q[j]) for j in breaks).alias(parts[1]),
        pl.min_horizontal(pl.when(q[j] > col).then(q[j]) for j in breaks).alias(parts[2]),
        pl.sum_horizontal(((q[j] <= col) & new[j]).cast(pl.Int64) for j in breaks).alias(parts[3]),
    )
    point, lower, upper, above = (pl.col(c) for c in parts)
    fields = [
        (2 * above - point.cast(pl.Int64)).alias("bin"),
        pl.when(point).then(col).otherwise(lower).alias("left"),
        pl.when(point).then(col).otherwise(upper).alias("right"),
        (point | ~is_point(lower)).alias("closed"),
    ]
    binned = pl.when(col.is_not_null()).then(pl.struct(fields)).alias(name)
    return lf.with_columns(binned).drop(temp, *names, *parts)


def _roots(column: IntoColumn | None) -> list[str]:
    if isinstance(column, pl.Expr):
        return list(column.meta.root_names())
    return [column] if isinstance(column, str) else []  # others: refused when resolved


def _check_overlaps(
    candidates: Sequence[str], binned: Sequence[str], columns: dict[str, IntoColumn | None]
) -> None:
    """A candidate may not be a label or weight column, nor be binned under one's feet."""
    for param, column in columns.items():
        if isinstance(column, str) and column in candidates:
            msg = (
                f"candidate {column!r} is the `{param}` column: its slices would compare a "
                "measure within one value of it\n\nHint: drop it from `candidates`"
            )
            raise InvalidParameterError(msg)
        read = [c for c in _roots(column) if c in binned]
        if read:
            c = read[0]
            msg = (
                f"candidate {c!r} is numeric, so its slices are quantile bins, but `{param}` "
                f"reads its values\n\nHint: slice a copy, e.g. `.with_columns(pl.col({c!r})"
                f".alias({c + '_bin'!r}))` and `candidates=[..., {c + '_bin'!r}]`"
            )
            raise InvalidParameterError(msg)


def _label_exprs(binned: Sequence[str]) -> list[pl.Expr]:
    """The labels of the bin structs: ``[25, 34)``, ``(-inf, 25)``, ``{0}``, ``(0, 3)``."""
    exprs = []
    for name in binned:
        s = pl.col(name)
        low, high = s.struct.field("left"), s.struct.field("right")
        left = low.cast(pl.String).fill_null("-inf")
        right = high.cast(pl.String).fill_null("inf")
        opener = pl.when(s.struct.field("closed") & low.is_not_null()).then(pl.lit("["))
        label = pl.concat_str(opener.otherwise(pl.lit("(")), left, pl.lit(", "), right, pl.lit(")"))
        single = pl.concat_str(pl.lit("{"), left, pl.lit("}"))
        label = pl.when(low.is_not_null() & (low == high)).then(single).otherwise(label)
        exprs.append(pl.when(s.struct.field("bin").is_not_null()).then(label).alias(name))
    return exprs


def bin_labels(stats: pl.LazyFrame, binned: Sequence[str]) -> pl.LazyFrame:
    """Replace the bin structs of a (small) reduction by their labels, ``[25, 34)``."""
    return stats.with_columns(_label_exprs(binned)) if binned else stats


class SliceReduction:
    """The lazy reduction of a slice search and how to split it into derivation parts."""

    def __init__(
        self,
        reduced: pl.LazyFrame,
        strategy: Literal["finest", "subsets"],
        groups: list[tuple[str, ...]],
        binned: list[str],
        keys: list[str],
    ) -> None:
        self.reduced = reduced
        self.strategy = strategy
        #: attribute sets of the reductions (one: all candidates, for "finest")
        self.groups = groups
        self.binned = binned
        self.keys = keys

    def parts(
        self, stats: pl.LazyFrame, subsets: Sequence[tuple[str, ...]]
    ) -> list[tuple[pl.LazyFrame, list[tuple[str, ...]]]]:
        """Pair each reduction (read from the collected or lazy `stats`) with its subsets.

        Each subset goes to the first reduction whose attributes contain it. Every
        subset's ``group_by`` and the totals read `stats`, so it is cached: on a
        LazyFrame the rows are reduced once, not once per subset (a source that
        common-subplan elimination does not merge, such as a Python IO source,
        would otherwise be read again for each).
        """
        if self.strategy == "finest":
            return [(bin_labels(stats, self.binned).cache(), list(subsets))]
        stats = stats.cache()  # the "subsets" tables are labelled as they are reduced
        assigned: list[list[tuple[str, ...]]] = [[] for _ in self.groups]
        for subset in subsets:
            i = next(i for i, g in enumerate(self.groups) if set(subset) <= set(g))
            assigned[i].append(subset)
        return [
            (stats.filter(pl.col(PART) == i).drop(PART), assigned[i])
            for i in range(len(self.groups))
            if assigned[i]
        ]

    def warn_rows(self, table: pl.DataFrame) -> pl.DataFrame:
        """The rows of the collected reduction that count each data row once, bins labelled."""
        if self.strategy != "finest":
            return table.filter(pl.col(PART) == 0)
        return table.with_columns(_label_exprs(self.binned)) if self.binned else table


def slice_reduction(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn | None,
    y_pred: IntoColumn | None,
    candidates: Sequence[str],
    metric: str,
    max_depth: int,
    by: IntoColumns | None,
    sample_weight: IntoColumn | None,
    pos_label: PosLabel,
    n_bins: int,
    strategy: object,
) -> SliceReduction:
    """Build the lazy reduction(s) of a slice search (reads no data).

    Parameters are those of :meth:`~polars_fair.FairNamespace.slices`, checked.
    """
    if not isinstance(n_bins, int) or isinstance(n_bins, bool) or n_bins < 2:
        msg = (
            f"`n_bins` must be an integer >= 2, got {n_bins!r}\n\nHint: e.g. `n_bins=4` (quartiles)"
        )
        raise InvalidParameterError(msg)
    check_at_most(
        n_bins, "n_bins", 1_000, "numeric candidates are cut into quantiles: e.g. `n_bins=4`"
    )
    lf = ensure_lazy(frame)
    schema = lf.collect_schema()
    given: list[object] = [] if by is None else list(by) if isinstance(by, (list, tuple)) else [by]
    for name in given:
        if not isinstance(name, str):
            raise key_error(name, "by", schema)
        if name in _OUTPUT_NAMES:
            msg = (
                f"column {name!r} (given as `by`) clashes with an output column of `slices`"
                f"\n\nHint: rename it first, e.g. `.rename({{{name!r}: {name + '_'!r}}})`"
            )
            raise InvalidParameterError(msg)
    by_ = [str(name) for name in given]
    for name in candidates:
        if name in schema and isinstance(schema[name], (pl.List, pl.Array, pl.Struct, pl.Object)):
            msg = (
                f"candidate column {name!r} has dtype {schema[name]}, which cannot define slices"
                "\n\nHint: pass columns of categories, strings, booleans or numbers"
            )
            raise InvalidParameterError(msg)
        if name in by_:
            msg = (
                f"column {name!r} is both a candidate and a `by` key"
                "\n\nHint: slices are found within each batch key; drop it from one of them"
            )
            raise InvalidParameterError(msg)
    missing = [c for c in candidates if c not in schema]
    if missing:
        raise column_not_found(
            missing[0], "candidates", schema, "pass existing columns as `candidates=`"
        )
    chosen = choose_strategy(strategy, schema, candidates, max_depth, n_bins)
    binned = [c for c in candidates if _is_binned(schema[c])]
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    _check_overlaps(candidates, binned, columns)
    for c in binned:
        lf = _bin(lf, c, n_bins, schema[c])

    def reduce(source: pl.LazyFrame, attributes: Sequence[str]) -> pl.LazyFrame:
        if metric in _MEANS:
            if y_pred is None:
                msg = f"`metric`={metric!r} needs `y_pred`, got None\n\nHint: pass the prediction column"
                raise InvalidParameterError(msg)
            if metric != "mean_prediction" and y_true is None:
                msg = f"`metric`={metric!r} needs `y_true`, got None\n\nHint: pass the true value column"
                raise InvalidParameterError(msg)
            return regression_stats(
                source, y_pred=y_pred, y_true=y_true, sensitive_features=list(attributes),
                by=by_ or None, sample_weight=sample_weight, weight_squares=True,
            )  # fmt: skip
        return group_stats(
            source, y_true=y_true, y_pred=y_pred, sensitive_features=list(attributes),
            by=by_ or None, sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip

    keys = [*by_, *candidates]
    if chosen == "finest":
        return SliceReduction(reduce(lf, candidates), chosen, [tuple(candidates)], binned, keys)
    source = lf.cache()
    groups = list(itertools.combinations(candidates, max_depth))
    tables = [
        bin_labels(reduce(source, g), [c for c in binned if c in g]).with_columns(
            pl.lit(i, dtype=pl.Int32).alias(PART)
        )
        for i, g in enumerate(groups)
    ]
    reduced = pl.concat(tables, how="diagonal_relaxed")
    return SliceReduction(reduced, chosen, groups, binned, keys)
