"""Audit methods of the ``fair`` namespace.

Two-group statistics, the summary with verdicts, the counts bootstrap and the
trade-off table (the inequality indices are in :mod:`polars_fair.namespace._inequality`).

Each reads the data once (one statistics table) and derives everything from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair._validate import (
    as_python,
    check_at_most,
    check_confidence,
    check_difference_band,
    check_flag,
    check_method,
    check_min_size,
    check_ratio_band,
    check_verdict_rule,
)
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics import require_nonempty, resolve_reference, warn_one_group
from polars_fair.metrics._bootstrap import REPLICATE, bootstrap_summary, resample_stats
from polars_fair.metrics._intervals import z_value
from polars_fair.metrics._rates import SCORE_RATES
from polars_fair.metrics._registry import DEFAULT_SUMMARY, needs_roc, needs_score
from polars_fair.metrics._statistics import statistic_table
from polars_fair.metrics._tradeoffs import tradeoff_table
from polars_fair.metrics._verdicts import Bands, criteria_long, summary_table
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, with_example
from polars_fair.namespace._inequality import population_audit
from polars_fair.namespace._scores import roc_stats
from polars_fair.namespace._summary_criteria import (
    auc_summary_build,
    check_criteria,
    one_read,
)
from polars_fair.plans._audit import Audit, check_zd

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel, ReferenceGroup

__all__ = ["AuditMethods"]

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


class AuditMethods(NamespaceBase[TableT, ScalarT]):
    """Indices, statistics, summary, bootstrap and trade-offs."""

    # ---- helpers ------------------------------------------------------------------

    def _audit(self, sensitive_features: IntoColumns | None, **kwargs: Any) -> Audit:
        return population_audit(self._frame, sensitive_features, **kwargs)

    def _checked(
        self, stats: pl.LazyFrame, audit: Audit, reference_group: Any
    ) -> tuple[pl.LazyFrame, tuple[Any, ...] | str | None]:
        """The checked statistics table and the reference (None when not given).

        Raises at collect time if empty or the reference is absent or shadowed, and
        warns (eager path) when a batch key has a single group.
        """
        stats, reference = resolve_reference(
            require_nonempty(stats), reference_group, audit.sensitive, audit.by, pair=True
        )
        stats = warn_one_group(stats, audit.sensitive, audit.by)
        return stats, reference if reference_group is not None else None

    def _statistic(
        self, name: str, *, reference_group: ReferenceGroup | None, **kwargs: Any
    ) -> ScalarT:
        audit = self._audit(**kwargs)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = self._checked(stats, audit, reference_group)
            return statistic_table(
                checked, name=name, by=audit.by,
                sensitive=audit.sensitive, reference=reference,
            )  # fmt: skip

        return self._derive_scalar(audit.stats(), audit.keys, build, audit.by)

    # ---- two-group statistics -----------------------------------------------------

    @_example
    def cohen_d(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        Cohen's d of the selection rates: a standardised difference.

        :math:`d = (SR_g - SR_{ref}) / s_p`, with the pooled standard deviation
        :math:`s_p = \sqrt{((n_g-1)s_g^2 + (n_{ref}-1)s_{ref}^2)/(n_g+n_{ref}-2)}`
        and :math:`s^2 = SR(1-SR)`. Holistic AI's documentation prints the pooled
        variance without the square root: a typo (d divides by a standard
        deviation). With more than two groups, the signed d of the group farthest
        from the reference. |d| <= 0.2 is a "small" effect.

        Parameters
        ----------
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            The group compared against, or ``"largest"`` (default).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (weight sums stand for n).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.cohen_d(y_pred="y_pred", sensitive_features="group", reference_group="a"), 4)
        -0.4082
        """
        return self._statistic(
            "cohen_d", reference_group=reference_group, y_true=None, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    @_example
    def two_sd_rule(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        The 2-SD rule: the two-proportion z statistic of the selection rates.

        :math:`z = (SR_g - SR_{ref}) / \sqrt{SR_{tot}(1-SR_{tot}) / (N P_g (1-P_g))}`
        over the two groups compared (:math:`N = n_g + n_{ref}`,
        :math:`P_g = n_g/N`, :math:`SR_{tot}` their pooled selection rate). A
        difference of more than two standard deviations (|z| > 2) flags adverse
        impact. The value is z; ``summary`` adds the two-sided p-value.

        Parameters
        ----------
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            The group compared against, or ``"largest"`` (default).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights (weight sums stand for n).
        pos_label
            Label value treated as positive.

        Returns
        -------
        float or DataFrame or LazyFrame
            As for every criterion.

        Examples
        --------
        >>> DATA
        >>> round(df.fair.two_sd_rule(y_pred="y_pred", sensitive_features="group", reference_group="a"), 4)
        -0.6325
        """
        return self._statistic(
            "two_sd_rule", reference_group=reference_group, y_true=None, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    @_example
    def four_fifths_rule(
        self,
        *,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> ScalarT:
        r"""
        The four-fifths rule: the worst selection-rate ratio, fair when >= 0.8.

        Without `reference_group`, min SR / max SR (every group against the most
        selected one, the EEOC guideline); with it, the smallest
        :math:`\min(DI, 1/DI)` over the other groups, :math:`DI = SR_g/SR_{ref}`.

        Parameters
        ----------
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            The group compared against (optional).
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
        >>> round(df.fair.four_fifths_rule(y_pred="y_pred", sensitive_features="group"), 4)
        0.6667
        """
        return self._statistic(
            "four_fifths_rule", reference_group=reference_group, y_true=None, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, sample_weight=sample_weight,
            pos_label=pos_label,
        )  # fmt: skip

    # ---- summary with verdicts ----------------------------------------------------

    def summary(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_prob: IntoColumn | None = None,
        criteria: Sequence[str] | None = None,
        method: str | None = None,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        confidence_level: float = 0.95,
        difference_band: float = 0.1,
        ratio_band: tuple[float, float] = (0.8, 1.25),
        min_group_size: float = 30,
        zero_division: float | None = None,
        verdict_rule: str = "interval",
        frequency_weights: bool = False,
    ) -> TableT:
        """
        One row per criterion: value, ideal, fair band, verdict, interval, p-value.

        Every criterion is computed from one statistics table (one pass over the
        data). Fair bands: differences ``|value| <= difference_band``, ratios
        inside `ratio_band`; Cohen's d ``|d| <= 0.2``; the 2-SD rule ``|z| <= 2``;
        the four-fifths rule inside ``[0.8, 1.25]``. The verdict is ``"fair"`` when
        the whole interval lies inside the band, ``"unfair"`` when it lies wholly
        outside, ``"inconclusive"`` otherwise, and ``"undefined"`` without a value
        or with fewer than two groups compared. Groups whose effective size is
        below `min_group_size` are left out and listed in ``excluded``; ``group``
        and ``compared_with`` name the pair that gives each value (see
        ``docs/report.md``).

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        y_prob
            Column of scores in [0, 1]: adds the balance criteria to the default list,
            and allows the AUC criteria (``roc_auc_difference``, ``roc_auc_ratio``,
            by name: from the ROC table, with DeLong's intervals; named with others,
            both tables come from one read of the data, as in a report).
        criteria
            Criterion names (the namespace's method names, e.g.
            ``"equal_opportunity_difference"``); default: a standard set.
        method
            As for every criterion (default: ``"between_groups"`` without
            `reference_group`, ``"to_reference"`` with it).
        reference_group
            The reference group (a value, tuple or dict) or ``"largest"``.
        by
            Batch key column(s): one block of rows per key.
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.
        confidence_level
            Level of the intervals: Newcombe (differences) and Katz (ratios) for
            criteria comparing one proportion between two groups (the pair the
            criterion reports); null for the others and for ``"to_overall"``.
        difference_band
            Half-width of the fair band of differences.
        ratio_band
            ``(low, high)`` fair band of ratios.
        min_group_size
            Groups whose effective size is below this are left out of the
            criteria (listed in ``excluded``); 0 keeps every group.
        zero_division
            None keeps undefined rates null; a float replaces them.
        verdict_rule
            ``"interval"`` (judge the interval) or ``"point"`` (the point value).
        frequency_weights
            False (default): weights are sampling weights, sizes are Kish
            effective sizes ``(sum w)**2 / sum w**2``; True: weights are row counts.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, criterion, value, ideal, fair_low, fair_high, verdict, ci_low,
            ci_high, interval_method, p_value, group, group_n, compared_with,
            compared_n, n_groups, excluded, note, min_group_n``; ``verdict`` is an
            Enum of ``fair, unfair, inconclusive, undefined``.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "group": ["a"] * 50 + ["b"] * 50,
        ...         "y_true": [1, 0] * 50,
        ...         "y_pred": [1, 1, 0, 0, 1] * 10 + [1, 0, 0, 0, 0] * 10,
        ...     }
        ... )
        >>> df.fair.summary(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group",
        ...     reference_group="a", criteria=["demographic_parity_difference", "two_sd_rule"],
        ... ).select("criterion", "value", "verdict", "ci_low", "ci_high", "p_value")
        shape: (2, 6)
        ┌───────────────────────────────┬───────────┬─────────┬───────────┬───────────┬──────────┐
        │ criterion                     ┆ value     ┆ verdict ┆ ci_low    ┆ ci_high   ┆ p_value  │
        │ ---                           ┆ ---       ┆ ---     ┆ ---       ┆ ---       ┆ ---      │
        │ str                           ┆ f64       ┆ enum    ┆ f64       ┆ f64       ┆ f64      │
        ╞═══════════════════════════════╪═══════════╪═════════╪═══════════╪═══════════╪══════════╡
        │ demographic_parity_difference ┆ -0.4      ┆ unfair  ┆ -0.551731 ┆ -0.210021 ┆ null     │
        │ two_sd_rule                   ┆ -4.082483 ┆ unfair  ┆ -6.042447 ┆ -2.122519 ┆ 0.000045 │
        └───────────────────────────────┴───────────┴─────────┴───────────┴───────────┴──────────┘
        """
        zd = check_zd(zero_division)
        level = check_confidence(confidence_level)
        small = check_min_size(min_group_size)
        check_flag(frequency_weights, "frequency_weights")
        rule = check_verdict_rule(verdict_rule)
        bands = _bands(difference_band, ratio_band)
        method_ = check_method(method, reference_group)
        default = list(DEFAULT_SUMMARY)
        if y_prob is not None:
            default += [f"{r}_difference" for r in SCORE_RATES]
        names = check_criteria(criteria, default, scored=y_prob is not None)
        auc = [n for n in names if needs_roc(n)]
        if auc and y_prob is not None:  # the ROC table (a report shares it with `roc_auc`)
            keys = [*as_names(by), *as_names(sensitive_features)]
            roc = roc_stats(
                self._frame, y_true=y_true, y_prob=y_prob, sensitive_features=sensitive_features,
                by=by, sample_weight=sample_weight, pos_label=pos_label,
            )  # fmt: skip
            auc_build = auc_summary_build(
                auc, sensitive_features=sensitive_features, by=by, method=method_,
                reference_group=reference_group, z=z_value(level or 0.95), bands=bands,
                min_group_size=small or 0.0, verdict_rule=rule,
                frequency_weights=bool(frequency_weights), zero_division=zd,
            )  # fmt: skip
            if len(auc) == len(names):
                return self._derive(roc, keys, auc_build)
            # named with others: the statistics and the ROC table from one read
            from polars_fair.namespace import PlanningNamespace  # noqa: PLC0415 (a cycle)

            kw: dict[str, Any] = dict(
                y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                y_prob=y_prob, method=method, reference_group=reference_group, by=by,
                sample_weight=sample_weight, pos_label=pos_label,
                confidence_level=confidence_level, difference_band=difference_band,
                ratio_band=ratio_band, min_group_size=min_group_size,
                zero_division=zero_division, verdict_rule=verdict_rule,
                frequency_weights=frequency_weights,
            )  # fmt: skip
            planning = PlanningNamespace(self._frame.lazy().cache())
            others = [n for n in names if n not in auc]
            plans: Any = (  # a PlanningNamespace's methods return their plans
                planning.summary(**kw, criteria=others),
                planning.summary(**kw, criteria=auc),
            )
            merged: TableT = one_read(self._frame, plans, criteria=names, by=as_names(by))
            return merged
        audit = self._audit(
            sensitive_features, y_true=y_true, y_pred=y_pred, by=by,
            sample_weight=sample_weight, pos_label=pos_label, y_prob=y_prob,
        )  # fmt: skip

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = self._checked(stats, audit, reference_group)
            return summary_table(
                checked, criteria=names, method=method_,
                by=audit.by, sensitive=audit.sensitive, reference=reference, zero_division=zd,
                z=z_value(level or 0.95), bands=bands, min_group_size=small or 0.0,
                verdict_rule=rule, frequency_weights=bool(frequency_weights),
                confidence_level=level or 0.95,
            )  # fmt: skip

        return self._derive(audit.stats(), audit.keys, build)

    # ---- bootstrap ----------------------------------------------------------------

    def _replicates(
        self,
        *,
        criteria: Sequence[str] | None,
        n_resamples: int,
        seed: int,
        scheme: str,
        method: str | None,
        reference_group: ReferenceGroup | None,
        zero_division: float | None,
        sample_weight: IntoColumn | None,
        **kwargs: Any,
    ) -> tuple[Audit, Callable[[pl.LazyFrame], tuple[pl.LazyFrame, pl.LazyFrame]]]:
        """Check the bootstrap parameters; return the audit and its derivation.

        The derivation gives (replicates, point estimates), both long tables
        ``by…, criterion, value``.
        """
        if sample_weight is not None:
            msg = (
                "the counts bootstrap redraws row counts, so it needs unweighted data, got "
                f"`sample_weight`={sample_weight!r}\n\nHint: drop `sample_weight`, or "
                "replicate rows by their integer weights first"
            )
            raise InvalidParameterError(msg)
        n_resamples, seed = as_python(n_resamples), as_python(seed)
        if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
            msg = (
                f"`n_resamples` must be a positive integer, got {n_resamples!r}\n\nHint: e.g. 1000"
            )
            raise InvalidParameterError(msg)
        check_at_most(
            n_resamples,
            "n_resamples",
            100_000,
            "1,000 to 10,000 redraws suffice, e.g. `n_resamples=1000`",
        )
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            msg = f"`seed` must be a non-negative integer, got {seed!r}\n\nHint: e.g. `seed=0`"
            raise InvalidParameterError(msg)
        if scheme not in ("stratified", "joint"):
            msg = (
                f"`scheme` must be 'stratified' or 'joint', got {scheme!r}\n\nHint: 'stratified' "
                "resamples within each group (the default), 'joint' the whole frame"
            )
            raise InvalidParameterError(msg)
        names = check_criteria(criteria, ["demographic_parity_difference",
                                           "equalized_odds_difference"])  # fmt: skip
        scored = [n for n in names if needs_score(n)]
        if scored:
            msg = (
                f"the counts bootstrap cannot redraw scores, so {scored} cannot be bootstrapped"
                "\n\nHint: bootstrap the count-based criteria only"
            )
            raise InvalidParameterError(msg)
        zd = check_zd(zero_division)
        method_ = check_method(method, reference_group)
        audit: Audit = self._audit(sample_weight=None, **kwargs)

        def build(stats: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame]:
            stats, reference = self._checked(stats, audit, reference_group)
            stats = stats.cache()
            reps = resample_stats(
                stats, by=audit.by, n_resamples=n_resamples, seed=seed, scheme=scheme
            ).cache()  # every criterion reads the replicates

            def long(table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
                return criteria_long(
                    table, criteria=names, method=method_, by=by, sensitive=audit.sensitive,
                    reference=reference, zero_division=zd,
                )  # fmt: skip

            return long(reps, [*audit.by, REPLICATE]), long(stats, audit.by)

        return audit, build

    def bootstrap_replicates(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        criteria: Sequence[str] | None = None,
        n_resamples: int = 1000,
        seed: int = 0,
        scheme: str = "stratified",
        method: str | None = None,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        zero_division: float | None = None,
    ) -> TableT:
        """
        The bootstrap replicates of criteria: ``by…, replicate, criterion, value``.

        See :meth:`bootstrap`, which summarises them.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        criteria
            Criterion names (default: demographic parity and equalized odds
            differences).
        n_resamples
            Number of replicates.
        seed
            Seed of NumPy's generator: the same seed gives the same replicates.
        scheme
            ``"stratified"`` (group sizes fixed) or ``"joint"`` (whole-frame
            row bootstrap).
        method
            As for every criterion.
        reference_group
            The reference group, or ``"largest"``.
        by
            Batch key column(s).
        sample_weight
            Not supported (an error): the redraw is of row counts.
        pos_label
            Label value treated as positive.
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            One row per (batch key, replicate, criterion).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 50, "t": [1, 0, 0, 1] * 25, "p": [1, 1, 0, 0] * 25})
        >>> reps = df.fair.bootstrap_replicates(
        ...     y_true="t", y_pred="p", sensitive_features="g", n_resamples=200, seed=1
        ... )
        >>> reps.shape, reps.columns
        ((400, 3), ['replicate', 'criterion', 'value'])
        """
        audit: Audit
        audit, build = self._replicates(
            criteria=criteria, n_resamples=n_resamples, seed=seed, scheme=scheme,
            method=method, reference_group=reference_group, zero_division=zero_division,
            sample_weight=sample_weight, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, pos_label=pos_label,
        )  # fmt: skip
        order: list[str] = [*audit.by, "criterion", REPLICATE]

        def replicates(stats: pl.LazyFrame) -> pl.LazyFrame:
            return build(stats)[0].sort(order, nulls_last=True)

        return self._derive(audit.stats(), audit.keys, replicates)

    def bootstrap(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        criteria: Sequence[str] | None = None,
        n_resamples: int = 1000,
        seed: int = 0,
        scheme: str = "stratified",
        confidence_level: float = 0.95,
        method: str | None = None,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        zero_division: float | None = None,
    ) -> TableT:
        """
        Bootstrap distribution of criteria, from the statistics table alone.

        A row bootstrap only changes how many rows land in each (group, confusion
        cell), so redrawing the cell counts from a multinomial is exactly a row
        bootstrap: ``"stratified"`` redraws each group's (tp, fp, fn, tn) from
        Multinomial(n_g, cells_g / n_g) (a row bootstrap within groups);
        ``"joint"`` redraws all cells at once from Multinomial(N, cells / N) (a
        row bootstrap of the whole frame, like fairlearn's). Thousands of
        replicates cost milliseconds at any data size; the data is read once.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        criteria
            Criterion names (default: demographic parity and equalized odds
            differences). Balance criteria need scores and are refused.
        n_resamples
            Number of replicates.
        seed
            Seed of NumPy's generator (PCG64): same seed, same result.
        scheme
            ``"stratified"`` or ``"joint"``.
        confidence_level
            Level of the percentile interval.
        method
            As for every criterion.
        reference_group
            The reference group, or ``"largest"``.
        by
            Batch key column(s).
        sample_weight
            Not supported (an error): the redraw is of row counts.
        pos_label
            Label value treated as positive.
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, criterion, value`` (the estimate on the data), ``mean``,
            ``std`` (the bootstrap standard error), ``ci_low``, ``ci_high``
            (percentile interval, linear interpolation) over the replicates where
            the criterion is defined, and ``n_defined``.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 50, "t": [1, 0, 0, 1] * 25, "p": [1, 1, 0, 0] * 25})
        >>> out = df.fair.bootstrap(
        ...     y_true="t", y_pred="p", sensitive_features="g",
        ...     criteria=["demographic_parity_difference"], reference_group="a",
        ...     n_resamples=500, seed=0,
        ... )
        >>> out.select("criterion", "value", "n_defined")
        shape: (1, 3)
        ┌───────────────────────────────┬───────┬───────────┐
        │ criterion                     ┆ value ┆ n_defined │
        │ ---                           ┆ ---   ┆ ---       │
        │ str                           ┆ f64   ┆ u32       │
        ╞═══════════════════════════════╪═══════╪═══════════╡
        │ demographic_parity_difference ┆ 0.0   ┆ 500       │
        └───────────────────────────────┴───────┴───────────┘
        >>> bool(out["ci_low"][0] < 0 < out["ci_high"][0])
        True
        """
        level = check_confidence(confidence_level) or 0.95
        audit: Audit
        audit, build = self._replicates(
            criteria=criteria, n_resamples=n_resamples, seed=seed, scheme=scheme,
            method=method, reference_group=reference_group, zero_division=zero_division,
            sample_weight=sample_weight, y_true=y_true, y_pred=y_pred,
            sensitive_features=sensitive_features, by=by, pos_label=pos_label,
        )  # fmt: skip
        return self._derive(
            audit.stats(), audit.keys,
            lambda st: bootstrap_summary(*build(st), by=audit.by, confidence_level=level),
        )  # fmt: skip

    # ---- trade-offs ---------------------------------------------------------------

    @_example
    def tradeoffs(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        reference_group: ReferenceGroup | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
    ) -> TableT:
        r"""
        Which criteria can hold together with these base rates, and at what price.

        From :math:`p(y, \hat y \mid G) = PPV \cdot SR = TPR \cdot BR` (Garg et
        al., 2020, section 3), for each group against the reference group: with
        unequal base rates, statistical parity and predictive parity together need
        ``TPR_g / TPR_ref = BR_ref / BR_g``; equalized odds and predictive parity
        cannot both hold (unless prediction is perfect); statistical parity and
        equalized odds together need ``TPR = FPR``, a classifier no better than
        chance; equal opportunity and predictive parity need
        ``FPR_g / FPR_ref = odds(BR_g) / odds(BR_ref)``; all three cannot hold.
        The last row checks the identity ``PPV * SR = TPR * BR`` on the counts.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        reference_group
            The reference group, or ``"largest"`` (default).
        by
            Batch key column(s).
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.

        Returns
        -------
        DataFrame or LazyFrame
            ``by…, sensitive…, criteria`` (an Enum), ``compatible`` (can they hold
            together for an imperfect predictor with these base rates),
            ``condition``, ``required`` (the value the condition asks for),
            ``actual`` (its value now) and ``gap = actual - required``; one block
            of six rows per group other than the reference.

        Examples
        --------
        >>> DATA
        >>> df.fair.tradeoffs(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", reference_group="a"
        ... ).select("criteria", "compatible", "required", "actual")
        shape: (6, 4)
        ┌─────────────────────────────────┬────────────┬──────────┬──────────┐
        │ criteria                        ┆ compatible ┆ required ┆ actual   │
        │ ---                             ┆ ---        ┆ ---      ┆ ---      │
        │ enum                            ┆ bool       ┆ f64      ┆ f64      │
        ╞═════════════════════════════════╪════════════╪══════════╪══════════╡
        │ statistical_parity+predictive_… ┆ true       ┆ 1.5      ┆ 0.75     │
        │ equalized_odds+predictive_pari… ┆ false      ┆ 0.6      ┆ 0.4      │
        │ statistical_parity+equalized_o… ┆ true       ┆ 0.333333 ┆ 0.5      │
        │ equal_opportunity+predictive_p… ┆ true       ┆ 0.444444 ┆ 0.666667 │
        │ statistical_parity+predictive_… ┆ false      ┆ 0.6      ┆ 0.4      │
        │ identity                        ┆ true       ┆ 0.2      ┆ 0.2      │
        └─────────────────────────────────┴────────────┴──────────┴──────────┘
        """
        audit = self._audit(
            sensitive_features, y_true=y_true, y_pred=y_pred, by=by,
            sample_weight=sample_weight, pos_label=pos_label,
        )  # fmt: skip

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            checked, reference = resolve_reference(
                require_nonempty(stats), reference_group, audit.sensitive, audit.by, pair=True
            )
            checked = warn_one_group(checked, audit.sensitive, audit.by)  # an empty table
            return tradeoff_table(
                checked, by=audit.by, sensitive=audit.sensitive, reference=reference,
            )  # fmt: skip

        return self._derive(audit.stats(), audit.keys, build)


def _bands(difference_band: object, ratio_band: object) -> Bands:
    return Bands(
        difference=check_difference_band(difference_band), ratio=check_ratio_band(ratio_band)
    )
