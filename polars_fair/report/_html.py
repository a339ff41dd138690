"""The report's HTML page: verdicts first, then charts, then tables that fit the width.

The half of :mod:`polars_fair.report` that writes HTML. :meth:`FairnessReport.to_html`
cuts the report to the groups shown and passes the pieces here. The page is one
self-contained document: inline CSS, charts as inline SVG, no script. Cells are
classed ``num`` (right-aligned) or ``txt`` (left-aligned); an interval sits under
its value in a smaller grey line; tables scroll inside their own box when they
cannot fit, so the page never scrolls sideways.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._validate import SUMMARY_COLUMNS
from polars_fair.metrics._summary_notes import size_text
from polars_fair.report import (
    _RATES_SHOWN,
    _TITLES,
    _VERDICT_COLOURS,
)
from polars_fair.report._capping import group_sizes, largest
from polars_fair.report._text import flat as _flat
from polars_fair.report._text import slices_counts
from polars_fair.report._verdicts import _describe

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_fair.report import FairnessReport

__all__ = ["html_body", "html_page"]


def _format(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return html.escape(str(value))


def _rows(value: float) -> str:
    """An effective number of rows: thousands separated, one decimal (14,740.3)."""
    return f"{value:,.1f}" if math.isfinite(value) else "—"


def _interval(low: Any, high: Any) -> str:
    if low is None or high is None:
        return "—"
    return f"{_format(low)} – {_format(high)}"


def _header(name: str) -> str:
    """A column name that may wrap after its underscores."""
    return html.escape(name).replace("_", "_<wbr>")


def _html_table(
    table: pl.DataFrame,
    css: str = "",
    pairs: dict[str, str] | None = None,
    numbers: tuple[str, ...] = (),
    labels: dict[str, str] | None = None,
    keys: Sequence[str] = (),
) -> str:
    """A table that fits the page: numbers right, text left, wide tables scroll in a box.

    `pairs` maps a column to the name prefix of its interval columns, shown in the
    same cell under the value (``<col>_ci_low``/``<col>_ci_high`` by default).
    `labels` heads a column with words instead of its name (the data keeps the name).
    `keys` (batch keys, sensitive features) show their values as written: a year
    2013 is not the number 2,013.
    """
    pairs = pairs or {}
    labels = labels or {}
    hidden = {f"{p}_ci_{end}" for p in pairs.values() for end in ("low", "high")}
    columns = [c for c in table.columns if c not in hidden]
    flat = _flat(table)
    numeric = (
        {c for c, d in flat.schema.items() if d.is_numeric()}
        | set(numbers)
        | {"q_value", "p_value"}
    )
    head = "".join(
        f"<th class='{'num' if c in numeric else 'txt'}'>{_header(labels.get(c, c))}</th>"
        for c in columns
    )
    rows = []
    for row in flat.iter_rows(named=True):
        cells = []
        for col in columns:
            value = row[col]
            klass = "num" if col in numeric else "txt"
            text = html.escape(str(value)) if col in keys and value is not None else _format(value)
            if col == "criterion":  # long names wrap after an underscore, never mid-word
                text = text.replace("_", "_<wbr>")
            if col in pairs:
                low, high = row.get(f"{pairs[col]}_ci_low"), row.get(f"{pairs[col]}_ci_high")
                if low is not None or high is not None:
                    text += f"<br><span class='pf-ci'>{_interval(low, high)}</span>"
            if col == "verdict" and value is not None:
                colour = _VERDICT_COLOURS.get(str(value), "inherit")
                cells.append(f"<td class='txt pf-verdict' style='color:{colour}'>{text}</td>")
            else:
                cells.append(f"<td class='{klass}'>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table_html = (
        f"<table class='{css}'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return f"<div class='pf-scroll'>{table_html}</div>"


_PAIR = {"group", "group_n", "compared_with", "compared_n"}


def _html_summary(report: FairnessReport) -> str:
    """The verdicts, compactly: criterion, verdict, value, interval, fair band, then the rest."""
    table = report.summary
    interval = [
        pl.format("{} – {}", pl.col("ci_low").round_sig_figs(4), pl.col("ci_high").round_sig_figs(4))
        .fill_null("—")
        .alias("interval")
    ] if {"ci_low", "ci_high"} <= set(table.columns) else []  # fmt: skip
    band = [
        pl.format("{} – {}", pl.col("fair_low"), pl.col("fair_high")).fill_null("—").alias("fair_band")
    ] if {"fair_low", "fair_high"} <= set(table.columns) else []  # fmt: skip
    pair = [
        pl.format(
            "{} (n={}) vs {} (n={})", pl.col("group"), _size("group_n"), pl.col("compared_with"),
            _size("compared_n"),
        ).fill_null("—").alias("compared_pair")
    ] if _PAIR <= set(table.columns) and "compared_pair" not in table.columns else []  # fmt: skip
    first = [c for c in ("criterion", "verdict", "value") if c in table.columns]
    extra = [
        c for c in table.columns if c not in (*SUMMARY_COLUMNS, *report.by)
    ]  # the columns other versions add: shown as they come
    last = [c for c in ("interval_method", "note") if c in table.columns]
    shared = _shared_note(table)
    if shared is not None or (  # one note for every row: said once, above the table
        "note" in table.columns and table.get_column("note").null_count() == table.height
    ):  # or no note at all: no column of dashes
        last = [c for c in last if c != "note"]
    compact = table.select(*report.by, *first, *interval, *band, *pair, *extra, *last)
    labels = {**_SUMMARY_LABELS, "interval": f"{_level(report)} interval"}
    table_html = _html_table(
        compact, "pf-summary", numbers=("interval", "fair_band"), labels=labels,
        keys=_keys(report),
    )  # fmt: skip
    if shared is None:
        return table_html
    above = f"<p class='pf-shared-note'><b>Every criterion:</b> {html.escape(shared)}.</p>"
    return above + table_html


#: The summary's columns as the page heads them, in words.
_SUMMARY_LABELS = {
    "fair_band": "fair band",
    "compared_pair": "groups compared",
    "interval_method": "interval method",
}


def _level(report: FairnessReport) -> str:
    """The confidence level of the report's intervals, as a percentage ("95%")."""
    level = report.params.get("confidence_level") or 0.95
    return f"{100 * float(level):g}%"


#: The reference policies, in words.
_POLICY_WORDS = {
    "min": "the group with the lowest rate",
    "overall": "all rows together",
    "rest": "the rest of the rows (each group against all others)",
}


def _reference(report: FairnessReport) -> str:
    """The reference group the disparities and charts compare with, in words."""
    reference = report.params.get("reference_group")
    if isinstance(reference, str) and reference in _POLICY_WORDS:
        return _POLICY_WORDS[reference]
    if reference is not None and reference != "largest":
        if isinstance(reference, dict):
            reference = tuple(reference.values())
        if isinstance(reference, (tuple, list)):
            return " / ".join(str(v) for v in reference)
        return str(reference)
    keys = [c for c in report.params.get("sensitive_features", []) if c in report.by_group.columns]
    if report.by:
        return "the largest group of each batch"
    if not keys or "n" not in report.by_group.columns or not report.by_group.height:
        return "the largest group"
    label = pl.concat_str(
        [pl.col(k).cast(pl.String).fill_null("null") for k in keys], separator=" / "
    )
    top = largest(group_sizes(report.by_group, keys, report.by), keys, 1).select(label).item()
    return f"{top}, the largest group"


def _captions(report: FairnessReport) -> dict[str, str]:
    """Per table (and ``"charts"``), a line saying what its numbers are."""
    level, reference = _level(report), _reference(report)
    band = report.params.get("ratio_band") or (0.8, 1.25)
    metric = str(report.params.get("slice_metric") or "the slice metric").replace("_", " ")
    alpha = 1 - float(report.params.get("confidence_level") or 0.95)
    sizes = (  # as the table shows them: with weights, n_effective beside the weight total
        "n: the slice's weight total; n_effective: its Kish effective size, which the tests read; "
        if report.params.get("sample_weight") is not None
        else ""
    )
    return {
        "charts": (
            f"Rates per group: a dot is a group's rate, its bar the {level} confidence "
            + (  # with batches, the marks take each batch's colour (see rates_chart)
                "interval, in its batch's colour; a diamond and a dashed line in the batch's "
                f"colour mark each batch's reference group ({reference}). "
                if report.by
                else "interval; the red diamond and dashed line mark the reference group "
                f"({reference}). "
            )
            + "Ratio to the reference: each group's rate divided by the reference's (log scale), "
            f"the green band is the fair band {_format(float(band[0]))} – "
            f"{_format(float(band[1]))}."
        ),
        "by_group": (
            "n: the group's rows (with weights, their sum); the grey line under a rate is its "
            f"{level} confidence interval."
        ),
        "disparities": (
            f"Each group against the reference group ({reference}): difference = value − "
            "reference_value, ratio = value / reference_value; the grey line under each is its "
            f"{level} confidence interval."
        ),
        "slices": (
            f"Subsets of rows whose {metric} differs most from the rest of the data. "
            f"{sizes}value: the "
            f"slice's {metric}; rest_value: that of all other rows; difference = value − "
            f"rest_value, with its {level} confidence interval from ci_low to ci_high; "
            "q_value: the p-value adjusted for the number of slices tested (Benjamini–"
            f"Hochberg); significant when q_value ≤ {alpha:g}. {slices_note(report)}."
        ),
        "tradeoffs": (
            "Whether two criteria can hold together for a group and the reference, given their "
            "base rates (BR): the condition they need, the value it requires, the actual value "
            "now, and gap = actual − required."
        ),
        "calibration": (
            "Scores cut into bins: mean_prob is the bin's mean score, fraction_positive the share "
            "of positive labels in it, calibration_gap the distance between the two."
        ),
    }


def slices_note(report: FairnessReport) -> str:
    """How many slices were tested and not, and the strategy (empty without slices)."""
    if report.slices is None:
        return ""
    counts = slices_counts(report.slices, report.params, report.by)
    return counts[0].upper() + counts[1:]


def _shared_note(summary: pl.DataFrame) -> str | None:
    """The note of every row of `summary` when they all have the same one (else None)."""
    if "note" not in summary.columns or summary.height < 2:
        return None
    notes = summary.get_column("note")
    if notes.null_count() or notes.n_unique() != 1:
        return None
    return str(notes[0])


def _size(name: str) -> pl.Expr:
    """A group size as text: to 0.1, whole numbers without decimals (see ``size_text``)."""
    return size_text(pl.col(name))


def _tally(summary: pl.DataFrame) -> str:
    """One sentence: how many criteria got each verdict."""
    if "verdict" not in summary.columns or summary.height == 0:
        return ""
    counts = summary.get_column("verdict").cast(pl.String).fill_null("none").value_counts()
    order = {v: i for i, v in enumerate(("unfair", "inconclusive", "fair", "undefined"))}
    items = sorted(counts.iter_rows(), key=lambda r: (order.get(r[0], 9), r[0]))
    parts = [
        f"<b style='color:{_VERDICT_COLOURS.get(v, 'inherit')}'>{n} {html.escape(v)}</b>"
        for v, n in items
    ]
    return f"<p class='pf-tally'>{', '.join(parts)} (of {summary.height} criteria rows).</p>"


def _who(report: FairnessReport) -> str:
    """One sentence on the groups: how many, the largest, and the small ones (at most 10)."""
    table = report.by_group
    keys = [c for c in report.params.get("sensitive_features", []) if c in table.columns]
    if not keys or "n" not in table.columns or table.height == 0:
        return ""
    sizes = group_sizes(table, keys, report.by)
    label = pl.concat_str(
        [pl.col(k).cast(pl.String).fill_null("null") for k in keys], separator=" / "
    ).alias("group")
    # with sampling weights `n` is a weight total, and the sizes compared with
    # min_group_size are Kish effective sizes: those are named
    kish = "sum_w2" in sizes.columns and not report.params.get("frequency_weights")
    effective = (pl.col("n") ** 2 / pl.col("sum_w2")) if kish else pl.col("n")
    sizes = sizes.with_columns(effective.alias("__pf_eff"))
    top_name, top_n, top_eff = largest(sizes, keys, 1).select(label, "n", "__pf_eff").row(0)
    top = (
        f"{_rows(top_eff)} effective rows, weight total {_format(top_n)}"
        if kish
        else f"n = {_format(top_n)}"
    )
    if sizes.height == 1:  # one group: it is the largest by definition, and not "1 groups"
        text = f"1 group: {top_name} ({top})"
    else:
        text = f"{sizes.height:,} groups; the largest: {top_name} ({top})"
    if "small_group" in sizes.columns:
        small = sizes.filter(pl.col("small_group"))
        batched = [b for b in report.by if b in table.columns]
        if small.height and batched:
            # small in a batch: its smallest batch, not its rows summed over batches
            per_batch = table.filter(pl.col("small_group")).with_columns(
                effective.alias("__pf_eff")
            )
            small = per_batch.group_by(keys).agg(pl.col("__pf_eff").min())
        if small.height:
            first = small.bottom_k(10, by=["__pf_eff", *keys]).sort(
                ["__pf_eff", *keys], nulls_last=True
            )
            rows = first.select(label, "__pf_eff").iter_rows()
            unit = " effective rows" if kish else ""
            listed = ", ".join(f"{g} ({_rows(n) if kish else _format(n)}{unit})" for g, n in rows)
            more = f" and {small.height - 10:,} more" if small.height > 10 else ""
            size = report.params.get("min_group_size", 30)
            where = " in a batch (their smallest)" if batched else ""
            text += f"; smaller than min_group_size = {_format(size)}{where}: {listed}{more}"
    return f"<p class='pf-who'>{html.escape(text, quote=False)}.</p>"


def _charts(report: FairnessReport) -> tuple[list[tuple[str, str]], str | None]:
    """``(title, svg)`` for each chart and a note on groups left out; empty without the extra."""
    try:
        from polars_fair import plots
    except ImportError:  # pragma: no cover - plots is part of the package
        return [], None
    if not plots.available():
        return [], None
    _, note = plots.charted_groups(report)
    return plots.report_svgs(report), note


def _keys(report: FairnessReport) -> tuple[str, ...]:
    """The batch keys and sensitive features: columns whose values are names."""
    return (*report.by, *report.params.get("sensitive_features", []))


def _html_shown(name: str, shown: pl.DataFrame, keys: Sequence[str] = ()) -> str:
    """One table of the page, compact: intervals sit under their values."""
    if name == "by_group":
        pairs = {c: c for c in _RATES_SHOWN if c in shown.columns}
        return _html_table(shown, "pf-rates", pairs, keys=keys)
    if name == "disparities":
        pairs = {"difference": "difference", "ratio": "ratio"}
        return _html_table(shown, "pf-disparities", pairs, keys=keys)
    return _html_table(shown, f"pf-{name}", keys=keys)


def html_body(
    report: FairnessReport,
    capped: FairnessReport,
    notes: dict[str, str],
    shown: dict[str, pl.DataFrame],
) -> str:
    """
    The page's body: verdicts first, then the charts, then the tables.

    Parameters
    ----------
    report
        The whole report (its summary, groups and charts).
    capped
        The report cut to the groups shown (``FairnessReport`` with fewer rows).
    notes
        Per table name, the line saying what was left out.
    shown
        Per table name, the columns shown of each of `capped`'s tables.

    Returns
    -------
    str
        An HTML fragment (a ``div``).
    """
    parts = [
        "<div class='pf-report'>",
        "<h1>Fairness report</h1>",
        f"<p>{_html_code(html.escape(_describe(report.params, _MARK, _criteria(report))))}</p>",
        "<section class='pf-verdicts'>",
        f"<h2>{_TITLES['summary']}</h2>",
        _tally(report.summary),
        _who(report),
        _html_summary(capped),
        *(_html_note(notes.get("summary"))),
        "</section>",
    ]
    captions = _captions(report)
    tables = dict(shown)
    if "slices" in tables:  # who is treated worst: right after the verdicts, before charts
        parts += _html_section("slices", tables.pop("slices"), captions, notes, _keys(report))
    charts, chart_note = _charts(report)
    if charts:
        parts.append("<section class='pf-charts-section'><h2>Charts</h2>")
        parts += _html_caption(captions["charts"])
        parts += _html_note(chart_note)
        parts.append("<div class='pf-charts'>")
        for title, svg in charts:
            parts.append(f"<figure><figcaption>{html.escape(title)}</figcaption>{svg}</figure>")
        parts.append("</div></section>")
    else:
        parts.append(
            "<p class='pf-note'>Charts need the plot extra: "
            '<code>pip install "polars-fair[plot]"</code>.</p>'
        )
    wide = capped.side_by_side()
    if wide is not None:
        parts += [
            "<h2>Criteria side by side</h2>",
            _html_table(wide, "pf-side", keys=_keys(report)),
        ]
    for name, table in tables.items():
        parts += _html_section(name, table, captions, notes, _keys(report))
    parts.append("</div>")
    return "\n".join(parts)


def _html_section(
    name: str,
    table: pl.DataFrame,
    captions: dict[str, str],
    notes: dict[str, str],
    keys: Sequence[str] = (),
) -> list[str]:
    """One table of the page: its title, what its numbers are, the table, what is left out."""
    caption = captions.get(name)
    return [
        f"<h2>{_TITLES[name]}</h2>",
        *(_html_caption(caption) if caption is not None else []),
        _html_shown(name, table, keys),
        *_html_note(notes.get(name)),
    ]


def _html_caption(text: str) -> list[str]:
    return [f"<p class='pf-caption'>{html.escape(text)}</p>"]


#: Marks code spans in text before it is escaped for HTML.
_MARK = "\x00"


def _html_code(text: str, mark: str = _MARK) -> str:
    """Escaped text with its code spans (between pairs of `mark`) as ``<code>``."""
    pieces = text.split(mark)
    return "".join(p if i % 2 == 0 else f"<code>{p}</code>" for i, p in enumerate(pieces))


def _html_note(note: str | None) -> list[str]:
    if note is None:
        return []
    return [f"<p class='pf-note'>{_html_code(html.escape(note), '``')}</p>"]


_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1f2328; max-width: 100%; }
.pf-report { max-width: 100%; overflow-wrap: anywhere; }
h1 { margin: 0 0 0.25rem; font-size: 1.5rem; }
h2 { margin: 1.25rem 0 0.4rem; font-size: 1.15rem; }
.pf-scroll { max-width: 100%; overflow-x: auto; margin: 0.4rem 0 1rem; }
table { border-collapse: collapse; font-size: 0.82rem; }
th, td { border: 1px solid #d0d7de; padding: 0.2rem 0.45rem; vertical-align: top;
         overflow-wrap: normal; }
th { background: #f6f8fa; font-weight: 600; }
.txt { text-align: left; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.num { white-space: normal; }
.pf-ci { color: #6e7781; font-size: 0.75rem; }
.pf-verdict { font-weight: 600; white-space: nowrap; }
.pf-tally { margin: 0.2rem 0; }
.pf-charts { display: flex; flex-wrap: wrap; gap: 1rem 1.5rem; }
figure { margin: 0; max-width: 100%; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-weight: 600; margin-bottom: 0.25rem; }
.pf-note { color: #57606a; font-size: 0.85rem; }
.pf-caption { color: #424a53; font-size: 0.85rem; margin: 0.2rem 0 0.3rem; max-width: 75rem; }
.pf-shared-note { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 0.5rem 0.75rem; }
"""


def html_page(
    report: FairnessReport,
    capped: FairnessReport,
    notes: dict[str, str],
    shown: dict[str, pl.DataFrame],
) -> str:
    """The whole self-contained page around :func:`html_body` (same parameters)."""
    return (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
        "<title>Fairness report</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n{html_body(report, capped, notes, shown)}\n</body>\n</html>\n"
    )


def _criteria(report: FairnessReport) -> list[str]:
    """The criteria of the report's summary, in order (the header's orientation names some)."""
    return list(report.summary.get_column("criterion").unique(maintain_order=True))
