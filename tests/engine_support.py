"""A fake-clock engine on a real SQLite file, and a scripted runner that takes fake time."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest
from pg_support import location_for

from errands.engine.api import Api
from errands.engine.clock import FakeClock
from errands.engine.core import Engine
from errands.runners.contract import Outcome, RunContext
from errands.engine.service import EngineThread
from errands.records import Run
from errands.store import Store

START = datetime(2026, 1, 5, 8, 0, tzinfo=timezone.utc)  # a Monday


@dataclass
class Call:
    title: str
    scheduled_for: datetime | None
    started: datetime
    attempt: int
    dry_run: bool


@dataclass
class ScriptedRunner:
    """Each automation (by title) gets a list of (seconds, outcome factory) steps; when they
    run out it succeeds at once. Durations pass on the fake clock."""

    clock: FakeClock
    kind: str = "command"
    needs_network: bool = False
    plans: dict[str, list[tuple[float, Callable[[], Outcome]]]] = field(
        default_factory=lambda: defaultdict(list))
    default: Callable[[RunContext], Outcome] = lambda ctx: Outcome(state="succeeded",
                                                                   result=f"ok {ctx.run_index}")
    calls: list[Call] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    durations: dict[str, float] = field(default_factory=dict)

    def script(self, title: str, *steps: tuple[float, Callable[[], Outcome]]) -> None:
        self.plans[title].extend(steps)

    async def run(self, ctx: RunContext) -> Outcome:
        title = ctx.definition.title
        self.calls.append(Call(title, ctx.scheduled_for, self.clock.now(), ctx.attempt, ctx.dry_run))
        if self.plans[title]:
            seconds, make = self.plans[title].pop(0)
        else:
            seconds, make = self.durations.get(title, 0.0), lambda: self.default(ctx)
        try:
            if seconds:
                await self.clock.sleep(seconds)
        except BaseException:
            self.cancelled.append(title)
            raise
        return make()


def ok(result: str = "ok", **kw: Any) -> Callable[[], Outcome]:
    return lambda: Outcome(state="succeeded", result=result, **kw)


def fail(message: str = "boom") -> Callable[[], Outcome]:
    return lambda: Outcome(state="failed", error_code="exit_status", error_message=message)


def command_doc(title: str, trigger: dict[str, Any] | list[dict[str, Any]], **extra: Any
                ) -> dict[str, Any]:
    """A command automation's definition; a list of triggers goes in ``triggers``."""
    doc: dict[str, Any] = {"title": title, "runner": {"kind": "command", "command": "true"},
                           "triggers" if isinstance(trigger, list) else "trigger": trigger}
    doc.update(extra)
    return doc


class Harness:
    def __init__(self, tmp_path: Path, start: datetime = START, **engine_kw: Any) -> None:
        self.tmp_path = tmp_path
        self.clock = FakeClock(start)
        self.runner = ScriptedRunner(self.clock)
        self.engine_kw = engine_kw
        self.store = Store(location_for(tmp_path))
        self.engine = self._new_engine()

    def _new_engine(self) -> Engine:
        return Engine(self.store, self.tmp_path, {"command": self.runner}, clock=self.clock,
                      **self.engine_kw)

    async def stop(self) -> None:
        """Stop the engine while letting fake time pass, as its shutdown grace needs."""
        import asyncio

        stopping = asyncio.ensure_future(self.engine.stop())
        await self.clock.settle()
        while not stopping.done():
            await self.clock.advance(1)
        await stopping

    async def restart(self, *, offline: timedelta = timedelta(0),
                      at: datetime | None = None) -> None:
        """Stop the engine, let wall time pass with no engine (``offline``, or until ``at``),
        then start a new one."""
        await self.stop()
        self.clock.jump_wall(offline if at is None else at - self.clock.now())
        self.engine = self._new_engine()
        await self.engine.start()
        await self.clock.settle()

    async def add(self, title: str, trigger: dict[str, Any] | list[dict[str, Any]],
                  **extra: Any) -> str:
        automation, _ = await self.engine.commands.create(command_doc(title, trigger, **extra))
        await self.clock.settle()
        return automation.id

    def runs(self, automation_id: str) -> list[Run]:
        runs, _ = self.store.runs_page(automation_id, limit=1000)
        return list(reversed(runs))

    def states(self, automation_id: str) -> list[str]:
        return [r.state for r in self.runs(automation_id)]


# fixtures the engine tests share (import them by name into a test module)

@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, max_sleep=3600)
    await harness.engine.start()
    yield harness
    await harness.stop()


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    host = EngineThread(tmp_path / "data", listen=False, role="app")
    facade = await host.start()
    try:
        yield facade
    finally:
        await host.close()
