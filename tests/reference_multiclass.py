"""Brute-force numpy reference for one-vs-rest multiclass confusion counts.

Written from the definition (api4.md) and shares no code with polars_fair: no polars
import, no library import. For each class ``c`` and group, boolean masks over the
rows give

* ``tp``: true c and predicted c;
* ``fp``: true not c and predicted c;
* ``fn``: true c and predicted not c;
* ``tn``: the rest,

as counts (or weight sums). The classes default to every non-null value of
``y_true`` or ``y_pred`` over the whole input, sorted. Rows with a null label,
prediction or weight are excluded and counted in ``n_null``.

The module also holds small from-the-definition rates and criteria (selection rate,
TPR, FPR, PPV; between-groups and to-reference comparisons) and the worst-class
summary, to check ``multiclass_summary`` without going through the library.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Key = tuple[Any, ...]
CELLS = ("tp", "fp", "fn", "tn")


def _is_null(v: Any) -> bool:
    return v is None


def _sort_keys(keys: set[Key]) -> list[Key]:
    return sorted(keys, key=lambda k: tuple((v is None, v if v is not None else 0) for v in k))


def default_classes(
    y_true: Sequence[Any], y_pred: Sequence[Any], order: Sequence[Any] | None = None
) -> list[Any]:
    """Every non-null label in either column, sorted (by `order` for enum labels)."""
    found = {v for v in (*y_true, *y_pred) if not _is_null(v)}
    if order is not None:
        return [c for c in order if c in found]
    return sorted(found)


class Data:
    """A multiclass dataset as numpy arrays; ``valid`` marks the rows that are kept."""

    def __init__(
        self,
        y_true: Sequence[Any],
        y_pred: Sequence[Any],
        sensitive: Sequence[Sequence[Any]],
        sample_weight: Sequence[Any] | None = None,
    ) -> None:
        n = len(y_true)
        self.yt = np.array(list(y_true), dtype=object)
        self.yp = np.array(list(y_pred), dtype=object)
        self.weighted = sample_weight is not None
        w_raw = [1.0] * n if sample_weight is None else list(sample_weight)
        self.valid = np.array(
            [
                not (_is_null(y_true[i]) or _is_null(y_pred[i]) or _is_null(w_raw[i]))
                for i in range(n)
            ],
            dtype=bool,
        )
        self.w = np.array([0.0 if _is_null(v) else float(v) for v in w_raw])
        self.keys: list[Key] = [tuple(col[i] for col in sensitive) for i in range(n)]

    def groups(self) -> list[Key]:
        return _sort_keys(set(self.keys))

    def mask(self, key: Key) -> np.ndarray:
        return np.array([k == key for k in self.keys], dtype=bool)


def group_stats(data: Data, classes: Sequence[Any]) -> dict[tuple[Any, Key], dict[str, Any]]:
    """``(class, group) -> {n, tp, fp, fn, tn, n_null}`` in (class, group) order."""
    out: dict[tuple[Any, Key], dict[str, Any]] = {}
    for c in classes:
        is_t = np.array([v == c for v in data.yt], dtype=bool)
        is_p = np.array([v == c for v in data.yp], dtype=bool)
        for key in data.groups():
            g = data.mask(key)
            keep = g & data.valid
            w = data.w

            def total(m: np.ndarray, w: np.ndarray = w) -> Any:
                s = float(w[m].sum())
                return s if data.weighted else round(s)

            out[(c, key)] = {
                "n": total(keep),
                "tp": total(keep & is_t & is_p),
                "fp": total(keep & ~is_t & is_p),
                "fn": total(keep & is_t & ~is_p),
                "tn": total(keep & ~is_t & ~is_p),
                "n_null": int((g & ~data.valid).sum()),
            }
    return out


# ------------------------------------------------------------------- rates


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


RATES: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "selection_rate": lambda s: _ratio(s["tp"] + s["fp"], s["n"]),
    "true_positive_rate": lambda s: _ratio(s["tp"], s["tp"] + s["fn"]),
    "false_positive_rate": lambda s: _ratio(s["fp"], s["fp"] + s["tn"]),
    "positive_predictive_value": lambda s: _ratio(s["tp"], s["tp"] + s["fp"]),
    "accuracy": lambda s: _ratio(s["tp"] + s["tn"], s["n"]),
}

#: criterion -> (rates compared, kind); several rates: the worst of them
CRITERIA: dict[str, tuple[tuple[str, ...], str]] = {
    "demographic_parity_difference": (("selection_rate",), "difference"),
    "demographic_parity_ratio": (("selection_rate",), "ratio"),
    "equal_opportunity_difference": (("true_positive_rate",), "difference"),
    "predictive_equality_difference": (("false_positive_rate",), "difference"),
    "predictive_parity_difference": (("positive_predictive_value",), "difference"),
    "equalized_odds_difference": (("true_positive_rate", "false_positive_rate"), "difference"),
    "equalized_odds_ratio": (("true_positive_rate", "false_positive_rate"), "ratio"),
    "accuracy_ratio": (("accuracy",), "ratio"),
}


def _largest(stats: dict[Key, dict[str, Any]]) -> Key:
    best: Key | None = None
    for key, s in stats.items():
        if best is None or s["n"] > stats[best]["n"]:
            best = key
    assert best is not None
    return best


def _log_distance(q: float) -> float:
    return math.inf if q == 0 else abs(math.log(q))


def _compare(values: dict[Key, float | None], kind: str, ref_key: Key | None) -> float | None:
    defined = {k: v for k, v in values.items() if v is not None}
    if ref_key is None:
        if not defined:
            return None
        hi, lo = max(defined.values()), min(defined.values())
        if kind == "difference":
            return hi - lo
        return None if hi == 0 else lo / hi
    r = values.get(ref_key)
    if r is None:
        return None
    best: float | None = None
    best_dist = -1.0
    for k, v in defined.items():
        if k == ref_key:
            continue
        if kind == "difference":
            cand, dist = v - r, abs(v - r)
        else:
            if r == 0:
                continue
            cand = v / r
            dist = _log_distance(cand)
        if dist > best_dist:
            best, best_dist = cand, dist
    return best


def class_criterion(
    stats: dict[tuple[Any, Key], dict[str, Any]],
    cls: Any,
    name: str,
    reference: Any = None,
) -> float | None:
    """One criterion for one class: between groups without `reference`; else to it.

    Several rates (equalized odds): the largest difference / smallest ratio without
    a reference; with one, the signed value farthest from the ideal.
    """
    rates, kind = CRITERIA[name]
    per_group = {key: s for (c, key), s in stats.items() if c == cls}
    ref_key: Key | None = None
    if reference is not None:
        ref_key = (
            _largest(per_group)
            if reference == "largest"
            else (reference if isinstance(reference, tuple) else (reference,))
        )
    parts = [_compare({k: RATES[r](s) for k, s in per_group.items()}, kind, ref_key) for r in rates]
    if any(p is None for p in parts):
        return None
    if len(parts) == 1:
        return parts[0]
    if ref_key is None:
        return max(parts) if kind == "difference" else min(parts)  # type: ignore[type-var]
    dist = [abs(p) if kind == "difference" else _log_distance(p) for p in parts]  # type: ignore[arg-type]
    return parts[int(np.argmax(dist))]


# ----------------------------------------------------------------- summary


def distance(name: str, value: float) -> float:
    """Distance from the ideal: |v| for differences, |log v| for ratios (0 is infinite)."""
    if name.endswith("_ratio") or name == "four_fifths_rule":
        return _log_distance(value)
    return abs(value)


def worst_class(
    per_class: dict[Any, float | None], name: str, tol: float = 1e-12
) -> tuple[Any, float | None, int]:
    """``(worst_class, value, n_classes)`` from the per-class values (in class order).

    Classes with an undefined value are left out; ties (within `tol`) go to the first
    class in sort order.
    """
    defined = [(c, v) for c, v in per_class.items() if v is not None]
    if not defined:
        return None, None, 0
    dists = [distance(name, v) for _, v in defined]
    top = max(dists)
    for (c, v), d in zip(defined, dists, strict=True):
        if d == top or (math.isfinite(top) and d >= top - tol):
            return c, v, len(defined)
    msg = "unreachable"
    raise AssertionError(msg)  # pragma: no cover


# -------------------------------------------------------------------- data


def make_data(
    seed: int,
    *,
    rows: int = 400,
    labels: Sequence[Any] = ("cat", "dog", "fox"),
    groups: Sequence[Any] = ("a", "b", "c"),
    second: Sequence[Any] | None = None,
    batches: Sequence[Any] | None = None,
    weights: bool = False,
    nulls: bool = False,
) -> dict[str, list[Any]]:
    """Seeded rows ``g, y_true, y_pred`` (+ ``h``, ``batch``, ``w``).

    Predictions are right with a group-dependent probability, otherwise a uniformly
    drawn other label; groups differ in their label mix.
    """
    rng = np.random.default_rng(seed)
    k = len(labels)
    g = [groups[i] for i in rng.integers(0, len(groups), rows)]
    y_true, y_pred = [], []
    for gi in g:
        gidx = list(groups).index(gi)
        p = np.ones(k) + np.eye(k)[gidx % k] * 1.5
        t = int(rng.choice(k, p=p / p.sum()))
        right = rng.random() < 0.55 + 0.1 * gidx
        pred = t if right else int((t + rng.integers(1, k)) % k)
        y_true.append(labels[t])
        y_pred.append(labels[pred])
    data: dict[str, list[Any]] = {"g": g, "y_true": y_true, "y_pred": y_pred}
    if second is not None:
        data["h"] = [second[i] for i in rng.integers(0, len(second), rows)]
    if batches is not None:
        data["batch"] = [batches[i] for i in rng.integers(0, len(batches), rows)]
    if weights:
        data["w"] = np.round(rng.gamma(2.0, 1.0, rows), 3).tolist()
    if nulls:
        for col in ("y_true", "y_pred"):
            for i in rng.choice(rows, size=rows // 20, replace=False):
                data[col][int(i)] = None
    return data


def subset(data: dict[str, list[Any]], column: str, value: Any) -> dict[str, list[Any]]:
    idx = [i for i, v in enumerate(data[column]) if v == value]
    return {k: [col[i] for i in idx] for k, col in data.items()}
