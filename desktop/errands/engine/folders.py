"""One run at a time per working folder: runs of automations whose ``workdir`` is the same
folder never overlap (seed 002 §3: same-project runs are single-writer).

A run *holds* its folder while an attempt of it is under way, from the moment it may start
(waiting for a place under ``concurrency`` included) until the attempt has ended: a run
waiting to retry, or parked for a decision, holds nothing, and takes the folder again (or
waits for it) when it goes on. Folders are compared as resolved paths (symbolic links
followed; case folded on Windows), once per workdir text: at start for every
automation (off the loop), then as new ones are seen. Only the same folder counts: a folder
inside another is a different folder. Automations without a ``workdir`` (each has its own
``<data dir>/workspaces/<id>``), runs in their own git worktree and dry runs share nothing.

A run that finds its folder held waits for it, first come first served, and its row says so
(``details.waiting_for``: the folder and who holds it) until it gets it. A fire of an
automation with ``overlap: skip`` does not wait: it is recorded as skipped
(``folder_busy``) when it comes due while another automation's run holds the folder, as its
own previous run would make it skip. Everything is memory: one dict of folder -> holder, so
the check is one lookup per admission. After a crash, the folder of a child the dead engine
left running is held until that child has ended (``_hold_leftovers``)."""

from __future__ import annotations

import asyncio
import os
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..definition import Definition
from ..ledger import WAITING
from ..timeutil import format_instant

if TYPE_CHECKING:
    from .core import Engine

LEFTOVER = "leftover:"       # the holder id of a dead engine's children in a folder


def folder_key(workdir: str) -> str:
    """The folder a workdir names, as compared: resolved (links followed), case folded on
    Windows. Touches the file system (links), so callers cache it."""
    return os.path.normcase(os.path.realpath(workdir))


@dataclass
class _Hold:
    run_id: str                      # the run holding the folder (or a dead engine's child)
    automation_id: str | None
    waiters: deque[tuple[str, str | None, "asyncio.Future[None]"]] = field(default_factory=deque)


class Folders:
    """Who holds which folder, and who waits for it."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.holds: dict[str, _Hold] = {}            # folder -> who holds it, who waits
        self._run_folder: dict[str, str] = {}        # run -> the folder it holds
        self.keys: dict[str, str] = {}               # workdir text -> the folder compared
        self._leftovers: dict[int, str] = {}         # a dead engine's child -> automation
        self._leftover_folder: dict[int, str] = {}   # ... -> the folder it holds

    def folder_of(self, d: Definition | None, dry_run: bool = False) -> str | None:
        """The folder a run of ``d`` holds, or None when it shares nothing. A script holds
        none: it works for milliseconds and changes files by atomic renames after it has
        run, and the automations it starts often share its folder."""
        if d is None or d.workdir is None or d.worktree or dry_run \
                or d.runner.kind == "script":
            return None
        key = self.keys.get(d.workdir)
        if key is None:
            key = self.keys[d.workdir] = folder_key(d.workdir)
        return key

    def take(self, key: str, run_id: str, automation_id: str | None) -> bool:
        """Hold ``key`` for ``run_id`` if it is free (or already its own)."""
        hold = self.holds.get(key)
        if hold is None:
            self.holds[key] = _Hold(run_id, automation_id)
            self._run_folder[run_id] = key
            return True
        return hold.run_id == run_id

    async def hold(self, run_id: str, automation_id: str, key: str) -> None:
        """Until ``run_id`` holds ``key``: at once when it is free, else in turn, its row
        saying meanwhile that it waits for the folder. Cancelled while waiting, it leaves
        the line (and hands the folder on if it was given it at that very moment)."""
        if self._run_folder.get(run_id, key) != key:  # admitted for another (an edit since)
            self.release(run_id)
        if self.take(key, run_id, automation_id):
            return
        hold = self.holds[key]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        hold.waiters.append((run_id, automation_id, future))
        self._say_waiting(run_id, automation_id, key, hold)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # handed over as it was cancelled
                self.release(run_id)
            raise
        self._say_waiting(run_id, automation_id, key, None)

    def release(self, run_id: str) -> None:
        """``run_id`` no longer holds its folder (if it held one): the next in line gets it."""
        key = self._run_folder.pop(run_id, None)
        if key is None:
            return
        hold = self.holds.get(key)
        if hold is None or hold.run_id != run_id:
            return
        while hold.waiters:
            next_run, next_automation, future = hold.waiters.popleft()
            if future.done():  # it stopped waiting (a stop, a quit)
                continue
            hold.run_id, hold.automation_id = next_run, next_automation
            self._run_folder[next_run] = key
            future.set_result(None)
            return
        del self.holds[key]

    def _say_waiting(self, run_id: str, automation_id: str, key: str,
                     hold: _Hold | None) -> None:
        """Record (``hold``: who it waits for) that a queued run waits for its folder (not
        once it has started or ended), or clear it."""
        holder: dict[str, Any] | None = None
        if hold is not None:
            slot = self.e.slots.get(hold.automation_id or "")
            holder = {"folder": key, "since": format_instant(self.e.clock.now()),
                      "run_id": None if hold.run_id.startswith(LEFTOVER) else hold.run_id,
                      "automation_id": hold.automation_id,
                      "title": slot.automation.title if slot is not None else None}

        def written(future: asyncio.Future[None]) -> None:
            if future.cancelled() or future.exception() is not None:
                return  # (a display detail: the run goes on either way)
            data: dict[str, Any] = {"state": "scheduled"}
            if holder is not None:
                data[WAITING] = "folder"
            self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data=data)

        self.e.ledger.say_waiting(run_id, holder).add_done_callback(written)

    def holder(self, key: str) -> str | None:
        """Who holds ``key`` now: that automation's id ("" for a dead engine's child), or
        None when it is free (admission also counts the claims of its own batch)."""
        hold = self.holds.get(key)
        return None if hold is None else hold.automation_id or ""

    # ------------------------------------------------------------- after a crash

    def note_leftovers(self, leftovers: dict[int, str]) -> None:
        """The children a dead engine left (pid -> automation), being ended now."""
        self._leftovers.update(leftovers)

    def hold_leftovers(self) -> None:
        """Once the automations are loaded: the folders of children still being ended are
        held until they have ended, so no new run works beside them."""
        for pid, automation_id in list(self._leftovers.items()):
            slot = self.e.slots.get(automation_id)
            key = self.folder_of(slot.automation.definition) if slot is not None else None
            if key is None:
                continue
            self._leftover_folder[pid] = key
            self.take(key, LEFTOVER + key, automation_id)

    def leftover_ended(self, pid: int) -> None:
        self._leftovers.pop(pid, None)
        key = self._leftover_folder.pop(pid, None)
        if key is not None and key not in self._leftover_folder.values():
            self.release(LEFTOVER + key)


def resolve_folders(workdirs: set[str]) -> dict[str, str]:
    """``folder_key`` of each workdir, off the loop (the engine's start)."""
    found = {}
    for workdir in workdirs:
        try:
            found[workdir] = folder_key(workdir)
        except (OSError, ValueError):  # resolved when first needed instead
            continue
    return found


def waiting_for(details: Any) -> dict[str, Any] | None:
    """A queued run's record of the folder it waits for, if it waits for one."""
    found = details.get(WAITING) if isinstance(details, dict) else None
    return found if isinstance(found, dict) else None

