"""The common German and Chinese schedule forms, rewritten into the English the reader knows.

"jeden Montag um 10 Uhr Bericht schreiben" becomes "every monday at 10:00 Bericht
schreiben", "每天晚上8点总结邮件" becomes "every day at 20:00 总结邮件": only the schedule
words are rewritten, the task stays as it was typed, and the English reader does the rest
(so a German or Chinese phrase is read exactly as its English twin, warnings included).
Covered: every day / weekday / named weekday / week / month (on a day), a time of day
(with the part of the day), in N minutes / hours / days, today / tomorrow / the day after,
every N minutes / hours / days / weeks, and "remind me". Anything else is left alone, and
the window says plainly which forms are read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..cron import ordinal

LANGUAGES = ("de", "zh")

_Rule = tuple[re.Pattern[str], "str | Callable[[re.Match[str]], str]"]


# ------------------------------------------------------------------------------ German

_DE_DAYS = {"montag": "monday", "dienstag": "tuesday", "mittwoch": "wednesday",
            "donnerstag": "thursday", "freitag": "friday", "samstag": "saturday",
            "sonnabend": "saturday", "sonntag": "sunday"}
_DE_DAY = "(" + "|".join(_DE_DAYS) + ")"
_DE_NUMBERS = {"einer": 1, "einem": 1, "eine": 1, "ein": 1, "zwei": 2, "drei": 3, "vier": 4,
               "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
               "zwölf": 12, "fünfzehn": 15, "zwanzig": 20, "dreißig": 30}
_DE_NUMBER = r"(\d{1,3}|" + "|".join(sorted(_DE_NUMBERS, key=len, reverse=True)) + r")"
_DE_UNITS = {"minute": "minutes", "minuten": "minutes", "stunde": "hours", "stunden": "hours",
             "tag": "days", "tage": "days", "tagen": "days", "woche": "weeks",
             "wochen": "weeks", "monat": "months", "monate": "months", "monaten": "months"}
_DE_UNIT = "(" + "|".join(sorted(_DE_UNITS, key=len, reverse=True)) + r")\b"


def _de_number(text: str) -> int:
    return int(text) if text.isdigit() else _DE_NUMBERS[text.lower()]


def _de_amount(m: re.Match[str], lead: str) -> str:
    return f" {lead} {_de_number(m.group(1))} {_DE_UNITS[m.group(2).lower()]} "


def _de_half(m: re.Match[str]) -> str:
    hour = (int(m.group(1)) - 1) % 24          # "halb 8" is 07:30
    return f" at {hour:02d}:30 "


_GERMAN: list[_Rule] = [
    (re.compile(r"(?:\bbitte\s+)?\berinnere\s+(?:mich|uns)(?:\s+bitte)?\b", re.I), " remind me "),
    (re.compile(r"\bum\s+halb\s+(\d{1,2})\b", re.I), _de_half),
    (re.compile(r"\bum\s+(\d{1,2})[:.](\d{2})\s*(?:uhr\b)?", re.I),
     lambda m: f" at {int(m.group(1)):02d}:{m.group(2)} "),
    (re.compile(r"\bum\s+(\d{1,2})\s*uhr\s+(\d{1,2})\b", re.I),
     lambda m: f" at {int(m.group(1)):02d}:{int(m.group(2)):02d} "),
    (re.compile(r"\bum\s+(\d{1,2})\s*uhr\b", re.I), lambda m: f" at {int(m.group(1)):02d}:00 "),
    (re.compile(r"\b(\d{1,2})\s*uhr\b", re.I), lambda m: f" at {int(m.group(1)):02d}:00 "),
    (re.compile(r"\bum\s+(\d{1,2})\b(?!\s*[.:])", re.I), lambda m: f" at {m.group(1)} "),
    (re.compile(r"\bin\s+einer\s+halben\s+stunde\b", re.I), " in 30 minutes "),
    (re.compile(r"\bin\s+" + _DE_NUMBER + r"\s+" + _DE_UNIT, re.I),
     lambda m: _de_amount(m, "in")),
    (re.compile(r"\balle\s+" + _DE_NUMBER + r"\s+" + _DE_UNIT, re.I),
     lambda m: _de_amount(m, "every")),
    (re.compile(r"\b(?:stündlich|jede\s+stunde)\b", re.I), " every hour "),
    (re.compile(r"\bjede\s+minute\b", re.I), " every minute "),
    (re.compile(r"\b(?:(?:an\s+)?jede[mn]\s+werktag|werktags|an\s+werktagen"
                r"|montags?\s+bis\s+freitags?)\b", re.I), " every weekday "),
    (re.compile(r"\b(?:an\s+)?jede[mn]\s+(?:zweiten|anderen)\s+" + _DE_DAY + r"\b", re.I),
     lambda m: f" every other {_DE_DAYS[m.group(1).lower()]} "),
    (re.compile(r"\b(?:jedes|am|an\s+jedem)\s+wochenende\b", re.I), " every weekend "),
    (re.compile(r"\b(?:jeden|an\s+jedem)\s+" + _DE_DAY + r"\b", re.I),
     lambda m: f" every {_DE_DAYS[m.group(1).lower()]} "),
    (re.compile(r"\b" + _DE_DAY + r"s\b", re.I), lambda m: f" every {_DE_DAYS[m.group(1).lower()]} "),
    (re.compile(r"\b(?:nächsten|kommenden)\s+" + _DE_DAY + r"\b", re.I),
     lambda m: f" next {_DE_DAYS[m.group(1).lower()]} "),
    (re.compile(r"\bam\s+" + _DE_DAY + r"\b", re.I), lambda m: f" on {_DE_DAYS[m.group(1).lower()]} "),
    (re.compile(r"\b(?:jeden\s+monat|monatlich)\s+am\s+(\d{1,2})\.?(?!\d)", re.I),
     lambda m: f" every month on the {ordinal(int(m.group(1)))} "),
    (re.compile(r"\bam\s+(\d{1,2})\.\s+(?:jedes|jeden|des)\s+monats\b", re.I),
     lambda m: f" on the {ordinal(int(m.group(1)))} of every month "),
    (re.compile(r"\b(?:jeden\s+monat|monatlich)\b", re.I), " every month "),
    (re.compile(r"\b(?:jede\s+woche|wöchentlich)\b", re.I), " every week "),
    (re.compile(r"\b(?:jeden\s+tag|täglich)\b", re.I), " every day "),
    (re.compile(r"\bjeden\s+morgen\b", re.I), " every morning "),
    (re.compile(r"\bjeden\s+abend\b", re.I), " every evening "),
    (re.compile(r"\bmorgen\s+früh\b", re.I), " tomorrow morning "),
    (re.compile(r"\bmorgen\s+abend\b", re.I), " tomorrow evening "),
    (re.compile(r"\bheute\s+abend\b", re.I), " tonight "),
    (re.compile(r"\bübermorgen\b", re.I), " the day after tomorrow "),
    # "morgen" is tomorrow; "Morgen" mid-sentence is the morning ("Guten Morgen")
    (re.compile(r"(?<!\w)morgen\b|^\s*Morgen\b|\bMorgen(?=\s+(?:um|at|früh)\b)"),
     " tomorrow "),
    (re.compile(r"\bheute\b", re.I), " today "),
    (re.compile(r"\b(?:morgens|am\s+morgen|vormittags)\b", re.I), " in the morning "),
    (re.compile(r"\b(?:nachmittags|am\s+nachmittag)\b", re.I), " in the afternoon "),
    (re.compile(r"\b(?:abends|am\s+abend)\b", re.I), " in the evening "),
    (re.compile(r"\bnachts\b", re.I), " at night "),
]


# ----------------------------------------------------------------------------- Chinese

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_DAYS = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday",
            "五": "friday", "六": "saturday", "日": "sunday", "天": "sunday"}
_ZH_WEEK = r"(?:周|星期|礼拜|禮拜)"
_ZH_PM = ("下午", "晚上", "傍晚", "今晚")
_ZN = r"(?:\d{1,3}|[零〇一二两兩三四五六七八九十]{1,4})"   # 9, 十五, 二十


def _zh_number(text: str) -> int:
    """9, 一 … 九十九 (what a time or an amount needs)."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0)
                                                              if ones else 0)
    value = 0
    for ch in text:
        value = value * 10 + _ZH_DIGITS[ch]
    return value


def _zh_clock(m: re.Match[str]) -> str:
    found = m.groupdict()
    part = found.get("part") or ""
    hour = _zh_number(found.get("h") or found.get("h2") or "0")
    minute = 30 if found.get("half") else _zh_number(found.get("m") or found.get("m2") or "0")
    if part in ("晚上", "今晚") and hour == 12 and minute == 0:
        return " at midnight "           # 晚上12点: the midnight that ends the day
    if part in _ZH_PM and hour < 12:
        hour += 12
    elif part == "凌晨" and hour == 12:
        hour = 0
    elif part == "中午" and hour < 6:
        hour += 12
    return f" at {hour:02d}:{minute:02d} "


_ZH_UNITS = {"分钟": "minutes", "分鐘": "minutes", "小时": "hours", "小時": "hours",
             "天": "days", "周": "weeks", "週": "weeks", "星期": "weeks"}
_ZH_UNIT = "(" + "|".join(_ZH_UNITS) + ")"

_CHINESE: list[_Rule] = [
    (re.compile(r"提醒(?:我|我们|我們)"), " remind me to "),
    (re.compile(r"(" + _ZN + r")\s*(?:个|個)?\s*" + _ZH_UNIT + r"(?:之)?[后後]"),
     lambda m: f" in {_zh_number(m.group(1))} {_ZH_UNITS[m.group(2)]} "),
    (re.compile(r"每(?:隔)?\s*(" + _ZN + r")\s*(?:个|個)?\s*" + _ZH_UNIT),
     lambda m: f" every {_zh_number(m.group(1))} {_ZH_UNITS[m.group(2)]} "),
    (re.compile(r"每(?:个|個)?(?:小时|小時)"), " every hour "),
    (re.compile(r"每(?:一)?分钟|每分鐘"), " every minute "),
    (re.compile(r"(?P<part>上午|早上|早晨|凌晨|中午|下午|晚上|傍晚|今晚)?\s*(?P<h>" + _ZN
                + r")\s*[点點时時](?:\s*(?P<half>半)|\s*(?P<m>" + _ZN + r")\s*分?)?"), _zh_clock),
    # HH:MM after a part of the day, or right before Chinese text ("7:30跑步"), never a
    # bare "9:30" in an English sentence
    (re.compile(r"(?P<part>上午|早上|早晨|凌晨|中午|下午|晚上|傍晚)\s*(?P<h>\d{1,2}):(?P<m>\d{2})"
                r"|(?P<h2>\d{1,2}):(?P<m2>\d{2})(?=[\u4e00-\u9fff])"), _zh_clock),
    (re.compile(r"每(?:个|個)?月(?:的)?最后一天|每(?:个|個)?月(?:的)?月底|月底"),
     " on the last day of every month "),
    (re.compile(r"每(?:个|個)?" + _ZH_WEEK + r"([一二三四五六日天]{2,})"),
     lambda m: " every " + ", ".join(_ZH_DAYS[c] for c in m.group(1)) + " "),
    (re.compile(r"(?:每个|每個|每)?工作日(?:每天)?"), " every weekday "),
    (re.compile(r"每(?:个|個)?" + _ZH_WEEK + r"([一二三四五六日天])"),
     lambda m: f" every {_ZH_DAYS[m.group(1)]} "),
    (re.compile(r"下(?:个|個)?" + _ZH_WEEK + r"([一二三四五六日天])"),
     lambda m: f" next {_ZH_DAYS[m.group(1)]} "),
    (re.compile(r"每(?:个|個)?月\s*(" + _ZN + r")\s*[号號日]"),
     lambda m: f" every month on the {ordinal(_zh_number(m.group(1)))} "),
    (re.compile(r"每(?:个|個)?月"), " every month "),
    (re.compile(r"每(?:个|個)?" + _ZH_WEEK), " every week "),
    (re.compile(r"每(?:天|日)"), " every day "),
    (re.compile(r"后天|後天"), " the day after tomorrow "),
    (re.compile(r"明天|明日"), " tomorrow "),
    (re.compile(r"今天|今日"), " today "),
    (re.compile(r"今晚"), " tonight "),
    (re.compile(r"(?<!every )" + _ZH_WEEK + r"([一二三四五六日天])"),
     lambda m: f" on {_ZH_DAYS[m.group(1)]} "),
]


_GAP = re.compile(r"[\s,，、]*")
# after a reminder's schedule, what leads into its message
_DE_LEAD = re.compile(r"\s*,?\s*(?:daran\s*,?\s*(?:dass\s+|zu\s+)?|an\s+|,\s*dass\s+)", re.I)


def _region(text: str, start: int, rules: list[_Rule]) -> tuple[int, list[str]]:
    """From ``start``, the schedule words the rules read one after another (gaps of
    spaces and commas between them): where they end and their English."""
    pos, out, kinds = start, [], set()
    while True:
        at = _GAP.match(text, pos).end()  # type: ignore[union-attr]  (it matches "")
        for pattern, replacement in rules:
            found = pattern.match(text, at)
            if found and found.end() > at:
                english = (replacement if isinstance(replacement, str)
                           else replacement(found))  # type: ignore[operator]
                kind = _kind(english)
                # a repeat takes no second repeat and no one-off day: "jeden Tag um 9 Uhr
                # in 3 Tagen fällige Rechnungen" keeps "in 3 Tagen" in the task
                if kind in ("repeat", "once") and kinds & {"repeat", "once"}:
                    return pos, out
                kinds.add(kind)
                out.append(english)
                pos = found.end()
                break
        else:
            return pos, out


def _kind(english: str) -> str:
    """A rewritten piece's part in the schedule: a repeat, a one-off day, or a time or
    part of the day ("in the evening" is neither repeat nor day)."""
    words = english.strip()
    if words.startswith("every") or " every " in f" {words} ":
        return "repeat"
    if re.match(r"in \d|tomorrow|today|tonight|the day after|next |on (?!the )", words):
        return "once"
    return "other"


def _apply(text: str, rules: list[_Rule], lead: re.Pattern[str] | None = None) -> str:
    """Rewrite the schedule words at the start of ``text`` (or, when none are there, at
    its end); the task between stays exactly as typed, so a "morgen" or a "星期一" in
    the task is not read as part of the schedule."""
    text = text.strip()
    end, english = _region(text, 0, rules)
    if english:
        rest = text[end:]
        if lead is not None and any("remind me" in e for e in english):
            connector = lead.match(rest)
            if connector:
                rest = rest[connector.end():]
                english.append(" to ")
        return re.sub(r"\s+", " ", " ".join(english) + " " + rest).strip(" ,")
    for start in range(1, len(text)):   # the schedule after the task
        if text[start - 1].isalnum() and text[start].isalnum() and text[start].isascii():
            continue                        # (not inside a word)
        end, english = _region(text, start, rules)
        if english and not text[end:].strip(" ,.!?，。"):
            return re.sub(r"\s+", " ", text[:start] + " " + " ".join(english)).strip(" ,")
    return text


def to_english(text: str, language: str) -> str:
    """``text`` with the schedule words of ``language`` ("de", "zh") rewritten into the
    English the reader knows; the same text when none were found."""
    if language == "de":
        return _apply(text, _GERMAN, _DE_LEAD)
    if language == "zh":
        return _apply(text, _CHINESE)
    return text


def rewritten(text: str, languages: tuple[str, ...] = LANGUAGES) -> list[tuple[str, str]]:
    """The rewrites that change ``text``, as (language, English text), in the order of
    ``languages`` (the window's language first)."""
    out = []
    for language in languages:
        english = to_english(text, language)
        if english != text.strip():
            out.append((language, english))
    return out
