"""The ledger: every transaction of a run's life, in one place beside the store.

Each method takes plain values, runs one transaction (or queues its write for the next
group commit on the writer thread, :mod:`.group_commit`) and hands back plain records:
no ORM row and no session leaves it. The engine decides what to write and takes in what
was written; the ledger decides how it is written. A second database (PostgreSQL, where a
claim is ``FOR UPDATE SKIP LOCKED``) is a matter of this package's SQL, not the engine's.

Run transitions: claimed (``admit``, ``claim_manual``), started (``start``, ``record_pid``),
backed off (``backoff``), parked (``park``), decided (``decide``), closed and accounted
(``close``), and recovered after a crash (``recover``). Automation changes the engine makes
on its own: ``pause_unattended``, ``flag_broken``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .. import history
from ..db.bulk import StaleCursor
from ..db.database import waiting_at_most
from ..db.schema import AutomationRow, BlockerRow, RunRow
from ..errors import Conflict, ErrandsError, InvalidInput, StoreError
from ..records import Automation, Blocker, Decision, Run
from ..runners.contract import Outcome
from ..runners.processes import children_of_runs, process_start_ticks
from ..store import Store, automation_record, row_definition, run_record
from ..timeutil import format_instant
from .accounting import unattended
from .admission import Admission, Due, Folders, Rules, admit
from .closing import (
    WAITING,
    Closed,
    close_attempt,
    close_in,
    complete_in,
    pause_in,
    skip_missed_in,
    tail,
)
from .follows import Followers, follow_in, no_followers
from .group_commit import GroupCommit

log = logging.getLogger(__name__)
T = TypeVar("T")
MESSAGE_DELAY = 0.003  # seconds a transcript line may wait to be committed with others
LOCK_PROBE_MS = 1000   # the writer thread's wait for another program's lock, per try


class Ledger:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.group = GroupCommit(store)
        self.unattended_expiry = timedelta(days=7)  # (the setting; ``configure``)
        self.followers: Followers = no_followers  # (the engine's index; read by the writer)
        self.reading = 0  # reads under way on worker threads
        # closes first: a stop asked for before a run's start committed wins over it (the
        # start then finds the run ended); nothing else needs an order between kinds
        self.group.register("close", self._close_batch_in)
        self.group.register("start", store.start_attempts_in)
        self.group.register("pid", self._record_pids_in)
        # an agent's transcript lines wait a moment: their commit then falls in the model's
        # answer time instead of between a reply and the next request
        self.group.register("message", store.append_messages_in, delay=MESSAGE_DELAY)
        # any other write, in order: fn(session) each
        self.group.register("call", lambda s, calls: [call(s) for call in calls])

    # ----------------------------------------------------------------- the writer

    def configure(self, unattended_expiry: timedelta) -> None:
        self.unattended_expiry = unattended_expiry

    @property
    def busy(self) -> bool:
        """Whether a write or a read is under way off the loop (a fake clock waits)."""
        return self.group.busy or self.reading > 0

    @property
    def waiting_for_lock(self) -> bool:
        return self.store.db.waiting_for_lock

    async def write(self, fn: Callable[[], T]) -> T:
        """``fn()`` (its own transactions, through the store or catalog) on the writer
        thread, after every write queued before it."""
        return await self.group.run(fn)

    async def read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """A read on a worker thread: a slow disk or a big answer never holds the loop."""
        self.reading += 1
        try:
            return await asyncio.to_thread(fn, *args, **kw)
        finally:
            self.reading -= 1

    def checkpoint(self) -> None:
        """A passive write-ahead-log checkpoint (on a worker), so a claim's commit soon
        after need not copy the log back."""
        self.store.checkpoint()

    @contextmanager
    def working(self) -> Iterator[None]:
        """Work of the engine's under way off the loop (a fake clock waits for it)."""
        self.reading += 1
        try:
            yield
        finally:
            self.reading -= 1

    def _call(self, fn: Callable[[Session], T]) -> asyncio.Future[T]:
        return self.group.submit("call", fn)

    def wait_until_free(self, stopping: Callable[[], bool]) -> None:
        """On the writer thread: until another program's write lock is free (or the engine
        stops, or another failure, which the next try reports)."""
        while not stopping():
            try:
                with waiting_at_most(LOCK_PROBE_MS), self.store.transaction():
                    return
            except StoreError as exc:
                if exc.code != "locked":
                    return
                time.sleep(0.01)  # (a refusal that did not wait: not a busy loop)

    # ------------------------------------------------------------ claims

    def admit(self, dues: list[Due], now: datetime, rules: Rules, folders: Folders,
              wait_ms: int) -> Admission:
        """Claim every due fire (or record why it is skipped) in one transaction, here on
        the loop after every queued write: the one synchronous write, so the claimed runs
        start in the same turn (see ``engine.timer``). Waits ``wait_ms`` at most for
        another program's lock."""
        if self.waiting_for_lock:  # the writer waits: so would this, on the loop
            raise StoreError("locked", "another program is writing to the database")
        try:  # fast path: one transaction, no savepoints
            with waiting_at_most(wait_ms), self._transaction() as s:
                found = admit(self.store, s, dues, now, rules, folders, careful=False)
        except (IntegrityError, StaleCursor) as exc:  # a slot claimed before, or memory behind
            log.debug("admitting one by one: %s", exc)
            with waiting_at_most(wait_ms), self._transaction() as s:
                found = admit(self.store, s, dues, now, rules, folders, careful=True)
        return found

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        self.group.drain()
        with self.store.transaction() as s:
            yield s

    def claim_manual(self, automation_id: str, run_id: str, request_id: str | None,
                     dry_run: bool, actor: str, now: datetime, slot: str
                     ) -> asyncio.Future[Run]:
        """A run by hand: its row (``slot`` unique: a repeated request id is refused) and
        the audit line."""
        def claim(s: Session) -> Run:
            row = self.store.get_in(s, automation_id)
            run_row = self.store.insert_run_in(
                s, row, slot=slot, trigger="manual", state="scheduled", now=now,
                scheduled_for=now, request_id=request_id, dry_run=dry_run, id=run_id)
            self.store.audit_in(s, automation_id, "run_requested", row.revision, actor, now,
                                {"run_id": run_row.id, "dry_run": dry_run})
            return run_record(run_row)

        return self._call(claim)

    @staticmethod
    def repeated(error: BaseException) -> bool:
        """Whether a claim was refused because its key was claimed before (a request id
        sent twice)."""
        return isinstance(error, IntegrityError)

    # --------------------------------------------------------- a run's life

    def start(self, run_id: str, attempt: int, now: datetime) -> asyncio.Future[Run]:
        """scheduled -> running (``Conflict('ended')`` when it was closed meanwhile)."""
        return self.group.submit("start", (run_id, attempt, now))

    def record_pid(self, run_id: str, pid: int,
                   on_error: Callable[[BaseException], None]) -> None:
        self.group.post("pid", (run_id, pid), on_error=on_error)

    def append_message(self, item: tuple[Any, ...]) -> None:
        self.group.post("message", item)

    def _record_pids_in(self, s: Session, items: list[tuple[str, int]]) -> list[None]:
        """The pids of started children with their start times, on the writer thread:
        reading ``/proc/<pid>/stat`` of a child still in its exec waits for the exec to end
        (about 0.3 ms a child in a burst), which the loop must not spend."""
        return self.store.set_run_pids_in(
            s, [(run_id, pid, process_start_ticks(pid)) for run_id, pid in items])

    def say_waiting(self, run_id: str, holder: dict[str, Any] | None) -> asyncio.Future[None]:
        """Record that a queued run waits for its folder (``holder``: who holds it), not
        once it has started or ended; or clear it (None)."""
        def write(s: Session) -> None:
            row = s.get(RunRow, run_id)
            if row is None:
                return
            details = dict(row.details) if isinstance(row.details, dict) else {}
            if holder is None:  # (whatever its state: its start may have committed first)
                if WAITING not in details:
                    return
                details.pop(WAITING)
            elif row.state != "scheduled":  # (started or ended meanwhile)
                return
            else:
                details[WAITING] = holder
            row.details = details or None

        return self._call(write)

    def _taken_over(self, s: Session, rows: Iterable[RunRow]) -> set[str]:
        """Those of these runs (going, or waiting for an attempt) that another machine's
        live engine runs now, on a shared catalogue: this engine lost them while it could
        not reach the catalogue, and the engine that took them over goes on with them. It
        writes nothing of them (a write of its own would undo that engine's)."""
        if self.store.dialect == "sqlite":
            return set()
        me = self.store.machine
        foreign = [r for r in rows if r.machine and r.machine != me
                   and r.state in ("running", "scheduled")]
        if not foreign:
            return set()
        from ..db.engine_hold import live_machines, session_fetch
        live = live_machines(session_fetch(s), {r.machine for r in foreign})
        return {r.id for r in foreign if r.machine in live}

    def backoff(self, run_id: str, outcome: Outcome, retry_at: datetime,
                now: datetime, allowed: int) -> asyncio.Future[str]:
        """running -> scheduled until ``retry_at``; the run's automation id. ``allowed``
        (the attempts its policy allows) is kept in its details, so the run says "2 of 3"
        by itself."""
        def write(s: Session) -> str:
            found = self.store.get_row_in(s, run_id)
            if self._taken_over(s, [found]):
                return found.automation_id  # (another engine goes on with it)
            row = self.store.update_run_in(s, run_id, state="scheduled", retry_at=retry_at,
                                           pid=None, pid_started=None,
                                           error_code=outcome.error_code,
                                           error_message=outcome.error_message,
                                           output_tail=tail(outcome.output_tail))
            row.attempts = close_attempt(row.attempts, now, "failed", outcome)
            row.details = {**(row.details if isinstance(row.details, dict) else {}),
                           "attempts_allowed": allowed}
            return row.automation_id

        return self._call(write)

    def park(self, run_id: str, outcome: Outcome, blocker: Blocker, now: datetime,
             expires_at: datetime, title: str | None) -> asyncio.Future[str]:
        """running -> awaiting_input, with its blocker and an attention item; the run's
        automation id."""
        def write(s: Session) -> str:
            row = self.store.get_row_in(s, run_id)
            row.state = "awaiting_input"
            row.session_id = outcome.session_id or row.session_id
            row.pid = row.pid_started = None
            if outcome.prompt_tokens is not None:
                row.prompt_tokens = outcome.prompt_tokens
                row.completion_tokens = outcome.completion_tokens
            if outcome.details:
                row.details = {**(row.details if isinstance(row.details, dict) else {}),
                               **outcome.details}
            row.attempts = close_attempt(row.attempts, now, "awaiting_input", outcome)
            automation_id = row.automation_id
            self.store.add_blocker_in(s, run_id, blocker, now=now, expires_at=expires_at)
            named = title or self.store.get_in(s, automation_id).title
            self.store.add_attention_in(
                s, kind="awaiting_input", now=now, automation_id=automation_id, run_id=run_id,
                title=f"{named} waits for you", body=blocker.summary())
            return automation_id

        return self._call(write)

    def decide(self, run_ids: Sequence[str], decision: Decision, request_id: str | None,
               actor: str, now: datetime
               ) -> tuple[list[Run | ErrandsError], list[tuple[Run, Blocker]]]:
        """Decisions for parked runs in one transaction (on the writer thread: through
        ``write``): per run, the run resumed and what it had asked, the run as it is (a
        repeat of ``request_id``) or the refusal, which costs only that run."""
        outcomes: list[Run | ErrandsError] = []
        resumed: list[tuple[Run, Blocker]] = []
        with self.store.transaction() as s:
            for run_id in run_ids:
                try:
                    decided = self.decide_in(s, run_id, decision, request_id, actor, now)
                except ErrandsError as exc:  # raised before this run changed anything
                    outcomes.append(exc)
                    continue
                if isinstance(decided, Run):
                    outcomes.append(decided)  # decided before under this request id
                else:
                    outcomes.append(decided[0])
                    resumed.append(decided)
        return outcomes, resumed

    def decide_in(self, s: Session, run_id: str, decision: Decision, request_id: str | None,
                  actor: str, now: datetime) -> Run | tuple[Run, Blocker]:
        """One run's decision: refuses before changing anything."""
        row = self.store.get_row_in(s, run_id)
        if request_id is not None and s.scalars(select(BlockerRow.id).where(
                BlockerRow.run_id == run_id, BlockerRow.request_id == request_id)).first():
            return run_record(row)
        blocker = self.store.open_blocker_in(s, run_id)
        if row.state != "awaiting_input" or blocker is None or blocker.decided_at is not None:
            raise Conflict("not_parked", f"run #{row.index} is not waiting for a decision "
                           f"(it is {row.state})")
        if blocker.expires_at is not None and blocker.expires_at <= now:
            # (whether an engine has closed it yet or not: a late answer never runs it)
            raise Conflict("expired", f"run #{row.index} waited for a decision until "
                           f"{format_instant(blocker.expires_at)} and has expired; it can no "
                           "longer be approved (run the automation again)")
        asked = Blocker(kind=blocker.kind, tool=blocker.tool,  # type: ignore[arg-type]
                        arguments=blocker.arguments, question=blocker.question,
                        choices=blocker.choices)
        check_decision(asked, decision)
        blocker.decision = decision.to_dict()
        blocker.decided_at = now
        blocker.decided_by = actor
        blocker.request_id = request_id
        row.state = "scheduled"
        self.store.audit_in(s, row.automation_id, "decided", row.revision, actor, now,
                            {"run_id": run_id, "decision": decision.kind})
        self.store.read_attention_in(s, run_id=run_id, kind="awaiting_input")
        return run_record(row), asked

    def close(self, run_id: str, state: str, outcome: Outcome, at: datetime,
              only_from: str | None) -> asyncio.Future[Closed | None]:
        """The run's end and its automation's accounting, with the closes of the same loop
        turn; None when it was gone or already final (or not ``only_from``)."""
        return self.group.submit("close", (run_id, state, outcome, at, only_from))

    def _close_batch_in(self, s: Session,
                        items: list[tuple[str, str, Outcome, datetime, str | None]]
                        ) -> list[Closed | None]:
        """Close many runs in one transaction: their rows and automations are read in two
        statements, and nothing is flushed until the commit (each ``get`` would otherwise
        flush every change made so far: quadratic in a burst)."""
        with s.no_autoflush:
            runs = {r.id: r for r in s.scalars(select(RunRow).where(
                RunRow.id.in_([item[0] for item in items])))}
            automation_ids = {r.automation_id for r in runs.values()}
            held = list(s.scalars(select(AutomationRow)  # held: the identity map is weak
                                  .where(AutomationRow.id.in_(automation_ids))))
            taken = self._taken_over(s, runs.values())
            closed = [None if item[0] in taken else
                      close_in(self.store, s, *item, self.unattended_expiry) for item in items]
            for i, (item, done) in enumerate(zip(items, closed)):
                run = runs.get(item[0])
                if done is not None and run is not None and done.automation is not None:
                    followed = follow_in(s, run, done.automation.title, self.followers,
                                         item[3])
                    if followed:
                        closed[i] = replace(done, followed=followed)
            del held
            return closed

    # ------------------------------------------------------------ history

    def prune_runs(self, automation_id: str, before: Any) -> tuple[list[str], bool]:
        """On the writer thread: one batch of the automation's oldest ended runs deleted
        (``history.prune_runs``)."""
        return history.prune_runs(self.store, automation_id, before)

    def coalesce_skipped(self, automation_id: str, before: Any) -> tuple[int, bool]:
        """On the writer thread: one batch of old skipped-fire records merged into one
        (``history.coalesce_skipped``)."""
        return history.coalesce_skipped(self.store, automation_id, before)

    # ------------------------------------------------------------ notices

    def attention(self, *, kind: str, title: str, body: str, now: datetime,
                  automation_id: str | None, run_id: str | None) -> asyncio.Future[None]:
        """An attention item, queued with the engine's writes."""
        def write(s: Session) -> None:
            self.store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                                        automation_id=automation_id, run_id=run_id)

        return self._call(write)

    # -------------------------------------------------- the engine's own changes

    def recover(self, now: datetime, end: Callable[[int, Any], bool], outcome: Outcome,
                whose: Callable[[Session, set[str | None]], Callable[[str | None], bool]]
                | None = None) -> dict[int, tuple[str, str]]:
        """On the writer thread, at start: runs a dead engine left active become
        ``interrupted`` (``outcome``); ``end(pid, start ticks)`` is asked first to begin
        ending each one's child, and the children it began to end are returned
        (pid -> (automation, run)). Such a run keeps its child's pid until the child is
        known to have ended (``forget_pid``): an engine killed again before then leaves
        it to the next start, which ends it then (a child that ignores SIGTERM never
        outlives a chain of crashes). One damaged row costs that row, not the start.

        ``whose`` (a shared catalogue, where other machines' engines run too): given a
        transaction and the machines of the runs found, which machines' runs this engine
        ends (those of its own, and of
        machines whose engine is gone: asked in the transaction that ends them, so a run an
        engine starts meanwhile is never taken for a dead one's)."""
        with self.store.db.read() as s:
            groups = list(s.execute(select(
                RunRow.id, RunRow.pid, RunRow.pid_started, RunRow.automation_id,
                RunRow.state, RunRow.machine).where(
                    or_(RunRow.state.in_(("running", "scheduled")), RunRow.pid.is_not(None)))))
        local = self.store.dialect == "sqlite"  # (a file's runs all ran on this machine)
        if whose is not None:
            with self.store.db.read() as s:
                ours = whose(s, {g[5] for g in groups})
            groups = [g for g in groups if ours(g[5])]

        def mine(machine: str | None) -> bool:
            """Whether the run's child ran here. Another machine's pid means nothing here:
            its run is ended as interrupted, and its child is left for that machine's
            next start, which ends it (the pid is kept for that)."""
            return local or machine is None or machine == self.store.machine

        ending = {pid: (automation_id, run_id)
                  for run_id, pid, started, automation_id, _, machine in groups
                  if isinstance(pid, int) and pid > 0 and mine(machine) and end(pid, started)}
        # a child whose pid never reached its row (the engine died between the spawn and
        # the pid's commit) is found by the run id it was given, and ended the same way
        found: dict[str, tuple[int, float | None]] = {}
        unrecorded = {run_id: automation_id
                      for run_id, pid, _, automation_id, state, machine in groups
                      if state in ("running", "scheduled") and not pid and mine(machine)}
        for run_id, pids in children_of_runs(set(unrecorded)).items():
            for pid in pids:
                ticks = process_start_ticks(pid)
                if end(pid, ticks):
                    log.warning("ending process group %s of run %s: its pid was never "
                                "recorded (the engine stopped as it started)", pid, run_id)
                    ending[pid] = (unrecorded[run_id], run_id)
                    found.setdefault(run_id, (pid, ticks))
        ended_runs = {run_id for _, run_id in ending.values()}
        with self.store.transaction() as s:
            if whose is not None:  # (asked again: those found gone may have come back)
                ours = whose(s, {g[5] for g in groups})
                groups = [g for g in groups if ours(g[5])]
            for run_id, pid, started, _, state, machine in groups:
                try:
                    with s.begin_nested():
                        if state in ("running", "scheduled") and not self._retry_in(
                                s, run_id, outcome, now):
                            close_in(self.store, s, run_id, "interrupted", outcome, now, None,
                                     self.unattended_expiry)  # (no attempt left, or never began)
                        row = s.get(RunRow, run_id)
                        if row is not None and run_id in ended_runs:
                            # until it has ended
                            row.pid, row.pid_started = found.get(run_id, (pid, started))
                        elif row is not None and not mine(machine):
                            row.pid, row.pid_started = pid, started  # for its own machine
                        elif row is not None and row.state not in ("running", "scheduled"):
                            row.pid = row.pid_started = None  # (gone already)
                except Exception:
                    log.exception("could not end run %s left by a previous engine", run_id)
        return ending

    def _retry_in(self, s: Session, run_id: str, outcome: Outcome, now: datetime) -> bool:
        """A run its engine's death cut short is retried as its policy says, as a failed
        attempt would be: one that was running with attempts left waits for its next one
        (``scheduled``, ``retry_at``); one already waiting to retry waits on. Whether it
        waits (the engine that runs its automation starts it then, ``Engine.hold``)."""
        try:
            with s.begin_nested():  # (a damaged row is closed instead, as it always was)
                return self._retry_row_in(s, run_id, outcome, now)
        except Exception as exc:
            log.info("run %s is closed, not retried: its row cannot be read (%s)", run_id, exc)
            return False

    def _retry_row_in(self, s: Session, run_id: str, outcome: Outcome, now: datetime) -> bool:
        row = s.get(RunRow, run_id)
        if row is None or row.dry_run:
            return False
        if row.state == "scheduled":
            return isinstance(row.retry_at, datetime)
        automation = s.get(AutomationRow, row.automation_id)
        d = row_definition(automation)[0] if automation is not None else None
        if row.state != "running" or d is None or row.attempt >= d.policy.retry.max_attempts \
                or (automation.status != "active" and row.trigger != "manual"):
            return False
        row.state, row.retry_at = "scheduled", now + d.policy.retry.delay(row.attempt)
        row.error_code, row.error_message = outcome.error_code, outcome.error_message
        row.attempts = close_attempt(row.attempts, now, "interrupted", outcome)
        row.details = {**(row.details if isinstance(row.details, dict) else {}),
                       "attempts_allowed": d.policy.retry.max_attempts}
        log.info("run %s was cut short by its engine's end: attempt %d of %d follows at %s",
                 run_id, row.attempt + 1, d.policy.retry.max_attempts,
                 format_instant(row.retry_at))
        return True

    def forget_pid(self, run_id: str) -> asyncio.Future[None]:
        """A dead engine's child of this (ended) run has ended: its pid is forgotten."""
        def write(s: Session) -> None:
            row = s.get(RunRow, run_id)
            if row is not None and (row.state not in ("running", "scheduled")
                                    or row.retry_at is not None):  # (ended, or waiting)
                row.pid = row.pid_started = None

        return self._call(write)

    def pause_unattended(self, now: datetime, expiry: timedelta,
                         mine: Callable[[Automation], bool] = lambda _: True
                         ) -> list[Automation]:
        """On the writer thread, at start: pause each automation whose parked runs went
        unanswered for ``expiry`` while Errands was closed, with its one attention item (its
        missed fires recorded as the timer would have). The automations changed."""
        def one(s: Session, automation_id: str) -> Automation | None:
            a = s.get(AutomationRow, automation_id)
            record = automation_record(a) if a is not None else None
            d = record.definition if record is not None else None
            if a is None or d is None or a.status != "active" or not mine(record):
                return None
            pause = unattended(d, self.store.unanswered_since_in(s, a.id), now, expiry)
            if pause is None:
                return None
            why, (kind, title, body) = pause
            ended = skip_missed_in(self.store, s, a, d, now)
            if ended is not None:  # that was its last fire: nothing is left to pause
                complete_in(self.store, s, a, now, ended)
            else:
                pause_in(self.store, s, a, d, why, now)
                self.store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                                            automation_id=a.id)
            return automation_record(a)

        paused = []
        with self.store.transaction() as s:
            for automation_id in self.store.unanswered_before_in(s, now - expiry):
                try:  # one damaged row costs that row, not the start
                    with s.begin_nested():
                        done = one(s, automation_id)
                except Exception:
                    log.exception("could not check automation %s for unanswered parked "
                                  "runs", automation_id)
                    continue
                if done is not None:
                    paused.append(done)
        return paused


def check_decision(blocker: Blocker, decision: Decision) -> None:
    """A decision must fit what was asked: approvals are approved or denied, questions
    answered (from the choices, when there are some) or declined."""
    if blocker.kind == "permission" and decision.kind == "answer":
        raise InvalidInput("decision", "this run asks for an approval, not an answer",
                           "approve_once, approve_always or deny", "approve_once")
    if blocker.kind == "question" and decision.kind in ("approve_once", "approve_always"):
        raise InvalidInput("decision", "this run asks a question; answer it or deny",
                           "answer (with text) or deny", "answer")
    if decision.kind == "answer":
        if not decision.text or not decision.text.strip():
            raise InvalidInput("text", "an answer needs text", "the answer, as text", "yes")
        if blocker.choices and decision.text not in blocker.choices:
            raise InvalidInput("text", f"{decision.text!r} is not one of the choices",
                               "one of " + ", ".join(map(repr, blocker.choices)),
                               blocker.choices[0])
