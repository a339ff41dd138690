"""The profile commands of ``polars-fair``: ``profile``, ``audit --profile`` and ``compare``.

* ``polars-fair profile FILES... -o profile.parquet --y-true ... --y-pred ...
  --sensitive-features ... [--by ...]`` reduces each file once (a progress bar over
  the files on a terminal) and writes the sum of their profiles;
* ``polars-fair audit --profile 'profiles/*.parquet'`` audits merged profiles
  without reading rows (every audit option that acts on the derivation applies);
* ``polars-fair compare BASELINE CANDIDATE [--fail-on-worse]`` compares the
  criteria of two sides, each a profile (file or glob) or data files profiled with
  the column options; exit status 1 with ``--fail-on-worse`` when a criterion got
  significantly worse.
"""

from __future__ import annotations

import argparse
import glob
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair.exceptions import ColumnNotFoundError, InputError
from polars_fair.io import cli
from polars_fair.io._cli_args import (
    FAILED,
    OK,
    batch_arguments,
    csv_arguments,
    group_arguments,
    judgement,
    judgement_arguments,
    label_arguments,
)
from polars_fair.io._cli_sql import column_or_sql, key_name, key_texts, named, names, sql_key
from polars_fair.io._output import check_output, unwritable, write_output
from polars_fair.io.sources import read_error
from polars_fair.namespace._profile import (
    DEFAULT_SCORE_BINS,
    META_KEY,
    FairnessProfile,
    merge_sources,
    profile,
    read_profile,
)
from polars_fair.plans._profile_meta import decode_column, encode_column
from polars_fair.report._text import md_safe
from polars_fair.report._verdicts import level_text

__all__ = ["add_commands", "audit_profile", "run"]

#: The options a profile fixes (its columns, and how its files were read): refused by
#: ``audit --profile``, and by ``compare`` of two profiles.
_PROFILE_FIXES = (
    "y_true", "y_pred", "y_prob", "threshold", "sensitive_features", "sensitive_feature", "by",
    "by_key", "sample_weight", "pos_label", "pos_label_pred", "null_values",
    "infer_schema_length", "score_bins", "exact_scores", "task",
)  # fmt: skip


#: Options of a classification profile, refused with ``--task regression``.
_CLASSIFICATION_FLAGS = (
    "y_prob", "threshold", "pos_label", "pos_label_pred", "score_bins", "exact_scores",
)  # fmt: skip


def _column_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--y-true", help="column of true labels")
    parser.add_argument("--y-pred", help='column of predicted labels, or SQL ("score >= 0.5")')
    parser.add_argument("--y-prob", help="column of scores in [0, 1] (calibration, ROC)")
    group_arguments(parser)
    batch_arguments(parser)
    label_arguments(parser)
    parser.add_argument(
        "--score-bins", type=int, help=f"score histogram bins (default {DEFAULT_SCORE_BINS})"
    )
    parser.add_argument(
        "--exact-scores", action="store_true", help="keep exact per-score ROC tables"
    )
    csv_arguments(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_commands(sub: Any, audit: argparse.ArgumentParser) -> None:
    """Add ``profile`` and ``compare`` to the subcommands, and ``--profile`` to ``audit``."""
    audit.add_argument(
        "--profile", action="append", default=[], metavar="PROFILE",
        help="audit saved profile(s) instead of data: files or quoted globs, merged",
    )  # fmt: skip
    prof = sub.add_parser(
        "profile",
        help="reduce data files once to a mergeable fairness profile (Parquet)",
        description="Reduce each file once and write the sum of their profiles. Exit status: "
        "0 done, 2 usage or input error.",
    )
    prof.add_argument("paths", nargs="+", metavar="PATH", help="data files or quoted globs")
    prof.add_argument("--output", "-o", required=True, help="the profile file to write")
    _column_options(prof)
    prof.add_argument(
        "--task", choices=["classification", "regression"], default="classification",
        help="regression: numeric --y-pred and --y-true, kept as the regression sums",
    )  # fmt: skip
    cmp = sub.add_parser(
        "compare",
        help="compare a candidate's criteria with a baseline's (release gate)",
        description="Each side is a profile (file or quoted glob) or data files profiled with "
        "the column options (without any, with the columns of the other side's profile). "
        "Exit status: 0 done, 1 --fail-on-worse and a criterion got "
        "significantly worse, 2 usage or input error.",
    )
    cmp.add_argument("baseline", metavar="BASELINE", help="profile(s) or data files (glob)")
    cmp.add_argument("candidate", metavar="CANDIDATE", help="profile(s) or data files (glob)")
    _column_options(cmp)
    cmp.add_argument("--reference-group", help="reference group value (comma-separated)")
    cmp.add_argument(
        "--criteria", help="the criteria compared, comma-separated (default: the summary's)"
    )
    judgement_arguments(cmp, slices=False)  # each side's report is judged as audit judges it
    cmp.add_argument(
        "--tolerance", type=float, default=0.02,
        help="changes of the distance to the ideal within this are no change (default 0.02)",
    )  # fmt: skip
    cmp.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    cmp.add_argument("--output", "-o", help="write the comparison to this file")
    cmp.add_argument(
        "--fail-on-worse", action="store_true",
        help="exit 1 when a criterion got significantly worse",
    )  # fmt: skip
    cmp.add_argument(
        "--familywise", action="store_true",
        help="Bonferroni intervals over every row compared, so that a gate on all of them "
        "fails with nothing changed at most (1 - level)/2 of the time, not that per row",
    )  # fmt: skip


# ---- sides -----------------------------------------------------------------------------


def _is_profile(path: Path) -> bool:
    """Whether `path` is a profile file: Parquet with the profile metadata, whatever its name."""
    try:
        return META_KEY in pl.read_parquet_metadata(path)
    except (OSError, pl.exceptions.PolarsError):
        return False


def _expand(pattern: str) -> list[Path]:
    matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    if not matches:
        msg = f"no file matches {pattern!r}\nHint: check the path, and quote globs"
        raise cli.UsageError(msg)
    return [Path(m) for m in matches]


def _profile_files(args: argparse.Namespace, patterns: list[str]) -> FairnessProfile:
    """Profile data files one by one (additive), with a progress bar on a terminal."""
    files, frames, schemas = cli._open(args, patterns)  # read as audit reads them
    defaults = {
        "example": None, "reference_group": None, "min_group_size": 30, "slices": None,
        "max_depth": 2, "slice_metric": "false_positive_rate",
    }  # fmt: skip
    for name, default in defaults.items():
        if not hasattr(args, name):
            setattr(args, name, default)
    # SQL expressions of the keys become columns, as in audit; a batch key computed
    # from SQL is given to the profile as its expression, which the profile keeps
    # (``compare`` profiles data files with it, ``merge_profiles`` compares it)
    sensitive, by, derived, frames, schema = cli._keys(args, frames, schemas[0])
    spec = cli._params(args, schema, sensitive, by)
    kw = {k: getattr(spec, k) for k in ("y_true", "y_pred", "y_prob", "sample_weight",
                                         "pos_label")}  # fmt: skip
    kw["sensitive_features"] = list(spec.sensitive_features)
    kw["by"] = [derived.get(name, name) for name in spec.by] or None
    if getattr(args, "task", "classification") == "regression":
        refused = _given(args, _CLASSIFICATION_FLAGS)
        if refused:
            msg = (
                f"{', '.join(refused)} cannot be combined with --task regression: they are "
                "options of labels and scores\nHint: drop them (a regression profile keeps the "
                "regression sums of --y-pred and --y-true)"
            )
            raise cli.UsageError(msg)
        del kw["y_prob"], kw["pos_label"]
        return _reduce(args, files, frames, {**kw, "task": "regression"})
    bins = DEFAULT_SCORE_BINS if args.score_bins is None else args.score_bins
    kw.update(score_bins=bins, exact_scores=args.exact_scores)
    return _reduce(args, files, frames, kw)


def _reduce(
    args: argparse.Namespace,
    files: list[Path],
    frames: list[pl.LazyFrame],
    kw: dict[str, Any],
    columns_hint: tuple[str, str] | None = None,
) -> FairnessProfile:
    """The sum of the profiles of `frames` (one per file), a progress bar on a terminal.

    A file that cannot be read is named; a column it lacks, where `columns_hint` is
    given (the columns came from elsewhere), is a usage error with that hint.
    """
    progress = not args.no_progress and sys.stderr.isatty()
    bar = cli._Progress(len(frames), sys.stderr, enabled=progress)
    parts = []
    for i, (path, frame) in enumerate(zip(files, frames, strict=True), start=1):
        try:
            parts.append(profile(frame, **kw))
        except ColumnNotFoundError as exc:
            if columns_hint is None:
                raise read_error(path, exc) from exc
            found = " ".join(str(exc).split("Hint:")[0].split())
            msg = f"{path} {columns_hint[0]} ({found})\nHint: {columns_hint[1]}"
            raise cli.UsageError(msg) from exc
        except (pl.exceptions.PolarsError, OSError) as exc:  # a corrupt file: name it
            raise read_error(path, exc) from exc
        except InputError as exc:  # the scan failed past its schema: the file is corrupt
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            raise read_error(path, cause) from exc
        bar.update(i, path.name)
    return merge_sources(parts, [str(f) for f in files])


#: Extensions of data files, which a profile (Parquet) is not written as.
_DATA_SUFFIXES = (
    ".csv", ".tsv", ".txt", ".json", ".ndjson", ".jsonl", ".arrow", ".ipc", ".feather",
)  # fmt: skip


def _is_profiles(pattern: str) -> bool:
    """Whether `pattern` names profiles (True) or data files (False), not a mix."""
    kinds = {_is_profile(p) for p in _expand(pattern)}
    if len(kinds) > 1:
        msg = f"{pattern!r} mixes profiles and data files\nHint: give one kind per side"
        raise cli.UsageError(msg)
    return kinds == {True}


def _side(args: argparse.Namespace, pattern: str, profiles: bool) -> FairnessProfile:
    if profiles:
        return _judged(read_profile([str(p) for p in _expand(pattern)]), pattern, "compare")
    return _profile_files(args, [pattern])


def _judged(prof: FairnessProfile, source: object, command: str) -> FairnessProfile:
    """`prof`, refused when it is a regression profile (which has no verdicts to judge)."""
    if prof.task == "regression":
        msg = (
            f"{source!r} is a regression profile (--task regression): regression criteria "
            f"have no intervals or verdicts in polars_fair, so `{command}` has nothing to "
            "judge\nHint: give classification profiles; a regression profile offers its tables "
            "in Python, e.g. `polars_fair.read_profile(path).regression_by_group()`"
        )
        raise cli.UsageError(msg)
    return prof


#: The column options: without any, data files compared with a profile take its columns.
_COLUMN_FLAGS = (
    "y_true", "y_pred", "y_prob", "threshold", "sensitive_features", "sensitive_feature", "by",
    "by_key", "sample_weight", "pos_label", "pos_label_pred", "score_bins", "exact_scores",
)  # fmt: skip


def _like(args: argparse.Namespace, pattern: str, prof: FairnessProfile) -> FairnessProfile:
    """Data files `pattern` profiled with the columns and options of `prof`."""
    files, frames, schemas = cli._open(args, [pattern])
    spec = prof.spec
    # groups given as SQL on the command line are named by their text: derive them again
    added = []
    for name in spec["sensitive_features"]:
        if name not in schemas[0]:
            try:
                expr = column_or_sql(name, schemas[0], "--sensitive-features")
            except cli.UsageError:
                continue  # not SQL either: the profile names a column the files lack
            if isinstance(expr, pl.Expr):
                added.append(expr.alias(name))
    frames = [f.with_columns(added) for f in frames] if added else frames
    by: list[str | pl.Expr] = []
    for item in prof.meta["spec"].get("by_items", spec["by"]):
        decoded = decode_column(item)
        assert decoded is not None  # a key is a name or an expression
        by.append(decoded)
    kw = {k: spec[k] for k in ("y_true", "y_pred", "y_prob", "sample_weight", "pos_label")}
    bins = prof.meta["score_bins"]
    kw.update(
        sensitive_features=list(spec["sensitive_features"]), by=by or None,
        n_bins=spec["n_bins"], score_bins=DEFAULT_SCORE_BINS if bins is None else bins,
        exact_scores=bins is None and spec["y_prob"] is not None,
    )  # fmt: skip
    hint = (
        "cannot be profiled with the columns of the other side's profile",
        "give the column options (--y-true, --y-pred, --sensitive-features, ...) for the "
        "data files",
    )
    return _reduce(args, files, frames, kw, hint)


def _given(args: argparse.Namespace, flags: tuple[str, ...]) -> list[str]:
    """The options among `flags` given on the command line.

    An option is given when it is off its default (None, False, or [] for a repeatable
    one), so a falsy value such as ``--threshold 0`` counts.
    """
    given = []
    for flag in flags:
        value = getattr(args, flag, None)
        if value is not None and value is not False and value != []:
            given.append(f"--{flag.replace('_', '-')}")
    return given


def _options(args: argparse.Namespace, prof: FairnessProfile) -> dict[str, Any]:
    """Report options from the command line, with values typed like the profile's columns."""
    options: dict[str, Any] = {"min_group_size": args.min_group_size, **judgement(args)}
    if getattr(args, "criteria", None) is not None and args.command == "compare":
        scored = prof.meta["spec"].get("y_prob") is not None
        options["criteria"] = cli._criteria(args, [], scored)
    if args.reference_group is not None:
        sensitive = prof.meta["spec"]["sensitive_features"]
        values = cli._reference_values(args.reference_group, sensitive)
        schema = prof.schema
        typed = [cli._convert(v, schema[c]) for v, c in zip(values, sensitive, strict=True)]
        options["reference_group"] = typed[0] if len(typed) == 1 else tuple(typed)
    return options


# ---- commands ---------------------------------------------------------------------------


def audit_profile(args: argparse.Namespace) -> int:
    """``audit --profile``: the report of merged profiles (no rows are read)."""
    # --by may repeat the profile's own batch keys (as profile.report(by=...) may)
    given = [g for g in _given(args, _PROFILE_FIXES) if g not in ("--by", "--by-key")]
    if args.paths or args.example or given:
        extra = [
            *given,
            *(["PATH..."] if args.paths else []),
            *(["--example"] * bool(args.example)),
        ]
        msg = (
            f"{', '.join(extra)} cannot be combined with --profile: the profile fixes the data "
            "and its columns\nHint: drop them, or audit the data instead"
        )
        raise cli.UsageError(msg)
    conditions = cli._conditions(args.fail_on)
    verdicts = cli._verdicts(args.fail_on_verdict)
    slices = names(args.slices)
    if args.slices is not None and not slices:
        msg = "--slices names no column\nHint: e.g. --slices race,sex,age_cat, or leave it out"
        raise cli.UsageError(msg)
    if args.fail_on_slices and not slices:
        msg = "--fail-on-slices needs --slices\nHint: e.g. --slices race,sex,age_cat"
        raise cli.UsageError(msg)
    check_output(args.output, inputs=args.profile)  # before the profiles are read
    prof = _judged(read_profile(args.profile), " ".join(args.profile), "audit")
    if args.by is not None or args.by_key:
        _check_profile_keys(args, prof)
    options = _options(args, prof)
    if slices:  # from the profile's table, when it was made at a crossing holding them
        sensitive = list(prof.meta["spec"]["sensitive_features"])
        missing = [c for c in slices if c not in sensitive]
        if missing:
            msg = (
                f"--slices {','.join(missing)}: the profile was not made at a crossing holding "
                f"them (its groups are {','.join(sensitive)})\nHint: profile the data with "
                f"--sensitive-features {','.join([*sensitive, *missing])}, or slice the data "
                "instead"
            )
            raise cli.UsageError(msg)
        options.update(slices=slices, max_depth=args.max_depth, slice_metric=args.slice_metric)
    scored = prof.meta["spec"].get("y_prob") is not None
    criteria = cli._criteria(args, conditions, scored)
    if criteria is not None:
        options["criteria"] = criteria
    report = prof.report(**options)
    text = cli._render(report, args.format, args.max_rows or None)
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    for line in report.one_sided_misses(conditions):
        warnings.warn(line, UserWarning, stacklevel=1)
    crossed = cli._gate(report, args, verdicts, conditions)
    for line in crossed:
        print(f"polars-fair: fail-on: {line}", file=sys.stderr)
    return FAILED if crossed else OK


def _check_profile_keys(args: argparse.Namespace, prof: FairnessProfile) -> None:
    """``audit --profile`` with ``--by``/``--by-key``: the profile's own keys only.

    The keys given are named as ``profile`` named them (a SQL key by its alias, else
    its text) and must be the profile's, in order; a key given as SQL must also be the
    expression the profile kept for it (``strftime(ts, '%Y-%W') AS month`` is not the
    month of ``strftime(ts, '%Y-%m') AS month``).
    """
    texts = key_texts(args.by, None) + key_texts(None, args.by_key)
    shown = ",".join(texts) if len(texts) != 1 else texts[0]
    keys: dict[str, pl.Expr | None] = {}
    for text in texts:
        expr = None if text in prof.by else sql_key(text, "--by")
        name = text if expr is None else key_name(text, expr, alias=True)
        if name in keys:  # as for the data's keys (`key_columns`)
            msg = f"--by gives two keys named {name!r}\nHint: give each of the profile's keys once"
            raise cli.UsageError(msg)
        keys[name] = expr
    if list(keys) != prof.by:
        msg = (
            f"--by {shown!r} differs from the profile's batch keys "
            f"{','.join(prof.by) or '(none)'}: the profile fixes them\nHint: drop --by, or "
            f"profile the data with --by {shown!r}"
        )
        raise cli.UsageError(msg)
    kept = prof.meta["spec"].get("by_items")
    if kept is None:  # a profile older than the expressions: its keys are known by name only
        return
    for (name, expr), item in zip(keys.items(), kept, strict=True):
        if expr is not None and encode_column(named(expr, name)) != item:
            theirs = decode_column(item)
            theirs = f"the column {theirs!r}" if isinstance(theirs, str) else f"{theirs}"
            msg = (
                f"--by: the key {name!r} is computed here by another expression than the "
                f"profile's ({theirs})\nHint: drop --by, or give the profile's own key "
                "as it was given to `polars-fair profile`"
            )
            raise cli.UsageError(msg)


def _profile_command(args: argparse.Namespace) -> int:
    if args.score_bins is not None and args.score_bins < 1:
        msg = f"--score-bins must be a positive integer, got {args.score_bins}\nHint: e.g. 1000"
        raise cli.UsageError(msg)
    # before any read; a profile is written to a file only (-o is required)
    check_output(args.output, example="profile.parquet", inputs=args.paths, stdout=False)
    suffix = Path(args.output).suffix.lower()
    if suffix in _DATA_SUFFIXES:
        msg = (
            f"--output {args.output!r}: a profile is written as Parquet, not {suffix}"
            f"\nHint: name it {Path(args.output).with_suffix('.parquet').name!r}"
        )
        raise cli.UsageError(msg)
    prof = _profile_files(args, args.paths)
    try:
        prof.write_parquet(args.output)
    except (OSError, pl.exceptions.PolarsError) as exc:
        reason = str(exc).split(" (os error")[0] if exc.args else type(exc).__name__
        raise cli.UsageError(unwritable(args.output, reason, stdout=False)) from exc
    print(f"polars-fair: wrote {prof!r} to {args.output}", file=sys.stderr)
    return OK


def _compare_command(args: argparse.Namespace) -> int:
    judgement(args)  # the judgement options, checked before any data is read
    if not math.isfinite(args.tolerance) or args.tolerance < 0:
        msg = f"--tolerance must be a finite number >= 0, got {args.tolerance}\nHint: e.g. 0.02"
        raise cli.UsageError(msg)
    check_output(args.output, example="comparison.txt", inputs=[args.baseline, args.candidate])
    profiles = [_is_profiles(args.baseline), _is_profiles(args.candidate)]
    given = _given(args, _PROFILE_FIXES)
    if all(profiles) and given:
        msg = (
            f"{', '.join(given)} cannot be combined with two profiles: each profile fixes "
            "its data and columns\nHint: drop them, or give data files for a side"
        )
        raise cli.UsageError(msg)
    if profiles[0] != profiles[1] and not _given(args, _COLUMN_FLAGS):
        # one profile and data files without column options: the data take its columns
        known = _side(args, args.baseline if profiles[0] else args.candidate, profiles=True)
        other = _like(args, args.candidate if profiles[0] else args.baseline, known)
        baseline, candidate = (known, other) if profiles[0] else (other, known)
    else:
        baseline = _side(args, args.baseline, profiles[0])
        candidate = _side(args, args.candidate, profiles[1])
    _same_features(baseline, candidate)  # before a --reference-group is looked up in either
    options = _options(args, candidate)
    report = candidate.report(**options)
    table = report.compare(
        baseline.report(**options), tolerance=args.tolerance, familywise=args.familywise
    )
    # the verdict judges the change of the distance from the ideal: shown beside the change
    shown = table.select(
        *candidate.by, "criterion", "baseline", "candidate", "change", "ci_low", "ci_high",
        "distance_change", pl.col("verdict").cast(pl.String),
    )  # fmt: skip
    rule = (
        f"Candidate against baseline (verdict: the change of the distance from the "
        f"ideal, distance_change, beyond ±{args.tolerance:g} with its "
        f"{_interval_text(args, report.params, table)} excluding 0)"
    )
    if args.format == "json":  # every column, the distance's interval included
        text = table.with_columns(pl.col(pl.Enum).cast(pl.String)).write_json()
    elif args.format == "markdown":  # never wrap a cell: Markdown rows are single lines
        with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_dataframe_shape=True, tbl_rows=-1,
                       tbl_cols=-1, float_precision=4, tbl_hide_column_data_types=True,
                       tbl_width_chars=65_535, fmt_str_lengths=1_000):  # fmt: skip
            text = f"{rule}\n\n{md_safe(shown)}\n{_pairs_text(table, candidate.by)}"
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4,
                       tbl_hide_dataframe_shape=True, fmt_str_lengths=60):  # fmt: skip
            text = f"{rule}\n{shown}\n{_pairs_text(table, candidate.by)}"
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    worse = table.filter(pl.col("verdict") == "worse")
    for row in worse.iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in candidate.by)
        print(
            f"polars-fair: worse: {row['criterion']} {row['baseline']:.4g} -> "
            f"{row['candidate']:.4g}" + (f" ({where})" if where else ""),
            file=sys.stderr,
        )
    if args.fail_on_worse and worse.height and not args.familywise:
        _gate_hint(report.params, table)
    return FAILED if args.fail_on_worse and worse.height else OK


def _gate_hint(params: dict[str, Any], table: pl.DataFrame) -> None:
    """A failing per-row gate over several rows: how often it fails by chance, and the fix."""
    rows = table.filter(pl.col("distance_ci_low").is_not_nan()).height  # null: not judged
    if rows > 1:
        chance = 100 * (1 - float(params.get("confidence_level") or 0.95)) / 2
        print(
            f"Hint: each of the {rows} rows judged is `worse` by chance at most {chance:g}% "
            "of the time with nothing changed, so some row is more often (11-12% of releases "
            "over COMPAS's 13 criteria); --familywise bounds the whole gate at "
            f"{chance:g}%, or gate on the criteria you mean (--criteria)",
            file=sys.stderr,
        )


def _pairs_text(table: pl.DataFrame, by: list[str]) -> str:
    """The rows whose two sides compare other groups (each side's extreme pair, say)."""
    sides = [
        pl.col(f"{s}_{c}") for s in ("baseline", "candidate") for c in ("group", "compared_with")
    ]
    same = sides[0].eq_missing(sides[2]) & sides[1].eq_missing(sides[3])
    differ = table.filter(~same & pl.all_horizontal(c.is_not_null() for c in sides))
    lines = [
        f"  {row['criterion']}"
        + "".join(f", {k}={row[k]}" for k in by)
        + f": baseline {row['baseline_group']} against {row['baseline_compared_with']}, "
        f"candidate {row['candidate_group']} against {row['candidate_compared_with']}"
        for row in differ.iter_rows(named=True)
    ]
    if not lines:
        return ""
    return "\nThe two sides compare other groups in:\n" + "\n".join(lines) + "\n"


def _interval_text(args: argparse.Namespace, params: dict[str, Any], table: pl.DataFrame) -> str:
    """The changes' interval as the rule names it (with --familywise: each row's level)."""
    if not args.familywise or table.is_empty():
        return f"{level_text(params)} interval"
    level, each = float(params.get("confidence_level") or 0.95), table.item(0, "ci_level")
    if table.get_column("distance_ci_low").is_null().all():  # no row has both sides
        return f"{level_text(params)} interval (--familywise: no row could be judged)"
    rows = round((1 - level) / (1 - each))
    return (
        f"{100 * each:.4g}% interval (--familywise: Bonferroni over the {rows} "
        f"row{'s' * (rows != 1)} judged, {level_text(params)} for them all)"
    )


def _same_features(baseline: FairnessProfile, candidate: FairnessProfile) -> None:
    """Refuse two sides profiled by different sensitive features, naming both."""
    sides = [list(p.meta["spec"]["sensitive_features"]) for p in (baseline, candidate)]
    if sides[0] != sides[1]:
        msg = (
            "cannot compare the sides: they differ in `sensitive_features` "
            f"(--sensitive-features): {sides[0]} (baseline) against {sides[1]} (candidate)\nHint: audit both with the same options: give both sides the same "
            "--sensitive-features (profile both with the same columns; data files compared "
            "with a profile take its columns when no column option is given)"
        )
        raise cli.UsageError(msg)


def run(args: argparse.Namespace) -> int:
    """Run the ``profile`` or ``compare`` command (``audit --profile`` is in ``audit``)."""
    if args.command == "profile":
        return _profile_command(args)
    return _compare_command(args)
