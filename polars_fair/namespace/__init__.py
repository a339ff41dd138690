"""The ``fair`` namespace on :class:`polars.DataFrame` and :class:`polars.LazyFrame`.

Importing :mod:`polars_fair` registers it. ``lf.fair.*`` returns LazyFrames and
never collects; ``df.fair.*`` runs the same plan, reading the data once. Typed code
can use :func:`polars_fair.fair` to get the same object with precise types.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import polars as pl

from polars_fair._utils import SMALL_TABLE_ROWS, find_stacklevel
from polars_fair._validate import check_confidence, check_flag, check_min_size
from polars_fair.exceptions import IdentifierWarning
from polars_fair.namespace._audit import AuditMethods
from polars_fair.namespace._base import ScalarT, TableT
from polars_fair.namespace._criteria import CriterionMethods
from polars_fair.namespace._ensemble import EnsembleMethods
from polars_fair.namespace._inequality import InequalityMethods
from polars_fair.namespace._multiclass import MulticlassMethods
from polars_fair.namespace._profile import ProfileMethods
from polars_fair.namespace._quantiles import QuantileMethods
from polars_fair.namespace._regression import RegressionMethods
from polars_fair.namespace._report import ReportMethods
from polars_fair.namespace._scores import ScoreMethods
from polars_fair.namespace._slices import SliceMethods
from polars_fair.plans._audit import (
    Audit,
    check_metrics,
    check_zd,
)
from polars_fair.plans._plan import Build, Plan
from polars_fair.report import identifier_warning

if TYPE_CHECKING:
    from polars._typing import EngineType

    from polars_fair._typing import (
        IntoColumn,
        IntoColumns,
        PosLabel,
        ReferenceGroup,
        ZeroDivision,
    )

__all__ = ["DataFrameFairNamespace", "FairNamespace", "LazyFrameFairNamespace", "fair"]


class FairNamespace(
    CriterionMethods[TableT, ScalarT],
    ScoreMethods[TableT, ScalarT],
    AuditMethods[TableT, ScalarT],
    InequalityMethods[TableT, ScalarT],
    RegressionMethods[TableT, ScalarT],
    QuantileMethods[TableT, ScalarT],
    EnsembleMethods[TableT, ScalarT],
    MulticlassMethods[TableT, ScalarT],
    ReportMethods[TableT, ScalarT],
    SliceMethods[TableT, ScalarT],
    ProfileMethods[TableT, ScalarT],
):
    """Fairness metrics of the predictions in a frame (shared by both frame kinds)."""

    # ---- the statistics table, then a derivation (see NamespaceBase._derive) ------

    def _table(
        self,
        audit: Audit,
        build: Build,
        measures: Sequence[str] | None,
        zero_division: float | None,
    ) -> TableT:
        def inspect_table(table: pl.DataFrame) -> None:
            # one row per batch key and group, with `n`: the report's rule, once
            params = {"sensitive_features": audit.sensitive, "by": audit.by}
            if (text := identifier_warning(table, params)) is not None:
                warnings.warn(text, IdentifierWarning, stacklevel=find_stacklevel())

        return self._derive(
            audit.stats(), audit.keys, build, measures, zero_division, inspect_table=inspect_table
        )

    # ---- tables ----------------------------------------------------------------

    def group_stats(
        self,
        *,
        y_true: IntoColumn | None = None,
        y_pred: IntoColumn | None = None,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        y_prob: IntoColumn | None = None,
    ) -> TableT:
        """
        The per-group statistics table: one pass over the data.

        One row per (batch key, group) with ``n, tp, fp, fn, tn, n_null`` (without
        `y_true`: ``n, pred_pos, pred_neg, n_null``; without `y_pred`:
        ``n, pos, neg, n_null``). Every metric of polars_fair is derived from this
        table, and the table is additive: the table of a concatenation is the sum of
        the tables of its parts (:func:`polars_fair.merge_group_stats`).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.
        sensitive_features
            Column name(s) defining the groups; several names form intersectional groups.
        by
            Batch key column(s): every row of the table carries them.
        sample_weight
            Column of non-negative weights. If None, each row counts once.
        pos_label
            Label value treated as positive (favourable).
        y_prob
            Column (or expression) of scores in [0, 1]: adds ``sum_prob_pos`` and
            ``sum_prob_neg`` (the score summed over actual positives and negatives;
            ``sum_prob`` without `y_true`), then the sums of squared scores
            ``sum_prob2_pos`` and ``sum_prob2_neg`` (``sum_prob2``).

        Returns
        -------
        DataFrame or LazyFrame
            Sorted by the keys, nulls last. Counts are Int64 (Float64 weight sums with
            `sample_weight`; ``n_null`` is always a row count).

        Notes
        -----
        A row with a null label, score or weight is excluded and counted in ``n_null``; a
        null sensitive value is its own group. Empty input gives an empty table.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "model": ["m1", "m1", "m1", "m2", "m2", "m2"],
        ...         "sex": ["F", "M", "M", "F", "M", "M"],
        ...         "y_true": [1, 0, 1, 1, 0, 1],
        ...         "y_pred": [1, 1, 0, 0, 0, 1],
        ...     }
        ... )
        >>> df.fair.group_stats(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="sex", by="model"
        ... )
        shape: (4, 8)
        ┌───────┬─────┬─────┬─────┬─────┬─────┬─────┬────────┐
        │ model ┆ sex ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ n_null │
        │ ---   ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---    │
        │ str   ┆ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64    │
        ╞═══════╪═════╪═════╪═════╪═════╪═════╪═════╪════════╡
        │ m1    ┆ F   ┆ 1   ┆ 1   ┆ 0   ┆ 0   ┆ 0   ┆ 0      │
        │ m1    ┆ M   ┆ 2   ┆ 0   ┆ 1   ┆ 1   ┆ 0   ┆ 0      │
        │ m2    ┆ F   ┆ 1   ┆ 0   ┆ 0   ┆ 1   ┆ 0   ┆ 0      │
        │ m2    ┆ M   ┆ 2   ┆ 1   ┆ 0   ┆ 0   ┆ 1   ┆ 0      │
        └───────┴─────┴─────┴─────┴─────┴─────┴─────┴────────┘
        """
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip
        return self._table(audit, lambda stats: stats, [], None)

    def by_group(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        zero_division: ZeroDivision = None,
        y_prob: IntoColumn | None = None,
        confidence_level: float | None = None,
        min_group_size: float | None = None,
        frequency_weights: bool = False,
    ) -> TableT:
        """
        Counts and every rate, one row per (batch key, group).

        Columns: the keys, ``n, tp, fp, fn, tn, n_null``, then ``selection_rate,
        base_rate, true_positive_rate, false_negative_rate, false_positive_rate,
        true_negative_rate, positive_predictive_value, negative_predictive_value,
        false_discovery_rate, false_omission_rate, accuracy, error_rate,
        predicted_positive_share, f1, balanced_accuracy`` (definitions in the
        conventions page). A rate with a zero denominator is null.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.
        sensitive_features
            Column name(s) defining the groups; several names form intersectional groups.
        by
            Batch key column(s) (model, fold, date, ...).
        sample_weight
            Column of non-negative weights. If None, each row counts once.
        pos_label
            Label value treated as positive (favourable).
        zero_division
            None keeps undefined rates null (the DataFrame path warns with
            :class:`~polars_fair.exceptions.UndefinedMetricWarning`); a float replaces them.
        y_prob
            Column (or expression) of scores in [0, 1]. Adds the score sums and the
            balance rates ``balance_for_positive_class`` (mean score of the actual
            positives) and ``balance_for_negative_class`` (of the actual negatives).
        confidence_level
            If given (e.g. 0.95), adds ``<rate>_ci_low`` and ``<rate>_ci_high``
            (Wilson score intervals, from the counts) for every rate that is a
            proportion: all but ``predicted_positive_share``, ``f1``,
            ``balanced_accuracy`` and the balance rates. With `sample_weight`, from
            each group's Kish effective counts (``n_eff = (sum w)**2 / sum w**2``), so
            that rescaling the weights changes no interval.
        min_group_size
            If given, adds a Boolean ``small_group`` column: ``n < min_group_size``
            (with `sample_weight`, the Kish effective size), groups too small to judge.
        frequency_weights
            Read `sample_weight` as row counts in the intervals and ``small_group``
            (the weight sum is the size), as the summary's option of that name.

        Returns
        -------
        DataFrame or LazyFrame
            Sorted by the keys, nulls last.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "group": ["a"] * 5 + ["b"] * 5,
        ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
        ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
        ...     }
        ... )
        >>> df.fair.by_group(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group"
        ... ).select("group", "n", "selection_rate", "true_positive_rate", "false_positive_rate")
        shape: (2, 5)
        ┌───────┬─────┬────────────────┬────────────────────┬─────────────────────┐
        │ group ┆ n   ┆ selection_rate ┆ true_positive_rate ┆ false_positive_rate │
        │ ---   ┆ --- ┆ ---            ┆ ---                ┆ ---                 │
        │ str   ┆ i64 ┆ f64            ┆ f64                ┆ f64                 │
        ╞═══════╪═════╪════════════════╪════════════════════╪═════════════════════╡
        │ a     ┆ 5   ┆ 0.6            ┆ 0.666667           ┆ 0.5                 │
        │ b     ┆ 5   ┆ 0.4            ┆ 0.5                ┆ 0.333333            │
        └───────┴─────┴────────────────┴────────────────────┴─────────────────────┘
        """
        zd = check_zd(zero_division)
        level = check_confidence(confidence_level)
        small = check_min_size(min_group_size)
        counts = check_flag(frequency_weights, "frequency_weights")
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip
        return self._table(
            audit, lambda stats: audit.by_group(stats, zd, level, small, counts), None, zd
        )

    def disparities(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup = "largest",
        metrics: Sequence[str] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        zero_division: ZeroDivision = None,
        y_prob: IntoColumn | None = None,
        confidence_level: float | None = None,
        frequency_weights: bool = False,
    ) -> TableT:
        """
        Every group against a reference group, for every rate: a long table.

        Columns: the keys, ``metric`` (an Enum in the order of the rate table),
        ``value``, ``reference_value``, ``difference = value - reference_value`` and
        ``ratio = value / reference_value`` (null when the reference value is 0).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups; several names form intersectional groups.
        reference_group
            * a group value (a tuple or dict for intersectional groups);
            * ``"largest"`` (default): the group with the most rows (the largest
              total weight), per batch key;
            * ``"min"``: per metric, the group with the smallest value;
            * ``"overall"``: the whole population;
            * ``"rest"``: all other groups pooled (computed from the counts).
        metrics
            Rate names to include (default: all of them).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights. If None, each row counts once.
        pos_label
            Label value treated as positive (favourable).
        zero_division
            None keeps undefined rates null; a float replaces them (in both
            ``value`` and ``reference_value``).
        y_prob
            Column (or expression) of scores in [0, 1]: adds the balance rates.
        confidence_level
            If given (e.g. 0.95), adds ``difference_ci_low/high`` (Newcombe's hybrid
            score interval) and ``ratio_ci_low/high`` (Katz log interval) for the
            proportion rates, against a named, ``"largest"`` or ``"rest"`` reference
            (null for ``"overall"`` and ``"min"``, which are not independent of the
            group, and on the reference group's own row). With `sample_weight`, from
            the Kish effective counts of each side.
        frequency_weights
            Read `sample_weight` as row counts in the intervals (the weight sum is
            the size), as the summary's option of that name.

        Returns
        -------
        DataFrame or LazyFrame
            Sorted by the keys, then metric.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "group": ["a"] * 5 + ["b"] * 5,
        ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
        ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
        ...     }
        ... )
        >>> df.fair.disparities(
        ...     y_true="y_true",
        ...     y_pred="y_pred",
        ...     sensitive_features="group",
        ...     reference_group="a",
        ...     metrics=["selection_rate", "false_positive_rate"],
        ... )
        shape: (4, 6)
        ┌───────┬─────────────────────┬──────────┬─────────────────┬────────────┬──────────┐
        │ group ┆ metric              ┆ value    ┆ reference_value ┆ difference ┆ ratio    │
        │ ---   ┆ ---                 ┆ ---      ┆ ---             ┆ ---        ┆ ---      │
        │ str   ┆ enum                ┆ f64      ┆ f64             ┆ f64        ┆ f64      │
        ╞═══════╪═════════════════════╪══════════╪═════════════════╪════════════╪══════════╡
        │ a     ┆ selection_rate      ┆ 0.6      ┆ 0.6             ┆ 0.0        ┆ 1.0      │
        │ a     ┆ false_positive_rate ┆ 0.5      ┆ 0.5             ┆ 0.0        ┆ 1.0      │
        │ b     ┆ selection_rate      ┆ 0.4      ┆ 0.6             ┆ -0.2       ┆ 0.666667 │
        │ b     ┆ false_positive_rate ┆ 0.333333 ┆ 0.5             ┆ -0.166667  ┆ 0.666667 │
        └───────┴─────────────────────┴──────────┴─────────────────┴────────────┴──────────┘
        """
        zd = check_zd(zero_division)
        level = check_confidence(confidence_level)
        counts = check_flag(frequency_weights, "frequency_weights")
        check_metrics(metrics)
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip
        return self._table(
            audit,
            lambda stats: audit.disparities(stats, reference_group, metrics, zd, level, counts),
            metrics,
            zd,
        )


class LazyFrameFairNamespace(FairNamespace[pl.LazyFrame, pl.LazyFrame]):
    """``lf.fair``: every method returns a LazyFrame and nothing is collected."""

    def _run(self, plan: Plan) -> pl.LazyFrame:
        return plan.lazy()


class DataFrameFairNamespace(FairNamespace[pl.DataFrame, "float | None | pl.DataFrame"]):
    """``df.fair``: reads the data once (the reduction), warns, derives and collects."""

    def _run(self, plan: Plan) -> float | None | pl.DataFrame:
        small = cast("pl.DataFrame", self._frame).height <= SMALL_TABLE_ROWS
        engine: EngineType = "in-memory" if small else "auto"
        result: float | None | pl.DataFrame = plan.collect(engine)
        return result


class PlanningNamespace(FairNamespace[pl.LazyFrame, pl.LazyFrame]):
    """The namespace whose methods return their :class:`~polars_fair.plans._plan.Plan` (checked).

    The report builds its tables' plans with it; the typed return values are those
    of the LazyFrame namespace, so this class is for code that knows it gets plans.
    """

    def __init__(self, frame: pl.LazyFrame, *, check: bool = True) -> None:
        super().__init__(frame)
        self._check = check

    def _run(self, plan: Plan) -> Any:
        if self._check:  # parameters are checked now, before any data is read
            plan.lazy()
        return plan


pl.api.register_dataframe_namespace("fair")(DataFrameFairNamespace)
pl.api.register_lazyframe_namespace("fair")(LazyFrameFairNamespace)


@overload
def fair(frame: pl.DataFrame) -> DataFrameFairNamespace: ...


@overload
def fair(frame: pl.LazyFrame) -> LazyFrameFairNamespace: ...


def fair(frame: pl.DataFrame | pl.LazyFrame) -> DataFrameFairNamespace | LazyFrameFairNamespace:
    """
    The ``fair`` namespace of a frame, with precise static types.

    ``polars_fair.fair(df)`` is the same object as ``df.fair``, for code checked by
    mypy or pyright, which cannot see registered namespaces.

    Parameters
    ----------
    frame
        A DataFrame or LazyFrame.

    Returns
    -------
    DataFrameFairNamespace or LazyFrameFairNamespace
        The namespace matching the frame kind.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["a", "b", "b"], "p": [1, 0, 1]})
    >>> pf.fair(df).demographic_parity_difference(y_pred="p", sensitive_features="g")
    0.5
    >>> type(pf.fair(df.lazy()).demographic_parity_difference(y_pred="p", sensitive_features="g"))
    <class 'polars.lazyframe.frame.LazyFrame'>
    """
    if isinstance(frame, pl.DataFrame):
        return DataFrameFairNamespace(frame)
    if isinstance(frame, pl.LazyFrame):
        return LazyFrameFairNamespace(frame)
    from polars_fair._validate import frame_error

    raise frame_error(frame)
