"""Campaign 4 driver: run each case module, then counts by area and flagged cases.

    PYTHONPATH=. python benches/campaign4/run_all.py [module ...] [--json out.json]

Flags: RAW (a non-polars_fair exception or traceback), WRONG (a value differs from the
numpy reference), ERR (a polars_fair error where a value check expected one: read the
message), NO-ERR / UNEXPECTED-ERR, EXIT (a command-line status other than expected).
Not part of the package or of the test suite.
"""
# ruff: noqa
from __future__ import annotations
import importlib, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness

MODULES = ("c_sql", "c_report", "c_report2", "c_dtypes", "c_files", "c_familywise", "c_multiclass")

if __name__ == "__main__":
    cwd = os.getcwd()
    chosen = [a for a in sys.argv[1:] if a.startswith("c_")] or MODULES
    for name in chosen:
        importlib.import_module(name)
        os.chdir(cwd)
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    harness.report(out)
