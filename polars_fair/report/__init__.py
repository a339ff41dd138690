"""The fairness report: the tables of one audit, and how they are shown.

A :class:`FairnessReport` holds collected tables (nothing lazy, nothing to
recompute): per-group rates with intervals, every group against the reference,
one row per criterion with its verdict, the trade-offs between criteria and,
with a score, calibration and ROC curves. It renders them as a dict, JSON,
Markdown or a self-contained HTML page whose charts are inline SVG (no network,
no JavaScript). Build one with ``df.fair.report(...)`` or ``lf.fair.report(...)``.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair.metrics._compare import compare_summaries

__all__ = ["FairnessReport"]

#: The report's tables, in the order they are shown.
TABLES = (
    "summary", "slices", "by_group", "disparities", "tradeoffs", "calibration", "roc_auc",
    "roc_curve",
)  # fmt: skip
#: Slices shown per batch key in Markdown and HTML (the dict and JSON keep all).
SLICES_SHOWN = 20

_TITLES = {
    "summary": "Criteria and verdicts",
    "slices": "Worst slices",
    "by_group": "Rates per group",
    "disparities": "Disparities against the reference",
    "tradeoffs": "Trade-offs between criteria",
    "calibration": "Calibration per group",
    "roc_auc": "ROC AUC per group",
    "roc_curve": "ROC curves",
}
#: Columns of the wide tables shown in Markdown and HTML (the dict and JSON keep all).
_SHOWN = {
    "by_group": None,
    "disparities": [
        "metric", "value", "reference_value", "difference", "ratio",
        "difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high",
    ],
    "tradeoffs": None,
    "calibration": None,
    "roc_auc": None,
}  # fmt: skip
_RATES_SHOWN = (
    "selection_rate", "base_rate", "true_positive_rate", "false_positive_rate",
    "positive_predictive_value", "negative_predictive_value", "accuracy",
)  # fmt: skip
_VERDICT_COLOURS = {
    "fair": "#1a7f37",
    "unfair": "#cf222e",
    "too_small": "#9a6700",
    "undefined": "#6e7781",
}


def _json_value(value: Any) -> Any:
    """A JSON-safe value: NaN and infinities become None (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class FairnessReport:
    """
    The collected tables of one fairness audit, ready to read, save or gate on.

    Attributes
    ----------
    summary
        One row per criterion (and batch key): value, ideal, fair band, verdict,
        interval, p-value (see ``df.fair.summary``).
    by_group
        Counts, rates and Wilson intervals per group (``df.fair.by_group``).
    disparities
        Every group against the reference, for every rate, with Newcombe and Katz
        intervals (``df.fair.disparities``).
    tradeoffs
        Which criteria can hold together with these base rates
        (``df.fair.tradeoffs``).
    calibration, roc_auc, roc_curve
        With a score: calibration bins, AUC and exact ROC curves per group; None
        without one.
    params
        What was audited: columns, groups, batch keys, reference and bands.

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
    >>> report = df.fair.report(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    >>> dp = report.summary.filter(pl.col("criterion") == "demographic_parity_difference")
    >>> round(dp.item(0, "value"), 4)
    0.2
    >>> sorted(report.to_dict()["tables"])
    ['by_group', 'disparities', 'summary', 'tradeoffs']
    """

    summary: pl.DataFrame
    by_group: pl.DataFrame
    disparities: pl.DataFrame
    tradeoffs: pl.DataFrame
    calibration: pl.DataFrame | None = None
    roc_auc: pl.DataFrame | None = None
    roc_curve: pl.DataFrame | None = None
    slices: pl.DataFrame | None = None
    params: dict[str, Any] = field(default_factory=dict)

    # ---- access ------------------------------------------------------------------

    def tables(self) -> Iterator[tuple[str, pl.DataFrame]]:
        """The report's tables that are present, as ``(name, table)`` in display order."""
        for name in TABLES:
            table = getattr(self, name)
            if table is not None:
                yield name, table

    @property
    def by(self) -> list[str]:
        """The batch key columns (empty without `by`)."""
        return list(self.params.get("by", []))

    def side_by_side(self) -> pl.DataFrame | None:
        """
        The summary with one column per batch key: ``"value (verdict)"`` per criterion.

        Returns
        -------
        DataFrame or None
            ``criterion`` and one column per batch key (values of the `by` columns
            joined with " / "); None without `by`.
        """
        if not self.by:
            return None
        label = pl.concat_str([pl.col(c).cast(pl.String) for c in self.by], separator=" / ")
        cell = pl.format(
            "{} ({})",
            pl.col("value").round(4).cast(pl.String).fill_null("null"),
            pl.col("verdict").cast(pl.String),
        )
        long = self.summary.select(
            label.fill_null("null").alias("__pf_key"), "criterion", cell.alias("__pf_cell")
        )
        return long.pivot(on="__pf_key", index="criterion", values="__pf_cell", maintain_order=True)

    def failing(self) -> pl.DataFrame:
        """The summary rows whose verdict is ``"unfair"``."""
        return self.summary.filter(pl.col("verdict") == "unfair")

    def compare(self, baseline: FairnessReport, *, tolerance: float = 0.02) -> pl.DataFrame:
        """
        Each criterion of this report (the candidate) against `baseline`'s.

        Per criterion and batch key: the baseline and candidate values, the change
        with an interval, and a verdict ``worse``, ``better``, ``unchanged`` or
        ``inconclusive`` on the change of the distance to the ideal (see
        :func:`polars_fair.metrics._compare.compare_summaries`).

        Parameters
        ----------
        baseline
            The report of what runs today, with the same batch keys.
        tolerance
            Changes of the distance to the ideal within this count as no change.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {"g": ["a", "b"] * 200, "y": [1, 0, 0, 1, 0, 1, 1, 0] * 50, "p": [1, 0, 1, 1, 0, 0, 1, 0] * 50}
        ... )
        >>> kw = dict(y_true="y", sensitive_features="g")
        >>> fair_model = df.fair.report(y_pred=pl.col("y") == 1, **kw)
        >>> biased = df.fair.report(y_pred=pl.col("p") == 1, **kw)
        >>> out = biased.compare(fair_model)
        >>> out.filter(pl.col("criterion") == "demographic_parity_difference")["verdict"].item()
        'worse'
        """
        return compare_summaries(
            self.summary, baseline.summary, by=self.by, tolerance=tolerance,
            confidence_level=self.params.get("confidence_level", 0.95),
        )  # fmt: skip

    def slice_failures(self) -> list[str]:
        """One line per significant slice (a release gate), empty without slices."""
        if self.slices is None:
            return []
        lines = []
        for row in self.slices.filter(pl.col("significant")).iter_rows(named=True):
            where = ", ".join(f"{k}={row[k]}" for k in self.by)
            lines.append(
                f"slice {row['slice']}: {row['metric']} {row['value']:.4g} vs "
                f"{row['rest_value']:.4g} in the rest, difference {row['difference']:.4g} "
                f"[{row['ci_low']:.4g}, {row['ci_high']:.4g}], q = {row['q_value']:.2g}"
                + (f" ({where})" if where else "")
            )
        return lines

    # ---- serialisation ---------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """
        The report as plain Python objects: ``{"params": ..., "tables": {name: rows}}``.

        Each table is a list of row dicts; Enum columns become strings and non-finite
        floats None, so the result is JSON-safe.

        Returns
        -------
        dict
            The parameters and every table present.
        """
        tables = {}
        for name, table in self.tables():
            cast = table.with_columns(
                pl.col(c).cast(pl.String)
                for c, dtype in table.schema.items()
                if isinstance(dtype, (pl.Enum, pl.Categorical))
            )
            tables[name] = [
                {k: _json_value(v) for k, v in row.items()} for row in cast.iter_rows(named=True)
            ]
        return {"params": self.params, "tables": tables}

    def to_json(self, *, indent: int | None = 2) -> str:
        """
        The report as JSON (see :meth:`to_dict`).

        Parameters
        ----------
        indent
            Indentation of the JSON text; None for one line.

        Returns
        -------
        str
            The JSON document.
        """
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def to_markdown(self) -> str:
        """
        The report as Markdown: a heading and a table per section.

        Returns
        -------
        str
            The Markdown document.
        """
        lines = ["# Fairness report", "", _describe(self.params), ""]
        with pl.Config(
            tbl_formatting="MARKDOWN",
            tbl_width_chars=65_535,  # never wrap a cell: Markdown rows are single lines
            tbl_hide_column_data_types=True,
            tbl_hide_dataframe_shape=True,
            tbl_rows=-1,
            tbl_cols=-1,
            fmt_str_lengths=200,
            float_precision=4,
        ):
            wide = self.side_by_side()
            if wide is not None:
                lines += ["## Criteria side by side", "", str(wide), ""]
            for name, table in self.tables():
                if name == "roc_curve":
                    continue  # one row per distinct score: a chart, not a table
                lines += [f"## {_TITLES[name]}", "", str(self._shown(name, table)), ""]
        return "\n".join(lines)

    def to_html(self, path: str | Path | None = None) -> str:
        """
        The report as one self-contained HTML page (inline CSS and SVG charts).

        Charts need the ``plot`` extra (``pip install "polars-fair[plot]"``); without
        it the page holds the tables and says how to get the charts.

        Parameters
        ----------
        path
            Where to write the page (UTF-8). If None, only return it.

        Returns
        -------
        str
            The HTML document.
        """
        page = _html_page(self)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def _repr_html_(self) -> str:
        """Rich display in notebooks."""
        return _html_body(self)

    def _shown(self, name: str, table: pl.DataFrame) -> pl.DataFrame:
        keys = [c for c in (*self.by, *self.params.get("sensitive_features", [])) if c in table]
        if name == "by_group":
            rates = [c for c in table.columns if c.startswith(_RATES_SHOWN)]
            return table.select(*keys, "n", *rates)
        if name == "summary":
            cols = ["criterion", "value", "ideal", "fair_low", "fair_high", "verdict",
                    "ci_low", "ci_high", "p_value", "min_group_n"]  # fmt: skip
            return table.select(*self.by, *(c for c in cols if c in table.columns))
        if name == "slices":
            cols = ["rank", "slice", "n", "value", "rest_value", "difference", "ci_low",
                    "ci_high", "q_value", "significant"]  # fmt: skip
            return table.filter(pl.col("rank") <= SLICES_SHOWN).select(*self.by, *cols)
        wanted = _SHOWN.get(name)
        if wanted is None:
            return table
        return table.select(*keys, *(c for c in wanted if c in table.columns))


# ---- rendering helpers -----------------------------------------------------------------


def _describe(params: dict[str, Any]) -> str:
    parts = [f"Groups: {', '.join(params.get('sensitive_features', []))}"]
    if params.get("by"):
        parts.append(f"per {', '.join(params['by'])}")
    for key, label in (("y_true", "labels"), ("y_pred", "predictions"), ("y_prob", "scores")):
        if params.get(key) is not None:
            parts.append(f"{label}: `{params[key]}`")
    parts.append(f"reference: {params.get('reference_group') or 'largest'}")
    return "; ".join(parts) + "."


def _format(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.4g}"
    return html.escape(str(value))


def _html_table(table: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.iter_rows(named=True):
        cells = []
        for col, value in row.items():
            style = ""
            if col == "verdict" and value is not None:
                style = (
                    f' style="color:{_VERDICT_COLOURS.get(str(value), "inherit")};font-weight:600"'
                )
            cells.append(f"<td{style}>{_format(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _charts(report: FairnessReport) -> list[tuple[str, str]]:
    """``(title, svg)`` for each chart; empty without the plot extra."""
    try:
        from polars_fair import plots
    except ImportError:  # pragma: no cover - plots is part of the package
        return []
    if not plots.available():
        return []
    return plots.report_svgs(report)


def _html_body(report: FairnessReport) -> str:
    parts = [
        "<div class='pf-report'>",
        "<h1>Fairness report</h1>",
        f"<p>{html.escape(_describe(report.params))}</p>",
    ]
    charts = _charts(report)
    if charts:
        parts.append("<h2>Charts</h2><div class='pf-charts'>")
        for title, svg in charts:
            parts.append(f"<figure><figcaption>{html.escape(title)}</figcaption>{svg}</figure>")
        parts.append("</div>")
    else:
        parts.append(
            "<p class='pf-note'>Charts need the plot extra: "
            '<code>pip install "polars-fair[plot]"</code>.</p>'
        )
    wide = report.side_by_side()
    if wide is not None:
        parts += ["<h2>Criteria side by side</h2>", _html_table(wide)]
    for name, table in report.tables():
        if name == "roc_curve":
            continue
        parts += [f"<h2>{_TITLES[name]}</h2>", _html_table(report._shown(name, table))]
    parts.append("</div>")
    return "\n".join(parts)


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1f2328; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.85rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: right; }
th { background: #f6f8fa; }
td:first-child, th:first-child { text-align: left; }
figure { display: inline-block; margin: 0 1.5rem 1.5rem 0; vertical-align: top; }
figcaption { font-weight: 600; margin-bottom: 0.25rem; }
.pf-note { color: #6e7781; }
"""


def _html_page(report: FairnessReport) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        "<title>Fairness report</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n{_html_body(report)}\n</body>\n</html>\n"
    )
