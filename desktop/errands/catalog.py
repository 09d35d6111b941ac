"""Operations on the catalogue of automations: create, revise, pause, resume, archive,
unarchive, delete.

The CLI calls these directly when no engine runs; the engine calls the same ones for the
commands it receives, then re-arms. One implementation, so both paths validate alike.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy.orm import Session

from .agent.worktree import check_repository
from .db.schema import AutomationRow
from .definition import (ANY_MACHINE, AfterTrigger, AtTrigger, Definition, ParseContext,
                         bind_to, canonical_json, check_request_id, parse_definition)
from .ledger.closing import slot_key as _slot_key
from .fires import Window, plan_fires
from .errors import Conflict, InvalidInput, NotFound
from .event_triggers import AutomationTrigger, FolderTrigger, MailTrigger, TriggerSet, members_of
from .records import Automation, Run
from .schedule import jitter_offset, next_fire
from .store import Store, automation_record, row_definition, run_record, mend_instants
from .timeutil import format_instant, utcnow

Clock = Callable[[], datetime]
_TICK = timedelta(microseconds=1)
MISSED_WHILE_PAUSED = "automation_paused"  # a skip reason: it came due while paused


def first_fire(definition: Definition, now: datetime,
               last_finished: datetime | None = None) -> datetime | None:
    """The first automatic fire at or after ``now`` (a grid whose start is now fires now)."""
    trigger = definition.trigger
    if isinstance(trigger, AfterTrigger):
        if last_finished is None:
            return max(trigger.start_at, now)
        return max(last_finished + trigger.interval, now)
    return next_fire(trigger, now - _TICK, last_finished)


def refuse_broken(automation: Automation) -> None:
    """A broken automation (its stored definition no longer loads) can only be shown,
    exported, repaired with a whole definition, or deleted."""
    if automation.problem is not None:
        raise Conflict("broken", f"{automation.title} cannot be loaded ({automation.problem}); "
                       f"repair it with 'errands edit {automation.id[:8]} --from-json FILE' "
                       f"(see 'errands export {automation.id[:8]} --definition') or delete it")


def refuse_archived(automation_id: str, title: str, status: str) -> None:
    """An archived automation keeps its runs, transcripts, revisions and logs, but is not
    used: it never fires and cannot be run, paused, resumed or edited until it is
    unarchived. ``status``: the row's stored status (an archived automation that broke
    since reads ``broken`` when loaded, but is still archived)."""
    if status == "archived":
        raise Conflict("archived", f"{title} is archived; unarchive it first "
                       f"(errands unarchive {automation_id[:8]})")


def kept_in_place(doc: Any, old: Definition | None) -> Any:
    """An edited definition that does not say where it runs runs where it did: a form or
    a document that knows nothing of machines never moves an automation to another; to
    let one run anywhere, say ``"runs_on": "any"``."""
    if isinstance(doc, dict) and "runs_on" not in doc and old is not None \
            and old.runs_on != ANY_MACHINE:
        return {**doc, "runs_on": old.runs_on}
    return doc


def fingerprint(doc: Any) -> str:
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()


class Catalog:
    def __init__(self, store: Store, clock: Clock = utcnow) -> None:
        self.store = store
        self.clock = clock

    def parse_context(self, now: datetime, previous: Definition | None = None) -> ParseContext:
        settings = self.store.settings()
        return ParseContext(now=now, min_interval=settings.min_interval, previous=previous)

    def validate(self, doc: Any, now: datetime, previous: Definition | None = None) -> Definition:
        """Parse, then ask git whether a worktree automation's workdir is in a repository
        when that is new (a create, or an edit that turns ``worktree`` on or moves the
        workdir): a stored definition loads without git, and an unrelated edit of one whose
        repository has gone is not refused (its runs say what is wrong)."""
        definition = parse_definition(doc, self.parse_context(now, previous))
        if definition.worktree and definition.workdir is not None and (
                previous is None or not previous.worktree
                or previous.workdir != definition.workdir):
            check_repository(definition.workdir)
        self._check_followed(definition, previous)
        return definition

    def _check_followed(self, definition: Definition, previous: Definition | None) -> None:
        """An ``automation`` trigger names one that exists (when it is new: one that was
        deleted since leaves a trigger that never fires, not a definition that fails)."""
        known = {m.trigger.automation for m in members_of(previous.trigger)
                 if isinstance(m.trigger, AutomationTrigger)} if previous else set()
        folders = {m.trigger.path for m in members_of(previous.trigger)
                   if isinstance(m.trigger, FolderTrigger)} if previous else set()
        accounts = {m.trigger.account for m in members_of(previous.trigger)
                    if isinstance(m.trigger, MailTrigger)} if previous else set()
        for i, member in enumerate(members_of(definition.trigger)):
            trigger = member.trigger
            where = (f"triggers[{i}]" if isinstance(definition.trigger, TriggerSet)
                     else "trigger")
            if isinstance(trigger, MailTrigger) and trigger.account not in accounts and \
                    trigger.account not in {a.name for a in self.store.mail_accounts()}:
                raise InvalidInput(f"{where}.account", f"no mail account is named "
                                   f"{trigger.account!r}", "the name of a mail account "
                                   "(errands mail list)", "work", reason="no_account")
            if isinstance(trigger, FolderTrigger) and trigger.path not in folders \
                    and not os.path.isdir(trigger.path):
                raise InvalidInput(f"{where}.path", f"{trigger.path} is not a folder",
                                   "an existing folder", "/home/me/Downloads",
                                   reason="not_found")
            if not isinstance(trigger, AutomationTrigger) or trigger.automation in known:
                continue
            try:
                self.store.get(trigger.automation)
            except NotFound:
                raise InvalidInput(f"{where}.automation", f"no automation has the id {trigger.automation!r}",
                                   "the full id of an existing automation (errands list)",
                                   "3f2a9c1e-…", reason="not_found") from None

    def create(self, doc: Any, *, request_id: str | None = None, actor: str = "user",
               made_on: str | None = None) -> tuple[Automation, bool]:
        """Create from a definition document. The same ``request_id`` with the same document
        returns the existing automation unchanged; with another document it is refused. On
        a shared catalogue a command or folder-bound one is bound to the machine it is made
        on (``made_on``, else this one) unless it says where it runs (``bind_to``)."""
        if request_id is not None:
            check_request_id(request_id)
        if self.store.dialect != "sqlite":
            doc = bind_to(doc, made_on or self.store.machine)
        fp = fingerprint(doc)
        if request_id is not None:
            found = self.store.find_by_request(request_id)
            if found is not None:
                existing, existing_fp = found
                if existing_fp != fp:
                    raise Conflict("identity_conflict", f"request id {request_id!r} was already "
                                   f"used to create {existing.id} with a different definition")
                return existing, False
        now = self.clock().replace(microsecond=0)  # one reading, whole seconds: a grid
        # that starts now fires now, and reads "from 12:39:31", not "12:39:31.231085"
        definition = self.validate(doc, now)
        nxt = None if definition.paused else first_fire(definition, now)
        created = self.store.insert_automation(definition, now=now, next_fire_at=nxt,
                                               request_id=request_id, fingerprint=fp, actor=actor)
        return created, True

    def revise(self, automation_id: str, doc: Any, *, actor: str = "user",
               expected_revision: int | None = None) -> tuple[Automation, bool]:
        """Replace the definition with ``doc`` (one that does not say where it runs keeps
        its machine: ``kept_in_place``); a document equal to the current one changes
        nothing and makes no revision. A broken automation is repaired this way: it is then
        armed afresh from now, as after a schedule change. With ``expected_revision``, an
        edit made from an older revision (someone else changed it since) is refused."""
        current = self.store.get(automation_id)
        refuse_archived(current.id, current.title, current.status)
        if expected_revision is not None and current.revision != expected_revision:
            raise stale(current, expected_revision)
        old = current.definition
        doc = kept_in_place(doc, old)
        now = self.clock().replace(microsecond=0)
        definition = self.validate(doc, now, previous=old)
        unchanged = old is not None and canonical_json(definition.to_dict()) == canonical_json(
            old.to_dict())
        if unchanged:
            return current, False
        with self.store.transaction() as s:
            row = self.store.get_in(s, automation_id)
            refuse_archived(row.id, row.title, row.status)  # (one that broke since, too)
            if row.revision != current.revision:
                if expected_revision is not None:
                    raise stale(current, expected_revision, row.revision)
                raise Conflict("stale_revision", "the automation changed while it was being "
                               "edited; show it again and repeat the edit")
            mend_instants(row, now)  # a repair also replaces timestamps that do not read
            schedule_changed = (old is None or definition.trigger != old.trigger
                                or definition.stop != old.stop)
            was_active = row.status == "active"
            was_paused = row.status == "paused" if old is None else old.paused
            self.store.revise_in(s, row, definition, now=now, actor=actor,
                                 action="revised" if old is not None else "repaired",
                                 detail={"fields": _changed_fields(old, definition)})
            # a trigger removed takes its token and its state with it: one added back
            # later (the same id) starts afresh, with a new token shown once
            self.store.forget_triggers_in(s, row.id, {(m.id, m.trigger.kind)
                                                      for m in members_of(definition.trigger)})
            if schedule_changed and row.status == "completed":
                row.status = "active"  # a new schedule or stop rule brings it back
            row.status = _status(definition, row.status)
            if definition.paused != was_paused:
                row.paused_reason = None
                row.paused_at = now if definition.paused else None
            if row.status != "active":
                row.next_fire_at = None
            elif not was_active and not schedule_changed:  # resumed by the edit
                row.next_fire_at = _resume_fire(definition, now, row.last_finished_at)
                self.store.read_automation_attention_in(s, row.id, "unattended")
                self._missed_one_shot_in(s, row, definition, now)
            elif schedule_changed or row.next_fire_at is None:
                row.next_fire_at = first_fire(definition, now, row.last_finished_at)
            return automation_record(row), True

    def set_paused(self, automation_id: str, paused: bool, *, actor: str = "user",
                   reason: str | None = None) -> Automation:
        """Pause stops automatic fires; resume re-arms from the next future fire and never
        catches up the time spent paused (a one-shot whose instant passed meanwhile: see
        ``_missed_one_shot_in``)."""
        return self.change_paused(automation_id, paused, actor=actor, reason=reason)[0]

    def change_paused(self, automation_id: str, paused: bool, *, actor: str = "user",
                      reason: str | None = None) -> tuple[Automation, Run | None]:
        """``set_paused``, and the skipped record a resume wrote (None when it wrote none)."""
        now = self.clock()
        with self.store.transaction() as s:
            row = self.store.get_in(s, automation_id)
            automation = automation_record(row)
            refuse_archived(row.id, row.title, row.status)
            refuse_broken(automation)
            current = automation.definition
            assert current is not None  # refuse_broken let only a loaded one through
            if not paused and row.status == "completed":
                raise Conflict("completed", "this automation has completed; edit its schedule "
                               "or stop rule to run it again")
            if current.paused == paused:
                return automation_record(row), None
            definition = replace(current, paused=paused)
            self.store.revise_in(s, row, definition, now=now, actor=actor,
                                 action="paused" if paused else "resumed",
                                 detail={"reason": reason} if reason else None)
            row.status = _status(definition, row.status)
            row.paused_reason = reason if paused else None
            row.paused_at = now if paused else None
            if paused:
                row.next_fire_at = None
            else:
                row.failure_streak = 0  # a fresh start: an auto-pause must not re-trigger at once
                row.next_fire_at = _resume_fire(definition, now, row.last_finished_at)
                # a person looked: the unattended pause's item is answered (and its streak
                # starts afresh, the resume being in the audit trail)
                self.store.read_automation_attention_in(s, row.id, "unattended")
                missed = self._missed_one_shot_in(s, row, definition, now)
                return automation_record(row), missed
            return automation_record(row), None

    def _missed_one_shot_in(self, s: Session, row: AutomationRow, definition: Definition,
                            now: datetime) -> Run | None:
        """A one-shot made active again (a resume) after its instant passed while it was
        paused: its fire is accounted for now. It is recorded as skipped
        (``automation_paused``) and the automation completes, unless ``misfire: run_once``
        says to run it: then it goes as a fire missed while Errands was closed would
        (``fires.plan_fires``: on time within ``grace``, else once as a catch-up while
        younger than ``catch_up_max_age``, else skipped as ``past_catch_up_age``); one that
        runs is left due (the cursor on its instant) for the engine's timer to claim. A fire
        already claimed (it ran before the pause) is left alone, as is one still ahead."""
        trigger = definition.trigger
        if not isinstance(trigger, AtTrigger) or row.status != "active" \
                or row.next_fire_at is not None or trigger.at > now:
            return None
        at = trigger.at
        slot = _slot_key(at)
        if self.store.slot_taken_in(s, row.id, slot) is not None:
            return None
        reason = MISSED_WHILE_PAUSED
        if definition.misfire == "run_once":
            plan = plan_fires(definition, Window(1, at, at, None), now,
                              jitter_offset(row.id, definition.policy.jitter),
                              self.store.settings().grace, reason)
            if plan.run_at is not None:
                row.next_fire_at = at  # due now: the timer claims it as it claims missed fires
                return None
            reason = plan.skip_reason or reason
        run = self.store.insert_run_in(s, row, slot=slot, trigger="schedule", state="skipped",
                                       now=now, scheduled_for=at, skip_reason=reason,
                                       missed_count=1, missed_first=at, missed_last=at,
                                       finished_at=now)
        why = (f"its fire at {format_instant(at)} was missed while it was paused"
               + (", too long ago to catch up" if reason == "past_catch_up_age" else ""))
        row.status = "completed"
        row.next_fire_at = None
        row.updated_at = now
        self.store.audit_in(s, row.id, "completed", row.revision, "engine", now,
                            {"reason": why})
        return run_record(run)  # type: ignore[arg-type]

    def set_archived(self, automation_id: str, archived: bool, *,
                     actor: str = "user") -> tuple[Automation, bool]:
        """Archive: the automation stops for good (status ``archived``, no next fire) and
        keeps everything it has; its definition is not touched, so no revision is made.
        Unarchive: it comes back paused (a person resumes it, which re-arms it from then on),
        or completed if it had completed before it was archived. An automation that was
        active when archived is paused in its definition as it comes back: that revision
        is the only one either makes. Archiving an archived automation, or unarchiving one
        that is not, changes nothing (``False``). Both are in the audit trail."""
        now = self.clock()
        with self.store.transaction() as s:
            row = self.store.get_in(s, automation_id)
            if (row.status == "archived") == archived:
                return automation_record(row), False
            if archived:
                refuse_broken(automation_record(row))  # (it would still read broken: repair it)
                self.store.audit_in(s, row.id, "archived", row.revision, actor, now,
                                    {"status": row.status})
                row.status = "archived"
                row.next_fire_at = None
                row.updated_at = now
                return automation_record(row), True
            before = self.store.archived_from_in(s, row.id)
            definition, _problem = row_definition(row)
            row.next_fire_at = None  # paused or completed: a resume re-arms it from then on
            row.updated_at = now
            if before == "completed":
                row.status = "completed"
            else:
                row.status = "paused"
            if row.status == "paused" and definition is not None and not definition.paused:
                row.paused_reason, row.paused_at = None, now
                self.store.revise_in(s, row, replace(definition, paused=True), now=now,
                                     actor=actor, action="unarchived",
                                     detail={"status": row.status})
            else:
                self.store.audit_in(s, row.id, "unarchived", row.revision, actor, now,
                                    {"status": row.status})
            return automation_record(row), True

    def delete(self, automation_id: str, *, actor: str = "user") -> dict[str, int]:
        """Delete the definition and its ledger; what was destroyed, counted (``runs``,
        ``transcripts``, ``revisions``)."""
        with self.store.transaction() as s:
            return self.store.delete_in(s, automation_id, now=self.clock(), actor=actor)


def _resume_fire(definition: Definition, now: datetime,
                 last_finished: datetime | None) -> datetime | None:
    trigger = definition.trigger
    if isinstance(trigger, AfterTrigger) and last_finished is not None:
        return max(last_finished + trigger.interval, now + trigger.interval)
    return first_fire(definition, now, last_finished)


def _status(definition: Definition, current: str) -> str:
    if current == "completed":
        return "completed"
    return "paused" if definition.paused else "active"


def _changed_fields(old: Definition | None, new: Definition) -> list[str]:
    a, b = ({} if old is None else old.to_dict()), new.to_dict()
    return sorted(k for k in b if a.get(k) != b.get(k))


def stale(current: Automation, expected: int, now: int | None = None) -> Conflict:
    """The refusal of an edit made from revision ``expected`` of ``current``."""
    revision = current.revision if now is None else now
    return Conflict("stale_revision", f"{current.title} changed since you read it (revision "
                    f"{expected}, now {revision}); show it again (errands show "
                    f"{current.id[:8]}) and repeat the edit")
