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
NOTICE_GATHER = 0.02  # the change notices of one moment are taken in together


class EngineHost:
    """An engine that owns ``data_dir``: holds the lock and answers the control channel.
    ``role`` says who hosts it (``serve``, ``app`` or ``cli``); the app passes
    ``on_activate`` so that a second launch brings its window forward."""

    def __init__(self, data_dir: Path, *, automatic: bool = True, listen: bool = True,
                 role: str = "serve", on_activate: Callable[[], None] | None = None,
                 standby: Callable[[str], None] | None = None,
                 on_replaced: Callable[[str], None] | None = None,
                 on_common: Callable[[], None] | None = None) -> None:
        self.data_dir = data_dir
        self.on_common = on_common  # told when this engine took the common work over
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
        self.hold: Any = None  # a shared catalogue's EngineHold (this machine's place)
        self._changed: dict[str, str] = {}  # other machines' changes not yet taken in
        self._adopting: asyncio.Task[None] | None = None

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
        if self.store.dialect != "sqlite":  # this machine's place among the engines
            from ..db.engine_hold import EngineHold
            from ..definition import check_machine_name
            try:
                hold = self.hold = EngineHold(self.store.db,  # type: ignore[arg-type]
                                              check_machine_name(machine_name()))
                if self.standby is None:
                    await asyncio.to_thread(hold.take)
                else:
                    waiting = asyncio.ensure_future(asyncio.to_thread(
                        hold.take, wait=True, on_wait=self.standby))
                    try:
                        await asyncio.shield(waiting)
                    except asyncio.CancelledError:
                        hold.stop_waiting()
                        await asyncio.gather(waiting, return_exceptions=True)
                        raise
            except BaseException:
                self.hold = None
                self.store.close()
                self.store = None
                self.lock.release()
                raise

    def _watch_hold(self) -> None:
        """Hear of the hold's connections (lost), of the common work (got) and of the
        other machines' changes (notices), on the engine's loop."""
        loop = asyncio.get_running_loop()
        if self.hold is None:
            return

        def hop(call: Callable[..., Any], *args: Any) -> None:
            try:
                loop.call_soon_threadsafe(call, *args)
            except RuntimeError:  # (the loop closed: the host is gone, nobody to tell)
                pass

        def on_lost() -> None:
            hop(lambda: loop.create_task(self._hold_lost()))

        def on_common() -> None:
            hop(lambda: loop.create_task(self._common_got()))

        def on_notice(text: str) -> None:
            hop(self._noticed, text)

        self.hold.watch(on_lost, on_notice, on_common)

    def _noticed(self, text: str) -> None:
        """A change notice: gathered with those of the same moment, then taken in."""
        from ..db.postgres import read_notice

        notice = read_notice(text)
        if notice is None or self.store is None or notice[0] == self.store.db.token:
            return  # (not one of ours to read, or this engine's own)
        self._changed.update(notice[1])
        if self._adopting is None or self._adopting.done():
            self._adopting = asyncio.get_running_loop().create_task(self._adopt())

    async def _adopt(self) -> None:
        await asyncio.sleep(NOTICE_GATHER)
        while self._changed and self.engine is not None and not self.closing:
            changed, self._changed = self._changed, {}
            try:
                await self.engine.fleet.adopt(changed)
            except Exception:  # (the database away: the next hold reads everything)
                log.exception("could not take in the changes of another machine")

    async def _common_got(self) -> None:
        """The common lock came to this engine: it takes the common work over, asking
        again while the catalogue cannot be read (the lock stays held meanwhile)."""
        while self.engine is not None and not self.closing and not self.engine.fleet.common \
                and self.hold is not None and self.hold.common:
            try:
                await self.engine.fleet.take_common()
            except Exception as exc:
                log.warning("could not take the common work over yet (%s); trying again",
                            exc)
                await asyncio.sleep(LOCK_RETRY_S)
                continue
            if self.on_common is not None:
                self.on_common()
            return

    async def _hold_lost(self) -> None:
        """A connection holding the catalogue broke (the server was away): take it again.
        If another machine's engine took over the common work this one did meanwhile, this
        engine lets it go (``Fleet.give_up_common``); if another engine of this machine's
        name took its place, or its clock is off now, it stops. A slot is never run twice
        either way: a claim another engine made first is refused to this one."""
        if self.closing or self.store is None or self.hold is None:
            return
        if self.engine is not None:
            self.engine.events.publish("engine_state", data={"state": "unreachable"})
        was_common = self.engine is not None and self.engine.fleet.common
        if was_common and self.engine is not None:  # (its lease went with the connection)
            await self.engine.fleet.end_common_runs()
        while not self.closing:
            message = None
            try:
                common = await asyncio.to_thread(self.hold.take)
            except StoreError as exc:
                if exc.code not in ("engine_elsewhere", "clock_skew"):  # the server is
                    await asyncio.sleep(LOCK_RETRY_S)                   # away still: again
                    continue
                message = exc.message  # (it must not go on claiming by a wrong clock)
            if message is not None:
                log.error("%s; this engine stops", message)
                if self.engine is not None:
                    await self.engine.stop()
                    self.engine.events.publish("engine_state", data={"state": "replaced"})
                if self.on_replaced is not None:
                    self.on_replaced(message)
                return
            log.info("the catalogue is held again")
            self._watch_hold()
            if self.engine is not None:
                fleet = self.engine.fleet
                if was_common and not common:  # (another engine took it over meanwhile)
                    await fleet.give_up_common()
                try:  # (notices were lost meanwhile: all read again)
                    everything = await self.engine.read(self.store.list)
                    await fleet.adopt({a.id: fleet.runs_on(a) for a in everything})
                except Exception as exc:  # (the server away again: its next loss says so)
                    log.warning("could not read the catalogue again: %s", exc)
                await self._common_got()  # (taken over meanwhile: this engine's now)
                self.engine.events.publish("engine_state", data={"state": "running"})
            return

    async def start(self) -> Engine:
        await self.open()
        assert self.store is not None
        try:
            self.engine = Engine(self.store, self.data_dir, default_runners(),
                                 network=RouteProbe(), automatic=self.automatic)
            if self.hold is not None:
                self.engine.fleet.common = self.hold.common
            await self.engine.start()
            self._watch_hold()
            self.api = Api(self.engine, role=self.role, on_activate=self.on_activate)
            if self.listen:
                self.server = ControlServer(self.data_dir, self.handle)
                self.lock.set_address(await self.server.start())
            location = self.store.db.location
            if isinstance(location, ServerDatabase):  # commands from the other machines
                from ..remote_requests import RequestDesk
                engine = self.engine
                self.desk = RequestDesk(location, self.handle, common=lambda: engine.fleet.common)
                await self.desk.start()
        except BaseException:
            await self.close()
            raise
        return self.engine

    async def handle(self, op: str, args: dict[str, Any]) -> Any:
        if self.api is None or self.closing:  # (refused before anything acts: safe to repeat)
            raise Conflict("engine_stopping", "this Errands engine is stopping; ask again "
                           "in a moment")
        if self.hold is not None and self.engine is not None:
            from ..remote_requests import DIRECTED, ask
            from .routing import route
            if op == "create":  # (where it runs is settled before it is sent anywhere)
                args = {**args, "doc": self.engine.commands.bind_to_machine(args.get("doc"))}
            forward = None if DIRECTED.get() else await route(self.engine, op, args)
            if forward is not None and self.store is not None:
                return await asyncio.to_thread(ask, self.store.db.location, op, args,
                                               serving=forward.where, target=forward.target)
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
        if self._adopting is not None:
            self._adopting.cancel()
            await asyncio.gather(self._adopting, return_exceptions=True)
        if self.hold is not None:
            self.hold.release()
            self.hold = None
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

    def waiting(machine: str) -> None:
        loop.call_soon_threadsafe(announce, f"Standing by: another Errands engine named "
                                  f"{machine} serves this catalogue; this one takes its "
                                  "place when it stops.")

    while True:
        replaced: list[str] = []
        ended = asyncio.Event()  # the end of this engine: a signal, or another machine

        def taken_over(message: str, ended: asyncio.Event = ended,
                       replaced: list[str] = replaced) -> None:
            replaced.append(message)
            ended.set()

        host = EngineHost(data_dir, standby=waiting if standby else None,
                          on_replaced=taken_over, on_common=lambda: announce(
                              "This engine now also runs the automations that may run "
                              "anywhere: the engine that ran them stopped."))
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
        if host.hold is not None:
            announce(f"This is the engine of {host.hold.machine} on a shared catalogue: it "
                     f"runs the automations bound to {host.hold.machine}"
                     + (", and those that may run anywhere." if engine.fleet.common else
                        "; another machine's engine runs those that may run anywhere "
                        "(this one takes them over when it stops)."))
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
