"""Campaign 3: compare and trend (Python)."""
from __future__ import annotations
import math, datetime as dt, tempfile, pathlib
import numpy as np, polars as pl
import polars_fair as pf
import warnings; warnings.simplefilter("ignore")
from harness import case, check

A = "compare_trend"
TMP = pathlib.Path(tempfile.mkdtemp())
C = pl.read_csv("/work/shared/data/compas-scores-two-years.csv", infer_schema_length=10000).select(
    "race", "sex", "age_cat", "two_year_recid", "decile_score",
    pl.col("compas_screening_date").str.to_date().alias("date"))
C = C.with_columns(
    (pl.col("decile_score") >= 5).cast(pl.Int64).alias("pred"), (pl.col("decile_score") / 10).alias("score"),
    pl.col("date").dt.truncate("1q").alias("quarter"), pl.col("date").dt.year().alias("year"))
K = dict(y_true="two_year_recid", y_pred="pred", sensitive_features="race")
KS = dict(K, y_prob="score")
P = C.fair.profile(**KS, by="quarter")
P0 = C.fair.profile(**KS)
PY = C.fair.profile(**KS, by=["year", "quarter"])

# ---- trend: numbers vs independent computation ----------------------------------------
def dpd_by_quarter(df, min_size=30):
    out = {}
    for q in sorted(df["quarter"].unique().to_list()):
        sub = df.filter(pl.col("quarter") == q)
        rates = []
        for g in sub["race"].unique().to_list():
            s = sub.filter(pl.col("race") == g)
            if s.height >= min_size:
                rates.append(s["pred"].mean())
        out[q] = (max(rates) - min(rates)) if len(rates) >= 2 else None
    return out
want = dpd_by_quarter(C)
T = P.trend("demographic_parity_difference", time="quarter")
for row in T.iter_rows(named=True):
    w = want[row["quarter"]]
    check(A, f"trend dpd value {row['quarter']}", lambda row=row, w=w: (
        (w is None and row["value"] is None) or (w is not None and row["value"] is not None and math.isclose(row["value"], w, rel_tol=1e-12)), (row["value"], w)))
check(A, "trend sorted by time", lambda: (T["quarter"].is_sorted(), ""))
check(A, "trend first window unchanged", lambda: (T["change_verdict"][0] == "unchanged", T["change_verdict"][0]))
check(A, "trend baseline col constant", lambda: (T["baseline"].n_unique() == 1, T["baseline"].unique()))
check(A, "trend alert matches", lambda: ((T["alert"] == ((T["verdict"] == "unfair") | (T["change_verdict"] == "worse")).fill_null(False)).all(), ""))
check(A, "first_alert only one", lambda: (T["first_alert"].sum() <= 1, T["first_alert"].sum()))
# change equals value - baseline
check(A, "trend change = value-baseline", lambda: (np.allclose((T["value"] - T["baseline"]).to_numpy()[1:], T["change"].to_numpy()[1:], equal_nan=True), ""))
# series
TY = PY.trend("demographic_parity_difference", time="quarter")
check(A, "trend series: first_alert per series <=1", lambda: (TY.group_by("year").agg(pl.col("first_alert").sum()).get_column("first_alert").max() <= 1, ""))
check(A, "trend series: baseline per series is its first window", lambda: (
    TY.group_by("year").agg((pl.col("baseline_window") == pl.col("quarter").filter(pl.col("value").is_not_null() & pl.col("ci_low").is_not_null()).min()).all()).get_column("baseline_window").all(), TY.select("year", "quarter", "baseline_window")))
# explicit baseline
qs = sorted(C["quarter"].unique().to_list())
for b in (qs[2], str(qs[2]), qs[2].isoformat(), "2013-02-30", "nope", 3, None, dt.datetime(2013, 4, 1), [qs[0]]):
    case(A, f"trend baseline={b!r}", lambda b=b: P.trend("demographic_parity_difference", time="quarter", baseline=b).select("baseline_window").unique().to_series().to_list())
# bad criterion/time
for crit in ("demographic_parity", "dpd", "", None, 5, "mae_ratio", "roc_auc_difference", "cohen_d", "two_sd_rule", "four_fifths_rule",
             "equalized_odds_difference", "balance_for_positive_class_difference", "expected_calibration_error_difference",
             "theil_index", "generalized_entropy_index", "abroca", "selection_rate_difference", "true_positive_rate_ratio",
             "label_stability_difference", "zscore_difference", "disparate_impact_quantile", ["demographic_parity_difference"]):
    case(A, f"trend criterion={crit!r}", lambda crit=crit: P.trend(crit, time="quarter").height)
for time in ("date", "race", "", None, 3, "Quarter", ["quarter"]):
    case(A, f"trend time={time!r}", lambda time=time: P.trend("demographic_parity_difference", time=time).height)
case(A, "trend on no-by profile", lambda: P0.trend("demographic_parity_difference", time="quarter"), "err")
for tol in (-1, float("nan"), float("inf"), "0.1", True, 0, 1e9):
    case(A, f"trend tolerance={tol!r}", lambda tol=tol: P.trend("demographic_parity_difference", time="quarter", tolerance=tol)["change_verdict"].to_list()[:3])
for opts in (dict(criteria=["accuracy_difference"]), dict(min_group_size=0), dict(min_group_size=-1), dict(confidence_level=1.5),
             dict(confidence_level=0.5), dict(reference_group="Caucasian"), dict(reference_group="Nope"), dict(verdict_rule="point"),
             dict(slices=["race"]), dict(difference_band=0.5), dict(difference_band=(0.0, 0.05)), dict(y_pred="other"), dict(by="year"), dict(foo=1)):
    case(A, f"trend options {opts}", lambda opts=opts: P.trend("demographic_parity_difference", time="quarter", **opts).select("value", "verdict", "change_verdict").row(0))
# trend with a null window
Cn = C.with_columns(quarter=pl.when(pl.col("decile_score") == 1).then(None).otherwise(pl.col("quarter")))
Pn = Cn.fair.profile(**K, by="quarter")
case(A, "trend with a null window", lambda: Pn.trend("demographic_parity_difference", time="quarter").select("quarter", "value", "change_verdict").tail(2))
# trend where a window has one group only
Cw = pl.concat([C.filter(pl.col("year") == 2013), C.filter(pl.col("year") == 2014, pl.col("race") == "Caucasian")])
Pw = Cw.fair.profile(**K, by="year")
case(A, "trend window with one group", lambda: Pw.trend("demographic_parity_difference", time="year").select("year", "value", "verdict", "change_verdict").rows())
case(A, "trend window with one group baseline=2014", lambda: Pw.trend("demographic_parity_difference", time="year", baseline=2014).select("year", "value", "verdict", "change_verdict").rows())
# string and integer time keys; datetime with tz
for tkey, expr in (("ys", pl.col("year").cast(pl.String)), ("yi", pl.col("year").cast(pl.Int16)), ("dtz", pl.col("date").cast(pl.Datetime("us", "Europe/Paris")).dt.truncate("1y")),
                   ("cat", pl.col("year").cast(pl.String).cast(pl.Categorical)), ("enum", pl.col("year").cast(pl.String).cast(pl.Enum(["2014", "2013"])))):
    prof = C.with_columns(expr.alias(tkey)).fair.profile(**K, by=tkey)
    case(A, f"trend time dtype {tkey}", lambda prof=prof, tkey=tkey: prof.trend("demographic_parity_difference", time=tkey).select(tkey, "value", "baseline_window").rows())
    base = {"ys": "2014", "yi": 2014, "dtz": "2014-01-01 00:00:00+01:00", "cat": "2014", "enum": "2014"}[tkey]
    case(A, f"trend time dtype {tkey} baseline", lambda prof=prof, tkey=tkey, base=base: prof.trend("demographic_parity_difference", time=tkey, baseline=base).select(tkey, "change_verdict").rows())
# trend_chart
case(A, "trend_chart", lambda: type(P.trend_chart("demographic_parity_difference", time="quarter")).__name__)
case(A, "trend_chart series", lambda: type(PY.trend_chart("demographic_parity_difference", time="quarter")).__name__)
case(A, "trend_chart null window", lambda: type(Pn.trend_chart("demographic_parity_difference", time="quarter")).__name__)
case(A, "trend_chart bad criterion", lambda: P.trend_chart("nope", time="quarter"), "err")
case(A, "trend_chart bad time", lambda: P.trend_chart("demographic_parity_difference", time="nope"), "err")
case(A, "trend_chart all undefined", lambda: type(Pw.trend_chart("demographic_parity_difference", time="year", min_group_size=10**6)).__name__)
case(A, "trend_chart to_json", lambda: len(P.trend_chart("demographic_parity_difference", time="quarter").to_json()))
case(A, "trend_chart tz", lambda: len(C.with_columns(pl.col("date").cast(pl.Datetime("us", "UTC")).dt.truncate("1y").alias("t")).fair.profile(**K, by="t").trend_chart("demographic_parity_difference", time="t").to_json()))

# ---- compare ------------------------------------------------------------------------
half1 = C.filter(pl.col("year") == 2013)
half2 = C.filter(pl.col("year") == 2014)
B = half1.fair.profile(**K)
Cd = half2.fair.profile(**K)
cmp = Cd.compare(B)
check(A, "compare self all unchanged", lambda: ((B.compare(B)["verdict"] == "unchanged").all() or B.compare(B)["baseline"].is_null().any(), B.compare(B).select("criterion", "verdict").rows()))
check(A, "compare values match summaries", lambda: (
    np.allclose(cmp.sort("criterion")["candidate"].to_numpy(), Cd.summary().sort("criterion")["value"].to_numpy(), equal_nan=True), ""))
check(A, "compare change = cand-base", lambda: (np.allclose((cmp["candidate"] - cmp["baseline"]).to_numpy(), cmp["change"].to_numpy(), equal_nan=True), ""))
# verdict from definition for dpd
def verdict_check():
    r = cmp.filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    sb = B.summary().filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    sc = Cd.summary().filter(pl.col("criterion") == "demographic_parity_difference").row(0, named=True)
    z = 1.959963984540054
    se = math.hypot((sb["ci_high"] - sb["ci_low"]) / (2 * z), (sc["ci_high"] - sc["ci_low"]) / (2 * z))
    d = abs(sc["value"]) - abs(sb["value"])
    lo, hi = d - z * se, d + z * se
    v = "worse" if d > 0.02 and lo > 0 else "better" if d < -0.02 and hi < 0 else "unchanged" if lo >= -0.02 and hi <= 0.02 else "inconclusive"
    return r["verdict"] == v and math.isclose(r["distance_ci_low"], lo, rel_tol=1e-9), (r, v, lo, hi)
check(A, "compare dpd verdict from definition", verdict_check)
def ratio_check():
    name = "disparate_impact_ratio"
    r = cmp.filter(pl.col("criterion") == name)
    if r.height == 0:
        return True, "no row"
    r = r.row(0, named=True)
    sb = B.summary().filter(pl.col("criterion") == name).row(0, named=True)
    sc = Cd.summary().filter(pl.col("criterion") == name).row(0, named=True)
    z = 1.959963984540054
    se = math.hypot((math.log(sb["ci_high"]) - math.log(sb["ci_low"])) / (2 * z), (math.log(sc["ci_high"]) - math.log(sc["ci_low"])) / (2 * z))
    d = abs(math.log(sc["value"])) - abs(math.log(sb["value"]))
    return math.isclose(r["distance_change"], d, rel_tol=1e-9) and math.isclose(r["distance_ci_high"], d + z * se, rel_tol=1e-9), (r, d)
check(A, "compare ratio distance on log", ratio_check)
# compare bad inputs
for base in (None, 3, "x", B.report(), B.tables, C):
    case(A, f"profile.compare baseline={type(base).__name__}", lambda base=base: Cd.compare(base), "err")
for tol in (-0.1, float("nan"), "0.1", None, True, float("inf")):
    case(A, f"profile.compare tolerance={tol!r}", lambda tol=tol: Cd.compare(B, tolerance=tol), "err")
case(A, "compare by vs no by", lambda: P.compare(P0), "err")
case(A, "compare no by vs by", lambda: P0.compare(P), "err")
case(A, "compare different by", lambda: P.compare(C.fair.profile(**KS, by="year")), "err")
case(A, "compare weighted vs not", lambda: Cd.compare(half1.with_columns(w=1.0).fair.profile(**K, sample_weight="w")), "err")
case(A, "compare different sensitive", lambda: Cd.compare(half1.fair.profile(**dict(K, sensitive_features="sex"))), "err")
case(A, "compare different pos_label", lambda: Cd.compare(half1.fair.profile(**dict(K, pos_label=0))), "err")
case(A, "compare different y_pred", lambda: Cd.compare(half1.fair.profile(**dict(K, y_pred=pl.col("decile_score") >= 7))))
case(A, "compare scored vs not", lambda: Cd.compare(half1.fair.profile(**KS)).height)
case(A, "compare not scored vs scored", lambda: half1.fair.profile(**KS).compare(Cd).height)
case(A, "compare key dtype", lambda: C.fair.profile(**K, by="year").compare(C.with_columns(pl.col("year").cast(pl.Int64)).fair.profile(**K, by="year")), "err")
case(A, "compare by expr vs name", lambda: C.with_columns(y2=pl.col("year")).fair.profile(**K, by="y2").compare(C.fair.profile(**K, by=pl.col("year").alias("y2"))), "err")
case(A, "compare options", lambda: Cd.compare(B, min_group_size=0, reference_group="Caucasian").select("criterion", "verdict").rows()[:3])
case(A, "compare bad option", lambda: Cd.compare(B, foo=1), "err")
case(A, "compare reference group absent in baseline", lambda: Cd.compare(half1.filter(pl.col("race") != "Asian").fair.profile(**K), reference_group="Asian"), "err")
case(A, "compare criteria subset", lambda: Cd.compare(B, criteria=["demographic_parity_difference"]).rows())
case(A, "compare criteria empty", lambda: Cd.compare(B, criteria=[]))
case(A, "compare regression criterion", lambda: Cd.compare(B, criteria=["mae_ratio"]), "err")
case(A, "compare report level differs", lambda: Cd.report(confidence_level=0.9).compare(B.report()).height)
case(A, "report.compare different criteria", lambda: Cd.report(criteria=["demographic_parity_difference"]).compare(B.report(criteria=["equal_opportunity_difference"])).select("criterion", "verdict").rows())
case(A, "report.compare baseline profile", lambda: Cd.report().compare(B), "err")
case(A, "report.compare baseline None", lambda: Cd.report().compare(None), "err")
case(A, "report.compare rows vs profile", lambda: half2.fair.report(**K).compare(B.report()).select("criterion", "verdict").rows()[:3])
case(A, "report.compare rows lazy vs profile", lambda: half2.lazy().fair.report(**K).compare(B.report()).select("criterion", "verdict").rows()[:3])
case(A, "report.compare rows y_pred expr vs profile col", lambda: half2.fair.report(**dict(K, y_pred=pl.col("decile_score") >= 5)).compare(B.report()).height)
case(A, "compare by windows disjoint", lambda: C.filter(pl.col("year") == 2013).fair.profile(**K, by="year").compare(C.filter(pl.col("year") == 2014).fair.profile(**K, by="year")).select("year", "criterion", "verdict").rows()[:4])
case(A, "compare groups disjoint", lambda: C.filter(pl.col("race").is_in(["Caucasian", "Hispanic"])).fair.profile(**K).compare(C.filter(pl.col("race").is_in(["African-American", "Other"])).fair.profile(**K)).select("criterion", "verdict").rows()[:4])
# same rows twice, rescaled weights
case(A, "compare weights rescaled", lambda: half1.with_columns(w=2.0).fair.profile(**K, sample_weight="w").compare(half1.with_columns(w=1.0).fair.profile(**K, sample_weight="w")).get_column("verdict").value_counts().rows())
case(A, "compare same rows different order", lambda: half1.reverse().fair.profile(**K).compare(B).get_column("verdict").value_counts().rows())
# better/worse direction for a ratio: candidate farther from 1
def direction():
    r = pl.DataFrame({"g": ["a", "b"] * 2000, "y": [1, 0] * 2000})
    fair_ = r.with_columns(p=pl.Series([1, 1, 0, 0] * 1000)).fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    unfair = r.with_columns(p=pl.Series([1, 0, 1, 0] * 1000)).fair.profile(y_true="y", y_pred="p", sensitive_features="g")
    t = unfair.compare(fair_, criteria=["disparate_impact_ratio", "demographic_parity_difference"])
    return set(t["verdict"].to_list()) == {"worse"}, t.select("criterion", "baseline", "candidate", "verdict").rows()
check(A, "compare direction worse", direction)

# ---- keys named like trend columns, chart field names (added after the first run) -----------
for key in ("alert", "first_alert", "baseline", "baseline_window", "change", "candidate", "band_verdict", "w.k", "w:k", "w[0]"):
    prof = C.with_columns(pl.col("year").alias(key)).fair.profile(**K, by=key)
    case(A, f"trend key named {key!r}", lambda prof=prof, key=key: prof.trend("demographic_parity_difference", time=key).select(key, "value").rows())
    case(A, f"trend_chart key named {key!r}", lambda prof=prof, key=key: prof.trend_chart("demographic_parity_difference", time=key).to_dict()["layer"][0]["encoding"]["x"])
