"""The event types with an index of their own (a partial index on ``events``, made by migration
0009): rare events a listing asks about for every episode (forks, seat changes), found by one
query that reads only the index. Here, with no database library, so the standard-library reader
(``sttui.store.peek``) and the tables (``sttui.store.tables``) name the same ones."""

INDEXED_EVENTS = ("forked", "seat_changed")


def episodes_with_event_sql(event_type: str) -> str:
    """The query for every episode holding an event of ``event_type``, one of ``INDEXED_EVENTS``,
    with the condition written out as the index's own (SQLite uses a partial index only then)."""
    if event_type not in INDEXED_EVENTS:
        raise ValueError(f"{event_type!r} has no index of its own; use episode_ids_with")
    return f"SELECT DISTINCT episode_id FROM events WHERE type = '{event_type}'"
