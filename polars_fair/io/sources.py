"""Reading prediction files lazily, by extension: CSV, Parquet, NDJSON, Arrow IPC.

Every read of a file goes through this module, so every error names the file:
:func:`scan_file` builds the lazy scan, :func:`file_schema` reads only the
schema (and, for a CSV, the first row, to tell a header-only file from data),
and :func:`read_error` turns any error raised while reading into a
:class:`~polars_fair.exceptions.FileReadError` that names the file, says what
was wrong and how to fix it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair._utils import parse_failure
from polars_fair._validate import dtype_kind
from polars_fair.exceptions import EmptyDataError, FileReadError, InvalidParameterError
from polars_fair.namespace._profile_files import META_KEY

__all__ = [
    "INFER_SCHEMA_LENGTH",
    "READERS",
    "check_columns",
    "check_path",
    "file_schema",
    "file_schemas",
    "first_failure",
    "read_error",
    "scan_file",
]

#: The lazy reader of each file extension.
READERS: dict[str, Callable[..., pl.LazyFrame]] = {
    ".csv": pl.scan_csv,
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
    ".arrow": pl.scan_ipc,
    ".ipc": pl.scan_ipc,
    ".feather": pl.scan_ipc,
}
#: Rows a CSV reader looks at to infer column types (Polars' default).
INFER_SCHEMA_LENGTH = 100


def _check_scan_options(path: str | Path, null_values: object, infer_schema_length: object) -> None:
    """Refuse a path that is no file and options of the wrong type, naming each."""
    text = str(path)
    if Path(text).is_dir():
        msg = (
            f"cannot read {text!r}: it is a directory\n\nHint: name a file in it, e.g. "
            f"{str(Path(text) / 'predictions.parquet')!r}"
        )
        raise FileReadError(msg)
    if not any(c in text for c in "*?[") and not Path(text).exists():
        msg = f"cannot read {text!r}: no such file\n\nHint: check the path (the current "
        msg += f"directory is {str(Path.cwd())!r})"
        raise FileReadError(msg)
    if isinstance(null_values, str) or (
        null_values is not None
        and not (isinstance(null_values, Sequence) and all(isinstance(v, str) for v in null_values))
    ):
        msg = (
            f"`null_values` must be a list of strings, got {null_values!r}\n\nHint: e.g. "
            f"`null_values=[{null_values!r}]`"
            if isinstance(null_values, str)
            else f"`null_values` must be a list of strings, got {null_values!r}\n\nHint: e.g. "
            '`null_values=["N/A", "NA"]`'
        )
        raise InvalidParameterError(msg)
    bad = isinstance(infer_schema_length, bool) or not isinstance(infer_schema_length, int)
    if infer_schema_length is not None and (bad or infer_schema_length < 0):  # type: ignore[operator]
        msg = (
            f"`infer_schema_length` must be a non-negative integer or None, got "
            f"{infer_schema_length!r}\n\nHint: None reads every row before deciding the "
            "column types; e.g. `infer_schema_length=10000`"
        )
        raise InvalidParameterError(msg)


def _csv_options(
    null_values: Sequence[str] | None, infer_schema_length: int | None
) -> dict[str, Any]:
    options: dict[str, Any] = {"infer_schema_length": infer_schema_length}
    if null_values:
        options["null_values"] = list(null_values)
    return options


def scan_file(
    path: str | Path,
    *,
    null_values: Sequence[str] | None = None,
    infer_schema_length: int | None = INFER_SCHEMA_LENGTH,
) -> pl.LazyFrame:
    """
    Lazily read one file of predictions, choosing the reader by its extension.

    The reader the command line uses (``polars-fair audit``), with its CSV options
    (``--null-values``, ``--infer-schema-length``). Also ``polars_fair.scan_file``.

    Parameters
    ----------
    path
        A ``.csv``, ``.parquet``/``.pq``, ``.ndjson``/``.jsonl`` or
        ``.arrow``/``.ipc``/``.feather`` file.
    null_values
        CSV only: values read as missing (e.g. ``["N/A", ""]``).
    infer_schema_length
        CSV only: rows used to infer the column types; None reads them all.

    Returns
    -------
    LazyFrame
        A scan of the file (nothing is read yet).

    Raises
    ------
    InvalidParameterError
        The extension is not one of those above.

    See Also
    --------
    read_error : The error of a failed read, naming the file, the column and the value.

    Notes
    -----
    Nothing is read until the plan is collected, so a value that does not parse (an
    ``N/A`` in a CSV column of integers inferred from the first rows) is raised then,
    by Polars. :func:`read_error` turns it into the command line's message: the file,
    the column, the value and the fix (``null_values=["N/A"]``, or
    ``infer_schema_length=None``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> import polars_fair as pf
    >>> folder = Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"g": ["a", "b", "b"], "y": [1, 0, 1]}).write_csv(folder / "preds.csv")
    >>> pf.scan_file(folder / "preds.csv").collect().shape
    (3, 2)

    A missing value written as ``N/A`` after the rows the types are inferred from:

    >>> from polars_fair.sources import read_error
    >>> y = ["1"] * 100 + ["N/A"]
    >>> pl.DataFrame({"g": ["a"] * 101, "y": y}).write_csv(folder / "na.csv")
    >>> try:
    ...     pf.scan_file(folder / "na.csv").collect()
    ... except pl.exceptions.ComputeError as exc:
    ...     error = read_error("na.csv", exc)
    >>> print(str(error).splitlines()[0])  # doctest: +ELLIPSIS
    cannot read 'na.csv': column 'y' holds 'N/A', which does not parse as i64, ...
    >>> pf.scan_file(folder / "na.csv", null_values=["N/A"]).collect()["y"].null_count()
    1
    """
    _check_scan_options(path, null_values, infer_schema_length)
    suffix = Path(path).suffix.lower()
    if suffix not in READERS:
        msg = (
            f"cannot read {str(path)!r}: unknown extension {suffix!r}\n\nHint: use one of "
            f"{', '.join(sorted(READERS))}"
        )
        raise InvalidParameterError(msg)
    if suffix == ".csv":
        return pl.scan_csv(path, **_csv_options(null_values, infer_schema_length))
    return READERS[suffix](path)


def read_error(path: str | Path, error: BaseException) -> FileReadError:
    """
    An error raised while reading `path`, as a :class:`FileReadError` naming the file.

    A CSV value that does not parse as the type inferred from the first rows
    (e.g. ``N/A`` in a column of integers) gets a message naming the column and
    the value, with the fixes: read it as missing, or infer types from more rows.

    Parameters
    ----------
    path
        The file being read.
    error
        What reading it raised.

    Returns
    -------
    FileReadError
        The error to raise (``raise read_error(path, exc) from exc``).

    Examples
    --------
    >>> from polars_fair.sources import read_error
    >>> err = read_error("a.parquet", ValueError("parquet: File out of specification"))
    >>> print(err)
    cannot read 'a.parquet': parquet: File out of specification
    <BLANKLINE>
    Hint: check that the file is complete and in the format its extension says
    """
    name = str(path)
    profile = _profile_read_as_data(path)
    if profile is not None:
        return profile
    text = str(error).strip()
    parsed = parse_failure(text)
    if parsed is not None:
        value, dtype, column = parsed
        msg = (
            f"cannot read {name!r}: column {column!r} holds {value!r}, which does not parse as "
            f"{dtype}, the type inferred from the column's first rows (the first "
            f"{INFER_SCHEMA_LENGTH} unless told otherwise)\n\nHint: if {value!r} means "
            f"missing, read it as null (command line: --null-values {value!r}; Python: "
            f"polars_fair.scan_file(path, null_values=[{value!r}])): rows with a missing label or "
            "prediction are then excluded and counted; or infer the types from every row "
            "(--infer-schema-length 0; Python: infer_schema_length=None)"
        )
        return FileReadError(msg)
    first = text.splitlines()[0] if text else type(error).__name__
    if first.startswith("conversion from") and "failed in column" in first:
        msg = (  # a strict cast of the user's (a SQL CAST): the file was read
            f"cannot audit {name!r}: a cast in an expression given for a column failed "
            f"({first})\n\nHint: cast only the values that convert, e.g. SQL "
            "TRY_CAST(x AS INT) (null where x does not), or fix the values"
        )
        return FileReadError(msg)
    hint = "check that the file is complete and in the format its extension says"
    if "expanded paths were empty" in text:  # Polars' scan of a glob matching no file
        first, hint = "no file matches it", "check the folder and the pattern"
    if name.lower().endswith((".ndjson", ".jsonl")):
        hint += ' (NDJSON: one complete JSON object per line, keys quoted, e.g. {"g": "a"})'
    msg = f"cannot read {name!r}: {first}\n\nHint: {hint}"
    return FileReadError(msg)


def _profile_read_as_data(path: str | Path) -> FileReadError | None:
    """The error for a fairness profile given as a data file (None when `path` is not one).

    Read on the error paths only (a footer read): a glob over the folder a profile was
    written to picks the profile up beside the data files.
    """
    if not str(path).lower().endswith((".parquet", ".pq")):
        return None
    try:
        is_profile = META_KEY in pl.read_parquet_metadata(path)
    except (OSError, pl.exceptions.PolarsError):
        return None
    if not is_profile:
        return None
    msg = (
        f"{str(path)!r} is a fairness profile (written by `polars-fair profile -o` or "
        "`profile.write_parquet`), not a data file\n\nHint: audit it with "
        f"`polars-fair audit --profile {str(path)!r}`, or leave it out of the data files "
        "(write profiles to a folder of their own, where a glob over the data cannot pick "
        "them up)"
    )
    return FileReadError(msg)


def _glob_hint(directory: Path) -> str:
    """A glob over the readable files of `directory`, by its most common extension."""
    counts: dict[str, int] = {}
    for child in directory.iterdir():
        suffix = child.suffix.lower()
        if suffix in READERS and child.is_file():
            counts[suffix] = counts.get(suffix, 0) + 1
    suffix = max(sorted(counts), key=lambda s: counts[s]) if counts else ".parquet"
    return str(directory / f"*{suffix}")


def check_path(path: str | Path) -> Path:
    """
    `path` as a readable file of a known format, or an error that says why not.

    Parameters
    ----------
    path
        The path given.

    Returns
    -------
    Path
        The same path.

    Raises
    ------
    FileReadError
        The path does not exist, is a directory (the hint gives a glob over its
        files), has an unknown extension or is empty (0 bytes).

    Examples
    --------
    >>> import tempfile
    >>> from polars_fair.sources import check_path
    >>> folder = tempfile.mkdtemp()
    >>> check_path(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.exceptions.FileReadError: ... is a directory, not a file...
    """
    file = Path(path)
    if file.is_dir():
        msg = (
            f"{str(path)!r} is a directory, not a file\n\nHint: to read the files in it, "
            f"give a glob (quoted), e.g. {_glob_hint(file)!r}"
        )
        raise FileReadError(msg)
    if not file.is_file():
        msg = f"file not found: {str(path)!r}\n\nHint: check the path"
        raise FileReadError(msg)
    if file.suffix.lower() not in READERS:
        msg = (
            f"cannot read {str(path)!r}: unknown extension {file.suffix!r}\n\nHint: use one "
            f"of {', '.join(sorted(READERS))}"
        )
        raise FileReadError(msg)
    if file.stat().st_size == 0:
        msg = f"cannot read {str(path)!r}: the file is empty (0 bytes)\n\nHint: check the path"
        raise EmptyDataError(msg)
    return file


def file_schema(
    path: str | Path,
    *,
    null_values: Sequence[str] | None = None,
    infer_schema_length: int | None = INFER_SCHEMA_LENGTH,
) -> pl.Schema:
    """
    The schema of one file, read without a pass over its data.

    Parquet and IPC schemas come from the file's metadata; CSV and NDJSON
    schemas are inferred from their first rows. A CSV with a header and no rows
    is refused as empty (its columns would all be strings, which is not what
    they hold).

    Parameters
    ----------
    path
        The file.
    null_values, infer_schema_length
        CSV options, as in :func:`scan_file`.

    Returns
    -------
    Schema
        The columns and their types.

    Raises
    ------
    FileReadError
        The file cannot be read (named in the message).
    EmptyDataError
        The file is empty or holds a header only.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.sources import file_schema
    >>> path = Path(tempfile.mkdtemp()) / "preds.csv"
    >>> pl.DataFrame({"g": ["a", "b"], "p": [1, 0]}).write_csv(path)
    >>> file_schema(path)
    Schema([('g', String), ('p', Int64)])
    """
    file = check_path(path)
    frame = scan_file(file, null_values=null_values, infer_schema_length=infer_schema_length)
    window = INFER_SCHEMA_LENGTH if infer_schema_length is None else infer_schema_length
    try:
        schema = frame.collect_schema()
        # a CSV with a header only: one row read settles it (not a pass over the data)
        blank = _blank_rows(frame, schema, window) if file.suffix.lower() == ".csv" else None
    except pl.exceptions.NoDataError as exc:
        msg = f"cannot read {str(path)!r}: no data ({exc})\n\nHint: check the path"
        raise EmptyDataError(msg) from exc
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise read_error(path, exc) from exc
    if blank == 0:
        msg = (
            f"{str(path)!r} has a header and no rows: nothing to audit\n\nHint: check that "
            "the file was written completely, or leave it out"
        )
        raise EmptyDataError(msg)
    if blank is not None and blank < window:  # blank lines, read as rows of nulls
        msg = (
            f"{str(path)!r} has a header and no rows: nothing to audit (the {blank} line(s) "
            "after the header hold no value)\n\nHint: check that the file was written "
            "completely, or leave it out"
        )
        raise EmptyDataError(msg)
    if blank is not None:
        msg = (
            f"{str(path)!r} has no value in its first {blank} rows (empty lines), so no "
            "column type can be inferred\n\nHint: remove the empty lines, or raise "
            "--infer-schema-length"
        )
        raise FileReadError(msg)
    return schema


def _blank_rows(frame: pl.LazyFrame, schema: pl.Schema, window: int) -> int | None:
    """How many rows without any value a CSV starts with (None: it has values).

    0 is a header and no rows. Polars reads a blank line as a row of nulls, and with
    no value in the rows it infers types from, every column as String: such a file
    would be audited as a String label column. Only then are the inference rows read
    again (at most `window`); otherwise one row settles it.
    """
    first = frame.head(1).collect()
    if first.height == 0:
        return 0
    if any(dtype != pl.String for dtype in schema.dtypes()) or any(
        first.get_column(c).null_count() == 0 for c in first.columns
    ):
        return None
    rows = frame.head(window).collect()
    if rows.select(pl.any_horizontal(pl.all().is_not_null().any())).item():
        return None
    return rows.height


def check_columns(
    files: Sequence[str | Path], schemas: Sequence[pl.Schema], needed: Sequence[str]
) -> None:
    """
    Check that every file holds every column read, with the same kind of values in each.

    Only the schemas are compared (see :func:`file_schema`): nothing is read.

    Parameters
    ----------
    files
        The files, in the order of `schemas`.
    schemas
        Their schemas.
    needed
        The columns read from every file.

    Raises
    ------
    FileReadError
        A file lacks a column, or a column holds numbers in one file and text (or
        booleans) in another; the message names the file, the column and the types.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.sources import check_columns
    >>> schemas = [pl.Schema({"g": pl.String, "y": pl.Int64}), pl.Schema({"g": pl.String})]
    >>> check_columns(["a.csv", "b.csv"], schemas, ["g", "y"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.exceptions.FileReadError: 'b.csv' has no column 'y' (the audit reads ['g', 'y'])...
    """
    needed = list(needed)
    for file, schema in zip(files, schemas, strict=True):
        missing = [c for c in needed if c not in schema]
        if missing:
            profile = _profile_read_as_data(file)
            if profile is not None:
                raise profile
            msg = (
                f"{str(file)!r} has no column {missing[0]!r} (the audit reads {needed})\n\n"
                f"Hint: its columns are {list(schema.names())}; leave the file out, or give "
                "files that share the columns"
            )
            raise FileReadError(msg)
    for col in needed:
        first = dtype_kind(schemas[0][col])
        for file, schema in zip(files[1:], schemas[1:], strict=True):
            if dtype_kind(schema[col]) != first:
                msg = (
                    f"column {col!r} holds {dtype_kind(schema[col])} values ({schema[col]}) in "
                    f"{str(file)!r} but {first} values ({schemas[0][col]}) in "
                    f"{str(files[0])!r}\n\nHint: write the files with the same column "
                    "types; for CSV, --null-values or --infer-schema-length may settle it"
                )
                raise FileReadError(msg)


def file_schemas(
    files: Sequence[Path],
    *,
    null_values: Sequence[str] | None = None,
    infer_schema_length: int | None = INFER_SCHEMA_LENGTH,
) -> tuple[list[Path], list[pl.Schema], list[str]]:
    r"""
    The schemas of several files, leaving out those with a header and no rows.

    Parameters
    ----------
    files
        The files.
    null_values, infer_schema_length
        CSV options, as in :func:`scan_file`.

    Returns
    -------
    tuple
        The files kept, their schemas, and a note for each file left out.

    Raises
    ------
    EmptyDataError
        The only file is empty, or every file is.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.sources import file_schemas
    >>> folder = Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"g": ["a"], "p": [1]}).write_csv(folder / "a.csv")
    >>> _ = (folder / "b.csv").write_text("g,p\n")
    >>> kept, schemas, notes = file_schemas([folder / "a.csv", folder / "b.csv"])
    >>> [f.name for f in kept], notes[0].endswith("has a header and no rows: nothing to audit")
    (['a.csv'], True)
    """
    kept: list[Path] = []
    schemas: list[pl.Schema] = []
    notes: list[str] = []
    for file in files:
        try:
            schemas.append(file_schema(file, null_values=null_values,
                                       infer_schema_length=infer_schema_length))  # fmt: skip
        except EmptyDataError as exc:
            if len(files) == 1:
                raise
            notes.append(str(exc).split("\n")[0])
            continue
        kept.append(file)
    if not kept:
        shown = ", ".join(repr(str(f)) for f in files[:5])
        more = f" and {len(files) - 5} more" if len(files) > 5 else ""
        msg = f"every file is empty ({len(files)} given): {shown}{more}\n\nHint: check the paths"
        raise EmptyDataError(msg)
    return kept, schemas, notes


def first_failure(
    files: Sequence[Path], frames: Sequence[pl.LazyFrame], run: Callable[[pl.LazyFrame], object]
) -> tuple[Path, BaseException] | None:
    r"""
    The first file whose plan fails on its own, and its error (to name it in the message).

    Parameters
    ----------
    files
        The files, in the order of `frames`.
    frames
        Their scans (or plans over them).
    run
        Runs the work on one of `frames` (e.g. collects its reductions).

    Returns
    -------
    tuple or None
        ``(file, error)`` for the first file that fails reading, None if none does.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.sources import first_failure, scan_file
    >>> folder = Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"y": [1]}).write_csv(folder / "a.csv")
    >>> _ = (folder / "b.csv").write_text("y\n" + "1\n" * 100 + "N/A\n")
    >>> files = [folder / "a.csv", folder / "b.csv"]
    >>> file, error = first_failure(files, [scan_file(f) for f in files], pl.LazyFrame.collect)
    >>> file.name
    'b.csv'
    """
    for file, frame in zip(files, frames, strict=True):
        try:
            run(frame)
        except (pl.exceptions.PolarsError, OSError) as exc:
            return file, exc
    return None
