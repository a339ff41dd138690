"""Schema-only validation and the text of every error message.

Everything here looks at the frame's schema (``collect_schema()``), never at its
rows, so it runs before the plan is built and costs nothing on large inputs.
Checks that need the data (label values, negative weights, an absent reference
group) run inside the plan on the tiny aggregated table; their messages live here
too so tests can match them exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names
from polars_fair.exceptions import (
    ColumnNotFoundError,
    InvalidParameterError,
    LabelError,
)

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

__all__ = [
    "resolve_keys",
    "resolve_weight",
    "check_confidence",
    "check_min_size",
    "MSG_AGG",
    "MSG_COLUMN_NOT_FOUND",
    "MSG_DUPLICATE_KEY",
    "MSG_EMPTY",
    "MSG_FRAME",
    "MSG_LABEL_DTYPE",
    "MSG_LABEL_VALUES",
    "MSG_METHOD",
    "MSG_NO_SENSITIVE",
    "MSG_REFERENCE_ABSENT",
    "MSG_REFERENCE_POLICY",
    "MSG_REFERENCE_SHAPE",
    "MSG_RESERVED",
    "MSG_SCORE_DTYPE",
    "MSG_SCORE_VALUES",
    "MSG_WEIGHT_DTYPE",
    "MSG_WEIGHT_VALUES",
    "MSG_ZERO_DIVISION",
    "RESERVED_NAMES",
]

MSG_FRAME = "expected a polars DataFrame or LazyFrame, got {type_name}"
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
MSG_RESERVED = (
    "column {name!r} (given as `{param}`) clashes with an output column of polars_fair"
    '\n\nHint: rename it first, e.g. `.rename({{{name!r}: {name!r} + "_"}})`'
)
MSG_LABEL_DTYPE = (
    "`{param}` column {name!r} has dtype {dtype}, which cannot be compared with "
    "`pos_label`={pos_label!r}\n\nHint: {hint}"
)
MSG_LABEL_VALUES = (
    "`{param}` column {name!r} must hold exactly two label values (`pos_label`="
    "{pos_label!r} and one other), found {found}\n\nHint: {hint}"
)
MSG_WEIGHT_DTYPE = (
    "`sample_weight` column {name!r} must be numeric, got dtype {dtype}"
    "\n\nHint: cast it, e.g. `pl.col({name!r}).cast(pl.Float64)`"
)
MSG_WEIGHT_VALUES = (
    "`sample_weight` column {name!r} must hold finite, non-negative weights, found {found}"
    "\n\nHint: fix or drop those rows before the audit; rows with a null weight are "
    "excluded and counted in `n_null`"
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
MSG_ZERO_DIVISION = "`zero_division` must be None or a float (not NaN), got {value!r}"
MSG_METHOD = "`method` must be one of 'between_groups', 'to_overall', 'to_reference', got {value!r}"
MSG_AGG = "`agg` must be 'worst_case' or 'mean', got {value!r}"
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
MSG_NAMES_UNKNOWN = "`{param}` must name {what} from {known}, got {unknown!r}\n\nHint: {hint}"
MSG_NAMES_EMPTY = "`{param}` must name one or more {what} from {known}, got []"
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
RESERVED_NAMES = frozenset(
    {
        "n", "tp", "fp", "fn", "tn", "n_null", "pred_pos", "pred_neg", "pos", "neg",
        "metric", "value", "reference_value", "difference", "ratio",
    }
)  # fmt: skip

_METHODS = ("between_groups", "to_overall", "to_reference")
_AGGS = ("worst_case", "mean")
_REFERENCE_POLICIES = ("largest", "min", "overall", "rest")


def ensure_lazy(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """Return a LazyFrame view of the input without modifying it."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    msg = MSG_FRAME.format(type_name=type(frame).__name__)
    raise InvalidParameterError(msg)


def check_zero_division(value: object) -> float | None:
    """Validate `zero_division` (None keeps undefined rates null)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        msg = MSG_ZERO_DIVISION.format(value=value)
        raise InvalidParameterError(msg)
    return float(value)


def check_method(method: object, reference_group: object) -> str:
    """Resolve `method`; None picks 'to_reference' if a reference group is given."""
    if method is None:
        return "between_groups" if reference_group is None else "to_reference"
    if method not in _METHODS:
        msg = MSG_METHOD.format(value=method)
        raise InvalidParameterError(msg)
    return str(method)


def check_agg(agg: object) -> str:
    """Validate `agg` of the composite criteria."""
    if agg not in _AGGS:
        msg = MSG_AGG.format(value=agg)
        raise InvalidParameterError(msg)
    return str(agg)


def column_not_found(name: str, param: str, schema: pl.Schema, hint: str) -> ColumnNotFoundError:
    """Build the error for a missing column."""
    msg = MSG_COLUMN_NOT_FOUND.format(
        name=name, param=param, available=list(schema.names()), hint=hint
    )
    return ColumnNotFoundError(msg)


def check_keys(schema: pl.Schema, sensitive: Sequence[str], by: Sequence[str]) -> None:
    """Check that the grouping columns exist, are distinct and do not clash."""
    if not sensitive:
        msg = MSG_NO_SENSITIVE.format(value=list(sensitive))
        raise InvalidParameterError(msg)
    seen: set[str] = set()
    for param, names in (("by", by), ("sensitive_features", sensitive)):
        for name in names:
            if not isinstance(name, str):
                msg = f"`{param}` must be a column name or a list of names, got {name!r}"
                raise InvalidParameterError(msg)
            if name not in schema:
                hint = f"pass an existing column as `{param}=`"
                raise column_not_found(name, param, schema, hint)
            if name in seen:
                msg = MSG_DUPLICATE_KEY.format(name=name)
                raise InvalidParameterError(msg)
            if name in RESERVED_NAMES:
                msg = MSG_RESERVED.format(name=name, param=param)
                raise InvalidParameterError(msg)
            seen.add(name)


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
        name = spec.meta.output_name(raise_if_undetermined=False) or str(spec)
        try:
            dtype = lf.select(spec.alias("__pf_probe")).collect_schema()["__pf_probe"]
        except pl.exceptions.ColumnNotFoundError as exc:
            found = re.search(r'column "([^"]*)"', str(exc))
            missing = found.group(1) if found else str(exc).splitlines()[0]
            msg = MSG_COLUMN_NOT_FOUND.format(
                name=missing, param=param, available=list(schema.names()), hint=hint
            )
            raise ColumnNotFoundError(msg) from exc
        return spec, dtype, name
    msg = f"`{param}` must be a column name or a polars expression, got {spec!r}"
    raise InvalidParameterError(msg)


def check_label_dtype(dtype: pl.DataType, pos_label: PosLabel, param: str, name: str) -> None:
    """Check that `pos_label` can be compared with a label column of this dtype."""
    ok: bool
    if dtype == pl.Null:
        return  # an all-null column of unknown type: every row is excluded (n_null)
    if dtype == pl.Boolean:
        ok = pos_label is True or (not isinstance(pos_label, (str, float)) and pos_label == 1)
        hint = "boolean labels use `pos_label=True` (the default 1 means True)"
    elif dtype.is_numeric():
        ok = isinstance(pos_label, (int, float)) and not (
            isinstance(pos_label, float) and math.isnan(pos_label)
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
) -> tuple[pl.LazyFrame, pl.Schema, list[str], list[str]]:
    """The frame as a LazyFrame, its schema, and the checked group and batch keys."""
    lf = ensure_lazy(frame)
    sens, by_ = as_names(sensitive_features), as_names(by)
    schema = lf.collect_schema()
    check_keys(schema, sens, by_)
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


def check_weight_dtype(dtype: pl.DataType, name: str) -> None:
    """Check that the weight column is numeric."""
    if not dtype.is_numeric():
        msg = MSG_WEIGHT_DTYPE.format(name=name, dtype=dtype)
        raise InvalidParameterError(msg)


def check_confidence(confidence_level: object) -> float | None:
    """Check `confidence_level`: None or a float strictly between 0 and 1."""
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
    if min_group_size is None:
        return None
    ok = isinstance(min_group_size, (int, float)) and not isinstance(min_group_size, bool)
    if not ok or not float(min_group_size) >= 0:  # type: ignore[arg-type]
        msg = (
            f"`{param}` must be a non-negative number, got {min_group_size!r}"
            f"\n\nHint: e.g. `{param}=30`"
        )
        raise InvalidParameterError(msg)
    return float(min_group_size)  # type: ignore[arg-type]


def check_score_dtype(dtype: pl.DataType, name: str) -> None:
    """Check that the score column is numeric (or an all-null column)."""
    if dtype != pl.Null and (not dtype.is_numeric() or dtype == pl.Boolean):
        msg = MSG_SCORE_DTYPE.format(name=name, dtype=dtype)
        raise InvalidParameterError(msg)


def normalize_reference(reference_group: Any, sensitive: Sequence[str]) -> tuple[Any, ...] | str:
    """Return a policy name or a tuple with one value per sensitive feature.

    None means "not given" (the default, ``"largest"``); the group of null values
    is referenced as ``(None,)``.
    """
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
    if isinstance(reference_group, tuple):
        if len(reference_group) != len(sensitive):
            example = {s: "..." for s in sensitive}
            msg = MSG_REFERENCE_SHAPE.format(
                names=list(sensitive), value=reference_group, example=example
            )
            raise InvalidParameterError(msg)
        return reference_group
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
    allow_empty: bool = False,
    hint: str = "check the spelling",
) -> list[str]:
    """Check a list of names from `known` (rates, measures, criteria); None: `default`.

    The one check of every name-list parameter (``metrics``, ``criteria``).
    """
    if given is None:
        return list(known if default is None else default)
    if isinstance(given, str):
        raise InvalidParameterError(MSG_NAMES_TYPE.format(param=param, value=given))
    unknown = [m for m in given if m not in known]
    if unknown:
        msg = MSG_NAMES_UNKNOWN.format(
            param=param, what=what, known=list(known), unknown=unknown, hint=hint
        )
        raise InvalidParameterError(msg)
    if not given and not allow_empty:
        raise InvalidParameterError(
            MSG_NAMES_EMPTY.format(param=param, what=what, known=list(known))
        )
    return list(given)


def check_ratio_band(band: object) -> tuple[float, float]:
    """The one check of `ratio_band`: a tuple of finite numbers around 1."""
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
    ok = isinstance(band, (int, float)) and not isinstance(band, bool)
    if not ok or not 0 <= float(band) < math.inf:  # type: ignore[arg-type]
        raise InvalidParameterError(MSG_DIFFERENCE_BAND.format(value=band))
    return float(band)  # type: ignore[arg-type]
