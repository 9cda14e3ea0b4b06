"""The workbench through Textual's Pilot, with the database checked after each flow."""

from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable, Input, Select

from sttui.core.callsyntax import format_call
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import FIXTURES, ROOT
from tests.tui_helpers import open_play, ready, screen_text, type_text, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'tui.db'}"


def app_for(db, tasks=ROOT / "tasks"):
    return SttuiApp(Launch.build(tasks, db_url=db, human="ana"))


async def test_home_lists_filters_and_sorts_bundled_tasks(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        app = await ready(pilot)
        table = app.screen.query_one("#tasks", DataTable)
        total = table.row_count
        assert total >= 49
        await pilot.press("slash")
        await type_text(pilot, "logistics")
        await pilot.pause()
        assert 0 < table.row_count < total
        assert all("logistics" in str(table.get_row_at(i)).lower() for i in range(table.row_count))
        await pilot.press("escape")
        assert table.row_count == total
        await pilot.press("s")
        assert app.screen.sort_column == "subtype"


def test_ids_cut_alike_are_cut_in_the_middle():
    from sttui.tui.home_rows import shown_ids

    ids = ["cybersecurity-additive-1", "cybersecurity-additive-2", "air-barbados-lhr-switch-s1-hard", "grid-x"]
    shown = shown_ids(ids, 16)
    assert shown == {
        "cybersecurity-additive-1": "cybersec…itive-1",
        "cybersecurity-additive-2": "cybersec…itive-2",
        "air-barbados-lhr-switch-s1-hard": "air-barbados-lh…",  # (no other cut like it: its start reads best)
        "grid-x": "grid-x",
    }
    assert all(len(v) <= 16 for v in shown.values())
    assert shown_ids(["abcdefgh"], 3) == {"abcdefgh": "abc"}  # (a column too narrow for a cut mark)


def test_my_column_counts_each_tasks_sessions_and_says_how_the_newest_went():
    """Home's "mine" column from my sessions, newest first: how often, and the last verdict (a
    pass or fail, an explore episode's CA, else its status). Grouped in one pass: a scan per
    task took 1.7 s over 20,000 sessions of 2,000 tasks (home reads a page of 500 at a time)."""
    from types import SimpleNamespace as R

    from sttui.tui.home_rows import mine_by_task

    records = [
        R(task_id="a", status="finished", outcome={"passed": True}, scores=None),
        R(task_id="b", status="finished", outcome=None, scores={"calibrated_accuracy": 0.5}),
        R(task_id="a", status="finished", outcome={"passed": False}, scores=None),
        R(task_id="c", status="running", outcome=None, scores=None),
    ]
    assert mine_by_task(records) == {"a": "2× last pass", "b": "1× last CA 50%", "c": "1× last running"}
    many = [
        R(task_id=f"t{i % 2000}", status="finished", outcome={"passed": i < 2000}, scores=None) for i in range(20_000)
    ]
    mine = mine_by_task(many)
    assert len(mine) == 2000 and mine["t7"] == "10× last pass"


async def test_explore_seeds_tell_apart_in_the_id_column_at_80x24(db):
    """At 80 columns the id column is 16 wide: an explore family's seeds were shown alike
    ("cybersecurity-ad" twice, the titles cut alike too), told apart only under the table."""
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        app = await ready(pilot)
        table = app.screen.query_one("#tasks", DataTable)
        await pilot.press("slash")
        await type_text(pilot, "cybersecurity additive")
        await wait_for(pilot, lambda: table.row_count == 2)
        await pilot.pause()
        lines = screen_text(app)
        at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["id"])  # the header
        first, second = (lines[at + k].split()[0] for k in (1, 2))
        assert first != second and first.endswith("1") and second.endswith("2"), (first, second)


async def test_home_reports_broken_task_files_without_crashing(db):
    async with app_for(db, FIXTURES / "bad_tasks").run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "not loaded" in str(app.screen.query_one("#status").render()))
        assert app.screen.query_one("#tasks", DataTable).row_count == 0


async def test_play_a_dynamic_task_to_a_pass_by_typing(db):
    loaded = load_task(STT)
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        entry = screen.query_one("#entry", Input)
        await pilot.press("f5")
        first, *rest = loaded.task.solution
        assert format_call(first.tool, first.args) == "get_vehicle_status(vehicle_id=TRK-7)"
        # the first call typed key by key, with tab completing the tool and the parameter name
        await type_text(pilot, "get_v")
        await wait_for(pilot, lambda: entry._suggestion == "get_vehicle_status(")
        await pilot.press("tab")
        await wait_for(pilot, lambda: entry._suggestion == "get_vehicle_status(vehicle_id=")
        await pilot.press("tab")
        await type_text(pilot, "TRK-7)")
        assert entry.value == "get_vehicle_status(vehicle_id=TRK-7)"
        await pilot.press("enter")
        await wait_for(pilot, lambda: entry.value == "" and screen.human.waiting)
        # the rest put on the call line whole (typing them adds nothing but minutes)
        for step in rest:
            entry.value = format_call(step.tool, step.args) if step.tool else f"> {step.say}"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.episode.ended or entry.value == "")
            await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended)
        assert screen.episode.ended["by"] == "user"  # the final report satisfied the scripted user
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        end = pilot.app.screen
        rows = [end.query_one("#checklist", DataTable).get_row_at(i) for i in range(2)]
        assert [r[1] for r in rows] == ["pass", "pass"]
        assert "milestones 3 of 3" in str(end.query_one("#end-review").render())
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.status == "completed" and record.outcome["passed"] is True
    assert record.agent == "human:ana" and record.clean_baseline is True
    types = [e.type for e in store.events(record.id)]
    assert types.count("tool_call") == sum(1 for s in loaded.task.solution if s.tool)
    assert ("clock_started" in types and types[-1] == "clock_paused") or "episode_ended" in types
    assert record.scores["human_active_seconds"] > 0


async def test_refused_inputs_keep_the_entry_and_change_nothing(db):
    async with app_for(db).run_test(size=(100, 30)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        entry = screen.query_one("#entry", Input)
        feedback = screen.query_one("#feedback")

        async def attempt(text: str, reason: str) -> None:
            entry.value = text
            await pilot.press("enter")
            await pilot.pause()
            assert reason in str(feedback.render()), str(feedback.render())
            assert entry.value == text

        await attempt("list_vehicles()", "the clock is paused: press F5")
        await pilot.press("f5")
        await attempt("get_vehicle_status(vehicle_id=TRK-7", "missing ')' at the end")
        await attempt("get_vehicle(vehicle_id=TRK-7)", "no tool 'get_vehicle' (did you mean get_vehicle_status?)")
        await attempt("get_vehicle_status(vehicle=TRK-7)", "has no parameter 'vehicle'")
        await attempt(
            "create_shipment(goods=insulin, quantity=lots, origin=HUB-NORTH, destination=X)",
            "quantity must be an integer",
        )
        assert screen.episode.steps == 0 and screen.episode.tool_calls == 0
        assert [i["type"] for i in screen.episode.view] == ["message"]
    store = Store(db)
    events = store.events(store.list_episodes()[0].id)
    assert not any(e.type == "tool_call" for e in events)


async def test_god_view_is_recorded_and_marks_the_episode(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f2")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.god)
        assert "reefer-fault" in str(screen.query_one("#god-triggers").render())
        screen.session.writer.flush()
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.clean_baseline is False
    assert any(e.type == "god_view" for e in store.events(record.id))


async def test_silent_trigger_not_shown_to_the_agent(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        screen.query_one("#entry", Input).value = "get_vehicle_status(vehicle_id=TRK-7)"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.episode.tool_calls == 1 and screen._shown >= 3)
        text = " ".join(str(w.render()) for w in screen.query("#conversation Static"))
        assert "reefer-fault" not in text and "notice" not in text


async def test_user_simulator_session_with_a_baseline_agent(db):
    task = ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml"
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, task, "user", "UserSimScreen")
        assert "reveal only if asked directly" in str(screen.query_one("#profile Static").render())
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.episode.turn == "user" or screen.episode.ended)
        if screen.episode.ended is None:
            await pilot.press("f4")  # show the agent's actions too
            screen.query_one("#reply", Input).value = "Thanks, that works for me."
            await pilot.press("ctrl+s", "y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.user == "human:ana" and record.agent == "baseline:oracle" and record.status == "completed"
    events = store.events(record.id)
    assert any(e.type == "message" and e.actor == "human:ana" for e in events)
    assert any(e.type == "tool_call" and e.actor == "baseline:oracle" for e in events)


async def test_explore_episode_played_to_the_reveal(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, EXPLORE, "agent", "ExploreScreen")
        await pilot.press("f5")
        ep = screen.episode
        await pilot.press("f6", "f6", "f6")  # batch → history → brief → probe
        await pilot.press("p")  # run the probe with the middle case
        await wait_for(pilot, lambda: len(ep.probes) == 1)
        await pilot.press("f6")  # → batch, focused
        seen = set()
        while ep.ended is None:
            seen.add(str(screen.query_one("#status-bar").render()))
            if ep.phase == "window":
                done = ep.batch
                assert screen.query_one("#batch", DataTable).cursor_row == 0
                if done < 2:  # keys 1-4 for the first batches; the rest chosen directly, then s
                    await pilot.press(*"12341234"[: len(ep.batches[0])])
                else:
                    screen.choices = {i: i % 4 + 1 for i in range(len(ep.batches[done]))}
                await pilot.press("s")
                await wait_for(pilot, lambda d=done: ep.batch > d or ep.phase != "window")
            else:
                await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AssessmentForm")
                form = pilot.app.screen
                form.query_one(f"#dir-{ep.task.fields[0].name}", Select).value = "increasing"
                if ep.phase == "assess_final":
                    form.query_one("#changes").select(f"added:{ep.task.drift.replace.by}")
                form.query_one("#submit").focus()
                asked = ep.phase
                await pilot.press("enter")
                await wait_for(pilot, lambda a=asked: ep.phase != a or ep.ended)
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "RevealScreen")
        # the header spoke in words throughout, never the engine's phase names
        assert not any(name in line for line in seen for name in ("assess_pre", "assess_final", "window"))
        assert any("assessment due" in line for line in seen) and any("choosing actions" in line for line in seen)
        assert "the rule drifted here" in str(pilot.app.screen.query_one("#reveal-curve").render())
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.status == "completed" and record.kind == "explore"
    assert record.scores["change_recognition"] is not None and len(record.scores["ca_per_batch"]) == 12
    types = [e.type for e in store.events(record.id)]
    assert types.count("batch_submitted") == 12 and types.count("assessment") == 2 and types.count("probe") == 1


async def test_window_too_small_says_so(db):
    async with app_for(db).run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.2)
        assert "too small" in str(pilot.app.screen.query_one("#too-small").render())
        shown = " ".join(" ".join(line.strip(" █▀▄").split()) for line in screen_text(pilot.app))
        assert "(now 60×20)" in shown and "nothing is lost meanwhile" in shown  # wrapped, not cut off
        await pilot.resize_terminal(34, 12)
        await pilot.pause(0.2)
        shown = " ".join(" ".join(line.strip(" █▀▄").split()) for line in screen_text(pilot.app))
        assert "(now 34×12)" in shown and "nothing is lost meanwhile" in shown
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.2)
        assert type(pilot.app.screen).__name__ == "HomeScreen"


async def test_a_screen_opened_while_the_window_is_too_small_stays_under_the_notice(db):
    """`sttui annotate` at 60x20: the annotation queue opened (once the record was open) over
    the too-small notice and hid it; the notice goes back on top, and off once the window grows."""
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", annotate=("tasks", None)))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: any(type(s).__name__ == "AnnotateScreen" for s in app.screen_stack))
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "TooSmall"
        await pilot.press("ctrl+p")  # the palette opens over the notice, and is used there
        await wait_for(pilot, lambda: type(app.screen).__name__ == "CommandPalette")
        await pilot.resize_terminal(64, 20)  # (a window dragged, still too small: the palette stays)
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "CommandPalette"
        assert [type(s).__name__ for s in app.screen_stack].count("TooSmall") == 2  # (one left under the queue)
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "TooSmall")
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "AnnotateScreen")
        # the notice it opened over, back on top when it closes, goes too: the window is large
        app.pop_screen()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HomeScreen")
        assert [type(s).__name__ for s in app.screen_stack] == ["HomeScreen"]


async def test_leave_mid_episode_then_resume_in_the_workbench(db):
    loaded = load_task(STT)
    steps = loaded.task.solution
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        for step in steps[:3]:
            screen.query_one("#entry", Input).value = format_call(step.tool, step.args)
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting)
        session = screen.session
        pilot.app.exit()
    session.writer.flush()
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.status == "running"
    resumed = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", resume_episode=record.id))
    async with resumed.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "PlayScreen")
        screen = pilot.app.screen
        assert screen.episode.tool_calls == 3  # rebuilt from the record
        await pilot.pause()
        assert len(screen.query("#conversation > *")) >= 7  # the conversation so far is on screen
        await pilot.press("f5")
        for step in steps[3:]:
            text = format_call(step.tool, step.args) if step.tool else f"> {step.say}"
            screen.query_one("#entry", Input).value = text
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended)
        await pilot.press("f8", "y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
    record = store.episode(record.id)
    assert record.status == "completed" and record.outcome["passed"] is True
    events = store.events(record.id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    types = [e.type for e in events]
    assert "left" in types and "resumed" in types


async def test_bindings_can_be_remapped_from_the_config(db):
    from sttui.config import Config

    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", config=Config(keymap={"home.sort": "o"})))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("s")
        assert app.screen.sort_column == "id"
        await pilot.press("o")
        assert app.screen.sort_column == "subtype"


async def test_the_palette_names_the_keys_the_keymap_binds(db):
    """A palette entry gives the key that works now: the keymap's, not the class's default."""
    from sttui.config import Config

    keymap = {"home.sort": "o,f12"}
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", config=Config(keymap=keymap)))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Sort"] == "o, f12 · home.sort"
        await pilot.press("f12")
        assert app.screen.sort_column == "subtype"


async def test_the_palette_offers_the_focused_lists_own_keys_and_a_keymap_moves_them(db):
    """Enter plays the task under the cursor and replays the session under it: the palette
    offers both (as it offers every action), on the list that has them, under the keymap's keys;
    a keymap naming a widget's binding (table.page_right) is not called unknown."""
    from sttui.config import Config

    keymap = {"home.play": "enter,f12", "table.page_right": "l"}
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", config=Config(keymap=keymap)))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.workers.wait_for_complete()
        assert not [n for n in app._notifications if n.title == "sttui.yaml"]
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Play agent seat"] == "enter, f12 · home.play" and "Replay" not in helps
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.screen.focused is not None and app.screen.focused.id == "sessions")
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert commands["Replay"].help == "enter · home.replay" and "Play agent seat" not in commands
        assert commands["Scroll right"].help == "l · table.page_right"
        await pilot.press("f6")
        await pilot.press("f12")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")


async def test_a_keymap_that_takes_a_key_another_binding_holds_is_named_at_start(db):
    """F9 is play.earlier's: remapping play.end onto it would silently lose "Show earlier items"."""
    from sttui.config import Config

    app = SttuiApp(
        Launch.build(ROOT / "tasks", db_url=db, human="ana", config=Config(keymap={"play.end": "f9", "play.ned": "f4"}))
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        (note,) = [n for n in app._notifications if n.title == "sttui.yaml"]
        assert note.severity == "warning"
        assert "keymap: play.end → f9 takes the key of play.earlier (Show earlier items) on PlayScreen" in note.message
        assert "no binding has the id play.ned (did you mean play.end?)" in note.message


def test_the_documented_keymaps_clash_with_nothing():
    import re

    from sttui import config
    from sttui.tui.keymap import keymap_problems, workbench_scopes

    examples = [(ROOT / "README.md").read_text(), config.__doc__ or ""]
    maps = [m for text in examples for m in re.findall(r"keymap: (\{[^}]*\})", text)]
    assert len(maps) == 2
    for text in maps:
        keymap = dict(pair.split(": ") for pair in text.strip("{}").split(", "))
        assert keymap_problems(keymap, workbench_scopes(), SttuiApp) == [], text


def test_every_binding_has_an_id_and_a_palette_entry():
    from textual.screen import ModalScreen, Screen

    from sttui.tui.app import binding_commands
    from sttui.tui.keymap import workbench_scopes

    scopes = workbench_scopes()
    assert len(scopes) == 24
    for cls in scopes:
        assert all(binding.id for binding in cls.BINDINGS), cls.__name__  # ids, for the keymap
        if issubclass(cls, Screen) and not issubclass(cls, ModalScreen):
            titles = {c.title for c in binding_commands(cls)}
            for binding in cls.BINDINGS:
                assert binding.description in titles, f"{cls.__name__}: {binding.key} has no palette entry"


async def test_drawing_callbacks_that_outlive_their_screen_do_nothing(db):
    """A redraw queued by the episode worker can arrive after the screen was switched away
    (the episode ended, or the app is exiting); it must not raise into the app."""
    from textual.screen import Screen

    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        await wait_for(pilot, lambda: len(screen.query("#conversation > *")) > 0)
        first = screen.query("#conversation > *").first()
        pilot.app.switch_screen(Screen())
        await wait_for(pilot, lambda: not screen.is_attached)
        await pilot.pause()
        assert len(screen.query("#conversation")) == 0  # its widgets are gone
        screen._scroll_to_new(first)
        screen.refresh_view()
        screen._tick()


async def test_the_end_screen_shows_the_highlighted_items_whole_detail_at_80x24(db):
    """The table cuts a long detail at the edge; the pane under it gives every word of the
    highlighted item's, the first failed item's to begin with."""
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        entry = screen.query_one("#entry", Input)
        entry.value = "> It is on its way on TRK-7 and will be there well before the clinic opens at 09:00."
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended)
        if not screen.episode.ended:
            await pilot.press("f8", "y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        end = pilot.app.screen
        lines = screen_text(pilot.app)  # each figure on the line of its name (none cut at the edge)
        assert any(re.search(r"steps \d+ +· +tool calls \d+ +· +simulated time \d+ min", line) for line in lines)
        assert any(re.search(r"your working time \d\d:\d\d +· +episode [0-9a-f]{12}", line) for line in lines)
        items = end.result.outcome.items
        failed = next(i for i in items if not i.passed)
        assert len(failed.detail) > 80  # longer than the screen is wide
        pane = end.query_one("#end-detail")
        assert failed.detail in str(pane.render())
        table = end.query_one("#checklist", DataTable)
        assert table.has_focus  # the arrow keys walk the items
        assert end.typing  # (the report was sent a moment ago: its keys wait for a pause first)
        await wait_for(pilot, lambda: not end.holding)
        start = table.cursor_row
        await pilot.press("up" if start else "down")
        await pilot.pause()
        assert table.cursor_row != start and items[table.cursor_row].detail in str(pane.render())
        await pilot.press("enter")  # home, as before the table held the keys
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ != "EndScreen")
