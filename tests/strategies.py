"""Hypothesis strategies for labelled prediction frames.

``labelled_frames()`` draws a small polars DataFrame shaped like the input of every
``fair`` method: a sensitive column ``g`` (String), binary labels ``y_true`` and
``y_pred`` (Int64 0/1) and, optionally, a non-negative weight column ``w``
(Float64). With ``nulls=True`` the group and label columns may hold nulls.

The rows are drawn as tuples (one draw per row) so that Hypothesis shrinks a
failing example to few rows, and the schema is always given explicitly so that an
empty or all-null column keeps its dtype.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
from hypothesis import strategies as st

__all__ = ["SCHEMA", "integer_weights", "labelled_frames", "weights_values"]

#: The dtypes of the drawn frames (``w`` only when weighted).
SCHEMA = {"g": pl.String, "y_true": pl.Int64, "y_pred": pl.Int64, "w": pl.Float64}

#: Non-negative weights: exact zeros (a group may weigh nothing) and values far
#: enough from the subnormal range that scaling them by a constant stays exact in
#: its null pattern.
weights_values = st.one_of(
    st.just(0.0),
    st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False),
)

#: Small integer weights, stored as floats (``integer weights == duplicated rows``).
integer_weights = st.integers(min_value=0, max_value=3).map(float)


@st.composite
def labelled_frames(
    draw: st.DrawFn,
    min_rows: int = 0,
    max_rows: int = 60,
    groups: Sequence[str] = ("a", "b", "c"),
    weights: bool = False,
    nulls: bool = False,
    weight_values: st.SearchStrategy[float] | None = None,
) -> pl.DataFrame:
    """
    A DataFrame with columns ``g, y_true, y_pred`` (and ``w`` when `weights`).

    Parameters
    ----------
    min_rows, max_rows
        Bounds on the number of rows.
    groups
        Values of the sensitive column ``g``.
    weights
        Add a Float64 column ``w`` of non-negative weights (never null).
    nulls
        Let ``g``, ``y_true`` and ``y_pred`` hold nulls.
    weight_values
        Strategy for one weight (default :data:`weights_values`).
    """
    group_values: list[str | None] = list(groups)
    label_values: list[int | None] = [0, 1]
    if nulls:
        group_values.append(None)
        label_values.append(None)
    columns = [
        st.sampled_from(group_values),
        st.sampled_from(label_values),
        st.sampled_from(label_values),
    ]
    names = ["g", "y_true", "y_pred"]
    if weights:
        columns.append(weights_values if weight_values is None else weight_values)
        names.append("w")
    rows = draw(st.lists(st.tuples(*columns), min_size=min_rows, max_size=max_rows))
    schema = {name: SCHEMA[name] for name in names}
    return pl.DataFrame(rows, schema=schema, orient="row")
