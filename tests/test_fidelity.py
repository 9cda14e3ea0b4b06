"""The human sees every byte a model sees (issue 23 §1).

Every bundled stt task's solution and naive plan is played (by the baseline controllers, the
same actions a person types), then shown by the real play screens at 80×24 and 120×40, one
app for all. Each item of the transcript is checked against what a model in the same seat
receives (``core.chat.openai_messages`` for the agent; the messages and the brief of
``UserView`` for the user): drawn by its own widget at the size the layout gave it, after F9
(earlier items) and F4 (unfold every result), its lines hold every character of the model's
string. Wrapping only moves text between lines, so whitespace is left out of the comparison.
Two tasks are also played by typing into the agent seat's entry, step by step."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from sttui.controllers.human import HumanController
from sttui.controllers.registry import make_agent, make_user
from sttui.core.callsyntax import format_call
from sttui.core.chat import openai_messages
from sttui.core.loader import load_task
from sttui.running.session import HumanClock, PlaySession
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.play import LIVE_ITEMS, PlayScreen
from sttui.tui.usersim import UserSimScreen
from sttui.tui.widgets import ResultFold, WrappedJSON, fields_text, result_text
from tests.conftest import ROOT
from tests.tui_helpers import ScreenApp, open_play, play_alone, started, steady, wait_for

TASKS = sorted((ROOT / "tasks" / "stt").glob("*/*.yaml"))
SMALL, LARGE = (80, 24), (120, 40)


def bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def shown(widget: Widget) -> str:
    """What ``widget`` draws in the region the layout gave it (scrolling brings any of its
    lines into view; nothing beyond its width or height is drawn)."""
    width, height = widget.outer_size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


def hold_the_screen(app: Any) -> None:
    """The episode's end switches to the end screen; here the play screen stays to be read."""
    app.switch_screen = lambda _screen: None


class PlayedAgent(PlayScreen):
    """The agent seat's screen showing episodes already played: its worker, which would play
    one, has nothing to do, and ``show`` puts another episode on the same screen (composing a
    screen per episode would take minutes for the bundled tasks), through its own redraw."""

    def play(self) -> None:  # type: ignore[override]
        return None

    async def show(self, session: PlaySession) -> None:
        self.session, self.episode = session, session.episode  # type: ignore[assignment]
        self._shown = self._hidden = 0
        self._live_limit = LIVE_ITEMS
        await self.query_one("#conversation").remove_children()
        self.refresh_view()


class PlayedUser(UserSimScreen):
    """The user seat's screen, likewise: its brief and its conversation redrawn for each."""

    def play(self) -> None:  # type: ignore[override]
        return None

    async def show(self, session: PlaySession) -> None:
        self.session, self.episode = session, session.episode  # type: ignore[assignment]
        self.query_one("#profile-fields", Static).update(self.brief())
        await self.query_one("#conversation").remove_children()
        self.redraw()


async def played(store: Store, path: Path, plan: str) -> PlaySession:
    """``plan`` (``oracle``: the solution, ``naive``: the naive plan) played to its end
    against the scripted user."""
    loaded = load_task(path)
    session = PlaySession(store, loaded, make_agent(f"baseline:{plan}", loaded), make_user(None))
    await session.run()
    return session


def expected(item: dict[str, Any]) -> list[str]:
    """The strings a model in the agent seat is given for one view item (``openai_messages``)."""
    message = openai_messages([item], "")[1]
    if item["type"] == "tool_call":
        call = message["tool_calls"][0]["function"]
        return [call["name"], *(json.dumps(v, ensure_ascii=False) for v in json.loads(call["arguments"]).values())]
    if item["type"] == "notice":
        return [message["content"].removeprefix("[Notice] ")]
    return [message["content"]]


def body(widget: Widget) -> Widget:
    """The widget whose lines hold an item's text (a result's fold: its title, then its body)."""
    if isinstance(widget, ResultFold):
        assert not widget.collapsed, "F4 left a result folded"
    return widget


def assert_reachable(pane: Widget, widgets: list[Widget], items: list[dict[str, Any]], strings) -> None:
    assert len(widgets) == len(items), f"{len(items)} items in the view, {len(widgets)} on screen"
    room = pane.scrollable_content_region.width
    for widget, item in zip(widgets, items, strict=True):
        target = body(widget)
        assert widget.outer_size.width <= room and target.outer_size.width <= room, (
            f"{item['type']} wider than the pane"
        )
        text = bare(shown(target))
        for want in strings(item):
            assert bare(want) in text, f"{item['type']}: {want!r} is not all on screen:\n{shown(target)}"


async def check_agent_screen(pilot: Any, screen: PlayScreen) -> None:
    """Every item of the agent seat's view, on ``screen``, holds what a model is given."""
    view = screen.episode.view
    await wait_for(pilot, lambda: screen._shown == len(view))
    while screen.query("#earlier"):
        await pilot.press("f9")
        await pilot.pause()
    await pilot.press("f4")
    await pilot.pause()
    pane = screen.query_one("#conversation")
    assert_reachable(pane, list(pane.children), list(view), expected)


async def check_user_screen(pilot: Any, screen: UserSimScreen) -> None:
    """Every message of the user seat's view holds what the user model is given, and so
    does the brief (goal, profile, withheld details: every key and value)."""
    messages = list(screen.episode.messages)
    pane = screen.query_one("#conversation")
    await wait_for(pilot, lambda: len(pane.children) == len(messages))
    await pilot.pause()
    assert_reachable(pane, list(pane.children), messages, lambda m: [m["text"]])
    user = screen.episode.task.user
    brief = bare(shown(screen.query_one("#profile-fields")))
    for key, value in [("Goal", user.goal), *user.profile.items(), *user.withheld_values.items()]:
        for want in (key, "" if value is None else str(value)):
            assert bare(want) in brief, f"{want!r} is not in the user's brief on screen"


DOMAINS = sorted({path.parent.name for path in TASKS})
SWEEPS = [(d, "oracle", SMALL) for d in DOMAINS] + [(d, "naive", SMALL) for d in DOMAINS]
SWEEPS += [("clinic", "oracle", LARGE)]


@pytest.mark.parametrize(("domain", "plan", "size"), SWEEPS, ids=[f"{d}-{p}-{w}x{h}" for d, p, (w, h) in SWEEPS])
async def test_every_task_shows_every_character_a_model_gets(domain, plan, size, tmp_path):
    """Every bundled task of a domain, its solution (``oracle``) or its naive plan, in the
    agent seat and the user seat (split by domain so that each test stays short)."""
    store = Store(f"sqlite:///{tmp_path / 'all.db'}")
    sessions = [await played(store, path, plan) for path in TASKS if path.parent.name == domain]
    app = ScreenApp(Screen, store=store)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for make, check in ((PlayedAgent, check_agent_screen), (PlayedUser, check_user_screen)):
            screen = make(sessions[0], HumanController("human:ana"))
            await app.push_screen(screen)
            await started(pilot)
            for session in sessions:
                await screen.show(session)
                try:
                    await check(pilot, screen)
                except AssertionError as exc:
                    raise AssertionError(f"{session.loaded.task.id} ({session.agent.name}): {exc}") from None
            await app.pop_screen()


@pytest.mark.parametrize("name", ["clinic/dialysis-urgent-t2-easy", "clinic/cardiology-rota-s1-easy"])
async def test_a_solution_typed_into_the_agent_seat_shows_every_character(name, tmp_path):
    """The whole path a person takes: each step typed into the entry, at 80×24."""
    path = ROOT / "tasks" / "stt" / f"{name}.yaml"
    app = play_alone(f"sqlite:///{tmp_path / 'typed.db'}", path)
    hold_the_screen(app)
    async with app.run_test(size=SMALL) as pilot:
        screen = await started(pilot, "PlayScreen")
        await pilot.press("f5")
        for step in load_task(path).task.solution:
            await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended is not None)
            if screen.episode.ended is not None:
                break
            entry = screen.query_one("#entry", Input)
            entry.value = format_call(step.tool, step.args) if step.tool else f"> {step.say}"
            await pilot.press("enter")
            assert not entry.value, str(screen.query_one("#feedback").render())
        await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended is not None)
        await check_agent_screen(pilot, screen)
        await pilot.press("f4")  # again: the older results fold back, the newest stays open
        await pilot.pause()
        folds = list(screen.query(ResultFold))
        assert len(folds) > 1 and all(f.collapsed for f in folds[:-1]) and not folds[-1].collapsed


async def test_the_user_seat_shows_the_agents_actions_whole_too(tmp_path):
    """F4 in the user seat shows the agent's calls and results (issue 23: "TRK-7 is out of ser"
    was cut there): each result, unfolded with enter on its title when folded, is whole."""
    store = Store(f"sqlite:///{tmp_path / 'actions.db'}")
    session = await played(store, ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml", "naive")
    app = ScreenApp(lambda: PlayedUser(session, HumanController("human:ana")), store=store)
    async with app.run_test(size=SMALL) as pilot:
        screen = await started(pilot)
        await pilot.press("f4")
        items = [i for i in session.episode.view if i["type"] in ("message", "tool_call", "tool_result")]
        pane = screen.query_one("#conversation")
        await wait_for(pilot, lambda: len(pane.children) == len(items))
        for fold in list(screen.query(ResultFold)):
            if fold.collapsed:
                fold.focus()
                await pilot.press("enter")
        await pilot.pause()
        results = [i["result"] for i in items if i["type"] == "tool_result"]
        assert any("TRK-7 is out of service" in r.get("error", "") for r in results)
        assert_reachable(pane, list(pane.children), items, expected)


def test_every_bundled_task_is_covered():
    assert len(TASKS) >= 33 and {path.parent.name for path in TASKS} == set(DOMAINS)


def rendered(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text().splitlines()


def test_fields_are_labelled_lines_with_every_value_and_no_markup():
    """Nested mappings, lists of mappings, a trait without a value, flags, text that looks
    like markup, and a value far longer than the line: labelled, all of it, nothing read as
    markup, nothing wider than the width."""
    fields = {
        "packing": {"box": 3, "labels": ["[b]fragile[/b]", "this side up"]},
        "stops": [{"site": "HUB-NORTH", "open": True}, {"site": "CLINIC-D", "open": False}],
        "wants reassurance": None,
        "note": "x" * 300 + " and the end",
    }
    lines = rendered(fields_text(fields), 30)
    assert all(len(line) <= 30 for line in lines)
    text = bare("".join(lines))
    for want in ["packing", "box: 3", "labels: [b]fragile[/b], this side up", "site: HUB-NORTH", "open: yes"]:
        assert bare(want) in text, want
    assert "open: no" in "\n".join(lines) and "wants reassurance" in lines
    assert bare(fields["note"]) in text
    assert "{" not in text and "None" not in text


def test_a_result_wraps_under_its_key_and_folds_a_word_longer_than_the_line():
    result = {"success": True, "rows": [{"note": "word " * 40, "code": "Z" * 90}]}
    lines = rendered(result_text(result), 24)
    assert all(len(line) <= 24 for line in lines)
    assert bare("".join(lines)) == bare(json.dumps(result, ensure_ascii=False))
    note = next(i for i, line in enumerate(lines) if '"note"' in line)
    assert lines[note + 1].startswith("      word")  # a wrapped line keeps its key's indentation


@pytest.mark.parametrize("width", [8, 13, 24, 40, 80])
def test_a_result_line_that_fits_is_drawn_as_wrapping_would_draw_it(width):
    """A line that fits its width is drawn without being divided (the costlier part of drawing
    a result): the same segments, styles included, as ``Text.wrap`` gives, with wide
    characters and lines that fit exactly."""
    from rich.console import Console
    from rich.segment import Segment
    from rich.text import Text

    def wrapped_always(data: Any):  # what every line went through before
        for line in json.dumps(data, indent=2, ensure_ascii=False).splitlines():
            body = line.lstrip(" ")
            indent = min(len(line) - len(body), width // 2)
            text = WrappedJSON.highlighter(Text(body, overflow="fold", no_wrap=False))
            for row in text.wrap(console, width - indent, overflow="fold"):
                if indent:
                    yield Segment(" " * indent)
                yield from row.render(console)
                yield Segment.line()

    console = Console(width=width, force_terminal=True, color_system="truecolor")
    options = console.options.update(width=width)
    results = [{"a": "x" * n, "n": n, "ok": n % 2 == 0, "none": None} for n in range(width + 3)] + [
        {"城市": "東京" * k, "emoji": "🚚" * k} for k in range(width)
    ]
    for result in results:
        assert list(WrappedJSON(result).__rich_console__(console, options)) == list(wrapped_always(result))


def test_a_deeply_nested_result_keeps_every_character_in_a_narrow_pane():
    """Indentation stops at half the width, so forty levels of nesting in 30 columns still
    leave room for the values; markup-like text is shown as written."""
    result: dict[str, Any] = {"leaf": "[b]not bold[/b] " + "y" * 50}
    for level in range(40):
        result = {f"k{level}": result}
    lines = rendered(result_text(result), 30)
    assert all(len(line) <= 30 for line in lines)
    assert bare("".join(lines)) == bare(json.dumps(result, ensure_ascii=False))


def test_the_annotators_task_card_shows_the_user_as_fields_not_json():
    from sttui.annotate.queue import Item
    from sttui.tui.annotate import item_text

    task = load_task(ROOT / "tasks" / "stt" / "clinic" / "dialysis-urgent-t2-easy.yaml").task
    body = {
        "conflict": task.conflict,
        "level": task.level,
        "query": task.query,
        "user": task.user.model_dump(mode="json"),
        "checklist": [],
        "triggers": [],
    }
    text = Text.from_markup(item_text(Item("task", task.id, task.title, body))).plain
    assert "  flexibility: high on times; urgent cases always come first" in text
    assert "    value: he drives himself" in text
    assert '{"' not in text


# -- snapshots (pytest-textual-snapshot) --------------------------------------------------


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setattr(HumanClock, "active_seconds", property(lambda self: 75.0))  # a fixed working time
    return f"sqlite:///{tmp_path / 'snap.db'}"


def test_a_long_result_wraps_at_80x24(snap_compare, db):
    """Issue 23 §1: the urgent request's note, longer than the pane, wraps under its key (a
    model reads it whole; so does the person): "…bloods; Dr Hartley: start haemodialysis by
    12:00 today" is on screen, not cut at the pane's edge."""
    path = ROOT / "tasks" / "stt" / "clinic" / "dialysis-urgent-t2-easy.yaml"
    loaded = load_task(path)

    async def run_before(pilot):
        screen = await open_play(pilot, path, "agent", "PlayScreen")
        await pilot.press("f5")
        for step in loaded.task.solution[:2]:
            screen.query_one("#entry").value = format_call(step.tool, step.args)
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting)
        await pilot.press("f5")
        pilot.app.clear_notifications()  # (the lab alert's pop-up: the wrapped note is what is shown here)
        conversation, fold = screen.query_one("#conversation"), screen.query(ResultFold).last()
        top = fold.region.y + 2 - conversation.region.y + conversation.scroll_y  # (its body: under the title)
        conversation.scroll_to(y=top + 4, animate=False)  # the first request's fields
        await steady(pilot)

    assert snap_compare(
        SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")), terminal_size=SMALL, run_before=run_before
    )


def test_the_user_seat_brief_as_fields_at_80x24(snap_compare, db):
    """The user's goal, profile and withheld details as labelled fields, not JSON; a trait
    without a value ("expects times confirmed") is its label alone."""
    path = ROOT / "tasks" / "stt" / "logistics" / "chemo-release-slip-t3-hard.yaml"

    async def run_before(pilot):
        screen = await open_play(pilot, path, "user", "UserSimScreen")
        screen.query_one("#profile").scroll_to(y=11, animate=False)  # the profile and withheld details
        await steady(pilot)

    assert snap_compare(
        SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")), terminal_size=SMALL, run_before=run_before
    )


async def test_an_announced_notice_under_a_long_result_is_said_where_it_is_seen(tmp_path):
    """The screen shows a long result from its start, so the notice that follows it lands below
    the fold; a model has it in its context, so the person is told it too, as it arrives."""
    from tests.tui_helpers import play_alone, type_text, wait_for

    db = f"sqlite:///{tmp_path / 'n.db'}"
    task = ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml"
    async with play_alone(db, task).run_test(size=(80, 24)) as pilot:
        screen = pilot.app.screen
        await wait_for(pilot, lambda: bool(screen.query("#conversation > *")))
        await pilot.press("f5")
        await type_text(pilot, "get_patient(patient_id=P-NOWAK)")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(i["type"] == "notice" for i in screen.episode.view))
        notice = next(i["text"] for i in screen.episode.view if i["type"] == "notice")
        await wait_for(pilot, lambda: any(n.title == "Notice" for n in pilot.app._notifications))
        assert [n.message for n in pilot.app._notifications if n.title == "Notice"] == [notice]


async def test_an_entry_refused_before_the_engine_is_recorded_as_a_models_unusable_answer_is(tmp_path):
    """A person's call that cannot be a call (its syntax, an unknown tool, its arguments) stays in
    the entry to fix, costs no step, and is recorded with the reason: error rates of people and
    models compare ("model_refused" holds a model's)."""
    from sttui.store.store import Store
    from tests.tui_helpers import play_alone, type_text, wait_for

    db = f"sqlite:///{tmp_path / 'r.db'}"
    task = ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml"
    async with play_alone(db, task).run_test(size=(80, 24)) as pilot:
        screen = pilot.app.screen
        await wait_for(pilot, lambda: bool(screen.query("#conversation > *")))
        await type_text(pilot, "get_patient()")
        await pilot.press("enter")  # paused: not the person's input fault, not recorded
        await pilot.press("f5")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "missing" in str(screen.query_one("#feedback").render()))
        assert screen.query_one("#entry").value == "get_patient()" and screen.episode.steps == 0
        screen.session.writer.flush()
        eid = screen.session.episode_id
    refused = [e for e in Store(db).events(eid) if e.type == "input_refused"]
    assert len(refused) == 1 and refused[0].actor == "human:ana"
    assert refused[0].payload["text"] == "get_patient()" and "missing" in refused[0].payload["reason"]


@pytest.mark.parametrize("seat", ["agent", "user"])
async def test_a_person_in_a_seat_is_not_told_the_simulated_time_or_the_step_budget(seat, tmp_path):
    """A model in either seat is told neither, so a person there is not either (a study's rule
    is the workbench's too); the god view, recorded, shows them."""
    task = ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml"
    async with play_alone(f"sqlite:///{tmp_path / 's.db'}", task, seat=seat).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen" if seat == "agent" else "UserSimScreen")

        def header() -> str:
            return str(screen.query_one("#status-bar").render())

        budget = f"/{screen.episode.task.max_steps}"
        assert "step 0" in header() and "sim " not in header() and budget not in header()
        if seat == "agent":
            await pilot.press("f2")  # it asks first
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
            await pilot.press("y")
            await wait_for(pilot, lambda: "sim " in header() and budget in header())
            assert screen.session.peeked
