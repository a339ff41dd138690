"""Charts of a fairness report: Altair charts, rendered to static SVG.

Each function takes one of the report's tables (``df.fair.by_group``,
``df.fair.disparities``, ``df.fair.calibration``, ``df.fair.roc_curve``) and returns
an Altair chart: one small panel per rate or batch key, groups on one axis,
Wilson or Katz intervals as error bars, tooltips on every mark.
:func:`to_svg` renders a chart to SVG with ``vl_convert`` (no browser, no network);
:func:`report_svgs` gives those :meth:`~polars_fair.FairnessReport.to_html` embeds.

Altair and vl-convert are optional (``pip install "polars-fair[plot]"``): they
are imported when a chart is built, so this module imports without them. Groups of several sensitive features are labelled by joining their values
(``"F / Black"``); a null value is shown as ``"null"``.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair.report._plot_groups import (
    _BATCH,
    _GROUP,
    MAX_GROUPS,
    RATES,
    _batch_encodings,
    _check_columns,
    _diagonal,
    _group_scale,
    _group_y,
    _height,
    _keep,
    _labelled,
    _log_domain,
    _names,
    _panels,
    _per_batch,
    _pretty,
    _records,
    _reference_mask,
    _Report,
    _title,
    _tooltip,
    _unique,
    charted_groups,
    xml_safe,
)

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

_HINT = 'pip install "polars-fair[plot]"'
_ROLE = "pf_role"
_WIDTH = 300
_SQUARE = 240
_REFERENCE_COLOUR = "#e45756"
_OTHER_COLOUR = "#4c78a8"
_ROLES = ["reference", "compared"]
#: Ticks of the ratio axis (those inside its domain are shown).
_RATIO_TICKS = (0.05, 0.1, 0.2, 0.5, 0.8, 1.0, 1.25, 2.0, 5.0, 10.0, 20.0)
#: Longest ROC curve drawn per group and batch key; longer curves are thinned.
_ROC_POINTS = 200


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
    >>> from polars_fair.report.plots import rates_chart
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
            alt.layer(*layers).properties(
                width=_WIDTH, height=height, title=_pretty(rate) + _empty_note(long, "value")
            )
        )
    return _panels(alt, panels, columns=2)


def _empty_note(long: pl.DataFrame, column: str) -> str:
    """A panel title's note when no group has a value: the panel would be blank, unsaid."""
    if long.height and long.get_column(column).is_null().all():
        return " (undefined for every group)"
    return ""


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
    >>> from polars_fair.report.plots import disparity_chart, to_svg
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
    # across more than a decade 0.8, 1 and 1.25 print over each other: label 1 only (the
    # band's edges are in the page's caption)
    crowded = (0.8, 1.25) if high / low > 10 else ()
    ticks = [t for t in _RATIO_TICKS if low <= t <= high and t not in crowded]
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
                    title=f"Ratio to the reference (log scale; fair {band[0]:g} – {band[1]:g})",
                    axis=alt.Axis(values=ticks, format="~g"),
                ),
                y=y,
                tooltip=tooltip,
                **batch,
                **colour,
            )
        )
        panels.append(
            alt.layer(*layers).properties(
                width=_WIDTH, height=height, title=_pretty(metric) + _empty_note(long, "ratio")
            )
        )
    return _panels(alt, panels, columns=2)


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
    >>> from polars_fair.report.plots import calibration_chart
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
    >>> from polars_fair.report.plots import roc_chart
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
        title = title or "ROC curves"
        if long.height and long.get_column("fpr").is_null().all():  # one class everywhere
            title += ": none (one label class per group)"
        return chart.properties(width=_SQUARE, height=_SQUARE, title=title)

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
    >>> from polars_fair.report.plots import rates_chart, to_svg
    >>> table = pl.DataFrame({"group": ["a", "b"], "n": [10, 12], "selection_rate": [0.3, 0.5]})
    >>> chart = rates_chart(table, rates=["selection_rate"], sensitive_features="group")
    >>> to_svg(chart).startswith("<svg")
    True
    """
    vlc = _import("vl_convert")
    spec = xml_safe(chart.to_dict() if hasattr(chart, "to_dict") else chart)
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
    max_groups
        The most groups a chart shows: the largest, the reference and the farthest
        from it (see :func:`~polars_fair.report._plot_groups.charted_groups`).

    Returns
    -------
    list of (str, str)
        Each chart's title and SVG text.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.report.plots import report_svgs
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
