"""on PostgreSQL, text columns without a length: SQLite ignores a VARCHAR's length, so a
row one catalogue keeps must not be refused by the other (an MCP tool's long name, a mail's
Message-ID); nothing changes on SQLite

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""
from alembic import op


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

_TABLES = ("automations", "revisions", "audit", "runs", "attention", "settings", "sessions",
           "messages", "blockers", "pending_events", "webhook_tokens", "trigger_state",
           "script_state", "mail_accounts", "requests")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    rows = bind.exec_driver_sql(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND data_type = 'character varying' "
        "AND table_name = ANY(%(tables)s) ORDER BY table_name, ordinal_position",
        {"tables": list(_TABLES)}).fetchall()
    for table, column in rows:
        op.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE text')


def downgrade() -> None:
    pass  # (text holds whatever the lengths held: nothing to undo)
