"""The profile commands: ``profile``, ``audit --profile``, ``compare --fail-on-worse``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_fair as pf
from polars_fair.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::polars_fair.FairWarning")

COLS = ["--y-true", "y", "--y-pred", "s >= 0.5", "--y-prob", "s", "--sensitive-features", "g"]


def _write_days(folder: Path, days: int = 3, n: int = 2000, drop: float = 0.0) -> pl.DataFrame:
    rng = np.random.default_rng(int(drop * 100) + days)
    parts = []
    for day in range(days):
        g = rng.choice(["a", "b"], n)
        y = rng.integers(0, 2, n)
        s = np.clip(rng.random(n) - np.where(g == "b", drop, 0.0), 0, 1)
        part = pl.DataFrame({"g": g, "y": y, "s": s, "model": rng.choice(["m1", "m2"], n)})
        part.write_parquet(folder / f"day{day}.parquet")
        parts.append(part)
    return pl.concat(parts)


def _tables(path: Path) -> dict[str, pl.DataFrame]:
    data = json.loads(path.read_text())
    return {k: pl.DataFrame(v) for k, v in data["tables"].items()}


def test_profile_command_writes_the_merged_profile(tmp_path: Path) -> None:
    df = _write_days(tmp_path)
    out = tmp_path / "p.parquet"
    assert main(["profile", str(tmp_path / "day*.parquet"), "-o", str(out), *COLS,
                 "--by", "model", "--no-progress"]) == 0  # fmt: skip
    prof = pf.read_profile(out)
    want = df.fair.profile(y_true="y", y_pred=pl.col("s") >= 0.5, y_prob="s",
                           sensitive_features="g", by="model")  # fmt: skip
    assert prof.meta["pieces"] == 3
    for name, table in want.tables.items():
        ints = [c for c, t in table.schema.items() if t.is_integer()]
        assert prof.tables[name].select(ints).equals(table.select(ints))


def test_audit_from_profiles_equals_audit_from_data(tmp_path: Path) -> None:
    _write_days(tmp_path)
    folder = tmp_path / "profiles"
    folder.mkdir()
    for day in range(3):
        assert main(["profile", str(tmp_path / f"day{day}.parquet"), "-o",
                     str(folder / f"{day}.parquet"), *COLS]) == 0  # fmt: skip
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    common = ["--reference-group", "a", "--format", "json", "--min-group-size", "10"]
    assert main(["audit", str(tmp_path / "day*.parquet"), *COLS, *common, "-o", str(a)]) == 0
    assert main(["audit", "--profile", str(folder / "*.parquet"), *common, "-o", str(b)]) == 0
    ta, tb = _tables(a), _tables(b)
    for name in ("summary", "by_group", "disparities", "calibration"):
        from polars.testing import assert_frame_equal

        assert_frame_equal(ta[name], tb[name], check_exact=False)
    gate = ["--fail-on", "demographic_parity_difference > -1"]
    assert main(["audit", "--profile", str(folder / "0.parquet"), *gate, "-o", str(b)]) == 1


def test_compare_fails_on_a_worse_candidate(tmp_path: Path) -> None:
    base, cand, same = tmp_path / "base", tmp_path / "cand", tmp_path / "same"
    for folder in (base, cand, same):
        folder.mkdir()
    _write_days(base, days=2)
    _write_days(cand, days=2, drop=0.3)
    _write_days(same, days=3)
    assert main(["profile", str(base / "*.parquet"), "-o", str(tmp_path / "b.parquet"), *COLS]) == 0
    out = tmp_path / "cmp.json"
    args = ["compare", str(tmp_path / "b.parquet"), str(cand / "*.parquet"), *COLS]
    assert main([*args, "--fail-on-worse", "--format", "json", "-o", str(out)]) == 1
    rows = pl.read_json(out)
    dp = rows.filter(pl.col("criterion") == "demographic_parity_difference")
    assert dp["verdict"].to_list() == ["worse"]
    assert main(args) == 0  # without --fail-on-worse
    same_args = ["compare", str(tmp_path / "b.parquet"), str(same / "*.parquet"), *COLS]
    assert main([*same_args, "--fail-on-worse", "-o", str(out)]) == 0


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_days(tmp_path, days=1)
    prof = tmp_path / "p.parquet"
    assert main(["profile", str(tmp_path / "day0.parquet"), "-o", str(prof), *COLS]) == 0
    assert main(["audit", "--profile", str(prof), "--y-true", "y"]) == 2
    assert "cannot be combined with --profile" in capsys.readouterr().err
    assert main(["audit", "--profile", str(prof), "--slices", "model"]) == 2  # not a group
    assert "--sensitive-features g,model" in capsys.readouterr().err
    assert main(["audit", "--profile", str(tmp_path / "day0.parquet")]) == 2
    assert "is not a fairness profile" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "*.parquet"), str(prof), *COLS]) == 2
    assert "mixes profiles and data files" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "nothing*.parquet"), str(prof)]) == 2
    assert "no file matches" in capsys.readouterr().err
