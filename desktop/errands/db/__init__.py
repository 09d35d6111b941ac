"""Persistence: the ORM schema, opening the database safely, and Alembic migrations."""
