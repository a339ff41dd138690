"""Campaign 4, area 5: compare(..., familywise=True) and compare --familywise."""
# ruff: noqa
from __future__ import annotations
import json, math, os, tempfile, pathlib
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from harness import case, check
from cli_run import run

A = "familywise"
TMP = pathlib.Path(tempfile.mkdtemp())
K = dict(y_true="y", y_pred="p", sensitive_features="g")


def mk(n=800, groups=("a", "b"), shift=0.0, seed=0, by=None, bynull=False):
    r = np.random.default_rng(seed)
    g = r.choice(list(groups), n)
    y = r.integers(0, 2, n)
    p = (r.random(n) < 0.4 + shift * (g == groups[-1])).astype(np.int64)
    d = {"g": g, "y": y, "p": p}
    if by:
        m = r.choice(["m1", "m2"], n).astype(object)
        if bynull:
            m[r.random(n) < 0.3] = None
        d["m"] = pl.Series(m.tolist(), dtype=pl.String)
    return pl.DataFrame(d)


def judged(cmp):
    both = [cmp[c].is_not_null() & cmp[c].is_not_nan() for c in ("baseline", "candidate")]
    return None


def m_ref(base_sum, cand_sum, keys):
    """Rows with a value and an interval on both sides (by keys + criterion)."""
    def side(s):
        out = {}
        for r in s.iter_rows(named=True):
            ok = all(r.get(c) is not None and not (isinstance(r.get(c), float) and math.isnan(r.get(c))) for c in ("value", "ci_low", "ci_high"))
            out[tuple(r[k] for k in keys) + (str(r["criterion"]),)] = ok
        return out
    b, c = side(base_sum), side(cand_sum)
    return max(sum(1 for k in b if b[k] and c.get(k)), 1)


def level_check(name, base_rep, cand_rep, keys=()):
    def f():
        plain = cand_rep.compare(base_rep)
        fw = cand_rep.compare(base_rep, familywise=True)
        m = m_ref(base_rep.summary, cand_rep.summary, list(keys))
        want = 1 - 0.05 / m
        levels = set(fw["ci_level"].drop_nulls().to_list())
        ok_level = all(abs(l - want) < 1e-12 for l in levels)
        # wider (or equal) intervals, same changes, same rows
        j = plain.select(*keys, "criterion", "change", w0=pl.col("ci_high") - pl.col("ci_low")).join(
            fw.select(*keys, "criterion", "change", w1=pl.col("ci_high") - pl.col("ci_low")), on=[*keys, "criterion"], nulls_equal=True)
        wider = j.filter(pl.col("w0").is_not_null()).select((pl.col("w1") >= pl.col("w0") - 1e-12).all()).item()
        same_change = j.select(((pl.col("change") - pl.col("change_right")).abs().fill_null(0) < 1e-12).all()).item() if "change_right" in j.columns else True
        rows = plain.height == fw.height
        # change = candidate - baseline where both
        ch = fw.filter(pl.col("baseline").is_not_null() & pl.col("candidate").is_not_null())
        diff_ok = ch.select(((pl.col("candidate") - pl.col("baseline") - pl.col("change")).abs() < 1e-9).all()).item() if ch.height else True
        return ok_level and (wider is not False) and same_change and rows and diff_ok, dict(levels=levels, want=want, m=m, wider=wider, rows=(plain.height, fw.height), diff=diff_ok)
    check(A, name, f)


b0 = mk(seed=1).fair.report(**K); c0 = mk(seed=2, shift=0.2).fair.report(**K)
level_check("plain two groups", b0, c0)
level_check("self", b0, b0)
# one row
b1 = mk(seed=1).fair.report(**K, criteria=["demographic_parity_difference"]); c1 = mk(seed=2).fair.report(**K, criteria=["demographic_parity_difference"])
level_check("one row", b1, c1)
# no rows judgeable: one group on each side
bo = mk(seed=1, groups=("a",)).fair.report(**K); co = mk(seed=2, groups=("a",)).fair.report(**K)
case(A, "no judgeable rows", lambda: co.compare(bo, familywise=True).select("criterion", "verdict", "ci_level"))
level_check("no judgeable rows level", bo, co)
# tiny groups -> excluded
bt = mk(n=20, seed=1).fair.report(**K); ct = mk(n=20, seed=2).fair.report(**K)
level_check("tiny groups (below min_group_size)", bt, ct)
# different groups
bg = mk(seed=1, groups=("a", "b")).fair.report(**K); cg = mk(seed=2, groups=("a", "b", "c")).fair.report(**K)
level_check("candidate has another group", bg, cg)
case(A, "different groups compare", lambda: cg.compare(bg, familywise=True))
bd = mk(seed=1, groups=("a", "b")).fair.report(**K); cd = mk(seed=2, groups=("c", "d")).fair.report(**K)
case(A, "disjoint groups compare", lambda: cd.compare(bd, familywise=True))
# different criteria
bc = mk(seed=1).fair.report(**K, criteria=["demographic_parity_difference", "equal_opportunity_difference"])
cc = mk(seed=2).fair.report(**K, criteria=["demographic_parity_difference", "predictive_equality_difference"])
level_check("different criteria", bc, cc)
def one_sided():
    t = cc.compare(bc, familywise=True)
    only = t.filter(pl.col("criterion").cast(pl.String) != "demographic_parity_difference")
    return set(only["verdict"].cast(pl.String).to_list()) == {"inconclusive"} and t.height == 3, t.select("criterion", "verdict").rows()
check(A, "criteria on one side inconclusive", one_sided)
# batch keys, with nulls
KB = dict(K, by="m")
for bynull in (False, True):
    bb = mk(seed=1, by=True, bynull=bynull).fair.report(**KB); cb = mk(seed=2, by=True, bynull=bynull, shift=0.1).fair.report(**KB)
    level_check(f"by keys null={bynull}", bb, cb, keys=("m",))
    case(A, f"by keys null={bynull} compare rows", lambda bb=bb, cb=cb: cb.compare(bb, familywise=True).group_by("m").len().sort("m"))
# batch keys that differ between sides
bb = mk(seed=1, by=True).fair.report(**KB)
cb = mk(seed=2, by=True).with_columns(pl.col("m").replace({"m2": "m3"})).fair.report(**KB)
level_check("by keys differ", bb, cb, keys=("m",))
# by vs no by
case(A, "by vs no by", lambda: c0.compare(bb, familywise=True), "err")
# key dtype differs
cbi = mk(seed=2, by=True).with_columns(pl.col("m").replace({"m1": "1", "m2": "2"}).cast(pl.Int64)).fair.report(**KB)
case(A, "by key dtype differs", lambda: cbi.compare(bb, familywise=True), "err")
for bad in ("yes", 1, None, np.bool_(True), 0.0):
    case(A, f"familywise={bad!r}", lambda bad=bad: c0.compare(b0, familywise=bad), "err" if not isinstance(bad, np.bool_) else None)
# different confidence levels
b9 = mk(seed=1).fair.report(**K, confidence_level=0.9)
case(A, "different confidence levels", lambda: c0.compare(b9, familywise=True).select("ci_level").unique())
# profiles
pb, pc = mk(seed=1, by=True, bynull=True).fair.profile(**KB), mk(seed=2, by=True, bynull=True).fair.profile(**KB)
case(A, "profile compare familywise", lambda: pc.compare(pb, familywise=True), "ok")
case(A, "profile trend familywise", lambda: pc.trend("demographic_parity_difference", time="m", familywise=True))
case(A, "profile compare familywise bad options", lambda: pc.compare(pb, familywise=True, criteria=["nope"]), "err")
# CLI
pb.write_parquet(TMP / "b.parquet"); pc.write_parquet(TMP / "c.parquet")
po, pn = mk(seed=1, groups=("a",)).fair.profile(**K), mk(seed=2, groups=("a",)).fair.profile(**K)
po.write_parquet(TMP / "o.parquet"); pn.write_parquet(TMP / "n.parquet")
pg1, pg2 = mk(seed=1).fair.profile(**K), mk(seed=2, groups=("a", "b", "c")).fair.profile(**K)
pg1.write_parquet(TMP / "g1.parquet"); pg2.write_parquet(TMP / "g2.parquet")
pw = mk(seed=3, shift=0.35).fair.profile(**K); pw.write_parquet(TMP / "w.parquet")
for name, args, want in [
    ("cli by nulls", ["compare", str(TMP / "b.parquet"), str(TMP / "c.parquet"), "--familywise"], 0),
    ("cli by nulls json", ["compare", str(TMP / "b.parquet"), str(TMP / "c.parquet"), "--familywise", "--format", "json"], 0),
    ("cli one group", ["compare", str(TMP / "o.parquet"), str(TMP / "n.parquet"), "--familywise"], 0),
    ("cli one group gate", ["compare", str(TMP / "o.parquet"), str(TMP / "n.parquet"), "--familywise", "--fail-on-worse"], 0),
    ("cli groups differ", ["compare", str(TMP / "g1.parquet"), str(TMP / "g2.parquet"), "--familywise"], 0),
    ("cli one criterion", ["compare", str(TMP / "g1.parquet"), str(TMP / "w.parquet"), "--familywise", "--criteria", "demographic_parity_difference", "--fail-on-worse"], 1),
    ("cli worse gate", ["compare", str(TMP / "g1.parquet"), str(TMP / "w.parquet"), "--familywise", "--fail-on-worse"], 1),
    ("cli familywise value", ["compare", str(TMP / "g1.parquet"), str(TMP / "w.parquet"), "--familywise=yes"], 2),
    ("cli by vs no by", ["compare", str(TMP / "b.parquet"), str(TMP / "g1.parquet"), "--familywise"], 2),
    ("cli familywise md", ["compare", str(TMP / "g1.parquet"), str(TMP / "w.parquet"), "--familywise", "--format", "markdown"], 0),
    ("cli familywise min-group 0", ["compare", str(TMP / "o.parquet"), str(TMP / "n.parquet"), "--familywise", "--min-group-size", "0"], 0),
    ("cli familywise criteria empty", ["compare", str(TMP / "g1.parquet"), str(TMP / "w.parquet"), "--familywise", "--criteria", ","], 2),
]:
    code, out, err = run(A, name, args, want)
    if name == "cli by nulls json" and code == 0:
        def fj(out=out):
            t = pl.DataFrame(json.loads(out))
            m = m_ref(pb.report().summary, pc.report().summary, ["m"])
            lv = set(t["ci_level"].drop_nulls().to_list())
            return lv == {1 - 0.05 / m} or all(abs(x - (1 - 0.05 / m)) < 1e-12 for x in lv), (lv, m, t["m"].to_list()[:5])
        check(A, "cli json familywise level", fj)
