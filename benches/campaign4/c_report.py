"""Campaign 4, area 2: report outputs with hostile group values."""
# ruff: noqa
from __future__ import annotations
import json, os, re, tempfile, pathlib
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from harness import case, check
from cli_run import run

A = "report_hostile"
TMP = pathlib.Path(tempfile.mkdtemp())
HOSTILE = {
    "script": ["<script>alert(1)</script>", "ok"],
    "img onerror": ['<img src=x onerror="alert(1)">', "b"],
    "amp quote": ["a & b \"c\" 'd'", "x"],
    "md pipe": ["a|b", "c||d"],
    "md newline": ["line1\nline2", "x\r\ny"],
    "md backtick": ["`code`", "**bold**"],
    "md heading": ["# head", "- item"],
    "backslash": ["a\\", "b\\|c"],
    "long": ["L" * 5000, "short"],
    "unicode": ["中文", "ÉÀ🙂", "\u200b", "\u202eRTL"],
    "empty vs null": ["", None],
    "empty vs space": ["", " "],
    "numbers as strings": ["1", "01", "1.0"],
    "true/false strings": ["true", "false", "null", "None"],
    "json-ish": ['{"a": 1}', "[1,2]"],
    "control chars": ["\x00nul", "\x1b[31mred", "\ttab"],
    "html comment": ["<!-- x -->", "]]>"],
    "case differ": ["a", "A"],
    "trailing space": ["a", "a "],
}


def make(values, n_per=60, seed=1):
    rng = np.random.default_rng(seed)
    g = [v for v in values for _ in range(n_per)]
    y = rng.integers(0, 2, len(g)); p = rng.integers(0, 2, len(g))
    return pl.DataFrame({"grp": pl.Series(g, dtype=pl.String), "y": y, "p": p})


def bygroup_ok(rep, df):
    got = {r["grp"]: r["n"] for r in rep.by_group.iter_rows(named=True)}
    vals = df["grp"].to_list()
    want = {v: vals.count(v) for v in set(vals)}
    tp = {r["grp"]: r["tp"] for r in rep.by_group.iter_rows(named=True)}
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    wtp = {v: int(((y == 1) & (p == 1))[[x == v for x in vals]].sum()) for v in set(vals)}
    return got == want and tp == wtp, (got, want)


for label, values in HOSTILE.items():
    df = make(values)
    before = df.clone()
    K = dict(y_true="y", y_pred="p", sensitive_features="grp")
    rep = None
    try:
        rep = df.fair.report(**K, min_group_size=0)
    except Exception as e:
        case(A, f"{label} report", lambda e=e: (_ for _ in ()).throw(e))
        continue
    case(A, f"{label} report", lambda: rep)
    check(A, f"{label} frame unchanged", lambda: (df.equals(before), ""))
    check(A, f"{label} by_group counts", lambda: bygroup_ok(rep, df))
    # JSON
    def j():
        d = json.loads(rep.to_json())
        names = {r["grp"] for r in d["tables"]["by_group"]}
        return names == set(values), (names, values)
    check(A, f"{label} json valid, groups kept", j)
    # HTML
    base_scripts = make(["u", "v"]).fair.report(**K, min_group_size=0).to_html().count("<script")
    def h():
        html = rep.to_html()
        bad = [v for v in values if v and "<" in v and v in html]
        return html.count("<script") == base_scripts and not bad, (bad, html.count("<script"), base_scripts)
    check(A, f"{label} html escaped", h)
    def h2():
        import html as H
        text = rep.to_html()
        missing = [v for v in values if v and H.escape(v) not in text and H.escape(v, quote=False) not in text and len(v) < 200]
        return not missing, missing
    check(A, f"{label} html shows every group", h2)
    # markdown: every table row has the header's cell count
    def m():
        md = rep.to_markdown()
        bad = []
        lines = md.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("|"):
                cells = lambda s: len(re.split(r"(?<!\\)\|", s)) - 2
                k = cells(lines[i]); j = i
                while j < len(lines) and lines[j].startswith("|"):
                    if cells(lines[j]) != k:
                        bad.append(lines[j][:120])
                    j += 1
                # a table must end at a blank line or a non-table line, never mid-row
                i = j
            else:
                i += 1
        return not bad, bad[:3]
    check(A, f"{label} markdown table shape", m)
    def m2():
        md = rep.to_markdown()
        missing = [v for v in values if v and len(v) < 200 and v.replace("|", "\\|").replace("\n", " ").replace("\r", " ") not in md and v.strip() and "\\" not in v]
        return not missing, missing
    check(A, f"{label} markdown shows every group", m2)
    case(A, f"{label} to_text", lambda: rep.to_text())
    case(A, f"{label} repr html", lambda: rep._repr_html_())
    case(A, f"{label} to_dict", lambda: rep.to_dict())
    case(A, f"{label} summary", lambda: rep.summary)
    # reference group hostile
    ref = values[0]
    case(A, f"{label} reference_group", lambda: df.fair.report(**K, reference_group=ref, min_group_size=0).summary)
    case(A, f"{label} disparities ref", lambda: df.fair.disparities(y_true="y", y_pred="p", sensitive_features="grp", reference_group=ref))
    # CLI table / html / markdown / json
    path = TMP / f"{abs(hash(label))}.parquet"
    df.write_parquet(path)
    for fmt in ("table", "json", "markdown", "html"):
        out = TMP / f"o.{fmt}"
        code, o, e = run(A, f"{label} cli {fmt}", ["audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "grp", "--format", fmt, "-o", str(out), "--min-group-size", "0"], 0)
        if code == 0 and fmt == "json":
            check(A, f"{label} cli json groups", lambda: ({r["grp"] for r in json.loads(out.read_text())["tables"]["by_group"]} == set(values), ""))
        if code == 0 and fmt == "html":
            check(A, f"{label} cli html escaped", lambda: (out.read_text().count("<script") == base_scripts, ""))
    if ref is not None and "," not in ref and ref.strip():
        run(A, f"{label} cli reference-group", ["audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "grp", "--reference-group", ref, "--min-group-size", "0", "-o", str(TMP / "x.txt")], 0)
    # intersectional with a hostile second column
    df2 = df.with_columns(h=pl.col("grp").reverse())
    case(A, f"{label} intersectional report json", lambda: json.loads(df2.fair.report(y_true="y", y_pred="p", sensitive_features=["grp", "h"], min_group_size=0).to_json()))
    case(A, f"{label} slices", lambda: df.fair.slices(y_true="y", y_pred="p", candidates=["grp"], min_size=1) if hasattr(df.fair, "slices") else None)

# hostile column names
for cname in ["<b>x</b>", "a|b", "new\nline", "", "n ", "中", "a.b", "a:b"]:
    df = make(["a", "b"]).rename({"grp": cname})
    K = dict(y_true="y", y_pred="p", sensitive_features=cname)
    def go(cname=cname, df=df, K=K):
        rep = df.fair.report(**K, min_group_size=0)
        html = rep.to_html(); md = rep.to_markdown(); js = json.loads(rep.to_json())
        return ("<b>x</b>" not in html) if cname == "<b>x</b>" else True, ""
    check(A, f"column name {cname!r}", go)
