"""Driver-level statements for the burst path of admission.

Why: SQLAlchemy spends about 20 µs per row converting parameters, and a burst of 1,000
fires due at one instant must be claimed and committed within a few tens of milliseconds.
These helpers run ``executemany`` on the session's own connection (so they stay inside
its transaction) with values converted exactly as the ORM stores them; a test checks
that rows written here and through the ORM are byte-for-byte the same. Statements are
written with SQLite's ``?`` marks; on PostgreSQL (psycopg) they become ``%s`` and values
keep their types (an instant as a timestamp, a flag as a boolean).
"""

from __future__ import annotations

import functools
import json
import operator
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, String, Table, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from ..timeutil import UTC
from .schema import AutomationRow, UTCDateTime, without_nul


def sqlite_instant(value: datetime | None) -> str | None:
    """The text ``UTCDateTime`` stores on SQLite (SQLAlchemy's DATETIME storage format)."""
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    return _utc_text(value.astimezone(UTC))  # in UTC, equal instants are equal keys


@functools.lru_cache(maxsize=4096)  # a burst shares its few instants
def _utc_text(value: datetime) -> str:
    return value.replace(tzinfo=None).isoformat(" ", "microseconds")


def is_sqlite(s: Session) -> bool:
    return s.get_bind().dialect.name == "sqlite"


def naive_utc(value: datetime | None) -> datetime | None:
    """What a timestamp column is given on PostgreSQL (as ``UTCDateTime`` binds it)."""
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    return value.astimezone(UTC).replace(tzinfo=None)


def instant_param(s: Session, value: datetime | None) -> Any:
    """An instant as a driver-level statement of this session's database takes it."""
    return sqlite_instant(value) if is_sqlite(s) else naive_utc(value)


class _Driver:
    """The driver connection under the session's transaction (begun if need be), taking
    statements written with ``?`` marks."""

    def __init__(self, s: Session) -> None:
        self.conn: Any = s.connection().connection.driver_connection
        self.sqlite = is_sqlite(s)

    def sql(self, statement: str) -> str:
        return statement if self.sqlite else statement.replace("%", "%%").replace("?", "%s")

    def execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        with _translated(statement, self.sqlite):
            if self.sqlite:
                return self.conn.execute(statement, params)
            cursor = self.conn.cursor()
            cursor.execute(self.sql(statement), params)
            return cursor

    def executemany(self, statement: str, params: Sequence[Sequence[Any]]) -> int:
        with _translated(statement, self.sqlite):
            if self.sqlite:
                return int(self.conn.executemany(statement, params).rowcount)
            cursor = self.conn.cursor()
            cursor.executemany(self.sql(statement), params)
            return int(cursor.rowcount)


def _driver(s: Session) -> _Driver:
    return _Driver(s)


@contextmanager
def _translated(statement: str, sqlite: bool = True) -> Iterator[None]:
    """Driver errors surface as SQLAlchemy's, as they would through the ORM."""
    if sqlite:
        try:
            yield
        except sqlite3.Error as exc:
            raise DBAPIError.instance(statement, None, exc, sqlite3.Error) from exc
        return
    import psycopg
    try:
        yield
    except psycopg.Error as exc:
        raise DBAPIError.instance(statement, None, exc, psycopg.Error) from exc


def _converter(column: Any, sqlite: bool = True) -> Callable[[Any], Any] | None:
    kind = column.type
    if isinstance(kind, UTCDateTime):
        return sqlite_instant if sqlite else naive_utc
    if isinstance(kind, JSON):
        return _json_text
    if isinstance(kind, Boolean):
        if not sqlite:
            return lambda v: None if v is None else bool(v)
        return lambda v: None if v is None else int(bool(v))
    if not sqlite and isinstance(kind, String):  # (Text too)
        return without_nul
    return None


def _json_text(value: Any) -> str:
    if type(value) is list and not value:  # every new run's attempts
        return "[]"
    return json.dumps(value)  # None becomes JSON null, as with the ORM's default


def _default(column: Any) -> Any:
    default = column.default
    if default is None or not default.is_scalar:
        return None
    return default.arg


MAX_VARIABLES = 999  # values one statement may bind on every SQLite (3.32+ allow 32,766)


def insert_rows(s: Session, table: Table, rows: Sequence[dict[str, Any]], *,
                multirow: bool = False) -> None:
    """One INSERT per set of columns given; columns not given get their scalar default.

    ``multirow``: many rows per statement (``VALUES (…), (…)``) instead of ``executemany``,
    which steps the database once per row. Each step lets go of the interpreter lock, and
    taking it back can wait out the switch interval while another thread computes (the
    provider's, busy with fifty runs): a thirty-row write on the event loop took 30 ms
    instead of 5."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for values in rows:
        groups.setdefault(tuple(values), []).append(values)
    conn = _driver(s)
    for given, members in groups.items():
        defaulted = [c for c in table.columns if c.name not in given and _default(c) is not None]
        columns = [table.columns[name] for name in given] + defaulted
        names = ", ".join(f'"{c.name}"' for c in columns)
        row_marks = f"({', '.join('?' * len(columns))})"
        statement = f'INSERT INTO "{table.name}" ({names}) VALUES {row_marks}'
        pick = operator.itemgetter(*given)  # every row of a group has the same keys
        defaults = [_default(c) for c in defaulted]
        converted = [(i, fn) for i, fn in enumerate(_converter(c, conn.sqlite) for c in columns)
                     if fn is not None]
        params = []
        for row in members:
            picked = pick(row)
            values = [*picked, *defaults] if len(given) > 1 else [picked, *defaults]
            for i, fn in converted:
                values[i] = fn(values[i])
            params.append(values)
        if not multirow:
            conn.executemany(statement, params)
            continue
        per = max(1, MAX_VARIABLES // len(columns))
        for i in range(0, len(params), per):
            chunk = params[i:i + per]
            many = statement + (", " + row_marks) * (len(chunk) - 1)
            conn.execute(many, [v for values in chunk for v in values])


def update_rows(s: Session, table: Table, rows: Sequence[dict[str, Any]], key: str = "id") -> int:
    """Set the given columns of each row found by ``key``; returns how many rows changed."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for values in rows:
        groups.setdefault(tuple(name for name in values if name != key), []).append(values)
    conn = _driver(s)
    changed = 0
    for names, members in groups.items():
        columns = [table.columns[name] for name in names]
        assignments = ", ".join(f'"{name}" = ?' for name in names)
        statement = f'UPDATE "{table.name}" SET {assignments} WHERE "{key}" = ?'
        plan = [(name, _converter(c, conn.sqlite)) for name, c in zip(names, columns)]
        params = []
        for row in members:
            values = [row[name] if fn is None else fn(row[name]) for name, fn in plan]
            params.append([*values, row[key]])
        changed += conn.executemany(statement, params)
    return changed


def fetch_all(s: Session, statement: str, params: Sequence[Any] = ()) -> list[Any]:
    """A read of plain columns on the session's own connection (inside its transaction)."""
    return list(_driver(s).execute(statement, params).fetchall())


def execute_many(s: Session, statement: str, params: Sequence[Sequence[Any]]) -> int:
    """One statement for many parameter sets; returns how many rows changed."""
    if not params:
        return 0
    return _driver(s).executemany(statement, params)


def select_rows(s: Session, table: Table, ids: Sequence[str]) -> list[Any]:
    """Rows by primary key through Core (types converted), in chunks of 500."""
    key = next(iter(table.primary_key.columns))
    found: list[Any] = []
    for i in range(0, len(ids), 500):
        found.extend(s.execute(select(table).where(key.in_(ids[i:i + 500]))))
    return found


class StaleCursor(Exception):
    """The store no longer holds the cursor an automation was planned from."""


@dataclass
class Cursor:
    """The automation columns admission changes, planned from the engine's memory.

    The engine is the only writer while it runs, so its memory is current and the burst
    path need not read the rows first; ``write_cursors`` still checks each row against
    the values it was planned from (``was``) and refuses the batch if one differs."""

    id: str
    status: str
    next_fire_at: datetime | None
    revision: int
    last_index: int
    updated_at: datetime | None = None  # set only when admission changes the status
    was: tuple[str, str | None, int, int] = field(init=False)
    planned_next: datetime | None = field(init=False)  # (the instant itself, for PostgreSQL)

    def __post_init__(self) -> None:
        self.planned_next = self.next_fire_at
        self.was = (self.status, sqlite_instant(self.next_fire_at), self.revision,
                    self.last_index)


_CURSOR_WRITE = ("UPDATE automations SET status = ?, next_fire_at = ?, last_index = ?, "
                 "updated_at = coalesce(?, updated_at) WHERE id = ? AND status = ? "
                 "AND next_fire_at {same} ? AND revision = ? AND last_index = ?")
assert AutomationRow.__tablename__ == "automations"


def write_cursors(s: Session, cursors: Sequence[Cursor]) -> None:
    """Move the cursors, each only if its row still holds what it was planned from."""
    if not cursors:
        return
    conn = _driver(s)
    if conn.sqlite:
        params = [(c.status, sqlite_instant(c.next_fire_at), c.last_index,
                   sqlite_instant(c.updated_at), c.id, *c.was) for c in cursors]
        statement = _CURSOR_WRITE.format(same="IS")
    else:  # (typed instants there; IS compares only with NULL)
        params = [(c.status, naive_utc(c.next_fire_at), c.last_index, naive_utc(c.updated_at),
                   c.id, c.was[0], naive_utc(c.planned_next), *c.was[2:]) for c in cursors]
        statement = _CURSOR_WRITE.format(same="IS NOT DISTINCT FROM")
    changed = conn.executemany(statement, params)
    if changed != len(cursors):
        raise StaleCursor(f"{len(cursors) - changed} of {len(cursors)} automations changed "
                          "in the store since the engine planned their fires")
