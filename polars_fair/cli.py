"""The ``polars-fair`` command line (also ``python -m polars_fair``).

``polars-fair audit PATH... --y-true COL --y-pred COL_OR_SQL --sensitive-features COL``
reads CSV, Parquet, NDJSON or Arrow IPC files lazily (globs and several files),
streams them through the report's reductions and prints the report as a table,
JSON, Markdown or HTML. Release gates: ``--fail-on-verdict unfair`` (exit status 1
when any criterion's verdict is unfair) and ``--fail-on "CRITERION OP NUMBER"``
(exit status 1 when the condition holds; one-sided, so a ratio above its band
passes ``"disparate_impact_ratio < 0.8"``, with a warning). Exit status 2 means the
command could not run (usage or input error), with a message that says what went
wrong and how to fix it. ``polars-fair audit --example compas`` audits the bundled
COMPAS example. Warnings print as ``polars-fair: warning: ...`` lines.

With several files and a terminal on stderr, each file is reduced on its own, with
a progress bar, and the reductions (additive) are summed before the report is
derived.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import math
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from polars_fair._ns_report import report_params, sum_reductions
from polars_fair.exceptions import FairError, InvalidParameterError
from polars_fair.metrics._rates import SCORE_RATES
from polars_fair.metrics._registry import CRITERIA, DEFAULT_SUMMARY
from polars_fair.namespace import fair
from polars_fair.report import (
    GATE_VERDICTS,
    Condition,
    FairnessReport,
    excluded_groups,
    orientation,
    parse_condition,
)
from polars_fair.sources import READERS, scan_file

__all__ = ["main"]

#: Exit statuses.
OK, FAILED, USAGE = 0, 1, 2

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
            "0 done, 1 a gate fails (--fail-on, --fail-on-verdict), 2 usage or input error."
        ),
    )
    audit.add_argument("paths", nargs="*", metavar="PATH", help="files or globs (quote globs)")
    audit.add_argument(
        "--example", choices=["compas"],
        help="audit a bundled example instead: COMPAS, African-American against Caucasian "
        "defendants, y_pred = decile_score >= 5",
    )  # fmt: skip
    audit.add_argument(
        "--y-true", help="column of true labels, or a SQL expression over the columns"
    )
    audit.add_argument(
        "--y-pred",
        help='column of predicted labels, or a SQL expression such as "decile_score >= 5"',
    )
    audit.add_argument(
        "--y-prob", help="column (or SQL expression) of scores in [0, 1] (calibration, ROC)"
    )
    audit.add_argument("--threshold", type=float, help="predict positive when y-prob >= this")
    audit.add_argument(
        "--sensitive-features",
        help="column(s) or SQL expression(s) defining the groups, comma-separated",
    )
    audit.add_argument(
        "--sensitive-feature", action="append", default=[], metavar="COL_OR_SQL",
        help="one column or SQL expression defining the groups (repeatable; for names "
        "or expressions holding commas)",
    )  # fmt: skip
    audit.add_argument("--by", help="batch key column(s), comma-separated (models, slices)")
    audit.add_argument(
        "--reference-group", help="reference group value (comma-separated for several features)"
    )
    audit.add_argument("--sample-weight", help="column of non-negative weights")
    audit.add_argument("--pos-label", help="the positive label value (default 1)")
    audit.add_argument(
        "--pos-label-pred",
        help="the positive value of the predicted labels (default: --pos-label)",
    )
    audit.add_argument(
        "--format", choices=["table", "json", "markdown", "html"], default="table",
        help="output format (default: table)",
    )  # fmt: skip
    audit.add_argument("--output", "-o", help="write the report to this file instead of stdout")
    audit.add_argument(
        "--fail-on", action="append", default=[], metavar="EXPR",
        help='exit 1 when a condition holds, e.g. "disparate_impact_ratio < 0.8" (one-sided; '
        "repeatable; any criterion, added to the summary when missing)",
    )  # fmt: skip
    audit.add_argument(
        "--fail-on-verdict", metavar="VERDICTS",
        help="exit 1 when a criterion's verdict is one of these, comma-separated: "
        "unfair, inconclusive, undefined (e.g. unfair,inconclusive)",
    )  # fmt: skip
    audit.add_argument(
        "--allow-undefined", action="store_true",
        help="let a --fail-on condition on an undefined value pass (default: it fails)",
    )  # fmt: skip
    audit.add_argument(
        "--criteria", help="the summary's criteria, comma-separated (default: a standard set)"
    )
    audit.add_argument(
        "--verdict-rule", choices=["interval", "point"], default="interval",
        help="judge the interval (default) or the point value against the fair band",
    )  # fmt: skip
    audit.add_argument(
        "--frequency-weights", action="store_true",
        help="read --sample-weight as row counts (default: sampling weights, Kish "
        "effective sizes)",
    )  # fmt: skip
    audit.add_argument(
        "--min-group-size", type=float, default=30,
        help="groups below this many (effective) rows are left out of the criteria "
        "(default 30; 0 keeps every group)",
    )  # fmt: skip
    audit.add_argument("--no-progress", action="store_true", help="no progress bar")
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
    if text.isidentifier():  # a plain name: a column that is not there
        msg = f"{flag} column {text!r} not found\nHint: columns are {list(schema.names())}"
        raise UsageError(msg)
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


def _dtype(column: str | pl.Expr, schema: pl.Schema) -> pl.DataType:
    if isinstance(column, str):
        return schema[column]
    return pl.LazyFrame(schema=schema).select(column.alias("__pf_x")).collect_schema()["__pf_x"]


def _sensitive(
    args: argparse.Namespace, frames: list[pl.LazyFrame], schema: pl.Schema
) -> tuple[list[str], list[pl.LazyFrame], pl.Schema]:
    """The group columns; SQL expressions become columns named by their text."""
    given = _names(args.sensitive_features) + [v for v in args.sensitive_feature if v.strip()]
    if not given and args.example:
        given = [_COMPAS["sensitive"]]
    added = []
    for text in given:
        expr = _column_or_sql(text, schema, "--sensitive-features")
        if isinstance(expr, pl.Expr):
            added.append(expr.alias(text))
    if added:
        frames = [f.with_columns(added) for f in frames]
        schema = frames[0].collect_schema()
    return given, frames, schema


def _criteria(
    args: argparse.Namespace, conditions: Sequence[Condition], scored: bool
) -> list[str] | None:
    """The summary's criteria: --criteria (or the default set) plus every gated one."""
    chosen = _names(args.criteria)
    for name in chosen:
        if name not in CRITERIA:
            msg = f"--criteria: unknown criterion {name!r}\nHint: one of {sorted(CRITERIA)}"
            raise UsageError(msg)
    gated = [c.name for c in conditions]
    if not chosen and all(g in DEFAULT_SUMMARY for g in gated):
        return None  # the summary's own default
    base = chosen or [*DEFAULT_SUMMARY, *(f"{r}_difference" for r in SCORE_RATES if scored)]
    return base + [g for g in dict.fromkeys(gated) if g not in base]


def _params(
    args: argparse.Namespace,
    schema: pl.Schema,
    sensitive: list[str],
    conditions: Sequence[Condition] = (),
) -> dict[str, Any]:
    y_true_text = args.y_true or (_COMPAS["y_true"] if args.example else None)
    if y_true_text is None or not sensitive:
        missing = [
            f for f, v in (("--y-true", y_true_text), ("--sensitive-features", sensitive)) if not v
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
    y_true = _column_or_sql(y_true_text, schema, "--y-true")
    y_prob = None if args.y_prob is None else _column_or_sql(args.y_prob, schema, "--y-prob")
    if args.y_pred is not None:
        y_pred: str | pl.Expr = _column_or_sql(args.y_pred, schema, "--y-pred")
    elif args.threshold is not None:
        if not 0 <= args.threshold <= 1 or math.isnan(args.threshold):
            msg = f"--threshold must be in [0, 1], got {args.threshold}\nHint: e.g. --threshold 0.5"
            raise UsageError(msg)
        score = pl.col(y_prob) if isinstance(y_prob, str) else y_prob
        assert score is not None
        y_pred = score >= args.threshold
    elif args.example:
        y_pred = _column_or_sql(_COMPAS["y_pred"], schema, "--y-pred")
    else:
        msg = "missing the predictions\nHint: --y-pred COL_OR_SQL, or --y-prob COL --threshold T"
        raise UsageError(msg)
    if args.sample_weight is not None and args.sample_weight not in schema:
        msg = (
            f"--sample-weight column {args.sample_weight!r} not found\nHint: columns are "
            f"{list(schema.names())}"
        )
        raise UsageError(msg)
    for col in _names(args.by):
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
    pos_label: Any = 1
    if args.pos_label is not None:
        pos_label = _convert(args.pos_label, _dtype(y_true, schema))
    if args.pos_label_pred is not None:
        # the predicted labels' own positive value: a boolean prediction
        value = _convert(args.pos_label_pred, _dtype(y_pred, schema))
        y_pred = (pl.col(y_pred) if isinstance(y_pred, str) else y_pred) == value
    if _dtype(y_pred, schema) == pl.Boolean and not (
        pos_label is True or (not isinstance(pos_label, (str, float)) and pos_label == 1)
    ):
        # a boolean prediction (a rule, or --pos-label-pred) beside labels with another
        # positive value: the labels become booleans too (y_true == --pos-label; every
        # other value of y_true is negative, as in scikit-learn's pos_label)
        truth = pl.col(y_true) if isinstance(y_true, str) else y_true
        y_true = truth == pos_label
        pos_label = 1
    return report_params(
        y_true=y_true, y_pred=y_pred, y_prob=y_prob, sensitive_features=sensitive,
        by=_names(args.by), sample_weight=args.sample_weight, pos_label=pos_label,
        reference_group=reference, min_group_size=args.min_group_size,
        criteria=_criteria(args, conditions, y_prob is not None),
        verdict_rule=args.verdict_rule, frequency_weights=args.frequency_weights,
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


def _report(frames: list[pl.LazyFrame], params: dict[str, Any], progress: bool) -> FairnessReport:
    combined = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    ns = fair(combined)
    if len(frames) == 1 or not progress:
        plans = ns._report_reductions(params)
        return ns._report_from(pl.collect_all(plans, engine="streaming"), params, plans)
    # file by file: the reductions are additive, so sum them
    bar = _Progress(len(frames), sys.stderr, enabled=True)
    merged: list[pl.DataFrame] | None = None
    for i, frame in enumerate(frames, start=1):
        parts = pl.collect_all(fair(frame)._report_reductions(params), engine="streaming")
        merged = parts if merged is None else sum_reductions(merged, parts)
        bar.update(i, f"file {i}")
    assert merged is not None
    return ns._report_from(merged, params)


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
    size = pl.col("group_n").round(1).cast(pl.String).str.replace(r"\.0$", "")
    size_c = pl.col("compared_n").round(1).cast(pl.String).str.replace(r"\.0$", "")
    compared = pl.format("{} (n={}) vs {} (n={})", "group", size, "compared_with", size_c)
    summary = report.summary.select(
        *report.by, "criterion", "value", "fair_low", "fair_high", "verdict", "ci_low",
        "ci_high", compared.alias("compared"),
    )  # fmt: skip
    header = orientation(report.params)
    left_out = excluded_groups(report.summary, report.by)
    notes = "".join(f"Left out (smaller than --min-group-size): {x}\n" for x in left_out)
    undefined = report.summary.filter(pl.col("note").is_not_null())
    for row in undefined.iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in report.by)
        notes += f"{row['criterion']}{f' ({where})' if where else ''}: {row['note']}\n"
    with pl.Config(
        tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250, float_precision=4,
        tbl_hide_dataframe_shape=True, fmt_str_lengths=80,
    ):  # fmt: skip
        return f"Rates per group\n{rates}\n\nCriteria and verdicts ({header})\n{summary}\n" + notes


def _conditions(conditions: Sequence[str]) -> list[Condition]:
    """Parse the --fail-on conditions (before the audit runs)."""
    parsed = []
    for text in conditions:
        try:
            cond = parse_condition(text)
        except InvalidParameterError as exc:
            message = str(exc).replace("\n\nHint:", "\nHint:")
            msg = f"--fail-on: {message}"
            raise UsageError(msg) from None
        if cond.name not in CRITERIA:
            msg = (
                f"--fail-on {text!r}: unknown criterion {cond.name!r}\nHint: one of "
                f"{sorted(CRITERIA)}"
            )
            raise UsageError(msg)
        parsed.append(cond)
    return parsed


def _verdicts(text: str | None) -> list[str]:
    wanted = _names(text)
    bad = [v for v in wanted if v not in GATE_VERDICTS]
    if bad:
        msg = (
            f"--fail-on-verdict: unknown verdict(s) {bad}\nHint: comma-separated, among "
            f"{', '.join(GATE_VERDICTS)} (e.g. --fail-on-verdict unfair,inconclusive)"
        )
        raise UsageError(msg)
    return wanted


def _audit(args: argparse.Namespace) -> int:
    if args.example and args.paths:
        msg = "give either PATH... or --example, not both\nHint: drop the paths to run the example"
        raise UsageError(msg)
    if args.example:
        from polars_fair.datasets import scan_compas

        # ProPublica's comparison: African-American against Caucasian defendants
        compared = pl.col("race").is_in(["African-American", "Caucasian"])
        frames = [scan_compas().filter(compared)]
        if (
            args.reference_group is None
            and args.sensitive_features is None
            and not args.sensitive_feature
        ):
            args.reference_group = "Caucasian"
    elif args.paths:
        frames = [scan_file(p) for p in _files(args.paths)]
    else:
        msg = "nothing to audit\nHint: give PATH... or --example compas"
        raise UsageError(msg)
    conditions = _conditions(args.fail_on)
    verdicts = _verdicts(args.fail_on_verdict)
    schema = frames[0].collect_schema()
    sensitive, frames, schema = _sensitive(args, frames, schema)
    params = _params(args, schema, sensitive, conditions)
    progress = not args.no_progress and sys.stderr.isatty()
    report = _report(frames, params, progress)
    shown = dict(report.params)
    for key, flag in (("y_true", args.y_true), ("y_pred", args.y_pred), ("y_prob", args.y_prob)):
        if flag is not None:  # show a column or expression as it was given
            shown[key] = flag
    if args.y_pred is None and args.example:
        shown["y_pred"] = _COMPAS["y_pred"]
    if args.threshold is not None:
        shown["y_pred"] = f"{args.y_prob} >= {args.threshold}"
    report = dataclasses.replace(report, params=shown)
    text = _render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    for line in report.one_sided_misses(conditions):
        warnings.warn(line, UserWarning, stacklevel=1)
    crossed = report.failures(
        verdicts=verdicts, conditions=conditions, allow_undefined=args.allow_undefined
    )
    for line in crossed:
        print(f"polars-fair: fail-on: {line}", file=sys.stderr)
    return FAILED if crossed else OK


def _print_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Each distinct warning once, as a ``polars-fair: warning: ...`` line."""
    seen: set[str] = set()
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in seen:
            seen.add(text)
            print(f"polars-fair: warning: {text}", file=sys.stderr)


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
        0 when the audit ran and every gate passes, 1 when a gate fails
        (``--fail-on`` or ``--fail-on-verdict``; an undefined gated value fails
        unless ``--allow-undefined``), 2 for usage and input errors (argparse's own
        errors also exit with 2).

    Examples
    --------
    >>> from polars_fair.cli import main
    >>> main(["audit", "--example", "compas", "--format", "json", "--output", "/dev/null"])
    0
    """
    args = _parser().parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = _audit(args)
        except (UsageError, FairError, pl.exceptions.PolarsError, OSError) as exc:
            message = str(exc).strip().replace("\n\nHint:", "\nHint:")
            _print_warnings(caught)
            print(f"polars-fair: error: {message}", file=sys.stderr)
            return USAGE
    _print_warnings(caught)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
