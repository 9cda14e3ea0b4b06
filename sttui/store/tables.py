"""Tables of the record. Migrations in ``migrations/versions`` create exactly these."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import JSON, Column, Index, String, Table, Text, UniqueConstraint, text
from sqlalchemy import inspect as sa_inspect
from sqlmodel import Field, SQLModel

from sttui.store.indexed import INDEXED_EVENTS


class TaskRow(SQLModel, table=True):
    """One version of a task: its file and environment source are kept for replay.

    ``origin`` says where the copy came from, which decides whether its code may run:
    ``recorded`` (saved from a task file this database ran), ``trusted`` (imported with
    ``--trust``), ``imported``, or ``unknown`` (stored before origins were kept). ``tools`` are
    the environment's tools as OpenAI function schemas: data, so exports never run the code.
    """

    __tablename__ = "tasks"
    __table_args__ = (UniqueConstraint("task_id", "content_hash", name="uq_tasks_version"),)

    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(index=True)
    kind: str
    content_hash: str
    title: str
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    source: str = Field(sa_column=Column(Text, nullable=False))
    env_ref: str | None = None
    env_source: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: float
    origin: str = Field(default="unknown", sa_column=Column(String, nullable=False, server_default="unknown"))
    tools: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class EpisodeRow(SQLModel, table=True):
    __tablename__ = "episodes"
    __table_args__ = (
        Index("ix_episodes_started", "started_at"),
        Index("ix_episodes_status_started", "status", "started_at"),
        # ids by prefix: PostgreSQL matches LIKE 'abc%' on this index whatever its collation
        Index("ix_episodes_id_pattern", "id", postgresql_ops={"id": "text_pattern_ops"}),
    )

    id: str = Field(primary_key=True)
    task_id: str = Field(index=True)
    task_hash: str
    kind: str
    seed: int
    setting: str
    status: str = Field(index=True)  # running, completed, stopped, errored, abandoned
    agent: str
    user: str | None = None
    outcome: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    scores: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    end_reason: str | None = None
    steps: int = 0
    state_hash: str | None = None
    started_at: float
    ended_at: float | None = None
    clean_baseline: bool = True


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("episode_id", "seq", name="uq_events_episode_seq"),
        # rare events a listing of the whole record looks for: a partial index each, so no
        # other event's insert pays for them (Store.episode_ids_with)
        *(
            Index(
                f"ix_events_{kind}",
                "episode_id",
                sqlite_where=text(f"type = '{kind}'"),
                postgresql_where=text(f"type = '{kind}'"),
            )
            for kind in INDEXED_EVENTS
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    episode_id: str = Field(foreign_key="episodes.id")
    seq: int
    wall_time: float
    sim_time: str
    actor: str
    type: str
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class AnnotatorRow(SQLModel, table=True):
    __tablename__ = "annotators"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    created_at: float


class RatingRow(SQLModel, table=True):
    """A rating; a changed rating is a new row, and the old one points to it."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_item", "item_kind", "item_id"),)

    id: int | None = Field(default=None, primary_key=True)
    item_kind: str
    item_id: str
    dimension: str
    annotator_id: int = Field(foreign_key="annotators.id")
    value: int
    comment: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: float
    superseded_by: int | None = Field(default=None, foreign_key="ratings.id")
    withdrawn: bool = False  # an undo: supersedes the rating and stands for "no rating"


class NoteRow(SQLModel, table=True):
    __tablename__ = "notes"

    id: int | None = Field(default=None, primary_key=True)
    episode_id: str | None = Field(default=None, foreign_key="episodes.id")
    item_kind: str | None = None
    item_id: str | None = None
    author: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    created_at: float


class ClaimRow(SQLModel, table=True):
    """An annotator's place among the (at most N) raters of an item."""

    __tablename__ = "claims"
    __table_args__ = (UniqueConstraint("item_kind", "item_id", "annotator_id", name="uq_claims_item_annotator"),)

    id: int | None = Field(default=None, primary_key=True)
    item_kind: str
    item_id: str
    annotator_id: int = Field(foreign_key="annotators.id")
    created_at: float


class AdjudicationRow(SQLModel, table=True):
    """A settled value for a disputed item, kept apart from the ratings it settles."""

    __tablename__ = "adjudications"

    id: int | None = Field(default=None, primary_key=True)
    item_kind: str
    item_id: str
    dimension: str
    adjudicator: str
    value: int
    note: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: float


class GoldRow(SQLModel, table=True):
    """A gold item: the rating an adjudicator accepts on one dimension of an item, as a range
    (``low`` = ``high`` for one known value). Annotators are measured against it; a changed or
    removed gold is a new row, and the old one points to it (``withdrawn``: no gold now)."""

    __tablename__ = "gold"
    __table_args__ = (Index("ix_gold_item", "item_kind", "item_id"),)

    id: int | None = Field(default=None, primary_key=True)
    item_kind: str
    item_id: str
    dimension: str
    low: int
    high: int
    adjudicator: str
    note: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: float
    superseded_by: int | None = Field(default=None, foreign_key="gold.id")
    withdrawn: bool = False


class LabelRow(SQLModel, table=True):
    """Failure-mode tags and the first erroneous step of an episode, by one annotator."""

    __tablename__ = "labels"
    __table_args__ = (Index("ix_labels_episode", "episode_id"),)

    id: int | None = Field(default=None, primary_key=True)
    episode_id: str = Field(foreign_key="episodes.id")
    annotator_id: int = Field(foreign_key="annotators.id")
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    other: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    first_error_seq: int | None = None
    created_at: float
    superseded_by: int | None = Field(default=None, foreign_key="labels.id")


class RunRow(SQLModel, table=True):
    """A run split across workers (``sttui run --run-id``). ``plan_digest`` decides who may
    join: a worker whose plan differs is refused, so every item means the same on every node."""

    __tablename__ = "runs"

    id: str = Field(primary_key=True)
    plan_digest: str
    plan: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    items: int
    created_at: float


class RunItemRow(SQLModel, table=True):
    """One planned episode of a run (a task's trial with its seed) and who holds it.

    ``status`` is pending, claimed or done. A claim lasts until ``lease_until`` (the database's
    clock, so machines' clocks never disagree about it); its worker renews it while the episode
    runs, and an expired claim is taken again. ``episode_id`` is the episode of the current
    claim: once done, the one episode this item counts."""

    __tablename__ = "run_items"
    __table_args__ = (
        UniqueConstraint("run_id", "idx", name="uq_run_items_run_idx"),
        Index("ix_run_items_claim", "run_id", "status", "idx"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.id")
    idx: int
    task_id: str
    task_hash: str
    trial: int
    seed: int
    status: str = "pending"
    claimed_by: str | None = None
    claimed_at: float | None = None
    lease_until: float | None = None
    attempts: int = 0
    episode_id: str | None = None  # no foreign key: the writer commits the episode's row later
    done_at: float | None = None


class StageJudgementRow(SQLModel, table=True):
    """A stage judge's answer, by the hash of the stage's evidence window, the judge model, the
    prompt version and the tier's role (``sttui/core/review/judging.py:cache_key``): the same
    stage judged the same way again (a replay, a re-report, another run) asks no model."""

    __tablename__ = "stage_judgements"

    key: str = Field(primary_key=True)
    model: str
    prompt_version: str
    answer: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: float


class StudyRow(SQLModel, table=True):
    """A human-baseline study as it was started: the study file's exact text and its parsed
    form, and the hash of each task version it plays. A running study never reads its file
    again, so editing the file changes nothing."""

    __tablename__ = "studies"

    id: str = Field(primary_key=True)
    digest: str
    source: str = Field(sa_column=Column(Text, nullable=False))
    spec: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    tasks: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: float


class StudyParticipantRow(SQLModel, table=True):
    """A participant of a study (a name from the file, or an anonymous slot with its token).
    ``joined_as``: the name an anonymous slot was taken under; ``status``: open, active, withdrawn."""

    __tablename__ = "study_participants"
    __table_args__ = (
        UniqueConstraint("study_id", "name", name="uq_study_participants_name"),
        UniqueConstraint("study_id", "joined_as", name="uq_study_participants_joined_as"),
    )

    id: int | None = Field(default=None, primary_key=True)
    study_id: str = Field(foreign_key="studies.id")
    idx: int
    name: str
    token: str | None = None
    joined_as: str | None = None
    status: str = "open"
    acknowledged_at: float | None = None
    joined_at: float | None = None
    withdrawn_at: float | None = None


class StudySlotRow(SQLModel, table=True):
    """One task a participant plays, at ``position`` in their order. ``status``: pending,
    assigned (its episode id is set in the same transaction), done, withdrawn. A participant
    holds a task at most once (the unique constraint says it to the database too)."""

    __tablename__ = "study_slots"
    __table_args__ = (
        UniqueConstraint("study_id", "participant", "position", name="uq_study_slots_position"),
        UniqueConstraint("study_id", "participant", "task_id", name="uq_study_slots_task"),
    )

    id: int | None = Field(default=None, primary_key=True)
    study_id: str = Field(foreign_key="studies.id")
    participant: str
    position: int
    task_id: str
    task_hash: str
    practice: bool = False
    replication: int = 0
    status: str = "pending"
    episode_id: str | None = None  # no foreign key: the play session commits the episode's row
    assigned_at: float | None = None
    done_at: float | None = None


@functools.cache
def table_of(row: type[SQLModel]) -> Table:
    """The Core table behind a row class, typed: SQLModel sets ``__table__`` only at run time,
    so the type checker cannot see it; the mapper's table is the same object."""
    table = sa_inspect(row).local_table
    assert isinstance(table, Table)
    return table
