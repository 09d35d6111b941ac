"""a request from another machine names the engine that is to perform it (several engines
serve a shared catalogue: each performs what concerns its own machine's automations)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""
import warnings

from alembic import op
import sqlalchemy as sa

from errands.db.schema import Str


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with warnings.catch_warnings():  # (SQLite: see 0008)
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
        with op.batch_alter_table('requests', schema=None) as batch_op:
            batch_op.add_column(sa.Column('target', Str(100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('requests', schema=None) as batch_op:
        batch_op.drop_column('target')
