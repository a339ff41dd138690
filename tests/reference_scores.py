"""Brute-force numpy reference for polars_fair's score-based metrics.

Written from the definitions in the API spec (issue 3, "Statistics table" and "Score
metrics") and DESIGN.md sections 3-5. No polars and no library code: one group at a
time, boolean masks, explicit loops. Clarity over speed; sklearn is a *separate* oracle
used in the tests, never here.

Conventions
-----------
* Inputs are 1-d arrays, possibly ``object`` arrays holding ``None`` (a null). A row
  with a null label, score or weight is excluded from every number and counted in
  ``n_null`` of its group. A null key value (batch or sensitive) is its own group.
* Keys are tuples ``(*by, *sensitive)``; groups are sorted by key, nulls last.
* Unweighted sums are Python ints where they count rows; weighted sums are floats.
* Undefined values (zero denominators) are ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import reference as _core

Key = tuple[Any, ...]


def _is_null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _sort_key(k: Key) -> tuple[Any, ...]:
    return tuple((v is None, v if v is not None else 0) for v in k)


# ---- rows -> clean per-group arrays ---------------------------------------------------


class Group:
    """The clean (non-null) rows of one group: labels, scores and weights."""

    def __init__(self, y: np.ndarray, s: np.ndarray, w: np.ndarray | None, n_null: int) -> None:
        self.y = y.astype(bool)  # True = positive class
        self.s = s.astype(float)
        self.w = None if w is None else w.astype(float)
        self.n_null = n_null

    @property
    def weights(self) -> np.ndarray:
        """Row weights (ones when unweighted)."""
        return np.ones(len(self.y)) if self.w is None else self.w

    def total(self, mask: np.ndarray) -> Any:
        """Row count (int) or weight sum (float) over `mask`."""
        if self.w is None:
            return int(mask.sum())
        return float(self.w[mask].sum())

    @property
    def n(self) -> Any:
        return self.total(np.ones(len(self.y), dtype=bool))


def split(
    keys: Sequence[np.ndarray],
    y_true: np.ndarray,
    y_prob: np.ndarray,
    sample_weight: np.ndarray | None = None,
    pos_label: Any = 1,
) -> dict[Key, Group]:
    """Group the rows by ``keys`` (batch columns then sensitive columns), sorted, nulls last."""
    rows = len(y_true)
    null = np.array([_is_null(v) for v in y_true]) | np.array([_is_null(v) for v in y_prob])
    if sample_weight is not None:
        null |= np.array([_is_null(v) for v in sample_weight])
    key_of = [tuple(None if _is_null(col[i]) else col[i] for col in keys) for i in range(rows)]
    out: dict[Key, Group] = {}
    for key in sorted(set(key_of), key=_sort_key):
        g = np.array([k == key for k in key_of])
        ok = g & ~null
        idx = np.flatnonzero(ok)
        y = np.array([y_true[i] == pos_label for i in idx], dtype=bool)
        s = np.array([float(y_prob[i]) for i in idx], dtype=float)
        w = None if sample_weight is None else np.array([float(sample_weight[i]) for i in idx])
        out[key] = Group(y, s, w, int((g & null).sum()))
    return out


def batches(groups: dict[Key, Group], n_by: int) -> dict[Key, dict[Key, Group]]:
    """Split a key -> group mapping by its first ``n_by`` key values (the `by` columns)."""
    out: dict[Key, dict[Key, Group]] = {}
    for key, g in groups.items():
        out.setdefault(key[:n_by], {})[key[n_by:]] = g
    return out


def _div(a: Any, b: Any) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


# ---- balance for the positive / negative class ----------------------------------------


def balance(g: Group) -> dict[str, Any]:
    """sum_prob_pos/neg (sum of w*s over y=1 / y=0), P, N and the two balance rates."""
    w = g.weights
    sum_pos = float(np.sum(w[g.y] * g.s[g.y]))
    sum_neg = float(np.sum(w[~g.y] * g.s[~g.y]))
    p, n = g.total(g.y), g.total(~g.y)
    return {
        "sum_prob_pos": sum_pos,
        "sum_prob_neg": sum_neg,
        "P": p,
        "N": n,
        "balance_for_positive_class": _div(sum_pos, p),
        "balance_for_negative_class": _div(sum_neg, n),
    }


def overall_balance(groups: dict[Key, Group]) -> dict[str, float | None]:
    """Balance rates of the pooled population (sums over groups)."""
    parts = [balance(g) for g in groups.values()]
    pos = sum(p["sum_prob_pos"] for p in parts)
    neg = sum(p["sum_prob_neg"] for p in parts)
    return {
        "balance_for_positive_class": _div(pos, sum(p["P"] for p in parts)),
        "balance_for_negative_class": _div(neg, sum(p["N"] for p in parts)),
    }


def largest(groups: dict[Key, Group]) -> Key:
    """Group with most rows (or total weight); ties go to the first in sort order."""
    best: Key | None = None
    for key, g in groups.items():  # insertion order is the sorted key order
        if best is None or g.n > groups[best].n:
            best = key
    assert best is not None
    return best


#: The comparison of per-group values is the core reference's (DESIGN.md section 4).
compare = _core.compare


# ---- calibration ----------------------------------------------------------------------


def uniform_edges(n_bins: int) -> np.ndarray:
    """Uniform bin edges exactly as the spec (and sklearn) builds them."""
    return np.linspace(0.0, 1.0, n_bins + 1)


def calibration_bins(g: Group, edges: Sequence[float]) -> list[dict[str, Any]]:
    """Non-empty bins of one group, in bin order.

    Bin 0 is [e0, e1]; bin b > 0 is (e_b, e_{b+1}] (a score on an edge goes to the lower
    bin). Membership is written from that definition with comparisons, not searchsorted.
    """
    e = [float(x) for x in edges]
    w = g.weights
    out = []
    for b in range(len(e) - 1):
        lo, hi = e[b], e[b + 1]
        m = (g.s >= lo) & (g.s <= hi) if b == 0 else (g.s > lo) & (g.s <= hi)
        if not m.any():
            continue
        n = g.total(m)
        wsum = float(w[m].sum())
        mean_prob = float(np.sum(w[m] * g.s[m])) / wsum
        frac = float(np.sum(w[m] * g.y[m])) / wsum
        out.append({
            "bin": b, "bin_low": lo, "bin_high": hi, "n": n, "mean_prob": mean_prob,
            "fraction_positive": frac, "calibration_gap": abs(frac - mean_prob),
        })  # fmt: skip
    # every clean row falls in exactly one bin
    assert math.isclose(sum(r["n"] for r in out), g.n, rel_tol=1e-12)
    return out


def expected_calibration_error(bins: list[dict[str, Any]]) -> float | None:
    """sum_b n_b / n_g * gap_b."""
    total = sum(r["n"] for r in bins)
    if total == 0:
        return None
    return sum(r["n"] / total * r["calibration_gap"] for r in bins)


def calibration_difference(
    groups: dict[Key, Group], edges: Sequence[float], ref_key: Key, min_bin_size: float = 1
) -> float | None:
    """Largest |fraction_positive_g,b - fraction_positive_ref,b| over g != ref and the bins
    where both the group and the reference have n >= min_bin_size (None if no such bin)."""
    per = {k: {r["bin"]: r for r in calibration_bins(g, edges)} for k, g in groups.items()}
    ref_bins = per[ref_key]
    best: float | None = None
    for key, bins in per.items():
        if key == ref_key:
            continue
        for b, r in bins.items():
            rr = ref_bins.get(b)
            if rr is None or r["n"] < min_bin_size or rr["n"] < min_bin_size:
                continue
            d = abs(r["fraction_positive"] - rr["fraction_positive"])
            best = d if best is None else max(best, d)
    return best


# ---- ROC ------------------------------------------------------------------------------


def roc_points(g: Group) -> dict[str, list[Any]]:
    """The ROC curve of one group from its definition.

    Thresholds: +inf, then every distinct score in descending order. At threshold t a
    row is predicted positive iff s >= t; tpr = TP(t)/P, fpr = FP(t)/N (None when P or N
    is 0). Counted by brute force at every threshold.
    """
    w = g.weights
    thresholds = [math.inf, *sorted(set(g.s.tolist()), reverse=True)]
    p, n = float(w[g.y].sum()), float(w[~g.y].sum())
    fpr, tpr = [], []
    for t in thresholds:
        sel = g.s >= t
        tp = float(w[sel & g.y].sum())
        fp = float(w[sel & ~g.y].sum())
        tpr.append(_div(tp, p))
        fpr.append(_div(fp, n))
    return {"threshold": thresholds, "fpr": fpr, "tpr": tpr}


def auc(points: dict[str, list[Any]]) -> float | None:
    """Area under the ROC points by the trapezoid rule (None if fpr or tpr undefined)."""
    if any(v is None for v in points["fpr"]) or any(v is None for v in points["tpr"]):
        return None
    x, y = points["fpr"], points["tpr"]
    return sum((x[i + 1] - x[i]) * (y[i] + y[i + 1]) / 2 for i in range(len(x) - 1))


class _Curve:
    """A ROC curve as a function of fpr, with one-sided limits at vertical jumps.

    Several points may share one fpr (a vertical segment, tpr rising). On an open
    interval between two consecutive distinct fpr values x_i < x_j the curve is the line
    from (x_i, highest tpr at x_i) to (x_j, lowest tpr at x_j).
    """

    def __init__(self, fpr: Sequence[float], tpr: Sequence[float]) -> None:
        xs = sorted(set(fpr))
        self.x = np.array(xs)
        self.low = np.array([min(t for f, t in zip(fpr, tpr, strict=True) if f == x) for x in xs])
        self.high = np.array([max(t for f, t in zip(fpr, tpr, strict=True) if f == x) for x in xs])
        assert xs[0] == 0.0
        assert xs[-1] == 1.0

    def _segment(self, a: float, b: float) -> tuple[float, float, float, float]:
        # the curve's own segment (x_i, x_j) containing the open interval (a, b)
        i = int(np.searchsorted(self.x, a, side="right")) - 1
        j = i + 1
        assert self.x[i] <= a
        assert b <= self.x[j]
        return float(self.x[i]), float(self.high[i]), float(self.x[j]), float(self.low[j])

    def ends(self, a: float, b: float) -> tuple[float, float]:
        """Right limit at `a` and left limit at `b` on a sub-interval of one segment."""
        x0, y0, x1, y1 = self._segment(a, b)
        slope = (y1 - y0) / (x1 - x0)
        return y0 + slope * (a - x0), y0 + slope * (b - x0)


def _abs_linear_integral(d0: float, d1: float, width: float) -> float:
    """Exact integral of |d| for d linear from d0 to d1 over an interval of `width`."""
    if d0 * d1 >= 0:
        return (abs(d0) + abs(d1)) / 2 * width
    # the sign changes inside: two triangles, split at the root d0 / (d0 - d1) of the way
    return (d0 * d0 + d1 * d1) / (2 * (abs(d0) + abs(d1))) * width


def area_between(a: dict[str, list[Any]], b: dict[str, list[Any]]) -> float:
    """Exact integral over [0, 1] of |TPR_a(f) - TPR_b(f)| for two piecewise-linear ROCs.

    The union of both curves' breakpoints splits [0, 1] into intervals on which both
    curves are linear; on each, |difference| is integrated exactly, handling a sign change
    inside the interval.
    """
    ca, cb = _Curve(a["fpr"], a["tpr"]), _Curve(b["fpr"], b["tpr"])
    xs = sorted(set(ca.x.tolist()) | set(cb.x.tolist()))
    total = 0.0
    for lo, hi in zip(xs[:-1], xs[1:], strict=True):
        a0, a1 = ca.ends(lo, hi)
        b0, b1 = cb.ends(lo, hi)
        total += _abs_linear_integral(a0 - b0, a1 - b1, hi - lo)
    return total


def abroca(groups: dict[Key, Group], ref_key: Key) -> float | None:
    """Max over groups g != ref of the area between the ROC curves of g and ref."""
    curves = {k: roc_points(g) for k, g in groups.items()}
    ref = curves[ref_key]
    if auc(ref) is None:
        return None
    vals = [area_between(c, ref) for k, c in curves.items() if k != ref_key and auc(c) is not None]
    return max(vals) if vals else None


# ---- threshold sweep ------------------------------------------------------------------


def sweep_counts(g: Group, thresholds: Sequence[float]) -> list[dict[str, Any]]:
    """n, tp, fp, fn, tn of one group for y_pred = (s >= t), at each threshold t."""
    out = []
    for t in thresholds:
        p = g.s >= t
        out.append({
            "threshold": float(t), "n": g.n, "tp": g.total(p & g.y), "fp": g.total(p & ~g.y),
            "fn": g.total(~p & g.y), "tn": g.total(~p & ~g.y),
            "pred_pos": g.total(p), "pred_neg": g.total(~p),
        })  # fmt: skip
    return out
