"""Read-only views for clients (the window, the CLI, the channel): plain records, never
ORM rows, each cheap enough to serve 10,000 automations without a stall.

Every function here only reads; the engine facade runs them on its reader threads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, NamedTuple

from .errors import InvalidInput, NotFound
from .definition import Trigger
from .records import AuditEntry, load_trigger, run_time
from .schedule import describe
from .db.schema import MISSHAPEN_INSTANTS, without_nul
from .store import DEFINITIONS, Store, cached_definition
from .timeutil import format_instant

SortKey = Literal["next_fire", "title", "last_run"]
SORT_KEYS: tuple[SortKey, ...] = ("next_fire", "title", "last_run")
STATUSES = ("active", "paused", "completed", "archived", "broken")
PAGE_LIMIT = 10_000


class Summary(NamedTuple):
    """One line of the Automations sidebar (a tuple: a listing builds ten thousand)."""

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
    trigger: Trigger | None = None  # for the window's words in the chosen language
    running_since: datetime | None = None   # when its running run started (it ticks on)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "status": self.status,
                "schedule": self.schedule, "runner": self.runner,
                "next_fire_at": format_instant(self.next_fire_at),
                "last_state": self.last_state, "last_at": format_instant(self.last_at),
                "failure_streak": self.failure_streak, "parked": self.parked,
                "running": self.running, "revision": self.revision,
                "running_since": format_instant(self.running_since)}


def check_sort(sort: str) -> SortKey:
    if sort not in SORT_KEYS:
        raise InvalidInput("sort", f"unknown sort {sort!r}", "one of " + ", ".join(SORT_KEYS),
                           "next_fire")
    return sort  # type: ignore[return-value]


_ORDER = {
    "title": "lower(a.title), a.id",
    "last_run": "a.last_finished_at IS NULL, a.last_finished_at DESC, a.id",
    "next_fire": "a.next_fire_at IS NULL, a.next_fire_at, lower(a.title), a.id",
}
_COLUMNS = ("a.id, a.title, a.status, a.revision, a.next_fire_at, a.failure_streak, "
            "r.state, coalesce(r.finished_at, r.created_at)")
# The rows whose unshown instants are not to be trusted (a partial index holds just those)
_MISSHAPEN = ("SELECT id, paused_at, last_finished_at, created_at, updated_at "
              f"FROM automations WHERE {MISSHAPEN_INSTANTS}")
_JOIN = ('automations a LEFT JOIN runs r ON r.automation_id = a.id '
         'AND r."index" = a.last_index')
# What a summary needs of a definition, per (automation, revision): runner kind, schedule
# in words, or why it cannot be loaded. Definitions never change within a revision.
_Shapes = dict[tuple[str, int], tuple[str | None, str, str | None, Trigger | None]]
_SHAPES: _Shapes = {}
_SHAPES_KEPT = 50_000


def summaries(store: Store, *, text: str | None = None, status: str | None = None,
              sort: str = "next_fire", offset: int = 0,
              limit: int = PAGE_LIMIT, ids: Iterable[str] | None = None,
              preview: bool = False) -> tuple[list[Summary], int]:
    """A page of summaries and how many match in all; ``ids`` narrows it to those (what a
    change notice named: the window refreshes only those rows). ``preview`` reads a
    definition the engine has not loaded yet only as far as its line needs (runner kind and
    trigger, a fifth of a full parse): a definition broken in another field is then not
    yet shown as broken.

    Fast enough for the sidebar: the page's ids are chosen first on the automations table
    alone, then only those rows are joined to their last run; instants and definitions are
    decoded by hand (the engine's parsed definitions are reused), not per ORM row."""
    key = check_sort(sort)
    if status is not None and status not in STATUSES:
        raise InvalidInput("status", f"unknown status {status!r}", "one of " + ", ".join(STATUSES),
                           "active")
    if not 0 <= offset <= 10**9 or not 1 <= limit <= PAGE_LIMIT:
        raise InvalidInput("limit", "offset or limit out of range",
                           f"offset ≥ 0 and a limit from 1 to {PAGE_LIMIT}", "100")
    where, params = ["1 = 1"], []
    if text:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        # (case-insensitive on both: SQLite's LIKE is for ASCII letters, PostgreSQL's ILIKE
        # for every letter)
        like = "LIKE" if store.dialect == "sqlite" else "ILIKE"
        where.append(f"(a.title {like} ? ESCAPE '\\' OR substr(a.id, 1, ?) = ?)")
        params += [pattern, len(text), text]
    if status in ("active", "paused", "completed", "archived"):
        where.append("a.status = ?")
        params.append(status)
    if ids is not None:
        wanted = list(dict.fromkeys(ids))[:PAGE_LIMIT]
        if not all(isinstance(i, str) for i in wanted):
            raise InvalidInput("ids", "not a list of automation ids", "a list of ids",
                               '["a1b2c3"]')
        where.append(f"a.id IN ({','.join('?' * len(wanted))})" if wanted else "1 = 0")
        params += wanted
    condition = " AND ".join(where)
    broken_only = status == "broken"
    page_params = tuple(params) if broken_only else (*params, limit, offset)
    total, ids, rows, shapes, parked, running, misshapen = store.db.leniently(
        lambda lenient: _read_page(store, condition, tuple(params), page_params, key,
                                   broken_only, preview, lenient))
    by_id = {row[0]: row for row in rows}
    # in the page's order; a row deleted between the two reads is left out
    out = _summaries([row for row in map(by_id.get, ids) if row is not None], shapes, parked,
                     running, misshapen)
    if broken_only:
        out = [summary for summary in out if summary.status == "broken"]
        total = len(out)
        out = out[offset:offset + limit]
    return out, total


def _read_page(store: Store, condition: str, params: tuple[Any, ...],
               page_params: tuple[Any, ...], key: str, broken_only: bool, preview: bool,
               lenient: bool) -> tuple[int, list[str], list[Any], _Shapes, dict[str, int],
                                   set[str], dict[str, tuple[Any, ...]]]:
    """What a page of summaries is made of, read in one transaction."""
    with store.db.read(lenient=lenient) as s:
        raw = _raw_reader(s)
        sqlite = store.dialect == "sqlite"

        total = raw(f"SELECT count(*) FROM automations a WHERE {condition}", params)[0][0]
        paging = "" if broken_only else " LIMIT ? OFFSET ?"
        ids = [row[0] for row in raw(f"SELECT a.id FROM automations a WHERE {condition} "
                                     f"ORDER BY {_ORDER[key]}{paging}", page_params)]
        if not ids:  # a page past the end (PostgreSQL refuses an empty ``IN ()``)
            rows = []
        elif len(ids) * 2 >= total:  # most of them: one pass, no list of ids
            rows = raw(f"SELECT {_COLUMNS} FROM {_JOIN} WHERE {condition}", params)
        else:
            marks = ",".join("?" * len(ids))
            rows = raw(f"SELECT {_COLUMNS} FROM {_JOIN} WHERE a.id IN ({marks})", tuple(ids))
        shapes = _shapes(raw, [(row[0], row[3]) for row in rows], preview and sqlite)
        parked = dict(raw("SELECT automation_id, count(*) FROM runs "
                          "WHERE state = 'awaiting_input' GROUP BY automation_id"))
        running = _running_since(raw("SELECT automation_id, started_at, attempt, attempts "
                                     "FROM runs WHERE state = 'running'"))
        # (typed instants on PostgreSQL: none can be misshapen)
        misshapen = {row[0]: row[1:] for row in raw(_MISSHAPEN)} if sqlite else {}
    return total, ids, rows, shapes, parked, running, misshapen


def _raw_reader(s: Any) -> Any:
    """Plain tuples straight from the driver, no wrapping: ``raw(sql, values)`` with the
    statement written with ``?`` marks (psycopg's ``%s`` on PostgreSQL)."""
    conn = s.connection().connection.driver_connection
    if s.get_bind().dialect.name == "sqlite":
        return lambda sql, values=(): conn.execute(sql, values).fetchall()

    def raw(sql: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        cursor = conn.cursor()
        # (a NUL is stored as U+FFFD there, see ``_PostgresText``: a search for one finds it)
        cursor.execute(sql.replace("%", "%%").replace("?", "%s"),
                       tuple(without_nul(v) for v in values))
        return list(cursor.fetchall())
    return raw


def _instant(value: Any) -> datetime | None | str:
    """A stored instant (naive UTC text), or the text itself when it is not one: read as the
    store reads it (``UTCDateTime``), so the list calls broken what the engine will not load."""
    if value is None:
        return None
    if isinstance(value, datetime):  # (a typed timestamp: PostgreSQL)
        return value.replace(tzinfo=timezone.utc)
    try:
        return datetime.fromisoformat(value).replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        return str(value)


def _shapes(raw: Any, keys: list[tuple[str, int]], preview: bool = False) -> _Shapes:
    found = {k: _SHAPES[k] for k in keys if k in _SHAPES}
    missing = []
    for k in keys:
        if k in found:
            continue
        definition = DEFINITIONS.get(k)  # parsed by the engine already: reuse it
        if definition is not None:
            found[k] = _remember(k, (definition.runner.kind, describe(definition.trigger), None,
                                     definition.trigger))
        else:
            missing.append(k)
    if preview:  # SQLite hands over the two parts a line needs, not the whole document
        missing = _quick_shapes(raw, missing, found)
    for i in range(0, len(missing), 500):
        chunk = dict(missing[i:i + 500])
        marks = ",".join("?" * len(chunk))
        for automation_id, revision, text in raw(
                f"SELECT id, revision, definition FROM automations WHERE id IN ({marks})",
                tuple(chunk)):
            key = (automation_id, revision)
            found[key] = _remember(key, _shape(automation_id, revision, text))
    return found


def _quick_shapes(raw: Any, keys: list[tuple[str, int]], found: _Shapes
                  ) -> list[tuple[str, int]]:
    """Preview shapes into ``found``; returns the keys that need the full parse."""
    full = []
    for i in range(0, len(keys), 500):
        chunk = dict(keys[i:i + 500])
        marks = ",".join("?" * len(chunk))
        for automation_id, revision, parts in raw(
                "SELECT id, revision, CASE WHEN json_valid(definition) THEN json_extract("
                f"definition, '$.runner.kind', '$.trigger') END FROM automations "
                f"WHERE id IN ({marks})", tuple(chunk)):
            quick = _quick_shape(parts)
            if quick is None:
                full.append((automation_id, revision))
            else:
                found[(automation_id, revision)] = quick
    return full


def _shape(automation_id: str, revision: int, text: Any) -> tuple[str | None, str, str | None, Trigger | None]:
    try:
        doc = text if isinstance(text, dict) else json.loads(text)  # (decoded: PostgreSQL)
    except (TypeError, ValueError) as exc:
        return None, "", f"the stored definition is not JSON ({exc})", None
    try:
        definition = cached_definition(automation_id, revision, doc)
    except InvalidInput as exc:
        return None, "", str(exc), None
    return definition.runner.kind, describe(definition.trigger), None, definition.trigger


def _quick_shape(parts: Any) -> tuple[str | None, str, str | None, Trigger | None] | None:
    """A line's shape from the runner kind and the trigger alone (a preview, never
    remembered): ``parts`` is the JSON array of the two. None when those do not read
    cleanly (the full parse then says why)."""
    try:
        runner, trigger_doc = json.loads(parts)
        if runner not in ("agent", "command"):
            return None
        trigger = load_trigger(trigger_doc)
    except (TypeError, ValueError, KeyError, InvalidInput):
        return None
    return runner, describe(trigger), None, trigger


def _remember(key: tuple[str, int], shape: tuple[str | None, str, str | None, Trigger | None]
              ) -> tuple[str | None, str, str | None, Trigger | None]:
    if len(_SHAPES) >= _SHAPES_KEPT:
        _SHAPES.clear()
    _SHAPES[key] = shape
    return shape


def _summaries(rows: list[Any], shapes: _Shapes, parked: dict[str, int],
               running: dict[str, Any],
               misshapen: dict[str, tuple[Any, ...]]) -> list[Summary]:
    """The rows as summaries. A sound row (definition read, instants good: nearly all of
    them) takes a short path; ten thousand through :func:`_summary` were a third of a
    listing's time. Any doubt sends the row there, which says what is wrong."""
    make = tuple.__new__
    out = []
    for row in rows:
        automation_id, title, status, revision, next_fire, streak, last_state, last_at = row
        shape = shapes.get((automation_id, revision))
        try:
            next_at = None if next_fire is None else _stored_instant(next_fire)
            at = None if last_at is None else _stored_instant(last_at)
        except (TypeError, ValueError):
            shape = None
        if shape is None or shape[2] is not None or automation_id in misshapen:
            out.append(_summary(row, shapes, parked, running, misshapen))
            continue
        out.append(make(Summary, (automation_id, title, status, shape[1], shape[0], next_at,
                                  last_state, at, streak, parked.get(automation_id, 0),
                                  automation_id in running, revision, shape[3],
                                  _since(running, automation_id))))
    return out


def _running_since(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Each running automation's ``running_since``: the instant from which the clock reads
    its run's time spent running (``records.run_time``: a wait for a decision or a retry
    left out), so the sidebar's ticking count agrees with the history's."""
    now = datetime.now(timezone.utc)
    out: dict[str, Any] = {}
    for automation_id, started, attempt, attempts in rows:
        start = _instant(started)
        since: Any = start
        if (attempt or 1) > 1 or (isinstance(attempts, str) and '"resumed"' in attempts) or (
                isinstance(attempts, list)  # (decoded: PostgreSQL)
                and any(isinstance(a, dict) and "resumed" in a for a in attempts)):
            # (only a run that stopped and went on has waits to leave out: the rest, a
            # thousand in a burst, are read without decoding their stretches)
            try:
                stretches = json.loads(attempts) if isinstance(attempts, str) else attempts
            except ValueError:
                stretches = None
            ran = run_time(stretches, "running",
                           start if isinstance(start, datetime) else None, None, now)
            since = now - ran if ran is not None else start
        if isinstance(since, datetime):
            earlier = out.get(automation_id)
            out[automation_id] = since if earlier is None else min(earlier, since)
        else:
            out.setdefault(automation_id, None)
    return out


def _since(running: dict[str, Any], automation_id: str) -> datetime | None:
    since = running.get(automation_id)
    return since if isinstance(since, datetime) else None


def _stored_instant(text: str) -> datetime:
    """An instant in the form the store writes, read with its zone appended (``replace(
    tzinfo=)`` costs seven times more); ValueError for any other form (it goes the long way,
    :func:`_instant`, which reads as the store does)."""
    if isinstance(text, datetime):  # (a typed timestamp: PostgreSQL)
        return text.replace(tzinfo=timezone.utc)
    if len(text) not in (19, 26) or text[10] != " ":
        raise ValueError(text)
    return datetime.fromisoformat(text + "+00:00")


def _summary(row: Any, shapes: _Shapes,
             parked: dict[str, int], running: dict[str, Any],
             misshapen: dict[str, tuple[Any, ...]]) -> Summary:
    automation_id, title, status, revision, next_fire, streak, last_state, last_at = row
    runner, words, problem, trigger = shapes.get((automation_id, revision),
                                                (None, "", "not found", None))
    next_fire_at = _instant(next_fire)
    unshown = misshapen.get(automation_id)
    if unshown is not None or isinstance(next_fire_at, str):
        bad = [f"the stored {name} {value!r} is not an instant" for name, value in zip(
            ("next_fire_at", "paused_at", "last_finished_at", "created_at", "updated_at"),
            (next_fire, *(unshown or (None,) * 4))) if isinstance(_instant(value), str)]
        if bad:
            problem = "; ".join([*bad, *([problem] if problem else [])])
    at = _instant(last_at)
    if problem:
        return Summary(automation_id, title, "broken", "cannot run: " + problem, None, None,
                       last_state, at if isinstance(at, datetime) else None, streak,
                       parked.get(automation_id, 0), automation_id in running, revision,
                       None, _since(running, automation_id))
    return Summary(automation_id, title, status, words, runner, next_fire_at, last_state,
                   at if isinstance(at, datetime) else None, streak,
                   parked.get(automation_id, 0), automation_id in running, revision, trigger,
                   _since(running, automation_id))


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

