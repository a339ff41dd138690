"""Release gates on a report's verdicts, and the words around them.

A gate fails on a verdict (``unfair``, ``inconclusive``, ``undefined``) or on a
condition ``"CRITERION OP NUMBER"``; :class:`~polars_fair.report.FairnessReport`'s
``failures``, ``check`` and ``one_sided_misses`` read the summary through these
functions. :func:`orientation` and :func:`excluded_groups` say, in the report's
header, how the criteria compare groups and which groups were left out.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import polars as pl

from polars_fair._utils import find_stacklevel
from polars_fair.exceptions import DegenerateDataWarning, InvalidParameterError
from polars_fair.metrics._picks import STATISTICS
from polars_fair.metrics._registry import CRITERIA
from polars_fair.metrics._verdicts import group_label
from polars_fair.report._text import readable_expr, shown_value

__all__ = [
    "GATE_VERDICTS",
    "Condition",
    "excluded_groups",
    "failures",
    "gate_verdicts",
    "level_text",
    "one_sided_misses",
    "orientation",
    "parse_condition",
    "summary_heading",
]

#: a value and a bound that agree to 12 significant digits are equal: a criterion is a
#: ratio of float sums, and 24/80 over 30/80 (exactly 4/5) computes as 0.7999999999999999
_RTOL = 1e-12


def _same(value: float, bound: float) -> bool:
    return math.isclose(value, bound, rel_tol=_RTOL)


_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda v, b: v <= b or _same(v, b), ">=": lambda v, b: v >= b or _same(v, b),
    "==": _same, "!=": lambda v, b: not _same(v, b),
    "<": lambda v, b: v < b and not _same(v, b), ">": lambda v, b: v > b and not _same(v, b),
}  # fmt: skip
_CONDITION = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?P<op><=|>=|==|!=|<|>)\s*(?P<num>\S+)\s*$"
)
#: Verdicts a gate can fail on.
GATE_VERDICTS = ("unfair", "inconclusive", "undefined")


class Condition(NamedTuple):
    """A gate condition on a criterion: fails when ``value OP bound`` holds."""

    text: str
    name: str
    op: str
    bound: float


def parse_condition(text: str) -> Condition:
    """
    Parse a gate condition ``"CRITERION OP NUMBER"`` (OP: ``< <= > >= == !=``).

    Parameters
    ----------
    text
        The condition, e.g. ``"disparate_impact_ratio < 0.8"``.

    Returns
    -------
    Condition
        The parsed condition.

    Raises
    ------
    InvalidParameterError
        When the text is not of that form or the bound is not a finite number.

    Examples
    --------
    >>> from polars_fair.report import parse_condition
    >>> parse_condition("disparate_impact_ratio < 0.8")
    Condition(text='disparate_impact_ratio < 0.8', name='disparate_impact_ratio', op='<', bound=0.8)
    """
    match = _CONDITION.match(text)
    if match is None:
        msg = (
            f"condition {text!r} is not 'CRITERION OP NUMBER'\n\nHint: e.g. "
            '"disparate_impact_ratio < 0.8" (OP: < <= > >= == !=)'
        )
        raise InvalidParameterError(msg)
    name, op, num = match.group("name", "op", "num")
    try:
        bound = float(num)
    except ValueError:
        msg = f"condition {text!r}: {num!r} is not a number\n\nHint: e.g. 0.8"
        raise InvalidParameterError(msg) from None
    if math.isnan(bound):
        msg = (
            f"condition {text!r}: the bound must be a finite number, got {num!r} (a "
            'comparison with NaN never holds)\n\nHint: e.g. "disparate_impact_ratio < 0.8"'
        )
        raise InvalidParameterError(msg)
    if math.isinf(bound):
        raise InvalidParameterError(_infinite_bound(text, name, op, bound, num))
    return Condition(text, name, op, bound)


def _infinite_bound(text: str, name: str, op: str, bound: float, num: str) -> str:
    """The message refusing an infinite bound: the condition holds always or never."""
    # a criterion's value is finite (or undefined): compare it with a finite stand-in
    always = _OPS[op](0.0, bound)
    what = (
        "holds for every finite value, so the gate would always fail"
        if always
        else "holds for no value, so the gate could never fail"
    )
    return (
        f"condition {text!r}: the bound must be a finite number, got {num!r}: "
        f"{name} {op} {'-' if bound < 0 else '+'}infinity {what}\n\nHint: give a finite "
        f'bound, e.g. "{name} < 0.8", or gate on the verdict instead (verdicts="unfair"; on '
        "the command line --fail-on-verdict unfair)"
    )


def size_str(n: float) -> str:
    """A group size as text, as ``size_text`` writes it: to 0.1, ``3696`` not ``3696.0``.

    Examples
    --------
    >>> from polars_fair.report._verdicts import size_str
    >>> size_str(3696), size_str(3696.0000001), size_str(8238.64)
    ('3696', '3696', '8238.6')
    """
    tenth = round(float(n), 1)
    return str(int(tenth)) if tenth.is_integer() else f"{tenth:.1f}"


def _pair_text(row: dict[str, Any]) -> str:
    """``group (n=…) vs compared_with (n=…)``, the comparison behind a value."""

    def size(n: Any) -> str:
        return "?" if n is None else size_str(n)

    if row.get("group") is None:
        return "no groups compared"
    return (
        f"{row['group']} (n={size(row.get('group_n'))}) vs {row.get('compared_with')} "
        f"(n={size(row.get('compared_n'))})"
    )


def _value_text(row: dict[str, Any]) -> str:
    value = row.get("value")
    if value is None:
        return "no value"
    text = f"value {value:.4g}"
    if row.get("ci_low") is not None and row.get("ci_high") is not None:
        text += f", interval [{row['ci_low']:.4g}, {row['ci_high']:.4g}]"
    return text + f", fair band [{row['fair_low']:g}, {row['fair_high']:g}]"


def gate_verdicts(verdicts: Iterable[str]) -> list[str]:
    """The verdicts a gate fails on: one name or several, each among :data:`GATE_VERDICTS`.

    A single string is one verdict (``"unfair"``), not its characters.

    Examples
    --------
    >>> from polars_fair.report._verdicts import gate_verdicts
    >>> gate_verdicts("unfair"), gate_verdicts(["unfair", "inconclusive"])
    (['unfair'], ['unfair', 'inconclusive'])
    """
    hint = (
        f"\n\nHint: one of {', '.join(GATE_VERDICTS)}, or a list of them, e.g. "
        "verdicts=['unfair', 'inconclusive'] (() for no verdict gate)"
    )
    if isinstance(verdicts, str):
        wanted = [verdicts]
    elif isinstance(verdicts, Iterable):
        wanted = list(verdicts)
    else:
        msg = f"`verdicts` must be a verdict or a list of verdicts, got {verdicts!r}{hint}"
        raise InvalidParameterError(msg)
    bad = [v for v in wanted if not isinstance(v, str) or v not in GATE_VERDICTS]
    if bad:
        msg = (
            f"`verdicts`: unknown verdict(s) {bad}; the allowed values are "
            f"{list(GATE_VERDICTS)}{hint}"
        )
        raise InvalidParameterError(msg)
    return wanted


def _interval_text(low: Any, high: Any) -> str:
    return f"interval [{low:.4g}, {high:.4g}]"


def _pair_intervals(
    disparities: pl.DataFrame | None, by: list[str]
) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Each group's intervals against the reference, by (batch key…, label, metric).

    From the report's disparities table: ``(difference_ci_low, difference_ci_high,
    ratio_ci_low, ratio_ci_high)``, the Newcombe and Katz intervals the summary uses
    for a single-rate criterion, so that a one-sided gate firing on a group other than
    the summary's headline can print that group's interval.
    """
    columns = ("difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high")
    if disparities is None or not {"metric", *columns} <= set(disparities.columns):
        return {}
    # its key columns: the batch keys, then the sensitive features, then ``metric``
    sensitive = disparities.columns[len(by) : disparities.columns.index("metric")]
    if not sensitive:
        return {}
    label = group_label(sensitive).alias("__pf_label")
    table = disparities.select(*by, label, pl.col("metric").cast(pl.String), *columns)
    return {row[:-4]: row[-4:] for row in table.iter_rows()}


def _condition_interval(
    row: dict[str, Any],
    pair: dict[str, Any],
    lookup: dict[tuple[Any, ...], tuple[Any, ...]],
    by: list[str],
) -> str:
    """The interval of the pair a condition fired on, as text.

    The summary's own interval when the pair is its headline pair; otherwise the
    group's interval against the reference from the disparities (checked to give the
    summary's interval for the headline pair, so that both compare the same way);
    otherwise a line saying that only the headline pair has one.
    """
    low, high = row.get("ci_low"), row.get("ci_high")
    if pair.get("group") == row.get("group"):
        return "no interval" if low is None or high is None else _interval_text(low, high)
    spec = CRITERIA.get(row["criterion"])
    # a single rate's Newcombe (difference) or Katz (ratio, the four-fifths rule too)
    if spec is not None and len(spec.measures) == 1 and spec.interval in ("newcombe", "katz"):
        keys = tuple(row[k] for k in by)
        offset = 0 if spec.interval == "newcombe" else 2
        mine = lookup.get((*keys, row.get("group"), spec.measures[0]))
        theirs = lookup.get((*keys, pair.get("group"), spec.measures[0]))
        same = (
            mine is not None
            and low is not None
            and high is not None
            and mine[offset] is not None
            and mine[offset + 1] is not None
            and math.isclose(mine[offset], low, rel_tol=1e-9, abs_tol=1e-12)
            and math.isclose(mine[offset + 1], high, rel_tol=1e-9, abs_tol=1e-12)
        )
        if same and theirs is not None and theirs[offset] is not None:
            return _interval_text(theirs[offset], theirs[offset + 1])
    statistic = _statistic_interval(row, pair)
    if statistic is not None:
        return _interval_text(*statistic)
    headline = "" if low is None or high is None else f" [{low:.4g}, {high:.4g}]"
    return f"no interval for this pair (the summary's interval{headline} is for {_pair_text(row)})"


def _statistic_interval(row: dict[str, Any], pair: dict[str, Any]) -> tuple[float, float] | None:
    """Cohen's d or the 2-SD z of a group other than the headline, against the reference.

    The summary's intervals of these (``delta``, ``normal``) are symmetric about the
    value, with a half-width that its own row gives the level of: the 2-SD z's is the
    normal quantile itself; Cohen's d's is that quantile times ``sqrt((n1 + n2) / (n1
    n2) + d**2 / (2 (n1 + n2)))`` (Hedges and Olkin), with the effective sizes the row
    names. The other group's interval is the same formula at its own value and size.
    """
    numbers = (row.get("value"), row.get("ci_high"), pair.get("value"))
    if row["criterion"] not in STATISTICS or row.get("ci_low") is None:
        return None
    if any(n is None for n in numbers):
        return None
    value, high, d = (float(n) for n in numbers)  # type: ignore[arg-type]
    if row["criterion"] == "two_sd_rule":
        return d - (high - value), d + (high - value)

    def se(v: float, n1: Any, n2: Any) -> float | None:
        if not n1 or not n2:
            return None
        return math.sqrt((n1 + n2) / (n1 * n2) + v * v / (2 * (n1 + n2)))

    own = se(value, row.get("group_n"), row.get("compared_n"))
    theirs = se(d, pair.get("group_n"), row.get("compared_n"))
    if own is None or theirs is None or own == 0:
        return None
    z = (high - value) / own
    return d - z * theirs, d + z * theirs


def failures(
    summary: pl.DataFrame,
    by: list[str],
    verdicts: Iterable[str],
    conditions: Iterable[str | Condition],
    allow_undefined: bool,
    disparities: pl.DataFrame | None = None,
) -> list[str]:
    """The failing gates of a summary (see :meth:`FairnessReport.failures`).

    A condition's line names the criterion, the value, the pair it fired on with
    their sizes, and that pair's interval: `disparities` (the report's disparities
    table) gives it for a one-sided gate that fires on a group other than the
    summary's headline.
    """
    wanted = gate_verdicts(verdicts)
    parsed = [c if isinstance(c, Condition) else parse_condition(c) for c in conditions]
    known = summary.get_column("criterion").unique(maintain_order=True).to_list()
    for cond in parsed:
        if cond.name not in known:
            msg = (
                f"condition {cond.text!r}: {cond.name!r} is not in this report's summary"
                f"\n\nHint: add it with `criteria=[...]`; the summary has {known}"
            )
            raise InvalidParameterError(msg)
    lines: list[str] = []
    rows = list(summary.with_columns(pl.col("verdict").cast(pl.String)).iter_rows(named=True))
    for row in rows:
        where = ", ".join(f"{k}={row[k]}" for k in by)
        suffix = f" ({where})" if where else ""
        if row["verdict"] in wanted:
            lines.append(
                f"{row['criterion']} is {row['verdict']}: {_value_text(row)}: "
                f"{_pair_text(row)}{suffix}"
            )
    if wanted and "undefined" not in wanted:
        lines += _unjudged(rows, by, wanted, allow_undefined)
    lookup: dict[tuple[Any, ...], tuple[Any, ...]] | None = None  # read when needed
    for cond in parsed:
        for row in rows:
            if row["criterion"] != cond.name:
                continue
            where = ", ".join(f"{k}={row[k]}" for k in by)
            suffix = f" ({where})" if where else ""
            value = row["value"]
            no_value = value is None or (isinstance(value, float) and math.isnan(value))
            if no_value or row["verdict"] == "undefined":
                if not allow_undefined:
                    why = row.get("note") or "no value"
                    lines.append(
                        f"{cond.text}: {cond.name} is undefined ({why}){suffix}; pass "
                        "allow_undefined (--allow-undefined) to let it pass"
                    )
                continue
            # a one-sided gate reads the extreme on its side: "> 1.25" fails when
            # any group compared is above 1.25, not only the farthest one
            side = {"<": "lowest", "<=": "lowest", ">": "highest", ">=": "highest"}
            extreme = side.get(cond.op)
            pair = row
            if extreme is not None and row.get(extreme) is not None:
                value = row[extreme]
                pair = {
                    **row,
                    "group": row[f"{extreme}_group"],
                    "group_n": row[f"{extreme}_n"],
                    "value": value,
                }
            if _OPS[cond.op](value, cond.bound):
                if lookup is None:
                    lookup = _pair_intervals(disparities, by)
                interval = _condition_interval(row, pair, lookup, by)
                lines.append(
                    f"{cond.name} = {value:.4g} {cond.op} {cond.bound:g} ({interval}): "
                    f"{_pair_text(pair)}{suffix}"
                )
    return lines


def _unjudged(
    rows: list[dict[str, Any]], by: list[str], wanted: list[str], allow_undefined: bool
) -> list[str]:
    """A verdict gate over criteria it could not judge (verdict ``undefined``).

    Per batch key: when no criterion could be judged (one group, the reference
    group left out as too small), the gate fails with one line saying why, unless
    `allow_undefined`, as a condition on an undefined value does. Criteria it
    could not judge beside others it could pass, with a
    :class:`~polars_fair.exceptions.DegenerateDataWarning` naming them and the fix.
    """
    keys: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        keys.setdefault(tuple(row[k] for k in by), []).append(row)
    lines, passed = [], []
    for key, key_rows in keys.items():
        unjudged = [r for r in key_rows if r["verdict"] == "undefined"]
        if not unjudged:
            continue
        where = ", ".join(f"{k}={v}" for k, v in zip(by, key, strict=True))
        notes = list(dict.fromkeys(r["note"] for r in unjudged if r.get("note")))
        why = f" ({'; '.join(notes[:2])})" if notes else ""
        if len(unjudged) == len(key_rows) and not allow_undefined:
            lines.append(
                f"no criterion could be judged{f' for {where}' if where else ''}{why}: a "
                "verdict gate that judges nothing does not pass; pass allow_undefined "
                "(--allow-undefined) to let it pass"
            )
        else:
            passed.append((len(unjudged), len(key_rows), where, why))
    if passed:
        count, total, where, why = passed[0]
        more = f" (and in {len(passed) - 1} more batch keys)" if len(passed) > 1 else ""
        gate = ",".join(wanted)
        msg = (
            f"verdict gate {gate}: {count} of {total} criteria"
            f"{f' for {where}' if where else ''} could not be judged{why}{more} and pass "
            f"this gate; add 'undefined' (verdicts={[*wanted, 'undefined']}, on the command "
            f"line --fail-on-verdict {gate},undefined) to fail on them"
        )
        warnings.warn(msg, DegenerateDataWarning, stacklevel=find_stacklevel())
    return lines


def one_sided_misses(
    summary: pl.DataFrame, by: list[str], conditions: Iterable[str | Condition]
) -> list[str]:
    """One-sided conditions blind to the other side (see :meth:`FairnessReport.one_sided_misses`)."""
    out = []
    parsed = [c if isinstance(c, Condition) else parse_condition(c) for c in conditions]
    watched = {(c.name, c.op in ("<", "<=")) for c in parsed if c.op not in ("==", "!=")}
    for cond in parsed:
        if cond.op in ("==", "!="):
            continue
        low_gate = cond.op in ("<", "<=")
        if (cond.name, not low_gate) in watched:
            continue  # another condition watches the other side
        rows = summary.filter(pl.col("criterion") == cond.name)
        for row in rows.iter_rows(named=True):
            key = "highest" if low_gate else "lowest"
            value = row.get(key, row["value"])
            if value is None:
                continue
            outside = (
                _OPS[">"](value, row["fair_high"])
                if low_gate
                else _OPS["<"](value, row["fair_low"])
            )
            if not outside:
                continue
            side, bound = ("above", row["fair_high"]) if low_gate else ("below", row["fair_low"])
            where = ", ".join(f"{k}={row[k]}" for k in by)
            other = f"{cond.name} {'>' if low_gate else '<'} {bound:g}"
            # the pair behind the value, with both sizes, as a gate's failure names it
            pair = {**row, "group": row.get(f"{key}_group", row.get("group")),
                    "group_n": row.get(f"{key}_n", row.get("group_n"))}  # fmt: skip
            out.append(
                f"{cond.text!r} watches one side only: {cond.name} = {value:.4g} "
                f"({_pair_text(pair)}{', ' + where if where else ''}) is {side} its fair band "
                f"[{row['fair_low']:g}, {row['fair_high']:g}]: add '{other}', or gate on "
                "the verdict (--fail-on-verdict unfair)"
            )
    return out


#: Statistics of two groups: under ``to_overall`` they compare the most and the least
#: selected groups, and with a reference group Cohen's d and the 2-SD z take the group
#: whose statistic is farthest from 0 (not the group of the largest rate gap).
_TWO_GROUP_STATISTICS = ("four_fifths_rule", "two_sd_rule", "cohen_d")


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def orientation(params: dict[str, Any], criteria: Iterable[str] | None = None) -> str:
    """
    The orientation of an audit's criteria, in words (the report's header).

    True of every row: where the two-group statistics (the four-fifths rule, the
    2-SD rule, Cohen's d) pick their pair differently from the other criteria, the
    words say so, for those of `criteria` (default: the audit's ``criteria``, or
    all three when it used the default set).

    Examples
    --------
    >>> from polars_fair.report._verdicts import orientation
    >>> print(orientation({"method": "to_overall"}, ["demographic_parity_difference", "cohen_d"]))
    orientation: each group against the whole population (the largest gap); cohen_d compares the most and the least selected groups (max - min)
    """
    reference = params.get("reference_group")
    method = params.get("method")
    names = criteria if criteria is not None else params.get("criteria")
    wanted = set(_TWO_GROUP_STATISTICS if names is None else names)
    present = [c for c in _TWO_GROUP_STATISTICS if c in wanted]
    if method == "to_overall":
        text = "orientation: each group against the whole population (the largest gap)"
        if present:
            forms = [f for c, f in (("four_fifths_rule", "min / max"),) if c in present]
            forms += ["max - min"] if {"two_sd_rule", "cohen_d"} & set(present) else []
            verb = "compares" if len(present) == 1 else "compare"
            text += (
                f"; {_listed(present)} {verb} the most and the least selected groups "
                f"({', '.join(forms)})"
            )
        return text
    # a reference group with `method="between_groups"` is the disparities' only
    if method == "to_reference" or reference is not None and method is None:
        against = (
            f"the reference group {shown_value(reference)}"
            if reference is not None
            else "the largest group"
        )
        text = f"orientation: signed against {against} (group - reference, group / reference)"
        own = [c for c in present if c != "four_fifths_rule"]
        if own:
            text += (
                f"; {_listed(own)}: the group whose statistic against the reference is "
                "farthest from 0"
            )
        return text
    return "orientation: between groups (max - min, min / max)"


def excluded_groups(summary: pl.DataFrame, by: list[str], most: int = 10) -> list[str]:
    """One line per batch key listing the groups left out as too small.

    At most `most` groups a line and `most` lines (the summary's ``excluded`` column
    keeps every one), so that a report over many small groups stays small.
    """
    if "excluded" not in summary.columns:
        return []
    rows = summary.select(*by, "excluded").unique(maintain_order=True)
    rows = rows.filter(pl.col("excluded").is_not_null() & (pl.col("excluded") != ""))
    out = []
    for row in rows.head(most).iter_rows(named=True):
        where = ", ".join(f"{k}={row[k]}" for k in by)
        groups = row["excluded"].split("; ")
        text = "; ".join(groups[:most])
        if len(groups) > most:
            text += f" and {len(groups) - most:,} more"
        out.append((f"{where}: " if where else "") + text)
    if rows.height > most:
        out.append(f"and {rows.height - most:,} more batch keys")
    return out


def level_text(params: dict[str, Any]) -> str:
    """The confidence level of a report's intervals, as a percentage ("95%")."""
    return f"{100 * float(params.get('confidence_level') or 0.95):g}%"


def summary_heading(params: dict[str, Any], criteria: Iterable[str] | None = None) -> str:
    """The text report's heading of the verdicts: the orientation and the intervals' level."""
    return f"{orientation(params, criteria)}; {level_text(params)} intervals"


def _describe(
    params: dict[str, Any], code: str = "`", criteria: Iterable[str] | None = None
) -> str:
    parts = [f"Groups: {', '.join(params.get('sensitive_features', []))}"]
    if params.get("by"):
        parts.append(f"per {', '.join(params['by'])}")
    for key, label in (("y_true", "labels"), ("y_pred", "predictions"), ("y_prob", "scores")):
        if params.get(key) is not None:
            parts.append(f"{label}: {code}{readable_expr(str(params[key]))}{code}")
    parts.append(orientation(params, criteria))
    if params.get("sample_weight") is not None:
        counts = params.get("frequency_weights")
        parts.append("weights: row counts" if counts else "weights: Kish effective sizes")
    rule = params.get("verdict_rule", "interval")
    judged = "point value" if rule == "point" else f"{level_text(params)} interval"
    parts.append(f"verdicts: the {judged} vs the band")
    smallest = params.get("min_group_size", 30) or 0  # None keeps every group, as 0
    parts.append(f"groups under {smallest:g} effective rows not compared")
    return "; ".join(parts) + "."
