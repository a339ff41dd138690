"""How the command line judges: ``--confidence-level``, ``--method``, the fair bands.

Each option is ``df.fair.report``'s keyword argument of the same name: the CLI's JSON
must be the Python report's with the same arguments, on COMPAS (race, reference
Caucasian, ``y_pred = decile_score >= 5``), from a data file, ``--example compas``
and a ``--profile`` file; the gates follow the verdicts the Python API gives; bad
values exit 2 with the library's own message, before any data is read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair as pf
from polars_fair._typing import Method
from polars_fair.datasets import scan_compas
from polars_fair.exceptions import InvalidParameterError
from polars_fair.io._cli_args import build_parser
from polars_fair.io.cli import main
from polars_fair.metrics._registry import CRITERIA, DEFAULT_SUMMARY, needs_score
from polars_fair.report import GATE_VERDICTS

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

COMPAS = Path(pf.__file__).parent / "data" / "compas.parquet"
RULE = "decile_score >= 5"
COLUMNS = ["--y-true", "two_year_recid", "--y-pred", RULE, "--sensitive-features", "race"]
PY = {"y_true": "two_year_recid", "y_pred": pl.col("decile_score") >= 5,
      "sensitive_features": "race", "reference_group": "Caucasian"}  # fmt: skip
#: The judgement options, as command-line arguments and as the report's keywords.
OPTIONS = [
    pytest.param(["--confidence-level", "0.99"], {"confidence_level": 0.99}, id="level"),
    pytest.param(["--method", "to_overall"], {"method": "to_overall"}, id="to_overall"),
    pytest.param(["--method", "between_groups"], {"method": "between_groups"}, id="between"),
    pytest.param(["--difference-band", "0.05"], {"difference_band": 0.05}, id="difference"),
    pytest.param(["--ratio-band", "0.9,1.1111"], {"ratio_band": (0.9, 1.1111)}, id="ratio"),
    pytest.param(
        [
            "--confidence-level",
            "0.9",
            "--difference-band",
            "0.2",
            "--ratio-band",
            "0.5,2",
            "--method",
            "to_reference",
        ],
        {
            "confidence_level": 0.9,
            "difference_band": 0.2,
            "ratio_band": (0.5, 2.0),
            "method": "to_reference",
        },
        id="all",
    ),  # fmt: skip
]
#: Options that change verdicts on COMPAS (each, on some criterion: checked below).
FLIPS = [
    pytest.param(["--confidence-level", "0.99"], {"confidence_level": 0.99}, id="level99"),
    pytest.param(["--confidence-level", "0.5"], {"confidence_level": 0.5}, id="level50"),
    pytest.param(["--difference-band", "0.05"], {"difference_band": 0.05}, id="diff05"),
    pytest.param(["--difference-band", "0.2"], {"difference_band": 0.2}, id="diff20"),
    pytest.param(["--ratio-band", "0.9,1.1111"], {"ratio_band": (0.9, 1.1111)}, id="ratio90"),
    pytest.param(["--ratio-band", "0.5,2"], {"ratio_band": (0.5, 2.0)}, id="ratio50"),
    pytest.param(["--method", "to_overall"], {"method": "to_overall"}, id="to_overall"),
]
#: The summary's default criteria and every ratio of the labels (balance and AUC ones
#: need scores).
LABEL_CRITERIA = [
    *DEFAULT_SUMMARY,
    *(c for c in CRITERIA if c.endswith("_ratio") and not needs_score(c) and c not in DEFAULT_SUMMARY),
]  # fmt: skip
SOURCES = ["file", "example", "profile"]


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """COMPAS profiled by the command line (race)."""
    path = tmp_path_factory.mktemp("profile") / "compas.parquet"
    assert main(["profile", str(COMPAS), "-o", str(path), *COLUMNS, "--no-progress"]) == 0
    return path


def _example() -> pl.LazyFrame:
    """The bundled example as documented: African-American against Caucasian defendants."""
    return scan_compas().filter(pl.col("race").is_in(["African-American", "Caucasian"]))


def _source(kind: str, profile: Path) -> tuple[list[str], Callable[..., pf.FairnessReport]]:
    """The command line's arguments for `kind`, and the Python report it must equal."""
    if kind == "file":
        return (
            [str(COMPAS), *COLUMNS, "--reference-group", "Caucasian", "--no-progress"],
            lambda **kw: pl.read_parquet(COMPAS).fair.report(**PY, **kw),
        )
    if kind == "example":
        return ["--example", "compas"], lambda **kw: _example().fair.report(**PY, **kw)
    return (
        ["--profile", str(profile), "--reference-group", "Caucasian"],
        lambda **kw: pf.read_profile(profile).report(reference_group="Caucasian", **kw),
    )


def _audit(args: list[str], tmp_path: Path, fmt: str = "json") -> Any:
    out = tmp_path / f"report.{fmt}"
    assert main(["audit", *args, "--format", fmt, "--output", str(out)]) == 0
    text = out.read_text()
    return json.loads(text) if fmt == "json" else text


def _document(report: pf.FairnessReport) -> Any:
    return json.loads(report.to_json())


# ---- the same report as Python's ------------------------------------------------------


@pytest.mark.parametrize("kind", SOURCES)
@pytest.mark.parametrize(("cli", "kw"), OPTIONS)
def test_json_is_the_python_report(
    kind: str, cli: list[str], kw: dict[str, Any], profile_path: Path, tmp_path: Path
) -> None:
    args, python = _source(kind, profile_path)
    got = _audit([*args, *cli], tmp_path)
    expected = _document(python(**kw))
    assert got["tables"]["summary"] == expected["tables"]["summary"]
    assert got["tables"]["disparities"] == expected["tables"]["disparities"]
    for name in kw:
        assert got["params"][name] == expected["params"][name]
    # the option acts: the summary differs from the default one
    assert got["tables"]["summary"] != _audit(args, tmp_path)["tables"]["summary"]


@pytest.mark.parametrize(("cli", "kw"), OPTIONS)
def test_profile_report_is_the_rows_report(
    cli: list[str], kw: dict[str, Any], profile_path: Path, tmp_path: Path
) -> None:
    """``audit --profile`` with an option gives the rows' report (to rounding)."""
    got = pl.DataFrame(
        _audit(_source("profile", profile_path)[0] + cli, tmp_path)["tables"]["summary"]
    )
    rows = pl.scan_parquet(COMPAS).fair.report(**PY, **kw).summary
    assert_frame_equal(
        got, rows.with_columns(pl.col(pl.Enum).cast(pl.String)), rel_tol=1e-9, check_dtypes=False
    )


@pytest.mark.parametrize("kind", ["file", "example"])
def test_slices_are_judged_at_the_level(kind: str, profile_path: Path, tmp_path: Path) -> None:
    """Slices: FDR level 1 - --confidence-level, as the Python report's."""
    args, python = _source(kind, profile_path)
    slicing = {"slices": ["sex", "age_cat"], "min_group_size": 50}
    cli = ["--slices", "sex,age_cat", "--min-group-size", "50", "--confidence-level", "0.999"]
    got = _audit([*args, *cli], tmp_path)["tables"]["slices"]
    assert got == _document(python(**slicing, confidence_level=0.999))["tables"]["slices"]
    assert got != _document(python(**slicing))["tables"]["slices"]


def test_profile_slices_are_judged_at_the_level(tmp_path: Path) -> None:
    prof = tmp_path / "crossed.parquet"
    cols = [*COLUMNS[:4], "--sensitive-features", "sex,age_cat", "--no-progress"]
    assert main(["profile", str(COMPAS), "-o", str(prof), *cols]) == 0
    cli = ["--profile", str(prof), "--slices", "sex,age_cat", "--confidence-level", "0.999"]
    got = _audit(cli, tmp_path)["tables"]["slices"]
    options = {"slices": ["sex", "age_cat"], "confidence_level": 0.999}
    assert got == _document(pf.read_profile(prof).report(**options))["tables"]["slices"]


# ---- gates ------------------------------------------------------------------------------


def _verdicts(report: pf.FairnessReport) -> dict[str, str]:
    return dict(
        zip(report.summary["criterion"], report.summary["verdict"].cast(pl.String), strict=True)
    )


@pytest.mark.parametrize("kind", SOURCES)
@pytest.mark.parametrize(("cli", "kw"), FLIPS)
def test_verdict_gate_follows_the_option(
    kind: str, cli: list[str], kw: dict[str, Any], profile_path: Path, tmp_path: Path
) -> None:
    """A criterion whose verdict the option changes (Python): the gate's exit status follows."""
    args, python = _source(kind, profile_path)
    before = _verdicts(python(criteria=LABEL_CRITERIA))
    after = _verdicts(python(criteria=LABEL_CRITERIA, **kw))
    changed = [c for c in LABEL_CRITERIA if before[c] != after[c]]
    if not changed:
        pytest.skip(f"{cli} changes no verdict of the {kind} source")
    name = changed[0]
    for gate in sorted({before[name], after[name]} & set(GATE_VERDICTS)):
        for extra, verdict in (([], before[name]), (cli, after[name])):
            status = main(["audit", *args, *extra, "--criteria", name, "--fail-on-verdict", gate,
                           "--format", "json", "--output", str(tmp_path / "r.json")])  # fmt: skip
            assert status == (1 if verdict == gate else 0), (name, gate, extra)


@pytest.mark.parametrize(("cli", "kw"), FLIPS)
def test_every_option_flips_a_verdict_somewhere(cli: list[str], kw: dict[str, Any]) -> None:
    """The gate test above is not vacuous: each option changes a verdict of some source."""
    flipped = []
    for frame in (pl.scan_parquet(COMPAS), _example()):
        before = _verdicts(frame.fair.report(**PY, criteria=LABEL_CRITERIA))
        after = _verdicts(frame.fair.report(**PY, criteria=LABEL_CRITERIA, **kw))
        flipped += [c for c in LABEL_CRITERIA if before[c] != after[c]]
    assert flipped


# ---- the stated level and bands ---------------------------------------------------------


@pytest.mark.parametrize("kind", SOURCES)
def test_outputs_state_the_level_and_bands(kind: str, profile_path: Path, tmp_path: Path) -> None:
    args, python = _source(kind, profile_path)
    cli = [*args, "--confidence-level", "0.99", "--ratio-band", "0.9,1.1111",
           "--difference-band", "0.05"]  # fmt: skip
    page = _audit(cli, tmp_path, "html")
    assert "99% interval" in page
    assert "95%" not in page
    assert "0.9 – 1.1111" in page  # the ratios' fair band
    assert "-0.05 – 0.05" in page  # the differences'
    assert "99% interval" in python(confidence_level=0.99).to_html()
    markdown = _audit(cli, tmp_path, "markdown")
    assert "verdicts: the 99% interval vs the band" in markdown
    assert "| 0.9000   | 1.1111    |" in markdown  # fair_low, fair_high of a ratio
    text = _audit(cli, tmp_path, "table")
    assert "99% intervals)" in text
    assert "95%" not in text
    assert "95% intervals)" in _audit(args, tmp_path, "table")


# ---- compare ---------------------------------------------------------------------------


SIDE_COLUMNS = ["--y-true", "two_year_recid", "--y-pred", "p", "--sensitive-features", "race"]
#: The options, with a difference band that changes a side's verdict of the comparison.
COMPARE_OPTIONS = [
    *(p for p in OPTIONS if p.id != "difference"),
    pytest.param(["--difference-band", "0.2"], {"difference_band": 0.2}, id="difference"),
]


@pytest.mark.parametrize("profiles", [False, True], ids=["data", "profiles"])
@pytest.mark.parametrize(("cli", "kw"), COMPARE_OPTIONS)
def test_compare_is_the_python_comparison(
    profiles: bool, cli: list[str], kw: dict[str, Any], sides: tuple[Path, Path], tmp_path: Path
) -> None:
    base, cand = sides
    if profiles:
        made = []
        for path in sides:
            made.append(tmp_path / f"{path.stem}.profile.parquet")
            cols = [*SIDE_COLUMNS, "--no-progress"]
            assert main(["profile", str(path), "-o", str(made[-1]), *cols]) == 0
        base, cand = made

    def run(extra: list[str]) -> pl.DataFrame:
        out = tmp_path / "cmp.json"
        args = ["compare", str(base), str(cand), "--reference-group", "Caucasian", *extra]
        if not profiles:
            args += [*SIDE_COLUMNS, "--no-progress"]
        assert main([*args, "--format", "json", "--output", str(out)]) == 0
        return pl.read_json(out)

    def python(path: Path, **options: Any) -> pf.FairnessReport:
        return pl.read_parquet(path).fair.report(
            y_true="two_year_recid", y_pred="p", sensitive_features="race",
            reference_group="Caucasian", **options,
        )  # fmt: skip

    got = run(cli)
    expected = python(sides[1], **kw).compare(python(sides[0], **kw))
    expected = expected.with_columns(pl.col(pl.Enum).cast(pl.String))
    assert_frame_equal(got, expected, rel_tol=1e-9, check_dtypes=False)
    assert not got.equals(run([]))  # the option acts


def test_compare_text_states_the_level(sides: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "cmp.txt"
    base, cand = (str(p) for p in sides)
    args = ["compare", base, cand, *SIDE_COLUMNS, "--no-progress", "--output", str(out)]
    assert main([*args, "--confidence-level", "0.99"]) == 0
    assert "with its 99% interval excluding 0" in out.read_text()
    assert main(args) == 0
    assert "with its 95% interval excluding 0" in out.read_text()


# ---- bad values ---------------------------------------------------------------------------


BAD = [  # the option's text and the value Python is given
    (["--confidence-level", "95"], {"confidence_level": 95.0}),
    (["--confidence-level", "0"], {"confidence_level": 0.0}),
    (["--confidence-level", "nan"], {"confidence_level": float("nan")}),
    (["--ratio-band", "1.2,0.8"], {"ratio_band": (1.2, 0.8)}),
    (["--ratio-band", "0.8"], {"ratio_band": "0.8"}),
    (["--ratio-band", "0.8,1.25,2"], {"ratio_band": "0.8,1.25,2"}),
    (["--ratio-band", "low,high"], {"ratio_band": "low,high"}),
    (["--ratio-band", "0,1.25"], {"ratio_band": (0.0, 1.25)}),
    (["--method", "bogus"], {"method": "bogus"}),
    (["--method", "to_ref"], {"method": "to_ref"}),
    (["--difference-band", "-0.1"], {"difference_band": -0.1}),
    (["--difference-band", "inf"], {"difference_band": float("inf")}),
]
#: Each command, with inputs that do not exist: the option is refused before any is read.
COMMANDS = [
    ["audit", "missing.parquet", *COLUMNS],
    ["audit", "--example", "compas"],
    ["audit", "--profile", "missing-profile.parquet"],
    ["compare", "missing-base.parquet", "missing-candidate.parquet"],
]


def _python_error(kw: dict[str, Any]) -> str:
    with pytest.raises(InvalidParameterError) as caught:
        _example().fair.report(**PY, **kw)
    return str(caught.value)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
@pytest.mark.parametrize(
    ("cli", "kw"), BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_bad_value_exits_2_with_the_library_message(
    command: list[str], cli: list[str], kw: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, *cli]) == 2
    err = capsys.readouterr().err
    first = _python_error(kw).splitlines()[0]
    assert err.startswith(f"polars-fair: error: {first}\nHint: ")
    assert "missing" not in err  # nothing was read


@pytest.mark.parametrize(
    ("cli", "hint"),
    [
        (["--confidence-level", "95"], "Hint: a fraction, not a percentage: `--confidence-level 0.95`"),
        (["--confidence-level", "1.5"], "Hint: e.g. `--confidence-level 0.95`"),
        (["--ratio-band", "1.2,0.8"], "Hint: e.g. `--ratio-band 0.8,1.25`"),
        (["--method", "to_ref"], "Hint: did you mean 'to_reference'? "),
        (["--method", "overall"], "Hint: did you mean 'to_overall'? "),
        (["--difference-band", "-0.1"], "Hint: e.g. `--difference-band 0.1`"),
    ],
)  # fmt: skip
def test_bad_value_hint_is_the_option_to_type(
    cli: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "--example", "compas", *cli]) == 2
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize(
    ("cli", "hint"),
    [(["--alpha", "0.01"], "Hint: give --confidence-level 0.99 instead"),
     (["--min-slice-size", "50"], "Hint: give --min-group-size 50 instead")],
)  # fmt: skip
def test_slices_own_options_name_the_reports(
    cli: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``df.fair.slices``' alpha and min_size: the report sets them from its own options."""
    assert main(["audit", "--example", "compas", "--slices", "sex", *cli]) == 2
    err = capsys.readouterr().err
    assert f"error: {cli[0]} {cli[1]}: the report tests the slices at the FDR level" in err
    assert hint in err


def test_method_choices_are_the_library_methods(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"groups: {', '.join(get_args(Method))} (default" in help_text
    for method in get_args(Method):
        assert main(["audit", "--example", "compas", "--method", method, "-o", "/dev/null"]) in (
            0,
            1,
        )


def test_audit_and_compare_share_the_options() -> None:
    """One definition of each judgement option, for audit and compare alike."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    commands = sub.choices  # type: ignore[attr-defined]
    shared = ["--confidence-level", "--method", "--difference-band", "--ratio-band",
              "--verdict-rule", "--frequency-weights", "--min-group-size"]  # fmt: skip

    def described(command: str) -> dict[str, tuple[Any, ...]]:
        return {
            a.option_strings[0]: (a.help, a.default, a.type, a.metavar)
            for a in commands[command]._actions if a.option_strings
        }  # fmt: skip

    audit, compare = described("audit"), described("compare")
    assert not any(a.dest == "slices" for a in commands["compare"]._actions)
    for option in shared:
        assert audit[option][1:] == compare[option][1:]
        # compare has no slices: its help is audit's without what they set
        assert "slice" not in compare[option][0]
        assert set(re.findall(r"[\w-]+", compare[option][0])) <= set(
            re.findall(r"[\w-]+", audit[option][0])
        )
        default = pf.ReportSpec.of(y_true="y", y_pred="p", sensitive_features="g").min_group_size
        assert audit[option][1] in (None, False, default)  # left out: the library's default
