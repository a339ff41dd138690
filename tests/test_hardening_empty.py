"""Issue 14, class 4: empty and degenerate input behave one way everywhere.

Mechanisms: the derivation (``build_nonempty`` / ``require_rows``, called where every
plan runs) raises ``EmptyDataError`` unless the result *is* the reduction table (the
``*_stats`` methods, whose empty table is the identity of merging); the quantile
reduction keeps its indices in bounds; ``check_name_list`` refuses empty lists of
names; in-plan checks on the tiny aggregate warn (eager path) when a label never
equals `pos_label` and when a criterion compares a single group with itself.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import polars as pl
import pytest
from hardening_cases import TERMINAL, collect, frame, lazy_methods, method_kwargs

from polars_fair._validate import MSG_EMPTY, MSG_EMPTY_NAMES
from polars_fair.exceptions import (
    DegenerateDataWarning,
    EmptyDataError,
    InvalidParameterError,
    UndefinedMetricWarning,
)

KINDS = ("eager", "lazy", "streaming")
METHODS = [m for m in lazy_methods() if m not in TERMINAL]
#: The reduction tables: an empty input gives an empty table (a valid partition).
REDUCTIONS = {"group_stats", "regression_stats", "ensemble_stats", "multiclass_group_stats"}


def _call(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collect(getattr(target.fair, name)(**kw), kind, name)


def test_the_reductions_are_the_stats_methods() -> None:
    assert set(METHODS) >= REDUCTIONS


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", METHODS)
def test_empty_input_one_rule(name: str, kind: str) -> None:
    empty = frame().head(0)
    for by in (None, "b"):
        kw = method_kwargs(name, by=by)
        if name in REDUCTIONS:
            out = _call(empty, kind, name, **kw)
            assert isinstance(out, pl.DataFrame)
            assert out.height == 0
            full = _call(frame(), kind, name, **kw)
            assert out.schema == full.schema  # the same table, without rows
        else:
            msg = MSG_EMPTY.format(where="")
            with pytest.raises(EmptyDataError, match=re.escape(msg)):
                _call(empty, kind, name, **kw)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["disparate_impact_quantile", "statistical_parity_auc"])
def test_quantile_methods_on_a_filtered_out_frame(name: str, kind: str) -> None:
    # the reported raw OutOfBoundsError: a filter upstream that keeps no row
    df = frame().filter(pl.col("q") > 1e9)
    with pytest.raises(EmptyDataError, match="no rows to evaluate"):
        _call(df, kind, name, **method_kwargs(name))


def _names_params() -> list[tuple[str, str]]:
    import inspect

    from polars_fair.namespace import LazyFrameFairNamespace

    out = []
    for name in METHODS:
        params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
        out += [(name, p) for p in ("metrics", "criteria") if p in params]
    return out


NAME_LISTS = _names_params()


def test_every_list_parameter_is_covered() -> None:
    covered = {name for name, _ in NAME_LISTS}
    assert {"disparities", "summary", "bootstrap", "regression_disparities",
            "ensemble_disparities", "multiclass_criteria"} <= covered  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "param"), NAME_LISTS)
@pytest.mark.parametrize("empty", [[], ()])
def test_empty_name_list_is_named(name: str, param: str, kind: str, empty: Any) -> None:
    kw = {**method_kwargs(name), param: empty}
    with pytest.raises(InvalidParameterError) as info:
        _call(frame(), kind, name, **kw)
    text = str(info.value)
    assert text.startswith(f"`{param}` must name at least one")
    assert f"Hint: leave `{param}` out for the default set" in text
    # the constant is the message
    head = MSG_EMPTY_NAMES.split("{what}")[0].format(param=param)
    assert text.startswith(head)


def _expect(kind: str, category: type[Warning], *words: str) -> Any:
    """Eager: the warning with these words; lazy: silent (warnings are errors in pytest)."""
    import contextlib

    if kind != "eager":
        return contextlib.nullcontext()
    return pytest.warns(category, match="(?s)" + ".*".join(re.escape(w) for w in words))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("column", "pos_label", "values", "param"),
    [
        ("y", 1, [0, 0, 0, 0], "y_true"),
        ("p", 1, [0, 0, 0, 0], "y_pred"),
        ("y", "yes", ["no", "no", "no", "no"], "y_true"),
        ("y", 2, [1, 1, 1, 1], "y_true"),
    ],
)
def test_pos_label_that_never_occurs_warns(
    kind: str, column: str, pos_label: Any, values: list[Any], param: str
) -> None:
    base = pl.DataFrame({"g": ["a", "a", "x", "x"], "y": [1, 0, 1, 0], "p": [1, 0, 0, 1]})
    df = base.with_columns(pl.Series(column, values))
    if isinstance(pos_label, str):  # both label columns must be comparable with it
        df = df.with_columns(pl.Series("p", ["yes", "no", "no", "yes"]))
    elif pos_label == 2:
        df = df.with_columns(pl.Series("p", [2, 1, 1, 2]))
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g", "pos_label": pos_label}
    with _expect(kind, DegenerateDataWarning, f"`{param}` column {column!r} never equals",
                 f"`pos_label`={pos_label!r}", "Hint: set `pos_label`"):  # fmt: skip
        target = df if kind == "eager" else df.lazy()
        out = collect(target.fair.group_stats(**kw), kind)
    assert out.get_column("tp").sum() == 0  # no row is a positive of that column


@pytest.mark.parametrize("kind", KINDS)
def test_boolean_label_without_true_warns(kind: str) -> None:
    df = pl.DataFrame({"g": ["a", "x"], "p": [False, False]})
    with _expect(kind, DegenerateDataWarning, "`y_pred` column 'p' never equals",
                 "`pos_label`=True"):  # fmt: skip
        target = df if kind == "eager" else df.lazy()
        out = collect(target.fair.group_stats(y_pred="p", sensitive_features="g"), kind)
    assert out.get_column("pred_pos").to_list() == [0, 0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "name", ["demographic_parity_difference", "equalized_odds_ratio", "rmse_ratio",
             "label_stability_difference"],
)  # fmt: skip
def test_all_null_sensitive_column_warns_one_group(kind: str, name: str) -> None:
    df = frame().with_columns(pl.lit(None, dtype=pl.String).alias("g"))
    with _expect(kind, DegenerateDataWarning, "only one group of ['g'] has rows (None)",
                 "comparison", "Hint: check the sensitive column"):  # fmt: skip
        target = df if kind == "eager" else df.lazy()
        value = collect(getattr(target.fair, name)(**method_kwargs(name)), kind, name)
    # the value stays fairlearn's (a group against itself): 0 or 1
    assert value == (1.0 if name.endswith("_ratio") else 0.0)


@pytest.mark.parametrize("kind", KINDS)
def test_one_group_in_one_batch_names_the_batch(kind: str) -> None:
    df = frame().with_columns(
        pl.when(pl.col("b") == "k1").then(pl.lit("a")).otherwise(pl.col("g")).alias("g")
    )
    kw = {**method_kwargs("demographic_parity_difference"), "by": "b"}
    with _expect(kind, DegenerateDataWarning, "only one group", "for {'b': 'k1'}", "('a')"):
        target = df if kind == "eager" else df.lazy()
        out = collect(target.fair.demographic_parity_difference(**kw), kind)
    assert out.filter(pl.col("b") == "k1").item(0, 1) == 0.0


@pytest.mark.parametrize("kind", KINDS)
def test_two_groups_do_not_warn(kind: str) -> None:
    # warnings are errors in the pytest configuration: none may be issued here
    target = frame() if kind == "eager" else frame().lazy()
    out = collect(target.fair.demographic_parity_difference(y_pred="p", sensitive_features="g"),
                  kind, "demographic_parity_difference")  # fmt: skip
    sel = frame().group_by("g").agg(pl.col("p").mean()).get_column("p")
    assert out == pytest.approx(sel.max() - sel.min(), rel=1e-12)


# ---- the report warns like the methods it is made of ------------------------------------


def _report_warnings(target: pl.DataFrame | pl.LazyFrame, **kw: Any) -> list[Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        target.fair.report(**kw)
    return caught


@pytest.mark.parametrize("lazy", [False, True])
def test_report_warns_pos_label_never_occurs_once(lazy: bool) -> None:
    # the report's reductions and derivations run under the eager warnings, as a
    # method on a DataFrame does; several tables read the label check, it warns once
    df = frame().with_columns(pl.lit(0, dtype=pl.Int64).alias("y"))
    kw = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    caught = _report_warnings(df.lazy() if lazy else df, **kw)
    found = [
        w for w in caught
        if w.category is DegenerateDataWarning and "`y_true` column 'y' never equals" in str(w.message)
    ]  # fmt: skip
    assert len(found) == 1
    assert "`pos_label`=1" in str(found[0].message)
    # the method on its own gives the same warning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        with pytest.warns(DegenerateDataWarning, match=re.escape(str(found[0].message))):
            df.fair.by_group(**kw)


def test_report_warns_one_group_once() -> None:
    # an all-null sensitive column: every criterion compares a group with itself
    df = frame().with_columns(pl.lit(None, dtype=pl.String).alias("g"))
    caught = _report_warnings(df, y_true="y", y_pred="p", sensitive_features="g")
    found = [
        w for w in caught
        if w.category is DegenerateDataWarning and "only one group of ['g']" in str(w.message)
    ]  # fmt: skip
    assert len(found) == 1
