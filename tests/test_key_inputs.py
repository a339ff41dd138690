"""Key parameters given as expressions, and slice candidates named like statistics columns.

One wording (``_validate.key_error``) for every key parameter of every method
(`sensitive_features`, `by`, slices' `candidates`): a multi-output expression
(``pl.all()``, ``pl.col("a", "b")``, a selector) is an :class:`InvalidParameterError`
naming the parameter, the expression, the columns it selects and the names to pass,
never a raw Polars ``ComputeError``. The cases are enumerated from the LazyFrame
namespace, on eager, lazy and streaming frames, with COMPAS (``tests/data``) for
``profile`` and ``slices``.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import polars as pl
import polars.selectors as cs
import pytest
from hardening_cases import collect, frame, lazy_methods, method_kwargs

from polars_fair._names import MSG_RESERVED, key_error
from polars_fair.exceptions import InvalidParameterError
from polars_fair.namespace import LazyFrameFairNamespace

KINDS = ("eager", "lazy", "streaming")
COMPAS = Path(__file__).resolve().parent / "data" / "compas_race_sex.csv"
MULTI = {"all": pl.all(), "two": pl.col("g", "b"), "selector": cs.string()}


def _key_params() -> list[tuple[str, str]]:
    out = []
    for name in lazy_methods():
        params = inspect.signature(getattr(LazyFrameFairNamespace, name)).parameters
        out += [(name, p) for p in ("sensitive_features", "by") if p in params]
    return out


KEY_PARAMS = _key_params()


def _target(df: pl.DataFrame, kind: str) -> pl.DataFrame | pl.LazyFrame:
    return df if kind == "eager" else df.lazy()


def _call(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> Any:
    out = getattr(_target(df, kind).fair, name)(**kw)
    return out if name in ("profile", "report") else collect(out, kind)


def _expected(expr: pl.Expr, param: str, schema: pl.Schema) -> str:
    return str(key_error(expr, param, schema))


def test_every_key_parameter_is_enumerated() -> None:
    names = {name for name, _ in KEY_PARAMS}
    assert {"profile", "report", "slices", "by_group", "statistical_parity_quantile",
            "multiclass_criteria", "calibration", "regression_by_group"} <= names  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("expr", list(MULTI), ids=list(MULTI))
@pytest.mark.parametrize(("name", "param"), KEY_PARAMS)
def test_multi_output_key_expression_is_named(name: str, param: str, expr: str, kind: str) -> None:
    df = frame()
    kw = method_kwargs(name, by="b")
    kw[param] = MULTI[expr]
    with pytest.raises(InvalidParameterError) as info:
        _call(df, kind, name, **kw)
    text = str(info.value)
    assert text == _expected(MULTI[expr], param, df.schema)
    takes = (
        "a list of column names" if param == "candidates" else "a column name or a list of names"
    )
    assert text.startswith(f"`{param}` must be {takes}, got the expression {MULTI[expr]}")
    # the columns it selects, read from the schema, and the names to pass
    selected = df.lazy().select(MULTI[expr]).collect_schema().names()
    assert f"selects {len(selected)} columns: {selected[:8]}"[:-1] in text
    assert f"Hint: pass the names of the key columns only, e.g. `{param}=" in text


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_profile_by_all_on_compas(kind: str) -> None:
    # the reported case: a raw "unable to find root column name for expr 'cs.all()'"
    df = pl.read_csv(COMPAS)
    target = _target(df, kind)
    kw = {"y_true": "two_year_recid", "y_pred": pl.col("decile_score") >= 5,
          "sensitive_features": "race"}  # fmt: skip
    with pytest.raises(InvalidParameterError) as info:
        target.fair.profile(**kw, by=pl.all())
    text = str(info.value)
    assert text == _expected(pl.all(), "by", df.schema)
    assert (
        "`by` must be a column name or a list of names, got the expression cs.all(), which selects "
        "6 columns" in text
    )
    # a key expression with one output is a named key, as documented
    prof = target.fair.profile(**kw, by=pl.col("screening_date").str.slice(0, 4).alias("year"))
    assert prof.meta["spec"]["by"] == ["year"]


@pytest.mark.parametrize("kind", KINDS)
def test_single_output_expression_says_how_to_make_it_a_column(kind: str) -> None:
    df = frame()
    kw = method_kwargs("by_group", by="b")
    expr = pl.col("b").str.to_uppercase()
    with pytest.raises(InvalidParameterError) as info:
        collect(_target(df, kind).fair.by_group(**{**kw, "by": expr}), kind)
    assert str(info.value) == (
        f"`by` must be a column name or a list of names, got the expression {expr}\n\nHint: add "
        "it as a column "
        f"first, e.g. `.with_columns(({expr}).alias('b_key'))`, and pass its name, `by=['b_key']`"
    )
    with pytest.raises(
        InvalidParameterError, match=re.escape("pass the column's name, `by=['b']`")
    ):
        collect(_target(df, kind).fair.by_group(**{**kw, "by": pl.col("b")}), kind)


# ---- slices: the candidates are named as candidates ----------------------------------------


def _compas_slices(kind: str, **kw: Any) -> Any:
    df = pl.read_csv(COMPAS).with_columns(
        pl.col("sex").alias("tp"), pl.col("race").alias("sum_pred")
    )
    args = {"y_true": "two_year_recid", "y_pred": (pl.col("decile_score") >= 5).cast(pl.Int64)}
    return collect(_target(df, kind).fair.slices(**{**args, **kw}), kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("candidates", "metric", "clash"),
    [
        (["tp"], "selection_rate", "tp"),
        (["race", "tp"], "selection_rate", "tp"),
        (["race", "sum_pred"], "mean_prediction", "sum_pred"),
    ],
)
def test_candidate_named_like_a_statistics_column(
    candidates: list[str], metric: str, clash: str, kind: str
) -> None:
    kw: dict[str, Any] = {"candidates": candidates, "metric": metric}
    if metric == "mean_prediction":
        kw["y_true"] = None
    with pytest.raises(InvalidParameterError) as info:
        _compas_slices(kind, **kw)
    text = str(info.value)
    assert text == MSG_RESERVED.format(name=clash, param="candidates")
    assert "sensitive_features" not in text
    assert f"column {clash!r} (given as `candidates`)" in text
    assert f"Hint: rename it first, e.g. `.rename({{{clash!r}: {clash + '_'!r}}})`" in text


@pytest.mark.parametrize("kind", KINDS)
def test_candidates_as_an_expression(kind: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        _compas_slices(kind, candidates=pl.all())
    schema = (
        pl.read_csv(COMPAS, n_rows=1)
        .with_columns(pl.col("sex").alias("tp"), pl.col("race").alias("sum_pred"))
        .schema
    )
    assert str(info.value) == _expected(pl.all(), "candidates", schema)
    with pytest.raises(InvalidParameterError, match=re.escape("`candidates=['race']`")):
        _compas_slices(kind, candidates=[pl.col("race")])
