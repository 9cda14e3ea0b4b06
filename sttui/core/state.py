"""Plain-data state: dotted paths, fast copies, diffs and a stable hash.

State is JSON-shaped (dicts, lists, str, int, float, bool, None). Paths are dotted
keys, with integers indexing lists: ``vehicles.TRK-7.refrigeration``, ``stops.0``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sttui.core.problems import did_you_mean

_MISSING = object()


class PathError(KeyError):
    """A path that does not lead anywhere in the state."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0])


def split(path: str) -> list[str]:
    return path.split(".") if path else []


def _step(node: Any, key: str) -> Any:
    if isinstance(node, dict):
        return node.get(key, _MISSING)
    if isinstance(node, list):
        try:
            return node[int(key)]
        except (ValueError, IndexError):
            return _MISSING
    return _MISSING


def lookup(state: Any, path: str, default: Any = _MISSING) -> Any:
    """The value at ``path``; ``default`` (or PathError) when it does not exist."""
    node = state
    for key in split(path):
        node = _step(node, key)
        if node is _MISSING:
            if default is _MISSING:
                raise PathError(f"no value at '{path}' (stopped at '{key}')")
            return default
    return node


_GUESS_AMONG = 64  # keys at most, for a "did you mean"


def missing(state: Any, path: str) -> str | None:
    """Where ``path`` stops, as a sentence (``no such key 'P-9' in patients``), or None
    when it exists."""
    node, walked = state, list[str]()
    for key in split(path):
        nxt = _step(node, key)
        if nxt is _MISSING:
            where = ".".join(walked) or "the state"
            if isinstance(node, list):
                return f"no item {key} in {where} ({len(node)} items)"
            if isinstance(node, dict):  # a field's name mistyped ("delivery" for delivery_time), not an id
                # (a record's fields or the state's tables: a table of records is no place to guess in,
                # and a path checked after every step may be missing until the agent acts)
                guess = len(node) <= _GUESS_AMONG and not any(c.isdigit() for c in key)
                hint = did_you_mean(key, node) if guess else ""
                return f"no such key '{key}' in {where}{hint}"
            return f"{where} is {type(node).__name__} {node!r}, not a mapping or list"
        node = nxt
        walked.append(key)
    return None


def exists(state: Any, path: str) -> bool:
    return lookup(state, path, _MISSING_SENTINEL) is not _MISSING_SENTINEL


_MISSING_SENTINEL = object()


def _parent(state: Any, path: str, create: bool) -> tuple[Any, str]:
    keys = split(path)
    if not keys:
        raise PathError("empty path")
    node = state
    for key in keys[:-1]:
        nxt = _step(node, key)
        if nxt is _MISSING:
            if create and isinstance(node, dict):
                nxt = node[key] = {}
            else:
                raise PathError(f"no value at '{path}' (stopped at '{key}')")
        node = nxt
    return node, keys[-1]


def set_path(state: Any, path: str, value: Any) -> None:
    """Set ``path`` to ``value``, creating missing intermediate mappings."""
    node, key = _parent(state, path, create=True)
    if isinstance(node, list):
        try:
            node[int(key)] = value
        except (ValueError, IndexError):
            raise PathError(f"no list item '{key}' at '{path}'") from None
    elif isinstance(node, dict):
        node[key] = value
    else:
        raise PathError(f"cannot set '{path}': parent is not a mapping or list")


def delete_path(state: Any, path: str) -> None:
    node, key = _parent(state, path, create=False)
    try:
        if isinstance(node, list):
            del node[int(key)]
        else:
            del node[key]
    except (KeyError, ValueError, IndexError, TypeError):
        raise PathError(f"nothing to delete at '{path}'") from None


def append_path(state: Any, path: str, value: Any) -> None:
    """Append to the list at ``path`` (created empty if missing)."""
    node, key = _parent(state, path, create=True)
    target = _step(node, key)
    if target is _MISSING:
        target = []
        set_path(state, path, target)
    if not isinstance(target, list):
        raise PathError(f"cannot append at '{path}': it is not a list")
    target.append(value)


def copy_state(value: Any) -> Any:
    """Deep copy of JSON-shaped data; several times faster than ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: copy_state(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [copy_state(v) if type(v) in _CONTAINERS else v for v in value]
    if isinstance(value, dict):
        return {k: copy_state(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [copy_state(v) for v in value]
    return value


_CONTAINERS = (dict, list, tuple)


def diff(before: Any, after: Any, prefix: str = "") -> list[dict[str, Any]]:
    """Changes from ``before`` to ``after`` as ``{op, path, old?, new?, keys?}`` records.

    Values in the records are copies, so later changes to the state never alter a diff.

    ``op`` is ``added``, ``removed`` or ``changed``. Mappings are compared key by key,
    lists item by item when their lengths match and as whole values otherwise.
    A dotted path cannot tell ``a.b`` from key ``"a.b"``: when a key on the way contains a
    dot, the record also carries ``keys``, the path's keys one by one (see ``keys_of``).
    """
    out: list[dict[str, Any]] = []
    _diff(before, after, prefix, out)
    return out


def keys_of(record: dict[str, Any]) -> list[str]:
    """The keys a diff record's path goes through: ``keys`` when the path is ambiguous, else its
    dotted path split."""
    return list(record["keys"]) if "keys" in record else split(record["path"])


def _below(path: str, keys: tuple[str, ...] | None, k: Any) -> tuple[str, tuple[str, ...] | None]:
    """The dotted path of key ``k`` under ``path`` and, once some key on the way holds a dot,
    the keys one by one (None while the dotted path alone is exact)."""
    k = str(k)
    sub = f"{path}.{k}" if path else k
    if keys is not None:
        return sub, (*keys, k)
    if "." in k:
        return sub, (*split(path), k)
    return sub, None


def _record(rec: dict[str, Any], keys: tuple[str, ...] | None) -> dict[str, Any]:
    if keys is not None:
        rec["keys"] = list(keys)
    return rec


def _diff(a: Any, b: Any, path: str, out: list[dict[str, Any]], keys: tuple[str, ...] | None = None) -> None:
    if a is b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k, av in a.items():
            bv = b.get(k, _MISSING)
            if bv is _MISSING:
                sub, sk = _below(path, keys, k)
                out.append(_record({"op": "removed", "path": sub, "old": copy_state(av)}, sk))
            elif av is not bv and (av != bv or type(av) is not type(bv)):
                sub, sk = _below(path, keys, k)
                _diff(av, bv, sub, out, sk)
        for k, bv in b.items():
            if k not in a:
                sub, sk = _below(path, keys, k)
                out.append(_record({"op": "added", "path": sub, "new": copy_state(bv)}, sk))
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (av, bv) in enumerate(zip(a, b, strict=True)):
            if av != bv or type(av) is not type(bv):
                sub, sk = _below(path, keys, i)
                _diff(av, bv, sub, out, sk)
        return
    if a != b or type(a) is not type(b):
        out.append(_record({"op": "changed", "path": path, "old": copy_state(a), "new": copy_state(b)}, keys))


def sync(shadow: dict[str, Any], state: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, set[str] | None]]:
    """Diff ``shadow`` (a private copy of the state as it last was) against ``state``, exactly as
    ``diff(shadow, state)``, and bring the shadow up to date. Returns the diff records and what
    changed: top-level key -> the keys changed inside its mapping, or None for the whole value.

    This replaces copying the whole state before an operation and diffing it all after: the
    comparison runs in C (``!=`` on each value), only what changed is walked and copied, and
    the shadow's values are replaced, never mutated (a changed mapping is a new mapping sharing
    its unchanged entries), so snapshots that share them (an episode's history) stay as they
    were. The shadow keeps the state's key order at the top level; below it, a mapping whose
    keys were only reordered (no value changed) keeps its old order until it next changes."""
    out: list[dict[str, Any]] = []
    changed: dict[str, set[str] | None] = {}
    for k, av in shadow.items():
        bv = state.get(k, _MISSING)
        if bv is _MISSING:
            out.append(_record({"op": "removed", "path": str(k), "old": copy_state(av)}, _below("", None, k)[1]))
            changed[k] = None
        elif av is not bv and (av != bv or type(av) is not type(bv)):
            top, keys = _below("", None, k)
            if type(av) is dict and type(bv) is dict:
                subs = _diff_mapping(av, bv, top, out, keys)
                if subs:
                    changed[k] = subs
            else:
                n = len(out)
                _diff(av, bv, top, out, keys)
                if len(out) > n:
                    changed[k] = None
    if len(state) != len(shadow) - sum(1 for k in changed if k not in state):
        for k, bv in state.items():
            if k not in shadow:
                out.append(_record({"op": "added", "path": str(k), "new": copy_state(bv)}, _below("", None, k)[1]))
                changed[k] = None
    for k, inner in changed.items():
        if k not in state:
            del shadow[k]
        elif inner is None:
            shadow[k] = copy_state(state[k])
        else:
            old, new = shadow[k], state[k]
            shadow[k] = {s: copy_state(v) if s in inner else old[s] for s, v in new.items()}
    if list(shadow) != list(state):  # a key re-inserted: keep the state's order
        ordered = {k: shadow[k] for k in state}
        shadow.clear()
        shadow.update(ordered)
    return out, changed


def _diff_mapping(
    a: dict[str, Any], b: dict[str, Any], path: str, out: list[dict[str, Any]], keys: tuple[str, ...] | None = None
) -> set[str]:
    """``_diff`` of two mappings (the same records, in the same order), returning the keys that
    changed."""
    subs: set[str] = set()
    for k, av in a.items():
        bv = b.get(k, _MISSING)
        if bv is _MISSING:
            sub, sk = _below(path, keys, k)
            out.append(_record({"op": "removed", "path": sub, "old": copy_state(av)}, sk))
            subs.add(k)
        elif av is not bv and (av != bv or type(av) is not type(bv)):
            n = len(out)
            sub, sk = _below(path, keys, k)
            _diff(av, bv, sub, out, sk)
            if len(out) > n:
                subs.add(k)
    for k, bv in b.items():
        if k not in a:
            sub, sk = _below(path, keys, k)
            out.append(_record({"op": "added", "path": sub, "new": copy_state(bv)}, sk))
            subs.add(k)
    return subs


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces."""
    return _CANONICAL(value)


# what ``json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)`` makes afresh on
# every call, made once (the engine writes every changed record's canonical JSON for its hash)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str).encode


def state_hash(value: Any) -> str:
    """A stable SHA-256 over canonical JSON."""
    return hashlib.sha256(canonical(value).encode()).hexdigest()
