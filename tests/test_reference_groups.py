"""Reference-group selection rules: ties, None, and the null group."""

from __future__ import annotations

from typing import Any

import polars as pl
from polars.testing import assert_frame_equal

KW: dict[str, Any] = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


def _tied() -> pl.DataFrame:
    # groups b and c tie for the most rows (4); a has 2. First in key order is b.
    return pl.DataFrame(
        {
            "g": ["c"] * 4 + ["b"] * 4 + ["a"] * 2,
            "y": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
            "p": [1, 1, 1, 0, 1, 0, 0, 0, 1, 0],
        }
    )


def test_largest_tie_goes_to_first_group_in_key_order(run: Any) -> None:
    df = _tied()
    largest = run(df, "disparities", **KW, reference_group="largest")
    explicit = run(df, "disparities", **KW, reference_group="b")
    assert_frame_equal(largest, explicit)
    # criteria use the same rule: selection rates a 0.5, b 0.25, c 0.75 -> farthest from b is c
    got = run(
        df, "selection_rate_difference", y_pred="p", sensitive_features="g", method="to_reference"
    )
    assert got == 0.5


def test_none_reference_means_default(run: Any) -> None:
    df = _tied()
    assert_frame_equal(
        run(df, "disparities", **KW, reference_group=None),
        run(df, "disparities", **KW),
    )


def test_null_group_as_reference_via_tuple(run: Any) -> None:
    df = pl.DataFrame({"g": ["a", "a", None, None], "y": [1, 0, 1, 0], "p": [1, 1, 1, 0]})
    out = run(df, "disparities", **KW, reference_group=(None,), metrics=["selection_rate"])
    assert out["reference_value"].to_list() == [0.5, 0.5]
    assert out["difference"].to_list() == [0.5, 0.0]
    got = run(
        df,
        "selection_rate_difference",
        y_pred="p",
        sensitive_features="g",
        reference_group={"g": None},
    )
    assert got == 0.5
