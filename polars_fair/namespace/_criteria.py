"""The criteria of the statistics table's rates (and of the ROC table's AUC): typed stubs.

Each method below is a stub: its signature is the real one (what IDEs, ``mypy
--strict``, :func:`inspect.signature` and the docs site see), its body and its
docstring come from its entry in :data:`polars_fair.metrics._catalogue.CATALOGUE`
through :func:`~polars_fair.namespace._base.criterion_stub`, as Polars fills its ``str``
and ``dt`` methods. One runner (:meth:`CriterionMethods._criterion`) computes them
all; a new criterion is one catalogue entry and one stub.
"""

# mypy: disable-error-code="empty-body"
# (the stubs' bodies are supplied by the decorator)

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair._validate import check_method
from polars_fair.metrics._auc import auc_criterion_table
from polars_fair.metrics._catalogue import Criterion
from polars_fair.metrics._reference import warn_one_group_rows
from polars_fair.metrics._scores import warn_one_class
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, criterion_stub
from polars_fair.namespace._scores import roc_stats
from polars_fair.plans._audit import Audit, check_zd, checked_reference

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

__all__ = ["CriterionMethods"]

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


_NEEDS = {
    ("y_pred",): "pred",
    ("y_true",): "true",
    ("y_true", "y_pred"): "pair",
    ("y_true", "y_prob"): "prob",
}


def _rate_doc(entry: Criterion) -> str:
    """The docstring of a rate criterion: one template, filled from its entry."""
    name, needs = entry.name, _NEEDS[entry.inputs]
    if entry.kind == "difference":
        title = f"Difference in {entry.words} between groups."
        between = "largest minus smallest group value (>= 0)"
        overall = "largest absolute gap between a group and the whole population"
        reference = "signed group value minus reference value"
    else:
        title = f"Ratio of {entry.words} between groups."
        between = "smallest over largest group value (<= 1)"
        overall = "smallest of ``min(g / overall, overall / g)`` over groups"
        reference = "group value over reference value"
    return _CRITERION_DOC.format(
        title=title,
        measure=entry.words,
        formula=f" :math:`{entry.formula}`" if entry.formula else "",
        note=entry.note,
        params=_PARAMS[needs],
        between=between,
        overall=overall,
        reference=reference,
        agg=_AGG if entry.agg_param else "",
        name=name,
        example=_EXAMPLE.format(name=name, args=_ARGS[needs], example=entry.example),
    )


def _run(namespace: Any, entry: Criterion, params: dict[str, Any]) -> Any:
    """Compute the rate criterion `entry` with the (complete) keyword `params`."""
    params = {"y_true": None, "y_pred": None, "agg": entry.agg, **params}
    return namespace._criterion(entry.name, entry.measures, entry.kind, **params)


_rate_criterion = criterion_stub(doc=_rate_doc, run=_run)


def _run_auc(namespace: Any, entry: Criterion, params: dict[str, Any]) -> Any:
    """Compute the AUC criterion `entry` (from the ROC table) with the keyword `params`."""
    return namespace._roc_auc_criterion(entry.name, entry.kind, **params)


_auc_criterion = criterion_stub(doc=_rate_doc, run=_run_auc)


class CriterionMethods(NamespaceBase[TableT, ScalarT]):
    """The criteria comparing one or several rates of the statistics table."""

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

        return self._derive_scalar(
            audit.stats(), audit.keys, build, audit.by, measures, zd, one_query=True
        )

    # ---- the stubs: signatures only, bodies and docstrings from the catalogue ----

    @_rate_criterion
    def selection_rate_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def selection_rate_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def base_rate_difference(
        self, *, y_true: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def base_rate_ratio(
        self, *, y_true: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def true_positive_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def true_positive_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_negative_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_negative_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_positive_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_positive_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def true_negative_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def true_negative_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def positive_predictive_value_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def positive_predictive_value_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def negative_predictive_value_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def negative_predictive_value_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_discovery_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_discovery_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_omission_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def false_omission_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def accuracy_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def accuracy_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def error_rate_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def error_rate_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predicted_positive_share_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predicted_positive_share_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def f1_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def f1_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balanced_accuracy_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balanced_accuracy_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def demographic_parity_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def demographic_parity_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def statistical_parity_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def disparate_impact_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, pos_label: PosLabel = 1,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def equal_opportunity_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def equal_opportunity_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predictive_equality_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predictive_equality_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predictive_parity_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def predictive_parity_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def equalized_odds_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, agg: Agg = "worst_case",
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def equalized_odds_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, agg: Agg = "worst_case",
        zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def average_odds_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def average_abs_odds_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def conditional_use_accuracy_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def conditional_use_accuracy_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def treatment_equality_difference(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def treatment_equality_ratio(
        self, *, y_true: IntoColumn, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balance_for_positive_class_difference(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balance_for_positive_class_ratio(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balance_for_negative_class_difference(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_rate_criterion
    def balance_for_negative_class_ratio(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    # ---- the groups' ROC AUC: the ROC table, not the statistics table -------------

    def _roc_auc_criterion(
        self,
        name: str,
        kind: str,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        pos_label: PosLabel,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        zero_division: ZeroDivision,
    ) -> ScalarT:
        zd = check_zd(zero_division)
        method_ = check_method(method, reference_group)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        keys = [*by_, *sens]
        roc = roc_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip

        def build(r: pl.LazyFrame) -> pl.LazyFrame:
            r, reference = checked_reference(r, method_, reference_group, by_, sens)
            r = warn_one_group_rows(r, sens, by_)
            r = warn_one_class(r, keys=keys, outcome=f"they are left out of {name}")
            r = r.cache()  # the groups' and the whole population's AUC: one read
            return auc_criterion_table(
                r, name=name, kind=kind, method=method_, by=by_, sensitive=sens,
                reference=reference, zero_division=zd,
            )  # fmt: skip

        return self._derive_scalar(roc, keys, build, by_, per_score=True)

    @_auc_criterion
    def roc_auc_difference(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip

    @_auc_criterion
    def roc_auc_ratio(
        self, *, y_true: IntoColumn, y_prob: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: ZeroDivision = None,
    ) -> ScalarT: ...  # fmt: skip
