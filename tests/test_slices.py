"""Slice discovery: counts, tests and corrections against numpy references written from the definitions."""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401
from polars_fair import group_stats
from polars_fair.exceptions import ColumnNotFoundError, InvalidParameterError
from polars_fair.metrics import slices_from_stats
from polars_fair.reduce_regression import regression_stats
from tests.reference_stats import effective_size

Z95 = 1.959963984540054  # the standard normal 97.5% quantile


# ---- numpy references, from the definitions (no polars_fair code) ------------------


def ref_p_two_proportions(x1: float, m1: float, x2: float, m2: float) -> float:
    """Two-sided p-value of the pooled two-proportion z test."""
    p1, p2 = x1 / m1, x2 / m2
    pooled = (x1 + x2) / (m1 + m2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / m1 + 1 / m2))
    if se == 0:
        return 1.0
    return math.erfc(abs(p1 - p2) / se / math.sqrt(2))


def ref_wilson(x: float, m: float, z: float) -> tuple[float, float]:
    p = x / m
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    low = 0.0 if x == 0 else max(centre - half, 0.0)
    high = 1.0 if x == m else min(centre + half, 1.0)
    return low, high


def ref_newcombe(x1: float, m1: float, x2: float, m2: float, z: float) -> tuple[float, float]:
    p1, p2 = x1 / m1, x2 / m2
    l1, u1 = ref_wilson(x1, m1, z)
    l2, u2 = ref_wilson(x2, m2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def ref_bh(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg q-values by the textbook loop."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    q = np.empty(m)
    running = 1.0
    for i in range(m - 1, -1, -1):
        running = min(running, p[order[i]] * m / (i + 1))
        q[order[i]] = running
    return q


def ref_holm(p: np.ndarray) -> np.ndarray:
    """Holm adjusted p-values by the textbook loop."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for i in range(m):
        running = max(running, min(1.0, (m - i) * p[order[i]]))
        adj[order[i]] = running
    return adj


def parse_slice(text: str) -> list[tuple[str, str]]:
    return [tuple(part.split("=", 1)) for part in text.split(" & ")]  # type: ignore[misc]


def numpy_mask(data: dict[str, np.ndarray], conditions: list[tuple[str, str]]) -> np.ndarray:
    """Rows of the slice, from the readable label, by filtering numpy arrays."""
    mask = np.ones(len(next(iter(data.values()))), dtype=bool)
    for name, value in conditions:
        col = data[name]
        interval = re.fullmatch(r"([\[(])(\S+), (\S+)\)", value)
        if col.dtype.kind in "if" and interval:
            low, high = float(interval.group(2)), float(interval.group(3))
            with np.errstate(invalid="ignore"):
                mask &= ~np.isnan(col) & (col >= low) & (col < high)
        elif value == "null" and col.dtype.kind == "f":
            mask &= np.isnan(col)
        elif value == "null":
            mask &= np.array([v is None for v in col])
        else:
            mask &= np.array([v is not None and str(v) == value for v in col])
    return mask


def make_frame(n: int, seed: int, *, null_attr: bool = True) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n).astype(object)
    if null_attr:
        a[rng.random(n) < 0.05] = None
    age = rng.integers(18, 80, n).astype(float)
    age[rng.random(n) < 0.03] = np.nan
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.where(a == "x", 0.4, 0.2)).astype(int)
    return pl.DataFrame(
        {
            "a": list(a),
            "b": rng.choice(["p", "q"], n),
            "age": pl.Series(age).fill_nan(None),
            "y": y,
            "p": p,
            "w": rng.integers(1, 4, n),
        }
    )


# ---- the planted intersection ------------------------------------------------------


def planted_frame(n: int = 100_000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    cards = [3, 3, 3, 2, 4, 5, 2, 3]
    cols = {f"a{i}": rng.integers(0, k, n) for i, k in enumerate(cards)}
    inside = (cols["a0"] == 0) & (cols["a1"] == 0) & (cols["a2"] == 0)
    y = rng.integers(0, 2, n)
    fpr = np.where(inside, 0.5, 0.1)
    pred = np.where(y == 1, rng.random(n) < 0.7, rng.random(n) < fpr).astype(int)
    frame = pl.DataFrame({k: v.astype(str) for k, v in cols.items()})
    return frame.with_columns(pl.Series("y", y), pl.Series("p", pred))


def test_planted_intersection_is_rank_one() -> None:
    df = planted_frame()
    out = df.fair.slices(
        y_true="y", y_pred="p", candidates=[f"a{i}" for i in range(8)], max_depth=3, top=5
    )
    first = out.row(0, named=True)
    assert first["depth"] == 3
    assert first["slice"] == "a0=0 & a1=0 & a2=0"
    assert first["significant"]
    assert first["value"] == pytest.approx(0.5, abs=0.05)
    assert first["rest_value"] == pytest.approx(0.1, abs=0.01)
    cards = [3, 3, 3, 2, 4, 5, 2, 3]
    every = sum(
        math.prod(cards[i] for i in subset)
        for depth in (1, 2, 3)
        for subset in itertools.combinations(range(8), depth)
    )
    assert first["n_tested"] + first["n_untested"] == every
    assert first["ci_low"] < first["difference"] < first["ci_high"]


# ---- no effect: discoveries stay near alpha ------------------------------------------


def null_runs(seeds: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(12345)
    size = seeds * n
    return pl.DataFrame(
        {
            "seed": np.repeat(np.arange(seeds), n),
            "a": rng.choice(["x", "y", "z"], size),
            "b": rng.choice(["p", "q"], size),
            "c": rng.choice(["u", "v", "w", "t"], size),
            "y": np.zeros(size, dtype=int),
            "p": (rng.random(size) < 0.2).astype(int),
        }
    )


@pytest.mark.parametrize("correction", ["bh", "holm"])
# all labels negative on purpose (false positive rates only): the eager path says so
@pytest.mark.filterwarnings("ignore::polars_fair.exceptions.DegenerateDataWarning")
def test_no_effect_discoveries_near_alpha(correction: str) -> None:
    seeds, alpha = 400, 0.1
    df = null_runs(seeds, 600)
    out = df.fair.slices(
        y_true="y", y_pred="p", candidates=["a", "b", "c"], by="seed", alpha=alpha,
        correction=correction,
    )  # fmt: skip
    # under the global null, FDR control means P(any discovery) <= alpha
    any_discovery = out.group_by("seed").agg(pl.col("significant").any())["significant"]
    rate = any_discovery.mean()
    assert isinstance(rate, float)
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / seeds)
    # and the raw p-values are calibrated: about 5% below 0.05 (not a vacuous test)
    share = (out["p_value"] < 0.05).mean()
    assert isinstance(share, float)
    assert 0.03 < share < 0.07
    # without correction, some seed would nearly always "discover" something
    raw_any = out.group_by("seed").agg((pl.col("p_value") <= alpha).any())["p_value"].mean()
    assert isinstance(raw_any, float)
    assert raw_any > 2 * alpha


# ---- counts against a direct filter-and-count ----------------------------------------


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
def test_counts_and_tests_match_numpy(kind: str) -> None:
    df = make_frame(3_000, seed=7)
    kw: dict[str, Any] = dict(
        y_true="y", y_pred="p", candidates=["a", "b", "age"], max_depth=3, min_size=20
    )
    if kind == "eager":
        out = df.fair.slices(**kw)
    else:
        engine = "in-memory" if kind == "lazy" else "streaming"
        out = df.lazy().fair.slices(**kw).collect(engine=engine)
    data = {c: df[c].to_numpy() for c in ("a", "b", "age")}
    data["a"] = np.array(df["a"].to_list(), dtype=object)
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    neg_fp = (y == 0) & (p == 1)
    neg = y == 0
    assert out.height > 20
    for row in out.iter_rows(named=True):
        mask = numpy_mask(data, parse_slice(row["slice"]))
        assert row["depth"] == len(parse_slice(row["slice"]))
        assert row["n"] == mask.sum()
        assert row["rest_n"] == (~mask).sum()
        x1, m1 = neg_fp[mask].sum(), neg[mask].sum()
        x2, m2 = neg_fp[~mask].sum(), neg[~mask].sum()
        assert row["value"] == pytest.approx(x1 / m1, rel=1e-12)
        assert row["rest_value"] == pytest.approx(x2 / m2, rel=1e-12)
        assert row["difference"] == pytest.approx(x1 / m1 - x2 / m2, rel=1e-9, abs=1e-15)
        assert row["p_value"] == pytest.approx(ref_p_two_proportions(x1, m1, x2, m2), rel=1e-9)
        low, high = ref_newcombe(x1, m1, x2, m2, Z95)
        assert row["ci_low"] == pytest.approx(low, rel=1e-9)
        assert row["ci_high"] == pytest.approx(high, rel=1e-9)


def test_every_slice_is_present_and_untested_counted() -> None:
    df = make_frame(2_000, seed=3)
    out = df.fair.slices(y_true="y", y_pred="p", candidates=["a", "b"], min_size=0)
    a_values = df["a"].unique().to_list()  # includes null: its own slice value
    b_values = df["b"].unique().to_list()
    expected = len(a_values) + len(b_values) + len(a_values) * len(b_values)
    assert out.height == expected == out["n_tested"][0]
    strict = df.fair.slices(y_true="y", y_pred="p", candidates=["a", "b"], min_size=200)
    small = sum(1 for r in out.iter_rows(named=True) if r["n"] < 200 or r["rest_n"] < 200)
    assert strict["n_untested"][0] == small
    assert strict.height == expected - small


def test_bins_follow_numpy_quantile_rule() -> None:
    df = make_frame(1_001, seed=5)
    out = df.fair.slices(y_true="y", y_pred="p", candidates=["age"], n_bins=4, min_size=0)
    values = np.sort(df["age"].drop_nulls().to_numpy())
    breaks = [values[math.floor(q * (len(values) - 1))] for q in (0.25, 0.5, 0.75)]
    fmt = [str(int(b)) + ".0" for b in breaks]
    expected = {
        f"age=(-inf, {fmt[0]})", f"age=[{fmt[0]}, {fmt[1]})", f"age=[{fmt[1]}, {fmt[2]})",
        f"age=[{fmt[2]}, inf)", "age=null",
    }  # fmt: skip
    assert set(out["slice"]) == expected


# ---- corrections ------------------------------------------------------------------


@pytest.mark.parametrize("correction", ["bh", "holm"])
def test_q_values_match_reference(correction: str) -> None:
    df = make_frame(4_000, seed=11)
    out = df.fair.slices(
        y_true="y", y_pred="p", candidates=["a", "b", "age"], max_depth=3, correction=correction
    )
    p = out["p_value"].to_numpy()
    ref = ref_bh(p) if correction == "bh" else ref_holm(p)
    np.testing.assert_allclose(out["q_value"].to_numpy(), ref, rtol=1e-12)
    assert (out["significant"].to_numpy() == (ref <= 0.05)).all()


def test_by_keys_are_separate_families() -> None:
    df = pl.concat(
        [make_frame(2_000, seed=s).with_columns(pl.lit(f"m{s}").alias("model")) for s in (1, 2)]
    )
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["a", "b"])
    both = df.fair.slices(**kw, by="model")
    for key in ("m1", "m2"):
        alone = df.filter(pl.col("model") == key).fair.slices(**kw)
        assert_frame_equal(both.filter(pl.col("model") == key).drop("model"), alone)


@pytest.mark.parametrize("direction", ["both", "higher", "lower"])
def test_ranking_significant_first_then_effect(direction: str) -> None:
    df = planted_frame(20_000, seed=2)
    out = df.fair.slices(
        y_true="y", y_pred="p", candidates=["a0", "a1", "a2", "a3"], max_depth=3,
        direction=direction,
    )  # fmt: skip
    sig = out["significant"].to_list()
    assert sig == sorted(sig, reverse=True)
    d = out["difference"].to_numpy()
    effect = {"both": np.abs(d), "higher": d, "lower": -d}[direction]
    for flag in (True, False):
        e = effect[out["significant"].to_numpy() == flag].round(10)
        assert (np.diff(e) <= 0).all()
    assert out["rank"].to_list() == list(range(1, out.height + 1))
    if direction != "lower":
        assert out["slice"][0] == "a0=0 & a1=0 & a2=0"


# ---- engines, strategies, weights, tables ---------------------------------------------


@pytest.mark.parametrize("metric", ["false_positive_rate", "mae"])
@pytest.mark.parametrize("strategy", ["finest", "subsets"])
def test_engines_and_strategies_agree(run: Any, strategy: str, metric: str) -> None:
    df = make_frame(3_000, seed=13).with_columns(
        pl.when(pl.int_range(pl.len()) % 3 == 0)
        .then(pl.lit("k1"))
        .otherwise(pl.lit("k2"))
        .alias("model")
    )
    kw: dict[str, Any] = dict(
        y_true="y", y_pred="p", candidates=["a", "b", "age"], max_depth=2, by="model",
        metric=metric,
    )  # fmt: skip
    expected = df.fair.slices(**kw, strategy="finest")
    got = run(df, "slices", **kw, strategy=strategy)
    assert got["strategy"][0] == strategy
    assert_frame_equal(got.drop("strategy"), expected.drop("strategy"))


def test_integer_weights_equal_repeated_rows() -> None:
    df = make_frame(1_500, seed=17)
    repeated = df.select(pl.all().repeat_by("w").explode())
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["a", "b"], min_size=0)
    weighted = df.fair.slices(**kw, sample_weight="w")
    plain = repeated.fair.slices(**kw)
    # sampling weights (the default, issue 13): the same values, Kish-sized intervals
    same = ["slice", "value", "rest_value", "difference"]
    assert_frame_equal(weighted.select(same), plain.select(same), check_dtypes=False, rel_tol=1e-9)
    np.testing.assert_allclose(weighted["n"].to_numpy(), plain["n"].to_numpy())
    # read as frequency weights (no sum of squared weights): the repeated rows exactly
    stats = group_stats(df, y_true="y", y_pred="p", sensitive_features=["a", "b"],
                        sample_weight="w").drop("sum_w2")  # fmt: skip
    counts = slices_from_stats(stats, candidates=["a", "b"], min_size=0).collect()
    assert_frame_equal(
        counts.drop("n", "rest_n"), plain.drop("n", "rest_n", "strategy"), check_dtypes=False,
        rel_tol=1e-9,
    )  # fmt: skip


def test_slices_from_stats_equal_slices_on_rows() -> None:
    df = make_frame(2_500, seed=19)
    stats = group_stats(df, y_true="y", y_pred="p", sensitive_features=["a", "b"])
    from_stats = slices_from_stats(stats, candidates=["a", "b"], metric="true_positive_rate")
    on_rows = df.fair.slices(
        y_true="y", y_pred="p", candidates=["a", "b"], metric="true_positive_rate"
    )
    assert_frame_equal(from_stats.collect(), on_rows.drop("strategy"))


@pytest.mark.parametrize("metric", ["mean_prediction", "mean_true", "mae"])
def test_means_match_welch_reference(metric: str) -> None:
    rng = np.random.default_rng(23)
    n = 3_000
    df = pl.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.choice(["p", "q"], n),
            "t": rng.normal(0, 1, n),
        }
    ).with_columns(
        (pl.col("t") + 0.3 * (pl.col("a") == "x") + pl.Series(rng.normal(0, 1, n))).alias("s")
    )
    out = df.fair.slices(y_true="t", y_pred="s", candidates=["a", "b"], metric=metric)
    pred, true = df["s"].to_numpy(), df["t"].to_numpy()
    column = {"mean_prediction": pred, "mean_true": true, "mae": np.abs(pred - true)}[metric]
    data = {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()}
    for row in out.iter_rows(named=True):
        mask = numpy_mask(data, parse_slice(row["slice"]))
        s, r = column[mask], column[~mask]
        d = s.mean() - r.mean()
        se = math.sqrt(s.var(ddof=1) / len(s) + r.var(ddof=1) / len(r))
        assert row["difference"] == pytest.approx(d, rel=1e-9, abs=1e-12)
        assert row["ci_low"] == pytest.approx(d - Z95 * se, rel=1e-7, abs=1e-12)
        assert row["p_value"] == pytest.approx(math.erfc(abs(d / se) / math.sqrt(2)), rel=1e-6)
    stats = regression_stats(df, y_pred="s", y_true="t", sensitive_features=["a", "b"])
    from_stats = slices_from_stats(stats, candidates=["a", "b"], metric=metric).collect()
    assert_frame_equal(from_stats, out.drop("strategy"))


def test_top_keeps_best_ranked() -> None:
    df = make_frame(2_000, seed=29)
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["a", "b"])
    assert_frame_equal(df.fair.slices(**kw, top=3), df.fair.slices(**kw).head(3))


def test_lazy_returns_lazyframe() -> None:
    lf = make_frame(500, seed=1).lazy()
    out = lf.fair.slices(y_true="y", y_pred="p", candidates=["a"])
    assert isinstance(out, pl.LazyFrame)


def test_auto_strategy_from_schema() -> None:
    from polars_fair.reduce.slices import MAX_FINEST_CELLS, choose_strategy

    wide = pl.Enum([str(i) for i in range(100)])
    schema = pl.Schema({f"c{i}": wide for i in range(5)})
    names = list(schema.names())
    assert 101**5 > MAX_FINEST_CELLS
    assert choose_strategy("auto", schema, names, 2, 4) == "subsets"
    assert choose_strategy("auto", schema, names[:2], 2, 4) == "finest"
    small = pl.Schema({f"c{i}": pl.String for i in range(5)})
    assert choose_strategy("auto", small, names, 2, 4) == "finest"


# ---- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        (
            {"candidates": "a"},
            InvalidParameterError,
            r"`candidates` must be a list.*Hint: `candidates=\['a'\]`",
        ),
        ({"candidates": []}, InvalidParameterError, r"non-empty list"),
        ({"candidates": ["a", "a"]}, InvalidParameterError, r"'a' appears more than once"),
        ({"candidates": ["nope"]}, ColumnNotFoundError, r"column 'nope' \(given as `candidates`\)"),
        (
            {"candidates": ["a"], "by": "a"},
            InvalidParameterError,
            r"'a' is both a candidate and a `by` key",
        ),
        ({"candidates": ["l"]}, InvalidParameterError, r"candidate column 'l' has dtype List"),
        (
            {"metric": "f1"},
            InvalidParameterError,
            r"`metric` must be one of .*got 'f1'.*Hint: slices compare",
        ),
        ({"max_depth": 0}, InvalidParameterError, r"`max_depth` must be a positive integer, got 0"),
        ({"max_depth": True}, InvalidParameterError, r"`max_depth` must be a positive integer"),
        (
            {"alpha": 1.5},
            InvalidParameterError,
            r"`alpha` must be a float strictly between 0 and 1",
        ),
        ({"top": 0}, InvalidParameterError, r"`top` must be None or a positive integer"),
        ({"min_size": -1}, InvalidParameterError, r"`min_size` must be a non-negative number"),
        (
            {"correction": "bonferroni"},
            InvalidParameterError,
            r"`correction` must be 'bh' or 'holm'",
        ),
        ({"strategy": "fast"}, InvalidParameterError, r"`strategy` must be one of"),
        ({"n_bins": 1}, InvalidParameterError, r"`n_bins` must be an integer >= 2"),
        (
            {"direction": "up"},
            InvalidParameterError,
            r"`direction` must be 'both', 'higher' or 'lower'",
        ),
        ({"metric": "mae", "y_true": None}, InvalidParameterError, r"'mae' needs `y_true`"),
        (
            {"y_true": None},
            InvalidParameterError,
            r"'false_positive_rate' cannot be computed.*Hint: pass both",
        ),
    ],
)
def test_errors(kwargs: dict[str, Any], error: type[Exception], pattern: str) -> None:
    df = make_frame(100, seed=1).with_columns(
        pl.lit([1]).alias("l"), pl.lit("s").alias("slice"), pl.lit(1).alias("rank")
    )
    params: dict[str, Any] = dict(y_true="y", y_pred="p", candidates=["a", "b"])
    params.update(kwargs)
    with pytest.raises(error, match=re.compile(pattern, re.S)):
        df.lazy().fair.slices(**params)


def test_stats_table_without_candidate_errors() -> None:
    stats = group_stats(make_frame(100, seed=1), y_true="y", y_pred="p", sensitive_features="a")
    pattern = re.compile(r"no column\(s\) \['b'\].*Hint: make it at the crossing", re.S)
    with pytest.raises(InvalidParameterError, match=pattern):
        slices_from_stats(stats, candidates=["a", "b"])
    with pytest.raises(InvalidParameterError, match=r"needs the regression sums"):
        slices_from_stats(stats, candidates=["a"], metric="mean_prediction")


# ---- report and command line -----------------------------------------------------------


def test_report_slices_table_and_gate() -> None:
    from polars_fair.datasets import load_compas

    compas = load_compas()
    kw: dict[str, Any] = dict(y_true="two_year_recid", y_pred="y_pred")
    report = compas.lazy().fair.report(
        **kw, sensitive_features="race", slices=["race", "sex", "age_cat"], max_depth=2
    )
    assert report.slices is not None
    direct = compas.fair.slices(
        **kw, candidates=["race", "sex", "age_cat"], max_depth=2, min_size=30, alpha=1 - 0.95
    )
    assert_frame_equal(report.slices, direct)
    failures = report.slice_failures()
    assert len(failures) == direct["significant"].sum() > 0
    assert failures[0].startswith("slice race=African-American & age_cat=Less than 25:")
    page = report.to_html()
    assert "Worst slices" in page
    assert "ci_low" in page
    assert "race=African-American &amp; age_cat=Less than 25" in page
    assert "## Worst slices" in report.to_markdown()
    plain = compas.fair.report(**kw, sensitive_features="race")
    assert plain.slices is None
    assert plain.slice_failures() == []


def test_report_spec_slices_plan_public_steps() -> None:
    """Slices are one more plan of the spec: one read, the public steps, the sums."""
    import polars_fair as pf

    rng = np.random.default_rng(7)
    n = 4000
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "s": rng.choice(["x", "y", "z"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "v": rng.normal(size=n),
            "w": rng.normal(size=n),
        }
    )
    spec = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g", slices=["g", "s"])
    assert spec.slices == ("g", "s")
    assert pf.ReportSpec.of(**spec.to_dict()).slices == ("g", "s")
    plain = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g")
    # the slices add one reduction, collected with the others (one read of the source)
    assert len(pf.report_reductions(df, spec)) == len(pf.report_reductions(df, plain)) + 1
    whole = df.fair.report(y_true="y", y_pred="p", sensitive_features="g", slices=["g", "s"])
    assert whole.params["slices"] == ["g", "s"]
    assert "slices" not in df.fair.report(y_true="y", y_pred="p", sensitive_features="g").params
    tables = pl.collect_all(pf.report_reductions(df, spec))
    assert_frame_equal(pf.derive_report(spec, tables, df.schema).slices, whole.slices)
    # additive over pieces: the statistics table, and the regression sums of a mean
    halves = (df.head(1500), df.tail(n - 1500))
    for sp in (spec, dataclasses.replace(spec, slice_metric="mae")):
        parts = [pl.collect_all(pf.report_reductions(h, sp)) for h in halves]
        derived = pf.derive_report(sp, pf.sum_reductions(*parts), df.schema)
        direct = pf.derive_report(sp, pl.collect_all(pf.report_reductions(df, sp)), df.schema)
        assert derived.slices is not None
        assert_frame_equal(derived.slices, direct.slices, check_exact=False)
    assert_frame_equal(direct.slices, df.fair.slices(  # the mean's slices, on rows
        y_true="y", y_pred="p", candidates=["g", "s"], metric="mae", min_size=30, alpha=0.05
    ).with_columns(pl.lit("finest").alias("strategy")), check_exact=False)  # fmt: skip
    # quantile bins of each piece do not add up: a clear error rather than wrong sums
    binned = dataclasses.replace(spec, slices=("g", "v"))
    parts = [pl.collect_all(pf.report_reductions(h, binned)) for h in halves]
    with pytest.raises(InvalidParameterError, match="quantiles of each piece"):
        pf.sum_reductions(*parts)


def test_cli_slices_and_fail_on_slices(capsys: pytest.CaptureFixture[str]) -> None:
    from polars_fair.cli import main

    args = ["audit", "--example", "compas", "--slices", "race,sex,age_cat", "--max-depth", "2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Worst slices" in out
    assert main([*args, "--fail-on-slices"]) == 1
    err = capsys.readouterr().err
    assert "fail-on: slice race=African-American & age_cat=Less than 25" in err
    assert main(["audit", "--example", "compas", "--fail-on-slices"]) == 2
    assert "--fail-on-slices needs --slices" in capsys.readouterr().err
    assert main(["audit", "--example", "compas", "--slices", "race,nope"]) == 2
    assert "column 'nope' not found" in capsys.readouterr().err


def test_weighted_table_with_squares_uses_kish_sizes() -> None:
    """A statistics table with ``sum_w2`` (weights' squares): tests on effective sizes.

    ``min_size`` reads each side's Kish size; the rate (FPR) each side's own effective
    size over its negatives (``reference_stats.effective_size``), as the summary's.
    """
    rng = np.random.default_rng(31)
    n = 3_000
    df = pl.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.choice(["p", "q"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "w": rng.gamma(2.0, 1.0, n),
        }
    )
    stats = group_stats(
        df, y_true="y", y_pred="p", sensitive_features=["a", "b"], sample_weight="w"
    ).join(
        df.lazy().group_by("a", "b").agg((pl.col("w") ** 2).sum().alias("sum_w2")),
        on=["a", "b"],
    )
    out = slices_from_stats(stats, candidates=["a", "b"], min_size=400).collect()
    data = {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()}
    y, p, w = df["y"].to_numpy(), df["p"].to_numpy(), df["w"].to_numpy()
    effective: dict[str, float] = {}
    for row in out.iter_rows(named=True):
        mask = numpy_mask(data, parse_slice(row["slice"]))
        sides = []
        for side in (mask, ~mask):
            ws = w[side]
            f = ws.sum() / (ws**2).sum()  # the side's Kish size W^2 / sum w^2, for min_size
            neg = y[side] == 0
            x, m = effective_size(ws[neg], p[side][neg] == 1, ws)  # FPR at its own size
            sides.append((x, m, ws.sum() * f))
        (x1, m1, e1), (x2, m2, e2) = sides
        effective[row["slice"]] = min(e1, e2)
        assert row["n"] == pytest.approx(w[mask].sum(), rel=1e-12)
        assert row["value"] == pytest.approx(x1 / m1, rel=1e-12)
        assert row["p_value"] == pytest.approx(ref_p_two_proportions(x1, m1, x2, m2), rel=1e-9)
        low, high = ref_newcombe(x1, m1, x2, m2, Z95)
        assert row["ci_low"] == pytest.approx(low, rel=1e-9)
        assert row["ci_high"] == pytest.approx(high, rel=1e-9)
    assert min(effective.values()) >= 400
    # a slice whose weight total passes min_size but whose effective size does not
    assert out["n_untested"][0] > 0


def test_selection_rate_needs_only_predictions() -> None:
    df = make_frame(2_000, seed=37)
    out = df.fair.slices(y_pred="p", candidates=["a", "b"], metric="selection_rate", min_size=0)
    data = {"a": np.array(df["a"].to_list(), dtype=object), "b": df["b"].to_numpy()}
    p = df["p"].to_numpy()
    for row in out.iter_rows(named=True):
        mask = numpy_mask(data, parse_slice(row["slice"]))
        assert row["value"] == pytest.approx(p[mask].mean(), rel=1e-12)
        assert row["rest_value"] == pytest.approx(p[~mask].mean(), rel=1e-12)
        x1, m1, x2, m2 = p[mask].sum(), mask.sum(), p[~mask].sum(), (~mask).sum()
        assert row["p_value"] == pytest.approx(ref_p_two_proportions(x1, m1, x2, m2), rel=1e-9)
