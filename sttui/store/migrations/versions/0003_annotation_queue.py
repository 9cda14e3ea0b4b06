"""Annotation queue: claims (the cap per item, taken atomically), withdrawn ratings for undo,
adjudications kept apart from the ratings, and episode labels.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ratings", sa.Column("withdrawn", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "claims",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("item_kind", sa.String, nullable=False),
        sa.Column("item_id", sa.String, nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotators.id"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("item_kind", "item_id", "annotator_id", name="uq_claims_item_annotator"),
    )
    op.create_table(
        "adjudications",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("item_kind", sa.String, nullable=False),
        sa.Column("item_id", sa.String, nullable=False),
        sa.Column("dimension", sa.String, nullable=False),
        sa.Column("adjudicator", sa.String, nullable=False),
        sa.Column("value", sa.Integer, nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "labels",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("episode_id", sa.String, sa.ForeignKey("episodes.id"), nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotators.id"), nullable=False),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("other", sa.Text, nullable=True),
        sa.Column("first_error_seq", sa.Integer, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("superseded_by", sa.Integer, sa.ForeignKey("labels.id"), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("labels")
    op.drop_table("adjudications")
    op.drop_table("claims")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("withdrawn")
