"""Numeric dates (``8/1/2030``, ``1.8.``, ``12/25``) read in the user's locale.

The order of day and month is a convention, not a fact of the text: month first in the
United States (and the few places that follow it), day first almost everywhere else, and
ISO ``2030-08-01`` everywhere. Without a locale a date that reads validly both ways is
refused with both readings, because guessing would silently schedule the wrong month.
"""

from __future__ import annotations

import os
import re
from datetime import date
from typing import Mapping

from ..errors import InvalidInput

# Territories whose dates are written month first (CLDR: US and its associated areas).
_MONTH_FIRST = {"US", "PH", "FM", "MH", "PW", "AS", "GU", "MP", "PR", "UM", "VI"}
_LOCALE = re.compile(r"^(?P<lang>[A-Za-z]{2,3})(?:[_-](?P<region>[A-Za-z]{2}|\d{3}))?"
                     r"(?:[.@].*)?$")
_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
_CENTURY = 2000                                  # "8/1/30" is 2030


def date_order(locale: str | None) -> str | None:
    """``"mdy"``, ``"dmy"`` or ``None`` (no locale, or one without a territory)."""
    if not locale or locale in ("C", "POSIX") or locale.startswith(("C.", "POSIX.")):
        return None
    match = _LOCALE.match(locale)
    if not match:
        raise InvalidInput("locale", f"not a locale name: {locale!r}",
                           "a locale such as en_US, en_GB or de_DE", "en_US")
    region = (match.group("region") or "").upper()
    if not region:
        return None
    return "mdy" if region in _MONTH_FIRST else "dmy"


def locale_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The locale that formats dates for this user: LC_ALL, then LC_TIME, then LANG."""
    env = os.environ if environ is None else environ
    for key in ("LC_ALL", "LC_TIME", "LANG"):
        if env.get(key):
            return env[key]
    return None


def spoken(day: date | tuple[int | None, int, int]) -> str:
    """``1 August 2030``: a reading no one can take the wrong way round."""
    year, month, dom = (day.year, day.month, day.day) if isinstance(day, date) else day
    return f"{dom} {_NAMES[month - 1]}" + (f" {year}" if year else "")


def _refuse(message: str, text: str) -> InvalidInput:
    return InvalidInput("schedule", message, "a date such as 2030-08-01 or 1 August 2030",
                        "on 2030-08-01 at 1pm", words=(text,))


def read_numeric(text: str, first: int, second: int, year: int | None, order: str | None
                 ) -> tuple[int | None, int, int, str | None]:
    """(year, month, day, note) for ``first/second[/year]`` in the locale's order.

    ``note`` says how an unambiguous date was read when no locale decided it. Refuses a
    date that is invalid, or valid both ways without a locale (naming both readings).
    """
    if year is not None and year < 100:
        year += _CENTURY
    readings = []
    for name, (month, dom) in (("mdy", (first, second)), ("dmy", (second, first))):
        try:
            date(year or 2028, month, dom)         # 2028 is a leap year
        except ValueError:
            continue
        readings.append((name, month, dom))
    if order is not None:
        chosen = [r for r in readings if r[0] == order]
        if not chosen:
            way = "month first" if order == "mdy" else "day first"
            raise _refuse(f"'{text}' is not a date ({way}, as the locale writes dates)", text)
        return year, chosen[0][1], chosen[0][2], None
    if not readings:
        raise _refuse(f"'{text}' is not a date", text)
    distinct = {(m, d) for _, m, d in readings}
    if len(distinct) > 1:
        both = " or ".join(f"{spoken((year, m, d))} ({'month' if n == 'mdy' else 'day'} "
                           "first)" for n, m, d in readings)
        raise _refuse(f"'{text}' could be {both}; write it as "
                      f"{year or 2030}-{readings[0][1]:02d}-{readings[0][2]:02d} or "
                      f"'{spoken((year, readings[0][1], readings[0][2]))}', or give a "
                      "locale", text)
    _, month, dom = readings[0]
    return year, month, dom, f"'{text}' read as {spoken((year, month, dom))}"
