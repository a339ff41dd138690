"""Reduction for ensembles: per-row stability and uncertainty, summed per group.

An ensemble gives each row M member probabilities ``p_1 … p_M`` of the positive
class (several columns, or one list or array column). Per row, inside the lazy
plan (list expressions, no Python loop over rows or members):

* ``label_stability = |#pos - #neg| / M``, members' labels ``p_m >= threshold``;
* ``jitter = #pos · #neg / (M (M - 1) / 2)``: the share of member pairs that
  disagree (Virny's mean pairwise churn, per row);
* ``std``: standard deviation of the members' probabilities (``ddof=1``, as
  pandas in Virny); ``iqr``: their interquartile range (linear interpolation, as
  :func:`scipy.stats.iqr`);
* ``aleatoric_uncertainty``: mean binary entropy (base 2) of the members;
  ``overall_uncertainty``: entropy of the mean probability;
  ``epistemic_uncertainty = overall - aleatoric`` (>= 0 by concavity).

The reduction sums each measure per (batch key, group): additive like every
statistics table. Virny feeds the entropy the probability of class 0; binary
entropy is symmetric, so using P(y = 1) throughout gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._numeric import (
    BAD_WEIGHTS,
    WEIGHT_HINT,
    bad_weight_aggs,
    check_sums_finite,
    check_weight_values,
)
from polars_fair._utils import check_in_plan
from polars_fair._validate import as_python, resolve_column, resolve_keys, resolve_weight
from polars_fair.exceptions import InvalidParameterError, ValueRangeError

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns

__all__ = ["ENSEMBLE_MEASURES", "column_steps", "ensemble_stats", "list_measures"]

#: The per-row measures, in table order (the statistics table holds ``sum_<m>``).
ENSEMBLE_MEASURES = (
    "label_stability",
    "jitter",
    "std",
    "iqr",
    "aleatoric_uncertainty",
    "epistemic_uncertainty",
    "overall_uncertainty",
)

MSG_MEMBERS = (
    "`y_prob` must give the ensemble members: two or more probability columns, or one "
    'list or array column, got {found}\n\nHint: e.g. `y_prob=["p1", "p2", "p3"]` '
    'or `y_prob="member_probs"`'
)
MSG_MEMBER_VALUES = (
    "`y_prob` members {name} must hold probabilities in [0, 1], found {found}"
    "\n\nHint: pass P(y = 1) of each member; rows with a null member are excluded and "
    "counted in `n_null`"
)
MSG_MEMBER_COUNT = (
    "`y_prob` list column {name} must hold the same number (at least two) of members "
    "on every row, found lengths from {low} to {high}\n\nHint: pad or drop the rows "
    "with missing members"
)
MSG_ONE_MEMBER = (
    "`y_prob` list column {name} holds {high} member(s) on every row; an ensemble needs "
    "at least two\n\nHint: give every member's probability in the list, or pass one score "
    "as `y_prob` to the score methods (e.g. `df.fair.roc_auc(...)`)"
)

_L = "__pf_members"


def _entropy(p: pl.Expr) -> pl.Expr:
    """Binary entropy in bits, with 0 log 0 = 0."""
    inner = (p > 0) & (p < 1)
    h = -(p * p.log(2) + (1 - p) * (1 - p).log(2))
    return pl.when(inner).then(h).otherwise(0.0)


def _lerp(a: pl.Expr, b: pl.Expr, gamma: float) -> pl.Expr:
    """Linear interpolation between neighbouring order statistics, as numpy."""
    return b - (b - a) * (1 - gamma) if gamma >= 0.5 else a + (b - a) * gamma


def _measures(
    pos: pl.Expr, m: pl.Expr, mean: pl.Expr, std: pl.Expr, iqr: pl.Expr, aleatoric: pl.Expr
) -> dict[str, pl.Expr]:
    overall = _entropy(mean)
    return {
        "label_stability": (2 * pos - m).abs() / m,
        "jitter": pos * (m - pos) / (m * (m - 1) / 2),
        "std": std,
        "iqr": iqr,
        "aleatoric_uncertainty": aleatoric,
        "epistemic_uncertainty": overall - aleatoric,
        "overall_uncertainty": overall,
    }


def list_measures(members: pl.Expr, threshold: float) -> dict[str, pl.Expr]:
    """Per-row ensemble measures of a list expression of member probabilities."""
    e = pl.element()
    return _measures(
        pos=members.list.eval(e >= threshold).list.sum().cast(pl.Float64),
        m=members.list.len().cast(pl.Float64),
        mean=members.list.mean(),
        std=members.list.std(ddof=1),
        iqr=members.list.eval(e.quantile(0.75, "linear") - e.quantile(0.25, "linear")).list.first(),
        aleatoric=members.list.eval(_entropy(e)).list.mean(),
    )


def column_steps(columns: Sequence[pl.Expr], threshold: float) -> list[list[pl.Expr]]:
    """Per-row measures of M member columns, as successive ``with_columns`` steps.

    Horizontal expressions only (building a list column costs far more). The
    quartiles come from each member's rank among the others (ties broken by
    position): ``O(M²)`` comparisons, cheap for the usual handful of members.
    """
    m = len(columns)
    names = [f"__pf_c{i}" for i in range(m)]
    cols = [pl.col(n) for n in names]
    step1 = [c.alias(n) for c, n in zip(columns, names, strict=True)]
    ranks = []
    for i, ci in enumerate(cols):
        below = [(cj < ci) if j != i else None for j, cj in enumerate(cols)]
        ties = [(cj == ci) for j, cj in enumerate(cols) if j < i]
        terms = [b.cast(pl.Int32) for b in below if b is not None] + [
            t.cast(pl.Int32) for t in ties
        ]
        ranks.append(pl.sum_horizontal(terms).alias(f"__pf_r{i}"))
    mean = (pl.sum_horizontal(cols) / m).alias("__pf_mean")
    step2 = [*ranks, mean]

    def order_stat(r: int) -> pl.Expr:
        return pl.sum_horizontal(
            pl.when(pl.col(f"__pf_r{i}") == r).then(c).otherwise(0.0) for i, c in enumerate(cols)
        )

    def quantile(q: float) -> pl.Expr:
        h = (m - 1) * q
        lo = int(h // 1)
        if lo >= m - 1:
            return order_stat(m - 1)
        return _lerp(order_stat(lo), order_stat(lo + 1), h - lo)

    mu = pl.col("__pf_mean")
    measures = _measures(
        pos=pl.sum_horizontal(c >= threshold for c in cols).cast(pl.Float64),
        m=pl.lit(float(m)),
        mean=mu,
        std=(pl.sum_horizontal((c - mu) ** 2 for c in cols) / (m - 1)).sqrt(),
        iqr=quantile(0.75) - quantile(0.25),
        aleatoric=pl.sum_horizontal(_entropy(c) for c in cols) / m,
    )
    valid = pl.all_horizontal(c.is_not_null() for c in cols)
    step3 = [
        *(e.alias(f"__pf_m_{k}") for k, e in measures.items()),
        valid.alias("__pf_valid"),
        pl.min_horizontal(cols).alias("__pf_rmin"),
        pl.max_horizontal(cols).alias("__pf_rmax"),
        pl.sum_horizontal(cols).alias("__pf_rsum"),
        pl.lit(m).alias("__pf_rlen"),
    ]
    return [step1, step2, step3]


def _members(
    lf: pl.LazyFrame, schema: pl.Schema, y_prob: IntoColumn | Sequence[IntoColumn]
) -> tuple[pl.Expr | list[pl.Expr], str]:
    """The members: one List(Float64) expression or Float64 columns; a display name."""
    hint = "pass the members' probability columns as `y_prob=`"
    if isinstance(y_prob, (str, pl.Expr)):
        expr, dtype, name = resolve_column(lf, schema, y_prob, "y_prob", hint)
        inner = getattr(dtype, "inner", None)
        if not isinstance(dtype, (pl.List, pl.Array)) or inner is None or not inner.is_numeric():
            raise InvalidParameterError(MSG_MEMBERS.format(found=f"{name!r} of dtype {dtype}"))
        if isinstance(dtype, pl.Array):
            expr = expr.arr.to_list()
        return expr.cast(pl.List(pl.Float64)), repr(name)
    if not isinstance(y_prob, (list, tuple)):
        raise InvalidParameterError(MSG_MEMBERS.format(found=repr(y_prob)))
    specs = list(y_prob)
    if len(specs) < 2:
        raise InvalidParameterError(MSG_MEMBERS.format(found=f"{len(specs)} column(s)"))
    exprs, names = [], []
    for spec in specs:
        expr, dtype, name = resolve_column(lf, schema, spec, "y_prob", hint)
        if dtype != pl.Null and (not dtype.is_numeric() or dtype == pl.Boolean):
            found = f"column {name!r} of dtype {dtype}"
            raise InvalidParameterError(MSG_MEMBERS.format(found=found))
        exprs.append(expr.cast(pl.Float64))
        names.append(name)
    return exprs, repr(names)


def _checker(name: str, weight: str | None) -> Callable[[pl.DataFrame], None]:
    def check(table: pl.DataFrame) -> None:
        if table.height == 0:
            return
        low, high = table["__pf_pmin"].min(), table["__pf_pmax"].max()
        outside = (low is not None and low < 0) or (high is not None and high > 1)  # type: ignore[operator]
        if outside or table["__pf_psum"].is_nan().any():
            found = f"values from {low!r} to {high!r}" if outside else "NaN"
            raise ValueRangeError(MSG_MEMBER_VALUES.format(name=name, found=found))
        m_low, m_high = table["__pf_mmin"].min(), table["__pf_mmax"].max()
        if m_low is not None and (m_low != m_high or m_low < 2):  # type: ignore[operator]
            msg = MSG_ONE_MEMBER if m_low == m_high else MSG_MEMBER_COUNT
            raise ValueRangeError(msg.format(name=name, low=m_low, high=m_high))
        if weight is not None:
            check_weight_values(table, weight)
        if weight is not None:  # every weighted sum is at most the weight total
            total = pl.DataFrame({"n": [table.get_column("n").sum()]})
            check_sums_finite(total, {"n": f"`sample_weight` column {weight!r}"}, WEIGHT_HINT)

    return check


def ensemble_stats(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_prob: IntoColumn | Sequence[IntoColumn],
    sensitive_features: IntoColumns,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    threshold: float = 0.5,
) -> pl.LazyFrame:
    """
    Reduce ensemble member probabilities to per-group sums of stability measures.

    Parameters
    ----------
    frame
        The predictions. Never modified.
    y_prob
        The members' probabilities of the positive class: a list of two or more
        columns (or expressions), or one list or array column.
    sensitive_features
        Column name(s) defining the groups.
    by
        Batch key column(s): everything is computed per key.
    sample_weight
        Column of non-negative weights: the sums are weighted and ``n`` is the
        weight total.
    threshold
        A member predicts the positive label when its probability is at least this.

    Returns
    -------
    LazyFrame
        One row per (batch key, group), sorted by the keys: ``n, n_null`` and
        ``sum_<measure>`` for each of ``label_stability, jitter, std, iqr,
        aleatoric_uncertainty, epistemic_uncertainty, overall_uncertainty``.

    Notes
    -----
    A row with a null member (or a null list, or weight) is excluded and counted
    in ``n_null``. A probability outside [0, 1] or NaN, or list rows with
    different numbers of members, raise
    :class:`~polars_fair.exceptions.ValueRangeError` when the plan runs.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.reduce.ensemble import ensemble_stats
    >>> df = pl.DataFrame({"g": ["a", "b"], "p1": [0.9, 0.2], "p2": [0.8, 0.7]})
    >>> stats = ensemble_stats(df, y_prob=["p1", "p2"], sensitive_features="g").collect()
    >>> stats.select("g", "n", "sum_label_stability", "sum_jitter")
    shape: (2, 4)
    ┌─────┬─────┬─────────────────────┬────────────┐
    │ g   ┆ n   ┆ sum_label_stability ┆ sum_jitter │
    │ --- ┆ --- ┆ ---                 ┆ ---        │
    │ str ┆ i64 ┆ f64                 ┆ f64        │
    ╞═════╪═════╪═════════════════════╪════════════╡
    │ a   ┆ 1   ┆ 1.0                 ┆ 0.0        │
    │ b   ┆ 1   ┆ 0.0                 ┆ 1.0        │
    └─────┴─────┴─────────────────────┴────────────┘
    """
    threshold = as_python(threshold)
    number = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    if not number or not 0 <= float(threshold) <= 1:
        msg = f"`threshold` must be a number in [0, 1], got {threshold!r}\n\nHint: e.g. `threshold=0.5`"
        raise InvalidParameterError(msg)
    lf, schema, sens, by_ = resolve_keys(frame, sensitive_features, by, "ensemble")
    members, name = _members(lf, schema, y_prob)
    weight, weight_name = resolve_weight(lf, schema, sample_weight)
    keys = [*by_, *sens]
    extra = [weight.alias("__pf_w")] if weight is not None else []
    if isinstance(members, list):
        steps = column_steps(members, float(threshold))
        rows = lf.select(*keys, *extra, *steps[0])
        for step in steps[1:]:
            rows = rows.with_columns(step)
    else:
        rows = lf.select(*keys, *extra, members.alias(_L))
        L = pl.col(_L)
        # per-row measures as columns first: shared subexpressions are computed once
        rows = rows.with_columns(
            (L.is_not_null() & (L.list.drop_nulls().list.len() == L.list.len())).alias(
                "__pf_valid"
            ),
            *(e.alias(f"__pf_m_{m}") for m, e in list_measures(L, float(threshold)).items()),
            L.list.min().alias("__pf_rmin"),
            L.list.max().alias("__pf_rmax"),
            L.list.sum().alias("__pf_rsum"),
            L.list.len().alias("__pf_rlen"),
        )
    if weight is not None:
        rows = rows.with_columns(pl.col("__pf_valid") & pl.col("__pf_w").is_not_null())
    ok = pl.col("__pf_valid")
    w = pl.col("__pf_w") if weight is not None else None

    def kept(e: pl.Expr) -> pl.Expr:
        return pl.when(ok).then(e if w is None else e * w)

    aggs = [
        (ok.sum().cast(pl.Int64) if w is None else kept(pl.lit(1.0)).sum()).alias("n"),
        (~ok).sum().cast(pl.Int64).alias("n_null"),
        *(kept(pl.col(f"__pf_m_{m}")).sum().alias(f"sum_{m}") for m in ENSEMBLE_MEASURES),
        pl.col("__pf_rmin").filter(ok).min().alias("__pf_pmin"),
        pl.col("__pf_rmax").filter(ok).max().alias("__pf_pmax"),
        pl.col("__pf_rsum").filter(ok).sum().alias("__pf_psum"),
        pl.col("__pf_rlen").filter(ok).min().alias("__pf_mmin"),
        pl.col("__pf_rlen").filter(ok).max().alias("__pf_mmax"),
    ]
    if w is not None:
        aggs += bad_weight_aggs(w)
    table = rows.group_by(keys).agg(aggs)
    table = check_in_plan(table, _checker(name, weight_name))
    internal = ["__pf_pmin", "__pf_pmax", "__pf_psum", "__pf_mmin", "__pf_mmax"]
    if w is not None:
        internal += list(BAD_WEIGHTS)
    return table.drop(internal).sort(keys, nulls_last=True)
