"""Engine events: what changed, stamped with a revision that only grows.

A client (the Qt adapter, the control channel, a test) subscribes once and decides for
itself what to refresh; the revision lets it ignore a snapshot older than one it has.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

log = logging.getLogger(__name__)

EventKind = Literal["automation_changed", "automation_deleted", "run_changed",
                    "attention_raised", "engine_state"]


@dataclass(frozen=True)
class Event:
    kind: EventKind
    revision: int
    automation_id: str | None = None
    run_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "revision": self.revision, "automation_id": self.automation_id,
                "run_id": self.run_id, "data": self.data}


Listener = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._revision = itertools.count(1)
        self.last_revision = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def publish(self, kind: EventKind, *, automation_id: str | None = None,
                run_id: str | None = None, data: dict[str, Any] | None = None) -> Event:
        self.last_revision = next(self._revision)
        event = Event(kind, self.last_revision, automation_id, run_id, data or {})
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # one faulty view must not stop the engine
                log.exception("event listener failed for %s", kind)
        return event
