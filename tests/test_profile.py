"""Fairness profiles: one read, exact merges, Parquet round trips, reports without rows.

* The profile of the whole equals the merge of the profiles of any split
  (hypothesis: random cut points, weights, nulls, batch keys): counts bit-identical,
  float sums to rounding.
* The report from a (merged) profile equals the report from the rows; with binned
  scores, the ROC tables equal those of the rows with the score binned, and the AUC
  error stays within the stated bound (checked with numpy from the definition).
* A profile reads its source once; a report from a profile reads none.
* Every key dtype survives the Parquet round trip; incompatible merges name the
  difference.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.io.plugins import register_io_source
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair import FairnessProfile, ProfileError
from tests.strategies import labelled_frames

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")


def _data(n: int = 3000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "sex": rng.choice(["F", "M"], n),
            "model": rng.choice([1, 2], n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n),
            "w": rng.random(n) + 0.1,
        }
    )


KW: dict[str, Any] = {"y_true": "y", "y_pred": pl.col("s") >= 0.5, "sensitive_features": "g"}

VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "by": {"by": "model"},
    "weighted": {"sample_weight": "w"},
    "intersectional": {"sensitive_features": ["g", "sex"]},
    "scored": {"y_prob": "s", "by": "model"},
    "scored-weighted": {"y_prob": "s", "sample_weight": "w"},
}


def _same_reports(a: pf.FairnessReport, b: pf.FairnessReport, skip: tuple[str, ...] = ()) -> None:
    names_a = [n for n, _ in a.tables() if n not in skip]
    names_b = [n for n, _ in b.tables() if n not in skip]
    assert names_a == names_b
    for name in names_a:
        assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=False)


# ---- merge = whole -----------------------------------------------------------------


def _assert_same_tables(merged: FairnessProfile, whole: FairnessProfile) -> None:
    assert list(merged.tables) == list(whole.tables)
    for name, table in whole.tables.items():
        got = merged.tables[name]
        assert got.schema == table.schema
        ints = [c for c, t in table.schema.items() if t.is_integer()]
        assert got.select(ints).equals(table.select(ints)), name  # bit-identical counts
        assert_frame_equal(got, table, check_exact=False)


@settings(max_examples=40)
@given(
    df=labelled_frames(min_rows=1, max_rows=60, weights=True, nulls=True),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=4),
    scores=st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=60, max_size=60),
    weighted=st.booleans(),
    by=st.booleans(),
)
def test_profile_of_whole_is_merge_of_pieces(
    df: pl.DataFrame, cuts: list[int], scores: list[float | None], weighted: bool, by: bool
) -> None:
    df = df.with_columns(
        pl.Series("s", scores[: df.height], dtype=pl.Float64),
        (pl.int_range(pl.len()) % 2).alias("m"),
    )
    kw: dict[str, Any] = {
        "y_true": "y_true", "y_pred": "y_pred", "y_prob": "s", "sensitive_features": "g",
        "sample_weight": "w" if weighted else None, "by": "m" if by else None,
    }  # fmt: skip
    bounds = sorted({0, df.height, *(min(c, df.height) for c in cuts)})
    pieces = [df[lo:hi] for lo, hi in zip(bounds, bounds[1:], strict=False)]
    whole = df.fair.profile(**kw)
    merged = pf.merge_profiles([p.fair.profile(**kw) for p in pieces])
    _assert_same_tables(merged, whole)
    assert merged.rows == whole.rows == df.height
    assert merged.meta["pieces"] == len(pieces)


@pytest.mark.parametrize("variant", VARIANTS, ids=list(VARIANTS))
def test_report_from_merged_profiles_equals_report_from_rows(variant: str) -> None:
    df = _data()
    kw = {**KW, **VARIANTS[variant]}
    parts = [df[:1000], df[1000:1001], df[1001:]]
    exact = {"exact_scores": True} if "y_prob" in kw else {}  # exact scores: with a score
    merged = parts[0].fair.profile(**kw, **exact)
    for part in parts[1:]:
        merged = merged + part.lazy().fair.profile(**kw, **exact)
    reference = ("a", "F") if variant == "intersectional" else "a"
    other = {"reference_group": reference, "min_group_size": 10, "confidence_level": 0.9}
    for options in ({}, other):
        expected = df.fair.report(**kw, **options)
        _same_reports(merged.report(**options), expected)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_profile_on_every_engine(engine: str) -> None:
    df = _data()
    kw = {**KW, "y_prob": "s", "by": "model"}
    with pl.Config() as cfg:
        cfg.set_engine_affinity(engine)  # type: ignore[arg-type]
        prof = df.lazy().fair.profile(**kw)
    _same_reports(prof.report(), df.fair.report(**kw), skip=("roc_curve", "roc_auc"))


def test_binned_scores_give_the_roc_of_the_binned_score() -> None:
    df = _data()
    kw = {**KW, "y_prob": "s", "by": "model"}
    prof = df.fair.profile(**kw, score_bins=200)
    binned = df.with_columns((pl.col("s") * 200).floor() / 200)
    expected = binned.fair.report(**{**kw, "y_pred": KW["y_pred"]})
    rows = df.fair.report(**kw)
    report = prof.report()
    assert report.roc_curve is not None
    assert expected.roc_curve is not None
    assert_frame_equal(report.roc_curve, expected.roc_curve, check_exact=False)
    # everything else is the exact report's (calibration, balance criteria)
    _same_reports(report, rows, skip=("roc_curve", "roc_auc"))


@pytest.mark.parametrize("score_bins", [10, 100, 1000])
def test_auc_error_within_the_stated_bound(score_bins: int) -> None:
    df = _data(n=4000, seed=3).with_columns(pl.col("s").pow(3))  # skewed: crowded low bins
    kw = {**KW, "y_prob": "s"}
    binned = df.fair.profile(**kw, score_bins=score_bins)
    exact = df.fair.profile(**kw, exact_scores=True)
    bound = binned.auc_error_bound()
    a = binned.report().roc_auc
    b = exact.report().roc_auc
    assert a is not None
    assert b is not None
    joined = a.join(b, on="g", suffix="_exact").join(bound, on="g")
    err = (joined["roc_auc"] - joined["roc_auc_exact"]).abs().to_numpy()
    assert np.all(err <= joined["auc_error_bound"].to_numpy() + 1e-12)
    # the bound from the definition, in numpy: half the share of (pos, neg) pairs in one bin
    for g in ["a", "b", "c"]:
        part = df.filter(pl.col("g") == g)
        s, y = part["s"].to_numpy(), part["y"].to_numpy()
        k = np.floor(s * score_bins)
        pos = np.array([np.sum((k == v) & (y == 1)) for v in np.unique(k)])
        neg = np.array([np.sum((k == v) & (y == 0)) for v in np.unique(k)])
        want = 0.5 * np.sum(pos * neg) / (np.sum(y == 1) * np.sum(y == 0))
        got = bound.filter(pl.col("g") == g)["auc_error_bound"].item()
        assert got == pytest.approx(want, rel=1e-12)
    assert exact.auc_error_bound()["auc_error_bound"].to_list() == [0.0] * 3


# ---- criteria and tables from a profile ----------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "demographic_parity_difference", "disparate_impact_ratio", "equalized_odds_difference",
        "equal_opportunity_ratio", "predictive_parity_difference", "average_odds_difference",
        "false_omission_rate_ratio",
    ],
)  # fmt: skip
@pytest.mark.parametrize("by", [None, "model"])
def test_criterion_from_profile_equals_namespace(name: str, by: str | None) -> None:
    df = _data()
    kw = {**KW, "by": by}
    prof = df.fair.profile(**kw)
    got = prof.criterion(name)
    method = getattr(df.fair, name)
    params = __import__("inspect").signature(method).parameters
    want = method(**{k: v for k, v in kw.items() if k in params})
    if by is None:
        assert got == pytest.approx(want, rel=1e-12)
    else:
        assert isinstance(got, pl.DataFrame)
        assert_frame_equal(got, want, check_exact=False)


def test_profile_tables_equal_report_tables() -> None:
    df = _data()
    prof = df.fair.profile(**KW, by="model")
    report = df.fair.report(**KW, by="model", reference_group="b")
    from_profile = prof.report(reference_group="b")
    assert_frame_equal(from_profile.by_group, report.by_group)
    assert_frame_equal(from_profile.disparities, report.disparities)
    assert_frame_equal(prof.summary(reference_group="b"), report.summary)
    # the namespace's tables, with their own parameters
    kw = KW
    assert_frame_equal(prof.by_group(), df.fair.by_group(**kw, by="model"))
    assert_frame_equal(
        prof.by_group(confidence_level=0.9, min_group_size=900),
        df.fair.by_group(**kw, by="model", confidence_level=0.9, min_group_size=900),
    )
    assert_frame_equal(
        prof.disparities(reference_group="b", metrics=["selection_rate"]),
        df.fair.disparities(**kw, by="model", reference_group="b", metrics=["selection_rate"]),
    )


@pytest.mark.parametrize("variant", VARIANTS, ids=list(VARIANTS))
def test_profile_keeps_the_public_report_reductions(variant: str) -> None:
    # the stored tables are `report_reductions(frame, spec)`, position by position
    df = _data()
    kw = {**KW, **VARIANTS[variant]}
    exact = {"exact_scores": True} if "y_prob" in kw else {}  # exact scores: with a score
    prof = df.fair.profile(**kw, **exact)
    spec = pf.ReportSpec.of(**kw)
    expected = pl.collect_all(pf.report_reductions(df, spec))
    stored = [prof.tables[name] for name in prof.meta["tables"]]
    assert len(stored) == len(expected)
    for got, want in zip(stored, expected, strict=True):
        assert_frame_equal(got, want, check_exact=False)
    _same_reports(pf.derive_report(spec, stored, df.schema), df.fair.report(**kw))


def test_report_options_fixed_by_the_profile_are_refused() -> None:
    prof = _data().fair.profile(**KW)
    with pytest.raises(pf.InvalidParameterError, match=r"\['pos_label'\] are fixed"):
        prof.report(pos_label=0)
    with pytest.raises(pf.InvalidParameterError, match="unknown criterion 'nope'"):
        prof.criterion("nope")


# ---- reads ------------------------------------------------------------------------------


class Source:
    """An IO-plugin source over `data` that counts its reads, and can refuse them."""

    def __init__(self, data: pl.DataFrame) -> None:
        self.data, self.calls, self.allowed = data, 0, True

    def lazy(self) -> pl.LazyFrame:
        return register_io_source(self._read, schema=self.data.schema)

    def _read(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        if not self.allowed:
            msg = "the source was read"
            raise AssertionError(msg)
        self.calls += 1
        out = self.data if with_columns is None else self.data.select(with_columns)
        if predicate is not None:
            out = out.filter(predicate)
        yield out if n_rows is None else out.head(n_rows)


@pytest.mark.parametrize("variant", VARIANTS, ids=list(VARIANTS))
def test_profile_reads_once_and_its_report_reads_nothing(variant: str) -> None:
    df = _data(500)
    kw = {**KW, **VARIANTS[variant]}
    source = Source(df)
    exact = {"exact_scores": True} if "y_prob" in kw else {}  # exact scores: with a score
    prof = source.lazy().fair.profile(**kw, **exact)
    assert source.calls == 1
    source.allowed = False
    report = prof.report()
    _same_reports(report, df.fair.report(**kw))
    prof.criterion("equalized_odds_difference")


# ---- Parquet --------------------------------------------------------------------------------

KEY_DTYPES: dict[str, tuple[pl.DataType, list[Any]]] = {
    "String": (pl.String(), ["x", "y", None]),
    "Categorical": (pl.Categorical(), ["x", "y", None]),
    "Enum": (pl.Enum(["y", "x", "z"]), ["x", "y", None]),
    "Int8": (pl.Int8(), [1, -3, None]),
    "UInt16": (pl.UInt16(), [1, 300, None]),
    "Int64": (pl.Int64(), [1, 2, None]),
    "Boolean": (pl.Boolean(), [True, False, None]),
    "Date": (pl.Date(), [dt.date(2024, 1, 1), dt.date(2024, 2, 1), None]),
}


@pytest.mark.parametrize("dtype", KEY_DTYPES, ids=list(KEY_DTYPES))
def test_parquet_round_trip_of_every_key_dtype(dtype: str, tmp_path: Path) -> None:
    kind, values = KEY_DTYPES[dtype]
    df = _data(600)
    key = pl.Series("k", [values[i % 3] for i in range(df.height)])
    df = df.with_columns(key.cast(kind))
    kw = {**KW, "y_prob": "s", "by": "k", "sample_weight": "w"}
    prof = df.fair.profile(**kw)
    prof.write_parquet(tmp_path / "p.parquet")
    back = pf.read_profile(tmp_path / "p.parquet")
    assert back.meta == prof.meta
    for name, table in prof.tables.items():
        assert back.tables[name].schema == table.schema
        assert back.tables[name].equals(table)
    assert back.meta["key_dtypes"]["k"] == str(kind)
    _same_reports(back.report(), df.fair.report(**kw), skip=("roc_curve", "roc_auc"))


def test_read_profile_glob_merges(tmp_path: Path) -> None:
    df = _data()
    kw = {**KW, "y_prob": "s", "by": "model"}
    for i, lo in enumerate(range(0, df.height, 700)):
        df[lo : lo + 700].fair.profile(**kw).write_parquet(tmp_path / f"day{i}.parquet")
    merged = pf.read_profile(str(tmp_path / "day*.parquet"))
    _assert_same_tables(merged, df.fair.profile(**kw))
    assert merged.meta["pieces"] == 5


def test_read_profile_errors(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no profile matches"):
        pf.read_profile(str(tmp_path / "*.parquet"))
    _data(10).write_parquet(tmp_path / "data.parquet")
    with pytest.raises(ProfileError, match="is not a fairness profile"):
        pf.read_profile(tmp_path / "data.parquet")


# ---- incompatible merges ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            {"pos_label": 0, "y_pred": (pl.col("s") >= 0.5).cast(pl.Int64)},
            "`pos_label`: 1 against 0",
        ),
        ({"y_pred": pl.col("s") >= 0.6}, "`y_pred`"),
        ({"y_true": "y2"}, "`y_true`: 'y' against 'y2'"),
        ({"sensitive_features": "sex"}, "`sensitive_features`"),
        ({"by": "model"}, "`by`: [] against ['model']"),
        ({"y_prob": "s"}, "`y_prob`: None against 's'"),
        ({"sample_weight": "w"}, "`sample_weight`"),
    ],
)
def test_incompatible_merges_name_the_difference(change: dict[str, Any], named: str) -> None:
    df = _data(200).with_columns(y2=pl.col("y"))
    a = df.fair.profile(**KW)
    b = df.fair.profile(**{**KW, **change})
    with pytest.raises(ProfileError, match="differ in") as err:
        a + b
    assert named in str(err.value)


def test_incompatible_bins_and_key_dtypes() -> None:
    df = _data(200)
    kw = {**KW, "y_prob": "s"}
    with pytest.raises(ProfileError, match="`score_bins`: 1000 against 10"):
        df.fair.profile(**kw) + df.fair.profile(**kw, score_bins=10)
    with pytest.raises(ProfileError, match="`score_bins`: 1000 against None"):
        df.fair.profile(**kw) + df.fair.profile(**kw, exact_scores=True)
    with pytest.raises(ProfileError, match="`n_bins`: 10 against 5"):
        df.fair.profile(**kw) + df.fair.profile(**kw, n_bins=5)
    other = df.with_columns(pl.col("model").cast(pl.Int32))
    with pytest.raises(ProfileError, match="key dtypes"):
        df.fair.profile(**KW, by="model") + other.fair.profile(**KW, by="model")


def test_merge_needs_profiles() -> None:
    with pytest.raises(pf.InvalidParameterError, match="at least one profile"):
        pf.merge_profiles([])
    prof = _data(50).fair.profile(**KW)
    with pytest.raises(TypeError):
        prof + 1  # type: ignore[operator]


def test_time_bucket_as_batch_key() -> None:
    df = _data(900).with_columns(
        ts=pl.datetime(2024, 1, 1) + pl.duration(days=pl.int_range(pl.len()) % 90)
    )
    prof = df.fair.profile(**KW, by=pl.col("ts").dt.truncate("1mo").alias("month"))
    assert prof.by == ["month"]
    want = df.with_columns(
        month=pl.col("ts").dt.truncate("1mo")
    ).fair.demographic_parity_difference(y_pred=KW["y_pred"], sensitive_features="g", by="month")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = prof.criterion("demographic_parity_difference")
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got, want, check_exact=False)


def test_pos_label_must_travel_in_json() -> None:
    df = _data(20).with_columns(d=pl.date(2024, 1, 1))
    with pytest.raises(pf.InvalidParameterError, match="`pos_label` must be a number"):
        df.fair.profile(
            y_true="d", y_pred="d", sensitive_features="g", pos_label=dt.date(2024, 1, 1)
        )


def test_string_labels_and_boolean_predictions_round_trip(tmp_path: Path) -> None:
    df = _data(300).with_columns(
        label=pl.when(pl.col("y") == 1).then(pl.lit("yes")).otherwise(pl.lit("no")),
        pred=pl.col("s") >= 0.4,
    )
    kw = {"y_true": "label", "y_pred": "pred", "sensitive_features": "g", "pos_label": "yes"}
    with pytest.raises(pf.LabelError):
        df.fair.profile(**{**kw, "y_pred": "label", "pos_label": 1})
    prof = df.fair.profile(
        **{**kw, "y_pred": pl.col("pred").replace_strict({True: "yes", False: "no"})}
    )
    prof.write_parquet(tmp_path / "p.parquet")
    back = pf.read_profile(tmp_path / "p.parquet")
    assert back.meta["spec"]["pos_label"] == "yes"
    want = df.fair.report(
        **{**kw, "y_pred": pl.col("pred").replace_strict({True: "yes", False: "no"})}
    )
    _same_reports(back.report(), want)
