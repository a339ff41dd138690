"""The catalogue of named criteria: what each one compares and how.

Used by the summary and the bootstrap, which compute many criteria from one
statistics table. The namespace methods of the same names call the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

from polars_fair.metrics._rates import RATES, SCORE_RATES

__all__ = ["CRITERIA", "DEFAULT_SUMMARY", "Spec"]


@dataclass(frozen=True)
class Spec:
    """One criterion: the per-group measures it compares and its kind."""

    measures: tuple[str, ...]
    kind: str  # "difference", "ratio" or "statistic"
    agg: str = "worst_case"


def _catalogue() -> dict[str, Spec]:
    specs: dict[str, Spec] = {}
    for rate in (*RATES, *SCORE_RATES):
        specs[f"{rate}_difference"] = Spec((rate,), "difference")
        specs[f"{rate}_ratio"] = Spec((rate,), "ratio")
    aliases = {
        "demographic_parity": "selection_rate",
        "equal_opportunity": "true_positive_rate",
        "predictive_equality": "false_positive_rate",
        "predictive_parity": "positive_predictive_value",
    }
    for alias, rate in aliases.items():
        specs[f"{alias}_difference"] = Spec((rate,), "difference")
        specs[f"{alias}_ratio"] = Spec((rate,), "ratio")
    specs["statistical_parity_difference"] = Spec(("selection_rate",), "difference")
    specs["disparate_impact_ratio"] = Spec(("selection_rate",), "ratio")
    odds = ("true_positive_rate", "false_positive_rate")
    specs["equalized_odds_difference"] = Spec(odds, "difference")
    specs["equalized_odds_ratio"] = Spec(odds, "ratio")
    specs["average_odds_difference"] = Spec(("average_odds",), "difference")
    specs["average_abs_odds_difference"] = Spec(odds, "difference")
    cua = ("positive_predictive_value", "negative_predictive_value")
    specs["conditional_use_accuracy_difference"] = Spec(cua, "difference")
    specs["conditional_use_accuracy_ratio"] = Spec(cua, "ratio")
    specs["treatment_equality_difference"] = Spec(("treatment_equality",), "difference")
    specs["treatment_equality_ratio"] = Spec(("treatment_equality",), "ratio")
    for name in ("cohen_d", "two_sd_rule", "four_fifths_rule"):
        specs[name] = Spec(("selection_rate",), "statistic")
    return specs


#: Every criterion the summary and the bootstrap can compute, by name.
CRITERIA: dict[str, Spec] = _catalogue()

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
