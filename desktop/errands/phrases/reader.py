"""The scanner: consumes schedule pieces from the phrase in a fixed order and records them."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from fractions import Fraction
from typing import Iterator

from dateutil.relativedelta import relativedelta

from ..definition import WEEKDAY_NAMES, WORKDAY, MonthlyTrigger
from .pieces import (_Amount, _Clock, _Context, _DateSpec, _Days, _Doms, _EXPECTED, _Found,
    _Freq, _MonthDay, _amount, _bad_clock, _calendar_day, _clock_from, _conflict, _date_from, _doms_from,
    _dows_from, _end_of, _localize, _minute_from, _named_day, _next_weekday, _number,
    _part_of, _refuse, _check_year, _resolve_clock, _start_of_next_day)
from .tokens import date_like
from .vocabulary import (_ADVERB, _AMBIGUOUS_ADVERB, _CLOCKS, _CONNECTOR_ONLY, _DAY_MONTH,
    _DETERMINER, _DOMS, _DOMS_BARE, _DOW1, _DOW_LOOKUP, _DOWS, _EDGE_JUNK, _END_OF, _EVERY_DUR,
    _EVERY_PART, _EVERY_YEAR, _EXCEPT, _EXCEPT_ANY, _FOR, _GAP_HEAD, _GAP_TAIL, _IN_DUR, _IN_PART,
    _ISO_DATE, _ISO_WEEK, _WEEK_END, _KEEP, _LOOP_BARE, _LOOPS, _MANUAL, _MAX_RUNS, _MONTH_DAY, _MONTH_END,
    _MONTHLY_CONTEXT, _MONTHS, _EVERY_NTH_PERIOD, _NO_END, _NTH,
    _NUMERIC_DATE, _ONCE_A, _OTHER, _parts, _PER_PERIOD, _PERIOD, _PUNCT_AFTER, _PUNCT_BEFORE,
    _REL_DAY, _rx, _START, _T_AMPM, _T_MINUTE, _T_WORD, _THIS_PART, _UNITS, _UNTIL, _WEEKDAYS,
    _WEEKENDS, _WINDOW)


# --------------------------------------------------------------------------------------
# The scanned text: which characters belong to the schedule
# --------------------------------------------------------------------------------------

class _Scan:
    """The phrase with consumed schedule spans masked out (``\\x00``), indices unchanged."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.taken = [False] * len(text)

    @property
    def view(self) -> str:
        return "".join("\x00" if t else c for c, t in zip(self.text, self.taken))

    def matches(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches on the current view; each is re-checked as still free before use."""
        for match in pattern.finditer(self.view):
            if self.free(match.span()):
                yield match

    def first(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        return next(self.matches(pattern), None)

    def free(self, span: tuple[int, int]) -> bool:
        return span[0] < span[1] and not any(self.taken[span[0]:span[1]])

    def take(self, span: tuple[int, int]) -> None:
        for i in range(*span):
            self.taken[i] = True

    def pieces(self) -> list[str]:
        """The consumed runs of text, in phrase order: the words that shaped the schedule."""
        runs = re.finditer(r"[^\x00]+", "".join("\x00" if not t else c
                                                  for c, t in zip(self.text, self.taken)))
        return [r.group(0).strip(_EDGE_JUNK) for r in runs if r.group(0).strip(_EDGE_JUNK)]

    def anything_taken(self) -> bool:
        return any(self.taken)

    def touches(self, span: tuple[int, int], edges: bool = True) -> bool:
        """Whether only connectors separate ``span`` from a schedule piece (or an edge)."""
        view = self.view
        left = view[:span[0]]
        tail = _GAP_TAIL.search(left)
        before = left[:tail.start()] if tail else left
        if before.endswith("\x00") or (edges and (not before or _PUNCT_BEFORE.search(left))):
            return True
        right = view[span[1]:]
        after = right[_GAP_HEAD.match(right).end():]
        if after.startswith("\x00"):
            return True
        return edges and (not after.strip(" .!?") or bool(_PUNCT_AFTER.match(right)))

    def leftover(self) -> str:
        """The untouched text, with connector punctuation trimmed where pieces were cut."""
        pieces = [p for p in re.split(r"\x00+", self.view) if not _CONNECTOR_ONLY.match(p)]
        cleaned = [p.strip(_EDGE_JUNK) if i not in (0, len(pieces) - 1) else p
                   for i, p in enumerate(pieces)]
        if len(cleaned) > 1:
            cleaned[0] = cleaned[0].rstrip(_EDGE_JUNK)
            cleaned[-1] = cleaned[-1].lstrip(_EDGE_JUNK)
        return " ".join(p for p in (c.strip() for c in cleaned) if p)


# --------------------------------------------------------------------------------------
# The scanner: one small step per family of phrases
# --------------------------------------------------------------------------------------

_NTH_NUMBER = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4,
               "fourth": 4, "5th": 5, "fifth": 5}
_STEP_WORDS = {"other": 2, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
               "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
               "twelfth": 12, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}


def _month_day_of(year: int, month: int, spec: _MonthDay) -> int | None:
    """The day of ``year``-``month`` a month-day names, or None when that month has none."""
    return MonthlyTrigger(0, 0, "UTC", 0, day=spec.day, weekday=spec.weekday,
                          nth=spec.nth).day_in(year, month)


class _Reader:
    """Consumes schedule pieces from the phrase in a fixed order and records them."""

    def __init__(self, text: str, ctx: _Context) -> None:
        self.scan = _Scan(text)
        self.ctx = ctx
        self.found = _Found()

    def read(self) -> _Found:
        for step in (self._manual, self._keep, self._loops, self._window, self._stops,
                     self._repeats,
                     self._relative, self._dates, self._part_hints, self._minutes,
                     self._clocks, self._weak_pieces):
            step()
        return self.found

    # -- manual, keep, loops -----------------------------------------------------------

    def _manual(self) -> None:
        match = self.scan.first(_MANUAL)
        if match:
            self.scan.take(match.span())
            self.found.manual = True

    def _keep(self) -> None:
        match = self.scan.first(_KEEP)
        if match:
            self.scan.take(match.span())
            self.found.keep = True

    def _loops(self) -> None:
        for pattern in _LOOPS:
            match = self.scan.first(pattern)
            if match:
                self.scan.take(match.span())
                self.found.loop = _amount(match, "a")
                return
        match = self.scan.first(_LOOP_BARE)
        if match:
            self.scan.take(match.span())
            self.found.loop_default = True

    def _window(self) -> None:
        """"from 9am to 5pm" / "between 9 and 17": the hours an interval repeat may run in."""
        match = self.scan.first(_WINDOW)
        if match:
            start, end = _window_clock(match.group("a")), _window_clock(match.group("b"))
            self.found.window = (start, end, match.group(0).strip())
            self.scan.take(match.span())

    # -- stop rules ---------------------------------------------------------------------

    def _stops(self) -> None:
        for match in self.scan.matches(_NO_END):
            self.scan.take(match.span())
        per = self.scan.first(_PER_PERIOD)
        if per:
            raise _refuse(f"'{per.group(0)}' is not supported: name the times instead",
                          _EXPECTED, "every day at 9am and 5pm", (per.group(0),))
        self._max_runs()
        self._for_length()
        self._until()

    def _max_runs(self) -> None:
        match = self.scan.first(_MAX_RUNS)
        if not match:
            return
        word = (match.group("word") or "").lower()
        count = {"twice": 2, "thrice": 3}.get(word) or int(_number(match.group("n")
                                                                    or match.group("nx")))
        if count < 1:
            raise _refuse(f"'{match.group(0)}' is not a positive number of runs",
                          "a positive number of runs", "every hour, 5 times",
                          (match.group(0).strip(),))
        self.scan.take(match.span())
        self.found.max_runs, self.found.max_runs_text = count, match.group(0).strip()

    def _for_length(self) -> None:
        match = self.scan.first(_FOR)
        if not match:
            return
        amount = _amount(match, "f")
        self._set_until(self.ctx.now + amount.delta(), match.group(0).strip())
        self.scan.take(match.span())

    def _until(self) -> None:
        for match in self.scan.matches(_UNTIL):
            view = self.scan.view
            if (re.search(rf"{_DOW1}\s*$", view[:match.start()], re.IGNORECASE)
                    and re.match(_DOW1, view[match.end():], re.IGNORECASE)):
                continue                   # "monday through friday" is a range of days
            end = self._until_bound(match.end())
            if end is not None:
                instant, stop = end
                self._set_until(instant, self.scan.text[match.start():stop].strip())
                self.scan.take((match.start(), stop))
            elif match.group("word").lower() in ("until", "till", "til"):
                clause = self.scan.text[match.start():].split(",")[0].strip()
                named = date_like(self.scan.view[match.end():])
                if named and named[0][0] == 0:        # "until christmas": a day, not a date
                    raise _refuse(f"'{clause}' names a day this parser cannot date; write "
                                  "the date, such as 'until 25 December'", _EXPECTED,
                                  "every day at 9am until 24 December", (clause,))
                self.found.condition = True
                self.ctx.warn(f"'{clause}' is read as a condition: it stays in the task, and "
                              "the errand ends when a run reports it is met")

    def _set_until(self, instant: datetime, text: str) -> None:
        if self.found.until is not None:
            raise _conflict(self.found.until_text or "", text)
        if instant <= self.ctx.now:
            raise _refuse(f"'{text}' is already in the past", "an end in the future",
                          "every day at 9am until Friday", (text,))
        self.found.until, self.found.until_text = instant, text

    def _until_bound(self, pos: int) -> tuple[datetime, int] | None:
        """The end instant for the words after "until" and where they stop, if a date."""
        view = self.scan.view
        day_match = self._until_day(view, pos)
        if day_match is not None:
            day, stop = day_match
            clock = self._clock_at(view, stop)
            if clock is None:
                return _start_of_next_day(day, self.ctx), stop
            value, stop = clock
            return _localize(day, value.hour, value.minute, self.ctx), stop
        clock = self._clock_at(view, pos)
        if clock is None:
            return None
        value, stop = clock
        hour, minute = _resolve_clock(value, None, self.ctx)
        instant = _localize(self.ctx.today, hour, minute, self.ctx)
        if instant <= self.ctx.now:
            instant = _localize(self.ctx.today + timedelta(days=1), hour, minute, self.ctx)
            self.ctx.warn(f"'until {value.text}' has passed today; read as tomorrow")
        return instant, stop

    def _until_day(self, view: str, pos: int) -> tuple[date, int] | None:
        """A named day right after "until": the date it names (the last day included)."""
        today = self.ctx.today
        end = _END_OF.match(view, pos)
        if end:
            return _end_of(end.group("what").lower(), today), end.end()
        period = self._period(view, pos)
        if period is not None:
            first, stop, text = period
            if not text.lower().startswith(("next", "this", "the next")):
                self.ctx.warn(f"'until {text}' read as until {first.isoformat()}, 00:00 "
                              "(that month not included)")
            return first - timedelta(days=1), stop
        rel = _REL_DAY.match(view, pos)
        if rel:
            offsets = {"today": 0, "tonight": 0, "tomorrow": 1, "dayafter": 2}
            spec = _named_day(rel.group("which"), rel.group(0))
            return today + timedelta(days=offsets[spec.kind]), rel.end()
        for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY, _NUMERIC_DATE):
            match = pattern.match(view, pos)
            if match and not match.groupdict().get("pre"):
                spec = _date_from(match, self.ctx)
                return _calendar_day(spec, today, lambda d: d >= today, self.ctx), match.end()
        dows = _rx(rf"(?:(?P<pre>next|this|coming)\s+)?(?P<d>{_DOW1})").match(view, pos)
        if dows:
            weekday = _DOW_LOOKUP[dows.group("d").lower()]
            strictly = (dows.group("pre") or "").lower() == "next"
            return _next_weekday(weekday, today, strictly), dows.end()
        return None

    def _period(self, view: str, pos: int) -> tuple[date, int, str] | None:
        """"next week", "next month", "April": the first day of that period."""
        match = _PERIOD.match(view, pos)
        if not match:
            return None
        today = self.ctx.today
        text = match.group(0).strip()
        if match.group("mon"):
            month = _MONTHS[match.group("mon").lower()]
            year = int(match.group("y")) if match.group("y") else (
                today.year if month > today.month else today.year + 1)
            _check_year(year, text)
            return date(year, month, 1), match.end(), text
        unit, which = match.group("unit").lower(), match.group("which").lower()
        if which == "this":
            return None
        if unit == "week":
            return today + timedelta(days=7 - today.weekday()), match.end(), text
        if unit == "month":
            return today.replace(day=1) + relativedelta(months=1), match.end(), text
        return date(today.year + 1, 1, 1), match.end(), text

    def _clock_at(self, view: str, pos: int) -> tuple[_Clock, int] | None:
        """A time of day starting at ``pos`` (after optional spaces and "at")."""
        start = pos + len(view[pos:]) - len(view[pos:].lstrip())
        for pattern in _CLOCKS:
            match = pattern.match(view, start)
            if match:
                return _clock_from(match, pattern), match.end()
        return None

    # -- repeats ------------------------------------------------------------------------

    def _repeats(self) -> None:
        self._iso_week()
        self._every_nth_period()
        self._month_end()
        self._nth_day()
        self._doms()
        for step in (self._other, self._every_year, self._every_part, self._every_amount,
                     self._once_a):
            if self.found.freq is None:
                step()
        excluded = self._except()
        self._day_groups()
        if self.found.days is None:
            self._dows()
        self._adverb()
        self._yearly_date()
        if excluded is not None:
            self._apply_except(*excluded)
        self._start_date()

    def _except(self) -> tuple[frozenset[int], str] | None:
        match = self.scan.first(_EXCEPT)
        if not match:
            self._refuse_except_dates()
            return None
        self.scan.take(match.span())
        if match.group("list"):
            days = _dows_from(match.group("list"))[0]
        else:
            days = frozenset((5, 6) if match.group("weekends") else range(5))
        return days, match.group(0).strip()

    def _apply_except(self, excluded: frozenset[int], text: str) -> None:
        base = self.found.days.days if self.found.days else frozenset(range(7))
        days = base - excluded
        if not days:
            raise _refuse(f"'{text}' leaves no day to run on", _EXPECTED,
                          "every day except Sunday", (text,))
        label = f"{self.found.days.text} {text}" if self.found.days else text
        self.found.days = _Days(days, label, True, "every")

    def _refuse_except_dates(self) -> None:
        """"except tomorrow", "except holidays": no trigger can leave out single dates."""
        for match in self.scan.matches(_EXCEPT_ANY):
            what = match.group("what")
            if date_like(what) or re.fullmatch(r"(?:holiday|christmas|easter|vacation|"
                                               r"birthday)s?", what, re.IGNORECASE):
                raise _refuse(f"'{match.group(0)}' cannot be kept: a schedule can leave out "
                              "weekdays ('every day except sunday') but not single dates or "
                              "holidays; pause the errand over them, or let its command check "
                              "the date", _EXPECTED, "every day at 9am except weekends",
                              (match.group(0),))

    def _start_date(self) -> None:
        """"starting tomorrow", "beginning 1 April", "starting in april": the first fire's day."""
        for match in self.scan.matches(_START):
            view = self.scan.view
            period = self._period(view, match.end())
            day = (period[0], period[1]) if period else self._until_day(view, match.end())
            if day is None:
                continue
            said = self.scan.text[match.start():day[1]].strip()
            if day[0] < self.ctx.today:
                raise _refuse(f"'{said}' is in the past", "a start in the future",
                              "every day at 9am starting tomorrow", (said,))
            self.found.start = day[0]
            self.found.start_text = said
            self.scan.take((match.start(), day[1]))
            return

    def _iso_week(self) -> None:
        """Week numbers are not read: refused naming the words, never read as a date."""
        match = self.scan.first(_ISO_WEEK)
        if match:
            text = match.group(0).strip()
            raise _refuse(f"'{text}' is a week number, and week numbers are not read; name "
                          "the day instead, such as 'on 16 March' or 'every monday'",
                          _EXPECTED, "on 16 March at 9am", (text,))
        match = self.scan.first(_WEEK_END)
        if match:
            text = match.group(0).strip()
            raise _refuse(f"'{text}' does not name a day; say which, such as 'every friday'",
                          _EXPECTED, "every friday at 5pm", (text,))

    def _every_nth_period(self) -> None:
        """"every third month", "every other year", "every 2 years": a step of months or
        years (read before the days of the month, so "every 3rd month" is not the 3rd)."""
        match = self.scan.first(_EVERY_NTH_PERIOD)
        if not match:
            return
        word = match.group("n").lower()
        unit = match.group("unit").lower()
        if match.group("count") is not None and not match.group("plural"):
            return                        # "every 2 month" is not English; leave it
        n = _STEP_WORDS.get(word) or int(re.sub(r"\D", "", word))
        if n < 1:
            raise _refuse(f"'{match.group(0).strip()}' is no step", _EXPECTED,
                          "every 3 months on the 5th", (match.group(0).strip(),))
        text = match.group(0).strip()
        if unit == "year":
            self._set_freq(_Freq("yearly", text, n=n), match)
        elif match.group("count") is None:       # ordinal words; amounts are _every_amount's
            self._set_freq(_Freq("months", text, n=n), match)

    def _month_end(self) -> None:
        """"at the end of the month", "month-end": the last day of each month."""
        match = self.scan.first(_MONTH_END)
        if match:
            self.found.monthday = _MonthDay(match.group(0).strip(), day=-1)
            self.scan.take(match.span())

    def _nth_day(self) -> None:
        """"the last day of the month", "the 2nd-to-last friday of every month", "the last
        working day of the month" (a ``monthly`` trigger); "the 2nd friday of february" (a
        one-off date)."""
        match = self.scan.first(_NTH)
        if not match:
            return
        text = match.group(0).strip()
        scope = (match.group("scope") or "").lower()
        what = re.sub(r"\s+", " ", match.group("what").lower())
        spec = _month_day_spec(match, text, what)
        step = _NTH_NUMBER.get(match.group("ord").lower(), 1)
        if (match.group("every") and what == "day" and not scope and step > 1
                and not match.group("monthly") and not match.group("tolast")):
            self._set_freq(_Freq("days", text, n=step), match)   # "every 3rd day"
            return
        monthly = bool(match.group("every") or match.group("monthly")
                       or re.match(r"(?:the|each|every|a)\s", scope)
                       or not scope and (_MONTHLY_CONTEXT.search(self.scan.view) or (
                           self.found.freq is not None and self.found.freq.kind == "months")))
        if monthly:
            if self.found.monthday is not None:
                raise _conflict(self.found.monthday.text, text)
            if (match.group("every") and not scope and not match.group("monthly")
                    and spec.weekday not in (None, WORKDAY) and spec.nth == 2):
                self.ctx.warn(f"'{text}' read as the 2nd {spec.weekday_name()} of each month; "
                              f"for every other week say 'every other "
                              f"{spec.weekday_name().lower()}'")
            self.found.monthday = spec
            self.scan.take(match.span())
            return
        if not scope:
            view = self.scan.view
            near = re.match(r"\s*(?:every|each|at|on|daily|weekly|monthly)\b",
                            view[match.end():], re.IGNORECASE) or re.search(
                r"\b(?:every|each|at|on|except|and|but)\s*$", view[:match.start()],
                re.IGNORECASE)
            if not near:  # "summarize the last day of trading": the task's words, not a day
                return
            raise _refuse(f"'{text}' needs a month, such as '{text} of the month' (every "
                          f"month) or '{text} of march' (once)", _EXPECTED,
                          "the last friday of the month at 9am", (text,))
        day = self._nth_date(match, text, scope, spec)
        self.found.date = _DateSpec("date", text, day.year, day.month, day.day)
        self.scan.take(match.span())

    def _nth_date(self, match: re.Match[str], text: str, scope: str, spec: _MonthDay) -> date:
        today = self.ctx.today
        if scope.startswith(("this", "next")):
            first = today.replace(day=1) + relativedelta(months=scope.startswith("next"))
        else:
            month = _MONTHS[scope.split()[0]]
            year = int(match.group("y")) if match.group("y") else (
                today.year if month >= today.month else today.year + 1)
            _check_year(year, text)
            first = date(year, month, 1)
        found = _month_day_of(first.year, first.month, spec)
        if found is None:
            raise _refuse(f"'{text}' does not exist", _EXPECTED, "the 2nd friday of march",
                          (text,))
        day = first.replace(day=found)
        if day < today:
            raise _refuse(f"'{text}' ({day.isoformat()}) is in the past", _EXPECTED,
                          "the 2nd friday of march at 9am", (text,))
        return day

    def _set_freq(self, freq: _Freq, match: re.Match[str]) -> None:
        self.scan.take(match.span())
        self.found.freq = freq
        part = _part_of(match)
        if part:
            self.found.part = part

    def _other(self) -> None:
        match = self.scan.first(_OTHER)
        if not match:
            return
        text = match.group(0).strip()
        if match.group("dows"):
            days, _ = _dows_from(match.group("dows"))
            self.found.days = _Days(days, text, True, "every")
            self._set_freq(_Freq("weeks", text, n=2), match)
            return
        unit = (match.group("unit") or "day").lower()
        kind = {"day": "days", "week": "weeks", "month": "months"}[unit]
        self._set_freq(_Freq(kind, text, n=2), match)

    def _every_year(self) -> None:
        match = self.scan.first(_EVERY_YEAR)
        if match:
            self._set_freq(_Freq("yearly", match.group(0).strip()), match)

    def _every_part(self) -> None:
        match = self.scan.first(_EVERY_PART)
        if match:
            self._set_freq(_Freq("days", match.group(0).strip()), match)

    def _every_amount(self) -> None:
        match = self.scan.first(_EVERY_DUR)
        if match:
            self._set_freq(_freq_from_amount(_amount(match, "e")), match)

    def _once_a(self) -> None:
        match = self.scan.first(_ONCE_A)
        if match:
            unit = _UNITS[match.group("unit").lower()]
            self._set_freq(_freq_from_amount(_Amount(Fraction(1), unit, match.group(0))), match)

    def _day_groups(self) -> None:
        for pattern, days in ((_WEEKDAYS, range(5)), (_WEEKENDS, (5, 6))):
            match = self.scan.first(pattern)
            if match and self.found.days is None:
                self.scan.take(match.span())
                self.found.days = _Days(frozenset(days), match.group(0).strip(), True, "every")
                self.found.part = _part_of(match) or self.found.part

    def _dows(self) -> None:
        for match in self.scan.matches(_DOWS):
            pre = re.sub(r"\s+", " ", (match.group("pre") or "").lower())
            days, plural = _dows_from(match.group("list"))
            text = match.group(0).strip()
            if pre in ("next", "this", "coming", "this coming") and len(days) > 1:
                raise _refuse(f"'{text}' names several days; a one-shot runs once",
                              _EXPECTED, "next friday at 9am", (text,))
            if pre in ("every", "each", "on every") or plural or len(days) > 1:
                mode, recurring = "every", True
                if not plural and pre in ("", "on"):
                    self.ctx.warn(f"'{text}' read as every week")
            elif pre:
                mode, recurring = {"next": "next", "on": "on"}.get(pre, "this"), False
            else:
                continue                   # a bare singular weekday needs a neighbour
            self.scan.take(match.span())
            self.found.days = _Days(days, text, recurring, mode)
            self.found.part = _part_of(match) or self.found.part
            return

    def _doms(self) -> None:
        match = self.scan.first(_DOMS) or self.scan.first(_DOMS_BARE)
        if not match:
            return
        recurring = bool(match.groupdict().get("every") or match.group("monthly"))
        self.scan.take(match.span())
        self.found.doms = _Doms(_doms_from(match.group("list")), match.group(0).strip(),
                                recurring)

    def _adverb(self) -> None:
        """"daily", "hourly" …: not after a determiner, and next to any other repeat."""
        ambiguous = self.scan.first(_AMBIGUOUS_ADVERB)
        if ambiguous:
            word = ambiguous.group(0)
            raise _refuse(f"'{word}' means twice a period to some and every other period to "
                          "others; say which, e.g. 'every other month' or 'on the 1st and "
                          "15th of every month'", _EXPECTED, "every other month on the 1st",
                          (word,))
        if self.found.freq is not None:
            return
        for match in self.scan.matches(_ADVERB):
            if _DETERMINER.search(self.scan.text[:match.start()]):
                continue
            if self.found.repeats() and not self.scan.touches(match.span(), edges=False):
                continue
            adverb = match.group("adv").lower().replace("-", "")
            self._set_freq(_freq_from_adverb(adverb), match)
            if adverb == "biweekly":
                self.ctx.warn(f"'{match.group(0)}' read as every two weeks")
            if adverb == "nightly":
                self.found.part = "night"
            return

    def _yearly_date(self) -> None:
        """A month-day after "every"/"each" or next to a yearly repeat."""
        for pattern in (_DAY_MONTH, _MONTH_DAY, _NUMERIC_DATE):
            for match in self.scan.matches(pattern):
                pre = (match.group("pre") or "").lower()
                if pre in ("every", "each") or (self.found.freq is not None
                                                and self.found.freq.kind == "yearly"):
                    self.found.date = _date_from(match, self.ctx)
                    self.scan.take(match.span())
                    if self.found.freq is None:
                        self.found.freq = _Freq("yearly", match.group(0).strip())
                    return

    # -- one-shots ----------------------------------------------------------------------

    def _relative(self) -> None:
        if self.found.repeats() or self.found.loop:
            return
        match = self.scan.first(_IN_DUR)
        if match:
            self.scan.take(match.span())
            self.found.relative = _amount(match, "i" if match.group("iunit") else "j")

    def _dates(self) -> None:
        if self.found.repeats() or self.found.date is not None:
            return
        match = self.scan.first(_REL_DAY)
        if match:
            self.found.date = _named_day(match.group("which"), match.group(0).strip())
            self.found.part = _part_of(match) or self.found.part
            if self.found.date.kind == "tonight":
                self.found.part = "night"
            self.scan.take(match.span())
            return
        match = self.scan.first(_THIS_PART)
        if match:
            self.found.date = _DateSpec("today", match.group(0).strip())
            self.found.part = match.group("part").lower()
            self.scan.take(match.span())
            return
        for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY, _NUMERIC_DATE):
            match = self.scan.first(pattern)
            if match:
                self.found.date = _date_from(match, self.ctx)
                self.scan.take(match.span())
                return

    def _part_hints(self) -> None:
        match = self.scan.first(_IN_PART)
        if match:
            self.found.part = (match.group("part") or "night").lower()
            self.scan.take(match.span())

    # -- times of day -------------------------------------------------------------------

    def _minutes(self) -> None:
        match = self.scan.first(_T_MINUTE)
        if match:
            self.found.minute_past = _minute_from(match)
            self.found.minute_text = match.group(0).strip()
            self.scan.take(match.span())

    def _clocks(self) -> None:
        """Strong times that carry "at" ("at 9:30", "at noon") are always schedule."""
        for pattern in _CLOCKS[:-1]:
            for match in self.scan.matches(pattern):
                if match.group("at"):
                    self._take_clock(match, pattern)

    def _take_clock(self, match: re.Match[str], pattern: re.Pattern[str]) -> None:
        self.found.clocks.append(_clock_from(match, pattern))
        self.scan.take(match.span())

    def _weak_pieces(self) -> None:
        """Bare hours, times without "at" and bare weekdays, when next to the schedule."""
        changed = True
        while changed:
            changed = False
            for pattern in _CLOCKS:
                for match in self.scan.matches(pattern):
                    if self.scan.touches(match.span()):
                        self._take_clock(match, pattern)
                        changed = True
            if self.found.days is None and self._bare_weekday():
                changed = True

    def _bare_weekday(self) -> bool:
        for match in self.scan.matches(_rx(rf"{_DOW1}{_parts('part')}")):
            if self.scan.anything_taken() and self.scan.touches(match.span(), edges=False):
                days, plural = _dows_from(match.group(0))
                self.found.days = _Days(days, match.group(0).strip(), plural, "bare")
                self.found.part = _part_of(match) or self.found.part
                self.scan.take(match.span())
                return True
        return False


def _window_clock(text: str) -> _Clock:
    """A window end: "9", "9:30", "5pm", "noon" (bare hours stay bare)."""
    text = text.strip()
    bare = re.fullmatch(r"(\d{1,2})(?:[:.](\d{2}))?", text)
    if bare:
        hour, minute = int(bare.group(1)), int(bare.group(2) or 0)
        if hour > 23 or minute > 59:
            raise _bad_clock(text)
        return _Clock(hour, minute, text, bare=bare.group(2) is None)
    for pattern in (_T_AMPM, _T_WORD):
        match = pattern.fullmatch(text)
        if match:
            return _clock_from(match, pattern)
    raise _bad_clock(text)


def _freq_from_amount(amount: _Amount) -> _Freq:
    """"every 15 minutes" → interval; "every 3 days" → a day step; weeks and months alike."""
    whole = amount.whole()
    if amount.unit in ("d", "w", "f", "mo") and whole is not None:
        if amount.unit == "mo":
            return _Freq("months", amount.text, n=whole)
        if amount.unit == "d":
            return _Freq("days", amount.text, n=whole)
        return _Freq("weeks", amount.text, n=whole * (2 if amount.unit == "f" else 1))
    return _Freq("interval", amount.text, seconds=amount.seconds())


def _freq_from_adverb(adverb: str) -> _Freq:
    return {
        "hourly": _Freq("interval", adverb, seconds=3600),
        "daily": _Freq("days", adverb), "nightly": _Freq("days", adverb),
        "weekly": _Freq("weeks", adverb), "fortnightly": _Freq("weeks", adverb, n=2),
        "biweekly": _Freq("weeks", adverb, n=2), "monthly": _Freq("months", adverb),
        "quarterly": _Freq("months", adverb, n=3), "yearly": _Freq("yearly", adverb),
        "annually": _Freq("yearly", adverb),
    }[adverb]


def _month_day_spec(match: re.Match[str], text: str, what: str) -> _MonthDay:
    """The day an ``_NTH`` match names: a day (1…5, or from the end), the N-th or N-th to
    last weekday, or working day (Monday to Friday)."""
    ordinal = re.sub(r"[\s-]+", " ", match.group("ord").lower())
    if ordinal in ("penultimate", "next to last"):
        n, from_end = 2, True
    elif ordinal in ("last", "final"):
        n, from_end = 1, True
    else:
        n, from_end = _NTH_NUMBER[ordinal], bool(match.group("tolast"))
    if from_end and match.group("tolast") and ordinal in ("last", "final"):
        raise _refuse(f"'{text}' counts from the end twice", _EXPECTED,
                      "the 2nd to last day of the month", (text,))
    position = -n if from_end else n
    if what in _DOW_LOOKUP:
        return _MonthDay(text, weekday=WEEKDAY_NAMES[_DOW_LOOKUP[what]], nth=position)
    if what == "day":
        return _MonthDay(text, day=position)
    return _MonthDay(text, weekday=WORKDAY, nth=position)   # weekday, working/business day
