"""Time for the engine: the wall clock for schedules, the monotonic clock for waiting.

The engine never calls ``time`` or ``asyncio.sleep`` directly, so tests substitute
``FakeClock`` and simulate a year in a second, including a machine that sleeps (the wall
clock jumps while the monotonic clock stands still).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from datetime import datetime, timedelta
from collections.abc import Callable
from typing import Protocol

from ..timeutil import UTC


class Clock(Protocol):
    def now(self) -> datetime: ...

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        """Wait for ``event`` or ``seconds``, whichever comes first; True if the event fired."""
        ...


class RealClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        try:
            await asyncio.wait_for(event.wait(), timeout=max(0.0, seconds))
            return True
        except asyncio.TimeoutError:
            return False


class FakeClock:
    """A clock that moves only when told. Sleepers wake in deadline order as it advances.

    Time is kept in whole microseconds, as datetimes are, so a sleep computed from two
    wall instants ends exactly on the later one."""

    def __init__(self, start: datetime) -> None:
        self._wall = start
        self._mono_us = 1_000_000_000
        self._sleepers: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._off_loop: list[Callable[[], bool]] = []

    def track(self, busy: Callable[[], bool]) -> None:
        """Work that runs off the loop (the engine's writer thread): ``settle`` waits
        while ``busy()`` says it is under way, as real time would let it finish."""
        self._off_loop.append(busy)

    def now(self) -> datetime:
        return self._wall

    def monotonic(self) -> float:
        return self._mono_us / 1e6

    async def sleep(self, seconds: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        deadline = self._mono_us + max(0, round(seconds * 1e6))
        heapq.heappush(self._sleepers, (deadline, next(self._seq), fut))
        await fut

    async def wait(self, event: asyncio.Event, seconds: float) -> bool:
        if event.is_set():
            return True
        sleeper = asyncio.ensure_future(self.sleep(seconds))
        waiter = asyncio.ensure_future(event.wait())
        done, pending = await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        return waiter in done

    async def settle(self) -> None:
        """Let every task that can run, run (several loop turns, as real I/O would)."""
        loop = asyncio.get_running_loop()
        ready = getattr(loop, "_ready", None)  # CPython's queue of runnable callbacks
        for _ in range(10_000):
            await asyncio.sleep(0)
            if ready is not None and not ready:
                await asyncio.sleep(0)
                if ready:
                    continue
                if not any(busy() for busy in self._off_loop):
                    return
                await asyncio.sleep(0.0002)  # (real time) for the other thread to end
        if ready is None:
            for _ in range(50):
                await asyncio.sleep(0)

    async def advance(self, delta: timedelta | float) -> None:
        """Move both clocks forward, waking each sleeper at its own deadline in order."""
        seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta)
        target = self._mono_us + round(seconds * 1e6)
        await self.settle()
        while True:
            self._sleepers = [s for s in self._sleepers if not s[2].done()]
            heapq.heapify(self._sleepers)
            if not self._sleepers or self._sleepers[0][0] > target:
                break
            deadline, _, fut = heapq.heappop(self._sleepers)
            self._move(max(0, deadline - self._mono_us))
            fut.set_result(None)
            await self.settle()
        self._move(target - self._mono_us)
        await self.settle()

    def _move(self, micros: int) -> None:
        self._mono_us += micros
        self._wall += timedelta(microseconds=micros)

    async def advance_to(self, when: datetime) -> None:
        await self.advance(when - self._wall)

    def jump_wall(self, delta: timedelta) -> None:
        """The wall clock moves but the monotonic one does not: a suspend, or a clock change."""
        self._wall += delta
