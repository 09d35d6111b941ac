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
from ..definition import ANY_MACHINE
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
SWEEP_S = 10.0  # how often the common work looks for runs of engines gone


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
        # On a shared catalogue each machine's engine fires its own machine's automations,
        # and one of them (``common``) those that may run anywhere; ``slots`` holds only
        # what this engine fires (``fires_here``). On a file, one engine fires all.
        self.machine = store.machine
        self.shared = store.dialect != "sqlite"
        self.common = True
        self.slots: dict[str, Slot] = {}
        self.stopping = False
        self.started_at: datetime | None = None
        self.loaded = False   # every automation's record is in ``slots`` (kept current from then on)
        self._warmed: set[str] = set()  # runner kinds asked to warm up (``warm_up``)
        self._sweeper: asyncio.Task[None] | None = None  # ends runs of engines gone
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
        automations = [a for a in everything if self.fires_here(a)]
        self.configure(settings)
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
        parked = [run for run in active
                  if run.state == "awaiting_input" and run.automation_id in self.slots]
        for run in parked:
            slot = self.slots.get(run.automation_id)
            if slot is not None and not run.dry_run:
                slot.active = run.id
        self.runs.wait_on([run.id for run in parked], expiries, now)
        for slot in self.slots.values():
            if slot.automation.definition is not None:
                self.warm_up(slot.automation.definition.runner.kind)
        workdirs = {a.definition.workdir for a in automations
                    if a.definition is not None and a.definition.workdir}
        if workdirs:  # compared resolved (``folders``): resolved here, off the loop
            self.folders.keys.update(await self.read(resolve_folders, workdirs))
        self.folders.hold_leftovers()
        if self.automatic:
            self.retention.at_start()
        await self.sources.start()
        self._start_sweeping()
        self.events.publish("engine_state", data={"state": "running"})

    def _start_sweeping(self) -> None:
        if self.shared and self.common and self.automatic and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        """(The common work, on a shared catalogue.) Every ``SWEEP_S``, end as interrupted
        the runs of machines whose engine is gone (its lease, the session lock, lapsed):
        a machine that never comes back leaves nothing running for ever."""
        while not self.stopping:
            await asyncio.sleep(SWEEP_S)
            try:
                await self.runs.recover(self.clock.now(), sweep=True)
            except Exception as exc:  # (the database away: next time)
                log.info("could not look for runs of engines gone: %s", exc)

    def fires_here(self, automation: Automation) -> bool:
        """Whether this engine fires ``automation`` (on a shared catalogue: one bound to
        its machine, or one that may run anywhere when it does the common work)."""
        if not self.shared:
            return True
        d = automation.definition
        runs_on = d.runs_on if d is not None else ANY_MACHINE
        return self.common if runs_on == ANY_MACHINE else runs_on == self.machine

    def runs_on(self, automation: Automation) -> str:
        """The machine ``automation`` is bound to, or ``any``."""
        d = automation.definition
        return d.runs_on if d is not None and self.shared else ANY_MACHINE

    async def take_common(self) -> None:
        """This engine takes over the common work (the engine that did it stopped or
        died): what that engine left running is ended as interrupted, and the automations
        that may run anywhere are read, armed, and their missed fires recorded, as at a
        start."""
        if self.common or self.stopping or not self.loaded:
            return
        self.common = True
        with heap.paused():
            now = self.clock.now()
            await self.runs.recover(now, sweep=True)  # (its own runs are alive: this one's)

            def load() -> tuple[list[Automation], list[Run], dict[str, datetime]]:
                return (self.store.list(), self.store.active_runs(),
                        {p.run_id: p.expires_at for p in self.store.parked()})

            everything, active, expiries = await self.read(load)
            adopted = [a for a in everything if a.id not in self.slots and self.fires_here(a)]
            for automation in adopted:
                self.slots[automation.id] = Slot(automation)
            broken = [a for a in adopted if a.problem is not None]
            if broken:
                for automation in await self.write(lambda: self.store.flag_broken(broken, now)):
                    self.events.publish("attention_raised", automation_id=automation.id)
            ids = {a.id for a in adopted}
            parked = [run for run in active
                      if run.state == "awaiting_input" and run.automation_id in ids]
            for run in parked:
                if not run.dry_run:
                    self.slots[run.automation_id].active = run.id
            self.runs.wait_on([run.id for run in parked], expiries, now)
            workdirs = {a.definition.workdir for a in adopted
                        if a.definition is not None and a.definition.workdir}
            if workdirs:
                self.folders.keys.update(await self.read(resolve_folders, workdirs))
            for automation in adopted:
                if automation.definition is not None:
                    self.warm_up(automation.definition.runner.kind)
                self.timer.arm(automation.id)
                self.sources.changed(automation)
            self.timer.admit_due(now, reason_hint="app_not_running", stagger=True)
            self.timer.kick()
        self._start_sweeping()
        log.info("this engine (%s) does the catalogue's common work now: %d automations "
                 "taken over", self.machine, len(adopted))
        self.events.publish("engine_state", data={"state": "running", "common": True})

    async def adopt(self, changed: dict[str, str]) -> None:
        """Another machine changed these automations (id -> where each may run): take in
        what this engine fires, let go of what it no longer does, and tell this machine's
        windows of all of them."""
        if self.stopping or not self.loaded:
            return
        wanted = [i for i, runs_on in changed.items() if i in self.slots or (
            runs_on == self.machine if runs_on != ANY_MACHINE else self.common)]
        found = {a.id: a for a in await self.read(self.store.get_many, wanted)} if wanted else {}
        for automation_id in changed:
            automation = found.get(automation_id)
            if automation is not None:
                self.take_in(automation_id, automation)
            elif automation_id in wanted and automation_id in self.slots:  # deleted there
                held = self.slots.pop(automation_id)
                self.sources.changed(replace(held.automation, definition=None))
                self.events.publish("automation_deleted", automation_id=automation_id)
            else:
                self.events.publish("automation_changed", automation_id=automation_id,
                                    data={"elsewhere": True})

    async def stop(self) -> None:
        """Stop admitting, give running work a short grace period, then interrupt the rest."""
        if self.stopping:
            return
        self.stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
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
        if not self.fires_here(automation):
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
            if not self.fires_here(automation):  # another machine's: read, not held
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
