"""Instants and durations in the one textual form Errands accepts and prints.

Instants are RFC 3339 with an explicit offset on input and UTC ``Z`` on output; durations
are ``<positive integer><s|m|h|d>`` up to 366 days (fixed lengths, no calendar units).
"""

from __future__ import annotations

import re
from functools import lru_cache
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InvalidInput

UTC = timezone.utc
_DURATION = re.compile(r"[1-9][0-9]*[smhd]")
_DURATION_DIGITS = 9  # 366d is 31,622,400 s: a longer number is refused before any maths
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DURATION = timedelta(days=366)
# The supported calendar, after conversion to UTC. Outside it datetime arithmetic overflows
# (year 1 minus an offset, 9999 plus a day) and SQLite's text dates stop sorting; no one
# schedules an errand there, so such instants are refused wherever they enter.
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
RANGE_TEXT = "an instant between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z"
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


def parse_duration(text: object, field: str = "duration") -> timedelta:
    if not isinstance(text, str) or not _DURATION.fullmatch(text):
        raise InvalidInput(field, f"not a duration: {shown(text)}",
                           "a whole number followed by s, m, h or d", "30m",
                           reason="duration")
    if len(text) - 1 > _DURATION_DIGITS:
        raise InvalidInput(field, f"{shown(text)} is longer than 366d", "at most 366d", "7d",
                           reason="duration")
    value = timedelta(seconds=int(text[:-1]) * _UNIT[text[-1]])
    if value > MAX_DURATION:
        raise InvalidInput(field, f"{text} is longer than 366d", "at most 366d", "7d",
                           reason="duration")
    return value


def format_duration(value: timedelta) -> str:
    """The shortest exact textual form (``90s`` stays ``90s``, ``3600s`` becomes ``1h``)."""
    seconds = int(value.total_seconds())
    for unit in ("d", "h", "m"):
        if unit == "d" and seconds < 2 * _UNIT["d"]:
            continue  # "24h" reads better than "1d"
        if seconds % _UNIT[unit] == 0 and seconds:
            return f"{seconds // _UNIT[unit]}{unit}"
    return f"{seconds}s"


def parse_instant(text: object, field: str = "instant") -> datetime:
    """An aware UTC datetime in the supported calendar; a timestamp without an offset is refused."""
    if isinstance(text, datetime):
        if text.tzinfo is None:
            raise InvalidInput(field, "instant has no UTC offset",
                               "RFC 3339 with an offset", "2026-03-29T09:00:00+02:00",
                               reason="instant")
        return check_range(text, field)
    if not isinstance(text, str) or not _RFC3339.fullmatch(text.strip()):
        raise InvalidInput(field, f"not an RFC 3339 instant with an offset: {shown(text)}",
                           "RFC 3339 with an explicit offset", "2026-03-29T09:00:00+02:00",
                           reason="instant")
    raw = text.strip().replace("z", "Z").replace("t", "T")
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(field, f"not a valid date or time: {text!r} ({exc})",
                           "RFC 3339 with an explicit offset", "2026-03-29T09:00:00Z",
                           reason="instant") from exc
    return check_range(value, field)


def check_range(value: datetime, field: str = "instant") -> datetime:
    """``value`` in UTC if it lies in the supported calendar, else a refusal naming ``field``.

    The comparison comes first: converting year 1 or 9999 with an offset overflows.
    """
    try:
        inside = EARLIEST <= value <= LATEST
    except (OverflowError, ValueError):
        inside = False
    if not inside:
        raise InvalidInput(field, f"{value.isoformat()} is outside the supported range",
                           RANGE_TEXT, "2026-03-29T09:00:00+02:00")
    return value.astimezone(UTC)


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, so a refusal of a huge value stays short."""
    try:
        text = repr(value)
    except ValueError:  # an integer past str()'s 4,300 digits
        return "a number too large to show"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def format_instant(value: datetime | None) -> str | None:
    if value is None:
        return None
    value = value.astimezone(UTC)
    if value.microsecond:
        return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def utcnow() -> datetime:
    return datetime.now(UTC)


@lru_cache(maxsize=1024)
def _zone(name: str) -> ZoneInfo:
    """ZoneInfo keeps only a few zones strongly cached; a busy catalogue uses more."""
    return ZoneInfo(name)


def zone(name: object, field: str = "timezone") -> ZoneInfo:
    if not isinstance(name, str) or not name or name.startswith("/") or ".." in name:
        raise InvalidInput(field, f"not an IANA time zone name: {name!r}",
                           "an IANA time zone name", "Europe/Berlin", reason="zone",
                           values={"zone": str(name)[:100]})
    try:
        return _zone(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise InvalidInput(field, f"unknown time zone {name!r}",
                           "an IANA time zone name", "Europe/Berlin", reason="zone",
                           values={"zone": name[:100]}) from exc


def system_zone_name() -> str:
    """The machine's IANA zone (tzlocal), ``UTC`` when it cannot be determined."""
    try:
        from tzlocal import get_localzone_name
        name = get_localzone_name()
    except Exception:  # tzlocal raises several kinds on odd systems
        name = None
    if not name:
        return "UTC"
    try:
        zone(name)
    except InvalidInput:
        return "UTC"
    return name
