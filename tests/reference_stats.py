"""Brute-force numpy reference for the inequality indices, statistical rules and intervals.

Written from the definitions (Speicher et al. 2018 via the Jurity seed 001, Holistic AI
seed 003 with the square root restored, Wilson 1927, Newcombe 1998 method 10, Katz et
al. 1978) and shares no code with polars_fair: no polars import, no library import.

The inequality indices are computed ROW BY ROW: ``b_i = yhat_i - y_i + 1`` is
materialised as a vector (one entry per row; frequency weights multiply each row's
term) and the textbook sums are taken over it, whereas the library works from the
four confusion counts. The statistical rules are computed from per-group selection
rates obtained with boolean masks.

Conventions shared with ``tests/reference.py``: a row with a null label, prediction
or weight is dropped; a null sensitive value is its own group; group keys are tuples
sorted with nulls last; ``None`` is "undefined".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

Key = tuple[Any, ...]


# --------------------------------------------------------------------------- rows


def _is_null(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


class Rows:
    """The valid rows of a dataset as plain numpy arrays.

    ``yt``/``yp`` are booleans (``value == pos_label``), ``w`` float weights (ones when
    unweighted), ``keys`` the group key tuple of each row (None for a null value).
    Rows with a null label, prediction or weight are removed.
    """

    def __init__(
        self,
        y_true: Sequence[Any] | None,
        y_pred: Sequence[Any] | None,
        sensitive: Sequence[Sequence[Any]] | None = None,
        sample_weight: Sequence[Any] | None = None,
        pos_label: Any = 1,
    ) -> None:
        n = len(y_pred if y_pred is not None else y_true)  # type: ignore[arg-type]
        keep = np.ones(n, dtype=bool)
        for arr in (y_true, y_pred, sample_weight):
            if arr is not None:
                keep &= np.array([not _is_null(v) for v in arr], dtype=bool)
        idx = np.flatnonzero(keep)
        self.yt = None if y_true is None else np.array([y_true[i] == pos_label for i in idx])
        self.yp = None if y_pred is None else np.array([y_pred[i] == pos_label for i in idx])
        self.w = (
            np.ones(len(idx))
            if sample_weight is None
            else np.array([float(sample_weight[i]) for i in idx])
        )
        self.weighted = sample_weight is not None
        sens = sensitive if sensitive is not None else []
        self.keys: list[Key] = [
            tuple(None if _is_null(col[i]) else col[i] for col in sens) for i in idx
        ]

    def groups(self) -> list[Key]:
        """Distinct keys, sorted, nulls last in each position."""
        return sorted(
            set(self.keys), key=lambda k: tuple((v is None, v if v is not None else 0) for v in k)
        )

    def mask(self, key: Key) -> np.ndarray:
        """Boolean mask of the rows of group ``key`` (cached: the rows never change)."""
        cache: dict[Key, np.ndarray] = self.__dict__.setdefault("_masks", {})
        if key not in cache:
            cache[key] = np.array([k == key for k in self.keys], dtype=bool)
        return cache[key]


# ------------------------------------------------------------- inequality indices


def benefit(rows: Rows) -> np.ndarray:
    """b_i = yhat_i - y_i + 1 for every valid row (values 0, 1, 2)."""
    assert rows.yt is not None
    assert rows.yp is not None
    return rows.yp.astype(float) - rows.yt.astype(float) + 1.0


def ge_of_vector(b: np.ndarray, w: np.ndarray, alpha: float) -> float | None:
    """Generalized entropy index of the vector ``b`` with frequency weights ``w``.

    GE(a) = 1/(n a (a-1)) sum_i [(b_i/mu)^a - 1]      a not in {0, 1}
    GE(1) = 1/n sum_i (b_i/mu) ln(b_i/mu)              (0 ln 0 = 0)
    GE(0) = -1/n sum_i ln(b_i/mu)                      (+inf when some b_i = 0)

    A frequency weight w_i counts row i w_i times: n = sum w, mu = sum(w b)/n and
    every sum is weighted. None when n = 0 or mu = 0 (undefined).
    """
    n = float(w.sum())
    if n == 0:
        return None
    mu = float((w * b).sum()) / n
    if mu == 0:
        return None
    r = b / mu
    if alpha == 0:
        if np.any((r == 0) & (w > 0)):
            return math.inf
        return float(-(w * np.log(r)).sum() / n)
    if alpha == 1:
        terms = np.zeros_like(r)
        pos = r > 0
        terms[pos] = r[pos] * np.log(r[pos])
        return float((w * terms).sum() / n)
    return float((w * (r**alpha - 1.0)).sum() / (n * alpha * (alpha - 1.0)))


def generalized_entropy_index(rows: Rows, alpha: float) -> float | None:
    return ge_of_vector(benefit(rows), rows.w, alpha)


def theil_index(rows: Rows) -> float | None:
    return generalized_entropy_index(rows, 1.0)


def coefficient_of_variation(rows: Rows) -> float | None:
    """Population std(b) / mean(b), written directly (not through GE(2))."""
    b, w = benefit(rows), rows.w
    if w.sum() == 0:
        return None
    mean = np.average(b, weights=w)
    if mean == 0:
        return None
    std = math.sqrt(float(np.average((b - mean) ** 2, weights=w)))
    return std / float(mean)


def group_mean_benefit(rows: Rows) -> np.ndarray:
    """The vector b with each b_i replaced by the (weighted) mean of its group."""
    b = benefit(rows)
    out = np.empty_like(b)
    for key in rows.groups():
        m = rows.mask(key)
        out[m] = np.average(b[m], weights=rows.w[m]) if rows.w[m].sum() > 0 else 0.0
    return out


def between_group_generalized_entropy_index(rows: Rows, alpha: float) -> float | None:
    return ge_of_vector(group_mean_benefit(rows), rows.w, alpha)


def between_group_coefficient_of_variation(rows: Rows) -> float | None:
    """Population std / mean of the group-mean benefit vector, written directly."""
    b, w = group_mean_benefit(rows), rows.w
    if w.sum() == 0:
        return None
    mean = np.average(b, weights=w)
    if mean == 0:
        return None
    return math.sqrt(float(np.average((b - mean) ** 2, weights=w))) / float(mean)


def between_group_theil_index(rows: Rows) -> float | None:
    return between_group_generalized_entropy_index(rows, 1.0)


# ------------------------------------------------------------ selection statistics


def group_sizes_and_rates(rows: Rows) -> dict[Key, tuple[float, float, float | None]]:
    """Per group: (n, PP, SR) with n and PP weight sums (counts when unweighted)."""
    assert rows.yp is not None
    out: dict[Key, tuple[float, float, float | None]] = {}
    for key in rows.groups():
        m = rows.mask(key)
        n = float(rows.w[m].sum())
        pp = float(rows.w[m & rows.yp].sum())
        out[key] = (n, pp, pp / n if n > 0 else None)
    return out


def largest_group(stats: dict[Key, tuple[float, float, float | None]]) -> Key:
    """Most rows / total weight; ties go to the first key in sort order (dict order)."""
    best: Key | None = None
    for key, (n, _, _) in stats.items():
        if best is None or n > stats[best][0]:
            best = key
    assert best is not None
    return best


def _resolve(stats: dict[Key, Any], reference: Any) -> Key:
    if reference is None or reference == "largest":
        return largest_group(stats)
    key = reference if isinstance(reference, tuple) else (reference,)
    assert key in stats, key
    return key


def _signed_extreme(values: dict[Key, float | None]) -> float | None:
    """The signed value of largest magnitude (first in key order on ties); None if none."""
    best: float | None = None
    for v in values.values():
        if v is None:
            continue
        if best is None or abs(v) > abs(best):
            best = v
    return best


def cohen_d_by_group(rows: Rows, reference: Any = None) -> dict[Key, float | None]:
    """d_g = (SR_g - SR_ref) / sqrt(((n_g-1) s_g^2 + (n_ref-1) s_ref^2) / (n_g + n_ref - 2)).

    s^2 = SR (1 - SR). Groups other than the reference only; None where the pooled
    standard deviation is 0 or undefined.
    """
    stats = group_sizes_and_rates(rows)
    ref = _resolve(stats, reference)
    n_r, _, sr_r = stats[ref]
    out: dict[Key, float | None] = {}
    for key, (n_g, _, sr_g) in stats.items():
        if key == ref:
            continue
        if sr_g is None or sr_r is None or n_g + n_r - 2 <= 0:
            out[key] = None
            continue
        pooled_var = ((n_g - 1) * sr_g * (1 - sr_g) + (n_r - 1) * sr_r * (1 - sr_r)) / (
            n_g + n_r - 2
        )
        out[key] = None if pooled_var <= 0 else (sr_g - sr_r) / math.sqrt(pooled_var)
    return out


def cohen_d(rows: Rows, reference: Any = None) -> float | None:
    return _signed_extreme(cohen_d_by_group(rows, reference))


def two_sd_by_group(rows: Rows, reference: Any = None) -> dict[Key, float | None]:
    """z_g = (SR_g - SR_ref) / sqrt(SR_tot (1 - SR_tot) / (N P_g (1 - P_g))) for the pair."""
    stats = group_sizes_and_rates(rows)
    ref = _resolve(stats, reference)
    n_r, pp_r, sr_r = stats[ref]
    out: dict[Key, float | None] = {}
    for key, (n_g, pp_g, sr_g) in stats.items():
        if key == ref:
            continue
        big_n = n_g + n_r
        if sr_g is None or sr_r is None or big_n == 0:
            out[key] = None
            continue
        p_g = n_g / big_n
        sr_tot = (pp_g + pp_r) / big_n
        var = sr_tot * (1 - sr_tot) / (big_n * p_g * (1 - p_g))
        out[key] = None if var <= 0 else (sr_g - sr_r) / math.sqrt(var)
    return out


def two_sd_rule(rows: Rows, reference: Any = None) -> float | None:
    return _signed_extreme(two_sd_by_group(rows, reference))


def two_sided_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z: erfc(|z| / sqrt 2)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def four_fifths_rule(rows: Rows, reference: Any = None) -> float | None:
    """Without a reference: min SR / max SR. With one: min over g != ref of
    min(SR_g / SR_ref, SR_ref / SR_g).

    None when the denominator SR_ref (or max SR) is 0. A group with SR_g = 0 against
    SR_ref > 0 gives min(0, +inf) = 0 (the limit; api3.md does not single it out)."""
    stats = group_sizes_and_rates(rows)
    srs = {k: v[2] for k, v in stats.items() if v[2] is not None}
    if reference is None:
        if not srs:
            return None
        hi, lo = max(srs.values()), min(srs.values())
        return None if hi == 0 else lo / hi
    ref = _resolve(stats, reference)
    sr_r = srs.get(ref)
    vals = []
    for key, sr_g in srs.items():
        if key == ref:
            continue
        if sr_r is None or sr_r == 0:
            return None
        vals.append(0.0 if sr_g == 0 else min(sr_g / sr_r, sr_r / sr_g))
    return min(vals) if vals else None


# ----------------------------------------------------------------------- intervals


def z_value(confidence_level: float) -> float:
    return NormalDist().inv_cdf((1 + confidence_level) / 2)


def wilson(x: float, m: float, confidence_level: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval for x successes out of m (textbook form).

    centre = (p + z^2/(2m)) / (1 + z^2/m),
    half   = z / (1 + z^2/m) * sqrt(p (1-p)/m + z^2/(4 m^2)).
    None when m = 0.
    """
    if m == 0:
        return None
    z = z_value(confidence_level)
    p = x / m
    denom = 1 + z * z / m
    centre = (p + z * z / (2 * m)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return centre - half, centre + half


def wilson_by_roots(x: float, m: float, confidence_level: float = 0.95) -> tuple[float, float]:
    """The same interval as the two roots of (p - x/m)^2 = z^2 p (1-p) / m (a check of
    the closed form above, derived independently: the set of p not rejected by the score
    test)."""
    z = z_value(confidence_level)
    ph = x / m
    # (1 + z^2/m) p^2 - (2 ph + z^2/m) p + ph^2 = 0
    a = 1 + z * z / m
    bq = -(2 * ph + z * z / m)
    c = ph * ph
    disc = math.sqrt(bq * bq - 4 * a * c)
    return (-bq - disc) / (2 * a), (-bq + disc) / (2 * a)


def newcombe(
    x1: float, m1: float, x2: float, m2: float, confidence_level: float = 0.95
) -> tuple[float, float] | None:
    """Newcombe (1998) hybrid score interval, method 10, for p1 - p2.

    With Wilson intervals (l1, u1) and (l2, u2):
    L = (p1 - p2) - sqrt((p1 - l1)^2 + (u2 - p2)^2),
    U = (p1 - p2) + sqrt((u1 - p1)^2 + (p2 - l2)^2).
    """
    w1, w2 = wilson(x1, m1, confidence_level), wilson(x2, m2, confidence_level)
    if w1 is None or w2 is None:
        return None
    (l1, u1), (l2, u2) = w1, w2
    p1, p2 = x1 / m1, x2 / m2
    d = p1 - p2
    return (
        d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
    )


def katz(
    x1: float, m1: float, x2: float, m2: float, confidence_level: float = 0.95
) -> tuple[float, float] | None:
    """Katz log interval for (x1/m1) / (x2/m2):
    exp(ln r -+ z sqrt(1/x1 - 1/m1 + 1/x2 - 1/m2)); None if m1 or m2 is 0. When x1 or
    x2 is 0 (a ratio of 0 or infinity), the Haldane-Anscombe correction: 0.5 added to
    all four counts."""
    if m1 == 0 or m2 == 0:
        return None
    if x1 == 0 or x2 == 0:
        x1, m1, x2, m2 = x1 + 0.5, m1 + 0.5, x2 + 0.5, m2 + 0.5
    z = z_value(confidence_level)
    r = (x1 / m1) / (x2 / m2)
    se = math.sqrt(1 / x1 - 1 / m1 + 1 / x2 - 1 / m2)
    return math.exp(math.log(r) - z * se), math.exp(math.log(r) + z * se)


def compare_verdict(change: float, low: float, high: float, tolerance: float) -> str:
    """A comparison's verdict from the change of the distance to the ideal and its
    interval, as docs/profiles.md defines it: worse beyond the tolerance with an interval
    above 0, better likewise below, unchanged when the interval lies within it."""
    if change > tolerance and low > 0:
        return "worse"
    if change < -tolerance and high < 0:
        return "better"
    if low >= -tolerance and high <= tolerance:
        return "unchanged"
    return "inconclusive"


def wilson_exact_coverage(m: int, p: float, confidence_level: float = 0.95) -> float:
    """Exact coverage probability of the Wilson interval: sum of Binomial(m, p)
    probabilities of the x whose interval contains p."""
    total = 0.0
    for x in range(m + 1):
        lo, hi = wilson(x, m, confidence_level)  # type: ignore[misc]
        if lo <= p <= hi:
            total += math.comb(m, x) * p**x * (1 - p) ** (m - x)
    return total


# --------------------------------------------------------- proportion numerators

#: rate -> (numerator cells, denominator cells), cells among tp, fp, fn, tn
PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "selection_rate": (("tp", "fp"), ("tp", "fp", "fn", "tn")),
    "base_rate": (("tp", "fn"), ("tp", "fp", "fn", "tn")),
    "true_positive_rate": (("tp",), ("tp", "fn")),
    "false_negative_rate": (("fn",), ("tp", "fn")),
    "false_positive_rate": (("fp",), ("fp", "tn")),
    "true_negative_rate": (("tn",), ("fp", "tn")),
    "positive_predictive_value": (("tp",), ("tp", "fp")),
    "negative_predictive_value": (("tn",), ("tn", "fn")),
    "false_discovery_rate": (("fp",), ("tp", "fp")),
    "false_omission_rate": (("fn",), ("tn", "fn")),
    "accuracy": (("tp", "tn"), ("tp", "fp", "fn", "tn")),
    "error_rate": (("fp", "fn"), ("tp", "fp", "fn", "tn")),
}


def cells(rows: Rows, key: Key) -> dict[str, float]:
    """Row-level confusion cells of one group (weight sums)."""
    assert rows.yt is not None
    assert rows.yp is not None
    m = rows.mask(key)
    yt, yp, w = rows.yt, rows.yp, rows.w
    return {
        "tp": float(w[m & yt & yp].sum()),
        "fp": float(w[m & ~yt & yp].sum()),
        "fn": float(w[m & yt & ~yp].sum()),
        "tn": float(w[m & ~yt & ~yp].sum()),
    }


def proportion(c: dict[str, float], rate: str) -> tuple[float, float]:
    """(x, m) of a proportion rate from the cells."""
    num, den = PROPORTIONS[rate]
    return sum(c[k] for k in num), sum(c[k] for k in den)


def effective_size(
    w: np.ndarray, hit: np.ndarray, whole: np.ndarray | None = None
) -> tuple[float, float]:
    """(x, m) of a weighted proportion at its effective size, from its rows.

    `w`: the weights of the rows the proportion divides by; `hit`: which of them are
    in its numerator; `whole`: the weights of all the group's rows. ``m = sum w``,
    ``p = sum w[hit] / m``. Two sizes: Kish's, ``m**2 / sum w**2``, and the linearised
    (sandwich) variance's, ``p (1 - p) / v`` with ``v = sum w_i**2 (y_i - p)**2 / m**2``
    (``y_i`` 1 on the numerator's rows); the effective size is the smaller. At p = 0
    or 1, the smaller of Kish's and ``m`` at the whole group's Kish factor ``sum
    whole / sum whole**2``. The numerator is ``p`` times the size. Unit weights give
    the counts.
    """
    m = float(w.sum())
    if m == 0:
        return 0.0, 0.0
    size = m * m / float((w**2).sum())
    p = float(w[hit].sum()) / m
    if 0 < p < 1:
        v = float((w**2 * (hit.astype(float) - p) ** 2).sum()) / (m * m)
        size = min(size, p * (1 - p) / v)
    elif whole is not None:
        size = min(size, m * float(whole.sum()) / float((whole**2).sum()))
    return p * size, size


def effective_proportion(rows: Rows, mask: np.ndarray, rate: str) -> tuple[float, float]:
    """(x, m) of a proportion over the rows of `mask`, at its effective size
    (:func:`effective_size` over the rows of its denominator's cells: all of them for a
    rate over the group, the positives for TPR, ...)."""
    assert rows.yt is not None
    assert rows.yp is not None
    yt, yp, w = rows.yt, rows.yp, rows.w
    cell = {"tp": yt & yp, "fp": ~yt & yp, "fn": yt & ~yp, "tn": ~yt & ~yp}
    num, den = PROPORTIONS[rate]
    in_num = np.logical_or.reduce([cell[k] for k in num])
    in_den = mask & np.logical_or.reduce([cell[k] for k in den])
    return effective_size(w[in_den], in_num[in_den], w[mask])


# ------------------------------------------------------------------------ datasets


def make_data(
    seed: int,
    *,
    rows: int = 400,
    groups: Sequence[Any] = ("a", "b", "c"),
    group_p: Sequence[float] | None = None,
    second: Sequence[Any] | None = None,
    weights: str | None = None,
    nulls: bool = False,
    batches: Sequence[Any] | None = None,
    flip: float = 0.3,
    no_false_negatives: bool = False,
) -> dict[str, list[Any]]:
    """Seeded random columns ``g`` (and ``h``), ``y_true``, ``y_pred`` (and ``w``, ``batch``).

    Predictions flip the truth with a group-dependent probability around ``flip`` so
    that rates differ between groups. ``weights``: None, "float" (gamma, 3 decimals) or
    "int" (1..4, for frequency-weight checks). ``nulls`` blanks ~5% of the labels and
    predictions and ~4% of the group values. ``no_false_negatives`` makes y_pred >= y_true.
    """
    rng = np.random.default_rng(seed)
    gvals = np.array(list(groups), dtype=object)
    gi = rng.choice(len(gvals), size=rows, p=group_p)
    y_true = (rng.random(rows) < 0.35 + 0.1 * gi).astype(np.int64)
    flip_p = flip * (1 + 0.5 * gi) / (1 + 0.5 * (len(gvals) - 1) / 2)
    y_pred = np.where(rng.random(rows) < flip_p, 1 - y_true, y_true)
    if no_false_negatives:
        y_pred = np.maximum(y_pred, y_true)
    data: dict[str, list[Any]] = {
        "g": [gvals[i] for i in gi],
        "y_true": y_true.tolist(),
        "y_pred": y_pred.tolist(),
    }
    if second is not None:
        data["h"] = rng.choice(np.array(list(second), dtype=object), size=rows).tolist()
    if weights == "float":
        data["w"] = np.round(rng.gamma(2.0, 1.0, rows) + 0.01, 3).tolist()
    elif weights == "int":
        data["w"] = rng.integers(1, 5, rows).tolist()
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
    """The rows of ``data`` whose ``col`` equals ``value``."""
    idx = [i for i, v in enumerate(data[col]) if v == value]
    return {k: [vals[i] for i in idx] for k, vals in data.items()}


def rows_of(
    data: dict[str, list[Any]], sens: Sequence[str] | None = None, *, weighted: bool = False
) -> Rows:
    return Rows(
        data.get("y_true"),
        data["y_pred"],
        [data[s] for s in sens] if sens else None,
        data["w"] if weighted else None,
    )
