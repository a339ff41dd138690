"""The `fair` namespace: registration, return types, purity and laziness (DESIGN.md 1-2).

* Importing polars_fair registers ``fair`` on DataFrame and LazyFrame, and
  ``polars_fair.fair(frame)`` returns the same namespace types.
* A method's return type depends on the method and the frame kind only.
* The user's frame is never modified.
* ``lf.fair.*`` never collects: the plans are built on an IO source that records
  every read, and nothing is read until ``collect``; then the source is read once.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from polars.io.plugins import register_io_source
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import DataFrameFairNamespace, LazyFrameFairNamespace
from polars_fair._validate import MSG_FRAME
from polars_fair.exceptions import DegenerateDataWarning, InvalidParameterError
from polars_fair.namespace._ensemble import EnsembleMethods
from polars_fair.namespace._quantiles import QuantileMethods
from polars_fair.namespace._regression import RegressionMethods

TABLES = (
    "group_stats", "by_group", "disparities", "calibration", "expected_calibration_error",
    "roc_curve", "roc_auc", "threshold_sweep", "summary", "bootstrap", "bootstrap_replicates",
    "tradeoffs", "regression_stats", "regression_by_group", "regression_disparities",
    "ensemble_stats", "ensemble_by_group", "ensemble_disparities", "multiclass_group_stats",
    "multiclass_by_group", "multiclass_disparities", "multiclass_criteria", "multiclass_summary",
    "slices",
)  # fmt: skip
#: methods of the regression and ensemble mixins (continuous predictions, members)
REGRESSION = frozenset(
    n for cls in (RegressionMethods, QuantileMethods) for n in vars(cls) if not n.startswith("_")
)
ENSEMBLE = frozenset(n for n in vars(EnsembleMethods) if not n.startswith("_"))
#: methods that take no weights: the counts bootstrap, and the criteria at prediction
#: quantiles (their thresholds are unweighted quantiles; see docs/metrics/regression.md)
QUANTILE = frozenset(
    {"disparate_impact_quantile", "statistical_parity_quantile", "max_statistical_parity",
     "statistical_parity_auc", "no_disparate_impact_level"}
)  # fmt: skip
UNWEIGHTED = QUANTILE | {"bootstrap", "bootstrap_replicates"}
#: two ensemble members built from the score (probabilities in [0, 1])
MEMBERS = [pl.col("score"), (pl.col("w") / 3).alias("s2")]
#: terminal methods (collect by design, DESIGN.md section 1); none exist yet
TERMINAL = frozenset({"report", "profile"})
PUBLIC = sorted(
    name
    for name, _ in inspect.getmembers(LazyFrameFairNamespace, inspect.isfunction)
    if not name.startswith("_") and name not in TERMINAL
)
CRITERIA = [name for name in PUBLIC if name not in TABLES]

SCHEMA = {
    "model": pl.String,
    "group": pl.String,
    "sex": pl.String,
    "y_true": pl.Int64,
    "y_pred": pl.Int64,
    "score": pl.Float64,
    "w": pl.Float64,
}


def _frame() -> pl.DataFrame:
    """Two models x three groups x two sexes; every rate defined in every cell.

    Each (group, sex) cell holds one row of each confusion cell (tp, fn, fp, tn),
    plus group-specific extra rows so the groups' rates differ. No warnings.
    """
    cells = [(1, 1), (1, 0), (0, 1), (0, 0)]
    extra = {"a": [(1, 1), (1, 1), (0, 0)], "b": [(0, 1), (1, 0)], "c": [(0, 0)] * 4}
    rows = []
    for model in ("m1", "m2"):
        for group in ("a", "b", "c"):
            for sex in ("F", "M"):
                more = extra[group] if (sex == "F") == (model == "m1") else extra[group][:1]
                for y_true, y_pred in [*cells, *more]:
                    rows.append((model, group, sex, y_true, y_pred))
    df = pl.DataFrame(rows, schema=["model", "group", "sex", "y_true", "y_pred"], orient="row")
    return df.with_columns(
        score=pl.col("y_pred") * 0.6 + 0.2,
        w=pl.int_range(pl.len()).cast(pl.Float64) % 3 + 0.5,
    ).select(list(SCHEMA))


@pytest.fixture
def df() -> pl.DataFrame:
    return _frame()


def _kwargs(name: str, /, **extra: Any) -> dict[str, Any]:
    """Arguments for public method `name`: the labels it takes, plus `extra`."""
    params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
    kw: dict[str, Any] = {"sensitive_features": "group"}
    if "y_true" in params:
        kw["y_true"] = "y_true"
    if "y_pred" in params:
        kw["y_pred"] = "y_pred"
    if "y_prob" in params and params["y_prob"].default is inspect.Parameter.empty:
        kw["y_prob"] = MEMBERS if name in ENSEMBLE else "score"
    if name in ENSEMBLE:
        kw.pop("y_true", None)
    kw.update(extra)
    if name in REGRESSION and isinstance(kw.get("y_pred"), pl.Expr):
        # a regression audit takes a numeric prediction, not a thresholded label
        kw["y_pred"] = pl.col("score") * 2.0
    if name.startswith("multiclass") and isinstance(kw.get("y_pred"), pl.Expr):
        # class labels of the same dtype as y_true
        kw["y_pred"] = (pl.col("score") >= 0.5).cast(pl.Int64)
    if name == "slices":  # slices take candidate attributes, not groups
        groups = kw.pop("sensitive_features")
        kw["candidates"] = [groups] if isinstance(groups, str) else list(groups)
        kw["min_size"] = 0  # the small frame: test every slice (none tested warns)
    return kw


# ---- registration --------------------------------------------------------------


def test_namespace_is_registered() -> None:
    assert hasattr(pl.DataFrame, "fair")
    assert hasattr(pl.LazyFrame, "fair")
    assert pl.DataFrame.fair is DataFrameFairNamespace
    assert pl.LazyFrame.fair is LazyFrameFairNamespace


def test_namespace_instances(df: pl.DataFrame) -> None:
    assert isinstance(df.fair, DataFrameFairNamespace)
    assert isinstance(df.lazy().fair, LazyFrameFairNamespace)
    assert isinstance(df.fair, polars_fair.FairNamespace)


def test_typed_entry_point(df: pl.DataFrame) -> None:
    assert type(polars_fair.fair(df)) is DataFrameFairNamespace
    assert type(polars_fair.fair(df.lazy())) is LazyFrameFairNamespace
    kw = _kwargs("equalized_odds_difference")
    assert polars_fair.fair(df).equalized_odds_difference(
        **kw
    ) == df.fair.equalized_odds_difference(**kw)


@pytest.mark.parametrize("bad", [{"a": [1]}, [1, 2], None, pl.Series([1])])
def test_typed_entry_point_rejects_other_objects(bad: Any) -> None:
    msg = MSG_FRAME.format(type_name=type(bad).__name__)
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        polars_fair.fair(bad)


def test_every_public_method_is_on_both_namespaces() -> None:
    for name in PUBLIC:
        assert callable(getattr(DataFrameFairNamespace, name)), name
    # a few fixed names of DESIGN.md section 2 and 4
    for name in (
        "group_stats",
        "by_group",
        "disparities",
        "demographic_parity_difference",
        "demographic_parity_ratio",
        "statistical_parity_difference",
        "disparate_impact_ratio",
        "equal_opportunity_difference",
        "equalized_odds_difference",
        "equalized_odds_ratio",
        "predictive_equality_ratio",
        "average_odds_difference",
        "average_abs_odds_difference",
    ):
        assert name in PUBLIC, name


@pytest.mark.parametrize("method", PUBLIC)
def test_parameters_are_keyword_only(method: str) -> None:
    params = list(inspect.signature(getattr(LazyFrameFairNamespace, method)).parameters.values())
    assert params[0].name == "self"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), method


# ---- return types --------------------------------------------------------------


@pytest.mark.parametrize("method", TABLES)
def test_tables_return_frames(df: pl.DataFrame, method: str) -> None:
    kw = _kwargs(method)
    assert isinstance(getattr(df.fair, method)(**kw), pl.DataFrame)
    assert isinstance(getattr(df.fair, method)(**kw, by="model"), pl.DataFrame)
    lazy = getattr(df.lazy().fair, method)(**kw)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), getattr(df.fair, method)(**kw))


@pytest.mark.parametrize("method", CRITERIA)
def test_criterion_on_dataframe_without_by_is_a_float(df: pl.DataFrame, method: str) -> None:
    out = getattr(df.fair, method)(**_kwargs(method))
    assert type(out) is float


@pytest.mark.parametrize("method", CRITERIA)
def test_criterion_on_dataframe_with_by_is_a_frame(df: pl.DataFrame, method: str) -> None:
    out = getattr(df.fair, method)(**_kwargs(method, by="model"))
    assert isinstance(out, pl.DataFrame)
    assert out.columns == ["model", method]
    assert out.schema[method] == pl.Float64
    assert out.get_column("model").to_list() == ["m1", "m2"]
    for model in ("m1", "m2"):
        alone = getattr(df.filter(pl.col("model") == model).fair, method)(**_kwargs(method))
        got = out.filter(pl.col("model") == model).item(0, method)
        assert got == pytest.approx(alone, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("method", CRITERIA)
def test_criterion_on_lazyframe_is_a_lazyframe(df: pl.DataFrame, method: str) -> None:
    kw = _kwargs(method)
    out = getattr(df.lazy().fair, method)(**kw)
    assert isinstance(out, pl.LazyFrame)
    collected = out.collect()
    assert collected.shape == (1, 1)
    assert collected.columns == [method]
    assert collected.item() == pytest.approx(getattr(df.fair, method)(**kw), rel=1e-12, abs=1e-15)
    by = getattr(df.lazy().fair, method)(**kw, by="model")
    assert isinstance(by, pl.LazyFrame)
    assert by.collect_schema().names() == ["model", method]


def test_undefined_criterion_is_none_not_nan(df: pl.DataFrame) -> None:
    """The return type does not change with the data: an undefined value is None."""
    one_group = df.filter(pl.col("group") == "a")
    # only one group: no comparison is defined for to_reference against itself (and the
    # eager path says so, issue 14)
    with pytest.warns(DegenerateDataWarning, match="only one group"):
        out = one_group.fair.equal_opportunity_difference(
            y_true="y_true", y_pred="y_pred", sensitive_features="group", reference_group="a"
        )
    assert out is None


# ---- the user's frame is never modified ------------------------------------------


@pytest.mark.parametrize("method", PUBLIC)
def test_dataframe_is_not_modified(df: pl.DataFrame, method: str) -> None:
    before = df.clone()
    if method.startswith("bootstrap"):  # counts bootstrap: unweighted by definition
        getattr(df.fair, method)(**_kwargs(method, n_resamples=20))
    elif method in QUANTILE:
        getattr(df.fair, method)(**_kwargs(method))
    else:
        getattr(df.fair, method)(**_kwargs(method, sample_weight="w"))
    getattr(df.fair, method)(**_kwargs(method, by="model", sensitive_features=["group", "sex"]))
    if "y_pred" in _kwargs(method):
        getattr(df.fair, method)(**_kwargs(method, y_pred=pl.col("score") >= 0.5))
    assert_frame_equal(df, before, check_exact=True)
    assert df.columns == before.columns
    assert df.schema == before.schema


@pytest.mark.parametrize("method", PUBLIC)
def test_lazyframe_is_not_modified(df: pl.DataFrame, method: str) -> None:
    lf = df.lazy()
    plan = lf.explain(optimized=False)
    weight = {} if method in UNWEIGHTED else {"sample_weight": "w"}
    getattr(lf.fair, method)(**_kwargs(method, by="model", **weight)).collect()
    assert lf.explain(optimized=False) == plan
    assert lf.collect_schema() == pl.Schema(SCHEMA)
    assert_frame_equal(lf.collect(), df, check_exact=True)


# ---- laziness: an IO source that records every read -------------------------------


class RecordingSource:
    """An IO-plugin source over `data` that counts the reads (and can forbid them)."""

    def __init__(self, data: pl.DataFrame, *, forbid: bool = False) -> None:
        self.data = data
        self.forbid = forbid
        self.calls = 0

    def lazy(self) -> pl.LazyFrame:
        return register_io_source(self._read, schema=self.data.schema)

    def _read(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        self.calls += 1
        if self.forbid:
            msg = "the data source was read while building a lazy plan"
            raise AssertionError(msg)
        out = self.data
        if with_columns is not None:
            out = out.select(with_columns)
        if predicate is not None:
            out = out.filter(predicate)
        if n_rows is not None:
            out = out.head(n_rows)
        yield out


def test_recording_source_counts_reads(df: pl.DataFrame) -> None:
    """Sanity check of the instrument: one collect, one read."""
    source = RecordingSource(df)
    assert_frame_equal(source.lazy().collect(), df)
    assert source.calls == 1
    forbidden = RecordingSource(df, forbid=True)
    with pytest.raises(Exception, match="read while building a lazy plan"):
        forbidden.lazy().fair.group_stats(**_kwargs("group_stats")).collect()
    assert forbidden.calls == 1


PLAN_VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "by": {"by": "model"},
    "weighted": {"sample_weight": "w"},
    "intersectional": {"sensitive_features": ["group", "sex"]},
    "expr": {"y_pred": pl.col("score") >= 0.5},
}


@pytest.mark.parametrize("variant", list(PLAN_VARIANTS))
@pytest.mark.parametrize("method", PUBLIC)
def test_lazy_method_never_reads(df: pl.DataFrame, method: str, variant: str) -> None:
    source = RecordingSource(df, forbid=True)
    lf = source.lazy()
    extra = dict(PLAN_VARIANTS[variant])
    if "y_pred" in extra and "y_pred" not in _kwargs(method):
        extra.pop("y_pred")
    if method in UNWEIGHTED and variant == "weighted":
        pytest.skip("takes no weights (the counts bootstrap; quantile thresholds)")
    out = getattr(lf.fair, method)(**_kwargs(method, **extra))
    assert isinstance(out, pl.LazyFrame)
    out.collect_schema()
    out.explain()
    assert source.calls == 0


@pytest.mark.parametrize("method", CRITERIA)
def test_lazy_criterion_with_reference_never_reads(df: pl.DataFrame, method: str) -> None:
    if (
        "reference_group"
        not in inspect.signature(getattr(LazyFrameFairNamespace, method)).parameters
    ):
        pytest.skip("population index: no reference group")
    source = RecordingSource(df, forbid=True)
    kw = _kwargs(method, reference_group="b")
    out = getattr(source.lazy().fair, method)(**kw)
    assert isinstance(out, pl.LazyFrame)
    assert source.calls == 0


@pytest.mark.parametrize("reference", ["b", "largest", "min", "overall", "rest"])
def test_lazy_disparities_with_reference_never_reads(df: pl.DataFrame, reference: str) -> None:
    source = RecordingSource(df, forbid=True)
    out = source.lazy().fair.disparities(**_kwargs("disparities", reference_group=reference))
    assert isinstance(out, pl.LazyFrame)
    assert source.calls == 0


ONE_SCAN = [
    ("group_stats", {}),
    ("by_group", {}),
    ("by_group", {"by": "model", "sample_weight": "w"}),
    ("disparities", {}),
    ("disparities", {"reference_group": "b", "by": "model"}),
    ("disparities", {"reference_group": "rest"}),
    ("equalized_odds_difference", {}),
    ("equalized_odds_ratio", {"method": "to_overall", "agg": "mean"}),
    ("average_odds_difference", {"reference_group": "b"}),
    ("demographic_parity_ratio", {"by": "model"}),
    ("treatment_equality_difference", {"sensitive_features": ["group", "sex"]}),
    ("abroca", {"by": "model"}),
    ("calibration_difference", {"reference_group": "b"}),
    ("roc_curve", {}),
    ("threshold_sweep", {"by": "model"}),
    ("by_group", {"y_prob": "score", "confidence_level": 0.9, "min_group_size": 3}),
    ("summary", {}),
    ("summary", {"by": "model", "reference_group": "b", "y_prob": "score"}),
    ("bootstrap", {"by": "model", "n_resamples": 50}),
    ("tradeoffs", {"reference_group": "b"}),
    ("regression_by_group", {"by": "model", "sample_weight": "w"}),
    ("regression_disparities", {"reference_group": "rest"}),
    ("zscore_difference", {"reference_group": "b"}),
    ("ensemble_by_group", {"by": "model", "sample_weight": "w"}),
    ("ensemble_disparities", {"reference_group": "overall"}),
    ("epistemic_uncertainty_difference", {"reference_group": "b"}),
    ("disparate_impact_quantile", {"by": "model"}),
    ("statistical_parity_auc", {"by": "model", "method": "to_reference"}),
    ("no_disparate_impact_level", {}),
    ("multiclass_by_group", {"by": "model"}),
    ("multiclass_summary", {"reference_group": "b"}),
]


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
@pytest.mark.parametrize(
    ("method", "extra"), ONE_SCAN, ids=[f"{m}-{'-'.join(e) or 'plain'}" for m, e in ONE_SCAN]
)
def test_collect_scans_the_source_once(
    df: pl.DataFrame, method: str, extra: dict[str, Any], engine: str
) -> None:
    source = RecordingSource(df)
    plan = getattr(source.lazy().fair, method)(**_kwargs(method, **extra))
    assert source.calls == 0
    result = plan.collect(engine=engine)
    assert source.calls == 1
    expected = getattr(df.lazy().fair, method)(**_kwargs(method, **extra)).collect(engine=engine)
    assert_frame_equal(result, expected)


def test_every_criterion_scans_once(df: pl.DataFrame) -> None:
    for method in CRITERIA:
        source = RecordingSource(df)
        getattr(source.lazy().fair, method)(**_kwargs(method)).collect()
        assert source.calls == 1, method


@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("disparate_impact_quantile", {"by": "model"}),
        ("statistical_parity_quantile", {}),
        ("max_statistical_parity", {"method": "to_reference"}),
        ("statistical_parity_auc", {"by": "model"}),
        ("no_disparate_impact_level", {}),
    ],
)
def test_quantile_criteria_scan_parquet_once(
    df: pl.DataFrame, method: str, extra: dict[str, Any], tmp_path: Any
) -> None:
    """The quantile needs the sorted predictions before any row can be matched: the
    sorted rows are used twice, and cached, so a Parquet source is scanned once."""
    path = tmp_path / "data.parquet"
    df.write_parquet(path)
    plan = getattr(pl.scan_parquet(path).fair, method)(**_kwargs(method, **extra))
    assert plan.explain().count("Parquet SCAN") == 1
    assert_frame_equal(
        plan.collect(), getattr(df.lazy().fair, method)(**_kwargs(method, **extra)).collect()
    )
