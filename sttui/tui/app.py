"""The workbench application: opens the record, starts play sessions, themes, keymap,
and the command palette entries of every screen.

ctrl+q asks first while an episode is being played (it stays running and resumable).

The module reads in named sections: the screens under everything and the workers' messages;
the app (opening, annotation, sessions, notices and size, a session lost, quitting, the
command palette); then the bindings as palette commands and ``run_app``."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from sttui.config import Config, ConfigError, load_config
from sttui.tui.home import HomeScreen
from sttui.tui.keymap import bound_keys
from sttui.tui.launch import Annotate, Launch
from sttui.tui.record import RecordAccess
from sttui.tui.safetable import guard_strips
from sttui.tui.workers import ReportsWorkerFailures

if TYPE_CHECKING:
    from sttui.lineage.refining import Refinement
    from sttui.running.seats import PlayPlan
    from sttui.store.store import Store

MIN_SIZE = (80, 24)


# -- the screens under everything, and the messages workers send -------------------------------


class TooSmall(ModalScreen[None]):
    """Shown instead of a cramped screen; goes away when the window is large enough again."""

    def __init__(self, width: int, height: int):
        super().__init__()
        self.size_now = (width, height)

    def compose(self) -> ComposeResult:
        yield Static(self._text(*self.size_now), id="too-small")

    @staticmethod
    def _text(width: int, height: int) -> str:
        return (
            f"The window is too small: sttui needs at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (now {width}×{height}).\n"
            "Make it larger to go on; nothing is lost meanwhile."
        )

    def update(self, width: int, height: int) -> None:
        self.size_now = (width, height)
        if self.is_mounted:
            self.query_one("#too-small", Static).update(self._text(width, height))

    def on_screen_resume(self) -> None:
        """Back on top (a screen opened over it was left): gone if the window grew meanwhile."""
        width, height = self.app.size
        if width >= MIN_SIZE[0] and height >= MIN_SIZE[1]:
            self.dismiss()
        else:
            self.update(width, height)


class Placeholder(Screen[None]):
    """The blank screen under the only screen of an app that has no home (a draft's review):
    leaving that screen ends the app (``SttuiApp.has_screen_below``)."""


def has_screen_below(app: App[Any]) -> bool:
    """Whether the screen in front was opened over another of the workbench's (leaving it goes
    back there), or is the app's only one (leaving it ends the app)."""
    return len(app.screen_stack) > 1 and not isinstance(app.screen_stack[-2], Placeholder)


class Notice(Message):
    """A notice a worker wants shown (workers post it; the app shows it on its own thread)."""

    def __init__(
        self,
        text: str,
        severity: Literal["information", "warning", "error"] = "information",
        timeout: float | None = None,
        title: str = "",
    ) -> None:
        super().__init__()
        self.text, self.severity, self.timeout, self.title = text, severity, timeout, title


class SessionReady(Message):
    """A play session, built off the UI thread, ready for its screen."""

    def __init__(self, session: Any, human: Any, seat: str) -> None:
        super().__init__()
        self.session, self.human, self.seat = session, human, seat


class QueueReady(Message):
    """An annotation queue, ready for its screen."""

    def __init__(self, queue: Any) -> None:
        super().__init__()
        self.queue = queue


class ExitWith(Message):
    """End the app with ``code`` and ``text`` (a `sttui play` whose seats cannot be filled)."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__()
        self.code, self.text = code, text


# -- the app -----------------------------------------------------------------------------------


class SttuiApp(ReportsWorkerFailures, RecordAccess, App[None]):
    """sttui: play, record, score and rate agent-benchmark episodes."""

    TITLE = "sttui"
    SUB_TITLE = "agent-benchmark workbench"
    CSS_PATH = Path(__file__).parent / "sttui.tcss"  # absolute: subclasses elsewhere still find it
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),  # asks first mid-episode
        Binding("ctrl+t", "toggle_theme", "Theme", show=False, id="app.toggle_theme"),
        Binding("f1,question_mark", "help", "Keys", id="app.help"),
    ]
    # where a suspended episode is taken up again, as the leave dialog and its notice say
    resume_hint = "r in home's Sessions tab (F6), or `sttui resume`, goes on with it"
    quit_hint = "r on home resumes it"  # (after quitting: where it is taken up again)
    home_label = "Home"  # where escape goes back to from an episode's end (a study's own screen in a study)
    WORKERS: ClassVar[dict[str, str]] = {
        "store": "open the record",
        "annotate": "open the annotation queue",
        "session": "open the episode",
        "keymap": "check the keymap in sttui.yaml",
        "recording-failed": "close the episode whose recording failed",
        "study": "record that the instructions were acknowledged",
    }

    def __init__(self, launch: Launch | None = None):
        guard_strips()  # no text from data reaches the terminal as a sequence it obeys
        super().__init__()
        self.launch = launch or Launch.build()  # what the command line asked for, typed and frozen
        self._init_record()  # the record: opened off the UI thread when first needed (sttui.tui.record)
        self._home_shown = False
        # what to open once the record is: each taken once (the launch itself stays as it was)
        self._play_request = self.launch.play
        self._resume_request = self.launch.resume_episode
        self._annotate_request = self.launch.annotate
        self._refine_request = self.launch.refine
        self.last_handoff_model: str | None = None  # F10 offers the model chosen last in this sitting
        self._quit_dialog: Any = None
        self.record_failures: list[str] = []  # episodes whose record stopped at a failed write

    @property
    def config(self) -> Config:
        return self.launch.config

    @property
    def human(self) -> str:
        """``human:NAME``: the person at the keyboard, as the record names them."""
        return self.launch.human

    @property
    def opened_store(self) -> Store:
        """The record, for what runs once it is open (sessions, forks, queues start after it is)."""
        if self.store is None:
            raise RuntimeError("the record is not open yet")
        return self.store

    @property
    def tasks_dir(self) -> Path:
        return self.launch.tasks_dir

    @property
    def db_url(self) -> str | None:
        return self.launch.db_url

    # -- opening: the record, the keymap, the first screen -------------------------------------
    def on_mount(self) -> None:
        if self.config.theme:
            self.theme = self.config.theme
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
            self.check_keymap()
        if self._play_request is not None:  # `sttui play TASK`: the task named while it opens
            from sttui.tui.opening import OpeningScreen

            self.push_screen(OpeningScreen(self._play_request.loaded))
        self._home_shown = True
        self._fit(self.size.width, self.size.height)
        self.screen_change_signal.subscribe(self, self._screen_changed)
        if self.record_at_start():  # the first paint does not wait for the database
            self.call_after_refresh(self.with_record, lambda: None)

    def record_at_start(self) -> bool:
        """Whether the record opens as soon as the first screen is painted: always, but on plain
        home, which opens it when an action first needs it (its sessions pane reads the file on
        its own, ``sessions_reader``). The command line asking for something that records (play,
        resume, annotate, refine), or an app that starts from the record (a study, a comparison:
        they override ``_store_ready``), opens it at once."""
        requests = (self._play_request, self._resume_request, self._annotate_request, self._refine_request)
        on_home = bool(self.screen_stack) and isinstance(self.screen_stack[0], HomeScreen)
        narrowed = type(self)._store_ready is not SttuiApp._store_ready
        return not on_home or narrowed or any(r is not None for r in requests)

    def get_default_screen(self) -> Screen[Any]:
        """The base screen is the app's own first screen: no blank screen is composed and
        painted before it (which cost a frame and a full render at every start)."""
        return self.base_screen()

    def base_screen(self) -> Screen[Any]:
        """The screen under every other one, where ``pop_to_home`` lands: home here."""
        # `sttui play TASK` opens one task: home reads the task files only once it is shown again
        return HomeScreen(self.tasks_dir, defer_tasks=self._play_request is not None)

    def has_screen_below(self) -> bool:
        return has_screen_below(self)

    @work(thread=True, group="keymap", exit_on_error=False)
    def check_keymap(self) -> None:
        """Say what the keymap in sttui.yaml breaks (it reads every screen's keys: off the UI thread)."""
        from sttui.tui.keymap import keymap_problems, workbench_scopes

        problems = keymap_problems(self.config.keymap, workbench_scopes(), type(self))
        if problems:
            text = "\n".join(problems[:5]) + (f"\n… and {len(problems) - 5} more" if len(problems) > 5 else "")
            self.post_message(Notice(text, title="sttui.yaml", severity="warning", timeout=30))

    def _record_unavailable(self, reason: str) -> None:
        if self._play_request is not None:  # the task cannot open without its record: home instead
            self._play_request = None
            self._leave_opening()
        super()._record_unavailable(reason)
        self._home_tasks()

    def _leave_opening(self) -> None:
        """`sttui play`'s opening screen gives way to home (the task could not be opened)."""
        from sttui.tui.opening import OpeningScreen

        if isinstance(self.screen, OpeningScreen):
            self.pop_screen()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        super().on_worker_state_changed(event)  # the notice: what failed, and what to check
        if event.state is WorkerState.ERROR and event.worker.group == "session":
            self._leave_opening()  # not left saying "opening…" over an episode that will not come

    def _store_ready(self, store: Any) -> None:
        self.store = store
        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        if home is not None and home is self.screen:  # the sessions pane does not wait for the task list
            home.load_sessions()  # (home behind another screen lists them when it is shown again)
        if self._play_request:
            from sttui.tui.opening import OpeningScreen

            plan, self._play_request = self._play_request, None
            if isinstance(self.screen, OpeningScreen):
                self.screen.say("the record is open; opening the episode…")
            self._open_session(plan, from_command_line=True)
        if self._resume_request:
            record = store.episode(self._resume_request)
            self.resume_play(record)
        if self._annotate_request:
            self.open_annotation(*self._annotate_request)
        if self._refine_request is not None:
            from sttui.tui.refine import RefineScreen

            refinement, self._refine_request = self._refine_request, None
            self.push_screen(RefineScreen(refinement, store, self.human))

    # -- annotation ----------------------------------------------------------------------------
    @work(thread=True, group="annotate", exit_on_error=False)
    def open_annotation(self, kind: str, text_filter: str | None, gold_rate: int | None = None) -> None:
        """The annotation queue of this person: items of ``kind`` still needing ratings, with
        gold items mixed in at one in ``gold_rate`` (None: the dimensions file's rate)."""
        from sttui.annotate.dimensions import DimensionsError, load_dimensions
        from sttui.annotate.queue import Item, Queue, task_items
        from sttui.core.loader import load_all

        try:
            dims = load_dimensions()
        except DimensionsError as exc:
            self.post_message(Notice(str(exc), severity="error", timeout=20))
            return
        if kind == "episodes":
            items = [
                Item("episode", r.id, f"{r.task_id} by {r.agent}")
                for r in self.opened_store.list_episodes(status="completed")
            ]
        elif kind == "verdicts":
            from sttui.annotate.queue import verdict_items

            items = verdict_items(self.opened_store.judged_episodes())
        else:
            loaded, _ = load_all([self.tasks_dir])
            items = task_items(loaded, "task" if kind == "tasks" else "explore")
        if text_filter:
            items = [i for i in items if text_filter.lower() in f"{i.id} {i.title}".lower()]
        name = self.human.split(":", 1)[1] if self.human.startswith("human:") else self.human
        queue = Queue(self.opened_store, name, items, dims, kind, gold_rate)

        self.post_message(QueueReady(queue))

    @on(QueueReady)
    def _queue_ready(self, message: QueueReady) -> None:
        from sttui.tui.annotate import AnnotateScreen

        self.push_screen(AnnotateScreen(message.queue))

    def _home_tasks(self) -> None:
        """Home reads its task files now (they were left for later while a task opened)."""
        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        if home is not None and home.defer_tasks:
            home.defer_tasks = False
            home.load_tasks()

    # -- sessions ----------------------------------------------------------------------
    def start_play(self, loaded: Any, seat: str, agent_spec: str | None = None, user_spec: str | None = None) -> None:
        from sttui.running.seats import PlayPlan

        if agent_spec or user_spec:
            plan = PlayPlan.build(loaded, self.human, agent_spec, user_spec)
        else:
            plan = PlayPlan(loaded, seat, self.human, agent="baseline:oracle" if seat == "user" else None)
        self.with_record(lambda: self._open_session(plan), "the episode starts")

    @work(thread=True, group="session", exit_on_error=False)
    def _open_session(self, plan: PlayPlan, from_command_line: bool = False) -> None:
        from sttui.controllers.registry import ControllerSpecError
        from sttui.core.problems import TaskFileError
        from sttui.running.session import PlaySession

        try:
            plan = plan.with_task()  # `sttui play`: the task is loaded here, after the first paint
        except TaskFileError as exc:  # the file changed since the command line checked it
            self.post_message(ExitWith(1, "\n".join(f"error: {p}" for p in exc.problems)))
            return
        try:
            human, agent, user = plan.controllers(self.config.models, self.opened_store)
            session = PlaySession(
                self.opened_store, plan.loaded, agent, user, episode_id=plan.episode_id, settings=plan.settings
            )
            session.time_limit = plan.time_limit
        except (ControllerSpecError, ValueError) as exc:
            if from_command_line:  # `sttui play` checked the seats first; whatever is left ends the command
                self.post_message(ExitWith(2, f"error: {exc}"))
            else:
                self.post_message(Notice(str(exc), severity="error", timeout=15))
            return
        self.post_message(SessionReady(session, human, plan.seat))

    def resume_play(self, record: Any) -> None:
        self.with_record(lambda: self._resume_session(record), "the episode resumes")

    @work(thread=True, group="session", exit_on_error=False)
    def _resume_session(self, record: Any) -> None:
        self._resume_now(record)

    @work(thread=True, group="session", exit_on_error=False)
    def fork_play(self, episode_id: str, seq: int, agent_spec: str | None = None) -> None:
        """Fork ``episode_id`` at row ``seq`` (see ``sttui.lineage.forking``) and play the fork: the person
        in the agent seat, or, when ``agent_spec`` names a model or baseline, in the user seat.
        A record that does not replay as recorded, or a version not trusted here, is refused."""
        from sttui.exports.versions import VersionProblem, load_version
        from sttui.lineage.forking import ForkProblem, fork_point, write_fork
        from sttui.running.session import is_human

        try:
            record = self.opened_store.episode(episode_id)
            loaded = load_version(self.opened_store, record)
            point = fork_point(loaded, record, self.opened_store.events(record.id), seq)
        except (VersionProblem, ForkProblem) as exc:
            self.post_message(Notice(f"cannot fork {episode_id}: {exc}", severity="error", timeout=20))
            return
        person = (
            agent_spec
            if agent_spec is not None and is_human(agent_spec) and agent_spec not in ("human", "human:")
            else self.human
        )
        if agent_spec is None or is_human(agent_spec):
            agent, user = person, (record.user if not is_human(record.user) else None)
        elif loaded.kind == "explore":
            self.post_message(Notice("an explore task has one seat: a fork of it is yours to play", severity="error"))
            return
        else:
            agent, user = agent_spec, person
        if loaded.kind != "stt":
            user = None
        new = write_fork(self.opened_store, loaded, record, point, agent, user)
        self.post_message(Notice(f"forked {record.id} at row {seq} (step {point.step}) as {new.id}"))
        self._resume_now(new)

    def _resume_now(self, record: Any) -> None:
        """Rebuild a running episode and open its play screen (in a worker thread)."""
        from sttui.controllers.human import HumanController
        from sttui.controllers.registry import ControllerSpecError, make_agent, make_user
        from sttui.exports.versions import VersionProblem, load_version
        from sttui.running.recording import recorded_settings
        from sttui.running.session import PlaySession

        try:
            loaded = load_version(self.opened_store, record)
        except VersionProblem as exc:  # e.g. an imported version whose code is not trusted
            self.post_message(Notice(f"cannot resume {record.id}: {exc}", severity="error", timeout=20))
            return
        seat = "user" if (record.user or "").startswith("human") else "agent"
        models = self.config.models
        try:
            if seat == "user":
                human = HumanController(record.user)
                agent = make_agent(
                    record.agent,
                    loaded,
                    record.seed,
                    models,
                    self.opened_store,
                    recorded_settings(self.opened_store.events(record.id)),
                )
                session = PlaySession(self.opened_store, loaded, agent, human, resume=record)
            else:
                human = HumanController(record.agent if record.agent.startswith("human") else self.human)
                # an stt episode under the no-user setting has an empty user seat
                user = (
                    make_user(record.user, models, seed=record.seed) if loaded.kind == "stt" and record.user else None
                )
                session = PlaySession(self.opened_store, loaded, human, user, resume=record)
        except (ControllerSpecError, ValueError) as exc:
            self.post_message(Notice(str(exc), severity="error", timeout=15))
            return
        self.post_message(SessionReady(session, human, seat))

    # -- notices, the screen's size and going home ---------------------------------------------
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice as plain text, from any screen: notices quote data (a task's announced
        notice, a file's name, an error naming what was typed), and none of the workbench's own
        is markup; ``[/]`` in one had stopped the app."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    @on(Notice)
    def _notice(self, message: Notice) -> None:
        self.notify(message.text, title=message.title, severity=message.severity, timeout=message.timeout)

    @on(ExitWith)
    def _exit_with(self, message: ExitWith) -> None:
        self.exit(None, message.code, message.text)

    @on(SessionReady)
    def _session_ready(self, message: SessionReady) -> None:
        self._show_session(message.session, message.human, message.seat)

    def _show_session(self, session: Any, human: Any, seat: str) -> None:
        screen: Screen[Any]
        if session.loaded.kind == "explore":
            from sttui.tui.explore import ExploreScreen

            screen = ExploreScreen(session, human)
        elif seat == "user":
            from sttui.tui.usersim import UserSimScreen

            screen = UserSimScreen(session, human)
        else:
            from sttui.tui.play import PlayScreen

            screen = PlayScreen(session, human)
        from sttui.tui.opening import OpeningScreen

        if isinstance(self.screen, TooSmall):  # (put back over the new screen: _screen_changed)
            self.pop_screen()
        if isinstance(self.screen, OpeningScreen):  # `sttui play`: in its place, so leaving goes home
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def on_resize(self, event: Any) -> None:
        if self._home_shown:  # before home is up, on_mount does the first fit
            self._fit(event.size.width, event.size.height)

    def _screen_changed(self, screen: Screen[Any]) -> None:
        """A screen opened (a play screen once its record is open, the annotation queue, a
        study's intro) while the window is too small: the notice goes back over it. Not over a
        dialog or the command palette, which open over the notice and can be used there."""
        if not isinstance(screen, ModalScreen):
            self.call_next(lambda: self._fit(self.size.width, self.size.height))

    def _fit(self, width: int, height: int) -> None:
        """Show the too-small notice while the window is below the minimum, and only then: on
        top, over whatever screen opened since (a notice left under one goes when it is back
        on top of a window large enough, ``TooSmall.on_screen_resume``)."""
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        # the notice in sight: the topmost, under nothing but dialogs (the palette among them)
        shown = next(
            (s for s in reversed(self.screen_stack) if not isinstance(s, ModalScreen) or isinstance(s, TooSmall)), None
        )
        if small and isinstance(shown, TooSmall):
            shown.update(width, height)
        elif small:
            self.push_screen(TooSmall(width, height))
        elif isinstance(self.screen, TooSmall):
            self.pop_screen()

    def action_pop_to_home(self) -> None:
        while self.has_screen_below() and not isinstance(self.screen, HomeScreen):
            self.pop_screen()

    def pop_to_home(self) -> None:
        self.action_pop_to_home()

    # -- a session lost: the record failed, or another process took it -------------------------
    def recording_failed(self, session: Any, reason: str) -> None:
        """A write of the episode being played failed past the writer's deadline: the episode
        stops (its record ends at its last committed step, without a gap), the person is told
        why and taken home, and the workbench exits 3 when it closes: no success over a lost write."""
        from sttui.store.writer import played_elsewhere

        episode_id = session.episode_id
        if played_elsewhere(reason):  # its record is whole: the other session goes on with it
            self.played_elsewhere(session)
            return
        self.record_failures.append(f"episode {episode_id}: {reason}")
        self.notify(
            f"{reason}. Episode {episode_id} stopped: its record ends at its last committed step and nothing "
            "more of it was written. It is marked errored there if the database takes that one write "
            f"(`sttui fork {episode_id} --at N` goes on), else it stays running (`sttui resume {episode_id}`).",
            title="Recording failed",
            severity="error",
            timeout=60,
        )
        self.pop_to_home()

        def let_go() -> None:  # in the background: a locked record may take its deadline
            from sttui.store.writer import mark_unrecorded  # (SQLAlchemy: not before the first paint)

            session.close()
            mark_unrecorded(session.store, dict(session.writer.failed))

        self.run_worker(asyncio.to_thread(let_go), group="recording-failed", exit_on_error=False)

    def played_elsewhere(self, session: Any) -> None:
        """The episode being played here was opened in another session too, which wrote its next
        step first: this one stops, writing nothing more (its last step here was not recorded),
        and the person is taken home; the record is whole and not marked errored."""
        self.notify(
            f"Episode {session.episode_id} is open in another window or session, which recorded its next "
            "step first. It goes on there; this one stops here, and your last step here was not recorded. "
            "Everything recorded before it is kept.",
            title="Played elsewhere",
            severity="warning",
            timeout=60,
        )
        self.pop_to_home()
        self.run_worker(asyncio.to_thread(session.close), group="recording-failed", exit_on_error=False)

    # -- quitting, help and theme --------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit; while an episode is being played, ask first (it stays running, resumable).
        ctrl+q again in the question quits."""
        if self._quit_dialog is not None and self.screen is self._quit_dialog:
            self._quit_dialog.dismiss(True)
            return
        playing = self._playing()
        if playing is None:
            self.exit()
            return
        from sttui.tui.modals import Confirm

        def answer(yes: bool | None) -> None:
            self._quit_dialog = None
            if yes:
                playing.session.leave("quit")
                self.exit()

        self._quit_dialog = Confirm(
            f"Quit? Episode {playing.session.episode_id} stays running; {self.quit_hint}.", "Quit", "Keep playing"
        )
        self.push_screen(self._quit_dialog, answer)

    def _playing(self) -> Any:
        """The screen of an episode being played right now, if any."""
        from sttui.tui.handoff import SeatScreen

        for screen in reversed(self.screen_stack):
            if isinstance(screen, SeatScreen) and screen.session.episode.ended is None:
                return screen
        return None

    def action_help(self) -> None:
        """The keys of the screen in front, with their binding ids (F1 or ?)."""
        from sttui.tui.help import KeysHelp

        if not isinstance(self.screen, KeysHelp):
            self.push_screen(KeysHelp(self.screen))

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    # -- the command palette -------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Toggle light/dark theme", "Switch between the dark and light themes", self.action_toggle_theme
        )
        yield SystemCommand(
            "Keys of this screen", "f1 · app.help: every key of the screen, with its binding id", self.action_help
        )
        yield from binding_commands(screen, self.config.keymap)


# -- every screen's bindings as palette commands, and running the app --------------------------


def binding_commands(screen: Screen[Any], keymap: Mapping[str, str] = MappingProxyType({})) -> Iterable[SystemCommand]:
    """A command-palette entry for every binding of a screen that has a description, and that
    the screen allows now (a study's participant is not offered the god view or a model), with
    the keys it answers to under ``keymap`` (sttui.yaml's), not the class's defaults; and for
    the bindings of ours (those with an id) of the widget focused there, such as enter on
    home's task list, which plays the task under the cursor."""
    owners: list[DOMNode] = [screen]
    focused = screen.focused if isinstance(screen, Screen) else None
    if focused is not None:
        owners.append(focused)
    for owner in owners:
        for binding in screen.BINDINGS if owner is screen else _own_bindings(owner):
            if isinstance(binding, Binding) and binding.description:
                if isinstance(owner, DOMNode) and owner.check_action(binding.action.split("(")[0], ()) is False:
                    continue
                yield SystemCommand(
                    binding.description,
                    f"{', '.join(bound_keys(binding, keymap))} · {binding.id or binding.action}",
                    lambda a=binding.action, o=owner: o.run_action(a),
                )


def _own_bindings(widget: DOMNode) -> list[Binding]:
    """A widget's bindings that are sttui's (they have an id), from its class and its bases."""
    found: dict[str, Binding] = {}
    for cls in type(widget).__mro__:
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id and binding.key not in found:
                found[binding.key] = binding
    return list(found.values())


def run_app(
    *,
    tasks_dir: Path | None = None,
    db_url: str | None = None,
    resume_episode: str | None = None,
    human: str | None = None,
    play: PlayPlan | None = None,
    annotate: Annotate | None = None,
    config: Config | None = None,
    refine: Refinement | None = None,
) -> None:
    """Run the workbench. ``play`` opens one task at once (``sttui play``); ``config`` is the
    one the command line already read, else it is read here."""
    if config is None:
        try:
            config = load_config()
        except ConfigError as exc:
            raise SystemExit(f"error: {exc}") from None
    launch = Launch.build(
        tasks_dir,
        config=config,
        db_url=db_url,
        human=human,
        play=play,
        resume_episode=resume_episode,
        annotate=annotate,
        refine=refine,
    )
    app = SttuiApp(launch)
    app.run()
    if app.return_code:  # a crash printed its traceback, or an error its line; the shell must not see success
        raise SystemExit(app.return_code)
    if app.record_failures:
        print(
            f"error: recording failed for {len(app.record_failures)} episode(s); {app.record_failures[0]}",
            file=sys.stderr,
        )
        raise SystemExit(3)
