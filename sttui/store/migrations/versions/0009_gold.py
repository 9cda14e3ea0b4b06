"""Gold items for annotators: ``gold`` (an adjudicator's accepted rating, or range, on one
dimension of an item; history kept by ``superseded_by``).

Revision ID: 0009_gold
Revises: 0008_studies
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_gold"
down_revision = "0008_studies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gold",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("item_kind", sa.String(), nullable=False),
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("dimension", sa.String(), nullable=False),
        sa.Column("low", sa.Integer(), nullable=False),
        sa.Column("high", sa.Integer(), nullable=False),
        sa.Column("adjudicator", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("superseded_by", sa.Integer(), sa.ForeignKey("gold.id"), nullable=True),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_gold_item", "gold", ["item_kind", "item_id"])


def downgrade() -> None:
    op.drop_index("ix_gold_item", table_name="gold")
    op.drop_table("gold")
