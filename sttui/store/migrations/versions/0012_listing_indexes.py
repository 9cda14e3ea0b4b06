"""Indexes that hold everything ``sttui sessions`` and ``sttui report`` read of each episode, on
SQLite: its columns, and the values the two queries take out of its outcome and scores, written
exactly as the queries write them. SQLite then reads those values from the index and never
visits the episode's row, nor parses its JSON, which was most of either command's time on a large
record (100,000 episodes: the listing's query 1.6 s, now about 0.3 s).

They begin with the columns of three plain indexes (``REPLACED``), which are dropped: writing
an episode's row costs what it did. Each value is worked out when the row is written (once
when the episode starts, again when it ends), so a value that is not JSON cannot be stored in
``outcome`` or ``scores`` any more: SQLite refuses the write ("malformed JSON"). A record that
already holds one keeps its plain indexes: these are not made, and both commands read it as
before (and say it is damaged).

On PostgreSQL nothing changes: an index there cannot hand back an expression's value (the rows
are read anyway), and the JSON work is the server's, on its own cores.

Revision ID: 0012_listing_indexes
Revises: 0011_event_indexes
"""

from alembic import op

revision = "0012_listing_indexes"
down_revision = "0011_event_indexes"
branch_labels = None
depends_on = None

# Each expression as the store's queries write it (sttui/store/peek.py has both queries' text; a
# test checks that SQLite answers both from these indexes alone).
_OUTCOME = "json_extract(outcome, '$.\"passed\"')"
_CONTROL = "json_quote(json_extract(scores, '$.\"control\"'))"
_CA = "json_extract(scores, '$.\"calibrated_accuracy\"')"
_VERDICT = 'json_extract(scores, \'$."user_verdict"."verdict"\')'
_ENDED = "outcome IS NOT NULL AND trim(CAST(outcome AS VARCHAR)) != 'null'"

INDEXES = {
    # ``sessions``: the listing, newest first, with its filters (task, controller, status, since)
    "ix_episodes_listing": [
        "started_at",
        "id",
        "task_id",
        "status",
        "agent",
        "user",
        "steps",
        _ENDED,
        _OUTCOME,
        _CA,
        _CONTROL,
        _VERDICT,
    ],
    # ``report``: the finished episodes of one status, newest first (and ``sessions --status``)
    "ix_episodes_report": [
        "status",
        "started_at",
        "id",
        "task_id",
        "task_hash",
        "kind",
        "setting",
        "agent",
        "user",
        "steps",
        "clean_baseline",
        _ENDED,
        _OUTCOME,
        _CONTROL,
        _CA,
        _VERDICT,
        "json_extract(scores, '$.\"incomplete\"')",
        "json_extract(scores, '$.\"human_active_seconds\"')",
        'json_extract(scores, \'$."review"."score"\')',
        'json_extract(scores, \'$."review"."completion"\')',
        'json_extract(scores, \'$."review"."stop"."steps_saved"\')',
        'json_quote(json_extract(scores, \'$."review"."judges"\'))',
    ],
}

# a stored value that is not JSON (a record edited by hand) would fail the index's making
_DAMAGED = (
    "SELECT 1 FROM episodes WHERE outcome IS NOT NULL AND NOT json_valid(outcome) "
    "OR scores IS NOT NULL AND NOT json_valid(scores) LIMIT 1"
)


# the plain indexes each of these begins with, dropped where these are made: every query they
# served is served by these (a count by status reads the report index: 13 ms for 100,000
# episodes, against 3 ms), and an episode's row written costs what it did before 0012 (three
# index entries fewer for the two more)
REPLACED = {
    "ix_episodes_started": "started_at",
    "ix_episodes_status_started": "status, started_at",
    "ix_episodes_status": "status",
}


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite" or bind.exec_driver_sql(_DAMAGED).first() is not None:
        return
    for name, columns in INDEXES.items():
        bind.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {name} ON episodes ({', '.join(columns)})")
    for name in REPLACED:
        bind.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for name, columns in REPLACED.items():
            bind.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {name} ON episodes ({columns})")
        for name in INDEXES:
            bind.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
