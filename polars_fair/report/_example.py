"""The shared example of the report's methods: the ``>>> DATA`` line of a docstring.

The same placeholder as the namespace's (``polars_fair.namespace._base.with_example``,
which this layer, below the namespace, does not import): the example's data is
written once, and each method's Examples section starts with ``>>> DATA``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: The placeholder line of a docstring example: ``>>> DATA`` at any indentation.
_DATA_LINE = re.compile(r"^(?P<indent>[ \t]*)>>> DATA[ \t]*$", re.MULTILINE)


def with_example(data: str) -> Callable[[F], F]:
    """Replace the ``>>> DATA`` line of a docstring with the doctest lines `data`.

    `data` takes the placeholder's indentation (8 spaces in a method's source, none
    from Python 3.13), so the example stays one block with the lines around it.

    Raises
    ------
    ValueError
        If the docstring has no placeholder line (the example would be missing).
    """
    lines = textwrap.dedent(data.strip("\n")).splitlines()

    def block(match: re.Match[str]) -> str:
        indent = match.group("indent")
        return "\n".join(indent + line if line.strip() else "" for line in lines)

    def deco(fn: F) -> F:
        if fn.__doc__ is not None:  # python -OO
            filled, count = _DATA_LINE.subn(block, fn.__doc__)
            if count == 0:
                msg = f"{fn.__qualname__}: the docstring has no `>>> DATA` line"
                raise ValueError(msg)
            fn.__doc__ = filled
        return fn

    return deco
