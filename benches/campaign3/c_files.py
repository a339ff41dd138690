"""Campaign 3: read_profile and merge_profiles."""
from __future__ import annotations
import json, shutil, tempfile, pathlib
import numpy as np, polars as pl, pyarrow as pa, pyarrow.parquet as pq
import polars_fair as pf
import warnings; warnings.simplefilter("ignore")
from harness import case, check

A = "files_merge"
TMP = pathlib.Path(tempfile.mkdtemp())
AD = pl.read_csv("/work/shared/data/adult.csv").with_columns(
    (pl.col("income-per-year") == ">50K").cast(pl.Int64).alias("y"),
    ((pl.col("education-num") >= 13)).cast(pl.Int64).alias("p"),
    (pl.col("education-num") / 16).alias("s"),
    (pl.col("age") // 10 * 10).alias("decade"),
)
K = dict(y_true="y", y_pred="p", sensitive_features="sex")
KS = dict(K, y_prob="s")
prof = AD.fair.profile(**KS, by="decade")
good = TMP / "good.parquet"; prof.write_parquet(good)
reg = AD.fair.profile(y_true="hours-per-week", y_pred="age", sensitive_features="sex", task="regression")
regf = TMP / "reg.parquet"; reg.write_parquet(regf)

check(A, "roundtrip classification", lambda: (pf.read_profile(good) == prof, ""))
check(A, "roundtrip str path", lambda: (pf.read_profile(str(good)) == prof, ""))
check(A, "roundtrip list", lambda: (pf.read_profile([good]) == prof, ""))
check(A, "roundtrip tuple", lambda: (pf.read_profile((str(good),)) == prof, ""))
check(A, "roundtrip report equal", lambda: (pf.read_profile(good).summary().equals(prof.summary()), ""))
# counts exact vs numpy
def counts_np():
    t = prof.tables["stats"].filter(pl.col("decade") == 30, pl.col("sex") == "Male").row(0, named=True)
    sub = AD.filter(pl.col("decade") == 30, pl.col("sex") == "Male")
    y, p = sub["y"].to_numpy(), sub["p"].to_numpy()
    want = dict(tp=int(((y == 1) & (p == 1)).sum()), fp=int(((y == 0) & (p == 1)).sum()), fn=int(((y == 1) & (p == 0)).sum()), tn=int(((y == 0) & (p == 0)).sum()))
    return all(t[k] == v for k, v in want.items()), (t, want)
check(A, "adult counts vs numpy", counts_np)

# paths
for name, src in {
    "missing file": TMP / "nope.parquet", "directory": TMP, "empty glob": str(TMP / "zz*.parquet"), "empty list": [],
    "empty string": "", "list with missing": [good, TMP / "nope.parquet"], "dup in list": [good, good],
    "dup via glob": [str(good), str(TMP / "go*.parquet")], "dup via ./": [str(good), str(TMP / "." / "good.parquet")],
    "int": 5, "None": None, "bytes": bytes(str(good), "utf8"), "generator": (p for p in [good]), "dict": {"a": good},
    "profile object": prof, "list of profile": [prof], "set": {str(good)}, "nested list": [[str(good)]],
}.items():
    case(A, f"read_profile {name}", lambda src=src: pf.read_profile(src).rows)
# non profile files
plain = TMP / "plain.parquet"; AD.head(10).write_parquet(plain)
csvf = TMP / "data.csv"; AD.head(10).write_csv(csvf)
empty = TMP / "empty.parquet"; empty.write_bytes(b"")
trunc = TMP / "trunc.parquet"; trunc.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
trunc2 = TMP / "trunc2.parquet"; b = good.read_bytes(); trunc2.write_bytes(b[:8] + b[-2000:])
junk = TMP / "junk.parquet"; junk.write_bytes(b"PAR1" + b"x" * 100 + b"PAR1")
for name, f in {"plain parquet": plain, "csv": csvf, "zero bytes": empty, "truncated": trunc, "truncated2": trunc2, "junk": junk}.items():
    case(A, f"read_profile {name}", lambda f=f: pf.read_profile(f), "err")
    case(A, f"read_profile glob with {name}", lambda f=f: pf.read_profile([good, f]), "err")

# metadata surgery
def rewrite(meta_edit=None, raw=None, layout=None, drop_cols=(), name="x", table_edit=None):
    t = pq.read_table(good)
    md = dict(pq.ParquetFile(good).metadata.metadata)
    meta = json.loads(md[b"polars_fair.profile"])
    if meta_edit:
        meta_edit(meta)
    md[b"polars_fair.profile"] = (raw if raw is not None else json.dumps(meta)).encode()
    if layout is not None:
        md[b"polars_fair.table_column"] = layout.encode()
    if drop_cols:
        t = t.drop_columns(list(drop_cols))
    if table_edit:
        t = table_edit(t)
    t = t.replace_schema_metadata(md)
    out = TMP / f"surg_{name}.parquet"
    pq.write_table(t, out)
    return out
def setk(k, v):
    def f(m): m[k] = v
    return f
def delk(k):
    def f(m): m.pop(k)
    return f
def setspec(k, v):
    def f(m): m["spec"][k] = v
    return f
surg = {
    "version 99": dict(meta_edit=setk("format_version", 99)),
    "version 0": dict(meta_edit=setk("format_version", 0)),
    "version '1'": dict(meta_edit=setk("format_version", "1")),
    "version None": dict(meta_edit=setk("format_version", None)),
    "version True": dict(meta_edit=setk("format_version", True)),
    "version 2 (regression's) on classification": dict(meta_edit=setk("format_version", 2)),
    "no version": dict(meta_edit=delk("format_version")),
    "corrupt json": dict(raw="{not json"),
    "json list": dict(raw="[1,2]"),
    "json null": dict(raw="null"),
    "json number": dict(raw="3"),
    "no spec": dict(meta_edit=delk("spec")),
    "spec not dict": dict(meta_edit=setk("spec", "x")),
    "no tables": dict(meta_edit=delk("tables")),
    "tables extra": dict(meta_edit=lambda m: m["tables"].append("zzz")),
    "tables wrong type": dict(meta_edit=setk("tables", "stats")),
    "rows str": dict(meta_edit=setk("rows", "many")),
    "rows None": dict(meta_edit=setk("rows", None)),
    "schema garbage": dict(meta_edit=setk("schema", "!!!")),
    "table_schemas garbage": dict(meta_edit=lambda m: m["table_schemas"].__setitem__("stats", "!!!")),
    "columns missing col": dict(meta_edit=lambda m: m["columns"]["stats"].append("ghost")),
    "key_dtypes wrong": dict(meta_edit=lambda m: m["key_dtypes"].__setitem__("sex", "Int64")),
    "spec.y_pred expr garbage": dict(meta_edit=setspec("y_pred", {"expr": "garbage"})),
    "spec.task bogus": dict(meta_edit=setspec("task", "ranking")),
    "spec.task regression on cls": dict(meta_edit=setspec("task", "regression")),
    "spec.sensitive not list": dict(meta_edit=setspec("sensitive_features", "sex")),
    "spec.by missing key": dict(meta_edit=setspec("by", ["nokey"])),
    "score_bins str": dict(meta_edit=setk("score_bins", "1000")),
    "pieces str": dict(meta_edit=setk("pieces", "x")),
    "created_at int": dict(meta_edit=setk("created_at", 5)),
    "layout key wrong": dict(layout="nope"),
    "layout col dropped": dict(drop_cols=("table",)),
    "data col dropped": dict(drop_cols=("tp",)),
    "n as string": dict(table_edit=lambda t: t.set_column(t.schema.get_field_index("n"), "n", pa.array([str(x) for x in t.column("n").to_pylist()]))),
}
for name, kw in surg.items():
    f = rewrite(name=name.replace(" ", "_").replace("'", "").replace("(", "").replace(")", ""), **kw)
    case(A, f"surgery {name}: read", lambda f=f: pf.read_profile(f).rows)
    case(A, f"surgery {name}: summary", lambda f=f: pf.read_profile(f).summary().height)
    case(A, f"surgery {name}: merge", lambda f=f: pf.read_profile([good, f]).rows)
# regression file with classification version
def reg_v1():
    t = pq.read_table(regf); md = dict(pq.ParquetFile(regf).metadata.metadata); m = json.loads(md[b"polars_fair.profile"]); m["format_version"] = 1
    md[b"polars_fair.profile"] = json.dumps(m).encode(); out = TMP / "reg_v1.parquet"; pq.write_table(t.replace_schema_metadata(md), out); return out
case(A, "regression with format 1", lambda: pf.read_profile(reg_v1()), "err")
case(A, "mixed reg + cls files", lambda: pf.read_profile([good, regf]), "err")
case(A, "mixed cls + reg files", lambda: pf.read_profile([regf, good]), "err")

# ---- merges --------------------------------------------------------------------------
h1, h2 = AD.head(20000), AD.tail(AD.height - 20000)
base = dict(KS, by="decade")
m = pf.merge_profiles([h1.fair.profile(**base), h2.fair.profile(**base)])
check(A, "merge stats == whole (exact ints)", lambda: (m.tables["stats"].equals(prof.tables["stats"]), ""))
check(A, "merge roc == whole", lambda: (m.tables["roc"].select(pl.exclude("^sum.*$")).equals(prof.tables["roc"].select(pl.exclude("^sum.*$"))), (m.tables["roc"].height, prof.tables["roc"].height)))
check(A, "merge calibration close", lambda: (np.allclose(m.tables["calibration"].select(pl.selectors.numeric()).to_numpy(), prof.tables["calibration"].select(pl.selectors.numeric()).to_numpy()), ""))
check(A, "merge summary == whole", lambda: (np.allclose(m.summary()["value"].to_numpy(), prof.summary()["value"].to_numpy(), equal_nan=True), ""))
check(A, "merge rows", lambda: (m.rows == AD.height, m.rows))
check(A, "merge pieces", lambda: (m.meta["pieces"] == 2, m.meta["pieces"]))
# files merged via glob
(TMP / "parts").mkdir()
h1.fair.profile(**base).write_parquet(TMP / "parts" / "1.parquet"); h2.fair.profile(**base).write_parquet(TMP / "parts" / "2.parquet")
check(A, "glob merge == whole", lambda: (pf.read_profile(str(TMP / "parts" / "*.parquet")).tables["stats"].equals(prof.tables["stats"]), ""))
# piece where a decade is absent
check(A, "merge with group absent in one piece", lambda: (
    (AD.filter(pl.col("decade") < 50).fair.profile(**base) + AD.filter(pl.col("decade") >= 50).fair.profile(**base)).tables["stats"].equals(prof.tables["stats"]), ""))
check(A, "merge with empty piece", lambda: ((AD.head(0).fair.profile(**base) + AD.fair.profile(**base)).tables["stats"].equals(prof.tables["stats"]), ""))
incompat = {
    "by vs none": (dict(KS), base),
    "by different": (dict(KS, by="race"), base),
    "key dtype": (dict(KS, by=pl.col("decade").cast(pl.Int32)), base),
    "weights vs none": (dict(base, sample_weight="fnlwgt"), base),
    "score bins": (dict(base, score_bins=100), base),
    "exact vs binned": (dict(base, exact_scores=True), base),
    "n_bins": (dict(base, n_bins=5), base),
    "no score vs score": (dict(K, by="decade"), base),
    "pos_label": (dict(base, pos_label=0), base),
    "y_pred expr vs col": (dict(base, y_pred=pl.col("p")), base),
    "sensitive two vs one": (dict(base, sensitive_features=["sex", "race"]), base),
    "sensitive order": (dict(base, sensitive_features=["race", "sex"]), dict(base, sensitive_features=["sex", "race"])),
    "by expr vs by name": (dict(KS, by=(pl.col("age") // 10 * 10).alias("decade")), base),
}
for name, (k1, k2) in incompat.items():
    case(A, f"merge incompatible {name}", lambda k1=k1, k2=k2: pf.merge_profiles([h1.fair.profile(**k1), h2.fair.profile(**k2)]), "err")
    case(A, f"merge incompatible {name} (files)", lambda k1=k1, k2=k2, name=name: (
        h1.fair.profile(**k1).write_parquet(TMP / f"i1_{name[:5]}.parquet"), h2.fair.profile(**k2).write_parquet(TMP / f"i2_{name[:5]}.parquet"),
        pf.read_profile([TMP / f"i1_{name[:5]}.parquet", TMP / f"i2_{name[:5]}.parquet"])), "err")
# sensitive dtype differs (String vs Categorical)
case(A, "merge sensitive String vs Categorical", lambda: h1.fair.profile(**base) + h2.with_columns(pl.col("sex").cast(pl.Categorical)).fair.profile(**base), "err")
case(A, "merge sensitive Enum diff categories", lambda: h1.with_columns(pl.col("sex").cast(pl.Enum(["Female", "Male"]))).fair.profile(**base) + h2.with_columns(pl.col("sex").cast(pl.Enum(["Male", "Female"]))).fair.profile(**base), "err")
case(A, "merge y dtype Int32 vs Int64", lambda: (h1.with_columns(pl.col("y").cast(pl.Int32)).fair.profile(**base) + h2.fair.profile(**base)).rows)
case(A, "merge y bool vs int", lambda: (h1.with_columns(pl.col("y").cast(pl.Boolean)).fair.profile(**base) + h2.fair.profile(**base)).rows)
case(A, "merge s Float32 vs Float64", lambda: (h1.with_columns(pl.col("s").cast(pl.Float32)).fair.profile(**base) + h2.fair.profile(**base)).rows)
case(A, "merge weights Int vs Float", lambda: (h1.with_columns(w=pl.lit(1)).fair.profile(**base, sample_weight="w") + h2.with_columns(w=pl.lit(1.0)).fair.profile(**base, sample_weight="w")).tables["stats"].schema)
# merge bad args
for name, arg in {"empty": [], "single profile": prof, "None": None, "str": "x", "list with None": [prof, None], "generator": (p for p in [prof, m]), "tuple": (prof,)}.items():
    case(A, f"merge_profiles {name}", lambda arg=arg: pf.merge_profiles(arg).rows)
def operand_error(fn):
    """Python's own TypeError of an unsupported operand (the profile returns NotImplemented)."""
    try:
        fn()
    except TypeError as e:
        return "unsupported operand" in str(e), str(e)
    return False, "no error"
check(A, "profile + 1", lambda: operand_error(lambda: prof + 1))
check(A, "1 + profile", lambda: operand_error(lambda: 1 + prof))
case(A, "sum([])", lambda: sum([]))
check(A, "profile + report", lambda: operand_error(lambda: prof + prof.report()))
