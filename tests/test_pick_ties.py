"""A summary names the same groups whatever the last bits of their float sums.

Group ``a``'s scores 0.15, 0.15 and group ``b``'s 0.1, 0.2 have the same mean, 0.15,
but their float sums differ in the last bit (0.3 against 0.30000000000000004), and
which one a sum gives depends on the order of summation: a profile merged from pieces
or a streaming run may give the other. Chosen by the exact floats, the pick named
``b`` as the top group here; to 12 significant digits the two tie, and a tie goes by
name (the first name at the top, the last at the bottom), so the rows, any profile and
any engine name the same pair, interval and verdict.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair as pf
from tests.conftest import Runner

SCORES = {"a": [0.15, 0.15], "b": [0.1, 0.2], "c": [0.05, 0.05]}


def _frame() -> pl.DataFrame:
    """The positives' scores of `SCORES`, and one negative per group (so every rate is
    defined; the balance for the positive class reads the positives only)."""
    positives = pl.DataFrame(
        {
            "g": [g for g, s in SCORES.items() for _ in s],
            "y": [1] * 6,
            "p": [1] * 6,
            "s": [x for s in SCORES.values() for x in s],
        }
    )
    negatives = pl.DataFrame({"g": list(SCORES), "y": [0] * 3, "p": [0] * 3, "s": [0.5] * 3})
    return pl.concat([positives, negatives]).sort("g", maintain_order=True)


def test_the_float_sums_differ() -> None:
    positives = _frame().filter(pl.col("y") == 1)
    sums = positives.group_by("g").agg(pl.col("s").sum()).sort("g")["s"].to_list()
    assert sums[0] != sums[1]  # 0.3 against 0.30000000000000004
    assert sums[0] == pytest.approx(sums[1], rel=1e-15)


@pytest.mark.parametrize(
    ("method", "reference", "named"),
    [("between_groups", None, ("a", "c")), ("to_reference", "c", ("a", "c"))],
)
def test_tied_means_are_named_by_name(
    run: Runner, method: str, reference: str | None, named: tuple[str, str]
) -> None:
    kw: dict[str, Any] = {
        "y_true": "y", "y_pred": "p", "y_prob": "s", "sensitive_features": "g",
        "min_group_size": 0, "method": method, "reference_group": reference,
        "criteria": ["balance_for_positive_class_difference"],
    }  # fmt: skip
    row = run(_frame(), "summary", **kw).row(0, named=True)
    assert (row["group"], row["compared_with"]) == named
    assert row["value"] == pytest.approx(0.1)


def test_a_profile_names_the_same_pair_as_the_rows() -> None:
    df = _frame()
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "p", "y_prob": "s", "sensitive_features": "g"}
    options: dict[str, Any] = {
        "min_group_size": 0, "criteria": ["balance_for_positive_class_difference"]
    }  # fmt: skip
    rows = df.fair.summary(**kw, **options)
    for pieces in ([df], [df.slice(0, 4), df.slice(4)], [df.slice(i, 1) for i in range(9)]):
        merged = pf.merge_profiles([p.fair.profile(**kw) for p in pieces]).summary(**options)
        assert merged.select("group", "compared_with", "verdict").equals(
            rows.select("group", "compared_with", "verdict")
        )


def test_a_tie_either_side_of_the_reference_names_the_value_s_group(run: Runner) -> None:
    # b selected at 0.2, c at 0.8, the reference a at 0.5: b and c are 0.3 away, but as
    # floats 0.5 - 0.2 = 0.3 and 0.8 - 0.5 = 0.30000000000000004. The value took c's
    # +0.3 by the exact floats while the pick, to 12 digits, named b and gave b's
    # interval [-0.42, -0.17], which did not hold the value. Both now take b, the first
    # by name
    df = pl.DataFrame({
        "g": ["a"] * 10 + ["b"] * 10 + ["c"] * 10,
        "y": [1, 0] * 15,
        "p": [1] * 5 + [0] * 5 + [1] * 2 + [0] * 8 + [1] * 8 + [0] * 2,
    })  # fmt: skip
    kw: dict[str, Any] = {"y_pred": "p", "sensitive_features": "g", "reference_group": "a"}
    value = run(df, "demographic_parity_difference", **kw)
    assert value == pytest.approx(-0.3)
    row = run(df, "summary", **kw, y_true="y", min_group_size=0,
              criteria=["demographic_parity_difference"]).row(0, named=True)  # fmt: skip
    assert row["value"] == pytest.approx(-0.3)
    assert row["group"] == "b"
    assert row["ci_low"] <= row["value"] <= row["ci_high"]
