"""polars_fair: fairness audits of model predictions as Polars queries.

Importing the package registers the ``fair`` namespace on ``pl.DataFrame`` and
``pl.LazyFrame``::

    import polars as pl
    import polars_fair as pf

    df.fair.by_group(y_true="y", y_pred="p", sensitive_features="race")
    lf.fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="race")
    df.group_by("race").agg(pf.true_positive_rate("y", "p"))

Everything is derived from one lazy ``group_by`` pass that reduces the rows to a
small, additive statistics table (:meth:`~FairNamespace.group_stats`).
"""

from __future__ import annotations

from polars_fair import exceptions
from polars_fair.exceptions import (
    ColumnNotFoundError,
    EmptyDataError,
    FairError,
    FairWarning,
    InvalidParameterError,
    LabelError,
    NullDataWarning,
    ProfileError,
    ReferenceGroupError,
    UndefinedMetricWarning,
    ValueRangeError,
)
from polars_fair.expressions import (
    accuracy,
    balanced_accuracy,
    base_rate,
    error_rate,
    f1,
    false_discovery_rate,
    false_negative_rate,
    false_omission_rate,
    false_positive_rate,
    negative_predictive_value,
    positive_predictive_value,
    selection_rate,
    true_negative_rate,
    true_positive_rate,
)
from polars_fair.io.sources import scan_file
from polars_fair.metrics import RATES
from polars_fair.namespace import (
    DataFrameFairNamespace,
    FairNamespace,
    LazyFrameFairNamespace,
    fair,
)
from polars_fair.namespace._profile import (
    FairnessProfile,
    merge_profiles,
    profile,
    read_profile,
)
from polars_fair.namespace._report import (
    ReportSpec,
    derive_report,
    report_reductions,
    sum_reductions,
)
from polars_fair.reduce import group_stats, merge_group_stats
from polars_fair.report import FairnessReport

__version__ = "0.1.0"

__all__ = [
    "RATES",
    "ColumnNotFoundError",
    "DataFrameFairNamespace",
    "EmptyDataError",
    "FairError",
    "FairNamespace",
    "FairnessReport",
    "FairWarning",
    "FairnessProfile",
    "InvalidParameterError",
    "LabelError",
    "LazyFrameFairNamespace",
    "NullDataWarning",
    "ProfileError",
    "ReferenceGroupError",
    "ReportSpec",
    "UndefinedMetricWarning",
    "ValueRangeError",
    "__version__",
    "accuracy",
    "balanced_accuracy",
    "base_rate",
    "derive_report",
    "error_rate",
    "exceptions",
    "f1",
    "fair",
    "false_discovery_rate",
    "false_negative_rate",
    "false_omission_rate",
    "false_positive_rate",
    "group_stats",
    "merge_group_stats",
    "merge_profiles",
    "negative_predictive_value",
    "positive_predictive_value",
    "profile",
    "read_profile",
    "report_reductions",
    "scan_file",
    "selection_rate",
    "sum_reductions",
    "true_negative_rate",
    "true_positive_rate",
]
