"""The catalogue: every criterion of polars_fair, one declarative entry each.

An entry says what the criterion compares (its per-group ``measures`` and its
``kind``: a ``"difference"``, a ``"ratio"`` or a two-group ``"statistic"``), which
inputs it needs, how several measures combine (``agg``), its ideal value, its fair
band and its interval method, and the fields its docstring is filled from.

Everything that lists criteria reads this table: the ``fair`` namespace (each
criterion method is a typed stub whose body and docstring come from its entry, see
:func:`polars_fair.namespace._base.criterion_stub`), the summary and the report
(:data:`polars_fair.metrics._registry.CRITERIA`), the CLI's ``--fail-on`` names and
the test parametrisation. Adding a criterion whose measure exists is one entry here
and one stub.

Families: ``"rate"`` criteria compare rates of the statistics table; ``"statistic"``
ones (Cohen's d, the 2-SD rule, the four-fifths rule) are two-group statistics of the
selection rate; ``"auc"`` ones compare the groups' ROC AUC, from the ROC table (the
positives and negatives per distinct score, or per score bin in a profile; see
:mod:`polars_fair.metrics._auc`), with DeLong's intervals; ``"regression"`` and
``"ensemble"`` ones compare per-group measures of their own reductions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from polars_fair.metrics._intervals import INTERVAL_RATES
from polars_fair.metrics._rates import SCORE_RATES

__all__ = ["CATALOGUE", "Criterion", "catalogue_table"]

Kind = Literal["difference", "ratio", "statistic"]
Family = Literal["rate", "statistic", "auc", "regression", "ensemble"]


@dataclass(frozen=True)
class Criterion:
    """One criterion: what it compares, what it needs, how it is judged and documented.

    ``band`` names the configurable fair band it is judged against (a field of
    :class:`polars_fair.metrics._verdicts.Bands`: ``"difference"``, ``"ratio"``,
    ``"cohen_d"``, ``"z"`` or ``"four_fifths"``); ``interval`` the interval method
    of the summary (see :data:`polars_fair.metrics._registry.INTERVAL_METHODS`:
    ``"newcombe"``, ``"katz"``, ``"delta"``, ``"normal"``, ``"welch"`` and
    ``"delta_log"`` for the mean scores of the balance criteria, ``"count_ratio"`` for a
    ratio of two groups' ratios of counts (treatment equality), ``"count_mover"`` for
    their difference; ``"delong"`` and ``"delong_log"`` for a difference and a ratio of
    two groups' ROC AUC; ``"bootstrap"`` where there is no closed form: the summary's
    seeded counts bootstrap; None outside the summary's families).
    """

    name: str
    kind: str  # a Kind: "difference", "ratio" or "statistic"
    measures: tuple[str, ...]
    family: Family = "rate"
    #: The columns the criterion needs (parameters of its method).
    inputs: tuple[str, ...] = ("y_true", "y_pred")
    #: How the comparisons of several measures combine (the default of `agg`).
    agg: str = "worst_case"
    #: True where the method exposes `agg` (equalized odds).
    agg_param: bool = False
    ideal: float = 0.0
    band: str = "difference"
    interval: str | None = None
    # ---- documentation fields --------------------------------------------------
    #: The measure in words ("selection rate").
    words: str = ""
    #: A LaTeX formula of the measure (rates) or its definition (regression).
    formula: str = ""
    #: A closing sentence (the anchor libraries computing the same number).
    note: str = ""
    #: The title line (regression: hand-written; otherwise from kind and words).
    title: str = ""
    #: The doctest result of the docstring example.
    example: str = ""


def _judged(kind: str, measures: tuple[str, ...], name: str) -> dict[str, object]:
    """Ideal, band and interval of a rate criterion (today's summary behaviour)."""
    one_rate = len(measures) == 1 and measures[0] in INTERVAL_RATES
    exact = one_rate and name != "average_abs_odds_difference"
    # a worst-case composite of proportions (equalized odds, conditional use accuracy):
    # each part's closed form at the Bonferroni level (`part_distances`)
    parts = (
        len(measures) > 1 and all(m in INTERVAL_RATES for m in measures)
        and name != "average_abs_odds_difference"
    )  # fmt: skip
    # Score criteria compare mean scores: Welch (differences), delta method on the log
    # (ratios), from the sums of scores and of squared scores.
    scores = len(measures) == 1 and measures[0] in SCORE_RATES
    # treatment equality FN / FP: a ratio of two counts of one group (see
    # `count_ratio_parts`), so a ratio or difference of two of them has a closed form
    counts = measures == ("treatment_equality",)
    if kind == "ratio":
        interval = (
            "delta_log" if scores else "katz" if exact else "count_ratio" if counts
            else "katz_parts" if parts else "bootstrap"
        )  # fmt: skip
        return {"ideal": 1.0, "band": "ratio", "interval": interval}
    interval = (
        "welch" if scores else "newcombe" if exact else "count_mover" if counts
        else "newcombe_parts" if parts
        else "mover_abs_average" if name == "average_abs_odds_difference"
        else "mover_average" if measures in (("average_odds",), ("balanced_accuracy",))
        else "bootstrap"
    )  # fmt: skip
    return {"ideal": 0.0, "band": "difference", "interval": interval}


def _entry(**fields: object) -> Criterion:
    name, kind, measures = fields["name"], fields["kind"], fields["measures"]
    assert isinstance(name, str)
    assert isinstance(kind, str)
    assert isinstance(measures, tuple)
    return Criterion(**{**_judged(kind, measures, name), **fields})  # type: ignore[arg-type]


def _regression(name: str, measure: str, title: str, definition: str, example: str) -> Criterion:
    kind = "ratio" if name.endswith("_ratio") else "difference"
    needs_true = measure in ("rmse", "mae", "correlation")
    return Criterion(
        name=name, kind=kind, measures=(measure,), family="regression",
        inputs=("y_pred", "y_true") if needs_true else ("y_pred",),
        ideal=1.0 if kind == "ratio" else 0.0, band=kind, interval=None,
        words=measure.replace("_", " "), formula=definition, title=title, example=example,
    )  # fmt: skip


def _ensemble(measure: str, kind: Kind, example: str) -> Criterion:
    return Criterion(
        name=f"{measure}_{kind}", kind=kind, measures=(measure,), family="ensemble",
        inputs=("y_prob",), ideal=1.0 if kind == "ratio" else 0.0, band=kind, interval=None,
        words=measure.replace("_", " "), example=example,
    )  # fmt: skip


_SR = ("selection_rate",)
_AUC = "P(S_{+} > S_{-} \\mid A=a) + \\tfrac12 P(S_{+} = S_{-} \\mid A=a)"
_AUC_NOTE = (
    "Each group's AUC is :func:`sklearn.metrics.roc_auc_score` on its rows (ties count "
    "one half), from the positives and negatives per distinct score (the ROC table; a "
    "profile's is binned, see ``profile.auc_error_bound()``). A group with one label "
    "class has no AUC and is left out. The summary's interval is DeLong's "
    "(docs/metrics/scores.md)."
)

#: Every criterion, in the order of the documentation and of the summary's
#: criteria (:data:`~polars_fair.metrics._registry.CRITERIA` reads it in this order).
_ENTRIES: tuple[Criterion, ...] = (
    # ---- rates of the statistics table --------------------------------------------
    _entry(name='selection_rate_difference', kind='difference', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', example='0.2'),
    _entry(name='selection_rate_ratio', kind='ratio', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', example='0.6667'),
    _entry(name='base_rate_difference', kind='difference', measures=('base_rate',), inputs=('y_true',), words='base rate (prevalence)', formula='P(Y=1 \\mid A=a)', example='0.2'),
    _entry(name='base_rate_ratio', kind='ratio', measures=('base_rate',), inputs=('y_true',), words='base rate (prevalence)', formula='P(Y=1 \\mid A=a)', example='0.6667'),
    _entry(name='true_positive_rate_difference', kind='difference', measures=('true_positive_rate',), inputs=('y_true', 'y_pred'), words='true positive rate', formula='TP / (TP + FN)', example='0.1667'),
    _entry(name='true_positive_rate_ratio', kind='ratio', measures=('true_positive_rate',), inputs=('y_true', 'y_pred'), words='true positive rate', formula='TP / (TP + FN)', example='0.75'),
    _entry(name='false_negative_rate_difference', kind='difference', measures=('false_negative_rate',), inputs=('y_true', 'y_pred'), words='false negative rate', formula='FN / (TP + FN)', example='0.1667'),
    _entry(name='false_negative_rate_ratio', kind='ratio', measures=('false_negative_rate',), inputs=('y_true', 'y_pred'), words='false negative rate', formula='FN / (TP + FN)', example='0.6667'),
    _entry(name='false_positive_rate_difference', kind='difference', measures=('false_positive_rate',), inputs=('y_true', 'y_pred'), words='false positive rate', formula='FP / (FP + TN)', example='0.1667'),
    _entry(name='false_positive_rate_ratio', kind='ratio', measures=('false_positive_rate',), inputs=('y_true', 'y_pred'), words='false positive rate', formula='FP / (FP + TN)', example='0.6667'),
    _entry(name='true_negative_rate_difference', kind='difference', measures=('true_negative_rate',), inputs=('y_true', 'y_pred'), words='true negative rate', formula='TN / (FP + TN)', example='0.1667'),
    _entry(name='true_negative_rate_ratio', kind='ratio', measures=('true_negative_rate',), inputs=('y_true', 'y_pred'), words='true negative rate', formula='TN / (FP + TN)', example='0.75'),
    _entry(name='positive_predictive_value_difference', kind='difference', measures=('positive_predictive_value',), inputs=('y_true', 'y_pred'), words='positive predictive value (precision)', formula='TP / (TP + FP)', example='0.1667'),
    _entry(name='positive_predictive_value_ratio', kind='ratio', measures=('positive_predictive_value',), inputs=('y_true', 'y_pred'), words='positive predictive value (precision)', formula='TP / (TP + FP)', example='0.75'),
    _entry(name='negative_predictive_value_difference', kind='difference', measures=('negative_predictive_value',), inputs=('y_true', 'y_pred'), words='negative predictive value', formula='TN / (TN + FN)', example='0.1667'),
    _entry(name='negative_predictive_value_ratio', kind='ratio', measures=('negative_predictive_value',), inputs=('y_true', 'y_pred'), words='negative predictive value', formula='TN / (TN + FN)', example='0.75'),
    _entry(name='false_discovery_rate_difference', kind='difference', measures=('false_discovery_rate',), inputs=('y_true', 'y_pred'), words='false discovery rate', formula='FP / (TP + FP)', example='0.1667'),
    _entry(name='false_discovery_rate_ratio', kind='ratio', measures=('false_discovery_rate',), inputs=('y_true', 'y_pred'), words='false discovery rate', formula='FP / (TP + FP)', example='0.6667'),
    _entry(name='false_omission_rate_difference', kind='difference', measures=('false_omission_rate',), inputs=('y_true', 'y_pred'), words='false omission rate', formula='FN / (TN + FN)', example='0.1667'),
    _entry(name='false_omission_rate_ratio', kind='ratio', measures=('false_omission_rate',), inputs=('y_true', 'y_pred'), words='false omission rate', formula='FN / (TN + FN)', example='0.6667'),
    _entry(name='accuracy_difference', kind='difference', measures=('accuracy',), inputs=('y_true', 'y_pred'), words='accuracy', formula='(TP + TN) / n', example='0.0'),
    _entry(name='accuracy_ratio', kind='ratio', measures=('accuracy',), inputs=('y_true', 'y_pred'), words='accuracy', formula='(TP + TN) / n', example='1.0'),
    _entry(name='error_rate_difference', kind='difference', measures=('error_rate',), inputs=('y_true', 'y_pred'), words='error rate', formula='(FP + FN) / n', example='0.0'),
    _entry(name='error_rate_ratio', kind='ratio', measures=('error_rate',), inputs=('y_true', 'y_pred'), words='error rate', formula='(FP + FN) / n', example='1.0'),
    _entry(name='predicted_positive_share_difference', kind='difference', measures=('predicted_positive_share',), inputs=('y_pred',), words="share of all predicted positives (Aequitas' ppr)", formula='PP_a / \\sum_g PP_g', example='0.2'),
    _entry(name='predicted_positive_share_ratio', kind='ratio', measures=('predicted_positive_share',), inputs=('y_pred',), words="share of all predicted positives (Aequitas' ppr)", formula='PP_a / \\sum_g PP_g', example='0.6667'),
    _entry(name='f1_difference', kind='difference', measures=('f1',), inputs=('y_true', 'y_pred'), words='F1 score', formula='2 TP / (2 TP + FP + FN)', example='0.1667'),
    _entry(name='f1_ratio', kind='ratio', measures=('f1',), inputs=('y_true', 'y_pred'), words='F1 score', formula='2 TP / (2 TP + FP + FN)', example='0.75'),
    _entry(name='balanced_accuracy_difference', kind='difference', measures=('balanced_accuracy',), inputs=('y_true', 'y_pred'), words='balanced accuracy', formula='(TPR + TNR) / 2', example='0.0'),
    _entry(name='balanced_accuracy_ratio', kind='ratio', measures=('balanced_accuracy',), inputs=('y_true', 'y_pred'), words='balanced accuracy', formula='(TPR + TNR) / 2', example='1.0'),
    _entry(name='balance_for_positive_class_difference', kind='difference', measures=('balance_for_positive_class',), inputs=('y_true', 'y_prob'), words='mean score of the actual positives', formula='E[S \\mid Y=1, A=a]', note="Kleinberg et al.'s balance for the positive class: people who are in fact positive should get the same average score whatever their group. Computed from the score summed over actual positives in the statistics table (no extra pass).", example='0.15'),
    _entry(name='balance_for_positive_class_ratio', kind='ratio', measures=('balance_for_positive_class',), inputs=('y_true', 'y_prob'), words='mean score of the actual positives', formula='E[S \\mid Y=1, A=a]', note="Kleinberg et al.'s balance for the positive class: people who are in fact positive should get the same average score whatever their group. Computed from the score summed over actual positives in the statistics table (no extra pass).", example='0.7857'),
    _entry(name='balance_for_negative_class_difference', kind='difference', measures=('balance_for_negative_class',), inputs=('y_true', 'y_prob'), words='mean score of the actual negatives', formula='E[S \\mid Y=0, A=a]', note="Balance for the negative class: a higher mean score for one group's actual negatives is the score-level analogue of a higher false positive rate. Computed from a score sum in the statistics table (no extra pass).", example='0.1'),
    _entry(name='balance_for_negative_class_ratio', kind='ratio', measures=('balance_for_negative_class',), inputs=('y_true', 'y_prob'), words='mean score of the actual negatives', formula='E[S \\mid Y=0, A=a]', note="Balance for the negative class: a higher mean score for one group's actual negatives is the score-level analogue of a higher false positive rate. Computed from a score sum in the statistics table (no extra pass).", example='0.75'),
    _entry(name='demographic_parity_difference', kind='difference', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', note='Same definition and numbers as :func:`fairlearn.metrics.demographic_parity_difference`.', example='0.2'),
    _entry(name='demographic_parity_ratio', kind='ratio', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', note='Same definition and numbers as :func:`fairlearn.metrics.demographic_parity_ratio`.', example='0.6667'),
    _entry(name='equal_opportunity_difference', kind='difference', measures=('true_positive_rate',), inputs=('y_true', 'y_pred'), words='true positive rate', formula='TP / (TP + FN)', note="Same as fairlearn's ``equal_opportunity_difference``; with `reference_group`, AIF360's signed ``equal_opportunity_difference``.", example='0.1667'),
    _entry(name='equal_opportunity_ratio', kind='ratio', measures=('true_positive_rate',), inputs=('y_true', 'y_pred'), words='true positive rate', formula='TP / (TP + FN)', note="Same as fairlearn's ``equal_opportunity_ratio``.", example='0.75'),
    _entry(name='predictive_equality_difference', kind='difference', measures=('false_positive_rate',), inputs=('y_true', 'y_pred'), words='false positive rate', formula='FP / (FP + TN)', note='Predictive equality compares false positive rates (not false discovery rates).', example='0.1667'),
    _entry(name='predictive_equality_ratio', kind='ratio', measures=('false_positive_rate',), inputs=('y_true', 'y_pred'), words='false positive rate', formula='FP / (FP + TN)', note='Predictive equality compares false positive rates (not false discovery rates).', example='0.6667'),
    _entry(name='predictive_parity_difference', kind='difference', measures=('positive_predictive_value',), inputs=('y_true', 'y_pred'), words='positive predictive value (precision)', formula='TP / (TP + FP)', note='Predictive parity compares positive predictive values (precision).', example='0.1667'),
    _entry(name='predictive_parity_ratio', kind='ratio', measures=('positive_predictive_value',), inputs=('y_true', 'y_pred'), words='positive predictive value (precision)', formula='TP / (TP + FP)', note='Predictive parity compares positive predictive values (precision).', example='0.75'),
    _entry(name='statistical_parity_difference', kind='difference', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', note="With `reference_group` (the privileged group) and two groups this is AIF360's signed ``statistical_parity_difference`` (unprivileged minus privileged).", example='0.2'),
    _entry(name='disparate_impact_ratio', kind='ratio', measures=('selection_rate',), inputs=('y_pred',), words='selection rate', formula='P(\\hat{Y}=1 \\mid A=a)', note="With `reference_group` (the privileged group) and two groups this is AIF360's ``disparate_impact`` (unprivileged over privileged); the four-fifths rule asks for at least 0.8.", example='0.6667'),
    _entry(name='equalized_odds_difference', kind='difference', measures=('true_positive_rate', 'false_positive_rate'), inputs=('y_true', 'y_pred'), words='the true positive rate and false positive rate comparisons', note='Same definition and numbers as :func:`fairlearn.metrics.equalized_odds_difference`.', example='0.1667', agg_param=True),
    _entry(name='equalized_odds_ratio', kind='ratio', measures=('true_positive_rate', 'false_positive_rate'), inputs=('y_true', 'y_pred'), words='the true positive rate and false positive rate comparisons', note='Same definition and numbers as :func:`fairlearn.metrics.equalized_odds_ratio`.', example='0.6667', agg_param=True),
    _entry(name='average_odds_difference', kind='difference', measures=('average_odds',), inputs=('y_true', 'y_pred'), words='the average odds :math:`(TPR + FPR) / 2`; between a group and a reference this is :math:`\\tfrac12(\\Delta FPR + \\Delta TPR)`', note="With `reference_group` and two groups this is AIF360's signed ``average_odds_difference``.", example='0.1667'),
    _entry(name='average_abs_odds_difference', kind='difference', measures=('true_positive_rate', 'false_positive_rate'), inputs=('y_true', 'y_pred'), words='the absolute odds gaps :math:`\\tfrac12(|\\Delta FPR| + |\\Delta TPR|)`; ``between_groups`` averages the two ranges, ``to_overall`` and ``to_reference`` take the largest per-group value', note="With `reference_group` and two groups this is AIF360's ``average_abs_odds_difference``.", example='0.1667'),
    _entry(name='conditional_use_accuracy_difference', kind='difference', measures=('positive_predictive_value', 'negative_predictive_value'), inputs=('y_true', 'y_pred'), words='the worst of the positive and negative predictive value comparisons', note='Conditional use accuracy equality asks for equal PPV and equal NPV.', example='0.1667'),
    _entry(name='conditional_use_accuracy_ratio', kind='ratio', measures=('positive_predictive_value', 'negative_predictive_value'), inputs=('y_true', 'y_pred'), words='the worst of the positive and negative predictive value comparisons', note='Conditional use accuracy equality asks for equal PPV and equal NPV.', example='0.75'),
    _entry(name='treatment_equality_difference', kind='difference', measures=('treatment_equality',), inputs=('y_true', 'y_pred'), words='the ratio of false negatives to false positives :math:`FN / FP` (null when FP = 0)', note='Treatment equality (Berk et al.) asks for the same FN / FP balance in every group.', example='0.0'),
    _entry(name='treatment_equality_ratio', kind='ratio', measures=('treatment_equality',), inputs=('y_true', 'y_pred'), words='the ratio of false negatives to false positives :math:`FN / FP` (null when FP = 0)', note='Treatment equality (Berk et al.) asks for the same FN / FP balance in every group.', example='1.0'),
    # ---- two-group statistics of the selection rate (hand-written methods) -------
    Criterion(name="cohen_d", kind="statistic", measures=_SR, family="statistic",
              inputs=("y_pred",), ideal=0.0, band="cohen_d", interval="delta"),
    Criterion(name="two_sd_rule", kind="statistic", measures=_SR, family="statistic",
              inputs=("y_pred",), ideal=0.0, band="z", interval="normal"),
    Criterion(name="four_fifths_rule", kind="statistic", measures=_SR, family="statistic",
              inputs=("y_pred",), ideal=1.0, band="four_fifths", interval="katz"),
    # ---- the groups' ROC AUC, from the ROC table (need a score) ----------------------
    Criterion(name="roc_auc_difference", kind="difference", measures=("roc_auc",), family="auc",
              inputs=("y_true", "y_prob"), ideal=0.0, band="difference", interval="delong",
              words="area under the ROC curve (ROC AUC)", formula=_AUC, note=_AUC_NOTE,
              example="0.0"),
    Criterion(name="roc_auc_ratio", kind="ratio", measures=("roc_auc",), family="auc",
              inputs=("y_true", "y_prob"), ideal=1.0, band="ratio", interval="delong_log",
              words="area under the ROC curve (ROC AUC)", formula=_AUC, note=_AUC_NOTE,
              example="1.0"),
    # ---- regression: per-group measures of the regression sums ---------------------
    _regression(
        "average_score_difference", "mean_prediction",
        "Difference in mean prediction between groups (statistical parity for regression).",
        "the mean prediction of each group (Holistic AI's average score difference).",
        "2.5",
    ),
    _regression(
        "average_score_ratio", "mean_prediction",
        "Ratio of mean predictions between groups.",
        "the mean prediction of each group (Holistic AI's average score ratio).",
        "0.5",
    ),
    _regression(
        "rmse_difference", "rmse",
        "Difference in root mean squared error between groups.",
        "``sqrt(mean((y_pred - y_true)²))`` of each group.",
        "0.4569",
    ),
    _regression(
        "rmse_ratio", "rmse",
        "Ratio of root mean squared errors between groups.",
        "``sqrt(mean((y_pred - y_true)²))`` of each group (Holistic AI's RMSE ratio).",
        "0.6547",
    ),
    _regression(
        "mae_difference", "mae",
        "Difference in mean absolute error between groups.",
        "``mean(|y_pred - y_true|)`` of each group.",
        "0.5",
    ),
    _regression(
        "mae_ratio", "mae",
        "Ratio of mean absolute errors between groups.",
        "``mean(|y_pred - y_true|)`` of each group (Holistic AI's MAE ratio).",
        "0.6",
    ),
    _regression(
        "correlation_difference", "correlation",
        "Difference in the correlation of prediction and truth between groups.",
        "Pearson's r of prediction and truth in each group (Holistic AI's correlation difference).",
        "0.3917",
    ),
    # ---- ensembles: per-group means of per-row stability and uncertainty ------------
    _ensemble("label_stability", "difference", "0.6667"),
    _ensemble("label_stability", "ratio", "0.3333"),
    _ensemble("jitter", "difference", "0.6667"),
    _ensemble("jitter", "ratio", "0.0"),
    _ensemble("std", "difference", "0.0607"),
    _ensemble("std", "ratio", "0.6222"),
    _ensemble("iqr", "difference", "0.05"),
    _ensemble("iqr", "ratio", "0.6667"),
    _ensemble("aleatoric_uncertainty", "difference", "0.2576"),
    _ensemble("aleatoric_uncertainty", "ratio", "0.7284"),
    _ensemble("epistemic_uncertainty", "difference", "0.0197"),
    _ensemble("epistemic_uncertainty", "ratio", "0.6133"),
    _ensemble("overall_uncertainty", "difference", "0.2773"),
    _ensemble("overall_uncertainty", "ratio", "0.7225"),
)  # fmt: skip

#: Every criterion of polars_fair, by name.
CATALOGUE: dict[str, Criterion] = {entry.name: entry for entry in _ENTRIES}


def catalogue_table() -> str:
    """The catalogue as a Markdown table (docs/metrics/catalogue.md is this text)."""
    rows = [
        "| criterion | kind | family | compares | inputs | ideal | fair band | interval |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in _ENTRIES:
        measures = ", ".join(c.measures)
        agg = f" ({c.agg})" if len(c.measures) > 1 else ""
        rows.append(
            f"| `{c.name}` | {c.kind} | {c.family} | {measures}{agg} | "
            f"{', '.join(f'`{i}`' for i in c.inputs)} | {c.ideal:g} | {c.band} | "
            f"{c.interval or '-'} |"
        )
    return "\n".join(rows) + "\n"
