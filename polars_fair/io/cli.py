"""The ``polars-fair`` command line (also ``python -m polars_fair``).

``polars-fair audit PATH... --y-true COL --y-pred COL_OR_SQL --sensitive-features COL``
reads CSV, Parquet, NDJSON or Arrow IPC files lazily (globs and several files),
streams them through the report's reductions and prints the report as a table,
JSON, Markdown or HTML. ``--fail-on "disparate_impact_ratio < 0.8"`` turns it into
a release gate: exit status 1 when a criterion crosses the condition (and, with
``--slices race,sex,age_cat --fail-on-slices``, when a slice of those attributes
differs significantly from the rest). Exit status 2
means the command could not run (usage or input error), with a message that says
what went wrong and how to fix it. ``polars-fair audit --example compas`` audits the
bundled COMPAS example.

With several files and a terminal on stderr, each file is reduced on its own, with
a progress bar, and the reductions (additive) are summed before the report is
derived.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import math
import operator
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from polars_fair.exceptions import FairError
from polars_fair.io.sources import READERS, scan_file
from polars_fair.metrics._registry import CRITERIA
from polars_fair.namespace._report import (
    ReportSpec,
    derive_report,
    report_reductions,
    sum_reductions,
)
from polars_fair.report import FairnessReport

__all__ = ["main"]

#: Exit statuses.
OK, FAILED, USAGE = 0, 1, 2

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
    "<": operator.lt, ">": operator.gt,
}  # fmt: skip
_FAIL_ON = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<num>\S+)\s*$"
)
_COMPAS = {"y_true": "two_year_recid", "y_pred": "decile_score >= 5", "sensitive": "race"}


class UsageError(Exception):
    """A problem with the command line or its input (exit status 2)."""


# ---- arguments --------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polars-fair",
        description="Fairness audits of model predictions, as lazy Polars queries.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser(
        "audit",
        help="audit predictions and report rates, disparities and verdicts",
        description=(
            "Audit predictions in CSV, Parquet, NDJSON or Arrow IPC files. Exit status: "
            "0 done, 1 a --fail-on condition holds, 2 usage or input error."
        ),
    )
    audit.add_argument("paths", nargs="*", metavar="PATH", help="files or globs (quote globs)")
    audit.add_argument(
        "--example", choices=["compas"],
        help="audit a bundled example instead: COMPAS, African-American against Caucasian "
        "defendants, y_pred = decile_score >= 5",
    )  # fmt: skip
    audit.add_argument("--y-true", help="column of true labels")
    audit.add_argument(
        "--y-pred",
        help='column of predicted labels, or a SQL expression such as "decile_score >= 5"',
    )
    audit.add_argument("--y-prob", help="column of scores in [0, 1] (calibration, ROC)")
    audit.add_argument("--threshold", type=float, help="predict positive when y-prob >= this")
    audit.add_argument(
        "--sensitive-features", help="column(s) defining the groups, comma-separated"
    )
    audit.add_argument("--by", help="batch key column(s), comma-separated (models, slices)")
    audit.add_argument(
        "--reference-group", help="reference group value (comma-separated for several features)"
    )
    audit.add_argument("--sample-weight", help="column of non-negative weights")
    audit.add_argument("--pos-label", help="the positive label value (default 1)")
    audit.add_argument(
        "--format", choices=["table", "json", "markdown", "html"], default="table",
        help="output format (default: table)",
    )  # fmt: skip
    audit.add_argument("--output", "-o", help="write the report to this file instead of stdout")
    audit.add_argument(
        "--fail-on", action="append", default=[], metavar="EXPR",
        help='exit 1 when a criterion crosses this, e.g. "disparate_impact_ratio < 0.8" '
        "(repeatable)",
    )  # fmt: skip
    audit.add_argument(
        "--min-group-size", type=float, default=30, help="smaller groups are flagged (default 30)"
    )
    audit.add_argument("--no-progress", action="store_true", help="no progress bar")
    audit.add_argument(
        "--slices", metavar="COLS",
        help="slice discovery over these attributes, comma-separated (e.g. race,sex,age_cat)",
    )  # fmt: skip
    audit.add_argument(
        "--max-depth", type=int, default=2, help="attributes per slice at most (default 2)"
    )
    audit.add_argument(
        "--slice-metric", default="false_positive_rate",
        help="rate the slices are compared on (default false_positive_rate)",
    )  # fmt: skip
    audit.add_argument(
        "--fail-on-slices", action="store_true",
        help="exit 1 when a slice differs significantly from the rest (needs --slices)",
    )  # fmt: skip
    from polars_fair.io.cli_profile import add_commands  # profile, compare, audit --profile

    add_commands(sub, audit)
    return parser


def _names(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


# ---- input ------------------------------------------------------------------------


def _files(patterns: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        if not matches:
            msg = f"no file matches {pattern!r}\nHint: check the path, and quote globs"
            raise UsageError(msg)
        for match in matches:
            path = Path(match)
            if not path.is_file():
                msg = f"file not found: {match!r}\nHint: check the path"
                raise UsageError(msg)
            if path.suffix.lower() not in READERS:
                known = ", ".join(sorted(READERS))
                msg = f"cannot read {match!r}: unknown extension {path.suffix!r}\nHint: use one of {known}"
                raise UsageError(msg)
            files.append(path)
    return files


def _convert(value: str, dtype: pl.DataType) -> Any:
    """A command-line value as the type of the column it is compared with."""
    if dtype.is_integer():
        try:
            return int(value)
        except ValueError:
            pass
    if dtype.is_float():
        try:
            return float(value)
        except ValueError:
            pass
    if dtype == pl.Boolean and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _column_or_sql(text: str, schema: pl.Schema, flag: str) -> str | pl.Expr:
    if text in schema:
        return text
    try:
        expr = pl.sql_expr(text)
        assert isinstance(expr, pl.Expr)
        pl.LazyFrame(schema=schema).select(expr).collect_schema()
    except Exception as exc:  # noqa: BLE001 - any parse or resolution error is a usage error
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        msg = (
            f"{flag} {text!r} is neither a column nor a valid SQL expression over the columns "
            f"({first})\nHint: columns are {list(schema.names())}; e.g. "
            f'{flag} "decile_score >= 5"'
        )
        raise UsageError(msg) from exc
    return expr


def _params(args: argparse.Namespace, schema: pl.Schema) -> ReportSpec:
    y_true = args.y_true or (_COMPAS["y_true"] if args.example else None)
    sensitive = _names(args.sensitive_features) or ([_COMPAS["sensitive"]] if args.example else [])
    if y_true is None or not sensitive:
        missing = [
            f for f, v in (("--y-true", y_true), ("--sensitive-features", sensitive)) if not v
        ]
        msg = (
            f"missing {' and '.join(missing)}\nHint: e.g. --y-true label --sensitive-features race"
        )
        raise UsageError(msg)
    if args.y_pred is not None and args.threshold is not None:
        msg = "--threshold thresholds --y-prob; it cannot be combined with --y-pred\nHint: drop one"
        raise UsageError(msg)
    if args.threshold is not None and args.y_prob is None:
        msg = "--threshold needs --y-prob\nHint: e.g. --y-prob score --threshold 0.5"
        raise UsageError(msg)
    y_prob = args.y_prob
    if args.y_pred is not None:
        y_pred: str | pl.Expr = _column_or_sql(args.y_pred, schema, "--y-pred")
    elif args.threshold is not None:
        if not 0 <= args.threshold <= 1 or math.isnan(args.threshold):
            msg = f"--threshold must be in [0, 1], got {args.threshold}\nHint: e.g. --threshold 0.5"
            raise UsageError(msg)
        y_pred = pl.col(y_prob) >= args.threshold
    elif args.example:
        y_pred = _column_or_sql(_COMPAS["y_pred"], schema, "--y-pred")
    else:
        msg = "missing the predictions\nHint: --y-pred COL_OR_SQL, or --y-prob COL --threshold T"
        raise UsageError(msg)
    for flag, col in (
        ("--y-true", y_true),
        ("--y-prob", y_prob),
        ("--sample-weight", args.sample_weight),
    ):
        if col is not None and col not in schema:
            msg = f"{flag} column {col!r} not found\nHint: columns are {list(schema.names())}"
            raise UsageError(msg)
    for col in [*sensitive, *_names(args.by), *_names(args.slices)]:
        if col not in schema:
            msg = f"column {col!r} not found\nHint: columns are {list(schema.names())}"
            raise UsageError(msg)
    reference: Any = None
    if args.reference_group is not None:
        values = [v.strip() for v in args.reference_group.split(",")]
        if len(values) != len(sensitive):
            msg = (
                f"--reference-group {args.reference_group!r} gives {len(values)} value(s) for "
                f"{len(sensitive)} sensitive feature(s)\nHint: one value per feature, comma-separated"
            )
            raise UsageError(msg)
        converted = [_convert(v, schema[c]) for v, c in zip(values, sensitive, strict=True)]
        reference = converted[0] if len(converted) == 1 else tuple(converted)
    pos_label: Any = 1 if args.pos_label is None else _convert(args.pos_label, schema[y_true])
    return ReportSpec.of(
        y_true=y_true, y_pred=y_pred, y_prob=y_prob, sensitive_features=sensitive,
        by=_names(args.by), sample_weight=args.sample_weight, pos_label=pos_label,
        reference_group=reference, min_group_size=args.min_group_size,
        slices=_names(args.slices) or None, max_depth=args.max_depth,
        slice_metric=args.slice_metric,
    )  # fmt: skip


# ---- the report ---------------------------------------------------------------------


class _Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total, self.stream, self.enabled = total, stream, enabled
        self.start = time.perf_counter()

    def update(self, done: int, label: str) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / self.total)
        elapsed = time.perf_counter() - self.start
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(
            f"\r[{bar}] {done}/{self.total} files  {elapsed:6.1f} s  {label[:40]:<40}"
        )
        self.stream.flush()
        if done == self.total:
            self.stream.write("\n")


def _report(frames: list[pl.LazyFrame], spec: ReportSpec, progress: bool) -> FairnessReport:
    combined = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    schema = combined.collect_schema()
    if len(frames) == 1 or not progress:
        tables = pl.collect_all(report_reductions(combined, spec), engine="streaming")
        return derive_report(spec, tables, schema)
    # file by file: the reductions are additive, so sum them
    bar = _Progress(len(frames), sys.stderr, enabled=True)
    merged: list[pl.DataFrame] | None = None
    for i, frame in enumerate(frames, start=1):
        parts = pl.collect_all(report_reductions(frame, spec), engine="streaming")
        merged = parts if merged is None else sum_reductions(merged, parts)
        bar.update(i, f"file {i}")
    assert merged is not None
    return derive_report(spec, merged, schema)


def _render(report: FairnessReport, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "markdown":
        return report.to_markdown()
    if fmt == "html":
        return report.to_html()
    keys = [*report.by, *report.params["sensitive_features"]]
    rates = report.by_group.select(
        *keys, "n", "selection_rate", "base_rate", "true_positive_rate", "false_positive_rate",
        "positive_predictive_value", "accuracy",
    )  # fmt: skip
    summary = report.summary.select(
        *report.by, "criterion", "value", "fair_low", "fair_high", "verdict", "ci_low", "ci_high"
    )
    with pl.Config(
        tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4,
        tbl_hide_dataframe_shape=True, fmt_str_lengths=60,
    ):  # fmt: skip
        text = f"Rates per group\n{rates}\n\nCriteria and verdicts\n{summary}\n"
        if report.slices is not None:
            text += f"\nWorst slices\n{report._shown('slices', report.slices)}\n"
        return text


def _conditions(conditions: Sequence[str]) -> list[tuple[str, str, str, float]]:
    """Parse the --fail-on conditions (before the audit runs): (text, name, op, bound)."""
    parsed = []
    for text in conditions:
        match = _FAIL_ON.match(text)
        if match is None:
            msg = (
                f"--fail-on {text!r} is not 'CRITERION OP NUMBER'\nHint: e.g. "
                '--fail-on "disparate_impact_ratio < 0.8" (OP: < <= > >= == !=)'
            )
            raise UsageError(msg)
        name, op, num = match.group("name", "op", "num")
        try:
            bound = float(num)
        except ValueError:
            msg = f'--fail-on {text!r}: {num!r} is not a number\nHint: e.g. --fail-on "disparate_impact_ratio < 0.8"'
            raise UsageError(msg) from None
        if name not in CRITERIA:
            msg = f"--fail-on {text!r}: unknown criterion {name!r}\nHint: one of {sorted(CRITERIA)}"
            raise UsageError(msg)
        parsed.append((text, name, op, bound))
    return parsed


def _failures(
    report: FairnessReport, conditions: Sequence[tuple[str, str, str, float]]
) -> list[str]:
    """The --fail-on conditions that hold, one line per (condition, batch key)."""
    known = report.summary.get_column("criterion").unique(maintain_order=True).to_list()
    crossed = []
    for text, name, op, bound in conditions:
        if name not in known:
            msg = (
                f"--fail-on {text!r}: {name!r} is not in this report's summary\nHint: one "
                f"of {known}"
            )
            raise UsageError(msg)
        rows = report.summary.filter(pl.col("criterion") == name).iter_rows(named=True)
        for row in rows:
            value = row["value"]
            if value is not None and _OPS[op](value, bound):
                where = ", ".join(f"{k}={row[k]}" for k in report.by)
                crossed.append(
                    f"{name} = {value:.4g} {op} {bound:g}" + (f" ({where})" if where else "")
                )
    return crossed


def _audit(args: argparse.Namespace) -> int:
    if args.profile:
        from polars_fair.io.cli_profile import audit_profile

        return audit_profile(args)
    if args.example and args.paths:
        msg = "give either PATH... or --example, not both\nHint: drop the paths to run the example"
        raise UsageError(msg)
    if args.example:
        from polars_fair.io.datasets import scan_compas

        # ProPublica's comparison: African-American against Caucasian defendants
        compared = pl.col("race").is_in(["African-American", "Caucasian"])
        frames = [scan_compas().filter(compared)]
        if args.reference_group is None and args.sensitive_features is None:
            args.reference_group = "Caucasian"
    elif args.paths:
        frames = [scan_file(p) for p in _files(args.paths)]
    else:
        msg = "nothing to audit\nHint: give PATH... or --example compas"
        raise UsageError(msg)
    conditions = _conditions(args.fail_on)
    schema = frames[0].collect_schema()
    if args.fail_on_slices and not args.slices:
        msg = "--fail-on-slices needs --slices\nHint: e.g. --slices race,sex,age_cat"
        raise UsageError(msg)
    spec = _params(args, schema)
    # file by file needs fixed bins; slices bin numeric attributes over all the rows
    progress = not args.no_progress and sys.stderr.isatty() and not args.slices
    report = _report(frames, spec, progress)
    if isinstance(spec.y_pred, pl.Expr):  # show the expression as it was given
        shown = args.y_pred if args.y_pred is not None else _COMPAS["y_pred"]
        if args.threshold is not None:
            shown = f"{args.y_prob} >= {args.threshold}"
        report = dataclasses.replace(report, params={**report.params, "y_pred": shown})
    text = _render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    crossed = _failures(report, conditions)
    if args.fail_on_slices:
        crossed += report.slice_failures()
    for line in crossed:
        print(f"polars-fair: fail-on: {line}", file=sys.stderr)
    return FAILED if crossed else OK


def main(argv: Sequence[str] | None = None) -> int:
    """
    Run the command line and return its exit status.

    Parameters
    ----------
    argv
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when the audit ran, 1 when a ``--fail-on`` condition holds, 2 for usage
        and input errors (argparse's own errors also exit with 2).

    Examples
    --------
    >>> from polars_fair.io.cli import main
    >>> main(["audit", "--example", "compas", "--format", "json", "--output", "/dev/null"])
    0
    """
    args = _parser().parse_args(argv)
    try:
        if args.command != "audit":
            from polars_fair.io.cli_profile import run

            return run(args)
        return _audit(args)
    except (UsageError, FairError, pl.exceptions.PolarsError, OSError) as exc:
        message = str(exc).strip().replace("\n\nHint:", "\nHint:")
        print(f"polars-fair: error: {message}", file=sys.stderr)
        return USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
