"""Scale-out on Ray: reductions per file (or per Dataset block), summed on the driver.

Every reduction of polars_fair is additive, so a cluster computes it in pieces:
each Ray task reads one file with Polars (streaming), collects the small tables,
and the driver sums them (:func:`~polars_fair.reduce.merge_group_stats`) and
derives every metric and the report exactly as the local path does. Counts are
identical to the local result; float sums (weights, scores) agree to rounding.

A fairness profile (:func:`ray_profile`) is made the same way: one profile per file,
merged on the driver (:func:`~polars_fair.merge_profiles`), equal to the profile of
the concatenated files.

Tasks over files with Polars inside are the fast path: Ray Data's own readers and
``groupby`` were 3 to 10 times slower on this workload. A Ray Dataset is supported
for the statistics table (:func:`dataset_group_stats`), one block at a time.

Ray is an optional extra: ``pip install "polars-fair[ray]"``. The functions run
inside Ray workers are module-level functions of this installed module, so workers
import them rather than unpickling closures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from polars_fair.exceptions import FairError, InvalidParameterError
from polars_fair.io.sources import read_error, scan_file
from polars_fair.namespace._profile import FairnessProfile, merge_sources, profile
from polars_fair.namespace._report import (
    ReportSpec,
    derive_report,
    report_reductions,
    sum_reductions,
)
from polars_fair.reduce import group_stats, merge_group_stats
from polars_fair.report import FairnessReport

if TYPE_CHECKING:
    from polars_fair._typing import IntoColumn, IntoColumns, PosLabel

_T = TypeVar("_T")

__all__ = [
    "dataset_group_stats",
    "file_group_stats",
    "file_profile",
    "file_report_reductions",
    "ray_group_stats",
    "ray_profile",
    "ray_report",
]

_HINT = 'Hint: install the extra, `pip install "polars-fair[ray]"`'


_EXAMPLE = '["part-0.parquet", "part-1.parquet"]'


def _read(path: str, read: Callable[[], _T]) -> _T:
    """`read()`, with a failure to read `path` as a FileReadError naming the file.

    A corrupt or empty file, or a glob matching no file: Polars' ``ComputeError``.
    """
    try:
        return read()
    except (pl.exceptions.PolarsError, OSError) as exc:
        if isinstance(exc, FairError):
            raise
        raise read_error(path, exc) from exc


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        msg = f"Ray is not installed\n\n{_HINT}"
        raise ImportError(msg) from exc
    return ray


def _paths(paths: str | Path | Sequence[str | Path]) -> list[str]:
    is_list = isinstance(paths, Sequence) and not isinstance(paths, (str, bytes))
    if not isinstance(paths, (str, Path)) and not (
        is_list and all(isinstance(p, (str, Path)) for p in paths)
    ):
        msg = f"`paths` must be a path or a list of paths, got {paths!r}\n\nHint: e.g. {_EXAMPLE}"
        raise InvalidParameterError(msg)
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not items:
        msg = "no files given\n\nHint: pass a list of file paths"
        raise InvalidParameterError(msg)
    return [str(p) for p in items]


# ---- what runs in a worker (module-level: importable there) --------------------------


def file_group_stats(path: str, kwargs: dict[str, Any]) -> pl.DataFrame:
    """
    The statistics table of one file, streamed (runs inside a Ray task).

    Parameters
    ----------
    path
        A file readable by :func:`polars_fair.io.sources.scan_file`.
    kwargs
        Keyword arguments of :func:`polars_fair.group_stats`.

    Returns
    -------
    DataFrame
        The file's statistics table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.io.distributed import file_group_stats
    >>> path = str(Path(tempfile.mkdtemp()) / "preds.parquet")
    >>> pl.DataFrame({"g": ["a", "b", "b"], "p": [1, 0, 1]}).write_parquet(path)
    >>> file_group_stats(path, {"y_pred": "p", "sensitive_features": "g"})
    shape: (2, 5)
    ┌─────┬─────┬──────────┬──────────┬────────┐
    │ g   ┆ n   ┆ pred_pos ┆ pred_neg ┆ n_null │
    │ --- ┆ --- ┆ ---      ┆ ---      ┆ ---    │
    │ str ┆ i64 ┆ i64      ┆ i64      ┆ i64    │
    ╞═════╪═════╪══════════╪══════════╪════════╡
    │ a   ┆ 1   ┆ 1        ┆ 0        ┆ 0      │
    │ b   ┆ 2   ┆ 1        ┆ 1        ┆ 0      │
    └─────┴─────┴──────────┴──────────┴────────┘
    """
    return _read(path, lambda: group_stats(scan_file(path), **kwargs).collect(engine="streaming"))


def file_report_reductions(path: str, params: dict[str, Any]) -> list[pl.DataFrame]:
    """
    The collected reductions of a report over one file (runs inside a Ray task).

    Parameters
    ----------
    path
        A file readable by :func:`polars_fair.io.sources.scan_file`.
    params
        The report's parameters: ``ReportSpec.to_dict()`` of a
        :class:`~polars_fair.ReportSpec`.

    Returns
    -------
    list of DataFrame
        The reductions, in the order the report derives them.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair import ReportSpec
    >>> from polars_fair.io.distributed import file_report_reductions
    >>> path = str(Path(tempfile.mkdtemp()) / "preds.parquet")
    >>> pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "p": [1, 1]}).write_parquet(path)
    >>> params = ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g").to_dict()
    >>> [t.columns for t in file_report_reductions(path, params)]
    [['g', 'n', 'tp', 'fp', 'fn', 'tn', 'n_null']]
    """
    spec = ReportSpec.of(**params)
    return _read(
        path, lambda: pl.collect_all(report_reductions(scan_file(path), spec), engine="streaming")
    )


def file_profile(path: str, kwargs: dict[str, Any]) -> FairnessProfile:
    """
    The fairness profile of one file, one read (runs inside a Ray task).

    Parameters
    ----------
    path
        A file readable by :func:`polars_fair.io.sources.scan_file`.
    kwargs
        Keyword arguments of :func:`polars_fair.profile`.

    Returns
    -------
    FairnessProfile

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import polars as pl
    >>> from polars_fair.io.distributed import file_profile
    >>> path = str(Path(tempfile.mkdtemp()) / "preds.parquet")
    >>> pl.DataFrame({"g": ["a", "b"], "y": [1, 0], "p": [1, 1]}).write_parquet(path)
    >>> file_profile(path, {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}).rows
    2
    """
    return _read(path, lambda: profile(scan_file(path), **kwargs))


# ---- the driver ----------------------------------------------------------------------


def ray_group_stats(
    paths: str | Path | Sequence[str | Path],
    *,
    sensitive_features: IntoColumns,
    y_true: IntoColumn | None = None,
    y_pred: IntoColumn | None = None,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    y_prob: IntoColumn | None = None,
) -> pl.DataFrame:
    """
    The statistics table of many files: one Ray task per file, summed on the driver.

    Parameters
    ----------
    paths
        Files of predictions (CSV, Parquet, NDJSON or Arrow IPC).
    sensitive_features, y_true, y_pred, by, sample_weight, pos_label, y_prob
        As :func:`polars_fair.group_stats`.

    Returns
    -------
    DataFrame
        The statistics table of all files together: equal to ``group_stats`` over
        their concatenation.

    Examples
    --------
    >>> from polars_fair.io.distributed import ray_group_stats
    >>> ray_group_stats(["a.parquet", "b.parquet"], y_pred="p", sensitive_features="g")  # doctest: +SKIP
    """
    ray = _ray()
    kwargs = {
        "y_true": y_true, "y_pred": y_pred, "sensitive_features": sensitive_features,
        "by": by, "sample_weight": sample_weight, "pos_label": pos_label, "y_prob": y_prob,
    }  # fmt: skip
    task = ray.remote(file_group_stats)
    tables = ray.get([task.remote(p, kwargs) for p in _paths(paths)])
    return merge_group_stats(*tables).collect()


def ray_report(paths: str | Path | Sequence[str | Path], **report: Any) -> FairnessReport:
    """
    A fairness report over many files: the report's reductions per file on Ray.

    Each task collects the reductions a report needs (one read of its file); the
    driver sums them and derives the report, exactly as ``lf.fair.report(...)`` over
    the concatenated files.

    Parameters
    ----------
    paths
        Files of predictions (CSV, Parquet, NDJSON or Arrow IPC) with one schema.
    **report
        The keyword arguments of ``df.fair.report`` (``y_true``, ``y_pred``,
        ``sensitive_features``, ...).

    Returns
    -------
    FairnessReport
        The report over all files.

    Examples
    --------
    >>> from polars_fair.io.distributed import ray_report
    >>> ray_report(["a.parquet", "b.parquet"], y_true="y", y_pred="p",
    ...            sensitive_features="g")  # doctest: +SKIP
    """
    ray = _ray()
    files = _paths(paths)
    spec = ReportSpec.of(**report)
    task = ray.remote(file_report_reductions)
    parts = ray.get([task.remote(p, spec.to_dict()) for p in files])
    merged = sum_reductions(*parts)
    frames = [scan_file(p) for p in files]
    combined = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    return derive_report(spec, merged, combined.collect_schema())


def ray_profile(paths: str | Path | Sequence[str | Path], **options: Any) -> FairnessProfile:
    """
    A fairness profile of many files: one Ray task profiles each file, the driver merges.

    The options are checked on the driver first, against the first file's schema (no
    rows read), so a wrong column or option is the error :func:`polars_fair.profile`
    gives, not a failed task. Files whose profiles cannot be merged (other key dtypes,
    say a CSV read with other types) are named in the :class:`~polars_fair.ProfileError`.

    Parameters
    ----------
    paths
        Files of predictions (CSV, Parquet, NDJSON or Arrow IPC) with one schema.
    **options
        The keyword arguments of :func:`polars_fair.profile` (``y_true``, ``y_pred``,
        ``y_prob``, ``sensitive_features``, ``by``, ``sample_weight``, ``task``, ...).

    Returns
    -------
    FairnessProfile
        Equal to ``pl.scan_parquet(paths).fair.profile(**options)`` (counts exactly,
        float sums to rounding).

    Examples
    --------
    >>> from polars_fair.io.distributed import ray_profile
    >>> ray_profile(["a.parquet", "b.parquet"], y_true="y", y_pred="p",
    ...             sensitive_features="g")  # doctest: +SKIP
    """
    files = _paths(paths)
    _read(files[0], lambda: profile(scan_file(files[0]).head(0), **options))  # no rows read
    ray = _ray()
    task = ray.remote(file_profile)
    return merge_sources(ray.get([task.remote(p, options) for p in files]), files)


def _block_stats(batch: Any, kwargs: dict[str, Any]) -> Any:
    """One Dataset block (an Arrow table) to its statistics table, as Arrow."""
    frame = pl.from_arrow(batch)
    assert isinstance(frame, pl.DataFrame)
    return group_stats(frame, **kwargs).collect().to_arrow()


def dataset_group_stats(
    dataset: Any,
    *,
    sensitive_features: IntoColumns,
    y_true: IntoColumn | None = None,
    y_pred: IntoColumn | None = None,
    by: IntoColumns | None = None,
    sample_weight: IntoColumn | None = None,
    pos_label: PosLabel = 1,
    y_prob: IntoColumn | None = None,
) -> pl.DataFrame:
    """
    The statistics table of a Ray Dataset: Polars per block, summed on the driver.

    Parameters
    ----------
    dataset
        A ``ray.data.Dataset`` of predictions.
    sensitive_features, y_true, y_pred, by, sample_weight, pos_label, y_prob
        As :func:`polars_fair.group_stats`.

    Returns
    -------
    DataFrame
        The statistics table of the whole Dataset.

    Examples
    --------
    >>> import ray
    >>> from polars_fair.io.distributed import dataset_group_stats
    >>> ds = ray.data.from_items([{"g": "a", "p": 1}, {"g": "b", "p": 0}])  # doctest: +SKIP
    >>> dataset_group_stats(ds, y_pred="p", sensitive_features="g")  # doctest: +SKIP
    """
    kwargs = {
        "y_true": y_true, "y_pred": y_pred, "sensitive_features": sensitive_features,
        "by": by, "sample_weight": sample_weight, "pos_label": pos_label, "y_prob": y_prob,
    }  # fmt: skip
    blocks = dataset.map_batches(
        _block_stats, batch_format="pyarrow", batch_size=None, fn_kwargs={"kwargs": kwargs}
    )
    tables = [pl.from_arrow(block) for block in blocks.iter_batches(batch_format="pyarrow")]
    frames = [t for t in tables if isinstance(t, pl.DataFrame)]
    return merge_group_stats(*frames).collect()
