"""From a recorded event log back to actions and views: the basis of resume, replay,
re-scoring and exports. Pure functions over events."""

from __future__ import annotations

from typing import Any

from sttui.core import events as ev
from sttui.core import verdicts
from sttui.core.actions import Action, Assess, EndEpisode, Probe, Reply, Say, SubmitBatch, ToolCall
from sttui.core.explore import episode as xe

# Event types each engine emits; anything else in a record (seat changes, clock, notes) is meta.
ENGINE_TYPES = {
    "stt": {
        ev.EPISODE_STARTED,
        ev.MESSAGE,
        ev.TOOL_CALL,
        ev.TOOL_RESULT,
        ev.TRIGGER_FIRED,
        ev.MILESTONE_SETTLED,
        ev.STOP_SIGNAL,
        ev.EPISODE_ENDED,
    },
    "explore": {
        ev.EPISODE_STARTED,
        xe.PROBE,
        xe.PROBE_RESULT,
        xe.BATCH_SUBMITTED,
        xe.BATCH_FEEDBACK,
        xe.ASSESSMENT,
        xe.RULE_CHANGED,
        xe.REFUSED,
        ev.EPISODE_ENDED,
    },
}


def engine_events(kind: str, events: list[ev.Event]) -> list[ev.Event]:
    return [e for e in events if e.type in ENGINE_TYPES[kind]]


def actions_of(kind: str, events: list[ev.Event]) -> list[tuple[str, Action]]:
    """The actions, with the controller that took each, that produced ``events``."""
    return [(actor, action) for _, actor, action in actions_with_seqs(kind, events)]


def actions_with_seqs(kind: str, events: list[ev.Event]) -> list[tuple[int, str, Action]]:
    """``actions_of`` with the seq of the event each action shows in (a fork cuts by seq)."""
    out: list[tuple[int, str, Action]] = []
    evs = engine_events(kind, events)
    if kind == "explore":
        for e in evs:
            p = e.payload
            if e.type == xe.PROBE:
                out.append((e.seq, e.actor, Probe(p["cases"])))
            elif e.type == xe.BATCH_SUBMITTED:
                out.append((e.seq, e.actor, SubmitBatch(p["actions"])))
            elif e.type == xe.ASSESSMENT:
                out.append((e.seq, e.actor, Assess(p["relevant"], p.get("changes"))))
            elif e.type == xe.REFUSED:
                out.append((e.seq, e.actor, _refused_action(p)))
            elif e.type == ev.EPISODE_ENDED and p["by"] == "agent":
                out.append((e.seq, e.actor, EndEpisode(p["reason"])))
        return out
    seen_query = False
    for i, e in enumerate(evs):
        p = e.payload
        nxt = evs[i + 1] if i + 1 < len(evs) else None
        if e.type == ev.TOOL_CALL:
            out.append((e.seq, e.actor, ToolCall(p["tool"], p["args"])))
        elif e.type == ev.MESSAGE and p["from"] == "agent":
            out.append((e.seq, e.actor, Say(p["text"])))
        elif e.type == ev.MESSAGE and not seen_query:
            seen_query = True  # the task's query, sent by start()
        elif e.type == ev.MESSAGE:
            ending = None
            if nxt is not None and nxt.type == ev.EPISODE_ENDED and nxt.payload["by"] == "user":
                ending = verdicts.action_of(nxt.payload.get("user_verdict"), p["text"])
            out.append((e.seq, e.actor, ending or Reply(p["text"])))
        elif e.type == ev.EPISODE_ENDED and p["by"] == "agent":
            out.append((e.seq, e.actor, EndEpisode(p["reason"])))
        elif e.type == ev.EPISODE_ENDED and p["by"] == "user":
            prev = evs[i - 1]
            if not (prev.type == ev.MESSAGE and prev.payload["from"] == "user" and seen_query and i > 1):
                out.append((e.seq, e.actor, verdicts.action_of(p.get("user_verdict"))))
    return out


def _agent_step(e: ev.Event) -> bool:
    """Whether the event is an agent action (a call, a message, or ending the episode)."""
    p = e.payload
    return (
        e.type == ev.TOOL_CALL
        or (e.type == ev.MESSAGE and p.get("from") == "agent")
        or (e.type == ev.EPISODE_ENDED and p.get("by") == "agent")
    )


def step_of_events(events: list[ev.Event]) -> dict[int, int]:
    """For each recorded event (by seq), the agent steps taken up to and including it."""
    out: dict[int, int] = {}
    steps = 0
    for e in events:
        steps += _agent_step(e)
        out[e.seq] = steps
    return out


def seq_of_step(events: list[ev.Event], step: int) -> int | None:
    """The seq of the event that took agent step ``step`` (its tool call or message)."""
    steps = 0
    for e in events:
        if _agent_step(e):
            steps += 1
            if steps == step:
                return e.seq
    return None


def _refused_action(p: dict[str, Any]) -> Action:
    data = p["input"]
    if p["what"] == "probe":
        return Probe(data["cases"])
    if p["what"] == "batch":
        return SubmitBatch(data["actions"])
    if p["what"] == "assessment":
        return Assess(data["relevant"], data.get("changes"))
    return EndEpisode("unknown action")  # pragma: no cover - only unknown action types land here


def stt_view(events: list[ev.Event]) -> list[dict[str, Any]]:
    """The agent seat's view of an stt episode, rebuilt from its events (equals ``Episode.view``).

    Notices of announced triggers follow the result of the call that fired them (or the
    opening query, for triggers due at the start), as the episode shows them.
    """
    view: list[dict[str, Any]] = []
    pending: list[str] = []
    steps = 0
    call: dict[str, Any] | None = None
    seen_query = False

    def flush() -> None:
        view.extend({"type": "notice", "text": n} for n in pending)
        pending.clear()

    for e in engine_events("stt", events):
        p = e.payload
        if e.type == ev.MESSAGE:
            item = {"type": "message", "from": p["from"], "text": p["text"]}
            if not seen_query and p["from"] == "user":
                seen_query = True
                view.append(item)
                flush()
                continue
            flush()
            steps += p["from"] == "agent"
            view.append(item)
        elif e.type == ev.TOOL_CALL:
            flush()
            steps += 1
            call = {"type": "tool_call", "id": f"call_{steps}", "tool": p["tool"], "args": p["args"]}
        elif e.type == ev.TOOL_RESULT and call is not None:
            view.append(call)
            view.append({"type": "tool_result", "id": call["id"], "tool": p["tool"], "result": p["result"]})
            call = None
        elif e.type == ev.TRIGGER_FIRED and p.get("notice"):
            pending.append(p["notice"])
    flush()
    return view
