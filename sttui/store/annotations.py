"""The annotation half of the record: annotators and their ratings, the queue's claims on
items (the rater cap), adjudications, labels, first-error suggestions and notes.

A mixin of :class:`sttui.store.store.Store`, kept apart so the episode and event code reads on
its own; it uses the store's engine, its ``_write``/``_read`` helpers and its secrets.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import insert, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlmodel import Session, col
from sqlmodel import select as orm_select

from sttui.store.db import explain, in_batches
from sttui.store.secrets import scrub, scrub_text
from sttui.store.tables import (
    AdjudicationRow,
    AnnotatorRow,
    ClaimRow,
    EpisodeRow,
    EventRow,
    GoldRow,
    LabelRow,
    NoteRow,
    RatingRow,
    table_of,
)

T = TypeVar("T")


def _rows(query: Any) -> Callable[[Any], list[Any]]:
    """Reads every row of ``query`` on the connection it is given."""
    return lambda conn: list(conn.execute(query).all())


def _supersede(conn: Any, table: Any, new_id: int, **same: Any) -> None:
    """Point the current rows matching ``same`` at their successor: history, never deletion."""
    conn.execute(
        update(table)
        .where(*(getattr(table, k) == v for k, v in same.items()), table.superseded_by.is_(None), table.id != new_id)
        .values(superseded_by=new_id)
    )


def _take_place(conn: Any, who: int, item_kind: str, item_id: str, cap: int) -> bool:
    """Claim a place among an item's raters inside the caller's locked transaction: granted
    when it is already this annotator's, or one of ``cap`` places is free."""
    holders = [
        r[0]
        for r in conn.execute(
            select(col(ClaimRow.annotator_id)).where(
                col(ClaimRow.item_kind) == item_kind, col(ClaimRow.item_id) == item_id
            )
        )
    ]
    if who in holders:
        return True
    if len(holders) >= cap:
        return False
    conn.execute(
        insert(ClaimRow).values(item_kind=item_kind, item_id=item_id, annotator_id=who, created_at=time.time())
    )
    return True


class AnnotationRecords:
    """Ratings, claims, adjudications, labels and notes (see the module docstring)."""

    engine: Any
    url: str
    _secrets: Any

    if TYPE_CHECKING:  # Store's transaction helpers, which this mixin's methods run in

        def _write(self, fn: Callable[[Any], T]) -> T: ...
        def _read(self, fn: Callable[[Session], T]) -> T: ...
        def _read_core(self, fn: Callable[[Any], T]) -> T: ...

    # -- annotators and ratings ----------------------------------------------------------
    def annotator_id(self, name: str) -> int:
        def go(conn: Any) -> int:
            found = conn.execute(select(col(AnnotatorRow.id)).where(col(AnnotatorRow.name) == name)).first()
            if found:
                return int(found[0])
            return int(
                conn.execute(insert(AnnotatorRow).values(name=name, created_at=time.time())).inserted_primary_key[0]
            )

        try:
            return self._write(go)
        except IntegrityError:  # created by another process a moment ago
            return self._write(go)

    def rate(
        self,
        annotator: str,
        item_kind: str,
        item_id: str,
        dimension: str,
        value: int,
        comment: str | None = None,
        withdrawn: bool = False,
        created_at: float | None = None,
    ) -> int:
        """Record a rating, committed now. An earlier rating of the same item and dimension by the
        same annotator is kept as history and points to this one."""
        if not (1 <= value <= 5 or (withdrawn and value == 0)):
            raise ValueError("ratings are 1 to 5")
        who = self.annotator_id(annotator)

        def go(conn: Any) -> int:
            return self._insert_rating(conn, who, item_kind, item_id, dimension, value, comment, withdrawn, created_at)

        return self._write(go)

    def _insert_rating(
        self,
        conn: Any,
        who: int,
        item_kind: str,
        item_id: str,
        dimension: str,
        value: int,
        comment: str | None,
        withdrawn: bool = False,
        created_at: float | None = None,
    ) -> int:
        new_id: int = conn.execute(
            insert(RatingRow).values(
                item_kind=item_kind,
                item_id=item_id,
                dimension=dimension,
                annotator_id=who,
                value=value,
                comment=scrub(comment, self._secrets) if comment else None,
                created_at=created_at or time.time(),
                withdrawn=withdrawn,
            )
        ).inserted_primary_key[0]
        _supersede(conn, RatingRow, new_id, item_kind=item_kind, item_id=item_id, dimension=dimension, annotator_id=who)
        return new_id

    def import_ratings(
        self, rows: list[dict[str, Any]], cap: int, progress: Callable[[int], None] | None = None
    ) -> list[tuple[int, str]]:
        """Load checked rows all at once or not at all: every row's place on its item is claimed
        (as the queue claims them) and every rating written in one transaction. Returns the rows
        refused because their item reached the cap meanwhile; then nothing was written.
        ``progress(n)``: the ratings written so far, now and then (242,000 take minutes)."""
        for name in {r["annotator"] for r in rows}:
            self.annotator_id(name)
        items = sorted({(r["item_kind"], r["item_id"]) for r in rows})
        try:
            with self.engine.connect() as conn:
                if self.engine.url.get_backend_name() == "sqlite":
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                else:  # the same per-item locks the queue's claims take, in one order
                    for kind, item in items:
                        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": f"{kind}:{item}"})
                ids = dict(conn.execute(select(col(AnnotatorRow.name), col(AnnotatorRow.id))).all())
                rated = set(
                    conn.execute(
                        select(col(RatingRow.item_kind), col(RatingRow.item_id), col(RatingRow.annotator_id)).where(
                            col(RatingRow.item_id).in_(sorted({i for _, i in items}))
                        )
                    ).all()
                )
                refused = [
                    (r["_row"], f"{r['item_kind']} '{r['item_id']}' reached the cap of {cap} annotators meanwhile")
                    for r in rows
                    if (r["item_kind"], r["item_id"], ids[r["annotator"]]) not in rated  # a rater holds a place
                    and not _take_place(conn, ids[r["annotator"]], r["item_kind"], r["item_id"], cap)
                ]
                if refused:
                    conn.rollback()
                    return refused
                for n, r in enumerate(rows, 1):
                    self._insert_imported(conn, ids[r["annotator"]], r)
                    if progress is not None and n % 500 == 0:
                        progress(n)
                conn.commit()
                return []
        except (OperationalError, DBAPIError) as exc:
            raise explain(exc, self.url) from None

    def _insert_imported(self, conn: Any, who: int, r: dict[str, Any]) -> None:
        """An imported rating: current, unless the annotator's current rating of that item and
        dimension was made later; then it goes into the history under it (an old file loaded
        after newer ratings does not undo them)."""
        at = r.get("created_at")
        current = conn.execute(
            select(col(RatingRow.id), col(RatingRow.created_at)).where(
                col(RatingRow.item_kind) == r["item_kind"],
                col(RatingRow.item_id) == r["item_id"],
                col(RatingRow.dimension) == r["dimension"],
                col(RatingRow.annotator_id) == who,
                col(RatingRow.superseded_by).is_(None),
            )
        ).first()
        if current is None or at is None or current[1] <= at:
            self._insert_rating(
                conn, who, r["item_kind"], r["item_id"], r["dimension"], r["value"], r.get("comment"), created_at=at
            )
            return
        conn.execute(
            insert(RatingRow).values(
                item_kind=r["item_kind"],
                item_id=r["item_id"],
                dimension=r["dimension"],
                annotator_id=who,
                value=r["value"],
                comment=scrub(r["comment"], self._secrets) if r.get("comment") else None,
                created_at=at,
                withdrawn=False,
                superseded_by=current[0],
            )
        )

    def ratings(
        self,
        item_kind: str | None = None,
        item_id: str | None = None,
        include_history: bool = False,
        annotator: str | None = None,
    ) -> list[dict[str, Any]]:
        """Ratings as plain rows (every column, and the annotator's name), oldest first;
        ``annotator``: theirs only, chosen by the database (a record may hold 100,000s)."""
        table = table_of(RatingRow)
        query = select(table, col(AnnotatorRow.name).label("annotator")).join(
            table_of(AnnotatorRow), table.c.annotator_id == col(AnnotatorRow.id)
        )
        if item_kind:
            query = query.where(table.c.item_kind == item_kind)
        if item_id:
            query = query.where(table.c.item_id == item_id)
        if annotator is not None:
            query = query.where(col(AnnotatorRow.name) == annotator)
        if not include_history:
            query = query.where(table.c.superseded_by.is_(None), table.c.withdrawn.is_(False))

        def go(conn: Any) -> list[dict[str, Any]]:
            return [dict(row._mapping) for row in conn.execute(query.order_by(table.c.id))]

        return self._read_core(go)

    def ratings_by(
        self, annotator: str, include_history: bool = False, item_kind: str | None = None, item_id: str | None = None
    ) -> list[dict[str, Any]]:
        """One annotator's own ratings (of one item, with ``item_id``), and nobody else's (the
        blinded view)."""
        return self.ratings(item_kind, item_id, include_history=include_history, annotator=annotator)

    # -- the annotation queue: claims, adjudications, labels ---------------------------
    def claim(self, annotator: str, item_kind: str, item_id: str, cap: int) -> bool:
        """Take a place among the raters of an item, if one of ``cap`` places is free (or already
        mine). Atomic: concurrent annotators can never exceed the cap."""
        who = self.annotator_id(annotator)
        key = f"{item_kind}:{item_id}"

        try:
            with self.engine.connect() as conn:
                if self.engine.url.get_backend_name() == "sqlite":
                    conn.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock first: claims take turns
                else:
                    conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})
                granted = _take_place(conn, who, item_kind, item_id, cap)
                conn.commit()
                return granted
        except (OperationalError, DBAPIError) as exc:
            raise explain(exc, self.url) from None

    def claims(self, item_kind: str | None = None, item_id: str | None = None) -> dict[tuple[str, str], list[str]]:
        """Who holds a place on each item (for the queue's cap and order; never shown to
        annotators); of one item with ``item_id``."""
        query = orm_select(ClaimRow, col(AnnotatorRow.name)).join(AnnotatorRow)
        if item_kind:
            query = query.where(col(ClaimRow.item_kind) == item_kind)
        if item_id is not None:
            query = query.where(col(ClaimRow.item_id) == item_id)

        def go(s: Session) -> dict[tuple[str, str], list[str]]:
            out: dict[tuple[str, str], list[str]] = {}
            for row, name in s.exec(query):
                out.setdefault((row.item_kind, row.item_id), []).append(name)
            return out

        return self._read(go)

    def adjudicate(
        self, adjudicator: str, item_kind: str, item_id: str, dimension: str, value: int, note: str | None = None
    ) -> None:
        if not 1 <= value <= 5:
            raise ValueError("adjudicated values are 1 to 5")
        self._write(
            lambda conn: conn.execute(
                insert(AdjudicationRow).values(
                    item_kind=item_kind,
                    item_id=item_id,
                    dimension=dimension,
                    adjudicator=adjudicator,
                    value=value,
                    note=scrub_text(note, self._secrets) if note else None,
                    created_at=time.time(),
                )
            )
        )

    def adjudications(self) -> list[dict[str, Any]]:
        return self._read(
            lambda s: [r.model_dump() for r in s.exec(orm_select(AdjudicationRow).order_by(col(AdjudicationRow.id)))]
        )

    # -- gold items ---------------------------------------------------------------------
    def set_gold(
        self,
        adjudicator: str,
        item_kind: str,
        item_id: str,
        dimension: str,
        low: int,
        high: int,
        note: str | None = None,
    ) -> int:
        """Make (or change) a gold item: the accepted ratings ``low``..``high`` on one dimension.
        The earlier gold of that item and dimension is kept as history and points to this one."""
        return self.set_gold_many(adjudicator, [(item_kind, item_id, dimension, low, high, note)])[0]

    def set_gold_many(self, adjudicator: str, rows: list[tuple[str, str, str, int, int, str | None]]) -> list[int]:
        """Several gold items (kind, item, dimension, low, high, note) in one transaction: all or none."""
        for *_, low, high, _note in rows:
            if not 1 <= low <= high <= 5:
                raise ValueError("gold is a rating from 1 to 5, or a range LOW-HIGH within 1 to 5")

        def go(conn: Any) -> list[int]:
            ids = []
            for item_kind, item_id, dimension, low, high, note in rows:
                new_id = conn.execute(
                    insert(GoldRow).values(
                        item_kind=item_kind,
                        item_id=item_id,
                        dimension=dimension,
                        low=low,
                        high=high,
                        adjudicator=adjudicator,
                        note=scrub_text(note, self._secrets) if note else None,
                        created_at=time.time(),
                        withdrawn=False,
                    )
                ).inserted_primary_key[0]
                _supersede(conn, GoldRow, new_id, item_kind=item_kind, item_id=item_id, dimension=dimension)
                ids.append(new_id)
            return ids

        return list(self._write(go))

    def unset_gold(self, adjudicator: str, item_kind: str, item_id: str, dimension: str) -> bool:
        """Take an item's gold on a dimension away (a withdrawn row supersedes it); False if it had none."""

        def go(conn: Any) -> bool:
            current = conn.execute(
                select(col(GoldRow.id)).where(
                    col(GoldRow.item_kind) == item_kind,
                    col(GoldRow.item_id) == item_id,
                    col(GoldRow.dimension) == dimension,
                    col(GoldRow.superseded_by).is_(None),
                    col(GoldRow.withdrawn).is_(False),
                )
            ).first()
            if current is None:
                return False
            new_id = conn.execute(
                insert(GoldRow).values(
                    item_kind=item_kind,
                    item_id=item_id,
                    dimension=dimension,
                    low=0,
                    high=0,
                    adjudicator=adjudicator,
                    created_at=time.time(),
                    withdrawn=True,
                )
            ).inserted_primary_key[0]
            _supersede(conn, GoldRow, new_id, item_kind=item_kind, item_id=item_id, dimension=dimension)
            return True

        return bool(self._write(go))

    def gold(self, item_kind: str | None = None) -> list[dict[str, Any]]:
        """The gold in force: one row per item and dimension (never shown to annotators)."""
        query = select(table_of(GoldRow)).where(col(GoldRow.superseded_by).is_(None), col(GoldRow.withdrawn).is_(False))
        if item_kind:
            query = query.where(col(GoldRow.item_kind) == item_kind)
        ordered = query.order_by(col(GoldRow.id))
        return self._read_core(lambda conn: [dict(r._mapping) for r in conn.execute(ordered)])

    def label_episode(
        self,
        annotator: str,
        episode_id: str,
        tags: list[str],
        other: str | None = None,
        first_error_seq: int | None = None,
    ) -> None:
        """Failure-mode tags and the first wrong step; a new label supersedes the annotator's last."""
        who = self.annotator_id(annotator)

        def go(conn: Any) -> None:
            new_id = conn.execute(
                insert(LabelRow).values(
                    episode_id=episode_id,
                    annotator_id=who,
                    tags=list(tags),
                    other=scrub_text(other, self._secrets) if other else None,
                    first_error_seq=first_error_seq,
                    created_at=time.time(),
                )
            ).inserted_primary_key[0]
            _supersede(conn, LabelRow, new_id, episode_id=episode_id, annotator_id=who)

        self._write(go)

    def labels(self, episode_id: str | None = None, annotator: str | None = None) -> list[dict[str, Any]]:
        query = (
            orm_select(LabelRow, col(AnnotatorRow.name)).join(AnnotatorRow).where(col(LabelRow.superseded_by).is_(None))
        )
        if episode_id:
            query = query.where(col(LabelRow.episode_id) == episode_id)
        if annotator:
            query = query.where(col(AnnotatorRow.name) == annotator)
        return self._read(lambda s: [{**row.model_dump(), "annotator": name} for row, name in s.exec(query)])

    def agent_steps_at(self, marks: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """For each (episode, seq): the agent steps taken up to and including that event (0 when
        the episode has no such event), as ``step_of_events`` counts them, reading only each
        event's type and sender (taken out of its JSON by the database), never whole logs."""
        upto: dict[str, int] = {}
        for eid, seq in marks:
            upto[eid] = max(upto.get(eid, seq), seq)
        frm = col(EventRow.payload)["from"].as_string()
        by = col(EventRow.payload)["by"].as_string()
        out: dict[tuple[str, int], int] = {}
        wanted = set(marks)
        episodes = sorted(upto)
        for chunk in in_batches(episodes):
            query = (
                select(col(EventRow.episode_id), col(EventRow.seq), col(EventRow.type), frm, by)
                .where(col(EventRow.episode_id).in_(chunk), col(EventRow.seq) <= max(upto[e] for e in chunk))
                .order_by(col(EventRow.episode_id), col(EventRow.seq))
            )
            steps, current = 0, None
            for eid, seq, kind, sender, ender in self._read_core(_rows(query)):
                if eid != current:
                    steps, current = 0, eid
                steps += (
                    kind == "tool_call"
                    or (kind == "message" and sender == "agent")
                    or (kind == "episode_ended" and ender == "agent")
                )
                if (eid, seq) in wanted:
                    out[(eid, seq)] = steps
        return {m: out.get(m, 0) for m in marks}

    def suggested_first_errors(
        self, episode_ids: list[str], localiser: tuple[str, ...] = ("review",)
    ) -> dict[str, int | None]:
        """Each episode's first error as its milestone review placed it (the agent step), or None.
        ``localiser``: where in the scores the suggestion is (``("review", "judges")``: the stage
        judges' first stage judged below the threshold)."""
        step = col(EpisodeRow.scores)[(*localiser, "first_error", "step")].as_integer()
        out: dict[str, int | None] = {}
        ids = sorted(set(episode_ids))
        for chunk in in_batches(ids):
            query = select(col(EpisodeRow.id), step).where(col(EpisodeRow.id).in_(chunk))
            out.update(dict(self._read_core(_rows(query))))
        return out

    def verdicts_of(self, episode_ids: list[str] | None = None) -> dict[str, tuple[bool, str]]:
        """Each finished stt episode's verdict as recorded: id -> (passed, judged_by), read out of
        the outcome's JSON by the database. ``episode_ids``: only these (default: every one)."""
        passed = col(EpisodeRow.outcome)["passed"].as_boolean()
        by = col(EpisodeRow.outcome)["judged_by"].as_string()
        base = select(col(EpisodeRow.id), passed, by).where(
            col(EpisodeRow.status) == "completed", col(EpisodeRow.kind) == "stt", passed.is_not(None)
        )
        ids = sorted(set(episode_ids)) if episode_ids is not None else None
        chunks: list[Any] = [None] if ids is None else list(in_batches(ids))
        out: dict[str, tuple[bool, str]] = {}
        for chunk in chunks:
            query = base if chunk is None else base.where(col(EpisodeRow.id).in_(chunk))
            rows = self._read_core(_rows(query))
            out.update({eid: (bool(ok), judge or "checklist") for eid, ok, judge in rows})
        return out

    def judged_episodes(self) -> list[tuple[str, str]]:
        """(episode id, task id) of every finished stt episode with a verdict, oldest first: the
        verdict items people rate to check the judge."""
        passed = col(EpisodeRow.outcome)["passed"].as_boolean()
        query = (
            select(col(EpisodeRow.id), col(EpisodeRow.task_id))
            .where(col(EpisodeRow.status) == "completed", col(EpisodeRow.kind) == "stt", passed.is_not(None))
            .order_by(col(EpisodeRow.started_at), col(EpisodeRow.id))
        )
        return [(eid, task) for eid, task in self._read_core(lambda conn: conn.execute(query).all())]

    # -- notes -------------------------------------------------------------------------
    def add_note(
        self,
        author: str,
        text: str,
        episode_id: str | None = None,
        item_kind: str | None = None,
        item_id: str | None = None,
    ) -> None:
        self._write(
            lambda conn: conn.execute(
                insert(NoteRow).values(
                    episode_id=episode_id,
                    item_kind=item_kind,
                    item_id=item_id,
                    author=author,
                    text=scrub(text, self._secrets),
                    created_at=time.time(),
                )
            )
        )
