"""Campaign 4, area 4: polars_fair.distributed.file_profile / ray_profile on bad files."""
# ruff: noqa
from __future__ import annotations
import os, tempfile, pathlib
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
import polars_fair as pf
from polars_fair.distributed import file_profile, ray_profile, file_group_stats, ray_group_stats
from harness import case, check

A = "files_dist"
TMP = pathlib.Path(tempfile.mkdtemp())
rng = np.random.default_rng(11)
def mk(n, seed):
    r = np.random.default_rng(seed)
    return pl.DataFrame({"g": r.choice(["a", "b"], n), "y": r.integers(0, 2, n), "p": r.integers(0, 2, n), "m": r.choice(["m1", "m2"], n)})
a, b = mk(300, 1), mk(200, 2)
a.write_parquet(TMP / "a.parquet"); b.write_parquet(TMP / "b.parquet")
a.write_csv(TMP / "a.csv")
K = dict(y_true="y", y_pred="p", sensitive_features="g")
(TMP / "empty.parquet").write_bytes(b"")
a.head(0).write_parquet(TMP / "zero_rows.parquet")
a.rename({"g": "grp"}).write_parquet(TMP / "renamed.parquet")
a.with_columns(pl.col("y").cast(pl.Float64)).write_parquet(TMP / "float_y.parquet")
a.with_columns(pl.col("g").cast(pl.Categorical)).write_parquet(TMP / "cat_g.parquet")
a.with_columns(pl.col("y") * 3).write_parquet(TMP / "bad_labels.parquet")
(TMP / "text.parquet").write_text("g,y,p\na,1,0\n")
(TMP / "dir.parquet").mkdir()
(TMP / "junk.bin").write_bytes(b"\x00\x01garbage")
(TMP / "a.txt").write_text("hello")
a.write_ipc(TMP / "a.arrow"); a.write_ndjson(TMP / "a.ndjson")

SINGLE = {
    "missing": TMP / "nope.parquet", "empty bytes": TMP / "empty.parquet", "zero rows": TMP / "zero_rows.parquet",
    "renamed": TMP / "renamed.parquet", "float y": TMP / "float_y.parquet", "cat g": TMP / "cat_g.parquet",
    "bad labels": TMP / "bad_labels.parquet", "csv named parquet": TMP / "text.parquet", "directory": TMP / "dir.parquet",
    "tmp dir": TMP, "junk ext": TMP / "junk.bin", "txt": TMP / "a.txt", "csv": TMP / "a.csv", "ipc": TMP / "a.arrow",
    "ndjson": TMP / "a.ndjson", "empty glob": str(TMP / "zz*.parquet"), "glob": str(TMP / "[ab].parquet"), "empty string": "",
}
for name, path in SINGLE.items():
    case(A, f"file_profile {name}", lambda path=path: file_profile(str(path), dict(K)).rows)
    case(A, f"file_group_stats {name}", lambda path=path: file_group_stats(str(path), dict(K)))
# value check: file_profile = local profile
def eq():
    got = file_profile(str(TMP / "a.parquet"), dict(K)).tables["stats"]
    y, p, g = a["y"].to_numpy(), a["p"].to_numpy(), a["g"].to_numpy()
    want = {k: (int(((y == 1) & (p == 1) & (g == k)).sum()), int(((y == 0) & (p == 1) & (g == k)).sum())) for k in "ab"}
    gotd = {r["g"]: (r["tp"], r["fp"]) for r in got.iter_rows(named=True)}
    return gotd == want, (gotd, want)
check(A, "file_profile counts vs numpy", eq)
# bad kwargs
for name, kw in {"unknown kw": dict(K, nope=1), "missing col": dict(K, sensitive_features="zz"), "not a dict": None, "by missing": dict(K, by="zz")}.items():
    case(A, f"file_profile {name}", lambda kw=kw: file_profile(str(TMP / "a.parquet"), kw), "err")

try:
    import ray
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    HAVE_RAY = True
except Exception as e:  # noqa
    HAVE_RAY = False
    case(A, "ray init", lambda e=e: (_ for _ in ()).throw(e))
if HAVE_RAY:
    def req():
        got = ray_profile([str(TMP / "a.parquet"), str(TMP / "b.parquet")], **K).tables["stats"]
        ab = pl.concat([a, b])
        y, p, g = ab["y"].to_numpy(), ab["p"].to_numpy(), ab["g"].to_numpy()
        want = {k: (int((g == k).sum()), int(((y == 1) & (p == 1) & (g == k)).sum())) for k in "ab"}
        gotd = {r["g"]: (r["n"], r["tp"]) for r in got.iter_rows(named=True)}
        return gotd == want, (gotd, want)
    check(A, "ray_profile counts vs numpy", req)
    MULTI = {
        "missing one": [TMP / "a.parquet", TMP / "nope.parquet"], "missing first": [TMP / "nope.parquet", TMP / "a.parquet"],
        "empty list": [], "empty glob": str(TMP / "zz*.parquet"), "glob two": str(TMP / "[ab].parquet"),
        "empty bytes second": [TMP / "a.parquet", TMP / "empty.parquet"], "zero rows second": [TMP / "a.parquet", TMP / "zero_rows.parquet"],
        "renamed second": [TMP / "a.parquet", TMP / "renamed.parquet"], "renamed first": [TMP / "renamed.parquet", TMP / "a.parquet"],
        "float y second": [TMP / "a.parquet", TMP / "float_y.parquet"], "cat g second": [TMP / "a.parquet", TMP / "cat_g.parquet"],
        "bad labels second": [TMP / "a.parquet", TMP / "bad_labels.parquet"], "dir": [TMP / "dir.parquet"], "tmp dir": TMP,
        "csv + parquet": [TMP / "a.csv", TMP / "b.parquet"], "txt": [TMP / "a.txt"], "junk": [TMP / "junk.bin"],
        "same file twice": [TMP / "a.parquet", TMP / "a.parquet"], "None": None, "int": 5, "string": "",
    }
    for name, paths in MULTI.items():
        case(A, f"ray_profile {name}", lambda paths=paths: ray_profile(paths if not isinstance(paths, list) else [str(x) for x in paths], **K).rows)
    case(A, "ray_profile bad option", lambda: ray_profile([str(TMP / "a.parquet")], **K, nope=1), "err")
    case(A, "ray_profile missing column", lambda: ray_profile([str(TMP / "a.parquet")], y_true="y", y_pred="p", sensitive_features="zz"), "err")
    case(A, "ray_profile by", lambda: ray_profile([str(TMP / "a.parquet"), str(TMP / "b.parquet")], **K, by="m").rows, "ok")
    case(A, "ray_group_stats missing one", lambda: ray_group_stats([str(TMP / "a.parquet"), str(TMP / "nope.parquet")], **K))
    ray.shutdown()
