"""The report: every table of an audit from one read, on a public specification.

A report is several namespace methods (``by_group``, ``disparities``, ``summary``,
``tradeoffs`` and, with a score, ``calibration``, ``roc_curve`` and ``roc_auc``;
with slice candidates, ``slices``) over the same data. Each is a plan (:class:`~polars_fair.plans._plan.Plan`): a reduction
and a derivation from its table. The report

1. *plans*: runs the methods once on the planning namespace, which returns their
   plans; tables that need the same reduction hold the same reduction object
   (:func:`~polars_fair._utils.sharing`);
2. *collects* the distinct reductions together with :func:`polars.collect_all`, so
   Polars reads the source once for all of them;
3. *derives* each table once from the collected reductions, giving each warning
   about excluded rows once: the checks of each derivation run on the collected
   table as it is built (as on the eager path of each method), and each derivation
   is collected on a worker thread while the next is built.

:class:`ReportSpec` holds the parameters; :func:`report_reductions` (step 1) and
:func:`derive_report` (step 3) are public, so the command line, Ray and profiles can
collect the reductions per file, sum them (:func:`sum_reductions`: they are
additive) and derive the report from the sums and the spec alone.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, fields
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_fair._utils import (
    SMALL_TABLE_ROWS,
    as_names,
    derive_engine,
    eager_warnings,
    sharing,
)
from polars_fair._validate import (
    check_flag,
    check_ratio_band,
    check_reference_value,
    ensure_lazy,
)
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics import require_rows
from polars_fair.metrics._slices import check_metric
from polars_fair.namespace._base import NamespaceBase, ScalarT, TableT
from polars_fair.namespace._report_checks import (
    check_pieces,
    check_reductions,
    check_spec,
    reading_input,
)
from polars_fair.namespace._summary_criteria import summary_calls, warn_each_once, with_auc_rows
from polars_fair.plans._audit import compared_rows, undefined_rates
from polars_fair.plans._plan import Plan, derive_opts
from polars_fair.reduce import merge_group_stats, stats_keys
from polars_fair.reduce.regression import REGRESSION_SUMS
from polars_fair.report import FairnessReport
from polars_fair.report._text import readable_expr

if TYPE_CHECKING:
    from polars._typing import EngineType

    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel, ReferenceGroup

__all__ = [
    "DISPARITY_RATES",
    "ReportMethods",
    "ReportSpec",
    "derive_report",
    "report_plans",
    "report_reductions",
    "sum_reductions",
]

#: The rates the report compares with the reference (the rates behind the main
#: criteria); ``df.fair.disparities`` gives every rate.
DISPARITY_RATES = (
    "selection_rate", "true_positive_rate", "false_positive_rate",
    "positive_predictive_value", "negative_predictive_value", "accuracy",
)  # fmt: skip

_COLUMNS = ("y_true", "y_pred", "y_prob", "sample_weight")
_SLICE_PARAMS = ("slices", "max_depth", "slice_metric")


@dataclass(frozen=True, eq=False, kw_only=True)
class ReportSpec:
    """
    The parameters of a report, as one frozen value (see ``df.fair.report``).

    Make it with :meth:`ReportSpec.of` (which checks and normalises the parameters);
    give it to :func:`report_reductions` and :func:`derive_report`.

    Examples
    --------
    >>> import polars_fair as pf
    >>> spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
    >>> spec.sensitive_features, spec.confidence_level
    (('g',), 0.95)
    """

    y_true: IntoColumn
    y_pred: IntoColumn
    y_prob: IntoColumn | None = None
    sensitive_features: tuple[str, ...]
    by: tuple[str, ...] = ()
    sample_weight: IntoColumn | None = None
    pos_label: PosLabel = 1
    reference_group: ReferenceGroup | None = None
    method: str | None = None
    criteria: tuple[str, ...] | None = None
    confidence_level: float = 0.95
    difference_band: float = 0.1
    ratio_band: tuple[float, float] = (0.8, 1.25)
    min_group_size: float = 30
    n_bins: int = 10
    zero_division: float | None = None
    slices: tuple[str, ...] | None = None
    max_depth: int = 2
    slice_metric: str = "false_positive_rate"
    verdict_rule: str = "interval"
    frequency_weights: bool = False

    @classmethod
    def of(
        cls,
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
        slices: Sequence[str] | None = None,
        max_depth: int = 2,
        slice_metric: str = "false_positive_rate",
        verdict_rule: str = "interval",
        frequency_weights: bool = False,
    ) -> ReportSpec:
        """The spec of ``df.fair.report`` with these keyword arguments."""
        if y_true is None or y_pred is None:
            msg = (
                "a report needs `y_true` and `y_pred`\n\nHint: threshold a score, e.g. "
                "`y_pred=pl.col('score') >= 0.5`"
            )
            raise InvalidParameterError(msg)
        check_reference_value(reference_group)
        check_ratio_band(ratio_band)
        if criteria is not None and (
            isinstance(criteria, str) or not isinstance(criteria, Sequence)
        ):
            msg = f"`criteria` must be a list of names, got {criteria!r}\n\nHint: `criteria=[{criteria!r}]`"
            raise InvalidParameterError(msg)
        check_flag(frequency_weights, "frequency_weights")
        if slices is not None:  # named as given here, not as the slices' own `metric`
            check_metric(slice_metric, "slice_metric")
        return cls(
            y_true=y_true, y_pred=y_pred, sensitive_features=tuple(as_names(sensitive_features)),
            y_prob=y_prob, by=tuple(as_names(by)), sample_weight=sample_weight,
            pos_label=pos_label, reference_group=reference_group, method=method,
            criteria=tuple(criteria) if criteria is not None else None,
            confidence_level=confidence_level, difference_band=difference_band,
            ratio_band=cast("tuple[float, float]", tuple(ratio_band)), min_group_size=min_group_size, n_bins=n_bins,
            zero_division=zero_division, slices=tuple(as_names(slices)) if slices is not None else None,
            max_depth=max_depth, slice_metric=slice_metric, verdict_rule=verdict_rule,
            frequency_weights=bool(frequency_weights),
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The parameters as a dict (name lists as lists): ``ReportSpec.of(**d)`` inverts it.

        >>> import polars_fair as pf
        >>> spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
        >>> spec.to_dict()["sensitive_features"], pf.ReportSpec.of(**spec.to_dict()).to_dict() == spec.to_dict()
        (['g'], True)
        """
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("sensitive_features", "by", "criteria", "slices"):
            if out[name] is not None:
                out[name] = list(out[name])
        return out


def _report_calls(ns: Any, spec: ReportSpec) -> dict[str, Any]:
    """Run the report's methods on namespace `ns`; their results by table name."""
    p = spec
    common = {
        "y_true": p.y_true, "y_pred": p.y_pred,
        "sensitive_features": list(p.sensitive_features), "by": list(p.by) or None,
        "sample_weight": p.sample_weight, "pos_label": p.pos_label,
    }  # fmt: skip
    out: dict[str, Any] = {
        "by_group": ns.by_group(
            **common, y_prob=p.y_prob, zero_division=p.zero_division,
            confidence_level=p.confidence_level, min_group_size=p.min_group_size,
            frequency_weights=p.frequency_weights,
        ),
        "disparities": ns.disparities(
            **common, y_prob=p.y_prob, reference_group=p.reference_group or "largest",
            metrics=DISPARITY_RATES, zero_division=p.zero_division,
            confidence_level=p.confidence_level, frequency_weights=p.frequency_weights,
        ),
        **summary_calls(ns, p, common, late=False),  # AUC criteria: below (`with_auc_rows`)
        "tradeoffs": ns.tradeoffs(**common, reference_group=p.reference_group),
    }  # fmt: skip
    if p.y_prob is not None:
        scored = {k: v for k, v in common.items() if k != "y_pred"}
        out["calibration"] = ns.calibration(**scored, y_prob=p.y_prob, n_bins=p.n_bins)
        out["roc_auc"] = ns.roc_auc(**scored, y_prob=p.y_prob)
        out["roc_curve"] = ns.roc_curve(**scored, y_prob=p.y_prob)
    out.update(summary_calls(ns, p, common, late=True))
    if p.slices:
        out["slices"] = ns.slices(
            **{k: v for k, v in common.items() if k != "sensitive_features"},
            candidates=list(p.slices), metric=p.slice_metric, max_depth=p.max_depth,
            min_size=p.min_group_size, alpha=1 - p.confidence_level,
            strategy="finest",  # the report shares one read of the source itself
        )  # fmt: skip
    return out


def report_plans(
    frame: pl.DataFrame | pl.LazyFrame, spec: ReportSpec, *, check: bool = True
) -> dict[str, Plan]:
    """The plan of each table of the report (nothing is read).

    Tables that need the same reduction hold the same reduction object. With `check`,
    every parameter is checked now (building each derivation once on the lazy
    reductions); otherwise when the tables are derived.
    """
    from polars_fair.namespace import PlanningNamespace  # the namespace is built on this module

    with sharing():
        return _report_calls(PlanningNamespace(ensure_lazy(frame), check=check), spec)


def _distinct(plans: Mapping[str, Plan]) -> list[pl.LazyFrame]:
    """The distinct reductions of `plans`, by identity, in order of first use."""
    found: dict[int, pl.LazyFrame] = {}
    for plan in plans.values():
        found.setdefault(id(plan.reduction), plan.reduction)
    return list(found.values())


def report_reductions(
    frame: pl.DataFrame | pl.LazyFrame, spec: ReportSpec, *, shared: bool = False,
    check: bool = True,
) -> list[pl.LazyFrame]:  # fmt: skip
    """
    The distinct reductions a report over `frame` needs, as lazy plans (nothing is read).

    Collect them (together: ``pl.collect_all``), per file or partition if you like,
    sum those of disjoint pieces with :func:`sum_reductions`, and derive the report
    with :func:`derive_report`.

    Parameters
    ----------
    frame
        The predictions.
    spec
        The report's parameters.
    shared
        Read one cached copy of the source, so that collecting the reductions
        together reads it once whatever the source (Polars itself merges equal scans
        of files, not of every source).
    check
        Check every derivation's parameters now (default), or leave them to
        :func:`derive_report` (for code that builds many reductions and derives once).

    Returns
    -------
    list of LazyFrame
        The reductions, in the order :func:`derive_report` expects them.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> df = pl.DataFrame({"g": ["x", "y"], "y": [1, 0], "p": [1, 1]})
    >>> spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
    >>> [r.collect_schema().names() for r in pf.report_reductions(df, spec)]
    [['g', 'n', 'tp', 'fp', 'fn', 'tn', 'n_null']]
    """
    lf = ensure_lazy(frame)
    return _distinct(report_plans(lf.cache() if shared else lf, spec, check=check))


def _derive(
    spec: ReportSpec,
    plans: Mapping[str, Plan],
    reductions: Sequence[pl.DataFrame],
    caught_before: Sequence[warnings.WarningMessage] = (),
    flags: _Flags | None = None,
) -> FairnessReport:
    distinct = _distinct(plans)
    check_reductions(distinct, reductions)
    table_of = {id(lf): t for lf, t in zip(distinct, reductions, strict=True)}
    # on small tables without the optimiser's passes (see `derive_opts`)
    engine = derive_engine(max(t.height for t in reductions))
    opts = derive_opts(engine)
    # the eager path warns like ``df.fair.<method>``: the derivations' checks (a lone
    # group, cancelling sums, ...) run on the collected tables as they are built
    # (`Plan.derive`) and warn under `eager_warnings`, each warning once
    with (
        eager_warnings(),
        warnings.catch_warnings(record=True) as caught,
        ThreadPoolExecutor(_derive_threads(len(plans))) as pool,
    ):
        warnings.simplefilter("always")
        # each derivation is collected on a worker as soon as it is built: Polars plans
        # a query on the calling thread, and a derivation from a small table costs
        # mostly planning, so the tables are planned side by side, and while the next
        # is built (`pl.collect_all` plans them one after another)
        built: dict[
            str, tuple[list[warnings.WarningMessage], Exception | None, Future[pl.DataFrame] | None]
        ] = {}
        for name, build in _derive_all(
            plans, table_of, flags, compared_rows(spec.min_group_size, spec.frequency_weights)
        ):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    lf = build()
                except Exception as error:  # raised below, in plan order
                    built[name] = (seen, error, None)
                    continue
            built[name] = (seen, None, pool.submit(lf.collect, engine=engine, optimizations=opts))
        # in plan order: each table's warnings, and the first table's error, as if the
        # tables were built one after another
        tables: dict[str, pl.DataFrame] = {}
        for name in plans:
            seen, failed, future = built[name]
            caught.extend(seen)
            if failed is not None:
                raise failed
            assert future is not None  # built without error: submitted
            tables[name] = future.result()
    warn_each_once([*caught_before, *caught])
    tables = with_auc_rows(tables, spec.criteria, spec.by)
    shown = _shown(spec)
    return FairnessReport(**tables, params=shown)


#: The most workers that collect a report's derivations (see :func:`_derive`).
_DERIVE_THREADS = 4


def _derive_threads(tables: int) -> int:
    """Workers for `tables` derivations: no more than Polars has threads.

    More collects at once than cores only share them: on 2 cores, 2 workers ran the
    report in 0.93-0.95 of the time of 4.
    """
    return max(1, min(tables, _DERIVE_THREADS, pl.thread_pool_size()))


#: The tables whose derivations are built first: the costliest to plan and run.
_BUILT_FIRST = ("summary",)

#: The prefix of the undefined-rate flag columns collected with the reductions.
_FLAG = "__pf_flag_"

#: Per table, the rates its warnings check; per reduction (by ``id``), which are null
#: somewhere (see :func:`_undefined_flags`).
_Flags = tuple[dict[str, list[str]], dict[int, dict[str, bool]]]


def _derive_all(
    plans: Mapping[str, Plan],
    table_of: Mapping[int, pl.DataFrame],
    flags: _Flags | None = None,
    listed: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
) -> Iterator[tuple[str, Callable[[], pl.LazyFrame]]]:
    """Each plan's derivation over its collected reduction, with its warnings.

    Yields ``(name, build)``: `build` checks the rows, warns and returns the
    derivation. The costliest build (the summary's, :data:`_BUILT_FIRST`) comes first,
    so that its query is collected on a worker while the others are built; which
    table gives which warning is decided in plan order (see :func:`_derive`).

    Tables that read the same reduction and warn about the same rates give the same
    warnings: those are looked for once (`flags`, collected with the reductions, or
    here, one small collect per reduction).
    """
    warned: set[tuple[Any, ...]] = set()
    rates_of, found_of = _undefined_flags(plans, table_of) if flags is None else flags
    builds: dict[str, Callable[[], pl.LazyFrame]] = {}
    for name, plan in plans.items():
        table = table_of[id(plan.reduction)]
        measures = None if plan.measures is None else tuple(plan.measures)
        key = (
            id(plan.reduction), plan.keys, measures, plan.zero_division, plan.warn_rows,
            plan.inspect_table,
        )  # fmt: skip
        found = found_of.get(id(plan.reduction))
        if key in warned:
            builds[name] = partial(plan.derive, table, warn=False)
        elif name in rates_of and found is not None and table.height:
            builds[name] = partial(
                _flagged_derive, plan, table, [found[m] for m in rates_of[name]], listed
            )
        else:
            builds[name] = partial(_flagged_derive, plan, table, None, listed)
        warned.add(key)
    first = [name for name in _BUILT_FIRST if name in builds]
    for name in [*first, *(n for n in builds if n not in first)]:
        yield name, builds[name]


def _flagged_derive(
    plan: Plan,
    table: pl.DataFrame,
    undefined: list[bool] | None,
    listed: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
) -> pl.LazyFrame:
    """:meth:`Plan.derive` with the undefined-rate flags found with the reductions.

    `listed`: the groups the undefined-rate warnings name (see ``compared_rows``).
    """
    require_rows(table, plan.build)
    plan.warn(table, undefined, listed)
    return plan.derive(table, warn=False)


def _rates_checked(
    plans: Mapping[str, Plan], names_of: Callable[[Plan], list[str]]
) -> tuple[dict[str, list[str]], dict[int, dict[str, pl.Expr]]]:
    """The rates each table's warnings check and, per reduction, their expressions.

    A rate's expression depends on the column names alone (`names_of` a plan's
    reduction). Tables left out (their warnings read other rows) look for themselves.
    """
    rates_of: dict[str, list[str]] = {}
    wanted: dict[int, dict[str, pl.Expr]] = {}
    for name, plan in plans.items():
        if plan.warn_rows is not None:
            continue
        try:
            rates = undefined_rates(names_of(plan), plan.measures, plan.zero_division)
        except ValueError:  # the table's own checks say why, in their order
            continue
        rates_of[name] = [m for m, _ in rates]
        wanted.setdefault(id(plan.reduction), {}).update(rates)
    return rates_of, wanted


def _undefined_flags(plans: Mapping[str, Plan], table_of: Mapping[int, pl.DataFrame]) -> _Flags:
    """The rates each table's warnings check and, per reduction, which are null somewhere.

    One select per reduction for the rates of all its tables, instead of one per
    table. An empty reduction's tables look for themselves.
    """
    rates_of, wanted = _rates_checked(plans, lambda plan: table_of[id(plan.reduction)].columns)
    flags: dict[int, dict[str, bool]] = {}
    for key, exprs in wanted.items():
        table = table_of[key]
        if not table.height:
            continue
        flagged = table.lazy().select(e.is_null().any().alias(m) for m, e in exprs.items())
        # a few rows: no optimiser passes (see `derive_opts`)
        opts = derive_opts("in-memory")
        row = flagged.collect(engine="in-memory", optimizations=opts).row(0) if exprs else ()
        flags[key] = dict(zip(exprs, row, strict=True))
    return rates_of, flags


def _with_flags(
    plans: Mapping[str, Plan], reductions: Sequence[pl.LazyFrame]
) -> tuple[list[pl.LazyFrame], Callable[[list[pl.DataFrame]], tuple[list[pl.DataFrame], _Flags]]]:
    """The reductions with the undefined-rate flags of :func:`_undefined_flags` added.

    Collected with the reductions (one collect less); returns the flagged plans and
    the function that splits their collected tables into the reductions and flags.
    """
    rates_of, wanted = _rates_checked(plans, lambda plan: plan.schema.names())
    names = [list(wanted.get(id(r), {})) for r in reductions]
    flagged = [
        r.with_columns(e.is_null().any().alias(f"{_FLAG}{m}") for m, e in wanted[id(r)].items())
        if id(r) in wanted and wanted[id(r)] else r
        for r in reductions
    ]  # fmt: skip

    def split(tables: list[pl.DataFrame]) -> tuple[list[pl.DataFrame], _Flags]:
        found: dict[int, dict[str, bool]] = {}
        plain = []
        for r, table, ms in zip(reductions, tables, names, strict=True):
            if not ms:
                plain.append(table)
                continue
            if table.height:
                row = table.row(0, named=True)
                found[id(r)] = {m: row[f"{_FLAG}{m}"] for m in ms}
            plain.append(table[table.columns[: table.width - len(ms)]])  # flags come last
        return plain, (rates_of, found)

    return flagged, split


def _shown(spec: ReportSpec) -> dict[str, Any]:
    """The report's parameters as shown in its outputs (column expressions as text)."""
    shown = {k: (_name(v) if k in _COLUMNS else v) for k, v in spec.to_dict().items()}
    if spec.slices is None:  # the slice parameters are recorded only when asked for
        for name in _SLICE_PARAMS:
            del shown[name]
    return shown


def derive_report(
    spec: ReportSpec,
    reductions: Sequence[pl.DataFrame],
    schema: Mapping[str, pl.DataType] | pl.Schema,
) -> FairnessReport:
    """
    The report from its collected reductions alone (no data is read).

    Parameters
    ----------
    spec
        The report's parameters.
    reductions
        The collected :func:`report_reductions` (of the whole data, or summed over
        its pieces with :func:`sum_reductions`).
    schema
        The schema of the predictions (the plans are built on an empty frame of it).

    Returns
    -------
    FairnessReport
        The same report as ``frame.fair.report(...)`` over the data.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> a = pl.DataFrame({"g": ["x", "x", "y", "y"], "y": [1, 0, 1, 0], "p": [1, 0, 0, 1]})
    >>> b = pl.DataFrame({"g": ["x", "x", "y", "y"], "y": [0, 1, 0, 1], "p": [1, 0, 1, 0]})
    >>> spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
    >>> parts = [pl.collect_all(pf.report_reductions(f, spec)) for f in (a, b)]
    >>> report = pf.derive_report(spec, pf.sum_reductions(*parts), a.schema)
    >>> report.by_group.select("g", "n", "tp", "fp")
    shape: (2, 4)
    ┌─────┬─────┬─────┬─────┐
    │ g   ┆ n   ┆ tp  ┆ fp  │
    │ --- ┆ --- ┆ --- ┆ --- │
    │ str ┆ i64 ┆ i64 ┆ i64 │
    ╞═════╪═════╪═════╪═════╡
    │ x   ┆ 4   ┆ 1   ┆ 1   │
    │ y   ┆ 4   ┆ 0   ┆ 2   │
    └─────┴─────┴─────┴─────┘
    """
    check_spec(spec, ReportSpec)
    plans = report_plans(pl.LazyFrame(schema=schema), spec, check=False)  # checked as derived
    return _derive(spec, plans, reductions)


def sum_reductions(*parts: Sequence[pl.DataFrame]) -> list[pl.DataFrame]:
    """
    Sum the report reductions of disjoint pieces of the data, position by position.

    Every reduction is additive (:func:`~polars_fair.reduce.merge_group_stats`), so
    the reductions of files or partitions, summed, are those of their union.

    Parameters
    ----------
    *parts
        For each piece, its collected :func:`report_reductions` (same spec).

    Returns
    -------
    list of DataFrame
        The summed reductions, in the same order.

    Raises
    ------
    InvalidParameterError
        When a reduction bins a numeric slice candidate (``ReportSpec.slices``) into
        quantiles: the bins of each piece differ, so such reductions do not add up.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> a = pl.DataFrame({"g": ["x", "y"], "y": [1, 0], "p": [1, 1]})
    >>> b = pl.DataFrame({"g": ["x", "y"], "y": [0, 1], "p": [0, 1]})
    >>> spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
    >>> pieces = [pl.collect_all(pf.report_reductions(f, spec)) for f in (a, b)]
    >>> whole = pl.collect_all(pf.report_reductions(pl.concat([a, b]), spec))
    >>> all(s.equals(w) for s, w in zip(pf.sum_reductions(*pieces), whole))
    True
    """
    check_pieces(parts)
    return [_merge(tables) for tables in zip(*parts, strict=True)]


def _merge(tables: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Sum one reduction over the pieces (statistics tables, or regression sums)."""
    keys = [c for c in stats_keys(tables[0]) if c not in REGRESSION_SUMS]
    binned = [c for c in keys if isinstance(tables[0].schema[c], pl.Struct)]
    if binned:
        msg = (
            f"the reductions bin the numeric slice candidate(s) {binned} into quantiles of "
            "each piece, which do not add up across pieces\n\nHint: bin them over all the "
            "data first (or cast a numeric code to `pl.String`), or collect the "
            "reductions over the whole data at once"
        )
        raise InvalidParameterError(msg)
    if keys == stats_keys(tables[0]):
        return merge_group_stats(*tables).collect()
    sums = [c for c in tables[0].columns if c not in keys]
    merged = pl.concat(tables, how="vertical").group_by(keys).agg(pl.col(sums).sum())
    return merged.sort(keys, nulls_last=True)


def _name(column: IntoColumn | None) -> str | None:
    """A column as the report's parameters show it: its name, or an expression readably.

    ``pl.col("decile_score") >= 5`` shows as ``decile_score >= 5`` (see
    :func:`~polars_fair.report._text.readable_expr`), not Polars' repr.
    """
    if column is None or isinstance(column, str):
        return column
    return readable_expr(str(column))


class ReportMethods(NamespaceBase[TableT, ScalarT]):
    """The report: many tables from one read of the data."""

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
        slices: Sequence[str] | None = None,
        max_depth: int = 2,
        slice_metric: str = "false_positive_rate",
        verdict_rule: str = "interval",
        frequency_weights: bool = False,
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
            The reference group (a value, tuple or dict). If None, ``disparities``
            and ``tradeoffs`` compare with the largest group while the summary (its
            verdicts, the gates) compares between groups: the pair farthest apart.
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
            Groups whose effective size is below this are flagged in ``by_group``
            and left out of the summary's criteria (listed in ``excluded``).
        n_bins
            Calibration bins (with `y_prob`).
        zero_division
            None keeps undefined rates null; a float replaces them.
        slices
            Candidate attributes for slice discovery (:meth:`slices`): adds the
            ``slices`` table, every slice of up to `max_depth` of them against the rest
            on `slice_metric`, with ``min_size=min_group_size`` and
            ``alpha=1 - confidence_level`` and the ``"finest"`` strategy (its reduction
            is collected with the report's others, in the same read of the source);
            significant slices are release-gate failures
            (:meth:`FairnessReport.slice_failures`).
        max_depth
            Largest number of attributes in a slice.
        slice_metric
            The rate (or mean) the slices are compared on.
        verdict_rule
            ``"interval"`` (default: judge the interval) or ``"point"``.
        frequency_weights
            Read `sample_weight` as row counts instead of sampling weights.

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
        >>> report.summary.select("criterion", "verdict").head(2)  # 5 rows a group: unsure
        shape: (2, 2)
        ┌───────────────────────────────┬──────────────┐
        │ criterion                     ┆ verdict      │
        │ ---                           ┆ ---          │
        │ str                           ┆ enum         │
        ╞═══════════════════════════════╪══════════════╡
        │ demographic_parity_difference ┆ inconclusive │
        │ disparate_impact_ratio        ┆ inconclusive │
        └───────────────────────────────┴──────────────┘
        """
        spec = ReportSpec.of(
            y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, y_prob=y_prob,
            by=by, sample_weight=sample_weight, pos_label=pos_label,
            reference_group=reference_group, method=method, criteria=criteria,
            confidence_level=confidence_level, difference_band=difference_band,
            ratio_band=ratio_band, min_group_size=min_group_size, n_bins=n_bins,
            zero_division=zero_division, slices=slices, max_depth=max_depth,
            slice_metric=slice_metric, verdict_rule=verdict_rule,
            frequency_weights=frequency_weights,
        )  # fmt: skip
        # the plans read one cached copy of the source: one read for all reductions
        # (collecting the derivations in the same call costs more than it saves)
        small = isinstance(self._frame, pl.DataFrame) and self._frame.height <= SMALL_TABLE_ROWS
        # a small frame costs nothing to read: its parameters are checked as the tables
        # are derived, rather than on plans built only to check them
        plans = report_plans(ensure_lazy(self._frame).cache(), spec, check=not small)
        reductions = _distinct(plans)
        engine: EngineType = "in-memory" if small else "auto"
        flagged, split = _with_flags(plans, reductions)
        with eager_warnings(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # the reductions' checks (e.g. `pos_label`)
            collected, flags = split(
                reading_input(self._frame, lambda: pl.collect_all(flagged, engine=engine))
            )
        return _derive(spec, plans, collected, caught, flags)
