"""Campaign 3: the CLI (profile --task regression, compare, audit --profile), in process."""
from __future__ import annotations
import contextlib, io, os, tempfile, pathlib, traceback, shutil
import polars as pl
import warnings; warnings.simplefilter("ignore")
from polars_fair.cli import main
from harness import RESULTS

A = "cli"
TMP = pathlib.Path(tempfile.mkdtemp())
COMPAS = "/work/shared/data/compas-scores-two-years.csv"
GERMAN = "/work/shared/data/german.csv"
ADULT = "/work/shared/data/adult.csv"
os.chdir(TMP)
c = pl.read_csv(COMPAS, infer_schema_length=10000)
c.filter(pl.col("compas_screening_date") < "2013-07-01").write_csv(TMP / "c_old.csv")
c.filter(pl.col("compas_screening_date") >= "2013-07-01").write_csv(TMP / "c_new.csv")
c.write_parquet(TMP / "compas.parquet")
# a biased candidate: predictions for African-American all positive
c.with_columns(pred=pl.when(pl.col("race") == "African-American").then(1).otherwise(pl.col("decile_score") >= 8).cast(pl.Int64),
               ).write_csv(TMP / "c_biased.csv")
c.with_columns(pred=(pl.col("decile_score") >= 5).cast(pl.Int64)).write_csv(TMP / "c_fair.csv")

COLS = ["--y-true", "two_year_recid", "--y-pred", "decile_score >= 5", "--sensitive-features", "race"]
COLSP = ["--y-true", "two_year_recid", "--y-pred", "pred", "--sensitive-features", "race"]
REG = ["--y-true", "priors_count", "--y-pred", "decile_score", "--sensitive-features", "race", "--task", "regression"]

def run(name, argv, want):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        except BaseException as e:  # noqa
            code = "TRACEBACK " + type(e).__name__ + ": " + str(e)[:200] + traceback.format_exc()[-1500:]
    text = err.getvalue()
    flag = ""
    if isinstance(code, str):
        flag = "RAW"
    elif want is not None and code != want:
        flag = "EXIT"
    elif "Traceback" in text:
        flag = "RAW"
    RESULTS.append(dict(area=A, name=name, kind=str(code), msg=(text[-600:] + " || OUT: " + out.getvalue()[:400]), warns=[], flag=flag))
    return code, out.getvalue(), text

# ---- profile ------------------------------------------------------------------------
run("profile cls", ["profile", COMPAS, "-o", "cls.parquet", *COLS, "--no-progress"], 0)
run("profile cls scored", ["profile", COMPAS, "-o", "cls_s.parquet", *COLS, "--y-prob", "decile_score / 10", "--no-progress"], 0)
run("profile cls old", ["profile", "c_old.csv", "-o", "old.parquet", *COLS, "--no-progress"], 0)
run("profile cls new", ["profile", "c_new.csv", "-o", "new.parquet", *COLS, "--no-progress"], 0)
run("profile cls biased", ["profile", "c_biased.csv", "-o", "biased.parquet", *COLSP, "--no-progress"], 0)
run("profile cls fair", ["profile", "c_fair.csv", "-o", "fair.parquet", *COLSP, "--no-progress"], 0)
run("profile reg", ["profile", COMPAS, "-o", "reg.parquet", *REG, "--no-progress"], 0)
run("profile reg old", ["profile", "c_old.csv", "-o", "reg_old.parquet", *REG, "--no-progress"], 0)
run("profile reg new", ["profile", "c_new.csv", "-o", "reg_new.parquet", *REG, "--no-progress"], 0)
run("profile reg by", ["profile", COMPAS, "-o", "reg_by.parquet", *REG, "--by", "sex", "--no-progress"], 0)
run("profile reg two files", ["profile", "c_old.csv", "c_new.csv", "-o", "reg_two.parquet", *REG, "--no-progress"], 0)
run("profile reg glob", ["profile", str(TMP / "c_*.csv"), "-o", "reg_glob.parquet", *REG, "--no-progress"], 0)
run("profile reg weighted", ["profile", COMPAS, "-o", "reg_w.parquet", *REG, "--sample-weight", "age", "--no-progress"], 0)
run("profile reg SQL pred", ["profile", COMPAS, "-o", "reg_sql.parquet", "--y-true", "priors_count", "--y-pred", "decile_score * 2.5", "--sensitive-features", "race", "--task", "regression", "--no-progress"], 0)
run("profile reg SQL group", ["profile", COMPAS, "-o", "reg_sqlg.parquet", "--y-true", "priors_count", "--y-pred", "decile_score", "--sensitive-features", "age > 30", "--task", "regression", "--no-progress"], 0)
run("profile reg parquet input", ["profile", "compas.parquet", "-o", "reg_pq.parquet", *REG, "--no-progress"], 0)
for flag in (["--y-prob", "decile_score / 10"], ["--threshold", "0.5"], ["--pos-label", "1"], ["--pos-label-pred", "1"], ["--score-bins", "10"], ["--exact-scores"], ["--threshold", "0"]):
    run(f"profile reg refuses {flag[0]}", ["profile", COMPAS, "-o", "x.parquet", *REG, *flag, "--no-progress"], 2)
run("profile reg string y_pred", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "priors_count", "--y-pred", "race", "--sensitive-features", "sex", "--task", "regression", "--no-progress"], 2)
run("profile reg string y_true", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "c_charge_degree", "--y-pred", "decile_score", "--sensitive-features", "sex", "--task", "regression", "--no-progress"], 2)
run("profile reg bool SQL y_pred", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "priors_count", "--y-pred", "decile_score > 5", "--sensitive-features", "sex", "--task", "regression", "--no-progress"], 2)
run("profile reg no y_true", ["profile", COMPAS, "-o", "x.parquet", "--y-pred", "decile_score", "--sensitive-features", "race", "--task", "regression", "--no-progress"], 2)
run("profile reg no y_pred", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "decile_score", "--sensitive-features", "race", "--task", "regression", "--no-progress"], 2)
run("profile reg no sensitive", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "priors_count", "--y-pred", "decile_score", "--task", "regression", "--no-progress"], 2)
run("profile reg missing col", ["profile", COMPAS, "-o", "x.parquet", "--y-true", "nope", "--y-pred", "decile_score", "--sensitive-features", "race", "--task", "regression", "--no-progress"], 2)
run("profile reg NaN", ["profile", "nan.csv", "-o", "x.parquet", *REG, "--no-progress"], 2) if (pl.DataFrame({"race": ["a", "b"], "priors_count": [1.0, float("nan")], "decile_score": [1.0, 2.0]}).write_csv(TMP / "nan.csv") or True) else None
run("profile reg null", ["profile", "null.csv", "-o", "x.parquet", *REG, "--no-progress"], 0) if (pl.DataFrame({"race": ["a", "b"], "priors_count": [1.0, None], "decile_score": [1.0, 2.0]}).write_csv(TMP / "null.csv") or True) else None
run("profile reg empty csv", ["profile", "empty.csv", "-o", "x.parquet", *REG, "--no-progress"], None) if ((TMP / "empty.csv").write_text("race,priors_count,decile_score\n") or True) else None
run("profile reg header only zero bytes", ["profile", "zero.csv", "-o", "x.parquet", *REG, "--no-progress"], 2) if ((TMP / "zero.csv").write_text("") or True) else None
run("profile --task bogus", ["profile", COMPAS, "-o", "x.parquet", *COLS, "--task", "ranking", "--no-progress"], 2)
run("profile reg schema mismatch files", ["profile", "c_old.csv", "int.csv", "-o", "x.parquet", *REG, "--no-progress"], None) if (c.head(50).with_columns(pl.col("decile_score").cast(pl.Float64) + 0.5).write_csv(TMP / "int.csv") or True) else None
run("profile reg output csv", ["profile", COMPAS, "-o", "x.csv", *REG, "--no-progress"], 2)
run("profile reg output onto input", ["profile", "compas.parquet", "-o", "compas.parquet", *REG, "--no-progress"], 2)
run("profile reg output dir missing", ["profile", COMPAS, "-o", "nodir/x.parquet", *REG, "--no-progress"], 2)
run("profile reg output is dir", ["profile", COMPAS, "-o", str(TMP), *REG, "--no-progress"], 2)
run("profile reg missing input", ["profile", "nope.csv", "-o", "x.parquet", *REG, "--no-progress"], 2)
run("profile reg empty glob", ["profile", "zz*.csv", "-o", "x.parquet", *REG, "--no-progress"], 2)
run("profile reg input is a profile", ["profile", "cls.parquet", "-o", "x.parquet", *REG, "--no-progress"], 2)
run("profile reg --by missing", ["profile", COMPAS, "-o", "x.parquet", *REG, "--by", "nope", "--no-progress"], 2)
run("profile reg --by = sensitive", ["profile", COMPAS, "-o", "x.parquet", *REG, "--by", "race", "--no-progress"], 2)
run("profile reg negative weights", ["profile", COMPAS, "-o", "x.parquet", *REG, "--sample-weight", "days_b_screening_arrest", "--no-progress"], 2)
run("profile --score-bins 0", ["profile", COMPAS, "-o", "x.parquet", *COLS, "--y-prob", "decile_score / 10", "--score-bins", "0", "--no-progress"], 2)
run("profile --score-bins -5", ["profile", COMPAS, "-o", "x.parquet", *COLS, "--y-prob", "decile_score / 10", "--score-bins", "-5", "--no-progress"], 2)
run("profile --exact-scores no prob", ["profile", COMPAS, "-o", "x.parquet", *COLS, "--exact-scores", "--no-progress"], 2)
run("profile german", ["profile", GERMAN, "-o", "german.parquet", "--y-true", "credit = 1", "--y-pred", "credit_amount < 5000", "--sensitive-features", "personal_status", "--no-progress"], 0)
run("profile adult reg", ["profile", ADULT, "-o", "adult_reg.parquet", "--y-true", "hours-per-week", "--y-pred", "education-num", "--sensitive-features", "sex", "--task", "regression", "--no-progress"], 0)
run("profile adult reg by", ["profile", ADULT, "-o", "adult_reg_by.parquet", "--y-true", "hours-per-week", "--y-pred", "education-num", "--sensitive-features", "sex,race", "--by", "workclass", "--task", "regression", "--no-progress"], 0)

# ---- audit --profile ----------------------------------------------------------------------
run("audit --profile cls", ["audit", "--profile", "cls.parquet"], 0)
run("audit --profile glob", ["audit", "--profile", "old.parquet", "--profile", "new.parquet"], 0)
run("audit --profile glob quoted", ["audit", "--profile", str(TMP / "[on]e*.parquet")], None)
run("audit --profile json", ["audit", "--profile", "cls.parquet", "--format", "json"], 0)
run("audit --profile md", ["audit", "--profile", "cls.parquet", "--format", "markdown"], 0)
run("audit --profile html", ["audit", "--profile", "cls.parquet", "--format", "html", "-o", "r.html"], 0)
run("audit --profile reg", ["audit", "--profile", "reg.parquet"], 2)
run("audit --profile reg + cls", ["audit", "--profile", "reg.parquet", "--profile", "cls.parquet"], 2)
run("audit --profile empty glob", ["audit", "--profile", "zz*.parquet"], 2)
run("audit --profile missing", ["audit", "--profile", "nope.parquet"], 2)
run("audit --profile data csv", ["audit", "--profile", COMPAS], 2)
run("audit --profile plain parquet", ["audit", "--profile", "compas.parquet"], 2)
run("audit --profile + path", ["audit", "--profile", "cls.parquet", COMPAS], 2)
run("audit --profile + cols", ["audit", "--profile", "cls.parquet", *COLS], 2)
run("audit --profile + task", ["audit", "--profile", "cls.parquet", "--task", "regression"], 2)
run("audit --profile --fail-on", ["audit", "--profile", "cls.parquet", "--fail-on", "disparate_impact_ratio < 0.9"], 1)
run("audit --profile --fail-on pass", ["audit", "--profile", "cls.parquet", "--fail-on", "disparate_impact_ratio < 0.01"], 0)
run("audit --profile --fail-on-verdict", ["audit", "--profile", "cls.parquet", "--fail-on-verdict", "unfair"], 1)
run("audit --profile --fail-on bad", ["audit", "--profile", "cls.parquet", "--fail-on", "nonsense < 3"], 2)
run("audit --profile --fail-on roc no score", ["audit", "--profile", "cls.parquet", "--fail-on", "roc_auc_difference > 0.1"], 2)
run("audit --profile --fail-on roc score", ["audit", "--profile", "cls_s.parquet", "--fail-on", "roc_auc_difference > 0.5"], 0)
run("audit --profile --fail-on mae", ["audit", "--profile", "reg.parquet", "--fail-on", "mae_ratio < 0.5"], 2)
run("audit --profile --criteria mae_ratio", ["audit", "--profile", "cls.parquet", "--criteria", "mae_ratio"], 2)
run("audit --profile --reference-group", ["audit", "--profile", "cls.parquet", "--reference-group", "Caucasian"], 0)
run("audit --profile --reference-group bad", ["audit", "--profile", "cls.parquet", "--reference-group", "Martian"], 2)
run("audit --profile --reference-group 2 vals", ["audit", "--profile", "cls.parquet", "--reference-group", "a,b"], 2)
run("audit --profile --slices", ["audit", "--profile", "cls.parquet", "--slices", "race"], 0)
run("audit --profile --slices missing", ["audit", "--profile", "cls.parquet", "--slices", "sex"], 2)
run("audit --profile --by same", ["audit", "--profile", "reg_by.parquet", "--by", "sex"], 2)
run("audit --profile --by other", ["audit", "--profile", "cls.parquet", "--by", "sex"], 2)
run("audit --profile -o onto profile", ["audit", "--profile", "cls.parquet", "-o", "cls.parquet"], 2)
run("audit --profile --min-group-size -1", ["audit", "--profile", "cls.parquet", "--min-group-size", "-1"], 2)
run("audit --profile --confidence-level 2", ["audit", "--profile", "cls.parquet", "--confidence-level", "2"], 2)
run("audit --profile german", ["audit", "--profile", "german.parquet"], 0)
run("audit --profile adult reg", ["audit", "--profile", "adult_reg.parquet"], 2)

# ---- compare ---------------------------------------------------------------------------
run("compare profiles", ["compare", "old.parquet", "new.parquet"], 0)
run("compare profiles json", ["compare", "old.parquet", "new.parquet", "--format", "json"], 0)
run("compare profiles md", ["compare", "old.parquet", "new.parquet", "--format", "markdown"], 0)
run("compare self", ["compare", "cls.parquet", "cls.parquet"], 0)
run("compare biased vs fair gate", ["compare", "fair.parquet", "biased.parquet", "--fail-on-worse"], 1)
run("compare fair vs biased gate", ["compare", "biased.parquet", "fair.parquet", "--fail-on-worse"], 0)
run("compare biased vs fair json", ["compare", "fair.parquet", "biased.parquet", "--format", "json"], 0)
run("compare data vs data", ["compare", "c_fair.csv", "c_biased.csv", *COLSP, "--fail-on-worse", "--no-progress"], 1)
run("compare profile vs data (cols from profile)", ["compare", "fair.parquet", "c_biased.csv", "--fail-on-worse", "--no-progress"], 1)
run("compare data vs profile (cols from profile)", ["compare", "c_fair.csv", "biased.parquet", "--fail-on-worse", "--no-progress"], 1)
run("compare profile vs data with cols", ["compare", "fair.parquet", "c_biased.csv", *COLSP, "--fail-on-worse", "--no-progress"], 1)
run("compare profile vs data lacking cols", ["compare", "fair.parquet", GERMAN, "--no-progress"], 2)
run("compare data vs data no cols", ["compare", "c_fair.csv", "c_biased.csv", "--no-progress"], 2)
run("compare two profiles + cols", ["compare", "old.parquet", "new.parquet", *COLS], 2)
run("compare reg profiles", ["compare", "reg_old.parquet", "reg_new.parquet"], 2)
run("compare reg vs cls", ["compare", "reg.parquet", "cls.parquet"], 2)
run("compare reg profile vs data", ["compare", "reg.parquet", COMPAS, "--no-progress"], 2)
run("compare data vs data --task regression", ["compare", "c_old.csv", "c_new.csv", *REG, "--no-progress"], 2)
run("compare by vs no by", ["compare", "reg_by.parquet", "reg.parquet"], 2)
run("compare cls different sensitive", ["compare", "cls.parquet", "german.parquet"], 2)
run("compare missing baseline", ["compare", "nope.parquet", "cls.parquet"], 2)
run("compare empty glob", ["compare", "zz*.parquet", "cls.parquet"], 2)
run("compare glob mixes", ["compare", str(TMP / "c*.*"), "cls.parquet"], 2)
run("compare glob of profiles", ["compare", str(TMP / "old.parquet"), str(TMP / "[n]ew.parquet")], 0)
run("compare tolerance -1", ["compare", "old.parquet", "new.parquet", "--tolerance", "-1"], 2)
run("compare tolerance nan", ["compare", "old.parquet", "new.parquet", "--tolerance", "nan"], 2)
run("compare tolerance inf", ["compare", "old.parquet", "new.parquet", "--tolerance", "inf"], 2)
run("compare tolerance x", ["compare", "old.parquet", "new.parquet", "--tolerance", "x"], 2)
run("compare --criteria", ["compare", "old.parquet", "new.parquet", "--criteria", "demographic_parity_difference"], 0)
run("compare --criteria bad", ["compare", "old.parquet", "new.parquet", "--criteria", "nope"], 2)
run("compare --criteria empty", ["compare", "old.parquet", "new.parquet", "--criteria", ""], 2)
run("compare --criteria mae", ["compare", "old.parquet", "new.parquet", "--criteria", "mae_ratio"], 2)
run("compare --criteria roc no score", ["compare", "old.parquet", "new.parquet", "--criteria", "roc_auc_difference"], 2)
run("compare --reference-group", ["compare", "old.parquet", "new.parquet", "--reference-group", "Caucasian"], 0)
run("compare --reference-group bad", ["compare", "old.parquet", "new.parquet", "--reference-group", "Martian"], 2)
run("compare --min-group-size 0", ["compare", "old.parquet", "new.parquet", "--min-group-size", "0"], 0)
run("compare --confidence-level 0.5", ["compare", "old.parquet", "new.parquet", "--confidence-level", "0.5"], 0)
run("compare --confidence-level 1", ["compare", "old.parquet", "new.parquet", "--confidence-level", "1"], 2)
run("compare --verdict-rule point", ["compare", "old.parquet", "new.parquet", "--verdict-rule", "point"], 0)
run("compare -o file", ["compare", "old.parquet", "new.parquet", "-o", "cmp.txt"], 0)
run("compare -o onto baseline", ["compare", "old.parquet", "new.parquet", "-o", "old.parquet"], 2)
run("compare -o dir missing", ["compare", "old.parquet", "new.parquet", "-o", "nodir/c.txt"], 2)
run("compare --fail-on", ["compare", "old.parquet", "new.parquet", "--fail-on", "x > 1"], 2)
run("compare --slices", ["compare", "old.parquet", "new.parquet", "--slices", "race"], 2)
run("compare weighted vs not data", ["compare", "c_old.csv", "c_new.csv", *COLS, "--sample-weight", "age", "--no-progress"], 0)
run("compare key dtype data sides", ["compare", "byint.csv", "byfloat.csv", *COLS, "--by", "k", "--no-progress"], 2) if (
    c.with_columns(k=pl.lit(1)).write_csv(TMP / "byint.csv") or c.with_columns(k=pl.lit(1.5)).write_csv(TMP / "byfloat.csv") or True) else None
run("compare german vs german", ["compare", GERMAN, GERMAN, "--y-true", "credit = 1", "--y-pred", "credit_amount < 5000", "--sensitive-features", "personal_status", "--no-progress"], 0)
run("compare same file twice data", ["compare", COMPAS, COMPAS, *COLS, "--fail-on-worse", "--no-progress"], 0)

# ---- --output edge cases (added after the first run) ----------------------------------------
(TMP / "afile.parquet").write_bytes(b"x")
for cmd in ("profile", "audit"):
    extra = ["--no-progress"] if cmd == "profile" else []
    run(f"{cmd} -o under a file", [cmd, GERMAN, "-o", "afile.parquet/x.parquet", "--y-true", "credit = 1", "--y-pred", "credit_amount < 5000", "--sensitive-features", "personal_status", *extra], 2)
    run(f"{cmd} -o name too long", [cmd, GERMAN, "-o", "x" * 300 + ".parquet", "--y-true", "credit = 1", "--y-pred", "credit_amount < 5000", "--sensitive-features", "personal_status", *extra], 2)
    run(f"{cmd} -o /dev/null", [cmd, GERMAN, "-o", "/dev/null", "--y-true", "credit = 1", "--y-pred", "credit_amount < 5000", "--sensitive-features", "personal_status", *extra], 0)
run("audit --profile empty string", ["audit", "--profile", ""], 2)
run("compare profile glob + data", ["compare", str(TMP / "[on]*.parquet"), "c_new.csv", "--no-progress"], None)
