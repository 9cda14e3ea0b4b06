"""The workbench at scale: home's table from the task index without loading tasks, a sessions
pane that never waits for the task list, and play opened on one task alone."""

from __future__ import annotations

import threading

from textual.widgets import DataTable

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core import taskindex
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.home import HomeScreen
from sttui.tui.home_rows import entry_row, task_row
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def test_home_rows_from_the_index_are_the_rows_of_loaded_tasks():
    entries = {e.id: e for e in taskindex.index().scan([ROOT / "tasks"])}
    loaded, _ = __import__("sttui.core.loader", fromlist=["load_all"]).load_all([ROOT / "tasks"])
    assert len(loaded) == len(entries) >= 49
    for t in loaded:
        assert entry_row(entries[t.id]) == task_row(t)


async def test_the_sessions_pane_fills_while_the_task_list_is_still_loading(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 's.db'}"
    loaded = load_task(STT)
    eid, _ = await run_recorded(Store(db), loaded, PlanAgent("human:ana", loaded.task.solution), ScriptedUser())
    release = threading.Event()
    real = taskindex.TaskIndex.scan

    def slow(self, paths):  # the task list takes as long as the test wants
        release.wait(30)
        return real(self, paths)

    monkeypatch.setattr(taskindex.TaskIndex, "scan", slow)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 1)
        assert home.query_one("#tasks", DataTable).row_count == 0  # the tasks have not come yet
        release.set()
        await wait_for(pilot, lambda: home.query_one("#tasks", DataTable).row_count >= 49)
        row = next(r for r in home.rows if r.id == loaded.id)
        assert row.mine.startswith("1×")  # the sessions' "mine" reached the rows that came later
        assert home.sessions[0].id == eid


async def test_sessions_after_the_task_list_update_the_mine_cells_in_place(tmp_path, monkeypatch):
    """The task table is filled once; sessions coming later change only their "mine" cells."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    loaded = load_task(STT)
    fills = []
    real_refresh = HomeScreen.refresh_table
    monkeypatch.setattr(HomeScreen, "refresh_table", lambda self: fills.append(len(self.rows)) or real_refresh(self))
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        table = home.query_one("#tasks", DataTable)
        await wait_for(pilot, lambda: table.row_count >= 49 and home.sessions is not None)
        await pilot.pause(0.2)
        assert fills.count(len(home.rows)) == 1  # one fill of the whole table
        await run_recorded(Store(db), loaded, PlanAgent("human:ana", loaded.task.solution), ScriptedUser())
        home.load_sessions()
        await wait_for(pilot, lambda: str(table.get_cell(loaded.id, "mine")).startswith("1×"))
        assert fills.count(len(home.rows)) == 1  # still one: the cell changed in place


async def test_home_loads_only_the_highlighted_task(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'h.db'}"
    taskindex.index().scan([ROOT / "tasks"])  # a warm index, as after any first use
    taskindex._INDEX = None
    loads: list[object] = []
    real = taskindex.TaskIndex.load
    monkeypatch.setattr(taskindex.TaskIndex, "load", lambda self, *a, **k: loads.append(a) or real(self, *a, **k))
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: home.query_one("#tasks", DataTable).row_count >= 49)
        await pilot.pause(0.2)
        highlighted = home.current_task()
        assert [a[0] for a in loads] == [highlighted.path]  # one task of 49, for the detail pane


async def test_a_long_replay_shows_a_window_of_rows_at_once_and_pages_it(tmp_path, monkeypatch):
    """Past WHOLE events the replay shows its rows before the rebuild, a window of them in the
    table, paged as the cursor moves; the review arrives when the rebuild is done."""
    from sttui.controllers.baselines import PlanAgent as Plan
    from sttui.tui import replay

    monkeypatch.setattr(replay, "WHOLE", 10)
    monkeypatch.setattr(replay, "WINDOW", 8)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    loaded = load_task(STT)
    eid, _ = await run_recorded(Store(db), loaded, Plan("baseline:naive", loaded.task.naive_plan), ScriptedUser())
    total = len(Store(db).events(eid))
    assert total > 10
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(130, 40)) as pilot:
        app.with_record(lambda: None)  # (home on a record that exists opens it only when needed)
        await wait_for(pilot, lambda: app.store is not None)
        app.push_screen(replay.ReplayScreen(app.store, eid))
        await wait_for(pilot, lambda: isinstance(app.screen, replay.ReplayScreen) and bool(app.screen.query("#events")))
        screen = app.screen
        table = screen.query_one("#events", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        assert table.row_count == 8 and f"{total} events" in str(screen.query_one("#status-bar").render())
        await wait_for(pilot, lambda: screen.review is not None)
        seqs = [e.seq for e in Store(db).events(eid)]
        await pilot.press("end")  # the last event, however long the episode: one key
        await pilot.pause()
        assert screen.events[table.cursor_row].seq == seqs[-1]
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert screen.events[table.cursor_row].seq == seqs[0]
        for _ in range(total + 3):  # to the end and past it, a row at a time
            await pilot.press("right")
        await pilot.pause()
        shown = screen.events[table.cursor_row]
        assert shown.seq == Store(db).events(eid)[-1].seq and table.row_count == 8
        await pilot.press("left")
        await pilot.pause()
        assert screen.events[table.cursor_row].seq == shown.seq - 1
        if screen.first_error is not None:
            await pilot.press("e")
            await pilot.pause()
            assert str(table.get_row_at(table.cursor_row)[2]).startswith("◀ first error")


async def test_the_sessions_pane_pages_as_the_cursor_reaches_its_end(tmp_path, monkeypatch):
    from sttui.tui import home as home_module
    from tests.test_scale_store import _fill, _varied

    monkeypatch.setattr(home_module, "SESSIONS_PAGE", 10)
    db = f"sqlite:///{tmp_path / 'p.db'}"
    _fill(Store(db), _varied(25))
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        # the newest ten, and the two running episodes older than they are (listed first)
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 12)
        await pilot.press("f6")
        for _ in range(30):
            await pilot.press("down")
        await wait_for(pilot, lambda: home.sessions_table().row_count == 25)
        newest = [r.id for r in Store(db).iter_episodes()]
        assert [r.id for r in home.sessions[2:]] == [r for r in newest if r not in {s.id for s in home.sessions[:2]}]


async def test_a_long_records_sessions_say_how_many_and_list_every_running_one_first(tmp_path, monkeypatch):
    """A page of a long record said as one (it read "500 session(s)" of 50,000), with every
    running episode in sight, however old: one left running under 600 newer ones could be
    neither seen nor resumed from the workbench."""
    from sttui.tui import home as home_module
    from tests.test_scale_store import _fill, _varied

    monkeypatch.setattr(home_module, "SESSIONS_PAGE", 10)
    db = f"sqlite:///{tmp_path / 'p.db'}"
    _fill(Store(db), _varied(25))  # running: the 2nd, 10th and 18th oldest
    newest = [r.id for r in Store(db).iter_episodes()]
    running = [r.id for r in Store(db).iter_episodes() if r.status == "running"]
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 12)
        await pilot.press("f6")
        older = [r for r in running if r not in newest[:10]]
        assert len(older) == 2 and [r.id for r in home.sessions] == [*older, *newest[:10]]
        await wait_for(pilot, lambda: "12 of 25 sessions shown" in str(home.query_one("#status").render()))
        assert str(home.query_one("#status").render()) == (
            "12 of 25 sessions shown, more at the end · 3 running (listed first)"
        )
        for _ in range(30):
            await pilot.press("down")
        await wait_for(pilot, lambda: home.sessions_table().row_count == 25)  # each once
        assert sorted(r.id for r in home.sessions) == sorted(newest)
        assert str(home.query_one("#status").render()) == "25 session(s) · 3 running · 0 not clean baselines"


async def test_the_sessions_tab_filters_the_whole_record_by_its_own_filter(tmp_path, monkeypatch):
    """The Sessions tab had no filter, and "/" there switched to the Tasks tab. Its own filter
    reads the record again (the pane holds a page, not all): a session older than the page
    shown is found; the status line says how many match; escape brings every session back."""
    from textual.widgets import Input

    from sttui.tui import home as home_module
    from tests.test_scale_store import _fill, _varied

    monkeypatch.setattr(home_module, "SESSIONS_PAGE", 10)
    db = f"sqlite:///{tmp_path / 'p.db'}"
    rows = _varied(25)
    rows[0].update(task_id="clinic-oldest-t1-easy", agent="human:Ana")  # the oldest: not on the first page
    _fill(Store(db), rows)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 12)
        await pilot.press("f6")
        assert rows[0]["id"] not in {r.id for r in home.sessions}
        await pilot.press("slash")
        assert home.focused is home.query_one("#sessions-filter", Input)
        assert home.query_one("#home-tabs").current == "tab-sessions"  # ("/" had switched to Tasks)
        for key in "CLINIC ana":
            await pilot.press({" ": "space"}.get(key, key))
        await wait_for(pilot, lambda: [r.id for r in home.sessions] == [rows[0]["id"]])
        assert home.sessions_table().row_count == 1
        await wait_for(pilot, lambda: "match" in str(home.query_one("#status").render()))
        assert str(home.query_one("#status").render()) == "1 session(s) match “CLINIC ana” · 0 running"
        await pilot.press("enter")
        assert home.focused is home.sessions_table()
        await pilot.press("escape")
        await wait_for(pilot, lambda: home.sessions_table().row_count == 12)
        assert home.query_one("#sessions-filter", Input).value == ""
        await pilot.press("slash", "t", "a", "s", "k", "-", "3")  # a word of many: a page of them
        await wait_for(pilot, lambda: home.sessions and all(r.task_id == "task-3" for r in home.sessions))
        assert len(home.sessions) == sum(r["task_id"] == "task-3" for r in rows)
