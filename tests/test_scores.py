"""Score-based metrics (issue 3) against a numpy reference and scikit-learn.

Oracles:
* `tests/reference_scores.py`: brute force from the definitions, no library code;
* scikit-learn, per group: `roc_auc_score`, `roc_curve(drop_intermediate=False)` (both
  with `sample_weight`) and `calibration_curve(strategy="uniform")` (unweighted only:
  sklearn 1.9 has no `sample_weight` there);
* hand-derived fractions: the Garg et al. Table 2 example and small ROC curves.

Every check runs on eager, lazy in-memory and lazy streaming frames (the `run` fixture).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as Fr
from functools import cached_property
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference as ref
import reference_scores as rs
from polars.testing import assert_frame_equal
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score, roc_curve

import polars_fair  # noqa: F401
from polars_fair.exceptions import (
    FairError,
    FairWarning,
    InvalidParameterError,
    NullDataWarning,
    ValueRangeError,
)

IGNORE = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")
REL, ABS = 1e-12, 1e-14


def close(got: Any, want: Any, rel: float = REL, abs_: float = ABS) -> bool:
    """Equal within tolerance; None only equals None (null is never 0 or NaN)."""
    if want is None or got is None:
        return got is None and want is None
    if isinstance(want, float) and math.isinf(want):
        return got == want
    return bool(np.isclose(got, want, rtol=rel, atol=abs_))


# ---- data -----------------------------------------------------------------------------

EDGE_SCORES = np.unique(np.concatenate([np.linspace(0, 1, 11), np.linspace(0, 1, 6), [0.25]]))


def make(
    seed: int,
    *,
    rows: int = 300,
    groups: tuple[str, ...] = ("a", "b"),
    probs: tuple[float, ...] | None = None,
    second: tuple[str, ...] | None = None,
    weights: bool = False,
    nulls: bool = False,
    decimals: int | None = None,
    edges: bool = False,
    by: bool = False,
) -> pl.DataFrame:
    """Scores in [0, 1], labels drawn from a group-distorted version of the score."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(groups, dtype=object), size=rows, p=probs)
    shift = np.array([groups.index(v) * 0.4 for v in g])
    m = rng.choice(np.array(["m1", "m2"], dtype=object), size=rows)
    if by:
        shift = shift + np.where(m == "m2", -0.5, 0.0)
    s = 1 / (1 + np.exp(-(rng.normal(size=rows) + shift)))
    if decimals is not None:
        s = np.round(s, decimals)
    if edges:  # many scores exactly on the bin edges of np.linspace(0, 1, 11) and (0, 1, 6)
        on_edge = rng.random(rows) < 0.5
        s = np.where(on_edge, rng.choice(EDGE_SCORES, size=rows), s)
    power = np.array([1.0 + 0.7 * groups.index(v) for v in g])  # miscalibrated unequally
    y = (rng.random(rows) < s**power).astype(np.int64)
    data: dict[str, Any] = {"g": g.tolist(), "y": y.tolist(), "s": s.tolist()}
    data["p"] = (s >= 0.5).astype(np.int64).tolist()
    if second is not None:
        data["h"] = rng.choice(np.array(second, dtype=object), size=rows).tolist()
    if weights:  # >= 1, so a non-empty bin always has n >= 1 whether n counts rows or weight
        data["w"] = np.round(1 + rng.gamma(2.0, 1.0, rows), 3).tolist()
    if by:
        data["m"] = m.tolist()
    if nulls:
        for col, frac in (("y", 0.05), ("s", 0.05), ("w", 0.03), ("g", 0.05)):
            if col in data:
                for i in rng.choice(rows, size=int(rows * frac), replace=False):
                    data[col][i] = None
        data["p"] = [None if v is None else int(v >= 0.5) for v in data["s"]]
    schema = {"g": pl.String, "h": pl.String, "m": pl.String, "y": pl.Int64, "p": pl.Int64,
              "s": pl.Float64, "w": pl.Float64}  # fmt: skip
    return pl.DataFrame(data, schema={k: schema[k] for k in data})


CASES: dict[str, dict[str, Any]] = {
    "two": dict(seed=11),
    "three-ties": dict(
        seed=12, rows=400, groups=("a", "b", "c"), probs=(0.5, 0.3, 0.2), decimals=1
    ),
    "intersectional": dict(seed=13, rows=500, second=("x", "y", "z"), decimals=2),
    "weighted": dict(seed=14, rows=400, groups=("a", "b", "c"), weights=True, decimals=1),
    "nulls": dict(seed=15, rows=400, groups=("a", "b", "c"), nulls=True, decimals=2),
    "weighted-nulls-2d": dict(seed=16, rows=500, second=("x", "y"), weights=True, nulls=True),
    "edges": dict(seed=17, rows=400, groups=("a", "b", "c"), edges=True),
    "by": dict(seed=18, rows=500, groups=("a", "b", "c"), by=True, decimals=1),
}


class Case:
    """A dataset, the keyword arguments naming its columns, and its reference groups."""

    def __init__(self, name: str) -> None:
        spec = CASES[name]
        self.name = name
        self.df = make(**spec)
        self.sens = ["g", "h"] if "second" in spec else ["g"]
        self.by = ["m"] if spec.get("by") else []
        self.weighted = bool(spec.get("weights"))
        self.nulls = bool(spec.get("nulls"))
        kw: dict[str, Any] = {"y_true": "y", "y_prob": "s", "sensitive_features": self.sens}
        if self.weighted:
            kw["sample_weight"] = "w"
        if self.by:
            kw["by"] = self.by
        self.kw = kw

    def col(self, name: str) -> np.ndarray:
        return np.array(self.df[name].to_list(), dtype=object)

    @property
    def keys(self) -> list[str]:
        return self.by + self.sens

    def key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[c] for c in self.keys)

    @cached_property
    def groups(self) -> dict[tuple[Any, ...], rs.Group]:
        w = self.col("w") if self.weighted else None
        return rs.split([self.col(c) for c in self.keys], self.col("y"), self.col("s"), w)

    @cached_property
    def batches(self) -> dict[tuple[Any, ...], dict[tuple[Any, ...], rs.Group]]:
        return rs.batches(self.groups, len(self.by))

    def scalar(self, got: Any, name: str) -> dict[tuple[Any, ...], Any]:
        """A scalar criterion result as {by key: value} ({(): value} without `by`)."""
        if not self.by:
            assert got is None or isinstance(got, float), got
            return {(): got}
        assert isinstance(got, pl.DataFrame)
        assert got.columns == [*self.by, name]
        return {tuple(r[c] for c in self.by): r[name] for r in got.iter_rows(named=True)}

    def reference_value(self, batch: tuple[Any, ...]) -> Any:
        """The first group (in sort order) of a batch, as a user passes it."""
        key = next(iter(self.batches[batch]))
        return key[0] if len(key) == 1 else key


_CACHE: dict[str, Case] = {}


def case_named(name: str) -> Case:
    if name not in _CACHE:
        _CACHE[name] = Case(name)
    return _CACHE[name]


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return case_named(request.param)


def check_keys(case: Case, got: pl.DataFrame) -> None:
    """Result rows come sorted by key, nulls last, with the keys as the first columns."""
    assert got.columns[: len(case.keys)] == case.keys
    keys = [case.key(r) for r in got.iter_rows(named=True)]
    order = list(case.groups)
    assert sorted(set(keys), key=order.index) == list(dict.fromkeys(keys)), "not sorted by key"
    positions = [order.index(k) for k in keys]
    assert positions == sorted(positions)


def sk_weight(g: rs.Group) -> Any:
    return None if g.w is None else g.w


def both_classes(g: rs.Group) -> bool:
    return bool(g.y.any() and (~g.y).any())


# ---- statistics table and balance -----------------------------------------------------


@IGNORE
def test_group_stats_score_sums(run: Any, case: Case) -> None:
    got = run(case.df, "group_stats", y_pred="p", **case.kw)
    check_keys(case, got)
    assert [case.key(r) for r in got.iter_rows(named=True)] == list(case.groups)
    assert got.schema["sum_prob_pos"] == pl.Float64
    assert got.schema["sum_prob_neg"] == pl.Float64
    for row in got.iter_rows(named=True):
        g = case.groups[case.key(row)]
        b = rs.balance(g)
        assert row["n_null"] == g.n_null, row  # a null score excludes the row too
        assert close(row["n"], g.n), row
        assert close(row["tp"] + row["fn"], b["P"]), row
        assert close(row["sum_prob_pos"], b["sum_prob_pos"]), (row, b)
        assert close(row["sum_prob_neg"], b["sum_prob_neg"]), (row, b)


@IGNORE
def test_group_stats_score_sums_without_predictions(run: Any) -> None:
    case = case_named("weighted-nulls-2d")
    got = run(case.df, "group_stats", **case.kw)
    for row in got.iter_rows(named=True):
        b = rs.balance(case.groups[case.key(row)])
        assert close(row["pos"], b["P"]), (row, b)
        assert close(row["neg"], b["N"]), (row, b)
        assert close(row["sum_prob_pos"], b["sum_prob_pos"]), (row, b)
        assert close(row["sum_prob_neg"], b["sum_prob_neg"]), (row, b)


@IGNORE
def test_by_group_balance(run: Any, case: Case) -> None:
    got = run(case.df, "by_group", y_pred="p", **case.kw)
    check_keys(case, got)
    assert [case.key(r) for r in got.iter_rows(named=True)] == list(case.groups)
    for col in ("balance_for_positive_class", "balance_for_negative_class"):
        assert got.schema[col] == pl.Float64
    for row in got.iter_rows(named=True):
        b = rs.balance(case.groups[case.key(row)])
        for col in ("sum_prob_pos", "sum_prob_neg", "balance_for_positive_class",
                    "balance_for_negative_class"):  # fmt: skip
            assert close(row[col], b[col]), (col, row, b)


BALANCE = ["balance_for_positive_class", "balance_for_negative_class"]


BALANCE_CRITERIA = [
    (measure, kind, method)
    for measure in BALANCE
    for kind in ("difference", "ratio")
    for method in ("between_groups", "to_overall", "to_reference")
]


@IGNORE
def test_balance_criteria(run: Any, case: Case) -> None:
    """Every balance criterion with every method (one test, all mismatches reported)."""
    bad = []
    for measure, kind, method in BALANCE_CRITERIA:
        name = f"{measure}_{kind}"
        got = case.scalar(run(case.df, name, **case.kw, method=method), name)
        assert set(got) == set(case.batches)
        for bkey, groups in case.batches.items():
            values = {k: rs.balance(g)[measure] for k, g in groups.items()}
            overall = rs.overall_balance(groups)[measure]
            want = rs.compare(values, overall, kind, method, rs.largest(groups))
            if not close(got[bkey], want):
                bad.append((name, method, bkey, got[bkey], want))
    assert not bad, bad


@IGNORE
def test_balance_criteria_named_reference(run: Any, case: Case) -> None:
    bkey = next(iter(case.batches))
    given = case.reference_value(bkey)
    for measure, kind in [(m, k) for m in BALANCE for k in ("difference", "ratio")]:
        name = f"{measure}_{kind}"
        got = case.scalar(run(case.df, name, **case.kw, reference_group=given), name)
        for b, groups in case.batches.items():
            values = {k: rs.balance(g)[measure] for k, g in groups.items()}
            want = rs.compare(values, None, kind, "to_reference", next(iter(groups)))
            assert close(got[b], want), (name, b, got[b], want)


# ---- calibration ----------------------------------------------------------------------

BINS: dict[str, dict[str, Any]] = {
    "default": {},
    "n_bins=5": {"n_bins": 5},
    "n_bins=1": {"n_bins": 1},
    "n_bins=13": {"n_bins": 13},
    "edges": {"bins": [0.0, 0.1, 0.25, 0.5, 0.6, 0.9, 1.0]},
}


def edges_of(spec: dict[str, Any]) -> Any:
    return spec["bins"] if "bins" in spec else rs.uniform_edges(spec.get("n_bins", 10))


def calibration_rows(case: Case, spec: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    edges = edges_of(spec)
    return [(k, r) for k, g in case.groups.items() for r in rs.calibration_bins(g, edges)]


CALIBRATION_COLUMNS = ["bin", "bin_low", "bin_high", "n", "mean_prob", "fraction_positive",
                       "calibration_gap"]  # fmt: skip


@IGNORE
@pytest.mark.parametrize("spec", ["default", "edges"])
def test_calibration(run: Any, case: Case, spec: str) -> None:
    check_calibration(run, case, spec)


@IGNORE
@pytest.mark.parametrize("spec", ["n_bins=5", "n_bins=1", "n_bins=13"])
def test_calibration_other_bin_counts(run: Any, spec: str) -> None:
    for name in ("three-ties", "weighted-nulls-2d", "edges"):
        check_calibration(run, case_named(name), spec)


def check_calibration(run: Any, case: Case, spec: str) -> None:
    got = run(case.df, "calibration", **case.kw, **BINS[spec])
    check_keys(case, got)
    assert got.columns == [*case.keys, *CALIBRATION_COLUMNS]
    assert got.schema["bin"] == pl.Int64
    want = calibration_rows(case, BINS[spec])
    assert got.height == len(want)  # only the non-empty bins, one row each
    for row, (key, w) in zip(got.iter_rows(named=True), want, strict=True):
        assert case.key(row) == key
        assert row["bin"] == w["bin"], (row, w)  # right-closed bins, edge -> lower bin
        for col in CALIBRATION_COLUMNS[1:]:
            if col == "n" and not case.weighted:
                assert row[col] == w[col], (row, w)
            else:
                assert close(row[col], w[col]), (col, row, w)


@IGNORE
def test_calibration_matches_sklearn(run: Any, case: Case) -> None:
    if case.weighted:
        pytest.skip("sklearn.calibration.calibration_curve takes no sample_weight")
    for n_bins in (10, 5, 7):
        check_sklearn_calibration(run, case, n_bins)


def check_sklearn_calibration(run: Any, case: Case, n_bins: int) -> None:
    got = run(case.df, "calibration", **case.kw, n_bins=n_bins)
    for key, g in case.groups.items():
        rows = got.filter(
            pl.all_horizontal(
                [
                    pl.col(c).is_null() if v is None else pl.col(c) == v
                    for c, v in zip(case.keys, key, strict=True)
                ]
            )
        )
        prob_true, prob_pred = calibration_curve(
            g.y, g.s, n_bins=n_bins, strategy="uniform", pos_label=True
        )
        np.testing.assert_allclose(rows["fraction_positive"].to_numpy(), prob_true, rtol=REL)
        np.testing.assert_allclose(rows["mean_prob"].to_numpy(), prob_pred, rtol=REL)
        # and the same bins: sklearn's searchsorted(edges[1:-1], s, side="left")
        ids = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], g.s, side="left")
        assert rows["bin"].to_list() == sorted(set(ids.tolist()))
        assert rows["n"].to_list() == np.bincount(ids)[sorted(set(ids.tolist()))].tolist()


def test_calibration_explicit_uniform_bins_equal_n_bins(run: Any) -> None:
    case = case_named("edges")
    a = run(case.df, "calibration", **case.kw, n_bins=5)
    b = run(case.df, "calibration", **case.kw, bins=np.linspace(0, 1, 6).tolist())
    assert a.equals(b)
    c = run(case.df, "calibration", **case.kw, bins=[0.0, 1.0])
    d = run(case.df, "calibration", **case.kw, n_bins=1)
    assert c.equals(d)


@IGNORE
def test_expected_calibration_error(run: Any, case: Case) -> None:
    for spec in ("default", "n_bins=5", "edges"):
        got = run(case.df, "expected_calibration_error", **case.kw, **BINS[spec])
        check_keys(case, got)
        assert "expected_calibration_error" in got.columns
        assert [case.key(r) for r in got.iter_rows(named=True)] == list(case.groups)
        edges = edges_of(BINS[spec])
        for row in got.iter_rows(named=True):
            g = case.groups[case.key(row)]
            want = rs.expected_calibration_error(rs.calibration_bins(g, edges))
            assert close(row["expected_calibration_error"], want), (spec, row, want)


CALIBRATION_DIFFERENCE = [
    (spec, reference, min_bin_size)
    for spec in ("default", "edges")
    for reference in ("default", "largest", "named")
    for min_bin_size in (1, 15)
]


@IGNORE
def test_calibration_difference(run: Any, case: Case) -> None:
    bad = []
    for spec, reference, min_bin_size in CALIBRATION_DIFFERENCE:
        kw = dict(case.kw, **BINS[spec], min_bin_size=min_bin_size)
        if reference == "largest":
            kw["reference_group"] = "largest"
        elif reference == "named":
            kw["reference_group"] = case.reference_value(next(iter(case.batches)))
        got = case.scalar(run(case.df, "calibration_difference", **kw), "calibration_difference")
        assert set(got) == set(case.batches)
        for bkey, groups in case.batches.items():
            ref_key = next(iter(groups)) if reference == "named" else rs.largest(groups)
            # min_bin_size is compared with the bin's `n` (the weight sum when weighted)
            edges = edges_of(BINS[spec])
            want = rs.calibration_difference(groups, edges, ref_key, min_bin_size)
            if not close(got[bkey], want):
                bad.append((spec, reference, min_bin_size, bkey, got[bkey], want))
    assert not bad, bad


def test_calibration_difference_null_when_no_common_bin(run: Any) -> None:
    # group a scores only in bin 0 (0.05), group b only in bin 9 (0.95): no bin shared
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [0, 1, 0, 0, 1, 1, 0, 1],
                       "s": [0.05] * 4 + [0.95] * 4})  # fmt: skip
    kw = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
    assert run(df, "calibration_difference", **kw) is None
    # with a shared bin 9 (a: 1 positive of 1, b: 3 of 4): |1 - 3/4| = 1/4
    df2 = pl.concat([df, pl.DataFrame({"g": ["a"], "y": [1], "s": [0.91]})])
    assert run(df2, "calibration_difference", **kw) == pytest.approx(0.25, abs=1e-15)
    # ... which min_bin_size=2 rules out again (a has one row in bin 9)
    assert run(df2, "calibration_difference", **kw, min_bin_size=2) is None


def test_calibration_difference_min_bin_size_counts_weight(run: Any) -> None:
    """Weighted, `n` of a bin is its weight sum, and min_bin_size is compared with `n`.

    a: (y=1, s=0.95, w=5), (y=0, s=0.05, w=1)
    b: (y=1, s=0.95, w=1), (y=0, s=0.95, w=1) x 2, (y=0, s=0.05, w=4)
    b is the largest (weight 7 vs 6; also 4 rows vs 2). Bin 9: a n=5, fraction 1;
    b n=3, fraction 1/3. Bin 0: a n=1, b n=4, fractions 0 and 0.
    min_bin_size=3: only bin 9 qualifies (a's bin 0 has n=1): |1 - 1/3| = 2/3
    (counting rows instead, a's bin 9 has 1 row and nothing would qualify).
    min_bin_size=4: b's bin 9 has n=3 < 4, a's bin 0 n=1 < 4: no common bin, null.
    """
    df = pl.DataFrame({
        "g": ["a", "a", "b", "b", "b", "b"],
        "y": [1, 0, 1, 0, 0, 0],
        "s": [0.95, 0.05, 0.95, 0.95, 0.95, 0.05],
        "w": [5.0, 1.0, 1.0, 1.0, 1.0, 4.0],
    })  # fmt: skip
    kw = {**KW2, "sample_weight": "w"}
    t = run(df, "calibration", **kw)
    assert t.select("g", "bin", "n").rows() == [("a", 0, 1.0), ("a", 9, 5.0), ("b", 0, 4.0),
                                                 ("b", 9, 3.0)]  # fmt: skip
    assert run(df, "calibration_difference", **kw) == pytest.approx(2 / 3, abs=1e-15)
    assert run(df, "calibration_difference", **kw, min_bin_size=3) == pytest.approx(
        2 / 3, abs=1e-15
    )
    assert run(df, "calibration_difference", **kw, min_bin_size=4) is None


# ---- ROC ------------------------------------------------------------------------------


@IGNORE
def test_roc_curve(run: Any, case: Case) -> None:
    got = run(case.df, "roc_curve", **case.kw)
    check_keys(case, got)
    assert [c for c in got.columns if c in ("threshold", "fpr", "tpr")] == [
        "threshold", "fpr", "tpr"
    ]  # fmt: skip
    seen = [case.key(r) for r in got.iter_rows(named=True)]
    assert list(dict.fromkeys(seen)) == list(case.groups)
    for key, g in case.groups.items():
        rows = [r for r, k in zip(got.iter_rows(named=True), seen, strict=True) if k == key]
        want = rs.roc_points(g)
        assert [r["threshold"] for r in rows] == want["threshold"]  # +inf, then descending
        for col in ("fpr", "tpr"):
            assert all(close(r[col], v) for r, v in zip(rows, want[col], strict=True)), col
        fpr, tpr, thr = roc_curve(g.y, g.s, sample_weight=sk_weight(g), drop_intermediate=False)
        assert [r["threshold"] for r in rows] == thr.tolist()
        np.testing.assert_allclose([r["fpr"] for r in rows], fpr, rtol=REL, atol=ABS)
        np.testing.assert_allclose([r["tpr"] for r in rows], tpr, rtol=REL, atol=ABS)


@IGNORE
def test_roc_auc(run: Any, case: Case) -> None:
    got = run(case.df, "roc_auc", **case.kw)
    check_keys(case, got)
    assert "roc_auc" in got.columns
    assert got.schema["roc_auc"] == pl.Float64
    assert [case.key(r) for r in got.iter_rows(named=True)] == list(case.groups)
    for row in got.iter_rows(named=True):
        g = case.groups[case.key(row)]
        assert both_classes(g)
        want = roc_auc_score(g.y, g.s, sample_weight=sk_weight(g))
        assert row["roc_auc"] == pytest.approx(want, rel=REL, abs=ABS), row
        assert close(row["roc_auc"], rs.auc(rs.roc_points(g))), row


@IGNORE
def test_roc_with_one_class_groups(run: Any) -> None:
    # group "p" has positives only, "n" negatives only, "ok" both
    df = pl.DataFrame({
        "g": ["p", "p", "n", "n", "ok", "ok", "ok"],
        "y": [1, 1, 0, 0, 1, 0, 1],
        "s": [0.9, 0.2, 0.4, 0.4, 0.8, 0.3, 0.3],
    })  # fmt: skip
    kw = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
    auc = run(df, "roc_auc", **kw)
    assert auc["g"].to_list() == ["n", "ok", "p"]
    # ok: pairs (0.8 vs 0.3) wins, (0.3 vs 0.3) tie -> (1 + 1/2) / 2
    assert auc["roc_auc"].to_list() == [None, pytest.approx(0.75, abs=1e-15), None]
    curve = run(df, "roc_curve", **kw)
    p = curve.filter(pl.col("g") == "p")
    n = curve.filter(pl.col("g") == "n")
    assert p["fpr"].null_count() == p.height
    assert p["tpr"].to_list() == [0.0, 0.5, 1.0]
    assert n["tpr"].null_count() == n.height
    assert n["fpr"].to_list() == [0.0, 1.0]
    assert p["threshold"].to_list() == [math.inf, 0.9, 0.2]


# ---- ABROCA ---------------------------------------------------------------------------


@IGNORE
@pytest.mark.parametrize("reference", ["default", "named"])
def test_abroca(run: Any, case: Case, reference: str) -> None:
    kw = dict(case.kw)
    if reference == "named":
        kw["reference_group"] = case.reference_value(next(iter(case.batches)))
    got = case.scalar(run(case.df, "abroca", **kw), "abroca")
    assert set(got) == set(case.batches)
    for bkey, groups in case.batches.items():
        ref_key = next(iter(groups)) if reference == "named" else rs.largest(groups)
        want = rs.abroca(groups, ref_key)
        assert want is not None
        assert want > 0
        assert close(got[bkey], want), (bkey, got[bkey], want)


def _two_groups(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> pl.DataFrame:
    rows = [("A", y, s) for y, s in a] + [("B", y, s) for y, s in b]
    return pl.DataFrame(rows, schema=["g", "y", "s"], orient="row")


KW2 = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
# B: one positive and one negative, tied: ROC (0,0) -> (1,1), TPR_B(f) = f
DIAGONAL = [(1, 0.5), (0, 0.5)]
HAND_ABROCA = {
    # A ranks a positive first, then two negatives (tied), then the other positive:
    # ROC (0,0) -> (0,1/2) -> (1,1/2) -> (1,1), so TPR_A(f) = 1/2 on (0, 1).
    # |1/2 - f| crosses zero at f = 1/2, INSIDE the single common segment [0, 1]:
    # area = two triangles 2 * (1/2 * 1/2 * 1/2) = 1/4 (a trapezoid of |d| at the ends
    # would say 1/2).
    "crossing": ([(1, 0.9), (0, 0.5), (0, 0.5), (1, 0.1)], DIAGONAL, Fr(1, 4)),
    # A perfect: ROC (0,0) -> (0,1) -> (1,1), TPR_A = 1; area = int_0^1 (1 - f) df = 1/2
    "perfect": ([(1, 0.9), (1, 0.8), (0, 0.2)], DIAGONAL, Fr(1, 2)),
    # A: pos 0.9, then pos/neg tied at 0.5, then neg 0.1:
    # ROC (0,0) -> (0,1/2) -> (1/2,1) -> (1,1): TPR_A = 1/2 + f on [0,1/2], 1 after.
    # A - f = 1/2 on [0, 1/2] (area 1/4), 1 - f on [1/2, 1] (area 1/8): 3/8
    "tied-step": ([(1, 0.9), (1, 0.5), (0, 0.5), (0, 0.1)], DIAGONAL, Fr(3, 8)),
    # A as "crossing"; B: neg 0.9, pos 0.8, pos 0.3, neg 0.2 (P = N = 2):
    # ROC B (0,0) -> (1/2,0) -> (1/2,1) -> (1,1): TPR_B = 0 on (0,1/2), 1 on (1/2,1);
    # |A - B| = 1/2 everywhere: area 1/2
    "vertical-jumps": (
        [(1, 0.9), (0, 0.5), (0, 0.5), (1, 0.1)],
        [(0, 0.9), (1, 0.8), (1, 0.3), (0, 0.2)],
        Fr(1, 2),
    ),
    # same curves as "crossing", both groups with the labels and scores scaled up 3x
    # (the ROC curves are unchanged, so is the area)
    "crossing-x3": (
        [(1, 0.9), (0, 0.5), (0, 0.5), (1, 0.1)] * 3,
        DIAGONAL * 3,
        Fr(1, 4),
    ),
}


@pytest.mark.parametrize("name", list(HAND_ABROCA))
def test_abroca_by_hand(run: Any, name: str) -> None:
    a, b, area = HAND_ABROCA[name]
    df = _two_groups(a, b)
    got = run(df, "abroca", **KW2)
    assert got == pytest.approx(float(area), abs=1e-15)
    # symmetric with two groups: either reference gives the same area
    assert run(df, "abroca", **KW2, reference_group="A") == pytest.approx(got, abs=1e-15)
    assert run(df, "abroca", **KW2, reference_group="B") == pytest.approx(got, abs=1e-15)
    # the reference implementation agrees with the hand value
    groups = rs.split([df["g"].to_numpy()], df["y"].to_numpy(), df["s"].to_numpy())
    assert rs.abroca(groups, ("A",)) == pytest.approx(float(area), abs=1e-15)


def test_abroca_is_the_max_over_groups(run: Any) -> None:
    # reference C (largest, 6 rows) is the diagonal; A is "crossing" (area 1/4 from C),
    # B is "perfect" (area 1/2 from C): the max is 1/2
    rows = [("A", y, s) for y, s in HAND_ABROCA["crossing"][0]]
    rows += [("B", y, s) for y, s in HAND_ABROCA["perfect"][0]]
    rows += [("C", y, s) for y, s in DIAGONAL * 3]
    df = pl.DataFrame(rows, schema=["g", "y", "s"], orient="row")
    assert run(df, "abroca", **KW2) == pytest.approx(0.5, abs=1e-15)
    # against A: |1/2 - 1| = 1/2 everywhere, so B is 1/2 away and C 1/4: still 1/2
    assert run(df, "abroca", **KW2, reference_group="A") == pytest.approx(0.5, abs=1e-15)
    # against B: A is 1/2 away (1 - 1/2), C is 1/2 away: 1/2
    assert run(df, "abroca", **KW2, reference_group="B") == pytest.approx(0.5, abs=1e-15)


# ---- threshold sweep ------------------------------------------------------------------

COUNTS = ("n", "tp", "fp", "fn", "tn")


def _sweep_expected(
    batches: dict[Any, dict[Any, rs.Group]], thresholds: Any, labels: bool = True
) -> dict[Any, Any]:
    """{(key, t): counts and rates}, predicted_positive_share within each (batch, t)."""
    out = {}
    for bkey, groups in batches.items():
        per = {k: rs.sweep_counts(g, thresholds) for k, g in groups.items()}
        for i, t in enumerate(thresholds):
            table: dict[Any, Any] = {}
            for k, counts in per.items():
                c = counts[i]
                if labels:
                    table[k] = {x: c[x] for x in COUNTS}
                else:
                    table[k] = {"n": c["n"], "pred_pos": c["pred_pos"], "pred_neg": c["pred_neg"]}
            rates = ref.rates_by_group(table)
            for k in per:
                out[(bkey + k, float(t))] = {**table[k], **rates[k]}
    return out


def test_threshold_sweep_weighted_counts_are_sums(run: Any) -> None:
    """tp at t is the weight of the positives scoring >= t, a sum, not a difference.

    Group a: positives (s=0.1, w=1e16) and (s=0.9, w=1); negative (s=0.3, w=1).
    At t = 0.5 only the row s=0.9 is predicted positive: tp = 1, fp = 0, fn = 1e16,
    tn = 1 (exact in floating point). Total positive weight 1e16 + 1 rounds to 1e16,
    so "total - below" gives tp = 1e16 - 1e16 = 0.
    """
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b"], "y": [1, 1, 0, 1, 0],
                       "s": [0.1, 0.9, 0.3, 0.8, 0.2], "w": [1e16, 1.0, 1.0, 1.0, 1.0]})  # fmt: skip
    kw = {**KW2, "sample_weight": "w"}
    sweep = run(df, "threshold_sweep", **kw, thresholds=[0.5]).filter(pl.col("g") == "a")
    assert sweep.select("tp", "fp", "fn", "tn").row(0) == (1.0, 0.0, 1e16, 1.0)
    direct = df.fair.by_group(y_true="y", y_pred=pl.col("s") >= 0.5, sensitive_features="g",
                              sample_weight="w")  # fmt: skip
    assert direct.filter(pl.col("g") == "a").select("tp", "fp", "fn", "tn").row(0) == (
        1.0, 0.0, 1e16, 1.0
    )  # fmt: skip


@IGNORE
def test_threshold_sweep(run: Any, case: Case) -> None:
    got = run(case.df, "threshold_sweep", **case.kw)
    check_keys(case, got)
    thresholds = np.linspace(0, 1, 101)
    want = _sweep_expected(case.batches, thresholds)
    assert got.height == len(want)
    rate_cols = [c for c in ref.RATES if c in got.columns]
    assert set(rate_cols) == set(ref.RATES)
    for row in got.iter_rows(named=True):
        w = want[(case.key(row), row["threshold"])]
        for col in (*COUNTS, *rate_cols):
            if col in COUNTS and not case.weighted:
                assert row[col] == w[col], (col, row, w)
            else:
                assert close(row[col], w[col]), (col, row, w)


@IGNORE
def test_threshold_sweep_without_labels(run: Any, case: Case) -> None:
    kw = dict(case.kw, y_true=None)
    thresholds = [0.0, 0.2, 0.49, 0.5, 0.7, 1.0]
    got = run(case.df, "threshold_sweep", **kw, thresholds=thresholds)
    for col in ("tp", "fp", "true_positive_rate", "base_rate"):
        assert col not in got.columns
    # y_true unused: only a null score or weight excludes a row
    labels = np.zeros(case.df.height, dtype=object)
    w = case.col("w") if case.weighted else None
    groups = rs.split([case.col(c) for c in case.keys], labels, case.col("s"), w)
    want = _sweep_expected(rs.batches(groups, len(case.by)), thresholds, labels=False)
    assert got.height == len(want)
    for row in got.iter_rows(named=True):
        w_ = want[(case.key(row), row["threshold"])]
        for col in ("n", "pred_pos", "pred_neg", "selection_rate", "predicted_positive_share"):
            assert close(row[col], w_[col]), (col, row, w_)


SWEEP_T = [0.0, 0.1, 0.3, 0.49, 0.5, 0.55, 0.9, 1.0]


@IGNORE
def test_threshold_sweep_equals_by_group_at_each_threshold(run: Any, case: Case) -> None:
    got = run(case.df, "threshold_sweep", **case.kw, thresholds=SWEEP_T)
    kw = {k: v for k, v in case.kw.items() if k != "y_prob"}
    for t in SWEEP_T:
        want = case.df.fair.by_group(**kw, y_pred=pl.col("s") >= t)
        part = got.filter(pl.col("threshold") == t)
        assert part.height == want.height
        for a, b in zip(part.iter_rows(named=True), want.iter_rows(named=True), strict=True):
            assert case.key(a) == case.key(b)
            for col in (*COUNTS, *ref.RATES):
                assert close(a[col], b[col]), (t, col, a, b)


# ---- y_pred as an expression ----------------------------------------------------------


@IGNORE
def test_y_pred_expression(run: Any, case: Case) -> None:
    df = case.df.with_columns(p49=(pl.col("s") >= 0.49).cast(pl.Int64))
    kw = {k: v for k, v in case.kw.items() if k != "y_prob"}
    expr = run(df, "by_group", **kw, y_pred=pl.col("s") >= 0.49)
    column = run(df, "by_group", **kw, y_pred="p49")
    # weighted sums may differ in the last bit between two plans (summation order)
    assert_frame_equal(expr, column, rel_tol=REL, abs_tol=ABS)
    with_prob = run(df, "by_group", **case.kw, y_pred=pl.col("s") >= 0.49)
    assert_frame_equal(with_prob.select(column.columns), column, rel_tol=REL, abs_tol=ABS)
    for name in ("demographic_parity_difference", "equal_opportunity_ratio",
                 "predictive_parity_difference"):  # fmt: skip
        k = dict(kw) if name != "demographic_parity_difference" else {
            x: v for x, v in kw.items() if x != "y_true"
        }  # fmt: skip
        a = run(df, name, **k, y_pred=pl.col("s") >= 0.49)
        b = run(df, name, **k, y_pred="p49")
        if isinstance(a, pl.DataFrame):
            assert_frame_equal(a, b, rel_tol=REL, abs_tol=ABS)
        else:
            assert a == pytest.approx(b, rel=REL, abs=ABS)


# ---- nulls ----------------------------------------------------------------------------

SCORE_METHODS = {
    "calibration": {},
    "expected_calibration_error": {},
    "calibration_difference": {},
    "roc_curve": {},
    "roc_auc": {},
    "abroca": {},
    "threshold_sweep": {"thresholds": [0.5]},
    "balance_for_positive_class_difference": {},
    "by_group": {"y_pred": "p"},
    "group_stats": {"y_pred": "p"},
}


@pytest.mark.parametrize("method", list(SCORE_METHODS))
def test_null_scores_warn_eager_only(run: Any, method: str) -> None:
    df = make(21, rows=200, groups=("a", "b"))
    df = df.with_columns(
        s=pl.when(pl.int_range(pl.len()) % 40 == 0).then(None).otherwise(pl.col("s")),
        p=pl.when(pl.int_range(pl.len()) % 40 == 0).then(None).otherwise(pl.col("p")),
    )  # 5 null scores
    kw = {**KW2, **SCORE_METHODS[method]}
    clean = df.filter(pl.col("s").is_not_null())
    if run.kind == "eager":
        with pytest.warns(NullDataWarning):
            got = run(df, method, **kw)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FairWarning)
            got = run(df, method, **kw)
    want = run(clean, method, **kw)
    if isinstance(got, pl.DataFrame):
        if "n_null" in got.columns:
            assert got["n_null"].sum() == 5
            got, want = got.drop("n_null"), want.drop("n_null")
        assert_frame_equal(got, want, rel_tol=1e-12, abs_tol=1e-14)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


# ---- integer weights == duplicated rows -----------------------------------------------


def test_integer_weights_equal_duplicated_rows(run: Any) -> None:
    df = make(22, rows=120, groups=("a", "b"), decimals=1)
    df = df.with_columns(w=pl.int_range(pl.len()) % 3 + 1)
    dup = df.select(pl.all().repeat_by(pl.col("w")).explode()).drop("w")
    kw = dict(KW2)
    for method in ("roc_auc", "expected_calibration_error"):
        a = run(df, method, **kw, sample_weight="w")
        b = run(dup, method, **kw)
        np.testing.assert_allclose(a[method].to_numpy(), b[method].to_numpy(), rtol=1e-12)
    a = run(df, "calibration", **kw, sample_weight="w")
    b = run(dup, "calibration", **kw)
    for col in ("n", "mean_prob", "fraction_positive"):
        np.testing.assert_allclose(a[col].to_numpy(), b[col].to_numpy(), rtol=1e-12)
    assert run(df, "abroca", **kw, sample_weight="w") == pytest.approx(
        run(dup, "abroca", **kw), rel=1e-12
    )


# ---- Garg, Villasenor and Foggo (2020), Table 2 ----------------------------------------

# score: (orange n (positives), blue n (positives)), from the paper's Table 2
GARG_TABLE2 = {
    0.25: ((40, 16), (40, 16)),
    0.5: ((20, 10), (40, 20)),
    0.75: ((40, 30), (20, 15)),
}
# totals: orange 100 (56 positive), blue 100 (51 positive)


def _garg(remap_025: float | None = None) -> pl.DataFrame:
    rows = []
    for score, groups in GARG_TABLE2.items():
        s = remap_025 if (score == 0.25 and remap_025 is not None) else score
        for group, (n, pos) in zip(("orange", "blue"), groups, strict=True):
            rows += [(group, 1, s)] * pos + [(group, 0, s)] * (n - pos)
    df = pl.DataFrame(rows, schema=["group", "y", "s"], orient="row")
    order = np.random.default_rng(0).permutation(df.height)  # row order must not matter
    return df[order]


GKW = {"y_true": "y", "y_prob": "s", "sensitive_features": "group"}


def F(x: Fr) -> Any:  # noqa: N802
    return pytest.approx(float(x), abs=1e-15, rel=1e-15)


def test_garg_table2_sizes() -> None:
    df = _garg()
    counts = df.group_by("group").agg(pl.len(), pl.col("y").sum()).sort("group")
    assert counts.rows() == [("blue", 100, 51), ("orange", 100, 56)]


def test_garg_calibration_per_score(run: Any) -> None:
    """Calibrated (test-fairness): at each score the fraction positive is the same in both
    groups: 16/40 at 0.25, 10/20 = 20/40 at 0.5, 30/40 = 15/20 at 0.75.

    Well-calibrated (fraction == score) holds at 0.5 and 0.75 but NOT at 0.25, where the
    fraction is 16/40 = 2/5: that is why the paper remaps 0.25 to 0.4.
    """
    t = run(_garg(), "calibration", **GKW)  # 10 uniform bins
    # 0.25 in (0.2, 0.3] = bin 2; 0.5 is an edge -> the lower bin (0.4, 0.5] = bin 4;
    # 0.75 in (0.7, 0.8] = bin 7
    assert t["group"].to_list() == ["blue"] * 3 + ["orange"] * 3
    assert t["bin"].to_list() == [2, 4, 7] * 2
    assert t["n"].to_list() == [40, 40, 20, 40, 20, 40]
    assert t["mean_prob"].to_list() == [F(Fr(1, 4)), F(Fr(1, 2)), F(Fr(3, 4))] * 2
    fp = [F(Fr(16, 40)), F(Fr(20, 40)), F(Fr(15, 20)), F(Fr(16, 40)), F(Fr(10, 20)),
          F(Fr(30, 40))]  # fmt: skip
    assert t["fraction_positive"].to_list() == fp
    # gap |2/5 - 1/4| = 3/20 at 0.25, 0 elsewhere
    assert t["calibration_gap"].to_list() == [F(Fr(3, 20)), F(Fr(0)), F(Fr(0))] * 2
    # equal fractions per bin: calibration difference 0, from either reference
    assert run(_garg(), "calibration_difference", **GKW) == F(Fr(0))
    assert run(_garg(), "calibration_difference", **GKW, reference_group="blue") == F(Fr(0))
    # ECE: 40/100 * 3/20 = 3/50 in each group
    ece = run(_garg(), "expected_calibration_error", **GKW)
    assert ece["expected_calibration_error"].to_list() == [F(Fr(3, 50))] * 2


def test_garg_remapped_is_well_calibrated(run: Any) -> None:
    """With 0.25 -> 0.4 every fraction positive equals its score: ECE 0 in both groups."""
    df = _garg(remap_025=0.4)
    t = run(df, "calibration", **GKW)
    # 0.4 is an edge of the 10 uniform bins -> the lower bin (0.3, 0.4] = bin 3
    assert t["bin"].to_list() == [3, 4, 7] * 2
    np.testing.assert_array_equal(t["fraction_positive"].to_numpy(), t["mean_prob"].to_numpy())
    ece = run(df, "expected_calibration_error", **GKW)
    assert ece["expected_calibration_error"].to_list() == [0.0, 0.0]
    assert run(df, "calibration_difference", **GKW) == 0.0


def test_garg_threshold_049_predictive_parity_and_selection(run: Any) -> None:
    """At s >= 0.49 (scores 0.5 and 0.75 positive):

    orange PP = 20 + 40 = 60, TP = 10 + 30 = 40: PPV = 40/60, SR = 60/100
    blue   PP = 40 + 20 = 60, TP = 20 + 15 = 35: PPV = 35/60, SR = 60/100
    (the paper: 40/60 = 0.66 and 35/60 = 0.583; statistical parity holds, predictive
    parity does not). At 0.55 only 0.75 is positive: SR 40/100 vs 20/100.
    """
    t = run(_garg(), "threshold_sweep", **GKW, thresholds=[0.49, 0.55])
    t = t.sort("threshold", "group", maintain_order=True)
    assert t.select("threshold", "group").rows() == [
        (0.49, "blue"), (0.49, "orange"), (0.55, "blue"), (0.55, "orange")
    ]  # fmt: skip
    assert t["positive_predictive_value"].to_list() == [
        F(Fr(35, 60)), F(Fr(40, 60)), F(Fr(15, 20)), F(Fr(30, 40))
    ]  # fmt: skip
    assert t["selection_rate"].to_list() == [
        F(Fr(60, 100)), F(Fr(60, 100)), F(Fr(20, 100)), F(Fr(40, 100))
    ]  # fmt: skip
    assert t["base_rate"].to_list() == [F(Fr(51, 100)), F(Fr(56, 100))] * 2
    assert t["tp"].to_list() == [35, 40, 15, 30]
    assert t["fp"].to_list() == [25, 20, 5, 10]

    pred = {"y_pred": pl.col("s") >= 0.49, "sensitive_features": "group"}
    assert run(_garg(), "demographic_parity_difference", **pred) == 0.0
    assert run(_garg(), "predictive_parity_difference", **pred, y_true="y") == F(Fr(5, 60))
    g = run(_garg(), "by_group", **pred, y_true="y")
    assert g["positive_predictive_value"].to_list() == [F(Fr(35, 60)), F(Fr(40, 60))]
    # not equal at 0.55: 40/100 - 20/100
    pred55 = {"y_pred": pl.col("s") >= 0.55, "sensitive_features": "group"}
    assert run(_garg(), "demographic_parity_difference", **pred55) == F(Fr(20, 100))


def test_garg_balance(run: Any) -> None:
    """E[s | y=1]: orange (16/4 + 10/2 + 30*3/4) / 56 = 31.5/56 = 9/16,
    blue (16/4 + 20/2 + 15*3/4) / 51 = 25.25/51 = 101/204.
    E[s | y=0]: orange (24/4 + 10/2 + 10*3/4) / 44 = 18.5/44 = 37/88,
    blue (24/4 + 20/2 + 5*3/4) / 49 = 19.75/49 = 79/196."""
    pos = {"blue": Fr(101, 204), "orange": Fr(9, 16)}
    neg = {"blue": Fr(79, 196), "orange": Fr(37, 88)}
    t = run(_garg(), "by_group", **GKW, y_pred=pl.col("s") >= 0.49)
    assert t["balance_for_positive_class"].to_list() == [F(pos["blue"]), F(pos["orange"])]
    assert t["balance_for_negative_class"].to_list() == [F(neg["blue"]), F(neg["orange"])]
    assert t["sum_prob_pos"].to_list() == [F(Fr(101, 4)), F(Fr(63, 2))]
    got = run(_garg(), "balance_for_positive_class_difference", **GKW)
    assert got == F(pos["orange"] - pos["blue"])  # 9/16 - 101/204 = 55/816
    assert pos["orange"] - pos["blue"] == Fr(55, 816)
    got = run(_garg(), "balance_for_negative_class_ratio", **GKW)
    assert got == F(neg["blue"] / neg["orange"])  # (79/196) / (37/88) < 1
    ref_orange = run(_garg(), "balance_for_negative_class_difference", **GKW,
                     reference_group="orange")  # fmt: skip
    assert ref_orange == F(neg["blue"] - neg["orange"])


def test_garg_roc_auc(run: Any) -> None:
    """AUC = P(s+ > s-) + P(s+ = s-)/2 over positive-negative pairs.

    orange (pos 16/10/30, neg 24/10/10 at 0.25/0.5/0.75): wins 30*34 + 10*24 = 1260,
    ties 30*10 + 10*10 + 16*24 = 784 -> (1260 + 392) / (56*44) = 1652/2464 = 59/88.
    blue (pos 16/20/15, neg 24/20/5): wins 15*44 + 20*24 = 1140, ties 15*5 + 20*20 +
    16*24 = 859 -> (1140 + 859/2) / (51*49) = 3139/4998.
    """
    t = run(_garg(), "roc_auc", **GKW)
    assert t["roc_auc"].to_list() == [F(Fr(3139, 4998)), F(Fr(59, 88))]
    curve = run(_garg(), "roc_curve", **GKW).filter(pl.col("group") == "orange")
    # orange, descending thresholds: (0,0), then s>=0.75: fp 10/44, tp 30/56, then
    # s>=0.5: 20/44, 40/56, then s>=0.25: 44/44, 56/56
    assert curve["threshold"].to_list() == [math.inf, 0.75, 0.5, 0.25]
    assert curve["fpr"].to_list() == [0.0, F(Fr(10, 44)), F(Fr(20, 44)), 1.0]
    assert curve["tpr"].to_list() == [0.0, F(Fr(30, 56)), F(Fr(40, 56)), 1.0]


def test_garg_abroca_against_reference(run: Any) -> None:
    df = _garg()
    groups = rs.split([df["group"].to_numpy()], df["y"].to_numpy(), df["s"].to_numpy())
    want = rs.abroca(groups, ("blue",))  # tie at 100 rows each: first in sort order
    assert run(df, "abroca", **GKW) == pytest.approx(want, rel=REL)
    assert run(df, "abroca", **GKW, reference_group="orange") == pytest.approx(want, rel=REL)


# ---- errors ---------------------------------------------------------------------------

ERROR_METHODS = list(SCORE_METHODS)


def _call(df: pl.DataFrame, kind: str, method: str, **kw: Any) -> Any:
    if kind == "eager":
        return getattr(df.fair, method)(**kw)
    lazy = getattr(df.lazy().fair, method)(**kw)  # builds without reading the data
    assert isinstance(lazy, pl.LazyFrame)
    return lazy.collect(engine="in-memory" if kind == "lazy" else "streaming")


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize("method", ERROR_METHODS)
def test_score_out_of_range(kind: str, method: str) -> None:
    for bad in (1.5, -0.1, float("nan"), float("inf")):
        df = make(23, rows=40).rename({"s": "my_score"})
        df = df.with_columns(
            my_score=pl.when(pl.int_range(pl.len()) == 7).then(bad).otherwise(pl.col("my_score"))
        )
        kw = {**KW2, "y_prob": "my_score", **SCORE_METHODS[method]}
        if kind == "eager":  # raises at the call
            with pytest.raises(ValueRangeError, match="my_score"):
                getattr(df.fair, method)(**kw)
            continue
        lazy = getattr(df.lazy().fair, method)(**kw)  # the plan builds: values are unread
        with pytest.raises(ValueRangeError, match="my_score"):
            lazy.collect(engine="in-memory" if kind == "lazy" else "streaming")


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize("dtype", [pl.String, pl.Boolean])
@pytest.mark.parametrize("method", ["calibration", "roc_auc", "abroca", "by_group"])
def test_score_not_numeric(kind: str, dtype: Any, method: str) -> None:
    df = make(24, rows=40)
    df = df.with_columns(s=(pl.col("s") > 0.5).cast(dtype))
    kw = {**KW2, **SCORE_METHODS[method]}
    with pytest.raises(FairError, match="'s'"):
        _call(df, kind, method, **kw)


BAD_BINS: dict[str, dict[str, Any]] = {
    "n_bins=0": {"n_bins": 0},
    "n_bins=-2": {"n_bins": -2},
    "not-increasing": {"bins": [0.0, 0.5, 0.5, 1.0]},
    "decreasing": {"bins": [0.0, 0.6, 0.4, 1.0]},
    "not-from-0": {"bins": [0.1, 0.5, 1.0]},
    "not-to-1": {"bins": [0.0, 0.5, 0.9]},
    "one-edge": {"bins": [0.0]},
    "nan": {"bins": [0.0, float("nan"), 1.0]},
}


@pytest.mark.parametrize("kind", ["eager", "lazy"])
@pytest.mark.parametrize(
    "method", ["calibration", "expected_calibration_error", "calibration_difference"]
)
def test_bad_bins(kind: str, method: str) -> None:
    df = make(25, rows=40)
    for bad, kw in BAD_BINS.items():
        with pytest.raises(InvalidParameterError):  # noqa: PT012
            _call(df, kind, method, **KW2, **kw)
            pytest.fail(f"no error for {bad}")
