"""Parity with fairlearn: identical numbers on the same data (DESIGN.md section 4).

Every criterion of polars_fair that fairlearn also defines must agree with
fairlearn to 1e-12 for ``method="between_groups"`` and ``method="to_overall"``,
weighted and unweighted, on eager, lazy in-memory and lazy streaming frames.
The per-group rates of ``by_group`` must equal fairlearn's ``MetricFrame.by_group``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
pd = pytest.importorskip("pandas")
sk_metrics = pytest.importorskip("sklearn.metrics")

pytestmark = pytest.mark.oracle

TOL = 1e-12
N_ROWS = 2000


def _dataset(seed: int) -> pl.DataFrame:
    """Seeded data: 4 groups of unequal size and rates, a second sensitive column, weights.

    Every group (and every intersection of `group` x `sex`) has positives and
    negatives in both labels, so every rate is defined and no warning is emitted.
    """
    rng = np.random.default_rng(seed)
    group = rng.choice(np.array(["a", "b", "c", "d"]), size=N_ROWS, p=[0.4, 0.3, 0.2, 0.1])
    sex = rng.choice(np.array(["F", "M"]), size=N_ROWS, p=[0.45, 0.55])
    base = {"a": 0.5, "b": 0.35, "c": 0.6, "d": 0.25}
    p_true = np.array([base[g] for g in group]) + np.where(sex == "F", 0.05, -0.05)
    y_true = (rng.random(N_ROWS) < p_true).astype(np.int64)
    # predictions correlate with the label, with group-dependent noise
    flip = {"a": 0.15, "b": 0.3, "c": 0.2, "d": 0.4}
    noise = rng.random(N_ROWS) < np.array([flip[g] for g in group])
    y_pred = np.where(noise, 1 - y_true, y_true).astype(np.int64)
    weight = rng.uniform(0.1, 3.0, size=N_ROWS)
    return pl.DataFrame(
        {"group": group, "sex": sex, "y_true": y_true, "y_pred": y_pred, "w": weight}
    )


@pytest.fixture(scope="module")
def data() -> pl.DataFrame:
    df = _dataset(20240611)
    # precondition: every rate is defined in every (intersectional) group
    cells = df.group_by("group", "sex", "y_true", "y_pred").len()
    assert cells.height == 4 * 2 * 2 * 2
    return df


def _sensitive_arg(df: pl.DataFrame, sensitive: list[str]) -> Any:
    if len(sensitive) == 1:
        return df.get_column(sensitive[0]).to_numpy()
    return _pandas(df, sensitive)


def _pandas(df: pl.DataFrame, columns: list[str]) -> Any:
    """A pandas frame built from numpy columns (pyarrow is not needed)."""
    return pd.DataFrame({c: df.get_column(c).to_numpy() for c in columns})


CRITERIA = [
    ("demographic_parity_difference", {}),
    ("demographic_parity_ratio", {}),
    ("equalized_odds_difference", {"agg": "worst_case"}),
    ("equalized_odds_difference", {"agg": "mean"}),
    ("equalized_odds_ratio", {"agg": "worst_case"}),
    ("equalized_odds_ratio", {"agg": "mean"}),
    ("equal_opportunity_difference", {}),
    ("equal_opportunity_ratio", {}),
]
LABELS = {"y_true": "y_true", "y_pred": "y_pred"}
SENSITIVE = [["group"], ["group", "sex"]]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("sensitive", SENSITIVE, ids=["single", "intersectional"])
@pytest.mark.parametrize(
    ("name", "extra"), CRITERIA, ids=[f"{n}-{e.get('agg', '')}".rstrip("-") for n, e in CRITERIA]
)
def test_criterion_matches_fairlearn(
    run: Any,
    data: pl.DataFrame,
    name: str,
    extra: dict[str, Any],
    sensitive: list[str],
    method: str,
    weighted: bool,
) -> None:
    weights = data.get_column("w").to_numpy() if weighted else None
    expected = getattr(fairlearn_metrics, name)(
        data.get_column("y_true").to_numpy(),
        data.get_column("y_pred").to_numpy(),
        sensitive_features=_sensitive_arg(data, sensitive),
        method=method,
        sample_weight=weights,
        **extra,
    )
    # demographic parity needs only the predictions: it takes no `y_true`
    labels = {"y_pred": "y_pred"} if name.startswith("demographic") else LABELS
    got = run(
        data,
        name,
        **labels,
        sensitive_features=sensitive if len(sensitive) > 1 else sensitive[0],
        method=method,
        sample_weight="w" if weighted else None,
        **extra,
    )
    assert isinstance(got, float)
    assert got == pytest.approx(float(expected), abs=TOL, rel=0)


def test_intersectional_groups_are_distinct(data: pl.DataFrame) -> None:
    """The intersectional case really is different from the single-feature one."""
    single = data.fair.demographic_parity_difference(y_pred="y_pred", sensitive_features="group")
    both = data.fair.demographic_parity_difference(
        y_pred="y_pred", sensitive_features=["group", "sex"]
    )
    assert single != pytest.approx(both, abs=1e-6)


# ---- MetricFrame.by_group ---------------------------------------------------------


def _metric_frame(data: pl.DataFrame, sensitive: list[str], weighted: bool) -> Any:
    mf_metrics = {
        "selection_rate": fairlearn_metrics.selection_rate,
        "true_positive_rate": fairlearn_metrics.true_positive_rate,
        "false_positive_rate": fairlearn_metrics.false_positive_rate,
        "false_negative_rate": fairlearn_metrics.false_negative_rate,
        "true_negative_rate": fairlearn_metrics.true_negative_rate,
        "positive_predictive_value": sk_metrics.precision_score,
        # recall is the true positive rate, computed by sklearn this time
        "recall": sk_metrics.recall_score,
        "accuracy": sk_metrics.accuracy_score,
    }
    sample_params = None
    if weighted:
        w = data.get_column("w").to_numpy()
        sample_params = {k: {"sample_weight": w} for k in mf_metrics}
    return fairlearn_metrics.MetricFrame(
        metrics=mf_metrics,
        y_true=data.get_column("y_true").to_numpy(),
        y_pred=data.get_column("y_pred").to_numpy(),
        sensitive_features=_pandas(data, sensitive),
        sample_params=sample_params,
    )


# our column -> MetricFrame column
BY_GROUP_COLUMNS = {
    "selection_rate": "selection_rate",
    "true_positive_rate": "true_positive_rate",
    "false_positive_rate": "false_positive_rate",
    "false_negative_rate": "false_negative_rate",
    "true_negative_rate": "true_negative_rate",
    "positive_predictive_value": "positive_predictive_value",
    "accuracy": "accuracy",
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("sensitive", SENSITIVE, ids=["single", "intersectional"])
def test_by_group_matches_metric_frame(
    run: Any, data: pl.DataFrame, sensitive: list[str], weighted: bool
) -> None:
    mf = _metric_frame(data, sensitive, weighted)
    table = mf.by_group.reset_index()
    expected = pl.DataFrame(
        {c: table[c].to_numpy() for c in [*sensitive, *BY_GROUP_COLUMNS.values(), "recall"]}
    ).sort(sensitive)
    got = run(
        data,
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features=sensitive,
        sample_weight="w" if weighted else None,
    )
    assert isinstance(got, pl.DataFrame)
    assert got.select(sensitive).rows() == expected.select(sensitive).rows()
    for ours, theirs in BY_GROUP_COLUMNS.items():
        np.testing.assert_allclose(
            got.get_column(ours).to_numpy(),
            expected.get_column(theirs).to_numpy(),
            rtol=0,
            atol=TOL,
            err_msg=ours,
        )
    np.testing.assert_allclose(
        got.get_column("true_positive_rate").to_numpy(),
        expected.get_column("recall").to_numpy(),
        rtol=0,
        atol=TOL,
    )


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_overall_matches_metric_frame(run: Any, data: pl.DataFrame, weighted: bool) -> None:
    """A constant sensitive column gives one group: the MetricFrame's `overall`."""
    mf = _metric_frame(data, ["group"], weighted)
    one = data.with_columns(pl.lit("all").alias("everyone"))
    got = run(
        one,
        "by_group",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="everyone",
        sample_weight="w" if weighted else None,
    )
    assert got.height == 1
    for ours, theirs in BY_GROUP_COLUMNS.items():
        assert got.item(0, ours) == pytest.approx(float(mf.overall[theirs]), abs=TOL, rel=0)
