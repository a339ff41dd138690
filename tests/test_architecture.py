"""Layering: each module imports only from the layers below it (STYLE.md section 3)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "polars_fair"

#: The folders are the layers, lowest first: a module imports only from its own
#: layer or below (DESIGN.md section 1). ``plans`` holds what a method reduces and
#: derives; ``report`` the finished report (its tables, HTML and charts), which the
#: namespace's ``report`` method returns; ``io`` the command line, files and Ray.
FOLDERS = ("reduce", "metrics", "plans", "report", "namespace", "io")
#: The modules at the top of the package: the base (below every folder), the
#: expression functions, and the public paths of modules that live in a folder.
BASE = {"_typing": 0, "exceptions": 0, "_names": 1, "_utils": 1, "_numeric": 1, "_validate": 1}
TOP = {
    "expressions": 4,  # rates as expressions, over the metric layer
    "__main__": 20,
    "__init__": 21,
}
#: Public paths kept where a module moved into a folder: each only re-exports it.
SHIMS = {
    "reduce_scores": "reduce.scores",
    "reduce_regression": "reduce.regression",
    "reduce_ensemble": "reduce.ensemble",
    "reduce_multiclass": "reduce.multiclass",
    "plots": "report.plots",
    "cli": "io.cli",
    "distributed": "io.distributed",
    "sources": "io.sources",
    "datasets": "io.datasets",
}
#: No hand-written module is longer than this (STYLE.md section 6).
MAX_LINES = 800
#: Modules still over the budget, with their size now: they may only shrink (to split).
OVER_BUDGET: dict[str, int] = {}


def _layer(module: str) -> int:
    parts = module.split(".")
    assert parts[0] == "polars_fair"
    if len(parts) == 1:
        return TOP["__init__"]
    top = parts[1]
    if top in FOLDERS:
        return 10 + FOLDERS.index(top)
    if top in SHIMS:
        return _layer("polars_fair." + SHIMS[top])
    if top in BASE:
        return BASE[top]
    if top == "expressions":
        return 10 + FOLDERS.index("metrics")
    return TOP[top]


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


def test_folders_are_the_layers() -> None:
    folders = sorted(p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert sorted(FOLDERS) == folders
    top = {p.stem for p in PKG.glob("*.py")}
    assert top == set(BASE) | set(TOP) | set(SHIMS)


@pytest.mark.parametrize("shim", sorted(SHIMS))
def test_public_paths_only_re_export(shim: str) -> None:
    tree = ast.parse((PKG / f"{shim}.py").read_text())
    body = [n for n in tree.body if not isinstance(n, ast.Expr)]  # the docstring
    assert isinstance(body[0], ast.ImportFrom)
    assert body[0].module == f"polars_fair.{SHIMS[shim]}"
    assert all(isinstance(n, (ast.ImportFrom, ast.Assign)) for n in body)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_module_size_budget(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    limit = OVER_BUDGET.get(str(path.relative_to(PKG)), MAX_LINES)
    assert lines <= limit, f"{path.relative_to(PKG)}: {lines} lines > {limit}"


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
