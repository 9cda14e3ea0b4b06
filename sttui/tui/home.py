"""Home: the task browser (type to filter, sort by column, my past results) and the
sessions list (open one to replay it; resume an unfinished one).

The task table keeps to short columns so the title has room (at 80 columns the title is
the first line of the preview below); kind and domain are filtered on but not shown (the id
starts with the domain). An id too long for its column is cut at the end, or in the middle
where the cut ends would look alike (``shown_ids``). Each tab's footer shows its own keys.

The rows are plain data, in ``tui.home_rows``; this module is the screen, in named sections
(loading in workers, drawing, events, actions and tabs)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher, Header, Input, Static

from sttui.core.problems import display_path
from sttui.tui.footer import Footer
from sttui.tui.home_rows import (
    COLUMNS,
    SESSION_COLUMNS,
    SESSIONS_PAGE,
    TaskRow,
    column_widths,
    entry_row,
    forks_of,
    mine_by_task,
    session_cells,
    shown_ids,
)
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen

if TYPE_CHECKING:
    from sttui.core.loader import LoadedTask
    from sttui.store.listings import Filters

TASKS_ONLY = ("cycle_sort", "play_user")  # keys of the Tasks tab (each tab has its own filter)
SESSIONS_ONLY = ("resume",)  # keys of the Sessions tab


class TaskTable(DataTable[str]):
    """Home's tasks: enter plays the task under the cursor in the agent seat (u: the user
    seat), and the footer says so (a table's own enter is hidden there)."""

    BINDINGS = [Binding("enter", "select_cursor", "Play agent seat", id="home.play")]


# -- the screen --------------------------------------------------------------------------------


class HomeScreen(SttuiScreen[None]):
    """Tasks and sessions."""

    HELP_TITLE = "home"
    BINDINGS = [
        # priority: "/" moves the focus before the keys typed after it are handed out, or they
        # land on the table (and 'u' there plays the highlighted task)
        # (/ and s are told on the filter line; the footer keeps room at 80 columns for ^q and F1)
        Binding("slash", "focus_filter", "Filter", priority=True, show=False, id="home.filter"),
        Binding("s", "cycle_sort", "Sort", show=False, id="home.sort"),
        Binding("u", "play_user", "Play user seat", id="home.play_user"),
        Binding("r", "resume", "Resume", id="home.resume"),
        # (the tab bar says F6 switches: the footer keeps its room for ^q and F1 at 80 columns)
        Binding("f6", "switch_tab", "Tasks/Sessions", show=False, id="home.tab"),
        Binding("a", "annotate", "Annotate", id="home.annotate"),
        Binding("v", "annotate_verdicts", "Rate the judge's verdicts", show=False, id="home.annotate_verdicts"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="home.clear_filter"),
    ]

    WORKERS: ClassVar[dict[str, str]] = {
        "tasks": "read the task files",
        "sessions": "list the sessions",
        "more-sessions": "list more sessions",
    }

    class Loaded(Message):
        """The task index's rows, and one line per file that did not load."""

        def __init__(self, rows: list[TaskRow], tasks: Mapping[str, LoadedTask], errors: list[str]):
            self.rows, self.tasks, self.errors = rows, tasks, errors
            super().__init__()

    class SessionsLoaded(Message):
        """A page of sessions; ``first``: the first page (the table starts again), else one more."""

        def __init__(
            self,
            records: list[Any],
            mine: dict[str, str],
            forks: dict[str, dict[str, Any]],
            first: bool,
            text: str = "",
        ) -> None:
            super().__init__()
            self.records, self.mine, self.forks, self.first = records, mine, forks, first
            self.text = text  # the sessions filter the page was read for
            self.total: int | None = None  # episodes in the record, and running ones (the first page)
            self.running: int | None = None

    def __init__(self, tasks_dir: Path, defer_tasks: bool = False):
        super().__init__()
        self.tasks_dir = tasks_dir
        # `sttui play TASK`: the task files are read once home is shown again, not while that task opens
        self.defer_tasks = defer_tasks
        self._load_on_resume = False
        self.rows: list[TaskRow] = []
        self._row_by_id: dict[str, TaskRow] = {}
        self._widths: dict[str, int] = {}
        self.tasks: Mapping[str, LoadedTask] = {}
        self.sort_column = "id"
        self.sessions: list[Any] = []
        self.sessions_read = False  # the sessions pane has been filled from the record at least once
        self.sessions_total: int | None = None  # episodes in the record (read with the first page)
        self.sessions_running: int | None = None
        self.sessions_text = ""  # the sessions filter the pane was read for (read by the workers)
        self._load_errors = 0
        self.mine: dict[str, str] = {}  # (the sessions pane may fill before the task table)
        # under `sttui play`'s episode home is built when first shown, not before the first paint
        self._built = not defer_tasks

    def compose(self) -> ComposeResult:
        if not self._built:
            return
        yield Header()
        yield Static(self._tab_bar("tab-tasks"), id="tab-bar")
        with ContentSwitcher(id="home-tabs", initial="tab-tasks"):
            with Vertical(id="tab-tasks"):
                yield Input(
                    placeholder="/ filters tasks by id, domain, subtype, level, title · escape clears · s sorts",
                    id="filter",
                    compact=True,
                )
                yield TaskTable(id="tasks", cursor_type="row", zebra_stripes=True)
                yield Static("", id="detail")
            with Vertical(id="tab-sessions"):  # its table is built when the record opens
                yield Input(
                    placeholder="/ filters sessions by id, task, agent, user, status · escape clears",
                    id="sessions-filter",
                    compact=True,
                )
                yield Static(
                    "enter replays a session · r resumes a running one · ✱ not clean: the god view was "
                    "opened or a model held a person's seat",
                    classes="muted",
                    id="sessions-help",
                )
        yield Static("Loading tasks…", id="status", markup=False)  # (it quotes the filter typed)
        yield Footer()

    def on_mount(self) -> None:
        if not self._built:
            return
        self._set_up()
        if not self.defer_tasks:
            self.call_after_refresh(self.load_tasks)  # paint first, then read the task files

    def _set_up(self) -> None:
        table = self.query_one("#tasks", DataTable)
        self._widths = column_widths(self.size.width, [])
        for col in COLUMNS:
            table.add_column(col, key=col, width=self._widths[col])
        table.focus()

    def on_screen_suspend(self) -> None:
        if self.defer_tasks:
            self.defer_tasks, self._load_on_resume = False, True

    async def on_screen_resume(self) -> None:
        if not self._built and not self.defer_tasks:  # shown for the first time after `sttui play`
            self._built = True
            await self.recompose()
            self._set_up()
        if self._load_on_resume:
            self._load_on_resume = False
            self.load_tasks()
        # an episode played, suspended or ended since home was last shown is listed at once
        # (after `sttui play` too, where home had read the record before the episode began);
        # after the paint, which the read would otherwise share the interpreter with
        self.call_after_refresh(self.load_sessions)

    # -- loading: tasks and sessions, in workers -----------------------------------------------
    @work(thread=True, exclusive=True, group="tasks", exit_on_error=False)
    def load_tasks(self) -> None:
        from sttui.core.taskindex import Tasks, index

        # the task index's entries: the table fills without loading a task (one is loaded when played)
        entries = index().scan([self.tasks_dir])
        ok = [e for e in entries if e.ok]
        # one line per broken file: its first problem, which names the file, line and field
        problems = [str(e.problems[0]) for e in entries if e.problems]
        self.post_message(self.Loaded([entry_row(e) for e in ok], Tasks(ok), problems))

    def on_home_screen_loaded(self, message: Loaded) -> None:
        self.rows, self.tasks = message.rows, message.tasks
        self._row_by_id = {r.id: r for r in self.rows}
        self._load_errors = len(message.errors)
        if message.errors:
            shown = "\n".join(message.errors[:5]) + (
                f"\n… and {len(message.errors) - 5} more" if len(message.errors) > 5 else ""
            )
            self.notify(shown, title="Task files not loaded", severity="warning", timeout=20)
        for row in self.rows:
            row.mine = self.mine.get(row.id, "")
        self.refresh_table()  # (the sessions pane loads on its own, as soon as the record opens)

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load_sessions(self) -> None:
        text, store, where = self._sessions_source()
        if store is None:
            return
        records = list(store.summaries(limit=SESSIONS_PAGE, **where))  # light rows, a page: more at the end
        total, running = len(records), sum(r.status == "running" for r in records)
        if len(records) == SESSIONS_PAGE:  # more than a page: how many, and every running one first
            live: Filters = {**where, "status": "running"}
            total, running = store.count_episodes(**where), store.count_episodes(**live)
            shown = {r.id for r in records}
            older = [r for r in store.summaries(limit=SESSIONS_PAGE, **live) if r.id not in shown]
            records = [*older, *records]  # (an episode left running long ago is where r resumes it)
        me = self.app.human
        mine = mine_by_task([r for r in records if me in (r.agent, r.user)]) if not text else {}
        message = self.SessionsLoaded(records, mine, forks_of(store, records), first=True, text=text)
        message.total, message.running = total, running
        self.post_message(message)

    def _sessions_source(self) -> tuple[str, Any, Filters]:
        """(the sessions filter, what to read the sessions from, the filter as the store takes
        it): the record, or a read-only look at its file until it opens; a filter waits for the
        record, since the look at the file does not filter."""
        text = self.sessions_text
        store = self.app.store if text else self.app.sessions_reader()
        return text, store, ({"text": text} if text else {})

    @on(SessionsLoaded)
    def _sessions_loaded(self, message: SessionsLoaded) -> None:
        tab = self.query("#tab-sessions")
        if not tab or not tab.first().is_attached:  # the app is closing (the page came back too late)
            return
        if message.text != self.sessions_text:  # read for a filter since changed
            return
        if message.first:
            self.sessions_total, self.sessions_running = message.total, message.running
            self.show_sessions(message.records, message.mine if not message.text else self.mine, message.forks)
        else:
            self.add_sessions(message.records, message.forks)

    def show_sessions(
        self, records: list[Any], mine: dict[str, str], forks: dict[str, dict[str, Any]] | None = None
    ) -> None:
        self.sessions = records
        self.sessions_read = True
        self.mine = mine
        table = self.sessions_table()
        table.clear()
        for r in records:
            table.add_row(*session_cells(r, forks), key=r.id)
        self._show_mine(mine)
        self.show_status()

    def _show_mine(self, mine: dict[str, str]) -> None:
        """The "mine" cells that changed, in place: refilling a table of 2,000 tasks for them
        would measure every cell again."""
        changed = [row for row in self.rows if row.mine != mine.get(row.id, "")]
        for row in changed:
            row.mine = mine.get(row.id, "")
        if not changed:
            return
        if self.sort_column == "mine":
            self.refresh_table()
            return
        table = self.query_one("#tasks", DataTable)
        for row in changed:
            if row.id in table.rows:
                table.update_cell(row.id, "mine", row.mine, update_width=True)

    @work(thread=True, exclusive=True, group="more-sessions", exit_on_error=False)
    def load_more_sessions(self) -> None:
        """The next page of sessions, when the cursor reaches the end of those shown."""
        text, store, where = self._sessions_source()
        if store is None:
            return
        last = self.sessions[-1] if self.sessions else None
        after = (last.started_at, last.id) if last is not None else None
        more = list(store.summaries(limit=SESSIONS_PAGE, after=after, **where))
        if more:
            self.post_message(self.SessionsLoaded(more, {}, forks_of(store, more), first=False, text=text))

    def add_sessions(self, records: list[Any], forks: dict[str, dict[str, Any]] | None = None) -> None:
        table = self.sessions_table()
        shown = {r.id for r in self.sessions}
        fresh = [r for r in records if r.id not in shown]  # (a row already shown is never shown twice)
        self.sessions = [*self.sessions, *fresh]
        for r in fresh:
            table.add_row(*session_cells(r, forks), key=r.id)
        self.show_status()

    @on(DataTable.RowHighlighted, "#sessions")
    def _session_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.sessions and event.cursor_row >= len(self.sessions) - 1 and len(self.sessions) >= SESSIONS_PAGE:
            self.load_more_sessions()

    def sessions_table(self) -> DataTable[str]:
        found = self.query("#sessions")
        if found:
            return found.first(DataTable)
        from sttui.tui.widgets import SessionTable  # (with its JSON views: not needed for the first paint)

        table: DataTable[str] = SessionTable(id="sessions", cursor_type="row", zebra_stripes=True)
        self.query_one("#tab-sessions", Vertical).mount(table, after=self.query_one("#sessions-filter"))
        table.add_columns(*SESSION_COLUMNS)
        return table

    # -- drawing: the task table, the status line and the brief --------------------------------
    def visible_rows(self) -> list[TaskRow]:
        words = self.query_one("#filter", Input).value.lower().split()
        rows = [r for r in self.rows if all(w in r.haystack() for w in words)]
        return sorted(rows, key=lambda r: r.sort_key(self.sort_column))

    def on_resize(self) -> None:
        if self.rows:
            self.refresh_table()

    def refresh_table(self) -> None:
        table = self.query_one("#tasks", DataTable)
        cursor = table.cursor_row
        widths = column_widths(self.size.width, self.rows)
        if widths != self._widths:  # every column on screen at any width: the id and title share what is left
            self._widths = widths
            table.clear(columns=True)
            for col in COLUMNS:
                table.add_column(col, key=col, width=widths[col])
        table.clear()
        shown = shown_ids([r.id for r in self.rows], widths["id"])
        for row in self.visible_rows():
            table.add_row(shown[row.id], *row.cells()[1:], key=row.id)
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        self.show_detail()
        self.show_status()

    def show_status(self) -> None:
        """What the tab in front holds: the tasks the filter lets through, or the sessions."""
        if self._on_sessions():
            running = sum(r.status == "running" for r in self.sessions)
            unclean = sum(not r.clean_baseline for r in self.sessions)
            total = max(self.sessions_total or 0, len(self.sessions))
            typed = self.sessions_text
            if typed and total > len(self.sessions):
                text = f"{len(self.sessions):,} of {total:,} sessions matching “{typed}” shown, more at the end"
            elif typed:
                text = f"{total} session(s) match “{typed}” · {running} running"
            elif total > len(self.sessions):  # a page of a long record: say so, in a line at 80 columns
                running = max(running, self.sessions_running or 0)
                text = f"{len(self.sessions):,} of {total:,} sessions shown, more at the end · {running} running"
                text += " (listed first)" if running else ""
            else:
                text = f"{len(self.sessions)} session(s) · {running} running · {unclean} not clean baselines"
        elif not self.rows:
            text = "Loading tasks…" if not self._load_errors else "no task could be loaded"
        else:
            shown = self.query_one("#tasks", DataTable).row_count
            typed = self.query_one("#filter", Input).value.strip()
            text = (
                f"{shown} of {len(self.rows)} tasks match “{typed}”"
                if typed
                else f"{len(self.rows)} tasks from {display_path(self.tasks_dir)}"
            )
        if self._load_errors:
            text += f" · {self._load_errors} task file(s) not loaded: run `sttui check` for details"
        found = self.query("#status")
        if not found:  # the screen is being taken down
            return
        status = found.first(Static)
        if str(status.render()) != text:
            status.update(text)

    def current_task(self) -> LoadedTask | None:
        table = self.query_one("#tasks", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.tasks.get(str(key))

    def show_detail(self) -> None:
        """The highlighted task's brief, from its row: nothing is loaded to show it (loading
        would import the task models, and run on the UI thread, at every cursor move)."""
        detail = self.query_one("#detail", Static)
        row = self.current_row()
        if row is None:
            detail.update("No task matches the filter." if self.rows else "")
            return
        detail.update(row.brief)

    # -- events: the filter, the cursor, a row chosen ------------------------------------------
    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self.refresh_table()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        table = self.query_one("#tasks", DataTable)
        if self.focused is table:
            # a second enter typed before the focus moved on: it was meant for the table
            task = self.current_task()
            if task is not None:
                self.app.start_play(task, seat="agent")
            return
        self.set_focus(table)

    @on(Input.Changed, "#sessions-filter")
    def _sessions_filter_changed(self, event: Input.Changed) -> None:
        """The sessions the words are found in, read again from the record (the pane holds a
        page of them, not all): the record is opened for a filter, if it is not yet."""
        self.sessions_text = " ".join(event.value.split())
        if self.sessions_text:
            self.app.with_record(self.load_sessions, "the sessions filter applies")
        else:
            self.load_sessions()

    @on(Input.Submitted, "#sessions-filter")
    def _sessions_filter_done(self) -> None:
        self.set_focus(self.sessions_table())

    @on(DataTable.RowHighlighted, "#tasks")
    def _highlighted(self) -> None:
        self.show_detail()
        self.refresh_bindings()  # u (the user seat) is offered on stt tasks only

    @on(DataTable.HeaderSelected, "#tasks")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        self.sort_column = str(event.column_key.value)
        self.refresh_table()

    @on(DataTable.RowSelected, "#tasks")
    def _play(self, event: DataTable.RowSelected) -> None:
        task = self.tasks.get(str(event.row_key.value))  # the row chosen, whatever the filter did since
        if task is not None:
            self.app.start_play(task, seat="agent")

    @on(DataTable.RowSelected, "#sessions")
    def _replay(self, event: DataTable.RowSelected) -> None:
        episode_id = str(event.row_key.value)
        self.app.with_record(lambda: self._open_replay(episode_id), "the replay opens")

    def _open_replay(self, episode_id: str) -> None:
        from sttui.tui.replay import ReplayScreen  # (the record is open: its libraries are loaded)

        self.app.push_screen(ReplayScreen(self.app.opened_store, episode_id))

    # -- actions and tabs ----------------------------------------------------------------------
    def action_play_user(self) -> None:
        task = self.current_task()
        if task is None or task.kind != "stt":
            self.notify("the user seat exists in dynamic tool-use (stt) tasks", severity="warning")
            return
        self.app.start_play(task, seat="user")

    def action_resume(self) -> None:
        table = self.sessions_table()
        if not self._on_sessions() or table.row_count == 0:
            self.notify("open the Sessions tab (F6) and pick an unfinished session", severity="warning")
            return
        record = self.sessions[table.cursor_row]
        if record.status != "running":
            self.notify(f"{record.id} is {record.status}; only running sessions resume", severity="warning")
            return
        self.app.resume_play(record)

    def action_annotate(self) -> None:
        """Rate items: tasks from the Tasks pane, episodes from the Sessions pane."""
        on_sessions = self._on_sessions()
        row = self.current_row()
        kind = "episodes" if on_sessions else ("explore" if row is not None and row.kind == "explore" else "tasks")
        self.app.with_record(lambda: self.app.open_annotation(kind, None), "the queue opens")

    def action_annotate_verdicts(self) -> None:
        """People check the judge: rate recorded verdicts right, wrong or can't tell."""
        self.app.with_record(lambda: self.app.open_annotation("verdicts", None), "the queue opens")

    def action_switch_tab(self) -> None:
        tabs = self.query_one("#home-tabs", ContentSwitcher)
        self.show_tab("tab-sessions" if tabs.current == "tab-tasks" else "tab-tasks")
        self.set_focus(self.sessions_table() if tabs.current == "tab-sessions" else self.query_one("#tasks", DataTable))

    def show_tab(self, tab: str) -> None:
        self.query_one("#home-tabs", ContentSwitcher).current = tab
        self.query_one("#tab-bar", Static).update(self._tab_bar(tab))
        self.show_status()
        self.refresh_bindings()  # each tab shows its own keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The Tasks tab's keys on the Tasks tab, the Sessions tab's on the Sessions tab."""
        switcher = self.query("#home-tabs")
        on_sessions = bool(switcher) and switcher.first(ContentSwitcher).current == "tab-sessions"
        off = (action in TASKS_ONLY and on_sessions) or (action in SESSIONS_ONLY and not on_sessions)
        if action == "play_user" and not off:  # explore episodes have no user seat
            row = self.current_row()
            off = row is not None and row.kind != "stt"
        return not off

    def current_row(self) -> TaskRow | None:
        """The highlighted task's row (nothing loaded), or None."""
        found = self.query("#tasks")
        table = found.first(DataTable) if found else None
        if table is None or table.row_count == 0:
            return None
        key = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        return self._row_by_id.get(key)

    @staticmethod
    def _tab_bar(tab: str) -> str:
        names = {"tab-tasks": "Tasks", "tab-sessions": "Sessions"}
        return (
            "  ".join(f"[reverse] {n} [/reverse]" if t == tab else f" {n} " for t, n in names.items())
            + "   [dim]F6 switches · F1 or ? lists every key[/dim]"
        )

    def _on_sessions(self) -> bool:
        return self.query_one("#home-tabs", ContentSwitcher).current == "tab-sessions"

    def action_focus_filter(self) -> None:
        """The filter of the tab in front."""
        # set_focus, not focus(): focus() waits its turn behind the keys already typed
        self.set_focus(self.query_one("#sessions-filter" if self._on_sessions() else "#filter", Input))

    def action_clear_filter(self) -> None:
        if self._on_sessions():
            self.query_one("#sessions-filter", Input).value = ""
            self.set_focus(self.sessions_table())
            return
        self.query_one("#filter", Input).value = ""
        self.set_focus(self.query_one("#tasks", DataTable))

    def action_cycle_sort(self) -> None:
        self.sort_column = COLUMNS[(COLUMNS.index(self.sort_column) + 1) % len(COLUMNS)]
        self.notify(f"Sorted by {self.sort_column}", timeout=2)
        self.refresh_table()
