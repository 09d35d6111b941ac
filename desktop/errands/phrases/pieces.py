"""What a phrase is made of: amounts, days, dates and clocks, read from matches and checked."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from typing import Callable
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta

from ..errors import InvalidInput
from ..timeutil import UTC
from .numeric import read_numeric
from .vocabulary import (_CLOCK_WORDS, _DOW1, _DOW_ITEM, _DOW_LOOKUP, _DOW_PLURALS, _MONTHS,
    _NUMBER_WORDS, _ORDINAL, _ORDINAL_WORDS, _T_BARE, _T_HALF, _T_OCLOCK, _T_WORD, _UNITS,
    _UNIT_SECONDS)


EXAMPLES = ("every weekday at 9am", "daily at 18:00", "every 15 minutes",
            "tomorrow at 7pm", "in 2 hours", "every 10 minutes after it finishes")
_EXPECTED = "a schedule phrase"
_EXAMPLE = "every weekday at 9am"
_MAX_TEXT = 2000
_TITLE_MAX = 120
_KEEP_DEFAULT = timedelta(minutes=10)
_DEFAULT_CLOCK = {None: (9, 0), "morning": (9, 0), "afternoon": (15, 0),
                  "evening": (18, 0), "night": (21, 0)}
_MINUTE_STEPS = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)
_HOUR_STEPS = (1, 2, 3, 4, 6, 8, 12)
_CRON_DOW = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


# --------------------------------------------------------------------------------------
# Small value types
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Amount:
    """A spoken amount of time; months stay calendar months, the rest are fixed lengths."""

    count: Fraction
    unit: str
    text: str

    def seconds(self) -> int:
        if self.unit == "mo":
            raise _refuse(f"'{self.text}' is a calendar length, not a fixed interval",
                          "a length in seconds, minutes, hours, days or weeks", "every 30 days",
                          (self.text,))
        value = self.count * _UNIT_SECONDS[self.unit]
        if value > 366 * 86400:
            raise _refuse(f"'{self.text}' is longer than 366d", "at most 366 days",
                          "every 30 days", (self.text,))
        if value.denominator != 1:
            raise _refuse(f"'{self.text}' is not a whole number of seconds",
                          "a whole number of seconds or more", "every 90 minutes", (self.text,))
        return int(value)

    def whole(self) -> int | None:
        """The count when it is a whole number (for day, week and month steps)."""
        return int(self.count) if self.count.denominator == 1 else None

    def delta(self) -> timedelta | relativedelta:
        if self.unit == "mo":
            months = self.whole()
            if months is None:
                raise _refuse(f"'{self.text}' is not a whole number of months",
                              "whole months", "for 2 months", (self.text,))
            return relativedelta(months=months)
        return timedelta(seconds=self.seconds())


@dataclass
class _Freq:
    """How often: a fixed interval, or a step of days, weeks, months or years."""

    kind: str                 # "interval" | "days" | "weeks" | "months" | "yearly"
    text: str
    seconds: int = 0
    n: int = 1


@dataclass
class _Days:
    """Weekdays named in the phrase and whether they repeat."""

    days: frozenset[int]
    text: str
    recurring: bool
    mode: str                 # "every" | "on" | "next" | "this" | "bare"


@dataclass
class _Doms:
    days: tuple[int, ...]
    text: str
    recurring: bool


@dataclass
class _MonthDay:
    """A day of the month cron cannot say (the last day, the 2nd Friday, the last working
    day): the fields of a ``monthly`` trigger."""

    text: str
    day: int | None = None
    weekday: str | None = None       # "mon" … "sun" or "workday"
    nth: int | None = None

    def weekday_name(self) -> str:
        names = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday",
                 "fri": "Friday", "sat": "Saturday", "sun": "Sunday"}
        return names.get(self.weekday or "", "weekday")

    def fields(self) -> dict[str, object]:
        if self.day is not None:
            return {"day": self.day}
        return {"weekday": self.weekday, "nth": self.nth}


@dataclass
class _DateSpec:
    """A named day: ``today``, ``tomorrow`` or a calendar date (year may be missing)."""

    kind: str                 # "today" | "tonight" | "tomorrow" | "dayafter" | "date"
    text: str
    year: int | None = None
    month: int = 0
    day: int = 0
    more: tuple[int, ...] = ()   # further days of the same month ("june 1 and 15")


@dataclass
class _Clock:
    """A time of day as typed; the part of the day is applied later."""

    hour: int
    minute: int
    text: str
    meridiem: str | None = None
    bare: bool = False
    word: str | None = None


@dataclass
class _Found:
    """Everything recognised in the phrase, before it is turned into a trigger."""

    manual: bool = False
    keep: bool = False
    loop: _Amount | None = None
    loop_default: bool = False
    condition: bool = False
    max_runs: int | None = None
    max_runs_text: str | None = None
    until: datetime | None = None
    until_text: str | None = None
    freq: _Freq | None = None
    days: _Days | None = None
    doms: _Doms | None = None
    date: _DateSpec | None = None
    relative: _Amount | None = None
    part: str | None = None
    clocks: list[_Clock] = field(default_factory=list)
    minute_past: int | None = None
    minute_text: str | None = None
    window: tuple[_Clock, _Clock, str] | None = None
    start: date | None = None
    start_text: str | None = None
    monthday: _MonthDay | None = None

    def stop_text(self) -> str | None:
        return self.max_runs_text or self.until_text

    def repeats(self) -> bool:
        return bool(self.freq or (self.days and self.days.recurring)
                    or (self.doms and self.doms.recurring))


@dataclass
class _Context:
    tz: ZoneInfo
    tz_name: str
    now: datetime
    order: str | None = None          # numeric dates: "mdy", "dmy" or None (no locale)
    warnings: list[str] = field(default_factory=list)

    @property
    def today(self) -> date:
        return self.now.astimezone(self.tz).date()

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

def _refuse(message: str, expected: str = _EXPECTED, example: str = _EXAMPLE,
            words: tuple[str, ...] = ()) -> InvalidInput:
    """A refusal of the phrase; ``words`` are the phrase's own words it could not use."""
    return InvalidInput("schedule", message, expected, example,
                        words=tuple(w for w in words if w))


def _examples() -> str:
    return "phrases that work: " + ", ".join(f"'{e}'" for e in EXAMPLES)


def _not_understood(text: str) -> InvalidInput:
    return _refuse(f"could not understand the schedule in '{text}'; {_examples()}",
                   words=(text,))


def _conflict(first: str, second: str) -> InvalidInput:
    return _refuse(f"'{first}' and '{second}' cannot be combined in one schedule; "
                   f"{_examples()}", words=(first, second))


# --------------------------------------------------------------------------------------
# Reading numbers, amounts, clocks and dates out of matches
# --------------------------------------------------------------------------------------

def _number(text: str) -> Fraction:
    word = text.lower()
    if word in _NUMBER_WORDS:
        return Fraction(_NUMBER_WORDS[word])
    return Fraction(text)


def _amount(match: re.Match[str], p: str) -> _Amount:
    unit = _UNITS[match.group(f"{p}unit").lower()]
    if match.group(f"{p}half"):
        count = Fraction(1, 2)
    elif match.group(f"{p}quarter"):
        count = Fraction(1, 4)
    elif match.group(f"{p}n"):
        count = _number(match.group(f"{p}n"))
    else:
        count = Fraction(1)
    if match.group(f"{p}andhalf"):
        count += Fraction(1, 2)
    text = match.group(0).strip()
    if count <= 0:
        raise _refuse(f"'{text}' is not a positive length of time",
                      "a positive length of time", "every 15 minutes", (text,))
    return _Amount(count, unit, text)


def _part_of(match: re.Match[str]) -> str | None:
    """The part of the day named by any ``part``-like group of the match."""
    groups = match.groupdict()
    for name in ("part", "p1", "p2", "p3"):
        if groups.get(name):
            return groups[name].strip().lower().rstrip("s")
    return None


def _bad_clock(text: str) -> InvalidInput:
    return _refuse(f"'{text.strip()}' is not a valid time of day",
                   "a time like 9am, 9:30pm, 21:30, noon or midnight", "every day at 9am",
                   (text.strip(),))


def _clock_hour(raw: str) -> int:
    return _CLOCK_WORDS[raw.lower()] if raw.lower() in _CLOCK_WORDS else int(raw)


def _clock_from(match: re.Match[str], pattern: re.Pattern[str]) -> _Clock:
    """A validated clock from one of the time-of-day patterns."""
    text = match.group(0).strip()
    groups = match.groupdict()
    if pattern is _T_WORD:
        word = groups["w"].lower()
        return _Clock(0 if word == "midnight" else 12, 0, text,
                      word="midnight" if word == "midnight" else "noon")
    if pattern is _T_HALF:
        return _half_clock(match, text)
    hour = _clock_hour(groups["h"])
    minute = int(groups.get("m") or 0)
    meridiem = (groups.get("ap") or "").lower() or None
    if minute > 59:
        raise _bad_clock(text)
    if meridiem:
        if not 1 <= hour <= 12:
            raise _bad_clock(text)
        return _Clock(hour, minute, text, meridiem=meridiem)
    if hour > 23:
        raise _bad_clock(text)
    bare = pattern in (_T_BARE, _T_OCLOCK)
    return _Clock(hour, minute, text, bare=bare)


def _half_clock(match: re.Match[str], text: str) -> _Clock:
    """``half past 9``, ``quarter to 10pm``: counted from the named hour."""
    raw = match.group("h").lower()
    word = {"noon": 12, "midnight": 0}.get(raw)
    hour = word if word is not None else _clock_hour(raw)
    meridiem = (match.group("ap") or "").lower() or None
    if hour > 23 or (meridiem and not 1 <= hour <= 12):
        raise _bad_clock(text)
    if meridiem:
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    minutes = 30 if match.group("q").lower() == "half" else 15
    sign = -1 if match.group("rel").lower() in ("to", "before") else 1
    total = (hour * 60 + sign * minutes) % (24 * 60)
    return _Clock(total // 60, total % 60, text, bare=word is None and meridiem is None)


def _minute_from(match: re.Match[str]) -> int:
    groups = match.groupdict()
    if groups["hh"]:
        return 30 if groups["hh"].lower().startswith("half") else 0
    if groups["q"]:
        return 30 if groups["q"].lower() == "half" else 15
    minute = int(groups["m"] or groups["m2"])
    if minute > 59:
        raise _refuse(f"'{match.group(0).strip()}' is not a minute of the hour (0-59)",
                      "minutes past the hour, 0-59", "every hour at :30",
                      (match.group(0).strip(),))
    return minute


def _date_from(match: re.Match[str], ctx: _Context) -> _DateSpec:
    """A calendar date from the ISO, month-name or numeric patterns, checked to exist."""
    groups = match.groupdict()
    text = match.group(0).strip()
    if groups.get("n1"):
        return _numeric_date(match, text, ctx)
    month = _MONTHS[groups["mon"].lower()] if groups.get("mon") else int(groups["mo"])
    day, year = int(groups["d"]), int(groups["y"]) if groups.get("y") else None
    _check_year(year, text)
    more = tuple(int(d) for d in re.findall(r"\d+", groups.get("more") or ""))
    try:
        for value in (day, *more):
            date(year or 2028, month, value)   # 2028 is a leap year: 29 February may exist
    except ValueError:
        raise _refuse(f"'{text}' is not a date", "a real calendar date",
                      "on 24 December at 18:00", (text,)) from None
    return _DateSpec("date", text, year, month, day, more)


def _check_year(year: int | None, text: str) -> None:
    if year is not None and not 1970 <= year <= 9999:
        raise _refuse(f"'{text}' is outside the supported calendar (1970 to 9999)",
                      "a date between 1970 and 9999", "on 24 December at 18:00", (text,))


def _numeric_date(match: re.Match[str], text: str, ctx: _Context) -> _DateSpec:
    """``8/1/2030`` in the locale's order; dotted ``1.8.2030`` is always day first."""
    groups = match.groupdict()
    first = int(groups["n1"])
    second = int(groups["n2"] or groups["n3"])
    raw_year = groups["ny"] or groups["ny2"]
    said = re.sub(r"^(?:on|every|each)\s+", "", text, flags=re.IGNORECASE)
    order = "dmy" if groups["sep"] == "." else ctx.order
    year, month, day, note = read_numeric(said, first, second,
                                          int(raw_year) if raw_year else None, order)
    _check_year(year, said)
    if note:
        ctx.warn(note)
    return _DateSpec("date", text, year, month, day)


def _named_day(which: str, text: str) -> _DateSpec:
    which = re.sub(r"\s+", " ", which.lower())
    kind = {"tmrw": "tomorrow", "tmr": "tomorrow", "day after tomorrow": "dayafter",
            "the day after tomorrow": "dayafter"}.get(which, which)
    return _DateSpec(kind, text)


def _dows_from(text: str) -> tuple[frozenset[int], bool]:
    """The weekdays in a list and whether any is plural ("mondays"); a range such as
    "saturday through tuesday" includes both ends and wraps over the weekend."""
    days: set[int] = set()
    plural = False
    for item in re.finditer(_DOW_ITEM, text, re.IGNORECASE):
        words = [w.lower() for w in re.findall(_DOW1, item.group(0), re.IGNORECASE)]
        plural = plural or any(w in _DOW_PLURALS for w in words)
        first, last = _DOW_LOOKUP[words[0]], _DOW_LOOKUP[words[-1]]
        days.update((first + i) % 7 for i in range((last - first) % 7 + 1))
    return frozenset(days), plural


def _doms_from(text: str) -> tuple[int, ...]:
    values = []
    for raw in re.findall(_ORDINAL, text, re.IGNORECASE):
        word = raw.lower()
        value = _ORDINAL_WORDS[word] if word in _ORDINAL_WORDS else int(word[:-2])
        if not 1 <= value <= 31:
            raise _refuse(f"'{raw}' is not a day of the month (1-31)", "a day 1st-31st",
                          "every month on the 15th", (raw,))
        values.append(value)
    return tuple(sorted(set(values)))


# --------------------------------------------------------------------------------------
# Local time to UTC, with DST gaps and folds
# --------------------------------------------------------------------------------------

def _localize(day: date, hour: int, minute: int, ctx: _Context) -> datetime:
    """The UTC instant of a local wall time; gaps move forward, folds take the first."""
    naive = datetime.combine(day, time(hour, minute))
    first = naive.replace(tzinfo=ctx.tz, fold=0)
    second = naive.replace(tzinfo=ctx.tz, fold=1)
    instant = first.astimezone(UTC)
    if first.utcoffset() == second.utcoffset():
        return instant
    if instant.astimezone(ctx.tz).replace(tzinfo=None) != naive:
        moved = instant.astimezone(ctx.tz)
        ctx.warn(f"{naive:%H:%M} on {day.isoformat()} does not exist in {ctx.tz_name} "
                 f"(the clocks move forward); moved to {moved:%H:%M}")
    else:
        ctx.warn(f"{naive:%H:%M} on {day.isoformat()} happens twice in {ctx.tz_name} "
                 f"(the clocks move back); using the first one")
    return instant


def _start_of_next_day(day: date, ctx: _Context) -> datetime:
    return _localize(day + timedelta(days=1), 0, 0, ctx)


def _next_weekday(weekday: int, today: date, strictly_after: bool) -> date:
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and strictly_after:
        ahead = 7
    return today + timedelta(days=ahead)


def _resolve_clock(clock: _Clock, part: str | None, ctx: _Context,
                   warn: bool = True) -> tuple[int, int]:
    """24-hour (hour, minute); am/pm wins, then the part of the day, then the 24-hour clock."""
    hour = clock.hour
    if clock.meridiem:
        hour = hour % 12 + (12 if clock.meridiem == "pm" else 0)
    elif clock.word is None and part in ("afternoon", "evening") and 1 <= hour <= 11:
        hour += 12
    elif clock.word is None and part == "night" and 5 <= hour <= 11:
        hour += 12                      # "tonight at 10" is 22:00, "at night at 3" is 03:00
    elif clock.word is None and part in ("morning", "night") and hour == 12:
        hour = 0
    elif clock.bare and warn and 1 <= hour <= 12:
        ctx.warn(f"'{clock.text}' read as {hour:02d}:{clock.minute:02d}")
    return hour, clock.minute


def _calendar_day(spec: _DateSpec, today: date, accept: Callable[[date], bool],
                  ctx: _Context) -> date:
    """The day a date names; without a year, the first of this or next year ``accept``s."""
    if spec.year is not None:
        return date(spec.year, spec.month, spec.day)
    for year in range(today.year, today.year + 9):
        try:
            day = date(year, spec.month, spec.day)
        except ValueError:                 # 29 February outside a leap year
            continue
        if accept(day):
            if year != today.year:
                ctx.warn(f"'{spec.text}' read as {day.isoformat()}")
            return day
    raise _refuse(f"'{spec.text}' is not a date", "a real calendar date", "on 24 December",
                  (spec.text,))


def _end_of(what: str, today: date) -> date:
    """The last day of the current day, week (Sunday), month or year."""
    if what == "day":
        return today
    if what == "week":
        return today + timedelta(days=6 - today.weekday())
    if what == "month":
        return today + relativedelta(day=31)
    return date(today.year, 12, 31)
