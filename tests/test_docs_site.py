"""The documentation site builds: ``mkdocs build --strict`` with Material and mkdocstrings.

``--strict`` turns every warning into an error: a broken link or anchor between pages,
a page missing from the navigation, a docstring that mkdocstrings cannot parse. The
build runs once per session in a subprocess (the venv's Python), offline, into a
temporary directory; the tests then look at what it produced. Skipped when the docs
tools (the ``docs`` extra) are not installed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS_TOOLS = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _missing_tools() -> list[str]:
    missing = []
    for name in DOCS_TOOLS:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        if not found:
            missing.append(name)
    return missing


pytestmark = pytest.mark.skipif(
    bool(_missing_tools()),
    reason=f"documentation tools not installed ({', '.join(_missing_tools())}): "
    'pip install -e ".[docs]"',
)


@dataclass(frozen=True)
class Build:
    site: Path
    returncode: int
    output: str
    seconds: float

    def page(self, path: str) -> str:
        return (self.site / path).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "ignore"}
    start = time.perf_counter()
    proc = subprocess.run(  # noqa: S603 - fixed command, no shell
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.perf_counter() - start
    return Build(site, proc.returncode, proc.stdout + proc.stderr, seconds)


def test_strict_build_succeeds(build: Build) -> None:
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.output}"
    assert (build.site / "index.html").is_file()


def test_build_is_fast(build: Build) -> None:
    assert build.returncode == 0, build.output
    assert build.seconds < 60, f"the site took {build.seconds:.1f} s to build"


@pytest.mark.parametrize(
    "page",
    [
        "quickstart/index.html",
        "concepts/index.html",
        "conventions/index.html",
        "choosing/index.html",
        "migration/index.html",
        "report/index.html",
        "metrics/rates/index.html",
        "metrics/parity/index.html",
        "metrics/error-rates/index.html",
        "metrics/predictive-values/index.html",
        "metrics/accuracy/index.html",
        "metrics/scores/index.html",
        "metrics/regression/index.html",
        "metrics/ensembles/index.html",
        "metrics/multiclass/index.html",
    ],
)
def test_guide_pages_exist(build: Build, page: str) -> None:
    assert build.returncode == 0, build.output
    assert (build.site / page).is_file(), page


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("api/namespace/index.html", "polars_fair.namespace.FairNamespace.group_stats"),
        ("api/report/index.html", "polars_fair.report.FairnessReport.to_json"),
        ("api/expressions/index.html", "polars_fair.expressions.true_positive_rate"),
        ("api/reduce/index.html", "polars_fair.reduce.merge_group_stats"),
        ("api/reduce/index.html", "polars_fair.reduce_regression.regression_stats"),
        ("api/reduce/index.html", "polars_fair.reduce_ensemble.ensemble_stats"),
        ("api/reduce/index.html", "polars_fair.reduce_multiclass.multiclass_stats"),
        ("api/exceptions/index.html", "polars_fair.exceptions.LabelError"),
        ("api/datasets/index.html", "polars_fair.datasets.load_compas"),
    ],
)
def test_api_pages_document_the_objects(build: Build, page: str, expected: str) -> None:
    assert build.returncode == 0, build.output
    assert f'id="{expected}"' in build.page(page), f"{expected} is not documented in {page}"


def test_namespace_page_has_every_criterion(build: Build) -> None:
    """Criteria whose docstrings are filled in at import time are documented too."""
    assert build.returncode == 0, build.output
    html = build.page("api/namespace/index.html")
    assert "demographic_parity_difference" in html
    for method in (
        "demographic_parity_difference",  # docstring from the shared criterion template
        "equalized_odds_ratio",
        "tradeoffs",  # example data filled in by a decorator
        "rmse_ratio",  # a method created by a factory, assigned as a class attribute
        "label_stability_difference",
        "report",
    ):
        anchor = f'id="polars_fair.namespace.FairNamespace.{method}"'
        assert anchor in html, method
    # the template placeholders never reach the page
    assert "&gt;&gt;&gt; DATA" not in html
    assert "Compares the per-group selection rate" in html


def test_site_is_offline(build: Build) -> None:
    """No page loads fonts, scripts or styles from another host."""
    assert build.returncode == 0, build.output
    remote = re.compile(r"""<(?:script|link)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""")
    for page in build.site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text, page
        assert not remote.search(text), f"{page} loads a remote resource"


@pytest.mark.parametrize(
    "page", ["api/namespace/index.html", "api/profile/index.html", "api/expressions/index.html"]
)
def test_every_function_renders_its_examples(build: Build, page: str) -> None:
    """Each documented function and method shows an "Examples:" section.

    A docstring whose example was inserted at another indentation than its text
    keeps every section header indented after ``inspect.cleandoc``: the page then
    shows Parameters, Returns and Examples as one block of text, with no sections.
    """
    assert build.returncode == 0, build.output
    html = build.page(page)
    objects = list(
        re.finditer(r'<div class="doc doc-object doc-(\w+)">\s*<h\d id="([\w.]+)"', html)
    )
    functions = [
        (match.group(2), html[match.start() : nxt.start() if nxt else len(html)])
        for match, nxt in zip(objects, [*objects[1:], None], strict=True)
        if match.group(1) == "function"
    ]
    assert functions
    broken = [name for name, body in functions if 'doc-section-title">Examples:' not in body]
    assert broken == [], f"no Examples section rendered: {broken}"


def test_reduce_page_shows_the_public_reductions_only(build: Build) -> None:
    """The reduce modules' ``__all__`` also holds plumbing the namespace shares
    (``Inputs``, ``resolve_inputs``): the API page lists the reductions a user calls."""
    page = build.page("api/reduce/index.html")
    assert "merge_group_stats" in page
    assert "group_stats" in page
    for internal in ("resolve_inputs", "warn_if_never_positive", "Inputs.partial_aggs"):
        assert internal not in page, internal
