"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-12-02
"""
from alembic import op
import sqlalchemy as sa
import errands.db.schema


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('attention',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('automation_id', sa.String(length=36), nullable=True),
    sa.Column('run_id', sa.String(length=36), nullable=True),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('body', sa.Text(), nullable=True),
    sa.Column('read', sa.Boolean(), nullable=False),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('attention', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_attention_automation_id'), ['automation_id'], unique=False)
        batch_op.create_index('ix_attention_read', ['read', 'created_at'], unique=False)

    op.create_table('audit',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('automation_id', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=True),
    sa.Column('actor', sa.String(length=32), nullable=False),
    sa.Column('detail', sa.JSON(), nullable=True),
    sa.Column('at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('audit', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_automation_id'), ['automation_id'], unique=False)

    op.create_table('automations',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('request_id', sa.String(length=200), nullable=True),
    sa.Column('request_fingerprint', sa.String(length=64), nullable=True),
    sa.Column('title', sa.String(length=120), nullable=False),
    sa.Column('definition', sa.JSON(), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('paused_reason', sa.Text(), nullable=True),
    sa.Column('paused_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('next_fire_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('failure_streak', sa.Integer(), nullable=False),
    sa.Column('run_count', sa.Integer(), nullable=False),
    sa.Column('last_index', sa.Integer(), nullable=False),
    sa.Column('last_finished_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('last_result', sa.Text(), nullable=True),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.Column('updated_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('request_id')
    )
    with op.batch_alter_table('automations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_automations_next_fire_at'), ['next_fire_at'], unique=False)

    op.create_table('settings',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('revisions',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('automation_id', sa.String(length=36), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('definition', sa.JSON(), nullable=False),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('automation_id', 'revision')
    )
    with op.batch_alter_table('revisions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_revisions_automation_id'), ['automation_id'], unique=False)

    op.create_table('runs',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('automation_id', sa.String(length=36), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('slot', sa.String(length=240), nullable=False),
    sa.Column('revision', sa.Integer(), nullable=False),
    sa.Column('trigger', sa.String(length=16), nullable=False),
    sa.Column('scheduled_for', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('attempt', sa.Integer(), nullable=False),
    sa.Column('attempts', sa.JSON(), nullable=True),
    sa.Column('retry_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('started_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('finished_at', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('skip_reason', sa.String(length=40), nullable=True),
    sa.Column('missed_count', sa.Integer(), nullable=True),
    sa.Column('missed_first', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('missed_last', errands.db.schema.UTCDateTime(), nullable=True),
    sa.Column('stop_reason', sa.String(length=40), nullable=True),
    sa.Column('error_code', sa.String(length=40), nullable=True),
    sa.Column('error_message', sa.Text(), nullable=True),
    sa.Column('result', sa.Text(), nullable=True),
    sa.Column('output_tail', sa.Text(), nullable=True),
    sa.Column('session_id', sa.String(length=64), nullable=True),
    sa.Column('dry_run', sa.Boolean(), nullable=False),
    sa.Column('request_id', sa.String(length=200), nullable=True),
    sa.Column('pid', sa.Integer(), nullable=True),
    sa.Column('pid_started', sa.Double(), nullable=True),
    sa.Column('prompt_tokens', sa.Integer(), nullable=True),
    sa.Column('completion_tokens', sa.Integer(), nullable=True),
    sa.Column('created_at', errands.db.schema.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['automation_id'], ['automations.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('automation_id', 'index', name='uq_runs_automation_index'),
    sa.UniqueConstraint('automation_id', 'slot', name='uq_runs_automation_slot')
    )
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.create_index('ix_runs_state', ['state'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_index('ix_runs_state')

    op.drop_table('runs')
    with op.batch_alter_table('revisions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_revisions_automation_id'))

    op.drop_table('revisions')
    op.drop_table('settings')
    with op.batch_alter_table('automations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_automations_next_fire_at'))

    op.drop_table('automations')
    with op.batch_alter_table('audit', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_automation_id'))

    op.drop_table('audit')
    with op.batch_alter_table('attention', schema=None) as batch_op:
        batch_op.drop_index('ix_attention_read')
        batch_op.drop_index(batch_op.f('ix_attention_automation_id'))

    op.drop_table('attention')
