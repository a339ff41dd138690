"""The fairness report: the tables of one audit, and how they are shown.

A :class:`FairnessReport` holds collected tables (nothing lazy, nothing to
recompute): per-group rates with intervals, every group against the reference,
one row per criterion with its verdict, the trade-offs between criteria and,
with a score, calibration and ROC curves. It renders them as a dict, JSON,
Markdown or a self-contained HTML page whose charts are inline SVG (no network,
no JavaScript). Build one with ``df.fair.report(...)`` or ``lf.fair.report(...)``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair._utils import with_example
from polars_fair._validate import SUMMARY_COLUMNS
from polars_fair.exceptions import FairnessGateError, InvalidParameterError
from polars_fair.metrics._compare import check_comparable, compare_summaries
from polars_fair.metrics._summary_notes import size_text
from polars_fair.report import _text, _verdicts
from polars_fair.report._capping import (
    MAX_ROWS,
    cut_note,
    group_sizes,
    largest,
    reference_rows,
    semi,
)
from polars_fair.report._identifier import IDENTIFIER_MIN_GROUPS as IDENTIFIER_MIN_GROUPS
from polars_fair.report._identifier import IDENTIFIER_SHARE as IDENTIFIER_SHARE
from polars_fair.report._identifier import identifier_warning as identifier_warning
from polars_fair.report._text import flat as _flat
from polars_fair.report._text import md_safe, note_lines, summary_text, undefined_lines
from polars_fair.report._verdicts import (
    GATE_VERDICTS,
    Condition,
    _describe,
    excluded_groups,
    gate_verdicts,
    parse_condition,
    size_str,
    summary_heading,
)

__all__ = ["GATE_VERDICTS", "Condition", "FairnessReport", "parse_condition"]

#: The report's tables, in the order they are shown.
TABLES = (
    "summary", "slices", "by_group", "disparities", "tradeoffs", "calibration", "roc_auc",
    "roc_curve",
)  # fmt: skip

_TITLES = {
    "summary": "Criteria and verdicts",
    "slices": "Worst slices",
    "by_group": "Rates per group",
    "disparities": "Disparities against the reference",
    "tradeoffs": "Trade-offs between criteria",
    "calibration": "Calibration per group",
    "roc_auc": "ROC AUC per group",
    "roc_curve": "ROC curves",
}
#: Columns of the wide tables shown in Markdown and HTML (the dict and JSON keep all).
_SHOWN = {
    "by_group": None,
    "disparities": [
        "metric", "value", "reference_value", "difference", "ratio",
        "difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high",
    ],
    "tradeoffs": None,
    "calibration": None,
    "roc_auc": None,
}  # fmt: skip
_RATES_SHOWN = (
    "selection_rate", "base_rate", "true_positive_rate", "false_positive_rate",
    "positive_predictive_value", "negative_predictive_value", "accuracy",
)  # fmt: skip
#: The rates of the plain-text table (``to_text``, the command line).
_TEXT_RATES = (
    "selection_rate", "base_rate", "true_positive_rate", "false_positive_rate",
    "positive_predictive_value", "accuracy",
)  # fmt: skip
_VERDICT_COLOURS = {
    "fair": "#1a7f37",
    "unfair": "#cf222e",
    "inconclusive": "#9a6700",
    "undefined": "#6e7781",
}


# the example of the methods below (``>>> DATA``): b selected less than the reference a, c more
_example = with_example("""
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "g": ["a"] * 100 + ["b"] * 100 + ["c"] * 100,
    ...         "site": (["x"] * 5 + ["y"] * 5) * 30,
    ...         "y": [1, 0] * 150,
    ...         "p": ([1] * 5 + [0] * 5) * 10 + ([1] * 2 + [0] * 8) * 10 + ([1] * 8 + [0] * 2) * 10,
    ...     }
    ... )
    >>> report = df.fair.report(
    ...     y_true="y", y_pred="p", sensitive_features="g", reference_group="a"
    ... )""")  # fmt: skip


def _json_value(value: Any) -> Any:
    """A JSON-safe value: NaN and infinities become None (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class FairnessReport:
    """
    The collected tables of one fairness audit, ready to read, save or gate on.

    Attributes
    ----------
    summary
        One row per criterion (and batch key): value, ideal, fair band, verdict,
        interval, p-value (see ``df.fair.summary``).
    by_group
        Counts, rates and Wilson intervals per group (``df.fair.by_group``).
    disparities
        Every group against the reference, for every rate, with Newcombe and Katz
        intervals (``df.fair.disparities``).
    tradeoffs
        Which criteria can hold together with these base rates
        (``df.fair.tradeoffs``).
    calibration, roc_auc, roc_curve
        With a score: calibration bins, AUC and exact ROC curves per group; None
        without one.
    params
        What was audited: columns, groups, batch keys, reference and bands.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> df = pl.DataFrame(
    ...     {
    ...         "group": ["a"] * 5 + ["b"] * 5,
    ...         "y_true": [1, 1, 1, 0, 0, 1, 0, 0, 0, 1],
    ...         "y_pred": [1, 1, 0, 1, 0, 1, 1, 0, 0, 0],
    ...     }
    ... )
    >>> report = df.fair.report(
    ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", min_group_size=5
    ... )
    >>> dp = report.summary.filter(pl.col("criterion") == "demographic_parity_difference")
    >>> round(dp.item(0, "value"), 4)
    0.2
    >>> sorted(report.to_dict()["tables"])
    ['by_group', 'disparities', 'summary', 'tradeoffs']
    """

    summary: pl.DataFrame
    by_group: pl.DataFrame
    disparities: pl.DataFrame
    tradeoffs: pl.DataFrame
    calibration: pl.DataFrame | None = None
    roc_auc: pl.DataFrame | None = None
    roc_curve: pl.DataFrame | None = None
    slices: pl.DataFrame | None = None
    params: dict[str, Any] = field(default_factory=dict)

    # ---- access ------------------------------------------------------------------

    @_example
    def tables(self) -> Iterator[tuple[str, pl.DataFrame]]:
        """
        The report's tables that are present, as ``(name, table)`` in display order.

        Examples
        --------
        >>> DATA
        >>> [name for name, table in report.tables()]  # no score, no slices
        ['summary', 'by_group', 'disparities', 'tradeoffs']
        """
        for name in TABLES:
            table = getattr(self, name)
            if table is not None:
                yield name, table

    @property
    def by(self) -> list[str]:
        """The batch key columns (empty without `by`)."""
        return list(self.params.get("by", []))

    @_example
    def side_by_side(self) -> pl.DataFrame | None:
        """
        The summary with one column per batch key: ``"value (verdict)"`` per criterion.

        Returns
        -------
        DataFrame or None
            ``criterion`` and one column per batch key (values of the `by` columns
            joined with " / "); None without `by`.

        Examples
        --------
        >>> DATA
        >>> old = df.with_columns(model=pl.lit("old"))
        >>> new = df.with_columns(model=pl.lit("new"), p=pl.col("y"))  # a perfect model
        >>> both = pl.concat([old, new]).fair.report(
        ...     y_true="y", y_pred="p", sensitive_features="g", reference_group="a", by="model"
        ... )
        >>> wide = both.side_by_side()
        >>> wide.columns
        ['criterion', 'new', 'old']
        >>> wide.row(0)
        ('demographic_parity_difference', '0.0 (inconclusive)', '-0.3 (unfair)')
        >>> report.side_by_side() is None  # no `by`
        True
        """
        if not self.by:
            return None
        label = pl.concat_str([pl.col(c).cast(pl.String) for c in self.by], separator=" / ")
        cell = pl.format(
            "{} ({})",
            pl.col("value").round(4).cast(pl.String).fill_null("null"),
            pl.col("verdict").cast(pl.String),
        )
        long = self.summary.select(
            label.fill_null("null").alias("__pf_key"), "criterion", cell.alias("__pf_cell")
        )
        return long.pivot(on="__pf_key", index="criterion", values="__pf_cell", maintain_order=True)

    @_example
    def failing(self) -> pl.DataFrame:
        """
        The summary rows whose verdict is ``"unfair"``.

        Examples
        --------
        >>> DATA
        >>> unfair = report.failing()
        >>> unfair.height, unfair.row(0, named=True)["criterion"]
        (10, 'demographic_parity_difference')
        >>> di = unfair.filter(pl.col("criterion") == "disparate_impact_ratio")
        >>> di.item(0, "group"), di.item(0, "value")  # b selected at 0.4 times a's rate
        ('b', 0.4)
        """
        return self.summary.filter(pl.col("verdict") == "unfair")

    def compare(
        self, baseline: FairnessReport, *, tolerance: float = 0.02, familywise: bool = False
    ) -> pl.DataFrame:
        """
        Each criterion of this report (the candidate) against `baseline`'s.

        Per criterion and batch key: the baseline and candidate values, the change
        with an interval, and a verdict ``worse``, ``better``, ``unchanged`` or
        ``inconclusive`` on the change of the distance to the ideal (see
        :func:`polars_fair.metrics._compare.compare_summaries`).

        Parameters
        ----------
        baseline
            The report of what runs today, audited with the same options: the same
            batch keys, `sensitive_features`, `pos_label`, `reference_group`, `method`,
            `min_group_size` and `zero_division`, weighted or not, with the same reading
            of the weights (else :class:`~polars_fair.InvalidParameterError` says how).
            Its `confidence_level` may differ: each side's interval is read at its
            own level.
        tolerance
            Changes of the distance to the ideal within this count as no change (a
            finite number >= 0).
        familywise
            For a gate on every row: Bonferroni intervals (``ci_level``) over the rows
            judged, so no change makes any row ``worse`` with chance > ``(1 - level) / 2``.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"] * 200, "y": [1, 0, 0, 1, 0, 1, 1, 0] * 50,
        ...                    "p": [1, 0, 1, 1, 0, 0, 1, 0] * 50})
        >>> kw = dict(y_true="y", sensitive_features="g")
        >>> fair_model = df.fair.report(y_pred=pl.col("y") == 1, **kw)
        >>> biased = df.fair.report(y_pred=pl.col("p") == 1, **kw)
        >>> out = biased.compare(fair_model)
        >>> out.filter(pl.col("criterion") == "demographic_parity_difference")["verdict"].item()
        'worse'
        >>> # Bonferroni over the 12 rows with intervals on both sides: 1 - 0.05 / 12
        >>> round(biased.compare(fair_model, familywise=True)["ci_level"][0], 4)
        0.9958
        """
        if not isinstance(baseline, FairnessReport):
            msg = (
                f"`baseline` must be a FairnessReport, got {type(baseline).__name__}"
                "\n\nHint: pass the baseline's report, e.g. `df.fair.report(...)`"
            )
            raise InvalidParameterError(msg)
        check_comparable(self.params, baseline.params)
        # each side's interval is read at its own level; the change's at the candidate's
        return compare_summaries(
            self.summary, baseline.summary, by=self.by, tolerance=tolerance,
            confidence_level=self.params.get("confidence_level", 0.95),
            baseline_confidence_level=baseline.params.get("confidence_level", 0.95),
            familywise=familywise,
        )  # fmt: skip

    @_example
    def slice_failures(self) -> list[str]:
        """
        One line per significant slice (a release gate), empty without slices.

        Examples
        --------
        >>> DATA
        >>> report.slice_failures()  # no `slices`
        []
        >>> sliced = df.fair.report(
        ...     y_true="y", y_pred="p", sensitive_features="g", slices=["site"]
        ... )
        >>> lines = sliced.slice_failures()
        >>> len(lines)
        2
        >>> print(lines[0])  # doctest: +NORMALIZE_WHITESPACE
        slice site=x: false_positive_rate 0.8333 (n=150) vs 0.2222 in the rest (n=150),
        difference 0.6111, interval [0.4622, 0.7151], q = 2e-13
        """
        if self.slices is None:
            return []
        lines = []
        for row in self.slices.filter(pl.col("significant")).iter_rows(named=True):
            where = ", ".join(f"{k}={row[k]}" for k in self.by)
            # effective sizes with weights, as the summary's lines (an older table: n)
            n, rest_n = row.get("n_effective", row["n"]), row.get("rest_n_effective", row["rest_n"])
            lines.append(
                f"slice {row['slice']}: {row['metric']} {row['value']:.4g} "
                f"(n={size_str(n)}) vs {row['rest_value']:.4g} in the rest "
                f"(n={size_str(rest_n)}), difference {row['difference']:.4g}, "
                f"interval [{row['ci_low']:.4g}, {row['ci_high']:.4g}], "
                f"q = {row['q_value']:.2g}" + (f" ({where})" if where else "")
            )
        return lines

    # ---- serialisation ---------------------------------------------------------------

    def failures(
        self,
        *,
        verdicts: Iterable[str] = ("unfair",),
        conditions: Iterable[str | Condition] = (),
        allow_undefined: bool = False,
    ) -> list[str]:
        """
        The release gates that fail, one line each (empty when every gate passes).

        A line names the criterion, its value and interval, the groups compared and
        their (effective) sizes, and the batch key. A condition that fires on a group
        other than the summary's headline (``"disparate_impact_ratio > 1.25"`` on the
        highest group) prints that group's interval against the reference.

        Parameters
        ----------
        verdicts
            Verdicts that fail the gate: one of ``"unfair"``, ``"inconclusive"``,
            ``"undefined"``, or a list of them (default ``("unfair",)``; ``()`` for
            none). A single string is one verdict. With ``"unfair"``, every
            significant slice of a report made with ``slices=`` fails too (see
            :meth:`slice_failures`), as ``--fail-on-verdict unfair`` does.
        conditions
            Conditions ``"CRITERION OP NUMBER"`` that fail the gate when they hold,
            e.g. ``"disparate_impact_ratio < 0.8"`` (one-sided: add
            ``"disparate_impact_ratio > 1.25"`` for the other side).
        allow_undefined
            A condition on an undefined value fails (saying why) unless True. So
            does a verdict gate that could judge no criterion of a batch key (one
            group, or the reference group left out as too small): it does not
            pass for want of a judgement. Criteria it could not judge beside
            others it could pass the verdict gate with a
            :class:`~polars_fair.exceptions.DegenerateDataWarning` naming them;
            add ``"undefined"`` to `verdicts` to fail on them.

        Returns
        -------
        list of str
            One line per failure.

        Raises
        ------
        InvalidParameterError
            A malformed condition, an unknown verdict, or a criterion that is not in
            the summary (pass ``criteria=`` to the report).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "g": ["a"] * 100 + ["b"] * 100,
        ...         "y": [1, 0] * 100,
        ...         "p": [1] * 80 + [0] * 20 + [1] * 40 + [0] * 60,
        ...     }
        ... )
        >>> report = df.fair.report(y_true="y", y_pred="p", sensitive_features="g")
        >>> report.failures(verdicts=[], conditions=["demographic_parity_difference > 0.2"])
        ['demographic_parity_difference = 0.4 > 0.2 (interval [0.2677, 0.5125]): a (n=100) vs b (n=100)']
        """
        wanted = gate_verdicts(verdicts)
        lines = _verdicts.failures(
            self.summary, self.by, wanted, conditions, allow_undefined,
            disparities=self.disparities,
        )  # fmt: skip
        # a significant slice is an unfair verdict on a subgroup (as --fail-on-verdict)
        return lines + self.slice_failures() if "unfair" in wanted else lines

    def check(
        self,
        *,
        verdicts: Iterable[str] = ("unfair",),
        conditions: Iterable[str | Condition] = (),
        allow_undefined: bool = False,
    ) -> None:
        """
        Raise :class:`~polars_fair.exceptions.FairnessGateError` if a gate fails.

        The same gates as :meth:`failures`, for notebooks and test suites
        (``report.check()`` fails a test when any verdict is unfair).

        Parameters
        ----------
        verdicts, conditions, allow_undefined
            As for :meth:`failures`.

        Raises
        ------
        FairnessGateError
            With one line per failure (also in its ``failures`` attribute).

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {"g": ["a"] * 100 + ["b"] * 100, "y": [1, 0] * 100, "p": [1, 1, 0, 0] * 50}
        ... )
        >>> df.fair.report(y_true="y", y_pred="p", sensitive_features="g").check()
        """
        lines = self.failures(
            verdicts=verdicts, conditions=conditions, allow_undefined=allow_undefined
        )
        if lines:
            raise FairnessGateError(lines)

    @_example
    def one_sided_misses(self, conditions: Iterable[str | Condition]) -> list[str]:
        """
        One-sided conditions blind to a group outside the fair band on the other side.

        ``"disparate_impact_ratio < 0.8"`` never fires on a ratio of 1.74, above the
        band: one line each such condition and batch key, suggesting the other side
        (or the verdict gate). A side watched by another condition is not reported.

        Parameters
        ----------
        conditions
            The gate conditions, as for :meth:`failures`.

        Returns
        -------
        list of str
            One line per blind spot.

        Examples
        --------
        >>> DATA
        >>> for line in report.one_sided_misses(["disparate_impact_ratio < 0.8"]):
        ...     print(line)  # doctest: +NORMALIZE_WHITESPACE
        'disparate_impact_ratio < 0.8' watches one side only: disparate_impact_ratio = 1.6
        (c (n=100) vs a (n=100)) is above its fair band [0.8, 1.25]: add
        'disparate_impact_ratio > 1.25', or gate on the verdict (--fail-on-verdict unfair)
        >>> both_sides = ["disparate_impact_ratio < 0.8", "disparate_impact_ratio > 1.25"]
        >>> report.one_sided_misses(both_sides)
        []
        """
        return _verdicts.one_sided_misses(self.summary, self.by, conditions)

    # ---- serialisation ---------------------------------------------------------------

    @_example
    def to_dict(self) -> dict[str, Any]:
        """
        The report as plain Python objects: ``{"params": ..., "tables": {name: rows}}``.

        Each table is a list of row dicts; Enum columns become strings and non-finite
        floats None, so the result is JSON-safe.

        Returns
        -------
        dict
            The parameters and every table present.

        Examples
        --------
        >>> DATA
        >>> out = report.to_dict()
        >>> out["params"]["reference_group"], sorted(out["tables"])
        ('a', ['by_group', 'disparities', 'summary', 'tradeoffs'])
        >>> [(row["g"], row["selection_rate"]) for row in out["tables"]["by_group"]]
        [('a', 0.5), ('b', 0.2), ('c', 0.8)]
        """
        tables = {}
        for name, table in self.tables():
            cast = table.with_columns(
                pl.col(c).cast(pl.String)
                for c, dtype in table.schema.items()
                if isinstance(dtype, (pl.Enum, pl.Categorical))
            )
            tables[name] = [
                {k: _json_value(v) for k, v in row.items()} for row in cast.iter_rows(named=True)
            ]
        return {"params": self.params, "tables": tables}

    @_example
    def to_json(self, *, indent: int | None = 2) -> str:
        """
        The report as JSON (see :meth:`to_dict`).

        Parameters
        ----------
        indent
            Indentation of the JSON text; None for one line.

        Returns
        -------
        str
            The JSON document.

        Examples
        --------
        >>> DATA
        >>> import json
        >>> json.loads(report.to_json())["params"]["sensitive_features"]
        ['g']
        >>> len(report.to_json(indent=None).splitlines())
        1
        """
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def to_markdown(self, *, max_rows: int | None = MAX_ROWS) -> str:
        r"""
        The report as Markdown: a heading and a table per section.

        Parameters
        ----------
        max_rows
            The most groups (and batch keys) each table shows: the largest, by rows.
            A line under a cut table says how many were left out. None shows all.

        Returns
        -------
        str
            The Markdown document; ``|`` in values is escaped.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_fair
        >>> df = pl.DataFrame(
        ...     {
        ...         "group": ["a|b"] * 4 + ["c"] * 4,
        ...         "y_true": [1, 0, 1, 0, 1, 0, 1, 0],
        ...         "y_pred": [1, 1, 0, 0, 1, 0, 0, 0],
        ...     }
        ... )
        >>> report = df.fair.report(
        ...     y_true="y_true", y_pred="y_pred", sensitive_features="group", min_group_size=2
        ... )
        >>> text = report.to_markdown(max_rows=1)
        >>> r"a\|b" in text
        True
        >>> [line for line in text.splitlines() if "left out" in line][0]  # doctest: +ELLIPSIS
        '1 of 2 groups left out (shown: the 1 largest). Every row: `report.by_group`...'
        """
        capped, notes = self._capped(max_rows)
        criteria = self.summary.get_column("criterion").unique(maintain_order=True).to_list()
        lines = ["# Fairness report", "", _describe(self.params, "`", criteria), ""]
        left_out = excluded_groups(self.summary, self.by)
        if left_out:
            lines += ["Left out of the criteria (too small): " + "; ".join(left_out) + ".", ""]
        with pl.Config(
            tbl_formatting="MARKDOWN",
            tbl_width_chars=65_535,  # never wrap a cell: Markdown rows are single lines
            tbl_hide_column_data_types=True,
            tbl_hide_dataframe_shape=True,
            tbl_rows=-1,
            tbl_cols=-1,
            fmt_str_lengths=200,
            float_precision=4,
        ):
            wide = capped.side_by_side()
            if wide is not None:
                lines += ["## Criteria side by side", "", str(md_safe(wide)), ""]
                lines += note_lines(notes.get("summary"), "`")
            for name, table in capped.tables():
                if name == "roc_curve":
                    continue  # one row per distinct score: a chart, not a table
                shown = md_safe(self._shown(name, table))
                cap = _text.caption_lines(name, table, self.params, self.by)
                lines += [f"## {_TITLES[name]}", "", *cap, str(shown), ""]
                lines += note_lines(notes.get(name), "`")
        return "\n".join(lines)

    @_example
    def to_text(self, *, max_rows: int | None = MAX_ROWS) -> str:
        """
        The report as plain-text tables: the main rates per group and the verdicts.

        This is what ``polars-fair audit`` prints by default.

        Parameters
        ----------
        max_rows
            The most groups (and batch keys) each table shows: the largest, by rows.
            A line under a cut table says how many were left out. None shows all.

        Returns
        -------
        str
            The text.

        Examples
        --------
        >>> DATA
        >>> text = report.to_text()
        >>> text.splitlines()[0]
        'Rates per group'
        >>> print([line for line in text.splitlines() if line.startswith("Criteria")][0])
        ... # doctest: +ELLIPSIS
        Criteria and verdicts (orientation: signed against the reference group a ...)
        """
        capped, notes = self._capped(max_rows)
        keys = [*capped.by, *capped.params.get("sensitive_features", [])]
        table = capped.by_group
        sizes: list[str | pl.Expr] = [c for c in ("n",) if c in table.columns]
        if "sum_w2" in table.columns and sizes and not capped.params.get("frequency_weights"):
            # weighted: n is the sum of the weights; the effective size is what is compared
            sizes.append(size_text(pl.col("n") ** 2 / pl.col("sum_w2")).alias("n_effective"))
        rates = table.select(*keys, *sizes, *(c for c in _TEXT_RATES if c in table.columns))
        summary = summary_text(capped.summary, capped.by)
        with pl.Config(
            tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4,
            tbl_hide_dataframe_shape=True, fmt_str_lengths=60,
        ):  # fmt: skip
            parts = [f"Rates per group\n{_flat(rates)}"]
            parts += note_lines(notes.get("by_group"), "")
            criteria = capped.summary.get_column("criterion").unique(maintain_order=True)
            header = summary_heading(capped.params, criteria.to_list())
            parts += [f"\nCriteria and verdicts ({header})\n{summary}"]
            parts += note_lines(notes.get("summary"), "")
            parts += undefined_lines(capped.summary, capped.by, MAX_ROWS)
            left_out = excluded_groups(capped.summary, capped.by)
            if left_out:
                parts += ["Left out of the criteria (too small): " + "; ".join(left_out) + "."]
            parts += _text.slices_lines(capped.slices, capped.params, capped.by)
        return "\n".join(parts) + "\n"

    @_example
    def to_html(self, path: str | Path | None = None, *, max_rows: int | None = MAX_ROWS) -> str:
        """
        The report as one self-contained HTML page (inline CSS and SVG charts).

        The first screen holds the verdicts (criterion, verdict, value, interval,
        fair band); the charts follow, then the tables. Tables fit the width of
        the page (wide ones scroll inside their own box). With many groups, the
        charts show the largest and the farthest from the reference and say how
        many are left out. Charts need the ``plot`` extra
        (``pip install "polars-fair[plot]"``); without it the page holds the tables
        and says how to get the charts.

        Parameters
        ----------
        path
            Where to write the page (UTF-8). If None, only return it.
        max_rows
            The most groups (and batch keys) each table shows: the largest, by rows.
            A line under a cut table says how many were left out. None shows all.

        Returns
        -------
        str
            The HTML document.

        Examples
        --------
        >>> DATA
        >>> page = report.to_html()  # or report.to_html("report.html")
        >>> page.splitlines()[0]
        '<!DOCTYPE html>'
        >>> import re
        >>> re.findall("<h2>(.*?)</h2>", page)[0]  # the verdicts come first
        'Criteria and verdicts'
        """
        from polars_fair.report._html import html_page

        page = html_page(self, *self._pieces(max_rows))
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def _repr_html_(self) -> str:
        """Rich display in notebooks (at most ``MAX_ROWS`` groups per table)."""
        from polars_fair.report._html import html_body

        return html_body(self, *self._pieces(MAX_ROWS))

    def _pieces(
        self, max_rows: int | None
    ) -> tuple[FairnessReport, dict[str, str], dict[str, pl.DataFrame]]:
        """What the page shows: the cut report, its notes, and each table's columns."""
        capped, notes = self._capped(max_rows)
        shown = {
            name: self._shown(name, table)
            for name, table in capped.tables()
            if name not in ("summary", "roc_curve")
        }
        return capped, notes, shown

    def _capped(self, max_rows: int | None) -> tuple[FairnessReport, dict[str, str]]:
        """The report with at most `max_rows` groups and batch keys per table, and notes.

        The groups kept are the largest (rows summed over batch keys) and the
        reference group when it is a value; the batch keys kept are the first, in
        sort order. The summary is never cut by group: its criteria cover every group;
        nor are the slices (the pages show the best-ranked).
        """
        if max_rows is None:
            return self, {}
        if isinstance(max_rows, bool) or not hasattr(max_rows, "__index__") or max_rows < 1:
            msg = f"`max_rows` must be None or a positive integer, got {max_rows!r}"
            raise InvalidParameterError(msg)
        tables: dict[str, Any] = dict(self.tables())
        notes: dict[str, str] = {}
        keys = [c for c in self.params.get("sensitive_features", []) if c in self.by_group.columns]
        sizes = group_sizes(self.by_group, keys, self.by) if keys else None
        if sizes is not None and sizes.height > max_rows:
            top = largest(sizes, keys, max_rows).select(keys)
            kept = pl.concat([top, reference_rows(sizes, self.params, keys).select(keys)])
            kept = kept.unique()
            for name, table in tables.items():
                # the summary covers every group; a slice is no group (its table holds
                # the candidates, null where a slice does not fix them): cut by rank
                if name not in ("summary", "slices") and all(k in table.columns for k in keys):
                    tables[name] = semi(table, kept, keys)
                    notes[name] = cut_note(sizes.height, kept.height, max_rows, "groups", name)
        if self.by:
            batches = self.summary.select(self.by).unique().sort(self.by, nulls_last=True)
            if batches.height > max_rows:
                kept_batches = batches.head(max_rows)
                for name, table in tables.items():
                    if all(k in table.columns for k in self.by):
                        tables[name] = semi(tables[name], kept_batches, self.by)
                        what = f"{', '.join(self.by)} values"
                        note = cut_note(
                            batches.height, max_rows, max_rows, what, name, largest=False
                        )
                        notes[name] = f"{notes[name]} {note}" if name in notes else note
        return dataclasses.replace(self, **tables), notes

    def _shown(self, name: str, table: pl.DataFrame) -> pl.DataFrame:
        keys = [c for c in (*self.by, *self.params.get("sensitive_features", [])) if c in table]
        if name == "by_group":
            rates = [c for c in table.columns if c.startswith(_RATES_SHOWN)]
            return table.select(*keys, "n", *rates)
        if name == "summary":
            cols = ["criterion", "value", "fair_low", "fair_high", "verdict", "ci_low",
                    "ci_high", "interval_method", "group", "group_n", "compared_with",
                    "compared_n", "note"]  # fmt: skip
            extra = [c for c in table.columns if c not in (*SUMMARY_COLUMNS, *self.by)]
            shown = table.select(*self.by, *(c for c in cols if c in table.columns), *extra)
            # effective sizes as the text writes them (3696, 8238.6), not 3696.0000
            sizes = [c for c in ("group_n", "compared_n") if c in shown.columns]
            return shown.with_columns(size_text(pl.col(c)).alias(c) for c in sizes)
        if name == "slices":
            return _text.slices_shown(table, self.by, self.params.get("sample_weight") is not None)
        wanted = _SHOWN.get(name)
        if wanted is None:
            return table
        return table.select(*keys, *(c for c in wanted if c in table.columns))
