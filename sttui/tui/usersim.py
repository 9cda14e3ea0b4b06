"""Playing the user simulator: the profile (goal, style, withheld details), the agent's
messages (its actions on request), a reply entry, and the person's verdict, which ends the
episode: satisfied, not satisfied (with the reason), or gave up. The verdict is recorded beside
the checklist (``core.verdicts``); the checklist still decides pass or fail."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static

from sttui.controllers.human import HumanController
from sttui.core.actions import GaveUp, NotSatisfied, Reply, Satisfied
from sttui.core.episode import Episode
from sttui.running.session import PlaySession
from sttui.tui.footer import Footer
from sttui.tui.handoff import SeatScreen
from sttui.tui.lifecycle import while_shown
from sttui.tui.modals import Confirm, EditValue
from sttui.tui.play import status_line
from sttui.tui.widgets import StatusLine, Transcript, fields_text, transcript_item

WAITING = "The agent starts when you do: F5 starts your clock."


class UserSimScreen(SeatScreen):
    """A human in the user seat; a baseline or a model holds the agent seat."""

    seat = "user"
    ENTRY = "#reply"
    END_HINT = "ctrl+s ends it satisfied, ctrl+n not satisfied, ctrl+g gives up. "
    BINDINGS = [
        Binding("f5", "toggle_clock", "Clock", id="usersim.clock"),
        # off the footer (F1 and the palette list it) so that at 80 columns F10 stays in sight
        Binding(
            "f4", "toggle_actions", "Actions", tooltip="Show the agent's actions too", show=False, id="usersim.actions"
        ),
        Binding(
            "ctrl+s", "satisfied", "Satisfied", tooltip="End the episode: you are satisfied", id="usersim.satisfied"
        ),
        Binding(
            "ctrl+n",
            "not_satisfied",
            "Not satisfied",
            tooltip="End the episode: you are not satisfied (say why)",
            id="usersim.not_satisfied",
        ),
        Binding("ctrl+g", "gave_up", "Give up", tooltip="End the episode: you give up", id="usersim.gave_up"),
        *SeatScreen.HANDOFF_BINDINGS,
        Binding("escape", "leave", "Leave", id="usersim.leave"),
    ]

    def __init__(self, session: PlaySession, human: HumanController):
        super().__init__()
        self.session, self.human = session, human
        self.episode: Episode = session.episode  # type: ignore[assignment]  # a user-seat screen plays stt
        self.show_actions = False

    def compose(self) -> ComposeResult:
        yield StatusLine(status_line(self.session), id="status-bar")
        with Horizontal(id="play-main"):
            with VerticalScroll(id="profile"):
                yield Static(self.brief(), id="profile-fields")
            yield Transcript(id="conversation")
            yield from self.compose_debug()
        yield Static("", id="feedback", markup=False)  # (a problem quotes what was typed)
        yield Input(placeholder="Reply to the agent (enter sends) · f4 shows its actions too", id="reply")
        yield Footer()

    def brief(self) -> Text:
        """The user's brief as the user model gets it (goal, profile, withheld details), as
        labelled fields: every value whole, wrapped to the pane."""
        user = self.episode.task.user
        parts = [Text("Goal", "bold"), Text("\n"), Text(user.goal.strip())]
        if user.profile:
            parts += [Text("\n\nProfile\n", "bold"), fields_text(user.profile)]
        if user.withheld:
            parts += [
                Text.assemble("\n\n", ("Withheld", "bold"), " — ", ("reveal only if asked directly", "italic"), "\n"),
                fields_text(user.withheld_values),
            ]
        return Text("").join(parts)

    def on_mount(self) -> None:
        self.start_episode("#reply")
        self.redraw()

    def ticked(self) -> None:
        feedback = self.query_one("#feedback", Static)
        if self.session.waits_for_person():
            feedback.update(WAITING)
        elif str(feedback.render()) == WAITING:
            feedback.update("")

    def on_seat_screen_changed(self, _message: SeatScreen.Changed) -> None:
        self.redraw()

    @while_shown
    def redraw(self) -> None:
        conv = self.query_one("#conversation", VerticalScroll)
        conv.remove_children()
        items = [
            i
            for i in self.episode.view
            if i["type"] == "message" or (self.show_actions and i["type"] in ("tool_call", "tool_result"))
        ]
        conv.mount_all([transcript_item(i, me="user") for i in items])
        conv.scroll_end(animate=False)
        self._tick()
        self.refresh_debug()
        self.show_notices()

    def _ready(self) -> str | None:
        if self.episode.ended is not None:
            return "the episode has ended"
        if self.session.seats["user"] is not self.human:
            return f"the user seat is held by {self.session.user.name if self.session.user else '-'}: F11 takes it back"
        if self.session.clock is not None and not self.session.clock.running:
            return "the clock is paused: press F5 to start it"
        if self.episode.turn != "user" or not self.human.waiting:
            return "wait: the agent is working"
        return None

    @on(Input.Submitted, "#reply")
    def reply(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        problem = self._ready() or (None if text else "write a reply first")
        self.query_one("#feedback", Static).update(problem or "")
        if problem:
            return
        event.input.value = ""
        self.human.submit(Reply(text))

    def action_toggle_actions(self) -> None:
        self.show_actions = not self.show_actions
        self.redraw()

    def _can_end(self) -> bool:
        problem = self._ready()
        if problem:
            self.query_one("#feedback", Static).update(problem)
        return problem is None

    def _reply_text(self) -> str:
        return self.query_one("#reply", Input).value.strip()

    def action_satisfied(self) -> None:
        if not self._can_end():
            return

        def end(yes: bool | None) -> None:
            if yes and self._ready() is None:
                self.human.submit(Satisfied(self._reply_text()))

        self.app.push_screen(
            Confirm("Satisfied? This ends the episode (anything in the reply box is sent).", "End it", "Not yet"), end
        )

    def action_not_satisfied(self) -> None:
        """Ends the episode unsatisfied: the reason is required, and recorded as the verdict's."""
        if not self._can_end():
            return

        def end(reason: str | None) -> None:
            if reason is not None and self._ready() is None:
                self.human.submit(NotSatisfied(reason.strip(), self._reply_text()))

        self.app.push_screen(
            EditValue(
                "Not satisfied: why? This ends the episode.",
                "",
                "Say what is wrong (the agent's claim, what is still open); enter ends, escape goes back. "
                "Anything in the reply box is sent first.",
                check=lambda text: None if text.strip() else "say why you are not satisfied",
            ),
            end,
        )

    def action_gave_up(self) -> None:
        """Ends the episode: the person gives up (a reason is optional)."""
        if not self._can_end():
            return

        def end(reason: str | None) -> None:
            if reason is not None and self._ready() is None:
                self.human.submit(GaveUp(reason.strip(), self._reply_text()))

        self.app.push_screen(
            EditValue(
                "Give up? This ends the episode.",
                "",
                "Why, if you like (optional); enter ends, escape goes back. Anything in the reply box is sent first.",
            ),
            end,
        )
