"""A study as one file: the jsonl export (header, episodes with their task versions and events,
trailer) with a ``study`` record after the header: the manifest (the study file's text and
parsed form, the task versions' hashes, its participants without their tokens, its slots) and
the ratings of the bundle's episodes (as episodes and as verdicts), with the gold set on them.
``sttui import`` of the file on another machine gives the same ``sttui study report``, digit
for digit: the report reads only what the bundle carries, and its bootstrap is seeded.

The bundle holds the study's episodes and every other episode on its tasks (the models and
baselines the report pairs with the humans)."""

from __future__ import annotations

import json
import time
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
RATING_FIELDS = ("item_kind", "item_id", "dimension", "annotator", "value", "comment", "created_at")
GOLD_FIELDS = ("item_kind", "item_id", "dimension", "low", "high", "adjudicator", "note", "created_at")
RATED_KINDS = ("episode", "verdict")  # what of an episode is rated


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
    carried = {r.id for r in records}
    found["ratings"] = [
        {k: r[k] for k in RATING_FIELDS} for kind in RATED_KINDS for r in store.ratings(kind) if r["item_id"] in carried
    ]
    found["gold"] = [
        {k: g[k] for k in GOLD_FIELDS} for kind in RATED_KINDS for g in store.gold(kind) if g["item_id"] in carried
    ]
    yield next(lines)
    yield json.dumps(found, sort_keys=True)
    yield from lines


class _Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    record: str
    study: dict[str, Any]
    participants: list[dict[str, Any]] = Field(max_length=100_000)
    slots: list[dict[str, Any]] = Field(max_length=1_000_000)
    ratings: list[dict[str, Any]] = Field(default_factory=list, max_length=10_000_000)  # absent in older bundles
    gold: list[dict[str, Any]] = Field(default_factory=list, max_length=1_000_000)


def check_manifest(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """A bundle's study record, checked before anything is written (ImportProblem otherwise)."""
    from sttui.exports.importing import ImportProblem
    from sttui.study.spec import STORED, Study

    try:
        found = _Manifest.model_validate(obj)
        Study.model_validate(found.study.get("spec"), context=STORED)
        for key in ("id", "digest", "source", "tasks", "created_at"):
            if key not in found.study:
                raise ImportProblem(f"{where}: the study record lacks '{key}'")
        for s in found.slots:
            if set(s) != set(SLOT_FIELDS):
                raise ImportProblem(f"{where}: a slot has the fields {sorted(s)}; expected {list(SLOT_FIELDS)}")
        for p in found.participants:
            if set(p) != set(PERSON_FIELDS):
                raise ImportProblem(f"{where}: a participant has the fields {sorted(p)}")
        for i, r in enumerate(found.ratings):
            _check_rating(r, f"{where}: ratings[{i}]")
        for i, g in enumerate(found.gold):
            _check_gold(g, f"{where}: gold[{i}]")
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ImportProblem(f"{where}: the study record: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    return obj


def _check_rating(r: dict[str, Any], where: str) -> None:
    from sttui.exports.importing import ImportProblem

    if set(r) != set(RATING_FIELDS):
        raise ImportProblem(f"{where}: has the fields {sorted(r)}; expected {list(RATING_FIELDS)}")
    if r["item_kind"] not in RATED_KINDS or not all(
        isinstance(r[k], str) for k in ("item_id", "dimension", "annotator")
    ):
        raise ImportProblem(f"{where}: a rating of an episode or a verdict, with its item, dimension and annotator")
    if not isinstance(r["value"], int) or isinstance(r["value"], bool) or not 1 <= r["value"] <= 5:
        raise ImportProblem(f"{where}.value: expected a whole rating 1 to 5; got {r['value']!r}")
    if not isinstance(r["created_at"], int | float) or not isinstance(r["comment"], str | None):
        raise ImportProblem(f"{where}: created_at must be a time, comment text or null")


def _check_gold(g: dict[str, Any], where: str) -> None:
    from sttui.exports.importing import ImportProblem

    if set(g) != set(GOLD_FIELDS):
        raise ImportProblem(f"{where}: has the fields {sorted(g)}; expected {list(GOLD_FIELDS)}")
    ok = g["item_kind"] in RATED_KINDS and all(isinstance(g[k], str) for k in ("item_id", "dimension", "adjudicator"))
    bounds = [g["low"], g["high"]]
    if not ok or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        raise ImportProblem(f"{where}: gold on an episode or a verdict, with whole bounds")
    if not 1 <= g["low"] <= g["high"] <= 5:
        raise ImportProblem(f"{where}: expected 1 <= low <= high <= 5; got {g['low']}-{g['high']}")


def write_ratings(conn: Any, found: dict[str, Any], episodes: set[str]) -> None:
    """The bundle's ratings and gold, each written once (a second import adds nothing): a rating
    is the same when its annotator, item, dimension, value and time are; its annotator's place
    on the item is taken as the queue takes it."""
    from sqlmodel import col

    from sttui.exports.importing import ImportProblem
    from sttui.store.annotations import _supersede
    from sttui.store.tables import AnnotatorRow, ClaimRow, GoldRow, RatingRow, table_of

    ratings, gold = found.get("ratings") or [], found.get("gold") or []
    stray = sorted({r["item_id"] for r in [*ratings, *gold]} - episodes)
    if stray:
        raise ImportProblem(f"the study record rates episode {stray[0]}, which the bundle does not hold")
    names = sorted({r["annotator"] for r in ratings})
    ids = dict(conn.execute(select(col(AnnotatorRow.name), col(AnnotatorRow.id))).all())
    for name in names:
        if name not in ids:
            ids[name] = conn.execute(
                insert(AnnotatorRow).values(name=name, created_at=time.time())
            ).inserted_primary_key[0]
    rt, ct, gt = table_of(RatingRow), table_of(ClaimRow), table_of(GoldRow)
    for r in sorted(ratings, key=lambda r: r["created_at"]):
        who = ids[r["annotator"]]
        key = (rt.c.item_kind == r["item_kind"], rt.c.item_id == r["item_id"], rt.c.dimension == r["dimension"])
        same = select(rt.c.id).where(
            *key, rt.c.annotator_id == who, rt.c.value == r["value"], rt.c.created_at == r["created_at"]
        )
        if conn.execute(same).first() is not None:
            continue
        new_id = conn.execute(
            insert(rt).values(
                item_kind=r["item_kind"],
                item_id=r["item_id"],
                dimension=r["dimension"],
                annotator_id=who,
                value=r["value"],
                comment=r["comment"],
                created_at=r["created_at"],
                withdrawn=False,
            )
        ).inserted_primary_key[0]
        _supersede(
            conn,
            RatingRow,
            new_id,
            item_kind=r["item_kind"],
            item_id=r["item_id"],
            dimension=r["dimension"],
            annotator_id=who,
        )
        held = select(ct.c.id).where(
            ct.c.item_kind == r["item_kind"], ct.c.item_id == r["item_id"], ct.c.annotator_id == who
        )
        if conn.execute(held).first() is None:
            conn.execute(
                insert(ct).values(
                    item_kind=r["item_kind"], item_id=r["item_id"], annotator_id=who, created_at=r["created_at"]
                )
            )
    for g in gold:
        same = select(gt.c.id).where(
            *(gt.c[k] == g[k] for k in ("item_kind", "item_id", "dimension", "low", "high", "created_at"))
        )
        if conn.execute(same).first() is not None:
            continue
        new_id = conn.execute(insert(gt).values(**g, withdrawn=False)).inserted_primary_key[0]
        _supersede(conn, GoldRow, new_id, item_kind=g["item_kind"], item_id=g["item_id"], dimension=g["dimension"])


def write_manifest(conn: Any, found: dict[str, Any], episodes: set[str] | None = None) -> bool:
    """Write an imported study unless it is here (True: written); another study under its id is
    refused. Its ratings and gold (on ``episodes``, the bundle's) are written either way, once."""
    study = found["study"]
    row = conn.execute(select(STUDIES.c.digest).where(STUDIES.c.id == study["id"])).first()
    if row is not None and row.digest != study["digest"]:
        from sttui.exports.importing import ImportProblem

        raise ImportProblem(f"a different study '{study['id']}' is in this record already")
    write_ratings(conn, found, episodes or set())
    if row is not None:
        return False
    conn.execute(insert(STUDIES).values(**study))
    conn.execute(insert(PEOPLE), [{**p, "study_id": study["id"], "token": None} for p in found["participants"]])
    if found["slots"]:
        conn.execute(insert(SLOTS), [{**s, "study_id": study["id"]} for s in found["slots"]])
    return True
