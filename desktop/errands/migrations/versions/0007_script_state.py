"""script automations: each one's key-value state

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""
from alembic import op
import sqlalchemy as sa

from errands.db.schema import UTCDateTime


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'script_state',
        sa.Column('automation_id', sa.String(length=36), nullable=False),
        sa.Column('state', sa.JSON(), nullable=False),
        sa.Column('updated_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('automation_id'))


def downgrade() -> None:
    op.drop_table('script_state')
