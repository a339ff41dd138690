"""Campaign 3: regression slices from a profile against numpy (Welch z, Kish)."""
from __future__ import annotations
import math
import numpy as np, polars as pl
from scipy.stats import norm
import polars_fair as pf
import warnings; warnings.simplefilter("ignore")
from harness import case, check

A = "regression_slices"
rng = np.random.default_rng(11)
n = 3000
DF = pl.DataFrame({"a": rng.choice(["p", "q", "r"], n), "b": rng.choice(["u", "v"], n),
                   "yt": rng.normal(5, 2, n), "w": rng.uniform(0.2, 3, n)})
DF = DF.with_columns(yp=pl.col("yt") + rng.normal(0, 1, n) + pl.when(pl.col("a") == "p").then(0.6).otherwise(0.0))

def welch(values, mask, w=None, alpha=0.05):
    z = norm.ppf(1 - alpha / 2)
    out = []
    for m in (mask, ~mask):
        y = values[m]
        ww = np.ones(len(y)) if w is None else w[m]
        W = ww.sum(); mean = (ww * y).sum() / W
        neff = W ** 2 / (ww ** 2).sum()
        var = neff / (neff - 1) * (ww * (y - mean) ** 2).sum() / W
        out.append((mean, var, neff))
    (ms, vs, ns), (mr, vr, nr) = out
    d = ms - mr; se = math.sqrt(vs / ns + vr / nr)
    return ms, mr, d, d - z * se, d + z * se, 2 * norm.sf(abs(d) / se)

for wcol in (None, "w"):
    kw = dict(y_true="yt", y_pred="yp", sensitive_features=["a", "b"], task="regression")
    if wcol:
        kw["sample_weight"] = wcol
    prof = DF.fair.profile(**kw)
    for metric in ("mae", "mean_prediction", "mean_true"):
        t = prof.slices(candidates=["a", "b"], metric=metric, min_size=5)
        vals = {"mae": np.abs(DF["yp"].to_numpy() - DF["yt"].to_numpy()), "mean_prediction": DF["yp"].to_numpy(), "mean_true": DF["yt"].to_numpy()}[metric]
        w = None if wcol is None else DF[wcol].to_numpy()
        for sl in ("a=p", "b=u", "a=q & b=v"):
            mask = np.ones(n, bool)
            for part in sl.split(" & "):
                k, v = part.split("=")
                mask &= DF[k].to_numpy() == v
            row = t.filter(pl.col("slice") == sl)
            if row.height == 0:
                check(A, f"{metric} {sl} w={wcol} present", lambda: (False, "missing"))
                continue
            row = row.row(0, named=True)
            ms, mr, d, lo, hi, p = welch(vals, mask, w)
            for col, want in (("value", ms), ("rest_value", mr), ("difference", d), ("ci_low", lo), ("ci_high", hi), ("p_value", p)):
                check(A, f"{metric} {sl} w={wcol} {col}", lambda row=row, col=col, want=want: (
                    math.isclose(row[col], want, rel_tol=1e-7, abs_tol=1e-12), (row[col], want)))
        # q-values: BH over the tested slices
        def bh(t=t):
            p = t["p_value"].drop_nulls().to_numpy()
            order = np.argsort(p); m = len(p)
            q = np.minimum.accumulate((p[order] * m / np.arange(1, m + 1))[::-1])[::-1]
            qq = np.empty(m); qq[order] = np.minimum(q, 1)
            got = t.filter(pl.col("p_value").is_not_null())["q_value"].to_numpy()
            return np.allclose(np.sort(got), np.sort(qq), rtol=1e-9), (np.sort(got)[:3], np.sort(qq)[:3])
        check(A, f"{metric} w={wcol} BH q-values", bh)
    # bad slice args on regression profile
    for kwx in (dict(alpha=0), dict(alpha=1.5), dict(max_depth=0), dict(max_depth=5), dict(top=0), dict(top=-1), dict(min_size=-1),
                dict(correction="bonferroni"), dict(direction="up"), dict(candidates=[]), dict(candidates="a"), dict(candidates=["a", "a"]),
                dict(strategy="finest"), dict(n_bins=3), dict(y_true="yt"), dict(pos_label=1), dict(foo=1), dict(correction="holm"), dict(direction="higher"), dict(top=2)):
        args = dict(candidates=["a", "b"], metric="mae")
        args.update(kwx)
        case(A, f"slices {kwx} w={wcol}", lambda args=args, prof=prof: prof.slices(**args).height)
