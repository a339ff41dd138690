"""Issue 14, class 5: numbers that overflow or lose precision are never silent.

Mechanisms: every reduction's in-plan check refuses sums that overflow float64
although each value is finite (``_validate.check_sums_finite``: the weight total,
the regression sums); the regression reduction aggregates each column's range and
mean square and warns (eager path) where sums of squares cancel; a ratio across
signs (``signed_ratio_guard``, and the ``ratio`` column of measure disparities) is
null. Expected values come from numpy, written from the definitions.
"""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hardening_cases import TERMINAL, collect, frame, lazy_methods, method_kwargs

from polars_fair._numeric import CANCELLATION_TOLERANCE
from polars_fair.exceptions import NumericalWarning, ValueRangeError
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.namespace import LazyFrameFairNamespace

KINDS = ("eager", "lazy", "streaming")
WEIGHTED = [
    m
    for m in lazy_methods()
    if m not in TERMINAL
    and "sample_weight" in inspect.signature(getattr(LazyFrameFairNamespace, m)).parameters
    and not m.startswith("bootstrap")  # refuses weights altogether
]


def _call(df: pl.DataFrame, kind: str, name: str, quiet: bool = True, **kw: Any) -> Any:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings():
        if quiet:
            warnings.simplefilter("ignore")
        return collect(getattr(target.fair, name)(**kw), kind, name)


# ---- overflowing sums -------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", WEIGHTED)
def test_weights_whose_total_overflows_are_refused(name: str, kind: str) -> None:
    df = frame().with_columns(pl.lit(1e308).alias("w"))  # each finite, the sum is not
    with pytest.raises(ValueRangeError) as info:
        _call(df, kind, name, **method_kwargs(name), sample_weight="w")
    text = str(info.value)
    assert "overflows float64" in text
    assert "`sample_weight` column 'w'" in text
    assert "Hint: rescale the weights" in text


@pytest.mark.parametrize("kind", KINDS)
def test_large_weights_that_fit_give_the_rescaled_answer(kind: str) -> None:
    df = frame()
    big = df.with_columns((pl.col("w") * 1e300).alias("w"))  # total ~1e302: fits
    got = _call(big, kind, "demographic_parity_ratio", y_pred="p", sensitive_features="g",
                sample_weight="w")  # fmt: skip
    g, p, w = (df.get_column(c).to_numpy() for c in ("g", "p", "w"))
    rates = [np.sum(w[g == k] * p[g == k]) / np.sum(w[g == k]) for k in ("a", "x")]
    assert got == pytest.approx(min(rates) / max(rates), rel=1e-12)


#: The weighted methods on the binary statistics table, which carries ``sum_w2`` (the
#: Kish sizes); the regression, multiclass and ensemble reductions carry none.
KISH = [
    m for m in WEIGHTED
    if not m.startswith(("regression", "multiclass", "ensemble", "zscore"))
    and (m not in CATALOGUE or CATALOGUE[m].family not in ("regression", "ensemble"))
]  # fmt: skip


@pytest.mark.parametrize("name", KISH)
@pytest.mark.parametrize(("scale", "size"), [(1e300, "large"), (1e-200, "small")])
def test_weights_whose_squares_leave_float64_are_named(name: str, scale: float, size: str) -> None:
    """The sums of squared weights (Kish sizes) overflowed or underflowed without a word.

    Every interval and verdict then came out null or ``undefined``; now a
    NumericalWarning names the column and the fix, and the rates stay right.
    """
    df = frame().with_columns(pl.col("w") * scale)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _call(df, "eager", name, quiet=False, **method_kwargs(name), sample_weight="w")
    texts = [str(c.message) for c in caught if c.category is NumericalWarning]
    assert any(
        f"`sample_weight` column 'w' holds weights too {size} for float64" in t
        and "Hint: rescale the weights" in t
        for t in texts
    ), texts


@pytest.mark.parametrize("kind", KINDS)
def test_weights_rescaled_as_the_warning_says_give_the_verdicts(kind: str) -> None:
    """COMPAS, weights 1 to 3: x1e300 warns; divided by their maximum, the summary is
    the unscaled one (verdicts, intervals), as the Kish sizes are scale-free."""
    from polars_fair.datasets import load_compas

    compas = load_compas().with_columns(w=(1 + pl.col("age") % 3).cast(pl.Float64))
    kw = {"y_true": "two_year_recid", "y_pred": "y_pred", "sensitive_features": "race",
          "sample_weight": "w"}  # fmt: skip
    base = _call(compas, kind, "summary", **kw)
    huge = compas.with_columns(pl.col("w") * 1e300)
    if kind == "eager":  # data warnings are the eager path's (lazy plans never warn)
        with pytest.warns(NumericalWarning, match="holds weights too large"):
            broken = _call(huge, kind, "summary", quiet=False, **kw)
    else:
        broken = _call(huge, kind, "summary", **kw)
    assert set(broken.get_column("verdict")) == {"undefined"}
    fixed = _call(huge.with_columns(pl.col("w") / pl.col("w").max()), kind, "summary", **kw)
    assert fixed.get_column("verdict").to_list() == base.get_column("verdict").to_list()
    # closed-form intervals to rounding (a bootstrap redraws from counts that differ in
    # the last bits, so its percentiles move by Monte Carlo noise)
    closed = base.get_column("interval_method") != "bootstrap"
    np.testing.assert_allclose(
        fixed.filter(closed).get_column("ci_low").to_numpy(),
        base.filter(closed).get_column("ci_low").to_numpy(),
        rtol=1e-9,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["rmse_ratio", "regression_by_group", "zscore_difference",
                                  "average_score_ratio", "correlation_difference"])  # fmt: skip
def test_predictions_whose_squares_overflow_are_refused(name: str, kind: str) -> None:
    df = frame().with_columns(pl.col("q") * 1e200, pl.col("t") * 1e200)
    with pytest.raises(ValueRangeError) as info:
        _call(df, kind, name, **method_kwargs(name))
    text = str(info.value)
    assert re.search(r"the sum 'sum_\w+' overflows float64", text)
    assert "`y_pred` column 'q'" in text or "`y_true` column 't'" in text
    assert "Hint: rescale the values" in text


@pytest.mark.parametrize("kind", KINDS)
def test_rescaled_predictions_give_the_rmse_ratio(kind: str) -> None:
    # the fix the message suggests: 1e200 values divided by 1e100 audit correctly
    df = frame().with_columns(pl.col("q") * 1e100, pl.col("t") * 1e100)
    got = _call(df, kind, "rmse_ratio", y_pred="q", y_true="t", sensitive_features="g")
    g, q, t = (df.get_column(c).to_numpy() for c in ("g", "q", "t"))
    rmse = [np.sqrt(np.mean((q[g == k] - t[g == k]) ** 2)) for k in ("a", "x")]
    assert got == pytest.approx(min(rmse) / max(rmse), rel=1e-9)


# ---- cancellation ---------------------------------------------------------------------


def _near_constant(n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    g = np.where(np.arange(n) % 2 == 0, "a", "x")
    return pl.DataFrame({"g": g, "q": 1e6 + rng.choice([-1.0, 1.0], n), "t": rng.normal(0, 1, n)})


@pytest.mark.parametrize("kind", KINDS)
def test_cancelling_predictions_warn_on_the_eager_path(kind: str) -> None:
    df = _near_constant()
    kw = {"y_pred": "q", "sensitive_features": "g"}
    if kind == "eager":
        with pytest.warns(NumericalWarning) as record:
            _call(df, kind, "regression_by_group", quiet=False, **kw)
        text = str(record[0].message)
        assert "`y_pred` column 'q' varies by less than" in text
        assert "groups ['a', 'x']" in text
        assert "Hint: centre the column first, e.g. `y_pred=pl.col('q') - 1000000.0`" in text
    else:  # lazy plans stay silent (warnings are errors here): the value is as before
        out = _call(df, kind, "regression_by_group", quiet=False, **kw)
        assert out.height == 2


@pytest.mark.parametrize("kind", KINDS)
def test_the_suggested_centring_recovers_the_std(kind: str) -> None:
    df = _near_constant()
    centred = df.with_columns(pl.col("q") - 1e6)
    out = _call(centred, kind, "regression_by_group", quiet=False, y_pred="q",
                sensitive_features="g")  # fmt: skip
    g, q = df.get_column("g").to_numpy(), df.get_column("q").to_numpy()
    expected = [np.std(q[g == k]) for k in ("a", "x")]  # numpy on the raw values
    assert out.get_column("std_prediction").to_list() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_ordinary_spread_does_not_warn(kind: str) -> None:
    # warnings are errors in the pytest configuration: none may be issued here
    df = frame()
    out = _call(df, kind, "regression_by_group", quiet=False, y_pred="q", sensitive_features="g")
    g, q = df.get_column("g").to_numpy(), df.get_column("q").to_numpy()
    expected = [np.std(q[g == k]) for k in ("a", "x")]
    assert out.get_column("std_prediction").to_list() == pytest.approx(expected, rel=1e-9)


def test_tolerance_is_documented() -> None:
    assert CANCELLATION_TOLERANCE == 1e-5


# ---- ratios across signs ----------------------------------------------------------------


def _signed(a: float, x: float) -> pl.DataFrame:
    return pl.DataFrame({"g": ["a", "a", "x", "x"], "q": [a, a, x, x]})


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
@pytest.mark.parametrize(("a", "x"), [(-1.0, 2.0), (-2.0, -1.0), (0.0, -3.0)])
def test_ratio_of_means_across_signs_is_null(kind: str, method: str, a: float, x: float) -> None:
    kw = {"y_pred": "q", "sensitive_features": "g", "method": method}
    assert _call(_signed(a, x), kind, "average_score_ratio", **kw) is None
    # the difference stays defined
    diff = _call(_signed(a, x), kind, "average_score_difference", **kw)
    assert diff is not None


@pytest.mark.parametrize("kind", KINDS)
def test_ratio_of_positive_means_is_kept(kind: str) -> None:
    got = _call(_signed(1.0, 4.0), kind, "average_score_ratio", y_pred="q", sensitive_features="g")
    assert got == pytest.approx(1.0 / 4.0, rel=1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_disparities_ratio_across_signs_is_null(kind: str) -> None:
    out = _call(_signed(-1.0, 2.0), kind, "regression_disparities", y_pred="q",
                sensitive_features="g", metrics=["mean_prediction"])  # fmt: skip
    assert out.get_column("ratio").to_list() == [None, None]
    assert out.get_column("difference").to_list() == [0.0, 3.0]  # x minus the reference a
