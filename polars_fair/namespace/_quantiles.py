"""Outcome metrics at prediction quantiles: regression predictions as decisions.

The disparate impact and statistical parity of "the top q of predictions" need the
groups' counts above each quantile of the predictions: a second pass after the
quantiles (:func:`~polars_fair.reduce.regression.quantile_grid_stats`). Each method
derives from that grid; definitions follow Holistic AI's regression metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from polars_fair._utils import as_names
from polars_fair._validate import as_python, check_at_most, check_method, check_ratio_band
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._reference import warn_one_group_rows
from polars_fair.metrics._regression import (
    grid_criterion_table,
    no_disparate_impact_level_table,
    quantile_criterion_table,
)
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT
from polars_fair.namespace._regression import _example
from polars_fair.plans._audit import check_zd, checked_reference
from polars_fair.reduce.regression import check_levels, quantile_grid_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, Method, ReferenceGroup

__all__ = ["QuantileMethods"]


def _check_n(value: object, param: str) -> int:
    value = as_python(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2:
        check_at_most(value, param, 10_000, f"a few hundred levels suffice, e.g. `{param}=150`")
        return value
    msg = f"`{param}` must be an integer >= 2, got {value!r}\n\nHint: e.g. `{param}=150`"
    raise InvalidParameterError(msg)


def _one_level(grid: pl.DataFrame) -> pl.DataFrame:
    """The grid's rows at its first level: one per group (for the null-row warning)."""
    return grid.filter(pl.col("quantile") == pl.col("quantile").min())


def _grid_levels(n_thresholds: int) -> list[float]:
    """Holistic AI's threshold levels: ``numpy.linspace(1, 0, n)`` (as values)."""
    return [float(v) for v in np.linspace(1, 0, n_thresholds)]


class QuantileMethods(NamespaceBase[TableT, ScalarT]):
    """Outcome metrics at quantiles of continuous predictions."""

    # ---- shared plumbing ------------------------------------------------------------

    def _on_grid(
        self,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        levels: Sequence[float],
        method: Method | None,
        reference_group: ReferenceGroup | None,
        table: Callable[..., pl.LazyFrame],
    ) -> ScalarT:
        """A criterion over the quantile grid, one value per batch key.

        ``table(grid, method=, by=, sensitive=, reference=)`` derives it from the
        checked grid.
        """
        grid = quantile_grid_stats(
            self._frame, y_pred=y_pred, sensitive_features=sensitive_features, by=by,
            levels=levels,
        )  # fmt: skip
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        method_ = check_method(method, reference_group)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            keys = [*by_, "quantile"]
            checked, reference = checked_reference(stats, method_, reference_group, keys, sens)
            checked = warn_one_group_rows(checked, sens, by_)
            return table(checked, method=method_, by=by_, sensitive=sens, reference=reference)

        return self._derive_scalar(grid, [*by_, *sens], build, by_, warn_rows=_one_level)

    def _quantile_rate(
        self,
        name: str,
        kind: str,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        q: float,
        by: IntoColumns | None,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        zero_division: float | None,
    ) -> ScalarT:
        zd = check_zd(zero_division)
        if isinstance(q, (list, tuple)) or (getattr(q, "ndim", 0) or 0) > 0:
            msg = f"`q` must be one quantile level in [0, 1], got {q!r}\n\nHint: e.g. `q=0.8`"
            raise InvalidParameterError(msg)
        (level,) = check_levels(q)

        def table(grid: pl.LazyFrame, **kw: Any) -> pl.LazyFrame:
            values = quantile_criterion_table(grid, name=name, kind=kind, zero_division=zd, **kw)
            return values.select(*kw["by"], name)

        return self._on_grid(
            y_pred, sensitive_features, by, [level], method, reference_group, table
        )

    # ---- outcome metrics at prediction quantiles -------------------------------------

    @_example
    def disparate_impact_quantile(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        q: float = 0.8,
        by: IntoColumns | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: float | None = None,
    ) -> ScalarT:
        """
        Disparate impact of the success "prediction at or above the q-quantile".

        The threshold is the `q`-quantile of all predictions (of the batch key),
        linearly interpolated exactly as :func:`numpy.quantile`; each group's
        success rate is its share of rows at or above it, and the rates are compared
        as ratios (Holistic AI's ``disparate_impact_regression``). Needs a second
        pass over the data for the quantile.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        q
            Quantile level in [0, 1] of the success threshold (default 0.8, as
            Holistic AI's function).
        by
            Batch key column(s): a threshold per key.
        method
            As for every ratio criterion (default ``"between_groups"``: min over max).
        reference_group
            The reference group, or ``"largest"``, with ``"to_reference"``.
        zero_division
            None keeps an undefined rate null; a float replaces it.

        Returns
        -------
        float or DataFrame
            As every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.disparate_impact_quantile(
        ...     y_pred="pred", sensitive_features="group", q=0.5
        ... ), 4)
        0.3333
        """
        return self._quantile_rate(
            "disparate_impact_quantile", "ratio", y_pred=y_pred,
            sensitive_features=sensitive_features, q=q, by=by, method=method,
            reference_group=reference_group, zero_division=zero_division,
        )  # fmt: skip

    @_example
    def statistical_parity_quantile(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        q: float = 0.5,
        by: IntoColumns | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        zero_division: float | None = None,
    ) -> ScalarT:
        """
        Statistical parity of the success "prediction at or above the q-quantile".

        As :meth:`disparate_impact_quantile`, compared as differences (Holistic
        AI's ``statistical_parity_regression``). Holistic AI's summary table labels
        its value at ``q = 0.8`` "Statistical Parity Q50"; here ``q=0.5`` means the
        median.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        q
            Quantile level in [0, 1] of the success threshold (default 0.5).
        by
            Batch key column(s): a threshold per key.
        method
            As for every difference criterion (default ``"between_groups"``).
        reference_group
            The reference group, or ``"largest"``, with ``"to_reference"``.
        zero_division
            None keeps an undefined rate null; a float replaces it.

        Returns
        -------
        float or DataFrame
            As every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.statistical_parity_quantile(
        ...     y_pred="pred", sensitive_features="group", reference_group="a"
        ... ), 4)
        -0.5
        """
        return self._quantile_rate(
            "statistical_parity_quantile", "difference", y_pred=y_pred,
            sensitive_features=sensitive_features, q=q, by=by, method=method,
            reference_group=reference_group, zero_division=zero_division,
        )  # fmt: skip

    def _grid_metric(
        self,
        name: str,
        how: str,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None,
        method: Method | None,
        reference_group: ReferenceGroup | None,
        n_thresholds: int,
    ) -> ScalarT:
        levels = _grid_levels(_check_n(n_thresholds, "n_thresholds"))

        def table(grid: pl.LazyFrame, **kw: Any) -> pl.LazyFrame:
            return grid_criterion_table(grid, name=name, how=how, zero_division=None, **kw)

        return self._on_grid(y_pred, sensitive_features, by, levels, method, reference_group, table)

    @_example
    def max_statistical_parity(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        n_thresholds: int = 150,
    ) -> ScalarT:
        """
        Largest |statistical parity| over a grid of prediction-quantile thresholds.

        The thresholds are the quantiles of the predictions at the levels
        ``numpy.linspace(1, 0, n_thresholds)`` (Holistic AI's grid); at each one the
        statistical parity of "prediction at or above the threshold" is computed by
        `method`, and the largest absolute value is reported.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        method
            How groups are compared at each threshold (default ``"between_groups"``).
        reference_group
            The reference group, or ``"largest"``, with ``"to_reference"``.
        n_thresholds
            Number of quantile levels, at least 2.

        Returns
        -------
        float or DataFrame
            As every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.max_statistical_parity(y_pred="pred", sensitive_features="group"), 4)
        0.5
        """
        return self._grid_metric(
            "max_statistical_parity", "max", y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, method=method,
            reference_group=reference_group, n_thresholds=n_thresholds,
        )  # fmt: skip

    @_example
    def statistical_parity_auc(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        n_thresholds: int = 150,
    ) -> ScalarT:
        """
        Mean |statistical parity| over a grid of prediction-quantile thresholds.

        The area under the |statistical parity| versus quantile-level curve, on
        Holistic AI's grid ``numpy.linspace(1, 0, n_thresholds)`` with equal weights
        ``1 / n_thresholds`` (its ``statistical_parity_auc``). 0 is parity at every
        threshold.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        method
            How groups are compared at each threshold (default ``"between_groups"``).
        reference_group
            The reference group, or ``"largest"``, with ``"to_reference"``.
        n_thresholds
            Number of quantile levels, at least 2.

        Returns
        -------
        float or DataFrame
            As every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.statistical_parity_auc(y_pred="pred", sensitive_features="group"), 4)
        0.425
        """
        return self._grid_metric(
            "statistical_parity_auc", "mean", y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, method=method,
            reference_group=reference_group, n_thresholds=n_thresholds,
        )  # fmt: skip

    @_example
    def no_disparate_impact_level(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        method: Method | None = None,
        reference_group: ReferenceGroup | None = None,
        n_thresholds: int = 100,
        ratio_band: tuple[float, float] = (0.8, 1.25),
    ) -> ScalarT:
        """
        The highest success threshold at which disparate impact is within the band.

        Walks Holistic AI's grid of prediction quantiles (levels
        ``numpy.linspace(1, 0, n_thresholds)``) and returns the largest threshold
        (a prediction value) whose disparate impact, by `method`, lies within
        `ratio_band`. The lowest level (0) lets every row succeed, so the level
        exists whenever every group has rows. Holistic AI uses the open band
        (0.8, 1.2); pass ``ratio_band=(0.8, 1.2)`` to match it.

        Parameters
        ----------
        y_pred
            Column (or expression) of numeric predictions.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        method
            How groups are compared at each threshold (default ``"between_groups"``).
        reference_group
            The reference group, or ``"largest"``, with ``"to_reference"``.
        n_thresholds
            Number of quantile levels, at least 2.
        ratio_band
            ``(low, high)`` closed band of acceptable ratios.

        Returns
        -------
        float or DataFrame
            The threshold (a prediction value), as every criterion.

        Examples
        --------
        >>> DATA
        >>> df.fair.no_disparate_impact_level(y_pred="pred", sensitive_features="group")
        1.0
        """
        band = check_ratio_band(ratio_band)
        levels = _grid_levels(_check_n(n_thresholds, "n_thresholds"))

        def table(grid: pl.LazyFrame, **kw: Any) -> pl.LazyFrame:
            return no_disparate_impact_level_table(grid, band=band, **kw)

        return self._on_grid(y_pred, sensitive_features, by, levels, method, reference_group, table)
