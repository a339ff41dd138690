"""Multiclass one-vs-rest audits against the reference, sklearn, fairlearn and the binary API.

Reference: `tests/reference_multiclass.py` (boolean masks per class and group, no
polars). Every per-class criterion must equal the binary namespace criterion on the
one-vs-rest columns ``y_true == c`` / ``y_pred == c``. Every check runs on eager, lazy
in-memory and lazy streaming frames (`run`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference_multiclass as ref

import polars_fair as pf
from polars_fair.exceptions import (
    FairWarning,
    InvalidParameterError,
    LabelError,
    NullDataWarning,
    ReferenceGroupError,
)

TOL = {"rel_tol": 1e-9, "abs_tol": 1e-12}
LABELS = ("cat", "dog", "fox")
ENUM_ORDER = ("low", "mid", "high")  # not alphabetical on purpose

# name -> (make_data kwargs, sensitive columns, label kind)
CASES: dict[str, tuple[dict[str, Any], list[str], str]] = {
    "strings": (dict(seed=31), ["g"], "str"),
    "weighted": (dict(seed=32, weights=True), ["g"], "str"),
    "intersectional": (dict(seed=33, second=("x", "y")), ["g", "h"], "str"),
    "nulls": (dict(seed=34, nulls=True), ["g"], "str"),
    "integers": (dict(seed=35, labels=(3, 1, 7, 2)), ["g"], "int"),
    "enum": (dict(seed=36, labels=ENUM_ORDER), ["g"], "enum"),
}


# ------------------------------------------------------------------ helpers


def _close(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return math.isclose(got, want, **TOL)


@functools.cache
def _data(case: str) -> dict[str, list[Any]]:
    return ref.make_data(**CASES[case][0])


def _frame(data: dict[str, list[Any]], kind: str = "str") -> pl.DataFrame:
    df = pl.DataFrame(data)
    if kind == "int":
        return df.with_columns(pl.col("y_true", "y_pred").cast(pl.Int64))
    if kind == "enum":
        return df.with_columns(pl.col("y_true", "y_pred").cast(pl.Enum(list(ENUM_ORDER))))
    return df.with_columns(pl.col("y_true", "y_pred").cast(pl.String))


def _case_frame(case: str) -> pl.DataFrame:
    return _frame(_data(case), CASES[case][2])


def _classes(case: str) -> list[Any]:
    data = _data(case)
    order = ENUM_ORDER if CASES[case][2] == "enum" else None
    return ref.default_classes(data["y_true"], data["y_pred"], order)


@functools.cache
def _ref_data(case: str) -> ref.Data:
    data = _data(case)
    return ref.Data(
        data["y_true"], data["y_pred"], [data[s] for s in CASES[case][1]], data.get("w")
    )


@functools.cache
def _ref_stats(case: str) -> dict[tuple[Any, ref.Key], dict[str, Any]]:
    return ref.group_stats(_ref_data(case), _classes(case))


def _kw(case: str) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "y_true": "y_true",
        "y_pred": "y_pred",
        "sensitive_features": CASES[case][1],
    }
    if "w" in _data(case):
        kw["sample_weight"] = "w"
    return kw


def _warns_if_eager(run: Any, expected: bool) -> contextlib.AbstractContextManager[Any]:
    if expected and run.kind == "eager":
        return pytest.warns(NullDataWarning)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Ignore polars_fair's warnings (the conftest `quiet` fixture enters on call)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairWarning)
        yield


def _row_key(row: dict[str, Any], sens: list[str]) -> tuple[Any, ref.Key]:
    return row["class"], tuple(row[s] for s in sens)


# --------------------------------------------------------------- statistics


@pytest.mark.parametrize("case", list(CASES))
def test_group_stats_vs_reference(run: Any, case: str) -> None:
    sens = CASES[case][1]
    with _warns_if_eager(run, case == "nulls"):
        got = run(_case_frame(case), "multiclass_group_stats", **_kw(case))
    assert got.columns == ["class", *sens, "n", "tp", "fp", "fn", "tn", "n_null"]
    want = _ref_stats(case)
    assert [_row_key(r, sens) for r in got.iter_rows(named=True)] == list(want)
    for row in got.iter_rows(named=True):
        w = want[_row_key(row, sens)]
        for col in ("n", "tp", "fp", "fn", "tn", "n_null"):
            assert _close(row[col], w[col]), (row, col, w)
    # the class key keeps the label dtype
    kind = CASES[case][2]
    expected = {"str": pl.String, "int": pl.Int64, "enum": pl.Enum(list(ENUM_ORDER))}[kind]
    assert got.schema["class"] == expected
    # every kept row has exactly one true and one predicted class
    per_group = got.group_by(sens).agg(
        pl.col("n").first(), (pl.col("tp") + pl.col("fn")).sum().alias("pos"),
        (pl.col("tp") + pl.col("fp")).sum().alias("pp"),
    )  # fmt: skip
    for row in per_group.iter_rows(named=True):
        assert _close(row["pos"], row["n"])
        assert _close(row["pp"], row["n"])
    if case == "nulls":
        assert got["n_null"].sum() > 0
    if case == "weighted":
        assert got.schema["tp"] == pl.Float64


@pytest.mark.parametrize("case", ["strings", "weighted", "integers", "enum", "nulls"])
def test_group_stats_vs_sklearn(run: Any, case: str) -> None:
    sk_metrics = pytest.importorskip("sklearn.metrics")
    data = _data(case)
    classes = _classes(case)
    with _warns_if_eager(run, case == "nulls"):
        got = run(_case_frame(case), "multiclass_group_stats", **_kw(case))
    yt = np.array(data["y_true"], dtype=object)
    yp = np.array(data["y_pred"], dtype=object)
    g = np.array(data["g"], dtype=object)
    valid = np.array([t is not None and p is not None for t, p in zip(yt, yp, strict=True)])
    w = np.array(data["w"]) if "w" in data else None
    for group in sorted(set(data["g"])):
        m = (g == group) & valid
        mcm = sk_metrics.multilabel_confusion_matrix(
            yt[m].tolist(), yp[m].tolist(), labels=classes,
            sample_weight=None if w is None else w[m],
        )  # fmt: skip
        part = got.filter(pl.col("g") == group)
        assert part["class"].to_list() == classes
        for k, row in enumerate(part.iter_rows(named=True)):
            (tn, fp), (fn, tp) = mcm[k]
            for col, value in (("tn", tn), ("fp", fp), ("fn", fn), ("tp", tp)):
                assert _close(row[col], float(value)), (group, row["class"], col)


@pytest.mark.parametrize("case", ["strings", "weighted", "intersectional", "enum"])
def test_by_group_rates(run: Any, case: str) -> None:
    sens = CASES[case][1]
    got = run(_case_frame(case), "multiclass_by_group", **_kw(case))
    for rate in ref.RATES:
        assert rate in got.columns
    want = _ref_stats(case)
    for row in got.iter_rows(named=True):
        s = want[_row_key(row, sens)]
        for rate, fn in ref.RATES.items():
            assert _close(row[rate], fn(s)), (row["class"], rate)


def test_disparities_per_class(run: Any) -> None:
    case = "strings"
    got = run(
        _case_frame(case), "multiclass_disparities", **_kw(case), reference_group="b",
        metrics=["selection_rate", "true_positive_rate"],
    )  # fmt: skip
    assert got.columns == [
        "class",
        "g",
        "metric",
        "value",
        "reference_value",
        "difference",
        "ratio",
    ]
    want = _ref_stats(case)
    for row in got.iter_rows(named=True):
        fn = ref.RATES[row["metric"]]
        v, r = fn(want[(row["class"], (row["g"],))]), fn(want[(row["class"], ("b",))])
        assert v is not None
        assert r is not None
        assert _close(row["value"], v)
        assert _close(row["reference_value"], r)
        assert _close(row["difference"], v - r)
        assert _close(row["ratio"], v / r)


# ---------------------------------------------------------------- criteria

#: difference / ratio criteria compared with every method
COMPARED = [
    "demographic_parity_difference",
    "disparate_impact_ratio",
    "equal_opportunity_difference",
    "equal_opportunity_ratio",
    "predictive_equality_difference",
    "predictive_parity_difference",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "average_odds_difference",
    "average_abs_odds_difference",
    "accuracy_difference",
    "f1_difference",
    "f1_ratio",
    "conditional_use_accuracy_difference",
    "treatment_equality_ratio",
]
#: criteria without a `method` argument (a reference group or the largest)
STATISTICS = ["cohen_d", "two_sd_rule", "four_fifths_rule"]


_ORACLE: dict[tuple[Any, ...], Any] = {}


def _oracle(case: str, df: pl.DataFrame, name: str, cls: Any, kw: dict[str, Any]) -> Any:
    """`_binary` on the eager frame, cached per case (the same for every engine)."""
    key = (case, name, cls, repr(sorted(kw.items())))
    if key not in _ORACLE:
        _ORACLE[key] = _binary(None, df, name, cls, kw)
    return _ORACLE[key]


def _binary(run: Any, df: pl.DataFrame, name: str, cls: Any, kw: dict[str, Any]) -> Any:
    """The binary namespace criterion on the one-vs-rest columns of class `cls`.

    Rows with a null true OR predicted label are dropped first: the multiclass audit
    excludes them, whereas a prediction-only binary criterion (demographic parity)
    would keep a row whose (unused) true label is null.
    """
    binary = df.drop_nulls(["y_true", "y_pred"]).with_columns(
        (pl.col("y_true") == cls).cast(pl.Int64).alias("__yt"),
        (pl.col("y_pred") == cls).cast(pl.Int64).alias("__yp"),
    )
    params = inspect.signature(getattr(pf.FairNamespace, name)).parameters
    args = {k: v for k, v in kw.items() if k in params and k not in ("y_true", "y_pred")}
    args["y_pred"] = "__yp"
    if "y_true" in params:
        args["y_true"] = "__yt"
    with _quiet():
        if run is None:
            return getattr(binary.fair, name)(**args)
        return run(binary, name, **args)


@pytest.mark.parametrize("method", ["between_groups", "to_overall", "to_reference", "named"])
@pytest.mark.parametrize("case", ["strings", "weighted", "integers", "nulls"])
def test_criteria_equal_binary_criteria(run: Any, case: str, method: str) -> None:
    df = _case_frame(case)
    kw = _kw(case)
    criteria = list(COMPARED)
    if method == "named":
        kw["reference_group"] = "a"
        criteria += STATISTICS
    else:
        kw["method"] = method
    with _quiet():
        got = run(df, "multiclass_criteria", **kw, criteria=criteria)
    assert got.columns == ["class", "criterion", "value"]
    classes = _classes(case)
    assert got["class"].to_list() == [c for c in classes for _ in criteria]
    assert got["criterion"].to_list() == criteria * len(classes)
    for row in got.iter_rows(named=True):
        want = _oracle(case, df, row["criterion"], row["class"], kw)
        assert _close(row["value"], want), (row, want)


@pytest.mark.parametrize("name", ["balanced_accuracy_difference", "balanced_accuracy_ratio"])
def test_criteria_accept_balanced_accuracy(run: Any, name: str) -> None:
    df = _case_frame("strings")
    kw = _kw("strings")
    got = run(df, "multiclass_criteria", **kw, criteria=[name])
    for row in got.iter_rows(named=True):
        assert _close(row["value"], _binary(run, df, name, row["class"], kw))


def test_criteria_statistics_default_reference(run: Any) -> None:
    df = _case_frame("weighted")
    kw = _kw("weighted")
    got = run(df, "multiclass_criteria", **kw, criteria=STATISTICS)
    for row in got.iter_rows(named=True):
        assert _close(row["value"], _binary(run, df, row["criterion"], row["class"], kw))


def test_criteria_default_set_and_reference_vs_reference(run: Any) -> None:
    case = "strings"
    got = run(_case_frame(case), "multiclass_criteria", **_kw(case))
    defaults = [
        "demographic_parity_difference",
        "equal_opportunity_difference",
        "predictive_equality_difference",
        "predictive_parity_difference",
        "equalized_odds_difference",
    ]
    assert got["criterion"].to_list() == defaults * len(LABELS)
    stats = _ref_stats(case)
    for row in got.iter_rows(named=True):
        want = ref.class_criterion(stats, row["class"], row["criterion"])
        assert _close(row["value"], want), row
    # to a reference group, from the definitions
    named = run(
        _case_frame(case), "multiclass_criteria", **_kw(case), reference_group="c",
        criteria=list(ref.CRITERIA),
    )  # fmt: skip
    for row in named.iter_rows(named=True):
        want = ref.class_criterion(stats, row["class"], row["criterion"], "c")
        assert _close(row["value"], want), row


def test_criteria_intersectional_reference(run: Any) -> None:
    case = "intersectional"
    df = _case_frame(case)
    kw = _kw(case) | {"reference_group": ("b", "y")}
    got = run(df, "multiclass_criteria", **kw, criteria=["equalized_odds_ratio", "cohen_d"])
    for row in got.iter_rows(named=True):
        assert _close(row["value"], _binary(run, df, row["criterion"], row["class"], kw))
    with pytest.raises(ReferenceGroupError):
        run(df, "multiclass_criteria", **_kw(case), reference_group=("zz", "y"))


# ------------------------------------------------------------------ summary


@pytest.mark.parametrize("reference", [None, "a", "largest"])
@pytest.mark.parametrize("case", ["strings", "weighted", "integers", "enum"])
def test_summary_vs_reference(run: Any, case: str, reference: Any) -> None:
    kw = _kw(case) | ({} if reference is None else {"reference_group": reference})
    names = list(ref.CRITERIA)
    got = run(_case_frame(case), "multiclass_summary", **kw, criteria=names)
    assert got.columns == ["criterion", "worst_class", "value", "n_classes"]
    assert got["criterion"].to_list() == names
    stats = _ref_stats(case)
    classes = _classes(case)
    for row in got.iter_rows(named=True):
        name = row["criterion"]
        per_class = {c: ref.class_criterion(stats, c, name, reference) for c in classes}
        worst, value, n = ref.worst_class(per_class, name)
        assert row["worst_class"] == worst, (name, row, per_class)
        assert _close(row["value"], value), (name, row, value)
        assert row["n_classes"] == n


def test_summary_ratio_zero_is_worst_and_undefined_classes_left_out(run: Any) -> None:
    # class "z" is never predicted in group b -> selection-rate ratio 0 (infinitely far);
    # class "q" is only in `classes` -> every rate of it is 0 or undefined
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 6,
            "y_true": ["x", "y", "z", "x", "y", "z", "x", "y", "z", "x", "y", "z"],
            "y_pred": ["x", "y", "z", "y", "y", "z", "x", "x", "y", "x", "y", "y"],
        }
    )
    classes = ["q", "x", "y", "z"]
    data = ref.Data(df["y_true"].to_list(), df["y_pred"].to_list(), [df["g"].to_list()])
    stats = ref.group_stats(data, classes)
    names = [
        "demographic_parity_ratio",
        "demographic_parity_difference",
        "equal_opportunity_difference",
    ]
    got = run(
        df, "multiclass_summary", y_true="y_true", y_pred="y_pred", sensitive_features="g",
        criteria=names, classes=classes,
    )  # fmt: skip
    rows = {r["criterion"]: r for r in got.iter_rows(named=True)}
    for name in names:
        per_class = {c: ref.class_criterion(stats, c, name) for c in classes}
        worst, value, n = ref.worst_class(per_class, name)
        assert (rows[name]["worst_class"], rows[name]["n_classes"]) == (worst, n)
        assert _close(rows[name]["value"], value)
    assert rows["demographic_parity_ratio"]["worst_class"] == "z"
    assert rows["demographic_parity_ratio"]["value"] == 0.0
    assert rows["demographic_parity_ratio"]["n_classes"] == 3  # q: 0 / 0 undefined
    assert rows["demographic_parity_difference"]["n_classes"] == 4  # q: 0 - 0 defined
    assert rows["equal_opportunity_difference"]["n_classes"] == 3


def test_summary_ties_go_to_first_class(run: Any) -> None:
    # the docstring example: cat and fox both have a DP difference of 0.25
    df = pl.DataFrame(
        {
            "group": ["a"] * 4 + ["b"] * 4,
            "y": ["cat", "dog", "fox", "dog", "cat", "dog", "fox", "fox"],
            "p": ["cat", "dog", "fox", "cat", "fox", "dog", "fox", "cat"],
        }
    )
    got = run(
        df, "multiclass_summary", y_true="y", y_pred="p", sensitive_features="group",
        criteria=["demographic_parity_difference"],
    )  # fmt: skip
    data = ref.Data(df["y"].to_list(), df["p"].to_list(), [df["group"].to_list()])
    stats = ref.group_stats(data, ["cat", "dog", "fox"])
    per_class = {
        c: ref.class_criterion(stats, c, "demographic_parity_difference")
        for c in ["cat", "dog", "fox"]
    }
    assert per_class["cat"] == per_class["fox"]
    worst, value, n = ref.worst_class(per_class, "demographic_parity_difference")
    assert got.row(0) == ("demographic_parity_difference", worst, value, n)
    assert worst == "cat"


# ------------------------------------------------------------- label kinds


def test_enum_classes_follow_category_order(run: Any) -> None:
    got = run(_case_frame("enum"), "multiclass_group_stats", **_kw("enum"))
    assert got["class"].cast(pl.String).unique(maintain_order=True).to_list() == list(ENUM_ORDER)


def test_mixed_integer_widths_are_one_kind(run: Any) -> None:
    data = _data("integers")
    df = _frame(data, "int").with_columns(
        pl.col("y_true").cast(pl.Int32), pl.col("y_pred").cast(pl.UInt16)
    )
    got = run(df, "multiclass_group_stats", **_kw("integers"))
    want = _ref_stats("integers")
    assert got.height == len(want)
    for row in got.iter_rows(named=True):
        assert row["tp"] == want[_row_key(row, ["g"])]["tp"]


@pytest.mark.parametrize("case", ["strings", "integers", "enum"])
def test_classes_with_an_extra_class(run: Any, case: str) -> None:
    kind = CASES[case][2]
    extra = {"str": "zebra", "int": 99, "enum": None}[kind]
    if kind == "enum":
        # an enum category absent from the data
        df = _frame(_data(case), "str").with_columns(
            pl.col("y_true", "y_pred").cast(pl.Enum([*ENUM_ORDER, "extra"]))
        )
        extra = "extra"
    else:
        df = _case_frame(case)
    classes = [*_classes(case), extra]
    got = run(df, "multiclass_group_stats", **_kw(case), classes=classes)
    want = ref.group_stats(_ref_data(case), classes)
    assert [_row_key(r, ["g"]) for r in got.iter_rows(named=True)] == list(want)
    for row in got.iter_rows(named=True):
        w = want[_row_key(row, ["g"])]
        for col in ("n", "tp", "fp", "fn", "tn"):
            assert row[col] == w[col]
    absent = got.filter(pl.col("class") == extra)
    assert absent.height == len(set(_data(case)["g"]))
    assert absent["tp"].to_list() == absent["fp"].to_list() == absent["fn"].to_list()
    assert set(absent["tp"].to_list()) == {0}
    assert absent["tn"].to_list() == absent["n"].to_list()


def test_classes_restricting_drops_no_label_silently(run: Any) -> None:
    df = _case_frame("strings")
    with pytest.raises(LabelError):
        run(df, "multiclass_group_stats", **_kw("strings"), classes=["cat", "dog"])
    with pytest.raises(LabelError):
        run(df, "multiclass_criteria", **_kw("strings"), classes=["cat", "fox"])
    # a label only in y_pred is also checked
    only_pred = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.lit("emu"))
        .otherwise(pl.col("y_pred"))
        .alias("y_pred")
    )
    with pytest.raises(LabelError):
        run(only_pred, "multiclass_by_group", **_kw("strings"), classes=list(LABELS))


def test_classes_order_and_subset_of_default(run: Any) -> None:
    # a permutation of the data's classes: every class still reported, in sorted order
    got = run(_case_frame("strings"), "multiclass_group_stats", **_kw("strings"),
              classes=["fox", "cat", "dog"])  # fmt: skip
    assert got["class"].unique(maintain_order=True).to_list() == sorted(LABELS)


def test_duplicate_classes_are_rejected(run: Any) -> None:
    # counting a class twice would double its counts: the list must be distinct
    with pytest.raises(InvalidParameterError, match="distinct"):
        run(
            _case_frame("strings"), "multiclass_group_stats", **_kw("strings"),
            classes=["cat", "cat", "dog", "fox"],
        )  # fmt: skip


def test_enum_class_outside_categories_is_rejected(run: Any) -> None:
    # an Enum cannot hold "extra": the request names a class that can never occur
    with pytest.raises(InvalidParameterError, match="extra"):
        run(_case_frame("enum"), "multiclass_group_stats", **_kw("enum"),
            classes=[*ENUM_ORDER, "extra"])  # fmt: skip


def test_integer_labels_reject_non_integer_classes(run: Any) -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 2], "y_pred": [2, 2]})
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    with pytest.raises(InvalidParameterError, match=r"3\.5"):
        run(df, "multiclass_group_stats", **kw, classes=[1, 2, 3.5])


def test_label_kind_mismatch(run: Any) -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 2], "y_pred": ["1", "2"], "f": [1.0, 2.0]})
    with pytest.raises(InvalidParameterError):
        run(df, "multiclass_group_stats", y_true="y_true", y_pred="y_pred", sensitive_features="g")
    with pytest.raises(InvalidParameterError):
        run(df, "multiclass_criteria", y_true="y_true", y_pred="y_pred", sensitive_features="g")
    with pytest.raises(InvalidParameterError):
        run(df, "multiclass_group_stats", y_true="f", y_pred="f", sensitive_features="g")


def test_sensitive_or_by_column_named_class(run: Any) -> None:
    df = pl.DataFrame(
        {"class": ["a", "b"], "k": [1, 1], "y_true": ["x", "y"], "y_pred": ["x", "x"]}
    )
    kw = {"y_true": "y_true", "y_pred": "y_pred"}
    with pytest.raises(InvalidParameterError):
        run(df, "multiclass_group_stats", **kw, sensitive_features="class")
    with pytest.raises(InvalidParameterError):
        run(df, "multiclass_summary", **kw, sensitive_features="k", by="class")


# ---------------------------------------------------------------- by / nulls


def test_by_batches_report_every_class(run: Any) -> None:
    data = ref.make_data(41, rows=500, batches=("m1", "m2"), weights=True)
    # batch m2 never sees "fox": it still gets (all-zero) fox rows
    for i, b in enumerate(data["batch"]):
        if b == "m2":
            for col in ("y_true", "y_pred"):
                if data[col][i] == "fox":
                    data[col][i] = "cat"
    df = _frame(data)
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g",
          "sample_weight": "w", "by": "batch"}  # fmt: skip
    got = run(df, "multiclass_group_stats", **kw)
    assert got.columns[:3] == ["batch", "class", "g"]
    classes = ref.default_classes(data["y_true"], data["y_pred"])
    assert classes == list(LABELS)
    for b in ("m1", "m2"):
        sub = ref.subset(data, "batch", b)
        want = ref.group_stats(
            ref.Data(sub["y_true"], sub["y_pred"], [sub["g"]], sub["w"]), classes
        )
        part = got.filter(pl.col("batch") == b)
        assert [_row_key(r, ["g"]) for r in part.iter_rows(named=True)] == list(want)
        for row in part.iter_rows(named=True):
            w = want[_row_key(row, ["g"])]
            for col in ("n", "tp", "fp", "fn", "tn"):
                assert _close(row[col], w[col])
    fox_m2 = got.filter((pl.col("batch") == "m2") & (pl.col("class") == "fox"))
    assert fox_m2["tp"].sum() == fox_m2["fp"].sum() == fox_m2["fn"].sum() == 0
    # per-batch criteria equal the binary criterion with the same `by`
    with _quiet():
        crit = run(df, "multiclass_criteria", **kw, criteria=["equalized_odds_difference"])
    assert crit.columns == ["batch", "class", "criterion", "value"]
    for row in crit.iter_rows(named=True):
        binary = _binary(run, df, "equalized_odds_difference", row["class"], kw)
        want = binary.filter(pl.col("batch") == row["batch"])["equalized_odds_difference"].item()
        assert _close(row["value"], want), row
    summary = run(df, "multiclass_summary", **kw, criteria=["demographic_parity_difference"])
    assert summary.columns == ["batch", "criterion", "worst_class", "value", "n_classes"]
    assert summary["batch"].to_list() == ["m1", "m2"]


def test_null_labels_and_weights(run: Any) -> None:
    df = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "b"],
            "y_true": ["x", None, "y", "x", "y", "z"],
            "y_pred": ["x", "y", "y", None, "x", "z"],
            "w": [1.0, 1.0, None, 2.0, 0.5, 1.5],
        }
    )
    kw = {"y_true": "y_true", "y_pred": "y_pred", "sensitive_features": "g"}
    data = ref.Data(df["y_true"].to_list(), df["y_pred"].to_list(), [df["g"].to_list()],
                    df["w"].to_list())  # fmt: skip
    classes = ref.default_classes(df["y_true"].to_list(), df["y_pred"].to_list())
    with _warns_if_eager(run, True):
        got = run(df, "multiclass_group_stats", **kw, sample_weight="w")
    want = ref.group_stats(data, classes)
    assert [_row_key(r, ["g"]) for r in got.iter_rows(named=True)] == list(want)
    for row in got.iter_rows(named=True):
        w = want[_row_key(row, ["g"])]
        for col in ("n", "tp", "fp", "fn", "tn", "n_null"):
            assert _close(row[col], w[col]), (row, col)
    assert got.filter(pl.col("class") == "x")["n_null"].to_list() == [2, 1]
    unweighted = ref.group_stats(ref.Data(df["y_true"].to_list(), df["y_pred"].to_list(),
                                          [df["g"].to_list()]), classes)  # fmt: skip
    with _warns_if_eager(run, True):
        plain = run(df, "multiclass_group_stats", **kw)
    for row in plain.iter_rows(named=True):
        assert row["n_null"] == unweighted[_row_key(row, ["g"])]["n_null"]
        assert row["n"] == unweighted[_row_key(row, ["g"])]["n"]


def test_class_seen_only_on_an_excluded_row_is_reported(run: Any) -> None:
    # "w" appears only where y_pred is null: still a class (every non-null value)
    df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": ["u", "w", "u"], "y_pred": ["u", None, "v"]})
    classes = ref.default_classes(df["y_true"].to_list(), df["y_pred"].to_list())
    assert classes == ["u", "v", "w"]
    with _warns_if_eager(run, True):
        got = run(df, "multiclass_group_stats", y_true="y_true", y_pred="y_pred",
                  sensitive_features="g")  # fmt: skip
    assert got["class"].unique(maintain_order=True).to_list() == classes
    want = ref.group_stats(ref.Data(df["y_true"].to_list(), df["y_pred"].to_list(),
                                    [df["g"].to_list()]), classes)  # fmt: skip
    for row in got.iter_rows(named=True):
        w = want[_row_key(row, ["g"])]
        assert [row[c] for c in ("n", "tp", "fp", "fn", "tn", "n_null")] == [
            w[c] for c in ("n", "tp", "fp", "fn", "tn", "n_null")
        ]


# ------------------------------------------------------------- fairlearn


@pytest.mark.oracle
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_rates_match_fairlearn_metric_frame(run: Any, weighted: bool) -> None:
    fl = pytest.importorskip("fairlearn.metrics")
    pytest.importorskip("pandas")
    case = "weighted" if weighted else "strings"
    data = _data(case)
    got = run(_case_frame(case), "multiclass_by_group", **_kw(case))
    yt = np.array(data["y_true"], dtype=object)
    yp = np.array(data["y_pred"], dtype=object)
    metrics = {"selection_rate": fl.selection_rate, "true_positive_rate": fl.true_positive_rate}
    for c in _classes(case):
        params = None
        if weighted:
            w = np.array(data["w"])
            params = {k: {"sample_weight": w} for k in metrics}
        frame = fl.MetricFrame(
            metrics=metrics, y_true=(yt == c).astype(int), y_pred=(yp == c).astype(int),
            sensitive_features=np.array(data["g"], dtype=object), sample_params=params,
        )  # fmt: skip
        by_group = frame.by_group
        part = got.filter(pl.col("class") == c)
        for row in part.iter_rows(named=True):
            for m in metrics:
                assert math.isclose(row[m], float(by_group.loc[row["g"], m]), rel_tol=1e-12), (
                    c, row["g"], m,
                )  # fmt: skip
