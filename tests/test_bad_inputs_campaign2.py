"""Second bad-input campaign: the defects it found, one parametrized test each.

Every case failed before its fix:

* a batch key named like a summary column (``criterion``, ``group``, ...) with the ROC
  AUC criteria in the summary ended in Polars' raw ``DuplicateError``;
* an expression of the wrong dtype (``pl.col("score") >= "x"``) for a column
  parameter passed the schema check and raised a raw ``ComputeError`` at collect (on
  the command line, as if the file were unreadable);
* the standard deviation of a group without counted rows (every prediction null, or
  every weight 0) was 0.0 instead of null, with a ``NumericalWarning`` about
  ``nan ± ...`` values and a hint to subtract ``nan``;
* ``polars-fair profile -o data.parquet data.parquet`` (and ``audit`` / ``compare``
  with ``-o`` onto an input) overwrote the input data;
* ``merge_profiles(profile)`` and ``read_profile(123)`` raised raw ``TypeError``s;
* an unknown ``slice_metric`` of a report was reported as ``metric``.
"""

from __future__ import annotations

import re
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.cli import main
from polars_fair.exceptions import InvalidParameterError, NullDataWarning
from polars_fair.metrics._slices import SLICE_METRICS

KINDS = ["eager", "lazy"]


def frame(n: int = 200, seed: int = 2) -> pl.DataFrame:
    """Two groups, two batches, binary labels and predictions, scores, weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.clip(0.5 * rng.uniform(0, 1, n) + 0.4 * y, 0, 1)
    return pl.DataFrame(
        {
            "g": np.where(np.arange(n) % 3 == 0, "x", "a"),
            "b": np.where(np.arange(n) % 2 == 0, "k1", "k2"),
            "y": y,
            "p": (s >= 0.5).astype(np.int64),
            "s": s,
            "q": rng.normal(10, 2, n),
            "w": rng.uniform(0.5, 2.0, n),
        }
    )


def on(df: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return df if kind == "eager" else df.lazy()


def run(out: object) -> object:
    return out.collect() if isinstance(out, pl.LazyFrame) else out


K = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


# ---- a batch key named like a column of the summary, with the AUC criteria ---------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["criterion", "group", "verdict", "compared_with"])
@pytest.mark.parametrize("criteria", [["roc_auc_difference"], ["roc_auc_ratio"]])
def test_auc_summary_refuses_a_key_named_like_its_columns(
    kind: str, name: str, criteria: list[str]
) -> None:
    df = frame().rename({"b": name})
    msg = f"column {name!r} (given as `by`) clashes with an output column of polars_fair"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        run(on(df, kind).fair.summary(**K, y_prob="s", by=name, criteria=criteria))


@pytest.mark.parametrize("name", ["criterion", "group"])
def test_auc_report_refuses_a_key_named_like_a_summary_column(name: str) -> None:
    df = frame().rename({"b": name})
    with pytest.raises(InvalidParameterError, match=re.escape(f"column {name!r}")):
        df.fair.report(**K, y_prob="s", by=name, criteria=["roc_auc_difference"])


# ---- an expression of the wrong dtype --------------------------------------------------

_BAD = {
    "y_pred": ("by_group", {**K, "y_pred": pl.col("s") >= "x"}),
    "y_true": ("summary", {**K, "y_true": pl.col("y") > "a"}),
    "y_prob": (
        "roc_auc_difference",
        {"y_true": "y", "sensitive_features": "g", "y_prob": pl.col("s").str.len_chars()},
    ),
    "sample_weight": ("by_group", {**K, "sample_weight": pl.col("w") * pl.col("g")}),
    "regression": ("regression_by_group", {"y_pred": pl.col("q") + pl.col("g"), "sensitive_features": "g"}),
    "slices": ("slices", {"y_true": "y", "y_pred": pl.col("s") >= "x", "candidates": ["g"]}),
}  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(_BAD))
def test_expression_of_the_wrong_dtype_is_named(kind: str, case: str) -> None:
    method, kwargs = _BAD[case]
    param = "y_pred" if case in ("regression", "slices") else case
    pattern = rf"`{param}` expression .* cannot be evaluated on this frame: .*\n\nHint: the columns it uses have dtypes"
    with pytest.raises(InvalidParameterError, match=pattern):
        run(getattr(on(frame(), kind).fair, method)(**kwargs))


def test_expression_of_the_wrong_dtype_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame().write_csv(tmp_path / "d.csv")
    argv = ["audit", "--no-progress", "--y-true", "y", "--y-pred", "s >= 'x'"]
    code = main([*argv, "--sensitive-features", "g", str(tmp_path / "d.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert "`y_pred` expression" in err
    assert "cannot read" not in err  # the file is fine: the expression is not


# ---- a group without counted rows has no standard deviation -----------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_std_of_a_group_whose_predictions_are_all_null_is_null(kind: str) -> None:
    df = frame().with_columns(q=pl.when(pl.col("g") == "x").then(None).otherwise(pl.col("q")))
    with pytest.warns(NullDataWarning) if kind == "eager" else nullcontext():
        out = run(on(df, kind).fair.regression_by_group(y_pred="q", sensitive_features="g"))
    got = dict(zip(out["g"], out["std_prediction"], strict=True))
    q = df.filter(pl.col("g") == "a")["q"].to_numpy()
    assert got["x"] is None  # no rows: undefined, never 0
    assert got["a"] == pytest.approx(np.std(q), rel=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_std_of_a_group_of_zero_weight_is_null_without_a_precision_warning(kind: str) -> None:
    df = frame().with_columns(w=pl.when(pl.col("g") == "x").then(0.0).otherwise(pl.col("w")))
    out = run(
        on(df, kind).fair.regression_by_group(y_pred="q", sensitive_features="g", sample_weight="w")
    )  # no NumericalWarning (warnings are errors here)
    got = dict(zip(out["g"], out["std_prediction"], strict=True))
    a = df.filter(pl.col("g") == "a")
    q, w = a["q"].to_numpy(), a["w"].to_numpy()
    mean = (w * q).sum() / w.sum()
    assert got["x"] is None
    assert got["a"] == pytest.approx(np.sqrt((w * (q - mean) ** 2).sum() / w.sum()), rel=1e-9)


# ---- -o onto an input file ---------------------------------------------------------------


def _cases(tmp: Path) -> dict[str, list[str]]:
    cols = ["--no-progress", "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    data, prof = str(tmp / "d.parquet"), str(tmp / "prof.parquet")
    return {
        "profile": ["profile", *cols, "-o", data, data],
        "profile glob": ["profile", *cols, "-o", data, str(tmp / "*.parquet")],
        "audit": ["audit", *cols, "--format", "json", "-o", data, data],
        "audit --profile": ["audit", "--no-progress", "--profile", prof, "-o", prof],
        "compare": ["compare", "--no-progress", prof, prof, "-o", prof],
    }


@pytest.mark.parametrize("case", ["profile", "profile glob", "audit", "audit --profile", "compare"])
def test_output_onto_an_input_file_is_refused(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = frame()
    df.write_parquet(tmp_path / "d.parquet")
    df.fair.profile(**K).write_parquet(tmp_path / "prof.parquet")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code = main(_cases(tmp_path)[case])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "is one of the input files" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# ---- profiles: one profile, a path of the wrong type --------------------------------------


@pytest.mark.parametrize("arg", ["profile", "a.parquet", 3])
def test_merge_profiles_needs_a_list(arg: object) -> None:
    p = frame().fair.profile(**K)
    given = p if arg == "profile" else arg
    with pytest.raises(InvalidParameterError, match="`merge_profiles` takes a list"):
        pf.merge_profiles(given)  # type: ignore[arg-type]


@pytest.mark.parametrize("arg", [123, 1.5, "profile"])
def test_read_profile_needs_paths(arg: object) -> None:
    given = frame().fair.profile(**K) if arg == "profile" else arg
    with pytest.raises(InvalidParameterError, match="`source` must be a path"):
        pf.read_profile(given)  # type: ignore[arg-type]


# ---- the report's slice_metric is named as given ------------------------------------------


@pytest.mark.parametrize("surface", ["eager", "lazy", "profile"])
def test_report_names_slice_metric(surface: str) -> None:
    df = frame()
    msg = f"`slice_metric` must be one of {list(SLICE_METRICS)}, got 'auc'"
    source = df.fair.profile(**K) if surface == "profile" else on(df, surface).fair
    kwargs = {} if surface == "profile" else K
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        source.report(**kwargs, slices=["g"], slice_metric="auc")


# ---- max_rows of the renderings --------------------------------------------------------


@pytest.mark.parametrize("render", ["to_markdown", "to_html", "to_text"])
@pytest.mark.parametrize("max_rows", [1.5, "5", True])
def test_max_rows_must_be_an_integer(render: str, max_rows: object) -> None:
    report = frame().fair.report(**K)
    msg = f"`max_rows` must be None or a positive integer, got {max_rows!r}"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        getattr(report, render)(max_rows=max_rows)


# ---- profile.trend names its `criterion` -------------------------------------------------


@pytest.mark.parametrize("criterion", ["", "demographic_parity", ["cohen_d"]])
@pytest.mark.parametrize("method", ["trend", "trend_chart"])
def test_trend_names_its_criterion(criterion: object, method: str) -> None:
    prof = frame().fair.profile(**K, by="b")
    msg = f"`criterion` must be the name of one criterion, got {criterion!r}"
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        getattr(prof, method)(criterion, time="b")
