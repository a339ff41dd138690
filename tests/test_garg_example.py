"""The worked example of Garg, Villasenor and Foggo (2020), Table 1.

Two groups, 100 people, counts given explicitly:

=========  ====  ====  ====  ====
group       TP    FN    TN    FP
=========  ====  ====  ====  ====
orange      28    12    12     8
blue         8    12    16     4
=========  ====  ====  ====  ====

TPR = 0.7 / 0.4; FPR = 8/20 = 0.4 (orange) and 4/20 = 0.2 (blue) -- the paper's
text swaps the two FPRs, the counts (and these tests) are right; selection rates
36/60 = 0.6 and 12/40 = 0.3; PPV 28/36 and 8/12. Every number below is derived
by hand from the counts, and checked on the eager, lazy and streaming engines.
"""

from __future__ import annotations

from fractions import Fraction as Fr
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

COUNTS = {  # group: (tp, fn, tn, fp)
    "orange": (28, 12, 12, 8),
    "blue": (8, 12, 16, 4),
}
LABELS = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "group"}


def _rows() -> pl.DataFrame:
    groups, y_true, y_pred = [], [], []
    for group, (tp, fn, tn, fp) in COUNTS.items():
        for yt, yp, k in ((1, 1, tp), (1, 0, fn), (0, 0, tn), (0, 1, fp)):
            groups += [group] * k
            y_true += [yt] * k
            y_pred += [yp] * k
    df = pl.DataFrame({"group": groups, "y_true": y_true, "y_pred": y_pred})
    # shuffled so nothing depends on the order of the rows
    order = np.random.default_rng(0).permutation(df.height)
    return df[order]


@pytest.fixture(scope="module")
def garg() -> pl.DataFrame:
    df = _rows()
    assert df.height == 100
    return df


def _approx(x: Fr | float) -> Any:
    return pytest.approx(float(x), abs=1e-15, rel=1e-15)


def test_group_stats_counts(run: Any, garg: pl.DataFrame) -> None:
    got = run(garg, "group_stats", **LABELS)
    expected = pl.DataFrame(
        {
            "group": ["blue", "orange"],  # sorted by key
            "n": [40, 60],
            "tp": [8, 28],
            "fp": [4, 8],
            "fn": [12, 12],
            "tn": [16, 12],
            "n_null": [0, 0],
        },
        schema_overrides={c: pl.Int64 for c in ("n", "tp", "fp", "fn", "tn", "n_null")},
    )
    assert_frame_equal(got, expected, check_exact=True)


# rate -> (blue, orange), exact fractions from the counts
RATES = {
    "selection_rate": (Fr(12, 40), Fr(36, 60)),
    "base_rate": (Fr(20, 40), Fr(40, 60)),
    "true_positive_rate": (Fr(8, 20), Fr(28, 40)),
    "false_negative_rate": (Fr(12, 20), Fr(12, 40)),
    "false_positive_rate": (Fr(4, 20), Fr(8, 20)),
    "true_negative_rate": (Fr(16, 20), Fr(12, 20)),
    "positive_predictive_value": (Fr(8, 12), Fr(28, 36)),
    "negative_predictive_value": (Fr(16, 28), Fr(12, 24)),
    "false_discovery_rate": (Fr(4, 12), Fr(8, 36)),
    "false_omission_rate": (Fr(12, 28), Fr(12, 24)),
    "accuracy": (Fr(24, 40), Fr(40, 60)),
    "error_rate": (Fr(16, 40), Fr(20, 60)),
    "predicted_positive_share": (Fr(12, 48), Fr(36, 48)),
    "f1": (Fr(16, 16 + 4 + 12), Fr(56, 56 + 8 + 12)),
    "balanced_accuracy": ((Fr(8, 20) + Fr(16, 20)) / 2, (Fr(28, 40) + Fr(12, 20)) / 2),
}


def test_the_paper_numbers(run: Any, garg: pl.DataFrame) -> None:
    """The headline numbers of the example, in the paper's terms."""
    t = run(garg, "by_group", **LABELS)
    row = {g: i for i, g in enumerate(t.get_column("group").to_list())}
    assert t.item(row["orange"], "true_positive_rate") == _approx(0.7)
    assert t.item(row["blue"], "true_positive_rate") == _approx(0.4)
    # the paper's text gives FPR 0.2 for orange and 0.4 for blue: swapped
    assert t.item(row["orange"], "false_positive_rate") == _approx(0.4)
    assert t.item(row["blue"], "false_positive_rate") == _approx(0.2)
    assert t.item(row["orange"], "selection_rate") == _approx(0.6)
    assert t.item(row["blue"], "selection_rate") == _approx(0.3)
    assert t.item(row["orange"], "positive_predictive_value") == _approx(Fr(28, 36))
    assert t.item(row["blue"], "positive_predictive_value") == _approx(Fr(8, 12))


@pytest.mark.parametrize("rate", list(RATES))
def test_by_group_rates(run: Any, garg: pl.DataFrame, rate: str) -> None:
    t = run(garg, "by_group", **LABELS)
    assert t.get_column("group").to_list() == ["blue", "orange"]
    assert t.get_column(rate).dtype == pl.Float64
    blue, orange = RATES[rate]
    assert t.get_column(rate).to_list() == [_approx(blue), _approx(orange)]


def test_identity_ppv_sr_equals_tpr_br(run: Any, garg: pl.DataFrame) -> None:
    """PPV * SR = TPR * BR in every group (both are TP / n)."""
    t = run(garg, "by_group", **LABELS)
    lhs = t.get_column("positive_predictive_value") * t.get_column("selection_rate")
    rhs = t.get_column("true_positive_rate") * t.get_column("base_rate")
    np.testing.assert_allclose(lhs.to_numpy(), rhs.to_numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(lhs.to_numpy(), [8 / 40, 28 / 60], rtol=1e-15)


def _diff(rate: str) -> Fr:
    blue, orange = RATES[rate]
    return abs(orange - blue)


def _ratio(rate: str) -> Fr:
    blue, orange = RATES[rate]
    return min(blue, orange) / max(blue, orange)


# criterion -> (needs y_true?, expected value with method "between_groups")
BETWEEN = {
    "demographic_parity_difference": (False, Fr(3, 10)),
    "demographic_parity_ratio": (False, Fr(1, 2)),
    "selection_rate_difference": (False, _diff("selection_rate")),
    "base_rate_difference": (True, Fr(1, 6)),
    "base_rate_ratio": (True, Fr(3, 4)),
    "equal_opportunity_difference": (True, Fr(3, 10)),
    "equal_opportunity_ratio": (True, Fr(4, 7)),
    "true_positive_rate_ratio": (True, Fr(4, 7)),
    "predictive_equality_difference": (True, Fr(1, 5)),
    "predictive_equality_ratio": (True, Fr(1, 2)),
    "false_negative_rate_difference": (True, _diff("false_negative_rate")),
    "true_negative_rate_ratio": (True, _ratio("true_negative_rate")),
    "predictive_parity_difference": (True, Fr(1, 9)),
    "predictive_parity_ratio": (True, Fr(6, 7)),
    "negative_predictive_value_difference": (True, _diff("negative_predictive_value")),
    "false_discovery_rate_ratio": (True, _ratio("false_discovery_rate")),
    "false_omission_rate_difference": (True, _diff("false_omission_rate")),
    "accuracy_difference": (True, _diff("accuracy")),
    "error_rate_ratio": (True, _ratio("error_rate")),
    # worst case of TPR (0.3) and FPR (0.2) gaps; ratios 4/7 and 1/2
    "equalized_odds_difference": (True, Fr(3, 10)),
    "equalized_odds_ratio": (True, Fr(1, 2)),
    # (|dTPR| + |dFPR|) / 2
    "average_abs_odds_difference": (True, Fr(1, 4)),
    # worst of PPV (1/9) and NPV (4/7 - 1/2 = 1/14) comparisons
    "conditional_use_accuracy_difference": (True, Fr(1, 9)),
    "conditional_use_accuracy_ratio": (True, min(Fr(6, 7), Fr(7, 8))),
    # FN / FP: orange 12/8 = 1.5, blue 12/4 = 3
    "treatment_equality_difference": (True, Fr(3, 2)),
    "treatment_equality_ratio": (True, Fr(1, 2)),
}


@pytest.mark.parametrize("name", list(BETWEEN))
def test_criteria_between_groups(run: Any, garg: pl.DataFrame, name: str) -> None:
    needs_true, expected = BETWEEN[name]
    kw: dict[str, Any] = dict(LABELS)
    if not needs_true:
        del kw["y_true"]
    if name.startswith("base_rate"):
        del kw["y_pred"]
    got = run(garg, name, **kw)
    assert isinstance(got, float)
    assert got == _approx(expected)


@pytest.mark.parametrize(
    ("name", "agg", "expected"),
    [
        ("equalized_odds_difference", "mean", (Fr(3, 10) + Fr(1, 5)) / 2),
        ("equalized_odds_ratio", "mean", (Fr(4, 7) + Fr(1, 2)) / 2),
    ],
)
def test_equalized_odds_mean(
    run: Any, garg: pl.DataFrame, name: str, agg: str, expected: Fr
) -> None:
    assert run(garg, name, **LABELS, agg=agg) == _approx(expected)


# reference "orange": signed blue - orange and blue / orange (AIF360 style)
TO_REFERENCE = {
    "statistical_parity_difference": Fr(3, 10) - Fr(6, 10),
    "disparate_impact_ratio": Fr(1, 2),
    "equal_opportunity_difference": Fr(4, 10) - Fr(7, 10),
    "predictive_equality_difference": Fr(2, 10) - Fr(4, 10),
    "predictive_parity_difference": Fr(8, 12) - Fr(28, 36),
    "average_odds_difference": ((Fr(2, 10) - Fr(4, 10)) + (Fr(4, 10) - Fr(7, 10))) / 2,
    "average_abs_odds_difference": Fr(1, 4),
    "equalized_odds_difference": Fr(4, 10) - Fr(7, 10),  # the farther of -0.3 and -0.2
    "treatment_equality_difference": Fr(3) - Fr(3, 2),
}


@pytest.mark.parametrize("name", list(TO_REFERENCE))
def test_criteria_to_reference(run: Any, garg: pl.DataFrame, name: str) -> None:
    kw: dict[str, Any] = dict(LABELS)
    if name in ("statistical_parity_difference", "disparate_impact_ratio"):
        del kw["y_true"]
    got = run(garg, name, **kw, reference_group="orange")
    assert got == _approx(TO_REFERENCE[name])


# overall: tp 36, fn 24, tn 28, fp 12 (n = 100)
TO_OVERALL = {
    # SR overall 0.48: |0.6 - 0.48| = 0.12, |0.3 - 0.48| = 0.18
    "demographic_parity_difference": Fr(18, 100),
    # min(0.48 / 0.6, 0.3 / 0.48) = min(0.8, 0.625)
    "demographic_parity_ratio": Fr(5, 8),
    # TPR overall 0.6: gaps 0.1, 0.2
    "equal_opportunity_difference": Fr(1, 5),
    # min(0.6 / 0.7, 0.4 / 0.6)
    "equal_opportunity_ratio": Fr(2, 3),
    # FPR overall 0.3: gaps 0.1, 0.1; worst with TPR 0.2
    "equalized_odds_difference": Fr(1, 5),
    # FPR ratios min(0.3 / 0.4, 0.2 / 0.3) = 2/3; TPR 2/3
    "equalized_odds_ratio": Fr(2, 3),
}


@pytest.mark.parametrize("name", list(TO_OVERALL))
def test_criteria_to_overall(run: Any, garg: pl.DataFrame, name: str) -> None:
    kw: dict[str, Any] = dict(LABELS)
    if name.startswith("demographic"):
        del kw["y_true"]
    assert run(garg, name, **kw, method="to_overall") == _approx(TO_OVERALL[name])


def test_disparities_against_orange(run: Any, garg: pl.DataFrame) -> None:
    t = run(garg, "disparities", **LABELS, reference_group="orange")
    assert t.columns == ["group", "metric", "value", "reference_value", "difference", "ratio"]
    blue = t.filter(pl.col("group") == "blue")
    orange = t.filter(pl.col("group") == "orange")
    assert blue.get_column("metric").cast(pl.String).to_list() == list(RATES)
    for rate, (b, o) in RATES.items():
        row = blue.filter(pl.col("metric") == rate)
        assert row.item(0, "value") == _approx(b)
        assert row.item(0, "reference_value") == _approx(o)
        assert row.item(0, "difference") == _approx(b - o)
        assert row.item(0, "ratio") == _approx(b / o)
        ref = orange.filter(pl.col("metric") == rate)
        assert ref.item(0, "value") == ref.item(0, "reference_value")
        assert ref.item(0, "difference") == 0.0
        assert ref.item(0, "ratio") == _approx(1)


def test_reference_group_ratio_is_exactly_one(run: Any, garg: pl.DataFrame) -> None:
    """value / reference_value of the reference group itself is x / x == 1.0 exactly.

    Regression: on the in-memory engine Polars divides a column by a broadcast
    *scalar* as a multiplication by its reciprocal, so a reference value computed
    as a bare scalar aggregate (no `by`) gave 7/9 * (1 / (7/9)) == 0.9999999999999999
    for PPV, and 1-ulp differences between engines for the other groups.
    """
    t = run(garg, "disparities", **LABELS, reference_group="orange")
    ref = t.filter(pl.col("group") == "orange")
    assert ref.get_column("ratio").to_list() == [1.0] * len(RATES)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_disparities_agree_exactly_across_engines(garg: pl.DataFrame, engine: str) -> None:
    """Same numbers to the last bit on eager, in-memory and streaming frames."""
    eager = garg.fair.disparities(**LABELS, reference_group="orange")
    lazy = garg.lazy().fair.disparities(**LABELS, reference_group="orange").collect(engine=engine)
    assert_frame_equal(eager, lazy, check_exact=True)


def test_disparities_largest_is_orange(run: Any, garg: pl.DataFrame) -> None:
    """Orange (60 rows) is the largest group, the default reference."""
    default = run(garg, "disparities", **LABELS)
    explicit = run(garg, "disparities", **LABELS, reference_group="orange")
    assert_frame_equal(default, explicit)
