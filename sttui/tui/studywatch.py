"""The experimenter's live view of a study (``sttui study watch``): each participant's progress,
time on task and outcomes, each task's replication reached, and the stuck slots, read again
from the record every few seconds in a worker (the screen never waits on the database)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Header, Static

from sttui.config import Config
from sttui.tui.app import SttuiApp
from sttui.tui.footer import Footer
from sttui.tui.launch import Launch
from sttui.tui.screen import SttuiScreen

REFRESH_SECONDS = 2.0


class StudyWatchScreen(SttuiScreen[None]):
    BINDINGS = [
        Binding("r", "refresh_now", "Refresh", id="studywatch.refresh"),
        Binding("escape", "app.quit", "Quit", id="studywatch.quit"),
    ]

    def __init__(self, store: Any, study_id: str):
        super().__init__()
        self.store, self.study_id = store, study_id
        self.found: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Study {self.study_id}: reading the record…", id="watch-title")
        yield DataTable(id="watch-people", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="watch-tasks", cursor_type="row")
        yield Static("", id="watch-stuck")
        yield Footer()

    def on_mount(self) -> None:
        people = self.query_one("#watch-people", DataTable)
        people.add_columns("participant", "status", "done", "time (min)", "outcomes", "now playing")
        self.query_one("#watch-tasks", DataTable).add_columns("task", "replication reached", "withdrawn")
        self.reload()
        self.set_interval(REFRESH_SECONDS, self.reload)

    def action_refresh_now(self) -> None:
        self.reload()

    WORKERS: ClassVar[dict[str, str]] = {"studywatch": "read the study's progress (it tries again shortly)"}

    class Progress(Message):
        """The study's progress, read from the record."""

        def __init__(self, found: dict[str, Any]) -> None:
            super().__init__()
            self.found = found

    @work(thread=True, exclusive=True, group="studywatch", exit_on_error=False)
    def reload(self) -> None:
        from sttui.store.studies import Studies
        from sttui.study.progress import progress
        from sttui.study.running import stored_study

        spec, _ = stored_study(self.store, self.study_id)
        studies = Studies(self.store)
        found = progress(spec, studies.people(self.study_id), studies.slots(self.study_id))
        self.post_message(self.Progress(found))

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        self.show(message.found)

    def show(self, found: dict[str, Any]) -> None:
        if found == self.found:
            return
        self.found = found
        people = self.query_one("#watch-people", DataTable)
        people.clear()
        for p in found["participants"]:
            who = p["participant"] + (f" ({p['joined_as']})" if p["joined_as"] else "")
            outs = ", ".join(f"{k} {v}" for k, v in sorted(p["outcomes"].items())) or "-"
            people.add_row(
                who,
                p["status"],
                f"{p['done']}/{p['total']}",
                f"{p['seconds_on_task'] / 60:.1f}",
                outs,
                p["current"] or "",
            )
        tasks = self.query_one("#watch-tasks", DataTable)
        tasks.clear()
        for t in found["tasks"]:
            tasks.add_row(t["task"], f"{t['reached']}/{t['planned']}", str(t["withdrawn"]))
        done = sum(p["done"] for p in found["participants"])
        total = sum(p["total"] for p in found["participants"])
        self.query_one("#watch-title", Static).update(
            f"Study {found['study']}: {done}/{total} scored tasks played · replication {found['replication']} per task"
        )
        stuck = found["stuck"]
        lines = [f"{s['participant']} · {s['task']}: {s['why']}" for s in stuck]
        self.query_one("#watch-stuck", Static).update(
            "Stuck slots: " + ("\n  " + "\n  ".join(lines) if lines else "none")
        )


class StudyWatchApp(SttuiApp):
    """The workbench opened on a study's live view."""

    def __init__(self, db_url: str | None, study_id: str, config: Config | None = None):
        super().__init__(Launch.build(db_url=db_url, config=config))
        self.study_id = study_id

    def _store_ready(self, store: Any) -> None:
        super()._store_ready(store)
        self.push_screen(StudyWatchScreen(store, self.study_id))
