"""Outputs that explode (issue 14, class 7): identifier-like groups and capped renderings.

* A sensitive feature with about as many groups as rows gets an ``IdentifierWarning``
  (rule: more than 1,000 groups per batch key and more groups than half the rows,
  read from the collected ``by_group`` table), on eager, lazy and streaming frames;
  just below either bound it does not.
* Markdown, HTML, the text table and the command line show at most ``max_rows``
  groups per table (default 50): the largest, checked against counts computed here
  with numpy, and a line saying how many were left out and how to get all.
  ``max_rows=None`` (``--max-rows 0``) and JSON keep every row.
* Markdown escapes ``|`` (and line breaks) in values, so every row keeps its cells.
* With 10^5 identifier-like groups every rendering stays small.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair.exceptions import IdentifierWarning
from polars_fair.report import IDENTIFIER_MIN_GROUPS, IDENTIFIER_SHARE, MAX_ROWS

ROOT = Path(polars_fair.__file__).resolve().parents[1]
ENGINES = ("eager", "lazy", "streaming")


@contextmanager
def engine_of(kind: str) -> Iterator[None]:
    if kind == "streaming":
        with pl.Config() as cfg:
            cfg.set_engine_affinity("streaming")
            yield
    else:
        yield


def report_of(df: pl.DataFrame, kind: str, **kw: object) -> polars_fair.FairnessReport:
    """The report of `df` on one kind of frame; every warning but the identifier one ignored."""
    frame = df if kind == "eager" else df.lazy()
    with engine_of(kind), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", IdentifierWarning)
        return frame.fair.report(y_true="y", y_pred="p", **kw)  # type: ignore[no-any-return]


def ids(n_rows: int, n_groups: int, seed: int = 1) -> pl.DataFrame:
    """`n_rows` rows over `n_groups` ids (every id present), random labels and predictions."""
    rng = np.random.default_rng(seed)
    group = np.concatenate([np.arange(n_groups), rng.integers(0, n_groups, n_rows - n_groups)])
    return pl.DataFrame(
        {"id": group, "y": rng.integers(0, 2, n_rows), "p": rng.integers(0, 2, n_rows)}
    )


def uneven(n_groups: int = 120, seed: int = 3) -> pl.DataFrame:
    """Groups of distinct sizes (40 + 3 i rows, shuffled), so "the largest" is unambiguous."""
    rng = np.random.default_rng(seed)
    sizes = 40 + 3 * rng.permutation(n_groups)
    names = np.array([f"g{i:03d}" for i in range(n_groups)])
    group = np.repeat(names, sizes)
    n = group.size
    return pl.DataFrame({"g": group, "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})


def largest(df: pl.DataFrame, column: str, k: int) -> set[str]:
    """The `k` largest groups, from numpy counts."""
    values, counts = np.unique(df.get_column(column).to_numpy(), return_counts=True)
    return set(values[np.argsort(-counts, kind="stable")[:k]].tolist())


# ---- the identifier warning --------------------------------------------------------------


@pytest.mark.parametrize("kind", ENGINES)
def test_identifier_warning(kind: str) -> None:
    n = 2 * IDENTIFIER_MIN_GROUPS
    with pytest.raises(IdentifierWarning, match="'id' looks like an identifier: 2,000 groups"):
        report_of(ids(n, n), kind, sensitive_features="id")


@pytest.mark.parametrize("kind", ENGINES)
@pytest.mark.parametrize(
    ("n_rows", "n_groups"),
    [
        (5000, IDENTIFIER_MIN_GROUPS),  # not more than 1,000 groups
        (int(IDENTIFIER_MIN_GROUPS * 1.5 / IDENTIFIER_SHARE), 1500),  # exactly half the rows
    ],
    ids=["1000-groups", "half-the-rows"],
)
def test_no_identifier_warning_at_the_bounds(kind: str, n_rows: int, n_groups: int) -> None:
    report = report_of(ids(n_rows, n_groups), kind, sensitive_features="id")
    assert report.by_group.height == n_groups


def test_identifier_warning_counts_groups_per_batch_key() -> None:
    # 2 models x 800 ids: 1,600 rows of by_group, but 800 groups per model: no warning
    df = pl.concat([ids(800, 800).with_columns(model=pl.lit(m)) for m in ("m1", "m2")])
    report = report_of(df, "eager", sensitive_features="id", by="model")
    assert report.by_group.height == 1600
    # 2 models x 1,200 ids: warned
    df = pl.concat([ids(1200, 1200).with_columns(model=pl.lit(m)) for m in ("m1", "m2")])
    with pytest.raises(IdentifierWarning, match="1,200 groups for 1,200 rows"):
        report_of(df, "eager", sensitive_features="id", by="model")


# ---- capped renderings -------------------------------------------------------------------


def _section(text: str, heading: str) -> list[str]:
    """The table rows (not header or rule) of a Markdown section."""
    lines = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0].splitlines()
    table = [line for line in lines if line.startswith("|")]
    return table[2:]


@pytest.mark.parametrize("kind", ENGINES)
def test_markdown_shows_the_largest_groups(kind: str) -> None:
    df = uneven()
    report = report_of(df, kind, sensitive_features="g", min_group_size=1)
    text = report.to_markdown()
    rows = _section(text, "Rates per group")
    assert len(rows) == MAX_ROWS
    shown = {row.split("|")[1].strip() for row in rows}
    assert shown == largest(df, "g", MAX_ROWS)
    assert "70 of 120 groups left out (shown: the 50 largest)" in text
    assert "`max_rows=None`" in text
    # disparities: the same groups, every metric
    disparity_groups = {
        r.split("|")[1].strip() for r in _section(text, "Disparities against the reference")
    }
    assert disparity_groups == shown
    # the summary (criteria over every group) is never cut
    assert len(_section(text, "Criteria and verdicts")) == report.summary.height
    # all of them on request
    full = report.to_markdown(max_rows=None)
    assert len(_section(full, "Rates per group")) == 120
    assert "left out" not in full


@pytest.mark.parametrize("kind", ENGINES)
def test_html_and_text_are_capped(kind: str) -> None:
    df = uneven()
    report = report_of(df, kind, sensitive_features="g", min_group_size=1)
    page = report.to_html(max_rows=20)
    rates = page.split("<h2>Rates per group</h2>", 1)[1].split("</table>", 1)[0]
    names = set(re.findall(r"<td class='txt'>(g\d{3})</td>", rates))
    assert names == largest(df, "g", 20)
    assert "100 of 120 groups left out" in page
    assert "``" not in page
    text = report.to_text(max_rows=20)
    body = text.split("Criteria and verdicts")[0]
    assert set(re.findall(r"\b(g\d{3})\b", body)) == largest(df, "g", 20)
    assert "100 of 120 groups left out" in text
    assert report.to_dict()["tables"]["by_group"].__len__() == 120  # the data keeps all


def test_reference_group_is_kept() -> None:
    df = uneven()
    smallest = df.group_by("g").len().sort("len").item(0, "g")
    report = report_of(df, "eager", sensitive_features="g", reference_group=smallest)
    rows = _section(report.to_markdown(max_rows=5), "Rates per group")
    assert smallest in {row.split("|")[1].strip() for row in rows}
    assert len(rows) == 6  # the five largest and the reference


def test_max_rows_must_be_positive() -> None:
    report = report_of(uneven(10), "eager", sensitive_features="g")
    with pytest.raises(polars_fair.InvalidParameterError, match="`max_rows`"):
        report.to_markdown(max_rows=0)


# ---- Markdown escaping -----------------------------------------------------------------------


_CELL = re.compile(r"(?<!\\)\|")


@pytest.mark.parametrize("kind", ENGINES)
def test_markdown_escapes_pipes(kind: str) -> None:
    rng = np.random.default_rng(5)
    n = 400
    names = np.array(["a|b", "c\nd", "e\\|f", "plain"])
    df = pl.DataFrame(
        {"g": rng.choice(names, n), "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)}
    )
    report = report_of(df, kind, sensitive_features="g")
    text = report.to_markdown()
    for heading in ("Rates per group", "Disparities against the reference"):
        section = text.split(f"## {heading}\n", 1)[1].splitlines()
        header = next(line for line in section if line.startswith("|"))
        width = len(_CELL.split(header))
        rows = _section(text, heading)
        assert rows
        for row in rows:
            assert len(_CELL.split(row)) == width, row
    assert r"a\|b" in text
    assert "c d" in text  # the line break is a space


# ---- the command line and a large identifier ----------------------------------------------------


def audit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", "audit", *args],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_cli_identifier_is_bounded(tmp_path: Path) -> None:
    n = 20_000
    ids(n, n).write_parquet(tmp_path / "ids.parquet")
    args = ["ids.parquet", "--y-true", "y", "--y-pred", "p", "--sensitive-features", "id"]
    proc = audit(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert "polars-fair: warning: sensitive feature 'id' looks like an identifier" in proc.stderr
    assert len(proc.stdout) < 20_000
    assert f"{n - MAX_ROWS:,} of {n:,} groups left out" in proc.stdout
    markdown = audit(tmp_path, *args, "--format", "markdown", "--max-rows", "10")
    assert markdown.returncode == 0, markdown.stderr
    assert len(_section(markdown.stdout, "Rates per group")) == 10
    assert len(markdown.stdout) < 50_000
    full = audit(tmp_path, *args, "--format", "json")
    assert len(json.loads(full.stdout)["tables"]["by_group"]) == n
    bad = audit(tmp_path, *args, "--max-rows", "-3")
    assert bad.returncode == 2
    assert "--max-rows must be >= 0" in bad.stderr


def test_large_identifier_renders_small() -> None:
    n = 100_000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = ids(n, n).fair.report(y_true="y", y_pred="p", sensitive_features="id")
    assert report.by_group.height == n
    assert len(report.to_markdown()) < 250_000  # 50 groups, whatever n
    assert len(report.to_text()) < 20_000
    page = report.to_html()
    assert len(page) < 1_000_000
    assert f"{n - MAX_ROWS:,} of {n:,} groups left out" in page


@pytest.mark.parametrize("method", ["by_group", "disparities"])
def test_identifier_warning_from_eager_tables(method: str) -> None:
    # the tables that grow with the groups warn like the report, from the reduction
    # already collected; a lazy result cannot (it has read nothing)
    n = 2 * IDENTIFIER_MIN_GROUPS
    df = ids(n, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined rates of one-row groups
        warnings.simplefilter("error", IdentifierWarning)
        with pytest.raises(IdentifierWarning, match="'id' looks like an identifier: 2,000 groups"):
            getattr(df.fair, method)(y_true="y", y_pred="p", sensitive_features="id")
        getattr(df.lazy().fair, method)(y_true="y", y_pred="p", sensitive_features="id")
        getattr(ids(5000, IDENTIFIER_MIN_GROUPS).fair, method)(
            y_true="y", y_pred="p", sensitive_features="id"
        )


def test_identifier_warning_once_per_report() -> None:
    n = 2 * IDENTIFIER_MIN_GROUPS
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ids(n, n).fair.report(y_true="y", y_pred="p", sensitive_features="id")
    assert [w.category for w in caught].count(IdentifierWarning) == 1
