"""The command line's ``--output``: checked before any data is read, written as one error.

Used by every command (``audit``, ``profile``, ``compare``) of :mod:`polars_fair.io.cli`.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

import polars as pl

__all__ = ["UsageError", "check_output", "columns_hint", "unwritable", "write_output"]


class UsageError(Exception):
    """A problem with the command line or its input (exit status 2)."""


def check_output(
    output: str | None,
    example: str = "report.html",
    inputs: Sequence[str] = (),
    *,
    stdout: bool = True,
) -> None:
    """`--output` can be written (checked before any data is read: audit, profile, compare).

    It must not be one of the `inputs` (files or globs): writing it would replace the data.
    `stdout`: whether the command writes to the standard output without `--output`.
    """
    if output is None:
        return
    path = Path(output)
    try:
        existed = path.exists()
    except OSError as exc:  # a name too long, a loop of links
        raise UsageError(unwritable(output, exc.strerror or str(exc), stdout=stdout)) from exc
    if path.is_dir():
        msg = f"--output {output!r} is a directory\nHint: give a file name, e.g. {str(path / example)!r}"
        raise UsageError(msg)
    if path.parent.exists() and not path.parent.is_dir():
        msg = (
            f"--output {output!r}: {str(path.parent)!r} is a file, not a directory\n"
            f"Hint: write elsewhere, e.g. {str(path.parent.with_name(path.name))!r}"
        )
        raise UsageError(msg)
    if not path.parent.is_dir():
        msg = (
            f"--output {output!r}: the directory {str(path.parent)!r} does not exist\n"
            f"Hint: create it first (mkdir -p {str(path.parent)!r}) or write elsewhere"
        )
        raise UsageError(msg)
    if existed and not path.is_file():  # a device or a pipe (/dev/stdout): opening may block
        return
    if existed and any(
        Path(f).is_file() and path.samefile(f) for p in inputs for f in glob.glob(p) or [p]
    ):
        msg = (
            f"--output {output!r} is one of the input files: writing it would replace them"
            f"\nHint: write elsewhere, e.g. {str(path.with_name(example))!r}"
        )
        raise UsageError(msg)
    try:  # a read-only place (permissions, /proc, /sys) fails here, not after the audit
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(unwritable(output, exc.strerror or str(exc), stdout=stdout)) from exc
    if not existed:
        path.unlink(missing_ok=True)


def unwritable(output: str, reason: str, *, stdout: bool = True) -> str:
    """The message for an `--output` the system refuses to write, and its hint.

    `stdout`: whether the command writes to the standard output without `--output`.
    """
    return (
        f"--output {output!r} cannot be written: {reason}\n"
        "Hint: check the path and its permissions, or write elsewhere"
        + (" (or leave -o out for stdout)" if stdout else "")
    )


def write_output(output: str, text: str) -> None:
    """Write the rendered report to `--output`; an OS error becomes a usage error naming it."""
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(unwritable(output, exc.strerror or str(exc))) from exc


def columns_hint(schema: pl.Schema) -> str:
    """The file's columns, and, when its only column name holds a separator, how to read it."""
    names = list(schema.names())
    found = [c for c in (";", "\t", "|") if len(names) == 1 and c in names[0]]
    if not found:
        return repr(names)
    return (
        f"{names!r}: one column whose name holds {found[0]!r}, so the file looks separated by "
        f"{found[0]!r}, not commas; write it comma-separated (in Python, e.g. "
        f"`pl.read_csv(path, separator={found[0]!r}).write_csv(new_path)`) or as Parquet, "
        "and audit that file"
    )
