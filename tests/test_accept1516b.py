"""Acceptance pass on issues 15 (profiles) and 16 (slices): defects found and fixed.

Every expectation is derived here from the definitions (numpy counts, the normal tail
through :func:`math.erfc`, Benjamini-Hochberg and Holm written out), never from the
library.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers the namespace)
from tests.reference_stats import effective_size

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

DATA = Path(__file__).parent / "data"
CANDIDATES = ["sex", "race", "edu", "bucket"]


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(DATA / "adult_sample.csv").with_columns(
        (pl.col("income-per-year") == ">50K").cast(pl.Int8).alias("y"),
        ((pl.col("education-num") >= 13) ^ (pl.col("fnlwgt") % 5 == 0)).cast(pl.Int8).alias("pred"),
        pl.col("fnlwgt").cast(pl.Float64).alias("w"),
        pl.col("education-num").cast(pl.String).alias("edu"),
        (pl.col("fnlwgt") % 7).cast(pl.String).alias("bucket"),
    )


def _adjust(p: np.ndarray, correction: str) -> np.ndarray:
    """BH q-values or Holm adjusted p-values, written from the definitions."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    if correction == "bh":
        running = 1.0
        for r in range(m - 1, -1, -1):
            running = min(running, p[order[r]] * m / (r + 1))
            out[order[r]] = min(running, 1.0)
    else:
        running = 0.0
        for r in range(m):
            running = max(running, min(1.0, p[order[r]] * (m - r)))
            out[order[r]] = running
    return out


def _reference(
    df: pl.DataFrame, metric: str, depth: int, weight: str | None, min_size: float, correction: str
) -> tuple[dict[str, tuple[float, float]], int]:
    """Slice -> (p, q) of the tested slices, and the number left untested.

    A rate (x / m) is tested when both sides have `min_size` (Kish) rows, a defined
    rate, and at least min(5, min_size) expected events and non-events at the pooled
    rate; slices with the rows of a parent are neither tested nor counted.
    """
    yt, yp = df["y"].to_numpy(), df["pred"].to_numpy()
    w = np.ones(df.height) if weight is None else df[weight].to_numpy()
    den = yt == 0 if metric == "false_positive_rate" else yt == 1
    num = den & (yp == 1)
    codes = {c: df[c].cast(pl.String).fill_null("null").to_numpy() for c in CANDIDATES}
    total = (w.sum(), (w * den).sum(), (w * num).sum(), (w**2).sum())
    labels, p_values, untested = [], [], 0
    for k in range(1, depth + 1):
        for subset in itertools.combinations(CANDIDATES, k):
            keys = np.array(["\x1f".join(t) for t in zip(*(codes[c] for c in subset), strict=True)])
            for key in np.unique(keys):
                inside = keys == key
                values = key.split("\x1f")
                parents = [
                    np.logical_and.reduce(
                        [codes[subset[j]] == values[j] for j in range(k) if j != i]
                        + [np.ones(df.height, bool)]
                    )
                    for i in range(k)
                ]
                if any(w[par & ~inside].sum() == 0 for par in parents):
                    continue  # the rows of a parent
                s = np.array([w[inside].sum(), (w * den)[inside].sum(), (w * num)[inside].sum()])
                w2 = (w[inside] ** 2).sum()
                r = np.array(total[:3]) - s
                if weight is not None:  # n: each side's Kish size n**2 / sum w**2 (for
                    # min_size); the rate: each side's own effective size over its
                    # denominator's rows (`reference_stats.effective_size`)
                    on = den & (yp == 1)
                    xs, ms = effective_size(w[inside & den], on[inside & den], w[inside])
                    xr, mr = effective_size(w[~inside & den], on[~inside & den], w[~inside])
                    s = np.array([s[0] * s[0] / w2, ms, xs])
                    r = np.array([r[0] * r[0] / (total[3] - w2), mr, xr])
                pooled = (s[2] + r[2]) / (s[1] + r[1]) if s[1] + r[1] > 0 else 0.0
                expected = min(s[1], r[1]) * min(pooled, 1 - pooled)
                if not (
                    s[1] > 0 and r[1] > 0 and min(s[0], r[0]) >= min_size
                    and expected >= min(5, min_size)
                ):  # fmt: skip
                    untested += 1
                    continue
                se = math.sqrt(pooled * (1 - pooled) * (1 / s[1] + 1 / r[1]))
                z = (s[2] / s[1] - r[2] / r[1]) / se if se > 0 else 0.0
                labels.append(" & ".join(f"{c}={v}" for c, v in zip(subset, values, strict=True)))
                p_values.append(math.erfc(abs(z) / math.sqrt(2)))
    q = _adjust(np.array(p_values), correction)
    return {lab: (p, qq) for lab, p, qq in zip(labels, p_values, q, strict=True)}, untested


# ---- defect 1: rate slices expecting a couple of events were tested by the normal tail ----


def _small_slice_frame() -> pl.DataFrame:
    """One 30-row slice: 25 negatives, 8 false positives (expected at the pooled rate: 2.6)."""
    rest_neg, rest_fp = 900, 90
    return pl.DataFrame(
        {
            "g": ["s"] * 30 + ["r"] * 1000,
            "y": [0] * 25 + [1] * 5 + [0] * rest_neg + [1] * 100,
            "pred": [1] * 8 + [0] * 22 + [1] * rest_fp + [0] * (1000 - rest_fp),
        }
    )


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
def test_rate_slice_expecting_few_events_is_not_tested(engine: str) -> None:
    """Before: ``g=s`` was tested (z = 5.3, p = 1e-7) though a 25-trial slice at the pooled
    rate expects 2.6 false positives, where the normal tail is far too light."""
    df = _small_slice_frame()
    kw: dict[str, Any] = dict(y_true="y", y_pred="pred", candidates=["g"])
    if engine == "eager":
        out = df.fair.slices(**kw)
    else:
        lazy = df.lazy().fair.slices(**kw)
        out = lazy.collect(engine="streaming") if engine == "streaming" else lazy.collect()
    m_s, m_r = 25, 900
    pooled = (8 + 90) / (m_s + m_r)
    assert m_s * pooled < 5  # the reason, from the counts
    assert out.height == 0
    # min_size=0 keeps every slice whose rate is defined (the documented escape)
    every = df.fair.slices(**kw, min_size=0)
    assert set(every["slice"]) == {"g=s", "g=r"}


@pytest.mark.parametrize(
    ("metric", "depth", "weight", "correction"),
    [
        ("false_positive_rate", 2, None, "bh"),
        ("false_positive_rate", 2, "w", "holm"),
        ("true_positive_rate", 3, None, "holm"),
        ("true_positive_rate", 2, "w", "bh"),
    ],
)
def test_adult_slices_p_and_q_values_match_reference(
    adult: pl.DataFrame, metric: str, depth: int, weight: str | None, correction: str
) -> None:
    """Four attributes of Adult rows: the tested set, every p- and q-value, and the untested count."""
    ref, untested = _reference(adult, metric, depth, weight, 30, correction)
    kw: dict[str, Any] = dict(
        y_true="y", y_pred="pred", candidates=CANDIDATES, metric=metric, max_depth=depth,
        sample_weight=weight, correction=correction,
    )  # fmt: skip
    eager = adult.fair.slices(**kw)
    lazy = adult.lazy().fair.slices(**kw)
    assert lazy.collect().equals(eager)
    assert lazy.collect(engine="streaming").equals(eager)
    assert set(eager["slice"]) == set(ref)
    assert int(eager["n_untested"][0]) == untested
    p = np.array([ref[s][0] for s in eager["slice"]])
    q = np.array([ref[s][1] for s in eager["slice"]])
    np.testing.assert_allclose(eager["p_value"].to_numpy(), p, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(eager["q_value"].to_numpy(), q, rtol=1e-9, atol=1e-300)


def test_shuffled_attributes_discover_at_most_alpha(adult: pl.DataFrame) -> None:
    """No effect (attributes shuffled): the share of runs with any significant slice.

    The bound is alpha plus three binomial standard errors. (On these 4,000 rows the
    runs found 3 of 80 before the expected-events rule too; on all 32,561 Adult rows
    with six attributes it was 22 of 200 before, 11 of 200 after: see the report.)
    """
    runs, alpha = 80, 0.05
    found = 0
    for seed in range(runs):
        perm = np.random.default_rng(seed).permutation(adult.height)
        shuffled = adult.with_columns(pl.Series(c, adult[c].to_numpy()[perm]) for c in CANDIDATES)
        out = shuffled.fair.slices(
            y_true="y", y_pred="pred", candidates=CANDIDATES, max_depth=2, alpha=alpha
        )
        found += bool(out["significant"].any())
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    assert found / runs <= bound, (found, runs)


def test_normal_quantile_of_reference() -> None:
    """The reference's normal tail is the one the intervals use (sanity of the oracle)."""
    z = NormalDist().inv_cdf(0.975)
    assert math.erfc(z / math.sqrt(2)) == pytest.approx(0.05, rel=1e-12)


# ---- defect 2: `audit --profile --by` refused even the profile's own batch keys ------------


def test_audit_profile_accepts_its_own_by(
    tmp_path: Path, adult: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: ``--by race`` on a profile made ``--by race`` exited 2 ("cannot be combined").

    The report equals the one without ``--by``; another ``--by`` still exits 2, naming both.
    """
    from polars_fair.cli import main

    data = tmp_path / "a.parquet"
    adult.write_parquet(data)
    prof = tmp_path / "p.parquet"
    cols = ["--y-true", "y", "--y-pred", "pred", "--sensitive-features", "sex,edu"]
    assert main(["profile", str(data), "-o", str(prof), *cols, "--by", "race"]) == 0
    plain, given = tmp_path / "plain.json", tmp_path / "given.json"
    audit = ["audit", "--profile", str(tmp_path / "p*.parquet"), "--format", "json"]
    assert main([*audit, "-o", str(plain)]) == 0
    assert main([*audit, "--by", "race", "-o", str(given)]) == 0
    assert given.read_text() == plain.read_text()
    capsys.readouterr()
    assert main([*audit, "--by", "sex", "-o", str(given)]) == 2
    err = capsys.readouterr().err
    assert "--by 'sex'" in err
    assert "batch keys race" in err


# ---- defect 3: the pages' slices table was emptied by the cut to the largest groups -------


@pytest.mark.parametrize("output", ["markdown", "text", "html"])
def test_worst_slices_survive_the_group_cut(adult: pl.DataFrame, output: str) -> None:
    """Before: with the candidates as sensitive features and more groups than `max_rows`,
    the slices table was semi-joined on the kept groups; a slice fixes only some of the
    attributes (null elsewhere), so no row matched and "Worst slices" was empty, with a
    note about groups left out."""
    report = adult.fair.report(
        y_true="y", y_pred="pred", sensitive_features=["sex", "race", "edu"],
        slices=["sex", "race", "edu"], max_depth=2,
    )  # fmt: skip
    assert report.slices is not None
    sizes = adult.group_by("sex", "race", "edu").len().height
    max_rows = 5
    assert sizes > max_rows  # the cut happens
    # the slices shown: the best-ranked ones, from the report's own table
    shown = report.slices.filter(pl.col("rank") <= 20)["slice"].to_list()
    assert shown
    page = {
        "markdown": report.to_markdown,
        "text": report.to_text,
        "html": report.to_html,
    }[output](max_rows=max_rows)
    section = page[page.index("Worst slices") :]
    for label in shown:
        text = label.replace("&", "&amp;") if output == "html" else label
        assert text in section, label


def test_slices_caption_states_the_rule_the_table_applies(adult: pl.DataFrame) -> None:
    """Before: the page said ``q_value < 0.05``; `significant` is ``q_value <= alpha``."""
    report = adult.fair.report(
        y_true="y", y_pred="pred", sensitive_features="sex", slices=["race", "edu"]
    )
    assert report.slices is not None
    q = report.slices["q_value"].to_numpy()
    assert (report.slices["significant"].to_numpy() == (q <= 0.05)).all()
    assert "significant when q_value ≤ 0.05" in report.to_html()


# ---- defect 4: strategy="subsets" with a numeric candidate: a plan the optimiser choked on --


def _subsets_frame() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    n = 2_000
    return pl.DataFrame(
        {
            **{c: rng.choice(["u", "v", "w"], n) for c in ("a", "b", "c", "d")},
            "age": rng.integers(18, 80, n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
        }
    )


def test_subsets_with_a_numeric_candidate_keep_the_plan_of_strings() -> None:
    """Before: the bins were labelled after the subsets' tables were stacked, and Polars'
    common-subplan elimination added caches over the bins for every subset (44 against
    20 for four strings here); on Adult, 8 candidates at ``max_depth=3`` (two numeric)
    took minutes instead of about a second. Labelled per subset table, the optimised plan
    has as many caches as with a string in its place, and the slices equal "finest"'s."""
    df = _subsets_frame()
    kw: dict[str, Any] = dict(y_true="y", y_pred="p", max_depth=2, strategy="subsets")
    numeric = df.lazy().fair.slices(candidates=["a", "b", "c", "age"], **kw)
    strings = df.lazy().fair.slices(candidates=["a", "b", "c", "d"], **kw)
    assert numeric.explain().count("CACHE") == strings.explain().count("CACHE")
    finest = df.fair.slices(**{**kw, "strategy": "finest"}, candidates=["a", "b", "c", "age"])
    out = numeric.collect(engine="streaming")
    assert out.drop("strategy").equals(finest.drop("strategy"))
    assert (
        out.filter(pl.col("slice").str.contains("age="))["slice"].str.contains(r"age=[\[\(]").all()
    )
