"""Human-baseline studies: ``studies`` (the study file as started), ``study_participants`` and
``study_slots`` (who plays which task version, in which order, and the episode that plays it).

Revision ID: 0008_studies
Revises: 0007_stage_judgements
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_studies"
down_revision = "0007_stage_judgements"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "studies",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("tasks", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "study_participants",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.String(), sa.ForeignKey("studies.id"), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("token", sa.String(), nullable=True),
        sa.Column("joined_as", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("acknowledged_at", sa.Float(), nullable=True),
        sa.Column("joined_at", sa.Float(), nullable=True),
        sa.Column("withdrawn_at", sa.Float(), nullable=True),
        sa.UniqueConstraint("study_id", "name", name="uq_study_participants_name"),
        sa.UniqueConstraint("study_id", "joined_as", name="uq_study_participants_joined_as"),
    )
    op.create_table(
        "study_slots",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.String(), sa.ForeignKey("studies.id"), nullable=False),
        sa.Column("participant", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("task_hash", sa.String(), nullable=False),
        sa.Column("practice", sa.Boolean(), nullable=False),
        sa.Column("replication", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("episode_id", sa.String(), nullable=True),
        sa.Column("assigned_at", sa.Float(), nullable=True),
        sa.Column("done_at", sa.Float(), nullable=True),
        sa.UniqueConstraint("study_id", "participant", "position", name="uq_study_slots_position"),
        sa.UniqueConstraint("study_id", "participant", "task_id", name="uq_study_slots_task"),
    )


def downgrade() -> None:
    op.drop_table("study_slots")
    op.drop_table("study_participants")
    op.drop_table("studies")
