"""Per-group rate tables and the long disparity table, from the statistics table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import polars as pl

from polars_fair._utils import built_once, over
from polars_fair.metrics._intervals import (
    INTERVAL_RATES,
    effective_fraction,
    haldane,
    katz_bounds,
    katz_parts,
    kish_factor,
    large_enough,
    newcombe_difference,
    wilson_stages,
    z_value,
)
from polars_fair.metrics._rates import (
    RATES,
    SCORE_RATES,
    Counts,
    available_rates,
    rate_expr,
    safe_div,
)
from polars_fair.metrics._reference import is_reference
from polars_fair.reduce import WEIGHT_SQUARE_COLUMNS

__all__ = ["METRIC_DTYPE", "disparity_table", "rate_columns", "rates_table"]

#: The ``metric`` column of the disparity table: an Enum in catalogue order.
METRIC_DTYPE = pl.Enum([*RATES, *SCORE_RATES])


def rate_columns(
    names: Sequence[str], by: list[str], metrics: Sequence[str] | None = None
) -> dict[str, pl.Expr]:
    """Rate expressions over a statistics table with columns `names`."""
    c = Counts.from_columns(names)
    total_pp = over(c.PP().sum(), by) if c.tp is not None or c.pred_pos is not None else None
    wanted = available_rates(c) if metrics is None else tuple(metrics)
    return {r: rate_expr(r, c, total_pp) for r in wanted}


def _fill(expr: pl.Expr, zero_division: float | None) -> pl.Expr:
    return expr if zero_division is None else expr.fill_null(zero_division)


def rates_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    zero_division: float | None,
    confidence_level: float | None = None,
    min_group_size: float | None = None,
    frequency_weights: bool = False,
) -> pl.LazyFrame:
    """The statistics table with one column per computable rate.

    With `confidence_level`, each proportion rate gets Wilson interval columns
    ``<rate>_ci_low`` and ``<rate>_ci_high`` (after all rates, in rate order); with
    `min_group_size`, a Boolean ``small_group`` column (``n < min_group_size``, with the
    Kish effective size ``n**2 / sum_w2`` as ``n`` in a weighted table). The intervals
    of a weighted table are those of the Kish effective counts too, unless
    `frequency_weights` (weights read as row counts, as the summary's option).
    """
    names = tuple(stats.collect_schema().names())
    if frequency_weights:  # the weight sums are the sizes: no effective-size reading
        names = tuple(n for n in names if n not in WEIGHT_SQUARE_COLUMNS)
    ops = built_once(_rates_ops, names, tuple(by), zero_division, confidence_level, min_group_size)
    return _apply(stats, ops)


#: Steps of a derived table: ``("with", exprs)`` adds columns, ``("drop", names)``.
_Ops = tuple[tuple[str, tuple[Any, ...]], ...]


def _apply(table: pl.LazyFrame, ops: _Ops) -> pl.LazyFrame:
    for op, items in ops:
        table = table.with_columns(items) if op == "with" else table.drop(items)
    return table


def _rates_ops(
    names: tuple[str, ...],
    by_: tuple[str, ...],
    zero_division: float | None,
    confidence_level: float | None,
    min_group_size: float | None,
) -> _Ops:
    """The steps of :func:`rates_table` (they depend on the column names alone)."""
    by = list(by_)
    cols = rate_columns(names, by)
    ops: list[tuple[str, tuple[Any, ...]]] = [
        ("with", tuple(_fill(e, zero_division).alias(r) for r, e in cols.items()))
    ]
    if confidence_level is not None:
        c = Counts.from_columns(names)
        rates = [r for r in cols if r in INTERVAL_RATES]
        f = _kish_factor(names)
        stages, wilsons, staged = wilson_stages(
            [(r, *effective_fraction(r, c, f)) for r in rates], z_value(confidence_level)
        )
        ops += [("with", tuple(stage)) for stage in stages]
        bounds = []
        for rate in rates:
            low, high = wilsons[rate]
            bounds += [low.alias(f"{rate}_ci_low"), high.alias(f"{rate}_ci_high")]
        ops += [("with", tuple(bounds)), ("drop", tuple(staged))]
    if min_group_size is not None:
        # the effective size with weights (Kish: n**2 / sum_w2), as the summary reads it
        size = pl.col("n").cast(pl.Float64)
        if "sum_w2" in names:
            size = size * kish_factor(pl.col("n"), pl.col("sum_w2"))
        ops.append(("with", ((~large_enough(size, min_group_size)).alias("small_group"),)))
    return tuple(ops)


_TOTAL = "__pf_total_"


def _with_totals(c: Counts, by: list[str]) -> tuple[pl.Expr, ...]:
    """The counts summed over the groups of each batch key, as columns (see `_totals`).

    Materialised once: the pooled references (``"overall"``, ``"rest"``) of every rate
    then refer to these columns instead of repeating a window sum per rate.
    """
    present = {f.name: getattr(c, f.name) for f in fields(c) if getattr(c, f.name) is not None}
    return tuple(over(e.sum(), by).alias(_TOTAL + k) for k, e in present.items())


def _totals(c: Counts) -> Counts:
    """The count columns written by `_with_totals`."""
    present = [f.name for f in fields(c) if getattr(c, f.name) is not None]
    return Counts(**{k: pl.col(_TOTAL + k) for k in present})


_REF = "__pf_ref"
_VALUE = "__pf_v_"
_REFERENCE = "__pf_r_"


def _own(reference: tuple[Any, ...] | str) -> pl.Expr:
    """The rows that are the reference group itself (none for the pooled "rest")."""
    return pl.col(_REF) if _is_pointed(reference) else pl.lit(False)


def _is_pointed(reference: tuple[Any, ...] | str) -> bool:
    """A reference that is one group's row: a named group or ``"largest"``."""
    return isinstance(reference, tuple) or reference == "largest"


def _reference_value(
    rate: str,
    value: pl.Expr,
    c: Counts,
    reference: tuple[Any, ...] | str,
    by: list[str],
) -> pl.Expr:
    if reference == "min":
        return over(value.min(), by)
    if reference in ("overall", "rest"):
        total = _totals(c)
        pooled = total if reference == "overall" else total.minus(c)
        total_pp = total.PP() if rate == "predicted_positive_share" else None
        return rate_expr(rate, pooled, total_pp)
    return over(value.filter(pl.col(_REF)).first(), by)


def _kish_factor(names: Sequence[str]) -> pl.Expr:
    """Each group's counts to its Kish effective counts: ``n / sum_w2`` (1 unweighted).

    A weighted statistics table carries ``sum_w2``, the sum of squared weights: a
    group's effective size is ``n**2 / sum_w2``, and every count scaled by
    ``n / sum_w2`` keeps the rates and makes the Wilson, Newcombe and Katz
    intervals those of the effective size, unchanged when every weight is
    rescaled (as the summary's, see :func:`~polars_fair.metrics._verdicts.effective_counts`).
    """
    if "sum_w2" not in names:
        return pl.lit(1.0)
    return kish_factor(pl.col("n"), pl.col("sum_w2"))


def _interval_counts(
    c: Counts,
    rates: list[str],
    reference: tuple[Any, ...] | str,
    by: list[str],
    names: Sequence[str] = (),
) -> tuple[pl.Expr, ...]:
    """Numerators and denominators of each rate and of its reference, as columns.

    Effective counts with weights (see :func:`_kish_factor`); the rest of the
    groups (``"rest"``) is scaled by its own factor, from the additive totals of
    ``n`` and ``sum_w2``.
    """
    f = _kish_factor(names)
    f_rest = pl.lit(1.0)
    if "sum_w2" in names:
        rest_n = over(pl.col("n").sum(), by) - pl.col("n")
        rest_w2 = over(pl.col("sum_w2").sum(), by) - pl.col("sum_w2")
        f_rest = kish_factor(rest_n, rest_w2)
    cols = []
    for rate in rates:
        x, m = effective_fraction(rate, c, f)
        if reference == "rest":
            xr, mr = effective_fraction(rate, _totals(c).minus(c), f_rest)
        else:
            xr, mr = (over(e.filter(pl.col(_REF)).first(), by) for e in (x, m))
        cols += [
            x.cast(pl.Float64).alias(f"__pf_x_{rate}"),
            m.cast(pl.Float64).alias(f"__pf_m_{rate}"),
            xr.cast(pl.Float64).alias(f"__pf_xr_{rate}"),
            mr.cast(pl.Float64).alias(f"__pf_mr_{rate}"),
        ]
    return tuple(cols)


#: The interval columns of the disparity table.
_INTERVALS = ("difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high")


def _interval_ops(reference: tuple[Any, ...] | str, z: float) -> tuple[_Ops, list[pl.Expr]]:
    """Newcombe and Katz intervals of each row's difference and ratio to the reference.

    Over the long table (one row per group and rate, with the counts ``__pf_x``,
    ``__pf_m`` of the rate and ``__pf_xr``, ``__pf_mr`` of its reference, and
    ``__pf_u``, whether the rate has intervals): one computation for all rates, in
    steps of plain columns. Defined for a named or ``"largest"`` reference (the
    reference's own row is null) and for ``"rest"`` (independent pooled counts).
    """
    x, m, xr, mr = (pl.col(f"__pf_{k}") for k in ("x", "m", "xr", "mr"))
    stages, wilsons, _ = wilson_stages([("a", x, m), ("b", xr, mr)], z)
    names = ("__pf_kh1", "__pf_kh2", "__pf_kh3", "__pf_kh4")
    corrected = [c.alias(n) for c, n in zip(haldane(x, m, xr, mr), names, strict=True)]
    stages.insert(0, corrected)  # the corrected counts, as plain columns, first
    ratio, se, defined = katz_parts(*(pl.col(n) for n in names))
    stages[1] += [
        safe_div(x, m).alias("__pf_p1"), safe_div(xr, mr).alias("__pf_p2"),
        ratio.alias("__pf_kr"), se.alias("__pf_ks"), defined.alias("__pf_kd"),
    ]  # fmt: skip
    d_low, d_high = newcombe_difference(
        pl.col("__pf_p1"), wilsons["a"], pl.col("__pf_p2"), wilsons["b"]
    )
    r_low, r_high = katz_bounds(pl.col("__pf_kr"), pl.col("__pf_ks"), pl.col("__pf_kd"), z)
    keep = pl.col("__pf_u") & ~_own(reference)
    bounds = [
        pl.when(keep).then(e).alias(n)
        for e, n in zip((d_low, d_high, r_low, r_high), _INTERVALS, strict=True)
    ]
    return tuple(("with", tuple(stage)) for stage in stages), bounds


def disparity_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    metrics: Sequence[str] | None,
    zero_division: float | None,
    confidence_level: float | None = None,
    frequency_weights: bool = False,
) -> pl.LazyFrame:
    """The long table ``keys, metric, value, reference_value, difference, ratio``.

    With `confidence_level`, also ``difference_ci_low/high`` (Newcombe) and
    ``ratio_ci_low/high`` (Katz), from the Kish effective counts of a weighted table
    unless `frequency_weights` (weights read as row counts).
    """
    names = tuple(stats.collect_schema().names())
    if frequency_weights:  # the weight sums are the sizes: no effective-size reading
        names = tuple(n for n in names if n not in WEIGHT_SQUARE_COLUMNS)
    ops, structs, values, long_ops, out = built_once(
        _disparity_ops, names, tuple(by), tuple(sensitive), reference,
        None if metrics is None else tuple(metrics), zero_division, confidence_level,
    )  # fmt: skip
    stats = _apply(stats, ops)
    keys = [*by, *sensitive]
    index = [*keys, _REF] if _is_pointed(reference) else keys
    wide = stats.select(*index, *structs)
    long = wide.unpivot(on=list(values), index=index, variable_name="metric", value_name="__pf_s")
    long = _apply(long.unnest("__pf_s"), long_ops)
    return long.select(*keys, pl.col("metric").cast(METRIC_DTYPE), *out).sort(
        [*keys, "metric"], nulls_last=True
    )


def _disparity_ops(
    names: tuple[str, ...],
    by_: tuple[str, ...],
    sensitive: tuple[str, ...],
    reference: tuple[Any, ...] | str,
    metrics: tuple[str, ...] | None,
    zero_division: float | None,
    confidence_level: float | None,
) -> tuple[_Ops, tuple[pl.Expr, ...], tuple[str, ...], _Ops, tuple[pl.Expr, ...]]:
    """The steps of :func:`disparity_table`.

    Per group (wide): one struct per rate of its value, reference value, difference
    and ratio, and the counts of its intervals; then, over the long table (one row
    per group and rate), the steps computing every rate's intervals at once, and the
    output columns.
    """
    by = list(by_)
    c = Counts.from_columns(names)
    values = rate_columns(names, by, metrics)
    # Built in stages, each a with_columns of plain columns: the reference row, the
    # rates, then their reference values. Inlining them instead repeats every window
    # in every field that uses it (hundreds of windows on a report's small table).
    ops: list[tuple[str, tuple[Any, ...]]] = []
    if reference in ("overall", "rest"):
        ops.append(("with", _with_totals(c, by)))
    if _is_pointed(reference):
        ops.append(("with", (is_reference(reference, sensitive, by).alias(_REF),)))
    ops.append(("with", tuple(value.alias(_VALUE + rate) for rate, value in values.items())))
    ops.append((
        "with",
        tuple(
            _reference_value(rate, pl.col(_VALUE + rate), c, reference, by).alias(_REFERENCE + rate)
            for rate in values
        ),
    ))  # fmt: skip
    # intervals: for a named or "largest" reference and for "rest" (not "overall" and
    # "min", whose reference is not independent of the group), of proportions only
    pointed = _is_pointed(reference) or reference == "rest"
    usable = [r for r in values if r in INTERVAL_RATES] if pointed else []
    if confidence_level is not None and usable:
        ops.append(("with", _interval_counts(c, usable, reference, by, names)))
    none = pl.lit(None, dtype=pl.Float64)
    structs = []
    for rate in values:
        v = _fill(pl.col(_VALUE + rate), zero_division)
        ref = _fill(pl.col(_REFERENCE + rate), zero_division)
        fields = [
            v.alias("value"),
            ref.alias("reference_value"),
            (v - ref).alias("difference"),
            safe_div(v, ref).alias("ratio"),
        ]
        if confidence_level is not None and usable:
            counts = [pl.col(f"__pf_{k}_{rate}") for k in ("x", "m", "xr", "mr")]
            if rate not in usable:
                counts = [none] * 4
            fields += [
                e.alias(f"__pf_{k}") for e, k in zip(counts, ("x", "m", "xr", "mr"), strict=True)
            ]
            fields.append(pl.lit(rate in usable).alias("__pf_u"))
        structs.append(pl.struct(fields).alias(rate))
    out = [pl.col(c) for c in ("value", "reference_value", "difference", "ratio")]
    long_ops: _Ops = ()
    if confidence_level is not None:
        if usable:
            long_ops, bounds = _interval_ops(reference, z_value(confidence_level))
            out += bounds
        else:
            out += [none.alias(n) for n in _INTERVALS]
    return tuple(ops), tuple(structs), tuple(values), long_ops, tuple(out)
