"""The base of the ``fair`` namespace mixins: how a plan becomes a result.

The LazyFrame namespace returns plans as they are; the DataFrame namespace collects
them. Mixins build plans and hand them to :meth:`NamespaceBase._finish` (tables)
or :meth:`NamespaceBase._finish_scalar` (one value per batch key).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

import polars as pl

__all__ = ["NamespaceBase", "ScalarT", "TableT"]

TableT = TypeVar("TableT", pl.DataFrame, pl.LazyFrame)
ScalarT = TypeVar("ScalarT")


class NamespaceBase(ABC, Generic[TableT, ScalarT]):
    """Holds the frame; subclasses decide whether results are collected."""

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    @abstractmethod
    def _finish(self, plan: pl.LazyFrame) -> TableT:
        """Return a table plan (lazy) or its collected result (eager)."""

    @abstractmethod
    def _finish_scalar(self, plan: pl.LazyFrame, by: list[str]) -> ScalarT:
        """Return a one-value-per-key plan, or (eager) a float without `by`."""
