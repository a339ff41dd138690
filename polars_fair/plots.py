"""The public path of :mod:`polars_fair.report.plots` (where the module lives: see the layers)."""

from polars_fair.report.plots import (
    available,
    calibration_chart,
    disparity_chart,
    rates_chart,
    report_svgs,
    roc_chart,
    to_svg,
)

__all__ = [
    "available",
    "calibration_chart",
    "disparity_chart",
    "rates_chart",
    "report_svgs",
    "roc_chart",
    "to_svg",
]
