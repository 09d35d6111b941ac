"""Deciding what to do with the fires of one automation that have come due.

Pure: given the trigger, the persisted cursor (the earliest fire not yet accounted for),
the time and the policies, it returns a plan. The engine applies the plan in the same
transaction that claims the run, so a crash or a second engine never replays it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from .definition import AfterTrigger, AtTrigger, Definition, EveryTrigger, Trigger
from .schedule import fires_between, next_fire

_TICK = timedelta(microseconds=1)


class Window(NamedTuple):
    """The due fires in [cursor, horizon]: how many, the first, the last, and the one before.
    (Tuples, not frozen dataclasses: a burst builds a thousand of them before it commits.)"""

    count: int
    first: datetime
    last: datetime
    before_last: datetime | None


def due_window(trigger: Trigger, cursor: datetime, horizon: datetime) -> Window | None:
    if cursor > horizon:
        return None
    if isinstance(trigger, (AtTrigger, AfterTrigger)):
        return Window(1, cursor, cursor, None)
    if isinstance(trigger, EveryTrigger) and not trigger.timezone:   # a UTC grid: pure maths
        k_first = max(0, -((trigger.start_at - cursor) // trigger.every))  # ceil
        first = trigger.start_at + k_first * trigger.every
        if first > horizon:
            return None
        k_last = (horizon - trigger.start_at) // trigger.every
        last = trigger.start_at + k_last * trigger.every
        count = k_last - k_first + 1
        return Window(count, first, last, last - trigger.every if count > 1 else None)
    fires = fires_between(trigger, cursor - _TICK, horizon)
    if not fires:
        return None
    return Window(len(fires), fires[0], fires[-1], fires[-2] if len(fires) > 1 else None)


class Plan(NamedTuple):
    """What to record. ``run_at`` is the fire that runs (None: nothing runs)."""

    run_at: datetime | None
    catch_up: bool
    skipped_count: int
    skipped_first: datetime | None
    skipped_last: datetime | None
    skip_reason: str | None
    window: Window


def plan_fires(definition: Definition, window: Window, now: datetime, jitter: timedelta,
               grace: timedelta, missed_reason: str) -> Plan:
    """Apply the grace window and the misfire policy to a window of due fires.

    The latest fire runs normally when it is at most ``grace`` late; everything older is
    missed. With ``run_once`` and no on-time fire, the latest runs once as a catch-up if it
    is younger than ``catch_up_max_age``; otherwise the fires are skipped.
    """
    lateness = now - (window.last + jitter)
    if lateness <= grace:
        earlier = window.count - 1
        return Plan(window.last, False, earlier, window.first if earlier else None,
                    window.before_last if earlier else None,
                    missed_reason if earlier else None, window)
    if definition.misfire == "run_once":
        if now - window.last <= definition.catch_up_max_age:
            return Plan(window.last, True, 0, None, None, None, window)
        return Plan(None, False, window.count, window.first, window.last, "past_catch_up_age",
                    window)
    return Plan(None, False, window.count, window.first, window.last, missed_reason, window)


def cursor_after(definition: Definition, horizon: datetime) -> datetime | None:
    """The next cursor once every fire up to ``horizon`` is accounted for.

    One-shots are consumed; an ``after`` loop has no next fire until its run finishes
    (the engine sets it then).
    """
    trigger = definition.trigger
    if isinstance(trigger, (AtTrigger, AfterTrigger)):
        return None
    nxt = next_fire(trigger, horizon)
    until = definition.stop.until
    if nxt is not None and until is not None and nxt >= until:
        return None
    return nxt
