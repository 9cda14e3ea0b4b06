"""Verdict items: the judge's verdict on a recorded episode, put before annotators so people
can check the judge. An item shows what the judge read (the episode's final messages between
agent and user, with the calls made among and after them, how it ended) and what it decided
(pass or fail, who judged: ``checklist``, ``rule``, ``model:M`` or ``human``, and the detail of
each item). Controllers are blinded to their seats, as on every episode item. Plain data in,
plain data out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sttui.annotate.blinding import blind, blind_events, seat_labels
from sttui.core.callsyntax import format_call, result_summary
from sttui.core.events import MESSAGE, TOOL_CALL, TOOL_RESULT, Event

FINAL_MESSAGES = 6  # the last messages shown: enough for the report, the user's reply and a follow-up
# the calls shown among them, the latest: a report's claim ("I've texted him") is read against
# the calls, and one made after the claim makes it true, so the annotator needs them in order
FINAL_CALLS = 12
CALL_TEXT = 160  # characters of a call's text shown (its arguments may be long)


def verdict_body(record: Any, events: Iterable[Event]) -> dict[str, Any] | None:
    """What an annotator reads for one episode's verdict; None when the episode has no verdict
    (it did not finish, or is not an stt episode)."""
    outcome = record.outcome or {}
    if record.kind != "stt" or "passed" not in outcome:
        return None
    events = list(events)
    labels = seat_labels(record.agent, record.user, events)
    blinded = blind_events(events, labels)
    messages = [e for e in blinded if e.type == MESSAGE]
    shown = messages[-FINAL_MESSAGES:]
    user_verdict = (record.scores or {}).get("user_verdict")
    return {
        "episode": record.id,
        "task": record.task_id,
        "end_reason": blind(record.end_reason or "", labels),
        "earlier_messages": len(messages) - len(shown),
        "messages": [
            {"seq": e.seq, "from": str(e.payload.get("from", e.actor)), "text": str(e.payload.get("text", ""))}
            for e in shown
        ],
        "turns": _turns(blinded, shown[0].seq if shown else None),
        "passed": bool(outcome["passed"]),
        "judged_by": str(outcome.get("judged_by") or "checklist"),
        "items": [
            {
                "id": str(i.get("id")),
                "passed": bool(i.get("passed")),
                "detail": blind(str(i.get("detail") or ""), labels),
            }
            for i in outcome.get("items") or []
            if isinstance(i, dict)
        ],
        # the person in the user seat may have given their own verdict (who they were stays hidden)
        "user_verdict": (
            {"verdict": user_verdict.get("verdict"), "reason": blind(user_verdict.get("reason") or "", labels)}
            if isinstance(user_verdict, dict)
            else None
        ),
    }


def _cut(text: str) -> str:
    """``text`` in at most ``CALL_TEXT`` characters, an ellipsis marking a cut."""
    return text if len(text) <= CALL_TEXT else text[: CALL_TEXT - 1] + "…"


def _turns(events: list[Event], since: int | None) -> list[dict[str, Any]]:
    """The final messages with the calls among and after them, in order: ``{seq, from, text}``
    for a message, ``{seq, call, result, ok}`` for a call with its result in one line, and
    ``{gap: n}`` where n earlier calls among them are left out (only the latest ``FINAL_CALLS``).
    With no message, the latest calls."""
    turns: list[dict[str, Any]] = []
    calls: list[int] = []  # the calls' places in turns
    pending: dict[str, Any] | None = None
    for e in events:
        if since is not None and e.seq < since:
            continue
        if e.type == MESSAGE:
            turns.append(
                {"seq": e.seq, "from": str(e.payload.get("from", e.actor)), "text": str(e.payload.get("text", ""))}
            )
        elif e.type == TOOL_CALL:
            args = e.payload.get("args")
            text = format_call(str(e.payload.get("tool", "?")), args if isinstance(args, dict) else {})
            pending = {
                "seq": e.seq,
                "call": _cut(text),
                "result": "no result recorded",  # (the episode stopped before it came)
                "ok": False,
            }
            calls.append(len(turns))
            turns.append(pending)
        elif e.type == TOOL_RESULT and pending is not None:
            result = e.payload.get("result")
            refused = bool(e.payload.get("refused"))
            if not isinstance(result, dict):
                summary = str(result)
            elif refused:
                summary = f"refused: {result.get('error', '')}"
            else:
                summary = result_summary(result)
            pending["ok"] = isinstance(result, dict) and bool(result.get("success")) and not refused
            pending["result"] = _cut(summary)
            pending = None
    drop = set(calls[: max(0, len(calls) - FINAL_CALLS)])
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(turns):
        if i not in drop:
            out.append(turn)
        elif out and "gap" in out[-1]:
            out[-1]["gap"] += 1
        else:
            out.append({"gap": 1})
    return out
