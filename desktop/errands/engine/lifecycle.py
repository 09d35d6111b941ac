"""A run's life: start (attempts, retries with backoff), park with a blocker, resume with a
decision, expire, and the one closing path that every end of a run goes through, followed
by the automation's accounting (:mod:`errands.engine.accounting`)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import datetime, timedelta
from collections.abc import Sequence
from typing import Any
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..actors import stopped_by
from ..db.schema import AutomationRow, BlockerRow, RunRow
from ..db.database import usual_waits
from ..definition import AtTrigger, Definition
from ..errors import Conflict, ErrandsError, NotFound
from ..paths import run_log_path, workspace_path
from ..schedule import jitter_offset
from ..records import ACTIVE_STATES, Automation, Blocker, Decision, Run, bounded
from ..store import _automation, _run
from ..timeutil import format_duration, format_instant
from .accounting import Counters, Ended, account, unattended
from .base import (
    ARCHIVED,
    PAUSED,
    RETRY_ADMISSION,
    SHUTDOWN_RUNNING,
    EngineBase,
    _attempt_open,
    _check_decision,
    _close_attempt,
    _failed,
    _slot_key,
    _tail,
)
from .folders import WAITING
from .fires import due_window
from .network import wait_for_network
from ..runners.processes import process_start_ticks, settle, terminate_group
from ..runners.contract import Outcome, Resume, RunContext, Runner
from .sessions import RunTranscript, session_for

log = logging.getLogger(__name__)


class _Ended(Exception):
    """The run was closed (a stop, an expiry) between being asked to start and starting."""

class Lifecycle(EngineBase):
    def _spawn(self, run_id: str, delay: float = 0.0, *, run: Run | str,
               resume: Resume | None = None) -> None:
        """Start a run's task; ``run`` is its record when the caller has it at hand, else
        its automation's id (the record is read off the loop as the task starts)."""
        self._task_automation[run_id] = run.automation_id if isinstance(run, Run) else run
        # in a context of its own: a run started by a command writes as the engine does,
        # not with the command's short wait for a lock (``api.COMMAND_BUSY_MS``)
        task = asyncio.get_running_loop().create_task(
            self._execute(run if isinstance(run, Run) else run_id, delay, resume),
            context=usual_waits())
        self._tasks[run_id] = task
        task.add_done_callback(lambda t, rid=run_id: self._task_ended(rid, t))

    def _task_ended(self, run_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(run_id) is task:
            del self._tasks[run_id]
        if run_id not in self._tasks:  # (not while a later task of it goes on: a resume)
            self._release_folder(run_id)  # one taken when it was admitted, if it never began
        if task.cancelled():  # cancelled before its first step: its own close never ran
            reason = self._cancel_reason.pop(run_id, "interrupted")
            why = self._cancel_why.pop(run_id, ("cancelled", stopped_by("user")))
            self._close(run_id, _failed(why if reason == "cancelled" else SHUTDOWN_RUNNING),
                        reason)

    async def _execute(self, run: Run | str, delay: float, resume: Resume | None = None) -> None:
        run_id = run.id if isinstance(run, Run) else run
        try:
            if not isinstance(run, Run):
                run = await self._read(self.store.get_run, run_id)
            if delay:
                await self.clock.sleep(delay)
            automation = self._current(run.automation_id)
            # A resumed run goes on as it was claimed: that revision's task and policies,
            # whatever was edited (or broke) meanwhile.
            claimed = (await self._read(self.store.definition_at, automation.id, run.revision)
                       if resume is not None and run.revision != automation.revision
                       else automation.definition)
            if claimed is None:
                await self._close(run_id, Outcome(state="failed", error_code="broken",
                                                  error_message=automation.problem or "broken"))
                return
            kind = claimed.runner.kind
            runner = self.runners.get(kind)
            if runner is None:
                await self._close(run_id, Outcome(state="failed", error_code="no_runner",
                                                  error_message=f"this Errands cannot run "
                                                  f"{kind} automations"))
                return
            if run.trigger == "catch_up" and runner.needs_network and self.network is not None \
                    and resume is None:
                bound = self.settings.get("network_wait").total_seconds()
                await wait_for_network(self.network, self.clock, bound)
            attempt = run.attempt
            resumed = resume is not None
            while True:
                cap = self._cap
                assert cap is not None
                # its folder first (held from here to the attempt's end), then a place under
                # the cap: nothing waits for a folder while it holds a place
                folder = self._folder_of(claimed if resumed else
                                         self._current(run.automation_id).definition,
                                         run.dry_run)
                try:
                    if folder is not None:
                        await self._hold_folder(run_id, run.automation_id, folder)
                    async with cap:
                        automation = self._current(run.automation_id)
                        ctx = await self._start_attempt(run, automation, attempt, resume,
                                                        claimed if resumed else None)
                        resume = None
                        outcome = await self._attempt(runner, ctx)
                finally:  # parked, waiting to retry or ended: it holds the folder no more
                    self._release_folder(run_id)
                archived = self._is_archived(run.automation_id)
                if outcome.state == "awaiting_input" and archived:  # nobody is to decide
                    ended = replace(outcome, state="failed", blocker=None,
                                    error_code=ARCHIVED[0], error_message=ARCHIVED[1])
                    if await settle(self._close(run_id, ended, "cancelled")) is not None:
                        self._cancel_reason.pop(run_id, None)
                        self._cancel_why.pop(run_id, None)
                    return
                if outcome.state == "awaiting_input":
                    await self._park(run_id, outcome)
                    return
                retry = (outcome.state == "failed" and not ctx.dry_run
                         and outcome.stop_reason is None
                         and attempt < ctx.definition.policy.retry.max_attempts
                         and not (self._is_paused(run.automation_id) and run.trigger != "manual")
                         and not archived)
                if not retry:
                    await self._close_ended(run_id, outcome)
                    return
                delay_td = ctx.definition.policy.retry.delay(attempt)
                await self._backoff(run_id, outcome, self.clock.now() + delay_td)
                await self.clock.sleep(delay_td.total_seconds())
                attempt += 1
        except asyncio.CancelledError:
            reason = self._cancel_reason.pop(run_id, "interrupted")
            why = self._cancel_why.pop(run_id, ("cancelled", stopped_by("user")))
            # the task ends with its close committed (a stop waiting for it reads the end)
            await settle(self._close(
                run_id, _failed(why if reason == "cancelled" else SHUTDOWN_RUNNING), reason))
        except NotFound:
            return  # the automation was deleted while this run waited
        except _Ended:  # closed before it could start: its slot is free again
            self._task_automation.pop(run_id, None)
            slot = self._slots.get(run.automation_id) if isinstance(run, Run) else None
            if slot is not None and slot.active == run_id:
                slot.active = None
        except Exception as exc:  # a runner bug fails the run, never the engine
            log.exception("run %s crashed", run_id)
            await settle(self._close(run_id, Outcome(
                state="failed", error_code="internal",
                error_message=f"{type(exc).__name__}: {exc}")))

    async def _attempt(self, runner: Runner, ctx: RunContext) -> Outcome:
        backstop = ctx.timeout.total_seconds() + 30
        try:  # a timeout scope, not wait_for: the runner starts in this task, at once
            async with asyncio.timeout(backstop):
                return await runner.run(ctx)
        except TimeoutError:
            return Outcome(state="failed", error_code="timeout",
                           error_message=f"no result within {format_duration(ctx.timeout)}")

    async def _start_attempt(self, run: Run, automation: Automation, attempt: int,
                             resume: Resume | None,
                             claimed: Definition | None = None) -> RunContext:
        """scheduled -> running. Starts asked for in one loop turn share one transaction."""
        run_id = run.id
        try:
            started: Run = await self._group.submit("start", (run_id, attempt,
                                                              self.clock.now()))
        except Conflict as exc:
            if exc.code == "ended":  # a stop or an expiry closed it before it could start
                raise _Ended(run_id) from exc
            raise
        self.events.publish("run_changed", automation_id=automation.id, run_id=run_id,
                            data={"state": "running", "attempt": attempt})
        d = claimed or automation.definition  # a resumed run's, as it was claimed
        workdir = Path(d.workdir) if d.workdir else workspace_path(self.data_dir, automation.id)

        def on_started(pid: int) -> None:  # committed with the other writes of this loop turn
            def unrecorded(exc: BaseException) -> None:  # a crash could orphan it: end it now
                log.error("could not record the process of run %s (%s); ending it", run_id, exc)
                terminate_group(pid, None, grace=0)  # our own child, started a moment ago

            self._group.post("pid", (run_id, pid), on_error=unrecorded)

        session_id, kind = session_for(d, automation.id, run_id, started.session_id)
        transcript = RunTranscript(self.store, self._group, self.clock.now,
                                   session_id=session_id, kind=kind, automation_id=automation.id,
                                   run_id=run_id, title=d.title,
                                   new=(started.session_id is None and attempt == 1
                                        and resume is None and session_id == f"r-{run_id}"),
                                   on_append=lambda: self.events.publish(
                                       "run_changed", automation_id=automation.id, run_id=run_id,
                                       data={"transcript": True}))
        return RunContext(automation_id=automation.id, run_id=run_id, run_index=started.index,
                          attempt=attempt, scheduled_for=started.scheduled_for, definition=d,
                          workdir=workdir,
                          log_path=run_log_path(self.data_dir, automation.id, run_id),
                          timeout=d.policy.timeout, dry_run=started.dry_run,
                          on_started=on_started, revision=started.revision,
                          session=transcript, resume=resume, services=self,  # type: ignore[arg-type]
                          data_dir=self.data_dir)

    async def _backoff(self, run_id: str, outcome: Outcome, retry_at: datetime) -> None:
        """running -> scheduled, until its next attempt."""
        now = self.clock.now()

        def write(s: Session) -> str:
            row = self.store.update_run_in(s, run_id, state="scheduled", retry_at=retry_at,
                                           pid=None, pid_started=None,
                                           error_code=outcome.error_code,
                                           error_message=outcome.error_message,
                                           output_tail=_tail(outcome.output_tail))
            row.attempts = _close_attempt(row.attempts, now, "failed", outcome)
            return row.automation_id

        def backed_off(automation_id: str) -> None:
            self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data={"state": "scheduled", "retry_at": format_instant(retry_at)})

        future = self._group.submit("call", write)
        interrupted = await settle(future)  # written whatever happens meanwhile, and said
        backed_off(future.result())
        if interrupted is not None:
            raise interrupted

    async def _park(self, run_id: str, outcome: Outcome) -> None:
        """running -> awaiting_input, with the blocker, until a decision or expiry."""
        now = self.clock.now()
        blocker = outcome.blocker or Blocker(
            kind="question", question=outcome.result or "The run needs your input to go on.")
        expires_at = now + self.settings.get("parked_expiry")
        slot = self._slots.get(self._task_automation.get(run_id, ""))
        title = slot.automation.title if slot is not None else None

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
            row.attempts = _close_attempt(row.attempts, now, "awaiting_input", outcome)
            automation_id = row.automation_id
            self.store.add_blocker_in(s, run_id, blocker, now=now, expires_at=expires_at)
            named = title or self.store.get_in(s, automation_id).title
            self.store.add_attention_in(
                s, kind="awaiting_input", now=now, automation_id=automation_id, run_id=run_id,
                title=f"{named} waits for you", body=blocker.summary())
            return automation_id

        def parked(automation_id: str) -> None:
            self._expiries[run_id] = expires_at
            self._kick()
            self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data={"state": "awaiting_input"})
            self.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)

        future = self._group.submit("call", write)
        interrupted = await settle(future)
        parked(future.result())
        if interrupted is not None:
            if self._cancel_reason.get(run_id) == "interrupted":  # a quit: it waits, parked,
                self._cancel_reason.pop(run_id, None)            # for the next start
                self._cancel_why.pop(run_id, None)
                return
            raise interrupted  # a stop: it ends here

    async def decide(self, run_id: str, decision: Decision, *, request_id: str | None = None,
                     actor: str = "user") -> Run:
        """Resume a parked run with a decision. Repeating a decision with the same
        ``request_id`` changes nothing and returns the run as it is now."""
        [outcome] = await self._decide_runs([run_id], decision, request_id, actor)
        if isinstance(outcome, ErrandsError):
            raise outcome
        return outcome

    async def decide_many(self, run_ids: Sequence[str], decision: Decision, *,
                          actor: str = "user") -> list[Run | ErrandsError]:
        """The same decision for several parked runs, committed at once (a hundred
        approvals cost one transaction, not a hundred). A run that cannot take it (not
        parked, a question approved) costs only itself: its refusal takes its place."""
        return await self._decide_runs(list(dict.fromkeys(run_ids)), decision, None, actor)

    async def _decide_runs(self, run_ids: list[str], decision: Decision,
                           request_id: str | None, actor: str) -> list[Run | ErrandsError]:
        now = self.clock.now()

        def write() -> tuple[list[Run | ErrandsError], list[tuple[Run, Blocker]]]:
            outcomes: list[Run | ErrandsError] = []
            resumed: list[tuple[Run, Blocker]] = []
            with self.store.transaction() as s:
                for run_id in run_ids:
                    try:
                        decided = self._decide_in(s, run_id, decision, request_id, actor, now)
                    except ErrandsError as exc:  # raised before this run changed anything
                        outcomes.append(exc)
                        continue
                    if isinstance(decided, Run):
                        outcomes.append(decided)  # decided before under this request id
                    else:
                        outcomes.append(decided[0])
                        resumed.append(decided)
            return outcomes, resumed

        outcomes, resumed = await self._write(write, then=lambda done: self._resume(
            done[1], decision))
        for record, asked in resumed:  # the runs go on first: a rule that cannot be saved
            if decision.kind == "approve_always" and not record.dry_run:  # costs only itself
                try:
                    await self._save_approval(record.automation_id, asked, decision, actor)
                except ErrandsError as exc:
                    log.warning("run %s was approved, but its rule could not be saved on "
                                "automation %s: %s", record.id, record.automation_id, exc)
        return outcomes

    def _resume(self, resumed: list[tuple[Run, Blocker]], decision: Decision) -> None:
        """After the decisions committed: the runs go on."""
        for record, asked in resumed:
            self._expiries.pop(record.id, None)
            slot = self._slots.get(record.automation_id)
            if slot is not None and not record.dry_run:
                slot.active = record.id
            self.events.publish("run_changed", automation_id=record.automation_id,
                                run_id=record.id,
                                data={"state": "scheduled", "decision": decision.kind})
            self.events.publish("attention_raised", automation_id=record.automation_id,
                                run_id=record.id, data={"read": "awaiting_input"})
            self._spawn(record.id, run=record, resume=Resume(asked, decision))

    def _decide_in(self, s: Session, run_id: str, decision: Decision, request_id: str | None,
                   actor: str, now: datetime) -> Run | tuple[Run, Blocker]:
        """One run's decision inside the caller's transaction: the run as it is (decided
        before under ``request_id``), or the run resumed and what it had asked. Refuses
        before changing anything."""
        row = self.store.get_row_in(s, run_id)
        if request_id is not None and s.scalars(select(BlockerRow.id).where(
                BlockerRow.run_id == run_id, BlockerRow.request_id == request_id)).first():
            return _run(row)
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
        _check_decision(asked, decision)
        blocker.decision = decision.to_dict()
        blocker.decided_at = now
        blocker.decided_by = actor
        blocker.request_id = request_id
        row.state = "scheduled"
        self.store.audit_in(s, row.automation_id, "decided", row.revision, actor, now,
                            {"run_id": run_id, "decision": decision.kind})
        self.store.read_attention_in(s, run_id=run_id, kind="awaiting_input")
        return _run(row), asked

    async def _save_approval(self, automation_id: str, asked: Blocker, decision: Decision,
                             actor: str) -> None:
        """"Always allow": the automation gets a rule (an edit, with a new revision), so its
        later runs do not ask again. The run that asked goes on under its own revision."""
        automation = self._current(automation_id)
        d = automation.definition
        runner = self.runners.get(d.runner.kind) if d is not None else None
        make = getattr(runner, "saved_rule", None)
        workdir = (Path(d.workdir) if d.workdir else workspace_path(self.data_dir, automation_id)
                   ) if d is not None else None
        rule = make(asked, decision, workdir) if make is not None else None
        if d is None or rule is None or rule in d.permissions.rules:
            return
        rules = (*d.permissions.rules, rule)
        revised = replace(d, permissions=replace(d.permissions, rules=rules))
        await self.revise(automation_id, revised.to_dict(), actor=actor)  # type: ignore[attr-defined]

    def _expire_due(self, now: datetime) -> None:
        for run_id, at in list(self._expiries.items()):
            if at <= now:
                waited = format_duration(self.settings.get("parked_expiry"))
                self._expiries.pop(run_id, None)  # (closing: not expired twice meanwhile)
                self._close(run_id, Outcome(state="failed", error_code="expired",
                                            stop_reason="approval_expired",
                                            error_message=f"nobody decided within {waited}"),
                            "expired", only_from="awaiting_input")  # (not one decided since)

    def _until_expiry(self, now: datetime) -> float | None:
        first = min(self._expiries.values(), default=None)
        return None if first is None else max(0.0, (first - now).total_seconds())

    def _close(self, run_id: str, outcome: Outcome, state: str | None = None, *,
               only_from: str | None = None, at: datetime | None = None,
               done: asyncio.Future[None] | None = None) -> asyncio.Future[None]:
        """The one way a run ends (success, failure, timeout, cancel or stop of a running,
        queued or parked run, expiry, shutdown): record it, then account for it. The
        write is queued for the writer thread (runs that end together share a commit);
        notices and memory follow once it committed, when the returned future ends. A
        close that cannot be written (the database locked for long, a full disk) is tried
        again every ``RETRY_ADMISSION`` seconds, so the automation is not left with a run
        that never ends; one still unwritten when Errands quits is ended by the next
        start's recovery. ``only_from``: close it only if it is still in that state when
        the write happens (an expiry, not a decided run)."""
        state = state or outcome.state
        at = at or self.clock.now()
        write = self._group.submit("close", (run_id, state, outcome, at, only_from))
        done = done or asyncio.get_running_loop().create_future()
        assert done is not None

        def committed(future: asyncio.Future[Any]) -> None:
            if future.cancelled() or future.exception() is not None:
                why = "cancelled" if future.cancelled() else future.exception()
                if not self._stopping:
                    log.warning("the end of run %s could not be recorded yet (%s); trying "
                                "again in %.0f s", run_id, why, RETRY_ADMISSION)
                    self._later(self._close_again(run_id, outcome, state, only_from, at, done))
                    return
                log.error("the end of run %s could not be recorded (%s); the next start "
                          "ends it as interrupted", run_id, why)
            else:
                try:
                    self._closed(run_id, state, future.result())
                except Exception:
                    log.exception("after run %s ended", run_id)
            if not done.done():
                done.set_result(None)

        write.add_done_callback(committed)
        return done

    async def _close_again(self, run_id: str, outcome: Outcome, state: str,
                           only_from: str | None, at: datetime,
                           done: asyncio.Future[None]) -> None:
        try:
            await self.clock.sleep(RETRY_ADMISSION)
        except asyncio.CancelledError:
            pass  # the engine stops: one last try, now
        self._close(run_id, outcome, state, only_from=only_from, at=at, done=done)

    def _later(self, coro: Any) -> None:
        """A task the engine keeps (a close tried again) until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _close_ended(self, run_id: str, outcome: Outcome) -> None:
        """``_close`` for a run its runner ended. The run has ended whatever happens
        meanwhile, so a cancel arriving now (a stop, a quit) lets the close complete and
        changes nothing."""
        if await settle(self._close(run_id, outcome)) is not None:
            self._cancel_reason.pop(run_id, None)
            self._cancel_why.pop(run_id, None)

    def _record_pids_in(self, s: Session, items: list[tuple[str, int]]) -> list[None]:
        """The pids of started children with their start times, on the writer thread:
        reading ``/proc/<pid>/stat`` of a child still in its exec waits for the exec to end
        (about 0.3 ms a child in a burst), which the loop must not spend."""
        return self.store.set_run_pids_in(
            s, [(run_id, pid, process_start_ticks(pid)) for run_id, pid in items])

    def _close_batch_in(self, s: Session,
                        items: list[tuple[str, str, Outcome, datetime, str | None]]
                        ) -> list[Any]:
        """Close many runs in one transaction: their rows and automations are read in two
        statements, and nothing is flushed until the commit (each ``get`` would otherwise
        flush every change made so far: quadratic in a burst)."""
        with s.no_autoflush:
            runs = {r.id: r for r in s.scalars(select(RunRow).where(
                RunRow.id.in_([item[0] for item in items])))}
            automation_ids = {r.automation_id for r in runs.values()}
            held = list(s.scalars(select(AutomationRow)  # held: the identity map is weak
                                  .where(AutomationRow.id.in_(automation_ids))))
            closed = [self._close_in(s, *item) for item in items]
            del held
            return closed

    def _closed(self, run_id: str, state: str,
                closed: tuple[str, list[str], Automation | None] | None) -> None:
        """After the close committed: notices, the slot, and a queued fire's turn."""
        self._task_automation.pop(run_id, None)
        self._expiries.pop(run_id, None)
        if closed is None:
            return
        automation_id, raised, snapshot = closed
        self.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": state})
        for _ in raised:
            self.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)
        slot = self._slots.get(automation_id)
        if slot is None:
            return
        if slot.active == run_id:
            slot.active = None
        if slot.queued == run_id:
            slot.queued = None
        self._refresh(automation_id, snapshot)
        self._want_prune(automation_id)  # its history may now be over its limit
        if slot.queued and slot.active is None and not self._stopping:
            queued, slot.queued = slot.queued, None
            if slot.automation.status != "active":  # paused meanwhile: its fire is dropped
                self._close(queued, _failed(ARCHIVED if slot.automation.status == "archived"
                                            else PAUSED), "cancelled")
            else:
                slot.active = queued
                self._spawn(queued, run=automation_id)

    def _close_in(self, s: Session, run_id: str, state: str, outcome: Outcome,
                  now: datetime, only_from: str | None = None
                  ) -> tuple[str, list[str], Automation | None] | None:
        """The run's final row and its automation's accounting, in the caller's transaction.
        None when the run is gone or already final (never closed twice), or not in
        ``only_from`` when that is given."""
        row = s.get(RunRow, run_id)
        if row is None or row.state not in ACTIVE_STATES or (
                only_from is not None and row.state != only_from):
            return None
        if row.state == "awaiting_input":  # nobody needs to answer it any more
            self.store.read_attention_in(s, run_id=run_id, kind="awaiting_input")
        row.state = state
        row.stop_reason = outcome.stop_reason or (
            "timeout" if outcome.error_code == "timeout" else state)
        row.finished_at = now
        row.retry_at = None
        row.pid = None
        row.pid_started = None
        row.result = bounded(outcome.result)
        row.error_code = outcome.error_code
        row.error_message = outcome.error_message
        row.output_tail = _tail(outcome.output_tail) or row.output_tail
        row.session_id = outcome.session_id or row.session_id
        if outcome.prompt_tokens is not None:
            row.prompt_tokens = outcome.prompt_tokens
            row.completion_tokens = outcome.completion_tokens
        if isinstance(row.details, dict) and WAITING in row.details:  # it waits no more
            row.details = {k: v for k, v in row.details.items() if k != WAITING} or None
        if outcome.details:
            row.details = {**(row.details if isinstance(row.details, dict) else {}),
                           **outcome.details}
        if _attempt_open(row.attempts):
            row.attempts = _close_attempt(row.attempts, now, state, outcome)
        a = s.get(AutomationRow, row.automation_id)
        if a is None:
            return row.automation_id, [], None
        raised = self._account_in(s, a, row, outcome, now)
        return row.automation_id, raised, _automation(a)

    def _account_in(self, s: Session, a: AutomationRow, run: RunRow, outcome: Outcome,
                    now: datetime) -> list[str]:
        """Apply what the run's end means for its automation (see ``accounting``)."""
        d = _automation(a).definition
        if run.dry_run:  # recorded, never counted
            return []
        a.last_finished_at = now
        if d is None:  # broken: a repair arms it afresh
            return []
        # only an expiry can make an automation unattended (any other end breaks the streak)
        since = (self.store.unanswered_since_in(s, a.id)
                 if run.state == "expired" and a.status == "active" else None)
        v = account(d, Counters(a.status, a.run_count, a.failure_streak, a.last_result,
                                a.next_fire_at, a.counted_runs or 0, since),
                    Ended(run.state, run.trigger, run.result,
                          f"{run.error_code}: {run.error_message}" if run.error_code else None,
                          tuple(outcome.notify), outcome.condition_met), now,
                    unattended_expiry=self.settings.get("unattended_expiry"))
        a.run_count, a.failure_streak, a.last_result = v.run_count, v.failure_streak, v.last_result
        a.counted_runs = v.counted_runs
        a.next_fire_at = v.next_fire_at
        if v.pause:
            self._pause_in(s, a, d, v.pause, now)
        if v.complete:
            self._complete_in(s, a, now, v.complete)
        for kind, title, body in v.attention:
            self.store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                                        automation_id=a.id, run_id=run.id)
        return [kind for kind, _, _ in v.attention]

    def _pause_in(self, s: Session, a: AutomationRow, d: Definition, why: str,
                  now: datetime) -> None:
        """The engine pauses an automation on its own (a failure streak, nobody answering its
        parked runs): a revision by ``engine`` that says why, until a person resumes it."""
        self.store.revise_in(s, a, replace(d, paused=True), now=now, actor="engine",
                             action="paused", detail={"reason": why})
        a.status, a.paused_reason, a.paused_at = "paused", why, now
        a.next_fire_at = None

    async def _pause_unattended(self, now: datetime) -> None:
        """At start: pause each automation whose parked runs went unanswered for
        ``unattended_expiry`` while Errands was closed (the line is checked at each expiry
        while it runs), with its one attention item."""
        expiry = self.settings.get("unattended_expiry")

        def one(s: Session, automation_id: str) -> Automation | None:
            a = s.get(AutomationRow, automation_id)
            d = _automation(a).definition if a is not None else None
            if a is None or d is None or a.status != "active":
                return None
            pause = unattended(d, self.store.unanswered_since_in(s, a.id), now, expiry)
            if pause is None:
                return None
            why, (kind, title, body) = pause
            ended = self._skip_missed_in(s, a, d, now)
            if ended is not None:  # that was its last fire: nothing is left to pause
                self._complete_in(s, a, now, ended)
            else:
                self._pause_in(s, a, d, why, now)
                self.store.add_attention_in(s, kind=kind, title=title, body=body, now=now,
                                            automation_id=a.id)
            return _automation(a)

        def write() -> list[Automation]:
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

        try:
            changed = await self._write(write)
        except Exception:  # (another program's lock, a full disk): the expiries check on
            log.exception("could not check for automations nobody attends to")
            return
        for automation in changed:
            slot = self._slots.get(automation.id)
            if slot is not None:
                slot.automation = automation
            self.events.publish("automation_changed", automation_id=automation.id,
                                data={"revision": automation.revision,
                                      "status": automation.status})
            self.events.publish("attention_raised", automation_id=automation.id)

    def _skip_missed_in(self, s: Session, a: AutomationRow, d: Definition,
                        now: datetime) -> str | None:
        """The fires an automation paused at start missed while Errands was closed, as the
        timer would have recorded them had it admitted them: one skipped record
        (``app_not_running``), none caught up. Why it is over when that was its last fire
        (a one-shot's, or its ``until`` passed), else None."""
        if a.next_fire_at is None:
            return None
        horizon = now - jitter_offset(a.id, d.policy.jitter)
        until = d.stop.until
        window = due_window(d.trigger, a.next_fire_at,
                            min(horizon, until - timedelta(microseconds=1)) if until else horizon)
        if window is not None:
            try:
                with s.begin_nested():  # (a slot recorded before is not recorded twice)
                    self.store.insert_run_in(
                        s, a, slot=_slot_key(window.last), trigger="schedule",
                        state="skipped", now=now, scheduled_for=window.last,
                        skip_reason="app_not_running", missed_count=window.count,
                        missed_first=window.first, missed_last=window.last, finished_at=now)
            except IntegrityError:
                pass
        if until is not None and now >= until:
            return "reached its end time"
        if window is not None and isinstance(d.trigger, AtTrigger):
            return "no further fires"
        return None

    def _cancel(self, run_id: str, why: tuple[str, str]) -> asyncio.Future[None] | None:
        """Cancel a run's task (it closes itself), or close a run no task executes (parked
        or queued): the close's future then. A queued run leaves its slot at once, so no
        run ending meanwhile starts it."""
        task = self._tasks.get(run_id)
        if task is not None and not task.done():
            self._cancel_reason[run_id] = "cancelled"
            self._cancel_why[run_id] = why
            task.cancel()
            return None
        slot = self._slots.get(self._task_automation.get(run_id, ""))
        for held in [slot] if slot is not None else self._slots.values():
            if held.queued == run_id:
                held.queued = None
                break
        return self._close(run_id, _failed(why), "cancelled")

    async def _cancel_and_wait(self, run_id: str, why: tuple[str, str]) -> None:
        task = self._tasks.get(run_id)
        closing = self._cancel(run_id, why)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        if closing is not None:
            await closing

    async def wait_run(self, run_id: str) -> Run:
        """Until the run is final (for ``run-now --wait``)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        # read off the loop: runs that end together would otherwise read in one turn
        return await self._read(self.store.get_run, run_id)
