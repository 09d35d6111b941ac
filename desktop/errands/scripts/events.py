"""The ``event`` a script run is handed: ``type``, ``at``, ``id``, ``trigger``, ``payload``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..timeutil import format_instant

TYPES = {"at": "schedule.tick", "every": "schedule.tick", "cron": "schedule.tick",
         "monthly": "schedule.tick", "after": "schedule.tick", "folder": "folder.changed",
         "webhook": "webhook.received", "mail": "mail.received",
         "automation": "automation.finished", "script": "automation.requested",
         "manual": "manual"}


def event_of(run_id: str, at: datetime, fired: dict[str, Any] | None, payload: Any) -> dict[str, Any]:
    """What fired the run, as its script sees it. ``at`` is the run's instant (its slot, or
    when it was started): a script's only clock."""
    fired = fired or {}
    kind = fired.get("kind") or "manual"
    return {"type": TYPES.get(kind, kind), "at": format_instant(at), "id": run_id,
            "trigger": {"id": fired.get("id"), "kind": kind}, "payload": payload}
