"""The engine's place among the engines of a shared catalogue.

On a PostgreSQL catalogue every machine runs an engine, and each automation is fired by
exactly one of them: the engine of the machine it is bound to (``runs_on``), or, for one
that may run anywhere, the engine doing the *common work* (the one holding the catalogue's
common lock, ``db/engine_hold``). This part says which automations this engine fires
(the engine holds a slot for those only), takes the common work over when the engine that
did it goes away, takes in what other machines changed (their change notices), and, doing
the common work, ends the runs of engines gone. On an SQLite file there is one engine, and
it fires everything.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from .. import heap
from ..definition import ANY_MACHINE
from ..errors import Conflict, ErrandsError
from ..records import Automation, Run

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
SWEEP_S = 10.0  # how often the common work looks for runs of engines gone
TAKEN_OVER = ("interrupted", "another machine's Errands engine took this run's work over "
              "while this one could not reach the catalogue")
LEASE_LOST = ("interrupted", "this Errands engine lost its hold on the shared catalogue (its "
              "connection broke), and with it this run's work")


class Fleet:
    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.machine = engine.store.machine
        self.shared = engine.store.dialect != "sqlite"
        self.common = True  # this engine does the common work (a file's one engine does)
        self._sweeper: asyncio.Task[None] | None = None

    def fires_here(self, automation: Automation) -> bool:
        """Whether this engine fires ``automation`` (on a shared catalogue: one bound to
        its machine, or one that may run anywhere when it does the common work)."""
        runs_on = self.runs_on(automation)
        return self.common if runs_on == ANY_MACHINE else runs_on == self.machine

    def runs_on(self, automation: Automation) -> str:
        """The machine ``automation`` is bound to, or ``any`` (always, on a file)."""
        d = automation.definition
        return d.runs_on if d is not None and self.shared else ANY_MACHINE

    def refuse_elsewhere(self, automation: Automation) -> None:
        """An engine runs nothing of an automation another machine's engine fires: refused
        (``engine_elsewhere``), saying where it runs. (A command reaches the right engine
        through ``routing``; this guards the engines a command hosts for a moment.)"""
        if not self.fires_here(automation):
            runs_on = self.runs_on(automation)
            where = ("the engine doing the catalogue's common work"
                     if runs_on == ANY_MACHINE else f"the engine of {runs_on}")
            raise Conflict("engine_elsewhere", f"“{automation.title}” is run by {where}, "
                           f"not by this one ({self.machine}): start Errands there, or let "
                           "it run here (errands edit ID --runs-on "
                           f"{self.machine if runs_on != ANY_MACHINE else 'any'})")

    async def refuse_runs_elsewhere(self, run_ids: list[str]) -> dict[str, Conflict]:
        """``refuse_elsewhere`` for the automations of these runs: the refusal of each run
        whose automation this engine does not fire."""
        if not self.shared or {slot.active for slot in self.e.slots.values()}.issuperset(
                run_ids):  # (parked runs of its own: known without a read)
            return {}

        def read() -> dict[str, Automation]:
            found = {}
            for run_id in run_ids:
                try:
                    run = self.e.store.get_run(run_id)
                    found[run_id] = self.e.store.get(run.automation_id)
                except ErrandsError:
                    pass  # (refused with the usual words where it is decided)
            return found

        refused = {}
        for run_id, automation in (await self.e.read(read)).items():
            try:
                self.refuse_elsewhere(automation)
            except Conflict as exc:
                refused[run_id] = exc
        return refused

    def started(self) -> None:
        """The engine started: doing the common work, it looks for runs of engines gone."""
        if self.shared and self.common and self.e.automatic and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)

    async def _sweep(self) -> None:
        """Every ``SWEEP_S``, end as interrupted the runs of machines whose engine is gone
        (its lease, the session lock, lapsed): a machine that never comes back leaves
        nothing running for ever."""
        while not self.e.stopping:
            await asyncio.sleep(SWEEP_S)
            try:
                await self.e.runs.recover(self.e.clock.now(), sweep=True)
                self.start_waiting(await self.e.read(self.e.store.active_runs),
                                   self.e.clock.now())
            except Exception as exc:  # (the database away: next time)
                log.info("could not look for runs of engines gone: %s", exc)

    def start_waiting(self, active: list[Run], now: datetime) -> None:
        """Start, at their time, the runs a dead engine left waiting for their next attempt
        (``ledger.recover`` retries what a crash cut short) among those of automations this
        engine holds, that none of its tasks waits with already."""
        e = self.e
        for run in active if e.automatic else ():
            slot = e.slots.get(run.automation_id)
            if run.state != "scheduled" or run.retry_at is None or slot is None \
                    or run.id in e.runs.tasks or slot.active not in (None, run.id):
                continue
            slot.active = run.id
            e.runs.spawn(run.id, max(0.0, (run.retry_at - now).total_seconds()), run=run)

    async def take_common(self) -> None:
        """Take the common work over (the engine that did it stopped or died): what that
        engine left running is ended as interrupted, and the automations that may run
        anywhere are read, armed, and their missed fires recorded, as at a start."""
        e = self.e
        if self.common or e.stopping or not e.loaded:
            return
        self.common = True  # (what ``recover`` ends depends on it)
        try:
            adopted = await self._take_common()
        except BaseException:
            self.common = False  # (asked again by the caller: nothing is half taken)
            raise
        self.started()
        log.info("this engine (%s) does the catalogue's common work now: %d automations "
                 "taken over", self.machine, len(adopted))
        e.events.publish("engine_state", data={"state": "running", "common": True})

    async def _take_common(self) -> list[Automation]:
        e = self.e
        with heap.paused():
            now = e.clock.now()
            await e.runs.recover(now, sweep=True)  # (its own runs are alive: this one's)

            def load() -> tuple[list[Automation], list[Run], dict[str, datetime]]:
                return (e.store.list(), e.store.active_runs(),
                        {p.run_id: p.expires_at for p in e.store.parked()})

            everything, active, expiries = await e.read(load)
            adopted = [a for a in everything if a.id not in e.slots and self.fires_here(a)]
            await e.hold(adopted, active, expiries, now)
            for automation in adopted:
                e.timer.arm(automation.id)
                e.sources.changed(automation)
            e.timer.admit_due(now, reason_hint="app_not_running", stagger=True)
            e.timer.kick()
        return adopted

    async def end_common_runs(self) -> None:
        """This engine's hold on the common work broke (its connection to the catalogue):
        what it runs of that work is ended now, as its lease is gone and another engine may
        take the work over meanwhile (it would retry what this one still ran). The closes
        are written once the catalogue answers again."""
        e = self.e
        going = [run_id for slot in list(e.slots.values())
                 if self.runs_on(slot.automation) == ANY_MACHINE
                 for run_id in (slot.queued, slot.active)
                 if run_id is not None and run_id in e.runs.tasks]
        for run_id in going:
            e.runs.cancel(run_id, LEASE_LOST, "interrupted")
        if going:
            log.warning("this engine's hold on the catalogue broke: %d runs of the common "
                        "work it did were ended", len(going))

    async def give_up_common(self) -> None:
        """Another machine's engine took the common work over while this one was cut off
        from the catalogue (it ended this engine's runs of it as interrupted, and goes on
        from there): what this engine still runs of it is stopped, and it lets go of those
        automations, going on with its own machine's."""
        e = self.e
        if not self.common:
            return
        self.common = False
        await self.stop()
        self._sweeper = None
        leaving = [(i, slot) for i, slot in e.slots.items() if not self.fires_here(slot.automation)]
        await asyncio.gather(*(e.runs.cancel_and_wait(run_id, TAKEN_OVER, "interrupted")
                               for _, slot in leaving for run_id in (slot.queued, slot.active)
                               if run_id is not None and run_id in e.runs.tasks))
        for automation_id, slot in leaving:
            if e.slots.pop(automation_id, None) is not None:
                slot.version += 1  # (its timer entry is stale now)
                e.sources.changed(replace(slot.automation, definition=None))
        log.warning("the engine of another machine does the catalogue's common work now: "
                    "this engine (%s) let %d automations go", self.machine, len(leaving))
        e.events.publish("engine_state", data={"state": "running", "common": False})

    async def adopt(self, changed: dict[str, str]) -> None:
        """Another machine changed these automations (id -> where each may run): take in
        what this engine fires, let go of what it no longer does, and tell this machine's
        windows of all of them."""
        e = self.e
        if e.stopping or not e.loaded:
            return
        wanted = [i for i, runs_on in changed.items() if i in e.slots or (
            runs_on == self.machine if runs_on != ANY_MACHINE else self.common)]
        found = {a.id: a for a in await e.read(e.store.get_many, wanted)} if wanted else {}
        for automation_id in changed:
            automation = found.get(automation_id)
            if automation is not None:
                e.take_in(automation_id, automation)
            elif automation_id in wanted and automation_id in e.slots:  # deleted there
                held = e.slots.pop(automation_id)
                e.sources.changed(replace(held.automation, definition=None))
                e.events.publish("automation_deleted", automation_id=automation_id)
            else:
                e.events.publish("automation_changed", automation_id=automation_id,
                                 data={"elsewhere": True})
        if self.e.sources.kinds.get("automation") is not None:
            e.sources.followed()  # (an end there may have left events for followers here)
