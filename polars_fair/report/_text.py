"""Plain-text pieces of the report: flat tables and the summary as a person reads it.

Used by :meth:`FairnessReport.to_text` (what ``polars-fair audit`` prints) and by the
other renderings (``flat``; ``md_safe`` and ``note_lines`` for Markdown).
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from polars_fair._validate import SUMMARY_COLUMNS
from polars_fair.metrics._summary_notes import size_text

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
