"""The base of the ``fair`` namespace mixins: how a reduction becomes a result.

Every method is a pure builder of a :class:`~polars_fair.plans._plan.Plan`: a reduction
(one pass over the data: the statistics table or a score histogram) and a
derivation over that small table. Mixins hand their plan to
:meth:`NamespaceBase._derive` (tables) or :meth:`NamespaceBase._derive_scalar` (one
value per batch key), which give it to :meth:`NamespaceBase._run`, the one method
the frame kinds define differently; mixins never decide whether to collect.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast

import polars as pl

from polars_fair._utils import fill_example as fill_example
from polars_fair._utils import find_stacklevel
from polars_fair._utils import with_example as with_example
from polars_fair._validate import MSG_UNKNOWN_KEYWORD, did_you_mean
from polars_fair.exceptions import IdentifierWarning, InvalidParameterError
from polars_fair.metrics._catalogue import CATALOGUE, Criterion
from polars_fair.metrics._criteria import Formula
from polars_fair.plans._audit import check_zd, criterion_plan
from polars_fair.plans._plan import Build, Plan
from polars_fair.report._identifier import identifier_warning

__all__ = [
    "STUBS",
    "Build",
    "NamespaceBase",
    "ScalarT",
    "TableT",
    "criterion_stub",
    "fill_example",
    "with_example",
]

TableT = TypeVar("TableT", pl.DataFrame, pl.LazyFrame)
ScalarT = TypeVar("ScalarT")
F = TypeVar("F", bound=Callable[..., Any])
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
    ``TypeError`` messages, but for an unknown keyword: an
    :class:`~polars_fair.exceptions.InvalidParameterError` (a ``TypeError`` too) with
    the same words, the closest parameter names and all of them.
    """

    def deco(stub: F) -> F:
        entry = CATALOGUE[stub.__name__]
        parameters = inspect.signature(stub).parameters
        defaults = {
            name: p.default
            for name, p in parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        accepted = [name for name in parameters if name != "self"]

        @functools.wraps(stub)
        def method(self: Any, *args: Any, **params: Any) -> Any:
            for name in params:
                if name not in accepted:
                    near = did_you_mean(name, accepted)
                    if name in ("y_true", "y_pred", "y_prob"):  # reads no such column
                        near = f"{entry.name} reads only {list(entry.inputs)}, leave `{name}` out; "
                    msg = MSG_UNKNOWN_KEYWORD.format(
                        call=stub.__qualname__, name=name, known=accepted, near=near
                    )
                    raise InvalidParameterError(msg)
            stub(self, *args, **params)  # only checks the arguments
            return run(self, entry, {**defaults, **params})

        method.__doc__ = doc(entry)
        STUBS[entry.name] = method
        return cast("F", method)

    return deco


def _identifier_check(
    sensitive: list[str], by: list[str], per_score: bool = False
) -> Callable[[pl.DataFrame], None]:
    """Warn when a criterion's groups look like an identifier (as its tables do).

    `per_score`: the reduction has a row per group and score (or score bin), each with
    its rows ``n``; the check reads one row per group, their sums.
    """
    params = {"sensitive_features": sensitive, "by": by}

    def inspect_table(table: pl.DataFrame) -> None:
        if per_score:
            table = table.group_by([*by, *sensitive]).agg(pl.col("n").sum())
        if (text := identifier_warning(table, params)) is not None:
            warnings.warn(text, IdentifierWarning, stacklevel=find_stacklevel())

    return inspect_table


class NamespaceBase(ABC, Generic[TableT, ScalarT]):
    """Holds the frame; subclasses decide whether results are collected."""

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    @abstractmethod
    def _run(self, plan: Plan) -> Any:
        """Run `plan`: the one place where the frame kind decides (see :mod:`polars_fair.plans._plan`)."""

    def _derive(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
        inspect_table: Callable[[pl.DataFrame], None] | None = None,
    ) -> TableT:
        """The table ``build(reduced)``: lazy on a LazyFrame, collected on a DataFrame."""
        plan = Plan(
            reduced,
            build,
            tuple(keys),
            measures,
            zero_division,
            warn_rows,
            inspect_table=inspect_table,
        )
        return cast("TableT", self._run(plan))

    def _derive_scalar(
        self,
        reduced: pl.LazyFrame,
        keys: Sequence[str],
        build: Build,
        by: Sequence[str],
        measures: Sequence[str] | None = (),
        zero_division: float | None = None,
        warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
        *,
        one_query: bool = False,
        per_score: bool = False,
    ) -> ScalarT:
        """As :meth:`_derive`, for one value per batch key (a float without `by`).

        `one_query`: `build` is one chain of steps (see :meth:`Plan._collect_one
        <polars_fair.plans._plan.Plan._collect_one>`). `per_score`: `reduced` has a
        row per group and score (a ROC table) or score bin, with its rows ``n``.
        """
        sensitive = [k for k in keys if k not in by]
        plan = Plan(
            reduced, build, tuple(keys), measures, zero_division, warn_rows, tuple(by),
            inspect_table=_identifier_check(sensitive, list(by), per_score),
            one_query=one_query,
        )  # fmt: skip
        return cast("ScalarT", self._run(plan))

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

        return self._derive_scalar(reduced, [*by, *sensitive], build, by, one_query=True)
