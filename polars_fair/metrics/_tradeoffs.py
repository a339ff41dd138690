"""Trade-offs between criteria under unequal base rates (Garg et al., 2020, sec. 3).

For each group compared with the reference, with base rates ``BR_g`` and
``BR_ref``, the table says whether pairs (and the triple) of statistical parity
(SP), predictive parity (PP) and equalized odds (EO) can hold together, under
which condition, and how far the model is from that condition now:

============================  ===========  ========================================
criteria                      compatible   condition (``required`` vs ``actual``)
============================  ===========  ========================================
SP + PP                       yes          ``TPR_g / TPR_ref = BR_ref / BR_g``
EO + PP                       BR equal     ``BR_g = BR_ref`` (or perfect prediction)
SP + EO                       yes          ``TPR = FPR`` (a useless classifier)
equal opportunity + PP        yes          ``FPR_g / FPR_ref = odds(BR_g) / odds(BR_ref)``
SP + PP + EO                  BR equal     ``BR_g = BR_ref``
identity                      always       ``PPV * SR = TPR * BR`` (per group)
============================  ===========  ========================================

All follow from ``p(y, ŷ | G) = PPV * SR = TPR * BR`` (the seed's equation 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._utils import built_once, over
from polars_fair._validate import check_table_keys
from polars_fair.metrics._rates import Counts, rate_expr, safe_div
from polars_fair.metrics._reference import is_reference

__all__ = ["TRADEOFFS", "tradeoff_table"]

#: The rows of the table, in order.
TRADEOFFS = (
    "statistical_parity+predictive_parity",
    "equalized_odds+predictive_parity",
    "statistical_parity+equalized_odds",
    "equal_opportunity+predictive_parity",
    "statistical_parity+predictive_parity+equalized_odds",
    "identity",
)
_REF = "__pf_is_ref"
_REFERENCE = "__pf_ref_"
#: The group's own rates (internal names: a user column named ``tpr`` survives).
_OWN = "__pf_own_"
_RATES = {
    "br": "base_rate",
    "sr": "selection_rate",
    "tpr": "true_positive_rate",
    "fpr": "false_positive_rate",
    "ppv": "positive_predictive_value",
}


def _odds(p: pl.Expr) -> pl.Expr:
    return safe_div(p, 1 - p)


def tradeoff_table(
    stats: pl.LazyFrame,
    *,
    by: list[str],
    sensitive: Sequence[str],
    reference: tuple[Any, ...] | str,
) -> pl.LazyFrame:
    """Long table of the trade-offs, one block per non-reference group.

    Columns: keys, ``criteria``, ``compatible``, ``condition``, ``required``,
    ``actual``, ``gap = actual - required``.
    """
    check_table_keys("tradeoffs", by, sensitive)
    names = tuple(stats.collect_schema().names())
    table = stats
    for step in built_once(_steps, names, tuple(by), tuple(sensitive), reference):
        table = table.with_columns(step)
    keys = [*by, *sensitive]
    wide = table.filter(~pl.col(_REF)).select(*keys, *TRADEOFFS)
    long = wide.unpivot(
        on=list(TRADEOFFS), index=keys, variable_name="criteria", value_name="__pf_s"
    )
    return (
        long.with_columns(pl.col("criteria").cast(_CRITERIA))
        .unnest("__pf_s")
        .with_columns((pl.col("actual") - pl.col("required")).alias("gap"))
        .sort([*keys, "criteria"], nulls_last=True)
    )


#: The ``criteria`` column.
_CRITERIA = pl.Enum(list(TRADEOFFS))


def _steps(
    names: tuple[str, ...],
    by_: tuple[str, ...],
    sensitive: tuple[str, ...],
    reference: tuple[Any, ...] | str,
) -> tuple[tuple[pl.Expr, ...], ...]:
    """The ``with_columns`` steps of :func:`tradeoff_table` (built once per arguments).

    The rates and the reference row; the reference's rates (each window once); then
    one struct per trade-off.
    """
    by = list(by_)
    c = Counts.from_columns(names)
    rates = {k: rate_expr(v, c).alias(_OWN + k) for k, v in _RATES.items()}
    first = (*rates.values(), is_reference(reference, sensitive, by).alias(_REF))
    second = tuple(
        over(pl.col(_OWN + k).filter(pl.col(_REF)).first(), by).alias(_REFERENCE + k)
        for k in _RATES
    )
    g = {k: pl.col(_OWN + k) for k in _RATES}
    r = {k: pl.col(_REFERENCE + k) for k in _RATES}
    same_br = (g["br"] == r["br"]).fill_null(False)
    rows = {
        TRADEOFFS[0]: (
            pl.lit(True), "TPR_g / TPR_ref = BR_ref / BR_g",
            safe_div(r["br"], g["br"]), safe_div(g["tpr"], r["tpr"]),
        ),
        TRADEOFFS[1]: (
            same_br, "BR_g = BR_ref (or perfect prediction)", r["br"], g["br"],
        ),
        TRADEOFFS[2]: (
            pl.lit(True), "TPR_g = FPR_g (no better than chance)", g["fpr"], g["tpr"],
        ),
        TRADEOFFS[3]: (
            pl.lit(True), "FPR_g / FPR_ref = odds(BR_g) / odds(BR_ref)",
            safe_div(_odds(g["br"]), _odds(r["br"])), safe_div(g["fpr"], r["fpr"]),
        ),
        TRADEOFFS[4]: (same_br, "BR_g = BR_ref", r["br"], g["br"]),
        TRADEOFFS[5]: (
            pl.lit(True), "PPV_g * SR_g = TPR_g * BR_g", g["tpr"] * g["br"], g["ppv"] * g["sr"],
        ),
    }  # fmt: skip
    structs = tuple(
        pl.struct(
            compatible.alias("compatible"),
            pl.lit(condition).alias("condition"),
            required.cast(pl.Float64).alias("required"),
            actual.cast(pl.Float64).alias("actual"),
        ).alias(name)
        for name, (compatible, condition, required, actual) in rows.items()
    )
    return first, second, structs
