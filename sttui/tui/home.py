"""Home: the task browser. Type to filter, sort by column, read a task's brief."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from sttui.core.explore.task import ExploreTask
from sttui.core.loader import LoadedTask, load_all
from sttui.core.problems import display_path
from sttui.core.task import LEVELS

COLUMNS = ("id", "kind", "domain", "subtype", "level", "title")


@dataclass
class TaskRow:
    id: str
    kind: str
    domain: str
    subtype: str
    level: str
    title: str
    brief: str

    def cells(self) -> tuple[str, ...]:
        return (self.id, self.kind, self.domain, self.subtype, self.level, self.title)

    def sort_key(self, column: str) -> tuple[int, str]:
        if column == "level":
            return (LEVELS.index(self.level) if self.level in LEVELS else 99, self.id)
        return (0, getattr(self, column))


def _row(t: LoadedTask) -> TaskRow:
    task = t.task
    if isinstance(task, ExploreTask):
        subtype, level = task.rule.family, "-"
        opening = f"[i]Scenario:[/i] {task.scenario.strip()}"
    else:
        subtype, level = task.conflict, task.level
        opening = f"[i]User:[/i] {task.query}"
    brief = f"[b]{task.title}[/b]  ({task.domain}, {subtype}, {level})\n{opening}\n[dim]{display_path(t.path)}[/dim]"
    return TaskRow(task.id, task.kind, task.domain, subtype, level, task.title, brief)


class HomeScreen(Screen[None]):
    """The task browser."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="home.filter"),
        Binding("s", "cycle_sort", "Sort", id="home.sort"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="home.clear_filter"),
    ]

    class Loaded(Message):
        def __init__(self, rows: list[TaskRow], errors: list[str]):
            self.rows = rows
            self.errors = errors
            super().__init__()

    def __init__(self, tasks_dir: Path):
        super().__init__()
        self.tasks_dir = tasks_dir
        self.rows: list[TaskRow] = []
        self.sort_column = "id"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Type to filter tasks (id, domain, subtype, level, title)", id="filter")
        yield DataTable(id="tasks", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail")
        yield Static("Loading tasks…", id="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#tasks", DataTable)
        for col in COLUMNS:
            table.add_column(col, key=col)
        table.focus()
        self.load_tasks()

    @work(thread=True, exclusive=True)
    def load_tasks(self) -> None:
        loaded, errors = load_all([self.tasks_dir])
        problems = [str(p) for exc in errors for p in exc.problems]
        self.post_message(self.Loaded([_row(t) for t in loaded], problems))

    def on_home_screen_loaded(self, message: Loaded) -> None:
        self.rows = message.rows
        status = f"{len(self.rows)} tasks from {display_path(self.tasks_dir)}"
        if message.errors:
            status += f" · {len(message.errors)} problem(s) in task files: run `sttui check` for details"
        self.query_one("#status", Static).update(status)
        self.refresh_table()

    def visible_rows(self) -> list[TaskRow]:
        words = self.query_one("#filter", Input).value.lower().split()
        rows = [r for r in self.rows if all(w in " ".join(r.cells()).lower() for w in words)]
        return sorted(rows, key=lambda r: r.sort_key(self.sort_column))

    def refresh_table(self) -> None:
        table = self.query_one("#tasks", DataTable)
        table.clear()
        for row in self.visible_rows():
            table.add_row(*row.cells(), key=row.id)
        self.show_detail()

    def show_detail(self) -> None:
        table = self.query_one("#tasks", DataTable)
        detail = self.query_one("#detail", Static)
        if table.row_count == 0:
            detail.update("No task matches the filter." if self.rows else "")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        row = next((r for r in self.rows if r.id == key), None)
        detail.update(row.brief if row else "")

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.refresh_table()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one("#tasks", DataTable).focus()

    @on(DataTable.RowHighlighted, "#tasks")
    def _highlighted(self) -> None:
        self.show_detail()

    @on(DataTable.HeaderSelected, "#tasks")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        self.sort_column = str(event.column_key.value)
        self.refresh_table()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one("#tasks", DataTable).focus()

    def action_cycle_sort(self) -> None:
        self.sort_column = COLUMNS[(COLUMNS.index(self.sort_column) + 1) % len(COLUMNS)]
        self.notify(f"Sorted by {self.sort_column}", timeout=2)
        self.refresh_table()
