"""Listings of the record: the episodes as ``sessions``, ``report`` and home read them, filtered
and paged, streamed a batch at a time, with the fields they show taken out of the JSON by the
database. A mixin of ``Store`` (``sttui/store/store.py``), which holds the writes and the
reads of one episode; it uses the store's engine and its ``_read_core`` helper."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from sqlalchemy import String, and_, case, cast, func, or_, select
from sqlmodel import col

from sttui.store import runs
from sttui.store.db import READ_ERRORS, explain
from sttui.store.indexed import episodes_with_event_sql
from sttui.store.summaries import (
    _SUMMARY_COLUMNS,
    _SUMMARY_JSON,
    REPORT_COLUMNS,
    REPORT_JSON,
    Summary,
    listing_row,
    report_row,
    summary_reader,
)
from sttui.store.tables import EpisodeRow, EventRow, table_of

T = TypeVar("T")

_BATCH = 2000  # rows fetched at a time by streamed listings


class Filters(TypedDict, total=False):
    """What ``sessions`` filters episodes by; every listing in the store takes the same."""

    task: str | None  # a part of the task id
    controller: str | None  # a part of the agent's or the user's name
    status: str | tuple[str, ...] | None
    since: datetime | None
    until: datetime | None
    text: str | None  # words, each a part of the id, task, agent, user or status (any case)


class Page(Filters, total=False):
    """Filters, and which page of the newest-first listing: at most ``limit`` episodes, listed
    ``after`` the (started_at, id) of the last one already shown. A page found by where the last
    one ended, not by counting (an offset), costs the same at the 50,000th episode as at the
    first, and an episode recorded meanwhile neither shifts nor repeats a row."""

    limit: int | None
    after: tuple[float, str] | None


# what home's sessions filter finds a word in, and how many of its words are looked for (a
# pasted paragraph would pass SQLite's limit on an expression's size)
TEXT_WORDS = 32
_TEXT_COLUMNS = (EpisodeRow.id, EpisodeRow.task_id, EpisodeRow.agent, EpisodeRow.user, EpisodeRow.status)


def _filtered(query: Any, filters: Filters) -> Any:
    task, controller, status = filters.get("task"), filters.get("controller"), filters.get("status")
    since, until = filters.get("since"), filters.get("until")
    if task:
        query = query.where(col(EpisodeRow.task_id).contains(task))
    if controller:
        query = query.where(
            or_(
                col(EpisodeRow.agent).contains(controller),
                col(EpisodeRow.user).contains(controller),
            )
        )
    if isinstance(status, tuple):
        query = query.where(col(EpisodeRow.status).in_(status))
    elif status:
        query = query.where(col(EpisodeRow.status) == status)
    words = dict.fromkeys((filters.get("text") or "").split())  # (each once, in order)
    for word in list(words)[:TEXT_WORDS]:  # (escaped: % and _ are letters here)
        query = query.where(or_(*(col(c).icontains(word, autoescape=True) for c in _TEXT_COLUMNS)))
    if since:
        query = query.where(col(EpisodeRow.started_at) >= since.timestamp())
    if until:
        query = query.where(col(EpisodeRow.started_at) < until.timestamp())
    return query


# the events that are an agent's step, as Episode.apply counts them (an stt call or message to
# the user; an explore probe, batch, assessment or refused action)
_STEP_EVENTS = ("tool_call", "probe", "batch_submitted", "assessment", "refused")


def _steps_so_far() -> Any:
    """An episode's steps: the stored count once it has ended, counted from its events while it
    runs (the row's count is written only at the end, so a running episode would say 0)."""
    table, events = table_of(EpisodeRow), table_of(EventRow)
    sender = col(EventRow.payload)["from"].as_string()
    counted = or_(events.c.type.in_(_STEP_EVENTS), (events.c.type == "message") & (sender == "agent"))
    taken = select(func.count()).where(events.c.episode_id == table.c.id, counted).scalar_subquery()
    return case((table.c.status == "running", taken), else_=table.c.steps).label("steps")


def _listing(columns: list[Any], page: Page) -> Any:
    """Episodes newest first (ties by id, so pages never overlap), filtered as ``sessions`` filters."""
    steps = table_of(EpisodeRow).c.steps
    columns = [_steps_so_far() if c is steps else c for c in columns]
    query = _filtered(select(*columns), page)
    limit, after = page.get("limit"), page.get("after")
    if after is not None:  # (the index on started_at finds where the page starts)
        started, last = after
        at = col(EpisodeRow.started_at)
        query = query.where(or_(at < started, and_(at == started, col(EpisodeRow.id) < last)))
    query = query.order_by(col(EpisodeRow.started_at).desc(), col(EpisodeRow.id).desc())
    if limit:
        query = query.limit(limit)
    return query


class EpisodeListings:
    """Streamed listings of episodes (see the module docstring)."""

    engine: Any
    url: str

    if TYPE_CHECKING:  # Store's read helper, which these queries run in

        def _read_core(self, fn: Callable[[Any], T]) -> T: ...

    def summaries(self, review: bool = True, run_id: str | None = None, **page: Unpack[Page]) -> Iterator[Summary]:
        """Episodes, newest first, as light rows (``Summary``), streamed: their outcome and scores
        hold only what listings and reports read, taken out of the JSON by the database.
        ``review=False`` leaves out what only reports read (the review, working time, whether
        complete): a plain listing needs the outcome, calibrated accuracy and the user's verdict. ``run_id``: only
        the episodes that run counts, one per done item."""
        table = table_of(EpisodeRow)
        wanted = _SUMMARY_JSON if review else _SUMMARY_JSON[:9]
        json = [self._json_field(col, path, kind) for col, path, kind in wanted]
        columns = [table.c[name] for name in _SUMMARY_COLUMNS]
        query = _listing([*columns, *json], page)
        if run_id is not None:
            query = query.where(table.c.id.in_(runs.done_episodes(run_id)))
        return self._stream(query, summary_reader(review))

    def listing_rows(self, **page: Unpack[Page]) -> Iterator[tuple[Any, ...]]:
        """Episodes, newest first, as ``sessions`` lists them, streamed as plain tuples: id,
        task, status, agent, user, steps (counted from the events while running), start,
        whether the outcome is there (not absent, not JSON null), whether it passed, the
        calibrated accuracy, the control summary (checked, or None) and the user's verdict.
        Only what the listing shows is taken out of the JSON, and no row object is made."""
        table = table_of(EpisodeRow)
        columns = [table.c[name] for name in ("id", "task_id", "status", "agent", "user", "steps", "started_at")]
        fields = [
            self._json_field("outcome", (), "present"),
            self._json_field("outcome", ("passed",), "bool"),
            self._json_field("scores", ("calibrated_accuracy",), "float"),
            self._json_field("scores", ("control",), "object"),
            self._json_field("scores", ("user_verdict", "verdict"), "str"),
        ]
        return self._stream(_listing([*columns, *fields], page), listing_row)

    def report_rows(self, statuses: tuple[str, ...], run_id: str | None = None) -> Iterator[tuple[Any, ...]]:
        """The episodes of each of ``statuses`` in turn, newest first within each (the order
        ``summaries`` gives, so sums are taken in the same order), as plain tuples
        (``summaries.REPORT_COLUMNS`` then ``REPORT_JSON``, see ``report_row``) streamed a
        batch at a time: all ``sttui report`` reads of an episode, and nothing else, so a
        report over 100,000 episodes holds no row objects. ``run_id``: only the episodes that
        run counts."""
        table = table_of(EpisodeRow)
        columns = [table.c[name] for name in REPORT_COLUMNS]
        fields = [self._json_field(c, path, kind) for c, path, kind in REPORT_JSON]
        for status in statuses:
            query = (
                select(*columns, *fields)
                .where(table.c.status == status)
                .order_by(table.c.started_at.desc(), table.c.id.desc())
            )
            if run_id is not None:
                query = query.where(table.c.id.in_(runs.done_episodes(run_id)))
            yield from self._stream(query, report_row)

    def episodes_with_event(self, event_type: str) -> set[str]:
        """Every episode holding an event of ``event_type``, one of the rare types with their own
        partial index (``INDEXED_EVENTS``): one query that reads only that index."""
        query = episodes_with_event_sql(event_type)
        return set(self._read_core(lambda conn: conn.exec_driver_sql(query).scalars().all()))

    def count_episodes(self, **filters: Unpack[Filters]) -> int:
        query = _filtered(select(func.count()).select_from(table_of(EpisodeRow)), filters)
        return int(self._read_core(lambda conn: conn.execute(query).scalar()) or 0)

    def _json_field(self, column: str, path: tuple[str, ...], kind: str) -> Any:
        """A field inside a JSON column, taken out by the database: its JSON type (``type``:
        object, null, …, or NULL when absent), whether the column is ``{}`` (``empty``), or its
        value (SQLite gives JSON booleans as 1 and 0)."""
        col = getattr(EpisodeRow, column)
        pg = self.engine.url.get_backend_name() == "postgresql"
        if kind == "type":
            if pg:
                return func.json_typeof(col[path] if path else col)
            return func.json_type(col, "$" + "".join(f'."{p}"' for p in path))
        if kind == "empty":
            return cast(col, String) == "{}"
        if kind == "present":  # the column holds something (not SQL NULL, not JSON null): no parse on SQLite
            if pg:
                return and_(func.json_typeof(col).is_not(None), func.json_typeof(col) != "null")
            return and_(col.is_not(None), func.trim(cast(col, String)) != "null")
        if kind == "object":  # as "json", in one parse on SQLite: the value as JSON text (a string quoted,
            # absent as 'null'), so the reader keeps it only when it parses to an object
            if pg:
                return col[path].as_string()
            return func.json_quote(func.json_extract(col, "$" + "".join(f'."{p}"' for p in path)))
        if kind == "json":  # the value's JSON text, whatever its type
            if pg:
                return col[path].as_string()  # (#>>: an object's JSON text)
            where = "$" + "".join(f'."{p}"' for p in path)
            # json_extract gives an object's JSON text but a string's bare value: objects only
            return case((func.json_type(col, where) == "object", func.json_extract(col, where)), else_=None)
        if not pg:  # untyped: the driver's own values, with no conversion on the way
            return func.json_extract(col, "$" + "".join(f'."{p}"' for p in path))
        value = col[path]
        return {"bool": value.as_boolean, "float": value.as_float, "int": value.as_integer, "str": value.as_string}[
            kind
        ]()

    def _stream(self, query: Any, convert: Any) -> Iterator[Any]:
        """Rows of ``query`` converted one by one, fetched a batch at a time (a server-side
        cursor on PostgreSQL), so a listing of any length holds one batch in memory."""
        try:
            with self.engine.connect() as conn:
                result = conn.execution_options(yield_per=_BATCH).execute(query)
                for row in result:
                    yield convert(row)
        except READ_ERRORS as exc:
            raise explain(exc, self.url) from None
