"""Reference-group selection rules: ties, None, and the null group."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
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


@pytest.mark.parametrize("lazy", [False, True])
def test_summary_to_reference_defaults_to_the_largest_group_for_every_row(lazy: bool) -> None:
    """`method="to_reference"` without a reference: every row against the largest group.

    four_fifths_rule gave the between-groups min/max (1/3 here) while naming the pair
    against the largest group (a vs b, whose ratio is 1/2).
    """
    g = np.array(["a"] * 40 + ["b"] * 100 + ["c"] * 60)
    p = np.array([1] * 10 + [0] * 30 + [1] * 50 + [0] * 50 + [1] * 45 + [0] * 15)
    y = np.arange(g.size) % 2
    df = pl.DataFrame({"g": g, "p": p, "y": y})
    frame = df.lazy() if lazy else df
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "method": "to_reference"}
    names = ["four_fifths_rule", "disparate_impact_ratio", "demographic_parity_difference",
             "two_sd_rule", "cohen_d", "equal_opportunity_difference"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = frame.fair.summary(**kw, criteria=names)
        largest = frame.fair.summary(**kw, criteria=names, reference_group="b")
    if lazy:
        default, largest = default.collect(), largest.collect()
    assert default.get_column("value").to_list() == largest.get_column("value").to_list()
    assert default.get_column("compared_with").to_list() == ["b"] * len(names)
    rate = {k: p[g == k].mean() for k in ("a", "b", "c")}
    row = default.filter(pl.col("criterion") == "four_fifths_rule").row(0, named=True)
    assert row["group"] == "a"
    assert row["value"] == pytest.approx(rate["a"] / rate["b"], rel=1e-12)
