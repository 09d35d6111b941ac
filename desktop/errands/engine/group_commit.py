"""Group commit: writes asked for in one turn of the event loop share one transaction.

Why: when a thousand runs start at once, a transaction per run start costs more than the
process spawns themselves. Each kind of write registers a batch function that applies all
of its pending items in one go; callers get a future per item (or fire and forget). A
batch that fails is retried item by item, so one bad item fails alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from sqlalchemy.orm import Session

from ..errors import StoreError
from ..store import Store

log = logging.getLogger(__name__)

# A batch function applies its items and returns one result (or exception) per item.
BatchFn = Callable[[Session, Sequence[Any]], Sequence[Any]]
# Who hears of an item's outcome: a future, an error callback, or nobody (the log).
_Waiter: TypeAlias = "asyncio.Future[Any] | Callable[[BaseException], None] | None"


class GroupCommit:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._kinds: dict[str, BatchFn] = {}
        self._delays: dict[str, float] = {}
        self._pending: dict[str, list[tuple[Any, _Waiter]]] = {}
        self._handle: asyncio.Handle | None = None  # the flush to come
        self._soon = False                           # ... at the next turn (not a timer)

    def register(self, kind: str, batch: BatchFn, *, delay: float = 0.0) -> None:
        """``delay``: seconds an item of this kind may wait for company (0: the next turn
        of the loop). A write of another kind, or any transaction of the engine's, commits
        it earlier; the order of writes is kept either way."""
        self._kinds[kind] = batch
        self._delays[kind] = delay
        self._pending[kind] = []

    def submit(self, kind: str, item: Any) -> asyncio.Future[Any]:
        """Queue ``item``; the future gets its result once the transaction committed."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue(kind, item, future)
        return future

    def post(self, kind: str, item: Any,
             on_error: Callable[[BaseException], None] | None = None) -> None:
        """Queue ``item`` with nobody waiting; a failure goes to ``on_error`` (or the log)."""
        self._queue(kind, item, on_error)

    def _queue(self, kind: str, item: Any, future: _Waiter) -> None:
        self._pending[kind].append((item, future))
        delay = self._delays[kind]
        if self._handle is not None and (self._soon or delay):
            return  # a flush is coming soon enough
        loop = asyncio.get_running_loop()
        if self._handle is not None:
            self._handle.cancel()  # a timer; this item wants the next turn
        self._soon = not delay
        self._handle = loop.call_soon(self.flush) if self._soon else \
            loop.call_later(delay, self.flush)

    def flush(self) -> None:
        """Commit everything queued now (also called before a write that must follow it)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        batches = [(kind, entries) for kind, entries in self._pending.items() if entries]
        if not batches:
            return
        for kind, _ in batches:
            self._pending[kind] = []
        try:
            with self.store.transaction() as s:
                outcomes = [self._kinds[kind](s, [item for item, _ in entries])
                            for kind, entries in batches]
        except StoreError as exc:  # locked or broken: every item would wait and fail alike
            for _, entries in batches:
                for _, future in entries:
                    _settle(future, exc)
            return
        except Exception as exc:  # isolate the bad item: retry each on its own
            log.debug("group commit of %d kinds failed (%s); retrying one by one",
                      len(batches), exc)
            for kind, entries in batches:
                for item, future in entries:
                    self._apply_alone(kind, item, future)
            return
        for (_, entries), results in zip(batches, outcomes):
            for (_, future), result in zip(entries, results):
                _settle(future, result)

    def _apply_alone(self, kind: str, item: Any, future: _Waiter) -> None:
        try:
            with self.store.transaction() as s:
                [result] = self._kinds[kind](s, [item])
        except Exception as exc:
            result = exc
        _settle(future, result)


def _settle(future: _Waiter, result: Any) -> None:
    if not isinstance(future, asyncio.Future):
        if isinstance(result, BaseException):
            if future is None:
                log.error("a queued write failed: %s", result)
            else:
                future(result)
        return
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
