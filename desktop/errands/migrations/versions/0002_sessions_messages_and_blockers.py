"""sessions, messages and blockers

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa
import errands.db.schema


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('sessions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('automation_id', sa.String(length=36), nullable=True),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.Column('updated_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sessions_automation_id'), ['automation_id'], unique=False)

    op.create_table('blockers',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('run_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('tool', sa.String(length=64), nullable=True),
    sa.Column('arguments', sa.JSON(), nullable=True),
    sa.Column('question', sa.Text(), nullable=True),
    sa.Column('choices', sa.JSON(), nullable=True),
    sa.Column('requested_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.Column('expires_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.Column('decision', sa.JSON(), nullable=True),
    sa.Column('decided_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('decided_by', sa.String(length=32), nullable=True),
    sa.Column('request_id', sa.String(length=200), nullable=True),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('blockers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blockers_run_id'), ['run_id'], unique=False)

    op.create_table('messages',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('session_id', sa.String(length=64), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.String(length=36), nullable=True),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('content', sa.JSON(), nullable=False),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('session_id', 'seq', name='uq_messages_session_seq')
    )
    with op.batch_alter_table('messages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_messages_run_id'), ['run_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('messages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_messages_run_id'))

    op.drop_table('messages')
    with op.batch_alter_table('blockers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_blockers_run_id'))

    op.drop_table('blockers')
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sessions_automation_id'))

    op.drop_table('sessions')
