"""The summary's criteria by name, and the derivation of its ROC AUC rows.

The summary's criteria are the catalogue's ``rate``, ``statistic`` and ``auc``
families (:data:`~polars_fair.metrics._registry.CRITERIA`). The first two derive from
the statistics table (:func:`~polars_fair.metrics._verdicts.summary_table`); the AUC
criteria from the ROC table (:func:`~polars_fair.metrics._auc.auc_summary_table`),
the reduction ``roc_auc`` and ``roc_curve`` read, so a report shares it (one read).
A summary naming both is the two sets of rows, merged in the order asked for
(:func:`~polars_fair.metrics._auc.merge_summaries`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import polars as pl

from polars_fair._utils import as_names, eager_warnings, find_stacklevel
from polars_fair._validate import SUMMARY_COLUMNS, check_names
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics import require_nonempty, resolve_reference
from polars_fair.metrics._auc import auc_summary_table, merge_summaries
from polars_fair.metrics._reference import warn_one_group_rows
from polars_fair.metrics._registry import CRITERIA, needs_roc, needs_score
from polars_fair.metrics._scores import NO_ROC_CURVE, warn_one_class
from polars_fair.metrics._verdicts import Bands, group_label
from polars_fair.plans._plan import Plan

__all__ = [
    "auc_summary_build", "check_criteria", "one_read", "split_auc", "summary_calls",
    "warn_each_once", "with_auc_rows",
]  # fmt: skip

T = TypeVar("T")


def check_criteria(
    criteria: Sequence[str] | None, default: Sequence[str], scored: bool = True
) -> list[str]:
    """The criteria asked for (or `default`).

    Without a score (`scored` False) none of them may read one (the balance
    criteria compare mean scores, the AUC criteria the groups' ROC AUC).
    """
    hint = "use the name of a criterion method, e.g. 'equal_opportunity_difference'"
    methods: list[str] = []
    if criteria is not None and not isinstance(criteria, str) and isinstance(criteria, Sequence):
        from polars_fair.namespace import LazyFrameFairNamespace  # noqa: PLC0415 (a cycle)

        methods = [
            c for c in criteria
            if isinstance(c, str) and c not in CRITERIA and hasattr(LazyFrameFairNamespace, c)
        ]  # fmt: skip
        if methods:
            hint = (
                f"{methods[0]!r} is a method of its own, not one of the summary's criteria "
                f"(listed above): call `df.fair.{methods[0]}(...)` for it and leave it out of "
                "`criteria`"
            )
    names = check_names(
        "criteria", criteria, list(CRITERIA), what="criteria", default=default, hint=hint,
        suggest=not methods,
    )  # fmt: skip
    for name in names:
        if not scored and needs_score(name):
            what = "the groups' ROC AUC" if needs_roc(name) else "mean scores"
            msg = (
                f"criterion {name!r} compares {what}, and no score column was given"
                "\n\nHint: pass the score column as `y_prob=` (`--y-prob` on the command "
                "line), or leave the criterion out"
            )
            raise InvalidParameterError(msg)
    return names


def split_auc(criteria: Sequence[str] | None) -> tuple[list[str] | None, list[str]]:
    """`criteria` as (the others, or None for the default; the AUC criteria named).

    Names the catalogue does not know stay with the others (the summary refuses them).
    """
    if criteria is None or isinstance(criteria, str) or not isinstance(criteria, Sequence):
        return criteria, []  # type: ignore[return-value]  # checked by the summary
    auc = [c for c in criteria if isinstance(c, str) and c in CRITERIA and needs_roc(c)]
    return [c for c in criteria if c not in auc], auc


def auc_summary_build(
    names: Sequence[str],
    *,
    sensitive_features: Any,
    by: Any,
    method: str,
    reference_group: Any,
    z: float,
    bands: Bands,
    min_group_size: float,
    verdict_rule: str,
    frequency_weights: bool,
    zero_division: float | None,
) -> Any:
    """The derivation of the summary's rows of the AUC criteria `names` from a ROC table."""
    by_: list[str] = as_names(by)
    sens: list[str] = as_names(sensitive_features)

    def build(roc: pl.LazyFrame) -> pl.LazyFrame:
        roc, reference = resolve_reference(
            require_nonempty(roc), reference_group, sens, by_, pair=True
        )
        roc = warn_one_group_rows(roc, sens, by_)
        roc = warn_one_class(
            roc, keys=[*by_, *sens], outcome="they are left out of the AUC criteria"
        ).cache()  # every row below derives from it: one read of the data
        return auc_summary_table(
            roc, criteria=[(n, CRITERIA[n].kind) for n in names], method=method, by=by_,
            sensitive=sens, reference=reference if reference_group is not None else "largest",
            bands={n: bands.of(n) for n in names}, z=z, min_group_size=min_group_size,
            verdict_rule=verdict_rule, frequency_weights=frequency_weights,
            label=group_label(sens), columns=SUMMARY_COLUMNS, zero_division=zero_division,
        )  # fmt: skip

    return build


def summary_calls(ns: Any, spec: Any, common: Mapping[str, Any], *, late: bool) -> dict[str, Any]:
    """The report's summary call(s) on namespace `ns` (report spec `spec`).

    Without AUC criteria, ``"summary"`` (`late` False: before the tables of scores).
    The AUC criteria's rows derive from the ROC table, the reduction ``roc_auc``
    reads (the report still reads the data once): `late` True gives their plan,
    after the tables of scores, so the distinct reductions keep their order (a
    profile stores them in it): ``"auc_summary"``, merged into ``"summary"`` by
    :func:`with_auc_rows` once derived, or ``"summary"`` itself when they are all
    the criteria named.
    """
    criteria, auc = split_auc(list(spec.criteria) if spec.criteria is not None else None)
    if late and not auc or not late and auc and not criteria:
        return {}
    named = auc if late else criteria
    plan = ns.summary(
        **common, y_prob=spec.y_prob, criteria=named, method=spec.method,
        reference_group=spec.reference_group, confidence_level=spec.confidence_level,
        difference_band=spec.difference_band, ratio_band=spec.ratio_band,
        min_group_size=spec.min_group_size, zero_division=spec.zero_division,
        verdict_rule=spec.verdict_rule, frequency_weights=spec.frequency_weights,
    )  # fmt: skip
    return {"auc_summary" if late and criteria else "summary": plan}


def with_auc_rows(
    tables: dict[str, pl.DataFrame], criteria: Sequence[str] | None, by: Sequence[str]
) -> dict[str, pl.DataFrame]:
    """The derived report tables, ``"auc_summary"`` merged into ``"summary"`` (if any)."""
    if "auc_summary" not in tables:
        return tables
    out = {k: v for k, v in tables.items() if k != "auc_summary"}
    out["summary"] = merge_summaries(
        tables["summary"], tables["auc_summary"], criteria=criteria or (), by=by
    )
    return out


def one_read(
    frame: pl.DataFrame | pl.LazyFrame,
    plans: tuple[Plan, Plan],
    *,
    criteria: Sequence[str],
    by: Sequence[str],
) -> Any:
    """A summary naming AUC criteria and others: its two plans' rows, merged.

    The statistics and the ROC table are two reductions of the same rows: over one
    cached source (:class:`~polars_fair.namespace.PlanningNamespace` on
    ``frame.lazy().cache()``) they read them once. On a LazyFrame, one plan; on a
    DataFrame, both reductions collected together (as the report does), then each
    plan's warnings and derivation, a warning of both given once.
    """
    if not isinstance(frame, pl.DataFrame):
        return merge_summaries(*(p.lazy() for p in plans), criteria=criteria, by=by)
    for plan in plans:
        plan.lazy()  # parameters checked before any data is read
    tables = pl.collect_all([plan.reduction for plan in plans])

    def derived(plan: Plan, table: pl.DataFrame) -> pl.DataFrame:
        with eager_warnings():
            out: pl.DataFrame = plan.result(plan.derive(table).collect())
        return out

    first, second = warned_once(
        *(functools.partial(derived, p, t) for p, t in zip(plans, tables, strict=True))
    )
    return merge_summaries(first, second, criteria=criteria, by=by)


def warned_once(*calls: Callable[[], T]) -> tuple[T, ...]:
    """Each of `calls`' results, each distinct warning they give reaching the caller once.

    A summary naming AUC criteria and others derives two tables from the same rows (the
    statistics and the ROC table): both warn about the same excluded rows, which the
    user should read once, as the report gives them.
    """
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            caught = recorded
            out = tuple(call() for call in calls)
    finally:  # outside the recording, so that they reach the caller (errors first)
        warn_each_once(caught)
    return out


def warn_each_once(caught: list[warnings.WarningMessage]) -> None:
    """Give each caught warning once (several tables of a report read the same reduction).

    The ROC AUC table and the AUC criteria both name the groups of one label class,
    each saying what follows for its rows: one warning names them once, with both.
    """
    merged: dict[tuple[type[Warning], str], list[str]] = {}
    for w in caught:
        head, mark, outcome = str(w.message).partition(NO_ROC_CURVE)
        outcomes = merged.setdefault((w.category, head + mark), [])
        if outcome not in outcomes:
            outcomes.append(outcome)
    for (category, head), outcomes in merged.items():
        warnings.warn(head + "; ".join(outcomes), category, stacklevel=find_stacklevel())
