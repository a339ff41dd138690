"""Every criterion of the summary reads the same everywhere (acceptance of issue 12).

On COMPAS, for each criterion of the catalogue's ``rate``, ``statistic`` and ``auc`` families,
with and without a reference group: ``df.fair.<name>``, ``lf.fair.<name>`` (a
LazyFrame, collected in memory and streaming), ``profile.criterion(name)``, the
summary (``criteria=[name]``) and the command line's JSON all give the value of a numpy
reference written from the definitions (DESIGN.md section 4, ``tests/reference*.py``).

Three statistics are defined another way in the summary, as the docs say
(docs/profiles.md, "The summary is another thing"): without a reference, its Cohen's d
and 2-SD rule compare the most with the least selected group; with one, its four-fifths
rule is the signed ratio DI. Those are checked against their own definitions.
"""

from __future__ import annotations

import inspect
import json
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
import reference as ref
import reference_auc as ref_auc
import reference_stats as ref_stats

from polars_fair.cli import main
from polars_fair.datasets import load_compas
from polars_fair.metrics._registry import CRITERIA

COLUMNS = {"y_true": "two_year_recid", "y_pred": "y_pred", "y_prob": "y_prob"}
REFERENCES = [None, "Caucasian"]


@pytest.fixture(scope="module")
def compas() -> pl.DataFrame:
    return load_compas().select("race", *COLUMNS.values())


def _close(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def _numpy(df: pl.DataFrame, name: str, reference: str | None) -> float | None:
    """The criterion from its definition, on numpy arrays of the rows."""
    entry = CRITERIA[name]
    method = "to_reference" if reference else "between_groups"
    key = (reference,) if reference else None
    race = df["race"].to_numpy()
    y, p = df["two_year_recid"].to_numpy(), df["y_pred"].to_numpy()
    if entry.family == "statistic":
        rows = ref_stats.Rows(list(y), list(p), [list(race)], None)
        function = getattr(ref_stats, name)
        return function(rows, reference)  # type: ignore[no-any-return]
    if entry.family == "auc":  # every (positive, negative) pair of each group compared
        aucs = ref_auc.per_group(race, y, df["y_prob"].to_numpy())
        values = {k: a for k, (a, _) in aucs.items()}
        return ref.compare(values, None, entry.kind, method, key)  # type: ignore[arg-type]
    table = ref.confusion_counts(y, p, [race])
    measures = entry.measures
    if measures == ("predicted_positive_share",) or measures[0].startswith("balance_for"):
        keys = sorted(table)
        if measures[0].startswith("balance_for"):
            s = df["y_prob"].to_numpy()
            label = 1 if measures[0] == "balance_for_positive_class" else 0
            values = {k: s[(race == k[0]) & (y == label)].mean() for k in keys}
        else:
            values = {k: p[race == k[0]].sum() / p.sum() for k in keys}
        return ref.compare(values, None, entry.kind, method, key)  # type: ignore[arg-type]
    if name.startswith("equalized_odds"):
        return getattr(ref, name)(table, method, "worst_case", key)  # type: ignore[no-any-return]
    if name.startswith(("conditional_use_accuracy", "average_abs_odds")):
        return getattr(ref, name)(table, method, key)  # type: ignore[no-any-return]
    assert len(measures) == 1, name
    return ref.criterion(table, measures[0], entry.kind, method, key)


def _summary_definition(df: pl.DataFrame, name: str, reference: str | None) -> float | None:
    """The summary's value: the criterion's own, but for the three documented statistics."""
    if name == "four_fifths_rule" and reference:
        return _numpy(df, "disparate_impact_ratio", reference)
    if name in ("cohen_d", "two_sd_rule") and not reference:
        srs = {g: df.filter(pl.col("race") == g)["y_pred"].mean() for g in df["race"].unique()}
        least, most = min(srs, key=srs.__getitem__), max(srs, key=srs.__getitem__)
        pair = df.filter(pl.col("race").is_in([least, most]))
        return _numpy(pair, name, least)
    return _numpy(df, name, reference)


def _call(ns: Any, name: str, reference: str | None) -> Any:
    method = getattr(ns, name)
    params = inspect.signature(method).parameters
    kwargs = {k: v for k, v in COLUMNS.items() if k in params}
    extra = {"reference_group": reference} if reference else {}
    return method(**kwargs, sensitive_features="race", **extra)


@pytest.mark.parametrize("reference", REFERENCES, ids=["between-groups", "to-reference"])
@pytest.mark.parametrize("name", list(CRITERIA))
def test_namespace_lazy_and_profile_give_the_definition(
    compas: pl.DataFrame, name: str, reference: str | None
) -> None:
    want = _numpy(compas, name, reference)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups (Native American, n=11)
        eager = _call(compas.fair, name, reference)
        lazy = _call(compas.lazy().fair, name, reference)
        prof = compas.fair.profile(**COLUMNS, sensitive_features="race")
        from_profile = prof.criterion(name, **({"reference_group": reference} if reference else {}))
    assert isinstance(lazy, pl.LazyFrame)  # built, not collected
    assert _close(eager, want), (eager, want)
    assert _close(lazy.collect().item(), want)
    assert _close(lazy.collect(engine="streaming").item(), want)
    assert _close(from_profile, want)


@pytest.fixture(scope="module")
def summaries(compas: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[Any, Any]:
    """Per reference: the summary's values and the CLI's, of every criterion at once."""
    path = tmp_path_factory.mktemp("surfaces") / "compas.parquet"
    compas.write_parquet(path)
    out: dict[Any, Any] = {}
    for reference in REFERENCES:
        extra = {"reference_group": reference} if reference else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            summary = compas.fair.summary(
                **COLUMNS, sensitive_features="race", criteria=list(CRITERIA),
                min_group_size=0, **extra,
            )  # fmt: skip
        args = [
            "audit", str(path), "--y-true", COLUMNS["y_true"], "--y-pred", COLUMNS["y_pred"],
            "--y-prob", COLUMNS["y_prob"], "--sensitive-features", "race", "--format", "json",
            "--min-group-size", "0", "--criteria", ",".join(CRITERIA), "--no-progress",
            *(["--reference-group", reference] if reference else []),
        ]  # fmt: skip
        out[reference] = (dict(summary.select("criterion", "value").iter_rows()), args)
    return out


@pytest.mark.parametrize("reference", REFERENCES, ids=["between-groups", "to-reference"])
def test_summary_and_cli_give_the_definition(
    compas: pl.DataFrame,
    summaries: dict[Any, Any],
    reference: str | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    values, args = summaries[reference]
    assert main(args) == 0
    from_cli = {
        r["criterion"]: r["value"] for r in json.loads(capsys.readouterr().out)["tables"]["summary"]
    }
    assert list(values) == list(CRITERIA) == list(from_cli)
    wrong = {
        name: (values[name], from_cli[name], want)
        for name in CRITERIA
        if not (
            _close(values[name], want := _summary_definition(compas, name, reference))
            and _close(from_cli[name], want)
        )
    }
    assert wrong == {}


def test_the_reference_is_exercised(compas: pl.DataFrame) -> None:
    # the data has groups on both sides of the reference, so the signs are tested
    srs = compas.group_by("race").agg(pl.col("y_pred").mean()).sort("y_pred")["race"].to_list()
    assert srs[0] != "Caucasian"
    assert srs[-1] != "Caucasian"
    assert np.unique(compas["race"]).size == 6
