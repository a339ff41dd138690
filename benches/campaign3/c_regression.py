"""Campaign 3: regression profiles."""
from __future__ import annotations
import math, tempfile, pathlib, datetime as dt
import numpy as np, polars as pl
import polars_fair as pf
from harness import case, check

A = "regression"
TMP = pathlib.Path(tempfile.mkdtemp())
rng = np.random.default_rng(7)
n = 400
DF = pl.DataFrame({
    "g": rng.choice(["a", "b", "c"], n), "h": rng.choice(["x", "y"], n),
    "yt": rng.normal(10, 3, n), "yp": rng.normal(10, 3, n), "w": rng.uniform(0.5, 2, n),
    "m": rng.choice([1, 2], n), "i": rng.integers(0, 20, n),
    "d": pl.Series([dt.date(2026, 1 + (k % 2), 1) for k in range(n)], dtype=pl.Date),
})
K = dict(y_true="yt", y_pred="yp", sensitive_features="g", task="regression")

def ref_group(df, g, w=None):
    sub = df.filter(pl.col("g") == g)
    yt, yp = sub["yt"].to_numpy(), sub["yp"].to_numpy()
    ww = np.ones(len(yt)) if w is None else sub[w].to_numpy()
    W = ww.sum()
    mp = (ww * yp).sum() / W
    mt = (ww * yt).sum() / W
    rmse = math.sqrt((ww * (yp - yt) ** 2).sum() / W)
    mae = (ww * np.abs(yp - yt)).sum() / W
    sp = math.sqrt((ww * (yp - mp) ** 2).sum() / W)
    st = math.sqrt((ww * (yt - mt) ** 2).sum() / W)
    corr = (ww * (yp - mp) * (yt - mt)).sum() / W / (sp * st)
    return dict(n=W, mean_prediction=mp, mean_true=mt, rmse=rmse, mae=mae, std_prediction=sp, correlation=corr)

def same(a, b):
    from polars.testing import assert_frame_equal
    assert_frame_equal(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return True

def close(a, b, tol=1e-9):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=tol, abs_tol=1e-12)

# ---- numbers against numpy -------------------------------------------------------------
for wcol in (None, "w"):
    kw = dict(K, sample_weight=wcol) if wcol else K
    for kind in ("eager", "lazy"):
        src = DF if kind == "eager" else DF.lazy()
        def mk(src=src, kw=kw):
            return src.fair.profile(**kw)
        p = mk()
        bg = p.regression_by_group()
        for g in ("a", "b", "c"):
            r = ref_group(DF, g, wcol)
            row = bg.filter(pl.col("g") == g).row(0, named=True)
            for m in ("mean_prediction", "mean_true", "rmse", "mae", "std_prediction", "correlation"):
                check(A, f"by_group {m} {g} w={wcol} {kind}", lambda row=row, m=m, r=r: (close(row[m], r[m]), (row[m], r[m])))
        refs = {g: ref_group(DF, g, wcol) for g in "abc"}
        for crit, meas, k in [("rmse_ratio", "rmse", "ratio"), ("mae_difference", "mae", "difference"),
                              ("mae_ratio", "mae", "ratio"), ("rmse_difference", "rmse", "difference"),
                              ("average_score_difference", "mean_prediction", "difference"),
                              ("average_score_ratio", "mean_prediction", "ratio"),
                              ("correlation_difference", "correlation", "difference")]:
            vals = [refs[g][meas] for g in "abc"]
            want = max(vals) - min(vals) if k == "difference" else min(vals) / max(vals)
            check(A, f"criterion {crit} w={wcol} {kind}", lambda crit=crit, want=want, p=p: (close(p.criterion(crit), want), (p.criterion(crit), want)))
        # to_reference
        for crit, meas in [("mae_difference", "mae"), ("rmse_ratio", "rmse")]:
            vals = {g: refs[g][meas] for g in "abc"}
            if crit.endswith("difference"):
                cand = {g: vals[g] - vals["a"] for g in "bc"}
            else:
                cand = {g: vals[g] / vals["a"] for g in "bc"}
            ideal = 0 if crit.endswith("difference") else 1
            far = max(cand.values(), key=lambda v: abs(math.log(v)) if ideal else abs(v))
            check(A, f"criterion {crit} ref=a w={wcol} {kind}", lambda crit=crit, far=far, p=p: (close(p.criterion(crit, reference_group="a"), far), (p.criterion(crit, reference_group="a"), far)))
        # zscore: a vs b only two groups
        sub = DF.filter(pl.col("g").is_in(["a", "b"]))
        p2 = (sub if kind == "eager" else sub.lazy()).fair.profile(**kw)
        ra, rb = ref_group(sub, "a", wcol), ref_group(sub, "b", wcol)
        na, nb = ra["n"], rb["n"]
        if wcol is None:
            pooled = math.sqrt(((na - 1) * ra["std_prediction"] ** 2 + (nb - 1) * rb["std_prediction"] ** 2) / (na + nb - 2))
            z = (rb["mean_prediction"] - ra["mean_prediction"]) / pooled
            check(A, f"zscore ref=a {kind}", lambda p2=p2, z=z: (close(p2.criterion("zscore_difference", reference_group="a"), z), (p2.criterion("zscore_difference", reference_group="a"), z)))
        # profile vs rows equality
        for meth in ("regression_stats", "regression_by_group"):
            check(A, f"{meth} == rows w={wcol} {kind}", lambda meth=meth, p=p, kw=kw: (
                same(getattr(p, meth)(), getattr(DF.fair, meth)(**{k: v for k, v in kw.items() if k != "task"})), ""))
        check(A, f"rows w={wcol} {kind}", lambda p=p: (p.rows == n, p.rows))

# by keys and expression by
for by in ("m", ["m", "h"], pl.col("d").dt.month().alias("mon"), [pl.col("i") // 10]):
    case(A, f"profile by={by}", lambda by=by: DF.fair.profile(**K, by=by).regression_by_group().height, "ok")
p_by = DF.fair.profile(**K, by="m")
check(A, "by=m merged over halves equals whole", lambda: (
    (DF.head(150).fair.profile(**K, by="m") + DF.tail(250).fair.profile(**K, by="m")).regression_stats()
    .select(pl.all().exclude("^sum.*$")).equals(p_by.regression_stats().select(pl.all().exclude("^sum.*$"))), ""))
check(A, "merge sums close", lambda: (np.allclose(
    (DF.head(150).fair.profile(**K, by="m") + DF.tail(250).fair.profile(**K, by="m")).regression_stats().select(pl.selectors.float()).to_numpy(),
    p_by.regression_stats().select(pl.selectors.float()).to_numpy(), rtol=1e-12), ""))
check(A, "criterion with by returns DataFrame", lambda: (isinstance(p_by.criterion("mae_ratio"), pl.DataFrame), type(p_by.criterion("mae_ratio"))))

# ---- bad inputs to the regression profile ---------------------------------------------
bad_kw = {
    "task=Regression": dict(K, task="Regression"),
    "task=None": dict(K, task=None),
    "task=1": dict(K, task=1),
    "y_prob given": dict(K, y_prob="yp"),
    "pos_label=0": dict(K, pos_label=0),
    "pos_label=1.0": dict(K, pos_label=1.0),
    "pos_label=True": dict(K, pos_label=True),
    "n_bins=5": dict(K, n_bins=5),
    "score_bins=10": dict(K, score_bins=10),
    "exact_scores=True": dict(K, exact_scores=True),
    "missing y_true": dict(K, y_true="nope"),
    "missing y_pred": dict(K, y_pred="nope"),
    "missing sensitive": dict(K, sensitive_features="nope"),
    "missing weight": dict(K, sample_weight="nope"),
    "missing by": dict(K, by="nope"),
    "string y_pred": dict(K, y_pred="g"),
    "string y_true": dict(K, y_true="h"),
    "date y_pred": dict(K, y_pred="d"),
    "string weight": dict(K, sample_weight="g"),
    "sensitive=[]": dict(K, sensitive_features=[]),
    "sensitive=None": dict(K, sensitive_features=None),
    "sensitive dup": dict(K, sensitive_features=["g", "g"]),
    "by same as sensitive": dict(K, by="g"),
    "by = y_pred": dict(K, by="yp"),
    "y_true is y_pred": dict(K, y_true="yp"),
    "weight = y_pred": dict(K, sample_weight="yp"),
    "y_pred expr": dict(K, y_pred=pl.col("yp") * 2),
    "y_pred expr bool": dict(K, y_pred=pl.col("yp") > 10),
    "y_pred expr str": dict(K, y_pred=pl.col("g").str.to_uppercase()),
    "y_pred int": dict(K, y_pred="i"),
    "by expr clash": dict(K, by=pl.col("yp").round(0)),
    "by int": dict(K, by=3),
    "sensitive int": dict(K, sensitive_features=3),
}
for name, kw in bad_kw.items():
    case(A, f"bad kw {name}", lambda kw=kw: DF.fair.profile(**kw))
    case(A, f"bad kw lazy {name}", lambda kw=kw: DF.lazy().fair.profile(**kw))
    case(A, f"bad kw pf.profile {name}", lambda kw=kw: pf.profile(DF, **kw))

# bad values
def with_vals(col, vals):
    d = DF.head(len(vals)).with_columns(pl.Series(col, vals))
    return d
for col in ("yp", "yt"):
    case(A, f"NaN in {col}", lambda col=col: with_vals(col, [float("nan"), 1.0, 2.0, 3.0]).fair.profile(**K).regression_by_group(), "err")
    case(A, f"inf in {col}", lambda col=col: with_vals(col, [float("inf"), 1.0, 2.0, 3.0]).fair.profile(**K).regression_by_group(), "err")
    case(A, f"-inf in {col}", lambda col=col: with_vals(col, [-float("inf"), 1.0, 2.0, 3.0]).fair.profile(**K).regression_by_group(), "err")
    case(A, f"null in {col}", lambda col=col: with_vals(col, [None, 1.0, 2.0, 3.0]).fair.profile(**K).regression_stats()["n_null"].sum())
    case(A, f"all null {col}", lambda col=col: with_vals(col, [None, None, None, None]).fair.profile(**K).regression_by_group())
    case(A, f"huge {col}", lambda col=col: with_vals(col, [1e200, 1.0, 2.0, 3.0]).fair.profile(**K).regression_by_group(), "any")
case(A, "negative weight", lambda: with_vals("w", [-1.0, 1.0, 1.0, 1.0]).fair.profile(**K, sample_weight="w"), "err")
case(A, "NaN weight", lambda: with_vals("w", [float("nan"), 1.0, 1.0, 1.0]).fair.profile(**K, sample_weight="w"), "err")
case(A, "inf weight", lambda: with_vals("w", [float("inf"), 1.0, 1.0, 1.0]).fair.profile(**K, sample_weight="w"), "err")
case(A, "zero weights all", lambda: DF.with_columns(w=0.0).fair.profile(**K, sample_weight="w").regression_by_group())
case(A, "null weight", lambda: with_vals("w", [None, 1.0, 1.0, 1.0]).fair.profile(**K, sample_weight="w").regression_stats())
case(A, "empty frame", lambda: DF.head(0).fair.profile(**K))
case(A, "empty lazy frame", lambda: DF.lazy().head(0).fair.profile(**K))
case(A, "one row", lambda: DF.head(1).fair.profile(**K).regression_by_group())
case(A, "one row criterion", lambda: DF.head(1).fair.profile(**K).criterion("mae_ratio"))
case(A, "null group", lambda: DF.with_columns(g=pl.when(pl.col("i") < 3).then(None).otherwise(pl.col("g"))).fair.profile(**K).regression_by_group()["g"].to_list())
case(A, "Enum group", lambda: DF.with_columns(pl.col("g").cast(pl.Enum(["c", "b", "a"]))).fair.profile(**K).regression_by_group()["g"].to_list())
case(A, "Categorical group", lambda: DF.with_columns(pl.col("g").cast(pl.Categorical)).fair.profile(**K).regression_by_group()["g"].to_list())
case(A, "int group", lambda: DF.fair.profile(**dict(K, sensitive_features="m")).regression_by_group()["m"].to_list())
case(A, "bool group", lambda: DF.with_columns(b=pl.col("m") == 1).fair.profile(**dict(K, sensitive_features="b")).regression_by_group()["b"].to_list())
case(A, "Decimal y_pred", lambda: DF.with_columns(pl.col("yp").cast(pl.Decimal(10, 3))).fair.profile(**K).regression_by_group()["mae"].to_list())
case(A, "Float32 y_pred", lambda: DF.with_columns(pl.col("yp").cast(pl.Float32)).fair.profile(**K).regression_by_group()["mae"].to_list())
case(A, "UInt8 y_true", lambda: DF.with_columns(pl.col("i").cast(pl.UInt8).alias("yt")).fair.profile(**K).regression_by_group()["mae"].to_list())
case(A, "bool y_true", lambda: DF.with_columns((pl.col("i") > 5).alias("yt")).fair.profile(**K).regression_by_group()["mae"].to_list())
case(A, "Int64 weight", lambda: DF.with_columns(w=pl.col("i")).fair.profile(**K, sample_weight="w").regression_by_group()["mae"].to_list())
case(A, "column named table", lambda: DF.rename({"g": "table"}).fair.profile(**dict(K, sensitive_features="table")).regression_by_group().columns)
case(A, "column named n", lambda: DF.rename({"g": "n"}).fair.profile(**dict(K, sensitive_features="n")).regression_by_group().columns)
case(A, "column named sum_pred", lambda: DF.rename({"g": "sum_pred"}).fair.profile(**dict(K, sensitive_features="sum_pred")).regression_by_group().columns)
case(A, "y_pred named n", lambda: DF.rename({"yp": "n"}).fair.profile(**dict(K, y_pred="n")).regression_by_group().columns)

# not mutating the user's frame
orig = DF.clone()
DF.fair.profile(**K, by=pl.col("i") // 10)
check(A, "frame not mutated", lambda: (DF.equals(orig) and DF.columns == orig.columns, ""))

# ---- methods on a regression profile ---------------------------------------------------
P = DF.fair.profile(**K)
PW = DF.fair.profile(**K, sample_weight="w")
PC = DF.with_columns(yb=(pl.col("yt") > 10).cast(pl.Int64), pb=(pl.col("yp") > 10).cast(pl.Int64)).fair.profile(y_true="yb", y_pred="pb", sensitive_features="g")
for name in ("report", "summary", "by_group", "disparities", "auc_error_bound"):
    case(A, f"reg profile .{name}()", lambda name=name: getattr(P, name)(), "err")
case(A, "reg compare", lambda: P.compare(P), "err")
case(A, "reg trend", lambda: DF.fair.profile(**K, by="m").trend("mae_ratio", time="m"), "err")
case(A, "reg trend dpd", lambda: DF.fair.profile(**K, by="m").trend("demographic_parity_difference", time="m"), "err")
case(A, "reg trend_chart", lambda: DF.fair.profile(**K, by="m").trend_chart("mae_ratio", time="m"), "err")
case(A, "cls compare reg", lambda: PC.compare(P), "err")
case(A, "reg compare cls", lambda: P.compare(PC), "err")
case(A, "cls regression_stats", lambda: PC.regression_stats(), "err")
case(A, "cls regression_by_group", lambda: PC.regression_by_group(), "err")
case(A, "cls criterion mae_ratio", lambda: PC.criterion("mae_ratio"), "err")
case(A, "cls slices mae", lambda: PC.slices(candidates=["g"], metric="mae"), "err")
for crit in ("disparate_impact_quantile", "statistical_parity_quantile", "max_statistical_parity",
             "statistical_parity_auc", "no_disparate_impact_level", "demographic_parity_difference",
             "equalized_odds_difference", "roc_auc_difference", "nonsense", "mae", "", 3, None, "zscore_difference"):
    case(A, f"reg criterion {crit!r}", lambda crit=crit: P.criterion(crit))
for opts in (dict(method="to_overall"), dict(method="to_reference"), dict(method="bad"), dict(reference_group="zz"),
             dict(reference_group="a"), dict(reference_group=("a",)), dict(reference_group={"g": "a"}), dict(reference_group="rest"),
             dict(reference_group="overall"), dict(reference_group="min"), dict(zero_division=0.0), dict(zero_division="x"),
             dict(y_true="yt"), dict(y_true="other"), dict(y_pred="yp"), dict(sensitive_features="g"), dict(sensitive_features="h"),
             dict(by="m"), dict(sample_weight="w"), dict(agg="mean"), dict(min_group_size=5), dict(pos_label=1)):
    case(A, f"reg criterion mae_ratio {opts}", lambda opts=opts: P.criterion("mae_ratio", **opts))
    case(A, f"reg disparities {opts}", lambda opts=opts: P.regression_disparities(**opts).height)
for opts in (dict(metrics=["rmse"]), dict(metrics=["bad"]), dict(metrics="mae"), dict(metrics=[]), dict(metrics=["selection_rate"])):
    case(A, f"reg disparities {opts}", lambda opts=opts: P.regression_disparities(**opts).height)
case(A, "reg stats with sensitive h", lambda: P.regression_stats(sensitive_features="h"))
case(A, "reg by_group zero_division", lambda: P.regression_by_group(zero_division=0.0).height)
# slices
PS = DF.fair.profile(**dict(K, sensitive_features=["g", "h"]))
for metric in ("mae", "mean_prediction", "mean_true", "rmse", "false_positive_rate", "selection_rate", "bad", "correlation", "std_prediction"):
    case(A, f"reg slices metric={metric}", lambda metric=metric: PS.slices(candidates=["g", "h"], metric=metric, min_size=5).height)
case(A, "reg slices numeric candidate", lambda: DF.fair.profile(**dict(K, sensitive_features=["g", "m"])).slices(candidates=["m"], metric="mae"), "err")
case(A, "reg slices missing candidate", lambda: PS.slices(candidates=["zz"], metric="mae"), "err")
case(A, "reg slices by", lambda: PS.slices(candidates=["g"], metric="mae", by="m"), "err")
case(A, "reg slices weighted", lambda: DF.fair.profile(**dict(K, sensitive_features=["g", "h"], sample_weight="w")).slices(candidates=["g", "h"], metric="mae", min_size=5).height)
# slices equal to the rows
for metric in ("mae", "mean_prediction", "mean_true"):
    check(A, f"reg slices == rows {metric}", lambda metric=metric: (
        same(PS.slices(candidates=["g", "h"], metric=metric, min_size=5),
            DF.fair.slices(y_true="yt", y_pred="yp", candidates=["g", "h"], metric=metric, min_size=5)), ""))
# slices mae numbers: slice g=a vs rest from numpy
def slice_check():
    t = PS.slices(candidates=["g"], metric="mae", min_size=5, max_depth=1)
    row = t.filter(pl.col("slice") == "g=a").row(0, named=True)
    m = DF["g"].to_numpy() == "a"
    e = np.abs(DF["yp"].to_numpy() - DF["yt"].to_numpy())
    return close(row["value"], e[m].mean()) and close(row["rest_value"], e[~m].mean()), (row, e[m].mean(), e[~m].mean())
check(A, "reg slices mae values", slice_check)

# ---- write/read ----------------------------------------------------------------------
for nm, prof in (("plain", P), ("weighted", PW), ("by", p_by), ("by expr", DF.fair.profile(**K, by=pl.col("d").dt.month().alias("mon")))):
    path = TMP / f"reg_{nm.replace(' ', '_')}.parquet"
    prof.write_parquet(path)
    check(A, f"roundtrip {nm}", lambda path=path, prof=prof: (pf.read_profile(path) == prof, ""))
    check(A, f"roundtrip task {nm}", lambda path=path: (pf.read_profile(path).task == "regression", ""))
    check(A, f"roundtrip criterion {nm}", lambda path=path, prof=prof: (
        str(pf.read_profile(path).criterion("mae_ratio")) == str(prof.criterion("mae_ratio")), ""))
# merge two files of regression by glob
(TMP / "g1").mkdir()
DF.head(100).fair.profile(**K).write_parquet(TMP / "g1" / "a.parquet")
DF.tail(300).fair.profile(**K).write_parquet(TMP / "g1" / "b.parquet")
check(A, "glob merge equals whole", lambda: (np.allclose(pf.read_profile(str(TMP / "g1" / "*.parquet")).regression_stats().select(pl.selectors.numeric()).to_numpy(),
                                                          P.regression_stats().select(pl.selectors.numeric()).to_numpy(), rtol=1e-12), ""))
check(A, "glob merge rows", lambda: (pf.read_profile(str(TMP / "g1" / "*.parquet")).rows == 400, ""))
# mixed regression + classification
PC.write_parquet(TMP / "g1" / "c.parquet")
case(A, "read mixed reg+cls glob", lambda: pf.read_profile(str(TMP / "g1" / "*.parquet")), "err")
case(A, "merge reg+cls", lambda: P + PC, "err")
case(A, "merge cls+reg", lambda: PC + P, "err")
case(A, "merge reg weighted + unweighted", lambda: P + PW, "err")
case(A, "merge reg by vs none", lambda: P + p_by, "err")
case(A, "merge reg diff sensitive", lambda: P + DF.fair.profile(**dict(K, sensitive_features="h")), "err")
case(A, "merge reg key dtype", lambda: DF.fair.profile(**dict(K, sensitive_features="m")) + DF.with_columns(pl.col("m").cast(pl.Int32)).fair.profile(**dict(K, sensitive_features="m")), "err")
case(A, "merge reg y dtype int vs float", lambda: DF.with_columns(yp=pl.col("i")).fair.profile(**K) + DF.with_columns(yp=pl.col("i").cast(pl.Float64)).fair.profile(**K))
case(A, "merge reg Float32 vs Float64", lambda: (DF.with_columns(pl.col("yp").cast(pl.Float32)).fair.profile(**K) + P).regression_stats().schema)
case(A, "merge reg y_pred expr vs name", lambda: DF.fair.profile(**dict(K, y_pred=pl.col("yp"))) + P)
case(A, "sum of reg", lambda: sum([DF.head(100).fair.profile(**K), DF.tail(300).fair.profile(**K)]).rows)
case(A, "merge same twice", lambda: P + P, "err")

# ---- regression_disparities against pooled references (numpy) ---------------------------
def pooled(df, mask, w=None):
    yt, yp = df["yt"].to_numpy()[mask], df["yp"].to_numpy()[mask]
    ww = np.ones(len(yt)) if w is None else df[w].to_numpy()[mask]
    W = ww.sum(); mp = (ww * yp).sum() / W; mt = (ww * yt).sum() / W
    sp = math.sqrt((ww * (yp - mp) ** 2).sum() / W); st = math.sqrt((ww * (yt - mt) ** 2).sum() / W)
    return dict(mean_prediction=mp, mean_true=mt, rmse=math.sqrt((ww * (yp - yt) ** 2).sum() / W),
                mae=(ww * np.abs(yp - yt)).sum() / W, std_prediction=sp,
                correlation=(ww * (yp - mp) * (yt - mt)).sum() / W / (sp * st))
gcol = DF["g"].to_numpy()
for wcol in (None, "w"):
    prof = PW if wcol else P
    for ref in ("overall", "rest", "largest", "min", "b"):
        case(A, f"disparities ref={ref} w={wcol} runs", lambda prof=prof, ref=ref: prof.regression_disparities(reference_group=ref).height)
        try:
            t = prof.regression_disparities(reference_group=ref)
        except Exception:
            continue
        for g in "abc":
            for m in ("mean_prediction", "rmse", "mae", "correlation", "std_prediction"):
                row = t.filter((pl.col("g") == g) & (pl.col("metric") == m))
                if row.height == 0:
                    continue
                row = row.row(0, named=True)
                mine = pooled(DF, gcol == g, wcol)[m]
                if ref == "overall":
                    rv = pooled(DF, np.ones(len(gcol), bool), wcol)[m]
                elif ref == "rest":
                    rv = pooled(DF, gcol != g, wcol)[m]
                elif ref == "largest":
                    sizes = {x: (DF["w"].to_numpy()[gcol == x].sum() if wcol else (gcol == x).sum()) for x in "abc"}
                    rv = pooled(DF, gcol == max(sizes, key=sizes.get), wcol)[m]
                elif ref == "min":
                    rv = min(pooled(DF, gcol == x, wcol)[m] for x in "abc")
                else:
                    rv = pooled(DF, gcol == ref, wcol)[m]
                check(A, f"disparities ref={ref} w={wcol} {g} {m}", lambda row=row, mine=mine, rv=rv: (
                    close(row["value"], mine) and close(row["reference_value"], rv) and close(row["difference"], mine - rv), (row, mine, rv)))
