"""The folder trigger's source: one watcher (watchfiles: inotify, FSEvents or
ReadDirectoryChangesW, never polling) per folder trigger of an active automation.

Reports are gathered until the folder has been quiet for the trigger's ``debounce`` (or,
under changes that never stop, for at most ten times that), then worked out on a worker
thread (:mod:`errands.folder_changes`): filtered by the globs, stat'ed, diffed against the
snapshot. A burst that changed nothing the trigger watches costs no run. The changes are
offered as one fire whose claim also stores the new snapshot, so a crash neither repeats
nor loses them; at start, a fresh scan against the stored snapshot finds what changed while
Errands was closed, handled by the automation's ``misfire`` policy (``skip``: one skipped
record listing them; ``run_once``: one run with them).

A run's own writes to its folder are attributed to it: changes that begin while one of the
automation's runs is active, or within a second of its end, carry that run's cascade depth
plus one, so a run that keeps rewriting its folder stops at the cascade bound."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import folder_changes
from ..event_triggers import FolderTrigger, members_of
from ..ledger import Offer
from ..records import Automation, Run
from .base import say_trouble

if TYPE_CHECKING:
    from .core import Engine
    from .notices import Change

log = logging.getLogger(__name__)
RETRY_S = 60.0          # a folder that cannot be watched is tried again this often
END_SLACK_S = 1.0       # changes this soon after a run's end are taken as its own
WATCH_STEP_MS = 50
STORED_FILES = 20_000   # the largest snapshot stored (see ``_state``)


@dataclass
class _Watch:
    automation_id: str
    trigger_id: str
    trigger: FolderTrigger
    snapshot: dict[str, list[int]] = field(default_factory=dict)
    raw: list[set[tuple[Any, str]]] = field(default_factory=list)
    first: float | None = None       # when the burst gathering now began (monotonic)
    flush: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    flushing: asyncio.Task[None] | None = None


class FolderSource:
    kind = "folder"

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.watches: dict[tuple[str, str], _Watch] = {}
        self.problems: dict[tuple[str, str], str] = {}
        self._caused: dict[str, tuple[int, tuple[str, ...]]] = {}   # run -> depth, chain
        self._ended: dict[str, tuple[float, str]] = {}  # automation -> (when, run)
        self._last_end: tuple[float, str, str] | None = None  # any run: when, run, automation
        self._untap: Any = None          # listening to run ends: only while something is watched
        self._started = False
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if not self.e.automatic:
            return
        self._started = True
        for slot in self.e.sources.eventful_slots():  # (scanned after the start, not in it)
            if self._wanted(slot.automation):
                self._later(self._follow(slot.automation, at_start=True))

    async def stop(self) -> None:
        self._started = False
        if self._untap is not None:
            self._untap()
            self._untap = None
        for key in list(self.watches):
            await self._unwatch(key)
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def changed(self, automation: Automation) -> None:
        if not self.e.automatic or not self._started or self.e.stopping:
            return
        wanted = self._wanted(automation)
        held = {k: w for k, w in self.watches.items() if k[0] == automation.id}
        if {k: w.trigger for k, w in held.items()} == wanted:
            return
        self._later(self._follow(automation, at_start=False))

    def _later(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _wanted(self, automation: Automation) -> dict[tuple[str, str], FolderTrigger]:
        d = automation.definition
        if d is None or automation.status != "active":
            return {}
        return {(automation.id, m.id): m.trigger for m in members_of(d.trigger)
                if isinstance(m.trigger, FolderTrigger)}

    async def _follow(self, automation: Automation, *, at_start: bool) -> None:
        """Watch exactly the folder triggers the automation now has (active only)."""
        wanted = self._wanted(automation)
        for key in [k for k in self.watches if k[0] == automation.id]:
            if self.watches[key].trigger != wanted.get(key):
                await self._unwatch(key)
        for key, trigger in wanted.items():
            if key not in self.watches:
                await self._watch(key, trigger, at_start)

    async def _unwatch(self, key: tuple[str, str]) -> None:
        watch = self.watches.pop(key, None)
        if watch is None:
            return
        watch.stop.set()
        if watch.flush is not None:
            watch.flush.cancel()
        for task in (watch.task, watch.flushing):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _watch(self, key: tuple[str, str], trigger: FolderTrigger, at_start: bool) -> None:
        automation_id, trigger_id = key
        watch = _Watch(automation_id, trigger_id, trigger)
        self.watches[key] = watch
        if self._untap is None:  # (run ends matter once a folder is watched)
            self._untap = self.e.events.tap(self._run_changed)
        try:
            stored = await self.e.read(self.e.store.trigger_state, automation_id, trigger_id)
            snapshot, _ = await asyncio.to_thread(folder_changes.scan, trigger)
        except OSError as exc:
            self._trouble(watch, f"cannot read {trigger.path}: {exc.strerror or exc}")
            return
        watch.snapshot = snapshot
        files = stored.get("files") if isinstance(stored, dict) else None
        if at_start and isinstance(files, dict) and stored.get("path") == trigger.path:
            missed = folder_changes.diff(files, snapshot, trigger)
            if missed:
                await self._offer(watch, missed, while_closed=True)
        else:
            await self.e.write(lambda: self.e.store.set_trigger_state(
                automation_id, trigger_id, self._state(watch), self.e.clock.now()))
        self.problems.pop(key, None)
        watch.task = asyncio.get_running_loop().create_task(self._listen(watch))

    def _trouble(self, watch: _Watch, problem: str) -> None:
        """A folder that cannot be watched: said once in the inbox, tried again later."""
        key = (watch.automation_id, watch.trigger_id)
        if self.problems.get(key) != problem:
            say_trouble(self.e, watch.automation_id, "a folder cannot be watched",
                        f"{problem}; Errands tries again every {RETRY_S:.0f} seconds")
        self.problems[key] = problem

        def again() -> None:
            if self.watches.get(key) is watch and not self.e.stopping:
                self.watches.pop(key, None)
                self._later(self._watch(key, watch.trigger, at_start=False))
        watch.flush = asyncio.get_running_loop().call_later(RETRY_S, again)

    @staticmethod
    def _state(watch: _Watch) -> dict[str, Any]:
        """What is stored with each claim: the snapshot, up to ``STORED_FILES`` files (a
        larger one would make every claim slow to write); beyond that, changes made while
        Errands is closed are not looked for."""
        if len(watch.snapshot) > STORED_FILES:
            return {"path": watch.trigger.path, "files": None, "files_count": len(watch.snapshot)}
        return {"path": watch.trigger.path, "files": watch.snapshot}

    # ------------------------------------------------------------------ watching

    async def _listen(self, watch: _Watch) -> None:
        import watchfiles

        while not watch.stop.is_set():
            try:
                async for raw in watchfiles.awatch(
                        watch.trigger.path, recursive=watch.trigger.recursive,
                        debounce=max(WATCH_STEP_MS, min(400, int(
                            watch.trigger.debounce.total_seconds() * 1000))),
                        step=WATCH_STEP_MS, stop_event=watch.stop,
                        ignore_permission_denied=True):
                    self._heard(watch, raw)
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the folder went away, a watch limit was reached
                if watch.stop.is_set():
                    return
                if "decode path" in str(exc) or "decode path" in repr(getattr(
                        exc, "exceptions", "")):
                    # a file name that is not UTF-8: the watcher cannot name it, so the
                    # folder is compared with its snapshot instead, and watched again
                    await self._rescan(watch)
                    await asyncio.sleep(1.0)
                    continue
                self._trouble(watch, f"stopped watching {watch.trigger.path}: {exc}")
                return

    async def _rescan(self, watch: _Watch) -> None:
        try:
            now, _ = await asyncio.to_thread(folder_changes.scan, watch.trigger)
        except OSError as exc:
            self._trouble(watch, f"cannot read {watch.trigger.path}: {exc.strerror or exc}")
            return
        changes = folder_changes.diff(watch.snapshot, now, watch.trigger)
        if changes:
            previous, watch.snapshot = watch.snapshot, now
            if not await self._offer(watch, changes, began=time.monotonic()):
                watch.snapshot = previous

    def _heard(self, watch: _Watch, raw: set[tuple[Any, str]]) -> None:
        """Reports came: gather them (cheaply: the work is done when the burst is over)."""
        now = time.monotonic()
        if watch.first is None:
            watch.first = now
        watch.raw.append(raw)  # (as it came: read on the worker thread, not here)
        debounce = watch.trigger.debounce.total_seconds()
        if watch.flush is not None:
            watch.flush.cancel()
        wait = max(0.0, min(debounce, watch.first + 10 * debounce - now))
        watch.flush = asyncio.get_running_loop().call_later(wait, self._flush, watch)

    def _flush(self, watch: _Watch) -> None:
        watch.flush = None
        if watch.flushing is not None and not watch.flushing.done():
            watch.flush = asyncio.get_running_loop().call_later(0.05, self._flush, watch)
            return
        raw, began = watch.raw, watch.first
        watch.raw, watch.first = [], None
        watch.flushing = asyncio.get_running_loop().create_task(self._work(watch, raw, began))

    async def _work(self, watch: _Watch, raw: list[set[tuple[Any, str]]],
                    began: float | None) -> None:
        reports = (report for burst in raw for report in burst)
        changes, after = await asyncio.to_thread(folder_changes.apply, watch.snapshot, reports,
                                                 watch.trigger)
        if not await asyncio.to_thread(os.path.isdir, watch.trigger.path):
            watch.stop.set()  # (the watcher goes on silently over a folder that is gone)
            self._trouble(watch, f"{watch.trigger.path} is gone")
            return
        if not changes:
            watch.snapshot = after   # (nothing the trigger watches: no run, no write)
            return
        previous, watch.snapshot = watch.snapshot, after
        if not await self._offer(watch, changes, began=began):
            watch.snapshot = previous  # not taken in: offered again with the next burst

    # ------------------------------------------------------------------ firing

    async def _offer(self, watch: _Watch, changes: list[tuple[str, str]], *,
                     while_closed: bool = False, began: float | None = None) -> bool:
        """Offer the changes as one fire; whether it was taken in (run, skip or refusal
        recorded, or the automation not active)."""
        slot = self.e.slots.get(watch.automation_id)
        if slot is None or slot.automation.definition is None:
            return True
        depth, chain = await self._cause(watch.automation_id, began)
        payload = folder_changes.payload(watch.trigger, changes, while_closed)
        now = self.e.clock.now()
        skip = None
        if while_closed and slot.automation.definition.misfire == "skip":
            skip = "app_not_running"
        offer = Offer("folder", f"{watch.trigger_id}:{now.timestamp():.6f}:"
                      f"{secrets.token_hex(4)}", now, payload, trigger_id=watch.trigger_id,
                      kind="folder", depth=depth, chain=chain, state=self._state(watch),
                      skip=skip)
        try:
            offer = await self.e.sources.stored(watch.automation_id, offer)
            answer = await self.e.sources.offer(watch.automation_id, offer)
        except Exception as exc:
            if not self.e.stopping:
                log.warning("folder changes could not fire %s: %s", watch.automation_id, exc)
            return False
        if isinstance(answer, Run):
            self._caused[answer.id] = (depth, (*chain, watch.automation_id))
            if len(self._caused) > 10_000:  # (the oldest are long over)
                for old in list(self._caused)[:5_000]:
                    del self._caused[old]
        return True

    async def _cause(self, automation_id: str, began: float | None
                     ) -> tuple[int, tuple[str, ...]]:
        """The cascade depth of changes that began at ``began``: one more than that of the
        run that most likely made them: the automation's own run then active (or just
        ended), else the deepest run of any automation then active or just ended (so two
        automations writing into each other's folders stop at the bound too); none when
        no run was going."""
        slot = self.e.slots.get(automation_id)
        cause = (slot.active, automation_id) if slot is not None and slot.active else None
        if cause is None:
            ended = self._ended.get(automation_id)
            if ended is not None and began is not None and ended[0] >= began - END_SLACK_S:
                cause = (ended[1], automation_id)
        if cause is None:
            others = [(other.active, ident) for ident, other in self.e.slots.items()
                      if other.active]
            last = self._last_end
            if last is not None and began is not None and last[0] >= began - END_SLACK_S:
                others.append((last[1], last[2]))
            if others:
                cause = max(others, key=lambda c: self._caused.get(c[0], (0, ()))[0])
        if cause is None:
            return 0, ()
        known = self._caused.get(cause[0])
        if known is None:  # started by something else (an end, a webhook): its own depth
            try:
                run = await self.e.read(self.e.store.get_run, cause[0])
            except Exception:  # (gone meanwhile: counted as started by a person)
                run = None
            fired = run.fired_by() if run is not None else {}
            known = (int(fired.get("depth") or 0),
                     (*[str(c) for c in fired.get("chain") or ()], cause[1]))
        depth, chain = known
        return depth + 1, chain

    def _run_changed(self, change: Change) -> None:
        if change.kind != "run_changed" or change.automation_id is None:
            return
        state = change.data.get("state")
        if state in ("succeeded", "failed", "cancelled", "interrupted", "expired"):
            now = time.monotonic()
            self._last_end = (now, change.run_id or "", change.automation_id)
            if any(k[0] == change.automation_id for k in self.watches):
                self._ended[change.automation_id] = (now, change.run_id or "")
