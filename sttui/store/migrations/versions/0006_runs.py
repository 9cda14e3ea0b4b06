"""Runs split across workers: ``runs`` (a run id and its plan's digest) and ``run_items`` (its
planned episodes, claimed with a lease).

Revision ID: 0006_runs
Revises: 0005_scale_indexes
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_runs"
down_revision = "0005_scale_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("plan_digest", sa.String(), nullable=False),
        sa.Column("plan", sa.JSON(), nullable=False),
        sa.Column("items", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "run_items",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.String(), sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("task_hash", sa.String(), nullable=False),
        sa.Column("trial", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("claimed_by", sa.String(), nullable=True),
        sa.Column("claimed_at", sa.Float(), nullable=True),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("episode_id", sa.String(), nullable=True),
        sa.Column("done_at", sa.Float(), nullable=True),
        sa.UniqueConstraint("run_id", "idx", name="uq_run_items_run_idx"),
    )
    op.create_index("ix_run_items_claim", "run_items", ["run_id", "status", "idx"])


def downgrade() -> None:
    op.drop_index("ix_run_items_claim", "run_items")
    op.drop_table("run_items")
    op.drop_table("runs")
