"""Playing an explore episode: the brief, the probe editor, the batch, the utility chart,
the assessments. The screen shows exactly the engine's masked view.

Each key acts on the tab in sight (1-4 and s on the batch, a, x and p on the probe); a tab
brought into sight (F6, or a click) has the focus, so the arrows move in it at once. A table
is touched only when its part of the view changed, and then in place (``sync_rows``): a new
probe or batch adds its rows, a new batch's cases replace the cells, nothing is cleared and
refilled."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import (
    Button,
    Label,
    Select,
    SelectionList,
    Sparkline,
    Static,
    TabbedContent,
    TabPane,
)

from sttui.controllers.human import HumanController
from sttui.core.actions import Assess, Probe, SubmitBatch
from sttui.core.explore.episode import ExploreEpisode
from sttui.running.session import PlaySession
from sttui.tui.footer import Footer
from sttui.tui.handoff import SeatScreen
from sttui.tui.lifecycle import while_shown
from sttui.tui.modals import Dialog, EditValue
from sttui.tui.play import status_line
from sttui.tui.safetable import DataTable
from sttui.tui.widgets import StatusLine, WideTable


def _fmt(v: Any) -> str:
    return f"{v:+.2f}" if isinstance(v, float) else str(v)


def field_range(f: dict[str, Any]) -> str:
    if f["type"] == "numeric":
        lo, hi = f["range"]
        return f"{lo:g} to {hi:g} {f.get('unit', '')}".strip()
    return " < ".join(f["levels"])


PHASE_WORDS = {
    "window": "choosing actions",
    "assess_pre": "assessment due: F7 opens it",
    "assess_final": "final assessment due: F7 opens it",
}
ASSESS_PHASES = ("assess_pre", "assess_final")
TABS = ("tab-brief", "tab-probe", "tab-batch", "tab-history")
TAB_FOCUS = {"tab-brief": "#fields", "tab-probe": "#probe-draft", "tab-batch": "#batch", "tab-history": "#history"}
TAB_OF_ACTION = {  # keys that act on one tab only: elsewhere they are off (and out of the footer)
    "choose": "tab-batch",
    "submit_batch": "tab-batch",
    "add_case": "tab-probe",
    "delete_case": "tab-probe",
    "run_probe": "tab-probe",
}


def sync_rows(table: DataTable[Any], rows: Sequence[tuple[str, ...]], key: int = 0) -> bool:
    """Make ``table`` show ``rows``, changing only what differs: a changed cell is updated in
    place, new rows are added at the end and rows no longer there removed from it. Never a
    clear and refill, so the rows (keyed ``str(key + index)``), the cursor and the scroll stay.
    Whether anything changed."""
    changed = False
    for i, cells in enumerate(rows[: table.row_count]):
        shown = table.get_row_at(i)
        for j, value in enumerate(cells):
            if str(shown[j]) != value:
                table.update_cell_at(Coordinate(i, j), value, update_width=True)
                changed = True
    for i in range(table.row_count, len(rows)):
        table.add_row(*rows[i], key=str(key + i))
        changed = True
    while table.row_count > len(rows):
        table.remove_row(table.coordinate_to_cell_key(Coordinate(table.row_count - 1, 0)).row_key)
        changed = True
    return changed


def parse_value(field: dict[str, Any], text: str) -> tuple[Any, str | None]:
    """(value, why it is refused): a probe cell's text as the field's value, within its range."""
    text = text.strip()
    if field["type"] != "numeric":
        if text in field["levels"]:
            return text, None
        return None, f"{field['name']} must be one of {', '.join(field['levels'])}"
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        return None, f"{field['name']} must be a number from {field_range(field)}"
    decimals = field.get("decimals", 0)
    value: Any = int(number) if not decimals and number == int(number) else round(number, decimals)
    if not decimals and number != int(number):
        return None, f"{field['name']} takes whole numbers from {field_range(field)}"
    lo, hi = field["range"]
    if not lo <= value <= hi:
        return None, f"{value:g} is out of range: {field['name']} goes from {field_range(field)}"
    return value, None


class ExploreTabs(TabbedContent):
    """The tabs, changed by F6 or a click only. Focusing into a pane makes Textual's tabs show
    that pane; here only the pane in sight is ever focused, so a focus message arriving late
    for a pane already left (F6 pressed quickly) must not bring it back."""

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        event.prevent_default()  # not TabbedContent's: the tab in sight stays
        event.stop()


class AssessmentForm(Dialog[Assess | None]):
    """Which fields are relevant now, with directions; at the end, what changed."""

    BINDINGS = [Binding("escape", "cancel", "Later", id="assess.cancel")]

    def __init__(self, view: dict[str, Any], ask_changes: bool):
        super().__init__()
        self.view, self.ask_changes = view, ask_changes

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog form"):
            yield Label("[b]Assessment[/b]", classes="question")
            yield Static(self.view["question"], classes="muted")
            for f in self.view["fields"]:
                yield Label(f"{f['name']}  ({field_range(f)})", markup=False)
                yield Select(
                    [
                        ("increasing: more means more intervention", "increasing"),
                        ("decreasing: more means less intervention", "decreasing"),
                    ],
                    prompt="not relevant",
                    id=f"dir-{f['name']}",
                )
            if self.ask_changes:
                yield Label("What changed during the episode? (space selects)")
                options = [
                    (f"{kind} {f['name']}", f"{kind}:{f['name']}")
                    for kind in ("removed", "added", "reversed")
                    for f in self.view["fields"]
                ]
                yield SelectionList[str](*options, id="changes")
            yield Button("Submit the assessment", variant="primary", id="submit")

    def on_button_pressed(self) -> None:
        relevant = {}
        for f in self.view["fields"]:
            value = self.query_one(f"#dir-{f['name']}", Select).value
            if isinstance(value, str):
                relevant[f["name"]] = value
        changes = None
        if self.ask_changes:
            picked = self.query_one("#changes", SelectionList).selected
            changes = [{kind: name} for kind, name in (p.split(":", 1) for p in picked)]
        self.dismiss(Assess(relevant, changes))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExploreScreen(SeatScreen):
    """A human in the agent seat of an explore episode (which a model can take over)."""

    HELP_TITLE = "playing a hidden-rule episode"
    END_HINT = "It ends after its last batch and the final assessment. "
    BINDINGS = [
        Binding("f5", "toggle_clock", "Clock", id="explore.clock"),
        Binding("1", "choose(1)", "Action 1", show=False, id="explore.action1"),
        Binding("2", "choose(2)", "Action 2", show=False, id="explore.action2"),
        Binding("3", "choose(3)", "Action 3", show=False, id="explore.action3"),
        Binding("4", "choose(4)", "Action 4", show=False, id="explore.action4"),
        Binding("s", "submit_batch", "Submit batch", id="explore.submit"),
        Binding("a", "add_case", "Add case", id="explore.add_case"),
        Binding("x", "delete_case", "Delete case", id="explore.delete_case"),
        Binding("p", "run_probe", "Run probe", id="explore.probe"),
        Binding("f6", "next_tab", "Next tab", id="explore.tab"),
        Binding("f7", "assess", "Assessment", id="explore.assess"),
        *SeatScreen.HANDOFF_BINDINGS,
        Binding("escape", "leave", "Leave", id="explore.leave"),
    ]

    def __init__(self, session: PlaySession, human: HumanController):
        super().__init__()
        self.session, self.human = session, human
        self.episode: ExploreEpisode = session.episode  # type: ignore[assignment]  # opened for explore tasks only
        self.view: dict[str, Any] = self.episode.agent_view()
        self.draft: list[dict[str, Any]] = []
        self.choices: dict[int, int] = {}
        self._asked_for: str | None = None
        self._drawn: dict[str, Any] = {}  # what each table shows now, to redraw only what changed
        self._tab = "tab-batch"  # the tab in sight (the footer asks often: no query each time)

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        v = self.view
        yield StatusLine(status_line(self.session), id="status-bar")
        with ExploreTabs(id="explore-tabs", initial="tab-batch"):
            with TabPane("Brief", id="tab-brief"), VerticalScroll():
                yield Static(f"[b]Scenario[/b]\n{escape(v['scenario'])}\n")  # (the task's words, as written)
                yield DataTable(id="fields", cursor_type="row")
                actions = escape(
                    "\n".join(f"  {i}. {a['id']}: {a['description']}" for i, a in enumerate(v["actions"], 1))
                )
                families = "\n".join(f"  {k}: {d}" for k, d in v["rule_families"].items())
                s = v["schedule"]
                yield Static(
                    f"\n[b]Actions[/b], lowest to highest intervention\n{actions}\n\n"
                    f"[b]Rule families[/b] (which one, and which fields, is hidden)\n{families}\n\n"
                    f"[b]Schedule[/b] {s['batches']} batches of {s['cases_per_batch']} cases; one probe of "
                    f"up to {s['probe_cap']} cases before each batch; setting: {v['setting']}"
                )
            with TabPane("Probe", id="tab-probe"), Vertical():
                yield Static("", id="probe-help")
                yield DataTable(id="probe-draft", cursor_type="cell")
                yield Static("", id="probe-title", classes="pane-title")
                yield WideTable(id="probe-results", cursor_type="row")
            with TabPane("Batch", id="tab-batch"), Vertical():
                yield Static("", id="batch-help")
                yield WideTable(id="batch", cursor_type="row")
                yield Static("", id="batch-feedback")
            with TabPane("History", id="tab-history"), Vertical():
                yield Static("[b]Batch utility[/b] (total per batch)", classes="pane-title")
                yield Static("No batch played yet: the chart starts with the first batch.", id="curve-empty")
                yield Sparkline([], id="curve")
                yield WideTable(id="history", cursor_type="row")
        yield from self.compose_debug()
        yield Static("", id="feedback", markup=False)  # (a problem quotes what was typed)
        yield Footer()

    def on_mount(self) -> None:
        v = self.view
        fields = self.query_one("#fields", DataTable)
        fields.add_columns("field", "type", "values", "description")
        for f in v["fields"]:
            fields.add_row(f["name"], f["type"], field_range(f), f["description"])
        names = [f["name"] for f in v["fields"]]
        numbers = [str(i) for i in range(1, len(v["actions"]) + 1)]
        # the short columns first: at 80 columns the chosen action, at 120 the utilities, in sight
        self.query_one("#probe-draft", DataTable).add_columns("#", *names)
        self.query_one("#probe-results", DataTable).add_columns("window", "#", *numbers, *names)
        batch = self.query_one("#batch", DataTable)
        batch.add_column("#", key="n")
        longest = max(len(f"{i}. {a['id']}") for i, a in enumerate(v["actions"], 1))
        batch.add_column("action", key="action", width=longest)  # room for any choice, made later
        for name in names:
            batch.add_column(name, key=name)
        # scrolled right to a case's last fields, its number and the action chosen stay in sight
        batch.fixed_columns = 2
        self.query_one("#probe-results", DataTable).fixed_columns = 2  # (the window and the case)
        self.query_one("#history", DataTable).add_columns("batch", "total", "per case")
        legend = "  ".join(f"{i}={a['id']}" for i, a in enumerate(v["actions"], 1))
        self.query_one("#probe-title", Static).update(
            f"[b]Probe results[/b]: each action's utility per case ({legend})"
        )
        self.draft = [self._middle_case()]
        self.start_episode("#batch")
        self.redraw()

    def _middle_case(self) -> dict[str, Any]:
        case: dict[str, Any] = {}
        for f in self.view["fields"]:
            if f["type"] == "numeric":
                lo, hi = f["range"]
                mid = round((lo + hi) / 2, f.get("decimals", 0))
                case[f["name"]] = int(mid) if not f.get("decimals") else mid
            else:
                case[f["name"]] = f["levels"][0]
        return case

    def end_screen(self, result: Any) -> Screen[Any]:
        from sttui.tui.episode_over import typing_on
        from sttui.tui.reveal import RevealScreen

        return RevealScreen(self.session, result, typing=typing_on(self))

    def status_text(self) -> Text:
        return status_line(self.session) + self._phase_text()

    def _phase_text(self) -> str:
        v = self.view
        probe = "probe available" if v["probe_available"] else "probe used"
        phase = PHASE_WORDS.get(v["phase"], v["phase"].replace("_", " "))
        if v["phase"] != "window":
            return f"  ·  batch {v['batch']}/{v['schedule']['batches']}  ·  {phase}"
        return f"  ·  batch {v['batch']}/{v['schedule']['batches']}  ·  {phase}  ·  {probe}"

    def on_seat_screen_changed(self, _message: SeatScreen.Changed) -> None:
        phase = self.view["phase"]
        self.view = self.episode.agent_view()
        self.redraw()
        if self.view["phase"] != phase:
            self.refresh_bindings()  # the phase decides which keys apply

    # -- keys that apply ----------------------------------------------------------------
    def active_tab(self) -> str:
        return self._tab

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys act on the tab in sight only; the assessment key only while one is asked."""
        tab = TAB_OF_ACTION.get(action)
        if tab is not None and (self.active_tab() != tab or self.view["phase"] != "window"):
            return False
        if action == "assess" and self.view["phase"] not in ASSESS_PHASES:
            return False
        return super().check_action(action, parameters)

    @on(TabbedContent.TabActivated, "#explore-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        """The tab in sight has the focus, so the arrows work in it without a Tab first."""
        pane = event.pane.id or ""
        self._tab = event.tabbed_content.active
        # Focusing into a pane activates it: a late message for a tab already left (F6 pressed
        # quickly) must not pull the focus, and the tab, back to it.
        if pane in TAB_FOCUS and pane == self.active_tab():
            self.query_one(TAB_FOCUS[pane]).focus()
        self.refresh_bindings()

    # -- drawing -------------------------------------------------------------------------
    @while_shown
    def redraw(self) -> None:
        v = self.view
        self._draw_draft()
        if self._drawn.get("probes") != len(v["probes"]):
            self._draw_probe_results()
        if self._drawn.get("batch") != (v["batch"], v["phase"]):
            self._draw_batch()
        if self._drawn.get("history") != len(v["history"]):
            self._draw_history()
        help_text = (
            f"Design up to {v['schedule']['probe_cap']} cases: enter edits a cell, a adds a case, x deletes one, "
            f"p runs the probe ({'available' if v['probe_available'] else 'already used in this window'})."
        )
        if self._drawn.get("probe-help") != help_text:  # an update re-lays out the screen: only a change
            self._drawn["probe-help"] = help_text
            self.query_one("#probe-help", Static).update(help_text)
        self._tick()
        self.refresh_debug()
        self.show_notices()
        held = self.session.seats["agent"] is self.human
        if held and v["phase"] in ASSESS_PHASES and self._asked_for != v["phase"]:
            self._asked_for = v["phase"]
            self.action_assess()

    def _draw_draft(self, cursor: tuple[int, int] | None = None) -> None:
        """The probe cases being designed; the cursor stays where it was (or goes to ``cursor``)."""
        names = [f["name"] for f in self.view["fields"]]
        rows = [tuple(str(case[n]) for n in names) for case in self.draft]
        if self._drawn.get("draft") == rows and cursor is None:
            return
        self._drawn["draft"] = rows
        draft = self.query_one("#probe-draft", DataTable)
        row, col = cursor or (draft.cursor_row, draft.cursor_column)
        sync_rows(draft, [(str(i), *cells) for i, cells in enumerate(rows, 1)])
        if draft.row_count and (row, col) != (draft.cursor_row, draft.cursor_column):
            draft.move_cursor(row=min(row, draft.row_count - 1), column=col, animate=False)

    def _draw_probe_results(self) -> None:
        v = self.view
        self._drawn["probes"] = len(v["probes"])
        names = [f["name"] for f in v["fields"]]
        rows = [
            (str(probe["window"]), str(i), *map(_fmt, utils), *[str(case[n]) for n in names])
            for probe in v["probes"]
            for i, (case, utils) in enumerate(zip(probe["cases"], probe["utilities"], strict=True), 1)
        ]
        sync_rows(self.query_one("#probe-results", DataTable), rows)  # a new probe adds its rows

    def _action_text(self, row: int) -> str:
        chosen = self.choices.get(row)
        return f"{chosen}. {self.view['actions'][chosen - 1]['id']}" if chosen else "—"

    def _draw_batch(self) -> None:
        v = self.view
        self._drawn["batch"] = (v["batch"], v["phase"])
        names = [f["name"] for f in v["fields"]]
        batch = self.query_one("#batch", DataTable)
        rows = [
            (str(i), self._action_text(i - 1), *[str(case[n]) for n in names])
            for i, case in enumerate(v.get("cases", []), 1)
        ]
        sync_rows(batch, rows)  # the next batch's cases take the rows in place (keys 0, 1, …)
        if batch.row_count:
            batch.move_cursor(row=0, animate=False)
        action_ids = [a["id"] for a in v["actions"]]
        if v["phase"] == "window":
            help_text = (
                f"Batch {v['batch']}: choose an action per case with keys 1-4 "
                f"({', '.join(f'{i}={a}' for i, a in enumerate(action_ids, 1))}), then s submits."
            )
        else:
            help_text = f"Batch {v['batch']} waits for the assessment (F7)."
        self.query_one("#batch-help", Static).update(help_text)

    def _draw_history(self) -> None:
        v = self.view
        self._drawn["history"] = len(v["history"])
        rows = [(str(h["batch"]), _fmt(h["total"]), " ".join(_fmt(u) for u in h["utilities"])) for h in v["history"]]
        sync_rows(self.query_one("#history", DataTable), rows)  # a batch played adds its row
        totals = [h["total"] for h in v["history"]]
        curve = self.query_one("#curve", Sparkline)
        curve.data = totals
        curve.display = bool(totals)  # no chart (nor a bar of zeros) before the first batch
        self.query_one("#curve-empty").display = not totals
        if v["history"]:
            last = v["history"][-1]
            self.query_one("#batch-feedback", Static).update(
                f"Batch {last['batch']} utilities: "
                + "  ".join(f"{i}: {_fmt(u)}" for i, u in enumerate(last["utilities"], 1))
                + f"   total {_fmt(last['total'])}"
            )

    def feedback(self, text: str) -> None:
        self.query_one("#feedback", Static).update(text)

    def _can_act(self) -> str | None:
        if self.episode.ended is not None:
            return "the episode has ended"
        if self.session.seats["agent"] is not self.human:
            return f"the agent seat is held by {self.session.agent.name}: F11 takes it back"
        if self.session.clock is not None and not self.session.clock.running:
            return "the clock is paused: press F5 to start it"
        if not self.human.waiting:
            return "one moment"
        return None

    def _send(self, action: Any) -> bool:
        """Check with the engine's own rules first: a refused input never reaches the episode."""
        problem = self._can_act()
        if problem is None:
            problem = self._refusal(action)
        if problem:
            self.feedback(problem)
            return False
        self.feedback("")
        self.human.submit(action)
        return True

    def _refusal(self, action: Any) -> str | None:
        """The engine's own verdict on an input, asked before it is sent."""
        if isinstance(action, Probe):
            return self.episode.probe_problem(action.cases)[0]
        if isinstance(action, SubmitBatch):
            return self.episode.batch_problem(action.actions)[0]
        return None

    # -- actions ---------------------------------------------------------------------------
    def action_choose(self, n: int) -> None:
        batch = self.query_one("#batch", DataTable)
        if not batch.row_count:
            return
        row = batch.cursor_row
        self.choices[row] = n
        batch.update_cell(str(row), "action", self._action_text(row))
        batch.move_cursor(row=min(row + 1, batch.row_count - 1), animate=False)

    def action_submit_batch(self) -> None:
        n = len(self.view.get("cases", []))
        missing = [str(i + 1) for i in range(n) if i not in self.choices]
        if missing:
            self.feedback(f"choose an action for every case first (missing: {', '.join(missing)})")
            return
        if self._send(SubmitBatch([self.choices[i] for i in range(n)])):
            self.choices = {}

    def action_add_case(self) -> None:
        if len(self.draft) >= self.view["schedule"]["probe_cap"]:
            self.feedback(f"a probe holds at most {self.view['schedule']['probe_cap']} cases")
            return
        table = self.query_one("#probe-draft", DataTable)
        base = self.draft[table.cursor_row] if self.draft and table.cursor_row < len(self.draft) else None
        self.draft.append(dict(base) if base else self._middle_case())
        self._draw_draft(cursor=(len(self.draft) - 1, table.cursor_column))

    def action_delete_case(self) -> None:
        table = self.query_one("#probe-draft", DataTable)
        if len(self.draft) > 1:
            row = table.cursor_row
            del self.draft[row]
            self._draw_draft(cursor=(min(row, len(self.draft) - 1), table.cursor_column))

    def action_run_probe(self) -> None:
        self._send(Probe([dict(c) for c in self.draft]))

    @on(DataTable.CellSelected, "#probe-draft")
    def edit_cell(self, event: DataTable.CellSelected) -> None:
        row, col = event.coordinate.row, event.coordinate.column
        if col == 0:
            return
        field = self.view["fields"][col - 1]
        current = str(self.draft[row][field["name"]])

        def done(text: str | None) -> None:
            if text is not None:
                self.draft[row][field["name"]] = parse_value(field, text)[0]
                self.feedback("")
                self._draw_draft(cursor=(row, col))

        # an out-of-range value is refused in the dialog, with the range, until fixed or cancelled
        self.app.push_screen(
            EditValue(
                f"Case {row + 1}: {field['name']}",
                current,
                f"{field_range(field)} · escape keeps {current}",
                check=lambda text: parse_value(field, text)[1],
            ),
            done,
        )

    def action_assess(self) -> None:
        phase = self.view["phase"]
        if phase not in ASSESS_PHASES:
            self.feedback("no assessment is being asked now")
            return
        ask_changes = phase == "assess_final" and self.episode.task.drifts

        def answer(assessment: Assess | None) -> None:
            if assessment is None:
                self.feedback("the assessment is waiting: F7 opens it")
            else:
                self._send(assessment)

        self.app.push_screen(AssessmentForm(self.view, ask_changes), answer)

    def action_next_tab(self) -> None:
        tabs = self.query_one("#explore-tabs", TabbedContent)
        shown = TABS[(TABS.index(tabs.active) + 1) % len(TABS)]
        tabs.active = shown
        # the focus moves now, not when the tab's message arrives: keys typed right after F6
        # (an arrow, enter) already go to the tab in sight
        self._tab = shown
        self.set_focus(self.query_one(TAB_FOCUS[shown]), scroll_visible=False)
        self.refresh_bindings()
