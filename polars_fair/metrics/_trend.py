"""A criterion over time: one row per time window, with interval, verdict and change.

With a time bucket as batch key (a week, a month), the summary of a report holds
one row per criterion and window. :func:`trend_table` follows one criterion: its
value and interval per window, its verdict against the fair band, and its change
against a baseline window judged as in :mod:`polars_fair.metrics._compare`
(``worse``, ``better``, ``unchanged``, ``inconclusive``). A window *alerts* when the
criterion leaves its band (verdict ``unfair``: the whole interval outside the band)
or got significantly worse than the baseline window; ``first_alert`` marks the
first such window of each series (other batch keys, e.g. one series per model). The
baseline window, compared with itself, is ``unchanged``.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import get_close_matches
from typing import Any

import polars as pl

from polars_fair._validate import did_you_mean
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.metrics._compare import (
    JUDGED_COLUMNS,
    check_familywise,
    judge_changes,
    judged_rows,
    rows_scale,
)
from polars_fair.metrics._registry import CRITERIA

__all__ = ["TREND_COLUMNS", "check_time", "trend_table"]


def check_criterion(criterion: object, options: dict[str, Any] | None = None) -> None:
    """Refuse a `criterion` (of a trend) that is not the name of one summary criterion.

    Refuses as well report `options` naming other ``criteria`` (the trend follows one).
    """
    criteria = (options or {}).get("criteria")
    if criteria is not None and criteria != [criterion]:
        msg = (
            f"a trend follows its `criterion` {criterion!r}, and `criteria` names others: "
            f"{criteria!r}\n\nHint: drop `criteria`; follow each criterion in a trend of its own"
        )
        raise InvalidParameterError(msg)
    if isinstance(criterion, str) and criterion in CRITERIA:
        return
    if isinstance(criterion, str) and criterion in CATALOGUE:  # of another family
        family = CATALOGUE[criterion].family
        close = get_close_matches(criterion, CRITERIA, n=3)
        msg = (
            f"`criterion` {criterion!r} is {'an' if family[0] in 'aeiou' else 'a'} {family} "
            f"criterion, which has no summary row to follow over time\n\nHint: one of the "
            f"summary's criteria, e.g. {close or ['demographic_parity_difference']}"
        )
        raise InvalidParameterError(msg)
    hint = did_you_mean(criterion, CRITERIA) or "e.g. 'demographic_parity_difference'"
    msg = f"`criterion` must be the name of one criterion, got {criterion!r}\n\nHint: {hint}"
    raise InvalidParameterError(msg)


#: The columns of a trend table, and those of its derivation (see :func:`trend_table`):
#: a batch key may not take one (it would be replaced, or duplicated).
TREND_COLUMNS = frozenset({
    "criterion", "value", "fair_low", "fair_high", "verdict", "baseline_window",
    "change_ci_low", "change_ci_high", "change_verdict", "change_ci_level", "alert",
    "first_alert", "band_verdict",
}) | JUDGED_COLUMNS  # fmt: skip


def check_time(time: str, by: Sequence[str]) -> None:
    """Refuse a `time` that is not one of the batch keys `by`, saying how to make one.

    Refuses as well a batch key named like a column of the trend table.
    """
    for key in by:
        if key in TREND_COLUMNS:
            msg = (
                f"batch key {key!r} clashes with a column of the trend table"
                f"\n\nHint: profile with the key renamed, e.g. "
                f"`by=pl.col({key!r}).alias({key + '_'!r})`"
            )
            raise InvalidParameterError(msg)
    if time in by:
        return
    hint = (
        f"one of {list(by)}"
        if by
        else "profile with a time bucket as a batch key, e.g. "
        "`by=pl.col('ts').dt.truncate('1w')`, and give its name as `time=`"
    )
    msg = f"`time` must be one of the batch keys {list(by)}, got {time!r}\n\nHint: {hint}"
    raise InvalidParameterError(msg)


def _parse(text: str, dtype: pl.DataType) -> Any:
    """`text` as a value of the temporal dtype `dtype` (raises when it does not parse)."""
    parsed = pl.Series([text])
    if dtype == pl.Date:
        return parsed.str.to_date().item()
    if isinstance(dtype, pl.Datetime):
        return parsed.str.to_datetime(time_unit=dtype.time_unit, time_zone=dtype.time_zone).item()
    if dtype == pl.Time:
        return parsed.str.to_time().item()
    return text  # a Duration: compared as given (and refused below)


def _window(summary: pl.DataFrame, time: str, baseline: Any) -> pl.Expr:
    """The baseline window as a literal of the `time` key's dtype, checked to occur."""
    dtype = summary.schema[time]
    windows = summary.get_column(time).unique().sort().to_list()
    if dtype.is_temporal():  # as the strings `baseline` may be given as
        windows = [str(w) for w in windows]
    try:
        value = (
            _parse(baseline, dtype)
            if isinstance(baseline, str) and dtype.is_temporal()
            else baseline
        )
        found = summary.filter(pl.col(time) == value).height
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        found = None
    if not found:
        why = "does not occur in" if found == 0 else "cannot be a value of"
        msg = (
            f"`baseline` window {baseline!r} {why} the `time` column {time!r} ({dtype})"
            f"\n\nHint: one of {windows}"
        )
        raise InvalidParameterError(msg)
    return pl.lit(value, dtype=dtype)


def trend_table(
    summary: pl.DataFrame,
    *,
    time: str,
    by: Sequence[str],
    baseline: Any = None,
    tolerance: float = 0.02,
    confidence_level: float = 0.95,
    familywise: bool = False,
) -> pl.DataFrame:
    """
    One criterion per time window against a baseline window.

    Parameters
    ----------
    summary
        A report's summary with one criterion, batch keys `by` (including `time`).
    time
        The batch key of the time windows.
    by
        Every batch key of the summary.
    baseline
        The baseline window (a value of `time`); default the first window of each
        series with a value and an interval (the first window when none has one: a
        window whose criterion is undefined cannot be compared with). A string is read as a date, datetime or time for a temporal key
        (``"2024-02-01"``).
    tolerance, confidence_level
        As in :func:`~polars_fair.metrics._compare.compare_summaries`.
    familywise
        Bonferroni intervals for the changes over every window compared with its
        baseline window (all series together), so that the chance of any ``worse``
        window when nothing changed is at most ``(1 - confidence_level) / 2``.

    Returns
    -------
    DataFrame
        ``other keys…, time, criterion, value, ci_low, ci_high, fair_low, fair_high,
        verdict, baseline, change, change_ci_low, change_ci_high, change_verdict,
        change_ci_level, alert, first_alert`` (``change_ci_level``: the level of the
        changes' intervals), sorted by series and time.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._trend import trend_table
    >>> summary = pl.DataFrame(
    ...     {
    ...         "month": [1, 2, 3],
    ...         "criterion": ["demographic_parity_difference"] * 3,
    ...         "value": [0.02, 0.03, 0.2],
    ...         "ideal": [0.0] * 3,
    ...         "fair_low": [-0.1] * 3,
    ...         "fair_high": [0.1] * 3,
    ...         "verdict": ["fair", "fair", "unfair"],
    ...         "ci_low": [0.0, 0.01, 0.15],
    ...         "ci_high": [0.04, 0.05, 0.25],
    ...     }
    ... )
    >>> trend_table(summary, time="month", by=["month"]).select(
    ...     "month", "change_verdict", "alert", "first_alert"
    ... )
    shape: (3, 4)
    ┌───────┬────────────────┬───────┬─────────────┐
    │ month ┆ change_verdict ┆ alert ┆ first_alert │
    │ ---   ┆ ---            ┆ ---   ┆ ---         │
    │ i64   ┆ enum           ┆ bool  ┆ bool        │
    ╞═══════╪════════════════╪═══════╪═════════════╡
    │ 1     ┆ unchanged      ┆ false ┆ false       │
    │ 2     ┆ inconclusive   ┆ false ┆ false       │
    │ 3     ┆ worse          ┆ true  ┆ true        │
    └───────┴────────────────┴───────┴─────────────┘
    """
    check_time(time, by)
    criteria = summary.get_column("criterion").unique().to_list()
    if len(criteria) != 1:
        msg = f"a trend follows one criterion, got {sorted(map(str, criteria))}"
        raise InvalidParameterError(msg)
    series = [k for k in by if k != time]
    lf = summary.lazy().with_columns(
        pl.col("verdict").cast(pl.String).alias("band_verdict"),
        rows_scale(summary.columns).alias("__pf_scale"),
    )
    if baseline is None:  # the first window that can be compared (else the first)
        value, window = pl.col("value"), pl.col(time)
        defined = value.is_not_null() & value.is_not_nan() & pl.col("ci_low").is_not_null()
        first = pl.coalesce(window.filter(defined).min(), window.min())
        base = lf.filter(window == (first.over(series) if series else first))
    else:
        base = lf.filter(pl.col(time) == _window(summary, time, baseline))
    base = base.select(
        *series,
        pl.col(time).alias("baseline_window"),
        pl.col("__pf_scale").alias("baseline_scale"),
        pl.col("value").alias("baseline"),
        pl.col("ci_low").alias("baseline_ci_low"),
        pl.col("ci_high").alias("baseline_ci_high"),
    )
    cand = lf.select(
        *series, time, "criterion", "ideal", "fair_low", "fair_high", "band_verdict",
        pl.col("__pf_scale").alias("candidate_scale"),
        pl.col("value").alias("candidate"),
        pl.col("ci_low").alias("candidate_ci_low"),
        pl.col("ci_high").alias("candidate_ci_high"),
    )  # fmt: skip
    if series:
        joined = cand.join(base, on=series, how="left", nulls_equal=True)
    else:
        joined = cand.join(base, how="cross")
    check_familywise(familywise)
    compared = 1
    if familywise:  # the windows compared with another window (a small frame)
        rows = joined.collect()
        compared = judged_rows(rows.filter(pl.col(time).ne_missing(pl.col("baseline_window"))))
        joined = rows.lazy()
    judged = judge_changes(
        joined, confidence_level=confidence_level, tolerance=tolerance, per_rows=True,
        comparisons=compared,
    )  # fmt: skip
    alert = (pl.col("verdict") == "unfair") | (pl.col("change_verdict") == "worse")
    order = [*series, time]
    out = (
        judged.select(
            *series,
            time,
            "criterion",
            pl.col("candidate").alias("value"),
            pl.col("candidate_ci_low").alias("ci_low"),
            pl.col("candidate_ci_high").alias("ci_high"),
            "fair_low",
            "fair_high",
            pl.col("band_verdict").alias("verdict"),
            "baseline_window",
            "baseline",
            "change",
            pl.col("ci_low").alias("change_ci_low"),
            pl.col("ci_high").alias("change_ci_high"),
            pl.col("verdict").alias("change_verdict"),
            pl.col("ci_level").alias("change_ci_level"),
        )  # fmt: skip
        .with_columns(alert.fill_null(False).alias("alert"))
        .sort(order, nulls_last=True)
    )
    first = pl.col("alert") & (pl.col("alert").cum_sum().over(series or pl.lit(1)) == 1)
    return out.with_columns(first.alias("first_alert")).collect()
