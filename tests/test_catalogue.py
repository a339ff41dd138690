"""The catalogue and the namespace agree: one entry per criterion, one stub per entry."""

from __future__ import annotations

import inspect

import polars as pl
import pytest

import polars_fair as pf
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.metrics._registry import CRITERIA
from polars_fair.namespace._base import STUBS

STUBBED = sorted(n for n, c in CATALOGUE.items() if c.family != "statistic")
COLUMNS = {"y_true", "y_pred", "y_prob"}


def test_stubs_and_catalogue_match_one_to_one() -> None:
    assert sorted(STUBS) == STUBBED


@pytest.mark.parametrize("cls", [pf.DataFrameFairNamespace, pf.LazyFrameFairNamespace])
@pytest.mark.parametrize("name", STUBBED)
def test_each_entry_is_a_typed_namespace_method(cls: type, name: str) -> None:
    entry = CATALOGUE[name]
    method = getattr(cls, name)
    assert method is STUBS[name]
    params = inspect.signature(method).parameters
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for n, p in params.items() if n != "self")
    # the columns it takes are the ones the entry says it needs
    assert {n for n in params if n in COLUMNS} == set(entry.inputs)
    assert ("agg" in params) == entry.agg_param
    assert inspect.signature(method).return_annotation == "ScalarT"
    doc = method.__doc__
    assert doc is not None
    assert f"df.fair.{name}(" in doc
    assert entry.example in doc


@pytest.mark.parametrize("name", sorted(n for n, c in CATALOGUE.items() if c.family == "statistic"))
def test_statistic_entries_have_hand_written_methods(name: str) -> None:
    assert callable(getattr(pf.DataFrameFairNamespace, name))
    assert name not in STUBS


def test_summary_criteria_are_the_rate_and_statistic_entries() -> None:
    assert set(CRITERIA) == {n for n, c in CATALOGUE.items() if c.family in ("rate", "statistic")}
    for name, entry in CATALOGUE.items():
        assert entry.name == name
        assert entry.kind in ("difference", "ratio", "statistic")
        if entry.kind == "ratio":
            assert (entry.ideal, entry.band) == (1.0, "ratio")
        if entry.kind == "difference":
            assert (entry.ideal, entry.band) == (0.0, "difference")


def test_cli_fail_on_names_are_the_catalogue_s() -> None:
    import polars_fair.io.cli as cli

    assert cli.CRITERIA is CRITERIA


def test_stub_checks_its_arguments_like_python() -> None:
    df = pl.DataFrame({"g": ["a", "b", "b"], "p": [1, 0, 1]})
    with pytest.raises(TypeError, match="positional"):
        df.fair.demographic_parity_difference("p")  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g", colour=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument"):
        df.fair.demographic_parity_difference(y_pred="p")  # type: ignore[call-arg]
    assert df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g") == 0.5


def test_docs_table_is_the_catalogue() -> None:
    from pathlib import Path

    from polars_fair.metrics._catalogue import catalogue_table

    page = Path(__file__).resolve().parents[1] / "docs" / "metrics" / "catalogue.md"
    text = page.read_text()
    assert text.endswith(catalogue_table())
    for name in CATALOGUE:
        assert f"| `{name}` |" in text
