"""Drafting a milestone graph by consensus (DynSTEER §3.2): candidates from a stub model over
real HTTP through litellm, their validation, leak flags, the vote, the record, accepting into a
copy of a bundled task, and the review screen."""

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
from sttui.core.loader import load_task
from sttui.core.review import consensus as cs
from sttui.drafting import record as rec
from sttui.drafting.write import replace_blocks
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, completion, say

BUNDLED = ROOT / "tasks" / "stt" / "air-travel" / "linate-closure-s2-easy.yaml"
BASE = yaml.safe_load(BUNDLED.read_text())
SOLUTION_SAY = BASE["solution"][-1]["say"]


@pytest.fixture
def task_file(tmp_path):
    """A copy of a bundled task with its environment module beside it (never the bundled file)."""
    folder = tmp_path / "air"
    folder.mkdir()
    shutil.copy(BUNDLED, folder / BUNDLED.name)
    shutil.copy(BUNDLED.parent / "env.py", folder / "env.py")
    return folder / BUNDLED.name


def graph(milestones, minefields, plan=("read the booking", "rebook", "check in", "tell her")):
    return {"plan": list(plan), "milestones": milestones, "minefields": minefields}


def renamed(rules, prefix):
    """The same rules under other ids, constraints in reverse order: equivalent by signature."""
    out = copy.deepcopy(rules)
    for r in out:
        r["id"] = prefix + r["id"]
        if "after" in r:
            r["after"] = [prefix + a for a in r["after"]]
        r["constraints"] = list(reversed(r["constraints"]))
    return out


MS = BASE["milestones"]  # sees-closure, rebooked-mxp (after sees), checked-in (after rebooked), told-user (after sees)
MF = BASE["minefields"]  # rebooks-into-linate (fatal), lands-too-late (warn)
TOOL_ONLY = [{"selector": "call.tool", "operator": "equals", "expected": "search_flights", "hard": True}]


def candidates() -> list[str]:
    """Seven answers: three that vote (agreeing on most, disagreeing on some), one cyclic, one
    naming a tool that does not exist, one leaking the solution's exact arguments, one garbage."""
    a = graph(MS, MF)
    b_ms = [
        *renamed(MS, "b-"),
        {"id": "b-searched", "name": "Searches", "after": ["b-sees-closure"], "constraints": TOOL_ONLY},
    ]
    b_ms[3]["after"] = ["b-checked-in"]  # told-user after checked-in: one voter alone orders them
    b = graph(b_ms, renamed(MF[:1], "b-"))
    c_ms = copy.deepcopy(MS[:3])
    c_ms[2]["after"] = ["rebooked-mxp", "sees-closure"]  # a redundant edge: the reduction removes it
    c_ms.append(
        {"id": "c-airport", "name": "Looks at LIN", "constraints": [{**TOOL_ONLY[0], "expected": "get_airport"}]}
    )
    c = graph(c_ms, MF[:1])
    cyclic = copy.deepcopy(MS)
    cyclic[0]["after"] = ["checked-in"]
    bad_tool = [
        *copy.deepcopy(MS),
        {"id": "beams", "name": "Beams her", "constraints": [{**TOOL_ONLY[0], "expected": "teleport"}]},
    ]
    leak = [
        *copy.deepcopy(MS),
        {
            "id": "moved",
            "name": "Rebooks",
            "constraints": [
                {"selector": "call.tool", "operator": "equals", "expected": "rebook", "hard": True},
                {"selector": "call.args.locator", "operator": "equals", "expected": "ZR8TQA"},
                {"selector": "call.args.from_flights", "operator": "equals", "expected": ["BA576"]},
                {"selector": "call.args.to_flights", "operator": "equals", "expected": ["BA582"]},
            ],
        },
    ]
    answers = [a, b, c, graph(cyclic, []), graph(bad_tool, []), graph(leak, MF)]
    texts = [f"```json\n{json.dumps(x)}\n```" for x in answers]
    return [*texts, "I would rather not draw graphs today."]


def scripted(answers: list[str], first_seed: int = 40):
    """The stub answers the request sampled with seed S+i with candidate i (requests arrive in
    any order: they are sent at once)."""
    lock, sent = threading.Lock(), []

    def respond(request):
        with lock:
            sent.append(request.get("seed"))
        return 200, completion(say(answers[(request["seed"] - first_seed) % len(answers)])), 0.0

    return respond, sent


def run_draft(tmp_path, monkeypatch, task_file, answers, *extra):
    respond, seeds = scripted(answers)
    with StubServer(respond) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 0, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # its sttui.yaml points a model at the stub server
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
        out = CliRunner().invoke(
            main, ["milestones", "draft", str(task_file), "--model", "stub", "--seed", "40", "-o", "d.json", *extra]
        )
    return out, stub, seeds


def test_a_draft_merges_the_valid_candidates_by_majority_and_records_everything(tmp_path, monkeypatch, task_file):
    out, stub, seeds = run_draft(tmp_path, monkeypatch, task_file, candidates(), "--candidates", "7")
    assert out.exit_code == 0, out.output
    draft = json.loads((tmp_path / "d.json").read_text())
    # the prompt holds what an agent knows, never the solution, checklist, triggers or milestones
    sent = stub.requests[0]["messages"][0]["content"]
    assert "ZR8TQA" in sent and "rebook" in sent and "Giulia" in sent
    for hidden in (
        SOLUTION_SAY,
        "reaches-milan",
        "linate-fog-closure",
        "sees-closure",
        "latest_arrival",
        "ILS failure",
    ):
        assert hidden not in sent
    assert sorted(seeds) == [40, 41, 42, 43, 44, 45, 46]  # candidate i sampled with seed S+i
    assert [c["seed"] for c in draft["candidates"]] == [40, 41, 42, 43, 44, 45, 46]
    assert draft["candidates"][0]["usage"] == {
        "prompt_tokens": 120,
        "completion_tokens": 20,
        "cost": None,
        "retries": 0,
    }

    status = {c["index"]: c["status"] for c in draft["candidates"]}
    assert status == {0: "valid", 1: "valid", 2: "valid", 3: "invalid", 4: "invalid", 5: "leaking", 6: "invalid"}
    why = {c["index"]: " ".join(c["problems"] + c["leaks"]) for c in draft["candidates"]}
    assert "cycle" in why[3]
    assert "no tool 'teleport'" in why[4]
    assert "pins solution step 5's exact arguments: rebook(" in why[5]
    assert "no JSON object" in why[6]
    assert draft["candidates"][1]["raw"].startswith("```json") and draft["candidates"][1]["parsed"]["plan"]

    assert draft["model"] == "stub" and draft["prompt_version"] == "milestones-draft/1" and draft["seed"] == 40
    vote = draft["vote"]
    assert vote["voters"] == [0, 1, 2] and vote["quorum"] == 2
    support = {v["id"]: (len(v["support"]), v["kept"]) for v in vote["milestones"]}
    assert support == {
        "sees-closure": (3, True),
        "rebooked-mxp": (3, True),
        "checked-in": (3, True),
        "told-user": (2, True),  # two of three: at least half
        "b-searched": (1, False),
        "c-airport": (1, False),
    }
    assert {v["id"]: v["kept"] for v in vote["minefields"]} == {"rebooks-into-linate": True, "lands-too-late": False}
    assert ["sees-closure", "checked-in"] in vote["redundant"]  # transitive reduction
    edges = {(e["before"], e["after"]): (len(e["support"]), e["kept"]) for e in vote["edges"]}
    assert edges[("checked-in", "told-user")] == (1, False)  # one of three voters: dropped
    assert edges[("sees-closure", "told-user")] == (2, True)
    after = {m["id"]: m.get("after", []) for m in draft["consensus"]["milestones"]}
    assert after == {
        "sees-closure": [],
        "rebooked-mxp": ["sees-closure"],
        "checked-in": ["rebooked-mxp"],
        "told-user": ["sees-closure"],
    }
    assert draft["checks"]["ok"] is True, draft["checks"]

    # re-examined and re-merged from the record alone: no request reaches a model
    shown = CliRunner().invoke(main, ["milestones", "show", "d.json"])
    assert (
        shown.exit_code == 0 and "candidate 4 (seed 44): invalid: milestones[4].constraints[0].expected" in shown.output
    )
    again = rec.remerge(load_task(task_file), draft)
    assert again["consensus"] == draft["consensus"] and again["vote"] == draft["vote"]


def test_accept_writes_the_graph_in_place_and_the_task_passes_check(tmp_path, monkeypatch, task_file):
    out, _, _ = run_draft(tmp_path, monkeypatch, task_file, candidates(), "--candidates", "7")
    assert out.exit_code == 0, out.output
    before = task_file.read_text()
    done = CliRunner().invoke(
        main,
        ["milestones", "accept", "d.json", str(task_file), "--only", "sees-closure,checked-in,rebooks-into-linate"],
    )
    assert done.exit_code == 0, done.output
    text = task_file.read_text()
    head = before[: before.index("\nmilestones:")]
    assert text.startswith(head)  # every byte before the graph is as it was
    loaded = load_task(task_file)
    assert [(m.id, m.after) for m in loaded.task.milestones] == [("sees-closure", []), ("checked-in", ["sees-closure"])]
    assert [f.id for f in loaded.task.minefields] == ["rebooks-into-linate"]
    assert loaded.task.milestones_origin.method == "consensus" and loaded.task.milestones_origin.model == "stub"
    [report] = check_paths([task_file], seeds=2)
    assert report.ok, report.problems
    assert report.graph == "consensus"


def test_a_graph_that_fails_the_checks_is_not_written(tmp_path, monkeypatch, task_file):
    drafted, _, _ = run_draft(tmp_path, monkeypatch, task_file, candidates(), "--candidates", "7")
    assert drafted.exit_code == 0
    before = task_file.read_text()
    done = CliRunner().invoke(main, ["milestones", "accept", "d.json", str(task_file), "--only", "sees-closure"])
    assert done.exit_code == 1
    assert "naive_plan settles every milestone" in done.output and "Traceback" not in done.output
    assert task_file.read_text() == before


def test_bad_input_gets_one_line(tmp_path, monkeypatch, task_file):
    out, _, _ = run_draft(tmp_path, monkeypatch, task_file, ["no graph here"], "--candidates", "2")
    assert out.exit_code == 0 and "no milestone reached the quorum" in out.output
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    broken = json.loads((tmp_path / "d.json").read_text())
    broken["candidates"][0].pop("raw")
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    for args in (
        ["milestones", "show", "x.json"],
        ["milestones", "show", "missing.json"],
        ["milestones", "show", "broken.json"],
        ["milestones", "merge", "d.json", str(ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml")],
        ["milestones", "accept", "x.json", str(task_file)],
        ["milestones", "draft", str(tmp_path / "nope.yaml"), "--model", "stub"],
        ["milestones", "draft", str(task_file)],
    ):
        res = CliRunner().invoke(main, args)
        assert res.exit_code in (1, 2), args
        assert res.output.count("\n") == 1 and res.output.startswith("error: "), res.output
    with StubServer(lambda request: (500, {"error": {"message": "down"}}, 0.0)) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 0, backoff: 0.01}}\n"
        )
        res = CliRunner().invoke(main, ["milestones", "draft", str(task_file), "--model", "stub", "-o", "e.json"])
    assert res.exit_code == 1 and res.output.startswith("error: the model failed, no draft written")
    assert not (tmp_path / "e.json").exists()


def test_the_solution_fallback_is_explicit_and_check_names_it(tmp_path, task_file):
    loaded = load_task(task_file)
    bare = replace_blocks(task_file.read_text(), {"milestones": [], "minefields": []})
    task_file.write_text(bare)
    [report] = check_paths([task_file], seeds=2)
    assert report.graph == "none" and not any("derived" in n for n in report.notes)  # nothing derived silently
    draft = rec.from_solution(load_task(task_file))
    assert draft["method"] == "solution" and draft["checks"]["ok"]
    ms, mf = rec.consensus_rules(draft)
    rec.accept(load_task(task_file), draft, ms, mf, "sol.json")
    [report] = check_paths([task_file], seeds=2)
    assert report.ok and report.graph == "solution"
    assert any("derived from the solution" in n for n in report.notes)
    out = CliRunner().invoke(main, ["check", str(task_file), "--random-seeds", "2"])
    assert out.exit_code == 0 and "milestones derived from the solution" in out.output  # said without -v
    assert loaded.id == report.task_id


def test_signatures_ignore_ids_order_and_values_but_not_tools():
    m = load_task(BUNDLED).task.milestones
    other = m[1].model_copy(update={"id": "x", "constraints": list(reversed(m[1].constraints))})
    assert cs.signature(other) == cs.signature(m[1])
    assert cs.signature(m[1]) != cs.signature(m[2])
    from sttui.core.review.model import Milestone

    def tool(name):
        return Milestone(
            id="t", name="t", constraints=[{"selector": "call.tool", "operator": "equals", "expected": name}]
        )

    assert cs.signature(tool("rebook")) != cs.signature(tool("check_in"))
    assert cs.quorum(3) == 2 and cs.quorum(4) == 2 and cs.quorum(1) == 1


def test_the_loader_refuses_a_call_argument_the_named_tools_lack(tmp_path, task_file):
    data = yaml.safe_load(task_file.read_text())
    data["minefields"][0]["constraints"][1]["selector"] = "call.args.to_flight"
    task_file.write_text(yaml.safe_dump(data, sort_keys=False))
    from sttui.core.problems import TaskFileError

    with pytest.raises(TaskFileError, match="no parameter 'to_flight' in book_flight or rebook"):
        load_task(task_file)


# -- the review screen ------------------------------------------------------------------


async def test_review_screen_accept_edit_drop_then_write(tmp_path, task_file):
    from textual.widgets import Input

    from sttui.tui.drafting import DraftingApp, DraftScreen
    from tests.tui_helpers import wait_for

    loaded = load_task(task_file)
    answers = [{"seed": i, "raw": text} for i, text in enumerate(candidates())]
    draft = rec.new_draft(loaded, answers, method="consensus", model="stub", prompt_version="p/1", seed=0)
    before = task_file.read_text()
    app = DraftingApp(loaded, draft, "d.json")
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DraftScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.checked_generation == screen.generation)
        await pilot.press("a")  # sees-closure
        await pilot.press("down", "a")  # rebooked-mxp
        assert [i.label for i in screen.items][:4] == ["sees-closure", "rebooked-mxp", "told-user", "checked-in"]
        await pilot.press("down", "e")  # told-user: a new description
        await wait_for(pilot, lambda: bool(app.screen.query("#value")))
        field = app.screen.query_one("#value", Input)
        edited = json.loads(field.value)
        for bad, why in (('{"constraints": []}', "constraints"), ('{"after": []}', "not after"), ("{", "not JSON")):
            field.value = bad
            await pilot.press("enter")  # refused: the dialog stays, saying why
            await pilot.pause()
            assert why in str(app.screen.query_one("#edit-error").render())
        edited["description"] = "tells her she flies to Malpensa now"
        field.value = json.dumps(edited)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("down", "d")  # checked-in
        decisions = {i.label: i.decision for i in screen.items}
        assert decisions == {
            "sees-closure": "accepted",
            "rebooked-mxp": "accepted",
            "told-user": "edited",
            "checked-in": "dropped",
            "rebooks-into-linate": "pending",
        }
        await wait_for(pilot, lambda: screen.checked_generation == screen.generation)  # re-run on each change
        assert screen.checks["ok"], screen.checks
        await pilot.press("w")
        await wait_for(pilot, lambda: screen.written is not None)
    assert task_file.read_text() != before
    written = load_task(task_file)
    assert [(m.id, m.after) for m in written.task.milestones] == [
        ("sees-closure", []),
        ("rebooked-mxp", ["sees-closure"]),
        ("told-user", ["sees-closure"]),
    ]
    assert written.task.milestones[2].description == "tells her she flies to Malpensa now"
    assert written.task.minefields == []  # undecided: not accepted
    [report] = await asyncio.to_thread(check_paths, [task_file], 2)  # check runs its own event loop
    assert report.ok, report.problems


def test_replacing_blocks_keeps_every_other_line():
    text = (
        "id: x  # the id\n"
        "milestones:\n"
        "  - id: old\n"
        "    constraints:\n"
        "      - {selector: call.tool, operator: equals, expected: a}\n"
        "\n"
        "# the review settings\n"
        "review: {stagnation: 4}\n"
        "minefields: []\n"
    )
    rule = {
        "id": "new",
        "name": "New: one",
        "constraints": [{"selector": "call.tool", "operator": "equals", "expected": "b"}],
    }
    out = replace_blocks(text, {"milestones": [rule], "minefields": [], "milestones_origin": {"method": "hand"}})
    assert out == (
        "id: x  # the id\n"
        "milestones:\n"
        "  - id: new\n"
        "    name: 'New: one'\n"
        "    constraints:\n"
        "      - {selector: call.tool, operator: equals, expected: b}\n"
        "\n"
        "# the review settings\n"
        "review: {stagnation: 4}\n"
        "milestones_origin: {method: hand}\n"
    )
    assert yaml.safe_load(out)["milestones"][0] == rule


def test_a_rule_expecting_the_solutions_exact_message_leaks():
    from sttui.core.review.model import Milestone

    task = load_task(BUNDLED).task
    told = Milestone(
        id="told",
        name="Tells her",
        constraints=[{"selector": "message.text", "operator": "fuzzy_match", "expected": SOLUTION_SAY}],
    )
    assert cs.leaks([told], [], task.solution) == ["told expects the solution's exact message to the user"]
    vague = Milestone(
        id="told",
        name="Tells her",
        constraints=[{"selector": "message.text", "operator": "contains", "expected": "Malpensa"}],
    )
    assert cs.leaks([vague], [], task.solution) == []


async def test_review_screen_says_none_accepted_yet_and_asks_before_dropping_decisions(tmp_path, task_file):
    """Before any milestone is accepted the checks say so (not "FAIL: no milestone reached the
    quorum", which is the vote's verdict); escape with decisions not written asks first."""
    from sttui.tui.drafting import NONE_ACCEPTED, DraftingApp, DraftScreen
    from sttui.tui.modals import Confirm
    from tests.tui_helpers import wait_for

    loaded = load_task(task_file)
    answers = [{"seed": i, "raw": text} for i, text in enumerate(candidates())]
    draft = rec.new_draft(loaded, answers, method="consensus", model="stub", prompt_version="p/1", seed=0)
    app = DraftingApp(loaded, draft, "d.json")
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DraftScreen))
        screen = app.screen
        checks = str(screen.query_one("#draft-checks").render())
        assert NONE_ACCEPTED in checks and "FAIL" not in checks and "quorum" not in checks
        await pilot.press("a", "down", "d")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, Confirm))
        assert "lose 2 decision(s) not written" in str(app.screen.query_one("#question").render())
        await pilot.press("n")  # stay: the decisions are still there
        await wait_for(pilot, lambda: app.screen is screen)
        assert [i.decision for i in screen.items][:2] == ["accepted", "dropped"]
        await pilot.press("escape", "y")
        await wait_for(pilot, lambda: not app.is_running)


def test_a_solution_that_changes_nothing_gives_no_draft_and_says_why(tmp_path):
    """An outside tester drafted from an impossible task's solution: a draft of no candidate
    was written, "vote: 0 voter(s), quorum 0", and accept refused it for a quorum."""
    task = ROOT / "tasks" / "stt" / "air-travel" / "keflavik-ash-closure-s2-impossible.yaml"
    out = tmp_path / "draft.json"
    result = CliRunner().invoke(main, ["milestones", "draft", str(task), "--from-solution", "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert "the solution changes nothing a milestone can check" in result.output
    assert "quorum" not in result.output and not out.exists()
