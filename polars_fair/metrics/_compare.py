r"""Compare criteria between two audits: a candidate against its baseline.

Both sides are summary tables (one row per criterion and batch key, with the value,
the ideal and an interval). For each criterion the change is judged on its
*distance from the ideal*, ``|value - ideal|`` (on the log scale for criteria whose
ideal is 1, the ratios; a ratio of 0, a group never selected, is infinitely far), so
that "worse" always means "less fair" whatever the sign or the kind of the criterion.
A test statistic (the 2-SD rule's z, `PER_ROWS`) grows with the square root of the
rows compared: its distance, and its interval, are read per square root of those rows
(``group_n + compared_n``), so that audits of other sizes at the same rates do not
differ.

**Interval.** The two audits are independent samples, so the change of the
distance has standard error :math:`\sqrt{se_b^2 + se_c^2}`, where each side's
standard error is read from its own interval, :math:`se = (hi - lo) / (2 z)` with
:math:`z` the normal quantile of the interval's level (on the log scale for
ratios). The change's interval is the normal approximation
:math:`\Delta \pm z\,\sqrt{se_b^2 + se_c^2}`. Near the ideal the distance is a
folded value whose spread is smaller than this, so the interval is conservative
there.

**Verdict** of each change :math:`\Delta` (distance of the candidate minus
distance of the baseline) with interval :math:`[l, h]` and tolerance :math:`t`:

* ``worse``: :math:`\Delta > t` and :math:`l > 0` (farther from the ideal beyond the
  tolerance, and the interval excludes no change);
* ``better``: :math:`\Delta < -t` and :math:`h < 0`;
* ``unchanged``: :math:`-t \le l` and :math:`h \le t` (the interval lies within the
  tolerance);
* ``inconclusive``: otherwise, or when a side has no value or no interval.

**The same estimate on both sides.** Where a criterion has the same value and the
same (defined) interval on both sides, to rounding (relative :math:`10^{-9}`: the same rows
audited twice, e.g. a report compared with itself, a candidate making the baseline's
predictions on the baseline's rows, the baseline window of a trend), the two sides
are one sample, not two: the change is 0, with interval :math:`[0, 0]`, and
``unchanged``.

When both audits sample one distribution, ``worse`` needs the one-sided event
:math:`l > 0`, of probability at most :math:`(1 - \text{level}) / 2` (2.5% at the
default 95%) per criterion and batch key, up to the normal approximation.

**Family-wise.** A release gate reads every row: over :math:`m` rows the chance that
*some* row is ``worse`` with nothing changed grows with :math:`m` (12% of same-
distribution COMPAS pairs over 13 criteria). With ``familywise=True`` the changes'
intervals are Bonferroni intervals over the :math:`m` rows that can be judged (a value
and an interval on both sides): each at level :math:`1 - (1 - \text{level}) / m`, so
that the chance of any ``worse`` row (and of any ``better`` row) is at most
:math:`(1 - \text{level}) / 2` for the whole table. Each side's standard error is
still read at its own level.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.metrics._intervals import z_value

__all__ = [
    "COMPARABLE",
    "COMPARE_COLUMNS",
    "COMPARE_VERDICTS",
    "JUDGED_COLUMNS",
    "check_comparable",
    "check_familywise",
    "check_tolerance",
    "compare_summaries",
    "judge_changes",
    "judged_rows",
    "rows_scale",
]

#: The verdicts of a comparison, as an Enum (in this order).
COMPARE_VERDICTS = pl.Enum(["worse", "better", "unchanged", "inconclusive"])

#: The groups a summary row compares (its extreme pair, or a group and the reference).
_PAIR = ("group", "compared_with")
#: Report parameters on which two audits must agree to be compared: the values of
#: their criteria mean different things otherwise.
COMPARABLE = (
    "by", "sensitive_features", "pos_label", "reference_group", "method", "min_group_size",
    "zero_division",
)  # fmt: skip


def _same(a: Any, b: Any) -> bool:
    """Equal parameter values (lists and tuples alike, NaN equal to NaN)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


#: How the rows are read: weighted or not, and the weights as frequencies or not (the
#: weight columns' names may differ; a weighted audit and an unweighted one describe
#: different populations).
_READING = ("weighted", "frequency_weights")


def _reading(params: Mapping[str, Any]) -> dict[str, Any]:
    weighted = params.get("sample_weight") is not None
    return {
        **params,
        "weighted": weighted,
        "frequency_weights": weighted and bool(params.get("frequency_weights")),
    }


def check_comparable(candidate: Mapping[str, Any], baseline: Mapping[str, Any]) -> None:
    """
    Refuse to compare audits whose parameters (``report.params``) differ in `COMPARABLE`.

    Raises
    ------
    InvalidParameterError
        Naming each difference, with both values.

    Examples
    --------
    >>> from polars_fair.metrics._compare import check_comparable
    >>> check_comparable({"by": [], "pos_label": 1}, {"by": ["sex"], "pos_label": 1})
    Traceback (most recent call last):
    ...
    polars_fair.exceptions.InvalidParameterError: cannot compare the audits: they differ in `by`: ['sex'] (baseline) against [] (candidate)
    <BLANKLINE>
    Hint: audit both with the same options (the criteria of different options mean different things)
    """
    sides = [_reading(candidate), _reading(baseline)]
    keys = [k for k in (*COMPARABLE, *_READING) if not _same(sides[1].get(k), sides[0].get(k))]
    found = [
        f"`{_NAMES.get(key, key)}`: {_shown(sides[1], key)} (baseline) against "
        f"{_shown(sides[0], key)} (candidate)"
        for key in keys
    ]
    if found:
        fixes = "; ".join(_FIXES[k] for k in keys if k in _FIXES) or _MEANING
        msg = (
            f"cannot compare the audits: they differ in {'; '.join(found)}\n\nHint: audit both "
            f"with the same options ({fixes})"
        )
        raise InvalidParameterError(msg)


_MEANING = "the criteria of different options mean different things"
#: The option a reading key stands for, and the fix of a difference in it.
_NAMES = {"weighted": "sample_weight"}
_FIXES = {
    "weighted": "pass the same `sample_weight` (--sample-weight) to both sides, or to neither",
    "sensitive_features": "give both sides the same `sensitive_features` "
    "(--sensitive-features), so that the same groups are compared",
}


def _shown(side: Mapping[str, Any], key: str) -> str:
    """The value of `key` on one side, as the message shows it."""
    if key == "weighted":
        weight = side.get("sample_weight")
        return f"weighted by {weight!r}" if side[key] else "unweighted"
    return repr(side.get(key))


def check_tolerance(tolerance: Any) -> None:
    """Refuse a `tolerance` that is not a finite number >= 0 (NaN would judge nothing)."""
    number = isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool)
    if not number or not math.isfinite(tolerance) or tolerance < 0:
        msg = f"`tolerance` must be a finite number >= 0, got {tolerance!r}\n\nHint: e.g. 0.02"
        raise InvalidParameterError(msg)


def check_familywise(familywise: Any) -> None:
    """Refuse a `familywise` that is not a bool (a string would read as True)."""
    if not isinstance(familywise, bool):
        msg = f"`familywise` must be True or False, got {familywise!r}\n\nHint: familywise=True"
        raise InvalidParameterError(msg)


#: Relative difference below which two sides' numbers are one number rounded twice.
_ROUNDING = 1e-9


def _close(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """`a` and `b` equal to rounding, or both null (or both NaN)."""
    near = (a - b).abs() <= _ROUNDING * (1 + pl.max_horizontal(a.abs(), b.abs()))
    return a.eq_missing(b) | near.fill_null(value=False)


#: Criteria that are test statistics (the 2-SD rule's z): their value grows with the
#: square root of the rows compared, so two audits of other sizes differ with no change
#: in fairness. Their distance from the ideal is judged per square root of those rows,
#: ``z / sqrt(group_n + compared_n)``, the effect the statistic measures.
PER_ROWS = frozenset(name for name, c in CATALOGUE.items() if c.band == "z")


def rows_scale(columns: Sequence[str]) -> pl.Expr:
    """Per summary row: ``1 / sqrt(rows compared)`` for a criterion in `PER_ROWS`, else 1."""
    if not {"criterion", "group_n", "compared_n"} <= set(columns):
        return pl.lit(1.0)
    per_rows = pl.col("criterion").cast(pl.String).is_in(sorted(PER_ROWS))
    rows = pl.col("group_n") + pl.col("compared_n")
    return pl.when(per_rows).then(1 / rows.sqrt()).otherwise(pl.lit(1.0))


def _scale(x: pl.Expr, log: pl.Expr) -> pl.Expr:
    """The distance scale: the log for ratios.

    A ratio of 0 (a group never selected) is the farthest a ratio can be from 1: its
    log is ``-inf``, so its distance is infinite (a change to it is ``worse``, not
    undefined); negative values have no log (null).
    """
    logged = pl.when(x > 0).then(x.log()).when(x == 0).then(pl.lit(-math.inf))
    return pl.when(log).then(logged).otherwise(x)


def judge_changes(
    frame: pl.LazyFrame,
    *,
    confidence_level: float = 0.95,
    tolerance: float = 0.02,
    baseline_confidence_level: float | None = None,
    per_rows: bool = False,
    comparisons: int = 1,
) -> pl.LazyFrame:
    """
    Add the change, its interval and the verdict to a frame of paired values.

    Parameters
    ----------
    frame
        Columns ``ideal``, ``baseline``, ``baseline_ci_low``, ``baseline_ci_high``,
        ``candidate``, ``candidate_ci_low``, ``candidate_ci_high``.
    confidence_level
        The level of the candidate's intervals, and of the change's interval.
    tolerance
        Changes of the distance to the ideal within this count as no change.
    baseline_confidence_level
        The level of the baseline's intervals (default `confidence_level`).
    per_rows
        The frame has ``baseline_scale`` and ``candidate_scale`` (:func:`rows_scale`):
        the distances from the ideal, and their intervals, are judged times them.
    comparisons
        The changes' intervals are Bonferroni intervals over this many rows (level
        ``1 - (1 - confidence_level) / comparisons``; 1: each row on its own).

    Returns
    -------
    LazyFrame
        With ``change``, ``ci_low``, ``ci_high`` (the change of the value),
        ``distance_change``, ``distance_ci_low``, ``distance_ci_high``, ``ci_level``
        (the level of the changes' intervals) and ``verdict`` (see the module
        docstring).
    """
    check_tolerance(tolerance)
    levels = {
        "candidate": z_value(confidence_level),
        "baseline": z_value(baseline_confidence_level or confidence_level),
    }
    level = 1 - (1 - confidence_level) / max(comparisons, 1)  # the changes' intervals
    z = z_value(level)
    log = pl.col("ideal") == 1.0
    ideal = _scale(pl.col("ideal"), log)

    def factor(side: str) -> pl.Expr:  # a z statistic: per square root of its rows
        return pl.col(f"{side}_scale") if per_rows else pl.lit(1.0)

    def se(side: str, scaled: bool) -> pl.Expr:
        lo, hi = pl.col(f"{side}_ci_low"), pl.col(f"{side}_ci_high")
        if scaled:
            lo, hi = _scale(lo, log) * factor(side), _scale(hi, log) * factor(side)
        return (hi - lo) / (2 * levels[side])  # each side's interval at its own level

    def dist(side: str) -> pl.Expr:
        return ((_scale(pl.col(side), log) - ideal) * factor(side)).abs()

    change = pl.col("candidate") - pl.col("baseline")
    delta = dist("candidate") - dist("baseline")
    # the same estimate on both sides (value and interval, to rounding): the same rows
    # audited twice (float sums of two reads may differ in their last bits)
    # (a side without an interval stays inconclusive)
    sides = ("", "_ci_low", "_ci_high")
    defined = [pl.col(f"candidate{s}").is_not_nan().fill_null(value=False) for s in sides]
    close = [_close(pl.col(f"candidate{s}"), pl.col(f"baseline{s}")) for s in sides]
    same = pl.all_horizontal(*defined, *close)
    if levels["candidate"] != levels["baseline"]:
        same = pl.lit(value=False)
    zero = pl.lit(0.0)
    change = pl.when(same).then(zero).otherwise(change)
    delta = pl.when(same).then(zero).otherwise(delta)
    se_value = (
        pl.when(same)
        .then(zero)
        .otherwise((se("baseline", False) ** 2 + se("candidate", False) ** 2).sqrt())
    )
    se_delta = (
        pl.when(same)
        .then(zero)
        .otherwise((se("baseline", True) ** 2 + se("candidate", True) ** 2).sqrt())
    )
    lo, hi = pl.col("distance_ci_low"), pl.col("distance_ci_high")
    t = tolerance
    verdict = (
        pl.when(lo.is_null() | hi.is_null() | pl.col("distance_change").is_nan())
        .then(pl.lit("inconclusive"))
        .when(lo.is_nan() | hi.is_nan())  # an infinite distance with an unbounded interval
        .then(pl.lit("inconclusive"))
        .when((pl.col("distance_change") > t) & (lo > 0))
        .then(pl.lit("worse"))
        .when((pl.col("distance_change") < -t) & (hi < 0))
        .then(pl.lit("better"))
        .when((lo >= -t) & (hi <= t))
        .then(pl.lit("unchanged"))
        .otherwise(pl.lit("inconclusive"))
    )
    return frame.with_columns(
        change.alias("change"),
        (change - z * se_value).alias("ci_low"),
        (change + z * se_value).alias("ci_high"),
        delta.alias("distance_change"),
        (delta - z * se_delta).alias("distance_ci_low"),
        (delta + z * se_delta).alias("distance_ci_high"),
        pl.lit(level).alias("ci_level"),
    ).with_columns(verdict.cast(COMPARE_VERDICTS).alias("verdict"))


def judged_rows(frame: pl.DataFrame) -> int:
    """
    The rows of a paired frame (as :func:`judge_changes` reads it) that can be judged.

    A row can be judged when both sides have a value and an interval (NaN is none):
    the family of a Bonferroni correction. At least 1.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._compare import judged_rows
    >>> sides = {f"{s}{c}": [0.1, None] for s in ("baseline", "candidate")
    ...          for c in ("", "_ci_low", "_ci_high")}
    >>> judged_rows(pl.DataFrame(sides))
    1
    """
    cells = [
        pl.col(f"{side}{c}").is_not_nan().fill_null(value=False)
        for side in ("baseline", "candidate")
        for c in ("", "_ci_low", "_ci_high")
    ]
    count = frame.select(pl.all_horizontal(*cells).sum()).item()
    return max(int(count), 1)


#: The columns :func:`judge_changes` reads and adds (a trend's derivation has them too).
JUDGED_COLUMNS = frozenset({
    "ideal", "baseline", "candidate", "change", "ci_low", "ci_high", "distance_change",
    "distance_ci_low", "distance_ci_high", "ci_level",
    *(f"{side}{c}" for side in ("baseline", "candidate") for c in (
        "_scale", "_ci_low", "_ci_high",
    )),
})  # fmt: skip

#: The columns of a comparison, and those of its derivation: no batch key may take one.
COMPARE_COLUMNS = frozenset({
    "criterion", "verdict",
    *(f"{side}{c}" for side in ("baseline", "candidate") for c in (
        "_ideal", "_verdict", "_group", "_compared_with",
    )),
}) | JUDGED_COLUMNS  # fmt: skip


def _check_key_names(by: Sequence[str]) -> None:
    """Refuse a batch key named like a column of the comparison (raw duplicates else)."""
    for key in by:
        if key in COMPARE_COLUMNS:
            msg = (
                f"batch key {key!r} clashes with a column of the comparison"
                f"\n\nHint: audit both sides with the key renamed, e.g. "
                f'`by=pl.col({key!r}).alias({key + "_"!r})` (--by "{key} AS {key}_"; a key '
                f'given as SQL: --by "EXPR AS {key}_", its own expression)'
            )
            raise InvalidParameterError(msg)


def _check_key_dtypes(candidate: pl.DataFrame, baseline: pl.DataFrame, by: Sequence[str]) -> None:
    """Refuse batch keys of other dtypes on the two sides (their rows cannot be matched)."""
    found = [
        (key, baseline.schema[key], candidate.schema[key])
        for key in by
        if key in baseline.schema and key in candidate.schema
        and baseline.schema[key] != candidate.schema[key]
    ]  # fmt: skip
    if found:
        listed = "; ".join(f"{k!r}: {b} (baseline) against {c} (candidate)" for k, b, c in found)
        key, dtype = found[0][0], found[0][1]
        msg = (
            f"cannot compare the audits: their batch keys have other dtypes, {listed}"
            f"\n\nHint: give the key one dtype on both sides before auditing, e.g. "
            f"`.with_columns(pl.col({key!r}).cast(pl.{dtype}))` on the candidate's rows"
        )
        raise InvalidParameterError(msg)


def _side(summary: pl.DataFrame, side: str, keys: Sequence[str]) -> pl.LazyFrame:
    return summary.lazy().select(
        *keys,
        rows_scale(summary.columns).alias(f"{side}_scale"),
        pl.col("ideal").alias(f"{side}_ideal"),
        pl.col("value").alias(side),
        pl.col("ci_low").alias(f"{side}_ci_low"),
        pl.col("ci_high").alias(f"{side}_ci_high"),
        pl.col("verdict").cast(pl.String).alias(f"{side}_verdict"),
        *(
            (pl.col(c) if c in summary.columns else pl.lit(None)).cast(pl.String)
            .alias(f"{side}_{c}")
            for c in _PAIR
        ),
    )  # fmt: skip


def compare_summaries(
    candidate: pl.DataFrame,
    baseline: pl.DataFrame,
    *,
    by: Sequence[str] = (),
    confidence_level: float = 0.95,
    tolerance: float = 0.02,
    baseline_confidence_level: float | None = None,
    familywise: bool = False,
) -> pl.DataFrame:
    """
    Each criterion (and batch key) of a candidate summary against a baseline summary.

    Parameters
    ----------
    candidate, baseline
        Summary tables (``report.summary``) with the same batch keys `by`.
    by
        The batch key columns (rows are matched on them and on the criterion).
    confidence_level
        The level of the candidate's intervals (and of the change's interval).
    tolerance
        Changes of the distance to the ideal within this count as no change.
    baseline_confidence_level
        The level of the baseline's intervals (default `confidence_level`).
    familywise
        Bonferroni intervals over the rows that can be judged (see the module
        docstring): at most ``(1 - confidence_level) / 2`` chance that any row is
        ``worse`` when nothing changed.

    Returns
    -------
    DataFrame
        ``by…, criterion, baseline, candidate, change, ci_low, ci_high,
        distance_change, distance_ci_low, distance_ci_high, verdict,
        baseline_verdict, candidate_verdict, ci_level, baseline_group,
        baseline_compared_with, candidate_group, candidate_compared_with``
        (``ci_level``: the level of the changes' intervals; the groups: the pair each
        side's row compares, which may differ: between groups, each side's extreme
        pair); rows present on one side only are ``inconclusive``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._compare import compare_summaries
    >>> row = dict(criterion="demographic_parity_difference", ideal=0.0, verdict="fair")
    >>> base = pl.DataFrame([{**row, "value": 0.05, "ci_low": 0.03, "ci_high": 0.07}])
    >>> cand = pl.DataFrame([{**row, "value": 0.15, "ci_low": 0.13, "ci_high": 0.17}])
    >>> compare_summaries(cand, base).select("baseline", "candidate", "verdict")
    shape: (1, 3)
    ┌──────────┬───────────┬─────────┐
    │ baseline ┆ candidate ┆ verdict │
    │ ---      ┆ ---       ┆ ---     │
    │ f64      ┆ f64       ┆ enum    │
    ╞══════════╪═══════════╪═════════╡
    │ 0.05     ┆ 0.15      ┆ worse   │
    └──────────┴───────────┴─────────┘
    """
    keys = [*by, "criterion"]
    _check_key_names(by)
    _check_key_dtypes(candidate, baseline, by)
    joined = _side(candidate, "candidate", keys).join(
        _side(baseline, "baseline", keys), on=keys, how="full", coalesce=True, nulls_equal=True
    )
    joined = joined.with_columns(
        pl.coalesce("candidate_ideal", "baseline_ideal").alias("ideal")
    ).drop("candidate_ideal", "baseline_ideal")
    check_familywise(familywise)
    comparisons = 1
    if familywise:  # a small frame: the rows of two summaries
        rows = joined.collect()
        comparisons, joined = judged_rows(rows), rows.lazy()
    judged = judge_changes(
        joined, confidence_level=confidence_level, tolerance=tolerance,
        baseline_confidence_level=baseline_confidence_level, per_rows=True,
        comparisons=comparisons,
    )  # fmt: skip
    order = pl.col("criterion").cast(pl.String)
    return (
        judged.select(
            *keys,
            "ideal",
            "baseline",
            "candidate",
            "change",
            "ci_low",
            "ci_high",
            "distance_change",
            "distance_ci_low",
            "distance_ci_high",
            "verdict",
            "baseline_verdict",
            "candidate_verdict",
            "ci_level",
            *(f"{side}_{c}" for side in ("baseline", "candidate") for c in _PAIR),
        )  # fmt: skip
        .sort([*by, order], nulls_last=True, maintain_order=True)
        .collect()
    )
