"""Home's rows as plain data: a task's row and its brief (built from the task index's entry,
without loading the task), the task table's column widths and how a long id is cut, and the
sessions' rows with their origin and my results per task.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from sttui.core.problems import display_path
from sttui.core.taxonomy import LEVELS

if TYPE_CHECKING:
    from sttui.core.loader import LoadedTask

COLUMNS = ("id", "subtype", "level", "mine", "title")
SESSION_COLUMNS = ("id", "status", "outcome", "baseline", "task", "agent", "user", "steps", "stages", "started")


# -- a task's row and its brief (plain data, built without loading the task) -------------------


@dataclass
class TaskRow:
    id: str
    kind: str
    domain: str
    subtype: str
    level: str
    title: str
    brief: str
    mine: str = ""

    def cells(self) -> tuple[str, ...]:
        return (self.id, self.subtype, self.level, self.mine, self.title)

    def haystack(self) -> str:
        """What the filter looks in: every column, and the kind and domain besides."""
        return " ".join((*self.cells(), self.kind, self.domain)).lower()

    def sort_key(self, column: str) -> tuple[int, str]:
        if column == "level":
            return (LEVELS.index(self.level) if self.level in LEVELS else 99, self.id)
        return (0, getattr(self, column))


def _made(
    task_id: str, kind: str, domain: str, title: str, path: Path, subtype: str, level: str, opening: str
) -> TaskRow:
    """A task's row with its brief under the table, its words shown as written: a title holding
    ``[/]`` had stopped home, and ``[red]`` in a query had coloured it. ``opening``: the user's
    query (stt) or the scenario (explore, whose ``subtype`` is its rule's family)."""
    if kind == "explore":
        level, shown = "-", f"[i]Scenario:[/i] {escape(opening.strip())}"
    else:
        shown = f"[i]User:[/i] {escape(opening)}"
    # the id and file above the opening, which a small window cuts short; no mark between them
    # (one left at the end of a line when the file goes on to the next)
    brief = (
        f"[b]{escape(title)}[/b]  ({escape(domain)}, {escape(subtype)}, {escape(level)})\n"
        f"[dim]{escape(task_id)}  {escape(display_path(path))}[/dim]\n{shown}"
    )
    return TaskRow(task_id, kind, domain, subtype, level, title, brief)


def task_row(t: LoadedTask) -> TaskRow:
    from sttui.core.explore.task import ExploreTask  # loaded with the task already

    task = t.task
    if isinstance(task, ExploreTask):
        return _made(task.id, task.kind, task.domain, task.title, t.path, task.rule.family, "-", task.scenario)
    return _made(task.id, task.kind, task.domain, task.title, t.path, task.conflict, task.level, task.query)


def entry_row(e: Any) -> TaskRow:
    """``task_row`` from the task index's entry for the file: the same row, nothing loaded."""
    subtype = e.family if e.kind == "explore" else e.conflict
    return _made(e.id, e.kind, e.domain, e.title, e.path, subtype, e.level, e.opening)


SESSIONS_PAGE = 500  # sessions read at a time
_FIXED = {"subtype": 13, "level": 10, "mine": 6}  # lexicographic, impossible, "3 done"


def column_widths(screen_width: int, rows: list[TaskRow]) -> dict[str, int]:
    """The task table's column widths at ``screen_width``: subtype, level and mine fixed, the
    id and the title sharing the rest (the id no wider than the longest, and at most 45 % of
    it), so that every column is on screen at 80 columns and long titles show at 120."""
    longest_id = max((len(r.id) for r in rows), default=40)
    longest_title = max((len(r.title) for r in rows), default=40)
    rest = max(20, screen_width - 4 - sum(w + 2 for w in _FIXED.values()) - 2 * 2)  # (cell padding, a scrollbar)
    id_width = max(16, min(longest_id, int(rest * 0.45), rest - min(longest_title, rest // 2)))
    return {"id": id_width, **_FIXED, "title": max(8, rest - id_width)}


def shown_ids(ids: list[str], width: int) -> dict[str, str]:
    """Each id as its column shows it at ``width``: whole when it fits, else cut at the end
    ("air-barbados-lh…"); ids whose cut ends would look alike ("cybersecurity-a…" for the
    seeds of one explore family) are cut in the middle instead, so their ends tell them apart
    ("cybersec…itive-1", "cybersec…itive-2"). The whole id is under the table."""
    if width < 5:
        return {i: i[:width] for i in ids}
    cut = {i: i if len(i) <= width else i[: width - 1] + "…" for i in ids}
    seen: dict[str, int] = {}
    for c in cut.values():
        seen[c] = seen.get(c, 0) + 1
    tail = (width - 1) // 2
    return {i: (c if seen[c] == 1 or c == i else f"{i[: width - 1 - tail]}…{i[-tail:]}") for i, c in cut.items()}


# -- the sessions' rows ------------------------------------------------------------------------


def _origin(r: Any, forks: dict[str, dict[str, Any]]) -> str:
    """Where an episode came from, as ``sttui sessions`` says it: a fork's episode and row, or
    the episode a refinement was made from."""
    fork = forks.get(r.id) or ((r.scores or {}).get("lineage") or {}).get("forked_from")
    if isinstance(fork, dict) and fork.get("episode"):
        return f" (fork of {fork['episode']}@{fork.get('seq')})"
    refined = ((r.scores or {}).get("lineage") or {}).get("refined_from")
    return f" (refined from {refined})" if refined else ""


def session_cells(r: Any, forks: dict[str, dict[str, Any]] | None = None) -> tuple[str, ...]:
    """A session's row in the sessions pane (``SESSION_COLUMNS``); a seat that changed hands
    reads ``mixed (…)``, as in ``sttui sessions``."""
    from datetime import datetime

    from sttui.core.control import seat_label, valid_control

    if r.outcome is not None:
        outcome = "pass" if r.outcome.get("passed") else "fail"
    elif r.scores and r.scores.get("calibrated_accuracy") is not None:
        outcome = f"CA {r.scores['calibrated_accuracy']:.0%}"
    else:
        outcome = "-"
    started = datetime.fromtimestamp(r.started_at).strftime("%m-%d %H:%M")
    review = (r.scores or {}).get("review")
    stages = f"{review['score']:.2f} · {review['settled']}/{review['milestones']}" if review else "-"
    control = valid_control((r.scores or {}).get("control"))
    cells = {
        "id": r.id + _origin(r, forks or {}),
        "status": r.status,
        "outcome": outcome,
        "baseline": clean_mark(r),
        "task": r.task_id,
        "agent": seat_label(r.agent, control.get("agent_steps")) if control else r.agent,
        "user": seat_label(r.user, control.get("user_turns")) if control else (r.user or "-"),
        "steps": str(r.steps),
        "stages": stages,
        "started": started,
    }
    return tuple(cells[c] for c in SESSION_COLUMNS)


def forks_of(store: Any, records: list[Any]) -> dict[str, dict[str, Any]]:
    """The forks among a page of sessions, running ones included (a finished fork's lineage is
    in its scores too): one query, then the forks' own start events."""
    from sttui.lineage.forks import forks_among

    return forks_among(store, [r.id for r in records])


def mine_by_task(records: list[Any]) -> dict[str, str]:
    """Per task: how often I played it and how the last one went."""
    by_task: dict[str, list[Any]] = {}
    for r in records:  # (grouped once: a list scanned per task was quadratic in my sessions)
        by_task.setdefault(r.task_id, []).append(r)
    out: dict[str, str] = {}
    for task_id, runs in by_task.items():
        last = runs[0]
        if last.outcome is not None:
            verdict = "pass" if last.outcome.get("passed") else "fail"
        elif last.scores and last.scores.get("calibrated_accuracy") is not None:
            verdict = f"CA {last.scores['calibrated_accuracy']:.0%}"
        else:
            verdict = last.status
        out[task_id] = f"{len(runs)}× last {verdict}"
    return out


def clean_mark(record: Any) -> str:
    """Whether an episode is a clean baseline: no god view, no seat handed to a model."""
    return "clean" if record.clean_baseline else "✱ not clean"
