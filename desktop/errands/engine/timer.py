"""The single timer and the admission of due fires: one wake per due instant, wall/monotonic
checks for a sleeping machine or a clock jump, and every due fire claimed (or skipped with
its reason) in one transaction that also moves the durable cursor.

That claim is the one write the engine makes on its loop, on purpose: the claimed runs
start in the same turn, and a fire's lateness is what users (and the APScheduler
comparison) measure; a burst of a thousand claims commits in tens of milliseconds. It never
waits long for another program's lock (a backup, an sqlite3 shell): ``ADMIT_WAIT_MS`` at
most, and not at all while the writer thread already waits for one. Refused, the fires stay
due, and the writer thread waits for the lock instead (``_wait_for_lock``), waking the timer
once it is free, so the loop (the control channel, the runs) goes on meanwhile."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError
from ..ledger import Admission, Due, Rules
from ..paths import run_log_path, workspace_path
from ..records import Automation
from ..schedule import jitter_offset
from .base import (
    CHECKPOINT_EVERY,
    CHECKPOINT_LEAD,
    FINAL_STRETCH,
    JUMP_THRESHOLD,
    PREPARE_AHEAD,
    RETRY_ADMISSION,
    make_folders,
)

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
ADMIT_WAIT_MS = 50    # the claim's longest wait on the loop for another program's write lock


class Timer:
    """The clock's fires: a heap of (due, seq, automation, version) entries, one per armed
    automation (a stale entry is skipped when its slot's version moved on), and the loop
    that sleeps until the first of them."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.heap: list[tuple[datetime, int, str, int]] = []
        self._seq = itertools.count()
        self.wake = asyncio.Event()
        self.wakeups = 0
        self._loop_task: asyncio.Task[None] | None = None
        self._lock_wait: asyncio.Task[None] | None = None  # the writer waits out a lock
        self._readied: datetime | None = None  # the fire the store was last readied for
        self._checkpointed = float("-inf")     # monotonic time of the last checkpoint
        self._prepared: set[str] = set()       # automations whose run folders exist
        self._to_prepare: list[Path] = []
        self._preparing: asyncio.Task[None] | None = None

    async def start(self, now: datetime) -> None:
        """Arm every automation and admit what came due while Errands was closed."""
        for automation_id in self.e.slots:
            self.arm(automation_id)
        await self.e.ledger.group.idle()  # (the claim then waits for no write of ours)
        try:
            self.admit_due(now, reason_hint="app_not_running", stagger=True)
        except StoreError as exc:  # another program writes: the timer claims them
            if exc.code != "locked":  # once it is free
                raise
            log.info("due fires wait for the database: %s", exc)  # (the timer warns)
            self.wait_for_lock()
        self._loop_task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """The engine stops (``stopping`` is set): the loop ends, as does a wait for
        another program's lock (within one try), and folders being made."""
        self.kick()
        if self._loop_task is not None:
            await self._loop_task
        if self._lock_wait is not None:
            await asyncio.gather(self._lock_wait, return_exceptions=True)
        if self._preparing is not None:
            await asyncio.gather(self._preparing, return_exceptions=True)

    def kick(self) -> None:
        self.wake.set()

    def arm(self, automation_id: str) -> None:
        slot = self.e.slots.get(automation_id)
        if slot is None:
            return
        a = slot.automation
        slot.version += 1
        if a.status != "active" or a.next_fire_at is None or not self.e.automatic:
            slot.due = None
            return
        slot.due = a.next_fire_at + jitter_offset(a.id, a.definition.policy.jitter)
        heapq.heappush(self.heap, (slot.due, next(self._seq), automation_id, slot.version))
        if a.id not in self._prepared and slot.due - self.e.clock.now() <= PREPARE_AHEAD:
            self._prepare(a)

    def _prepare(self, automation: Automation) -> None:
        """Make a run's folders (working folder, log folder) ahead of its fire, on a worker
        thread: a burst of first runs would otherwise create thousands on the loop."""
        self._prepared.add(automation.id)
        d = automation.definition
        self._to_prepare += [Path(d.workdir) if d.workdir
                             else workspace_path(self.e.data_dir, automation.id),
                             run_log_path(self.e.data_dir, automation.id, "-").parent]
        if self._preparing is None or self._preparing.done():
            self._preparing = asyncio.get_running_loop().create_task(self._prepare_folders())

    async def _prepare_folders(self) -> None:
        while self._to_prepare:
            batch, self._to_prepare = self._to_prepare, []
            await asyncio.to_thread(make_folders, batch)

    def peek_due(self) -> datetime | None:
        while self.heap:
            due, _, automation_id, version = self.heap[0]
            slot = self.e.slots.get(automation_id)
            if slot is not None and slot.version == version and slot.due == due:
                return due
            heapq.heappop(self.heap)
        return None

    def _rebuild_heap(self) -> None:
        self.heap = []
        for automation_id in self.e.slots:
            self.arm(automation_id)

    async def _loop(self) -> None:
        last_wall, last_mono = self.e.clock.now(), self.e.clock.monotonic()
        locked_since: datetime | None = None
        unreachable = False  # the last admission could not reach the database
        while not self.e.stopping:
            now, mono = self.e.clock.now(), self.e.clock.monotonic()
            drift = (now - last_wall).total_seconds() - (mono - last_mono)
            reason = None
            threshold = min(JUMP_THRESHOLD, self.e.max_sleep / 2)
            if drift > threshold:
                log.info("wall clock ran %.0f s ahead of the monotonic clock: machine slept", drift)
                reason = "machine_asleep"
                self._rebuild_heap()
            elif drift < -threshold:
                log.info("wall clock went back %.0f s: recomputing", -drift)
                self._rebuild_heap()
            last_wall, last_mono = now, mono
            self.wake.clear()
            try:
                due = self.peek_due()
                if due is not None and due <= now and not self.e.ledger.group.quiet:
                    # the claim must not wait on the loop for our writer, and memory must
                    # have heard of every write before it (a run's end): it waits here
                    await self.e.ledger.group.idle()
                    await asyncio.sleep(0)  # (what those writes settled runs first)
                    now = self.e.clock.now()
                if unreachable and reason is None:  # fires missed meanwhile say why
                    reason = "database_unreachable"
                self.admit_due(now, reason_hint=reason, stagger=reason is not None)
                if unreachable:  # the windows say it is back
                    log.info("the database is reachable again")
                    self.e.events.publish("engine_state", data={"state": "running"})
                unreachable = False
                self.e.runs.expire_due(now)
                timeout = self._sleep_for(self.peek_due())
                expiry = self.e.runs.until_expiry(self.e.clock.now())
                if expiry is not None:
                    timeout = min(timeout, expiry)
                if locked_since is not None:
                    log.info("the database is free again; due fires were claimed %.0f s late",
                             (now - locked_since).total_seconds())
                    locked_since = None
            except StoreError as exc:
                if exc.code == "database_unreachable":  # (a shared catalogue's server)
                    if not unreachable:
                        log.warning("due fires wait for the database: %s", exc)
                        self.e.events.publish("engine_state", data={"state": "unreachable"})
                    unreachable = True
                    timeout = RETRY_ADMISSION
                elif exc.code != "locked":
                    log.exception("admitting due fires failed; retrying in %.0f s",
                                  RETRY_ADMISSION)
                    timeout = RETRY_ADMISSION
                else:  # another program writes: said once; the writer waits for the lock
                    if locked_since is None:  # (on a shared catalogue, the other engines'
                        locked_since = now    # writes: routine, not worth a warning)
                        (log.info if self.e.fleet.shared else log.warning)(
                            "due fires wait: %s", exc)
                    self.wait_for_lock()
                    timeout = RETRY_ADMISSION
            except Exception:  # the store failed (disk full, damaged): try again shortly
                log.exception("admitting due fires failed; retrying in %.0f s", RETRY_ADMISSION)
                timeout = RETRY_ADMISSION
            self.wakeups += 1
            await self.e.clock.wait(self.wake, timeout)

    def wait_for_lock(self) -> None:
        """Wait for another program's write lock on the writer thread, not on the loop;
        the timer wakes once it is free (or in ``RETRY_ADMISSION`` anyway)."""
        if self._lock_wait is not None and not self._lock_wait.done():
            return

        async def wait() -> None:
            try:
                await self.e.ledger.write(
                    lambda: self.e.ledger.wait_until_free(lambda: self.e.stopping))
            finally:
                self.kick()

        self._lock_wait = asyncio.get_running_loop().create_task(wait())

    def _sleep_for(self, due: datetime | None) -> float:
        """How long the timer may sleep. Linux lets a sleep overrun by 0.1 % (its timer
        slack: up to 60 ms on a capped minute), so a fire further off than
        ``FINAL_STRETCH`` is slept to just before it; the store is readied, and a short
        last sleep ends on the instant."""
        if due is None:
            return self.e.max_sleep
        until = (due - self.e.clock.now()).total_seconds()
        mono = self.e.clock.monotonic()
        checkpoint = self._readied != due and mono - self._checkpointed >= CHECKPOINT_EVERY
        lead = CHECKPOINT_LEAD if checkpoint else FINAL_STRETCH
        if until > lead:
            return min(self.e.max_sleep, until - lead)
        if self._readied != due:
            self._readied = due
            if checkpoint and until >= FINAL_STRETCH / 2:
                self._checkpointed = mono
                # so the claim's commit does not copy the log back: on a worker (it writes
                # the file; a commit meanwhile goes on, the checkpoint being passive), early
                # enough that a large log is copied before the fire, not during its burst
                asyncio.get_running_loop().run_in_executor(None, self.e.ledger.checkpoint)
                until = (due - self.e.clock.now()).total_seconds()
        if until > FINAL_STRETCH:
            return until - FINAL_STRETCH
        return max(0.0, until)

    def _missed_reason(self, fire: datetime, created: datetime | None, hint: str | None) -> str:
        """Fires before this engine started were missed because Errands was not running,
        unless the automation was made since (in the start's second: a new schedule starts
        on the whole second before it was made, so its first fires may precede the start)."""
        started = self.e.started_at
        if started is not None and fire < started and (
                created is None or created < started.replace(microsecond=0)):
            return "app_not_running"
        return hint or "machine_asleep"

    def admit_due(self, now: datetime, *, reason_hint: str | None, stagger: bool) -> None:
        """Claim every fire the clock made due (``admit``); on a failure nothing was
        recorded and they stay due for the next try."""
        dues = []
        while True:
            due = self.peek_due()
            if due is None or due > now:
                break
            _, _, automation_id, _ = heapq.heappop(self.heap)
            slot = self.e.slots.get(automation_id)
            if slot is not None:
                dues.append(Due(slot.automation, slot.active, slot.queued))
        if not dues:
            return
        try:
            self.admit(dues, now, reason_hint=reason_hint, stagger=stagger)
        except BaseException:
            for due in dues:
                self.arm(due.automation.id)
            raise

    def admit(self, dues: list[Due], now: datetime, *, reason_hint: str | None = None,
              stagger: bool = False) -> Admission:
        """Claim fires through the ledger (the clock's, or a source's offers), then take in
        what it committed: slots, folders, notices (the claims first: they are what must
        not wait), replaced runs, and the claimed runs' start."""
        settings = self.e.settings
        rules = Rules(grace=settings.grace,
                      stagger=settings.get("catch_up_stagger").total_seconds() if stagger else 0,
                      missed_reason=lambda fire, created: self._missed_reason(
                          fire, created, reason_hint),
                      places=self.e.runs.places_free())
        admitted = self.e.ledger.admit(dues, now, rules, self.e.folders, ADMIT_WAIT_MS)
        for automation_id, run_id, where in admitted.placed:
            setattr(self.e.slots[automation_id], where, run_id)
        for folder, (run_id, automation_id) in admitted.reserving.items():
            self.e.folders.take(folder, run_id, automation_id)
        for automation_id, run_id in admitted.recorded:
            self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id)
        for automation in admitted.automations():  # (after the notices: the claims are
            self.e.take_in(automation.id, automation)  # what must not wait)
        started = admitted.runs()
        new_runs = {run.id for run, _ in started}
        for automation_id in admitted.cancels:
            self.e.runs.replace_runs_of(automation_id, keep=new_runs)
        for run, delay in started:
            self.e.runs.spawn(run.id, delay, run=run)
        return admitted
