"""Schema-only validation and the text of every error message.

Everything here looks at the frame's schema (``collect_schema()``), never at its
rows, so it runs before the plan is built and costs nothing on large inputs.
Checks that need the data (label values, an absent reference group) run inside
the plan on the tiny aggregated table; their messages live here too so tests can
match them exactly. The checks on weights and sums are in :mod:`polars_fair._numeric`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, get_args

import polars as pl

from polars_fair._names import (
    INTERNAL_KEYS,
    INTERNAL_PREFIX,
    MSG_INTERNAL_NAME,
    MSG_MULTI_OUTPUT,
    MSG_RESERVED,
    OUTPUT_NAMES,
    RESERVED_NAMES,
    SUMMARY_COLUMNS,
    TABLE_NAMES,
    check_key_name,
    check_single_output,
    check_table_keys,
    key_error,
)
from polars_fair._numeric import check_weight_dtype
from polars_fair._typing import Agg, Method
from polars_fair._utils import as_names
from polars_fair.exceptions import (
    ColumnNotFoundError,
    InvalidParameterError,
    LabelError,
)

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "did_you_mean",
    "MSG_UNKNOWN_KEYWORD",
    "check_at_most",
    "check_flag",
    "dtype_kind",
    "INTERNAL_KEYS",
    "check_single_output",
    "check_table_keys",
    "check_key_name",
    "as_python",
    "check_name_list",
    "check_reference_dtypes",
    "resolve_keys",
    "resolve_weight",
    "check_confidence",
    "check_min_size",
    "check_verdict_rule",
    "INTERNAL_PREFIX",
    "MSG_AGG",
    "MSG_COLUMN_NOT_FOUND",
    "MSG_DUPLICATE_KEY",
    "MSG_EMPTY",
    "MSG_EMPTY_NAMES",
    "MSG_ONE_GROUP",
    "MSG_POS_LABEL_ABSENT",
    "MSG_FRAME",
    "MSG_INTERNAL_NAME",
    "MSG_DURATION_KEY",
    "MSG_LABEL_DTYPE",
    "MSG_LABEL_VALUES",
    "MSG_METHOD",
    "MSG_MULTI_OUTPUT",
    "MSG_NO_SENSITIVE",
    "MSG_REFERENCE_ABSENT",
    "MSG_PANDAS",
    "MSG_REFERENCE_DTYPE",
    "MSG_REFERENCE_POLICY",
    "MSG_REFERENCE_SHADOWED",
    "MSG_REFERENCE_SHAPE",
    "MSG_RESERVED",
    "MSG_SCORE_DTYPE",
    "MSG_SCORE_VALUES",
    "MSG_ZERO_DIVISION",
    "OUTPUT_NAMES",
    "TABLE_NAMES",
    "POLICY_NAMES",
    "RESERVED_NAMES",
    "SUMMARY_COLUMNS",
]

MSG_FRAME = (
    "expected a polars DataFrame or LazyFrame, got {type_name}\n\nHint: build one first, "
    "e.g. `pl.DataFrame(data)`, `pl.read_csv(path)` or `pl.scan_parquet(path)`"
)
MSG_COLUMN_NOT_FOUND = (
    "column {name!r} (given as `{param}`) not found; available columns: {available}\n\nHint: {hint}"
)
MSG_NO_SENSITIVE = (
    "`sensitive_features` must name at least one column, got {value!r}"
    '\n\nHint: pass e.g. `sensitive_features="race"` or `["race", "sex"]`'
)
MSG_DUPLICATE_KEY = (
    "column {name!r} appears more than once in `by` and `sensitive_features`"
    "\n\nHint: name each grouping column once"
)
MSG_OBJECT_KEY = (
    "`{param}` column {name!r} has dtype Object (arbitrary Python objects), which Polars "
    "cannot group or sort\n\nHint: convert it to text first, e.g. "
    "`pl.col({name!r}).map_elements(str, return_dtype=pl.String)`"
)
MSG_DURATION_KEY = (
    "`{param}` column {name!r} has dtype {dtype}, which the report cannot show as a "
    "group (Polars casts no duration to text)\n\nHint: count it in a unit first, e.g. "
    "`pl.col({name!r}).dt.total_days()`"
)
MSG_NESTED_KEY = (
    "`{param}` column {name!r} has dtype {dtype}: it holds lists, not one value per row, "
    "and cannot define groups\n\nHint: pick one value per row into a column of its own, "
    "e.g. `pl.col({name!r}).{ns}.first()` or `pl.col({name!r}).{ns}.join(',')`"
)
MSG_LABEL_DTYPE = (
    "`{param}` column {name!r} has dtype {dtype}, which cannot be compared with "
    "`pos_label`={pos_label!r}\n\nHint: {hint}"
)
MSG_LABEL_VALUES = (
    "`{param}` column {name!r} must hold exactly two label values (`pos_label`="
    "{pos_label!r} and one other), found {found}\n\nHint: {hint}"
)
MSG_SCORE_DTYPE = (
    "`y_prob` column {name!r} must be a numeric score in [0, 1], got dtype {dtype}"
    '\n\nHint: pass the predicted probability column, e.g. `y_prob="score"`'
)
MSG_SCORE_VALUES = (
    "`y_prob` column {name!r} must hold scores in [0, 1], found {found}"
    "\n\nHint: rescale the scores (e.g. a sigmoid of the logits) or clip them; rows "
    "with a null score are excluded and counted in `n_null`"
)
MSG_ZERO_DIVISION = (
    "`zero_division` must be None or a number from 0 to 1 (the value an undefined rate "
    "takes), got {value!r}\n\nHint: e.g. `zero_division=0.0`, or None to leave undefined "
    "rates out"
)
MSG_METHOD = (
    "`method` must be one of 'between_groups', 'to_overall', 'to_reference', got {value!r}"
    "\n\nHint: leave it out for 'between_groups' (or 'to_reference' with `reference_group`)"
)
MSG_AGG = (
    "`agg` must be 'worst_case' or 'mean', got {value!r}\n\nHint: leave it out for 'worst_case'"
)
MSG_REFERENCE_POLICY = (
    "`reference_group` {value!r} is not allowed with `method`={method!r}"
    "\n\nHint: use a group value or 'largest'"
)
MSG_REFERENCE_SHAPE = (
    "`reference_group` must give one value per sensitive feature {names}, got {value!r}"
    "\n\nHint: pass a tuple in the order of `sensitive_features` or a dict "
    "such as {example}"
)
MSG_REFERENCE_ABSENT = (
    "`reference_group` {value!r} does not occur in the data{where}; groups present: "
    "{present}\n\nHint: pick one of the groups present, or use 'largest'"
)
MSG_NAMES_TYPE = "`{param}` must be a list of names, got {value!r}\n\nHint: `{param}=[{value!r}]`"
MSG_NAMES_UNKNOWN = "`{param}` must name {what} from {known}, got {unknown!r}\n\nHint: {near}{hint}"
MSG_UNKNOWN_KEYWORD = (
    "{call}() got an unexpected keyword argument {name!r}\n\nHint: {near}its parameters are {known}"
)
MSG_RATIO_BAND = (
    "`ratio_band` must be a tuple (low, high) of finite numbers with 0 < low <= 1 <= high, "
    "got {value!r}\n\nHint: e.g. `ratio_band=(0.8, 1.25)`"
)
MSG_DIFFERENCE_BAND = (
    "`difference_band` must be a non-negative number, got {value!r}\n\nHint: e.g. "
    "`difference_band=0.1`"
)
MSG_EMPTY = (
    "the input has no rows to evaluate{where}\n\nHint: check the filters upstream of "
    "the audit; `group_stats` accepts empty input and returns an empty table"
)

#: Names of the columns polars_fair adds; a key column may not use them.
# ---- parameter values against column dtypes (issue 14, class 3) ----------------------

MSG_PANDAS = (
    "expected a polars DataFrame or LazyFrame, got a pandas {type_name}"
    "\n\nHint: convert it first with `pl.from_pandas(df)` (polars_fair never uses pandas)"
)
MSG_REFERENCE_DTYPE = (
    "`reference_group` value {value!r} ({vtype}) cannot be compared with column {name!r} "
    "of dtype {dtype}\n\nHint: {hint}"
)
MSG_REFERENCE_SHADOWED = (
    "`reference_group`={value!r} is read as the policy {value!r}, but column {name!r} also "
    "has a group called {value!r}\n\nHint: to compare with that group, pass "
    "`reference_group={{{name!r}: {value!r}}}` (or the tuple `({value!r},)`); to use the "
    "policy, rename the group first, e.g. `pl.col({name!r}).replace({value!r}, "
    "{value!r} + '_')`"
)


def as_python(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(1)`` -> ``1``); others as is.

    Tuples and dicts (intersectional reference groups) are converted element-wise.
    """
    if isinstance(value, tuple):
        return tuple(as_python(v) for v in value)
    if isinstance(value, dict):
        return {k: as_python(v) for k, v in value.items()}
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def frame_error(frame: object) -> InvalidParameterError:
    """The error for an input that is not a polars frame (naming pandas where it is one)."""
    kind = type(frame)
    if kind.__module__.split(".")[0] == "pandas":
        return InvalidParameterError(MSG_PANDAS.format(type_name=kind.__name__))
    return InvalidParameterError(MSG_FRAME.format(type_name=kind.__name__))


def _reference_hint(value: Any, dtype: pl.DataType) -> str:
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return f"the groups are strings: pass `reference_group={str(value)!r}`"
    if dtype.is_numeric():
        try:
            text = str(value).strip()
            number: float | int = int(text) if text.lstrip("-").isdigit() else float(text)
            return f"the groups are numbers: pass `reference_group={number!r}`"
        except (TypeError, ValueError):
            return "the groups are numbers: pass a number"
    if isinstance(dtype, pl.Datetime):
        if dtype.time_zone is not None:
            return (
                f"the column is timezone-aware ({dtype.time_zone}): pass an aware datetime, "
                f"e.g. `datetime(2024, 1, 1, tzinfo=ZoneInfo({dtype.time_zone!r}))`"
            )
        return "the column holds naive datetimes: pass a datetime without `tzinfo`"
    if dtype == pl.Date:
        return "pass a `datetime.date`, e.g. `date(2024, 1, 1)`"
    return f"pass a Python value of the column's type ({dtype})"


def check_reference_dtypes(
    reference: tuple[Any, ...], sensitive: Sequence[str], schema: Mapping[str, pl.DataType]
) -> None:
    """Check that each reference value can be compared with its sensitive column's dtype.

    The comparison is compiled on an empty frame of that dtype, so Polars' own rules
    decide (string against number, naive against aware datetimes, ...); no data is read.
    """
    for value, name in zip(reference, sensitive, strict=True):
        dtype = schema[name]
        if value is None or dtype == pl.Null:
            continue
        # a plain value found comparable with this dtype before needs no query
        key = (dtype, type(value).__name__, repr(value)) if type(value) in _PLAIN else None
        if key is not None and key in _COMPARABLE:
            continue
        try:
            pl.LazyFrame(schema={name: dtype}).select(pl.col(name) == value).collect()
        except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
            msg = MSG_REFERENCE_DTYPE.format(
                value=value, vtype=type(value).__name__, name=name, dtype=dtype,
                hint=_reference_hint(value, dtype),
            )  # fmt: skip
            raise InvalidParameterError(msg) from exc
        if key is not None:
            if len(_COMPARABLE) >= 1024:
                _COMPARABLE.clear()
            _COMPARABLE.add(key)


#: The value types whose comparability :func:`check_reference_dtypes` remembers.
_PLAIN = (str, int, float, bool)
#: (dtype, value type, value ``repr``) found comparable (refusals are not remembered).
_COMPARABLE: set[tuple[pl.DataType, str, str]] = set()


# ---- empty and degenerate input (issue 14, class 4) ----------------------------------

MSG_EMPTY_NAMES = (
    "`{param}` must name at least one {what}, got {value!r}\n\nHint: leave `{param}` out "
    "for the default set, or name one, e.g. `{param}=[{example!r}]`"
)
MSG_POS_LABEL_ABSENT = (
    "`{param}` column {name!r} never equals `pos_label`={pos_label!r} (values found: "
    "{found}), so every row counts as negative\n\nHint: set `pos_label` to the "
    "favourable value, e.g. `pos_label={example!r}`"
)
MSG_ONE_GROUP = (
    "only one group of {names} has rows{where} ({group!r}), so the comparison is of "
    "that group with itself and says nothing about fairness"
    "\n\nHint: check the sensitive column (an all-null column is one group, null)"
)


def check_name_list(param: str, given: Sequence[str] | None, what: str, example: str) -> None:
    """Refuse an empty list of names (None means the default set)."""
    if given is not None and not isinstance(given, str) and len(given) == 0:
        msg = MSG_EMPTY_NAMES.format(param=param, what=what, value=given, example=example)
        raise InvalidParameterError(msg)


#: The orientations and the ways parts combine: the public type aliases' values.
_METHODS: tuple[str, ...] = get_args(Method)
_AGGS: tuple[str, ...] = get_args(Agg)
_REFERENCE_POLICIES = ("largest", "min", "overall", "rest")
#: The strings `reference_group` reads as policies rather than as group values.
POLICY_NAMES = frozenset(_REFERENCE_POLICIES)


def ensure_lazy(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """Return a LazyFrame view of the input without modifying it."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    raise frame_error(frame)


def check_zero_division(value: object) -> float | None:
    """Validate `zero_division` (None keeps undefined rates null)."""
    value = as_python(value)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        msg = MSG_ZERO_DIVISION.format(value=value)  # NaN is not between 0 and 1 either
        raise InvalidParameterError(msg)
    return float(value)


def check_reference_value(reference_group: object) -> None:
    """Refuse an expression, a Series or an array as `reference_group` (a group's values)."""
    values = reference_group if isinstance(reference_group, (tuple, list)) else [reference_group]
    for value in values:
        if isinstance(value, (pl.Expr, pl.Series)) or (getattr(value, "ndim", 0) or 0) > 0:
            msg = (
                f"`reference_group` names a group by its value(s), got {type(value).__name__}"
                '\n\nHint: e.g. `reference_group="Caucasian"`, or a tuple of values for '
                "several sensitive features"
            )
            raise InvalidParameterError(msg)


def check_flag(value: object, param: str) -> bool:
    """A yes/no parameter: True or False, nothing read as truthy."""
    if not isinstance(value, bool):
        msg = (
            f"`{param}` must be True or False, got {value!r}\n\nHint: pass the bool itself, "
            f"e.g. `{param}=True`"
        )
        raise InvalidParameterError(msg)
    return value


def dtype_kind(dtype: pl.DataType) -> str:
    """The kind of values a dtype holds: number, boolean, text, or the dtype itself.

    Files or profile pieces whose columns agree in kind hold the same values (a CSV
    shard read as Int64, another as Float64).

    >>> import polars as pl
    >>> dtype_kind(pl.Int64) == dtype_kind(pl.Float32), dtype_kind(pl.Categorical)
    (True, 'text')
    """
    if dtype.is_numeric():
        return "number"
    if dtype == pl.Boolean:
        return "boolean"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "text"
    return str(dtype)


def check_method(method: object, reference_group: object) -> str:
    """Resolve `method`; None picks 'to_reference' if a reference group is given."""
    check_reference_value(reference_group)
    if method is None:
        return "between_groups" if reference_group is None else "to_reference"
    if not isinstance(method, str) or method not in _METHODS:
        msg = MSG_METHOD.format(value=method)
        raise InvalidParameterError(msg)
    return str(method)


def check_agg(agg: object) -> str:
    """Validate `agg` of the composite criteria."""
    if not isinstance(agg, str) or agg not in _AGGS:
        msg = MSG_AGG.format(value=agg)
        raise InvalidParameterError(msg)
    return str(agg)


def column_not_found(name: str, param: str, schema: pl.Schema, hint: str) -> ColumnNotFoundError:
    """Build the error for a missing column."""
    msg = MSG_COLUMN_NOT_FOUND.format(
        name=name, param=param, available=list(schema.names()), hint=hint
    )
    return ColumnNotFoundError(msg)


def check_keys(
    schema: pl.Schema, sensitive: Sequence[str], by: Sequence[str], family: str = "binary"
) -> None:
    """Check that the grouping columns exist, are distinct and do not clash.

    `family` names the kind of reduction (``"binary"``, ``"scores"``, ``"regression"``,
    ``"ensemble"``, ``"multiclass"``): its results' columns are refused as key names.
    """
    if not sensitive:
        msg = MSG_NO_SENSITIVE.format(value=list(sensitive))
        raise InvalidParameterError(msg)
    seen: set[str] = set()
    for param, names in (("by", by), ("sensitive_features", sensitive)):
        for name in names:
            if not isinstance(name, str):
                raise key_error(name, param, schema)
            if name not in schema:
                hint = f"pass an existing column as `{param}=`"
                raise column_not_found(name, param, schema, hint)
            if name in seen:
                msg = MSG_DUPLICATE_KEY.format(name=name)
                raise InvalidParameterError(msg)
            if isinstance(schema[name], (pl.List, pl.Array)):
                ns = "list" if isinstance(schema[name], pl.List) else "arr"
                msg = MSG_NESTED_KEY.format(param=param, name=name, dtype=schema[name], ns=ns)
                raise InvalidParameterError(msg)
            if schema[name] == pl.Object:
                msg = MSG_OBJECT_KEY.format(param=param, name=name)
                raise InvalidParameterError(msg)
            if isinstance(schema[name], pl.Duration):
                msg = MSG_DURATION_KEY.format(param=param, name=name, dtype=schema[name])
                raise InvalidParameterError(msg)
            check_key_name(name, param, family)
            seen.add(name)


MSG_BAD_EXPRESSION = (
    "`{param}` expression {expr} cannot be evaluated on this frame: {reason}"
    "\n\nHint: the columns it uses have dtypes {used}; compare each with a value of its own"
    " type (a number with a numeric column, text with a string column), or cast it first"
)


def resolve_column(
    lf: pl.LazyFrame, schema: pl.Schema, spec: IntoColumn, param: str, hint: str
) -> tuple[pl.Expr, pl.DataType, str]:
    """Resolve a column name or expression to ``(expr, dtype, display name)``.

    Only the schema is resolved (no data is read).
    """
    if isinstance(spec, str):
        if spec not in schema:
            raise column_not_found(spec, param, schema, hint)
        return pl.col(spec), schema[spec], spec
    if isinstance(spec, pl.Expr):
        check_single_output(spec, param)
        name = spec.meta.output_name(raise_if_undetermined=False) or str(spec)
        try:
            dtype = lf.select(spec.alias("__pf_probe")).collect_schema()["__pf_probe"]
            # Some dtype errors (a string compared with a number) pass the schema and
            # surface only when rows are computed: run it on no rows of the same schema.
            roots = spec.meta.root_names()  # the columns it reads (all of them for a regex)
            probe = {c: schema[c] for c in roots} if set(roots) <= set(schema) else schema
            pl.DataFrame(schema=probe).select(spec.alias("__pf_probe"))  # eager: ~40 us
        except pl.exceptions.ColumnNotFoundError as exc:
            found = re.search(r'column "([^"]*)"', str(exc))
            missing = found.group(1) if found else str(exc).splitlines()[0]
            msg = MSG_COLUMN_NOT_FOUND.format(
                name=missing, param=param, available=list(schema.names()), hint=hint
            )
            raise ColumnNotFoundError(msg) from exc
        except pl.exceptions.PolarsError as exc:  # e.g. a comparison of a string with a number
            used = {c: schema[c] for c in spec.meta.root_names() if c in schema}
            reason = str(exc).splitlines()[0]
            msg = MSG_BAD_EXPRESSION.format(param=param, expr=spec, reason=reason, used=used)
            raise InvalidParameterError(msg) from exc
        return spec, dtype, name
    msg = (
        f"`{param}` must be a column name or a polars expression, got {spec!r}"
        f'\n\nHint: e.g. `{param}="label"` or `{param}=pl.col("score") >= 0.5`'
    )
    raise InvalidParameterError(msg)


def check_label_dtype(dtype: pl.DataType, pos_label: PosLabel, param: str, name: str) -> None:
    """Check that `pos_label` can be compared with a label column of this dtype."""
    pos_label = as_python(pos_label)
    ok: bool
    if dtype == pl.Null:
        return  # an all-null column of unknown type: every row is excluded (n_null)
    if dtype == pl.Boolean:
        ok = pos_label is True or (not isinstance(pos_label, (str, float)) and pos_label == 1)
        hint = (
            "boolean labels use `pos_label=True` (the default 1 means True); to make"
            f' False the positive label, negate `{param}`, e.g. `{param}=~pl.col("flag")`'
        )
    elif dtype.is_numeric():
        ok = isinstance(pos_label, (int, float, Decimal)) and not (
            (isinstance(pos_label, float) and math.isnan(pos_label))
            or (isinstance(pos_label, Decimal) and pos_label.is_nan())
        )
        hint = "numeric labels need a numeric `pos_label`, e.g. `pos_label=1`"
    elif dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Enum, pl.Categorical)):
        ok = isinstance(pos_label, str)
        hint = 'string labels need a string `pos_label`, e.g. `pos_label="yes"`'
    else:
        ok = False
        hint = "labels must be boolean, numeric or string"
    if not ok:
        msg = MSG_LABEL_DTYPE.format(
            param=param, name=name, dtype=dtype, pos_label=pos_label, hint=hint
        )
        raise LabelError(msg)


def resolve_keys(
    frame: pl.DataFrame | pl.LazyFrame,
    sensitive_features: IntoColumns | None,
    by: IntoColumns | None,
    family: str = "binary",
) -> tuple[pl.LazyFrame, pl.Schema, list[str], list[str]]:
    """The frame as a LazyFrame, its schema, and the checked group and batch keys.

    `family` is the kind of reduction the keys feed (see :func:`check_keys`).
    """
    lf = ensure_lazy(frame)
    sens, by_ = as_names(sensitive_features), as_names(by)
    schema = lf.collect_schema()
    check_keys(schema, sens, by_, family)
    return lf, schema, sens, by_


def resolve_weight(
    lf: pl.LazyFrame, schema: pl.Schema, sample_weight: IntoColumn | None
) -> tuple[pl.Expr | None, str | None]:
    """The weight column as a Float64 expression and its display name (None: unweighted)."""
    if sample_weight is None:
        return None, None
    expr, dtype, name = resolve_column(
        lf, schema, sample_weight, "sample_weight", "pass the weight column as `sample_weight=`"
    )
    check_weight_dtype(dtype, name)
    return expr.cast(pl.Float64), name


def check_confidence(confidence_level: object) -> float | None:
    """Check `confidence_level`: None or a float strictly between 0 and 1."""
    confidence_level = as_python(confidence_level)
    if confidence_level is None:
        return None
    ok = isinstance(confidence_level, (int, float)) and not isinstance(confidence_level, bool)
    if not ok or not 0 < float(confidence_level) < 1:  # type: ignore[arg-type]
        msg = (
            f"`confidence_level` must be a float strictly between 0 and 1, got "
            f"{confidence_level!r}\n\nHint: e.g. `confidence_level=0.95`"
        )
        raise InvalidParameterError(msg)
    return float(confidence_level)  # type: ignore[arg-type]


def check_min_size(min_group_size: object, param: str = "min_group_size") -> float | None:
    """Check a minimum group size: None or a non-negative number."""
    min_group_size = as_python(min_group_size)
    if min_group_size is None:
        return None
    ok = isinstance(min_group_size, (int, float)) and not isinstance(min_group_size, bool)
    if not ok or not 0 <= float(min_group_size) < math.inf:  # type: ignore[arg-type]
        msg = (
            f"`{param}` must be a finite, non-negative number, got {min_group_size!r}"
            f"\n\nHint: e.g. `{param}=30`"
        )
        raise InvalidParameterError(msg)
    return float(min_group_size)  # type: ignore[arg-type]


def check_at_most(value: int, param: str, limit: int, hint: str) -> None:
    """Refuse a count so large its arrays would not fit in memory (`hint`: the usual)."""
    if value > limit:
        msg = f"`{param}` must be at most {limit:,}, got {value:,}\n\nHint: {hint}"
        raise InvalidParameterError(msg)


def check_verdict_rule(rule: object) -> str:
    """Check `verdict_rule`: ``"interval"`` or ``"point"``."""
    if not isinstance(rule, str) or rule not in ("interval", "point"):
        msg = (
            f"`verdict_rule` must be 'interval' or 'point', got {rule!r}\n\nHint: 'interval' "
            "judges the whole interval against the fair band, 'point' the point value"
        )
        raise InvalidParameterError(msg)
    return str(rule)


def check_score_dtype(dtype: pl.DataType, name: str) -> None:
    """Check that the score column is numeric (or an all-null column)."""
    if dtype != pl.Null and (not dtype.is_numeric() or dtype == pl.Boolean):
        msg = MSG_SCORE_DTYPE.format(name=name, dtype=dtype)
        raise InvalidParameterError(msg)


def normalize_reference(reference_group: Any, sensitive: Sequence[str]) -> tuple[Any, ...] | str:
    """Return a policy name or a tuple with one value per sensitive feature.

    None means "not given" (the default, ``"largest"``); the group of null values
    is referenced as ``(None,)``. A list is read as a tuple.
    """
    reference_group = as_python(reference_group)
    if reference_group is None:
        return "largest"
    if isinstance(reference_group, str) and reference_group in _REFERENCE_POLICIES:
        return reference_group
    if isinstance(reference_group, Mapping):
        keys = set(reference_group)
        if keys != set(sensitive):
            example = {s: "..." for s in sensitive}
            msg = MSG_REFERENCE_SHAPE.format(
                names=list(sensitive), value=dict(reference_group), example=example
            )
            raise InvalidParameterError(msg)
        return tuple(reference_group[s] for s in sensitive)
    if isinstance(reference_group, (tuple, list)):  # a list (JSON's tuple) as a tuple
        if len(reference_group) != len(sensitive):
            example = {s: "..." for s in sensitive}
            msg = MSG_REFERENCE_SHAPE.format(
                names=list(sensitive), value=reference_group, example=example
            )
            raise InvalidParameterError(msg)
        return tuple(reference_group)
    if len(sensitive) != 1:
        example = {s: "..." for s in sensitive}
        msg = MSG_REFERENCE_SHAPE.format(
            names=list(sensitive), value=reference_group, example=example
        )
        raise InvalidParameterError(msg)
    return (reference_group,)


def format_values(values: Iterable[object], limit: int = 10) -> str:
    """Format a handful of offending values for an error message."""
    vals = list(values)
    shown = ", ".join(repr(v) for v in vals[:limit])
    more = f" and {len(vals) - limit} more" if len(vals) > limit else ""
    return f"[{shown}{more}]"


def check_names(
    param: str,
    given: Sequence[str] | None,
    known: Sequence[str],
    *,
    what: str = "names",
    default: Sequence[str] | None = None,
    hint: str = "check the spelling",
    suggest: bool = True,
) -> list[str]:
    """Check a list of names from `known` (rates, measures, criteria); None: `default`.

    The one check of every name-list parameter (``metrics``, ``criteria``). `suggest`:
    the hint starts with the closest names (False where `hint` names the mistake).
    """
    if given is None:
        return list(known if default is None else default)
    example = (known if default is None else default)[0]  # an empty list is an error
    if isinstance(given, str) or not isinstance(given, Sequence):
        raise InvalidParameterError(MSG_NAMES_TYPE.format(param=param, value=given))
    check_name_list(param, given, _SINGULAR.get(what, what), example)
    if isinstance(given, str):
        raise InvalidParameterError(MSG_NAMES_TYPE.format(param=param, value=given))
    unknown = [m for m in given if m not in known]
    if unknown:
        near = did_you_mean(unknown[0], known) if suggest else ""
        msg = MSG_NAMES_UNKNOWN.format(
            param=param, what=what, known=list(known), unknown=unknown, hint=hint, near=near
        )
        raise InvalidParameterError(msg)
    return list(given)


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """The start of a hint naming the (up to three) names of `known` closest to `name`.

    The one "did you mean" of every unknown name (criteria, rates, parameters): the
    names that start with `name` (an abbreviation such as ``ref``), then the closest
    spellings; empty when nothing is close.

    Examples
    --------
    >>> did_you_mean("demographic_parity_diference", ["demographic_parity_difference", "f1"])
    "did you mean 'demographic_parity_difference'? "
    >>> did_you_mean("ref", ["method", "reference_group"])
    "did you mean 'reference_group'? "
    >>> did_you_mean("colour", ["method"])
    ''
    """
    if not isinstance(name, str):
        return ""
    names = list(known)
    starts = [k for k in names if len(name) >= 3 and k.startswith(name)]
    close = list(dict.fromkeys([*starts, *difflib.get_close_matches(name, names, n=3)]))[:3]
    return f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""


_SINGULAR = {"criteria": "criterion", "rates": "rate", "measures": "measure", "names": "name"}


def check_ratio_band(band: object) -> tuple[float, float]:
    """The one check of `ratio_band`: a tuple of finite numbers around 1."""
    band = as_python(band)
    ok = (
        isinstance(band, tuple)
        and len(band) == 2
        and all(
            isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b)
            for b in band
        )
        and 0 < band[0] <= 1 <= band[1]
    )
    if not ok:
        raise InvalidParameterError(MSG_RATIO_BAND.format(value=band))
    return float(band[0]), float(band[1])  # type: ignore[index]


def check_difference_band(band: object) -> float:
    """The one check of `difference_band`: a non-negative finite number."""
    band = as_python(band)
    ok = isinstance(band, (int, float)) and not isinstance(band, bool)
    if not ok or not 0 <= float(band) < math.inf:  # type: ignore[arg-type]
        raise InvalidParameterError(MSG_DIFFERENCE_BAND.format(value=band))
    return float(band)  # type: ignore[arg-type]
