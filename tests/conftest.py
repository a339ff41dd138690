"""Shared fixtures: every metric runs on eager, lazy in-memory and lazy streaming frames."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, settings

import polars_fair  # (registers the namespace)

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ENGINES = ("eager", "lazy", "streaming")


def four_weighted_groups(seed: int, smallest: int) -> pl.DataFrame:
    """Four groups (900, 500, 150 and `smallest` rows) of labels ``y``, predictions ``p``
    with their own base and selection rates, and weights ``w`` uniform on [0.3, 4]."""
    rng = np.random.default_rng(seed)
    parts = []
    for name, n, base, sel in (("a", 900, 0.4, 0.5), ("b", 500, 0.45, 0.3),
                               ("c", 150, 0.3, 0.6), ("d", smallest, 0.5, 0.4)):  # fmt: skip
        y = rng.random(n) < base
        p = np.where(y, rng.random(n) < sel + 0.2, rng.random(n) < sel - 0.1)
        w = rng.uniform(0.3, 4.0, n)
        parts.append(pl.DataFrame({"g": [name] * n, "y": y.astype(np.int8),
                                   "p": p.astype(np.int8), "w": w}))  # fmt: skip
    return pl.concat(parts)


def weighted_cells(
    frame: pl.DataFrame, weighted: bool, masks: dict[str, Callable[[Any, Any], Any]]
) -> dict[str, dict[str, float]]:
    """Per group ``g`` of `frame`: the weighted count of each of `masks` (a function of
    the numpy arrays ``y`` and ``p``), and ``sw``, ``sw2``: the sums of the weights ``w``
    and of their squares (all weights 1 when not `weighted`), for Kish effective sizes."""
    cells = {}
    for g in sorted(set(frame["g"].to_list())):
        sub = frame.filter(pl.col("g") == g)
        y, p = sub["y"].to_numpy(), sub["p"].to_numpy()
        w = sub["w"].to_numpy() if weighted else np.ones(len(y))
        cells[g] = {name: float((w * mask(y, p)).sum()) for name, mask in masks.items()}
        cells[g] |= {"sw": float(w.sum()), "sw2": float((w * w).sum())}
    return cells


def assert_overall_row(row: dict[str, Any], expected: dict[str, Any], method: str) -> None:
    """A `to_overall` summary row equals `expected` (from a reference written from the
    definition: ``group``, ``value``, ``low``, ``high``) and used interval `method`."""
    assert row["interval_method"] == method
    assert row["group"] == expected["group"]
    assert row["compared_with"] == "overall"
    assert row["value"] == pytest.approx(expected["value"], rel=1e-12)
    assert row["ci_low"] == pytest.approx(expected["low"], rel=1e-9, abs=1e-12)
    assert row["ci_high"] == pytest.approx(expected["high"], rel=1e-9)
    assert row["ci_low"] <= row["value"] <= row["ci_high"]


def shuffled_unfair(
    frame: pl.DataFrame, criteria: list[str], *, seed: int, runs: int, **options: Any
) -> tuple[dict[str, int], set[str]]:
    """How often each criterion is called `unfair` with `frame`'s ``race`` shuffled.

    Shuffled, race has no true disparity: every `unfair` is wrong. `frame` holds
    ``race``, ``two_year_recid`` and ``pred``; `options` go to ``summary``. Also
    returns the interval methods the summaries used.
    """
    rng = np.random.default_rng(seed)
    race = frame["race"].to_numpy()
    unfair = dict.fromkeys(criteria, 0)
    methods: set[str] = set()
    for _ in range(runs):
        shuffled = frame.with_columns(race=pl.Series(rng.permutation(race)))
        summary = shuffled.fair.summary(
            y_true="two_year_recid", y_pred="pred", sensitive_features="race",
            criteria=criteria, **options,
        )  # fmt: skip
        methods.update(summary["interval_method"])
        for name, verdict in summary.select("criterion", "verdict").iter_rows():
            unfair[name] += verdict == "unfair"
    return unfair, methods


class Runner:
    """Run a `fair` method on one kind of frame and return an eager result.

    ``run(df, "by_group", **kw)`` calls ``df.fair.by_group(**kw)`` for "eager",
    and ``df.lazy().fair.by_group(**kw).collect(engine=...)`` for the lazy kinds
    ("in-memory" or "streaming"). Scalars from the lazy path are unwrapped with
    ``.item()`` when the result has no `by` columns, so all three agree in type.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"Runner({self.kind})"

    def __call__(self, df: pl.DataFrame, name: str, /, **kwargs: Any) -> Any:
        if self.kind == "eager":
            return getattr(df.fair, name)(**kwargs)
        engine = "in-memory" if self.kind == "lazy" else "streaming"
        out = getattr(df.lazy().fair, name)(**kwargs)
        assert isinstance(out, pl.LazyFrame)
        result = out.collect(engine=engine)
        if _is_scalar_result(name, kwargs, result):
            return result.item()
        return result


def _is_scalar_result(method: str, kwargs: dict[str, Any], result: pl.DataFrame) -> bool:
    tables = {
        "group_stats", "by_group", "disparities", "calibration", "expected_calibration_error",
        "roc_curve", "roc_auc", "threshold_sweep", "summary", "bootstrap",
        "bootstrap_replicates", "tradeoffs", "regression_stats", "regression_by_group",
        "regression_disparities", "ensemble_stats", "ensemble_by_group", "ensemble_disparities",
        "multiclass_group_stats", "multiclass_by_group", "multiclass_disparities",
        "multiclass_criteria", "multiclass_summary",
    }  # fmt: skip
    return method not in tables and kwargs.get("by") is None and result.shape == (1, 1)


@pytest.fixture(params=ENGINES)
def run(request: pytest.FixtureRequest) -> Runner:
    """A :class:`Runner` for each of eager, lazy in-memory and lazy streaming."""
    return Runner(request.param)


@pytest.fixture
def quiet() -> Callable[[], Any]:
    """A context manager factory that ignores polars_fair's warnings: ``with quiet():``."""
    import contextlib
    import warnings
    from collections.abc import Iterator

    from polars_fair.exceptions import FairWarning

    @contextlib.contextmanager
    def _ctx() -> Iterator[None]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FairWarning)
            yield

    return _ctx


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["pl"] = pl


#: The bundled COMPAS example file.
COMPAS = Path(polars_fair.__file__).parent / "data" / "compas.parquet"


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """COMPAS with two predictions: the baseline flags deciles >= 5, the candidate >= 7."""
    folder = tmp_path_factory.mktemp("sides")
    frame = pl.read_parquet(COMPAS)
    base, cand = folder / "base.parquet", folder / "cand.parquet"
    frame.with_columns(p=pl.col("decile_score") >= 5).write_parquet(base)
    frame.with_columns(p=pl.col("decile_score") >= 7).write_parquet(cand)
    return base, cand
