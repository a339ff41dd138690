"""Campaign 4, area 3: exotic dtypes across the namespace and report."""
# ruff: noqa
from __future__ import annotations
import datetime as dt, decimal, json
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from harness import case, check

A = "dtypes"
import tempfile, pathlib
_T = pathlib.Path(tempfile.mkdtemp())
_i = [0]
def _w(prof):
    _i[0] += 1
    path = _T / f"p{_i[0]}.parquet"
    prof.write_parquet(path)
    return path
rng = np.random.default_rng(7)
N = 400
y = rng.integers(0, 2, N); p = rng.integers(0, 2, N); s = rng.random(N); g = rng.choice(["a", "b"], N)
base = pl.DataFrame({"g": g, "y": y, "p": p, "s": s})


def ref_dpd(pp, gg):
    rates = [pp[gg == k].mean() for k in np.unique(gg)]
    return max(rates) - min(rates)


def ref_eod(yy, pp, gg):
    tprs = [pp[(gg == k) & (yy == 1)].mean() for k in np.unique(gg)]
    fprs = [pp[(gg == k) & (yy == 0)].mean() for k in np.unique(gg)]
    return max(max(tprs) - min(tprs), max(fprs) - min(fprs))


WANT_DPD = ref_dpd(p, g); WANT_EOD = ref_eod(y, p, g)
LABEL_DTYPES = {"Int8": pl.Int8, "UInt8": pl.UInt8, "UInt64": pl.UInt64, "Int16": pl.Int16, "Float32": pl.Float32,
                "Float64": pl.Float64, "Decimal": pl.Decimal(10, 2), "Boolean": pl.Boolean, "Int128": pl.Int128}
for name, dtype in LABEL_DTYPES.items():
    df = base.with_columns(pl.col("y").cast(dtype), pl.col("p").cast(dtype))
    before = df.clone()
    check(A, f"labels {name} dpd", lambda df=df: (abs(df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g") - WANT_DPD) < 1e-12, ""))
    check(A, f"labels {name} eod", lambda df=df: (abs(df.fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="g") - WANT_EOD) < 1e-12, ""))
    check(A, f"labels {name} lazy eod", lambda df=df: (abs(df.lazy().fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="g").collect().item() - WANT_EOD) < 1e-12, ""))
    case(A, f"labels {name} report", lambda df=df: json.loads(df.fair.report(y_true="y", y_pred="p", sensitive_features="g").to_json()), "ok")
    check(A, f"labels {name} unchanged", lambda df=df, before=before: (df.equals(before), ""))
    # pos_label of the wrong type
    for pl_label, pos in {"str": "1", "float": 1.0, "bool": True, "none": None, "list": [1], "2": 2, "decimal": decimal.Decimal("1"), "-1 unsigned": -1, "huge": 2**70, "nan": float("nan")}.items():
        case(A, f"labels {name} pos_label {pl_label}", lambda df=df, pos=pos: df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g", pos_label=pos))
# labels with 3 values in small dtypes
case(A, "Int8 3 values", lambda: base.with_columns(pl.col("p").cast(pl.Int8) * 2 - 1 + (pl.col("s") > 0.9).cast(pl.Int8)).fair.demographic_parity_difference(y_pred="p", sensitive_features="g"), "err")
# Float labels 0.0/1.0 with a NaN
case(A, "Float labels NaN", lambda: base.with_columns(pl.when(pl.col("s") > 0.95).then(float("nan")).otherwise(pl.col("p").cast(pl.Float64)).alias("p")).fair.demographic_parity_difference(y_pred="p", sensitive_features="g"), "err")
# string labels, enum, categorical
for kind, mk in {"String": lambda c: pl.col(c).cast(pl.String).replace({"0": "no", "1": "yes"}),
                 "Enum": lambda c: pl.col(c).cast(pl.String).replace({"0": "no", "1": "yes"}).cast(pl.Enum(["no", "yes"])),
                 "Enum3": lambda c: pl.col(c).cast(pl.String).replace({"0": "no", "1": "yes"}).cast(pl.Enum(["no", "yes", "maybe"])),
                 "Categorical": lambda c: pl.col(c).cast(pl.String).replace({"0": "no", "1": "yes"}).cast(pl.Categorical)}.items():
    df = base.with_columns(mk("y"), mk("p"))
    check(A, f"labels {kind} pos yes", lambda df=df: (abs(df.fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="g", pos_label="yes") - WANT_EOD) < 1e-12, ""))
    for pl_label, pos in {"int 1": 1, "bool": True, "absent": "maybe", "absent2": "YES", "none": None}.items():
        case(A, f"labels {kind} pos_label {pl_label}", lambda df=df, pos=pos: df.fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="g", pos_label=pos), "err")
    case(A, f"labels {kind} report pos yes", lambda df=df: df.fair.report(y_true="y", y_pred="p", sensitive_features="g", pos_label="yes").summary, "ok")
# Boolean labels with pos_label
db = base.with_columns(pl.col("y").cast(pl.Boolean), pl.col("p").cast(pl.Boolean))
for pl_label, pos in {"False": False, "0": 0, "'true'": "true", "1": 1}.items():
    case(A, f"bool labels pos_label {pl_label}", lambda pos=pos: db.fair.by_group(y_true="y", y_pred="p", sensitive_features="g", pos_label=pos))
check(A, "bool labels pos_label False value", lambda: (abs(db.fair.demographic_parity_difference(y_pred="p", sensitive_features="g", pos_label=False) - WANT_DPD) < 1e-12, ""))

# scores
for name, dtype in {"Float32": pl.Float32, "Decimal": pl.Decimal(10, 4), "Int8": pl.Int8, "UInt64": pl.UInt64, "Boolean": pl.Boolean}.items():
    df = base.with_columns(pl.col("s").cast(dtype) if name not in ("Int8", "UInt64", "Boolean") else (pl.col("s") > 0.5).cast(dtype))
    case(A, f"scores {name} report", lambda df=df: df.fair.report(y_true="y", y_prob="s", y_pred="p", sensitive_features="g").summary)
    case(A, f"scores {name} calibration", lambda df=df: df.fair.calibration(y_true="y", y_prob="s", sensitive_features="g"))
    case(A, f"scores {name} roc_auc", lambda df=df: df.fair.roc_auc(y_true="y", y_prob="s", sensitive_features="g"))
# check AUC numbers on Float32 vs numpy brute force
def auc_ref(yy, ss):
    pos, neg = ss[yy == 1], ss[yy == 0]
    return ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
def auc_check(dtype):
    df = base.with_columns(pl.col("s").cast(dtype))
    t = df.fair.roc_auc(y_true="y", y_prob="s", sensitive_features="g")
    sv = df["s"].cast(pl.Float64).to_numpy()
    got = {r["g"]: r["roc_auc"] for r in t.iter_rows(named=True)}
    want = {k: auc_ref(y[g == k], sv[g == k]) for k in ("a", "b")}
    return all(abs(got[k] - want[k]) < 0.02 for k in want), (got, want)
check(A, "roc_auc Float32", lambda: auc_check(pl.Float32))
check(A, "roc_auc Decimal", lambda: auc_check(pl.Decimal(10, 4)))

# weights
for name, dtype in {"Float32": pl.Float32, "UInt8": pl.UInt8, "Decimal": pl.Decimal(10, 2), "Boolean": pl.Boolean, "String": pl.String}.items():
    df = base.with_columns(w=(pl.col("s") * 3).cast(dtype) if name != "Boolean" else (pl.col("s") > 0.2))
    case(A, f"weights {name}", lambda df=df: df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g", sample_weight="w"))
def wcheck():
    w = (s * 3).astype(np.float32).astype(np.float64)
    df = base.with_columns(w=pl.Series(w))
    got = df.with_columns(pl.col("w").cast(pl.Float32)).fair.demographic_parity_difference(y_pred="p", sensitive_features="g", sample_weight="w")
    rates = [np.average(p[g == k], weights=w[g == k]) for k in ("a", "b")]
    return abs(got - (max(rates) - min(rates))) < 1e-6, (got, rates)
check(A, "weights Float32 value", wcheck)

# sensitive features / by keys of exotic dtypes
t0 = dt.datetime(2024, 1, 1)
KEYS = {
    "Struct": pl.struct(pl.col("g"), (pl.col("s") > 0.5).alias("hi")),
    "List": pl.concat_list(pl.col("g"), pl.col("g")),
    "Array": pl.concat_list(pl.col("y"), pl.col("p")).list.to_array(2),
    "Time": pl.when(pl.col("g") == "a").then(pl.time(1, 0)).otherwise(pl.time(2, 0)),
    "Duration": pl.when(pl.col("g") == "a").then(pl.duration(days=1)).otherwise(pl.duration(days=2)),
    "Datetime tz": pl.when(pl.col("g") == "a").then(pl.lit(t0)).otherwise(pl.lit(t0 + dt.timedelta(hours=1))).dt.replace_time_zone("Europe/Paris"),
    "Datetime ns": pl.when(pl.col("g") == "a").then(pl.lit(t0)).otherwise(pl.lit(t0 + dt.timedelta(hours=1))).cast(pl.Datetime("ns")),
    "Date": pl.when(pl.col("g") == "a").then(pl.lit(t0.date())).otherwise(pl.lit(dt.date(2024, 2, 1))),
    "Enum": pl.col("g").cast(pl.Enum(["b", "a", "zz"])),
    "Categorical": pl.col("g").cast(pl.Categorical),
    "Boolean": pl.col("g") == "a",
    "Null": pl.lit(None, dtype=pl.Null),
    "Float NaN": pl.when(pl.col("g") == "a").then(float("nan")).otherwise(1.0),
    "Decimal": pl.when(pl.col("g") == "a").then(pl.lit(decimal.Decimal("1.50"))).otherwise(pl.lit(decimal.Decimal("2.25"))),
    "Binary": pl.col("g").cast(pl.Binary),
    "UInt64 big": pl.when(pl.col("g") == "a").then(pl.lit(2**64 - 1, dtype=pl.UInt64)).otherwise(pl.lit(0, dtype=pl.UInt64)),
    "Int128": pl.when(pl.col("g") == "a").then(pl.lit(2**100, dtype=pl.Int128)).otherwise(pl.lit(-1, dtype=pl.Int128)),
    "Float32": pl.when(pl.col("g") == "a").then(0.1).otherwise(0.2).cast(pl.Float32),
}
na = int((g == "a").sum())
for name, expr in KEYS.items():
    try:
        df = base.with_columns(k=expr)
    except Exception as e:
        case(A, f"key {name} build", lambda e=e: (_ for _ in ()).throw(e))
        continue
    before = df.clone()
    splits_like_g = name not in ("Struct", "List", "Array", "Null")
    def grp(df=df, name=name):
        t = df.fair.by_group(y_true="y", y_pred="p", sensitive_features="k")
        ns = sorted(t["n"].to_list())
        return (not splits_like_g) or ns == sorted([na, N - na]), (ns, t.schema["k"])
    check(A, f"sensitive {name} by_group", grp)
    case(A, f"sensitive {name} report json", lambda df=df: json.loads(df.fair.report(y_true="y", y_pred="p", sensitive_features="k").to_json()))
    case(A, f"sensitive {name} report html", lambda df=df: len(df.fair.report(y_true="y", y_pred="p", sensitive_features="k").to_html()))
    case(A, f"sensitive {name} report md", lambda df=df: len(df.fair.report(y_true="y", y_pred="p", sensitive_features="k").to_markdown()))
    case(A, f"sensitive {name} dpd", lambda df=df: df.fair.demographic_parity_difference(y_pred="p", sensitive_features="k"))
    case(A, f"sensitive {name} profile", lambda df=df: df.fair.profile(y_true="y", y_pred="p", sensitive_features="k").report().summary)
    def by(df=df):
        t = df.fair.demographic_parity_difference(y_pred="p", sensitive_features="g", by="k")
        return t
    case(A, f"by {name} dpd", by)
    case(A, f"by {name} report json", lambda df=df: json.loads(df.fair.report(y_true="y", y_pred="p", sensitive_features="g", by="k").to_json()))
    case(A, f"by {name} profile roundtrip", lambda df=df: pf.read_profile(_w(df.fair.profile(y_true="y", y_pred="p", sensitive_features="g", by="k"))).report().summary)
    case(A, f"by {name} slices", lambda df=df: df.fair.slices(y_true="y", y_pred="p", candidates=["k", "g"], min_size=1))
    check(A, f"{name} unchanged", lambda df=df, before=before: (df.equals(before), ""))
    if name in ("Time", "Duration", "Datetime tz", "Date", "Enum", "Decimal", "UInt64 big", "Int128"):
        ref = df.filter(pl.col("g") == "a")["k"][0]
        case(A, f"sensitive {name} reference_group", lambda df=df, ref=ref: df.fair.disparities(y_true="y", y_pred="p", sensitive_features="k", reference_group=ref), "ok")



# Object column
class O:  # noqa
    pass
try:
    dfo = pl.DataFrame({"g": pl.Series([O(), O()] * 20, dtype=pl.Object), "y": [0, 1] * 20, "p": [1, 0] * 20})
    case(A, "Object sensitive", lambda: dfo.fair.demographic_parity_difference(y_pred="p", sensitive_features="g"), "err")
    dfo2 = pl.DataFrame({"g": ["a", "b"] * 20, "y": pl.Series([O(), O()] * 20, dtype=pl.Object), "p": [1, 0] * 20})
    case(A, "Object y_true", lambda: dfo2.fair.equalized_odds_difference(y_true="y", y_pred="p", sensitive_features="g"), "err")
    case(A, "Object y_pred", lambda: dfo2.rename({"y": "q", "p": "y"}).rename({"q": "p"}).fair.demographic_parity_difference(y_pred="p", sensitive_features="g"), "err")
    case(A, "Object weights", lambda: dfo2.rename({"y": "w"}).with_columns(y=pl.col("p")).fair.demographic_parity_difference(y_pred="p", sensitive_features="g", sample_weight="w"), "err")
except Exception as e:
    case(A, "Object build", lambda e=e: (_ for _ in ()).throw(e))
