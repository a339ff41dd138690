"""Third bad-input campaign (regression profiles, compare, trend, profile files).

Every case failed before its fix:

* a ratio criterion that fell to 0 (a group never selected) against a baseline of 1
  was judged ``inconclusive`` by ``compare`` and ``trend`` (its log distance was null),
  so ``polars-fair compare --fail-on-worse`` passed the worst possible candidate;
* ``profile.trend("mae_ratio", ...)`` on a classification profile named `criteria`, a
  parameter the caller never gave;
* a batch key named like a column of the trend table (``alert``, ``baseline``, ...)
  raised Polars' ``DuplicateError`` or silently replaced the time windows by booleans;
* a trend chart of a time key holding a dot lost its axis (Vega-Lite read a nested
  field), one holding a colon raised Altair's raw ``ValueError``;
* a profile file with corrupt metadata (``rows``, ``pieces``, ``created_at``,
  ``score_bins`` of the wrong kind, an undecodable schema or expression, a boolean
  format version) reached raw ``ValueError``, ``TypeError``, ``OSError`` or
  ``ComputeError`` (or was read as format 1);
* ``read_profile(b"...")`` said the profile ``'47'`` was given twice, a list holding
  a profile object said no profile matched its repr, and ``read_profile("")`` said
  the path was a directory;
* ``profile.trend(name, criteria=[...])`` silently followed `name` only;
* ``polars-fair compare reg.parquet data.csv`` profiled the data as a classifier and
  blamed ``--pos-label``; regression profiles are now refused by name on the command line;
* a regression `y_pred` expression of the wrong dtype was reported as the column it
  reads, with a hint to cast a column that was already numeric;
* a fixed column left out (``sample_weight=None``) was shown as ``'None'``, a column
  named None;
* ``-o file.parquet/x.parquet`` said the directory ``file.parquet`` did not exist (it is
  a file), and ``polars-fair profile`` suggested leaving ``-o`` out for stdout (it is
  required there).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.cli import main
from polars_fair.exceptions import InvalidParameterError, ProfileError

K = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


def _selected(rate_b: float, n: int = 2000, seed: int = 5) -> pl.DataFrame:
    """Groups a and b of `n` rows each; a selected at rate 0.5, b at `rate_b`."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 2 * n)
    p = np.concatenate([np.arange(n) % 2 == 0, np.arange(n) < rate_b * n]).astype(np.int64)
    return pl.DataFrame({"g": ["a"] * n + ["b"] * n, "y": y, "p": p})


def _quiet(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# ---- a ratio of 0 is infinitely far from 1 -----------------------------------------------


RATIOS = ["disparate_impact_ratio", "demographic_parity_ratio", "four_fifths_rule"]


@pytest.mark.parametrize("criterion", RATIOS)
def test_compare_judges_a_ratio_fallen_to_zero_worse(criterion: str) -> None:
    fair, never = _selected(0.5).fair.profile(**K), _selected(0.0).fair.profile(**K)
    # independently: group b's selection rate is 0 on one side, equal to a's on the other
    assert _selected(0.0).filter(pl.col("g") == "b")["p"].sum() == 0
    worse = _quiet(lambda: never.compare(fair, criteria=[criterion]))
    assert worse["baseline"].item() == 1.0
    assert worse["candidate"].item() == 0.0
    assert worse["distance_change"].item() == math.inf
    assert worse["verdict"].item() == "worse"
    better = _quiet(lambda: fair.compare(never, criteria=[criterion]))
    assert better["distance_change"].item() == -math.inf
    assert better["verdict"].item() == "better"


def test_trend_alerts_on_a_window_whose_ratio_fell_to_zero() -> None:
    weeks = pl.concat(
        [_selected(0.5).with_columns(w=pl.lit(1)), _selected(0.0).with_columns(w=pl.lit(2))]
    )
    prof = weeks.fair.profile(**K, by="w")
    trend = _quiet(lambda: prof.trend("disparate_impact_ratio", time="w"))
    assert trend["change_verdict"].to_list() == ["unchanged", "worse"]
    assert trend["first_alert"].to_list() == [False, True]


def test_cli_compare_fails_on_a_ratio_fallen_to_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _selected(0.5).fair.profile(**K).write_parquet(tmp_path / "base.parquet")
    _quiet(lambda: _selected(0.0).fair.profile(**K).write_parquet(tmp_path / "cand.parquet"))
    args = ["compare", str(tmp_path / "base.parquet"), str(tmp_path / "cand.parquet")]
    code = _quiet(lambda: main([*args, "--criteria", "disparate_impact_ratio", "--fail-on-worse"]))
    assert code == 1
    assert "worse: disparate_impact_ratio 1 -> 0" in capsys.readouterr().err


# ---- trend: the criterion and the batch keys ----------------------------------------------


@pytest.fixture
def weekly() -> pf.FairnessProfile:
    df = pl.concat([_selected(0.5, n=100).with_columns(t=pl.lit(i)) for i in (1, 2)])
    return df.fair.profile(**K, by="t")


@pytest.mark.parametrize(
    ("criterion", "family"),
    [("mae_ratio", "a regression"), ("label_stability_difference", "an ensemble")],
)
@pytest.mark.parametrize("method", ["trend", "trend_chart"])
def test_trend_names_its_criterion_of_another_family(
    weekly: pf.FairnessProfile, criterion: str, family: str, method: str
) -> None:
    msg = f"`criterion` {criterion!r} is {family} criterion, which has no summary row"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        getattr(weekly, method)(criterion, time="t")


@pytest.mark.parametrize("criteria", [["accuracy_difference"], ["cohen_d", "two_sd_rule"]])
def test_trend_refuses_other_criteria(weekly: pf.FairnessProfile, criteria: list[str]) -> None:
    msg = "a trend follows its `criterion` 'demographic_parity_difference', and `criteria` names"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        weekly.trend("demographic_parity_difference", time="t", criteria=criteria)


@pytest.mark.parametrize(
    "key", ["alert", "first_alert", "baseline", "baseline_window", "change", "candidate"]
)
def test_trend_refuses_a_batch_key_named_like_its_columns(key: str) -> None:
    df = pl.concat([_selected(0.5, n=100).with_columns(t=pl.lit(i)) for i in (1, 2)])
    prof = df.rename({"t": key}).fair.profile(**K, by=key)
    msg = f"batch key {key!r} clashes with a column of the trend table"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        prof.trend("demographic_parity_difference", time=key, min_group_size=0)


@pytest.mark.parametrize("name", ["week.start", "week:start", "w[0]"])
def test_trend_chart_of_a_time_key_with_a_dot_or_colon(name: str) -> None:
    pytest.importorskip("altair")
    vlc = pytest.importorskip("vl_convert")
    months = ["2031-01-01", "2031-02-01"]
    df = pl.concat(
        [_selected(0.5, n=100).with_columns(pl.lit(m).str.to_date().alias(name)) for m in months]
    )
    prof = df.fair.profile(**K, by=name)
    chart = _quiet(
        lambda: prof.trend_chart("demographic_parity_difference", time=name, min_group_size=0)
    )
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert all(m in svg for m in months)  # the axis shows the windows


# ---- profile files with corrupt metadata --------------------------------------------------


def _edited(tmp_path: Path, edit: Any) -> Path:
    """A profile file whose metadata JSON went through `edit` (written by Polars)."""
    df = _selected(0.5, n=50).with_columns(s=pl.col("p") * 0.5 + 0.2)
    path = tmp_path / "good.parquet"
    df.fair.profile(**K, y_prob="s").write_parquet(path)
    raw = pl.read_parquet_metadata(path)
    meta = json.loads(raw["polars_fair.profile"])
    edit(meta)
    out = tmp_path / "edited.parquet"
    pl.read_parquet(path).write_parquet(
        out, metadata={**raw, "polars_fair.profile": json.dumps(meta)}
    )
    return out


def _set(key: str, value: Any) -> Any:
    return lambda m: m.__setitem__(key, value)


def _set_spec(key: str, value: Any) -> Any:
    return lambda m: m["spec"].__setitem__(key, value)


CORRUPT = {
    "rows": (_set("rows", "many"), "['rows']"),
    "rows-null": (_set("rows", None), "['rows']"),
    "pieces": (_set("pieces", "x"), "['pieces']"),
    "created_at": (_set("created_at", 5), "['created_at']"),
    "score_bins": (_set("score_bins", "1000"), "['score_bins']"),
    "schema": (_set("schema", "!!!"), "['schema']"),
    "table-schema": (
        lambda m: m["table_schemas"].__setitem__("stats", "!!!"),
        "['table_schemas.stats']",
    ),
    "expression": (_set_spec("y_pred", {"expr": "garbage"}), "['spec.y_pred']"),
    "sensitive": (_set_spec("sensitive_features", "g"), "['spec.sensitive_features']"),
    "task": (_set_spec("task", "ranking"), "['spec.task']"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_profile_metadata_is_a_profile_error(tmp_path: Path, case: str) -> None:
    edit, named = CORRUPT[case]
    path = _edited(tmp_path, edit)
    msg = f"has incomplete profile metadata: missing or invalid {named}"
    with pytest.raises(ProfileError, match=re.escape(msg)):
        pf.read_profile(path)
    with pytest.raises(ProfileError, match=re.escape(msg)):
        pf.read_profile([tmp_path / "good.parquet", path])


def test_a_boolean_format_version_is_not_format_1(tmp_path: Path) -> None:
    path = _edited(tmp_path, _set("format_version", True))
    with pytest.raises(ProfileError, match=re.escape("has profile format True")):
        pf.read_profile(path)


@pytest.mark.parametrize(
    ("source", "named"),
    [
        (b"profile.parquet", "got b'profile.parquet'"),
        (["a.parquet", ["b.parquet"]], "item 1 is a list"),
        ([3], "item 0 is a int"),
        ("", "`source` holds an empty path (item 0)"),
        (["a.parquet", ""], "`source` holds an empty path (item 1)"),
    ],
)
def test_read_profile_refuses_what_is_not_a_path(source: Any, named: str) -> None:
    with pytest.raises(InvalidParameterError, match=re.escape(named)):
        pf.read_profile(source)


def test_read_profile_of_a_profile_object_says_to_merge(tmp_path: Path) -> None:
    prof = _selected(0.5, n=10).fair.profile(**K)
    with pytest.raises(InvalidParameterError, match=re.escape("item 0 is a FairnessProfile")):
        pf.read_profile([prof])  # type: ignore[list-item]


# ---- the command line and regression profiles ---------------------------------------------


def _regression_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {"g": ["a", "b"] * 100, "truth": rng.normal(5, 1, 200), "pred": rng.normal(5, 1, 200)}
    )
    data = tmp_path / "data.csv"
    df.write_csv(data)
    prof = tmp_path / "reg.parquet"
    kw = {"y_true": "truth", "y_pred": "pred", "sensitive_features": "g"}
    df.fair.profile(**kw, task="regression").write_parquet(prof)
    return prof, data


@pytest.mark.parametrize("sides", ["profile-data", "data-profile", "profile-profile"])
def test_cli_compare_refuses_a_regression_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sides: str
) -> None:
    prof, data = _regression_files(tmp_path)
    left, right = ({"profile": prof, "data": data}[s] for s in sides.split("-"))
    assert main(["compare", str(left), str(right), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{str(prof)!r} is a regression profile (--task regression)" in err
    assert "pos-label" not in err


def test_cli_audit_refuses_a_regression_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prof, _ = _regression_files(tmp_path)
    assert main(["audit", "--profile", str(prof)]) == 2
    err = capsys.readouterr().err
    assert "is a regression profile (--task regression)" in err
    assert "`audit` has nothing to judge" in err


# ---- regression messages ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "dtype"), [(pl.col("pred") > 5, "Boolean"), (pl.col("g").str.to_uppercase(), "String")]
)
@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_regression_dtype_error_names_the_expression(expr: pl.Expr, dtype: str, kind: str) -> None:
    df = pl.DataFrame({"g": ["a", "b"], "truth": [1.0, 2.0], "pred": [1.5, 2.5]})
    frame = df if kind == "eager" else df.lazy()
    msg = f"`y_pred` expression {expr} must be numeric for a regression audit, got dtype {dtype}"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        frame.fair.profile(y_true="truth", y_pred=expr, sensitive_features="g", task="regression")


def test_a_fixed_column_left_out_is_shown_as_none() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "truth": [1.0, 2.0], "pred": [1.5, 2.5], "w": [1.0, 2.0]})
    prof = df.fair.profile(y_true="truth", y_pred="pred", sensitive_features="g", task="regression")
    msg = "`sample_weight`='w' against the profile's None\n"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        prof.criterion("mae_ratio", sample_weight="w")


# ---- the command line's --output ------------------------------------------------------------


def _german_like(tmp_path: Path) -> list[str]:
    data = tmp_path / "data.csv"
    _selected(0.5, n=50).write_csv(data)
    return [str(data), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]


@pytest.mark.parametrize("command", ["profile", "audit"])
def test_cli_output_under_a_file_says_it_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    args = _german_like(tmp_path)
    (tmp_path / "taken.parquet").write_bytes(b"x")
    out = str(tmp_path / "taken.parquet" / "x.parquet")
    extra = ["--no-progress"] if command == "profile" else []
    assert main([command, *args, "-o", out, *extra]) == 2
    err = capsys.readouterr().err
    assert f"{str(tmp_path / 'taken.parquet')!r} is a file, not a directory" in err
    assert "does not exist" not in err


def test_cli_profile_unwritable_output_does_not_suggest_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _german_like(tmp_path)
    out = str(tmp_path / ("x" * 300 + ".parquet"))  # a name too long for the file system
    assert main(["profile", *args, "-o", out, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--output {out!r} cannot be written" in err
    assert "stdout" not in err
