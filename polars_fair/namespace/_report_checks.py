"""Checks of what the public report specification functions are given.

:func:`~polars_fair.derive_report` and :func:`~polars_fair.sum_reductions` take
tables a caller collected; a spec of the wrong type, tables in the wrong order or
pieces with different numbers of reductions are refused here, each with the fix,
before any derivation reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import polars as pl

from polars_fair._utils import parse_failure
from polars_fair.exceptions import FairError, InputError, InvalidParameterError
from polars_fair.reduce import CELL_WEIGHT_SQUARES, ROC_WEIGHT_SQUARES

__all__ = ["check_pieces", "check_reductions", "check_spec", "reading_input"]

T = TypeVar("T")


def reading_input(frame: pl.DataFrame | pl.LazyFrame, collect: Callable[[], T]) -> T:
    """Run `collect`; a LazyFrame whose own plan fails raises :class:`InputError`.

    The report and the profile collect the frame they are given: a CSV value that
    does not parse as the type inferred from the first rows, or a cast that fails,
    surfaces there. The error names the column, the value and the fix; the library's
    own errors (and a DataFrame's, which has no plan upstream) pass unchanged.
    """
    try:
        return collect()
    except FairError:
        raise
    except pl.exceptions.PolarsError as exc:
        if not isinstance(frame, pl.LazyFrame):
            raise
        raise input_error(exc) from exc


def input_error(exc: BaseException) -> InputError:
    """The :class:`InputError` for a failure of the input's own plan."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    parsed = parse_failure(text)
    if parsed is not None:
        value, dtype, column = parsed
        msg = (
            f"the input LazyFrame failed while it was read: column {column!r} holds {value!r}, "
            f"which does not parse as {dtype}, the type inferred from its first rows\n\nHint: "
            f"if {value!r} means missing, scan with `null_values=[{value!r}]` (rows with a "
            "missing label or prediction are then excluded and counted); or infer the types "
            "from every row with `infer_schema_length=None`"
        )
        return InputError(msg)
    msg = (
        f"the input LazyFrame failed while it was read ({type(exc).__name__}): {first}\n\n"
        "Hint: the error is in the frame's own plan (its scan or the expressions before the "
        "audit); `lf.collect()` alone shows it in full"
    )
    return InputError(msg)


def check_spec(spec: object, kind: type) -> None:
    """Refuse a `spec` that is not a report specification (`kind`)."""
    if not isinstance(spec, kind):
        msg = (
            f"`spec` must be a ReportSpec, got {type(spec).__name__}\n\nHint: build it with "
            "`pf.ReportSpec.of(y_true=..., y_pred=..., sensitive_features=...)`"
        )
        raise InvalidParameterError(msg)


#: Columns a reduction may lack (a profile's statistics table of an older format: without
#: the sums of squared scores, or of squared weights per cell, then its rates' intervals
#: read the group's Kish size; its weighted ROC table without the sums of squared weights).
_OPTIONAL = frozenset(
    {"sum_prob2_pos", "sum_prob2_neg", "sum_prob2", *CELL_WEIGHT_SQUARES, *ROC_WEIGHT_SQUARES}
)


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
        # a profile written before the sums of squared scores (of squared weights in its
        # ROC table) existed still loads (its balance criteria, its weighted AUC, are
        # judged on the point value): those columns may be missing
        missing = set(want) - set(got) if isinstance(got, list) else set()
        same = isinstance(got, list) and got == [c for c in want if c in got]
        if not (same and missing <= _OPTIONAL):
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
