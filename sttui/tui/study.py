"""A participant's sitting of a study (``sttui study join``): the consent text and the
instructions, acknowledged once before the first task, then the play screen of their next
assigned task, its clock paused until they start it, under the study's time limit."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Markdown, Static

from sttui.config import Config
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.modals import Dialog


class StudyIntro(Dialog[bool]):
    """The consent text (if any) and the instructions: True when the participant agrees and has
    read them, False when they leave (nothing is recorded for the task then)."""

    DEFAULT_CSS = """
    StudyIntro .dialog { width: 90; max-height: 95%; }
    StudyIntro #study-text { height: auto; max-height: 30; }
    """
    BINDINGS = [
        Binding("ctrl+s", "answer(True)", "I agree, start", id="study.ack"),
        Binding("escape", "answer(False)", "Not now", id="study.leave"),
    ]

    def __init__(self, title: str, instructions: str, consent: str | None, task_note: str):
        super().__init__()
        self.title_text, self.instructions, self.consent, self.task_note = title, instructions, consent, task_note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="question", id="study-title")
            with VerticalScroll(id="study-text"):
                if self.consent:
                    yield Markdown("## Consent\n\n" + self.consent, id="study-consent")
                yield Markdown(self.instructions, id="study-instructions")
            yield Static(self.task_note, id="study-next")
            with Horizontal(classes="buttons"):
                label = "I agree and have read the instructions" if self.consent else "I have read the instructions"
                yield Button(f"{label} (ctrl+s)", variant="primary", id="study-ack")
                yield Button("Not now (esc)", id="study-leave")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "study-ack")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class StudyApp(SttuiApp):
    """The workbench opened on one participant's next slot of a study."""

    def __init__(self, db_url: str | None, sitting: Any, config: Config | None = None):
        super().__init__(Launch.build(db_url=db_url, human=sitting.person, config=config))
        self.sitting = sitting  # sttui.study.sitting.Sitting
        self.acknowledged = False

    def _store_ready(self, store: Any) -> None:
        super()._store_ready(store)
        s = self.sitting
        if s.assignment.acknowledged:
            self._begin()
            return
        study = s.study
        self.push_screen(
            StudyIntro(study.title or f"Study {study.id}", study.instructions, study.consent, s.note()),
            self._answered,
        )

    def _answered(self, yes: bool | None) -> None:
        if not yes:
            self.exit(None, 0, "left before the first task: nothing was recorded; join again to start")
            return
        self.acknowledged = True
        self.run_worker(self._acknowledge, thread=True, group="study", exit_on_error=False)
        self._begin()

    def _acknowledge(self) -> None:
        from sttui.store.studies import Studies

        s = self.sitting
        Studies(self.store).acknowledge(s.assignment.study_id, s.assignment.participant)

    def _begin(self) -> None:
        s = self.sitting
        if s.assignment.resume:
            self.resume_play(self.opened_store.episode(s.assignment.episode_id))
        else:
            self._open_session(s.plan, from_command_line=True)

    def _show_session(self, session: Any, human: Any, seat: str) -> None:
        session.time_limit = self.sitting.plan.time_limit
        super()._show_session(session, human, seat)
