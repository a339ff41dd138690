"""Bad-input messages fixed in the polish14c pass (issue 14's standard)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
