"""Plans as values: the reduction a result needs and the derivation from its table.

Every method of the ``fair`` namespace is a pure builder: from the frame and its
parameters it makes a :class:`Plan` (one reduction, a lazy pass over the data, and
``build``, the derivation over the reduction's small table) and hands it to the one
place that runs plans, :meth:`NamespaceBase._run
<polars_fair.namespace._base.NamespaceBase._run>`:

* on a LazyFrame, :meth:`Plan.lazy`: the whole plan, nothing read;
* on a DataFrame, :meth:`Plan.collect`: the reduction collected once, the warnings
  about excluded rows and undefined rates given, the derivation collected (and a
  float where the method returns one): eager wraps lazy;
* in a report, the plans themselves: the report collects the distinct reductions
  of all its plans together (one read), then :meth:`Plan.derive` each table once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import chained, derive_engine, eager_warnings, materialised, plan_step
from polars_fair.metrics import build_nonempty, require_rows
from polars_fair.plans._audit import undefined_rates, warn_about

if TYPE_CHECKING:
    from polars._typing import EngineType

__all__ = ["Build", "Plan", "derive_opts"]

#: The prefix of the flag columns collected with an eager reduction (then dropped).
_FLAG = "__pf_undefined_"

#: A derivation: from the (lazy or collected) reduction to the result plan.
Build = Callable[[pl.LazyFrame], pl.LazyFrame]


@dataclass(frozen=True, eq=False)
class Plan:
    """One result as a value: its reduction and the derivation from the reduction.

    `keys` name the groups in the warnings, `measures` the rates whose undefined
    values are warned about (None: every rate), `warn_rows` selects the rows of the
    collected reduction that the warnings read (one per group). `scalar_by` is None
    for a table; for a criterion, its batch keys (a float without any). `inspect_table`
    reads the collected reduction on the eager path and may warn (an identifier-like
    sensitive feature), from the table already collected: no extra pass.
    """

    reduction: pl.LazyFrame
    build: Build
    keys: tuple[str, ...]
    measures: Sequence[str] | None = ()
    zero_division: float | None = None
    warn_rows: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    scalar_by: tuple[str, ...] | None = None
    inspect_table: Callable[[pl.DataFrame], None] | None = None
    one_query: bool = False

    @functools.cached_property
    def schema(self) -> pl.Schema:
        """The reduction's schema (resolved once per plan)."""
        return self.reduction.collect_schema()

    @functools.cached_property
    def _whole(self) -> pl.LazyFrame:
        # an empty input raises EmptyDataError at collect, unless `build` is the identity
        # (the four reduction tables, empty for empty input)
        return build_nonempty(self.reduction, self.build)

    def lazy(self) -> pl.LazyFrame:
        """The whole plan, reading nothing (building it checks every parameter; built once)."""
        return self._whole

    def warn(
        self,
        table: pl.DataFrame,
        undefined: Sequence[bool] | None = None,
        listed: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    ) -> None:
        """The warnings about the collected reduction `table` (excluded rows, undefined rates).

        `undefined`: the flags of :func:`~polars_fair.plans._audit.undefined_rates`,
        where they were collected with the reduction (see :meth:`collect`). `listed`:
        the groups an undefined rate is warned about (see
        :func:`~polars_fair.plans._audit.warn_about`; the report leaves out those too
        small to be compared).
        """
        warned = table if self.warn_rows is None else self.warn_rows(table)
        warn_about(warned, self.keys, self.measures, self.zero_division, undefined, listed)
        if self.inspect_table is not None:
            self.inspect_table(table)

    def _collect_reduction(self, engine: EngineType) -> tuple[pl.DataFrame, list[bool] | None]:
        """The reduction and, in the same collect, which rates the warnings find undefined."""
        opts = _small_opts(self.scalar_by is not None and engine == "in-memory")
        flagged, flags = self._flagged()
        table = flagged.collect(engine=engine, optimizations=opts)
        return self._unflag(table, flags)

    def _flagged(self) -> tuple[pl.LazyFrame, list[str]]:
        """The reduction with the undefined-rate flags of the warnings, and their names."""
        rates: tuple[tuple[str, pl.Expr], ...] = ()
        if self.warn_rows is None:  # the warnings read the reduction's own rows
            rates = undefined_rates(self.schema.names(), self.measures, self.zero_division)
        if not rates:
            return self.reduction, []
        flags = [f"{_FLAG}{i}" for i in range(len(rates))]
        return self.reduction.with_columns(
            e.is_null().any().alias(f) for f, (_, e) in zip(flags, rates, strict=True)
        ), flags

    def _unflag(
        self, flagged: pl.DataFrame, flags: list[str]
    ) -> tuple[pl.DataFrame, list[bool] | None]:
        """The collected reduction without its `flags`, and their values (see `_flagged`)."""
        if not flags:
            return flagged, None
        undefined = [bool(flagged.get_column(f)[0]) for f in flags] if flagged.height else None
        return flagged[:, self.schema.names()], undefined

    def derive(self, table: pl.DataFrame, *, warn: bool = True) -> pl.LazyFrame:
        """Check rows, warn about the collected reduction `table`, then the derivation over it.

        `warn` False: the caller has given the same warnings already (see the report).
        """
        require_rows(table, self.build)
        if warn:
            self.warn(table)
        # the derivation's checks read the collected table now (see `collect`)
        small = table.lazy()
        with materialised(small, table):
            return self.build(small)

    def result(self, derived: pl.DataFrame) -> Any:
        """The method's return value from the collected derivation."""
        if self.scalar_by is None or self.scalar_by:
            return derived
        value = derived.item()
        return None if value is None else float(value)

    def collect(self, engine: EngineType = "auto") -> Any:
        """Check the parameters, read the data once, warn, derive: the eager result.

        `engine` reads the data (the in-memory engine has the smallest fixed cost, for
        small in-memory frames); the derivation's engine follows the reduction's size,
        but stays in-memory after an in-memory read: a small frame's reduction can still
        be large (a grid of levels by groups), and the streaming engine's sums over it
        vary in the last bit from run to run. A plan marked `one_query` read by the in-memory engine runs as one query
        (see :meth:`_collect_one`).
        """
        if self.one_query and engine == "in-memory":
            return self._collect_one()
        self.lazy()  # parameters are checked on the plan before any data is read
        with eager_warnings():  # the in-plan checks warn on the eager path only
            table, undefined = self._collect_reduction(engine)
            require_rows(table, self.build)
            self.warn(table, undefined)
            # the derivation's checks read the collected table now (no Python node in
            # the plan): the same checks, order, warnings and errors as at collect
            small = table.lazy()
            with materialised(small, table):
                derivation = self.build(small)
            derive_on = "in-memory" if engine == "in-memory" else derive_engine(table.height)
            opts = _small_opts(self.scalar_by is not None and derive_on == "in-memory")
            derived = derivation.collect(engine=derive_on, optimizations=opts)
        return self.result(derived)

    def _collect_one(self) -> Any:
        """:meth:`collect` as one query: the warnings run in the plan, after the reduction.

        For a small frame read by the in-memory engine (its reduction then has at most
        as many rows as the frame, and the derivation runs on the same engine, with
        the same optimisations, as in :meth:`collect`), and a derivation that is one
        chain of steps over the reduction (its checks run in the order they were
        built, as they do over the collected table). Then the checks, warnings and
        errors are those of :meth:`collect`, in the same order: the reduction's own
        checks, the empty-table check and the warnings about the reduction (one node
        of the plan reading the collected reduction), then the derivation's checks.
        Building the plan checks every parameter before any data is read.
        """
        flagged, flags = self._flagged()

        def warned(table: pl.DataFrame) -> pl.DataFrame:
            table, undefined = self._unflag(table, flags)
            require_rows(table, self.build)
            self.warn(table, undefined)
            return table

        with chained():  # the derivation's checks join the node of the warnings
            whole = build_nonempty(plan_step(flagged, [warned], self.schema), self.build)
        opts = _small_opts(self.scalar_by is not None)
        with eager_warnings():
            derived = whole.collect(engine="in-memory", optimizations=opts)
        return self.result(derived)


#: Query optimisations of a criterion's collects on small in-memory tables: the
#: optimiser's passes cost more than they save there (0.08 ms of a 0.4 ms reduction
#: and 0.05 ms of a 0.13 ms derivation, Polars 2.1); expressions are still simplified.
_SMALL_OPTS = pl.QueryOptFlags.none(simplify_expression=True)


def _small_opts(small: bool) -> pl.QueryOptFlags:
    return _SMALL_OPTS if small else pl.QueryOptFlags()


#: Query optimisations of a report's derivations from small reductions: none. The
#: tables are built in steps of plain columns (no common subexpressions left to
#: find) over tables of a few rows, where every pass costs more than it saves: a
#: report's derivations (4 groups) collect in 30 ms without, 32 ms with only the
#: expression simplification, 41 ms with Polars' default passes (Polars 2.1).
_DERIVE_OPTS = pl.QueryOptFlags.none()


def derive_opts(engine: EngineType) -> pl.QueryOptFlags:
    """The optimisations of a report's derivations collected on `engine`.

    ``"in-memory"`` (:func:`~polars_fair._utils.derive_engine`: small reductions)
    gets :data:`_DERIVE_OPTS`; large ones Polars' default passes.
    """
    return _DERIVE_OPTS if engine == "in-memory" else pl.QueryOptFlags()
