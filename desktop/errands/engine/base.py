"""Shared state of the engine's parts: the in-memory slot of each automation, the ways to
the store (writes on the writer thread, reads on a worker: never on the loop), and the
small helpers every part uses. The engine
is one object (``core.Engine``) assembled from the parts in ``timer``, ``lifecycle`` and
``commands``; each part is a class over this base."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from sqlalchemy.orm import Session

from ..db.schema import AutomationRow
from ..errors import InvalidInput, NotFound
from ..paths import private_dir
from ..records import Automation, Blocker, Decision, Run
from ..timeutil import UTC, format_instant
from ..runners.contract import Outcome, Resume

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_SLEEP = 60.0          # seconds: a sleeping machine or a clock jump is noticed within this
JUMP_THRESHOLD = 30.0     # seconds the wall clock may run ahead of the monotonic one
FINAL_STRETCH = 0.25      # seconds: the last, short sleep before a fire (see _sleep_for)
CHECKPOINT_EVERY = 10.0   # seconds: at most one write-ahead-log checkpoint before fires
RETRY_ADMISSION = 5.0     # seconds before admission is tried again after the store failed
OUTPUT_TAIL = 64 * 1024
LEFTOVER_GRACE = 5.0      # seconds a child left by a dead engine has after SIGTERM
PREPARE_AHEAD = timedelta(minutes=10)  # a fire this close gets its run's folders made now
CancelReason = Literal["cancelled", "interrupted"]
# Why a run was cancelled, as its error (code, message), when nobody asked for it by name;
# a stop or a delete says who asked (``stopped_by``).
REPLACED = ("replaced", "a newer fire replaced it (overlap: cancel_previous)")
PAUSED = ("paused", "dropped because the automation was paused")
ARCHIVED = ("archived", "ended because the automation was archived")
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




class EngineBase:
    """Attributes are set by ``Engine.__init__``; see there."""

    if TYPE_CHECKING:  # what the other parts provide
        def _arm(self, automation_id: str) -> None: ...
        def _spawn(self, run_id: str, delay: float = 0.0, *, run: Run | str,
                   resume: Resume | None = None) -> None: ...
        def _close(self, run_id: str, outcome: Outcome,
                   state: str | None = None) -> asyncio.Future[None]: ...
        def _cancel(self, run_id: str, why: tuple[str, str]) -> asyncio.Future[None] | None: ...
        async def _cancel_and_wait(self, run_id: str, why: tuple[str, str]) -> None: ...
        async def wait_run(self, run_id: str) -> Run: ...
        # folders
        def _folder_of(self, d: Any, dry_run: bool = False) -> str | None: ...
        def _take_folder(self, key: str, run_id: str, automation_id: str | None) -> bool: ...
        async def _hold_folder(self, run_id: str, automation_id: str, key: str) -> None: ...
        def _release_folder(self, run_id: str) -> None: ...
        def _folder_busy_in_batch(self, key: str, automation_id: str,
                                  reserving: dict[str, tuple[str, str]]) -> str | None: ...
        # retention
        def _want_prune(self, automation_id: str, after: float = ...) -> None: ...

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        """A write transaction here, on the loop, that follows every write already queued
        for group commit: only for the timer's claim of due fires (see ``timer``)."""
        self._group.drain()
        with self.store.transaction() as s:
            yield s

    async def _write(self, fn: Callable[[], T], then: Callable[[T], None] | None = None) -> T:
        """``fn()`` (its own transactions) on the writer thread, after every queued write;
        ``then(result)`` follows on the loop once it committed, even when the caller was
        cancelled meanwhile, so the engine's memory always follows what was written."""
        job = asyncio.ensure_future(self._group.run(fn))
        if then is not None:
            def after(done: asyncio.Future[T]) -> None:
                if not done.cancelled() and done.exception() is None:
                    try:
                        then(done.result())
                    except Exception:  # memory could not follow a committed write: say
                        log.exception("the engine could not take in what it just wrote")
            job.add_done_callback(after)
        return await asyncio.shield(job)

    async def _read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """A read on a worker thread: a slow disk or a big answer never holds the loop."""
        self._reading += 1  # (a fake clock waits for it, as real time would)
        try:
            return await asyncio.to_thread(fn, *args, **kw)
        finally:
            self._reading -= 1

    def _kick(self) -> None:
        self._wake.set()

    def _current(self, automation_id: str) -> Automation:
        """The engine is the only writer and holds every automation, so its view is current
        (and one it does not hold is gone)."""
        slot = self._slots.get(automation_id)
        if slot is None:
            raise NotFound(f"automation {automation_id} was deleted")
        return slot.automation

    def _is_paused(self, automation_id: str) -> bool:
        slot = self._slots.get(automation_id)
        return slot is None or slot.automation.status != "active"

    def _is_archived(self, automation_id: str) -> bool:
        slot = self._slots.get(automation_id)
        return slot is not None and slot.automation.status == "archived"

    def _complete_in(self, s: Session, a: AutomationRow, now: datetime, why: str) -> None:
        a.status = "completed"
        a.next_fire_at = None
        a.updated_at = now
        self.store.audit_in(s, a.id, "completed", a.revision, "engine", now, {"reason": why})

    def _refresh(self, automation_id: str, automation: Automation) -> None:
        """Take in the stored state of an automation, just written, and re-arm for it."""
        slot = self._slots.setdefault(automation_id, _Slot(automation))
        slot.automation = automation
        if automation.definition is not None:
            self._warm_up(automation.definition.runner.kind)
        self._arm(automation_id)
        self._kick()
        self.events.publish("automation_changed", automation_id=automation_id,
                            data={"revision": automation.revision, "status": automation.status})

    def _warm_up(self, kind: str) -> None:
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

    def _flush_events(self) -> None:
        events, self._pending_events = self._pending_events, []
        for kind, automation_id, run_id in events:
            self.events.publish(kind, automation_id=automation_id, run_id=run_id)  # type: ignore[arg-type]

    async def _slot(self, automation_id: str) -> _Slot:
        """The automation's slot; one the engine does not hold is read (from another
        process's hand, or it raises NotFound with the usual message)."""
        slot = self._slots.get(automation_id)
        if slot is None:
            self._refresh(automation_id, await self._read(self.store.get, automation_id))
            slot = self._slots[automation_id]
        return slot


def _failed(why: tuple[str, str]) -> Outcome:
    code, message = why
    return Outcome(state="failed", error_code=code, error_message=message)


def _check_decision(blocker: Blocker, decision: Decision) -> None:
    """A decision must fit what was asked: approvals are approved or denied, questions
    answered (from the choices, when there are some) or declined."""
    if blocker.kind == "permission" and decision.kind == "answer":
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


def make_folders(folders: list[Path]) -> None:
    """Create (0700) what does not exist yet; a folder that cannot be made is left for the
    run, which reports why."""
    for folder in folders:
        try:
            private_dir(folder)
        except OSError:
            pass
