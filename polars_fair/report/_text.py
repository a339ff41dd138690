"""Plain-text pieces of the report: flat tables and the summary as a person reads it.

Used by :meth:`FairnessReport.to_text` (what ``polars-fair audit`` prints) and by the
other renderings (``flat``; ``md_safe`` and ``note_lines`` for Markdown).
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from polars_fair._validate import SUMMARY_COLUMNS
from polars_fair.metrics._summary_notes import p_text, size_text

#: The summary's columns in the plain-text table, first; other columns follow.
_SUMMARY_TEXT = (
    "criterion", "value", "fair_low", "fair_high", "verdict", "ci_low", "ci_high", "group",
    "group_n", "compared_with", "compared_n",
)  # fmt: skip


def summary_text(summary: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The summary for plain text: the comparison as ``group (n=..) vs other (n=..)``."""
    first = [c for c in _SUMMARY_TEXT if c in summary.columns]
    extra = [c for c in summary.columns if c not in (*SUMMARY_COLUMNS, *by)]
    if {"group", "group_n", "compared_with", "compared_n"} <= set(summary.columns):
        compared = pl.format(
            "{} (n={}) vs {} (n={})", pl.col("group").cast(pl.String),
            size_text(pl.col("group_n")), pl.col("compared_with").cast(pl.String),
            size_text(pl.col("compared_n")),
        ).alias("compared")  # fmt: skip
        shown = [c for c in first if c not in ("group", "group_n", "compared_with", "compared_n")]
        return flat(summary.select(*by, *shown, compared, *extra))
    return flat(summary.select(*by, *first, *extra))


def undefined_lines(summary: pl.DataFrame, by: list[str], most: int) -> list[str]:
    """One line per note (why a criterion has no value or no interval), naming its criteria.

    Criteria of a batch key that share a note share its line (``every criterion``
    when all do: the reference group left out, one group), at most `most` lines.
    """
    if "note" not in summary.columns:
        return []
    lines: dict[tuple[str, str], list[str]] = {}
    totals: dict[str, int] = {}
    for row in summary.iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in by)
        totals[where] = totals.get(where, 0) + 1
        if row["note"] is not None:
            lines.setdefault((where, row["note"]), []).append(row["criterion"])
    out = []
    for (where, note), names in list(lines.items())[:most]:
        every = len(names) == totals[where] and len(names) > 1
        which = f"every criterion ({len(names)})" if every else ", ".join(names)
        out.append(f"{which}{f' ({where})' if where else ''}: {note}")
    return out


def flat(table: pl.DataFrame) -> pl.DataFrame:
    """`table` with list columns joined into text and Enum/Categorical columns as text."""
    exprs = []
    for name, dtype in table.schema.items():
        col = pl.col(name)
        if isinstance(dtype, pl.List):
            exprs.append(col.list.eval(pl.element().cast(pl.String)).list.join(", "))
        elif isinstance(dtype, (pl.Enum, pl.Categorical)):
            exprs.append(col.cast(pl.String))
        else:
            exprs.append(col)
    return table.select(exprs)


_DYN = re.compile(r"\(dyn \w+: ([^()]*)\)")
_DYN_BARE = re.compile(r"dyn \w+: ([^()\s,]+)")
_STRING = re.compile(r'(?<![\w.])\("((?:[^"\\]|\\.)*)"\)')
_COL = re.compile(r'col\("((?:[^"\\]|\\.)*)"\)')
_ATOM = re.compile(r"(?<![\w.])\(([^()\s]+|'[^']*'|\"[^\"]*\")\)")
_DOUBLE = re.compile(r"\(\(([^()]*(?:\([^()]*\)[^()]*)*)\)\)")
_QUOTED = re.compile(r'"(?:[^"]|"")*"|\'[^\']*\'')
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def readable_expr(text: str) -> str:
    """
    A Polars expression's text as a person reads it: ``decile_score >= 5``.

    Polars prints ``pl.col("decile_score") >= 5`` as
    ``[(col("decile_score")) >= (dyn int: 5)]``. This keeps the meaning and drops
    the noise: a column is its name (in double quotes where it is not a plain
    identifier, as in SQL: ``"education-num" >= 13``), a literal its value (a
    string in single quotes), and brackets and parentheses that only wrap one
    operand or the whole go. Methods and anything else stay as Polars prints them
    (``race.is_in([...])``). A plain column name is returned unchanged.

    Parameters
    ----------
    text
        ``str(expr)`` of a Polars expression, or a column name.

    Returns
    -------
    str
        The readable form (the reports' parameters and headers show it).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.report._text import readable_expr
    >>> readable_expr(str(pl.col("decile_score") >= 5))
    'decile_score >= 5'
    >>> readable_expr(str((pl.col("a") == 1) & (pl.col("b c") > 0.3)))
    '(a == 1) & ("b c" > 0.3)'
    >>> readable_expr(str(pl.col("race") == "Caucasian"))
    "race == 'Caucasian'"
    >>> readable_expr("two_year_recid")
    'two_year_recid'
    """
    out = _DYN_BARE.sub(r"\1", _DYN.sub(r"(\1)", text))
    out = _STRING.sub(lambda m: f"('{m.group(1)}')", out)
    out = _COL.sub(lambda m: f"({_column(m.group(1))})", out)
    # quoted names and strings aside (their parentheses are text), then a binary
    # operation, printed "[(left) op (right)]", gets parentheses for brackets
    quoted: list[str] = []

    def aside(match: re.Match[str]) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    out = _QUOTED.sub(aside, out).replace("[(", "((").replace(")]", "))")
    for _ in range(100):  # until nothing changes (each pass removes a level)
        new = _DOUBLE.sub(r"(\1)", _ATOM.sub(r"\1", out))
        if new == out:
            break
        out = new
    out = _unwrap(out)
    return re.sub("\x00(\\d+)\x00", lambda m: quoted[int(m.group(1))], out)


def _column(name: str) -> str:
    """A column name as SQL writes it: bare when an identifier, else in double quotes."""
    return name if _IDENTIFIER.fullmatch(name) else '"' + name.replace('"', '""') + '"'


def _unwrap(text: str) -> str:
    """`text` without parentheses that enclose all of it."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, char in enumerate(text):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and i < len(text) - 1:
                return text  # the first parenthesis closes before the end
        text = text[1:-1]
    return text


def shown_value(value: Any) -> str:
    """A group (or reference group) as the tables name it: values joined by " / ".

    A tuple or list of values (several sensitive features) reads
    ``Caucasian / Male``, a dict its values in order; anything else ``str(value)``.

    Examples
    --------
    >>> from polars_fair.report._text import shown_value
    >>> shown_value(("Caucasian", "Male")), shown_value("Caucasian"), shown_value(None)
    ('Caucasian / Male', 'Caucasian', 'null')
    """
    if isinstance(value, dict):
        value = tuple(value.values())
    if isinstance(value, (tuple, list)):
        return " / ".join(shown_value(v) for v in value)
    return "null" if value is None else str(value)


def note_lines(note: str | None, code: str) -> list[str]:
    """The note as text lines, with its code spans marked by `code` (e.g. a backtick)."""
    if note is None:
        return []
    return [note.replace("``", code), ""]


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def md_safe(table: pl.DataFrame) -> pl.DataFrame:
    """`table` ready for a Markdown table: ``|`` escaped and line breaks removed, names too."""
    flattened = flat(table)
    escaped = [
        pl.col(name)
        .str.replace_all("\\", "\\\\", literal=True)
        .str.replace_all("|", "\\|", literal=True)
        .str.replace_all("\n", " ", literal=True)
        .str.replace_all("\r", " ", literal=True)
        if dtype == pl.String
        else pl.col(name)
        for name, dtype in flattened.schema.items()
    ]
    out = flattened.select(escaped)
    return out.rename({c: _md_escape(c) for c in out.columns if _md_escape(c) != c})


#: Slices shown per batch key in Markdown and HTML (the dict and JSON keep all).
SLICES_SHOWN = 20


def slices_shown(table: pl.DataFrame, by: list[str], weighted: bool) -> pl.DataFrame:
    """The columns of the slices table the pages show, the best-ranked per batch key."""
    # with sampling weights, `n` is a weight total: the Kish size beside it
    kish = weighted and "n_effective" in table.columns
    cols = ["rank", "slice", "n", *(["n_effective"] if kish else []), "value",
            "rest_value", "difference", "ci_low", "ci_high", "q_value", "significant"]  # fmt: skip
    shown = table.filter(pl.col("rank") <= SLICES_SHOWN).select(*by, *cols)
    return shown.with_columns(p_text(pl.col("q_value")))  # never 0.0000


def slices_caption(table: pl.DataFrame, params: dict[str, Any], by: list[str]) -> str:
    """
    The line under the title "Worst slices": the measure, the test and the counts.

    What each slice is compared on, how it is judged, how many slices were tested and
    left untested (per batch key, summed), and which reduction ran.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.report._text import slices_caption
    >>> table = pl.DataFrame({"n_tested": [36], "n_untested": [11], "strategy": ["finest"]})
    >>> params = {"slice_metric": "false_positive_rate", "confidence_level": 0.95}
    >>> print(slices_caption(table, params, []))  # doctest: +NORMALIZE_WHITESPACE
    false_positive_rate of each slice against the rest of the data, with the difference's 95%
    interval; q_value: Benjamini-Hochberg, significant when q_value ≤ 0.05; 36 slices
    tested, 11 not tested (fewer than 30 rows, or too few expected events), strategy finest
    """
    metric = params.get("slice_metric") or "false_positive_rate"
    level = float(params.get("confidence_level") or 0.95)
    counts = slices_counts(table, params, by)
    if table.height == 0:
        return f"{metric}: {counts}"
    return (
        f"{metric} of each slice against the rest of the data, with the difference's "
        f"{level * 100:g}% interval; q_value: Benjamini-Hochberg, significant when q_value ≤ "
        f"{1 - level:.2g}; {counts}"
    )


def slices_counts(table: pl.DataFrame, params: dict[str, Any], by: list[str]) -> str:
    """How many slices were tested and left untested (summed over batch keys), and the strategy."""
    min_size = params.get("min_group_size", 30)
    rows = "effective rows" if params.get("sample_weight") is not None else "rows"
    why = f"fewer than {min_size:g} {rows}, or too few expected events"
    if table.height == 0:
        return f"no slice tested ({why})"
    keys = [k for k in by if k in table.columns]
    per_key = table.unique(subset=keys or None, keep="first", maintain_order=True)
    if not keys:
        per_key = per_key.head(1)
    tested, untested = (int(per_key.get_column(c).sum()) for c in ("n_tested", "n_untested"))
    strategies = ", ".join(per_key.get_column("strategy").unique(maintain_order=True).to_list())
    over = f" over {per_key.height} batch keys" if keys else ""
    return f"{tested} slices tested, {untested} not tested ({why}){over}, strategy {strategies}"


def slices_lines(table: pl.DataFrame | None, params: dict[str, Any], by: list[str]) -> list[str]:
    """The text report's "Worst slices": title, caption and table (none without slices)."""
    if table is None:
        return []
    shown = slices_shown(table, by, params.get("sample_weight") is not None)
    return ["\nWorst slices", slices_caption(table, params, by), str(flat(shown))]


def caption_lines(
    name: str, table: pl.DataFrame, params: dict[str, Any], by: list[str]
) -> list[str]:
    """The Markdown lines between a table's title and the table (the slices' caption)."""
    return [slices_caption(table, params, by), ""] if name == "slices" else []
