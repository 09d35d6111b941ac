"""indexes for the summaries: automations with misshapen instants, and the next-fire order

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

The summaries list ten thousand automations: finding the few rows with an instant that is
not one (a hand-edited or damaged row) through this index is cheaper than checking four
columns of every row on every listing. The summaries' default order (next fire, then
title) is read from an index instead of sorted: a page of 100 no longer sorts all rows.
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

_SECONDS = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
# frozen here: errands.db.schema.MISSHAPEN_INSTANTS must stay the same expression
_WHERE = "NOT (" + " AND ".join(
    f"({c} IS NULL OR (typeof({c}) = 'text' AND ({c} GLOB {_SECONDS}' OR {c} GLOB "
    f"{_SECONDS}.[0-9][0-9][0-9][0-9][0-9][0-9]') AND substr({c}, 1, 4) <> '0000' AND "
    f"datetime({c}, '+0 days') IS substr({c}, 1, 19)))"
    for c in ("paused_at", "last_finished_at", "created_at", "updated_at")) + ")"


def upgrade() -> None:
    op.create_index('ix_automations_misshapen', 'automations', ['id'], unique=False,
                    sqlite_where=sa.text(_WHERE),
                    # a typed timestamp is never misshapen: the index stays empty there
                    postgresql_where=sa.text("false"))
    op.create_index('ix_automations_next_fire_order', 'automations',
                    [sa.text('(next_fire_at IS NULL)'), 'next_fire_at', sa.text('lower(title)'),
                     'id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_automations_next_fire_order', table_name='automations')
    op.drop_index('ix_automations_misshapen', table_name='automations')
