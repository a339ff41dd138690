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
import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from polars_fair.exceptions import FairnessGateError, InvalidParameterError

__all__ = ["Condition", "FairnessReport", "parse_condition"]

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
    "<": operator.lt, ">": operator.gt,
}  # fmt: skip
_CONDITION = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<num>\S+)\s*$"
)
#: Verdicts a gate can fail on.
GATE_VERDICTS = ("unfair", "inconclusive", "undefined")


class Condition(NamedTuple):
    """A gate condition on a criterion: fails when ``value OP bound`` holds."""

    text: str
    name: str
    op: str
    bound: float


def parse_condition(text: str) -> Condition:
    """
    Parse a gate condition ``"CRITERION OP NUMBER"`` (OP: ``< <= > >= == !=``).

    Parameters
    ----------
    text
        The condition, e.g. ``"disparate_impact_ratio < 0.8"``.

    Returns
    -------
    Condition
        The parsed condition.

    Raises
    ------
    InvalidParameterError
        When the text is not of that form or the bound is not a finite number.

    Examples
    --------
    >>> from polars_fair.report import parse_condition
    >>> parse_condition("disparate_impact_ratio < 0.8")
    Condition(text='disparate_impact_ratio < 0.8', name='disparate_impact_ratio', op='<', bound=0.8)
    """
    match = _CONDITION.match(text)
    if match is None:
        msg = (
            f"condition {text!r} is not 'CRITERION OP NUMBER'\n\nHint: e.g. "
            '"disparate_impact_ratio < 0.8" (OP: < <= > >= == !=)'
        )
        raise InvalidParameterError(msg)
    name, op, num = match.group("name", "op", "num")
    try:
        bound = float(num)
    except ValueError:
        msg = f"condition {text!r}: {num!r} is not a number\n\nHint: e.g. 0.8"
        raise InvalidParameterError(msg) from None
    if not math.isfinite(bound):
        msg = (
            f"condition {text!r}: the bound must be a finite number, got {num!r} (a "
            'comparison with NaN never holds)\n\nHint: e.g. "disparate_impact_ratio < 0.8"'
        )
        raise InvalidParameterError(msg)
    return Condition(text, name, op, bound)


def _pair_text(row: dict[str, Any]) -> str:
    """``group (n=…) vs compared_with (n=…)``, the comparison behind a value."""

    def size(n: Any) -> str:
        if n is None:
            return "?"
        return str(int(n)) if float(n).is_integer() else f"{n:.1f}"

    if row.get("group") is None:
        return "no groups compared"
    return (
        f"{row['group']} (n={size(row.get('group_n'))}) vs {row.get('compared_with')} "
        f"(n={size(row.get('compared_n'))})"
    )


#: The report's tables, in the order they are shown.
TABLES = ("summary", "by_group", "disparities", "tradeoffs", "calibration", "roc_auc", "roc_curve")

_TITLES = {
    "summary": "Criteria and verdicts",
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
    "inconclusive": "#9a6700",
    "undefined": "#6e7781",
}


def _value_text(row: dict[str, Any]) -> str:
    value = row.get("value")
    if value is None:
        return "no value"
    text = f"value {value:.4g}"
    if row.get("ci_low") is not None and row.get("ci_high") is not None:
        text += f", interval [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"
    return text + f", fair band [{row['fair_low']:g}, {row['fair_high']:g}]"


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
    >>> report = df.fair.report(
    ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", min_group_size=5
    ... )
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

    def failures(
        self,
        *,
        verdicts: Iterable[str] = ("unfair",),
        conditions: Iterable[str | Condition] = (),
        allow_undefined: bool = False,
    ) -> list[str]:
        """
        The release gates that fail, one line each (empty when every gate passes).

        A line names the criterion, its value and interval, the groups compared and
        their (effective) sizes, and the batch key.

        Parameters
        ----------
        verdicts
            Verdicts that fail the gate: any of ``"unfair"``, ``"inconclusive"``,
            ``"undefined"`` (default ``("unfair",)``; ``()`` for none).
        conditions
            Conditions ``"CRITERION OP NUMBER"`` that fail the gate when they hold,
            e.g. ``"disparate_impact_ratio < 0.8"`` (one-sided: add
            ``"disparate_impact_ratio > 1.25"`` for the other side).
        allow_undefined
            A condition on an undefined value fails (saying why) unless True.

        Returns
        -------
        list of str
            One line per failure.

        Raises
        ------
        InvalidParameterError
            A malformed condition, an unknown verdict, or a criterion that is not in
            the summary (pass ``criteria=`` to the report).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "g": ["a"] * 100 + ["b"] * 100,
        ...         "y": [1, 0] * 100,
        ...         "p": [1] * 80 + [0] * 20 + [1] * 40 + [0] * 60,
        ...     }
        ... )
        >>> report = df.fair.report(y_true="y", y_pred="p", sensitive_features="g")
        >>> report.failures(verdicts=[], conditions=["demographic_parity_difference > 0.2"])
        ['demographic_parity_difference = 0.4 > 0.2: a (n=100) vs b (n=100)']
        """
        wanted = list(verdicts)
        bad = [v for v in wanted if v not in GATE_VERDICTS]
        if bad:
            msg = f"`verdicts` must be among {list(GATE_VERDICTS)}, got {bad}"
            raise InvalidParameterError(msg)
        parsed = [c if isinstance(c, Condition) else parse_condition(c) for c in conditions]
        known = self.summary.get_column("criterion").unique(maintain_order=True).to_list()
        for cond in parsed:
            if cond.name not in known:
                msg = (
                    f"condition {cond.text!r}: {cond.name!r} is not in this report's summary"
                    f"\n\nHint: add it with `criteria=[...]`; the summary has {known}"
                )
                raise InvalidParameterError(msg)
        lines: list[str] = []
        rows = list(
            self.summary.with_columns(pl.col("verdict").cast(pl.String)).iter_rows(named=True)
        )
        for row in rows:
            where = ", ".join(f"{k}={row[k]}" for k in self.by)
            suffix = f" ({where})" if where else ""
            if row["verdict"] in wanted:
                lines.append(
                    f"{row['criterion']} is {row['verdict']}: {_value_text(row)}: "
                    f"{_pair_text(row)}{suffix}"
                )
        for cond in parsed:
            for row in rows:
                if row["criterion"] != cond.name:
                    continue
                where = ", ".join(f"{k}={row[k]}" for k in self.by)
                suffix = f" ({where})" if where else ""
                value = row["value"]
                no_value = value is None or (isinstance(value, float) and math.isnan(value))
                if no_value or row["verdict"] == "undefined":
                    if not allow_undefined:
                        why = row.get("note") or "no value"
                        lines.append(
                            f"{cond.text}: {cond.name} is undefined ({why}){suffix}; pass "
                            "allow_undefined (--allow-undefined) to let it pass"
                        )
                    continue
                # a one-sided gate reads the extreme on its side: "> 1.25" fails when
                # any group compared is above 1.25, not only the farthest one
                side = {"<": "lowest", "<=": "lowest", ">": "highest", ">=": "highest"}
                extreme = side.get(cond.op)
                pair = row
                if extreme is not None and row.get(extreme) is not None:
                    value = row[extreme]
                    pair = {
                        **row,
                        "group": row[f"{extreme}_group"],
                        "group_n": row[f"{extreme}_n"],
                    }
                if _OPS[cond.op](value, cond.bound):
                    lines.append(
                        f"{cond.name} = {value:.4g} {cond.op} {cond.bound:g}: "
                        f"{_pair_text(pair)}{suffix}"
                    )
        return lines

    def check(
        self,
        *,
        verdicts: Iterable[str] = ("unfair",),
        conditions: Iterable[str | Condition] = (),
        allow_undefined: bool = False,
    ) -> None:
        """
        Raise :class:`~polars_fair.exceptions.FairnessGateError` if a gate fails.

        The same gates as :meth:`failures`, for notebooks and test suites
        (``report.check()`` fails a test when any verdict is unfair).

        Parameters
        ----------
        verdicts, conditions, allow_undefined
            As for :meth:`failures`.

        Raises
        ------
        FairnessGateError
            With one line per failure (also in its ``failures`` attribute).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {"g": ["a"] * 100 + ["b"] * 100, "y": [1, 0] * 100, "p": [1, 0] * 100}
        ... )
        >>> df.fair.report(y_true="y", y_pred="p", sensitive_features="g").check()
        """
        lines = self.failures(
            verdicts=verdicts, conditions=conditions, allow_undefined=allow_undefined
        )
        if lines:
            raise FairnessGateError(lines)

    def one_sided_misses(self, conditions: Iterable[str | Condition]) -> list[str]:
        """
        One-sided conditions blind to a group outside the fair band on the other side.

        ``"disparate_impact_ratio < 0.8"`` never fires on a ratio of 1.74, above the
        band: one line each such condition and batch key, suggesting the other side
        (or the verdict gate). A side watched by another condition is not reported.

        Parameters
        ----------
        conditions
            The gate conditions, as for :meth:`failures`.

        Returns
        -------
        list of str
            One line per blind spot.
        """
        out = []
        parsed = [c if isinstance(c, Condition) else parse_condition(c) for c in conditions]
        watched = {(c.name, c.op in ("<", "<=")) for c in parsed if c.op not in ("==", "!=")}
        for cond in parsed:
            if cond.op in ("==", "!="):
                continue
            low_gate = cond.op in ("<", "<=")
            if (cond.name, not low_gate) in watched:
                continue  # another condition watches the other side
            rows = self.summary.filter(pl.col("criterion") == cond.name)
            for row in rows.iter_rows(named=True):
                key = "highest" if low_gate else "lowest"
                value = row.get(key, row["value"])
                if value is None:
                    continue
                outside = value > row["fair_high"] if low_gate else value < row["fair_low"]
                if not outside:
                    continue
                side, bound = (
                    ("above", row["fair_high"]) if low_gate else ("below", row["fair_low"])
                )
                where = ", ".join(f"{k}={row[k]}" for k in self.by)
                other = f"{cond.name} {'>' if low_gate else '<'} {bound:g}"
                out.append(
                    f"{cond.text!r} watches one side only: {cond.name} = {value:.4g} "
                    f"({row.get(f'{key}_group', row.get('group'))}"
                    f"{', ' + where if where else ''}) is {side} its fair band "
                    f"[{row['fair_low']:g}, {row['fair_high']:g}]: add '{other}', or gate on "
                    "the verdict (--fail-on-verdict unfair)"
                )
        return out

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
        left_out = excluded_groups(self.summary, self.by)
        if left_out:
            lines += ["Left out of the criteria (too small): " + "; ".join(left_out) + ".", ""]
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
            cols = ["criterion", "value", "fair_low", "fair_high", "verdict", "ci_low",
                    "ci_high", "interval_method", "group", "group_n", "compared_with",
                    "compared_n", "note"]  # fmt: skip
            return table.select(*self.by, *(c for c in cols if c in table.columns))
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
    parts.append(orientation(params))
    if params.get("sample_weight") is not None:
        parts.append(
            "weights: read as row counts"
            if params.get("frequency_weights")
            else "weights: sampling weights (sizes and intervals use Kish effective sizes)"
        )
    rule = params.get("verdict_rule", "interval")
    parts.append(
        "verdicts: "
        + (
            "the point value against the fair band"
            if rule == "point"
            else "the interval against the fair band (inconclusive when it straddles it)"
        )
    )
    parts.append(
        f"groups below min_group_size={params.get('min_group_size', 30):g} effective rows "
        "are left out of the criteria"
    )
    return "; ".join(parts) + "."


def orientation(params: dict[str, Any]) -> str:
    """The orientation of an audit's criteria, in words (the report's header)."""
    reference = params.get("reference_group")
    method = params.get("method")
    if method == "to_overall":
        return "orientation: each group against the whole population (largest gap)"
    if reference is not None or method == "to_reference":
        shown = reference if reference is not None else "the largest group"
        return (
            f"orientation: signed against the reference group {shown} "
            "(group - reference, group / reference; the group farthest from it)"
        )
    return "orientation: between groups (max - min, min / max; no reference group)"


def excluded_groups(summary: pl.DataFrame, by: list[str]) -> list[str]:
    """One line per batch key listing the groups left out as too small."""
    if "excluded" not in summary.columns:
        return []
    rows = summary.select(*by, "excluded").unique(maintain_order=True)
    out = []
    for row in rows.iter_rows(named=True):
        if row["excluded"]:
            where = ", ".join(f"{k}={row[k]}" for k in by)
            out.append((f"{where}: " if where else "") + row["excluded"])
    return out


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
    left_out = excluded_groups(report.summary, report.by)
    if left_out:
        parts.append(
            "<p>Left out of the criteria (too small): " + html.escape("; ".join(left_out)) + ".</p>"
        )
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
