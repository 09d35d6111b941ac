"""Upcoming fires across every automation over a window, complete and compact.

The Upcoming view asks for a week over thousands of automations: hundreds of thousands of
fires. Each fire is kept as one integer (``microseconds since the epoch * width + the
automation's index``), so the whole window sorts in C and a view decodes only the rows it
paints. An ``every`` grid is one ``range``; other triggers walk their own schedule. Nothing
here imports Qt or touches the database: the caller hands in the automations.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Iterable, Iterator, NamedTuple

from .definition import EveryTrigger
from .records import Automation
from .schedule import fires_between

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_MINUTE_US = 60_000_000
LIMIT = 400_000   # fires one forecast holds at most; past it the window is shortened, and says so


def _us(when: datetime) -> int:
    return (when - EPOCH) // _US


class Fire(NamedTuple):
    at: datetime
    automation_id: str
    title: str


class Minute(NamedTuple):
    """The fires of one minute: ``count`` of them from row ``first`` of the forecast."""
    at: datetime
    count: int
    first: int


@dataclass(frozen=True, eq=False)
class Forecast:
    """Every automatic fire in ``(after, until]``, in time order. ``asked_until`` is the end
    the caller asked for; ``until`` is earlier only when the window held more than
    ``LIMIT`` fires (``shortened``): then the list is complete up to ``until``."""

    after: datetime
    until: datetime
    asked_until: datetime
    ids: list[str]
    titles: list[str]
    keys: list[int] = field(repr=False)
    minutes: list[Minute] = field(repr=False)
    automations: int              # how many automations have a fire in the window

    @property
    def shortened(self) -> bool:
        return self.until < self.asked_until

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, row: int) -> Fire:
        us, owner = divmod(self.keys[row], max(1, len(self.ids)))
        return Fire(EPOCH + timedelta(microseconds=us), self.ids[owner], self.titles[owner])

    def __iter__(self) -> Iterator[Fire]:
        return (self[row] for row in range(len(self.keys)))

    def minute_of(self, row: int) -> Minute:
        """The minute the fire on ``row`` belongs to."""
        return self.minutes[bisect.bisect_right(self.minutes, row, key=_first) - 1]


def _first(minute: Minute) -> int:
    return minute.first


def _minutes(keys: list[int], width: int) -> list[Minute]:
    """The minutes with fires, ascending: what a timeline draws."""
    per_minute = width * _MINUTE_US
    out: list[Minute] = []
    current, first = -1, 0
    for row, key in enumerate(keys):
        minute = key // per_minute
        if minute != current:
            if current >= 0:
                out.append(Minute(_minute_at(current), row - first, first))
            current, first = minute, row
    if current >= 0:
        out.append(Minute(_minute_at(current), len(keys) - first, first))
    return out


def _minute_at(minute: int) -> datetime:
    return EPOCH + timedelta(minutes=minute)


class _TooMany(Exception):
    pass


def forecast(automations: Iterable[Automation], after: datetime, until: datetime,
             limit: int = LIMIT) -> Forecast:
    """Every fire of the active automations in ``(after, until]``. Past ``limit`` fires
    the window is halved until it fits (a week of minutely crons), so what is listed is
    always complete up to the forecast's ``until``."""
    candidates = [a for a in automations
                  if a.definition is not None and a.status == "active"
                  and a.next_fire_at is not None and a.next_fire_at <= until]
    end = until
    while True:
        try:
            return _forecast(candidates, after, end, until, limit)
        except _TooMany:
            end = after + (end - after) / 2


def _forecast(candidates: list[Automation], after: datetime, until: datetime,
              asked_until: datetime, limit: int) -> Forecast:
    width = max(1, len(candidates))
    keys: list[int] = []
    ids = [a.id for a in candidates]
    titles = [a.title for a in candidates]
    owners = 0
    for index, a in enumerate(candidates):
        before = len(keys)
        _fires_of(a, index, width, after, until, keys)
        if len(keys) > before:
            owners += 1
        if len(keys) > limit:
            raise _TooMany
    keys.sort()
    return Forecast(after, until, asked_until, ids, titles, keys, _minutes(keys, width), owners)


def _fires_of(a: Automation, index: int, width: int, after: datetime, until: datetime,
              keys: list[int]) -> None:
    """Append the keys of ``a``'s fires in ``(after, until]``: its stored next fire, then its
    schedule from there, within its stop conditions."""
    d = a.definition
    assert d is not None and a.next_fire_at is not None
    left = None if d.stop.max_runs is None else max(0, d.stop.max_runs - a.counted_runs)
    if left == 0:
        return
    end = until
    if d.stop.until is not None and d.stop.until <= end:   # (a fire at stop.until is not made)
        end = d.stop.until - _US
    first = a.next_fire_at
    if first > end:
        return
    trigger = d.trigger
    if isinstance(trigger, EveryTrigger) and not trigger.timezone:
        step = trigger.every // _US
        low, high = _us(first), _us(end)
        skip = 0 if first > after else (_us(after) - low) // step + 1
        start = low + skip * step
        if left is not None:
            left -= skip
            if left <= 0:
                return
            high = min(high, start + (left - 1) * step)
        if start <= high:
            keys.extend(range(start * width + index, high * width + index + 1, step * width))
        return
    instants = [first, *fires_between(trigger, first, end)]
    if left is not None:
        del instants[left:]
    keys.extend(_us(t) * width + index for t in instants if t > after)
