"""Profile files: the metadata keys, reading a file's metadata and tables, compatibility.

A profile file (see :mod:`polars_fair.namespace._profile`) is one Parquet file: one long
table whose layout column (``table``, or ``__pf_table`` if a key is named ``table``) names
the reduction each row belongs to (``stats``, ``calibration``, ``roc``), the union of
their columns, and the metadata as JSON under :data:`META_KEY` of the file's key-value
metadata (with each table's columns and dtypes, and the schema of the audited columns,
so the file describes itself). Files are checked for compatibility (:func:`check_compatible`) from
their metadata alone, before any table is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from polars_fair.exceptions import InvalidParameterError, ProfileError
from polars_fair.plans._profile_meta import (
    by_differences,
    differences,
    merged_meta,
    option_differences,
    parse_meta,
    split_layout,
)
from polars_fair.reduce import CELL_WEIGHT_SQUARES, ROC_WEIGHT_SQUARES, merge_group_stats

__all__ = [
    "check_baseline",
    "FORMAT_VERSION",
    "REGRESSION_FORMAT_VERSION",
    "LAYOUT_KEY",
    "META_KEY",
    "MSG_NO_PROFILE",
    "check_compatible",
    "check_distinct",
    "check_items",
    "canonical_scores",
    "read_files",
    "read_meta",
    "read_tables",
    "same_profile",
]

#: Version of the profile format (the metadata and the file layout).
FORMAT_VERSION = 1
#: The format of a regression profile (``task="regression"``): its own number, so that
#: a version of polars_fair without regression profiles refuses one as a newer format.
REGRESSION_FORMAT_VERSION = 2
#: Key of the profile's metadata in a Parquet file's key-value metadata.
META_KEY = "polars_fair.profile"
#: Key of the name of the long table's column naming each row's table (``table``
#: when absent: files written before a key could be named ``table``).
LAYOUT_KEY = "polars_fair.table_column"


#: Metadata on where a profile came from, not on what it holds (left out of ``==``).
_PROVENANCE = ("created_at", "pieces", "pieces_created")


def same_profile(
    a: tuple[dict[str, pl.DataFrame], dict[str, Any]],
    b: tuple[dict[str, pl.DataFrame], dict[str, Any]],
) -> bool:
    """Whether profiles of (tables, metadata) `a` and `b` hold the same statistics.

    Equal tables and metadata, bit for bit; the provenance (creation time, number of
    pieces) is left out, so the profile of the whole equals the merge of its pieces
    where the sums are exact (counts; float sums may differ in their last bits).
    """
    (tables_a, meta_a), (tables_b, meta_b) = a, b
    mine, theirs = ({k: v for k, v in m.items() if k not in _PROVENANCE} for m in (meta_a, meta_b))
    return (
        mine == theirs
        and tables_a.keys() == tables_b.keys()
        and all(t.equals(tables_b[name]) for name, t in tables_a.items())
    )


def as_items(items: object, kind: type) -> list[Any]:
    """`items` (the argument of `merge_profiles`) as a list: one profile alone is refused."""
    if isinstance(items, (kind, str, bytes, Path)) or not isinstance(items, Iterable):
        msg = (
            f"`merge_profiles` takes a list of FairnessProfile objects, got a "
            f"{type(items).__name__}\n\nHint: `merge_profiles([first, second])`, or "
            "`first + second`; to read profile files, `polars_fair.read_profile(path)`"
        )
        raise InvalidParameterError(msg)
    return list(items)


def check_items(items: Sequence[object], kind: type) -> None:
    """Refuse an item of `items` that is not a profile (of class `kind`), naming it."""
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            msg = (
                f"`merge_profiles` merges FairnessProfile objects; item {i} is a "
                f"{type(item).__name__}\n\nHint: make profiles with `df.fair.profile(...)` or "
                "read them with `polars_fair.read_profile(path)`"
            )
            raise InvalidParameterError(msg)


def check_distinct(items: Sequence[object]) -> None:
    """Refuse one profile object given twice: merged, its rows would count twice."""
    seen: dict[int, int] = {}
    for i, item in enumerate(items):
        j = seen.setdefault(id(item), i)
        if j != i:
            msg = (
                f"profiles {j} and {i} are the same profile: merged, its rows would be "
                "counted twice\n\nHint: merge each piece once (a merge is the profile of the "
                "union of disjoint pieces)"
            )
            raise ProfileError(msg)


def canonical_scores(
    tables: dict[str, pl.DataFrame], meta: dict[str, Any]
) -> dict[str, pl.DataFrame]:
    """`tables` with the score histogram's bins at exactly ``k / score_bins``.

    Polars divides a column of several rows by a number as a product with its
    reciprocal (``700 * 0.001 = 0.7000000000000001``) and a column of one row exactly
    (``0.7``): bin ``k`` of a large and of a small piece would be two floats, and their
    merge two rows. Each edge is read back as its ``k`` and divided by numpy (IEEE
    division, one float per ``k``); files written with either float merge as one bin.
    """
    bins = meta.get("score_bins")
    if not bins or "roc" not in tables:
        return tables
    roc = tables["roc"]
    score = roc.get_column("score").to_numpy().astype(np.float64)
    edges = np.rint(score * bins) / float(bins)  # NaN (a null score) stays NaN
    canonical = pl.Series("score", edges, dtype=pl.Float64).fill_nan(None)
    return {**tables, "roc": roc.with_columns(canonical)}


def check_baseline(baseline: object, meta: dict[str, Any], kind: type) -> None:
    """Refuse a `baseline` that is not a profile (of class `kind`) keyed as `meta`'s."""
    if not isinstance(baseline, kind):
        msg = (
            f"`baseline` must be a FairnessProfile, got {type(baseline).__name__}\n\n"
            "Hint: compare a profile with a profile, or reports: "
            "`profile.report(...).compare(baseline_report)`"
        )
        raise InvalidParameterError(msg)
    for differ in by_differences(baseline.meta, meta):  # type: ignore[attr-defined]
        msg = (
            f"cannot compare the profiles: they differ in {differ} (baseline against "
            "candidate)\n\nHint: profile both with the same `by`"
        )
        raise InvalidParameterError(msg)


def check_compatible(metas: Sequence[dict[str, Any]], sources: Sequence[str] = ()) -> None:
    """Raise a :class:`ProfileError` naming every difference of a profile with the first.

    `sources` name the profiles (their files) in the message.
    """
    for i, other in enumerate(metas[1:], start=1):
        diff = differences(metas[0], other)
        if diff:
            which = f"{sources[0]!r} and {sources[i]!r}" if sources else f"profiles 0 and {i}"
            hint = "merge only profiles made with the same columns and options"
            options = option_differences(metas[0], other)
            if options:
                named = ", ".join(f"`{k}`" for k in options)
                hint = (
                    f"profile every piece with the same {named}, or merge only the "
                    "profiles made alike"
                )
            for table, title, squares, use in _LATER_SQUARES:
                older = None if options else _without_squares(metas[0], other, table, squares)
                if older is not None:
                    j = 0 if older == 0 else i
                    name = repr(sources[j]) if sources else f"profile {j}"
                    shown = ", ".join(f"`{c}`" for c in squares)
                    hint = (
                        f"{name} was made by an older polars_fair, whose weighted {title} "
                        f"table keeps no sums of squared weights ({shown}, for {use}): "
                        "profile the older pieces again with this version"
                    )
            clash = _key_clash(metas[0], other)
            if clash is not None:
                key, dtype = clash
                hint = (
                    f"give the key one dtype in every piece before profiling (in Python, "
                    f"e.g. `.with_columns(pl.col({key!r}).cast(pl.{dtype}))`; CSV shards whose "
                    "types are inferred differently: write them with one schema, e.g. as "
                    "Parquet)"
                )
            msg = f"{which} cannot be merged: they differ in {'; '.join(diff)}\n\nHint: {hint}"
            raise ProfileError(msg)


MSG_NO_PROFILE = (
    "`merge_profiles` needs at least one profile, got none\n\nHint: pass a list of "
    "profiles, e.g. `pf.merge_profiles([df1.fair.profile(...), df2.fair.profile(...)])`"
)


#: Sums of squared weights that later versions keep: per table (its name, as said),
#: its columns and their use.
_LATER_SQUARES = (
    ("roc", "ROC", ROC_WEIGHT_SQUARES, "the AUC's interval"),
    ("stats", "statistics", CELL_WEIGHT_SQUARES, "each rate's own effective size"),
)


def _without_squares(
    first: dict[str, Any], other: dict[str, Any], table: str, squares: Sequence[str]
) -> int | None:
    """Which of two profiles (0: `first`, 1: `other`) lacks `squares` in `table`.

    None unless their tables differ only in those columns: made alike (the caller
    checks their options), one was made before weighted tables kept them.
    """
    cols = [m["columns"].get(table) for m in (first, other)]
    if cols[0] is None or cols[1] is None:
        return None
    plain = [[c for c in t if c not in squares] for t in cols]
    has = [all(c in t for c in squares) for t in cols]
    if plain[0] != plain[1] or has[0] == has[1]:
        return None
    return 1 if has[0] else 0


def _key_clash(first: dict[str, Any], other: dict[str, Any]) -> tuple[str, str] | None:
    """The first key whose dtype differs between two profiles, and its dtype in `first`."""
    a, b = first["key_dtypes"], other["key_dtypes"]
    for key, dtype in a.items():
        if key in b and b[key] != dtype:
            return key, dtype
    return None


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
            "such as 'profiles/*.parquet'; audit data files as data"
        )
        raise ProfileError(msg) from exc
    if META_KEY not in raw:
        msg = (
            f"{path!r} is not a fairness profile (no {META_KEY!r} metadata)"
            "\n\nHint: write profiles with `profile.write_parquet(path)`"
        )
        raise ProfileError(msg)
    meta = parse_meta(raw[META_KEY], path, FORMAT_VERSION, REGRESSION_FORMAT_VERSION)
    return meta, raw.get(LAYOUT_KEY, "table")


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
    parts = [canonical_scores(part, metas[0]) for part in read_tables(paths, layouts, metas[0])]
    tables = parts[0]
    if len(paths) > 1:
        tables = {name: merge_group_stats(*(p[name] for p in parts)).collect() for name in tables}
    return tables, metas[0] if len(paths) == 1 else merged_meta(metas)
