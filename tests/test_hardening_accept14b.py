"""Defects found by the third bad-input campaign (accept14b), each failing before its fix.

* A group whose labels hold one class has no ROC curve: ``roc_auc`` reported null and
  ``abroca`` left the group out (with two groups: ``None``) without a word. The eager
  path now warns (:class:`~polars_fair.UndefinedMetricWarning`) naming the groups, as it
  does for every other undefined rate; the values are unchanged on every engine.
* ``--output`` that the system refuses (a name too long, a read-only place such as
  ``/proc`` or ``/sys``, a full disk) ended in a bare ``[Errno 13] Permission denied``
  with no option and no hint, and only after the whole audit ran. It is now refused
  before any data is read (or, for a failure only the write reveals, when writing) with
  one line naming ``--output``, the path and the reason, and a hint; exit status 2.
* The expression API (``pf.selection_rate(...)`` and the others) took ``pos_label=None``
  or a dict without a word (a null or a wrong rate), and a list, NaN or an expression
  with several outputs to a raw Polars error. Each is now refused, when the expression
  is built, with an :class:`~polars_fair.exceptions.InvalidParameterError` and a hint.
* ``--pos-label-pred yes`` on an integer prediction was blamed on the file ("cannot read
  'data.csv': cannot compare string with numeric type"); ``--criteria ''`` (or ``,``)
  ran the default criteria without a word. Both are now usage errors naming the option.
* On the command line a key column named like an output (``n``) or with the internal
  prefix was told to ``.rename({'n': 'n_'})``: Python. The hint is now a command-line
  fix (``--sensitive-feature "n AS n_"``, or renaming the column in the file).
* A list column of one member per row was told to "pad or drop the rows with missing
  members" (lengths from 1 to 1); it now says an ensemble needs at least two.
* The generalized entropy index came out ``inf`` (alpha <= 0 and a false negative) or
  ``NaN`` (a huge alpha overflows) without a word; the eager path now warns
  (:class:`~polars_fair.exceptions.NumericalWarning`) saying why, the value unchanged.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair import expressions as pf_expr
from polars_fair.exceptions import (
    InvalidParameterError,
    NumericalWarning,
    UndefinedMetricWarning,
)

KINDS = ("eager", "lazy", "streaming")


def _frame() -> pl.DataFrame:
    """Group 'a' with both classes, group 'x' with positives only."""
    rng = np.random.default_rng(7)
    n = 80
    g = np.where(np.arange(n) % 2 == 0, "a", "x")
    y = np.where(g == "x", 1, (np.arange(n) // 2) % 2)
    s = np.round(np.clip(rng.uniform(0, 1, n) * 0.6 + y * 0.3, 0, 1), 2)
    return pl.DataFrame({"g": g, "y": y, "s": s})


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    """AUC from its definition: P(score of a positive > score of a negative), ties 1/2."""
    pos, neg = s[y == 1], s[y == 0]
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def _run(df: pl.DataFrame, kind: str, name: str, **kw: Any) -> tuple[Any, list[str]]:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = getattr(target.fair, name)(**kw)
        if isinstance(out, pl.LazyFrame):
            out = out.collect(engine="in-memory" if kind == "lazy" else "streaming")
    found = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    return out, found


@pytest.mark.parametrize("kind", KINDS)
def test_roc_auc_of_a_one_class_group_is_null_and_said(kind: str) -> None:
    df = _frame()
    before = df.clone()
    out, found = _run(df, kind, "roc_auc", y_true="y", y_prob="s", sensitive_features="g")
    a = df.filter(pl.col("g") == "a")
    expected = _auc(a["y"].to_numpy(), a["s"].to_numpy())
    assert out.filter(pl.col("g") == "a")["roc_auc"].item() == pytest.approx(expected)
    assert out.filter(pl.col("g") == "x")["roc_auc"].item() is None
    if kind == "eager":  # the eager path warns, as for every undefined rate
        assert len(found) == 1
        for fragment in ("['x']", "one class", "roc_auc is null"):
            assert fragment in found[0]
    assert df.equals(before)


@pytest.mark.parametrize("kind", KINDS)
def test_abroca_leaving_a_one_class_group_out_is_said(kind: str) -> None:
    df = _frame()
    before = df.clone()
    out, found = _run(df, kind, "abroca", y_true="y", y_prob="s", sensitive_features="g")
    value = out if kind == "eager" else out.item()
    assert value is None  # one curve left: nothing to compare
    if kind == "eager":
        assert len(found) == 1
        assert "['x']" in found[0]
        assert "left out of abroca" in found[0]
    assert df.equals(before)


def test_two_class_groups_give_no_one_class_warning() -> None:
    df = _frame().with_columns(pl.col("y").shuffle(seed=1))
    out, found = _run(df, "eager", "roc_auc", y_true="y", y_prob="s", sensitive_features="g")
    assert out["roc_auc"].null_count() == 0
    assert found == []


# ---- the command line: --output the system refuses ----------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "polars_fair", *args],
        capture_output=True, text=True, check=False, cwd=Path(__file__).parent.parent,
    )  # fmt: skip


def _csv(tmp: Path) -> Path:
    path = tmp / "data.csv"
    pl.DataFrame({"g": ["a", "b"] * 20, "y": [0, 1, 1, 0] * 10, "p": [1, 0] * 20}).write_csv(path)
    return path


def _check_one_line(proc: subprocess.CompletedProcess[str], output: str, reason: str) -> None:
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"polars-fair: error: --output {output!r} cannot be written: ")
    assert reason in lines[0]
    assert lines[1].startswith("Hint: ")


@pytest.mark.parametrize("command", ["audit", "profile"])
def test_unwritable_output_is_refused_before_reading(command: str, tmp_path: Path) -> None:
    output = str(tmp_path / ("x" * 300 + ".html"))  # longer than any file system allows
    missing = str(tmp_path / "no-such-data.csv")  # were the data read first, this would fail
    proc = _cli(
        command, missing, "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g",
        "--output", output, "--no-progress",
    )  # fmt: skip
    _check_one_line(proc, output, "too long")
    assert not Path(missing).exists()


def test_unwritable_compare_output_is_refused(tmp_path: Path) -> None:
    output = str(tmp_path / ("x" * 300 + ".md"))
    missing = str(tmp_path / "p.parquet")
    proc = _cli("compare", missing, missing, "--output", output)
    _check_one_line(proc, output, "too long")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_failing_write_is_one_line(tmp_path: Path) -> None:
    # /dev/full opens but refuses every write: only the write itself can fail
    proc = _cli(
        "audit", str(_csv(tmp_path)), "--y-true", "y", "--y-pred", "p",
        "--sensitive-features", "g", "--output", "/dev/full", "--no-progress",
    )  # fmt: skip
    _check_one_line(proc, "/dev/full", "No space left on device")


def test_existing_output_is_kept_until_written(tmp_path: Path) -> None:
    # the check opens the file for appending: an existing file is neither truncated nor
    # removed when the audit then fails, and a file it created is removed again
    kept = tmp_path / "kept.html"
    kept.write_text("old", encoding="utf-8")
    new = tmp_path / "new.html"
    for out in (kept, new):
        proc = _cli(
            "audit", str(tmp_path / "missing.csv"), "--y-true", "y", "--y-pred", "p",
            "--sensitive-features", "g", "--output", str(out), "--no-progress",
        )  # fmt: skip
        assert proc.returncode == 2
    assert kept.read_text(encoding="utf-8") == "old"
    assert not new.exists()


# ---- the expression API: what can be refused when the expression is built -------------


def _select(kind: str, expr_factory: Any) -> Any:
    df = pl.DataFrame({"g": ["a", "b"] * 10, "y": [0, 1, 1, 0] * 5, "p": [1, 0] * 10})
    target = df if kind == "eager" else df.lazy()
    out = target.group_by("g").agg(expr_factory())
    if isinstance(out, pl.LazyFrame):
        out = out.collect(engine="in-memory" if kind == "lazy" else "streaming")
    return out


# (id, factory, fragments): before, None and a dict gave a silent null or a wrong rate,
# a list a raw SchemaError, NaN and several outputs raw InvalidOperationError/DuplicateError
EXPRESSION_CASES: list[tuple[str, Any, tuple[str, ...]]] = [
    ("pos-label-none", lambda: pf_expr.true_positive_rate("y", "p", pos_label=None),
     ("`pos_label` must be one label value", "None", "Hint: e.g. `pos_label=1`")),
    ("pos-label-dict", lambda: pf_expr.selection_rate("p", pos_label={"a": 1}),
     ("`pos_label` must be one label value", "dict {'a': 1}", "Hint:")),
    ("pos-label-list", lambda: pf_expr.base_rate("y", pos_label=[1]),
     ("`pos_label` must be one label value", "list [1]", "Hint:")),
    ("pos-label-nan", lambda: pf_expr.f1("y", "p", pos_label=float("nan")),
     ("`pos_label` is NaN", "Hint: pass the positive label value")),
    ("y-true-several", lambda: pf_expr.accuracy(pl.col("y", "p"), "p"),
     ("`y_true` must be one column", "several outputs", "Hint:")),
    ("y-pred-all", lambda: pf_expr.selection_rate(pl.all()),
     ("`y_pred` must be one column", "several outputs", "Hint:")),
    ("weight-regex", lambda: pf_expr.selection_rate("p", sample_weight=pl.col("^[yp]$")),
     ("`sample_weight` must be one column", "several outputs", "Hint:")),
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("factory", "fragments"), [pytest.param(*c[1:], id=c[0]) for c in EXPRESSION_CASES]
)
def test_expression_bad_parameters_are_named(
    kind: str, factory: Any, fragments: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidParameterError) as info:
        _select(kind, factory)
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


@pytest.mark.parametrize("kind", KINDS)
def test_expression_numpy_and_bool_labels_still_work(kind: str) -> None:
    # np.int64(1) and 1.0 are the label 1; the rate is checked from its definition
    out = _select(kind, lambda: pf_expr.selection_rate("p", pos_label=np.int64(1))).sort("g")
    df = pl.DataFrame({"g": ["a", "b"] * 10, "p": [1, 0] * 10})
    expected = [float(np.mean(df.filter(pl.col("g") == g)["p"].to_numpy() == 1)) for g in "ab"]
    assert out["selection_rate"].to_list() == expected
    out = _select(kind, lambda: pf_expr.base_rate("y", pos_label=1.0)).sort("g")
    assert out["base_rate"].to_list() == [0.5, 0.5]


# ---- the command line: options that were accepted or blamed on the file --------------


def _usage_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("polars-fair: error: ")
    assert lines[1].startswith("Hint: ")
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)


def test_pos_label_pred_of_the_wrong_type_names_the_option(tmp_path: Path) -> None:
    # was: "cannot read 'data.csv': cannot compare string with numeric type (i64)" and a
    # hint to check the file, which is fine
    proc = _cli(
        "audit", str(_csv(tmp_path)), "--y-true", "y", "--y-pred", "p",
        "--sensitive-features", "g", "--pos-label-pred", "yes", "--no-progress",
    )  # fmt: skip
    _usage_error(
        proc, "--pos-label-pred 'yes'", "--y-pred 'p' of dtype Int64", "--pos-label-pred 1"
    )
    assert "cannot read" not in proc.stderr
    rule = _cli(
        "audit", str(_csv(tmp_path)), "--y-true", "y", "--y-pred", "p >= 1",
        "--sensitive-features", "g", "--pos-label-pred", "maybe", "--no-progress",
    )  # fmt: skip
    _usage_error(rule, "--pos-label-pred 'maybe'", "of dtype Boolean", "--pos-label-pred true")


def test_pos_label_pred_of_the_right_type_still_works(tmp_path: Path) -> None:
    # --pos-label-pred 0 makes p == 0 the prediction: the selection rate of each group is
    # then its share of p == 0, computed here from the file
    path = _csv(tmp_path)
    proc = _cli(
        "audit", str(path), "--y-true", "y", "--y-pred", "p", "--sensitive-features", "g",
        "--pos-label-pred", "0", "--format", "json", "--no-progress",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    import json

    rows = {r["g"]: r for r in json.loads(proc.stdout)["tables"]["by_group"]}
    df = pl.read_csv(path)
    for g in ("a", "b"):
        expected = float(np.mean(df.filter(pl.col("g") == g)["p"].to_numpy() == 0))
        assert rows[g]["selection_rate"] == pytest.approx(expected)


@pytest.mark.parametrize("value", ["", " , "])
@pytest.mark.parametrize("command", ["audit", "compare"])
def test_criteria_naming_nothing_is_refused(command: str, value: str, tmp_path: Path) -> None:
    # was: the default criteria, without a word (as --slices '' already is, an error)
    data = str(_csv(tmp_path))
    args = ["--y-true", "y", "--y-pred", "p", "--sensitive-features", "g", "--no-progress"]
    sides = [data] if command == "audit" else [data, data]
    proc = _cli(command, *sides, *args, "--criteria", value)
    _usage_error(proc, "--criteria names no criterion", "--criteria disparate_impact_ratio")


# ---- inequality indices that are not finite -----------------------------------------


def _benefit_frame() -> pl.DataFrame:
    """Two groups with false negatives (benefit 0) and false positives (benefit 2)."""
    return pl.DataFrame({"g": ["a", "b"] * 10, "y": [1, 1, 0, 0, 1] * 4, "p": [0, 1, 1, 0, 1] * 4})


def _ge_reference(y: np.ndarray, p: np.ndarray, alpha: float) -> float:
    """GE(alpha) of b = p - y + 1 from its definition (Speicher et al., 2018)."""
    x = (p - y + 1) / np.mean(p - y + 1)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if alpha == 0:
            return float(-np.mean(np.log(x)))
        return float(np.mean(x**alpha - 1) / (alpha * (alpha - 1)))


def _numerical(df: pl.DataFrame, kind: str, **kw: Any) -> tuple[float, list[str]]:
    target = df if kind == "eager" else df.lazy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = target.fair.generalized_entropy_index(y_true="y", y_pred="p", **kw)
        if isinstance(out, pl.LazyFrame):
            out = out.collect(engine="in-memory" if kind == "lazy" else "streaming").item()
    found = [str(w.message) for w in caught if issubclass(w.category, NumericalWarning)]
    return out, found


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("alpha", [0.0, -1.0, -0.5])
def test_infinite_entropy_index_is_said(kind: str, alpha: float) -> None:
    # was: inf without a word (alpha <= 0 and one false negative)
    df = _benefit_frame()
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    expected = _ge_reference(y, p, alpha)
    assert expected == float("inf")
    value, found = _numerical(df, kind, alpha=alpha)
    assert value == expected
    if kind == "eager":
        assert len(found) == 1
        assert f"alpha={alpha!r} is not finite" in found[0]
        assert "false negative" in found[0]
    assert df.equals(_benefit_frame())


@pytest.mark.parametrize("kind", KINDS)
def test_overflowing_entropy_index_is_said(kind: str) -> None:
    # was: NaN without a word ((2 / mu)^1e308 overflows, inf / inf)
    value, found = _numerical(_benefit_frame(), kind, alpha=1e308)
    assert math.isnan(value)
    if kind == "eager":
        assert len(found) == 1
        assert "overflows float64" in found[0]


@pytest.mark.parametrize("kind", KINDS)
def test_finite_entropy_index_gives_no_warning(kind: str) -> None:
    df = _benefit_frame()
    expected = _ge_reference(df["y"].to_numpy(), df["p"].to_numpy(), 2.0)
    value, found = _numerical(df, kind, alpha=2.0)
    assert value == pytest.approx(expected)
    assert found == []


# ---- an ensemble of one member per row ---------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_one_member_list_says_an_ensemble_needs_two(kind: str) -> None:
    # was: "found lengths from 1 to 1 ... Hint: pad or drop the rows with missing members",
    # though no row misses a member
    df = pl.DataFrame({"g": ["a", "b"] * 10, "m": [[0.2], [0.7]] * 10})
    with pytest.raises(pf.ValueRangeError) as info:
        _run(df, kind, "ensemble_by_group", y_prob="m", sensitive_features="g")
    message = str(info.value)
    assert "'m' holds 1 member(s) on every row; an ensemble needs at least two" in message
    assert "Hint: give every member's probability" in message
    assert "missing members" not in message


# ---- a key column named like an output: the command line's own fix --------------------


def _clash_csv(tmp: Path) -> Path:
    path = tmp / "clash.csv"
    pl.DataFrame(
        {"n": ["a", "b"] * 20, "__pf_g": ["u", "v"] * 20, "y": [0, 1, 1, 0] * 10, "p": [1, 0] * 20}
    ).write_csv(path)
    return path


@pytest.mark.parametrize("command", ["audit", "profile"])
def test_clashing_key_hint_is_a_command_line_fix(command: str, tmp_path: Path) -> None:
    # was: "Hint: rename it first, e.g. `.rename({'n': 'n_'})`": Python, on the command line
    data = str(_clash_csv(tmp_path))
    out = ["-o", str(tmp_path / "p.parquet")] if command == "profile" else []
    base = [command, data, *out, "--y-true", "y", "--y-pred", "p", "--no-progress"]
    proc = _cli(*base, "--sensitive-features", "n")
    _usage_error(
        proc, "column 'n'", 'Hint: give it another name, e.g. --sensitive-feature "n AS n_"'
    )
    assert ".rename(" not in proc.stderr
    fixed = _cli(*base, "--sensitive-feature", "n AS n_")  # the hint's fix works
    assert fixed.returncode == 0, fixed.stderr
    # no SQL name can drop the internal prefix
    proc = _cli(*base, "--sensitive-features", "__pf_g")
    _usage_error(proc, "Hint: rename the column in the file")
    assert ".rename(" not in proc.stderr
    # `--by` takes SQL too (tests/test_cli_by_sql.py): the same fix, with its own option
    by = ["--sensitive-features", "p"]
    proc = _cli(*base, *by, "--by", "n")
    _usage_error(proc, "column 'n'", 'Hint: give it another name, e.g. --by "n AS n_"')
    assert ".rename(" not in proc.stderr
    fixed = _cli(*base, *by, "--by", "n AS n_")
    assert fixed.returncode == 0, fixed.stderr
