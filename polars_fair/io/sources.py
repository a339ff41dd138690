"""Reading prediction files lazily, by extension: CSV, Parquet, NDJSON, Arrow IPC."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from polars_fair.exceptions import InvalidParameterError

__all__ = ["READERS", "scan_file"]

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


def scan_file(path: str | Path) -> pl.LazyFrame:
    """
    Lazily read one file of predictions, choosing the reader by its extension.

    Parameters
    ----------
    path
        A ``.csv``, ``.parquet``/``.pq``, ``.ndjson``/``.jsonl`` or
        ``.arrow``/``.ipc``/``.feather`` file.

    Returns
    -------
    LazyFrame
        A scan of the file (nothing is read yet).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.io.sources import scan_file
    >>> path = Path(tempfile.mkdtemp()) / "preds.csv"
    >>> pl.DataFrame({"g": ["a", "b"], "p": [1, 0]}).write_csv(path)
    >>> scan_file(path).collect().shape
    (2, 2)
    """
    suffix = Path(path).suffix.lower()
    if suffix not in READERS:
        msg = (
            f"cannot read {str(path)!r}: unknown extension {suffix!r}\n\nHint: use one of "
            f"{', '.join(sorted(READERS))}"
        )
        raise InvalidParameterError(msg)
    return READERS[suffix](path)
