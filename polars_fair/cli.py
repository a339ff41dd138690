"""The ``polars-fair`` command line (also ``python -m polars_fair``).

``polars-fair audit --example compas`` audits the bundled COMPAS example and prints
the per-group rates and the main criteria as tables.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import polars as pl

__all__ = ["main"]

_CRITERIA = (
    "demographic_parity_difference",
    "disparate_impact_ratio",
    "equal_opportunity_difference",
    "predictive_equality_difference",
    "equalized_odds_difference",
    "predictive_parity_difference",
    "average_odds_difference",
    "accuracy_difference",
)


_SELECTION = ("demographic_parity_difference", "disparate_impact_ratio")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polars-fair", description="Fairness audits of model predictions with Polars."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser("audit", help="audit predictions and print the results")
    audit.add_argument("--example", choices=["compas"], required=True, help="bundled example data")
    return parser


def _audit_example() -> str:
    import polars_fair
    from polars_fair.datasets import scan_compas

    # the example is small: read it once, then every table below reuses it
    lf = (
        scan_compas()
        .filter(pl.col("race").is_in(["African-American", "Caucasian"]))
        .collect()
        .lazy()
    )
    kw: dict[str, Any] = {
        "y_true": "two_year_recid", "y_pred": "y_pred", "sensitive_features": "race"
    }  # fmt: skip
    fair = polars_fair.fair(lf)
    rates = fair.by_group(**kw).select(
        "race", "n", "selection_rate", "base_rate", "true_positive_rate",
        "false_positive_rate", "positive_predictive_value", "accuracy",
    )  # fmt: skip
    pred_only: dict[str, Any] = {"y_pred": "y_pred", "sensitive_features": "race"}
    scalars = [
        getattr(fair, name)(**(pred_only if name in _SELECTION else kw)) for name in _CRITERIA
    ]
    frames = pl.collect_all([rates, *scalars])
    summary = pl.DataFrame({"criterion": list(_CRITERIA), "value": [f.item() for f in frames[1:]]})
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4):
        return (
            "COMPAS (ProPublica, two-year recidivism; y_pred = decile_score >= 5)\n"
            f"{frames[0]}\n{summary}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "audit" and args.example == "compas":
        print(_audit_example())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
