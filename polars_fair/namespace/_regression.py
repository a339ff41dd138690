"""Regression methods of the ``fair`` namespace: continuous predictions.

Per-group means, spreads and errors come from one pass of additive sums
(:func:`~polars_fair.reduce.regression.regression_stats`); the quantile-based
outcome metrics need a second pass for the quantiles
(:func:`~polars_fair.reduce.regression.quantile_grid_stats`). Definitions follow
Holistic AI's regression metrics; docs/metrics/regression.md lists where and why
they differ.
"""

# mypy: disable-error-code="empty-body"
# (the criterion stubs' bodies are supplied by the decorator)

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics import require_nonempty, resolve_reference
from polars_fair.metrics._catalogue import Criterion
from polars_fair.metrics._measures import measure_table
from polars_fair.metrics._reference import warn_one_group
from polars_fair.metrics._regression import (
    LABEL_MEASURES,
    PREDICTION_MEASURES,
    regression_formula,
    zscore_table,
)
from polars_fair.namespace._base import (
    NamespaceBase,
    ScalarT,
    TableT,
    criterion_stub,
    fill_example,
    with_example,
)
from polars_fair.plans._audit import (
    check_names,
    check_zd,
    measure_disparities_plan,
)
from polars_fair.reduce.regression import regression_stats as reduce_regression

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, Method, ReferenceGroup

__all__ = ["RegressionMethods"]

_DATA = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a", "a", "a", "a", "b", "b", "b", "b"],
    ...         "pred": [3.0, 5.0, 4.0, 8.0, 2.0, 4.0, 1.0, 3.0],
    ...         "y": [2.0, 6.0, 4.0, 7.0, 3.0, 3.0, 2.0, 5.0],
    ...     }
    ... )"""

_example = with_example(_DATA)

_CRITERION_DOC = """
    {title}

    Compares the per-group {measure} across the groups of `sensitive_features`:
    {definition}

    Parameters
    ----------
    y_pred
        Column (or expression) of numeric predictions.
    sensitive_features
        Column name(s) defining the groups.
{y_true}    by
        Batch key column(s): one value per key.
    sample_weight
        Column of non-negative weights (weighted sums).
    method
        ``"between_groups"`` (default without `reference_group`): {between};
        ``"to_overall"``: against the whole population; ``"to_reference"``
        (default with `reference_group`): signed, for the group farthest from the
        reference.
    reference_group
        The group compared against: a value, a tuple or dict, or ``"largest"``.
    zero_division
        None keeps an undefined per-group value null (left out); a float replaces it.

    Returns
    -------
    float or DataFrame
        A float on a DataFrame without `by` (None when undefined); with `by`, a
        DataFrame of the `by` columns and ``{name}``. On a LazyFrame, the LazyFrame
        of that table.

    See Also
    --------
    regression_by_group : The per-group measures.

    Examples
    --------
    >>> DATA
    >>> round(df.fair.{name}({args}sensitive_features="group"), 4)
    {example}
"""


def _regression_doc(entry: Criterion) -> str:
    """The docstring of a regression criterion, filled from its catalogue entry."""
    needs_true = "y_true" in entry.inputs
    between = (
        "largest minus smallest (>= 0)"
        if entry.kind == "difference"
        else "smallest over largest (<= 1)"
    )
    return fill_example(
        _CRITERION_DOC.format(
            title=entry.title,
            measure=entry.words,
            definition=entry.formula,
            y_true=(
                "    y_true\n        Column (or expression) of numeric true values (required).\n"
                if needs_true
                else ""
            ),
            between=between,
            name=entry.name,
            args='y_pred="pred", y_true="y", ' if needs_true else 'y_pred="pred", ',
            example=entry.example,
        ),
        _DATA,
    )


def _run(namespace: Any, entry: Criterion, params: dict[str, Any]) -> Any:
    """Compute the regression criterion `entry` with the (complete) keyword `params`."""
    (measure,) = entry.measures
    if "y_true" in entry.inputs and params["y_true"] is None:
        msg = f"`{entry.name}` compares the {measure}, which needs `y_true`\n\nHint: pass `y_true=`"
        raise InvalidParameterError(msg)
    params = {"y_true": None, **params}
    return namespace._measure_criterion(entry.name, measure, entry.kind, **params)


_regression_criterion = criterion_stub(doc=_regression_doc, run=_run)


def _measures(y_true: IntoColumn | None) -> tuple[str, ...]:
    """The per-group measures the inputs allow (the error measures need `y_true`)."""
    return PREDICTION_MEASURES + (LABEL_MEASURES if y_true is not None else ())


class RegressionMethods(NamespaceBase[TableT, ScalarT]):
    """Regression methods (continuous predictions, optional true values)."""

    # ---- shared plumbing ------------------------------------------------------------

    def _regression_reduction(
        self,
        y_pred: IntoColumn,
        y_true: IntoColumn | None,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
    ) -> pl.LazyFrame:
        return reduce_regression(
            self._frame, y_pred=y_pred, y_true=y_true, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight,
        )  # fmt: skip

    def _measure_criterion(
        self,
        name: str,
        measure: str,
        kind: str,
        *,
        y_pred: IntoColumn,
        y_true: IntoColumn | None,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        sample_weight: IntoColumn | None,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        zero_division: float | None,
    ) -> ScalarT:
        reduced = self._regression_reduction(y_pred, y_true, sensitive_features, by, sample_weight)
        return self._formula_criterion(
            reduced, name=name, measure=measure, kind=kind, formula=regression_formula,
            by=as_names(by), sensitive=as_names(sensitive_features), method=method,
            reference_group=reference_group, zero_division=zero_division,
        )  # fmt: skip

    # ---- tables ---------------------------------------------------------------------

    @_example
    def regression_stats(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
    ) -> TableT:
        """
        The regression statistics table: per-group additive sums, in one pass.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        y_true
            Column (or expression) of numeric true values: adds the error sums.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, n, n_null, sum_pred, sum_pred_sq`` and, with
            `y_true`, ``sum_true, sum_true_sq, sum_pred_true, sum_abs_error,
            sum_sq_error``. Additive: tables of disjoint parts sum to the whole.

        See Also
        --------
        regression_by_group : The measures derived from these sums.

        Examples
        --------
        >>> DATA
        >>> df.fair.regression_stats(y_pred="pred", sensitive_features="group")
        shape: (2, 5)
        ┌───────┬─────┬────────┬──────────┬─────────────┐
        │ group ┆ n   ┆ n_null ┆ sum_pred ┆ sum_pred_sq │
        │ ---   ┆ --- ┆ ---    ┆ ---      ┆ ---         │
        │ str   ┆ i64 ┆ i64    ┆ f64      ┆ f64         │
        ╞═══════╪═════╪════════╪══════════╪═════════════╡
        │ a     ┆ 4   ┆ 0      ┆ 20.0     ┆ 114.0       │
        │ b     ┆ 4   ┆ 0      ┆ 10.0     ┆ 30.0        │
        └───────┴─────┴────────┴──────────┴─────────────┘
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._regression_reduction(y_pred, y_true, sensitive_features, by, sample_weight)
        return self._derive(reduced, [*by_, *sens], lambda stats: stats)

    @_example
    def regression_by_group(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Per-group regression measures: mean and spread of predictions, errors.

        Columns: ``mean_prediction``, ``std_prediction`` (population standard
        deviation) and, with `y_true`, ``mean_true``, ``rmse``, ``mae`` and
        ``correlation`` (Pearson's r of prediction and truth; null when either is
        constant in the group). All from one pass of additive sums.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        y_true
            Column (or expression) of numeric true values.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (weighted moments).
        zero_division
            None keeps an undefined measure null; a float replaces it.

        Returns
        -------
        DataFrame or LazyFrame
            The statistics table followed by the measure columns.

        Examples
        --------
        >>> DATA
        >>> df.fair.regression_by_group(
        ...     y_pred="pred", y_true="y", sensitive_features="group"
        ... ).select("group", "mean_prediction", "rmse", "mae")
        shape: (2, 4)
        ┌───────┬─────────────────┬──────────┬──────┐
        │ group ┆ mean_prediction ┆ rmse     ┆ mae  │
        │ ---   ┆ ---             ┆ ---      ┆ ---  │
        │ str   ┆ f64             ┆ f64      ┆ f64  │
        ╞═══════╪═════════════════╪══════════╪══════╡
        │ a     ┆ 5.0             ┆ 0.866025 ┆ 0.75 │
        │ b     ┆ 2.5             ┆ 1.322876 ┆ 1.25 │
        └───────┴─────────────────┴──────────┴──────┘
        """
        zd = check_zd(zero_division)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._regression_reduction(y_pred, y_true, sensitive_features, by, sample_weight)
        measures = _measures(y_true)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return measure_table(
                require_nonempty(stats), formula=regression_formula, measures=measures,
                zero_division=zd,
            )  # fmt: skip

        return self._derive(reduced, [*by_, *sens], build)

    @_example
    def regression_disparities(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None,
        reference_group: ReferenceGroup | None = None,
        metrics: Sequence[str] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Every group against a reference, for every regression measure (long table).

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        y_true
            Column (or expression) of numeric true values (adds the error measures).
        reference_group
            A group value (tuple or dict for intersections), ``"largest"``
            (default), ``"min"`` (per measure), ``"overall"`` (the whole population)
            or ``"rest"`` (the other groups pooled): the pooled references are the
            measure of the pooled sums, not an average of group values.
        metrics
            Measure names to include (default: all that the inputs allow).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        zero_division
            None keeps undefined values null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, metric, value, reference_value, difference, ratio``
            with ``difference = value - reference_value`` and ``ratio =
            value / reference_value`` (null when the reference is 0).

        Examples
        --------
        >>> DATA
        >>> df.fair.regression_disparities(
        ...     y_pred="pred", sensitive_features="group", reference_group="a",
        ...     metrics=["mean_prediction"],
        ... )
        shape: (2, 6)
        ┌───────┬─────────────────┬───────┬─────────────────┬────────────┬───────┐
        │ group ┆ metric          ┆ value ┆ reference_value ┆ difference ┆ ratio │
        │ ---   ┆ ---             ┆ ---   ┆ ---             ┆ ---        ┆ ---   │
        │ str   ┆ enum            ┆ f64   ┆ f64             ┆ f64        ┆ f64   │
        ╞═══════╪═════════════════╪═══════╪═════════════════╪════════════╪═══════╡
        │ a     ┆ mean_prediction ┆ 5.0   ┆ 5.0             ┆ 0.0        ┆ 1.0   │
        │ b     ┆ mean_prediction ┆ 2.5   ┆ 5.0             ┆ -2.5       ┆ 0.5   │
        └───────┴─────────────────┴───────┴─────────────────┴────────────┴───────┘
        """
        zd = check_zd(zero_division)
        wanted = check_names("metrics", metrics, _measures(y_true), what="measures")
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._regression_reduction(y_pred, y_true, sensitive_features, by, sample_weight)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return measure_disparities_plan(
                stats, formula=regression_formula, measures=wanted,
                reference_group=reference_group, zero_division=zd, by=by_, sensitive=sens,
            )  # fmt: skip

        return self._derive(reduced, [*by_, *sens], build)

    # ---- criteria of per-group measures -------------------------------------------------

    # stubs: signatures only, bodies and docstrings from the catalogue

    @_regression_criterion
    def average_score_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def average_score_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        by: IntoColumns | None = None, sample_weight: IntoColumn | None = None,
        method: Method | None = None, reference_group: ReferenceGroup | None = None,
        zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def rmse_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def rmse_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def mae_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def mae_ratio(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    @_regression_criterion
    def correlation_difference(
        self, *, y_pred: IntoColumn, sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None, by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None, method: Method | None = None,
        reference_group: ReferenceGroup | None = None, zero_division: float | None = None,
    ) -> ScalarT: ...  # fmt: skip

    # ---- two-group statistic ------------------------------------------------------------

    @_example
    def zscore_difference(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        reference_group: ReferenceGroup | None = None,
    ) -> ScalarT:
        """
        Difference of mean predictions over their pooled standard deviation.

        ``(m_g - m_ref) / sqrt(((n_g - 1) s_g² + (n_ref - 1) s_ref²) / (n_g + n_ref - 2))``
        with the groups' population variances ``s²``: Holistic AI's ``zscore_diff``
        (Cohen's d of the predictions, pooled as :meth:`cohen_d`). With more than two
        groups, the signed value of the group farthest from the reference.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        reference_group
            The reference group (a value, tuple or dict) or ``"largest"`` (default).

        Returns
        -------
        float or DataFrame
            As every criterion: a float without `by`, a table with it.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.zscore_difference(
        ...     y_pred="pred", sensitive_features="group", reference_group="a"
        ... ), 4)
        -1.6222
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        reduced = self._regression_reduction(y_pred, None, sensitive_features, by, sample_weight)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = resolve_reference(
                require_nonempty(stats), reference_group, sens, by_, pair=True
            )
            checked = warn_one_group(checked, sens, by_)
            return zscore_table(checked, by=by_, sensitive=sens, reference=reference)

        return self._derive_scalar(reduced, [*by_, *sens], build, by_)
