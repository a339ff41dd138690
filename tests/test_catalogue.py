"""The catalogue and the namespace agree: one entry per criterion, one stub per entry."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

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


def test_summary_criteria_are_the_rate_statistic_and_auc_entries() -> None:
    assert set(CRITERIA) == {
        n for n, c in CATALOGUE.items() if c.family in ("rate", "statistic", "auc")
    }
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


# ---- one name, one error everywhere (acceptance pass of issue 12) ---------------------

TYPO = "demographic_parity_diference"
NEAR = "did you mean 'demographic_parity_difference'"


def _near_miss_frame() -> pl.DataFrame:
    return pl.DataFrame({"g": ["a", "b"] * 20, "y": [1, 0, 0, 1] * 10, "p": [1, 1, 0, 0] * 10})


@pytest.mark.parametrize(
    "call",
    [
        lambda df: df.fair.summary(y_true="y", y_pred="p", sensitive_features="g", criteria=[TYPO]),
        lambda df: df.fair.report(y_true="y", y_pred="p", sensitive_features="g", criteria=[TYPO]),
        lambda df: df.lazy().fair.report(
            y_true="y", y_pred="p", sensitive_features="g", criteria=[TYPO]
        ),
        lambda df: df.fair.profile(y_true="y", y_pred="p", sensitive_features="g").criterion(TYPO),
    ],
    ids=["summary", "report", "lazy-report", "profile-criterion"],
)
def test_an_unknown_criterion_name_gets_the_closest_names(call: Any) -> None:
    # every surface that takes a criterion by name says which names are close
    with pytest.raises(pf.InvalidParameterError, match=f"{TYPO}(.|\n)*Hint: {NEAR}"):
        call(_near_miss_frame())


@pytest.mark.parametrize("option", ["--criteria", "--fail-on"])
def test_the_cli_names_the_closest_criterion_the_same_way(
    option: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from polars_fair.io.cli import main

    path = tmp_path / "d.parquet"
    _near_miss_frame().write_parquet(path)
    value = TYPO if option == "--criteria" else f"{TYPO} > 0.1"
    args = ["audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g"]
    assert main([*args, "--no-progress", option, value]) == 2
    assert f"unknown criterion {TYPO!r}\nHint: {NEAR}" in capsys.readouterr().err


@pytest.mark.parametrize("lazy", [False, True])
def test_a_misspelt_criterion_parameter_gets_the_closest_names(lazy: bool) -> None:
    df = _near_miss_frame()
    ns = df.lazy().fair if lazy else df.fair
    # a TypeError as Python's, with the closest parameter and all of them
    with pytest.raises(TypeError, match="unexpected keyword argument 'methd'") as info:
        ns.demographic_parity_difference(y_pred="p", sensitive_features="g", methd="to_overall")  # type: ignore[call-arg]
    assert isinstance(info.value, pf.InvalidParameterError)
    assert "Hint: did you mean 'method'? its parameters are ['y_pred', " in str(info.value)
    # as the profile says for the same criterion
    prof = df.fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    with pytest.raises(pf.InvalidParameterError, match="Hint: did you mean 'method'?"):
        prof.criterion("demographic_parity_difference", methd="to_overall")
    # an abbreviation (the migration page writes `ref` for `reference_group`)
    with pytest.raises(pf.InvalidParameterError, match="did you mean 'reference_group'?"):
        ns.demographic_parity_difference(y_pred="p", sensitive_features="g", ref="a")  # type: ignore[call-arg]
    # fairlearn's call passes y_true, which a selection-rate criterion does not read
    with pytest.raises(pf.InvalidParameterError, match=r"reads only \['y_pred'\], leave `y_true`"):
        ns.demographic_parity_difference(y_true="y", y_pred="p", sensitive_features="g")  # type: ignore[call-arg]


def test_the_summary_s_criteria_are_the_catalogue_s_in_its_order() -> None:
    # one list: the summary, its error messages and the bootstrap read the catalogue's
    # order, not a second hand-kept list of names
    assert list(CRITERIA) == [
        n for n, c in CATALOGUE.items() if c.family in ("rate", "statistic", "auc")
    ]


def test_the_docs_catalogue_page_names_every_interval_method() -> None:
    from polars_fair.metrics._registry import INTERVAL_METHODS

    page = Path(__file__).resolve().parents[1] / "docs" / "metrics" / "catalogue.md"
    intro = page.read_text().split("| criterion |")[0]
    assert [m for m in INTERVAL_METHODS if f"`{m}`" not in intro] == []


def test_orientations_aggs_and_reference_policies_are_declared_once() -> None:
    # the checks read the public type aliases; the report's renderings read the checks'
    from typing import get_args

    from polars_fair import _validate
    from polars_fair._typing import Agg, Method
    from polars_fair.report import _capping

    assert _validate._METHODS == get_args(Method)
    assert _validate._AGGS == get_args(Agg)
    assert set(_capping.POLICIES) == _validate.POLICY_NAMES
    # ... and read, not written again
    assert '"between_groups", "to_overall"' not in inspect.getsource(_validate)
    assert '"worst_case", "mean"' not in inspect.getsource(_validate)
    assert '"overall", "rest"' not in inspect.getsource(_capping)


@pytest.mark.parametrize("name", ["rmse_ratio", "std_difference"])
def test_a_profile_names_a_criterion_of_another_family_as_the_cli_does(name: str) -> None:
    prof = _near_miss_frame().fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    family = CATALOGUE[name].family
    with pytest.raises(pf.InvalidParameterError, match=f"is an? {family} criterion") as info:
        prof.criterion(name)
    assert f"`df.fair.{name}(...)`" in str(info.value)


#: Literal lists of criterion names or interval methods allowed outside the catalogue:
#: selections with a meaning of their own (a default set, the signed two-group
#: statistics, a display order), per module, and how many.
_SELECTIONS = {
    "criterion": {
        "metrics/_picks.py": 1,  # STATISTICS: the signed two-group statistics
        "metrics/_registry.py": 1,  # DEFAULT_SUMMARY
        "namespace/_audit.py": 1,  # trade-offs' default pair
        "namespace/_multiclass.py": 1,  # the multiclass summary's default set
        "report/_verdicts.py": 2,  # the statistics' display order in the orientation line
    },
    "interval": {
        "metrics/_summary_bounds.py": 2,  # INTERVAL_ORDER, and PART_METHODS
    },
}


def test_criterion_names_and_interval_methods_are_listed_once() -> None:
    import ast

    from polars_fair.metrics._registry import INTERVAL_METHODS

    package = Path(pf.__file__).parent
    found: dict[str, dict[str, int]] = {"criterion": {}, "interval": {}}
    for path in sorted(package.rglob("*.py")):
        where = str(path.relative_to(package))
        if where == "metrics/_catalogue.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or len(node.elts) < 2:
                continue
            values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(values) < len(node.elts) or not all(isinstance(v, str) for v in values):
                continue
            if all(v in CATALOGUE for v in values):
                found["criterion"][where] = found["criterion"].get(where, 0) + 1
            elif len(values) >= 3 and all(v in INTERVAL_METHODS for v in values):
                found["interval"][where] = found["interval"].get(where, 0) + 1
    assert found == _SELECTIONS


def test_a_method_named_as_a_summary_criterion_gets_no_near_spelling() -> None:
    # 'rmse_ratio' is a method of its own: the hint says so, not "did you mean 'f1_ratio'"
    with pytest.raises(pf.InvalidParameterError, match="Hint: 'rmse_ratio' is a method of its own"):
        _near_miss_frame().fair.summary(
            y_true="y", y_pred="p", sensitive_features="g", criteria=["rmse_ratio"]
        )
