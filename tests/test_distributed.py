"""Ray scale-out: per-file (and per-block) reductions summed on the driver equal the
local results: counts exactly, float sums (weights, scores) to 1e-9 relative."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401
from polars_fair.exceptions import InvalidParameterError

ray = pytest.importorskip("ray")

from polars_fair.distributed import (  # noqa: E402
    dataset_group_stats,
    ray_group_stats,
    ray_profile,
    ray_report,
)

# Ray and Ray Data emit DeprecationWarnings of their own: tolerated in this module only
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four Parquet files (and a CSV) of one schema, with nulls, weights and scores."""
    rng = np.random.default_rng(7)
    root = tmp_path_factory.mktemp("ray")
    paths = []
    for i in range(4):
        n = 3000 + 500 * i
        df = pl.DataFrame(
            {
                "model": rng.choice(["m1", "m2"], n),
                "race": rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2]),
                "sex": rng.choice(["F", "M"], n),
                "y": rng.integers(0, 2, n),
                "p": rng.integers(0, 2, n),
                "s": rng.random(n).round(3),
                "w": rng.random(n) * 2,
            }
        ).with_columns(
            pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise(pl.col("y")).alias("y")
        )
        path = root / (f"part{i}.parquet" if i < 3 else "part3.csv")
        if i < 3:
            df.write_parquet(path)
        else:
            df.write_csv(path)
        paths.append(path)
    return paths


def _local(files: list[Path]) -> pl.LazyFrame:
    frames = [pl.scan_parquet(p) if p.suffix == ".parquet" else pl.scan_csv(p) for p in files]
    return pl.concat(frames, how="diagonal_relaxed")


COUNTS = ["n", "tp", "fp", "fn", "tn", "n_null"]


@pytest.mark.parametrize(
    "kw",
    [
        {"y_true": "y", "y_pred": "p", "sensitive_features": "race"},
        {"y_true": "y", "y_pred": "p", "sensitive_features": ["race", "sex"], "by": "model"},
        {"y_true": "y", "y_pred": pl.col("s") >= 0.5, "sensitive_features": "race", "y_prob": "s"},
    ],
)
def test_ray_group_stats_equals_local(
    local_ray: None, files: list[Path], kw: dict[str, Any]
) -> None:
    got = ray_group_stats(files, **kw)
    want = _local(files).fair.group_stats(**kw).collect()
    assert got.select(COUNTS).dtypes == [pl.Int64] * len(COUNTS)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-9)
    assert got.select(COUNTS).equals(want.select(COUNTS))  # counts exactly


def test_ray_group_stats_weighted(local_ray: None, files: list[Path]) -> None:
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "race", "sample_weight": "w"}
    got = ray_group_stats(files, **kw)
    want = _local(files).fair.group_stats(**kw).collect()
    assert got["n_null"].equals(want["n_null"])
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-9)


def test_ray_report_equals_local(local_ray: None, files: list[Path]) -> None:
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "race", "y_prob": "s", "by": "model"}
    with pytest.warns(polars_fair.NullDataWarning):
        got = ray_report(files, **kw)
    with pytest.warns(polars_fair.NullDataWarning):
        want = _local(files).fair.report(**kw)
    for (name, table), (other, expected) in zip(got.tables(), want.tables(), strict=True):
        assert name == other
        assert_frame_equal(table, expected, check_exact=False, rel_tol=1e-9)


def test_dataset_group_stats_equals_local(local_ray: None, files: list[Path]) -> None:
    frames = [pl.read_parquet(p) for p in files if p.suffix == ".parquet"]
    ds = ray.data.from_arrow([f.to_arrow() for f in frames])
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "race"}
    got = dataset_group_stats(ds, **kw)
    want = pl.concat(frames).lazy().fair.group_stats(**kw).collect()
    assert got.equals(want)


def test_no_files_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match="no files"):
        ray_group_stats([], y_pred="p", sensitive_features="g")


def _profile_tables_equal(
    got: polars_fair.FairnessProfile, want: polars_fair.FairnessProfile
) -> None:
    assert sorted(got.tables) == sorted(want.tables)
    assert got.rows == want.rows
    for name, table in want.tables.items():
        keys = [c for c, d in table.schema.items() if not d.is_float()]
        ordered = got.tables[name].sort(keys, nulls_last=True)
        expected = table.sort(keys, nulls_last=True)
        assert ordered.select(keys).equals(expected.select(keys))  # keys and counts exactly
        assert_frame_equal(ordered, expected, check_exact=False, rel_tol=1e-9)


@pytest.mark.parametrize(
    "kw",
    [
        {"y_true": "y", "y_pred": "p", "sensitive_features": "race", "by": "model"},
        {"y_true": "y", "y_pred": pl.col("s") >= 0.5, "y_prob": "s",
         "sensitive_features": ["race", "sex"], "sample_weight": "w"},
        {"y_true": "s", "y_pred": "w", "sensitive_features": "race", "task": "regression"},
    ],
)  # fmt: skip
def test_ray_profile_equals_local(local_ray: None, files: list[Path], kw: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", polars_fair.NullDataWarning)
        got = ray_profile(files, **kw)
        want = polars_fair.profile(_local(files), **kw)
    _profile_tables_equal(got, want)
    assert got.meta["spec"] == want.meta["spec"]  # columns and expressions as written
    # and what is derived from it: the report from rows
    if kw.get("task") != "regression":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            summary = got.summary(min_group_size=0)
            rows = (
                _local(files).fair.report(**{k: v for k, v in kw.items()}, min_group_size=0).summary
            )
        assert_frame_equal(summary, rows, check_exact=False, rel_tol=1e-9)


def test_ray_profile_checks_options_on_the_driver(local_ray: None, files: list[Path]) -> None:
    with pytest.raises(polars_fair.ColumnNotFoundError, match="'nope'.*`y_pred`"):
        ray_profile(files, y_true="y", y_pred="nope", sensitive_features="race")
    with pytest.raises(InvalidParameterError, match="no files"):
        ray_profile([], y_true="y", y_pred="p", sensitive_features="race")


def test_ray_profile_names_files_that_do_not_merge(
    local_ray: None, files: list[Path], tmp_path: Path
) -> None:
    other = tmp_path / "coded.parquet"  # the same rows, race coded as integers
    pl.read_parquet(files[0]).with_columns(
        pl.col("race").replace_strict({"A": 1, "B": 2, "C": 3})
    ).write_parquet(other)
    with pytest.raises(polars_fair.ProfileError, match="coded.parquet"):
        ray_profile([files[1], other], y_true="y", y_pred="p", sensitive_features="race")
