"""Plain records handed out by the store: no ORM objects leak past it.

``to_dict`` gives the JSON shapes the CLI prints and the UI will read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

import re

from .definition import Definition, ParseContext, Trigger, parse_definition, parse_trigger
from .errors import InvalidInput
from .timeutil import UTC, format_instant, shown

ACTIVE_STATES = ("scheduled", "running", "awaiting_input")
DecisionKind = Literal["approve_once", "approve_always", "deny", "answer"]
DECISION_KINDS: tuple[DecisionKind, ...] = ("approve_once", "approve_always", "deny", "answer")
COUNTED_STATES = ("succeeded", "failed")
RESULT_LIMIT = 2000

_LOAD_CONTEXT = ParseContext(now=datetime.min.replace(tzinfo=UTC), min_interval=timedelta(0),
                             default_timezone="UTC")


_LOADED_PARTS: dict[Any, Any] = {}   # (shared, immutable parsed sub-documents)


def load_definition(doc: dict[str, Any]) -> Definition:
    """A stored definition, read back without the checks that depend on the time of creation."""
    return parse_definition(doc, _LOAD_CONTEXT, _LOADED_PARTS)


def load_trigger(doc: object) -> Trigger:
    """A stored definition's trigger alone, read as :func:`load_definition` reads it."""
    return parse_trigger(doc, _LOAD_CONTEXT)


@dataclass(frozen=True)
class Automation:
    """An automation as stored. ``problem`` is set (and ``definition`` is None, ``status``
    ``broken``) when the stored definition no longer loads: text that is not JSON, a wrong
    type, a time zone a tzdata update removed. Such an automation is listed and can be
    shown, exported, repaired (a whole new definition) or deleted, but never fires."""

    id: str
    title: str
    definition: Definition | None
    revision: int
    status: str
    next_fire_at: datetime | None
    failure_streak: int
    run_count: int
    created_at: datetime
    updated_at: datetime
    request_id: str | None = None
    paused_reason: str | None = None
    paused_at: datetime | None = None
    last_finished_at: datetime | None = None
    last_result: str | None = None
    last_index: int = 0  # the index of its newest run (the ledger's own counter)
    problem: str | None = None
    counted_runs: int = 0  # finished runs toward stop.max_runs (not those run by hand)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id}
        if self.definition is None:
            doc.update({"title": self.title, "problem": self.problem})
        else:
            doc.update(self.definition.to_dict())
        doc.update({
            "revision": self.revision, "status": self.status,
            "next_fire_at": format_instant(self.next_fire_at),
            "failure_streak": self.failure_streak,
            "run_count": self.run_count, "counted_runs": self.counted_runs,
            "created_at": format_instant(self.created_at),
            "updated_at": format_instant(self.updated_at),
        })
        if self.paused_reason:
            doc["paused_reason"] = self.paused_reason
            doc["paused_at"] = format_instant(self.paused_at)
        return doc


@dataclass(frozen=True)
class Run:
    id: str
    automation_id: str
    index: int
    revision: int
    trigger: str
    scheduled_for: datetime | None
    state: str
    attempt: int = 1
    started_at: datetime | None = None
    finished_at: datetime | None = None
    skip_reason: str | None = None
    missed_count: int | None = None
    missed_first: datetime | None = None
    missed_last: datetime | None = None
    stop_reason: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    result: str | None = None
    session_id: str | None = None
    dry_run: bool = False
    request_id: str | None = None
    retry_at: datetime | None = None
    output_tail: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    slot: str = ""
    created_at: datetime | None = None
    details: dict[str, Any] | None = None
    machine: str | None = None  # where its engine started it (None: it never started)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    def run_time(self, now: datetime | None = None) -> timedelta | None:
        """The time it spent running (see :func:`run_time`)."""
        return run_time(self.attempts, self.state, self.started_at, self.finished_at, now)

    def fired_by(self) -> dict[str, Any]:
        """What fired it: the trigger's ``id`` and ``kind`` (None for runs recorded before
        triggers had ids), and ``cause``: schedule, catch_up, manual or event."""
        details = self.details if isinstance(self.details, dict) else {}
        fired = details.get("trigger") if isinstance(details.get("trigger"), dict) else {}
        event = details.get("event") if isinstance(details.get("event"), dict) else {}
        manual = self.trigger == "manual"
        doc = {"id": fired.get("id"), "kind": "manual" if manual else fired.get("kind"),
               "cause": self.trigger}
        if event:
            doc["source"] = event.get("source")
            if event.get("depth"):
                doc.update(depth=event.get("depth"), chain=event.get("chain"))
        return doc

    @property
    def payload(self) -> Any:
        """The event's payload that fired it (untrusted input), or None."""
        details = self.details if isinstance(self.details, dict) else {}
        event = details.get("event")
        return event.get("payload") if isinstance(event, dict) else None

    def to_dict(self, *, with_output: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": self.id, "automation_id": self.automation_id, "index": self.index,
            "revision": self.revision, "trigger": self.fired_by(),
            "payload": self.payload, "scheduled_for": format_instant(self.scheduled_for), "state": self.state,
            "attempt": self.attempt, "started_at": format_instant(self.started_at),
            "finished_at": format_instant(self.finished_at), "skip_reason": self.skip_reason,
            "missed_count": self.missed_count, "missed_first": format_instant(self.missed_first),
            "missed_last": format_instant(self.missed_last), "stop_reason": self.stop_reason,
            "error": ({"code": self.error_code, "message": self.error_message}
                      if self.error_code else None),
            "result": self.result, "session_id": self.session_id, "dry_run": self.dry_run,
            "request_id": self.request_id, "retry_at": format_instant(self.retry_at),
            "attempts": self.attempts, "run_time_ms": _milliseconds(self.run_time()),
            "usage": ({"prompt_tokens": self.prompt_tokens,
                       "completion_tokens": self.completion_tokens}
                      if self.prompt_tokens is not None else None),
            "details": self.details, "machine": self.machine,
        }
        if isinstance(self.details, dict) and isinstance(self.details.get("script"), dict):
            doc["script"] = self.details["script"]   # a script run's record (seed 003)
        if with_output:
            doc["output_tail"] = self.output_tail
        return doc


@dataclass(frozen=True)
class AttentionItem:
    id: int
    automation_id: str | None
    run_id: str | None
    kind: str
    title: str
    body: str | None
    read: bool
    created_at: datetime
    # for a request to decide (kind awaiting_input) that is no longer open: how it ended,
    # {"kind": approve_once | approve_always | deny | answer | expired | ended, "text",
    #  "by", "at"}
    outcome: dict[str, Any] | None = None
    # for a request to decide: what it asks (the blocker: kind, tool, arguments, question,
    # choices) with its automation's "title" and "workdir", so a client words it itself
    request: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "automation_id": self.automation_id, "run_id": self.run_id,
                "kind": self.kind, "title": self.title, "body": self.body, "read": self.read,
                "created_at": format_instant(self.created_at), "outcome": self.outcome,
                "request": self.request}


@dataclass(frozen=True)
class AuditEntry:
    id: int
    automation_id: str
    action: str
    revision: int | None
    actor: str
    detail: dict[str, Any] | None
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "automation_id": self.automation_id, "action": self.action,
                "revision": self.revision, "actor": self.actor, "detail": self.detail,
                "at": format_instant(self.at)}


def bounded(text: str | None, limit: int = RESULT_LIMIT) -> str | None:
    """Keep a summary within ``limit`` characters, saying that it was cut."""
    if text is None or len(text) <= limit:
        return text
    marker = " … [truncated]"
    return text[: limit - len(marker)] + marker


@dataclass(frozen=True)
class Blocker:
    """Why a run parks: a tool call that needs approval, or a question for the user."""

    kind: Literal["permission", "question"]
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    question: str | None = None
    choices: list[str] | None = None

    def summary(self) -> str:
        if self.kind == "permission":
            return f"approve {self.tool or 'a tool'}" + (
                f": {_brief(self.arguments)}" if self.arguments else "")
        return self.question or "answer a question"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "tool": self.tool, "arguments": self.arguments,
                "question": self.question, "choices": self.choices}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "Blocker":
        kind = doc.get("kind", "question")
        return cls(kind="permission" if kind == "approval" else kind, tool=doc.get("tool"),
                   arguments=doc.get("arguments"), question=doc.get("question"),
                   choices=doc.get("choices"))


@dataclass(frozen=True)
class Decision:
    """What a person decided about a blocker. ``text`` is the answer to a question (or a
    note with a denial); ``rule`` the pattern an ``approve_always`` saves."""

    kind: DecisionKind
    text: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "rule": self.rule}


@dataclass(frozen=True)
class Parked:
    """A parked run's blocker as stored: when it was asked, until when it waits, and the
    decision once someone made it."""

    run_id: str
    automation_id: str
    run_index: int
    blocker: Blocker
    requested_at: datetime
    expires_at: datetime
    decision: Decision | None = None
    decided_at: datetime | None = None
    decided_by: str | None = None
    request_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "automation_id": self.automation_id,
                "run_index": self.run_index, "blocker": self.blocker.to_dict(),
                "requested_at": format_instant(self.requested_at),
                "expires_at": format_instant(self.expires_at),
                "decision": self.decision.to_dict() if self.decision else None,
                "decided_at": format_instant(self.decided_at), "decided_by": self.decided_by}


@dataclass(frozen=True)
class Message:
    seq: int
    role: str
    content: dict[str, Any]
    run_id: str | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "role": self.role, "content": self.content,
                "run_id": self.run_id, "created_at": format_instant(self.created_at)}


@dataclass(frozen=True)
class SessionInfo:
    """A transcript's head: whose it is (``run``: one run's; ``automation``: a continuing
    automation's) and when it last changed."""

    id: str
    automation_id: str | None
    kind: str
    title: str
    created_at: datetime
    updated_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "automation_id": self.automation_id, "kind": self.kind,
                "title": self.title, "created_at": format_instant(self.created_at),
                "updated_at": format_instant(self.updated_at)}


def _brief(arguments: dict[str, Any], limit: int = 120) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CURSOR = re.compile(r"r[0-9]{1,18}")  # an index below 10**18 fits a signed 64-bit INTEGER


def cursor_index(cursor: str | None, field: str = "cursor") -> int | None:
    """The run index a history cursor (``r51``) continues below; ASCII digits that fit SQLite."""
    if cursor is None:
        return None
    if not isinstance(cursor, str) or not _CURSOR.fullmatch(cursor):
        raise InvalidInput(field, f"not a cursor from a previous page: {shown(cursor)}",
                           "the next_cursor value of a previous page", "r51")
    return int(cursor[1:])


def run_time(attempts: Any, state: str | None, started_at: datetime | None,
             finished_at: datetime | None, now: datetime | None = None) -> timedelta | None:
    """The time a run spent running: each attempt's stretches (``Run.attempts``), so time
    parked or waiting to retry does not count; a running stretch counts up to ``now`` (the
    clock's when not given). None for a run that never ran."""
    total, seen = timedelta(0), False
    segments = [a for a in attempts if isinstance(a, dict)] \
        if isinstance(attempts, list) else []   # (a damaged row: what can be read)
    for segment in segments:
        start = _segment_instant(segment.get("started_at"))
        end = _segment_instant(segment.get("finished_at"))
        if start is None:
            continue
        if end is None:
            if state != "running" or segment is not segments[-1]:
                continue   # (a stretch a crash left open: its end is not known)
            end = now or datetime.now(UTC)
        total += max(end - start, timedelta(0))
        seen = True
    if not seen and started_at is not None and finished_at is not None:
        return max(finished_at - started_at, timedelta(0))   # (rows from before stretches)
    return total if seen else None


def _segment_instant(text: object) -> datetime | None:
    """An instant of an attempt's stretch as the ledger writes it (``format_instant``)."""
    if not isinstance(text, str):
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def _milliseconds(value: timedelta | None) -> int | None:
    return None if value is None else value // timedelta(milliseconds=1)


@dataclass(frozen=True)
class Machines:
    """The machines an automation on a shared catalogue may be bound to: this one, and the
    others known now (running an engine, or named by an automation)."""

    here: str
    others: tuple[str, ...]
