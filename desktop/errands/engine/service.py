"""Hosting an engine on a data directory: the lock, the control channel, the operations.

``errands serve`` runs ``serve()``; the desktop app (later) will host the same
``EngineHost`` inside its Qt loop. What a client may ask is the table in
:mod:`errands.engine.operations`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any, Callable

from ..errors import ErrandsError
from ..paths import database_path
from ..store import Store
from .command_runner import CommandRunner
from .control import ControlServer
from .core import Engine
from .lock import DataDirLock, engine_refusal, read_owner
from .network import RouteProbe
from .runner import NoProviderRunner
from .operations import perform

log = logging.getLogger(__name__)


def default_runners() -> dict[str, Any]:
    return {"command": CommandRunner(), "agent": NoProviderRunner()}


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
        if self.engine is None:
            raise ErrandsError("the engine is not running")
        return await perform(self.engine, op, args)

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
