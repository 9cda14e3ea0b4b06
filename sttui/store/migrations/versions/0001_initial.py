"""The first schema: tasks, episodes and their events.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("task_id", sa.String, nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("content_hash", sa.String, nullable=False),
        sa.Column("title", sa.String, nullable=False),
        sa.Column("meta", sa.JSON, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("env_ref", sa.String, nullable=True),
        sa.Column("env_source", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("task_id", "content_hash", name="uq_tasks_version"),
    )
    op.create_index("ix_tasks_task_id", "tasks", ["task_id"])
    op.create_table(
        "episodes",
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("task_id", sa.String, nullable=False),
        sa.Column("task_hash", sa.String, nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("setting", sa.String, nullable=False),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("agent", sa.String, nullable=False),
        sa.Column("user", sa.String, nullable=True),
        sa.Column("outcome", sa.JSON, nullable=True),
        sa.Column("scores", sa.JSON, nullable=True),
        sa.Column("end_reason", sa.String, nullable=True),
        sa.Column("steps", sa.Integer, nullable=False),
        sa.Column("state_hash", sa.String, nullable=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
    )
    op.create_index("ix_episodes_task_id", "episodes", ["task_id"])
    op.create_index("ix_episodes_status", "episodes", ["status"])
    op.create_index("ix_episodes_started", "episodes", ["started_at"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("episode_id", sa.String, sa.ForeignKey("episodes.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("wall_time", sa.Float, nullable=False),
        sa.Column("sim_time", sa.String, nullable=False),
        sa.Column("actor", sa.String, nullable=False),
        sa.Column("type", sa.String, nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.UniqueConstraint("episode_id", "seq", name="uq_events_episode_seq"),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("episodes")
    op.drop_table("tasks")
