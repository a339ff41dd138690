"""Charts of a fairness report: Altair charts, rendered to static SVG.

Each function takes one of the report's tables (``df.fair.by_group``,
``df.fair.disparities``, ``df.fair.calibration``, ``df.fair.roc_curve``) and returns
an Altair chart: one small panel per rate or batch key, groups on one axis,
Wilson or Katz intervals as error bars, tooltips on every mark.
:func:`to_svg` renders a chart to SVG text with ``vl_convert`` (no browser, no
network), and :func:`report_svgs` gives the SVGs that
:meth:`~polars_fair.FairnessReport.to_html` embeds.

Altair and vl-convert are optional (``pip install "polars-fair[plot]"``): they
are imported when a chart is built, so this module imports without them.

Groups of several sensitive features are labelled by joining their values
(``"F / Black"``); a null value is shown as ``"null"``.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import re
from collections.abc import Sequence
from typing import Any, Protocol

import polars as pl

__all__ = [
    "available",
    "calibration_chart",
    "charted_groups",
    "disparity_chart",
    "rates_chart",
    "report_svgs",
    "roc_chart",
    "to_svg",
]

#: The rates charted by default: the four behind the common parity criteria.
RATES = (
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "positive_predictive_value",
)
_HINT = 'pip install "polars-fair[plot]"'
_GROUP = "pf_group"
_BATCH = "pf_batch"
_ROLE = "pf_role"
_WIDTH = 300
_HEIGHT = 200
_SQUARE = 240
_REFERENCE_COLOUR = "#e45756"
_OTHER_COLOUR = "#4c78a8"
_ROLES = ["reference", "compared"]
#: Ticks of the ratio axis (those inside its domain are shown).
_RATIO_TICKS = (0.05, 0.1, 0.2, 0.5, 0.8, 1.0, 1.25, 2.0, 5.0, 10.0, 20.0)
#: The most groups a report's charts show (see :func:`charted_groups`).
MAX_GROUPS = 10
#: Ten distinct colours (Tableau 10), one per group in the group-coloured charts.
PALETTE = (
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2",
    "#b279a2", "#eeca3b", "#ff9da6", "#9d755d", "#bab0ac",
)  # fmt: skip
#: Longest ROC curve drawn per group and batch key; longer curves are thinned.
_ROC_POINTS = 200


class _Report(Protocol):
    """What :func:`report_svgs` reads from a :class:`~polars_fair.FairnessReport`."""

    @property
    def by_group(self) -> pl.DataFrame: ...
    @property
    def disparities(self) -> pl.DataFrame: ...
    @property
    def calibration(self) -> pl.DataFrame | None: ...
    @property
    def roc_auc(self) -> pl.DataFrame | None: ...
    @property
    def roc_curve(self) -> pl.DataFrame | None: ...
    @property
    def params(self) -> dict[str, Any]: ...


# ---- optional dependencies ---------------------------------------------------------


def available() -> bool:
    """
    Whether charts can be built and rendered (altair and vl-convert are installed).

    Returns
    -------
    bool
        True if both ``altair`` and ``vl_convert`` import.

    Examples
    --------
    >>> from polars_fair import plots
    >>> plots.available()
    True
    """
    try:
        importlib.import_module("altair")
        importlib.import_module("vl_convert")
    except ImportError:
        return False
    return True


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        msg = f"charts need the optional package {name!r}\n\nHint: {_HINT}"
        raise ImportError(msg) from err


# ---- table preparation -------------------------------------------------------------


def _names(columns: str | Sequence[str] | None) -> list[str]:
    if columns is None:
        return []
    if isinstance(columns, str):
        return [columns]
    return list(columns)


def _check_columns(table: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        msg = f"column {missing[0]!r} not found in the {what} table; available columns: {table.columns}"
        raise ValueError(msg)


def _label(columns: Sequence[str]) -> pl.Expr:
    """One string per row joining the values of `columns`; a null shows as ``"null"``."""
    parts = [pl.col(c).cast(pl.String).fill_null("null") for c in columns]
    return pl.concat_str(parts, separator=" / ")


def _labelled(
    table: pl.DataFrame, sensitive: Sequence[str], by: Sequence[str], what: str
) -> pl.DataFrame:
    """`table` with the group label and the batch label (null without `by`)."""
    if not sensitive:
        msg = "`sensitive_features` must name at least one column, got []"
        raise ValueError(msg)
    _check_columns(table, [*sensitive, *by], what)
    batch = _label(by) if by else pl.lit(None, dtype=pl.String)
    return table.with_columns(_label(sensitive).alias(_GROUP), batch.alias(_BATCH))


def _records(table: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: Enum and Categorical as strings, NaN and infinities as None."""
    exprs = []
    for name, dtype in table.schema.items():
        col = pl.col(name)
        if isinstance(dtype, (pl.Enum, pl.Categorical)):
            exprs.append(col.cast(pl.String))
        elif dtype.is_float():
            exprs.append(pl.when(col.is_finite()).then(col).otherwise(None).alias(name))
        else:
            exprs.append(col)
    return table.select(exprs).to_dicts()


def _unique(table: pl.DataFrame, column: str) -> list[str]:
    """The distinct values of `column` in order of appearance."""
    return list(table.get_column(column).unique(maintain_order=True).to_list())


def _pretty(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _title(columns: Sequence[str]) -> str:
    return " / ".join(columns)


def _reference_mask(table: pl.DataFrame, reference: Any, sensitive: Sequence[str]) -> pl.Expr:
    """True on the reference row(s): per batch key for ``"largest"``."""
    if isinstance(reference, str) and reference == "largest":
        _check_columns(table, ["n"], "by_group")
        idx = pl.int_range(pl.len())
        first_largest = idx.filter(pl.col("n") == pl.col("n").max()).first()
        return idx.over(_BATCH) == first_largest.over(_BATCH)
    if isinstance(reference, dict):
        if set(reference) != set(sensitive):
            msg = f"`reference` must have the keys {list(sensitive)}, got {reference!r}"
            raise ValueError(msg)
        values = tuple(reference[s] for s in sensitive)
    elif isinstance(reference, tuple):
        values = reference
    else:
        values = (reference,)
    if len(values) != len(sensitive):
        msg = f"`reference` must give one value per sensitive feature {list(sensitive)}, got {reference!r}"
        raise ValueError(msg)
    mask = pl.lit(True)
    for col, value in zip(sensitive, values, strict=True):
        mask = mask & (pl.col(col).is_null() if value is None else (pl.col(col) == value))
    return mask.fill_null(False)


# ---- chart helpers -----------------------------------------------------------------


def _group_y(alt: Any, groups: list[str], sensitive: Sequence[str]) -> Any:
    return alt.Y(f"{_GROUP}:N", sort=groups, title=_title(sensitive), axis=alt.Axis(labelLimit=260))


def _batch_encodings(alt: Any, batches: list[str], by: Sequence[str]) -> dict[str, Any]:
    """Side-by-side batches: an offset within each group's band and a colour each."""
    if not by:
        return {}
    return {
        "yOffset": alt.YOffset(f"{_BATCH}:N", sort=batches, title=_title(by)),
        "color": alt.Color(f"{_BATCH}:N", sort=batches, title=_title(by)),
    }


def _group_scale(alt: Any, groups: Sequence[str]) -> Any:
    """Distinct colours for the groups: ten fixed ones, or a 20-colour scheme beyond."""
    if len(groups) <= len(PALETTE):
        return alt.Scale(domain=list(groups), range=list(PALETTE[: len(groups)]))
    return alt.Scale(domain=list(groups), scheme="tableau20")


def _height(n_rows: int) -> int:
    return max(_HEIGHT // 2, min(600, 18 * n_rows + 24))


def _tooltip(
    alt: Any, sensitive: Sequence[str], by: Sequence[str], fields: Sequence[tuple[str, str]]
) -> list[Any]:
    tips = [alt.Tooltip(f"{_GROUP}:N", title=_title(sensitive))]
    if by:
        tips.append(alt.Tooltip(f"{_BATCH}:N", title=_title(by)))
    for field, title in fields:
        tips.append(alt.Tooltip(f"{field}:Q", title=title, format=".4~g"))
    return tips


def _panels(alt: Any, charts: list[Any], columns: int) -> Any:
    if len(charts) == 1:
        return charts[0]
    return alt.concat(*charts, columns=columns).resolve_scale(color="shared")


# ---- charts ------------------------------------------------------------------------


def rates_chart(
    by_group: pl.DataFrame,
    *,
    rates: Sequence[str] = RATES,
    sensitive_features: str | Sequence[str],
    by: str | Sequence[str] | None = (),
    reference: Any = None,
) -> Any:
    """
    Rates per group with their confidence intervals, one panel per rate.

    Each group is a point at its rate, with an error bar from ``<rate>_ci_low`` to
    ``<rate>_ci_high`` where the table has them (``df.fair.by_group`` gives Wilson
    intervals). With `by`, the batch keys (models, slices) sit side by side within
    each group's row, one colour each.

    Parameters
    ----------
    by_group
        A table of ``df.fair.by_group`` (or any table with the groups and the rates).
    rates
        The rate columns to chart, one panel each.
    sensitive_features
        The column(s) defining the groups; several are joined into one label.
    by
        The batch key column(s), if any.
    reference
        The reference group, marked with its own symbol and a dashed rule at its
        rate: a value, a tuple or dict (intersections), or ``"largest"`` (the group
        with the most rows, or weight, per batch key). None marks no group.

    Returns
    -------
    altair.VConcatChart or altair.LayerChart
        The chart (one layered panel when there is one rate).

    See Also
    --------
    disparity_chart : The same rates as ratios to the reference group.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import rates_chart
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...     }
    ... )
    >>> table = df.fair.by_group(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    >>> chart = rates_chart(table, sensitive_features="group", reference="a")
    >>> type(chart).__name__
    'ConcatChart'
    """
    alt = _import("altair")
    sensitive, keys = _names(sensitive_features), _names(by)
    rates = list(rates)
    if not rates:
        msg = "`rates` must name at least one rate column, got []"
        raise ValueError(msg)
    table = _labelled(by_group, sensitive, keys, "by_group")
    _check_columns(table, rates, "by_group")
    if reference is not None:
        mask = _reference_mask(table, reference, sensitive)
        try:
            table = table.with_columns(
                pl.when(mask).then(pl.lit(_ROLES[0])).otherwise(pl.lit(_ROLES[1])).alias(_ROLE)
            )
        except pl.exceptions.PolarsError as err:  # e.g. a number against a string column
            msg = f"`reference` {reference!r} is not a group of the table"
            raise ValueError(msg) from err
        if _ROLES[0] not in table.get_column(_ROLE).to_list():
            msg = f"`reference` {reference!r} is not a group of the table"
            raise ValueError(msg)
    groups, batches = _unique(table, _GROUP), _unique(table, _BATCH)
    height = _height(len(groups) * max(1, len(batches) if keys else 1))
    extra = ["n"] if "n" in table.columns else []
    role = [_ROLE] if reference is not None else []
    panels = []
    for rate in rates:
        low, high = f"{rate}_ci_low", f"{rate}_ci_high"
        has_ci = low in table.columns and high in table.columns
        long = table.select(
            _GROUP,
            _BATCH,
            *role,
            *extra,
            pl.col(rate).cast(pl.Float64).alias("value"),
            (pl.col(low) if has_ci else pl.lit(None)).cast(pl.Float64).alias("ci_low"),
            (pl.col(high) if has_ci else pl.lit(None)).cast(pl.Float64).alias("ci_high"),
        )
        base = alt.Chart(alt.Data(values=_records(long)))
        y = _group_y(alt, groups, sensitive)
        batch = _batch_encodings(alt, batches, keys)
        colour: dict[str, Any] = {}
        if not keys:
            colour = {"color": alt.value(_OTHER_COLOUR)}
            if reference is not None:
                colour = {
                    "color": alt.Color(
                        f"{_ROLE}:N",
                        scale=alt.Scale(domain=_ROLES, range=[_REFERENCE_COLOUR, _OTHER_COLOUR]),
                        title="Group",
                    )
                }
        x = alt.X("value:Q", title=_pretty(rate), scale=alt.Scale(domain=[0, 1]))
        fields = [("value", _pretty(rate)), ("ci_low", "CI low"), ("ci_high", "CI high")]
        fields += [("n", "n")] if extra else []
        tooltip = _tooltip(alt, sensitive, keys, fields)
        if reference is not None:
            tooltip.append(alt.Tooltip(f"{_ROLE}:N", title="Group"))
        layers = []
        if has_ci:
            layers.append(
                base.mark_rule(strokeWidth=2, opacity=0.7).encode(
                    x=alt.X("ci_low:Q", scale=alt.Scale(domain=[0, 1])),
                    x2="ci_high:Q",
                    y=y,
                    tooltip=tooltip,
                    **batch,
                    **colour,
                )
            )
        shape: dict[str, Any] = {}
        if reference is not None:
            shape = {
                "shape": alt.Shape(
                    f"{_ROLE}:N",
                    scale=alt.Scale(domain=_ROLES, range=["diamond", "circle"]),
                    title="Group",
                )
            }
        layers.append(
            base.mark_point(filled=True, size=70, opacity=1).encode(
                x=x, y=y, tooltip=tooltip, **batch, **colour, **shape
            )
        )
        if reference is not None:
            rule_colour = (
                {"color": alt.Color(f"{_BATCH}:N", sort=batches, title=_title(keys))}
                if keys
                else {"color": alt.value(_REFERENCE_COLOUR)}
            )
            layers.append(
                base.transform_filter(alt.datum[_ROLE] == _ROLES[0])
                .mark_rule(strokeDash=[4, 3], strokeWidth=1.5)
                .encode(x="value:Q", tooltip=tooltip, **rule_colour)
            )
        panels.append(
            alt.layer(*layers).properties(width=_WIDTH, height=height, title=_pretty(rate))
        )
    return _panels(alt, panels, columns=2)


def _log_domain(values: pl.Series, band: tuple[float, float]) -> tuple[float, float]:
    """A log-scale domain covering `values` (finite, positive) and the band, within [1/20, 20]."""
    finite = values.filter(values.is_finite() & (values > 0))
    low = min([band[0], 1.0, *([float(finite.min())] if finite.len() else [])])  # type: ignore[arg-type]
    high = max([band[1], 1.0, *([float(finite.max())] if finite.len() else [])])  # type: ignore[arg-type]
    low, high = max(low / 1.1, 0.05), min(high * 1.1, 20.0)
    return low, high


def disparity_chart(
    disparities: pl.DataFrame,
    *,
    sensitive_features: str | Sequence[str],
    by: str | Sequence[str] | None = (),
    band: tuple[float, float] = (0.8, 1.25),
    metrics: Sequence[str] = RATES,
) -> Any:
    """
    Each group's rate as a ratio to the reference group, one panel per metric.

    Points at the ratio on a log scale, error bars from ``ratio_ci_low`` to
    ``ratio_ci_high`` where the table has them (Katz intervals), a shaded fair
    `band` and a rule at 1 (parity). Ratios outside the axis range (a ratio of 0,
    an interval reaching infinity, anything beyond [1/20, 20]) are drawn at its
    edge; the tooltip shows the exact value.

    Parameters
    ----------
    disparities
        A table of ``df.fair.disparities``: a ``metric`` and a ``ratio`` column per group.
    sensitive_features
        The column(s) defining the groups; several are joined into one label.
    by
        The batch key column(s), if any: batches side by side in each group's row.
    band
        The fair band of ratios (low, high), shaded.
    metrics
        The metrics to chart, one panel each (those absent from the table are skipped).

    Returns
    -------
    altair.ConcatChart or altair.LayerChart
        The chart (one layered panel when there is one metric).

    See Also
    --------
    rates_chart : The rates themselves, with their intervals.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import disparity_chart, to_svg
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...     }
    ... )
    >>> table = df.fair.disparities(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    >>> chart = disparity_chart(table, sensitive_features="group", metrics=["selection_rate"])
    >>> "<svg" in to_svg(chart)
    True
    """
    alt = _import("altair")
    sensitive, keys = _names(sensitive_features), _names(by)
    table = _labelled(disparities, sensitive, keys, "disparities")
    _check_columns(table, ["metric", "ratio"], "disparities")
    table = table.with_columns(pl.col("metric").cast(pl.String))
    present = set(table.get_column("metric").to_list())
    shown = [m for m in metrics if m in present]
    if not shown:
        msg = f"none of the metrics {list(metrics)} is in the disparities table; it has {sorted(present)}"
        raise ValueError(msg)
    has_ci = "ratio_ci_low" in table.columns and "ratio_ci_high" in table.columns
    ci = [pl.col("ratio_ci_low"), pl.col("ratio_ci_high")] if has_ci else []
    table = table.filter(pl.col("metric").is_in(shown)).with_columns(
        pl.col("ratio", *(["ratio_ci_low", "ratio_ci_high"] if has_ci else [])).cast(pl.Float64)
    )
    values = pl.concat([table.get_column("ratio"), *(table.select(c).to_series() for c in ci)])
    low, high = _log_domain(values, band)

    def clamped(expr: pl.Expr) -> pl.Expr:
        # NaN (0/0) stays undrawn; 0 and +inf go to the axis edges
        return pl.when(expr.is_nan()).then(None).otherwise(expr.clip(low, high))

    groups, batches = _unique(table, _GROUP), _unique(table, _BATCH)
    height = _height(len(groups) * max(1, len(batches) if keys else 1))
    band_data = alt.Data(values=[{"low": band[0], "high": band[1], "one": 1.0}])
    x_scale = alt.Scale(type="log", domain=[low, high], nice=False)
    ticks = [t for t in _RATIO_TICKS if low <= t <= high]
    panels = []
    for metric in shown:
        rows = table.filter(pl.col("metric") == metric)
        long = rows.select(
            _GROUP,
            _BATCH,
            "ratio",
            *(["ratio_ci_low", "ratio_ci_high"] if has_ci else []),
            *(c for c in ("value", "reference_value") if c in rows.columns),
            clamped(pl.col("ratio")).alias("x"),
            *(
                [
                    clamped(pl.col("ratio_ci_low")).alias("x_low"),
                    clamped(pl.col("ratio_ci_high")).alias("x_high"),
                ]
                if has_ci
                else []
            ),
        )
        base = alt.Chart(alt.Data(values=_records(long)))
        y = _group_y(alt, groups, sensitive)
        batch = _batch_encodings(alt, batches, keys)
        colour = {} if keys else {"color": alt.value(_OTHER_COLOUR)}
        fields = [("ratio", "Ratio")]
        fields += [("ratio_ci_low", "CI low"), ("ratio_ci_high", "CI high")] if has_ci else []
        fields += [(c, _pretty(c)) for c in ("value", "reference_value") if c in rows.columns]
        tooltip = _tooltip(alt, sensitive, keys, fields)
        layers = [
            alt.Chart(band_data)
            .mark_rect(color="#1a7f37", opacity=0.12)
            .encode(x=alt.X("low:Q", scale=x_scale), x2="high:Q"),
            alt.Chart(band_data)
            .mark_rule(color="#6e7781", strokeDash=[4, 3])
            .encode(x=alt.X("one:Q", scale=x_scale)),
        ]
        if has_ci:
            layers.append(
                base.mark_rule(strokeWidth=2, opacity=0.7).encode(
                    x=alt.X("x_low:Q", scale=x_scale),
                    x2="x_high:Q",
                    y=y,
                    tooltip=tooltip,
                    **batch,
                    **colour,
                )
            )
        layers.append(
            base.mark_point(filled=True, size=70, opacity=1).encode(
                x=alt.X(
                    "x:Q",
                    scale=x_scale,
                    title="Ratio to the reference (log scale)",
                    axis=alt.Axis(values=ticks, format="~g"),
                ),
                y=y,
                tooltip=tooltip,
                **batch,
                **colour,
            )
        )
        panels.append(
            alt.layer(*layers).properties(width=_WIDTH, height=height, title=_pretty(metric))
        )
    return _panels(alt, panels, columns=2)


def _per_batch(
    alt: Any, table: pl.DataFrame, keys: list[str], build: Any, *, independent: bool = False
) -> Any:
    """One panel per batch key (titled with it), or one panel without `by`."""
    if not keys:
        return build(table, None)
    panels = [
        build(table.filter(pl.col(_BATCH) == batch), f"{_title(keys)}: {batch}")
        for batch in _unique(table, _BATCH)
    ]
    if len(panels) == 1:
        return panels[0]
    chart = alt.concat(*panels, columns=2)
    return chart.resolve_scale(color="independent") if independent else chart


def _diagonal(alt: Any) -> Any:
    data = alt.Data(values=[{"d": 0.0}, {"d": 1.0}])
    return (
        alt.Chart(data)
        .mark_line(color="#6e7781", strokeDash=[4, 3])
        .encode(x=alt.X("d:Q"), y=alt.Y("d:Q"))
    )


def calibration_chart(
    calibration: pl.DataFrame,
    *,
    sensitive_features: str | Sequence[str],
    by: str | Sequence[str] | None = (),
) -> Any:
    """
    Reliability diagram: the fraction of positives against the mean score per bin.

    One line per group (points sized by the bin's count), and the diagonal where
    a calibrated score lies. With `by`, one panel per batch key.

    Parameters
    ----------
    calibration
        A table of ``df.fair.calibration``: ``mean_prob``, ``fraction_positive``
        (and ``n``, ``bin``) per group and bin.
    sensitive_features
        The column(s) defining the groups; several are joined into one label.
    by
        The batch key column(s), if any: one panel each.

    Returns
    -------
    altair.LayerChart or altair.ConcatChart
        The chart.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import calibration_chart
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a", "a", "a", "b", "b", "b"],
    ...         "y_true": [0, 1, 1, 0, 0, 1],
    ...         "score": [0.2, 0.7, 0.9, 0.1, 0.6, 0.8],
    ...     }
    ... )
    >>> table = df.fair.calibration(
    ...     y_true="y_true", y_prob="score", sensitive_features="group", n_bins=2
    ... )
    >>> type(calibration_chart(table, sensitive_features="group")).__name__
    'LayerChart'
    """
    alt = _import("altair")
    sensitive, keys = _names(sensitive_features), _names(by)
    table = _labelled(calibration, sensitive, keys, "calibration")
    _check_columns(table, ["mean_prob", "fraction_positive"], "calibration")
    groups = _unique(table, _GROUP)
    extra = [c for c in ("bin", "n") if c in table.columns]
    unit = alt.Scale(domain=[0, 1])

    def build(rows: pl.DataFrame, title: str | None) -> Any:
        long = rows.select(_GROUP, _BATCH, *extra, "mean_prob", "fraction_positive")
        base = alt.Chart(alt.Data(values=_records(long)))
        fields = [("mean_prob", "Mean score"), ("fraction_positive", "Fraction positive")]
        fields += [(c, c) for c in extra]
        enc = {
            "x": alt.X("mean_prob:Q", scale=unit, title="Mean score in the bin"),
            "y": alt.Y("fraction_positive:Q", scale=unit, title="Fraction of positives"),
            "color": alt.Color(
                f"{_GROUP}:N",
                sort=groups,
                title=_title(sensitive),
                scale=_group_scale(alt, groups),
                legend=alt.Legend(labelLimit=320, symbolLimit=0),
            ),
            "tooltip": _tooltip(alt, sensitive, keys, fields),
        }
        size = {"size": alt.Size("n:Q", title="n")} if "n" in extra else {}
        order = {"order": alt.Order("mean_prob:Q")}
        chart = alt.layer(
            _diagonal(alt),
            base.mark_line(strokeWidth=1.5, clip=True).encode(**enc, **order),
            base.mark_circle(opacity=0.9).encode(**enc, **size),
        )
        return chart.properties(width=_SQUARE, height=_SQUARE, title=title or "Calibration")

    return _per_batch(alt, table, keys, build)


def roc_chart(
    roc_curve: pl.DataFrame,
    *,
    sensitive_features: str | Sequence[str],
    by: str | Sequence[str] | None = (),
    roc_auc: pl.DataFrame | None = None,
) -> Any:
    """
    ROC curves: true positive rate against false positive rate, one line per group.

    Each curve runs from the highest threshold to the lowest, with the diagonal
    of a score that ranks at random. With `roc_auc`, each group's legend label
    gives its AUC. With `by`, one panel per batch key. Curves longer than 200
    points are thinned (evenly, keeping both ends) to keep the SVG small.

    Parameters
    ----------
    roc_curve
        A table of ``df.fair.roc_curve``: ``threshold``, ``fpr`` and ``tpr`` per group.
    sensitive_features
        The column(s) defining the groups; several are joined into one label.
    by
        The batch key column(s), if any: one panel each.
    roc_auc
        A table of ``df.fair.roc_auc`` for the same groups, to label the curves.

    Returns
    -------
    altair.LayerChart or altair.ConcatChart
        The chart.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import roc_chart
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a", "a", "a", "b", "b", "b"],
    ...         "y_true": [0, 1, 1, 0, 0, 1],
    ...         "score": [0.2, 0.7, 0.9, 0.1, 0.6, 0.8],
    ...     }
    ... )
    >>> kw = dict(y_true="y_true", y_prob="score", sensitive_features="group")
    >>> chart = roc_chart(
    ...     df.fair.roc_curve(**kw), sensitive_features="group", roc_auc=df.fair.roc_auc(**kw)
    ... )
    >>> type(chart).__name__
    'LayerChart'
    """
    alt = _import("altair")
    sensitive, keys = _names(sensitive_features), _names(by)
    table = _labelled(roc_curve, sensitive, keys, "roc_curve")
    _check_columns(table, ["fpr", "tpr"], "roc_curve")
    curve = [_BATCH, _GROUP]
    if "threshold" in table.columns:
        rank = pl.col("threshold").rank("ordinal", descending=True)
    else:
        rank = pl.struct("fpr", "tpr").rank("ordinal")
    table = table.with_columns((rank.over(curve) - 1).cast(pl.Int64).alias("pf_order"))
    size = pl.len().over(curve)
    step = ((size + _ROC_POINTS - 1) // _ROC_POINTS).clip(1)
    table = table.filter((pl.col("pf_order") % step == 0) | (pl.col("pf_order") == size - 1)).sort(
        [*curve, "pf_order"], maintain_order=True
    )
    series = _GROUP
    if roc_auc is not None:
        aucs = _labelled(roc_auc, sensitive, keys, "roc_auc")
        _check_columns(aucs, ["roc_auc"], "roc_auc")
        aucs = aucs.select(
            _BATCH,
            _GROUP,
            pl.col("roc_auc").cast(pl.Float64).alias("pf_auc"),
        )
        table = table.join(aucs, on=curve, how="left", nulls_equal=True).with_columns(
            pl.concat_str(
                pl.col(_GROUP),
                pl.lit(" (AUC "),
                pl.when(pl.col("pf_auc").is_finite())
                .then(pl.col("pf_auc").round(3).cast(pl.String))
                .otherwise(pl.lit("n/a")),
                pl.lit(")"),
            ).alias("pf_series")
        )
        series = "pf_series"
    cols = [c for c in (_GROUP, _BATCH, "pf_series", "threshold", "pf_auc") if c in table.columns]
    unit = alt.Scale(domain=[0, 1])

    def build(rows: pl.DataFrame, title: str | None) -> Any:
        long = rows.select(*cols, "fpr", "tpr", "pf_order")
        base = alt.Chart(alt.Data(values=_records(long)))
        fields = [("fpr", "FPR"), ("tpr", "TPR")]
        fields += [("threshold", "Threshold")] if "threshold" in cols else []
        fields += [("pf_auc", "AUC")] if "pf_auc" in cols else []
        line = base.mark_line(strokeWidth=1.8, clip=True).encode(
            x=alt.X("fpr:Q", scale=unit, title="False positive rate"),
            y=alt.Y("tpr:Q", scale=unit, title="True positive rate"),
            color=alt.Color(
                f"{series}:N",
                sort=_unique(rows, series),
                title=_title(sensitive),
                scale=_group_scale(alt, _unique(rows, series)),
                legend=alt.Legend(labelLimit=320, symbolLimit=0),
            ),
            order=alt.Order("pf_order:Q"),
            tooltip=_tooltip(alt, sensitive, keys, fields),
        )
        chart = alt.layer(_diagonal(alt), line)
        return chart.properties(width=_SQUARE, height=_SQUARE, title=title or "ROC curves")

    return _per_batch(alt, table, keys, build, independent=roc_auc is not None)


# ---- rendering -----------------------------------------------------------------------


def _vl_version(vlc: Any) -> str | None:
    """The vl-convert version string matching altair's Vega-Lite schema, if supported."""
    try:
        alt = importlib.import_module("altair")
    except ImportError:  # pragma: no cover - charts come from altair
        return None
    major_minor = ".".join(str(alt.SCHEMA_VERSION).lstrip("v").split(".")[:2])
    versions = [str(v) for v in vlc.get_vegalite_versions()]
    return f"v{major_minor.replace('.', '_')}" if major_minor in versions else None


def to_svg(chart: Any) -> str:
    """
    Render a chart to SVG text, without a browser or the network (via vl-convert).

    Parameters
    ----------
    chart
        An Altair chart (anything with ``to_dict()``), or a Vega-Lite spec as a
        dict or JSON string.

    Returns
    -------
    str
        The SVG document.

    Raises
    ------
    ImportError
        If vl-convert is not installed (``pip install "polars-fair[plot]"``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.plots import rates_chart, to_svg
    >>> table = pl.DataFrame({"group": ["a", "b"], "n": [10, 12], "selection_rate": [0.3, 0.5]})
    >>> chart = rates_chart(table, rates=["selection_rate"], sensitive_features="group")
    >>> to_svg(chart).startswith("<svg")
    True
    """
    vlc = _import("vl_convert")
    spec = chart.to_dict() if hasattr(chart, "to_dict") else chart
    return str(vlc.vegalite_to_svg(spec, vl_version=_vl_version(vlc)))


_ID = re.compile(r'\bid="([^"]+)"')


def _scoped_ids(svg: str, prefix: str) -> str:
    """Prefix the SVG's element ids and the references to them.

    Several SVGs inlined in one HTML page must not share ids, or their clip paths
    would clash (vl-convert numbers them from 1 in every SVG).
    """
    ids = set(_ID.findall(svg))
    if not ids:
        return svg
    names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    pattern = re.compile(rf'(\bid="|url\(#|href="#)({names})(?=["\)])')
    return pattern.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)


def _inline(svg: str, title: str, index: int) -> str:
    digest = hashlib.sha1(svg.encode(), usedforsecurity=False).hexdigest()[:8]
    svg = _scoped_ids(svg, f"pf{index}-{digest}-")
    label = html.escape(title, quote=True)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)


def _keep(table: pl.DataFrame, kept: pl.DataFrame | None, keys: Sequence[str]) -> pl.DataFrame:
    """The rows of `table` of the kept groups (all rows when `kept` is None)."""
    if kept is None:
        return table
    cast = kept.select(pl.col(k).cast(table.schema[k]) for k in keys)
    return table.join(cast, on=list(keys), how="semi", nulls_equal=True, maintain_order="left")


def charted_groups(
    report: _Report, max_groups: int = MAX_GROUPS
) -> tuple[pl.DataFrame | None, str | None]:
    """
    The groups the report's charts show, and a note on those left out.

    With more than `max_groups` groups, the charts show the largest groups (rows
    summed over batch keys), the reference group, and the groups farthest from
    the reference (the largest gap of any charted rate's ratio from 1, among
    groups that are not flagged as small): a chart of 42 overlapping curves
    answers nothing, and a palette has about 10 distinct colours.

    Parameters
    ----------
    report
        A :class:`~polars_fair.FairnessReport`.
    max_groups
        The most groups a chart shows.

    Returns
    -------
    (DataFrame or None, str or None)
        The sensitive-feature values of the groups charted (None: every group)
        and a sentence saying what was left out (None: nothing).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import charted_groups
    >>> df = pl.DataFrame(
    ...     {
    ...         "g": [f"g{i}" for i in range(12) for j in range(i + 2)],
    ...         "y_true": [j % 2 for i in range(12) for j in range(i + 2)],
    ...         "y_pred": [(i + j) % 3 == 0 for i in range(12) for j in range(i + 2)],
    ...     }
    ... )
    >>> report = df.fair.report(
    ...     y_true="y_true", y_pred="y_pred", sensitive_features="g", min_group_size=1
    ... )
    >>> kept, note = charted_groups(report, max_groups=5)
    >>> kept.height
    5
    >>> print(note)  # doctest: +ELLIPSIS
    The charts show 5 of 12 groups: the 3 largest and the 2 farthest from the reference...
    """
    sensitive = _names(report.params.get("sensitive_features"))
    table = report.by_group
    if not sensitive or "n" not in table.columns or any(c not in table for c in sensitive):
        return None, None
    keys = [c for c in _names(report.params.get("by")) if c in table.columns]
    small_flag = ["small_group"] if "small_group" in table.columns else []
    if keys:
        sizes = table.group_by(sensitive).agg(
            pl.col("n").sum(), *(pl.col(c).any() for c in small_flag)
        )
    else:  # already one row per group
        sizes = table.select(*sensitive, "n", *small_flag)
    if sizes.height <= max_groups:
        return None, None
    order = [True] + [False] * len(sensitive)
    n_far = max_groups * 2 // 5
    by_size = ["n", *sensitive]
    reverse = [False] + [True] * len(sensitive)
    largest = sizes.top_k(max_groups - n_far, by=by_size, reverse=reverse).select(sensitive)
    reference = report.params.get("reference_group")
    if isinstance(reference, list):
        reference = tuple(reference)
    if reference is not None and not (isinstance(reference, str) and reference == "largest"):
        labelled = _labelled(sizes, sensitive, [], "by_group")
        try:
            ref = labelled.filter(_reference_mask(labelled, reference, sensitive)).select(sensitive)
        except (ValueError, pl.exceptions.PolarsError):  # a policy such as "min"
            ref = largest.clear()
        largest = pl.concat([ref, largest]).unique(maintain_order=True).head(max_groups - n_far)
    far = largest.clear()
    present = report.disparities.get_column("metric").unique().cast(pl.String).to_list()
    metrics = [r for r in RATES if r in present]
    if metrics and all(c in report.disparities.columns for c in sensitive):
        gap = (pl.col("ratio").cast(pl.Float64).log().abs()).max().alias("gap")
        # the candidates first (groups that are not small nor already kept): few rows
        candidates = sizes
        if small_flag:
            candidates = candidates.filter(~pl.col("small_group"))
        candidates = candidates.select(sensitive).join(
            largest, on=sensitive, how="anti", nulls_equal=True
        )
        rows = report.disparities.join(
            candidates, on=sensitive, how="semi", nulls_equal=True
        ).filter(
            pl.col("metric").is_in(metrics) & pl.col("ratio").is_finite() & (pl.col("ratio") > 0)
        )
        ranked = rows.group_by(sensitive).agg(gap).filter(pl.col("gap") > 0)
        far = ranked.sort(["gap", *sensitive], descending=order, nulls_last=True).head(n_far)
        far = far.select(sensitive)
    kept = pl.concat([largest, far])
    if kept.height < max_groups:  # fewer far groups than places: more of the largest
        more = sizes.join(kept, on=sensitive, how="anti", nulls_equal=True)
        more = more.top_k(max_groups - kept.height, by=by_size, reverse=reverse)
        kept = pl.concat([kept, more.select(sensitive)])
    n_largest = kept.height - far.height
    note = (
        f"The charts show {kept.height} of {sizes.height} groups: the {n_largest} largest"
        + (f" and the {far.height} farthest from the reference (largest gap of a rate's "
           "ratio from 1, among groups that are not small)" if far.height else "")
        + f"; {sizes.height - kept.height} are left out of the charts (every group's numbers: "
        "``report.by_group``)."
    )  # fmt: skip
    return kept, note


def report_svgs(report: _Report, *, max_groups: int = MAX_GROUPS) -> list[tuple[str, str]]:
    """
    The charts of a fairness report as ``(title, svg)`` pairs.

    Rates per group with intervals and the ratios to the reference always; the
    calibration and ROC curves when the report has a score. The SVGs are ready to
    inline in one HTML page (their element ids are made unique), as
    :meth:`~polars_fair.FairnessReport.to_html` does.

    Parameters
    ----------
    report
        A :class:`~polars_fair.FairnessReport`.

    Returns
    -------
    list of (str, str)
        Each chart's title and SVG text.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import report_svgs
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...     }
    ... )
    >>> report = df.fair.report(
    ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", min_group_size=5
    ... )
    >>> [title for title, svg in report_svgs(report)]
    ['Rates per group', 'Ratio to the reference group']
    """
    params = report.params
    sensitive = _names(params.get("sensitive_features"))
    keys = _names(params.get("by"))
    kept, _ = charted_groups(report, max_groups)
    by_group = _keep(report.by_group, kept, sensitive)
    disparities = _keep(report.disparities, kept, sensitive)
    calibration = None if report.calibration is None else _keep(report.calibration, kept, sensitive)
    roc_curve = None if report.roc_curve is None else _keep(report.roc_curve, kept, sensitive)
    roc_auc = None if report.roc_auc is None else _keep(report.roc_auc, kept, sensitive)
    reference = params.get("reference_group")
    if isinstance(reference, list):  # e.g. parameters read back from JSON
        reference = tuple(reference)
    band = tuple(params.get("ratio_band") or (0.8, 1.25))
    rates = [r for r in RATES if r in by_group.columns]
    charts: list[tuple[str, Any]] = []
    if rates:
        charts.append(
            (
                "Rates per group",
                rates_chart(
                    by_group,
                    rates=rates,
                    sensitive_features=sensitive,
                    by=keys,
                    reference="largest" if reference is None else reference,
                ),
            )
        )
    metrics = set(disparities.get_column("metric").cast(pl.String).to_list())
    if metrics & set(RATES):
        charts.append(
            (
                "Ratio to the reference group",
                disparity_chart(
                    disparities,
                    sensitive_features=sensitive,
                    by=keys,
                    band=(float(band[0]), float(band[1])),
                ),
            )
        )
    if calibration is not None and calibration.height:
        charts.append(
            (
                "Calibration",
                calibration_chart(calibration, sensitive_features=sensitive, by=keys),
            )
        )
    if roc_curve is not None and roc_curve.height:
        charts.append(
            (
                "ROC curves",
                roc_chart(roc_curve, sensitive_features=sensitive, by=keys, roc_auc=roc_auc),
            )
        )
    return [(title, _inline(to_svg(chart), title, i)) for i, (title, chart) in enumerate(charts)]
