"""What a run's end means for its automation: counters, streaks, attention, stop rules, the
next fire of an ``after`` loop, and the pause of an automation nobody attends to.

Pure, like :mod:`errands.fires`: given the definition, the automation's counters and
the run's facts, it returns a :class:`Verdict`; the engine applies it in the transaction that
records the run's end, whatever ended the run (success, failure, stop, expiry, a crash).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..definition import AfterTrigger, AtTrigger, Definition
from ..event_triggers import waits_for_events
from ..records import COUNTED_STATES
from ..timeutil import format_duration


CLOCK_TRIGGERS = ("schedule", "catch_up")


@dataclass(frozen=True)
class Counters:
    """The automation as the run found it."""

    status: str
    run_count: int
    failure_streak: int
    last_result: str | None
    next_fire_at: datetime | None
    counted_runs: int = 0   # toward stop.max_runs: finished runs not run by hand
    # when the oldest park of its current unanswered streak was asked (this run's included;
    # see ``Store.unanswered_since_in``), or None when there is none
    unanswered_since: datetime | None = None


@dataclass(frozen=True)
class Ended:
    """The run as it ended."""

    state: str
    trigger: str                # schedule, catch_up or manual
    result: str | None
    error: str | None           # "code: message", for the attention item
    notes: tuple[str, ...] = ()  # what the run asked to be told (``errands: notify``)
    condition_met: bool = False


@dataclass
class Verdict:
    run_count: int
    failure_streak: int
    last_result: str | None
    next_fire_at: datetime | None
    counted_runs: int = 0
    attention: list[tuple[str, str, str | None]] = field(default_factory=list)  # kind, title, body
    pause: str | None = None      # why it pauses itself
    complete: str | None = None   # why it is completed


SCRIPT_PAUSE_AFTER = 5   # failed runs in a row that pause a script automation


def unattended(d: Definition, since: datetime | None, now: datetime,
               expiry: timedelta | None) -> tuple[str, tuple[str, str, str | None]] | None:
    """Whether an automation whose parked runs have gone unanswered since ``since`` pauses
    itself now (the setting ``unattended_expiry`` is ``expiry``): why, and its one attention
    item. The engine asks when a parked run expires and at start."""
    if since is None or expiry is None or now - since < expiry:
        return None
    why = f"paused after its parked runs went unanswered for {format_duration(expiry)}"
    return why, ("unattended", f"{d.title} was paused", why)


def account(d: Definition, before: Counters, run: Ended, now: datetime, *,
            unattended_expiry: timedelta | None = None) -> Verdict:
    v = Verdict(before.run_count, before.failure_streak, before.last_result, before.next_fire_at,
                before.counted_runs)
    for text in run.notes:
        v.attention.append(("notify", d.title, text))
    counted = run.state in COUNTED_STATES
    if counted:
        v.run_count += 1
        if run.trigger != "manual":  # a run by hand is outside the schedule's count
            v.counted_runs += 1
    if run.state == "expired":
        v.attention.append(("expired", f"{d.title}: a parked run expired", run.error))
    status = before.status
    if run.state == "failed":
        v.failure_streak += 1
        v.attention.append(("failure", f"{d.title} failed", run.error))
        if v.failure_streak == d.policy.failure_notify_after:
            v.attention.append(("failure_streak",
                                f"{d.title} failed {v.failure_streak} times in a row", None))
        limit = d.policy.pause_after_failures
        if d.runner.kind == "script":  # seed 003: a quietly broken script stops itself
            limit = min(limit or SCRIPT_PAUSE_AFTER, SCRIPT_PAUSE_AFTER)
        if limit is not None and v.failure_streak >= limit and status == "active":
            v.pause = f"paused after {v.failure_streak} consecutive failures"
            v.attention.append(("auto_paused", f"{d.title} was paused", v.pause))
            v.next_fire_at = None
            status = "paused"
    elif run.state == "succeeded":
        v.failure_streak = 0
    pause = (unattended(d, before.unanswered_since, now, unattended_expiry)
             if run.state == "expired" and status == "active" else None)
    if pause is not None:  # one item for the pause; each expiry has had its own
        v.pause, item = pause
        v.attention.append(item)
        v.next_fire_at = None
        status = "paused"
    if counted:
        if (d.policy.notify == "every_run" or (d.policy.notify == "on_change"
                                                and run.result != before.last_result)) \
                and run.result not in run.notes:   # (a reminder's note is its result)
            v.attention.append(("result", d.title, run.result))
        v.last_result = run.result
    if status != "active":
        return v
    automatic = run.trigger in CLOCK_TRIGGERS  # (a run by hand or by an event moves no clock)
    trigger = d.trigger
    if d.stop.max_runs is not None and v.counted_runs >= d.stop.max_runs:
        v.complete = f"reached {d.stop.max_runs} runs"
    elif d.stop.when_condition_met and run.condition_met and counted:
        v.complete = "its condition was met"
    elif d.stop.until is not None and now >= d.stop.until:
        v.complete = "reached its end time"
    elif isinstance(trigger, AtTrigger) and automatic:
        v.complete = "one-shot fired"
    elif isinstance(trigger, AfterTrigger) and (automatic or v.next_fire_at is None):
        # the loop waits its interval after a run that ended; one cut off by a crash or a
        # quit goes on at once
        v.next_fire_at = now if run.state == "interrupted" else now + trigger.interval
        if d.stop.until is not None and v.next_fire_at >= d.stop.until:
            v.complete = "reached its end time"
    elif v.next_fire_at is None and not isinstance(trigger, AtTrigger) \
            and trigger.kind != "manual" and not waits_for_events(trigger):
        v.complete = "no further fires"
    if v.complete:
        v.next_fire_at = None
    return v
