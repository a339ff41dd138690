"""The public path of :mod:`polars_fair.io.sources` (where the module lives: see the layers)."""

from polars_fair.io.sources import (
    INFER_SCHEMA_LENGTH,
    READERS,
    check_columns,
    check_path,
    file_schema,
    file_schemas,
    first_failure,
    read_error,
    scan_file,
)

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
