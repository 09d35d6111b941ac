"""The automation definition: one object, built the same way by the CLI, the window and the agent.

``parse_definition`` is the single gate every definition passes through. It refuses unknown
fields at every level and names the offending field, the expected shape and an example.
``Definition.to_dict`` is its inverse: ``parse_definition(d.to_dict(), ...) == d``.
"""

from __future__ import annotations

import calendar
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Mapping, Union

from .cron import CronExpression
from .errors import InvalidInput
from .event_triggers import (DEFAULT_DEBOUNCE, EVENT_KINDS, FOLDER_CHANGES, MAX_MEMBERS,
                             MAX_WEBHOOK_BODY, RUN_END_STATES, TRIGGER_ID, TRIGGER_ID_TEXT,
                             AutomationTrigger, FolderTrigger, MailTrigger, Member,
                             TriggerSet, WebhookTrigger, members_of)
from .jsondoc import key_path
from .limits import MAX_HISTORY_LIMIT
from .tool_servers import ToolServer, parse_servers
from .timeutil import (LATEST, RANGE_TEXT, format_duration, format_instant, parse_duration,
                       parse_instant, shown, system_zone_name, zone)

ANY_MACHINE = "any"  # runs_on: whichever engine serves the catalogue's common work
TOOL_NAMES = ("run_command", "read_file", "write_file", "edit_file", "list_files",
              "search_files", "fetch_url", "notify", "ask_user", "finish", "automate",
              "list_mail", "read_mail", "send_mail")
MAX_TEXT_BYTES = 32 * 1024
MCP_GRANT = re.compile(r"mcp:[a-z0-9][a-z0-9-]{0,29}\.[^\s]{1,128}")  # one MCP server's tool
MAX_NAME_CHARS = 200       # model names, template names, session ids, request ids
MAX_PATTERN_CHARS = 1000   # a permission rule's pattern
# What a text field must not hold (a lone surrogate is never text). Commands and prompts
# may hold tabs and newlines but no NUL, which no process argument can carry; a workdir no
# control character; a title and every short name fit on one line.
ANY_TEXT = re.compile("[\x00\ud800-\udfff]")
PATH_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
LINE_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_RULES = {ANY_TEXT: "text without NUL characters",
          PATH_TEXT: "text without control characters",
          LINE_TEXT: "one line of text without control characters"}
READ_ONLY_FIELDS = ("id", "revision", "status", "next_fire_at", "failure_streak",
                    "created_at", "updated_at", "paused_reason", "paused_at", "run_count",
                    "counted_runs")


# ----------------------------------------------------------------------------- tasks
# What an automation runs (its ``runner`` field). The engine's runners (runners/contract.py,
# runners/command.py) are what execute a task: one name, one meaning.

@dataclass(frozen=True)
class AgentTask:
    prompt: str
    model: str | None = None
    kind: Literal["agent"] = "agent"
    mcp_servers: tuple[ToolServer, ...] = ()   # its own MCP servers (``tool_servers``)


@dataclass(frozen=True)
class CommandTask:
    command: str
    kind: Literal["command"] = "command"


@dataclass(frozen=True)
class NotifyTask:
    """A reminder: each run shows ``message`` as a notification. No model, no process."""

    message: str
    kind: Literal["notify"] = "notify"


@dataclass(frozen=True)
class ScriptLimits:
    """A script run's budgets (seed 003 "Limits"): each settable per automation up to its
    ceiling in :data:`SCRIPT_LIMITS`."""

    time_ms: int = 100
    heap_mb: int = 16
    actions: int = 50
    reads: int = 20
    rows: int = 200


# name: (lowest, default, ceiling); a script's size is checked apart (MAX_SCRIPT_BYTES)
SCRIPT_LIMITS: dict[str, tuple[int, int, int]] = {
    "time_ms": (10, 100, 5000), "heap_mb": (4, 16, 128), "actions": (1, 50, 500),
    "reads": (0, 20, 200), "rows": (1, 200, 2000)}
MAX_SCRIPT_BYTES = 64 * 1024
SCRIPT_EXAMPLE = ('{"kind": "script", "source": "export default function ({ event, actions }) '
                  '{ actions.notify(`fired at ${event.at}`) }"}')


@dataclass(frozen=True)
class ScriptTask:
    """A JavaScript function run in a sandbox; what it proposes is checked, then applied
    (:mod:`errands.scripts`). The source is compiled when the automation is saved."""

    source: str
    limits: ScriptLimits = field(default_factory=ScriptLimits)
    kind: Literal["script"] = "script"


Task = Union[AgentTask, CommandTask, NotifyTask, ScriptTask]
MAX_MESSAGE_CHARS = 2000


# -------------------------------------------------------------------------- triggers

@dataclass(frozen=True)
class ManualTrigger:
    kind: Literal["manual"] = "manual"


@dataclass(frozen=True)
class AtTrigger:
    at: datetime
    kind: Literal["at"] = "at"


@dataclass(frozen=True)
class EveryTrigger:
    """A fixed grid from ``start_at``; with ``timezone`` (whole days only) it steps in local
    calendar days and keeps ``start_at``'s wall-clock time across daylight saving."""

    every: timedelta
    start_at: datetime
    timezone: str | None = None
    kind: Literal["every"] = "every"


@dataclass(frozen=True)
class AfterTrigger:
    interval: timedelta
    start_at: datetime
    kind: Literal["after"] = "after"


@dataclass(frozen=True)
class CronTrigger:
    expression: str
    timezone: str
    kind: Literal["cron"] = "cron"

    @property
    def cron(self) -> CronExpression:
        return CronExpression.parse(self.expression)


WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WORKDAY = "workday"        # Monday to Friday


@dataclass(frozen=True)
class MonthlyTrigger:
    """A day of the month that cron cannot say: the last day or the N-th to last
    (``day`` -1, -2 …), the N-th or N-th to last weekday or working day (``weekday`` with
    ``nth`` 1…5 or -1…-5), or any day every N months from ``start`` (``every`` 12 is
    yearly), at a local wall time in ``timezone``. A month without that day (the 31st in
    April, a fifth Monday) is skipped, as cron skips it."""

    at_hour: int
    at_minute: int
    timezone: str
    start: int                  # the first month of the grid: year * 12 + month - 1
    every: int = 1              # months from one fire's month to the next's
    day: int | None = None
    weekday: str | None = None  # "mon" … "sun" or "workday"
    nth: int | None = None
    kind: Literal["monthly"] = "monthly"

    def day_in(self, year: int, month: int) -> int | None:
        """The day of ``year``-``month`` it fires on, or None when that month has none."""
        last = calendar.monthrange(year, month)[1]
        if self.day is not None:
            value = self.day if self.day > 0 else last + 1 + self.day
            return value if 1 <= value <= last else None
        assert self.weekday is not None and self.nth is not None
        first = calendar.weekday(year, month, 1)
        wanted = (range(5) if self.weekday == WORKDAY
                  else (WEEKDAY_NAMES.index(self.weekday),))
        days = [d for d in range(1, last + 1) if (first + d - 1) % 7 in wanted]
        index = self.nth - 1 if self.nth > 0 else self.nth
        return days[index] if -len(days) <= index < len(days) else None

    def ever_fires(self) -> bool:
        """Whether any month of the grid has the day (29 February every 4 years from a
        year that is not a leap year never comes; nor does 30 February)."""
        month = self.start
        for _ in range(2000):          # enough to see a 400-year leap cycle at any step
            year, index = divmod(month, 12)
            if year > 9999:
                return False
            if self.day_in(year, index + 1) is not None:
                return True
            month += self.every
        return False

    @property
    def start_text(self) -> str:
        year, month = divmod(self.start, 12)
        return f"{year:04d}-{month + 1:02d}"


Trigger = Union[ManualTrigger, AtTrigger, EveryTrigger, AfterTrigger, CronTrigger,
                MonthlyTrigger, FolderTrigger, WebhookTrigger, MailTrigger, AutomationTrigger,
                TriggerSet]
RECURRING = ("every", "after", "cron", "monthly", "set") + EVENT_KINDS


# ------------------------------------------------------------------ the other parts

@dataclass(frozen=True)
class Context:
    mode: Literal["fresh", "continue"] = "fresh"
    max_history_tokens: int = 50_000


@dataclass(frozen=True)
class Stop:
    max_runs: int | None = None
    until: datetime | None = None
    when_condition_met: bool = False

    @property
    def empty(self) -> bool:
        return self.max_runs is None and self.until is None and not self.when_condition_met


@dataclass(frozen=True)
class Backoff:
    initial: timedelta = timedelta(seconds=30)
    factor: float = 2
    max: timedelta = timedelta(minutes=10)


@dataclass(frozen=True)
class Retry:
    max_attempts: int = 3
    backoff: Backoff = field(default_factory=Backoff)

    def delay(self, failed_attempt: int) -> timedelta:
        """Backoff before the attempt after ``failed_attempt``: min(initial·factor^(n−1), max)."""
        seconds = self.backoff.initial.total_seconds() * self.backoff.factor ** (failed_attempt - 1)
        return min(timedelta(seconds=seconds), self.backoff.max)


@dataclass(frozen=True)
class Policy:
    retry: Retry = field(default_factory=Retry)
    timeout: timedelta = timedelta(minutes=30)
    max_steps: int = 50
    notify: Literal["quiet", "every_run", "on_change"] = "quiet"
    failure_notify_after: int = 3
    pause_after_failures: int | None = None
    jitter: timedelta | None = None
    history_limit: int | None = None  # ended runs kept (None: the run_history_limit setting)
    email_result: bool = False   # each run's result mailed to the user's own address


@dataclass(frozen=True)
class Rule:
    tool: str
    pattern: str
    action: Literal["allow", "ask", "deny"]


NETWORK_RULE_TOOLS = ("fetch_url", "network", "*")


@dataclass(frozen=True)
class Permissions:
    mode: Literal["ask", "allow_listed", "allow_all"] = "ask"
    tools: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    untrusted_ok: tuple[str, ...] = ()
    # who send_mail may write to unasked, besides the user's own address
    email_allowed_recipients: tuple[str, ...] = ()

    def allow_network(self, global_rules: tuple[Rule, ...] = ()) -> bool:
        """Whether commands under these permissions may use the network: only where a
        person allowed the network (fetch_url allowed by the mode, the tools or an allow
        rule, here or globally) and no global rule denies fetching everything."""
        if any(r.action == "deny" and r.tool in NETWORK_RULE_TOOLS and r.pattern == "*"
               for r in global_rules):
            return False
        return (self.mode == "allow_all"
                or (self.mode == "allow_listed" and "fetch_url" in self.tools)
                or any(r.action == "allow" and r.tool in NETWORK_RULE_TOOLS
                       for r in (*self.rules, *global_rules)))


@dataclass(frozen=True)
class Origin:
    kind: Literal["user", "template", "agent", "cli", "import", "mcp"] = "user"
    template: str | None = None
    session_id: str | None = None
    depth: int = 0
    client: str | None = None     # ``mcp``: the client that proposed it (errands mcp)


@dataclass(frozen=True)
class Definition:
    title: str
    runner: Task
    trigger: Trigger
    context: Context = field(default_factory=Context)
    stop: Stop = field(default_factory=Stop)
    misfire: Literal["skip", "run_once"] = "skip"
    catch_up_max_age: timedelta = timedelta(hours=24)
    overlap: Literal["skip", "queue_one", "cancel_previous"] = "skip"
    policy: Policy = field(default_factory=Policy)
    permissions: Permissions = field(default_factory=Permissions)
    workdir: str | None = None
    worktree: bool = False      # agent runs, fresh context: each run in its own git worktree
    paused: bool = False
    origin: Origin = field(default_factory=Origin)
    # which engine fires it on a shared catalogue: "any" (the one serving the catalogue's
    # common work) or one machine's (a command, a folder: things that exist on one machine)
    runs_on: str = ANY_MACHINE

    @property
    def one_shot(self) -> bool:
        return self.trigger.kind == "at"

    def to_dict(self) -> dict[str, Any]:
        return definition_to_dict(self)


# ------------------------------------------------------------------------ serialise

def trigger_to_dict(trigger: Trigger) -> dict[str, Any]:
    if isinstance(trigger, AtTrigger):
        return {"kind": "at", "at": format_instant(trigger.at)}
    if isinstance(trigger, EveryTrigger):
        doc = {"kind": "every", "every": format_duration(trigger.every),
               "start_at": format_instant(trigger.start_at)}
        return {**doc, "timezone": trigger.timezone} if trigger.timezone else doc
    if isinstance(trigger, AfterTrigger):
        return {"kind": "after", "interval": format_duration(trigger.interval),
                "start_at": format_instant(trigger.start_at)}
    if isinstance(trigger, CronTrigger):
        return {"kind": "cron", "expression": trigger.expression, "timezone": trigger.timezone}
    if isinstance(trigger, MonthlyTrigger):
        doc: dict[str, Any] = {"kind": "monthly"}
        if trigger.day is not None:
            doc["day"] = trigger.day
        else:
            doc.update(weekday=trigger.weekday, nth=trigger.nth)
        return {**doc, "every": trigger.every, "start": trigger.start_text,
                "at": f"{trigger.at_hour:02d}:{trigger.at_minute:02d}",
                "timezone": trigger.timezone}
    if isinstance(trigger, FolderTrigger):
        doc = {"kind": "folder", "path": trigger.path, "recursive": trigger.recursive,
               "include": list(trigger.include), "exclude": list(trigger.exclude),
               "changes": list(trigger.changes), "debounce": format_duration(trigger.debounce)}
        return doc
    if isinstance(trigger, WebhookTrigger):
        return {"kind": "webhook", "max_body": trigger.max_body}
    if isinstance(trigger, MailTrigger):
        return {"kind": "mail", "account": trigger.account, "folder": trigger.folder,
                "sender": trigger.sender, "subject": trigger.subject,
                "batch": format_duration(trigger.batch) if trigger.batch else None}
    if isinstance(trigger, AutomationTrigger):
        return {"kind": "automation", "automation": trigger.automation,
                "states": list(trigger.states)}
    if isinstance(trigger, TriggerSet):
        return {"kind": "set", "triggers": [{"id": m.id, **trigger_to_dict(m.trigger)}
                                            for m in trigger.members]}
    return {"kind": "manual"}


def put_trigger(doc: dict[str, Any], trigger: Mapping[str, Any]) -> None:
    """Set a definition document's trigger from a trigger document: ``trigger`` for one,
    ``triggers`` for a set (``{"kind": "set", "triggers": [...]}``), dropping the other."""
    doc.pop("trigger", None)
    doc.pop("triggers", None)
    if trigger.get("kind") == "set":
        doc["triggers"] = list(trigger.get("triggers") or [])
    else:
        doc["trigger"] = dict(trigger)


def trigger_of(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """A definition document's trigger as one trigger document (a set for ``triggers``)."""
    if doc.get("triggers") is not None:
        return {"kind": "set", "triggers": doc["triggers"]}
    trigger = doc.get("trigger")
    return dict(trigger) if isinstance(trigger, Mapping) else None


def triggers_field(trigger: Trigger) -> dict[str, Any]:
    """A definition's trigger field: ``trigger`` for one, ``triggers`` (a list) for a set."""
    doc = trigger_to_dict(trigger)
    return {"triggers": doc["triggers"]} if doc["kind"] == "set" else {"trigger": doc}


def definition_to_dict(d: Definition) -> dict[str, Any]:
    runner: dict[str, Any]
    if isinstance(d.runner, AgentTask):
        runner = {"kind": "agent", "prompt": d.runner.prompt, "model": d.runner.model}
        if d.runner.mcp_servers:
            runner["mcp_servers"] = [s.to_dict() for s in d.runner.mcp_servers]
    elif isinstance(d.runner, NotifyTask):
        runner = {"kind": "notify", "message": d.runner.message}
    elif isinstance(d.runner, ScriptTask):
        limits = d.runner.limits
        runner = {"kind": "script", "source": d.runner.source,
                  "limits": {name: getattr(limits, name) for name in SCRIPT_LIMITS}}
    else:
        runner = {"kind": "command", "command": d.runner.command}
    p = d.policy
    return {
        "title": d.title,
        "runner": runner,
        **triggers_field(d.trigger),
        "context": {"mode": d.context.mode, "max_history_tokens": d.context.max_history_tokens},
        "stop": {"max_runs": d.stop.max_runs, "until": format_instant(d.stop.until),
                 "when_condition_met": d.stop.when_condition_met},
        "misfire": d.misfire,
        "catch_up_max_age": format_duration(d.catch_up_max_age),
        "overlap": d.overlap,
        "policy": {
            "retry": {"max_attempts": p.retry.max_attempts, "backoff": {
                "initial": format_duration(p.retry.backoff.initial),
                "factor": p.retry.backoff.factor,
                "max": format_duration(p.retry.backoff.max)}},
            "timeout": format_duration(p.timeout),
            "max_steps": p.max_steps,
            "notify": p.notify,
            "failure_notify_after": p.failure_notify_after,
            "pause_after_failures": p.pause_after_failures,
            "jitter": format_duration(p.jitter) if p.jitter else None,
            "history_limit": p.history_limit,
            "email_result": p.email_result,
        },
        "permissions": {
            "mode": d.permissions.mode, "tools": list(d.permissions.tools),
            "rules": [{"tool": r.tool, "pattern": r.pattern, "action": r.action}
                      for r in d.permissions.rules],
            "untrusted_ok": list(d.permissions.untrusted_ok),
            "email_allowed_recipients": list(d.permissions.email_allowed_recipients)},
        "workdir": d.workdir,
        "worktree": d.worktree,
        "paused": d.paused,
        "origin": {"kind": d.origin.kind, "template": d.origin.template,
                   "session_id": d.origin.session_id, "depth": d.origin.depth,
                   **({"client": d.origin.client} if d.origin.client else {})},
        # (said only when bound, so every definition from before keeps its exact text)
        **({"runs_on": d.runs_on} if d.runs_on != ANY_MACHINE else {}),
    }


def canonical_json(doc: Mapping[str, Any]) -> str:
    """A stable text of a document, for comparing definitions and request fingerprints."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------------------- parse

class _Reader:
    """Reads one JSON object, tracking the dotted path so every error names its field."""

    def __init__(self, doc: object, path: str, allowed: tuple[str, ...], example: str) -> None:
        if not isinstance(doc, dict):
            raise InvalidInput(path or "definition", f"expected an object, got {_kind(doc)}",
                               "a JSON object", example)
        unknown = [k for k in doc if k not in allowed]
        if unknown:
            key = unknown[0]
            where = key_path(path, key)
            if not path and key in READ_ONLY_FIELDS:
                raise InvalidInput(where, f"{key!r} is read-only and set by Errands; omit it",
                                   "no read-only fields in a definition", example)
            raise InvalidInput(where, f"unknown field {shown(key)}",
                               "one of " + ", ".join(allowed), example)
        self.doc = doc
        self.path = path

    def name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return key in self.doc and self.doc[key] is not None

    def raw(self, key: str, default: Any = None) -> Any:
        value = self.doc.get(key, default)
        return default if value is None else value

    def text(self, key: str, *, default: str | None = None, required: bool = False,
             max_bytes: int | None = None, max_chars: int | None = MAX_NAME_CHARS,
             forbid: re.Pattern[str] = LINE_TEXT, example: str = "") -> str | None:
        value = self.doc.get(key)
        if value is None:
            if required:
                raise InvalidInput(self.name(key), "is required", "a non-empty string", example,
                                   reason="required")
            return default
        if not isinstance(value, str):
            raise InvalidInput(self.name(key), f"expected a string, got {_kind(value)}",
                               "a string", example, reason="kind")
        if required and not value.strip():
            raise InvalidInput(self.name(key), "must not be empty", "a non-empty string", example,
                               reason="empty")
        if max_chars is not None and len(value) > max_chars:
            raise InvalidInput(self.name(key), f"is {len(value)} characters long",
                               f"at most {max_chars} characters", example, reason="too_long",
                               values={"max": max_chars, "length": len(value)})
        check_text(value, self.name(key), forbid, example)
        if max_bytes is not None and len(value.encode()) > max_bytes:
            raise InvalidInput(self.name(key), f"is {len(value.encode())} bytes long",
                               f"at most {max_bytes // 1024} KiB", example, reason="too_large",
                               values={"max_kib": max_bytes // 1024})
        return value

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        value = self.doc.get(key, default)
        if value is None:
            return default
        if value not in options:
            raise InvalidInput(self.name(key), f"unsupported value {shown(value)}",
                               "one of " + ", ".join(options), options[0], reason="choice",
                               values={"options": ", ".join(options)})
        return str(value)

    def integer(self, key: str, low: int, high: int, default: int | None,
                nullable: bool = False) -> int | None:
        value = self.doc.get(key, default)
        if value is None:
            if nullable or default is None:
                return default
            value = default
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidInput(self.name(key), f"expected a whole number from {low} to {high}, "
                               f"got {_brief(value)}", f"a whole number from {low} to {high}",
                               str(default if default is not None else low), reason="range",
                               values={"low": low, "high": high})
        return value

    def number(self, key: str, low: float, high: float, default: float) -> float:
        value = self.doc.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise InvalidInput(self.name(key), f"expected a number from {low:g} to {high:g}, got "
                               f"{_brief(value)}", f"a number from {low:g} to {high:g}", f"{default:g}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.doc.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise InvalidInput(self.name(key), f"expected true or false, got {_brief(value)}",
                               "true or false", "false")
        return value

    def duration(self, key: str, default: timedelta | None) -> timedelta | None:
        value = self.doc.get(key)
        if value is None:
            return default
        return parse_duration(value, self.name(key))

    def instant(self, key: str) -> datetime | None:
        value = self.doc.get(key)
        return None if value is None else parse_instant(value, self.name(key))

    def names(self, key: str, allowed: tuple[str, ...], grants: bool = False
              ) -> tuple[str, ...]:
        """Tool names; with ``grants`` also one MCP server's tool, ``mcp:server.tool``."""
        value = self.doc.get(key) or []
        if not isinstance(value, list) or len(value) > 500:
            raise InvalidInput(self.name(key), f"expected a list, got {_kind(value)}",
                               "a list of tool names", '["read_file"]')
        for i, item in enumerate(value):
            if item not in allowed and not (grants and isinstance(item, str)
                                            and MCP_GRANT.fullmatch(item)):
                raise InvalidInput(f"{self.name(key)}[{i}]", f"unknown tool {shown(item)}",
                                   "one of " + ", ".join(allowed)
                                   + (", or an MCP server's tool as mcp:SERVER.TOOL"
                                      if grants else ""), "read_file")
        return tuple(dict.fromkeys(value))


def check_text(value: str, field: str, forbid: re.Pattern[str] = LINE_TEXT,
               example: str = "") -> str:
    """``value`` unless it holds a character ``forbid`` matches; the refusal says which."""
    bad = forbid.search(value)
    if bad:
        char = bad.group()
        what = ("a lone surrogate (not text)" if "\ud800" <= char <= "\udfff" else
                "a line separator" if char in "\u2028\u2029" else "a control character")
        raise InvalidInput(field, f"contains {what} U+{ord(char):04X} at position {bad.start()}",
                           _RULES[forbid], example, reason="characters",
                           values={"char": f"U+{ord(char):04X}"})
    return value


def check_request_id(value: object, field: str = "request_id") -> str:
    """A request id: 1–200 printable characters, so equal ids are equal text and nothing else."""
    example = "backup-2026-03-29"
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a string, got {_kind(value)}",
                           f"1–{MAX_NAME_CHARS} printable characters", example)
    if not 1 <= len(value) <= MAX_NAME_CHARS:
        raise InvalidInput(field, f"is {len(value)} characters long",
                           f"1–{MAX_NAME_CHARS} printable characters", example)
    if not value.isprintable():
        char = next(c for c in value if not c.isprintable())
        raise InvalidInput(field, f"contains the unprintable character U+{ord(char):04X}",
                           f"1–{MAX_NAME_CHARS} printable characters", example)
    return value


def _brief(value: object) -> str:
    """A short description of a wrong value (a huge one by its kind only)."""
    return shown(value) if isinstance(value, (str, int, float, bool)) else _kind(value)


def _later(now: datetime, delta: timedelta) -> str | None:
    """An example instant ``delta`` after ``now``, kept inside the calendar."""
    return format_instant(now + delta if now <= LATEST - delta else LATEST)


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class ParseContext:
    """What parsing needs from the world: the time, the interval floor, the user's zone."""

    now: datetime
    min_interval: timedelta = timedelta(seconds=60)
    default_timezone: str | None = None
    previous: "Definition | None" = None   # set when revising: unchanged instants stay valid

    def zone_name(self) -> str:
        return self.default_timezone or system_zone_name()


def _memoized(memo: dict[Any, Any] | None, key: tuple[Any, ...], doc: object,
              parse: Any) -> Any:
    """``parse()``, or what it gave for the same sub-document before (``memo``): stored
    definitions mostly share their policy, permissions and origin, and what they parse to
    is immutable. A refusal is never remembered."""
    if memo is None:
        return parse()
    # repr, not a sorted JSON dump (twice as fast): decoded JSON holds only dicts, lists,
    # strings, numbers, booleans and None, whose repr tells any two apart; a dict in another
    # key order merely misses the memo
    whole = (*key, repr(doc))
    found = memo.get(whole)
    if found is None:
        found = parse()
        if len(memo) < 4096:
            memo[whole] = found
    return found


def parse_definition(doc: object, ctx: ParseContext,
                     memo: dict[Any, Any] | None = None) -> Definition:
    """A definition document, checked (``memo``: sub-documents parsed before, for reading
    many stored definitions; only where the result does not depend on ``ctx``)."""
    r = _Reader(doc, "", ("title", "runner", "trigger", "triggers", "context", "stop", "misfire",
                          "catch_up_max_age", "overlap", "policy", "permissions", "workdir",
                          "worktree", "paused", "origin", "runs_on"), '{"title": "Backup", "runner": {...}, "trigger": {...}}')
    title = r.text("title", required=True, max_chars=120, example="Morning briefing")
    assert title is not None
    runner = _runner(r.raw("runner"), "runner")
    trigger = _definition_trigger(r, ctx)
    context = _context(r.raw("context"), trigger)
    stop = _stop(r.raw("stop"), trigger, ctx)
    policy = _memoized(memo, ("policy",), r.raw("policy"), lambda: _policy(r.raw("policy")))
    permissions = _memoized(memo, ("permissions", type(runner)), r.raw("permissions"),
                            lambda: _permissions(r.raw("permissions"), runner))
    workdir = r.text("workdir", max_chars=4096, forbid=PATH_TEXT, example="/home/me/projects/site")
    if workdir is not None and not os.path.isabs(workdir):
        raise InvalidInput("workdir", f"not an absolute path: {workdir!r}",
                           "an absolute folder path", "/home/me/projects/site",
                           reason="not_absolute")
    worktree = r.boolean("worktree", False)
    if worktree:
        _check_worktree(runner, context, workdir)
    return Definition(
        title=title.strip(), runner=runner, trigger=trigger, context=context, stop=stop,
        misfire=r.choice("misfire", ("skip", "run_once"), "skip"),  # type: ignore[arg-type]
        catch_up_max_age=r.duration("catch_up_max_age", timedelta(hours=24)),  # type: ignore[arg-type]
        overlap=r.choice("overlap", ("skip", "queue_one", "cancel_previous"), "skip"),  # type: ignore[arg-type]
        policy=policy, permissions=permissions, workdir=workdir, worktree=worktree,
        paused=r.boolean("paused", False),
        origin=_memoized(memo, ("origin",), r.raw("origin"), lambda: _origin(r.raw("origin"))),
        runs_on=runs_on_field(r.raw("runs_on", ANY_MACHINE), "runs_on"))


MACHINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
RUNS_ON_EXPECTED = ('"any", or the name of one machine (1 to 100 letters, digits, dots, '
                    'dashes or underscores, as ERRANDS_MACHINE or the host name gives it)')


def bind_to(doc: Any, machine: str) -> Any:
    """A new command or folder-bound definition that does not say where it runs, bound to
    the machine it is made on (on a shared catalogue: its program and folder are that
    machine's); any other as it is, as is everything when the machine's name could not be
    named by ``runs_on``."""
    if not isinstance(doc, dict) or "runs_on" in doc or machine == ANY_MACHINE \
            or MACHINE_NAME.fullmatch(machine) is None:
        return doc
    runner = doc.get("runner")
    if (isinstance(runner, dict) and runner.get("kind") == "command") or doc.get("workdir"):
        return {**doc, "runs_on": machine}
    return doc


def check_machine_name(name: str, field: str = "ERRANDS_MACHINE") -> str:
    """An engine's own machine name, which automations name to run there (``runs_on``):
    refused when it could not be named so (a host name with a space, ``any``)."""
    if name == ANY_MACHINE or MACHINE_NAME.fullmatch(name) is None:
        raise InvalidInput(field, f"this machine's name {_brief(name)} cannot name a machine "
                           "automations run on", RUNS_ON_EXPECTED + ", not \"any\"; set "
                           "ERRANDS_MACHINE to one", "desk", reason="kind")
    return name


def runs_on_field(value: object, field: str = "runs_on") -> str:
    """Where an automation may run: ``any`` or one machine's name."""
    if value == ANY_MACHINE:
        return ANY_MACHINE
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {_kind(value)}", RUNS_ON_EXPECTED,
                           "desk", reason="kind")
    if MACHINE_NAME.fullmatch(value) is None:
        raise InvalidInput(field, f"not a machine name: {_brief(value)}", RUNS_ON_EXPECTED,
                           "desk", reason="kind")
    return value


def parse_trigger(doc: object, ctx: ParseContext) -> Trigger:
    """A definition's ``trigger`` field alone, read as :func:`parse_definition` reads it."""
    return _trigger(doc, "trigger", ctx)


WORKTREE_EXPECTED = ("false, or true with an agent runner, context.mode fresh and a workdir "
                     "inside a git repository")
WORKTREE_EXAMPLE = ('{"worktree": true, "workdir": "/home/me/projects/site", '
                    '"context": {"mode": "fresh"}}')


def _check_worktree(runner: Task, context: Context, workdir: str | None) -> None:
    """What ``worktree: true`` needs that the document itself shows. Whether the workdir
    is in a git repository is asked of git when creating or editing (``Catalog.validate``),
    not here: a stored definition must still load after its repository moved."""
    if not isinstance(runner, AgentTask):
        raise InvalidInput("worktree", "only agent runs work in a worktree; a command runs "
                           "in its workdir as it is", WORKTREE_EXPECTED, WORKTREE_EXAMPLE)
    if context.mode != "fresh":
        raise InvalidInput("worktree", "needs context.mode fresh (an after loop continues "
                           "unless told otherwise): a continuing session shares one history "
                           "across runs, but each run's worktree holds only that run's "
                           "changes, so the history would describe files that are not there",
                           WORKTREE_EXPECTED, WORKTREE_EXAMPLE)
    if workdir is None:
        raise InvalidInput("worktree", "needs a workdir: the git repository a run's worktree "
                           "is made from", WORKTREE_EXPECTED, WORKTREE_EXAMPLE)


def _runner(doc: object, path: str) -> Task:
    example = '{"kind": "command", "command": "backup.sh"}'
    if doc is None:
        raise InvalidInput(path, "is required",
                           'an object with "kind": "agent", "command", "notify" or "script"',
                           example)
    if isinstance(doc, dict) and doc.get("kind") == "agent":
        r = _Reader(doc, path, ("kind", "prompt", "model", "mcp_servers"),
                    '{"kind": "agent", "prompt": "Summarize my inbox"}')
        prompt = r.text("prompt", required=True, max_bytes=MAX_TEXT_BYTES, max_chars=None,
                        forbid=ANY_TEXT, example="Summarize today's email")
        model = r.text("model", example="gpt-4o-mini")
        if model is not None and not model.strip():
            raise InvalidInput(r.name("model"), "must not be empty; use null for the default",
                               "a model name or null", "gpt-4o-mini")
        return AgentTask(prompt=prompt or "", model=model,
                         mcp_servers=parse_servers(r.raw("mcp_servers", []),
                                                   r.name("mcp_servers")))
    if isinstance(doc, dict) and doc.get("kind") == "command":
        r = _Reader(doc, path, ("kind", "command"), example)
        command = r.text("command", required=True, max_bytes=MAX_TEXT_BYTES, max_chars=None,
                         forbid=ANY_TEXT, example="backup.sh")
        return CommandTask(command=command or "")
    if isinstance(doc, dict) and doc.get("kind") == "notify":
        r = _Reader(doc, path, ("kind", "message"), '{"kind": "notify", "message": "Call mom"}')
        message = r.text("message", required=True, max_chars=MAX_MESSAGE_CHARS,
                         forbid=ANY_TEXT, example="Call mom")
        return NotifyTask(message=(message or "").strip())
    if isinstance(doc, dict) and doc.get("kind") == "script":
        return parse_script(doc, path)
    kind = doc.get("kind") if isinstance(doc, dict) else None
    raise InvalidInput(f"{path}.kind" if isinstance(doc, dict) else path,
                       f"unsupported runner kind {_brief(kind)}" if isinstance(doc, dict)
                       else f"expected an object, got {_kind(doc)}",
                       '"agent", "command", "notify" or "script"', example)


def parse_script(doc: dict[str, Any], path: str) -> ScriptTask:
    """The shape of a script task; whether its source compiles is the engine's check on
    save (it runs the source's top level in the sandbox: :mod:`errands.scripts`)."""
    r = _Reader(doc, path, ("kind", "source", "limits"), SCRIPT_EXAMPLE)
    source = r.text("source", required=True, max_chars=None, forbid=ANY_TEXT,
                    example="export default function ({ actions }) { actions.notify('hi') }")
    size = len((source or "").encode())
    if size > MAX_SCRIPT_BYTES:
        raise InvalidInput(r.name("source"), f"is {size} bytes long",
                           f"a script of at most {MAX_SCRIPT_BYTES // 1024} KB",
                           "a shorter script: move data it needs into a file it reads",
                           reason="too_large", values={"max_kib": MAX_SCRIPT_BYTES // 1024})
    limits_doc = r.raw("limits", {})
    lr = _Reader(limits_doc, r.name("limits"), tuple(SCRIPT_LIMITS),
                 '{"time_ms": 200, "heap_mb": 32}')
    limits = ScriptLimits(**{name: lr.integer(name, low, high, default)  # type: ignore[arg-type]
                             for name, (low, default, high) in SCRIPT_LIMITS.items()})
    return ScriptTask(source=source or "", limits=limits)


def _check_floor(path: str, gap: timedelta, ctx: ParseContext, what: str) -> None:
    if gap < ctx.min_interval:  # (a zero floor, as for stored documents, never refuses)
        raise InvalidInput(path, f"{what} could fire every {format_duration(gap)}, more often "
                           f"than the minimum interval of {format_duration(ctx.min_interval)}",
                           f"at least {format_duration(ctx.min_interval)} between fires "
                           "(setting min_interval)", format_duration(max(ctx.min_interval,
                                                                          timedelta(minutes=5))),
                           reason="too_often", values={"min": format_duration(ctx.min_interval)})


TRIGGER_KINDS = ("manual", "at", "every", "after", "cron", "monthly") + EVENT_KINDS
TRIGGERS_EXAMPLE = ('[{"id": "morning", "kind": "cron", "expression": "15 9 * * *"}, '
                    '{"id": "inbox", "kind": "folder", "path": "/home/me/Inbox"}]')


def _definition_trigger(r: "_Reader", ctx: ParseContext) -> Trigger:
    """``trigger`` (one) or ``triggers`` (a list, any of which fires it)."""
    if r.has("trigger") and r.has("triggers"):
        raise InvalidInput("triggers", "give trigger (one) or triggers (a list), not both",
                           "one of the two fields", TRIGGERS_EXAMPLE, reason="both")
    if r.has("triggers"):
        return _trigger_set(r.raw("triggers"), "triggers", ctx)
    return _trigger(r.raw("trigger"), "trigger", ctx)


def _previous_member(ctx: ParseContext, member_id: str) -> Trigger | None:
    if ctx.previous is None:
        return None
    found = [m for m in members_of(ctx.previous.trigger) if m.id == member_id]
    return found[0].trigger if found else None


def _trigger_set(doc: object, path: str, ctx: ParseContext) -> TriggerSet:
    if not isinstance(doc, list) or not doc:
        raise InvalidInput(path, f"expected a non-empty list, got {_brief(doc)}",
                           f"a list of 1 to {MAX_MEMBERS} triggers", TRIGGERS_EXAMPLE,
                           reason="kind")
    if len(doc) > MAX_MEMBERS:
        raise InvalidInput(path, f"has {len(doc)} triggers", f"at most {MAX_MEMBERS}",
                           TRIGGERS_EXAMPLE, reason="too_many", values={"max": MAX_MEMBERS})
    given: list[str | None] = []
    for i, item in enumerate(doc):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(where, f"expected an object, got {_kind(item)}",
                               "a trigger object", TRIGGERS_EXAMPLE, reason="kind")
        member_id = item.get("id")
        if member_id is not None and (not isinstance(member_id, str)
                                      or not TRIGGER_ID.fullmatch(member_id)):
            raise InvalidInput(f"{where}.id", f"not a trigger id: {_brief(member_id)}",
                               TRIGGER_ID_TEXT, "morning", reason="trigger_id")
        if member_id is not None and member_id in given:
            raise InvalidInput(f"{where}.id", f"{member_id!r} names two triggers",
                               "a different id for each trigger", f"{member_id}-2",
                               reason="duplicate")
        given.append(member_id)
    ids: list[str] = []
    for item, member_id in zip(doc, given):
        if member_id is None:
            kind = str(item.get("kind") or "trigger")
            kind = kind if TRIGGER_ID.fullmatch(kind) else "trigger"
            n, member_id = 1, kind
            while member_id in given or member_id in ids:
                n += 1
                member_id = f"{kind}-{n}"
        ids.append(member_id)
    members = []
    for i, (item, member_id) in enumerate(zip(doc, ids)):
        where = f"{path}[{i}]"
        kind = item.get("kind")
        if kind in ("manual", "after", "set"):
            why = {"manual": "every automation can be run by hand; remove this trigger",
                   "after": "an after loop fires only after its own runs and takes no "
                            "other trigger; use every instead",
                   "set": "a set cannot hold another set"}[kind]
            raise InvalidInput(f"{where}.kind", why, "one of at, every, cron, monthly, "
                               + ", ".join(EVENT_KINDS), "cron", reason="choice",
                               values={"options": "at, every, cron, monthly, "
                                       + ", ".join(EVENT_KINDS)})
        body = {k: v for k, v in item.items() if k != "id"}
        members.append(Member(member_id, _trigger(body, where, ctx,
                                                  _previous_member(ctx, member_id))))
    return TriggerSet(tuple(members))


_UNSET: Any = object()


def _trigger(doc: object, path: str, ctx: ParseContext, previous: Any = _UNSET) -> Trigger:
    example = '{"kind": "cron", "expression": "30 9 * * MON-FRI", "timezone": "Europe/Berlin"}'
    if doc is None:
        raise InvalidInput(path, "is required",
                           "an object with kind " + ", ".join(TRIGGER_KINDS), example)
    kind = doc.get("kind") if isinstance(doc, dict) else None
    if previous is _UNSET:
        previous = ctx.previous.trigger if ctx.previous else None
    if kind == "set":
        r = _Reader(doc, path, ("kind", "triggers"), '{"kind": "set", "triggers": [...]}')
        return _trigger_set(r.raw("triggers"), r.name("triggers"), ctx)
    if kind in EVENT_KINDS:
        return _event_trigger(doc, path, kind)  # type: ignore[arg-type]
    if kind == "manual":
        _Reader(doc, path, ("kind",), '{"kind": "manual"}')
        return ManualTrigger()
    if kind == "at":
        r = _Reader(doc, path, ("kind", "at", "in"), '{"kind": "at", "at": "2026-12-24T18:00:00+01:00"}')
        if r.has("at") == r.has("in"):
            raise InvalidInput(f"{path}.at", "give exactly one of at (an instant) or in (a duration)",
                               "an RFC 3339 instant with an offset", "2026-12-24T18:00:00+01:00")
        if r.has("in"):
            delay = parse_duration(r.raw("in"), f"{path}.in")
            if ctx.now > LATEST - delay:
                raise InvalidInput(f"{path}.in", f"{format_duration(delay)} from now is past the "
                                   "end of the supported calendar", RANGE_TEXT, "10m")
            at = ctx.now + delay
        else:
            at = r.instant("at")  # type: ignore[assignment]
        assert at is not None
        if at <= ctx.now and not (isinstance(previous, AtTrigger) and previous.at == at):
            raise InvalidInput(f"{path}.at", f"{format_instant(at)} is already past",
                               "an instant in the future", _later(ctx.now, timedelta(hours=1)),
                               words=(format_instant(at) or "",), reason="past")
        return AtTrigger(at=at)
    if kind in ("every", "after"):
        key = "every" if kind == "every" else "interval"
        keys = ("kind", key, "start_at") + (("timezone",) if kind == "every" else ())
        r = _Reader(doc, path, keys, f'{{"kind": "{kind}", "{key}": "15m"}}')
        if not r.has(key):
            raise InvalidInput(r.name(key), "is required", "a duration such as 15m, 2h or 1d", "15m")
        gap = parse_duration(r.raw(key), r.name(key))
        _check_floor(r.name(key), gap, ctx, f"{kind} {format_duration(gap)}")
        start = r.instant("start_at") or ctx.now
        if kind == "every":
            return EveryTrigger(every=gap, start_at=start, timezone=_day_grid_zone(r, gap))
        return AfterTrigger(interval=gap, start_at=start)
    if kind == "cron":
        r = _Reader(doc, path, ("kind", "expression", "timezone"), example)
        if not r.has("expression"):
            raise InvalidInput(r.name("expression"), "is required",
                               'five fields "minute hour day-of-month month day-of-week"',
                               "30 9 * * MON-FRI")
        expr_text = r.raw("expression")
        if not isinstance(expr_text, str):
            raise InvalidInput(r.name("expression"), f"expected a string, got {_kind(expr_text)}",
                               'five fields "minute hour day-of-month month day-of-week"',
                               "30 9 * * MON-FRI")
        try:
            expr = CronExpression.parse(expr_text)
        except InvalidInput as exc:
            raise exc.with_prefix(path) if exc.field == "expression" else exc
        tz_name = r.text("timezone", example="Europe/Berlin") or ctx.zone_name()
        zone(tz_name, r.name("timezone"))
        if ctx.min_interval > timedelta(0):
            _check_floor(r.name("expression"), expr.min_gap(), ctx, f"cron {expr_text!r}")
        return CronTrigger(expression=" ".join(expr_text.split()), timezone=tz_name)
    if kind == "monthly":
        return _monthly(doc, path, ctx)
    raise InvalidInput(f"{path}.kind" if isinstance(doc, dict) else path,
                       f"unsupported trigger kind {_brief(kind)}" if isinstance(doc, dict)
                       else f"expected an object, got {_kind(doc)}",
                       "one of " + ", ".join(TRIGGER_KINDS), example)


FOLDER_EXAMPLE = ('{"kind": "folder", "path": "/home/me/Downloads", "include": ["*.pdf"], '
                  '"debounce": "2s"}')
MAIL_EXAMPLE = '{"kind": "mail", "account": "work", "sender": "billing@example.com"}'
AUTOMATION_EXAMPLE = '{"kind": "automation", "automation": "a-1b2c", "states": ["failed"]}'
MAX_GLOBS = 20


def _globs(r: "_Reader", key: str) -> tuple[str, ...]:
    value = r.raw(key, [])
    if not isinstance(value, list) or len(value) > MAX_GLOBS:
        raise InvalidInput(r.name(key), f"expected a list of at most {MAX_GLOBS} patterns, "
                           f"got {_brief(value)}", "a list of glob patterns", '["*.pdf"]',
                           reason="kind")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip() or len(item) > 200 \
                or PATH_TEXT.search(item):
            raise InvalidInput(f"{r.name(key)}[{i}]", f"not a glob pattern: {_brief(item)}",
                               "a pattern such as *.pdf or reports/**/*.csv", "*.pdf",
                               reason="glob")
    return tuple(dict.fromkeys(value))


def _event_trigger(doc: dict[str, Any], path: str, kind: str) -> Trigger:
    if kind == "folder":
        r = _Reader(doc, path, ("kind", "path", "recursive", "include", "exclude", "changes",
                                "debounce"), FOLDER_EXAMPLE)
        folder = r.text("path", required=True, max_chars=4096, forbid=PATH_TEXT,
                        example="/home/me/Downloads")
        assert folder is not None
        if not os.path.isabs(folder):
            raise InvalidInput(r.name("path"), f"not an absolute path: {folder!r}",
                               "an absolute folder path", "/home/me/Downloads",
                               reason="not_absolute")
        changes = r.raw("changes", list(FOLDER_CHANGES))
        if not isinstance(changes, list) or not changes or any(
                c not in FOLDER_CHANGES for c in changes):
            raise InvalidInput(r.name("changes"), f"not a list of changes: {_brief(changes)}",
                               "a non-empty list of " + ", ".join(FOLDER_CHANGES),
                               '["created", "modified"]', reason="choice",
                               values={"options": ", ".join(FOLDER_CHANGES)})
        debounce = r.duration("debounce", DEFAULT_DEBOUNCE)
        assert debounce is not None
        if debounce > timedelta(hours=1):
            raise InvalidInput(r.name("debounce"), f"{format_duration(debounce)} is longer "
                               "than an hour", "a duration from 1s to 1h", "2s",
                               reason="range", values={"low": "1s", "high": "1h"})
        return FolderTrigger(path=os.path.normpath(folder), recursive=r.boolean("recursive", True),
                             include=_globs(r, "include"), exclude=_globs(r, "exclude"),
                             changes=tuple(c for c in FOLDER_CHANGES if c in changes),
                             debounce=debounce)
    if kind == "webhook":
        r = _Reader(doc, path, ("kind", "max_body"), '{"kind": "webhook"}')
        return WebhookTrigger(max_body=r.integer("max_body", 1, 10 * 1024 * 1024,  # type: ignore[arg-type]
                                                 MAX_WEBHOOK_BODY))
    if kind == "mail":
        r = _Reader(doc, path, ("kind", "account", "folder", "sender", "subject", "batch"),
                    MAIL_EXAMPLE)
        account = r.text("account", required=True, max_chars=100, example="work")
        batch = r.duration("batch", None)
        if batch is not None and not timedelta(seconds=10) <= batch <= timedelta(days=7):
            raise InvalidInput(r.name("batch"), f"{format_duration(batch)} is out of range",
                               "a duration from 10s to 7d", "1h", reason="range",
                               values={"low": "10s", "high": "7d"})
        return MailTrigger(account=(account or "").strip(),
                           folder=r.text("folder", default="INBOX", max_chars=200) or "INBOX",
                           sender=r.text("sender", max_chars=200, example="billing@example.com"),
                           subject=r.text("subject", max_chars=200, example="Invoice"),
                           batch=batch)
    r = _Reader(doc, path, ("kind", "automation", "states"), AUTOMATION_EXAMPLE)
    automation = r.text("automation", required=True, max_chars=64, example="a-1b2c")
    states = r.raw("states", ["succeeded"])
    if states == "any" or states == ["any"]:
        states = list(RUN_END_STATES)
    if not isinstance(states, list) or not states or any(
            st not in RUN_END_STATES for st in states):
        raise InvalidInput(r.name("states"), f"not a list of run ends: {_brief(states)}",
                           'a non-empty list of ' + ", ".join(RUN_END_STATES) + ', or "any"',
                           '["succeeded", "failed"]', reason="choice",
                           values={"options": ", ".join(RUN_END_STATES) + ", any"})
    return AutomationTrigger(automation=(automation or "").strip(),
                             states=tuple(st for st in RUN_END_STATES if st in states))


MONTHLY_EXAMPLE = ('{"kind": "monthly", "day": -1, "at": "18:00", "timezone": '
                   '"Europe/Berlin"}')
_CLOCK_TEXT = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
_MONTH_TEXT = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])")


def _monthly(doc: dict[str, Any], path: str, ctx: ParseContext) -> MonthlyTrigger:
    r = _Reader(doc, path, ("kind", "day", "weekday", "nth", "every", "start", "at",
                            "timezone"), MONTHLY_EXAMPLE)
    day = weekday = nth = None
    if r.has("day") == r.has("weekday"):
        raise InvalidInput(r.name("day"), "give day (a day of the month) or weekday with nth, "
                           "one of them", "day 1…31, or -1 for the last day, -2 for the one "
                           "before", MONTHLY_EXAMPLE)
    if r.has("day"):
        day = r.integer("day", -31, 31, None)
        if day == 0:
            raise InvalidInput(r.name("day"), "0 is no day", "1…31, or -1 (the last day) … -31",
                               "-1")
        if r.has("nth"):
            raise InvalidInput(r.name("nth"), "goes with weekday, not with day",
                               "nth together with weekday", '"weekday": "fri", "nth": -1')
    else:
        weekday = r.choice("weekday", (*WEEKDAY_NAMES, WORKDAY), "mon")
        if not r.has("nth"):
            raise InvalidInput(r.name("nth"), "is required with weekday",
                               "1…5 (the first … fifth) or -1…-5 (the last … fifth to last)",
                               "-1")
        nth = r.integer("nth", -5, 5, None)
        if nth == 0:
            raise InvalidInput(r.name("nth"), "0 is no position",
                               "1…5 (the first … fifth) or -1…-5 (the last … fifth to last)",
                               "-1")
    every = r.integer("every", 1, 1200, 1)
    clock = r.raw("at")
    found = _CLOCK_TEXT.fullmatch(clock) if isinstance(clock, str) else None
    if found is None:
        raise InvalidInput(r.name("at"), "is required" if clock is None
                           else f"not a time of day: {shown(clock)}",
                           "HH:MM on the 24-hour clock", "18:00")
    tz_name = r.text("timezone", example="Europe/Berlin") or ctx.zone_name()
    tz = zone(tz_name, r.name("timezone"))
    start_text = r.raw("start")
    if start_text is None:
        local = ctx.now.astimezone(tz)
        start = local.year * 12 + local.month - 1
    else:
        month = _MONTH_TEXT.fullmatch(start_text) if isinstance(start_text, str) else None
        if month is None:
            raise InvalidInput(r.name("start"), f"not a month: {shown(start_text)}",
                               "YYYY-MM, the first month counted", "2027-03")
        start = int(month.group(1)) * 12 + int(month.group(2)) - 1
    trigger = MonthlyTrigger(at_hour=int(found.group(1)), at_minute=int(found.group(2)),
                             timezone=tz_name, start=start, every=every, day=day,
                             weekday=weekday, nth=nth)
    if not trigger.ever_fires():
        raise InvalidInput(path, "can never fire: none of its months has that day",
                           "a day its months have", MONTHLY_EXAMPLE, reason="never")
    return trigger


def _day_grid_zone(r: "_Reader", gap: timedelta) -> str | None:
    """``trigger.timezone`` of an ``every`` grid: local calendar days need whole days."""
    tz_name = r.text("timezone", example="Europe/Berlin")
    if tz_name is None:
        return None
    zone(tz_name, r.name("timezone"))
    if gap % timedelta(days=1):
        raise InvalidInput(r.name("timezone"), f"applies only to whole days, not every "
                           f"{format_duration(gap)}", "an every of whole days such as 14d, or "
                           "no timezone", '{"kind": "every", "every": "14d", "timezone": '
                           '"Europe/Berlin"}')
    return tz_name


def _context(doc: object, trigger: Trigger) -> Context:
    default_mode = "continue" if trigger.kind == "after" else "fresh"
    r = _Reader(doc or {}, "context", ("mode", "max_history_tokens"),
                '{"mode": "fresh", "max_history_tokens": 50000}')
    return Context(mode=r.choice("mode", ("fresh", "continue"), default_mode),  # type: ignore[arg-type]
                   max_history_tokens=r.integer("max_history_tokens", 1, 10_000_000, 50_000))  # type: ignore[arg-type]


def _stop(doc: object, trigger: Trigger, ctx: ParseContext) -> Stop:
    r = _Reader(doc or {}, "stop", ("max_runs", "until", "when_condition_met"),
                '{"max_runs": 5, "until": null, "when_condition_met": false}')
    stop = Stop(max_runs=r.integer("max_runs", 1, 1_000_000, None, nullable=True),
                until=r.instant("until"),
                when_condition_met=r.boolean("when_condition_met", False))
    if not stop.empty and trigger.kind not in RECURRING:
        what = "a one-shot" if trigger.kind == "at" else "a manual trigger"
        raise InvalidInput("stop", f"{what} takes no stop rule; remove it or use a recurring "
                           "trigger", "no stop rule, or a trigger of kind every, after or cron",
                           '{"kind": "every", "every": "1h"}')
    previous = ctx.previous.stop.until if ctx.previous else None
    if stop.until is not None and stop.until <= ctx.now and stop.until != previous:
        raise InvalidInput("stop.until", f"{format_instant(stop.until)} is already past",
                           "an instant in the future", _later(ctx.now, timedelta(days=7)),
                           words=(format_instant(stop.until) or "",), reason="past")
    return stop


def _policy(doc: object) -> Policy:
    r = _Reader(doc or {}, "policy", ("retry", "timeout", "max_steps", "notify",
                                      "failure_notify_after", "pause_after_failures", "jitter",
                                      "history_limit", "email_result"),
                '{"timeout": "30m", "notify": "quiet"}')
    rr = _Reader(r.raw("retry", {}), "policy.retry", ("max_attempts", "backoff"),
                 '{"max_attempts": 3, "backoff": {"initial": "30s", "factor": 2, "max": "10m"}}')
    br = _Reader(rr.raw("backoff", {}), "policy.retry.backoff", ("initial", "factor", "max"),
                 '{"initial": "30s", "factor": 2, "max": "10m"}')
    backoff = Backoff(initial=br.duration("initial", timedelta(seconds=30)),  # type: ignore[arg-type]
                      factor=br.number("factor", 1, 10, 2),
                      max=br.duration("max", timedelta(minutes=10)))  # type: ignore[arg-type]
    if backoff.max < backoff.initial:
        raise InvalidInput("policy.retry.backoff.max", "is shorter than initial",
                           "a duration at least as long as initial", "10m")
    jitter = r.duration("jitter", None)
    if jitter is not None and jitter > timedelta(hours=1):
        raise InvalidInput("policy.jitter", f"{format_duration(jitter)} is longer than 1h",
                           "null or a duration up to 1h", "5m")
    pause_after = r.integer("pause_after_failures", 2, 100, None, nullable=True)
    return Policy(
        retry=Retry(max_attempts=rr.integer("max_attempts", 1, 10, 3), backoff=backoff),  # type: ignore[arg-type]
        timeout=r.duration("timeout", timedelta(minutes=30)),  # type: ignore[arg-type]
        max_steps=r.integer("max_steps", 1, 10_000, 50),  # type: ignore[arg-type]
        notify=r.choice("notify", ("quiet", "every_run", "on_change"), "quiet"),  # type: ignore[arg-type]
        failure_notify_after=r.integer("failure_notify_after", 1, 1000, 3),  # type: ignore[arg-type]
        pause_after_failures=pause_after, jitter=jitter,
        history_limit=r.integer("history_limit", 1, MAX_HISTORY_LIMIT, None, nullable=True),
        email_result=r.boolean("email_result", False))


RULE_EXAMPLE = '{"tool": "run_command", "pattern": "git *", "action": "allow"}'


def parse_rules(doc: object, field: str, tools: tuple[str, ...] = TOOL_NAMES) -> tuple[Rule, ...]:
    """A list of permission rules ``{tool, pattern, action}``: an automation's
    ``permissions.rules`` or the user's global rules, each refusal naming ``field[i].key``.

    ``tools`` is what a rule's ``tool`` may name (an automation's rules: tool names). A
    missing or empty pattern means ``*``, every call."""
    if doc is None:
        return ()
    if not isinstance(doc, list):
        raise InvalidInput(field, f"expected a list, got {_kind(doc)}",
                           "a list of {tool, pattern, action}", f"[{RULE_EXAMPLE}]")
    rules = []
    for i, item in enumerate(doc):
        path = f"{field}[{i}]"
        rule = _Reader(item, path, ("tool", "pattern", "action"), RULE_EXAMPLE)
        tool = rule.raw("tool")
        if tool not in tools:
            raise InvalidInput(f"{path}.tool", f"unknown tool {_brief(tool)}",
                               "one of " + ", ".join(tools), "run_command")
        pattern = rule.text("pattern", default="*", max_chars=MAX_PATTERN_CHARS, example="git *")
        action = rule.raw("action")
        if action not in ("allow", "ask", "deny"):
            raise InvalidInput(f"{path}.action", f"unsupported action {_brief(action)}",
                               "one of allow, ask, deny", "allow")
        rules.append(Rule(tool=tool, pattern=pattern or "*", action=action))
    return tuple(rules)


def _permissions(doc: object, runner: Task) -> Permissions:
    r = _Reader(doc or {}, "permissions", ("mode", "tools", "rules", "untrusted_ok",
                                           "email_allowed_recipients"),
                '{"mode": "ask", "tools": ["read_file"], "rules": [], "untrusted_ok": []}')
    perms = Permissions(mode=r.choice("mode", ("ask", "allow_listed", "allow_all"), "ask"),  # type: ignore[arg-type]
                        tools=r.names("tools", TOOL_NAMES, grants=True),
                        rules=parse_rules(r.raw("rules", []), "permissions.rules",
                                          (*TOOL_NAMES, "mcp")),
                        untrusted_ok=r.names("untrusted_ok", TOOL_NAMES, grants=True),
                        email_allowed_recipients=_recipients(r))
    if isinstance(runner, ScriptTask):  # a script's rules say which folders it may touch
        if perms != Permissions(rules=perms.rules):
            raise InvalidInput("permissions", "a script takes only rules (which folders it "
                               "may read and change)", "permissions with rules alone",
                               '{"rules": [{"tool": "write_file", "pattern": '
                               '"/home/me/Documents/Invoices/*", "action": "allow"}]}')
        return perms
    if not isinstance(runner, AgentTask) and perms != Permissions():
        raise InvalidInput("permissions", "only agent runs take permissions",
                           f"no permissions for a {runner.kind} runner", '{"mode": "ask"}')
    return perms


EMAIL = re.compile(r"[^@\s<>\",;]{1,64}@[A-Za-z0-9.-]{1,253}")


def _recipients(r: "_Reader") -> tuple[str, ...]:
    value = r.raw("email_allowed_recipients", [])
    if not isinstance(value, list) or len(value) > 100:
        raise InvalidInput(r.name("email_allowed_recipients"), f"expected a list of at most "
                           f"100 addresses, got {_brief(value)}", "a list of email addresses",
                           '["team@example.com"]', reason="kind")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not EMAIL.fullmatch(item.strip()):
            raise InvalidInput(f"{r.name('email_allowed_recipients')}[{i}]",
                               f"not an email address: {_brief(item)}", "an email address",
                               "team@example.com", reason="kind")
    return tuple(dict.fromkeys(v.strip().lower() for v in value))


def parse_permissions(doc: object, runner: Task) -> Permissions:
    """A ``permissions`` document on its own (for comparing what a run asks to grant)."""
    return _permissions(doc, runner)


def _origin(doc: object) -> Origin:
    r = _Reader(doc or {}, "origin", ("kind", "template", "session_id", "depth", "client"),
                '{"kind": "user", "template": null, "session_id": null, "depth": 0}')
    return Origin(kind=r.choice("kind", ("user", "template", "agent", "cli", "import", "mcp"),  # type: ignore[arg-type]
                                "user"),
                  template=r.text("template", example="daily-brief"),
                  session_id=r.text("session_id", example="s-123"),
                  depth=r.integer("depth", 0, 100, 0),  # type: ignore[arg-type]
                  client=r.text("client", max_chars=100, example="claude-code"))
