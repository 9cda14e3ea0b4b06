"""The stage judges' cache: ``stage_judgements`` (an answer by its cache key).

Revision ID: 0007_stage_judgements
Revises: 0006_runs
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_stage_judgements"
down_revision = "0006_runs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stage_judgements",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("prompt_version", sa.String(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("stage_judgements")
