"""Another automation's end as an event: recorded in the transaction that closes the run
(``pending_events``), so it is neither lost to a crash after the commit nor seen twice;
the engine then offers it (``engine/sources.py``) and its admission deletes the row."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ..db.schema import PendingEventRow, RunRow
from ..records import bounded

# upstream automation id -> (follower id, trigger id, the run ends it follows)
Followers = Callable[[str], list[tuple[str, str, tuple[str, ...]]]]
PAYLOAD_RESULT_CHARS = 16_000


def no_followers(automation_id: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return []


def cause_of(run: RunRow) -> tuple[int, list[str]]:
    """How many runs caused ``run`` (0: a clock or a person), and their automations."""
    details = run.details if isinstance(run.details, dict) else {}
    event = details.get("event") if isinstance(details.get("event"), dict) else {}
    depth = event.get("depth") if isinstance(event.get("depth"), int) else 0
    chain = event.get("chain") if isinstance(event.get("chain"), list) else []
    return depth, [str(c) for c in chain]


def follow_in(s: Session, run: RunRow, title: str, followers: Followers,
              now: datetime) -> int:
    """Record the end of ``run`` for each automation that follows its automation in that
    state; how many were recorded."""
    if run.dry_run:
        return 0
    wanted = list({f: (f, t) for f, t, states in reversed(followers(run.automation_id))
                   if run.state in states}.values())  # (one event per follower: its first)
    if not wanted:
        return 0
    depth, chain = cause_of(run)
    payload: dict[str, Any] = {
        "automation": {"id": run.automation_id, "title": title},
        "run": {"id": run.id, "index": run.index, "state": run.state,
                "result": bounded(run.result, PAYLOAD_RESULT_CHARS),
                "error": ({"code": run.error_code, "message": run.error_message}
                          if run.error_code else None)}}
    values = [{"automation_id": follower, "trigger_id": trigger_id, "kind": "automation",
               "source": "automation", "key": run.id, "at": now, "payload": payload,
               "depth": depth + 1, "chain": chain + [run.automation_id]}
              for follower, trigger_id in wanted]
    s.add_all([PendingEventRow(**v) for v in values])  # (a run closes once: no repeat)
    return len(values)
