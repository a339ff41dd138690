"""A report's plan is a value: built, inspected, collected by the user, shared by audits.

Acceptance of issue 12 ("plans as values"): the reductions of a report are public lazy
plans (:func:`polars_fair.report_reductions`), which the user lists, collects in one
``pl.collect_all`` and derives (:func:`polars_fair.derive_report`); several audits of
one cached source read it once.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_report import RecordingSource, _same_tables

import polars_fair as pf


@pytest.fixture
def frame() -> pl.DataFrame:
    rng = np.random.default_rng(12)
    n = 600
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "sex": rng.choice(["F", "M"], n),
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n),
        }
    )


def _specs() -> list[pf.ReportSpec]:
    common = {"y_true": "y", "y_pred": "p", "min_group_size": 1}
    return [
        pf.ReportSpec.of(**common, sensitive_features="g"),  # type: ignore[arg-type]
        pf.ReportSpec.of(**common, sensitive_features="sex", y_prob="s"),  # type: ignore[arg-type]
    ]


def test_two_audits_of_one_cached_source_read_it_once(frame: pl.DataFrame) -> None:
    source = RecordingSource(frame)
    lf = source.lazy()
    cached = lf.cache()
    plans = [pf.report_reductions(cached, spec) for spec in _specs()]
    assert source.calls == 0  # building and listing the plans reads nothing
    assert len(plans[0]) == 1  # labels only: the statistics table
    assert len(plans[1]) > 1  # with a score: score histograms too
    tables = pl.collect_all([r for p in plans for r in p])
    assert source.calls == 1
    # each audit's report, derived from its own tables, is the report of the rows
    start = 0
    for spec, plan in zip(_specs(), plans, strict=True):
        got = pf.derive_report(spec, tables[start : start + len(plan)], lf.collect_schema())
        start += len(plan)
        expected = frame.fair.report(
            y_true="y", y_pred="p", sensitive_features=list(spec.sensitive_features),
            y_prob=spec.y_prob, min_group_size=1,
        )  # fmt: skip
        _same_tables(got, expected)


def test_shared_reads_once_per_audit(frame: pl.DataFrame) -> None:
    # `shared=True` caches per call: what the docs say (cache once for several audits)
    source = RecordingSource(frame)
    lf = source.lazy()
    pl.collect_all([r for spec in _specs() for r in pf.report_reductions(lf, spec, shared=True)])
    assert source.calls == 2


# ---- the public functions of the public submodules are documented too -------------


def _submodule_functions() -> list[tuple[str, object]]:
    """Public functions of ``polars_fair.plots``, ``.distributed`` and ``.expressions``."""
    import importlib
    import inspect

    found = []
    for name in ("polars_fair.plots", "polars_fair.distributed", "polars_fair.expressions"):
        module = importlib.import_module(name)
        for attr in module.__all__:
            value = getattr(module, attr)
            if inspect.isfunction(value) and value.__module__.startswith("polars_fair"):
                found.append((f"{name}.{attr}", value))
    return found


FUNCTIONS = _submodule_functions()


@pytest.mark.parametrize(("name", "function"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_public_submodule_functions_have_numpydoc_docstrings(name: str, function: object) -> None:
    import inspect

    from test_docstrings import docstring_problems

    assert callable(function)
    assert docstring_problems(function.__doc__, inspect.signature(function)) == [], name
    assert ">>>" in (function.__doc__ or ""), f"{name}: no doctested example"
