"""A whole catalogue copied into another (``errands migrate --to``): this machine's SQLite
file into a shared PostgreSQL one, or back.

What moves is what a user would miss: each automation with its revisions, trail, runs,
transcripts, approvals, attention items, trigger and script state and webhook tokens, the
sessions of discussions, the settings and the mail accounts (their passwords stay in the
keyring). Requests between machines are transient and stay behind.

- **Idempotent, by automation.** An automation already in the destination (its id) is left
  as it is there, with everything of it: a second copy adds nothing, and a copy into a
  catalogue that other machines already use never overwrites their work. Settings and mail
  accounts are added only where the destination has none of that name. Rows keyed by a
  number (revisions, messages, …) get the destination's numbers; nothing refers to those.
- **All or nothing.** Everything is written in one transaction of the destination: a copy
  that fails midway (the server went away, a disk filled) leaves the destination as it was.
  One automation whose stored rows cannot be read (a damaged file) costs that automation,
  named in the report, not the copy.
- A run that ran here and says nowhere where it ran gets this machine's name, so a shared
  catalogue still tells which machine it was (and which machine's start may end its child).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Table, insert, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ..db.database import NotJSON
from ..definition import bind_to
from ..errors import StoreError
from ..db.schema import (
    AttentionRow,
    AuditRow,
    AutomationRow,
    BlockerRow,
    MailAccountRow,
    MessageRow,
    PendingEventRow,
    RevisionRow,
    RunRow,
    ScriptStateRow,
    SessionRow,
    SettingRow,
    TriggerStateRow,
    WebhookTokenRow,
    NotInstant,
)

if TYPE_CHECKING:
    from ..store import Store

log = logging.getLogger(__name__)
CHUNK = 500  # rows an INSERT carries, and ids an IN (...) names

# the tables that hang off an automation, in the order their keys need
_OF_AUTOMATION: tuple[type[Any], ...] = (RevisionRow, AuditRow, RunRow, SessionRow,
                                         MessageRow, BlockerRow, AttentionRow,
                                         PendingEventRow, WebhookTokenRow, TriggerStateRow,
                                         ScriptStateRow)
# words for the report, by table: (one, several)
NOUNS = {"automations": ("automation", "automations"), "revisions": ("revision", "revisions"),
         "audit": ("trail entry", "trail entries"), "runs": ("run", "runs"),
         "sessions": ("transcript", "transcripts"), "messages": ("message", "messages"),
         "blockers": ("approval", "approvals"),
         "attention": ("attention item", "attention items"),
         "pending_events": ("pending event", "pending events"),
         "webhook_tokens": ("webhook token", "webhook tokens"),
         "trigger_state": ("trigger state", "trigger states"),
         "script_state": ("script state", "script states"),
         "settings": ("setting", "settings"), "mail_accounts": ("mail account", "mail accounts")}


def counted(table: str, n: int) -> str:
    """``n`` rows of ``table`` in the report's words ("1 run", "3 trail entries")."""
    one, several = NOUNS[table]
    return f"{n} {one if n == 1 else several}"


@dataclass
class Copied:
    """What a copy wrote, and what it left."""

    rows: dict[str, int] = field(default_factory=dict)       # table -> rows written
    already_there: list[str] = field(default_factory=list)   # automation ids left as they were
    damaged: dict[str, str] = field(default_factory=dict)    # automation id -> why not copied

    def to_dict(self) -> dict[str, Any]:
        return {"copied": {name: self.rows.get(name, 0) for name in NOUNS},
                "already_there": self.already_there,
                "not_copied": [{"id": ident, "why": why} for ident, why in self.damaged.items()]}


class Damaged(Exception):
    """A stored value that could not be read back (a damaged row)."""


def _chunks(items: list[Any]) -> Iterator[list[Any]]:
    for i in range(0, len(items), CHUNK):
        yield items[i:i + CHUNK]


def _values(table: Table, row: Any) -> dict[str, Any]:
    """A row's values for an INSERT into the same table elsewhere: a numbered key left for
    the destination to give."""
    values = {}
    for column in table.columns:
        if column.primary_key and column.autoincrement is True:
            continue
        value = row._mapping[column.name]
        if isinstance(value, NotJSON):
            raise Damaged(f"{table.name}.{column.name} is not JSON ({value.error})")
        if isinstance(value, NotInstant):
            raise Damaged(f"{table.name}.{column.name}: {value}")
        values[column.name] = value
    return values


def _rows(s: Session, table: Table, column: str, keys: Iterable[Any]) -> list[Any]:
    found: list[Any] = []
    for part in _chunks(list(keys)):
        found.extend(s.execute(select(table).where(table.c[column].in_(part))))
    return found


def _write(s: Session, table: Table, rows: list[dict[str, Any]], copied: Copied) -> None:
    for part in _chunks(rows):
        s.execute(insert(table), part)
    copied.rows[table.name] = copied.rows.get(table.name, 0) + len(rows)


def _automation_rows(src: Session, automation_id: str, machine: str, bind: bool = False
                     ) -> list[tuple[Table, list[dict[str, Any]]]]:
    """Everything of one automation in the source, as values to insert (``Damaged`` when
    any of it cannot be read); ``bind``: into a shared catalogue (``definition.bind_to``)."""
    out: list[tuple[Table, list[dict[str, Any]]]] = []
    table = AutomationRow.__table__
    rows = [_values(table, r) for r in _rows(src, table, "id", [automation_id])]
    for v in rows if bind else ():
        v["definition"] = bind_to(v.get("definition"), machine)
    out.append((table, rows))
    runs: list[str] = []
    sessions: list[str] = []
    for model in _OF_AUTOMATION:
        table = model.__table__
        if model is MessageRow:
            found = _rows(src, table, "session_id", sessions)
        elif model is BlockerRow:
            found = _rows(src, table, "run_id", runs)
        else:
            found = _rows(src, table, "automation_id", [automation_id])
        values = [_values(table, r) for r in found]
        if bind and "definition" in table.c:  # (its revisions: the trail reads the same)
            for v in values:
                v["definition"] = bind_to(v.get("definition"), machine)
        if model is RunRow:
            runs = [v["id"] for v in values]
            for v in values:
                if not v.get("machine") and (v.get("started_at") or v.get("pid")):
                    v["machine"] = machine  # (it ran here)
        if model is SessionRow:
            sessions = [v["id"] for v in values]
        out.append((table, values))
    return out


def copy_between(source: Store, target: Store, machine: str) -> Copied:
    """Copy ``source`` into ``target`` in one transaction of the target: committed whole,
    or rolled back whole (``StoreError("copy_failed")``, saying so)."""
    try:
        with source.db.read() as src, target.transaction() as dest:
            return copy_catalogue(src, dest, machine, bind=target.dialect != "sqlite")
    except (SQLAlchemyError, StoreError) as exc:
        why = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise StoreError("copy_failed", f"the copy into {target.db.location} failed and "
                         f"was rolled back: nothing was written there ({why})") from exc


def copy_catalogue(src: Session, dest: Session, machine: str, bind: bool = False) -> Copied:
    """Copy what ``src`` (a read) holds into ``dest`` (a write transaction; the caller
    commits it, or rolls it back on any exception)."""
    copied = Copied()
    automations = AutomationRow.__table__
    ids = [i for (i,) in src.execute(select(automations.c.id).order_by(automations.c.id))]
    there = {i for part in _chunks(ids) for (i,) in dest.execute(
        select(automations.c.id).where(automations.c.id.in_(part)))}
    # rows gathered over many automations, written a table at a time in the order their
    # keys need (few round trips to a server across a network)
    pending: dict[Table, list[dict[str, Any]]] = {}

    def flush() -> None:
        for table, values in pending.items():  # (a refusal here fails the whole copy)
            if values:
                _write(dest, table, values, copied)
        pending.clear()

    for automation_id in ids:
        if automation_id in there:
            copied.already_there.append(automation_id)
            continue
        try:
            rows = _automation_rows(src, automation_id, machine, bind)
        except Damaged as exc:
            copied.damaged[automation_id] = str(exc)
            continue
        for table, values in rows:
            pending.setdefault(table, []).extend(values)
        if sum(len(v) for v in pending.values()) >= CHUNK:
            flush()
    flush()
    _copy_loose_audit(src, dest, set(ids), copied)
    _copy_loose_sessions(src, dest, copied)
    for model, key in ((SettingRow, "key"), (MailAccountRow, "name")):
        table = model.__table__
        have = {k for (k,) in dest.execute(select(table.c[key]))}
        values = []
        for row in src.execute(select(table)):
            if row._mapping[key] in have:
                continue
            try:
                values.append(_values(table, row))
            except Damaged as exc:
                log.warning("not copied: %s %s (%s)", table.name, row._mapping[key], exc)
        if values:
            _write(dest, table, values, copied)
    return copied


def _copy_loose_audit(src: Session, dest: Session, automations: set[str],
                      copied: Copied) -> None:
    """The trail of deleted automations, kept after them: copied for each such automation
    the destination has no trail of."""
    table = AuditRow.__table__
    gone = {a for (a,) in src.execute(select(table.c.automation_id).distinct())} - automations
    known = {a for part in _chunks(sorted(gone)) for (a,) in dest.execute(
        select(table.c.automation_id).where(table.c.automation_id.in_(part)).distinct())}
    values = []
    for row in _rows(src, table, "automation_id", sorted(gone - known)):
        try:
            values.append(_values(table, row))
        except Damaged:
            continue
    if values:
        _write(dest, table, values, copied)


def _copy_loose_sessions(src: Session, dest: Session, copied: Copied) -> None:
    """Discussions belong to no automation: each copied with its messages, unless there."""
    sessions, messages = SessionRow.__table__, MessageRow.__table__
    ids = [i for (i,) in src.execute(select(sessions.c.id).where(
        sessions.c.automation_id.is_(None)))]
    there = {i for part in _chunks(ids) for (i,) in dest.execute(
        select(sessions.c.id).where(sessions.c.id.in_(part)))}
    for session_id in ids:
        if session_id in there:
            continue
        try:
            rows = [(sessions, [_values(sessions, r)
                                for r in _rows(src, sessions, "id", [session_id])]),
                    (messages, [_values(messages, r)
                                for r in _rows(src, messages, "session_id", [session_id])])]
        except Damaged:
            continue
        for table, values in rows:
            if values:
                _write(dest, table, values, copied)
