"""Two ways a ``tell`` item can judge a fair report unfairly, found on the solution's run and
said as notes by ``sttui check`` (task format §5): a fact read through a record number that
the agent's own call made (another order of work numbers it otherwise), and several facts of
one kind with no ``about`` (unless each is named by its place: "first flight", "second flight"),
or one with none beside others of its kind with theirs (a report that gives one's value to
another passes)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from sttui.core import events as ev

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.task import ChecklistItem, SttTask


def tell_notes(task: SttTask, episode: Episode) -> list[str]:
    """The notes for ``task``'s ``tell`` facts, ``episode`` being its solution's run."""
    from sttui.core.report_labels import named_in_order  # (the judge's reading: only when a task is checked)

    made = {
        d["path"]
        for e in episode.events
        if e.type == ev.TOOL_RESULT
        for d in e.payload.get("state_diff") or []
        if d.get("op") == "added" and isinstance(d.get("new"), dict)  # a new record, not a field
    }
    out: list[str] = []
    for section in ("checklist", "static_checklist"):
        for item in getattr(task, section) or []:
            kinds: dict[str, list[str]] = defaultdict(list)
            owned: dict[str, list[str]] = defaultdict(list)  # kind -> the facts with about
            for fact in item.tell or []:
                if fact.kind is not None and not fact.about:
                    kinds[fact.kind].append(fact.fact)
                elif fact.kind is not None:
                    owned[fact.kind].append(fact.fact)
                if fact.path is None or fact.where:
                    continue
                keys = fact.path.split(".")
                records = (".".join(keys[:n]) for n in range(2, len(keys)))  # table.key, deeper; not the field
                record = next((r for r in records if r in made), None)
                if record is not None:
                    star = ".".join([*keys[: record.count(".")], "*", *keys[record.count(".") + 1 :]])
                    out.append(
                        f"{section} {item.id}: fact '{fact.fact}' reads {fact.path}, a record the solution's own "
                        f"call made: worked in another order it gets another number; pick it by what it is for "
                        f"with path: {star} and where (task format §5)"
                    )
            for kind, names in kinds.items():
                if len(names) == 1 and owned[kind]:
                    out.append(
                        f"{section} {item.id}: fact '{names[0]}' has no about, unlike {', '.join(owned[kind])} of "
                        f"kind {kind}: a report giving it another's value (said of its name) passes; give it the "
                        "name of its own (about, task format §5)"
                    )
                elif len(names) > 1 and not (
                    (kind in ("id", "text") and _apart(episode, item, names)) or named_in_order(names)
                ):
                    out.append(
                        f"{section} {item.id}: facts {', '.join(names)} are all of kind {kind}, none with about: "
                        "a report giving one's value to another passes; if they belong to different things, "
                        "give each the name of its own (about, task format §5)"
                    )
    return out


def _apart(episode: Episode, item: ChecklistItem, names: list[str]) -> bool:
    """Whether id or text facts can be told apart by their values alone: no value is a rival
    of two of them (a generator's GEN-5 is never read as the crew's, CR-61; a caterer is no
    venue), on the solution's run."""
    from sttui.core.reports import resolved_facts

    seen: set[object] = set()
    for fact in resolved_facts(episode, item):
        if fact.name not in names:
            continue
        if fact.problem is not None:
            return False
        ids = {r if isinstance(r, str) else tuple(r) for r in fact.rivals}
        if ids & seen:
            return False
        seen |= ids
    return True
