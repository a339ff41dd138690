"""Fixed cost per call before and after a change, alternated in one process (issue 12).

The package at commit `--before` is extracted as ``polars_fair_before`` (namespace
``fair_before``, see :mod:`bench_profile_ab`), so both versions run in one process on
the frame of :mod:`bench_overhead`: each round times `--calls` calls of one version then
of the other (the order reversed every other round), after a warm-up. Prints the
medians (ms per call) and the median of the per-round ratios after / before (the
machine is shared: the ratio is the comparable number).

Usage::

    python benches/bench_overhead_ab.py --before 92e40a0 --rounds 40
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_overhead import make  # noqa: E402
from bench_profile_ab import extract_before  # noqa: E402

import polars_fair  # noqa: E402, F401  (registers the namespace)


def per_call(fn: Callable[[], Any], calls: int) -> float:
    """Mean ms per call over `calls` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) * 1e3 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", required=True, help="commit of the version to compare with")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    extract_before(args.before, folder)
    sys.path.insert(0, str(folder))
    import polars_fair_before  # type: ignore[import-not-found]  # noqa: F401

    df = make(1000)
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    cases = {
        "report()": lambda ns: ns.report(**kw),
        "report() with a score": lambda ns: ns.report(**kw, y_prob="score"),
        "eager criterion": lambda ns: ns.demographic_parity_difference(
            y_pred="y_pred", sensitive_features="g"
        ),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, case in cases.items():
            before = lambda c=case: c(df.fair_before)  # noqa: E731
            after = lambda c=case: c(df.fair)  # noqa: E731
            calls = args.calls * (20 if name == "eager criterion" else 1)
            for fn in (before, after, before, after):  # warm-up
                fn()
            tb, ta = [], []
            for i in range(args.rounds):
                if i % 2:
                    ta.append(per_call(after, calls)), tb.append(per_call(before, calls))
                else:
                    tb.append(per_call(before, calls)), ta.append(per_call(after, calls))
            ratio = statistics.median(a / b for a, b in zip(ta, tb, strict=True))
            print(
                f"{name:22s} before {statistics.median(tb):7.2f} ms  after "
                f"{statistics.median(ta):7.2f} ms  after/before {ratio:.3f}"
            )


if __name__ == "__main__":
    main()
