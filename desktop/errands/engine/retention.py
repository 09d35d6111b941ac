"""Keeping run history within its limits (:mod:`errands.history`), off the loop and out of
the way of bursts.

An automation is looked at ``PRUNE_AFTER`` seconds after one of its runs ended (the runs
of a burst end first), and after the engine's start (``PRUNE_AT_START``), at most once a
minute each (``PRUNE_EVERY``), one automation at a time, and not while fires are about to
be admitted (``PRUNE_CLEARANCE``). Whether its history may be over
its limit is known from memory (it never made more runs than its limit: nothing to do);
only then is the database asked, on a reader thread. Deleting and merging go in batches of
``history.BATCH`` rows, each its own short transaction on the writer thread between the
engine's writes, and logs are deleted on a worker thread. Only an engine that fires
(``serve``, the app) prunes: a command that runs one automation does not."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from typing import TYPE_CHECKING

from .. import history

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
PRUNE_AFTER = 5.0      # seconds after a run ended
PRUNE_AT_START = 10.0  # seconds after the engine started (its catch-ups first)
PRUNE_EVERY = 60.0     # seconds: an automation is pruned at most once a minute
PRUNE_CLEARANCE = 2.0  # seconds: a fire due this soon is let through first


class Retention:
    """A heap of automations to look at (when, seq, automation), the set of those in it,
    when each was last pruned (monotonic), and the task working through the heap."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self._queue: list[tuple[float, int, str]] = []
        self._wanted: set[str] = set()
        self._pruned_at: dict[str, float] = {}
        self._pruner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # set when the queue changed
        self._seq = itertools.count()

    def want(self, automation_id: str, after: float = PRUNE_AFTER) -> None:
        """Look at the automation's history soon (a run of it ended)."""
        if not self.e.automatic or self.e.stopping or automation_id in self._wanted:
            return
        when = max(self.e.clock.monotonic() + after,
                   self._pruned_at.get(automation_id, float("-inf")) + PRUNE_EVERY)
        self._wanted.add(automation_id)
        heapq.heappush(self._queue, (when, next(self._seq), automation_id))
        self._wake.set()  # (a sleeping pruner looks at the queue's head again)
        if self._pruner is None or self._pruner.done():
            self._pruner = asyncio.get_running_loop().create_task(self._loop())

    def at_start(self) -> None:
        """After a start: every automation that made more runs than its limit (known from
        memory). Logs over their limit are trimmed after the automation's next run: looking
        at every command automation's logs at each start cost a catalogue of 10,000 a
        scan of 10,000 folders while the window was first being used."""
        default = self.e.settings.get("run_history_limit")
        for automation_id, slot in self.e.slots.items():
            d = slot.automation.definition
            keep = (d.policy.history_limit if d is not None else None) or default
            if slot.automation.last_index > keep and slot.automation.status != "archived":
                self.want(automation_id, PRUNE_AT_START)

    async def _loop(self) -> None:
        deferred = False
        while self._queue and not self.e.stopping:
            when, _, automation_id = self._queue[0]
            wait = when - self.e.clock.monotonic()
            if wait > 0:
                self._wake.clear()
                await self.e.clock.wait(self._wake, wait)
                continue
            due = self.e.timer.peek_due()  # type: ignore[attr-defined]
            ahead = None if due is None else (due - self.e.clock.now()).total_seconds()
            if ahead is not None and 0 <= ahead < PRUNE_CLEARANCE and not deferred:
                deferred = True  # a fire (a burst?) goes first; once, or dense fires starve it
                await self.e.clock.sleep(ahead + PRUNE_CLEARANCE)
                continue
            deferred = False
            heapq.heappop(self._queue)
            self._wanted.discard(automation_id)
            self._pruned_at[automation_id] = self.e.clock.monotonic()
            with self.e.ledger.working():  # off the loop to its end (a fake clock waits)
                try:
                    await self._prune(automation_id)
                except asyncio.CancelledError:
                    raise
                except Exception:  # (a full disk, a lock held long): tried after its next run
                    log.exception("could not prune the history of automation %s",
                                  automation_id)

    async def _prune(self, automation_id: str) -> None:
        """Keep one automation's history and logs within their limits."""
        slot = self.e.slots.get(automation_id)
        if slot is None or slot.automation.status == "archived":  # archived: kept as it is
            return
        d = slot.automation.definition
        keep = (d.policy.history_limit if d is not None else None) \
            or self.e.settings.get("run_history_limit")
        pruned = 0
        if slot.automation.last_index > keep:  # (else it never made more runs than it keeps)
            before = await self.e.read(history.cutoff, self.e.store, automation_id, keep)
            more = before is not None
            while more and not self.e.stopping:
                ids, more = await self.e.write(
                    lambda: self.e.ledger.prune_runs(automation_id, before))
                if ids:
                    pruned += len(ids)
                    await self.e.read(history.delete_logs, self.e.data_dir, automation_id, ids)
            more = before is not None
            while more and not self.e.stopping:
                merged, more = await self.e.write(
                    lambda: self.e.ledger.coalesce_skipped(automation_id, before))
                pruned += merged
        limit = self.e.settings.get("output_log_limit")
        trimmed = await self.e.read(history.trim_logs, self.e.store, self.e.data_dir,
                                   automation_id, limit)
        if pruned or trimmed:
            log.info("history of automation %s: %d old runs deleted or merged, %d logs "
                     "deleted", automation_id, pruned, len(trimmed))
            self.e.events.publish("automation_changed", automation_id=automation_id,
                                data={"pruned": pruned})

    async def stop(self) -> None:
        self._queue.clear()
        self._wanted.clear()
        if self._pruner is not None:
            self._pruner.cancel()
            await asyncio.gather(self._pruner, return_exceptions=True)
