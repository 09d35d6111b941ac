"""each run names the machine whose engine started it (a shared catalogue's runs come from
several machines)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""
import warnings

from alembic import op
import sqlalchemy as sa

from errands.db.schema import Str


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with warnings.catch_warnings():  # (SQLite: see 0008)
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
        with op.batch_alter_table('runs', schema=None) as batch_op:
            batch_op.add_column(sa.Column('machine', Str(100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_column('machine')
