"""`bootstrap` / `bootstrap_replicates` against a brute-force ROW bootstrap in numpy.

api3.md: the stratified scheme draws, per group, multinomial(n_g, cell proportions),
which has the same distribution as resampling the group's rows with replacement; the
joint scheme draws one multinomial(N, all cells), the same as resampling the rows of
the whole frame. Here the rows themselves are resampled with numpy (indices drawn
with ``rng.integers``) and the criterion recomputed from the resampled rows, so the
two replicate distributions must agree in mean and standard deviation up to Monte
Carlo error.

Tolerances (B = 2000 replicates on each side):

* mean: |m1 - m2| <= 4 * sqrt(s1^2/B + s2^2/B), the standard error of a difference of
  two independent sample means (4 SE: a false alarm about once in 16,000 runs, and the
  seeds are fixed);
* std: |s1 - s2| <= 4 * sqrt(se(s1)^2 + se(s2)^2) with se(s) = sqrt((m4 - s^4) / B) / (2 s)
  (delta method for the sample standard deviation, m4 the sample fourth central
  moment, so heavy tails of max - min criteria are accounted for).
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_stats as ref

from polars_fair.exceptions import InvalidParameterError

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

B = 2000
CRITERIA = [
    "demographic_parity_difference",
    "equal_opportunity_difference",
    "disparate_impact_ratio",
    "predicted_positive_share_difference",
]


def _frame(data: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(data, schema_overrides={"y_true": pl.Int64, "y_pred": pl.Int64})


@pytest.fixture(scope="module")
def data() -> dict[str, list[Any]]:
    # three groups of ~100-250 rows: every rate stays defined in (almost) every replicate
    return ref.make_data(
        201, rows=600, groups=("a", "b", "c"), group_p=(0.2, 0.35, 0.45), flip=0.35
    )


def _plain(df: pl.DataFrame, name: str, **kw: Any) -> Any:
    """The plain criterion method, given only the parameters its signature takes."""
    fn = getattr(df.fair, name)
    params = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kw.items() if k in params})


# ----------------------------------------------------------- numpy row bootstrap


def _criteria_from_counts(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray, ref_idx: int | None
) -> dict[str, np.ndarray]:
    """Criteria per replicate from (B, G) count arrays (written from DESIGN.md section 4).

    Without a reference: between_groups (max - min, min / max). With a reference
    index: the signed group - reference of the group farthest from the reference, and
    group / reference of the group whose ratio is farthest from 1 (DESIGN.md: "the
    group farthest from the reference (the signed value)")."""
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        sr = (tp + fp) / n
        tpr = tp / (tp + fn)
    out = {}
    # predicted_positive_share = PP_g / total PP: depends on the group sizes, so it
    # separates the stratified scheme (sizes fixed) from the joint one (sizes vary)
    pps = (tp + fp) / (tp + fp).sum(axis=1, keepdims=True)
    for name, rate in (
        ("demographic_parity_difference", sr),
        ("equal_opportunity_difference", tpr),
        ("predicted_positive_share_difference", pps),
    ):
        if ref_idx is None:
            out[name] = np.nanmax(rate, axis=1) - np.nanmin(rate, axis=1)
        else:
            d = rate - rate[:, [ref_idx]]
            d[:, ref_idx] = 0.0
            pick = np.nanargmax(np.abs(d), axis=1)
            out[name] = d[np.arange(len(d)), pick]
    if ref_idx is None:
        out["disparate_impact_ratio"] = np.nanmin(sr, axis=1) / np.nanmax(sr, axis=1)
    else:
        r = sr / sr[:, [ref_idx]]
        r[:, ref_idx] = 1.0
        pick = np.nanargmax(np.abs(np.log(r)), axis=1)
        out["disparate_impact_ratio"] = r[np.arange(len(r)), pick]
    return out


def _arrays(data: dict[str, list[Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Any]]:
    groups = sorted(set(data["g"]))
    gi = np.array([groups.index(v) for v in data["g"]])
    return np.array(data["y_true"], bool), np.array(data["y_pred"], bool), gi, groups


def _cells(yt: np.ndarray, yp: np.ndarray, gi: np.ndarray, n_groups: int) -> tuple[np.ndarray, ...]:
    """(B, G) counts of tp, fp, fn, tn from (B, rows) resampled arrays."""
    reps = np.repeat(np.arange(yt.shape[0])[:, None], yt.shape[1], axis=1)
    flat = (reps * n_groups + gi).ravel()
    size = yt.shape[0] * n_groups

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(flat, weights=mask.ravel(), minlength=size).reshape(-1, n_groups)

    return count(yt & yp), count(~yt & yp), count(yt & ~yp), count(~yt & ~yp)


def row_bootstrap(
    data: dict[str, list[Any]], scheme: str, ref_idx: int | None, seed: int
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    yt, yp, gi, groups = _arrays(data)
    if scheme == "joint":
        idx = rng.integers(0, len(yt), size=(B, len(yt)))
    else:
        # resample within each group: the group's rows, drawn n_g times with replacement
        parts = []
        for g in range(len(groups)):
            rows_g = np.flatnonzero(gi == g)
            parts.append(rows_g[rng.integers(0, len(rows_g), size=(B, len(rows_g)))])
        idx = np.concatenate(parts, axis=1)
    return _criteria_from_counts(*_cells(yt[idx], yp[idx], gi[idx], len(groups)), ref_idx)


def _se_std(x: np.ndarray) -> float:
    s = x.std(ddof=1)
    m4 = np.mean((x - x.mean()) ** 4)
    return math.sqrt(max(m4 - s**4, 0.0) / len(x)) / (2 * s)


def _assert_same_distribution(lib: np.ndarray, brute: np.ndarray, what: str) -> None:
    assert np.isfinite(lib).all(), what
    assert np.isfinite(brute).all(), what
    se_mean = math.sqrt(lib.var(ddof=1) / len(lib) + brute.var(ddof=1) / len(brute))
    assert abs(lib.mean() - brute.mean()) <= 4 * se_mean, (what, lib.mean(), brute.mean(), se_mean)
    se_sd = math.hypot(_se_std(lib), _se_std(brute))
    assert abs(lib.std(ddof=1) - brute.std(ddof=1)) <= 4 * se_sd, (
        what,
        lib.std(ddof=1),
        brute.std(ddof=1),
        se_sd,
    )


def _kw(reference: Any = None, **extra: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": "g",
        "criteria": CRITERIA,
        **extra,
    }
    if reference is not None:
        kw["reference_group"] = reference
    return kw


# --------------------------------------------------------------------- tests


@pytest.mark.parametrize("scheme", ["stratified", "joint"])
@pytest.mark.parametrize("reference", [None, "b"])
def test_replicates_match_row_bootstrap(data: Any, scheme: str, reference: Any) -> None:
    df = _frame(data)
    reps = df.fair.bootstrap_replicates(**_kw(reference), n_resamples=B, seed=7, scheme=scheme)
    assert set(reps.columns) >= {"replicate", "criterion", "value"}
    ref_idx = None if reference is None else sorted(set(data["g"])).index(reference)
    brute = row_bootstrap(data, scheme, ref_idx, seed=1234)
    for name in CRITERIA:
        lib = reps.filter(pl.col("criterion") == name).sort("replicate")["value"].to_numpy()
        assert len(lib) == B
        _assert_same_distribution(lib, brute[name], f"{scheme}/{reference}/{name}")


def test_schemes_are_distinguishable(data: Any) -> None:
    # power check of the comparison above: the library's stratified replicates of the
    # share of predicted positives must be REJECTED against a joint row bootstrap (and
    # vice versa), since only the joint scheme lets group sizes vary (var of PP_g:
    # N p_g SR_g (1 - p_g SR_g) joint vs n_g SR_g (1 - SR_g) stratified)
    df = _frame(data)
    name = "predicted_positive_share_difference"
    for scheme, other in (("stratified", "joint"), ("joint", "stratified")):
        reps = df.fair.bootstrap_replicates(**_kw(None), n_resamples=B, seed=7, scheme=scheme)
        lib = reps.filter(pl.col("criterion") == name).sort("replicate")["value"].to_numpy()
        brute = row_bootstrap(data, other, None, seed=1234)[name]
        with pytest.raises(AssertionError):
            _assert_same_distribution(lib, brute, f"{scheme} vs {other}")


def test_stratified_keeps_group_sizes() -> None:
    # a group where every row is predicted positive keeps SR = 1 in every stratified
    # replicate (its size and its cells cannot change); under the joint scheme as well,
    # as long as the group is drawn. Group "a" rows all positive, "b" all negative:
    # demographic_parity_difference is exactly 1 in every stratified replicate.
    df = pl.DataFrame(
        {"g": ["a"] * 20 + ["b"] * 30, "y_true": [1, 0] * 25, "y_pred": [1] * 20 + [0] * 30}
    )
    reps = df.fair.bootstrap_replicates(
        y_true="y_true",
        y_pred="y_pred",
        sensitive_features="g",
        criteria=["demographic_parity_difference"],
        n_resamples=200,
        seed=3,
    )
    assert reps["value"].to_list() == [1.0] * 200


def test_seeded_reproducibility(data: Any) -> None:
    df = _frame(data)
    kw = _kw(n_resamples=300)
    # the replicates are bit-identical for a seed; the summary's `std` is an aggregation
    # whose last bit polars' parallel reduction may change from run to run (observed:
    # 0.04057850092854571 vs ...573), so the summary is compared to 1e-13
    ra = df.fair.bootstrap_replicates(**kw, seed=11)
    assert ra.equals(df.fair.bootstrap_replicates(**kw, seed=11))
    assert not ra.equals(df.fair.bootstrap_replicates(**kw, seed=12))
    a = df.fair.bootstrap(**kw, seed=11)
    b = df.fair.bootstrap(**kw, seed=11)
    c = df.fair.bootstrap(**kw, seed=12)
    assert a.columns == b.columns
    assert a.select(pl.exclude(pl.Float64)).equals(b.select(pl.exclude(pl.Float64)))
    for col in ("value", "mean", "std", "ci_low", "ci_high"):
        assert np.allclose(a[col].to_numpy(), b[col].to_numpy(), rtol=1e-13, atol=0), col
    assert a["value"].equals(c["value"])  # the point estimate does not depend on the seed
    assert not np.allclose(a["mean"].to_numpy(), c["mean"].to_numpy(), rtol=1e-6, atol=0)


def test_same_seed_same_result_on_every_engine(run: Any, data: Any) -> None:
    df = _frame(data)
    kw = _kw(n_resamples=200, seed=5)
    assert run(df, "bootstrap_replicates", **kw).equals(df.fair.bootstrap_replicates(**kw))
    got, want = run(df, "bootstrap", **kw), df.fair.bootstrap(**kw)
    assert got.select(pl.exclude(pl.Float64)).equals(want.select(pl.exclude(pl.Float64)))
    for col in ("value", "mean", "std", "ci_low", "ci_high"):  # `std`: see reproducibility
        assert np.allclose(got[col].to_numpy(), want[col].to_numpy(), rtol=1e-13, atol=0), col


@pytest.mark.parametrize("reference", [None, "largest", "a"])
def test_point_value_is_the_plain_criterion(run: Any, data: Any, reference: Any) -> None:
    df = _frame(data)
    out = run(df, "bootstrap", **_kw(reference), n_resamples=100)
    assert out["criterion"].to_list() == CRITERIA
    for row in out.iter_rows(named=True):
        plain = _plain(
            df,
            row["criterion"],
            y_true="y_true",
            y_pred="y_pred",
            sensitive_features="g",
            reference_group=reference,
        )
        assert math.isclose(row["value"], plain, rel_tol=1e-12, abs_tol=1e-15), row


def test_summary_columns_match_replicates(data: Any) -> None:
    # bootstrap's mean/std/percentiles summarise bootstrap_replicates with the same seed
    df = _frame(data)
    kw = _kw(n_resamples=400, seed=9)
    out = df.fair.bootstrap(**kw, confidence_level=0.9)
    reps = df.fair.bootstrap_replicates(**kw)
    # api3.md update: std with ddof=1, percentiles linearly interpolated (np.percentile's
    # default "linear" method)
    for row in out.iter_rows(named=True):
        v = reps.filter(pl.col("criterion") == row["criterion"])["value"].to_numpy()
        assert len(v) == 400
        assert math.isclose(row["mean"], v.mean(), rel_tol=1e-12)
        assert math.isclose(row["std"], v.std(ddof=1), rel_tol=1e-12)
        lo, hi = np.percentile(v, [5.0, 95.0])
        assert math.isclose(row["ci_low"], lo, rel_tol=1e-12), (row, lo)
        assert math.isclose(row["ci_high"], hi, rel_tol=1e-12), (row, hi)
        assert row["n_defined"] == 400


@pytest.mark.parametrize("scheme", ["stratified", "joint"])
def test_percentiles_bound_the_value(run: Any, data: Any, scheme: str) -> None:
    out = run(_frame(data), "bootstrap", **_kw(), n_resamples=500, scheme=scheme)
    # api3.md's columns, in order; the library adds `n_defined` (replicates where the
    # criterion is defined), which must be all of them here
    assert out.columns[:6] == ["criterion", "value", "mean", "std", "ci_low", "ci_high"]
    assert set(out.columns) <= {
        "criterion",
        "value",
        "mean",
        "std",
        "ci_low",
        "ci_high",
        "n_defined",
    }
    if "n_defined" in out.columns:
        assert out["n_defined"].to_list() == [500] * len(CRITERIA)
    for row in out.iter_rows(named=True):
        assert row["ci_low"] <= row["mean"] <= row["ci_high"], row
        assert row["ci_low"] <= row["value"] <= row["ci_high"], row
        assert row["std"] > 0


def test_wider_level_gives_wider_interval(data: Any) -> None:
    df = _frame(data)
    narrow = df.fair.bootstrap(**_kw(), n_resamples=500, seed=1, confidence_level=0.5)
    wide = df.fair.bootstrap(**_kw(), n_resamples=500, seed=1, confidence_level=0.99)
    assert (wide["ci_low"] <= narrow["ci_low"]).all()
    assert (wide["ci_high"] >= narrow["ci_high"]).all()


def test_by_batches(run: Any) -> None:
    data = ref.make_data(211, rows=900, batches=("m1", "m2"), flip=0.35)
    df = _frame(data)
    out = run(df, "bootstrap", **_kw(by="batch"), n_resamples=100)
    assert out.columns[:2] == ["batch", "criterion"]
    assert sorted(out.select("batch", "criterion").iter_rows()) == sorted(
        (b, c) for b in ("m1", "m2") for c in CRITERIA
    )
    for row in out.iter_rows(named=True):
        sub = df.filter(pl.col("batch") == row["batch"])
        plain = _plain(
            sub, row["criterion"], y_true="y_true", y_pred="y_pred", sensitive_features="g"
        )
        assert math.isclose(row["value"], plain, rel_tol=1e-12), row
    reps = run(df, "bootstrap_replicates", **_kw(by="batch"), n_resamples=50)
    assert reps.columns == ["batch", "replicate", "criterion", "value"]
    assert reps.height == 2 * len(CRITERIA) * 50


def test_replicates_shape(run: Any, data: Any) -> None:
    reps = run(_frame(data), "bootstrap_replicates", **_kw(), n_resamples=40)
    assert reps.columns == ["replicate", "criterion", "value"]
    assert reps.height == 40 * len(CRITERIA)
    assert sorted(set(reps["replicate"].to_list())) == list(range(40)) or sorted(
        set(reps["replicate"].to_list())
    ) == list(range(1, 41))


def test_default_criteria_values(data: Any) -> None:
    df = _frame(data)
    out = df.fair.bootstrap(
        y_true="y_true", y_pred="y_pred", sensitive_features="g", n_resamples=50
    )
    # api3.md update: the default criteria
    assert out["criterion"].to_list() == [
        "demographic_parity_difference",
        "equalized_odds_difference",
    ]
    for row in out.iter_rows(named=True):
        plain = _plain(
            df, row["criterion"], y_true="y_true", y_pred="y_pred", sensitive_features="g"
        )
        assert (plain is None and row["value"] is None) or math.isclose(
            row["value"], plain, rel_tol=1e-12, abs_tol=1e-15
        ), row


def test_sample_weight_is_rejected(data: Any) -> None:
    df = _frame(data).with_columns(w=pl.lit(1.0))
    with pytest.raises(InvalidParameterError):
        df.fair.bootstrap(**_kw(), sample_weight="w")
    with pytest.raises(InvalidParameterError):
        df.lazy().fair.bootstrap_replicates(**_kw(), sample_weight="w").collect()


@pytest.mark.parametrize("bad", [{"scheme": "rows"}, {"n_resamples": 0}, {"confidence_level": 1.5}])
def test_bad_parameters(data: Any, bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidParameterError):
        _frame(data).fair.bootstrap(**{**_kw(), **bad})


def test_by_batches_row_order() -> None:
    data = ref.make_data(212, rows=900, batches=("m1", "m2"), flip=0.35)
    out = _frame(data).fair.bootstrap(**_kw(by="batch"), n_resamples=50)
    assert list(out.select("batch", "criterion").iter_rows()) == [
        (b, c) for b in ("m1", "m2") for c in CRITERIA
    ]
