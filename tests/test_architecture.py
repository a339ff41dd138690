"""Layering: each module imports only from the layers below it (STYLE.md section 3)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "polars_fair"

# layer number of each module (lower layers never import higher ones)
LAYERS = {
    "_typing": 0,
    "exceptions": 0,
    "_utils": 1,
    "_validate": 1,
    "reduce": 2,
    "reduce_scores": 2,
    "reduce_regression": 2,
    "reduce_ensemble": 2,
    "reduce_multiclass": 2,
    "_ns_base": 5,
    "_ns_scores": 5,
    "_ns_audit": 5,
    "_ns_regression": 5,
    "_ns_ensemble": 5,
    "_ns_multiclass": 5,
    "_ns_report": 5,
    "report": 4,
    "_report_html": 4,
    "plots": 4,
    "metrics": 3,
    "expressions": 4,
    "_api": 4,
    "namespace": 5,
    "datasets": 1,
    "sources": 1,
    "distributed": 6,
    "cli": 7,
    "__main__": 8,
    "__init__": 9,
}


def _layer(module: str) -> int:
    parts = module.split(".")
    assert parts[0] == "polars_fair"
    if len(parts) == 1:
        return LAYERS["__init__"]
    return LAYERS[parts[1]]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("polars_fair")
        ):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("polars_fair"))
    return found


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


MODULES = sorted(PKG.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_only_lower_layers(path: Path) -> None:
    me = _module_name(path)
    my_layer = _layer(me)
    for target in _imports(path):
        if target == "polars_fair" and me.startswith("polars_fair.") and path.name != "__init__.py":
            # `import polars_fair` for the package path only (find_stacklevel, resources)
            continue
        if target.startswith(me + ".") or me.startswith(target + "."):
            continue  # a package and its own submodules
        assert _layer(target) <= my_layer, f"{me} (layer {my_layer}) imports {target}"


def test_every_module_has_a_layer() -> None:
    for path in MODULES:
        name = _module_name(path)
        _layer(name)  # raises KeyError for an unknown module


def test_no_pandas_in_the_library() -> None:
    for path in MODULES:
        assert "pandas" not in {m.split(".")[0] for m in _imports_all(path)}, path


def _imports_all(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found
