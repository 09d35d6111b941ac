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
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from .. import heap
from ..catalog import Catalog
from ..errors import NotFound
from ..ledger import Ledger
from ..records import Automation, Run
from ..runners.contract import Runner
from ..settings import Settings
from ..store import Store
from .base import MAX_SLEEP, Slot
from .clock import Clock, RealClock
from .commands import Commands
from .discussions import Discussions
from .scripts import ScriptCommands
from .fleet import Fleet
from .folders import Folders, resolve_folders
from .network import NetworkProbe
from .notices import Notices
from .places import Places
from .retention import Retention
from .live import Live
from .runs import Runs
from .services import Services
from .sources import Sources
from .timer import Timer

log = logging.getLogger(__name__)
T = TypeVar("T")


class Engine:
    """The coordinator: it holds each automation's slot (``slots``: the engine's memory of
    the catalogue), takes in what the ledger wrote (``take_in``, ``write``) and publishes
    the notices; its parts do the rest, each with state of its own: ``timer`` (the clock's
    fires and their admission), ``runs`` (a run's life), ``commands`` (what clients ask),
    ``services`` (what a run asks), ``folders`` (one run per folder), ``retention``
    (history limits) and ``sources`` (what fires an automation)."""

    def __init__(self, store: Store, data_dir: Path, runners: dict[str, Runner], *,
                 clock: Clock | None = None, network: NetworkProbe | None = None,
                 max_sleep: float = MAX_SLEEP, automatic: bool = True) -> None:
        self.store = store  # (read through ``read``; written only through ``ledger``)
        self.data_dir = data_dir
        self.runners = runners
        self.clock: Clock = clock or RealClock()
        self.ledger = Ledger(store)
        self.catalog = Catalog(store, self.clock.now)
        self.events = Notices()
        self.network = network
        self.max_sleep = max_sleep
        self.automatic = automatic  # False: only runs asked for by hand (a CLI with no engine)
        self.settings = Settings()  # defaults until start() reads the stored ones
        self.slots: dict[str, Slot] = {}  # (a shared catalogue's: what ``fleet`` fires here)
        self.stopping = False
        self.started_at: datetime | None = None
        self.loaded = False   # every automation's record is in ``slots`` (kept current from then on)
        self._warmed: set[str] = set()  # runner kinds asked to warm up (``warm_up``)
        self.timer = Timer(self)
        self.runs = Runs(self)
        self.live = Live()   # what running runs print, as they print it
        self.commands = Commands(self)
        self.scripts = ScriptCommands(self)
        self.discussions = Discussions(self)
        self.services = Services(self)
        self.folders = Folders(self)
        self.retention = Retention(self)
        self.sources = Sources(self)
        self.fleet = Fleet(self)
        track = getattr(self.clock, "track", None)  # a fake clock waits for the writer
        if track is not None:
            track(lambda: self.ledger.busy)

    @property
    def busy(self) -> bool:
        """Whether a run is going (or waiting to start) now."""
        return self.runs.busy

    async def writes_settled(self, within: float | None = None) -> bool:
        """Whether every write queued so far has committed, waiting ``within`` seconds at
        most (None: as long as it takes) without blocking the loop; the writes go on
        either way."""
        try:
            async with asyncio.timeout(within):
                await self.ledger.group.settled()
        except TimeoutError:
            return False
        return True

    async def start(self) -> None:
        """Recover what a dead engine left, account for missed fires, arm the timer (with
        the cycle collector off meanwhile: ``heap.paused``)."""
        with heap.paused():
            await self._start()

    async def _start(self) -> None:
        self.ledger.group.open()
        now = self.clock.now()
        self.started_at = now
        await self.runs.recover(now)

        def load() -> tuple[Settings, list[Automation], list[Run], dict[str, datetime]]:
            return (self.store.settings(), self.store.list(), self.store.active_runs(),
                    {p.run_id: p.expires_at for p in self.store.parked()})

        # The engine is the only writer while it runs, and settings change only through
        # set_setting, so one read at start (and one per change) is enough.
        settings, everything, active, expiries = await self.read(load)
        self.configure(settings)
        await self.hold([a for a in everything if self.fleet.fires_here(a)], active, expiries, now)
        self.folders.hold_leftovers()
        if self.automatic:
            self.retention.at_start()
        await self.sources.start()
        self.fleet.started()
        self.events.publish("engine_state", data={"state": "running"})

    async def hold(self, automations: list[Automation], active: list[Run],
                   expiries: dict[str, datetime], now: datetime) -> None:
        """Hold these automations (at start; and those the common work brings, ``fleet``):
        their slots, attention for the broken ones, their parked runs waited on, the runs a
        dead engine left waiting for their next attempt started at their time, their
        runners warmed up and their folders known. The timer is armed for them after."""
        broken = []
        for automation in automations:
            self.slots[automation.id] = Slot(automation)  # a broken one is never armed
            if automation.problem is not None:
                broken.append(automation)
        self.loaded = True
        if broken:
            for automation in broken if self.automatic else ():  # a serving engine says so
                log.warning("automation %s (%s) is broken and will not run: %s",
                            automation.id, automation.title, automation.problem)
            for automation in await self.write(lambda: self.store.flag_broken(broken, now)):
                self.events.publish("attention_raised", automation_id=automation.id)
        if self.automatic:  # (before arming: one paused now has no fire to catch up)
            await self.runs.pause_unattended(now)
        held = {a.id for a in automations}
        parked = [run for run in active
                  if run.state == "awaiting_input" and run.automation_id in held]
        for run in parked:
            slot = self.slots.get(run.automation_id)
            if slot is not None and not run.dry_run:
                slot.active = run.id
        self.runs.wait_on([run.id for run in parked], expiries, now)
        self.fleet.start_waiting([r for r in active if r.automation_id in held], now)
        for automation in automations:
            if automation.definition is not None:
                self.warm_up(automation.definition.runner.kind)
        workdirs = {a.definition.workdir for a in automations
                    if a.definition is not None and a.definition.workdir}
        if workdirs:  # compared resolved (``folders``): resolved here, off the loop
            self.folders.keys.update(await self.read(resolve_folders, workdirs))

    async def stop(self) -> None:
        """Stop admitting, give running work a short grace period, then interrupt the rest."""
        if self.stopping:
            return
        self.stopping = True
        await self.fleet.stop()
        self.runs.retry_closes_now()
        await self.sources.stop()
        grace = self.settings.get("shutdown_grace").total_seconds()
        await asyncio.gather(self.runs.stop(grace), self.discussions.stop(grace))
        await self.retention.stop()
        for runner in self.runners.values():  # connection pools (the agent's HTTP client)
            close = getattr(runner, "aclose", None)
            if close is not None:
                await close()
        await self.ledger.group.aclose()
        self.events.publish("engine_state", data={"state": "stopped"})

    # ------------------------------------------------------------------ memory

    def configure(self, settings: Settings) -> None:
        """Take in the stored settings (at start, and after each change)."""
        concurrency = self.settings.concurrency if self.runs.cap is not None else None
        self.settings = settings
        self.ledger.configure(settings.get("unattended_expiry"))
        if self.runs.cap is None or settings.concurrency != concurrency:
            self.runs.cap = Places(settings.concurrency)  # running work keeps its place
        if self.loaded:
            self.sources.configured()

    def take_in(self, automation_id: str, automation: Automation) -> None:
        """Take in the stored state of an automation, just written, and re-arm for it
        (one this engine does not fire, on a shared catalogue, it lets go of)."""
        if not self.fleet.fires_here(automation):
            held = self.slots.pop(automation_id, None)
            if held is not None:
                held.version += 1  # (its timer entry is stale now)
                self.sources.changed(replace(automation, definition=None))
            self.events.publish("automation_changed", automation_id=automation_id,
                                data={"revision": automation.revision,
                                      "status": automation.status})
            return
        slot = self.slots.setdefault(automation_id, Slot(automation))
        slot.automation = automation
        if automation.definition is not None:
            self.warm_up(automation.definition.runner.kind)
        self.timer.arm(automation_id)
        self.timer.kick()
        if self.loaded:
            self.sources.changed(automation)
        self.events.publish("automation_changed", automation_id=automation_id,
                            data={"revision": automation.revision, "status": automation.status})

    async def write(self, fn: Callable[[], T], then: Callable[[T], None] | None = None) -> T:
        """``fn()`` (its own transactions) on the writer thread, after every queued write;
        ``then(result)`` follows on the loop once it committed, even when the caller was
        cancelled meanwhile, so the engine's memory always follows what was written."""
        job = asyncio.ensure_future(self.ledger.write(fn))
        if then is not None:
            def after(done: asyncio.Future[T]) -> None:
                if not done.cancelled() and done.exception() is None:
                    try:
                        then(done.result())
                    except Exception:  # memory could not follow a committed write: say
                        log.exception("the engine could not take in what it just wrote")
            job.add_done_callback(after)
        return await asyncio.shield(job)

    async def read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """A read on a worker thread: a slow disk or a big answer never holds the loop."""
        return await self.ledger.read(fn, *args, **kw)

    def current(self, automation_id: str) -> Automation:
        """The engine is the only writer and holds every automation, so its view is current
        (and one it does not hold is gone)."""
        slot = self.slots.get(automation_id)
        if slot is None:
            raise NotFound(f"automation {automation_id} was deleted")
        return slot.automation

    async def slot(self, automation_id: str) -> Slot:
        """The automation's slot; one the engine does not hold is read (from another
        process's hand, or it raises NotFound with the usual message)."""
        slot = self.slots.get(automation_id)
        if slot is None:
            automation = await self.read(self.store.get, automation_id)
            if not self.fleet.fires_here(automation):  # another machine's: read, not held
                return Slot(automation)
            self.take_in(automation_id, automation)
            slot = self.slots[automation_id]
        return slot

    def is_paused(self, automation_id: str) -> bool:
        slot = self.slots.get(automation_id)
        return slot is None or slot.automation.status != "active"

    def is_archived(self, automation_id: str) -> bool:
        slot = self.slots.get(automation_id)
        return slot is not None and slot.automation.status == "archived"

    def warm_up(self, kind: str) -> None:
        """An automation of this kind exists: a runner with a slow first use (an SDK to
        import) starts on it now, once per engine, so the first run does not wait. Not in
        an engine a CLI command hosts for one thing (not automatic): it would only compete
        with that command, and exit while the loading may still go on."""
        if kind in self._warmed or not self.automatic:
            return
        self._warmed.add(kind)
        warm = getattr(self.runners.get(kind), "warm_up", None)
        if warm is not None:
            warm()
