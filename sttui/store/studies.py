"""Studies in the record: starting one (its file and task versions, once), and assigning its
slots to participants safely when several join at the same moment.

- **Starting** writes the study, its participants and every slot in one transaction. A second
  start of the same id with the same file joins it; with another file it is refused: editing
  the file never changes a running study.
- **Joining** runs in one serialised transaction (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: the
  participant's row ``FOR UPDATE``, and an anonymous slot taken with ``SKIP LOCKED`` so joiners
  never wait on each other or take the same slot). It finds the participant (by name, token,
  or the next open anonymous slot), closes the slots whose episodes have ended, and takes the
  next slot: a slot is ``pending``, or ``assigned`` together with its episode id, never between.
  A process killed mid-join leaves the transaction uncommitted, so nothing at all.
- **Withdrawing** marks the participant and their unfinished slots ``withdrawn``; episodes stay.
- **Tokens** of anonymous slots are stored hashed (``sha256:…``), as passwords are: whoever reads
  the record cannot join as anyone. Each is shown once, when it is made (at the start, or when
  ``reissue`` replaces a lost one).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from sttui.store.runs import db_now
from sttui.store.store import Store, new_episode_id
from sttui.store.tables import EpisodeRow, StudyParticipantRow, StudyRow, StudySlotRow, table_of

STUDIES = table_of(StudyRow)
PEOPLE = table_of(StudyParticipantRow)
SLOTS = table_of(StudySlotRow)
EPISODES = table_of(EpisodeRow)

P = ParamSpec("P")
T = TypeVar("T")


class StudyProblem(ValueError):
    """Something a person asked of a study that cannot be done; one line says why."""


@dataclass(frozen=True)
class Assignment:
    """What a join gives a participant: their next slot (None when they have played them all),
    its episode id, and whether that episode exists already (resume it) or is to be opened."""

    study_id: str
    participant: str
    acknowledged: bool
    slot: dict[str, Any] | None
    episode_id: str | None
    resume: bool
    done: int  # scored slots done
    total: int  # scored slots in all


def new_token() -> str:
    """A participant's token: 16 URL-safe characters (96 bits), long enough for a token file."""
    return secrets.token_urlsafe(12)


def hash_token(token: str) -> str:
    """What the record keeps of a token. A token is random, not a chosen password, so one
    SHA-256 is enough: nothing short of the token itself gives this hash."""
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def _pg(conn: Connection) -> bool:
    return conn.engine.url.get_backend_name() == "postgresql"


def start(
    conn: Any,
    study_id: str,
    digest: str,
    source: str,
    spec: dict[str, Any],
    tasks: dict[str, str],
    names: list[str],
    anonymous: bool,
    slots: list[dict[str, Any]],
    tokens: dict[str, str] | None = None,
) -> bool:
    """Write the study unless it is there (True: this call started it). ``tokens``: each
    anonymous slot's token, stored hashed."""
    row = conn.execute(select(STUDIES.c.digest).where(STUDIES.c.id == study_id)).first()
    if row is not None:
        if row.digest != digest:
            raise StudyProblem(
                f"study '{study_id}' was started from another version of its file; a running study never "
                "changes (its record keeps the file it started with): give the edited file a new id"
            )
        return False
    conn.execute(
        insert(STUDIES).values(
            id=study_id, digest=digest, source=source, spec=spec, tasks=tasks, created_at=time.time()
        )
    )
    people = [
        {
            "study_id": study_id,
            "idx": i,
            "name": name,
            "token": hash_token((tokens or {})[name]) if anonymous else None,
            "status": "open",
        }
        for i, name in enumerate(names)
    ]
    conn.execute(insert(PEOPLE), people)
    rows = [{**s, "study_id": study_id, "status": "pending"} for s in slots]
    for i in range(0, len(rows), 1000):
        conn.execute(insert(SLOTS), rows[i : i + 1000])
    return True


def study(conn: Any, study_id: str) -> Any:
    return conn.execute(select(STUDIES).where(STUDIES.c.id == study_id)).first()


def _person(conn: Any, study_id: str, name: str | None, token: str | None, anonymous: bool, now: float) -> Any:
    query = select(PEOPLE).where(PEOPLE.c.study_id == study_id)
    lock = (lambda q: q.with_for_update()) if _pg(conn) else (lambda q: q)
    if token is not None:
        row = conn.execute(lock(query.where(_token_is(token)))).first()
        if row is None:
            raise StudyProblem(f"no participant of study '{study_id}' has that token")
        if row.joined_as is None and name:
            conn.execute(update(PEOPLE).where(PEOPLE.c.id == row.id).values(joined_as=name))
        return row
    if not name:
        raise StudyProblem("a participant joins by name (--as NAME) or by token (--token)")
    if not anonymous:
        row = conn.execute(lock(query.where(PEOPLE.c.name == name))).first()
        if row is None:
            names = [r.name for r in conn.execute(select(PEOPLE.c.name).where(PEOPLE.c.study_id == study_id))]
            raise StudyProblem(
                f"'{name}' is not a participant of study '{study_id}'; its participants are: {', '.join(names)}"
            )
        return row
    row = conn.execute(lock(query.where(PEOPLE.c.joined_as == name))).first()
    if row is not None:
        return row
    unbound = query.where(PEOPLE.c.status == "open", PEOPLE.c.joined_as.is_(None)).order_by(PEOPLE.c.idx).limit(1)
    # a slot's own name (p03, as the token file written at the start names it) takes that slot
    own = conn.execute(lock(unbound.where(PEOPLE.c.name == name))).first()
    if own is not None:
        unbound = unbound.where(PEOPLE.c.id == own.id)
    row = None
    for _ in range(200 if _pg(conn) else 1):
        row = conn.execute(unbound.with_for_update(skip_locked=True) if _pg(conn) else unbound).first()
        # every open slot locked by joiners still deciding (one may yet give its slot back, as a
        # second join under a taken name does): wait for them rather than call the study full
        if row is not None or conn.execute(unbound).first() is None:
            break
        time.sleep(0.05)
    if row is None:
        total = len(conn.execute(select(PEOPLE.c.id).where(PEOPLE.c.study_id == study_id)).all())
        raise StudyProblem(f"study '{study_id}' is full: all {total} participant slots are taken")
    conn.execute(update(PEOPLE).where(PEOPLE.c.id == row.id).values(joined_as=name, status="active", joined_at=now))
    return conn.execute(select(PEOPLE).where(PEOPLE.c.id == row.id)).first()


def _token_is(token: str) -> Any:
    """The condition that finds an anonymous participant's row by their token (one place: the
    token's stored form is decided here)."""
    return PEOPLE.c.token == hash_token(token)


def slot_of_token(conn: Any, study_id: str, token: str) -> str | None:
    """The slot name (``p01`` …) whose token this is, or None: ``sttui serve --study`` opens a
    participant's session by it."""
    row = conn.execute(select(PEOPLE.c.name).where(PEOPLE.c.study_id == study_id, _token_is(token))).first()
    return row.name if row is not None else None


def join(conn: Any, study_id: str, name: str | None, token: str | None = None) -> Assignment:
    """Find the participant and take their next slot (see the module's docstring)."""
    found = study(conn, study_id)
    if found is None:
        raise StudyProblem(f"no study '{study_id}' in the record; `sttui study start FILE` starts it")
    anonymous = isinstance(found.spec.get("participants"), dict)
    now = db_now(conn)
    person = _person(conn, study_id, name, token, anonymous, now)
    if person.status == "withdrawn":
        raise StudyProblem(f"{person.name} withdrew from study '{study_id}'; their data is kept, marked withdrawn")
    if person.status == "open":
        conn.execute(update(PEOPLE).where(PEOPLE.c.id == person.id).values(status="active", joined_at=now))
    slots = conn.execute(
        select(SLOTS).where(SLOTS.c.study_id == study_id, SLOTS.c.participant == person.name).order_by(SLOTS.c.position)
    ).all()
    scored = [s for s in slots if not s.practice]
    done = sum(1 for s in scored if s.status == "done")
    ack = person.acknowledged_at is not None
    for s in slots:
        if s.status in ("done", "withdrawn"):
            continue
        if s.status == "assigned":
            status = conn.execute(select(EPISODES.c.status).where(EPISODES.c.id == s.episode_id)).scalar()
            if status is not None and status != "running":
                conn.execute(update(SLOTS).where(SLOTS.c.id == s.id).values(status="done", done_at=now))
                done += 0 if s.practice else 1
                continue
            return Assignment(study_id, person.name, ack, _slot(s), s.episode_id, status is not None, done, len(scored))
        episode_id = new_episode_id()
        conn.execute(
            update(SLOTS)
            .where(SLOTS.c.id == s.id, SLOTS.c.status == "pending")
            .values(status="assigned", episode_id=episode_id, assigned_at=now)
        )
        return Assignment(study_id, person.name, ack, _slot(s), episode_id, False, done, len(scored))
    return Assignment(study_id, person.name, ack, None, None, False, done, len(scored))


def _slot(row: Any) -> dict[str, Any]:
    return {
        "participant": row.participant,
        "position": row.position,
        "task_id": row.task_id,
        "task_hash": row.task_hash,
        "practice": bool(row.practice),
        "replication": row.replication,
    }


def acknowledge(conn: Any, study_id: str, participant: str) -> None:
    conn.execute(
        update(PEOPLE)
        .where(PEOPLE.c.study_id == study_id, PEOPLE.c.name == participant, PEOPLE.c.acknowledged_at.is_(None))
        .values(acknowledged_at=time.time())
    )


def withdraw(conn: Any, study_id: str, participant: str) -> int:
    """Mark the participant withdrawn and their unfinished slots too; how many slots."""
    person = conn.execute(
        select(PEOPLE.c.id).where(
            PEOPLE.c.study_id == study_id, (PEOPLE.c.name == participant) | (PEOPLE.c.joined_as == participant)
        )
    ).first()
    if person is None:
        raise StudyProblem(f"'{participant}' is not a participant of study '{study_id}'")
    name = conn.execute(select(PEOPLE.c.name).where(PEOPLE.c.id == person.id)).scalar()
    conn.execute(update(PEOPLE).where(PEOPLE.c.id == person.id).values(status="withdrawn", withdrawn_at=time.time()))
    done = conn.execute(
        update(SLOTS)
        .where(SLOTS.c.study_id == study_id, SLOTS.c.participant == name, SLOTS.c.status.in_(("pending", "assigned")))
        .values(status="withdrawn")
    )
    return int(done.rowcount or 0)


def reissue(conn: Any, study_id: str, participant: str, token: str) -> None:
    """Replace an anonymous slot's token (a lost one stops working); the new one is stored hashed."""
    row = conn.execute(
        select(PEOPLE.c.id, PEOPLE.c.token).where(PEOPLE.c.study_id == study_id, PEOPLE.c.name == participant)
    ).first()
    if row is None or row.token is None:
        raise StudyProblem(f"'{participant}' is not an anonymous slot of study '{study_id}' (slots have tokens)")
    conn.execute(update(PEOPLE).where(PEOPLE.c.id == row.id).values(token=hash_token(token)))


def people(conn: Any, study_id: str) -> list[Any]:
    return list(conn.execute(select(PEOPLE).where(PEOPLE.c.study_id == study_id).order_by(PEOPLE.c.idx)))


def slots(conn: Any, study_id: str) -> list[Any]:
    """Every slot with its episode's status, outcome, scores and times (None before it exists)."""
    query = (
        select(
            SLOTS,
            EPISODES.c.status.label("episode_status"),
            EPISODES.c.outcome,
            EPISODES.c.scores,
            EPISODES.c.started_at,
            EPISODES.c.ended_at,
            EPISODES.c.end_reason,
        )
        .select_from(SLOTS.outerjoin(EPISODES, EPISODES.c.id == SLOTS.c.episode_id))
        .where(SLOTS.c.study_id == study_id)
        .order_by(SLOTS.c.participant, SLOTS.c.position)
    )
    return list(conn.execute(query))


def retrying(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` once more when a unique constraint refused it (another process took the same name
    for an anonymous slot at the same moment: the retry finds it taken and joins it)."""

    def go(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except IntegrityError:
            return fn(*args, **kwargs)

    return go


class Studies:
    """The study operations on a ``Store``: each one transaction."""

    def __init__(self, store: Store):
        self.store = store

    def start(self, **kwargs: Any) -> bool:
        return bool(retrying(self.store._serialised)(lambda conn: start(conn, **kwargs)))

    def join(self, study_id: str, name: str | None, token: str | None = None) -> Assignment:
        return retrying(self.store._serialised)(lambda conn: join(conn, study_id, name, token))

    def acknowledge(self, study_id: str, participant: str) -> None:
        self.store._serialised(lambda conn: acknowledge(conn, study_id, participant))

    def reissue(self, study_id: str, participant: str) -> str:
        """A new token for an anonymous slot, returned once (the record keeps only its hash)."""
        token = new_token()
        self.store._serialised(lambda conn: reissue(conn, study_id, participant, token))
        return token

    def withdraw(self, study_id: str, participant: str) -> int:
        return int(self.store._serialised(lambda conn: withdraw(conn, study_id, participant)))

    def study(self, study_id: str) -> Any:
        return self.store._read_core(lambda conn: study(conn, study_id))

    def slot_of_token(self, study_id: str, token: str) -> str | None:
        return self.store._read_core(lambda conn: slot_of_token(conn, study_id, token))

    def people(self, study_id: str) -> list[Any]:
        return self.store._read_core(lambda conn: people(conn, study_id))

    def slots(self, study_id: str) -> list[Any]:
        return self.store._read_core(lambda conn: slots(conn, study_id))
