"""The end of a run as rows: the run's final row, then what that end means for its
automation (:mod:`.accounting`), in the caller's transaction; and the two ways the engine
changes an automation's status on its own (complete, pause)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..db.schema import AutomationRow, RunRow
from ..definition import AtTrigger, Definition
from ..fires import due_window
from ..records import ACTIVE_STATES, Automation, bounded
from ..runners.contract import Outcome
from ..schedule import jitter_offset
from ..store import Store, automation_record
from ..timeutil import UTC, format_instant
from .accounting import Counters, Ended, account

OUTPUT_TAIL = 64 * 1024
WAITING = "waiting_for"  # the key in a queued run's details while it waits for its folder


@dataclass(frozen=True)
class Closed:
    """A run's close, committed: its automation, the attention kinds it raised, and the
    automation as it now is (None: deleted meanwhile)."""

    automation_id: str
    raised: tuple[str, ...]
    automation: Automation | None
    followed: int = 0   # events recorded for the automations that follow this one

def slot_key(instant: datetime) -> str:
    """The unique key of a scheduled fire's run (one claim per automation and slot)."""
    return _utc_slot_key(instant.astimezone(UTC))  # a cache key never blind to ``fold``


@functools.lru_cache(maxsize=4096)  # a burst shares its instants
def _utc_slot_key(instant: datetime) -> str:
    return f"sched:{format_instant(instant)}"


def tail(text: str | None) -> str | None:
    if text is None or len(text) <= OUTPUT_TAIL:
        return text
    return text[-OUTPUT_TAIL:]


def attempt_open(attempts: Any) -> bool:
    """Whether the stored attempts end with one not closed yet (stored text that is not a
    list of attempts, a damaged row, has none to close)."""
    return (isinstance(attempts, list) and bool(attempts) and isinstance(attempts[-1], dict)
            and "finished_at" not in attempts[-1])


def close_attempt(attempts: list[dict[str, Any]] | None, now: datetime, state: str,
                  outcome: Outcome | None) -> list[dict[str, Any]]:
    items = [dict(a) for a in (attempts or [])]
    if not items:
        return items
    items[-1]["finished_at"] = format_instant(now)
    items[-1]["state"] = state
    if outcome is not None and outcome.error_code:
        items[-1]["error"] = {"code": outcome.error_code, "message": outcome.error_message}
    return items


def close_in(store: Store, s: Session, run_id: str, state: str, outcome: Outcome,
             now: datetime, only_from: str | None, unattended_expiry: timedelta
             ) -> Closed | None:
    """The run's final row and its automation's accounting. None when the run is gone or
    already final (never closed twice), or not in ``only_from`` when that is given."""
    row = s.get(RunRow, run_id)
    if row is None or row.state not in ACTIVE_STATES or (
            only_from is not None and row.state != only_from):
        return None
    if row.state == "awaiting_input":  # nobody needs to answer it any more
        store.read_attention_in(s, run_id=run_id, kind="awaiting_input")
    row.state = state
    row.stop_reason = outcome.stop_reason or (
        "timeout" if outcome.error_code == "timeout" else state)
    row.finished_at = now
    row.retry_at = None
    row.pid = None
    row.pid_started = None
    row.result = bounded(outcome.result)
    row.error_code = outcome.error_code
    row.error_message = outcome.error_message
    row.output_tail = tail(outcome.output_tail) or row.output_tail
    row.session_id = outcome.session_id or row.session_id
    if outcome.prompt_tokens is not None:
        row.prompt_tokens = outcome.prompt_tokens
        row.completion_tokens = outcome.completion_tokens
    if isinstance(row.details, dict) and WAITING in row.details:  # it waits no more
        row.details = {k: v for k, v in row.details.items() if k != WAITING} or None
    if outcome.details:
        row.details = {**(row.details if isinstance(row.details, dict) else {}),
                       **outcome.details}
    if attempt_open(row.attempts):
        row.attempts = close_attempt(row.attempts, now, state, outcome)
    a = s.get(AutomationRow, row.automation_id)
    if a is None:
        return Closed(row.automation_id, (), None)
    if outcome.script_state and not row.dry_run:  # applied with the run's record, or not at all
        store.change_script_state_in(s, a.id, outcome.script_state, now)
    raised = _account_in(store, s, a, row, outcome, now, unattended_expiry)
    return Closed(row.automation_id, tuple(raised), automation_record(a))


def _account_in(store: Store, s: Session, a: AutomationRow, run: RunRow, outcome: Outcome,
                now: datetime, unattended_expiry: timedelta) -> list[str]:
    """Apply what the run's end means for its automation (see ``accounting``)."""
    d = automation_record(a).definition
    if run.dry_run:  # recorded, never counted
        return []
    a.last_finished_at = now
    if d is None:  # broken: a repair arms it afresh
        return []
    # only an expiry can make an automation unattended (any other end breaks the streak)
    since = (store.unanswered_since_in(s, a.id)
             if run.state == "expired" and a.status == "active" else None)
    v = account(d, Counters(a.status, a.run_count, a.failure_streak, a.last_result,
                            a.next_fire_at, a.counted_runs or 0, since),
                Ended(run.state, run.trigger, run.result,
                      f"{run.error_code}: {run.error_message}" if run.error_code else None,
                      tuple(outcome.notify), outcome.condition_met), now,
                unattended_expiry=unattended_expiry)
    a.run_count, a.failure_streak, a.last_result = v.run_count, v.failure_streak, v.last_result
    a.counted_runs = v.counted_runs
    a.next_fire_at = v.next_fire_at
    if v.pause:
        pause_in(store, s, a, d, v.pause, now)
    if v.complete:
        complete_in(store, s, a, now, v.complete)
    for kind, title, body in v.attention:
        store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                               automation_id=a.id, run_id=run.id)
    return [kind for kind, _, _ in v.attention]


def complete_in(store: Store, s: Session, a: AutomationRow, now: datetime, why: str) -> None:
    a.status = "completed"
    a.next_fire_at = None
    a.updated_at = now
    store.audit_in(s, a.id, "completed", a.revision, "engine", now, {"reason": why})


def pause_in(store: Store, s: Session, a: AutomationRow, d: Definition, why: str,
             now: datetime) -> None:
    """The engine pauses an automation on its own (a failure streak, nobody answering its
    parked runs): a revision by ``engine`` that says why, until a person resumes it."""
    store.revise_in(s, a, replace(d, paused=True), now=now, actor="engine",
                    action="paused", detail={"reason": why})
    a.status, a.paused_reason, a.paused_at = "paused", why, now
    a.next_fire_at = None


def skip_missed_in(store: Store, s: Session, a: AutomationRow, d: Definition,
                   now: datetime) -> str | None:
    """The fires an automation paused at start missed while Errands was closed, as the
    timer would have recorded them had it admitted them: one skipped record
    (``app_not_running``), none caught up. Why it is over when that was its last fire
    (a one-shot's, or its ``until`` passed), else None."""
    if a.next_fire_at is None:
        return None
    horizon = now - jitter_offset(a.id, d.policy.jitter)
    until = d.stop.until
    window = due_window(d.trigger, a.next_fire_at,
                        min(horizon, until - timedelta(microseconds=1)) if until else horizon)
    if window is not None:
        try:
            with s.begin_nested():  # (a slot recorded before is not recorded twice)
                store.insert_run_in(
                    s, a, slot=slot_key(window.last), trigger="schedule",
                    state="skipped", now=now, scheduled_for=window.last,
                    skip_reason="app_not_running", missed_count=window.count,
                    missed_first=window.first, missed_last=window.last, finished_at=now)
        except IntegrityError:
            pass
    if until is not None and now >= until:
        return "reached its end time"
    if window is not None and isinstance(d.trigger, AtTrigger):
        return "no further fires"
    return None
