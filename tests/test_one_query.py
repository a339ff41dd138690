"""An eager criterion on a small frame runs as one query (``Plan._collect_one``).

The one-query path must be indistinguishable from the two collects it replaces
(reduction, warnings, derivation over the collected table): the same value to the
bit, the same warnings in the same order (category, text and the user's line), the
same error. Each case runs both paths on the same frame and compares what they give.
"""

from __future__ import annotations

import contextlib
import dataclasses
import struct
import warnings
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.namespace._base import STUBS
from polars_fair.plans import _plan

# criteria of integer counts (with a score the sums are floats: not one query)
NAMES = [n for n in STUBS if n in CATALOGUE and "y_prob" not in CATALOGUE[n].inputs]
COLUMNS = {"y_true": "y_true", "y_pred": "y_pred"}


def _frames() -> dict[str, pl.DataFrame]:
    g = ["a", "b", "c", None, "a", "b", "c", "a", "b", "a", "c", "b"]
    base = pl.DataFrame(
        {
            "g": g,
            "h": ["x", "y"] * 6,
            "m": ["m1"] * 6 + ["m2"] * 6,
            "y_true": [1, 0, 1, 1, None, 0, 0, 1, 1, 0, 1, 0],
            "y_pred": [1, 1, 0, 1, 0, 0, 1, None, 1, 0, 1, 1],
        }
    )
    return {
        "nulls": base,
        "one_group": base.with_columns(pl.lit("a").alias("g")),
        "empty": base.clear(),
        "undefined": base.with_columns(pl.lit(0).alias("y_true")),
        "three_labels": base.with_columns(pl.col("y_pred").replace(0, 2)),
        "policy_name": base.with_columns(pl.col("g").replace("c", "largest")),
    }


PARAMS: list[dict[str, Any]] = [
    {},
    {"method": "to_overall"},
    {"reference_group": "a"},
    {"reference_group": "largest"},
    {"reference_group": "zz"},
    {"reference_group": 3},
    {"zero_division": 0.0},
    {"by": "m", "reference_group": "b"},
    {"sensitive_features": ["g", "h"]},
    {"method": "nope"},
]


@contextlib.contextmanager
def _two_collects() -> Iterator[None]:
    """Run every plan as before: the reduction collected, then the derivation."""
    collect = _plan.Plan.collect

    def two(self: _plan.Plan, engine: Any = "auto") -> Any:
        return collect(dataclasses.replace(self, one_query=False), engine)

    _plan.Plan.collect = two  # type: ignore[method-assign]
    try:
        yield
    finally:
        _plan.Plan.collect = collect  # type: ignore[method-assign]


def _outcome(df: pl.DataFrame, name: str, params: dict[str, Any]) -> Any:
    """What a call gives: its value (bits), or its error, and its warnings in order."""
    kwargs = {i: COLUMNS[i] for i in CATALOGUE[name].inputs}
    kwargs = {**kwargs, "sensitive_features": "g", **params}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = getattr(df.fair, name)(**kwargs)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            result: Any = ("error", type(exc), str(exc))
        else:
            if isinstance(value, pl.DataFrame):
                result = ("table", value.schema, value.rows())
            else:
                result = ("value", None if value is None else struct.pack("<d", value))
    shown = [(w.category, str(w.message), w.filename) for w in caught]
    return result, shown


def test_criteria_take_the_one_query_path() -> None:
    calls = []
    one = _plan.Plan._collect_one

    def spy(self: _plan.Plan) -> Any:
        calls.append(self)
        return one(self)

    _plan.Plan._collect_one = spy  # type: ignore[method-assign]
    try:
        _outcome(_frames()["nulls"], "demographic_parity_difference", {})
    finally:
        _plan.Plan._collect_one = one  # type: ignore[method-assign]
    assert len(calls) == 1


@pytest.mark.parametrize("frame", list(_frames()))
@pytest.mark.parametrize("name", NAMES)
def test_one_query_equals_two_collects(name: str, frame: str) -> None:
    df = _frames()[frame]
    for params in PARAMS:
        new = _outcome(df, name, params)
        with _two_collects():
            old = _outcome(df, name, params)
        assert new == old, (name, frame, params)
        assert all(w[2] == __file__ for w in new[1]), new[1]  # the user's line
