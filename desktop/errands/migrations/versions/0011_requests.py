"""commands from other machines for the engine serving a shared catalogue

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""
from alembic import op
import sqlalchemy as sa

from errands.db.schema import Str, UTCDateTime


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'requests',
        sa.Column('id', Str(36), nullable=False),
        sa.Column('op', Str(64), nullable=False),
        sa.Column('args', sa.JSON(), nullable=False),
        sa.Column('machine', Str(100), nullable=False),
        sa.Column('state', Str(16), nullable=False),
        sa.Column('answer', sa.JSON(), nullable=True),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.Column('answered_at', UTCDateTime(), nullable=True),
        sa.Column('answered_by', Str(100), nullable=True),
        sa.PrimaryKeyConstraint('id'))
    op.create_index('ix_requests_state', 'requests', ['state', 'created_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_requests_state', table_name='requests')
    op.drop_table('requests')
