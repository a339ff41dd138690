"""Warnings name a group of several keys the same way: its values joined by " / ".

The undefined-rate warning (a zero denominator), the excluded-rows warning and the
one-class warning of the ROC AUC all list groups; a batch key's date and a group
value read ``2013-01-01 / a``, as the tables name an intersection, not as a Python
tuple ``(datetime.date(2013, 1, 1), 'a')``.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings

import polars as pl

import polars_fair  # noqa: F401  (registers the namespace)


def _messages(call: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()  # type: ignore[operator]
    return [str(w.message) for w in caught]


def _frame() -> pl.DataFrame:
    # 2013 / a: positives only; 2014 / b: negatives only, and one null label
    return pl.DataFrame({
        "d": [dt.date(2013, 1, 1)] * 4 + [dt.date(2014, 1, 1)] * 4,
        "g": ["a", "a", "b", "b"] * 2,
        "y": [1, 1, 0, 1, 1, 0, 0, None],
        "s": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        "p": [0, 0, 1, 1, 0, 1, 0, 0],
    })  # fmt: skip


def test_one_class_groups_are_named_as_the_tables_name_them() -> None:
    frame = _frame()
    texts = _messages(lambda: frame.fair.roc_auc(y_true="y", y_prob="s",
                                                 sensitive_features="g", by="d"))  # fmt: skip
    one_class = [t for t in texts if "one class only" in t]
    assert len(one_class) == 1
    assert one_class[0].startswith("groups ['2013-01-01 / a', '2014-01-01 / b'] have labels")


def test_every_group_warning_joins_the_values() -> None:
    frame = _frame()
    texts = _messages(
        lambda: frame.fair.by_group(y_true="y", y_pred="p", sensitive_features="g", by="d")
    )
    listed = [t for t in texts if "groups [" in t]
    assert any("excluded" in t for t in listed)  # the null label
    assert any("undefined" in t for t in listed)  # e.g. 2013 / a predicts no positive
    for text in listed:
        groups = re.search(r"groups (\[[^\]]*\])", text)
        assert groups is not None
        assert "datetime" not in groups.group(1)
        assert "(" not in groups.group(1)
        assert " / " in groups.group(1)
