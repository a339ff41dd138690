"""Acceptance of the AUC criteria: defects found using them as an auditor would.

Every number is checked against ``tests/reference_auc.py`` (the AUC and DeLong's
variance from every pair of a group's rows) and ``tests/reference.py``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference as ref
import reference_auc as ref_auc
from test_profile import Source

import polars_fair
from polars_fair.metrics._intervals import z_value

NAMES = ["roc_auc_difference", "roc_auc_ratio"]
KINDS = {"roc_auc_difference": "difference", "roc_auc_ratio": "ratio"}
COLS = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
METHODS = [("between_groups", None), ("to_reference", "b"), ("to_overall", None)]


def _frame(seed: int) -> pl.DataFrame:
    """Groups a, b, c (two batch keys m) with their own separations; scores with ties."""
    rng = np.random.default_rng(seed)
    parts = []
    for m in ("m1", "m2"):
        for name, n, shift in zip("abc", (80, 60, 50), (1.2, 0.6, 0.9), strict=True):
            y = (rng.random(n) < 0.45).astype(np.int64)
            s = np.round(1 / (1 + np.exp(-rng.normal(shift * y, 1.0))), 2)
            parts.append(pl.DataFrame({"m": [m] * n, "g": [name] * n, "y": y, "s": s}))
    return pl.concat(parts).with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))


def _oracle(df: pl.DataFrame, name: str, method: str, reference: str | None) -> float:
    g, y, s = df["g"].to_numpy(), df["y"].to_numpy(), df["s"].to_numpy()
    values = {k: a for k, (a, _) in ref_auc.per_group(g, y, s, None).items()}
    overall = ref_auc.auc_delong(y, s, None)[0]
    key = (reference,) if reference is not None else None
    out: float = ref.compare(values, overall, KINDS[name], method, key)
    return out


@pytest.mark.parametrize("by", [None, "m"])
@pytest.mark.parametrize(("method", "reference"), METHODS)
def test_a_lazy_summary_of_auc_criteria_alone_reads_the_rows_once(
    method: str, reference: str | None, by: str | None
) -> None:
    # it read them 2 (one criterion) to 5 times (two, to the overall AUC): the ROC
    # table was recomputed by each branch of the derivation
    df = _frame(3)
    source = Source(df)
    kw: dict[str, Any] = {**COLS, "y_pred": "p", "method": method, "by": by}
    if reference is not None:
        kw["reference_group"] = reference
    for engine in ("auto", "streaming"):
        source.calls = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # small-sample warnings are not the point
            got = source.lazy().fair.summary(**kw, criteria=NAMES).collect(engine=engine)
        assert source.calls == 1
        for row in got.iter_rows(named=True):
            part = df if by is None else df.filter(pl.col("m") == row["m"])
            want = _oracle(part, row["criterion"], method, reference)
            assert math.isclose(row["value"], want, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_a_lazy_auc_criterion_to_the_overall_auc_reads_the_rows_once(name: str) -> None:
    # the groups' AUC and the whole population's were two reads
    df = _frame(4)
    source = Source(df)
    for engine in ("auto", "streaming"):
        source.calls = 0
        got = getattr(source.lazy().fair, name)(**COLS, method="to_overall").collect(engine=engine)
        assert source.calls == 1
        assert math.isclose(got.item(), _oracle(df, name, "to_overall", None), rel_tol=1e-9)


def test_summary_z_is_the_level_s() -> None:
    """The DeLong interval at 99% (a level other than the default) is the oracle's."""
    df = _frame(5).filter(pl.col("m") == "m1")
    got = df.fair.summary(**COLS, y_pred="p", criteria=NAMES, confidence_level=0.99)
    g, y, s = df["g"].to_numpy(), df["y"].to_numpy(), df["s"].to_numpy()
    aucs = {k[0]: v for k, v in ref_auc.per_group(g, y, s, None).items()}
    for row in got.iter_rows(named=True):
        (a1, v1), (a2, v2) = aucs[row["group"]], aucs[row["compared_with"]]
        low, high = ref_auc.pair_interval(a1, v1, a2, v2, KINDS[row["criterion"]], z_value(0.99))
        assert math.isclose(row["ci_low"], low, rel_tol=1e-9)
        assert math.isclose(row["ci_high"], high, rel_tol=1e-9)


@pytest.mark.parametrize("weights", [None, "w"])
def test_to_overall_rows_say_why_they_have_no_interval(weights: str | None) -> None:
    # the note was the balance criteria's, naming "sums of squared scores (an older
    # profile)", which an AUC row never lacks
    df = _frame(6).filter(pl.col("m") == "m1").with_columns(w=pl.col("y") + 1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = df.fair.summary(
            **COLS, y_pred="p", criteria=NAMES, method="to_overall", sample_weight=weights
        )
    bands = {"roc_auc_difference": (-0.1, 0.1), "roc_auc_ratio": (0.8, 1.25)}
    for row in got.iter_rows(named=True):
        assert row["interval_method"] == "none"
        assert "method='to_overall'" in row["note"]
        assert "squared scores" not in row["note"]
        if weights is None:  # judged on the point value: the oracle's, against the band
            value = _oracle(df, row["criterion"], "to_overall", None)
            low, high = bands[row["criterion"]]
            assert row["verdict"] == ("fair" if low <= value <= high else "unfair")


@pytest.mark.parametrize("lazy", [False, True])
def test_a_report_names_the_groups_of_one_class_once(lazy: bool) -> None:
    # the ROC AUC table and the AUC criteria each warned about the same groups: the
    # reader got the list twice, once per table
    df = _frame(7).filter(pl.col("m") == "m1")
    df = df.with_columns(y=pl.when(pl.col("g") == "c").then(0).otherwise(pl.col("y")))
    one_class = [g for (g,), part in df.group_by("g") if part["y"].n_unique() == 1]
    frame = df.lazy() if lazy else df
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        polars_fair.fair(frame).report(**COLS, y_pred="p", criteria=[*NAMES, "accuracy_difference"])
    about = [str(w.message) for w in caught if "no ROC curve" in str(w.message)]
    assert len(about) == 1
    assert f"groups {one_class}" in about[0]
    assert "their roc_auc is null" in about[0]
    assert "left out of the AUC criteria" in about[0]
