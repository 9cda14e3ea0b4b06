"""A study as one file: the jsonl export (header, episodes with their task versions and events,
trailer) with a ``study`` record after the header: the manifest (the study file's text and
parsed form, the task versions' hashes, its participants without their tokens, its slots).
``sttui import`` of the file on another machine gives the same ``sttui study report``, digit
for digit: the report reads only what the bundle carries, and its bootstrap is seeded.

The bundle holds the study's episodes and every other episode on its tasks (the models and
baselines the report pairs with the humans)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import insert, select

from sttui.store.studies import PEOPLE, SLOTS, STUDIES, Studies, StudyProblem

SLOT_FIELDS = (
    "participant",
    "position",
    "task_id",
    "task_hash",
    "practice",
    "replication",
    "status",
    "episode_id",
    "assigned_at",
    "done_at",
)
PERSON_FIELDS = ("idx", "name", "joined_as", "status", "acknowledged_at", "joined_at", "withdrawn_at")


def manifest(store: Any, study_id: str) -> dict[str, Any]:
    studies = Studies(store)
    row = studies.study(study_id)
    if row is None:
        raise StudyProblem(f"no study '{study_id}' in the record")
    return {
        "record": "study",
        "study": {
            "id": row.id,
            "digest": row.digest,
            "source": row.source,
            "spec": row.spec,
            "tasks": row.tasks,
            "created_at": row.created_at,
        },
        "participants": [{k: getattr(p, k) for k in PERSON_FIELDS} for p in studies.people(study_id)],
        "slots": [{k: getattr(s, k) for k in SLOT_FIELDS} for s in studies.slots(study_id)],
    }


def bundle_lines(store: Any, study_id: str) -> Iterator[str]:
    from sttui.exports.jsonl import jsonl_lines

    found = manifest(store, study_id)
    tasks = sorted(found["study"]["tasks"])
    ids = {s["episode_id"] for s in found["slots"] if s["episode_id"]}
    records = [r for t in tasks for r in store.iter_episodes(task=t) if r.task_id == t]
    records = [r for r in records if r.status != "running" or r.id in ids]
    lines = jsonl_lines(store, sorted(records, key=lambda r: r.id))
    yield next(lines)
    yield json.dumps(found, sort_keys=True)
    yield from lines


class _Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    record: str
    study: dict[str, Any]
    participants: list[dict[str, Any]] = Field(max_length=100_000)
    slots: list[dict[str, Any]] = Field(max_length=1_000_000)


def check_manifest(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """A bundle's study record, checked before anything is written (ImportProblem otherwise)."""
    from sttui.exports.importing import ImportProblem
    from sttui.study.spec import Study

    try:
        found = _Manifest.model_validate(obj)
        Study.model_validate(found.study.get("spec"))
        for key in ("id", "digest", "source", "tasks", "created_at"):
            if key not in found.study:
                raise ImportProblem(f"{where}: the study record lacks '{key}'")
        for s in found.slots:
            if set(s) != set(SLOT_FIELDS):
                raise ImportProblem(f"{where}: a slot has the fields {sorted(s)}; expected {list(SLOT_FIELDS)}")
        for p in found.participants:
            if set(p) != set(PERSON_FIELDS):
                raise ImportProblem(f"{where}: a participant has the fields {sorted(p)}")
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ImportProblem(f"{where}: the study record: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    return obj


def write_manifest(conn: Any, found: dict[str, Any]) -> bool:
    """Write an imported study unless it is here (True: written); another study under its id is refused."""
    study = found["study"]
    row = conn.execute(select(STUDIES.c.digest).where(STUDIES.c.id == study["id"])).first()
    if row is not None:
        if row.digest != study["digest"]:
            from sttui.exports.importing import ImportProblem

            raise ImportProblem(f"a different study '{study['id']}' is in this record already")
        return False
    conn.execute(insert(STUDIES).values(**study))
    conn.execute(insert(PEOPLE), [{**p, "study_id": study["id"], "token": None} for p in found["participants"]])
    if found["slots"]:
        conn.execute(insert(SLOTS), [{**s, "study_id": study["id"]} for s in found["slots"]])
    return True
