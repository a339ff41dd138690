"""The identifier warning of the score criteria counts groups, not score rows.

``abroca``, ``calibration_difference`` and the AUC criteria reduce to a table with a
row per group and distinct score (or score bin): thousands of rows for three groups
of continuous scores. The warning reads one row per group, so it fires for a feature
with a group per row and stays silent for a demographic one.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf

NAMES = ["abroca", "roc_auc_difference", "roc_auc_ratio", "calibration_difference"]


def _identifier_warnings(frame: pl.DataFrame, name: str, feature: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # other warnings (undefined rates) are not asserted
        getattr(frame.fair, name)(y_true="y", y_prob="s", sensitive_features=feature)
    return [str(w.message) for w in caught if w.category is pf.exceptions.IdentifierWarning]


@pytest.mark.parametrize("name", NAMES)
def test_continuous_scores_of_few_groups_do_not_warn(name: str) -> None:
    rng = np.random.default_rng(5)
    n = 3_000  # 300 groups of 10 rows: at most 3,000 ROC rows, ~2,000 calibration rows
    y = rng.integers(0, 2, n)
    frame = pl.DataFrame({"g": np.repeat(np.arange(300), 10).astype(str), "y": y,
                          "s": 1 / (1 + np.exp(-rng.normal(y, 1.0)))})  # fmt: skip
    assert frame["s"].n_unique() == n
    assert _identifier_warnings(frame, name, "g") == []


@pytest.mark.parametrize("name", NAMES)
def test_a_group_per_row_still_warns(name: str) -> None:
    n = 5_000
    rng = np.random.default_rng(6)
    frame: Any = pl.DataFrame({"id": np.arange(n).astype(str), "y": np.arange(n) % 2,
                               "s": rng.random(n)})  # fmt: skip
    texts = _identifier_warnings(frame, name, "id")
    assert len(texts) == 1
    assert texts[0].startswith(
        f"sensitive feature 'id' looks like an identifier: {n:,} groups for {n:,} rows"
    )
