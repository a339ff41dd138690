"""Slice discovery, review fixes: Kish sizes for weighted means, tied quantile bins,
slices identical to their parent, the warnings when nothing is tested or rows are excluded.

The references are numpy computations written from the definitions (no polars_fair code).
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401
from polars_fair.exceptions import DegenerateDataWarning, NullDataWarning

Z95 = 1.959963984540054  # the standard normal 97.5% quantile


# ---- numpy references -----------------------------------------------------------------


def kish_welch(
    values: np.ndarray, weights: np.ndarray, mask: np.ndarray
) -> tuple[float, float, float, float, float]:
    """Weighted Welch test of the slice `mask` against the rest, on Kish effective sizes.

    Each side: weighted mean ``sum(w y) / sum(w)``, Kish size ``n_eff = sum(w)^2 /
    sum(w^2)``, variance ``n_eff / (n_eff - 1) * sum(w (y - mean)^2) / sum(w)`` (the
    unbiased sample variance when all weights are equal), and the difference of means
    with standard error ``sqrt(s_s^2 / n_eff_s + s_r^2 / n_eff_r)``.
    Returns (difference, standard error, p-value, n_eff slice, n_eff rest).
    """
    out = []
    for side in (mask, ~mask):
        y, w = values[side], weights[side]
        total = w.sum()
        mean = (w * y).sum() / total
        n_eff = total**2 / (w**2).sum()
        var = n_eff / (n_eff - 1) * (w * (y - mean) ** 2).sum() / total
        out.append((mean, var, n_eff))
    (m1, v1, e1), (m2, v2, e2) = out
    d = m1 - m2
    se = math.sqrt(v1 / e1 + v2 / e2)
    return d, se, math.erfc(abs(d / se) / math.sqrt(2)), e1, e2


def kish_size(weights: np.ndarray) -> float:
    return float(weights.sum() ** 2 / (weights**2).sum())


def parse_slice(text: str) -> list[tuple[str, str]]:
    return [tuple(part.split("=", 1)) for part in text.split(" & ")]  # type: ignore[misc]


def bin_mask(col: np.ndarray, label: str) -> np.ndarray:
    """Rows of a numeric bin, from its label: ``{v}``, ``[a, b)``, ``(a, b)``, ``(-inf, b)``."""
    finite = ~np.isnan(col)
    point = re.fullmatch(r"\{(\S+)\}", label)
    if point:
        return finite & (col == float(point.group(1)))
    interval = re.fullmatch(r"([\[(])(\S+), (\S+)\)", label)
    assert interval, label
    low, high = float(interval.group(2)), float(interval.group(3))
    above = col >= low if interval.group(1) == "[" else col > low
    with np.errstate(invalid="ignore"):
        return finite & above & (col < high)


def mask_of(data: dict[str, np.ndarray], conditions: list[tuple[str, str]]) -> np.ndarray:
    mask = np.ones(len(next(iter(data.values()))), dtype=bool)
    for name, value in conditions:
        col = data[name]
        if value == "null":
            mask &= np.isnan(col) if col.dtype.kind == "f" else np.array([v is None for v in col])
        elif col.dtype.kind == "f":
            mask &= bin_mask(col, value)
        else:
            mask &= np.array([v is not None and str(v) == value for v in col])
    return mask


def weighted_frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    t = rng.normal(0, 1, n)
    return pl.DataFrame(
        {
            "a": a,
            "b": rng.choice(["p", "q"], n),
            "t": t,
            "s": t + 0.25 * (a == "x") + rng.normal(0, 1, n),
            "w": rng.gamma(0.7, 2.0, n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
        }
    )


# ---- 1. weighted means: Kish effective sizes -------------------------------------------


@pytest.mark.parametrize("metric", ["mean_prediction", "mean_true", "mae"])
def test_weighted_means_match_kish_welch_reference(metric: str) -> None:
    df = weighted_frame(3_000, seed=41)
    min_size = 300.0
    out = df.fair.slices(
        y_true="t", y_pred="s", candidates=["a", "b"], metric=metric, sample_weight="w",
        min_size=min_size,
    )  # fmt: skip
    pred, true, w = df["s"].to_numpy(), df["t"].to_numpy(), df["w"].to_numpy()
    column = {"mean_prediction": pred, "mean_true": true, "mae": np.abs(pred - true)}[metric]
    data = {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()}
    tested = 0
    for a in [*np.unique(data["a"]), None]:
        for b in [*np.unique(data["b"]), None]:
            conditions = [(k, v) for k, v in (("a", a), ("b", b)) if v is not None]
            if conditions:
                mask = mask_of(data, conditions)
                tested += min(kish_size(w[mask]), kish_size(w[~mask])) >= min_size
    assert 0 < out.height == tested == out["n_tested"][0]
    assert out["n_untested"][0] == 3 + 2 + 6 - tested
    for row in out.iter_rows(named=True):
        mask = mask_of(data, parse_slice(row["slice"]))
        d, se, p, e1, e2 = kish_welch(column, w, mask)
        assert min(e1, e2) >= min_size
        assert row["n"] == pytest.approx(w[mask].sum(), rel=1e-12)
        assert row["difference"] == pytest.approx(d, rel=1e-9, abs=1e-12)
        assert row["ci_low"] == pytest.approx(d - Z95 * se, rel=1e-7, abs=1e-12)
        assert row["ci_high"] == pytest.approx(d + Z95 * se, rel=1e-7, abs=1e-12)
        assert row["p_value"] == pytest.approx(p, rel=1e-6)


def test_constant_weights_give_the_unweighted_tests() -> None:
    """The repro: constant weights of 1000 made every slice significant."""
    df = weighted_frame(2_000, seed=0)
    kw: dict[str, Any] = dict(y_true="t", y_pred="s", candidates=["a", "b"], min_size=30)
    cols = ["slice", "p_value", "q_value", "ci_low", "ci_high", "n_tested", "n_untested"]
    for metric in ("mean_prediction", "mae", "false_positive_rate"):
        if metric == "false_positive_rate":
            kw = {**kw, "y_true": "y", "y_pred": "p"}
        plain = df.fair.slices(**kw, metric=metric).sort("slice").select(cols)
        for scale in (1.0, 1000.0):
            weighted = (
                df.with_columns(c=pl.lit(scale))
                .fair.slices(**kw, metric=metric, sample_weight="c")
                .sort("slice")
                .select(cols)
            )
            assert_frame_equal(weighted, plain, rel_tol=1e-9)


_SCALE_COLS = ["slice", "p_value", "q_value", "ci_low", "ci_high", "significant", "n_tested",
               "n_untested"]  # fmt: skip
_SCALE_FRAME = weighted_frame(1_500, seed=43)


def _scaled(metric: str, scale: float) -> pl.DataFrame:
    kw: dict[str, Any] = dict(candidates=["a", "b"], metric=metric, min_size=200, top=None)
    if metric == "selection_rate":
        kw |= dict(y_true="y", y_pred="p")
    else:
        kw |= dict(y_true="t", y_pred="s")
    frame = _SCALE_FRAME.with_columns(pl.col("w") * scale)
    return frame.fair.slices(**kw, sample_weight="w").sort("slice").select(_SCALE_COLS)


@settings(max_examples=20)
@given(
    scale=st.floats(min_value=1e-3, max_value=1e6, allow_nan=False),
    metric=st.sampled_from(["mean_prediction", "mean_true", "mae", "selection_rate"]),
)
def test_rescaling_weights_changes_no_test(scale: float, metric: str) -> None:
    assert_frame_equal(_scaled(metric, scale), _scaled(metric, 1.0), rel_tol=1e-7, abs_tol=1e-12)


def test_slices_docstring_says_sampling_weights() -> None:
    doc = pl.DataFrame.fair.slices.__doc__ if hasattr(pl.DataFrame, "fair") else None
    doc = doc or polars_fair.fair(pl.DataFrame({"a": [1]})).slices.__doc__
    assert doc is not None
    assert "frequency weights" not in doc
    assert "Kish" in doc


# ---- 2. tied quantile breakpoints, slices identical to their parent -----------------


def zero_inflated(n: int = 4_000, seed: int = 47) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    count = np.where(rng.random(n) < 0.95, 0, rng.integers(1, 6, n))
    y = rng.integers(0, 2, n)
    return pl.DataFrame(
        {
            "juv": count,
            "sex": rng.choice(["Female", "Male"], n),
            "y": y,
            "p": (rng.random(n) < np.where(count > 0, 0.6, 0.3)).astype(int),
        }
    )


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
def test_zero_inflated_candidate_gets_distinct_bins(kind: str) -> None:
    df = zero_inflated()
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["juv", "sex"], min_size=0)
    if kind == "eager":
        out = df.fair.slices(**kw)
    else:
        engine = "in-memory" if kind == "lazy" else "streaming"
        out = df.lazy().fair.slices(**kw).collect(engine=engine)
    juv = out.filter(pl.col("depth") == 1, pl.col("attributes").list.contains("juv"))
    assert sorted(juv["slice"]) == ["juv=(0, inf)", "juv={0}"]
    counts = df["juv"].to_numpy()
    for row in juv.iter_rows(named=True):
        want = (counts == 0).sum() if row["slice"] == "juv={0}" else (counts > 0).sum()
        assert row["n"] == want
    # depth 2: juv x sex, each one distinct from both parents
    assert out.filter(pl.col("depth") == 2).height == 4
    assert out["n_tested"][0] == 2 + 2 + 4


def test_no_slice_is_identical_to_its_parent() -> None:
    """The repro: a candidate in one bin duplicated every slice of the others."""
    rng = np.random.default_rng(53)
    n = 3_000
    df = pl.DataFrame(
        {
            "const": np.full(n, 7.0),  # one value: one bin, the whole data
            "sex": rng.choice(["Female", "Male"], n),
            "r": rng.choice(["u", "v", "w"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
        }
    ).with_columns(
        # every 'w' is Male: `r=w & sex=Male` is `r=w`
        sex=pl.when(pl.col("r") == "w").then(pl.lit("Male")).otherwise(pl.col("sex"))
    )
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["const", "sex", "r"], min_size=0)
    with pytest.warns(DegenerateDataWarning, match=r"'const'.*single value"):
        out = df.fair.slices(**kw)
    assert not any("const" in s for s in out["slice"])
    assert "sex=Male & r=w" not in out["slice"].to_list()
    assert "r=w" in out["slice"].to_list()
    data = {c: df[c].to_numpy() for c in ("const", "sex", "r")}
    masks = {row["slice"]: mask_of(data, parse_slice(row["slice"])) for row in out.to_dicts()}
    for name, mask in masks.items():
        conditions = parse_slice(name)
        assert 0 < mask.sum() < n  # never the whole data
        for i in range(len(conditions)):
            parent = conditions[:i] + conditions[i + 1 :]
            if parent:
                assert (mask != mask_of(data, parent)).any(), (name, parent)
    # sex, r, and sex x r less `sex=Female & r=w` (no rows) and `sex=Male & r=w` (= `r=w`)
    expected = 2 + 3 + (2 * 3 - 2)
    assert out.height == out["n_tested"][0] == expected
    assert out["n_untested"][0] == 0
    # the lazy path gives the same table, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lazy = df.lazy().fair.slices(**kw).collect()
    assert_frame_equal(lazy, out)


def test_tied_breakpoints_follow_the_rule() -> None:
    """Breakpoints = 'lower' quantiles; one shared by several levels (the minimum
    counting as level 0) is a bin of its own, and the next bin opens after it."""
    values = np.array([0.0] * 30 + [5.0] * 50 + list(np.arange(6.0, 26.0)))
    rng = np.random.default_rng(59)
    rng.shuffle(values)
    n = len(values)
    df = pl.DataFrame({"v": values, "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})
    out = df.fair.slices(y_true="y", y_pred="p", candidates=["v"], min_size=0, n_bins=4)
    # lower quantiles at 0, .25, .5, .75: [0, 0, 5, 5] -> {0}, (0, 5) (empty), {5}, (5, inf)
    ordered = np.sort(values)
    levels = [ordered[math.floor(q * (n - 1))] for q in (0.0, 0.25, 0.5, 0.75)]
    assert levels == [0.0, 0.0, 5.0, 5.0]
    assert sorted(out["slice"]) == ["v=(5.0, inf)", "v={0.0}", "v={5.0}"]
    for row in out.iter_rows(named=True):
        assert row["n"] == bin_mask(values, row["slice"][2:]).sum()


def test_untied_bins_unchanged() -> None:
    values = np.arange(100.0)
    df = pl.DataFrame({"v": values, "y": [0, 1] * 50, "p": [1, 0, 0, 1] * 25})
    out = df.fair.slices(y_true="y", y_pred="p", candidates=["v"], min_size=0, n_bins=4)
    expected = ["v=(-inf, 24.0)", "v=[24.0, 49.0)", "v=[49.0, 74.0)", "v=[74.0, inf)"]
    assert sorted(out["slice"]) == sorted(expected)


# ---- 3. nothing tested ------------------------------------------------------------------


def test_no_slice_tested_warns_with_counts() -> None:
    df = weighted_frame(600, seed=61)
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["a", "b"], min_size=5_000)
    with pytest.warns(DegenerateDataWarning, match=r"no slice was tested.*11 slices.*5000"):
        out = df.fair.slices(**kw)
    assert out.height == 0
    assert out.columns == df.fair.slices(**{**kw, "min_size": 0}).columns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert df.lazy().fair.slices(**kw).collect().height == 0


# ---- 4. the null-rows warning names bins by their labels ---------------------------


def test_null_warning_shows_bin_labels() -> None:
    df = pl.DataFrame(
        {
            "x": [1.0, 2.0, 3.0, 4.0] * 25,
            "g": ["a", "b"] * 50,
            "yt": [0, 1, None, 0] * 25,
            "yp": [1, 0, 1, 1] * 25,
        }
    )
    with pytest.warns(NullDataWarning) as record:
        df.fair.slices(y_true="yt", y_pred="yp", candidates=["x", "g"], min_size=0)
    message = str(record[0].message)
    assert "'[3.0, inf) / a'" in message  # the bin's label, joined as the tables name it
    assert "'bin'" not in message
    assert "left" not in message


def test_weighted_regression_table_with_squares_matches_slices() -> None:
    from polars_fair.metrics import slices_from_stats
    from polars_fair.reduce_regression import regression_stats

    df = weighted_frame(2_000, seed=67)
    kw: dict[str, Any] = dict(candidates=["a", "b"], metric="mae", min_size=100)
    on_rows = df.fair.slices(y_true="t", y_pred="s", sample_weight="w", **kw)
    stats = regression_stats(
        df, y_pred="s", y_true="t", sensitive_features=["a", "b"], sample_weight="w",
        weight_squares=True,
    )  # fmt: skip
    squares = df.group_by("a", "b").agg((pl.col("w") ** 2).sum().alias("sum_w2"))
    assert_frame_equal(
        stats.select("a", "b", "sum_w2").collect(), squares, check_row_order=False, rel_tol=1e-12
    )
    from_table = slices_from_stats(stats, **kw).collect()
    assert_frame_equal(from_table, on_rows.drop("strategy"), rel_tol=1e-9)
