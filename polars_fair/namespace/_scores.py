"""Score methods of the ``fair`` namespace: balance, calibration, ROC, sweeps.

They take a score ``y_prob`` in [0, 1] and are built on one score histogram per
call (one pass over the data, see :mod:`polars_fair.reduce.scores`). The balance
criteria are ordinary criteria over score sums in the statistics table and live with
the other criteria in :mod:`polars_fair.namespace`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._utils import as_names, shareable
from polars_fair._validate import check_min_size
from polars_fair.metrics import resolve_reference
from polars_fair.metrics._reference import warn_one_group_rows
from polars_fair.metrics._scores import (
    abroca_table,
    calibration_difference_table,
    calibration_table,
    ece_table,
    roc_auc_table,
    roc_curve_table,
    sweep_table,
    warn_one_class,
)
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, with_example
from polars_fair.plans._audit import check_zd
from polars_fair.reduce.scores import (
    bin_edges,
    check_thresholds,
    threshold_stats,
)
from polars_fair.reduce.scores import calibration_stats as _calibration_stats
from polars_fair.reduce.scores import roc_stats as _roc_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel, ReferenceGroup

__all__ = ["ScoreMethods"]

# inside a report's planning, equal reductions are one object (shared by identity)
calibration_stats = shareable(_calibration_stats)
roc_stats = shareable(_roc_stats)

_DATA = """
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 4 + ["b"] * 4,
    ...         "y_true": [1, 1, 0, 0, 1, 0, 1, 0],
    ...         "score": [0.9, 0.6, 0.4, 0.2, 0.7, 0.5, 0.3, 0.1],
    ...     }
    ... )"""


_example = with_example(_DATA)


class ScoreMethods(NamespaceBase[TableT, ScalarT]):
    """Methods that need a score (`y_prob`)."""

    # ---- calibration ------------------------------------------------------------

    @_example
    def calibration(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        n_bins: int = 10,
        bins: Sequence[float] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> TableT:
        """
        Calibration table: per group and score bin, mean score vs fraction positive.

        A score is calibrated within groups when, in every group, the people given
        score ``s`` turn out positive with frequency ``s``. One pass over the data
        builds an additive histogram (rows, positives and score sum per group and
        bin), so the table streams and merges across partitions.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        n_bins
            Number of uniform bins over [0, 1] (ignored when `bins` is given).
        bins
            Explicit bin edges, strictly increasing from 0 to 1.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights: ``n`` is a weight sum and the means
            are weighted.
        pos_label
            Label value treated as positive.

        Returns
        -------
        DataFrame or LazyFrame
            The keys, ``bin`` (0-based), ``bin_low``, ``bin_high``, ``n``,
            ``mean_prob``, ``fraction_positive`` and ``calibration_gap`` =
            ``|fraction_positive - mean_prob|`` (the well-calibration gap), for the
            non-empty bins only.

        Notes
        -----
        Bins are closed on the right, ``(low, high]``, the first also holding 0:
        the binning of :func:`sklearn.calibration.calibration_curve`, so a score
        on an edge falls in the lower bin.

        Examples
        --------
        >>> DATA
        >>> df.fair.calibration(
        ...     y_true="y_true", y_prob="score", sensitive_features="group", n_bins=2
        ... )
        shape: (4, 8)
        ┌───────┬─────┬─────────┬──────────┬─────┬───────────┬───────────────────┬─────────────────┐
        │ group ┆ bin ┆ bin_low ┆ bin_high ┆ n   ┆ mean_prob ┆ fraction_positive ┆ calibration_gap │
        │ ---   ┆ --- ┆ ---     ┆ ---      ┆ --- ┆ ---       ┆ ---               ┆ ---             │
        │ str   ┆ i64 ┆ f64     ┆ f64      ┆ i64 ┆ f64       ┆ f64               ┆ f64             │
        ╞═══════╪═════╪═════════╪══════════╪═════╪═══════════╪═══════════════════╪═════════════════╡
        │ a     ┆ 0   ┆ 0.0     ┆ 0.5      ┆ 2   ┆ 0.3       ┆ 0.0               ┆ 0.3             │
        │ a     ┆ 1   ┆ 0.5     ┆ 1.0      ┆ 2   ┆ 0.75      ┆ 1.0               ┆ 0.25            │
        │ b     ┆ 0   ┆ 0.0     ┆ 0.5      ┆ 3   ┆ 0.3       ┆ 0.333333          ┆ 0.033333        │
        │ b     ┆ 1   ┆ 0.5     ┆ 1.0      ┆ 1   ┆ 0.7       ┆ 1.0               ┆ 0.3             │
        └───────┴─────┴─────────┴──────────┴─────┴───────────┴───────────────────┴─────────────────┘
        """
        edges = bin_edges(n_bins, bins)
        keys = [*as_names(by), *as_names(sensitive_features)]
        hist = calibration_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, edges=edges,
        )  # fmt: skip
        return self._derive(hist, keys, lambda h: calibration_table(h, keys=keys, edges=edges))

    @_example
    def expected_calibration_error(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        n_bins: int = 10,
        bins: Sequence[float] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> TableT:
        r"""
        Expected calibration error per group.

        :math:`ECE_a = \sum_b \frac{n_{a,b}}{n_a} |\bar y_{a,b} - \bar s_{a,b}|`:
        the calibration gaps of :meth:`calibration`, weighted by bin size.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        n_bins
            Number of uniform bins over [0, 1].
        bins
            Explicit bin edges, strictly increasing from 0 to 1.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        DataFrame or LazyFrame
            The keys and ``expected_calibration_error``, one row per group.

        Examples
        --------
        >>> DATA
        >>> df.fair.expected_calibration_error(
        ...     y_true="y_true", y_prob="score", sensitive_features="group", n_bins=2
        ... )
        shape: (2, 2)
        ┌───────┬────────────────────────────┐
        │ group ┆ expected_calibration_error │
        │ ---   ┆ ---                        │
        │ str   ┆ f64                        │
        ╞═══════╪════════════════════════════╡
        │ a     ┆ 0.275                      │
        │ b     ┆ 0.1                        │
        └───────┴────────────────────────────┘
        """
        edges = bin_edges(n_bins, bins)
        keys = [*as_names(by), *as_names(sensitive_features)]
        hist = calibration_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, edges=edges,
        )  # fmt: skip
        return self._derive(
            hist, keys, lambda h: ece_table(calibration_table(h, keys=keys, edges=edges), keys=keys)
        )

    @_example
    def calibration_difference(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        n_bins: int = 10,
        bins: Sequence[float] | None = None,
        reference_group: ReferenceGroup | None = None,
        min_bin_size: float = 1,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Largest gap in calibration between a group and the reference group.

        Calibration within groups (Chouldechova, 2017; Garg et al., 2020) asks that
        a score means the same in every group: :math:`P(Y=1 \mid S \in b, A=a)`
        equal across groups for each score bin ``b``. This is the largest
        ``|fraction_positive_g,b - fraction_positive_ref,b|`` over the other groups
        and the bins where both the group and the reference hold at least
        `min_bin_size` rows (0 is perfect; null when no bin qualifies).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        n_bins
            Number of uniform bins over [0, 1].
        bins
            Explicit bin edges, strictly increasing from 0 to 1.
        reference_group
            The group compared against (a value, tuple or dict), or ``"largest"``
            (default).
        min_bin_size
            Bins with fewer rows (total weight) in the group or in the reference are
            left out: a fraction over three people is noise, not a finding.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.calibration_difference(
        ...     y_true="y_true", y_prob="score", sensitive_features="group",
        ...     n_bins=2, reference_group="a",
        ... ), 4)
        0.3333
        """
        edges = bin_edges(n_bins, bins)
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        size = check_min_size(min_bin_size, "min_bin_size")
        hist = calibration_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, edges=edges,
        )  # fmt: skip
        keys = [*by_, *sens]

        def build(h: pl.LazyFrame) -> pl.LazyFrame:
            h, reference = resolve_reference(h, reference_group, sens, by_, pair=True)
            h = warn_one_group_rows(h, sens, by_)
            return calibration_difference_table(
                calibration_table(h, keys=keys, edges=edges), by=by_, sensitive=sens,
                reference=reference, min_bin_size=size or 0.0, name="calibration_difference",
            )  # fmt: skip

        return self._derive_scalar(hist, keys, build, by_, per_score=True)

    # ---- ROC --------------------------------------------------------------------

    @_example
    def roc_curve(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> TableT:
        """
        Exact ROC curve of each group.

        One point per distinct score (descending), after a first point at
        threshold ``+inf`` with ``fpr = tpr = 0``: the points of
        :func:`sklearn.metrics.roc_curve` with ``drop_intermediate=False``.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        DataFrame or LazyFrame
            The keys, ``threshold``, ``fpr`` and ``tpr`` (null for a group without
            negatives, respectively positives).

        Notes
        -----
        Exact ROC needs every distinct score: one pass builds a table of positives
        and negatives per group and distinct score (as many rows as distinct
        scores), then a sort and cumulative sums on that table. For a fixed grid
        of thresholds at histogram cost, use :meth:`threshold_sweep`.

        Examples
        --------
        >>> DATA
        >>> df.fair.roc_curve(
        ...     y_true="y_true", y_prob="score", sensitive_features="group"
        ... ).filter(pl.col("group") == "a")
        shape: (5, 4)
        ┌───────┬───────────┬─────┬─────┐
        │ group ┆ threshold ┆ fpr ┆ tpr │
        │ ---   ┆ ---       ┆ --- ┆ --- │
        │ str   ┆ f64       ┆ f64 ┆ f64 │
        ╞═══════╪═══════════╪═════╪═════╡
        │ a     ┆ inf       ┆ 0.0 ┆ 0.0 │
        │ a     ┆ 0.9       ┆ 0.0 ┆ 0.5 │
        │ a     ┆ 0.6       ┆ 0.0 ┆ 1.0 │
        │ a     ┆ 0.4       ┆ 0.5 ┆ 1.0 │
        │ a     ┆ 0.2       ┆ 1.0 ┆ 1.0 │
        └───────┴───────────┴─────┴─────┘
        """
        keys = [*as_names(by), *as_names(sensitive_features)]
        roc = roc_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip
        return self._derive(roc, keys, lambda r: roc_curve_table(r, keys=keys))

    @_example
    def roc_auc(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> TableT:
        """
        Exact area under the ROC curve of each group.

        Equal to :func:`sklearn.metrics.roc_auc_score` on each group: the
        probability that a random positive scores above a random negative, ties
        counting one half. Computed from the counts of positives and negatives per
        distinct score (see :meth:`roc_curve` for the cost).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        DataFrame or LazyFrame
            The keys and ``roc_auc`` (null for a group with one class only).

        Examples
        --------
        >>> DATA
        >>> df.fair.roc_auc(y_true="y_true", y_prob="score", sensitive_features="group")
        shape: (2, 2)
        ┌───────┬─────────┐
        │ group ┆ roc_auc │
        │ ---   ┆ ---     │
        │ str   ┆ f64     │
        ╞═══════╪═════════╡
        │ a     ┆ 1.0     │
        │ b     ┆ 0.75    │
        └───────┴─────────┘
        """
        keys = [*as_names(by), *as_names(sensitive_features)]
        roc = roc_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip
        outcome = "their roc_auc is null"
        return self._derive(
            roc,
            keys,
            lambda r: roc_auc_table(warn_one_class(r, keys=keys, outcome=outcome), keys=keys),
        )

    @_example
    def abroca(
        self,
        *,
        y_true: IntoColumn,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Absolute between-ROC area: the area between two groups' ROC curves.

        ABROCA (Gardner et al., 2019) is :math:`\int_0^1 |TPR_a(f) - TPR_{ref}(f)|\,df`,
        integrated exactly between the piecewise-linear curves (a crossing inside
        a segment is split at the crossing). With more than two groups, the largest
        area between a group and the reference. Unlike the AUC difference (which
        Holistic AI reports under this name), curves that cross are not allowed to
        cancel out.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            The group compared against, or ``"largest"`` (default). With two groups
            the area is the same either way.
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion; groups with one class only (no ROC curve) are
            left out.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.abroca(y_true="y_true", y_prob="score", sensitive_features="group"), 4)
        0.25
        """
        by_: list[str] = as_names(by)
        sens: list[str] = as_names(sensitive_features)
        roc = roc_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip
        keys = [*by_, *sens]

        def build(r: pl.LazyFrame) -> pl.LazyFrame:
            r, reference = resolve_reference(r, reference_group, sens, by_, pair=True)
            r = warn_one_group_rows(r, sens, by_)
            r = warn_one_class(r, keys=keys, outcome="they are left out of abroca")
            return abroca_table(r, by=by_, sensitive=sens, reference=reference, name="abroca")

        return self._derive_scalar(roc, keys, build, by_, per_score=True)

    # ---- threshold sweeps ---------------------------------------------------------

    @_example
    def threshold_sweep(
        self,
        *,
        y_prob: IntoColumn,
        sensitive_features: IntoColumns,
        y_true: IntoColumn | None = None,
        thresholds: Sequence[float] | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Counts and every rate at each threshold of a grid, in one pass.

        Predictions are ``y_prob >= threshold``. One pass builds a histogram of
        the scores per group (and true label) between consecutive thresholds;
        cumulative sums over it give the confusion counts at every threshold.

        Parameters
        ----------
        y_prob
            Column (or expression) of scores in [0, 1].
        sensitive_features
            Column name(s) defining the groups.
        y_true
            Column (or expression) of true labels. Without it, only selection rates.
        thresholds
            Strictly increasing thresholds (default: 0, 0.01, ..., 1).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            The keys, ``threshold``, the counts (``n, tp, fp, fn, tn``, or
            ``n, pred_pos, pred_neg`` without `y_true`) and the rate columns of
            ``by_group``, sorted by keys then threshold.

        Examples
        --------
        >>> DATA
        >>> df.fair.threshold_sweep(
        ...     y_true="y_true", y_prob="score", sensitive_features="group",
        ...     thresholds=[0.3, 0.5],
        ... ).select("group", "threshold", "selection_rate", "true_positive_rate")
        shape: (4, 4)
        ┌───────┬───────────┬────────────────┬────────────────────┐
        │ group ┆ threshold ┆ selection_rate ┆ true_positive_rate │
        │ ---   ┆ ---       ┆ ---            ┆ ---                │
        │ str   ┆ f64       ┆ f64            ┆ f64                │
        ╞═══════╪═══════════╪════════════════╪════════════════════╡
        │ a     ┆ 0.3       ┆ 0.75           ┆ 1.0                │
        │ a     ┆ 0.5       ┆ 0.5            ┆ 1.0                │
        │ b     ┆ 0.3       ┆ 0.75           ┆ 1.0                │
        │ b     ┆ 0.5       ┆ 0.5            ┆ 0.5                │
        └───────┴───────────┴────────────────┴────────────────────┘
        """
        zd = check_zd(zero_division)
        grid = check_thresholds(thresholds)
        by_: list[str] = as_names(by)
        hist = threshold_stats(
            self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, pos_label=pos_label, thresholds=grid,
        )  # fmt: skip
        sens: list[str] = as_names(sensitive_features)

        def build(h: pl.LazyFrame) -> pl.LazyFrame:
            return sweep_table(h, by=by_, sensitive=sens, thresholds=grid, zero_division=zd)

        return self._derive(hist, [*by_, *sens], build)
