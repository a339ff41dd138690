"""Brute-force numpy reference for the regression audit (issue 4, api4.md).

Written from the DEFINITIONS and sharing no code with polars_fair: no polars import,
no library import. Everything is computed row by row from numpy arrays and boolean
masks, with two-pass (centred) moments, whereas the library works from additive sums.

* per group: ``n`` (row count, or weight total), ``mean_prediction``,
  ``std_prediction`` (population, ``ddof=0``), ``mean_true``, ``rmse``, ``mae`` and
  Pearson's ``correlation`` (:func:`numpy.corrcoef`; weighted: explicit weighted
  centred moments), None when a prediction or truth is constant in the group;
* comparisons ``between_groups`` (max - min, min / max), ``to_overall`` (largest
  ``|g - o|``, smallest ``min(g / o, o / g)``), ``to_reference`` (the signed value of
  the group farthest from the reference: ``|d|`` for differences, ``|log r|`` for
  ratios, a ratio of 0 is farthest; ties go to the first group in key order);
* ``zscore``: ``(m_g - m_ref) / sqrt(((n_g-1) s_g^2 + (n_ref-1) s_ref^2) / (n_g+n_ref-2))``
  with population variances;
* quantile criteria: ``t = numpy.quantile(all valid predictions, q)``, success
  ``pred >= t``; the grid criteria over ``numpy.linspace(1, 0, n)``.

Conventions (as ``tests/reference_stats.py``): a row with a null prediction, truth or
weight is dropped (counted in ``n_null``); a null sensitive value is its own group;
group keys are tuples sorted with nulls last; ``None`` is "undefined".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Key = tuple[Any, ...]

MEASURES = ("mean_prediction", "std_prediction", "mean_true", "rmse", "mae", "correlation")
PREDICTION_MEASURES = MEASURES[:2]
SUMS = (
    "sum_pred",
    "sum_pred_sq",
    "sum_true",
    "sum_true_sq",
    "sum_pred_true",
    "sum_abs_error",
    "sum_sq_error",
)


def sort_keys(keys: set[Key] | list[Key]) -> list[Key]:
    """Key tuples sorted, nulls last in each position."""
    return sorted(set(keys), key=lambda k: tuple((v is None, v if v is not None else 0) for v in k))


# --------------------------------------------------------------------------- rows


class RegRows:
    """The rows of a regression dataset as numpy arrays.

    ``p``/``t``: predictions and truths of the kept rows (``t`` None without truths),
    ``w``: weights (ones when unweighted), ``keys``: the group of each kept row.
    ``dropped``: the group of each row dropped for a null prediction, truth or weight.
    """

    def __init__(
        self,
        y_pred: Sequence[Any],
        sensitive: Sequence[Sequence[Any]],
        y_true: Sequence[Any] | None = None,
        sample_weight: Sequence[Any] | None = None,
    ) -> None:
        n = len(y_pred)
        all_keys = [tuple(col[i] for col in sensitive) for i in range(n)]
        keep = np.array([v is not None for v in y_pred], dtype=bool)
        for arr in (y_true, sample_weight):
            if arr is not None:
                keep &= np.array([v is not None for v in arr], dtype=bool)
        idx = np.flatnonzero(keep)
        self.p = np.array([float(y_pred[i]) for i in idx], dtype=np.float64)
        self.t = (
            None if y_true is None else np.array([float(y_true[i]) for i in idx], dtype=np.float64)
        )
        self.w = (
            np.ones(len(idx))
            if sample_weight is None
            else np.array([float(sample_weight[i]) for i in idx], dtype=np.float64)
        )
        self.weighted = sample_weight is not None
        self.keys: list[Key] = [all_keys[i] for i in idx]
        self.dropped: list[Key] = [all_keys[i] for i in np.flatnonzero(~keep)]

    def groups(self) -> list[Key]:
        """Every group seen (with or without kept rows), sorted, nulls last."""
        return sort_keys(set(self.keys) | set(self.dropped))

    def mask(self, key: Key) -> np.ndarray:
        cache: dict[Key, np.ndarray] = self.__dict__.setdefault("_masks", {})
        if key not in cache:
            cache[key] = np.array([k == key for k in self.keys], dtype=bool)
        return cache[key]

    def all(self) -> np.ndarray:
        return np.ones(len(self.keys), dtype=bool)


# ------------------------------------------------------------------------ measures


def _weighted_mean(x: np.ndarray, w: np.ndarray) -> float:
    return float(np.sum(w * x) / np.sum(w))


def _constant(x: np.ndarray, w: np.ndarray) -> bool:
    x = x[w > 0]
    return bool(x.size == 0 or np.all(x == x[0]))


def measures_of(rows: RegRows, m: np.ndarray) -> dict[str, float | None]:
    """Every measure of the rows selected by mask ``m`` (None when undefined)."""
    p, w = rows.p[m], rows.w[m]
    names = MEASURES if rows.t is not None else PREDICTION_MEASURES
    out: dict[str, float | None] = dict.fromkeys(names)
    if p.size == 0 or float(w.sum()) == 0:
        return out
    mp = _weighted_mean(p, w)
    out["mean_prediction"] = mp
    out["std_prediction"] = math.sqrt(_weighted_mean((p - mp) ** 2, w))
    if rows.t is None:
        return out
    t = rows.t[m]
    mt = _weighted_mean(t, w)
    e = p - t
    out["mean_true"] = mt
    out["rmse"] = math.sqrt(_weighted_mean(e * e, w))
    out["mae"] = _weighted_mean(np.abs(e), w)
    if _constant(p, w) or _constant(t, w):
        out["correlation"] = None
    elif not rows.weighted:
        out["correlation"] = float(np.corrcoef(p, t)[0, 1])
    else:
        cov = _weighted_mean((p - mp) * (t - mt), w)
        vp = _weighted_mean((p - mp) ** 2, w)
        vt = _weighted_mean((t - mt) ** 2, w)
        out["correlation"] = cov / math.sqrt(vp * vt)
    return out


def stats_of(rows: RegRows, key: Key) -> dict[str, float]:
    """The sums of the statistics table for one group (weighted sums when weighted)."""
    m = rows.mask(key)
    p, w = rows.p[m], rows.w[m]
    out = {
        "n": float(w.sum()),
        "n_null": float(sum(1 for k in rows.dropped if k == key)),
        "sum_pred": float(np.sum(w * p)),
        "sum_pred_sq": float(np.sum(w * p * p)),
    }
    if rows.t is not None:
        t = rows.t[m]
        out |= {
            "sum_true": float(np.sum(w * t)),
            "sum_true_sq": float(np.sum(w * t * t)),
            "sum_pred_true": float(np.sum(w * p * t)),
            "sum_abs_error": float(np.sum(w * np.abs(p - t))),
            "sum_sq_error": float(np.sum(w * (p - t) ** 2)),
        }
    return out


def by_group(rows: RegRows) -> dict[Key, dict[str, float | None]]:
    return {key: measures_of(rows, rows.mask(key)) for key in rows.groups()}


def sizes(rows: RegRows) -> dict[Key, float]:
    return {key: float(rows.w[rows.mask(key)].sum()) for key in rows.groups()}


def largest(n: dict[Key, float]) -> Key:
    """The key with the most rows / weight; ties go to the first key in sort order."""
    best: Key | None = None
    for key in sort_keys(list(n)):
        if best is None or n[key] > n[best]:
            best = key
    assert best is not None
    return best


def resolve(n: dict[Key, float], reference: Any) -> Key:
    if reference is None or reference == "largest":
        return largest(n)
    key = reference if isinstance(reference, tuple) else (reference,)
    assert key in n, key
    return key


# ----------------------------------------------------------------------- comparisons


def between_groups(values: dict[Key, float | None], kind: str) -> float | None:
    vals = [v for v in values.values() if v is not None]
    if not vals:
        return None
    hi, lo = max(vals), min(vals)
    if kind == "difference":
        return hi - lo
    return None if hi == 0 else lo / hi


def to_overall(values: dict[Key, float | None], overall: float | None, kind: str) -> float | None:
    vals = [v for v in values.values() if v is not None]
    if not vals or overall is None:
        return None
    if kind == "difference":
        return max(abs(v - overall) for v in vals)
    if overall == 0:
        return None
    return min(0.0 if v == 0 else min(v / overall, overall / v) for v in vals)


def _distance(value: float, kind: str) -> float:
    if kind == "difference":
        return abs(value)
    return math.inf if value == 0 else abs(math.log(value))


def to_reference(values: dict[Key, float | None], ref: Key, kind: str) -> float | None:
    """The signed difference (ratio) of the non-reference group farthest from `ref`."""
    r = values.get(ref)
    if r is None or (kind == "ratio" and r == 0):
        return None
    best: float | None = None
    for key in sort_keys(list(values)):
        v = values[key]
        if key == ref or v is None:
            continue
        c = v - r if kind == "difference" else v / r
        if best is None or _distance(c, kind) > _distance(best, kind):
            best = c
    return best


def compare(
    values: dict[Key, float | None],
    kind: str,
    method: str,
    *,
    overall: float | None = None,
    ref: Key | None = None,
) -> float | None:
    if method == "between_groups":
        return between_groups(values, kind)
    if method == "to_overall":
        return to_overall(values, overall, kind)
    assert ref is not None
    return to_reference(values, ref, kind)


def criterion(
    rows: RegRows, measure: str, kind: str, method: str, reference: Any = None
) -> float | None:
    """A regression criterion: `measure` of each group compared by `method`."""
    per_group = by_group(rows)
    values = {k: v[measure] for k, v in per_group.items()}
    overall = measures_of(rows, rows.all())[measure]
    ref = resolve(sizes(rows), reference) if method == "to_reference" else None
    return compare(values, kind, method, overall=overall, ref=ref)


#: criterion name -> (measure, kind)
CRITERIA = {
    "average_score_difference": ("mean_prediction", "difference"),
    "average_score_ratio": ("mean_prediction", "ratio"),
    "rmse_difference": ("rmse", "difference"),
    "rmse_ratio": ("rmse", "ratio"),
    "mae_difference": ("mae", "difference"),
    "mae_ratio": ("mae", "ratio"),
    "correlation_difference": ("correlation", "difference"),
}


def zscore_difference(rows: RegRows, reference: Any = None) -> float | None:
    """The signed z of the group farthest from the reference (None when undefined)."""
    n = sizes(rows)
    ref = resolve(n, reference)
    stats = by_group(rows)
    m_r, s_r, n_r = stats[ref]["mean_prediction"], stats[ref]["std_prediction"], n[ref]
    values: dict[Key, float | None] = {}
    for key in n:
        if key == ref:
            continue
        m_g, s_g, n_g = stats[key]["mean_prediction"], stats[key]["std_prediction"], n[key]
        dof = n_g + n_r - 2
        if m_g is None or m_r is None or s_g is None or s_r is None or dof <= 0:
            values[key] = None
            continue
        pooled = ((n_g - 1) * s_g**2 + (n_r - 1) * s_r**2) / dof
        values[key] = None if pooled <= 0 else (m_g - m_r) / math.sqrt(pooled)
    best: float | None = None
    for key in sort_keys(list(values)):
        v = values[key]
        if v is not None and (best is None or abs(v) > abs(best)):
            best = v
    return best


# ------------------------------------------------------------------ disparities


def disparities(
    rows: RegRows, reference: Any
) -> dict[tuple[Key, str], tuple[float | None, float | None, float | None, float | None]]:
    """(group, measure) -> (value, reference_value, difference, ratio).

    ``"overall"``: the measure of all rows together; ``"rest"``: of the rows of the
    other groups together; ``"min"``: the smallest group value of that measure.
    """
    per_group = by_group(rows)
    names = MEASURES if rows.t is not None else PREDICTION_MEASURES
    overall = measures_of(rows, rows.all())
    fixed: Key | None = None
    if reference not in ("min", "overall", "rest"):
        fixed = resolve(sizes(rows), reference)
    out: dict[tuple[Key, str], tuple[float | None, float | None, float | None, float | None]] = {}
    for key, vals in per_group.items():
        rest = measures_of(rows, ~rows.mask(key)) if reference == "rest" else {}
        for name in names:
            v = vals[name]
            if reference == "overall":
                r = overall[name]
            elif reference == "rest":
                r = rest[name]
            elif reference == "min":
                defined = [g[name] for g in per_group.values() if g[name] is not None]
                r = min(defined) if defined else None  # type: ignore[type-var]
            else:
                assert fixed is not None
                r = per_group[fixed][name]
            diff = None if v is None or r is None else v - r
            ratio = None if v is None or r is None or r == 0 else v / r
            out[(key, name)] = (v, r, diff, ratio)
    return out


# ------------------------------------------------------------ quantile criteria


def threshold(rows: RegRows, q: float) -> float:
    return float(np.quantile(rows.p, q))


def success_rates(rows: RegRows, t: float) -> dict[Key, float | None]:
    """Share of each group's kept rows with prediction >= t (None for an empty group)."""
    out: dict[Key, float | None] = {}
    for key in rows.groups():
        m = rows.mask(key)
        n = int(m.sum())
        out[key] = None if n == 0 else int(np.sum(rows.p[m] >= t)) / n
    return out


def counts(rows: RegRows) -> dict[Key, float]:
    return {key: float(rows.mask(key).sum()) for key in rows.groups()}


def _rates_criterion(
    rows: RegRows, t: float, kind: str, method: str, reference: Any
) -> float | None:
    rates = success_rates(rows, t)
    overall = float(np.mean(rows.p >= t)) if rows.p.size else None
    ref = resolve(counts(rows), reference) if method == "to_reference" else None
    return compare(rates, kind, method, overall=overall, ref=ref)


def quantile_criterion(
    rows: RegRows, q: float, kind: str, method: str, reference: Any = None
) -> float | None:
    """Disparate impact (``kind="ratio"``) or statistical parity at the q-quantile."""
    return _rates_criterion(rows, threshold(rows, q), kind, method, reference)


def levels(n_thresholds: int) -> np.ndarray:
    return np.linspace(1, 0, n_thresholds)


def sp_curve(rows: RegRows, n_thresholds: int, method: str, reference: Any = None) -> list[float]:
    """|statistical parity| at each level of the grid (undefined levels left out)."""
    out = []
    for q in levels(n_thresholds):
        v = _rates_criterion(rows, float(np.quantile(rows.p, q)), "difference", method, reference)
        if v is not None:
            out.append(abs(v))
    return out


def max_statistical_parity(
    rows: RegRows, n_thresholds: int = 150, method: str = "between_groups", reference: Any = None
) -> float | None:
    curve = sp_curve(rows, n_thresholds, method, reference)
    return max(curve) if curve else None


def statistical_parity_auc(
    rows: RegRows, n_thresholds: int = 150, method: str = "between_groups", reference: Any = None
) -> float | None:
    curve = sp_curve(rows, n_thresholds, method, reference)
    return float(np.mean(curve)) if curve else None


def no_disparate_impact_level(
    rows: RegRows,
    n_thresholds: int = 100,
    method: str = "between_groups",
    reference: Any = None,
    band: tuple[float, float] = (0.8, 1.25),
) -> float | None:
    """The largest grid threshold whose DI (by `method`) lies in the CLOSED band."""
    best: float | None = None
    for q in levels(n_thresholds):
        t = float(np.quantile(rows.p, q))
        di = _rates_criterion(rows, t, "ratio", method, reference)
        if di is not None and band[0] <= di <= band[1] and (best is None or t > best):
            best = t
    return best


# ------------------------------------------------------------------------ datasets


def make_data(
    seed: int,
    *,
    rows: int = 300,
    groups: Sequence[Any] = ("a", "b", "c"),
    group_p: Sequence[float] | None = None,
    second: Sequence[Any] | None = None,
    weights: bool = False,
    nulls: bool = False,
    batches: Sequence[Any] | None = None,
    integer: bool = False,
) -> dict[str, list[Any]]:
    """Seeded random columns ``g`` (and ``h``, ``w``, ``batch``), ``y_pred``, ``y_true``.

    Predictions are normal with a group-dependent mean (about 2 to 3) and spread, the
    truth a noisy linear function of the prediction, so every measure differs between
    groups. ``integer`` rounds the predictions to integers 0..8 (many ties). ``nulls``
    blanks ~5% of the predictions and truths and ~4% of the group values.
    """
    rng = np.random.default_rng(seed)
    gvals = np.array(list(groups), dtype=object)
    gi = rng.choice(len(gvals), size=rows, p=group_p)
    pred = rng.normal(2.0 + 0.4 * gi, 1.0 + 0.25 * gi)
    true = 0.8 * pred + 0.3 + rng.normal(0.0, 0.5 + 0.3 * gi)
    if integer:
        pred = np.clip(np.round(pred * 1.5), 0, 8)
    data: dict[str, list[Any]] = {
        "g": [gvals[i] for i in gi],
        "y_pred": pred.astype(np.int64).tolist() if integer else pred.tolist(),
        "y_true": true.tolist(),
    }
    if second is not None:
        data["h"] = rng.choice(np.array(list(second), dtype=object), size=rows).tolist()
    if weights:
        data["w"] = np.round(rng.gamma(2.0, 1.0, rows) + 0.01, 3).tolist()
    if batches is not None:
        data["batch"] = rng.choice(np.array(list(batches), dtype=object), size=rows).tolist()
    if nulls:
        for col in ("y_true", "y_pred"):
            for i in rng.choice(rows, size=rows // 20, replace=False):
                data[col][i] = None
        for i in rng.choice(rows, size=rows // 25, replace=False):
            data["g"][i] = None
    return data


def subset(data: dict[str, list[Any]], col: str, value: Any) -> dict[str, list[Any]]:
    idx = [i for i, v in enumerate(data[col]) if v == value]
    return {k: [vals[i] for i in idx] for k, vals in data.items()}


def rows_of(
    data: dict[str, list[Any]],
    sens: Sequence[str] = ("g",),
    *,
    truth: bool = True,
    weighted: bool = False,
) -> RegRows:
    return RegRows(
        data["y_pred"],
        [data[s] for s in sens],
        data["y_true"] if truth else None,
        data["w"] if weighted else None,
    )
