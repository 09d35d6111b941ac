"""Words the views show for states, reasons, times and policies, all through Qt's
translation (context ``Errands``), so the next issue's translations reach every view.

Plain functions over plain records: no widgets here, so any view (and any test) can ask
what a state or a skipped record reads as.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import QCoreApplication

from ..definition import Definition
from ..records import Run
from ..timeutil import UTC, system_zone_name, zone

CONTEXT = "Errands"


def tr(text: str, n: int = -1, disambiguation: str | None = None) -> str:
    return QCoreApplication.translate(CONTEXT, text, disambiguation, n)


# ------------------------------------------------------------------ glyphs and states
# Glyphs carry meaning without colour (window.md); colours come from app/marks.py. Each is
# in DejaVu Sans (the font these machines have): ⏸ and ⌛ are not, so ‖ and ⧖'s cousin ◷.

STATE_GLYPHS = {
    "active": "●", "paused": "‖", "completed": "✓", "broken": "!", "running": "◐",
    "scheduled": "◔", "awaiting_input": "⚑", "succeeded": "✓", "failed": "✕",
    "cancelled": "⊘", "interrupted": "↯", "expired": "◷", "skipped": "○",
}


def glyph(state: str | None) -> str:
    return STATE_GLYPHS.get(state or "", "·")


def status_words(status: str) -> str:
    """An automation's status: active, paused, completed, broken."""
    return {"active": tr("Active"), "paused": tr("Paused"), "completed": tr("Done"),
            "broken": tr("Cannot run"), "running": tr("Running now")}.get(status, status)


def state_words(state: str | None) -> str:
    """A run's state in one or two words."""
    return {
        "scheduled": tr("Queued"), "running": tr("Running"),
        "awaiting_input": tr("Waiting for you"), "succeeded": tr("Succeeded"),
        "failed": tr("Failed"), "cancelled": tr("Cancelled"), "interrupted": tr("Interrupted"),
        "expired": tr("Expired"), "skipped": tr("Skipped"), None: tr("No runs yet"),
    }.get(state, state or "")


def trigger_words(trigger: str) -> str:
    return {"schedule": tr("On schedule"), "manual": tr("Run by hand"),
            "catch_up": tr("Catch-up")}.get(trigger, trigger)


# ----------------------------------------------------------------------------- times

def local_zone() -> tzinfo:
    return zone(system_zone_name())


def clock_time(when: datetime, tz: tzinfo) -> str:
    return when.astimezone(tz).strftime("%H:%M")


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
        return f"{local:%a} {hm}"
    if local.year == today.year:
        return f"{local.day} {local:%b} {hm}"
    return f"{local.day} {local:%b} {local.year} {hm}"


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")


def short_instant(when: datetime, now: datetime, tz: tzinfo) -> str:
    """"5 Jan 08:00" (the year added when it is not this one): a date in a sentence."""
    local = when.astimezone(tz)
    year = f" {local.year}" if local.year != now.astimezone(tz).year else ""
    return f"{local.day} {local:%b}{year} {local:%H:%M}"


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
        return tr("in %n min", int(seconds // 60))
    if seconds < 24 * 3600:
        return tr("in %n h", int(seconds // 3600))
    local = when.astimezone(tz)
    if seconds < 6 * 24 * 3600:
        return f"{local:%a}"
    if local.year == now.astimezone(tz).year:
        return f"{local.day} {local:%b}"
    return f"{local.day} {local:%b} {local.year}"


def ago(when: datetime | None, now: datetime) -> str:
    if when is None:
        return ""
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return tr("just now")
    if seconds < 3600:
        return tr("%n min ago", int(seconds // 60))
    if seconds < 24 * 3600:
        return tr("%n h ago", int(seconds // 3600))
    return tr("%n d ago", int(seconds // 86400))


def duration(value: timedelta | None) -> str:
    if value is None:
        return ""
    seconds = max(0, int(round(value.total_seconds())))
    if seconds < 60:
        return tr("%n s", seconds)
    if seconds < 3600:
        m, s = divmod(seconds, 60)
        return tr("%1 min %2 s").replace("%1", str(m)).replace("%2", str(s)) if s else \
            tr("%n min", m)
    h, rest = divmod(seconds, 3600)
    if rest // 60 == 0:
        return tr("%n h", h)
    return tr("%1 h %2 min").replace("%1", str(h)).replace("%2", str(rest // 60))


# ------------------------------------------------------------------------ run words

def skip_words(run: Run, tz: tzinfo, now: datetime | None = None) -> str:
    """Why a fire did not run, in a sentence: "Errands was not running — 14 fires between
    18:00 and 08:00"."""
    reason = {
        "app_not_running": tr("Errands was not running"),
        "machine_asleep": tr("The computer was asleep"),
        "previous_run_active": tr("The previous run was still going"),
        "previous_run_awaiting_input": tr("The previous run is waiting for you"),
        "past_catch_up_age": tr("Too old to catch up"),
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
        between = tr("%n fires between", count) + " " + span.replace("%1", a).replace("%2", b)
        return f"{reason} — {between}"
    when = first or run.scheduled_for
    if when is not None:
        return f"{reason} — " + tr("the fire at %1").replace(
            "%1", day_and_time(when, now or when, tz))
    return reason


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
        if run.started_at and now:
            return tr("Running for %1").replace("%1", duration(now - run.started_at))
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
        return tr("Queued")
    first_line = (run.result or "").strip().splitlines()
    head = first_line[0] if first_line else ""
    prefix = tr("Dry run") + ": " if run.dry_run else ""
    return prefix + (head if len(head) <= 200 else head[:199] + "…")


def missed_note(run: Run) -> str:
    """A catch-up run says for how many missed fires it stood in."""
    if run.trigger == "catch_up" and run.missed_count:
        return tr("Caught up once for %n missed fires", run.missed_count)
    return ""


# --------------------------------------------------------------- definition words

def runner_words(d: Definition) -> str:
    if d.runner.kind == "agent":
        model = d.runner.model  # type: ignore[union-attr]
        return tr("Agent") + (f" · {model}" if model else "")
    return tr("Command")


def runs_what(d: Definition) -> str:
    if d.runner.kind == "agent":
        return d.runner.prompt  # type: ignore[union-attr]
    return d.runner.command  # type: ignore[union-attr]


def context_words(d: Definition) -> str:
    if d.runner.kind != "agent":
        return tr("Each run starts fresh")
    if d.context.mode == "continue":
        return tr("Continues one conversation (keeps up to %1 tokens of history)").replace(
            "%1", f"{d.context.max_history_tokens:,}")
    return tr("Each run starts a fresh conversation")


def stop_words(d: Definition, tz: tzinfo) -> str:
    parts = []
    if d.stop.max_runs is not None:
        parts.append(tr("after %n runs", d.stop.max_runs))
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
    "run_command": "run commands", "read_file": "read files", "write_file": "write files",
    "edit_file": "edit files", "list_files": "list files", "search_files": "search files",
    "fetch_url": "fetch web pages", "notify": "notify you", "ask_user": "ask you",
    "finish": "finish", "automate": "create automations",
}


def tool_words(tool: str) -> str:
    return tr(_TOOL_WORDS.get(tool, tool))


def permission_lines(d: Definition) -> list[str]:
    """Plain sentences: what runs without asking, what asks, what is refused."""
    if d.runner.kind == "command":
        return [tr("Runs its command without asking (creating it was the consent)")]
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
}
# the colour kind (app/marks.py) of each attention kind
ATTENTION_TONES = {
    "failure": "error", "failure_streak": "error", "auto_paused": "warning",
    "expired": "warning", "awaiting_input": "attention", "broken": "error",
    "review": "attention", "notify": "running", "result": "success",
}


def attention_words(kind: str) -> str:
    """What kind of inbox item it is, in a word or three."""
    return {
        "failure": tr("Failed"), "failure_streak": tr("Failing again and again"),
        "auto_paused": tr("Paused after failures"), "expired": tr("Expired unanswered"),
        "awaiting_input": tr("Waiting for you"), "notify": tr("Message"),
        "result": tr("Result"), "review": tr("To review"), "broken": tr("Cannot run"),
    }.get(kind, kind.replace("_", " ").capitalize())
