"""What a profile derives through the ``fair`` namespace's own plans: criteria, tables, slices.

``profile.criterion(name)`` promises what ``df.fair.<name>(...)`` returns on the rows
the profile came from, ``profile.by_group(...)`` and ``profile.disparities(...)`` what
``df.fair.by_group(...)`` and ``df.fair.disparities(...)`` return, and
``profile.slices(...)`` what ``df.fair.slices(...)`` returns. Rather than a second
implementation (the summary's values, which define the
four-fifths rule, the 2-SD rule and Cohen's d differently, were one), both build the
namespace method's own :class:`~polars_fair.plans._plan.Plan` over an empty frame of
the profile's schema (reading nothing), replace its reduction by the table the profile
keeps, and run it as the DataFrame namespace does: the same parameter checks,
warnings, derivation and return value.

**The reduction from the profile.** A method reads the statistics table of its own
columns. The profile's is made with all of them (labels, predictions, and the score
for the balance criteria), so a method of the predictions alone reads
``pred_pos = tp + fp`` and ``pred_neg = fn + tn``, one of the labels alone
``pos = tp + fn`` and ``neg = fp + tn``; the other columns (``n``, ``n_null``, the
weight and score sums) are the profile's. Slices over a subset of the profile's
sensitive features read its table summed over the others (counts add exactly).

**Rows with nulls.** A profile counts a row only when every column it reads is set;
a method on the rows that reads fewer columns (``cohen_d`` reads no labels) also counts
rows whose other columns are null. The two agree whenever the profile excluded no row
(``n_null`` is 0 everywhere).
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import find_stacklevel
from polars_fair._validate import did_you_mean
from polars_fair.exceptions import InvalidParameterError, ProfileError
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.metrics._registry import CRITERIA
from polars_fair.metrics._slices import MEAN_MEASURES, check_slice_parameters
from polars_fair.namespace._report import ReportSpec, derive_report
from polars_fair.plans._profile_meta import (
    FIXED,
    REGRESSION,
    by_items,
    encode_column,
    shown,
    task_of,
)
from polars_fair.reduce import CELL_WEIGHT_SQUARES, ROC_WEIGHT_SQUARES
from polars_fair.report._text import readable_expr

if TYPE_CHECKING:
    from polars_fair.namespace._profile import FairnessProfile
    from polars_fair.plans._plan import Plan
    from polars_fair.report import FairnessReport

__all__ = [
    "REPORT_OPTIONS",
    "ROWS_ONLY",
    "profile_criterion",
    "profile_report",
    "profile_slices",
    "profile_table",
]

#: Report options a profile leaves free (they act on the derivation only).
REPORT_OPTIONS = (
    "reference_group", "method", "criteria", "confidence_level", "difference_band",
    "ratio_band", "min_group_size", "zero_division", "verdict_rule", "frequency_weights",
    "slices", "max_depth", "slice_metric",
)  # fmt: skip
#: The report options of the slices section (derived by :func:`profile_slices`).
_SLICE_OPTIONS = ("slices", "max_depth", "slice_metric")
#: Parameters of ``df.fair.slices`` that only the rows can answer, and why.
ROWS_ONLY: dict[str, str] = {
    "y_true": "fixed when the profile is made",
    "y_pred": "fixed when the profile is made",
    "sample_weight": "fixed when the profile is made",
    "pos_label": "fixed when the profile is made",
    "by": "fixed when the profile is made (its batch keys are used)",
    "n_bins": "numeric candidates are cut into quantile bins of the rows",
    "strategy": "the slices are derived from the profile's table at the finest crossing",
}
#: The columns a profile reads, and the column parameters of a method: a profile fixes them.
_COLUMNS = ("y_true", "y_pred", "y_prob", "sample_weight")
_FIXED_COLUMNS = (*_COLUMNS, "pos_label")
_KEYS = ("sensitive_features", "by")
#: The counts of a statistics table of one label column, from the confusion counts.
_DERIVED = {
    "pred_pos": pl.col("tp") + pl.col("fp"),
    "pred_neg": pl.col("fn") + pl.col("tn"),
    "pos": pl.col("tp") + pl.col("fn"),
    "neg": pl.col("fp") + pl.col("tn"),
}
#: The tables of a regression profile (``df.fair.<name>`` on the rows).
_REGRESSION_TABLES = ("regression_stats", "regression_by_group", "regression_disparities")
#: Regression criteria of the sums, beyond the catalogue's (a statistic of two groups).
_REGRESSION_EXTRA = ("zscore_difference",)
#: Regression criteria of quantiles of the predictions: they need the rows.
_QUANTILE_CRITERIA = (
    "disparate_impact_quantile", "statistical_parity_quantile", "max_statistical_parity",
    "statistical_parity_auc", "no_disparate_impact_level",
)  # fmt: skip
_OFFERS = (
    "`profile.regression_stats()`, `profile.regression_by_group()`, "
    "`profile.regression_disparities(...)`, `profile.criterion(name, ...)` for {names}, "
    "and `profile.slices(candidates=..., metric='mae')` (or 'mean_prediction', 'mean_true')"
)


def _regression_criteria() -> list[str]:
    """The criteria a regression profile derives: those of the regression sums."""
    names = [n for n, e in CATALOGUE.items() if e.family == REGRESSION]
    return [*names, *_REGRESSION_EXTRA]


def _refuse_task(prof: FairnessProfile, what: str, regression: bool) -> None:
    """Refuse `what` on a profile of the other task (`regression`: what needs one)."""
    if (task_of(prof.meta) == REGRESSION) == regression:
        return
    if regression:
        msg = (
            f"{what} needs a regression profile; this one holds the statistics table of "
            f"labels and scores\n\nHint: profile continuous predictions with "
            f"`df.fair.profile(y_true=..., y_pred=..., sensitive_features=..., "
            f"task='regression')`"
        )
        raise ProfileError(msg)
    offers = _OFFERS.format(names=_regression_criteria())
    msg = (
        f"{what} is not derived from a regression profile: it holds the regression sums, and "
        f"regression criteria have no intervals or verdicts in polars_fair (no report, "
        f"summary, comparison or trend)\n\nHint: a regression profile offers {offers}"
    )
    raise ProfileError(msg)


def _agreeing(prof: FairnessProfile, value: Any, name: str) -> bool:
    """Whether `value`, given for the fixed parameter `name`, is the profile's own."""
    spec = prof.meta["spec"]
    try:
        if name in _COLUMNS:
            return bool(encode_column(value) == spec[name])
        if name in _KEYS:
            items = by_items(value)
            names = [i.meta.output_name() if isinstance(i, pl.Expr) else i for i in items]
            if names != list(spec[name]):
                return False
            kept = spec.get("by_items") if name == "by" else None
            return kept is None or [encode_column(i) for i in items] == kept
        return bool(type(value) is type(spec[name]) and value == spec[name])
    except (InvalidParameterError, TypeError, ValueError, pl.exceptions.PolarsError):
        return False


def without_agreeing(prof: FairnessProfile, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` less the fixed ones given with the profile's own values (a no-op).

    So the keyword arguments of ``df.fair.report(**kw)`` (or of a method) can be passed
    to the profile as they are; a fixed parameter with another value stays, and is
    refused by the caller.
    """
    fixed = (*_FIXED_COLUMNS, *_KEYS, "n_bins", "score_bins")
    return {k: v for k, v in options.items() if k not in fixed or not _agreeing(prof, v, k)}


def _refuse_other_values(
    prof: FairnessProfile, fixed: Sequence[str], options: Mapping[str, Any]
) -> None:
    """Refuse the parameters `fixed` (fixed when the profile is made) given other values."""
    if not fixed:
        return
    spec = prof.meta["spec"]
    given = "; ".join(
        f"`{k}`={_shown_fixed(options[k], k)} against the profile's "
        f"{_shown_fixed(spec.get('by_items') or spec.get(k) if k == 'by' else spec.get(k), k)}"
        for k in sorted(fixed)
    )
    msg = (
        f"{sorted(fixed)} are fixed when the profile is made, and differ from the profile's: "
        f"{given}\n\nHint: drop them (the profile's are used), or profile the data again "
        "with these"
    )
    raise InvalidParameterError(msg)


def _shown_fixed(value: Any, name: str) -> str:
    """A fixed parameter's value in a message: columns and `by` expressions as text."""
    if name in _COLUMNS:
        return "None" if value is None else repr(shown(value))  # None: no column, not 'None'
    items = [value] if isinstance(value, (str, pl.Expr)) else value
    if name != "by" or not isinstance(items, (list, tuple)):
        return repr(value)
    if not all(isinstance(i, (str, dict, pl.Expr)) for i in items):
        return repr(value)
    return repr([i if isinstance(i, str) else shown(i) for i in items])


def _namespace(prof: FairnessProfile) -> Any:
    """The planning namespace over an empty frame of the profile's schema (reads nothing)."""
    from polars_fair.namespace import PlanningNamespace  # built on this module

    return PlanningNamespace(pl.DataFrame(schema=prof.schema).lazy(), check=False)


def _stats_table(prof: FairnessProfile, scored: bool) -> pl.DataFrame:
    """The profile's statistics table with (`scored`) or without the score sums."""
    tables = [
        prof.tables[name] for name in prof.meta["tables"]
        if "tp" in prof.tables[name].columns and "bin" not in prof.tables[name].columns
    ]  # fmt: skip
    for table in tables:
        if ("sum_prob_pos" in table.columns) == scored:
            return table
    if not scored and tables:  # older profiles: one table, with the score sums
        return tables[0]
    msg = "this profile has no statistics table with score sums\n\nHint: profile with `y_prob=`"
    raise ProfileError(msg)


def _reduction(prof: FairnessProfile, schema: pl.Schema, keys: Sequence[str]) -> pl.DataFrame:
    """The table a plan reducing to `schema` (keyed by `keys`) reads, from the profile.

    A plan of the ROC table (the AUC criteria) reads the profile's (binned, unless
    profiled with ``exact_scores=True``); a weighted one written before ROC tables kept
    ``pos_w2, neg_w2`` is read without them (its AUC then has no interval). A weighted
    statistics table written before it kept each cell's squared weights (``tp_w2``,
    ...) is read without them too (its rates' intervals then use the group's size).
    """
    if "score" in schema:
        roc = [prof.tables[t] for t in prof.meta["tables"] if "score" in prof.tables[t].columns]
        kept = [c for c in schema if c in roc[0].columns or c not in ROC_WEIGHT_SQUARES]
        return roc[0].select(pl.col(c).cast(schema[c]) for c in kept)
    if task_of(prof.meta) == REGRESSION:
        source = prof.tables[prof.meta["tables"][0]]
    else:
        source = _stats_table(prof, "sum_prob_pos" in schema)
    needed = [
        c for c in schema
        if c not in keys and (c in source.columns or c not in CELL_WEIGHT_SQUARES)
    ]  # fmt: skip
    missing = [c for c in needed if c not in source.columns and c not in _DERIVED]
    if missing:
        msg = (
            f"the profile's statistics table has no column(s) {missing}"
            "\n\nHint: profile the data again with this version of polars_fair"
        )
        raise ProfileError(msg)
    exprs = [(pl.col(c) if c in source.columns else _DERIVED[c]).alias(c) for c in needed]
    table = source.lazy().select(*keys, *exprs)
    if len(keys) < len(prof.by) + len(prof.meta["spec"]["sensitive_features"]):
        table = table.group_by(keys).agg(pl.col(needed).sum()).sort(keys, nulls_last=True)
    kept = [c for c in schema if c in keys or c in needed]
    return table.select(pl.col(c).cast(schema[c]) for c in kept).collect()


def _run(prof: FairnessProfile, plan: Plan) -> Any:
    """Run `plan` as the DataFrame namespace does, its reduction read from the profile."""
    table = _reduction(prof, plan.schema, plan.keys)
    return dataclasses.replace(plan, reduction=table.lazy()).collect("in-memory")


def profile_criterion(
    prof: FairnessProfile, name: str, options: Mapping[str, Any]
) -> float | None | pl.DataFrame:
    """``df.fair.<name>(**options)`` on the rows of `prof` (see ``FairnessProfile.criterion``)."""
    if task_of(prof.meta) == REGRESSION:
        return _regression_criterion(prof, name, options)
    regression = name in (*_REGRESSION_EXTRA, *_QUANTILE_CRITERIA) or (
        name in CATALOGUE and CATALOGUE[name].family == REGRESSION
    )
    if regression or (name in CATALOGUE and name not in CRITERIA):  # as the command line says it
        family = REGRESSION if regression else CATALOGUE[name].family
        hint = (
            f"compute it on the rows with `df.fair.{name}(...)`, or use one of {sorted(CRITERIA)}"
        )
        if regression and name not in _QUANTILE_CRITERIA:  # a regression profile derives it
            hint = (
                f"profile the continuous predictions with `task='regression'` and derive it "
                f"there, or {hint}"
            )
        msg = (
            f"{name!r} is {'an' if family[0] in 'aeiou' else 'a'} {family} criterion, which a "
            f"classification profile does not compute (it holds the statistics table of "
            f"labels and scores)\n\nHint: {hint}"
        )
        raise InvalidParameterError(msg)
    if name not in CRITERIA:
        near = did_you_mean(name, CRITERIA)
        msg = f"unknown criterion {name!r}\n\nHint: {near}one of {sorted(CRITERIA)}"
        raise InvalidParameterError(msg)
    hint = (
        f"for the summary's value (small groups left out, with an interval and a verdict) use "
        f"`profile.summary(criteria=[{name!r}], ...)`"
    )
    result: float | None | pl.DataFrame = _method(prof, name, options, f"criterion({name!r})", hint)
    return result


def _regression_criterion(
    prof: FairnessProfile, name: str, options: Mapping[str, Any]
) -> float | None | pl.DataFrame:
    """``df.fair.<name>(**options)`` on the rows of the regression profile `prof`."""
    allowed = _regression_criteria()
    if name in _QUANTILE_CRITERIA:
        msg = (
            f"{name!r} compares success rates at quantiles of the predictions, and a quantile "
            "is not a sum: a regression profile keeps the regression sums only\n\nHint: "
            f"compute it on the rows with `df.fair.{name}(...)`, or use one of {allowed}"
        )
        raise ProfileError(msg)
    if name not in allowed:
        if name in CATALOGUE:
            _refuse_task(prof, f"the {CATALOGUE[name].family} criterion {name!r}", regression=False)
        near = did_you_mean(name, allowed)
        msg = f"unknown regression criterion {name!r}\n\nHint: {near}one of {allowed}"
        raise InvalidParameterError(msg)
    hint = "regression criteria have no summary, interval or verdict in polars_fair"
    result: float | None | pl.DataFrame = _method(prof, name, options, f"criterion({name!r})", hint)
    return result


def profile_table(prof: FairnessProfile, name: str, options: Mapping[str, Any]) -> pl.DataFrame:
    """``df.fair.<name>(**options)`` (``by_group``, ``disparities``, ...) on the rows of `prof`."""
    _refuse_task(prof, f"`profile.{name}(...)`", regression=name in _REGRESSION_TABLES)
    hint = f"for the report's table use `profile.report(...).{name}`"
    if name in _REGRESSION_TABLES:
        hint = "a regression profile has no report"
    result: pl.DataFrame = _method(prof, name, options, f"{name}(...)", hint)
    return result


def _method(
    prof: FairnessProfile, name: str, options: Mapping[str, Any], call: str, hint: str
) -> Any:
    """The namespace method `name` with `options`, its reduction read from `prof`."""
    options = without_agreeing(prof, options)
    method = getattr(_namespace(prof), name)
    params = inspect.signature(method).parameters
    free = [p for p in params if p not in (*_FIXED_COLUMNS, *_KEYS)]
    _refuse_other_values(prof, [k for k in options if k in (*_FIXED_COLUMNS, *_KEYS)], options)
    unknown = sorted(set(options) - set(free))
    if unknown:
        msg = (
            f"`profile.{call}` is `df.fair.{name}(...)` on the rows, which takes "
            f"no {unknown}\n\nHint: {did_you_mean(unknown[0], free)}its options are {free}; {hint}"
        )
        raise InvalidParameterError(msg)
    spec = prof.spec
    needs_score = "y_prob" in params and params["y_prob"].default is inspect.Parameter.empty
    if needs_score and spec["y_prob"] is None:
        msg = f"criterion {name!r} reads a score, and this profile has no score\n\nHint: profile with `y_prob=`"
        raise ProfileError(msg)
    columns = {k: spec[k] for k in _FIXED_COLUMNS if k in params}
    keys = {"sensitive_features": list(spec["sensitive_features"]), "by": prof.by or None}
    return _run(prof, method(**columns, **keys, **options))


def profile_slices(
    prof: FairnessProfile,
    *,
    candidates: Sequence[str],
    options: Mapping[str, Any],
    rows_only: Mapping[str, Any],
) -> pl.DataFrame:
    """``df.fair.slices(...)`` on the rows of `prof` (see ``FairnessProfile.slices``)."""
    unknown = sorted(k for k in rows_only if k not in ROWS_ONLY)
    if unknown:
        msg = (
            f"unknown parameter(s) {unknown} of `profile.slices`\n\nHint: its parameters are "
            f"['candidates', {', '.join(repr(k) for k in options)}]"
        )
        raise InvalidParameterError(msg)
    if rows_only:
        given = sorted(rows_only)
        reasons = "; ".join(f"`{k}`: {ROWS_ONLY[k]}" for k in given)
        msg = (
            f"{given} cannot be given to `profile.slices` ({reasons})\n\nHint: drop them "
            "(the profile's are used), or call `df.fair.slices(...)` on the rows"
        )
        raise InvalidParameterError(msg)
    names, metric, *_ = check_slice_parameters(
        candidates=candidates, metric=options["metric"], max_depth=options["max_depth"],
        min_size=options["min_size"], alpha=options["alpha"], top=options["top"],
        correction=options["correction"],
    )  # fmt: skip
    sensitive = list(prof.meta["spec"]["sensitive_features"])
    missing = [c for c in names if c not in sensitive]
    if missing:
        wanted = [*sensitive, *missing]
        msg = (
            f"the profile was not made at the crossing of the candidates: {missing} are not "
            f"among its sensitive features {sensitive}\n\nHint: profile the rows with "
            f"`sensitive_features={wanted}` (a crossing that holds every candidate)"
        )
        raise ProfileError(msg)
    schema = prof.schema
    for c in names:
        if schema[c].is_numeric() and schema[c] != pl.Boolean:
            msg = (
                f"candidate {c!r} is numeric ({schema[c]}): slices on the rows cut it into "
                "quantile bins of the rows, which a profile does not keep\n\nHint: profile "
                f"a column of categories instead, e.g. `pl.col({c!r}).cast(pl.String)` "
                "(its values) or binned with your own edges"
            )
            raise ProfileError(msg)
    regression = task_of(prof.meta) == REGRESSION
    if (metric in MEAN_MEASURES) != regression:
        _refuse_task(prof, f"`profile.slices(metric={metric!r})`", regression=not regression)
    spec = prof.spec
    plan = _namespace(prof).slices(
        y_true=spec["y_true"], y_pred=spec["y_pred"], candidates=names,
        sample_weight=spec["sample_weight"], by=prof.by or None, pos_label=spec["pos_label"],
        strategy="finest", **options,
    )  # fmt: skip
    result: pl.DataFrame = _run(prof, plan)
    return result


def profile_report(prof: FairnessProfile, options: Mapping[str, Any]) -> FairnessReport:
    """The report from `prof` alone (see ``FairnessProfile.report``)."""
    _refuse_task(prof, "a report (and its summary, comparison, trend)", regression=False)
    options = without_agreeing(prof, options)
    _refuse_other_values(prof, [k for k in options if k in (*FIXED, "sensitive_features")], options)
    unknown = sorted(set(options) - set(REPORT_OPTIONS))
    if unknown:
        hint = f"the options are {list(REPORT_OPTIONS)}"
        msg = f"unknown report option(s) {unknown} for a profile\n\nHint: {hint}"
        raise InvalidParameterError(msg)
    spec = prof.spec
    fixed_params = {k: spec[k] for k in FIXED if k != "score_bins"}
    full = ReportSpec.of(**fixed_params, **options)
    # the slices section has a reduction of its own on the rows; here it is derived
    # from the statistics table (`profile_slices`), and the rest from the stored tables
    report_spec = dataclasses.replace(full, slices=None)
    # the stored tables are the spec's `report_reductions`, in their order
    tables = [prof.tables[name] for name in prof.meta["tables"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = derive_report(report_spec, tables, prof.schema)
        except InvalidParameterError as exc:
            if "reductions, got" not in str(exc):
                raise
            msg = (
                "these report options need reductions the profile does not keep"
                "\n\nHint: profile the data again with the same options"
            )
            raise ProfileError(msg) from exc
        slices = None
        if full.slices:  # as `report(slices=...)` on the rows
            slices = profile_slices(
                prof, candidates=list(full.slices), rows_only={}, options={
                    "metric": full.slice_metric, "max_depth": full.max_depth,
                    "min_size": full.min_group_size, "alpha": 1 - full.confidence_level,
                    "top": None, "correction": "bh", "direction": "both",
                },
            )  # fmt: skip
    _warn_once(caught)
    given = {**report.params, "score_bins": prof.meta["score_bins"], "rows": prof.rows}
    if full.slices is not None:  # recorded only when asked for, as on the rows
        given.update({k: full.to_dict()[k] for k in _SLICE_OPTIONS})
    for name in _COLUMNS:
        if spec[name] is not None:
            given[name] = readable_expr(shown(prof.meta["spec"][name]))
    return dataclasses.replace(report, slices=slices, params=given)


def _warn_once(caught: Sequence[warnings.WarningMessage]) -> None:
    """Give each caught warning once (the report's tables and its slices read one table)."""
    seen: set[tuple[type[Warning], str]] = set()
    for w in caught:
        if (w.category, str(w.message)) not in seen:
            seen.add((w.category, str(w.message)))
            warnings.warn(w.message, w.category, stacklevel=find_stacklevel())
