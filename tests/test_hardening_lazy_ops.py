"""Issue 14, class 2: every lazy result supports head/slice/filter/sort on both engines.

`lf.fair.summary(...).head(3).collect()` used to panic in Polars' streaming engine
(a slice pushed into a union whose parts share a cache). The tests enumerate every
public method of the LazyFrame namespace, so a new method is covered without edits.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import polars as pl
import pytest
from hardening_cases import TERMINAL, frame, lazy_methods, method_kwargs
from polars.testing import assert_frame_equal

from polars_fair._utils import stack

OPS: dict[str, Callable[[pl.LazyFrame | pl.DataFrame], pl.LazyFrame | pl.DataFrame]] = {
    "head": lambda t: t.head(3),
    "slice": lambda t: t.slice(1, 2),
    "filter": lambda t: t.filter(pl.first().is_not_null()),
    "sort": lambda t: t.sort(pl.first(), descending=True, nulls_last=True, maintain_order=True),
}

METHODS = [m for m in lazy_methods() if m not in TERMINAL]


def test_every_method_is_enumerated() -> None:
    # the enumeration sees the namespace's families, not a hand-kept list
    for name in ("summary", "by_group", "regression_by_group", "ensemble_stats", "abroca"):
        assert name in METHODS
    assert len(METHODS) > 100


@pytest.mark.parametrize("by", [None, "b"])
@pytest.mark.parametrize("name", METHODS)
def test_lazy_result_supports_row_operations(name: str, by: str | None) -> None:
    df = frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lf = getattr(df.lazy().fair, name)(**method_kwargs(name, by=by))
        assert isinstance(lf, pl.LazyFrame)
        full = lf.collect(engine="in-memory")
        for op in OPS.values():
            expected = op(full)
            assert isinstance(expected, pl.DataFrame)
            for engine in ("in-memory", "streaming"):
                got = op(lf).collect(engine=engine)  # type: ignore[union-attr]
                assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-9)


def test_summary_head_streaming_regression() -> None:
    # the reported crash, on the eager frame's lazy plan
    df = frame()
    lf = df.lazy().fair.summary(
        y_true="y", y_pred="p", sensitive_features="g", min_group_size=5,
        criteria=["accuracy_difference", "negative_predictive_value_difference"],
    )  # fmt: skip
    head = lf.head(1).collect(engine="streaming")
    assert head.get_column("criterion").to_list() == ["accuracy_difference"]


def test_stack_keeps_part_order_under_slice() -> None:
    base = pl.LazyFrame({"k": [2, 1], "v": [1.0, 2.0]}).cache()
    parts = [base.select("k", (pl.col("v") * i).alias("v")) for i in (1, 10)]
    out = stack(parts, ["k"])
    expected = pl.DataFrame({"k": [1, 1, 2, 2], "v": [2.0, 20.0, 1.0, 10.0]})
    for engine in ("in-memory", "streaming"):
        assert_frame_equal(out.collect(engine=engine), expected)
        assert_frame_equal(out.head(3).collect(engine=engine), expected.head(3))
