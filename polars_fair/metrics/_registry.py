"""The catalogue of named criteria: what each one compares and how.

Used by the summary and the bootstrap, which compute many criteria from one
statistics table. The namespace methods of the same names call the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

from polars_fair.metrics._rates import RATES, SCORE_RATES

__all__ = ["CRITERIA", "DEFAULT_SUMMARY", "INTERVAL_METHODS", "Spec"]


@dataclass(frozen=True)
class Spec:
    """One criterion: the per-group measures it compares, its kind and its interval.

    `interval` names how the summary's interval is computed (see
    :data:`INTERVAL_METHODS`); `band` which fair band of
    :class:`~polars_fair.metrics._verdicts.Bands` judges it (default: its kind's).
    """

    measures: tuple[str, ...]
    kind: str  # "difference", "ratio" or "statistic"
    agg: str = "worst_case"
    interval: str = "bootstrap"
    band: str = ""

    @property
    def band_kind(self) -> str:
        """The fair band: ``"difference"``, ``"ratio"``, ``"cohen_d"``, ``"z"``."""
        return self.band or self.kind


#: How the summary computes each interval (the ``interval_method`` column):
#:
#: * ``"newcombe"``: Newcombe's hybrid score interval of a difference of two
#:   proportions (from their Wilson intervals);
#: * ``"katz"``: the Katz log interval of a ratio of two proportions;
#: * ``"delta"``: the delta-method standard error of Cohen's d,
#:   ``sqrt(1/n1 + 1/n2 + d**2 / (2 (n1 + n2)))`` (Hedges and Olkin, 1985);
#: * ``"normal"``: a z statistic has unit variance: ``z ± z_{1-alpha/2}``;
#: * ``"bootstrap"``: the seeded counts bootstrap (stratified, 1,000 redraws of
#:   the effective counts, percentile interval), for the criteria with no closed
#:   form (composites, ``treatment_equality``, ``method="to_overall"``);
#: * ``"none"``: score criteria (no counts to redraw): judged on the point value.
#:
#: The closed forms apply to ``method="to_reference"`` and ``"between_groups"``;
#: ``"to_overall"`` compares a group with a population that contains it, and is
#: bootstrapped.
INTERVAL_METHODS = ("newcombe", "katz", "delta", "normal", "bootstrap", "none")

#: Rates with no binomial numerator and denominator (no closed-form interval).
_NOT_PROPORTIONS = frozenset({"predicted_positive_share", "f1", "balanced_accuracy"})


def _catalogue() -> dict[str, Spec]:
    specs: dict[str, Spec] = {}
    for rate in RATES:
        closed = rate not in _NOT_PROPORTIONS
        specs[f"{rate}_difference"] = Spec(
            (rate,), "difference", interval="newcombe" if closed else "bootstrap"
        )
        specs[f"{rate}_ratio"] = Spec((rate,), "ratio", interval="katz" if closed else "bootstrap")
    for rate in SCORE_RATES:
        specs[f"{rate}_difference"] = Spec((rate,), "difference", interval="none")
        specs[f"{rate}_ratio"] = Spec((rate,), "ratio", interval="none")
    aliases = {
        "demographic_parity": "selection_rate",
        "equal_opportunity": "true_positive_rate",
        "predictive_equality": "false_positive_rate",
        "predictive_parity": "positive_predictive_value",
    }
    for alias, rate in aliases.items():
        specs[f"{alias}_difference"] = Spec((rate,), "difference", interval="newcombe")
        specs[f"{alias}_ratio"] = Spec((rate,), "ratio", interval="katz")
    specs["statistical_parity_difference"] = Spec(
        ("selection_rate",), "difference", interval="newcombe"
    )
    specs["disparate_impact_ratio"] = Spec(("selection_rate",), "ratio", interval="katz")
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
    sr = ("selection_rate",)
    specs["cohen_d"] = Spec(sr, "statistic", interval="delta", band="cohen_d")
    specs["two_sd_rule"] = Spec(sr, "statistic", interval="normal", band="z")
    specs["four_fifths_rule"] = Spec(sr, "statistic", interval="katz", band="four_fifths")
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
