"""Two recorded episodes side by side: their agent steps aligned by tool and arguments
(``sttui.core.divergence``), the first step where they differ in kind, and what makes the
comparison less than like for like. ``sttui compare`` prints it or shows it; replay opens it."""

from __future__ import annotations

from typing import Any

from sttui.core.divergence import agent_steps, compare_steps


def compare_episodes(store: Any, episode_a: str, episode_b: str) -> dict[str, Any]:
    """The comparison as plain data; StoreError for an episode that is not in the record."""
    a, b = store.episode(episode_a), store.episode(episode_b)
    found = compare_steps(agent_steps(a.kind, store.events(a.id)), agent_steps(b.kind, store.events(b.id)))
    notes = []
    if a.task_id != b.task_id:
        notes.append(
            f"the episodes are of different tasks ({a.task_id}, {b.task_id}): aligned by tool and arguments only"
        )
    elif a.task_hash != b.task_hash:
        notes.append("the episodes ran on different versions of the task")
    return {
        "a": {"id": a.id, "task": a.task_id, "agent": a.agent, "passed": (a.outcome or {}).get("passed")},
        "b": {"id": b.id, "task": b.task_id, "agent": b.agent, "passed": (b.outcome or {}).get("passed")},
        **found,
        "notes": notes,
    }


def partner_for(store: Any, record: Any) -> str | None:
    """The episode a replay of ``record`` is most likely compared with: the latest other finished
    episode of the same task by the other kind of player (a model for a person, a person for a
    model), else any other finished episode of the task."""
    human = (record.agent or "").startswith("human")
    others = [r for r in store.iter_episodes(task=record.task_id) if r.id != record.id and r.task_id == record.task_id]
    others = [r for r in others if r.status != "running"] or others
    other_kind = [r for r in others if (r.agent or "").startswith("human") != human]
    pick = sorted(other_kind or others, key=lambda r: str(r.started_at or ""))
    return pick[-1].id if pick else None
