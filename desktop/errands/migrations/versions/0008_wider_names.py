"""room for the names of who acted and decided: "agent:<run id>" is 42 characters, which
SQLite kept in a VARCHAR(32) and PostgreSQL refuses

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""
import warnings

from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with warnings.catch_warnings():  # SQLite rebuilds the tables, reflecting their neighbours,
        # whose index on expressions SQLAlchemy cannot reflect (and need not: it is kept)
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
        _upgrade()


def _upgrade() -> None:
    with op.batch_alter_table('audit', schema=None) as batch_op:
        batch_op.alter_column('action', existing_type=sa.String(length=32),
                              type_=sa.String(length=64), existing_nullable=False)
        batch_op.alter_column('actor', existing_type=sa.String(length=32),
                              type_=sa.String(length=200), existing_nullable=False)
    with op.batch_alter_table('blockers', schema=None) as batch_op:
        batch_op.alter_column('decided_by', existing_type=sa.String(length=32),
                              type_=sa.String(length=200), existing_nullable=True)


def downgrade() -> None:
    with op.batch_alter_table('blockers', schema=None) as batch_op:
        batch_op.alter_column('decided_by', existing_type=sa.String(length=200),
                              type_=sa.String(length=32), existing_nullable=True)
    with op.batch_alter_table('audit', schema=None) as batch_op:
        batch_op.alter_column('actor', existing_type=sa.String(length=200),
                              type_=sa.String(length=32), existing_nullable=False)
        batch_op.alter_column('action', existing_type=sa.String(length=64),
                              type_=sa.String(length=32), existing_nullable=False)
