"""Griffe extension for the documentation site: use the docstrings Python sees.

Some polars_fair docstrings are completed when the package is imported: the
criterion methods of the ``fair`` namespace and the pair-rate expression functions
are filled from shared templates by decorators, and ``with_example`` replaces a
``>>> DATA`` placeholder with the example's data. Griffe reads the source
statically, so it would show those functions without (or with unfinished)
docstrings. For every function of the package, this extension imports the object
and, where its runtime ``__doc__`` differs from the source, uses the runtime one.

Static analysis is kept for everything else (signatures, annotations, members),
and no module is imported that the package itself does not import (in particular
not ``polars_fair.__main__``, which runs the command line), unlike the handler's
``force_inspection`` option.

Used from ``mkdocs.yml``::

    extensions:
      - scripts/griffe_dynamic_docstrings.py:DynamicDocstrings
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

import griffe


class DynamicDocstrings(griffe.Extension):
    """Replace static docstrings with runtime ones for functions of `packages`."""

    def __init__(self, packages: list[str] | None = None) -> None:
        self.packages = tuple(packages or ["polars_fair"])

    def _wanted(self, path: str) -> bool:
        return any(path == p or path.startswith(p + ".") for p in self.packages)

    def on_function_instance(
        self,
        *,
        node: ast.AST | griffe.ObjectNode,
        func: griffe.Function,
        agent: griffe.Visitor | griffe.Inspector,
        **kwargs: Any,
    ) -> None:
        if not isinstance(node, ast.AST) or not self._wanted(func.path):
            return  # inspected objects already carry their runtime docstring
        if ".<" in func.path or func.parent is None or func.parent.is_function:
            return  # nested functions are not importable
        try:
            runtime = griffe.dynamic_import(func.path)
        except ImportError:
            return
        doc = getattr(runtime, "__doc__", None)
        if not isinstance(doc, str):
            return
        doc = inspect.cleandoc(doc)
        if func.docstring is not None and func.docstring.value == doc:
            return
        func.docstring = griffe.Docstring(
            doc,
            lineno=func.docstring.lineno if func.docstring else None,
            endlineno=func.docstring.endlineno if func.docstring else None,
            parent=func,
            parser=agent.docstring_parser,
            parser_options=agent.docstring_options,
        )
