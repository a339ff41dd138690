"""The ``report`` method of the ``fair`` namespace: every table of an audit, one read.

A report is several namespace methods (``by_group``, ``disparities``, ``summary``,
``tradeoffs`` and, with a score, ``calibration``, ``roc_curve`` and ``roc_auc``)
over the same data. Run one by one they would each read the data. Instead:

1. *plan*: the methods run on a recording LazyFrame namespace, which keeps each
   distinct reduction they build (the statistics table, a score histogram, ...)
   and reads nothing;
2. *collect*: the distinct reductions are collected together with
   :func:`polars.collect_all`, so Polars reads the source once for all of them;
3. *derive*: the methods run again on a LazyFrame namespace served with those
   collected reductions; every table is derived from them (the derivations are
   collected together), and each warning about excluded rows is given once.

The reductions are additive, so the command line can also collect them file by
file and sum them before step 3 (:meth:`ReportMethods._report_from`).
"""

from __future__ import annotations

import warnings
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._ns_base import NamespaceBase, ScalarT, TableT
from polars_fair._utils import as_names, derive_engine, find_stacklevel
from polars_fair._validate import ensure_lazy
from polars_fair.exceptions import IdentifierWarning, InvalidParameterError
from polars_fair.reduce import merge_group_stats
from polars_fair.report import FairnessReport, identifier_warning

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel, ReferenceGroup

__all__ = ["DISPARITY_RATES", "ReportMethods", "report_params", "sum_reductions"]

#: The rates the report compares with the reference (the rates behind the main
#: criteria); ``df.fair.disparities`` gives every rate.
DISPARITY_RATES = (
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "positive_predictive_value",
    "negative_predictive_value",
    "accuracy",
)


def sum_reductions(*parts: Sequence[pl.DataFrame]) -> list[pl.DataFrame]:
    """
    Sum the report reductions of disjoint pieces of the data, position by position.

    Every reduction is additive (:func:`~polars_fair.reduce.merge_group_stats`), so
    the reductions of files or partitions, summed, are those of their union.

    Parameters
    ----------
    *parts
        For each piece, its collected reductions in ``_report_reductions`` order.

    Returns
    -------
    list of DataFrame
        The summed reductions, in the same order.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair._ns_report import report_params, sum_reductions
    >>> a = pl.DataFrame({"g": ["x", "y"], "y": [1, 0], "p": [1, 1]})
    >>> b = pl.DataFrame({"g": ["x", "y"], "y": [0, 1], "p": [0, 1]})
    >>> params = report_params(y_true="y", y_pred="p", sensitive_features="g")
    >>> pieces = [pl.collect_all(f.fair._report_reductions(params)) for f in (a, b)]
    >>> whole = pl.collect_all(pl.concat([a, b]).fair._report_reductions(params))
    >>> all(s.equals(w) for s, w in zip(sum_reductions(*pieces), whole))
    True
    """
    return [merge_group_stats(*tables).collect() for tables in zip(*parts, strict=True)]


def _key(plan: pl.LazyFrame) -> str:
    """Identity of a reduction plan: its unoptimised plan text."""
    return plan.explain(optimized=False)


def _name(column: IntoColumn | None) -> str | None:
    if column is None or isinstance(column, str):
        return column
    return str(column)


def report_params(
    *,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    y_prob: IntoColumn | None = None,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    reference_group: ReferenceGroup | None = None,
    method: str | None = None,
    criteria: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    difference_band: float = 0.1,
    ratio_band: tuple[float, float] = (0.8, 1.25),
    min_group_size: float = 30,
    n_bins: int = 10,
    zero_division: float | None = None,
) -> dict[str, Any]:
    """The parameters of a report as one dict (see :meth:`ReportMethods.report`)."""
    if y_true is None or y_pred is None:
        msg = (
            "a report needs `y_true` and `y_pred`\n\nHint: threshold a score, e.g. "
            "`y_pred=pl.col('score') >= 0.5`"
        )
        raise InvalidParameterError(msg)
    return {
        "y_true": y_true, "y_pred": y_pred, "y_prob": y_prob,
        "sensitive_features": as_names(sensitive_features), "by": as_names(by),
        "sample_weight": sample_weight, "pos_label": pos_label,
        "reference_group": reference_group, "method": method,
        "criteria": list(criteria) if criteria is not None else None,
        "confidence_level": confidence_level, "difference_band": difference_band,
        "ratio_band": tuple(ratio_band), "min_group_size": min_group_size,
        "n_bins": n_bins, "zero_division": zero_division,
    }  # fmt: skip


class ReportMethods(NamespaceBase[TableT, ScalarT]):
    """The report: many tables from one read of the data."""

    @abstractmethod
    def _namespaces(self) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        """The LazyFrame and DataFrame namespace classes (the recording and serving ones)."""

    def _report_calls(self, ns: Any, params: dict[str, Any]) -> dict[str, Any]:
        """Run the report's methods on namespace `ns`; their results by table name."""
        p = params
        common = {
            "y_true": p["y_true"], "y_pred": p["y_pred"],
            "sensitive_features": p["sensitive_features"], "by": p["by"] or None,
            "sample_weight": p["sample_weight"], "pos_label": p["pos_label"],
        }  # fmt: skip
        out: dict[str, Any] = {
            "by_group": ns.by_group(
                **common, y_prob=p["y_prob"], zero_division=p["zero_division"],
                confidence_level=p["confidence_level"], min_group_size=p["min_group_size"],
            ),
            "disparities": ns.disparities(
                **common, y_prob=p["y_prob"], reference_group=p["reference_group"] or "largest",
                metrics=DISPARITY_RATES, zero_division=p["zero_division"],
                confidence_level=p["confidence_level"],
            ),
            "summary": ns.summary(
                **common, y_prob=p["y_prob"], criteria=p["criteria"], method=p["method"],
                reference_group=p["reference_group"], confidence_level=p["confidence_level"],
                difference_band=p["difference_band"], ratio_band=p["ratio_band"],
                min_group_size=p["min_group_size"], zero_division=p["zero_division"],
            ),
            "tradeoffs": ns.tradeoffs(**common, reference_group=p["reference_group"]),
        }  # fmt: skip
        if p["y_prob"] is not None:
            scored = {k: v for k, v in common.items() if k != "y_pred"}
            out["calibration"] = ns.calibration(**scored, y_prob=p["y_prob"], n_bins=p["n_bins"])
            out["roc_auc"] = ns.roc_auc(**scored, y_prob=p["y_prob"])
            out["roc_curve"] = ns.roc_curve(**scored, y_prob=p["y_prob"])
        return out

    def _report_reductions(
        self, params: dict[str, Any], *, shared: bool = False
    ) -> list[pl.LazyFrame]:
        """The distinct reductions a report needs, as lazy plans (nothing is read).

        With `shared`, the plans read one cached copy of the source, so collecting
        them together reads it once whatever the source (Polars itself merges equal
        scans of files, not of every source).
        """
        lazy_cls, _ = self._namespaces()
        frame = ensure_lazy(self._frame)
        recorder = lazy_cls(frame.cache() if shared else frame)
        found: dict[str, pl.LazyFrame] = {}
        recorder._on_reduce = lambda plan: found.setdefault(_key(plan), plan)
        self._report_calls(recorder, params)
        return list(found.values())

    def _report_from(
        self,
        reductions: Sequence[pl.DataFrame],
        params: dict[str, Any],
        plans: Sequence[pl.LazyFrame] | None = None,
    ) -> FairnessReport:
        """The report, derived from collected reductions (in `_report_reductions` order).

        `plans` are this frame's reduction plans, if already built.
        """
        if plans is None:
            plans = self._report_reductions(params)
        served = {_key(plan): table for plan, table in zip(plans, reductions, strict=True)}
        lazy_cls, _ = self._namespaces()
        server = lazy_cls(self._frame)
        server._serve = lambda plan: served[_key(plan)]
        server._prevalidated = True  # the recording pass ran the same calls
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            derived = self._report_calls(server, params)
        # the derivations run together: Polars plans and runs them in parallel
        engine = derive_engine(max(t.height for t in reductions))
        tables = dict(zip(derived, pl.collect_all(derived.values(), engine=engine), strict=True))
        seen: set[tuple[type[Warning], str]] = set()
        for w in caught:  # each reduction warned once per method: give each warning once
            if (w.category, str(w.message)) not in seen:
                seen.add((w.category, str(w.message)))
                warnings.warn(w.message, w.category, stacklevel=find_stacklevel())
        shown = {
            k: (_name(v) if k in ("y_true", "y_pred", "y_prob", "sample_weight") else v)
            for k, v in params.items()
        }
        if (text := identifier_warning(tables["by_group"], shown)) is not None:
            warnings.warn(text, IdentifierWarning, stacklevel=find_stacklevel())
        return FairnessReport(**tables, params=shown)

    def report(
        self,
        *,
        y_true: IntoColumn,
        y_pred: IntoColumn,
        sensitive_features: IntoColumns,
        y_prob: IntoColumn | None = None,
        by: IntoColumns | None = None,
        sample_weight: IntoColumn | None = None,
        pos_label: PosLabel = 1,
        reference_group: ReferenceGroup | None = None,
        method: str | None = None,
        criteria: Sequence[str] | None = None,
        confidence_level: float = 0.95,
        difference_band: float = 0.1,
        ratio_band: tuple[float, float] = (0.8, 1.25),
        min_group_size: float = 30,
        n_bins: int = 10,
        zero_division: float | None = None,
    ) -> FairnessReport:
        """
        A fairness report: every table of an audit, from one read of the data.

        Collects (on a LazyFrame too): the report is a finished result. The tables
        are those of :meth:`by_group` (every rate, with Wilson intervals and
        small-group flags), :meth:`disparities` (with Newcombe / Katz intervals, for
        the six rates behind the main criteria: selection rate, TPR, FPR, PPV, NPV,
        accuracy), :meth:`summary`
        (verdicts), :meth:`tradeoffs` and, with `y_prob`, :meth:`calibration`,
        :meth:`roc_auc` and :meth:`roc_curve`, computed from the reductions they
        share, which Polars collects together in one read of the source.

        Parameters
        ----------
        y_true
            Column (or expression) of true labels.
        y_pred
            Column (or expression, e.g. ``pl.col("score") >= 0.5``) of predicted labels.
        sensitive_features
            Column name(s) defining the groups.
        y_prob
            Column of scores in [0, 1]: adds balance criteria, calibration and ROC.
        by
            Batch key column(s): one report covers every model or slice, side by side.
        sample_weight
            Column of non-negative weights.
        pos_label
            Label value treated as positive.
        reference_group
            The reference group (a value, tuple or dict); default the largest group.
        method
            Comparison method of the summary's criteria (default ``"between_groups"``
            without `reference_group`, ``"to_reference"`` with it).
        criteria
            Criterion names for the summary (default: its standard set).
        confidence_level
            Level of every interval.
        difference_band, ratio_band
            Fair bands of the verdicts.
        min_group_size
            Groups smaller than this are flagged and make verdicts ``"too_small"``.
        n_bins
            Calibration bins (with `y_prob`).
        zero_division
            None keeps undefined rates null; a float replaces them.

        Returns
        -------
        FairnessReport
            The tables, with ``to_dict``, ``to_json``, ``to_markdown`` and ``to_html``.

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
        >>> report = df.lazy().fair.report(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", min_group_size=5
        ... )
        >>> report.summary.select("criterion", "verdict").head(2)
        shape: (2, 2)
        ┌───────────────────────────────┬─────────┐
        │ criterion                     ┆ verdict │
        │ ---                           ┆ ---     │
        │ str                           ┆ enum    │
        ╞═══════════════════════════════╪═════════╡
        │ demographic_parity_difference ┆ unfair  │
        │ disparate_impact_ratio        ┆ unfair  │
        └───────────────────────────────┴─────────┘
        """
        params = report_params(
            y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, y_prob=y_prob,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
            reference_group=reference_group, method=method, criteria=criteria,
            confidence_level=confidence_level, difference_band=difference_band,
            ratio_band=ratio_band, min_group_size=min_group_size, n_bins=n_bins,
            zero_division=zero_division,
        )  # fmt: skip
        plans = self._report_reductions(params)
        # several reductions (with a score): read the source once for all of them
        collected = self._report_reductions(params, shared=True) if len(plans) > 1 else plans
        return self._report_from(pl.collect_all(collected), params, plans)
