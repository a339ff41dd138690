"""Reference groups: which group each comparison is made against.

All expressions here are window expressions over the batch keys, evaluated on the
statistics table (one row per group), so a reference costs no extra pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from polars_fair._utils import check_in_plan, over, schema_of, warn_data
from polars_fair._validate import (
    MSG_EMPTY,
    MSG_ONE_GROUP,
    MSG_REFERENCE_ABSENT,
    MSG_REFERENCE_SHADOWED,
    POLICY_NAMES,
    check_reference_dtypes,
    check_reference_value,
    format_values,
    normalize_reference,
)
from polars_fair.exceptions import (
    DegenerateDataWarning,
    EmptyDataError,
    InvalidParameterError,
    ReferenceGroupError,
)

__all__ = [
    "build_nonempty",
    "is_reference",
    "require_nonempty",
    "require_reference",
    "require_rows",
    "require_unshadowed",
    "resolve_reference",
    "warn_one_group",
]


def _equals(col: str, value: Any) -> pl.Expr:
    return pl.col(col).is_null() if value is None else (pl.col(col) == value).fill_null(False)


def is_reference(
    reference: tuple[Any, ...] | str, sensitive: Sequence[str], by: list[str]
) -> pl.Expr:
    """Boolean expression marking the reference row of each batch key.

    `reference` is a tuple of group values or ``"largest"`` (the group with the
    most rows, or the largest total weight; ties go to the first group in sort
    order).
    """
    if isinstance(reference, str):
        if reference != "largest":  # pragma: no cover - guarded by callers
            msg = f"no single reference row for policy {reference!r}"
            raise ValueError(msg)
        idx = pl.int_range(pl.len())
        first_largest = idx.filter(pl.col("n") == pl.col("n").max()).first()
        return over(idx, by) == over(first_largest, by)
    mask = pl.lit(True)
    for col, value in zip(sensitive, reference, strict=True):
        mask = mask & _equals(col, value)
    return mask


def require_reference(
    stats: pl.LazyFrame, reference: tuple[Any, ...], sensitive: Sequence[str], by: list[str]
) -> pl.LazyFrame:
    """Raise :class:`ReferenceGroupError` at collect time if the group is absent.

    A value that cannot be compared with its column's dtype (a number against a
    string column, a naive datetime against an aware one) is refused at once, from
    the schema.
    """
    check_reference_dtypes(reference, sensitive, schema_of(stats))

    def check(df: pl.DataFrame) -> None:
        flagged = df.with_columns(is_reference(reference, sensitive, []).alias("__pf_ref"))
        if by:
            per_key = flagged.group_by(by).agg(pl.col("__pf_ref").any()).sort(by)
            missing = per_key.filter(~pl.col("__pf_ref"))
        else:
            missing = pl.DataFrame() if flagged["__pf_ref"].any() else pl.DataFrame({"x": [1]})
        if missing.height:
            where, rows = "", df
            if by:
                first = missing.select(by).row(0, named=True)
                where = f" for {first}"
                # the groups of that batch key, not of every key (which hold the reference)
                rows = df.join(missing.select(by).head(1), on=by, nulls_equal=True)
            present = rows.select(sensitive).unique().sort(sensitive, nulls_last=True).rows()
            shown = [r[0] if len(r) == 1 else r for r in present]
            value = reference[0] if len(reference) == 1 else reference
            msg = MSG_REFERENCE_ABSENT.format(
                value=value, where=where, present=format_values(shown, 20)
            )
            raise ReferenceGroupError(msg)

    return check_in_plan(stats, check)


def require_nonempty(stats: pl.LazyFrame) -> pl.LazyFrame:
    """Raise :class:`EmptyDataError` at collect time if there are no groups."""

    def check(df: pl.DataFrame) -> None:
        if df.height == 0:
            raise EmptyDataError(MSG_EMPTY.format(where=""))

    return check_in_plan(stats, check)


def require_unshadowed(
    stats: pl.LazyFrame, reference_group: Any, sensitive: Sequence[str]
) -> pl.LazyFrame:
    """Refuse a policy name (``"largest"``, ...) that is also a group of the data.

    `reference_group` is the value the user passed: a string naming a policy is
    read as the policy, so a real group of that name would be silently shadowed.
    The check runs at collect time on the statistics table (one row per group).
    """
    is_policy = isinstance(reference_group, str) and reference_group in POLICY_NAMES
    if not is_policy or len(sensitive) != 1:  # with several features a group is a tuple
        return stats
    columns = [
        c for c, t in schema_of(stats).items()
        if c in sensitive and (t == pl.String or isinstance(t, (pl.Categorical, pl.Enum)))
    ]  # fmt: skip
    if not columns:
        return stats

    def check(df: pl.DataFrame) -> None:
        for name in columns:
            if df.get_column(name).cast(pl.String).eq(reference_group).any():
                msg = MSG_REFERENCE_SHADOWED.format(value=reference_group, name=name)
                raise ReferenceGroupError(msg)

    return check_in_plan(stats, check)


def resolve_reference(
    stats: pl.LazyFrame,
    reference_group: Any,
    sensitive: Sequence[str],
    by: list[str],
    *,
    pair: bool = False,
) -> tuple[pl.LazyFrame, tuple[Any, ...] | str]:
    """The one reading of `reference_group`, for every method that takes it.

    Normalizes the value (None is ``"largest"``), refuses a policy name that is also
    a group of the data (:func:`require_unshadowed`), and for a group checks its
    dtype against the column at once and its presence at collect time
    (:func:`require_reference`). With `pair` (statistics comparing two groups) the
    only policy allowed is ``"largest"``. Returns the checked statistics table and
    the reference.
    """
    check_reference_value(reference_group)
    reference = normalize_reference(reference_group, sensitive)
    if pair and isinstance(reference, str) and reference != "largest":
        msg = (
            f"`reference_group` {reference!r} is not allowed here: the comparison is "
            "between two groups\n\nHint: use a group value or 'largest'"
        )
        raise InvalidParameterError(msg)
    stats = require_unshadowed(stats, reference_group, sensitive)
    if isinstance(reference, tuple):
        stats = require_reference(stats, reference, sensitive, by)
    return stats, reference


# ---- empty input: one rule for every method (issue 14, class 4) ----------------------
#
# A derivation that returns its reduction unchanged (``group_stats``,
# ``regression_stats``, ...) *is* the reduction table, and an empty one is valid: it
# is the identity of merging partitions. Every other result needs rows, so an empty
# reduction raises :class:`EmptyDataError` (at collect time on the lazy path),
# before a derivation can turn "no rows" into an empty table, a None or a raw
# Polars error.


def build_nonempty(
    reduced: pl.LazyFrame, build: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.LazyFrame:
    """``build(reduced)``, raising :class:`EmptyDataError` at collect on an empty reduction.

    A `build` that returns its input unchanged gets the reduction as it is.
    """
    checked = require_nonempty(reduced)
    out = build(checked)
    return reduced if out is checked else out


def require_rows(table: pl.DataFrame, build: Callable[[pl.LazyFrame], pl.LazyFrame]) -> None:
    """Raise :class:`EmptyDataError` if a collected reduction is empty and `build` needs rows."""
    if table.height:
        return
    probe = table.lazy()
    if build(probe) is not probe:
        raise EmptyDataError(MSG_EMPTY.format(where=""))


def warn_one_group(stats: pl.LazyFrame, sensitive: Sequence[str], by: list[str]) -> pl.LazyFrame:
    """Warn at collect time when a batch key has fewer than two groups with rows.

    A criterion then compares a group with itself (0 or 1, fairlearn's value) and
    says nothing about fairness: an all-null sensitive column is the usual cause.
    """
    return check_in_plan(stats, _one_group_check(sensitive, by, several_rows=False))


def warn_one_group_rows(
    stats: pl.LazyFrame, sensitive: Sequence[str], by: list[str]
) -> pl.LazyFrame:
    """:func:`warn_one_group` for a table with several rows per group.

    A quantile grid's levels, a multiclass table's classes, a score histogram's bins:
    a group counts when any of its rows has ``n > 0`` (or has a row, without ``n``).
    """
    return check_in_plan(stats, _one_group_check(sensitive, by, several_rows=True))


def _one_group_check(
    sensitive: Sequence[str], by: list[str], *, several_rows: bool
) -> Callable[[pl.DataFrame], None]:
    def check(df: pl.DataFrame) -> None:
        if several_rows:  # one row per (batch key, group) with rows
            counted = df.filter(pl.col("n") > 0) if "n" in df.columns else df
            df = counted.select(*by, *sensitive).unique(maintain_order=True)
        if by:
            counted = df.filter(pl.col("n") > 0) if "n" in df.columns else df
            per_key = counted.group_by(by).agg(
                pl.len().alias("__pf_groups"), pl.col(*sensitive).first()
            )
            lonely = per_key.filter(pl.col("__pf_groups") == 1)
            if lonely.height == 0:
                return
            first = lonely.sort(by, nulls_last=True).row(0, named=True)
        else:  # one comparison: Series operations, no query
            positive = df.get_column("n") > 0 if "n" in df.columns else None
            if (df.height if positive is None else positive.sum()) != 1:
                return
            first = df.row(0 if positive is None else int(positive.arg_true()[0]), named=True)
        group = tuple(first[s] for s in sensitive)
        where = f" for {dict((k, first[k]) for k in by)}" if by else ""
        msg = MSG_ONE_GROUP.format(
            names=list(sensitive), where=where, group=group[0] if len(group) == 1 else group
        )
        warn_data(msg, DegenerateDataWarning)

    return check
