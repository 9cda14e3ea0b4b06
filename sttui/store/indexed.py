"""The event types with an index of their own (a partial index on ``events``, made by migration
0009): rare events a listing asks about for every episode (forks, seat changes), found by one
query that reads only the index. Here, with no database library, so the standard-library reader
(``sttui.store.peek``) and the tables (``sttui.store.tables``) name the same ones."""

INDEXED_EVENTS = ("forked", "seat_changed")
