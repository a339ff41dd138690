"""The verdict and note columns of the summary, and the sizes they print.

:func:`verdict_columns` judges a criterion's value and interval against its fair
band (see :mod:`polars_fair.metrics._verdicts`); :func:`left_out_verdicts` then
makes a criterion ``undefined`` when nothing was compared: the reference group was
left out as too small (:func:`reference_left_out` writes the note, naming it, its
effective size and the fix), or one group alone has a value of the rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair.metrics._intervals import large_enough
from polars_fair.metrics._reference import is_reference
from polars_fair.metrics._summary_bounds import treatment_comparisons

__all__ = [
    "REF_NOTE",
    "VERDICT_DTYPE",
    "left_out_verdicts",
    "reference_left_out",
    "size_text",
    "small_size_text",
    "verdict_columns",
]

#: The verdict column: an Enum so that filters on a misspelt verdict fail loudly.
VERDICT_DTYPE = pl.Enum(["fair", "unfair", "inconclusive", "undefined"])


def size_text(n: pl.Expr) -> pl.Expr:
    """A group size as text: to 0.1, without the decimal when that rounds to a whole.

    A count prints as ``3696``; a Kish effective size as ``8238.6``, or ``3696``
    where it is a whole number but for float noise (``3696.0000000001``, weights
    rescaled by a constant), never ``3696.0``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._summary_notes import size_text
    >>> sizes = pl.DataFrame({"n": [3696.0, 3696.0000001, 8238.64, 0.96, None]})
    >>> sizes.select(size_text(pl.col("n")))["n"].to_list()
    ['3696', '3696', '8238.6', '1', None]
    """
    tenth = n.cast(pl.Float64).round(1)
    whole = tenth.round(0)
    return (
        pl.when(tenth == whole)
        .then(whole.cast(pl.Int64).cast(pl.String))
        .otherwise(tenth.cast(pl.String))
    )


#: A summary column (dropped at the end): why no criterion is compared with the
#: reference group, when it was left out as too small.
REF_NOTE = "__pf_ref_note"


def small_size_text(n: pl.Expr) -> pl.Expr:
    """The size of a group left out as small, as text: rounded *down* to 0.1.

    Rounded to the nearest 0.1, a Kish size of 29.96 would print as ``30`` in a list
    of groups smaller than ``min_group_size = 30``; whole sizes with float noise
    (``11.999999999999998``) still print whole.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._summary_notes import small_size_text
    >>> sizes = pl.DataFrame({"n": [29.961, 11.999999999999998, 18.0, 0.96]})
    >>> sizes.select(small_size_text(pl.col("n")))["n"].to_list()
    ['29.9', '12', '18', '0.9']
    """
    n = n.cast(pl.Float64)
    return size_text((n * 10 * (1 + 1e-9)).floor() / 10)


def reference_left_out(
    method: str,
    reference: tuple[Any, ...] | str,
    by: list[str],
    sensitive: Sequence[str],
    min_group_size: float,
    label: str,
    neff: str,
) -> pl.Expr:
    """An aggregation per batch key: the note when the reference group is too small.

    Only for a reference given as a group (``"largest"`` is never smaller than the
    others); null otherwise. The note names the group and its effective size and
    says what to change: a larger reference group, or ``min_group_size`` at most
    its size (rounded down to 0.1, so that it is kept). `label` and `neff` name
    the columns of each group's name and effective size.
    """
    if method != "to_reference" or not isinstance(reference, tuple):
        return pl.lit(None, dtype=pl.String).first().alias(REF_NOTE)
    small = is_reference(reference, sensitive, by) & ~large_enough(pl.col(neff), min_group_size)
    floor = (pl.col(neff) * 10).floor() / 10
    note = pl.format(
        "the reference group {} (n={}) is smaller than min_group_size = {} effective rows "
        "and was left out, so no group is compared with it: choose a larger reference "
        "group, or lower min_group_size (--min-group-size) to {} or less",
        pl.col(label), small_size_text(pl.col(neff)), pl.lit(f"{min_group_size:g}"),
        size_text(floor),
    )  # fmt: skip
    return note.filter(small).first().alias(REF_NOTE)


def left_out_verdicts() -> list[pl.Expr]:
    """``verdict`` and ``note`` again, ``undefined`` where nothing was compared.

    The reference group left out (``REF_NOTE``): every criterion, with that note. A
    group compared with itself while others were kept (between groups, the only one
    whose rate is defined): nothing compared, not a difference of 0. Such a row has
    no value, interval or p-value either (a gate on the value must not pass on a
    group compared with itself), nor has a row with fewer than two groups kept.
    """
    lone = (pl.col("group") == pl.col("compared_with")).fill_null(False) & (pl.col("n_groups") >= 2)
    lone_note = pl.format(
        "only {} has a value: the rate is undefined for the other groups compared, so no "
        "two groups are compared",
        pl.col("group"),
    )
    why = pl.when(pl.col(REF_NOTE).is_not_null()).then(pl.col(REF_NOTE)).when(lone).then(lone_note)
    # fewer than two groups kept (`verdict_columns` wrote the note): the one group was
    # compared with itself, which is no value (not a difference of 0 with an interval)
    few = pl.col("n_groups") < 2
    nothing = pl.lit(None, dtype=pl.Float64)
    out = [
        pl.when(why.is_null()).then(pl.col(c)).otherwise(other).alias(c)
        for c, other in (
            ("verdict", pl.lit("undefined", dtype=VERDICT_DTYPE)), ("note", why),
        )
    ]  # fmt: skip
    return out + [
        pl.when(why.is_null() & ~few).then(pl.col(c)).otherwise(nothing).alias(c)
        for c in ("value", "ci_low", "ci_high", "p_value")
    ]


def _at_most(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """``a <= b`` to 12 significant digits (a band edge reached up to rounding is reached).

    A value is a ratio of float sums: 24/80 over 30/80, exactly 4/5, computes as
    0.7999999999999999, and 0.4 - 0.3 as 0.10000000000000003.
    """
    return a <= b + 1e-12 * pl.max_horizontal(a.abs(), b.abs())


#: What a treatment equality row's comparisons are, per method (for its note).
_COMPARED = {
    "between_groups": "pairs of groups",
    "to_reference": "groups against the reference",
    "to_overall": "groups against the rest",
}


def verdict_columns(rule: str, method: str | None = None) -> list[pl.Expr]:
    """The ``verdict`` and ``note`` columns.

    Given the summary's `method`, a treatment equality row that reports the most
    extreme of several comparisons notes that its interval holds for all of them
    (:func:`~polars_fair.metrics._summary_bounds.treatment_comparisons`).
    """
    v, lo, hi = pl.col("value"), pl.col("ci_low"), pl.col("ci_high")
    fl, fh = pl.col("fair_low"), pl.col("fair_high")
    few = pl.col("n_groups") < 2
    comparisons = treatment_comparisons(method or "between_groups")
    point = pl.col("interval_method") == "none"
    no_interval = lo.is_null() | hi.is_null() | lo.is_nan() | hi.is_nan()
    inside = _at_most(fl, v) & _at_most(v, fh)
    # judged on the span of the interval and the value: a value on the other side of
    # the band from its whole interval (a bootstrap on too little data) is not judged
    lo, hi = pl.min_horizontal(lo, v), pl.max_horizontal(hi, v)
    start = pl.when(v.is_null() | v.is_nan() | few).then(pl.lit("undefined"))
    verdict: pl.Expr
    if rule == "point":
        verdict = start.when(inside).then(pl.lit("fair")).otherwise(pl.lit("unfair"))
    else:
        verdict = (
            start.when(point)
            .then(pl.when(inside).then(pl.lit("fair")).otherwise(pl.lit("unfair")))
            .when(no_interval)
            .then(pl.lit("inconclusive"))
            .when(_at_most(fl, lo) & _at_most(hi, fh))
            .then(pl.lit("fair"))
            .when(~_at_most(fl, hi) | ~_at_most(lo, fh))
            .then(pl.lit("unfair"))
            .otherwise(pl.lit("inconclusive"))
        )
    note = (
        pl.when(few)
        .then(
            pl.format(
                "fewer than two groups compared ({} group(s) of at least min_group_size "
                "effective rows)",
                pl.col("n_groups"),
            )
        )
        .when(v.is_null() | v.is_nan())
        .then(pl.lit("no value: a rate is undefined, or the reference group was left out"))
        .when(point & pl.lit(rule == "interval"))
        .then(
            pl.lit(
                "no interval for a score criterion with method='to_overall' or without "
                "sums of squared scores (an older profile): judged on the point value"
            )
        )
        .when(no_interval & pl.lit(rule == "interval"))
        .then(
            pl.lit(
                "no interval (a bootstrapped ratio of 0 or infinity, a rate undefined in "
                "most bootstrap redraws, or too few rows): inconclusive"
            )
        )
        .when(
            pl.lit(method is not None)
            & pl.col("interval_method").cast(pl.String).str.starts_with("count_")
            & (comparisons > 1)
        )
        .then(
            pl.format(
                f"the interval holds for all {{}} {_COMPARED.get(method or '', '')} "
                "together (Bonferroni): the row reports the most extreme",
                comparisons.cast(pl.Int64),
            )
        )
    )
    return [verdict.cast(VERDICT_DTYPE).alias("verdict"), note.cast(pl.String).alias("note")]


def p_text(p: pl.Expr) -> pl.Expr:
    """A p- or q-value in [0, 1] as text: 4 decimals, or scientific where they show 0.

    A value that would print as ``0.0000`` is not read as exactly 0: it prints as
    ``1.2e-81``; a value of exactly 0 prints as ``0``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.metrics._summary_notes import p_text
    >>> q = pl.DataFrame({"q": [0.05, 1.0, 0.0123456, 1.234e-81, 9.96e-6, 0.0, None]})
    >>> q.select(p_text(pl.col("q")))["q"].to_list()
    ['0.0500', '1.0000', '0.0123', '1.2e-81', '1.0e-05', '0', None]
    """
    p = p.cast(pl.Float64)
    ten_thousandths = (p * 10_000).round(0, mode="half_away_from_zero").cast(pl.Int64)
    fixed = pl.concat_str(
        (ten_thousandths // 10_000).cast(pl.String),
        pl.lit("."),
        (ten_thousandths % 10_000).cast(pl.String).str.zfill(4),
    )
    exponent = p.log10().floor()
    mantissa = (p / pl.lit(10.0).pow(exponent)).round(1)
    carry = mantissa >= 10  # 9.96e-6 rounds to 10.0e-6: 1.0e-5
    exponent = pl.when(carry).then(exponent + 1).otherwise(exponent)
    mantissa = pl.when(carry).then(mantissa / 10).otherwise(mantissa).round(1)
    sci = pl.concat_str(
        mantissa.cast(pl.String),
        pl.lit("e-"),
        (-exponent).cast(pl.Int64).cast(pl.String).str.zfill(2),
    )
    return (
        pl.when(p == 0)
        .then(pl.lit("0"))
        .when(ten_thousandths == 0)  # 4 decimals would print 0.0000
        .then(sci)
        .otherwise(fixed)
        .alias(p.meta.output_name())
    )
