"""The ``fair`` namespace on :class:`polars.DataFrame` and :class:`polars.LazyFrame`.

Importing :mod:`polars_fair` registers it. ``lf.fair.*`` returns LazyFrames and
never collects; ``df.fair.*`` runs the same plan, reading the data once. Typed code
can use :func:`polars_fair.fair` to get the same object with precise types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import polars as pl

from polars_fair._api import (
    Audit,
    check_metrics,
    check_zd,
    warn_about,
)
from polars_fair._ns_audit import AuditMethods
from polars_fair._ns_base import Build, ScalarT, TableT
from polars_fair._ns_ensemble import EnsembleMethods
from polars_fair._ns_multiclass import MulticlassMethods
from polars_fair._ns_regression import RegressionMethods
from polars_fair._ns_report import ReportMethods
from polars_fair._ns_scores import ScoreMethods
from polars_fair._utils import derive_engine
from polars_fair._validate import check_confidence, check_min_size

if TYPE_CHECKING:
    from polars_fair._typing import (
        Agg,
        IntoColumn,
        IntoColumns,
        Method,
        PosLabel,
        ReferenceGroup,
        ZeroDivision,
    )
    from polars_fair.profile import FairnessProfile

__all__ = ["DataFrameFairNamespace", "FairNamespace", "LazyFrameFairNamespace", "fair"]

F = TypeVar("F", bound=Callable[..., Any])

_EXAMPLE = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {{
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...         "score": [0.9, 0.8, 0.4, 0.6, 0.2, 0.7, 0.3, 0.5, 0.1, 0.4],
    ...     }}
    ... )
    >>> round(df.fair.{name}({args}sensitive_features="group"), 4)
    {example}"""

_CRITERION_DOC = r"""
    {title}

    Compares the per-group {measure}{formula} across the groups of
    `sensitive_features`. {note}

    .. versionadded:: 0.1.0

    Parameters
    ----------
{params}    sensitive_features
        Column name(s) defining the groups; several names form intersectional groups.
    by
        Batch key column(s) (model, fold, date, ...): one value per key.
    sample_weight
        Column of non-negative weights. If None, each row counts once.
    pos_label
        Label value treated as positive (favourable).
    method
        * ``"between_groups"`` (default without `reference_group`): {between}.
        * ``"to_overall"``: {overall}.
        * ``"to_reference"`` (default with `reference_group`): {reference}
          (with more than two groups, the group farthest from the reference).
    reference_group
        The group compared against: a value, a tuple or dict for intersectional
        groups, or ``"largest"`` (the group with the most rows).
{agg}    zero_division
        None keeps an undefined per-group value (zero denominator) null and leaves
        that group out; a float replaces it.

    Returns
    -------
    float or DataFrame
        On a DataFrame without `by`, a float (None when undefined). With `by`, a
        DataFrame of the `by` columns and a column ``{name}``. On a LazyFrame, the
        LazyFrame of that table (one row, one column without `by`).

    See Also
    --------
    disparities : Every group against the reference, for every rate.

    Examples
    --------{example}
"""

_PARAMS = {
    "true": "    y_true\n        Column (or expression) of true labels.\n",
    "pred": '    y_pred\n        Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.\n',
}
_PARAMS["pair"] = _PARAMS["true"] + _PARAMS["pred"]
_PARAMS["prob"] = (
    _PARAMS["true"] + "    y_prob\n        Column (or expression) of scores in [0, 1].\n"
)
_ARGS = {
    "true": 'y_true="y_true", ',
    "pred": 'y_pred="y_pred", ',
    "pair": 'y_true="y_true", y_pred="y_pred", ',
    "prob": 'y_true="y_true", y_prob="score", ',
}
_AGG = (
    "    agg\n"
    '        ``"worst_case"`` (default): the larger difference (smaller ratio) of the\n'
    '        true and false positive rate comparisons; ``"mean"``: their mean.\n'
)


def _criterion_doc(
    *, kind: str, measure: str, formula: str, needs: str, note: str, example: str,
    agg: bool = False,
) -> Callable[[F], F]:  # fmt: skip
    """Fill the shared criterion docstring template for one method."""

    def deco(fn: F) -> F:
        name = fn.__name__
        if kind == "difference":
            title = f"Difference in {measure} between groups."
            between = "largest minus smallest group value (>= 0)"
            overall = "largest absolute gap between a group and the whole population"
            reference = "signed group value minus reference value"
        else:
            title = f"Ratio of {measure} between groups."
            between = "smallest over largest group value (<= 1)"
            overall = "smallest of ``min(g / overall, overall / g)`` over groups"
            reference = "group value over reference value"
        fn.__doc__ = _CRITERION_DOC.format(
            title=title,
            measure=measure,
            formula=f" :math:`{formula}`" if formula else "",
            note=note,
            params=_PARAMS[needs],
            between=between,
            overall=overall,
            reference=reference,
            agg=_AGG if agg else "",
            name=name,
            example=_EXAMPLE.format(name=name, args=_ARGS[needs], example=example),
        )
        return fn

    return deco


class FairNamespace(
    ScoreMethods[TableT, ScalarT],
    AuditMethods[TableT, ScalarT],
    RegressionMethods[TableT, ScalarT],
    EnsembleMethods[TableT, ScalarT],
    MulticlassMethods[TableT, ScalarT],
    ReportMethods[TableT, ScalarT],
):
    """Fairness metrics of the predictions in a frame (shared by both frame kinds)."""

    def _namespaces(self) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        return LazyFrameFairNamespace, DataFrameFairNamespace

    def profile(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_prob: IntoColumn | None = None,
        by: IntoColumns | pl.Expr | Sequence[str | pl.Expr] | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        n_bins: int = 10,
        score_bins: int = 1000,
        exact_scores: bool = False,
    ) -> FairnessProfile:
        """
        Reduce the data once to a mergeable :class:`~polars_fair.FairnessProfile`.

        Collects (on a LazyFrame too). See :func:`polars_fair.profile`.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b", "a"], "y": [1, 0, 0], "p": [1, 1, 0]})
        >>> df.lazy().fair.profile(y_true="y", y_pred="p", sensitive_features="g").rows
        3
        """
        from polars_fair.profile import profile

        return profile(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            y_prob=y_prob, by=by, sample_weight=sample_weight, pos_label=pos_label,
            n_bins=n_bins, score_bins=score_bins, exact_scores=exact_scores,
        )  # fmt: skip

    # ---- the statistics table, then a derivation (see NamespaceBase._derive) ------

    def _table(
        self,
        audit: Audit,
        build: Build,
        measures: Sequence[str] | None,
        zero_division: float | None,
    ) -> TableT:
        return self._derive(audit.stats(), audit.keys, build, measures, zero_division)

    def _scalar(
        self, audit: Audit, build: Build, measures: Sequence[str], zero_division: float | None
    ) -> ScalarT:
        return self._derive_scalar(
            audit.stats(), audit.keys, build, audit.by, measures, zero_division
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
            ``sum_prob`` without `y_true`).

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
            ``balanced_accuracy`` and the balance rates.
        min_group_size
            If given, adds a Boolean ``small_group`` column: ``n < min_group_size``,
            groups too small to judge.

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
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip
        return self._table(audit, lambda stats: audit.by_group(stats, zd, level, small), None, zd)

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
            group, and on the reference group's own row).

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
        check_metrics(metrics)
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip
        if not self._prevalidated:  # validate every parameter now, before any data is read
            audit.disparities(audit.stats(), reference_group, metrics, zd, level)
        return self._table(
            audit,
            lambda stats: audit.disparities(stats, reference_group, metrics, zd, level),
            metrics,
            zd,
        )

    # ---- scalar criteria ---------------------------------------------------------

    def _criterion(
        self,
        name: str,
        measures: tuple[str, ...],
        kind: str,
        *,
        y_true: IntoColumn | None,
        y_pred: IntoColumn | None,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        pos_label: PosLabel,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        agg: Agg,
        zero_division: ZeroDivision,
        y_prob: IntoColumn | None = None,
    ) -> ScalarT:
        zd = check_zd(zero_division)
        audit = Audit.of(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return audit.criterion(
                stats, name=name, measures=measures, kind=kind, method=method,
                reference_group=reference_group, agg=agg, zero_division=zd,
            )  # fmt: skip

        if not self._prevalidated:  # validate parameters now, before any data is read
            build(audit.stats())
        return self._scalar(audit, build, measures, zd)

    @_criterion_doc(
        kind="difference",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="",
        example="0.2",
    )
    def selection_rate_difference(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "selection_rate_difference",
            ("selection_rate",),
            "difference",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="",
        example="0.6667",
    )
    def selection_rate_ratio(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "selection_rate_ratio",
            ("selection_rate",),
            "ratio",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="base rate (prevalence)",
        formula="P(Y=1 \\mid A=a)",
        needs="true",
        note="",
        example="0.2",
    )
    def base_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "base_rate_difference",
            ("base_rate",),
            "difference",
            y_true=y_true,
            y_pred=None,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="base rate (prevalence)",
        formula="P(Y=1 \\mid A=a)",
        needs="true",
        note="",
        example="0.6667",
    )
    def base_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "base_rate_ratio",
            ("base_rate",),
            "ratio",
            y_true=y_true,
            y_pred=None,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="true positive rate",
        formula="TP / (TP + FN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def true_positive_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "true_positive_rate_difference",
            ("true_positive_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="true positive rate",
        formula="TP / (TP + FN)",
        needs="pair",
        note="",
        example="0.75",
    )
    def true_positive_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "true_positive_rate_ratio",
            ("true_positive_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="false negative rate",
        formula="FN / (TP + FN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def false_negative_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_negative_rate_difference",
            ("false_negative_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="false negative rate",
        formula="FN / (TP + FN)",
        needs="pair",
        note="",
        example="0.6667",
    )
    def false_negative_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_negative_rate_ratio",
            ("false_negative_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="false positive rate",
        formula="FP / (FP + TN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def false_positive_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_positive_rate_difference",
            ("false_positive_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="false positive rate",
        formula="FP / (FP + TN)",
        needs="pair",
        note="",
        example="0.6667",
    )
    def false_positive_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_positive_rate_ratio",
            ("false_positive_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="true negative rate",
        formula="TN / (FP + TN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def true_negative_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "true_negative_rate_difference",
            ("true_negative_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="true negative rate",
        formula="TN / (FP + TN)",
        needs="pair",
        note="",
        example="0.75",
    )
    def true_negative_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "true_negative_rate_ratio",
            ("true_negative_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="positive predictive value (precision)",
        formula="TP / (TP + FP)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def positive_predictive_value_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "positive_predictive_value_difference",
            ("positive_predictive_value",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="positive predictive value (precision)",
        formula="TP / (TP + FP)",
        needs="pair",
        note="",
        example="0.75",
    )
    def positive_predictive_value_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "positive_predictive_value_ratio",
            ("positive_predictive_value",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="negative predictive value",
        formula="TN / (TN + FN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def negative_predictive_value_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "negative_predictive_value_difference",
            ("negative_predictive_value",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="negative predictive value",
        formula="TN / (TN + FN)",
        needs="pair",
        note="",
        example="0.75",
    )
    def negative_predictive_value_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "negative_predictive_value_ratio",
            ("negative_predictive_value",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="false discovery rate",
        formula="FP / (TP + FP)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def false_discovery_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_discovery_rate_difference",
            ("false_discovery_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="false discovery rate",
        formula="FP / (TP + FP)",
        needs="pair",
        note="",
        example="0.6667",
    )
    def false_discovery_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_discovery_rate_ratio",
            ("false_discovery_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="false omission rate",
        formula="FN / (TN + FN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def false_omission_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_omission_rate_difference",
            ("false_omission_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="false omission rate",
        formula="FN / (TN + FN)",
        needs="pair",
        note="",
        example="0.6667",
    )
    def false_omission_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "false_omission_rate_ratio",
            ("false_omission_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="accuracy",
        formula="(TP + TN) / n",
        needs="pair",
        note="",
        example="0.0",
    )
    def accuracy_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "accuracy_difference",
            ("accuracy",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="accuracy",
        formula="(TP + TN) / n",
        needs="pair",
        note="",
        example="1.0",
    )
    def accuracy_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "accuracy_ratio",
            ("accuracy",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="error rate",
        formula="(FP + FN) / n",
        needs="pair",
        note="",
        example="0.0",
    )
    def error_rate_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "error_rate_difference",
            ("error_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="error rate",
        formula="(FP + FN) / n",
        needs="pair",
        note="",
        example="1.0",
    )
    def error_rate_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "error_rate_ratio",
            ("error_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="share of all predicted positives (Aequitas' ppr)",
        formula="PP_a / \\sum_g PP_g",
        needs="pred",
        note="",
        example="0.2",
    )
    def predicted_positive_share_difference(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predicted_positive_share_difference",
            ("predicted_positive_share",),
            "difference",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="share of all predicted positives (Aequitas' ppr)",
        formula="PP_a / \\sum_g PP_g",
        needs="pred",
        note="",
        example="0.6667",
    )
    def predicted_positive_share_ratio(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predicted_positive_share_ratio",
            ("predicted_positive_share",),
            "ratio",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="F1 score",
        formula="2 TP / (2 TP + FP + FN)",
        needs="pair",
        note="",
        example="0.1667",
    )
    def f1_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "f1_difference",
            ("f1",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="F1 score",
        formula="2 TP / (2 TP + FP + FN)",
        needs="pair",
        note="",
        example="0.75",
    )
    def f1_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "f1_ratio",
            ("f1",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="balanced accuracy",
        formula="(TPR + TNR) / 2",
        needs="pair",
        note="",
        example="0.0",
    )
    def balanced_accuracy_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balanced_accuracy_difference",
            ("balanced_accuracy",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="balanced accuracy",
        formula="(TPR + TNR) / 2",
        needs="pair",
        note="",
        example="1.0",
    )
    def balanced_accuracy_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balanced_accuracy_ratio",
            ("balanced_accuracy",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="Same definition and numbers as :func:`fairlearn.metrics.demographic_parity_difference`.",
        example="0.2",
    )
    def demographic_parity_difference(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "demographic_parity_difference",
            ("selection_rate",),
            "difference",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="Same definition and numbers as :func:`fairlearn.metrics.demographic_parity_ratio`.",
        example="0.6667",
    )
    def demographic_parity_ratio(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "demographic_parity_ratio",
            ("selection_rate",),
            "ratio",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="With `reference_group` (the privileged group) and two groups this is AIF360's signed ``statistical_parity_difference`` (unprivileged minus privileged).",
        example="0.2",
    )
    def statistical_parity_difference(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "statistical_parity_difference",
            ("selection_rate",),
            "difference",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="selection rate",
        formula="P(\\hat{Y}=1 \\mid A=a)",
        needs="pred",
        note="With `reference_group` (the privileged group) and two groups this is AIF360's ``disparate_impact`` (unprivileged over privileged); the four-fifths rule asks for at least 0.8.",
        example="0.6667",
    )
    def disparate_impact_ratio(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "disparate_impact_ratio",
            ("selection_rate",),
            "ratio",
            y_true=None,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="true positive rate",
        formula="TP / (TP + FN)",
        needs="pair",
        note="Same as fairlearn's ``equal_opportunity_difference``; with `reference_group`, AIF360's signed ``equal_opportunity_difference``.",
        example="0.1667",
    )
    def equal_opportunity_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "equal_opportunity_difference",
            ("true_positive_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="true positive rate",
        formula="TP / (TP + FN)",
        needs="pair",
        note="Same as fairlearn's ``equal_opportunity_ratio``.",
        example="0.75",
    )
    def equal_opportunity_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "equal_opportunity_ratio",
            ("true_positive_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="false positive rate",
        formula="FP / (FP + TN)",
        needs="pair",
        note="Predictive equality compares false positive rates (not false discovery rates).",
        example="0.1667",
    )
    def predictive_equality_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predictive_equality_difference",
            ("false_positive_rate",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="false positive rate",
        formula="FP / (FP + TN)",
        needs="pair",
        note="Predictive equality compares false positive rates (not false discovery rates).",
        example="0.6667",
    )
    def predictive_equality_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predictive_equality_ratio",
            ("false_positive_rate",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="positive predictive value (precision)",
        formula="TP / (TP + FP)",
        needs="pair",
        note="Predictive parity compares positive predictive values (precision).",
        example="0.1667",
    )
    def predictive_parity_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predictive_parity_difference",
            ("positive_predictive_value",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="positive predictive value (precision)",
        formula="TP / (TP + FP)",
        needs="pair",
        note="Predictive parity compares positive predictive values (precision).",
        example="0.75",
    )
    def predictive_parity_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "predictive_parity_ratio",
            ("positive_predictive_value",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="the true positive rate and false positive rate comparisons",
        formula="",
        needs="pair",
        note="Same definition and numbers as :func:`fairlearn.metrics.equalized_odds_difference`.",
        example="0.1667",
        agg=True,
    )
    def equalized_odds_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        agg: Agg = "worst_case",
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "equalized_odds_difference",
            ("true_positive_rate", "false_positive_rate"),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg=agg,
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="the true positive rate and false positive rate comparisons",
        formula="",
        needs="pair",
        note="Same definition and numbers as :func:`fairlearn.metrics.equalized_odds_ratio`.",
        example="0.6667",
        agg=True,
    )
    def equalized_odds_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        agg: Agg = "worst_case",
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "equalized_odds_ratio",
            ("true_positive_rate", "false_positive_rate"),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg=agg,
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="the average odds :math:`(TPR + FPR) / 2`; between a group and a reference this is :math:`\\tfrac12(\\Delta FPR + \\Delta TPR)`",
        formula="",
        needs="pair",
        note="With `reference_group` and two groups this is AIF360's signed ``average_odds_difference``.",
        example="0.1667",
        agg=False,
    )
    def average_odds_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "average_odds_difference",
            ("average_odds",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="the absolute odds gaps :math:`\\tfrac12(|\\Delta FPR| + |\\Delta TPR|)`; ``between_groups`` averages the two ranges, ``to_overall`` and ``to_reference`` take the largest per-group value",
        formula="",
        needs="pair",
        note="With `reference_group` and two groups this is AIF360's ``average_abs_odds_difference``.",
        example="0.1667",
        agg=False,
    )
    def average_abs_odds_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "average_abs_odds_difference",
            ("true_positive_rate", "false_positive_rate"),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="the worst of the positive and negative predictive value comparisons",
        formula="",
        needs="pair",
        note="Conditional use accuracy equality asks for equal PPV and equal NPV.",
        example="0.1667",
        agg=False,
    )
    def conditional_use_accuracy_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "conditional_use_accuracy_difference",
            ("positive_predictive_value", "negative_predictive_value"),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="the worst of the positive and negative predictive value comparisons",
        formula="",
        needs="pair",
        note="Conditional use accuracy equality asks for equal PPV and equal NPV.",
        example="0.75",
        agg=False,
    )
    def conditional_use_accuracy_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "conditional_use_accuracy_ratio",
            ("positive_predictive_value", "negative_predictive_value"),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="the ratio of false negatives to false positives :math:`FN / FP` (null when FP = 0)",
        formula="",
        needs="pair",
        note="Treatment equality (Berk et al.) asks for the same FN / FP balance in every group.",
        example="0.0",
        agg=False,
    )
    def treatment_equality_difference(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "treatment_equality_difference",
            ("treatment_equality",),
            "difference",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="the ratio of false negatives to false positives :math:`FN / FP` (null when FP = 0)",
        formula="",
        needs="pair",
        note="Treatment equality (Berk et al.) asks for the same FN / FP balance in every group.",
        example="1.0",
        agg=False,
    )
    def treatment_equality_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "treatment_equality_ratio",
            ("treatment_equality",),
            "ratio",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="mean score of the actual positives",
        formula="E[S \\mid Y=1, A=a]",
        needs="prob",
        note="Kleinberg et al.'s balance for the positive class: people who are in fact positive should get the same average score whatever their group. Computed from the score summed over actual positives in the statistics table (no extra pass).",
        example="0.15",
    )
    def balance_for_positive_class_difference(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balance_for_positive_class_difference",
            ("balance_for_positive_class",),
            "difference",
            y_true=y_true,
            y_pred=None,
            y_prob=y_prob,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="mean score of the actual positives",
        formula="E[S \\mid Y=1, A=a]",
        needs="prob",
        note="Kleinberg et al.'s balance for the positive class: people who are in fact positive should get the same average score whatever their group. Computed from the score summed over actual positives in the statistics table (no extra pass).",
        example="0.7857",
    )
    def balance_for_positive_class_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balance_for_positive_class_ratio",
            ("balance_for_positive_class",),
            "ratio",
            y_true=y_true,
            y_pred=None,
            y_prob=y_prob,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="difference",
        measure="mean score of the actual negatives",
        formula="E[S \\mid Y=0, A=a]",
        needs="prob",
        note="Balance for the negative class: a higher mean score for one group's actual negatives is the score-level analogue of a higher false positive rate. Computed from a score sum in the statistics table (no extra pass).",
        example="0.1",
    )
    def balance_for_negative_class_difference(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balance_for_negative_class_difference",
            ("balance_for_negative_class",),
            "difference",
            y_true=y_true,
            y_pred=None,
            y_prob=y_prob,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )

    @_criterion_doc(
        kind="ratio",
        measure="mean score of the actual negatives",
        formula="E[S \\mid Y=0, A=a]",
        needs="prob",
        note="Balance for the negative class: a higher mean score for one group's actual negatives is the score-level analogue of a higher false positive rate. Computed from a score sum in the statistics table (no extra pass).",
        example="0.75",
    )
    def balance_for_negative_class_ratio(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT:
        return self._criterion(
            "balance_for_negative_class_ratio",
            ("balance_for_negative_class",),
            "ratio",
            y_true=y_true,
            y_pred=None,
            y_prob=y_prob,
            sensitive_features=sensitive_features,
            by=by,
            sample_weight=sample_weight,
            pos_label=pos_label,
            method=method,
            reference_group=reference_group,
            agg="worst_case",
            zero_division=zero_division,
        )


class LazyFrameFairNamespace(FairNamespace[pl.LazyFrame, pl.LazyFrame]):
    """``lf.fair``: every method returns a LazyFrame and nothing is collected."""

    #: Called with each reduction a method builds (the report records them).
    _on_reduce: Callable[[pl.LazyFrame], None] | None = None
    #: Returns the collected reduction for a plan (the report derives from its own).
    _serve: Callable[[pl.LazyFrame], pl.DataFrame] | None = None

    def _derive(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> pl.LazyFrame:
        if self._on_reduce is not None:  # recording reductions only: no derivation needed
            self._on_reduce(reduced)
            return reduced
        if self._serve is not None:  # derive from an already collected reduction
            table = self._serve(reduced)
            warned = table if warn_rows is None else warn_rows(table)
            warn_about(warned, keys, measures, zero_division)
            return build(table.lazy())
        return build(reduced)

    def _derive_scalar(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        by: Sequence[str],
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> pl.LazyFrame:
        return self._derive(reduced, keys, build, measures, zero_division, warn_rows)


class DataFrameFairNamespace(FairNamespace[pl.DataFrame, "float | None | pl.DataFrame"]):
    """``df.fair``: reads the data once (the reduction), warns, derives and collects."""

    def _derive(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> pl.DataFrame:
        table = reduced.collect()
        warn_about(table if warn_rows is None else warn_rows(table), keys, measures, zero_division)
        return build(table.lazy()).collect(engine=derive_engine(table.height))

    def _derive_scalar(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        by: Sequence[str],
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> float | None | pl.DataFrame:
        result = self._derive(reduced, keys, build, measures, zero_division, warn_rows)
        if by:
            return result
        value = result.item()
        return None if value is None else float(value)


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
    from polars_fair._validate import MSG_FRAME
    from polars_fair.exceptions import InvalidParameterError

    msg = MSG_FRAME.format(type_name=type(frame).__name__)
    raise InvalidParameterError(msg)
