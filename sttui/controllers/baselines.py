"""Baseline controllers: the task's solution (oracle), its naive plan, and a scripted user."""

from __future__ import annotations

import random
import re
from typing import Any

from sttui.controllers.base import AgentView, UserView
from sttui.core import usersim as us
from sttui.core import verdicts
from sttui.core.actions import Action, EndEpisode, Reply, Satisfied, Say, ToolCall
from sttui.core.task import Step


class PlanAgent:
    """Plays a fixed list of steps in order, then ends the episode; but a question the user
    asks once the plan is done is answered (with what it already reported) before it ends, so
    a person in the user seat never has their question left hanging by the ending."""

    def __init__(self, name: str, steps: list[Step]):
        self.name = name
        self._steps = list(steps)
        self._next = 0

    def resume(self, taken: list[Action]) -> None:
        """Skip the plan steps an episode being resumed has already taken."""
        self._next = sum(isinstance(a, ToolCall | Say) for a in taken)

    def cannot_continue(self, taken: list[Action]) -> str | None:
        """Why this plan cannot go on after ``taken`` (None when it can): a fixed plan resumes
        by position, so the steps taken must be its own first steps; after anyone else's it
        would play the rest of its plan blind, and fail for no fault of the episode."""
        mine = [a for a in taken if isinstance(a, ToolCall | Say)]
        for i, action in enumerate(mine):
            if i >= len(self._steps):
                return f"its plan has {len(self._steps)} steps and the episode has taken {len(mine)}"
            step = self._steps[i]
            if isinstance(action, ToolCall):
                if step.tool != action.tool or dict(step.args) != action.args:
                    planned = f"{step.tool}(…)" if step.tool else "a message"
                    return f"step {i + 1} was {action.tool}(…) where its plan has {planned}"
            elif step.tool is not None:
                return f"step {i + 1} was a message where its plan has {step.tool}(…)"
        return None

    async def act(self, view: AgentView) -> Action:
        if self._next >= len(self._steps):
            question = _open_question(view)
            if question is not None:
                return Say(_answer(view))
            return EndEpisode("plan finished")
        step = self._steps[self._next]
        self._next += 1
        if step.tool is not None:
            return ToolCall(step.tool, dict(step.args))
        return Say(step.say or "")


def _open_question(view: AgentView) -> str | None:
    """The user's last message, when it is the newest thing in the view and asks a question
    (a sentence ending in "?"; the scripted user asks one only for a clear answer to a hedged
    report, which no bundled plan gives, so their runs are unchanged)."""
    items = getattr(view, "items", None) or []
    last = items[-1] if items else None
    if not last or last.get("type") != "message" or last.get("from") != "user" or len(items) < 2:
        return None  # (the task's opening query is answered by the plan itself)
    return last["text"] if any(s.endswith("?") for s in us.sentences(last["text"])) else None


# (no infeasibility phrase: "… and cannot add to it" was read as saying the goal cannot be met,
# so a plan that hedged on a task that cannot be done passed once the user asked for a clear answer)
ANSWER = "I have done everything I can for this request and have nothing to add."


def _answer(view: AgentView) -> str:
    reports = [
        i["text"]
        for i in view.items
        if i.get("type") == "message" and i.get("from") == "agent" and not i["text"].startswith(ANSWER)
    ]
    return f"{ANSWER} What I did: {reports[-1]}" if reports else ANSWER


class ScriptedUser:
    """A deterministic user simulator (rules in ``core.usersim``; task format §3). To the
    agent's last message:

    1. reveals the withheld details a question of it asks for;
    2. says what its app shows when the state contradicts the message ("My app shows TRK-9,
       not TRK-7.");
    3. to a hedged report ("should be fine", "hopefully", …), asks once for a clear answer
       (a second hedge is taken as the report it is);
    4. on a solvable task, once the episode would pass (``view.accepted``: the checklist),
       ends it satisfied unless the agent announces more work;
    5. to a question: approves a proposed plan, or says it has no such detail;
    6. to a statement: "go ahead" to announced work; on an impossible task, once the rule judge
       would pass the episode, accepts and ends; on a solvable one asks it to keep trying
       after a "cannot" (a set phrase, or the goal denied in its own words), and asks once for
       a clear answer when the message says it cannot be done and then that it was; otherwise
       thanks it for the update.

    Satisfied only where the record would pass: the one scoring path decides, not a word list
    of its own. An episode someone else ends gets its verdict from ``closing_verdict``.
    """

    name = "baseline:scripted-user"
    reads_record = True  # its view carries what the record would say (``controllers.base.user_view``)

    async def act(self, view: UserView) -> Action:
        # the agent's last message, found from the end (a long episode's messages are not scanned)
        last = next((m["text"] for m in reversed(view.messages) if m["from"] == "agent"), "")
        asked = us.asked_for(last, view.asked_by or {k: [us.key_cue(k)] for k in view.withheld})
        if asked:
            return Reply("; ".join(f"{key.replace('_', ' ')}: {view.withheld[key]}" for key in asked))
        if view.contradicted:
            return Reply(" ".join(view.contradicted))
        more_work = us.announces_more_work(last)
        asking = bool(us.asking_sentences(last))
        courtesy = asking and us.only_courtesy(last)  # ("… should be fine. Anything else?": a hedge)
        if not (more_work or (asking and not courtesy)) and us.hedge(last) and not _asked_for_clarity(view):
            return Reply(CLEAR_ANSWER)
        if view.solvable and view.accepted:
            return Reply(AFTER_DONE_MORE_WORK) if more_work else Satisfied(DONE)
        if asking:
            return Reply(APPROVE if us.asks_approval(last) else NO_SUCH_DETAIL)
        if more_work:
            return Reply(GO_AHEAD)
        if not view.solvable and view.accepted:
            return Satisfied(ACCEPT_INFEASIBLE)
        if view.both_ways and not _asked_for_clarity(view):  # (once, as a hedge)
            return Reply(CLEAR_ANSWER)  # ("…can't be used, so I sent GEN-44 instead: Maelor has power by 12:00")
        if _says_cannot(view, last) and not view.only_told:  # (the work done: a "can't" is of a cause)
            return Reply(KEEP_TRYING)
        if not view.solvable and _said_cannot_before(view):  # ("… managed it after all", "booked it anyway")
            return Reply(WHICH_IS_IT)
        return Reply(NOTED)

    def closing_verdict(self, view: UserView) -> dict[str, Any]:
        """Its verdict on an episode the agent (or the step limit) ended: satisfied when the
        episode passes, else not satisfied, saying what it sees or what is still open."""
        if view.accepted and not view.contradicted:
            return verdicts.verdict(verdicts.SATISFIED, None, self.name)
        seen = [m["text"] for m in view.messages if m["from"] == "user" and m["text"].startswith(SEES)]
        why = " ".join(view.contradicted) or (seen[-1] if seen else f"{UNMET}: {', '.join(view.unmet)}")
        return verdicts.verdict(verdicts.NOT_SATISFIED, why, self.name)


def _said_cannot_before(view: UserView) -> bool:
    """Whether an agent message before the last said it cannot be done: on a task that cannot
    be done, a later message that does not say so again contradicts it."""
    agent = [m["text"] for m in view.messages if m["from"] == "agent"]
    return any(_says_cannot(view, text) for text in agent[:-1])


def _says_cannot(view: UserView, text: str) -> bool:
    """A set phrase ("can't be done", ``core.usersim.says_cannot``), or a statement as the rule
    judge reads it, the goal denied in its own words too ("F-90 won't be back by 14:00":
    ``view.denied``)."""
    return us.says_cannot(text) or text in view.denied


def _asked_for_clarity(view: UserView) -> bool:
    return any(m["from"] == "user" and m["text"] == CLEAR_ANSWER for m in view.messages)


GO_AHEAD = "Understood. Please go ahead."
NOTED = "Thanks for the update."
APPROVE = "Yes, please go ahead."
NO_SUCH_DETAIL = "I don't have that detail; please use your best judgement."
KEEP_TRYING = "I really need this done. Please do what you can."
WHICH_IS_IT = "Earlier you told me it can't be done. Which is it: is it done or not?"
AFTER_DONE_MORE_WORK = "Thanks. Let me know if anything is still open."
DONE = "Thanks, that's everything I needed."
ACCEPT_INFEASIBLE = "I understand. Thank you for explaining."
CLEAR_ANSWER = "I need a clear answer, please: is it done or not?"
UNMET = "the episode ended with this still open"
SEES = "My app "  # how its answer to a contradicted report begins (``controllers.base.contradicted``)


class RandomAgent:
    """Random valid calls: a random tool with arguments drawn to fit its schema (identifiers
    come from the task's initial state), for a fixed number of steps, then the end."""

    def __init__(
        self, name: str, tools: dict[str, Any], initial_state: dict[str, Any], seed: int | str, steps: int = 12
    ):
        self.name = name
        self.tools = tools
        self.rng = random.Random(f"random-agent:{seed}")
        self.words = sorted(_identifiers(initial_state)) or ["x"]
        self.left = steps

    def _value(self, schema: dict[str, Any]) -> Any:
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        kind = schema.get("type")
        kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
        if kind == "integer":
            return self.rng.randint(1, 100)
        if kind == "number":
            return round(self.rng.uniform(0, 100), 1)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "array":
            return [self._value(schema.get("items", {"type": "string"})) for _ in range(self.rng.randint(1, 2))]
        if kind == "object":
            return {}
        return self.rng.choice(self.words)

    async def act(self, view: AgentView) -> Action:
        if self.left <= 0:
            return EndEpisode("random steps used up")
        self.left -= 1
        name = self.rng.choice(sorted(self.tools))
        params = self.tools[name].parameters
        required = set(params.get("required", []))
        args = {
            p: self._value(s)
            for p, s in params.get("properties", {}).items()
            if p in required or self.rng.random() < 0.3
        }
        return ToolCall(name, args)


def _identifiers(value: Any, out: set[str] | None = None) -> set[str]:
    out = set() if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and re.fullmatch(r"[A-Z0-9][A-Z0-9_-]{1,30}", k):
                out.add(k)
            _identifiers(v, out)
    elif isinstance(value, list):
        for v in value:
            _identifiers(v, out)
    elif isinstance(value, str) and re.fullmatch(r"[A-Z0-9][A-Z0-9_-]{1,30}", value):
        out.add(value)
    return out


class ReplayAgent:
    """A recorded episode's agent actions, played again in order; then the end."""

    def __init__(self, name: str, actions: list[Action]):
        self.name = name
        self._actions = list(actions)

    def resume(self, taken: list[Action]) -> None:
        self._actions = self._actions[sum(isinstance(a, ToolCall | Say) for a in taken) :]

    async def act(self, view: Any) -> Action:
        return self._actions.pop(0) if self._actions else EndEpisode("replayed actions used up")
