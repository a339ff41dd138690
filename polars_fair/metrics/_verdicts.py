"""Fair bands, verdicts, criterion intervals and the one-row-per-criterion summary.

Every criterion has an ideal value and a fair band:

* differences (and Cohen's d, the 2-SD z): ideal 0, fair when ``|value| <= band``
  (0.1 by default; 0.2 for Cohen's d, Cohen's "small" effect; 2 for the z of the
  2-SD rule);
* ratios (and the four-fifths rule): ideal 1, fair inside ``[0.8, 1.25]`` by
  default (Aequitas' tau; ``1.25 = 1 / 0.8``).

How the summary judges (one row per criterion and batch key):

1. *Effective sizes.* With weights, each group's counts are rescaled to its Kish
   effective size ``n_eff = (sum w)**2 / sum w**2`` (``n**2 / sum_w2`` from the
   statistics table): rates are unchanged, sizes, intervals and tests then mean
   what they mean for unweighted data, and rescaling every weight by a constant
   changes nothing. ``frequency_weights=True`` reads weights as row counts instead.
2. *Small groups out.* Groups with ``n_eff < min_group_size`` are left out of the
   criteria and listed in ``excluded``.
3. *One orientation.* ``method="to_reference"``: each criterion is signed against
   the reference (``g - ref``, ``g / ref``, the group farthest from it);
   ``"between_groups"``: ``max - min`` and ``min / max`` for every criterion,
   the statistics (Cohen's d, 2-SD z, four-fifths) included.
4. *The pair compared.* ``group`` / ``group_n`` and ``compared_with`` /
   ``compared_n`` name the groups whose comparison gives the value (for a
   composite, the pair of its worst part, or of the larger part of
   ``average_abs_odds_difference`` between groups) and their effective sizes
   (:mod:`~polars_fair.metrics._picks`).
5. *An interval for each criterion* (``interval_method``; see
   :data:`~polars_fair.metrics._registry.INTERVAL_METHODS`).
6. *Verdict.* ``verdict_rule="interval"`` (default): ``fair`` when the whole
   interval lies inside the band, ``unfair`` when it lies wholly outside,
   ``inconclusive`` otherwise; ``"point"`` judges the point value. ``undefined``
   without a value or with fewer than two groups compared; ``note`` says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import polars as pl

from polars_fair._utils import built_once, part_number, per_key, stack
from polars_fair._validate import SUMMARY_COLUMNS, check_table_keys
from polars_fair.metrics._criteria import criteria_wide, criterion_table
from polars_fair.metrics._intervals import kish_factor, large_enough, normal_two_sided_p
from polars_fair.metrics._picks import (
    EXTREMES,
    LABEL,
    NAMED,
    NEFF,
    ODDS,
    OVERALL,
    PICK,
    PP_RAW,
    SQUARES,
    STATISTICS,
    pick_table,
    statistic_from_pair,
    worst_pick,
)
from polars_fair.metrics._rates import Counts
from polars_fair.metrics._registry import CRITERIA
from polars_fair.metrics._score_intervals import (
    SCORE_INTERVALS,
    score_interval_method,
)
from polars_fair.metrics._statistics import statistic_table
from polars_fair.metrics._summary_bootstrap import N_RAW, bootstrap_intervals
from polars_fair.metrics._summary_bounds import (
    INTERVAL_ORDER,
    PART_METHODS,
    mean_part_distances,
    part_distances,
    summary_bounds,
)
from polars_fair.metrics._summary_notes import (
    REF_NOTE as _REF_NOTE,
)
from polars_fair.metrics._summary_notes import (
    VERDICT_DTYPE,
    left_out_verdicts,
    reference_left_out,
    small_size_text,
)
from polars_fair.metrics._summary_notes import (
    verdict_columns as _verdict,
)
from polars_fair.reduce import CELL_WEIGHT_SQUARES, WEIGHT_SQUARES

__all__ = [
    "VERDICT_DTYPE",
    "VERDICT_RULES",
    "Bands",
    "criteria_long",
    "criterion_value_table",
    "effective_counts",
    "group_label",
    "summary_table",
]

#: The intervals of a single proportion (or of treatment equality's FN / FP) against the
#: whole population.
OVERALL_METHODS = tuple(m for m in INTERVAL_ORDER if m.endswith("_overall"))
#: How verdicts are reached.
VERDICT_RULES = ("interval", "point")
#: Count columns rescaled to effective counts.
_SCALED = (
    "n", "tp", "fp", "fn", "tn", "pred_pos", "pred_neg", "pos", "neg",
    "sum_prob_pos", "sum_prob_neg", "sum_prob", "sum_prob2_pos", "sum_prob2_neg", "sum_prob2",
)  # fmt: skip


@dataclass(frozen=True)
class Bands:
    """The fair bands (configurable in ``summary``)."""

    difference: float = 0.1
    ratio: tuple[float, float] = (0.8, 1.25)
    cohen_d: float = 0.2
    z: float = 2.0
    four_fifths: float = 0.8

    def of(self, name: str) -> tuple[float, float, float]:
        """``(ideal, fair_low, fair_high)`` of criterion `name`."""
        band = CRITERIA[name].band
        if band == "four_fifths":
            return 1.0, self.four_fifths, 1 / self.four_fifths
        if band == "cohen_d":
            return 0.0, -self.cohen_d, self.cohen_d
        if band == "z":
            return 0.0, -self.z, self.z
        if band == "ratio":
            return 1.0, self.ratio[0], self.ratio[1]
        return 0.0, -self.difference, self.difference


def criterion_value_table(
    stats: pl.LazyFrame,
    *,
    name: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
    signed: bool = False,
) -> pl.LazyFrame:
    """One row per batch key with the value of criterion `name` (column `name`).

    `signed` (the summary): the statistics follow the audit's orientation, between
    the most and least selected groups without a reference (``method`` other than
    ``"to_reference"``), signed against the reference with one.
    """
    spec = CRITERIA[name]
    if spec.kind == "statistic":
        if signed:
            ref = reference if method == "to_reference" else None
        else:
            ref = None if (name == "four_fifths_rule" and method != "to_reference") else reference
        return statistic_table(
            stats, name=name, by=by, sensitive=sensitive, reference=ref, signed=signed
        )
    return criterion_table(
        stats, name=name, measures=spec.measures, kind=spec.kind,  # type: ignore[arg-type]
        method=method, agg=spec.agg, by=by, sensitive=sensitive,
        reference=reference if reference is not None else "largest",
        zero_division=zero_division,
    )  # fmt: skip


def criteria_long(
    stats: pl.LazyFrame,
    *,
    criteria: Sequence[str],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
    signed: bool = False,
) -> pl.LazyFrame:
    """Several criteria as a long table ``by…, criterion, value`` (criteria in order)."""
    check_table_keys("criteria_long", by)
    parts = [
        criterion_value_table(
            stats, name=name, method=method, by=by, sensitive=sensitive, reference=reference,
            zero_division=zero_division, signed=signed,
        ).select(*by, pl.lit(name).alias("criterion"), pl.col(name).alias("value"))
        for name in criteria
    ]  # fmt: skip
    return stack(parts)


def effective_counts(stats: pl.LazyFrame, *, frequency_weights: bool = False) -> pl.LazyFrame:
    """The statistics table with each group's counts rescaled to its effective size.

    Adds the effective size as a column (``n`` itself without weights). With a
    ``sum_w2`` column (a weighted table) and `frequency_weights` False, every count
    of a group is multiplied by ``n / sum_w2``, so that ``n`` becomes the Kish
    effective size ``n**2 / sum_w2`` and the rates stay the same.
    """
    names = stats.collect_schema().names()
    if WEIGHT_SQUARES in names and not frequency_weights:
        # a share of all predicted positives is not kept by per-group rescaling: the
        # weighted predicted positives as given, for the picks' values
        stats = stats.with_columns(
            Counts.from_columns(names).PP().alias(PP_RAW), pl.col("n").alias(N_RAW)
        )
        factor = kish_factor(pl.col("n"), pl.col(WEIGHT_SQUARES))
        stats = stats.with_columns(
            *[(pl.col(c) * factor).alias(c) for c in _SCALED if c in names],
            # the cells' squared weights by the factor squared: a rate's own effective
            # size (``effective_fraction``) is then unchanged
            *[(pl.col(c) * factor * factor).alias(c) for c in CELL_WEIGHT_SQUARES if c in names],
        )
    elif frequency_weights:  # the weight sums are the sizes: no rate's own effective size
        stats = stats.drop(CELL_WEIGHT_SQUARES, strict=False)
    return stats.with_columns(pl.col("n").cast(pl.Float64).alias(NEFF))


def group_label(sensitive: Sequence[str]) -> pl.Expr:
    """A group's name as text: its values joined with ``" / "``."""
    parts = [pl.col(c).cast(pl.String).fill_null("null") for c in sensitive]
    label = parts[0] if len(parts) == 1 else pl.concat_str(parts, separator=" / ")
    return label.alias(LABEL)


def _attach_all(base: pl.LazyFrame, parts: list[pl.LazyFrame], by: list[str]) -> pl.LazyFrame:
    """`base` (the batch keys) with the columns of each part, matched on the keys."""
    if by:
        for part in parts:
            base = base.join(part, on=by, how="left", nulls_equal=True, maintain_order="left")
        return base
    # one row each: aggregations without keys (a shorter part would be padded with nulls)
    return pl.concat([base, *parts], how="horizontal")


def _part_inputs(
    by: tuple[str, ...], name: str, slot: int, how: str, extremes: bool, boot: bool
) -> tuple[str | pl.Expr, ...]:
    """One criterion's columns of the wide row, under the names its part reads."""
    squares = SQUARES if how in SCORE_INTERVALS else ()
    odds = ODDS if how == "mover_average" else OVERALL if how in OVERALL_METHODS else ()
    picked = [*PICK, *squares, *odds, *(EXTREMES if extremes else ())]
    value = () if name in STATISTICS else (pl.col(f"__pf_value@{name}"),)
    distances = (
        (pl.col(f"__pf_d{k}_{name}").alias(f"__pf_d{k}") for k in ("low", "high")) if boot else ()
    )
    return (
        *by,
        *(pl.col(f"__pf_{k}@{slot}").alias(f"__pf_{k}") for k in picked),
        *(v.alias("value") for v in value),
        *distances,
        "n_groups",
        "excluded",
        _REF_NOTE,
    )


def summary_table(
    stats: pl.LazyFrame,
    *,
    criteria: Sequence[str],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
    z: float,
    bands: Bands,
    min_group_size: float,
    verdict_rule: str = "interval",
    frequency_weights: bool = False,
    confidence_level: float = 0.95,
) -> pl.LazyFrame:
    """One row per (batch key, criterion): value, band, verdict, interval, the pair compared.

    See the module docstring for the rules.
    """
    check_table_keys("summary", by)
    stats = stats.cache()  # every part reads the same (small) table: one read
    ref = reference if reference is not None else "largest"
    label = group_label(sensitive)
    eff = effective_counts(stats, frequency_weights=frequency_weights).with_columns(label)
    eff = eff.cache()
    big = large_enough(pl.col(NEFF), min_group_size)
    helpers = [NEFF, LABEL]
    # values from the weights as given (the point estimates); sizes, intervals and
    # tests from the effective counts
    n_eff = (
        (pl.col("n").cast(pl.Float64) ** 2 / pl.col(WEIGHT_SQUARES))
        if WEIGHT_SQUARES in stats.collect_schema().names() and not frequency_weights
        else pl.col("n").cast(pl.Float64)
    )
    kept_values = stats.filter(large_enough(n_eff, min_group_size)).cache()
    kept = eff.filter(big).cache()
    kept_names = kept.collect_schema().names()
    kept_counts = kept.drop(helpers)
    keys = (
        stats.select(by).unique().sort(by, nulls_last=True)
        if by
        else pl.LazyFrame({"__pf_one": [1]})
    )
    excluded_text = pl.format("{} (n={})", pl.col(LABEL), small_size_text(pl.col(NEFF)))
    groups_info = per_key(
        eff,
        [
            big.sum().cast(pl.Int64).alias("n_groups"),
            excluded_text.filter(~big).str.join("; ").alias("excluded"),
            reference_left_out(method, ref, by, sensitive, min_group_size, LABEL, NEFF),
        ],
        by,
    )
    groups_info = groups_info.with_columns(
        pl.when(pl.col("excluded") == "").then(None).otherwise(pl.col("excluded")).alias("excluded")
    )
    names = stats.collect_schema().names()
    # every part reads one wide row per key: the picks (one per measure compared a
    # way, or the worst of a composite's), the values, the bootstrap distances and
    # the groups compared, each computed once (one plan node per part, not a join
    # per input and part)
    inputs: list[pl.LazyFrame] = [groups_info]
    plain = [n for n in dict.fromkeys(criteria) if CRITERIA[n].kind != "statistic"]
    if plain:
        specs: list[tuple[str, Sequence[str], Any, str]] = [
            (n, CRITERIA[n].measures, CRITERIA[n].kind, CRITERIA[n].agg) for n in plain
        ]
        wide_values = criteria_wide(
            kept_values, specs=specs, method=method, by=by, sensitive=sensitive, reference=ref,
            zero_division=zero_division,
        )  # fmt: skip
        inputs.append(wide_values.select(*by, pl.col(plain).name.prefix("__pf_value@")))
    compared: list[tuple[tuple[str, str, str], ...]] = []  # each criterion's picks
    for name in criteria:
        spec = CRITERIA[name]
        stat_method = (
            method
            if spec.kind != "statistic"
            else ("to_reference" if method == "to_reference" else "between_groups")
        )
        kind = (
            "ratio"
            if name == "four_fifths_rule"
            else ("difference" if spec.kind == "statistic" else spec.kind)
        )
        if name in STATISTICS and stat_method == "to_reference":
            kind = name  # its own pick: the extremes are statistics
        if name == "average_abs_odds_difference" and method != "to_overall":
            compared.append((("average_abs_odds", kind, stat_method),))  # its own pick
            continue
        compared.append(tuple((m, kind, stat_method) for m in spec.measures))
    # one slot of the wide row (`@<slot>` columns) per distinct pick or composite; a
    # measure compared the same way in several slots is picked once (cached)
    slots = {keys_of: i for i, keys_of in enumerate(dict.fromkeys(compared))}
    uses = Counter(key for keys_of in slots for key in keys_of)
    picked: dict[tuple[str, str, str], pl.LazyFrame] = {}
    for key in uses:
        pick = pick_table(
            kept, names=kept_names, measure=key[0], kind=key[1], method=key[2], by=by,
            sensitive=sensitive, reference=ref,
        )  # fmt: skip
        picked[key] = pick.cache() if uses[key] > 1 else pick
    worst = {}
    for keys_of, slot in slots.items():
        against = keys_of[0][2] == "to_reference"
        composite = None
        if len(keys_of) > 1 and keys_of[0][2] != "to_overall":  # a composite's parts
            composite = part_distances(keys_of[0][1] == "ratio", _bonferroni_z(z, len(keys_of)))
        pick = worst_pick(
            [picked[key] for key in keys_of], by, with_extremes=against, parts=composite
        )
        if keys_of[0][0] == "average_abs_odds":  # the mean of its two parts' distances
            for stage in mean_part_distances(z):
                pick = pick.with_columns(stage)
        worst[keys_of] = pick = pick.cache()  # also read by the bootstrap
        inputs.append(pick.select(*by, pl.all().exclude(by).name.suffix(f"@{slot}")))
    boot = [name for name in criteria if _interval_method(name, method, names) == "bootstrap"]
    boot_table = None
    if boot:
        # each replicate compares the groups the row names (see _summary_bootstrap)
        named = [
            worst[keys_of].select(
                *by, *(pl.col(f"__pf_{k}").alias(f"__pf_{k}@{name}") for k in NAMED)
            )
            for name, keys_of in dict(zip(criteria, compared, strict=True)).items()
            if name in boot and name != "average_abs_odds_difference"
        ]
        pairs = (
            (_attach_all(keys, named, by) if by else pl.concat(named, how="horizontal"), label)
            if named
            else None
        )
        boot_table = bootstrap_intervals(
            kept_counts, criteria=boot, method=method, by=by, sensitive=sensitive,
            reference=ref, zero_division=zero_division, confidence_level=confidence_level,
            named=pairs,
        ).cache()  # fmt: skip
        inputs.append(boot_table)
    plan: list[tuple[str, int, str, bool]] = []  # name, slot, interval, own extremes
    valued = set(plain)  # criteria whose values the wide row holds (a name may repeat)
    for name, keys_of in zip(criteria, compared, strict=True):
        spec = CRITERIA[name]
        if name not in valued and name not in STATISTICS:
            valued.add(name)
            value = criterion_value_table(
                kept_values, name=name, method=method, by=by, sensitive=sensitive,
                reference=ref, zero_division=zero_division, signed=True,
            )  # fmt: skip
            inputs.append(value.select(*by, pl.col(name).alias(f"__pf_value@{name}")))
        # the picks' own extremes (comparisons with the reference: over every part of
        # a composite, each group's statistic for Cohen's d and the 2-SD rule); the
        # average of absolute odds differences: its value is the one extreme
        extremes = keys_of[0][2] == "to_reference" and name != "average_abs_odds_difference"
        plan.append((name, slots[keys_of], _interval_method(name, method, names), extremes))
    row = _attach_all(keys, inputs, by).cache()
    parts = []
    for i, (name, slot, how, extremes) in enumerate(plan):
        boot_part = how == "bootstrap" and boot_table is not None
        ideal, low, high = bands.of(name)
        args = (
            tuple(by), name, how, ideal, low, high, extremes, boot_part,
            CRITERIA[name].kind == "ratio", i,
        )  # fmt: skip
        if name in STATISTICS:  # the value from the pair's counts
            taken = built_once(_part_inputs, tuple(by), name, slot, how, extremes, boot_part)
            part = row.select(taken)
            for pair_stage in built_once(statistic_from_pair, name):
                part = part.with_columns(pair_stage)
            parts.append(part.select(built_once(_part_columns, *args, None)))
        else:  # one select of the wide row
            parts.append(row.select(built_once(_part_columns, *args, slot)))
    # by keys first, criteria in the order asked for within each key
    table = stack(parts, by, numbered=True)
    methods = tuple(dict.fromkeys(_interval_method(n, method, names) for n in criteria))
    bound_stages, bounds = built_once(summary_bounds, z, methods, method)
    for bound_stage in bound_stages:
        table = table.with_columns(bound_stage)
    table = table.with_columns(bounds)
    smallest = pl.min_horizontal("group_n", "compared_n").alias("min_group_n")
    return (
        table.with_columns(built_once(_verdict, verdict_rule, method))
        .with_columns(built_once(left_out_verdicts))
        .select(*by, *(smallest if c == "min_group_n" else c for c in SUMMARY_COLUMNS))
    )


def _part_columns(
    by: tuple[str, ...],
    name: str,
    how: str,
    ideal: float,
    low: float,
    high: float,
    extremes: bool,
    boot: bool,
    ratio: bool,
    number: int,
    slot: int | None,
) -> tuple[str | pl.Expr, ...]:
    """The columns of one criterion's part of the summary, before the intervals.

    Read from the wide row's columns of pick `slot` (``__pf_<k>@<slot>``,
    ``__pf_value@<name>``, ``__pf_d<low|high>_<name>``), or, with `slot` None, from
    the part's own (:func:`_part_inputs`, and its ``value``). `number` is the part's
    index (see :func:`~polars_fair._utils.stack`).
    """

    def pick(k: str) -> pl.Expr:
        return pl.col(f"__pf_{k}" if slot is None else f"__pf_{k}@{slot}").alias(f"__pf_{k}")

    value = pl.col("value" if slot is None else f"__pf_value@{name}")
    p_value = normal_two_sided_p(value) if name == "two_sd_rule" else pl.lit(None, dtype=pl.Float64)
    if boot:
        own = slot is None
        distances = [
            pl.col(f"__pf_d{k}" if own else f"__pf_d{k}_{name}").alias(f"__pf_d{k}")
            for k in ("low", "high")
        ]
    elif how in PART_METHODS:
        distances = [pick(f"p{k}").alias(f"__pf_d{k}") for k in ("low", "high")]
    else:
        distances = [pl.lit(None, dtype=pl.Float64).alias(f"__pf_d{k}") for k in ("low", "high")]
    value = value.cast(pl.Float64).alias("value")
    return (
        *by,
        pl.lit(name).alias("criterion"),
        value,
        pl.lit(ideal).alias("ideal"),
        pl.lit(low).alias("fair_low"),
        pl.lit(high).alias("fair_high"),
        pl.lit(how).alias("interval_method"),
        p_value.alias("p_value"),
        pick("group").alias("group"),
        pick("group_n").alias("group_n"),
        pick("compared_with").alias("compared_with"),
        pick("compared_n").alias("compared_n"),
        *_extremes(extremes, pick, value),
        *(pick(k) for k in ("x1", "m1", "x2", "m2")),
        *_second_numbers(how, pick),
        *distances,
        pl.lit(ratio).alias("__pf_ratio"),
        pl.col("n_groups").fill_null(0),
        "excluded",
        _REF_NOTE,
        part_number(number),
    )


def _second_numbers(how: str, pick: Callable[[str], pl.Expr]) -> list[pl.Expr]:
    """A pick's second numbers of both sides, null where interval `how` reads none.

    A mean score's sums of squares (``q1``, ``q2``) and the second proportion's counts
    of a mean of two (:data:`ODDS`: average odds' FPR, balanced accuracy's TNR): every
    part of the stacked summary has all the columns.
    """
    taken = set(
        SQUARES if how in SCORE_INTERVALS
        else ODDS if how == "mover_average" else OVERALL if how in OVERALL_METHODS else ()
    )  # fmt: skip
    return [
        pick(k) if k in taken else pl.lit(None, dtype=pl.Float64).alias(f"__pf_{k}")
        for k in (*SQUARES, *ODDS, *OVERALL)
    ]


def _extremes(own: bool, pick: Callable[[str], pl.Expr], value: pl.Expr) -> list[pl.Expr]:
    """The lowest / highest comparison columns: the pick's `own`, or from the value."""
    if own:
        return [pick(k).alias(k) for k in EXTREMES]
    group, group_n = pick("group"), pick("group_n")
    return [
        value.alias("lowest"), group.alias("lowest_group"), group_n.alias("lowest_n"),
        value.alias("highest"), group.alias("highest_group"), group_n.alias("highest_n"),
    ]  # fmt: skip


def _interval_method(name: str, method: str, names: Sequence[str] | None = None) -> str:
    """The interval of criterion `name` under `method` (see ``INTERVAL_METHODS``).

    `names`: the statistics table's columns (a score criterion's interval needs its
    sums of squares).
    """
    spec = CRITERIA[name]
    interval = spec.interval or "none"  # every summary criterion names one
    if interval == "none":
        return "none"
    if interval in SCORE_INTERVALS:
        return score_interval_method(interval, method, names)
    if spec.kind == "statistic":
        return interval
    if method == "to_overall":  # a single proportion through the rest of the population
        # (treatment equality's FN / FP too: the population's is a mix of the group's
        # and the rest's, weighted by the shares of FP, as a proportion's)
        single = f"{interval}_overall" in OVERALL_METHODS and len(spec.measures) == 1
        return f"{interval}_overall" if single else "bootstrap"
    if len(spec.measures) > 1 and interval not in PART_METHODS:
        return "bootstrap"
    return interval


def _bonferroni_z(z: float, parts: int) -> float:
    """The normal quantile for each of `parts` intervals sharing the tails of `z`."""
    tail = 1 - NormalDist().cdf(z)
    return NormalDist().inv_cdf(1 - tail / parts)
