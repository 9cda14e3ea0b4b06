"""Refining a recorded trajectory: edits, verification on replay, saving with lineage."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.core.actions import Say, ToolCall
from sttui.exports.versions import load_version
from sttui.lineage.refining import Edit, EditError, Refinement, apply_edits, parse_edits, verify
from sttui.store.store import Store
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.conftest import cli_raising as cli

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
# the naive plan: 1 get_vehicle_status(TRK-7) 2 create_shipment 3 assign_vehicle(TRK-7) 4 dispatch 5 say;
# the solution also lists the reefer vans (list_vehicles) and assigns TRK-9
FIX = [
    "--set",
    "3.args.vehicle_id=TRK-9",
    "--drop",
    "5",
    "--insert",
    "1:list_vehicles(location='HUB-NORTH')",
    "--insert",
    "6:> TRK-7's refrigeration failed, so the insulin went on reefer van TRK-9.",
    "--move",
    "1:2",
]


@pytest.fixture
def naive(tmp_path):
    """A store holding one failed naive-plan episode; returns (db url, its id)."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert cli(db, "run", TASK, "--agent", "baseline:naive").exit_code == 0
    store = Store(db)
    (record,) = store.list_episodes()
    assert record.outcome["passed"] is False
    return db, record.id


def verify_steps(r: Refinement, steps):
    return verify(r.loaded, r.record, r.events, steps)


def refinement(db: str, ep: str) -> Refinement:
    store = Store(db)
    record = store.episode(ep)
    return Refinement.of(load_version(store, record), record, store.events(record.id))


def test_batch_refinement_saves_a_passing_episode_with_its_lineage(naive):
    db, ep = naive
    out = cli(db, "refine", ep, *FIX, "--save", "--demonstration", "--as", "ana", "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["passed"] is True and report["stage_score"] == 1.0
    assert [s["action"].split("(")[0] for s in report["steps"]][:5] == [
        "get_vehicle_status",
        "list_vehicles",
        "create_shipment",
        "assign_vehicle",
        "dispatch",
    ]
    store = Store(db)
    saved = store.episode(report["saved"])
    assert saved.id != ep and saved.outcome["passed"] is True and not saved.clean_baseline
    lineage = saved.scores["lineage"]
    assert lineage["refined_from"] == ep and lineage["editor"] == "human:ana"
    assert [e["op"] for e in lineage["edits"]] == ["set", "drop", "insert", "insert", "move"]
    assert lineage["verification"]["passed"] is True and saved.scores["demonstration"] is True
    started = store.events(saved.id)[0]
    assert started.type == "episode_started" and started.payload["lineage"] == lineage
    # the original is unchanged, and the saved episode replays as recorded
    assert store.episode(ep).outcome["passed"] is False and "lineage" not in (store.episode(ep).scores or {})
    replay = json.loads(cli(db, "replay", saved.id, "--json").output)
    assert replay["reproduces_record"] is True and replay["rescored"]["passed"] is True


def test_a_failing_refinement_exits_1_and_is_no_demonstration(naive):
    db, ep = naive
    out = cli(db, "refine", ep, "--drop", "4")  # never dispatched
    assert out.exit_code == 1 and out.output.rstrip().endswith("FAILED") and "✗ delivered" in out.output
    out = cli(db, "refine", ep, "--drop", "4", "--save", "--demonstration")
    assert out.exit_code == 1 and "not a demonstration" in out.output and "nothing was saved" in out.output
    assert len(Store(db).list_episodes()) == 1
    out = cli(db, "refine", ep, "--drop", "4", "--save")  # saved, but not as a demonstration
    assert out.exit_code == 1 and "saved as episode" in out.output
    saved = next(r for r in Store(db).list_episodes() if r.id != ep)
    assert saved.outcome["passed"] is False and "demonstration" not in saved.scores


def test_an_edit_that_breaks_a_later_call_is_reported_per_step(naive):
    db, ep = naive
    out = cli(db, "refine", ep, "--drop", "2", "--json")  # no create_shipment: SHP-1 never exists
    report = json.loads(out.output)
    assert out.exit_code == 1
    assert [s["error"] for s in report["steps"]][:3] == [None, "no shipment SHP-1", "no shipment SHP-1"]
    out = cli(db, "refine", ep, "--set", "3.args.vehicle_id=7")  # the engine's argument check refuses it
    assert "3  assign_vehicle(shipment_id=SHP-1, vehicle_id=7)  REFUSED: " in out.output
    assert "vehicle_id must be a string" in out.output and "FAILED (1 refused step(s))" in out.output


def test_the_checklist_is_shown_step_by_step_against_the_original(naive):
    """Per step, the checklist items that hold on the state after it: the fixed run reaches
    both at its dispatch; the original run never has ``delivered``."""
    db, ep = naive
    r = refinement(db, ep)
    original = verify_steps(r, r.original)
    assert all("delivered" not in (s.holding or []) for s in original.steps)
    fixed = verify_steps(r, apply_edits(r.original, [Edit("set", 3, key="vehicle_id", value="TRK-9")]))
    holding = [s.holding for s in fixed.steps]
    assert holding[2] == ["cold"]  # assigned, not yet dispatched: nothing delivered
    assert holding[3] == ["delivered", "cold"]  # dispatch(SHP-1) on TRK-9 delivers it
    out = cli(db, "refine", ep, "--set", "3.args.vehicle_id=TRK-9", "--json")
    assert json.loads(out.output)["steps"][3]["checklist_holding"] == ["delivered", "cold"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--drop", "9"], "drop 9: step 9 is out of range (1..5)"),
        (["--move", "2"], "--move '2': expected FROM:TO"),
        (["--set", "3.vehicle_id=TRK-9"], "expected STEP.args.KEY=VALUE"),
        (["--set", "5.args.x=1"], "step 5 is a message, not a call"),
        (["--insert", "2:assign_vehicle(("], "not a call"),
        (["--say", "1:hello"], "step 1 is a call, not a message"),
        (["--drop", "x"], "'x' is not a step number"),
        (["--demonstration"], "add --save"),
        (["--drop", ""], "--drop '': expected step numbers"),
        (["--drop", " , "], "expected step numbers"),
        (["--set", "3.args.vehicle_id=" + "[" * 50_000 + "]" * 50_000], "nests 50000 lists or objects deep"),
        (["--insert", "2:assign_vehicle(x=" + "{" * 40 + "}" * 40 + ")"], "nests 40 lists or objects deep"),
        ([], "the refine editor needs a terminal"),
    ],
)
def test_bad_edits_are_one_line_errors(naive, args, message):
    db, ep = naive
    out = CliRunner().invoke(main, ["--db", db, "refine", ep, *args])
    assert out.exit_code == 2 and message in out.output and "Traceback" not in out.output


def test_an_unknown_episode_is_a_one_line_error(naive):
    db, _ = naive
    out = CliRunner().invoke(main, ["--db", db, "refine", "nope", "--drop", "1"])
    assert out.exit_code == 2 and "no episode 'nope'" in out.output


def test_edits_apply_in_order_and_undo_redo(naive):
    db, ep = naive
    r = refinement(db, ep)
    assert len(r.original) == 5 and isinstance(r.original[4], Say)
    before = r.verify()
    assert not before.passed
    r.edit(Edit("set", 3, key="vehicle_id", value="TRK-9"))
    r.edit(Edit("insert", 2, step=ToolCall("list_vehicles", {"location": "HUB-NORTH"})))
    assert not r.verify().passed  # the report still says TRK-7 (the task's tell item)
    r.edit(Edit("say", 6, text="The insulin is on its way on TRK-9."))
    assert r.verify().passed
    assert r.undo() and r.undo() and r.undo() and not r.undo()
    assert r.steps == r.original and not r.verify().passed
    assert r.redo() and r.steps[2].args["vehicle_id"] == "TRK-9"  # type: ignore[union-attr]
    r.edit(Edit("drop", 1))  # a new edit clears what could be redone
    assert not r.redo() and len(r.steps) == 4
    with pytest.raises(EditError):
        r.edit(Edit("move", 1, to=9))
    assert len(r.edits) == 2  # a failed edit leaves the refinement as it was


def test_parse_edits_order_and_moves():
    steps = [ToolCall("a", {}), ToolCall("b", {}), ToolCall("c", {}), Say("hi")]
    edits = parse_edits("1,3", ("2:1",), ("2.args.k=[1, 2]",), ("3:d(x=1)",), ("4:bye",))
    assert [e.op for e in edits] == ["set", "say", "drop", "drop", "insert", "move"]
    out = apply_edits(steps, edits)
    assert out == [Say("bye"), ToolCall("b", {"k": [1, 2]}), ToolCall("d", {"x": 1})]


@pytest.mark.parametrize("fmt", ["openai", "sharegpt", "hf"])
def test_export_demonstrations_round_trip_with_provenance(naive, tmp_path, fmt):
    db, ep = naive
    out = tmp_path / f"demos.{fmt}"
    assert cli(db, "export", "--demonstrations", "--format", fmt, "-o", out).exit_code == 1  # none yet
    assert cli(db, "refine", ep, *FIX, "--save", "--demonstration", "--as", "ana").exit_code == 0
    assert cli(db, "refine", ep, *FIX, "--save", "--as", "bo").exit_code == 0  # passes, not marked
    assert cli(db, "refine", ep, "--drop", "4", "--save").exit_code == 1  # fails: never exported
    (demo,) = [r for r in Store(db).list_episodes() if (r.scores or {}).get("demonstration")]
    result = cli(db, "export", "--demonstrations", "--format", fmt, "-o", out)
    assert result.exit_code == 0 and "wrote 1 episode(s)" in result.output
    if fmt == "hf":
        import pyarrow.parquet as pq

        (row,) = pq.read_table(out).to_pylist()
        assert row["episode_id"] == demo.id
        metadata = json.loads(row["metadata"])
    else:
        (line,) = out.read_text().splitlines()
        example = json.loads(line)
        assert ("messages" if fmt == "openai" else "conversations") in example
        metadata = example["metadata"]
        assert metadata["episode_id"] == demo.id
    assert metadata["refined_from"] == ep and metadata["editor"] == "human:ana"
    assert [e["op"] for e in metadata["edits"]] == ["set", "drop", "insert", "insert", "move"]
    assert metadata["demonstration"] is True and metadata["verification"]["passed"] is True
    # an ordinary episode's example has no metadata
    cli(db, "export", ep, "--format", "openai", "-o", tmp_path / "plain.jsonl")
    assert "metadata" not in json.loads((tmp_path / "plain.jsonl").read_text())


def _status(screen) -> str:
    return str(screen.query_one("#refine-status").render())


async def test_the_editor_edits_reverifies_undoes_and_saves(naive):
    """The editor alone on an app: a schema-refused edit is held back, accepted edits are
    re-verified by the worker, undo/redo follow, and ctrl+s saves a demonstration."""
    from textual.widgets import DataTable

    from sttui.tui.refine import RefineScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db, ep = naive
    r = refinement(db, ep)
    store = Store(db)
    app = ScreenApp(lambda: RefineScreen(r, store, "human:ana"), store=store)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.verification is not None and screen.original is not None)
        assert "FAILED" in _status(screen) and "0 edit(s)" in _status(screen)
        table = screen.query_one("#refine-steps", DataTable)
        table.move_cursor(row=2)  # assign_vehicle(..., TRK-7)
        await pilot.press("a")
        entry = screen.query_one("#refine-entry")
        assert entry.has_focus and entry.value == "assign_vehicle(shipment_id=SHP-1, vehicle_id=TRK-7)"
        entry.value = "assign_vehicle(shipment_id=SHP-1, vehicle_id=7)"
        await pilot.press("enter")
        assert "vehicle_id must be a string" in str(screen.query_one("#refine-feedback").render())
        assert r.edits == []  # refused as the call entry refuses it
        entry.value = "assign_vehicle(shipment_id=SHP-1, vehicle_id=TRK-9)"
        await pilot.press("enter")
        table.move_cursor(row=0)
        await pilot.press("i")
        screen.query_one("#refine-entry").value = "list_vehicles(location=HUB-NORTH)"
        await pilot.press("enter")
        assert [e.op for e in r.edits] == ["replace", "insert"]
        table.move_cursor(row=5)  # the report: "on its way on TRK-7" fails the task's tell item
        await pilot.press("a")
        screen.query_one("#refine-entry").value = "> The insulin is on its way on TRK-9."
        await pilot.press("enter")
        assert [e.op for e in r.edits] == ["replace", "insert", "say"]
        await wait_for(pilot, lambda: "PASSED" in _status(screen))
        assert str(table.get_row_at(1)[1]) == "list_vehicles(location=HUB-NORTH)"
        assert "≠" in [str(c) for c in table.get_row_at(2)]  # the state differs from the original's step 2
        # the checklist step by step (delivered, cold, report): the first two hold once the shipment
        # is dispatched on the working reefer, which the original never reached; the report is
        # judged on the messages, none yet
        assert [str(table.get_row_at(i)[5]) for i in range(5)][-1] == "✓✓·"
        assert "✗ → ✓ delivered" in str(screen.query_one("#refine-checklist").render())
        await pilot.press("u", "u", "u")
        await wait_for(pilot, lambda: "FAILED" in _status(screen) and "0 edit(s)" in _status(screen))
        await pilot.press("y", "y", "y")
        await wait_for(pilot, lambda: "PASSED" in _status(screen) and "3 edit(s)" in _status(screen))
        table.move_cursor(row=2)  # create_shipment: dropping it breaks the calls after it
        await pilot.press("d")
        await wait_for(pilot, lambda: "FAILED" in _status(screen))
        assert "failed: no shipment SHP-1" in str(table.get_row_at(2)[2])
        await pilot.press("u")
        table.move_cursor(row=1)
        await pilot.press("shift+down")  # list_vehicles after create_shipment: still passes
        assert r.steps[2] == ToolCall("list_vehicles", {"location": "HUB-NORTH"})
        await wait_for(pilot, lambda: "PASSED" in _status(screen))
        await pilot.press("escape")  # edits not saved: leaving asks first, and "n" keeps them
        await wait_for(pilot, lambda: type(app.screen).__name__ == "Confirm")
        assert f"lose {len(r.edits)} edit(s) not saved" in str(app.screen.query_one("#question").render())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert len(r.edits) == 4
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "saved as episode" in str(screen.query_one("#refine-feedback").render()))
        await pilot.press("escape")  # saved: nothing to lose, it leaves at once
        await wait_for(pilot, lambda: not app.is_running)
    saved = next(rec for rec in Store(db).list_episodes() if rec.id != ep)
    assert saved.scores["demonstration"] is True and saved.scores["lineage"]["editor"] == "human:ana"
    assert [e["op"] for e in saved.scores["lineage"]["edits"]] == ["replace", "insert", "say", "move"]


async def test_an_edit_redraws_the_edited_steps_not_the_original_run(naive, monkeypatch):
    """On a 10,000-step episode each table's refill took about a second of the UI's thread, and
    every row asked for the checklist's ids again: an edit refilled both tables twice (on the
    edit, on its verification). The original run's table is filled once its verification is in,
    and the ids are read once a fill."""
    from textual.widgets import DataTable

    from sttui.tui.refine import RefineScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db, ep = naive
    r = refinement(db, ep)
    app = ScreenApp(lambda: RefineScreen(r, Store(db), "human:ana"), store=None)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.verification is not None and screen.original is not None)
        original = screen.query_one("#refine-original", DataTable)
        rows = list(original.rows)
        shown = [[str(c) for c in original.get_row_at(i)] for i in range(original.row_count)]
        assert any("ok" in cell or "✓" in cell for row in shown for cell in row)  # its outcomes are in
        asked = []
        real = screen._checklist_ids
        monkeypatch.setattr(screen, "_checklist_ids", lambda: asked.append(1) or real())
        screen.query_one("#refine-steps", DataTable).move_cursor(row=2)
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.verification is not None)
        assert len(r.steps) == len(r.original) - 1
        assert list(original.rows) == rows  # the same rows: not cleared and filled again
        assert [[str(c) for c in original.get_row_at(i)] for i in range(original.row_count)] == shown
        assert 1 <= len(asked) <= 2  # once for the edit's fill, once for its verification's


def test_a_verification_is_read_as_data_where_it_was_made(naive, monkeypatch):
    """The editor draws a verification on the UI's thread after the worker made it; the result's
    summary (the review: a third of a second on 10,000 steps) is made once, with it."""
    from sttui.running.runner import EpisodeResult
    from sttui.tui.refine import checklist_text

    r = refinement(*naive)
    v = verify_steps(r, r.steps)
    made = v.as_dict()

    def again(self):
        raise AssertionError("the result summarised again on drawing")

    monkeypatch.setattr(EpisodeResult, "as_dict", again)
    monkeypatch.setattr(EpisodeResult, "review", property(again))
    shown = str(checklist_text(v, v))
    assert made["checklist"] and all(item["id"] in shown for item in made["checklist"])
    assert v.as_dict() == made and v.stage_score == made["stage_score"] and v.summary()["passed"] is False


async def test_E_in_the_replay_opens_the_editor(naive):
    from sttui.tui.refine import RefineScreen
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db, ep = naive
    store = Store(db)
    app = ScreenApp(lambda: ReplayScreen(store, ep), store=store)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.screen.query_one("#events").row_count > 0)
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, RefineScreen))
        await wait_for(pilot, lambda: app.screen.verification is not None)
        assert app.screen.refinement.record.id == ep and "FAILED" in _status(app.screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))


async def test_refine_without_edits_opens_the_editor_on_the_workbench(naive, monkeypatch):
    import sttui.tui.refine as editor
    from sttui.tui.app import SttuiApp
    from tests.tui_helpers import wait_for

    db, ep = naive
    import sttui.cli.refine as command

    opened = {}
    monkeypatch.setattr(editor, "run_editor", lambda r, who, url: opened.update(r=r, who=who, url=url))
    monkeypatch.setattr(command, "terminal_attached", lambda: True)
    assert cli(db, "refine", ep[:6], "--as", "bo").exit_code == 0
    assert opened["r"].record.id == ep and opened["who"] == "human:bo" and opened["url"] == db
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="bo", refine=opened["r"]))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, editor.RefineScreen))
        assert app.screen.editor == "human:bo"
        await wait_for(pilot, lambda: app.screen.verification is not None)


def test_an_impossible_task_is_judged_on_the_refined_messages(tmp_path):
    """The rule judge reads the replayed episode's messages: the oracle's explanation passes
    as recorded; without its last message (the statement) the same run fails."""
    db = f"sqlite:///{tmp_path / 'i.db'}"
    task = ROOT / "tasks" / "stt" / "air-travel" / "keflavik-ash-closure-s2-impossible.yaml"
    assert cli(db, "run", task, "--agent", "baseline:oracle").exit_code == 0
    (record,) = Store(db).list_episodes()
    assert record.outcome["passed"] is True
    same = json.loads(cli(db, "refine", record.id, "--json").output)
    assert same["passed"] is True and {c["id"] for c in same["checklist"]} == {
        "recognised_infeasibility",
        "informed_user",
    }
    last = len(same["steps"])
    out = cli(db, "refine", record.id, "--drop", last, "--json")
    cut = json.loads(out.output)
    assert out.exit_code == 1 and [c["passed"] for c in cut["checklist"]] == [False, False]


async def test_the_editor_inserts_and_rewords_messages(naive):
    from textual.widgets import DataTable

    from sttui.tui.refine import RefineScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db, ep = naive
    r = refinement(db, ep)
    app = ScreenApp(lambda: RefineScreen(r, Store(db), "human:ana"), store=None)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.verification is not None)
        screen.query_one("#refine-steps", DataTable).move_cursor(row=4)  # the closing message
        await pilot.press("m")
        entry = screen.query_one("#refine-entry")
        assert entry.value == "> "
        entry.value = "> Checking the reefer first."
        await pilot.press("enter")
        assert r.steps[5] == Say("Checking the reefer first.")
        screen.query_one("#refine-steps", DataTable).move_cursor(row=4)
        await pilot.press("a")
        assert screen.query_one("#refine-entry").value == "> The insulin is on its way on TRK-7."
        screen.query_one("#refine-entry").value = "> On its way."
        await pilot.press("enter")
        assert [e.op for e in r.edits] == ["insert", "say"] and r.steps[4] == Say("On its way.")
        await pilot.press("escape")  # nothing open: leaves the editor (the only screen: the app exits)


def test_sessions_tree_shows_forks_and_refinements_under_their_origin(naive):
    db, ep = naive
    assert cli(db, "refine", ep, *FIX, "--save", "--as", "ana").exit_code == 0
    out = cli(db, "fork", ep, "--at", "6", "--headless", "--agent", "baseline:oracle")
    assert out.exit_code == 0, out.output
    fork = next(r for r in Store(db).list_episodes() if r.id != ep and r.agent != "human:ana")
    out = cli(db, "fork", fork.id, "--at", "8", "--headless", "--agent", "baseline:oracle")
    assert out.exit_code == 0, out.output
    lines = cli(db, "sessions", "--tree").output.splitlines()
    assert lines[0].startswith(f"{ep}  ")  # the one root
    kids = [line for line in lines[1:] if line.startswith(("├─ ", "└─ "))]
    assert sorted(k.split("[")[-1] for k in kids) == ["fork @6]", "refined]"]
    grandchild = [line for line in lines if line.lstrip("│ ").startswith("└─ ") and line.startswith(("│  ", "   "))]
    assert len(grandchild) == 1 and grandchild[0].endswith("[fork @8]")
    assert lines[-1] == "4 episode(s)"


async def test_home_sessions_tab_names_where_an_episode_came_from(naive):
    import asyncio

    from sttui.tui.app import SttuiApp
    from tests.conftest import ROOT as root
    from tests.tui_helpers import wait_for

    db, ep = naive
    # (the commands run their episodes with asyncio.run: off this test's event loop)
    assert (await asyncio.to_thread(cli, db, "refine", ep, *FIX, "--save", "--as", "ana")).exit_code == 0
    fork = await asyncio.to_thread(cli, db, "fork", ep, "--at", "6", "--headless", "--agent", "baseline:oracle")
    assert fork.exit_code == 0, fork.output
    app = SttuiApp(Launch.build(root / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(200, 40)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 3)
        ids = [str(home.sessions_table().get_row_at(i)[0]) for i in range(3)]
    assert sum(f"(fork of {ep}@6)" in i for i in ids) == 1
    assert sum(f"(refined from {ep})" in i for i in ids) == 1
    assert sum(i == ep for i in ids) == 1
