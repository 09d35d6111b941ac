"""The words and patterns of schedule phrases, grouped by the step that uses them."""

from __future__ import annotations

import re


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
_DOW_ALTS = _alternatives(_DOW_LOOKUP)
_DOW1 = rf"\b(?:{_DOW_ALTS})\b(?!')"
_DOW_SEP = r"(?:\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|\s*/\s*)(?:on\s+)?"
_DOW_RANGE = r"\s*(?:-|\u2013|\bto\b|\bthrough\b|\bthru\b|\btill\b|\buntil\b)\s*"
_DOW_ITEM = rf"{_DOW1}(?:{_DOW_RANGE}{_DOW1})?"
_DOW_LIST = rf"{_DOW_ITEM}(?:{_DOW_SEP}{_DOW_ITEM})*"

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
    """An amount of time: ``10 minutes``, ``an hour``, ``half an hour``, ``15m``, ``two days``,
    ``an hour and a half``."""
    return (rf"(?:(?P<{p}n>{_NUMBER})\s*-?\s*|(?P<{p}half>(?:a\s+)?half\s+(?:an?\s+)?)"
            rf"|(?P<{p}quarter>(?:a\s+)?quarter\s+(?:of\s+)?(?:an?\s+)?)|an?\s+)?"
            rf"(?P<{p}unit>{_UNIT})\b(?P<{p}andhalf>\s+and\s+a\s+half\b)?")


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
                rf"(?:(?P<n>\d+|{_alternatives(_NUMBER_WORDS)})\s+(?:times|runs|occurrences"
                rf"|repetitions)|(?P<nx>\d+)\s?x|(?P<word>twice|thrice))\b"
                rf"(?!\s+(?:a|an|per|each|every)\b)")
_PER_PERIOD = _rx(rf"\b(?:(?:\d+|{_alternatives(_NUMBER_WORDS)})\s+times|\d+\s?x|twice|thrice)\s+"
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
_DOMS_BARE = _rx(rf"(?<![\w'])(?P<list>{_ORDINAL_LIST})"
                 rf"(?P<monthly>\s+(?:day\s+)?of\s+(?:every|each|the|a)\s+month\b)")
_DOMS = _rx(
    rf"(?:\bon\s+(?:the\s+)?|\b(?P<every>every|each)\s+(?:the\s+)?|\bthe\s+)"
    rf"(?P<list>{_ORDINAL_LIST})"
    rf"(?!\s+(?:of\s+)?{_MONTH}\b)(?!\s+{_DOW1})(?!\s+(?:week|day|time|run|one)s?\b)"
    rf"(?P<monthly>\s+(?:day\s+)?of\s+(?:every|each|the|a)\s+month\b)?")
_EXCEPT = _rx(rf"\b(?:except|but\s+not|excluding|apart\s+from|other\s+than)\s+(?:on\s+)?"
              rf"(?:(?P<list>{_DOW_LIST})|(?P<weekends>weekends?)|(?P<weekdays>weekdays))")
_START = _rx(r"\b(?:starting|beginning|effective|as\s+of)\s+(?:(?:on|from|in)\s+)?")
_EXCEPT_ANY = _rx(r"\b(?:except|but\s+not|excluding|apart\s+from|other\s+than|skip(?:ping)?"
                  r"|not\s+on)\s+(?:on\s+|the\s+|public\s+|bank\s+)*(?P<what>[\w/.:-]+)")
_PERIOD = _rx(rf"(?P<which>next|this|the\s+next)\s+(?P<unit>week|month|year)\b"
              rf"|(?:in\s+)?(?P<mon>{_MONTH})\b(?!\.?\s*\d)(?:\s+(?P<y>\d{{4}})\b)?")
_NTH = _rx(
    rf"(?:\b(?P<every>every|each)\s+)?(?:\bon\s+)?(?:\bthe\s+)?\b(?P<ord>1st|2nd|3rd|4th|5th"
    rf"|first|second|third|fourth|fifth|last|final|penultimate|next[\s-]+to[\s-]+last)"
    rf"(?P<tolast>[\s-]+(?:to|from)[\s-]+(?:the[\s-]+)?last)?\s+(?P<what>{_DOW1}|(?:week|business\s+|"
    rf"working\s+)?day)(?:\s+(?:of|in)\s+(?P<scope>(?:the|each|every|a|this|next)\s+month"
    rf"|{_MONTH}\b(?:\s+(?P<y>\d{{4}})\b)?))?(?P<monthly>\s+(?:monthly|every\s+month"
    rf"|each\s+month))?")
# "every third month", "every other year", "every 2 years": a step of months or years
_EVERY_NTH_PERIOD = _rx(
    r"(?:\bon\s+)?\b(?:every|each)\s+(?P<n>other|second|third|fourth|fifth|sixth|seventh|eighth"
    r"|ninth|tenth|eleventh|twelfth|\d{1,3}(?:st|nd|rd|th)|(?P<count>\d{1,3}|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve))\s+(?P<unit>month|year)(?P<plural>s)?\b")
_MONTH_END = _rx(r"(?:\b(?:on|at|by)\s+)?(?:\bthe\s+)?\bend\s+of\s+(?:(?:the|each|every|a)\s+)?"
                 r"month\b"
                 r"(?P<monthly>\s+(?:monthly|every\s+month|each\s+month))?"
                 r"|\b(?:at\s+)?month[-\s]end\b")
_MONTHLY_CONTEXT = _rx(r"\b(?:monthly|quarterly|(?:every|each)\s+(?:\w+\s+)?months?)\b")
# ISO week numbers ("in week 12", "calendar week 12", "KW 12"): refused, naming the words
_ISO_WEEK = _rx(r"(?:\b(?:in|during|on|for|of)\s+(?:the\s+)?(?:(?:iso|calendar)\s+)?(?:week|wk)"
                r"|\b(?:iso|calendar)\s+week|\bkw)"
                r"\s*(?:no\.?\s*|number\s+|#\s*)?(?P<w>\d{1,2})\b(?!\s*(?::|h\b|am|pm))")
_WEEK_END = _rx(r"(?:\b(?:on|at|by)\s+)?(?:\bthe\s+)?\bend\s+of\s+(?:(?:the|each|every|a)\s+)?week\b")
_ADVERB = _rx(r"\b(?P<adv>hourly|daily|nightly|weekly|fortnightly|bi-?weekly|monthly|quarterly"
              r"|yearly|annually)\b")
# Either twice per period or every other period, depending on who says it: refused.
_AMBIGUOUS_ADVERB = _rx(r"\b(?:bi-?monthly|semi-?monthly|semi-?weekly|bi-?annually"
                        r"|semi-?annually|bi-?yearly)\b")
_DETERMINER = _rx(r"\b(?:the|a|an|my|our|your|their|his|her|its|this|that|these|those|"
                  r"each|per)\s+\Z")

_IN_DUR = _rx(rf"\bin\s+{_dur('i')}|\b{_dur('j')}\s+from\s+(?:now|today)\b")
_REL_DAY = _rx(r"\b(?P<which>(?:the\s+)?day\s+after\s+tomorrow|tomorrow|tmrw|tmr|today|"
               rf"tonight)\b(?!'){_parts('part')}")
_THIS_PART = _rx(r"\bthis\s+(?P<part>morning|afternoon|evening)\b")
_ISO_DATE = _rx(r"(?:\bon\s+)?\b(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})\b")
_DAY_MONTH = _rx(rf"(?:\b(?P<pre>on|every|each)\s+)?(?:\bthe\s+)?\b(?P<d>\d{{1,2}})"
                 rf"(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<mon>{_MONTH})\b\.?"
                 rf"(?:,?\s+(?P<y>\d{{4}})\b)?")
_MONTH_DAY = _rx(rf"(?:\b(?P<pre>on|every|each)\s+)?\b(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})"
                 rf"(?:st|nd|rd|th)?\b(?![:.]\d)(?!\s*[ap]m\b)"
                 rf"(?P<more>(?:\s*(?:,|and|&)\s*(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\b"
                 rf"(?![:.]\d)(?!\s*[ap]m\b))*)(?:,?\s+(?P<y>\d{{4}})\b)?")
_NUMERIC_DATE = _rx(
    r"(?:\b(?P<pre>on|every|each)\s+)?(?<![\w/.:-])(?P<n1>\d{1,2})"
    r"(?:/(?P<n2>\d{1,2})(?:/(?P<ny>\d{4}|\d{2}))?"
    r"|(?P<sep>[.-])(?P<n3>\d{1,2})(?:(?P=sep)(?P<ny2>\d{4}|\d{2})|\.))(?![\w/:-]|\.\d)"
    r"(?<!\b24/7)")
_IN_PART = _rx(r"\b(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))\b")

_AT = (r"(?P<at>(?:\b(?:around|about)\s+)?(?:\bat|@)\s*(?:(?:around|about)\s+)?"
       r"|\baround\s+)")                                # "around 9", "at about 9": 09:00
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
