"""Change notices: what changed, folded into one notice per short window.

The engine reports every change as it commits (``publish``); subscribers get one
:class:`Notice` per window (50 ms by default) naming what changed: automations, runs,
attention, parked runs, settings. A burst of a thousand runs gives a handful of notices.

Every notice carries the engine's ``epoch`` (new at each engine start, and ordered: a later
start's epoch sorts after an earlier one's) and a ``revision`` that only grows within it.
Query results carry the same stamp, taken before they read, so a view holding a snapshot
stamped below the revision of a notice that touches it knows the snapshot may be older and
asks again (Anki's one "changes happened" signal, with a clock).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

log = logging.getLogger(__name__)

ChangeKind = Literal["automation_changed", "automation_deleted", "run_changed",
                     "attention_raised", "engine_state", "settings_changed"]
WINDOW = 0.05  # seconds a notice gathers changes before it goes out


@dataclass(frozen=True)
class Change:
    """One change as the engine reports it (what ``tap`` listeners see, one by one)."""

    kind: ChangeKind
    automation_id: str | None = None
    run_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Stamp:
    """Which state of the engine a notice or a snapshot reflects."""

    epoch: str
    revision: int

    def newer_than(self, other: "Stamp") -> bool:
        """Whether this reflects later changes than ``other``. Across a restart the later
        epoch is newer whatever the revisions (each engine counts from zero)."""
        if self.epoch != other.epoch:
            return self.epoch > other.epoch
        return self.revision > other.revision

    def to_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "revision": self.revision}


@dataclass(frozen=True)
class Notice:
    epoch: str
    revision: int
    automations: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()
    run_states: dict[str, str] = field(default_factory=dict)  # each run's latest state
    attention: bool = False
    parked: bool = False
    settings: bool = False
    engine_state: str | None = None
    changes: int = 0  # how many changes this notice folds

    @property
    def runs(self) -> frozenset[str]:
        return frozenset(self.run_states)

    @property
    def stamp(self) -> Stamp:
        return Stamp(self.epoch, self.revision)

    def to_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "revision": self.revision,
                "automations": sorted(self.automations), "deleted": sorted(self.deleted),
                "runs": sorted(self.runs), "run_states": self.run_states,
                "attention": self.attention, "parked": self.parked, "settings": self.settings,
                "engine_state": self.engine_state, "changes": self.changes}


Listener = Callable[[Notice], None]
Tap = Callable[[Change], None]


class _Pending:
    def __init__(self) -> None:
        self.automations: set[str] = set()
        self.deleted: set[str] = set()
        self.runs: dict[str, str] = {}
        self.attention = self.parked = self.settings = False
        self.engine_state: str | None = None
        self.changes = 0

    def fold(self, change: Change) -> None:
        self.changes += 1
        a = change.automation_id
        if change.kind == "automation_deleted" and a:
            self.deleted.add(a)
            self.automations.discard(a)
        elif a and a not in self.deleted:
            self.automations.add(a)
        if change.kind == "run_changed" and change.run_id:
            state = change.data.get("state", "")
            if state or change.run_id not in self.runs:  # a transcript change keeps the state
                self.runs[change.run_id] = state
            if state == "awaiting_input" or "decision" in change.data:
                self.parked = True
        elif change.kind == "attention_raised":
            self.attention = True
        elif change.kind == "settings_changed":
            self.settings = True
        elif change.kind == "engine_state":
            self.engine_state = change.data.get("state")


_last_epoch_ms = 0


def new_epoch() -> str:
    """The start's wall-clock milliseconds in fixed-width hex, so epochs sort by start (one
    process never repeats a millisecond), then a random part, so engines in two processes
    started in the same millisecond still differ."""
    global _last_epoch_ms
    _last_epoch_ms = max(time.time_ns() // 1_000_000, _last_epoch_ms + 1)
    return f"{_last_epoch_ms:011x}{secrets.token_hex(2)}"


class Notices:
    def __init__(self, *, window: float = WINDOW) -> None:
        self.epoch = new_epoch()
        self.revision = 0
        self.window = window
        self._listeners: list[Listener] = []
        self._taps: list[Tap] = []
        self._pending: _Pending | None = None
        self._timer: asyncio.TimerHandle | None = None

    def stamp(self) -> Stamp:
        """The state every change published so far is part of."""
        return Stamp(self.epoch, self.revision)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def tap(self, listener: Tap) -> Callable[[], None]:
        """Every change as it is published (instrumentation, benchmarks)."""
        self._taps.append(listener)
        return lambda: self._taps.remove(listener) if listener in self._taps else None

    def publish(self, kind: ChangeKind, *, automation_id: str | None = None,
                run_id: str | None = None, data: dict[str, Any] | None = None) -> None:
        change = Change(kind, automation_id, run_id, data or {})
        self.revision += 1  # the change is committed: a snapshot read from now includes it
        for tap in list(self._taps):
            _call(tap, change)
        if self._pending is None:
            self._pending = _Pending()
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None and self.window > 0 and kind != "engine_state":
                self._timer = loop.call_later(self.window, self.flush)
            elif loop is not None:
                loop.call_soon(self.flush)
        self._pending.fold(change)
        if kind == "engine_state" and change.data.get("state") == "stopped":
            self.flush()  # the last word of an engine goes out before it is gone

    def flush(self) -> Notice | None:
        """Send what is pending now (a test, or a shutdown, need not wait for the window)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        notice = Notice(epoch=self.epoch, revision=self.revision,
                        automations=frozenset(pending.automations),
                        deleted=frozenset(pending.deleted), run_states=dict(pending.runs),
                        attention=pending.attention,
                        parked=pending.parked, settings=pending.settings,
                        engine_state=pending.engine_state, changes=pending.changes)
        for listener in list(self._listeners):
            _call(listener, notice)
        return notice


def _call(listener: Callable[[Any], None], item: Any) -> None:
    try:
        listener(item)
    except Exception:  # one faulty view must not stop the engine
        log.exception("a change listener failed")
