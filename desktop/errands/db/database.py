"""Opening the SQLite file: refuse what is unsafe, migrate what is old, never overwrite.

Two engines share one file: writes begin with ``BEGIN IMMEDIATE`` so concurrent writers
queue on SQLite's lock instead of failing half-way; reads use deferred transactions and,
thanks to WAL, never wait for a writer.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sqlite3
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import StoreError
from ..paths import PRIVATE_FILE, tighten
from ..migrations import HEAD, KNOWN_REVISIONS

log = logging.getLogger(__name__)
T = TypeVar("T")

SQLITE_HEADER = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class NotJSON:
    """What a JSON column holds when its stored text is not JSON: the text itself and
    the parser's complaint. One such row must not stop every query that reads the table,
    so the value is handed back as this marker and each reader decides."""

    text: str
    error: str


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        return NotJSON(str(text), str(exc))


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (fifo)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _kind(mode: int) -> str:
    return next((text for test, text in _KINDS if test(mode)), "not a regular file")


def prepare_file(path: Path) -> None:
    """Refuse a database path (or one of SQLite's side files) that is not a regular file,
    without ever opening it (opening a fifo would block); create a missing database 0600
    and tighten an existing one of ours that others may read."""
    for candidate in (path, *(path.with_name(path.name + end) for end in SIDE_FILES)):
        try:
            info = candidate.stat()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StoreError("store_unusable", f"{candidate} cannot be examined: "
                             f"{exc.strerror or exc}") from exc
        if not stat.S_ISREG(info.st_mode):
            what = "its database" if candidate == path else "a file SQLite keeps beside it"
            raise StoreError("store_unusable", f"{candidate} is {_kind(info.st_mode)}, where "
                             f"Errands expects {what}; move it aside or choose another "
                             "--data-dir.")
        tighten(candidate, info, PRIVATE_FILE)
    if not path.exists():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
            tighten(path, path.stat(), PRIVATE_FILE)
        except FileExistsError:
            pass  # another process created it meanwhile: it was checked above or is theirs
        except OSError as exc:
            raise StoreError("store_unusable", f"cannot create the database {path}: "
                             f"{exc.strerror or exc}") from exc


def _replacing(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _undecodable(exc: BaseException) -> bool:
    """Whether a read failed on stored text that is not UTF-8."""
    return "Could not decode to UTF-8" in str(exc)


# How long a write transaction begun in this context waits for another program's lock,
# when not the database's usual wait (see ``waiting_at_most``).
_WAIT_MS: contextvars.ContextVar[int | None] = contextvars.ContextVar("errands_write_wait_ms",
                                                                     default=None)


@contextmanager
def waiting_at_most(ms: int | None) -> Iterator[None]:
    """Write transactions begun inside wait at most ``ms`` for a lock another program holds
    (None: the usual wait), then fail with ``StoreError("locked")``: a person waiting on a
    command hears "busy" within a second instead of after ten. Only transactions begun in
    this context (this task, this thread) are affected."""
    token = _WAIT_MS.set(ms)
    try:
        yield
    finally:
        _WAIT_MS.reset(token)


def usual_waits() -> contextvars.Context:
    """A copy of the current context in which writes wait as usual: for work that outlives
    the command that started it (a run started by "run now")."""
    context = contextvars.copy_context()
    context.run(_WAIT_MS.set, None)
    return context


LOCK_SLICE_MS = 250  # a write waits for another program's lock in slices this long


def _locked(exc: BaseException) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _configure(engine: Engine, immediate: bool, busy_ms: int,
               waits: "list[int] | None" = None) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute("PRAGMA journal_mode = WAL")
        cur.execute("PRAGMA synchronous = NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        if not immediate:
            conn.exec_driver_sql("BEGIN")
            return
        # The write lock is taken here, once (later statements do not wait for it), in
        # slices: while another program holds it, ``waits`` says so (a command then answers
        # "busy" at once instead of queueing behind the engine's wait), and a command's
        # transaction gives up after its own short wait (``waiting_at_most``).
        wait = _WAIT_MS.get()
        deadline = time.monotonic() + (busy_ms if wait is None else wait) / 1000
        raw = conn.connection.driver_connection  # PRAGMAs straight to SQLite, no autobegin
        waiting = False
        try:
            while True:
                left = int((deadline - time.monotonic()) * 1000)
                raw.execute(f"PRAGMA busy_timeout = {max(1, min(LOCK_SLICE_MS, left))}")
                try:
                    raw.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if not _locked(exc) or time.monotonic() >= deadline:
                        break
                if waits is not None and not waiting:
                    waiting = True
                    waits[0] += 1
            raw.execute("PRAGMA busy_timeout = 0")
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # fails as every database error reads
        finally:
            if waiting and waits is not None:
                waits[0] -= 1
            raw.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")


def inspect_file(path: Path, busy_ms: int) -> str | None:
    """The schema revision stored in ``path`` (None for a new, empty database).

    Raises ``StoreError`` for a file that is not SQLite, not Errands', or newer than us.
    Opens read-only so nothing is ever written to a file we refuse.
    """
    if path.stat().st_size == 0:
        return None
    with path.open("rb") as fh:
        header = fh.read(16)
    if header != SQLITE_HEADER:
        raise StoreError("corrupt", f"{path} is not an SQLite database (it may be corrupt). "
                         "Errands left it untouched; move it aside to start afresh, or restore "
                         "a backup.")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=busy_ms / 1000)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            version = None
            if "alembic_version" in tables:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
                version = row[0] if row else None
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            raise StoreError("locked", f"{path} is locked by another program; try again, or "
                             "close the program holding it.") from exc
        raise StoreError("corrupt", f"{path} cannot be read ({exc}). Errands left it "
                         "untouched.") from exc
    except sqlite3.DatabaseError as exc:
        raise StoreError("corrupt", f"{path} is damaged ({exc}). Errands left it untouched; "
                         "move it aside to start afresh, or restore a backup.") from exc
    if version is None:
        if tables - {"sqlite_sequence"}:
            raise StoreError("foreign", f"{path} holds tables that are not Errands'. Errands left "
                             "it untouched; choose another --data-dir.")
        return None
    if version not in KNOWN_REVISIONS:
        raise StoreError("newer_version", f"{path} was written by a newer version of Errands "
                         f"(schema {version}). Update Errands; the file was left untouched.")
    return version


class Database:
    """The file, its two engines, and safe sessions over them."""

    dialect = "sqlite"

    def __init__(self, path: Path, busy_ms: int = 10_000) -> None:
        self.path = path
        self.location = path
        self.busy_ms = busy_ms
        key = _key(path)
        if _OPEN.get(key):
            # Already open in this process: checked and migrated then. Opening the file again
            # outside SQLite would be harmful: closing any descriptor of a file drops every
            # POSIX lock this process holds on it, so another process could take our
            # write-ahead log for abandoned and delete it.
            version = HEAD
        else:
            prepare_file(path)
            version = inspect_file(path, busy_ms)
        self._key: str | None = None
        url = f"sqlite:///{path}"
        options: dict[str, Any] = {"connect_args": {"timeout": busy_ms / 1000},
                                   "json_deserializer": _load_json}
        self.write_engine = create_engine(url, **options)
        self.read_engine = create_engine(url, **options)
        self._lock_waits = [0]  # write transactions waiting for another program's lock
        _configure(self.write_engine, True, busy_ms, self._lock_waits)
        _configure(self.read_engine, False, busy_ms)
        self._writer = sessionmaker(self.write_engine, expire_on_commit=False)
        self._reader = sessionmaker(self.read_engine, expire_on_commit=False)
        if version != HEAD:
            with _migration_lock(path):  # one process migrates; the others wait, then see it
                if inspect_file(path, busy_ms) != HEAD:
                    self._migrate()
        _OPEN[key] = _OPEN.get(key, 0) + 1
        self._key = key

    def _migrate(self) -> None:
        from alembic import command  # imported only when there is work to do
        from alembic.config import Config

        from ..migrations import SCRIPT_LOCATION

        cfg = Config()
        cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
        with self._translate():
            with self.write_engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")

    @property
    def waiting_for_lock(self) -> bool:
        """Whether a write of this process is waiting for a lock another program holds."""
        return self._lock_waits[0] > 0

    @contextmanager
    def _translate(self) -> Iterator[None]:
        try:
            yield
        except IntegrityError:
            raise  # a constraint doing its job (a slot claimed twice); callers decide
        except OperationalError as exc:
            if _locked(exc):
                waited = _WAIT_MS.get()
                waited = self.busy_ms if waited is None else waited
                raise StoreError("locked", f"{self.path} stayed locked for "
                                 f"{waited / 1000:g} s by another process; try again.") from exc
            raise StoreError("database", f"{self.path}: {exc.orig}") from exc
        except DBAPIError as exc:
            raise StoreError("database", f"{self.path}: {exc.orig}") from exc

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction, holding SQLite's write lock from its first statement."""
        with self._translate():
            with self._writer.begin() as session:
                yield session

    @contextmanager
    def read(self, *, lenient: bool = False) -> Iterator[Session]:
        """A read transaction. ``lenient`` reads text that is not UTF-8 (a hand edit or a
        damaged file) with U+FFFD in place of the bad bytes instead of failing (see
        :meth:`leniently`)."""
        with self._translate():
            with self._reader() as session:
                if not lenient:
                    yield session
                    return
                raw = session.connection().connection.driver_connection
                raw.text_factory = _replacing  # type: ignore[union-attr]
                try:
                    yield session
                finally:
                    raw.text_factory = str  # type: ignore[union-attr]

    def leniently(self, read: Callable[[bool], T]) -> T:
        """``read(False)``, or ``read(True)`` (the lenient :meth:`read`) when stored text is
        not UTF-8: such a row then shows with U+FFFD for the bad bytes (an instant among
        them reads as broken) instead of costing every row read with it."""
        try:
            return read(False)
        except (StoreError, sqlite3.OperationalError) as exc:  # through SQLAlchemy or raw
            if not _undecodable(exc):
                raise
            log.warning("%s: some stored text is not UTF-8; reading it with replacement "
                        "characters", self.path)
            return read(True)

    def checkpoint(self) -> None:
        """Copy the write-ahead log back into the file now (without waiting for readers).

        SQLite otherwise does this inside whichever commit crosses 1,000 logged pages,
        adding ~10 ms to that commit; the engine calls this shortly before a fire so the
        claim's commit does not pay for it."""
        try:
            raw = self.write_engine.raw_connection()
            try:
                raw.driver_connection.execute("PRAGMA wal_checkpoint(PASSIVE)")  # type: ignore[union-attr]
            finally:
                raw.close()
        except Exception as exc:  # harmless: SQLite checkpoints on a later commit instead
            log.debug("checkpoint of %s skipped: %s", self.path, exc)

    def close(self) -> None:
        self.write_engine.dispose()
        self.read_engine.dispose()
        if self._key is not None:
            _OPEN[self._key] -= 1
            if not _OPEN[self._key]:
                del _OPEN[self._key]
            self._key = None


_OPEN: dict[str, int] = {}  # databases open in this process (resolved path -> count)
MIGRATION_WAIT = 120.0  # seconds a process waits for another one's migration


@contextmanager
def _migration_lock(path: Path) -> Iterator[None]:
    """Serialize migrations of one database across processes with a lock on a side file,
    so that several commands started at once on a new data folder do not queue on SQLite's
    write lock (and give up after its busy timeout) while one of them migrates."""
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking (and its busy timeout) must do
        yield
        return
    lock_path = path.with_name(path.name + ".migrating")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    except OSError:  # a folder we may not write to: SQLite's own locking must do
        yield
        return
    try:
        deadline = time.monotonic() + MIGRATION_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError("locked", f"{path} is being migrated by another process "
                                     f"for over {MIGRATION_WAIT:g} s; try again.") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # (the side file is not the database: closing it drops no SQLite lock)


def _key(path: Path) -> str:
    try:
        return str(path.resolve())
    except OSError:
        return str(path)
