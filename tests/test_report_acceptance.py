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
    ppv = [str(w.message) for w in caught if "positive_predictive_value is undefined" in str(w.message)]
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
        assert 'col(\\"decile_score\\")' not in out and 'col("decile_score")' not in out
    assert "`decile_score >= 5`" in from_profile.to_markdown()
