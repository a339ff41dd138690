"""Campaign 4, area 1: the command line's SQL options on audit, profile and compare."""
# ruff: noqa
from __future__ import annotations
import json, os, tempfile, pathlib
import numpy as np, polars as pl
import warnings; warnings.simplefilter("ignore")
from harness import RESULTS, check
from cli_run import run

A = "cli_sql"
TMP = pathlib.Path(tempfile.mkdtemp())
os.chdir(TMP)
rng = np.random.default_rng(4)
N = 600
df = pl.DataFrame({
    "g": rng.choice(["a", "b", "c"], N), "h": rng.choice(["x", "y"], N),
    "y": rng.integers(0, 2, N), "s": rng.random(N), "age": rng.integers(18, 80, N),
    "ts": pl.date_range(pl.date(2024, 1, 1), pl.date(2024, 1, 1) + pl.duration(days=N - 1), eager=True),
    "naïve grp": rng.choice(["é", "ü", "中"], N), "a,b": rng.choice(["p", "q"], N),
    "it's": rng.choice(["m", "n"], N), "n_col": rng.integers(0, 3, N),
    "lst": [[int(i % 3), 1] for i in range(N)],
})
df = df.with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))
df.write_parquet("d.parquet")
D = "d.parquet"
BASE = ["--y-true", "y", "--y-pred", "p"]


def heads(cmd):
    if cmd == "audit":
        return ["audit", D, "--format", "json"]
    if cmd == "profile":
        return ["profile", D, "-o", "p_out.parquet", "--no-progress"]
    return ["compare", D, D, "--no-progress", "--format", "json"]


def groups_check(name, out, key, want):
    def f():
        rep = json.loads(out)
        got = {r[key]: r["n"] for r in rep["tables"]["by_group"]}
        return got == want, (got, want)
    check(A, name, f)


# good SQL sensitive features, verified against numpy
age = df["age"].to_numpy()
for expr, fn in {
    "age > 40": lambda: {True: int((age > 40).sum()), False: int((age <= 40).sum())},
    "CASE WHEN age < 30 THEN 'young' ELSE 'old' END": lambda: {"young": int((age < 30).sum()), "old": int((age >= 30).sum())},
    "age % 3": lambda: {k: int((age % 3 == k).sum()) for k in range(3)},
}.items():
    code, out, err = run(A, f"audit SQL sens {expr}", ["audit", D, "--format", "json", *BASE, "--sensitive-features", expr], 0)
    if code == 0:
        groups_check(f"audit SQL sens {expr} counts", out, expr, fn())

# hostile SQL on each option and command
BAD_SQL = {
    "syntax error": "age >",
    "aggregate": "sum(age)",
    "aggregate count": "count(*)",
    "window": "row_number() OVER (ORDER BY age)",
    "window partition": "avg(age) OVER (PARTITION BY g)",
    "subquery": "(SELECT 1)",
    "list result": "lst",
    "struct": "struct(g, h)",
    "empty string": "",
    "blank": "   ",
    "only comma": ",",
    "quote unbalanced": "'abc",
    "double quoted unknown": '"nope"',
    "star": "*",
    "literal": "1",
    "literal string": "'x'",
    "null": "NULL",
    "semicolon injection": "age; DROP TABLE x",
    "unknown function": "frobnicate(age)",
    "division by zero": "age / 0",
    "regexp bad": "regexp_like(g, '(')",
    "unicode col unquoted": "naïve grp",
    "cast bad": "CAST(g AS INT)",
    "IN list": "g IN ('a', 'b')",
    "between": "age BETWEEN 20 AND 30",
    "alias clash col": "age > 30 AS g",
    "alias clash lib": "age > 30 AS n",
    "alias clash tp": "age > 30 AS selection_rate",
    "alias internal": "age > 30 AS __pf_x",
    "alias empty quoted": 'age > 30 AS ""',
    "unicode alias": "age > 30 AS âge",
    "quoted unicode col": '"naïve grp"',
    "quoted comma col": '"a,b"',
    "quoted apostrophe col": '"it\'s"',
    "existing n_col": "n_col",
    "lst index": "lst[1]",
    "float key": "s",
    "date key": "ts",
    "strftime": "strftime(ts, '%Y-%m')",
    "date_trunc week": "date_trunc('week', ts) AS wk",
    "coalesce": "coalesce(g, 'z')",
    "nullif": "nullif(g, 'a')",
}
for cmd in ("audit", "profile", "compare"):
    for opt in ("--sensitive-features", "--sensitive-feature", "--by", "--by-key"):
        for label, sql in BAD_SQL.items():
            if opt.startswith("--sens"):
                argv = [*heads(cmd), *BASE, opt, sql]
            else:
                argv = [*heads(cmd), *BASE, "--sensitive-features", "g", opt, sql]
            run(A, f"{cmd} {opt} {label}", argv, None)
# --y-pred / --y-true SQL hostility
for cmd in ("audit", "profile", "compare"):
    for label, sql in {"agg": "max(s) >= 0.5", "window": "rank() OVER (ORDER BY s) > 300", "list": "lst", "string": "g",
                       "float not label": "s", "literal true": "true", "empty": "", "syntax": "s >=", "case 3 values": "CASE WHEN s < 0.3 THEN 0 WHEN s < 0.6 THEN 1 ELSE 2 END",
                       "null literal": "NULL", "struct": "struct(y, p)", "bool ok": "s >= 0.5", "unicode col": '"naïve grp" = \'é\'',
                       "alias": "s >= 0.5 AS pred", "alias clash": "s >= 0.5 AS y"}.items():
        for opt in ("--y-pred", "--y-true"):
            argv = [*heads(cmd), "--sensitive-features", "g", *(["--y-true", "y"] if opt == "--y-pred" else ["--y-pred", "p"]), opt, sql]
            want = 0 if label in ("bool ok", "alias", "unicode col") else None
            run(A, f"{cmd} {opt} {label}", argv, want)
