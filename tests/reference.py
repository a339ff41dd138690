"""Brute-force numpy reference for polars_fair's metrics, written from DESIGN.md.

No polars and no library code: groups are found with ``np.unique``-style loops and
counted with boolean masks, one group at a time. Clarity over speed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

RATES = (
    "selection_rate", "base_rate", "true_positive_rate", "false_negative_rate",
    "false_positive_rate", "true_negative_rate", "positive_predictive_value",
    "negative_predictive_value", "false_discovery_rate", "false_omission_rate",
    "accuracy", "error_rate", "predicted_positive_share", "f1", "balanced_accuracy",
)  # fmt: skip

Counts = dict[str, Any]
Table = dict[tuple[Any, ...], Counts]


def _is_null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def group_keys(sensitive: list[np.ndarray]) -> list[tuple[Any, ...]]:
    """Sorted distinct group keys; nulls sort last in each position."""
    keys = {
        tuple(None if _is_null(col[i]) else col[i] for col in sensitive)
        for i in range(len(sensitive[0]))
    }
    return sorted(keys, key=lambda k: tuple((v is None, v if v is not None else 0) for v in k))


def _mask(sensitive: list[np.ndarray], key: tuple[Any, ...]) -> np.ndarray:
    m = np.ones(len(sensitive[0]), dtype=bool)
    for col, v in zip(sensitive, key, strict=True):
        if v is None:
            m &= np.array([_is_null(x) for x in col])
        else:
            m &= np.array([(not _is_null(x)) and x == v for x in col])
    return m


def confusion_counts(
    y_true: np.ndarray | None,
    y_pred: np.ndarray | None,
    sensitive: list[np.ndarray],
    sample_weight: np.ndarray | None = None,
    pos_label: Any = 1,
) -> Table:
    """Per-group n, tp, fp, fn, tn (or pred_pos/pred_neg, pos/neg) and n_null."""
    rows = len(sensitive[0])
    null = np.zeros(rows, dtype=bool)
    for arr in (y_true, y_pred, sample_weight):
        if arr is not None:
            null |= np.array([_is_null(v) for v in arr])
    w = (
        np.ones(rows)
        if sample_weight is None
        else np.array([0.0 if _is_null(v) else float(v) for v in sample_weight])
    )
    yt = (
        None if y_true is None else np.array([(not _is_null(v)) and v == pos_label for v in y_true])
    )
    yp = (
        None if y_pred is None else np.array([(not _is_null(v)) and v == pos_label for v in y_pred])
    )

    def total(mask: np.ndarray) -> Any:
        if sample_weight is None:
            return int(mask.sum())
        return float(w[mask].sum())

    out: Table = {}
    for key in group_keys(sensitive):
        g = _mask(sensitive, key)
        ok = g & ~null
        c: Counts = {"n": total(ok), "n_null": int((g & null).sum())}
        if yt is not None and yp is not None:
            c.update(tp=total(ok & yt & yp), fp=total(ok & ~yt & yp),
                     fn=total(ok & yt & ~yp), tn=total(ok & ~yt & ~yp))  # fmt: skip
        elif yp is not None:
            c.update(pred_pos=total(ok & yp), pred_neg=total(ok & ~yp))
        else:
            assert yt is not None
            c.update(pos=total(ok & yt), neg=total(ok & ~yt))
        out[key] = c
    return out


def _div(a: Any, b: Any) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def rates(c: Counts) -> dict[str, float | None]:
    """All rates of one group computable from its counts (None when undefined)."""
    if "tp" not in c:
        if "pred_pos" in c:
            return {"selection_rate": _div(c["pred_pos"], c["n"])}
        return {"base_rate": _div(c["pos"], c["n"])}
    tp, fp, fn, tn, n = c["tp"], c["fp"], c["fn"], c["tn"], c["n"]
    P, N, PP, PN = tp + fn, fp + tn, tp + fp, tn + fn  # noqa: N806
    tpr, tnr, fpr = _div(tp, P), _div(tn, N), _div(fp, N)
    return {
        "selection_rate": _div(PP, n),
        "base_rate": _div(P, n),
        "true_positive_rate": tpr,
        "false_negative_rate": _div(fn, P),
        "false_positive_rate": fpr,
        "true_negative_rate": tnr,
        "positive_predictive_value": _div(tp, PP),
        "negative_predictive_value": _div(tn, PN),
        "false_discovery_rate": _div(fp, PP),
        "false_omission_rate": _div(fn, PN),
        "accuracy": _div(tp + tn, n),
        "error_rate": _div(fp + fn, n),
        "f1": _div(2 * tp, 2 * tp + fp + fn),
        "balanced_accuracy": None if tpr is None or tnr is None else (tpr + tnr) / 2,
        "treatment_equality": _div(fn, fp),
        "average_odds": None if tpr is None or fpr is None else (tpr + fpr) / 2,
    }


def _pp(c: Counts) -> Any:
    return c["tp"] + c["fp"] if "tp" in c else c["pred_pos"]


def overall_counts(table: Table) -> Counts:
    """Counts of the whole population (all groups summed)."""
    first = next(iter(table.values()))
    return {k: sum(c[k] for c in table.values()) for k in first}


def rates_by_group(table: Table) -> dict[tuple[Any, ...], dict[str, float | None]]:
    """Rates per group, with predicted_positive_share over all groups."""
    out = {}
    total_pp = (
        sum(_pp(c) for c in table.values())
        if ("tp" in next(iter(table.values())) or "pred_pos" in next(iter(table.values())))
        else None
    )
    for key, c in table.items():
        r = rates(c)
        if total_pp is not None:
            r["predicted_positive_share"] = _div(_pp(c), total_pp)
        out[key] = r
    return out


def _value(table: Table, key: tuple[Any, ...], metric: str) -> float | None:
    return rates_by_group(table)[key][metric]


def _largest(table: Table) -> tuple[Any, ...]:
    best = None
    for key, c in table.items():  # insertion order is sorted key order
        if best is None or c["n"] > table[best]["n"]:
            best = key
    assert best is not None
    return best


def disparities(table: Table, reference: Any) -> list[dict[str, Any]]:
    """Rows key, metric, value, reference_value, difference, ratio."""
    per_group = rates_by_group(table)
    metrics = [m for m in RATES if m in next(iter(per_group.values()))]
    overall = overall_counts(table)
    total_pp = _pp(overall) if "predicted_positive_share" in metrics else None
    if isinstance(reference, tuple) and reference not in table:
        raise KeyError(reference)
    rows = []
    for key, c in table.items():
        for m in metrics:
            v = per_group[key][m]
            if reference == "min":
                vals = [r[m] for r in per_group.values() if r[m] is not None]
                rv = min(vals) if vals else None
            elif reference in ("overall", "rest"):
                pooled = (
                    overall if reference == "overall" else {k: overall[k] - c[k] for k in overall}
                )
                if m == "predicted_positive_share":
                    rv = _div(_pp(pooled), total_pp)
                else:
                    rv = rates(pooled)[m]
            else:
                ref_key = _largest(table) if reference == "largest" else reference
                rv = per_group[ref_key][m]
            diff = None if v is None or rv is None else v - rv
            ratio = None if v is None or rv is None or rv == 0 else v / rv
            rows.append({"key": key, "metric": m, "value": v, "reference_value": rv,
                         "difference": diff, "ratio": ratio})  # fmt: skip
    return rows


def _measure(table: Table, metric: str) -> dict[tuple[Any, ...], float | None]:
    return {k: r.get(metric) for k, r in rates_by_group(table).items()}


def _overall_value(table: Table, metric: str) -> float | None:
    overall = overall_counts(table)
    if metric == "predicted_positive_share":
        return _div(_pp(overall), _pp(overall))
    return rates(overall)[metric]


def _log_dist(q: float) -> float:
    return math.inf if q == 0 else abs(math.log(q))


def compare(
    values: dict[Any, float | None],
    overall: float | None,
    kind: str,
    method: str,
    ref_key: Any = None,
) -> float | None:
    """One comparison of per-group values (DESIGN.md section 4).

    between_groups: max - min, min / max. to_overall: largest |v - overall|, smallest
    min(v/o, o/v). to_reference: the signed difference (ratio) of the group farthest from
    the reference (distance |d| for differences, |log r| for ratios).
    """
    defined = {k: v for k, v in values.items() if v is not None}
    if method == "between_groups":
        if not defined:
            return None
        hi, lo = max(defined.values()), min(defined.values())
        return hi - lo if kind == "difference" else (None if hi == 0 else lo / hi)
    if method == "to_overall":
        o = overall
        if not defined or o is None:
            return None
        if kind == "difference":
            return max(abs(v - o) for v in defined.values())
        if o == 0:
            return None
        return min(0.0 if v == 0 else min(v / o, o / v) for v in defined.values())
    rv = values[ref_key]
    if rv is None:
        return None
    best, best_d = None, -1.0
    for k, v in defined.items():
        if k == ref_key:
            continue
        if kind == "difference":
            cand, d = v - rv, abs(v - rv)
        else:
            if rv == 0:
                return None
            cand = v / rv
            d = _log_dist(cand)
        if d > best_d:
            best, best_d = cand, d
    return best


def criterion(
    table: Table, metric: str, kind: str, method: str, reference: Any = None
) -> float | None:
    """One comparison of one per-group measure (see DESIGN.md section 4)."""
    overall = _overall_value(table, metric) if method == "to_overall" else None
    ref_key = None
    if method == "to_reference":
        ref_key = _largest(table) if reference in (None, "largest") else reference
    return compare(_measure(table, metric), overall, kind, method, ref_key)


def _combine(parts: list[float | None], kind: str, method: str, agg: str) -> float | None:
    if any(p is None for p in parts):
        return None
    vals = [p for p in parts if p is not None]
    if agg == "mean":
        return sum(vals) / len(vals)
    if method != "to_reference":
        return max(vals) if kind == "difference" else min(vals)
    dist = [abs(v) if kind == "difference" else _log_dist(v) for v in vals]
    return vals[int(np.argmax(dist))]


def equalized_odds_difference(
    table: Table, method: str, agg: str, reference: Any = None
) -> float | None:
    """Combined TPR and FPR difference."""
    parts = [
        criterion(table, m, "difference", method, reference)
        for m in ("true_positive_rate", "false_positive_rate")
    ]
    return _combine(parts, "difference", method, agg)


def equalized_odds_ratio(
    table: Table, method: str, agg: str, reference: Any = None
) -> float | None:
    """Combined TPR and FPR ratio."""
    parts = [
        criterion(table, m, "ratio", method, reference)
        for m in ("true_positive_rate", "false_positive_rate")
    ]
    return _combine(parts, "ratio", method, agg)


def conditional_use_accuracy_difference(
    table: Table, method: str, reference: Any = None
) -> float | None:
    """Worst of the PPV and NPV differences."""
    parts = [
        criterion(table, m, "difference", method, reference)
        for m in ("positive_predictive_value", "negative_predictive_value")
    ]
    return _combine(parts, "difference", method, "worst_case")


def conditional_use_accuracy_ratio(
    table: Table, method: str, reference: Any = None
) -> float | None:
    """Worst of the PPV and NPV ratios."""
    parts = [
        criterion(table, m, "ratio", method, reference)
        for m in ("positive_predictive_value", "negative_predictive_value")
    ]
    return _combine(parts, "ratio", method, "worst_case")


def average_abs_odds_difference(table: Table, method: str, reference: Any = None) -> float | None:
    """1/2 (|dFPR| + |dTPR|) per DESIGN/our documented methods."""
    tpr, fpr = _measure(table, "true_positive_rate"), _measure(table, "false_positive_rate")
    if method == "between_groups":
        t = [v for v in tpr.values() if v is not None]
        f = [v for v in fpr.values() if v is not None]
        if not t or not f:
            return None
        return ((max(t) - min(t)) + (max(f) - min(f))) / 2
    if method == "to_overall":
        rt, rf = (
            _overall_value(table, "true_positive_rate"),
            _overall_value(table, "false_positive_rate"),
        )
        skip = None
    else:
        skip = _largest(table) if reference in (None, "largest") else reference
        rt, rf = tpr[skip], fpr[skip]
    vals = [
        (abs(tpr[k] - rt) + abs(fpr[k] - rf)) / 2
        for k in table
        if k != skip
        and tpr[k] is not None
        and fpr[k] is not None
        and rt is not None
        and rf is not None
    ]
    return max(vals) if vals else None
