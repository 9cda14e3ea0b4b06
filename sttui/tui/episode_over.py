"""What the end screen and the reveal share: the episode is over, ``r`` replays it and escape or
enter goes home; and those keys wait while the person is still typing.

An episode can end under a person's fingers: the user seat's model ends it while they type a
reply, the time limit runs out mid-message, a model user answers a report with "thanks, that's
all" as they start the next one. The screen that replaces theirs then has single-letter keys,
and enter goes home, so the rest of the message would replay the episode or leave its verdict
unseen. When the person was typing on the screen it replaces (unsent text, or a key into an
entry in the last moment: the enter that sent the report among them), every key is dropped
until the typing stops (``QUIET_SECONDS`` without a key); the first key after that pause
works, as does every key when nobody was typing."""

from __future__ import annotations

import time
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Input, Static, TextArea

from sttui.running.runner import EpisodeResult
from sttui.running.session import PlaySession
from sttui.tui.footer import Footer
from sttui.tui.screen import SttuiScreen
from sttui.tui.toasts import withdraw

QUIET_SECONDS = 0.6  # a pause this long ends the typing (a person types a key every 0.1-0.3 s)
HELD_NOTICE = "The episode ended while you were typing: its keys work once you pause."


class EpisodeOverScreen(SttuiScreen[None]):
    """A screen shown when an episode ends, on the seat screen it replaces."""

    def __init__(self, session: PlaySession, result: EpisodeResult, typing: bool = False):
        """``typing``: the seat screen held unsent text when the episode ended."""
        super().__init__()
        self.session, self.result = session, result
        self.typing = typing
        self._held_until = time.monotonic() + QUIET_SECONDS if typing else 0.0
        self._release: Timer | None = None
        self._told = False

    @property
    def home_words(self) -> str:
        """Where escape goes, in a sentence ("home", "back to the study")."""
        label = self.app.home_label
        return "home" if label == "Home" else f"back to the {label.lower()}"

    def study_ending(self, steps: int) -> ComposeResult:
        """What a study's participant is shown when a task ends, of either kind: that it ended,
        their steps and working time. Not the verdict, the checklist, the title or an explore
        task's hidden rule: what one task teaches would carry into their next."""
        clock = self.session.clock
        secs = int(clock.active_seconds) if clock else 0  # as the play screen's clock shows it
        human = f"{secs // 60:02d}:{secs % 60:02d}" if clock else "-"
        with VerticalScroll(id="end"):
            yield Static("[b]This task has ended.[/b]", id="end-title")
            yield Static(
                f"steps {steps}  ·  your working time {human}\nepisode {self.session.episode_id}", id="end-stats"
            )
            yield Static(f"escape goes {self.home_words}.", classes="muted")
        yield Footer()

    @property
    def holding(self) -> bool:
        """Whether keys are being dropped now (the person was typing a moment ago)."""
        return time.monotonic() < self._held_until

    def on_mount(self) -> None:
        self._clear_play_notices()
        if self.holding:  # the footer shows the keys dimmed until the pause
            self._release = self.set_timer(QUIET_SECONDS, self._released)

    def _clear_play_notices(self) -> None:
        """The play's plain notices (a trigger's "Notice") were about the play: over the verdict
        at 80x24 they hid its lines for their last seconds. Warnings and errors stay: they may
        say why it ended ("the time for this task is up", a model seat's failure)."""
        withdraw(self.app, lambda n: n.severity == "information")

    def on_key(self, event: events.Key) -> None:
        """A key while holding: dropped (not passed on to any binding) and the pause starts again."""
        if not self.holding:
            return
        event.stop()
        event.prevent_default()
        self._held_until = time.monotonic() + QUIET_SECONDS
        if self._release is not None:
            self._release.reset()
        if not self._told:
            self._told = True
            self.notify(HELD_NOTICE, timeout=4)

    def _released(self) -> None:
        if self.holding:  # a key came since the timer was set: wait for the rest of the pause
            self._release = self.set_timer(self._held_until - time.monotonic(), self._released)
            return
        self._release = None
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay" and getattr(self.app, "barred", False):
            return False  # a study's participant: the replay shows the state and the silent triggers
        if action in ("replay", "home") and self.holding:
            return None  # shown dimmed
        return super().check_action(action, parameters)

    def action_replay(self) -> None:
        from sttui.tui.replay import ReplayScreen

        self.app.switch_screen(ReplayScreen(self.session.store, self.session.episode_id))

    def action_home(self) -> None:
        self.app.pop_to_home()


def typing_on(screen: Any) -> bool:
    """Whether the person was typing on a screen when its episode ended: one of its entries
    holds text not sent, or they typed into one (or sent from it) within ``QUIET_SECONDS``. A
    message sent a moment before the end is typing too: the next one often follows at once."""
    if time.monotonic() - getattr(screen, "typed_at", 0.0) < QUIET_SECONDS:
        return True
    return any(w.value.strip() for w in screen.query(Input)) or any(w.text.strip() for w in screen.query(TextArea))
