"""counted runs: the runs that count toward stop.max_runs (not those run by hand)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('automations', schema=None) as batch_op:
        batch_op.add_column(sa.Column('counted_runs', sa.Integer(), nullable=False,
                                      server_default='0'))
    # what each automation's history already holds: finished scheduled and catch-up runs
    op.execute("UPDATE automations SET counted_runs = (SELECT COUNT(*) FROM runs "
               "WHERE runs.automation_id = automations.id AND runs.trigger != 'manual' "
               "AND NOT runs.dry_run AND runs.state IN ('succeeded', 'failed'))")


def downgrade() -> None:
    with op.batch_alter_table('automations', schema=None) as batch_op:
        batch_op.drop_column('counted_runs')
