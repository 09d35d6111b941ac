"""Commands for the engine that serves a shared catalogue, from any machine, through the
catalogue itself.

On one machine a command reaches the engine over its control channel (a local socket). A
shared catalogue's engine may run on another machine, so a command is asked in the
``requests`` table instead: the asking side inserts the request and says so with
``NOTIFY errands_requests``; the serving engine LISTENs, takes waiting requests with ``FOR
UPDATE SKIP LOCKED`` (each one exactly once, whatever else is looking), performs each as
its control channel would, and writes the answer, announced on the request's own channel.
The asking side waits on that channel (and looks again each second, since a notification
sent while nobody listened is lost). A request nobody took is withdrawn when the asker
gives up or is interrupted, so giving up never leaves a command to be done later; one taken
is answered even when its asker has gone (and that answer is dropped a minute later).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from .channel import EngineUnreachable, error_from_payload, error_payload
from .db.location import ServerDatabase, machine_name

log = logging.getLogger(__name__)
# the machine a request being performed came from (what "made on this machine" means there)
ASKING_MACHINE: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "errands_asking_machine", default=None)
# a request being performed named this engine: it is performed here, never sent on
DIRECTED: contextvars.ContextVar[bool] = contextvars.ContextVar("errands_directed",
                                                                default=False)

ASKED = "errands_requests"
BATCH = 20
LOOK_AGAIN_S = 1.0      # the asker's look at its row between notifications
DESK_LOOK_S = 5.0       # the desk's look for requests whose notification it missed
KEEP_ANSWERED_S = 60  # an answer nobody collected (its asker gone) is kept this long:
# it may hold a secret shown once (a webhook's new token)


def _answer_channel(request_id: str) -> str:
    return "errands_answer_" + request_id.replace("-", "")


def _conninfo(server: ServerDatabase) -> str:
    from .db.postgres import conninfo
    return conninfo(server)


def ask(server: ServerDatabase, op: str, args: dict[str, Any], *,
        timeout: float | None = 30.0, serving: str = "another machine",
        target: str | None = None) -> Any:
    """``op`` performed by the engine doing the common work of ``server`` (or, with
    ``target``, by that machine's engine, which performs it without sending it on); its
    result, or the error it raised. :class:`EngineUnreachable` when no engine took it in
    time (withdrawn: nothing was done) or took it and did not answer in time (it may have
    acted)."""
    import psycopg

    request_id = str(uuid.uuid4())
    deadline = None if timeout is None else time.monotonic() + timeout
    body = json.dumps(args, allow_nan=False)
    try:
        with psycopg.connect(_conninfo(server), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'LISTEN "{_answer_channel(request_id)}"')
            conn.execute("INSERT INTO requests (id, op, args, machine, target, state, "
                         "created_at) VALUES (%s, %s, %s::json, %s, %s, 'waiting', "
                         "now() AT TIME ZONE 'UTC')",
                         (request_id, op, body, ASKING_MACHINE.get() or machine_name(),
                          target))
            conn.execute("SELECT pg_notify(%s, %s)", (ASKED, request_id))
            try:
                return _await_answer(conn, request_id, op, deadline, timeout, serving)
            except BaseException:  # (given up, interrupted): a request nobody took goes
                if not conn.closed:
                    conn.execute("DELETE FROM requests WHERE id = %s AND state = 'waiting'",
                                 (request_id,))
                raise
    except psycopg.Error as exc:
        from .errors import StoreError
        raise StoreError("database_unreachable", f"cannot reach the catalogue {server}: "
                         f"{str(exc).strip().splitlines()[0] if str(exc).strip() else exc}"
                         ) from exc


def _await_answer(conn: Any, request_id: str, op: str, deadline: float | None,
                  timeout: float | None, serving: str) -> Any:
    """The answer to ``request_id``, collected (and its row removed) once it is there."""
    while True:
        row = conn.execute("SELECT state, answer FROM requests WHERE id = %s",
                           (request_id,)).fetchone()
        if row is not None and row[0] == "done":
            conn.execute("DELETE FROM requests WHERE id = %s", (request_id,))
            return _result(row[1])
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            withdrawn = conn.execute(
                "DELETE FROM requests WHERE id = %s AND state = 'waiting' "
                "RETURNING id", (request_id,)).fetchone()
            if withdrawn is not None:
                raise EngineUnreachable(
                    f"the engine on {serving} did not take {op!r} within "
                    f"{timeout:g} s; nothing was done", reason="refused")
            raise EngineUnreachable(f"the engine on {serving} took {op!r} but did "
                                    f"not answer within {timeout:g} s",
                                    reason="timeout")
        wait = LOOK_AGAIN_S if left is None else min(LOOK_AGAIN_S, left)
        for _ in conn.notifies(timeout=wait, stop_after=1):
            pass


def _result(answer: Any) -> Any:
    if isinstance(answer, str):
        answer = json.loads(answer)
    if isinstance(answer, dict) and answer.get("ok") is True:
        return answer.get("result")
    raise error_from_payload(answer.get("error") if isinstance(answer, dict) else answer)


class RequestDesk:
    """The serving engine's side: take waiting requests, perform each with ``handle`` (the
    control channel's), answer. Runs on the engine's loop."""

    def __init__(self, server: ServerDatabase,
                 handle: Callable[[str, dict[str, Any]], Awaitable[Any]],
                 common: Callable[[], bool] = lambda: True) -> None:
        self.server = server
        self.handle = handle
        self.common = common  # whether this engine does the common work (takes untargeted)
        self.machine = machine_name()
        self._task: asyncio.Task[None] | None = None
        self._conn: Any = None
        self._closing = False
        self._idle = asyncio.Event()  # set while no request is being performed
        self._idle.set()

    async def start(self) -> None:
        import psycopg

        self._conn = await psycopg.AsyncConnection.connect(_conninfo(self.server),
                                                           autocommit=True, connect_timeout=10)
        await self._conn.execute(f"LISTEN {ASKED}")
        self._task = asyncio.get_running_loop().create_task(self._serve())

    async def _serve(self) -> None:
        conn = self._conn
        while True:
            try:
                while not self._closing and await self._take_some(conn):
                    pass
                await conn.execute(  # answers nobody collected (the asker went away)
                    "DELETE FROM requests WHERE state = 'done' AND answered_at < "
                    "(now() AT TIME ZONE 'UTC') - make_interval(secs => %s)",
                    (KEEP_ANSWERED_S,))
                async for _ in conn.notifies(timeout=DESK_LOOK_S, stop_after=1):
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection dropped: a new one, after a pause
                log.warning("the requests of other machines cannot be read: %s", exc)
                await asyncio.sleep(DESK_LOOK_S)
                try:
                    await conn.close()
                    conn = self._conn = await type(conn).connect(
                        _conninfo(self.server), autocommit=True, connect_timeout=10)
                    await conn.execute(f"LISTEN {ASKED}")
                except Exception as again:
                    log.warning("reconnecting for the requests of other machines: %s", again)

    async def _take_some(self, conn: Any) -> bool:
        """Take and answer up to ``BATCH`` waiting requests; whether there were any."""
        cur = await conn.execute(
            "UPDATE requests SET state = 'working', answered_by = %s WHERE id IN ("
            "SELECT id FROM requests WHERE state = 'waiting' AND (target = %s OR "
            "(target IS NULL AND %s)) ORDER BY created_at "
            "FOR UPDATE SKIP LOCKED LIMIT %s) RETURNING id, op, args, machine, target",
            (self.machine, self.machine, self.common(), BATCH))
        taken = await cur.fetchall()
        self._idle.clear()
        try:
            for request_id, op, args, asker, target in taken:
                await self._answer(conn, request_id, op, args, asker, target is not None)
        finally:
            self._idle.set()
        return bool(taken)

    async def _answer(self, conn: Any, request_id: str, op: str, args: Any,
                      asker: str, directed: bool = False) -> None:
        try:
            if not isinstance(args, dict):
                raise TypeError("the request's arguments are not an object")
            log.info("request %s from %s: %s", request_id, asker, op)
            token, aimed = ASKING_MACHINE.set(asker), DIRECTED.set(directed)
            try:
                result = await self.handle(op, args)
            finally:
                ASKING_MACHINE.reset(token)
                DIRECTED.reset(aimed)
            answer: dict[str, Any] = {"ok": True, "result": result}
            text = json.dumps(answer, allow_nan=False)
        except asyncio.CancelledError:
            await conn.execute("UPDATE requests SET state = 'waiting', answered_by = NULL "
                               "WHERE id = %s", (request_id,))  # for the next engine
            raise
        except Exception as exc:
            text = json.dumps({"ok": False, "error": error_payload(exc)})
        await conn.execute("UPDATE requests SET state = 'done', answer = %s::json, "
                           "answered_at = now() AT TIME ZONE 'UTC' WHERE id = %s",
                           (text, request_id))
        await conn.execute("SELECT pg_notify(%s, '')", (_answer_channel(request_id),))

    async def close(self) -> None:
        """Take nothing more; what is being performed is finished and answered first."""
        self._closing = True
        if self._task is not None:
            try:
                await asyncio.wait_for(self._idle.wait(), 10)
            except asyncio.TimeoutError:
                pass
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            except Exception as exc:  # pragma: no cover (already logged where it failed)
                log.debug("the request desk ended: %s", exc)
            self._task = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
