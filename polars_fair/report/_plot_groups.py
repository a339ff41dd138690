"""The groups of a report's charts: labels, the reference, and which groups are charted.

The table preparation and the Altair encodings shared by the charts of
:mod:`polars_fair.report.plots`, and :func:`charted_groups`: with many groups, the
few a chart shows. Nothing here imports Altair (the encodings take it as an argument).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

import polars as pl

__all__ = ["MAX_GROUPS", "PALETTE", "RATES", "charted_groups"]


#: The rates charted by default: the four behind the common parity criteria.
RATES = (
    "selection_rate",
    "true_positive_rate",
    "false_positive_rate",
    "positive_predictive_value",
)
_GROUP = "pf_group"
_BATCH = "pf_batch"
_HEIGHT = 200
#: The most groups a report's charts show (see :func:`charted_groups`).
MAX_GROUPS = 10
#: Ten distinct colours (Tableau 10), one per group in the group-coloured charts.
PALETTE = (
    "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2",
    "#b279a2", "#eeca3b", "#ff9da6", "#9d755d", "#bab0ac",
)  # fmt: skip


class _Report(Protocol):
    """What :func:`report_svgs` reads from a :class:`~polars_fair.FairnessReport`."""

    @property
    def by_group(self) -> pl.DataFrame: ...
    @property
    def disparities(self) -> pl.DataFrame: ...
    @property
    def calibration(self) -> pl.DataFrame | None: ...
    @property
    def roc_auc(self) -> pl.DataFrame | None: ...
    @property
    def roc_curve(self) -> pl.DataFrame | None: ...
    @property
    def params(self) -> dict[str, Any]: ...


# ---- table preparation -------------------------------------------------------------


#: Control characters: vl-convert aborts the process on one XML 1.0 forbids in an SVG
#: text (a group named ``"\x00a"``) and fails on a line break in a tooltip's title.
_NOT_XML = re.compile(r"[\x00-\x1f]")


def _xml_char(match: re.Match[str]) -> str:
    return chr(0x2400 + ord(match.group(0)))  # its Control Pictures symbol


def xml_safe(spec: Any) -> Any:
    r"""A Vega-Lite spec (a dict or its JSON) that vl-convert renders, whatever the groups.

    Each control character in its strings, names included, is shown as its Control
    Pictures symbol (``\x00`` as ``\u2400``, a line break as ``\u240a``).
    """
    return _xml_safe(json.loads(spec) if isinstance(spec, str) else spec)


def _xml_safe(value: Any) -> Any:
    if isinstance(value, str):
        return _NOT_XML.sub(_xml_char, value)
    if isinstance(value, dict):
        return {_xml_safe(k): _xml_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_xml_safe(v) for v in value]
    return value


def _names(columns: str | Sequence[str] | None) -> list[str]:
    if columns is None:
        return []
    if isinstance(columns, str):
        return [columns]
    return list(columns)


def _check_columns(table: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        msg = f"column {missing[0]!r} not found in the {what} table; available columns: {table.columns}"
        raise ValueError(msg)


def _label(columns: Sequence[str]) -> pl.Expr:
    """One string per row joining the values of `columns`; a null shows as ``"null"``."""
    parts = [pl.col(c).cast(pl.String).fill_null("null") for c in columns]
    return pl.concat_str(parts, separator=" / ")


def _labelled(
    table: pl.DataFrame, sensitive: Sequence[str], by: Sequence[str], what: str
) -> pl.DataFrame:
    """`table` with the group label and the batch label (null without `by`)."""
    if not sensitive:
        msg = "`sensitive_features` must name at least one column, got []"
        raise ValueError(msg)
    _check_columns(table, [*sensitive, *by], what)
    batch = _label(by) if by else pl.lit(None, dtype=pl.String)
    return table.with_columns(_label(sensitive).alias(_GROUP), batch.alias(_BATCH))


def _records(table: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-safe dicts: Enum and Categorical as strings, NaN and infinities as None."""
    exprs = []
    for name, dtype in table.schema.items():
        col = pl.col(name)
        if isinstance(dtype, (pl.Enum, pl.Categorical)):
            exprs.append(col.cast(pl.String))
        elif dtype.is_float():
            exprs.append(pl.when(col.is_finite()).then(col).otherwise(None).alias(name))
        else:
            exprs.append(col)
    return table.select(exprs).to_dicts()


def _unique(table: pl.DataFrame, column: str) -> list[str]:
    """The distinct values of `column` in order of appearance."""
    return list(table.get_column(column).unique(maintain_order=True).to_list())


def _pretty(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _title(columns: Sequence[str]) -> str:
    return " / ".join(columns)


def _reference_mask(table: pl.DataFrame, reference: Any, sensitive: Sequence[str]) -> pl.Expr:
    """True on the reference row(s): per batch key for ``"largest"``."""
    if isinstance(reference, str) and reference == "largest":
        _check_columns(table, ["n"], "by_group")
        idx = pl.int_range(pl.len())
        first_largest = idx.filter(pl.col("n") == pl.col("n").max()).first()
        return idx.over(_BATCH) == first_largest.over(_BATCH)
    if isinstance(reference, dict):
        if set(reference) != set(sensitive):
            msg = f"`reference` must have the keys {list(sensitive)}, got {reference!r}"
            raise ValueError(msg)
        values = tuple(reference[s] for s in sensitive)
    elif isinstance(reference, tuple):
        values = reference
    else:
        values = (reference,)
    if len(values) != len(sensitive):
        msg = f"`reference` must give one value per sensitive feature {list(sensitive)}, got {reference!r}"
        raise ValueError(msg)
    mask = pl.lit(True)
    for col, value in zip(sensitive, values, strict=True):
        mask = mask & (pl.col(col).is_null() if value is None else (pl.col(col) == value))
    return mask.fill_null(False)


# ---- chart helpers -----------------------------------------------------------------


def _group_y(alt: Any, groups: list[str], sensitive: Sequence[str]) -> Any:
    # The title sits level above the labels, ending at the axis: Vega places a rotated
    # title by its estimate of the labels' width, which falls short for long group names
    # (the title was drawn over them).
    axis = alt.Axis(
        labelLimit=260,
        titleAngle=0,
        titleAlign="right",
        titleBaseline="bottom",
        titleX=0,
        titleY=-4,
    )
    return alt.Y(f"{_GROUP}:N", sort=groups, title=_title(sensitive), axis=axis)


def _batch_encodings(alt: Any, batches: list[str], by: Sequence[str]) -> dict[str, Any]:
    """Side-by-side batches: an offset within each group's band and a colour each."""
    if not by:
        return {}
    return {
        "yOffset": alt.YOffset(f"{_BATCH}:N", sort=batches, title=_title(by)),
        "color": alt.Color(f"{_BATCH}:N", sort=batches, title=_title(by)),
    }


def _group_scale(alt: Any, groups: Sequence[str]) -> Any:
    """Distinct colours for the groups: ten fixed ones, or a 20-colour scheme beyond."""
    if len(groups) <= len(PALETTE):
        return alt.Scale(domain=list(groups), range=list(PALETTE[: len(groups)]))
    return alt.Scale(domain=list(groups), scheme="tableau20")


def _height(n_rows: int) -> int:
    return max(_HEIGHT // 2, min(600, 18 * n_rows + 24))


def _tooltip(
    alt: Any, sensitive: Sequence[str], by: Sequence[str], fields: Sequence[tuple[str, str]]
) -> list[Any]:
    tips = [alt.Tooltip(f"{_GROUP}:N", title=_title(sensitive))]
    if by:
        tips.append(alt.Tooltip(f"{_BATCH}:N", title=_title(by)))
    for field, title in fields:
        tips.append(alt.Tooltip(f"{field}:Q", title=title, format=".4~g"))
    return tips


def _panels(alt: Any, charts: list[Any], columns: int) -> Any:
    if len(charts) == 1:
        return charts[0]
    return alt.concat(*charts, columns=columns).resolve_scale(color="shared")


def _log_domain(values: pl.Series, band: tuple[float, float]) -> tuple[float, float]:
    """A log-scale domain covering `values` (finite, positive) and the band, within [1/20, 20]."""
    finite = values.filter(values.is_finite() & (values > 0))
    low = min([band[0], 1.0, *([float(finite.min())] if finite.len() else [])])  # type: ignore[arg-type]
    high = max([band[1], 1.0, *([float(finite.max())] if finite.len() else [])])  # type: ignore[arg-type]
    low, high = max(low / 1.1, 0.05), min(high * 1.1, 20.0)
    return low, high


def _per_batch(
    alt: Any, table: pl.DataFrame, keys: list[str], build: Any, *, independent: bool = False
) -> Any:
    """One panel per batch key (titled with it), or one panel without `by`."""
    if not keys:
        return build(table, None)
    panels = [
        build(table.filter(pl.col(_BATCH) == batch), f"{_title(keys)}: {batch}")
        for batch in _unique(table, _BATCH)
    ]
    if len(panels) == 1:
        return panels[0]
    chart = alt.concat(*panels, columns=2)
    return chart.resolve_scale(color="independent") if independent else chart


def _diagonal(alt: Any) -> Any:
    data = alt.Data(values=[{"d": 0.0}, {"d": 1.0}])
    return (
        alt.Chart(data)
        .mark_line(color="#6e7781", strokeDash=[4, 3])
        .encode(x=alt.X("d:Q"), y=alt.Y("d:Q"))
    )


def _keep(table: pl.DataFrame, kept: pl.DataFrame | None, keys: Sequence[str]) -> pl.DataFrame:
    """The rows of `table` of the kept groups (all rows when `kept` is None)."""
    if kept is None:
        return table
    cast = kept.select(pl.col(k).cast(table.schema[k]) for k in keys)
    return table.join(cast, on=list(keys), how="semi", nulls_equal=True, maintain_order="left")


def charted_groups(
    report: _Report, max_groups: int = MAX_GROUPS
) -> tuple[pl.DataFrame | None, str | None]:
    """
    The groups the report's charts show, and a note on those left out.

    With more than `max_groups` groups, the charts show the largest groups (rows
    summed over batch keys), the reference group, and the groups farthest from
    the reference (the largest gap of any charted rate's ratio from 1, among
    groups that are not flagged as small): a chart of 42 overlapping curves
    answers nothing, and a palette has about 10 distinct colours.

    Parameters
    ----------
    report
        A :class:`~polars_fair.FairnessReport`.
    max_groups
        The most groups a chart shows.

    Returns
    -------
    (DataFrame or None, str or None)
        The sensitive-feature values of the groups charted (None: every group)
        and a sentence saying what was left out (None: nothing).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_fair
    >>> from polars_fair.plots import charted_groups
    >>> df = pl.DataFrame(
    ...     {
    ...         "g": [f"g{i}" for i in range(12) for j in range(i + 2)],
    ...         "y_true": [j % 2 for i in range(12) for j in range(i + 2)],
    ...         "y_pred": [(i + j) % 3 == 0 for i in range(12) for j in range(i + 2)],
    ...     }
    ... )
    >>> report = df.fair.report(
    ...     y_true="y_true", y_pred="y_pred", sensitive_features="g", min_group_size=1
    ... )
    >>> kept, note = charted_groups(report, max_groups=5)
    >>> kept.height
    5
    >>> print(note)  # doctest: +ELLIPSIS
    The charts show 5 of 12 groups: the 3 largest and the 2 farthest from the reference...
    """
    sensitive = _names(report.params.get("sensitive_features"))
    table = report.by_group
    if not sensitive or "n" not in table.columns or any(c not in table for c in sensitive):
        return None, None
    keys = [c for c in _names(report.params.get("by")) if c in table.columns]
    small_flag = ["small_group"] if "small_group" in table.columns else []
    if keys:
        sizes = table.group_by(sensitive).agg(
            pl.col("n").sum(), *(pl.col(c).any() for c in small_flag)
        )
    else:  # already one row per group
        sizes = table.select(*sensitive, "n", *small_flag)
    if sizes.height <= max_groups:
        return None, None
    order = [True] + [False] * len(sensitive)
    n_far = max_groups * 2 // 5
    by_size = ["n", *sensitive]
    reverse = [False] + [True] * len(sensitive)
    largest = sizes.top_k(max_groups - n_far, by=by_size, reverse=reverse).select(sensitive)
    reference = report.params.get("reference_group")
    if isinstance(reference, list):
        reference = tuple(reference)
    if reference is not None and not (isinstance(reference, str) and reference == "largest"):
        labelled = _labelled(sizes, sensitive, [], "by_group")
        try:
            ref = labelled.filter(_reference_mask(labelled, reference, sensitive)).select(sensitive)
        except (ValueError, pl.exceptions.PolarsError):  # a policy such as "min"
            ref = largest.clear()
        largest = pl.concat([ref, largest]).unique(maintain_order=True).head(max_groups - n_far)
    far = largest.clear()
    present = report.disparities.get_column("metric").unique().cast(pl.String).to_list()
    metrics = [r for r in RATES if r in present]
    if metrics and all(c in report.disparities.columns for c in sensitive):
        gap = (pl.col("ratio").cast(pl.Float64).log().abs()).max().alias("gap")
        # the candidates first (groups that are not small nor already kept): few rows
        candidates = sizes
        if small_flag:
            candidates = candidates.filter(~pl.col("small_group"))
        candidates = candidates.select(sensitive).join(
            largest, on=sensitive, how="anti", nulls_equal=True
        )
        rows = report.disparities.join(
            candidates, on=sensitive, how="semi", nulls_equal=True
        ).filter(
            pl.col("metric").is_in(metrics) & pl.col("ratio").is_finite() & (pl.col("ratio") > 0)
        )
        ranked = rows.group_by(sensitive).agg(gap).filter(pl.col("gap") > 0)
        far = ranked.sort(["gap", *sensitive], descending=order, nulls_last=True).head(n_far)
        far = far.select(sensitive)
    kept = pl.concat([largest, far])
    if kept.height < max_groups:  # fewer far groups than places: more of the largest
        more = sizes.join(kept, on=sensitive, how="anti", nulls_equal=True)
        more = more.top_k(max_groups - kept.height, by=by_size, reverse=reverse)
        kept = pl.concat([kept, more.select(sensitive)])
    n_largest = kept.height - far.height
    note = (
        f"The charts show {kept.height} of {sizes.height} groups: the {n_largest} largest"
        + (f" and the {far.height} farthest from the reference (largest gap of a rate's "
           "ratio from 1, among groups that are not small)" if far.height else "")
        + f"; {sizes.height - kept.height} are left out of the charts (every group's numbers: "
        "``report.by_group``)."
    )  # fmt: skip
    return kept, note
