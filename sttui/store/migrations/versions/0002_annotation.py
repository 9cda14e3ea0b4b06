"""Annotators, ratings with history, notes; episodes remember whether they are clean baselines.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: SQLite supports it without rebuilding the table (and its foreign keys).
    op.add_column("episodes", sa.Column("clean_baseline", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_table(
        "annotators",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("item_kind", sa.String, nullable=False),
        sa.Column("item_id", sa.String, nullable=False),
        sa.Column("dimension", sa.String, nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotators.id"), nullable=False),
        sa.Column("value", sa.Integer, nullable=False),
        sa.Column("comment", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("superseded_by", sa.Integer, sa.ForeignKey("ratings.id"), nullable=True),
    )
    op.create_index("ix_ratings_item", "ratings", ["item_kind", "item_id"])
    op.create_table(
        "notes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("episode_id", sa.String, sa.ForeignKey("episodes.id"), nullable=True),
        sa.Column("item_kind", sa.String, nullable=True),
        sa.Column("item_id", sa.String, nullable=True),
        sa.Column("author", sa.String, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("notes")
    op.drop_table("ratings")
    op.drop_table("annotators")
    with op.batch_alter_table("episodes") as batch:
        batch.drop_column("clean_baseline")
