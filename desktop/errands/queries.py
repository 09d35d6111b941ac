"""Read-only views for clients (the window, the CLI, the channel): plain records, never
ORM rows, each cheap enough to serve 10,000 automations without a stall.

Every function here only reads; the engine facade runs them on its reader threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import itertools

from sqlalchemy import and_, case, func, or_, select

from .db.schema import AutomationRow, RunRow
from .errors import InvalidInput, NotFound
from .records import AuditEntry, Automation
from .schedule import describe, iter_fires
from .store import Store, _automation
from .timeutil import format_instant

SortKey = Literal["next_fire", "title", "last_run"]
SORT_KEYS: tuple[SortKey, ...] = ("next_fire", "title", "last_run")
STATUSES = ("active", "paused", "completed", "broken")
PAGE_LIMIT = 10_000


@dataclass(frozen=True)
class Summary:
    """One line of the Automations sidebar."""

    id: str
    title: str
    status: str
    schedule: str                  # the schedule in words
    runner: str | None             # "command" or "agent" (None: broken)
    next_fire_at: datetime | None
    last_state: str | None         # the newest run's state (skipped rows included)
    last_at: datetime | None       # when it finished (or was recorded)
    failure_streak: int
    parked: int                    # runs waiting for a decision
    running: bool
    revision: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "status": self.status,
                "schedule": self.schedule, "runner": self.runner,
                "next_fire_at": format_instant(self.next_fire_at),
                "last_state": self.last_state, "last_at": format_instant(self.last_at),
                "failure_streak": self.failure_streak, "parked": self.parked,
                "running": self.running, "revision": self.revision}


def _schedule_words(automation: Automation) -> str:
    if automation.definition is None:
        return "cannot run: " + (automation.problem or "broken")
    return describe(automation.definition.trigger)


def check_sort(sort: str) -> SortKey:
    if sort not in SORT_KEYS:
        raise InvalidInput("sort", f"unknown sort {sort!r}", "one of " + ", ".join(SORT_KEYS),
                           "next_fire")
    return sort  # type: ignore[return-value]


def summaries(store: Store, *, text: str | None = None, status: str | None = None,
              sort: str = "next_fire", offset: int = 0,
              limit: int = PAGE_LIMIT) -> tuple[list[Summary], int]:
    """A page of summaries and how many match in all."""
    key = check_sort(sort)
    if status is not None and status not in STATUSES:
        raise InvalidInput("status", f"unknown status {status!r}", "one of " + ", ".join(STATUSES),
                           "active")
    if not 0 <= offset <= 10**9 or not 1 <= limit <= PAGE_LIMIT:
        raise InvalidInput("limit", "offset or limit out of range",
                           f"offset ≥ 0 and a limit from 1 to {PAGE_LIMIT}", "100")
    a = AutomationRow.__table__
    r = RunRow.__table__
    last = r.alias("last")
    where = []
    if text:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(or_(a.c.title.like(pattern, escape="\\"), a.c.id.startswith(text,
                                                                                   autoescape=True)))
    if status in ("active", "paused", "completed"):
        where.append(a.c.status == status)
    order: list[Any]
    if key == "title":
        order = [func.lower(a.c.title), a.c.id]
    elif key == "last_run":
        order = [case((a.c.last_finished_at.is_(None), 1), else_=0),
                 a.c.last_finished_at.desc(), a.c.id]
    else:
        order = [case((a.c.next_fire_at.is_(None), 1), else_=0), a.c.next_fire_at,
                 func.lower(a.c.title), a.c.id]
    q = (select(*a.columns, last.c.state.label("last_state"),
                func.coalesce(last.c.finished_at, last.c.created_at).label("last_at"))
         .select_from(a.outerjoin(last, and_(last.c.automation_id == a.c.id,
                                             last.c.index == a.c.last_index)))
         .where(*where).order_by(*order))
    with store.db.read() as s:
        total = s.scalar(select(func.count()).select_from(a).where(*where)) or 0
        rows = list(s.execute(q.offset(offset).limit(limit)))
        parked = {automation_id: n for automation_id, n in s.execute(
            select(r.c.automation_id, func.count()).where(r.c.state == "awaiting_input")
            .group_by(r.c.automation_id))}
        running = set(s.scalars(select(r.c.automation_id).where(r.c.state == "running")))
    out = []
    for row in rows:
        automation = _automation(row)  # type: ignore[arg-type]
        if status == "broken" and automation.problem is None:
            continue
        out.append(Summary(
            id=automation.id, title=automation.title, status=automation.status,
            schedule=_schedule_words(automation),
            runner=automation.definition.runner.kind if automation.definition else None,
            next_fire_at=automation.next_fire_at, last_state=row.last_state,
            last_at=row.last_at if isinstance(row.last_at, datetime) else None,
            failure_streak=automation.failure_streak, parked=parked.get(automation.id, 0),
            running=automation.id in running, revision=automation.revision))
    return out, total


def upcoming(store: Store, after: datetime, until: datetime,
             limit: int = 5000) -> list[tuple[datetime, str, str]]:
    """Every automatic fire in ``(after, until]`` across active automations: (instant, id,
    title), in time order, at most ``limit``."""
    fires: list[tuple[datetime, str, str]] = []
    for automation in store.list():
        d = automation.definition
        if d is None or automation.status != "active" or automation.next_fire_at is None:
            continue
        if automation.next_fire_at > until:
            continue
        first = automation.next_fire_at
        for instant in itertools.chain([first], iter_fires(d.trigger, first)):
            if instant > until or len(fires) >= 4 * limit:
                break
            if instant > after:
                fires.append((instant, automation.id, automation.title))
    fires.sort()
    return fires[:limit]


@dataclass(frozen=True)
class Revision:
    revision: int
    created_at: datetime
    changed: list[str]          # dotted fields that differ from the revision before
    definition: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"revision": self.revision, "created_at": format_instant(self.created_at),
                "changed": self.changed, "definition": self.definition}


def history(store: Store, automation_id: str) -> tuple[list[Revision], list[AuditEntry]]:
    """An automation's revisions, each with what changed, and its audit trail (which
    outlives a deletion)."""
    revisions = []
    before: dict[str, Any] | None = None
    for number, doc, created in store.revision_docs(automation_id):
        revisions.append(Revision(number, created,
                                  [] if before is None else changed_fields(before, doc), doc))
        before = doc
    audit = store.audit(automation_id)
    if not revisions and not audit:
        raise NotFound(f"no automation with id {automation_id!r}, and no trail of one")
    return revisions, audit


def changed_fields(before: dict[str, Any], after: dict[str, Any], prefix: str = "") -> list[str]:
    """The dotted names of the fields that differ between two definition documents."""
    names = []
    for key in sorted(set(before) | set(after)):
        name = f"{prefix}{key}"
        old, new = before.get(key), after.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            names.extend(changed_fields(old, new, name + "."))
        elif old != new:
            names.append(name)
    return names

