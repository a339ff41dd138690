"""Defects found by the second bad-input campaign (accept14), one row per case.

Each case failed before its fix: a raw Python or Polars exception, an error with no
`Hint:`, or bad input accepted without a word. Each must now raise a
:class:`~polars_fair.FairError` subclass whose message names the parameter or
column, the value and the fix; the namespace cases run on eager, lazy and
streaming frames, the command-line ones as real subprocesses.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_fair as pf
from polars_fair.exceptions import (
    FileReadError,
    InputError,
    InvalidParameterError,
    ProfileError,
)

KINDS = ("eager", "lazy", "streaming")


def _frame() -> pl.DataFrame:
    n = 40
    return pl.DataFrame(
        {
            "g": ["a", "x"] * (n // 2),
            "y": [0, 1, 1, 0] * (n // 4),
            "p": [1, 1, 0, 0] * (n // 4),
            "s": [0.1, 0.7, 0.4, 0.9] * (n // 4),
            "w": [1.0, 2.0, 0.5, -1.0] * (n // 4),
        }
    )


BIN = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


def _run(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    target = df if kind == "eager" else df.lazy()
    out = getattr(target.fair, name)(**kw)
    if isinstance(out, pl.LazyFrame):
        return out.collect(engine="in-memory" if kind == "lazy" else "streaming")
    return out


# (id, method, keyword arguments, frame change, error class, fragments of the message)
NAMESPACE_CASES: list[tuple[str, str, dict[str, Any], Any, type[Exception], tuple[str, ...]]] = [
    ("method-hint", "demographic_parity_difference",
     {"y_pred": "p", "sensitive_features": "g", "method": "pairwise"}, None,
     InvalidParameterError, ("`method`", "'pairwise'", "Hint: leave it out")),
    ("scheme-hint", "bootstrap", {**BIN, "n_resamples": 5, "scheme": "bogus"}, None,
     InvalidParameterError, ("`scheme`", "'bogus'", "Hint: 'stratified'")),
    ("flag-hint", "summary", {**BIN, "frequency_weights": "yes"}, None,
     InvalidParameterError, ("`frequency_weights`", "'yes'", "Hint: pass the bool")),
    ("column-type-hint", "by_group", {**BIN, "y_true": 123}, None,
     InvalidParameterError, ("`y_true`", "123", 'Hint: e.g. `y_true="label"`')),
    ("min-group-size-inf", "summary", {**BIN, "min_group_size": float("inf")}, None,
     InvalidParameterError, ("`min_group_size`", "inf", "finite", "Hint: e.g.")),
    ("exact-scores-str", "profile", {**BIN, "y_prob": "s", "exact_scores": "yes"}, None,
     InvalidParameterError, ("`exact_scores`", "'yes'", "Hint:")),
    ("criteria-method", "summary", {**BIN, "criteria": ["abroca"]}, None,
     InvalidParameterError, ("'abroca'", "`df.fair.abroca(...)`", "Hint:")),
    ("object-sensitive", "by_group", BIN,
     lambda df: df.with_columns(pl.Series("g", [object()] * df.height, dtype=pl.Object)),
     InvalidParameterError, ("`sensitive_features` column 'g'", "Object", "Hint: convert it")),
    # counts so large their arrays do not fit in memory: a MemoryError or the OOM killer before
    ("n-bins-huge", "calibration",
     {"y_true": "y", "y_prob": "s", "sensitive_features": "g", "n_bins": 10**9}, None,
     InvalidParameterError, ("`n_bins` must be at most 10,000, got 1,000,000,000", "Hint:")),
    ("n-thresholds-huge", "max_statistical_parity",
     {"y_pred": "s", "sensitive_features": "g", "n_thresholds": 10**9}, None,
     InvalidParameterError, ("`n_thresholds` must be at most 10,000", "Hint:")),
    ("slice-bins-huge", "slices",
     {"y_true": "y", "y_pred": "p", "candidates": ["s"], "n_bins": 10**9, "min_size": 5}, None,
     InvalidParameterError, ("`n_bins` must be at most 1,000", "Hint:")),
    ("n-resamples-huge", "bootstrap", {**BIN, "n_resamples": 10**9}, None,
     InvalidParameterError, ("`n_resamples` must be at most 100,000", "Hint:")),
    ("profile-by-missing-column", "profile", {**BIN, "by": pl.col("zz").alias("k")}, None,
     pf.ColumnNotFoundError, ("`by` expression", "reads column 'zz'", "Hint:")),
    ("negative-weight-hint", "by_group", {**BIN, "sample_weight": "w"}, None,
     pf.ValueRangeError, ("column 'w'", "weight(s), e.g. -1\n", "df.filter((pl.col('w') < 0)")),
    ("negative-weight-regression", "regression_by_group",
     {"y_pred": "s", "sensitive_features": "g", "sample_weight": "w"}, None,
     pf.ValueRangeError, ("column 'w'", "weight(s), e.g. -1\n")),
    ("negative-weight-multiclass", "multiclass_by_group", {**BIN, "sample_weight": "w"}, None,
     pf.ValueRangeError, ("column 'w'", "weight(s), e.g. -1\n")),
    ("negative-weight-ensemble", "ensemble_by_group",
     {"y_prob": ["s", "s"], "sensitive_features": "g", "sample_weight": "w"}, None,
     pf.ValueRangeError, ("column 'w'", "weight(s), e.g. -1\n")),
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("method", "kw", "change", "error", "fragments"),
    [pytest.param(*case[1:], id=case[0]) for case in NAMESPACE_CASES],
)
def test_namespace_bad_input_is_named(
    kind: str,
    method: str,
    kw: dict[str, Any],
    change: Callable[[pl.DataFrame], pl.DataFrame] | None,
    error: type[Exception],
    fragments: tuple[str, ...],
) -> None:
    df = _frame() if change is None else change(_frame())
    if method == "profile" and kind == "streaming":
        pytest.skip("a profile collects on its own engine")
    if "sample_weight" not in kw:
        df = df.drop("w")
    before = df.select([c for c, t in df.schema.items() if t != pl.Object]).clone()
    with pytest.raises(error) as info:
        _run(df, kind, method, **kw)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert df.select(before.columns).equals(before)  # the user's frame is untouched


def _profile() -> pf.FairnessProfile:
    return _frame().drop("w").fair.profile(**BIN)


def _stats(sensitive: str) -> pl.LazyFrame:
    return pf.group_stats(_frame().drop("w"), y_true="y", y_pred="p", sensitive_features=sensitive)


def _reductions(spec: pf.ReportSpec) -> list[pl.DataFrame]:
    return pl.collect_all(pf.report_reductions(_frame().drop("w"), spec))


SPEC = pf.ReportSpec.of(**BIN)

# (id, call, error class, fragments of the message); `tmp` is a temporary folder
TOP_LEVEL_CASES: list[tuple[str, Callable[[Path], Any], type[Exception], tuple[str, ...]]] = [
    ("fair-int", lambda tmp: pf.fair(123),  # type: ignore[call-overload]
     InvalidParameterError, ("got int", "Hint: build one first")),
    ("read-profile-missing", lambda tmp: pf.read_profile(tmp / "nope.parquet"),
     ProfileError, ("nope.parquet", "no such file", "Hint:")),
    ("read-profile-directory", lambda tmp: pf.read_profile(tmp),
     ProfileError, ("it is a directory", "Hint:")),
    ("merge-profiles-empty", lambda tmp: pf.merge_profiles([]),
     InvalidParameterError, ("at least one profile", "Hint:")),
    ("merge-profiles-not-a-profile", lambda tmp: pf.merge_profiles([_profile(), "x"]),  # type: ignore[list-item]
     InvalidParameterError, ("item 1 is a str", "Hint:")),
    ("merge-group-stats-different-keys",
     lambda tmp: pf.merge_group_stats(_stats("g"), _stats("y")),
     InvalidParameterError, ("table 1 has ['y'", "table 0 has ['g'", "Hint:")),
    ("merge-group-stats-of-data", lambda tmp: pf.merge_group_stats(_frame()),
     InvalidParameterError, ("no count columns", "Hint: pass tables made by")),
    ("scan-file-missing", lambda tmp: pf.scan_file(tmp / "nope.csv"),
     FileReadError, ("nope.csv", "no such file", "Hint:")),
    ("scan-file-directory", lambda tmp: pf.scan_file(tmp),
     FileReadError, ("it is a directory", "Hint:")),
    ("scan-file-null-values-str",
     lambda tmp: pf.scan_file(_csv(tmp), null_values="NA"),  # type: ignore[arg-type]
     InvalidParameterError, ("`null_values`", "'NA'", "Hint: e.g. `null_values=['NA']`")),
    ("scan-file-infer-negative", lambda tmp: pf.scan_file(_csv(tmp), infer_schema_length=-1),
     InvalidParameterError, ("`infer_schema_length`", "-1", "Hint:")),
    ("expression-int-column", lambda tmp: pf.selection_rate(123),  # type: ignore[arg-type]
     InvalidParameterError, ("got int 123", "Hint:")),
    ("derive-report-data-not-reductions",
     lambda tmp: pf.derive_report(SPEC, [_frame()], _frame().schema),
     InvalidParameterError, ("reduction 0 does not match", "Hint:")),
    ("derive-report-not-a-spec",
     lambda tmp: pf.derive_report("spec", _reductions(SPEC), _frame().schema),  # type: ignore[arg-type]
     InvalidParameterError, ("`spec` must be a ReportSpec", "Hint:")),
    ("sum-reductions-uneven",
     lambda tmp: pf.sum_reductions(_reductions(SPEC), [*_reductions(SPEC), _frame()]),
     InvalidParameterError, ("got [1, 2]", "Hint:")),
]  # fmt: skip


def _csv(tmp: Path) -> Path:
    path = tmp / "data.csv"
    _frame().write_csv(path)
    return path


@pytest.mark.parametrize(
    ("call", "error", "fragments"),
    [pytest.param(*case[1:], id=case[0]) for case in TOP_LEVEL_CASES],
)
def test_top_level_bad_input_is_named(
    tmp_path: Path,
    call: Callable[[Path], Any],
    error: type[Exception],
    fragments: tuple[str, ...],
) -> None:
    with pytest.raises(error) as info:
        call(tmp_path)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_merge_group_stats_still_sums_matching_tables() -> None:
    # the new schema check lets the tables it is for through, summed
    df = _frame().drop("w")
    halves = [
        pf.group_stats(part, y_true="y", y_pred="p", sensitive_features="g")
        for part in (df.head(10), df.tail(30))
    ]
    whole = pf.group_stats(df, y_true="y", y_pred="p", sensitive_features="g").collect()
    assert pf.merge_group_stats(*halves).collect().equals(whole)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "first", "hint"),
    [
        pytest.param(
            ["--min-group-size", "abc"],
            "polars-fair audit: error: argument --min-group-size: invalid float value: 'abc'",
            "Hint: see `polars-fair audit --help` (usage: polars-fair audit [options] ...)",
            id="argparse-type",
        ),
        pytest.param(
            ["--min-group-size", "-1"],
            "polars-fair: error: `min_group_size` must be a finite, non-negative number, got -1.0",
            "Hint: e.g. `--min-group-size 30`",
            id="library-hint-as-option",
        ),
        pytest.param(
            ["--slices", "g", "--max-depth", "-1"],
            "polars-fair: error: `max_depth` must be a positive integer, got -1",
            "Hint: `--max-depth 2` tests every single attribute value and every pair",
            id="max-depth-as-option",
        ),
    ],
)
def test_cli_errors_are_one_line_and_a_hint(
    tmp_path: Path, args: list[str], first: str, hint: str
) -> None:
    path = _csv(tmp_path)
    proc = _cli("audit", str(path), "--y-true", "y", "--y-pred", "p",
                "--sensitive-features", "g", "--no-progress", *args)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [first, hint]


def test_cli_unknown_command_is_one_line_and_a_hint() -> None:
    proc = _cli("audtt")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("polars-fair: error: argument command: invalid choice: 'audtt'")
    assert lines[1].startswith("Hint: see `polars-fair --help` (usage: polars-fair [-h]")


# ---- a LazyFrame whose own plan fails while the report or profile reads it ------------------


def _late_na(tmp: Path) -> Path:
    """A CSV whose label column holds 'N/A' after the 50 rows its type is inferred from."""
    y = [str(v) for v in [0, 1, 1, 0] * 50]
    y[150] = "N/A"
    path = tmp / "late.csv"
    pl.DataFrame({"g": ["a", "x"] * 100, "y": y, "p": [1, 1, 0, 0] * 50}).write_csv(path)
    return path


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
@pytest.mark.parametrize("method", ["report", "profile"])
def test_late_parse_error_names_column_value_and_fix(
    tmp_path: Path, method: str, engine: str
) -> None:
    lf = pl.scan_csv(_late_na(tmp_path), infer_schema_length=50)
    with pl.Config(engine_affinity=engine), pytest.raises(InputError) as info:  # type: ignore[arg-type]
        getattr(lf.fair, method)(**BIN)
    message = str(info.value)
    assert "column 'y' holds 'N/A', which does not parse as i64" in message
    assert "Hint: if 'N/A' means missing, scan with `null_values=['N/A']`" in message
    assert isinstance(info.value.__cause__, pl.exceptions.ComputeError)
    # the fix the hint gives works: the row is read as missing, excluded and counted
    fixed = pl.scan_csv(_late_na(tmp_path), infer_schema_length=50, null_values=["N/A"])
    with pytest.warns(pf.NullDataWarning, match="1 row"):
        assert fixed.fair.report(**BIN).by_group["n_null"].sum() == 1


@pytest.mark.parametrize("method", ["report", "profile"])
def test_failing_cast_upstream_is_an_input_error(method: str) -> None:
    lf = _frame().lazy().with_columns(pl.col("g").cast(pl.Int64))
    with pytest.raises(InputError) as info:
        getattr(lf.fair, method)(y_true="y", y_pred="p", sensitive_features="g")
    message = str(info.value)
    assert message.startswith(
        "the input LazyFrame failed while it was read (InvalidOperationError)"
    )
    assert "conversion from `str` to `i64` failed in column 'g'" in message
    assert "Hint: the error is in the frame's own plan" in message


# ---- a criterion over an identifier-like column warns as the tables do --------------------


@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("demographic_parity_difference", {"y_pred": "p"}),
        ("equalized_odds_difference", {"y_true": "y", "y_pred": "p"}),
        ("disparate_impact_ratio", {"y_pred": "p"}),
    ],
)
def test_criterion_on_an_identifier_warns(name: str, kw: dict[str, Any]) -> None:
    import numpy as np

    n = 5_000  # one group per row: more than 1,000 groups and more than half the rows
    ids = pl.DataFrame(
        {"id": np.arange(n).astype(str), "y": np.arange(n) % 2, "p": (np.arange(n) // 2) % 2}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # one-row groups also have undefined rates
        getattr(ids.fair, name)(sensitive_features="id", **kw)
    texts = [str(w.message) for w in caught if w.category is pf.exceptions.IdentifierWarning]
    assert len(texts) == 1  # once per call
    assert texts[0].startswith(
        f"sensitive feature 'id' looks like an identifier: {n:,} groups for {n:,} rows"
    )
    # a demographic column of the same frame does not warn
    groups = ids.with_columns(g=pl.col("id").cast(pl.Int64) % 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(groups.fair, name)(sensitive_features="g", **kw)
    assert not [w for w in caught if w.category is pf.exceptions.IdentifierWarning]
