"""The public path of :mod:`polars_fair.report.plots` (where the module lives: see the layers)."""

from polars_fair.report.plots import (  # noqa: I001  (the module first, then its constants)
    available,
    calibration_chart,
    charted_groups,
    disparity_chart,
    rates_chart,
    report_svgs,
    roc_chart,
    to_svg,
)
from polars_fair.report._plot_groups import (  # the charts' constants, not in __all__
    MAX_GROUPS,  # noqa: F401
    PALETTE,  # noqa: F401
    RATES,  # noqa: F401
)

__all__ = [
    "available",
    "calibration_chart",
    "charted_groups",
    "disparity_chart",
    "rates_chart",
    "report_svgs",
    "roc_chart",
    "to_svg",
]
