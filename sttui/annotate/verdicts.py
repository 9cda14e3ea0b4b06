"""Verdict items: the judge's verdict on a recorded episode, put before annotators so people
can check the judge. An item shows what the judge read (the episode's final messages between
agent and user, how it ended) and what it decided (pass or fail, who judged: ``checklist``,
``rule``, ``model:M`` or ``human``, and the detail of each item). Controllers are blinded to
their seats, as on every episode item. Plain data in, plain data out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sttui.annotate.blinding import blind, blind_events, seat_labels
from sttui.core.events import MESSAGE, Event

FINAL_MESSAGES = 6  # the last messages shown: enough for the report, the user's reply and a follow-up


def verdict_body(record: Any, events: Iterable[Event]) -> dict[str, Any] | None:
    """What an annotator reads for one episode's verdict; None when the episode has no verdict
    (it did not finish, or is not an stt episode)."""
    outcome = record.outcome or {}
    if record.kind != "stt" or "passed" not in outcome:
        return None
    events = list(events)
    labels = seat_labels(record.agent, record.user, events)
    messages = [e for e in blind_events(events, labels) if e.type == MESSAGE]
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
