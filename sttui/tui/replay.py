"""Replay: step through a recorded episode's events with ← and →, each with the state
diff it caused; triggers are highlighted and every step names the controller that acted."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from sttui.core.events import Event
from sttui.store.store import Store


def summary(event: Event) -> str:
    p = event.payload
    kind = event.type
    if kind == "tool_call":
        return f"{p['tool']}({', '.join(f'{k}={v!r}' for k, v in p['args'].items())})"
    if kind == "tool_result":
        r = p["result"]
        return "ok" if r.get("success") else f"failed: {r.get('error', '')}"
    if kind == "message":
        return f"{p['from']}: {p['text']}"
    if kind == "trigger_fired":
        return f"{p['trigger']} ({'announced' if p.get('announce') else 'silent'}), {len(p['diff'])} change(s)"
    if kind in ("batch_submitted", "batch_feedback"):
        return f"batch {p['batch']}: " + (
            ", ".join(map(str, p.get("actions", []))) or f"total {p.get('total', 0):+.2f}"
        )
    if kind == "episode_ended":
        return f"{p['by']}: {p['reason']}"
    return ", ".join(f"{k}={v}" for k, v in list(p.items())[:3])


def detail(event: Event) -> Text:
    out = Text()
    out.append(f"#{event.seq} {event.type}", style="bold")
    out.append(f"  by {event.actor}  ·  {event.sim_time}\n\n")
    diff = event.payload.get("state_diff") or event.payload.get("diff")
    if diff:
        out.append("state diff\n", style="bold")
        for d in diff:
            style = {"added": "green", "removed": "red"}.get(d["op"], "yellow")
            old = f"{d['old']!r} → " if "old" in d else ""
            new = repr(d["new"]) if "new" in d else "(removed)"
            out.append(f"  {d['op']:<8} {d['path']}: {old}{new}\n", style=style)
        out.append("\n")
    rest = {k: v for k, v in event.payload.items() if k not in ("state_diff", "diff")}
    out.append(json.dumps(rest, indent=2, ensure_ascii=False, default=str))
    return out


class ReplayScreen(Screen[None]):
    """A recorded episode, event by event."""

    BINDINGS = [
        Binding("right,j", "step(1)", "Next", priority=True, id="replay.next"),
        Binding("left,k", "step(-1)", "Previous", priority=True, id="replay.previous"),
        Binding("escape", "app.pop_to_home", "Home", id="replay.home"),
    ]

    def __init__(self, store: Store, episode_id: str):
        super().__init__()
        self.store, self.episode_id = store, episode_id
        self.events: list[Event] = []

    def compose(self) -> ComposeResult:
        yield Static(f"Replay of {self.episode_id}: loading…", id="status-bar")
        with Horizontal(id="replay-main"):
            yield DataTable(id="events", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="replay-detail-pane"):
                yield Static("", id="replay-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#events", DataTable)
        table.add_columns("#", "actor", "event", "what")
        table.focus()
        self.load()

    @work(thread=True)
    def load(self) -> None:
        record = self.store.episode(self.episode_id)
        events = self.store.events(record.id)
        self.app.call_from_thread(self.show, record, events)

    def show(self, record: Any, events: list[Event]) -> None:
        self.events = events
        outcome = ("pass" if record.outcome.get("passed") else "fail") if record.outcome else record.status
        seats = f"agent {record.agent}" + (f", user {record.user}" if record.user else "")
        clean = "" if record.clean_baseline else "  ·  not a clean baseline (god view used)"
        self.query_one("#status-bar", Static).update(
            f"Replay of {record.id}: {record.task_id}  ·  {outcome}  ·  {seats}  ·  {len(events)} events{clean}"
        )
        table = self.query_one("#events", DataTable)
        for e in events:
            style = "bold magenta" if e.type == "trigger_fired" else ("dim" if e.actor in ("system",) else "")
            table.add_row(str(e.seq), e.actor, Text(e.type, style=style), summary(e)[:90], key=str(e.seq))
        if events:
            self.query_one("#replay-detail", Static).update(detail(events[0]))

    @on(DataTable.RowHighlighted, "#events")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.events and event.cursor_row < len(self.events):
            self.query_one("#replay-detail", Static).update(detail(self.events[event.cursor_row]))

    def action_step(self, delta: int) -> None:
        table = self.query_one("#events", DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + delta)))
