"""A scored profile's four tables from one ``group_by`` (:mod:`polars_fair.reduce.fused`).

* Each table equals the separate reduction it replaces (``group_stats`` with and
  without the score, ``calibration_stats``, ``roc_stats`` of the binned score, the
  last three themselves checked against numpy elsewhere): same columns and dtypes,
  counts bit-identical, float sums to rounding; on random frames with nulls in every
  column, weights (some null) and batch keys, and on scores at and next to every bin
  edge; on the in-memory and the streaming engine.
* The null rules, counted with numpy from the definitions: a null score excludes a
  row from the scored tables only; a null prediction excludes it from the statistics
  tables only.
* Bad scores raise the error ``group_stats`` raises, word for word (range with the
  smallest and largest score, NaN), after bad labels and weights as before; a NaN
  score of a row excluded for a null weight is no error, as before.
* A profile reads its rows once (a source that counts its reads).
* The row code (the fine bin and one flag, with uniform calibration edges) gives the
  calibration slot exactly: row by row against numpy and ``bin_index`` at every edge,
  fine-bin boundary and midpoint and the floats next to them, on random scores, and
  the four tables equal those of the direct code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.exceptions import LabelError, ValueRangeError
from polars_fair.reduce import group_stats
from polars_fair.reduce.fused import fused_tables
from polars_fair.reduce.scores import bin_edges, calibration_stats, roc_stats
from tests.strategies import labelled_frames

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")


def _fused(frame: pl.DataFrame | pl.LazyFrame, engine: str = "auto", **kw: Any) -> list[Any]:
    kw = {"by": None, "sample_weight": None, "pos_label": 1, **kw}
    n_bins, score_bins = kw.pop("n_bins", 10), kw.pop("score_bins", 1000)
    plans = fused_tables(
        frame.lazy(), **kw, edges=bin_edges(n_bins), score_bins=score_bins
    )  # fmt: skip
    return pl.collect_all(plans, engine=engine)  # type: ignore[arg-type]


def _separate(frame: pl.DataFrame, **kw: Any) -> list[pl.DataFrame]:
    kw = {"by": None, "sample_weight": None, "pos_label": 1, **kw}
    n_bins, score_bins = kw.pop("n_bins", 10), kw.pop("score_bins", 1000)
    y_prob, y_pred = kw.pop("y_prob"), kw.pop("y_pred")
    stats = group_stats(frame, **kw, y_pred=y_pred, y_prob=y_prob).collect()
    plain = group_stats(frame, **kw, y_pred=y_pred).collect()
    cal = calibration_stats(frame, **kw, y_prob=y_prob, edges=bin_edges(n_bins)).collect()
    binned = (pl.col(y_prob) * score_bins).floor() / score_bins
    roc = roc_stats(frame, **kw, y_prob=binned).collect()
    return [stats, plain, cal, roc]


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.schema == want.schema
    ints = [c for c, t in want.schema.items() if not t.is_float()]
    assert got.select(ints).equals(want.select(ints))  # counts and keys bit-identical
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def _edge_scores(n_bins: int, score_bins: int) -> np.ndarray:
    grid = np.unique(np.concatenate([bin_edges(n_bins), np.arange(score_bins + 1) / score_bins]))
    near = np.concatenate([grid, np.nextafter(grid, 2.0), np.nextafter(grid, -1.0)])
    return near[(near >= 0) & (near <= 1)]


@settings(max_examples=60, deadline=None)
@given(
    df=labelled_frames(min_rows=0, max_rows=80, weights=True, nulls=True),
    picks=st.lists(st.integers(0, 10_000), min_size=80, max_size=80),
    null_scores=st.lists(st.booleans(), min_size=80, max_size=80),
    null_weights=st.lists(st.booleans(), min_size=80, max_size=80),
    weighted=st.booleans(),
    by=st.booleans(),
    bins=st.sampled_from([(10, 1000), (3, 7), (1, 1), (40, 100)]),
    engine=st.sampled_from(["in-memory", "streaming"]),
)
def test_equals_separate_reductions(
    df: pl.DataFrame,
    picks: list[int],
    null_scores: list[bool],
    null_weights: list[bool],
    weighted: bool,
    by: bool,
    bins: tuple[int, int],
    engine: str,
) -> None:
    n_bins, score_bins = bins
    edge = _edge_scores(n_bins, score_bins)
    n = df.height
    scores = [None if null_scores[i] else float(edge[picks[i] % edge.size]) for i in range(n)]
    weights = [None if null_weights[i] else w for i, w in enumerate(df["w"].to_list())]
    df = df.with_columns(
        pl.Series("s", scores, dtype=pl.Float64),
        pl.Series("w", weights, dtype=pl.Float64),
        (pl.int_range(pl.len()) % 3).alias("m"),
    )
    kw: dict[str, Any] = {
        "y_true": "y_true", "y_pred": "y_pred", "y_prob": "s", "sensitive_features": "g",
        "sample_weight": "w" if weighted else None, "by": "m" if by else None,
        "n_bins": n_bins, "score_bins": score_bins,
    }  # fmt: skip
    *tables, rows = _fused(df, engine, **kw)
    for got, want in zip(tables, _separate(df, **kw), strict=True):
        _same(got, want)
    assert rows.item() == n


def test_null_rules_against_numpy() -> None:
    rng = np.random.default_rng(5)
    n = 4000
    y = rng.integers(0, 2, n).astype(float)
    p = rng.integers(0, 2, n).astype(float)
    s = rng.random(n)
    for arr, rate in ((y, 0.05), (p, 0.07), (s, 0.09)):
        arr[rng.random(n) < rate] = np.nan
    g = rng.choice(["a", "b"], n)
    df = pl.DataFrame({"g": g, "y": y, "p": p, "s": s}).fill_nan(None)
    df = df.with_columns(pl.col("y", "p").cast(pl.Int64))
    stats, plain, cal, roc, rows = _fused(
        df, y_true="y", y_pred="p", y_prob="s", sensitive_features="g"
    )
    ok_y, ok_p, ok_s = ~np.isnan(y), ~np.isnan(p), ~np.isnan(s)
    for i, grp in enumerate(["a", "b"]):
        m = g == grp
        assert stats["n"][i] == np.sum(m & ok_y & ok_p & ok_s)
        assert stats["n_null"][i] == np.sum(m & ~(ok_y & ok_p & ok_s))
        assert stats["tp"][i] == np.sum(m & ok_s & (y == 1) & (p == 1))
        sel = m & ok_y & ok_p & ok_s & (y == 1)
        assert stats["sum_prob_pos"][i] == pytest.approx(np.sum(s[sel]), rel=1e-12)
        assert stats["sum_prob2_pos"][i] == pytest.approx(np.sum(s[sel] ** 2), rel=1e-12)
        assert plain["n"][i] == np.sum(m & ok_y & ok_p)
        assert plain["n_null"][i] == np.sum(m & ~(ok_y & ok_p))
        kept = m & ok_y & ok_s  # the histograms read y_true and the score only
        got_cal = cal.filter(pl.col("g") == grp)
        assert got_cal["n"].sum() == np.sum(kept)
        assert got_cal["n_null"].sum() == np.sum(m & ~(ok_y & ok_s))
        want_bins = np.searchsorted(bin_edges(10)[1:-1], s[kept], side="left")
        for b in range(10):
            row = got_cal.filter(pl.col("bin") == b)
            assert row["n"].sum() == np.sum(want_bins == b)
            assert row["pos"].sum() == np.sum((want_bins == b) & (y[kept] == 1))
        got_roc = roc.filter(pl.col("g") == grp, pl.col("n") > 0)  # n = 0: excluded rows only
        want_k, want_n = np.unique(np.floor(s[kept] * 1000), return_counts=True)
        # k / 1000 as Polars divides (by the reciprocal: 13 / 1000 -> 0.013000000000000001)
        assert got_roc["score"].to_list() == pytest.approx((want_k / 1000).tolist(), rel=1e-15)
        assert got_roc["n"].to_list() == want_n.tolist()
    assert rows.item() == n


_BAD = [1.5, -0.25, float("inf"), float("-inf"), float(np.nextafter(1.0, 2.0)), -5e-324, 1e300]


@pytest.mark.parametrize("bad", _BAD)
@pytest.mark.parametrize("weighted", [False, True])
def test_out_of_range_error_as_group_stats(bad: float, weighted: bool) -> None:
    df = pl.DataFrame(
        {"g": ["a", "b", "b"], "y": [1, None, 0], "s": [0.5, bad, 0.25], "w": [1.0, None, 2.0]}
    )
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "y", "y_prob": "s", "sensitive_features": "g"}
    kw["sample_weight"] = "w" if weighted else None
    with pytest.raises(ValueRangeError) as want:
        group_stats(df, **kw).collect()
    for frame in (df, df.lazy()):
        with pytest.raises(ValueRangeError) as got:
            frame.fair.profile(**kw)
        assert str(got.value) == str(want.value)
    assert repr(bad) in str(want.value)


@pytest.mark.parametrize("weighted", [False, True])
def test_nan_error_as_group_stats(weighted: bool) -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "s": [0.5, float("nan")], "w": [1.0, 0.0]})
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "y", "y_prob": "s", "sensitive_features": "g"}
    kw["sample_weight"] = "w" if weighted else None
    with pytest.raises(ValueRangeError, match="NaN") as want:
        group_stats(df, **kw).collect()
    with pytest.raises(ValueRangeError) as got:
        df.fair.profile(**kw)
    assert str(got.value) == str(want.value)
    # a NaN score on a row excluded for its null weight: no error, as before
    excluded = df.with_columns(w=pl.Series([1.0, None]))
    kw["sample_weight"] = "w"
    prof = excluded.fair.profile(**kw)
    _same(prof.tables["stats"], group_stats(excluded, **kw).collect())


def test_bad_labels_before_bad_scores() -> None:
    df = pl.DataFrame({"g": ["a", "b", "b"], "y": [1, 0, 2], "s": [0.5, 1.5, 0.2]})
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "y", "y_prob": "s", "sensitive_features": "g"}
    with pytest.raises(LabelError) as want:
        group_stats(df, **kw).collect()
    with pytest.raises(LabelError) as got:
        df.fair.profile(**kw)
    assert str(got.value) == str(want.value)


def test_profile_tables_are_the_fused_tables() -> None:
    rng = np.random.default_rng(2)
    n = 3000
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "m": rng.integers(0, 2, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n),
            "w": rng.random(n),
        }
    )
    kw: dict[str, Any] = {
        "y_true": "y", "y_pred": pl.col("s") >= 0.5, "y_prob": "s", "sensitive_features": "g",
        "by": "m", "sample_weight": "w",
    }  # fmt: skip
    prof = df.fair.profile(**kw)
    for got, want in zip(prof.tables.values(), _separate(df, **kw), strict=True):
        _same(got, want)
    assert prof.rows == n
    assert list(prof.tables) == ["stats", "stats_1", "calibration", "roc"]


def test_reads_the_rows_once() -> None:
    """The profile's source is scanned once (a Python source counting its reads)."""
    from polars.io.plugins import register_io_source

    df = pl.DataFrame({"g": ["a", "b"] * 50, "y": [1, 0, 0, 1] * 25, "s": np.linspace(0, 1, 100)})
    reads = []

    def source(with_columns: Any, predicate: Any, n_rows: Any, batch_size: Any) -> Any:
        reads.append(1)
        yield df if with_columns is None else df.select(with_columns)

    lf = register_io_source(source, schema=df.schema)
    prof = pf.profile(lf, y_true="y", y_pred=pl.col("s") >= 0.5, y_prob="s", sensitive_features="g")
    assert len(reads) == 1
    assert prof.rows == 100


# --- the row code: (fine bin, flag) gives the calibration slot exactly ---------------
# (``_row_code``'s two forms, row by row, against numpy and against ``bin_index``)

#: (n_bins, score_bins): the flagged form (2n + 1 <= score_bins; even, odd and
#: unaligned ratios, the smallest allowed) and the direct one (uniform edges with
#: n * (1 / n) != 1, as for 49; too few score bins).
_CODE_BINS = [
    (10, 1000), (10, 21), (10, 30), (10, 25), (3, 7), (40, 100), (1, 3), (2, 5), (7, 1000),
    (100, 1000), (1000, 2001), (49, 1000), (1, 1), (10, 10), (40, 41),
]  # fmt: skip


def _adversarial(n_bins: int, score_bins: int) -> np.ndarray:
    """Every edge, fine-bin boundary and midpoint between edges, and 3 floats either side."""
    grid = np.concatenate(
        [
            bin_edges(n_bins),
            np.arange(-1, score_bins + 3) / score_bins,
            (np.arange(n_bins + 1) + 0.5) / n_bins,
            np.arange(n_bins + 1) * (1.0 / n_bins),
        ]
    )
    near = [grid]
    for direction in (np.inf, -np.inf):
        step = grid
        for _ in range(3):
            step = np.nextafter(step, direction)
            near.append(step)
    big = float(np.finfo(np.float64).max)  # times score_bins: infinite
    special = [0.0, -0.0, 5e-324, -5e-324, 1.0, 2.0, 1e300, -1e300, big, -big, np.inf, -np.inf,
               np.nan]  # fmt: skip
    return np.unique(np.concatenate([*near, special]))


def _codes(scores: list[float | None], n_bins: int, score_bins: int) -> tuple[list, list, list]:
    """The partial table's code per row: decoded, direct (``bin_index``) and numpy's."""
    from polars_fair.reduce.fused import _CODE, _row_code
    from polars_fair.reduce.scores import bin_index

    edges = bin_edges(n_bins)
    frame = pl.DataFrame({"s": scores}, schema={"s": pl.Float64})
    s = pl.col("s")
    code, decode = _row_code(s, edges, score_bins)
    got = frame.select(code.alias(_CODE))
    if decode is not None:
        got = got.select(decode.alias(_CODE))
    fine = (s * score_bins).floor().clip(-1.0, score_bins + 1.0).cast(pl.Int64, strict=False)
    direct = fine * (n_bins + 1) + bin_index(s, edges) + (s > 1.0).cast(pl.Int64)
    # numpy, from the definition: the fine bin, and the edges edges[1:] below the score
    values = np.array([np.nan if v is None else v for v in scores], dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN, and scores near the float maximum
        k = np.clip(np.floor(values * score_bins), -1, score_bins + 1)
    slot = np.searchsorted(edges[1:], values, side="left")  # edges strictly below
    want = [None if np.isnan(v) else int(kk) * (n_bins + 1) + int(r)
            for v, kk, r in zip(values, k, slot, strict=True)]  # fmt: skip
    return got[_CODE].to_list(), frame.select(direct)["s"].to_list(), want


@pytest.mark.parametrize(("n_bins", "score_bins"), _CODE_BINS)
def test_row_code_at_every_edge(n_bins: int, score_bins: int) -> None:
    scores: list[float | None] = [*_adversarial(n_bins, score_bins).tolist(), None]
    got, direct, want = _codes(scores, n_bins, score_bins)
    assert got == want
    assert direct == want


def test_row_code_forms() -> None:
    """The flagged form where the proof holds (Int32 rows, a lookup), else the direct one."""
    from polars_fair.reduce.fused import _row_code

    df = pl.DataFrame({"s": [0.5]})
    for (n_bins, score_bins), flagged in [((10, 1000), True), ((3, 7), True), ((49, 1000), False),
                                          ((10, 20), False), ((1, 1), False)]:  # fmt: skip
        code, decode = _row_code(pl.col("s"), bin_edges(n_bins), score_bins)
        assert (decode is not None) == flagged
        assert df.select(code).dtypes == [pl.Int32 if flagged else pl.Int64]


@settings(max_examples=200, deadline=None)
@given(
    bins=st.tuples(st.integers(1, 60), st.integers(1, 3000)),
    offsets=st.lists(st.tuples(st.floats(-0.01, 1.01), st.integers(-4, 4)), max_size=60),
    anything=st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.none(), max_size=20),
)
def test_row_code_random(
    bins: tuple[int, int], offsets: list[tuple[float, int]], anything: list[float | None]
) -> None:
    n_bins, score_bins = bins
    # scores next to the grid of edges and fine-bin boundaries, a few floats away
    grid = np.concatenate([bin_edges(n_bins), np.arange(score_bins + 1) / score_bins])
    scores: list[float | None] = list(anything)
    for x, ulps in offsets:
        v = float(grid[np.argmin(np.abs(grid - x))])
        for _ in range(abs(ulps)):
            v = float(np.nextafter(v, np.inf if ulps > 0 else -np.inf))
        scores += [v, x]
    got, direct, want = _codes(scores, n_bins, score_bins)
    assert got == want
    assert direct == want


@settings(max_examples=40, deadline=None)
@given(
    df=labelled_frames(min_rows=0, max_rows=80, weights=True, nulls=True),
    picks=st.lists(st.integers(0, 10_000), min_size=80, max_size=80),
    null_scores=st.lists(st.booleans(), min_size=80, max_size=80),
    weighted=st.booleans(),
    bins=st.sampled_from([(10, 1000), (10, 25), (3, 7), (7, 100)]),
    engine=st.sampled_from(["in-memory", "streaming"]),
)
def test_flagged_code_gives_the_direct_tables(
    df: pl.DataFrame,
    picks: list[int],
    null_scores: list[bool],
    weighted: bool,
    bins: tuple[int, int],
    engine: str,
) -> None:
    """The four tables from the flagged row code equal those from the direct one."""
    import polars_fair.reduce.fused as fused

    n_bins, score_bins = bins
    edge = _edge_scores(n_bins, score_bins)
    scores = [
        None if null_scores[i] else float(edge[picks[i] % edge.size]) for i in range(df.height)
    ]
    df = df.with_columns(pl.Series("s", scores, dtype=pl.Float64))
    kw: dict[str, Any] = {
        "y_true": "y_true", "y_pred": "y_pred", "y_prob": "s", "sensitive_features": "g",
        "sample_weight": "w" if weighted else None, "n_bins": n_bins, "score_bins": score_bins,
    }  # fmt: skip
    flagged = _fused(df, engine, **kw)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fused, "_FLAGGED_MAX", 0)  # the direct code, bin_index per row
        direct = _fused(df, engine, **kw)
    for got, want in zip(flagged, direct, strict=True):
        _same(got, want)
