"""Admitting due fires: every due automation planned and recorded in one transaction that
also moves its durable cursor (``automations.next_fire_at``), so a replay after a crash,
or a second engine, never claims the same slot twice (the run's unique key refuses it).

The plan comes from what the caller knows (each automation as the engine holds it, its
active and queued run, who holds which folder) and is checked on write: the fast path
writes every cursor with a check of what it expected (``db.bulk.write_cursors``) and
inserts the claims in bulk; when that finds memory behind or a slot claimed before, the
careful path reads the rows and isolates each insert in a savepoint."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..db.bulk import Cursor, write_cursors
from ..db.schema import AutomationRow, PendingEventRow, RunRow
from ..definition import AfterTrigger, Definition, Trigger
from ..event_triggers import MAX_CASCADE, TriggerSet, members_of, waits_for_events
from ..fires import cursor_after, due_window, plan_fires
from ..records import Automation, Run
from ..schedule import firing_members, jitter_offset
from ..store import Claimed, Store, automation_record, run_record, run_from_values
from ..timeutil import format_instant
from .closing import complete_in, slot_key

FOLDER_BUSY = "folder_busy"  # the skip reason of a fire whose folder another run holds
CASCADE_LIMIT = "cascade_limit"  # of an event caused by runs more than MAX_CASCADE deep


def fired_by(trigger: Trigger, fire: datetime) -> dict[str, Any]:
    """Which of an automation's triggers a clock fire at ``fire`` is: its id and kind."""
    if not isinstance(trigger, TriggerSet):
        return {"id": trigger.kind, "kind": trigger.kind}
    ids = firing_members(trigger, fire) or [trigger.clock[0].id]
    member = trigger.member(ids[0])
    assert member is not None
    return {"id": member.id, "kind": member.trigger.kind}


@dataclass(frozen=True)
class Offer:
    """A fire a trigger source offers (not the clock: its fires come from the cursor):
    ``source`` fired the automation at ``at`` with ``payload``; ``key`` makes a second
    offer of the same event a no-op (its slot is ``event:<source>:<key>``)."""

    source: str
    key: str
    at: datetime
    payload: dict[str, Any] | None = None
    trigger_id: str | None = None   # the member of the automation's triggers that fired
    kind: str | None = None         # that trigger's kind
    depth: int = 0                  # how many runs caused this one (seed 003 "Cascades")
    chain: tuple[str, ...] = ()     # the automations of those runs, first cause first
    pending: int | None = None      # its ``pending_events`` row, deleted on admission
    state: dict[str, Any] | None = None  # the trigger's state once this event is taken in
    skip: str | None = None         # record it as a skipped fire with this reason

    @property
    def slot(self) -> str:
        return f"event:{self.source}:{self.key}"


@dataclass(frozen=True)
class Due:
    """A due automation as the engine holds it: the automation, its active run (running,
    parked or in backoff) and the one fire queued behind it; ``offer`` when a source
    other than the clock fired it."""

    automation: Automation
    active: str | None
    queued: str | None
    offer: Offer | None = None


class Folders(Protocol):
    """What admission asks of the engine's folder holds (``engine.folders``)."""

    def folder_of(self, d: Definition | None, dry_run: bool = False) -> str | None: ...

    def holder(self, key: str) -> str | None: ...


@dataclass
class Admission:
    """What one admission committed, for the engine to take in. The claimed runs and the
    changed automations become records when asked for (``runs``, ``automations``): a
    burst's notices go out first, and they are what must not wait."""

    started: list[tuple[Any, float]] = field(default_factory=list)  # run, delay to start
    cancels: list[str] = field(default_factory=list)   # automations whose run a fire replaced
    changed: list[Any] = field(default_factory=list)   # rows' cursors, or records
    placed: list[tuple[str, str, str]] = field(default_factory=list)  # automation, run, where
    reserving: dict[str, tuple[str, str]] = field(default_factory=dict)  # folder -> run, automation
    recorded: list[tuple[str, str]] = field(default_factory=list)  # automation, run: new rows
    # each offer's answer, (automation, slot) -> the run claimed, or why there is none
    offers: dict[tuple[str, str], Any] = field(default_factory=dict)
    held: dict[str, Automation] = field(default_factory=dict)  # as the engine held them
    _made: dict[str, Run] = field(default_factory=dict)

    def run(self, claimed: Any) -> Any:
        """A claimed run as a record (the bulk insert's values become one once)."""
        if not isinstance(claimed, Claimed):
            return claimed
        made = self._made.get(claimed.id)
        if made is None:
            made = self._made[claimed.id] = run_from_values(claimed.values)
        return made

    def runs(self) -> list[tuple[Run, float]]:
        """The runs to start, with the delay before each."""
        return [(self.run(run), delay) for run, delay in self.started]

    def automations(self) -> list[Automation]:
        """Each due automation as it now is."""
        return [c if isinstance(c, Automation) else replace(
            self.held[c.id], status=c.status, next_fire_at=c.next_fire_at,
            updated_at=c.updated_at or self.held[c.id].updated_at,
            last_index=c.last_index) for c in self.changed]

    def answer(self, key: tuple[str, str]) -> Run | str:
        """An offer's answer: the run claimed, or why there is none."""
        return self.run(self.offers.get(key, "not_admitted"))


@dataclass(frozen=True)
class Rules:
    """The settings and circumstances admission follows."""

    grace: timedelta
    stagger: float                 # seconds between catch-up starts (0: none)
    # why fires were missed: (the first of them, when the automation was created)
    missed_reason: Callable[[datetime, datetime | None], str]
    # how many claimed runs may start in the claim's own commit: places free under the
    # cap, taken in the same loop turn (``engine.places``)
    places: int = 0


class _Batch:
    def __init__(self, store: Store, s: Session, careful: bool, places: int) -> None:
        self.store, self.s, self.careful = store, s, careful
        self.bulk: list[dict[str, Any]] = []
        self.out = Admission()
        self.places = places
        self._stamp: str | None = None  # the batch's start instant, as attempts hold it

    def start(self, run: RunRow | Claimed, now: datetime, at_once: bool) -> Any:
        """The claimed run to start, as a record. One that starts at once (no delay, no
        folder or network to wait for, a place free) is made running in this very commit:
        a burst's children then spawn after one commit, not two. A crash before its child
        spawned ends it as interrupted, as it would a scheduled one."""
        if at_once and self.places > 0:
            self.places -= 1
            if self._stamp is None:  # (one instant for the batch: written out once)
                self._stamp = format_instant(now)
            values = {"state": "running", "attempt": 1, "started_at": now,
                      "machine": self.store.machine,
                      "attempts": [{"attempt": 1, "started_at": self._stamp}]}
            if isinstance(run, Claimed):
                run.values.update(values)
            else:
                for key, value in values.items():
                    setattr(run, key, value)
        return run if isinstance(run, Claimed) else run_record(run)

    def insert(self, row: Any, **values: Any) -> RunRow | Claimed | None:
        """Insert a run row. Careful mode isolates each insert in a savepoint so one slot
        claimed before (a replay) is passed over instead of failing the whole batch."""
        if not self.careful:
            run = self.store.insert_run_in(self.s, row, bulk=self.bulk, **values)
        else:
            index = row.last_index
            try:
                with self.s.begin_nested():
                    run = self.store.insert_run_in(self.s, row, **values)
            except IntegrityError:
                row.last_index = index
                return None  # already recorded: never twice
        self.out.recorded.append((row.id, run.id))
        return run

    def skip(self, row: Any, count: int, first: datetime | None, last: datetime | None,
             reason: str | None, now: datetime, offer: Offer | None = None) -> None:
        assert first is not None and last is not None
        extra = {} if offer is None else {"details": _event_details(offer)}
        self.insert(row, slot=offer.slot if offer else slot_key(last),
                    trigger="event" if offer else "schedule", state="skipped", now=now,
                    scheduled_for=last, skip_reason=reason, missed_count=count,
                    missed_first=first, missed_last=last, finished_at=now, **extra)

    def claim(self, row: Any, fire: datetime, now: datetime, catch_up: bool,
              window: Any, trigger: Trigger) -> RunRow | Claimed | None:
        """Claim the slot of ``fire``: the unique key refuses a second claim."""
        extra: dict[str, Any] = {"details": {"trigger": fired_by(trigger, fire)}}
        if catch_up:
            extra.update(missed_count=window.count, missed_first=window.first,
                         missed_last=window.last)
        return self.insert(row, slot=slot_key(fire),
                           trigger="catch_up" if catch_up else "schedule",
                           state="scheduled", now=now, scheduled_for=fire, **extra)

    def offered(self, due: Due, row: Any, d: Definition, now: datetime,
                folders: Folders) -> None:
        """An offered fire: claimed through the same rules as a clock fire (overlap, the
        folder, one claim per slot), the cursor left as it is."""
        offer = due.offer
        assert offer is not None
        if row.status != "active":
            self.out.offers[(row.id, offer.slot)] = f"automation_{row.status}"
            return
        if offer.trigger_id is not None and not any(
                m.id == offer.trigger_id and m.trigger.kind == offer.kind
                for m in members_of(d.trigger)):
            self.out.offers[(row.id, offer.slot)] = "no_trigger"  # (removed since)
            return
        if offer.state is not None and offer.trigger_id:
            # (a folder's snapshot, a mailbox's watermark: moved with the claim, so a crash
            # never takes the same event twice nor loses one)
            self.store.set_trigger_state_in(self.s, row.id, offer.trigger_id, offer.state, now)
        if offer.depth > MAX_CASCADE or offer.skip:
            self.skip(row, 1, offer.at, offer.at, offer.skip or CASCADE_LIMIT, now, offer)
            self.out.offers[(row.id, offer.slot)] = "skipped"
            return
        fire: datetime | None = offer.at
        busy = due.active is not None
        if busy:
            fire = self.overlap(due, row, d, offer.at, now, offer)
        folder = None if busy else folders.folder_of(d)
        waits_for_folder = busy and folders.folder_of(d) is not None
        if fire is not None and folder is not None:
            holder = folders.holder(folder)
            if holder is None and folder in self.out.reserving:
                holder = self.out.reserving[folder][1]
            if holder is not None:
                folder = None
                waits_for_folder = True
                if d.overlap == "skip" and holder != row.id:
                    self.skip(row, 1, fire, fire, FOLDER_BUSY, now, offer)
                    fire = None
        if fire is None:
            self.out.offers[(row.id, offer.slot)] = "skipped"
            return
        run = self.insert(row, slot=offer.slot, trigger="event", state="scheduled", now=now,
                          scheduled_for=fire, details=_event_details(offer))
        if run is None:
            self.out.offers[(row.id, offer.slot)] = "duplicate"
            return
        if folder is not None:
            self.out.reserving[folder] = (run.id, row.id)
        if not busy or row.id in self.out.cancels:
            self.out.placed.append((row.id, run.id, "active"))
            record = self.start(run, now, at_once=not waits_for_folder)
            self.out.started.append((record, 0.0))
        else:
            self.out.placed.append((row.id, run.id, "queued"))
            record = run if isinstance(run, Claimed) else run_record(run)
        self.out.offers[(row.id, offer.slot)] = record

    def overlap(self, due: Due, row: Any, d: Definition, fire: datetime,
                now: datetime, offer: Offer | None = None) -> datetime | None:
        """A fire while the previous run is active follows ``overlap``."""
        active = self.s.get(RunRow, due.active) if due.active else None
        parked = active is not None and active.state == "awaiting_input"
        reason = "previous_run_awaiting_input" if parked else "previous_run_active"
        if d.overlap == "cancel_previous" and not parked:
            self.out.cancels.append(row.id)
            return fire
        if d.overlap == "queue_one" and due.queued is None:
            return fire
        self.skip(row, 1, fire, fire, reason, now, offer)
        return None


def admit(store: Store, s: Session, dues: list[Due], now: datetime, rules: Rules,
          folders: Folders, *, careful: bool) -> Admission:
    """Plan and record every due automation in the caller's transaction."""
    b = _Batch(store, s, careful, rules.places)
    out = b.out
    changed: list[Any] = []
    catch_ups = 0
    rows: dict[str, AutomationRow] = {}
    if careful:
        ids = [due.automation.id for due in dues]
        for i in range(0, len(ids), 500):
            rows.update({r.id: r for r in s.scalars(select(AutomationRow).where(
                AutomationRow.id.in_(ids[i:i + 500])))})
    for due in dues:
        current = due.automation  # the engine is the only writer: usually current
        automation_id = current.id
        row: Any
        if careful:
            row = rows.get(automation_id)
        else:  # planned from memory, checked on write: a burst commits in milliseconds
            row = Cursor(current.id, current.status, current.next_fire_at, current.revision,
                         current.last_index)
        if due.offer is not None and due.offer.pending is not None:  # admitted: done with
            s.execute(delete(PendingEventRow).where(PendingEventRow.id == due.offer.pending))
        if due.offer is not None and row is not None:
            d = (current.definition if current.revision == row.revision
                 else automation_record(store.get_in(s, automation_id)).definition)
            if d is None:
                b.out.offers[(automation_id, due.offer.slot)] = "broken"
                continue
            changed.append(row)
            b.offered(due, row, d, now, folders)
            continue
        if row is None or row.status != "active" or row.next_fire_at is None:
            continue
        d = (current.definition if current.revision == row.revision
             else automation_record(store.get_in(s, automation_id)).definition)
        jitter = jitter_offset(automation_id, d.policy.jitter)
        horizon = now - jitter
        until = d.stop.until
        window = due_window(d.trigger, row.next_fire_at,
                            min(horizon, until - timedelta(microseconds=1)) if until else horizon)
        changed.append(row)
        if window is None:
            if until is not None and now >= until:
                row.next_fire_at = None
                if due.active is None:
                    complete_in(store, s, row, now, "reached its end time")
            continue
        plan = plan_fires(d, window, now, jitter, rules.grace,
                          rules.missed_reason(window.first, current.created_at))
        run_at = plan.run_at
        if plan.skipped_count:
            b.skip(row, plan.skipped_count, plan.skipped_first, plan.skipped_last,
                   plan.skip_reason, now)
        busy = due.active is not None
        if run_at is not None and busy:
            run_at = b.overlap(due, row, d, run_at, now)
        folder = None
        waits_for_folder = busy and folders.folder_of(d) is not None  # (cancel_previous)
        if run_at is not None and not busy:  # its folder: one lookup (``engine.folders``)
            folder = folders.folder_of(d)
            holder = None
            if folder is not None:
                holder = folders.holder(folder)
                if holder is None and folder in out.reserving:  # a claim of this batch
                    holder = out.reserving[folder][1]
            if holder is not None:
                folder = None  # not taken now: the run waits for it, or skips
                waits_for_folder = True
                if d.overlap == "skip" and holder != automation_id and not d.one_shot:
                    count, first, last = ((plan.window.count, plan.window.first,
                                           plan.window.last) if plan.catch_up
                                          else (1, run_at, run_at))
                    b.skip(row, count, first, last, FOLDER_BUSY, now)
                    run_at = None
        if run_at is not None:
            run = b.claim(row, run_at, now, plan.catch_up, plan.window, d.trigger)
            if run is not None:
                if folder is not None:  # held from its admission (after the commit)
                    out.reserving[folder] = (run.id, automation_id)
                if not busy or automation_id in out.cancels:
                    out.placed.append((automation_id, run.id, "active"))
                    delay = 0.0
                    if plan.catch_up and rules.stagger:
                        delay = catch_ups * rules.stagger
                        catch_ups += 1
                    # (a catch-up may wait for the network first: it starts as it goes)
                    at_once = not (plan.catch_up or waits_for_folder)
                    out.started.append((b.start(run, now, at_once), delay))
                    busy = True
                else:
                    out.placed.append((automation_id, run.id, "queued"))
        if isinstance(d.trigger, AfterTrigger) and run_at is None and not busy:
            row.next_fire_at = max(now, window.last) + d.trigger.interval
        else:
            row.next_fire_at = cursor_after(d, max(horizon, window.last))
        if row.next_fire_at is None and not busy and run_at is None \
                and not waits_for_events(d.trigger):
            complete_in(store, s, row, now, "no further fires")
    store.insert_bulk_in(s, b.bulk)
    if careful:
        out.changed = [automation_record(row) for row in changed]
    else:
        write_cursors(s, changed)
        out.changed = changed
        out.held = {due.automation.id: due.automation for due in dues}
    return out


def _event_details(offer: Offer) -> dict[str, Any]:
    event: dict[str, Any] = {"source": offer.source, "key": offer.key,
                             "payload": offer.payload}
    if offer.depth:
        event.update(depth=offer.depth, chain=list(offer.chain))
    details: dict[str, Any] = {"event": event}
    if offer.trigger_id is not None or offer.kind is not None:
        # (no id: a fire from outside its triggers, such as a script's runAutomation)
        details["trigger"] = {"id": offer.trigger_id, "kind": offer.kind}
    return details
