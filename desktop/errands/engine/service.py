"""Hosting an engine on a data directory: the lock, the control channel, the operations.

``errands serve`` runs ``serve()``; the desktop app (later) will host the same
``EngineHost`` inside its Qt loop. What a client may ask is the table in
:mod:`errands.engine.operations`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable

from .. import gil, heap, queries
from ..errors import Conflict, StoreError
from ..db.location import ServerDatabase, database_location, machine_name
from ..queries import Summary
from ..store import Store
from .api import READ_BUSY_MS, Api
from ..runners import default_runners
from .control import ControlServer
from .core import Engine
from .lock import DataDirLock, engine_refusal, read_owner
from .network import RouteProbe
from .operations import perform

log = logging.getLogger(__name__)
LOCK_RETRY_S = 2.0  # while the catalogue's server is away, how often it is asked again
NOTICE_DRAIN = 0.1  # seconds subscribers get to receive the engine's last notices


class EngineHost:
    """An engine that owns ``data_dir``: holds the lock and answers the control channel.
    ``role`` says who hosts it (``serve``, ``app`` or ``cli``); the app passes
    ``on_activate`` so that a second launch brings its window forward."""

    def __init__(self, data_dir: Path, *, automatic: bool = True, listen: bool = True,
                 role: str = "serve", on_activate: Callable[[], None] | None = None,
                 standby: Callable[[str], None] | None = None,
                 on_replaced: Callable[[str], None] | None = None) -> None:
        self.data_dir = data_dir
        # told (on the engine's loop) when another machine's engine took the shared
        # catalogue while this one had lost its connection: this engine has stopped
        self.on_replaced = on_replaced
        # a shared catalogue another machine's engine serves: wait to take it over (told
        # who serves it), instead of refusing
        self.standby = standby
        self.automatic = automatic
        self.listen = listen
        self.role = role
        self.closing = False   # requests from now on are refused, retryably
        self.on_activate = on_activate
        self.lock = DataDirLock(data_dir, "engine", hosted_by=role)
        self.store: Store | None = None
        self.engine: Engine | None = None
        self.api: Api | None = None
        self.server: ControlServer | None = None
        self.desk: Any = None  # a shared catalogue's RequestDesk (commands from other machines)

    async def open(self) -> None:
        """Take the data folder and bring its database up to date, without starting the
        engine yet (what is stored can then be read while it loads)."""
        if self.store is not None:
            return
        if not self.lock.try_acquire():
            owner = await asyncio.to_thread(read_owner, self.data_dir)
            if owner is not None and owner.role == "engine":
                raise engine_refusal(owner, self.data_dir)
            # a CLI command is writing; it is brief
            await asyncio.to_thread(self.lock.acquire, 15)
        try:
            self.store = Store(database_location(self.data_dir))
        except BaseException:
            self.lock.release()
            raise
        if self.store.dialect != "sqlite":  # one engine serves a shared catalogue at a time
            db: Any = self.store.db
            try:
                if self.standby is None:
                    db.hold_engine(machine_name())
                else:
                    waiting = asyncio.ensure_future(asyncio.to_thread(
                        db.hold_engine, machine_name(), wait=True, on_wait=self.standby))
                    try:
                        await asyncio.shield(waiting)
                    except asyncio.CancelledError:
                        db.stop_waiting()
                        await asyncio.gather(waiting, return_exceptions=True)
                        raise
            except BaseException:
                self.store.close()
                self.store = None
                self.lock.release()
                raise
            self._watch_lock()

    def _watch_lock(self) -> None:
        loop = asyncio.get_running_loop()
        db: Any = self.store.db if self.store is not None else None
        if db is None or not hasattr(db, "watch_engine"):
            return
        db.watch_engine(lambda: loop.call_soon_threadsafe(
            lambda: loop.create_task(self._lock_lost())))

    async def _lock_lost(self) -> None:
        """The connection holding the catalogue broke: take it again (the server was
        away), or stop if another machine's engine took it meanwhile. A slot is never run
        twice either way: a claim the other engine made first is refused to this one."""
        if self.closing or self.store is None:
            return
        if self.engine is not None:
            self.engine.events.publish("engine_state", data={"state": "unreachable"})
        db: Any = self.store.db
        while not self.closing:
            try:
                await asyncio.to_thread(db.hold_engine, machine_name())
            except StoreError as exc:
                if exc.code not in ("engine_elsewhere", "clock_skew"):  # the server is
                    await asyncio.sleep(LOCK_RETRY_S)                   # away still: again
                    continue
                if exc.code == "clock_skew":  # (it must not go on claiming by a wrong clock)
                    message = exc.message
                else:
                    holder = await asyncio.to_thread(_holder, db) or "another machine"
                    message = (f"the Errands engine on {holder} took the catalogue over "
                               "while this engine's connection to it was lost")
                log.error("%s; this engine stops", message)
                if self.engine is not None:
                    await self.engine.stop()
                    self.engine.events.publish("engine_state", data={"state": "replaced"})
                if self.on_replaced is not None:
                    self.on_replaced(message)
                return
            log.info("the catalogue is held again")
            self._watch_lock()
            if self.engine is not None:
                self.engine.events.publish("engine_state", data={"state": "running"})
            return

    async def start(self) -> Engine:
        await self.open()
        assert self.store is not None
        try:
            self.engine = Engine(self.store, self.data_dir, default_runners(),
                                 network=RouteProbe(), automatic=self.automatic)
            await self.engine.start()
            self.api = Api(self.engine, role=self.role, on_activate=self.on_activate)
            if self.listen:
                self.server = ControlServer(self.data_dir, self.handle)
                self.lock.set_address(await self.server.start())
            location = self.store.db.location
            if isinstance(location, ServerDatabase):  # commands from the other machines
                from ..remote_requests import RequestDesk
                self.desk = RequestDesk(location, self.handle)
                await self.desk.start()
        except BaseException:
            await self.close()
            raise
        return self.engine

    async def handle(self, op: str, args: dict[str, Any]) -> Any:
        if self.api is None or self.closing:  # (refused before anything acts: safe to repeat)
            raise Conflict("engine_stopping", "this Errands engine is stopping; ask again "
                           "in a moment")
        return await perform(self.api, op, args)

    async def close(self) -> None:
        if self.desk is not None:  # (what it performs now is finished and answered first)
            await self.desk.close()
            self.desk = None
        self.closing = True
        if self.server is not None:
            self.server.stop_listening()
        if self.engine is not None:
            await self.engine.stop()  # its last notices reach subscribers still connected
            self.engine = None
            if self.server is not None:
                await asyncio.sleep(NOTICE_DRAIN)
        if self.server is not None:
            await self.server.close()
            self.server = None
        if self.api is not None:
            await asyncio.to_thread(self.api.close)
            self.api = None
        if self.store is not None:
            self.store.close()
            self.store = None
        self.lock.release()


class EngineThread:
    """An :class:`EngineHost` on a thread and event loop of its own, for a caller whose loop
    must never wait on the engine's disk writes (the window). The caller gets an
    :class:`Api` whose commands hop to the engine's loop and whose queries read on reader
    threads; notices arrive on the caller's loop."""

    def __init__(self, data_dir: Path, **host_options: Any) -> None:
        self.host = EngineHost(data_dir, **host_options)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="errands-engine",
                                        daemon=True)
        self.api: Api | None = None
        self._collector: Any = None  # concurrent Future of heap.collect_when_quiet

    def _on_engine(self, coro: Any) -> Any:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def open(self) -> Preview:
        """Take the data folder and migrate its database on the engine's thread; what is
        stored can then be read (:class:`Preview`) while :meth:`start` loads the engine."""
        if not self._thread.is_alive():
            self._thread.start()
        gc.disable()  # reading and loading tens of thousands of automations would set off
        try:          # full collections, each holding every thread: settle the heap after
            await self._on_engine(self.host.open())
        except BaseException:
            gc.enable()
            await self._end_thread()
            raise
        assert self.host.store is not None
        return Preview(self.host.store.db.location)

    async def start(self) -> Api:
        activate = self.host.on_activate
        if activate is not None:  # the channel asks on the engine's thread; the window acts on ours
            caller = asyncio.get_running_loop()
            self.host.on_activate = lambda: caller.call_soon_threadsafe(activate)
        if not self._thread.is_alive():
            self._thread.start()
        gc.disable()  # as in open()
        try:
            engine = await self._on_engine(self.host.start())
        except BaseException:
            gc.enable()
            await self._end_thread()
            raise
        self.api = Api(engine, on_engine=self._on_engine, role=self.host.role,
                       on_activate=activate, reading_with=self.host.api)
        heap.settle()
        gil.take_short_turns(window=True)
        self._collector = asyncio.run_coroutine_threadsafe(
            heap.collect_when_quiet(lambda: engine.busy), self._loop)
        return self.api

    async def close(self) -> None:
        if self._collector is not None:
            self._collector.cancel()
            self._collector = None
            heap.restore()
            gil.restore()
        if self.api is not None:
            await asyncio.to_thread(self.api.close)
            self.api = None
        else:
            gc.enable()  # opened, never started
        if self._thread.is_alive():
            await self._on_engine(self.host.close())
            await self._end_thread()

    async def _end_thread(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join)
        self._loop.close()


def _holder(db: Any) -> str | None:
    from ..db.postgres import engine_holder
    try:
        return engine_holder(db.location)
    except StoreError:
        return None


class Preview:
    """The stored automations as the sidebar lists them, readable before the engine has
    loaded them: with ten thousand of them the window shows its list in a fraction of the
    engine's start. Definitions are read only as far as a list line needs (runner kind,
    schedule); one broken elsewhere shows as broken once the engine's own snapshot
    replaces this one."""

    def __init__(self, location: "Path | ServerDatabase") -> None:
        self._store = Store(location, busy_ms=READ_BUSY_MS)

    async def summaries(self) -> list[Summary]:
        """Raises :class:`StoreError` (busy, damaged) like any read of the store."""
        try:
            rows, _total = await asyncio.to_thread(queries.summaries, self._store,
                                                   limit=queries.PAGE_LIMIT, preview=True)
        except sqlite3.Error as exc:  # read on the driver's cursor, past the store's wording
            raise StoreError("database", f"{self._store.db.path}: {exc}") from exc
        except Exception as exc:  # (psycopg's, on PostgreSQL: imported only there)
            if type(exc).__module__.split(".")[0] != "psycopg":
                raise
            raise StoreError("database", f"{self._store.db.path}: {exc}") from exc
        return rows

    def close(self) -> None:
        self._store.close()


async def serve(data_dir: Path, *, announce: Callable[[str], None] = print,
                standby: bool = False) -> None:
    """Run the engine until SIGINT or SIGTERM, then shut down gracefully. ``standby``: on a
    shared catalogue another machine's engine serves, wait and take over when it stops;
    and when another machine takes it over from this one, stand by again."""
    stop = asyncio.Event()       # a signal: the end
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl-C arrives as KeyboardInterrupt
            pass

    def waiting(holder: str) -> None:
        loop.call_soon_threadsafe(announce, f"Standing by: the Errands engine on {holder} "
                                  "serves this catalogue; this machine takes over when it "
                                  "stops.")

    while True:
        replaced: list[str] = []
        ended = asyncio.Event()  # the end of this engine: a signal, or another machine

        def taken_over(message: str, ended: asyncio.Event = ended,
                       replaced: list[str] = replaced) -> None:
            replaced.append(message)
            ended.set()

        host = EngineHost(data_dir, standby=waiting if standby else None,
                          on_replaced=taken_over)
        starting = loop.create_task(host.start())
        stopping = loop.create_task(stop.wait())
        await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():  # stopped while standing by
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
            await host.close()
            announce("Stopped.")
            return
        engine = starting.result()
        heap.settle()
        gil.take_short_turns()
        collector = asyncio.get_running_loop().create_task(
            heap.collect_when_quiet(lambda: engine.busy))
        announce(f"Errands engine running on {data_dir} (pid {os.getpid()}); press Ctrl-C "
                 "to stop.")
        ending = loop.create_task(ended.wait())
        try:
            await asyncio.wait({stopping, ending}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            ending.cancel()
            collector.cancel()
            heap.restore()
            gil.restore()
            if replaced:
                announce(f"Stopping: {replaced[0]}")
            else:
                announce("Stopping: letting running work finish …")
            await host.close()
            announce("Stopped.")
        if not replaced or not standby or stop.is_set():
            return
