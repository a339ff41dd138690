"""Inequality indices of the ``fair`` namespace: benefits b = y_pred - y_true + 1.

The generalized entropy index, Theil index and coefficient of variation of the
benefits, over the whole population or between groups, all from the counts of one
statistics table (docs/metrics/inequality.md gives the formulas).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import check_in_plan, warn_data
from polars_fair._validate import as_python
from polars_fair.exceptions import InvalidParameterError, NumericalWarning
from polars_fair.metrics import require_nonempty, warn_one_group
from polars_fair.metrics._inequality import entropy_table
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, with_example
from polars_fair.plans._audit import Audit

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = ["InequalityMethods", "population_audit"]

_POPULATION = "__pf_population"

_DATA = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...     }
    ... )"""


_example = with_example(_DATA)


def population_audit(
    frame: pl.DataFrame | pl.LazyFrame, sensitive_features: IntoColumns | None, **kwargs: Any
) -> Audit:
    """The audit of a call; without `sensitive_features`, the population is one group."""
    if sensitive_features is None:
        frame = frame.lazy().with_columns(pl.lit(0, dtype=pl.Int8).alias(_POPULATION))
        sensitive_features = _POPULATION
    return Audit.of(frame, sensitive_features=sensitive_features, **kwargs)


def _check_alpha(alpha: object) -> float:
    alpha = as_python(alpha)
    ok = isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
    if not ok or not math.isfinite(float(alpha)):  # type: ignore[arg-type]
        msg = f"`alpha` must be a finite number, got {alpha!r}\n\nHint: e.g. `alpha=2`"
        raise InvalidParameterError(msg)
    return float(alpha)  # type: ignore[arg-type]


def _warn_non_finite(name: str, alpha: float) -> Callable[[pl.DataFrame], None]:
    """Warn (eager path) when the index came out infinite or NaN, saying why.

    With alpha <= 0 a benefit of 0 (a false negative; between groups, a group of false
    negatives only) has an infinite term; a very large alpha overflows float64 (NaN).
    """

    def check(df: pl.DataFrame) -> None:
        values = df.get_column(name)
        if values.is_infinite().any():
            why = "a benefit of 0 (a false negative) has an infinite term when alpha <= 0"
        elif values.is_nan().any():
            why = "(b / mu)^alpha overflows float64 (NaN)"
        else:
            return
        msg = (
            f"{name} with alpha={alpha!r} is not finite: {why}\n\nHint: use a moderate "
            "positive alpha, e.g. `alpha=2` (or `alpha=1`, the Theil index)"
        )
        warn_data(msg, NumericalWarning)

    return check


class InequalityMethods(NamespaceBase[TableT, ScalarT]):
    """Inequality indices of the benefits, overall and between groups."""

    def _entropy(
        self, name: str, alpha: float, between: bool, root: bool, **kwargs: Any
    ) -> ScalarT:
        audit = population_audit(self._frame, **kwargs)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            stats = require_nonempty(stats)
            if between:  # a comparison of groups: say when there is only one
                stats = warn_one_group(stats, audit.sensitive, audit.by)
            table = entropy_table(
                stats, by=audit.by, alpha=alpha, between_groups=between,
                name=name, root=root,
            )  # fmt: skip
            return check_in_plan(table, _warn_non_finite(name, alpha))

        return self._derive_scalar(audit.stats(), audit.keys, build, audit.by)

    # ---- inequality indices -------------------------------------------------------

    @_example
    def generalized_entropy_index(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        alpha: float = 2.0,
        sensitive_features: IntoColumns | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Generalized entropy index of the benefit :math:`b_i = \hat y_i - y_i + 1`.

        :math:`GE(\alpha) = \frac{1}{n\alpha(\alpha-1)} \sum_i [(b_i/\mu)^\alpha - 1]`
        (Speicher et al., 2018), with the limits :math:`\frac1n \sum (b_i/\mu)
        \ln(b_i/\mu)` at :math:`\alpha=1` and :math:`-\frac1n\sum \ln(b_i/\mu)` at
        :math:`\alpha=0` (infinite as soon as one false negative gives
        :math:`b_i=0`). 0 is perfect equality. b takes three values, so the index
        is a function of the confusion counts: no extra pass.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        alpha
            The inequality aversion parameter (2: half the squared coefficient of
            variation; 1: Theil).
        sensitive_features
            Optional: the index is over the whole population either way; groups
            only change how the counts are tabulated.
        by
            Batch key column(s): one value per key.
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Notes
        -----
        AIF360 divides the :math:`\alpha=0` summand by :math:`\mu` as well, so its
        value differs there; this follows the textbook formula (Jurity's
        documentation). Other alphas agree with AIF360.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.generalized_entropy_index(y_true="y_true", y_pred="y_pred"), 4)
        0.2
        """
        a = _check_alpha(alpha)
        return self._entropy(
            "generalized_entropy_index", a, False, False, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    @_example
    def theil_index(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Theil index: the generalized entropy index at :math:`\alpha = 1`.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Optional (the index is over the whole population).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.theil_index(y_true="y_true", y_pred="y_pred"), 4)
        0.2773
        """
        return self._entropy(
            "theil_index", 1.0, False, False, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    @_example
    def coefficient_of_variation(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Coefficient of variation of the benefit: :math:`\sqrt{2\,GE(2)} = \sigma_b/\mu`.

        The population standard deviation of :math:`b_i` over its mean, as AIF360's;
        Holistic AI reports :math:`2\sqrt{GE(2)}` under this name, which is
        :math:`\sqrt2` times larger.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Optional (the index is over the whole population).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.coefficient_of_variation(y_true="y_true", y_pred="y_pred"), 4)
        0.6325
        """
        return self._entropy(
            "coefficient_of_variation", 2.0, False, True, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    @_example
    def between_group_generalized_entropy_index(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        alpha: float = 2.0,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Between-group generalized entropy index.

        The index of :meth:`generalized_entropy_index` after replacing each
        :math:`b_i` by the mean benefit of its group: the part of the inequality
        that is due to differences between groups.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        alpha
            The inequality aversion parameter.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.between_group_generalized_entropy_index(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group"
        ... ), 4)
        0.0
        """
        a = _check_alpha(alpha)
        return self._entropy(
            "between_group_generalized_entropy_index", a, True, False, y_true=y_true,
            y_pred=y_pred, sensitive_features=sensitive_features, by=by,
            sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip

    @_example
    def between_group_coefficient_of_variation(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Between-group coefficient of variation: :math:`\sqrt{2\,GE_{between}(2)}`.

        The coefficient of variation of :meth:`coefficient_of_variation` after
        replacing each :math:`b_i` by the mean benefit of its group: the population
        standard deviation of the group means (weighted by group size) over the
        overall mean, as AIF360's ``between_group_coefficient_of_variation``.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.between_group_coefficient_of_variation(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group"
        ... ), 4)
        0.0

        Group means of 1.4 and 1.0 around 1.2: ``0.2 / 1.2``.

        >>> lenient = pl.when(pl.col("group") == "a").then(1).otherwise("y_pred")
        >>> round(df.fair.between_group_coefficient_of_variation(
        ...     y_true="y_true", y_pred=lenient, sensitive_features="group"
        ... ), 4)
        0.1667
        """
        return self._entropy(
            "between_group_coefficient_of_variation", 2.0, True, True, y_true=y_true,
            y_pred=y_pred, sensitive_features=sensitive_features, by=by,
            sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip

    @_example
    def between_group_theil_index(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Between-group Theil index (:math:`\alpha = 1`).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (frequency weights).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.between_group_theil_index(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group"
        ... ), 4)
        0.0
        """
        return self._entropy(
            "between_group_theil_index", 1.0, True, False, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip
