"""What the record shows, for the claims of the agent's messages (``core.report_claims``): per
episode, which operations succeeded and the ids their calls named or the records they acted on
held, the ids known so far, what the fired triggers changed, and the state a passive claim may
be supported by. Kept per episode (``_RECORDS``) and brought up to date only when a message
claims something: reading every call is most of what a ``tell`` item costs."""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING, Any

from sttui.core import facts
from sttui.core import state as st
from sttui.core.caches import evict_oldest
from sttui.core.claim_verbs import _claim_verbs_of
from sttui.core.events import TOOL_RESULT, TRIGGER_FIRED
from sttui.core.report_facts import Resolved, _Kept, _record_of
from sttui.core.report_names import (
    WORD,
    canon_if_id,
    id_names,
    ids_in,
    kind_nouns,
    name_words,
    named_in,
    names,
    people,
    per_task,
)
from sttui.core.statements import name_typed

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.report_claims import Mismatch
    from sttui.core.task import ChecklistItem


def _tell_items(episode: Episode) -> list[ChecklistItem]:
    """The episode's ``tell`` items (their facts' alias words name ids in a claim too)."""
    from sttui.core.checklist import checklist_for

    return [item for item in checklist_for(episode.task, episode.settings) if item.tell]


_WRITTEN_IDS: dict[int, tuple[Any, dict[str, str]]] = {}


def written_ids(task: Any) -> dict[str, str]:
    """The ids of a task's initial state (keys and strings, at any depth) as it writes them, by
    their canonical form ("FI-523" -> "FI523", "VAN-E-4" -> "VAN-E4"): its keys are the ids it
    holds (``report_names.ids_in``), its values what a claim's detail names them by. Read once
    per task (the task is held, so the id it is filed under stays its own)."""

    def read(t: Any) -> dict[str, str]:
        out: dict[str, str] = {}
        stack = [t.initial_state]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v)
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str) and (c := canon_if_id(v)) is not None:
                out.setdefault(c, v)
        return out

    return per_task(_WRITTEN_IDS, task, read)


class _Record:
    """What the record shows, brought up to date (:meth:`update`) only when a message claims
    something: ids known (the state's at the start, and every call's), and the ids each
    successful operation named. Reading every call's arguments and result is most of what a
    ``tell`` item costs, and most reports claim nothing (``_candidates``)."""

    def __init__(self, episode: Episode):
        self.written = written_ids(episode.task)  # canonical id -> as the initial state writes it
        self.known: set[str] = set(self.written)
        self.done: dict[str, set[str]] = {}  # tool -> ids a successful call of it named
        self.seen = 0  # view items read
        self.verbs = _claim_verbs_of(episode.tools)
        self.names = names(episode.task)
        self.name_words = name_words(episode.task)
        self.people = people(episode.task)
        self.id_names = id_names(episode.task)
        self.named = frozenset(self.names.values())  # the keys of the records they name
        self.words = f"{episode.task.query}\n{episode.task.user.goal}"
        self.matcher: facts.IdMatcher | None = None
        self.version: Any = None
        self.parsed: dict[str, list[tuple[str, set[str], set[object], set[object] | None, bool]]] = {}  # text -> claims
        # an ambiguous verb's tool -> what its records are called ("confirmed the forum": confirm_event)
        kinds = kind_nouns(episode.task)
        self.called: dict[str, frozenset[str]] = {
            tool: called
            for tool, words in self.verbs.needs.items()
            if (called := frozenset(w for k in words for w in kinds.get(k, ())))
        }
        # message text -> its claiming clauses (the same for every task with these tools and what
        # their records are called)
        self.clauses = self.verbs.clauses.setdefault(frozenset(self.called.items()), {})
        evict_oldest(self.verbs.clauses, 64)  # (one per set of names: a server may hold many tasks)
        self.support = 0  # moves on whenever what the record supports may have changed
        self.unsupported: tuple[int, int, list[Mismatch]] = (-1, 0, [])  # (support, messages read, claims)
        self.quiet: tuple[int, Any] = (0, None)  # (how many of the agent's messages claim nothing, the last)
        self.facts: dict[tuple[str, int], Resolved] = {}
        # (tools claimed, support) -> the tables beside what their successful calls named (``claim_pronouns.of_its_kind``)
        self.beside: dict[tuple[frozenset[str], int], set[int]] = {}
        # (state version, fact, its reading) -> (agent messages read, whether one placed a value)
        self.placed: dict[tuple[Any, str, Any], tuple[int, bool]] = {}
        self.kept = _Kept(episode) if hasattr(episode, "_key_versions") else None  # (an engine episode)
        # what a passive claim may be supported by besides a call ("BA576 was cancelled"): the
        # ids of the records the fired triggers changed, and the state now
        self.world: set[str] = set()
        # … and the names of what they changed, records in a list too ("Derw Bridge", ``travel[0]``)
        self.world_names: dict[tuple[str, ...], str] = {}  # a changed record's name -> its path
        # … and the words of what the fired triggers announced ("priority case added to the KL1187 list")
        self.world_said: list[frozenset[str]] = []
        self.events_read = 0
        self.history: dict[str, set[Any]] = {}  # a changed path -> the values it held (``held``)
        self.diffs_read = 0
        self.state: Any = None
        self.state_version: Any = None
        self.passive = False  # a message read so far makes a passive claim: it reads the state
        # the alias words of the tell facts ("crew 8" names CREW-8 in a claim too)
        self.aliases: dict[str, str] = {
            w: p for item in _tell_items(episode) for fact in item.tell or [] for w, p in fact.aliases.items()
        }
        self.name_set = frozenset(self.names)  # (hashed once: ``name_typed`` is cached by it)

    def name_of(self, word: str) -> str | None:
        """The record a word written as a name names: as written, or typed with one typo
        (``statements.name_typed``): "I've told Iqbaal" is of Dr Iqbal."""
        hit = self.names.get(word)
        if hit is None and (meant := name_typed(word, self.name_set)) is not None:
            hit = self.names[meant]
        return hit

    def _held(self, episode: Episode, args: Any) -> set[str]:
        """The ids held by the records an operation acted on (its arguments that are a record's
        key in the state: ``ticket_booking(locator=HX9P2L)`` acted on the booking, and so on
        the flights it holds): "You're ticketed on LH1232" is what the ticketing did."""
        state = getattr(getattr(episode, "env", None), "state", None)
        if not isinstance(args, dict) or not isinstance(state, dict):
            return set()
        out: set[str] = set()
        for value in args.values():
            record = _record_of(state, value, self.kept)
            if record is not None:
                ids_in(record, out)
                if self.named:
                    named_in(record, self.named, out)
        return out

    def happened(self, subject: set[object], ids: set[object], claimed: set[str], words: str = "") -> bool:
        """Whether a passive claim is what the world did, not said to be anyone's doing: a fired
        trigger changed the record of what it is said of (``subject``; of any of ``ids`` when it
        names none), or the record of one of ``ids`` holds a word that claims the operation
        (``status: cancelled`` for "BA576 was cancelled", ``booked`` for "… is booked on TR-4").
        A claim said of no record ("both evening flights are cancelled") may be said of the
        records the fired triggers changed in a table its ``words`` name (``flights``), or say
        what a fired trigger announced (:meth:`_announced`)."""
        if self.world.intersection(map(str, subject or ids)):
            return True
        if not subject and not ids and self.world_names:  # said of what a trigger changed, by its name
            said = WORD.findall(facts.fold(words))
            said = said[1:] if said[:1] in (["the"], ["a"], ["an"], ["our"], ["your"]) else said
            for name, path in self.world_names.items():  # (the name it opens with: what it is said of)
                if tuple(said[: len(name)]) == name and self._holds(st.lookup(self.state, path, None), claimed):
                    return True
        for i in ids | subject | (set() if subject else self._world_in(words)):
            if self._holds(_record_of(self.state, str(i), self.kept), claimed):
                return True
        return not subject and not ids and self._announced(words, claimed)

    def _announced(self, words: str, claimed: set[str]) -> bool:
        """Whether a claim naming no record says what a fired trigger announced: its verb and
        another word of four letters or more of it are in one announcement ("UM added with
        priority" after "priority case added to the KL1187 list"). A silent trigger announces
        nothing, so it supports nothing here."""
        said = WORD.findall(facts.fold(words))
        verbs = {w for w in said if claimed.intersection(self.verbs.get(w, ()))}
        others = {w for w in said if len(w) >= 4 and w not in verbs}
        return any(verbs & heard and others & heard for heard in self.world_said)

    def _holds(self, record: Any, claimed: set[str]) -> bool:
        """Whether a record holds a word that claims one of the operations (``status: cancelled``)."""
        if not isinstance(record, dict):
            return False
        for value in record.values():
            if isinstance(value, str) and len(value) <= 200:
                for word in WORD.findall(facts.fold(value)):
                    if claimed.intersection(self.verbs.get(word, ())):
                        return True
        return False

    def _world_in(self, words: str) -> set[str]:
        """The records the fired triggers changed that are in a top-level table ``words`` name
        ("flights", "flight"): "both evening flights are cancelled" is said of them. Said of
        *both* or *all* alone ("…, so both are cancelled"), of any record they changed."""
        folded = facts.fold(words)
        said = set(WORD.findall(folded))
        if not self.world or not isinstance(self.state, dict):
            return set()
        if _QUANTIFIED.match(folded):
            return set(self.world)
        out: set[str] = set()
        for name, table in self.state.items():
            if isinstance(name, str) and isinstance(table, dict) and {name, name.removesuffix("s")} & said:
                out |= self.world & {facts.canon_id(k) for k in table if isinstance(k, str)}
        return out

    def _read_world(self, episode: Episode) -> bool:
        """The ids of the records changed by triggers fired since the last look; whether any is new."""
        events = getattr(episode, "events", None) or []
        grew = False
        for e in events[self.events_read :]:
            if e.type != TRIGGER_FIRED or not isinstance(e.payload, dict):
                continue
            notice = e.payload.get("notice")
            if isinstance(notice, str) and notice:
                self.world_said.append(frozenset(WORD.findall(facts.fold(notice[:2000]))))
                grew = True
            for change in e.payload.get("diff") or []:
                path = change.get("path") if isinstance(change, dict) else None
                grew = self._name_world(episode, path) or grew
                for part in path.split(".") if isinstance(path, str) else ():
                    # a record's key: id-shaped (BA576) or written as keys are (CL-ADEYEMI)
                    c = canon_if_id(part) or (facts.canon_id(part) if part[:1].isupper() else None)
                    if c and c not in self.world:
                        self.world.add(c)
                        grew = True
        self.events_read = len(events)
        return grew

    def _name_world(self, episode: Episode, path: Any) -> bool:
        """Adds the names of the records along a trigger's changed ``path`` (a list's too, which
        has no key to be named by); whether any is new."""
        node = getattr(getattr(episode, "env", None), "state", None)
        grew = False
        walked: list[str] = []
        for part in path.split(".") if isinstance(path, str) else ():
            if isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            elif isinstance(node, dict):
                node = node.get(part)
            else:
                break
            walked.append(part)
            name = node.get("name") if isinstance(node, dict) else None
            if isinstance(name, str) and len(name) <= 200:
                words = tuple(WORD.findall(facts.fold(name)))
                if words and words not in self.world_names:
                    self.world_names[words] = ".".join(walked)
                    grew = True
        return grew

    def held(self, episode: Episode, path: str) -> set[Any]:
        """The scalar values ``path`` held before and after each change the episode made to it
        (a call's ``state_diff``, a trigger's ``diff``): what it was, as the events say."""
        events = getattr(episode, "events", None) or []
        for e in events[self.diffs_read :]:
            payload = e.payload if isinstance(e.payload, dict) else {}
            diff = payload.get("state_diff") if e.type == TOOL_RESULT else payload.get("diff")
            for change in diff if e.type in (TOOL_RESULT, TRIGGER_FIRED) and isinstance(diff, list) else ():
                if isinstance(change, dict) and isinstance(change.get("path"), str):
                    values = self.history.setdefault(change["path"], set())
                    for side in ("old", "new", "value"):
                        value = change.get(side)
                        values.add(value if not isinstance(value, dict | list) else _Whole(value))
        self.diffs_read = len(events)
        out = {v for v in self.history.get(path, ()) if not isinstance(v, _Whole)}
        parts = st.split(path)
        for i in range(1, len(parts)):  # a record (or list) holding it, put in place or taken away whole
            whole = self.history.get(".".join(parts[:i]))
            if whole:
                rest = ".".join(parts[i:])
                out |= {st.lookup(w.value, rest, None) for w in whole if isinstance(w, _Whole)}
        out.discard(None)
        return out

    def update(self, episode: Episode) -> None:
        self.state = getattr(getattr(episode, "env", None), "state", None)
        if self._read_world(episode):
            self.support += 1
        version = getattr(episode, "_state_version", None)
        if self.passive and version != self.state_version:  # a passive claim reads the state
            self.support += 1
        self.state_version = version
        view = episode.view
        args: dict[str, Any] = {}
        grew = False
        for item in view[self.seen :]:
            if item.get("type") == "tool_call":
                args[item.get("id", "")] = item.get("args")
                grew = True
            elif item.get("type") == "tool_result":
                named = ids_in(args.get(item.get("id", ""), {}), set()) | ids_in(item.get("result"), set())
                self.known |= named
                result = item.get("result")
                tool = item.get("tool", "")
                spec = episode.tools.get(tool)
                if isinstance(result, dict) and result.get("success") and getattr(spec, "kind", "") == "operation":
                    first = tool not in self.done  # (a claim naming nothing needs one success)
                    done = self.done.setdefault(tool, set())
                    named |= self._held(episode, args.get(item.get("id", ""), {}))
                    if self.named:  # the named records it acted on, by key (P-NOWAK)
                        named_in((args.get(item.get("id", ""), {}), result), self.named, named)
                    if first or not named <= done:
                        done.update(named)
                        self.support += 1
        self.seen = len(view)
        if self.matcher is None or (grew and len(self.known) != len(self.matcher.ids)):
            self.matcher = facts.IdMatcher(self.known, self.aliases)
            self.parsed.clear()
            self.support += 1


# a claim said of "both" or "all" and no noun: "both are cancelled", "all were called off"
_QUANTIFIED = re.compile(r"\s*(?:both|all)\s+(?:of\s+them\s+)?(?:are|were|have|had|got|been)\b")


class _Whole:
    """A record or list a change put in place or took away, kept whole (unhashable as it is)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


_RECORDS: weakref.WeakKeyDictionary[Any, _Record] = weakref.WeakKeyDictionary()


def _record(episode: Episode) -> _Record:
    """The episode's record, as last brought up to date (:func:`_synced` reads what is new)."""
    rec = _RECORDS.get(episode)
    if rec is None:
        rec = _RECORDS[episode] = _Record(episode)
    return rec


def _synced(episode: Episode) -> _Record:
    rec = _record(episode)
    rec.update(episode)
    return rec
