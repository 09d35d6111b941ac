"""Hosting an engine on a data directory: the lock, the control channel, the operations.

``errands serve`` runs ``serve()``; the desktop app (later) will host the same
``EngineHost`` inside its Qt loop. ``operations`` is the one table of what a client may ask,
used both by the control channel and by the CLI when no engine runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any, Awaitable, Callable

from ..errors import InvalidInput
from ..paths import database_path
from ..store import Store
from .command_runner import CommandRunner
from .control import ControlServer
from .core import Engine
from .lock import DataDirLock, engine_refusal, read_owner
from .network import RouteProbe

log = logging.getLogger(__name__)

Operation = Callable[[Engine, dict[str, Any]], Awaitable[Any]]


_EXAMPLES = {"id": '"3f2a91c0-…" (an automation id)', "doc": '{"title": …, "runner": …, "trigger": …}',
             "key": '"concurrency"'}


def _arg(args: dict[str, Any], name: str) -> Any:
    if name not in args:
        raise InvalidInput(name, "is required", f"the {name} argument",
                           _EXAMPLES.get(name, name))
    return args[name]


async def _create(e: Engine, a: dict[str, Any]) -> Any:
    automation, created = await e.create(_arg(a, "doc"), request_id=a.get("request_id"),
                                         actor=a.get("actor", "cli"))
    return {"automation": automation.to_dict(), "created": created}


async def _revise(e: Engine, a: dict[str, Any]) -> Any:
    automation, changed = await e.revise(_arg(a, "id"), _arg(a, "doc"), actor=a.get("actor", "cli"))
    return {"automation": automation.to_dict(), "changed": changed}


async def _pause(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.set_paused(_arg(a, "id"), True, actor=a.get("actor", "cli"))).to_dict()


async def _resume(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.set_paused(_arg(a, "id"), False, actor=a.get("actor", "cli"))).to_dict()


async def _delete(e: Engine, a: dict[str, Any]) -> Any:
    await e.delete(_arg(a, "id"), actor=a.get("actor", "cli"))
    return {"deleted": a["id"]}


async def _run_now(e: Engine, a: dict[str, Any]) -> Any:
    run = await e.run_now(_arg(a, "id"), request_id=a.get("request_id"),
                          dry_run=bool(a.get("dry_run")))
    if a.get("wait"):
        run = await e.wait_run(run.id)
    return run.to_dict(with_output=bool(a.get("wait")))


async def _stop(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.stop_current(_arg(a, "id"))).to_dict()


async def _attention_read(e: Engine, a: dict[str, Any]) -> Any:
    return {"marked": e.mark_attention_read(a.get("item"))}


async def _set_setting(e: Engine, a: dict[str, Any]) -> Any:
    return {"value": e.set_setting(_arg(a, "key"), a.get("value"))}


async def _ping(e: Engine, a: dict[str, Any]) -> Any:
    return {"pid": os.getpid(), "data_dir": str(e.data_dir), "revision": e.events.last_revision}


OPERATIONS: dict[str, Operation] = {
    "create": _create, "revise": _revise, "pause": _pause, "resume": _resume,
    "delete": _delete, "run_now": _run_now, "stop": _stop, "attention_read": _attention_read,
    "set_setting": _set_setting, "ping": _ping,
}


def default_runners() -> dict[str, Any]:
    return {"command": CommandRunner()}


class EngineHost:
    """An engine that owns ``data_dir``: holds the lock and answers the control channel."""

    def __init__(self, data_dir: Path, *, automatic: bool = True, listen: bool = True) -> None:
        self.data_dir = data_dir
        self.automatic = automatic
        self.listen = listen
        self.lock = DataDirLock(data_dir, "engine")
        self.store: Store | None = None
        self.engine: Engine | None = None
        self.server: ControlServer | None = None

    async def start(self) -> Engine:
        if not self.lock.try_acquire():
            owner = await asyncio.to_thread(read_owner, self.data_dir)
            if owner is not None and owner.role == "engine":
                raise engine_refusal(owner, self.data_dir)
            # a CLI command is writing; it is brief
            await asyncio.to_thread(self.lock.acquire, 15)
        try:
            self.store = Store(database_path(self.data_dir))
            self.engine = Engine(self.store, self.data_dir, default_runners(),
                                 network=RouteProbe(), automatic=self.automatic)
            await self.engine.start()
            if self.listen:
                self.server = ControlServer(self.data_dir, self.handle)
                self.lock.set_address(await self.server.start())
        except BaseException:
            await self.close()
            raise
        return self.engine

    async def handle(self, op: str, args: dict[str, Any]) -> Any:
        operation = OPERATIONS.get(op)
        if operation is None or self.engine is None:
            raise InvalidInput("op", f"unknown operation {op!r}", "one of " + ", ".join(OPERATIONS),
                               "ping")
        return await operation(self.engine, args)

    async def close(self) -> None:
        if self.server is not None:
            await self.server.close()
            self.server = None
        if self.engine is not None:
            await self.engine.stop()
            self.engine = None
        if self.store is not None:
            self.store.close()
            self.store = None
        self.lock.release()


async def serve(data_dir: Path, *, announce: Callable[[str], None] = print) -> None:
    """Run the engine until SIGINT or SIGTERM, then shut down gracefully."""
    host = EngineHost(data_dir)
    await host.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl-C arrives as KeyboardInterrupt
            pass
    announce(f"Errands engine running on {data_dir} (pid {os.getpid()}); press Ctrl-C to stop.")
    try:
        await stop.wait()
    finally:
        announce("Stopping: letting running work finish …")
        await host.close()
        announce("Stopped.")
