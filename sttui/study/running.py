"""Starting a study in the record and finding a participant's next task there.

A started study is read back from the record, never from its file: its parsed form and the
hashes of its task versions were stored when it started, and each task is opened from the
stored version (``sttui.exports.versions.open_stored``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sttui.core.loader import LoadedTask
from sttui.core.problems import TaskFileError
from sttui.store.studies import Assignment, Studies, StudyProblem, new_token
from sttui.study.design import Design, Resolved, design, resolve
from sttui.study.spec import STORED, LoadedStudy, Study, load_study


@dataclass
class Started:
    loaded: LoadedStudy
    resolved: Resolved
    plan: Design
    created: bool
    tokens: dict[str, str] = field(default_factory=dict)  # each anonymous slot's token, when this call made them


def start(store: Any, path: Path, tasks_dir: Path) -> Started:
    """Validate, resolve and design the study and store it with its task versions (once).
    TaskFileError for a bad file or task; StudyProblem for a design that cannot be met or
    another file under a started id."""
    loaded = load_study(path)
    resolved = resolve(loaded, tasks_dir)
    plan = design(loaded.study, resolved.ids)
    if plan.problems:
        raise StudyProblem(plan.problems[0])
    for task in [*resolved.practice, *resolved.tasks]:
        store.register_task(task)
    hashes = resolved.hashes()
    slots = [
        {
            "participant": s.participant,
            "position": s.position,
            "task_id": s.task_id,
            "task_hash": hashes[s.task_id],
            "practice": s.practice,
            "replication": s.replication,
        }
        for s in plan.slots
    ]
    tokens = {name: new_token() for name in loaded.study.names} if loaded.study.anonymous else {}
    created = Studies(store).start(
        study_id=loaded.study.id,
        digest=loaded.digest,
        source=loaded.text,
        spec=loaded.study.model_dump(mode="json"),
        tasks=hashes,
        names=loaded.study.names,
        anonymous=loaded.study.anonymous,
        slots=slots,
        tokens=tokens,
    )
    return Started(loaded, resolved, plan, created, tokens if created else {})


def study_id_of(arg: str) -> tuple[str, LoadedStudy | None]:
    """STUDY on the command line: a study file (its id) or an id."""
    path = Path(arg)
    if path.is_file():
        loaded = load_study(path)
        return loaded.study.id, loaded
    return arg, None


def stored_study(store: Any, study_id: str) -> tuple[Study, Any]:
    row = Studies(store).study(study_id)
    if row is None:
        raise StudyProblem(f"no study '{study_id}' in the record; `sttui study start FILE` starts it")
    return Study.model_validate(row.spec, context=STORED), row


def open_slot(store: Any, assignment: Assignment) -> LoadedTask:
    """The exact task version of the assignment's slot, from the record."""
    from sttui.exports.versions import VersionProblem, open_stored

    slot = assignment.slot
    assert slot is not None
    version = store.task_version(slot["task_id"], slot["task_hash"])
    if version is None:
        raise StudyProblem(f"the record lacks task {slot['task_id']} version {slot['task_hash'][:12]}")
    try:
        return open_stored(version).loaded
    except (VersionProblem, TaskFileError) as exc:
        raise StudyProblem(f"cannot open {slot['task_id']}: {exc}") from None
