"""Playing the user simulator: the profile (goal, style, withheld details), the agent's
messages (its actions on request), a reply entry, and "satisfied, end"."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Input, Static

from sttui.controllers.human import HumanController
from sttui.core.actions import Reply, Satisfied
from sttui.core.episode import Episode
from sttui.session import PlaySession
from sttui.store.writer import WriteFailed
from sttui.tui.handoff import SeatScreen
from sttui.tui.lifecycle import while_shown
from sttui.tui.modals import Confirm
from sttui.tui.play import status_line
from sttui.tui.widgets import fields_text, transcript_item

WAITING = "The agent starts when you do: F5 starts your clock."


class UserSimScreen(SeatScreen):
    """A human in the user seat; a baseline or a model holds the agent seat."""

    seat = "user"
    END_HINT = "ctrl+s ends it when you are satisfied. "
    BINDINGS = [
        Binding("f5", "toggle_clock", "Clock", id="user.clock"),  # short: at 80 columns F10 is in sight
        Binding("f4", "toggle_actions", "Actions", tooltip="Show the agent's actions too", id="user.actions"),
        Binding("ctrl+s", "satisfied", "Satisfied, end", id="user.satisfied"),
        *SeatScreen.HANDOFF_BINDINGS,
        Binding("escape", "leave", "Leave", id="user.leave"),
    ]

    class Changed(Message):
        pass

    def __init__(self, session: PlaySession, human: HumanController):
        super().__init__()
        self.session, self.human = session, human
        self.episode: Episode = session.episode  # type: ignore[assignment]
        self.show_actions = False

    def compose(self) -> ComposeResult:
        yield Static(status_line(self.session), id="status-bar")
        with Horizontal(id="play-main"):
            with VerticalScroll(id="profile"):
                yield Static(self.brief(), id="profile-fields")
            yield VerticalScroll(id="conversation")
            yield from self.compose_debug()
        yield Static("", id="feedback")
        yield Input(placeholder="Reply to the agent (enter sends) · ctrl+s when you are satisfied", id="reply")
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
        self.query_one("#debug-pane").display = False
        self.session.listeners.append(lambda _e: self.post_message(self.Changed()))
        self.set_interval(1, self._tick)
        self.query_one("#reply").focus()
        self.play()
        self.redraw()

    @work(exclusive=True, group="episode")
    async def play(self) -> None:
        try:
            result = await self.session.run()
        except WriteFailed as exc:
            self.app.recording_failed(self.session, str(exc))
            return
        from sttui.tui.endscreen import EndScreen

        self.app.switch_screen(EndScreen(self.session, result))

    @while_shown
    def _tick(self) -> None:
        self.query_one("#status-bar", Static).update(status_line(self.session))
        feedback = self.query_one("#feedback", Static)
        if self.session.waits_for_person():
            feedback.update(WAITING)
        elif str(feedback.render()) == WAITING:
            feedback.update("")

    def on_user_sim_screen_changed(self, _message: Changed) -> None:
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

    def action_satisfied(self) -> None:
        problem = self._ready()
        if problem:
            self.query_one("#feedback", Static).update(problem)
            return

        def end(yes: bool | None) -> None:
            if yes:
                text = self.query_one("#reply", Input).value.strip()
                self.human.submit(Satisfied(text))

        self.app.push_screen(
            Confirm("Satisfied? This ends the episode (anything in the reply box is sent).", "End it", "Not yet"), end
        )
