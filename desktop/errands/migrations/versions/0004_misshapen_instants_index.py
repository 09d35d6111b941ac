"""a partial index of automations whose stored instants are misshapen

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

The summaries list ten thousand automations: finding the few rows with an instant that is
not one (a hand-edited or damaged row) through this index is cheaper than checking four
columns of every row on every listing.
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_SHAPE = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'"
# frozen here: errands.db.schema.MISSHAPEN_INSTANTS must stay the same expression
_WHERE = "NOT (" + " AND ".join(
    f"({c} IS NULL OR (typeof({c}) = 'text' AND {c} GLOB {_SHAPE}))"
    for c in ("paused_at", "last_finished_at", "created_at", "updated_at")) + ")"


def upgrade() -> None:
    op.create_index('ix_automations_misshapen', 'automations', ['id'], unique=False,
                    sqlite_where=sa.text(_WHERE))


def downgrade() -> None:
    op.drop_index('ix_automations_misshapen', table_name='automations')
