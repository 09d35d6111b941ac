"""Five-field cron expressions, parsed strictly and evaluated in an IANA zone's wall time.

The grammar is the classic Unix one and nothing more: ``minute hour day-of-month month
day-of-week``, each field ``*``, a value, an inclusive range, a comma list of those, or a
positive step on ``*`` or on a range. Macros (``@daily``), six or seven fields, ``L``,
``?``, ``#``, ``W`` and ``H`` are refused with a message naming the problem and the field.

Evaluation follows the local calendar of the zone:

* minute, hour and month must match; the day matches by the Unix rule: when both day fields
  are restricted (their text is not exactly ``*``) either one may match, otherwise the
  restricted one must match (or any day when neither is);
* a wall minute that does not exist (spring-forward gap) does not fire at all;
* a wall minute that happens twice (fall-back fold) fires at each of its instants.

The evaluation is done here, not by croniter, which fires just after a gap and was too slow
for computing the next fire of thousands of automations at once.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any, Iterator
from zoneinfo import ZoneInfo

from .errors import InvalidInput
from .timeutil import UTC, zone

__all__ = ["CronExpression", "parse_cron", "FIELD_NAMES"]

FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")
FIVE_FIELDS = 'five fields "minute hour day-of-month month day-of-week"'
EXAMPLE = "30 9 * * MON-FRI"

_MONTH_NAMES = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DOW_NAMES = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")

# (low, high, names or None, expected text, example) per field, in field order.
_SPECS = (
    (0, 59, None, "a minute 0-59, *, a range like 0-29, a list like 0,30 or a step like */15",
     "*/15"),
    (0, 23, None, "an hour 0-23, *, a range like 9-17, a list like 9,13 or a step like */2",
     "9-17"),
    (1, 31, None, "a day of the month 1-31, *, a range like 1-7, a list like 1,15 or a step "
     "like */2", "1,15"),
    (1, 12, {n: i + 1 for i, n in enumerate(_MONTH_NAMES)},
     "a month 1-12 or JAN-DEC, *, a range like JAN-JUN, a list like 1,7 or a step like */3",
     "JAN-JUN"),
    (0, 7, {n: i for i, n in enumerate(_DOW_NAMES)},
     "a day of the week 0-7 or SUN-SAT (0 and 7 are Sunday), *, a range like MON-FRI or a "
     "list like MON,WED,FRI", "MON-FRI"),
)

_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MAX_DAYS_IN_MONTH = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # Feb 29 possible
_HORIZON_MONTHS = 10 * 12 + 1          # "nothing within ~10 years" => None
_STEADY_SPAN = timedelta(days=62)      # windows checked for one steady offset, at most
_HOUR_S = 3600
_DAY_S = 86400
_H48 = timedelta(hours=48)
_H26 = timedelta(hours=26)
_MINUTE = timedelta(minutes=1)
_ASCII_DIGITS = frozenset("0123456789")


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


# ---------------------------------------------------------------------------- parsing


class _FieldError(Exception):
    """A problem inside one field; turned into InvalidInput with the field's name."""


def _refuse(message: str, expected: str = FIVE_FIELDS, example: str = EXAMPLE) -> InvalidInput:
    return InvalidInput(field="expression", message=message, expected=expected,
                        example=example)


def _value(token: str, index: int) -> int:
    low, high, names, _, _ = _SPECS[index]
    fname = FIELD_NAMES[index]
    if not token:
        raise _FieldError("a value is missing")
    if token[0] in "+-":
        raise _FieldError(f'"{token}": negative or signed numbers are not allowed')
    if set(token) <= _ASCII_DIGITS:
        if len(token) > 4:   # also keeps int() away from absurdly long digit strings
            raise _FieldError(f"{token} is out of range {low}-{high}")
        number = int(token)
        if not low <= number <= high:
            raise _FieldError(f"{number} is out of range {low}-{high}")
        return number
    upper = token.upper()
    if upper in ("L", "LW") or (len(upper) > 1 and upper[-1] == "L"
                                and set(upper[:-1]) <= _ASCII_DIGITS):
        raise _FieldError(f'"{token}": "L" (last) is not supported')
    if upper == "W" or (len(upper) > 1 and upper[-1] == "W"
                        and set(upper[:-1]) <= _ASCII_DIGITS):
        raise _FieldError(f'"{token}": "W" (nearest weekday) is not supported')
    if upper == "H" or upper.startswith("H("):
        raise _FieldError(f'"{token}": "H" (hashed value) is not supported')
    if token.isalpha() and token.isascii():
        if names is None:
            raise _FieldError(f'names like "{token}" are not allowed in the {fname} field; '
                              f"use a number {low}-{high}")
        if upper not in names:
            choices = "JAN-DEC" if index == 3 else "SUN-SAT"
            raise _FieldError(f'unknown name "{token}" (use {choices} or {low}-{high})')
        return names[upper]
    raise _FieldError(f'"{token}" is not a whole number {low}-{high}')


def _item(item: str, index: int) -> set[int]:
    low, high, _, _, _ = _SPECS[index]
    if not item:
        raise _FieldError("empty list item (two commas in a row, or a comma at an end)")
    if "?" in item:
        raise _FieldError('"?" is not supported; use "*"')
    if "#" in item:
        raise _FieldError(f'"{item}": "#" (nth weekday of the month) is not supported')
    step = 1
    base = item
    if "/" in item:
        base, step_text = item.split("/", 1)
        if "/" in step_text:
            raise _FieldError(f'"{item}": only one step "/" is allowed')
        if not step_text:
            raise _FieldError(f'"{item}": the step after "/" is missing')
        if step_text[0] == "-":
            raise _FieldError(f'"{item}": step {step_text} is negative; use a positive step '
                              "like */15")
        if not set(step_text) <= _ASCII_DIGITS:
            raise _FieldError(f'"{item}": step "{step_text}" is not a positive whole number')
        step = int(step_text) if len(step_text) <= 4 else 10_000
        if step == 0:
            raise _FieldError(f'"{item}": step 0 is not allowed; use a positive step like */15')
        if not base:
            raise _FieldError(f'"{item}": a step needs "*" or a range before the "/"')
    if base == "*":
        start, end = low, high
        if index == 4:
            end = 6  # */n over the week: 7 would only repeat Sunday
    elif "-" in base[1:]:
        if base[0] in "+-":
            raise _FieldError(f'"{item}": negative or signed numbers are not allowed')
        first, second = base.split("-", 1)
        if not second:
            raise _FieldError(f'"{item}": the range has no end')
        if second[0] == "-" or "-" in second:
            if second[0] == "-":
                raise _FieldError(f'"{item}": negative or signed numbers are not allowed')
            raise _FieldError(f'"{item}": a range has exactly one "-"')
        start, end = _value(first, index), _value(second, index)
        if start > end:
            named = first.isalpha() or second.isalpha()
            hint = (f"{first}-{_top_name(index, high, named)},"
                    f"{_bottom_name(index, low, named)}-{second}")
            raise _FieldError(f'range "{base}" wraps around (its start is after its end); '
                              f'write it as a list, e.g. "{hint}"')
    else:
        if "/" in item:
            raise _FieldError(f'"{item}": a step needs "*" or a range before it, '
                              f'e.g. "{base}-{high}/{step}" or "*/{step}"')
        start = end = _value(base, index)
    values = set(range(start, end + 1, step))
    if index == 4 and 7 in values:
        values.discard(7)
        values.add(0)
    return values


def _top_name(index: int, high: int, named: bool) -> str:
    if index == 4:
        return "SAT" if named else "6"
    if index == 3 and named:
        return "DEC"
    return str(high)


def _bottom_name(index: int, low: int, named: bool) -> str:
    if index == 4:
        return "SUN" if named else "0"
    if index == 3 and named:
        return "JAN"
    return str(low)


def _field(text: str, index: int) -> tuple[int, ...]:
    values: set[int] = set()
    try:
        for item in text.split(","):
            values |= _item(item, index)
    except _FieldError as exc:
        _, _, _, expected, example = _SPECS[index]
        problem = str(exc)
        if problem.startswith(f'"{text}": '):  # the item is the whole field: say it once
            problem = problem[len(text) + 4:]
        raise _refuse(f'{FIELD_NAMES[index]} field "{text}": {problem}', expected,
                      example) from None
    return tuple(sorted(values))


@lru_cache(maxsize=8192)
def _parse(text: str) -> "CronExpression":
    stripped = text.strip()
    if stripped.startswith("@"):
        macro = stripped.split()[0]
        raise _refuse(f'"{macro}" is a macro; macros are not supported, write the five '
                      f'fields instead (e.g. "0 0 * * *" for every day at midnight)')
    parts = stripped.split()
    if len(parts) != 5:
        raise _refuse(f"expected {FIVE_FIELDS}, got {len(parts)}")
    minutes, hours, days, months, weekdays = (_field(p, i) for i, p in enumerate(parts))
    expr = CronExpression(" ".join(parts), minutes, hours, days, months, weekdays,
                          dom_restricted=parts[2] != "*", dow_restricted=parts[4] != "*")
    if expr.dom_restricted and not expr.dow_restricted:
        if not any(d <= _MAX_DAYS_IN_MONTH[m] for m in months for d in days):
            raise _refuse(
                f'day-of-month field "{parts[2]}" never occurs in month field "{parts[3]}", '
                "so the expression can never fire",
                "a day of the month that exists in at least one of the chosen months",
                "0 0 28 2 *")
    return expr


def parse_cron(text: object) -> "CronExpression":
    """Parse ``text`` strictly; refusals raise ``InvalidInput(field="expression")``."""
    if not isinstance(text, str):
        raise _refuse(f"a cron expression must be text, got {type(text).__name__}")
    return _parse(text)


# ---------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class CronExpression:
    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: tuple[int, ...]
    months: tuple[int, ...]
    weekdays: tuple[int, ...]  # 0=Sunday .. 6=Saturday (7 folded into 0)
    dom_restricted: bool
    dow_restricted: bool
    # Precomputed for evaluation; derived from the fields above.
    _mods: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _hms: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    _month_ok: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    _day_ok: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    _wday_ok: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    _mode: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        hms = tuple((h, m) for h in sorted(self.hours) for m in sorted(self.minutes))
        setattr_ = object.__setattr__
        setattr_(self, "_hms", hms)
        setattr_(self, "_mods", tuple(h * 60 + m for h, m in hms))
        setattr_(self, "_month_ok", tuple(m in self.months for m in range(13)))
        setattr_(self, "_day_ok", tuple(d in self.days for d in range(32)))
        setattr_(self, "_wday_ok", tuple(w in self.weekdays for w in range(7)))
        # 0: every day, 1: day-of-month only, 2: day-of-week only, 3: either (OR rule)
        setattr_(self, "_mode", (1 if self.dom_restricted else 0)
                 + (2 if self.dow_restricted else 0))

    @classmethod
    def parse(cls, text: str) -> "CronExpression":
        """Strict parse (cached on the text); raises ``InvalidInput(field="expression")``."""
        return parse_cron(text)

    # ---- day rule

    def matches_day(self, d: date) -> bool:
        """Whether the calendar day ``d`` passes the month and the day rule."""
        if not self._month_ok[d.month]:
            return False
        return self._day_matches(d.day, d.toordinal() % 7)

    def _day_matches(self, day: int, wday: int) -> bool:
        mode = self._mode
        if mode == 0:
            return True
        if mode == 1:
            return self._day_ok[day]
        if mode == 2:
            return self._wday_ok[wday]
        return self._day_ok[day] or self._wday_ok[wday]

    def _walls(self, year: int, month: int, day: int, idx: int
               ) -> Iterator[tuple[int, int, int, int, int, int]]:
        """Matching wall times from (year, month, day, index into the times), ascending.

        Yields ``(year, month, day, hour, minute, wall_minutes)`` where ``wall_minutes`` is a
        monotone count of wall minutes (day ordinal * 1440 + minute of the day).
        """
        hms, mods = self._hms, self._mods
        count = len(hms)
        month_ok, day_ok, wday_ok, mode = self._month_ok, self._day_ok, self._wday_ok, self._mode
        stop = year * 12 + month + _HORIZON_MONTHS
        while year * 12 + month <= stop:
            if month_ok[month]:
                ndays = 29 if month == 2 and _is_leap(year) else _DAYS_IN_MONTH[month]
                first_ord = date(year, month, 1).toordinal()
                for d in range(day, ndays + 1):
                    first_i, idx = idx, 0   # the time cut-off applies to the first day only
                    if mode:
                        ordinal = first_ord + d - 1
                        if mode == 1:
                            if not day_ok[d]:
                                continue
                        elif mode == 2:
                            if not wday_ok[ordinal % 7]:
                                continue
                        elif not (day_ok[d] or wday_ok[ordinal % 7]):
                            continue
                    base = (first_ord + d - 1) * 1440
                    for i in range(first_i, count):
                        h, m = hms[i]
                        yield year, month, d, h, m, base + mods[i]
            day = 1
            idx = 0
            if month == 12:
                year += 1
                month = 1
                if year > 9998:
                    return
            else:
                month += 1

    def next_fire(self, after: datetime, tz: ZoneInfo | str) -> datetime | None:
        """The first fire strictly after ``after`` (aware), as an aware UTC datetime.

        ``None`` only when nothing fires within about ten years. ``tz`` may also be an IANA
        name (checked with ``timeutil.zone``).
        """
        if isinstance(tz, str):
            tz = zone(tz, "timezone")
        if after.tzinfo is None or after.utcoffset() is None:
            raise InvalidInput("after", "the instant has no UTC offset",
                               "an aware datetime", "2026-03-29T09:00:00+00:00")
        a = after.astimezone(UTC)
        try:
            off_after = a.astimezone(tz).utcoffset()
            off_ahead = (a + _H48).astimezone(tz).utcoffset()
        except OverflowError:
            return None
        # Every instant t > a has wall(t) = t + offset(t), and only offsets of instants after
        # `a` matter: the lower of the offsets now and 48 h ahead (a fold coming up moves
        # walls back) bounds wall(t) from below, so earlier walls cannot fire. One minute of
        # slack keeps the bound safe for offsets with seconds.
        start = a.replace(tzinfo=None) + min(off_after, off_ahead) - _MINUTE
        idx = bisect.bisect_left(self._mods, start.hour * 60 + start.minute)
        best: datetime | None = None
        limit = 0  # wall_minutes beyond which no earlier instant can exist
        for y, mo, d, h, mi, wall in self._walls(start.year, start.month, start.day, idx):
            if best is not None and wall >= limit:
                break
            u0 = datetime(y, mo, d, h, mi, tzinfo=tz).astimezone(UTC)
            u1 = datetime(y, mo, d, h, mi, tzinfo=tz, fold=1).astimezone(UTC)
            found = None
            back = u0.astimezone(tz)
            if back.minute == mi and back.hour == h and back.day == d:   # wall exists
                if u0 > a:
                    found = u0
                elif u1 != u0 and u1 > a:                               # second pass
                    back = u1.astimezone(tz)
                    if back.minute == mi and back.hour == h and back.day == d:
                        found = u1
            elif u1 != u0:
                back = u1.astimezone(tz)                                # gap: usually neither
                if back.minute == mi and back.hour == h and back.day == d and u1 > a:
                    found = u1
            if found is None:
                continue
            if best is None:
                best = found
                # A later wall can only belong to an earlier instant t (a < t < found) if
                # the offset at t was larger (a fold between t and found). Such a t lies
                # within 26 h before found; look ahead by the offset difference, no further.
                off_found = found.astimezone(tz).utcoffset()
                probe = max(a, found - _H26)
                off_before = max(probe.astimezone(tz).utcoffset(), off_after)
                ahead = (off_before - off_found) // _MINUTE
                if ahead <= 0:
                    break
                limit = wall + ahead
            elif found < best:
                best = found
        return best

    def fires(self, after: datetime, tz: ZoneInfo | str) -> Iterator[datetime]:
        """All fires strictly after ``after``, ascending, as aware UTC datetimes."""
        if isinstance(tz, str):
            tz = zone(tz, "timezone")
        current = self.next_fire(after, tz)
        while current is not None:
            yield current
            current = self.next_fire(current, tz)

    def fires_between(self, start: datetime, end: datetime, tz: ZoneInfo | str
                      ) -> list[datetime]:
        """Fires with ``start < fire <= end``, ascending, as aware UTC datetimes.

        Over a stretch the zone keeps one offset (most weeks of most zones), every wall
        minute is one instant: the walls are walked once and shifted, a microsecond or two a
        fire instead of a search per fire. Otherwise each fire is searched for exactly."""
        if isinstance(tz, str):
            tz = zone(tz, "timezone")
        out: list[datetime] = []
        off = _steady_offset(tz, start, end) if end - start <= _STEADY_SPAN else None
        if off is None:
            for fire in self.fires(start, tz):
                if fire > end:
                    break
                out.append(fire)
            return out
        wall = (start.astimezone(UTC) + off).replace(tzinfo=None)
        last = (end.astimezone(UTC) + off).replace(tzinfo=None)
        last_wall = last.toordinal() * 1440 + last.hour * 60 + last.minute
        idx = bisect.bisect_left(self._mods, wall.hour * 60 + wall.minute)
        for y, mo, d, h, mi, w in self._walls(wall.year, wall.month, wall.day, idx):
            if w > last_wall:
                break
            fire = datetime(y, mo, d, h, mi, tzinfo=UTC) - off
            if start < fire <= end:
                out.append(fire)
        return out

    def min_gap(self) -> timedelta:
        """The smallest wall-clock gap between consecutive fires, ignoring DST and days.

        The minimum over gaps between the sorted minute-of-day values and the wrap gap from
        the last one to the first one of the next day (24 h for one time a day).
        """
        mods = self._mods
        gaps = [b - a for a, b in zip(mods, mods[1:])]
        gaps.append(mods[0] + 1440 - mods[-1])
        return timedelta(minutes=min(gaps))

    # ---- description

    def describe(self, tz_name: str) -> str:
        """A sentence for people, always ending with `` (zone)``."""
        return f"{self._describe()} ({tz_name})"

    def _describe(self) -> str:
        friendly = self._friendly()
        if friendly:
            return friendly
        try:
            from cron_descriptor import ExpressionDescriptor, Options
            options = Options()
            options.use_24hour_time_format = True
            options.day_of_week_start_index_zero = True
            return ExpressionDescriptor(self.text, options).get_description()
        except Exception:  # cron-descriptor raises several kinds on shapes it dislikes
            return f'Cron "{self.text}"'

    def _friendly(self) -> str | None:
        shape = self.friendly_shape()
        if shape is None:
            return None
        kind, args = shape[0], shape[1:]
        at = "at " + _join([f"{h:02d}:{m:02d}" for h, m in self._hms])
        if kind == "every_minute":
            return "Every minute"
        if kind == "every_n_minutes":
            return f"Every {args[0]} minutes"
        if kind == "hourly_at":
            return "Every hour at " + _join([f":{m:02d}" for m in args[0]])
        if kind == "every_n_hours":
            return f"Every {args[0]} hours at :{args[1]:02d}"
        if kind == "daily":
            return f"Every day {at}"
        if kind == "weekdays":
            return f"Every weekday {at}"
        if kind == "weekend":
            return f"Every Saturday and Sunday {at}"
        if kind == "days_of_week":
            return f"Every {_join([_DAY_WORDS[w] for w in args[0]])} {at}"
        return f"On the {_join([ordinal(d) for d in args[0]])} {at}"

    def friendly_shape(self) -> tuple[Any, ...] | None:
        """What a short sentence says, for the words of any language: ("every_minute",),
        ("every_n_minutes", n), ("hourly_at", minutes), ("every_n_hours", n, minute),
        ("daily", times), ("weekdays", times), ("weekend", times), ("days_of_week",
        weekdays from Monday (0 = Sunday), times), ("days_of_month", days, times); times
        are (hour, minute) pairs. None when only the long description fits."""
        all_months = self.months == tuple(range(1, 13))
        every_minute = self.minutes == tuple(range(60))
        every_hour = self.hours == tuple(range(24))
        all_dom = self.days == tuple(range(1, 32))
        all_dow = len(self.weekdays) == 7
        mode = self._mode
        # Effectively every day: no day restriction, or one that admits every day.
        any_day = (mode == 0 or (mode == 1 and all_dom) or (mode == 2 and all_dow)
                   or (mode == 3 and (all_dom or all_dow)))
        if not all_months:
            return None
        if any_day and every_hour:
            if every_minute:
                return ("every_minute",)
            step = _uniform_step(self.minutes, 60)
            if step:
                return ("every_n_minutes", step)
            if len(self.minutes) <= 4:
                return ("hourly_at", self.minutes)
            return None
        if any_day and len(self.minutes) == 1 and len(self.hours) > 1:
            step = _uniform_step(self.hours, 24)
            if step:
                return ("every_n_hours", step, self.minutes[0])
        if len(self._hms) > 4:
            return None
        times = self._hms
        if any_day:
            return ("daily", times)
        if self.dow_restricted and not self.dom_restricted:
            wd = set(self.weekdays)
            if wd == {1, 2, 3, 4, 5}:
                return ("weekdays", times)
            if wd == {0, 6}:
                return ("weekend", times)
            return ("days_of_week", tuple(sorted(wd, key=lambda w: (w + 6) % 7)), times)
        if self.dom_restricted and not self.dow_restricted and len(self.days) <= 4:
            return ("days_of_month", self.days, times)
        return None


_DAY_WORDS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def _uniform_step(values: tuple[int, ...], period: int) -> int | None:
    """``n`` when values are exactly 0, n, 2n, ... and n divides the period (n > 1)."""
    if len(values) < 2 or values[0] != 0:
        return None
    step = values[1]
    if period % step or values != tuple(range(0, period, step)):
        return None
    return step


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st (English)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _steady_offset(tz: ZoneInfo, start: datetime, end: datetime) -> timedelta | None:
    """The zone's UTC offset if it is the same all through ``[start, end]``, else None.
    Sampled hourly over whole UTC days (no zone changes its offset twice within an hour),
    so the many automations of one zone over one window share one look."""
    first = int(start.timestamp()) // _DAY_S
    last = -(-int(end.timestamp()) // _DAY_S)
    try:
        return _steady_days(tz, first, last)
    except (OverflowError, ValueError, OSError):   # the calendar's far end: search instead
        return None


@lru_cache(maxsize=512)
def _steady_days(tz: ZoneInfo, first_day: int, last_day: int) -> timedelta | None:
    offsets = {datetime.fromtimestamp(t, tz).utcoffset()
               for t in range(first_day * _DAY_S, last_day * _DAY_S + 1, _HOUR_S)}
    return offsets.pop() if len(offsets) == 1 else None
