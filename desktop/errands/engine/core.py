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
import itertools
import logging
from datetime import datetime
from pathlib import Path

from sqlalchemy import select

from ..catalog import Catalog
from ..db.schema import RunRow
from ..errors import StoreError
from ..records import Automation, Run
from ..settings import Settings
from ..store import Store
from .base import (  # noqa: F401
    CHECKPOINT_EVERY,
    CRASHED,
    FINAL_STRETCH,
    LEFTOVER_GRACE,
    MAX_SLEEP,
    RETRY_ADMISSION,
    SHUTDOWN,
    CancelReason,
    _failed,
    _Slot,
)
from .clock import Clock, RealClock
from .commands import Commands
from .folders import Folders, _Hold, resolve_folders
from .group_commit import GroupCommit
from .lifecycle import Lifecycle
from .network import NetworkProbe
from .notices import Notices
from ..runners.processes import await_termination, begin_termination
from .retention import Retention
from ..runners.contract import Runner
from .services import Services
from .timer import Timer

log = logging.getLogger(__name__)
MESSAGE_DELAY = 0.003  # seconds a transcript line may wait to be committed with others


class Engine(Timer, Lifecycle, Commands, Services, Folders, Retention):
    """The engine: its parts are in ``timer``, ``lifecycle``, ``commands``, ``folders``
    and ``retention``."""

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
        self._prepared: set[str] = set()     # automations whose run folders exist
        self._to_prepare: list[Path] = []
        self._preparing: asyncio.Task[None] | None = None
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
        # closes first: a stop asked for before a run's start committed wins over it (the
        # start then finds the run ended); nothing else needs an order between kinds
        self._group.register("close", self._close_batch_in)
        self._group.register("start", store.start_attempts_in)
        self._group.register("pid", self._record_pids_in)
        # an agent's transcript lines wait a moment: their commit then falls in the model's
        # answer time instead of between a reply and the next request
        self._group.register("message", store.append_messages_in, delay=MESSAGE_DELAY)
        # any other write the engine awaits, in order (run_now's claim): fn(session) each
        self._group.register("call", lambda s, calls: [call(s) for call in calls])
        self._reading = 0  # reads under way on worker threads
        self._retries: set[asyncio.Task[None]] = set()  # closes to try again (_close)
        self._lock_wait: asyncio.Task[None] | None = None  # the writer waits out a lock
        track = getattr(self.clock, "track", None)  # a fake clock waits for the writer
        if track is not None:
            track(lambda: self._group.busy or self._reading > 0)
        self._expiries: dict[str, datetime] = {}  # parked run -> when it expires
        self._warmed: set[str] = set()  # runner kinds asked to warm up (_warm_up)
        # run-now claims being written: (automation, request id or run id) -> the run
        self._claims: dict[tuple[str, str], asyncio.Future[Run]] = {}
        # one run at a time per working folder (``folders``)
        self._holds: dict[str, _Hold] = {}            # folder -> who holds it, who waits
        self._run_folder: dict[str, str] = {}         # run -> the folder it holds
        self._folder_keys: dict[str, str] = {}        # workdir text -> the folder compared
        self._reserving: dict[str, tuple[str, str]] = {}  # taken by the claims of a batch
        self._leftovers: dict[int, str] = {}          # a dead engine's child -> automation
        self._leftover_folder: dict[int, str] = {}    # ... -> the folder it holds
        # history retention (``retention``)
        self._prune_queue: list[tuple[float, int, str]] = []
        self._prune_wanted: set[str] = set()
        self._pruned_at: dict[str, float] = {}
        self._pruner: asyncio.Task[None] | None = None
        self._prune_wake = asyncio.Event()

    @property
    def busy(self) -> bool:
        """Whether a run is going (or waiting to start) now."""
        return any(not task.done() for task in self._tasks.values())

    async def writes_settled(self, within: float | None = None) -> bool:
        """Whether every write queued so far has committed, waiting ``within`` seconds at
        most (None: as long as it takes) without blocking the loop; the writes go on
        either way."""
        try:
            async with asyncio.timeout(within):
                await self._group.settled()
        except TimeoutError:
            return False
        return True

    async def start(self) -> None:
        """Recover what a dead engine left, account for missed fires, arm the timer."""
        self._group.open()
        now = self.clock.now()
        self._started_at = now
        await self._recover(now)

        def load() -> tuple[Settings, list[Automation], list[Run], dict[str, datetime]]:
            return (self.store.settings(), self.store.list(), self.store.active_runs(),
                    {p.run_id: p.expires_at for p in self.store.parked()})

        # The engine is the only writer while it runs, and settings change only through
        # set_setting, so one read at start (and one per change) is enough.
        settings, automations, active, expiries = await self._read(load)
        self.settings = settings
        self._cap = asyncio.Semaphore(settings.concurrency)
        broken = []
        for automation in automations:
            self._slots[automation.id] = _Slot(automation)  # a broken one is never armed
            if automation.problem is not None:
                broken.append(automation)
        if broken:
            await self._flag_broken(broken, now)
        if self.automatic:  # (before arming: one paused now has no fire to catch up)
            await self._pause_unattended(now)
        waiting = []
        for run in active:
            slot = self._slots.get(run.automation_id)
            if slot is not None and run.state == "awaiting_input" and not run.dry_run:
                slot.active = run.id
            if run.state == "awaiting_input":
                waiting.append(run.id)
        expiry = self.settings.get("parked_expiry")
        for run_id in waiting:  # parked before a restart wait on, until they expire (one
            # parked before blockers were recorded gets the full wait from now)
            self._expiries[run_id] = expiries.get(run_id, now + expiry)
        for slot in self._slots.values():
            if slot.automation.definition is not None:
                self._warm_up(slot.automation.definition.runner.kind)
        workdirs = {a.definition.workdir for a in automations
                    if a.definition is not None and a.definition.workdir}
        if workdirs:  # compared resolved (``folders``): resolved here, off the loop
            self._folder_keys.update(await self._read(resolve_folders, workdirs))
        self._hold_leftovers()
        if self.automatic:
            self._prune_at_start()
            for automation_id in self._slots:
                self._arm(automation_id)
            await self._group.idle()  # (the claim then waits for no write of ours)
            try:
                self._admit_due(now, reason_hint="app_not_running", stagger=True)
            except StoreError as exc:  # another program writes: the timer claims them
                if exc.code != "locked":  # once it is free
                    raise
                log.info("due fires wait for the database: %s", exc)  # (the timer warns)
                self._wait_for_lock()
            self._loop_task = asyncio.get_running_loop().create_task(self._timer_loop())
        self.events.publish("engine_state", data={"state": "running"})

    async def _flag_broken(self, broken: list[Automation], now: datetime) -> None:
        for automation in broken if self.automatic else ():  # a serving engine says so
            log.warning("automation %s (%s) is broken and will not run: %s", automation.id,
                        automation.title, automation.problem)
        for automation in await self._write(lambda: self.store.flag_broken(broken, now)):
            self.events.publish("attention_raised", automation_id=automation.id)

    async def stop(self) -> None:
        """Stop admitting, give running work a short grace period, then interrupt the rest."""
        if self._stopping:
            return
        self._stopping = True
        self._wake.set()
        for retry in list(self._retries):  # closes waiting to be tried again: now, once
            retry.cancel()
        if self._loop_task is not None:
            await self._loop_task
        if self._lock_wait is not None:  # ends within one try (it sees _stopping)
            await asyncio.gather(self._lock_wait, return_exceptions=True)
        if self._claims:  # run-now claims being written: each then ends as interrupted
            await asyncio.wait(list(self._claims.values()))  # (wait cancels none of them)
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
        closing = [self._close(slot.queued, _failed(SHUTDOWN), "interrupted")
                   for slot in list(self._slots.values()) if slot.queued]  # never started
        if closing:
            await asyncio.gather(*closing)
        if self._preparing is not None:
            await asyncio.gather(self._preparing, return_exceptions=True)
        await self._stop_pruning()
        if self._reaper is not None:  # a dead engine's children still in their grace
            self._reaper.cancel()     # are killed now rather than outlive this engine
            await asyncio.gather(self._reaper, return_exceptions=True)
        for runner in self.runners.values():  # connection pools (the agent's HTTP client)
            close = getattr(runner, "aclose", None)
            if close is not None:
                await close()
        await self._group.aclose()
        self.events.publish("engine_state", data={"state": "stopped"})

    async def _recover(self, now: datetime) -> None:
        """Close what a dead engine left active, on the writer thread. Its children get
        SIGTERM first; waiting for them (SIGKILL after a grace) happens in the background,
        so a child that ignores SIGTERM delays nothing."""
        def recover() -> dict[int, str]:
            with self.store.db.read() as s:  # (before any slot is loaded: nothing in memory
                groups = list(s.execute(select(  # to update)
                    RunRow.id, RunRow.pid, RunRow.pid_started, RunRow.automation_id).where(
                        RunRow.state.in_(("running", "scheduled")))))
            ending = {pid: automation_id for _, pid, started, automation_id in groups
                      if isinstance(pid, int) and pid > 0 and begin_termination(pid, started)}
            with self.store.transaction() as s:
                for run_id, *_ in groups:
                    try:  # one damaged row costs that row, not the start
                        with s.begin_nested():
                            self._close_in(s, run_id, "interrupted", _failed(CRASHED), now)
                    except Exception:
                        log.exception("could not end run %s left by a previous engine", run_id)
            return ending

        ending = await self._write(recover)
        if ending:
            log.info("ending %d process group(s) left by a previous engine", len(ending))
            self._note_leftovers(ending)  # their folders are held until they have ended
            self._reaper = asyncio.get_running_loop().create_task(
                self._end_leftovers(list(ending)))

    async def _end_leftovers(self, pids: list[int]) -> None:
        async def end(pid: int) -> None:
            try:
                await await_termination(pid, LEFTOVER_GRACE)
            finally:  # (ended, or killed at once as the engine stops)
                self._leftover_ended(pid)

        results = await asyncio.gather(*(end(pid) for pid in pids), return_exceptions=True)
        for pid, result in zip(pids, results):
            if isinstance(result, Exception):  # never let cleanup take the engine down
                log.error("could not end the leftover process group %s: %s", pid, result)
