"""When a trigger fires: one place for the maths the engine, the CLI preview and the UI share.

Every function is pure (no clock reads, no I/O), so the same inputs always give the same
fires. ``after`` loops depend on when the previous run finished; without that knowledge
(a preview) runs are assumed to take no time.
"""

from __future__ import annotations

import hashlib
import heapq
from datetime import date, datetime, time, timedelta
from typing import Iterator

from .cron import ordinal
from .definition import (WORKDAY, AfterTrigger, AtTrigger, CronTrigger, EveryTrigger,
                         ManualTrigger, MonthlyTrigger, Trigger)
from .event_triggers import (AutomationTrigger, FolderTrigger, MailTrigger, TriggerSet,
                             WebhookTrigger)
from .timeutil import LATEST, UTC, format_duration, format_instant, zone

_MICRO = timedelta(microseconds=1)


def _grid_index_after(start: datetime, step: timedelta, after: datetime) -> int:
    """The smallest k ≥ 0 with start + k·step strictly after ``after`` (integer maths, no drift)."""
    if after < start:
        return 0
    return (after - start) // step + 1


def wall_clock(day_value: date, at: time, tz_name: str) -> datetime:
    """The instant of a local wall time: a time in a spring-forward gap moves on by the gap
    (02:30 becomes 03:30), a time that happens twice is its first (earlier) instant."""
    return datetime.combine(day_value, at).replace(tzinfo=zone(tz_name), fold=0).astimezone(UTC)


def _day_grid_next(trigger: EveryTrigger, after: datetime) -> datetime | None:
    """The first fire after ``after`` of a grid in local calendar days (``timezone`` set):
    day ``start + k·N`` at ``start_at``'s local wall time."""
    assert trigger.timezone is not None
    tz = zone(trigger.timezone)
    local_start = trigger.start_at.astimezone(tz)
    step = trigger.every.days
    try:
        elapsed = (after.astimezone(tz).date() - local_start.date()).days
        k = max(0, elapsed // step - 1)     # one step back: a DST shift may cross midnight
        while True:
            fire = wall_clock(local_start.date() + timedelta(days=k * step),
                              local_start.time().replace(tzinfo=None), trigger.timezone)
            if fire > after:
                return fire
            k += 1
    except OverflowError:                   # past the end of the calendar
        return None


def next_fire(trigger: Trigger, after: datetime, last_finished: datetime | None = None
              ) -> datetime | None:
    """The first fire strictly after ``after``; ``None`` when the trigger will not fire again
    (the supported calendar ends at ``LATEST``, and so do its fires)."""
    try:
        fire = _next_fire(trigger, after, last_finished)
    except OverflowError:  # past year 9999
        return None
    return fire if fire is None or fire <= LATEST else None


def _next_fire(trigger: Trigger, after: datetime, last_finished: datetime | None
               ) -> datetime | None:
    if isinstance(trigger, AtTrigger):
        return trigger.at if trigger.at > after else None
    if isinstance(trigger, EveryTrigger) and trigger.timezone:
        return _day_grid_next(trigger, after)
    if isinstance(trigger, EveryTrigger):
        return trigger.start_at + _grid_index_after(trigger.start_at, trigger.every, after) * trigger.every
    if isinstance(trigger, AfterTrigger):
        base = trigger.start_at if last_finished is None else last_finished + trigger.interval
        if base > after:
            return base
        return base + _grid_index_after(base, trigger.interval, after) * trigger.interval
    if isinstance(trigger, CronTrigger):
        return trigger.cron.next_fire(after, zone(trigger.timezone))
    if isinstance(trigger, MonthlyTrigger):
        return _monthly_next(trigger, after)
    if isinstance(trigger, TriggerSet):
        fires = [f for f in (next_fire(m.trigger, after, last_finished)
                             for m in trigger.clock) if f is not None]
        return min(fires) if fires else None
    return None  # manual, and the triggers that fire on events


def firing_members(trigger: Trigger, fire: datetime) -> list[str]:
    """The ids of a set's clock members that fire at ``fire`` (a lone trigger: its kind)."""
    if not isinstance(trigger, TriggerSet):
        return [trigger.kind]
    return [m.id for m in trigger.clock if next_fire(m.trigger, fire - _MICRO) == fire]


def monthly_start(fields: dict[str, object], hour: int, minute: int, tz_name: str,
                  now: datetime) -> str:
    """The month ("YYYY-MM") a new ``monthly`` grid starts in: the first from ``now`` in
    which its day is still ahead, so "every 3 months on the 5th" first runs on the coming
    5th. (``fields``: ``day``, or ``weekday`` and ``nth``.)"""
    local = now.astimezone(zone(tz_name))
    probe = MonthlyTrigger(hour, minute, tz_name, local.year * 12 + local.month - 1, 1,
                           **fields)  # type: ignore[arg-type]
    first = next_fire(probe, now)
    month = first.astimezone(zone(tz_name)) if first is not None else local
    return f"{month.year:04d}-{month.month:02d}"


_MONTHS_AHEAD = 1200  # a day that exists this rarely (29 February every 7 years) still fires


def _monthly_next(trigger: MonthlyTrigger, after: datetime) -> datetime | None:
    """The first fire after ``after``: months ``start + k·every`` from the month ``after``
    falls in locally (a fire lies inside its local month, so none before it can be later)."""
    local = after.astimezone(zone(trigger.timezone))
    elapsed = local.year * 12 + local.month - 1 - trigger.start
    k = max(0, elapsed // trigger.every)
    at = time(trigger.at_hour, trigger.at_minute)
    for _ in range(_MONTHS_AHEAD):
        year, month = divmod(trigger.start + k * trigger.every, 12)
        if year > LATEST.year:
            return None
        day = trigger.day_in(year, month + 1)
        if day is not None:
            fire = wall_clock(date(year, month + 1, day), at, trigger.timezone)
            if fire > after:
                return fire
        k += 1
    return None


def iter_fires(trigger: Trigger, after: datetime) -> Iterator[datetime]:
    """Fires strictly after ``after``, ascending (an ``after`` loop as if runs took no time)."""
    if isinstance(trigger, CronTrigger):
        yield from trigger.cron.fires(after, zone(trigger.timezone))
        return
    if isinstance(trigger, TriggerSet):
        last = None
        for fire in heapq.merge(*(iter_fires(m.trigger, after) for m in trigger.clock)):
            if fire != last:
                yield fire
            last = fire
        return
    current = next_fire(trigger, after)
    while current is not None:
        yield current
        current = next_fire(trigger, current)


def next_fires(trigger: Trigger, after: datetime, count: int) -> list[datetime]:
    out: list[datetime] = []
    for fire in iter_fires(trigger, after):
        if len(out) >= count:
            break
        out.append(fire)
    return out


def fires_between(trigger: Trigger, start: datetime, end: datetime) -> list[datetime]:
    """Every fire with start < fire ≤ end: what the engine accounts for after a gap."""
    if isinstance(trigger, CronTrigger):
        return trigger.cron.fires_between(start, end, zone(trigger.timezone))
    if isinstance(trigger, TriggerSet):
        return sorted(set().union(*(fires_between(m.trigger, start, end)
                                    for m in trigger.clock)))
    out: list[datetime] = []
    for fire in iter_fires(trigger, start):
        if fire > end:
            break
        out.append(fire)
    return out


def jitter_offset(automation_id: str, jitter: timedelta | None) -> timedelta:
    """A stable offset in [0, jitter) per automation, so fires due at :00 spread out."""
    if not jitter:
        return timedelta(0)
    digest = hashlib.sha256(automation_id.encode()).digest()
    fraction = int.from_bytes(digest[:8], "big") / 2**64
    return timedelta(seconds=int(fraction * jitter.total_seconds()))


def describe(trigger: Trigger) -> str:
    """A sentence a person reads in a list: "Every weekday at 09:30 (Europe/Berlin)"."""
    if isinstance(trigger, ManualTrigger):
        return "Only when run by hand"
    if isinstance(trigger, AtTrigger):
        return f"Once at {format_instant(trigger.at)}"
    if isinstance(trigger, EveryTrigger) and trigger.timezone:
        local = trigger.start_at.astimezone(zone(trigger.timezone))
        days = trigger.every.days
        every = "Every day" if days == 1 else f"Every {days} days"
        return f"{every} at {local:%H:%M} ({trigger.timezone}), from {local:%A} {local:%Y-%m-%d}"
    if isinstance(trigger, EveryTrigger):
        return f"Every {_words(trigger.every)} from {format_instant(trigger.start_at)}"
    if isinstance(trigger, AfterTrigger):
        return (f"Again {_words(trigger.interval)} after each run finishes, first at "
                f"{format_instant(trigger.start_at)}")
    if isinstance(trigger, MonthlyTrigger):
        return _monthly_words(trigger)
    if isinstance(trigger, FolderTrigger):
        globs = f" ({', '.join(trigger.include)})" if trigger.include else ""
        what = {("created",): "When a file is added to", ("created", "moved"):
                "When a file is added to", ("deleted",): "When a file is removed from"}.get(
            trigger.changes, "When a file changes in")
        return f"{what} {trigger.path}{globs}"
    if isinstance(trigger, WebhookTrigger):
        return "When its web address is called"
    if isinstance(trigger, MailTrigger):
        filters = [f"from {trigger.sender}"] if trigger.sender else []
        filters += [f"subject contains {trigger.subject!r}"] if trigger.subject else []
        more = f" ({', '.join(filters)})" if filters else ""
        return f"When mail arrives in {trigger.account}/{trigger.folder}{more}"
    if isinstance(trigger, AutomationTrigger):
        states = " or ".join(trigger.states)
        return f"When automation {trigger.automation} ends {states}"
    if isinstance(trigger, TriggerSet):
        parts = [describe(m.trigger) for m in trigger.members]
        return "; ".join(parts[:1] + [p[:1].lower() + p[1:] for p in parts[1:]])
    assert isinstance(trigger, CronTrigger)
    return trigger.cron.describe(trigger.timezone)


_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")
_DAY_NAMES = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday",
              "fri": "Friday", "sat": "Saturday", "sun": "Sunday", WORKDAY: "working day"}


def monthly_day_words(trigger: MonthlyTrigger) -> str:
    """"the last day", "the 2nd-to-last working day", "the 1st Monday", "the 15th"."""
    if trigger.day is not None:
        n, what = trigger.day, "day"
        if n > 0:
            return f"the {ordinal(n)}"
    else:
        n, what = trigger.nth or 1, _DAY_NAMES[trigger.weekday or "mon"]
        if n > 0:
            return f"the {ordinal(n)} {what}"
    return f"the last {what}" if n == -1 else f"the {ordinal(-n)}-to-last {what}"


def _monthly_words(trigger: MonthlyTrigger) -> str:
    """"Every month on the last day at 18:00 (Europe/Berlin)", "Every 3 months on the 5th
    at 09:00 (Europe/Berlin), from December 2026", "Every 2 years on the 3rd of March …"."""
    what = monthly_day_words(trigger)
    at = f"{trigger.at_hour:02d}:{trigger.at_minute:02d} ({trigger.timezone})"
    year, month = divmod(trigger.start, 12)
    if trigger.every % 12 == 0:
        years = trigger.every // 12
        head = "Every year" if years == 1 else f"Every {years} years"
        tail = f", from {year}" if years > 1 else ""
        return f"{head} on {what} of {_MONTH_NAMES[month]} at {at}{tail}"
    if trigger.every == 1:
        return f"Every month on {what} at {at}"
    return (f"Every {trigger.every} months on {what} at {at}, from {_MONTH_NAMES[month]} "
            f"{year}")


def _words(value: timedelta) -> str:
    text = format_duration(value)
    number, unit = int(text[:-1]), text[-1]
    name = {"s": "second", "m": "minute", "h": "hour", "d": "day"}[unit]
    if number == 1:
        return name
    return f"{number} {name}s"
