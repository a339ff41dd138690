"""Campaign 3 driver: every case module, then the counts by area and the flagged cases.

Run from the repository root (this checkout's package is the one imported)::

    PYTHONPATH=. python benches/campaign3/run_all.py [--json out.json]

Flags: ``RAW`` (a non-polars_fair exception or a traceback reached the caller),
``WRONG`` (a number or table differs from the numpy reference), ``NO-ERR`` /
``UNEXPECTED-ERR`` (an error was expected / not expected), ``EXIT`` (a command-line
exit status other than the expected 0 done, 1 gate fails, 2 usage/input error).
Not part of the package or of the test suite.
"""

from __future__ import annotations

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness  # noqa: E402

MODULES = ("c_regression", "c_slices", "c_compare", "c_files", "c_cli")

if __name__ == "__main__":
    cwd = os.getcwd()
    for name in MODULES:
        importlib.import_module(name)
        os.chdir(cwd)  # the CLI module works in a temporary folder
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    harness.report(out)
