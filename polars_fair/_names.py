"""The names of polars_fair's output columns, and the key names they forbid.

Key columns (`sensitive_features`, `by`) are carried into every result under their own
names, so a key named like a column polars_fair adds (``n``, ``value``, ``verdict``,
...) or like an internal one (``__pf_...``) would be overwritten somewhere downstream:
:func:`check_key_name` refuses it with a message naming the column and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from polars_fair.exceptions import ColumnNotFoundError, InvalidParameterError

__all__ = [
    "INTERNAL_KEYS",
    "INTERNAL_PREFIX",
    "MSG_INTERNAL_NAME",
    "MSG_MULTI_OUTPUT",
    "MSG_RESERVED",
    "OUTPUT_NAMES",
    "RESERVED_NAMES",
    "SUMMARY_COLUMNS",
    "TABLE_NAMES",
    "check_key_name",
    "check_single_output",
    "check_key_exprs",
    "check_table_keys",
    "key_error",
]

MSG_RESERVED = (
    "column {name!r} (given as `{param}`) clashes with an output column of polars_fair"
    "\n\nHint: rename it first, e.g. `.rename({{{name!r}: '{name}_'}})`, and pass the new name"
)
RESERVED_NAMES = frozenset(
    {
        "n", "tp", "fp", "fn", "tn", "n_null", "pred_pos", "pred_neg", "pos", "neg", "sum_w2",
        "tp_w2", "fp_w2", "fn_w2", "tn_w2",
        "metric", "value", "reference_value", "difference", "ratio",
    }
)  # fmt: skip

# ---- names of output columns: a key column may not take one (issue 14, class 1) ----

#: The prefix of polars_fair's internal columns; no key column may start with it.
INTERNAL_PREFIX = "__pf_"
#: Keys polars_fair adds itself (the whole population as one group, for the
#: inequality indices without `sensitive_features`): exempt from the prefix rule.
INTERNAL_KEYS = frozenset({"__pf_population"})

MSG_INTERNAL_NAME = (
    "column {name!r} (given as `{param}`) starts with {prefix!r}, the prefix polars_fair "
    "uses for its internal columns\n\nHint: rename it first, e.g. "
    "`.rename({{{name!r}: {new!r}}})`, and pass the new name"
)
MSG_MULTI_OUTPUT = (
    "`{param}` must be one column, got the expression {expr}, which has several outputs"
    '\n\nHint: pass one column or an expression with one output, e.g. `{param}=pl.col("a")`'
)

_RATE_NAMES = (
    "selection_rate", "base_rate", "true_positive_rate", "false_negative_rate",
    "false_positive_rate", "true_negative_rate", "positive_predictive_value",
    "negative_predictive_value", "false_discovery_rate", "false_omission_rate", "accuracy",
    "error_rate", "predicted_positive_share", "f1", "balanced_accuracy",
    "balance_for_positive_class", "balance_for_negative_class",
)  # fmt: skip
_BINARY_CRITERIA = (
    "demographic_parity_difference", "demographic_parity_ratio",
    "statistical_parity_difference", "disparate_impact_ratio",
    "equal_opportunity_difference", "equal_opportunity_ratio",
    "predictive_equality_difference", "predictive_equality_ratio",
    "predictive_parity_difference", "predictive_parity_ratio",
    "equalized_odds_difference", "equalized_odds_ratio", "average_odds_difference",
    "average_abs_odds_difference", "conditional_use_accuracy_difference",
    "conditional_use_accuracy_ratio", "treatment_equality_difference",
    "treatment_equality_ratio", "cohen_d", "two_sd_rule", "four_fifths_rule",
    "generalized_entropy_index", "theil_index", "coefficient_of_variation",
    "between_group_generalized_entropy_index", "between_group_theil_index",
    "between_group_coefficient_of_variation", "abroca",
    "calibration_difference", "expected_calibration_error", "roc_auc",
    "roc_auc_difference", "roc_auc_ratio",
)  # fmt: skip
_BINARY_TABLE_COLUMNS = (
    # flags and intervals of by_group and disparities, score sums of group_stats
    "small_group", "difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high",
    "sum_prob_pos", "sum_prob_neg", "sum_prob2_pos", "sum_prob2_neg",
)  # fmt: skip
_SCORE_COLUMNS = (
    # calibration, ROC and threshold tables (their keys are `by` and the groups)
    "bin", "bin_low", "bin_high", "mean_prob", "fraction_positive", "calibration_gap",
    "threshold", "tpr", "fpr", "score", "sum_prob", "pos_w2", "neg_w2",
)  # fmt: skip
#: The summary's columns after its batch keys, in order (the summary, its renderings
#: and the reserved names read them from here).
SUMMARY_COLUMNS = (
    "criterion", "value", "ideal", "fair_low", "fair_high", "verdict", "ci_low", "ci_high",
    "interval_method", "p_value", "group", "group_n", "compared_with", "compared_n",
    "n_groups", "excluded", "note", "min_group_n", "lowest", "lowest_group", "lowest_n",
    "highest", "highest_group", "highest_n",
)  # fmt: skip
#: Long tables whose keys are the `by` columns only: a `by` column may not take
#: one of their column names (the groups are summarised away, so any name works).
TABLE_NAMES: Mapping[str, frozenset[str]] = {
    "summary": frozenset(SUMMARY_COLUMNS),
    "criteria_long": frozenset(("criterion", "value")),
    "replicates": frozenset(("replicate",)),
    "bootstrap": frozenset(
        ("criterion", "value", "mean", "std", "ci_low", "ci_high", "n_defined", "replicate")
    ),
    "tradeoffs": frozenset(("criteria", "compatible", "condition", "required", "actual", "gap")),
}
_REGRESSION_MEASURES = (
    "mean_prediction", "std_prediction", "mean_true", "rmse", "mae", "correlation",
)  # fmt: skip
_REGRESSION_COLUMNS = (
    "sum_pred", "sum_pred_sq", "sum_true", "sum_true_sq", "sum_pred_true", "sum_abs_error",
    "sum_sq_error", "quantile", "threshold", "average_score_difference",
    "average_score_ratio", "zscore_difference", "disparate_impact_quantile",
    "statistical_parity_quantile", "max_statistical_parity", "statistical_parity_auc",
    "no_disparate_impact_level",
)  # fmt: skip
_ENSEMBLE_MEASURES = (
    "label_stability", "std", "iqr", "jitter", "aleatoric_uncertainty",
    "epistemic_uncertainty", "overall_uncertainty",
)  # fmt: skip
_MULTICLASS_COLUMNS = ("class", "n_classes", "worst_class", "criterion")


def _with_comparisons(names: Iterable[str], suffixes: Sequence[str]) -> frozenset[str]:
    return frozenset(f"{n}{s}" for n in names for s in ("", *suffixes))


#: Per family of methods (which reduction it reads), every column its results can
#: carry besides the keys. A test builds every method's plan and checks that each
#: output column is listed here, so a new output column cannot clash unnoticed.
OUTPUT_NAMES: Mapping[str, frozenset[str]] = {
    "binary": RESERVED_NAMES
    | _with_comparisons(_RATE_NAMES, ("_difference", "_ratio", "_ci_low", "_ci_high"))
    | frozenset(_BINARY_CRITERIA)
    | frozenset(_BINARY_TABLE_COLUMNS),
    "regression": RESERVED_NAMES
    | _with_comparisons(_REGRESSION_MEASURES, ("_difference", "_ratio"))
    | frozenset(_REGRESSION_COLUMNS),
    "scores": RESERVED_NAMES
    | _with_comparisons(_RATE_NAMES, ("_difference", "_ratio", "_ci_low", "_ci_high"))
    | frozenset(_BINARY_CRITERIA)
    | frozenset(_BINARY_TABLE_COLUMNS)
    | frozenset(_SCORE_COLUMNS),
    "ensemble": RESERVED_NAMES
    | _with_comparisons(_ENSEMBLE_MEASURES, ("_difference", "_ratio"))
    | frozenset(f"sum_{m}" for m in _ENSEMBLE_MEASURES),
    "multiclass": RESERVED_NAMES | frozenset(_RATE_NAMES) | frozenset(_MULTICLASS_COLUMNS),
}


def check_key_name(name: str, param: str, family: str = "binary") -> None:
    """Refuse a key column named like an output column of `family` or an internal one.

    Key columns are carried into every result under their own names, so a key
    named like a column polars_fair adds would be overwritten (or raise Polars'
    ``DuplicateError``) somewhere downstream.
    """
    if name.startswith(INTERNAL_PREFIX) and name not in INTERNAL_KEYS:
        msg = MSG_INTERNAL_NAME.format(
            name=name, param=param, prefix=INTERNAL_PREFIX, new=name.lstrip("_")
        )
        raise InvalidParameterError(msg)
    if name in OUTPUT_NAMES[family]:
        msg = MSG_RESERVED.format(name=name, param=param)
        raise InvalidParameterError(msg)


def check_table_keys(table: str, by: Sequence[str], sensitive: Sequence[str] = ()) -> None:
    """Refuse key columns named like a column of the long table `table` (``TABLE_NAMES``).

    Called by the builders of the long tables (summary, bootstrap, trade-offs), whose
    columns depend on the method rather than on the reduction it reads.
    """
    names = TABLE_NAMES[table]
    for param, keys in (("by", by), ("sensitive_features", sensitive)):
        for i, name in enumerate(keys):
            if name in names or name in keys[:i]:  # a repeat: a column the table adds
                msg = MSG_RESERVED.format(name=name, param=param)
                raise InvalidParameterError(msg)


def check_single_output(expr: pl.Expr, param: str) -> None:
    """Refuse an expression with several outputs (``pl.col("a", "b")``) as one column."""
    if expr.meta.has_multiple_outputs():
        msg = MSG_MULTI_OUTPUT.format(param=param, expr=expr)
        raise InvalidParameterError(msg)


# ---- key columns given as expressions (sensitive_features, by, candidates) ----------------

MSG_KEY_SELECTOR = (
    "`{param}` must be {takes}, got the expression {expr}, which selects "
    "{selected}\n\nHint: pass the names of the key columns only, e.g. `{param}={example!r}`"
)
MSG_KEY_EXPR = "`{param}` must be {takes}, got the expression {expr}\n\nHint: {fix}"
MSG_KEY_VALUE = "`{param}` must be {takes}, got {value!r}\n\nHint: e.g. `{param}=['race', 'sex']`"


def _takes(param: str) -> str:
    """What a key parameter takes, in its messages."""
    return "a list of column names" if param == "candidates" else "a column name or a list of names"


def key_error(
    value: object, param: str, schema: pl.Schema | None = None, *, exprs: bool = False
) -> InvalidParameterError:
    """The error for what was given in place of a key name (`sensitive_features`, `by`, ...).

    The one wording of every method's key check. A multi-output expression
    (``pl.all()``, ``pl.col("a", "b")``, a selector) is refused with the columns it
    selects in `schema` (from the schema alone, nothing read); another expression
    with its column's name or, where only names are taken (`exprs` False), the
    column to add first.

    >>> import polars as pl
    >>> schema = pl.Schema({"race": pl.String, "sex": pl.String, "y": pl.Int64})
    >>> print(key_error(pl.all(), "by", schema))
    `by` must be a column name or a list of names, got the expression cs.all(), which selects 3 columns: ['race', 'sex', 'y']
    <BLANKLINE>
    Hint: pass the names of the key columns only, e.g. `by=['race', 'sex']`
    """
    if isinstance(value, pl.Expr) and value.meta.has_multiple_outputs():
        names: list[str] = []
        if schema is not None:
            try:
                names = pl.LazyFrame(schema=schema).select(value).collect_schema().names()
            except pl.exceptions.PolarsError:
                names = []
        shown = f"{names[:8]}"[:-1] + (", ...]" if len(names) > 8 else "]")
        selected = f"{len(names)} columns: {shown}" if names else "several columns"
        example = names[:2] if len(names) >= 2 else ["race", "sex"]
        msg = MSG_KEY_SELECTOR.format(
            param=param, takes=_takes(param), expr=value, selected=selected, example=example
        )
        return InvalidParameterError(msg)
    if isinstance(value, pl.Expr):
        name = value.meta.output_name(raise_if_undetermined=False) or "key"
        if value.meta.is_column():
            fix = f"pass the column's name, `{param}=[{name!r}]`"
        elif exprs:
            fix = f"give it one output name, e.g. `{param}=({value}).alias('{name}_key')`"
        else:
            fix = (
                f"add it as a column first, e.g. `.with_columns(({value}).alias('{name}_key'))`"
                f", and pass its name, `{param}=['{name}_key']`"
            )
        return InvalidParameterError(
            MSG_KEY_EXPR.format(param=param, takes=_takes(param), expr=value, fix=fix)
        )
    return InvalidParameterError(
        MSG_KEY_VALUE.format(param=param, takes=_takes(param), value=value)
    )


def check_key_exprs(param: str, items: Sequence[object], schema: pl.Schema | None = None) -> None:
    """Refuse key expressions that are not one named column each (a profile's `by`).

    A key given as an expression becomes a column named after its output: an
    expression with several outputs, or without a name of its own, cannot.
    """
    for item in items:
        if isinstance(item, pl.Expr) and (
            item.meta.has_multiple_outputs()
            or item.meta.output_name(raise_if_undetermined=False) is None
        ):
            raise key_error(item, param, schema, exprs=True)
        if isinstance(item, pl.Expr) and schema is not None:
            missing = [name for name in item.meta.root_names() if name not in schema]
            if missing:
                msg = (
                    f"`{param}` expression {item} reads column {missing[0]!r}, which is not in "
                    f"the frame; its columns are {schema.names()}\n\nHint: build the key from an "
                    "existing column, e.g. `pl.col('timestamp').dt.truncate('1w')`"
                )
                raise ColumnNotFoundError(msg)
