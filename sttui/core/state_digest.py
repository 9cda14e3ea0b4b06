"""The running SHA-256 of an episode's state, kept between steps.

Every event an episode records carries the hash of its state (``Episode.state_hash``). Hashing
the whole state's canonical JSON after every step cost more than the step; this keeps the JSON
of each top-level key (and of each entry one level down) until it changes, and the digest's
state before the parts of keys that have changed, so a step that changes one record re-encodes
that record and re-hashes from its key on. Every episode of a task starts from the task's
:class:`Opening`, worked out once.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections import OrderedDict
from collections.abc import Container
from typing import TYPE_CHECKING, Any

from sttui.core import state as st
from sttui.core.task import SttTask

if TYPE_CHECKING:
    from hashlib import _Hash as Hash


class StateDigest:
    """sha256 over ``canonical(state) + "|"``, fed part by part (``{`` or ``,`` then
    ``"key":value`` per key, sorted, then ``}|``), resumed from the digest's state before the
    first part that changed (or the nearest kept before it: kept before the parts of keys that
    have changed, the parts between them are fed joined, as one)."""

    def __init__(self, opening: Opening | None = None):
        self.current: Hash | None = None  # the digest of the state as it is, while unchanged
        self.order: list[str] | None = None  # the state's keys, sorted
        self.mids: list[Hash | None] = []  # the digest before each part, where one is kept (else None)
        self.valid = 0  # how many of ``mids`` still hold
        # the top-level keys seen to change: the digest before each of their parts is kept, to
        # resume from when they change again; the parts between are fed as one
        self.hot: set[str] = set()
        self.key_json: dict[str, str] = {}  # '"key":value' in canonical JSON, per top-level key, while unchanged
        self.sub_json: dict[str, dict[str, str]] = {}  # the same one level down, for mappings
        if opening is not None:
            self.key_json = dict(opening.key_json)
            self.sub_json = {k: dict(v) for k, v in opening.sub_json.items()}
            self.order, self.mids, self.current = list(opening.order), list(opening.mids), opening.digest
            self.valid = len(self.mids)

    def changed(self, changed: dict[str, set[str] | None], keys: Container[str]) -> None:
        """Forget what ``changed`` (top-level key -> the keys changed inside it, or None for the
        whole value; ``st.sync``'s) made stale; ``keys``: the state's keys now."""
        self.current = None
        order = self.order
        for key, subs in changed.items():
            self.hot.add(key)
            if order is not None:
                at = bisect.bisect_left(order, key)
                if at < len(order) and order[at] == key and key in keys:
                    self.valid = min(self.valid, at + 1)
                else:  # a key added or removed: the order changes
                    self.order = order = None
                    self.valid = 0
            self.key_json.pop(key, None)
            cache = self.sub_json.get(key)
            if cache is not None:
                if subs is None:
                    del self.sub_json[key]
                else:
                    for sub in subs:
                        cache.pop(sub, None)

    def digest(self, state: dict[str, Any]) -> Hash:
        """The digest of ``state`` (a hashlib object: copy it before feeding it more)."""
        if self.current is None:
            self.current = self._digest(state)
        return self.current

    def _digest(self, state: dict[str, Any]) -> Hash:
        cache = self.key_json
        if self.order is None:
            self.order = sorted(state)
            self.mids = []
            self.valid = 0
        order, mids, hot = self.order, self.mids, self.hot
        at = min(self.valid, len(mids)) - 1  # the first part that may have changed
        while at >= 0 and mids[at] is None:
            at -= 1
        kept = mids[at] if at >= 0 else None  # mids[i] is the state before part i: redo from part ``at`` on
        if kept is not None:
            h = kept.copy()
        else:
            h, at = hashlib.sha256(), 0
        del mids[at:]
        run: list[str] = []
        for i in range(at, len(order)):
            key = order[i]
            text = cache.get(key)
            if text is None:
                text = cache[key] = key_part(key, state[key], self.sub_json)
            if key in hot:
                if run:
                    h.update("".join(run).encode())
                    run.clear()
                mids.append(h.copy())
            else:
                mids.append(None)
            run.append(f"{',' if i else '{'}{text}")
        self.valid = len(mids)
        run.append("}|" if order else "{}|")
        h.update("".join(run).encode())
        return h

    def hashes(self) -> list[Any]:
        """The hashlib objects held (a copy of the episode copies them: they cannot be deep-copied)."""
        return [h for h in [*self.mids, self.current] if h is not None]


def key_part(key: str, value: Any, sub_json: dict[str, dict[str, str]]) -> str:
    """``"key":value`` in canonical JSON. A mapping's value is joined from its entries' (kept in
    ``sub_json`` until they change), so a change to one record re-encodes that record only."""
    if type(value) is not dict or not all(type(k) is str for k in value):
        sub_json.pop(key, None)
        return f"{json.dumps(key)}:{st.canonical(value)}"
    cache = sub_json.setdefault(key, {})
    parts = []
    for sub in sorted(value):
        text = cache.get(sub)
        if text is None:
            text = cache[sub] = f"{json.dumps(sub)}:{st.canonical(value[sub])}"
        parts.append(text)
    return f"{json.dumps(key)}:{{{','.join(parts)}}}"


class Opening:
    """What every episode of a task starts from: a private copy of its initial state (never
    mutated: episodes' shadows share its values) and that state's canonical JSON by key."""

    def __init__(self, task: SttTask):
        self.task = task  # held, so the id this is filed under stays this task's
        self.state: dict[str, Any] = st.copy_state(task.initial_state)
        self.sub_json: dict[str, dict[str, str]] = {}
        self.key_json = {k: key_part(k, v, self.sub_json) for k, v in self.state.items()}
        self.order = sorted(self.state)
        self.mids: list[Any] = []
        digest = hashlib.sha256()
        for i, key in enumerate(self.order):
            self.mids.append(digest.copy())
            digest.update(f"{',' if i else '{'}{self.key_json[key]}".encode())
        digest.update(b"}|" if self.order else b"{}|")
        self.digest = digest


_OPENINGS: OrderedDict[int, Opening] = OrderedDict()


def opening(task: SttTask) -> Opening:
    """The task's opening, worked out once (the last 256 tasks' are kept)."""
    found = _OPENINGS.get(id(task))
    if found is None or found.task is not task:
        found = _OPENINGS[id(task)] = Opening(task)
        while len(_OPENINGS) > 256:
            _OPENINGS.popitem(last=False)
    else:
        _OPENINGS.move_to_end(id(task))
    return found
