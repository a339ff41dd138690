"""Campaign 4, area 6: multiclass and ensemble/uncertainty criteria on bad inputs."""
# ruff: noqa
from __future__ import annotations
import math
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from harness import case, check

A = "multiclass_ensemble"
rng = np.random.default_rng(21)
N = 600
g = rng.choice(["a", "b"], N)
yt = rng.choice(["cat", "dog", "fox"], N)
yp = np.where(rng.random(N) < 0.6, yt, rng.choice(["cat", "dog", "fox"], N))
base = pl.DataFrame({"g": g, "y": yt, "p": yp})
KM = dict(y_true="y", y_pred="p", sensitive_features="g")


def mc_ref(y, p, g, classes):
    out = {}
    for c in classes:
        for k in np.unique(g):
            m = g == k
            yy, pp = (y[m] == c), (p[m] == c)
            out[(c, k)] = (int((yy & pp).sum()), int((~yy & pp).sum()), int((yy & ~pp).sum()), int((~yy & ~pp).sum()))
    return out


def mc_check(df, classes=None, name=""):
    def f():
        t = df.fair.multiclass_group_stats(**KM, classes=classes)
        y = np.array(df["y"].to_list(), dtype=object); p = np.array(df["p"].to_list(), dtype=object); gg = df["g"].to_numpy()
        keep = np.array([a is not None and b is not None for a, b in zip(y, p)])
        cl = classes if classes is not None else sorted({v for v in list(y) + list(p) if v is not None}, key=str)
        want = mc_ref(y[keep], p[keep], gg[keep], cl)
        got = {(r["class"], r["g"]): (r["tp"], r["fp"], r["fn"], r["tn"]) for r in t.iter_rows(named=True)}
        want = {k: v for k, v in want.items() if sum(v) > 0 or k in got}
        return got == want, {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
    check(A, f"multiclass counts {name}", f)


mc_check(base, name="plain")
# one class
one = base.with_columns(pl.lit("cat").alias("y"), pl.lit("cat").alias("p"))
mc_check(one, name="one class")
case(A, "one class criteria", lambda: one.fair.multiclass_criteria(**KM))
case(A, "one class summary", lambda: one.fair.multiclass_summary(**KM))
# class absent in y_pred
absent = base.with_columns(pl.when(pl.col("p") == "fox").then(pl.lit("cat")).otherwise(pl.col("p")).alias("p"))
mc_check(absent, name="fox never predicted")
case(A, "absent in y_pred summary", lambda: absent.fair.multiclass_summary(**KM))
# classes list with an absent class, and one not listed
mc_check(base, classes=["cat", "dog", "wolf"], name="classes with absent")
case(A, "classes empty list", lambda: base.fair.multiclass_group_stats(**KM, classes=[]), "err")
case(A, "classes wrong type", lambda: base.fair.multiclass_group_stats(**KM, classes=[1, 2]), "err")
case(A, "classes duplicates", lambda: base.fair.multiclass_group_stats(**KM, classes=["cat", "cat"]))
case(A, "classes a string", lambda: base.fair.multiclass_group_stats(**KM, classes="cat"), "err")
case(A, "classes None member", lambda: base.fair.multiclass_group_stats(**KM, classes=["cat", None]))
# null members
nul = base.with_columns(pl.when(pl.col("p") == "dog").then(None).otherwise(pl.col("p")).alias("p"),
                        pl.when(pl.arange(0, N) % 7 == 0).then(None).otherwise(pl.col("y")).alias("y"))
mc_check(nul, name="nulls")
check(A, "nulls n_null", lambda: (nul.fair.multiclass_group_stats(**KM).group_by("class").agg(pl.col("n_null").sum())["n_null"].to_list()[0] == int((nul["y"].is_null() | nul["p"].is_null()).sum()), ""))
# all null
alln = base.with_columns(pl.lit(None, dtype=pl.String).alias("p"))
case(A, "all-null y_pred", lambda: alln.fair.multiclass_summary(**KM))
# members of different dtypes
case(A, "y str, p int", lambda: base.with_columns(pl.col("p").replace_strict({"cat": 0, "dog": 1, "fox": 2})).fair.multiclass_group_stats(**KM), "err")
ints = base.with_columns(pl.col("y").replace_strict({"cat": 0, "dog": 1, "fox": 2}), pl.col("p").replace_strict({"cat": 0, "dog": 1, "fox": 2}))
mc_check(ints, name="int classes")
mc_check(ints.with_columns(pl.col("p").cast(pl.Int8)), name="int64 vs int8")
mc_check(ints.with_columns(pl.col("p").cast(pl.Float64)), name="int vs float")
case(A, "int vs bool", lambda: ints.with_columns(pl.col("p") > 0).fair.multiclass_group_stats(**KM))
mc_check(base.with_columns(pl.col("p").cast(pl.Categorical)), name="str vs categorical")
mc_check(base.with_columns(pl.col("y").cast(pl.Enum(["cat", "dog", "fox"])), pl.col("p").cast(pl.Enum(["cat", "dog", "fox"]))), name="enum")
case(A, "enum different categories", lambda: base.with_columns(pl.col("y").cast(pl.Enum(["cat", "dog", "fox"])), pl.col("p").cast(pl.Enum(["fox", "dog", "cat"]))).fair.multiclass_group_stats(**KM))
mc_check(base.with_columns(pl.col("y").cast(pl.Enum(["cat", "dog", "fox"])), pl.col("p").cast(pl.Enum(["fox", "dog", "cat"]))), name="enum different order")
case(A, "list classes", lambda: base.with_columns(pl.concat_list("y")).fair.multiclass_group_stats(**KM), "err")
case(A, "struct classes", lambda: base.with_columns(pl.struct("y")).fair.multiclass_group_stats(**KM), "err")
case(A, "float NaN class", lambda: ints.with_columns(pl.when(pl.col("p") == 2).then(float("nan")).otherwise(pl.col("p").cast(pl.Float64)).alias("p")).fair.multiclass_group_stats(**KM))
case(A, "classes int for str", lambda: base.fair.multiclass_by_group(**KM, classes=[0]), "err")
case(A, "lazy multiclass", lambda: base.lazy().fair.multiclass_summary(**KM).collect())
case(A, "multiclass criteria bad", lambda: base.fair.multiclass_criteria(**KM, criteria=["nope"]), "err")
case(A, "multiclass criteria score", lambda: base.fair.multiclass_criteria(**KM, criteria=["roc_auc_difference"]), "err")
case(A, "multiclass reference_group absent", lambda: base.fair.multiclass_criteria(**KM, reference_group="zz"), "err")
case(A, "multiclass by with class name", lambda: base.with_columns(**{"class": pl.lit(1)}).fair.multiclass_group_stats(**KM, by="class"), "err")
case(A, "multiclass sensitive named class", lambda: base.rename({"g": "class"}).fair.multiclass_group_stats(y_true="y", y_pred="p", sensitive_features="class"), "err")
case(A, "multiclass weights negative", lambda: base.with_columns(w=pl.lit(-1.0)).fair.multiclass_group_stats(**KM, sample_weight="w"), "err")
def mc_summary_check():
    t = base.fair.multiclass_criteria(**KM, criteria=["demographic_parity_difference"], method="between_groups")
    y, p = base["y"].to_numpy(), base["p"].to_numpy()
    want = {c: max((p[g == k] == c).mean() for k in "ab") - min((p[g == k] == c).mean() for k in "ab") for c in ("cat", "dog", "fox")}
    got = {r["class"]: r["value"] for r in t.iter_rows(named=True)}
    return all(abs(got[c] - want[c]) < 1e-12 for c in want), (got, want)
check(A, "multiclass dpd per class vs numpy", mc_summary_check)

# ---- ensembles ----
M = 4
probs = rng.random((N, M))
ens = pl.DataFrame({"g": g, **{f"m{j}": probs[:, j] for j in range(M)}})
members = [f"m{j}" for j in range(M)]
def ens_ref(pr, gg):
    labels = (pr >= 0.5)
    frac = labels.mean(axis=1)
    stab = np.maximum(frac, 1 - frac)  # (one definition) - compare rank order only
    std = pr.std(axis=1, ddof=0)
    return {k: (stab[gg == k].mean(), std[gg == k].mean(), pr.std(axis=1, ddof=1)[gg == k].mean()) for k in np.unique(gg)}
def ens_check():
    t = ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g")
    ref = ens_ref(probs, g)
    got = {r["g"]: (r["label_stability"], r["std"]) for r in t.iter_rows(named=True)}
    ok = all(abs(got[k][1] - ref[k][1]) < 1e-9 or abs(got[k][1] - ref[k][2]) < 1e-9 for k in ref)
    return ok, (got, ref)
check(A, "ensemble std vs numpy", ens_check)
case(A, "ensemble one member", lambda: ens.fair.ensemble_by_group(y_prob=["m0"], sensitive_features="g"), "err")
case(A, "ensemble one member str", lambda: ens.fair.ensemble_by_group(y_prob="m0", sensitive_features="g"), "err")
case(A, "ensemble zero members", lambda: ens.fair.ensemble_by_group(y_prob=[], sensitive_features="g"), "err")
case(A, "ensemble duplicate members", lambda: ens.fair.ensemble_by_group(y_prob=["m0", "m0"], sensitive_features="g"))
ensn = ens.with_columns(pl.when(pl.col("m1") > 0.8).then(None).otherwise(pl.col("m1")).alias("m1"))
def ens_null():
    t = ensn.fair.ensemble_stats(y_prob=members, sensitive_features="g")
    nn = int(ensn["m1"].is_null().sum())
    return int(t["n_null"].sum()) == nn and int(t["n"].sum()) == N - nn, (t["n_null"].sum(), nn, t["n"].sum())
check(A, "ensemble null member rows counted", ens_null)
case(A, "ensemble NaN member", lambda: ens.with_columns(pl.when(pl.col("m1") > 0.8).then(float("nan")).otherwise(pl.col("m1")).alias("m1")).fair.ensemble_by_group(y_prob=members, sensitive_features="g"), "err")
case(A, "ensemble out of range", lambda: ens.with_columns(pl.col("m1") * 2).fair.ensemble_by_group(y_prob=members, sensitive_features="g"), "err")
case(A, "ensemble string member", lambda: ens.with_columns(pl.col("m1").cast(pl.String)).fair.ensemble_by_group(y_prob=members, sensitive_features="g"), "err")
case(A, "ensemble bool member", lambda: ens.with_columns(pl.col("m1") > 0.5).fair.ensemble_by_group(y_prob=members, sensitive_features="g"))
case(A, "ensemble int member 0/1", lambda: ens.with_columns((pl.col("m1") > 0.5).cast(pl.Int64)).fair.ensemble_by_group(y_prob=members, sensitive_features="g"))
case(A, "ensemble float32 member", lambda: ens.with_columns(pl.col("m1").cast(pl.Float32)).fair.ensemble_by_group(y_prob=members, sensitive_features="g"), "ok")
case(A, "ensemble decimal member", lambda: ens.with_columns(pl.col("m1").cast(pl.Decimal(10, 4))).fair.ensemble_by_group(y_prob=members, sensitive_features="g"))
lst = ens.select("g", pl.concat_list(members).alias("L"))
def ens_list():
    a = ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g")
    b = lst.fair.ensemble_by_group(y_prob="L", sensitive_features="g")
    return a.drop("g").equals(b.drop("g")) or all(np.allclose(a[c].to_numpy(), b[c].to_numpy(), equal_nan=True) for c in a.columns if a[c].dtype.is_float()), ""
check(A, "ensemble list column = columns", ens_list)
lstr = lst.with_columns(pl.when(pl.col("g") == "a").then(pl.col("L").list.head(2)).otherwise(pl.col("L")).alias("L"))
case(A, "ensemble ragged list", lambda: lstr.fair.ensemble_by_group(y_prob="L", sensitive_features="g"), "err")
case(A, "ensemble list with null element", lambda: lst.with_columns(pl.col("L").list.eval(pl.when(pl.element() > 0.9).then(None).otherwise(pl.element()))).fair.ensemble_stats(y_prob="L", sensitive_features="g"))
case(A, "ensemble list null row", lambda: lst.with_columns(pl.when(pl.col("g") == "a").then(None).otherwise(pl.col("L")).alias("L")).fair.ensemble_stats(y_prob="L", sensitive_features="g"))
case(A, "ensemble list of length 1", lambda: lst.with_columns(pl.col("L").list.head(1)).fair.ensemble_by_group(y_prob="L", sensitive_features="g"), "err")
case(A, "ensemble empty lists", lambda: lst.with_columns(pl.col("L").list.head(0)).fair.ensemble_by_group(y_prob="L", sensitive_features="g"), "err")
case(A, "ensemble array column", lambda: lst.with_columns(pl.col("L").list.to_array(M)).fair.ensemble_by_group(y_prob="L", sensitive_features="g"), "ok")
case(A, "ensemble list of strings", lambda: lst.with_columns(pl.col("L").cast(pl.List(pl.String))).fair.ensemble_by_group(y_prob="L", sensitive_features="g"), "err")
case(A, "ensemble list + column", lambda: lst.with_columns(m=pl.lit(0.5)).fair.ensemble_by_group(y_prob=["L", "m"], sensitive_features="g"), "err")
case(A, "ensemble threshold 2", lambda: ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g", threshold=2), "err")
case(A, "ensemble threshold nan", lambda: ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g", threshold=float("nan")), "err")
case(A, "ensemble threshold str", lambda: ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g", threshold="0.5"), "err")
for crit in ("label_stability_difference", "std_ratio", "iqr_difference", "jitter_ratio", "aleatoric_uncertainty_difference", "epistemic_uncertainty_ratio", "overall_uncertainty_difference"):
    case(A, f"ensemble {crit}", lambda crit=crit: getattr(ens.fair, crit)(y_prob=members, sensitive_features="g"), "ok")
    case(A, f"ensemble {crit} one group", lambda crit=crit: getattr(ens.with_columns(g=pl.lit("a")).fair, crit)(y_prob=members, sensitive_features="g"))
    case(A, f"ensemble {crit} all-equal members", lambda crit=crit: getattr(ens.with_columns(**{m: pl.lit(0.5) for m in members}).fair, crit)(y_prob=members, sensitive_features="g"))
    case(A, f"ensemble {crit} members 0/1", lambda crit=crit: getattr(ens.with_columns(**{m: pl.lit(1.0) for m in members}).fair, crit)(y_prob=members, sensitive_features="g"))
    case(A, f"ensemble {crit} lazy by", lambda crit=crit: getattr(ens.with_columns(k=pl.col("g") == "a").lazy().fair, crit)(y_prob=members, sensitive_features="g", by="k").collect())
case(A, "ensemble disparities ref absent", lambda: ens.fair.ensemble_disparities(y_prob=members, sensitive_features="g", reference_group="zz"), "err")
case(A, "ensemble member is sensitive", lambda: ens.fair.ensemble_by_group(y_prob=members, sensitive_features="m0"))
case(A, "ensemble sensitive named std", lambda: ens.rename({"g": "std"}).fair.ensemble_by_group(y_prob=members, sensitive_features="std"), "err")
case(A, "ensemble weights", lambda: ens.with_columns(w=pl.lit(2.0)).fair.ensemble_by_group(y_prob=members, sensitive_features="g", sample_weight="w"), "ok")
def wcheck():
    a = ens.fair.ensemble_by_group(y_prob=members, sensitive_features="g")
    b = ens.with_columns(w=pl.lit(3.0)).fair.ensemble_by_group(y_prob=members, sensitive_features="g", sample_weight="w")
    cols = [c for c in a.columns if a[c].dtype.is_float()]
    return all(np.allclose(a[c].to_numpy(), b[c].to_numpy(), equal_nan=True) for c in cols), ""
check(A, "ensemble constant weights change nothing", wcheck)
