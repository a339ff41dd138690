"""Encoding of a profile's metadata: columns, expressions, schemas, compatibility.

The metadata of a :class:`~polars_fair.FairnessProfile` is plain JSON (it
travels in the Parquet file's key-value metadata): column names as strings,
expressions as Polars' JSON serialisation, schemas as a serialised empty frame
(base64), so every dtype (Enum categories included) comes back as it was.
"""

from __future__ import annotations

import base64
import datetime as dt
import glob
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._names import check_key_exprs
from polars_fair._validate import check_flag, dtype_kind, ensure_lazy
from polars_fair.exceptions import InvalidParameterError, ProfileError

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns

__all__ = [
    "FIXED",
    "REGRESSION",
    "TASKS",
    "binned_scores",
    "by_differences",
    "by_items",
    "check_by_exprs",
    "check_json",
    "decode_column",
    "decode_schema",
    "differences",
    "encode_column",
    "encode_schema",
    "new_meta",
    "layout_column",
    "merged_meta",
    "option_differences",
    "parse_meta",
    "profile_paths",
    "roots",
    "shown",
    "split_layout",
    "table_name",
    "with_batch_keys",
    "task_of",
]

#: What decides the reductions: profiles merge only where these agree.
FIXED = (
    "y_true", "y_pred", "y_prob", "sensitive_features", "by", "sample_weight",
    "pos_label", "n_bins", "score_bins",
)  # fmt: skip
#: What a profile summarises: labels and scores, or continuous predictions.
TASKS = ("classification", "regression")
REGRESSION = "regression"
#: The metadata a profile file must carry (and the `spec` entries it must hold).
_META_KEYS = (
    "format_version", "created_at", "rows", "pieces", "spec", "score_bins", "key_dtypes", "schema",
    "tables", "columns", "table_schemas",
)  # fmt: skip


def encode_column(column: IntoColumn | None) -> Any:
    if column is None or isinstance(column, str):
        return column
    if isinstance(column, pl.Expr):
        return {"expr": column.meta.serialize(format="json")}
    msg = f"a column must be a name or a `pl.Expr`, got {column!r}"
    raise InvalidParameterError(msg)


def decode_column(value: Any) -> IntoColumn | None:
    if isinstance(value, dict):
        return pl.Expr.deserialize(io.StringIO(value["expr"]), format="json")
    return value  # type: ignore[no-any-return]


def shown(value: Any) -> str:
    """A column or expression as people read it (``col("s") >= 0.5``)."""
    decoded = decode_column(value)
    return decoded if isinstance(decoded, str) else str(decoded)


def encode_schema(schema: pl.Schema) -> str:
    raw = pl.DataFrame(schema=schema).serialize()
    return base64.b64encode(raw).decode("ascii")


def decode_schema(text: str) -> pl.Schema:
    frame = pl.DataFrame.deserialize(io.BytesIO(base64.b64decode(text)))
    return frame.schema


def roots(column: IntoColumn | None) -> list[str]:
    if column is None:
        return []
    if isinstance(column, str):
        return [column]
    return list(column.meta.root_names())


def new_meta(
    lf: pl.LazyFrame,
    tables: dict[str, pl.DataFrame],
    *,
    version: int,
    spec: dict[str, Any],
    columns: Sequence[IntoColumn | None],
    score_bins: int | None,
    rows: int | None = None,
) -> dict[str, Any]:
    """The metadata of a profile just made from `lf`: its plan's schema, no rows read.

    `spec` holds the keys (``sensitive_features``, ``by``) with the options; `columns`
    are the other columns read (the dtypes of their roots are kept). `rows`: the rows
    read, or None to count them in the first table (``n + n_null``: every row, for a
    profile without weights).
    """
    sensitive, by = list(spec["sensitive_features"]), list(spec["by"])
    needed = [*sensitive, *by, *(name for column in columns for name in roots(column))]
    schema = lf.select(list(dict.fromkeys(needed))).collect_schema()
    if rows is None:
        first = next(iter(tables.values()))
        rows = int(first.select(pl.col("n").sum() + pl.col("n_null").sum()).item())
    return {
        "format_version": version,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "rows": rows,
        "pieces": 1,
        "spec": spec,
        "score_bins": score_bins,
        "key_dtypes": {k: str(schema[k]) for k in [*by, *sensitive]},
        "schema": encode_schema(schema),
        "tables": list(tables),
        "columns": {name: table.columns for name, table in tables.items()},
        "table_schemas": {name: encode_schema(table.schema) for name, table in tables.items()},
    }


def table_name(schema: pl.Schema, taken: set[str], keys: Sequence[str] = ()) -> str:
    """The name of a reduction, from its columns other than the keys `keys`."""
    columns = set(schema) - set(keys)
    name = "roc" if "score" in columns else "calibration" if "bin" in columns else "stats"
    base, i = name, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def binned_scores(y_prob: object, exact_scores: object, score_bins: object, default: int) -> bool:
    """Whether a profile bins its scores; refuses score options that would be ignored.

    `score_bins` a positive integer; `exact_scores` a bool, which needs a score
    (`y_prob`); `score_bins` other than the `default` with `exact_scores` (which keeps
    every score, no bins).
    """
    if isinstance(score_bins, bool) or not isinstance(score_bins, int) or score_bins < 1:
        msg = f"`score_bins` must be a positive integer, got {score_bins!r}\n\nHint: e.g. 1000"
        raise InvalidParameterError(msg)
    exact = check_flag(exact_scores, "exact_scores")
    if exact and y_prob is None:
        msg = (
            "`exact_scores=True` keeps the exact table of each score, but no `y_prob` was "
            "given\n\nHint: pass the score column as `y_prob=`, or drop `exact_scores`"
        )
        raise InvalidParameterError(msg)
    if exact and score_bins != default:
        msg = (
            f"`score_bins={score_bins}` bins the scores, which `exact_scores=True` keeps "
            "unbinned\n\nHint: drop one of the two"
        )
        raise InvalidParameterError(msg)
    return y_prob is not None and not exact


def check_json(meta: dict[str, Any]) -> None:
    try:
        json.dumps(meta)
    except TypeError as exc:
        msg = (
            f"`pos_label` must be a number, string or boolean to keep in a profile, got "
            f"{meta['spec']['pos_label']!r}"
        )
        raise InvalidParameterError(msg) from exc


def task_of(meta: dict[str, Any]) -> str:
    """The task of a profile of metadata `meta` (files without one are classification)."""
    return str(meta["spec"].get("task", TASKS[0]))


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Why profiles of metadata `a` and `b` cannot be merged (empty when they can)."""
    if task_of(a) != task_of(b):  # every table and option differs then: said in one
        return [f"`task`: {task_of(a)!r} against {task_of(b)!r}"]
    found = []
    for key in FIXED:
        if a["spec"][key] != b["spec"][key]:
            found.append(f"`{key}`: {describe(a['spec'][key])} against {describe(b['spec'][key])}")
    found += by_differences(a, b)
    dtypes_a, dtypes_b = a["key_dtypes"], b["key_dtypes"]
    keys = [k for k in dtypes_a if k in dtypes_b and dtypes_a[k] != dtypes_b[k]]
    if keys:
        found.append(
            "key dtypes: " + ", ".join(f"{k!r} {dtypes_a[k]} against {dtypes_b[k]}" for k in keys)
        )
    tables = _table_differences(a, b, skip=set(keys))
    columns = _column_differences(a, b, strict=bool(tables))
    if any(a["spec"][key] != b["spec"][key] for key in FIXED):
        return found + columns  # the tables differ because the options do: said already
    return found + columns + tables


def option_differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The options (`FIXED`) on which profiles of metadata `a` and `b` differ."""
    if task_of(a) != task_of(b):
        return ["task"]
    return [key for key in FIXED if a["spec"][key] != b["spec"][key]]


def by_differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """How the `by` items (names or expressions) of keys of the same names differ.

    Profiles written before the items were kept lack them: unknown, not different.
    """
    items_a, items_b = a["spec"].get("by_items"), b["spec"].get("by_items")
    if items_a is None or items_b is None or items_a == items_b:
        return []
    if a["spec"]["by"] != b["spec"]["by"]:
        return []  # the names differ (said on their own)
    shown_a, shown_b = (", ".join(describe(i) for i in items) for items in (items_a, items_b))
    return [f"`by` expressions: [{shown_a}] against [{shown_b}]"]


def _column_differences(a: dict[str, Any], b: dict[str, Any], *, strict: bool) -> list[str]:
    """The audited columns that differ: in kind (number, text, ...), or in dtype if `strict`.

    Keys are compared by :func:`differences` (exactly). Other columns may differ in
    dtype within a kind (a CSV shard read as Int64, another as Float64): the tables
    hold the same values, and are compared by their own dtypes.
    """
    sa, sb = decode_schema(a["schema"]), decode_schema(b["schema"])
    found = []
    for col in dict.fromkeys([*sa, *sb]):
        if col in a["key_dtypes"] and col in b["key_dtypes"]:
            continue
        if col not in sa or col not in sb:
            side = "first" if col in sa else "second"
            found.append(f"column {col!r} read by the {side} only")
        elif sa[col] != sb[col] and (strict or dtype_kind(sa[col]) != dtype_kind(sb[col])):
            found.append(f"column {col!r} dtype {sa[col]} against {sb[col]}")
    return found


def _table_differences(a: dict[str, Any], b: dict[str, Any], skip: set[str]) -> list[str]:
    """How the stored tables differ, leaving out the key columns in `skip` (said already)."""
    if a["tables"] != b["tables"]:
        return [f"tables: {a['tables']} against {b['tables']}"]
    found = []
    for name in a["tables"]:
        ca, cb = a["columns"][name], b["columns"][name]
        first = [c for c in ca if c not in cb]
        second = [c for c in cb if c not in ca]
        if first or second:
            parts = [f"{cols} in the {side} only" for cols, side in
                     ((first, "first"), (second, "second")) if cols]  # fmt: skip
            found.append(f"table {name!r} columns: {', '.join(parts)}")
        elif ca != cb:
            found.append(f"table {name!r} columns: {ca} against {cb}")
        elif a["table_schemas"][name] != b["table_schemas"][name]:
            ta, tb = (
                decode_schema(a["table_schemas"][name]),
                decode_schema(b["table_schemas"][name]),
            )
            cols = [c for c in ta if ta[c] != tb[c] and c not in skip]
            if not cols:
                continue
            found.append(
                f"table {name!r} dtypes: "
                + ", ".join(f"{c!r} {ta[c]} against {tb[c]}" for c in cols)
            )
    return found


def describe(value: Any) -> str:
    if isinstance(value, dict) and "expr" in value:
        return str(decode_column(value))
    return repr(value)


# ---- checks of what a profile is made of and read from ------------------------------


def by_items(by: IntoColumns | pl.Expr | Sequence[str | pl.Expr] | None) -> list[str | pl.Expr]:
    """The batch keys as a list of names and expressions."""
    if by is None:
        return []
    if isinstance(by, (str, pl.Expr)):
        return [by]
    given: list[object] = list(by) if isinstance(by, (list, tuple)) else [by]
    items: list[str | pl.Expr] = []
    for item in given:
        if not isinstance(item, (str, pl.Expr)):
            msg = (
                f"`by` must be a column name, an expression or a list of them, got {item!r}"
                '\n\nHint: e.g. `by="model"` or `by=pl.col("ts").dt.truncate("1w")`'
            )
            raise InvalidParameterError(msg)
        items.append(item)
    return items


def with_batch_keys(
    frame: pl.DataFrame | pl.LazyFrame,
    by: IntoColumns | pl.Expr | Sequence[str | pl.Expr] | None,
    read: dict[str, Any],
) -> tuple[pl.LazyFrame, list[str | pl.Expr], list[str]]:
    """`frame` as a LazyFrame with its `by` expressions added as columns (one each).

    Returns the frame, the keys as given (names and expressions) and their names. An
    expression must name one column, and not one that another parameter reads (`read`:
    parameter to column(s), see :func:`check_by_exprs`).
    """
    lf, items = ensure_lazy(frame), by_items(by)
    if any(isinstance(b, pl.Expr) for b in items):  # each key expression is one named column
        check_key_exprs("by", items, lf.collect_schema())
    names = [b.meta.output_name() if isinstance(b, pl.Expr) else b for b in items]
    check_by_exprs(items, read)  # the keys become columns before the others are read
    exprs = [b for b in items if isinstance(b, pl.Expr)]
    return (lf.with_columns(exprs) if exprs else lf), items, names


def check_by_exprs(items: Sequence[str | pl.Expr], read: dict[str, Any]) -> None:
    """Refuse a `by` expression named like a column another parameter reads.

    The keys are added as columns before the other parameters are read, so such a
    key would replace the column they read (`read`: parameter to column(s)).
    """
    for item in items:
        if not isinstance(item, pl.Expr):
            continue
        name = item.meta.output_name()
        for param, value in read.items():
            values = value if isinstance(value, (list, tuple)) else [value]
            if any(name in roots(v) for v in values):
                msg = (
                    f"`by` expression {item} is named {name!r}, a column that `{param}` reads: "
                    f"the key would replace that column\n\nHint: name the key: add "
                    f"`.alias({name + '_window'!r})` to the `by` expression"
                )
                raise InvalidParameterError(msg)


def layout_column(columns: Sequence[str]) -> str:
    """The column of a profile file naming each row's table: ``table`` unless a key has it."""
    name = "table"
    while name in columns:
        name = f"__pf_{name}"
    return name


def parse_meta(raw: str, path: str, version: int, regression_version: int) -> dict[str, Any]:
    """A profile file's metadata from its JSON, checked for what reading it needs.

    A regression profile has its own format number (`regression_version`): a version of
    polars_fair that predates them refuses it as a newer format.
    """
    hint = "\n\nHint: write the profile again with `profile.write_parquet(path)`"
    try:
        meta = json.loads(raw)
    except ValueError as exc:
        msg = f"{path!r} has corrupt profile metadata ({exc}){hint}"
        raise ProfileError(msg) from None
    spec = meta.get("spec") if isinstance(meta, dict) else None
    if isinstance(spec, dict) and spec.get("task") == REGRESSION:
        version = regression_version
    found = meta.get("format_version") if isinstance(meta, dict) else None
    if isinstance(meta, dict) and (isinstance(found, bool) or found != version):
        newer = isinstance(found, int) and not isinstance(found, bool) and found > version
        fix = (
            "upgrade polars_fair to a version that reads it"
            if newer  # written by a later polars_fair: this one cannot know its layout
            else "profile the data again with this version"
        )
        msg = (
            f"{path!r} has profile format {found!r}; this version of polars_fair reads "
            f"format {version}\n\nHint: {fix}"
        )
        raise ProfileError(msg)
    missing = _missing(meta) if isinstance(meta, dict) else list(_META_KEYS)
    if not missing:  # every entry present: its schemas and expressions must decode
        missing = _undecodable(meta)
    if missing:
        msg = f"{path!r} has incomplete profile metadata: missing or invalid {missing}{hint}"
        raise ProfileError(msg)
    return meta  # type: ignore[no-any-return]


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


#: The kind of each entry of a profile's metadata (a type, or a check of the value).
_KINDS: dict[str, Any] = {
    "spec": dict, "key_dtypes": dict, "schema": str, "tables": list, "columns": dict,
    "table_schemas": dict, "created_at": str, "rows": _count, "pieces": _count,
    "score_bins": lambda v: v is None or (_count(v) and v > 0),
}  # fmt: skip


def _valid(value: object, kind: Any) -> bool:
    return isinstance(value, kind) if isinstance(kind, type) else bool(kind(value))


def _missing(meta: dict[str, Any]) -> list[str]:
    """The entries of a profile's metadata that are missing or of the wrong kind."""
    missing = [k for k in _META_KEYS if k not in meta or not _valid(meta[k], _KINDS.get(k, object))]
    if not isinstance(meta.get("spec"), dict) or not isinstance(meta.get("tables"), list):
        return missing
    spec = meta["spec"]
    missing += [f"spec.{k}" for k in FIXED if k not in spec]
    missing += [f"spec.{k}" for k in ("sensitive_features", "by") if not _names(spec.get(k, []))]
    if spec.get("task", TASKS[0]) not in TASKS:
        missing.append("spec.task")
    for key in ("columns", "table_schemas"):
        if isinstance(meta.get(key), dict):
            missing += [f"{key}.{t}" for t in meta["tables"] if t not in meta[key]]
    return missing


def _undecodable(meta: dict[str, Any]) -> list[str]:
    """The schemas and column expressions of complete metadata that do not decode."""
    bad = []
    entries = {"schema": meta["schema"], **{
        f"table_schemas.{t}": meta["table_schemas"][t] for t in meta["tables"]
    }}  # fmt: skip
    for name, text in entries.items():
        try:
            decode_schema(text)
        except (ValueError, TypeError, OSError, pl.exceptions.PolarsError):
            bad.append(name)
    columns = [(k, meta["spec"][k]) for k in ("y_true", "y_pred", "y_prob", "sample_weight")]
    columns += [(f"by_items.{i}", v) for i, v in enumerate(meta["spec"].get("by_items") or [])]
    for name, value in columns:
        try:
            decoded: object = decode_column(value)
        except (ValueError, TypeError, KeyError, OSError, pl.exceptions.PolarsError):
            decoded = False  # not a column
        if not (decoded is None or isinstance(decoded, (str, pl.Expr))):
            bad.append(f"spec.{name}")
    return bad


def distinct_matches(
    patterns: Sequence[str],
    *,
    noun: str,
    error: type[Exception],
    check: Callable[[str], Path] = Path,
    gap: str = "\n\n",
) -> list[str]:
    """The files the paths or globs `patterns` match, each once.

    A file matched twice (overlapping globs, one file spelled two ways, a link to it)
    would be counted twice: `error` names it (`noun`: what a file is, e.g.
    ``"profile"``); so does a pattern matching nothing. `check` turns a match into a
    path (and may raise for one that cannot be read); `gap` precedes the hint.
    """
    paths: list[str] = []
    seen: dict[Path, str] = {}
    for text in patterns:
        matches = sorted(glob.glob(text)) if glob.has_magic(text) else [text]
        if not matches:
            msg = f"no {noun} matches {text!r}{gap}Hint: check the path, and quote globs"
            raise error(msg)
        for match in matches:
            resolved = check(match).resolve()
            if resolved in seen:
                also = f" (as {seen[resolved]!r} too)" if seen[resolved] != match else ""
                msg = (
                    f"{noun} {match!r} is given twice{also}: it would be counted twice"
                    f"{gap}Hint: give each file once (check overlapping globs)"
                )
                raise error(msg)
            seen[resolved] = match
            paths.append(match)
    return paths


_PATH_HINT = 'give a file or a glob, e.g. `read_profile("profiles/*.parquet")`'


def profile_paths(source: str | Path | Sequence[str | Path]) -> list[str]:
    """The files of `source`, each once (a file given twice would count twice)."""
    # a number, a profile object; bytes are a sequence of numbers
    if not isinstance(source, (str, Path, Sequence)) or isinstance(source, (bytes, bytearray)):
        msg = (
            f"`source` must be a path, a glob or a list of paths, got {source!r}"
            '\n\nHint: e.g. `read_profile("profiles/*.parquet")`'
        )
        raise InvalidParameterError(msg)
    items = [source] if isinstance(source, (str, Path)) else list(source)
    for i, item in enumerate(items):
        if not isinstance(item, (str, Path)):
            msg = (
                f"`source` must be a path, a glob or a list of paths; item {i} is a "
                f"{type(item).__name__}\n\nHint: give file paths (strings or `Path`); merge "
                "profile objects with `polars_fair.merge_profiles([...])`"
            )
            raise InvalidParameterError(msg)
        if not str(item):  # Path("") is the working directory
            msg = f"`source` holds an empty path (item {i})\n\nHint: {_PATH_HINT}"
            raise InvalidParameterError(msg)
    paths = distinct_matches([str(item) for item in items], noun="profile", error=ProfileError)
    if not paths:
        msg = "no profile given: `source` is empty\n\nHint: pass a path or a glob"
        raise InvalidParameterError(msg)
    return paths


def merged_meta(metas: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The metadata of the sum of compatible profiles of metadata `metas`."""
    created = [m.get("pieces_created", [m["created_at"]]) for m in metas]
    return {
        **metas[0],
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "rows": sum(int(m["rows"]) for m in metas),
        "pieces": sum(int(m["pieces"]) for m in metas),
        "pieces_created": [min(c[0] for c in created), max(c[-1] for c in created)],
    }


def split_layout(long: pl.DataFrame, meta: dict[str, Any], layout: str) -> dict[str, pl.DataFrame]:
    """The tables of a profile file's long table (each with its own columns and dtypes)."""
    tables = {}
    for name in meta["tables"]:
        schema = decode_schema(meta["table_schemas"][name])
        part = long.filter(pl.col(layout) == name).select(meta["columns"][name])
        tables[name] = part.cast(dict(schema))  # type: ignore[arg-type]
    return tables
