"""Indexes for large records: listing by status and start time, labels by episode, and ids by
prefix on PostgreSQL (``text_pattern_ops``, so ``LIKE 'abc%'`` uses an index whatever the
database's collation; SQLite finds a prefix by a range on the primary key).

Revision ID: 0005_scale_indexes
Revises: 0004
"""

from alembic import op

revision = "0005_scale_indexes"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_episodes_status_started", "episodes", ["status", "started_at"])
    op.create_index("ix_episodes_id_pattern", "episodes", ["id"], postgresql_ops={"id": "text_pattern_ops"})
    op.create_index("ix_labels_episode", "labels", ["episode_id"])


def downgrade() -> None:
    op.drop_index("ix_labels_episode", "labels")
    op.drop_index("ix_episodes_id_pattern", "episodes")
    op.drop_index("ix_episodes_status_started", "episodes")
