"""Every count, rate, comparison and criterion against the numpy reference.

`tests/reference.py` is written from DESIGN.md's definitions with numpy masks per
group and shares no code with the library. Each check runs on eager, lazy
in-memory and lazy streaming frames (the `run` fixture).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
import reference as ref

from polars_fair.metrics import RATES

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

REL = 1e-12
PRED_ONLY = {"selection_rate", "predicted_positive_share"}
LABEL_ONLY = {"base_rate"}


def _make(
    seed: int,
    *,
    rows: int = 400,
    groups: tuple[str, ...] = ("a", "b", "c"),
    second: tuple[str, ...] | None = None,
    weights: bool = False,
    nulls: bool = False,
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(groups, dtype=object), size=rows, p=None)
    y_true = rng.integers(0, 2, rows)
    # predictions correlated with the truth so that every rate is non-trivial
    flip = rng.random(rows) < 0.3
    y_pred = np.where(flip, 1 - y_true, y_true)
    data: dict[str, Any] = {"g": g.tolist(), "y_true": y_true.tolist(), "y_pred": y_pred.tolist()}
    if second is not None:
        data["h"] = rng.choice(np.array(second, dtype=object), size=rows).tolist()
    if weights:
        data["w"] = np.round(rng.gamma(2.0, 1.0, rows), 3).tolist()
    if nulls:
        for col in ("y_true", "y_pred"):
            idx = rng.choice(rows, size=rows // 20, replace=False)
            for i in idx:
                data[col][i] = None
        idx = rng.choice(rows, size=rows // 25, replace=False)
        for i in idx:
            data["g"][i] = None
    return pl.DataFrame(data, schema_overrides={"y_true": pl.Int64, "y_pred": pl.Int64})


CASES = {
    "plain": dict(seed=1),
    "weighted": dict(seed=2, weights=True),
    "nulls": dict(seed=3, nulls=True),
    "intersectional": dict(seed=4, second=("x", "y")),
    "weighted-nulls-2d": dict(seed=5, weights=True, nulls=True, second=("x", "y")),
}


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[pl.DataFrame, dict[str, Any], dict[str, Any]]:
    spec = CASES[request.param]
    df = _make(**spec)
    sens = ["g", "h"] if "second" in spec else ["g"]
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": sens}
    if spec.get("weights"):
        kw["sample_weight"] = "w"
    arrays = {
        "y_true": np.array(df["y_true"].to_list(), dtype=object),
        "y_pred": np.array(df["y_pred"].to_list(), dtype=object),
        "sensitive": [np.array(df[s].to_list(), dtype=object) for s in sens],
        "sample_weight": np.array(df["w"].to_list(), dtype=object) if "w" in df.columns else None,
    }
    return df, kw, arrays


def _counts(
    arrays: dict[str, Any], measure: str | None = None
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Reference counts; a selection-only (label-only) measure ignores y_true (y_pred)."""
    y_true = None if measure in PRED_ONLY else arrays["y_true"]
    y_pred = None if measure in LABEL_ONLY else arrays["y_pred"]
    return ref.confusion_counts(
        y_true, y_pred, arrays["sensitive"], sample_weight=arrays["sample_weight"]
    )


def _key(row: dict[str, Any], sens: list[str]) -> tuple[Any, ...]:
    return tuple(row[s] for s in sens)


def _close(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return bool(np.isclose(got, want, rtol=REL, atol=1e-14))


def test_group_stats(run: Any, case: Any) -> None:
    df, kw, arrays = case
    expected = _counts(arrays)
    got = run(df, "group_stats", **kw)
    sens = kw["sensitive_features"]
    assert [_key(r, sens) for r in got.iter_rows(named=True)] == ref.group_keys(arrays["sensitive"])
    for row in got.iter_rows(named=True):
        want = expected[_key(row, sens)]
        for col in ("n", "tp", "fp", "fn", "tn", "n_null"):
            if "sample_weight" in kw and col != "n_null":
                assert _close(row[col], want[col]), (col, row, want)
            else:
                assert row[col] == want[col], (col, row, want)
    dtype = pl.Float64 if "sample_weight" in kw else pl.Int64
    assert got.schema["tp"] == dtype
    assert got.schema["n_null"] == pl.Int64


def test_by_group_rates(run: Any, case: Any) -> None:
    df, kw, arrays = case
    expected = ref.rates_by_group(_counts(arrays))
    got = run(df, "by_group", **kw)
    sens = kw["sensitive_features"]
    for row in got.iter_rows(named=True):
        want = expected[_key(row, sens)]
        for rate in RATES:
            assert _close(row[rate], want[rate]), (rate, row, want)


REFERENCES = ["largest", "min", "overall", "rest", "value"]


@pytest.mark.parametrize("policy", REFERENCES)
def test_disparities(run: Any, case: Any, policy: str) -> None:
    df, kw, arrays = case
    counts = _counts(arrays)
    sens = kw["sensitive_features"]
    if policy == "value":
        key = ref.group_keys(arrays["sensitive"])[1]
        reference: Any = key
        given: Any = key[0] if len(key) == 1 else key
    else:
        reference = given = policy
    expected = ref.disparities(counts, reference)
    got = run(df, "disparities", **kw, reference_group=given)
    assert got.height == len(expected)
    want = {(tuple(r["key"]), r["metric"]): r for r in expected}
    for row in got.iter_rows(named=True):
        w = want[(_key(row, sens), row["metric"])]
        for col in ("value", "reference_value", "difference", "ratio"):
            assert _close(row[col], w[col]), (col, row, w)


CRITERIA = [(r, k) for r in RATES for k in ("difference", "ratio")] + [
    ("treatment_equality", "difference"),
    ("treatment_equality", "ratio"),
    ("average_odds", "difference"),
]


def _method_name(measure: str, kind: str) -> str:
    return f"{measure}_{kind}"


def _kwargs_for(measure: str, kw: dict[str, Any]) -> dict[str, Any]:
    out = dict(kw)
    if measure in PRED_ONLY:
        out.pop("y_true")
    if measure in LABEL_ONLY:
        out.pop("y_pred")
    return out


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
@pytest.mark.parametrize(("measure", "kind"), CRITERIA, ids=[f"{m}_{k}" for m, k in CRITERIA])
def test_criteria(run: Any, case: Any, measure: str, kind: str, method: str) -> None:
    df, kw, arrays = case
    counts = _counts(arrays, measure)
    name = _method_name(measure, kind)
    args = _kwargs_for(measure, kw)
    expected = ref.criterion(counts, measure, kind, method, reference="largest")
    got = run(df, name, **args, method=method)
    assert _close(got, expected), (name, method, got, expected)


def test_criteria_with_a_reference_value(run: Any, case: Any) -> None:
    df, kw, arrays = case
    counts = _counts(arrays)
    key = ref.group_keys(arrays["sensitive"])[0]
    given = key[0] if len(key) == 1 else key
    for measure in ("true_positive_rate", "selection_rate", "false_omission_rate"):
        for kind in ("difference", "ratio"):
            counts = _counts(arrays, measure)
            expected = ref.criterion(counts, measure, kind, "to_reference", reference=key)
            got = run(df, f"{measure}_{kind}", **_kwargs_for(measure, kw), reference_group=given)
            assert _close(got, expected), (measure, kind, got, expected)


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
@pytest.mark.parametrize("agg", ["worst_case", "mean"])
@pytest.mark.parametrize("kind", ["difference", "ratio"])
def test_equalized_odds(run: Any, case: Any, method: str, agg: str, kind: str) -> None:
    df, kw, arrays = case
    counts = _counts(arrays)
    fn = getattr(ref, f"equalized_odds_{kind}")
    expected = fn(counts, method, agg, reference="largest")
    got = run(df, f"equalized_odds_{kind}", **kw, method=method, agg=agg)
    assert _close(got, expected), (got, expected)


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
@pytest.mark.parametrize("kind", ["difference", "ratio"])
def test_conditional_use_accuracy(run: Any, case: Any, method: str, kind: str) -> None:
    df, kw, arrays = case
    counts = _counts(arrays)
    fn = getattr(ref, f"conditional_use_accuracy_{kind}")
    expected = fn(counts, method, reference="largest")
    got = run(df, f"conditional_use_accuracy_{kind}", **kw, method=method)
    assert _close(got, expected), (got, expected)


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
def test_average_abs_odds_difference(run: Any, case: Any, method: str) -> None:
    df, kw, arrays = case
    counts = _counts(arrays)
    expected = ref.average_abs_odds_difference(counts, method, reference="largest")
    got = run(df, "average_abs_odds_difference", **kw, method=method)
    assert _close(got, expected), (got, expected)


def test_aliases_equal_their_base_criteria(case: Any) -> None:
    df, kw, _ = case
    pairs = {
        "demographic_parity_difference": "selection_rate_difference",
        "demographic_parity_ratio": "selection_rate_ratio",
        "statistical_parity_difference": "selection_rate_difference",
        "disparate_impact_ratio": "selection_rate_ratio",
        "equal_opportunity_difference": "true_positive_rate_difference",
        "equal_opportunity_ratio": "true_positive_rate_ratio",
        "predictive_equality_difference": "false_positive_rate_difference",
        "predictive_equality_ratio": "false_positive_rate_ratio",
        "predictive_parity_difference": "positive_predictive_value_difference",
        "predictive_parity_ratio": "positive_predictive_value_ratio",
    }
    for alias, base in pairs.items():
        measure = base.rsplit("_", 1)[0]
        args = _kwargs_for(measure, kw)
        for method in ("between_groups", "to_overall", "to_reference"):
            a = getattr(df.fair, alias)(**args, method=method)
            b = getattr(df.fair, base)(**args, method=method)
            assert _close(a, b), (alias, method)  # weighted float sums: ulp-level order effects


def test_batch_by_equals_separate_runs(run: Any) -> None:
    parts = [_make(10 + i, weights=True).with_columns(model=pl.lit(f"m{i}")) for i in range(3)]
    df = pl.concat(parts)
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    batch = run(df, "equalized_odds_difference", **kw, by="model", sample_weight="w")
    assert batch.columns == ["model", "equalized_odds_difference"]
    for i, part in enumerate(parts):
        arrays_sens = [np.array(part["g"].to_list(), dtype=object)]
        counts = ref.confusion_counts(
            np.array(part["y_true"].to_list(), dtype=object),
            np.array(part["y_pred"].to_list(), dtype=object),
            arrays_sens,
            sample_weight=np.array(part["w"].to_list(), dtype=object),
        )
        want = ref.equalized_odds_difference(counts, "between_groups", "worst_case")
        assert _close(batch["equalized_odds_difference"][i], want)
