"""Issue 14, class 3: parameter values against column dtypes, numpy scalars, pandas.

Mechanisms: ``_validate.check_reference_dtypes`` (called by ``require_reference``,
which every tuple reference goes through) compiles the comparison on an empty frame
of the column's dtype and turns Polars' refusal into a named error;
``_validate.as_python`` turns numpy scalars into their Python values in every
parameter check; ``_validate.frame_error`` names pandas; ``require_unshadowed``
refuses a policy name that is also a group of the data.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hardening_cases import TERMINAL, collect, frame, lazy_methods, method_kwargs
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair._validate import MSG_REFERENCE_SHADOWED
from polars_fair.exceptions import InvalidParameterError, ReferenceGroupError
from polars_fair.namespace import LazyFrameFairNamespace

KINDS = ("eager", "lazy", "streaming")
#: One method per path a tuple reference takes (rates, criteria, statistics,
#: summary, regression, ensemble, multiclass, scores).
REFERENCE_METHODS = (
    "disparities", "demographic_parity_difference", "equalized_odds_ratio", "cohen_d",
    "summary", "rmse_ratio", "regression_disparities", "label_stability_difference",
    "multiclass_disparities", "balance_for_positive_class_difference",
)  # fmt: skip


def _call(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect(getattr(target.fair, name)(**kw), kind, name)


def _with_groups(
    df: pl.DataFrame, a: Any, x: Any, dtype: pl.DataType | None = None
) -> pl.DataFrame:
    col = pl.when(pl.col("g") == "a").then(pl.lit(a, dtype=dtype)).otherwise(pl.lit(x, dtype=dtype))
    return df.with_columns(col.alias("g"))


MISMATCHES = [
    # (group a, group x, dtype, reference given, words the message must hold)
    ("a", "x", pl.String, 1, ["value 1 (int)", "dtype String", "reference_group='1'"]),
    (1, 2, pl.Int64, "1", ["value '1' (str)", "dtype Int64", "reference_group=1"]),
    (
        dt.datetime(2020, 1, 1), dt.datetime(2021, 1, 1), pl.Datetime("us", "UTC"),
        dt.datetime(2020, 1, 1), ["dtype Datetime", "timezone-aware (UTC)", "ZoneInfo('UTC')"],
    ),
    (
        dt.datetime(2020, 1, 1), dt.datetime(2021, 1, 1), pl.Datetime("us"),
        dt.datetime(2020, 1, 1, tzinfo=dt.UTC), ["dtype Datetime", "without `tzinfo`"],
    ),
    ("a", "x", pl.Categorical, 7, ["value 7 (int)", "dtype Categorical", "reference_group='7'"]),
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", REFERENCE_METHODS)
@pytest.mark.parametrize(("a", "x", "dtype", "ref", "words"), MISMATCHES)
def test_reference_of_the_wrong_type_is_named(
    kind: str, name: str, a: Any, x: Any, dtype: pl.DataType, ref: Any, words: list[str]
) -> None:
    df = _with_groups(frame(), a, x, dtype)
    with pytest.raises(InvalidParameterError) as info:
        _call(df, kind, name, **method_kwargs(name), reference_group=ref)
    text = str(info.value)
    assert "`reference_group`" in text
    assert "column 'g'" in text
    assert "\n\nHint: " in text
    for word in words:
        assert word in text


@pytest.mark.parametrize("kind", KINDS)
def test_matching_datetime_reference_works(kind: str) -> None:
    aware = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    df = _with_groups(frame(), aware, dt.datetime(2021, 1, 1, tzinfo=dt.UTC),
                      pl.Datetime("us", "UTC"))  # fmt: skip
    got = _call(df, kind, "demographic_parity_difference", y_pred="p", sensitive_features="g",
                reference_group=aware)  # fmt: skip
    sel = frame().group_by("g").agg(pl.col("p").mean()).sort("g")["p"].to_list()
    assert got == pytest.approx(sel[1] - sel[0], rel=1e-12)  # x minus the reference a


NUMPY_CASES = [
    ("by_group", {"pos_label": np.int64(1)}, {"pos_label": 1}),
    ("by_group", {"confidence_level": np.float32(0.9)}, {"confidence_level": float(np.float32(0.9))}),
    ("by_group", {"zero_division": np.float64(0.0)}, {"zero_division": 0.0}),
    ("disparities", {"reference_group": np.str_("x")}, {"reference_group": "x"}),
    ("summary", {"min_group_size": np.int64(5)}, {"min_group_size": 5}),
    ("generalized_entropy_index", {"alpha": np.float32(3.0)}, {"alpha": 3.0}),
    ("bootstrap", {"n_resamples": np.int64(20), "seed": np.int32(3)}, {"n_resamples": 20, "seed": 3}),
    ("ensemble_by_group", {"threshold": np.float64(0.4)}, {"threshold": 0.4}),
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "given", "plain"), NUMPY_CASES)
def test_numpy_scalars_are_their_python_values(
    kind: str, name: str, given: dict[str, Any], plain: dict[str, Any]
) -> None:
    df = frame()
    got = _call(df, kind, name, **{**method_kwargs(name), **given})
    expected = _call(df, kind, name, **{**method_kwargs(name), **plain})
    if isinstance(expected, pl.DataFrame):
        assert_frame_equal(got, expected)
    else:
        assert got == expected


@pytest.mark.parametrize("kind", KINDS)
def test_numpy_bool_pos_label_on_boolean_labels(kind: str) -> None:
    df = frame().with_columns(pl.col("y") == 1, pl.col("p") == 1)
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    got = _call(df, kind, "by_group", **kw, pos_label=np.bool_(True))
    assert_frame_equal(got, _call(df, kind, "by_group", **kw, pos_label=True))


def test_pandas_frame_names_pandas_and_the_fix() -> None:
    pd = pytest.importorskip("pandas")
    pdf = pd.DataFrame({"g": ["a", "b"], "p": [1, 0]})
    for call in (
        lambda: pf.fair(pdf),
        lambda: pf.group_stats(pdf, y_pred="p", sensitive_features="g"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert "got a pandas DataFrame" in str(info.value)
        assert "pl.from_pandas(df)" in str(info.value)


SHADOW_METHODS = ("disparities", "demographic_parity_difference", "rmse_ratio",
                  "regression_disparities", "label_stability_difference")  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", SHADOW_METHODS)
@pytest.mark.parametrize("policy", ["largest", "overall", "min", "rest"])
def test_group_named_like_a_policy_is_not_shadowed(kind: str, name: str, policy: str) -> None:
    df = _with_groups(frame(), policy, "x")
    kw = method_kwargs(name)
    if not name.endswith("disparities") and policy != "largest":
        # criteria accept only 'largest' as a policy: the others are refused already
        with pytest.raises(InvalidParameterError, match=re.escape(repr(policy))):
            _call(df, kind, name, **kw, reference_group=policy)
        return
    if "disparities" not in name and policy == "largest":
        kw["method"] = "to_reference"
    msg = MSG_REFERENCE_SHADOWED.format(value=policy, name="g")
    with pytest.raises(ReferenceGroupError, match=re.escape(msg)):
        _call(df, kind, name, **kw, reference_group=policy)
    # the group itself, given as a dict, is compared like any other group
    got = _call(df, kind, name, **kw, reference_group={"g": policy})
    renamed = _with_groups(frame(), "ref", "x")
    expected = _call(renamed, kind, name, **kw, reference_group="ref")
    if isinstance(expected, pl.DataFrame):
        expected = expected.with_columns(pl.col("g").replace("ref", policy))
        assert_frame_equal(got, expected, check_row_order=False, check_exact=False)
    else:
        assert got == pytest.approx(expected, rel=1e-12)


#: Every public method that takes `reference_group` (a new one is covered at once).
REFERENCE_GROUP_METHODS = [
    name
    for name in lazy_methods()
    if "reference_group" in inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
]


def test_every_reference_method_is_enumerated() -> None:
    # the families the shadow check used to miss are all in the enumeration
    for name in ("multiclass_disparities", "multiclass_criteria", "statistical_parity_quantile",
                 "zscore_difference", "abroca", "calibration_difference", "cohen_d",
                 "two_sd_rule", "four_fifths_rule", "summary", "tradeoffs", "bootstrap"):  # fmt: skip
        assert name in REFERENCE_GROUP_METHODS


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", REFERENCE_GROUP_METHODS)
def test_no_method_reads_a_real_group_as_the_policy(kind: str, name: str) -> None:
    # one function (metrics._reference.resolve_reference) interprets `reference_group`
    # for every method: a real group called 'largest' is never silently the policy
    df = _with_groups(frame(), "largest", "x")
    msg = MSG_REFERENCE_SHADOWED.format(value="largest", name="g")
    kw = {**method_kwargs(name), "reference_group": "largest"}
    with pytest.raises(ReferenceGroupError, match=re.escape(msg)):
        _call_any(df, kind, name, **kw)


def _call_any(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    """As :func:`_call`, also for the terminal methods (report)."""
    if name not in TERMINAL:
        return _call(df, kind, name, **kw)
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(target.fair, name)(**kw)


# ---- the same checks through the command line (real subprocess runs) ------------------


def _cli(cwd: Any, *args: str) -> Any:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]  # this checkout's package, not another
    env = {**__import__("os").environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "audit", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False, env=env,
    )  # fmt: skip


def _write(tmp_path: Any, dtype: pl.DataType) -> str:
    a, x = {
        pl.Int64: (1, 2),
        pl.Datetime("us", "UTC"): (dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
                                  dt.datetime(2021, 1, 1, tzinfo=dt.UTC)),
    }[dtype]  # fmt: skip
    path = tmp_path / "audit.parquet"
    _with_groups(frame(), a, x, dtype).write_parquet(path)
    return str(path)


@pytest.mark.parametrize(
    ("dtype", "given", "words"),
    [
        (pl.Int64, "one", ["value 'one' (str)", "dtype Int64", "the groups are numbers"]),
        (pl.Datetime("us", "UTC"), "banana", ["dtype Datetime", "timezone-aware (UTC)"]),
    ],
)
def test_cli_reference_group_of_the_wrong_type(
    tmp_path: Any, dtype: pl.DataType, given: str, words: list[str]
) -> None:
    path = _write(tmp_path, dtype)
    proc = _cli(tmp_path, path, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g",
                "--reference-group", given)  # fmt: skip
    assert proc.returncode == 2
    assert "`reference_group`" in proc.stderr
    assert "column 'g'" in proc.stderr
    for word in words:
        assert word in proc.stderr


@pytest.mark.parametrize(
    ("dtype", "given"), [(pl.Int64, "1"), (pl.Datetime("us", "UTC"), "2020-01-01")]
)
def test_cli_reference_group_is_read_as_the_column_type(
    tmp_path: Any, dtype: pl.DataType, given: str
) -> None:
    path = _write(tmp_path, dtype)
    proc = _cli(tmp_path, path, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g",
                "--reference-group", given, "--format", "json")  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr  # 1: a verdict gate, not an input error
    assert "polars-fair: error" not in proc.stderr
