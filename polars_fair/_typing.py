"""Type aliases shared by the public API (import-time cheap, no runtime cost)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar, Union

import polars as pl

__all__ = [
    "Agg",
    "FrameT",
    "IntoColumn",
    "IntoColumns",
    "Method",
    "PosLabel",
    "ReferenceGroup",
    "ZeroDivision",
]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
#: A column given by name or as an expression (``pl.col("s") >= 0.5``).
IntoColumn = Union[str, pl.Expr]
#: One column name or several (several sensitive features form intersections).
IntoColumns = Union[str, Sequence[str]]
PosLabel = Union[int, float, str, bool]
ZeroDivision = Union[float, None]
Method = Literal["between_groups", "to_overall", "to_reference"]
Agg = Literal["worst_case", "mean"]
#: A group value, a tuple or mapping for intersections, or a policy name.
ReferenceGroup = Union[Any, tuple[Any, ...], Mapping[str, Any]]
