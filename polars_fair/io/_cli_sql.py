"""Columns and SQL expressions on the command line, and the key columns they define.

Every column option of ``polars-fair`` takes a column name or a SQL expression over
the columns (:func:`column_or_sql`). The group and batch key options
(``--sensitive-features``/``--sensitive-feature``, ``--by``/``--by-key``) take several,
comma-separated or repeated (:func:`key_texts`); :func:`key_columns` turns them into
named columns: a column keeps its name; a SQL expression is named by its text, except
a batch key given an alias (``strftime(ts, '%Y-%m') AS month``), named by the alias.

Polars translates a SQL expression without knowing the columns' types
(``pl.sql_expr``), and ``date_trunc`` needs them: ``pl.sql_expr("date_trunc('month',
ts)")`` raises "cannot determine the type". A whole expression ``date_trunc('UNIT',
EXPR) [AS name]`` is therefore translated here, with the schema: ``EXPR``'s
``dt.truncate`` to the unit (a Date stays a Date; Polars' SQL engine, which knows the
types, gives the same instants as Datetime). Nested inside another expression it is
refused with the forms that work (``strftime(ts, '%Y-%m')``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

from polars_fair._names import INTERNAL_PREFIX, OUTPUT_NAMES
from polars_fair._validate import did_you_mean
from polars_fair.io._output import UsageError, columns_hint

__all__ = [
    "column_or_sql",
    "key_columns",
    "key_name",
    "key_texts",
    "names",
    "split_keys",
    "sql_key",
]

#: ``date_trunc``'s units, as Polars' SQL engine maps them to ``dt.truncate`` periods.
TRUNC_UNITS = {
    "year": "1y", "quarter": "1q", "month": "1mo", "week": "1w", "day": "1d", "hour": "1h",
    "minute": "1m", "second": "1s", "millisecond": "1ms", "microsecond": "1us",
}  # fmt: skip
_DATE_TRUNC = re.compile(
    r"""^\s*date_trunc\s*\(\s*'(?P<unit>[^']*)'\s*,(?P<inner>.*)\)\s*"""
    r"""(?:\bAS\s+(?P<alias>[A-Za-z_]\w*|"(?:[^"]|"")+"))?\s*$""",
    re.IGNORECASE | re.DOTALL,
)
#: Polars' error for a SQL expression naming a column the file lacks.
_MISSING_COLUMN = re.compile(r'unable to find column "(?P<name>[^"]*)"')
#: A trailing ``AS alias`` (a name, or a quoted one).
_ALIAS = re.compile(r"""\s+AS\s+("(?:[^"]|"")*"|[^\s"]+)\s*$""", re.IGNORECASE)
#: The columns polars_fair adds to the results of an audit, of any kind.
_OUTPUT: frozenset[str] = frozenset[str]().union(*OUTPUT_NAMES.values())
#: Per option, an example of a SQL expression in its hint (`_example`).
_MONTH = "\"strftime(screening_date, '%Y-%m') AS month\""
_AGE = "\"CASE WHEN age < 25 THEN 'young' ELSE 'older' END\""
_EXAMPLES = {
    "--by": _MONTH, "--by-key": _MONTH, "--sensitive-features": _AGE, "--sensitive-feature": _AGE,
}  # fmt: skip


def _example(flag: str) -> str:
    """An example of `flag` holding a SQL expression (a predicted label's by default)."""
    return _EXAMPLES.get(flag, '"decile_score >= 5"')


def names(value: str | None) -> list[str]:
    """The comma-separated names of an option (blanks dropped)."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def split_keys(value: str | None) -> list[str]:
    r"""`value` split at its commas outside parentheses and quotes (blanks dropped).

    So ``race,strftime(ts, '%Y-%m') AS month`` is two keys; a name holding a comma
    needs the repeatable option (``--sensitive-feature``, ``--by-key``). Text whose
    quotes or parentheses do not balance (a column ``driver's race``) is split at
    every comma, as plain names are.

    >>> split_keys("race, strftime(ts, '%Y-%m') AS month,\"a,b\"")
    ['race', "strftime(ts, '%Y-%m') AS month", '"a,b"']
    """
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(value or ""):
        if quote:
            quote = "" if char == quote else quote  # '' and "" escape: closed, then reopened
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(value[start:i])  # type: ignore[index]
            start = i + 1
    parts.append((value or "")[start:])
    if quote or depth:  # not SQL: names, split at every comma
        return names(value)
    return [p.strip() for p in parts if p.strip()]


def key_texts(
    listed: str | None, repeated: Sequence[str] | None, flag: str = "--by-key"
) -> list[str]:
    """The keys of ``--X a,b`` (:func:`split_keys`) and of the repeatable ``--X-one EXPR``.

    A blank ``--X-one`` (`flag`) names no key: refused, not dropped.
    """
    blank = [v for v in repeated or () if not v.strip()]
    if blank:
        msg = (
            f"{flag} {blank[0]!r} is blank: it names no key\nHint: give a column or a SQL "
            f"expression, e.g. {flag} {_example(flag)}, or leave the option out"
        )
        raise UsageError(msg)
    return split_keys(listed) + list(repeated or ())


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _date_trunc(text: str, schema: pl.Schema | None, flag: str) -> pl.Expr | None:
    """``date_trunc('UNIT', EXPR) [AS name]`` as an expression, or None if `text` is not one.

    ``pl.sql_expr`` cannot type ``date_trunc``'s argument; with the schema it is
    ``EXPR.dt.truncate(period)``, refused unless ``EXPR`` is a Date or Datetime
    (without a schema, as for a profile's keys, the types are not checked).
    """
    found = _DATE_TRUNC.match(text)
    if found is None:
        return None
    unit, inner_text = found["unit"].strip().lower(), found["inner"]
    if unit not in TRUNC_UNITS:
        msg = (
            f"{flag} {text!r}: date_trunc has no unit {found['unit']!r}\nHint: one of "
            f"{', '.join(TRUNC_UNITS)}, e.g. {flag} \"date_trunc('month', ts) AS month\""
        )
        raise UsageError(msg)
    try:
        inner = pl.sql_expr(inner_text)
        assert isinstance(inner, pl.Expr)
        if schema is None:
            dtype: pl.DataType = pl.Date()
        else:
            dtype = pl.DataFrame(schema=schema).select(inner.alias("__pf_x")).schema["__pf_x"]
    except Exception as exc:  # noqa: BLE001 - any parse or resolution error is a usage error
        msg = (
            f"{flag} {text!r}: date_trunc's argument {inner_text.strip()!r} is not a valid "
            f"SQL expression over the columns ({_first_line(exc)})\nHint: columns are "
            f"{columns_hint(schema or pl.Schema())}"
        )
        raise UsageError(msg) from exc
    if not isinstance(dtype, (pl.Date, pl.Datetime)):
        sql = inner_text.strip()
        fix = f"date_trunc('{unit}', date({sql}))" if dtype == pl.String else None
        msg = f"{flag} {text!r}: date_trunc needs a date or a time, and {sql!r} holds {dtype}" + (
            f'\nHint: parse the text first, e.g. {flag} "{fix}"'
            if fix
            else "\nHint: give a Date or Datetime column"
        )
        raise UsageError(msg)
    expr = inner.dt.truncate(TRUNC_UNITS[unit])
    alias = found["alias"]
    if alias is not None:
        alias = alias[1:-1].replace('""', '"') if alias.startswith('"') else alias
        expr = expr.alias(alias)
    return expr


def _sql_hint(text: str, schema: pl.Schema, flag: str, error: str) -> str:
    """The fix for a SQL expression Polars refused (`error`, its first line)."""
    hint = f"columns are {columns_hint(schema)}; e.g. {flag} {_example(flag)}"
    if "for dtype `str`" in error or "got `str`" in error:  # a date or number held as text
        try:
            roots = pl.sql_expr(text).meta.root_names()
        except Exception:  # noqa: BLE001 - the hint only: fall back to the columns
            roots = []
        texts = [r for r in roots if r in schema and schema[r] == pl.String]
        if texts:
            col = texts[0] if texts[0].isidentifier() else f'\\"{texts[0]}\\"'
            hint = (
                f"column {texts[0]!r} holds text (String): parse it first, e.g. "
                f"date({col}) for a date, as in {flag} \"strftime(date({col}), '%Y-%m')\""
                f"; columns are {columns_hint(schema)}"
            )
    one = {"--by": "--by-key", "--sensitive-features": "--sensitive-feature"}.get(flag)
    if one and (text.count("(") != text.count(")") or text.count("'") % 2):
        hint += f"; {flag} splits at commas: give an expression holding commas with {one}"
    if re.search(r"\bdate_trunc\s*\(", text, re.IGNORECASE):
        hint += (
            "; date_trunc works as a whole expression only (\"date_trunc('month', ts) AS "
            "month\"); inside another one, use strftime(ts, '%Y-%m') for months, "
            "strftime(ts, '%G-W%V') for ISO weeks"
        )
    return hint


def column_or_sql(text: str, schema: pl.Schema, flag: str) -> str | pl.Expr:
    """A column of `schema` named `text`, or `text` as a SQL expression over the columns.

    The expression is checked on an empty frame of `schema` (so a function applied to
    a column of the wrong type is a usage error here, not a failed read); a plain
    name that is not a column, or SQL Polars refuses, is a :class:`UsageError`
    naming `flag`, the text and the fix.
    """
    if text in schema:
        return text
    if text.isidentifier():  # a plain name: a column that is not there
        msg = f"{flag} column {text!r} not found\nHint: columns are {columns_hint(schema)}"
        raise UsageError(msg)
    try:
        expr = pl.sql_expr(text)
        assert isinstance(expr, pl.Expr)
    except Exception as exc:  # noqa: BLE001 - any parse error is a usage error
        truncated = _date_trunc(text, schema, flag)  # needs the types: translated here
        if truncated is not None:
            return truncated
        error: BaseException = exc
    else:
        try:
            pl.LazyFrame(schema=schema).select(expr).collect_schema()
        except Exception as exc:  # noqa: BLE001 - any resolution error is a usage error
            error = exc
        else:
            _check_per_row(text, expr, schema, flag)
            return expr
    first = _first_line(error)
    missing = _MISSING_COLUMN.search(first)
    if missing:  # Polars lists every column after the name: the hint lists them once
        first = f"no column {missing['name']!r}"
        near = did_you_mean(missing["name"], schema.names())
        first += f"; {near.strip()}" if near else ""
    msg = (
        f"{flag} {text!r} is neither a column nor a valid SQL expression over the columns "
        f"({first})\nHint: {_sql_hint(text, schema, flag, first)}"
    )
    raise UsageError(msg) from error


def _check_per_row(text: str, expr: pl.Expr, schema: pl.Schema, flag: str) -> None:
    """Refuse an aggregate (``sum(x)``, ``count(*)``): one value for all rows, not one per row.

    Two rows of nulls tell it: an aggregate gives one row; a literal, also one, is let
    through (a constant is what it says).
    """
    if expr.meta.is_literal(allow_aliasing=True):
        return
    try:
        rows = pl.DataFrame(schema=schema).clear(2).select(expr).height
    except Exception:  # noqa: BLE001 - not evaluable on nulls: left to the other checks
        return
    if rows == 1:
        msg = (
            f"{flag} {text!r} is an aggregate: one value for all the rows, where {flag} "
            f"needs one value per row\nHint: give an expression of each row's columns, "
            f"e.g. {flag} {_example(flag)}"
        )
        raise UsageError(msg)


def sql_key(text: str, flag: str) -> pl.Expr | None:
    """`text` as a key expression without the columns' types (a profile's keys).

    None where `text` is no SQL expression.
    """
    try:
        expr = pl.sql_expr(text)
        assert isinstance(expr, pl.Expr)
    except Exception:  # noqa: BLE001 - not SQL Polars types alone: date_trunc, or no SQL
        try:
            return _date_trunc(text, None, flag)
        except UsageError:
            return None
    return expr


def named(expr: pl.Expr, name: str) -> pl.Expr:
    """`expr` named `name` (as it is, when its own alias is that name)."""
    aliased = not expr.meta.undo_aliases().meta.eq(expr)
    return expr if aliased and expr.meta.output_name() == name else expr.alias(name)


def key_name(text: str, column: str | pl.Expr, *, alias: bool) -> str:
    """The name of the key column of `text`.

    A column's own name; for SQL, its alias where `alias` and one is given, else the text.
    """
    if isinstance(column, str):
        return column
    if alias and not column.meta.undo_aliases().meta.eq(column):
        return column.meta.output_name()
    return text


def _check_runs(text: str, expr: pl.Expr, schema: pl.Schema, flag: str) -> None:
    """A key expression runs on the columns' types (checked on an empty frame).

    ``collect_schema`` lets ``strftime(d, ...)`` over a String column through; it
    fails on the first row read, blamed on the file.
    """
    try:
        pl.DataFrame(schema=schema).select(expr.alias("__pf_key"))
    except Exception as exc:  # noqa: BLE001 - any evaluation error is a usage error
        first = _first_line(exc)
        msg = (
            f"{flag} {text!r} is not a valid SQL expression over the columns ({first})"
            f"\nHint: {_sql_hint(text, schema, flag, first)}"
        )
        raise UsageError(msg) from exc


def key_columns(
    texts: Sequence[str], schema: pl.Schema, flag: str, *, alias: bool = False
) -> dict[str, str | pl.Expr]:
    """The key columns of `texts` (columns or SQL), by name.

    Each is the column's name, or the expression (aliased to its name) that computes
    the key.

    With `alias`, a SQL key named by its ``AS`` alias may not take the name of a column
    of `schema` (adding it would replace that column), of another key, or one
    polars_fair reserves; each is a :class:`UsageError` with a new name to give.
    """
    keys: dict[str, str | pl.Expr] = {}
    for text in texts:
        column = column_or_sql(text, schema, flag)
        name = key_name(text, column, alias=alias)
        if isinstance(column, pl.Expr):
            _check_runs(text, column, schema, flag)
            clash = None
            if name in schema:
                clash = "a column of the data: the key would replace it"
            elif name in _OUTPUT or name.startswith(INTERNAL_PREFIX):
                clash = "a column polars_fair adds to its results"
            elif not name.strip():
                clash = "a blank name, which no table or file shows"
            if clash is not None and alias:
                sql = _ALIAS.sub("", text) if name != text else text
                new = f"{name.strip('_')}_key" if name.strip("_ ") else "key"
                msg = (
                    f"{flag} {text!r} names its key {name!r}, {clash}\nHint: give it another "
                    f'name, e.g. {flag} "{sql} AS {new}"'
                )
                raise UsageError(msg)
            column = named(column, name)
        if name in keys:
            msg = (
                f"{flag} gives two keys named {name!r}\nHint: give each key once, or name "
                f'them apart with AS, e.g. {flag} "... AS {name}_2"'
            )
            raise UsageError(msg)
        keys[name] = column
    return keys
