"""Scalar fairness criteria: one number per batch key, from the statistics table.

A criterion compares one per-group measure (a rate, or a composite such as
``treatment_equality``) across groups with one of three methods:

* ``"between_groups"``: difference ``max - min`` (>= 0), ratio ``min / max`` (<= 1);
* ``"to_overall"``: the largest ``|g - overall|``; the smallest
  ``min(g / overall, overall / g)``;
* ``"to_reference"``: signed ``g - ref`` and ``g / ref`` of the group farthest from
  the reference (``|g - ref|`` for differences, ``|log(g / ref)|`` for ratios; a
  ratio of 0 is farthest). With two groups this is the one other group.

Groups whose measure is undefined (null) are left out of the comparison; a
criterion with no defined comparison is null.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import polars as pl

from polars_fair._utils import built_once, over, per_key, schema_of
from polars_fair.metrics._rates import Counts, rate_expr, safe_div
from polars_fair.metrics._reference import is_reference

__all__ = [
    "Formula", "criteria_wide", "criterion_table", "farthest_from_reference", "log_distance",
    "tied",
]  # fmt: skip

Kind = Literal["difference", "ratio"]
#: A per-group measure from additive sum columns: ``formula(measure, get)`` where
#: ``get(column)`` returns the column (per group) or its total (whole population).
Formula = Callable[[str, Callable[[str], pl.Expr]], pl.Expr]
_REF = "__pf_is_ref"
_INF = float("inf")


def _value_col(measure: str) -> str:
    return f"__pf_v_{measure}"


def _ref_col(measure: str) -> str:
    return f"__pf_r_{measure}"


def log_distance(q: pl.Expr) -> pl.Expr:
    """Distance of a ratio from 1 on the log scale; a ratio of 0 is infinitely far."""
    return pl.when(q == 0).then(_INF).otherwise(q.log().abs())


def _between(v: pl.Expr, kind: Kind) -> pl.Expr:
    return v.max() - v.min() if kind == "difference" else safe_div(v.min(), v.max())


def _to_overall(v: pl.Expr, overall: pl.Expr, kind: Kind) -> pl.Expr:
    if kind == "difference":
        return (v - overall).abs().max()
    per_group = (
        pl.when(overall == 0)
        .then(None)
        .when(v == 0)
        .then(0.0)
        .otherwise(pl.min_horizontal(v / overall, overall / v))
    )
    return per_group.min()


def tied(value: pl.Expr) -> pl.Expr:
    """`value` to 12 significant digits: the key an extreme group is chosen by.

    Two groups whose statistics are equal (discrete scores give equal means; two
    rates 0.3 either side of the reference) may differ in the last bits of their
    floats, which depend on the order of summation (a profile merged from pieces, a
    streaming run) and on the arithmetic (``0.5 - 0.2`` against ``0.8 - 0.5``): chosen by
    the exact floats, the group, and with it the signed value, the interval and the
    verdict, would depend on them. Rounded, they tie, and the tie is broken by value,
    then by name, never by the order of the table's rows. The values themselves are
    not rounded.
    """
    return value.round_sig_figs(12)


def farthest_from_reference(values: pl.Expr, distance: pl.Expr, is_ref: pl.Expr) -> pl.Expr:
    """The value whose distance is largest, among non-reference defined groups.

    Distances equal to 12 significant digits tie (:func:`tied`), and the lowest of the
    tied values is taken (of 0.3 either side of the reference, -0.3), whatever order
    the groups come in; the summary names the first such group by name.
    """
    keep = ~is_ref & values.is_not_null()
    d = tied(distance)
    return values.filter(keep & (d == d.filter(keep).max())).min()


def _farthest(values: pl.Expr, distance: pl.Expr) -> pl.Expr:
    return farthest_from_reference(values, distance, pl.col(_REF))


def _to_reference(v: pl.Expr, ref: pl.Expr, kind: Kind) -> pl.Expr:
    if kind == "difference":
        d = v - ref
        return _farthest(d, d.abs())
    q = safe_div(v, ref)
    return _farthest(q, log_distance(q))


def signed_ratio_guard(ratio: pl.Expr, values: pl.Expr) -> pl.Expr:
    """Null where a compared value is negative: a ratio across signs measures nothing.

    Rates are never negative; a mean prediction can be, and ``-1 / 2`` or ``-2 / -1``
    is not a disparity (docs/conventions.md, "Ratios of signed values").
    """
    return pl.when((values < 0).any()).then(None).otherwise(ratio)


def _combine(parts: list[pl.Expr], kind: Kind, method: str, agg: str) -> pl.Expr:
    """Combine the criteria of several measures (equalized odds and friends)."""
    if len(parts) == 1:
        return parts[0]
    any_null = pl.any_horizontal(p.is_null() for p in parts)
    if agg == "mean":
        combined = pl.sum_horizontal(parts) / len(parts)
    elif method != "to_reference":
        combined = pl.max_horizontal(parts) if kind == "difference" else pl.min_horizontal(parts)
    else:
        # signed values: keep the one farthest from the ideal (0 or 1)
        dist = [tied(p.abs() if kind == "difference" else log_distance(p)) for p in parts]
        combined = parts[0]
        best = dist[0]
        for p, d in zip(parts[1:], dist[1:], strict=True):
            combined = pl.when(d > best).then(p).otherwise(combined)
            best = pl.max_horizontal(best, d)
    return pl.when(any_null).then(None).otherwise(combined)


def _average_abs_odds(method: str) -> pl.Expr:
    tpr, fpr = pl.col(_value_col("true_positive_rate")), pl.col(_value_col("false_positive_rate"))
    if method == "between_groups":
        return ((tpr.max() - tpr.min()) + (fpr.max() - fpr.min())) / 2
    rt, rf = pl.col(_ref_col("true_positive_rate")), pl.col(_ref_col("false_positive_rate"))
    per_group = ((tpr - rt).abs() + (fpr - rf).abs()) / 2
    if method == "to_overall":
        return per_group.max()
    keep = ~pl.col(_REF) & per_group.is_not_null()
    return per_group.filter(keep).max()


def criterion_table(
    stats: pl.LazyFrame,
    *,
    name: str,
    measures: Sequence[str],
    kind: Kind,
    method: str,
    agg: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
    formula: Formula | None = None,
) -> pl.LazyFrame:
    """
    One row per batch key (one row without keys) and one column `name`.

    `measures` are rate or composite names (or, with `formula`, the names it
    knows); several are combined with `agg`. ``name == "average_abs_odds_difference"``
    is the one criterion that is not a comparison of a single per-group measure.
    """
    columns = tuple(schema_of(stats).names()) if formula is None else ()
    args = (
        columns, name, tuple(measures), kind, method, agg, tuple(by), tuple(sensitive),
        reference, zero_division, formula,
    )  # fmt: skip
    # built once per argument set: they depend on the statistics table's column names only
    prepared, second, result = built_once(_criterion_exprs, *args)
    table = stats.with_columns(prepared)
    if second:
        table = table.with_columns(second)
    return per_key(table, result, by)


_Exprs = tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...], pl.Expr]


def criteria_wide(
    stats: pl.LazyFrame,
    *,
    specs: Sequence[tuple[str, Sequence[str], Kind, str]],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
    masks: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Several criteria ``(name, measures, kind, agg)`` in one aggregation.

    One row per batch key (unsorted; one row without keys), one column per
    criterion, each the expression of :func:`criterion_table`; the per-group
    columns the criteria share are computed once. `masks`: criterion name to a
    Boolean column of `stats`; that criterion compares only the groups where it is
    true (the overall and the reference still come from every group).
    """
    masks = masks or {}
    columns = tuple(schema_of(stats).names())
    steps: tuple[dict[str, pl.Expr], dict[str, pl.Expr]] = ({}, {})
    results = []
    for name, measures, kind, agg in specs:
        args = (
            columns, name, tuple(measures), kind, method, agg, tuple(by), tuple(sensitive),
            reference, zero_division, None, masks.get(name),
        )  # fmt: skip
        exprs = built_once(_criterion_exprs, *args)
        for step, step_exprs in zip(steps, exprs[:2], strict=True):
            for e in step_exprs:
                if not step.setdefault(e.meta.output_name(), e).meta.eq(e):
                    # two criteria name different columns alike: one table each
                    tables = [criteria_wide(stats, specs=[s], method=method, by=by,
                              sensitive=sensitive, reference=reference,
                              zero_division=zero_division, masks=masks)
                              for s in specs]  # fmt: skip
                    out = tables[0]
                    for t in tables[1:]:
                        out = out.join(t, on=by, how="left", nulls_equal=True)
                    return out
        results.append(exprs[2])
    table = stats.with_columns(list(steps[0].values()))
    if steps[1]:
        table = table.with_columns(list(steps[1].values()))
    return table.group_by(by).agg(results) if by else table.select(results)


def _criterion_exprs(
    columns: tuple[str, ...],
    name: str,
    measures: tuple[str, ...],
    kind: Kind,
    method: str,
    agg: str,
    by_: tuple[str, ...],
    sensitive: tuple[str, ...],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
    formula: Formula | None,
    mask: str | None = None,
) -> _Exprs:
    """The per-group columns, the reference columns and the result of a criterion.

    `mask`: a Boolean column; the result compares only the groups where it is true.
    """
    by = list(by_)

    def fill(e: pl.Expr) -> pl.Expr:
        return e if zero_division is None else e.fill_null(zero_division)

    refs: list[pl.Expr] = []
    if formula is not None:
        prepared = [fill(formula(m, pl.col)).alias(_value_col(m)) for m in measures]
        if method == "to_overall":
            refs = [
                fill(formula(m, lambda col: over(pl.col(col).sum(), by))).alias(_ref_col(m))
                for m in measures
            ]
    else:
        c = Counts.from_columns(columns)
        total_pp = over(c.PP().sum(), by) if "predicted_positive_share" in measures else None
        prepared = [fill(rate_expr(m, c, total_pp)).alias(_value_col(m)) for m in measures]
        if method == "to_overall":
            total = c.map(lambda e: over(e.sum(), by))
            for m in measures:
                t_pp = total.PP() if m == "predicted_positive_share" else None
                refs.append(fill(rate_expr(m, total, t_pp)).alias(_ref_col(m)))
    if method == "to_reference":
        prepared.append(is_reference(reference, sensitive, by).alias(_REF))
        refs = [
            over(pl.col(_value_col(m)).filter(pl.col(_REF)).first(), by).alias(_ref_col(m))
            for m in measures
        ]

    if name == "average_abs_odds_difference":
        assert mask is None  # its pairs differ by part: not one named comparison
        result = _average_abs_odds(method)
    else:
        parts = []
        for m in measures:
            v = pl.col(_value_col(m))
            if mask is not None:
                v = pl.when(pl.col(mask)).then(v)
            if method == "between_groups":
                part = _between(v, kind)
            elif method == "to_overall":
                part = _to_overall(v, pl.col(_ref_col(m)), kind)
            else:
                part = _to_reference(v, pl.col(_ref_col(m)), kind)
            parts.append(part if kind == "difference" else signed_ratio_guard(part, v))
        result = _combine(parts, kind, method, agg)
    result = result.cast(pl.Float64).alias(name)
    return tuple(prepared), tuple(refs), result
