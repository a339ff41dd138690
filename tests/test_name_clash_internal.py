"""A key column named like a method's own temporary columns survives (issue 14, class 1).

``tradeoffs`` computed its rates into columns ``br``, ``sr``, ``tpr``, ``fpr`` and
``ppv``, and ``abroca`` its curve bounds into ``lo``, ``hi``, ``r_lo`` and ``r_hi``:
a sensitive or ``by`` column of that name was overwritten with rates (tradeoffs) or
ended in a raw Polars error (abroca). The result must equal the one with the column
under another name, on every engine.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401 - registers the namespace

DF = pl.DataFrame(
    {
        "race": ["a"] * 6 + ["b"] * 6,
        "model": ["m1", "m2"] * 6,
        "y": [1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0],
        "p": [1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0],
        "s": [0.9, 0.2, 0.4, 0.8, 0.7, 0.1, 0.6, 0.7, 0.3, 0.2, 0.9, 0.4],
    }
)


def _run(frame: pl.DataFrame, engine: str, call: str, key: str, by: str | None) -> pl.DataFrame:
    source = frame if engine == "eager" else frame.lazy()
    if call == "tradeoffs":
        out = source.fair.tradeoffs(y_true="y", y_pred="p", sensitive_features=key, by=by)
    else:
        out = source.fair.abroca(y_true="y", y_prob="s", sensitive_features=key, by=by)
    if isinstance(out, pl.LazyFrame):
        return out.collect(engine="streaming" if engine == "streaming" else "in-memory")
    return out if isinstance(out, pl.DataFrame) else pl.DataFrame({"value": [out]})


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize(
    ("call", "name"),
    [("tradeoffs", n) for n in ("br", "sr", "tpr", "fpr", "ppv")]
    + [("abroca", n) for n in ("lo", "hi", "r_lo", "r_hi")],
)
@pytest.mark.parametrize("role", ["sensitive", "by"])
def test_a_key_named_like_a_temporary_column_survives(
    engine: str, call: str, name: str, role: str
) -> None:
    column = "race" if role == "sensitive" else "model"
    key, by = ("race", "model") if role == "by" else ("race", None)
    expected = _run(DF, engine, call, key, by)
    renamed = DF.rename({column: name})
    got = _run(renamed, engine, call, name if role == "sensitive" else key,
               name if role == "by" else None)  # fmt: skip
    assert_frame_equal(got.rename({name: column}, strict=False), expected, check_row_order=False)
