"""The store API: automations, their revisions and audit trail, the run ledger, attention
items and settings. Each public method is one transaction; the engine composes several
steps into one transaction through ``Store.transaction`` and the ``*_in`` helpers.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from sqlalchemy import Text, cast, delete, func, literal_column, select, type_coerce, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .db.bulk import (execute_many, fetch_all, insert_rows, instant_param, select_rows,
                      update_rows)
from .db.database import Database, NotJSON
from .db.location import ServerDatabase, machine_name
from .db.schema import (AttentionRow, AuditRow, AutomationRow, BlockerRow, MailAccountRow,
                        MessageRow, NotInstant,
                        PendingEventRow, RevisionRow, RunRow, SessionRow, SettingRow,
                        TriggerStateRow, WebhookTokenRow, ScriptStateRow)
from .definition import Definition
from .errors import Conflict, ErrandsError, InvalidInput, NotFound
from .records import (ACTIVE_STATES, AttentionItem, AuditEntry, Automation, Blocker, Decision,
                      Message, Parked, Run, SessionInfo, cursor_index, load_definition)
from .settings import Settings, check_key, normalize
from .timeutil import format_instant, shown

if TYPE_CHECKING:
    from .db.postgres import PostgresDatabase


_RUN_FIELDS = {f.name for f in fields(Run)}
# a park's run expired unanswered or waits still / a run that ended any other way
_UNANSWERED = ("expired", "awaiting_input")
_ATTENDED_ENDS = ("succeeded", "failed", "cancelled", "interrupted")


@dataclass(frozen=True)
class Claimed:
    """A run row queued for a multi-row INSERT, with the values it will be written with."""

    id: str
    values: dict[str, Any]


_entropy = bytearray()


def new_id() -> str:
    """A random (version 4) UUID. ``uuid.uuid4`` makes one system call per id; drawing
    from a pooled buffer makes a burst of 1,000 claims 4 ms faster."""
    global _entropy
    if len(_entropy) < 16:
        _entropy = bytearray(os.urandom(4096))
    b = _entropy[:16]
    del _entropy[:16]
    b[6] = (b[6] & 0x0F) | 0x40  # version 4
    b[8] = (b[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _forget_entropy() -> None:
    _entropy.clear()  # a forked child must never hand out its parent's ids


os.register_at_fork(after_in_child=_forget_entropy)


DEFINITIONS: "OrderedDict[tuple[str, int], Definition]" = OrderedDict()
_DEFINITIONS_KEPT = 20_000


def cached_definition(automation_id: str, revision: int, doc: dict[str, Any]) -> Definition:
    """Parsed definitions are immutable, so one parse per (automation, revision) is enough.
    A write transaction that fails clears the cache, so a revision that was rolled back can
    never be served from it."""
    key = (automation_id, revision)
    found = DEFINITIONS.get(key)
    if found is None:
        found = DEFINITIONS[key] = load_definition(doc)
        if len(DEFINITIONS) > _DEFINITIONS_KEPT:
            DEFINITIONS.popitem(last=False)
    return found


def row_definition(row: AutomationRow) -> tuple[Definition | None, str | None]:
    """The row's definition, or why it cannot be loaded (the automation is then broken).
    Derived at every load, so a tzdata update that removes a zone, or one that brings it
    back, is noticed without a migration or a stored flag."""
    doc = row.definition
    if isinstance(doc, NotJSON):
        return None, f"the stored definition is not JSON ({doc.error})"
    try:
        return cached_definition(row.id, row.revision, doc), None
    except InvalidInput as exc:
        return None, str(exc)


_AUTOMATION_INSTANTS = ("next_fire_at", "paused_at", "last_finished_at", "created_at",
                        "updated_at")


def _unreadable_instants(row: Any, names: Sequence[str]) -> dict[str, NotInstant]:
    return {name: value for name in names
            if isinstance(value := getattr(row, name, None), NotInstant)}


def automation_record(row: AutomationRow) -> Automation:
    definition, problem = row_definition(row)
    bad = _unreadable_instants(row, _AUTOMATION_INSTANTS)
    if bad:  # the engine cannot tell when it would fire: broken until repaired
        problem = "; ".join([*(f"the stored {name} {value}" for name, value in bad.items()),
                             *([problem] if problem else [])])
        definition = None

    def instant(name: str) -> Any:
        return None if name in bad else getattr(row, name)
    return Automation(
        id=row.id, title=row.title, definition=definition, problem=problem,
        revision=row.revision,
        status="broken" if problem else row.status,
        next_fire_at=None if problem else row.next_fire_at, failure_streak=row.failure_streak,
        run_count=row.run_count, created_at=instant("created_at"),
        updated_at=instant("updated_at"), request_id=row.request_id,
        paused_reason=row.paused_reason, paused_at=instant("paused_at"),
        last_finished_at=instant("last_finished_at"), last_result=row.last_result,
        last_index=row.last_index, counted_runs=row.counted_runs or 0)


def mend_instants(row: AutomationRow, now: datetime) -> list[str]:
    """Overwrite the row's unreadable timestamps (a repair does this before anything reads
    them): when it was made or changed becomes now, the others are recomputed or unset."""
    bad = list(_unreadable_instants(row, _AUTOMATION_INSTANTS))
    for name in ("created_at", "updated_at"):  # required: a missing one (NaN reads as NULL)
        if getattr(row, name) is None and name not in bad:
            bad.append(name)
    for name in bad:
        setattr(row, name, now if name in ("created_at", "updated_at") else None)
    return bad


def run_record(row: RunRow) -> Run:
    return run_from_values({name: getattr(row, name) for name in _RUN_FIELDS
                            if hasattr(row, name)})


def run_from_values(values: Mapping[str, Any]) -> Run:
    """A run record from column values (a claim's, an ORM row's, a Core row's ``_mapping``).
    A value that did not decode is left out and named in the run's error, so one damaged
    row is shown as far as it reads instead of failing the page it is on."""
    found = {name: values[name] for name in _RUN_FIELDS if name in values}
    bad = []
    for name, value in list(found.items()):
        if isinstance(value, NotInstant):
            bad.append(f"{name} ({value})")
            found[name] = None
        elif isinstance(value, NotJSON):
            bad.append(f"{name} (not JSON: {value.error})")
            found[name] = None
    attempts = found.get("attempts")
    if attempts is not None and not isinstance(attempts, list):
        bad.append(f"attempts (not a list: {shown(attempts)})")
    found["attempts"] = list(attempts) if isinstance(attempts, list) else []
    if bad:
        note = "this run's stored " + "; ".join(bad) + " cannot be read; the rest is shown as stored"
        if found.get("error_code"):  # its own error comes first
            note = f"{found.get('error_message') or found['error_code']} ({note})"
        found.update(error_code=found.get("error_code") or "unreadable", error_message=note)
    return Run(**found)


def _attention(row: AttentionRow) -> AttentionItem:
    return AttentionItem(id=row.id, automation_id=row.automation_id, run_id=row.run_id,
                         kind=row.kind, title=row.title, body=row.body, read=row.read,
                         created_at=row.created_at)


def _with_outcomes(s: Session, items: list[AttentionItem]) -> list[AttentionItem]:
    """Requests to decide, each with how it ended once it has: the decision of the blocker
    it was raised for (the one asked at the item's instant, else the run's latest asked
    before it), or the run's end when nobody decided."""
    asking = [i for i in items if i.kind == "awaiting_input" and i.run_id]
    if not asking:
        return items
    run_ids = sorted({i.run_id for i in asking if i.run_id})
    blockers: dict[str, list[BlockerRow]] = {}
    states: dict[str, str] = {}
    for chunk in range(0, len(run_ids), 500):
        part = run_ids[chunk:chunk + 500]
        for b in s.scalars(select(BlockerRow).where(BlockerRow.run_id.in_(part))
                           .order_by(BlockerRow.requested_at, BlockerRow.id)):
            blockers.setdefault(b.run_id, []).append(b)
        states.update((run_id, state) for run_id, state in s.execute(
            select(RunRow.id, RunRow.state).where(RunRow.id.in_(part))))
    owners: dict[str, tuple[str, Any]] = {}
    automation_ids = sorted({i.automation_id for i in asking if i.automation_id})
    for chunk in range(0, len(automation_ids), 500):
        for ident, title, doc in s.execute(
                select(AutomationRow.id, AutomationRow.title, AutomationRow.definition)
                .where(AutomationRow.id.in_(automation_ids[chunk:chunk + 500]))):
            owners[ident] = (title, doc.get("workdir") if isinstance(doc, dict) else None)
    asking_ids = {i.id for i in asking}
    out = []
    for item in items:
        if item.id not in asking_ids:
            out.append(item)
            continue
        asked = blockers.get(item.run_id or "", [])
        blocker = _blocker_of(item, asked)
        title, workdir = owners.get(item.automation_id or "", (None, None))
        request = None if blocker is None else {
            "kind": blocker.kind, "tool": blocker.tool, "arguments": _subject(blocker.arguments),
            "question": blocker.question, "choices": blocker.choices,
            "title": title, "workdir": workdir if isinstance(workdir, str) else None}
        out.append(replace(item, outcome=_outcome_of(blocker, states.get(item.run_id or "")),
                           request=request))
    return out


_SUBJECTS = ("command", "path", "url", "action", "title", "pattern")


def _subject(arguments: Any) -> dict[str, Any] | None:
    """What a request is about, for words in a list (a file's whole content stays with the
    parked run, not in every inbox item): the subject arguments, each cut to 500 chars."""
    if not isinstance(arguments, dict):
        return None
    return {k: (v[:500] if isinstance(v, str) else v) for k, v in arguments.items()
            if k in _SUBJECTS}


def _blocker_of(item: AttentionItem, blockers: list[BlockerRow]) -> BlockerRow | None:
    """The blocker an item was raised for: asked at its instant, else the latest before."""
    asked = [b for b in blockers if isinstance(b.requested_at, datetime)
             and b.requested_at <= item.created_at]
    return next((b for b in asked if b.requested_at == item.created_at),
                asked[-1] if asked else None)


def _outcome_of(blocker: BlockerRow | None, state: str | None) -> dict[str, Any] | None:
    if blocker is not None and isinstance(blocker.decision, dict) \
            and blocker.decision.get("kind"):
        return {"kind": blocker.decision.get("kind"), "text": blocker.decision.get("text"),
                "by": blocker.decided_by,
                "at": format_instant(blocker.decided_at)
                if isinstance(blocker.decided_at, datetime) else None}
    if state == "expired":
        return {"kind": "expired", "text": None, "by": None, "at": None}
    if state is not None and state not in ACTIVE_STATES:
        return {"kind": "ended", "text": state, "by": None, "at": None}
    return None


# Within one second (creation instants are whole seconds), the order rows were made in:
# SQLite's rowid; on PostgreSQL the automation's first audit entry (numbered in order).
_CREATION_ORDER = {
    "sqlite": "automations.rowid",
    "postgresql": "(SELECT min(audit.id) FROM audit WHERE audit.automation_id = automations.id), "
                  "automations.id"}


class Store:
    def __init__(self, location: "Path | ServerDatabase", busy_ms: int = 10_000) -> None:
        """``location``: the SQLite file, or a PostgreSQL catalogue (``db.location``)."""
        self.db: Database | PostgresDatabase
        if isinstance(location, ServerDatabase):
            from .db.postgres import PostgresDatabase
            self.db = PostgresDatabase(location, busy_ms)
        else:
            self.db = Database(Path(location), busy_ms)
        self.dialect = self.db.dialect
        self.machine = machine_name()  # what the runs this store starts record as theirs

    def close(self) -> None:
        self.db.close()

    def checkpoint(self) -> None:
        self.db.checkpoint()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        try:
            with self.db.write() as session:
                yield session
        except BaseException:
            DEFINITIONS.clear()
            raise

    # ------------------------------------------------------------------ settings

    def settings(self) -> Settings:
        with self.db.read() as s:
            stored = {r.key: r.value for r in s.scalars(select(SettingRow))}
        return Settings(stored)

    def set_setting(self, key: str, value: str) -> str:
        text = normalize(key, value)
        with self.db.write() as s:
            s.merge(SettingRow(key=key, value=text))
        return text

    def unset_setting(self, key: str) -> None:
        check_key(key)
        with self.db.write() as s:
            s.execute(delete(SettingRow).where(SettingRow.key == key))

    # --------------------------------------------------------------- automations

    def resolve_id(self, ident: str) -> str:
        """A full id from an id or an unambiguous prefix of at least four characters."""
        return self._resolve(AutomationRow, ident, "id", "automation")

    def _resolve(self, row: Any, ident: str, field: str, what: str) -> str:
        with self.db.read() as s:
            if s.get(row, ident) is not None:
                return ident
            if 4 <= len(ident) <= 36:  # (a longer text is no id, and too long a LIKE pattern)
                ids = list(s.scalars(select(row.id).where(
                    row.id.startswith(ident, autoescape=True)).limit(2)))
                if len(ids) == 1:
                    return ids[0]
                if len(ids) > 1:
                    raise InvalidInput(field, f"{ident!r} matches several {what}s",
                                       f"a longer {what} id prefix", ids[0])
        raise NotFound(f"no {what} with id {shown(ident)}")

    def get(self, automation_id: str) -> Automation:
        def read(lenient: bool) -> Automation:
            with self.db.read(lenient=lenient) as s:
                return automation_record(self.get_in(s, automation_id))
        return self.db.leniently(read)

    def get_many(self, automation_ids: Sequence[str]) -> list[Automation]:
        """Those of ``automation_ids`` that exist (one read: a change notice names many)."""
        def read(lenient: bool) -> list[Automation]:
            found: list[Automation] = []
            with self.db.read(lenient=lenient) as s:
                for start in range(0, len(automation_ids), 500):
                    rows = s.execute(select(*AutomationRow.__table__.columns).where(
                        AutomationRow.id.in_(automation_ids[start:start + 500])))
                    found += [automation_record(r) for r in rows]  # type: ignore[arg-type]
            return found
        return self.db.leniently(read)

    def get_in(self, s: Session, automation_id: str) -> AutomationRow:
        row = s.get(AutomationRow, automation_id)
        if row is None:
            raise NotFound(f"no automation with id {automation_id!r}")
        return row

    def list(self) -> list[Automation]:
        """Every automation in creation order. Plain rows, not ORM objects: the engine loads
        tens of thousands of them at start."""
        def read(lenient: bool) -> list[Automation]:
            with self.db.read(lenient=lenient) as s:
                # in batches: a buffered result of ten thousand rows (each with its decoded
                # definition) would be freed at once at the end, 30 ms holding the interpreter
                rows = s.execute(select(*AutomationRow.__table__.columns).order_by(
                    AutomationRow.created_at, literal_column(_CREATION_ORDER[self.dialect]))
                    .execution_options(yield_per=500))
                return [automation_record(r) for r in rows]  # type: ignore[arg-type]
        return self.db.leniently(read)

    def stored_text(self, automation_id: str) -> str:
        """The definition exactly as stored, readable or not (what ``errands export ID --definition`` prints)."""
        # SQLite hands the stored bytes over as they are; PostgreSQL's driver would decode
        # a json column, so its text is asked for in SQL
        as_text = (type_coerce(AutomationRow.definition, Text) if self.dialect == "sqlite"
                   else cast(AutomationRow.definition, Text))
        with self.db.read() as s:
            found = s.execute(select(AutomationRow.id, as_text)
                              .where(AutomationRow.id == automation_id)).first()
        if found is None:
            raise NotFound(f"no automation with id {automation_id!r}")
        text = found[1]
        if text is None:
            return "null"  # an SQL NULL: the JSON column's reading of it
        return text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")

    def flag_broken(self, items: Sequence[Automation], now: datetime) -> list[Automation]:
        """One attention item per broken automation and problem, however often the engine
        starts: those already raised (read or not) are not raised again. Returns the
        automations an item was raised for."""
        raised = []
        with self.db.write() as s:
            for a in items:
                title = f"{a.title} cannot be loaded and will not run"
                seen = s.scalar(select(AttentionRow.id).where(
                    AttentionRow.automation_id == a.id, AttentionRow.kind == "broken",
                    AttentionRow.body == a.problem).limit(1))
                if seen is None:
                    self.add_attention_in(s, kind="broken", title=title, body=a.problem,
                                          now=now, automation_id=a.id)
                    raised.append(a)
        return raised

    def find_by_request(self, request_id: str) -> tuple[Automation, str | None] | None:
        with self.db.read() as s:
            row = s.scalars(select(AutomationRow)
                            .where(AutomationRow.request_id == request_id)).first()
            return None if row is None else (automation_record(row), row.request_fingerprint)

    def insert_automation(self, definition: Definition, *, now: datetime,
                          next_fire_at: datetime | None, request_id: str | None,
                          fingerprint: str | None, actor: str) -> Automation:
        return self.insert_automations([(definition, next_fire_at, request_id, fingerprint)],
                                       now=now, actor=actor)[0]

    def insert_automations(self, items: Sequence[tuple[Definition, datetime | None,
                                                       str | None, str | None]], *,
                           now: datetime, actor: str) -> list[Automation]:
        """Create each (definition, next fire, request id, fingerprint), all in one
        transaction: all of them or none."""
        rows = []
        try:
            with self.db.write() as s:
                for definition, next_fire_at, request_id, fingerprint in items:
                    doc = definition.to_dict()
                    row = AutomationRow(
                        id=new_id(), request_id=request_id, request_fingerprint=fingerprint,
                        title=definition.title, definition=doc, revision=1,
                        status="paused" if definition.paused else "active",
                        next_fire_at=next_fire_at, failure_streak=0, run_count=0, counted_runs=0,
                        last_index=0,
                        created_at=now, updated_at=now)
                    s.add(row)
                    s.flush()
                    s.add(RevisionRow(automation_id=row.id, revision=1, definition=doc,
                                      created_at=now))
                    self.audit_in(s, row.id, "created", 1, actor, now, {"title": definition.title})
                    rows.append(row)
        except IntegrityError as exc:  # a concurrent create with the same request id
            raise Conflict("identity_conflict", "a request id was used by another create at "
                           "the same moment; retry to get its automation") from exc
        return [automation_record(row) for row in rows]

    def revise_in(self, s: Session, row: AutomationRow, definition: Definition, *,
                  now: datetime, actor: str, action: str = "revised",
                  detail: dict[str, Any] | None = None) -> None:
        doc = definition.to_dict()
        row.revision += 1
        row.definition = doc
        row.title = definition.title
        row.updated_at = now
        s.add(RevisionRow(automation_id=row.id, revision=row.revision, definition=doc,
                          created_at=now))
        self.audit_in(s, row.id, action, row.revision, actor, now, detail)

    def audit_in(self, s: Session, automation_id: str, action: str, revision: int | None,
                 actor: str, now: datetime, detail: dict[str, Any] | None = None) -> None:
        s.add(AuditRow(automation_id=automation_id, action=action, revision=revision,
                       actor=actor, detail=detail, at=now))

    def archived_from_in(self, s: Session, automation_id: str) -> str | None:
        """The status the automation had when it was last archived (its ``archived`` audit
        entry says), or None when no entry says."""
        detail = s.scalars(select(AuditRow.detail).where(
            AuditRow.automation_id == automation_id, AuditRow.action == "archived")
            .order_by(AuditRow.id.desc()).limit(1)).first()
        status = detail.get("status") if isinstance(detail, dict) else None
        return status if isinstance(status, str) else None

    def revision_docs(self, automation_id: str) -> list[tuple[int, dict[str, Any], datetime]]:
        """Every stored revision's document as stored (readable or not), oldest first."""
        with self.db.read() as s:
            rows = s.scalars(select(RevisionRow).where(RevisionRow.automation_id == automation_id)
                             .order_by(RevisionRow.revision))
            return [(r.revision, r.definition if isinstance(r.definition, dict) else
                     {"stored": str(r.definition)}, r.created_at) for r in rows]

    def definition_at(self, automation_id: str, revision: int) -> Definition:
        """The definition as it was at ``revision``: a resumed run goes on under the revision
        it was claimed with, whatever was edited meanwhile."""
        with self.db.read() as s:
            row = s.scalars(select(RevisionRow).where(RevisionRow.automation_id == automation_id,
                                                      RevisionRow.revision == revision)).first()
            if row is None:
                raise NotFound(f"automation {automation_id!r} has no revision {revision}")
            return cached_definition(automation_id, revision, row.definition)

    def audit(self, automation_id: str | None = None) -> list[AuditEntry]:
        with self.db.read() as s:
            q = select(AuditRow).order_by(AuditRow.id)
            if automation_id:
                q = q.where(AuditRow.automation_id == automation_id)
            return [AuditEntry(id=r.id, automation_id=r.automation_id, action=r.action,
                               revision=r.revision, actor=r.actor, detail=r.detail, at=r.at)
                    for r in s.scalars(q)]

    def delete_in(self, s: Session, automation_id: str, *, now: datetime,
                  actor: str) -> dict[str, int]:
        """Delete the automation and its ledger; how many runs, transcripts (sessions) and
        revisions went with it."""
        row = self.get_in(s, automation_id)

        def count(table: Any) -> int:
            return s.scalar(select(func.count()).select_from(table)
                            .where(table.automation_id == automation_id)) or 0
        destroyed = {"runs": count(RunRow), "transcripts": count(SessionRow),
                     "revisions": count(RevisionRow)}
        self.audit_in(s, automation_id, "deleted", row.revision, actor, now,
                      {"title": row.title, **destroyed})
        s.execute(delete(RunRow).where(RunRow.automation_id == automation_id))
        s.execute(delete(RevisionRow).where(RevisionRow.automation_id == automation_id))
        s.execute(delete(AttentionRow).where(AttentionRow.automation_id == automation_id))
        s.execute(delete(SessionRow).where(SessionRow.automation_id == automation_id))
        s.delete(row)
        return destroyed

    # ---------------------------------------------------------------- run ledger

    def insert_run_in(self, s: Session, automation: AutomationRow, *, slot: str, trigger: str,
                      state: str, now: datetime, scheduled_for: datetime | None,
                      flush: bool = True, bulk: list[dict[str, Any]] | None = None,
                      **values: Any) -> "RunRow | Claimed":
        """Claim ``slot`` for a new run. The unique (automation, slot) key makes a second claim
        of the same slot fail, whichever process or replay attempts it.

        With ``bulk``, the row's values are appended there for one multi-row INSERT by the
        caller (``insert_bulk_in``), and the returned object stays out of the session."""
        automation.last_index += 1
        fields = {"id": new_id(), "automation_id": automation.id,
                  "index": automation.last_index, "slot": slot, "revision": automation.revision,
                  "trigger": trigger, "scheduled_for": scheduled_for, "state": state,
                  "created_at": now, "attempts": []}
        if self.dialect != "sqlite":  # several engines: whose run it is, from its claim on
            fields["machine"] = self.machine  # (one that never started is still that one's)
        fields.update(values)
        if bulk is not None:
            bulk.append(fields)
            return Claimed(fields["id"], fields)
        row = RunRow(**fields)
        s.add(row)
        if flush:
            s.flush()
        return row

    def insert_bulk_in(self, s: Session, bulk: list[dict[str, Any]]) -> None:
        insert_rows(s, RunRow.__table__, bulk)

    def slot_taken_in(self, s: Session, automation_id: str, slot: str) -> RunRow | None:
        return s.scalars(select(RunRow).where(RunRow.automation_id == automation_id,
                                              RunRow.slot == slot)).first()

    def run_by_index(self, automation_id: str, index: int) -> Run:
        """An automation's run by its number (#1 is its first)."""
        with self.db.read() as s:
            run_id = s.scalar(select(RunRow.id).where(RunRow.automation_id == automation_id,
                                                      RunRow.index == index))
        if run_id is None:
            raise NotFound(f"this automation has no run #{index}")
        return self.get_run(run_id)

    def resolve_run(self, ident: str) -> str:
        """A full run id from an id or an unambiguous prefix of at least four characters."""
        return self._resolve(RunRow, ident, "run", "run")

    def get_run(self, run_id: str) -> Run:
        with self.db.read() as s:
            return run_record(self.get_row_in(s, run_id))

    def get_row_in(self, s: Session, run_id: str) -> RunRow:
        row = s.get(RunRow, run_id)
        if row is None:
            raise NotFound(f"no run with id {run_id!r}")
        return row

    def start_attempts_in(self, s: Session, items: Sequence[tuple[str, int, datetime]]
                          ) -> list[Run | ErrandsError]:
        """Mark runs running, each for its (run id, attempt, time). One statement for all:
        a burst starts a thousand at once (see ``engine.group_commit``). Only a scheduled
        run starts: one ended since it was asked to start gets ``Conflict("ended")``."""
        table = RunRow.__table__
        found = {row.id: run_from_values(row._mapping)
                 for row in select_rows(s, table, [run_id for run_id, _, _ in items])}
        results: list[Run | ErrandsError] = []
        changes = []
        for run_id, attempt, now in items:
            run = found.get(run_id)
            if run is None:
                results.append(NotFound(f"no run with id {run_id!r}"))
                continue
            if run.state != "scheduled":  # ended meanwhile (a stop, an expiry): stays ended
                results.append(Conflict("ended", f"run #{run.index} is {run.state}"))
                continue
            segment: dict[str, Any] = {"attempt": attempt, "started_at": format_instant(now)}
            if run.attempts and run.attempts[-1].get("attempt") == attempt:
                segment["resumed"] = True  # the same attempt, going on after a decision
            attempts = [*run.attempts, segment]
            run = found[run_id] = replace(run, state="running", attempt=attempt, retry_at=None,
                                          started_at=run.started_at or now, attempts=attempts,
                                          machine=self.machine)
            changes.append({"id": run_id, "state": "running", "attempt": attempt,
                            "retry_at": None, "started_at": run.started_at,
                            "attempts": attempts, "machine": self.machine})
            results.append(run)
        update_rows(s, table, changes)
        return results

    def set_run_pids_in(self, s: Session, items: Sequence[tuple[str, int | None, float | None]]
                        ) -> list[None]:
        """The child each run started: what a restart after a crash must terminate."""
        update_rows(s, RunRow.__table__, [{"id": run_id, "pid": pid, "pid_started": started}
                                          for run_id, pid, started in items])
        return [None] * len(items)

    def update_run_in(self, s: Session, run_id: str, **values: Any) -> RunRow:
        row = self.get_row_in(s, run_id)
        for key, value in values.items():
            setattr(row, key, value)
        return row

    def runs_page(self, automation_id: str, *, limit: int = 50,
                  cursor: str | None = None) -> tuple[list[Run], str | None]:
        """Newest first. The cursor is the index to continue below, so pages stay stable
        while new runs arrive."""
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit", f"{limit} is out of range", "a whole number from 1 to 1000",
                               "50")
        before = cursor_index(cursor)
        q = select(RunRow).where(RunRow.automation_id == automation_id)
        if before is not None:
            q = q.where(RunRow.index < before)
        q = q.order_by(RunRow.index.desc()).limit(limit + 1)
        try:
            with self.db.read() as s:
                rows = list(s.scalars(q))
                runs = [run_record(r) for r in rows]
            indexes = [r.index for r in rows]
        except (ValueError, TypeError):  # a value that does not decode: that row alone pays
            runs, indexes = self._runs_one_by_one(q)
        more = len(runs) > limit
        return runs[:limit], (f"r{indexes[limit - 1]}" if more else None)

    def _runs_one_by_one(self, q: Any) -> tuple[list[Run], list[int]]:
        """The page of ``q`` read row by row, each unreadable row as far as it can be read."""
        with self.db.read() as s:
            keys = list(s.execute(q.with_only_columns(RunRow.id, RunRow.index)))
        runs = []
        for run_id, index in keys:
            try:
                with self.db.read() as s:
                    runs.append(run_record(self.get_row_in(s, run_id)))
            except (ValueError, TypeError):
                runs.append(self._salvage_run(run_id))
        return runs, [index for _, index in keys]

    def _salvage_run(self, run_id: str) -> Run:
        """A run row with a value that does not decode (a timestamp that is not one, JSON that
        is not JSON), column by column: what reads is kept, the rest is named in its error."""
        values: dict[str, Any] = {}
        bad: list[str] = []
        with self.db.read() as s:
            for column in RunRow.__table__.columns:
                try:
                    value = s.execute(select(column).where(RunRow.id == run_id)).scalar()
                except (ValueError, TypeError) as exc:
                    bad.append(f"{column.name} ({exc})")
                    continue
                if isinstance(value, NotJSON):
                    bad.append(f"{column.name} (not JSON: {value.error})")
                    continue
                values[column.name] = value
        values.update(error_code="unreadable", error_message="this run's stored "
                      + "; ".join(bad) + " cannot be read; the rest is shown as stored")
        return run_from_values(values)

    def active_runs(self, automation_id: str | None = None) -> list[Run]:
        with self.db.read() as s:
            q = select(RunRow).where(RunRow.state.in_(ACTIVE_STATES))
            if automation_id:
                q = q.where(RunRow.automation_id == automation_id)
            return [run_record(r) for r in s.scalars(q.order_by(RunRow.created_at))]

    def pending_events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """Events recorded but not yet admitted (``ledger/follows.py``), oldest first."""
        with self.db.read() as s:
            rows = s.scalars(select(PendingEventRow).order_by(PendingEventRow.id).limit(limit))
            return [{"id": r.id, "automation_id": r.automation_id, "trigger_id": r.trigger_id,
                     "kind": r.kind, "source": r.source, "key": r.key, "at": r.at,
                     "payload": r.payload if isinstance(r.payload, dict) else None,
                     "depth": r.depth or 0, "chain": tuple(r.chain or ())} for r in rows]

    def run_in_slot(self, automation_id: str, slot: str) -> Run | None:
        with self.db.read() as s:
            row = self.slot_taken_in(s, automation_id, slot)
            return run_record(row) if row is not None else None

    def forget_triggers_in(self, s: Session, automation_id: str,
                           kept: set[tuple[str, str]]) -> None:
        """Drop the token and the state of each trigger the automation no longer has
        (``kept``: (id, kind) of those it has; a kind changed under one id is a new one)."""
        webhooks = {i for i, kind in kept if kind == "webhook"}
        for row in s.scalars(select(WebhookTokenRow).where(
                WebhookTokenRow.automation_id == automation_id)):
            if row.trigger_id not in webhooks:
                s.delete(row)
        stateful = {i for i, kind in kept if kind in ("folder", "mail")}
        for state in s.scalars(select(TriggerStateRow).where(
                TriggerStateRow.automation_id == automation_id)):
            if state.trigger_id not in stateful:
                s.delete(state)

    def set_trigger_state_in(self, s: Session, automation_id: str, trigger_id: str,
                             state: dict[str, Any], now: datetime) -> None:
        row = s.get(TriggerStateRow, (automation_id, trigger_id))
        if row is None:
            s.add(TriggerStateRow(automation_id=automation_id, trigger_id=trigger_id,
                                  state=state, updated_at=now))
        else:
            row.state, row.updated_at = state, now

    def set_trigger_state(self, automation_id: str, trigger_id: str, state: dict[str, Any],
                          now: datetime) -> None:
        with self.db.write() as s:
            if s.get(AutomationRow, automation_id) is not None:
                self.set_trigger_state_in(s, automation_id, trigger_id, state, now)

    def script_state(self, automation_id: str) -> dict[str, Any]:
        """A script automation's state (``{}`` before its first ``setState``)."""
        with self.db.read() as s:
            row = s.get(ScriptStateRow, automation_id)
            return dict(row.state) if row is not None and isinstance(row.state, dict) else {}

    def change_script_state_in(self, s: Session, automation_id: str,
                               changes: dict[str, Any], now: datetime) -> None:
        """Apply ``setState`` changes (a key to null is removed) to the stored state."""
        row = s.get(ScriptStateRow, automation_id)
        state = dict(row.state) if row is not None and isinstance(row.state, dict) else {}
        for key, value in changes.items():
            if value is None:
                state.pop(key, None)
            else:
                state[key] = value
        if row is None:
            s.add(ScriptStateRow(automation_id=automation_id, state=state, updated_at=now))
        else:
            row.state = state
            row.updated_at = now

    def trigger_state(self, automation_id: str, trigger_id: str) -> dict[str, Any] | None:
        with self.db.read() as s:
            row = s.get(TriggerStateRow, (automation_id, trigger_id))
            return row.state if row is not None and isinstance(row.state, dict) else None

    # ---------------------------------------------------------------- mail accounts

    def mail_accounts(self) -> list[Any]:
        """Every mail account, by name (``mail.accounts.MailAccount``); one whose stored
        document no longer reads is left out."""
        from .mail.accounts import parse_account
        out = []
        with self.db.read() as s:
            for row in s.scalars(select(MailAccountRow).order_by(MailAccountRow.name)):
                try:
                    out.append(parse_account({**(row.config or {}), "name": row.name}))
                except ErrandsError:
                    continue
        return out

    def mail_account(self, name: str) -> Any:
        for account in self.mail_accounts():
            if account.name == name:
                return account
        raise NotFound(f"no mail account is named {name!r} (errands mail list)")

    def save_mail_account(self, account: Any, now: datetime) -> None:
        config = {k: v for k, v in account.to_dict().items() if k != "name"}
        with self.db.write() as s:
            row = s.get(MailAccountRow, account.name)
            if row is None:
                s.add(MailAccountRow(name=account.name, config=config, created_at=now,
                                     updated_at=now))
            else:
                row.config, row.updated_at = config, now

    def delete_mail_account(self, name: str) -> bool:
        with self.db.write() as s:
            row = s.get(MailAccountRow, name)
            if row is None:
                return False
            s.delete(row)
            return True

    def webhook_hashes(self) -> dict[tuple[str, str], str]:
        """Every webhook trigger's token hash, by (automation, trigger)."""
        with self.db.read() as s:
            return {(r.automation_id, r.trigger_id): r.token_hash
                    for r in s.scalars(select(WebhookTokenRow))}

    def set_webhook_hash(self, automation_id: str, trigger_id: str, digest: str,
                         now: datetime) -> None:
        with self.db.write() as s:
            row = s.get(WebhookTokenRow, (automation_id, trigger_id))
            if row is None:
                self.get_in(s, automation_id)  # (NotFound for one deleted meanwhile)
                s.add(WebhookTokenRow(automation_id=automation_id, trigger_id=trigger_id,
                                      token_hash=digest, created_at=now))
            else:
                row.token_hash, row.created_at = digest, now

    def run_by_request(self, automation_id: str, request_id: str) -> Run | None:
        with self.db.read() as s:
            row = self.slot_taken_in(s, automation_id, f"manual:{request_id}")
            return None if row is None else run_record(row)

    def count_runs(self, automation_id: str) -> int:
        with self.db.read() as s:
            return s.scalar(select(func.count()).select_from(RunRow)
                            .where(RunRow.automation_id == automation_id)) or 0

    # ----------------------------------------------------------------- attention

    def add_attention_in(self, s: Session, *, kind: str, title: str, body: str | None,
                         now: datetime, automation_id: str | None = None,
                         run_id: str | None = None) -> AttentionRow:
        row = AttentionRow(kind=kind, title=title[:200], body=body, read=False,
                           created_at=now, automation_id=automation_id, run_id=run_id)
        s.add(row)
        s.flush()
        return row

    def attention(self, *, unread_only: bool = False, limit: int = 500) -> list[AttentionItem]:
        with self.db.read() as s:
            q = select(AttentionRow)
            if unread_only:
                q = q.where(AttentionRow.read.is_(False))
            q = q.order_by(AttentionRow.created_at.desc(), AttentionRow.id.desc()).limit(limit)
            items = [_attention(r) for r in s.scalars(q)]
            return _with_outcomes(s, items)

    def unread_counts(self) -> dict[str, int]:
        """How many unread attention items there are of each kind (all of them, where
        ``attention`` returns a page)."""
        with self.db.read() as s:
            rows = s.execute(select(AttentionRow.kind, func.count())
                             .where(AttentionRow.read.is_(False))
                             .group_by(AttentionRow.kind))
            return {kind: count for kind, count in rows}

    def read_attention_in(self, s: Session, *, run_id: str, kind: str) -> None:
        """Mark a run's items of ``kind`` read: a parked run that got its decision no longer
        asks for attention."""
        s.execute(update(AttentionRow).where(AttentionRow.run_id == run_id,
                                             AttentionRow.kind == kind).values(read=True))

    def mark_attention_read(self, item_id: int | None = None) -> int:
        """Mark one item (or all when ``item_id`` is None) read; returns how many changed."""
        with self.db.write() as s:
            q = update(AttentionRow).where(AttentionRow.read.is_(False))
            if item_id is not None:
                if s.get(AttentionRow, item_id) is None:
                    raise NotFound(f"no attention item with id {item_id}")
                q = q.where(AttentionRow.id == item_id)
            return s.execute(q.values(read=True)).rowcount or 0  # type: ignore[attr-defined]

    # ------------------------------------------------------- parked runs, sessions

    def add_blocker_in(self, s: Session, run_id: str, blocker: Blocker, *, now: datetime,
                       expires_at: datetime) -> None:
        s.add(BlockerRow(run_id=run_id, kind=blocker.kind, tool=blocker.tool,
                         arguments=blocker.arguments, question=blocker.question,
                         choices=blocker.choices, requested_at=now, expires_at=expires_at))

    def open_blocker_in(self, s: Session, run_id: str) -> BlockerRow | None:
        """The newest blocker of a run (a run may park several times)."""
        return s.scalars(select(BlockerRow).where(BlockerRow.run_id == run_id)
                         .order_by(BlockerRow.id.desc()).limit(1)).first()

    def parked(self, automation_id: str | None = None) -> list[Parked]:
        """Runs waiting for a decision, oldest first, with what they wait for."""
        with self.db.read() as s:
            q = (select(BlockerRow, RunRow.automation_id, RunRow.index)
                 .join(RunRow, RunRow.id == BlockerRow.run_id)
                 .where(RunRow.state == "awaiting_input", BlockerRow.decided_at.is_(None)))
            if automation_id:
                q = q.where(RunRow.automation_id == automation_id)
            return [_parked(b, a, i) for b, a, i in s.execute(q.order_by(BlockerRow.id))]

    def parked_run(self, run_id: str) -> Parked | None:
        with self.db.read() as s:
            row = self.open_blocker_in(s, run_id)
            if row is None:
                return None
            run = self.get_row_in(s, run_id)
            return _parked(row, run.automation_id, run.index)

    def unanswered_since_in(self, s: Session, automation_id: str) -> datetime | None:
        """When the oldest park of the automation's current *unanswered streak* was asked
        (None: it has none). The streak is its parks (dry runs aside) that nobody decided
        on, whose runs expired unanswered or wait still, asked since (or at) the last time
        someone attended to it: a run of it ended any other way (succeeded, failed, cancelled, interrupted),
        any of its runs got a decision, or a person resumed or edited it."""
        attended = (
            s.scalars(select(RunRow.finished_at).where(
                RunRow.automation_id == automation_id, RunRow.dry_run.is_(False),
                RunRow.state.in_(_ATTENDED_ENDS)).order_by(RunRow.index.desc()).limit(1)
            ).first(),
            s.scalar(select(func.max(BlockerRow.decided_at))
                     .join(RunRow, RunRow.id == BlockerRow.run_id)
                     .where(RunRow.automation_id == automation_id)),
            s.scalar(select(func.max(AuditRow.at)).where(
                AuditRow.automation_id == automation_id, AuditRow.actor == "user",
                AuditRow.action.in_(("resumed", "revised")))),
        )
        since = max((t for t in attended if isinstance(t, datetime)), default=None)
        q = (select(func.min(BlockerRow.requested_at))
             .join(RunRow, RunRow.id == BlockerRow.run_id)
             .where(RunRow.automation_id == automation_id, RunRow.dry_run.is_(False),
                    RunRow.state.in_(_UNANSWERED), BlockerRow.decided_at.is_(None)))
        if since is not None:  # (a park at the same instant came after: a resume armed it)
            q = q.where(BlockerRow.requested_at >= since)
        first = s.scalar(q)
        return first if isinstance(first, datetime) else None

    def unanswered_before_in(self, s: Session, asked_by: datetime) -> list[str]:
        """Active automations with a park nobody decided on, asked at or before
        ``asked_by``, whose run expired or waits still: those whose unanswered streak may
        be that old (``unanswered_since_in`` says)."""
        return list(s.scalars(
            select(RunRow.automation_id).distinct()
            .join(BlockerRow, BlockerRow.run_id == RunRow.id)
            .join(AutomationRow, AutomationRow.id == RunRow.automation_id)
            .where(RunRow.state.in_(_UNANSWERED), RunRow.dry_run.is_(False),
                   BlockerRow.decided_at.is_(None), BlockerRow.requested_at <= asked_by,
                   AutomationRow.status == "active")))

    def read_automation_attention_in(self, s: Session, automation_id: str, kind: str) -> int:
        """Mark an automation's unread items of ``kind`` read; how many there were."""
        return s.execute(update(AttentionRow).where(  # type: ignore[attr-defined,no-any-return]
            AttentionRow.automation_id == automation_id, AttentionRow.kind == kind,
            AttentionRow.read.is_(False)).values(read=True)).rowcount or 0

    def ensure_session_in(self, s: Session, session_id: str, *, automation_id: str | None,
                          kind: str, title: str, now: datetime) -> None:
        if s.get(SessionRow, session_id) is None:
            s.add(SessionRow(id=session_id, automation_id=automation_id, kind=kind,
                             title=title[:200], created_at=now, updated_at=now))
            s.flush()

    def append_messages_in(self, s: Session, items: Sequence[tuple[Any, ...]]) -> list[None]:
        """(session id, automation id, session kind, title, run id, role, content, time) each,
        in order; sessions are created on their first message.

        This runs on the engine's loop at every agent step (the steps of many runs share
        one group commit), so it is a few driver-level statements for the whole batch,
        each stepping the database once (see ``insert_rows(multirow=True)``): a statement
        per message through SQLAlchemy held the loop for milliseconds, tens of them when
        another thread was busy."""
        if not items:
            return []
        s.flush()  # rows the caller added (a run, its session id) are in the tables first
        heads: dict[str, tuple[Any, ...]] = {}
        for item in items:
            heads.setdefault(item[0], item)
        ids = list(heads)
        last: dict[str, int] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ", ".join("?" * len(chunk))
            last.update(fetch_all(s, "SELECT id, (SELECT max(seq) FROM messages WHERE "
                                  "session_id = sessions.id) FROM sessions WHERE id IN "
                                  f"({marks})", chunk))
        fresh = [{"id": sid, "automation_id": aid, "kind": kind, "title": title[:200],
                  "created_at": now, "updated_at": now}
                 for sid, aid, kind, title, _, _, _, now in heads.values() if sid not in last]
        if fresh:
            insert_rows(s, SessionRow.__table__, fresh, multirow=True)
        next_seq = {sid: (last.get(sid) or 0) + 1 for sid in ids}
        messages: list[dict[str, Any]] = []
        touched: dict[str, datetime] = {}
        runs: dict[str, str] = {}
        for session_id, _, _, _, run_id, role, content, now in items:
            messages.append({"session_id": session_id, "seq": next_seq[session_id],
                             "run_id": run_id, "role": role, "content": content,
                             "created_at": now})
            next_seq[session_id] += 1
            touched[session_id] = now
            if run_id is not None:
                runs.setdefault(run_id, session_id)  # a run's first message names its session
        insert_rows(s, MessageRow.__table__, messages, multirow=True)
        _set_each(s, "sessions", "updated_at", "",
                  {sid: instant_param(s, now) for sid, now in touched.items()})
        _set_each(s, "runs", "session_id", " AND session_id IS NULL", runs)
        return [None] * len(items)

    def session(self, session_id: str) -> SessionInfo:
        """A transcript's head; NotFound names the id."""
        with self.db.read() as s:
            row = s.get(SessionRow, session_id)
            if row is None:
                raise NotFound(f"no session {session_id!r}; a run's session id is in "
                               "'errands runs ID --json' (session_id)")
            return SessionInfo(id=row.id, automation_id=row.automation_id, kind=row.kind,
                               title=row.title, created_at=row.created_at,
                               updated_at=row.updated_at)

    def last_run_in_session(self, automation_id: str, session_id: str) -> Run | None:
        """The newest run of ``automation_id`` in the session; one still going or waiting
        is refused (a follow-up forks from an ended run)."""
        with self.db.read() as s:
            row = s.scalars(select(RunRow).where(RunRow.automation_id == automation_id,
                                                 RunRow.session_id == session_id)
                            .order_by(RunRow.index.desc()).limit(1)).first()
            run = run_record(row) if row is not None else None
        if run is not None and run.active:
            raise Conflict("busy", f"run #{run.index} is still "
                           + ("waiting for your decision: decide it first"
                              if run.state == "awaiting_input" else "going: wait for it"))
        return run

    def sessions_of(self, automation_id: str, kind: str) -> list[SessionInfo]:
        """An automation's sessions of one kind (its discussions), newest first."""
        with self.db.read() as s:
            rows = s.scalars(select(SessionRow).where(
                SessionRow.automation_id == automation_id, SessionRow.kind == kind)
                .order_by(SessionRow.updated_at.desc()).limit(500))
            return [SessionInfo(id=row.id, automation_id=row.automation_id, kind=row.kind,
                                title=row.title, created_at=row.created_at,
                                updated_at=row.updated_at) for row in rows]

    def messages(self, session_id: str, *, after: int = 0, limit: int = 10_000) -> list[Message]:
        with self.db.read() as s:
            q = (select(MessageRow).where(MessageRow.session_id == session_id,
                                          MessageRow.seq > after)
                 .order_by(MessageRow.seq).limit(limit))
            return [Message(seq=r.seq, role=r.role, content=r.content, run_id=r.run_id,
                            created_at=r.created_at) for r in s.scalars(q)]


def _set_each(s: Session, table: str, column: str, condition: str,
              values: Mapping[str, Any]) -> None:
    """``column`` of each row (by id) to its value, in one statement per 300 rows (three
    values each, within ``MAX_VARIABLES``): ``SET column = CASE id WHEN ? THEN ? … END
    WHERE id IN (…)`` plus ``condition``."""
    pairs = list(values.items())
    for i in range(0, len(pairs), 300):
        chunk = pairs[i:i + 300]
        cases = " ".join("WHEN ? THEN ?" for _ in chunk)
        marks = ", ".join("?" * len(chunk))
        execute_many(s, f'UPDATE "{table}" SET "{column}" = CASE id {cases} END '
                     f"WHERE id IN ({marks}){condition}",
                     [[*(v for pair in chunk for v in pair), *(k for k, _ in chunk)]])


def _parked(row: BlockerRow, automation_id: str, run_index: int) -> Parked:
    decision = None
    if isinstance(row.decision, dict):
        decision = Decision(kind=row.decision.get("kind", "deny"), text=row.decision.get("text"),
                            rule=row.decision.get("rule"))
    return Parked(run_id=row.run_id, automation_id=automation_id, run_index=run_index,
                  blocker=Blocker(kind=row.kind, tool=row.tool, arguments=row.arguments,  # type: ignore[arg-type]
                                  question=row.question, choices=row.choices),
                  requested_at=row.requested_at, expires_at=row.expires_at, decision=decision,
                  decided_at=row.decided_at, decided_by=row.decided_by,
                  request_id=row.request_id)
