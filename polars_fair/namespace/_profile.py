r"""Fairness profiles: the statistics of an audit, reduced once, kept, merged.

A :class:`FairnessProfile` holds every reduction a report needs (the statistics
table, the calibration histogram and, with a score, a score histogram for ROC
curves) with the metadata that says what they summarise: the columns and
expressions, ``pos_label``, the score bins, the dtypes of the keys, the row count,
the creation time and a format version. It is made in one read of the data
(:func:`profile`, ``lf.fair.profile``), written to and read from Parquet, and
merged exactly: every reduction is additive, so the profile of a union of pieces
(days, shards, files) is the sum of their profiles. Every table, criterion and
report then derives from the profile alone, without the rows.

**Score bins.** The exact ROC reduction keeps one row per distinct score: exact,
additive, but as large as the data. A profile keeps instead a histogram of the
score in ``score_bins`` equal-width bins (default 1,000): bin ``k`` holds the
scores ``s`` with ``floor(s * score_bins) = k`` (``s = 1`` is its own bin) and is
stored at its lower edge ``k / score_bins``. Because ``rounded(s) >= k/score_bins``
exactly when ``s >= k/score_bins``, the profile's ROC curve is the exact ROC curve
at the thresholds ``k / score_bins``, joined by straight lines, and its AUC differs
from the exact AUC only through the (positive, negative) pairs that share a bin
(counted as ties, one half, instead of 1 or 0):

.. math::

    |\mathrm{AUC}_\text{binned} - \mathrm{AUC}| \le
    \frac{1}{2}\,\frac{\sum_k P_k N_k}{P\,N}

per group, with :math:`P_k, N_k` the positives and negatives in bin :math:`k`.
:meth:`FairnessProfile.auc_error_bound` computes it from the profile. Calibration
is not affected: the profile keeps the calibration table of the report at its
``n_bins`` (exact counts and score sums), and the balance criteria use exact score
sums. ``exact_scores=True`` keeps the exact per-score table instead.

**File layout.** One self-describing Parquet file (see
:mod:`polars_fair.namespace._profile_files`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_fair._utils import as_names
from polars_fair.exceptions import InvalidParameterError, ProfileError
from polars_fair.metrics._scores import auc_error_bound
from polars_fair.metrics._trend import check_criterion, check_time, trend_table
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT, with_example
from polars_fair.namespace._profile_derive import (
    REPORT_OPTIONS,
    profile_criterion,
    profile_report,
    profile_slices,
    profile_table,
)
from polars_fair.namespace._profile_files import (
    FORMAT_VERSION,
    LAYOUT_KEY,
    META_KEY,
    MSG_NO_PROFILE,
    as_items,
    canonical_scores,
    check_baseline,
    check_compatible,
    check_distinct,
    check_items,
    read_files,
    same_profile,
)
from polars_fair.namespace._profile_regression import RegressionProfileMethods, regression_profile
from polars_fair.namespace._report import ReportSpec, report_reductions
from polars_fair.namespace._report_checks import reading_input
from polars_fair.plans._profile_meta import (
    binned_scores,
    check_json,
    decode_column,
    decode_schema,
    encode_column,
    layout_column,
    merged_meta,
    new_meta,
    profile_paths,
    table_name,
    with_batch_keys,
)
from polars_fair.reduce import merge_group_stats
from polars_fair.reduce.fused import ScoreOutOfRange, fused_tables, score_range_error
from polars_fair.reduce.scores import bin_edges

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel
    from polars_fair.report import FairnessReport

__all__ = [
    "DEFAULT_SCORE_BINS", "FORMAT_VERSION", "META_KEY", "FairnessProfile", "ProfileError",
    "ProfileMethods", "REPORT_OPTIONS", "merge_profiles", "profile", "read_profile",
]  # fmt: skip

#: Equal-width score bins of a profile's ROC histogram (see the module docstring).
DEFAULT_SCORE_BINS = 1000
# the example of the methods that take the report's options (``>>> DATA``)
_example = with_example("""
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 0, 1, 0, 1, 1, 1, 0]})
    >>> prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")""")  # fmt: skip
_COLUMNS = ("y_true", "y_pred", "y_prob", "sample_weight")


# ---- the profile -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FairnessProfile(RegressionProfileMethods):
    """
    The reductions of a fairness audit and what they summarise: merge, save, audit.

    Make one with :func:`profile` (or ``df.fair.profile`` / ``lf.fair.profile``),
    read one with :func:`read_profile`. Profiles of disjoint pieces of the data add
    up (``a + b``, :func:`merge_profiles`) to the profile of their union.

    Attributes
    ----------
    tables
        The collected reductions by name: ``stats`` (counts per batch key and group), with
        a score ``calibration`` and ``roc``; ``regression`` (sums) with ``task="regression"``.
    meta
        Format version, creation time, row count, the encoded columns and options
        (``spec``), ``score_bins`` (None with exact scores), key dtypes, the
        schema of the audited columns and the order of the tables.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a", "a", "b", "b", "b", "a"],
    ...         "y_true": [1, 0, 1, 0, 1, 1],
    ...         "y_pred": [1, 0, 0, 0, 1, 1],
    ...     }
    ... )
    >>> kw = dict(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    >>> whole = df.fair.profile(**kw)
    >>> parts = df.head(2).fair.profile(**kw) + df.tail(4).fair.profile(**kw)
    >>> parts.tables["stats"].equals(whole.tables["stats"])
    True
    >>> parts.rows
    6
    >>> round(parts.criterion("demographic_parity_difference"), 4)
    0.3333
    """

    tables: dict[str, pl.DataFrame]
    meta: dict[str, Any] = field(default_factory=dict)

    # ---- what it holds -------------------------------------------------------------

    @property
    def spec(self) -> dict[str, Any]:
        """The columns and options the reductions were made with (decoded)."""
        spec = dict(self.meta["spec"])
        for name in _COLUMNS:
            spec[name] = decode_column(spec[name])
        return spec

    @property
    def schema(self) -> pl.Schema:
        """The schema of the audited columns (what the reductions read)."""
        return decode_schema(self.meta["schema"])

    @property
    def rows(self) -> int:
        """The number of rows summarised (rows excluded for nulls included)."""
        return int(self.meta["rows"])

    @property
    def by(self) -> list[str]:
        """The batch key columns."""
        return list(self.meta["spec"]["by"])

    def __eq__(self, other: object) -> bool:
        """Equal tables and metadata, bit for bit, the provenance aside (see :func:`same_profile`)."""
        if not isinstance(other, FairnessProfile):
            return NotImplemented
        return same_profile((self.tables, self.meta), (other.tables, other.meta))

    __hash__ = None  # type: ignore[assignment]  # mutable tables: no hash

    def __add__(self, other: FairnessProfile) -> FairnessProfile:
        """The profile of the union of two disjoint pieces (see :func:`merge_profiles`)."""
        if not isinstance(other, FairnessProfile):
            return NotImplemented
        return merge_profiles([self, other])

    def __radd__(self, other: object) -> FairnessProfile:
        """``sum(profiles)``: 0 plus a profile is the profile."""
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def __repr__(self) -> str:
        s = self.meta["spec"]
        return (
            f"FairnessProfile(rows={self.rows}, sensitive_features={s['sensitive_features']}, "
            f"by={s['by']}, tables={ {k: t.height for k, t in self.tables.items()} })"
        )

    # ---- derivations ---------------------------------------------------------------

    def report(self, **options: Any) -> FairnessReport:
        """
        The fairness report, derived from the profile alone (reads no rows).

        Parameters
        ----------
        **options
            Report options that act on the derivation (:data:`REPORT_OPTIONS`, see
            ``df.fair.report``). The columns, ``pos_label``, ``by`` and ``n_bins``
            are the profile's. ``slices=[...]`` (with ``max_depth``, ``slice_metric``)
            adds the slices section, derived as :meth:`slices` does.

        Returns
        -------
        FairnessReport
            Equal to ``report(...)`` on the rows the profile came from (with a score
            and binned scores, the ROC tables are those of the binned scores).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 3, "y": [1, 0, 1, 1, 0, 0], "p": [1, 0, 1, 1, 0, 1]})
        >>> prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
        >>> prof.report(min_group_size=1).by_group.select("g", "n", "selection_rate")
        shape: (2, 3)
        ┌─────┬─────┬────────────────┐
        │ g   ┆ n   ┆ selection_rate │
        │ --- ┆ --- ┆ ---            │
        │ str ┆ i64 ┆ f64            │
        ╞═════╪═════╪════════════════╡
        │ a   ┆ 3   ┆ 0.666667       │
        │ b   ┆ 3   ┆ 0.666667       │
        └─────┴─────┴────────────────┘
        """
        return profile_report(self, options)

    @_example
    def by_group(self, **options: Any) -> pl.DataFrame:
        """``df.fair.by_group(**options)`` on the rows (the report's: ``report().by_group``).

        Examples
        --------
        >>> DATA
        >>> prof.by_group().equals(df.fair.by_group(y_true="y", y_pred="p", sensitive_features="g"))
        True
        """
        return profile_table(self, "by_group", options)

    @_example
    def disparities(self, **options: Any) -> pl.DataFrame:
        """``df.fair.disparities(**options)`` on the rows (the report's: ``report().disparities``).

        Examples
        --------
        >>> DATA
        >>> prof.disparities(metrics=["selection_rate"])["difference"].to_list()
        [0.0, 0.25]
        """
        return profile_table(self, "disparities", options)

    @_example
    def summary(self, **options: Any) -> pl.DataFrame:
        """The report's ``summary`` table from the profile (see :meth:`report`).

        Examples
        --------
        >>> DATA
        >>> prof.summary(min_group_size=0).item(0, "value")
        0.25
        """
        return self.report(**options).summary

    def criterion(self, name: str, **options: Any) -> float | None | pl.DataFrame:
        """
        One criterion by name, from the profile alone: what ``df.fair.<name>`` returns.

        Parameters
        ----------
        name
            A criterion of the catalogue, e.g. ``"equalized_odds_difference"``.
        **options
            The options of ``df.fair.<name>`` other than the columns: ``method``,
            ``reference_group``, ``zero_division`` (and ``agg`` where it has one).

        Returns
        -------
        float, None or DataFrame
            The value of ``df.fair.<name>(...)`` on the rows: without batch keys, a
            float; with them, a DataFrame of the keys and a column named after the
            criterion. Every group counts, however small (``profile.summary`` leaves
            small groups out and may define a statistic differently, e.g. the
            four-fifths rule against a reference).

        Notes
        -----
        The namespace method's own derivation runs over the profile's statistics
        table (see :mod:`polars_fair.namespace._profile_derive`). A method reading
        fewer columns than the profile also counts, on the rows, rows whose other
        columns are null: the two agree when the profile excluded no row.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 3, "y": [1, 0, 1, 1, 0, 0], "p": [1, 0, 0, 1, 0, 1]})
        >>> prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
        >>> prof.criterion("demographic_parity_difference")
        0.3333333333333333
        >>> prof.criterion("four_fifths_rule", reference_group="a") == df.fair.four_fifths_rule(
        ...     y_pred="p", sensitive_features="g", reference_group="a")
        True
        """
        return profile_criterion(self, name, options)

    def slices(
        self,
        *,
        candidates: Sequence[str],
        metric: str = "false_positive_rate",
        max_depth: int = 2,
        min_size: float = 30,
        alpha: float = 0.05,
        top: int | None = None,
        correction: Literal["bh", "holm"] = "bh",
        direction: Literal["both", "higher", "lower"] = "both",
        **rows_only: Any,
    ) -> pl.DataFrame:
        """
        The worst-treated slices of the candidates, from the profile alone.

        What ``df.fair.slices(...)`` returns on the rows, per batch key of the profile,
        when the profile was made at a crossing that holds every candidate
        (``sensitive_features`` = the candidates, or more).

        Parameters
        ----------
        candidates, metric, max_depth, min_size, alpha, top, correction, direction
            As in ``df.fair.slices`` (`metric`: a rate; a regression profile's: a mean).
        **rows_only
            Refused: the columns, ``by``, ``pos_label`` are the profile's, and
            ``n_bins``, ``strategy`` need the rows.

        Returns
        -------
        DataFrame
            The table of ``df.fair.slices`` (its ``strategy`` is ``"finest"``).

        Raises
        ------
        ProfileError
            When a candidate is not a sensitive feature of the profile (the message
            names them and the ``sensitive_features`` to profile with), is numeric (the
            rows' quantile bins are not kept), or `metric` is not of the profile's task.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"sex": ["F", "M"] * 202, "age": ["young"] * 200 + ["old"] * 204,
        ...                    "y_true": [0] * 400 + [1] * 4,
        ...                    "y_pred": [1, 0, 0, 0] * 50 + [0] * 200 + [1] * 4})
        >>> kw = dict(y_true="y_true", y_pred="y_pred")
        >>> prof = df.fair.profile(**kw, sensitive_features=["sex", "age"])
        >>> prof.slices(candidates=["sex", "age"], top=1).item(0, "slice")
        'sex=F & age=young'
        >>> prof.slices(candidates=["sex", "age"]).equals(df.fair.slices(**kw, candidates=["sex", "age"]))
        True
        """
        options = {
            "metric": metric, "max_depth": max_depth, "min_size": min_size, "alpha": alpha,
            "top": top, "correction": correction, "direction": direction,
        }  # fmt: skip
        return profile_slices(self, candidates=candidates, options=options, rows_only=rows_only)

    def auc_error_bound(self) -> pl.DataFrame:
        """
        The largest error the score bins can cause in each group's AUC.

        Half the share of (positive, negative) pairs that fall in one bin (see the
        module docstring); 0 with exact scores.

        Returns
        -------
        DataFrame
            The batch keys, the groups and ``auc_error_bound``.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4, "y": [1, 0, 1, 0], "s": [0.9, 0.1, 0.5001, 0.5009]})
        >>> prof = df.fair.profile(y_true="y", y_pred=pl.col("s") >= 0.5, y_prob="s",
        ...                        sensitive_features="g")
        >>> prof.auc_error_bound()["auc_error_bound"].to_list()
        [0.125]
        """
        if "roc" not in self.tables:
            hint = (
                "an AUC is a classifier's: profile labels and scores with `y_prob=` (a "
                "regression profile keeps no scores)"
                if self.task == "regression"
                else "profile with `y_prob=`"
            )
            msg = f"this profile has no score histogram\n\nHint: {hint}"
            raise ProfileError(msg)
        keys = [*self.by, *self.meta["spec"]["sensitive_features"]]
        return auc_error_bound(self.tables["roc"], keys, binned=bool(self.meta["score_bins"]))

    # ---- baselines and time --------------------------------------------------------

    @_example
    def compare(
        self,
        baseline: FairnessProfile,
        *,
        tolerance: float = 0.02,
        familywise: bool = False,
        **options: Any,
    ) -> pl.DataFrame:
        """Each criterion of this profile against `baseline`'s (see ``FairnessReport.compare``).

        Examples
        --------
        >>> DATA
        >>> prof.compare(prof, min_group_size=0).item(0, "change")  # no change
        0.0
        """
        check_baseline(baseline, self.meta, FairnessProfile)
        return self.report(**options).compare(
            baseline.report(**options), tolerance=tolerance, familywise=familywise
        )

    def trend(
        self,
        criterion: str,
        *,
        time: str,
        baseline: Any = None,
        tolerance: float = 0.02,
        familywise: bool = False,
        **options: Any,
    ) -> pl.DataFrame:
        """
        One criterion per time window, with its interval, verdict and change.

        Parameters
        ----------
        criterion
            The criterion to follow, e.g. ``"demographic_parity_difference"``.
        time
            The batch key holding the time window (e.g. a truncated date).
        baseline
            The window the others are compared with (default: the first with a value
            and an interval).
        tolerance
            Changes of the distance to the ideal within this are no change.
        familywise
            Bonferroni intervals over every window compared (see
            :func:`~polars_fair.metrics._trend.trend_table`).
        **options
            Report options (see :meth:`report`).

        Returns
        -------
        DataFrame
            See :func:`polars_fair.metrics._trend.trend_table`.

        Examples
        --------
        >>> import datetime as dt
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [1, 1, 0, 0] * 2,
        ...                    "p": [1, 0, 1, 0, 1, 1, 1, 0]})
        >>> weeks = pl.concat([df.with_columns(w=pl.lit(dt.date(2026, 1, 1))),
        ...                    df.with_columns(w=pl.lit(dt.date(2026, 1, 8)), p=pl.col("y"))])
        >>> prof = weeks.fair.profile(y_true="y", y_pred="p", sensitive_features="g", by="w")
        >>> prof.trend("demographic_parity_difference", time="w", min_group_size=0)[
        ...     "value"].to_list()
        [0.25, 0.0]
        """
        if self.task != "regression":  # a regression profile's report says what it offers
            check_criterion(criterion, options)  # named as given, before the report is derived
        check_time(time, self.by)
        report = self.report(**{**options, "criteria": [criterion]})
        return trend_table(
            report.summary, time=time, by=self.by, baseline=baseline, tolerance=tolerance,
            confidence_level=report.params["confidence_level"], familywise=familywise,
        )  # fmt: skip

    def trend_chart(self, criterion: str, *, time: str, **options: Any) -> Any:
        """
        An Altair chart of :meth:`trend`: value, interval and fair band per window.

        Needs the ``plot`` extra; `criterion`, `time`, `**options` as in :meth:`trend`.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 4, "y": [1, 1, 0, 0] * 2, "p": [1, 1, 0, 0] * 2})
        >>> prof = df.with_columns(w=1).fair.profile(y_true="y", y_pred="p", sensitive_features="g", by="w")
        >>> type(prof.trend_chart("demographic_parity_difference", time="w", min_group_size=0)).__name__
        'LayerChart'
        """
        from polars_fair.report._trend_chart import trend_chart

        trend = self.trend(criterion, time=time, **options)
        return trend_chart(trend, criterion=criterion, time=time, by=self.by)

    # ---- Parquet -------------------------------------------------------------------

    def write_parquet(self, path: str | Path) -> None:
        """
        Write the profile to one self-describing Parquet file.

        Parameters
        ----------
        path
            The file to write (read it back with :func:`read_profile`).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import polars as pl
        >>> import polars_fair as pf
        >>> df = pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "p": [1, 1]})
        >>> prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "day1.parquet"
        >>> prof.write_parquet(path)
        >>> pf.read_profile(path).tables["stats"].equals(prof.tables["stats"])
        True
        """
        layout = layout_column([c for t in self.tables.values() for c in t.columns])
        long = pl.concat(
            [t.select(pl.lit(name).alias(layout), pl.all()) for name, t in self.tables.items()],
            how="diagonal_relaxed",
        )
        long.write_parquet(path, metadata={META_KEY: json.dumps(self.meta), LAYOUT_KEY: layout})


# ---- making, reading and merging profiles -------------------------------------------------


def profile(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    y_prob: IntoColumn | None = None,
    by: IntoColumns | pl.Expr | Sequence[str | pl.Expr] | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    n_bins: int = 10,
    score_bins: int = DEFAULT_SCORE_BINS,
    exact_scores: bool = False,
    task: Literal["classification", "regression"] = "classification",
) -> FairnessProfile:
    """
    Reduce `frame` once to a :class:`FairnessProfile` (also ``df.fair.profile``).

    Reads the source once: with binned scores, all four tables are sums of one
    ``group_by`` (:mod:`polars_fair.reduce.fused`), otherwise collected together.

    Parameters
    ----------
    frame
        The predictions (DataFrame or LazyFrame).
    y_true, y_pred, sensitive_features, y_prob, sample_weight, pos_label
        As in ``df.fair.report``.
    by
        Batch key column(s); an expression (e.g. a time bucket,
        ``pl.col("ts").dt.truncate("1mo")``) becomes a key named after its output.
    n_bins
        Calibration bins (the report's calibration table is kept at this resolution).
    score_bins
        Equal-width bins of the score histogram behind ROC curves and AUC.
    exact_scores
        Keep one row per distinct score instead (exact ROC, a table as large as the
        number of distinct scores).
    task
        ``"regression"``: continuous `y_pred`, `y_true` (regression sums; no score options).

    Returns
    -------
    FairnessProfile

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["a", "b", "a"], "y": [1, 0, 0], "s": [0.8, 0.3, 0.6]})
    >>> prof = pf.profile(df, y_true="y", y_pred=pl.col("s") >= 0.5, y_prob="s",
    ...                   sensitive_features="g")
    >>> sorted(prof.tables), prof.meta["score_bins"], prof.rows
    (['calibration', 'roc', 'stats', 'stats_1'], 1000, 3)
    """
    if task != "classification":  # `task` and the options of a classifier are checked there
        return FairnessProfile(*regression_profile(
            frame, task=task, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            by=by, sample_weight=sample_weight, y_prob=y_prob, pos_label=pos_label, n_bins=n_bins,
            score_bins=score_bins, exact_scores=exact_scores))  # fmt: skip
    binned = binned_scores(y_prob, exact_scores, score_bins, DEFAULT_SCORE_BINS)
    check_json({"spec": {"pos_label": pos_label}})  # it travels in the metadata
    read = {
        "y_true": y_true, "y_pred": y_pred, "y_prob": y_prob, "sample_weight": sample_weight,
        "sensitive_features": as_names(sensitive_features),
    }  # fmt: skip
    lf, items, by_names = with_batch_keys(frame, by, read)
    spec = ReportSpec.of(
        y_true=y_true, y_pred=y_pred, y_prob=y_prob, sensitive_features=sensitive_features,
        by=by_names, sample_weight=sample_weight, pos_label=pos_label, n_bins=n_bins,
    )  # fmt: skip
    plans = report_reductions(lf, spec, check=False)  # a profile has no derivation options
    weighted = sample_weight is not None
    names: list[str] = []
    keys = [*by_names, *spec.sensitive_features]
    for plan in plans:
        names.append(table_name(plan.collect_schema(), set(names), keys))
    counted: list[pl.LazyFrame] = []  # weighted counts are weight sums: the rows, counted
    if binned:  # the four tables (and the rows) from one group_by over the rows
        assert y_prob is not None
        assert names == ["stats", "stats_1", "calibration", "roc"]
        *plans, rows_plan = fused_tables(
            lf, y_true=y_true, y_pred=y_pred, y_prob=y_prob, sensitive_features=sensitive_features,
            by=by_names or None, sample_weight=sample_weight, pos_label=pos_label,
            edges=bin_edges(n_bins), score_bins=score_bins,
        )  # fmt: skip
        counted = [rows_plan] if weighted else []
    elif len(plans) > 1 or weighted:  # several reductions: read one cached copy of the source
        source = lf.cache()
        plans = report_reductions(source, spec, check=False)
        counted = [source.select(pl.len().cast(pl.Int64).alias("rows"))] if weighted else []
    try:
        collected = reading_input(frame, lambda: pl.collect_all([*plans, *counted]))
    except ScoreOutOfRange:  # worded with the smallest and largest score (reads them)
        raise score_range_error(lf, y_prob) from None  # type: ignore[arg-type]
    rows = int(collected.pop().item()) if weighted else None
    given = spec.to_dict()  # name lists as lists, as they come back from JSON
    tables = dict(zip(names, collected, strict=True))
    meta = new_meta(
        lf, tables, version=FORMAT_VERSION, rows=rows,
        columns=[getattr(spec, name) for name in _COLUMNS],
        score_bins=score_bins if binned else None,
        spec={
            **{k: given[k] for k in ("sensitive_features", "by", "pos_label", "n_bins")},
            **{k: encode_column(given[k]) for k in _COLUMNS},
            "score_bins": score_bins if binned else None,
            "by_items": [encode_column(b) for b in items],  # names, or expressions
        },
    )  # fmt: skip
    return FairnessProfile(canonical_scores(tables, meta), meta)


def merge_profiles(profiles: Iterable[FairnessProfile]) -> FairnessProfile:
    """
    The profile of the union of disjoint pieces: the sum of their profiles.

    Counts add exactly (Int64); weighted and score sums add to rounding.

    Parameters
    ----------
    profiles
        Profiles made with the same columns, options and score bins.

    Returns
    -------
    FairnessProfile

    Raises
    ------
    ProfileError
        Naming every difference between the first profile and one that cannot be
        merged with it (columns, ``pos_label``, bins, key dtypes, tables).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["a", "b", "a", "b"], "y": [1, 0, 1, 1], "p": [1, 1, 0, 1]})
    >>> kw = dict(y_true="y", y_pred="p", sensitive_features="g")
    >>> merged = pf.merge_profiles([df[:1].fair.profile(**kw), df[1:].fair.profile(**kw)])
    >>> merged.tables["stats"].equals(df.fair.profile(**kw).tables["stats"])
    True
    >>> other = df.fair.profile(**{**kw, "pos_label": 0})
    >>> merged + other
    Traceback (most recent call last):
    ...
    polars_fair.exceptions.ProfileError: profiles 0 and 1 cannot be merged: they differ in `pos_label`: 1 against 0
    <BLANKLINE>
    Hint: profile every piece with the same `pos_label`, or merge only the profiles made alike
    """
    return merge_sources(as_items(profiles, FairnessProfile))


def merge_sources(items: Sequence[FairnessProfile], sources: Sequence[str] = ()) -> FairnessProfile:
    """:func:`merge_profiles`, naming the profiles by `sources` (their files) in errors."""
    if not items:
        raise InvalidParameterError(MSG_NO_PROFILE)
    check_items(items, FairnessProfile)
    check_distinct(items)
    metas = [p.meta for p in items]
    check_compatible(metas, sources)
    if len(items) == 1:
        return items[0]
    parts = [canonical_scores(p.tables, p.meta) for p in items]
    tables = {
        name: merge_group_stats(*(p[name] for p in parts)).collect()
        for name in items[0].meta["tables"]
    }
    return FairnessProfile(tables, merged_meta(metas))


def read_profile(source: str | Path | Sequence[str | Path]) -> FairnessProfile:
    """
    Read a profile from Parquet; a glob (or a list of paths) reads and merges many.

    Parameters
    ----------
    source
        A path, a glob such as ``"profiles/*.parquet"``, or a list of paths.

    Returns
    -------
    FairnessProfile

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["a", "b", "a", "b"], "y": [1, 0, 1, 1], "p": [1, 1, 0, 1]})
    >>> kw = dict(y_true="y", y_pred="p", sensitive_features="g")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> df[:2].fair.profile(**kw).write_parquet(folder / "a.parquet")
    >>> df[2:].fair.profile(**kw).write_parquet(folder / "b.parquet")
    >>> pf.read_profile(str(folder / "*.parquet")).rows
    4
    """
    return FairnessProfile(*read_files(profile_paths(source)))


class ProfileMethods(NamespaceBase[TableT, ScalarT]):
    """The profile: the report's reductions, kept to merge and audit later."""

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
        score_bins: int = DEFAULT_SCORE_BINS,
        exact_scores: bool = False,
        task: Literal["classification", "regression"] = "classification",
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
        return profile(
            self._frame, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
            y_prob=y_prob, by=by, sample_weight=sample_weight, pos_label=pos_label,
            n_bins=n_bins, score_bins=score_bins, exact_scores=exact_scores, task=task,
        )  # fmt: skip
