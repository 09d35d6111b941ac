"""The ``concurrency`` cap: how many runs may work at once.

A semaphore that can also be taken *now*, without a loop turn: a claim that starts its
runs in its own commit (``ledger.admission``) takes their places in the same loop turn, so
no run marked running ever waits for a place, and no other run slips in between."""

from __future__ import annotations

import asyncio
from collections import deque


class Places:
    def __init__(self, size: int) -> None:
        self.size = size
        self.held = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    def free(self) -> int:
        """Places that can be taken at once (none while someone waits: they come first)."""
        return 0 if self._waiters else max(0, self.size - self.held)

    def take_now(self) -> bool:
        if self.free() == 0:
            return False
        self.held += 1
        return True

    async def take(self) -> None:
        """A place, in turn. Cancelled while waiting, it leaves the line (and hands on a
        place it was given at that very moment)."""
        if self.take_now():
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give_back()
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def give_back(self) -> None:
        """A place freed: the first in line gets it, else it is free again."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # (the place passes on: ``held`` stays)
                return
        self.held = max(0, self.held - 1)
