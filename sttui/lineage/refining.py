"""Refining a recorded trajectory into a verified demonstration (issue 18; the paper's §4.2).

The agent's actions (tool calls and messages) are taken from the record, edited (drop, move,
set an argument, insert, reword), and replayed on a fresh environment of the recorded task
version, opened as the record's was (``recording.open_as_recorded``: seed, review rules,
settings), with the recorded user: the scripted user is deterministic, so it answers the
edited actions afresh; any other user's recorded replies are played back in order. Results,
trigger firings, the checklist and the milestone review are recomputed, never copied.

Step numbers are 1-based, as the CLI and the editor show them.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from sttui.controllers.baselines import ScriptedUser
from sttui.core import events as ev
from sttui.core.actions import Action, EndEpisode, GaveUp, NotSatisfied, Reply, Satisfied, Say, ToolCall
from sttui.core.callsyntax import MAX_NESTING, CallSyntaxError, format_call, nesting, parse_call
from sttui.core.checklist import evaluate_checklist
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.loader import LoadedTask
from sttui.core.replaying import actions_of
from sttui.running.recording import Recorder, finish, open_as_recorded
from sttui.running.runner import EpisodeResult, Seats, drive
from sttui.store.store import EpisodeRecord, Store

Step = ToolCall | Say
SCRIPTED_USERS = ("baseline:scripted-user", "baseline:scripted")


class NotADemonstration(ValueError):
    """Marking a refinement as a demonstration when its verification fails."""


class EditError(ValueError):
    """An edit that cannot apply: a bad spec, a step out of range, an argument of a message."""


@dataclass(frozen=True)
class Edit:
    """One edit. ``op``: drop, move (``at`` to ``to``), set (``key`` of ``at``'s args to
    ``value``), insert (``step`` at ``at``), replace (``at`` by ``step``: the editor's edited
    call), say (``at``'s text to ``text``)."""

    op: str
    at: int
    to: int | None = None
    key: str | None = None
    value: Any = None
    step: Step | None = None
    text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "at": self.at}
        if self.to is not None:
            out["to"] = self.to
        if self.key is not None:
            out["key"] = self.key
            out["value"] = self.value
        if self.step is not None:
            out["step"] = step_text(self.step)
        if self.text is not None:
            out["text"] = self.text
        return out

    def describe(self) -> str:
        if self.op == "drop":
            return f"drop {self.at}"
        if self.op == "move":
            return f"move {self.at}→{self.to}"
        if self.op == "set":
            return f"set {self.at}.args.{self.key}={json.dumps(self.value)}"
        if self.op in ("insert", "replace"):
            return f"{self.op} {self.at}: {step_text(self.step)}"  # type: ignore[arg-type]  # insert and replace carry a step
        return f"say {self.at}: {self.text}"


def step_text(step: Step) -> str:
    """A step as typed in the call entry: ``tool(k=v)`` or ``> message``."""
    return format_call(step.tool, step.args) if isinstance(step, ToolCall) else f"> {step.text}"


def parse_step(text: str) -> Step:
    """A call (``tool(k=v)``) or a message (``> text``), as the call entry reads them."""
    text = text.strip()
    if text.startswith(">"):
        message = text[1:].strip()
        if not message:
            raise EditError("write the message after '>'")
        return Say(message)
    try:
        name, args = parse_call(text)
    except CallSyntaxError as exc:
        raise EditError(f"not a call: {exc}") from None
    return ToolCall(name, args)


def agent_steps(kind: str, events: list[Event]) -> list[Step]:
    """The agent's tool calls and messages, in order (its ending is not a step: a refined run
    ends when its steps are used up)."""
    if kind != "stt":
        raise EditError("only stt episodes can be refined (an explore episode has no tool calls)")
    return [a for _, a in actions_of(kind, events) if isinstance(a, ToolCall | Say)]


def _index(steps: list[Step], at: int, what: str, extra: int = 0) -> int:
    if not 1 <= at <= len(steps) + extra:
        raise EditError(f"{what}: step {at} is out of range (1..{len(steps) + extra})")
    return at - 1


def apply_edits(steps: list[Step], edits: list[Edit]) -> list[Step]:
    """The steps after ``edits``, applied in order (each numbers the steps as they are then)."""
    out = list(steps)
    for e in edits:
        what = e.describe()
        if e.op == "drop":
            del out[_index(out, e.at, what)]
        elif e.op == "move":
            i = _index(out, e.at, what)
            j = _index(out, e.to or 0, what)
            out.insert(j, out.pop(i))
        elif e.op == "set":
            i = _index(out, e.at, what)
            step = out[i]
            if not isinstance(step, ToolCall):
                raise EditError(f"{what}: step {e.at} is a message, not a call")
            out[i] = ToolCall(step.tool, {**step.args, str(e.key): e.value})
        elif e.op == "insert":
            assert e.step is not None
            out.insert(_index(out, e.at, what, extra=1), e.step)
        elif e.op == "replace":
            assert e.step is not None
            out[_index(out, e.at, what)] = e.step
        elif e.op == "say":
            i = _index(out, e.at, what)
            if not isinstance(out[i], Say):
                raise EditError(f"{what}: step {e.at} is a call, not a message")
            out[i] = Say(e.text or "")
        else:
            raise EditError(f"unknown edit '{e.op}'")
    return out


# -- edit specs (the CLI's) ------------------------------------------------------------


def _number(text: str, spec: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise EditError(f"'{spec}': '{text}' is not a step number") from None


def _value(text: str) -> Any:
    """JSON where it reads as JSON (numbers, true, lists), else the text itself."""
    deep = nesting(text)
    if deep > MAX_NESTING:
        raise EditError(f"--set: the value nests {deep} lists or objects deep; at most {MAX_NESTING}")
    try:
        return json.loads(text)
    except ValueError:
        return text
    except RecursionError:
        raise EditError(f"--set: the value nests too deep; at most {MAX_NESTING} lists or objects") from None


def parse_edits(
    drop: str | None = None,
    move: tuple[str, ...] = (),
    set_: tuple[str, ...] = (),
    insert: tuple[str, ...] = (),
    say: tuple[str, ...] = (),
) -> list[Edit]:
    """The CLI's edits, in a fixed order: set and say, then drop, insert, move."""
    edits: list[Edit] = []
    for spec in set_:
        target, eq, value = spec.partition("=")
        parts = target.split(".", 2)
        if not eq or len(parts) != 3 or parts[1] != "args" or not parts[2]:
            raise EditError(f"--set '{spec}': expected STEP.args.KEY=VALUE")
        edits.append(Edit("set", _number(parts[0], spec), key=parts[2], value=_value(value)))
    for spec in say:
        at, colon, text = spec.partition(":")
        if not colon or not text.strip():
            raise EditError(f"--say '{spec}': expected STEP:TEXT")
        edits.append(Edit("say", _number(at, spec), text=text.strip()))
    if drop is not None and not any(n.strip() for n in drop.split(",")):
        raise EditError(f"--drop '{drop}': expected step numbers, like --drop 3,5")
    if drop:
        numbers = sorted({_number(n, drop) for n in drop.split(",") if n.strip()}, reverse=True)
        edits.extend(Edit("drop", n) for n in numbers)  # from the end, so each keeps its number
    for spec in insert:
        at, colon, text = spec.partition(":")
        if not colon:
            raise EditError(f"--insert '{spec}': expected STEP:'tool(k=v)' or STEP:'> message'")
        edits.append(Edit("insert", _number(at, spec), step=parse_step(text)))
    for spec in move:
        a, colon, b = spec.partition(":")
        if not colon:
            raise EditError(f"--move '{spec}': expected FROM:TO")
        edits.append(Edit("move", _number(a, spec), to=_number(b, spec)))
    return edits


# -- verification ----------------------------------------------------------------------


@dataclass
class StepOutcome:
    """What one refined step did on replay: refused (with why), failed, or not reached."""

    number: int
    text: str
    refused: str | None = None
    error: str | None = None
    reached: bool = False
    state_hash: str | None = None
    settled: list[str] = field(default_factory=list)  # milestones this step settled
    fired: list[str] = field(default_factory=list)  # triggers that fired after it
    # the checklist items that hold on the state after this step (None: not reached, or a task
    # whose checklist is judged from the record, not read off the state)
    holding: list[str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.number,
            "action": self.text,
            "reached": self.reached,
            "refused": self.refused,
            "error": self.error,
            "state_hash": self.state_hash,
            "settled": self.settled,
            "fired": self.fired,
            "checklist_holding": self.holding,
        }


@dataclass
class Verification:
    """The replayed refinement: each step's outcome, and the run's checklist and review."""

    steps: list[StepOutcome]
    result: EpisodeResult = field(repr=False)
    # the result as plain data, made once where the replay ran (the editor's worker): on a
    # 10,000-step episode the review's summary alone is a third of a second
    outcome: dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.outcome = self.result.as_dict()

    @property
    def passed(self) -> bool:
        return bool(self.result.passed)

    @property
    def refusals(self) -> list[StepOutcome]:
        return [s for s in self.steps if s.refused]

    @property
    def checklist(self) -> list[dict[str, Any]]:
        return list(self.outcome.get("checklist", []))

    @property
    def stage_score(self) -> float | None:
        review = self.outcome.get("review")
        return review["score"] if review else None

    def summary(self) -> dict[str, Any]:
        """What a saved refinement's lineage keeps of it."""
        full = self.as_dict()
        return {
            "passed": self.passed,
            "checklist": full["checklist"],
            "stage_score": self.stage_score,
            "refused": [{"step": s.number, "why": s.refused} for s in self.refusals],
        }

    def as_dict(self) -> dict[str, Any]:
        out = self.outcome
        return {
            "passed": self.passed,
            "checklist": out.get("checklist", []),
            "stage_score": self.stage_score,
            "milestones": {k: (out.get("review") or {}).get(k) for k in ("settled", "milestones", "completion")},
            "end_reason": self.result.end_reason,
            "triggers_fired": self.result.triggers_fired,
            "steps": [s.as_dict() for s in self.steps],
        }


class _Steps:
    """The agent seat on replay: the refined steps in order, then the end. ``at`` is the index
    of the step last handed out (what the events that follow belong to)."""

    def __init__(self, name: str, steps: list[Step], ending: str = "refined steps used up"):
        self.name = name
        self.steps = steps
        self.at = -1
        self.ending = ending

    async def act(self, view: Any) -> Action:
        if self.at + 1 >= len(self.steps):
            self.at = len(self.steps)
            return EndEpisode(self.ending)
        self.at += 1
        return self.steps[self.at]


class _RecordedUser:
    """A user that is not the scripted one (a person, a model) cannot answer afresh: its
    recorded replies are played back in order, its ending (satisfied, not satisfied, gave up)
    with them; once they run out, it is satisfied."""

    def __init__(self, name: str, replies: list[Action]):
        self.name = name
        self._replies = list(replies)

    async def act(self, view: Any) -> Action:
        return self._replies.pop(0) if self._replies else Satisfied("")


def ending(kind: str, events: list[Event]) -> str:
    """Why the agent ends a refined run once its steps are used up: the reason it gave in the
    record, if it ended the episode itself."""
    ends = [a for _, a in actions_of(kind, events) if isinstance(a, EndEpisode)]
    return ends[-1].reason if ends and ends[-1].reason else "refined steps used up"


def user_for(record: EpisodeRecord, events: list[Event]) -> Any:
    """The recorded user's behaviour, as ``resume`` would seat it again."""
    if record.user in (None, "none"):
        return None
    if record.user in SCRIPTED_USERS:
        return ScriptedUser()
    replies: list[Action] = [
        a for _, a in actions_of(record.kind, events) if isinstance(a, Reply | Satisfied | NotSatisfied | GaveUp)
    ]
    return _RecordedUser(record.user, replies)


def verify(loaded: LoadedTask, record: EpisodeRecord, events: list[Event], steps: list[Step]) -> Verification:
    """Replay ``steps`` on a fresh episode of the recorded task version, and score it."""
    episode = open_as_recorded(loaded, record, events)
    agent = _Steps(record.agent, steps, ending(record.kind, events))
    outcomes = [StepOutcome(i + 1, step_text(s)) for i, s in enumerate(steps)]

    def watch(e: Event) -> None:
        if not 0 <= agent.at < len(outcomes):
            return
        o = outcomes[agent.at]
        o.reached = True
        p = e.payload
        if e.type == ev.TOOL_RESULT:
            result = p.get("result") or {}
            if p.get("refused"):
                o.refused = str(result.get("error", "refused"))
            elif not result.get("success", True):
                o.error = str(result.get("error", "failed"))
        elif e.type == ev.TRIGGER_FIRED:
            o.fired.append(str(p.get("trigger") or p.get("id")))
        elif e.type == ev.MILESTONE_SETTLED:
            o.settled.append(str(p.get("milestone") or p.get("id")))
        if "state_hash" in p:
            o.state_hash = p["state_hash"]
        if e.type in (ev.TOOL_RESULT, ev.TRIGGER_FIRED) and by_state and isinstance(episode, Episode):
            o.holding = [item.id for item in evaluate_checklist(episode) if item.passed]

    # the checklist step by step, where it is read off the state (an impossible task's is judged)
    by_state = bool(getattr(episode.task, "checklist", None)) and getattr(episode.task, "judge", None) is None
    episode.listeners.append(watch)
    episode.start()
    result = asyncio.run(drive(episode, Seats(agent, user_for(record, events))))
    return Verification(outcomes, result)


@dataclass
class Refinement:
    """An episode being refined: its original steps, the edits so far, and undo/redo."""

    loaded: LoadedTask
    record: EpisodeRecord
    events: list[Event]
    original: list[Step]
    edits: list[Edit] = field(default_factory=list)
    undone: list[Edit] = field(default_factory=list)

    @classmethod
    def of(cls, loaded: LoadedTask, record: EpisodeRecord, events: list[Event]) -> Refinement:
        return cls(loaded, record, events, agent_steps(record.kind, events))

    @property
    def steps(self) -> list[Step]:
        return apply_edits(self.original, self.edits)

    @property
    def tools(self) -> dict[str, Any]:
        """The task version's tools (name → ToolSpec), for the editor's schema checks."""
        return dict(self.loaded.env_cls.tool_specs) if self.loaded.env_cls is not None else {}

    def edit(self, e: Edit) -> list[Step]:
        """Apply one more edit (``EditError`` leaves the refinement as it was)."""
        steps = apply_edits(self.steps, [e])
        self.edits.append(e)
        self.undone.clear()
        return steps

    def undo(self) -> bool:
        if not self.edits:
            return False
        self.undone.append(self.edits.pop())
        return True

    def redo(self) -> bool:
        if not self.undone:
            return False
        self.edits.append(self.undone.pop())
        return True

    def verify(self) -> Verification:
        return verify(self.loaded, self.record, self.events, self.steps)


def lineage(refinement: Refinement, editor: str, verification: Verification) -> dict[str, Any]:
    return {
        "refined_from": refinement.record.id,
        "edits": [e.as_dict() for e in refinement.edits],
        "editor": editor,
        "verification": verification.summary(),
    }


def save(store: Store, refinement: Refinement, editor: str, *, demonstration: bool = False) -> tuple[str, Verification]:
    """Record the refined steps as a NEW episode, through the ``Recorder`` like any run (every
    event committed), with its lineage in ``episode_started`` and ``scores["lineage"]``. Never a
    clean baseline; the original is not touched. ``demonstration`` marks it one, only if it passes."""
    verification = refinement.verify()
    if demonstration and not verification.passed:
        raise NotADemonstration(
            f"not a demonstration: the refined episode fails ({_failing(verification)}); nothing was saved"
        )
    record, loaded, events = refinement.record, refinement.loaded, refinement.events
    line = lineage(refinement, editor, verification)
    # the version is the record's, stored already: never stored again (an imported version run
    # with --trust would otherwise be written as recorded here, and its code trusted from then on)
    episode_id = store.create_episode(
        loaded, record.seed, editor, record.user, setting=record.setting, store_version=False
    )
    store.update_episode(episode_id, clean_baseline=False)
    recorder = Recorder(store, episode_id)

    def record_event(e: Event) -> None:
        if e.type == ev.EPISODE_STARTED:
            e = Event(e.seq, e.type, e.actor, {**e.payload, "lineage": line}, e.sim_time, e.wall_time)
        recorder(e)

    episode = open_as_recorded(loaded, record, events)
    episode.listeners.append(record_event)
    episode.start()
    agent = _Steps(editor, refinement.steps, ending(record.kind, events))
    try:
        result = asyncio.run(drive(episode, Seats(agent, user_for(record, events))))
    except Exception as exc:
        store.finish_episode(episode_id, "errored", end_reason=f"{type(exc).__name__}: {exc}")
        raise
    extra: dict[str, Any] = {"lineage": line}
    if demonstration and result.passed:  # the recorded run is the same replay: it passes too
        extra["demonstration"] = True
    finish(store, episode_id, result, extra=extra)
    return episode_id, verification


def _failing(verification: Verification) -> str:
    failed = [str(i.get("id")) for i in verification.as_dict()["checklist"] if not i.get("passed")]
    return "failing: " + ", ".join(failed) if failed else verification.result.end_reason
