"""Checks of what the public report specification functions are given.

:func:`~polars_fair.derive_report` and :func:`~polars_fair.sum_reductions` take
tables a caller collected; a spec of the wrong type, tables in the wrong order or
pieces with different numbers of reductions are refused here, each with the fix,
before any derivation reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_fair.exceptions import InvalidParameterError

__all__ = ["check_pieces", "check_reductions", "check_spec"]


def check_spec(spec: object, kind: type) -> None:
    """Refuse a `spec` that is not a report specification (`kind`)."""
    if not isinstance(spec, kind):
        msg = (
            f"`spec` must be a ReportSpec, got {type(spec).__name__}\n\nHint: build it with "
            "`pf.ReportSpec.of(y_true=..., y_pred=..., sensitive_features=...)`"
        )
        raise InvalidParameterError(msg)


def check_reductions(plans: Sequence[pl.LazyFrame], reductions: Sequence[object]) -> None:
    """Refuse collected `reductions` that are not the tables of `plans`, in order."""
    if len(plans) != len(reductions):
        msg = (
            f"the report needs {len(plans)} reductions, got {len(reductions)}\n\nHint: "
            "pass the collected `report_reductions(frame, spec)` of the same spec"
        )
        raise InvalidParameterError(msg)
    for i, (lf, table) in enumerate(zip(plans, reductions, strict=True)):
        want = lf.collect_schema().names()
        got = table.columns if isinstance(table, pl.DataFrame) else type(table).__name__
        if got != want:
            msg = (
                f"reduction {i} does not match the spec: its columns are {got}, the spec's "
                f"reduction {i} has {want}\n\nHint: pass the collected "
                "`report_reductions(frame, spec)` of the same spec, in their order"
            )
            raise InvalidParameterError(msg)


def check_pieces(parts: Sequence[Sequence[object]]) -> None:
    """Refuse no pieces, or pieces with different numbers of reductions."""
    lengths = [len(p) for p in parts]
    if not parts or len(set(lengths)) > 1:
        msg = (
            f"`sum_reductions` needs the reductions of at least one piece, the same number "
            f"for each piece; got {lengths}\n\nHint: pass "
            "`pl.collect_all(pf.report_reductions(piece, spec))` for each piece, same spec"
        )
        raise InvalidParameterError(msg)
