"""Profiles used as a new user would: identical inputs, bad items, file versions, fixes.

* A report (or profile) compared with itself is ``unchanged`` everywhere, with a change
  of exactly 0; so is the baseline window of a trend. Two independent sides that only
  share a value are still judged from their intervals (numpy, from the definition).
* ``merge_profiles`` names an item that is not a profile; a profile file of a newer
  format says to upgrade, of an older one to profile again; the fix a key-dtype clash
  suggests is a cast that makes the merge work.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair import ProfileError
from polars_fair.datasets import load_compas
from polars_fair.exceptions import InvalidParameterError
from polars_fair.metrics._compare import compare_summaries
from polars_fair.metrics._intervals import z_value
from polars_fair.namespace._profile_files import META_KEY
from tests.reference_stats import compare_verdict

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

KW: dict[str, Any] = {
    "y_true": "two_year_recid",
    "y_pred": pl.col("decile_score") >= 5,
    "y_prob": "y_prob",
    "sensitive_features": "race",
}


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return load_compas()


# ---- compare: the same estimate on both sides ------------------------------------------


def test_a_report_compared_with_itself_is_unchanged(compas: pl.DataFrame) -> None:
    report = compas.fair.report(**KW, by="sex", reference_group="Caucasian")
    out = report.compare(report)
    assert out.height == report.summary.height
    assert (out["verdict"] == "unchanged").all()
    for col in ("change", "ci_low", "ci_high", "distance_change"):
        assert (out[col] == 0.0).all(), col
    prof = compas.fair.profile(**KW, by="sex")
    again = prof.compare(prof, reference_group="Caucasian")
    assert (again["verdict"] == "unchanged").all()
    # the same data profiled twice (two reads of one file) is the same estimate too
    twice = compas.lazy().fair.profile(**KW, by="sex")
    assert (twice.compare(prof)["verdict"] == "unchanged").all()


def test_the_baseline_window_of_a_trend_is_unchanged(compas: pl.DataFrame) -> None:
    weekly = compas.with_columns(week=pl.col("id") % 3).fair.profile(**KW, by="week")
    for baseline in (None, 1):
        trend = weekly.trend("demographic_parity_difference", time="week", baseline=baseline)
        base = trend.filter(pl.col("week") == (baseline or 0))
        assert base["change_verdict"].to_list() == ["unchanged"]
        assert base["change"].to_list() == [0.0]


def test_independent_sides_sharing_a_value_are_judged_from_their_intervals() -> None:
    row = {"criterion": "demographic_parity_difference", "ideal": 0.0, "verdict": "fair"}
    base = pl.DataFrame([{**row, "value": 0.05, "ci_low": 0.0, "ci_high": 0.1}])
    cand = pl.DataFrame([{**row, "value": 0.05, "ci_low": 0.01, "ci_high": 0.09}])
    out = compare_summaries(cand, base)
    z = z_value(0.95)
    se = math.hypot(0.1 / (2 * z), 0.08 / (2 * z))
    assert out["ci_low"].item() == pytest.approx(-z * se)
    assert out["ci_high"].item() == pytest.approx(z * se)
    # [-0.064, 0.064] is not within the tolerance 0.02: no equivalence shown
    assert out["verdict"].item() == "inconclusive"
    # at other levels, equal bounds are different intervals: judged from them
    same = compare_summaries(base, base, baseline_confidence_level=0.9)
    assert same["ci_low"].item() < 0 < same["ci_high"].item()


# ---- merging and reading: what a new user gets wrong -----------------------------------


@pytest.mark.parametrize("item", [1, None, "profile.parquet"])
def test_merge_profiles_names_an_item_that_is_not_a_profile(
    compas: pl.DataFrame, item: object
) -> None:
    prof = compas.fair.profile(**KW)
    with pytest.raises(InvalidParameterError, match=f"item 1 is a {type(item).__name__}"):
        pf.merge_profiles([prof, item])  # type: ignore[list-item]


def _with_version(prof: pf.FairnessProfile, version: object, path: Path) -> Path:
    pf.FairnessProfile(prof.tables, {**prof.meta, "format_version": version}).write_parquet(path)
    return path


def test_profile_formats_of_other_versions_say_what_to_do(
    compas: pl.DataFrame, tmp_path: Path
) -> None:
    prof = compas.fair.profile(**KW)
    current = prof.meta["format_version"]
    newer = _with_version(prof, current + 1, tmp_path / "newer.parquet")
    with pytest.raises(ProfileError, match=f"(?s)format {current + 1};.*Hint: upgrade polars_fair"):
        pf.read_profile(newer)
    for i, old in enumerate([current - 1, None, str(current)]):
        path = _with_version(prof, old, tmp_path / f"old{i}.parquet")
        with pytest.raises(ProfileError, match="profile the data again") as err:
            pf.read_profile(path)
        assert "upgrade" not in str(err.value)
    stored = json.loads(pl.read_parquet_metadata(newer)[META_KEY])
    assert stored["format_version"] == current + 1


@pytest.mark.parametrize(
    "other",
    [pl.Categorical(), pl.Enum(["x", "y", "z"])],
    ids=["categorical", "enum"],
)
def test_a_key_dtype_clash_suggests_a_cast_that_works(other: pl.DataType) -> None:
    rng = np.random.default_rng(0)
    df = pl.DataFrame(
        {"g": rng.choice(["x", "y", "z"], 300), "y": rng.integers(0, 2, 300),
         "p": rng.integers(0, 2, 300)}
    )  # fmt: skip
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    first = df.head(100).fair.profile(**kw)
    second = df.tail(200).with_columns(pl.col("g").cast(other))
    with pytest.raises(ProfileError, match="key dtypes") as err:
        first + second.fair.profile(**kw)
    cast = re.search(r"`\.with_columns\((.*)\)`;", str(err.value))
    assert cast is not None, str(err.value)
    assert cast.group(1) == "pl.col('g').cast(pl.String)"
    fixed = second.with_columns(pl.col("g").cast(pl.String)).fair.profile(**kw)
    merged = first + fixed
    assert merged.tables["stats"].equals(df.fair.profile(**kw).tables["stats"])


def test_compare_names_batch_keys_of_other_dtypes(compas: pl.DataFrame) -> None:
    shard = (pl.col("id") % 2).alias("shard")
    base = compas.with_columns(shard).fair.profile(**KW, by="shard")
    cand = compas.with_columns(shard.cast(pl.String)).fair.profile(**KW, by="shard")
    for compare in (
        lambda: cand.compare(base),
        lambda: cand.report().compare(base.report()),
    ):
        with pytest.raises(
            InvalidParameterError, match="'shard': Int64 \\(baseline\\) against String"
        ) as err:
            compare()
        assert "pl.col('shard').cast(pl.Int64)" in str(err.value)
    fixed = compas.with_columns(shard).fair.profile(**KW, by="shard")
    assert (fixed.compare(base)["verdict"] == "unchanged").all()


def test_trend_without_a_time_key_says_how_to_profile_one(compas: pl.DataFrame) -> None:
    with pytest.raises(InvalidParameterError, match="(?s)batch keys \\[\\].*dt.truncate"):
        compas.fair.profile(**KW).trend("demographic_parity_difference", time="week")
    keyed = compas.with_columns(week=pl.col("id") % 2).fair.profile(**KW, by="week")
    with pytest.raises(InvalidParameterError, match="Hint: one of \\['week'\\]"):
        keyed.trend("demographic_parity_difference", time="weeks")
    with pytest.raises(InvalidParameterError, match="compare a profile with a profile"):
        keyed.compare(keyed.report())  # type: ignore[arg-type]


# ---- the namespace's tables from a profile ---------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [{}, {"by": "sex"}, {"sample_weight": "w", "by": "sex"}, {"y_prob": None}],
    ids=["scored", "by", "weighted", "unscored"],
)
def test_tables_from_a_profile_are_the_namespace_tables_on_rows(
    compas: pl.DataFrame, extra: dict[str, Any]
) -> None:
    df = compas.with_columns(w=(pl.col("priors_count") % 3 + 0.5))
    kw = {**KW, **extra}
    pieces = df.with_columns(piece=pl.col("id") % 3).partition_by("piece")
    prof = pf.merge_profiles(p.fair.profile(**kw) for p in pieces)
    rows = {k: v for k, v in kw.items() if v is not None}
    for options in ({}, {"confidence_level": 0.9, "min_group_size": 100}):
        want = df.fair.by_group(**rows, **options)
        got = prof.by_group(**options)
        assert got.columns == want.columns
        assert_frame_equal(got, want, check_exact=False)
    # numpy, from the definition: the selection rate per group (weighted: by the weights)
    pred = (df["decile_score"] >= 5).to_numpy()
    weight = df["w"].to_numpy() if "sample_weight" in extra else np.ones(df.height)
    keys = ["race", "sex"] if "by" in extra else ["race"]
    for row in prof.by_group().iter_rows(named=True):
        mask = np.all([df[k].to_numpy() == row[k] for k in keys], axis=0)
        want_rate = (weight[mask] * pred[mask]).sum() / weight[mask].sum()
        assert row["selection_rate"] == pytest.approx(want_rate, rel=1e-12)
    for options in ({}, {"reference_group": "Caucasian", "metrics": ["selection_rate"]}):
        assert_frame_equal(
            prof.disparities(**options), df.fair.disparities(**rows, **options), check_exact=False
        )
    with pytest.raises(InvalidParameterError, match="takes no \\['criteria'\\]"):
        prof.by_group(criteria=["demographic_parity_difference"])
    with pytest.raises(InvalidParameterError, match="`y_true`='is_recid' against the profile's"):
        prof.disparities(y_true="is_recid")
    # the profile's own columns, given again (the keywords of `df.fair.*`), are no change
    assert_frame_equal(prof.by_group(**rows), prof.by_group())


@pytest.mark.parametrize(
    ("change", "option"),
    [({"sample_weight": "w"}, "sample_weight"), ({"y_prob": None}, "y_prob"),
     ({"pos_label": 0}, "pos_label"), ({"by": "sex"}, "by")],
)  # fmt: skip
def test_a_merge_of_profiles_made_otherwise_names_the_option_to_align(
    compas: pl.DataFrame, change: dict[str, Any], option: str
) -> None:
    df = compas.with_columns(w=pl.lit(1.5))
    with pytest.raises(ProfileError) as err:
        df.fair.profile(**KW) + df.fair.profile(**{**KW, **change})
    message = str(err.value)
    assert f"`{option}`: " in message.split("Hint:")[0]
    assert f"Hint: profile every piece with the same `{option}`" in message
    # the tables differ because the option does: not listed again
    assert "table 'stats'" not in message
    assert "Int64 against Float64" not in message


def test_the_keywords_of_the_rows_can_be_given_to_the_profile(compas: pl.DataFrame) -> None:
    kw = {**KW, "by": pl.col("sex").alias("s2"), "n_bins": 10}
    prof = compas.fair.profile(**kw)
    rows = compas.with_columns(pl.col("sex").alias("s2"))
    on_rows = {**kw, "by": "s2"}
    report = prof.report(**kw, reference_group="Caucasian")
    want = rows.fair.report(**on_rows, reference_group="Caucasian")
    assert_frame_equal(report.summary, want.summary, check_exact=False)
    name = "equal_opportunity_difference"
    got = prof.criterion(name, **{k: v for k, v in kw.items() if k != "y_prob"})
    assert isinstance(got, pl.DataFrame)
    method = rows.fair.equal_opportunity_difference
    assert_frame_equal(got, method(y_true=KW["y_true"], y_pred=KW["y_pred"],
                                   sensitive_features="race", by="s2"))  # fmt: skip
    # another value is refused, naming both
    for other, named in [
        ({"y_pred": pl.col("decile_score") >= 6}, "`y_pred`="),
        ({"by": pl.col("sex").alias("s3")}, "`by`="),
        ({"by": pl.col("age_cat").alias("s2")}, "`by`="),
        ({"sensitive_features": ["race", "sex"]}, "`sensitive_features`=['race', 'sex']"),
        ({"pos_label": 0}, "`pos_label`=0 against the profile's 1"),
        ({"n_bins": 20}, "`n_bins`=20 against the profile's 10"),
    ]:
        with pytest.raises(InvalidParameterError, match="differ from the profile's") as err:
            prof.report(**{**kw, **other})
        assert named in str(err.value)


def test_profiles_compare_with_equals(compas: pl.DataFrame) -> None:
    kw = {k: v for k, v in KW.items() if k != "y_prob"}  # counts only: exact sums
    whole = compas.fair.profile(**kw, by="sex")
    pieces = compas.with_columns(piece=pl.col("id") % 3).partition_by("piece")
    merged = sum(p.fair.profile(**kw, by="sex") for p in pieces)
    assert merged == whole  # the provenance (pieces, creation time) aside
    assert merged.meta["pieces"] == 3
    assert whole != compas.fair.profile(**{**kw, "pos_label": 0}, by="sex")
    assert whole != compas.head(100).fair.profile(**kw, by="sex")
    assert whole != 1
    with pytest.raises(TypeError, match="unhashable"):
        hash(whole)


def test_the_same_value_without_an_interval_stays_inconclusive() -> None:
    schema = {"criterion": pl.String, "ideal": pl.Float64, "verdict": pl.String,
              "value": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}  # fmt: skip
    rows = [("two_sd_rule", 0.0, "inconclusive", 0.5, None, None),
            ("cohen_d", 0.0, "fair", float("nan"), float("nan"), float("nan")),
            ("demographic_parity_difference", 0.0, "fair", 0.05, 0.01, 0.09)]  # fmt: skip
    side = pl.DataFrame(rows, schema=schema, orient="row")
    out = compare_summaries(side, side)
    verdicts = dict(zip(out["criterion"], out["verdict"], strict=True))
    assert verdicts == {"two_sd_rule": "inconclusive", "cohen_d": "inconclusive",
                        "demographic_parity_difference": "unchanged"}  # fmt: skip


@pytest.mark.parametrize("tolerance", [0.0, 0.02, 0.1, 0.5])
def test_the_tolerance_moves_the_verdicts_as_defined(
    compas: pl.DataFrame, tolerance: float
) -> None:
    half = pl.col("id") % 2 == 0
    base = compas.filter(half).fair.report(**KW, reference_group="Caucasian")
    lenient = pl.when(pl.col("race") == "African-American").then(pl.col("decile_score") >= 4)
    cand = compas.filter(~half).fair.report(
        **{**KW, "y_pred": lenient.otherwise(pl.col("decile_score") >= 6)},
        reference_group="Caucasian",
    )
    out = cand.compare(base, tolerance=tolerance)
    z = z_value(0.95)
    joined = cand.summary.join(base.summary, on="criterion", suffix="_b")
    verdicts = dict(zip(out["criterion"], out["verdict"], strict=True))
    for row in joined.iter_rows(named=True):
        log = row["ideal"] == 1.0
        f = math.log if log else (lambda x: x)
        ideal = f(row["ideal"]) if log else row["ideal"]
        if row["value"] is None or row["value_b"] is None or row["ci_low"] is None:
            continue
        # the 2-SD rule's z grows with the rows compared: judged per square root of them
        per_rows = row["criterion"] == "two_sd_rule"
        k = 1 / math.sqrt(row["group_n"] + row["compared_n"]) if per_rows else 1.0
        k_b = 1 / math.sqrt(row["group_n_b"] + row["compared_n_b"]) if per_rows else 1.0
        dist = k * abs(f(row["value"]) - ideal) - k_b * abs(f(row["value_b"]) - ideal)
        se = math.hypot(
            k * (f(row["ci_high"]) - f(row["ci_low"])) / (2 * z),
            k_b * (f(row["ci_high_b"]) - f(row["ci_low_b"])) / (2 * z),
        )
        want = compare_verdict(dist, dist - z * se, dist + z * se, tolerance)
        assert verdicts[row["criterion"]] == want, row["criterion"]
    # the planted change of the parity difference is about 0.19: worse below that tolerance
    assert (verdicts["demographic_parity_difference"] == "worse") == (tolerance < 0.19)


# ---- the score histogram's bins --------------------------------------------------------


def test_a_score_bin_is_one_row_whatever_the_size_of_the_piece(
    compas: pl.DataFrame, tmp_path: Path
) -> None:
    # a piece of one row and pieces of many: bin k is stored at k / score_bins in each
    df = compas.with_columns(piece=pl.when(pl.col("id") == compas["id"][0]).then(-1).otherwise(
        pl.col("id") % 3))  # fmt: skip
    pieces = df.partition_by("piece")
    assert min(p.height for p in pieces) == 1
    whole = df.fair.profile(**KW)
    merged = pf.merge_profiles(p.fair.profile(**KW) for p in pieces)
    assert merged.tables["roc"].equals(whole.tables["roc"])
    # numpy: the bins of floor(s * 1000), stored at k / 1000, with their counts
    s, y = df["y_prob"].to_numpy(), df["two_year_recid"].to_numpy()
    race = df["race"].to_numpy()
    roc = whole.tables["roc"]
    for (group, score), n, pos in zip(
        zip(roc["race"], roc["score"], strict=True), roc["n"], roc["pos"], strict=True
    ):
        k = round(score * 1000)
        assert score == k / 1000  # exactly, as Python divides
        mask = (race == group) & (np.floor(s * 1000) == k)
        assert (n, pos) == (int(mask.sum()), int(y[mask].sum()))
    # through Parquet, a file per piece, read with a glob
    for i, p in enumerate(pieces):
        p.fair.profile(**KW).write_parquet(tmp_path / f"piece{i}.parquet")
    assert pf.read_profile(str(tmp_path / "piece*.parquet")).tables["roc"].equals(roc)


def test_files_with_the_bins_at_either_float_merge_as_one_bin(
    compas: pl.DataFrame, tmp_path: Path
) -> None:
    prof = compas.fair.profile(**KW)
    roc = prof.tables["roc"]
    # as a former version wrote them: k * (1 / 1000) for a table of several rows
    older = roc.with_columns(pl.col("score").map_batches(lambda s: pl.Series(
        np.rint(s.to_numpy() * 1000) * 0.001)))  # fmt: skip
    assert not older["score"].equals(roc["score"])
    pf.FairnessProfile({**prof.tables, "roc": older}, prof.meta).write_parquet(
        tmp_path / "a.parquet"
    )
    prof.write_parquet(tmp_path / "b.parquet")
    both = pf.read_profile(str(tmp_path / "*.parquet"))
    assert both.tables["roc"].height == roc.height
    assert both.tables["roc"]["n"].to_list() == [2 * n for n in roc["n"]]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"exact_scores": True}, "no `y_prob` was given"),
        ({"y_prob": "y_prob", "exact_scores": True, "score_bins": 100}, "`score_bins=100` bins"),
        ({"y_prob": "y_prob", "exact_scores": "yes"}, "`exact_scores` must be True or False"),
        ({"y_prob": "y_prob", "score_bins": 0}, "`score_bins` must be a positive integer"),
    ],
)
def test_score_options_that_would_be_ignored_are_refused(
    compas: pl.DataFrame, options: dict[str, object], words: str
) -> None:
    # exact scores without a score, or bins beside exact scores, used to be ignored
    with pytest.raises(InvalidParameterError, match=re.escape(words)):
        compas.fair.profile(**{k: v for k, v in KW.items() if k != "y_prob"}, **options)


def test_the_default_baseline_window_is_the_first_that_can_be_compared() -> None:
    # the first month has one group only (its criterion undefined): comparing every later
    # month with it would make each change `inconclusive`; the baseline is the second
    from polars_fair.metrics._trend import trend_table

    summary = pl.DataFrame(
        {
            "month": [1, 2, 3],
            "criterion": ["demographic_parity_difference"] * 3,
            "value": [None, 0.02, 0.3],
            "ideal": [0.0] * 3,
            "fair_low": [-0.1] * 3,
            "fair_high": [0.1] * 3,
            "verdict": ["undefined", "fair", "unfair"],
            "ci_low": [None, 0.0, 0.25],
            "ci_high": [None, 0.04, 0.35],
        }
    )
    trend = trend_table(summary, time="month", by=["month"])
    assert trend["baseline"].to_list() == [0.02] * 3
    assert trend["change_verdict"].cast(pl.String).to_list() == [
        "inconclusive",
        "unchanged",
        "worse",
    ]
    # with no window that can be compared, the first stays the baseline
    undefined = summary.with_columns(pl.lit(None, dtype=pl.Float64).alias("ci_low"))
    assert trend_table(undefined, time="month", by=["month"])["baseline"].to_list()[0] is None


@pytest.mark.parametrize("scored", [False, True])
def test_an_invalid_weight_is_named_by_a_scored_profile_too(scored: bool) -> None:
    # the scored profile's single group_by lacked the lowest-invalid-weight aggregate its
    # check reads: a raw ColumnNotFoundError instead of the weight error
    from polars_fair.exceptions import ValueRangeError

    df = pl.DataFrame({"g": ["a", "b", "a"], "y": [1, 0, 1], "p": [1, 0, 0],
                       "s": [0.2, 0.5, 0.9], "w": [1.0, -2.0, 1.0]})  # fmt: skip
    kw: dict[str, Any] = {"y_true": "y", "y_pred": "p", "sensitive_features": "g",
                          "sample_weight": "w", "y_prob": "s" if scored else None}  # fmt: skip
    with pytest.raises(ValueRangeError, match=r"column 'w' .* found 1 negative.*e\.g\. -2"):
        df.fair.profile(**kw)
