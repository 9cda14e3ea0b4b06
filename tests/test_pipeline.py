"""The task pipeline (STT-Arena §2.2, §E) and the episode review (AdaExploreBench §3.1), with a
stub model over real HTTP through litellm: a good proposer, proposers whose candidates fail each
stage, an auditor that finds a planted contradiction; and the review screen."""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
import threading

import pytest
import yaml
from click.testing import CliRunner

from sttui.authoring.checking import check_paths
from sttui.cli import main
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, completion, say

TASK = ROOT / "tasks" / "stt" / "logistics" / "plasma-bridge-limit-s3-easy.yaml"
BASE = yaml.safe_load(TASK.read_text())
TRIGGERS = BASE["triggers"]
SOLUTION = BASE["solution"]
CHECKLIST = BASE["checklist"]
CONSISTENT = {"verdict": "consistent", "issues": []}
PLANTED = "the Kingsway Bridge is closed to all traffic"


def answers(**over):
    """A proposer's answers by stage (each a JSON-able object or text); the good one by default."""
    good = {
        "inject": {
            "title": "Plasma for a cardiac list when the bridge gets a weight limit",
            "description": "A weight limit on the bridge after the booking.",
            "triggers": TRIGGERS,
            "solution": SOLUTION,
        },
        "checklist": {"checklist": CHECKLIST},
        "audit": CONSISTENT,
    }
    return {**good, **over}


def auditor(request_text: str):
    """An auditor that reads what it is given and finds the planted contradiction: the design
    says the bridge is closed, yet the triggers only limit its weight (and the solution crosses)."""
    conflict = request_text.split("## conflict", 1)[1].split("## triggers", 1)[0]
    triggers = request_text.split("## triggers", 1)[1].split("## checklist", 1)[0]
    if PLANTED in conflict and "max_weight_t" in triggers:
        return {
            "verdict": "inconsistent",
            "issues": [
                {
                    "kind": "contradiction",
                    "where": "conflict design and triggers[0]",
                    "what": "the design closes the bridge, but the trigger only sets a 3.5 t limit the solution crosses",
                }
            ],
        }
    return CONSISTENT


def stub(script):
    """Answer each request by the stage its prompt names; record what was asked."""
    asked, lock = [], threading.Lock()

    def respond(request):
        text = request["messages"][0]["content"]
        stage = {
            "conflict injection": "inject",
            "checklist generation": "checklist",
            "consistency audit": "audit",
            "episode review": "episode",
        }[text.split("\n", 1)[0].removeprefix("Stage: ").rstrip(".")]
        with lock:
            asked.append((stage, request.get("seed"), text))
        answer = script[stage]
        if callable(answer):
            answer = answer(text)
        body = answer if isinstance(answer, str) else json.dumps(answer)
        return 200, completion(say(f"```json\n{body}\n```")), 0.0

    return respond, asked


@pytest.fixture
def domain(tmp_path):
    """A copy of the logistics domain's environment, and a scenario: the plasma task without
    its dynamic parts (never the bundled files)."""
    folder = tmp_path / "logistics"
    folder.mkdir()
    shutil.copy(TASK.parent / "env.py", folder / "env.py")
    scenario = {
        k: v
        for k, v in BASE.items()
        if k
        not in ("triggers", "checklist", "solution", "milestones", "minefields", "conflict", "level", "description")
    }
    scenario["id"] = "logistics-plasma-run"
    (tmp_path / "scenarios").mkdir()
    path = tmp_path / "scenarios" / "plasma-run.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    return folder, path


def draft(tmp_path, monkeypatch, domain, script, *extra):
    folder, scenario = domain
    respond, asked = stub(script)
    with StubServer(respond) as server:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{server.base}', retries: 0, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
        out = CliRunner().invoke(
            main,
            [
                "pipeline",
                "draft",
                str(scenario),
                "--domain",
                str(folder),
                "--subtype",
                "S3",
                "--level",
                "easy",
                "--model",
                "stub",
                "--seed",
                "40",
                "--random-seeds",
                "4",
                "-o",
                "d.json",
                "--candidates",
                "1",
                *extra,
            ],
        )
    assert out.exit_code == 0, out.output
    return json.loads((tmp_path / "d.json").read_text()), asked, out.output


def test_a_good_proposer_gives_a_candidate_that_passes_every_stage_and_all_is_recorded(tmp_path, monkeypatch, domain):
    record, asked, output = draft(tmp_path, monkeypatch, domain, answers(), "--candidates", "2")
    assert [c["status"] for c in record["candidates"]] == ["passed", "passed"], output
    c = record["candidates"][0]
    assert c["id"] == "logistics-plasma-run-s3-easy-0" and c["seed"] == 40
    assert set(c["stages"]) == {"inject", "checklist", "assessment", "audit"}
    assert all(s["ok"] for s in c["stages"].values())
    assert record["model"] == "stub" and record["seeds"] == [40, 41] and record["prompt_version"] == "task-draft/1"
    # every prompt is in the record: the shared injection prompt, each candidate's own others
    assert record["prompt"].startswith("Stage: conflict injection") and "S3 (route restriction" in record["prompt"]
    assert c["stages"]["checklist"]["prompt"].startswith("Stage: checklist generation")
    assert c["stages"]["audit"]["prompt"].startswith("Stage: consistency audit")
    assert sorted(seed for stage, seed, _ in asked if stage == "inject") == [40, 41]
    # the injection sees the scenario (naive plan included), never a solution or checklist
    inject = next(t for s, _, t in asked if s == "inject")
    assert "TRK-30" in inject and "## naive plan" in inject and "plasma-on-time" not in inject
    # the audit reads the query, state, conflict, triggers, checklist and level together
    audit = c["stages"]["audit"]["prompt"]
    for part in ("## query", "## initial state", "## conflict", "## triggers", "## checklist", "## level"):
        assert part in audit
    task = yaml.safe_load(c["task_yaml"])
    assert task["conflict"] == "S3" and task["triggers"] == TRIGGERS and task["checklist"] == CHECKLIST
    assert task["title"] == "Plasma for a cardiac list when the bridge gets a weight limit"
    assert "candidate 0 (seed 40) logistics-plasma-run-s3-easy-0: passed" in output


def test_injection_stage_refuses_triggers_the_world_cannot_have(tmp_path, monkeypatch, domain):
    bad = copy.deepcopy(TRIGGERS)
    bad[0]["effects"][0] = {"set": "bridges.0.max_weight_t", "value": 3.5}
    record, asked, _ = draft(tmp_path, monkeypatch, domain, answers(inject={"triggers": bad, "solution": SOLUTION}))
    [c] = record["candidates"]
    assert c["status"] == "failed" and c["failed_stage"] == "inject"
    assert "triggers[0].effects[0].set" in c["reasons"][0] and "bridges" in c["reasons"][0]
    assert "not run: checklist, assessment, audit" in c["reasons"][-1]
    assert [s for s, _, _ in asked] == ["inject"]  # kept, with why, and nothing more asked


def test_checklist_stage_refuses_items_the_environment_cannot_judge(tmp_path, monkeypatch, domain):
    items = [*CHECKLIST[:1], {"id": "teleported", "description": "x", "check": "teleported"}]
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(checklist={"checklist": items}))
    [c] = record["candidates"]
    assert c["status"] == "failed" and c["failed_stage"] == "checklist"
    assert any("checklist[1].check" in r for r in c["reasons"]), c["reasons"]
    assert "assessment" not in c["stages"]


def test_an_impossible_level_injects_then_needs_a_judge(tmp_path, monkeypatch, domain):
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(), "--level", "impossible")
    [c] = record["candidates"]
    assert c["stages"]["inject"]["ok"], c["stages"]["inject"]["problems"]  # no judge is needed yet
    assert c["failed_stage"] == "checklist" and "judge: an impossible task needs a judge" in c["reasons"][0]
    judge = {"reason": "no road", "evidence": ["bridge"]}
    record, _, _ = draft(
        tmp_path,
        monkeypatch,
        domain,
        answers(checklist={"checklist": CHECKLIST, "judge": judge}),
        "--level",
        "impossible",
    )
    [c] = record["candidates"]
    assert c["stages"]["checklist"]["ok"] and yaml.safe_load(c["task_yaml"])["judge"] == judge


def test_checklist_stage_refuses_code(tmp_path, monkeypatch, domain):
    items = [{"id": "x", "code": "assert state['shipments']"}]
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(checklist={"checklist": items}))
    [c] = record["candidates"]
    assert c["failed_stage"] == "checklist" and "code is not data" in c["reasons"][0]


def test_assessment_stage_fails_a_conflict_that_does_not_break_the_naive_plan(tmp_path, monkeypatch, domain):
    harmless = copy.deepcopy(TRIGGERS)
    harmless[0]["effects"] = [{"set": "travel.0.note", "value": "resurfacing next month"}]
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(inject={"triggers": harmless, "solution": SOLUTION}))
    [c] = record["candidates"]
    assert c["status"] == "failed" and c["failed_stage"] == "assessment"
    assert any("naive_plan passes the checklist" in r for r in c["reasons"]), c["reasons"]
    assert c["stages"]["assessment"]["controls"]  # check's own adversarial controls ran
    assert c["stages"]["audit"]["ok"]  # the audit still ran, for the reviewer


def test_the_auditor_finds_a_planted_contradiction(tmp_path, monkeypatch, domain):
    planted = {"description": f"Right after booking, {PLANTED}.", "triggers": TRIGGERS, "solution": SOLUTION}
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(inject=planted, audit=auditor))
    [c] = record["candidates"]
    assert c["stages"]["assessment"]["ok"], c["stages"]["assessment"]["problems"]
    assert c["status"] == "failed" and c["failed_stage"] == "audit"
    assert c["stages"]["audit"]["verdict"] == "inconsistent"
    assert c["stages"]["audit"]["issues"][0]["kind"] == "contradiction"
    assert "audit: contradiction: conflict design and triggers[0]" in c["reasons"][0]
    # the same auditor passes the candidate without the plant: it reads what it is given
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(audit=auditor))
    assert record["candidates"][0]["status"] == "passed"


def test_an_unreadable_audit_is_a_failed_stage(tmp_path, monkeypatch, domain):
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers(audit="looks fine to me"))
    [c] = record["candidates"]
    assert c["failed_stage"] == "audit" and "the auditor's answer" in c["reasons"][0]


def test_the_bundled_scenario_reads_as_one():
    from sttui.drafting.tasks import read_scenario

    scenario = read_scenario(ROOT / "scenarios" / "logistics" / "plasma-run.yaml", ROOT / "tasks" / "stt" / "logistics")
    assert scenario.data["id"] == "logistics-plasma-run" and "get_route" in scenario.env_cls.tool_specs


def test_bad_scenarios_get_one_line(tmp_path, monkeypatch, domain):
    folder, scenario = domain
    data = yaml.safe_load(scenario.read_text())
    monkeypatch.chdir(tmp_path)
    for change, expect in (
        ({"triggers": TRIGGERS}, "triggers: a scenario has no triggers"),
        ({"query": None}, "query"),
        ({"env": "nowhere.env:Nope"}, "env:"),
    ):
        bad = {**data, **change}
        if change.get("query", 1) is None:
            del bad["query"]
        scenario.write_text(yaml.safe_dump(bad))
        out = CliRunner().invoke(
            main,
            [
                "pipeline",
                "draft",
                str(scenario),
                "--domain",
                str(folder),
                "--subtype",
                "S3",
                "--level",
                "easy",
                "--model",
                "openai/none",
            ],
        )
        assert out.exit_code == 1 and expect in out.output and "Traceback" not in out.output
        assert len(out.output.strip().splitlines()) == 1, out.output


def test_a_failing_model_or_a_broken_record_gets_one_line(tmp_path, monkeypatch, domain):
    from tests.helpers.stub_openai import error

    folder, scenario = domain
    with StubServer(lambda request: error(500, "overloaded")) as server:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{server.base}', retries: 0, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
        out = CliRunner().invoke(
            main,
            [
                "pipeline",
                "draft",
                str(scenario),
                "--domain",
                str(folder),
                "--subtype",
                "S3",
                "--level",
                "easy",
                "--model",
                "stub",
                "-o",
                "d.json",
            ],
        )
    assert out.exit_code == 1 and "the model failed, no draft written" in out.output
    assert len(out.output.strip().splitlines()) == 1 and not (tmp_path / "d.json").exists()
    record, _, _ = draft(tmp_path, monkeypatch, domain, answers())
    for breakage, expect in (
        (lambda r: r["candidates"][0].pop("reasons"), "candidates[0]: reasons or stages is missing"),
        (lambda r: r["candidates"][0].update(id="../../escape"), "candidates[0]: id is not lowercase"),
        (lambda r: r.update(format="other"), "neither a task draft nor an episode review"),
    ):
        broken = copy.deepcopy(record)
        breakage(broken)
        (tmp_path / "b.json").write_text(json.dumps(broken))
        for command in ("show", "review"):
            out = CliRunner().invoke(main, ["pipeline", command, "b.json"])
            assert out.exit_code == 1 and expect in out.output, out.output
            assert len(out.output.strip().splitlines()) == 1


# -- the review screen ------------------------------------------------------------------


async def _screen(app, pilot):
    from sttui.tui.candidates import CandidatesScreen
    from tests.tui_helpers import wait_for

    await wait_for(pilot, lambda: isinstance(app.screen, CandidatesScreen))
    return app.screen


def _review(tmp_path, domain):
    from sttui.drafting.review import open_review
    from sttui.drafting.tasks import read_task_draft
    from sttui.tui.candidates import CandidatesApp

    folder, scenario = domain
    path = tmp_path / "d.json"
    return CandidatesApp(open_review(read_task_draft(path), path, scenario, folder)), path


def test_review_follows_no_path_in_the_record(tmp_path, monkeypatch, domain):
    """A record is data: the scenario and domain (code is imported from there, files written
    there) are named by the reviewer, and must be the draft's."""
    folder, scenario = domain
    draft(tmp_path, monkeypatch, domain, answers())
    out = CliRunner().invoke(main, ["pipeline", "review", "d.json"])
    assert out.exit_code == 1 and "name the draft's scenario (--scenario FILE)" in out.output
    other = tmp_path / "other.yaml"
    other.write_text(scenario.read_text().replace("id: logistics-plasma-run", "id: logistics-other-run"))
    out = CliRunner().invoke(main, ["pipeline", "review", "d.json", "--scenario", str(other), "--domain", str(folder)])
    assert out.exit_code == 1 and "is scenario logistics-other-run, not the draft's logistics-plasma-run" in out.output
    scenario.write_text(scenario.read_text().replace("Please sort it.", "Please sort it today."))
    out = CliRunner().invoke(
        main, ["pipeline", "review", "d.json", "--scenario", str(scenario), "--domain", str(folder)]
    )
    assert out.exit_code == 1 and "changed since the draft" in out.output
    out = CliRunner().invoke(main, ["pipeline", "review", "e.json"])
    assert out.exit_code == 1 and "no such file" in out.output


async def test_review_accept_writes_a_task_beside_the_domains_that_check_passes(tmp_path, monkeypatch, domain):
    from tests.tui_helpers import wait_for

    folder, _ = domain
    draft(tmp_path, monkeypatch, domain, answers())
    app, path = _review(tmp_path, domain)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        detail = str(screen.query_one("#cand-detail").render())
        assert "audit: consistent" in detail and "checks: ok" in detail and "+triggers:" in detail
        # readable at 80x24: the rows, the detail pane and the keys all have room
        assert screen.query_one("#cand-items").region.height >= 4
        assert screen.query_one("#cand-side").region.height >= 8
        assert screen.query_one("#cand-side").region.width == 80
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy and screen.said)
        assert screen.said.startswith("accepted"), screen.said
    written = folder / "logistics-plasma-run-s3-easy-0.yaml"
    assert written.is_file()
    [report] = await asyncio.to_thread(check_paths, [written], 4)  # check runs its own event loop
    assert report.ok, report.problems
    saved = json.loads(path.read_text())
    assert saved["candidates"][0]["review"]["decision"] == "accepted"


async def test_review_reject_writes_no_task_and_a_failed_candidate_cannot_be_accepted(tmp_path, monkeypatch, domain):
    from tests.tui_helpers import wait_for

    folder, _ = domain
    harmless = copy.deepcopy(TRIGGERS)
    harmless[0]["effects"] = [{"set": "travel.0.note", "value": "resurfacing next month"}]
    draft(tmp_path, monkeypatch, domain, answers(inject={"triggers": harmless, "solution": SOLUTION}))
    app, path = _review(tmp_path, domain)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy and screen.said)
        assert "fails the assessment" in screen.said
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.said.startswith("rejected"))
    assert sorted(p.name for p in folder.iterdir()) == ["env.py"]
    assert json.loads(path.read_text())["candidates"][0]["review"]["decision"] == "rejected"


async def test_review_edit_fixes_a_candidate_which_is_then_accepted(tmp_path, monkeypatch, domain):
    from textual.widgets import TextArea

    from tests.tui_helpers import wait_for

    folder, _ = domain
    harmless = copy.deepcopy(TRIGGERS)
    harmless[0]["effects"] = [{"set": "travel.0.note", "value": "resurfacing next month"}]
    draft(tmp_path, monkeypatch, domain, answers(inject={"triggers": harmless, "solution": SOLUTION}))
    app, path = _review(tmp_path, domain)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        await pilot.press("e")
        editor = screen.query_one("#cand-editor", TextArea)
        assert editor.display and "resurfacing" in editor.text
        proposal = editor.text
        editor.load_text("- not: a task")  # refused in one line; the candidate stays as it was
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not screen.busy and screen.said == "expected a task (a mapping with an id)")
        assert screen.review.items[0].get("edited") is None
        await pilot.press("e")
        assert editor.text == proposal
        fixed = yaml.safe_load(editor.text)
        fixed["triggers"] = TRIGGERS
        editor.load_text(yaml.safe_dump(fixed, sort_keys=False))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not screen.busy and screen.said.startswith("edited"))
        assert "checks pass" in screen.said, screen.said
        assert "(edited)" in str(screen.query_one("#cand-detail").render())
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy and screen.said.startswith("accepted"))
    written = folder / "logistics-plasma-run-s3-easy-0.yaml"
    assert "max_weight_t" in written.read_text()
    saved = json.loads(path.read_text())["candidates"][0]
    assert saved["edited"] and "resurfacing" in saved["proposed_yaml"]
    assert saved["stages"]["audit"]["of"].startswith("the candidate as proposed")


# -- explore episodes -------------------------------------------------------------------


@pytest.fixture
def staged(tmp_path):
    folder = tmp_path / "staging" / "finance"
    folder.mkdir(parents=True)
    shutil.copytree(ROOT / "tasks" / "explore" / "catalogs", tmp_path / "staging" / "catalogs")
    for name in ("additive-1.yaml", "conjunctive-1.yaml"):
        shutil.copy(ROOT / "tasks" / "explore" / "finance" / name, folder / name)
    return folder


def rater(text):
    good = {"realism": 4, "change_plausibility": 4, "distractor_quality": 4, "verdict": "accept", "reasons": ["fine"]}
    if "family: conjunctive" in text:
        return {**good, "change_plausibility": 2, "verdict": "reject", "reasons": ["the reversal has no reason"]}
    return good


async def test_episodes_a_model_or_a_person_rejects_are_not_bundled(tmp_path, monkeypatch, staged):
    from sttui.drafting.episodes import read_episode_review
    from sttui.drafting.review import open_review
    from sttui.tui.candidates import CandidatesApp
    from tests.tui_helpers import wait_for

    respond, _ = stub({"episode": rater})
    into = tmp_path / "bundle" / "finance"
    with StubServer(respond) as server:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{server.base}', retries: 0, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
        out = CliRunner().invoke(
            main, ["pipeline", "rate", str(staged), "--model", "stub", "--into", str(into), "-o", "e.json"]
        )
    assert out.exit_code == 0, out.output
    record = read_episode_review(tmp_path / "e.json")
    status = {e["file"].rsplit("/", 1)[1]: e["status"] for e in record["episodes"]}
    assert status == {"additive-1.yaml": "passed", "conjunctive-1.yaml": "failed"}
    rejected = next(e for e in record["episodes"] if e["status"] == "failed")
    assert "the model rejects it: the reversal has no reason" in rejected["reasons"][0]
    assert "change_plausibility rated 2" in " ".join(rejected["reasons"])

    app = CandidatesApp(open_review(record, tmp_path / "e.json", into=into))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        assert "realism 4/5" in str(screen.query_one("#cand-detail").render())
        await pilot.press("down", "a")  # the one the model rejected: refused
        await wait_for(pilot, lambda: not screen.busy and screen.said)
        assert "cannot be bundled" in screen.said
        await pilot.press("up", "r")  # the person rejects the one the model passed
        await wait_for(pilot, lambda: screen.said.startswith("rejected"))
    assert not into.exists()  # nothing bundled

    record = read_episode_review(tmp_path / "e.json")
    assert record["episodes"][0]["review"]["decision"] == "rejected"
    record["episodes"][0]["review"] = None  # a fresh review of the same episode, accepted this time
    app = CandidatesApp(open_review(record, tmp_path / "e.json", into=into))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        await pilot.press("e")  # an edit that breaks it is checked again: it can no longer be bundled
        editor = screen.query_one("#cand-editor")
        proposal = editor.text
        editor.load_text(proposal.replace("family: additive", "family: telepathic"))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not screen.busy and screen.said.startswith("edited"))
        assert "checks FAIL" in screen.said
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy and "cannot be bundled" in screen.said)
    assert not into.exists() or not any(into.iterdir())  # the edit's check left nothing behind

    record = read_episode_review(tmp_path / "e.json")
    entry = record["episodes"][0]
    assert entry["edited"] and entry["proposed_text"] == proposal and entry["rating"]["of"].startswith("the episode")
    # a record is data: one that calls the broken edit passed is checked again before bundling
    record["episodes"][0] = {**entry, "status": "passed", "reasons": [], "check": {"ok": True, "problems": []}}
    app = CandidatesApp(open_review(record, tmp_path / "e.json", into=into))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: not screen.busy and "check fails episode" in screen.said)
    assert not any(into.iterdir())
    record["episodes"][0].update(text=proposal, review=None)
    app = CandidatesApp(open_review(record, tmp_path / "e.json", into=into))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(app, pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.said.startswith("accepted"))
    assert sorted(p.name for p in into.iterdir()) == ["additive-1.yaml"]


def test_files_that_are_not_episodes_are_kept_with_why_and_never_sent_to_the_model(tmp_path, monkeypatch, staged):
    (staged / "bin.yaml").write_bytes(bytes(range(128, 256)) * 10)
    (staged / "broken.yaml").write_text("kind: explore\nid: [\n")
    respond, asked = stub({"episode": rater})
    with StubServer(respond) as server:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{server.base}'}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
        out = CliRunner().invoke(
            main, ["pipeline", "rate", str(staged), "--model", "stub", "--into", "b", "-o", "e.json"]
        )
    assert out.exit_code == 0, out.output
    assert len(asked) == 2  # the two episodes only
    reasons = {e["id"]: e["reasons"] for e in json.loads((tmp_path / "e.json").read_text())["episodes"]}
    assert "cannot read" in reasons["bin"][0] and "malformed YAML" in reasons["broken"][0]
    assert reasons["broken"][1] == "rating: not rated: it does not load as an explore episode"
