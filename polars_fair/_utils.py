"""Small internal helpers: warning stack levels and column normalisation."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import textwrap
import warnings
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import polars as pl

if TYPE_CHECKING:
    from polars._typing import EngineType

    from polars_fair._typing import IntoColumns

__all__ = [
    "added",
    "parse_failure",
    "show_groups",
    "SMALL_TABLE_ROWS",
    "as_names",
    "built_once",
    "chained",
    "check_in_plan",
    "derive_engine",
    "fill_example",
    "find_stacklevel",
    "over",
    "eager_warnings",
    "per_key",
    "plan_step",
    "schema_of",
    "shareable",
    "sharing",
    "stack",
    "warn_data",
    "with_example",
]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

#: While a report plans its tables: the reductions built so far, by their arguments.
_SHARED: ContextVar[dict[Hashable, tuple[Any, Any]] | None] = ContextVar(
    "polars_fair_shared", default=None
)


@contextmanager
def sharing() -> Iterator[None]:
    """Inside, equal calls of a :func:`shareable` reduction return the same object.

    A report plans many tables; each builds the reduction it needs. Sharing makes
    the tables that need the same reduction hold the same LazyFrame, so the report
    collects the distinct ones by identity, once.
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _value(v: Any) -> Hashable:
    """A hashable value standing for an argument (TypeError if there is none)."""
    if isinstance(v, (pl.LazyFrame, pl.DataFrame)):
        return ("frame", id(v))
    if isinstance(v, pl.Expr):
        return ("expr", v.meta.serialize(format="json"))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, *(_value(x) for x in v))
    if isinstance(v, dict):
        return ("dict", *((k, _value(x)) for k, x in sorted(v.items())))
    if hasattr(v, "tobytes") and hasattr(v, "dtype"):  # a numpy array
        return ("array", str(v.dtype), v.tobytes())
    hash(v)
    return (type(v).__name__, v)  # 1, 1.0 and True stay distinct


def shareable(fn: F) -> F:
    """Make reduction builder `fn` share its result inside :func:`sharing`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        memo = _SHARED.get()
        if memo is None:
            return fn(*args, **kwargs)
        try:
            key = (fn.__qualname__, _value(args), _value(kwargs))
        except TypeError:  # an argument without a value identity: build anew
            return fn(*args, **kwargs)
        if key not in memo:  # the arguments are kept alive with the result (ids stay valid)
            memo[key] = ((args, kwargs), fn(*args, **kwargs))
        return memo[key][1]

    return cast("F", wrapper)


def _atoms(value: Any) -> Hashable:
    """A key telling `value` apart by type and text (TypeError for other values).

    ``1``, ``1.0`` and ``True`` are equal in Python but different literals, and so
    are ``0.0`` and ``-0.0``: each atom is keyed by its type and its ``repr``.
    """
    if isinstance(value, tuple):
        return ("tuple", *(_atoms(v) for v in value))
    if value is None or type(value) in (str, int, float, bool):
        return (type(value).__name__, repr(value))
    msg = f"no key for {type(value).__name__}"
    raise TypeError(msg)


#: Expressions built by :func:`built_once`, by builder and arguments.
_BUILT: dict[Hashable, Any] = {}


def built_once(build: Callable[..., T], *args: Any) -> T:
    """``build(*args)``, built once per distinct arguments (tuples of plain values).

    For builders of expressions that depend on column names and parameters only
    (Polars expressions are immutable values, safe to share between plans):
    building them is a fixed cost of every call on small data. Arguments of other
    types are not keyed: the expressions are built anew.
    """
    try:
        key = (build.__module__, build.__qualname__, _atoms(args))
    except TypeError:
        return build(*args)
    found = _BUILT.get(key)
    if found is None:
        if len(_BUILT) >= 1024:
            _BUILT.clear()
        found = _BUILT[key] = build(*args)
    return cast("T", found)


def find_stacklevel() -> int:
    """Return the stack level of the first frame outside polars_fair and polars.

    Warnings issued with this level point at the user's own line of code.
    """
    import polars_fair

    pkg_dir = os.path.dirname(polars_fair.__file__)
    pl_dir = os.path.dirname(pl.__file__)
    frame = inspect.currentframe()
    n = 0
    try:
        while frame is not None:
            fname = inspect.getfile(frame)
            if fname.startswith((pkg_dir, pl_dir)):
                frame = frame.f_back
                n += 1
            else:
                break
    finally:
        del frame
    return n


def as_names(columns: IntoColumns | None) -> list[str]:
    """Normalise a column name or a sequence of names to a list."""
    if columns is None:
        return []
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, Sequence):
        return list(columns)
    return [columns]


#: Derivations read a collected reduction; below this many rows it counts as small.
SMALL_TABLE_ROWS: Final = 10_000


def derive_engine(rows: int) -> EngineType:
    """The Polars engine for a derivation from a collected table of `rows` rows.

    A statistics table has a few hundred rows and a derivation hundreds of
    expressions: there the in-memory engine runs a report's derivations in about half
    the time of Polars' default streaming engine (35 ms against 64 ms at 50 groups).
    A per-score ROC table can have millions of rows, where the default engine is
    faster (ABROCA at 10^6 distinct scores: 0.95 s against 1.35 s).
    """
    return "in-memory" if rows <= SMALL_TABLE_ROWS else "auto"


def added(parts: Sequence[pl.Expr]) -> pl.Expr:
    """``parts[0] + parts[1] + ...``, in that order (a float sum's last bit depends on it).

    >>> import polars as pl
    >>> pl.select(added([pl.lit(1), pl.lit(2), pl.lit(3)]).alias("s")).item()
    6
    """
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def over(expr: pl.Expr, by: list[str]) -> pl.Expr:
    """Evaluate an aggregate per batch key, broadcast to rows (whole frame without keys).

    Without keys the window runs over one constant partition rather than as a bare
    scalar: Polars divides a column by a broadcast *scalar* as a multiplication by
    its reciprocal, which would make ``x / x`` come out 1 ulp below 1 on one engine
    and exactly 1 on another. The constant partition is computed from the frame's
    first column (``is_null() & False``): Polars runs a window over a literal key
    about 25 times slower than over a column-derived one (0.6 ms against 0.02 ms
    a window on a small table), and a derived table holds hundreds of windows.
    """
    return expr.over(by) if by else expr.over(_ONE_PARTITION)


#: A partition key that is False on every row, derived from a column (see `over`).
_ONE_PARTITION = pl.first().is_null() & pl.lit(False)


def per_key(table: pl.LazyFrame, values: pl.Expr | list[pl.Expr], by: list[str]) -> pl.LazyFrame:
    """Aggregate `values` per batch key (sorted, nulls last), or over the table without keys."""
    if by:
        return table.group_by(by).agg(values).sort(by, nulls_last=True)
    return table.select(values)


#: The collected table a derivation is being built over (see :func:`materialised`).
_MATERIALISED: ContextVar[tuple[pl.LazyFrame, pl.DataFrame] | None] = ContextVar(
    "_MATERIALISED", default=None
)


@contextmanager
def materialised(lf: pl.LazyFrame, table: pl.DataFrame) -> Iterator[None]:
    """Within this context `lf` stands for the collected `table`: checks on it run now.

    The eager path builds its derivation over ``table.lazy()``, a table already in
    memory: :func:`check_in_plan` on that very LazyFrame runs its check at once on
    `table` (the same check, in the same order, with the same warnings and errors as
    at collect time) and leaves the plan without an opaque Python node, which a small
    collect pays for (each one splits the plan; a report keeps the in-plan checks).
    """
    token = _MATERIALISED.set((lf, table))
    try:
        yield
    finally:
        _MATERIALISED.reset(token)


def check_in_plan(lf: pl.LazyFrame, check: Callable[[pl.DataFrame], None]) -> pl.LazyFrame:
    """Run `check` on the (small) frame when the plan executes, passing it through.

    Used only on aggregated tables, never on raw rows: it lets a lazy plan raise
    our own exceptions (bad labels, absent reference group) at ``collect`` time
    without collecting anything early. On a table already collected (inside
    :func:`materialised`) the check runs at once and `lf` is returned unchanged.
    Inside :func:`chained`, a check of the output of a :func:`plan_step` joins that
    step's node.
    """
    known = _MATERIALISED.get()
    if known is not None and known[0] is lf:
        check(known[1])
        return lf

    def _run(df: pl.DataFrame) -> pl.DataFrame:
        check(df)
        return df

    node = getattr(lf, _NODE, None) if _CHAIN.get() else None
    if node is not None:  # the same checks in the same order, in one node
        base, steps, schema = node
        return plan_step(base, (*steps, _run), schema)
    return lf.map_batches(_run, streamable=False)


#: The attribute of a LazyFrame made by :func:`plan_step`: (input, steps, schema).
_NODE = "_pf_step"

#: While a chain of steps is built (see :func:`chained`).
_CHAIN: ContextVar[bool] = ContextVar("_CHAIN", default=False)


@contextmanager
def chained() -> Iterator[None]:
    """Inside, :func:`check_in_plan` adds a check of a :func:`plan_step` to its node.

    For plans that are one chain of steps (each LazyFrame used once): the checks
    run in the order they were added, on the same table, as separate nodes would,
    and the query pays for one Python node instead of one per check (each node
    splits the plan).
    """
    token = _CHAIN.set(True)
    try:
        yield
    finally:
        _CHAIN.reset(token)


def plan_step(
    lf: pl.LazyFrame,
    steps: Sequence[Callable[[pl.DataFrame], pl.DataFrame]],
    schema: pl.Schema | None = None,
) -> pl.LazyFrame:
    """One Python node of the plan running `steps` in order (`schema`: the output's, if new).

    Inside :func:`chained`, checks of its output join the node.
    """

    def _run(df: pl.DataFrame) -> pl.DataFrame:
        for step in steps:
            df = step(df)
        return df

    out = lf.map_batches(_run, schema=schema, streamable=False)
    setattr(out, _NODE, (lf, tuple(steps), schema))
    return out


def schema_of(lf: pl.LazyFrame) -> pl.Schema:
    """``lf.collect_schema()``, read from a :func:`plan_step` that declares it.

    Resolving the schema of a plan resolves the whole plan below it; a node with a
    declared schema has that schema (Polars checks its output against it).
    """
    node = getattr(lf, _NODE, None)
    if node is not None and node[2] is not None:
        return cast("pl.Schema", node[2])
    return lf.collect_schema()


#: The part index :func:`stack` sorts by (dropped before the table is returned).
_PART = "__pf_part"


def stack(
    parts: Sequence[pl.LazyFrame], by: Sequence[str] = (), *, numbered: bool = False
) -> pl.LazyFrame:
    """Concatenate small derived tables vertically: by keys, then in the order of `parts`.

    The parts of a summary share cached subplans (the statistics table). Polars'
    streaming engine pushes a ``head``/``slice`` of a plain vertical concat into the
    union, which then stops polling the later parts while a shared cache still
    feeds them, and panics (``pipe.send_state == PortState::Done``, Polars 2.1).
    Sorting by a part index (stable, a few rows) makes the union run to the end
    before anything is sliced, on either engine, and fixes the row order.
    `numbered`: each part already holds its index (``part_number(i)``, in its own
    last ``select``: one plan node less per part).
    """
    if not numbered:
        parts = [p.with_columns(part_number(i)) for i, p in enumerate(parts)]
    table = pl.concat(parts, how="vertical")
    return table.sort([*by, _PART], nulls_last=True, maintain_order=True).drop(_PART)


@functools.lru_cache(maxsize=256)
def part_number(i: int) -> pl.Expr:
    """The part index column of :func:`stack` (a literal: built once per index)."""
    return pl.lit(i, dtype=pl.Int32).alias(_PART)


#: How many eager runs are under way (see :func:`eager_warnings`).
_EAGER_RUNS = [0]


@contextlib.contextmanager
def eager_warnings() -> Iterator[None]:
    """Let the in-plan checks warn while the DataFrame namespace runs a plan.

    polars_fair warns on the eager path only (a LazyFrame method returns a plan and
    stays silent): checks that run inside the plan on a tiny aggregate (a label that
    never equals `pos_label`, a lone group, cancelling sums) find things worth a
    warning, and :func:`warn_data` issues it only within this context.
    """
    _EAGER_RUNS[0] += 1
    try:
        yield
    finally:
        _EAGER_RUNS[0] -= 1


def warn_data(msg: str, category: type[Warning]) -> None:
    """Issue a warning found by an in-plan check, on the eager path only."""
    if _EAGER_RUNS[0]:
        warnings.warn(msg, category, stacklevel=find_stacklevel())


# ---- docstring examples ------------------------------------------------------------

#: The placeholder line of a docstring example: ``>>> DATA`` at any indentation.
_DATA_LINE = re.compile(r"^(?P<indent>[ \t]*)>>> DATA[ \t]*$", re.MULTILINE)


def fill_example(doc: str, data: str) -> str:
    """`doc` with each ``>>> DATA`` line replaced by the doctest lines `data`.

    `data` is re-indented to the placeholder's own indentation, whatever its own:
    a method's docstring is indented by 8 spaces in the source (by none from Python
    3.13, which dedents docstrings when compiling), a module-level template by 4,
    and the example must stay one block at the indentation of the lines around it
    (``inspect.cleandoc``, doctest and the documentation site all read it so).

    Raises
    ------
    ValueError
        If `doc` has no placeholder line (the example would silently be missing).
    """
    lines = textwrap.dedent(data.strip("\n")).splitlines()

    def block(match: re.Match[str]) -> str:
        indent = match.group("indent")
        return "\n".join(indent + line if line.strip() else "" for line in lines)

    filled, count = _DATA_LINE.subn(block, doc)
    if count == 0:
        msg = "the docstring has no `>>> DATA` line for the example's data"
        raise ValueError(msg)
    return filled


def with_example(data: str) -> Callable[[F], F]:
    """Replace the ``>>> DATA`` line of a docstring with the doctest lines `data`.

    See :func:`fill_example`; a function without docstring (``python -OO``) is
    returned unchanged.
    """

    def deco(fn: F) -> F:
        if fn.__doc__ is not None:
            fn.__doc__ = fill_example(fn.__doc__, data)
        return fn

    return deco


#: Polars' message for a CSV value that does not parse as the type inferred for its column.
_PARSE = re.compile(
    r"could not parse `(?P<value>.*?)` as dtype `(?P<dtype>[^`]+)` at column '(?P<column>[^']+)'"
)


def parse_failure(message: str) -> tuple[str, str, str] | None:
    """``(value, dtype, column)`` when Polars' `message` says a CSV value did not parse.

    Examples
    --------
    >>> from polars_fair._utils import parse_failure
    >>> parse_failure("could not parse `N/A` as dtype `i64` at column 'age' (column 3)")
    ('N/A', 'i64', 'age')
    """
    match = _PARSE.search(message)
    if match is None:
        return None
    value, dtype, column = match.group("value", "dtype", "column")
    return value, dtype, column


def show_groups(rows: Sequence[tuple[Any, ...]], limit: int = 10) -> str:
    """Groups named in a warning, as a list (at most `limit`, then how many more).

    One value each, or an intersection's values joined by " / ", as the tables name it.

    >>> show_groups([("a",), ("b",)])
    "['a', 'b']"
    >>> show_groups([("a", None), ("b", 2)], limit=1)
    "['a / null'] and 1 more"
    """
    shown = [
        r[0] if len(r) == 1 else " / ".join("null" if v is None else str(v) for v in r)
        for r in rows[:limit]
    ]
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"{shown}{more}"
