"""A participant's sitting of a study, in a terminal (``sttui study join``) and in a browser
(``sttui serve --study``) alike: the consent text and the instructions, acknowledged once before
the first task, then the play screen of each next assigned task (practice first), its clock
paused until they start it, under the study's time limit. Between tasks the participant sees
their progress (and a break when one is due) and goes on, stops for now, or withdraws; they
never see the workbench's home, other tasks or other people's episodes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Header, Markdown, Static

from sttui.safetext import visible, visible_lines
from sttui.tui.app import SttuiApp
from sttui.tui.footer import Footer
from sttui.tui.launch import Launch
from sttui.tui.modals import Confirm, Dialog
from sttui.tui.screen import SttuiScreen


class StudyIntro(Dialog[bool]):
    """The consent text (if any) and the instructions: True when the participant agrees and has
    read them, False when they leave (nothing is recorded for the task then)."""

    DEFAULT_CSS = """
    StudyIntro .dialog { width: 90; max-width: 100%; max-height: 100%; padding: 0 1; }
    StudyIntro #study-text { height: auto; max-height: 45vh; }
    StudyIntro #study-text:focus { background-tint: $foreground 4%; }
    StudyIntro .hint { color: $text-muted; }
    """
    # the text has the keys first: at 80×24 it scrolls, and no enter can agree unseen
    FIRST = "#study-text"
    BINDINGS = [
        Binding("ctrl+s", "answer(True)", "I agree, start", id="study.ack"),
        Binding("escape", "answer(False)", "Not now", id="study.leave"),
    ]

    def __init__(self, title: str, instructions: str, consent: str | None, task_note: str, rules: str | None = None):
        """``rules``: the words a model in the participant's seat is given (its system prompt),
        which the participant reads too, so the lab need not copy them into the instructions."""
        super().__init__()
        # the study file's words as written: a control character or a mark that reorders a line
        # (U+202E) is shown as its escape, not obeyed (it would break the dialog's border)
        self.title_text, self.task_note = visible(title), task_note
        self.instructions = visible_lines(instructions)
        self.consent = visible_lines(consent) if consent else None
        self.rules = visible_lines(rules) if rules else None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="question", id="study-title", markup=False)
            with VerticalScroll(id="study-text"):
                if self.consent:
                    yield Markdown("## Consent\n\n" + self.consent, id="study-consent")
                yield Markdown(self.instructions, id="study-instructions")
                if self.rules:
                    yield Static("The rules a model in your seat is given, word for word:", classes="hint")
                    yield Markdown(self.rules, id="study-rules")  # (its lines rewrapped to the width)
            yield Static(self.task_note, id="study-next")
            yield Static("↑↓ PgUp PgDn scroll the text · tab reaches the buttons", classes="hint")
            with Horizontal(classes="buttons"):
                label = "I agree and have read the instructions" if self.consent else "I have read the instructions"
                yield Button(f"{label} (ctrl+s)", variant="primary", id="study-ack")
                yield Button("Not now (esc)", id="study-leave")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "study-ack")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class StudyHome(SttuiScreen[None]):
    """Between tasks: where the participant is in the study, and what they can do next."""

    BINDINGS = [
        Binding("enter", "next", "Next task", id="study.next"),
        Binding("w", "withdraw", "Withdraw from the study", id="study.withdraw"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="study-home"):
            yield Static("Finding your next task…", id="study-status")
            yield Static("", id="study-keys", classes="muted")
        yield Footer()

    def on_screen_resume(self) -> None:
        app = self.app
        if isinstance(app, StudyApp):
            app.came_home()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        app = self.app
        if isinstance(app, StudyApp) and action in ("next", "withdraw") and not app.offers(action):
            return False  # (hidden from the footer: nothing is next, or they withdrew)
        return super().check_action(action, parameters)

    def show(self, status: str, keys: str) -> None:
        self.query_one("#study-status", Static).update(status)
        self.query_one("#study-keys", Static).update(keys)

    def action_next(self) -> None:
        app = self.app
        if isinstance(app, StudyApp):
            app.next_task()

    def action_withdraw(self) -> None:
        app = self.app
        if isinstance(app, StudyApp):
            app.ask_withdraw()


KEYS_BETWEEN = "enter: your next task  ·  w: withdraw from the study  ·  ctrl+q: stop for now (your place is kept)"


class StudyApp(SttuiApp):
    """The workbench narrowed to one participant's study: their tasks, in their order, one after
    another. Given a ``sitting`` (``study join`` took the first slot already, so a full study or an
    unknown name is one line at the prompt), it opens that first; else it joins itself (a browser
    session: problems are shown on the screen). Each next task comes from the same
    ``next_sitting`` either way."""

    resume_hint = "enter on the study's screen goes back to it, where you left it"
    quit_hint = "joining the study again goes back to it, where you left it"
    home_label = "Study"
    WORKERS: ClassVar[dict[str, str]] = {
        **SttuiApp.WORKERS,
        "study": "reach the study in the record",
        "study-check": "check whether the task's episode ended",
    }

    def __init__(
        self,
        db_url: str | None,
        sitting: Any = None,
        config: Any = None,
        *,
        study_id: str | None = None,
        name: str | None = None,
        token: str | None = None,
    ):
        person = sitting.person if sitting is not None else (f"human:{name}" if name else None)
        super().__init__(Launch.build(db_url=db_url, human=person, config=config))
        self.sitting = sitting  # sttui.study.sitting.Sitting: the slot being played now
        self.study_id = study_id or (sitting.assignment.study_id if sitting is not None else None)
        # who joins for the next task: the name or token given, or the participant the sitting names
        self.join_name = name if (name or token) else (sitting.assignment.participant if sitting is not None else None)
        self.token = token
        self.acknowledged = False
        self.played = 0  # tasks finished in this sitting
        self.phase = "joining"  # joining · playing · between · done · withdrawn · problem
        self.problem: str | None = None
        self.finished: Any = None  # the Assignment once every task is done
        self._on_screen = False  # the sitting's task has been shown
        self.barred = True  # no model in the seat, no god view (sttui.tui.handoff.STUDY_BARRED)

    def base_screen(self) -> Screen[Any]:
        return StudyHome()

    def _store_ready(self, store: Any) -> None:
        super()._store_ready(store)
        if self.sitting is not None:
            self._arrive(self.sitting)
        else:
            self.next_task()

    # -- getting the next task -------------------------------------------------------------
    def next_task(self) -> None:
        if self.store is None or self.phase in ("joining_now", "playing", "done", "withdrawn"):
            return
        self.phase = "joining_now"
        self._show_home("Finding your next task…", "")
        self._join()

    @work(thread=True, exclusive=True, group="study", exit_on_error=False)
    def _join(self) -> None:
        from sttui.core.problems import TaskFileError
        from sttui.store.studies import StudyProblem
        from sttui.study.sitting import next_sitting

        assert self.study_id is not None
        try:
            found = next_sitting(self.store, self.study_id, self.join_name, self.token)
        except (StudyProblem, TaskFileError) as exc:
            self.post_message(self.CannotGoOn(str(exc)))
            return
        self.post_message(self.Arrived(found))

    class CannotGoOn(Message):
        """Why the participant cannot go on (a full study, a withdrawn name, a broken task)."""

        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    class Arrived(Message):
        """The participant's next sitting, found off the UI thread."""

        def __init__(self, found: Any) -> None:
            super().__init__()
            self.found = found

    class Between(Message):
        """Back from a task: whether its episode ended (else it stays open)."""

        def __init__(self, ended: bool) -> None:
            super().__init__()
            self.ended = ended

    class Withdrawn(Message):
        """The participant's withdrawal is recorded."""

    @on(CannotGoOn)
    def _cannot_go_on(self, message: CannotGoOn) -> None:
        self._failed(message.problem)

    @on(Arrived)
    def _arrived(self, message: Arrived) -> None:
        self._arrive(message.found)

    @on(Between)
    def _back_between(self, message: Between) -> None:
        self._between(message.ended)

    @on(Withdrawn)
    def _was_withdrawn(self, _message: Withdrawn) -> None:
        self._withdrawn()

    def _failed(self, problem: str) -> None:
        self.phase, self.problem = "problem", problem
        self._show_home(f"[b]Cannot go on:[/b] {escape(problem)}", "ctrl+q: leave")

    def _arrive(self, found: Any) -> None:
        from sttui.study.sitting import Sitting

        if not isinstance(found, Sitting):
            self.phase, self.finished = "done", found
            self._show_home(
                f"{escape(found.participant)}: all {found.total} task(s) of study {escape(found.study_id)} are done. "
                "Thank you!",
                "w: withdraw from the study  ·  ctrl+q: leave",
            )
            return
        self.sitting = found
        self.launch = replace(self.launch, human=found.person)  # a token's participant is known once joined
        self.phase = "playing"
        s = found.study
        if found.assignment.acknowledged or self.acknowledged:
            self._begin()
            return
        rules = None
        if s.seat == "agent":  # (the user seat's brief is on its screen, as fields)
            from sttui.prompts import prompt

            rules = prompt("agent_stt.md" if found.plan.loaded.kind == "stt" else "agent_explore.md")
        self.push_screen(
            StudyIntro(s.title or f"Study {s.id}", s.instructions, s.consent, found.note(), rules), self._answered
        )

    def _answered(self, yes: bool | None) -> None:
        if not yes:
            self.exit(None, 0, "left before the first task: nothing was recorded; join again to start")
            return
        self.acknowledged = True
        self.run_worker(self._acknowledge, thread=True, group="study-ack", exit_on_error=False)
        self._begin()

    def _acknowledge(self) -> None:
        from sttui.store.studies import Studies

        s = self.sitting
        Studies(self.opened_store).acknowledge(s.assignment.study_id, s.assignment.participant)

    def _begin(self) -> None:
        s = self.sitting
        if s.assignment.resume:
            self.resume_play(self.opened_store.episode(s.assignment.episode_id))
        else:
            self._open_session(s.plan, from_command_line=True)

    def _show_session(self, session: Any, human: Any, seat: str) -> None:
        session.time_limit = self.sitting.plan.time_limit
        session.in_study = True
        self.clear_notifications()  # (the last task's "time is up" is not this one's)
        self._on_screen = True  # back on the study's screen after this, the task was left or ended
        super()._show_session(session, human, seat)

    def played_elsewhere(self, session: Any) -> None:
        """The participant's task is open in another terminal or browser session too, which went
        on with it first: this one stops for good (going back would take it over again)."""
        self.phase = "problem"
        super().played_elsewhere(session)
        self._failed(
            "this task is open in another window or session, which went on with it; go on there. "
            "Nothing recorded is lost"
        )

    # -- between tasks ---------------------------------------------------------------------
    def came_home(self) -> None:
        """Back on the study's screen from a task: ended (say so, and offer a break when one is
        due) or left running (it waits)."""
        if self.phase != "playing" or not self._on_screen:
            return
        self.phase, self._on_screen = "between", False
        self._check_ended()

    @work(thread=True, exclusive=True, group="study-check", exit_on_error=False)
    def _check_ended(self) -> None:
        from sttui.store.db import StoreError

        a = self.sitting.assignment
        try:
            ended = self.opened_store.episode(a.episode_id).status != "running"
        except StoreError:
            ended = False
        self.post_message(self.Between(ended))

    def _between(self, ended: bool) -> None:
        a = self.sitting.assignment
        practice = bool(a.slot and a.slot["practice"])
        if not ended:
            self._show_home("Your task stays open: enter goes back to it, where you left it.", KEYS_BETWEEN)
            return
        self.played += 1
        done = a.done + (0 if practice else 1)
        what = (
            f"Practice task done (it is not scored). Scored tasks done: {done} of {a.total}."
            if practice
            else f"Task done: {done} of {a.total} scored."
        )
        s = self.sitting.study
        rest = ""
        if not practice and done >= a.total:  # the last one: nothing is next, so enter offers nothing
            self.phase = "done"
            self._show_home(
                f"{what}\n\nThat was your last task of study {escape(s.id)}. Thank you!",
                "w: withdraw from the study  ·  ctrl+q: leave",
            )
            return
        if s.breaks is not None and not practice and done and done < a.total and done % s.breaks.every == 0:
            rest = f"\n\nTime for a break of about {s.breaks.minutes:g} minutes; your next task waits for you."
        self._show_home(what + rest, KEYS_BETWEEN)

    def _show_home(self, status: str, keys: str) -> None:
        home = next((s for s in self.screen_stack if isinstance(s, StudyHome)), None)
        if home is not None and home.is_mounted:
            home.show(status, keys)
            home.refresh_bindings()  # the footer offers what this phase allows

    def offers(self, action: str) -> bool:
        """Whether the study's screen offers ``action`` now: no next task once every task is
        done or they withdrew (after a problem, enter tries again); withdrawing until they
        have (a participant who finished may still take their data out of the report)."""
        if action == "next":
            return self.phase not in ("done", "withdrawn")
        return self.phase != "withdrawn"

    # -- withdrawing -------------------------------------------------------------------------
    def ask_withdraw(self) -> None:
        if self.phase in ("withdrawn", "joining", "joining_now") or self.store is None:
            return
        participant = (
            self.sitting.assignment.participant
            if self.sitting is not None
            else getattr(self.finished, "participant", None) or self.join_name  # (all done when they joined)
        )
        if participant is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self._withdraw(participant)

        self.push_screen(
            Confirm(
                f"Withdraw from study {self.study_id}? What you have played is kept, marked withdrawn, and left out "
                "of the results; you get no more tasks.",
                "Withdraw",
                "Stay",
            ),
            answer,
        )

    @work(thread=True, exclusive=True, group="study", exit_on_error=False)
    def _withdraw(self, participant: str) -> None:
        from sttui.store.studies import Studies, StudyProblem

        assert self.study_id is not None  # a study app always names its study
        try:
            Studies(self.opened_store).withdraw(self.study_id, participant)
        except StudyProblem as exc:
            self.post_message(self.CannotGoOn(str(exc)))
            return
        self.post_message(self.Withdrawn())

    def _withdrawn(self) -> None:
        self.phase = "withdrawn"
        self._show_home("You have withdrawn from the study. Thank you for your time.", "ctrl+q: leave")
