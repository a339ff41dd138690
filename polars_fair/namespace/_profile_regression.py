"""Regression profiles: the regression sums of an audit, reduced once, kept, merged.

``df.fair.profile(..., task="regression")`` reduces continuous predictions (and their
true values) once to the regression statistics table of
:func:`~polars_fair.reduce.regression.regression_stats`, per batch key and group:
``n`` (row count, or weight total), ``n_null`` and the sums of the prediction, the
truth, their squares and product, and the absolute and squared errors, with the sum
of squared weights (``sum_w2``) when weighted (the Kish sizes of the slice tests).
Every column is a sum, so the table of a union of pieces is the sum of the pieces'
tables: profiles merge (``a + b``, ``merge_profiles``, ``read_profile`` of a glob)
exactly as classification profiles do, and every measure derived from the sums
(means, spreads, RMSE, MAE, correlation, the z-score difference) derives from the
profile without the rows.

What needs the rows: the quantile criteria (``disparate_impact_quantile``,
``statistical_parity_quantile``, ``max_statistical_parity``,
``statistical_parity_auc``, ``no_disparate_impact_level``) compare success rates at
quantiles of the predictions, and a quantile is not a sum. Regression criteria have
no interval or verdict in polars_fair, so a regression profile has no report,
summary, comparison or trend: it offers the regression tables, criteria and slices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._utils import as_names, with_example
from polars_fair.exceptions import InvalidParameterError
from polars_fair.namespace._profile_derive import profile_table
from polars_fair.namespace._profile_files import REGRESSION_FORMAT_VERSION
from polars_fair.namespace._report_checks import reading_input
from polars_fair.plans._profile_meta import (
    REGRESSION,
    TASKS,
    encode_column,
    new_meta,
    task_of,
    with_batch_keys,
)
from polars_fair.reduce.regression import regression_stats

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns
    from polars_fair.namespace._profile import FairnessProfile

__all__ = ["RegressionProfileMethods", "check_task", "regression_profile"]

#: The name of a regression profile's one table.
TABLE = "regression"


def check_task(task: object) -> str:
    """`task` checked: ``"classification"`` or ``"regression"``."""
    if isinstance(task, str) and task in TASKS:
        return task
    msg = (
        f'`task` must be one of {list(TASKS)}, got {task!r}\n\nHint: `task="regression"` '
        "profiles continuous predictions (the regression sums)"
    )
    raise InvalidParameterError(msg)


#: The options of a classification profile, and their defaults.
_CLASSIFICATION_OPTIONS = {
    "y_prob": None, "pos_label": 1, "n_bins": 10, "score_bins": 1000, "exact_scores": False,
}  # fmt: skip


def _refuse_classification_options(given: dict[str, object]) -> None:
    """Refuse the options of a classification profile given other than their defaults."""
    set_ = sorted(
        k for k, default in _CLASSIFICATION_OPTIONS.items()
        if type(given[k]) is not type(default) or given[k] != default
    )  # fmt: skip
    if set_:
        msg = (
            f"{set_} are options of a classification profile (labels, scores and their "
            f"bins); a regression profile keeps the regression sums of `y_pred` and `y_true`"
            f"\n\nHint: drop {', '.join(f'`{k}`' for k in set_)}, or profile a classifier "
            'with `task="classification"`'
        )
        raise InvalidParameterError(msg)


def regression_profile(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    sensitive_features: IntoColumns,
    by: IntoColumns | pl.Expr | Sequence[str | pl.Expr] | None,
    sample_weight: IntoColumn | None,
    task: object,
    **classification_options: object,
) -> tuple[dict[str, pl.DataFrame], dict[str, Any]]:
    """The tables and metadata of the regression profile of `frame` (one read).

    `task` must be ``"regression"``; the `classification_options` (``y_prob``,
    ``pos_label``, bins, ``exact_scores``) are refused unless left at their defaults.
    """
    check_task(task)
    _refuse_classification_options(classification_options)
    sensitive = as_names(sensitive_features)
    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    lf, items, by_names = with_batch_keys(frame, by, {**columns, "sensitive_features": sensitive})
    weighted = sample_weight is not None
    source = lf.cache() if weighted else lf  # weighted: the rows are counted from one read
    plan = regression_stats(
        source, y_pred=y_pred, y_true=y_true, sensitive_features=sensitive,
        by=by_names or None, sample_weight=sample_weight, weight_squares=True,
    )  # fmt: skip
    counted = [source.select(pl.len().cast(pl.Int64).alias("rows"))] if weighted else []
    collected = reading_input(frame, lambda: pl.collect_all([plan, *counted]))
    spec = {
        "sensitive_features": sensitive, "by": by_names, "pos_label": None, "n_bins": None,
        **{k: encode_column(v) for k, v in columns.items()}, "y_prob": None,
        "score_bins": None, "by_items": [encode_column(b) for b in items], "task": REGRESSION,
    }  # fmt: skip
    table = collected[0]
    meta = new_meta(
        lf, {TABLE: table}, version=REGRESSION_FORMAT_VERSION, spec=spec,
        columns=list(columns.values()), score_bins=None,
        rows=int(collected[1].item()) if weighted else None,
    )  # fmt: skip
    return {TABLE: table}, meta


_example = with_example("""
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame({"group": ["a"] * 4 + ["b"] * 4,
    ...                    "pred": [3.0, 5.0, 4.0, 8.0, 2.0, 4.0, 1.0, 3.0],
    ...                    "y": [2.0, 6.0, 4.0, 7.0, 3.0, 3.0, 2.0, 5.0]})
    >>> kw = dict(y_pred="pred", y_true="y", sensitive_features="group")
    >>> prof = df.fair.profile(**kw, task="regression")""")  # fmt: skip


class RegressionProfileMethods:
    """The regression tables of a regression profile (mixed into ``FairnessProfile``)."""

    @property
    def task(self) -> str:
        """``"classification"`` or ``"regression"``: what the profile summarises."""
        return task_of(self._profile.meta)

    @_example
    def regression_stats(self, **options: Any) -> pl.DataFrame:
        """``df.fair.regression_stats(**options)`` on the rows, from a regression profile.

        Examples
        --------
        >>> DATA
        >>> prof.regression_stats().equals(df.fair.regression_stats(**kw))
        True
        """
        return profile_table(self._profile, "regression_stats", options)

    @_example
    def regression_by_group(self, **options: Any) -> pl.DataFrame:
        """``df.fair.regression_by_group(**options)`` on the rows, from a regression profile.

        Examples
        --------
        >>> DATA
        >>> prof.regression_by_group()["mae"].to_list()
        [0.75, 1.25]
        """
        return profile_table(self._profile, "regression_by_group", options)

    @_example
    def regression_disparities(self, **options: Any) -> pl.DataFrame:
        """``df.fair.regression_disparities(**options)`` on the rows, from a regression profile.

        Examples
        --------
        >>> DATA
        >>> prof.regression_disparities(reference_group="a", metrics=["rmse"])[
        ...     "ratio"].round(4).to_list()
        [1.0, 1.5275]
        """
        return profile_table(self._profile, "regression_disparities", options)

    @property
    def _profile(self) -> FairnessProfile:
        return self  # type: ignore[return-value]  # mixed into FairnessProfile only
