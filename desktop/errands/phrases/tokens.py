"""Words that look like dates or times: a phrase must use them or say why not.

After the scan, whatever is left is the task text. A date, weekday, month, ordinal, time
or a bounding word ("except", "until", "starting", "from … to", "for N times") left there
would silently not shape the schedule, so each is either refused (when it sits next to
the schedule, where it was almost surely meant as part of it) or named in a warning.
"""

from __future__ import annotations

import re

_WEEKDAY = (r"(?:mon|tues?|wed(?:nes)?|weds|thu(?:rs?)?|fri|satur|sun)day s?|mon|tues?|weds?"
            r"|thu(?:rs?)?|fri").replace(" ", "")
_MONTH = (r"january|february|march|april|june|july|august|september|october|november"
          r"|december|jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec")
_ORDINAL_WORD = r"first|second|third|fourth|fifth|last|final"
_HOLIDAY = (r"(?:christmas|xmas|easter|thanksgiving|halloween|new\s+year'?s?"
            r"|valentine'?s?)(?:\s+(?:eve|day))?(?:\s+(?:morning|afternoon|evening|night))?")
_TOKEN = re.compile(
    r"\b\d{1,4}[/.-]\d{1,2}(?:[/.-]\d{1,4})?\b\.?"                       # numeric dates
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|[ap])\b|\b\d{1,2}:\d{2}\b"        # times
    r"|\b(?:noon|midnight|o'?clock)\b"
    rf"|\b(?:{_WEEKDAY})\b"
    rf"|(?:\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?\b(?:{_MONTH})\b\.?(?:\s*\d{{1,2}}\b)?"
    r"|\b(?:may|mar)\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:may|mar)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b"
    rf"|\b(?:{_ORDINAL_WORD})\s+(?:(?:{_WEEKDAY})\b|(?:week|business|working\s+)?day\b"
    r"|week\b|month\b)"
    r"|\b(?:today|tonight|tomorrow|tmrw|yesterday|weekends?|weekdays?|holidays?)\b"
    rf"|\b{_HOLIDAY}\b|\b(?:work(?:ing)?|business|office)\s+hours\b"
    r"|\b(?:bi|semi)-?(?:weekly|monthly|annually|yearly)\b"
    r"|\b(?:before|by|after)\s*(?=\x00)"           # "before 5pm": a bound, not a time
    r"|\b(?:every|each)\s+(?:morning|afternoon|evening|night)s?\b"
    r"|(?<=\band )(?:morning|afternoon|evening|night)s?\b"  # "every morning and evening"
    r"|\b(?:after|before|at|by|during|until|till|around)\s+(?:lunch(?:time)?|breakfast"
    r"|dinner|supper|bedtime)\b|\b(?:eod|eob|cob)\b"
    r"|\b(?:end|close)\s+of\s+(?:the\s+)?(?:day|business)\b"
    r"|\b(?:except|excluding|until|till|starting|beginning)\b"
    r"|\bfrom\s+\S+\s+(?:to|until|till)\b"
    r"|\bfor\s+\d+\s+\w+|\b\d+x\b|\b(?:19[7-9]\d|2\d{3})\b",
    re.IGNORECASE)


def date_like(text: str) -> list[tuple[int, int]]:
    """The spans of date- and time-like words in ``text`` (masked characters never match)."""
    return [m.span() for m in _TOKEN.finditer(text) if "\x00" not in m.group(0)]
