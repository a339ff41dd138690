"""A single group warns the same way in every criterion (issue 14, class 4).

A criterion compares groups; with one group it compares that group with itself
and says nothing about fairness. Every criterion says so on the eager path with
the same :class:`DegenerateDataWarning` (``MSG_ONE_GROUP``), from a check on the
small aggregate inside the plan, and stays silent on a LazyFrame (nothing is
collected early). The cases are enumerated: every entry of the catalogue and every
other method of the namespace comparing groups (a one-value result over a required
`sensitive_features`, and the multiclass criteria tables), so a new criterion is
covered without editing this module.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import polars as pl
import pytest
from hardening_cases import collect, frame, lazy_methods, method_kwargs

from polars_fair._validate import MSG_ONE_GROUP
from polars_fair.exceptions import DegenerateDataWarning
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.namespace import LazyFrameFairNamespace

KINDS = ("eager", "lazy", "streaming")
#: Tables of criteria compared between groups (not one value per batch key).
CRITERIA_TABLES = ("multiclass_criteria", "multiclass_summary")


def _compares_groups(name: str) -> bool:
    """A one-value result whose groups are required (not a population index)."""
    sig = inspect.signature(getattr(LazyFrameFairNamespace, name))
    groups = sig.parameters.get("sensitive_features")
    required = groups is not None and groups.default is inspect.Parameter.empty
    return sig.return_annotation == "ScalarT" and required


CASES = sorted({*CATALOGUE, *CRITERIA_TABLES, *(n for n in lazy_methods() if _compares_groups(n))})


def _one_group(kind: str) -> pl.DataFrame | pl.LazyFrame:
    df = frame().with_columns(pl.lit("a").alias("g"))
    return df if kind == "eager" else df.lazy()


def _run(kind: str, name: str, **kw: Any) -> list[warnings.WarningMessage]:
    target = _one_group(kind)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        collect(getattr(target.fair, name)(**kw), kind, name)  # the whole plan runs
    return caught


def _one_group_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if w.category is DegenerateDataWarning]


def test_cases_cover_the_catalogue_and_the_other_criteria() -> None:
    assert set(CATALOGUE) <= set(CASES)
    # the ones the acceptance test found silent
    assert {
        "statistical_parity_quantile", "disparate_impact_quantile", "max_statistical_parity",
        "statistical_parity_auc", "no_disparate_impact_level", "multiclass_criteria",
    } <= set(CASES)  # fmt: skip
    # population indices (no groups required) are not comparisons
    assert "theil_index" not in CASES


@pytest.mark.parametrize(("name", "kind"), [(n, k) for n in CASES for k in KINDS])
def test_one_group_warns_on_eager_only(name: str, kind: str) -> None:
    caught = _run(kind, name, **method_kwargs(name))
    found = _one_group_warnings(caught)
    if kind != "eager":
        assert caught == [], [str(w.message) for w in caught]  # a lazy plan stays silent
        return
    expected = MSG_ONE_GROUP.format(names=["g"], where="", group="a")
    assert found == [expected], [str(w.message) for w in caught]


@pytest.mark.parametrize("name", CASES)
def test_one_group_in_one_batch_names_the_batch(name: str) -> None:
    params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
    if "by" not in params:
        pytest.skip("no batch keys")
    df = frame().with_columns(
        pl.when(pl.col("b") == "k1").then(pl.lit("a")).otherwise(pl.col("g")).alias("g")
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(df.fair, name)(**method_kwargs(name, by="b"))
    expected = MSG_ONE_GROUP.format(names=["g"], where=" for {'b': 'k1'}", group="a")
    assert _one_group_warnings(caught) == [expected], [str(w.message) for w in caught]


@pytest.mark.parametrize("name", CASES)
def test_two_groups_do_not_warn_one_group(name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(frame().fair, name)(**method_kwargs(name))
    assert _one_group_warnings(caught) == []
