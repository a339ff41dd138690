"""Campaign 4, area 2 (continued): hostile batch-key values in compare/trend/profile outputs."""
# ruff: noqa
from __future__ import annotations
import json, re, tempfile, pathlib
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from harness import case, check
from cli_run import run

A = "report_hostile_keys"
TMP = pathlib.Path(tempfile.mkdtemp())
VALS = ["a|b", "line\nbreak", "<script>x</script>", "", "中文", "tab\there", "back\\slash", "`tick`"]


def mk(seed, shift=0.0):
    r = np.random.default_rng(seed)
    n = 100 * len(VALS)
    m = [v for v in VALS for _ in range(100)]
    g = r.choice(["x", "y"], n)
    return pl.DataFrame({"m": m, "g": g, "y": r.integers(0, 2, n), "p": (r.random(n) < 0.4 + shift * (g == "y")).astype(np.int64)})


K = dict(y_true="y", y_pred="p", sensitive_features="g", by="m")
b, c = mk(1), mk(2, 0.3)
pb, pc = b.fair.profile(**K), c.fair.profile(**K)
pb.write_parquet(TMP / "b.parquet"); pc.write_parquet(TMP / "c.parquet")
b.write_parquet(TMP / "bd.parquet"); c.write_parquet(TMP / "cd.parquet")


def md_ok(text):
    bad = []
    for block in re.split(r"\n\s*\n", text):
        rows = [l for l in block.splitlines() if l.startswith("|")]
        if not rows:
            continue
        k = len(re.split(r"(?<!\\)\|", rows[0]))
        bad += [r[:100] for r in rows if len(re.split(r"(?<!\\)\|", r)) != k]
        # a row broken by a newline leaves a line not starting with '|' inside the block
        inner = block.splitlines()
        first = next(i for i, l in enumerate(inner) if l.startswith("|"))
        last = max(i for i, l in enumerate(inner) if l.startswith("|"))
        bad += [l[:100] for l in inner[first:last + 1] if not l.startswith("|")]
    return not bad, bad[:4]


rep = c.fair.report(**K)
check(A, "report markdown by hostile", lambda: md_ok(rep.to_markdown()))
check(A, "report json by hostile", lambda: ({r["m"] for r in json.loads(rep.to_json())["tables"]["by_group"]} == set(VALS), ""))
check(A, "report html no script", lambda: ("<script>x</script>" not in rep.to_html(), ""))
case(A, "report text", lambda: rep.to_text())
cmp = pc.compare(pb)
check(A, "compare keys kept", lambda: (set(cmp["m"].to_list()) == set(VALS), set(cmp["m"].to_list())))
check(A, "compare fw keys kept", lambda: (set(pc.compare(pb, familywise=True)["m"].to_list()) == set(VALS), ""))
case(A, "trend on hostile time key", lambda: pc.trend("demographic_parity_difference", time="m"))
case(A, "trend chart hostile", lambda: pf.report.plots.trend_chart(pc.trend("demographic_parity_difference", time="m"), time="m") if hasattr(pf.report.plots, "trend_chart") else None)
for fmt in ("table", "markdown", "json"):
    code, out, err = run(A, f"cli compare {fmt}", ["compare", str(TMP / "b.parquet"), str(TMP / "c.parquet"), "--format", fmt], 0)
    if code == 0 and fmt == "markdown":
        check(A, "cli compare markdown shape", lambda out=out: md_ok(out))
    if code == 0 and fmt == "json":
        check(A, "cli compare json keys", lambda out=out: ({r["m"] for r in json.loads(out)} == set(VALS), ""))
    code, out, err = run(A, f"cli compare data {fmt}", ["compare", str(TMP / "bd.parquet"), str(TMP / "cd.parquet"), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g", "--by", "m", "--format", fmt, "--no-progress", "--familywise"], 0)
    code, out, err = run(A, f"cli audit --profile {fmt}", ["audit", "--profile", str(TMP / "c.parquet"), "--format", fmt], 0)
    if code == 0 and fmt == "markdown":
        check(A, "cli audit --profile markdown shape", lambda out=out: md_ok(out))
code, out, err = run(A, "cli audit --profile html", ["audit", "--profile", str(TMP / "c.parquet"), "--format", "html", "-o", str(TMP / "r.html")], 0)
check(A, "cli html no raw script", lambda: ("<script>x</script>" not in (TMP / "r.html").read_text(), ""))
code, out, err = run(A, "cli compare fail-on-worse hostile", ["compare", str(TMP / "b.parquet"), str(TMP / "c.parquet"), "--fail-on-worse"], 1)
check(A, "gate lines one per failure", lambda: (all(l.startswith("polars-fair") or l.startswith("Hint") or l.startswith(" ") or not l for l in err.splitlines()), err[-600:]))
# slices with hostile values
case(A, "slices hostile", lambda: c.fair.slices(y_true="y", y_pred="p", candidates=["m", "g"], min_size=1))
run(A, "cli audit slices hostile md", ["audit", str(TMP / "cd.parquet"), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g", "--slices", "m", "--format", "markdown"], 0)
