"""Indexes of two rare kinds of event that listings of the whole record look for: ``forked``
(``sttui report`` leaves forks out, ``sessions`` marks them) and ``seat_changed`` (episodes whose
seat changed hands). Partial indexes, so recording every other event costs nothing more;
without them, finding those episodes read every event of every episode.

Revision ID: 0011_event_indexes
Revises: 0010_hashed_tokens
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_event_indexes"
down_revision = "0010_hashed_tokens"
branch_labels = None
depends_on = None

KINDS = ("forked", "seat_changed")


def upgrade() -> None:
    for kind in KINDS:
        where = sa.text(f"type = '{kind}'")
        op.create_index(f"ix_events_{kind}", "events", ["episode_id"], sqlite_where=where, postgresql_where=where)


def downgrade() -> None:
    for kind in KINDS:
        op.drop_index(f"ix_events_{kind}", "events")
