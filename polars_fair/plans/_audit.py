"""Shared implementation of the `fair` namespace on DataFrame and LazyFrame.

The LazyFrame namespace builds plans and never collects. The DataFrame namespace
runs the same plans: it collects the statistics table once (one pass over the
data), warns about excluded rows and undefined rates, and derives the result from
that small table.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names, find_stacklevel, shareable, show_groups
from polars_fair._validate import (
    MSG_REFERENCE_POLICY,
    check_agg,
    check_method,
    check_names,
    check_zero_division,
    ensure_lazy,
    normalize_reference,
)
from polars_fair.exceptions import InvalidParameterError, NullDataWarning, UndefinedMetricWarning
from polars_fair.metrics import (
    RATES,
    SCORE_RATES,
    Counts,
    criterion_table,
    disparity_table,
    rate_expr,
    rates_table,
    require_nonempty,
    resolve_reference,
    warn_one_group,
)
from polars_fair.metrics._criteria import Formula
from polars_fair.metrics._intervals import large_enough
from polars_fair.metrics._measures import measure_disparity_table
from polars_fair.reduce import group_stats as _group_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "Audit",
    "check_metrics",
    "check_names",
    "checked_reference",
    "criterion_plan",
    "measure_disparities_plan",
    "check_zd",
    "compared_rows",
    "undefined_rates",
    "warn_about",
]

#: The statistics table; inside :func:`~polars_fair._utils.sharing`, one object per
#: distinct set of arguments (a report's tables share it by identity).
group_stats = shareable(_group_stats)


@dataclass(frozen=True)
class Audit:
    """The resolved inputs of one call: what to count and how to group."""

    frame: pl.LazyFrame
    y_true: IntoColumn | None
    y_pred: IntoColumn | None
    sensitive: list[str]
    by: list[str]
    sample_weight: IntoColumn | None
    pos_label: PosLabel
    y_prob: IntoColumn | None = None

    @classmethod
    def of(
        cls,
        frame: pl.DataFrame | pl.LazyFrame,
        *,
        y_true: IntoColumn | None,
        y_pred: IntoColumn | None,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        pos_label: PosLabel,
        y_prob: IntoColumn | None = None,
    ) -> Audit:
        """Normalise the common parameters."""
        return cls(
            ensure_lazy(frame), y_true, y_pred, as_names(sensitive_features), as_names(by),
            sample_weight, pos_label, y_prob,
        )  # fmt: skip

    @property
    def keys(self) -> list[str]:
        """Batch keys then sensitive features."""
        return [*self.by, *self.sensitive]

    def stats(self) -> pl.LazyFrame:
        """The lazy statistics table (one pass over the data when collected)."""
        return group_stats(
            self.frame,
            y_true=self.y_true,
            y_pred=self.y_pred,
            sensitive_features=self.sensitive,
            by=self.by or None,
            sample_weight=self.sample_weight,
            pos_label=self.pos_label,
            y_prob=self.y_prob,
        )

    # ---- derived plans over a statistics table (lazy or collected) -------------

    def by_group(
        self,
        stats: pl.LazyFrame,
        zero_division: float | None,
        confidence_level: float | None = None,
        min_group_size: float | None = None,
        frequency_weights: bool = False,
    ) -> pl.LazyFrame:
        """Counts plus every computable rate (and intervals, small-group flags)."""
        return rates_table(
            require_nonempty(stats), by=self.by, zero_division=zero_division,
            confidence_level=confidence_level, min_group_size=min_group_size,
            frequency_weights=frequency_weights,
        )  # fmt: skip

    def disparities(
        self,
        stats: pl.LazyFrame,
        reference_group: Any,
        metrics: Sequence[str] | None,
        zero_division: float | None,
        confidence_level: float | None = None,
        frequency_weights: bool = False,
    ) -> pl.LazyFrame:
        """The long comparison table."""
        stats, reference = resolve_reference(
            require_nonempty(stats), reference_group, self.sensitive, self.by
        )
        check_metrics(metrics)
        stats = warn_one_group(stats, self.sensitive, self.by)  # as the summary warns
        return disparity_table(
            stats, by=self.by, sensitive=self.sensitive, reference=reference,
            metrics=metrics, zero_division=zero_division, confidence_level=confidence_level,
            frequency_weights=frequency_weights,
        )  # fmt: skip

    def criterion(
        self,
        stats: pl.LazyFrame,
        *,
        name: str,
        measures: Sequence[str],
        kind: str,
        method: str | None,
        reference_group: Any,
        agg: str,
        zero_division: float | None,
    ) -> pl.LazyFrame:
        """One criterion per batch key."""
        return criterion_plan(
            stats, name=name, measures=measures, kind=kind, method=method,
            reference_group=reference_group, agg=agg, zero_division=zero_division,
            by=self.by, sensitive=self.sensitive,
        )  # fmt: skip


def checked_reference(
    stats: pl.LazyFrame,
    method: str,
    reference_group: Any,
    by: list[str],
    sensitive: list[str],
) -> tuple[pl.LazyFrame, tuple[Any, ...] | str]:
    """Validate `reference_group` for a criterion; the stats gain the in-plan checks."""
    stats = require_nonempty(stats)
    if reference_group is not None and method != "to_reference":
        msg = (
            f"`reference_group` is only used with `method`='to_reference', got "
            f"`method`={method!r}\n\nHint: drop `method` or `reference_group`"
        )
        raise InvalidParameterError(msg)
    reference = normalize_reference(reference_group, sensitive)
    if reference_group is not None and isinstance(reference, str) and reference != "largest":
        msg = MSG_REFERENCE_POLICY.format(value=reference, method=method)
        raise InvalidParameterError(msg)
    return resolve_reference(stats, reference_group, sensitive, by)


def criterion_plan(
    stats: pl.LazyFrame,
    *,
    name: str,
    measures: Sequence[str],
    kind: str,
    method: str | None,
    reference_group: Any,
    agg: str,
    zero_division: float | None,
    by: list[str],
    sensitive: list[str],
    formula: Formula | None = None,
) -> pl.LazyFrame:
    """One criterion per batch key, after checking `method`, `agg` and the reference."""
    method_ = check_method(method, reference_group)
    agg_ = check_agg(agg)
    stats, reference = checked_reference(stats, method_, reference_group, by, sensitive)
    stats = warn_one_group(stats, sensitive, by)
    return criterion_table(
        stats, name=name, measures=measures, kind=kind,  # type: ignore[arg-type]
        method=method_, agg=agg_, by=by, sensitive=sensitive,
        reference=reference, zero_division=zero_division, formula=formula,
    )  # fmt: skip


def measure_disparities_plan(
    stats: pl.LazyFrame,
    *,
    formula: Formula,
    measures: Sequence[str],
    reference_group: Any,
    zero_division: float | None,
    by: list[str],
    sensitive: list[str],
) -> pl.LazyFrame:
    """The long comparison table of formula measures, after checking the reference."""
    stats, reference = resolve_reference(require_nonempty(stats), reference_group, sensitive, by)
    stats = warn_one_group(stats, sensitive, by)  # as the summary warns
    return measure_disparity_table(
        stats, formula=formula, measures=measures, by=by, sensitive=sensitive,
        reference=reference, zero_division=zero_division,
    )  # fmt: skip


@functools.lru_cache(maxsize=256)
def _undefined_rates(
    columns: tuple[str, ...], measures: tuple[str, ...] | None
) -> tuple[tuple[str, pl.Expr], ...]:
    c = Counts.from_columns(columns)
    if measures is None:
        from polars_fair.metrics._rates import available_rates

        measures = tuple(m for m in available_rates(c) if m != "predicted_positive_share")
    return tuple((m, rate_expr(m, c)) for m in measures if m != "predicted_positive_share")


def undefined_rates(
    columns: Sequence[str], measures: Sequence[str] | None, zero_division: float | None
) -> tuple[tuple[str, pl.Expr], ...]:
    """The rates :func:`warn_about` checks for undefined values, with their expressions.

    None with `zero_division` (undefined rates are replaced). The expressions depend
    on the column names only: they are built once per set of names and measures.
    """
    if zero_division is not None:
        return ()
    return _undefined_rates(tuple(columns), None if measures is None else tuple(measures))


def warn_about(
    stats: pl.DataFrame,
    keys: Sequence[str],
    measures: Sequence[str] | None,
    zero_division: float | None,
    undefined: Sequence[bool] | None = None,
    listed: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
) -> None:
    """Eager-path warnings: rows excluded for nulls, rates undefined for some groups.

    `stats` is a reduction with an ``n_null`` column: the statistics table, or a score
    histogram (several rows per group; then `measures` is empty). `undefined`, where
    the caller computed it along with `stats`, says for each of the
    :func:`undefined_rates` whether it is null for some group. `listed` selects the
    groups an undefined rate is warned about (the report: those not left out as too
    small, which it lists already); no warning when none of them has it undefined.
    """
    if stats.height == 0:
        return
    excluded = int(stats.get_column("n_null").sum())
    if excluded:
        groups = stats.filter(pl.col("n_null") > 0).select(keys).unique(maintain_order=True)
        msg = (
            f"{excluded} row(s) with a null label, prediction, score or weight were excluded (counted "
            f"in `n_null`), in groups {show_groups(groups.rows())}"
        )
        warnings.warn(msg, NullDataWarning, stacklevel=find_stacklevel())
    exprs = dict(undefined_rates(stats.columns, measures, zero_division))
    if not exprs:
        return
    if undefined is None:
        # one pass for the common case (nothing undefined); the groups only where needed
        undefined = stats.select(*(e.is_null().any().alias(m) for m, e in exprs.items())).row(0)
    candidates = stats if listed is None else listed(stats)
    for m, any_null in zip(exprs, undefined, strict=True):
        if any_null:
            bad = candidates.filter(exprs[m].is_null()).select(keys).rows()
            if not bad:
                continue
            msg = (
                f"{m} is undefined (zero denominator) for groups {show_groups(bad)}; it is "
                "reported as null and left out of comparisons. Use `zero_division` to "
                "replace it"
            )
            warnings.warn(msg, UndefinedMetricWarning, stacklevel=find_stacklevel())


def compared_rows(
    min_group_size: float | None, frequency_weights: bool
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """The rows of a statistics table whose groups a summary's criteria compare.

    Groups under `min_group_size` effective rows (Kish's size with weights, unless
    `frequency_weights`) are left out of the criteria and listed as such: a
    report's undefined-rate warnings (:func:`warn_about`'s `listed`) name the
    others only. A table without ``n`` (a score histogram) is kept whole.
    """
    smallest = min_group_size or 0

    def compared(table: pl.DataFrame) -> pl.DataFrame:
        if not smallest or "n" not in table.columns:
            return table
        n = pl.col("n").cast(pl.Float64)
        if "sum_w2" in table.columns and not frequency_weights:
            n = n**2 / pl.col("sum_w2")
        return table.filter(large_enough(n, smallest).fill_null(False))

    return compared


def check_metrics(metrics: Sequence[str] | None) -> None:
    """Check that `metrics` names known rates (an empty list is an error)."""
    known = [*RATES, *SCORE_RATES]
    hint = "e.g. `metrics=['selection_rate']`"
    check_names("metrics", metrics, known, what="rates", hint=hint)


def check_zd(zero_division: object) -> float | None:
    """Re-export of the `zero_division` check for the namespace module."""
    return check_zero_division(zero_division)
