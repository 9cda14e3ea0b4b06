"""Blinding an episode for its annotators: who held a seat (``human:ana``, ``model:gpt-4o``,
``baseline:oracle``) is shown as the seat (``agent``, ``user``), so a rating judges the work,
not its author. A dimension that needs the controller says so (``shows_controller: true`` in
``annotations/dimensions.yaml``); other annotators' ratings are never shown either way."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sttui.core.events import Event

SEATS = ("agent", "user")


def seat_labels(agent: str, user: str | None, events: Iterable[Event]) -> dict[str, str]:
    """Controller -> its blinded label. A seat held by one controller is ``agent`` (``user``);
    a seat that changed hands numbers its holders in order: ``agent 1``, ``agent 2``."""
    holders: dict[str, list[str]] = {"agent": [agent], "user": [user] if user else []}
    for e in events:
        if e.type == "seat_changed" and e.payload.get("seat") in holders:
            seat_holders = holders[e.payload["seat"]]
            for who in (e.payload.get("from"), e.payload.get("to")):
                if isinstance(who, str) and who not in seat_holders:
                    seat_holders.append(who)
    labels: dict[str, str] = {}
    for seat, names in holders.items():
        for i, name in enumerate(names, 1):
            labels.setdefault(name, seat if len(names) == 1 else f"{seat} {i}")
    return labels


def _blind(value: Any, labels: dict[str, str]) -> Any:
    if isinstance(value, str):
        if value in labels:
            return labels[value]
        for name, label in labels.items():
            if name in value:
                value = value.replace(name, label)
        return value
    if isinstance(value, dict):
        return {k: _blind(v, labels) for k, v in value.items()}
    if isinstance(value, list):
        return [_blind(v, labels) for v in value]
    return value


def blind_events(events: Iterable[Event], labels: dict[str, str]) -> list[Event]:
    """The events with every controller name, as actor or inside a payload, replaced by its label."""
    return [replace(e, actor=labels.get(e.actor, e.actor), payload=_blind(e.payload, labels)) for e in events]


def blind(value: Any, labels: dict[str, str]) -> Any:
    """A value (text, or data holding text) with every controller name replaced by its label."""
    return _blind(value, labels)
