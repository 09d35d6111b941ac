"""event triggers: events awaiting admission, webhook token hashes, per-trigger state,
mail accounts

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""
from alembic import op
import sqlalchemy as sa

from errands.db.schema import UTCDateTime


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'pending_events',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('automation_id', sa.String(length=36), nullable=False),
        sa.Column('trigger_id', sa.String(length=40), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('source', sa.String(length=16), nullable=False),
        sa.Column('key', sa.String(length=200), nullable=False),
        sa.Column('at', UTCDateTime(), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=True),
        sa.Column('depth', sa.Integer(), nullable=False),
        sa.Column('chain', sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('automation_id', 'source', 'key', name='uq_pending_events_key'))
    op.create_index('ix_pending_events_automation_id', 'pending_events', ['automation_id'])
    op.create_table(
        'webhook_tokens',
        sa.Column('automation_id', sa.String(length=36), nullable=False),
        sa.Column('trigger_id', sa.String(length=40), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('automation_id', 'trigger_id'))
    op.create_table(
        'trigger_state',
        sa.Column('automation_id', sa.String(length=36), nullable=False),
        sa.Column('trigger_id', sa.String(length=40), nullable=False),
        sa.Column('state', sa.JSON(), nullable=False),
        sa.Column('updated_at', UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('automation_id', 'trigger_id'))

    op.create_table(
        'mail_accounts',
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('config', sa.JSON(), nullable=False),
        sa.Column('created_at', UTCDateTime(), nullable=False),
        sa.Column('updated_at', UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('name'))


def downgrade() -> None:
    op.drop_table('mail_accounts')
    op.drop_table('trigger_state')
    op.drop_table('webhook_tokens')
    op.drop_index('ix_pending_events_automation_id', table_name='pending_events')
    op.drop_table('pending_events')
