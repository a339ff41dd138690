"""Encoding of a profile's metadata: columns, expressions, schemas, compatibility.

The metadata of a :class:`~polars_fair.FairnessProfile` is plain JSON (it
travels in the Parquet file's key-value metadata): column names as strings,
expressions as Polars' JSON serialisation, schemas as a serialised empty frame
(base64), so every dtype (Enum categories included) comes back as it was.
"""

from __future__ import annotations

import base64
import io
import json
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn

__all__ = [
    "FIXED",
    "check_json",
    "decode_column",
    "decode_schema",
    "differences",
    "encode_column",
    "encode_schema",
    "roots",
    "shown",
    "table_name",
]

#: What decides the reductions: profiles merge only where these agree.
FIXED = (
    "y_true", "y_pred", "y_prob", "sensitive_features", "by", "sample_weight",
    "pos_label", "n_bins", "score_bins",
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


def table_name(schema: pl.Schema, taken: set[str]) -> str:
    name = "roc" if "score" in schema else "calibration" if "bin" in schema else "stats"
    base, i = name, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def check_json(meta: dict[str, Any]) -> None:
    try:
        json.dumps(meta)
    except TypeError as exc:
        msg = (
            f"`pos_label` must be a number, string or boolean to keep in a profile, got "
            f"{meta['spec']['pos_label']!r}"
        )
        raise InvalidParameterError(msg) from exc


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    found = []
    for key in (*FIXED,):
        if a["spec"][key] != b["spec"][key]:
            found.append(f"`{key}`: {describe(a['spec'][key])} against {describe(b['spec'][key])}")
    if a["key_dtypes"] != b["key_dtypes"]:
        found.append(f"key dtypes: {a['key_dtypes']} against {b['key_dtypes']}")
    if a["schema"] != b["schema"]:
        sa, sb = decode_schema(a["schema"]), decode_schema(b["schema"])
        cols = [c for c in sa if sb.get(c) != sa[c]]
        found.append(
            "column dtypes: " + ", ".join(f"{c!r} {sa[c]} against {sb.get(c)}" for c in cols)
        )
    if a["tables"] != b["tables"] or a["columns"] != b["columns"]:
        found.append(f"tables: {a['columns']} against {b['columns']}")
    return found


def describe(value: Any) -> str:
    if isinstance(value, dict) and "expr" in value:
        return str(decode_column(value))
    return repr(value)
