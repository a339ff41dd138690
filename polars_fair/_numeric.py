"""Checks on the numbers: the weights' dtype and values, sums that overflow float64.

The weight checks run in two places: the dtype on the schema, before the plan is
built; the values inside the plan, on the aggregated table (:func:`bad_weight_aggs`
adds the counts every weighted reduction carries, :func:`check_weight_values` reads
them). Sums are checked once reduced, where an infinite sum of finite values can
only be an overflow.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence

import polars as pl

from polars_fair.exceptions import InvalidParameterError, ValueRangeError

__all__ = [
    "BAD_WEIGHTS",
    "CANCELLATION_TOLERANCE",
    "MSG_CANCELLATION",
    "MSG_SUM_OVERFLOW",
    "MSG_WEIGHT_DTYPE",
    "MSG_WEIGHT_VALUES",
    "WEIGHT_HINT",
    "bad_weight_aggs",
    "check_sums_finite",
    "check_weight_dtype",
    "check_weight_values",
    "weight_scale_problem",
]

MSG_WEIGHT_DTYPE = (
    "`sample_weight` column {name!r} must be numeric, got dtype {dtype}"
    "\n\nHint: cast it, e.g. `pl.col({name!r}).cast(pl.Float64)`"
)
MSG_WEIGHT_VALUES = (
    "`sample_weight` column {name!r} must hold finite, non-negative weights, found {found}"
    "\n\nHint: fix or drop those rows before the audit; rows with a null weight are "
    "excluded and counted in `n_null`. Find them with "
    "`df.filter((pl.col({name!r}) < 0) | ~pl.col({name!r}).is_finite())`"
)
#: The columns of :func:`bad_weight_aggs`: how many weights are invalid, and the lowest.
BAD_WEIGHTS = ("__pf_wbad", "__pf_wlow")


def bad_weight_aggs(weight: pl.Expr) -> list[pl.Expr]:
    """Aggregations counting the negative, infinite or NaN weights, and the lowest of them.

    Every weighted reduction adds them (columns :data:`BAD_WEIGHTS`) so that its
    in-plan check (:func:`check_weight_values`) can name the count and an example.
    """
    bad = (weight < 0) | ~weight.is_finite()
    count, lowest = BAD_WEIGHTS
    return [bad.sum().cast(pl.Int64).alias(count), pl.when(bad).then(weight).min().alias(lowest)]


def check_weight_values(table: pl.DataFrame, name: str) -> None:
    """Raise :class:`ValueRangeError` when `table`'s :func:`bad_weight_aggs` found any.

    The message names the column `name`, the count and the lowest invalid weight (NaN
    when the only invalid ones are NaN).
    """
    count, lowest = BAD_WEIGHTS
    bad = int(table.get_column(count).sum())
    if bad:
        low = table.get_column(lowest).drop_nulls().min()
        found = f"{bad} negative, infinite or NaN weight(s), e.g. {float(low):g}"  # type: ignore[arg-type]
        raise ValueRangeError(MSG_WEIGHT_VALUES.format(name=name, found=found))


def check_weight_dtype(dtype: pl.DataType, name: str) -> None:
    """Check that the weight column is numeric."""
    if not dtype.is_numeric():
        msg = MSG_WEIGHT_DTYPE.format(name=name, dtype=dtype)
        raise InvalidParameterError(msg)


# ---- overflow and precision (issue 14, class 5) ----------------------------------------

MSG_SUM_OVERFLOW = (
    "the sum {table_column!r} overflows float64 (it is {value}) although every value of "
    "{source} is finite{where}\n\nHint: {hint}"
)
MSG_CANCELLATION = (
    "`{param}` column {name!r} varies by less than {tolerance:g} of its magnitude in "
    "groups {groups} (e.g. values {example}): the standard deviation, correlation and "
    "z-score computed from its sums lose their precision there (a spread this small "
    "reads as 0)\n\nHint: centre the column first, e.g. `{param}=pl.col({name!r}) - "
    "{centre!r}`"
)
WEIGHT_HINT = (
    "rescale the weights, e.g. divide them by their maximum: multiplying every weight "
    "by the same factor changes no rate or criterion"
)
#: Relative spread (range / root mean square) below which sums of squares cancel.
CANCELLATION_TOLERANCE = 1e-5


def check_sums_finite(
    table: pl.DataFrame, sources: Mapping[str, str], hint: str, keys: Sequence[str] = ()
) -> None:
    """Raise :class:`ValueRangeError` if a sum column of an aggregate overflowed.

    `sources` maps each sum column to the input it adds up (for the message). The
    values were checked finite before, so an infinite or NaN sum is an overflow.
    """
    if keys:
        table = table.sort(keys, nulls_last=True)
    for column, source in sources.items():
        if column not in table.columns:
            continue
        values = table.get_column(column).cast(pl.Float64)
        bad = ~values.is_finite()
        if bad.any():
            where = ""
            if keys:
                first = table.filter(bad).select(keys).row(0)
                where = f", in group {first[0] if len(first) == 1 else first!r}"
            msg = MSG_SUM_OVERFLOW.format(
                table_column=column, value=values.filter(bad)[0], source=source, where=where,
                hint=hint,
            )  # fmt: skip
            raise ValueRangeError(msg)


MSG_WEIGHT_SCALE = (
    "`sample_weight` column {name!r} holds weights too {size} for float64: {detail}. "
    "The rates are right, but the Kish effective sizes (n**2 / sum of squared weights) "
    "behind every interval, p-value and verdict cannot be computed accurately: those may "
    "be null, `undefined` or off\n\nHint: " + WEIGHT_HINT
)
#: The largest total weight whose square is finite in float64 (sqrt of the largest float).
_MAX_TOTAL_WEIGHT = math.sqrt(sys.float_info.max)


def weight_scale_problem(name: str, total: float, squares: float, smallest: float) -> str | None:
    """The message of a :class:`NumericalWarning` when the weights' squares leave float64.

    `total` and `squares` are the sums of the counted weights and of their squares
    over the whole input (they bound every group's); `smallest` is the smallest sum of
    squared weights of a partial row (a group and label cell) whose weights sum to
    more than 0. The weights were checked finite and non-negative before. Too large:
    ``sum w**2`` or ``(sum w)**2`` overflows to inf. Too small: the squares underflow
    (``sum w**2`` is 0 or subnormal while ``sum w`` is positive). Either way every
    effective size would be 0, inf or NaN, and every verdict ``undefined`` without a
    word. None when the weights are fine.
    """
    if not math.isfinite(squares) or total > _MAX_TOTAL_WEIGHT:
        detail = (
            f"their squares sum to {squares!r}" if not math.isfinite(squares)
            else f"their total {total:.4g} squared is {total * total!r}"
        )  # fmt: skip
        return MSG_WEIGHT_SCALE.format(name=name, size="large", detail=detail)
    if smallest < sys.float_info.min:
        detail = f"their squares underflow (a sum of squared weights of {smallest!r})"
        return MSG_WEIGHT_SCALE.format(name=name, size="small", detail=detail)
    return None
