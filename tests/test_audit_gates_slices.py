"""An auditor's pass over issues 13 (verdicts and gates) and 16 (slices) on real data.

Each test reproduces a defect found by exercising a sentence of the issues by hand,
and checks the behaviour against numpy written from the definitions (no polars_fair
code in the expectations). Real data: ``tests/data`` (see its ATTRIBUTION.md).
"""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source

import polars_fair  # noqa: F401  (registers the namespace)
from tests import reference_stats as ref

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.exceptions.FairWarning")

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return pl.read_csv(DATA / "compas_race_sex.csv").with_columns(
        (pl.col("decile_score") >= 5).cast(pl.Int8).alias("pred"),
        (pl.col("decile_score") / 10).alias("score"),
    )


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(DATA / "adult_sample.csv").with_columns(
        (pl.col("income-per-year") == ">50K").cast(pl.Int8).alias("y"),
        (pl.col("education-num") >= 13).cast(pl.Int8).alias("pred"),
        pl.col("fnlwgt").cast(pl.Float64).alias("w"),
    )


Z95 = NormalDist().inv_cdf(0.975)


def _wilson(x: float, m: float) -> tuple[float, float]:
    """Wilson's score interval of x / m (m may be an effective, non-integer count)."""
    p, z2 = x / m, Z95 * Z95
    centre = (p + z2 / (2 * m)) / (1 + z2 / m)
    half = Z95 * np.sqrt(p * (1 - p) / m + z2 / (4 * m * m)) / (1 + z2 / m)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def _kish(w: np.ndarray, inside: np.ndarray, of: np.ndarray) -> tuple[float, float]:
    """A weighted proportion's effective numerator and denominator.

    ``of`` selects the rate's denominator rows within a group of weights `w`,
    ``inside`` its numerator rows: the effective size of the denominator's rows
    (``reference_stats.effective_size``), and the rate times it.
    """
    return ref.effective_size(w[of], inside[of], w)


def _counting_source(df: pl.DataFrame) -> tuple[pl.LazyFrame, list[int]]:
    """A LazyFrame over `df` whose every read of the rows is counted."""
    reads: list[int] = []

    def source(with_columns: Any, predicate: Any, n_rows: Any, batch_size: Any) -> Any:
        reads.append(1)
        out = df if with_columns is None else df.select(with_columns)
        yield out if predicate is None else out.filter(predicate)

    return register_io_source(source, schema=df.schema), reads


# ---- issue 16: one pass over the data ------------------------------------------------------


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
@pytest.mark.parametrize("strategy", ["auto", "finest", "subsets"])
@pytest.mark.parametrize("extra", [{}, {"sample_weight": "w"}, {"by": "sex"}])
def test_slices_read_the_rows_once(
    compas: pl.DataFrame, engine: str, strategy: str, extra: dict[str, str]
) -> None:
    """Every subset's slices come from one read (the finest table read once per subset before)."""
    df = compas.with_columns(pl.lit(1.5).alias("w"), (pl.col("decile_score") % 4).alias("num"))
    lf, reads = _counting_source(df)
    candidates = ["race", "age_cat", "num"] + ([] if "by" in extra else ["sex"])
    out = lf.fair.slices(
        y_true="two_year_recid", y_pred="pred", candidates=candidates, max_depth=3,
        strategy=strategy, **extra,  # type: ignore[arg-type]
    )  # fmt: skip
    assert isinstance(out, pl.LazyFrame)
    assert reads == []  # nothing read while the lazy method builds its plan
    table = out.collect(engine=engine)  # type: ignore[call-overload]
    assert len(reads) == 1
    assert table.height > 0


# ---- issue 13: one group kept is no comparison ---------------------------------------------


@pytest.mark.parametrize("options", [{}, {"reference_group": "African-American"}])
def test_one_group_kept_has_no_value_and_no_interval(
    compas: pl.DataFrame, options: dict[str, Any]
) -> None:
    """With one group at least min_group_size, nothing is compared: no 0.0 and no interval.

    Before, every criterion but the four-fifths rule showed the group against itself
    (``0.0 [-0.03, 0.03]``, ``African-American vs African-American``) beside its
    ``undefined`` verdict.
    """
    sizes = compas.group_by("race").len()
    kept = sizes.filter(pl.col("len") >= 3000)
    assert kept.height == 1  # African-American alone (numpy-free: counted by polars)
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race", min_group_size=3000,
        **options,
    )  # fmt: skip
    summary = report.summary
    assert set(summary["verdict"].cast(pl.String)) == {"undefined"}
    for column in ("value", "ci_low", "ci_high", "p_value"):
        assert summary[column].null_count() == summary.height, column
    assert all("fewer than two groups compared" in note for note in summary["note"])
    # a gate on the value fails as undefined, saying why
    lines = report.failures(verdicts=[], conditions=["demographic_parity_difference > 0.1"])
    assert len(lines) == 1
    assert "is undefined (fewer than two groups compared" in lines[0]
    assert "0.0000" not in report.to_text()


# ---- issue 13, point 4: by_group and disparities intervals use the effective size ---------


def _adult_reference(adult: pl.DataFrame, scale: float) -> dict[str, Any]:
    """Wilson intervals of each sex's selection and true positive rates, and Newcombe /
    Katz of Female against Male, from Kish effective counts (numpy only)."""
    out: dict[str, Any] = {}
    w_all = adult["w"].to_numpy() * scale
    for sex in ("Female", "Male"):
        g = (adult["sex"] == sex).to_numpy()
        w, y, p = w_all[g], adult["y"].to_numpy()[g], adult["pred"].to_numpy()[g]
        out[sex, "selection_rate"] = _kish(w, p == 1, np.ones_like(p, dtype=bool))
        out[sex, "true_positive_rate"] = _kish(w, (p == 1) & (y == 1), y == 1)
    for rate in ("selection_rate", "true_positive_rate"):
        x1, m1 = out["Female", rate]
        x2, m2 = out["Male", rate]
        (l1, u1), (l2, u2) = _wilson(x1, m1), _wilson(x2, m2)
        p1, p2 = x1 / m1, x2 / m2
        d = p1 - p2
        out["newcombe", rate] = (
            d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
        )
        se = np.sqrt(1 / x1 - 1 / m1 + 1 / x2 - 1 / m2)
        out["katz", rate] = (p1 / p2 * np.exp(-Z95 * se), p1 / p2 * np.exp(Z95 * se))
    return out


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e3])
def test_weighted_by_group_and_disparity_intervals_use_kish_sizes(
    adult: pl.DataFrame, kind: str, scale: float
) -> None:
    """fnlwgt intervals are those of the effective sizes, whatever the weights' scale.

    Before, the report's ``*_ci_*`` columns read weights as row counts: with fnlwgt,
    Female's selection rate 0.2645 got [0.26449, 0.26453] (about 470 times too
    narrow), 30 times wider with the weights divided by 1000.
    """
    df = adult.with_columns(pl.col("w") * scale)
    frame = df if kind == "eager" else df.lazy()
    kw: dict[str, Any] = {
        "y_true": "y", "y_pred": "pred", "sensitive_features": "sex", "sample_weight": "w",
        "confidence_level": 0.95,
    }  # fmt: skip
    by_group = frame.fair.by_group(**kw, min_group_size=30)
    disparities = frame.fair.disparities(
        **kw, reference_group="Male", metrics=["selection_rate", "true_positive_rate"]
    )
    if kind != "eager":
        engine = "streaming" if kind == "streaming" else "in-memory"
        by_group, disparities = (t.collect(engine=engine) for t in (by_group, disparities))
    expected = _adult_reference(adult, scale)
    for rate in ("selection_rate", "true_positive_rate"):
        for sex in ("Female", "Male"):
            row = by_group.row(by_predicate=pl.col("sex") == sex, named=True)
            got = (row[f"{rate}_ci_low"], row[f"{rate}_ci_high"])
            assert got == pytest.approx(_wilson(*expected[sex, rate]), rel=1e-9), (sex, rate)
        row = disparities.row(
            by_predicate=(pl.col("sex") == "Female") & (pl.col("metric") == rate), named=True
        )
        assert (row["difference_ci_low"], row["difference_ci_high"]) == pytest.approx(
            expected["newcombe", rate], rel=1e-9
        )
        assert (row["ratio_ci_low"], row["ratio_ci_high"]) == pytest.approx(
            expected["katz", rate], rel=1e-9
        )


def test_weighted_report_intervals_agree_with_the_summary(adult: pl.DataFrame) -> None:
    """The report's disparity interval of the headline pair is the summary's (Newcombe)."""
    report = adult.fair.report(
        y_true="y", y_pred="pred", sensitive_features="sex", sample_weight="w",
        reference_group="Male", criteria=["demographic_parity_difference"],
    )  # fmt: skip
    row = report.summary.row(0, named=True)
    disparity = report.disparities.row(
        by_predicate=(pl.col("sex") == "Female") & (pl.col("metric") == "selection_rate"),
        named=True,
    )
    assert (disparity["difference_ci_low"], disparity["difference_ci_high"]) == pytest.approx(
        (row["ci_low"], row["ci_high"]), rel=1e-12
    )
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        _adult_reference(adult, 1.0)["newcombe", "selection_rate"], rel=1e-9
    )


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_rest_reference_intervals_use_kish_sizes_of_the_rest(
    compas: pl.DataFrame, scale: float
) -> None:
    """Against ``"rest"``, each side's effective size: the group's, and the other groups'."""
    rng = np.random.default_rng(7)
    df = compas.with_columns(pl.Series("w", rng.gamma(2.0, 3.0, compas.height)))
    got = df.with_columns(pl.col("w") * scale).fair.disparities(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race", sample_weight="w",
        reference_group="rest", metrics=["selection_rate"], confidence_level=0.95,
    )  # fmt: skip
    w, p, race = df["w"].to_numpy(), df["pred"].to_numpy(), df["race"].to_numpy()
    for group in ("African-American", "Hispanic", "Asian"):
        g = race == group
        x1, m1 = _kish(w[g], p[g] == 1, np.ones(g.sum(), dtype=bool))
        x2, m2 = _kish(w[~g], p[~g] == 1, np.ones((~g).sum(), dtype=bool))
        (l1, u1), (l2, u2) = _wilson(x1, m1), _wilson(x2, m2)
        p1, p2 = x1 / m1, x2 / m2
        d = p1 - p2
        expected = (
            d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
        )
        row = got.row(by_predicate=pl.col("race") == group, named=True)
        assert (row["difference_ci_low"], row["difference_ci_high"]) == pytest.approx(
            expected, rel=1e-9
        ), group


# ---- issue 13, point 6: a gate's line names the pair's interval ---------------------------


def _katz(x1: float, m1: float, x2: float, m2: float) -> tuple[float, float]:
    """Katz's log interval of the ratio of two proportions."""
    ratio = (x1 / m1) / (x2 / m2)
    se = np.sqrt(1 / x1 - 1 / m1 + 1 / x2 - 1 / m2)
    return ratio * np.exp(-Z95 * se), ratio * np.exp(Z95 * se)


def _selected(df: pl.DataFrame, race: str, sex: str) -> tuple[float, float]:
    g = df.filter((pl.col("race") == race) & (pl.col("sex") == sex))
    return float(g["pred"].sum()), float(g.height)


def _shown(interval: tuple[float, float]) -> str:
    return f"interval [{interval[0]:.4g}, {interval[1]:.4g}]"


@pytest.mark.parametrize("lazy", [False, True])
def test_one_sided_gate_names_the_interval_of_the_pair_it_fired_on(
    compas: pl.DataFrame, lazy: bool
) -> None:
    """``> 1.25`` fires on African-American men, not the summary's headline pair.

    Before, the line read ``disparate_impact_ratio = 1.808 > 1.25: African-American /
    Male (n=3044) vs Caucasian / Male (n=1887)``, without an interval.
    """
    frame = compas.lazy() if lazy else compas
    report = frame.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features=["race", "sex"],
        reference_group=("Caucasian", "Male"), criteria=["disparate_impact_ratio"],
    )  # fmt: skip
    row = report.summary.row(0, named=True)
    assert row["group"] == "Hispanic / Female"  # the headline is the lowest, not the highest
    reference = _selected(compas, "Caucasian", "Male")
    highest = _katz(*_selected(compas, "African-American", "Male"), *reference)
    lowest = _katz(*_selected(compas, "Hispanic", "Female"), *reference)
    (high_line,) = report.failures(verdicts=[], conditions=["disparate_impact_ratio > 1.25"])
    assert high_line.startswith("disparate_impact_ratio = 1.808 > 1.25 (")
    assert _shown(highest) in high_line
    assert "African-American / Male (n=3044) vs Caucasian / Male (n=1887)" in high_line
    (low_line,) = report.failures(verdicts=[], conditions=["disparate_impact_ratio <= 0.8"])
    assert _shown(lowest) in low_line
    assert "Hispanic / Female (n=103) vs Caucasian / Male (n=1887)" in low_line
    with pytest.raises(polars_fair.exceptions.FairnessGateError) as info:
        report.check(verdicts=[], conditions=["disparate_impact_ratio >= 1.8"])
    assert _shown(highest) in str(info.value)


def test_gate_interval_per_batch_key(compas: pl.DataFrame) -> None:
    """With ``by``, each key's line gives its own pair's interval (numpy per key)."""
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features=["race", "sex"],
        reference_group=("Caucasian", "Male"), criteria=["disparate_impact_ratio"],
        by="age_cat",
    )  # fmt: skip
    lines = report.failures(verdicts=[], conditions=["disparate_impact_ratio > 1.25"])
    highest = report.summary.select("age_cat", "highest", "highest_group")
    fired = highest.filter(pl.col("highest") > 1.25)
    assert len(lines) == fired.height > 0
    for key, _, group in fired.iter_rows():
        part = compas.filter(pl.col("age_cat") == key)
        race, sex = group.split(" / ")
        expected = _katz(*_selected(part, race, sex), *_selected(part, "Caucasian", "Male"))
        (line,) = [line for line in lines if line.endswith(f"(age_cat={key})")]
        assert _shown(expected) in line, line
        assert f"{group} (n=" in line


def test_gate_on_a_composite_says_which_pair_has_an_interval(compas: pl.DataFrame) -> None:
    """No interval of its own for a composite's other extreme: the line says whose it is.

    (Cohen's d and the 2-SD z now give the other group's own interval:
    tests/test_verdict_extremes.py.)
    """
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features="race",
        reference_group="Caucasian", criteria=["equalized_odds_difference"],
    )  # fmt: skip
    row = report.summary.row(0, named=True)
    assert row["lowest_group"] != row["group"]  # Other's TPR lowest, African-American farthest
    (line,) = report.failures(verdicts=[], conditions=["equalized_odds_difference < -0.1"])
    assert f"{row['lowest_group']} (n=" in line
    assert "no interval for this pair (the summary's interval [" in line
    assert f"is for {row['group']} (n=" in line


# ---- issue 16, point 5: the Python gate covers significant slices as the CLI does ----------


def test_python_gate_fails_on_significant_slices_as_the_cli_does(compas: pl.DataFrame) -> None:
    """``report.check()`` and ``--fail-on-verdict unfair`` fail on the same slices.

    Before, the CLI failed on every significant slice while ``check()`` passed.
    """
    kw: dict[str, Any] = {
        "y_true": "two_year_recid", "y_pred": "pred", "sensitive_features": "race",
        "criteria": ["demographic_parity_difference"], "difference_band": 0.5,
    }  # fmt: skip
    plain = compas.fair.report(**kw)
    assert plain.failures() == []  # 0.38 is inside a band of 0.5
    sliced = compas.fair.report(**kw, slices=["race", "sex", "age_cat"], max_depth=2)
    significant = sliced.slices.filter(pl.col("significant"))  # type: ignore[union-attr]
    lines = sliced.failures()
    assert len(lines) == significant.height > 0
    assert sliced.failures(verdicts=["inconclusive"]) == []
    with pytest.raises(polars_fair.exceptions.FairnessGateError):
        sliced.check()
    # each line names the slice, both sides' values and sizes, the interval and the q-value
    top = significant.row(0, named=True)
    x = compas.filter(pl.col("race").is_not_null())
    for attribute, value in zip(top["attributes"], top["slice"].split(" & "), strict=True):
        x = x.filter(pl.col(attribute) == value.split("=", 1)[1])
    assert x.height == top["n"]
    assert lines[0].startswith(f"slice {top['slice']}: false_positive_rate ")
    assert f"(n={x.height}) vs " in lines[0]
    assert f"in the rest (n={compas.height - x.height})" in lines[0]
    assert f"interval [{top['ci_low']:.4g}, {top['ci_high']:.4g}]" in lines[0]


def test_four_fifths_gate_names_the_interval_of_its_highest_group(compas: pl.DataFrame) -> None:
    """Against a reference the four-fifths rule is the selection-rate ratio: Katz's interval."""
    report = compas.fair.report(
        y_true="two_year_recid", y_pred="pred", sensitive_features=["race", "sex"],
        reference_group=("Caucasian", "Male"), criteria=["four_fifths_rule"],
    )  # fmt: skip
    (line,) = report.failures(verdicts=[], conditions=["four_fifths_rule > 1.25"])
    reference = _selected(compas, "Caucasian", "Male")
    expected = _katz(*_selected(compas, "African-American", "Male"), *reference)
    assert _shown(expected) in line


# ---- issue 16 with weights: the slices say the sizes their tests read ----------------------


@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
def test_weighted_slices_show_kish_sizes_and_the_gate_prints_them(
    adult: pl.DataFrame, kind: str
) -> None:
    """``n`` is a weight total (fnlwgt: millions); ``n_effective`` what the tests use.

    Before, a weighted slice's gate line read ``(n=6837400)``, and nothing in the
    output showed the effective size that `min_size` and the test had read.
    """
    df = adult.with_columns(
        pl.when(pl.col("education-num") >= 13).then(pl.lit("high")).otherwise(pl.lit("low"))
        .alias("edu"),
    )  # fmt: skip
    frame = df if kind == "eager" else df.lazy()
    out = frame.fair.slices(
        y_true="y", y_pred="pred", candidates=["sex", "race", "edu"], max_depth=2,
        sample_weight="w", metric="false_negative_rate", min_size=40,
    )  # fmt: skip
    if kind != "eager":
        out = out.collect(engine="streaming" if kind == "streaming" else "in-memory")
    assert out.height > 0
    w = df["w"].to_numpy()
    for row in out.iter_rows(named=True):
        mask = np.ones(df.height, dtype=bool)
        for attribute, value in zip(row["attributes"], row["slice"].split(" & "), strict=True):
            mask &= (df[attribute] == value.split("=", 1)[1]).to_numpy()
        for side, name in ((mask, "n_effective"), (~mask, "rest_n_effective")):
            kish = w[side].sum() ** 2 / (w[side] ** 2).sum()
            assert row[name] == pytest.approx(kish, rel=1e-9), (row["slice"], name)
            assert row[name] >= 40  # `min_size` reads the effective size
        assert row["n"] == pytest.approx(w[mask].sum(), rel=1e-12)
    unweighted = df.fair.slices(
        y_true="y", y_pred="pred", candidates=["sex", "race", "edu"], max_depth=2,
        metric="false_negative_rate",
    )  # fmt: skip
    assert (unweighted["n_effective"] == unweighted["n"]).all()
    assert (unweighted["rest_n_effective"] == unweighted["rest_n"]).all()
    report = df.fair.report(
        y_true="y", y_pred="pred", sensitive_features="sex", sample_weight="w",
        slices=["race", "edu"], slice_metric="false_negative_rate",
        criteria=["demographic_parity_difference"], difference_band=0.9,
    )  # fmt: skip
    top = report.slices.filter(pl.col("significant")).row(0, named=True)  # type: ignore[union-attr]
    (line, *_) = report.slice_failures()
    shown = round(top["n_effective"], 1)
    assert f"(n={int(shown) if shown.is_integer() else shown})" in line
    assert f"(n={round(top['n'])})" not in line


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_frequency_weights_read_as_row_counts_everywhere_in_the_report(kind: str) -> None:
    """``frequency_weights=True``: by_group's flag and intervals agree with the summary.

    Replication weights of 10 on a group of 5 rows: 50 rows. Before, the summary
    compared the group (n=50) while ``by_group`` flagged it ``small_group`` (its Kish
    size, 5) and its intervals were Kish's: the report said two things at once.
    """
    df = pl.DataFrame(
        {
            "g": ["a"] * 100 + ["b"] * 5,
            "y": [1, 0] * 50 + [1, 0, 1, 0, 1],
            "p": [1, 1, 0, 0] * 25 + [1, 1, 1, 0, 0],
            "w": [10.0] * 105,
        }
    )
    repeated = df.select(pl.all().repeat_by(10).explode()).drop("w")
    frame = df if kind == "eager" else df.lazy()
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    report = frame.fair.report(**kw, sample_weight="w", frequency_weights=True)
    plain = repeated.fair.report(**kw)
    assert report.summary["excluded"].null_count() == report.summary.height  # b compared
    assert report.by_group["small_group"].to_list() == [False, False]
    columns = [c for c in plain.by_group.columns if c.endswith(("_ci_low", "_ci_high"))]
    assert columns
    for name, table in (("by_group", columns), ("disparities", None)):
        got, want = getattr(report, name), getattr(plain, name)
        cols = table or ["difference_ci_low", "difference_ci_high", "ratio_ci_low"]
        np.testing.assert_allclose(
            got.select(cols).to_numpy().astype(float), want.select(cols).to_numpy().astype(float),
            rtol=1e-12,
        )  # fmt: skip
    # the default (sampling weights): b's Kish size is 5, flagged and left out
    kish = frame.fair.report(**kw, sample_weight="w")
    assert kish.by_group["small_group"].to_list() == [False, True]
    assert kish.summary["excluded"][0] == "b (n=5)"
    by_group = frame.fair.by_group(
        **kw, sample_weight="w", confidence_level=0.95, frequency_weights=True
    )
    if kind == "lazy":
        by_group = by_group.collect()  # type: ignore[union-attr]
    x, m = 3.0 * 10, 5.0 * 10  # b's selected and all, as row counts
    assert (by_group["selection_rate_ci_low"][1], by_group["selection_rate_ci_high"][1]) == (
        pytest.approx(_wilson(x, m), rel=1e-12)
    )


@pytest.mark.parametrize(
    ("gates", "criteria_lines"),
    [
        (["--fail-on-verdict", "unfair"], True),
        (["--fail-on-slices"], False),
        (["--fail-on-verdict", "unfair", "--fail-on-slices"], True),
        (["--fail-on-verdict", "inconclusive", "--fail-on-slices"], False),
    ],
)
def test_cli_slice_gates_list_each_slice_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, gates: list[str], criteria_lines: bool
) -> None:
    """Every significant slice fails once, whichever of the two gates names it.

    A guard: ``report.failures()`` now lists the slices with ``"unfair"``, so the CLI
    must not add them again for ``--fail-on-slices``.
    """
    import json

    from polars_fair.cli import main

    out = tmp_path / "report.json"
    args = [
        "audit", "--example", "compas", "--slices", "race,sex,age_cat", "--no-progress",
        "--format", "json", "-o", str(out),
    ]  # fmt: skip
    assert main([*args, *gates]) == 1
    err = capsys.readouterr().err.splitlines()
    slices = [line for line in err if line.startswith("polars-fair: fail-on: slice ")]
    table = json.loads(out.read_text())["tables"]["slices"]
    significant = [row["slice"] for row in table if row["significant"]]
    assert len(slices) == len(set(slices)) == len(significant) > 0
    assert any(" is unfair: " in line for line in err) == criteria_lines


@pytest.mark.parametrize(
    ("option", "pieces"),
    [
        (["--fail-on", "rmse_difference > 0.1"],
         ["'rmse_difference' is a regression criterion", "df.fair.rmse_difference(...)"]),
        (["--criteria", "label_stability_ratio"],
         ["'label_stability_ratio' is an ensemble criterion"]),
        (["--fail-on", "demographic_parity_diff > 0.1"],
         ["unknown criterion 'demographic_parity_diff'",
          "did you mean 'demographic_parity_difference'"]),
        (["--criteria", "disparate_impact"], ["did you mean 'disparate_impact_ratio'"]),
    ],
)  # fmt: skip
def test_cli_names_why_a_catalogue_criterion_cannot_be_gated(
    capsys: pytest.CaptureFixture[str], option: list[str], pieces: list[str]
) -> None:
    """``--fail-on`` takes the catalogue's criteria: one of another family is named as such.

    Before, ``rmse_difference`` (in the catalogue) was an "unknown criterion", and a
    misspelt name got a list of 55 names without the closest.
    """
    from polars_fair.cli import main

    assert main(["audit", "--example", "compas", "--no-progress", *option]) == 2
    err = capsys.readouterr().err
    for piece in pieces:
        assert piece in err


def test_weighted_slice_tables_show_the_effective_size(compas: pl.DataFrame) -> None:
    """With weights, a slice's `n` is a weight total: the report's tables show its Kish
    size beside it (the size its test reads), and say so."""
    rng = np.random.default_rng(5)
    weighted = compas.with_columns(w=pl.Series(rng.uniform(50.0, 5000.0, compas.height)))
    kw: dict[str, Any] = {
        "y_true": "two_year_recid", "y_pred": "pred", "sensitive_features": "race",
        "slices": ["race", "sex"], "max_depth": 2,
    }  # fmt: skip
    report = weighted.fair.report(**kw, sample_weight="w")
    top = report.slices.row(0, named=True)  # type: ignore[union-attr]
    members = weighted.filter(pl.all_horizontal(pl.col(a) == top[a] for a in top["attributes"]))[
        "w"
    ].to_numpy()
    assert top["n_effective"] == pytest.approx(members.sum() ** 2 / (members**2).sum())
    for text in (report.to_text(), report.to_markdown(), report.to_html()):
        assert "n_effective" in text
    assert "Kish effective size" in report.to_html()
    plain = compas.fair.report(**kw)  # unweighted: n is the rows, no second column
    assert "n_effective" not in plain.to_text()
    assert "n_effective" not in plain.to_html()  # nor in the caption
