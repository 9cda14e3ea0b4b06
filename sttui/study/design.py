"""A study's design: its tasks resolved to exact versions, who plays which task, and in what order.

- **Who.** Task i (in the file's order) goes to the ``replication`` participants that follow
  participant i mod P: distinct people (so nobody plays a task twice) and loads that differ by
  at most one when P divides the slots evenly, by a little more otherwise. It needs at least
  ``replication`` participants.
- **Order.** ``latin-square``: a balanced Latin square (Williams design) over the blocks: every
  block comes first equally often and follows every other block equally often, so practice
  and fatigue effects spread over the tasks (an odd number of blocks needs the square and its
  mirror, 2n rows). Participant p takes row p mod rows. ``random-blocks``: each participant's
  blocks shuffled with their own seeded generator. Within a block, tasks keep the file's order.
- Practice tasks come first for everyone and are never scored.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sttui.core.loader import LoadedTask, load_task
from sttui.core.problems import Problem, TaskFileError, did_you_mean, display_path
from sttui.core.settings import NAMED, from_name
from sttui.core.taskindex import discover
from sttui.core.yamlio import line_of
from sttui.study.spec import MAX_ANONYMOUS, MAX_REPLICATION, LoadedStudy, Study

Line = Callable[..., int | None]  # the line of a location in the study file (``LoadedStudy.line``)


@dataclass(frozen=True)
class Slot:
    """One task a participant plays: their ``position`` in their order (practice first, from 0)."""

    participant: str
    position: int
    task_id: str
    practice: bool
    replication: int  # which of the task's replications this is (1-based); 0 for practice


@dataclass
class Design:
    """Every participant's slots, and what makes the design impossible (empty when it can be met)."""

    slots: list[Slot] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def of(self, participant: str) -> list[Slot]:
        return [s for s in self.slots if s.participant == participant]

    def who_sees(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for s in self.slots:
            if not s.practice:
                out.setdefault(s.task_id, []).append(s.participant)
        return out


def williams(n: int) -> list[list[int]]:
    """A balanced Latin square of n treatments (rows: orders). Odd n: the square and its mirror."""
    return [williams_row(n, i) for i in range(williams_rows(n))]


def williams_rows(n: int) -> int:
    return 0 if n < 1 else 1 if n == 1 else n if n % 2 == 0 else 2 * n


def williams_row(n: int, i: int) -> list[int]:
    """Row ``i`` of ``williams(n)``, made alone (a study of many blocks needs only its participants' rows)."""
    if n == 1:
        return [0]
    first = [0]
    lo, hi = 1, n - 1
    while len(first) < n:
        first.append(lo)
        lo += 1
        if len(first) < n:
            first.append(hi)
            hi -= 1
    row = [(x + i % n) % n for x in first]
    return row[::-1] if i >= n else row


def blocks_of(study: Study, task_ids: list[str]) -> list[list[str]]:
    if study.order.blocks is None:
        return [[t] for t in task_ids]
    return [list(b) for b in study.order.blocks]


def design(study: Study, task_ids: list[str]) -> Design:
    """Who plays what, in which order: a pure function of the study and its resolved task ids."""
    names = study.names
    out = Design()
    p, r = len(names), study.replication
    if p < r:
        out.problems.append(too_few(len(task_ids), r, p))
        return out
    mine: dict[str, set[str]] = {n: set() for n in names}
    rep: dict[tuple[str, str], int] = {}
    for i, task in enumerate(task_ids):
        for k in range(r):
            who = names[(i + k) % p]
            mine[who].add(task)
            rep[(who, task)] = k + 1
    blocks = blocks_of(study, task_ids)
    n = len(blocks)
    rows = williams_rows(n)
    where = {task: (b, k) for b, block in enumerate(blocks) for k, task in enumerate(block)}
    inverse = {x: k for k, x in enumerate(williams_row(n, 0))} if n else {}
    for j, name in enumerate(names):
        if study.order.design == "latin-square":
            i = j % rows
            shift = i % n

            def latin_rank(block: int, i: int = i, shift: int = shift) -> int:
                k = inverse[(block - shift) % n]  # where the block stands in row i
                return n - 1 - k if i >= n else k

            rank: Callable[[int], int] = latin_rank

        else:
            order = list(range(n))
            random.Random(f"{study.order.seed}:{name}").shuffle(order)
            ranks = {b: k for k, b in enumerate(order)}
            rank = ranks.__getitem__
        position = 0
        for task in study.practice:
            out.slots.append(Slot(name, position, task, True, 0))
            position += 1
        for task in sorted(mine[name], key=lambda t: (rank(where[t][0]), where[t][1])):
            out.slots.append(Slot(name, position, task, False, rep[(name, task)]))
            position += 1
    return out


def too_few(tasks: int, replication: int, people: int) -> str:
    return (
        f"{tasks} task(s) × {replication} replication(s) needs at least {replication} participants (each plays "
        f"a task at most once); the study has {people}"
    )


@dataclass
class Resolved:
    """The study's scored and practice tasks, loaded (exact versions), in the file's order."""

    tasks: list[LoadedTask]
    practice: list[LoadedTask]

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.tasks]

    def hashes(self) -> dict[str, str]:
        return {t.id: t.content_hash for t in [*self.practice, *self.tasks]}

    def by_id(self) -> dict[str, LoadedTask]:
        return {t.id: t for t in [*self.practice, *self.tasks]}


@dataclass(frozen=True)
class Named:
    """What the task checks read of a study: of a valid one, or the well-formed parts of a file
    that failed other checks (an entry that is not text is None; a setting or seat that is not
    one is None and not checked against the tasks; blocks that are not lists of lists, None)."""

    tasks: Sequence[str | None]
    practice: Sequence[str | None]
    setting: str | None
    seat: str | None
    blocks: Sequence[Sequence[str | None]] | None

    @classmethod
    def of(cls, study: Study) -> Named:
        return cls(study.tasks, study.practice, study.setting, study.seat, study.order.blocks)

    @classmethod
    def written(cls, data: dict[str, Any]) -> Named:
        order = data.get("order")
        blocks = order.get("blocks") if isinstance(order, dict) else None
        if not (isinstance(blocks, list) and all(isinstance(b, list) for b in blocks)):
            blocks = None
        setting, seat = data.get("setting", "default"), data.get("seat", "agent")
        return cls(
            _texts(data.get("tasks")),
            _texts(data.get("practice")),
            setting if isinstance(setting, str) and setting in NAMED else None,
            seat if seat in ("agent", "user") else None,
            None if blocks is None else [_texts(b) for b in blocks],
        )


def _texts(value: Any) -> list[str | None]:
    return [v if isinstance(v, str) else None for v in value] if isinstance(value, list) else []


def resolve(loaded: LoadedStudy, tasks_dir: Path) -> Resolved:
    """Load every task the study names (an id under ``tasks_dir``, or a file or folder, relative
    to the study file first); TaskFileError with each problem at its line in the study file."""
    resolved, problems = _resolve(Named.of(loaded.study), loaded.path, loaded.line, tasks_dir)
    if problems:
        raise TaskFileError(problems)
    return resolved


def file_problems(data: dict[str, Any], lines: dict[Any, int], path: Path, tasks_dir: Path) -> list[Problem]:
    """``resolve``'s problems, and a design that needs more participants than the file names,
    for a study file that failed its own checks: what it names is well-formed enough to look
    up, so its author learns of an unknown task in the same run as of a bad name."""

    def line(*loc: str | int) -> int | None:
        return line_of(lines, loc)

    named = Named.written(data)
    _, problems = _resolve(named, path, line, tasks_dir)
    people, replication = _people(data.get("participants")), data.get("replication", 3)
    tasks = len({t for t in named.tasks if t is not None})
    if people and type(replication) is int and people < replication <= MAX_REPLICATION:
        problems.append(
            Problem(display_path(path), line("replication"), "replication", too_few(tasks, replication, people))
        )
    return problems


def _people(value: Any) -> int:
    """How many participants the file names (0 when that is not clear)."""
    if isinstance(value, list):
        return len(value)
    n = value.get("anonymous") if isinstance(value, dict) else None
    return n if type(n) is int and 1 <= n <= MAX_ANONYMOUS else 0


def _resolve(named: Named, path: Path, line: Line, tasks_dir: Path) -> tuple[Resolved, list[Problem]]:
    """The tasks, and every problem with them: not found, not loading, one task named twice
    (by two spellings: an entry written twice is the study file's own problem), a setting or
    seat the task has not, the blocks."""
    from sttui.core.taskindex import index

    name = display_path(path)
    problems: list[Problem] = []
    found: dict[str, list[LoadedTask]] = {"tasks": [], "practice": []}
    known: list[str] | None = None
    written: set[str] = set()
    missing: set[str] = set()  # entries reported here: a block naming one is not reported again
    for section in ("tasks", "practice"):
        for i, entry in enumerate(getattr(named, section)):
            if entry is None or entry in written:
                continue
            written.add(entry)
            where = (name, line(section, i), f"{section}[{i}]")
            target = _as_path(entry, path.parent)
            try:
                if target is not None:
                    files = discover([target])
                    if not files:
                        problems.append(Problem(*where, f"no task files under {entry}"))
                        missing.add(entry)
                    found[section] += [load_task(f) for f in files]
                    continue
                hit = index().find(entry, [tasks_dir])
                if hit is None:
                    if known is None:
                        known = [e.id for e in index().scan([tasks_dir]) if e.id]
                    problems.append(Problem(*where, f"no task '{entry}' under {tasks_dir}{did_you_mean(entry, known)}"))
                    missing.add(entry)
                    continue
                found[section].append(load_task(hit.path))
            except TaskFileError as exc:
                first = exc.problems[0]
                more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
                problems.append(Problem(*where, f"the task does not load: {first}{more}"))
                missing.add(entry)
    resolved = Resolved(found["tasks"], found["practice"])
    problems += _task_problems(named, name, line, resolved)
    problems += _block_problems(named.blocks, name, line, resolved.ids, missing)
    return resolved, problems


def _task_problems(named: Named, name: str, line: Line, resolved: Resolved) -> list[Problem]:
    out: list[Problem] = []
    seen: set[str] = set()
    for t in [*resolved.tasks, *resolved.practice]:
        if t.id in seen:
            out.append(Problem(name, line("tasks"), "tasks", f"task '{t.id}' is named twice"))
        seen.add(t.id)
        if named.setting is not None:
            try:
                from_name(named.setting, t.kind)
            except ValueError as exc:
                out.append(Problem(name, line("setting"), "setting", f"{t.id}: {exc}"))
        if named.seat == "user" and t.kind != "stt":
            out.append(Problem(name, line("seat"), "seat", f"{t.id} is an explore task: it has no user seat"))
    return out


def _as_path(entry: str, base: Path) -> Path | None:
    if "/" not in entry and not entry.endswith((".yaml", ".yml")):
        return None
    for root in (base, Path.cwd()):
        candidate = root / entry
        if candidate.exists():
            return candidate
    return Path(entry)


def _block_problems(
    blocks: Sequence[Sequence[str | None]] | None, name: str, line: Line, ids: list[str], missing: set[str]
) -> list[Problem]:
    """Each block entry that is not one of the study's tasks (one already reported as not found
    is left alone) or is in a block already, and every task left out of the blocks."""
    if blocks is None:
        return []
    out: list[Problem] = []
    placed: dict[str, int] = {}
    for b, block in enumerate(blocks):
        if not block:
            out.append(Problem(name, line("order", "blocks", b), f"order.blocks[{b}]", "expected task ids"))
        for j, task in enumerate(block):
            if task is None or task in missing:
                continue
            where = (line("order", "blocks", b, j), f"order.blocks[{b}][{j}]")
            if task not in ids:
                out.append(Problem(name, *where, f"'{task}' is not one of the study's tasks{did_you_mean(task, ids)}"))
            elif task in placed:
                out.append(Problem(name, *where, f"'{task}' is already in block {placed[task]}"))
            placed[task] = b
    left = [t for t in ids if t not in placed]
    if left:
        out.append(
            Problem(
                name,
                line("order", "blocks"),
                "order.blocks",
                f"every task must be in a block; missing: {', '.join(left)}",
            )
        )
    return out


def summary(study: Study, resolved: Resolved, plan: Design) -> dict[str, Any]:
    """What ``sttui study check`` says about the design, as data."""
    loads = {n: sum(1 for s in plan.of(n) if not s.practice) for n in study.names}
    return {
        "id": study.id,
        "tasks": len(resolved.tasks),
        "practice": [t.id for t in resolved.practice],
        "replication": study.replication,
        "participants": len(study.names),
        "anonymous": study.anonymous,
        "order": study.order.design,
        "slots": sum(loads.values()),
        "tasks_per_participant": {"min": min(loads.values(), default=0), "max": max(loads.values(), default=0)},
        "who_sees": plan.who_sees(),
        "design_problems": plan.problems,
    }
