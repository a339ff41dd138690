"""The ``polars-fair`` command line (also ``python -m polars_fair``).

``polars-fair audit PATH... --y-true COL --y-pred COL_OR_SQL --sensitive-features COL``
reads CSV, Parquet, NDJSON or Arrow IPC files lazily (globs and several files),
streams them through the report's reductions and prints the report as a table,
JSON, Markdown or HTML. Release gates: ``--fail-on-verdict unfair`` (exit status 1
when any criterion's verdict is unfair, or, with ``--slices race,sex,age_cat``, when a
slice of those attributes differs significantly from the rest) and ``--fail-on
"CRITERION OP NUMBER"`` (exit status 1 when the condition holds; one-sided, so a
ratio above its band passes ``"disparate_impact_ratio < 0.8"``, with a warning).
``--fail-on-slices`` gates on the slices alone. Exit status 2 means the command
could not run (usage or input error), with a message that says what went wrong and
how to fix it. ``polars-fair audit --example compas`` audits the bundled COMPAS
example. Warnings print as ``polars-fair: warning: ...`` lines. ``--confidence-level``,
``--method``, ``--difference-band`` and ``--ratio-band`` choose how the verdicts (and so
the gates) are judged: ``df.fair.report``'s arguments (the options are defined in
:mod:`polars_fair.io._cli_args`).

With several files and a terminal on stderr, each file is reduced on its own, with
a progress bar, and the reductions (additive) are summed before the report is
derived.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from polars_fair._utils import eager_warnings
from polars_fair._validate import did_you_mean
from polars_fair.exceptions import (
    FairError,
    IdentifierWarning,
    InvalidParameterError,
)
from polars_fair.io._cli_args import FAILED, OK, USAGE, judgement
from polars_fair.io._cli_args import build_parser as _parser
from polars_fair.io._cli_sql import column_or_sql as _column_or_sql
from polars_fair.io._cli_sql import key_columns, key_texts
from polars_fair.io._cli_sql import names as _names
from polars_fair.io._output import UsageError as UsageError
from polars_fair.io._output import check_output, columns_hint, write_output
from polars_fair.io.sources import (
    INFER_SCHEMA_LENGTH,
    check_columns,
    check_path,
    file_schemas,
    first_failure,
    read_error,
    scan_file,
)
from polars_fair.metrics._catalogue import CATALOGUE
from polars_fair.metrics._rates import SCORE_RATES
from polars_fair.metrics._registry import CRITERIA, DEFAULT_SUMMARY
from polars_fair.namespace._report import (
    ReportSpec,
    derive_report,
    report_reductions,
    sum_reductions,
)
from polars_fair.plans._profile_meta import distinct_matches
from polars_fair.report import (
    GATE_VERDICTS,
    Condition,
    FairnessReport,
    parse_condition,
)

__all__ = ["main"]

_COMPAS = {"y_true": "two_year_recid", "y_pred": "decile_score >= 5", "sensitive": "race"}


# ---- input ------------------------------------------------------------------------


def _files(patterns: Sequence[str]) -> list[Path]:
    """The files of `patterns` (paths or globs), each once: a file given twice would count twice.

    Files are told apart by their resolved paths, as :func:`~polars_fair.read_profile`
    tells profiles apart: overlapping globs, one file spelled two ways or a link to it.
    """
    found = distinct_matches(patterns, noun="file", error=UsageError, check=check_path, gap="\n")
    return [Path(match) for match in found]


def _csv_options(args: argparse.Namespace) -> dict[str, Any]:
    """The CSV reading options given on the command line."""
    length = args.infer_schema_length
    if length is not None and length < 0:
        msg = f"--infer-schema-length must be >= 0, got {length}\nHint: 0 reads every row"
        raise UsageError(msg)
    return {
        "null_values": _names(args.null_values) or None,
        "infer_schema_length": INFER_SCHEMA_LENGTH if length is None else (length or None),
    }


def _needed(spec: ReportSpec, derived: Mapping[str, str | pl.Expr]) -> list[str]:
    """The columns an audit reads (those of columns given as SQL expressions included).

    `derived`: the key columns computed from SQL (see :func:`_keys`), by name: the
    columns their expressions read are needed, not the keys themselves.
    """
    needed: list[str] = []
    for value in (spec.y_true, spec.y_pred, spec.y_prob, spec.sample_weight):
        if isinstance(value, pl.Expr):
            needed += value.meta.root_names()
        elif value is not None:
            needed.append(value)
    for name in [*spec.sensitive_features, *spec.by]:
        key = derived.get(name, name)
        needed += key.meta.root_names() if isinstance(key, pl.Expr) else [key]
    needed += list(spec.slices or ())
    return list(dict.fromkeys(needed))


def _check_group_dtypes(spec: ReportSpec, schema: pl.Schema) -> None:
    """The group and batch key columns hold single values, not lists or arrays."""
    keys = [("--sensitive-features", n) for n in spec.sensitive_features]
    for flag, name in [*keys, *(("--by", n) for n in spec.by)]:
        if not isinstance(dtype := schema[name], (pl.List, pl.Array)):
            continue  # SQL over the column, as a shell argument: "g[1]", "\\"my g\\"[1]"
        sql = name if name.isidentifier() else '\\"' + name.replace('"', '""') + '\\"'
        one = "--sensitive-feature" if flag == "--sensitive-features" else "--by-key"
        fix = f"{one} \"array_to_string({sql}, ',')\" (the values joined)"
        if isinstance(dtype, pl.List):
            fix = f'{flag} "{sql}[1]" (the first element) or {fix}'
        fix = f"{'group' if flag != '--by' else 'batch'} by one value per row with a SQL expression: {fix}"
        msg = f"{flag} column {name!r} holds lists ({dtype}), not one value per row\nHint: {fix}"
        raise UsageError(msg)


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
    if isinstance(dtype, pl.Decimal):
        try:
            return Decimal(value)
        except ArithmeticError:  # decimal.InvalidOperation: not a number
            pass
    if dtype == pl.Boolean and value.lower() in ("true", "false"):
        return value.lower() == "true"
    try:  # ISO dates, times and datetimes, read in the column's time zone
        if isinstance(dtype, pl.Datetime):
            unit, zone = dtype.time_unit, dtype.time_zone
            return pl.Series([value]).str.to_datetime(time_unit=unit, time_zone=zone).item()
        if dtype == pl.Date:
            return pl.Series([value]).str.to_date().item()
        if dtype == pl.Time:
            return pl.Series([value]).str.to_time().item()
    except pl.exceptions.PolarsError:
        pass
    return value


def _dtype(column: str | pl.Expr, schema: pl.Schema) -> pl.DataType:
    if isinstance(column, str):
        return schema[column]
    return pl.LazyFrame(schema=schema).select(column.alias("__pf_x")).collect_schema()["__pf_x"]


def _keys(
    args: argparse.Namespace, frames: list[pl.LazyFrame], schema: pl.Schema
) -> tuple[list[str], list[str], dict[str, pl.Expr], list[pl.LazyFrame], pl.Schema]:
    """The group and batch key columns; SQL expressions become columns.

    Returns the group names, the batch key names, the expressions of the keys given
    as SQL (by name), and the frames and schema with those keys added. Groups given
    as SQL are named by their text; batch keys by their alias (``... AS month``) when
    given, else by their text (:func:`polars_fair.io._cli_sql.key_columns`).
    """
    given = key_texts(
        args.sensitive_features, getattr(args, "sensitive_feature", None), "--sensitive-feature"
    )
    if not given and getattr(args, "example", None):
        given = [_COMPAS["sensitive"]]
    groups = key_columns(given, schema, "--sensitive-features")
    batch: dict[str, str | pl.Expr] = {}
    listed = (("--by", key_texts(args.by, None)), ("--by-key", key_texts(None, args.by_key)))
    for flag, texts in listed:
        for name, key in key_columns(texts, schema, flag, alias=True).items():
            if name in batch:
                msg = (
                    f"{flag} gives a second batch key named {name!r}\nHint: give each key "
                    f'once, or name them apart, e.g. {flag} "... AS {name}_2"'
                )
                raise UsageError(msg)
            batch[name] = key
    exprs = {n: e for n, e in (*groups.items(), *batch.items()) if isinstance(e, pl.Expr)}
    if exprs:
        frames = [f.with_columns(exprs.values()) for f in frames]
        schema = frames[0].collect_schema()
    return list(groups), list(batch), exprs, frames, schema


def _criteria(
    args: argparse.Namespace, conditions: Sequence[Condition], scored: bool
) -> list[str] | None:
    """The summary's criteria: --criteria (or the default set) plus every gated one."""
    chosen = _names(getattr(args, "criteria", None))
    if getattr(args, "criteria", None) is not None and not chosen:
        msg = "--criteria names no criterion\nHint: e.g. --criteria disparate_impact_ratio, or leave it out"
        raise UsageError(msg)
    for name in chosen:
        if name not in CRITERIA:
            raise UsageError(_unknown_criterion("--criteria", name))
    gated = [c.name for c in conditions]
    if not chosen and all(g in DEFAULT_SUMMARY for g in gated):
        return None  # the summary's own default
    base = chosen or [*DEFAULT_SUMMARY, *(f"{r}_difference" for r in SCORE_RATES if scored)]
    return base + [g for g in dict.fromkeys(gated) if g not in base]


def _params(
    args: argparse.Namespace,
    schema: pl.Schema,
    sensitive: list[str],
    by: list[str],
    conditions: Sequence[Condition] = (),
) -> ReportSpec:
    """The report's parameters; `sensitive` and `by`: the key columns (see :func:`_keys`)."""
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
            f"{columns_hint(schema)}"
        )
        raise UsageError(msg)
    for col in _names(args.slices):
        if col not in schema:
            msg = f"column {col!r} not found\nHint: columns are {columns_hint(schema)}"
            raise UsageError(msg)
    reference: Any = None
    if args.reference_group is not None:
        values = _reference_values(args.reference_group, sensitive)
        converted = [_convert(v, schema[c]) for v, c in zip(values, sensitive, strict=True)]
        reference = converted[0] if len(converted) == 1 else tuple(converted)
    pos_label: Any = 1
    if args.pos_label is not None:
        pos_label = _convert(args.pos_label, _dtype(y_true, schema))
    pos_label_pred = getattr(args, "pos_label_pred", None)
    if pos_label_pred is not None:
        # the predicted labels' own positive value: a boolean prediction
        dtype = _dtype(y_pred, schema)
        value = _convert(pos_label_pred, dtype)
        if isinstance(value, str) and (dtype.is_numeric() or dtype == pl.Boolean):
            msg = (
                f"--pos-label-pred {pos_label_pred!r} cannot be compared with --y-pred "
                f"{args.y_pred!r} of dtype {dtype}\nHint: give a value of that type, e.g. "
                f"--pos-label-pred {'true' if dtype == pl.Boolean else 1}"
            )
            raise UsageError(msg)
        y_pred = (pl.col(y_pred) if isinstance(y_pred, str) else y_pred) == value
    # a boolean prediction (a rule, or --pos-label-pred) is True for --pos-label: the
    # library checks the true labels against it as in Python
    return ReportSpec.of(
        y_true=y_true, y_pred=y_pred, y_prob=y_prob, sensitive_features=sensitive,
        by=by, sample_weight=args.sample_weight, pos_label=pos_label,
        reference_group=reference, min_group_size=args.min_group_size,
        slices=_names(args.slices) or None, max_depth=args.max_depth,
        slice_metric=args.slice_metric,
        criteria=_criteria(args, conditions, y_prob is not None), **judgement(args),
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


def _reduce(frame: pl.LazyFrame, spec: ReportSpec) -> list[pl.DataFrame]:
    """The reductions of `frame`, collected (the in-plan checks warn as on the eager path).

    Over one cached copy of the source: collected together, they read it once (as
    ``report()`` does), not once per reduction (the statistics, and with a score the
    calibration and ROC tables).
    """
    with eager_warnings():
        reductions = report_reductions(frame, spec, shared=True)
        return pl.collect_all(reductions, engine="streaming")


def _report(frames: list[pl.LazyFrame], spec: ReportSpec, progress: bool) -> FairnessReport:
    combined = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    schema = combined.collect_schema()
    if len(frames) == 1 or not progress:
        return derive_report(spec, _reduce(combined, spec), schema)
    # file by file: the reductions are additive, so sum them
    bar = _Progress(len(frames), sys.stderr, enabled=True)
    merged: list[pl.DataFrame] | None = None
    for i, frame in enumerate(frames, start=1):
        parts = _reduce(frame, spec)
        merged = parts if merged is None else sum_reductions(merged, parts)
        bar.update(i, f"file {i}")
    assert merged is not None
    return derive_report(spec, merged, schema)


def _render(report: FairnessReport, fmt: str, max_rows: int | None) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "markdown":
        return report.to_markdown(max_rows=max_rows)
    if fmt == "html":
        return report.to_html(max_rows=max_rows)
    return report.to_text(max_rows=max_rows)


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
            raise UsageError(_unknown_criterion(f"--fail-on {text!r}", cond.name))
        parsed.append(cond)
    return parsed


def _unknown_criterion(option: str, name: str) -> str:
    """The message for a criterion the audit cannot judge: why, the closest names, all.

    A criterion of the catalogue's other families (regression, ensembles) is named as
    such: the audit compares labels, and its Python method computes it.
    """
    spec = CATALOGUE.get(name)
    if spec is not None:
        return (
            f"{option}: {name!r} is {'an' if spec.family[0] in 'aeiou' else 'a'} "
            f"{spec.family} criterion, which `polars-fair audit` "
            f"does not compute (it audits labels and scores)\nHint: compute it in Python "
            f"with `df.fair.{name}(...)`, or gate on one of {sorted(CRITERIA)}"
        )
    near = did_you_mean(name, CRITERIA)
    return f"{option}: unknown criterion {name!r}\nHint: {near}one of {sorted(CRITERIA)}"


def _gate(
    report: FairnessReport,
    args: argparse.Namespace,
    verdicts: Sequence[str],
    conditions: Sequence[Condition],
) -> list[str]:
    """The gates that fail: verdicts and conditions, and significant slices.

    Significant slices fail with ``--fail-on-verdict unfair`` (a significant slice is an
    unfair verdict on a subgroup) and with ``--fail-on-slices`` (the slices alone).
    """
    crossed = report.failures(
        verdicts=verdicts, conditions=conditions,
        allow_undefined=bool(getattr(args, "allow_undefined", False)),
    )  # fmt: skip
    if getattr(args, "fail_on_slices", False) and "unfair" not in verdicts:
        crossed += report.slice_failures()  # with "unfair", `failures` lists them
    return crossed


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


def _open(
    args: argparse.Namespace, patterns: Sequence[str]
) -> tuple[list[Path], list[pl.LazyFrame], list[pl.Schema]]:
    """The files of `patterns`, their scans and schemas (read without a pass over the data)."""
    options = _csv_options(args)
    kept, schemas, notes = file_schemas(_files(patterns), **options)
    for note in notes:  # a file with a header and no rows, among others with rows
        print(f"polars-fair: note: left out {note}", file=sys.stderr)
    return kept, [scan_file(f, **options) for f in kept], schemas


def _read(
    files: Sequence[Path], frames: list[pl.LazyFrame], spec: ReportSpec, progress: bool
) -> FairnessReport:
    """The report of the files; an error raised while reading them names the file."""
    try:
        return _report(frames, spec, progress)
    except (pl.exceptions.PolarsError, OSError) as exc:
        if not files:
            raise

        def run(frame: pl.LazyFrame) -> None:
            pl.collect_all(report_reductions(frame, spec), engine="streaming")

        found = (files[0], exc) if len(files) == 1 else first_failure(files, frames, run)
        if found is None:
            raise
        raise read_error(*found) from exc


def _reference_values(text: str, sensitive: Sequence[str]) -> list[str]:
    """The values of ``--reference-group``: one per sensitive feature.

    With one feature, the whole text (a group named ``"a, b"`` or ``"a "`` as it is);
    with several, comma-separated.
    """
    if len(sensitive) == 1:
        return [text]
    values = [v.strip() for v in text.split(",")]
    if len(values) != len(sensitive):
        msg = (
            f"--reference-group {text!r} gives {len(values)} value(s) for {len(sensitive)} "
            "sensitive feature(s)\nHint: one value per feature, comma-separated"
        )
        raise UsageError(msg)
    return values


def _audit(args: argparse.Namespace) -> int:
    judgement(args)  # the judgement options, checked before any data is read
    if args.profile:
        from polars_fair.io.cli_profile import audit_profile

        return audit_profile(args)
    if args.example and args.paths:
        msg = "give either PATH... or --example, not both\nHint: drop the paths to run the example"
        raise UsageError(msg)
    if args.max_rows < 0:
        msg = f"--max-rows must be >= 0, got {args.max_rows}\nHint: 0 shows every row"
        raise UsageError(msg)
    check_output(args.output, inputs=args.paths or ())
    files: list[Path] = []
    if args.example:
        from polars_fair.io.datasets import scan_compas

        # ProPublica's comparison: African-American against Caucasian defendants
        compared = pl.col("race").is_in(["African-American", "Caucasian"])
        frames = [scan_compas().filter(compared)]
        schemas = [frames[0].collect_schema()]
        if (
            args.reference_group is None
            and args.sensitive_features is None
            and not args.sensitive_feature
        ):
            args.reference_group = "Caucasian"
    elif args.paths:
        files, frames, schemas = _open(args, args.paths)
    else:
        msg = "nothing to audit\nHint: give PATH... or --example compas"
        raise UsageError(msg)
    conditions = _conditions(args.fail_on)
    verdicts = _verdicts(args.fail_on_verdict)
    if args.slices is not None and not _names(args.slices):
        msg = "--slices names no column\nHint: e.g. --slices race,sex,age_cat, or leave it out"
        raise UsageError(msg)
    if args.fail_on_slices and not args.slices:
        msg = "--fail-on-slices needs --slices\nHint: e.g. --slices race,sex,age_cat"
        raise UsageError(msg)
    sensitive, by, derived, frames, schema = _keys(args, frames, schemas[0])
    spec = _params(args, schema, sensitive, by, conditions)
    _check_group_dtypes(spec, schema)
    if files:
        needed = _needed(spec, derived)
        check_columns(files, schemas, needed)
    # file by file needs fixed bins; slices bin numeric attributes over all the rows
    progress = not args.no_progress and sys.stderr.isatty() and not args.slices
    report = _read(files, frames, spec, progress)
    shown = dict(report.params)
    for key, flag in (("y_true", args.y_true), ("y_pred", args.y_pred), ("y_prob", args.y_prob)):
        if flag is not None:  # show a column or expression as it was given
            shown[key] = flag
    if args.y_pred is None and args.example:
        shown["y_pred"] = _COMPAS["y_pred"]
    if args.threshold is not None:
        shown["y_pred"] = f"{args.y_prob} >= {args.threshold}"
    report = dataclasses.replace(report, params=shown)
    text = _render(report, args.format, args.max_rows or None)
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    for line in report.one_sided_misses(conditions):
        warnings.warn(line, UserWarning, stacklevel=1)
    crossed = _gate(report, args, verdicts, conditions)
    for line in crossed:
        print(f"polars-fair: fail-on: {line}", file=sys.stderr)
    return FAILED if crossed else OK


def _print_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Each distinct warning once, as a ``polars-fair: warning: ...`` line."""
    seen: set[str] = set()
    for w in caught:
        head, sep, hint = str(w.message).partition("Hint:")
        text = " ".join(head.split()) + ("\nHint: " + " ".join(hint.split()) if sep else "")
        if text not in seen:
            seen.add(text)
            text = _command_line_hint(text)
            print(f"polars-fair: warning: {text}", file=sys.stderr)


#: A library hint's Python threshold, ``y_pred=pl.col('s') >= 0.5``, and its options' form.
_PY_THRESHOLD = re.compile(r"`y_pred=pl\.col\('([^']*)'\) >= ([^`]*)`")


_PY_RENAME = re.compile(
    r"given as `(\w+)`.*rename it first, e.g. `\.rename\(\{'(.*)': '(.*)'\}\)`", re.S
)
#: A library hint's ratio band, ``ratio_band=(0.8, 1.25)``.
_PY_BAND = re.compile(r"`ratio_band=\(([-+\w.]+), ([-+\w.]+)\)`")
#: A library hint's keyword argument with one plain value, ``min_group_size=30``.
_PY_KEYWORD = re.compile(r"`([a-z_]+)=(\"[^\"`]*\"|'[^'`]*'|[-+\w.]+)`")
#: The library's parameters that have a command-line option of the same name.
_OPTIONS = frozenset(
    {"y_true", "y_pred", "y_prob", "threshold", "sensitive_features", "by", "reference_group",
     "sample_weight", "pos_label", "criteria", "verdict_rule", "min_group_size", "slices",
     "max_depth", "slice_metric", "null_values", "infer_schema_length", "method",
     "confidence_level", "difference_band", "ratio_band", "score_bins"}
)  # fmt: skip


#: A parameter named alone in a hint, e.g. "with `reference_group`".
_PY_NAME = re.compile(r"`([a-z_]+)`")


def _option_name(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"`--{name.replace('_', '-')}`" if name in _OPTIONS else match.group(0)


def _option(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2)
    if name not in _OPTIONS:
        return match.group(0)
    return f"`--{name.replace('_', '-')} {value.strip(chr(34) + chr(39))}`"


def _command_line_hint(message: str) -> str:
    """`message` with the fixes it suggests in Python written as command-line options.

    Only the hint (after ``Hint:``) is rewritten: the first line names the parameter
    as the library does, the hint shows the option to type.
    """
    message = _PY_THRESHOLD.sub(r"""`--y-pred "\1 >= \2"` (a SQL expression)""", message)
    message = message.replace("set `pos_label` to", "set `--pos-label` (`--pos-label-pred`) to")
    message = _PY_BAND.sub(r"`--ratio-band \1,\2`", message)
    head, sep, hint = message.partition("Hint:")
    if (clash := _PY_RENAME.search(message)) is not None:  # no .rename() on the command line
        param, old, new = clash.groups()
        option = {"sensitive_features": "--sensitive-feature", "by": "--by"}.get(param)
        sql = option is not None and old.isidentifier() and "__pf_" not in old
        fix = f'{option} "{old} AS {new}"' if sql else "rename the column in the file"
        return f"{head}Hint: {'give it another name, e.g. ' if sql else ''}{fix}"
    hint = _PY_KEYWORD.sub(_option, hint)
    return head + sep + _PY_NAME.sub(_option_name, hint)


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
        (``--fail-on`` or ``--fail-on-verdict``; an undefined gated value, or a
        verdict gate that could judge no criterion, fails unless
        ``--allow-undefined``), 2 for usage and input errors (argparse's own
        errors also exit with 2).

    Examples
    --------
    >>> from polars_fair.io.cli import main
    >>> main(["audit", "--example", "compas", "--format", "json", "--output", "/dev/null"])
    0
    """
    args = _parser().parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            if args.command != "audit":
                from polars_fair.io.cli_profile import run

                status = run(args)
            else:
                status = _audit(args)
        except (UsageError, FairError, pl.exceptions.PolarsError, OSError) as exc:
            message = _command_line_hint(str(exc).strip().replace("\n\nHint:", "\nHint:"))
            print(f"polars-fair: error: {message}", file=sys.stderr)
            status = USAGE
    caught.sort(key=lambda w: not issubclass(w.category, IdentifierWarning))  # the cause first
    _print_warnings(caught)  # the library's warnings, as the program's own lines
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
