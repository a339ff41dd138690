"""Defects an acceptance tester found in the report, its verdicts and gates (COMPAS).

Each test failed before its fix. Expectations are derived here from the data (numpy
counts) or from the definitions, never copied from the library's output:

1. ``failures(verdicts="unfair")`` reads one verdict, not six characters;
2. the ``to_overall`` header says which rows compare two groups (the statistics);
3. a reference group left out as too small is named, with its size and the fix,
   and a verdict gate that could judge nothing does not pass;
4. an infinite gate bound is refused in words about infinity, not NaN;
5. a criterion without a value has no interval either (one group, four-fifths);
6. a multi-feature reference group reads ``Caucasian / Male``, like the tables, and
   the undefined-rate warnings name groups that way, not excluded ones;
7. effective sizes print ``3696``, never ``3696.0`` or ``3696.0000``;
8. the trend chart's axis shows dates, not epoch milliseconds;
9. the parameters show ``decile_score >= 5``, not Polars' expression repr.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair.exceptions import InvalidParameterError

DATA = Path(__file__).parent / "data"
PRED = pl.col("decile_score") >= 5
KW = {"y_true": "two_year_recid", "y_pred": PRED}


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return pl.read_csv(DATA / "compas_race_sex.csv", try_parse_dates=True)


def _report(df: pl.DataFrame, **options: object) -> polars_fair.FairnessReport:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df.fair.report(**KW, **options)  # type: ignore[arg-type]


# ---- 1: a single verdict as a string ---------------------------------------------------------


def test_a_single_verdict_string_is_one_verdict(compas: pl.DataFrame) -> None:
    report = _report(compas, sensitive_features="race", reference_group="Caucasian")
    unfair = int((report.summary["verdict"].cast(pl.String) == "unfair").sum())
    assert unfair > 0
    assert report.failures(verdicts="unfair") == report.failures(verdicts=["unfair"])
    assert len(report.failures(verdicts="unfair")) == unfair
    with pytest.raises(InvalidParameterError, match="unfair, inconclusive, undefined") as info:
        report.check(verdicts="unfiar")
    assert "'unfiar'" in str(info.value)
    with pytest.raises(InvalidParameterError, match="unknown verdict"):
        report.failures(verdicts=["unfair", "bad"])


# ---- 4: infinite bounds -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("disparate_impact_ratio < inf", "always fail"),
        ("disparate_impact_ratio <= Infinity", "always fail"),
        ("disparate_impact_ratio > inf", "never fail"),
        ("disparate_impact_ratio > -inf", "always fail"),
        ("disparate_impact_ratio < -inf", "never fail"),
    ],
)
def test_infinite_bounds_are_refused_in_words_about_infinity(text: str, what: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        polars_fair.report.parse_condition(text)
    message = str(info.value)
    assert "NaN" not in message
    assert "infinity" in message
    assert what in message
    with pytest.raises(InvalidParameterError, match="NaN never holds"):
        polars_fair.report.parse_condition("disparate_impact_ratio < nan")


# ---- 7: effective sizes -----------------------------------------------------------------------


def test_effective_sizes_print_without_a_spurious_decimal(compas: pl.DataFrame) -> None:
    # weights of 1/N: every Kish size is the row count, up to float noise
    df = compas.with_columns(w=pl.lit(1.0) / pl.len())
    report = _report(df, sensitive_features="race", reference_group="Caucasian", sample_weight="w")
    counts = dict(zip(*np.unique(compas["race"].to_numpy(), return_counts=True), strict=True))
    text, markdown, page = report.to_text(), report.to_markdown(), report.to_html()
    for out in (text, page):
        assert f"Caucasian (n={counts['Caucasian']})" in out
        assert f"African-American (n={counts['African-American']})" in out
        assert ".0)" not in out  # no "n=2454.0"
    assert "2454.0" not in text  # the rates table's n_effective too
    assert f"| {counts['Caucasian']} " in markdown
    assert "2454.0000" not in markdown


# ---- 6: a multi-feature reference group, and the undefined-rate warnings ------------------------


def test_multi_feature_reference_reads_like_the_tables(compas: pl.DataFrame) -> None:
    report = _report(
        compas, sensitive_features=["race", "sex"], reference_group=("Caucasian", "Male")
    )
    for out in (report.to_text(), report.to_markdown(), report.to_html()):
        assert "('Caucasian', 'Male')" not in out
        assert "reference group Caucasian / Male" in out
    # the tables name that group the same way
    assert "Caucasian / Male" in report.summary["compared_with"].to_list()


def _undefined_ppv_groups(df: pl.DataFrame, keys: list[str]) -> list[tuple[str, ...]]:
    """Groups with no predicted positive (PPV undefined), counted with numpy."""
    labels = [tuple(r) for r in df.select(keys).iter_rows()]
    pred = (df["decile_score"].to_numpy() >= 5).astype(int)
    groups = sorted(set(labels))
    idx = np.array([groups.index(g) for g in labels])
    positives = np.bincount(idx, weights=pred, minlength=len(groups))
    return [g for g, p in zip(groups, positives, strict=True) if p == 0]


def test_undefined_rate_warnings_leave_out_excluded_groups(compas: pl.DataFrame) -> None:
    keys = ["race", "sex"]
    undefined = _undefined_ppv_groups(compas, keys)
    sizes = compas.group_by(keys).len()
    assert undefined  # Asian women: no predicted positive
    for group in undefined:  # ... and a group too small to be compared
        n = sizes.filter((pl.col("race") == group[0]) & (pl.col("sex") == group[1]))["len"]
        assert n.item() < 30
    kw = {**KW, "sensitive_features": keys, "reference_group": ("Caucasian", "Male")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = compas.fair.report(**kw)  # type: ignore[arg-type]
    texts = [str(w.message) for w in caught]
    assert not [t for t in texts if "positive_predictive_value is undefined" in t], texts
    # it is listed as left out instead
    assert " / ".join(undefined[0]) in (report.summary["excluded"][0] or "")
    # kept in the criteria (min_group_size=0), it is named as the tables name it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compas.fair.report(**kw, min_group_size=0)  # type: ignore[arg-type]
    ppv = [
        str(w.message) for w in caught if "positive_predictive_value is undefined" in str(w.message)
    ]
    assert len(ppv) == 1
    assert f"['{' / '.join(undefined[0])}']" in ppv[0]
    assert "('" not in ppv[0]


# ---- 9: expressions in the parameters ----------------------------------------------------------


def test_parameters_show_a_readable_expression(compas: pl.DataFrame) -> None:
    report = _report(compas, sensitive_features="race")
    assert report.params["y_pred"] == "decile_score >= 5"
    assert report.params["y_true"] == "two_year_recid"
    profile = compas.fair.profile(**KW, sensitive_features="race")  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_profile = profile.report()
    assert from_profile.params["y_pred"] == "decile_score >= 5"
    for out in (from_profile.to_markdown(), from_profile.to_json(), from_profile.to_html()):
        assert "dyn int" not in out
        assert 'col(\\"decile_score\\")' not in out
        assert 'col("decile_score")' not in out
    assert "`decile_score >= 5`" in from_profile.to_markdown()


# ---- 2: the to_overall header is true of every row ----------------------------------------------


def test_to_overall_header_names_the_rows_that_compare_two_groups(compas: pl.DataFrame) -> None:
    report = _report(compas, sensitive_features="race", method="to_overall")
    header = next(line for line in report.to_text().splitlines() if "orientation:" in line)
    described = report.to_markdown().splitlines()[2]
    two_groups = header.split("compare the most and the least selected groups")[0]
    summary = report.summary
    # which rows compare a group with the whole population, read from the summary
    pairwise = summary.filter(pl.col("compared_with") != "overall")["criterion"].to_list()
    assert set(pairwise) == {"four_fifths_rule", "two_sd_rule", "cohen_d"}
    for name in summary["criterion"]:
        assert (name in two_groups) == (name in pairwise), (name, header)
        assert (name in described) == (name in pairwise)
    # and those rows do compare the most and the least selected kept groups (numpy)
    race = compas["race"].to_numpy()
    pred = (compas["decile_score"].to_numpy() >= 5).astype(float)
    rates = {g: pred[race == g].mean() for g in np.unique(race) if (race == g).sum() >= 30}
    high, low = max(rates, key=rates.__getitem__), min(rates, key=rates.__getitem__)
    row = summary.row(by_predicate=pl.col("criterion") == "four_fifths_rule", named=True)
    assert {row["group"], row["compared_with"]} == {high, low}
    assert row["value"] == pytest.approx(rates[low] / rates[high], rel=1e-12)
    # a summary without those criteria says nothing about them
    plain = _report(
        compas, sensitive_features="race", method="to_overall",
        criteria=["demographic_parity_difference"],
    )  # fmt: skip
    assert "least selected" not in plain.to_text()


def test_reference_header_says_how_the_statistics_pick_their_group(compas: pl.DataFrame) -> None:
    report = _report(compas, sensitive_features="race", reference_group="Caucasian")
    header = next(line for line in report.to_text().splitlines() if "orientation:" in line)
    assert "two_sd_rule and cohen_d: the group whose statistic" in header


# ---- 3: a reference group too small to be compared ---------------------------------------------


def test_a_small_reference_group_is_named_and_the_gate_does_not_pass(compas: pl.DataFrame) -> None:
    n_asian = int((compas["race"].to_numpy() == "Asian").sum())
    assert 30 <= n_asian < 50
    report = _report(compas, sensitive_features="race", reference_group="Asian", min_group_size=50)
    summary = report.summary
    assert set(summary["verdict"].cast(pl.String)) == {"undefined"}
    for note in summary["note"]:
        assert f"reference group Asian (n={n_asian})" in note
        assert "min_group_size = 50" in note
        assert f"min_group_size (--min-group-size) to {n_asian} or less" in note  # the fix
    assert f"every criterion ({summary.height}): the reference group Asian" in report.to_text()
    assert "Every criterion:</b> the reference group Asian" in report.to_html()  # said once
    # the gates: a verdict gate that could judge nothing does not pass
    lines = report.failures(verdicts="unfair")
    assert len(lines) == 1
    assert "no criterion could be judged" in lines[0]
    assert "reference group Asian" in lines[0]
    with pytest.raises(polars_fair.exceptions.FairnessGateError):
        report.check()
    with pytest.warns(polars_fair.exceptions.DegenerateDataWarning, match="could not be judged"):
        assert report.failures(allow_undefined=True) == []
    assert len(report.failures(verdicts=["undefined"])) == summary.height
    # the fix the note gives works: the reference group is compared again
    fixed = _report(
        compas, sensitive_features="race", reference_group="Asian", min_group_size=n_asian
    )
    # no note says the reference group is left out (treatment equality's notes that its
    # interval holds for all its comparisons remain)
    notes = [n for n in fixed.summary["note"].to_list() if n is not None]
    assert all(n.startswith("the interval holds for all") for n in notes), notes
    assert "Asian" in fixed.summary["compared_with"].to_list()


def test_a_small_reference_in_one_batch_key_fails_that_key_only(compas: pl.DataFrame) -> None:
    report = _report(compas, sensitive_features="race", by="sex", reference_group="Asian")
    sizes = compas.filter(pl.col("race") == "Asian").group_by("sex").len()
    small = sizes.filter(pl.col("len") < 30)["sex"].to_list()
    assert small == ["Female"]
    lines = [line for line in report.failures() if "no criterion could be judged" in line]
    assert len(lines) == 1
    assert "for sex=Female" in lines[0]
    male = report.summary.filter(pl.col("sex") == "Male")
    assert male["note"].str.contains("reference group Asian").not_().all()


def test_a_gate_passing_some_unjudged_criteria_warns(compas: pl.DataFrame) -> None:
    # one of two groups without any predicted negative: NPV is undefined for it, so
    # negative_predictive_value_difference cannot be judged while the others can
    df = compas.filter(pl.col("race").is_in(["African-American", "Caucasian"])).with_columns(
        pl.when(pl.col("race") == "Caucasian").then(10).otherwise(pl.col("decile_score"))
        .alias("decile_score")
    )  # fmt: skip
    report = _report(df, sensitive_features="race")
    summary = report.summary
    verdicts = dict(zip(summary["criterion"], summary["verdict"].cast(pl.String), strict=True))
    unjudged = [c for c, v in verdicts.items() if v == "undefined"]
    assert "negative_predictive_value_difference" in unjudged
    assert len(unjudged) < len(verdicts)
    # not "fair" with a difference of 0 between a group and itself
    row = report.summary.row(
        by_predicate=pl.col("criterion") == "negative_predictive_value_difference", named=True
    )
    assert row["group"] == row["compared_with"] == "African-American"
    assert "only African-American has a value" in row["note"]
    with pytest.warns(polars_fair.exceptions.DegenerateDataWarning) as info:
        report.failures()
    message = str(info[0].message)
    assert f"{len(unjudged)} of {len(verdicts)} criteria could not be judged" in message
    assert "--fail-on-verdict unfair,undefined" in message


# ---- 5: no value, no interval --------------------------------------------------------------------


def test_a_criterion_without_a_value_has_no_interval(compas: pl.DataFrame) -> None:
    one = compas.filter(pl.col("race") == "Caucasian")
    report = _report(one, sensitive_features="race")
    row = report.summary.row(by_predicate=pl.col("criterion") == "four_fifths_rule", named=True)
    assert row["value"] is None
    assert row["ci_low"] is None
    assert row["ci_high"] is None
    assert row["verdict"] == "undefined"
    assert "fewer than two groups" in row["note"]
    # everywhere: a null value never comes with an interval
    for options in ({}, {"reference_group": "Asian", "min_group_size": 50}):
        summary = _report(compas, sensitive_features="race", **options).summary
        undefined = summary.filter(pl.col("value").is_null() | pl.col("value").is_nan())
        assert undefined["ci_low"].null_count() == undefined.height
        assert undefined["ci_high"].null_count() == undefined.height


# ---- 8: the trend chart's time axis --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [pl.Date, pl.Datetime("us"), pl.Datetime("ms", "UTC")])
def test_trend_chart_shows_dates(compas: pl.DataFrame, dtype: pl.DataType) -> None:
    pytest.importorskip("altair")
    vlc = pytest.importorskip("vl_convert")
    month = pl.col("screening_date").cast(dtype).dt.truncate("1mo").alias("month")
    profile = compas.with_columns(month).fair.profile(
        **KW,
        sensitive_features="race",
        by="month",  # type: ignore[arg-type]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chart = profile.trend_chart("demographic_parity_difference", time="month")
    spec = chart.to_dict()
    values = next(iter(spec["datasets"].values()))
    # the months, written independently from the dates of the data
    dates = compas["screening_date"].to_list()
    months = sorted({f"{d.year:04d}-{d.month:02d}-01" for d in dates})
    assert sorted({v["month"] for v in values}) == months
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert months[0] in svg
    assert months[-1] in svg
    first_ms = str(int(np.datetime64(months[0], "ms").astype("int64")))
    assert first_ms not in svg  # not epoch milliseconds
