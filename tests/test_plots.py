"""Charts of the report: they build for every report table and render to real SVG.

* Each chart function builds a valid Vega-Lite spec for the report's tables: plain,
  with batch keys, intersectional, with a null group and with an Enum group column.
* ``to_svg`` gives SVG text with one mark per group (checked in the SVG itself).
* The reference group, the ROC thinning and the clamped ratio axis are checked on
  the chart data against numbers computed here from the frame.
* Without altair the module imports, ``available()`` is False and the chart
  functions raise ImportError with the install hint.
* In a browser: headless Chromium renders ``report.to_html()`` (no JavaScript);
  the DOM has one sized ``<svg>`` per chart and the screenshot shows the charts.
"""

from __future__ import annotations

import html
import re
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair import FairnessReport, plots

needs_plot = pytest.mark.skipif(not plots.available(), reason="needs altair and vl-convert")

RATES = [
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "positive_predictive_value",
]


def _frame(seed: int = 3) -> pl.DataFrame:
    """Two models; groups "a", "b" and a null group; two sexes; a score."""
    rng = np.random.default_rng(seed)
    n = 600
    group = rng.choice(np.array(["a", "b", "-"]), size=n, p=[0.5, 0.3, 0.2])
    sex = rng.choice(["F", "M"], size=n)
    y_true = (rng.random(n) < np.where(group == "a", 0.45, 0.35)).astype(np.int64)
    score = np.clip(0.3 * y_true + rng.random(n) * 0.7, 0, 1).round(2)
    frames = []
    for model, threshold in (("m1", 0.5), ("m2", 0.55)):
        frames.append(
            pl.DataFrame({"group": group, "sex": sex, "y_true": y_true, "score": score})
            .with_columns(
                model=pl.lit(model),
                group=pl.when(pl.col("group") != "-").then(pl.col("group")),
                y_pred=(pl.col("score") >= threshold).cast(pl.Int64),
            )
            .select("model", "group", "sex", "y_true", "y_pred", "score")
        )
    return pl.concat(frames)


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return _frame()


CASES: dict[str, dict[str, Any]] = {
    "plain": {"data": "no-null", "sensitive_features": ["group"], "by": []},
    "by": {"data": "no-null", "sensitive_features": ["group"], "by": ["model"]},
    "intersectional": {"data": "no-null", "sensitive_features": ["group", "sex"], "by": ["model"]},
    "null-group": {"data": "all", "sensitive_features": ["group"], "by": []},
    "enum-group": {"data": "enum", "sensitive_features": ["group", "sex"], "by": []},
}


def _case_frame(df: pl.DataFrame, kind: str) -> pl.DataFrame:
    if kind == "no-null":
        return df.filter(pl.col("group").is_not_null())
    if kind == "enum":
        return df.filter(pl.col("group").is_not_null()).with_columns(
            pl.col("group").cast(pl.Enum(["b", "a"]))
        )
    return df


@pytest.fixture(scope="module")
def reports(df: pl.DataFrame) -> dict[str, FairnessReport]:
    out = {}
    for name, case in CASES.items():
        frame = _case_frame(df, case["data"])
        out[name] = frame.fair.report(
            y_true="y_true",
            y_pred="y_pred",
            y_prob="score",
            sensitive_features=case["sensitive_features"],
            by=case["by"] or None,
        )
    return out


def _labels(table: pl.DataFrame, columns: list[str]) -> list[str]:
    """The group labels the charts should show, built here from the table."""
    rows = table.select(columns).unique(maintain_order=True).rows()
    return [" / ".join("null" if v is None else str(v) for v in row) for row in rows]


def _marks(svg: str, kind: str) -> list[str]:
    """The SVG elements of each mark group of `kind` ("symbol", "rule", "line", ...)."""
    groups = re.findall(rf'<g class="mark-{kind} role-mark[^>]*>(.*?)</g>', svg, re.S)
    return [m for g in groups for m in re.findall(r"<(?:path|line)\b[^>]*>", g)]


def _rows(spec: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The data rows (inline or in the top-level datasets) that have `field`."""
    found: list[list[dict[str, Any]]] = list(spec.get("datasets", {}).values())

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            values = (
                node.get("data", {}).get("values") if isinstance(node.get("data"), dict) else None
            )
            if isinstance(values, list):
                found.append(values)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk({k: v for k, v in spec.items() if k != "datasets"})
    return [row for values in found for row in values if field in row]


def _size(svg: str) -> tuple[float, float]:
    """The width and height attributes of the outer <svg> element."""
    head = re.match(r"<svg\b[^>]*>", svg)
    assert head is not None
    width = re.search(r'\bwidth="([\d.]+)"', head.group(0))
    height = re.search(r'\bheight="([\d.]+)"', head.group(0))
    assert width is not None
    assert height is not None
    return float(width.group(1)), float(height.group(1))


def _svg_texts(svg: str) -> set[str]:
    return {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}


# ---- optional dependencies ----------------------------------------------------------


def test_module_imports_without_altair() -> None:
    code = (
        "import sys\n"
        "sys.modules['altair'] = None\n"
        "sys.modules['vl_convert'] = None\n"
        "import polars as pl\n"
        "from polars_fair import plots\n"
        "assert plots.available() is False\n"
        "t = pl.DataFrame({'g': ['a'], 'selection_rate': [0.5]})\n"
        "try:\n"
        "    plots.rates_chart(t, rates=['selection_rate'], sensitive_features='g')\n"
        "except ImportError as e:\n"
        "    assert 'polars-fair[plot]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
        "try:\n"
        "    plots.to_svg({})\n"
        "except ImportError as e:\n"
        "    assert 'polars-fair[plot]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_report_html_without_altair(
    reports: dict[str, FairnessReport], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "altair", None)
    assert plots.available() is False
    with pytest.raises(ImportError, match=re.escape('pip install "polars-fair[plot]"')):
        plots.rates_chart(reports["plain"].by_group, sensitive_features="group")
    page = reports["plain"].to_html()
    assert "<svg" not in page
    assert "polars-fair[plot]" in page


@needs_plot
def test_available() -> None:
    assert plots.available() is True


# ---- every chart builds and renders -----------------------------------------------------


def _chart(name: str, report: FairnessReport, case: dict[str, Any]) -> tuple[Any, pl.DataFrame]:
    kw = {"sensitive_features": case["sensitive_features"], "by": case["by"]}
    if name == "rates":
        return plots.rates_chart(report.by_group, reference="largest", **kw), report.by_group
    if name == "disparities":
        return plots.disparity_chart(report.disparities, **kw), report.disparities
    if name == "calibration":
        assert report.calibration is not None
        return plots.calibration_chart(report.calibration, **kw), report.calibration
    assert report.roc_curve is not None
    return plots.roc_chart(report.roc_curve, roc_auc=report.roc_auc, **kw), report.roc_curve


@needs_plot
@pytest.mark.parametrize("chart", ["rates", "disparities", "calibration", "roc"])
@pytest.mark.parametrize("case", list(CASES))
def test_chart_renders(reports: dict[str, FairnessReport], case: str, chart: str) -> None:
    spec = CASES[case]
    report = reports[case]
    built, table = _chart(chart, report, spec)
    built.to_dict()  # validates against the Vega-Lite schema
    assert "tooltip" in built.to_json()
    svg = plots.to_svg(built)
    assert svg.startswith("<svg")
    assert svg.rstrip().endswith("</svg>")
    width, height = _size(svg)
    assert width > 250
    assert height > 150
    texts = _svg_texts(svg)
    groups = _labels(table, spec["sensitive_features"])
    n_groups = len(groups)
    n_batches = table.get_column("model").n_unique() if spec["by"] else 1
    if chart in ("rates", "disparities"):
        # the groups label the y axis of each panel
        assert set(groups) <= texts
        # one point per group, batch and panel
        assert len(_marks(svg, "symbol")) == 4 * n_groups * n_batches
        titles = {"Selection rate", "True positive rate", "False positive rate"}
        assert titles <= texts
    else:
        # one line per group (and batch panel), in the legend with its label
        lines = _marks(svg, "line")
        assert len(lines) >= n_groups * n_batches
        assert all('d="M' in line for line in lines if line.startswith("<path"))
        legend = " ".join(texts)
        assert all(group in legend for group in groups)
    if case == "null-group":
        assert any("null" in t for t in texts)
    if spec["by"]:
        models = " ".join(texts)
        assert "m1" in models
        assert "m2" in models


# ---- what the charts show, against the data --------------------------------------------


@needs_plot
@pytest.mark.parametrize("by", [[], ["model"]])
def test_rates_chart_marks_the_largest_group(df: pl.DataFrame, by: list[str]) -> None:
    table = df.fair.by_group(
        y_true="y_true", y_pred="y_pred", sensitive_features="group", by=by or None
    )
    chart = plots.rates_chart(table, sensitive_features="group", by=by, reference="largest")
    values = _rows(chart.to_dict(), "pf_role")
    marked = {(v["pf_batch"], v["pf_group"]) for v in values if v["pf_role"] == "reference"}
    # the largest group of each model, counted here (ties: first in sort order)
    sizes = df.group_by([*by, "group"]).len()
    sizes = sizes.sort(
        [*by, "len", "group"], descending=[False] * len(by) + [True, False], nulls_last=True
    )
    largest = sizes.group_by(by, maintain_order=True).first() if by else sizes.head(1)
    expected = {
        (row["model"] if by else None, row["group"] or "null")
        for row in largest.iter_rows(named=True)
    }
    assert marked == expected
    svg = plots.to_svg(chart)
    assert "#e45756" in svg.lower() or by  # the reference colour without batch colours


@needs_plot
def test_rates_chart_reference_value(df: pl.DataFrame) -> None:
    table = df.fair.by_group(y_true="y_true", y_pred="y_pred", sensitive_features=["group", "sex"])
    chart = plots.rates_chart(
        table,
        rates=["selection_rate"],
        sensitive_features=["group", "sex"],
        reference={"group": "b", "sex": "F"},
    )
    refs = [v for v in _rows(chart.to_dict(), "pf_role") if v["pf_role"] == "reference"]
    assert [r["pf_group"] for r in refs] == ["b / F"]
    rate = df.filter((pl.col("group") == "b") & (pl.col("sex") == "F")).get_column("y_pred").mean()
    assert refs[0]["value"] == pytest.approx(rate)
    with pytest.raises(ValueError, match="not a group"):
        plots.rates_chart(table, sensitive_features=["group", "sex"], reference=("z", "F"))
    with pytest.raises(ValueError, match="not a group"):
        plots.rates_chart(table, sensitive_features=["group", "sex"], reference=(1, "F"))
    with pytest.raises(ValueError, match="one value per sensitive feature"):
        plots.rates_chart(table, sensitive_features=["group", "sex"], reference="b")
    with pytest.raises(ValueError, match="not found"):
        plots.rates_chart(table, sensitive_features=["race"])


@needs_plot
def test_rates_chart_without_intervals() -> None:
    table = pl.DataFrame({"group": ["x", None], "n": [5, 7], "selection_rate": [0.2, None]})
    chart = plots.rates_chart(table, rates=["selection_rate"], sensitive_features="group")
    svg = plots.to_svg(chart)
    assert {"x", "null"} <= _svg_texts(svg)
    assert len(_marks(svg, "symbol")) == 1  # an undefined rate draws no point


@needs_plot
def test_disparity_chart_keeps_extreme_ratios_on_the_axis() -> None:
    table = pl.DataFrame(
        {
            "group": ["ref", "zero", "inf", "nan", "big"],
            "metric": ["selection_rate"] * 5,
            "value": [0.5, 0.0, 0.5, 0.0, 0.5],
            "reference_value": [0.5, 0.5, 0.0, 0.0, 0.01],
            "ratio": [1.0, 0.0, float("inf"), float("nan"), 50.0],
            "ratio_ci_low": [None, 0.0, 2.0, None, 10.0],
            "ratio_ci_high": [None, 0.4, float("inf"), None, 200.0],
        }
    ).with_columns(pl.col("metric").cast(pl.Enum(["selection_rate", "base_rate"])))
    chart = plots.disparity_chart(table, sensitive_features="group", band=(0.8, 1.25))
    spec = chart.to_dict()
    layers = spec["layer"]
    points = next(layer for layer in layers if layer["mark"]["type"] == "point")
    low, high = points["encoding"]["x"]["scale"]["domain"]
    assert 0 < low <= 0.8
    assert 1.25 <= high <= 20
    rows = {v["pf_group"]: v for v in _rows(spec, "pf_group")}
    assert rows["zero"]["x"] == low
    assert rows["zero"]["ratio"] == 0.0  # the tooltip keeps the value
    assert rows["inf"]["x"] == high
    assert rows["inf"]["ratio"] is None  # JSON has no infinity
    assert rows["nan"]["x"] is None
    assert rows["big"]["x"] == high
    assert rows["ref"]["x"] == 1.0
    svg = plots.to_svg(chart)
    assert len(_marks(svg, "symbol")) == 4  # every defined ratio is drawn
    with pytest.raises(ValueError, match="none of the metrics"):
        plots.disparity_chart(table, sensitive_features="group", metrics=["base_rate"])


@needs_plot
def test_roc_chart_thins_long_curves() -> None:
    n = 3000
    rng = np.random.default_rng(1)
    frame = pl.DataFrame(
        {
            "group": ["a"] * n,
            "y_true": (rng.random(n) < 0.5).astype(np.int64),
            "score": np.arange(n) / n,
        }
    )
    kw = {"y_true": "y_true", "y_prob": "score", "sensitive_features": "group"}
    curve = frame.fair.roc_curve(**kw)
    auc = frame.fair.roc_auc(**kw)
    assert curve.height > 1000
    chart = plots.roc_chart(curve, sensitive_features="group", roc_auc=auc)
    values = _rows(chart.to_dict(), "pf_series")
    assert 100 < len(values) <= 201
    points = [(v["fpr"], v["tpr"]) for v in sorted(values, key=lambda v: v["pf_order"])]
    assert points[0] == (curve.item(0, "fpr"), curve.item(0, "tpr"))
    assert points[-1] == (curve.item(-1, "fpr"), curve.item(-1, "tpr"))
    assert points == sorted(points)  # the curve runs from (0, 0) to (1, 1)
    label = f"a (AUC {round(auc.item(0, 'roc_auc'), 3)})"
    assert {v["pf_series"] for v in values} == {label}
    assert label in _svg_texts(plots.to_svg(chart))


@needs_plot
def test_report_svgs(reports: dict[str, FairnessReport], df: pl.DataFrame) -> None:
    without_score = df.fair.report(y_true="y_true", y_pred="y_pred", sensitive_features="group")
    titles = [title for title, _ in plots.report_svgs(without_score)]
    assert titles == ["Rates per group", "Ratio to the reference group"]
    svgs = plots.report_svgs(reports["intersectional"])
    assert [title for title, _ in svgs] == [
        "Rates per group",
        "Ratio to the reference group",
        "Calibration",
        "ROC curves",
    ]
    ids: list[str] = []
    for title, svg in svgs:
        assert svg.startswith(f'<svg role="img" aria-label="{title}"')
        ids += re.findall(r'\bid="([^"]+)"', svg)
        for ref in re.findall(r"url\(#([^)]+)\)", svg):
            assert f'id="{ref}"' in svg  # references follow the renamed ids
    assert ids
    assert len(ids) == len(set(ids))


# ---- in a browser ---------------------------------------------------------------------


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


class _Dom(HTMLParser):
    """The top-level <svg> elements (with their attributes) and the ids of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.svgs: list[dict[str, str | None]] = []
        self.ids: list[str] = []
        self.depth = 0
        self.figures = 0
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "svg":
            if self.depth == 0:
                self.svgs.append(found)
            self.depth += 1
        self.figures += tag == "figure"
        self.scripts += tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.depth -= 1


def _png_facts(data: bytes) -> tuple[int, int, int]:
    """Width, height and the number of distinct byte values of the image data."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, width, height, idat = 8, 0, 0, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    return width, height, len(set(raw))


@needs_plot
def test_report_renders_in_chromium(reports: dict[str, FairnessReport], tmp_path: Path) -> None:
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium binary")
    report = reports["intersectional"]
    page = tmp_path / "r.html"
    report.to_html(page)
    shot = tmp_path / "r.png"
    common = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1400,3000",
        "--hide-scrollbars",
    ]
    done = subprocess.run(
        [*common, f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    parsed = _Dom()
    parsed.feed(dom.stdout.decode())
    # one sized <svg> per chart, each in its figure; nothing scripted
    assert len(parsed.svgs) == 4
    assert parsed.figures == 4
    assert parsed.scripts == 0
    for svg in parsed.svgs:
        assert float(svg["width"] or 0) > 250
        assert float(svg["height"] or 0) > 150
    assert len(parsed.ids) == len(set(parsed.ids))
    # the screenshot: the window's size, and far from one colour
    data = shot.read_bytes()
    width, height, distinct = _png_facts(data)
    assert (width, height) == (1400, 3000)
    assert len(data) > 50_000
    assert distinct > 32
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is optional
        return
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 22)
    assert colours is not None
    assert len(colours) > 100
    counts = {colour: n for n, colour in colours}
    # the charts' fills are painted: the default category colours (batches m1, m2)
    assert counts.get((76, 120, 168), 0) > 100
    assert counts.get((245, 133, 24), 0) > 100
