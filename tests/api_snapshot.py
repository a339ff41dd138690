"""Build the public-API snapshot compared by ``tests/test_api_snapshot.py``.

Run ``PYTHONPATH=. python tests/api_snapshot.py`` from the repository root to rewrite ``tests/api_snapshot.json`` (only
when a public name is deliberately added; removals and changes must fail the test).
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).with_name("api_snapshot.json")

#: Public submodules whose import paths users rely on.
MODULES = (
    "polars_fair",
    "polars_fair.cli",
    "polars_fair.datasets",
    "polars_fair.distributed",
    "polars_fair.exceptions",
    "polars_fair.expressions",
    "polars_fair.metrics",
    "polars_fair.plots",
    "polars_fair.reduce",
    "polars_fair.reduce_ensemble",
    "polars_fair.reduce_multiclass",
    "polars_fair.reduce_regression",
    "polars_fair.reduce_scores",
    "polars_fair.report",
    "polars_fair.sources",
)
CLASSES = ("DataFrameFairNamespace", "LazyFrameFairNamespace", "FairnessReport", "FairnessProfile")


def _describe(obj: Any) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        try:
            return str(inspect.signature(obj))
        except (TypeError, ValueError):
            return "callable"
    return type(obj).__name__


def _public(module: Any) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
        names = [n for n in names if not inspect.ismodule(getattr(module, n))]
    return sorted(names)


def live() -> dict[str, dict[str, str]]:
    """The public API as it is now: name -> signature string (or kind)."""
    import polars_fair as pf

    api: dict[str, dict[str, str]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        if name != "polars_fair" and getattr(module, "__all__", None) is None:
            continue  # modules without __all__ expose no declared public names
        api[name] = {n: _describe(getattr(module, n)) for n in _public(module)}
    for cls_name in CLASSES:
        cls = getattr(pf, cls_name)
        api[cls_name] = {
            n: _describe(getattr(cls, n)) for n in sorted(dir(cls)) if not n.startswith("_")
        }
    return api


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(live(), indent=1, sort_keys=True) + "\n")
