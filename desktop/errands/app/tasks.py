"""The background work a part of the window started, in one place.

Qt calls the window between the event loop's turns too (a test, a modal dialog), so work
is always put on the app's loop (``loop``, set once it runs), never on "the current one".
A refusal from the engine (:class:`~errands.errors.ErrandsError`: deleted meanwhile, the
database busy) is an everyday answer and is logged as information; anything else is a bug
and logged as an error. Once closed, nothing new starts: a notice that arrives while the
app quits finds no loop that would run it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ..errors import ErrandsError

log = logging.getLogger(__name__)


def current_loop() -> asyncio.AbstractEventLoop:
    """The running loop, or (called from a Qt slot between its turns) the thread's one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.get_event_loop()


class Tasks:
    def __init__(self, what: str, *,
                 loop_of: Callable[[], asyncio.AbstractEventLoop | None] | None = None) -> None:
        """``what`` names the work in the log ("a window refresh"); ``loop_of`` says where
        it runs when :attr:`loop` is not set (another part's loop)."""
        self.what = what
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_of = loop_of
        self.closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._again: dict[str, bool] = {}   # a refresh in flight -> asked again meanwhile

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        if self.closed:
            coro.close()
            return None
        loop = self.loop or (self.loop_of() if self.loop_of else None) \
            or asyncio.get_event_loop()
        task = loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def refresh(self, name: str, make: Callable[[], Awaitable[None]],
                done: Callable[[str], None] | None = None) -> None:
        """Run ``make()`` now, or once more after the run in flight: a burst of notices asks
        one question at a time, and the last one sees every change. A refusal ends only
        that run; one asked for meanwhile still happens."""
        if name in self._again:
            self._again[name] = True
            return
        self._again[name] = False

        async def go() -> None:
            try:
                while True:
                    try:
                        await make()
                    except ErrandsError as exc:  # deleted meanwhile, database busy: next time
                        log.info("%s (%s) was refused: %s", self.what, name, exc)
                    if not self._again.get(name):
                        break
                    self._again[name] = False
            finally:
                self._again.pop(name, None)
                if done is not None:
                    done(name)
        if self.spawn(go()) is None:
            self._again.pop(name, None)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        if isinstance(exc, ErrandsError):
            log.info("%s was refused: %s", self.what, exc)
        else:
            log.error("%s failed", self.what, exc_info=exc)

    async def idle(self) -> None:
        """Wait until nothing else started here is in flight (tests, quitting; called from
        one of its own tasks, it does not wait for itself)."""
        while others := [t for t in self._tasks if t is not asyncio.current_task()]:
            await asyncio.gather(*others, return_exceptions=True)

    async def cancel(self) -> None:
        """Stop what is in flight and wait until it has stopped."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        """From now on nothing starts."""
        self.closed = True

    def stop(self) -> None:
        """Close, and cancel what is in flight without waiting (a synchronous owner's
        close; :meth:`idle` waits for the cancelled work to end)."""
        self.close()
        for task in list(self._tasks):
            task.cancel()
