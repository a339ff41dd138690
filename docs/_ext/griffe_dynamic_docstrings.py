"""Griffe extension for the documentation site: use the docstrings Python sees.

Some polars_fair docstrings are completed when the package is imported: the
criterion methods of the ``fair`` namespace and the pair-rate expression functions
are filled from shared templates by decorators, and ``with_example`` replaces a
``>>> DATA`` placeholder with the example's data. Griffe reads the source
statically, so it would show those functions without (or with unfinished)
docstrings. For every function of the package, this extension imports the object
and, where its runtime ``__doc__`` differs from the source, uses the runtime one.

Methods created by factories and assigned as class attributes
(``rmse_ratio = _regression_criterion(...)``) look like plain attributes to static
analysis; they are replaced by the inspected function, with its signature and
docstring.

The docstrings use a few reStructuredText roles and directives (Sphinx style) that
Markdown does not know: once the object tree is complete, ``:math:`x```,
``:func:`~a.b``` and friends become inline code and ``.. versionadded:: X`` an
italic line, so the pages show no raw markup. The source is not changed.

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
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:math|func|meth|class|mod|data|attr|obj|exc):`(~?)([^`]+)`")
_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)\.\. (?P<kind>versionadded|versionchanged|deprecated):: *(?P<version>\S+)[ \t]*$",
    re.MULTILINE,
)
_DIRECTIVE_TEXT = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}


def _role(match: re.Match[str]) -> str:
    short, target = match.groups()
    if short:  # `~a.b.c` shows only `c`
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _directive(match: re.Match[str]) -> str:
    text = _DIRECTIVE_TEXT[match.group("kind")]
    return f"{match.group('indent')}*{text} {match.group('version')}.*"


def markdown_docstring(text: str) -> str:
    """Rewrite the reStructuredText roles and directives of a docstring as Markdown."""
    return _DIRECTIVE.sub(_directive, _ROLE.sub(_role, text))


class DynamicDocstrings(griffe.Extension):
    """Replace static docstrings with runtime ones for functions of `packages`."""

    def __init__(self, packages: list[str] | None = None) -> None:
        self.packages = tuple(packages or ["polars_fair"])

    def _wanted(self, path: str) -> bool:
        if ".__main__" in path:
            return False  # importing a __main__ module runs it
        return any(path == p or path.startswith(p + ".") for p in self.packages)

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite reStructuredText roles of a docstring as Markdown."""
        if obj.is_alias or not self._wanted(obj.path) or obj.docstring is None:
            return
        text = markdown_docstring(obj.docstring.value)
        if text != obj.docstring.value:
            obj.docstring.value = text

    def on_class_members(  # noqa: D102 - griffe hook: see the class docstring
        self,
        *,
        node: ast.AST | griffe.ObjectNode,
        cls: griffe.Class,
        agent: griffe.Visitor | griffe.Inspector,
        **kwargs: Any,
    ) -> None:
        if not isinstance(node, ast.AST) or not self._wanted(cls.path):
            return
        try:
            runtime = griffe.dynamic_import(cls.path)
        except Exception:  # noqa: BLE001 - an optional dependency missing: keep the static view
            return
        names = [
            name
            for name, value in vars(runtime).items()
            if not name.startswith("_")
            and inspect.isfunction(value)
            and (name not in cls.members or cls.members[name].is_attribute)
        ]
        if not names:
            return
        try:
            inspected = griffe.inspect(
                cls.module.path,
                docstring_parser=agent.docstring_parser,
                docstring_options=agent.docstring_options,
            )
            twin = inspected.get_member(cls.path[len(cls.module.path) + 1 :])
        except Exception:  # noqa: BLE001
            return
        for name in names:
            member = twin.members.get(name)
            if member is not None and member.is_function:
                cls.set_member(name, member)

    def on_function_instance(  # noqa: D102 - griffe hook: see the class docstring
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
        except Exception:  # noqa: BLE001 - an optional dependency missing: keep the static view
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
