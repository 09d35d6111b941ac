"""Group commit: writes asked for while a commit is under way share the next transaction,
which runs on the engine's writer thread.

Why: when a thousand runs start at once, a transaction per run start costs more than the
process spawns themselves; and a commit on the event loop's thread holds every run (and
the control channel) for its whole length, tens of milliseconds on a slow disk. Each kind
of write registers a batch function that applies all of its pending items in one go;
callers get a future per item (or fire and forget). One transaction is under way at a
time, so the writes keep their order and a batch grows while the one before it commits. A
batch that fails is retried item by item, so one bad item fails alone.

Batch functions run on the writer thread: they may use the session and the store, never
the engine's memory. A command's work (a create, an edit, a decision) runs there too, alone
and in its own transactions (``run``), after every write queued before it. The one
synchronous transaction left on the loop, the timer's claim of due fires, calls ``drain``
first, so it too follows every queued write.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar

from sqlalchemy.orm import Session

from ..db.database import waiting_at_most
from ..errors import StoreError
from ..store import Store

log = logging.getLogger(__name__)
T = TypeVar("T")

# A batch function applies its items and returns one result (or exception) per item.
BatchFn = Callable[[Session, Sequence[Any]], Sequence[Any]]
# Who hears of an item's outcome: a future, an error callback, or nobody (the log).
_Waiter: TypeAlias = "asyncio.Future[Any] | Callable[[BaseException], None] | None"
_Batches: TypeAlias = "list[tuple[str, list[tuple[Any, _Waiter]]]]"
_Outcomes: TypeAlias = "list[list[Any]]"


class GroupCommit:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._kinds: dict[str, BatchFn] = {}
        self._delays: dict[str, float] = {}
        self._pending: dict[str, list[tuple[Any, _Waiter]]] = {}
        self._handle: asyncio.Handle | None = None  # the flush to come
        self._soon = False                           # ... at the next turn (not a timer)
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        # the commit under way on the writer thread, and what it settles
        self._busy: concurrent.futures.Future[_Outcomes] | None = None
        self._busy_batches: _Batches = []
        self._started = 0   # commits handed to the writer so far
        self._finished = 0  # ... and settled
        self._ended: asyncio.Future[None] | None = None  # the next commit's end, for settled()
        self._side: set[concurrent.futures.Future[Any]] = set()  # ``run`` jobs under way
        self._closed = False

    @property
    def busy(self) -> bool:
        """Whether a commit (or a ``run`` job) is under way on the writer thread."""
        return self._busy is not None or bool(self._side)

    @property
    def quiet(self) -> bool:
        """Nothing queued and nothing under way: a transaction begun now waits for none of
        ours, and every write so far has been heard of on the loop."""
        return not self.busy and not any(self._pending.values())

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
        if self._busy is None:  # else the commit under way schedules it when it ends
            self._schedule(self._delays[kind])

    def _schedule(self, delay: float) -> None:
        """A flush ``delay`` seconds from now (0: at the next turn), unless one is due
        sooner; a timer gives way to a flush at the next turn."""
        if self._handle is not None and (self._soon or delay):
            return  # a flush is coming soon enough
        loop = asyncio.get_running_loop()
        if self._handle is not None:
            self._handle.cancel()  # a timer; this item wants the next turn
        self._soon = not delay
        self._handle = loop.call_soon(self.flush) if self._soon else \
            loop.call_later(delay, self.flush)

    def _take(self) -> _Batches:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        batches = [(kind, entries) for kind, entries in self._pending.items() if entries]
        for kind, _ in batches:
            self._pending[kind] = []
        return batches

    def open(self) -> None:
        """Start the writer thread now (else the first write starts it, in a busy moment);
        after ``aclose``, start it again (an engine started again)."""
        self._closed = False
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="errands-writer")
            self._writer.submit(lambda: None)

    def flush(self) -> None:
        """Start committing everything queued now, on the writer thread (when a commit is
        under way, what is queued follows it as soon as it ends). Once closed, here."""
        if self._busy is not None:
            return
        if self._closed:
            self.drain()
            return
        batches = self._take()
        if not batches:
            return
        loop = asyncio.get_running_loop()
        self.open()
        assert self._writer is not None
        self._busy_batches = batches
        self._started += 1
        self._busy = job = self._writer.submit(self._commit, batches)
        job.add_done_callback(lambda _: _call_soon(loop, self._committed, job))

    def _committed(self, job: concurrent.futures.Future[_Outcomes]) -> None:
        """On the loop, once the writer's commit ended: settle its items, start the next."""
        if self._busy is not job:  # already settled (``drain``)
            return
        self._finish(job)
        waiting = [self._delays[kind] for kind, entries in self._pending.items() if entries]
        if waiting:  # what came meanwhile, as it asked (a line may still wait for company)
            self._schedule(min(waiting))

    def _finish(self, job: concurrent.futures.Future[_Outcomes]) -> None:
        """Settle the items of the commit under way, which has ended."""
        batches, self._busy, self._busy_batches = self._busy_batches, None, []
        if job.cancelled():  # (nothing cancels it; should anything, it is done here)
            outcomes = self._commit(batches)
        else:
            outcomes = job.result()
        self._finished += 1
        _settle_all(batches, outcomes)
        ended, self._ended = self._ended, None
        if ended is not None and not ended.done():
            ended.set_result(None)

    def drain(self) -> None:
        """Commit everything queued, here and now (blocking): for a synchronous
        transaction that must follow them."""
        if self._side:
            concurrent.futures.wait(list(self._side))
        job = self._busy
        if job is not None:
            concurrent.futures.wait([job])
            self._finish(job)
        batches = self._take()
        if batches:  # counted as a commit handed on and ended, for settled()
            self._started += 1
            self._busy_batches = batches
            job: concurrent.futures.Future[_Outcomes] = concurrent.futures.Future()
            with waiting_at_most(None):  # the engine's writes wait as long as they must
                job.set_result(self._commit(batches))
            self._finish(job)

    async def settled(self) -> None:
        """Until everything queued before the call has committed, without blocking the
        loop: at most the commit under way and the one after it, however many writes keep
        coming. Cancelling the wait cancels no write."""
        self.flush()
        target = self._started + (1 if any(self._pending.values()) else 0)
        while self._finished < target:
            if self._busy is None:  # what is queued waits for a timer: commit it now
                self.flush()
                if self._busy is None:
                    return  # (committed here, the writer being closed)
            if self._ended is None:
                self._ended = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._ended)

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the writer thread, after every write queued before the call, with
        the caller's context (a command's short wait for a lock goes with it). It makes its
        own transactions; the batches queued meanwhile commit after it. Cancelling the
        wait cancels nothing: once asked for, ``fn`` runs and its writes land."""
        await self.settled()
        if self._closed:  # no writer any more (an engine stopping): here
            return fn()
        self.open()
        assert self._writer is not None
        context = contextvars.copy_context()
        # The writer is one thread: ``fn`` follows the commit under way, if one began
        # since, and precedes what is handed to it later (bounded, however much comes).
        job = self._writer.submit(context.run, fn)
        self._side.add(job)
        job.add_done_callback(self._side.discard)
        return await asyncio.shield(asyncio.wrap_future(job))

    async def idle(self) -> None:
        """Until what was queued before the call has committed and no ``run`` job is under
        way: a transaction begun here then waits for none of ours (the timer's claim)."""
        await self.settled()
        for job in list(self._side):
            waiter = asyncio.wrap_future(job)
            await asyncio.wait([waiter])
            if not waiter.cancelled():
                waiter.exception()  # (retrieved: the caller of ``run`` hears it)

    async def aclose(self) -> None:
        """Commit what is queued and end the writer thread; later writes commit at once,
        on the caller's thread (nothing starts another writer)."""
        await self.idle()
        self._closed = True
        self.drain()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None

    def _commit(self, batches: _Batches) -> _Outcomes:
        """One transaction for all the batches (on the writer thread, or in ``drain``);
        one outcome per item, an exception standing for an item that failed."""
        try:
            with self.store.transaction() as s:
                return [list(self._kinds[kind](s, [item for item, _ in entries]))
                        for kind, entries in batches]
        except StoreError as exc:  # locked or broken: every item would wait and fail alike
            return [[exc] * len(entries) for _, entries in batches]
        except Exception as exc:  # isolate the bad item: retry each on its own
            log.debug("group commit of %d kinds failed (%s); retrying one by one",
                      len(batches), exc)
            return [[self._apply_alone(kind, item) for item, _ in entries]
                    for kind, entries in batches]

    def _apply_alone(self, kind: str, item: Any) -> Any:
        try:
            with self.store.transaction() as s:
                [result] = self._kinds[kind](s, [item])
        except Exception as exc:
            result = exc
        return result


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., None], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop has closed: nobody is left to tell
        pass


def _settle_all(batches: _Batches, outcomes: _Outcomes) -> None:
    for (_, entries), results in zip(batches, outcomes):
        for (_, future), result in zip(entries, results):
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
