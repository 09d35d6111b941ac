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
import logging
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..db.bulk import Cursor, StaleCursor, write_cursors
from ..db.database import waiting_at_most
from ..db.schema import AutomationRow, RunRow
from ..definition import AfterTrigger, Definition
from ..errors import StoreError
from ..paths import run_log_path, workspace_path
from ..records import Automation, Run
from ..schedule import jitter_offset
from ..store import Claimed, _automation, _run, run_from_values
from .base import (
    CHECKPOINT_EVERY,
    FINAL_STRETCH,
    JUMP_THRESHOLD,
    PREPARE_AHEAD,
    REPLACED,
    RETRY_ADMISSION,
    EngineBase,
    _Slot,
    _slot_key,
    make_folders,
)
from .fires import cursor_after, due_window, plan_fires
from .folders import FOLDER_BUSY

log = logging.getLogger(__name__)
ADMIT_WAIT_MS = 50    # the claim's longest wait on the loop for another program's write lock
LOCK_PROBE_MS = 1000  # the writer thread's wait for it, per try (a quit is heard between)

class Timer(EngineBase):
    def _arm(self, automation_id: str) -> None:
        slot = self._slots.get(automation_id)
        if slot is None:
            return
        a = slot.automation
        slot.version += 1
        if a.status != "active" or a.next_fire_at is None or not self.automatic:
            slot.due = None
            return
        slot.due = a.next_fire_at + jitter_offset(a.id, a.definition.policy.jitter)
        heapq.heappush(self._heap, (slot.due, next(self._seq), automation_id, slot.version))
        if a.id not in self._prepared and slot.due - self.clock.now() <= PREPARE_AHEAD:
            self._prepare(a)

    def _prepare(self, automation: Automation) -> None:
        """Make a run's folders (working folder, log folder) ahead of its fire, on a worker
        thread: a burst of first runs would otherwise create thousands on the loop."""
        self._prepared.add(automation.id)
        d = automation.definition
        self._to_prepare += [Path(d.workdir) if d.workdir
                             else workspace_path(self.data_dir, automation.id),
                             run_log_path(self.data_dir, automation.id, "-").parent]
        if self._preparing is None or self._preparing.done():
            self._preparing = asyncio.get_running_loop().create_task(self._prepare_folders())

    async def _prepare_folders(self) -> None:
        while self._to_prepare:
            batch, self._to_prepare = self._to_prepare, []
            await asyncio.to_thread(make_folders, batch)

    def _peek_due(self) -> datetime | None:
        while self._heap:
            due, _, automation_id, version = self._heap[0]
            slot = self._slots.get(automation_id)
            if slot is not None and slot.version == version and slot.due == due:
                return due
            heapq.heappop(self._heap)
        return None

    def _rebuild_heap(self) -> None:
        self._heap = []
        for automation_id in self._slots:
            self._arm(automation_id)

    async def _timer_loop(self) -> None:
        last_wall, last_mono = self.clock.now(), self.clock.monotonic()
        locked_since: datetime | None = None
        while not self._stopping:
            now, mono = self.clock.now(), self.clock.monotonic()
            drift = (now - last_wall).total_seconds() - (mono - last_mono)
            reason = None
            threshold = min(JUMP_THRESHOLD, self.max_sleep / 2)
            if drift > threshold:
                log.info("wall clock ran %.0f s ahead of the monotonic clock: machine slept", drift)
                reason = "machine_asleep"
                self._rebuild_heap()
            elif drift < -threshold:
                log.info("wall clock went back %.0f s: recomputing", -drift)
                self._rebuild_heap()
            last_wall, last_mono = now, mono
            self._wake.clear()
            try:
                due = self._peek_due()
                if due is not None and due <= now and not self._group.quiet:
                    # the claim must not wait on the loop for our writer, and memory must
                    # have heard of every write before it (a run's end): it waits here
                    await self._group.idle()
                    await asyncio.sleep(0)  # (what those writes settled runs first)
                    now = self.clock.now()
                self._admit_due(now, reason_hint=reason, stagger=reason is not None)
                self._expire_due(now)
                timeout = self._sleep_for(self._peek_due())
                expiry = self._until_expiry(self.clock.now())
                if expiry is not None:
                    timeout = min(timeout, expiry)
                if locked_since is not None:
                    log.info("the database is free again; due fires were claimed %.0f s late",
                             (now - locked_since).total_seconds())
                    locked_since = None
            except StoreError as exc:
                if exc.code != "locked":
                    log.exception("admitting due fires failed; retrying in %.0f s",
                                  RETRY_ADMISSION)
                    timeout = RETRY_ADMISSION
                else:  # another program writes: said once; the writer waits for the lock
                    if locked_since is None:
                        locked_since = now
                        log.warning("due fires wait: %s", exc)
                    self._wait_for_lock()
                    timeout = RETRY_ADMISSION
            except Exception:  # the store failed (disk full, damaged): try again shortly
                log.exception("admitting due fires failed; retrying in %.0f s", RETRY_ADMISSION)
                timeout = RETRY_ADMISSION
            self.wakeups += 1
            await self.clock.wait(self._wake, timeout)

    def _wait_for_lock(self) -> None:
        """Wait for another program's write lock on the writer thread, not on the loop;
        the timer wakes once it is free (or in ``RETRY_ADMISSION`` anyway)."""
        if self._lock_wait is not None and not self._lock_wait.done():
            return

        def until_free() -> None:
            while not self._stopping:
                try:
                    with waiting_at_most(LOCK_PROBE_MS), self.store.transaction():
                        return
                except StoreError as exc:
                    if exc.code != "locked":
                        return  # another failure: the timer's next try says what it is
                    time.sleep(0.01)  # (a refusal that did not wait: not a busy loop)

        async def wait() -> None:
            try:
                await self._group.run(until_free)
            finally:
                self._kick()

        self._lock_wait = asyncio.get_running_loop().create_task(wait())

    def _sleep_for(self, due: datetime | None) -> float:
        """How long the timer may sleep. Linux lets a sleep overrun by 0.1 % (its timer
        slack: up to 60 ms on a capped minute), so a fire further off than
        ``FINAL_STRETCH`` is slept to just before it; the store is readied, and a short
        last sleep ends on the instant."""
        if due is None:
            return self.max_sleep
        until = (due - self.clock.now()).total_seconds()
        if until > FINAL_STRETCH:
            return min(self.max_sleep, until - FINAL_STRETCH)
        if self._readied != due:
            self._readied = due
            mono = self.clock.monotonic()
            if until >= FINAL_STRETCH / 2 and mono - self._checkpointed >= CHECKPOINT_EVERY:
                self._checkpointed = mono
                # so the claim's commit does not copy the log back (on a worker: it writes
                # the file; a commit meanwhile goes on, the checkpoint being passive)
                asyncio.get_running_loop().run_in_executor(None, self.store.checkpoint)
                until = (due - self.clock.now()).total_seconds()
        return max(0.0, until)

    def _missed_reason(self, fire: datetime, hint: str | None) -> str:
        if self._started_at is not None and fire < self._started_at:
            return "app_not_running"
        return hint or "machine_asleep"

    def _admit_due(self, now: datetime, *, reason_hint: str | None, stagger: bool) -> None:
        due_ids = []
        while True:
            due = self._peek_due()
            if due is None or due > now:
                break
            _, _, automation_id, _ = heapq.heappop(self._heap)
            due_ids.append(automation_id)
        if not due_ids:
            return
        settings = self.settings
        try:
            if self.store.db.waiting_for_lock:  # the writer waits: so would this, on the loop
                raise StoreError("locked", "another program is writing to the database")
            try:  # fast path: one transaction, no savepoints
                with waiting_at_most(ADMIT_WAIT_MS):
                    batch = self._admit_batch(due_ids, now, settings, reason_hint, stagger,
                                              careful=False)
            except (IntegrityError, StaleCursor) as exc:  # a slot claimed before, or memory behind
                log.debug("admitting one by one: %s", exc)
                with waiting_at_most(ADMIT_WAIT_MS):
                    batch = self._admit_batch(due_ids, now, settings, reason_hint, stagger,
                                              careful=True)
        except BaseException:  # nothing was recorded: these fires stay due for the next try
            for automation_id in due_ids:
                self._arm(automation_id)
            raise
        started, cancels, changed, placed = batch
        for automation_id, run_id, where in placed:
            slot = self._slots[automation_id]
            setattr(slot, where, run_id)
        for folder, (run_id, automation_id) in self._reserving.items():
            self._take_folder(folder, run_id, automation_id)
        self._reserving = {}
        self._flush_events()
        for change in changed:  # after the events: the claims are what must not wait
            if isinstance(change, Cursor):
                current = self._slots[change.id].automation
                change = replace(current, status=change.status, next_fire_at=change.next_fire_at,
                                 updated_at=change.updated_at or current.updated_at,
                                 last_index=change.last_index)
            self._refresh(change.id, change)
        new_runs = {r for r, _, _ in started}
        for automation_id in cancels:
            for run_id, task in list(self._tasks.items()):
                if task.done() or run_id in new_runs:
                    continue
                if self._task_automation.get(run_id) == automation_id:
                    self._cancel_reason[run_id] = "cancelled"
                    self._cancel_why[run_id] = REPLACED
                    task.cancel()
        for run_id, delay, claim in started:
            record = run_from_values(claim.values) if isinstance(claim, Claimed) else claim
            self._spawn(run_id, delay, run=record)

    def _admit_batch(self, due_ids: list[str], now: datetime, settings: Any,
                     reason_hint: str | None, stagger: bool, *, careful: bool
                     ) -> tuple[list[tuple[str, float, Run | Claimed]], list[str],
                                list[Automation | Cursor], list[tuple[str, str, str]]]:
        """Plan and record every due automation in one transaction. Memory is changed only
        by the caller, after the commit, from what this returns."""
        grace = settings.grace
        stagger_step = settings.get("catch_up_stagger").total_seconds()
        started: list[tuple[str, float, Run | Claimed]] = []
        cancels: list[str] = []
        changed: list[AutomationRow] = []
        placed: list[tuple[str, str, str]] = []
        catch_ups = 0
        self._pending_events = []
        self._bulk: list[dict[str, Any]] = []
        self._reserving: dict[str, tuple[str, str]] = {}  # folder -> (run, automation)
        with self._transaction() as s:
            rows: dict[str, AutomationRow] = {}
            if careful:
                for i in range(0, len(due_ids), 500):
                    rows.update({r.id: r for r in s.scalars(select(AutomationRow).where(
                        AutomationRow.id.in_(due_ids[i:i + 500])))})
            for automation_id in due_ids:
                slot = self._slots.get(automation_id)
                if slot is None:
                    continue
                row: Any
                if careful:
                    row = rows.get(automation_id)
                else:  # planned from memory, checked on write: a burst commits in milliseconds
                    a = slot.automation
                    row = Cursor(a.id, a.status, a.next_fire_at, a.revision, a.last_index)
                if row is None or row.status != "active" or row.next_fire_at is None:
                    continue
                current = slot.automation  # the engine is the only writer: usually current
                d = (current.definition if current.revision == row.revision
                     else _automation(self.store.get_in(s, automation_id)).definition)
                jitter = jitter_offset(automation_id, d.policy.jitter)
                horizon = now - jitter
                until = d.stop.until
                window = due_window(d.trigger, row.next_fire_at,
                                    min(horizon, until - timedelta(microseconds=1)) if until else horizon)
                changed.append(row)
                if window is None:
                    if until is not None and now >= until:
                        row.next_fire_at = None
                        if slot.active is None:
                            self._complete_in(s, row, now, "reached its end time")
                    continue
                plan = plan_fires(d, window, now, jitter, grace,
                                  self._missed_reason(window.first, reason_hint))
                run_at = plan.run_at
                if plan.skipped_count:
                    self._skip_in(s, row, plan.skipped_count, plan.skipped_first,
                                  plan.skipped_last, plan.skip_reason, now, careful)
                busy = slot.active is not None
                if run_at is not None and busy:
                    run_at = self._overlap_in(s, slot, row, d, run_at, now, cancels, careful)
                folder = None
                if run_at is not None and not busy:  # its folder: one lookup (``folders``)
                    folder = self._folder_of(d)
                    holder = (None if folder is None else
                              self._folder_busy_in_batch(folder, automation_id, self._reserving))
                    if holder is not None:
                        folder = None  # not taken now: the run waits for it, or skips
                        if d.overlap == "skip" and holder != automation_id and not d.one_shot:
                            count, first, last = ((plan.window.count, plan.window.first,
                                                   plan.window.last) if plan.catch_up
                                                  else (1, run_at, run_at))
                            self._skip_in(s, row, count, first, last, FOLDER_BUSY, now,
                                          careful)
                            run_at = None
                if run_at is not None:
                    run = self._claim_in(s, row, run_at, now, plan.catch_up, plan.window, careful)
                    if run is not None:
                        if folder is not None:  # held from its admission (after the commit)
                            self._reserving[folder] = (run.id, automation_id)
                        if not busy or automation_id in cancels:
                            placed.append((automation_id, run.id, "active"))
                            delay = 0.0
                            if plan.catch_up and stagger:
                                delay = catch_ups * stagger_step
                                catch_ups += 1
                            # a plain record (or the bulk insert's values): no row
                            # leaves the transaction
                            started.append((run.id, delay, run if isinstance(run, Claimed)
                                            else _run(run)))
                            busy = True
                        else:
                            placed.append((automation_id, run.id, "queued"))
                if isinstance(d.trigger, AfterTrigger) and run_at is None and not busy:
                    row.next_fire_at = max(now, window.last) + d.trigger.interval
                else:
                    row.next_fire_at = cursor_after(d, max(horizon, window.last))
                if row.next_fire_at is None and not busy and run_at is None:
                    self._complete_in(s, row, now, "no further fires")
            self.store.insert_bulk_in(s, self._bulk)
            self._bulk = []
            if careful:
                snapshots: list[Automation | Cursor] = [_automation(row) for row in changed]
            else:
                write_cursors(s, changed)
                snapshots = changed
        return started, cancels, snapshots, placed

    def _overlap_in(self, s: Session, slot: _Slot, row: AutomationRow, d: Definition,
                    fire: datetime, now: datetime, cancels: list[str],
                    careful: bool) -> datetime | None:
        """A fire while the previous run is active follows ``overlap``."""
        active = s.get(RunRow, slot.active) if slot.active else None
        parked = active is not None and active.state == "awaiting_input"
        reason = "previous_run_awaiting_input" if parked else "previous_run_active"
        if d.overlap == "cancel_previous" and not parked:
            cancels.append(row.id)
            return fire
        if d.overlap == "queue_one" and slot.queued is None:
            return fire
        self._skip_in(s, row, 1, fire, fire, reason, now, careful)
        return None

    def _skip_in(self, s: Session, row: AutomationRow, count: int, first: datetime | None,
                 last: datetime | None, reason: str | None, now: datetime,
                 careful: bool) -> None:
        assert first is not None and last is not None
        self._insert_in(s, row, careful, slot=_slot_key(last), trigger="schedule",
                        state="skipped", now=now, scheduled_for=last, skip_reason=reason,
                        missed_count=count, missed_first=first, missed_last=last,
                        finished_at=now)

    def _claim_in(self, s: Session, row: AutomationRow, fire: datetime, now: datetime,
                  catch_up: bool, window: Any, careful: bool) -> RunRow | Claimed | None:
        """Claim the slot of ``fire``: the unique key refuses a second claim."""
        extra: dict[str, Any] = {}
        if catch_up:
            extra = {"missed_count": window.count, "missed_first": window.first,
                     "missed_last": window.last}
        return self._insert_in(s, row, careful, slot=_slot_key(fire),
                               trigger="catch_up" if catch_up else "schedule",
                               state="scheduled", now=now, scheduled_for=fire, **extra)

    def _insert_in(self, s: Session, row: AutomationRow, careful: bool,
                   **values: Any) -> RunRow | Claimed | None:
        """Insert a run row. Careful mode isolates each insert in a savepoint so one slot
        claimed before (a replay) is passed over instead of failing the whole batch."""
        if not careful:
            run = self.store.insert_run_in(s, row, bulk=self._bulk, **values)
        else:
            index = row.last_index
            try:
                with s.begin_nested():
                    run = self.store.insert_run_in(s, row, **values)
            except IntegrityError:
                row.last_index = index
                return None  # already recorded: never twice
        self._pending_events.append(("run_changed", row.id, run.id))
        return run
