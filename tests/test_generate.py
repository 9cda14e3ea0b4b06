"""The explore generator: drifts reverse only the factors a catalog marks reversible."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from sttui.core.explore.generate import Catalog, GenerationError, draft, generate
from sttui.core.loader import load_catalog, load_task
from sttui.core.problems import TaskFileError
from tests.conftest import ROOT

CATALOGS = ROOT / "tasks" / "explore" / "catalogs"
DOMAINS = sorted(p.stem for p in CATALOGS.glob("*.yaml"))
FAMILIES = ("additive", "conjunctive", "disjunctive", "lexicographic")
SEEDS = range(60)


def marked(cat: Catalog) -> set[str]:
    return {r.field for r in cat.reversals}


@pytest.mark.parametrize("domain", DOMAINS)
def test_drafts_reverse_only_marked_factors(domain):
    """Over many seeds and every family, the reversed factor is one the catalog marks, kept
    through the change, and the replacement is one of the catalog's."""
    cat = load_catalog(CATALOGS / f"{domain}.yaml")
    replacements = {(r.factor, r.by, r.direction) for r in cat.replacements}
    reversed_fields = set()
    for family in FAMILIES:
        for seed in SEEDS:
            data = draft(cat, family, seed, random.Random(f"test:{domain}:{family}:{seed}"))  # type: ignore[arg-type]
            drift = data["drift"]
            factors = [f["field"] for f in data["rule"]["factors"]]
            assert drift["reverse"] in marked(cat)
            assert drift["reverse"] in factors and drift["reverse"] != drift["replace"]["factor"]
            assert tuple(drift["replace"].values()) in replacements
            reversed_fields.add(drift["reverse"])
    assert reversed_fields == marked(cat)  # every marked field is drawn at some point


@pytest.mark.parametrize("domain", DOMAINS)
def test_certified_episodes_reverse_only_marked_factors(domain):
    cat = load_catalog(CATALOGS / f"{domain}.yaml")
    for family in FAMILIES:
        for seed in (2, 3):
            data, share, _ = generate(cat, family, seed)  # type: ignore[arg-type]
            assert data["drift"]["reverse"] in marked(cat) and 0.25 <= share <= 0.75
            why = next(r.why for r in cat.reversals if r.field == data["drift"]["reverse"])
            assert why in data["description"]


@pytest.mark.parametrize("path", sorted((ROOT / "tasks" / "explore").glob("*/*-*.yaml")), ids=lambda p: p.stem)
def test_bundled_episodes_reverse_only_marked_factors(path):
    task = load_task(path).task
    cat = load_catalog(CATALOGS / f"{task.domain}.yaml")
    assert task.drift is not None
    assert task.drift.reverse in marked(cat), f"{task.id} reverses {task.drift.reverse}, not marked reversible"
    assert (task.drift.replace.factor, task.drift.replace.by) in {(r.factor, r.by) for r in cat.replacements}


def test_a_replacement_without_a_reversible_partner_cannot_be_drawn():
    cat = load_catalog(CATALOGS / "finance.yaml")
    only = cat.model_copy(update={"reversals": [r for r in cat.reversals if r.field == "revenue_growth"]})
    for seed in range(40):  # revenue_growth is replaced in one replacement; that one is never drawn
        drift = draft(only, "additive", seed, random.Random(seed))["drift"]
        assert drift["reverse"] == "revenue_growth" and drift["replace"]["factor"] != "revenue_growth"
    none = cat.model_copy(update={"reversals": [r for r in cat.reversals if r.field == "missing_payments"]})
    with pytest.raises(GenerationError, match="no replacement in the catalog leaves a field marked reversible"):
        draft(none, "additive", 0, random.Random(0))


def _catalog(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load((CATALOGS / "finance.yaml").read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "cat.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    return path


def _drop_reversals(d):
    del d["reversals"]


def _reversals(*fields):
    def edit(d):
        d["reversals"] = [{"field": f, "why": "a reason"} for f in fields]

    return edit


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (_drop_reversals, "reversals", "required field is missing"),
        (_reversals("revenue_grwth"), "reversals[0].field", "reversal names unknown field 'revenue_grwth'"),
        (_reversals("branch_region"), "reversals[0].field", "'branch_region', which is marked distractor_only"),
        (_reversals("sector_risk", "sector_risk"), "reversals[1].field", "'sector_risk' is marked reversible twice"),
        (
            _reversals("sector_risk"),
            "replacements[3]",
            "replacement sector_risk → requested_line leaves no field to reverse",
        ),
    ],
)
def test_bad_reversals_get_file_line_field(tmp_path, edit, field, message):
    path = _catalog(tmp_path, edit)
    with pytest.raises(TaskFileError) as info:
        load_catalog(path)
    problems = [p for p in info.value.problems if p.field == field]
    assert problems and message in problems[0].message, [str(p) for p in info.value.problems]
    assert problems[0].line is not None and str(problems[0]).startswith(f"{problems[0].file}:{problems[0].line}: ")
