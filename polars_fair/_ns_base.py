"""The base of the ``fair`` namespace mixins: how a reduction becomes a result.

Every method is a reduction (one pass over the data: the statistics table or a
score histogram) followed by a derivation over that small table. The LazyFrame
namespace returns the whole plan; the DataFrame namespace collects the reduction
once, warns about excluded rows, then derives and collects the result. Mixins call
:meth:`NamespaceBase._derive` (tables) or :meth:`NamespaceBase._derive_scalar`
(one value per batch key) and never decide themselves whether to collect.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

import polars as pl

from polars_fair._api import check_zd, criterion_plan
from polars_fair._validate import normalize_reference
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._catalogue import CATALOGUE, Criterion
from polars_fair.metrics._criteria import Formula

__all__ = [
    "STUBS",
    "Build",
    "NamespaceBase",
    "ScalarT",
    "TableT",
    "criterion_stub",
    "pair_reference",
    "with_example",
]

TableT = TypeVar("TableT", pl.DataFrame, pl.LazyFrame)
ScalarT = TypeVar("ScalarT")
F = TypeVar("F", bound=Callable[..., Any])
#: A derivation: from the (lazy or collected) reduction to the result plan.
Build = Callable[[pl.LazyFrame], pl.LazyFrame]
#: Computes a criterion: (namespace, its catalogue entry, every keyword) -> result.
Run = Callable[[Any, Criterion, dict[str, Any]], Any]
#: The criterion stubs defined so far, by name (the catalogue test reads it).
STUBS: dict[str, Callable[..., Any]] = {}


def criterion_stub(*, doc: Callable[[Criterion], str], run: Run) -> Callable[[F], F]:
    """Fill a typed criterion stub from its catalogue entry (the stub's name).

    The stub keeps its signature (``inspect.signature`` follows ``__wrapped__``; the
    type checkers read the stub itself); the body calls `run` with the stub's
    defaults completed by the caller's keywords, and the docstring is ``doc(entry)``.
    Calling the (empty) stub first lets Python check the arguments, with its own
    ``TypeError`` messages.
    """

    def deco(stub: F) -> F:
        entry = CATALOGUE[stub.__name__]
        defaults = {
            name: p.default
            for name, p in inspect.signature(stub).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

        @functools.wraps(stub)
        def method(self: Any, *args: Any, **params: Any) -> Any:
            stub(self, *args, **params)  # only checks the arguments
            return run(self, entry, {**defaults, **params})

        method.__doc__ = doc(entry)
        STUBS[entry.name] = method
        return cast("F", method)

    return deco


class NamespaceBase(ABC, Generic[TableT, ScalarT]):
    """Holds the frame; subclasses decide whether results are collected."""

    #: True where the same calls already ran on this frame and raised nothing (the
    #: report's second pass): methods then skip building plans only to validate.
    _prevalidated: bool = False

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    @abstractmethod
    def _derive(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> TableT:
        """``build(reduced)``: the plan (lazy), or its result after one read (eager).

        The eager path collects `reduced` once and warns about rows excluded for
        nulls (``n_null``, named by the group `keys`) and about `measures` that are
        undefined for some groups (None: every rate). `warn_rows` selects the rows
        of the collected reduction that the warnings read (one per group), where
        the reduction repeats a group's ``n_null`` (the quantile grid).
        """

    def _formula_criterion(
        self,
        reduced: pl.LazyFrame,
        *,
        name: str,
        measure: str,
        kind: str,
        formula: Formula,
        by: list[str],
        sensitive: list[str],
        method: str | None,
        reference_group: Any,
        zero_division: float | None,
    ) -> ScalarT:
        """Criterion `name` comparing `measure` (from the sums `formula` reads) between groups.

        The worst case over the groups, per batch key; parameters are checked on the
        plan before any data is read.
        """
        zd = check_zd(zero_division)

        def build(stats: pl.LazyFrame) -> pl.LazyFrame:
            return criterion_plan(
                stats, name=name, measures=(measure,), kind=kind, method=method,
                reference_group=reference_group, agg="worst_case", zero_division=zd,
                by=by, sensitive=sensitive, formula=formula,
            )  # fmt: skip

        build(reduced)
        return self._derive_scalar(reduced, [*by, *sensitive], build, by)

    @abstractmethod
    def _derive_scalar(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        by: Sequence[str],
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> ScalarT:
        """As :meth:`_derive`, for one value per batch key (a float without `by`)."""


def pair_reference(reference_group: Any, sensitive: list[str]) -> tuple[Any, ...] | str:
    """A reference for statistics that compare two groups: a group or ``"largest"``."""
    reference = normalize_reference(reference_group, sensitive)
    if isinstance(reference, str) and reference != "largest":
        msg = (
            f"`reference_group` {reference!r} is not allowed here: the comparison is "
            "between two groups\n\nHint: use a group value or 'largest'"
        )
        raise InvalidParameterError(msg)
    return reference


def with_example(data: str) -> Callable[[F], F]:
    """Replace the ``>>> DATA`` line of a docstring with the doctest lines `data`."""

    def deco(fn: F) -> F:
        if fn.__doc__ is not None:
            fn.__doc__ = fn.__doc__.replace("    >>> DATA", data.strip("\n"))
        return fn

    return deco
