"""Render only what changed: an event that changes none of the explore screen's tables or help
lines refills no table and updates no help line (each update re-lays out the screen); a table
that changes is updated in place; a call on the play screen adds its items and lays the screen
out once (issue 26)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from sttui.core.actions import ToolCall
from sttui.core.state import canonical
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.play import LIVE_ITEMS, TRIM_BATCH
from sttui.tui.widgets import ResultFold, fit_parts
from tests.conftest import ROOT
from tests.tui_helpers import open_play, play_alone, started, wait_for

EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"
INSULIN = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


async def test_an_event_that_changes_nothing_shown_redraws_nothing(tmp_path, monkeypatch):
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, EXPLORE, "agent", "ExploreScreen")
        await pilot.press("f5")
        await pilot.pause(0.2)
        cleared: list[str | None] = []
        updated: list[str | None] = []
        clear, update = DataTable.clear, Static.update
        monkeypatch.setattr(
            DataTable, "clear", lambda self, *a, **k: (cleared.append(self.id), clear(self, *a, **k))[1]
        )
        monkeypatch.setattr(Static, "update", lambda self, *a, **k: (updated.append(self.id), update(self, *a, **k))[1])
        for _ in range(3):  # the episode moved on, but nothing on these panes changed
            screen.post_message(screen.Changed())
        await pilot.pause(0.2)
        assert cleared == [] and [u for u in updated if u in ("probe-help", "batch-help", "batch-feedback")] == []
        await pilot.press("f6", "f6", "f6")  # → probe
        await pilot.press("p")  # a probe: its rows are added to the results table, and the help says it is used
        await wait_for(pilot, lambda: len(screen.episode.probes) == 1)
        await pilot.pause(0.2)
        results = screen.query_one("#probe-results", DataTable)
        assert results.row_count == len(screen.episode.probes[0]["cases"]) and "probe-help" in updated
        assert cleared == []  # no table is cleared and refilled, the one that changed included


# -- play: a key press lays the screen out once for everything it changed (issue 26) --------------


async def _call(pilot, screen, text: str, typed: Callable[[], object] = lambda: None) -> None:
    """Send ``text`` from the call line (``typed``: what to do once it is typed, before enter)."""
    steps = screen.episode.steps
    screen.query_one("#entry", Input).value = text
    await pilot.pause(0.1)
    typed()
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.episode.steps > steps and screen.human.waiting and not screen._pending)
    await pilot.pause(0.1)


async def test_a_call_mounts_its_two_items_and_lays_the_screen_out_once(tmp_path, monkeypatch):
    """The call and its result are added, one widget each; the items on screen stay the same widgets; the result
    is built unfolded and the one before folds; the emptied entry, the fold, the mount and the
    status line are laid out together (one layout, and the one Textual adds to size new widgets),
    not once each (three to six before)."""
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await _call(pilot, screen, "get_vehicle_status(vehicle_id=TRK-7)")
        conversation = screen.query_one("#conversation")
        before = list(conversation.children)
        nodes = len(list(conversation.walk_children()))
        folds: list[tuple[int, bool]] = []
        layouts: list[int] = []
        relayout = Screen._refresh_layout

        def count() -> None:  # from the press of enter on
            monkeypatch.setattr(
                ResultFold, "watch_collapsed", lambda self, c: folds.append((id(self), c)), raising=False
            )
            monkeypatch.setattr(
                Screen, "_refresh_layout", lambda self, *a, **k: (layouts.append(1), relayout(self, *a, **k))[1]
            )

        await _call(pilot, screen, "get_vehicle_status(vehicle_id=TRK-9)", count)
        after = list(conversation.children)
        assert all(a is b for a, b in zip(after[: len(before)], before, strict=True))  # the same widgets
        assert len(after) == len(before) + 2 and screen.query_one("#entry", Input).value == ""
        # two widgets in all, each of them one node: a result is one widget, not a Collapsible's
        # four (itself, its title, its contents and its body), each styled and laid out
        assert len(list(conversation.walk_children())) == nodes + 2
        results = list(conversation.query(ResultFold))
        assert [r.collapsed for r in results] == [True, False]
        assert [c for i, c in folds if i == id(results[-1])] in ([], [False])  # built unfolded, never folded
        assert len(layouts) == 1, layouts  # (Textual adds one for new widgets: LaidOutOnce spares it)


async def test_older_items_leave_ten_at_a_time_in_one_removal(tmp_path, monkeypatch):
    """Each removal re-lays out the screen: items over LIVE_ITEMS leave TRIM_BATCH together, not
    one a call; all of them stay in the record, and F9 brings them back."""
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        conversation = screen.query_one("#conversation")
        removals: list[int] = []
        prune = type(pilot.app)._prune

        def counted(app, *widgets, parent=None):
            if parent is conversation:
                removals.append(len(widgets))
            return prune(app, *widgets, parent=parent)

        monkeypatch.setattr(type(pilot.app), "_prune", counted)
        live: list[int] = []
        for _ in range(25):  # 50 items and the user's first message
            screen.episode.apply(ToolCall("get_vehicle_status", {"vehicle_id": "TRK-9"}), screen.human.name)
            await wait_for(pilot, lambda: screen._shown == len(screen.episode.view) and not screen._pending)
            live.append(len([w for w in conversation.children if w.id != "earlier"]))
        assert removals and all(n >= TRIM_BATCH for n in removals)
        assert len(removals) <= (len(screen.episode.view) - LIVE_ITEMS) // TRIM_BATCH
        assert max(live) < LIVE_ITEMS + TRIM_BATCH and screen._hidden == sum(removals)
        assert screen.query_one("#earlier", Static).render()  # the note says where the rest are


async def test_the_status_line_is_laid_out_again_only_when_its_wrapping_can_change(tmp_path, monkeypatch):
    """The clock's second changes the status line each second: it is repainted, never re-laid
    out (a layout costs more than the rest of a key press); the same text is not even repainted."""
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        updates: list[bool] = []
        update = Static.update
        monkeypatch.setattr(
            Static,
            "update",
            lambda self, *a, layout=True, **k: (
                updates.append(layout) if self.id == "status-bar" else None,
                update(self, *a, layout=layout, **k),
            )[1],
        )
        for line in (
            "clock 00:12  step 3/40",
            "clock 00:13  step 3/40",
            "clock 00:13  step 3/40",
            "clock 00:13  step 4/40",
        ):
            monkeypatch.setattr(screen, "status_text", lambda line=line: Text(line))
            screen._tick()
        assert updates == [True, False, False]  # the first differs in shape from the real line before it
        monkeypatch.setattr(screen, "status_text", lambda: Text("clock 00:13  step 10/40"))
        screen._tick()
        assert updates[-1] is True  # a longer word may wrap elsewhere: laid out
        assert str(screen.query_one("#status-bar").render()) == "clock 00:13  step 10/40"


def test_a_status_line_breaks_only_where_its_parts_meet():
    line = Text.assemble(
        ("step ", "dim"), "0", "  ", ("agent ", "dim"), "human:root", "  ", ("user ", "dim"),
        "baseline:scripted-user", "  ", ("clock ", "dim"), ("⏸ paused (F5 starts)", "bold yellow"), " 00:00", "  ",
    )  # fmt: skip
    parts = ["step 0", "agent human:root", "user baseline:scripted-user", "clock ⏸ paused (F5 starts) 00:00"]
    for width in (20, 40, 60, 78, 79):
        fitted = fit_parts(line, width)
        lines = fitted.plain.split("\n")
        assert [p for row in lines for p in row.split("  ")] == parts, width
        assert all(len(row) <= max(width, max(map(len, parts))) for row in lines), width
        assert all(row == row.strip() for row in lines)  # the gap is dropped where a line breaks
    assert fit_parts(line, 78).plain.split("\n") == [
        "step 0  agent human:root  user baseline:scripted-user",
        "clock ⏸ paused (F5 starts) 00:00",
    ]
    # the styles stay on their words, and a line that fits is kept as it is
    fitted = fit_parts(line, 78)
    start = fitted.plain.index("⏸")
    assert any(s.start == start and s.style == "bold yellow" for s in fitted.spans)
    assert fit_parts(line, 200) is line
    # the explore screen's "  ·  " gaps: the dot goes with the gap where the line breaks
    phase = line + "  ·  batch 1/3  ·  acting  ·  probe available"
    assert fit_parts(phase, 30).plain.split("\n")[-2:] == ["batch 1/3  ·  acting", "probe available"]


async def test_the_play_screens_status_line_keeps_each_phrase_whole_at_80_columns(tmp_path):
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        bar = screen.query_one("#status-bar", Static)
        await wait_for(pilot, lambda: "\n" in str(bar.render()))
        rows = str(bar.render()).split("\n")
        assert any(row.startswith("clock ⏸ paused (F5 starts) ") for row in rows), rows
        assert bar.size.height == len(rows)
        await pilot.resize_terminal(160, 24)
        await wait_for(pilot, lambda: "\n" not in str(bar.render()))
        assert bar.size.height == 1
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: "\n" in str(bar.render()))


async def test_the_entry_empties_when_its_call_is_shown_but_keeps_what_was_typed_since(tmp_path):
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        entry = screen.query_one("#entry", Input)
        screen._sent, entry.value = "get_route(origin=A)", "list_vehicles("
        screen._clear_sent()
        assert entry.value == "list_vehicles(" and screen._sent is None
        screen._sent, entry.value = "get_route(origin=A)", "get_route(origin=A)"
        screen._clear_sent()
        assert entry.value == ""
        # typed straight after enter, before the call showed: only the new call stays
        screen._sent, entry.value = "get_route(origin=A)", "get_route(origin=A)list_vehicles("
        entry.cursor_position = len(entry.value)
        screen._clear_sent()
        assert entry.value == "list_vehicles(" and entry.cursor_position == len("list_vehicles(")


# -- explore: tables updated in place ---------------------------------------------------------------


async def test_typing_in_the_entry_lays_nothing_out_and_a_long_call_still_scrolls(tmp_path, monkeypatch):
    """Each key typed changed the entry's virtual size (its text's width), and Textual laid
    the whole screen out for it; the entry's size is fixed, so typing lays out nothing. A call
    longer than the entry scrolls as an Input does: the cursor stays in sight at its end."""
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.pause()
        layouts: list[int] = []
        relayout = Screen._refresh_layout
        monkeypatch.setattr(
            Screen, "_refresh_layout", lambda self, *a, **k: (layouts.append(1), relayout(self, *a, **k))[1]
        )
        text = "get_vehicle_status(vehicle_id=TRK-9)" * 3  # wider than the entry at 80 columns
        keys = {"(": "left_parenthesis", ")": "right_parenthesis", "=": "equals_sign", "_": "underscore", "-": "minus"}
        await pilot.press(*[keys.get(ch, ch) for ch in text])
        await pilot.pause()
        entry = screen.query_one("#entry", Input)
        assert entry.value == text and layouts == []
        assert entry.scroll_x > 0 and entry.cursor_screen_offset.x < entry.region.right  # scrolled: cursor in sight


async def test_a_new_batch_takes_the_rows_in_place_and_history_gains_one(tmp_path, monkeypatch):
    """Submitting a batch: the next batch's cases are written into the same rows (the same row
    keys, no clear and refill), and the history table gains its row."""
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, EXPLORE, "agent", "ExploreScreen")
        await pilot.press("f5")
        await pilot.pause(0.2)
        batch, history = screen.query_one("#batch", DataTable), screen.query_one("#history", DataTable)
        keys = list(batch.rows)
        cleared: list[str | None] = []
        clear = DataTable.clear
        monkeypatch.setattr(
            DataTable, "clear", lambda self, *a, **k: (cleared.append(self.id), clear(self, *a, **k))[1]
        )
        played = screen.view["batch"]
        await pilot.press(*["1"] * batch.row_count, "s")
        await wait_for(pilot, lambda: screen.view["batch"] != played or screen.view["phase"] != "window")
        await pilot.pause(0.2)
        assert cleared == [] and history.row_count == 1
        assert screen.view["phase"] == "window"  # the next batch's cases, in the same rows
        assert batch.row_count == len(keys) and all(a is b for a, b in zip(list(batch.rows), keys, strict=True))
        names = [f["name"] for f in screen.view["fields"]]
        assert [batch.get_row_at(i)[2:] for i in range(batch.row_count)] == [
            [str(case[n]) for n in names] for case in screen.view["cases"]
        ]
        assert all(batch.get_row_at(i)[1] == "—" for i in range(batch.row_count))  # no choice carried over


async def test_the_god_view_redraws_only_what_an_event_changed_and_its_opening_is_recorded(tmp_path, monkeypatch):
    """While the god view is open it is redrawn on every event: the state tree is rebuilt only
    when the state changed (a read changes nothing), its texts updated only when they changed.
    Opening it is still recorded, and the episode is still marked as not a clean baseline."""
    import sttui.tui.play as play

    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5", "f2", "y")
        await wait_for(pilot, lambda: screen.god)
        session = screen.session
        session.writer.flush()
        assert [e.type for e in session.store.events(session.episode_id)].count("god_view") == 1 and session.peeked
        rebuilt: list[int] = []
        tree = play.state_tree
        monkeypatch.setattr(play, "state_tree", lambda t, data: (rebuilt.append(1), tree(t, data))[1])
        updated: list[str | None] = []
        update = Static.update
        monkeypatch.setattr(Static, "update", lambda self, *a, **k: (updated.append(self.id), update(self, *a, **k))[1])
        await _call(pilot, screen, "get_vehicle_status(vehicle_id=TRK-9)")  # a read
        # the milestone frontier speaks of the last action, so it may change; the rest did not
        assert rebuilt == [] and not {"god-checklist", "god-triggers"} & set(updated)
        state = canonical(screen.episode.env.state)
        await _call(
            pilot,
            screen,
            "create_shipment(goods=insulin, quantity=500, origin=HUB-NORTH, destination=CLINIC-DOWNTOWN, deadline=2024-08-15T10:00:00)",
        )
        assert canonical(screen.episode.env.state) != state and rebuilt == [1]  # a write: the tree shows it


async def test_the_heap_is_frozen_while_a_seat_screen_shows_and_given_back_when_it_closes(tmp_path):
    """What is alive when a play screen opens (the episode so far, the modules, the record) is
    kept out of the cyclic collector's full collections while the person plays, so a key press
    does not pay for a walk over all of it; leaving the screen gives the objects back, and an
    app that ends with the screen open gives them back too."""
    import gc

    assert gc.get_freeze_count() == 0
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, INSULIN, "agent", "PlayScreen")
        episode = screen.episode
        assert gc.get_freeze_count() > 0
        assert not any(o is episode for o in gc.get_objects(generation=2))  # frozen: out of a full collection's walk
        screen.session.leave("suspended")
        app.switch_screen(app.base_screen())
        await wait_for(pilot, lambda: type(app.screen).__name__ != "PlayScreen")
        await wait_for(pilot, lambda: gc.get_freeze_count() == 0)
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        await started(pilot, "PlayScreen")
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0  # the app ended with the screen open


async def test_a_call_is_painted_in_the_frame_that_lays_it_out_scrollbar_included(tmp_path, monkeypatch):
    """The layout that places a call's items paints them, the result that folds and the pane's
    moved scrollbar in its own frame: no second frame repaints what the first just drew (the
    new result, the scrollbar). The scrollbar's cells are among those that frame repaints."""
    from textual._compositor import Compositor

    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        for _ in range(12):  # enough items for the pane to scroll
            await _call(pilot, screen, "get_vehicle_status(vehicle_id=TRK-7)")
        conversation = screen.query_one("#conversation")
        bar = conversation.vertical_scrollbar
        assert conversation.show_vertical_scrollbar
        painted: list[list[Region]] = []
        render = Compositor.render_update

        def record(self, *a, **k):  # the regions each frame repaints
            painted.append([self.size.region] if k.get("full") else list(self._dirty_regions))
            return render(self, *a, **k)

        position = (bar.window_virtual_size, bar.position)
        await _call(  # from the press of enter on
            pilot,
            screen,
            "get_vehicle_status(vehicle_id=TRK-9)",
            lambda: monkeypatch.setattr(Compositor, "render_update", record),
        )
        assert (bar.window_virtual_size, bar.position) != position  # the scrollbar moved
        frames = [regions for regions in painted if regions]
        assert len(frames) == 1, frames
        cells = {(x, y) for region in frames[0] for y in region.line_range for x in range(region.x, region.right)}
        assert all((x, y) in cells for y in bar.region.line_range for x in range(bar.region.x, bar.region.right))


# -- play: a frame renders only what changed, and a result is rendered once per width (issue 26) ----


async def test_a_partial_update_renders_only_the_widgets_that_changed_and_writes_the_same(tmp_path, monkeypatch):
    """A key press changes the status line (the top row), the conversation and the call entry
    (the bottom rows): their bounding box is the whole screen, yet the tool pane, clear of every
    changed region, is not rendered for the frame. What the frame writes to the terminal is, byte
    for byte, what Textual's own partial update writes, for the regions a press changes and for
    regions that touch the tool pane."""
    from textual._compositor import Compositor
    from textual.widgets import OptionList

    from sttui.tui.compositor import SparseCompositor

    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        for vehicle in ("TRK-7", "TRK-9", "TRK-7"):
            await _call(pilot, screen, f"get_vehicle_status(vehicle_id={vehicle})")
        compositor = screen._compositor
        assert isinstance(compositor, SparseCompositor)
        tools = screen.query_one("#tools", OptionList)
        rendered: list[object] = []
        render_lines = OptionList.render_lines
        monkeypatch.setattr(
            OptionList, "render_lines", lambda self, crop: (rendered.append(self), render_lines(self, crop))[1]
        )
        conversation = screen.query_one("#conversation").region
        entry = screen.query_one("#entry").region
        status = screen.query_one("#status-bar").region
        cases = [
            {status, conversation, entry},  # a key press
            {conversation.intersection(Region(0, 5, 120, 3))},
            {tools.region},  # the tool pane itself
            {Region(0, 3, 120, 2), Region(100, 30, 5, 5)},  # across it, and inside it
        ]
        for changed in cases:
            compositor._dirty_regions.update(changed)
            compositor._cuts = None  # (as after a layout: the frame works them out again)
            ours = compositor.render_partial_update()
            kept = compositor.cuts
            compositor._cuts = None
            assert compositor.cuts == kept  # what later frames use is of every widget, not only those rendered
            compositor._dirty_regions.update(changed)
            textuals = Compositor.render_partial_update(compositor)  # (every widget in the box)
            assert ours is not None and textuals is not None
            assert ours.render_segments(app_console := screen.app.console) == textuals.render_segments(app_console)
        rendered.clear()
        compositor._dirty_regions.update(cases[0])
        compositor.render_partial_update()
        assert rendered == []  # the tool pane was not rendered for the key press's frame
        compositor._dirty_regions.update(cases[0])
        Compositor.render_partial_update(compositor)
        assert rendered == [tools]  # (Textual's own renders it)


async def test_a_result_is_measured_and_painted_from_the_lines_it_keeps(tmp_path, monkeypatch):
    """An unfolded result's body is rendered once for its width: its height is counted from those
    lines and its paint takes them, not a rendering of the whole body for each (a long result was
    rendered twice at every key press that added it). The strips are Textual's own, focused or
    not, folded or not, at any width."""
    from textual.widget import Widget

    from sttui.tui.widgets import RenderedOnce

    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        renders: list[int] = []
        render_lines = RenderedOnce.lines
        monkeypatch.setattr(
            RenderedOnce,
            "lines",
            lambda self, c, o: (renders.append(self._width == o.max_width), render_lines(self, c, o))[1],
        )
        await _call(pilot, screen, "get_vehicle_status(vehicle_id=TRK-7)")
        assert renders and renders.count(False) == 1  # measured and painted from one rendering
        for size in ((120, 40), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            for fold in screen.query(ResultFold):
                for focused in (False, True):
                    if focused:
                        fold.focus()
                        await pilot.pause(0.05)
                    width = fold.size.width
                    assert fold.get_content_height(fold.size, fold.size, width) == fold._render().get_height(
                        fold.styles, width
                    )
                    fold._layout_cache.clear()
                    fold._render_content()
                    ours = [list(strip) for strip in fold._render_cache.lines]
                    Widget._render_content(fold)
                    assert ours == [list(strip) for strip in fold._render_cache.lines]
