"""One flat row per episode, shared by the Parquet and Inspect exports: who held the seats, the
task's level and conflict subtype, and the three scores (passed, stage score, CA)."""

from __future__ import annotations

from typing import Any

from sttui.exports.transcripts import Transcript


def holders(rec_scores: dict[str, Any] | None, seat: str) -> list[str]:
    """The controllers that took this seat's turns (scores.control), in the order recorded."""
    control = (rec_scores or {}).get("control") or {}
    counts = control.get("agent_steps" if seat == "agent" else "user_turns") or {}
    return [name for name, n in counts.items() if isinstance(n, int) and n > 0]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def provenance(scores: dict[str, Any] | None) -> dict[str, Any] | None:
    """A refined episode's provenance (``sttui refine``): what it was refined from, the edits, the
    editor, and whether it is a verified demonstration; None for any other episode."""
    lineage = (scores or {}).get("lineage")
    if not isinstance(lineage, dict):
        return None
    return {
        "refined_from": lineage.get("refined_from"),
        "edits": lineage.get("edits") or [],
        "editor": lineage.get("editor"),
        "demonstration": (scores or {}).get("demonstration") is True,
        "verification": lineage.get("verification"),
    }


def is_demonstration(scores: dict[str, Any] | None) -> bool:
    """A refined episode whose verification passed and that was saved as a demonstration."""
    found = provenance(scores)
    return bool(found and found["demonstration"] and (found["verification"] or {}).get("passed") is True)


def episode_row(t: Transcript) -> dict[str, Any]:
    rec = t.record
    scores = rec.scores or {}
    found = scores.get("review")
    review = found if isinstance(found, dict) else {}
    passed = (rec.outcome or {}).get("passed")
    return {
        "episode_id": rec.id,
        "task_id": rec.task_id,
        "task_hash": rec.task_hash,
        "kind": rec.kind,
        "domain": t.meta.get("domain"),
        "level": t.meta.get("level"),
        "subtype": t.meta.get("conflict") or t.meta.get("family"),  # stt conflict, explore rule family
        "agent": rec.agent,
        "user": rec.user,
        "agent_holders": holders(scores, "agent"),
        "user_holders": holders(scores, "user"),
        "status": rec.status,
        "passed": passed if isinstance(passed, bool) else None,
        "stage_score": _number(review.get("score")),
        "calibrated_accuracy": _number(scores.get("calibrated_accuracy")),
        "seed": rec.seed,
        "setting": rec.setting,
        "steps": rec.steps,
        "started_at": rec.started_at,
        "ended_at": rec.ended_at,
    }


def model_usage(t: Transcript) -> dict[str, dict[str, Any]]:
    """Tokens and cost per model, from the model calls the record holds (none for people and
    baselines)."""
    out: dict[str, dict[str, Any]] = {}
    for e in t.events:
        if e.type != "model_call":
            continue
        p = e.payload
        u = out.setdefault(str(p.get("model") or e.actor), {"calls": 0, "input": 0, "output": 0, "cost": None})
        u["calls"] += 1
        u["input"] += int(p.get("prompt_tokens") or 0)
        u["output"] += int(p.get("completion_tokens") or 0)
        if isinstance(p.get("cost"), int | float):
            u["cost"] = (u["cost"] or 0.0) + float(p["cost"])
    return out
