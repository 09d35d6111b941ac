"""Alembic environment: always given an open connection by ``Database._migrate``."""

from alembic import context

from errands.db.schema import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=True, compare_type=True)
context.run_migrations()
