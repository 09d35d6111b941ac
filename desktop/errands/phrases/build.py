"""Turning what was found into a trigger dict: cron, an ``every`` grid, a loop or a one-shot."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Callable

from dateutil.relativedelta import relativedelta

from ..errors import InvalidInput
from ..timeutil import format_duration, format_instant, parse_duration
from .pieces import (_CRON_DOW, _Clock, _Context, _DEFAULT_CLOCK, _Days, _Doms, _EXPECTED,
    _Found, _Freq, _MonthDay, _HOUR_STEPS, _KEEP_DEFAULT, _MINUTE_STEPS, _calendar_day,
    _conflict, _localize, _next_weekday, _not_understood, _refuse, _resolve_clock)
from .vocabulary import _UNIT_SECONDS


# --------------------------------------------------------------------------------------
# Clocks: applying the part of the day
# --------------------------------------------------------------------------------------

def _clock_list(found: _Found, ctx: _Context) -> list[tuple[int, int]]:
    """The times of day asked for, or the default for the part of the day (with a warning)."""
    if found.clocks:
        return [_resolve_clock(c, found.part, ctx) for c in found.clocks]
    hour, minute = _DEFAULT_CLOCK[found.part]
    ctx.warn(f"no time of day given; runs at {hour:02d}:{minute:02d}")
    return [(hour, minute)]


def _needs_interval(window: str) -> InvalidInput:
    return _refuse(f"'{window}' needs an interval such as 'every 30 minutes'", _EXPECTED,
                   "every 30 minutes from 9am to 5pm", (window,))


def _day_times(found: _Found, ctx: _Context) -> list[tuple[int, int]]:
    """The times of day of a day-based schedule, in order (minutes past the hour and a
    window of hours need an interval instead)."""
    if found.minute_past is not None:
        raise _refuse(f"'{found.minute_text}' needs an hourly schedule such as 'every hour'",
                      "minutes past the hour with 'every hour'", "every hour at :30",
                      (found.minute_text or "",))
    if found.window is not None:
        raise _needs_interval(found.window[2])
    return sorted(set(_clock_list(found, ctx)))


def _cron_times(found: _Found, ctx: _Context) -> list[tuple[str, str]]:
    """Cron minute and hour fields for one or more times of day: one pair when the times
    share their minutes or their hour, else the fewest pairs that cover them ("9:15 and
    17:30" is two), each of which becomes a trigger of its own."""
    times = _day_times(found, ctx)
    by_minute: dict[int, list[int]] = {}
    by_hour: dict[int, list[int]] = {}
    for h, m in times:
        by_minute.setdefault(m, []).append(h)
        by_hour.setdefault(h, []).append(m)
    if len(by_minute) == 1 or len(by_minute) <= len(by_hour):
        return [(str(m), ",".join(map(str, hours))) for m, hours in sorted(by_minute.items())]
    return [(",".join(map(str, minutes)), str(h)) for h, minutes in sorted(by_hour.items())]


def _crons(found: _Found, ctx: _Context, dom: str, month: str, dow: str) -> dict:
    """One cron trigger, or a set of them when the times need several."""
    crons = [_cron(minute, hour, dom, month, dow, ctx) for minute, hour in _cron_times(found, ctx)]
    return crons[0] if len(crons) == 1 else {"kind": "set", "triggers": crons}


# --------------------------------------------------------------------------------------
# Building the trigger
# --------------------------------------------------------------------------------------

def _cron(minute: str, hour: str, dom: str, month: str, dow: str, ctx: _Context) -> dict:
    return {"kind": "cron", "expression": f"{minute} {hour} {dom} {month} {dow}",
            "timezone": ctx.tz_name}


def _every(seconds: int) -> dict:
    text = format_duration(timedelta(seconds=seconds))
    parse_duration(text, "schedule")       # refuses lengths over 366 days
    return {"kind": "every", "every": text}


def _dow_field(days: frozenset[int]) -> str:
    """Cron weekday names in week order; runs of three or more (not through Sunday) as ranges."""
    if len(days) == 7:
        return "*"
    ordered = sorted(days)
    groups: list[list[int]] = []
    for d in ordered:
        if groups and d == groups[-1][-1] + 1 and d != 6:
            groups[-1].append(d)
        else:
            groups.append([d])
    parts = []
    for g in groups:
        if len(g) >= 3:
            parts.append(f"{_CRON_DOW[g[0]]}-{_CRON_DOW[g[-1]]}")
        else:
            parts.extend(_CRON_DOW[d] for d in g)
    return ",".join(parts)


def _day_fields(found: _Found) -> tuple[str, str]:
    """Cron day-of-month and day-of-week fields; cron cannot require both at once."""
    if found.days and found.doms:
        raise _refuse(f"'{found.doms.text}' and '{found.days.text}' cannot be combined: "
                      "cron runs when either matches", "a day of the month or a weekday",
                      "every month on the 1st", (found.doms.text, found.days.text))
    dom = ",".join(map(str, found.doms.days)) if found.doms else "*"
    dow = _dow_field(found.days.days) if found.days else "*"
    return dom, dow


def _check_repeat_days(found: _Found) -> None:
    """"next friday" names one day; it cannot narrow a repeat the way "on fridays" does."""
    if found.days is not None and found.days.mode in ("next", "this"):
        raise _conflict(found.freq.text if found.freq else "", found.days.text)


def _build_repeat(found: _Found, ctx: _Context) -> dict:
    """A calendar or interval repeat from everything found."""
    if found.relative is not None:
        raise _conflict(found.freq.text if found.freq else found.relative.text,
                        found.relative.text)
    freq = found.freq or _implied_freq(found)
    if found.date is not None and freq.kind != "yearly":
        raise _conflict(freq.text, found.date.text)
    _check_repeat_days(found)
    builder = {"interval": _build_interval, "days": _build_days, "weeks": _build_weeks,
               "months": _build_months, "yearly": _build_yearly}[freq.kind]
    return builder(freq, found, ctx)


def _implied_freq(found: _Found) -> _Freq:
    if found.doms is not None and found.doms.recurring:
        return _Freq("months", found.doms.text)
    return _Freq("weeks", found.days.text if found.days else "weekly")


def _aligned_interval(seconds: int, minute: int | None) -> tuple[str, str] | None:
    """Cron minute/hour fields when the interval divides the hour or the day."""
    if seconds % 3600 == 0 and seconds // 3600 in _HOUR_STEPS:
        step = seconds // 3600
        return str(minute or 0), "*" if step == 1 else f"*/{step}"
    if seconds % 60 == 0 and seconds // 60 in _MINUTE_STEPS and minute is None:
        step = seconds // 60
        return "*" if step == 1 else f"*/{step}", "*"
    return None


def _build_interval(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if found.clocks or found.part:
        what = found.clocks[0].text if found.clocks else f"in the {found.part}"
        raise _refuse(f"'{what}' cannot narrow '{freq.text}'; use minutes past the hour "
                      f"('every 2 hours at :15') or a daily time", _EXPECTED,
                      "every 2 hours at :15", (what, freq.text))
    aligned = _aligned_interval(freq.seconds, found.minute_past)
    if aligned is not None:
        minute, hour = aligned
        if found.window is not None:
            hour = _window_hours(freq, found.window, ctx)
        dom, dow = _day_fields(found)
        return _cron(minute, hour, dom, "*", dow, ctx)
    limits = [p.text for p in (found.days, found.doms) if p is not None]
    if found.window is not None:
        limits.append(found.window[2])
    if found.minute_past is not None:
        limits.append(found.minute_text or "")
    if limits:
        raise _refuse(f"'{freq.text}' cannot be limited by '{limits[0]}': only intervals that "
                      "divide an hour or a day can (e.g. every 10 minutes, every 2 hours)",
                      _EXPECTED, "every 2 hours on weekdays", (freq.text, limits[0]))
    return _every(freq.seconds)


def _window_hours(freq: _Freq, window: tuple[_Clock, _Clock, str], ctx: _Context) -> str:
    """The cron hour field for an interval inside a daily window (start and end included
    for hour steps; minute steps stop before the end hour, which one cron line cannot add)."""
    first, last, text = window
    if first.minute or last.minute:
        raise _refuse(f"'{text}' must start and end on the hour for cron", _EXPECTED,
                      "every 30 minutes from 9am to 5pm", (text,))
    start, _ = _resolve_clock(first, None, ctx, warn=False)
    end, _ = _resolve_clock(last, None, ctx, warn=False)
    if last.word == "midnight":
        end = 24
    elif last.bare and end <= start and end + 12 <= 23:
        end += 12
    if first.bare or last.bare:
        ctx.warn(f"'{text}' read as {start:02d}:00-{end:02d}:00")
    if end <= start:
        raise _refuse(f"'{text}' ends before it starts", _EXPECTED,
                      "every hour from 9am to 5pm", (text,))
    if freq.seconds % 3600 == 0:
        step = freq.seconds // 3600
        end = min(end, 23)
        return f"{start}-{end}" + (f"/{step}" if step > 1 else "")
    step = freq.seconds // 60
    if end - 1 < start:
        raise _refuse(f"'{text}' is too short for '{freq.text}'", _EXPECTED,
                      "every 30 minutes from 9am to 5pm", (text, freq.text))
    ctx.warn(f"the last run each day is at {end - 1:02d}:{60 - step:02d}, not {end:02d}:00")
    return f"{start}-{end - 1}" if end - 1 > start else str(start)


def _build_days(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if freq.n == 1 and found.start is None:
        dom, dow = _day_fields(found)
        return _crons(found, ctx, dom, "*", dow)
    if found.days or found.doms:
        piece = found.days or found.doms
        raise _conflict(freq.text, piece.text if piece else "")
    return _day_grid(freq.n, None, found, ctx)


def _build_weeks(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if found.doms:
        raise _conflict(freq.text, found.doms.text)
    if freq.n == 1:
        if found.days is None:
            ctx.warn("no weekday given; runs on Mondays")
        dow = _dow_field(found.days.days) if found.days else "MON"
        return _crons(found, ctx, "*", "*", dow)
    if found.days and len(found.days.days) > 1:
        raise _refuse(f"'{freq.text}' on several weekdays cannot be expressed; make one "
                      "errand per weekday", _EXPECTED, "every other Monday at 9am",
                      (freq.text, found.days.text))
    return _day_grid(7 * freq.n, _grid_weekday(found, ctx), found, ctx)


def _grid_weekday(found: _Found, ctx: _Context) -> int:
    """The weekday of a grid of weeks: the one named, else the start date's, else Monday."""
    if found.days is not None:
        return next(iter(found.days.days))
    if found.start is not None:
        return found.start.weekday()
    ctx.warn("no weekday given; runs on Mondays")
    return 0


def _day_grid(step: int, weekday: int | None, found: _Found, ctx: _Context) -> dict:
    """``every`` N local calendar days at one wall-clock time, from the first fitting day
    (on or after the start date, on the weekday if one is named, and still ahead)."""
    times = _clock_list(found, ctx)
    if len(times) > 1 or found.minute_past is not None or found.window is not None:
        words = ((found.minute_text,) if found.minute_text else
                 (found.window[2],) if found.window else tuple(c.text for c in found.clocks))
        raise _refuse(" and ".join(f"'{w}'" for w in words) + " cannot be combined with a "
                      f"step of {step} days; one time of day works", _EXPECTED,
                      "every other monday at 9am", words)
    hour, minute = times[0]
    day = max(found.start or ctx.today, ctx.today)
    while (weekday is not None and day.weekday() != weekday) or (
            _localize(day, hour, minute, ctx) <= ctx.now):
        day += timedelta(days=1)
    first = _localize(day, hour, minute, ctx)
    every = format_duration(timedelta(days=step))
    parse_duration(every, "schedule")      # refuses steps over 366 days
    return {"kind": "every", "every": every, "start_at": format_instant(first),
            "timezone": ctx.tz_name}


def _one_clock(found: _Found, ctx: _Context) -> str:
    """The one time of day of a ``monthly`` trigger ("HH:MM"; 09:00, said, when none)."""
    times = _day_times(found, ctx)
    if len(times) > 1:
        raise _refuse("this schedule takes one time of day; make one errand per time",
                      "one time of day", "on the last day of the month at 6pm",
                      tuple(c.text for c in found.clocks))
    return f"{times[0][0]:02d}:{times[0][1]:02d}"


def _monthly(fields: dict, every: int, at: str, ctx: _Context, said: str | None) -> dict:
    """A ``monthly`` trigger whose grid starts in the first month, from now, that has its
    day still ahead (so "every 3 months on the 5th" first runs on the coming 5th)."""
    from ..schedule import monthly_start

    start = monthly_start(fields, int(at[:2]), int(at[3:]), ctx.tz_name, ctx.now)
    if every > 1 and said:
        first = date(int(start[:4]), int(start[5:]), 1)
        ctx.warn(f"'{said}' counts from {first:%B %Y}")
    return {"kind": "monthly", **fields, "every": every, "start": start, "at": at,
            "timezone": ctx.tz_name}


def _build_monthday(found: _Found, ctx: _Context) -> dict:
    """The last day, the N-th to last, the N-th weekday or working day of the month, every
    month or every N months ("every 3 months on the last friday")."""
    spec = found.monthday
    assert spec is not None
    others = [p.text for p in (found.days, found.doms, found.date, found.relative, found.loop)
              if p]
    if found.start_text:
        others.append(found.start_text)
    freq = found.freq
    if freq is not None and freq.kind != "months":
        others.append(freq.text)
    if found.keep or found.loop_default:
        others.append("keep")
    if others:
        raise _conflict(spec.text, others[0])
    every = freq.n if freq is not None else 1
    if freq is not None and freq.text.lower() == "quarterly":  # calendar quarters
        return _quarterly(spec.fields(), _one_clock(found, ctx), ctx)
    return _monthly(spec.fields(), every, _one_clock(found, ctx), ctx,
                    freq.text if freq is not None else None)


def _quarterly(fields: dict, at: str, ctx: _Context) -> dict:
    """Every three months from January, April, July or October: the grid starts in the
    quarter's first month (this quarter's when its day is still ahead)."""
    from ..definition import MonthlyTrigger
    from ..schedule import next_fire

    local = ctx.now.astimezone(ctx.tz)
    quarter = local.year * 12 + (local.month - 1) // 3 * 3
    probe = MonthlyTrigger(int(at[:2]), int(at[3:]), ctx.tz_name, quarter, 3, **fields)
    if next_fire(probe, ctx.now) is None:
        raise _refuse("'quarterly' with that day never comes", _EXPECTED,
                      "quarterly on the last day", ("quarterly",))
    year, month = divmod(quarter, 12)
    ctx.warn("'quarterly' runs in January, April, July and October")
    return {"kind": "monthly", **fields, "every": 3, "start": f"{year:04d}-{month + 1:02d}",
            "at": at, "timezone": ctx.tz_name}


def _build_months(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if found.days:
        raise _conflict(freq.text, found.days.text)
    quarters = freq.text.lower() == "quarterly"      # calendar quarters, from January
    if freq.n > 1200:
        raise _refuse(f"'{freq.text}' is more than a hundred years apart", _EXPECTED,
                      "every 3 months on the 5th", (freq.text,))
    if freq.n > 1 and not quarters and (found.doms is None or len(found.doms.days) == 1):
        if found.doms is None:
            ctx.warn("no day of the month given; runs on the 1st")
        day = found.doms.days[0] if found.doms else 1
        if day > 28:
            ctx.warn(f"months without day {day} are skipped")
        return _monthly({"day": day}, freq.n, _one_clock(found, ctx), ctx, freq.text)
    if found.doms is None:
        ctx.warn("no day of the month given; runs on the 1st")
    elif max(found.doms.days) > 28:
        ctx.warn(f"months without day {max(found.doms.days)} are skipped")
    dom = ",".join(map(str, found.doms.days)) if found.doms else "1"
    month = "*"
    if freq.n > 1:
        month = f"*/{freq.n}"
        ctx.warn(f"'{freq.text}' counts months from January (*/{freq.n})")
    return _crons(found, ctx, dom, month, "*")


def _build_yearly(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    spec = found.date
    if spec is None or spec.kind != "date":
        raise _refuse(f"'{freq.text}' needs a date such as 'every year on 24 December'",
                      _EXPECTED, "every year on 24 December at 9am", (freq.text,))
    if spec.year is not None:
        raise _conflict(freq.text, spec.text)
    if found.days or found.doms:
        piece = found.days or found.doms
        raise _conflict(freq.text, piece.text if piece else "")
    if (spec.month, spec.day) == (2, 29):
        ctx.warn("29 February only exists in leap years")
    if freq.n > 1:                       # "every other year on 3 March": 24 months apart
        if spec.more:
            raise _refuse(f"'{freq.text}' takes one day; make one errand per day", _EXPECTED,
                          "every 2 years on 3 March", (freq.text, spec.text))
        if freq.n > 100:
            raise _refuse(f"'{freq.text}' is more than a hundred years apart", _EXPECTED,
                          "every 2 years on 3 March", (freq.text,))
        trigger = _yearly_start(_monthly({"day": spec.day}, 12 * freq.n,
                                         _one_clock(found, ctx), ctx, None), spec.month, ctx)
        ctx.warn(f"'{freq.text}' counts from {trigger['start'][:4]}")
        return trigger
    days = ",".join(map(str, sorted({spec.day, *spec.more})))
    return _crons(found, ctx, days, str(spec.month), "*")


def _build_loop(found: _Found, ctx: _Context) -> dict:
    """An ``after`` loop: the next run starts an interval after the previous one finished."""
    others = [p.text for p in (found.days, found.doms, found.date, found.relative) if p]
    others += [c.text for c in found.clocks]
    if found.loop and found.freq:
        others.append(found.freq.text)
    if others:
        raise _conflict(found.loop.text if found.loop else "keep", others[0])
    if found.loop is not None:
        seconds = found.loop.seconds()
    elif found.freq is not None:
        seconds = found.freq.seconds
    else:
        seconds = int(_KEEP_DEFAULT.total_seconds())
        ctx.warn(f"no interval given; runs again {format_duration(_KEEP_DEFAULT)} after each "
                 "run finishes")
    text = format_duration(timedelta(seconds=seconds))
    parse_duration(text, "schedule")
    return {"kind": "after", "interval": text}


def _wants_loop(found: _Found) -> bool:
    if found.loop is not None or found.loop_default:
        return True
    interval = found.freq is not None and found.freq.kind == "interval"
    if found.keep and (found.freq is None or interval) and not (found.days or found.doms):
        return True
    nothing = not (found.freq or found.days or found.doms or found.date or found.relative
                   or found.clocks or found.minute_past is not None)
    return found.condition and nothing


def _has_one_shot(found: _Found) -> bool:
    return bool(found.relative or found.date or found.days or found.doms or found.clocks
                or found.minute_past is not None)


def _build_one_shot(found: _Found, ctx: _Context) -> dict:
    """An ``at`` trigger for a single future instant."""
    if found.date is not None and found.date.more:
        raise _refuse(f"'{found.date.text}' names several days; a one-shot runs once",
                      _EXPECTED, "on june 1 at 9am", (found.date.text,))
    if found.stop_text():
        raise _refuse(f"a one-shot runs once and takes no stop rule; remove "
                      f"'{found.stop_text()}'", "a one-shot without a stop rule",
                      "tomorrow at 7pm", (found.stop_text() or "",))
    if found.minute_past is not None:
        raise _refuse(f"'{found.minute_text}' needs an hourly schedule such as 'every hour'",
                      _EXPECTED, "every hour at :30", (found.minute_text or "",))
    if len(found.clocks) > 1:
        raise _refuse("a one-shot takes one time of day; got "
                      + " and ".join(f"'{c.text}'" for c in found.clocks),
                      "one time of day", "tomorrow at 7pm", tuple(c.text for c in found.clocks))
    if found.relative is not None:
        instant = _relative_instant(found, ctx)
    else:
        instant = _named_instant(found, ctx)
    if instant <= ctx.now:
        local = instant.astimezone(ctx.tz)
        raise _refuse(f"{local:%Y-%m-%d %H:%M} in {ctx.tz_name} has already passed "
                      f"(it is now {ctx.now.astimezone(ctx.tz):%Y-%m-%d %H:%M})",
                      "a time in the future", "tomorrow at 7pm",
                      tuple(p.text for p in (found.date, found.days, found.doms, found.relative,
                                             *found.clocks) if p))
    return {"kind": "at", "at": format_instant(instant)}


def _relative_instant(found: _Found, ctx: _Context) -> datetime:
    amount = found.relative
    assert amount is not None
    for piece in (found.date, found.days, found.doms):
        if piece is not None:
            raise _conflict(amount.text, piece.text)
    if not found.clocks:
        return ctx.now + amount.delta()
    whole = amount.whole()
    if amount.unit not in ("d", "w", "f") or whole is None:
        raise _conflict(amount.text, found.clocks[0].text)
    day = ctx.today + timedelta(seconds=whole * _UNIT_SECONDS[amount.unit])
    hour, minute = _resolve_clock(found.clocks[0], found.part, ctx)
    return _localize(day, hour, minute, ctx)


def _named_instant(found: _Found, ctx: _Context) -> datetime:
    """A one-shot on a named day (or the next occurrence of a bare time of day)."""
    named = found.date is not None or found.days is not None or found.doms is not None
    if found.date and (found.days or found.doms):
        piece = found.days or found.doms
        raise _conflict(found.date.text, piece.text if piece else "")
    hour, minute = _clock_list(found, ctx)[0] if (found.clocks or named) else (9, 0)
    midnight = bool(found.clocks) and found.clocks[0].word == "midnight"

    def at(day: date) -> datetime:
        if midnight and named:
            return _localize(day + timedelta(days=1), 0, 0, ctx)
        return _localize(day, hour, minute, ctx)

    day = _one_shot_day(found, ctx, at)
    if midnight and named:
        ctx.warn(f"'midnight' read as the end of {day:%A} {day.isoformat()}")
    return at(day)


def _one_shot_day(found: _Found, ctx: _Context, at: Callable[[date], datetime]) -> date:
    today = ctx.today
    future = lambda d: at(d) > ctx.now  # noqa: E731 - a tiny predicate reads best inline
    spec = found.date
    if spec is not None:
        offsets = {"today": 0, "tonight": 0, "tomorrow": 1, "dayafter": 2}
        if spec.kind == "tonight" and not future(today):
            ctx.warn(f"'{spec.text}' read as the small hours of tomorrow")
            return today + timedelta(days=1)
        if spec.kind in offsets:
            return today + timedelta(days=offsets[spec.kind])
        return _calendar_day(spec, today, future, ctx)
    if found.days is not None:
        return _weekday_day(found.days, ctx, future)
    if found.doms is not None:
        return _month_day(found.doms, ctx, future)
    if future(today):
        return today
    ctx.warn(f"'{found.clocks[0].text}' has passed today; read as tomorrow")
    return today + timedelta(days=1)


def _weekday_day(days: _Days, ctx: _Context, future: Callable[[date], bool]) -> date:
    if len(days.days) != 1:
        raise _refuse(f"'{days.text}' names several days; a one-shot runs once",
                      _EXPECTED, "next friday at 9am", (days.text,))
    weekday = next(iter(days.days))
    day = _next_weekday(weekday, ctx.today, strictly_after=days.mode == "next")
    if not future(day):
        day += timedelta(days=7)
    if day == ctx.today:
        ctx.warn(f"'{days.text}' read as today, {day.isoformat()}")
    elif days.mode == "next":
        ctx.warn(f"'{days.text}' read as {day:%A} {day.isoformat()}")
    return day


def _month_day(doms: _Doms, ctx: _Context, future: Callable[[date], bool]) -> date:
    if len(doms.days) != 1:
        raise _refuse(f"'{doms.text}' names several days; a one-shot runs once",
                      _EXPECTED, "on the 15th at 9am", (doms.text,))
    first = ctx.today.replace(day=1)
    for months in range(0, 13):
        start = first + relativedelta(months=months)
        try:
            day = start.replace(day=doms.days[0])
        except ValueError:
            continue
        if day >= ctx.today and future(day):
            return day
    raise _refuse(f"'{doms.text}' never comes", _EXPECTED, "on the 15th at 9am", (doms.text,))


def _build_trigger(found: _Found, ctx: _Context, text: str) -> dict:
    interval = found.freq is not None and found.freq.kind == "interval"
    if found.window is not None and (not interval or found.keep or found.loop):
        raise _needs_interval(found.window[2])
    if found.manual:
        others = [p.text for p in (found.freq, found.days, found.doms, found.date,
                                   found.relative, found.loop) if p]
        if others or found.clocks or found.keep:
            raise _conflict("manually", others[0] if others else "keep")
        return {"kind": "manual"}
    if found.monthday is not None:
        return _build_monthday(found, ctx)
    if found.start is not None:
        return _build_started(found, ctx)
    if _wants_loop(found):
        return _build_loop(found, ctx)
    if found.repeats():
        return _build_repeat(found, ctx)
    if _has_one_shot(found):
        return _build_one_shot(found, ctx)
    raise _not_understood(text)


def _build_started(found: _Found, ctx: _Context) -> dict:
    """A repeat with a start date: only shapes with a start (``every``, ``after``) keep it,
    so a daily or one-weekday rhythm becomes a local-day grid from its first fitting day."""
    said = found.start_text or ""
    assert found.start is not None
    if _wants_loop(found) or (found.freq is not None and found.freq.kind == "interval"):
        if found.days or found.doms or found.window or found.minute_past is not None:
            piece = found.days or found.doms
            raise _conflict(said, piece.text if piece else found.minute_text
                            or (found.window[2] if found.window else ""))
        trigger = _build_loop(found, ctx) if _wants_loop(found) else _every(found.freq.seconds)
        start = max(_localize(found.start, 0, 0, ctx), ctx.now)
        ctx.warn(f"'{said}' read as a first run at {format_instant(start)}")
        return {**trigger, "start_at": format_instant(start)}
    if not found.repeats():
        raise _refuse(f"a one-shot has no start date; remove '{said}'", _EXPECTED,
                      "on 1 April at 9am", (said,))
    freq = found.freq or _implied_freq(found)
    one_day = found.days is None or len(found.days.days) == 1
    if freq.kind in ("days", "weeks") and freq.n > 1 or (
            freq.kind == "days" and not found.doms and not found.days):
        return _build_repeat(found, ctx)
    if freq.kind == "weeks" and one_day and not found.doms:
        return _day_grid(7, _grid_weekday(found, ctx), found, ctx)
    raise _refuse(f"'{said}' cannot start '{freq.text}': only a rhythm of whole days ('every "
                  "day', 'every other monday') or a fixed interval has a start; create the "
                  "errand on that day instead", _EXPECTED, "every day at 9am starting tomorrow",
                  (said, freq.text))


def _yearly_start(trigger: dict, month: int, ctx: _Context) -> dict:
    """Move a yearly grid's start to the month its date is in (the first year it comes)."""
    from ..definition import MonthlyTrigger
    from ..schedule import next_fire

    year = ctx.now.astimezone(ctx.tz).year
    hour, minute = int(trigger["at"][:2]), int(trigger["at"][3:])
    probe = MonthlyTrigger(hour, minute, ctx.tz_name, year * 12 + month - 1, 12,
                           day=trigger["day"])
    first = next_fire(probe, ctx.now)
    if first is None:
        raise _refuse("that date never comes", _EXPECTED, "every 2 years on 3 March", ())
    local = first.astimezone(ctx.tz)
    return {**trigger, "start": f"{local.year:04d}-{local.month:02d}"}
