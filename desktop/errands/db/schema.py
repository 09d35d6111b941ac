"""The tables. Instants are stored as naive UTC and handed back aware (``UTCDateTime``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import (JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text,
                        TypeDecorator, UniqueConstraint, text)
from sqlalchemy.types import TypeEngine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ..timeutil import UTC


@dataclass(frozen=True)
class NotInstant:
    """What a timestamp column holds when its stored value is not an instant (text that is
    not a date, a number): the value as stored and the complaint. One such row must not
    stop every query that reads its table, so each reader decides what to make of it."""

    text: str
    error: str

    def __str__(self) -> str:
        return f"{self.text!r} is not an instant ({self.error})"


class UTCDateTime(TypeDecorator[datetime]):
    impl = DateTime
    cache_ok = True

    def result_processor(self, dialect: Any, coltype: Any) -> Callable[[Any], Any]:
        decode = super().result_processor(dialect, coltype)

        def process(value: Any) -> Any:
            try:
                return decode(value) if decode else value
            except (ValueError, TypeError, OverflowError) as exc:
                return NotInstant(str(value)[:200], str(exc) or type(exc).__name__)
        return process

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class _PostgresText(TypeDecorator[str]):
    """PostgreSQL's text, which cannot hold a NUL character (SQLite's can): one becomes
    U+FFFD, so a command that prints one still gets its run recorded."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        return value.replace("\x00", "\ufffd") if isinstance(value, str) else value


def Str(length: int) -> TypeEngine[str]:
    """A text column: ``VARCHAR(length)`` as SQLite declares it (and ignores: the parsers
    bound what is stored), plain ``text`` on PostgreSQL, which would enforce the length and
    refuse a row SQLite keeps (migration 0009): one catalogue behaves alike on both."""
    return String(length).with_variant(_PostgresText(), "postgresql")


def LongText() -> TypeEngine[str]:
    """A text column of any length (NUL characters kept on SQLite, see ``_PostgresText``)."""
    return Text().with_variant(_PostgresText(), "postgresql")


def without_nul(value: Any) -> Any:
    """What a text column of PostgreSQL is given for ``value`` (the burst statements)."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) else value


# An automation row with an instant the summaries do not show but must not trust: anything
# but the text Errands writes for a real instant ('YYYY-MM-DD HH:MM:SS' with or without six
# decimals, a valid date and time from year 1; a hand edit or a damaged file writes other
# things). The partial index below holds only such rows, so a listing of ten thousand finds
# them without reading four columns of every row; the expression is evaluated once per write
# instead. ``datetime(c, '+0 days')`` normalises (30 February becomes 2 March; nonsense
# becomes NULL), so it differs from the text exactly when that is no real instant; ``IS``
# and ``substr`` keep NULL and the column's numeric affinity out of the comparisons.
# Migration 0004 holds the same text.
_SECONDS = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
MISSHAPEN_INSTANTS = "NOT (" + " AND ".join(
    f"({c} IS NULL OR (typeof({c}) = 'text' AND ({c} GLOB {_SECONDS}' OR {c} GLOB "
    f"{_SECONDS}.[0-9][0-9][0-9][0-9][0-9][0-9]') AND substr({c}, 1, 4) <> '0000' AND "
    f"datetime({c}, '+0 days') IS substr({c}, 1, 19)))"
    for c in ("paused_at", "last_finished_at", "created_at", "updated_at")) + ")"


class AutomationRow(Base):
    __tablename__ = "automations"
    __table_args__ = (Index("ix_automations_misshapen", "id",
                            sqlite_where=text(MISSHAPEN_INSTANTS),
                            postgresql_where=text("false")),  # (typed there: never misshapen)
                      # the summaries' default order, read in order instead of sorted
                      Index("ix_automations_next_fire_order", text("(next_fire_at IS NULL)"),
                            "next_fire_at", text("lower(title)"), "id"))

    id: Mapped[str] = mapped_column(Str(36), primary_key=True)
    request_id: Mapped[str | None] = mapped_column(Str(200), unique=True)
    request_fingerprint: Mapped[str | None] = mapped_column(Str(64))
    title: Mapped[str] = mapped_column(Str(120))
    definition: Mapped[dict[str, Any]] = mapped_column(JSON)
    revision: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(Str(16), default="active")
    paused_reason: Mapped[str | None] = mapped_column(LongText())
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The earliest automatic fire not yet accounted for: the engine's durable cursor.
    next_fire_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    failure_streak: Mapped[int] = mapped_column(Integer, default=0)
    run_count: Mapped[int] = mapped_column(Integer, default=0)
    # finished runs that count toward stop.max_runs: scheduled and catch-up ones, not those
    # run by hand (seed 000: a manual run is outside the schedule's count)
    counted_runs: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_index: Mapped[int] = mapped_column(Integer, default=0)
    last_finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_result: Mapped[str | None] = mapped_column(LongText())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RevisionRow(Base):
    __tablename__ = "revisions"
    __table_args__ = (UniqueConstraint("automation_id", "revision"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    definition: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AuditRow(Base):
    """What happened to a definition. Kept after deletion (no foreign key) as the trail."""

    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    automation_id: Mapped[str] = mapped_column(Str(36), index=True)
    action: Mapped[str] = mapped_column(Str(64))
    revision: Mapped[int | None] = mapped_column(Integer)
    actor: Mapped[str] = mapped_column(Str(200), default="user")
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class RunRow(Base):
    __tablename__ = "runs"
    __table_args__ = (
        UniqueConstraint("automation_id", "index", name="uq_runs_automation_index"),
        UniqueConstraint("automation_id", "slot", name="uq_runs_automation_slot"),
        Index("ix_runs_state", "state"),
    )

    id: Mapped[str] = mapped_column(Str(36), primary_key=True)
    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    slot: Mapped[str] = mapped_column(Str(240))
    revision: Mapped[int] = mapped_column(Integer)
    trigger: Mapped[str] = mapped_column(Str(16))
    scheduled_for: Mapped[datetime | None] = mapped_column(UTCDateTime)
    state: Mapped[str] = mapped_column(Str(16))
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    attempts: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    retry_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    skip_reason: Mapped[str | None] = mapped_column(Str(40))
    missed_count: Mapped[int | None] = mapped_column(Integer)
    missed_first: Mapped[datetime | None] = mapped_column(UTCDateTime)
    missed_last: Mapped[datetime | None] = mapped_column(UTCDateTime)
    stop_reason: Mapped[str | None] = mapped_column(Str(40))
    error_code: Mapped[str | None] = mapped_column(Str(40))
    error_message: Mapped[str | None] = mapped_column(LongText())
    result: Mapped[str | None] = mapped_column(LongText())
    output_tail: Mapped[str | None] = mapped_column(LongText())
    session_id: Mapped[str | None] = mapped_column(Str(64))
    dry_run: Mapped[bool] = mapped_column(Boolean, default=False)
    request_id: Mapped[str | None] = mapped_column(Str(200))
    pid: Mapped[int | None] = mapped_column(Integer)
    pid_started: Mapped[float | None] = mapped_column()
    # the machine whose engine started it (ERRANDS_MACHINE, else the host name): on a shared
    # catalogue, where its process ran
    machine: Mapped[str | None] = mapped_column(Str(100))
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # An agent run's extras: changed files, its worktree, proposed actions (dry run), steps
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class AttentionRow(Base):
    __tablename__ = "attention"
    __table_args__ = (Index("ix_attention_read", "read", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    automation_id: Mapped[str | None] = mapped_column(Str(36), index=True)
    run_id: Mapped[str | None] = mapped_column(Str(36))
    kind: Mapped[str] = mapped_column(Str(32))
    title: Mapped[str] = mapped_column(Str(200))
    body: Mapped[str | None] = mapped_column(LongText())
    read: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SettingRow(Base):
    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(Str(64), primary_key=True)
    value: Mapped[str] = mapped_column(LongText())


class SessionRow(Base):
    """A transcript: one per run (``fresh``) or one per automation (``continue``)."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(Str(64), primary_key=True)
    automation_id: Mapped[str | None] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(Str(16))  # "run" or "automation"
    title: Mapped[str] = mapped_column(Str(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class MessageRow(Base):
    """One message of a session, in order (``seq``); ``content`` is the provider's shape."""

    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("session_id", "seq", name="uq_messages_session_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[str | None] = mapped_column(Str(36), index=True)
    role: Mapped[str] = mapped_column(Str(16))
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class BlockerRow(Base):
    """Why a parked run waits, and the decision that lets it go on."""

    __tablename__ = "blockers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(Str(16))  # "permission" or "question"
    tool: Mapped[str | None] = mapped_column(Str(64))
    arguments: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    question: Mapped[str | None] = mapped_column(LongText())
    choices: Mapped[list[str] | None] = mapped_column(JSON)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    decision: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decided_by: Mapped[str | None] = mapped_column(Str(200))
    request_id: Mapped[str | None] = mapped_column(Str(200))


class PendingEventRow(Base):
    """An event recorded in the transaction that saw it (another automation's end), not yet
    admitted: the engine offers it after the commit, and again at start if a crash came
    between; its admission deletes it (the run's unique slot makes a replay a no-op)."""

    __tablename__ = "pending_events"
    __table_args__ = (UniqueConstraint("automation_id", "source", "key",
                                       name="uq_pending_events_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), index=True)
    trigger_id: Mapped[str] = mapped_column(Str(40))
    kind: Mapped[str] = mapped_column(Str(16))
    source: Mapped[str] = mapped_column(Str(16))
    key: Mapped[str] = mapped_column(Str(200))
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    depth: Mapped[int] = mapped_column(Integer, default=0)
    chain: Mapped[list[str] | None] = mapped_column(JSON)


class WebhookTokenRow(Base):
    """A webhook trigger's bearer token, as its SHA-256 only (the token is shown once)."""

    __tablename__ = "webhook_tokens"

    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), primary_key=True)
    trigger_id: Mapped[str] = mapped_column(Str(40), primary_key=True)
    token_hash: Mapped[str] = mapped_column(Str(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TriggerStateRow(Base):
    """What an event trigger must remember across restarts: a folder's snapshot, a
    mailbox's UIDVALIDITY and highest UID seen."""

    __tablename__ = "trigger_state"

    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), primary_key=True)
    trigger_id: Mapped[str] = mapped_column(Str(40), primary_key=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ScriptStateRow(Base):
    """A script automation's key-value state (``setState``), changed with its run's close."""

    __tablename__ = "script_state"

    automation_id: Mapped[str] = mapped_column(
        ForeignKey("automations.id", ondelete="CASCADE"), primary_key=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class MailAccountRow(Base):
    """A mail account the mail trigger and tools use: where and who (the password is in
    the OS keyring, never here)."""

    __tablename__ = "mail_accounts"

    name: Mapped[str] = mapped_column(Str(64), primary_key=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RequestRow(Base):
    """A command from another machine for the engine that serves a shared catalogue: asked
    here (and announced with NOTIFY), taken by that engine with ``FOR UPDATE SKIP LOCKED``,
    answered here. Unused on the SQLite file, where commands reach the engine over its
    control channel."""

    __tablename__ = "requests"
    __table_args__ = (Index("ix_requests_state", "state", "created_at"),)

    id: Mapped[str] = mapped_column(Str(36), primary_key=True)
    op: Mapped[str] = mapped_column(Str(64))
    args: Mapped[dict[str, Any]] = mapped_column(JSON)
    machine: Mapped[str] = mapped_column(Str(100))   # who asked
    target: Mapped[str | None] = mapped_column(Str(100))  # whose engine performs it (None:
    # the one doing the common work)
    state: Mapped[str] = mapped_column(Str(16))      # waiting, working, done
    answer: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # {"ok", "result"|"error"}
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    answered_by: Mapped[str | None] = mapped_column(Str(100))
