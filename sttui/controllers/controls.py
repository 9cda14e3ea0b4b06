"""Adversarial controls: agents that must fail every task, used by ``sttui check``.

A task that one of these passes grades something other than solving it: an idle agent
passing means the goal already holds without the agent; a scripted final message passing
an impossible task means the judge rewards words rather than recognition.

- ``control:end-at-once`` ends the episode on its first turn.
- ``control:polite`` sends one polite, empty acknowledgement, then ends.
- ``control:do-nothing`` holds the seat without acting: every turn it sends a holding
  message that says nothing ("…"), until the step limit. No tool call, so no clock time
  passes and no call-activated trigger fires.
- ``control:SAY`` (:class:`CallsThenSay`) plays the solution's tool calls, then ends with
  fixed message(s) instead of the solution's: a claim of success, a vague apology, the
  cause's words inside other words.
"""

from __future__ import annotations

from sttui.controllers.base import AgentView
from sttui.core.actions import Action, EndEpisode, Say, ToolCall
from sttui.core.task import Step

POLITE = "Thank you for your message. I'll take care of it."
HOLDING = "…"


class EndAtOnce:
    """Ends the episode on its first turn."""

    name = "control:end-at-once"

    async def act(self, view: AgentView) -> Action:
        return EndEpisode("control: ends at once")


class PoliteThenEnd:
    """One polite acknowledgement that commits to nothing, then the end."""

    name = "control:polite"

    def __init__(self, text: str = POLITE):
        self.text = text
        self._said = False

    async def act(self, view: AgentView) -> Action:
        if self._said:
            return EndEpisode("control: said one polite message")
        self._said = True
        return Say(self.text)


class DoNothing:
    """Holds the seat and never acts: a contentless holding message every turn, so the
    episode runs to its step limit with nothing done."""

    name = "control:do-nothing"

    async def act(self, view: AgentView) -> Action:
        return Say(HOLDING)


class CallsThenSay:
    """The solution's tool calls (its messages left out), then ``messages`` in order, then
    the end: the solution's evidence with a different last word to the user."""

    def __init__(self, name: str, steps: list[Step], messages: list[str]):
        self.name = name
        self._actions: list[Action] = [ToolCall(s.tool, dict(s.args)) for s in steps if s.tool is not None]
        self._actions += [Say(m) for m in messages]

    async def act(self, view: AgentView) -> Action:
        return self._actions.pop(0) if self._actions else EndEpisode("control: script finished")
