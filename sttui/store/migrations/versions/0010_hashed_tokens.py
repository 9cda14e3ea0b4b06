"""Study tokens stored hashed: each plain token in ``study_participants.token`` becomes
``sha256:<hex>``, so a copy of the record no longer lets anyone join as a participant.

Revision ID: 0010_hashed_tokens
Revises: 0009_gold
"""

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0010_hashed_tokens"
down_revision = "0009_gold"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    people = sa.table("study_participants", sa.column("id", sa.Integer), sa.column("token", sa.String))
    for pid, token in conn.execute(sa.select(people.c.id, people.c.token).where(people.c.token.is_not(None))).all():
        if not token.startswith("sha256:"):
            hashed = "sha256:" + hashlib.sha256(token.encode()).hexdigest()
            conn.execute(sa.update(people).where(people.c.id == pid).values(token=hashed))


def downgrade() -> None:
    pass  # a hash cannot be turned back into its token; the hashed tokens stay
