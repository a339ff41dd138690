"""Parity with AIF360's ``ClassificationMetric`` (DESIGN.md section 4).

With two groups, ``method="to_reference"`` and the privileged group as
``reference_group``, every signed criterion of polars_fair is AIF360's
"unprivileged - privileged" (or "unprivileged / privileged") and must match it to
1e-12, with and without instance weights, on every engine.

Definitions checked against AIF360 0.6 (``ClassificationMetric.performance_measures``):

* FOR: AIF360 computes ``FN / (FN + TN)``, the same as polars_fair's
  ``false_omission_rate`` (FN / PN, DESIGN.md section 3). Some older write-ups use
  ``FN / N``; we do not, and neither does AIF360 0.6. ``test_false_omission_rate_is_fn_over_pn``
  pins it down with the per-group values.
* FDR = FP / (TP + FP), PPV = TP / (TP + FP), ERR = (FP + FN) / (P + N): same as ours.
* Where a denominator is 0, AIF360 returns 0.0 for PPV/NPV/FDR/FOR/ACC (and a
  division warning for TPR etc.) while polars_fair returns null. The data here has
  every rate defined, so the difference never shows; it is pinned by
  ``test_undefined_rates_differ_from_aif360``.
* AIF360 has no ``positive_predictive_value_difference`` method: we use its generic
  ``difference(positive_predictive_value)``, the function its own ``*_difference``
  methods call.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import polars as pl
import pytest

from polars_fair.exceptions import UndefinedMetricWarning

pd = pytest.importorskip("pandas")


def _import_aif360() -> Any:
    """Import AIF360 without its root-logger warnings about optional extras."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        datasets = pytest.importorskip("aif360.datasets")
        metrics = pytest.importorskip("aif360.metrics")
    finally:
        root.setLevel(level)
    return datasets, metrics


aif_datasets, aif_metrics = _import_aif360()

pytestmark = pytest.mark.oracle

TOL = 1e-12
N_ROWS = 2000
PRIVILEGED = 1
UNPRIVILEGED = 0


def _dataset(seed: int) -> pl.DataFrame:
    """Two groups with different base rates and error rates; every rate defined."""
    rng = np.random.default_rng(seed)
    # 1 = privileged, the SMALLER group: the default reference ("largest") would be
    # the other one, so the tests see that `reference_group` is honoured
    race = (rng.random(N_ROWS) < 0.4).astype(np.int64)
    p_true = np.where(race == PRIVILEGED, 0.55, 0.35)
    y_true = (rng.random(N_ROWS) < p_true).astype(np.int64)
    flip = np.where(race == PRIVILEGED, 0.15, 0.3)
    # unprivileged group: more false negatives than false positives
    extra_fn = (race == UNPRIVILEGED) & (y_true == 1) & (rng.random(N_ROWS) < 0.2)
    y_pred = np.where(rng.random(N_ROWS) < flip, 1 - y_true, y_true)
    y_pred = np.where(extra_fn, 0, y_pred).astype(np.int64)
    w = rng.uniform(0.2, 4.0, size=N_ROWS)
    return pl.DataFrame({"race": race, "y_true": y_true, "y_pred": y_pred, "w": w})


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    df = _dataset(7)
    assert df.group_by("race", "y_true", "y_pred").len().height == 8
    return df


def _classification_metric(df: pl.DataFrame, weighted: bool) -> Any:
    def binary_label_dataset(label: str) -> Any:
        frame = pd.DataFrame(
            {
                "race": df.get_column("race").to_numpy().astype(float),
                "label": df.get_column(label).to_numpy().astype(float),
                "w": df.get_column("w").to_numpy() if weighted else np.ones(df.height),
            }
        )
        return aif_datasets.BinaryLabelDataset(
            df=frame,
            label_names=["label"],
            protected_attribute_names=["race"],
            instance_weights_name="w",
            favorable_label=1.0,
            unfavorable_label=0.0,
        )

    return aif_metrics.ClassificationMetric(
        binary_label_dataset("y_true"),
        binary_label_dataset("y_pred"),
        unprivileged_groups=[{"race": UNPRIVILEGED}],
        privileged_groups=[{"race": PRIVILEGED}],
    )


@pytest.fixture(scope="module", params=[False, True], ids=["unweighted", "weighted"])
def weighted(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture(scope="module")
def aif(data: pl.DataFrame, weighted: bool) -> Any:
    return _classification_metric(data, weighted)


# polars_fair criterion -> AIF360 value (a function of the ClassificationMetric)
PARITY: dict[str, Any] = {
    "statistical_parity_difference": lambda m: m.statistical_parity_difference(),
    "demographic_parity_difference": lambda m: m.statistical_parity_difference(),
    "disparate_impact_ratio": lambda m: m.disparate_impact(),
    "demographic_parity_ratio": lambda m: m.disparate_impact(),
    "equal_opportunity_difference": lambda m: m.equal_opportunity_difference(),
    "average_odds_difference": lambda m: m.average_odds_difference(),
    "average_abs_odds_difference": lambda m: m.average_abs_odds_difference(),
    "true_positive_rate_difference": lambda m: m.true_positive_rate_difference(),
    "false_positive_rate_difference": lambda m: m.false_positive_rate_difference(),
    "false_negative_rate_difference": lambda m: m.false_negative_rate_difference(),
    "false_discovery_rate_difference": lambda m: m.false_discovery_rate_difference(),
    "false_omission_rate_difference": lambda m: m.false_omission_rate_difference(),
    "error_rate_difference": lambda m: m.error_rate_difference(),
    "positive_predictive_value_difference": lambda m: m.difference(m.positive_predictive_value),
    "predictive_parity_difference": lambda m: m.difference(m.positive_predictive_value),
    "false_positive_rate_ratio": lambda m: m.false_positive_rate_ratio(),
    "false_negative_rate_ratio": lambda m: m.false_negative_rate_ratio(),
    "false_discovery_rate_ratio": lambda m: m.false_discovery_rate_ratio(),
    "false_omission_rate_ratio": lambda m: m.false_omission_rate_ratio(),
    "error_rate_ratio": lambda m: m.error_rate_ratio(),
}
PREDICTION_ONLY = {
    "statistical_parity_difference",
    "demographic_parity_difference",
    "disparate_impact_ratio",
    "demographic_parity_ratio",
}


@pytest.mark.parametrize("name", list(PARITY))
def test_criterion_matches_aif360(
    run: Any, data: pl.DataFrame, weighted: bool, aif: Any, name: str
) -> None:
    expected = float(PARITY[name](aif))
    labels = (
        {"y_pred": "y_pred"}
        if name in PREDICTION_ONLY
        else {"y_true": "y_true", "y_pred": "y_pred"}
    )
    got = run(
        data,
        name,
        **labels,
        sensitive_features="race",
        reference_group=PRIVILEGED,
        method="to_reference",
        sample_weight="w" if weighted else None,
    )
    assert isinstance(got, float)
    assert got == pytest.approx(expected, abs=TOL, rel=0)


@pytest.mark.parametrize("name", ["statistical_parity_difference", "average_odds_difference"])
def test_reference_group_implies_to_reference(
    data: pl.DataFrame, weighted: bool, aif: Any, name: str
) -> None:
    """``method`` defaults to "to_reference" when a reference group is given."""
    labels = (
        {"y_pred": "y_pred"}
        if name in PREDICTION_ONLY
        else {"y_true": "y_true", "y_pred": "y_pred"}
    )
    got = getattr(data.fair, name)(
        **labels,
        sensitive_features="race",
        reference_group=PRIVILEGED,
        sample_weight="w" if weighted else None,
    )
    assert got == pytest.approx(float(PARITY[name](aif)), abs=TOL, rel=0)


def test_swapping_the_reference_flips_the_sign(
    data: pl.DataFrame, weighted: bool, aif: Any
) -> None:
    kw = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "race",
        "sample_weight": "w" if weighted else None,
    }
    priv = data.fair.average_odds_difference(**kw, reference_group=PRIVILEGED)
    unpriv = data.fair.average_odds_difference(**kw, reference_group=UNPRIVILEGED)
    assert priv == pytest.approx(aif.average_odds_difference(), abs=TOL, rel=0)
    assert unpriv == pytest.approx(-aif.average_odds_difference(), abs=TOL, rel=0)


def test_criteria_are_signed(data: pl.DataFrame, aif: Any) -> None:
    """The data makes the unprivileged group worse off: AIF360's signs are kept."""
    assert aif.statistical_parity_difference() < 0
    assert aif.equal_opportunity_difference() < 0
    got = data.fair.statistical_parity_difference(
        y_pred="y_pred", sensitive_features="race", reference_group=PRIVILEGED
    )
    assert got is not None
    assert got < 0


# polars_fair by_group column -> AIF360 per-group rate (privileged=True/False)
RATES: dict[str, Any] = {
    "selection_rate": lambda m, p: m.selection_rate(privileged=p),
    "true_positive_rate": lambda m, p: m.true_positive_rate(privileged=p),
    "false_positive_rate": lambda m, p: m.false_positive_rate(privileged=p),
    "false_negative_rate": lambda m, p: m.false_negative_rate(privileged=p),
    "true_negative_rate": lambda m, p: m.true_negative_rate(privileged=p),
    "positive_predictive_value": lambda m, p: m.positive_predictive_value(privileged=p),
    "negative_predictive_value": lambda m, p: m.negative_predictive_value(privileged=p),
    "false_discovery_rate": lambda m, p: m.false_discovery_rate(privileged=p),
    "false_omission_rate": lambda m, p: m.false_omission_rate(privileged=p),
    "accuracy": lambda m, p: m.accuracy(privileged=p),
    "error_rate": lambda m, p: m.error_rate(privileged=p),
}


def test_by_group_rates_match_aif360(
    run: Any, data: pl.DataFrame, weighted: bool, aif: Any
) -> None:
    got = run(
        data,
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="race",
        sample_weight="w" if weighted else None,
    )
    assert got.get_column("race").to_list() == [UNPRIVILEGED, PRIVILEGED]
    for rate, of in RATES.items():
        for row, privileged in ((0, False), (1, True)):
            expected = float(of(aif, privileged))
            assert got.item(row, rate) == pytest.approx(expected, abs=TOL, rel=0), (rate, row)


def test_false_omission_rate_is_fn_over_pn(data: pl.DataFrame, aif: Any, weighted: bool) -> None:
    """AIF360 0.6's FOR is FN / (FN + TN), as ours; FN / N would differ here."""
    table = data.fair.by_group(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="race",
        sample_weight="w" if weighted else None,
    )
    for row, privileged in ((0, False), (1, True)):
        fn = aif.num_false_negatives(privileged=privileged)
        tn = aif.num_true_negatives(privileged=privileged)
        negatives = aif.num_negatives(privileged=privileged)
        assert aif.false_omission_rate(privileged=privileged) == pytest.approx(
            fn / (fn + tn), abs=TOL, rel=0
        )
        assert table.item(row, "false_omission_rate") == pytest.approx(
            fn / (fn + tn), abs=TOL, rel=0
        )
        assert fn / negatives != pytest.approx(fn / (fn + tn), abs=1e-6)


def test_undefined_rates_differ_from_aif360() -> None:
    """Documented difference: an undefined PPV is 0.0 in AIF360 and null here.

    The unprivileged group has no predicted positives, so its PPV is 0/0.
    """
    df = pl.DataFrame(
        {
            "race": [0, 0, 0, 0, 1, 1, 1, 1],
            "y_true": [1, 0, 1, 0, 1, 0, 1, 0],
            "y_pred": [0, 0, 0, 0, 1, 1, 0, 0],
        }
    ).with_columns(w=pl.lit(1.0))
    aif = _classification_metric(df, weighted=False)
    assert aif.positive_predictive_value(privileged=False) == 0.0
    with pytest.warns(UndefinedMetricWarning) as record:
        table = df.fair.by_group(y_true="y_true", y_pred="y_pred", sensitive_features="race")
    assert any("positive_predictive_value is undefined" in str(w.message) for w in record)
    assert table.item(0, "positive_predictive_value") is None
    assert table.item(1, "positive_predictive_value") == 0.5
