"""Opening a PostgreSQL catalogue: the same models and migrations as the SQLite file, the
same sessions (``write``, ``read``) and the same refusals.

Writes keep the SQLite file's rule of one writer at a time: each write transaction first
takes a transaction-scoped advisory lock, so a command's write and the engine's queue as
they do on SQLite's write lock, and no read-modify-write of the catalogue can interleave
with another. Reads run at REPEATABLE READ: one snapshot per read transaction, as WAL gives
SQLite's readers. Every write transaction that changes automations announces them as it
commits (``NOTIFY errands_changes``), for the engines of the other machines
(``engine_hold``).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
import weakref
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import StoreError
from ..migrations import HEAD, KNOWN_REVISIONS
from .location import ServerDatabase, password_for

log = logging.getLogger(__name__)
T = TypeVar("T")

# advisory lock keys (any bigint): one for writers, one for migrating, one for the engine
WRITE_KEY = 0x4572_7261_6E64_0001
MIGRATE_KEY = 0x4572_7261_6E64_0002
ENGINE_KEY = 0x4572_7261_6E64_0003
ENGINE_APP = "errands engine on "  # the holder's application_name, then its machine
CHANGES = "errands_changes"  # the channel of change notices (``engine_hold``)
CONNECT_TIMEOUT_S = 10
RETRY_S = 2.0  # a standby's pause before it asks again, the server being away
OLDEST_SERVER = 120000  # PostgreSQL 12 (server_version_num)
# How far an engine's clock may be from the catalogue server's (database time is the
# reference): each engine claims fires by its own clock and stamps runs with it, so beyond
# this the machines would disagree on when a fire was due, or late, or missed.
MAX_CLOCK_SKEW_S = 2.0
local_time: Callable[[], float] = time.time  # (this machine's clock, as the engine reads it)


def clock_offset(conn: Any, samples: int = 3) -> tuple[float, float]:
    """How far this machine's clock is behind the server's, in seconds (negative: ahead),
    and the round trip of the sample it was read from: the quickest of ``samples``, its
    midpoint taken as the moment the server read its clock. ``conn``: a psycopg
    connection in autocommit."""
    best: tuple[float, float] | None = None
    for _ in range(samples):
        before = local_time()
        row = conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8").fetchone()
        after = local_time()
        offset, trip = float(row[0]) - (before + after) / 2, after - before
        if best is None or trip < best[1]:
            best = (offset, trip)
    assert best is not None
    return best


def clock_words(offset: float) -> str:
    """``7.3 s ahead of`` / ``0.4 s behind`` the server's clock."""
    return f"{abs(offset):.1f} s {'behind' if offset > 0 else 'ahead of'}"


def refuse_skewed_clock(conn: Any, where: str) -> None:
    """Raise StoreError('clock_skew') when this machine's clock is off the server's by more
    than ``MAX_CLOCK_SKEW_S`` (the round trip's uncertainty given the benefit of the doubt)."""
    import psycopg

    try:
        offset, trip = clock_offset(conn)
    except psycopg.Error as exc:
        raise StoreError("database_unreachable", f"cannot reach the catalogue {where}: "
                         f"{_first_line(exc)}") from exc
    if abs(offset) - trip / 2 > MAX_CLOCK_SKEW_S:
        raise StoreError("clock_skew", f"this machine's clock is {clock_words(offset)} the "
                         f"clock of the server holding the catalogue {where}; an engine "
                         f"serves a shared catalogue only within {MAX_CLOCK_SKEW_S:g} s of "
                         "it (the database's time is the reference): set this machine's "
                         "clock right (on Linux: timedatectl set-ntp true), then start again")


def _url(server: ServerDatabase, password: str | None) -> URL:
    return URL.create("postgresql+psycopg", username=server.user, password=password,
                      host=server.host, port=server.port, database=server.database,
                      query=dict(server.options))


def conninfo(server: ServerDatabase) -> str:
    """A libpq URL for ``server`` with the keyring's password (for psycopg's own
    connections: the engine's lock, requests, doctor); never shown or logged."""
    url = _url(server, password_for(server)).render_as_string(hide_password=False)
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def _sqlstate(exc: BaseException) -> str | None:
    return getattr(getattr(exc, "orig", None), "sqlstate", None)


class PostgresDatabase:
    """A shared catalogue on PostgreSQL (see the module text)."""

    dialect = "postgresql"

    def __init__(self, server: ServerDatabase, busy_ms: int = 10_000) -> None:
        self.location = server
        self.path = server.display  # what messages name
        self.busy_ms = busy_ms
        password = password_for(server)
        options: dict[str, Any] = {
            "connect_args": {"connect_timeout": CONNECT_TIMEOUT_S,
                             "application_name": dict(server.options).get(
                                 "application_name", "errands")},
            "pool_pre_ping": True}
        self._url = _url(server, password)
        self.write_engine = create_engine(self._url, **options)
        self.read_engine = create_engine(self._url, isolation_level="REPEATABLE READ", **options)
        self._serialize_writes(self.write_engine)
        self._writer = sessionmaker(self.write_engine, expire_on_commit=False)
        self.token = uuid.uuid4().hex[:16]  # names this store's notices (its engine's own)
        self._announce_changes()
        self._reader = sessionmaker(self.read_engine, expire_on_commit=False)
        # a store dropped unclosed (a command's, at its end) still says goodbye to the server
        self._finalizer = weakref.finalize(self, _dispose, self.write_engine, self.read_engine)
        try:
            self.server_version = self._check()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ opening

    def _serialize_writes(self, engine: Engine) -> None:
        busy_ms = self.busy_ms

        @event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            from .database import _WAIT_MS  # (the command's shorter wait, as on SQLite)
            wait = _WAIT_MS.get()
            ms = busy_ms if wait is None else wait
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = {max(1, int(ms))}")
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_KEY})")

    def _announce_changes(self) -> None:
        """Each flush that wrote automations NOTIFYs their ids (and where each may run, so
        an engine reads only what concerns it); the server delivers it with the commit, and
        never for a transaction rolled back."""
        from .schema import AutomationRow

        token = self.token

        @event.listens_for(self._writer, "after_flush")
        def _announce(session: Session, _: Any) -> None:
            changed: dict[str, str] = {}
            for row in (*session.new, *session.dirty, *session.deleted):
                if isinstance(row, AutomationRow) and row.id:
                    d = row.definition
                    runs_on = d.get("runs_on") if isinstance(d, dict) else None
                    changed[row.id] = runs_on if isinstance(runs_on, str) else "any"
            for part in _notice_parts(token, changed):
                session.connection().exec_driver_sql(
                    "SELECT pg_notify(%(channel)s, %(text)s)", {"channel": CHANGES, "text": part})

    def _check(self) -> int:
        """The server's version number; the schema checked, and migrated when older.
        Raises StoreError for a server too old, a database holding others' tables, or one
        written by a newer Errands."""
        with self._translate():
            with self.read_engine.connect() as conn:
                version = int(conn.exec_driver_sql("SHOW server_version_num").scalar() or 0)
                conn.rollback()
        if version < OLDEST_SERVER:
            raise StoreError("database", f"{self.path}: PostgreSQL {version // 10000} is too old; "
                             "Errands needs 12 or later")
        stored = self._stored_revision()
        if stored != HEAD:
            holder = engine_holder(self.location) if stored is not None else None
            if holder is not None:  # its engine runs on that schema: not changed under it
                raise StoreError("schema_behind", f"{self.path} is at schema {stored}, and "
                                 f"this Errands needs {HEAD}; the engine on {holder} serves "
                                 "it, so it is upgraded when no engine serves it (or when "
                                 f"Errands on {holder} is updated and restarted)")
            self._migrate()
        return version

    def _stored_revision(self) -> str | None:
        with self._translate():
            with self.read_engine.connect() as conn:
                tables = {r[0] for r in conn.exec_driver_sql(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
                version = None
                if "alembic_version" in tables:
                    version = conn.exec_driver_sql(
                        "SELECT version_num FROM alembic_version").scalar()
                conn.rollback()
        if version is None:
            if tables:
                raise StoreError("foreign", f"{self.path} holds tables that are not Errands'. "
                                 "Errands left it untouched; name another database.")
            return None
        if not (isinstance(version, str) and len(version) == 4 and version.isdigit()):
            raise StoreError("foreign", f"{self.path} holds another program's migrations "
                             f"(revision {str(version)[:40]!r}). Errands left it untouched; "
                             "name another database.")
        if version not in KNOWN_REVISIONS:
            raise StoreError("newer_version", f"{self.path} was written by a newer version of "
                             f"Errands (schema {version}). Update Errands on this machine; "
                             "the database was left untouched.")
        return str(version)

    def _migrate(self) -> None:
        from alembic import command  # imported only when there is work to do
        from alembic.config import Config

        from ..migrations import SCRIPT_LOCATION

        cfg = Config()
        cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
        with self._translate():
            with self.write_engine.connect() as conn:
                with conn.begin():  # (the writers' lock too: nobody writes while it migrates)
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATE_KEY})")
                    cfg.attributes["connection"] = conn
                    command.upgrade(cfg, "head")  # (a no-op if another machine just did it)

    # ------------------------------------------------------------------ sessions

    @property
    def waiting_for_lock(self) -> bool:
        return False  # (a write waits on the server, in its own transaction)

    @contextmanager
    def _translate(self) -> Iterator[None]:
        try:
            yield
        except IntegrityError:
            raise  # a constraint doing its job; callers decide
        except OperationalError as exc:
            state = _sqlstate(exc)
            if state == "55P03":  # lock_not_available: the lock_timeout passed
                from .database import _WAIT_MS
                waited = _WAIT_MS.get()
                ms = self.busy_ms if waited is None else waited
                raise StoreError("locked", f"{self.path} stayed busy with another writer for "
                                 f"{ms / 1000:g} s; try again.") from exc
            if state is None or state.startswith("08") or state.startswith("57P"):
                raise StoreError("database_unreachable",
                                 f"cannot reach the catalogue {self.path}: "
                                 f"{_first_line(exc.orig)}") from exc
            raise StoreError("database", f"{self.path}: {_first_line(exc.orig)}") from exc
        except DBAPIError as exc:
            if _sqlstate(exc) == "55P03":
                raise StoreError("locked", f"{self.path} stayed busy with another writer; "
                                 "try again.") from exc
            raise StoreError("database", f"{self.path}: {_first_line(exc.orig)}") from exc

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction, alone among the catalogue's writers."""
        with self._translate():
            with self._writer.begin() as session:
                yield session

    @contextmanager
    def read(self, *, lenient: bool = False) -> Iterator[Session]:
        """A read transaction on one snapshot (``lenient``: PostgreSQL holds only valid
        text, so there is nothing to be lenient about)."""
        with self._translate():
            with self._reader() as session:
                yield session

    def leniently(self, read: Callable[[bool], T]) -> T:
        return read(False)

    def checkpoint(self) -> None:
        """(The server checkpoints on its own.)"""

    # ------------------------------------------------------------------- engine

    def _engine_connection(self, machine: str) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(self._url.render_as_string(hide_password=False)
                                   .replace("postgresql+psycopg://", "postgresql://"),
                                   autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                   application_name=(ENGINE_APP + machine)[:63],
                                   # this side notices a vanished server as soon (a laptop
                                   # that slept: its sessions ended there meanwhile)
                                   keepalives=1, keepalives_idle=10, keepalives_interval=5,
                                   keepalives_count=3)
            # the server notices a vanished machine within about half a minute (its
            # default is hours), and lets the lock go with the session
            conn.execute("SET tcp_keepalives_idle = 10")
            conn.execute("SET tcp_keepalives_interval = 5")
            conn.execute("SET tcp_keepalives_count = 3")
        except psycopg.Error as exc:
            raise StoreError("database_unreachable", f"cannot reach the catalogue "
                             f"{self.path}: {_first_line(exc)}") from exc
        return conn

    def _clock_right(self, conn: Any, again: bool) -> bool:
        """Whether this machine's clock is right by the server's, asked on a hold's
        connection, which is closed when it is not: raises ``clock_skew``, or (the server
        gone meanwhile) ``database_unreachable``, unless the caller should ask ``again``:
        then False, after a pause."""
        try:
            refuse_skewed_clock(conn, self.path)
            return True
        except BaseException as exc:
            conn.close()
            if not (isinstance(exc, StoreError) and exc.code == "database_unreachable"
                    and again):
                raise
        time.sleep(RETRY_S)
        return False

    def close(self) -> None:
        self._finalizer()


NOTICE_BYTES = 7000  # (the server's limit for a notice's text is 8000 bytes)


def _notice_parts(token: str, changed: dict[str, str]) -> Iterator[str]:
    """``changed`` (id -> runs_on) as notice texts, each within the server's limit."""
    part: dict[str, str] = {}
    size = 0
    for ident, runs_on in changed.items():
        part[ident] = runs_on
        size += len(ident) + len(runs_on) + 8
        if size > NOTICE_BYTES:
            yield json.dumps({"s": token, "a": part})
            part, size = {}, 0
    if part:
        yield json.dumps({"s": token, "a": part})


def read_notice(text: str) -> tuple[str, dict[str, str]] | None:
    """A change notice's (store token, id -> runs_on); None for one not of that shape
    (anyone may NOTIFY on the channel)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not (isinstance(doc, dict) and isinstance(doc.get("s"), str)
            and isinstance(doc.get("a"), dict)):
        return None
    changed = {k: v for k, v in doc["a"].items() if isinstance(k, str) and isinstance(v, str)
               and 0 < len(k) <= 64}
    return doc["s"], changed


def _dispose(*engines: Engine) -> None:
    for engine in engines:
        engine.dispose()


def engine_holder(server: ServerDatabase) -> str | None:
    """The machine whose engine serves ``server`` now, or None when none does."""
    import psycopg

    try:
        with psycopg.connect(conninfo(server),
                             autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            row = conn.execute(  # (advisory locks belong to one database of the server)
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a "
                "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
                "l.objid = %s AND l.classid = %s AND l.database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())",
                (ENGINE_KEY & 0xFFFFFFFF, ENGINE_KEY >> 32)).fetchone()
    except psycopg.Error as exc:
        raise StoreError("database_unreachable", f"cannot reach the catalogue {server}: "
                         f"{_first_line(exc)}") from exc
    if row is None:
        return None
    name = row[0] or ""
    return name[len(ENGINE_APP):] if name.startswith(ENGINE_APP) else "another machine"


def _first_line(exc: BaseException | None) -> str:
    text = str(exc or "").strip()
    return text.splitlines()[0] if text else type(exc).__name__
