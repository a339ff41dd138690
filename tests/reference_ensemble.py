"""Brute-force numpy/scipy reference for the ensemble stability and uncertainty measures.

Written from the definitions (api4.md; Virny's ``stability_metrics.py`` and
``uncertainty_metrics.py``) and shares no code with polars_fair: no polars import,
no library import. Everything is computed ROW BY ROW with plain Python loops:

* label stability ``|#pos - #neg| / M`` over the members' labels ``p_m >= threshold``;
* jitter: the share of member PAIRS (``itertools.combinations``) whose labels
  disagree, i.e. Virny's churn averaged over every pair of models;
* ``std``: ``numpy.std(ddof=1)`` (pandas' default, as in Virny);
* ``iqr``: :func:`scipy.stats.iqr`;
* aleatoric uncertainty: the mean over members of ``scipy.stats.entropy([p, 1-p], base=2)``;
* overall uncertainty: the same entropy of the members' mean probability;
* epistemic uncertainty: overall minus aleatoric.

A group's measure is the (weighted) mean of the per-row values of its rows.

Conventions: a row with a null member (or a null list, or weight) is dropped; a
null sensitive value is its own group; group keys are tuples sorted with nulls last;
``None`` is "undefined".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

Key = tuple[Any, ...]

MEASURES = (
    "label_stability",
    "jitter",
    "std",
    "iqr",
    "aleatoric_uncertainty",
    "epistemic_uncertainty",
    "overall_uncertainty",
)


# ------------------------------------------------------------------ per row


def binary_entropy(p: float) -> float:
    """H(p) in bits via scipy (0 log 0 = 0)."""
    return float(scipy_stats.entropy([p, 1.0 - p], base=2))


def row_measures(probs: Sequence[float], threshold: float = 0.5) -> dict[str, float]:
    """The seven per-row measures of one row's member probabilities."""
    p = np.asarray(probs, dtype=float)
    m = len(p)
    labels = [bool(v >= threshold) for v in p]
    pos = sum(labels)
    neg = m - pos
    pairs = list(itertools.combinations(range(m), 2))
    disagree = sum(1 for i, j in pairs if labels[i] != labels[j])
    aleatoric = float(np.mean([binary_entropy(float(v)) for v in p]))
    overall = binary_entropy(float(np.mean(p)))
    return {
        "label_stability": abs(pos - neg) / m,
        "jitter": disagree / len(pairs),
        "std": float(np.std(p, ddof=1)),
        "iqr": float(scipy_stats.iqr(p)),
        "aleatoric_uncertainty": aleatoric,
        "epistemic_uncertainty": overall - aleatoric,
        "overall_uncertainty": overall,
    }


# --------------------------------------------------------------------- rows


def _is_null(v: Any) -> bool:
    return v is None


class Rows:
    """The valid rows of an ensemble dataset.

    ``members`` is one sequence per row (None for a null list; a None inside marks a
    null member). Rows with a null member or weight are dropped and counted per
    group in ``n_null``.
    """

    def __init__(
        self,
        members: Sequence[Sequence[float | None] | None],
        sensitive: Sequence[Sequence[Any]],
        sample_weight: Sequence[float | None] | None = None,
        threshold: float = 0.5,
    ) -> None:
        self.weighted = sample_weight is not None
        all_keys = [tuple(col[i] for col in sensitive) for i in range(len(members))]
        self.n_null: dict[Key, int] = {}
        values: list[dict[str, float]] = []
        keys: list[Key] = []
        weights: list[float] = []
        for i, row in enumerate(members):
            w = 1.0 if sample_weight is None else sample_weight[i]
            bad = row is None or any(_is_null(v) for v in row) or w is None
            self.n_null[all_keys[i]] = self.n_null.get(all_keys[i], 0) + int(bad)
            if bad:
                continue
            assert row is not None
            assert w is not None
            values.append(row_measures([float(v) for v in row], threshold))  # type: ignore[arg-type]
            keys.append(all_keys[i])
            weights.append(float(w))
        self.keys = keys
        self.w = np.array(weights, dtype=float)
        self.values = {m: np.array([v[m] for v in values], dtype=float) for m in MEASURES}
        self.all_groups = _sorted_keys(set(all_keys))

    def groups(self) -> list[Key]:
        """Every group key present in the input (even with all rows dropped), sorted."""
        return self.all_groups

    def mask(self, key: Key) -> np.ndarray:
        return np.array([k == key for k in self.keys], dtype=bool)


def _sorted_keys(keys: set[Key]) -> list[Key]:
    return sorted(keys, key=lambda k: tuple((v is None, v if v is not None else 0) for v in k))


def _mean(values: np.ndarray, w: np.ndarray) -> float | None:
    total = float(w.sum())
    return None if total == 0 else float((values * w).sum()) / total


def group_table(rows: Rows) -> dict[Key, dict[str, Any]]:
    """Per group: n (count, or weight sum), n_null and the mean of each measure."""
    out: dict[Key, dict[str, Any]] = {}
    for key in rows.groups():
        m = rows.mask(key)
        w = rows.w[m]
        entry: dict[str, Any] = {
            "n": float(w.sum()) if rows.weighted else int(m.sum()),
            "n_null": rows.n_null.get(key, 0),
        }
        for name in MEASURES:
            entry[name] = _mean(rows.values[name][m], w)
            entry[f"sum_{name}"] = float((rows.values[name][m] * w).sum())
        out[key] = entry
    return out


def overall_means(rows: Rows) -> dict[str, float | None]:
    """The pooled mean of every measure over all valid rows (not a mean of groups)."""
    return {name: _mean(rows.values[name], rows.w) for name in MEASURES}


def rest_means(rows: Rows, key: Key) -> dict[str, float | None]:
    """The pooled mean over all valid rows NOT in group `key`."""
    m = ~rows.mask(key)
    return {name: _mean(rows.values[name][m], rows.w[m]) for name in MEASURES}


def largest_group(table: dict[Key, dict[str, Any]]) -> Key:
    """Most rows (weight); ties to the first key in sort order."""
    best: Key | None = None
    for key, entry in table.items():
        if best is None or entry["n"] > table[best]["n"]:
            best = key
    assert best is not None
    return best


def _key(reference: Any) -> Key:
    return reference if isinstance(reference, tuple) else (reference,)


# -------------------------------------------------------------- comparisons


def disparities(rows: Rows, measure: str, reference: Any) -> dict[Key, dict[str, float | None]]:
    """Per group: value, reference_value, difference, ratio against `reference`.

    `reference`: a group value / tuple, ``"largest"``, ``"min"`` (the smallest group
    value), ``"overall"`` (pooled mean of all rows) or ``"rest"`` (pooled mean of the
    other groups' rows).
    """
    table = group_table(rows)
    out: dict[Key, dict[str, float | None]] = {}
    defined = [e[measure] for e in table.values() if e[measure] is not None]
    for key, entry in table.items():
        v = entry[measure]
        if reference == "overall":
            r = overall_means(rows)[measure]
        elif reference == "rest":
            r = rest_means(rows, key)[measure]
        elif reference == "min":
            r = min(defined) if defined else None
        elif reference == "largest":
            r = table[largest_group(table)][measure]
        else:
            r = table[_key(reference)][measure]
        diff = None if v is None or r is None else v - r
        ratio = None if v is None or r is None or r == 0 else v / r
        out[key] = {"value": v, "reference_value": r, "difference": diff, "ratio": ratio}
    return out


def _log_distance(q: float) -> float:
    return math.inf if q == 0 else abs(math.log(abs(q)))


def criterion(
    rows: Rows,
    measure: str,
    kind: str,
    method: str = "between_groups",
    reference: Any = None,
) -> float | None:
    """``<measure>_<kind>`` by `method`, written from the definitions.

    between_groups: max - min / min / max; to_overall: max |g - o| / min over groups
    of min(g / o, o / g) (0 when g = 0); to_reference: the signed g - ref (g / ref)
    of the group farthest from the reference (|d|; |log r| with r = 0 farthest),
    first group in key order on ties. Undefined group values are left out.
    """
    table = group_table(rows)
    values = {k: e[measure] for k, e in table.items() if e[measure] is not None}
    if not values:
        return None
    if method == "between_groups":
        hi, lo = max(values.values()), min(values.values())
        if kind == "difference":
            return hi - lo
        return None if hi == 0 else lo / hi
    if method == "to_overall":
        o = overall_means(rows)[measure]
        assert o is not None
        if kind == "difference":
            return max(abs(v - o) for v in values.values())
        if o == 0:
            return None
        return min(0.0 if v == 0 else min(v / o, o / v) for v in values.values())
    assert method == "to_reference"
    ref_key = largest_group(table) if reference in (None, "largest") else _key(reference)
    r = table[ref_key][measure]
    if r is None:
        return None
    best: float | None = None
    best_dist = -1.0
    for key, v in values.items():
        if key == ref_key:
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


# --------------------------------------------------------------------- data


def make_data(
    seed: int,
    *,
    rows: int = 300,
    members: int = 5,
    groups: Sequence[Any] = ("a", "b", "c"),
    second: Sequence[Any] | None = None,
    batches: Sequence[Any] | None = None,
    weights: bool = False,
    nulls: bool = False,
) -> dict[str, list[Any]]:
    """Seeded rows: columns ``p0 … p{M-1}`` of member probabilities and keys.

    Each row has a base probability and member noise, clipped into [0, 1] (so exact
    0 and 1 occur); some rows are rounded to one decimal so that members tie and hit
    the 0.5 threshold exactly. Groups differ in their base and noise.
    """
    rng = np.random.default_rng(seed)
    g = [groups[i] for i in rng.integers(0, len(groups), rows)]
    shift = {v: 0.15 * i for i, v in enumerate(groups)}
    noise = {v: 0.05 + 0.08 * i for i, v in enumerate(groups)}
    data: dict[str, list[Any]] = {"g": g}
    base = rng.random(rows) * 0.8 + 0.1
    probs = np.empty((rows, members))
    for i in range(rows):
        b = base[i] + shift[g[i]] - 0.15
        probs[i] = np.clip(b + rng.normal(0, noise[g[i]], members), 0.0, 1.0)
    rounded = rng.random(rows) < 0.25
    probs[rounded] = np.round(probs[rounded], 1)
    for j in range(members):
        data[f"p{j}"] = probs[:, j].tolist()
    if second is not None:
        data["h"] = [second[i] for i in rng.integers(0, len(second), rows)]
    if batches is not None:
        data["batch"] = [batches[i] for i in rng.integers(0, len(batches), rows)]
    if weights:
        data["w"] = np.round(rng.gamma(2.0, 1.0, rows), 3).tolist()
    if nulls:
        for i in rng.choice(rows, size=max(rows // 15, 1), replace=False):
            data[f"p{int(rng.integers(0, members))}"][int(i)] = None
    return data


def member_rows(data: dict[str, list[Any]], members: int) -> list[list[float | None]]:
    """The per-row member lists of `make_data`'s columns."""
    n = len(data["g"])
    return [[data[f"p{j}"][i] for j in range(members)] for i in range(n)]


def subset(data: dict[str, list[Any]], column: str, value: Any) -> dict[str, list[Any]]:
    """The rows where ``data[column] == value``."""
    idx = [i for i, v in enumerate(data[column]) if v == value]
    return {k: [col[i] for i in idx] for k, col in data.items()}
