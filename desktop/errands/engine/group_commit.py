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
        self._pending: dict[str, list[tuple[Any, _Waiter]]] = {}
        self._scheduled = False

    def register(self, kind: str, batch: BatchFn) -> None:
        self._kinds[kind] = batch
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
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit everything queued now (also called before a write that must follow it)."""
        self._scheduled = False
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
