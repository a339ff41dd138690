"""Multiclass methods of the ``fair`` namespace: one-vs-rest per class.

A label with more than two values is audited class by class: for class ``c``,
"predicted c" is the positive prediction and "truly c" the positive label. The
one-vs-rest statistics table (:mod:`polars_fair.reduce.multiclass`, one pass) has
``class`` as one more batch key, so rates, disparities and every binary criterion
apply per class; the summary reports each criterion's worst class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair._validate import check_method
from polars_fair.metrics import disparity_table, rates_table, require_nonempty, resolve_reference
from polars_fair.metrics._multiclass import worst_class_table
from polars_fair.metrics._reference import warn_one_group_rows
from polars_fair.metrics._registry import CRITERIA, needs_score
from polars_fair.metrics._verdicts import criteria_long
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, with_example
from polars_fair.plans._audit import check_metrics, check_names, check_zd, checked_reference
from polars_fair.reduce.multiclass import CLASS, multiclass_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, Method, ReferenceGroup

__all__ = ["DEFAULT_MULTICLASS", "MulticlassMethods"]

#: The criteria of ``multiclass_criteria`` / ``multiclass_summary`` when none are named.
DEFAULT_MULTICLASS = (
    "demographic_parity_difference",
    "equal_opportunity_difference",
    "predictive_equality_difference",
    "predictive_parity_difference",
    "equalized_odds_difference",
)
#: Rates reported per class by default.
_RATES = (
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "positive_predictive_value",
)

_DATA = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 4 + ["b"] * 4,
    ...         "y": ["cat", "dog", "fox", "dog", "cat", "dog", "fox", "fox"],
    ...         "p": ["cat", "dog", "fox", "cat", "fox", "dog", "fox", "cat"],
    ...     }
    ... )"""

_example = with_example(_DATA)


class MulticlassMethods(NamespaceBase[TableT, ScalarT]):
    """One-vs-rest audits of multiclass predictions."""

    def _multiclass_reduction(
        self,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        classes: Sequence[object] | None,
    ) -> pl.LazyFrame:
        return multiclass_stats(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, classes=classes,
        )  # fmt: skip

    @_example
    def multiclass_group_stats(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        classes: Sequence[object] | None = None,
    ) -> TableT:
        """
        One-vs-rest confusion counts per class and group (one pass).

        Parameters
        ----------
        y_true
            Column (or expression) of true class labels.
        y_pred
            Column (or expression) of predicted class labels.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        classes
            The classes to report; default: every value in `y_true` or `y_pred`.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, class, sensitive…, n, tp, fp, fn, tn, n_null``.

        Examples
        --------
        >>> DATA
        >>> df.fair.multiclass_group_stats(y_true="y", y_pred="p", sensitive_features="group")
        shape: (6, 8)
        ┌───────┬───────┬─────┬─────┬─────┬─────┬─────┬────────┐
        │ class ┆ group ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ n_null │
        │ ---   ┆ ---   ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---    │
        │ str   ┆ str   ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64    │
        ╞═══════╪═══════╪═════╪═════╪═════╪═════╪═════╪════════╡
        │ cat   ┆ a     ┆ 4   ┆ 1   ┆ 1   ┆ 0   ┆ 2   ┆ 0      │
        │ cat   ┆ b     ┆ 4   ┆ 0   ┆ 1   ┆ 1   ┆ 2   ┆ 0      │
        │ dog   ┆ a     ┆ 4   ┆ 1   ┆ 0   ┆ 1   ┆ 2   ┆ 0      │
        │ dog   ┆ b     ┆ 4   ┆ 1   ┆ 0   ┆ 0   ┆ 3   ┆ 0      │
        │ fox   ┆ a     ┆ 4   ┆ 1   ┆ 0   ┆ 0   ┆ 3   ┆ 0      │
        │ fox   ┆ b     ┆ 4   ┆ 1   ┆ 1   ┆ 1   ┆ 1   ┆ 0      │
        └───────┴───────┴─────┴─────┴─────┴─────┴─────┴────────┘
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._multiclass_reduction(
            y_true, y_pred, sensitive_features, by, sample_weight, classes
        )
        return self._derive(reduced, [*by_, CLASS, *sens], lambda stats: stats)

    @_example
    def multiclass_by_group(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        classes: Sequence[object] | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        One-vs-rest rates per class and group.

        For class ``c``: ``selection_rate`` = share predicted c;
        ``true_positive_rate`` = share of the truly-c predicted c;
        ``false_positive_rate`` = share of the others predicted c;
        ``positive_predictive_value`` = share of the predicted-c that are truly c;
        and every other rate of :meth:`by_group`, one-vs-rest.

        Parameters
        ----------
        y_true
            Column (or expression) of true class labels.
        y_pred
            Column (or expression) of predicted class labels.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        classes
            The classes to report; default: every value in `y_true` or `y_pred`.
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            The one-vs-rest statistics table followed by the rate columns.

        Examples
        --------
        >>> DATA
        >>> df.fair.multiclass_by_group(
        ...     y_true="y", y_pred="p", sensitive_features="group"
        ... ).select("class", "group", "selection_rate", "true_positive_rate")
        shape: (6, 4)
        ┌───────┬───────┬────────────────┬────────────────────┐
        │ class ┆ group ┆ selection_rate ┆ true_positive_rate │
        │ ---   ┆ ---   ┆ ---            ┆ ---                │
        │ str   ┆ str   ┆ f64            ┆ f64                │
        ╞═══════╪═══════╪════════════════╪════════════════════╡
        │ cat   ┆ a     ┆ 0.5            ┆ 1.0                │
        │ cat   ┆ b     ┆ 0.25           ┆ 0.0                │
        │ dog   ┆ a     ┆ 0.25           ┆ 0.5                │
        │ dog   ┆ b     ┆ 0.25           ┆ 1.0                │
        │ fox   ┆ a     ┆ 0.25           ┆ 1.0                │
        │ fox   ┆ b     ┆ 0.5            ┆ 0.5                │
        └───────┴───────┴────────────────┴────────────────────┘
        """
        zd = check_zd(zero_division)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._multiclass_reduction(
            y_true, y_pred, sensitive_features, by, sample_weight, classes
        )

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return rates_table(require_nonempty(stats), by=[*by_, CLASS], zero_division=zd)

        return self._derive(reduced, [*by_, CLASS, *sens], build, measures=_RATES, zero_division=zd)

    @_example
    def multiclass_disparities(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        metrics: Sequence[str] | None = _RATES,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        classes: Sequence[object] | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Every group against a reference, per class and rate (long table).

        Parameters
        ----------
        y_true
            Column (or expression) of true class labels.
        y_pred
            Column (or expression) of predicted class labels.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            As :meth:`disparities`: a group, ``"largest"`` (default), ``"min"``,
            ``"overall"`` or ``"rest"`` (per class).
        metrics
            Rate names (default: selection rate, TPR, FPR and PPV; None: every rate).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        classes
            The classes to report; default: every value in `y_true` or `y_pred`.
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, class, sensitive…, metric, value, reference_value, difference, ratio``.

        Examples
        --------
        >>> DATA
        >>> df.fair.multiclass_disparities(
        ...     y_true="y", y_pred="p", sensitive_features="group", reference_group="a",
        ...     metrics=["selection_rate"],
        ... ).filter(pl.col("group") == "b").select("class", "value", "difference")
        shape: (3, 3)
        ┌───────┬───────┬────────────┐
        │ class ┆ value ┆ difference │
        │ ---   ┆ ---   ┆ ---        │
        │ str   ┆ f64   ┆ f64        │
        ╞═══════╪═══════╪════════════╡
        │ cat   ┆ 0.25  ┆ -0.25      │
        │ dog   ┆ 0.25  ┆ 0.0        │
        │ fox   ┆ 0.5   ┆ 0.25       │
        └───────┴───────┴────────────┘
        """
        zd = check_zd(zero_division)
        check_metrics(metrics)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._multiclass_reduction(
            y_true, y_pred, sensitive_features, by, sample_weight, classes
        )
        keys: list[str] = [*by_, CLASS]

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = resolve_reference(
                require_nonempty(stats), reference_group, sens, keys
            )
            checked = warn_one_group_rows(checked, sens, by_)  # as the summary warns
            return disparity_table(
                checked, by=keys, sensitive=sens, reference=reference, metrics=metrics,
                zero_division=zd,
            )  # fmt: skip

        return self._derive(reduced, [*keys, *sens], build, measures=metrics, zero_division=zd)

    def _per_class(
        self,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        criteria: Sequence[str] | None,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        classes: Sequence[object] | None,
        zero_division: float | None,
    ) -> tuple[pl.LazyFrame, list[str], list[str], Any]:
        zd = check_zd(zero_division)
        known = [n for n in CRITERIA if not needs_score(n)]  # no scores here
        wanted = check_names(
            "criteria", criteria, known, what="criteria", default=DEFAULT_MULTICLASS
        )
        method_ = check_method(method, reference_group)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._multiclass_reduction(
            y_true, y_pred, sensitive_features, by, sample_weight, classes
        )
        keys: list[str] = [*by_, CLASS]

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = checked_reference(stats, method_, reference_group, keys, sens)
            checked = warn_one_group_rows(checked, sens, by_)
            return criteria_long(
                checked.cache(), criteria=wanted, method=method_, by=keys, sensitive=sens,
                reference=reference if reference_group is not None else None,
                zero_division=zd,
            )  # fmt: skip

        return reduced, by_, sens, build

    @_example
    def multiclass_criteria(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        criteria: Sequence[str] | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        classes: Sequence[object] | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Binary criteria per class, one-vs-rest (long table).

        Parameters
        ----------
        y_true
            Column (or expression) of true class labels.
        y_pred
            Column (or expression) of predicted class labels.
        sensitive_features
            Column name(s) defining the groups.
        criteria
            Criterion names (the namespace's binary criteria, e.g.
            ``"equal_opportunity_difference"``); default: demographic parity, equal
            opportunity, predictive equality, predictive parity, equalized odds
            (differences).
        method
            As for every criterion.
        reference_group
            The reference group (a value, tuple or dict) or ``"largest"``.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        classes
            The classes to report; default: every value in `y_true` or `y_pred`.
        zero_division
            None leaves undefined rates out of comparisons; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, class, criterion, value``, in criterion order within each class.

        Examples
        --------
        >>> DATA
        >>> df.fair.multiclass_criteria(
        ...     y_true="y", y_pred="p", sensitive_features="group",
        ...     criteria=["demographic_parity_difference"],
        ... )
        shape: (3, 3)
        ┌───────┬───────────────────────────────┬───────┐
        │ class ┆ criterion                     ┆ value │
        │ ---   ┆ ---                           ┆ ---   │
        │ str   ┆ str                           ┆ f64   │
        ╞═══════╪═══════════════════════════════╪═══════╡
        │ cat   ┆ demographic_parity_difference ┆ 0.25  │
        │ dog   ┆ demographic_parity_difference ┆ 0.0   │
        │ fox   ┆ demographic_parity_difference ┆ 0.25  │
        └───────┴───────────────────────────────┴───────┘
        """
        by_: list[str]
        sens: list[str]
        reduced, by_, sens, build = self._per_class(
            y_true, y_pred, sensitive_features, criteria, method, reference_group, by,
            sample_weight, classes, zero_division,
        )  # fmt: skip
        keys: list[str] = [*by_, CLASS]

        def ordered(stats: pl.LazyFrame) -> pl.LazyFrame:
            table: pl.LazyFrame = build(stats)
            return table.sort(keys, nulls_last=True, maintain_order=True)

        return self._derive(reduced, [*keys, *sens], ordered)

    @_example
    def multiclass_summary(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        criteria: Sequence[str] | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        classes: Sequence[object] | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Each criterion's worst class: the class whose value is farthest from ideal.

        Distance from the ideal is ``|value|`` for differences and the signed
        statistics, ``|log value|`` for ratios; classes where a criterion is
        undefined are left out (``n_classes`` counts the rest).

        Parameters
        ----------
        y_true
            Column (or expression) of true class labels.
        y_pred
            Column (or expression) of predicted class labels.
        sensitive_features
            Column name(s) defining the groups.
        criteria
            Criterion names; default as :meth:`multiclass_criteria`.
        method
            As for every criterion.
        reference_group
            The reference group (a value, tuple or dict) or ``"largest"``.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        classes
            The classes to consider; default: every value in `y_true` or `y_pred`.
        zero_division
            None leaves undefined rates out of comparisons; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, criterion, worst_class, value, n_classes``.

        Examples
        --------
        >>> DATA
        >>> df.fair.multiclass_summary(
        ...     y_true="y", y_pred="p", sensitive_features="group",
        ...     criteria=["demographic_parity_difference", "equal_opportunity_difference"],
        ... )
        shape: (2, 4)
        ┌───────────────────────────────┬─────────────┬───────┬───────────┐
        │ criterion                     ┆ worst_class ┆ value ┆ n_classes │
        │ ---                           ┆ ---         ┆ ---   ┆ ---       │
        │ str                           ┆ str         ┆ f64   ┆ i64       │
        ╞═══════════════════════════════╪═════════════╪═══════╪═══════════╡
        │ demographic_parity_difference ┆ cat         ┆ 0.25  ┆ 3         │
        │ equal_opportunity_difference  ┆ cat         ┆ 1.0   ┆ 3         │
        └───────────────────────────────┴─────────────┴───────┴───────────┘
        """
        by_: list[str]
        sens: list[str]
        reduced, by_, sens, build = self._per_class(
            y_true, y_pred, sensitive_features, criteria, method, reference_group, by,
            sample_weight, classes, zero_division,
        )  # fmt: skip

        def worst(stats: pl.LazyFrame) -> pl.LazyFrame:
            per_class = build(stats).sort([*by_, CLASS], nulls_last=True, maintain_order=True)
            table = worst_class_table(per_class, by=by_, class_column=CLASS)
            return table.sort(by_, nulls_last=True, maintain_order=True) if by_ else table

        return self._derive(reduced, [*by_, CLASS, *sens], worst)
