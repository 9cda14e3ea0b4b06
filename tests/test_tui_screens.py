"""The screens' layout and paper cuts (issue 14), each screen tested alone where it can be:
play, the dialogs, the help, explore, the reveal, home and annotation."""

from __future__ import annotations

import asyncio
import re
from types import SimpleNamespace
from typing import Any

import pytest
from textual import events
from textual.screen import Screen
from textual.widgets import Button, DataTable, Input, OptionList, Static

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.actions import ToolCall
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.store import Store
from sttui.tui.app import Placeholder, SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import ScreenApp, footer_text, play_alone, ready, screen_text, started, wait_for

AIR = ROOT / "tasks" / "stt" / "air-travel" / "ams-connection-delay-t3-easy.yaml"
CARDIO = ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml"
INSULIN = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'screens.db'}"


async def call(pilot, screen, text: str) -> None:
    """Put one call on the call line and send it; back when the agent's turn comes again."""
    steps = screen.episode.steps
    screen.query_one("#entry", Input).value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.episode.steps > steps and screen.human.waiting)
    await pilot.pause()


def text_of(app) -> str:
    return "\n".join(screen_text(app))


# -- play (agent seat) -----------------------------------------------------------------------


async def test_the_newest_result_is_unfolded_older_ones_fold_and_lists_take_bare_words(db):
    async with play_alone(db, AIR).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await call(pilot, screen, "get_booking(locator=QK7M2P)")
        await call(pilot, screen, "get_flight_status(flight_number=KL1112)")
        results = list(screen.query("ResultFold"))
        assert [r.collapsed for r in results] == [True, False]
        assert '"status": "delayed"' in text_of(pilot.app)  # in sight without ctrl+o
        # a list of bare words on the call line
        await call(pilot, screen, "rebook(locator=QK7M2P, from_flights=[KL641], to_flights=[KL643])")
        calls = [e.payload for e in screen.episode.events if e.type == "tool_call"]
        assert calls[-1]["args"] == {"locator": "QK7M2P", "from_flights": ["KL641"], "to_flights": ["KL643"]}
        assert [r.collapsed for r in screen.query("ResultFold")] == [True, True, False]


async def test_a_result_folds_and_unfolds_by_click_enter_and_ctrl_o(db):
    """A result is one widget that folds to its title line: a click on it or enter on it
    toggles it, ctrl+o the newest; folded, only the title shows, unfolded, the body too."""
    async with play_alone(db, AIR).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await call(pilot, screen, "get_booking(locator=QK7M2P)")
        await call(pilot, screen, "get_flight_status(flight_number=KL1112)")
        older, newest = list(screen.query("ResultFold"))
        assert (older.collapsed, newest.collapsed) == (True, False)
        assert older.outer_size.height == 1 and newest.outer_size.height > 3
        await pilot.click(older)
        await pilot.pause()
        assert not older.collapsed and older.outer_size.height > 3
        assert '"locator": "QK7M2P"' in text_of(pilot.app)
        older.focus()
        assert older.body._lines  # unfolded: its lines rendered once, kept for the repaints
        await pilot.press("enter")
        await pilot.pause()
        assert older.collapsed and older.outer_size.height == 1
        assert older.body._lines == []  # folded: none kept (a long result's are megabytes)
        screen.query_one("#entry").focus()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert newest.collapsed and newest.outer_size.height == 1


async def test_typing_with_a_result_or_the_tool_list_focused_goes_to_the_entry(db):
    """A person reading a result (focused by enter or a click) who starts typing the next call
    gets it in the entry, focused: no key is lost. A key a binding takes (? for the help)
    still does what it does."""
    async with play_alone(db, AIR).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await call(pilot, screen, "get_booking(locator=QK7M2P)")
        entry = screen.query_one("#entry", Input)
        screen.query_one("ResultFold").focus()
        await pilot.press(*"get")
        assert screen.focused is entry and entry.value == "get"
        screen.query_one("#tools").focus()
        await pilot.press("b")
        assert screen.focused is entry and entry.value == "getb"
        # keys typed in a burst reach the widget that had the focus when they were read, after
        # the entry has it: they join the entry too, in order (they had been dropped)
        # (as each such key comes up from the tool list to the screen: the handler, called as
        # Textual calls it; a terminal delivers a burst faster than the focus moves)
        for key in "_r":
            screen.on_key(events.Key(key, key))
        await pilot.pause()
        assert screen.focused is entry and entry.value == "getb_r"
        screen.query_one("#conversation").focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert entry.value == "getb_r" and pilot.app.screen is not screen  # the help, as before


async def test_typing_in_the_user_seat_with_the_transcript_focused_goes_to_the_reply(db):
    async with play_alone(db, AIR, seat="user").run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "UserSimScreen")
        screen.query_one("#conversation").focus()
        await pilot.press(*"yes")
        reply = screen.query_one("#reply", Input)
        assert screen.focused is reply and reply.value == "yes"


@pytest.mark.parametrize(("size", "least"), [((120, 40), 22), ((80, 24), 10)])
async def test_the_tool_list_shows_the_tools(db, size, least):
    """All 22 clinic tools at 120x40 (one row before); at 80x24 more than half (none before)."""
    async with play_alone(db, CARDIO).run_test(size=size) as pilot:
        screen = await started(pilot, "PlayScreen")
        tools = screen.query_one("#tools", OptionList)
        assert tools.option_count == 22
        shown = screen_text(pilot.app)
        visible = [name for name in screen.episode.tools if any(line.rstrip().endswith(name) for line in shown)]
        assert len(visible) >= least, visible
        if least == 22:
            assert tools.max_scroll_y == 0


async def test_the_god_view_keeps_words_whole_and_the_checklist_in_sight(db):
    async with play_alone(db, CARDIO).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f2")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.god)
        await pilot.pause()
        lines = screen_text(pilot.app)
        shown = "\n".join(lines)
        assert "Checklist (live)" in shown
        for item in ("okafor-review", "told-westbrook", "no-clash"):
            assert item in shown  # without scrolling
        # a constraint's path is never broken across lines
        assert any("state.clinicians.CL-OKAFOR.shifts.2024-09-12.site" in line for line in lines)
        assert not any(line.rstrip().endswith("CL-OKAFO") for line in lines)


async def test_the_form_fills_the_call_line_and_starts_in_its_first_field(db):
    async with play_alone(db, INSULIN).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "PlayScreen")
        first_tool = next(iter(screen.episode.tools))
        screen.query_one("#tools", OptionList).highlighted = 0
        await pilot.press("f3")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ToolForm")
        form = pilot.app.screen
        assert "Fill the call line" in str(form.query_one("#ok", Button).label)
        first_param = next(iter(screen.episode.tools[first_tool].parameters["properties"]))
        assert pilot.app.focused is form.query_one(f"#param-{first_param}", Input)


async def test_the_footer_at_80x24_shows_the_keys_that_end_or_hand_over(db):
    async with play_alone(db, INSULIN).run_test(size=(80, 24)) as pilot:
        await started(pilot, "PlayScreen")
        footer = footer_text(pilot.app)
        assert "f8 End" in footer and "f10 Hand" in footer, footer


# -- the help ----------------------------------------------------------------------------


async def test_f1_lists_every_key_of_the_screen_with_its_binding_id(db):
    from sttui.config import Config
    from sttui.tui.play import PlayScreen

    app = play_alone(db, INSULIN, config=Config(keymap={"play.end": "ctrl+e"}))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, "PlayScreen")
        await pilot.press("f1")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "KeysHelp")
        help_screen = pilot.app.screen
        ids = {row.id: row for row in help_screen.rows}
        for binding in PlayScreen.BINDINGS:  # the hidden ones too (F9, F12, ctrl+o)
            assert binding.id in ids, binding.id
        assert {"app.quit", "app.help"} <= set(ids)
        assert ids["play.end"].keys == "^e"  # as bound now, after the keymap
        assert pilot.app.focused is help_screen.query_one("#keys", DataTable)
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "PlayScreen")


@pytest.mark.parametrize(
    ("where", "size", "visible"), [("play", (120, 40), 18), ("home", (80, 24), 8), ("home", (120, 40), 20)]
)
async def test_the_help_shows_every_binding_id_whole(db, where, size, visible):
    """The id is what a keymap needs: a long description is shortened, never the id (at 80
    columns the description's fixed width had cut home.annotate_verdicts to home.annotate_verd),
    nor where the key works (home's list keys read "in the DataTab" at 120 columns)."""
    home = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    app = play_alone(db, INSULIN) if where == "play" else home
    async with app.run_test(size=size) as pilot:
        if where == "play":
            await started(pilot, "PlayScreen")
        else:
            await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "KeysHelp")
        table = pilot.app.screen.query_one("#keys", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        await pilot.pause()
        shown = "\n".join(screen_text(pilot.app))
        rows = pilot.app.screen.rows[:visible]  # those on screen without scrolling
        assert rows and all(r.id in shown for r in rows), [r.id for r in rows if r.id not in shown]
        assert all(r.where in shown for r in rows), [r.where for r in rows if r.where not in shown]


async def test_home_footer_at_80_columns_shows_quit_and_the_keys_help(db):
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.pause()
        footer = footer_text(pilot.app)
        assert "^q Quit" in footer and "f1 Keys" in footer, footer
        shown = "\n".join(screen_text(pilot.app))
        assert "s sorts" in shown  # the keys left out of the footer are told on the filter line


async def test_question_mark_opens_the_help_on_home(db):
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "KeysHelp")
        assert {"home.filter", "home.tab", "home.resume"} <= {row.id for row in pilot.app.screen.rows}


# -- dialogs ---------------------------------------------------------------------------------


class Base(Screen[None]):
    def compose(self):
        yield Static("behind the dialog")


class _DialogApp(SttuiApp):
    """A dialog alone, over a plain screen; what it returns goes to ``results``."""

    def __init__(self, dialog, results: list):
        super().__init__(Launch.build(ROOT / "nonexistent", db_url=None, human="ana"))
        self.dialog, self.results = dialog, results

    def base_screen(self) -> Screen[None]:
        return Placeholder()  # no home under the dialog

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()
        self.push_screen(Base())
        self.push_screen(self.dialog, self.results.append)


def _dialogs():
    from sttui.tui.annotate import Tags
    from sttui.tui.explore import AssessmentForm
    from sttui.tui.modals import Confirm, EditValue, ToolForm

    spec = load_task(INSULIN).env_cls.tool_specs["create_shipment"]
    view = {
        "question": "Which fields are relevant?",
        "fields": [{"name": "age", "type": "numeric", "range": [0, 9]}, {"name": "tier", "type": "x", "levels": ["a"]}],
    }
    return [
        (Confirm("Go?"), "#yes"),
        (ToolForm(spec), "#param-goods"),
        (EditValue("Value", "3"), "#value"),
        (Tags([], ""), "#modes"),
        (AssessmentForm(view, ask_changes=False), "#dir-age"),
    ]


@pytest.mark.parametrize("index", range(5))
async def test_every_dialog_starts_in_its_first_field(index):
    dialog, first = _dialogs()[index]
    async with _DialogApp(dialog, []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is dialog)
        await pilot.pause()
        assert pilot.app.focused is dialog.query_one(first), pilot.app.focused


async def test_dialog_text_is_never_cut_off_at_120_columns():
    from sttui.tui.modals import Confirm

    question = (
        "Open the god view? It shows the hidden state and triggers, is recorded, "
        "and marks this episode as not a clean baseline."
    )
    async with _DialogApp(Confirm(question, "Open it", "Cancel"), []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
        await pilot.pause()
        shown = " ".join(" ".join(line.replace("█", " ").replace("▌", " ").split()) for line in screen_text(pilot.app))
        assert question in shown


async def test_the_oversight_dialog_is_centred():
    from sttui.tui.handoff import ReviewCall

    dialog = ReviewCall(ToolCall("get_vehicle_status", {"vehicle_id": "TRK-7"}), "approve, edit or reject", None)
    async with _DialogApp(dialog, []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is dialog)
        await pilot.pause()
        box = dialog.children[0].region
        assert abs(box.x + box.width / 2 - 60) <= 2 and abs(box.y + box.height / 2 - 20) <= 2, box


async def test_a_models_proposal_with_markup_is_shown_as_written_under_oversight():
    """A model proposes what it likes: "[/]" in its message stopped the oversight dialog."""
    from sttui.core.actions import Say
    from sttui.tui.handoff import ReviewCall

    said = "[/] Booked [red]everything[/]."
    dialog = ReviewCall(Say(said), "approve, edit or reject", None)
    async with _DialogApp(dialog, []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is dialog)
        await pilot.pause()
        assert f"> {said}" in str(dialog.query_one("#proposed", Static).render())


async def test_an_edit_dialogs_title_and_problem_quote_data_as_written():
    """An edit dialog names data (a model's drafted label in its title) and its problem quotes
    what was typed: "[/]" in either had stopped the dialog."""
    from sttui.tui.modals import EditValue

    dialog = EditValue("Edit rule [/] drafted", "", "JSON [b]only", lambda v: f"no tool '{v}'")
    async with _DialogApp(dialog, []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is dialog)
        dialog.query_one("#value", Input).value = "[/]x"
        await pilot.press("enter")
        await pilot.pause()
        assert str(dialog.query_one("#edit-error", Static).render()) == "no tool '[/]x'"
        shown = " ".join(screen_text(pilot.app))
        assert "Edit rule [/] drafted" in shown and "JSON [b]only" in shown


async def test_a_notice_quoting_data_is_shown_as_written():
    """Notices quote data (a task's announced notice, a file's name, an error naming what was
    typed): "[/]" in one, from any screen, stopped the app when Textual's toast read it as markup."""
    from sttui.tui.modals import EditValue

    said = "Lab alert [/] for [red]Grace[/]"
    dialog = EditValue("Which model?", "")
    async with _DialogApp(dialog, []).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is dialog)
        dialog.notify(said, title="Notice")
        await wait_for(pilot, lambda: bool(pilot.app._notifications))
        (notice,) = list(pilot.app._notifications)
        assert notice.message == said and not notice.markup  # the toast draws it as text, not markup


async def test_the_debug_panel_and_a_plans_steps_show_markup_as_written():
    """The debug panel shows the messages a model received (the task's words, the people's,
    the model's): "[/]" in any had stopped the play screen when it opened. A plan's steps on
    an annotation item quote the task's arguments."""
    from types import SimpleNamespace

    from textual.app import App

    from sttui.tui.annotate import _steps
    from sttui.tui.handoff import DebugPanel

    said = "[/] Booked [red]everything[/]"
    holder = SimpleNamespace(name="model:x", last_messages=[{"role": "user", "content": said}])

    class One(App[None]):
        def compose(self):
            yield DebugPanel(id="debug")

    async with One().run_test(size=(120, 20)) as pilot:
        panel = pilot.app.query_one(DebugPanel)
        panel.show(holder)
        await pilot.pause()
        assert said in str(panel.render()) and pilot.app.is_running
    from rich.text import Text

    shown = Text.from_markup(_steps([{"tool": "note", "args": {"text": said}}, {"say": said}])).plain
    assert shown.count(said) == 2, shown


async def test_a_refused_call_quoting_markup_is_said_with_the_entry_kept(db):
    """A call's problem quotes what was typed: `get_vehicle_status(vehicle_id={"[/]": 1})`
    stopped the play screen with a MarkupError instead of saying what was wrong."""
    typed = 'get_vehicle_status(vehicle_id={"[/]": 1})'
    async with play_alone(db, INSULIN).run_test(size=(100, 30)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        entry = screen.query_one("#entry", Input)
        entry.value = typed
        await pilot.press("enter")
        await pilot.pause()
        said = str(screen.query_one("#feedback", Static).render())
        assert "vehicle_id must be a string" in said and "[/]" in said, said
        assert entry.value == typed and pilot.app.is_running


async def test_a_form_problem_and_homes_filter_line_quote_markup_as_written(db):
    """The tool form's problem quotes the values typed, and home's status line the filter typed
    or pasted: "[/]" in either had stopped the screen with a MarkupError."""
    from sttui.core.env import ToolSpec
    from sttui.tui.modals import ToolForm

    spec = ToolSpec(
        "pack", "operation", 1.0, "Pack [crates].", {"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    form = ToolForm(spec)
    async with _DialogApp(form, []).run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: pilot.app.screen is form)
        form.query_one("#param-n", Input).value = '{"[/]": 1}'
        form._done()
        await pilot.pause()
        said = str(form.query_one("#form-error", Static).render())
        assert "[/]" in said and pilot.app.is_running, said
        assert "Pack [crates]." in " ".join(screen_text(pilot.app))
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        pilot.app.screen.query_one("#filter", Input).value = "[/]x"  # as a paste gives it ("/" itself is a key)
        await pilot.pause(0.3)
        status = str(pilot.app.screen.query_one("#status", Static).render())
        assert re.fullmatch(r"0 of \d+ tasks match “\[/\]x”", status), status


async def test_enter_on_the_failure_tag_list_saves_the_tags():
    from sttui.tui.annotate import Tags

    results: list = []
    async with _DialogApp(Tags([], ""), results).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Tags")
        await pilot.pause()
        await pilot.press("space")  # ticks the first mode
        await pilot.press("enter")
        await wait_for(pilot, lambda: results)
    assert results == [(["stale_state_execution"], "")]


# -- explore ---------------------------------------------------------------------------------


async def test_the_probe_table_keeps_its_cursor_and_refuses_a_value_out_of_range(db):
    async with play_alone(db, EXPLORE).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "ExploreScreen")
        field = screen.episode.task.fields[1]  # collateral_cover, 0 to 3
        screen.query_one("#explore-tabs").active = "tab-probe"
        draft = screen.query_one("#probe-draft", DataTable)
        draft.focus()
        await pilot.pause()
        await pilot.press("right", "right", "enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
        dialog = pilot.app.screen
        dialog.query_one("#value", Input).value = str(field.range[1] * 10)
        await pilot.press("enter")
        await pilot.pause()
        assert pilot.app.screen is dialog  # refused: the dialog stays, saying why and the range
        said = str(dialog.query_one("#edit-error").render())
        assert "out of range" in said and f"{field.range[0]:g} to {field.range[1]:g}" in said
        dialog.query_one("#value", Input).value = "1.5"
        await pilot.press("enter")
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        assert screen.draft[0][field.name] == 1.5
        assert (draft.cursor_row, draft.cursor_column) == (0, 2)  # still on the edited cell


async def test_number_keys_act_on_the_batch_tab_only_and_f6_moves_the_focus(db):
    async with play_alone(db, EXPLORE).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "ExploreScreen")
        await pilot.press("f5", "f6")
        assert pilot.app.focused is screen.query_one("#history")
        await pilot.press("f6", "f6")  # → probe
        assert screen.query_one("#explore-tabs").active == "tab-probe"
        await pilot.press("1", "2")
        assert screen.choices == {}  # nothing chosen for a batch out of sight
        assert "Submit" not in footer_text(pilot.app) and "Run probe" in footer_text(pilot.app)
        # F6 pressed quickly many times: the tabs cycle, never stuck or pulled back
        for _ in range(8):
            pilot.app.post_message(events.Key("f6", None))
        await pilot.pause()
        await pilot.pause()
        assert screen.query_one("#explore-tabs").active == "tab-probe"  # 8 presses: round twice
        await pilot.press("f6")
        assert screen.query_one("#explore-tabs").active == "tab-batch"
        assert pilot.app.focused is screen.query_one("#batch")
        await pilot.press("down", "3")
        assert screen.choices == {1: 3}


async def test_utilities_in_sight_at_120_and_the_chosen_action_at_80(db):
    from sttui.tui.explore import _fmt

    async with play_alone(db, EXPLORE).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "ExploreScreen")
        await pilot.press("f5", "f6", "f6", "f6", "p")
        await wait_for(pilot, lambda: len(screen.episode.probes) == 1)
        await pilot.pause()
        utilities = [_fmt(u) for u in screen.episode.probes[0]["utilities"][0]]
        assert any(all(u in line for u in utilities) for line in screen_text(pilot.app)), utilities
    async with play_alone(db, EXPLORE).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "ExploreScreen")
        await pilot.press("f5", "1")
        assert "1. approve" in text_of(pilot.app)


async def test_the_history_chart_is_empty_before_the_first_batch(db):
    async with play_alone(db, EXPLORE).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "ExploreScreen")
        await pilot.press("f6")
        assert not screen.query_one("#curve").display
        assert "No batch played yet" in text_of(pilot.app)
        assert "▇" not in text_of(pilot.app) and "█" not in text_of(pilot.app)


async def test_the_reveal_shows_ea_for_every_reference_and_explains_negative_ca(db):
    from sttui.controllers.explore_baselines import ExploreOracle
    from sttui.running.session import PlaySession
    from sttui.tui.reveal import RevealScreen

    loaded = load_task(EXPLORE)
    store = Store(db)
    session = PlaySession(store, loaded, ExploreOracle("baseline:oracle", loaded.task), None)
    result = await session.run()
    async with ScreenApp(lambda: RevealScreen(session, result), store=store).run_test(size=(120, 40)) as pilot:
        screen = await started(pilot, "RevealScreen")
        scores = str(screen.query_one("#reveal-scores").render())
        ea = next(line for line in scores.splitlines() if "exact accuracy" in line)
        assert re.search(r"100%\s+25%\s+\d+%\s+100%", ea), ea  # you, random, stale, oracle
        assert "below 0 is worse than random" in scores


@pytest.mark.parametrize("study", [True, False])
async def test_the_reveal_is_the_researchers_in_a_study_and_shows_a_titles_brackets(db, tmp_path, study):
    """In a study the reveal says only that the task ended, as the end screen does: the hidden
    rule and the scores would teach the participant's next task. Out of one, a title written
    with markup ("[/]") is shown as written; it was read as markup."""
    from sttui.controllers.explore_baselines import ExploreOracle
    from sttui.running.session import PlaySession
    from sttui.tui.reveal import RevealScreen

    odd = tmp_path / "odd.yaml"
    text = EXPLORE.read_text(encoding="utf-8")
    odd.write_text(re.sub(r"(?m)^title: .*$", 'title: "Loans [/] and [b]fees"', text), encoding="utf-8")
    store = Store(db)
    loaded = load_task(odd)
    session = PlaySession(store, loaded, ExploreOracle("baseline:oracle", loaded.task), None)
    session.in_study = study
    result = await session.run()
    async with ScreenApp(lambda: RevealScreen(session, result), store=store).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "RevealScreen")
        await wait_for(pilot, lambda: bool(screen.query("#end-title") or screen.query("#reveal-title")))
        shown = text_of(pilot.app)
        if study:
            assert "This task has ended" in shown and f"steps {result.episode.steps}" in shown
            assert not screen.query("#reveal-scores") and "hidden rule" not in shown and "family" not in shown
            assert "Loans" not in shown  # nor the title
        else:
            assert "The hidden rule of Loans [/] and [b]fees" in str(screen.query_one("#reveal-title").render())


async def test_an_explore_tasks_scenario_is_shown_as_written(db, tmp_path):
    """The brief's scenario is the task author's text: "[/]" in it stopped the explore screen."""
    text = EXPLORE.read_text(encoding="utf-8")
    scenario = "Loans [/] and [red]fees[/] for the desk."
    odd = tmp_path / "odd.yaml"
    odd.write_text(re.sub(r"(?ms)^scenario: '.*?'\n(?=fields:)", f'scenario: "{scenario}"\n', text), encoding="utf-8")
    assert load_task(odd).task.scenario == scenario
    async with play_alone(db, odd).run_test(size=(120, 40)) as pilot:
        await started(pilot, "ExploreScreen")
        await pilot.press("f5", "f6", "f6")  # the brief (batch, history, brief)
        await pilot.pause()
        assert any(scenario in line for line in screen_text(pilot.app)), screen_text(pilot.app)


async def test_a_message_with_markup_is_shown_as_written_in_the_replay(db):
    """A person or a model writes what they like: "[/]" in a message stopped the replay (its
    event table read each string cell as markup), and "[red]" coloured the row."""
    from rich.text import Text

    from sttui.controllers.baselines import ReplayAgent
    from sttui.core.actions import Say
    from sttui.running.session import PlaySession
    from sttui.tui.replay import ReplayScreen

    said = "[/] I have booked [red]everything[/] \\[b]"
    loaded = load_task(INSULIN)
    store = Store(db)
    session = PlaySession(store, loaded, ReplayAgent("baseline:replay", [Say(said)]), ScriptedUser())
    await session.run()
    app = ScreenApp(lambda: ReplayScreen(store, session.episode_id), store=store)
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await started(pilot, "ReplayScreen")
        table = screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count > 3)
        cells = [Text.from_markup(str(table.get_row_at(i)[2])).plain for i in range(table.row_count)]
        assert any(said in c for c in cells), cells
        await pilot.pause()
        assert any(said in line for line in screen_text(pilot.app)) and pilot.app.is_running


async def _ended(db: str) -> tuple[Any, Any, Any]:
    """A finished episode of the insulin task (the naive plan, the scripted user): its store,
    session and result, for the screens shown at the end."""
    from sttui.running.session import PlaySession

    loaded = load_task(INSULIN)
    store = Store(db)
    session = PlaySession(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
    return store, session, await session.run()


async def test_an_episode_ending_while_the_person_types_lets_its_keys_wait_for_a_pause(db, monkeypatch):
    """The rest of a message typed into the end screen ("…ready to go" and enter) neither
    replays the episode nor goes home; the first key after a pause does."""
    from sttui.tui import episode_over
    from sttui.tui.endscreen import EndScreen

    # (the screen's clock is the test's: a loaded machine may take seconds between two presses,
    # which to a real clock is a pause; here time passes only when the test says so)
    now = [1000.0]
    monkeypatch.setattr(episode_over, "time", SimpleNamespace(monotonic=lambda: now[0]))
    store, session, result = await _ended(db)
    async with ScreenApp(lambda: EndScreen(session, result, typing=True), store=store).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "EndScreen")
        footer = footer_text(pilot.app)
        assert "Replay it" in footer  # (shown, dimmed while held)
        for key in [*"ready to go", "enter", "escape", "r"]:
            await pilot.press(key)
            assert pilot.app.screen is screen, key
        assert screen.holding
        assert episode_over.HELD_NOTICE in [n.message for n in pilot.app._notifications]
        now[0] += episode_over.QUIET_SECONDS / 2  # (half a pause: still held)
        await pilot.press("r")
        assert pilot.app.screen is screen and screen.holding
        now[0] += episode_over.QUIET_SECONDS + 0.01  # the pause after that key
        assert not screen.holding
        await pilot.press("r")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReplayScreen")


async def test_an_episode_ending_with_nothing_typed_answers_its_keys_at_once(db, monkeypatch):
    from sttui.tui import episode_over
    from sttui.tui.endscreen import EndScreen

    monkeypatch.setattr(episode_over, "QUIET_SECONDS", 30.0)  # (a hold would outlast the test)
    store, session, result = await _ended(db)
    async with ScreenApp(lambda: EndScreen(session, result), store=store).run_test(size=(80, 24)) as pilot:
        await started(pilot, "EndScreen")
        assert pilot.app.screen.active_bindings["escape"].binding.description == "Home"  # (a study's says Study)
        assert any("escape goes home." in str(w.render()) for w in pilot.app.screen.query("Static.muted"))
        await pilot.press("r")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReplayScreen")


@pytest.mark.parametrize(
    ("typed", "sent", "typing"),
    [
        ("", False, False),  # nothing typed: the end screen's keys work at once
        ("assign_vehicle(shipment_id=SHP-1, vehi", False, True),  # half a call not sent
        ("> On its way on TRK-9.", True, True),  # a message sent a moment before the end
    ],
)
async def test_the_play_screen_says_whether_its_person_was_typing_when_the_episode_ended(
    db, monkeypatch, typed, sent, typing
):
    from sttui.tui import episode_over

    monkeypatch.setattr(episode_over, "QUIET_SECONDS", 30.0)  # (a "moment" that outlasts the test's steps)
    async with play_alone(db, INSULIN).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.human.waiting)
        if typed:
            screen.query_one("#entry", Input).value = typed
        if sent:
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting and not screen.query_one("#entry", Input).value)
        await pilot.press("f8")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        assert pilot.app.screen.typing is typing


async def test_the_plays_toasts_do_not_cover_the_verdict(db, monkeypatch):
    """A trigger's notice shown on the play screen is gone when the end screen comes: at 80x24
    it covered the lines of the verdict's detail for its last seconds. A warning stays."""
    from sttui.tui import episode_over

    monkeypatch.setattr(episode_over, "QUIET_SECONDS", 0.0)
    async with play_alone(db, INSULIN).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.human.waiting)
        screen.notify("Depot: TRK-7's reefer unit has failed.", title="Notice", timeout=20)
        screen.notify("the time for this task is up", title="Time", severity="warning", timeout=20)
        await wait_for(pilot, lambda: len(list(pilot.app._notifications)) == 2)
        await pilot.press("f8")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        await pilot.pause()
        # … while a warning, which may say why it ended, stays
        assert [n.title for n in pilot.app._notifications] == ["Time"]


async def test_a_triggers_notice_leaves_once_the_conversation_moves_on(db):
    """A trigger's notice toast goes when the next item comes (the conversation shows the
    notice): at 80x24 it lay over the newest lines and the entry for its 20 seconds, over the
    user's reply to the agent's next message."""
    swap = ROOT / "tasks" / "stt" / "air-travel" / "aircraft-swap-seats-st1-easy.yaml"
    async with play_alone(db, swap).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        await call(pilot, screen, "check_in(locator=UAX4P9)")  # the equipment swap fires, announced
        await wait_for(pilot, lambda: bool(list(pilot.app._notifications)))
        assert [n.title for n in pilot.app._notifications] == ["Notice"]
        assert any(item["type"] == "notice" for item in screen.episode.view)
        await call(pilot, screen, "> Done, you are both checked in.")
        await wait_for(pilot, lambda: "user: " in text_of(pilot.app).split("you: Done", 1)[-1])
        await pilot.pause()
        assert [n.title for n in pilot.app._notifications] == []
        assert "Operational notice: equipment change" in text_of(pilot.app)  # (in the conversation)


# -- home ------------------------------------------------------------------------------------


async def test_home_leaves_room_for_the_title_and_counts_what_the_filter_lets_through(db):
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        home = app.screen
        first = sorted(home.rows, key=lambda r: r.id)[0]

        def row_of_first() -> list[str]:
            return [line for line in screen_text(app) if line.strip().startswith(first.id)]

        await wait_for(pilot, row_of_first)
        line = row_of_first()[0]
        assert first.title[:25] in line, line
        await pilot.press("slash", *"logistics")
        await pilot.pause()
        shown = home.query_one("#tasks", DataTable).row_count
        assert f"{shown} of {len(home.rows)} tasks match" in str(home.query_one("#status").render())
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        detail = str(pilot.app.screen.query_one("#detail").render())
        assert detail.splitlines()[0].startswith(first.title[:40])  # the title on the preview's first line


async def test_fast_typing_into_the_filter_loses_nothing_and_opens_nothing(db):
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        keys = [("slash", "/")] + [(ch, ch) for ch in "usar"]  # u, s, a and r are keys of the table too
        for key, char in keys:  # all queued at once, as a fast typist's keys arrive
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one("#filter", Input).value == "usar"
        assert type(app.screen).__name__ == "HomeScreen" and app.screen.sort_column == "id"
        # a filter, then enter twice before the focus has moved: the task that matched opens
        await pilot.press("escape")
        burst = [("slash", "/"), *[(ch, ch) for ch in "finance-additive"], ("enter", None), ("enter", None)]
        for key, char in burst:
            app.post_message(events.Key(key, char))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ExploreScreen")
        assert app.screen.episode.task.id == "finance-additive-1"
        # leave only once the screen is up (an app closed mid-mount trips over its own tabs)
        await wait_for(pilot, lambda: app.screen.query("#batch") and app.screen.query_one("#batch").row_count)
        await pilot.pause()


async def test_the_sessions_tab_has_its_own_keys_count_and_marks(db):
    store = Store(db)
    loaded = load_task(INSULIN)
    for _ in range(2):
        eid, _ = await asyncio.to_thread(
            lambda: asyncio.run(
                run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
            )
        )
    store.update_episode(eid, clean_baseline=False)  # as the god view or a handover does
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        tasks_footer = footer_text(pilot.app)
        assert "Play user seat" in tasks_footer and "Resume" not in tasks_footer
        await pilot.press("f6")
        await wait_for(pilot, lambda: pilot.app.screen.sessions)
        await wait_for(pilot, lambda: "Resume" in footer_text(pilot.app))  # (the footer repaints after the tab)
        footer = footer_text(pilot.app)
        assert "Resume" in footer and "Play user seat" not in footer, footer
        assert not pilot.app.screen.check_action("cycle_sort", ())  # the Tasks tab's keys do nothing here
        assert "2 session(s)" in str(pilot.app.screen.query_one("#status").render())
        rows = [line for line in screen_text(pilot.app) if re.match(r"^ [0-9a-f]{12} ", line)]
        assert len(rows) == 2 and sum("✱ not clean" in row for row in rows) == 1, rows


# -- annotation ------------------------------------------------------------------------------


def _naive_episode(db) -> str:
    store = Store(db)
    loaded = load_task(INSULIN)
    eid, _ = asyncio.run(
        run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
    )
    return eid


def _everything_shown(screen) -> str:
    texts = [str(w.render()) for w in screen.query(Static)]
    table = screen.query_one("#episode-events", DataTable)
    texts += [" ".join(map(str, table.get_row_at(i))) for i in range(table.row_count)]
    return "\n".join(texts)


@pytest.mark.parametrize("needs_controller", [False, True])
async def test_blinding_hides_the_controller_unless_the_dimension_needs_it(tmp_path, monkeypatch, db, needs_controller):
    await asyncio.to_thread(_naive_episode, db)
    if needs_controller:  # a lab's own dimensions: this one is about the controller
        folder = tmp_path / "annotations"
        folder.mkdir()
        text = (ROOT / "annotations" / "dimensions.yaml").read_text()
        text = text.replace("    optional: true\n", "    optional: true\n    shows_controller: true\n")
        (folder / "dimensions.yaml").write_text(text)
        monkeypatch.chdir(tmp_path)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", annotate=("episodes", None)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: len(screen.events) > 5)
        await pilot.pause()
        shown = _everything_shown(screen)
        if needs_controller:
            assert "baseline:naive" in shown and "baseline:scripted-user" in shown
        else:
            assert "baseline:" not in shown and "by agent" in shown, shown
            table = screen.query_one("#episode-events", DataTable)
            actors = {table.get_row_at(i)[3] for i in range(table.row_count)}
            assert actors <= {"system", "user", "agent", "environment", "review"}


async def test_nothing_left_to_rate_clears_the_last_item_and_escape_leaves_sttui_annotate(db):
    await asyncio.to_thread(_naive_episode, db)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", annotate=("episodes", None)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.item is not None and len(screen.events) > 5)
        await pilot.press("4")  # the only dimension of the only episode
        await wait_for(pilot, lambda: screen.item is None)
        await pilot.pause()
        assert "Nothing left to rate" in str(screen.query_one("#item").render())
        assert not screen.query_one("#episode-events").display and not screen.query_one("#event-detail").display
        assert "baseline" not in text_of(pilot.app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.return_code == 0  # out of the app, not to a home nobody asked for


async def test_escape_from_rating_opened_at_home_goes_home(db):
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HomeScreen")
        assert pilot.app.return_code is None


async def test_the_batch_table_reaches_its_last_column_in_a_few_presses_at_80x24(db):
    """A case has many fields: → moves two thirds of the width at a time, not one character."""
    async with play_alone(db, EXPLORE).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(pilot.app.screen.query("#batch")))
        batch = pilot.app.screen.query_one("#batch", DataTable)
        await wait_for(pilot, lambda: batch.row_count > 0 and batch.max_scroll_x > 0)
        assert batch.has_focus and batch.max_scroll_x > 40  # wider than the screen by far
        presses = 0
        while batch.scroll_x < batch.max_scroll_x and presses < 20:
            await pilot.press("right")
            await pilot.pause()
            presses += 1
        assert batch.scroll_x == batch.max_scroll_x and presses <= 4, presses
        # scrolled to the last field, the case's number and the action chosen stay in sight
        header = "".join(seg.text for seg in batch.render_line(0))
        last = str(batch.ordered_columns[-1].label)
        assert header.split()[:2] == ["#", "action"] and last in header, header
        await pilot.press("left")
        await pilot.pause()
        assert batch.scroll_x == max(0, batch.max_scroll_x - batch._page())
