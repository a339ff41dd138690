"""Ensemble methods of the ``fair`` namespace: stability and uncertainty disparities.

Given the member probabilities of an ensemble (Virny's bootstrap of models), each
row gets its label stability, jitter, spread and entropies inside the lazy plan
(:mod:`polars_fair.reduce.ensemble`); groups are compared on the means of those
per-row measures, with every comparison method and reference policy of the
classification criteria.
"""

# mypy: disable-error-code="empty-body"
# (the criterion stubs' bodies are supplied by the decorator)

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair.metrics import require_nonempty
from polars_fair.metrics._catalogue import Criterion
from polars_fair.metrics._ensemble import ENSEMBLE_MEASURES, ensemble_formula
from polars_fair.metrics._measures import measure_table
from polars_fair.namespace._base import (
    NamespaceBase,
    ScalarT,
    TableT,
    criterion_stub,
    fill_example,
    with_example,
)
from polars_fair.plans._audit import check_names, check_zd, measure_disparities_plan
from polars_fair.reduce.ensemble import ensemble_stats as reduce_ensemble

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, Method, ReferenceGroup

__all__ = ["EnsembleMethods"]

_DATA = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a", "a", "b", "b"],
    ...         "m1": [0.9, 0.2, 0.6, 0.4],
    ...         "m2": [0.8, 0.1, 0.3, 0.7],
    ...         "m3": [0.7, 0.3, 0.55, 0.45],
    ...     }
    ... )"""

_example = with_example(_DATA)

_DEFINITIONS = {
    "label_stability": "``|#pos - #neg| / M`` over the M members' labels (1: unanimous)",
    "jitter": "the share of member pairs whose labels disagree (0: unanimous)",
    "std": "the standard deviation of the members' probabilities (``ddof=1``)",
    "iqr": "the interquartile range of the members' probabilities",
    "aleatoric_uncertainty": "the mean binary entropy (bits) of the members",
    "epistemic_uncertainty": "overall minus aleatoric uncertainty (member disagreement)",
    "overall_uncertainty": "the binary entropy (bits) of the members' mean probability",
}

_CRITERION_DOC = """
    {title}

    Compares the per-group mean of the per-row {measure}: {definition}.

    Parameters
    ----------
    y_prob
        The members' probabilities of the positive class: two or more columns, or
        one list or array column.
    sensitive_features
        Column name(s) defining the groups.
    by
        Batch key column(s): one value per key.
    sample_weight
        Column of non-negative weights.
    threshold
        A member predicts the positive label when its probability is at least this.
    method
        ``"between_groups"`` (default without `reference_group`): {between};
        ``"to_overall"``: against the whole population; ``"to_reference"``
        (default with `reference_group`): signed, for the group farthest from the
        reference (Virny's dis minus priv with the privileged group as reference).
    reference_group
        The group compared against: a value, a tuple or dict, or ``"largest"``.
    zero_division
        None keeps an undefined value null (left out); a float replaces it.

    Returns
    -------
    float or DataFrame
        A float on a DataFrame without `by`; with `by`, a DataFrame of the `by`
        columns and ``{name}``. On a LazyFrame, the LazyFrame of that table.

    See Also
    --------
    ensemble_by_group : The per-group means.

    Examples
    --------
    >>> DATA
    >>> round(df.fair.{name}(y_prob=["m1", "m2", "m3"], sensitive_features="group"), 4)
    {example}
"""


def _ensemble_doc(entry: Criterion) -> str:
    """The docstring of an ensemble criterion, filled from its catalogue entry."""
    (measure,) = entry.measures
    title = f"{'Difference' if entry.kind == 'difference' else 'Ratio'} in mean {entry.words} between groups."
    between = (
        "largest minus smallest (>= 0)"
        if entry.kind == "difference"
        else "smallest over largest (<= 1)"
    )
    return fill_example(_CRITERION_DOC.format(
        title=title, measure=entry.words, definition=_DEFINITIONS[measure], between=between,
        name=entry.name, example=entry.example,
    ), _DATA)  # fmt: skip


def _run(namespace: Any, entry: Criterion, params: dict[str, Any]) -> Any:
    """Compute the ensemble criterion `entry` with the (complete) keyword `params`."""
    (measure,) = entry.measures
    reduced = namespace._ensemble_reduction(
        params["y_prob"], params["sensitive_features"], params["by"], params["sample_weight"],
        params["threshold"],
    )  # fmt: skip
    return namespace._formula_criterion(
        reduced, name=entry.name, measure=measure, kind=entry.kind, formula=ensemble_formula,
        by=as_names(params["by"]), sensitive=as_names(params["sensitive_features"]),
        method=params["method"], reference_group=params["reference_group"],
        zero_division=params["zero_division"],
    )  # fmt: skip


_ensemble_criterion = criterion_stub(doc=_ensemble_doc, run=_run)


class EnsembleMethods(NamespaceBase[TableT, ScalarT]):
    """Stability and uncertainty of ensemble predictions across groups."""

    def _ensemble_reduction(
        self,
        y_prob: IntoColumn | Sequence[IntoColumn],
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        threshold: float,
    ) -> pl.LazyFrame:
        return reduce_ensemble(
            self._frame, y_prob=y_prob, sensitive_features=sensitive_features, by=by,
            sample_weight=sample_weight, threshold=threshold,
        )  # fmt: skip

    @_example
    def ensemble_stats(
        self,
        *,
        y_prob: IntoColumn | Sequence[IntoColumn],
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        threshold: float = 0.5,
    ) -> TableT:
        """
        The ensemble statistics table: per-group sums of the per-row measures.

        Parameters
        ----------
        y_prob
            The members' probabilities of the positive class: two or more columns,
            or one list or array column.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        threshold
            A member predicts the positive label when its probability is at least this.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, n, n_null`` and ``sum_<measure>`` for each measure of
            :meth:`ensemble_by_group`. Additive across disjoint parts of the data.

        Examples
        --------
        >>> DATA
        >>> df.fair.ensemble_stats(
        ...     y_prob=["m1", "m2", "m3"], sensitive_features="group"
        ... ).select("group", "n", "sum_label_stability")
        shape: (2, 3)
        ┌───────┬─────┬─────────────────────┐
        │ group ┆ n   ┆ sum_label_stability │
        │ ---   ┆ --- ┆ ---                 │
        │ str   ┆ i64 ┆ f64                 │
        ╞═══════╪═════╪═════════════════════╡
        │ a     ┆ 2   ┆ 2.0                 │
        │ b     ┆ 2   ┆ 0.666667            │
        └───────┴─────┴─────────────────────┘
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._ensemble_reduction(y_prob, sensitive_features, by, sample_weight, threshold)
        return self._derive(reduced, [*by_, *sens], lambda stats: stats)

    @_example
    def ensemble_by_group(
        self,
        *,
        y_prob: IntoColumn | Sequence[IntoColumn],
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        threshold: float = 0.5,
    ) -> TableT:
        """
        Per-group means of the ensemble's per-row stability and uncertainty.

        Per row, over the M members (probabilities ``p_m`` of the positive class,
        labels ``p_m >= threshold``): ``label_stability = |#pos - #neg| / M``;
        ``jitter``, the share of member pairs that disagree; ``std`` (``ddof=1``)
        and ``iqr`` of the probabilities; ``aleatoric_uncertainty``, the mean
        binary entropy (bits) of the members; ``overall_uncertainty``, the entropy
        of the mean probability; ``epistemic_uncertainty = overall - aleatoric``.
        Each column is the group mean (Virny's definitions; Virny passes the
        probability of class 0 to the entropy, which is symmetric, so the numbers
        agree).

        Parameters
        ----------
        y_prob
            The members' probabilities of the positive class: two or more columns,
            or one list or array column.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (weighted means).
        threshold
            A member predicts the positive label when its probability is at least this.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, n, n_null`` and one column per measure.

        Examples
        --------
        >>> DATA
        >>> df.fair.ensemble_by_group(
        ...     y_prob=["m1", "m2", "m3"], sensitive_features="group"
        ... ).select("group", "label_stability", "jitter", "epistemic_uncertainty")
        shape: (2, 4)
        ┌───────┬─────────────────┬──────────┬───────────────────────┐
        │ group ┆ label_stability ┆ jitter   ┆ epistemic_uncertainty │
        │ ---   ┆ ---             ┆ ---      ┆ ---                   │
        │ str   ┆ f64             ┆ f64      ┆ f64                   │
        ╞═══════╪═════════════════╪══════════╪═══════════════════════╡
        │ a     ┆ 1.0             ┆ 0.0      ┆ 0.03119               │
        │ b     ┆ 0.333333        ┆ 0.666667 ┆ 0.05086               │
        └───────┴─────────────────┴──────────┴───────────────────────┘
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._ensemble_reduction(y_prob, sensitive_features, by, sample_weight, threshold)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            table = measure_table(
                require_nonempty(stats), formula=ensemble_formula, measures=ENSEMBLE_MEASURES
            )
            return table.select(*by_, *sens, "n", "n_null", *ENSEMBLE_MEASURES)

        return self._derive(reduced, [*by_, *sens], build)

    @_example
    def ensemble_disparities(
        self,
        *,
        y_prob: IntoColumn | Sequence[IntoColumn],
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        metrics: Sequence[str] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        threshold: float = 0.5,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Every group against a reference, for every ensemble measure (long table).

        Parameters
        ----------
        y_prob
            The members' probabilities of the positive class: two or more columns,
            or one list or array column.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            A group value (tuple or dict for intersections), ``"largest"``
            (default), ``"min"``, ``"overall"`` or ``"rest"`` (the pooled means).
        metrics
            Measure names to include (default: all seven).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        threshold
            A member predicts the positive label when its probability is at least this.
        zero_division
            None keeps undefined values null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, metric, value, reference_value, difference, ratio``.

        Examples
        --------
        >>> DATA
        >>> df.fair.ensemble_disparities(
        ...     y_prob=["m1", "m2", "m3"], sensitive_features="group",
        ...     reference_group="a", metrics=["label_stability"],
        ... )
        shape: (2, 6)
        ┌───────┬─────────────────┬──────────┬─────────────────┬────────────┬──────────┐
        │ group ┆ metric          ┆ value    ┆ reference_value ┆ difference ┆ ratio    │
        │ ---   ┆ ---             ┆ ---      ┆ ---             ┆ ---        ┆ ---      │
        │ str   ┆ enum            ┆ f64      ┆ f64             ┆ f64        ┆ f64      │
        ╞═══════╪═════════════════╪══════════╪═════════════════╪════════════╪══════════╡
        │ a     ┆ label_stability ┆ 1.0      ┆ 1.0             ┆ 0.0        ┆ 1.0      │
        │ b     ┆ label_stability ┆ 0.333333 ┆ 1.0             ┆ -0.666667  ┆ 0.333333 │
        └───────┴─────────────────┴──────────┴─────────────────┴────────────┴──────────┘
        """
        zd = check_zd(zero_division)
        wanted = check_names("metrics", metrics, ENSEMBLE_MEASURES, what="measures")
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._ensemble_reduction(y_prob, sensitive_features, by, sample_weight, threshold)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return measure_disparities_plan(
                stats, formula=ensemble_formula, measures=wanted,
                reference_group=reference_group, zero_division=zd, by=by_, sensitive=sens,
            )  # fmt: skip

        return self._derive(reduced, [*by_, *sens], build)

    # stubs: signatures only, bodies and docstrings from the catalogue

    @_ensemble_criterion
    def label_stability_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def label_stability_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def jitter_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def jitter_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def std_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def std_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def iqr_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def iqr_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def aleatoric_uncertainty_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def aleatoric_uncertainty_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def epistemic_uncertainty_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def epistemic_uncertainty_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def overall_uncertainty_difference(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_ensemble_criterion
    def overall_uncertainty_ratio(
        self, *, y_prob: IntoColumn | Sequence[IntoColumn], sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        threshold: float = 0.5, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip
