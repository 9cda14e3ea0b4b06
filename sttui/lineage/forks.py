"""Which episodes are forks, and of what: read from a finished fork's scores or from its start
event. Apart from ``forking`` (which writes forks), so home's sessions pane can mark them with
either reader of the record, the full store or its light look (``sttui.store.peek``)."""

from __future__ import annotations

from typing import Any, Protocol

from sttui.core.events import Event


class EventReader(Protocol):
    """The two reads ``forks_among`` needs: ``Store`` and ``Peek`` both have them."""

    def episode_ids_with(self, event_type: str, among: list[str]) -> set[str]: ...

    def events(self, episode_id: str, first: int | None = None, last: int | None = None) -> list[Event]: ...


def lineage_of(record: Any, events: list[Event] | None = None) -> dict[str, Any] | None:
    """``forked_from`` of an episode: from its scores once finished, else from its start event."""
    scores = getattr(record, "scores", None) or {}
    found = (scores.get("lineage") or {}).get("forked_from") if hasattr(scores, "get") else None
    if found:
        return dict(found)
    for e in events or ():
        if e.type == "episode_started":
            return e.payload.get("forked_from")
    return None


def forks_among(store: EventReader, ids: list[str], forked: set[str] | None = None) -> dict[str, dict[str, Any]]:
    """The forks among episodes ``ids``, each with its ``forked_from`` {episode, seq}: one query
    finds them (their ``forked`` event; ``forked``: every episode with one, found once by the
    caller for a listing read in chunks), then each fork's start event is read (forks are few)."""
    out: dict[str, dict[str, Any]] = {}
    among = store.episode_ids_with("forked", ids) if forked is None else forked.intersection(ids)
    for eid in sorted(among):
        found = lineage_of(None, store.events(eid, 1, 1))
        if found:
            out[eid] = found
    return out
