"""How a constraint is judged against a closed action and the state around it."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sttui.core import state as st
from sttui.core.expect import is_records
from sttui.core.facts import IdMatcher, canon_id, is_id
from sttui.core.review.model import Constraint

MISSING: Any = object()


@dataclass
class Closed:
    """One closed action as the review sees it: a tool call with its result, or a message."""

    step: int
    kind: str  # call | message | end
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    text: str | None = None
    tool_kind: str | None = None  # query | operation
    changed: bool = False  # the tool itself changed the state
    surfaced: bool = False  # the first failure after a trigger fired: how the change showed

    @property
    def key(self) -> str:
        """The call and its arguments, to tell a retry."""
        if self._key is None:
            self._key = f"{self.tool}|{sorted(self.args.items())!r}"
        return self._key

    _key: str | None = field(default=None, repr=False, compare=False)


@dataclass
class Snapshot:
    """The values of the state at the paths some constraint will compare with later: what a
    settlement keeps instead of a copy of the whole state."""

    values: dict[str, Any]

    @classmethod
    def take(cls, state: Any, paths: set[str]) -> Snapshot:
        return cls({p: st.copy_state(st.lookup(state, p, MISSING)) for p in paths})


def _at(source: Any, path: str) -> Any:
    if isinstance(source, Snapshot):
        return source.values.get(path, MISSING)
    return st.lookup(source, path, MISSING)


@dataclass
class Context:
    """What constraints are evaluated against: the action, the state now, and earlier states."""

    action: Closed | None
    state: Any
    baseline: Any  # the state (or a Snapshot) at the start of the evidence window
    settled_states: Mapping[str, Any]  # the same at each settled milestone (and 'start')


def select(c: Constraint, ctx: Context) -> Any:
    """The value a constraint looks at, or MISSING."""
    if c.root == "state":
        return st.lookup(ctx.state, c.path, MISSING)
    a = ctx.action
    if a is None:
        return MISSING
    if c.root == "message":
        return a.text if a.kind == "message" and a.text is not None else MISSING
    if a.kind != "call":
        return MISSING
    part, _, rest = c.path.partition(".")
    if part == "tool":
        return a.tool
    source: Any = a.args if part == "args" else a.result
    if source is None:
        return MISSING
    return st.lookup(source, rest, MISSING) if rest else source


def holds(c: Constraint, ctx: Context) -> bool:
    op, want = c.operator, c.expected
    if op in ("added", "updated", "removed", "unchanged_since"):
        now = st.lookup(ctx.state, c.path, MISSING)
        if op == "unchanged_since":
            since = ctx.settled_states.get(want or "start", MISSING)
            if since is MISSING:
                return False
            return bool(now == _at(since, c.path))  # (a value read from the state: any JSON)
        before = _at(ctx.baseline, c.path)
        return _changed(op, before, now, want)
    actual = select(c, ctx)
    if actual is MISSING:
        return False
    if op == "equals":
        return bool(actual == want)
    if op == "one_of":
        return actual in want
    if op == "contains":
        return contains(actual, want)
    if op == "json_subsumes":
        return subsumes(actual, want)
    return similarity(str(actual), str(want)) >= c.similarity  # fuzzy_match


def contains(actual: Any, want: Any) -> bool:
    """Text contains text (case-insensitive; an id as people write ids too, ``_names_id``), a
    list holds an item (text also: a mapping item with a text value containing it), a mapping
    holds a key or the given key-value pairs, and a mapping of records (every value a mapping)
    holds a record with them: ``state.patients contains {ward: 7}`` looks into each patient."""
    if isinstance(actual, str):
        return str(want).lower() in actual.lower() or _names_id(actual, want)
    if isinstance(actual, list):
        if isinstance(want, str):  # a text search also looks into the text values of mapping items
            low = want.lower()
            return any(
                subsumes(item, want)
                or (isinstance(item, dict) and any(isinstance(v, str) and low in v.lower() for v in item.values()))
                for item in actual
            )
        return any(subsumes(item, want) for item in actual)
    if isinstance(actual, dict):
        if isinstance(want, dict):
            if subsumes(actual, want):
                return True
            return is_records(actual) and any(subsumes(r, want) for r in actual.values())
        return want in actual
    return False


def _names_id(text: str, want: Any) -> bool:
    """An id wanted in a text (``TRK-9``, ``KL1189``) is there written as the checklist's
    ``tell`` items read ids (``core.facts``): ``trk 9``, ``TRK9``, ``trk-09``, ``KL 1189``, whole
    runs only (``trk 90`` is not TRK-9). A person's report that passes the checklist for naming
    the truck then also reaches the milestone that asks for it."""
    if not is_id(want):
        return False
    runs, matcher = _id_matcher(want)
    low = text.lower()  # (each run of the id is in the text as written, or it is not there at all)
    return all(run in low for run in runs) and bool(matcher.find(text))


@functools.lru_cache(maxsize=1024)
def _id_matcher(want: str) -> tuple[tuple[str, ...], IdMatcher]:
    """The id's letter and digit runs as they must appear in any text naming it (``trk``, ``9``),
    and its matcher."""
    return tuple(canon_id(want).lower().split("-")), IdMatcher([want])


def subsumes(actual: Any, want: Any) -> bool:
    """``want`` is contained in ``actual``: every key of a mapping (recursively), every item of
    a list matched by some item, and scalars equal."""
    if isinstance(want, dict):
        return isinstance(actual, dict) and all(k in actual and subsumes(actual[k], v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(actual, list) and all(any(subsumes(a, w) for a in actual) for w in want)
    return bool(actual == want)


_WORD = re.compile(r"[a-z0-9]+")


def similarity(actual: str, want: str) -> float:
    """The better of the character-level ratio and the share of the expected words present,
    both case-insensitive, so a short expected phrase inside a long message still matches."""
    a, w = actual.lower(), want.lower()
    words = _WORD.findall(w)
    present = set(_WORD.findall(a))
    recall = sum(1 for x in words if x in present) / len(words) if words else 0.0
    return max(recall, difflib.SequenceMatcher(None, a, w).ratio())


def _changed(op: str, before: Any, now: Any, want: Any) -> bool:
    """Whether the value (or one of its entries) was added, updated or removed, matching ``want``."""

    def ok(value: Any) -> bool:
        return want is None or subsumes(value, want)

    if op == "added":
        if before is MISSING:
            return now is not MISSING and ok(now)
        return any(ok(v) for v in _new_entries(before, now))
    if op == "removed":
        if now is MISSING:
            return before is not MISSING and ok(before)
        return any(ok(v) for v in _new_entries(now, before))
    # updated
    if before is MISSING or now is MISSING or before == now:
        return False
    if ok(now):
        return True
    if isinstance(before, dict) and isinstance(now, dict):
        return any(k in before and before[k] != v and ok(v) for k, v in now.items())
    return False


def _new_entries(old: Any, new: Any) -> list[Any]:
    """Entries of ``new`` that ``old`` lacks (keys of a mapping, items of a list)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [v for k, v in new.items() if k not in old]
    if isinstance(old, list) and isinstance(new, list):
        rest = list(old)
        out = []
        for item in new:
            if item in rest:
                rest.remove(item)
            else:
                out.append(item)
        return out
    return []


Test = Callable[[Context], bool]


def compile_constraint(c: Constraint) -> Test:
    """``holds(c, ·)`` specialised to one constraint: the selector's path split once and the
    operator chosen once, for the review's hot path. Same answers as ``holds``."""
    op, want = c.operator, c.expected
    if op in ("added", "updated", "removed", "unchanged_since"):
        return lambda ctx: holds(c, ctx)
    root, path = c.root, c.path
    select_value: Callable[[Context], Any]
    if root == "state":
        keys = st.split(path)

        def select_value(ctx: Context) -> Any:
            return _lookup(ctx.state, keys)
    elif root == "message":

        def select_value(ctx: Context) -> Any:
            a = ctx.action
            if a is None or a.kind != "message" or a.text is None:
                return MISSING
            return a.text
    else:
        part, _, rest = path.partition(".")
        rest_keys = st.split(rest)
        if part == "tool":

            def select_value(ctx: Context) -> Any:
                a = ctx.action
                return a.tool if a is not None and a.kind == "call" else MISSING
        else:
            use_args = part == "args"

            def select_value(ctx: Context) -> Any:
                a = ctx.action
                if a is None or a.kind != "call":
                    return MISSING
                source = a.args if use_args else a.result
                if source is None:
                    return MISSING
                return _lookup(source, rest_keys) if rest_keys else source

    if op == "equals":

        def test(ctx: Context) -> bool:
            actual = select_value(ctx)
            return actual is not MISSING and bool(actual == want)
    elif op == "one_of":

        def test(ctx: Context) -> bool:
            actual = select_value(ctx)
            return actual is not MISSING and actual in want
    elif op == "contains":

        def test(ctx: Context) -> bool:
            actual = select_value(ctx)
            return actual is not MISSING and contains(actual, want)
    elif op == "json_subsumes":

        def test(ctx: Context) -> bool:
            actual = select_value(ctx)
            return actual is not MISSING and subsumes(actual, want)
    else:  # fuzzy_match
        level = c.similarity

        def test(ctx: Context) -> bool:
            actual = select_value(ctx)
            return actual is not MISSING and similarity(str(actual), str(want)) >= level

    return test


def _lookup(node: Any, keys: list[str]) -> Any:
    """``st.lookup(node, path, MISSING)`` with the path already split."""
    for key in keys:
        node = node.get(key, MISSING) if type(node) is dict else st._step(node, key)
        if node is MISSING:
            return MISSING
    return node


class Plan:
    """A rule's constraints compiled: the hard tests in order, then the soft ones with their
    weights; ``satisfied`` on a plan gives the same answer and share as on the constraints."""

    __slots__ = ("hard", "hard_weight", "soft", "threshold", "total")

    def __init__(self, constraints: list[Constraint], threshold: float):
        self.hard = [compile_constraint(c) for c in constraints if c.hard]
        self.soft = [(c.weight, compile_constraint(c)) for c in constraints if not c.hard]
        self.threshold = threshold
        total = hard_weight = 0.0  # summed in the constraints' order, as ``satisfied`` sums them
        for c in constraints:
            total += c.weight
            if c.hard:
                hard_weight += c.weight
        self.total, self.hard_weight = total, hard_weight
        if any(c.hard for c in constraints[len(self.hard) :]):
            raise ValueError("a plan needs its hard constraints first (cheapest_first orders them)")

    def satisfied(self, ctx: Context) -> tuple[bool, float]:
        for test in self.hard:
            if not test(ctx):
                return False, 0.0
        got = self.hard_weight
        for weight, test in self.soft:
            if test(ctx):
                got += weight
        share = got / self.total if self.total else 0.0
        return share >= self.threshold - 1e-9, share


def satisfied(constraints: list[Constraint], threshold: float, ctx: Context) -> tuple[bool, float]:
    """(every hard constraint holds and the weighted share reaches the threshold, that share).
    Hard constraints are tried first: the first that fails decides, with share 0."""
    for c in constraints:
        if c.hard and not holds(c, ctx):
            return False, 0.0
    total = got = 0.0
    for c in constraints:
        total += c.weight
        if c.hard or holds(c, ctx):
            got += c.weight
    share = got / total if total else 0.0
    return share >= threshold - 1e-9, share
