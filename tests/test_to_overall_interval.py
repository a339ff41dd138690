"""Closed-form intervals of a single proportion against the whole population.

With ``method="to_overall"`` a criterion compares a group with a population that
contains it. The population's rate is ``p_all = w p + (1 - w) p_rest`` (``w``: the
group's share of the rate's denominator), so ``p - p_all = (1 - w)(p - p_rest)`` and
``p / p_all = r / (w r + 1 - w)`` with ``r = p / p_rest``: the group against the rest of
the population (disjoint rows) gives the interval, Newcombe's for the difference and
Katz's for the ratio, mapped through (``newcombe_overall``, ``katz_overall``). The
criterion is the distance from the ideal, ``|p - p_all|`` or ``min(q, 1/q)``, so the
interval runs from the bound nearer the ideal to the farther. Written again here from
those definitions with numpy and the standard library; with weights, from Kish
effective counts of the rows the rate divides by (the rest's as one group's: its
weighted rate at its own effective size, ``reference_stats.effective_size``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

from tests.conftest import (
    Runner,
    assert_overall_row,
    four_weighted_groups,
    shuffled_unfair,
    weighted_cells,
)
from tests.reference_stats import effective_size, katz, newcombe

#: criterion -> (numerator mask, denominator mask) of its proportion, from y and p
PROPORTIONS = {
    "demographic_parity_difference": (lambda y, p: p == 1, lambda y, p: np.ones_like(y) == 1),
    "equal_opportunity_difference": (lambda y, p: p == 1, lambda y, p: y == 1),
    "predictive_parity_difference": (lambda y, p: y == 1, lambda y, p: p == 1),
    "disparate_impact_ratio": (lambda y, p: p == 1, lambda y, p: np.ones_like(y) == 1),
}


def _frame(seed: int) -> pl.DataFrame:
    return four_weighted_groups(seed, smallest=60)


def _expected(df: pl.DataFrame, criterion: str, weighted: bool) -> dict[str, Any]:
    num, den = PROPORTIONS[criterion]
    # weighted counts (the values, the pair named, the share w)
    cells = weighted_cells(df, weighted, {"x": lambda y, p: num(y, p) & den(y, p), "m": den})
    p_all = sum(c["x"] for c in cells.values()) / sum(c["m"] for c in cells.values())
    ratio = criterion.endswith("_ratio")

    def distance(g: str) -> float:
        q = cells[g]["x"] / cells[g]["m"] / p_all
        return abs(math.log(q)) if ratio else abs(cells[g]["x"] / cells[g]["m"] - p_all)

    g = max(cells, key=distance)
    # each side at the effective size of the rows the rate divides by (the rest's
    # pooled as one group's), from the rows: `reference_stats.effective_size`
    y, p, w = (df[c].to_numpy() for c in ("y", "p", "w"))
    w = w if weighted else np.ones(len(y))
    mine, rows = df["g"].to_numpy() == g, den(y, p)
    hit = num(y, p)
    x1, m1 = effective_size(w[mine & rows], hit[mine & rows], w[mine])
    x2, m2 = effective_size(w[~mine & rows], hit[~mine & rows], w[~mine])
    w = cells[g]["m"] / sum(c["m"] for c in cells.values())
    p = cells[g]["x"] / cells[g]["m"]
    if not ratio:
        bounds = newcombe(x1, m1, x2, m2)
        assert bounds is not None
        lo, hi = ((1 - w) * b for b in bounds)
        near = lo if lo > 0 else -hi if hi < 0 else 0.0
        return {"group": g, "value": abs(p - p_all), "low": near, "high": max(abs(lo), abs(hi))}
    q = p / p_all
    bounds = katz(x1, m1, x2, m2)
    assert bounds is not None
    lo, hi = (math.log(b / (w * b + 1 - w)) for b in bounds)
    near = lo if lo > 0 else -hi if hi < 0 else 0.0
    return {"group": g, "value": min(q, 1 / q), "low": math.exp(-max(abs(lo), abs(hi))),
            "high": math.exp(-near)}  # fmt: skip


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("criterion", sorted(PROPORTIONS))
def test_interval_from_the_definitions(run: Runner, criterion: str, weighted: bool) -> None:
    df = _frame(8)
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "p", "sensitive_features": "g",
                          "method": "to_overall", "criteria": [criterion]}  # fmt: skip
    if weighted:
        kw["sample_weight"] = "w"
    row = run(df, "summary", **kw).row(0, named=True)
    expected = _expected(df, criterion, weighted)
    kind = "katz" if criterion.endswith("_ratio") else "newcombe"
    assert_overall_row(row, expected, f"{kind}_overall")


def test_unweighted_it_is_the_rest_comparison_scaled() -> None:
    # without weights the interval of p - p_all is exactly (1 - w) times Newcombe's of
    # p - p_rest: the value itself is (1 - w)(p - p_rest)
    df = _frame(9)
    row = df.fair.summary(y_true="y", y_pred="p", sensitive_features="g", method="to_overall",
                          criteria=["demographic_parity_difference"]).row(0, named=True)  # fmt: skip
    g = row["group"]
    sub, rest = df.filter(pl.col("g") == g), df.filter(pl.col("g") != g)
    x1, m1, x2, m2 = float(sub["p"].sum()), sub.height, float(rest["p"].sum()), rest.height
    w = m1 / df.height
    low, high = newcombe(x1, m1, x2, m2)  # type: ignore[misc]
    assert row["value"] == pytest.approx(abs((1 - w) * (x1 / m1 - x2 / m2)), rel=1e-12)
    ends = sorted(abs((1 - w) * b) for b in (low, high))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (ends[0] if low * high > 0 else 0.0, ends[1]), rel=1e-9
    )


def test_the_interval_does_not_depend_on_the_scale_of_the_weights() -> None:
    df = _frame(10)
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "p", "sensitive_features": "g",
                          "sample_weight": "w", "method": "to_overall"}  # fmt: skip
    base = df.fair.summary(**kw).select("criterion", "value", "ci_low", "ci_high")
    for factor in (1e-4, 1e4):
        scaled = df.with_columns(pl.col("w") * factor).fair.summary(**kw)
        for got, want in zip(scaled.select(base.columns).iter_rows(), base.iter_rows(),
                             strict=True):  # fmt: skip
            assert got[0] == want[0]
            assert got[1:] == pytest.approx(want[1:], rel=1e-9, nan_ok=True)


def test_no_true_disparity_is_rarely_called_unfair() -> None:
    """COMPAS (the sample in tests/data) with race shuffled: every `unfair` is wrong.

    The stated rate is 2.5%; 4 of 100 allows for the simulation's noise. (The
    bootstrap these replace: 1-3 of the same 100 for these criteria, at 200 ms a
    summary against 20 ms.)
    """
    from pathlib import Path

    data = Path(__file__).parent / "data" / "compas_race_sex.csv"
    compas = pl.read_csv(data).select(
        "race", "two_year_recid", (pl.col("decile_score") >= 5).cast(pl.Int8).alias("pred")
    )
    criteria = ["demographic_parity_difference", "disparate_impact_ratio",
                "equal_opportunity_difference", "predictive_parity_difference",
                "accuracy_difference"]  # fmt: skip
    unfair, methods = shuffled_unfair(compas, criteria, seed=11, runs=100, method="to_overall")
    assert methods == {"newcombe_overall", "katz_overall"}
    assert max(unfair.values()) <= 4, unfair
