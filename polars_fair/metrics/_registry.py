"""The criteria the summary and the bootstrap compute from one statistics table.

A view of the catalogue (:mod:`polars_fair.metrics._catalogue`) in summary order.
"""

from __future__ import annotations

from polars_fair.metrics._catalogue import CATALOGUE, Criterion
from polars_fair.metrics._rates import RATES, SCORE_RATES

__all__ = ["CRITERIA", "DEFAULT_SUMMARY", "Spec"]

#: A criterion's entry (the former name of :class:`~polars_fair.metrics._catalogue.Criterion`).
Spec = Criterion


def _order() -> list[str]:
    """The names of the criteria computed from the statistics table, in summary order."""
    names = [
        f"{rate}_{kind}" for rate in (*RATES, *SCORE_RATES) for kind in ("difference", "ratio")
    ]
    for alias in (
        "demographic_parity",
        "equal_opportunity",
        "predictive_equality",
        "predictive_parity",
    ):
        names += [f"{alias}_difference", f"{alias}_ratio"]
    names += ["statistical_parity_difference", "disparate_impact_ratio"]
    names += ["equalized_odds_difference", "equalized_odds_ratio"]
    names += ["average_odds_difference", "average_abs_odds_difference"]
    names += ["conditional_use_accuracy_difference", "conditional_use_accuracy_ratio"]
    names += ["treatment_equality_difference", "treatment_equality_ratio"]
    return [*names, "cohen_d", "two_sd_rule", "four_fifths_rule"]


#: Every criterion the summary and the bootstrap can compute (the catalogue's
#: ``"rate"`` and ``"statistic"`` families), by name.
CRITERIA: dict[str, Criterion] = {name: CATALOGUE[name] for name in _order()}
assert set(CRITERIA) == {n for n, c in CATALOGUE.items() if c.family in ("rate", "statistic")}

#: The criteria of ``summary()`` when none are named (balance ones need ``y_prob``).
DEFAULT_SUMMARY: tuple[str, ...] = (
    "demographic_parity_difference",
    "disparate_impact_ratio",
    "four_fifths_rule",
    "two_sd_rule",
    "cohen_d",
    "equal_opportunity_difference",
    "predictive_equality_difference",
    "equalized_odds_difference",
    "average_odds_difference",
    "predictive_parity_difference",
    "negative_predictive_value_difference",
    "accuracy_difference",
    "treatment_equality_ratio",
)
