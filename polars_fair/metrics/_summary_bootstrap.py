"""The summary's bootstrap: intervals for the criteria without a closed form.

Each kept group's (effective) cells are redrawn from their exact shares, 1,000 times,
seeded, inside the plan (:func:`~polars_fair.metrics._bootstrap.resample_stats`);
every criterion is computed per replicate, and its interval is the percentile
interval of the distance from the ideal (``|d|``, or ``|log r|`` for ratios), which
the summary signs like the value.

**The named comparison.** Each replicate compares the groups the summary row names
(its ``group`` and ``compared_with``: the farthest group and the reference or the
whole population, or the highest and lowest groups), not whichever groups are
farthest apart in that replicate. Re-choosing the extremes in every replicate gives
the interval of a maximum over many noisy comparisons, which lies above the truth:
with five groups of which none differs, it called ``equalized_odds_difference``
unfair in a quarter of COMPAS shuffles, ``treatment_equality_difference`` in nearly
all. The closed-form intervals (Newcombe, Katz) are those of the named pair too. A
composite (equalized odds) keeps the farthest of its parts for the named pair;
``average_abs_odds_difference`` with ``method="to_overall"`` (the only way it is
bootstrapped: elsewhere it has a closed form), whose parts may name different
groups, keeps re-choosing.

**Undefined rates.** A replicate in which a group's rate, defined on the data, is
undefined (the group drew no positives, say) is left out for the criteria reading
that rate: scored on the remaining groups it would pull the distance towards 0 and
make a criterion look fair on the evidence of one group. A criterion left out in
more than half of its replicates gets no interval (``inconclusive``). The losses are
marked on the drawn table with numpy (:func:`_mark_losses`), from each group's zero
pattern of cells, so the summary's plan gains no node.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_fair.metrics._bootstrap import REPLICATE, count_cells, resample_stats
from polars_fair.metrics._criteria import criteria_wide, log_distance
from polars_fair.metrics._rates import Counts, rate_expr
from polars_fair.metrics._registry import CRITERIA

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "MIN_DEFINED_SHARE",
    "bootstrap_intervals",
]

#: The summary's bootstrap (criteria with no closed-form interval): redraws, seed.
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
#: A bootstrap interval needs the criterion defined in at least this share of the
#: replicates (a rate left undefined in most redraws cannot be bounded).
MIN_DEFINED_SHARE = 0.5
#: A weighted statistics table's group sizes before the rescaling to effective sizes.
N_RAW = "__pf_n_raw"
_PATTERN = "__pf_pattern"
_SCALE = "__pf_scale"


def bootstrap_intervals(
    kept: pl.LazyFrame,
    *,
    criteria: Sequence[str],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    zero_division: float | None,
    confidence_level: float,
    named: tuple[pl.LazyFrame, pl.Expr] | None = None,
) -> pl.LazyFrame:
    """Bootstrap distances ``by…, __pf_dlow_<criterion>, __pf_dhigh_<criterion>…``.

    `named`: the groups each criterion's row names, one row per batch key with
    ``__pf_group@<criterion>`` and ``__pf_compared_with@<criterion>``, and the
    expression of a group's name; each replicate compares those groups only (see the
    module docstring). Criteria without columns there keep the extremes.

    Redraws the effective counts of the kept groups, inside the plan: each group's
    cells from their exact shares (a weighted cell of 0.3 effective rows is drawn
    now and then, not rounded away), its size rounded. A replicate in which a rate
    defined on the data is undefined (a group drew no positives, say) has no value
    for the criteria reading it (it is left out, not scored on the other groups);
    with fewer than :data:`MIN_DEFINED_SHARE` of the replicates left, a criterion
    gets no interval (inconclusive).
    """
    names = kept.collect_schema().names()
    cells = count_cells(names)
    unique = list(dict.fromkeys(criteria))
    # each group's zero pattern of cells (bit i: cell i > 0) decides which rates are
    # defined; carried through the redraw as a key
    pattern = pl.sum_horizontal(
        (pl.col(x) > 0).cast(pl.Int64) * (1 << i) for i, x in enumerate(cells)
    ).alias(_PATTERN)
    # a share of all predicted positives is not kept by the rescaling to effective
    # sizes: with weights, each redrawn group is scaled back to its weight total
    measures = {m for n in unique for m in CRITERIA[n].measures}
    scaled = "predicted_positive_share" in measures and N_RAW in names
    scale = pl.when(pl.col("n") > 0).then(pl.col(N_RAW) / pl.col("n")).otherwise(1.0)
    base = kept.select(
        *by, *sensitive, pattern, *([scale.alias(_SCALE)] if scaled else []), pl.col("n"),
        *(pl.col(x).cast(pl.Float64) for x in cells),
    )  # fmt: skip
    lost_names = [f"__pf_lost@{n}" for n in unique]
    mark = functools.partial(
        _mark_losses, cells=cells, criteria=tuple(unique), zero_division=zero_division,
        n_resamples=BOOTSTRAP_RESAMPLES, scaled=scaled,
    )  # fmt: skip
    added: dict[str, pl.DataType] = {name: pl.Boolean() for name in lost_names}
    if scaled:
        added.update({c: pl.Float64() for c in (*cells, "n")})
    reps = resample_stats(
        base,
        by=by,
        n_resamples=BOOTSTRAP_RESAMPLES,
        seed=BOOTSTRAP_SEED,
        scheme="stratified",
        seed_per_key=True,
        annotate=(mark, added),
    )
    # every criterion of every replicate in one aggregation over the replicates; the
    # losses, constant per replicate, grouped by too: carried along
    specs: list[tuple[str, Sequence[str], Any, str]] = [
        (n, CRITERIA[n].measures, CRITERIA[n].kind, CRITERIA[n].agg) for n in unique
    ]
    # a composite's parts, each its own criterion of the same pair (see `_spread`)
    parts = {n: _parts(n) for n in unique}
    specs += [
        (part, (m,), CRITERIA[n].kind, CRITERIA[n].agg)
        for n in unique for part, m in zip(parts[n], CRITERIA[n].measures, strict=False)
    ]  # fmt: skip
    masks: dict[str, str] = {}
    if named is not None:  # each replicate compares the groups the row names
        pairs, label = named
        masked = [n for n in unique if f"__pf_group@{n}" in pairs.collect_schema().names()]
        reps = (
            reps.join(pairs, on=by, how="left", nulls_equal=True)
            if by
            else reps.join(pairs, how="cross")
        )
        masks = {n: f"__pf_mask@{n}" for n in masked}
        masks.update({part: masks[n] for n in masked for part in parts[n]})
        name = pl.col(label.meta.output_name())
        reps = reps.with_columns(label).with_columns(
            ((name == pl.col(f"__pf_group@{n}")) | (name == pl.col(f"__pf_compared_with@{n}")))
            .fill_null(False)
            .alias(masks[n])
            for n in masked
        )
    wide = criteria_wide(
        reps, specs=specs, method=method, by=[*by, REPLICATE, *lost_names], sensitive=sensitive,
        reference=reference, zero_division=zero_division, masks=masks,
    )  # fmt: skip
    # the distance from the ideal (|d|, or |log r| for ratios): a signed "farthest
    # group" criterion may change sign between replicates (another group or part is
    # farthest); its distance does not. The summary signs the interval like the value.
    tail = (1 - confidence_level) / 2
    spread = []
    for n in unique:
        spread += _spread(n, parts[n], tail)
    return wide.group_by(by).agg(spread) if by else wide.select(spread)


def _parts(name: str) -> list[str]:
    """The part criteria of a worst-case composite of the named pair (else none).

    Equalized odds (and conditional use accuracy) is the farther of two rate
    comparisons of one pair. The percentile interval of that maximum is biased
    away from the ideal (a maximum of two noisy distances exceeds both): on COMPAS
    with race shuffled it called ``equalized_odds_difference`` unfair in 7.7% of
    shuffles, three times the stated 2.5%. Its parts are bootstrapped one by one
    instead, and combined (:func:`_spread`). ``average_abs_odds_difference``, whose
    parts may name different pairs, keeps its own replicates.
    """
    spec = CRITERIA[name]
    if len(spec.measures) < 2 or spec.agg != "worst_case" or name == "average_abs_odds_difference":
        return []
    return [f"__pf_part{i}@{name}" for i in range(len(spec.measures))]


def _spread(name: str, parts: Sequence[str], tail: float) -> list[pl.Expr]:
    """The bootstrap distances ``__pf_dlow_<name>``, ``__pf_dhigh_<name>`` of a criterion.

    Percentiles of the replicates' distance from the ideal; for a composite of `parts`
    (``k`` of them), each part's percentile interval at the Bonferroni level (tails of
    ``tail / k``), combined as the interval of the largest distance: from the largest
    lower bound to the largest upper bound. It holds the composite's distance whenever
    every part's interval holds its part's, so a wrong verdict needs one of ``k``
    intervals at tail ``tail / k`` to miss: at most ``tail`` in all, the stated rate.
    """
    lost = pl.col(f"__pf_lost@{name}")
    ratio = CRITERIA[name].kind == "ratio"

    def distance(column: str) -> pl.Expr:
        v = pl.col(column)
        d = log_distance(v) if ratio else v.abs()
        return pl.when(~lost).then(d)  # quantiles skip the nulls

    if not parts:
        d = distance(name)
        low = d.quantile(tail, interpolation="linear")
        high = d.quantile(1 - tail, interpolation="linear")
    else:
        t = tail / len(parts)
        low = pl.max_horizontal(distance(p).quantile(t, interpolation="linear") for p in parts)
        high = pl.max_horizontal(distance(p).quantile(1 - t, interpolation="linear") for p in parts)
    return [low.alias(f"__pf_dlow_{name}"), high.alias(f"__pf_dhigh_{name}")]


def _mark_losses(
    reps: pl.DataFrame,
    *,
    cells: tuple[str, ...],
    criteria: tuple[str, ...],
    zero_division: float | None,
    n_resamples: int,
    scaled: bool = False,
) -> pl.DataFrame:
    """Add ``__pf_lost@<criterion>`` to the drawn replicate tables.

    True in a replicate where a group's rate the criterion reads is undefined
    although it is defined on the data (its zero pattern of cells, ``__pf_pattern``,
    says so), and in every replicate of a batch key where that happens in more than
    ``1 - MIN_DEFINED_SHARE`` of them. The rows of one (batch key, replicate) are
    contiguous and every batch key has `n_resamples` replicates (see
    :func:`~polars_fair.metrics._bootstrap.resample_stats`). Numpy on the small
    table: no node in the plan.
    """
    if reps.height == 0:
        return reps.with_columns(pl.lit(False).alias(f"__pf_lost@{n}") for n in criteria)
    measures = list(dict.fromkeys(m for n in criteria for m in CRITERIA[n].measures))
    table = _defined_table(cells, tuple(measures), zero_division)  # (patterns, measures)
    drawn = reps.select(cells).to_numpy()
    now = table[((drawn > 0) * (1 << np.arange(len(cells)))).sum(axis=1)]
    was = table[reps.get_column(_PATTERN).to_numpy()]
    lost = (was & ~now).astype(np.int8)  # (rows, measures)
    replicate = reps.get_column(REPLICATE).to_numpy()
    starts = np.flatnonzero(np.r_[True, replicate[1:] != replicate[:-1]])
    segment = np.cumsum(np.r_[True, replicate[1:] != replicate[:-1]]) - 1
    per_segment = np.maximum.reduceat(lost, starts, axis=0).astype(bool)
    columns: list[pl.Series | pl.Expr] = []
    for n in criteria:
        which = [measures.index(m) for m in CRITERIA[n].measures]
        gone = per_segment[:, which].any(axis=1)  # (segments,)
        share = gone.reshape(-1, n_resamples).mean(axis=1)  # per batch key
        gone |= np.repeat(share > 1 - MIN_DEFINED_SHARE, n_resamples)
        columns.append(pl.Series(f"__pf_lost@{n}", gone[segment]))
    if scaled:  # each group back to its weight total (`_SCALE`: total / effective size)
        columns += [pl.col(c) * pl.col(_SCALE) for c in (*cells, "n")]
    return reps.with_columns(columns)


@functools.lru_cache(maxsize=64)
def _defined_table(
    cells: tuple[str, ...], measures: tuple[str, ...], zero_division: float | None
) -> np.ndarray:
    """Which of `measures` are defined for each zero pattern of `cells` (bit i: cell i > 0).

    Evaluated once with the rates' own expressions on one row per pattern. A share
    of a total over groups (``predicted_positive_share``) counts as defined (the
    total is positive whenever the data's is, but in a degenerate redraw).
    """
    codes = np.arange(1 << len(cells))
    probe = pl.DataFrame({x: (codes >> i) & 1 for i, x in enumerate(cells)})
    probe = probe.with_columns(pl.sum_horizontal(cells).alias("n"))
    c = Counts.from_columns([*cells, "n"])
    total_pp = pl.lit(1) if "predicted_positive_share" in measures else None
    rates = [rate_expr(m, c, total_pp) for m in measures]
    if zero_division is not None:
        rates = [r.fill_null(zero_division) for r in rates]
    out = probe.select(r.is_not_null().alias(str(i)) for i, r in enumerate(rates)).to_numpy()
    table: np.ndarray = out.astype(bool)
    table.setflags(write=False)
    return table
