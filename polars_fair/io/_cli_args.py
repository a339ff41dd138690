"""The options of ``polars-fair``: the parser, and the options several commands share.

:func:`build_parser` defines ``audit`` (``profile`` and ``compare`` are added by
:func:`polars_fair.io.cli_profile.add_commands`). The options that choose how the
verdicts are judged, ``df.fair.report``'s ``confidence_level``, ``method``,
``difference_band``, ``ratio_band``, ``verdict_rule``, ``frequency_weights`` and
``min_group_size``, are defined once (:func:`judgement_arguments`) for ``audit``,
``audit --profile`` and ``compare``, and checked before any data is read by
:func:`judgement`, with the library's own checks and messages.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, get_args

from polars_fair._typing import Method
from polars_fair._validate import (
    check_confidence,
    check_difference_band,
    check_method,
    check_ratio_band,
    did_you_mean,
)
from polars_fair.exceptions import InvalidParameterError
from polars_fair.io._output import UsageError
from polars_fair.io.sources import INFER_SCHEMA_LENGTH
from polars_fair.namespace._report import ReportSpec

__all__ = [
    "FAILED",
    "METHODS",
    "OK",
    "USAGE",
    "batch_arguments",
    "build_parser",
    "csv_arguments",
    "group_arguments",
    "judgement",
    "judgement_arguments",
    "label_arguments",
]

#: Exit statuses.
OK, FAILED, USAGE = 0, 1, 2

#: The comparison methods of the criteria (``method=``), as the library types them.
METHODS: tuple[str, ...] = get_args(Method)
#: ``df.fair.slices``' options that the report sets from its own (``alpha = 1 -
#: confidence_level``, ``min_size = min_group_size``): refused, naming the option to give.
_SLICE_ONLY = {"--alpha": "--confidence-level", "--min-slice-size": "--min-group-size"}
#: ``df.fair.report``'s defaults, shown in the options' help.
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(ReportSpec)}


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line and a hint, like the others."""

    def error(self, message: str) -> Any:  # argparse's signature returns NoReturn
        usage = " ".join(self.format_usage().split())
        if len(usage) > 80:  # the subcommands' usage lists every option: --help shows them
            usage = f"usage: {self.prog} [options] ..."
        self.exit(
            USAGE,
            f"{self.prog}: error: {message}\nHint: see `{self.prog} --help` ({usage})\n",
        )


def group_arguments(parser: argparse.ArgumentParser) -> None:
    """``--threshold`` and the options defining the groups (audit, profile, compare)."""
    parser.add_argument("--threshold", type=float, help="predict positive when y-prob >= this")
    parser.add_argument(
        "--sensitive-features",
        help="column(s) or SQL expression(s) defining the groups, comma-separated",
    )
    parser.add_argument(
        "--sensitive-feature", action="append", default=[], metavar="COL_OR_SQL",
        help="one column or SQL expression defining the groups (repeatable; for names "
        "or expressions holding commas)",
    )  # fmt: skip


def batch_arguments(parser: argparse.ArgumentParser, *, profile: bool = False) -> None:
    """``--by`` and ``--by-key``: the batch keys, columns or SQL (audit, profile, compare)."""
    parser.add_argument(
        "--by", metavar="COLS_OR_SQL",
        help="batch key column(s) or SQL expression(s), comma-separated (models, folds, "
        "time windows, e.g. \"strftime(ts, '%%Y-%%m') AS month\"); a SQL key is named by "
        "its alias (AS name), else by its text"
        + ("; with --profile, the profile's own keys only" if profile else ""),
    )  # fmt: skip
    parser.add_argument(
        "--by-key", action="append", default=[], metavar="COL_OR_SQL",
        help="one batch key column or SQL expression (repeatable; for names or "
        "expressions holding commas). date_trunc works as a whole expression "
        "(\"date_trunc('month', ts) AS month\"); a date held as text is parsed with "
        "date(col)",
    )  # fmt: skip


def label_arguments(parser: argparse.ArgumentParser) -> None:
    """The weights and the positive labels (audit, profile, compare)."""
    parser.add_argument("--sample-weight", help="column of non-negative weights")
    parser.add_argument("--pos-label", help="the positive label value (default 1)")
    parser.add_argument(
        "--pos-label-pred",
        help="the positive value of the predicted labels (default: --pos-label)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (audit here; profile and compare in ``cli_profile``)."""
    parser = _Parser(
        prog="polars-fair",
        description="Fairness audits of model predictions, as lazy Polars queries.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
    group_arguments(audit)
    batch_arguments(audit, profile=True)
    audit.add_argument(
        "--reference-group",
        help="reference group value (comma-separated for several features; with one, the whole text)",
    )
    label_arguments(audit)
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
        help="let a --fail-on condition on an undefined value, and a --fail-on-verdict gate "
        "that could judge no criterion (one group, the reference group too small), pass "
        "(default: they fail)",
    )  # fmt: skip
    audit.add_argument(
        "--criteria", help="the summary's criteria, comma-separated (default: a standard set)"
    )
    judgement_arguments(audit)
    for name in _SLICE_ONLY:  # df.fair.slices' own: refused with the report's option to give
        audit.add_argument(name, type=float, help=argparse.SUPPRESS)
    audit.add_argument("--no-progress", action="store_true", help="no progress bar")
    audit.add_argument(
        "--slices", metavar="COLS",
        help="slice discovery over these attributes, comma-separated (e.g. race,sex,age_cat), "
        "at FDR level 1 - --confidence-level, slices of --min-group-size rows or more",
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
    audit.add_argument(
        "--max-rows", type=int, default=50, metavar="N",
        help="table, markdown and html: show at most N groups per table, the largest "
        "(default 50; 0 shows all); json always has every row",
    )  # fmt: skip
    csv_arguments(audit)
    from polars_fair.io.cli_profile import add_commands  # profile, compare, audit --profile

    add_commands(sub, audit)
    return parser


def csv_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the CSV reading options (see :func:`_csv_options`) to a command reading files."""
    parser.add_argument(
        "--null-values", metavar="VALUES",
        help='CSV: values read as missing, comma-separated (e.g. "N/A,NA"); rows with a '
        "missing label or prediction are excluded and counted",
    )  # fmt: skip
    parser.add_argument(
        "--infer-schema-length", type=int, metavar="ROWS",
        help=f"CSV: rows used to infer column types (default {INFER_SCHEMA_LENGTH}; 0: all rows)",
    )  # fmt: skip


def judgement_arguments(parser: argparse.ArgumentParser, *, slices: bool = True) -> None:
    """The options of how verdicts are judged (``audit``, ``audit --profile``, ``compare``).

    Each is ``df.fair.report``'s keyword argument of the same name; left out, the
    library's default applies (the options default to None, see :func:`judgement`).
    `slices`: the command has slices (``audit``), which the help then says they set.
    """
    band = ",".join(f"{b:g}" for b in _DEFAULTS["ratio_band"])
    fdr = "; the slices' FDR level is 1 - LEVEL" if slices else ""
    parser.add_argument(
        "--confidence-level", type=float, metavar="LEVEL",
        help=f"level of every interval, which the verdicts judge{fdr} (default "
        f"{_DEFAULTS['confidence_level']:g}; e.g. 0.99)",
    )  # fmt: skip
    parser.add_argument(
        "--method", metavar="METHOD",
        help=f"how the criteria compare the groups: {', '.join(METHODS)} (default "
        "between_groups, to_reference with --reference-group)",
    )  # fmt: skip
    parser.add_argument(
        "--difference-band", type=float, metavar="BAND",
        help=f"a difference is fair within -BAND..BAND (default {_DEFAULTS['difference_band']:g})",
    )  # fmt: skip
    parser.add_argument(
        "--ratio-band", metavar="LOW,HIGH",
        help=f"a ratio is fair within LOW..HIGH, 0 < LOW <= 1 <= HIGH (default {band})",
    )  # fmt: skip
    parser.add_argument(
        "--verdict-rule", choices=["interval", "point"],
        help="judge the interval (default) or the point value against the fair band",
    )  # fmt: skip
    parser.add_argument(
        "--frequency-weights", action="store_true",
        help="read --sample-weight as row counts in the criteria and the per-group "
        "intervals (default: sampling weights, Kish effective sizes"
        + ("; slices always use effective sizes)" if slices else ")"),
    )  # fmt: skip
    parser.add_argument(
        "--min-group-size", type=float, default=_DEFAULTS["min_group_size"], metavar="N",
        help="groups below this many (effective) rows are left out of the criteria"
        + (" and the slices" if slices else "")
        + f" (default {_DEFAULTS['min_group_size']:g}; 0 keeps every group)",
    )  # fmt: skip


def _ratio_band(text: str) -> tuple[float, float]:
    """``LOW,HIGH`` as the library's `ratio_band`, checked by the library."""
    parts = [p.strip() for p in text.split(",")]
    try:
        band: Any = tuple(float(p) for p in parts) if len(parts) == 2 else text
    except ValueError:
        band = text  # not two numbers: the library's message names the text as given
    return check_ratio_band(band)


def judgement(args: argparse.Namespace) -> dict[str, Any]:
    """
    The report's keyword arguments of the judgement options given (none read data).

    The library checks each value and its message is the error (exit status 2); an
    unknown ``--method`` is told the closest methods, a confidence level given as a
    percentage the fraction meant.

    Examples
    --------
    >>> from polars_fair.io._cli_args import build_parser, judgement
    >>> args = build_parser().parse_args(
    ...     ["audit", "--example", "compas", "--confidence-level", "0.99", "--ratio-band", "0.9,1.1111"]
    ... )
    >>> judgement(args)
    {'confidence_level': 0.99, 'ratio_band': (0.9, 1.1111)}
    """
    for name, instead in _SLICE_ONLY.items():
        value = getattr(args, name[2:].replace("-", "_"), None)
        if value is not None:
            given = 1 - value if name == "--alpha" else value
            msg = (
                f"{name} {value:g}: the report tests the slices at the FDR level 1 - "
                f"--confidence-level, on slices of --min-group-size rows or more\nHint: "
                f"give {instead} {given:g} instead"
            )
            raise UsageError(msg)
    out: dict[str, Any] = {}
    level = getattr(args, "confidence_level", None)
    if level is not None:
        try:
            out["confidence_level"] = check_confidence(level)
        except InvalidParameterError as exc:
            if not 50 <= level < 100:  # 95 for 0.95; 1.5 is no percentage meant
                raise
            head = str(exc).split("\n\nHint:")[0]
            msg = (
                f"{head}\n\nHint: a fraction, not a percentage: `confidence_level={level / 100:g}`"
            )
            raise InvalidParameterError(msg) from None
    method = getattr(args, "method", None)
    if method is not None:
        try:
            out["method"] = check_method(method, None)
        except InvalidParameterError as exc:
            near = did_you_mean(method, METHODS)
            raise InvalidParameterError(str(exc).replace("Hint: ", f"Hint: {near}", 1)) from None
    if getattr(args, "difference_band", None) is not None:
        out["difference_band"] = check_difference_band(args.difference_band)
    if getattr(args, "ratio_band", None) is not None:
        out["ratio_band"] = _ratio_band(args.ratio_band)
    if getattr(args, "verdict_rule", None) is not None:
        out["verdict_rule"] = args.verdict_rule
    if getattr(args, "frequency_weights", False):
        out["frequency_weights"] = True
    return out
