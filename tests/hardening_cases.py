"""Every public method of the ``fair`` namespace, with arguments that suit it.

The hardening tests enumerate the LazyFrame namespace (so a new method is covered
without editing the tests) and call each with the keyword arguments built here,
on a small frame whose columns are named by the caller (so a test can give a key
column a clashing name).
"""

from __future__ import annotations

import inspect
from typing import Any

import polars as pl

from polars_fair.namespace import LazyFrameFairNamespace

#: Methods whose result is not a table or scalar plan (terminal objects).
TERMINAL = frozenset({"profile", "report"})

_REGRESSION = frozenset(
    {
        "average_score_difference", "average_score_ratio", "correlation_difference",
        "disparate_impact_quantile", "mae_difference", "mae_ratio", "max_statistical_parity",
        "no_disparate_impact_level", "regression_by_group", "regression_disparities",
        "regression_stats", "rmse_difference", "rmse_ratio", "statistical_parity_auc",
        "statistical_parity_quantile", "zscore_difference",
    }
)  # fmt: skip
_ENSEMBLE_TABLES = frozenset({"ensemble_by_group", "ensemble_disparities", "ensemble_stats"})
_ENSEMBLE_MEASURES = (
    "aleatoric_uncertainty", "epistemic_uncertainty", "iqr", "jitter", "label_stability",
    "overall_uncertainty", "std",
)  # fmt: skip


def lazy_methods() -> list[str]:
    """The public methods of the LazyFrame namespace, sorted."""
    return sorted(
        name
        for name in dir(LazyFrameFairNamespace)
        if not name.startswith("_") and callable(getattr(LazyFrameFairNamespace, name))
    )


def is_ensemble(name: str) -> bool:
    """Whether the method takes several member probabilities."""
    return (
        name in _ENSEMBLE_TABLES
        or name.removesuffix("_difference").removesuffix("_ratio") in _ENSEMBLE_MEASURES
    )


def frame(n: int = 120, *, group: str = "g", batch: str = "b", seed: int = 0) -> pl.DataFrame:
    """A small audit frame: labels, scores, regression targets, ensemble members.

    Groups 'a' (60 %) and 'x' (40 %), two batches, every label value in every group.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    g = np.where(np.arange(n) % 5 < 3, "a", "x")
    y = (np.arange(n) // 2 % 2).astype(np.int64)
    s = np.clip(rng.uniform(0, 1, n) * 0.6 + y * 0.3, 0, 1)
    p = (s >= 0.5).astype(np.int64)
    p[:4] = [0, 1, 0, 1]
    return pl.DataFrame(
        {
            group: g,
            batch: np.where(np.arange(n) % 2 == 0, "k1", "k2"),
            "y": y,
            "p": p,
            "s": s,
            "t": rng.normal(10, 2, n) + y,
            "q": rng.normal(10, 2, n) + y * 2,
            "m1": s,
            "m2": np.clip(s + rng.normal(0, 0.1, n), 0, 1),
            "m3": np.clip(s - rng.normal(0, 0.1, n), 0, 1),
            "yc": np.arange(n) % 3,
            "pc": (np.arange(n) + (np.arange(n) % 7 == 0)) % 3,
            "w": rng.uniform(0.5, 2.0, n),
        }
    )


def method_kwargs(name: str, *, group: str = "g", by: str | None = None) -> dict[str, Any]:
    """Keyword arguments for `name` on :func:`frame` (sensitive column `group`)."""
    params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
    kw: dict[str, Any] = {}
    if name in _REGRESSION:
        kw["y_pred"] = "q"
        if "y_true" in params:
            kw["y_true"] = "t"
    elif name.startswith("multiclass_"):
        kw.update(y_true="yc", y_pred="pc")
    elif is_ensemble(name):
        kw["y_prob"] = ["m1", "m2", "m3"]
    else:
        if "y_true" in params:
            kw["y_true"] = "y"
        if "y_pred" in params:
            kw["y_pred"] = "p"
        if "y_prob" in params and params["y_prob"].default is inspect.Parameter.empty:
            kw["y_prob"] = "s"
    if "sensitive_features" in params:
        kw["sensitive_features"] = group
    if "candidates" in params:  # slices: the candidate attributes are the key columns
        kw["candidates"] = [group]
        kw["min_size"] = 5
    if by is not None and "by" in params:
        kw["by"] = by
    if "n_resamples" in params:
        kw["n_resamples"] = 20
    if "min_group_size" in params:
        kw["min_group_size"] = 5
    return kw


_SCORES = frozenset(
    {"abroca", "calibration", "calibration_difference", "expected_calibration_error",
     "roc_auc", "roc_curve", "threshold_sweep"}
)  # fmt: skip


def family(name: str) -> str:
    """The reduction family of a method (the key of ``_validate.OUTPUT_NAMES``)."""
    if name in _SCORES:
        return "scores"
    if name in _REGRESSION:
        return "regression"
    if name.startswith("multiclass_"):
        return "multiclass"
    if is_ensemble(name):
        return "ensemble"
    return "binary"


def option_sets(name: str) -> list[dict[str, Any]]:
    """Optional arguments that add output columns (weights, intervals, scores)."""
    params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
    sets: list[dict[str, Any]] = [{}]
    if "sample_weight" in params and not name.startswith("bootstrap"):
        sets.append({"sample_weight": "w"})
    if "confidence_level" in params:
        sets.append({"confidence_level": 0.9})
    y_prob = params.get("y_prob")
    if family(name) == "binary" and y_prob is not None and y_prob.default is None:
        sets.append({"y_prob": "s"})
    return sets


def all_options(name: str) -> dict[str, Any]:
    """Every optional argument that adds output columns, at once."""
    out: dict[str, Any] = {}
    for options in option_sets(name):
        out.update(options)
    return out


def collect(out: Any, kind: str, name: str | None = None) -> Any:
    """Collect a lazy result on the engine of `kind` ('lazy' or 'streaming').

    A one-row, one-column result named after the method `name` (a criterion without
    `by`) is unwrapped to its value, as the DataFrame namespace returns it.
    """
    if kind == "eager":
        return out
    result = out.collect(engine="in-memory" if kind == "lazy" else "streaming")
    if name is not None and result.shape == (1, 1) and result.columns == [name]:
        return result.item()
    return result
