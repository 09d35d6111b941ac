"""An engine's hold on a shared catalogue: its machine's place among the engines, the
common work when it is free, and the catalogue's change notices.

Several engines serve one PostgreSQL catalogue, one per machine name. Each holds a
session advisory lock keyed by its machine's name on a connection of its own, for as long
as it runs: that lock is its lease. The server ends it with the session: at once when the
engine stops or is killed, within about half a minute when its machine vanishes (TCP
keepalives). One engine also holds the *common* lock (``ENGINE_KEY``): it fires the
automations that may run anywhere, takes the requests of machines without an engine, and
keeps the catalogue's history limits. The others wait for that lock on a second
connection, and the first to get it takes the common work over.

The lock connection also LISTENs for ``errands_changes``: every write transaction that
changes automations announces them there as it commits (``PostgresDatabase``), so an engine
learns of what another machine's engine or command changed, and adopts what became its
own. A notification sent while the connection was away is lost; an engine that had lost
its hold reads the whole catalogue again when it holds it again.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..errors import StoreError
from . import postgres
from .postgres import CHANGES, ENGINE_KEY, refuse_skewed_clock

if TYPE_CHECKING:
    from .postgres import PostgresDatabase

log = logging.getLogger(__name__)

MACHINE_CLASS = 0x4572_6D63  # (an int4) lock (MACHINE_CLASS, hashtext(machine)): its engine


def _first_line(exc: BaseException | None) -> str:
    text = str(exc or "").strip()
    return text.splitlines()[0] if text else type(exc).__name__


class EngineHold:
    """The hold of one engine (``machine``) on ``db``; see the module text. Its callbacks
    run on threads of their own: ``on_lost`` when a held connection broke (the locks went
    with it), ``on_common`` when the waiting engine got the common lock, ``on_notice`` with
    each change notice's text."""

    def __init__(self, db: PostgresDatabase, machine: str) -> None:
        self.db = db
        self.machine = machine
        self.common = False           # this engine holds the common lock
        self._conn: Any = None        # the machine lock (and the common one, if got at once)
        self._common_conn: Any = None  # the common lock, got later by waiting for it
        self._waiting: Any = None     # a connection blocked on a lock now
        self._stopping = False
        self._stop_pipe: tuple[int, int] | None = None
        self._lock = threading.Lock()
        # each release starts a new generation: a watch or a wait of an older one (its
        # thread still blocked on the server) ends as soon as it wakes, holding nothing
        self._generation = 0

    # ---------------------------------------------------------------- taking it

    def take(self, *, wait: bool = False, on_wait: Callable[[str], None] | None = None) -> bool:
        """Take this machine's lock; whether the common lock came with it. Another engine
        of this machine's name running: raise ``StoreError('engine_elsewhere')``, or with
        ``wait`` tell ``on_wait`` and block until it stops, through the server's restarts
        (``stop`` ends the wait from another thread). ``clock_skew``: this machine's clock
        is too far off the server's (``postgres.refuse_skewed_clock``)."""
        import psycopg

        told = False
        self._stopping = False
        while True:
            try:
                conn = self.db._engine_connection(self.machine)
            except StoreError:
                if not wait or self._stopping:
                    raise
                time.sleep(_retry_s())
                continue
            if not self.db._clock_right(conn, wait and not self._stopping):
                continue
            try:
                got = conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))",
                                   (MACHINE_CLASS, self.machine)).fetchone()[0]
                if not got and not wait:
                    conn.close()
                    raise StoreError(
                        "engine_elsewhere", f"an Errands engine named {self.machine} "
                        f"already serves the catalogue {self.db.path}; each machine runs "
                        "one engine (several on one machine need their own names: "
                        "ERRANDS_MACHINE)")
                if not got:
                    if on_wait is not None and not told:
                        told = True
                        on_wait(self.machine)
                    with self._lock:
                        self._waiting = conn
                    try:
                        conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))",
                                     (MACHINE_CLASS, self.machine))
                    finally:
                        with self._lock:
                            self._waiting = None
                    if not self.db._clock_right(conn, not self._stopping):
                        continue
                common = conn.execute("SELECT pg_try_advisory_lock(%s)",
                                      (_engine_key(),)).fetchone()[0]
                conn.execute(f"LISTEN {CHANGES}")
            except psycopg.Error as exc:  # (the server went away meanwhile)
                conn.close()
                if not wait or self._stopping:
                    if self._stopping:
                        raise StoreError("engine_elsewhere", "stopped waiting for the "
                                         f"catalogue {self.db.path}") from exc
                    raise StoreError("database_unreachable", f"cannot reach the catalogue "
                                     f"{self.db.path}: {_first_line(exc)}") from exc
                time.sleep(_retry_s())
                continue
            with self._lock:
                self._conn = conn
                self.common = bool(common)
            return self.common

    def stop_waiting(self) -> None:
        """End a wait for a lock (from any thread)."""
        self._stopping = True
        with self._lock:
            conn = self._waiting
        if conn is not None:
            try:
                conn.cancel_safe()
            except Exception as exc:  # pragma: no cover (the wait ended meanwhile)
                log.debug("cancelling the wait for the catalogue: %s", exc)

    # ---------------------------------------------------------------- holding it

    def watch(self, on_lost: Callable[[], None], on_notice: Callable[[str], None],
              on_common: Callable[[], None]) -> None:
        """Watch the held connection (``on_lost``, ``on_notice``) and, when this engine
        does not hold the common lock, wait for it (``on_common`` once it does)."""
        with self._lock:
            conn = self._conn
            common = self.common
        if conn is None:
            return
        self._stop_pipe = os.pipe()
        threading.Thread(target=self._watch, args=(conn, on_lost, on_notice), daemon=True,
                         name="errands-engine-lock").start()
        if not common:
            threading.Thread(target=self._wait_for_common,
                             args=(on_lost, on_common, self._generation),
                             daemon=True, name="errands-common-lock").start()

    def _stale(self, generation: int) -> bool:
        return self._stopping or generation != self._generation

    def _watch(self, conn: Any, on_lost: Callable[[], None],
               on_notice: Callable[[str], None]) -> None:
        assert self._stop_pipe is not None
        reader = self._stop_pipe[0]
        try:
            sock = conn.pgconn.socket
            while True:
                ready, _, _ = select.select([sock, reader], [], [])
                if reader in ready:
                    return  # released on purpose
                conn.pgconn.consume_input()
                while (notice := conn.pgconn.notifies()) is not None:
                    try:
                        on_notice(notice.extra.decode("utf-8", "replace"))
                    except Exception:  # (a notice's reader never ends the watch)
                        log.exception("reading a change notice")
                if conn.pgconn.status != 0:  # (CONNECTION_OK)
                    break
        except Exception as exc:
            log.debug("the engine lock's connection broke: %s", exc)
        self._broke(conn, on_lost)

    def _wait_for_common(self, on_lost: Callable[[], None], on_common: Callable[[], None],
                         generation: int) -> None:
        """Block on the common lock on a connection of its own; once got, watch that
        connection as the hold's. A wait of an older generation (released meanwhile)
        lets go of whatever it got and ends."""
        import psycopg

        while not self._stale(generation):
            try:
                conn = self.db._engine_connection(self.machine)
            except StoreError:
                time.sleep(_retry_s())
                continue
            with self._lock:
                if self._stale(generation):
                    conn.close()
                    return
                self._waiting = conn
            try:
                conn.execute("SELECT pg_advisory_lock(%s)", (_engine_key(),))
                refuse_skewed_clock(conn, self.db.path)
            except (psycopg.Error, StoreError) as exc:
                conn.close()
                if self._stale(generation):
                    return
                log.info("waiting for the catalogue's common work again: %s",
                         _first_line(exc))
                time.sleep(_retry_s())
                continue
            finally:
                with self._lock:
                    if self._waiting is conn:
                        self._waiting = None
            with self._lock:
                if self._stale(generation):
                    conn.close()  # (the lock goes with the session)
                    return
                self._common_conn = conn
                self.common = True
            on_common()
            pipe = self._stop_pipe
            try:
                while pipe is not None:
                    ready, _, _ = select.select([conn.pgconn.socket, pipe[0]], [], [])
                    if pipe[0] in ready or self._stale(generation):
                        return  # released on purpose
                    conn.pgconn.consume_input()
                    if conn.pgconn.status != 0:  # (CONNECTION_OK)
                        break
            except Exception as exc:
                log.debug("the common lock's connection broke: %s", exc)
            self._broke(conn, on_lost)
            return

    def _broke(self, conn: Any, on_lost: Callable[[], None]) -> None:
        """A held connection broke: the hold is released and ``on_lost`` told, once (both
        connections break together when the server goes: the second watch finds it let
        go)."""
        with self._lock:
            if self._stopping or conn not in (self._conn, self._common_conn):
                return  # (released meanwhile)
            self._stopping = True
        log.warning("the connection holding the catalogue %s broke", self.db.path)
        self.release()
        on_lost()

    def release(self) -> None:
        """Let every lock go (the sessions end), and end the watches and the wait."""
        self.stop_waiting()
        with self._lock:
            self._generation += 1
            conns = [c for c in (self._conn, self._common_conn) if c is not None]
            self._conn = self._common_conn = None
            self.common = False
            pipe, self._stop_pipe = self._stop_pipe, None
        if pipe is not None:  # (a watch still in select wakes, or finds it closed: ends)
            for step in (lambda: os.write(pipe[1], b"x"), lambda: os.close(pipe[1]),
                         lambda: os.close(pipe[0])):
                try:
                    step()
                except OSError:
                    pass
        for conn in conns:
            try:
                conn.close()  # (a session lock goes with its session)
            except Exception as exc:  # pragma: no cover (a connection already gone)
                log.debug("closing a lock connection: %s", exc)


def _engine_key() -> int:
    return ENGINE_KEY


def _retry_s() -> float:
    return postgres.RETRY_S  # (read when used: tests shorten it)


def live_machines(fetch: Callable[[str, tuple[Any, ...]], Any],
                  machines: Iterable[str | None]) -> set[str]:
    """Those of ``machines`` whose engine holds the catalogue now (its machine lock: found
    by the lock's own key, whatever the name). ``fetch(sql, params)``: the rows of a query
    (psycopg's ``%s`` style), on a psycopg connection or a session's."""
    names = sorted({m for m in machines if m})
    if not names:
        return set()
    rows = fetch(
        "SELECT m FROM unnest(%s::text[]) AS m WHERE EXISTS (SELECT 1 FROM pg_locks l WHERE "
        "l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = %s AND "
        "l.objid = (hashtext(m)::int8 & 4294967295)::oid AND l.database = (SELECT oid FROM "
        "pg_database WHERE datname = current_database()))", (names, MACHINE_CLASS))
    return {row[0] for row in rows}


def common_held(fetch: Callable[[str, tuple[Any, ...]], Any]) -> bool:
    """Whether an engine does the catalogue's common work now."""
    rows = fetch(
        "SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND "
        "l.objsubid = 1 AND l.classid = %s AND l.objid = %s AND l.database = (SELECT oid "
        "FROM pg_database WHERE datname = current_database())",
        (ENGINE_KEY >> 32, ENGINE_KEY & 0xFFFFFFFF))
    return bool(rows)


def engines_running(fetch: Callable[[str, tuple[Any, ...]], Any]) -> list[tuple[str, bool]]:
    """The engines serving the catalogue now, by the names their connections carry (the
    server keeps 63 characters of a connection's name: for showing, not for finding one),
    each with whether it does the common work; the one doing it first."""
    from .postgres import ENGINE_APP

    rows = fetch(
        "SELECT a.application_name, bool_or(l.objsubid = 1) FROM pg_locks l JOIN "
        "pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
        "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND ((l.objsubid = 2 AND l.classid = %s) OR (l.objsubid = 1 AND l.classid = %s "
        "AND l.objid = %s)) GROUP BY 1",
        (MACHINE_CLASS, ENGINE_KEY >> 32, ENGINE_KEY & 0xFFFFFFFF))
    found = [(str(name)[len(ENGINE_APP):], bool(common)) for name, common in rows
             if str(name or "").startswith(ENGINE_APP)]
    return sorted(found, key=lambda e: (not e[1], e[0]))


def session_fetch(s: Any) -> Callable[[str, tuple[Any, ...]], Any]:
    """``fetch`` for ``live_machines`` on an SQLAlchemy session."""
    return lambda sql, params: s.connection().exec_driver_sql(sql, params).fetchall()


def psycopg_fetch(conn: Any) -> Callable[[str, tuple[Any, ...]], Any]:
    """``fetch`` for ``live_machines`` on a psycopg connection."""
    return lambda sql, params: conn.execute(sql, params).fetchall()
