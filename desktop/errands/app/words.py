"""Words the views show for states, reasons, times, schedules and policies, all through Qt's
translation (context ``words``: what ``pyside6-lupdate`` records for ``words.tr("…")``; the
bare ``tr("…")`` here it records without a context, which ``dev.py i18n`` folds into
``words``). Month and day names and numbers come from the default ``QLocale``, which
``app/i18n.py`` sets to the chosen language; times stay on the 24-hour clock.

Plain functions over plain records: no widgets here, so any view (and any test) can ask
what a state or a skipped record reads as.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QLocale

from ..definition import (WEEKDAY_NAMES, WORKDAY, AfterTrigger, AtTrigger, CronTrigger,
                          Definition, EveryTrigger, ManualTrigger, MonthlyTrigger, Trigger)
from ..event_triggers import (AutomationTrigger, FolderTrigger, MailTrigger, TriggerSet,
                              WebhookTrigger)
from ..records import Run
from ..timeutil import UTC, system_zone_name, zone

CONTEXT = "words"


def tr(text: str, disambiguation: str | None = None, n: int = -1) -> str:
    return QCoreApplication.translate(CONTEXT, text, disambiguation, n)


def QT_TR_NOOP(text: str) -> str:
    """Marks a literal for ``pyside6-lupdate`` (context ``words``) where it is defined;
    ``tr(text)`` translates it where it is shown."""
    return text


# ------------------------------------------------------------------ glyphs and states
# Glyphs carry meaning without colour (window.md); colours come from app/marks.py. Each is
# in DejaVu Sans (the font these machines have): ⏸ and ⌛ are not, so ‖ and ⧖'s cousin ◷.

STATE_GLYPHS = {
    "active": "●", "paused": "‖", "completed": "✓", "broken": "!", "running": "◐",
    "archived": "▣",
    "scheduled": "◔", "awaiting_input": "⚑", "succeeded": "✓", "failed": "✕",
    "cancelled": "⊘", "interrupted": "↯", "expired": "◷", "skipped": "○",
    "dry_run": "◇",
}


def glyph(state: str | None) -> str:
    return STATE_GLYPHS.get(state or "", "·")


def status_words(status: str) -> str:
    """An automation's status: active, paused, completed, archived, broken."""
    return {"active": tr("Active"), "paused": tr("Paused"), "completed": tr("Done"),
            "archived": tr("Archived"), "broken": tr("Cannot run"),
            "running": tr("Running now")}.get(status, status)


def archived_words() -> str:
    """What an archived automation is, on its page."""
    return tr("Archived: it never fires and cannot be run. Its runs, conversations, "
              "revisions and output logs are kept; unarchive it to use it again.")


def state_words(state: str | None) -> str:
    """A run's state in one or two words."""
    return {
        "scheduled": tr("Queued"), "running": tr("Running"),
        "awaiting_input": tr("Waiting for you"), "succeeded": tr("Succeeded"),
        "failed": tr("Failed"), "cancelled": tr("Cancelled"), "interrupted": tr("Interrupted"),
        "expired": tr("Expired"), "skipped": tr("Skipped"), None: tr("No runs yet"),
        "dry_run": tr("Dry run"),
    }.get(state, state or "")


def outcome_words(outcome: dict[str, Any] | None) -> str:
    """How a request to decide ended (an inbox item's ``outcome``): "Approved once",
    "Denied", "Answered: yes", "Expired: nobody answered in time"."""
    if not outcome:
        return ""
    kind, text = outcome.get("kind"), outcome.get("text")
    if kind == "answer":
        said = " ".join(str(text or "").split())
        return tr("Answered: %1").replace("%1", said if len(said) <= 60 else said[:59] + "…")
    return {"approve_once": tr("Approved once"),
            "approve_always": tr("Approved, and allowed from now on"),
            "deny": tr("Denied"), "expired": tr("Expired: nobody answered in time"),
            "ended": tr("Ended before anyone decided")}.get(str(kind), str(kind))


def refusal_words(error: Any, tz: tzinfo, now: datetime | None = None) -> str | None:
    """A refusal the window words itself from its reason and values, in the chosen
    language and local time (None: a reason it does not know, so the refusal's own words
    are shown): a past instant reads "4 Dec 22:00 has already passed; choose a later
    time", a title too long "At most 120 characters; this has 140"."""
    reason = getattr(error, "reason", None)
    values = getattr(error, "values", None) or {}
    simple = _REASON_WORDS.get(reason or "")
    if simple is not None and isinstance(values, dict):
        text = tr(simple)
        for key, value in values.items():
            shown = number(value) if isinstance(value, int) else str(value)
            text = text.replace("{" + key + "}", shown)
        return text if "{" not in text else None
    if reason == "past" and getattr(error, "words", ()):
        try:
            when = datetime.fromisoformat(error.words[0].replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            return None
        ref = now or datetime.now(when.tzinfo)
        return tr("%1 has already passed; choose a later time.").replace(
            "%1", day_and_time(when, ref, tz))
    return None


# What the phrase reader and the drafts assumed, worded in the window's language (the
# reader's own sentences are English; one it does not list here is shown as it is)
_WARNINGS = [
    (re.compile(r"I assumed your time zone (?P<a>\S+)\."),
     QT_TR_NOOP("I assumed your time zone %1.")),
    (re.compile(r"no time of day given; runs at (?P<a>\d\d:\d\d)"),
     QT_TR_NOOP("No time of day given: it runs at %1.")),
    (re.compile(r"no day of the month given; runs on the 1st"),
     QT_TR_NOOP("No day of the month given: it runs on the 1st.")),
    (re.compile(r"no weekday given; runs on Mondays"),
     QT_TR_NOOP("No weekday given: it runs on Mondays.")),
    (re.compile(r"months without day (?P<a>\d+) are skipped"),
     QT_TR_NOOP("Months without day %1 are skipped.")),
    (re.compile(r"'(?P<a>.+)' has passed today; read as tomorrow"),
     QT_TR_NOOP("“%1” has passed today: read as tomorrow.")),
    (re.compile(r"29 February only exists in leap years"),
     QT_TR_NOOP("29 February only comes in leap years.")),
    (re.compile(r"(?P<a>\d\d:\d\d) on (?P<b>\d{4}-\d\d-\d\d) does not exist in \S+ \(the "
                r"clocks move forward\); moved to (?P<c>\d\d:\d\d)"),
     QT_TR_NOOP("%1 does not exist on %2 (the clocks move forward): it runs at %3.")),
    (re.compile(r"(?P<a>\d\d:\d\d) on (?P<b>\d{4}-\d\d-\d\d) happens twice in \S+ \(the "
                r"clocks move back\); using the first one"),
     QT_TR_NOOP("%1 happens twice on %2 (the clocks move back): it runs at the first.")),
    (re.compile(r"the last run each day is at (?P<a>\d\d:\d\d), not (?P<b>\d\d:\d\d)"),
     QT_TR_NOOP("The last run each day is at %1, not %2.")),
    (re.compile(r"'quarterly' runs in January, April, July and October"),
     QT_TR_NOOP("“quarterly” runs in January, April, July and October.")),
    (re.compile(r"'(?P<a>.+)' counts months from January \(\*/\d+\)"),
     QT_TR_NOOP("“%1” counts the months from January.")),
    (re.compile(r"'(?P<a>.+)' read as the 2nd (?P<b>\w+) of each month; for every other week "
                r"say .*"),
     QT_TR_NOOP("“%1” read as that weekday's second in each month; for every other week, "
                "say “every other”.")),
    (re.compile(r"'(?P<a>.+)' read as (?P<b>.+)"), QT_TR_NOOP("“%1” read as %2.")),
    (re.compile(r"'(?P<a>.+)' counts from (?P<b>.+)"), QT_TR_NOOP("“%1” counts from %2.")),
    (re.compile(r"'(?P<a>.+)' stays in the task text; it does not change the schedule"),
     QT_TR_NOOP("“%1” stays in the task; it does not change the schedule.")),
    (re.compile(r"The model wrote this draft; check it before you create it\."),
     QT_TR_NOOP("The model wrote this draft; check it before you create it.")),
]


def warning_words(text: str) -> str:
    """A reader's or a draft's warning in the window's language."""
    for pattern, words_ in _WARNINGS:
        found = pattern.fullmatch(text)
        if found:
            groups = found.groupdict()
            return tr(words_).replace("%1", groups.get("a") or "").replace(
                "%2", groups.get("b") or "").replace("%3", groups.get("c") or "")
    return text


_FIELD_WORDS = {
    "title": QT_TR_NOOP("Title"), "runner.prompt": QT_TR_NOOP("Prompt"),
    "runner.command": QT_TR_NOOP("Command"), "runner.message": QT_TR_NOOP("Message"),
    "runner.model": QT_TR_NOOP("Model"), "workdir": QT_TR_NOOP("Folder"),
    "trigger": QT_TR_NOOP("Schedule"), "stop": QT_TR_NOOP("Stops"),
    "policy": QT_TR_NOOP("Policies"), "permissions": QT_TR_NOOP("Permissions"),
    "context": QT_TR_NOOP("Conversation"),
}


def field_words(field: str | None) -> str:
    """A refused field's name in words ("Title", "Schedule"), by its longest known prefix;
    empty for the document as a whole."""
    parts = (field or "").split(".")
    for n in range(len(parts), 0, -1):
        found = _FIELD_WORDS.get(".".join(parts[:n]))
        if found is not None:
            return tr(found)
    return ""


# Engine refusals the window words itself ({name} is the refusal's value of that name)
_REASON_WORDS = {
    "required": QT_TR_NOOP("This is needed."),
    "empty": QT_TR_NOOP("Write something here."),
    "too_long": QT_TR_NOOP("At most {max} characters; this has {length}."),
    "too_large": QT_TR_NOOP("At most {max_kib} KiB."),
    "characters": QT_TR_NOOP("It holds a character that is not allowed here ({char}); use "
                             "plain text."),
    "kind": QT_TR_NOOP("This is the wrong kind of value."),
    "range": QT_TR_NOOP("Choose a whole number from {low} to {high}."),
    "choice": QT_TR_NOOP("Choose one of: {options}."),
    "not_absolute": QT_TR_NOOP("Write the whole path, starting at /."),
    "too_often": QT_TR_NOOP("That runs more often than Errands allows (at least {min} "
                            "apart, in the settings); choose a longer interval."),
    "zone": QT_TR_NOOP("“{zone}” is not a time zone; choose one from the list."),
    "duration": QT_TR_NOOP("Write a length of time such as 30s, 15m, 2h or 1d (at most "
                           "366 days)."),
    "instant": QT_TR_NOOP("This is not a date and time Errands can read."),
    "never": QT_TR_NOOP("This schedule can never run: none of its months has that day."),
    "no_task": QT_TR_NOOP("This says when but not what to do; add the task."),
    "both": QT_TR_NOOP("Give one trigger or a list of triggers, not both."),
    "too_many": QT_TR_NOOP("At most {max} of these."),
    "trigger_id": QT_TR_NOOP("Name it with lower-case letters, digits, - or _."),
    "duplicate": QT_TR_NOOP("Two triggers have this name; give each its own."),
    "glob": QT_TR_NOOP("Write a file name pattern such as *.pdf."),
    "not_found": QT_TR_NOOP("There is no such automation; choose one from the list."),
    "no_account": QT_TR_NOOP("There is no such mail account; set one up with “errands mail "
                             "add”."),
}


def run_state(run: Run) -> str:
    """How a run's state is shown: a dry run that went through is a "dry run" (its own
    mark, never a success), other runs their state."""
    return "dry_run" if run.dry_run and run.state == "succeeded" else run.state


def trigger_words(trigger: str) -> str:
    return {"schedule": tr("On schedule"), "manual": tr("Run by hand"),
            "catch_up": tr("Catch-up"), "event": tr("By an event")}.get(trigger, trigger)


# ----------------------------------------------------------------------------- times

def local_zone() -> tzinfo:
    return zone(system_zone_name())


def clock_time(when: datetime, tz: tzinfo) -> str:
    return when.astimezone(tz).strftime("%H:%M")


def locale() -> QLocale:
    """The chosen language's locale (``app/i18n.py`` sets the default); English where the
    system has none (the C locale)."""
    chosen = QLocale()
    return QLocale("en_US") if chosen.language() == QLocale.Language.C else chosen


def weekday_name(when: datetime, long: bool = False) -> str:
    """"Fri" ("Friday" when long) in the chosen language."""
    fmt = QLocale.FormatType.LongFormat if long else QLocale.FormatType.ShortFormat
    return locale().dayName(when.isoweekday(), fmt)


def day_month(when: datetime, year: bool = False) -> str:
    """"12 Mar" ("12 Mar 2027" with the year) in the chosen language: "12. März",
    "3月12日"."""
    month = locale().monthName(when.month, QLocale.FormatType.ShortFormat)
    if year:
        return tr("%1 %2 %3", "day month year").replace(
            "%1", str(when.day)).replace("%2", month).replace("%3", str(when.year))
    return tr("%1 %2", "day month").replace("%1", str(when.day)).replace(
        "%2", month)


def number(value: int) -> str:
    """1,000 (1.000, 1,000) in the chosen language."""
    return locale().toString(value)


def day_and_time(when: datetime, now: datetime, tz: tzinfo) -> str:
    """"today 09:00", "tomorrow 09:00", "Fri 09:00", "12 Mar 09:00", "12 Mar 2027 09:00"."""
    local, today = when.astimezone(tz), now.astimezone(tz).date()
    hm = local.strftime("%H:%M")
    days = (local.date() - today).days
    if days == 0:
        return tr("today %1").replace("%1", hm)
    if days == 1:
        return tr("tomorrow %1").replace("%1", hm)
    if days == -1:
        return tr("yesterday %1").replace("%1", hm)
    if -6 <= days <= 6:
        return f"{weekday_name(local)} {hm}"
    return f"{day_month(local, local.year != today.year)} {hm}"


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")


def short_instant(when: datetime, now: datetime, tz: tzinfo) -> str:
    """"5 Jan 08:00" (the year added when it is not this one): a date in a sentence."""
    local = when.astimezone(tz)
    return f"{day_month(local, local.year != now.astimezone(tz).year)} {local:%H:%M}"


def schedule_words(text: str, now: datetime, tz: tzinfo) -> str:
    """The schedule sentence with its machine instants ("2026-01-05T08:00:00Z") read in
    local time ("5 Jan 08:00")."""
    if "Z" not in text:
        return text
    return _ISO.sub(lambda m: short_instant(datetime.fromisoformat(
        m.group(0).replace("Z", "+00:00")), now, tz), text)


def relative(when: datetime | None, now: datetime, tz: tzinfo) -> str:
    """A next fire in a glance: "now", "in 5 min", "in 3 h", "Fri", "12 Mar"."""
    if when is None:
        return ""
    seconds = (when - now).total_seconds()
    if seconds < 60:
        return tr("now")
    if seconds < 3600:
        return tr("in %n min", None, int(seconds // 60))
    if seconds < 24 * 3600:
        return tr("in %n h", None, int(seconds // 3600))
    local = when.astimezone(tz)
    if seconds < 6 * 24 * 3600:
        return weekday_name(local)
    return day_month(local, local.year != now.astimezone(tz).year)


# -------------------------------------------------------------------------- schedules

def join_words(items: list[str]) -> str:
    """"a, b and c" in the chosen language."""
    if len(items) <= 1:
        return "".join(items)
    return tr(", ", "list").join(items[:-1]) + tr(" and ") + items[-1]


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        text = tr("%1th", "day of the month")
    else:
        text = {1: tr("%1st", "day of the month"),
                2: tr("%1nd", "day of the month"),
                3: tr("%1rd", "day of the month")}.get(
            n % 10, tr("%1th", "day of the month"))
    return text.replace("%1", str(n))


def _at_times(times: tuple[tuple[int, int], ...]) -> str:
    return join_words([f"{h:02d}:{m:02d}" for h, m in times])


# Qt's day numbers (1 = Monday) for cron's (0 = Sunday)
def _cron_day(weekday: int) -> str:
    return locale().dayName(weekday or 7, QLocale.FormatType.LongFormat)


def _cron_words(trigger: CronTrigger) -> str:
    try:
        expr = trigger.cron
    except Exception:  # an expression the engine refused: its own words say why
        return tr('Cron "%1"').replace("%1", trigger.expression) + f" ({trigger.timezone})"
    shape = expr.friendly_shape()
    if shape is None:
        text = _cron_long(expr.text)
    else:
        kind, args = shape[0], shape[1:]
        if kind == "every_minute":
            text = tr("Every minute")
        elif kind == "every_n_minutes":
            text = tr("Every %n minutes", None, args[0])
        elif kind == "hourly_at":
            text = tr("Every hour at %1").replace("%1", join_words(
                [f":{m:02d}" for m in args[0]]))
        elif kind == "every_n_hours":
            text = tr("Every %n hours at %1", None, args[0]).replace("%1", f":{args[1]:02d}")
        elif kind == "daily":
            text = tr("Every day at %1").replace("%1", _at_times(args[0]))
        elif kind == "weekdays":
            text = tr("Every weekday at %1").replace("%1", _at_times(args[0]))
        elif kind == "weekend":
            text = tr("Every Saturday and Sunday at %1").replace("%1", _at_times(args[0]))
        elif kind == "days_of_week":
            text = tr("Every %1 at %2").replace("%1", join_words(
                [_cron_day(w) for w in args[0]])).replace("%2", _at_times(args[1]))
        else:
            text = tr("On the %1 at %2").replace("%1", join_words(
                [_ordinal(d) for d in args[0]])).replace("%2", _at_times(args[1]))
    return f"{text} ({trigger.timezone})"


# cron-descriptor's own translations, for the expressions no short sentence fits
_CRON_LOCALES = {"de": "de_DE", "zh": "zh_CN"}


def _cron_long(expression: str) -> str:
    from ..cron import CronExpression
    language = locale().name().split("_")[0]
    if language not in _CRON_LOCALES:
        return CronExpression.parse(expression)._describe()
    try:
        from cron_descriptor import ExpressionDescriptor, Options
        options = Options()
        options.use_24hour_time_format = True
        options.day_of_week_start_index_zero = True
        options.locale_code = _CRON_LOCALES[language]
        return ExpressionDescriptor(expression, options).get_description()
    except Exception:  # cron-descriptor raises several kinds on shapes it dislikes
        return tr('Cron "%1"').replace("%1", expression)


def _every_words(value: timedelta, start: str) -> str:
    seconds = int(value.total_seconds())
    for size, one, many in (
            (86400, QT_TR_NOOP("Every day from %1"), QT_TR_NOOP("Every %n days from %1")),
            (3600, QT_TR_NOOP("Every hour from %1"), QT_TR_NOOP("Every %n hours from %1")),
            (60, QT_TR_NOOP("Every minute from %1"), QT_TR_NOOP("Every %n minutes from %1")),
            (1, QT_TR_NOOP("Every second from %1"), QT_TR_NOOP("Every %n seconds from %1"))):
        if seconds % size == 0:
            count = seconds // size
            # "many" is only ever said of 2 or more: no plural forms needed
            return (tr(one) if count == 1 else tr(many).replace("%n", str(count))).replace(
                "%1", start)
    return ""


def _after_words(value: timedelta, start: str) -> str:
    seconds = int(value.total_seconds())
    for size, one, many in (
            (86400, QT_TR_NOOP("Again day after each run finishes, first at %1"),
             QT_TR_NOOP("Again %n days after each run finishes, first at %1")),
            (3600, QT_TR_NOOP("Again hour after each run finishes, first at %1"),
             QT_TR_NOOP("Again %n hours after each run finishes, first at %1")),
            (60, QT_TR_NOOP("Again minute after each run finishes, first at %1"),
             QT_TR_NOOP("Again %n minutes after each run finishes, first at %1")),
            (1, QT_TR_NOOP("Again second after each run finishes, first at %1"),
             QT_TR_NOOP("Again %n seconds after each run finishes, first at %1"))):
        if seconds % size == 0:
            count = seconds // size
            # "many" is only ever said of 2 or more: no plural forms needed
            return (tr(one) if count == 1 else tr(many).replace("%n", str(count))).replace(
                "%1", start)
    return ""


def trigger_sentence(trigger: Trigger, now: datetime, tz: tzinfo,
                     title_of: Callable[[str], str | None] | None = None) -> str:
    """A schedule in words, in the chosen language, its instants in local time: the
    engine's ``schedule.describe()`` (which is English) with ``schedule_words()`` applied,
    worded through ``tr()``. "Every weekday at 09:30 (Europe/Berlin)", "Jeden Werktag um
    09:30 (Europe/Berlin)"."""
    if isinstance(trigger, ManualTrigger):
        return tr("Only when run by hand")
    if isinstance(trigger, AtTrigger):
        return _in_zone(tr("Once at %1").replace("%1", short_instant(trigger.at, now, tz)),
                        tz, now)
    if isinstance(trigger, EveryTrigger) and trigger.timezone:
        local = trigger.start_at.astimezone(zone(trigger.timezone))
        days = trigger.every.days
        text = tr("Every day at %1 (%2), from %3 %4") if days == 1 else tr(
            "Every %n days at %1 (%2), from %3 %4", None, days)
        return text.replace("%1", f"{local:%H:%M}").replace("%2", trigger.timezone).replace(
            "%3", weekday_name(local, long=True)).replace("%4", f"{local:%Y-%m-%d}")
    if isinstance(trigger, EveryTrigger):
        return _in_zone(_every_words(trigger.every, short_instant(trigger.start_at, now, tz)),
                        tz, now)
    if isinstance(trigger, AfterTrigger):
        return _in_zone(_after_words(trigger.interval, short_instant(trigger.start_at, now,
                                                                     tz)), tz, now)
    if isinstance(trigger, MonthlyTrigger):
        return _monthly_words(trigger)
    if isinstance(trigger, TriggerSet):
        return " · ".join(trigger_sentence(m.trigger, now, tz, title_of)
                          for m in trigger.members)
    if isinstance(trigger, (FolderTrigger, WebhookTrigger, MailTrigger, AutomationTrigger)):
        return event_words(trigger, title_of)
    return _cron_words(trigger)


_FIRED = {"folder": QT_TR_NOOP("Started by changed files (trigger “%1”)"),
          "webhook": QT_TR_NOOP("Started by a call to its web address (trigger “%1”)"),
          "mail": QT_TR_NOOP("Started by new mail (trigger “%1”)"),
          "automation": QT_TR_NOOP("Started by another automation's end (trigger “%1”)")}


def fired_words(kind: str | None, ident: str, depth: int | None = None) -> str:
    """Which trigger fired a run: "Started by changed files (trigger “inbox”)"."""
    text = tr(_FIRED[kind]) if kind in _FIRED else tr("Fired by its trigger “%1”")
    text = text.replace("%1", ident)
    if depth and depth > 1:
        text += " · " + tr("%n runs led to it", None, depth)
    return text


_ENDS = {"succeeded": QT_TR_NOOP("succeeds"), "failed": QT_TR_NOOP("fails"),
         "cancelled": QT_TR_NOOP("is stopped"), "expired": QT_TR_NOOP("expires unanswered")}


def event_words(trigger: Trigger, title_of: Callable[[str], str | None] | None = None) -> str:
    """An event trigger in words: "When a file changes in ~/Downloads (*.pdf)"."""
    if isinstance(trigger, FolderTrigger):
        what = {("created",): tr("When a file is added to %1"),
                ("created", "moved"): tr("When a file is added to %1"),
                ("deleted",): tr("When a file is removed from %1")}.get(
            trigger.changes, tr("When a file changes in %1"))
        text = what.replace("%1", home_short(trigger.path))
        return text + (f" ({', '.join(trigger.include)})" if trigger.include else "")
    if isinstance(trigger, WebhookTrigger):
        return tr("When its web address is called")
    if isinstance(trigger, MailTrigger):
        text = tr("When mail arrives for %1").replace("%1", trigger.account)
        filters = ([tr("from %1").replace("%1", trigger.sender)] if trigger.sender else [])
        filters += ([tr("subject has “%1”").replace("%1", trigger.subject)]
                    if trigger.subject else [])
        return text + (f" ({', '.join(filters)})" if filters else "")
    assert isinstance(trigger, AutomationTrigger)
    title = (title_of(trigger.automation) if title_of is not None else None) \
        or trigger.automation[:8]
    if len(trigger.states) >= len(_ENDS):
        return tr("When “%1” ends").replace("%1", title)
    ends = [tr(_ENDS[s]) for s in trigger.states]
    ends_text = (ends[0] if len(ends) == 1 else tr(", ", "list").join(ends[:-1]) + tr(" or ")
                 + ends[-1])
    return tr("When “%1” %2").replace("%1", title).replace("%2", ends_text)


def _weekday_word(weekday: str | None) -> str:
    if weekday == WORKDAY:
        return tr("working day")
    return locale().dayName(WEEKDAY_NAMES.index(weekday or "mon") + 1,
                            QLocale.FormatType.LongFormat)


def monthly_day(trigger: MonthlyTrigger) -> str:
    """Which day of the month, in words: "the last day", "the 2nd-to-last working day",
    "the 1st Monday", "the 15th" (the ordinal and the plain number are both offered, so a
    language picks the form it counts with)."""
    if trigger.day is not None:
        n = trigger.day
        if n > 0:
            return tr("the %1", "day of the month").replace("%1", _ordinal(n))
        if n == -1:
            return tr("the last day")
        return tr("the %1-to-last day").replace("%1", _ordinal(-n)).replace("%2", str(-n))
    n, what = trigger.nth or 1, _weekday_word(trigger.weekday)
    if n > 0:
        return tr("the %1 %2", "the 2nd Friday").replace("%1", _ordinal(n)).replace(
            "%3", str(n)).replace("%2", what)
    if n == -1:
        return tr("the last %1", "the last Friday").replace("%1", what)
    return tr("the %1-to-last %2", "the 2nd-to-last Friday").replace(
        "%1", _ordinal(-n)).replace("%3", str(-n)).replace("%2", what)


def _monthly_words(trigger: MonthlyTrigger) -> str:
    """"Every month on the last day at 18:00 (Europe/Berlin)"; every N months from a
    month; every N years on a day of a month."""
    what = monthly_day(trigger)
    at = f"{trigger.at_hour:02d}:{trigger.at_minute:02d}"
    year, month = divmod(trigger.start, 12)
    month_name = locale().standaloneMonthName(month + 1, QLocale.FormatType.LongFormat)
    if trigger.every % 12 == 0:
        years = trigger.every // 12
        text = tr("Every year on %1 of %2 at %3") if years == 1 else tr(
            "Every %n years on %1 of %2 at %3, from %4", None, years)
        text = text.replace("%1", what).replace("%2", month_name).replace("%3", at).replace(
            "%4", str(year))
    elif trigger.every == 1:
        text = tr("Every month on %1 at %2").replace("%1", what).replace("%2", at)
    else:
        text = tr("Every %n months on %1 at %2, from %3 %4", None, trigger.every).replace(
            "%1", what).replace("%2", at).replace("%3", month_name).replace("%4", str(year))
    return f"{text} ({trigger.timezone})"


def zone_name(tz: tzinfo, when: datetime) -> str:
    """A zone as people set it ("Europe/Berlin"), or its abbreviation when it has no name."""
    return getattr(tz, "key", None) or tz.tzname(when) or "UTC"


def _in_zone(sentence: str, tz: tzinfo, now: datetime) -> str:
    """Instants shown in local time say which zone that is, as cron schedules do."""
    return f"{sentence} ({zone_name(tz, now)})"


def ago(when: datetime | None, now: datetime) -> str:
    if when is None:
        return ""
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return tr("just now")
    if seconds < 3600:
        return tr("%n min ago", None, int(seconds // 60))
    if seconds < 24 * 3600:
        return tr("%n h ago", None, int(seconds // 3600))
    return tr("%n d ago", None, int(seconds // 86400))


def duration(value: timedelta | None) -> str:
    if value is None:
        return ""
    seconds = max(0, int(round(value.total_seconds())))
    if seconds < 60:
        return tr("%n s", None, seconds)
    if seconds < 3600:
        m, s = divmod(seconds, 60)
        return tr("%1 min %2 s").replace("%1", str(m)).replace("%2", str(s)) if s else \
            tr("%n min", None, m)
    h, rest = divmod(seconds, 3600)
    if rest // 60 == 0:
        return tr("%n h", None, h)
    return tr("%1 h %2 min").replace("%1", str(h)).replace("%2", str(rest // 60))


# ------------------------------------------------------------------------ run words

def skip_words(run: Run, tz: tzinfo, now: datetime | None = None) -> str:
    """Why a fire did not run, in a sentence: "Errands was not running — 14 fires between
    18:00 and 08:00"."""
    reason = {
        "app_not_running": tr("Errands was not running"),
        "machine_asleep": tr("The computer was asleep"),
        "database_unreachable": tr("The shared catalogue could not be reached"),
        "previous_run_active": tr("The previous run was still going"),
        "previous_run_awaiting_input": tr("The previous run is waiting for you"),
        "past_catch_up_age": tr("Too old to catch up"),
        "folder_busy": tr("Another automation was using the folder"),
        "automation_paused": tr("The automation was paused"),
    }.get(run.skip_reason or "", run.skip_reason or tr("No reason recorded"))
    count = run.missed_count or 1
    first, last = run.missed_first, run.missed_last
    if count > 1 and first is not None and last is not None:
        ref = now or last
        span = tr("%1 and %2")
        if last - first < timedelta(hours=24):
            a, b = clock_time(first, tz), clock_time(last, tz)
        else:
            a, b = day_and_time(first, ref, tz), day_and_time(last, ref, tz)
        between = tr("%n fires between", None, count) + " " + span.replace("%1", a).replace("%2", b)
        return f"{reason} — {between}"
    when = first or run.scheduled_for
    if when is not None:
        return f"{reason} — " + tr("the fire at %1").replace(
            "%1", day_and_time(when, now or when, tz))
    return reason


def retry_words(run: Run, tz: tzinfo, now: datetime | None = None) -> str:
    """A failed attempt waiting for the next: "Attempt 1 failed (exit 3) · retrying at 21:39
    (2 of 3)"."""
    assert run.retry_at is not None
    ref = now or run.retry_at
    when = (clock_time(run.retry_at, tz)
            if run.retry_at.astimezone(tz).date() == ref.astimezone(tz).date()
            else day_and_time(run.retry_at, ref, tz))
    text = tr("Attempt %1 failed (%2) · retrying at %3").replace(
        "%1", str(run.attempt)).replace("%2", failure_words(run)).replace("%3", when)
    allowed = run.details.get("attempts_allowed") if isinstance(run.details, dict) else None
    if isinstance(allowed, int) and not isinstance(allowed, bool) and allowed > run.attempt:
        return text + " " + tr("(%1 of %2)").replace("%1", str(run.attempt + 1)).replace(
            "%2", str(allowed))
    return text


def failure_words(run: Run) -> str:
    """Why an attempt failed, in a few words: "exit 3", "Timed out"."""
    found = re.match(r"exited with status (-?\d+)", run.error_message or "")
    if run.error_code == "exit_status" and found:
        return tr("exit %1").replace("%1", found.group(1))
    text = {"timeout": tr("Timed out"), "no_provider": tr("No model provider is set up"),
            "interrupted": tr("Errands stopped while it ran"),
            }.get(run.error_code or "", run.error_message or run.error_code or tr("Failed"))
    return text if len(text) <= 60 else text[:59] + "…"


def error_words(run: Run) -> str:
    """What went wrong, with the attempt when it was retried: "exit status 1 (attempt 3 of 3)"."""
    text = run.error_message or {
        "timeout": tr("Timed out"), "no_provider": tr("No model provider is set up"),
        "interrupted": tr("Errands stopped while it ran"),
    }.get(run.error_code or "", run.error_code or tr("Failed"))
    attempts = len(run.attempts) if run.attempts else run.attempt
    if attempts > 1:
        text += " " + tr("(attempt %1 of %2)").replace("%1", str(run.attempt)).replace(
            "%2", str(attempts))
    return text


def run_summary(run: Run, tz: tzinfo, now: datetime | None = None) -> str:
    """One line about what happened in a run: the history's result column and the run
    strip's tooltip."""
    if run.state == "skipped":
        return tr("Skipped: %1").replace("%1", skip_words(run, tz, now))
    if run.state == "failed":
        return tr("Failed: %1").replace("%1", error_words(run))
    if run.state == "awaiting_input":
        return tr("Waiting for you")
    if run.state == "running":
        took = run.run_time(now) if now else None
        if took is not None:
            return tr("Running for %1").replace("%1", duration(took))
        return tr("Running")
    if run.state == "cancelled":
        if run.stop_reason == "replaced":
            return tr("Cancelled: replaced by the next run")
        return tr("Cancelled")
    if run.state == "interrupted":
        return tr("Interrupted: Errands stopped while it ran")
    if run.state == "expired":
        return tr("Expired: nobody answered in time")
    if run.state == "scheduled":
        if isinstance(run.details, dict) and isinstance(run.details.get("waiting_for"), dict):
            return tr("Waiting for the folder")  # (``engine.folders``: another run uses it)
        if run.retry_at is not None and run.error_code:
            return retry_words(run, tz, now)
        return tr("Queued")
    if run.dry_run:   # what would have run: its first line says it
        lines = (run.result or "").strip().splitlines()
        head = lines[0] if lines else ""
        return tr("Dry run") + ": " + (head if len(head) <= 200 else head[:199] + "…")
    head = result_line(run.result)
    return head if len(head) <= 200 else head[:199] + "…"


_NOT_TEXT = re.compile(r"^\s*(```.*|~~~.*|[-*_]{3,}|\|?[\s:|-]*-{3,}[\s:|-]*\|?|[#>\s]*)\s*$")
_LINE_MARKS = re.compile(r"^\s*(?:#{1,6}\s+|>\s*)*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_INLINE = [(re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),      # images: their text
           (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),       # links: their text
           (re.compile(r"(?<!\w)(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?!\w)"), r"\2"),   # bold
           (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # italic
           (re.compile(r"~~(.+?)~~"), r"\1")]


def result_line(text: str | None) -> str:
    """A run's result in one line: its last line that says something (not a code fence, a
    rule or a bare heading mark), with its markdown rendered as plain text (``**done**``
    reads "done")."""
    for line in reversed((text or "").splitlines()):
        if _NOT_TEXT.match(line):
            continue
        plain = _LINE_MARKS.sub("", line, count=1)
        spans: list[str] = []   # code is kept as written (``__init__.py`` stays)
        plain = _CODE_SPAN.sub(lambda m: spans.append(m.group(1)) or f"\x00{len(spans) - 1}\x00",
                               plain)
        for pattern, replacement in _INLINE:
            plain = pattern.sub(replacement, plain)
        plain = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], plain)
        plain = plain.strip().strip("|").strip()
        if plain:
            return plain
    return ""


def missed_note(run: Run) -> str:
    """A catch-up run says for how many missed fires it stood in."""
    if run.trigger == "catch_up" and run.missed_count:
        return tr("Caught up once for %n missed fires", None, run.missed_count)
    return ""


# --------------------------------------------------------------- definition words

def runner_words(d: Definition) -> str:
    if d.runner.kind == "agent":
        model = d.runner.model  # type: ignore[union-attr]
        return tr("Agent") + (f" · {model}" if model else "")
    if d.runner.kind == "notify":
        return tr("Reminder")
    if d.runner.kind == "script":
        return tr("Script")
    return tr("Command")


def runs_what(d: Definition) -> str:
    if d.runner.kind == "agent":
        return d.runner.prompt  # type: ignore[union-attr]
    if d.runner.kind == "notify":
        return d.runner.message  # type: ignore[union-attr]
    if d.runner.kind == "script":
        return d.runner.source  # type: ignore[union-attr]
    return d.runner.command  # type: ignore[union-attr]


def context_words(d: Definition) -> str:
    if d.runner.kind != "agent":
        return tr("Each run starts fresh")
    if d.context.mode == "continue":
        return tr("Continues one conversation (keeps up to %1 tokens of history)").replace(
            "%1", number(d.context.max_history_tokens))
    return tr("Each run starts a fresh conversation")


def stop_words(d: Definition, tz: tzinfo) -> str:
    parts = []
    if d.stop.max_runs is not None:
        parts.append(tr("after %n runs", None, d.stop.max_runs))
    if d.stop.until is not None:
        parts.append(tr("at %1").replace("%1", d.stop.until.astimezone(tz).strftime(
            "%Y-%m-%d %H:%M")))
    if d.stop.when_condition_met:
        parts.append(tr("when the run says its condition is met"))
    if not parts:
        return tr("Runs until you pause or delete it") if d.trigger.kind != "at" else \
            tr("Runs once")
    return tr("Stops %1").replace("%1", tr(", or ").join(parts))


def misfire_words(d: Definition) -> str:
    if d.misfire == "run_once":
        return tr("Caught up once when Errands is back (if newer than %1)"
                  ).replace("%1", duration(d.catch_up_max_age))
    return tr("Skipped and noted in the history")


def overlap_words(d: Definition) -> str:
    return {
        "skip": tr("A fire while the previous run is still going is skipped"),
        "queue_one": tr("A fire while the previous run is still going waits for it (one "
                        "at most)"),
        "cancel_previous": tr("A fire while the previous run is still going cancels it and "
                              "starts anew"),
    }[d.overlap]


_TOOL_WORDS = {
    "run_command": QT_TR_NOOP("run commands"), "read_file": QT_TR_NOOP("read files"),
    "write_file": QT_TR_NOOP("write files"), "edit_file": QT_TR_NOOP("edit files"),
    "list_files": QT_TR_NOOP("list files"), "search_files": QT_TR_NOOP("search files"),
    "fetch_url": QT_TR_NOOP("fetch web pages"), "notify": QT_TR_NOOP("notify you"),
    "ask_user": QT_TR_NOOP("ask you"), "finish": QT_TR_NOOP("finish"),
    "automate": QT_TR_NOOP("create automations"),
    "list_mail": QT_TR_NOOP("list mail"), "read_mail": QT_TR_NOOP("read mail"),
    "send_mail": QT_TR_NOOP("send mail"), "mcp": QT_TR_NOOP("use MCP servers' tools"),
}


def tool_words(tool: str) -> str:
    if tool.startswith("mcp__") and "__" in tool[5:]:  # an MCP server's tool
        server, _, name = tool[5:].partition("__")
        return tr("use %1 of the MCP server %2").replace("%1", name).replace("%2", server)
    return tr(_TOOL_WORDS.get(tool, tool))


def home_short(path: str | os.PathLike[str] | None) -> str:
    """A folder as a person reads it: the home folder as ``~``."""
    if path is None:
        return ""
    text = str(path)
    home = str(Path.home())
    if text == home:
        return "~"
    if text.startswith(home + os.sep):
        return "~" + text[len(home):]
    return text


_ASKS = {"run_command": ("command", QT_TR_NOOP("%1 wants to run %2")),
         "write_file": ("path", QT_TR_NOOP("%1 wants to write %2")),
         "edit_file": ("path", QT_TR_NOOP("%1 wants to edit %2")),
         "read_file": ("path", QT_TR_NOOP("%1 wants to read %2")),
         "fetch_url": ("url", QT_TR_NOOP("%1 wants to open %2"))}


def request_sentence(request: dict[str, Any], title: str | None = None) -> str:
    """What a parked run asks, for people: "Deploy check wants to run `git status --short`
    in ~/site", "Weekly review asks: Which branch?" (an attention item's ``request``)."""
    who = title or request.get("title") or tr("An automation")
    if request.get("kind") == "question":
        question = " ".join(str(request.get("question") or "").split())
        return tr("%1 asks: %2").replace("%1", who).replace(
            "%2", question if len(question) <= 160 else question[:159] + "…")
    tool = str(request.get("tool") or "")
    arguments = request.get("arguments") if isinstance(request.get("arguments"), dict) else {}
    key, sentence = _ASKS.get(tool, ("", ""))
    subject = " ".join(str(arguments.get(key) or "").split()) if key else ""
    if not subject:
        return tr("%1 wants to %2").replace("%1", who).replace("%2", tool_words(tool))
    if len(subject) > 80:
        subject = subject[:79] + "…"
    text = tr(sentence).replace("%1", who).replace("%2", f"`{subject}`")
    where = request.get("workdir")
    if tool in ("run_command", "write_file", "edit_file", "read_file") and where:
        text += " " + tr("in %1").replace("%1", home_short(where))
    return text


def permission_lines(d: Definition) -> list[str]:
    """Plain sentences: what runs without asking, what asks, what is refused."""
    if d.runner.kind == "command":
        return [tr("Runs its command without asking (creating it was the consent)")]
    if d.runner.kind == "notify":
        return [tr("Only shows its message: it runs nothing and uses no model")]
    if d.runner.kind == "script":
        lines = [tr("Runs its script in a sandbox: it proposes, Errands checks each action "
                    "against its folder and rules before applying it")]
        if d.workdir:
            lines.append(tr("Reads and changes files only in %1").replace(
                "%1", home_short(d.workdir)))
        for rule in d.permissions.rules:
            verb = {"allow": tr("Allowed without asking"), "ask": tr("Asks first"),
                    "deny": tr("Never allowed")}[rule.action]
            lines.append(f"{verb}: {tool_words(rule.tool)} `{rule.pattern}`")
        return lines
    p = d.permissions
    lines = []
    if p.mode == "allow_all":
        lines.append(tr("Runs commands and uses every tool without asking"))
    elif p.mode == "allow_listed":
        if p.tools:
            lines.append(tr("Without asking: %1").replace(
                "%1", ", ".join(tool_words(t) for t in p.tools)))
        lines.append(tr("Asks you before anything else"))
    else:
        lines.append(tr("Asks you before running commands or changing files"))
    for rule in p.rules:
        verb = {"allow": tr("Allowed without asking"), "ask": tr("Asks first"),
                "deny": tr("Never allowed")}[rule.action]
        lines.append(f"{verb}: {tool_words(rule.tool)} `{rule.pattern}`")
    if p.untrusted_ok:
        lines.append(tr("Trusts content from the web for: %1").replace(
            "%1", ", ".join(tool_words(t) for t in p.untrusted_ok)))
    return lines


def zone_of(d: Definition) -> str | None:
    return getattr(d.trigger, "timezone", None)


def fire_words(when: datetime, now: datetime, local: tzinfo, own_zone: str | None) -> str:
    """One fire in local time, with the automation's zone when it differs:
    "tomorrow 09:00 New York · 15:00 here"."""
    here = day_and_time(when, now, local)
    if own_zone:
        theirs = zone(own_zone)
        if when.astimezone(theirs).utcoffset() != when.astimezone(local).utcoffset():
            city = own_zone.rsplit("/", 1)[-1].replace("_", " ")
            same_day = when.astimezone(theirs).date() == when.astimezone(local).date()
            here = clock_time(when, local) if same_day else here
            return tr("%1 %2 · %3 here").replace("%1", day_and_time(when, now, theirs)).replace(
                "%2", city).replace("%3", here)
    return here


def plain(value: Any) -> str:
    return "" if value is None else str(value)


def utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


# ------------------------------------------------------------------------ the inbox

ATTENTION_GLYPHS = {
    "failure": "✕", "failure_streak": "✕", "auto_paused": "‖", "expired": "◷",
    "awaiting_input": "⚑", "notify": "✉", "result": "✓", "review": "?", "broken": "!",
    "unattended": "‖",
}
# the colour kind (app/marks.py) of each attention kind
ATTENTION_TONES = {
    "failure": "error", "failure_streak": "error", "auto_paused": "warning",
    "expired": "warning", "awaiting_input": "attention", "broken": "error",
    "review": "attention", "notify": "running", "result": "success", "unattended": "warning",
}


def attention_words(kind: str) -> str:
    """What kind of inbox item it is, in a word or three."""
    return {
        "failure": tr("Failed"), "failure_streak": tr("Failing again and again"),
        "auto_paused": tr("Paused after failures"), "expired": tr("Expired unanswered"),
        "awaiting_input": tr("Waiting for you"), "notify": tr("Message"),
        "result": tr("Result"), "review": tr("To review"), "broken": tr("Cannot run"),
        "unattended": tr("Paused: nobody answered"),
        "trigger_problem": tr("A trigger cannot work"), "email_failed": tr("Mail not sent"),
    }.get(kind, kind.replace("_", " ").capitalize())


# ----------------------------------------------------------------------- scripts

_SCRIPT_STATUS = {
    "ok": QT_TR_NOOP("It ran."), "failed": QT_TR_NOOP("It failed."),
    "timeout": QT_TR_NOOP("It ran out of time."),
    "rejected": QT_TR_NOOP("It was rejected: it went over a budget."),
}
_SCRIPT_LIMITS = {
    "execution_time": QT_TR_NOOP("time"), "memory": QT_TR_NOOP("memory"),
    "stack": QT_TR_NOOP("recursion depth"), "actions": QT_TR_NOOP("actions"),
    "reads": QT_TR_NOOP("reads"),
}
_SCRIPT_ACTIONS = {
    "notify": QT_TR_NOOP("Notify"), "writeFile": QT_TR_NOOP("Write a file"),
    "appendFile": QT_TR_NOOP("Append to a file"), "moveFile": QT_TR_NOOP("Move a file"),
    "deleteFile": QT_TR_NOOP("Delete a file"), "setState": QT_TR_NOOP("Remember"),
    "runAutomation": QT_TR_NOOP("Run an automation"), "mailMe": QT_TR_NOOP("Mail me"),
}


def script_status(status: str | None, limit: str | None = None) -> str:
    """How a script's run (or dry run) ended, in a sentence."""
    text = tr(_SCRIPT_STATUS.get(status or "", QT_TR_NOOP("It failed.")))
    if limit:
        text += " " + tr("Limit reached: %1.").replace("%1", tr(_SCRIPT_LIMITS.get(limit, limit)))
    return text


def script_action(kind: str) -> str:
    return tr(_SCRIPT_ACTIONS[kind]) if kind in _SCRIPT_ACTIONS else kind


def action_target(action: dict[str, Any], short: bool = False) -> str:
    """What a script's action is about: a file (and where it goes), a key, an automation;
    ``short``: paths by their last parts, at most about 40 characters."""
    def cut(text: Any) -> str:
        text = home_short(str(text)) if "/" in str(text) else str(text)
        return text if not short or len(text) <= 40 else "…" + text[-39:]
    if action.get("from") is not None:
        if short:
            return f"{cut(os.path.basename(str(action['from'])))} → {cut(action.get('to'))}"
        return f"{cut(action['from'])} → {cut(action.get('to'))}"
    for key in ("path", "key", "automation", "subject", "message"):
        if action.get(key) is not None:
            return cut(action[key])
    return ""
