"""``SPEC``: the one-line schedule form the CLI's ``--schedule`` and the agent's ``automate``
tool share (``every:2h``, ``cron:0 9 * * 1-5``, ``in:10m`` or a phrase), as a trigger document."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .errors import InvalidInput
from .limits import SPEC_EXAMPLE, SPEC_FORMS
from .timeutil import format_instant, parse_duration, parse_instant, system_zone_name



def spec_to_trigger(spec: str, tz: str | None, now: datetime,
                    previous: dict[str, Any] | None = None,
                    locale: str | None = None) -> tuple[dict[str, Any], Any]:
    """A trigger document from ``SPEC``; the second value is the parsed phrase (or None).

    ``previous`` is the current trigger when editing: repeating the schedule it already has
    keeps its grid start and time zone, so such an edit changes nothing.
    """
    text = spec.strip()
    head, _, rest = text.partition(":")
    head = head.lower()
    previous = previous or {}
    if tz is not None and (text.lower() == "manual"
                           or (head in ("at", "in", "every", "after") and rest)):
        raise InvalidInput("--tz", "applies only to a cron schedule or a phrase",
                           "--tz together with a cron schedule", "Europe/Berlin")
    if text.lower() == "manual":
        return {"kind": "manual"}, None
    if head == "at" and rest:
        return {"kind": "at", "at": format_instant(parse_instant(rest.strip(), "--schedule"))}, None
    if head == "in" and rest:
        parse_duration(rest.strip(), "--schedule")
        # kept relative so a retried create with the same request id matches itself
        return {"kind": "at", "in": rest.strip()}, None
    if head in ("every", "after") and rest:
        gap = parse_duration(rest.strip(), "--schedule")
        key = "every" if head == "every" else "interval"
        trigger = {"kind": head, key: rest.strip()}
        if (previous.get("kind") == head and previous.get("start_at")
                and parse_duration(previous.get(key), "--schedule") == gap):
            trigger = {**trigger, key: previous[key], "start_at": previous["start_at"]}
        return trigger, None
    if head == "cron" and rest:
        kept = previous.get("timezone") if previous.get("kind") == "cron" else None
        return {"kind": "cron", "expression": rest.strip(),
                "timezone": tz or kept or system_zone_name()}, None
    from .phrases import parse_schedule_text  # the phrase parser is only needed here
    try:
        parsed = parse_schedule_text(text, tz or system_zone_name(), now, locale)
    except InvalidInput as exc:
        raise InvalidInput("--schedule", exc.message, SPEC_FORMS, exc.example or SPEC_EXAMPLE,
                           words=exc.words) from exc
    return dict(parsed.trigger), parsed
