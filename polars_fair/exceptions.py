"""Exceptions and warnings raised by polars_fair.

Everything polars_fair raises derives from :class:`FairError`, so a caller can
catch the library's errors with one ``except`` clause while still matching the
standard Python bases (``ValueError``, ``TypeError``) that each error refines.
"""

from __future__ import annotations

import polars as pl

__all__ = [
    "ColumnNotFoundError",
    "EmptyDataError",
    "FairError",
    "FairWarning",
    "DegenerateDataWarning",
    "FairnessGateError",
    "FileReadError",
    "InputError",
    "IdentifierWarning",
    "InvalidParameterError",
    "LabelError",
    "NumericalWarning",
    "NullDataWarning",
    "ProfileError",
    "ReferenceGroupError",
    "UndefinedMetricWarning",
    "ValueRangeError",
]


class FairError(Exception):
    """Base class of every error raised by polars_fair."""


class InvalidParameterError(FairError, ValueError, TypeError):
    """A parameter has the wrong type or an unsupported value."""


class ColumnNotFoundError(FairError, pl.exceptions.ColumnNotFoundError):
    """A column named in a parameter does not exist in the frame."""


class LabelError(FairError, ValueError):
    """A label column holds values other than the two label values, or a wrong dtype."""


class ValueRangeError(FairError, ValueError):
    """A score or weight lies outside its allowed range (e.g. a negative weight)."""


class ReferenceGroupError(FairError, ValueError):
    """The requested reference group does not occur in the data."""


class EmptyDataError(FairError, ValueError):
    """The input has no rows to evaluate."""


class FairnessGateError(FairError, AssertionError):
    """A release gate failed: a verdict or a condition on a criterion holds.

    ``failures`` holds one line per failure (criterion, value, the groups compared).
    """

    def __init__(self, failures: list[str]) -> None:
        self.failures = list(failures)
        lines = "\n".join(f"- {f}" for f in self.failures)
        super().__init__(f"{len(self.failures)} fairness gate(s) failed:\n{lines}")


class ProfileError(FairError, ValueError):
    """Profiles that cannot be merged or used as asked, or a file that is not a profile."""


class FileReadError(FairError, ValueError):
    """A file cannot be read: missing, a directory, corrupt, or a value that does not parse."""


class InputError(FairError, ValueError):
    """The LazyFrame given failed while it was read: its own plan (a scan, a cast) raised."""


class FairWarning(UserWarning):
    """Base class of every warning emitted by polars_fair."""


class UndefinedMetricWarning(FairWarning):
    """A rate is undefined (zero denominator) for some groups and is reported as null."""


class NullDataWarning(FairWarning):
    """Rows were excluded because a label, score or weight was null."""


class DegenerateDataWarning(FairWarning):
    """The data cannot support the comparison asked for.

    For example a label column that never equals `pos_label`, or a single group
    compared with itself.
    """


class NumericalWarning(FairWarning):
    """A result lost its precision (cancellation, overflow) or is not meaningful as computed."""


class IdentifierWarning(FairWarning):
    """A sensitive feature has about as many groups as rows: it looks like an identifier."""
