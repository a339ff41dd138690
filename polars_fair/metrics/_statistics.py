"""Two-group statistics of selection rates: Cohen's d, the 2-SD rule, the 4/5 rule.

Each compares every group with a reference group (``"largest"`` by default) from
the counts ``n`` and predicted positives; with more than two groups the criterion
is the signed value of the group farthest from the reference.

* Cohen's d: ``(SR_g - SR_ref) / s_pooled`` with
  ``s_pooled = sqrt(((n_g - 1) s_g² + (n_ref - 1) s_ref²) / (n_g + n_ref - 2))`` and
  ``s² = SR (1 - SR)``. The Holistic AI documentation prints the pooled variance
  without its square root, a typo: d is a difference over a standard deviation.
* 2-SD rule: ``z = (SR_g - SR_ref) / sqrt(SR_tot (1 - SR_tot) / (N P_g (1 - P_g)))``
  over the two groups compared (``N = n_g + n_ref``, ``P_g = n_g / N``, ``SR_tot``
  their pooled selection rate): the two-proportion z statistic. |z| > 2 flags.
* Four-fifths rule: ``min(DI, 1 / DI)`` of the disparate impact ``SR_g / SR_ref``
  (the summary, which keeps one orientation per audit, reports the signed
  ``SR_g / SR_ref`` instead); without a reference group, ``min SR / max SR`` (every
  group against the most selected one, as in the EEOC guideline). Fair when >= 0.8.

Without a reference group (``reference=None``), Cohen's d and the 2-SD z compare
the most selected group with the least selected one, so they are >= 0 like
``max - min``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._utils import over, per_key
from polars_fair.metrics._criteria import farthest_from_reference
from polars_fair.metrics._rates import Counts, safe_div
from polars_fair.metrics._reference import is_reference

__all__ = ["statistic_table"]

_REF = "__pf_is_ref"


def _per_group(name: str) -> pl.Expr:
    """The per-group statistic over the materialised columns of `statistic_table`."""
    n, pp, sr = pl.col("__pf_n"), pl.col("__pf_pp"), pl.col("__pf_sr")
    n_r, pp_r, sr_r = pl.col("__pf_n_r"), pl.col("__pf_pp_r"), pl.col("__pf_sr_r")
    if name == "cohen_d":
        dof = n + n_r - 2
        pooled = safe_div((n - 1) * sr * (1 - sr) + (n_r - 1) * sr_r * (1 - sr_r), dof)
        return pl.when(dof > 0).then(safe_div(sr - sr_r, pooled.sqrt()))
    if name == "two_sd_rule":
        total = n + n_r
        sr_tot = safe_div(pp + pp_r, total)
        se = safe_div(sr_tot * (1 - sr_tot) * total, n * n_r).sqrt()
        return safe_div(sr - sr_r, se)
    ratio = safe_div(sr, sr_r)
    return pl.when(ratio == 0).then(0.0).otherwise(pl.min_horizontal(ratio, 1 / ratio))


def _pair_columns(c: Any) -> list[pl.Expr]:
    return [c.n.cast(pl.Float64).alias("__pf_n"), c.PP().cast(pl.Float64).alias("__pf_pp")]


def statistic_table(
    stats: pl.LazyFrame,
    *,
    name: str,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str | None,
    signed: bool = False,
) -> pl.LazyFrame:
    """One row per batch key and one column `name` (see the module docstring).

    `reference` None: the four-fifths ratio is ``min / max``; Cohen's d and the 2-SD
    z compare with the largest group, or, with `signed` (the summary's one
    orientation per audit), the most with the least selected group (>= 0). With a
    reference, `signed` makes the four-fifths rule the signed ``SR_g / SR_ref`` of
    the farthest group (one orientation with the disparate impact) instead of
    ``min(DI, 1 / DI)``.
    """
    c = Counts.from_columns(stats.collect_schema().names())
    if reference is None and (signed or name == "four_fifths_rule"):
        table = stats.with_columns(_pair_columns(c))
        sr = safe_div(pl.col("__pf_pp"), pl.col("__pf_n"))
        table = table.with_columns(sr.alias("__pf_sr_all"))
        s_all = pl.col("__pf_sr_all")
        keep = s_all.is_not_null()
        top, bottom = s_all.filter(keep).arg_max(), s_all.filter(keep).arg_min()
        # four-fifths: the least selected against the most (min / max <= 1); the
        # others: the most selected against the least (>= 0)
        g, r = (bottom, top) if name == "four_fifths_rule" else (top, bottom)
        picks = [
            pl.col("__pf_n").filter(keep).get(g).alias("__pf_n"),
            pl.col("__pf_pp").filter(keep).get(g).alias("__pf_pp"),
            pl.col("__pf_n").filter(keep).get(r).alias("__pf_n_r"),
            pl.col("__pf_pp").filter(keep).get(r).alias("__pf_pp_r"),
            (keep.sum() >= 2).alias("__pf_two"),
        ]
        pairs = per_key(table, picks, by)
        pairs = pairs.with_columns(
            safe_div(pl.col("__pf_pp"), pl.col("__pf_n")).alias("__pf_sr"),
            safe_div(pl.col("__pf_pp_r"), pl.col("__pf_n_r")).alias("__pf_sr_r"),
        )
        stat = (
            safe_div(pl.col("__pf_sr"), pl.col("__pf_sr_r"))
            if name == "four_fifths_rule"
            else _per_group(name)
        )
        value = pl.when(pl.col("__pf_two")).then(stat).cast(pl.Float64).alias(name)
        return pairs.select(*by, value)
    mask = is_reference(reference if reference is not None else "largest", sensitive, by)
    table = stats.with_columns(mask.alias(_REF), *_pair_columns(c))
    is_ref = pl.col(_REF)
    table = table.with_columns(
        safe_div(pl.col("__pf_pp"), pl.col("__pf_n")).alias("__pf_sr"),
        over(pl.col("__pf_n").filter(is_ref).first(), by).alias("__pf_n_r"),
        over(pl.col("__pf_pp").filter(is_ref).first(), by).alias("__pf_pp_r"),
    )
    table = table.with_columns(safe_div(pl.col("__pf_pp_r"), pl.col("__pf_n_r")).alias("__pf_sr_r"))
    if name == "four_fifths_rule" and signed:
        di = safe_div(pl.col("__pf_sr"), pl.col("__pf_sr_r"))
        table = table.with_columns(di.alias("__pf_stat"))
        v = pl.col("__pf_stat")
        distance = pl.when(v == 0).then(float("inf")).otherwise(v.log().abs())
        value = farthest_from_reference(v, distance, is_ref)
    else:
        table = table.with_columns(_per_group(name).alias("__pf_stat"))
        v = pl.col("__pf_stat")
        if name == "four_fifths_rule":
            value = v.filter(~is_ref).min()
        else:
            value = farthest_from_reference(v, v.abs(), is_ref)
    return per_key(table, value.cast(pl.Float64).alias(name), by)
