"""Profile files: the metadata keys, reading a file's metadata and tables, compatibility.

A profile file (see :mod:`polars_fair.namespace._profile`) is one Parquet file: a long
table whose layout column names each row's table, and the metadata as JSON under
:data:`META_KEY`. Files are checked for compatibility (:func:`check_compatible`) from
their metadata alone, before any table is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair.exceptions import InvalidParameterError, ProfileError
from polars_fair.plans._profile_meta import differences, merged_meta, parse_meta, split_layout
from polars_fair.reduce import merge_group_stats

__all__ = [
    "FORMAT_VERSION",
    "LAYOUT_KEY",
    "META_KEY",
    "MSG_NO_PROFILE",
    "check_profiles",
    "check_compatible",
    "read_files",
    "read_meta",
    "read_tables",
]

#: Version of the profile format (the metadata and the file layout).
FORMAT_VERSION = 1
#: Key of the profile's metadata in a Parquet file's key-value metadata.
META_KEY = "polars_fair.profile"
#: Key of the name of the long table's column naming each row's table (``table``
#: when absent: files written before a key could be named ``table``).
LAYOUT_KEY = "polars_fair.table_column"


def check_compatible(metas: Sequence[dict[str, Any]], sources: Sequence[str] = ()) -> None:
    """Raise a :class:`ProfileError` naming every difference of a profile with the first.

    `sources` name the profiles (their files) in the message.
    """
    for i, other in enumerate(metas[1:], start=1):
        diff = differences(metas[0], other)
        if diff:
            which = f"{sources[0]!r} and {sources[i]!r}" if sources else f"profiles 0 and {i}"
            hint = "merge only profiles made with the same columns and options"
            if any(d.startswith("key dtypes:") for d in diff):
                hint = (
                    "give the key one dtype in every piece before profiling (in Python, "
                    "e.g. `.with_columns(pl.col(key).cast(pl.Float64))`; CSV shards whose "
                    "types are inferred differently: write them with one schema, e.g. as "
                    "Parquet)"
                )
            msg = f"{which} cannot be merged: they differ in {'; '.join(diff)}\n\nHint: {hint}"
            raise ProfileError(msg)


MSG_NO_PROFILE = (
    "`merge_profiles` needs at least one profile, got none\n\nHint: pass a list of "
    "profiles, e.g. `pf.merge_profiles([df1.fair.profile(...), df2.fair.profile(...)])`"
)


def check_profiles(items: Sequence[object], kind: type) -> None:
    """Refuse anything in `items` that is not a profile (`kind`), naming its position."""
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            msg = (
                f"`merge_profiles` takes FairnessProfile objects, got {type(item).__name__} at "
                f"position {i}\n\nHint: make profiles with `df.fair.profile(...)` or read them "
                "with `pf.read_profile(path)`"
            )
            raise InvalidParameterError(msg)


def read_meta(path: str) -> tuple[dict[str, Any], str]:
    """A profile file's metadata and the name of its layout column."""
    try:
        raw = pl.read_parquet_metadata(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        problem = (
            "no such file"
            if not Path(path).exists()
            else "it is a directory"
            if Path(path).is_dir()
            else str(exc)
        )
        msg = (
            f"cannot read a profile from {path!r}: {problem}\n\nHint: pass the Parquet file "
            "written by `profile.write_parquet(path)` (or `polars-fair profile -o`), or a glob "
            "such as 'profiles/*.parquet'"
        )
        raise ProfileError(msg) from exc
    if META_KEY not in raw:
        msg = (
            f"{path!r} is not a fairness profile (no {META_KEY!r} metadata)"
            "\n\nHint: write profiles with `profile.write_parquet(path)`"
        )
        raise ProfileError(msg)
    return parse_meta(raw[META_KEY], path, FORMAT_VERSION), raw.get(LAYOUT_KEY, "table")


def read_tables(
    paths: Sequence[str], layouts: Sequence[str], meta: dict[str, Any]
) -> list[dict[str, pl.DataFrame]]:
    """The tables of compatible files, read together (in parallel) per layout column."""
    groups: dict[str, list[str]] = {}
    for path, layout in zip(paths, layouts, strict=True):
        groups.setdefault(layout, []).append(path)
    try:
        return [
            split_layout(pl.read_parquet(group), meta, layout) for layout, group in groups.items()
        ]
    except (pl.exceptions.PolarsError, OSError, ValueError, KeyError) as exc:
        msg = f"cannot read the profile tables of {list(paths)}: {exc}"
        raise ProfileError(msg) from exc


def read_files(paths: Sequence[str]) -> tuple[dict[str, pl.DataFrame], dict[str, Any]]:
    """The tables and metadata of the profile files `paths`, merged (checked first)."""
    metas, layouts = zip(*(read_meta(p) for p in paths), strict=True)
    check_compatible(metas, paths)  # before any table is read
    # compatible files have the same columns: read them together (in parallel) and sum
    parts = read_tables(paths, layouts, metas[0])
    tables = parts[0]
    if len(paths) > 1:
        tables = {name: merge_group_stats(*(p[name] for p in parts)).collect() for name in tables}
    return tables, metas[0] if len(paths) == 1 else merged_meta(metas)
