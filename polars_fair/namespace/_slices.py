"""The ``slices`` method of the ``fair`` namespace: slice discovery in one pass.

The reduction (:mod:`polars_fair.reduce.slices`: the statistics table at the
finest crossing of the candidates, or one table per attribute subset) is followed
by the derivation of :mod:`polars_fair.metrics._slices`, which sums its rows into
every slice and tests each against its complement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_fair._names import key_error
from polars_fair._validate import ensure_lazy
from polars_fair.metrics._slices import (
    attribute_subsets,
    check_direction,
    check_slice_parameters,
    slice_table,
)
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT
from polars_fair.reduce.slices import slice_reduction

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = ["SliceMethods"]


class SliceMethods(NamespaceBase[TableT, ScalarT]):
    """Slice discovery (mixed into :class:`~polars_fair.FairNamespace`)."""

    def slices(
        self,
        *,
        y_true: IntoColumn | None = None,
        y_pred: IntoColumn | None = None,
        candidates: Sequence[str],
        metric: str = "false_positive_rate",
        max_depth: int = 2,
        min_size: float = 30,
        alpha: float = 0.05,
        top: int | None = None,
        sample_weight: IntoColumn | None = None,
        by: IntoColumns | None = None,
        correction: Literal["bh", "holm"] = "bh",
        pos_label: PosLabel = 1,
        n_bins: int = 4,
        strategy: Literal["auto", "finest", "subsets"] = "auto",
        direction: Literal["both", "higher", "lower"] = "both",
    ) -> TableT:
        r"""
        The worst-treated intersections of the candidate attributes, in one pass.

        Every *slice* (one value for each of up to `max_depth` candidate attributes,
        e.g. ``sex=Female & age_cat=Less than 25``) is compared with its complement
        (the rest of the data, per batch key) on `metric`: difference, ratio, an
        interval for the difference and a p-value. The p-values of all slices tested
        per batch key are corrected for multiplicity (Benjamini-Hochberg q-values by
        default), and the slices are ranked: significant first, then by the absolute
        difference (or the signed one, with `direction`).

        .. versionadded:: 0.1.0

        Parameters
        ----------
        y_true
            Column (or expression) of true labels (true values for the means).
        y_pred
            Column (or expression) of predicted labels (predictions for the means).
        candidates
            Attribute columns whose values define slices. Numeric columns are cut into
            `n_bins` quantile bins (labelled ``age=[25, 34)``; a value that several
            quantiles share is a bin of its own, ``juv_fel_count={0}``); cast a numeric
            code to ``pl.String`` or ``pl.Enum`` to keep its values instead. A slice
            with the same rows as a slice of fewer attributes is left out.
        metric
            A proportion rate (``"false_positive_rate"``, ``"selection_rate"``,
            ``"true_positive_rate"``, ...) or a mean of the regression sums
            (``"mean_prediction"``, ``"mean_true"``, ``"mae"``).
        max_depth
            Largest number of attributes in a slice (lowered to the number of candidates).
        min_size
            Slices, or complements, with fewer rows (with `sample_weight`, a smaller Kish
            effective size) are not tested and are counted in ``n_untested``; so is a
            rate where a side expects fewer than ``min(5, min_size)`` events or
            non-events at the pooled rate (the z test needs a handful).
        alpha
            False discovery rate (``"bh"``) or family-wise error rate (``"holm"``) of the
            slices flagged ``significant``; intervals have level ``1 - alpha``.
        top
            Keep only the `top` best-ranked slices per batch key (None: every tested slice).
        sample_weight
            Column of non-negative sampling weights. If None, each row counts once. The
            values and ``n`` are weighted; the tests, intervals and `min_size` use each
            side's Kish effective size ``(sum w)**2 / sum w**2``, so rescaling all
            weights changes nothing (repeat rows to test integer weights as counts).
        by
            Batch key column(s): slices are found, tested and corrected per key.
        correction
            ``"bh"`` (Benjamini-Hochberg q-values) or ``"holm"`` (Holm adjusted p-values).
        pos_label
            Label value treated as positive.
        n_bins
            Number of quantile bins of a numeric candidate.
        strategy
            ``"finest"`` (one reduction at the crossing of all candidates), ``"subsets"``
            (one reduction per subset of `max_depth` candidates, one read of a cached
            source) or ``"auto"`` (from the schema; see :mod:`polars_fair.reduce.slices`).
            The result's ``strategy`` column says which ran.
        direction
            Ranking among significant (then other) slices: ``"both"`` by the absolute
            difference, ``"higher"`` the largest positive difference first (where higher
            is worse: error rates, ``mae``), ``"lower"`` the most negative first. Tests
            are two-sided whatever the direction.

        Returns
        -------
        DataFrame or LazyFrame
            One row per tested slice, sorted by the batch keys then ``rank``: ``rank,
            slice, depth, metric, n, value, rest_n, rest_value, difference, ratio,
            ci_low, ci_high, p_value, q_value, significant, attributes,
            n_effective, rest_n_effective`` (the sizes the tests and `min_size` read:
            Kish's with weights, else ``n`` and ``rest_n``), the candidate columns (the slice's values; null for attributes not in it), ``n_tested``,
            ``n_untested`` and ``strategy``.

        See Also
        --------
        polars_fair.metrics.slices_from_stats : The same from a statistics table.

        Notes
        -----
        Rates are tested with the pooled two-proportion z test and get Newcombe's
        interval for the difference; means get Welch's large-sample interval and test.
        A q-value is the smallest false discovery rate at which the slice would be
        called significant. See the slices page of the documentation.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "sex": ["F", "M"] * 202,
        ...         "age": ["young"] * 200 + ["old"] * 204,
        ...         "y_true": [0] * 400 + [1] * 4,
        ...         "y_pred": [1, 0, 0, 0] * 50 + [0] * 200 + [1] * 4,
        ...     }
        ... )
        >>> df.fair.slices(
        ...     y_true="y_true", y_pred="y_pred", candidates=["sex", "age"], top=2
        ... ).select("rank", "slice", "depth", "value", "rest_value", "difference")
        shape: (2, 6)
        ┌──────┬───────────────────┬───────┬───────┬────────────┬────────────┐
        │ rank ┆ slice             ┆ depth ┆ value ┆ rest_value ┆ difference │
        │ ---  ┆ ---               ┆ ---   ┆ ---   ┆ ---        ┆ ---        │
        │ i64  ┆ str               ┆ i64   ┆ f64   ┆ f64        ┆ f64        │
        ╞══════╪═══════════════════╪═══════╪═══════╪════════════╪════════════╡
        │ 1    ┆ sex=F & age=young ┆ 2     ┆ 0.5   ┆ 0.0        ┆ 0.5        │
        │ 2    ┆ age=old           ┆ 1     ┆ 0.0   ┆ 0.25       ┆ -0.25      │
        └──────┴───────────────────┴───────┴───────┴────────────┴────────────┘
        """
        if isinstance(candidates, pl.Expr):  # named with the columns it selects
            raise key_error(candidates, "candidates", ensure_lazy(self._frame).collect_schema())
        names, metric_, depth, size, alpha_, top_, corr = check_slice_parameters(
            candidates=candidates, metric=metric, max_depth=max_depth, min_size=min_size,
            alpha=alpha, top=top, correction=correction,
        )  # fmt: skip
        direction_ = check_direction(direction)
        plan = slice_reduction(
            self._frame, y_true=y_true, y_pred=y_pred, candidates=names, metric=metric_,
            max_depth=depth, by=by, sample_weight=sample_weight, pos_label=pos_label,
            n_bins=n_bins, strategy=strategy,
        )  # fmt: skip
        by_ = plan.keys[: len(plan.keys) - len(names)]
        subsets = attribute_subsets(names, depth)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            table = slice_table(
                plan.parts(stats, subsets), candidates=names, metric=metric_, by=by_,
                min_size=size, alpha=alpha_, top=top_, correction=corr, direction=direction_,
            )  # fmt: skip
            return table.with_columns(pl.lit(plan.strategy).alias("strategy"))

        # a plan like every method's: the runner checks the derivation before any read
        return self._derive(plan.reduced, plan.keys, build, (), None, plan.warn_rows)
