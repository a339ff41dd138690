"""A scored profile before and after a change, alternated in one process (issue 15).

The package at commit `--before` is extracted (``git archive``) into a temporary folder
under the name ``polars_fair_before`` (its namespace registered as ``fair_before``), so
both versions run in one process on the same data; the cases alternate, in reversed order
every other round, after one warm-up each. Prints medians and the median of the
per-round ratios (the machine is shared: compare ratios).

Usage::

    python benches/bench_profile_ab.py --before 6092f2e --rows 1e7 --rounds 7 --score-bins 100
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_profile import make  # noqa: E402

import polars_fair as pf  # noqa: E402


def extract_before(commit: str, folder: Path) -> None:
    """The package at `commit`, renamed ``polars_fair_before``, under `folder`."""
    repo = Path(__file__).resolve().parents[1]
    data = subprocess.run(
        ["git", "-C", str(repo), "archive", commit, "polars_fair"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "polars_fair").rename(folder / "polars_fair_before")
    for path in (folder / "polars_fair_before").rglob("*.py"):
        text = re.sub(r"\bpolars_fair\b", "polars_fair_before", path.read_text())
        text = text.replace('namespace("fair")', 'namespace("fair_before")')
        path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", required=True, help="commit of the version to compare with")
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--score-bins", type=int, nargs="*", default=[], help="more `after` cases")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    extract_before(args.before, folder)
    sys.path.insert(0, str(folder))
    import polars_fair_before as before  # type: ignore[import-not-found]

    df = make(int(args.rows), 50)
    lf = df.lazy()
    kw: dict[str, Any] = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    cases: dict[str, Callable[[], Any]] = {
        "group_stats + score sums": lambda: pf.group_stats(lf, **kw, y_prob="score").collect(),
        "before": lambda: before.profile(df, **kw, y_prob="score"),
        "after": lambda: pf.profile(df, **kw, y_prob="score"),
    }
    for bins in args.score_bins:
        cases[f"after, score_bins={bins}"] = lambda b=bins: pf.profile(
            df, **kw, y_prob="score", score_bins=b
        )
    for fn in cases.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            cases[name]()
            times[name].append(time.perf_counter() - t0)
    base = times[names[0]]
    for name in names:
        ratio = np.median([t / b for t, b in zip(times[name], base, strict=True)])
        print(f"{name:28s} median {np.median(times[name]):.3f} s  ratio {ratio:.2f}")
    ab = [a / b for a, b in zip(times["after"], times["before"], strict=True)]
    print(f"after / before: median {np.median(ab):.2f} {[round(x, 2) for x in ab]}")


if __name__ == "__main__":
    main()
