"""State diffs as RFC 6902 JSON Patch: the recorded diff records (dotted paths) turned into
``add``/``remove``/``replace`` operations on JSON Pointers (RFC 6901), which address any key,
one holding a dot or a slash included."""

from __future__ import annotations

from typing import Any

from sttui.core.state import keys_of

_OPS = {"added": "add", "removed": "remove", "changed": "replace"}


def pointer(keys: list[str]) -> str:
    """A JSON Pointer: each key prefixed with ``/``, ``~`` written ``~0`` and ``/`` written ``~1``."""
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)


def json_patch(diff: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The diff records of one event as a JSON Patch that turns the state before it into the
    state after it. A list that changed length is replaced whole (as the diff records it), so
    ``add`` only ever adds a key to a mapping."""
    ops: list[dict[str, Any]] = []
    for record in diff:
        op = {"op": _OPS[record["op"]], "path": pointer(keys_of(record))}
        if op["op"] != "remove":
            op["value"] = record["new"]
        ops.append(op)
    return ops


def event_patch(event_type: str, payload: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The JSON Patch of an event that changed the state (a tool's result, a trigger), else None."""
    records = payload.get("state_diff") if event_type == "tool_result" else None
    if event_type == "trigger_fired":
        records = payload.get("diff")
    return json_patch(records) if isinstance(records, list) else None
