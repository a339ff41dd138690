"""Inequality indices against a row-level numpy reference, and against AIF360.

`tests/reference_stats.py` materialises ``b_i = yhat_i - y_i + 1`` row by row and
evaluates the textbook formulas of the Jurity seed (001); polars_fair computes the
same indices from the four confusion counts. Every check runs on eager, lazy
in-memory and lazy streaming frames (the `run` fixture).

AIF360 0.6 (``ClassificationMetric`` and ``aif360.sklearn.metrics``) agrees with the
textbook formula for alpha != 0, for the Theil index, for the coefficient of
variation and for the between-group versions; it differs at alpha = 0, where it
divides the mean log deviation by mu once more, and it ignores instance weights.
Both are pinned in ``test_aif360_differs_*``.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_stats as ref

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

REL = 1e-12
ALPHAS = (0.0, 0.5, 1.0, 2.0, 3.0)


def _frame(data: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(data, schema_overrides={"y_true": pl.Int64, "y_pred": pl.Int64})


def _close(got: Any, want: Any, rel: float = REL) -> bool:
    if want is None or got is None:
        return got is None and want is None
    if math.isinf(want) or math.isinf(got):
        return bool(got == want)
    return bool(math.isclose(got, want, rel_tol=rel, abs_tol=1e-14))


# name -> make_data kwargs, sensitive columns, weighted
CASES: dict[str, tuple[dict[str, Any], list[str], bool]] = {
    "two-groups": (dict(seed=11, groups=(0, 1), group_p=(0.3, 0.7)), ["g"], False),
    "three-groups": (dict(seed=12), ["g"], False),
    "five-groups": (dict(seed=13, groups=tuple("abcde"), rows=500), ["g"], False),
    "weighted": (dict(seed=14, weights="float"), ["g"], True),
    "nulls": (dict(seed=15, nulls=True), ["g"], False),
    "weighted-nulls-2d": (
        dict(seed=16, weights="float", nulls=True, second=("x", "y")),
        ["g", "h"],
        True,
    ),
    "no-false-negatives": (dict(seed=17, no_false_negatives=True), ["g"], False),
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(
    request: pytest.FixtureRequest,
) -> tuple[pl.DataFrame, dict[str, Any], ref.Rows, list[str]]:
    spec, sens, weighted = CASES[request.param]
    data = ref.make_data(**spec)
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred"}
    if weighted:
        kw["sample_weight"] = "w"
    return _frame(data), kw, ref.rows_of(data, sens, weighted=weighted), sens


@pytest.mark.parametrize("alpha", ALPHAS)
def test_generalized_entropy_index(run: Any, case: Any, alpha: float) -> None:
    df, kw, rows, _ = case
    want = ref.generalized_entropy_index(rows, alpha)
    got = run(df, "generalized_entropy_index", alpha=alpha, **kw)
    assert _close(got, want), (got, want)


def test_alpha_zero_is_infinite_with_a_false_negative(run: Any) -> None:
    # one false negative (b = 0) makes -1/n sum ln(b/mu) = +inf; the reference agrees
    data = ref.make_data(21, rows=60)
    rows = ref.rows_of(data)
    assert np.any(ref.benefit(rows) == 0)
    assert ref.generalized_entropy_index(rows, 0.0) == math.inf
    assert (
        run(_frame(data), "generalized_entropy_index", y_true="y_true", y_pred="y_pred", alpha=0.0)
        == math.inf
    )


def test_alpha_zero_is_finite_without_false_negatives(run: Any) -> None:
    data = ref.make_data(22, rows=80, no_false_negatives=True)
    rows = ref.rows_of(data)
    want = ref.generalized_entropy_index(rows, 0.0)
    assert want is not None
    assert math.isfinite(want)
    assert want > 0
    got = run(
        _frame(data), "generalized_entropy_index", y_true="y_true", y_pred="y_pred", alpha=0.0
    )
    assert _close(got, want)


def test_default_alpha_is_two(run: Any, case: Any) -> None:
    df, kw, rows, _ = case
    want = ref.generalized_entropy_index(rows, 2.0)
    assert _close(run(df, "generalized_entropy_index", **kw), want)


def test_theil_index(run: Any, case: Any) -> None:
    df, kw, rows, _ = case
    want = ref.theil_index(rows)
    assert _close(run(df, "theil_index", **kw), want)


def test_coefficient_of_variation(run: Any, case: Any) -> None:
    # the reference computes np.std(b)/np.mean(b) directly, not through GE(2)
    df, kw, rows, _ = case
    want = ref.coefficient_of_variation(rows)
    got = run(df, "coefficient_of_variation", **kw)
    assert _close(got, want), (got, want)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_between_group_generalized_entropy_index(run: Any, case: Any, alpha: float) -> None:
    df, kw, rows, sens = case
    want = ref.between_group_generalized_entropy_index(rows, alpha)
    got = run(
        df, "between_group_generalized_entropy_index", alpha=alpha, sensitive_features=sens, **kw
    )
    assert _close(got, want), (got, want)


def test_between_group_theil_index(run: Any, case: Any) -> None:
    df, kw, rows, sens = case
    want = ref.between_group_theil_index(rows)
    got = run(df, "between_group_theil_index", sensitive_features=sens, **kw)
    assert _close(got, want), (got, want)


def test_between_group_coefficient_of_variation(run: Any, case: Any) -> None:
    df, kw, rows, sens = case
    want = ref.between_group_coefficient_of_variation(rows)
    got = run(df, "between_group_coefficient_of_variation", sensitive_features=sens, **kw)
    assert _close(got, want), (got, want)


def test_between_group_default_alpha_is_two(run: Any, case: Any) -> None:
    df, kw, rows, sens = case
    want = ref.between_group_generalized_entropy_index(rows, 2.0)
    got = run(df, "between_group_generalized_entropy_index", sensitive_features=sens, **kw)
    assert _close(got, want)


def test_between_group_is_at_most_total(case: Any) -> None:
    # decomposition GE = within + between with within >= 0 (Shorrocks 1980), alpha = 2
    df, kw, _, sens = case
    total = df.fair.generalized_entropy_index(alpha=2.0, **kw)
    between = df.fair.between_group_generalized_entropy_index(
        alpha=2.0, sensitive_features=sens, **kw
    )
    assert 0 <= between <= total


@pytest.mark.parametrize("alpha", [0.0, 1.0, 2.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_by_batches(run: Any, alpha: float, weighted: bool) -> None:
    data = ref.make_data(
        31,
        rows=600,
        weights="float" if weighted else None,
        batches=("m1", "m2", "m3"),
        no_false_negatives=alpha == 0.0,
    )
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "by": "batch"}
    if weighted:
        kw["sample_weight"] = "w"
    df = _frame(data)
    for name in ("generalized_entropy_index", "between_group_generalized_entropy_index"):
        extra = {"sensitive_features": "g"} if name.startswith("between") else {}
        got = run(df, name, alpha=alpha, **kw, **extra)
        assert got.columns == ["batch", name]
        assert got["batch"].to_list() == ["m1", "m2", "m3"]
        for b, value in got.iter_rows():
            rows = ref.rows_of(ref.subset(data, "batch", b), ["g"], weighted=weighted)
            fn = (
                ref.between_group_generalized_entropy_index
                if extra
                else ref.generalized_entropy_index
            )
            assert _close(value, fn(rows, alpha)), (name, b, value)
    for name, fn1 in (
        ("theil_index", ref.theil_index),
        ("coefficient_of_variation", ref.coefficient_of_variation),
        ("between_group_theil_index", ref.between_group_theil_index),
        ("between_group_coefficient_of_variation", ref.between_group_coefficient_of_variation),
    ):
        extra = {"sensitive_features": "g"} if name.startswith("between") else {}
        got = run(df, name, **kw, **extra)
        assert got.columns == ["batch", name]
        for b, value in got.iter_rows():
            rows = ref.rows_of(ref.subset(data, "batch", b), ["g"], weighted=weighted)
            # a between-group CV is the root of GE(2)'s cancelling sum: near 0 its
            # relative precision is ~eps / CV**2 (1e-12 at CV = 0.009), not eps
            rel = 1e-9 if name == "between_group_coefficient_of_variation" else REL
            assert _close(value, fn1(rows), rel=rel), (name, b, value)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_integer_weights_are_frequency_weights(alpha: float) -> None:
    # weight k == the row repeated k times (frequency weights), on the library alone
    data = ref.make_data(41, rows=150, weights="int", no_false_negatives=alpha == 0.0)
    df = _frame(data)
    rep = df.select(pl.all().repeat_by("w").explode()).drop("w")
    assert rep.height == sum(data["w"])
    kw = {"y_true": "y_true", "y_pred": "y_pred", "alpha": alpha}
    weighted = df.fair.generalized_entropy_index(sample_weight="w", **kw)
    repeated = rep.fair.generalized_entropy_index(**kw)
    assert _close(weighted, repeated, rel=1e-12)
    bw = df.fair.between_group_generalized_entropy_index(
        sample_weight="w", sensitive_features="g", **kw
    )
    br = rep.fair.between_group_generalized_entropy_index(sensitive_features="g", **kw)
    assert _close(bw, br, rel=1e-12)


def test_named_indices_are_ge_special_cases(case: Any) -> None:
    df, kw, _, sens = case
    fair = df.fair
    assert _close(fair.theil_index(**kw), fair.generalized_entropy_index(alpha=1.0, **kw))
    cv = fair.coefficient_of_variation(**kw)
    assert _close(cv, math.sqrt(2 * fair.generalized_entropy_index(alpha=2.0, **kw)))
    assert _close(
        fair.between_group_theil_index(sensitive_features=sens, **kw),
        fair.between_group_generalized_entropy_index(alpha=1.0, sensitive_features=sens, **kw),
    )


def test_perfect_predictions_give_zero(run: Any) -> None:
    # b_i = 1 for every row: no inequality at any alpha (hand-derived: b/mu = 1)
    df = pl.DataFrame({"y_true": [0, 1, 1, 0, 1], "y_pred": [0, 1, 1, 0, 1], "g": list("aabbb")})
    kw = {"y_true": "y_true", "y_pred": "y_pred"}
    for alpha in ALPHAS:
        assert run(df, "generalized_entropy_index", alpha=alpha, **kw) == 0.0
        assert (
            run(
                df,
                "between_group_generalized_entropy_index",
                alpha=alpha,
                sensitive_features="g",
                **kw,
            )
            == 0.0
        )
    assert run(df, "coefficient_of_variation", **kw) == 0.0


def test_hand_computed_example(run: Any) -> None:
    # y_true=[1,0,0,1], y_pred=[1,1,0,0] -> b = [1, 2, 1, 0], mu = 1, b/mu = b.
    # GE(2) = 1/(4*2*1) * ((1-1) + (4-1) + (1-1) + (0-1)) = 2/8 = 0.25
    # GE(1) = 1/4 * (0 + 2 ln 2 + 0 + 0) = ln(2)/2
    # CV = std([1,2,1,0]) / 1 = sqrt(0.5)
    df = pl.DataFrame({"y_true": [1, 0, 0, 1], "y_pred": [1, 1, 0, 0]})
    kw = {"y_true": "y_true", "y_pred": "y_pred"}
    assert _close(run(df, "generalized_entropy_index", **kw), 0.25)
    assert _close(run(df, "theil_index", **kw), math.log(2) / 2)
    assert _close(run(df, "coefficient_of_variation", **kw), math.sqrt(0.5))
    assert run(df, "generalized_entropy_index", alpha=0.0, **kw) == math.inf


# ------------------------------------------------------------------------- AIF360


def _import_aif360() -> tuple[Any, Any, Any]:
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        pytest.importorskip("pandas")
        datasets = pytest.importorskip("aif360.datasets")
        metrics = pytest.importorskip("aif360.metrics")
        skm = pytest.importorskip("aif360.sklearn.metrics")
    finally:
        root.setLevel(level)
    return datasets, metrics, skm


def _aif_metric(data: dict[str, list[Any]], weighted: bool) -> Any:
    import pandas as pd

    datasets, metrics, _ = _import_aif360()

    def dataset(label: str) -> Any:
        frame = pd.DataFrame(
            {
                "g": np.asarray(data["g"], dtype=float),
                "label": np.asarray(data[label], dtype=float),
                "w": np.asarray(data["w"], dtype=float) if weighted else np.ones(len(data["g"])),
            }
        )
        return datasets.BinaryLabelDataset(
            df=frame,
            label_names=["label"],
            protected_attribute_names=["g"],
            instance_weights_name="w",
            favorable_label=1.0,
            unfavorable_label=0.0,
        )

    return metrics.ClassificationMetric(
        dataset("y_true"),
        dataset("y_pred"),
        unprivileged_groups=[{"g": 0}],
        privileged_groups=[{"g": 1}],
    )


@pytest.fixture(scope="module")
def aif_data() -> dict[str, list[Any]]:
    return ref.make_data(51, rows=800, groups=(0, 1), group_p=(0.35, 0.65), weights="float")


@pytest.mark.oracle
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 3.0])
def test_aif360_generalized_entropy_index(run: Any, aif_data: Any, alpha: float) -> None:
    aif = _aif_metric(aif_data, weighted=False)
    want = float(aif.generalized_entropy_index(alpha=alpha))
    got = run(
        _frame(aif_data), "generalized_entropy_index", y_true="y_true", y_pred="y_pred", alpha=alpha
    )
    assert _close(got, want), (got, want)
    between = float(aif.between_group_generalized_entropy_index(alpha=alpha))
    got_b = run(
        _frame(aif_data),
        "between_group_generalized_entropy_index",
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        alpha=alpha,
    )
    assert _close(got_b, between), (got_b, between)


@pytest.mark.oracle
def test_aif360_theil_and_cv(run: Any, aif_data: Any) -> None:
    aif = _aif_metric(aif_data, weighted=False)
    df = _frame(aif_data)
    kw = {"y_true": "y_true", "y_pred": "y_pred"}
    assert _close(run(df, "theil_index", **kw), float(aif.theil_index()))
    assert _close(
        run(df, "between_group_theil_index", sensitive_features="g", **kw),
        float(aif.between_group_theil_index()),
    )
    # AIF360 0.6: coefficient_of_variation = sqrt(2 * GE(2)), i.e. std(b)/mean(b): the same
    # as the textbook, NOT 2*sqrt(GE(2)) as api3.md suspected.
    cv = run(df, "coefficient_of_variation", **kw)
    assert _close(cv, float(aif.coefficient_of_variation()))
    assert _close(
        run(df, "between_group_coefficient_of_variation", sensitive_features="g", **kw),
        float(aif.between_group_coefficient_of_variation()),
    )
    ge2 = float(aif.generalized_entropy_index(alpha=2))
    assert not _close(float(aif.coefficient_of_variation()), 2 * math.sqrt(ge2), rel=1e-3)


@pytest.mark.oracle
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_aif360_sklearn_api_three_groups(run: Any, alpha: float) -> None:
    # aif360.sklearn's between_group_generalized_entropy_error uses every group of prot_attr
    import pandas as pd

    _, _, skm = _import_aif360()
    data = ref.make_data(52, rows=600, groups=(0, 1, 2))
    idx = pd.MultiIndex.from_arrays([data["g"]], names=["g"])
    y_true = pd.Series(data["y_true"], index=idx)
    y_pred = np.asarray(data["y_pred"])
    df = _frame(data)
    kw = {"y_true": "y_true", "y_pred": "y_pred", "alpha": alpha}
    want = float(skm.generalized_entropy_error(y_true, y_pred, alpha=alpha))
    assert _close(run(df, "generalized_entropy_index", **kw), want)
    want_b = float(
        skm.between_group_generalized_entropy_error(y_true, y_pred, prot_attr="g", alpha=alpha)
    )
    got_b = run(df, "between_group_generalized_entropy_index", sensitive_features="g", **kw)
    assert _close(got_b, want_b), (got_b, want_b)


@pytest.mark.oracle
def test_aif360_differs_at_alpha_zero(run: Any) -> None:
    # AIF360 computes -mean(ln(b/mu) / mu): the textbook GE(0) divided by mu once more.
    # Exact relation pinned: GE_aif360(0) * mu == GE_polars_fair(0).
    data = ref.make_data(53, rows=500, groups=(0, 1), no_false_negatives=True)
    aif = _aif_metric(data, weighted=False)
    kw = {"y_true": "y_true", "y_pred": "y_pred", "alpha": 0.0}
    df = _frame(data)
    mu = float(np.mean(ref.benefit(ref.rows_of(data))))
    assert mu > 1  # no false negatives, some false positives: the two differ
    ours = run(df, "generalized_entropy_index", **kw)
    theirs = float(aif.generalized_entropy_index(alpha=0))
    assert not _close(ours, theirs, rel=1e-3)
    assert _close(theirs * mu, ours)
    # between groups: the same relation, with mu the mean of the group-mean vector (= mu)
    ours_b = run(df, "between_group_generalized_entropy_index", sensitive_features="g", **kw)
    theirs_b = float(aif.between_group_generalized_entropy_index(alpha=0))
    assert _close(theirs_b * mu, ours_b)


@pytest.mark.oracle
def test_aif360_differs_with_weights(aif_data: Any) -> None:
    # AIF360's GE ignores instance weights: its weighted value is our UNWEIGHTED one
    aif_w = _aif_metric(aif_data, weighted=True)
    df = _frame(aif_data)
    kw = {"y_true": "y_true", "y_pred": "y_pred", "alpha": 2.0}
    theirs = float(aif_w.generalized_entropy_index(alpha=2))
    assert _close(df.fair.generalized_entropy_index(**kw), theirs)
    assert not _close(df.fair.generalized_entropy_index(sample_weight="w", **kw), theirs, rel=1e-6)


def test_sensitive_features_do_not_change_the_population_index(run: Any, case: Any) -> None:
    # api3.md: sensitive_features is optional for the (non between-group) indices; the
    # index is over every row either way (null groups included)
    df, kw, rows, sens = case
    want = ref.generalized_entropy_index(rows, 2.0)
    got = run(df, "generalized_entropy_index", sensitive_features=sens, **kw)
    assert _close(got, want)
    assert _close(run(df, "theil_index", sensitive_features=sens, **kw), ref.theil_index(rows))


def test_pos_label(run: Any) -> None:
    # string labels with pos_label="yes" give the same indices as the 0/1 encoding
    data = ref.make_data(61, rows=200)
    df = _frame(data)
    words = df.with_columns(
        pl.when(pl.col(c) == 1).then(pl.lit("yes")).otherwise(pl.lit("no")).alias(c)
        for c in ("y_true", "y_pred")
    )
    rows = ref.rows_of(data, ["g"])
    kw = {"y_true": "y_true", "y_pred": "y_pred", "pos_label": "yes"}
    assert _close(
        run(words, "generalized_entropy_index", alpha=3.0, **kw),
        ref.generalized_entropy_index(rows, 3.0),
    )
    assert _close(
        run(words, "between_group_theil_index", sensitive_features="g", **kw),
        ref.between_group_theil_index(rows),
    )
