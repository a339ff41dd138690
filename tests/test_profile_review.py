"""A profile derives what the rows give: ``profile.criterion`` and ``profile.slices``.

* ``profile.criterion(name)`` equals ``df.fair.<name>(...)`` on the rows, for every
  criterion a profile supports, with and without a reference group, with weights and
  with batch keys (the four-fifths rule, the 2-SD rule and Cohen's d included: the
  summary defines them differently, the criterion must not).
* ``profile.slices(...)`` equals ``df.fair.slices(...)`` on the rows (COMPAS, with and
  without weights and batch keys, from a profile with a score too), and
  ``profile.report(slices=...)`` equals ``df.fair.report(slices=...)``; a profile not
  made at the crossing of the candidates, and parameters only the rows can answer,
  are refused with a message naming them and the fix.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair.datasets import load_compas
from polars_fair.metrics._rates import SCORE_RATES
from polars_fair.metrics._registry import CRITERIA

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

CANDIDATES = ["race", "sex", "age_cat"]
_COLUMNS = ("y_true", "y_pred", "y_prob", "sample_weight", "pos_label")


@functools.cache
def _compas() -> pl.DataFrame:
    return load_compas().with_columns(
        half=(pl.col("id") % 2).cast(pl.Int64), w=(pl.col("id") % 7 + 1) * 0.37
    )


def _kw(weighted: bool, by: str | None, **extra: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "y_true": "two_year_recid",
        "y_pred": pl.col("decile_score") >= 5,
        "by": by,
        "sample_weight": "w" if weighted else None,
    }
    return {**kw, **extra}


@functools.cache
def _profile(weighted: bool, by: str | None, scored: bool, sensitive: tuple[str, ...]) -> Any:
    kw = _kw(weighted, by, y_prob="y_prob" if scored else None)
    return _compas().fair.profile(**kw, sensitive_features=list(sensitive))


def _same(got: Any, want: Any, exact: bool) -> None:
    if isinstance(want, pl.DataFrame):
        assert isinstance(got, pl.DataFrame)
        assert_frame_equal(got, want, check_exact=exact, rel_tol=1e-9)
    elif want is None or exact:
        assert got == want
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


# ---- profile.criterion is df.fair.<name> ----------------------------------------------------

CASES = {
    "plain": {"weighted": False, "by": None, "options": {}},
    "reference": {"weighted": False, "by": None, "options": {"reference_group": "Caucasian"}},
    "weighted": {"weighted": True, "by": None, "options": {}},
    "weighted-reference": {
        "weighted": True,
        "by": None,
        "options": {"reference_group": "Caucasian"},
    },  # fmt: skip
    "by": {"weighted": False, "by": "half", "options": {}},
    "by-weighted-reference": {
        "weighted": True,
        "by": "half",
        "options": {"reference_group": "African-American"},
    },  # fmt: skip
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", list(CRITERIA))
def test_criterion_equals_the_namespace_method_on_rows(name: str, case: str) -> None:
    weighted, by, options = (CASES[case][k] for k in ("weighted", "by", "options"))
    df = _compas()
    prof = _profile(weighted, by, True, ("race",))
    method = getattr(df.fair, name)
    params = inspect.signature(method).parameters
    kw = _kw(weighted, by, y_prob="y_prob", sensitive_features="race")
    want = method(**{k: v for k, v in kw.items() if k in params}, **options)
    got = prof.criterion(name, **options)
    # integer counts give bit-identical values; weight and score sums agree to rounding
    scored = any(m in SCORE_RATES for m in CRITERIA[name].measures)
    _same(got, want, exact=not (weighted or scored))


@pytest.mark.parametrize(
    ("name", "options", "want"),
    [
        ("four_fifths_rule", {"reference_group": "Caucasian"}, 0.5220),
        ("two_sd_rule", {}, -18.451),
        ("cohen_d", {}, -0.7809),
    ],
)
def test_the_three_reported_criteria_match_the_rows(
    name: str, options: dict[str, Any], want: float
) -> None:
    # the reported repro: COMPAS (ProPublica's file), race, decile_score >= 5
    path = "/work/shared/data/compas-scores-two-years.csv"
    try:
        raw = pl.read_csv(path, infer_schema_length=10000)
    except OSError:
        pytest.skip("the full COMPAS file is not here")
    kw = {"y_pred": pl.col("decile_score") >= 5, "sensitive_features": "race"}
    prof = raw.fair.profile(y_true="two_year_recid", **kw)
    rows = getattr(raw.fair, name)(**kw, **options)
    assert round(rows, 4) == pytest.approx(want, abs=1e-4)
    assert prof.criterion(name, **options) == rows


@pytest.mark.parametrize("name", ["equalized_odds_difference", "equalized_odds_ratio"])
@pytest.mark.parametrize("options", [{"agg": "mean"}, {"method": "to_overall"}])
def test_criterion_options_are_the_method_options(name: str, options: dict[str, Any]) -> None:
    df = _compas()
    kw = _kw(False, None, sensitive_features="race")
    del kw["by"], kw["sample_weight"]
    want = getattr(df.fair, name)(**kw, **options)
    assert _profile(False, None, True, ("race",)).criterion(name, **options) == want


def test_criterion_zero_division_as_on_rows() -> None:
    df = _compas().filter(~((pl.col("race") == "Asian") & (pl.col("two_year_recid") == 0)))
    kw = {"y_true": "two_year_recid", "y_pred": "y_pred", "sensitive_features": "race"}
    prof = df.fair.profile(**kw)
    for zd in (None, 0.0):
        want = df.fair.false_positive_rate_ratio(**kw, zero_division=zd)
        assert prof.criterion("false_positive_rate_ratio", zero_division=zd) == want


def test_criterion_refuses_what_the_method_does_not_take() -> None:
    prof = _profile(False, None, False, ("race",))
    with pytest.raises(pf.InvalidParameterError, match=r"takes no \['min_group_size'\]") as exc:
        prof.criterion("demographic_parity_difference", min_group_size=30)
    assert "profile.summary(criteria=['demographic_parity_difference']" in str(exc.value)
    with pytest.raises(pf.InvalidParameterError, match=r"\['y_pred'\] are fixed"):
        prof.criterion("cohen_d", y_pred="y_pred")
    with pytest.raises(pf.InvalidParameterError, match=r"takes no \['method'\]"):
        prof.criterion("cohen_d", method="to_overall")


def test_score_criterion_needs_a_profile_with_a_score() -> None:
    prof = _profile(False, None, False, ("race",))
    with pytest.raises(pf.ProfileError, match="profile with `y_prob=`"):
        prof.criterion("balance_for_positive_class_difference")


# ---- profile.slices is df.fair.slices --------------------------------------------------------


def _rows_slices(weighted: bool, by: str | None, **options: Any) -> pl.DataFrame:
    kw = _kw(weighted, by)
    result: pl.DataFrame = _compas().fair.slices(**kw, **options)
    return result


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weighted"])
@pytest.mark.parametrize("by", [None, "half"])
@pytest.mark.parametrize(
    "options",
    [
        {"candidates": CANDIDATES},
        {"candidates": CANDIDATES, "max_depth": 3, "metric": "selection_rate", "top": 5},
        {"candidates": ["age_cat", "race"], "min_size": 50, "alpha": 0.1, "correction": "holm"},
        {"candidates": ["sex", "race"], "direction": "higher", "metric": "true_positive_rate"},
    ],
    ids=["default", "depth3", "subset", "direction"],
)
def test_slices_equal_slices_on_rows(
    weighted: bool, by: str | None, options: dict[str, Any]
) -> None:
    prof = _profile(weighted, by, False, tuple(CANDIDATES))
    got = prof.slices(**options)
    want = _rows_slices(weighted, by, **options)
    assert got.height > 0
    assert_frame_equal(got, want, check_exact=not weighted, rel_tol=1e-9)


def test_slices_from_a_scored_profile_and_after_parquet(tmp_path: Any) -> None:
    prof = _profile(True, "half", True, tuple(CANDIDATES))
    want = _rows_slices(True, "half", candidates=CANDIDATES)
    assert_frame_equal(prof.slices(candidates=CANDIDATES), want, check_exact=False, rel_tol=1e-9)
    prof.write_parquet(tmp_path / "p.parquet")
    back = pf.read_profile(tmp_path / "p.parquet")
    assert_frame_equal(back.slices(candidates=CANDIDATES), want, check_exact=False, rel_tol=1e-9)


def test_slices_of_merged_profiles_equal_slices_of_the_union() -> None:
    df = _compas()
    kw = {**_kw(False, None), "sensitive_features": CANDIDATES}
    parts = [df.filter(pl.col("half") == h).fair.profile(**kw) for h in (0, 1)]
    merged = pf.merge_profiles(parts)
    assert_frame_equal(
        merged.slices(candidates=CANDIDATES), _rows_slices(False, None, candidates=CANDIDATES)
    )


def test_slices_need_the_crossing_of_the_candidates() -> None:
    prof = _profile(False, None, False, ("race",))
    with pytest.raises(pf.ProfileError, match=r"\['sex', 'age_cat'\]") as exc:
        prof.slices(candidates=CANDIDATES)
    assert "sensitive_features=['race', 'sex', 'age_cat']" in str(exc.value)


@pytest.mark.parametrize(
    "given",
    [
        {"n_bins": 3},
        {"strategy": "finest"},
        {"y_true": "two_year_recid"},
        {"by": "half"},
        {"sample_weight": "w"},
        {"pos_label": 0},
        {"y_pred": "y_pred"},
    ],  # fmt: skip
    ids=lambda d: next(iter(d)),
)
def test_slices_refuse_what_only_the_rows_can_answer(given: dict[str, Any]) -> None:
    prof = _profile(False, None, False, tuple(CANDIDATES))
    name = next(iter(given))
    with pytest.raises(pf.InvalidParameterError, match=rf"\['{name}'\]") as exc:
        prof.slices(candidates=CANDIDATES, **given)
    assert "df.fair.slices" in str(exc.value)


def test_slices_refuse_unknown_parameters() -> None:
    prof = _profile(False, None, False, tuple(CANDIDATES))
    with pytest.raises(pf.InvalidParameterError, match=r"unknown parameter\(s\) \['depth'\]"):
        prof.slices(candidates=CANDIDATES, depth=2)


def test_slices_refuse_numeric_candidates_and_means() -> None:
    df = _compas()
    kw = _kw(False, None)
    prof = df.fair.profile(**kw, sensitive_features=["race", "priors_count"])
    with pytest.raises(pf.ProfileError, match="'priors_count' is numeric"):
        prof.slices(candidates=["race", "priors_count"])
    # as a string, the values are the slices on both sides
    cast = df.with_columns(pl.col("priors_count").cast(pl.String))
    prof = cast.fair.profile(**kw, sensitive_features=["race", "priors_count"])
    got = prof.slices(candidates=["race", "priors_count"])
    want = cast.fair.slices(**kw, candidates=["race", "priors_count"])
    assert_frame_equal(got, want)
    with pytest.raises(pf.ProfileError, match="'mae'"):
        prof.slices(candidates=["race"], metric="mae")
    with pytest.raises(pf.InvalidParameterError, match="`max_depth`"):
        prof.slices(candidates=["race"], max_depth=0)


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weighted"])
def test_report_with_slices_equals_the_report_on_rows(weighted: bool) -> None:
    df = _compas()
    kw = {**_kw(weighted, "half"), "sensitive_features": CANDIDATES}
    prof = df.fair.profile(**kw)
    options = {"slices": ["race", "sex"], "max_depth": 2, "min_group_size": 40}
    got = prof.report(**options)
    want = df.fair.report(**kw, **options)
    assert got.slices is not None
    assert want.slices is not None
    assert_frame_equal(got.slices, want.slices, check_exact=not weighted, rel_tol=1e-9)
    assert_frame_equal(got.summary, want.summary, check_exact=False, rel_tol=1e-9)
    for key in ("slices", "max_depth", "slice_metric"):
        assert got.params[key] == want.params[key]
    assert prof.report().slices is None
    assert "slices" not in prof.report().params
