"""The fused score histograms of a profile (calibration + binned ROC in one group_by).

Checked against a numpy reference written from the definitions (calibration bin
``b`` holds ``(edges[b], edges[b + 1]]``, i.e. ``searchsorted(interior, s, "left")``;
the ROC bin of ``s`` is ``floor(s * B) / B``), on adversarial scores at and next to
every edge, and against the separate reductions (:func:`calibration_stats`,
:func:`roc_stats` of the rounded score) with weights and nulls.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_fair.reduce.scores import (
    bin_edges,
    bin_index,
    calibration_stats,
    roc_stats,
    score_histograms,
)


def _adversarial(n_bins: int, seed: int = 0) -> np.ndarray:
    edges = bin_edges(n_bins)
    near = [np.nextafter(edges, 2.0), np.nextafter(edges, -1.0), edges]
    special = [0.1, 0.7, 0.3, 0.2, 0.6, 1 - 1e-16, 0.999, 0.001, 0.0005, 0.9995]
    rng = np.random.default_rng(seed)
    values = np.concatenate([*near, special, rng.random(300), np.arange(1001) / 1000])
    return values[(values >= 0) & (values <= 1)]


def _frame(n_bins: int, weighted: bool, seed: int = 0) -> pl.DataFrame:
    s = _adversarial(n_bins, seed)
    rng = np.random.default_rng(seed + 1)
    n = s.size
    frame = pl.DataFrame(
        {
            "g": rng.choice(["a", "b", None], n).tolist(),
            "y": rng.integers(0, 2, n),
            "s": s,
            "w": rng.random(n) * 3,
        }
    )
    # some null labels, scores and weights
    nulls = rng.random(n) < 0.05
    frame = frame.with_columns(
        y=pl.when(pl.Series(nulls)).then(None).otherwise(pl.col("y")),
        s=pl.when(pl.Series(np.roll(nulls, 7))).then(None).otherwise(pl.col("s")),
    )
    if weighted:
        frame = frame.with_columns(
            w=pl.when(pl.Series(np.roll(nulls, 3))).then(None).otherwise(pl.col("w"))
        )
    return frame


@pytest.mark.parametrize("n_bins", [1, 3, 10, 20, 50])
def test_bin_index_equals_searchsorted(n_bins: int) -> None:
    edges = bin_edges(n_bins)
    s = _adversarial(n_bins)
    got = pl.DataFrame({"s": s}).select(bin_index(pl.col("s"), edges)).to_series().to_numpy()
    want = np.searchsorted(edges[1:-1], s, side="left")
    np.testing.assert_array_equal(got, want)
    # a null score falls in bin 0, as with search_sorted
    nulls = pl.DataFrame({"s": [None]}, schema={"s": pl.Float64})
    assert nulls.select(bin_index(pl.col("s"), edges)).item() == 0


def test_coarsening_fine_bins_would_differ() -> None:
    """Why the calibration bin is computed from the score: 0.1 is in bin 0 of 10
    (right-closed bins) but in the fine bin starting at 0.1 (left-closed)."""
    assert np.searchsorted(bin_edges(10)[1:-1], 0.1, side="left") == 0
    assert np.floor(0.1 * 1000) // 100 == 1


@pytest.mark.parametrize("mode", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize("n_bins", [1, 10, 7, 40])
@pytest.mark.parametrize("score_bins", [10, 1000, 333])
def test_against_numpy(mode: str, n_bins: int, score_bins: int) -> None:
    frame = _frame(n_bins, weighted=False)
    edges = bin_edges(n_bins)
    source = frame if mode == "eager" else frame.lazy()
    cal, roc = score_histograms(
        source, y_true="y", y_prob="s", sensitive_features="g", edges=edges,
        score_bins=score_bins,
    )  # fmt: skip
    engine = "streaming" if mode == "streaming" else "auto"
    cal_df, roc_df = pl.collect_all([cal, roc], engine=engine)

    g = np.array(frame["g"].fill_null("<null>").to_list())
    y = frame["y"].to_numpy(allow_copy=True)
    s = frame["s"].to_numpy(allow_copy=True)
    valid = ~np.isnan(y) & ~np.isnan(s)
    cal_bin = np.searchsorted(edges[1:-1], s, side="left")
    # the ROC bin as its integer k = floor(s * B) (stored at k / B, which Polars
    # computes as k * (1 / B): 0.6000000000000001 for k = 6, B = 10)
    fine = np.floor(s * score_bins)
    roc_k = roc_df.with_columns(score=(pl.col("score") * score_bins).round().cast(pl.Int64))
    for table, key, want_key in ((cal_df, "bin", cal_bin), (roc_k, "score", fine)):
        got = table.with_columns(pl.col("g").fill_null("<null>"))
        got = got.filter(pl.col("n") > 0)
        rows = {(r["g"], r[key]): r for r in got.iter_rows(named=True)}
        want = {}
        for gv in np.unique(g[valid]):
            for kv in np.unique(want_key[valid & (g == gv)]):
                m = valid & (g == gv) & (want_key == kv)
                want[(gv, kv)] = (m.sum(), (y[m] == 1).sum(), (y[m] == 0).sum(), s[m].sum())
        assert set(rows) == set(want)
        for k, (n, pos, neg, total) in want.items():
            r = rows[k]
            assert (r["n"], r["pos"], r["neg"]) == (n, pos, neg)
            if key == "bin":
                assert r["sum_prob"] == pytest.approx(total, rel=1e-12, abs=1e-12)
        assert int(table["n_null"].sum()) == int((~valid).sum())


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_bins", [10, 40])
def test_equals_separate_reductions(weighted: bool, n_bins: int) -> None:
    frame = _frame(n_bins, weighted=weighted, seed=3)
    kw = {"y_true": "y", "sensitive_features": "g", "sample_weight": "w" if weighted else None}
    edges = bin_edges(n_bins)
    cal, roc = score_histograms(frame, **kw, y_prob="s", edges=edges, score_bins=1000)
    got_cal, got_roc = pl.collect_all([cal, roc])
    want_cal = calibration_stats(frame, **kw, y_prob="s", edges=edges).collect()
    rounded = (pl.col("s") * 1000).floor() / 1000
    want_roc = roc_stats(frame, **kw, y_prob=rounded).collect()
    # counts (and weight sums of the same rows) equal; score sums up to their order
    assert_frame_equal(got_cal, want_cal, check_exact=False, rel_tol=1e-12)
    assert_frame_equal(got_roc, want_roc, check_exact=not weighted, rel_tol=1e-12)


def test_check_range() -> None:
    from polars_fair.exceptions import ValueRangeError

    frame = pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "s": [0.5, 1.5]})
    kw = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
    with pytest.raises(ValueRangeError, match="1.5"):
        pl.collect_all(score_histograms(frame, **kw, edges=bin_edges(10), score_bins=10))
    # left to the caller: no error from the histograms alone
    cal, _ = score_histograms(frame, **kw, edges=bin_edges(10), score_bins=10, check_range=False)
    assert cal.collect()["n"].sum() == 2
    nan = frame.with_columns(s=pl.Series([0.5, float("nan")]))
    with pytest.raises(ValueRangeError, match="NaN"):
        pl.collect_all(score_histograms(nan, **kw, edges=bin_edges(10), score_bins=10))


def test_profile_checks_scores() -> None:
    """The profile leaves the range check to its statistics table, in the same collect."""
    from polars_fair.exceptions import ValueRangeError

    for bad in (1.5, -0.25, float("nan")):
        frame = pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "s": [0.5, bad]})
        with pytest.raises(ValueRangeError):
            frame.fair.profile(y_true="y", y_pred="y", y_prob="s", sensitive_features="g")
