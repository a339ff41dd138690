"""The public API only grows: every snapshotted name keeps its signature."""

from __future__ import annotations

import json

import pytest
from api_snapshot import SNAPSHOT, live

EXPECTED: dict[str, dict[str, str]] = json.loads(SNAPSHOT.read_text())
LIVE = live()


@pytest.mark.parametrize("scope", sorted(EXPECTED))
def test_public_names_keep_their_signatures(scope: str) -> None:
    now = LIVE.get(scope, {})
    missing = sorted(set(EXPECTED[scope]) - set(now))
    assert not missing, f"{scope}: public names removed: {missing}"
    changed = {name: (sig, now[name]) for name, sig in EXPECTED[scope].items() if now[name] != sig}
    assert not changed, f"{scope}: signatures changed (was, now): {changed}"


def test_snapshot_is_not_empty() -> None:
    # the namespace alone has over a hundred public methods
    assert len(EXPECTED["DataFrameFairNamespace"]) > 100
    assert "demographic_parity_difference" in EXPECTED["LazyFrameFairNamespace"]
