"""Issue 14, class 1: a user's column name survives intact or gets a named error.

Key columns (`sensitive_features`, `by`) are carried into every result under their
own names; a key named like a column polars_fair adds used to be overwritten
silently (`selection_rate` in a lazy `by_group`, `rmse` in `regression_by_group`)
or end in Polars' `DuplicateError`. The mechanism is one check in
``_validate.check_keys``: per family of methods, the names its results can carry
(``OUTPUT_NAMES``) and the internal prefix ``__pf_`` are refused with a message that
names the column and the fix. The tests below enumerate every method, derive its
output columns from its plan's schema, and check that each one is refused as a key,
on eager, lazy and streaming frames.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import polars as pl
import pytest
from hardening_cases import (
    TERMINAL,
    all_options,
    collect,
    frame,
    lazy_methods,
    method_kwargs,
)
from polars.testing import assert_frame_equal, assert_series_equal

from polars_fair._validate import (
    INTERNAL_PREFIX,
    MSG_INTERNAL_NAME,
    MSG_MULTI_OUTPUT,
    MSG_RESERVED,
)
from polars_fair.exceptions import InvalidParameterError

KINDS = ("eager", "lazy", "streaming")
METHODS = [m for m in lazy_methods() if m not in TERMINAL]
#: Methods keyed by `candidates` (not `sensitive_features`), whose labels carry the
#: key names (``slice="g=a"``): tested apart, below.
CANDIDATE_KEYED = frozenset({"slices"})


def _outputs(name: str) -> set[str]:
    """Every column the method's plans can carry besides the keys (schema only)."""
    df = frame()
    names: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for by in (None, "b"):
            lf = getattr(df.lazy().fair, name)(**method_kwargs(name, by=by), **all_options(name))
            names |= set(lf.collect_schema().names())
    return names - {"g", "b"}


def _call(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect(getattr(target.fair, name)(**kw), kind, name)


def _key_frame(param: str, key: str) -> tuple[pl.DataFrame, dict[str, Any]]:
    """The audit frame with its `param` key column named `key`, and the call's keywords."""
    if param == "sensitive_features":
        return frame(group=key), {"sensitive_features": key}
    return frame(batch=key), {"by": key}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [m for m in METHODS if m not in CANDIDATE_KEYED])
def test_key_named_like_an_output_survives_or_is_refused(name: str, kind: str) -> None:
    """Rename invariance: naming a key like any output column changes nothing but that name.

    For every column the method's plans can output, a key (sensitive feature or batch
    key) of that name either gives an error naming the column and the fix, or the
    same result as a neutral name, with the key column renamed.
    """
    outputs = sorted(_outputs(name))
    assert outputs
    options = all_options(name)
    refused = 0
    for param, neutral_name in (("sensitive_features", "g"), ("by", "b")):
        df, keys = _key_frame(param, neutral_name)
        neutral = _call(df, kind, name, **{**method_kwargs(name), **options, **keys})
        for clash in outputs:
            df, keys = _key_frame(param, clash)
            kw = {**method_kwargs(name, group="g"), **options, **keys}
            try:
                got = _call(df, kind, name, **kw)
            except InvalidParameterError as exc:
                message = str(exc)
                refused += 1
            else:
                message = ""
            if message:
                assert message == MSG_RESERVED.format(name=clash, param=param)
                continue
            if isinstance(neutral, pl.DataFrame):
                expected = (
                    neutral.rename({neutral_name: clash})
                    if neutral_name in neutral.columns
                    else neutral
                )
                assert_frame_equal(got, expected, check_exact=False)
            else:
                assert got == neutral, (name, param, clash)
    assert refused  # at least the method's own output columns are refused as keys


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(CANDIDATE_KEYED))
def test_candidate_named_like_an_output_is_refused(name: str, kind: str) -> None:
    """`slices`: a candidate or batch key named like an output column, or internal, is refused."""
    outputs = sorted(_outputs(name) | {f"{INTERNAL_PREFIX}part"})
    for param in ("candidates", "by"):
        for clash in outputs:
            df = frame(group=clash) if param == "candidates" else frame(batch=clash)
            kw = {**method_kwargs(name, group="g"), **all_options(name)}
            kw["candidates"] = [clash] if param == "candidates" else ["g"]
            if param == "by":
                kw["by"] = clash
            with pytest.raises(InvalidParameterError, match=re.escape(repr(clash))):
                _call(df, kind, name, **kw)


CASES = [
    ("by_group", "selection_rate", "sensitive_features"),
    ("regression_by_group", "rmse", "sensitive_features"),
    ("regression_by_group", "mae", "sensitive_features"),
    ("regression_by_group", "mean_prediction", "sensitive_features"),
    ("regression_by_group", "correlation", "sensitive_features"),
    ("regression_stats", "sum_pred", "by"),
    ("calibration", "bin", "by"),
    ("threshold_sweep", "threshold", "by"),
    ("summary", "criterion", "by"),
    ("ensemble_by_group", "label_stability", "sensitive_features"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "clash", "param"), CASES)
def test_reported_clashes(name: str, clash: str, param: str, kind: str) -> None:
    df = frame(group=clash) if param == "sensitive_features" else frame(batch=clash)
    kw = method_kwargs(name, group=clash if param == "sensitive_features" else "g")
    if param == "by":
        kw["by"] = clash
    with pytest.raises(InvalidParameterError) as info:
        _call(df, kind, name, **kw)
    text = str(info.value)
    assert repr(clash) in text
    assert "clashes with an output column" in text
    assert "Hint: rename it first" in text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("param", ["sensitive_features", "by"])
def test_internal_prefix_is_refused(kind: str, param: str) -> None:
    name = f"{INTERNAL_PREFIX}rows"
    df = frame(group=name) if param == "sensitive_features" else frame(batch=name)
    kw = method_kwargs("by_group", group=name if param == "sensitive_features" else "g")
    if param == "by":
        kw["by"] = name
    msg = MSG_INTERNAL_NAME.format(name=name, param=param, prefix=INTERNAL_PREFIX, new="pf_rows")
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        _call(df, kind, "by_group", **kw)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("name", "param"),
    [("by_group", "y_pred"), ("by_group", "y_true"), ("regression_by_group", "y_pred")],
)
def test_multi_output_expression_is_refused(kind: str, name: str, param: str) -> None:
    kw = method_kwargs(name)
    kw[param] = pl.col("p", "y")
    msg = MSG_MULTI_OUTPUT.format(param=param, expr=pl.col("p", "y"))
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        _call(frame(), kind, name, **kw)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("name", "key"),
    [
        # names of another family's outputs are free: they survive intact
        ("by_group", "rmse"),
        ("by_group", "class"),
        ("regression_by_group", "selection_rate"),
        ("multiclass_by_group", "label_stability"),
        ("ensemble_by_group", "mean_prediction"),
    ],
)
def test_other_names_survive_intact(kind: str, name: str, key: str) -> None:
    df = frame(group=key)
    out = _call(df, kind, name, **method_kwargs(name, group=key))
    expected = pl.Series(key, sorted(set(df.get_column(key).to_list())))
    assert_series_equal(out.get_column(key).unique(maintain_order=True), expected)


@pytest.mark.parametrize("kind", KINDS)
def test_value_columns_may_use_output_names(kind: str) -> None:
    # labels, scores and weights are read through internal aliases: any name works
    df = frame().rename({"y": "n", "p": "tp", "w": "fp"})
    out = _call(df, kind, "by_group", y_true="n", y_pred="tp", sensitive_features="g",
                sample_weight="fp")  # fmt: skip
    ref = _call(frame(), kind, "by_group", y_true="y", y_pred="p", sensitive_features="g",
                sample_weight="w")  # fmt: skip
    assert_frame_equal(out, ref, check_exact=False)  # sums in another order
