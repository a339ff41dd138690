"""The chart of a criterion over time windows (:meth:`FairnessProfile.trend_chart`)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import polars as pl


def trend_chart(trend: pl.DataFrame, *, criterion: str, time: str, by: Sequence[str]) -> Any:
    """
    An Altair chart of a trend table: the value and interval per window, the fair band.

    Parameters
    ----------
    trend
        The table of :meth:`FairnessProfile.trend`.
    criterion
        The criterion it follows (the title and the y axis).
    time
        The batch key holding the time window.
    by
        Every batch key of the profile: the keys other than `time` are series.

    Returns
    -------
    altair.LayerChart
        Points with error bars per window (red where the window alerts), one line
        per series, the fair band shaded.

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.report._trend_chart import trend_chart
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [1, 1, 0, 0] * 2,
    ...                    "p": [1, 0, 1, 0, 1, 1, 1, 0], "w": [dt.date(2026, 1, 1)] * 8})
    >>> prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g", by="w")
    >>> trend = prof.trend("demographic_parity_difference", time="w", min_group_size=0)
    >>> type(trend_chart(trend, criterion="demographic_parity_difference", time="w",
    ...                  by=["w"])).__name__
    'LayerChart'
    """
    try:
        alt = importlib.import_module("altair")
    except ImportError as err:
        msg = "charts need the optional package 'altair'\n\nHint: pip install \"polars-fair[plot]\""
        raise ImportError(msg) from err
    series = [k for k in by if k != time]
    # a date key as text (2013-01-01): Vega-Lite would read a date on an ordinal axis
    # as epoch milliseconds (1356998400000)
    trend = trend.with_columns(window_label(trend.get_column(time)))
    data = trend.with_columns(
        pl.col("verdict", "change_verdict").cast(pl.String),
        (pl.concat_str([pl.col(k).cast(pl.String) for k in series], separator=", ")
         if series else pl.lit(criterion)).alias("series"),
    )  # fmt: skip
    # the field by name, escaped: Vega-Lite reads `a.b` as a nested field, and Altair's
    # shorthand `name:O` would split a name holding a colon
    field = "".join("\\" + c if c in ".[]\\" else c for c in time)
    base = alt.Chart(data).encode(x=alt.X(field=field, type="ordinal", title=time))
    band = base.mark_area(opacity=0.12, color="#1a7f37").encode(
        y=alt.Y("fair_low:Q", title=criterion), y2="fair_high:Q"
    )
    line = base.mark_line().encode(y="value:Q", color="series:N")
    bars = base.mark_errorbar().encode(
        y=alt.Y("ci_low:Q", title=criterion), y2="ci_high:Q", color="series:N"
    )
    dots = base.mark_point(filled=True, size=60).encode(
        y="value:Q",
        color=alt.condition("datum.alert", alt.value("#cf222e"), alt.value("#0969da")),
        tooltip=[
            alt.Tooltip(field=field, type="ordinal", title=time),
            *("value", "ci_low", "ci_high", "verdict", "change_verdict"),
        ],
    )
    return alt.layer(band, line, bars, dots).properties(title=f"{criterion} over {time}")


def window_label(window: pl.Series) -> pl.Series:
    """
    A time window as the chart's axis shows it: dates as ``2013-01-01``, not epoch ms.

    A Date reads ``%Y-%m-%d``; a Datetime the same when every window starts at
    midnight (weeks, months), else ``%Y-%m-%d %H:%M`` (or with seconds when
    needed), in its own time zone. Other keys are returned unchanged. The text
    sorts as the times do.

    Parameters
    ----------
    window
        The time window key of a trend table.

    Returns
    -------
    Series
        The labels (same name).

    Examples
    --------
    >>> import datetime as dt
    >>> import polars as pl
    >>> from polars_fair.report._trend_chart import window_label
    >>> window_label(pl.Series("w", [dt.date(2013, 1, 1), dt.date(2013, 2, 1)])).to_list()
    ['2013-01-01', '2013-02-01']
    >>> window_label(pl.Series("w", [dt.datetime(2013, 1, 1, 6)])).to_list()
    ['2013-01-01 06:00']
    """
    dtype = window.dtype
    if dtype == pl.Date:
        return window.dt.to_string("%Y-%m-%d")
    if not isinstance(dtype, pl.Datetime):
        return window
    since_midnight = window - window.dt.truncate("1d")
    micros = since_midnight.dt.total_microseconds()
    if micros.fill_null(0).eq(0).all():
        fmt = "%Y-%m-%d"
    elif (micros.fill_null(0) % 60_000_000).eq(0).all():
        fmt = "%Y-%m-%d %H:%M"
    else:
        fmt = "%Y-%m-%d %H:%M:%S"
    return window.dt.to_string(fmt)
