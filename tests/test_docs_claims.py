"""What the guide pages say about names, parameters and defaults holds in the code.

* ``docs/report.md``: without ``reference_group`` the report's ``disparities`` compare
  every group with the largest one, while the ``summary`` (its verdicts and the gates)
  compares the two groups farthest apart; checked against numpy on data where the
  largest group is neither extreme.
* ``docs/metrics/*.md``: every name in the first column of a ``method`` / ``criterion``
  table is a ``df.fair`` method, the parameter defaults written as ``name(q=0.8)`` are
  the signature's, the inputs a table says a criterion needs are the ones it requires,
  and "Every criterion takes `method` ... and `reference_group`" holds for the page's
  criteria.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.exceptions import InvalidParameterError

DOCS = Path(__file__).resolve().parents[1] / "docs"
NAMESPACE = type(pl.DataFrame({"a": [1]}).fair)
METHODS = {n for n in dir(NAMESPACE) if not n.startswith("_")}
COLUMNS = ("y_true", "y_pred", "y_prob")

# ---- the report's default references (docs/report.md) --------------------------------

SIZES = {"a": 40, "b": 100, "c": 50}  # b is the largest group
SELECTED = {"a": 36, "b": 50, "c": 10}  # a most selected, c least, b in between


def _frame() -> pl.DataFrame:
    groups, preds, labels = [], [], []
    for g, n in SIZES.items():
        groups += [g] * n
        preds += [1] * SELECTED[g] + [0] * (n - SELECTED[g])
        labels += [1, 0] * (n // 2)
    return pl.DataFrame({"g": groups, "y": labels, "p": preds})


def _reference() -> tuple[dict[str, float], str, str, str]:
    """Selection rates from numpy; the largest, most and least selected groups."""
    df = _frame()
    g = df["g"].to_numpy()
    p = df["p"].to_numpy()
    names = np.unique(g)
    rates = {str(k): float(p[g == k].mean()) for k in names}
    counts = {str(k): int((g == k).sum()) for k in names}
    largest = max(counts, key=counts.__getitem__)
    return rates, largest, max(rates, key=rates.__getitem__), min(rates, key=rates.__getitem__)


KW = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}


def test_the_data_separates_the_two_defaults() -> None:
    rates, largest, high, low = _reference()
    assert largest not in (high, low)


@pytest.mark.parametrize("lazy", [False, True])
def test_report_without_reference_disparities_use_the_largest_group(lazy: bool) -> None:
    rates, largest, _, _ = _reference()
    frame = _frame().lazy() if lazy else _frame()
    report = frame.fair.report(**KW)
    sr = report.disparities.filter(pl.col("metric") == "selection_rate").sort("g")
    assert sr["reference_value"].to_list() == pytest.approx([rates[largest]] * 3)
    expected = [rates[k] - rates[largest] for k in sorted(rates)]
    assert sr["difference"].to_list() == pytest.approx(expected)


@pytest.mark.parametrize("lazy", [False, True])
def test_report_without_reference_summary_compares_the_farthest_pair(lazy: bool) -> None:
    rates, largest, high, low = _reference()
    frame = _frame().lazy() if lazy else _frame()
    report = frame.fair.report(**KW)
    rows = {r["criterion"]: r for r in report.summary.iter_rows(named=True)}
    dpd = rows["demographic_parity_difference"]
    assert dpd["value"] == pytest.approx(rates[high] - rates[low])
    assert {dpd["group"], dpd["compared_with"]} == {high, low}
    dir_ = rows["disparate_impact_ratio"]
    assert dir_["value"] == pytest.approx(rates[low] / rates[high])
    assert largest not in (dir_["group"], dir_["compared_with"])
    # a gate between the largest-group gap and the farthest gap fails: gates read
    # the between-groups value, not the comparison with the largest group
    gap_to_largest = max(abs(rates[k] - rates[largest]) for k in rates)
    bound = (gap_to_largest + rates[high] - rates[low]) / 2
    failures = report.failures(verdicts=(), conditions=[f"demographic_parity_difference > {bound}"])
    assert len(failures) == 1
    assert "demographic_parity_difference" in failures[0]


def test_report_with_reference_signs_the_summary_against_it() -> None:
    rates, largest, _, _ = _reference()
    report = _frame().fair.report(**KW, reference_group=largest)
    row = report.summary.filter(pl.col("criterion") == "demographic_parity_difference").row(
        0, named=True
    )
    farthest = max((k for k in rates if k != largest), key=lambda k: abs(rates[k] - rates[largest]))
    assert row["value"] == pytest.approx(rates[farthest] - rates[largest])
    assert row["compared_with"] == largest


def test_methods_default_as_the_report_says(run: Any) -> None:
    """The namespace methods behind the report's tables, on every engine."""
    rates, largest, high, low = _reference()
    df = _frame()
    dis = run(df, "disparities", **KW, metrics=["selection_rate"])
    assert dis["reference_value"].to_list() == pytest.approx([rates[largest]] * 3)
    summary = run(df, "summary", **KW, criteria=["demographic_parity_difference"])
    assert summary["value"].to_list() == pytest.approx([rates[high] - rates[low]])


# ---- docs/metrics/*.md: names and parameters -----------------------------------------

_TICKED = re.compile(r"`([^`]+)`")
_CALL = re.compile(r"^(?P<name>[a-z_0-9*]+)(?:\((?P<args>[^)]*)\))?$")


def _cells(line: str) -> list[str]:
    # split a Markdown table row on unescaped pipes
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """``(header, rows)`` of every Markdown table of a page (outside code blocks)."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    lines = re.sub(r"```.*?```", "", text, flags=re.DOTALL).splitlines()
    i = 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and re.match(r"^\|[\s:|-]+\|$", lines[i + 1].strip()):
            header = _cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    return tables


def _names(cell: str) -> list[tuple[str, str]]:
    """The ``(name, call arguments)`` a first cell documents, shorthands expanded.

    ``a_difference/_ratio`` and ``a_difference``, ``_ratio`` give ``a_difference`` and
    ``a_ratio``; ``a_*`` stays a prefix pattern; ``f(q=0.8)`` gives ``("f", "q=0.8")``.
    """
    out: list[tuple[str, str]] = []
    for token in _TICKED.findall(cell):
        for part in token.split("/"):
            part = part.strip()
            if part.startswith("_") and out:  # `_ratio` after `x_difference`
                stem = out[-1][0].rsplit("_", 1)[0]
                part = stem + part
            match = _CALL.match(part)
            assert match, f"cannot read the name {part!r} in {cell!r}"
            out.append((match["name"], match["args"] or ""))
    return out


def _metric_rows() -> list[tuple[str, list[str], list[str]]]:
    found = []
    for page in sorted((DOCS / "metrics").glob("*.md")):
        for header, rows in _tables(page.read_text(encoding="utf-8")):
            if header[0] in ("method", "criterion"):
                found += [(page.name, header, row) for row in rows]
    return found


ROWS = _metric_rows()


def _documented() -> list[tuple[str, str, str]]:
    return [(page, name, args) for page, _, row in ROWS for name, args in _names(row[0])]


def test_the_tables_are_found() -> None:
    pages = {page for page, _, _ in ROWS}
    # every criterion page has its table; the catalogue lists every criterion
    assert {"accuracy.md", "catalogue.md", "error-rates.md", "parity.md"} <= pages
    assert {"predictive-values.md", "regression.md", "scores.md", "multiclass.md"} <= pages
    assert len(_documented()) > 100


@pytest.mark.parametrize(
    ("page", "name", "args"), _documented(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_documented_name_is_a_method_with_those_defaults(page: str, name: str, args: str) -> None:
    if name.endswith("_*"):
        stem = name[:-1]
        assert any(m.startswith(stem) for m in METHODS), f"{page}: no method {name}"
        return
    assert name in METHODS, f"{page}: `{name}` is not a df.fair method"
    params = inspect.signature(getattr(NAMESPACE, name)).parameters
    for arg in filter(None, (a.strip() for a in args.split(","))):
        key, _, value = arg.partition("=")
        assert key in params, f"{page}: `{name}` takes no `{key}`"
        assert params[key].default == ast.literal_eval(value), f"{page}: `{name}({arg})`"


def _required_columns(name: str) -> set[str]:
    params = inspect.signature(getattr(NAMESPACE, name)).parameters
    return {c for c in COLUMNS if c in params and params[c].default is inspect.Parameter.empty}


def _needs_rows() -> list[tuple[str, str, set[str], bool]]:
    """``(page, name, documented inputs, exact)`` from the ``needs``/``inputs`` columns."""
    out = []
    for page, header, row in ROWS:
        for column in ("needs", "inputs"):
            if column not in header:
                continue
            cell = row[header.index(column)]
            inputs = {t for t in _TICKED.findall(cell) if t in COLUMNS}
            exact = column == "inputs" or "only" in cell
            out += [(page, name, inputs, exact) for name, _ in _names(row[0])]
    return out


@pytest.mark.parametrize(("page", "name", "inputs", "exact"), _needs_rows())
def test_documented_inputs_are_the_required_columns(
    page: str, name: str, inputs: set[str], exact: bool
) -> None:
    params = inspect.signature(getattr(NAMESPACE, name)).parameters
    assert inputs <= set(params), f"{page}: `{name}` does not take {inputs - set(params)}"
    required = _required_columns(name)
    # a column the signature requires is documented; with an exact list, the method
    # takes no other column input (some stubs default a needed column to None and
    # refuse its absence when called: see test_regression_needs_column)
    assert required <= inputs, f"{page}: `{name}` also requires {required - inputs}"
    if exact:
        taken = {c for c in COLUMNS if c in params}
        assert taken == inputs, f"{page}: `{name}` takes {taken}, the page says {inputs}"


def test_regression_needs_column() -> None:
    """``regression.md``: ✓ = `y_true` required, "optional" = optional, empty = none."""
    checked = 0
    for page, header, row in ROWS:
        if page != "regression.md" or "needs `y_true`" not in header:
            continue
        mark = row[header.index("needs `y_true`")]
        for name, _ in _names(row[0]):
            params = inspect.signature(getattr(NAMESPACE, name)).parameters
            if mark == "✓":
                if "y_true" not in _required_columns(name):
                    # the stub takes y_true=None; the call must refuse its absence
                    frame = pl.DataFrame({"g": ["a", "b"], "p": [1.0, 2.0]})
                    with pytest.raises(InvalidParameterError, match="y_true"):
                        getattr(frame.fair, name)(y_pred="p", sensitive_features="g")
            elif mark == "optional":
                assert params["y_true"].default is None, name
            else:
                assert mark == ""
                assert "y_true" not in _required_columns(name), name
            checked += 1
    assert checked >= 15


_EVERY = re.compile(
    r"Every criterion takes (?:the usual )?`method`.*?`reference_group`(?P<rest>[^.]*)"
)


@pytest.mark.parametrize(
    "page", ["accuracy.md", "error-rates.md", "predictive-values.md", "regression.md"]
)
def test_every_criterion_takes_method_and_reference_group(page: str) -> None:
    text = (DOCS / "metrics" / page).read_text(encoding="utf-8")
    claim = _EVERY.search(" ".join(text.split()))
    assert claim, f"{page}: the sentence is gone; update this test"
    # "..., except `zscore_difference`: like ..." names the exceptions
    rest = claim["rest"]
    excepted = set(_TICKED.findall(rest.split(":")[0])) if "except" in rest else set()
    criteria = [
        name
        for p, _, row in ROWS
        if p == page
        for name, _ in _names(row[0])
        if name.endswith(("_difference", "_ratio", "_quantile", "_level", "_auc", "_parity"))
        and not name.startswith("regression_")
    ]
    assert criteria
    for name in criteria:
        params = inspect.signature(getattr(NAMESPACE, name)).parameters
        assert "reference_group" in params, f"{page}: `{name}` takes no reference_group"
        if name in excepted:
            assert "method" not in params, f"{page}: `{name}` is excepted but takes method"
        else:
            assert "method" in params, f"{page}: `{name}` takes no method"


def test_ensemble_measures_have_their_criteria() -> None:
    """``ensembles.md``: each measure has ``<measure>_difference`` and ``_ratio``."""
    text = (DOCS / "metrics" / "ensembles.md").read_text(encoding="utf-8")
    ((header, rows),) = [t for t in _tables(text) if t[0][0] == "measure"]
    measures = [_TICKED.findall(row[0])[0] for row in rows]
    assert len(measures) == 7
    for m in measures:
        assert {f"{m}_difference", f"{m}_ratio"} <= METHODS, m


def test_rate_expression_functions_exist() -> None:
    """``rates.md``: the expression function column names ``pf`` functions and arguments."""
    text = (DOCS / "metrics" / "rates.md").read_text(encoding="utf-8")
    ((header, rows),) = [t for t in _tables(text) if "expression function" in t[0]]
    checked = 0
    for row in rows:
        for call in _TICKED.findall(row[header.index("expression function")]):
            match = re.fullmatch(r"pf\.(\w+)\(([^)]*)\)", call)
            assert match, call
            fn = getattr(pf, match[1])
            positional = [a.strip() for a in match[2].split(",")]
            assert list(inspect.signature(fn).parameters)[: len(positional)] == positional
            checked += 1
    assert checked >= 10
