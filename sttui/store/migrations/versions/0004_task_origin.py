"""Where each stored task version came from (``origin``), and its tools as data (``tools``).

Versions stored before this revision get origin ``unknown``: nobody can tell any more whether
they were recorded here or imported, so their code runs only as an imported version's would.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("origin", sa.String, nullable=False, server_default="unknown"))
        batch.add_column(sa.Column("tools", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("tools")
        batch.drop_column("origin")
