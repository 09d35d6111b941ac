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
from typing import Any

from sqlalchemy.orm import Session

from ..db.schema import RunRow
from ..definition import Definition
from ..timeutil import format_instant
from .base import EngineBase

FOLDER_BUSY = "folder_busy"  # the skip reason
WAITING = "waiting_for"      # the key in a queued run's details while it waits
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


class Folders(EngineBase):
    """Attributes (``Engine.__init__``): ``_holds`` folder -> hold, ``_run_folder`` run ->
    the folder it holds, ``_folder_keys`` workdir text -> folder, ``_leftovers`` pid ->
    automation of a dead engine's child, ``_leftover_folder`` pid -> its folder."""

    def _folder_of(self, d: Definition | None, dry_run: bool = False) -> str | None:
        """The folder a run of ``d`` holds, or None when it shares nothing."""
        if d is None or d.workdir is None or d.worktree or dry_run:
            return None
        key = self._folder_keys.get(d.workdir)
        if key is None:
            key = self._folder_keys[d.workdir] = folder_key(d.workdir)
        return key

    def _take_folder(self, key: str, run_id: str, automation_id: str | None) -> bool:
        """Hold ``key`` for ``run_id`` if it is free (or already its own)."""
        hold = self._holds.get(key)
        if hold is None:
            self._holds[key] = _Hold(run_id, automation_id)
            self._run_folder[run_id] = key
            return True
        return hold.run_id == run_id

    async def _hold_folder(self, run_id: str, automation_id: str, key: str) -> None:
        """Until ``run_id`` holds ``key``: at once when it is free, else in turn, its row
        saying meanwhile that it waits for the folder. Cancelled while waiting, it leaves
        the line (and hands the folder on if it was given it at that very moment)."""
        if self._run_folder.get(run_id, key) != key:  # admitted for another (an edit since)
            self._release_folder(run_id)
        if self._take_folder(key, run_id, automation_id):
            return
        hold = self._holds[key]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        hold.waiters.append((run_id, automation_id, future))
        self._say_waiting(run_id, automation_id, key, hold)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # handed over as it was cancelled
                self._release_folder(run_id)
            raise
        self._say_waiting(run_id, automation_id, key, None)

    def _release_folder(self, run_id: str) -> None:
        """``run_id`` no longer holds its folder (if it held one): the next in line gets it."""
        key = self._run_folder.pop(run_id, None)
        if key is None:
            return
        hold = self._holds.get(key)
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
        del self._holds[key]

    def _say_waiting(self, run_id: str, automation_id: str, key: str,
                     hold: _Hold | None) -> None:
        """Record (``hold``: who it waits for) that a queued run waits for its folder (not
        once it has started or ended), or clear it."""
        holder: dict[str, Any] | None = None
        if hold is not None:
            slot = self._slots.get(hold.automation_id or "")
            holder = {"folder": key, "since": format_instant(self.clock.now()),
                      "run_id": None if hold.run_id.startswith(LEFTOVER) else hold.run_id,
                      "automation_id": hold.automation_id,
                      "title": slot.automation.title if slot is not None else None}

        def write(s: Session) -> None:
            row = s.get(RunRow, run_id)
            if row is None:
                return
            details = dict(row.details) if isinstance(row.details, dict) else {}
            if holder is None:  # (whatever its state: its start may have committed first)
                if WAITING not in details:
                    return
                details.pop(WAITING)
            elif row.state != "scheduled":  # (started or ended meanwhile)
                return
            else:
                details[WAITING] = holder
            row.details = details or None

        def written(future: asyncio.Future[None]) -> None:
            if future.cancelled() or future.exception() is not None:
                return  # (a display detail: the run goes on either way)
            data: dict[str, Any] = {"state": "scheduled"}
            if holder is not None:
                data[WAITING] = "folder"
            self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data=data)

        self._group.submit("call", write).add_done_callback(written)

    def _folder_busy_in_batch(self, key: str, automation_id: str,
                              reserving: dict[str, tuple[str, str]]) -> str | None:
        """Who holds ``key`` for a fire of ``automation_id`` being admitted (memory, then
        the claims of the same batch): that automation's id, or None when it is free."""
        hold = self._holds.get(key)
        if hold is not None:
            return hold.automation_id or ""
        taken = reserving.get(key)
        return taken[1] if taken is not None else None

    # ------------------------------------------------------------- after a crash

    def _note_leftovers(self, leftovers: dict[int, str]) -> None:
        """The children a dead engine left (pid -> automation), being ended now."""
        self._leftovers.update(leftovers)

    def _hold_leftovers(self) -> None:
        """Once the automations are loaded: the folders of children still being ended are
        held until they have ended, so no new run works beside them."""
        for pid, automation_id in list(self._leftovers.items()):
            slot = self._slots.get(automation_id)
            key = self._folder_of(slot.automation.definition) if slot is not None else None
            if key is None:
                continue
            self._leftover_folder[pid] = key
            self._take_folder(key, LEFTOVER + key, automation_id)

    def _leftover_ended(self, pid: int) -> None:
        self._leftovers.pop(pid, None)
        key = self._leftover_folder.pop(pid, None)
        if key is not None and key not in self._leftover_folder.values():
            self._release_folder(LEFTOVER + key)


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

