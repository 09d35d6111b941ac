"""A real engine (a real catalogue: the data folder's SQLite file, or the PostgreSQL pass's;
real command runner, real clock) for the tests of event triggers, and a wait on a condition
instead of a fixed sleep."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from errands.engine.core import Engine
from errands.records import Run
from errands.runners.command import CommandRunner
from errands.store import Store
from pg_support import location_for


async def until(condition: Callable[[], object], what: str, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"not within {within:g} s: {what}"
        await asyncio.sleep(0.02)


class Real:
    """An engine as ``errands serve`` hosts it, on a data folder of the test's own."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.location = location_for(data)
        self.store = Store(self.location)
        self.engine = Engine(self.store, data, {"command": CommandRunner()})

    async def add(self, title: str, command: str, triggers: Any, **extra: Any) -> str:
        doc = {"title": title, "runner": {"kind": "command", "command": command},
               "triggers" if isinstance(triggers, list) else "trigger": triggers,
               "policy": {"retry": {"max_attempts": 1}}, **extra}
        automation, _ = await self.engine.commands.create(doc)
        return automation.id

    def runs(self, automation_id: str) -> list[Run]:
        runs, _ = self.store.runs_page(automation_id, limit=1000)
        return list(reversed(runs))

    def ended(self, automation_id: str) -> list[Run]:
        return [r for r in self.runs(automation_id) if not r.active]

    async def restart(self) -> None:
        await self.engine.stop()
        self.engine = Engine(self.store, self.data, {"command": CommandRunner()})
        await self.engine.start()


@pytest.fixture
async def real(tmp_path: Path) -> AsyncIterator[Real]:
    (tmp_path / "data").mkdir()
    r = Real(tmp_path / "data")
    await r.engine.start()
    try:
        yield r
    finally:
        await r.engine.stop()
        r.store.close()
