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
* "every other day" / "every N days" (2..15) *with* a time: cron ``*/N`` on the day of
  the month, which restarts on the 1st of each month. Without a time, or N > 15: an
  ``every Nd`` grid, which keeps the time of day the errand was created at.
* "every other week", "every other Monday", "every N weeks": cron cannot say this, so an
  ``every`` grid of 7*N days counted from creation, with a warning that the weekday and the
  time of day are not pinned.
* "weekly" without a weekday: Mondays. "monthly" without a day: the 1st.
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
* Refused rather than guessed: start dates ("starting tomorrow", no trigger shape can keep
  them), "3 times a day"/"twice daily" (name the times instead), a weekday together with a
  day of the month (cron would run on either), two times with different minutes and hours
  ("9:15 and 17:30"), and intervals that neither divide the hour/day nor fit an ``every``
  grid when combined with weekdays or windows.
* Inside a repeating schedule, day words such as "today" stay in the prompt ("every day at
  6pm summarize what happened today").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from typing import Callable, Iterator
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta

from .errors import InvalidInput
from .timeutil import UTC, format_duration, format_instant, parse_duration, zone

__all__ = ["ParsedSchedule", "parse_schedule_text", "EXAMPLES"]

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
_MAX_DAY_STEP = 15
_CRON_DOW = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


@dataclass
class ParsedSchedule:
    """What a phrase means: a trigger dict, the task part and how the schedule ends."""

    trigger: dict
    prompt: str | None
    title: str | None
    stop: dict
    warnings: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _alternatives(words: object) -> str:
    """A regex alternation, longest first so ``thurs`` wins over ``thu``."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "ninety": 90,
}
_CLOCK_WORDS = {w: n for w, n in _NUMBER_WORDS.items() if n <= 12}
_NUMBER = rf"(?:\d+(?:\.\d+)?|(?:{_alternatives(_NUMBER_WORDS)})\b)"
_CLOCK_WORD = rf"(?:{_alternatives(_CLOCK_WORDS)})"

_UNITS = {
    "seconds": "s", "second": "s", "secs": "s", "sec": "s", "s": "s",
    "minutes": "m", "minute": "m", "mins": "m", "min": "m", "m": "m",
    "hours": "h", "hour": "h", "hrs": "h", "hr": "h", "h": "h",
    "days": "d", "day": "d", "d": "d",
    "weeks": "w", "week": "w", "wks": "w", "wk": "w", "w": "w",
    "fortnights": "f", "fortnight": "f",
    "months": "mo", "month": "mo",
}
_UNIT = rf"(?:{_alternatives(_UNITS)})"
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "f": 14 * 86400}

_DOW_WORDS = {
    0: ("monday", "mon"), 1: ("tuesday", "tues", "tue"), 2: ("wednesday", "weds", "wed"),
    3: ("thursday", "thurs", "thur", "thu"), 4: ("friday", "fri"),
    5: ("saturday", "sat"), 6: ("sunday", "sun"),
}
_DOW_LOOKUP = {w: d for d, words in _DOW_WORDS.items() for w in words}
_DOW_PLURALS = {words[0] + "s": d for d, words in _DOW_WORDS.items()}
_DOW_LOOKUP.update(_DOW_PLURALS)
_DOW_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DOW_ALTS = _alternatives(_DOW_LOOKUP)
_DOW1 = rf"\b(?:{_DOW_ALTS})\b(?!')"
_DOW_SEP = r"(?:\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|\s*/\s*)(?:on\s+)?"
_DOW_LIST = rf"{_DOW1}(?:{_DOW_SEP}{_DOW1})*"

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}
_MONTH = rf"(?:{_alternatives(_MONTHS)})"

_ORDINAL_WORDS = {
    w: i + 1 for i, w in enumerate((
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
        "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
        "twenty-first", "twenty-second", "twenty-third", "twenty-fourth", "twenty-fifth",
        "twenty-sixth", "twenty-seventh", "twenty-eighth", "twenty-ninth", "thirtieth",
        "thirty-first"))
}
_ORDINAL = rf"(?:\d{{1,2}}(?:st|nd|rd|th)|(?:{_alternatives(_ORDINAL_WORDS)}))\b"
_ORDINAL_LIST = rf"{_ORDINAL}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?:the\s+)?{_ORDINAL})*"


def _parts(name: str) -> str:
    """An optional part of the day after a day word ("friday evening", "weekday mornings")."""
    return rf"(?:\s+(?P<{name}>morning|afternoon|evening|night)s?\b)?"


def _dur(p: str) -> str:
    """An amount of time: ``10 minutes``, ``an hour``, ``half an hour``, ``15m``, ``two days``."""
    return (rf"(?:(?P<{p}n>{_NUMBER})\s*-?\s*|(?P<{p}half>(?:a\s+)?half\s+(?:an?\s+)?)"
            rf"|(?P<{p}quarter>(?:a\s+)?quarter\s+(?:of\s+)?(?:an?\s+)?)|an?\s+)?"
            rf"(?P<{p}unit>{_UNIT})\b")


# --------------------------------------------------------------------------------------
# Patterns, grouped by the step that uses them
# --------------------------------------------------------------------------------------

_MANUAL = _rx(
    r"\b(?:only\s+)?(?:manually|on\s+demand|on\s+request|by\s+hand"
    r"|(?:when|whenever|if)\s+i\s+(?:ask(?:\s+for\s+it)?|say\s+so|trigger\s+it|run\s+it)"
    r"|when\s+(?:asked|requested|triggered))\b|^\s*manual\s*$")

_KEEP = _rx(r"^\s*(?:please\s+)?keep(?:\s+on)?\b")

_FINISHED = (r"(?:finishes|finished|ends|ended|completes|completed|stops|stopped|returns"
             r"|is\s+done|'s\s+done|is\s+finished|has\s+finished|is\s+complete|is\s+over|done)")
_AFTER_RUN = (rf"(?:after\s+(?:finishing|completion|completing|each(?:\s+{_FINISHED})?"
              rf"|(?:each|every|the\s+(?:previous|last))\s+(?:run|one|time|execution|attempt)"
              rf"(?:\s+{_FINISHED})?)|(?:after|once|when)\s+(?:it|that)\s+{_FINISHED})")
_LOOPS = (
    _rx(rf"\b(?:every|again)\s+{_dur('a')}\s*,?\s*{_AFTER_RUN}"),
    _rx(rf"\b(?:again\s+)?{_dur('a')}\s+{_AFTER_RUN}"),
    _rx(rf"\b(?:(?:in|on)\s+a\s+loop|loop(?:ing)?|repeatedly)\s*,?\s*(?:every|with\s+(?:a\s+)?"
        rf"(?:gap|pause|break|wait)\s+of)\s+{_dur('a')}"),
    _rx(rf"\b(?:with|wait(?:ing)?)\s+{_dur('a')}\s+(?:in\s+)?between\s+(?:runs|each\s+run)\b"),
)
_LOOP_BARE = _rx(r"\b(?:in|on)\s+a\s+loop\b")

_NO_END = _rx(r"\b(?:until\s+further\s+notice|until\s+i\s+(?:stop|cancel|disable)\s+it"
              r"|forever|indefinitely|with\s+no\s+end(?:\s+date)?)\b")
_MAX_RUNS = _rx(rf"\b(?:(?:for|at\s+most|up\s+to|max(?:imum)?(?:\s+of)?|only)\s+)?"
                rf"(?:(?P<n>\d+|{_alternatives(_NUMBER_WORDS)})\s+(?:times|runs)"
                rf"|(?P<word>twice|thrice))\b(?!\s+(?:a|an|per|each|every)\b)")
_PER_PERIOD = _rx(rf"\b(?:(?:\d+|{_alternatives(_NUMBER_WORDS)})\s+times|twice|thrice)\s+"
                  r"(?:(?:a|an|per|each|every)\s+(?:day|hour|week|month|year)|daily|hourly|"
                  r"weekly|monthly|yearly)\b")
_FOR = _rx(rf"\bfor\s+(?:the\s+(?:next|coming)\s+|another\s+)?{_dur('f')}")
_UNTIL = _rx(r"\b(?P<word>until|till|til|through|thru)\s+")
_END_OF = _rx(r"(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?P<what>day|week|month|year)\b")

_OTHER = _rx(rf"(?:\bon\s+)?\b(?:every|each)\s+(?:other|second|2nd|alternate)\s+"
             rf"(?:(?P<unit>day|week|month)s?\b|(?P<dows>{_DOW_LIST})){_parts('part')}"
             rf"|\bon\s+alternate\s+(?P<altdays>days)\b")
_EVERY_YEAR = _rx(r"(?:\bon\s+)?\b(?:every|each)\s+year\b|\bonce\s+(?:a|per)\s+year\b")
_EVERY_PART = _rx(r"(?:\bon\s+)?\b(?:every|each)\s+(?P<part>morning|afternoon|evening|night)\b")
_EVERY_DUR = _rx(rf"(?:\bon\s+)?\b(?:every|each)\s+(?:single\s+)?{_dur('e')}")
_ONCE_A = _rx(r"\bonce\s+(?:a|an|per|every)\s+(?P<unit>minute|hour|day|week|month)\b")
_WEEKDAYS = _rx(
    rf"(?:\b(?:every|each|on)\s+)?\b(?:weekdays|workdays|week\s?days|working\s+days"
    rf"|business\s+days)\b{_parts('p1')}"
    rf"|\b(?:every|each|on\s+a|on)\s+(?:weekday|workday|working\s+day|business\s+day)\b"
    rf"{_parts('p2')}|\b(?:weekday|workday)(?P<p3>\s+(?:morning|afternoon|evening|night)s)\b")
_WEEKENDS = _rx(rf"(?:\b(?:every|each|on|at|over)\s+(?:the\s+)?)?\bweekends\b{_parts('p1')}"
                rf"|\b(?:every|each|on|at|over)\s+(?:the\s+)?weekend\b{_parts('p2')}")
_DOWS = _rx(rf"(?:\b(?P<pre>on\s+every|every|each|on|next|this\s+coming|this|coming)\s+)?"
            rf"(?P<list>{_DOW_LIST}){_parts('part')}")
_DOMS = _rx(
    rf"(?:\bon\s+(?:the\s+)?|\b(?P<every>every|each)\s+(?:the\s+)?|\bthe\s+)"
    rf"(?P<list>{_ORDINAL_LIST})"
    rf"(?!\s+(?:of\s+)?{_MONTH}\b)(?!\s+{_DOW1})(?!\s+(?:week|day|time|run|one)s?\b)"
    rf"(?P<monthly>\s+(?:day\s+)?of\s+(?:every|each|the|a)\s+month\b)?")
_EXCEPT = _rx(rf"\b(?:except|but\s+not|excluding|apart\s+from|other\s+than)\s+(?:on\s+)?"
              rf"(?:(?P<list>{_DOW_LIST})|(?P<weekends>weekends?)|(?P<weekdays>weekdays))")
_START = _rx(r"\b(?:starting|beginning|effective|as\s+of)\s+(?:(?:on|from)\s+)?")
_ADVERB = _rx(r"\b(?P<adv>hourly|daily|nightly|weekly|fortnightly|monthly|yearly|annually)\b")
_DETERMINER = _rx(r"\b(?:the|a|an|my|our|your|their|his|her|its|this|that|these|those|"
                  r"each|per)\s+\Z")

_IN_DUR = _rx(rf"\bin\s+{_dur('i')}|\b{_dur('j')}\s+from\s+now\b")
_REL_DAY = _rx(r"\b(?P<which>(?:the\s+)?day\s+after\s+tomorrow|tomorrow|tmrw|tmr|today|"
               rf"tonight)\b(?!'){_parts('part')}")
_THIS_PART = _rx(r"\bthis\s+(?P<part>morning|afternoon|evening)\b")
_ISO_DATE = _rx(r"(?:\bon\s+)?\b(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})\b")
_DAY_MONTH = _rx(rf"(?:\b(?P<pre>on|every|each)\s+)?(?:\bthe\s+)?\b(?P<d>\d{{1,2}})"
                 rf"(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<mon>{_MONTH})\b\.?"
                 rf"(?:,?\s+(?P<y>\d{{4}})\b)?")
_MONTH_DAY = _rx(rf"(?:\b(?P<pre>on|every|each)\s+)?\b(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})"
                 rf"(?:st|nd|rd|th)?\b(?![:.]\d)(?!\s*[ap]m\b)(?:,?\s+(?P<y>\d{{4}})\b)?")
_IN_PART = _rx(r"\b(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))\b")

_AT = r"(?P<at>(?:\bat|@)\s*)"
_T_HALF = _rx(rf"{_AT}?\b(?P<q>half|(?:a\s+)?quarter)\s+(?P<rel>past|after|to|before)\s+"
              rf"(?P<h>\d{{1,2}}|{_CLOCK_WORD}|noon|midnight)(?:\s*(?P<ap>am|pm))?\b")
_T_OCLOCK = _rx(rf"{_AT}?\b(?P<h>\d{{1,2}}|{_CLOCK_WORD})\s*o'?\s?clock\b"
                rf"(?:\s*(?P<ap>am|pm)\b)?")
_T_MINUTE = _rx(
    rf"(?:\bat\s+)?(?:(?<![\d:])(?<!\d\s):(?P<m>\d{{2}})\b"
    rf"|\b(?P<m2>\d{{1,2}})\s+(?:minutes?\s+)?(?:past|after)(?:\s+the\s+hour)?\b"
    rf"(?!\s+(?:\d|{_CLOCK_WORD}\b|noon|midnight))"
    rf"|\b(?P<q>half|(?:a\s+)?quarter)\s+past(?:\s+the\s+hour)?\b"
    rf"(?!\s+(?:\d|{_CLOCK_WORD}\b|noon|midnight))"
    rf"|\bon\s+the\s+(?P<hh>half[\s-]hour|hour)\b)")
_T_AMPM = _rx(rf"{_AT}?\b(?P<h>\d{{1,2}})(?:[:.](?P<m>\d{{2}}))?\s*(?P<ap>am|pm)\b")
_T_24 = _rx(rf"{_AT}?\b(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?::\d{{2}})?\b(?!\s*[ap]m\b)")
_T_DOT = _rx(rf"{_AT}\b(?P<h>\d{{1,2}})\.(?P<m>\d{{2}})\b(?!\s*[ap]m\b)")
_T_WORD = _rx(rf"{_AT}?(?:\b12\s+)?\b(?P<w>noon|midday|midnight)\b")
_T_BARE = _rx(rf"{_AT}\b(?P<h>\d{{1,2}})\b(?![:.]\d)(?!\s*(?:[ap]m|o'?\s?clock|%|st|nd|rd|th)\b)")
_W_CLOCK = (r"(?:\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]m\b)?|noon\b|midday\b|midnight\b)")
_WINDOW = _rx(rf"\b(?:from|between)\s+(?P<a>{_W_CLOCK})\s*(?:to|and|until|till|-|\u2013)\s*"
              rf"(?P<b>{_W_CLOCK})")
_CLOCKS = (_T_HALF, _T_OCLOCK, _T_AMPM, _T_24, _T_DOT, _T_WORD, _T_BARE)

_GAP_TAIL = _rx(r"(?:[\s,;:&\-\u2013\u2014]|\band\b|\bthen\b)*\Z")
_GAP_HEAD = _rx(r"(?:[\s,;:&\-\u2013\u2014]|\band\b|\bthen\b)*")
_PUNCT_BEFORE = _rx(r"[,.;:!?(\[]\s*\Z")
_PUNCT_AFTER = _rx(r"\s*[,.;:!?)\]]")
_EDGE_JUNK = " \t,;:.-\u2013\u2014"
_CONNECTOR_ONLY = _rx(r"^(?:[\s,;:&\-\u2013\u2014]|\band\b|\bthen\b)*\Z")
_FILLER_PROMPTS = {"run", "run it", "do it", "it", "repeat", "repeat it", "schedule",
                   "schedule it", "remind me", "trigger", "trigger it", "go", "start",
                   "execute", "fire", "ping me", "do this", "run this", "again", "please",
                   "run again", "run this again"}


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
                          "a length in seconds, minutes, hours, days or weeks", "every 30 days")
        value = self.count * _UNIT_SECONDS[self.unit]
        if value.denominator != 1:
            raise _refuse(f"'{self.text}' is not a whole number of seconds",
                          "a whole number of seconds or more", "every 90 minutes")
        return int(value)

    def whole(self) -> int | None:
        """The count when it is a whole number (for day, week and month steps)."""
        return int(self.count) if self.count.denominator == 1 else None

    def delta(self) -> timedelta | relativedelta:
        if self.unit == "mo":
            months = self.whole()
            if months is None:
                raise _refuse(f"'{self.text}' is not a whole number of months",
                              "whole months", "for 2 months")
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
class _DateSpec:
    """A named day: ``today``, ``tomorrow`` or a calendar date (year may be missing)."""

    kind: str                 # "today" | "tonight" | "tomorrow" | "dayafter" | "date"
    text: str
    year: int | None = None
    month: int = 0
    day: int = 0


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

def _refuse(message: str, expected: str = _EXPECTED, example: str = _EXAMPLE) -> InvalidInput:
    return InvalidInput("schedule", message, expected, example)


def _examples() -> str:
    return "phrases that work: " + ", ".join(f"'{e}'" for e in EXAMPLES)


def _not_understood(text: str) -> InvalidInput:
    return _refuse(f"could not understand the schedule in '{text}'; {_examples()}")


def _conflict(first: str, second: str) -> InvalidInput:
    return _refuse(f"'{first}' and '{second}' cannot be combined in one schedule; "
                   f"{_examples()}")


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
    text = match.group(0).strip()
    if count <= 0:
        raise _refuse(f"'{text}' is not a positive length of time",
                      "a positive length of time", "every 15 minutes")
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
                   "a time like 9am, 9:30pm, 21:30, noon or midnight", "every day at 9am")


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
                      "minutes past the hour, 0-59", "every hour at :30")
    return minute


def _date_from(match: re.Match[str]) -> _DateSpec:
    """A calendar date from the ISO or month-name patterns, checked to exist."""
    groups = match.groupdict()
    month = _MONTHS[groups["mon"].lower()] if groups.get("mon") else int(groups["mo"])
    day, year = int(groups["d"]), int(groups["y"]) if groups.get("y") else None
    text = match.group(0).strip()
    try:
        date(year or 2028, month, day)     # 2028 is a leap year: 29 February may exist
    except ValueError:
        raise _refuse(f"'{text}' is not a date", "a real calendar date",
                      "on 24 December at 18:00") from None
    return _DateSpec("date", text, year, month, day)


def _named_day(which: str, text: str) -> _DateSpec:
    which = re.sub(r"\s+", " ", which.lower())
    kind = {"tmrw": "tomorrow", "tmr": "tomorrow", "day after tomorrow": "dayafter",
            "the day after tomorrow": "dayafter"}.get(which, which)
    return _DateSpec(kind, text)


def _dows_from(text: str) -> tuple[frozenset[int], bool]:
    """The weekdays in a list and whether any is plural ("mondays")."""
    words = [w.lower() for w in re.findall(_DOW1, text, re.IGNORECASE)]
    days = frozenset(_DOW_LOOKUP[w] for w in words)
    plural = any(w in _DOW_PLURALS for w in words)
    return days, plural


def _doms_from(text: str) -> tuple[int, ...]:
    values = []
    for raw in re.findall(_ORDINAL, text, re.IGNORECASE):
        word = raw.lower()
        value = _ORDINAL_WORDS[word] if word in _ORDINAL_WORDS else int(word[:-2])
        if not 1 <= value <= 31:
            raise _refuse(f"'{raw}' is not a day of the month (1-31)", "a day 1st-31st",
                          "every month on the 15th")
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


# --------------------------------------------------------------------------------------
# The scanner: one small step per family of phrases
# --------------------------------------------------------------------------------------

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
                          _EXPECTED, "every day at 9am and 5pm")
        self._max_runs()
        self._for_length()
        self._until()

    def _max_runs(self) -> None:
        match = self.scan.first(_MAX_RUNS)
        if not match:
            return
        word = (match.group("word") or "").lower()
        count = {"twice": 2, "thrice": 3}.get(word) or int(_number(match.group("n")))
        if count < 1:
            raise _refuse(f"'{match.group(0)}' is not a positive number of runs",
                          "a positive number of runs", "every hour, 5 times")
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
            end = self._until_bound(match.end())
            if end is not None:
                instant, stop = end
                self._set_until(instant, self.scan.text[match.start():stop].strip())
                self.scan.take((match.start(), stop))
            elif match.group("word").lower() in ("until", "till", "til"):
                self.found.condition = True

    def _set_until(self, instant: datetime, text: str) -> None:
        if self.found.until is not None:
            raise _conflict(self.found.until_text or "", text)
        if instant <= self.ctx.now:
            raise _refuse(f"'{text}' is already in the past", "an end in the future",
                          "every day at 9am until Friday")
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
        rel = _REL_DAY.match(view, pos)
        if rel:
            offsets = {"today": 0, "tonight": 0, "tomorrow": 1, "dayafter": 2}
            spec = _named_day(rel.group("which"), rel.group(0))
            return today + timedelta(days=offsets[spec.kind]), rel.end()
        for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY):
            match = pattern.match(view, pos)
            if match and not match.groupdict().get("pre"):
                spec = _date_from(match)
                return _calendar_day(spec, today, lambda d: d >= today, self.ctx), match.end()
        dows = _rx(rf"(?:(?P<pre>next|this|coming)\s+)?(?P<d>{_DOW1})").match(view, pos)
        if dows:
            weekday = _DOW_LOOKUP[dows.group("d").lower()]
            strictly = (dows.group("pre") or "").lower() == "next"
            return _next_weekday(weekday, today, strictly), dows.end()
        return None

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
        if self.found.repeats():
            self._refuse_start_date()

    def _except(self) -> tuple[frozenset[int], str] | None:
        match = self.scan.first(_EXCEPT)
        if not match:
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
                          "every day except Sunday")
        label = f"{self.found.days.text} {text}" if self.found.days else text
        self.found.days = _Days(days, label, True, "every")

    def _refuse_start_date(self) -> None:
        """A start date cannot be kept in any trigger shape: refuse rather than drop it."""
        for match in self.scan.matches(_START):
            day = self._until_day(self.scan.view, match.end())
            if day is not None:
                said = self.scan.text[match.start():day[1]]
                raise _refuse(f"start dates such as '{said}' are not "
                              "supported; create the errand on that day, or end it with "
                              "'until ...'", _EXPECTED, "every day at 9am until Friday")

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
                              _EXPECTED, "next friday at 9am")
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
        match = self.scan.first(_DOMS)
        if not match:
            return
        recurring = bool(match.group("every") or match.group("monthly"))
        self.scan.take(match.span())
        self.found.doms = _Doms(_doms_from(match.group("list")), match.group(0).strip(),
                                recurring)

    def _adverb(self) -> None:
        """"daily", "hourly" …: not after a determiner, and next to any other repeat."""
        if self.found.freq is not None:
            return
        for match in self.scan.matches(_ADVERB):
            if _DETERMINER.search(self.scan.text[:match.start()]):
                continue
            if self.found.repeats() and not self.scan.touches(match.span(), edges=False):
                continue
            self._set_freq(_freq_from_adverb(match.group("adv").lower()), match)
            if match.group("adv").lower() == "nightly":
                self.found.part = "night"
            return

    def _yearly_date(self) -> None:
        """A month-day after "every"/"each" or next to a yearly repeat."""
        for pattern in (_DAY_MONTH, _MONTH_DAY):
            for match in self.scan.matches(pattern):
                pre = (match.group("pre") or "").lower()
                if pre in ("every", "each") or (self.found.freq is not None
                                                and self.found.freq.kind == "yearly"):
                    self.found.date = _date_from(match)
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
        for pattern in (_ISO_DATE, _DAY_MONTH, _MONTH_DAY):
            match = self.scan.first(pattern)
            if match:
                self.found.date = _date_from(match)
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


def _end_of(what: str, today: date) -> date:
    """The last day of the current day, week (Sunday), month or year."""
    if what == "day":
        return today
    if what == "week":
        return today + timedelta(days=6 - today.weekday())
    if what == "month":
        return today + relativedelta(day=31)
    return date(today.year, 12, 31)


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
    raise _refuse(f"'{spec.text}' is not a date", "a real calendar date", "on 24 December")


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
        "monthly": _Freq("months", adverb), "yearly": _Freq("yearly", adverb),
        "annually": _Freq("yearly", adverb),
    }[adverb]


# --------------------------------------------------------------------------------------
# Clocks: applying the part of the day
# --------------------------------------------------------------------------------------

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


def _clock_list(found: _Found, ctx: _Context) -> list[tuple[int, int]]:
    """The times of day asked for, or the default for the part of the day (with a warning)."""
    if found.clocks:
        return [_resolve_clock(c, found.part, ctx) for c in found.clocks]
    hour, minute = _DEFAULT_CLOCK[found.part]
    ctx.warn(f"no time of day given; runs at {hour:02d}:{minute:02d}")
    return [(hour, minute)]


def _cron_time(found: _Found, ctx: _Context) -> tuple[str, str]:
    """Cron minute and hour fields for one or more times of day."""
    if found.minute_past is not None:
        raise _refuse(f"'{found.minute_text}' needs an hourly schedule such as 'every hour'",
                      "minutes past the hour with 'every hour'", "every hour at :30")
    if found.window is not None:
        raise _refuse(f"'{found.window[2]}' needs an interval such as 'every 30 minutes'",
                      _EXPECTED, "every 30 minutes from 9am to 5pm")
    times = sorted(set(_clock_list(found, ctx)))
    hours = sorted({h for h, _ in times})
    minutes = sorted({m for _, m in times})
    if len(minutes) == 1:
        return str(minutes[0]), ",".join(map(str, hours))
    if len(hours) == 1:
        return ",".join(map(str, minutes)), str(hours[0])
    shown = ", ".join(f"{h:02d}:{m:02d}" for h, m in times)
    raise _refuse(f"the times {shown} cannot share one cron schedule; make one errand per time",
                  "times with the same minute", "every day at 9am and 5pm")


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
                      "every month on the 1st")
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
                      "every 2 hours at :15")
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
                      _EXPECTED, "every 2 hours on weekdays")
    return _every(freq.seconds)


def _window_hours(freq: _Freq, window: tuple[_Clock, _Clock, str], ctx: _Context) -> str:
    """The cron hour field for an interval inside a daily window (start and end included
    for hour steps; minute steps stop before the end hour, which one cron line cannot add)."""
    first, last, text = window
    if first.minute or last.minute:
        raise _refuse(f"'{text}' must start and end on the hour for cron", _EXPECTED,
                      "every 30 minutes from 9am to 5pm")
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
                      "every hour from 9am to 5pm")
    if freq.seconds % 3600 == 0:
        step = freq.seconds // 3600
        end = min(end, 23)
        return f"{start}-{end}" + (f"/{step}" if step > 1 else "")
    step = freq.seconds // 60
    if end - 1 < start:
        raise _refuse(f"'{text}' is too short for '{freq.text}'", _EXPECTED,
                      "every 30 minutes from 9am to 5pm")
    ctx.warn(f"the last run each day is at {end - 1:02d}:{60 - step:02d}, not {end:02d}:00")
    return f"{start}-{end - 1}" if end - 1 > start else str(start)


def _build_days(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if freq.n == 1:
        minute, hour = _cron_time(found, ctx)
        dom, dow = _day_fields(found)
        return _cron(minute, hour, dom, "*", dow, ctx)
    if found.days or found.doms:
        piece = found.days or found.doms
        raise _conflict(freq.text, piece.text if piece else "")
    if found.clocks and freq.n <= _MAX_DAY_STEP:
        minute, hour = _cron_time(found, ctx)
        ctx.warn(f"'{freq.text}' counts days of the month (*/{freq.n}), so it restarts on "
                 "the 1st of each month")
        return _cron(minute, hour, f"*/{freq.n}", "*", "*", ctx)
    if found.clocks:
        ctx.warn(f"'{freq.text}' cannot keep a time of day; it runs every {freq.n} days "
                 "counted from when the errand is created")
    else:
        ctx.warn(f"'{freq.text}' runs every {freq.n} days at the time of day the errand is "
                 "created; add a time (e.g. 'at 9am') to pin it")
    return _every(freq.n * 86400)


def _build_weeks(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if found.doms:
        raise _conflict(freq.text, found.doms.text)
    if freq.n == 1:
        if found.days is None:
            ctx.warn("no weekday given; runs on Mondays")
        minute, hour = _cron_time(found, ctx)
        dow = _dow_field(found.days.days) if found.days else "MON"
        return _cron(minute, hour, "*", "*", dow, ctx)
    if found.days and len(found.days.days) > 1:
        raise _refuse(f"'{freq.text}' on several weekdays cannot be expressed; make one "
                      "errand per weekday", _EXPECTED, "every other Monday at 9am")
    pinned = []
    if found.days:
        pinned.append(_DOW_NAMES[next(iter(found.days.days))])
    if found.clocks:
        pinned.append(", ".join(f"{h:02d}:{m:02d}" for h, m in _clock_list(found, ctx)))
    note = f" (not pinned to {' '.join(pinned)})" if pinned else ""
    ctx.warn(f"cron cannot express '{freq.text}'; runs every {freq.n * 7} days counted from "
             f"when the errand is created{note}")
    return _every(freq.n * 7 * 86400)


def _build_months(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    if found.days:
        raise _conflict(freq.text, found.days.text)
    if found.doms is None:
        ctx.warn("no day of the month given; runs on the 1st")
    elif max(found.doms.days) > 28:
        ctx.warn(f"months without day {max(found.doms.days)} are skipped")
    minute, hour = _cron_time(found, ctx)
    dom = ",".join(map(str, found.doms.days)) if found.doms else "1"
    month = "*"
    if freq.n > 1:
        month = f"*/{freq.n}"
        ctx.warn(f"'{freq.text}' counts months from January (*/{freq.n})")
    return _cron(minute, hour, dom, month, "*", ctx)


def _build_yearly(freq: _Freq, found: _Found, ctx: _Context) -> dict:
    spec = found.date
    if spec is None or spec.kind != "date":
        raise _refuse(f"'{freq.text}' needs a date such as 'every year on 24 December'",
                      _EXPECTED, "every year on 24 December at 9am")
    if spec.year is not None:
        raise _conflict(freq.text, spec.text)
    if found.days or found.doms:
        piece = found.days or found.doms
        raise _conflict(freq.text, piece.text if piece else "")
    if (spec.month, spec.day) == (2, 29):
        ctx.warn("29 February only exists in leap years")
    minute, hour = _cron_time(found, ctx)
    return _cron(minute, hour, str(spec.day), str(spec.month), "*", ctx)


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
    if found.stop_text():
        raise _refuse(f"a one-shot runs once and takes no stop rule; remove "
                      f"'{found.stop_text()}'", "a one-shot without a stop rule",
                      "tomorrow at 7pm")
    if found.minute_past is not None:
        raise _refuse(f"'{found.minute_text}' needs an hourly schedule such as 'every hour'",
                      _EXPECTED, "every hour at :30")
    if len(found.clocks) > 1:
        raise _refuse("a one-shot takes one time of day; got "
                      + " and ".join(f"'{c.text}'" for c in found.clocks),
                      "one time of day", "tomorrow at 7pm")
    if found.relative is not None:
        instant = _relative_instant(found, ctx)
    else:
        instant = _named_instant(found, ctx)
    if instant <= ctx.now:
        local = instant.astimezone(ctx.tz)
        raise _refuse(f"{local:%Y-%m-%d %H:%M} in {ctx.tz_name} has already passed "
                      f"(it is now {ctx.now.astimezone(ctx.tz):%Y-%m-%d %H:%M})",
                      "a time in the future", "tomorrow at 7pm")
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
                      _EXPECTED, "next friday at 9am")
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
                      _EXPECTED, "on the 15th at 9am")
    first = ctx.today.replace(day=1)
    for months in range(0, 13):
        start = first + relativedelta(months=months)
        try:
            day = start.replace(day=doms.days[0])
        except ValueError:
            continue
        if day >= ctx.today and future(day):
            return day
    raise _refuse(f"'{doms.text}' never comes", _EXPECTED, "on the 15th at 9am")


def _build_trigger(found: _Found, ctx: _Context, text: str) -> dict:
    interval = found.freq is not None and found.freq.kind == "interval"
    if found.window is not None and (not interval or found.keep or found.loop):
        raise _refuse(f"'{found.window[2]}' needs an interval such as 'every 30 minutes'",
                      _EXPECTED, "every 30 minutes from 9am to 5pm")
    if found.manual:
        others = [p.text for p in (found.freq, found.days, found.doms, found.date,
                                   found.relative, found.loop) if p]
        if others or found.clocks or found.keep:
            raise _conflict("manually", others[0] if others else "keep")
        return {"kind": "manual"}
    if _wants_loop(found):
        return _build_loop(found, ctx)
    if found.repeats():
        return _build_repeat(found, ctx)
    if _has_one_shot(found):
        return _build_one_shot(found, ctx)
    raise _not_understood(text)


# --------------------------------------------------------------------------------------
# Prompt and title
# --------------------------------------------------------------------------------------

def _prompt(leftover: str) -> str | None:
    """The task text: connectors at the edges dropped; ``None`` if nothing meaningful is left."""
    text = leftover.strip(_EDGE_JUNK)
    text = re.sub(r"^(?:and|then|to)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+(?:and|then)$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,;:.!?])", r"\1", text).strip(_EDGE_JUNK)
    quoted = re.fullmatch(r"(please[,\s]+)?([\"'])(.+)\2", text, flags=re.IGNORECASE)
    if quoted:
        text = (quoted.group(1) or "") + quoted.group(3).strip()
    if not re.search(r"\w", text) or text.lower().rstrip(".!") in _FILLER_PROMPTS:
        return None
    return text


def _title(prompt: str | None) -> str | None:
    """A one-line title: "please" dropped, first letter capitalised, at most 120 characters."""
    if prompt is None:
        return None
    text = re.sub(r"^please[\s,]+", "", prompt.splitlines()[0], flags=re.IGNORECASE)
    text = text.rstrip(" .!,;:") or prompt.strip()
    text = text[0].upper() + text[1:]
    if len(text) > _TITLE_MAX:
        cut = text[:_TITLE_MAX - 1]
        cut = cut[:cut.rfind(" ")] if " " in cut else cut
        text = cut.rstrip(" ,;:") + "\u2026"
    return text


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------

def _normalize(text: str) -> str:
    """Unify apostrophes, ``a.m.``, ISO ``T`` separators and spacing; keep the case."""
    text = text.replace("\u2019", "'").replace("\u00a0", " ")
    text = re.sub(r"(?<![a-z])([ap])\.\s?m\b\.?", r"\1m", text, flags=re.IGNORECASE)
    text = re.sub(r"(\d{4}-\d{2}-\d{2})[Tt](\d{1,2}:\d{2})", r"\1 \2", text)
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text


def parse_schedule_text(text: str, tz_name: str, now: datetime) -> ParsedSchedule:
    """Read a typed phrase ("every weekday at 9am, summarize my inbox") into a schedule.

    ``now`` anchors one-shots and end dates (a naive value is taken as UTC); ``tz_name``
    is the IANA zone the wall times are meant in. Raises ``InvalidInput`` (field
    ``schedule``) for empty or unknown phrases, impossible times and contradictions.
    """
    tz = zone(tz_name)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    ctx = _Context(tz, tz_name, now.astimezone(UTC).replace(microsecond=0))
    if not isinstance(text, str) or not text.strip():
        raise _refuse(f"the schedule text is empty; {_examples()}")
    if len(text) > _MAX_TEXT:
        raise _refuse(f"the schedule text is longer than {_MAX_TEXT} characters",
                      "a short phrase", _EXAMPLE)
    normalized = _normalize(text)
    reader = _Reader(normalized, ctx)
    found = reader.read()
    trigger = _build_trigger(found, ctx, normalized)
    one_shot = trigger["kind"] == "at"
    prompt = _prompt(reader.scan.leftover())
    stop = {"max_runs": found.max_runs, "until": format_instant(found.until),
            "when_condition_met": found.condition and not one_shot}
    return ParsedSchedule(trigger, prompt, _title(prompt), stop, list(ctx.warnings))
