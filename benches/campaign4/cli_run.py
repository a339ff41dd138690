"""Run the CLI in process; record exit status and stderr (campaign 4)."""
# ruff: noqa
from __future__ import annotations
import contextlib, io, traceback
from polars_fair.cli import main
from harness import RESULTS


def run(area, name, argv, want):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        except BaseException as e:  # noqa
            code = "TRACEBACK " + type(e).__name__ + ": " + str(e)[:300] + traceback.format_exc()[-1500:]
    text = err.getvalue()
    flag = ""
    if isinstance(code, str):
        flag = "RAW"
    elif want is not None and code != want:
        flag = "EXIT"
    elif "Traceback" in text:
        flag = "RAW"
    RESULTS.append(dict(area=area, name=name, kind=str(code), msg=(text[-700:] + " || OUT: " + out.getvalue()[:300]), warns=[], flag=flag))
    return code, out.getvalue(), text
