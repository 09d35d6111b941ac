"""The engine: fires every automation on time, never twice, and accounts for every fire.

Plain asyncio with an injectable clock, so the same object runs under qasync in the app,
under ``asyncio.run`` in ``errands serve`` and under a fake clock in tests.

Durability rules, in short:
- ``automations.next_fire_at`` is the durable cursor: the earliest automatic fire not yet
  accounted for. Claiming a run (a row keyed uniquely by automation and slot) and moving
  the cursor happen in one transaction, so a replay after a crash, or a second engine,
  can never start the same slot twice.
- Each run transition is one transaction, followed by one event.
- On start, runs a dead engine left ``running`` or ``scheduled`` become ``interrupted``;
  their child processes get SIGTERM before anything else runs, and SIGKILL after a grace
  in the background, so a child that ignores SIGTERM never delays the start.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..actors import stopped_by
from ..catalog import Catalog, refuse_broken
from ..db.bulk import Cursor, StaleCursor, write_cursors
from ..db.schema import AutomationRow, BlockerRow, RunRow
from ..definition import AfterTrigger, AtTrigger, Definition
from ..errors import Conflict, InvalidInput, NotFound
from ..paths import run_log_path, workspace_path
from ..records import (ACTIVE_STATES, COUNTED_STATES, Automation, Blocker, Decision, Run,
                       bounded)
from ..schedule import jitter_offset
from ..settings import Settings
from ..store import Claimed, Store, _automation, _run, new_id, run_from_values
from ..timeutil import UTC, format_duration, format_instant
from .clock import Clock, RealClock
from .notices import Notices
from .fires import cursor_after, due_window, plan_fires
from .group_commit import GroupCommit
from .network import NetworkProbe, wait_for_network
from .processes import (await_termination, begin_termination, process_start_ticks,
                        terminate_group)
from .runner import Outcome, Resume, RunContext, Runner
from .sessions import RunTranscript, session_for

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0          # seconds: a sleeping machine or a clock jump is noticed within this
JUMP_THRESHOLD = 30.0     # seconds the wall clock may run ahead of the monotonic one
FINAL_STRETCH = 0.25      # seconds: the last, short sleep before a fire (see _sleep_for)
CHECKPOINT_EVERY = 10.0   # seconds: at most one write-ahead-log checkpoint before fires
RETRY_ADMISSION = 5.0     # seconds before admission is tried again after the store failed
OUTPUT_TAIL = 64 * 1024
LEFTOVER_GRACE = 5.0      # seconds a child left by a dead engine has after SIGTERM
CancelReason = Literal["cancelled", "interrupted"]
# Why a run was cancelled, as its error (code, message), when nobody asked for it by name;
# a stop or a delete says who asked (``stopped_by``).
REPLACED = ("replaced", "a newer fire replaced it (overlap: cancel_previous)")
PAUSED = ("paused", "dropped because the automation was paused")
SHUTDOWN = ("interrupted", "Errands quit before this run could start")
CRASHED = ("interrupted", "Errands stopped while this run was active")
SHUTDOWN_RUNNING = ("interrupted", "Errands quit while this run was active")


@dataclass
class _Slot:
    """In-memory view of one automation: what the timer needs, nothing more."""

    automation: Automation
    due: datetime | None = None        # cursor + jitter: when the timer should wake for it
    active: str | None = None          # the run running, parked or in backoff
    queued: str | None = None          # queue_one: the one fire waiting behind it
    version: int = 0


def _slot_key(instant: datetime) -> str:
    return _utc_slot_key(instant.astimezone(UTC))  # a cache key never blind to ``fold``


@functools.lru_cache(maxsize=4096)  # a burst shares its instants
def _utc_slot_key(instant: datetime) -> str:
    return f"sched:{format_instant(instant)}"


class Engine:
    def __init__(self, store: Store, data_dir: Path, runners: dict[str, Runner], *,
                 clock: Clock | None = None, network: NetworkProbe | None = None,
                 max_sleep: float = MAX_SLEEP, automatic: bool = True) -> None:
        self.store = store
        self.data_dir = data_dir
        self.runners = runners
        self.clock: Clock = clock or RealClock()
        self.catalog = Catalog(store, self.clock.now)
        self.events = Notices()
        self.network = network
        self._slots: dict[str, _Slot] = {}
        self._heap: list[tuple[datetime, int, str, int]] = []
        self._seq = itertools.count()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancel_reason: dict[str, CancelReason] = {}
        self._cancel_why: dict[str, tuple[str, str]] = {}
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._reaper: asyncio.Task[None] | None = None  # ends a dead engine's children
        self._stopping = False
        self._started_at: datetime | None = None
        self._cap: asyncio.Semaphore | None = None
        self.wakeups = 0
        self.max_sleep = max_sleep
        self.settings = Settings()  # defaults until start() reads the stored ones
        self.automatic = automatic  # False: only runs asked for by hand (a CLI with no engine)
        self._task_automation: dict[str, str] = {}
        self._pending_events: list[tuple[str, str, str]] = []
        self._readied: datetime | None = None  # the fire the store was last readied for
        self._checkpointed = float("-inf")       # monotonic time of the last checkpoint
        self._group = GroupCommit(store)
        self._group.register("start", store.start_attempts_in)
        self._group.register("pid", store.set_run_pids_in)
        self._group.register("message", store.append_messages_in)
        self._expiries: dict[str, datetime] = {}  # parked run -> when it expires

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        """A write transaction that follows every write already queued for group commit."""
        self._group.flush()
        with self.store.transaction() as s:
            yield s

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Recover what a dead engine left, account for missed fires, arm the timer."""
        # The engine is the only writer while it runs, and settings change only through
        # set_setting, so one read at start (and one per change) is enough.
        self.settings = settings = self.store.settings()
        self._cap = asyncio.Semaphore(settings.concurrency)
        now = self.clock.now()
        self._started_at = now
        self._recover(now)
        broken = []
        for automation in self.store.list():
            self._slots[automation.id] = _Slot(automation)  # a broken one is never armed
            if automation.problem is not None:
                broken.append(automation)
        self._flag_broken(broken, now)
        for run in self.store.active_runs():
            slot = self._slots.get(run.automation_id)
            if slot is not None and run.state == "awaiting_input" and not run.dry_run:
                slot.active = run.id
        for parked in self.store.parked():  # parked before a restart wait on, until they expire
            self._expiries[parked.run_id] = parked.expires_at
        if self.automatic:
            for automation_id in self._slots:
                self._arm(automation_id)
            self._admit_due(now, reason_hint="app_not_running", stagger=True)
            self._loop_task = asyncio.get_running_loop().create_task(self._timer_loop())
        self.events.publish("engine_state", data={"state": "running"})

    def _flag_broken(self, broken: list[Automation], now: datetime) -> None:
        for automation in broken if self.automatic else ():  # a serving engine says so
            log.warning("automation %s (%s) is broken and will not run: %s", automation.id,
                        automation.title, automation.problem)
        for automation in self.store.flag_broken(broken, now):
            self.events.publish("attention_raised", automation_id=automation.id)

    async def stop(self) -> None:
        """Stop admitting, give running work a short grace period, then interrupt the rest."""
        if self._stopping:
            return
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            await self._loop_task
        grace = self.settings.get("shutdown_grace").total_seconds()
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending:
            everything = asyncio.ensure_future(asyncio.wait(pending))
            timer = asyncio.ensure_future(self.clock.sleep(grace))
            await asyncio.wait({everything, timer}, return_when=asyncio.FIRST_COMPLETED)
            timer.cancel()
            for run_id, task in list(self._tasks.items()):
                if not task.done():
                    self._cancel_reason[run_id] = "interrupted"
                    task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            everything.cancel()
        for slot in list(self._slots.values()):  # queued runs that never started
            if slot.queued:
                self._close(slot.queued, _failed(SHUTDOWN), "interrupted")
        if self._reaper is not None:  # a dead engine's children still in their grace
            self._reaper.cancel()     # are killed now rather than outlive this engine
            await asyncio.gather(self._reaper, return_exceptions=True)
        self.events.publish("engine_state", data={"state": "stopped"})

    # ----------------------------------------------------------------- recovery

    def _recover(self, now: datetime) -> None:
        """Close what a dead engine left active. Its children get SIGTERM now; waiting for
        them (SIGKILL after a grace) happens in the background, so a child that ignores
        SIGTERM delays nothing."""
        leftovers = [r for r in self.store.active_runs() if r.state in ("running", "scheduled")]
        with self._transaction() as s:
            rows = [s.get(RunRow, r.id) for r in leftovers]
            groups = [(row.pid, row.pid_started) for row in rows if row is not None and row.pid]
        ending = [pid for pid, started in groups if begin_termination(pid, started)]
        if ending:
            log.info("ending %d process group(s) left by a previous engine", len(ending))
            self._reaper = asyncio.get_running_loop().create_task(
                self._end_leftovers(ending))
        with self._transaction() as s:  # before any slot is loaded: nothing in memory to update
            for run in leftovers:
                self._close_in(s, run.id, "interrupted", _failed(CRASHED), now)

    @staticmethod
    async def _end_leftovers(pids: list[int]) -> None:
        results = await asyncio.gather(*(await_termination(pid, LEFTOVER_GRACE) for pid in pids),
                                       return_exceptions=True)
        for pid, result in zip(pids, results):
            if isinstance(result, Exception):  # never let cleanup take the engine down
                log.error("could not end the leftover process group %s: %s", pid, result)

    # ------------------------------------------------------------------ the timer

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
                self._admit_due(now, reason_hint=reason, stagger=reason is not None)
                self._expire_due(now)
                timeout = self._sleep_for(self._peek_due())
                expiry = self._until_expiry(self.clock.now())
                if expiry is not None:
                    timeout = min(timeout, expiry)
            except Exception:  # the store failed (locked, disk full): try again shortly
                log.exception("admitting due fires failed; retrying in %.0f s", RETRY_ADMISSION)
                timeout = RETRY_ADMISSION
            self.wakeups += 1
            await self.clock.wait(self._wake, timeout)

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
                self.store.checkpoint()  # so the claim's commit does not copy the log back
                until = (due - self.clock.now()).total_seconds()
        return max(0.0, until)

    def _kick(self) -> None:
        self._wake.set()

    # --------------------------------------------------------------- admission

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
            try:  # fast path: one transaction, no savepoints
                batch = self._admit_batch(due_ids, now, settings, reason_hint, stagger,
                                          careful=False)
            except (IntegrityError, StaleCursor) as exc:  # a slot claimed before, or memory behind
                log.debug("admitting one by one: %s", exc)
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
            record = (run_from_values(claim.values) if isinstance(claim, Claimed)
                      else _run(claim))
            self._spawn(run_id, delay, record)

    def _admit_batch(self, due_ids: list[str], now: datetime, settings: Any,
                     reason_hint: str | None, stagger: bool, *, careful: bool
                     ) -> tuple[list[tuple[str, float, RunRow | Claimed]], list[str],
                                list[Automation | Cursor], list[tuple[str, str, str]]]:
        """Plan and record every due automation in one transaction. Memory is changed only
        by the caller, after the commit, from what this returns."""
        grace = settings.grace
        stagger_step = settings.get("catch_up_stagger").total_seconds()
        started: list[tuple[str, float, RunRow | Claimed]] = []
        cancels: list[str] = []
        changed: list[AutomationRow] = []
        placed: list[tuple[str, str, str]] = []
        catch_ups = 0
        self._pending_events = []
        self._bulk: list[dict[str, Any]] = []
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
                if run_at is not None:
                    run = self._claim_in(s, row, run_at, now, plan.catch_up, plan.window, careful)
                    if run is not None:
                        if not busy or automation_id in cancels:
                            placed.append((automation_id, run.id, "active"))
                            delay = 0.0
                            if plan.catch_up and stagger:
                                delay = catch_ups * stagger_step
                                catch_ups += 1
                            started.append((run.id, delay, run))
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

    # ------------------------------------------------------------------- runs

    def _spawn(self, run_id: str, delay: float = 0.0, run: Run | None = None,
               resume: Resume | None = None) -> None:
        """Start a run's task; ``run`` is its record when the caller has it at hand."""
        if run is None:
            run = self.store.get_run(run_id)
        self._task_automation[run_id] = run.automation_id
        task = asyncio.get_running_loop().create_task(self._execute(run, delay, resume))
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t, rid=run_id: self._tasks.pop(rid, None))

    async def _execute(self, run: Run, delay: float, resume: Resume | None = None) -> None:
        run_id = run.id
        try:
            if delay:
                await self.clock.sleep(delay)
            automation = self._current(run.automation_id)
            kind = automation.definition.runner.kind
            runner = self.runners.get(kind)
            if runner is None:
                self._close(run_id, Outcome(state="failed", error_code="no_runner",
                                            error_message=f"this Errands cannot run {kind} "
                                            "automations"))
                return
            if run.trigger == "catch_up" and runner.needs_network and self.network is not None \
                    and resume is None:
                bound = self.settings.get("network_wait").total_seconds()
                await wait_for_network(self.network, self.clock, bound)
            attempt = run.attempt
            while True:
                cap = self._cap
                assert cap is not None
                async with cap:
                    automation = self._current(run.automation_id)
                    ctx = await self._start_attempt(run, automation, attempt, resume)
                    resume = None
                    outcome = await self._attempt(runner, ctx)
                if outcome.state == "awaiting_input":
                    self._park(run_id, outcome)
                    return
                retry = (outcome.state == "failed" and not ctx.dry_run
                         and outcome.stop_reason is None
                         and attempt < ctx.definition.policy.retry.max_attempts
                         and not (self._is_paused(run.automation_id) and run.trigger != "manual"))
                if not retry:
                    self._close(run_id, outcome)
                    return
                delay_td = ctx.definition.policy.retry.delay(attempt)
                self._backoff(run_id, outcome, self.clock.now() + delay_td)
                await self.clock.sleep(delay_td.total_seconds())
                attempt += 1
        except asyncio.CancelledError:
            reason = self._cancel_reason.pop(run_id, "interrupted")
            why = self._cancel_why.pop(run_id, ("cancelled", stopped_by("user")))
            self._close(run_id, _failed(why if reason == "cancelled" else SHUTDOWN_RUNNING),
                        reason)
        except NotFound:
            return  # the automation was deleted while this run waited
        except Exception as exc:  # a runner bug fails the run, never the engine
            log.exception("run %s crashed", run_id)
            self._close(run_id, Outcome(state="failed", error_code="internal",
                                        error_message=f"{type(exc).__name__}: {exc}"))

    async def _attempt(self, runner: Runner, ctx: RunContext) -> Outcome:
        backstop = ctx.timeout.total_seconds() + 30
        try:  # a timeout scope, not wait_for: the runner starts in this task, at once
            async with asyncio.timeout(backstop):
                return await runner.run(ctx)
        except TimeoutError:
            return Outcome(state="failed", error_code="timeout",
                           error_message=f"no result within {format_duration(ctx.timeout)}")

    def _current(self, automation_id: str) -> Automation:
        """The engine is the only writer, so its view of an automation is current."""
        slot = self._slots.get(automation_id)
        return slot.automation if slot is not None else self.store.get(automation_id)

    def _is_paused(self, automation_id: str) -> bool:
        slot = self._slots.get(automation_id)
        return slot is None or slot.automation.status != "active"

    async def _start_attempt(self, run: Run, automation: Automation, attempt: int,
                             resume: Resume | None) -> RunContext:
        """scheduled -> running. Starts asked for in one loop turn share one transaction."""
        run_id = run.id
        started: Run = await self._group.submit("start", (run_id, attempt, self.clock.now()))
        self.events.publish("run_changed", automation_id=automation.id, run_id=run_id,
                            data={"state": "running", "attempt": attempt})
        d = automation.definition
        if resume is not None and run.revision != automation.revision:
            d = self.store.definition_at(automation.id, run.revision)  # as claimed
        workdir = Path(d.workdir) if d.workdir else workspace_path(self.data_dir, automation.id)

        def on_started(pid: int) -> None:  # committed with the other writes of this loop turn
            started = process_start_ticks(pid)

            def unrecorded(exc: BaseException) -> None:  # a crash could orphan it: end it now
                log.error("could not record the process of run %s (%s); ending it", run_id, exc)
                terminate_group(pid, started, grace=0)

            self._group.post("pid", (run_id, pid, started), on_error=unrecorded)

        session_id, kind = session_for(d, automation.id, run_id, started.session_id)
        transcript = RunTranscript(self.store, self._group, self.clock.now,
                                   session_id=session_id, kind=kind, automation_id=automation.id,
                                   run_id=run_id, title=d.title)
        return RunContext(automation_id=automation.id, run_id=run_id, run_index=started.index,
                          attempt=attempt, scheduled_for=started.scheduled_for, definition=d,
                          workdir=workdir,
                          log_path=run_log_path(self.data_dir, automation.id, run_id),
                          timeout=d.policy.timeout, dry_run=started.dry_run,
                          on_started=on_started, revision=started.revision,
                          session=transcript, resume=resume)

    def _backoff(self, run_id: str, outcome: Outcome, retry_at: datetime) -> None:
        now = self.clock.now()
        with self._transaction() as s:
            row = self.store.update_run_in(s, run_id, state="scheduled", retry_at=retry_at,
                                           pid=None, pid_started=None,
                                           error_code=outcome.error_code,
                                           error_message=outcome.error_message,
                                           output_tail=_tail(outcome.output_tail))
            row.attempts = _close_attempt(row.attempts, now, "failed", outcome)
            automation_id = row.automation_id
        self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": "scheduled", "retry_at": format_instant(retry_at)})

    # ------------------------------------------------------------ parked runs

    def _park(self, run_id: str, outcome: Outcome) -> None:
        """running -> awaiting_input, with the blocker, until a decision or expiry."""
        now = self.clock.now()
        blocker = outcome.blocker or Blocker(
            kind="question", question=outcome.result or "The run needs your input to go on.")
        expires_at = now + self.settings.get("parked_expiry")
        with self._transaction() as s:
            row = self.store.get_row_in(s, run_id)
            row.state = "awaiting_input"
            row.session_id = outcome.session_id or row.session_id
            row.pid = row.pid_started = None
            row.attempts = _close_attempt(row.attempts, now, "awaiting_input", outcome)
            automation_id = row.automation_id
            self.store.add_blocker_in(s, run_id, blocker, now=now, expires_at=expires_at)
            self.store.add_attention_in(
                s, kind="awaiting_input", now=now, automation_id=automation_id, run_id=run_id,
                title=f"{self._current(automation_id).title} waits for you",
                body=blocker.summary())
        self._expiries[run_id] = expires_at
        self._kick()
        self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": "awaiting_input"})
        self.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)

    async def decide(self, run_id: str, decision: Decision, *, request_id: str | None = None,
                     actor: str = "user") -> Run:
        """Resume a parked run with a decision. Repeating a decision with the same
        ``request_id`` changes nothing and returns the run as it is now."""
        now = self.clock.now()
        with self._transaction() as s:
            row = self.store.get_row_in(s, run_id)
            if request_id is not None and s.scalars(select(BlockerRow.id).where(
                    BlockerRow.run_id == run_id, BlockerRow.request_id == request_id)).first():
                return _run(row)  # decided before under this request id: harmless
            blocker = self.store.open_blocker_in(s, run_id)
            if row.state != "awaiting_input" or blocker is None or blocker.decided_at is not None:
                raise Conflict("not_parked", f"run #{row.index} is not waiting for a decision "
                               f"(it is {row.state})")
            asked = Blocker(kind=blocker.kind, tool=blocker.tool,  # type: ignore[arg-type]
                            arguments=blocker.arguments, question=blocker.question,
                            choices=blocker.choices)
            _check_decision(asked, decision)
            blocker.decision = decision.to_dict()
            blocker.decided_at = now
            blocker.decided_by = actor
            blocker.request_id = request_id
            row.state = "scheduled"
            automation_id = row.automation_id
            self.store.audit_in(s, automation_id, "decided", row.revision, actor, now,
                                {"run_id": run_id, "decision": decision.kind})
            self.store.read_attention_in(s, run_id=run_id, kind="awaiting_input")
            record = _run(row)
        self._expiries.pop(run_id, None)
        slot = self._slots.get(automation_id)
        if slot is not None:
            slot.active = run_id
        self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": "scheduled", "decision": decision.kind})
        self._spawn(run_id, run=record, resume=Resume(asked, decision))
        return record

    def _expire_due(self, now: datetime) -> None:
        for run_id, at in list(self._expiries.items()):
            if at <= now:
                waited = format_duration(self.settings.get("parked_expiry"))
                self._close(run_id, Outcome(state="failed", error_code="expired",
                                            error_message=f"nobody decided within {waited}"),
                            "expired")
                self._expiries.pop(run_id, None)

    def _until_expiry(self, now: datetime) -> float | None:
        first = min(self._expiries.values(), default=None)
        return None if first is None else max(0.0, (first - now).total_seconds())

    # ------------------------------------------------------- closing a run

    def _close(self, run_id: str, outcome: Outcome, state: str | None = None) -> None:
        """The one way a run ends (success, failure, timeout, cancel or stop of a running,
        queued or parked run, expiry, shutdown): record it, then account for it."""
        state = state or outcome.state
        self._pending_events = []
        try:
            with self._transaction() as s:
                closed = self._close_in(s, run_id, state, outcome, self.clock.now())
        finally:
            self._flush_events()
        self._task_automation.pop(run_id, None)
        self._expiries.pop(run_id, None)
        if closed is None:
            return
        automation_id, raised, snapshot = closed
        self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": state})
        for _ in raised:
            self.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)
        slot = self._slots.get(automation_id)
        if slot is None:
            return
        if slot.active == run_id:
            slot.active = None
        if slot.queued == run_id:
            slot.queued = None
        self._refresh(automation_id, snapshot)
        if slot.queued and slot.active is None and not self._stopping:
            slot.active, slot.queued = slot.queued, None
            self._spawn(slot.active)

    def _close_in(self, s: Session, run_id: str, state: str, outcome: Outcome,
                  now: datetime) -> tuple[str, list[str], Automation | None] | None:
        """The run's final row and its automation's accounting, in the caller's transaction.
        None when the run is gone or already final (never closed twice)."""
        row = s.get(RunRow, run_id)
        if row is None or row.state not in ACTIVE_STATES:
            return None
        row.state = state
        row.stop_reason = outcome.stop_reason or (
            "timeout" if outcome.error_code == "timeout" else state)
        row.finished_at = now
        row.retry_at = None
        row.pid = None
        row.pid_started = None
        row.result = bounded(outcome.result)
        row.error_code = outcome.error_code
        row.error_message = outcome.error_message
        row.output_tail = _tail(outcome.output_tail) or row.output_tail
        row.session_id = outcome.session_id or row.session_id
        if outcome.prompt_tokens is not None:
            row.prompt_tokens = outcome.prompt_tokens
            row.completion_tokens = outcome.completion_tokens
        if _attempt_open(row.attempts):
            row.attempts = _close_attempt(row.attempts, now, state, outcome)
        a = s.get(AutomationRow, row.automation_id)
        if a is None:
            return row.automation_id, [], None
        raised = self._account_in(s, a, row, outcome, now)
        return row.automation_id, raised, _automation(a)

    def _account_in(self, s: Session, a: AutomationRow, run: RunRow, outcome: Outcome,
                    now: datetime) -> list[str]:
        """Counters, streaks, attention and stop rules after a run ends, whatever ended it."""
        automation = _automation(a)
        d = automation.definition
        raised: list[str] = []
        if run.dry_run or d is None:  # (broken: a repair arms it afresh)
            return raised

        def attention(kind: str, title: str, body: str | None) -> None:
            self.store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                                        automation_id=a.id, run_id=run.id)
            raised.append(kind)

        for text in outcome.notify:
            attention("notify", f"{d.title}", text)
        counted = run.state in COUNTED_STATES
        if counted:
            a.run_count += 1
        if run.state == "expired":
            attention("expired", f"{d.title}: a parked run expired", run.error_message)
        if run.state == "failed":
            a.failure_streak += 1
            attention("failure", f"{d.title} failed",
                      f"{run.error_code}: {run.error_message}" if run.error_code else None)
            if a.failure_streak == d.policy.failure_notify_after:
                attention("failure_streak", f"{d.title} failed {a.failure_streak} times in a row",
                          None)
            limit = d.policy.pause_after_failures
            if limit is not None and a.failure_streak >= limit and a.status == "active":
                reason = f"paused after {a.failure_streak} consecutive failures"
                self.store.revise_in(s, a, replace(d, paused=True), now=now, actor="engine",
                                     action="paused", detail={"reason": reason})
                a.status, a.paused_reason, a.paused_at, a.next_fire_at = "paused", reason, now, None
                attention("auto_paused", f"{d.title} was paused", reason)
        elif run.state == "succeeded":
            a.failure_streak = 0
        if counted:
            if d.policy.notify == "every_run" or (d.policy.notify == "on_change"
                                                   and run.result != a.last_result):
                attention("result", d.title, run.result)
            a.last_result = run.result
        a.last_finished_at = now
        if a.status != "active":
            return raised
        automatic = run.trigger != "manual"
        if d.stop.max_runs is not None and a.run_count >= d.stop.max_runs:
            self._complete_in(s, a, now, f"reached {d.stop.max_runs} runs")
        elif d.stop.when_condition_met and outcome.condition_met and counted:
            self._complete_in(s, a, now, "its condition was met")
        elif d.stop.until is not None and now >= d.stop.until:
            self._complete_in(s, a, now, "reached its end time")
        elif isinstance(d.trigger, AtTrigger) and automatic:
            self._complete_in(s, a, now, "one-shot fired")
        elif isinstance(d.trigger, AfterTrigger) and (automatic or a.next_fire_at is None):
            # the loop waits its interval after a run that ended; one cut off by a crash or
            # a quit goes on at once
            a.next_fire_at = now if run.state == "interrupted" else now + d.trigger.interval
            if d.stop.until is not None and a.next_fire_at >= d.stop.until:
                a.next_fire_at = None
                self._complete_in(s, a, now, "reached its end time")
        elif a.next_fire_at is None and not isinstance(d.trigger, AtTrigger) \
                and d.trigger.kind != "manual":
            self._complete_in(s, a, now, "no further fires")
        return raised

    def _complete_in(self, s: Session, a: AutomationRow, now: datetime, why: str) -> None:
        a.status = "completed"
        a.next_fire_at = None
        a.updated_at = now
        self.store.audit_in(s, a.id, "completed", a.revision, "engine", now, {"reason": why})

    def _refresh(self, automation_id: str, automation: Automation | None = None) -> None:
        """Take in the stored state of an automation (given, or read) and re-arm for it."""
        if automation is None:
            try:
                automation = self.store.get(automation_id)
            except NotFound:
                self._slots.pop(automation_id, None)
                return
        slot = self._slots.setdefault(automation_id, _Slot(automation))
        slot.automation = automation
        self._arm(automation_id)
        self._kick()
        self.events.publish("automation_changed", automation_id=automation_id,
                            data={"revision": automation.revision, "status": automation.status})

    def _flush_events(self) -> None:
        events, self._pending_events = self._pending_events, []
        for kind, automation_id, run_id in events:
            self.events.publish(kind, automation_id=automation_id, run_id=run_id)  # type: ignore[arg-type]

    # ---------------------------------------------------------- public commands

    def _slot(self, automation_id: str) -> _Slot:
        slot = self._slots.get(automation_id)
        if slot is None:
            self.store.get(automation_id)  # raises NotFound with the usual message
            self._refresh(automation_id)
            slot = self._slots[automation_id]
        return slot

    async def create(self, doc: Any, *, request_id: str | None = None,
                     actor: str = "user") -> tuple[Automation, bool]:
        automation, created = self.catalog.create(doc, request_id=request_id, actor=actor)
        self._refresh(automation.id)
        return automation, created

    async def revise(self, automation_id: str, doc: Any, *, actor: str = "user",
                     expected_revision: int | None = None) -> tuple[Automation, bool]:
        """Replace the definition. With ``expected_revision``, refuse when someone else
        changed it since the caller read it (a form open while the CLI edited)."""
        self._group.flush()  # act on the store as it is, queued run starts included
        if expected_revision is not None:
            current = self._slot(automation_id).automation
            if current.revision != expected_revision:
                raise Conflict("stale_revision", f"{current.title} changed since you opened it "
                               f"(revision {expected_revision}, now {current.revision}); "
                               "reload it and edit again")
        automation, changed = self.catalog.revise(automation_id, doc, actor=actor)
        if changed:
            self._refresh(automation_id)
        return automation, changed

    async def set_paused(self, automation_id: str, paused: bool, *, actor: str = "user") -> Automation:
        self._group.flush()  # act on the store as it is, queued run starts included
        self.catalog.set_paused(automation_id, paused, actor=actor)
        self._refresh(automation_id)
        if paused:  # a pending retry of an automatic fire is dropped, quietly
            slot = self._slots[automation_id]
            for run_id in (slot.active, slot.queued):
                if run_id is None:
                    continue
                run = self.store.get_run(run_id)
                if run.trigger != "manual" and run.state == "scheduled":
                    self._cancel(run_id, PAUSED)
        return self.store.get(automation_id)

    async def run_now(self, automation_id: str, *, request_id: str | None = None,
                      dry_run: bool = False, actor: str = "user") -> Run:
        """Run by hand, paused or not. Idempotent by ``request_id``; refused while busy."""
        slot = self._slot(automation_id)
        refuse_broken(slot.automation)
        if request_id:
            existing = self.store.run_by_request(automation_id, request_id)
            if existing is not None:
                return existing
        if slot.active is not None and not dry_run:
            raise Conflict("busy", f"{slot.automation.title} has a run in progress; wait for it "
                           "or stop it first (errands stop ID)")
        now = self.clock.now()
        self._pending_events = []
        try:
            with self._transaction() as s:
                row = self.store.get_in(s, automation_id)
                run_row = self.store.insert_run_in(
                    s, row, slot=f"manual:{request_id or uuid.uuid4()}", trigger="manual",
                    state="scheduled", now=now, scheduled_for=now, request_id=request_id,
                    dry_run=dry_run)
                run = _run(run_row)
        except IntegrityError:
            existing = self.store.run_by_request(automation_id, request_id or "")
            if existing is None:
                raise
            return existing
        with self._transaction() as s:
            self.store.audit_in(s, automation_id, "run_requested", slot.automation.revision,
                                actor, now, {"run_id": run.id, "dry_run": dry_run})
        if not dry_run:
            slot.active = run.id
        slot.automation = replace(slot.automation, last_index=run.index)
        self.events.publish("run_changed", automation_id=automation_id, run_id=run.id,
                            data={"state": "scheduled"})
        self._spawn(run.id)
        return run

    async def stop_current(self, automation_id: str, *, actor: str = "user") -> Run:
        slot = self._slot(automation_id)
        run_id = slot.active
        if run_id is None:
            raise Conflict("not_running", f"{slot.automation.title} has no active run")
        why = ("cancelled", stopped_by(actor))
        if slot.queued:
            self._close(slot.queued, _failed(why), "cancelled")
        await self._cancel_and_wait(run_id, why)
        return self.store.get_run(run_id)

    def _cancel(self, run_id: str, why: tuple[str, str]) -> None:
        task = self._tasks.get(run_id)
        if task is not None and not task.done():
            self._cancel_reason[run_id] = "cancelled"
            self._cancel_why[run_id] = why
            task.cancel()
            return
        self._close(run_id, _failed(why), "cancelled")  # parked or queued: nothing executes

    async def _cancel_and_wait(self, run_id: str, why: tuple[str, str]) -> None:
        task = self._tasks.get(run_id)
        self._cancel(run_id, why)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def delete(self, automation_id: str, *, actor: str = "user") -> None:
        """Cancel what runs, then delete the definition and its run ledger (logs are kept)."""
        self._group.flush()  # act on the store as it is, queued run starts included
        slot = self._slot(automation_id)
        for run_id in (slot.queued, slot.active):
            if run_id is not None:
                await self._cancel_and_wait(run_id, ("cancelled", stopped_by(actor)))
        self.catalog.delete(automation_id, actor=actor)
        self._slots.pop(automation_id, None)
        self.events.publish("automation_deleted", automation_id=automation_id)

    def mark_attention_read(self, item_id: int | None = None) -> int:
        count = self.store.mark_attention_read(item_id)
        self.events.publish("attention_raised", data={"read": item_id if item_id else "all"})
        return count

    def set_setting(self, key: str, value: str | None) -> str:
        """Store a setting (None: back to the default) and apply it at once."""
        if value is None:
            self.store.unset_setting(key)
        else:
            self.store.set_setting(key, value)
        self.settings = settings = self.store.settings()
        if key == "concurrency":
            self._cap = asyncio.Semaphore(settings.concurrency)  # running work keeps its slot
        self._kick()
        self.events.publish("settings_changed", data={"key": key})
        return settings.raw(key)

    async def wait_run(self, run_id: str) -> Run:
        """Until the run is final (for ``run-now --wait``)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        return self.store.get_run(run_id)


def _failed(why: tuple[str, str]) -> Outcome:
    code, message = why
    return Outcome(state="failed", error_code=code, error_message=message)


def _check_decision(blocker: Blocker, decision: Decision) -> None:
    """A decision must fit what was asked: approvals are approved or denied, questions
    answered (from the choices, when there are some) or declined."""
    if blocker.kind == "approval" and decision.kind == "answer":
        raise InvalidInput("decision", "this run asks for an approval, not an answer",
                           "approve_once, approve_always or deny", "approve_once")
    if blocker.kind == "question" and decision.kind in ("approve_once", "approve_always"):
        raise InvalidInput("decision", "this run asks a question; answer it or deny",
                           "answer (with text) or deny", "answer")
    if decision.kind == "answer":
        if not decision.text or not decision.text.strip():
            raise InvalidInput("text", "an answer needs text", "the answer, as text", "yes")
        if blocker.choices and decision.text not in blocker.choices:
            raise InvalidInput("text", f"{decision.text!r} is not one of the choices",
                               "one of " + ", ".join(map(repr, blocker.choices)),
                               blocker.choices[0])


def _tail(text: str | None) -> str | None:
    if text is None or len(text) <= OUTPUT_TAIL:
        return text
    return text[-OUTPUT_TAIL:]


def _attempt_open(attempts: Any) -> bool:
    """Whether the stored attempts end with one not closed yet (stored text that is not a
    list of attempts, a damaged row, has none to close)."""
    return (isinstance(attempts, list) and bool(attempts) and isinstance(attempts[-1], dict)
            and "finished_at" not in attempts[-1])


def _close_attempt(attempts: list[dict[str, Any]] | None, now: datetime, state: str,
                   outcome: Outcome | None) -> list[dict[str, Any]]:
    items = [dict(a) for a in (attempts or [])]
    if not items:
        return items
    items[-1]["finished_at"] = format_instant(now)
    items[-1]["state"] = state
    if outcome is not None and outcome.error_code:
        items[-1]["error"] = {"code": outcome.error_code, "message": outcome.error_message}
    return items
