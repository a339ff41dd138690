"""The criteria the summary and the bootstrap compute from one statistics table.

A view of the catalogue (:mod:`polars_fair.metrics._catalogue`) in summary order.
"""

from __future__ import annotations

from polars_fair.metrics._auc import AUC_INTERVALS
from polars_fair.metrics._catalogue import CATALOGUE, Criterion
from polars_fair.metrics._summary_bounds import INTERVAL_ORDER

__all__ = ["CRITERIA", "DEFAULT_SUMMARY", "INTERVAL_METHODS", "Spec", "needs_roc", "needs_score"]

#: A criterion's entry (the former name of :class:`~polars_fair.metrics._catalogue.Criterion`).
Spec = Criterion


#: How the summary computes each interval (the ``interval_method`` column):
#:
#: * ``"newcombe"``: Newcombe's hybrid score interval of a difference of two
#:   proportions (from their Wilson intervals);
#: * ``"katz"``: the Katz log interval of a ratio of two proportions;
#: * ``"newcombe_overall"``, ``"katz_overall"``: a proportion of a group against the
#:   whole population (``method="to_overall"``): Newcombe's (Katz's) interval of the
#:   group against the rest of the population, mapped exactly onto the comparison
#:   with the whole (``p - p_all = (1 - w)(p - p_rest)``, ``w`` the group's share);
#: * ``"count_ratio_overall"``, ``"count_mover_overall"``: treatment equality's ``FN /
#:   FP`` of a group against the whole population, the same way from the group against
#:   the rest (the population's ``FN / FP`` is ``w r + (1 - w) r_rest``, ``w`` the
#:   group's share of the false positives);
#: * ``"delta"``: the delta-method standard error of Cohen's d,
#:   ``sqrt(1/n1 + 1/n2 + d**2 / (2 (n1 + n2)))`` (Hedges and Olkin, 1985);
#: * ``"normal"``: a z statistic has unit variance: ``z ± z_{1-alpha/2}``;
#: * ``"count_ratio"``, ``"count_mover"``: treatment equality's ``FN / FP`` of each
#:   group: the delta method on the log of the ratio of two of them, and Newcombe's
#:   construction from each group's log-scale interval for their difference;
#: * ``"newcombe_parts"``, ``"katz_parts"``: a worst-case composite (equalized odds,
#:   conditional use accuracy): each part's Newcombe (Katz) interval at the
#:   Bonferroni level as the interval of its distance from the ideal, combined from
#:   the largest lower to the largest upper bound;
#: * ``"mover_abs_average"``: ``average_abs_odds_difference``, the mean of two
#:   absolute differences (TPR and FPR, independent): each part's distance interval
#:   from Newcombe's, combined by MOVER into that of their mean;
#: * ``"mover_average"``: average odds (balanced accuracy): each group's ``(TPR + FPR)
#:   / 2`` (``(TPR + TNR) / 2``) by MOVER from the two Wilson intervals, then
#:   Newcombe's construction for the difference;
#: * ``"bootstrap"``: the seeded counts bootstrap (stratified, 1,000 redraws of
#:   the effective counts, percentile interval), for the criteria with no closed
#:   form (F1, the balanced accuracy ratio, the predicted-positive share, and with
#:   ``method="to_overall"`` every criterion but a single proportion's and
#:   treatment equality's);
#: * ``"welch"``: a difference of two mean scores (the balance criteria), normal
#:   interval with Welch's standard error ``sqrt(s1²/m1 + s2²/m2)``;
#: * ``"delta_log"``: a ratio of two mean scores, the delta method on the log,
#:   ``se(log r) = sqrt(s1²/(m1 mean1²) + s2²/(m2 mean2²))``, exponentiated (both in
#:   :mod:`polars_fair.metrics._score_intervals`);
#: * ``"delong"``, ``"delong_log"``: a difference (ratio) of two groups' ROC AUC,
#:   DeLong's variance of each from its ROC table, summed (on the log scale for
#:   ratios, delta method; with sampling weights, over each class's Kish effective
#:   size) (:mod:`polars_fair.metrics._auc`);
#: * ``"none"``: a balance or AUC criterion with ``method="to_overall"``, a balance
#:   criterion from a statistics table without sums of squared scores (an older
#:   profile), or a weighted AUC from a ROC table without sums of squared weights
#:   (an older profile): judged on the point value.
#:
#: The closed forms apply to ``method="to_reference"`` and ``"between_groups"``;
#: ``"to_overall"`` compares a group with a population that contains it: a single
#: proportion, or treatment equality's ``FN / FP``, through the rest of the
#: population (``*_overall``), the others are
#: bootstrapped (the balance criteria, which have no counts to redraw, are then
#: judged on the point value).
INTERVAL_METHODS = (*INTERVAL_ORDER, *AUC_INTERVALS, "none")


#: Every criterion the summary can compute (the catalogue's ``"rate"``,
#: ``"statistic"`` and ``"auc"`` families), by name, in the catalogue's order. The
#: ``"auc"`` ones derive from the ROC table (see :func:`needs_roc`); the bootstrap
#: refuses them (it redraws counts, not scores).
CRITERIA: dict[str, Criterion] = {
    name: entry for name, entry in CATALOGUE.items() if entry.family in ("rate", "statistic", "auc")
}


def needs_score(name: str) -> bool:
    """Whether criterion `name` reads a score (``y_prob``): balance and AUC criteria."""
    return "y_prob" in CATALOGUE[name].inputs


def needs_roc(name: str) -> bool:
    """Whether criterion `name` derives from the ROC table, not the statistics table."""
    return CATALOGUE[name].family == "auc"


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
