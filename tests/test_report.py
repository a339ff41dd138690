"""The fairness report: its tables are the library's own, read once, rendered safely.

* Every table of ``df.fair.report`` / ``lf.fair.report`` equals the namespace method
  it stands for, called with the same parameters (eager and lazy input, batches,
  weights, intersections, a reference group, a score, non-default bands).
* The data is read once: an IO source counts its reads, and a Parquet scan appears
  once in the plans the report collects together.
* Warnings about excluded rows are given once per report, not once per table.
* ``to_dict`` / ``to_json`` are JSON-safe; ``to_markdown`` and ``to_html`` hold every
  section; the HTML page is self-contained (no script, no remote resource).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.io.plugins import register_io_source
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair import FairnessReport, plots
from polars_fair.datasets import load_compas, scan_compas
from polars_fair.exceptions import NullDataWarning
from polars_fair.namespace import _report as report_module
from polars_fair.namespace._report import DISPARITY_RATES

# ---- data ----------------------------------------------------------------------


def _frame(seed: int = 7, n: int = 1200) -> pl.DataFrame:
    """Two models x three groups x two sexes; every cell large enough for every rate.

    Labels depend on the group and the predictions on the model, so groups and
    models differ; all rates are defined (no warnings).
    """
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    sex = rng.choice(["F", "M"], size=n)
    base = np.select([group == "a", group == "b"], [0.4, 0.55], 0.3)
    y_true = (rng.random(n) < base).astype(np.int64)
    score = np.clip(0.35 * y_true + rng.random(n) * 0.65, 0.0, 1.0).round(3)
    rows = []
    for model, threshold in (("m1", 0.5), ("m2", 0.6)):
        rows.append(
            pl.DataFrame(
                {
                    "model": [model] * n,
                    "group": group,
                    "sex": sex,
                    "y_true": y_true,
                    "score": score if model == "m1" else (score * 0.9 + 0.05).round(3),
                    "w": rng.integers(1, 4, size=n).astype(np.float64),
                }
            ).with_columns(y_pred=(pl.col("score") >= threshold).cast(pl.Int64))
        )
    return pl.concat(rows)


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return _frame()


def _params(**overrides: Any) -> dict[str, Any]:
    """Every parameter of ``report``, at its default, updated with `overrides`."""
    params: dict[str, Any] = {
        "y_true": "y_true", "y_pred": "y_pred", "y_prob": None,
        "sensitive_features": ["group"], "by": [], "sample_weight": None, "pos_label": 1,
        "reference_group": None, "method": None, "criteria": None, "confidence_level": 0.95,
        "difference_band": 0.1, "ratio_band": (0.8, 1.25), "min_group_size": 30,
        "n_bins": 10, "zero_division": None, "verdict_rule": "interval",
        "frequency_weights": False,
    }  # fmt: skip
    params.update(overrides)
    return params


# ---- an IO source that counts its reads (as in test_namespace.py) ----------------


class RecordingSource:
    """An IO-plugin source over `data` that counts the reads."""

    def __init__(self, data: pl.DataFrame) -> None:
        self.data = data
        self.calls = 0

    def lazy(self) -> pl.LazyFrame:
        return register_io_source(self._read, schema=self.data.schema)

    def _read(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        self.calls += 1
        out = self.data
        if with_columns is not None:
            out = out.select(with_columns)
        if predicate is not None:
            out = out.filter(predicate)
        if n_rows is not None:
            out = out.head(n_rows)
        yield out


# ---- the tables are the library's own -----------------------------------------------

VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "by": {"by": "model"},
    "weighted": {"sample_weight": "w"},
    "intersectional": {"sensitive_features": ["group", "sex"]},
    "reference": {"reference_group": "b"},
    "reference-dict": {"sensitive_features": ["group", "sex"], "reference_group": {"group": "c", "sex": "M"}},
    "score": {"y_prob": "score"},
    "all": {
        "y_prob": "score", "by": "model", "sample_weight": "w",
        "sensitive_features": ["group", "sex"], "reference_group": ("a", "F"),
    },
    "custom": {
        "y_prob": "score", "confidence_level": 0.9, "min_group_size": 150,
        "difference_band": 0.05, "ratio_band": (0.9, 1.1), "n_bins": 5,
        "criteria": ["demographic_parity_difference", "equalized_odds_difference"],
    },
    "expr-pred": {"y_pred": pl.col("score") >= 0.55, "by": ["model"]},
}  # fmt: skip


def _same_tables(
    got: FairnessReport, expected: FairnessReport | dict[str, pl.DataFrame], *, exact: bool = False
) -> None:
    """Every table of `expected` equals the one of `got`, and `got` has no other."""
    tables = dict(expected.tables()) if isinstance(expected, FairnessReport) else expected
    assert {name for name, _ in got.tables()} == set(tables)
    for name, table in tables.items():
        try:
            assert_frame_equal(getattr(got, name), table, check_exact=exact)
        except AssertionError as err:
            msg = f"table {name!r}: {err}"
            raise AssertionError(msg) from err


def _expected(df: pl.DataFrame, kw: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """Each table, from the namespace method a user would call with the same arguments."""
    ns = df.fair
    common = {
        "y_true": "y_true",
        "y_pred": kw.get("y_pred", "y_pred"),
        "sensitive_features": kw.get("sensitive_features", "group"),
        "by": kw.get("by"),
        "sample_weight": kw.get("sample_weight"),
    }
    y_prob = kw.get("y_prob")
    level = kw.get("confidence_level", 0.95)
    reference = kw.get("reference_group")
    out = {
        "by_group": ns.by_group(
            **common,
            y_prob=y_prob,
            confidence_level=level,
            min_group_size=kw.get("min_group_size", 30),
        ),
        "disparities": ns.disparities(
            **common,
            y_prob=y_prob,
            confidence_level=level,
            metrics=DISPARITY_RATES,
            **({"reference_group": reference} if reference is not None else {}),
        ),
        "summary": ns.summary(
            **common,
            y_prob=y_prob,
            **{
                k: kw[k]
                for k in (
                    "confidence_level",
                    "min_group_size",
                    "difference_band",
                    "ratio_band",
                    "criteria",
                    "reference_group",
                )
                if k in kw
            },
        ),  # fmt: skip
        "tradeoffs": ns.tradeoffs(**common, reference_group=reference),
    }
    if y_prob is not None:
        scored = {k: v for k, v in common.items() if k != "y_pred"}
        out["calibration"] = ns.calibration(**scored, y_prob=y_prob, n_bins=kw.get("n_bins", 10))
        out["roc_auc"] = ns.roc_auc(**scored, y_prob=y_prob)
        out["roc_curve"] = ns.roc_curve(**scored, y_prob=y_prob)
    return out


@pytest.mark.parametrize("lazy", [False, True], ids=["DataFrame", "LazyFrame"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_tables_equal_the_namespace_methods(df: pl.DataFrame, variant: str, lazy: bool) -> None:
    kw = VARIANTS[variant]
    frame = df.lazy() if lazy else df
    call = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "group", **kw}
    report = frame.fair.report(**call)
    assert isinstance(report, FairnessReport)
    expected = _expected(df, kw)
    _same_tables(report, expected)
    order = (
        "summary",
        "by_group",
        "disparities",
        "tradeoffs",
        "calibration",
        "roc_auc",
        "roc_curve",
    )
    assert [name for name, _ in report.tables()] == [n for n in order if n in expected]
    if "y_prob" not in kw:
        assert report.calibration is None
        assert report.roc_auc is None
        assert report.roc_curve is None
    assert report.summary.height > 0
    assert report.failing().equals(report.summary.filter(pl.col("verdict") == "unfair"))


def test_params_are_recorded(df: pl.DataFrame) -> None:
    kw = VARIANTS["all"]
    report = df.fair.report(y_true="y_true", y_pred="y_pred", **kw)
    expected = _params(
        y_prob="score",
        by=["model"],
        sample_weight="w",
        sensitive_features=["group", "sex"],
        reference_group=("a", "F"),
    )
    assert report.params == expected
    assert report.by == ["model"]
    expr = df.fair.report(
        y_true="y_true", y_pred=pl.col("score") >= 0.5, sensitive_features="group"
    )
    assert isinstance(expr.params["y_pred"], str)
    assert "score" in expr.params["y_pred"]


@pytest.mark.parametrize("with_score", [False, True])
def test_by_keeps_every_model_in_every_table(df: pl.DataFrame, with_score: bool) -> None:
    report = df.fair.report(
        y_true="y_true",
        y_pred="y_pred",
        y_prob="score" if with_score else None,
        sensitive_features=["group", "sex"],
        by="model",
    )
    names = [name for name, _ in report.tables()]
    assert len(names) == (7 if with_score else 4)
    for name, table in report.tables():
        assert table.columns[0] == "model", name
        assert sorted(table.get_column("model").unique().to_list()) == ["m1", "m2"], name
    # each model's slice of the report is that model's own report
    for model in ("m1", "m2"):
        alone = df.filter(pl.col("model") == model).fair.report(
            y_true="y_true",
            y_pred="y_pred",
            y_prob="score" if with_score else None,
            sensitive_features=["group", "sex"],
        )
        sliced = {
            name: table.filter(pl.col("model") == model).drop("model")
            for name, table in report.tables()
        }
        _same_tables(alone, sliced, exact=False)


def test_lazy_and_eager_reports_agree(df: pl.DataFrame) -> None:
    kw = {"y_prob": "score", "by": "model", "sensitive_features": ["group", "sex"]}
    eager = df.fair.report(y_true="y_true", y_pred="y_pred", **kw)
    lazy = df.lazy().fair.report(y_true="y_true", y_pred="y_pred", **kw)
    _same_tables(lazy, eager)
    assert eager.params == lazy.params


def test_string_labels_with_pos_label(df: pl.DataFrame) -> None:
    labelled = df.with_columns(
        pl.when(pl.col(c) == 1).then(pl.lit("yes")).otherwise(pl.lit("no")).alias(c)
        for c in ("y_true", "y_pred")
    )
    report = labelled.fair.report(
        y_true="y_true", y_pred="y_pred", sensitive_features="group", pos_label="yes"
    )
    numeric = df.fair.report(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    _same_tables(report, numeric)


# ---- one read --------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"by": "model", "sample_weight": "w"},
        {"sensitive_features": ["group", "sex"], "reference_group": ("b", "M")},
    ],
    ids=["plain", "by-weighted", "intersectional-reference"],
)
def test_report_reads_the_source_once(df: pl.DataFrame, kw: dict[str, Any]) -> None:
    source = RecordingSource(df)
    kw = {"sensitive_features": "group", **kw}
    report = source.lazy().fair.report(y_true="y_true", y_pred="y_pred", **kw)
    assert source.calls == 1
    expected = df.fair.report(y_true="y_true", y_pred="y_pred", **kw)
    _same_tables(report, expected)


def test_report_without_score_is_one_reduction(df: pl.DataFrame) -> None:
    """Why the read count above is one: every table comes from the statistics table."""
    spec = pf.ReportSpec.of(
        y_true="y_true", y_pred="y_pred", sensitive_features="group", by="model"
    )
    assert len(pf.report_reductions(df.lazy(), spec)) == 1


def test_scored_report_reads_an_io_source_once(df: pl.DataFrame) -> None:
    source = RecordingSource(df)
    source.lazy().fair.report(
        y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="group"
    )
    assert source.calls == 1


@pytest.mark.parametrize("by", [[], ["model"]])
def test_scored_report_scans_parquet_once(df: pl.DataFrame, tmp_path: Path, by: list[str]) -> None:
    path = tmp_path / "data.parquet"
    df.write_parquet(path)
    lf = pl.scan_parquet(path)
    spec = pf.ReportSpec.of(
        y_true="y_true", y_pred="y_pred", sensitive_features="group", y_prob="score",
        by=by, sample_weight="w",
    )  # fmt: skip
    plans = pf.report_reductions(lf, spec)
    assert len(plans) > 1  # several reductions (statistics, score histograms, ...)
    assert pl.explain_all(plans).count("Parquet SCAN") == 1
    # the report built from them is the eager report
    report = lf.fair.report(
        y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="group",
        by=by or None, sample_weight="w",
    )  # fmt: skip
    eager = df.fair.report(
        y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="group",
        by=by or None, sample_weight="w",
    )  # fmt: skip
    _same_tables(report, eager)


def test_report_from_collected_reductions(df: pl.DataFrame) -> None:
    """The derive step alone gives the same report (the CLI sums reductions per file)."""
    spec = pf.ReportSpec.of(
        y_true="y_true", y_pred="y_pred", sensitive_features="group", y_prob="score", by="model"
    )
    lf = df.lazy()
    reductions = pl.collect_all(pf.report_reductions(lf, spec))
    report = pf.derive_report(spec, reductions, lf.collect_schema())
    expected = df.fair.report(
        y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="group", by="model"
    )
    _same_tables(report, expected)


def test_unchecked_reductions_are_the_same_and_checked_when_derived(df: pl.DataFrame) -> None:
    """`check=False` builds the same reductions; a derivation's option is checked later."""
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "group"}
    spec = pf.ReportSpec.of(**kw, y_prob="score", by="model")
    lf = df.lazy()
    checked = pf.report_reductions(lf, spec)
    unchecked = pf.report_reductions(lf, spec, check=False)
    assert [p.collect_schema() for p in unchecked] == [p.collect_schema() for p in checked]
    report = pf.derive_report(spec, pl.collect_all(unchecked), lf.collect_schema())
    _same_tables(report, pf.derive_report(spec, pl.collect_all(checked), lf.collect_schema()))
    bad = pf.ReportSpec.of(**kw, reference_group=5)  # `group` holds strings
    message = "`reference_group` value 5 .int. cannot be compared with column 'group'"
    with pytest.raises(pf.InvalidParameterError, match=message):
        pf.report_reductions(lf, bad)
    tables = pl.collect_all(pf.report_reductions(lf, bad, check=False))
    with pytest.raises(pf.InvalidParameterError, match=message):
        pf.derive_report(bad, tables, lf.collect_schema())


# ---- warnings --------------------------------------------------------------------


@pytest.mark.parametrize("with_score", [False, True])
def test_null_label_warns_once(df: pl.DataFrame, with_score: bool) -> None:
    nulled = df.with_columns(
        y_true=pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("y_true"))
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = nulled.fair.report(
            y_true="y_true",
            y_pred="y_pred",
            y_prob="score" if with_score else None,
            sensitive_features="group",
            by="model",
        )
    nulls = [w for w in caught if issubclass(w.category, NullDataWarning)]
    assert len(nulls) == 1, [str(w.message) for w in caught]
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert nulls[0].filename == __file__  # points at the caller's line
    assert report.by_group.get_column("n_null").sum() == 1


def test_clean_data_gives_no_warning(df: pl.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df.fair.report(y_true="y_true", y_pred="y_pred", y_prob="score", sensitive_features="group")


def _outcome(frame: pl.DataFrame, kw: dict[str, Any]) -> tuple[Any, list[tuple[str, str]]]:
    """A report's tables (or its error) and its warnings, in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = frame.fair.report(y_true="y", y_pred="p", sensitive_features="g", **kw)
            result: Any = {name: table for name, table in report.tables()}
        except Exception as error:  # noqa: BLE001 (compared below)
            result = (type(error).__name__, str(error))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


_DEGENERATE: dict[str, pl.Expr | list[pl.Expr]] = {
    "no positives in a": pl.when(pl.col("g") == "a").then(0).otherwise(pl.col("y")).alias("y"),
    "b never predicted": pl.when(pl.col("g") == "b").then(0).otherwise(pl.col("p")).alias("p"),
    "one group": pl.lit("a").alias("g"),
    "nothing predicted": pl.lit(0).alias("p"),
    # the summary's lone-group warning comes after by_group's undefined rates
    "one group, no positives": [pl.lit("a").alias("g"), pl.lit(0).alias("y")],
}


@pytest.mark.parametrize("change", list(_DEGENERATE))
@pytest.mark.parametrize(
    "kw",
    [{}, {"by": "m"}, {"reference_group": "zz"}, {"criteria": ["nope"]}, {"pos_label": 3},
     {"y_prob": "s", "reference_group": "a", "method": "to_reference"},
     {"reference_group": "zz", "criteria": ["demographic_parity_difference"],
      "method": "to_overall"}],
    ids=["defaults", "by", "absent-reference", "unknown-criterion", "absent-label", "scored",
         "two-errors"],
)  # fmt: skip
def test_derivation_schedule_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, change: str, kw: dict[str, Any]
) -> None:
    """The summary built first and the tables collected on workers give the tables,
    the warnings (in order) and the error of deriving them one by one in plan order."""
    rng = np.random.default_rng(11)
    frame = pl.DataFrame(
        {"g": rng.choice(["a", "b", "c"], 300), "m": rng.choice(["k1", "k2"], 300),
         "y": rng.integers(0, 2, 300), "p": rng.integers(0, 2, 300), "s": rng.uniform(0, 1, 300)}
    ).with_columns(_DEGENERATE[change])  # fmt: skip
    scheduled = _outcome(frame, kw)
    monkeypatch.setattr(report_module, "_BUILT_FIRST", ())
    monkeypatch.setattr(report_module, "_DERIVE_THREADS", 1)
    one_by_one = _outcome(frame, kw)
    assert scheduled[1] == one_by_one[1]
    # not vacuous: degenerate data warn, or the parameters are refused
    assert scheduled[1] or isinstance(scheduled[0], tuple)
    if isinstance(one_by_one[0], tuple):
        assert scheduled[0] == one_by_one[0]
    else:
        assert scheduled[0].keys() == one_by_one[0].keys()
        for name, table in one_by_one[0].items():
            assert_frame_equal(scheduled[0][name], table)


# ---- serialisation --------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    msg = f"non-standard JSON constant {name}"
    raise AssertionError(msg)


@pytest.fixture(scope="module")
def scored(df: pl.DataFrame) -> FairnessReport:
    return df.fair.report(
        y_true="y_true",
        y_pred="y_pred",
        y_prob="score",
        sensitive_features=["group", "sex"],
        by="model",
        reference_group={"group": "a", "sex": "F"},
    )


def _json_equal(value: Any, cell: Any) -> bool:
    if isinstance(cell, float) and not math.isfinite(cell):
        return value is None
    return bool(value == cell)


def test_to_dict_is_the_tables_json_safe(scored: FairnessReport) -> None:
    out = scored.to_dict()
    assert set(out) == {"params", "tables"}
    assert out["params"] == scored.params
    assert list(out["tables"]) == [name for name, _ in scored.tables()]
    non_finite = 0
    for name, table in scored.tables():
        rows = out["tables"][name]
        assert len(rows) == table.height, name
        for row, cells in zip(rows, table.iter_rows(named=True), strict=True):
            assert list(row) == table.columns
            for col, cell in cells.items():
                value = row[col]
                if isinstance(table.schema[col], pl.Enum):
                    assert isinstance(value, str)
                    assert value == cell
                else:
                    assert _json_equal(value, cell), (name, col, value, cell)
                non_finite += isinstance(cell, float) and not math.isfinite(cell)
    assert non_finite > 0  # the ROC curves start at threshold +inf


def test_to_dict_nan_becomes_none(scored: FairnessReport) -> None:
    odd = dataclasses.replace(
        scored,
        summary=scored.summary.with_columns(
            value=pl.lit(float("nan")), ci_low=pl.lit(float("-inf"))
        ),
    )
    rows = odd.to_dict()["tables"]["summary"]
    assert all(r["value"] is None and r["ci_low"] is None for r in rows)
    loaded = json.loads(odd.to_json(), parse_constant=_reject_constant)
    assert loaded["tables"]["summary"] == rows


def test_to_json_round_trip(scored: FairnessReport) -> None:
    text = scored.to_json()
    loaded = json.loads(text, parse_constant=_reject_constant)
    assert loaded["tables"] == scored.to_dict()["tables"]
    assert loaded["params"]["sensitive_features"] == ["group", "sex"]
    assert loaded["params"]["ratio_band"] == [0.8, 1.25]
    assert loaded["params"]["reference_group"] == {"group": "a", "sex": "F"}
    verdicts = {r["verdict"] for r in loaded["tables"]["summary"]}
    assert verdicts <= {"fair", "unfair", "inconclusive", "undefined"}
    metrics = {r["metric"] for r in loaded["tables"]["disparities"]}
    assert metrics == set(DISPARITY_RATES)
    assert "\n" not in scored.to_json(indent=None)
    assert json.loads(scored.to_json(indent=None)) == loaded


def test_to_markdown_has_every_section(scored: FairnessReport) -> None:
    text = scored.to_markdown()
    assert text.startswith("# Fairness report")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Criteria side by side",  # with `by`: one column per model
        "## Criteria and verdicts",
        "## Rates per group",
        "## Disparities against the reference",
        "## Trade-offs between criteria",
        "## Calibration per group",
        "## ROC AUC per group",
    ]
    for criterion in scored.summary.get_column("criterion").to_list():
        assert criterion in text
    for verdict in scored.summary.get_column("verdict").cast(pl.String).unique().to_list():
        assert verdict in text
    assert "`score`" in text  # the described parameters


def test_to_markdown_without_score(df: pl.DataFrame) -> None:
    text = df.fair.report(
        y_true="y_true", y_pred="y_pred", sensitive_features="group"
    ).to_markdown()
    assert "## Calibration per group" not in text
    assert "## ROC AUC per group" not in text
    assert "## Criteria side by side" not in text  # no batch keys
    assert "## Criteria and verdicts" in text


class _TagChecker(HTMLParser):
    """Checks that every opened element is closed, in order."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "col", "wbr", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


_REMOTE = re.compile(
    r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", re.I
)


def _check_page(page: str) -> _TagChecker:
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert "<script" not in page.lower()
    assert _REMOTE.search(page) is None, _REMOTE.search(page)
    assert "<link" not in page.lower()
    checker = _TagChecker()
    checker.feed(page)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []
    return checker


def test_to_html_is_self_contained(scored: FairnessReport, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    page = scored.to_html(path)
    assert path.read_text(encoding="utf-8") == page
    checker = _check_page(page)
    for heading in (
        "Criteria side by side", "Criteria and verdicts", "Rates per group", "Disparities against the reference",
        "Trade-offs between criteria", "Calibration per group", "ROC AUC per group",
    ):  # fmt: skip
        assert f"<h2>{heading}</h2>" in page
    shown = page.replace("<wbr>", "")  # long names may wrap after an underscore
    for criterion in scored.summary.get_column("criterion").to_list():
        assert criterion in shown
    if plots.available():
        n_charts = 4  # rates, ratios, calibration, ROC
        assert checker.seen.count("svg") == n_charts
        assert page.count("<svg") == n_charts
        ids = re.findall(r'\bid="([^"]+)"', page)
        assert len(ids) == len(set(ids))  # inline SVGs must not share ids
    else:  # pragma: no cover - the test environment has the plot extra
        assert "<svg" not in page


def test_to_html_without_plot_extra(
    scored: FairnessReport, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    page = scored.to_html()
    _check_page(page)
    assert "<svg" not in page
    assert "polars-fair[plot]" in page
    assert "<h2>Rates per group</h2>" in page


def test_repr_html_is_a_fragment(df: pl.DataFrame) -> None:
    report = df.fair.report(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    fragment = report._repr_html_()
    assert "<html" not in fragment
    assert "<script" not in fragment
    assert "Fairness report" in fragment


# ---- the COMPAS example --------------------------------------------------------------


def test_compas_report() -> None:
    compas = load_compas()
    kw: dict[str, Any] = {
        "y_true": "two_year_recid",
        "y_pred": "y_pred",
        "y_prob": "y_prob",
        "sensitive_features": "race",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = compas.fair.report(**kw)
        lazy = scan_compas().fair.report(**kw)
    _same_tables(lazy, report)
    assert_frame_equal(
        report.summary,
        compas.fair.summary(**kw),
    )
    # the false positive rates, from the data with plain Polars (ProPublica's finding)
    fpr = (
        compas.filter(pl.col("two_year_recid") == 0)
        .group_by("race")
        .agg(false_positive_rate=pl.col("y_pred").mean(), n=pl.len())
        .sort("race")
    )
    got = report.by_group.select("race", "false_positive_rate").sort("race")
    assert_frame_equal(got, fpr.select("race", "false_positive_rate"))
    by_race = dict(got.iter_rows())
    assert by_race["African-American"] > by_race["Caucasian"]
    # the largest group is the reference
    largest = compas.group_by("race").len().sort("len", descending=True).item(0, "race")
    reference = report.disparities.filter(
        (pl.col("metric") == "selection_rate") & (pl.col("race") == largest)
    )
    assert reference.item(0, "ratio") == 1.0
    # groups smaller than min_group_size are flagged and left out of the verdicts
    small = compas.group_by("race").len().filter(pl.col("len") < 30)
    assert small.height > 0
    assert report.by_group.filter(pl.col("small_group")).get_column("race").sort().to_list() == (
        small.get_column("race").sort().to_list()
    )
    excluded = report.summary.get_column("excluded").unique().to_list()
    assert len(excluded) == 1
    for race in small.get_column("race").to_list():
        assert race in excluded[0]
    assert "undefined" not in set(report.summary.get_column("verdict").cast(pl.String).to_list())
    page = report.to_html()
    _check_page(page)
    assert "African-American" in page
