"""Alembic environment: migrations run on the connection the store hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import sttui.store.tables  # noqa: F401  (defines the tables on SQLModel.metadata)

config = context.config
connection = config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
