"""Numpy oracle of ROC AUC and DeLong's variance, by brute force from the definitions.

No library code: every (positive, negative) pair of a group is compared,
``O(n_pos * n_neg)``, so this is for small data. With weights, a pair counts with the
product of its weights and a class's size is its weight sum (weights read as row
counts: integer weights equal replicated rows).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def auc_delong(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None
) -> tuple[float | None, float | None]:
    """The AUC of scores `s` for labels `y` (1 positive) and DeLong's variance.

    AUC = sum over pairs of w_i w_j (1[s_i > s_j] + 1/2 1[s_i = s_j]) / (W+ W-); the
    placement of positive i is V10_i = sum_j w_j (...) / W-, of negative j
    V01_j = sum_i w_i (...) / W+; Var = var(V10) / W+ + var(V01) / W-, sample
    variances (divided by W - 1). None where undefined.
    """
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=np.float64)
    w = np.ones(len(s)) if w is None else np.asarray(w, dtype=np.float64)
    sp, sn, wp, wn = s[y], s[~y], w[y], w[~y]
    big_p, big_n = wp.sum(), wn.sum()
    if big_p == 0 or big_n == 0:
        return None, None
    # win[i, j]: positive i against negative j
    win = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    v10 = (win * wn[None, :]).sum(axis=1) / big_n
    v01 = (win * wp[:, None]).sum(axis=0) / big_p
    auc = float((wp * v10).sum() / big_p)
    if big_p <= 1 or big_n <= 1:
        return auc, None
    s10 = (wp * (v10 - auc) ** 2).sum() / (big_p - 1)
    s01 = (wn * (v01 - auc) ** 2).sum() / (big_n - 1)
    return auc, float(s10 / big_p + s01 / big_n)


def per_group(
    groups: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None
) -> dict[Any, tuple[float | None, float | None]]:
    """``auc_delong`` of each group (keys as 1-tuples, sorted)."""
    out = {}
    for g in sorted(np.unique(groups).tolist()):
        m = groups == g
        out[(g,)] = auc_delong(y[m], s[m], None if w is None else w[m])
    return out


def pair_interval(
    a1: float, v1: float | None, a2: float, v2: float | None, kind: str, z: float
) -> tuple[float | None, float | None]:
    """The normal interval of a1 - a2 (variance v1 + v2) or of a1 / a2 (log scale)."""
    if v1 is None or v2 is None:
        return None, None
    if kind == "difference":
        se = math.sqrt(v1 + v2)
        return a1 - a2 - z * se, a1 - a2 + z * se
    if a1 <= 0 or a2 <= 0:
        return None, None
    se = math.sqrt(v1 / a1**2 + v2 / a2**2)
    r = a1 / a2
    return r * math.exp(-z * se), r * math.exp(z * se)


def auc_delong_kish(
    y: np.ndarray, s: np.ndarray, w: np.ndarray
) -> tuple[float | None, float | None]:
    """The weighted AUC and DeLong's variance with *sampling* weights (Kish sizes).

    Each row's placement is weighted (V10_i = sum_j w_j (1[s_i > s_j] + 1/2
    1[s_i = s_j]) / W-, over the negatives j; V01_j likewise over the positives), the
    AUC the weighted mean placement of the positives. Each class's variance of
    placements is the weighted one, sum w (V - AUC)^2 / W, corrected as the sample
    variance is, by n / (n - 1), with n = W^2 / sum w^2 the class's Kish effective
    size, and divided by n: Var = s2_10 / n_pos + s2_01 / n_neg. None where undefined
    (a class without weight, or of effective size at most 1). The pairs are compared
    in blocks of positives (memory ``O(block * n_neg)``).
    """
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    sp, sn, wp, wn = s[y], s[~y], w[y], w[~y]
    big_p, big_n = wp.sum(), wn.sum()
    if big_p == 0 or big_n == 0:
        return None, None
    v10 = np.empty(len(sp))
    won = np.zeros(len(sn))  # per negative: the weight of the positives beating it
    for start in range(0, len(sp), 500):
        block = slice(start, start + 500)
        win = (sp[block, None] > sn[None, :]) + 0.5 * (sp[block, None] == sn[None, :])
        v10[block] = (win * wn[None, :]).sum(axis=1) / big_n
        won += (win * wp[block, None]).sum(axis=0)
    v01 = won / big_p
    auc = float((wp * v10).sum() / big_p)
    n_p, n_n = big_p**2 / (wp**2).sum(), big_n**2 / (wn**2).sum()
    if n_p <= 1 or n_n <= 1:
        return auc, None
    s10 = (wp * (v10 - auc) ** 2).sum() / big_p * n_p / (n_p - 1)
    s01 = (wn * (v01 - auc) ** 2).sum() / big_n * n_n / (n_n - 1)
    return auc, float(s10 / n_p + s01 / n_n)


def per_group_kish(
    groups: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray
) -> dict[Any, tuple[float | None, float | None, float]]:
    """``auc_delong_kish`` of each group, and its Kish size (sum w)^2 / sum w^2."""
    out = {}
    for g in sorted(np.unique(groups).tolist()):
        m = groups == g
        auc, var = auc_delong_kish(y[m], s[m], w[m])
        out[g] = (auc, var, float(w[m].sum() ** 2 / (w[m] ** 2).sum()))
    return out
