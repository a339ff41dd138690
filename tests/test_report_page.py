"""The report page (issue 14, class 8), laid out by a real browser.

Headless Chromium opens ``report.to_html()`` at 1280 px for COMPAS (the bundled
example) and for 42 groups (a frame generated with the group sizes of the
``native-country`` column of UCI Adult's training split, 32,561 rows). A small
probe script, added to a copy of the page here (the page itself has none),
records where elements sit; the DOM is dumped and the probe's numbers checked:

* the verdict table is on the first screen and comes before any chart;
* nothing is wider than the viewport (tables that cannot fit scroll in their own box);
* text cells are left-aligned and numbers right-aligned; no Markdown backticks;
* with 42 groups the charts show 10 groups (the largest among them) in 10 distinct
  colours, with no cut legend, and the page says how many are left out.

The browser tests skip where no Chromium binary exists.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers the namespace)
from polars_fair import FairnessReport, plots
from polars_fair.datasets import load_compas

needs_plot = pytest.mark.skipif(not plots.available(), reason="needs altair and vl-convert")
VIEWPORT = (1280, 900)

#: Rows per value of ``native-country`` in UCI Adult's training split (adult.csv,
#: 32,561 rows; see /work/shared/data/SOURCES.md): the sizes of the generated groups.
ADULT_COUNTRIES = {
    "United-States": 29170, "Mexico": 643, "?": 583, "Philippines": 198, "Germany": 137,
    "Canada": 121, "Puerto-Rico": 114, "El-Salvador": 106, "India": 100, "Cuba": 95,
    "England": 90, "Jamaica": 81, "South": 80, "China": 75, "Italy": 73,
    "Dominican-Republic": 70, "Vietnam": 67, "Guatemala": 64, "Japan": 62, "Poland": 60,
    "Columbia": 59, "Taiwan": 51, "Haiti": 44, "Iran": 43, "Portugal": 37, "Nicaragua": 34,
    "Peru": 31, "France": 29, "Greece": 29, "Ecuador": 28, "Ireland": 24, "Hong": 20,
    "Cambodia": 19, "Trinadad&Tobago": 19, "Thailand": 18, "Laos": 18, "Yugoslavia": 16,
    "Outlying-US(Guam-USVI-etc)": 14, "Honduras": 13, "Hungary": 13, "Scotland": 12,
    "Holand-Netherlands": 1,
}  # fmt: skip

PROBE = """
<script>
(function () {
  var vw = window.innerWidth;
  function box(el) {
    var r = el.getBoundingClientRect();
    return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY,
            left: r.left, right: r.right};
  }
  var summary = document.querySelector("table.pf-summary");
  var figures = Array.prototype.slice.call(document.querySelectorAll("figure"));
  var wide = [];
  var all = document.querySelectorAll("body *");
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    var scroller = el.closest(".pf-scroll");
    if (scroller && scroller !== el) continue;  // scrolls inside its own box
    var r = el.getBoundingClientRect();
    if (r.right > vw + 0.5 || r.left < -0.5) {
      wide.push(el.tagName + "." + (el.getAttribute("class") || "") + " " + Math.round(r.right));
    }
  }
  var misaligned = [];
  var cells = document.querySelectorAll("td");
  for (var j = 0; j < cells.length; j++) {
    var text = cells[j].textContent.trim();
    var align = getComputedStyle(cells[j]).textAlign;
    var num = "[-+]?[0-9][0-9,]*(\\.[0-9]+)?(e[-+]?[0-9]+)?";
    var number = new RegExp("^" + num + "( ?" + num + " – " + num + ")?$").test(text)
      || new RegExp("^" + num + " – " + num + "$").test(text);
    var words = /[A-Za-z]{3,}/.test(text) && !/^[-+]?[0-9]/.test(text);
    if ((number && align !== "right") || (words && align !== "left" && align !== "start")) {
      misaligned.push(text + ":" + align);
    }
  }
  var scrolling = Array.prototype.slice.call(document.querySelectorAll(".pf-scroll"))
    .filter(function (b) { return b.scrollWidth > b.clientWidth + 1; }).length;
  var out = {
    viewport: vw,
    page_width: document.documentElement.scrollWidth,
    summary_top: summary ? box(summary).top : null,
    summary_bottom: summary ? box(summary).bottom : null,
    first_chart: figures.length ? Math.min.apply(null, figures.map(function (f) { return box(f).top; })) : null,
    n_charts: figures.length,
    too_wide: wide.slice(0, 20),
    misaligned: misaligned.slice(0, 20),
    scrolling_boxes: scrolling,
    text: document.body.innerText
  };
  var pre = document.createElement("pre");
  pre.id = "pf-layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def layout(page: str, tmp_path: Path) -> dict[str, Any]:
    """The probe's record of `page` laid out by headless Chromium at 1280 px."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium binary")
    path = tmp_path / "probed.html"
    path.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
            f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}", "--virtual-time-budget=5000",
            "--dump-dom", path.as_uri(),
        ],
        capture_output=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    dom = done.stdout.decode()
    match = re.search(r'<pre id="pf-layout">(.*?)</pre>', dom, re.S)
    assert match is not None, dom[-2000:]
    text = match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return json.loads(text)  # type: ignore[no-any-return]


def adult_like(seed: int = 42) -> pl.DataFrame:
    """42 groups with Adult's native-country sizes; scores and labels from a logistic model."""
    rng = np.random.default_rng(seed)
    names = list(ADULT_COUNTRIES)
    country = np.repeat(names, list(ADULT_COUNTRIES.values()))
    shift = dict(zip(names, rng.normal(0, 0.8, len(names)), strict=True))
    z = rng.normal(0, 1, country.size) + np.array([shift[c] for c in country])
    prob = 1 / (1 + np.exp(-z))
    label = (rng.uniform(size=country.size) < prob).astype(np.int64)
    return pl.DataFrame({"native-country": country, "income": label, "score": np.round(prob, 3)})


@pytest.fixture(scope="module")
def compas_report() -> FairnessReport:
    return load_compas().fair.report(
        y_true="two_year_recid", y_pred="y_pred", y_prob="y_prob", sensitive_features="race"
    )


@pytest.fixture(scope="module")
def adult_report() -> FairnessReport:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups with undefined rates
        return adult_like().fair.report(
            y_true="income", y_pred=pl.col("score") >= 0.5, y_prob="score",
            sensitive_features="native-country",
        )  # fmt: skip


def check_layout(facts: dict[str, Any], n_charts: int) -> None:
    assert facts["viewport"] == VIEWPORT[0]
    # the verdicts come first, on the first screen, before every chart
    assert facts["summary_top"] is not None
    assert facts["summary_top"] < VIEWPORT[1] / 3
    assert facts["n_charts"] == n_charts
    assert facts["first_chart"] > facts["summary_bottom"]
    # nothing wider than the viewport; the page does not scroll sideways
    assert facts["too_wide"] == []
    assert facts["page_width"] <= VIEWPORT[0]
    # text left, numbers right; no Markdown code marks
    assert facts["misaligned"] == []
    assert "`" not in facts["text"]


# ---- the page in the browser ------------------------------------------------------------


@needs_plot
def test_compas_page(compas_report: FairnessReport, tmp_path: Path) -> None:
    facts = layout(compas_report.to_html(), tmp_path)
    check_layout(facts, n_charts=4)
    assert facts["scrolling_boxes"] == 0  # every COMPAS table fits
    assert "Criteria and verdicts" in facts["text"]
    assert "left out" not in facts["text"]  # six groups: nothing is cut


@needs_plot
def test_many_groups_page(adult_report: FairnessReport, tmp_path: Path) -> None:
    facts = layout(adult_report.to_html(), tmp_path)
    check_layout(facts, n_charts=4)
    assert "The charts show 10 of 42 groups" in facts["text"]
    assert "entries" not in facts["text"]  # no legend cut to "...13 entries"


def test_page_without_charts_keeps_the_order(
    compas_report: FairnessReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    facts = layout(compas_report.to_html(), tmp_path)
    assert facts["n_charts"] == 0
    assert facts["too_wide"] == []
    assert facts["misaligned"] == []
    assert facts["summary_top"] < VIEWPORT[1] / 3


# ---- the page's structure (no browser) ------------------------------------------------------


def test_verdicts_come_first(compas_report: FairnessReport) -> None:
    page = compas_report.to_html()
    summary = page.index("class='pf-summary'")
    assert summary < page.index("<h2>Rates per group</h2>")
    if plots.available():
        assert summary < page.index("<svg")
    head = page.split("<table class='pf-summary'>", 1)[1].split("</tr>", 1)[0]
    columns = re.findall(r"<th class='\w+'>(.*?)</th>", head)
    assert [c.replace("<wbr>", "") for c in columns[:5]] == [
        "criterion", "verdict", "value", "95% interval", "fair band",
    ]  # fmt: skip
    assert "`" not in page


def test_summary_shows_columns_it_does_not_know(compas_report: FairnessReport) -> None:
    # e.g. the compared groups and their sizes that another version adds
    extra = compas_report.summary.with_columns(
        compared=pl.lit(["African-American", "Caucasian"]), n_excluded=pl.lit(2)
    )
    report = FairnessReport(**{**dict(compas_report.tables()), "summary": extra},
                            params=compas_report.params)  # fmt: skip
    page = report.to_html()
    head = page.split("<table class='pf-summary'>", 1)[1].split("</table>", 1)[0]
    assert "compared" in head
    assert "African-American, Caucasian" in head
    assert "n_<wbr>excluded" in head


@needs_plot
def test_charts_show_largest_and_farthest(adult_report: FairnessReport) -> None:
    kept, note = plots.charted_groups(adult_report)
    assert kept is not None
    assert note is not None
    names = set(kept.get_column("native-country").to_list())
    assert len(names) == plots.MAX_GROUPS
    sizes = sorted(ADULT_COUNTRIES, key=lambda c: -ADULT_COUNTRIES[c])
    assert set(sizes[:6]) <= names  # the six largest
    # the other four: the farthest from the reference among groups that are not small,
    # by the largest |log ratio| of a charted rate, computed here from the table
    rows = adult_report.disparities.filter(
        pl.col("metric").cast(pl.String).is_in(list(plots.RATES))
    ).join(adult_report.by_group.select("native-country", "small_group"), on="native-country")
    gaps: dict[str, float] = {}
    for country, ratio, small in rows.select("native-country", "ratio", "small_group").iter_rows():
        if small or country in sizes[:6] or ratio is None or not 0 < ratio < float("inf"):
            continue
        gaps[country] = max(gaps.get(country, 0.0), abs(float(np.log(ratio))))
    farthest = sorted(gaps, key=lambda c: -gaps[c])[:4]
    assert names == set(sizes[:6]) | set(farthest)
    svgs = dict(plots.report_svgs(adult_report))
    assert set(svgs) == {
        "Rates per group",
        "Ratio to the reference group",
        "Calibration",
        "ROC curves",
    }
    for title in ("Calibration", "ROC curves"):
        svg = svgs[title]
        for colour in plots.PALETTE:  # ten groups, ten distinct colours
            assert colour in svg.lower(), (title, colour)
        assert "United-States" in svg  # the largest group is never hidden
        assert "Holand-Netherlands" not in svg


def test_first_screen_names_the_groups(compas_report: FairnessReport) -> None:
    compas = load_compas()
    sizes = compas.group_by("race").len().sort("len", descending=True)
    largest, n_largest = sizes.row(0)
    small = sizes.filter(pl.col("len") < 30).sort("len")
    page = compas_report.to_html()
    who = page.split("<p class='pf-who'>", 1)[1].split("</p>", 1)[0]
    assert who.startswith(f"{sizes.height} groups; the largest: {largest} (n = {n_largest:,})")
    listed = ", ".join(f"{race} ({n})" for race, n in small.iter_rows())
    assert f"smaller than min_group_size = 30: {listed}." in who
    assert page.index("pf-who") < page.index("<table class='pf-summary'>")


@pytest.mark.parametrize("kind", ["lazy", "streaming"])
def test_page_is_the_same_on_every_engine(
    compas_report: FairnessReport, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)  # the tables and the text
    kw: dict[str, Any] = {
        "y_true": "two_year_recid", "y_pred": "y_pred", "y_prob": "y_prob",
        "sensitive_features": "race",
    }  # fmt: skip
    with pl.Config() as cfg:
        if kind == "streaming":
            cfg.set_engine_affinity("streaming")
        lazy = load_compas().lazy().fair.report(**kw)
    assert lazy.to_html(max_rows=3) == compas_report.to_html(max_rows=3)
    assert lazy.to_markdown(max_rows=3) == compas_report.to_markdown(max_rows=3)


# ---- every number on the page says what it is (accept14) ----------------------------------


def _section(page: str, title: str) -> str:
    """The page between the heading `title` and the next heading."""
    return page.split(f"<h2>{title}</h2>", 1)[1].split("<h2>", 1)[0]


def _largest_race() -> str:
    sizes = load_compas().group_by("race").len().sort("len", descending=True)
    return str(sizes.item(0, 0))


def test_every_table_says_what_its_numbers_are(compas_report: FairnessReport) -> None:
    page = compas_report.to_html()
    reference = f"{_largest_race()}, the largest group"
    rates = _section(page, "Rates per group")
    assert "the grey line under a rate is its 95% confidence interval" in rates
    disparities = _section(page, "Disparities against the reference")
    assert f"Each group against the reference group ({reference})" in disparities
    assert "difference = value − reference_value, ratio = value / reference_value" in disparities
    assert "gap = actual − required" in _section(page, "Trade-offs between criteria")
    assert "calibration_gap the distance" in _section(page, "Calibration per group")
    if plots.available():
        charts = _section(page, "Charts")
        assert f"the red diamond and dashed line mark the reference group ({reference})" in charts
        assert "the green band is the fair band 0.8 – 1.25" in charts


def test_captions_follow_the_parameters() -> None:
    report = load_compas().fair.report(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race",
        reference_group="Caucasian", confidence_level=0.9, ratio_band=(0.75, 1.33),
    )  # fmt: skip
    page = report.to_html()
    head = page.split("<table class='pf-summary'>", 1)[1].split("</tr>", 1)[0]
    columns = [c.replace("<wbr>", "") for c in re.findall(r"<th class='\w+'>(.*?)</th>", head)]
    assert columns[3:5] == ["90% interval", "fair band"]
    assert "groups compared" in columns
    assert "interval method" in columns
    disparities = _section(page, "Disparities against the reference")
    assert "Each group against the reference group (Caucasian)" in disparities
    assert "its 90% confidence interval" in disparities
    if plots.available():
        assert "the fair band 0.75 – 1.33" in _section(page, "Charts")


def test_worst_slices_come_right_after_the_verdicts() -> None:
    report = load_compas().fair.report(
        y_true="two_year_recid", y_pred="y_pred", y_prob="y_prob", sensitive_features="race",
        slices=["race", "sex", "age_cat"],
    )  # fmt: skip
    page = report.to_html()
    summary = page.index("<table class='pf-summary'>")
    slices = page.index("<h2>Worst slices</h2>")
    assert summary < slices < page.index("<h2>Rates per group</h2>")
    if plots.available():
        assert slices < page.index("<h2>Charts</h2>") < page.index("<svg")
    caption = _section(page, "Worst slices")
    assert "Subsets of rows whose false positive rate differs most" in caption
    assert "significant when q_value ≤ 0.05" in caption  # the rule: q_value <= alpha


def test_note_column_only_when_a_row_has_a_note(compas_report: FairnessReport) -> None:
    def head(report: FairnessReport) -> str:
        page = report.to_html()
        return page.split("<table class='pf-summary'>", 1)[1].split("</tr>", 1)[0]

    def with_notes(notes: pl.Expr) -> FairnessReport:
        summary = compas_report.summary.with_columns(note=notes)
        return FairnessReport(**{**dict(compas_report.tables()), "summary": summary},
                              params=compas_report.params)  # fmt: skip

    assert ">note<" not in head(with_notes(pl.lit(None, pl.String)))  # no column of dashes
    one = pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("a note")).otherwise(None)
    assert ">note<" in head(with_notes(one))
    # the example's own notes (treatment equality between its groups) are shown
    assert compas_report.summary["note"].null_count() < compas_report.summary.height
    assert ">note<" in head(compas_report)


@needs_plot
def test_ratio_axis_labels_do_not_overlap(compas_report: FairnessReport) -> None:
    # across more than a decade 0.8, 1 and 1.25 sit a few pixels apart: only 1 is labelled,
    # and the axis title gives the band (the page's caption too)
    svg = dict(plots.report_svgs(compas_report))["Ratio to the reference group"]
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "1" in labels
    assert "0.8" not in labels
    assert "1.25" not in labels
    assert "Ratio to the reference (log scale; fair 0.8 – 1.25)" in labels


def test_weighted_page_names_effective_sizes_not_weight_totals() -> None:
    """With sampling weights the groups line gives Kish effective sizes, the sizes
    compared with min_group_size, not weight totals (Adult's fnlwgt: billions)."""
    data = Path(__file__).parent / "data" / "adult_sample.csv"
    adult = pl.read_csv(data).with_columns(pl.col("fnlwgt").cast(pl.Float64))
    report = adult.fair.report(
        y_true=pl.col("income-per-year") == ">50K", y_pred=pl.col("education-num") >= 13,
        sensitive_features="race", sample_weight="fnlwgt", min_group_size=100,
    )  # fmt: skip
    line = re.search(r"<p class='pf-who'>([^<]*)", report.to_html())
    assert line is not None
    text = line.group(1)
    w = {g: adult.filter(pl.col("race") == g)["fnlwgt"].to_numpy() for g in ("White",)}
    kish = w["White"].sum() ** 2 / (w["White"] ** 2).sum()
    assert f"the largest: White ({kish:,.1f} effective rows, weight total" in text
    small = report.by_group.filter(pl.col("small_group"))["race"].to_list()
    assert small  # groups under 100 effective rows are named with their effective size
    for group in small:
        ws = adult.filter(pl.col("race") == group)["fnlwgt"].to_numpy()
        assert f"{group} ({ws.sum() ** 2 / (ws**2).sum():,.1f} effective rows)" in text


@needs_plot
@pytest.mark.parametrize("title", ["Rates per group", "Ratio to the reference group"])
def test_group_axis_title_sits_above_long_labels(title: str) -> None:
    # Vega places a rotated axis title by its estimate of the labels' width, short for
    # long names: the title was drawn over the group labels (30 groups, 50 characters).
    # Level and above the plot (y < 0, where no label is), it cannot touch them.
    rng = np.random.default_rng(3)
    names = [f"Group number {i:02d} with a rather long descriptive name" for i in range(30)]
    y = rng.integers(0, 2, 3000)
    df = pl.DataFrame({"grp": rng.choice(names, 3000), "y": y, "p": rng.integers(0, 2, 3000)})
    svg = dict(plots.report_svgs(df.fair.report(y_true="y", y_pred="p", sensitive_features="grp")))
    titles = re.findall(r'<text[^>]*transform="([^"]*)"[^>]*>grp</text>', svg[title])
    assert len(titles) == 4  # one per rate panel
    for transform in titles:
        assert "rotate" not in transform
        x, y_pos = map(float, re.match(r"translate\(([-\d.]+),([-\d.]+)\)", transform).groups())
        assert x <= 0  # ends at the axis line
        assert y_pos < 0  # above the first label


def test_one_group_is_not_called_groups() -> None:
    # was: "1 groups; the largest: a (n = 120)."
    df = pl.DataFrame({"g": ["a"] * 40, "y": [0, 1] * 20, "p": [1, 1, 0, 0] * 10})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one group compared with itself: warned elsewhere
        page = df.fair.report(y_true="y", y_pred="p", sensitive_features="g").to_html()
    who = re.search(r"<p class='pf-who'>([^<]*)", page)
    assert who is not None
    assert who.group(1).startswith(f"1 group: a (n = {df.height})")
    assert "1 groups" not in page


@needs_plot
def test_a_panel_with_no_value_says_so() -> None:
    # every label positive: the false positive rate (fp / N) has no negatives, so it is
    # undefined for every group; its panels were blank under a bare title
    rng = np.random.default_rng(5)
    df = pl.DataFrame(
        {"g": rng.choice(["a", "x"], 200), "y": [1] * 200, "p": rng.integers(0, 2, 200)}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the undefined rates are warned about elsewhere
        report = df.fair.report(y_true="y", y_pred="p", sensitive_features="g")
    assert report.by_group["false_positive_rate"].is_null().all()
    assert report.by_group["true_positive_rate"].is_not_null().all()
    svgs = dict(plots.report_svgs(report))
    for title in ("Rates per group", "Ratio to the reference group"):
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", svgs[title])
        assert "False positive rate (undefined for every group)" in texts
        assert "True positive rate" in texts  # a panel with values keeps its bare title
        assert "True positive rate (undefined for every group)" not in texts


@needs_plot
def test_roc_chart_without_curves_says_why() -> None:
    # every label positive: no group has negatives, so no ROC curve; the chart was an
    # empty square under "ROC curves" with "AUC n/a" in the legend
    rng = np.random.default_rng(5)
    df = pl.DataFrame(
        {"g": rng.choice(["a", "x"], 200), "y": [1] * 200, "p": rng.integers(0, 2, 200),
         "s": rng.uniform(0, 1, 200)}
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = df.fair.report(y_true="y", y_pred="p", y_prob="s", sensitive_features="g")
    assert report.roc_curve is not None
    assert report.roc_curve["fpr"].is_null().all()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", dict(plots.report_svgs(report))["ROC curves"])
    assert "ROC curves: none (one label class per group)" in texts


def test_batch_captions_match_the_batch_charts() -> None:
    # with `by` the charts colour each batch (the reference's dashed line too), and each
    # batch has its own largest group: the caption said "the red diamond and dashed line
    # mark the reference group (the largest group (of each batch))"
    report = load_compas().fair.report(
        y_true="two_year_recid", y_pred="y_pred", sensitive_features="race", by="sex"
    )
    page = report.to_html()
    assert "(of each batch))" not in page
    disparities = _section(page, "Disparities against the reference")
    assert "Each group against the reference group (the largest group of each batch)" in disparities
    if plots.available():
        charts = html.unescape(_section(page, "Charts"))
        assert "red diamond" not in charts
        assert (
            "a diamond and a dashed line in the batch's colour mark each batch's reference "
            "group (the largest group of each batch)"
        ) in charts
