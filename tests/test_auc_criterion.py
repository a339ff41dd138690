"""``roc_auc_difference`` / ``roc_auc_ratio``: values, DeLong intervals, every surface.

Every number is checked against ``tests/reference_auc.py``: a numpy oracle that
compares every positive with every negative of a group (the AUC's definition), and
computes DeLong's variance from each row's placement, brute force.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference as ref
import reference_auc as ref_auc
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import polars_fair as pf
from polars_fair.cli import main
from polars_fair.metrics._intervals import z_value

NAMES = ["roc_auc_difference", "roc_auc_ratio"]
KINDS = {"roc_auc_difference": "difference", "roc_auc_ratio": "ratio"}
COLS = {"y_true": "y", "y_prob": "s", "sensitive_features": "g"}
Z = z_value(0.95)


def _frame(
    seed: int = 0, *, step: float = 0.05, sizes: tuple[int, ...] = (70, 50, 40)
) -> pl.DataFrame:
    """Groups a, b, c with their own separations; scores on a grid of `step` (ties)."""
    rng = np.random.default_rng(seed)
    parts = []
    for name, n, shift in zip("abc", sizes, (1.2, 0.6, 0.9), strict=False):
        y = (rng.random(n) < 0.45).astype(np.int64)
        x = rng.normal(shift * y, 1.0)
        s = np.round(1 / (1 + np.exp(-x)) / step) * step
        w = rng.integers(1, 4, n).astype(np.float64)  # integer weights: row counts
        parts.append(pl.DataFrame({"g": [name] * n, "y": y, "s": np.clip(s, 0, 1), "w": w}))
    return pl.concat(parts)


def _arrays(df: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    w = df["w"].to_numpy() if "w" in df.columns else np.ones(df.height)
    return df["g"].to_numpy(), df["y"].to_numpy(), df["s"].to_numpy(), w


def _want(df: pl.DataFrame, name: str, method: str, ref_key: Any, weighted: bool) -> Any:
    g, y, s, w = _arrays(df)
    ww = w if weighted else None
    values = {k: a for k, (a, _) in ref_auc.per_group(g, y, s, ww).items()}
    overall = ref_auc.auc_delong(y, s, ww)[0]
    return ref.compare(values, overall, KINDS[name], method, ref_key)


def _close(got: Any, want: Any, tol: float = 1e-12) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=tol)


# ---- the criterion's value --------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference"])
@pytest.mark.parametrize("name", NAMES)
def test_value_is_the_pairwise_definition(run: Any, name: str, method: str, weighted: bool) -> None:
    df = _frame(1)
    kw: dict[str, Any] = (
        {"reference_group": "b"} if method == "to_reference" else {"method": method}
    )
    if weighted:
        kw["sample_weight"] = "w"
    got = run(df, name, **COLS, **kw)
    assert _close(got, _want(df, name, method, ("b",), weighted))


@pytest.mark.parametrize("weighted", [False, True])
def test_group_auc_is_sklearn_s(weighted: bool) -> None:
    df = _frame(2)
    g, y, s, w = _arrays(df)
    sk = {
        k: roc_auc_score(y[g == k], s[g == k], sample_weight=w[g == k] if weighted else None)
        for k in "abc"
    }
    mine = ref_auc.per_group(g, y, s, w if weighted else None)
    assert all(_close(mine[(k,)][0], sk[k]) for k in "abc")
    got = df.fair.roc_auc_difference(**COLS, sample_weight="w" if weighted else None)
    assert _close(got, max(sk.values()) - min(sk.values()))
    got = df.fair.roc_auc_ratio(
        **COLS, reference_group="a", sample_weight="w" if weighted else None
    )
    far = max(("b", "c"), key=lambda k: abs(math.log(sk[k] / sk["a"])))
    assert _close(got, sk[far] / sk["a"])


def test_by_keys_each_key_its_own_comparison(run: Any) -> None:
    df = pl.concat([_frame(3).with_columns(k=pl.lit(1)), _frame(4).with_columns(k=pl.lit(2))])
    got = run(df, "roc_auc_difference", **COLS, by="k")
    want = [_want(df.filter(pl.col("k") == k), "roc_auc_difference", "between_groups", None, False)
            for k in (1, 2)]  # fmt: skip
    assert got["k"].to_list() == [1, 2]
    assert all(_close(a, b) for a, b in zip(got["roc_auc_difference"], want, strict=True))


def test_a_group_of_one_class_is_left_out_with_a_warning() -> None:
    df = _frame(5).with_columns(y=pl.when(pl.col("g") == "c").then(0).otherwise(pl.col("y")))
    with pytest.warns(pf.UndefinedMetricWarning, match=r"\['c'\].*left out of roc_auc_difference"):
        got = df.fair.roc_auc_difference(**COLS)
    assert _close(got, _want(df, "roc_auc_difference", "between_groups", None, False))


# ---- the summary: DeLong's interval -----------------------------------------------------


def _pair(df: pl.DataFrame, weighted: bool = False) -> dict[Any, tuple[float, float]]:
    g, y, s, w = _arrays(df)
    return {k[0]: v for k, v in ref_auc.per_group(g, y, s, w if weighted else None).items()}  # type: ignore[misc]


@pytest.mark.parametrize("reference", [None, "b"])
def test_summary_interval_is_delong_s(run: Any, reference: str | None) -> None:
    df = _frame(6)
    extra = {"reference_group": reference} if reference else {}
    got = run(df, "summary", **COLS, y_pred=pl.col("s") >= 0.5, criteria=NAMES, **extra)
    aucs = _pair(df)
    assert got["criterion"].to_list() == NAMES
    for row in got.iter_rows(named=True):
        kind = KINDS[row["criterion"]]
        (a1, v1), (a2, v2) = aucs[row["group"]], aucs[row["compared_with"]]
        value = a1 - a2 if kind == "difference" else a1 / a2
        low, high = ref_auc.pair_interval(a1, v1, a2, v2, kind, Z)
        assert _close(row["value"], value)
        assert _close(row["value"], _want(df, row["criterion"], "to_reference" if reference
                                          else "between_groups", (reference,), False))  # fmt: skip
        assert _close(row["ci_low"], low)
        assert _close(row["ci_high"], high)
        assert row["interval_method"] == ("delong" if kind == "difference" else "delong_log")
        assert row["group_n"] == (df["g"] == row["group"]).sum()
        if reference:
            assert row["compared_with"] == reference


def test_summary_weighted_frequency_weights_are_replicated_rows() -> None:
    df = _frame(7)
    kw = {**COLS, "y_pred": pl.col("s") >= 0.5, "criteria": NAMES, "min_group_size": 0}
    weighted = df.fair.summary(**kw, sample_weight="w", frequency_weights=True)
    rows = df.select(pl.all().repeat_by(pl.col("w").cast(pl.Int64)).explode())
    replicated = rows.fair.summary(**kw)
    cols = ["criterion", "value", "ci_low", "ci_high", "group", "compared_with"]
    assert_frame_equal(weighted.select(cols), replicated.select(cols), rel_tol=1e-9)
    aucs = _pair(df, weighted=True)  # the weighted oracle: pairs count w_i w_j
    row = weighted.row(0, named=True)
    (a1, v1), (a2, v2) = aucs[row["group"]], aucs[row["compared_with"]]
    assert _close(row["ci_low"], ref_auc.pair_interval(a1, v1, a2, v2, "difference", Z)[0])


def test_summary_to_overall_is_judged_on_the_value() -> None:
    df = _frame(9)
    got = df.fair.summary(**COLS, y_pred=pl.col("s") >= 0.5, criteria=NAMES, method="to_overall")
    assert got["interval_method"].to_list() == ["none", "none"]
    assert got["compared_with"].to_list() == ["overall", "overall"]
    for row in got.iter_rows(named=True):
        assert _close(row["value"], _want(df, row["criterion"], "to_overall", None, False))


def test_summary_small_groups_are_left_out() -> None:
    df = _frame(10, sizes=(70, 50, 12))
    got = df.fair.summary(**COLS, y_pred=pl.col("s") >= 0.5, criteria=NAMES)  # min 30
    assert got["excluded"].to_list() == ["c (n=12)"] * 2
    assert got["n_groups"].to_list() == [2, 2]
    kept = df.filter(pl.col("g") != "c")
    assert _close(got["value"][0], _want(kept, NAMES[0], "between_groups", None, False))


def test_summary_orders_auc_rows_among_the_others(run: Any) -> None:
    df = _frame(11)
    names = ["roc_auc_ratio", "demographic_parity_difference", "roc_auc_difference"]
    kw = {**COLS, "y_pred": pl.col("s") >= 0.5, "criteria": names}
    got = run(df, "summary", **kw)
    assert got["criterion"].to_list() == names
    alone = df.fair.summary(**{**kw, "criteria": ["demographic_parity_difference"]})
    assert got.filter(pl.col("criterion") == "demographic_parity_difference").equals(alone)
    auc = df.fair.summary(**{**kw, "criteria": NAMES})
    assert got.filter(pl.col("criterion") != "demographic_parity_difference").sort(
        "criterion").equals(auc.sort("criterion"))  # fmt: skip


# ---- the coverage of the interval ------------------------------------------------------


def test_interval_of_the_difference_covers_at_the_stated_rate() -> None:
    """400 draws of two groups (120 rows each, the same score distribution): the 95%
    DeLong interval of the difference excluded 0 in 18 of 400 draws (4.5%) when
    written; a correct 95% interval gives 20 on average (binomial sd 4.4): we ask for
    8 to 36 (within about 3 sd)."""
    rng = np.random.default_rng(2026)
    draws, n = 400, 120
    y = (rng.random((draws, 2 * n)) < 0.4).astype(np.int64)
    s = np.round(1 / (1 + np.exp(-rng.normal(0.8 * y, 1.0))), 3)
    df = pl.DataFrame({
        "draw": np.repeat(np.arange(draws), 2 * n), "g": np.tile(["a"] * n + ["b"] * n, draws),
        "y": y.ravel(), "s": s.ravel(),
    })  # fmt: skip
    got = df.fair.summary(**COLS, y_pred=pl.col("s") >= 0.5, criteria=["roc_auc_difference"],
                          by="draw")  # fmt: skip
    assert got.height == draws
    assert got["ci_low"].null_count() == 0
    missed = int(((got["ci_low"] > 0) | (got["ci_high"] < 0)).sum())
    assert 8 <= missed <= 36, missed
    # and the intervals are DeLong's, draw by draw (a few checked by brute force)
    for d in (0, 199, 399):
        part = df.filter(pl.col("draw") == d)
        row = got.row(d, named=True)
        aucs = _pair(part)
        (a1, v1), (a2, v2) = aucs[row["group"]], aucs[row["compared_with"]]
        assert _close(row["ci_low"], ref_auc.pair_interval(a1, v1, a2, v2, "difference", Z)[0])


# ---- every surface ---------------------------------------------------------------------

KW = {**COLS, "y_pred": "p"}


def _scored(seed: int) -> pl.DataFrame:
    return _frame(seed).with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))


def test_report_and_exact_profile_equal_the_summary() -> None:
    df = _scored(12)
    crit = ["roc_auc_ratio", "equal_opportunity_difference", "roc_auc_difference"]
    summary = df.fair.summary(**KW, criteria=crit)
    report = df.lazy().fair.report(**KW, criteria=crit)
    assert report.summary.equals(summary)
    exact = df.fair.profile(**KW, exact_scores=True)
    assert exact.report(criteria=crit).summary.equals(summary)
    assert exact.summary(criteria=["roc_auc_difference"]).equals(
        df.fair.summary(**KW, criteria=["roc_auc_difference"])
    )
    for name in NAMES:
        assert exact.criterion(name) == getattr(df.fair, name)(**COLS)
        assert exact.criterion(name, reference_group="a") == getattr(df.fair, name)(
            **COLS, reference_group="a"
        )


def test_binned_profile_is_the_definition_on_floored_scores() -> None:
    df = _scored(13).with_columns(s=(pl.col("s") + 0.013).clip(0, 1))  # scores off the bins
    bins = 10
    prof = df.fair.profile(**KW, score_bins=bins)
    floored = df.with_columns(s=(pl.col("s") * bins).floor() / bins)
    got = prof.summary(criteria=NAMES)
    aucs = _pair(floored)
    for row in got.iter_rows(named=True):
        kind = KINDS[row["criterion"]]
        (a1, v1), (a2, v2) = aucs[row["group"]], aucs[row["compared_with"]]
        assert _close(row["value"], a1 - a2 if kind == "difference" else a1 / a2)
        low, high = ref_auc.pair_interval(a1, v1, a2, v2, kind, Z)
        assert _close(row["ci_low"], low)
        assert _close(row["ci_high"], high)
    for name in NAMES:
        assert _close(prof.criterion(name), _want(floored, name, "between_groups", None, False))
    # the binned AUC is within the profile's stated bound of the exact one
    exact = df.fair.roc_auc(**COLS).sort("g")["roc_auc"].to_numpy()
    binned = np.array([aucs[k][0] for k in "abc"])
    assert np.all(np.abs(binned - exact) <= prof.auc_error_bound()["auc_error_bound"].to_numpy())


def test_cli_json_and_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    df = _scored(14)
    path = tmp_path / "d.parquet"
    df.write_parquet(path)
    args = ["audit", str(path), "--y-true", "y", "--y-pred", "p", "--y-prob", "s",
            "--sensitive-features", "g", "--no-progress"]  # fmt: skip
    assert main([*args, "--format", "json", "--criteria", ",".join(NAMES)]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]["summary"]
    want = df.fair.summary(**KW, criteria=NAMES)
    assert [r["criterion"] for r in rows] == NAMES
    for r, w in zip(rows, want.iter_rows(named=True), strict=True):
        assert _close(r["value"], w["value"])
        assert _close(r["ci_low"], w["ci_low"])
    value = want["value"][0]
    assert main([*args, "--fail-on", f"roc_auc_difference > {value / 2:.4f}"]) == 1
    assert "roc_auc_difference" in capsys.readouterr().out
    assert main([*args, "--fail-on", f"roc_auc_difference > {value * 2 + 0.01:.4f}"]) == 0


def test_compare_and_trend_read_the_auc_rows() -> None:
    df = _scored(15)
    report = df.fair.report(**KW, criteria=NAMES)
    compared = report.compare(report)
    assert compared.filter(pl.col("criterion").is_in(NAMES))["verdict"].to_list() == [
        "unchanged", "unchanged",
    ]  # fmt: skip
    weeks = pl.concat([df.with_columns(t=pl.lit(1)), _scored(16).with_columns(t=pl.lit(2))])
    prof = weeks.fair.profile(**KW, by="t", exact_scores=True)
    trend = prof.trend("roc_auc_difference", time="t")
    want = [_want(weeks.filter(pl.col("t") == t), "roc_auc_difference", "between_groups", None,
                  False) for t in (1, 2)]  # fmt: skip
    assert all(_close(a, b) for a, b in zip(trend["value"], want, strict=True))


# ---- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_naming_them_without_a_score_is_refused(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    df = _scored(17)
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "criteria": [name]}
    match = f"'{name}' compares the groups' ROC AUC, and no score column was given"
    with pytest.raises(pf.InvalidParameterError, match=match):
        df.fair.summary(**kw)
    with pytest.raises(pf.InvalidParameterError, match=match):
        df.lazy().fair.report(**kw)
    prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    with pytest.raises(pf.ProfileError, match="reads a score, and this profile has no score"):
        prof.criterion(name)
    path = tmp_path / "d.parquet"
    df.write_parquet(path)
    code = main(["audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features",
                 "g", "--no-progress", "--fail-on", f"{name} > 0.05"])  # fmt: skip
    assert code == 2
    assert "no score column was given" in capsys.readouterr().err
    with pytest.raises(pf.InvalidParameterError, match="cannot redraw scores"):
        df.fair.bootstrap(y_true="y", y_pred="p", sensitive_features="g", criteria=[name])


def test_a_reference_policy_other_than_largest_is_refused() -> None:
    with pytest.raises(pf.InvalidParameterError, match="reference_group"):
        _frame().fair.roc_auc_difference(**COLS, reference_group="min")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _frame().fair.roc_auc_difference(**COLS, reference_group="largest") is not None


# ---- groups, keys and undefined values -------------------------------------------------


def test_intersectional_groups_and_a_tuple_reference(run: Any) -> None:
    df = _frame(18, sizes=(120, 100, 90)).with_columns(
        sex=pl.Series(np.random.default_rng(18).choice(["F", "M"], 310))
    )
    kw = {"y_true": "y", "y_prob": "s", "sensitive_features": ["g", "sex"]}
    got = run(df, "roc_auc_ratio", **kw, reference_group=("a", "F"))
    keys = (df["g"] + "|" + df["sex"]).to_numpy()
    aucs = ref_auc.per_group(keys, df["y"].to_numpy(), df["s"].to_numpy())
    values = {k: a for k, (a, _) in aucs.items()}
    assert _close(got, ref.compare(values, None, "ratio", "to_reference", ("a|F",)))
    summary = run(df, "summary", **kw, y_pred=pl.col("s") >= 0.5, criteria=["roc_auc_ratio"],
                  reference_group=("a", "F"), min_group_size=0)  # fmt: skip
    assert summary["compared_with"].to_list() == ["a / F"]
    assert _close(summary["value"][0], got)


def test_report_by_keys_merges_rows_key_by_key() -> None:
    df = pl.concat(
        [_scored(19).with_columns(k=pl.lit("x")), _scored(20).with_columns(k=pl.lit("y"))]
    )
    crit = ["roc_auc_difference", "demographic_parity_difference", "roc_auc_ratio"]
    report = df.fair.report(**KW, criteria=crit, by="k")
    assert report.summary.select("k", "criterion").rows() == [(k, c) for k in "xy" for c in crit]
    assert report.summary.equals(df.fair.summary(**KW, criteria=crit, by="k"))
    for k in "xy":
        row = report.summary.filter((pl.col("k") == k) & (pl.col("criterion") == crit[0])).row(
            0, named=True
        )
        want = _want(df.filter(pl.col("k") == k), crit[0], "between_groups", None, False)
        assert _close(row["value"], want)


def test_a_reference_of_one_class_gives_no_value() -> None:
    df = _frame(21).with_columns(y=pl.when(pl.col("g") == "a").then(1).otherwise(pl.col("y")))
    with pytest.warns(pf.UndefinedMetricWarning, match=r"\['a'\]"):
        assert df.fair.roc_auc_difference(**COLS, reference_group="a") is None
    with pytest.warns(pf.UndefinedMetricWarning, match=r"\['a'\]"):
        got = df.fair.summary(**COLS, y_pred="y", criteria=NAMES, reference_group="a")
    assert got["verdict"].to_list() == ["undefined", "undefined"]
    assert got["value"].null_count() == 2
    # zero_division replaces the undefined AUC, as for every criterion
    with pytest.warns(pf.UndefinedMetricWarning):
        filled = df.fair.roc_auc_difference(**COLS, reference_group="a", zero_division=0.5)
    g, y, s, _ = _arrays(df)
    values = {k: (0.5 if a is None else a) for k, (a, _) in ref_auc.per_group(g, y, s).items()}
    assert _close(filled, ref.compare(values, None, "difference", "to_reference", ("a",)))
    with pytest.warns(pf.UndefinedMetricWarning):
        row = df.fair.summary(**COLS, y_pred="y", criteria=NAMES[:1], reference_group="a",
                              zero_division=0.5).row(0, named=True)  # fmt: skip
    assert _close(row["value"], filled)
    assert row["ci_low"] is None  # no variance for a group of one class


def test_many_distinct_scores_are_not_taken_for_an_identifier() -> None:
    # the ROC table has a row per distinct score: 3,000 rows for three groups
    rng = np.random.default_rng(22)
    y = rng.integers(0, 2, 3000)
    df = pl.DataFrame({"g": rng.choice(["a", "b", "c"], 3000), "y": y,
                       "s": 1 / (1 + np.exp(-rng.normal(y, 1.0)))})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = df.fair.roc_auc_difference(**COLS)
    assert _close(
        got, _want(df.with_columns(w=pl.lit(1.0)), NAMES[0], "between_groups", None, False)
    )


def test_a_mixed_summary_warns_once_about_excluded_rows() -> None:
    df = _scored(23).with_columns(y=pl.when(pl.int_range(pl.len()) % 9 == 0).then(None)
                                  .otherwise(pl.col("y")))  # fmt: skip
    names = ["demographic_parity_difference", "roc_auc_difference"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = df.fair.summary(**KW, criteria=names)
    assert [w.category for w in caught] == [pf.NullDataWarning]
    assert caught[0].filename == __file__  # the caller's line
    kept = df.filter(pl.col("y").is_not_null())
    assert _close(got["value"][1], _want(kept, names[1], "between_groups", None, False))


@pytest.mark.parametrize("engine", ["lazy", "eager"])
def test_a_mixed_summary_reads_the_rows_once(engine: str) -> None:
    from test_profile import Source  # noqa: PLC0415 (the counting IO source)

    df = _scored(29)
    names = ["roc_auc_difference", "demographic_parity_difference", "roc_auc_ratio"]
    source = Source(df)
    frame = source.lazy()
    if engine == "lazy":
        got = frame.fair.summary(**KW, criteria=names).collect()
    else:
        got = frame.collect()
        source.calls = 0
        got = got.fair.summary(**KW, criteria=names)
    assert source.calls == (1 if engine == "lazy" else 0)
    want = pl.concat([df.fair.summary(**KW, criteria=[n]) for n in names])
    assert_frame_equal(got, want)
