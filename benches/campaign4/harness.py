"""Campaign 4 harness: run cases, classify outcomes (not part of the package)."""
# ruff: noqa
from __future__ import annotations
import traceback, warnings, json, sys
import polars as pl
from polars_fair.exceptions import FairError

RESULTS = []

def case(area, name, fn, expect="any"):
    """Run fn; record outcome. expect: 'ok' (must not raise), 'err' (FairError), 'any'."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn()
            kind, msg = "ok", repr(out)[:300]
        except FairError as e:
            kind, msg = "fair:" + type(e).__name__, str(e)[:400]
        except BaseException as e:  # noqa
            kind, msg = "RAW:" + type(e).__module__ + "." + type(e).__name__, (str(e)[:400] + "\n" + traceback.format_exc()[-1200:])
    warns = [f"{x.category.__name__}: {str(x.message)[:150]}" for x in w]
    flag = ""
    if kind.startswith("RAW"):
        flag = "RAW"
    elif expect == "ok" and kind != "ok":
        flag = "UNEXPECTED-ERR"
    elif expect == "err" and kind == "ok":
        flag = "NO-ERR"
    RESULTS.append(dict(area=area, name=name, kind=kind, msg=msg, warns=warns, flag=flag))
    return kind

def check(area, name, cond_fn):
    """A value check: cond_fn returns (bool, detail)."""
    try:
        okay, detail = cond_fn()
        flag = "" if okay else "WRONG"
        kind = "ok" if okay else "wrong"
    except FairError as e:  # a clear library error where a value was checked
        flag, kind, detail = "ERR", "fair:" + type(e).__name__, str(e)[:300]
    except BaseException as e:  # noqa
        flag, kind, detail = "RAW", "RAW:" + type(e).__name__, str(e)[:300] + traceback.format_exc()[-800:]
    RESULTS.append(dict(area=area, name=name, kind=kind, msg=str(detail)[:400], warns=[], flag=flag))

def report(path=None):
    from collections import Counter
    c = Counter(r["area"] for r in RESULTS)
    print("cases by area:", dict(c), "total", len(RESULTS))
    for r in RESULTS:
        if r["flag"]:
            print(f"--- [{r['flag']}] {r['area']} :: {r['name']} -> {r['kind']}\n{r['msg']}\n")
    if path:
        json.dump(RESULTS, open(path, "w"), indent=1, default=str)
