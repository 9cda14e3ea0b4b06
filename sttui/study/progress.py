"""Where a study stands, for the experimenter (``sttui study status``): each participant's
progress, time on task and outcomes, each task's replication reached, and the slots that are
stuck (assigned, but with no episode, or running far past the time a task should take)."""

from __future__ import annotations

import time
from typing import Any

from sttui.study.spec import Study

STUCK_AFTER = 3600.0
LIMIT_REASONS = (
    "time limit of",
    "step limit of",
)  # how the episode says the system ended it  # seconds an episode may run when the study sets no time limit


def outcome_of(row: Any) -> str | None:
    """``pass``, ``fail``, ``limit`` (the time or step limit ended it), or the episode's status."""
    status: str | None = row.episode_status
    if status is None or status == "running":
        return None
    if status != "completed":
        return status
    if (row.outcome or {}).get("passed"):
        return "pass"
    return "limit" if (row.end_reason or "").startswith(LIMIT_REASONS) else "fail"


def active_seconds(row: Any) -> float | None:
    value = (row.scores or {}).get("human_active_seconds")
    return float(value) if isinstance(value, int | float) else None


def progress(study: Study, people: list[Any], slots: list[Any], now: float | None = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    limit = study.time_limit.minutes * 60 if study.time_limit else None
    stuck_after = 2 * limit if limit else STUCK_AFTER
    participants = []
    by_person: dict[str, list[Any]] = {}  # (grouped once: a study may hold 2,000 people and 30,000 slots)
    for s in slots:
        by_person.setdefault(s.participant, []).append(s)
    for p in people:
        mine = by_person.get(p.name, [])
        scored = [s for s in mine if not s.practice]
        outcomes: dict[str, int] = {}
        seconds = 0.0
        for s in scored:
            o = outcome_of(s)
            if o is not None:
                outcomes[o] = outcomes.get(o, 0) + 1
                seconds += active_seconds(s) or 0.0
        current = next((s for s in mine if s.status == "assigned" and outcome_of(s) is None), None)
        done = sum(1 for s in scored if outcome_of(s) is not None)
        finished = p.status == "active" and scored and done == len(scored)  # (nothing left to play)
        participants.append(
            {
                "participant": p.name,
                "joined_as": p.joined_as,
                "status": "finished" if finished else p.status,
                "acknowledged": p.acknowledged_at is not None,
                "done": done,
                "total": len(scored),
                "practice_done": all(outcome_of(s) is not None for s in mine if s.practice),
                "seconds_on_task": round(seconds, 1),
                "outcomes": outcomes,
                "current": current.task_id if current is not None else None,
            }
        )
    tasks: dict[str, dict[str, Any]] = {}
    for s in slots:
        if s.practice:
            continue
        t = tasks.setdefault(s.task_id, {"task": s.task_id, "reached": 0, "planned": 0, "withdrawn": 0})
        t["planned"] += 1
        if s.status == "withdrawn":
            t["withdrawn"] += 1
        elif outcome_of(s) is not None:
            t["reached"] += 1
    stuck = []
    for s in slots:
        if s.status != "assigned":
            continue
        if s.episode_status is None and s.assigned_at is not None and now - s.assigned_at > 60:
            why = "assigned, but its episode was never opened (the session closed before it started)"
        elif s.episode_status == "running" and s.started_at is not None and now - s.started_at > stuck_after:
            why = f"running for {int((now - s.started_at) // 60)} min (episode {s.episode_id})"
        else:
            continue
        stuck.append({"participant": s.participant, "task": s.task_id, "position": s.position, "why": why})
    return {
        "study": study.id,
        "replication": study.replication,
        "participants": participants,
        "tasks": list(tasks.values()),
        "stuck": stuck,
    }


def render(found: dict[str, Any]) -> list[str]:
    lines = [f"study {found['study']}: replication {found['replication']} per task"]
    people = [(p["participant"] + (f" ({p['joined_as']})" if p["joined_as"] else ""), p) for p in found["participants"]]
    width = max([16, *(len(who) for who, _ in people)])  # (a long name or joined-as keeps the columns)
    lines.append(f"{'participant':<{width}} {'status':<10} {'done':>7} {'time':>8}  outcomes")
    for who, p in people:
        outs = ", ".join(f"{k} {v}" for k, v in sorted(p["outcomes"].items())) or "-"
        mins = p["seconds_on_task"] / 60
        now = f"  now: {p['current']}" if p["current"] else ""
        done = f"{p['done']}/{p['total']}"
        lines.append(f"{who:<{width}} {p['status']:<10} {done:>7} {mins:>7.1f}m  {outs}{now}")
    lines.append("tasks (replication reached / planned):")
    for t in found["tasks"]:
        gone = f", {t['withdrawn']} withdrawn" if t["withdrawn"] else ""
        lines.append(f"  {t['task']}: {t['reached']}/{t['planned']}{gone}")
    if found["stuck"]:
        lines.append("stuck slots:")
        lines += [f"  {s['participant']} · {s['task']} (position {s['position']}): {s['why']}" for s in found["stuck"]]
    else:
        lines.append("stuck slots: none")
    return lines
