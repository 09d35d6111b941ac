"""Offline natural-language schedules: ``every weekday at 9am, summarize my inbox``.

``parse_schedule_text`` turns one typed phrase into a trigger dict, the task text (prompt),
a short title and a stop rule. There is no network and no model: the grammar is a fixed set
of regular expressions, so the same phrase always gives the same answer and every answer
can be explained.

How a phrase is read
--------------------
The phrase is scanned in a fixed order (manual, loops, stop rules, repeats, relative
one-shots, dates, times of day). Each recognised piece is *consumed*; whatever is left,
minus connector punctuation, is the prompt. So the schedule may come first, last, or be
split around the task ("remind me at 9am tomorrow to stretch").

Words that often occur inside a task are only taken when they sit next to another schedule
piece or at an edge of the phrase: a bare ``at 9`` (so "check prices at 5 stores daily"
keeps its "at 5 stores"), a time without ``at`` ("summarize the 5pm notes daily"), a
weekday without ``on``/``every``/``next`` ("friday at 9"). Adverbs after a determiner are
never taken ("send the weekly report every friday" keeps "weekly").

Decisions the grammar makes (each also reported as a warning when it applies)
----------------------------------------------------------------------------
* Calendar phrases become cron in the user's zone, so 9am stays 9am across DST.
* No time given for a day-based repeat or a one-shot day: 09:00 (morning 09:00,
  afternoon 15:00, evening 18:00, night/tonight 21:00).
* A bare hour ("at 9") is read on the 24-hour clock (09:00) unless a part of the day says
  otherwise ("tonight at 10" is 22:00).
* "every N minutes/hours" aligns to the clock with cron when N divides the hour/day,
  otherwise it is a fixed ``every`` grid.
* "every other day", "every N days", "every other week", "every other Monday", "every N
  weeks": an ``every`` grid of whole local calendar days (``timezone`` set) from the first
  fitting day, at the time given (09:00 when none), on the named weekday (Mondays when
  none), so the weekday and the wall-clock time stay pinned across DST.
* "weekly" without a weekday: Mondays (the start date's weekday when "starting" names one).
  "monthly" without a day: the 1st. "biweekly" is every two weeks (warned), "quarterly"
  every three months from January, "every 3rd day" every 3 days.
* "next friday" is the first Friday strictly after today; "on friday"/"friday" is today
  when today is Friday and the time is still ahead, otherwise the coming one.
* "midnight" after a named day means the end of that day ("friday at midnight" is the
  00:00 that starts Saturday). Recurring "at midnight" is 00:00 of the named day.
* A date without a year is the next one that is still in the future.
* A local time in a DST gap moves forward by the gap; a time that happens twice uses the
  first (earlier) instant.
* "until <day>" ends at the start of the following day (exclusive bound); "until <day> at
  <time>" ends at that instant; "until <time>" ends today at that time (tomorrow if it has
  passed). "until friday" on a Friday ends tonight. "for 3 days" ends at now + 3 days.
* "until <anything that is not a date>" is a condition: ``stop.when_condition_met`` is set
  and the clause stays in the prompt so the agent knows when it is done. Phrases starting
  with "keep" become an ``after`` loop (10m when no interval is given). A condition that
  is the only schedule piece also becomes a 10m loop. A condition next to a one-shot is
  left as plain prompt text (a one-shot takes no stop rule).
* Instants derived from ``now`` ("in 10 minutes", "for 3 days") drop microseconds.
* A naive ``now`` is taken as UTC.
* "every hour from 9 to 5" / "every 2 hours between 8 and 20": the hour field becomes a
  range and both ends run; minute steps ("every 30 minutes from 9am to 5pm") stop at
  16:30, because one cron line cannot also add 17:00 (warned). "from 9 to 5" reads the
  smaller end as pm. "except <days>" removes weekdays from the set.
* "night" means 21:00-04:59: "every night at 3" is 03:00, "tonight at 1" is tomorrow 01:00.
* Numeric dates follow the locale (``numeric``); dotted dates are day first; a date that
  reads validly both ways with no locale is refused with both readings.
* "starting DATE" keeps its day only where a trigger has a start: a rhythm of whole days
  (a local-day grid) or an interval; elsewhere it is refused.
* Refused rather than guessed: "3 times a day"/"twice daily" (name the times instead), a
  weekday together with a day of the month (cron would run on either), monthly ordinal
  weekdays and "the last day of the month" (cron cannot say them), "except" with a date or
  holidays, two times with different minutes and hours ("9:15 and 17:30"), intervals
  that neither divide the hour/day nor fit an ``every`` grid with weekdays or windows,
  "bimonthly"-like words (twice or every other?), and "until christmas" (a named day).
* Every date-like word left in the task text (``tokens``) is refused when it sits next to
  the schedule words (or is a second repeat, "every evening") and otherwise named in a
  warning; ``used`` and ``unused`` list them, and a refusal's ``InvalidInput.words`` names
  the words it could not use.
* Inside a repeating schedule, day words such as "today" stay in the prompt ("every day at
  6pm summarize what happened today").
"""

from __future__ import annotations

import re
from datetime import datetime

from ..errors import InvalidInput
from ..timeutil import RANGE_TEXT, UTC, check_range, format_instant, zone
from .build import _build_trigger
from .numeric import date_order
from .pieces import EXAMPLES, _Context, _EXAMPLE, _EXPECTED, _MAX_TEXT, _examples, _refuse
from .reader import _Reader
from .result import ParsedSchedule
from .text import _normalize, _prompt, title_of
from .tokens import date_like

__all__ = ["ParsedSchedule", "parse_schedule_text", "EXAMPLES"]

_LEAD = re.compile(r"\b(?:on|at|by|from|before|after|in|until|till|during)\s+\Z",
                   re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def parse_schedule_text(text: str, tz_name: str, now: datetime,
                        locale: str | None = None) -> ParsedSchedule:
    """Read a typed phrase ("every weekday at 9am, summarize my inbox") into a schedule.

    ``now`` anchors one-shots and end dates (a naive value is taken as UTC); ``tz_name``
    is the IANA zone the wall times are meant in; ``locale`` (``en_US``, ``de_DE``, None)
    orders numeric dates. Raises only ``InvalidInput`` (field ``schedule``) for empty or
    unknown phrases, impossible times, contradictions and words it could not use.
    """
    tz = zone(tz_name)
    order = date_order(locale)
    if not isinstance(now, datetime):
        raise InvalidInput("now", f"not an instant: {now!r}", RANGE_TEXT, _EXAMPLE)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    try:
        now = check_range(now.astimezone(UTC).replace(microsecond=0), "now")
    except (OverflowError, ValueError):
        raise InvalidInput("now", f"{now!r} is outside the supported range", RANGE_TEXT,
                           "2026-03-29T09:00:00Z") from None
    if not isinstance(text, str) or not text.strip():
        raise _refuse(f"the schedule text is empty; {_examples()}")
    if len(text) > _MAX_TEXT:
        raise _refuse(f"the schedule text is longer than {_MAX_TEXT} characters",
                      "a short phrase", _EXAMPLE)
    if _CONTROL.search(text):
        raise _refuse("the schedule text contains control characters", "one line of text",
                      _EXAMPLE)
    from .events import parse_event_phrase  # "when a file is added to ~/Downloads, …"
    event = parse_event_phrase(text)
    if event is not None:
        return event
    normalized = _normalize(text)
    ctx = _Context(tz, tz_name, now, order)
    reader = _Reader(normalized, ctx)
    try:
        found = reader.read()
        trigger = _build_trigger(found, ctx, normalized)
        for key in ("at", "start_at"):
            if key in trigger and trigger["kind"] != "monthly":   # (its "at" is a clock time)
                check_range(_instant(trigger[key]), "schedule")
        if found.until is not None:
            check_range(found.until, "schedule")
    except (OverflowError, ValueError):
        raise _refuse(f"'{normalized}' reaches outside the supported calendar",
                      RANGE_TEXT, _EXAMPLE, (normalized,)) from None
    unused = _check_leftover(reader, ctx)
    one_shot = trigger["kind"] == "at"
    prompt = _prompt(reader.scan.leftover())
    stop = {"max_runs": found.max_runs, "until": format_instant(found.until),
            "when_condition_met": found.condition and not one_shot}
    return ParsedSchedule(trigger, prompt, title_of(prompt), stop, list(ctx.warnings),
                          reader.scan.pieces(), unused)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _check_leftover(reader: _Reader, ctx: _Context) -> list[str]:
    """Date-like words left in the task: refused next to the schedule or when a second
    repeat, else named in a warning."""
    view = reader.scan.view
    unused = []
    for span in date_like(view):
        word = view[span[0]:span[1]].strip()
        if any(f"'{word}" in w or f" {word}" in w for w in ctx.warnings if "'" in w):
            unused.append(word)            # already named (a condition, a reading)
            continue
        lead = _LEAD.search(view[:span[0]])
        repeat = word.lower().startswith(("every ", "each "))   # a second repeat is never task
        if repeat or reader.scan.touches((lead.start() if lead else span[0], span[1]),
                                         edges=False):
            raise _refuse(f"'{word}' could not be used for the schedule; write dates as "
                          f"2030-08-01 or 1 August 2030 and times as 9am or 21:30, or move "
                          f"'{word}' away from the schedule words if it belongs to the task",
                          _EXPECTED, _EXAMPLE, (word,))
        ctx.warn(f"'{word}' stays in the task text; it does not change the schedule")
        unused.append(word)
    return unused
