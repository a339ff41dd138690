"""Sensitive features that look like an identifier: a warning read from ``by_group``.

Used by the namespace's ``report`` (eager and lazy) once the tables are collected.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair.report._capping import MAX_ROWS

#: A sensitive feature looks like an identifier when it has more groups than this ...
IDENTIFIER_MIN_GROUPS = 1000
#: ... and more groups than this share of the rows.
IDENTIFIER_SHARE = 0.5


def identifier_warning(by_group: pl.DataFrame, params: dict[str, Any]) -> str | None:
    """
    A warning text when the sensitive features look like an identifier; else None.

    The rule reads the collected ``by_group`` table only (no pass over the data):
    more than ``IDENTIFIER_MIN_GROUPS`` (1,000) groups per batch key on average,
    and more groups than ``IDENTIFIER_SHARE`` (half) of the rows. Groups of one or
    two rows each say nothing about fairness, and every table grows with them.

    Parameters
    ----------
    by_group
        The report's ``by_group`` table (one row per batch key and group, with ``n``).
    params
        The report's parameters (``sensitive_features``, ``by``).

    Returns
    -------
    str or None
        The warning's text.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.report import identifier_warning
    >>> table = pl.DataFrame({"id": range(2000), "n": [1] * 2000})
    >>> print(identifier_warning(table, {"sensitive_features": ["id"]}))  # doctest: +ELLIPSIS
    sensitive feature 'id' looks like an identifier: 2,000 groups for 2,000 rows...
    >>> identifier_warning(table.head(10), {"sensitive_features": ["id"]}) is None
    True
    """
    sensitive = list(params.get("sensitive_features", []))
    if "n" not in by_group.columns or by_group.height <= IDENTIFIER_MIN_GROUPS:
        return None
    by = [c for c in params.get("by", []) if c in by_group.columns]
    batches = by_group.select(by).n_unique() if by else 1
    groups = by_group.height / max(batches, 1)
    rows = float(by_group.get_column("n").cast(pl.Float64).sum())
    if groups <= IDENTIFIER_MIN_GROUPS or by_group.height <= IDENTIFIER_SHARE * rows:
        return None
    names = ", ".join(repr(c) for c in sensitive)
    feature = "sensitive feature" if len(sensitive) == 1 else "sensitive features"
    return (
        f"{feature} {names} looks like an identifier: {round(groups):,} groups for "
        f"{round(rows / max(batches, 1)):,} rows (groups of one or two rows say nothing about "
        f"fairness)\n\nHint: audit a demographic column (e.g. sex, race, an age band) rather "
        f"than an id; rendered tables show the {MAX_ROWS} largest groups (`max_rows`, on the "
        "command line --max-rows)"
    )
