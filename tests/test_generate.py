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


@pytest.mark.parametrize("path", sorted((ROOT / "tasks" / "explore").glob("*/*-*.yaml")), ids=lambda p: p.stem)
def test_bundled_episodes_give_the_reasons_for_their_drift(path):
    """No change without a reason: each bundled episode's description quotes its catalog's why
    for the replacement and for the reversal, and the replacement keeps the catalog's direction."""
    task = load_task(path).task
    cat = load_catalog(CATALOGS / f"{task.domain}.yaml")
    assert task.drift is not None and task.description
    rep = next(r for r in cat.replacements if (r.factor, r.by) == (task.drift.replace.factor, task.drift.replace.by))
    assert task.drift.replace.direction == rep.direction, f"{task.id}: {rep.by} pushes {rep.direction}"
    rev = next(r for r in cat.reversals if r.field == task.drift.reverse)
    assert f"Replacement: {rep.why}." in task.description, f"{task.id} does not say why {rep.factor} is replaced"
    assert f"Reversal of {rev.field}: {rev.why}." in task.description, f"{task.id} does not say why {rev.field} flips"


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


# -- exclusive fields (§E7: never two of a group in one episode) ---------------------------


def _shared(fields: list[str], cat: Catalog) -> list[list[str]]:
    return [[n for n in g if n in fields] for g in cat.exclusive if sum(n in fields for n in g) > 1]


@pytest.mark.parametrize("path", sorted((ROOT / "tasks" / "explore").glob("*/*-*.yaml")), ids=lambda p: p.stem)
def test_bundled_episodes_keep_exclusive_fields_apart(path):
    task = load_task(path).task
    cat = load_catalog(CATALOGS / f"{task.domain}.yaml")
    assert _shared([f.name for f in task.fields], cat) == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_drafts_never_put_two_exclusive_fields_in_one_episode(domain):
    cat = load_catalog(CATALOGS / f"{domain}.yaml")
    for family in FAMILIES:
        for seed in SEEDS:
            data = draft(cat, family, seed, random.Random(f"x:{domain}:{family}:{seed}"))  # type: ignore[arg-type]
            assert _shared([f["name"] for f in data["fields"]], cat) == [], (family, seed)


def test_a_replacement_inside_an_exclusive_group_is_never_drawn():
    """A catalog built in code (not loaded, so not refused) still never yields the pair."""
    cat = load_catalog(CATALOGS / "finance.yaml")
    first = cat.replacements[0]
    grouped = cat.model_copy(update={"exclusive": [*cat.exclusive, [first.factor, first.by]]})
    for seed in range(40):
        data = draft(grouped, "additive", seed, random.Random(seed))
        assert (data["drift"]["replace"]["factor"], data["drift"]["replace"]["by"]) != (first.factor, first.by)
        assert _shared([f["name"] for f in data["fields"]], grouped) == []


def test_a_catalog_replacement_inside_an_exclusive_group_is_refused(tmp_path):
    def edit(d):
        d["exclusive"].append([d["replacements"][0]["factor"], d["replacements"][0]["by"]])

    with pytest.raises(TaskFileError) as info:
        load_catalog(_catalog(tmp_path, edit))
    [problem] = [p for p in info.value.problems if p.field == "replacements[0]"]
    assert "names two fields of exclusive[1], which never share an episode" in problem.message
    assert problem.line is not None and str(problem).startswith(f"{problem.file}:{problem.line}: replacements[0]: ")


def test_check_reports_exclusive_fields_at_their_line(tmp_path):
    """`sttui check` finds the episode's catalog beside it and names the field's line."""
    from click.testing import CliRunner

    from sttui.cli import main

    folder = tmp_path / "explore" / "healthcare"
    folder.mkdir(parents=True)
    (tmp_path / "explore" / "catalogs").mkdir()
    (tmp_path / "explore" / "catalogs" / "healthcare.yaml").write_bytes((CATALOGS / "healthcare.yaml").read_bytes())
    text = (ROOT / "tasks" / "explore" / "healthcare" / "conjunctive-1.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    names = [f["name"] for f in data["fields"]]
    assert "respiratory_rate" not in names or "oxygen_saturation" not in names
    extra = {"respiratory_rate", "oxygen_saturation"} - set(names)
    cat = load_catalog(CATALOGS / "healthcare.yaml")
    data["fields"] += [
        f.model_dump(exclude={"direction", "distractor_only"}, exclude_none=True) for f in cat.fields if f.name in extra
    ]
    episode = folder / "broken-1.yaml"
    episode.write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(episode)], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    i = len(data["fields"]) - 1
    line = [n for n, t in enumerate(episode.read_text().splitlines(), 1) if t.startswith("- name:")][i]
    assert f"broken-1.yaml:{line}: fields[{i}].name: '" in result.output
    assert "are exclusive (" in result.output and "catalogs/healthcare.yaml:" in result.output
    # the bundled episodes pass it
    ok = CliRunner().invoke(main, ["check", str(ROOT / "tasks" / "explore" / "healthcare")], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output


# -- the recorded command reproduces the episode from the folder it was run in -------------


def test_recorded_command_reproduces_an_episode_from_a_catalog_path(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sttui.cli import main

    (tmp_path / "explore" / "catalogs").mkdir(parents=True)
    text = (CATALOGS / "finance.yaml").read_text(encoding="utf-8").replace("domain: finance", "domain: rail", 1)
    (tmp_path / "explore" / "catalogs" / "rail.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STTUI_TASKS", raising=False)
    args = ["generate", "explore", "--domain", "explore/catalogs/rail.yaml", "--family", "additive", "--seed", "4"]
    first = CliRunner().invoke(main, [*args, "-o", "one.yaml"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    written = (tmp_path / "one.yaml").read_text(encoding="utf-8")
    header = written.splitlines()[0]
    assert (
        header
        == "# Generated by: sttui generate explore --domain explore/catalogs/rail.yaml --family additive --seed 4"
    )
    assert (
        "Generated by `sttui generate explore --domain explore/catalogs/rail.yaml"
        in yaml.safe_load(written)["description"]
    )
    again = header.removeprefix("# Generated by: sttui ").split()
    second = CliRunner().invoke(main, [*again, "-o", "two.yaml"], catch_exceptions=False)
    assert second.exit_code == 0, second.output
    assert (tmp_path / "two.yaml").read_text(encoding="utf-8") == written


def test_bundled_episodes_are_what_their_recorded_command_makes(tmp_path):
    """Run from the repository root, each bundled episode's first line makes it again."""
    from click.testing import CliRunner

    from sttui.cli import main

    for path in sorted((ROOT / "tasks" / "explore").glob("*/*-*.yaml")):
        text = path.read_text(encoding="utf-8")
        command = text.splitlines()[0].removeprefix("# Generated by: sttui ").split()
        out = tmp_path / path.name
        result = CliRunner().invoke(main, [*command, "-o", str(out)], catch_exceptions=False)
        assert result.exit_code == 0 and out.read_text(encoding="utf-8") == text, path


def test_the_catalog_is_looked_up_by_name_only(tmp_path):
    from sttui.authoring.checking import catalog_for

    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "rail.yaml").write_text("domain: rail\n", encoding="utf-8")
    (tmp_path / "x.yaml").write_text("domain: x\n", encoding="utf-8")
    episode = tmp_path / "rail" / "additive-1.yaml"
    assert catalog_for(episode, "rail") == (tmp_path / "catalogs" / "rail.yaml").resolve()
    assert catalog_for(episode, "../x") is None and catalog_for(episode, "tram") is None
