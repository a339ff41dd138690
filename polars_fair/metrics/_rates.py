"""Rate formulas over confusion counts, written once as Polars expressions.

Each formula takes *count expressions* (``tp``, ``fp``, ...), so the same code
serves the statistics table (columns ``pl.col("tp")``) and the top-level
expression functions (row-level sums such as ``(y & p).sum()``). A rate whose
denominator is zero is null, never 0, NaN or inf.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import polars as pl

from polars_fair.exceptions import InvalidParameterError

__all__ = [
    "COMPOSITES",
    "RATES",
    "SCORE_RATES",
    "Counts",
    "available_rates",
    "rate_expr",
    "safe_div",
]

#: The per-group rate columns of DESIGN.md section 3, in table order.
RATES: tuple[str, ...] = (
    "selection_rate",
    "base_rate",
    "true_positive_rate",
    "false_negative_rate",
    "false_positive_rate",
    "true_negative_rate",
    "positive_predictive_value",
    "negative_predictive_value",
    "false_discovery_rate",
    "false_omission_rate",
    "accuracy",
    "error_rate",
    "predicted_positive_share",
    "f1",
    "balanced_accuracy",
)
#: Score rates (need ``y_true`` and ``y_prob``): mean score among actual positives
#: and among actual negatives (Kleinberg et al.'s balance conditions).
SCORE_RATES: tuple[str, ...] = ("balance_for_positive_class", "balance_for_negative_class")
#: Per-group measures used by composite criteria only (not ``by_group`` columns).
COMPOSITES: tuple[str, ...] = ("treatment_equality", "average_odds")

_PREDICTION_ONLY = frozenset({"selection_rate", "predicted_positive_share"})
_LABEL_ONLY = frozenset({"base_rate"})


@dataclass(frozen=True)
class Counts:
    """Count expressions of one group (any may be None when not available)."""

    n: pl.Expr
    tp: pl.Expr | None = None
    fp: pl.Expr | None = None
    fn: pl.Expr | None = None
    tn: pl.Expr | None = None
    pred_pos: pl.Expr | None = None
    pred_neg: pl.Expr | None = None
    pos: pl.Expr | None = None
    neg: pl.Expr | None = None
    sum_prob_pos: pl.Expr | None = None
    sum_prob_neg: pl.Expr | None = None
    #: a weighted table's sums of squared weights per confusion cell (or None)
    tp_w2: pl.Expr | None = None
    fp_w2: pl.Expr | None = None
    fn_w2: pl.Expr | None = None
    tn_w2: pl.Expr | None = None

    @classmethod
    def from_columns(cls, names: Iterable[str]) -> Counts:
        """Counts read from the columns of a statistics table."""
        cols = set(names)
        get = {c: pl.col(c) for c in cols}
        return cls(
            n=pl.col("n"),
            tp=get.get("tp"),
            fp=get.get("fp"),
            fn=get.get("fn"),
            tn=get.get("tn"),
            pred_pos=get.get("pred_pos"),
            pred_neg=get.get("pred_neg"),
            pos=get.get("pos"),
            neg=get.get("neg"),
            sum_prob_pos=get.get("sum_prob_pos"),
            sum_prob_neg=get.get("sum_prob_neg"),
            tp_w2=get.get("tp_w2"),
            fp_w2=get.get("fp_w2"),
            fn_w2=get.get("fn_w2"),
            tn_w2=get.get("tn_w2"),
        )

    def map(self, fn: Callable[[pl.Expr], pl.Expr]) -> Counts:
        """Apply `fn` to every available count expression (e.g. a window sum)."""

        def f(e: pl.Expr | None) -> pl.Expr | None:
            return None if e is None else fn(e)

        return Counts(
            n=fn(self.n), tp=f(self.tp), fp=f(self.fp), fn=f(self.fn), tn=f(self.tn),
            pred_pos=f(self.pred_pos), pred_neg=f(self.pred_neg), pos=f(self.pos),
            neg=f(self.neg), sum_prob_pos=f(self.sum_prob_pos), sum_prob_neg=f(self.sum_prob_neg),
            tp_w2=f(self.tp_w2), fp_w2=f(self.fp_w2), fn_w2=f(self.fn_w2), tn_w2=f(self.tn_w2),
        )  # fmt: skip

    def minus(self, other: Counts) -> Counts:
        """Element-wise difference (used for the pooled "rest" of a group)."""

        def d(a: pl.Expr | None, b: pl.Expr | None) -> pl.Expr | None:
            return None if a is None or b is None else a - b

        return Counts(
            n=self.n - other.n, tp=d(self.tp, other.tp), fp=d(self.fp, other.fp),
            fn=d(self.fn, other.fn), tn=d(self.tn, other.tn),
            pred_pos=d(self.pred_pos, other.pred_pos),
            pred_neg=d(self.pred_neg, other.pred_neg),
            pos=d(self.pos, other.pos), neg=d(self.neg, other.neg),
            sum_prob_pos=d(self.sum_prob_pos, other.sum_prob_pos),
            sum_prob_neg=d(self.sum_prob_neg, other.sum_prob_neg),
            tp_w2=d(self.tp_w2, other.tp_w2), fp_w2=d(self.fp_w2, other.fp_w2),
            fn_w2=d(self.fn_w2, other.fn_w2), tn_w2=d(self.tn_w2, other.tn_w2),
        )  # fmt: skip

    @property
    def has_confusion(self) -> bool:
        """Whether both true and predicted labels were counted."""
        return self.tp is not None

    def PP(self) -> pl.Expr:  # noqa: N802 - DESIGN.md notation
        """Predicted positives."""
        if self.tp is not None and self.fp is not None:
            return self.tp + self.fp
        assert self.pred_pos is not None
        return self.pred_pos

    def PN(self) -> pl.Expr:  # noqa: N802
        """Predicted negatives."""
        if self.fn is not None and self.tn is not None:
            return self.fn + self.tn
        assert self.pred_neg is not None
        return self.pred_neg

    def P(self) -> pl.Expr:  # noqa: N802
        """Actual positives."""
        if self.tp is not None and self.fn is not None:
            return self.tp + self.fn
        assert self.pos is not None
        return self.pos

    def N(self) -> pl.Expr:  # noqa: N802
        """Actual negatives."""
        if self.fp is not None and self.tn is not None:
            return self.fp + self.tn
        assert self.neg is not None
        return self.neg


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den`` as Float64, null where ``den == 0`` (or either side is null)."""
    return pl.when(den != 0).then(num.cast(pl.Float64) / den.cast(pl.Float64))


def available_rates(counts: Counts) -> tuple[str, ...]:
    """The rates computable from these counts, in table order."""
    scores = SCORE_RATES if counts.sum_prob_pos is not None else ()
    if counts.has_confusion:
        return RATES + scores
    if counts.pred_pos is not None:
        return tuple(r for r in RATES if r in _PREDICTION_ONLY)
    return tuple(r for r in RATES if r in _LABEL_ONLY) + scores


def rate_expr(name: str, c: Counts, total_pp: pl.Expr | None = None) -> pl.Expr:
    """
    The expression of rate `name` from count expressions `c`.

    `total_pp` is the predicted positives of the whole population (over all
    groups); only ``predicted_positive_share`` needs it.
    """
    if name == "selection_rate":
        return safe_div(c.PP(), c.n)
    if name == "base_rate":
        return safe_div(c.P(), c.n)
    if name == "predicted_positive_share":
        if total_pp is None:
            msg = "`predicted_positive_share` needs the predicted positives of all groups"
            raise ValueError(msg)
        return safe_div(c.PP(), total_pp)
    if name in SCORE_RATES:
        total = c.sum_prob_pos if name == "balance_for_positive_class" else c.sum_prob_neg
        if total is None:
            msg = f"rate {name!r} needs `y_true` and `y_prob`\n\nHint: pass both columns"
            raise InvalidParameterError(msg)
        return safe_div(total, c.P() if name == "balance_for_positive_class" else c.N())
    if not c.has_confusion:
        msg = f"rate {name!r} needs both `y_true` and `y_pred`\n\nHint: pass both columns"
        raise InvalidParameterError(msg)
    tp, fp, fn, tn = c.tp, c.fp, c.fn, c.tn
    if tp is None or fp is None or fn is None or tn is None:  # pragma: no cover
        msg = "incomplete confusion counts"
        raise ValueError(msg)
    formulas: dict[str, Callable[[], pl.Expr]] = {
        "true_positive_rate": lambda: safe_div(tp, c.P()),
        "false_negative_rate": lambda: safe_div(fn, c.P()),
        "false_positive_rate": lambda: safe_div(fp, c.N()),
        "true_negative_rate": lambda: safe_div(tn, c.N()),
        "positive_predictive_value": lambda: safe_div(tp, c.PP()),
        "negative_predictive_value": lambda: safe_div(tn, c.PN()),
        "false_discovery_rate": lambda: safe_div(fp, c.PP()),
        "false_omission_rate": lambda: safe_div(fn, c.PN()),
        "accuracy": lambda: safe_div(tp + tn, c.n),
        "error_rate": lambda: safe_div(fp + fn, c.n),
        "f1": lambda: safe_div(2 * tp, 2 * tp + fp + fn),
        "balanced_accuracy": lambda: (safe_div(tp, c.P()) + safe_div(tn, c.N())) / 2,
        "treatment_equality": lambda: safe_div(fn, fp),
        "average_odds": lambda: (safe_div(tp, c.P()) + safe_div(fp, c.N())) / 2,
    }
    try:
        return formulas[name]()
    except KeyError:
        known = [*RATES, *COMPOSITES]
        msg = f"unknown rate {name!r}; known rates: {known}"
        raise ValueError(msg) from None
