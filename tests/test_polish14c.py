"""Bad-input messages fixed in the polish14c pass (issue 14's standard)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from polars_fair.io.cli import main


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_cli_warning_hint_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write(tmp_path / "one.csv", "g,y,p\na,1,1\na,0,1\na,1,0\n")
    args = [str(data), "--sensitive-features", "g", "--y-true", "y", "--y-pred", "p"]
    assert main(["audit", *args, "--slices", "g"]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [i for i, line in enumerate(err) if line.startswith("polars-fair: warning:")]
    assert len(warned) == 2  # the single group, the single-valued slice candidate
    for i in warned:
        assert "Hint:" not in err[i]
        assert err[i + 1].startswith("Hint: ")


def _profiles(tmp_path: Path) -> dict[str, Path]:
    data = _write(
        tmp_path / "h.csv",
        "g,h,y,p,w\na,x,1,1,1\na,x,0,1,2\nb,z,1,0,1\nb,z,0,0,3\na,z,1,0,1\nb,x,1,1,2\n",
    )
    cols = ["--y-true", "y", "--y-pred", "p"]
    made = {
        "weighted": ["--sensitive-features", "g", "--sample-weight", "w"],
        "plain": ["--sensitive-features", "g"],
        "by_h": ["--sensitive-features", "h"],
    }
    out = {}
    for name, extra in made.items():
        out[name] = tmp_path / f"{name}.parquet"
        assert main(["profile", str(data), *cols, *extra, "-o", str(out[name])]) == 0
    out["data"] = data
    return out


def test_compare_weighting_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _profiles(tmp_path)
    capsys.readouterr()
    assert main(["compare", str(files["weighted"]), str(files["plain"])]) == 2
    err = capsys.readouterr().err
    assert "`weighted`" not in err
    assert "`sample_weight`: weighted by 'w' (baseline) against unweighted (candidate)" in err
    assert "--sample-weight" in err.splitlines()[1]
    assert "Traceback" not in err


@pytest.mark.parametrize("reference", [[], ["--reference-group", "a"]])
def test_compare_sensitive_features_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: list[str]
) -> None:
    files = _profiles(tmp_path)
    data = [str(files["data"]), "--sensitive-features", "h", "--y-true", "y", "--y-pred", "p"]
    for argv in ([str(files["plain"]), str(files["by_h"])], [str(files["plain"]), *data]):
        capsys.readouterr()
        assert main(["compare", *argv, *reference]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err[0].startswith("polars-fair: error: ")
        assert "(--sensitive-features): ['g'] (baseline) against ['h'] (candidate)" in err[0]
        assert "reference" not in err[0]
        assert "give both sides the same --sensitive-features" in err[1]


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_one_merged_column_hints_the_separator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sep: str
) -> None:
    data = _write(tmp_path / "semi.csv", f"g{sep}y{sep}p\na{sep}1{sep}1\nb{sep}0{sep}1\n")
    args = [str(data), "--sensitive-features", "g", "--y-true", "y", "--y-pred", "p"]
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "polars-fair: error: --sensitive-features column 'g' not found"
    assert f"the file looks separated by {sep!r}" in err[1]
    assert f"separator={sep!r}" in err[1]
    assert len(err) == 2


@pytest.mark.parametrize("command", ["audit", "profile"])
@pytest.mark.parametrize("late", [False, True])
def test_malformed_ndjson_is_a_file_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, late: bool
) -> None:
    good = "".join(
        f'{{"g": "{"ab"[i % 2]}", "y": {i % 2}, "p": {i // 2 % 2}}}\n'
        for i in range(3000 if late else 2)
    )  # late: the bad line is past the rows that the schema is inferred from
    data = _write(tmp_path / "bad.ndjson", good + '{"g": "a", y: 1}\n')
    out = ["-o", str(tmp_path / "p.parquet")] if command == "profile" else []
    args = [str(data), "--sensitive-features", "g", "--y-true", "y", "--y-pred", "p"]
    assert main([command, *args, *out]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"polars-fair: error: cannot read {str(data)!r}: ")
    assert err[1].startswith("Hint: check that the file is complete")
    assert "one complete JSON object per line" in err[1]
    assert len(err) == 2


def _p_reference(value: float) -> str:
    """The text of a p-value, from the definition, by Python's own formatting."""
    if value == 0:
        return "0"
    return f"{value:.4f}" if f"{value:.4f}" != "0.0000" else f"{value:.1e}"


def test_p_text_matches_python_formatting() -> None:
    import numpy as np
    import polars as pl

    from polars_fair.metrics._summary_notes import p_text

    rng = np.random.default_rng(14)
    values = np.concatenate(
        [10.0 ** -rng.uniform(0, 300, 500), rng.uniform(0, 1, 200), [0.0, 1.0, 5e-5, 4.9999e-5]]
    )
    got = pl.DataFrame({"q": values}).select(p_text(pl.col("q")))["q"].to_list()
    assert got == [_p_reference(float(v)) for v in values]


def test_small_q_values_are_not_printed_as_zero(tmp_path: Path) -> None:
    import polars as pl

    from polars_fair.io.datasets import load_compas

    report = load_compas().fair.report(
        y_true="two_year_recid",
        y_pred=pl.col("decile_score") >= 5,
        sensitive_features="race",
        slices=["sex", "age_cat"],
    )
    q = report.slices.sort("rank").filter(pl.col("rank") <= 3)["q_value"]
    assert (q < 5e-5).all()  # tiny: 0.0000 at 4 decimals
    texts = [_p_reference(v) for v in q.to_list()]
    for page in (report.to_text(), report.to_markdown(), report.to_html()):
        assert all(t in page for t in texts)


def _one_group_frame() -> object:
    import polars as pl

    return pl.DataFrame(
        {
            "g": ["a"] * 6,
            "y": [1, 0, 1, 0, 1, 1],
            "p": [1, 0, 0, 1, 1, 0],
            "s1": [0.9, 0.2, 0.4, 0.7, 0.8, 0.3],
            "s2": [0.8, 0.1, 0.6, 0.6, 0.9, 0.2],
        }
    )


_TABLES = {
    "binary": ("disparities", {"y_true": "y", "y_pred": "p"}),
    "regression": ("regression_disparities", {"y_true": "s1", "y_pred": "s2"}),
    "multiclass": ("multiclass_disparities", {"y_true": "y", "y_pred": "p"}),
    "ensemble": ("ensemble_disparities", {"y_prob": ["s1", "s2"]}),
}


@pytest.mark.parametrize("kind", list(_TABLES))
def test_disparities_warn_with_a_single_group(kind: str) -> None:
    import polars as pl

    from polars_fair.exceptions import DegenerateDataWarning

    df = _one_group_frame()
    assert isinstance(df, pl.DataFrame)
    summary = {"y_true": "y", "y_pred": "p", "sensitive_features": "g"}
    with pytest.warns(DegenerateDataWarning) as expected:
        df.fair.summary(**summary)  # type: ignore[attr-defined]
    wording = str(next(w.message for w in expected if "only one group" in str(w.message)))
    method, kw = _TABLES[kind]
    with pytest.warns(DegenerateDataWarning) as caught:
        eager = getattr(df.fair, method)(sensitive_features="g", **kw)  # type: ignore[attr-defined]
    assert wording in [str(w.message) for w in caught]
    # lazy: nothing is collected (nothing warns), as the lazy summary
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lazy = getattr(df.lazy().fair, method)(sensitive_features="g", **kw)  # type: ignore[attr-defined]
        df.lazy().fair.summary(**summary)  # type: ignore[attr-defined]
    assert isinstance(lazy, pl.LazyFrame)
    # the same table; float sums to rounding (eager and lazy sum in other orders:
    # docs/conventions.md, "Same input, same bits")
    assert_frame_equal(lazy.collect(), eager, check_exact=False, rel_tol=1e-12)
