"""Fair bands, verdicts, criterion intervals and the one-row-per-criterion summary.

Every criterion has an ideal value and a fair band:

* differences (and Cohen's d, the 2-SD z): ideal 0, fair when ``|value| <= band``
  (0.1 by default; 0.2 for Cohen's d, Cohen's "small" effect; 2 for the z of the
  2-SD rule);
* ratios: ideal 1, fair inside ``[0.8, 1.25]`` by default (Aequitas' tau);
* the four-fifths rule: fair when ``>= 0.8``.

The verdict is ``"undefined"`` when the value is null, ``"too_small"`` when the
smallest group compared holds fewer than ``min_group_size`` rows, else ``"fair"``
or ``"unfair"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_fair._utils import over, stack
from polars_fair._validate import check_table_keys
from polars_fair.metrics._criteria import criterion_table
from polars_fair.metrics._intervals import (
    INTERVAL_RATES,
    katz_ratio,
    newcombe_difference,
    normal_two_sided_p,
    rate_fraction,
    wilson,
)
from polars_fair.metrics._rates import Counts, safe_div
from polars_fair.metrics._reference import is_reference
from polars_fair.metrics._registry import CRITERIA
from polars_fair.metrics._statistics import statistic_table

__all__ = ["Bands", "VERDICT_DTYPE", "criteria_long", "criterion_value_table", "summary_table"]

#: The verdict column: an Enum so that filters on a misspelt verdict fail loudly.
VERDICT_DTYPE = pl.Enum(["fair", "unfair", "too_small", "undefined"])
_REF = "__pf_is_ref"


@dataclass(frozen=True)
class Bands:
    """The fair bands (configurable in ``summary``)."""

    difference: float = 0.1
    ratio: tuple[float, float] = (0.8, 1.25)
    cohen_d: float = 0.2
    z: float = 2.0
    four_fifths: float = 0.8

    def of(self, name: str) -> tuple[float, float, float]:
        """``(ideal, fair_low, fair_high)`` of criterion `name`."""
        if name == "four_fifths_rule":
            return 1.0, self.four_fifths, 1.0
        if name == "cohen_d":
            return 0.0, -self.cohen_d, self.cohen_d
        if name == "two_sd_rule":
            return 0.0, -self.z, self.z
        if CRITERIA[name].kind == "ratio":
            return 1.0, self.ratio[0], self.ratio[1]
        return 0.0, -self.difference, self.difference


def criterion_value_table(
    stats: pl.LazyFrame,
    *,
    name: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
) -> pl.LazyFrame:
    """One row per batch key with the value of criterion `name` (column `name`)."""
    spec = CRITERIA[name]
    if spec.kind == "statistic":
        ref = None if (name == "four_fifths_rule" and method != "to_reference") else reference
        return statistic_table(stats, name=name, by=by, sensitive=sensitive, reference=ref)
    return criterion_table(
        stats, name=name, measures=spec.measures, kind=spec.kind,  # type: ignore[arg-type]
        method=method, agg=spec.agg, by=by, sensitive=sensitive,
        reference=reference if reference is not None else "largest",
        zero_division=zero_division,
    )  # fmt: skip


def criteria_long(
    stats: pl.LazyFrame,
    *,
    criteria: Sequence[str],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
) -> pl.LazyFrame:
    """Several criteria as a long table ``by…, criterion, value`` (criteria in order)."""
    check_table_keys("criteria_long", by)
    parts = [
        criterion_value_table(
            stats, name=name, method=method, by=by, sensitive=sensitive, reference=reference,
            zero_division=zero_division,
        ).select(*by, pl.lit(name).alias("criterion"), pl.col(name).alias("value"))
        for name in criteria
    ]  # fmt: skip
    return stack(parts)


def _interval(
    stats: pl.LazyFrame,
    *,
    name: str,
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
    z: float,
) -> pl.LazyFrame | None:
    """Newcombe / Katz interval of a one-rate criterion, for the pair it reports."""
    spec = CRITERIA[name]
    if (
        spec.kind not in ("difference", "ratio")
        or len(spec.measures) != 1
        or spec.measures[0] not in INTERVAL_RATES
        or method == "to_overall"
        or name == "average_abs_odds_difference"
    ):
        return None
    c = Counts.from_columns(stats.collect_schema().names())
    xe, me = rate_fraction(spec.measures[0], c)
    # materialise each intermediate as a column: nested expressions would be
    # duplicated many times over by the interval formulas
    table = stats.with_columns(
        xe.cast(pl.Float64).alias("__pf_x"), me.cast(pl.Float64).alias("__pf_m")
    )
    x, m = pl.col("__pf_x"), pl.col("__pf_m")
    table = table.with_columns(safe_div(x, m).alias("__pf_p"))
    p = pl.col("__pf_p")
    if method == "to_reference":
        table = table.with_columns(is_reference(reference, sensitive, by).alias(_REF))
        is_ref = pl.col(_REF)
        table = table.with_columns(
            over(x.filter(is_ref).first(), by).alias("__pf_xr"),
            over(m.filter(is_ref).first(), by).alias("__pf_mr"),
            over(p.filter(is_ref).first(), by).alias("__pf_pr"),
        )
        xr, mr, pr = pl.col("__pf_xr"), pl.col("__pf_mr"), pl.col("__pf_pr")
        (l1, u1), (l2, u2) = wilson(x, m, z), wilson(xr, mr, z)
        table = table.with_columns(
            l1.alias("__pf_l1"), u1.alias("__pf_u1"), l2.alias("__pf_l2"), u2.alias("__pf_u2")
        )
        w1 = (pl.col("__pf_l1"), pl.col("__pf_u1"))
        w2 = (pl.col("__pf_l2"), pl.col("__pf_u2"))
        if spec.kind == "difference":
            low, high = newcombe_difference(p, w1, pr, w2)
            value = p - pr
            dist = value.abs()
        else:
            low, high = katz_ratio(x, m, xr, mr, z)
            value = safe_div(p, pr)
            dist = pl.when(value == 0).then(float("inf")).otherwise(value.log().abs())
        table = table.with_columns(
            low.alias("__pf_low"), high.alias("__pf_high"), value.alias("__pf_v"),
            dist.alias("__pf_d"),
        )  # fmt: skip
        # the interval of the farthest group: the rows and order of the criterion's pick
        keep = ~is_ref & pl.col("__pf_v").is_not_null()
        best = pl.col("__pf_d").filter(keep).arg_max()
        aggs = [
            pl.col("__pf_low").filter(keep).get(best).alias("ci_low"),
            pl.col("__pf_high").filter(keep).get(best).alias("ci_high"),
        ]
    else:
        keep = p.is_not_null()
        top, bottom = p.filter(keep).arg_max(), p.filter(keep).arg_min()
        picks = [
            x.filter(keep).get(top).alias("__pf_x1"),
            m.filter(keep).get(top).alias("__pf_m1"),
            x.filter(keep).get(bottom).alias("__pf_x2"),
            m.filter(keep).get(bottom).alias("__pf_m2"),
        ]
        table = table.group_by(by).agg(picks) if by else table.select(picks)
        x1, m1, x2, m2 = (pl.col(f"__pf_{n}") for n in ("x1", "m1", "x2", "m2"))
        (l1, u1), (l2, u2) = wilson(x1, m1, z), wilson(x2, m2, z)
        table = table.with_columns(
            safe_div(x1, m1).alias("__pf_p1"), safe_div(x2, m2).alias("__pf_p2"),
            l1.alias("__pf_l1"), u1.alias("__pf_u1"), l2.alias("__pf_l2"), u2.alias("__pf_u2"),
        )  # fmt: skip
        if spec.kind == "difference":
            low, high = newcombe_difference(
                pl.col("__pf_p1"), (pl.col("__pf_l1"), pl.col("__pf_u1")),
                pl.col("__pf_p2"), (pl.col("__pf_l2"), pl.col("__pf_u2")),
            )  # fmt: skip
        else:
            low, high = katz_ratio(x2, m2, x1, m1, z)
        out = table.select(*by, low.alias("ci_low"), high.alias("ci_high"))
        return out.sort(by, nulls_last=True) if by else out
    if by:
        return table.group_by(by).agg(aggs).sort(by, nulls_last=True)
    return table.select(aggs)


def summary_table(
    stats: pl.LazyFrame,
    *,
    criteria: Sequence[str],
    method: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    zero_division: float | None,
    z: float,
    bands: Bands,
    min_group_size: float,
) -> pl.LazyFrame:
    """One row per (batch key, criterion): value, band, verdict, interval, p-value."""
    check_table_keys("summary", by)
    stats = stats.cache()  # every criterion reads the same (small) table
    ref = reference if reference is not None else "largest"
    smallest = stats.group_by(by).agg(pl.col("n").min()) if by else stats.select(pl.col("n").min())
    parts = []
    for name in criteria:
        value = criterion_value_table(
            stats, name=name, method=method, by=by, sensitive=sensitive, reference=reference,
            zero_division=zero_division,
        ).rename({name: "value"})  # fmt: skip
        interval = _interval(
            stats, name=name, method=method, by=by, sensitive=sensitive, reference=ref, z=z
        )
        if interval is None:
            interval_cols = [pl.lit(None, dtype=pl.Float64).alias(c) for c in ("ci_low", "ci_high")]
            row = value.with_columns(interval_cols)
        elif by:
            row = value.join(interval, on=by, how="left", nulls_equal=True)
        else:
            row = pl.concat([value, interval], how="horizontal")
        row = (
            row.join(smallest, on=by, how="left", nulls_equal=True)
            if by
            else pl.concat([row, smallest], how="horizontal")
        )
        ideal, low, high = bands.of(name)
        p_value = normal_two_sided_p(pl.col("value")) if name == "two_sd_rule" else None
        parts.append(
            row.select(
                *by,
                pl.lit(name).alias("criterion"),
                pl.col("value").cast(pl.Float64),
                pl.lit(ideal).alias("ideal"),
                pl.lit(low).alias("fair_low"),
                pl.lit(high).alias("fair_high"),
                pl.col("ci_low").cast(pl.Float64),
                pl.col("ci_high").cast(pl.Float64),
                (p_value if p_value is not None else pl.lit(None, dtype=pl.Float64)).alias(
                    "p_value"
                ),
                pl.col("n").alias("min_group_n"),
            )
        )
    table = stack(parts, by)  # by keys first, criteria in the order asked for within each key
    v = pl.col("value")
    verdict = (
        pl.when(v.is_null())
        .then(pl.lit("undefined"))
        .when(pl.col("min_group_n") < min_group_size)
        .then(pl.lit("too_small"))
        .when((v >= pl.col("fair_low")) & (v <= pl.col("fair_high")))
        .then(pl.lit("fair"))
        .otherwise(pl.lit("unfair"))
        .cast(VERDICT_DTYPE)
    )
    cols = [*by, "criterion", "value", "ideal", "fair_low", "fair_high", "verdict"]
    return table.with_columns(verdict.alias("verdict")).select(
        *cols, "ci_low", "ci_high", "p_value", "min_group_n"
    )
