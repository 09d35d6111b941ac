"""A run's life: start (attempts, retries with backoff), park with a blocker, resume with a
decision, expire, and the one closing path that every end of a run goes through, followed
by the automation's accounting (:mod:`errands.ledger.accounting`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..actors import stopped_by
from ..db.database import usual_waits
from ..definition import Definition
from ..errors import Conflict, ErrandsError, NotFound
from ..ledger import Closed
from ..ledger.transcripts import RunTranscript, session_for
from ..paths import run_log_path, workspace_path
from ..records import Automation, Blocker, Decision, Run
from ..runners.contract import Outcome, Resume, RunContext, Runner
from ..runners.processes import await_termination, begin_termination, settle, terminate_group
from ..timeutil import format_duration, format_instant
from .base import (
    ARCHIVED,
    CRASHED,
    LEFTOVER_GRACE,
    PAUSED,
    REPLACED,
    RETRY_ADMISSION,
    SHUTDOWN,
    SHUTDOWN_RUNNING,
    CancelReason,
    failed,
)
from .network import wait_for_network
from .places import Places

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)


def mail_access(store: Any, data_dir: Path, d: Definition, fired: dict[str, Any]) -> Any:
    """The account an agent run's mail tools use: its mail trigger's, else the only one."""
    from ..mail.access import MailAccess
    from ..event_triggers import MailTrigger, members_of
    accounts = {a.name: a for a in store.mail_accounts()}
    named = [m.trigger.account for m in members_of(d.trigger) if isinstance(m.trigger, MailTrigger)]
    account, missing = None, ""
    if named:
        account = accounts.get(named[0])
        missing = f"the mail account {named[0]!r} is not set up (errands mail add)"
    elif len(accounts) == 1:
        account = next(iter(accounts.values()))
    else:
        missing = ("no mail account is set up (errands mail add)" if not accounts else
                   "several mail accounts are set up and this automation has no mail trigger "
                   "naming one")
    return MailAccess(account, data_dir, d.permissions.email_allowed_recipients,
                      from_mail=fired.get("kind") == "mail", missing=missing)


def _quiet(future: asyncio.Future[Any]) -> None:
    """A write nobody waits for: its failure is logged (the next start tries again)."""
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not record that a leftover process ended: %s", future.exception())


class _Ended(Exception):
    """The run was closed (a stop, an expiry) between being asked to start and starting."""


class Runs:
    """Every run under way: its task, why it was cancelled, when a parked one expires, the
    cap on how many run at once, and the closes being tried again."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.task_automation: dict[str, str] = {}      # run -> its automation
        self.cancel_reason: dict[str, CancelReason] = {}
        self.cancel_why: dict[str, tuple[str, str]] = {}
        self.expiries: dict[str, datetime] = {}        # parked run -> when it expires
        self.cap: Places | None = None                 # ``concurrency`` (``Engine.configure``)
        # runs started in their claim's commit -> the place taken for them then (None: the
        # cap was full, an edit having lowered it: such a run waits for a place, running)
        self.pledged: dict[str, Places | None] = {}
        self._retries: set[asyncio.Task[None]] = set()  # closes to try again (``close``)
        self._ending: dict[str, asyncio.Future[None]] = {}  # run -> its close, until accounted
        self._reaper: asyncio.Task[None] | None = None  # ends a dead engine's children

    async def ended(self, run_id: str, within: float = 2.0) -> None:
        """Wait (at most ``within`` seconds) for a close of ``run_id`` already under way to
        be accounted for: a run whose end is written but not yet let go of its slot is
        over for every reader, so a request arriving in that moment must not be told
        "busy"."""
        ending = self._ending.get(run_id)
        if ending is None:
            return
        try:
            async with asyncio.timeout(within):
                await asyncio.shield(ending)
        except TimeoutError:
            pass

    @property
    def busy(self) -> bool:
        """Whether a run is going (or waiting to start) now."""
        return any(not task.done() for task in self.tasks.values())

    def wait_on(self, run_ids: list[str], expiries: dict[str, datetime],
                now: datetime) -> None:
        """At start: runs parked before it wait on, until they expire (one parked before
        blockers were recorded gets the full wait from now)."""
        expiry = self.e.settings.get("parked_expiry")
        for run_id in run_ids:
            self.expiries[run_id] = expiries.get(run_id, now + expiry)

    def replace_runs_of(self, automation_id: str, keep: set[str]) -> None:
        """A fire with ``overlap: cancel_previous`` was admitted: the automation's runs
        under way (not those in ``keep``, just claimed) are cancelled."""
        for run_id, task in list(self.tasks.items()):
            if task.done() or run_id in keep:
                continue
            if self.task_automation.get(run_id) == automation_id:
                self.cancel_reason[run_id] = "cancelled"
                self.cancel_why[run_id] = REPLACED
                task.cancel()

    def retry_closes_now(self) -> None:
        """The engine stops: closes waiting to be tried again are tried now, once."""
        for retry in list(self._retries):
            retry.cancel()

    async def stop(self, grace: float) -> None:
        """Running work gets ``grace`` seconds, then is interrupted; queued fires that never
        started end as interrupted; a dead engine's children still in their grace are
        killed now rather than outlive this engine."""
        pending = [t for t in self.tasks.values() if not t.done()]
        if pending:
            everything = asyncio.ensure_future(asyncio.wait(pending))
            timer = asyncio.ensure_future(self.e.clock.sleep(grace))
            await asyncio.wait({everything, timer}, return_when=asyncio.FIRST_COMPLETED)
            timer.cancel()
            for run_id, task in list(self.tasks.items()):
                if not task.done():
                    self.cancel_reason[run_id] = "interrupted"
                    task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            everything.cancel()
        closing = [self.close(slot.queued, failed(SHUTDOWN), "interrupted")
                   for slot in list(self.e.slots.values()) if slot.queued]  # never started
        if closing:
            await asyncio.gather(*closing)
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)

    async def recover(self, now: datetime, *, sweep: bool = False) -> None:
        """Close what a dead engine left active, on the writer thread. Its children get
        SIGTERM first; waiting for them (SIGKILL after a grace) happens in the background,
        so a child that ignores SIGTERM delays nothing. On a shared catalogue: the runs of
        this machine's dead engine, and with the common work those of machines whose
        engine is gone; ``sweep`` (the common work's look while it runs): only the latter."""
        whose = self._whose(sweep)
        ending = await self.e.write(
            lambda: self.e.ledger.recover(now, begin_termination, failed(CRASHED), whose))
        if ending:
            log.info("ending %d process group(s) left by a previous engine", len(ending))
            # their folders are held until they have ended
            self.e.folders.note_leftovers({pid: a for pid, (a, _) in ending.items()})
            self._reaper = asyncio.get_running_loop().create_task(
                self._end_leftovers({pid: run_id for pid, (_, run_id) in ending.items()}))

    def _whose(self, sweep: bool) -> Any:
        if not self.e.fleet.shared:
            return None
        from ..db.engine_hold import live_machines, session_fetch

        me, common = self.e.fleet.machine, self.e.fleet.common

        def whose(s: Any, machines: set[str | None]) -> Callable[[str | None], bool]:
            live = live_machines(session_fetch(s), machines - {me}) if common else set()
            return lambda machine: (machine == me and not sweep) or (
                common and machine != me and (machine is None or machine not in live))

        return whose

    async def _end_leftovers(self, runs: dict[int, str]) -> None:
        """Wait for each child to end (SIGKILL after its grace), then forget its pid on
        its run: until then a crash of this engine leaves it to the next start."""
        pids = list(runs)

        async def end(pid: int) -> None:
            try:
                await await_termination(pid, LEFTOVER_GRACE)
            finally:  # (ended, or killed at once as the engine stops)
                self.e.folders.leftover_ended(pid)
                self.e.ledger.forget_pid(runs[pid]).add_done_callback(_quiet)

        results = await asyncio.gather(*(end(pid) for pid in pids), return_exceptions=True)
        for pid, result in zip(pids, results):
            if isinstance(result, Exception):  # never let cleanup take the engine down
                log.error("could not end the leftover process group %s: %s", pid, result)

    def places_free(self) -> int:
        """How many claimed runs may start in their claim's own commit (``ledger.admit``)."""
        return self.cap.free() if self.cap is not None else 0

    def spawn(self, run_id: str, delay: float = 0.0, *, run: Run | str,
               resume: Resume | None = None) -> None:
        """Start a run's task; ``run`` is its record when the caller has it at hand, else
        its automation's id (the record is read off the loop as the task starts). A run
        its claim already started (``run.state == "running"``) takes its place now."""
        if isinstance(run, Run) and run.state == "running" and resume is None:
            self.pledged[run_id] = (self.cap if self.cap is not None and self.cap.take_now()
                                    else None)
        self.task_automation[run_id] = run.automation_id if isinstance(run, Run) else run
        # in a context of its own: a run started by a command writes as the engine does,
        # not with the command's short wait for a lock (``api.COMMAND_BUSY_MS``)
        task = asyncio.get_running_loop().create_task(
            self._execute(run if isinstance(run, Run) else run_id, delay, resume),
            context=usual_waits())
        self.tasks[run_id] = task
        task.add_done_callback(lambda t, rid=run_id: self._task_ended(rid, t))

    def _why(self, run_id: str, reason: str) -> tuple[str, str]:
        """Why a cancelled task's run ended: what its cancel said, else a person's stop,
        or Errands quitting."""
        why = self.cancel_why.pop(run_id, None)
        if why is not None:
            return why
        return ("cancelled", stopped_by("user")) if reason == "cancelled" else SHUTDOWN_RUNNING

    def _task_ended(self, run_id: str, task: asyncio.Task[None]) -> None:
        pledged = self.pledged.pop(run_id, None)
        if pledged is not None:  # (ended before its attempt took the place)
            pledged.give_back()
        if self.tasks.get(run_id) is task:
            del self.tasks[run_id]
        if run_id not in self.tasks:  # (not while a later task of it goes on: a resume)
            self.e.folders.release(run_id)  # one taken when it was admitted, if it never began
        if task.cancelled():  # cancelled before its first step: its own close never ran
            reason = self.cancel_reason.pop(run_id, "interrupted")
            self.close(run_id, failed(self._why(run_id, reason)), reason)

    async def _execute(self, run: Run | str, delay: float, resume: Resume | None = None) -> None:
        run_id = run.id if isinstance(run, Run) else run
        try:
            if not isinstance(run, Run):
                run = await self.e.read(self.e.store.get_run, run_id)
            if delay:
                await self.e.clock.sleep(delay)
            automation = self.e.current(run.automation_id)
            # A resumed run goes on as it was claimed: that revision's task and policies,
            # whatever was edited (or broke) meanwhile.
            claimed = (await self.e.read(self.e.store.definition_at, automation.id, run.revision)
                       if resume is not None and run.revision != automation.revision
                       else automation.definition)
            if claimed is None:
                await self.close(run_id, Outcome(state="failed", error_code="broken",
                                                  error_message=automation.problem or "broken"))
                return
            kind = claimed.runner.kind
            runner = self.e.runners.get(kind)
            if runner is None:
                await self.close(run_id, Outcome(state="failed", error_code="no_runner",
                                                  error_message=f"this Errands cannot run "
                                                  f"{kind} automations"))
                return
            if run.trigger == "catch_up" and runner.needs_network and self.e.network is not None \
                    and resume is None:
                bound = self.e.settings.get("network_wait").total_seconds()
                await wait_for_network(self.e.network, self.e.clock, bound)
            # (a run a dead engine left waiting for its next attempt goes on with that one)
            attempt = run.attempt + (run.state == "scheduled" and run.retry_at is not None)
            resumed = resume is not None
            while True:
                cap = self.cap
                assert cap is not None
                # its folder first (held from here to the attempt's end), then a place under
                # the cap: nothing waits for a folder while it holds a place
                folder = self.e.folders.folder_of(claimed if resumed else
                                         self.e.current(run.automation_id).definition,
                                         run.dry_run)
                try:
                    if folder is not None:
                        await self.e.folders.hold(run_id, run.automation_id, folder)
                    started = run_id in self.pledged  # (its claim's commit made it running)
                    pledged = self.pledged.pop(run_id, None)
                    if pledged is None:
                        await cap.take()
                    try:
                        automation = self.e.current(run.automation_id)
                        ctx = await self._start_attempt(
                            run, automation, attempt, resume, claimed if resumed else None,
                            started=run if started else None)
                        resume = None
                        outcome = await self._attempt(runner, ctx)
                    finally:
                        (pledged or cap).give_back()
                finally:  # parked, waiting to retry or ended: it holds the folder no more
                    self.e.folders.release(run_id)
                archived = self.e.is_archived(run.automation_id)
                if outcome.state == "awaiting_input" and archived:  # nobody is to decide
                    ended = replace(outcome, state="failed", blocker=None,
                                    error_code=ARCHIVED[0], error_message=ARCHIVED[1])
                    if await settle(self.close(run_id, ended, "cancelled")) is not None:
                        self.cancel_reason.pop(run_id, None)
                        self.cancel_why.pop(run_id, None)
                    return
                if outcome.state == "awaiting_input":
                    await self._park(run_id, outcome)
                    return
                retry = (outcome.state == "failed" and not ctx.dry_run
                         and outcome.stop_reason is None
                         and attempt < ctx.definition.policy.retry.max_attempts
                         and not (self.e.is_paused(run.automation_id) and run.trigger != "manual")
                         and not archived)
                if not retry:
                    await self._close_ended(run_id, outcome)
                    return
                delay_td = ctx.definition.policy.retry.delay(attempt)
                await self._backoff(run_id, outcome, self.e.clock.now() + delay_td,
                                    ctx.definition.policy.retry.max_attempts)
                await self.e.clock.sleep(delay_td.total_seconds())
                attempt += 1
        except asyncio.CancelledError:
            reason = self.cancel_reason.pop(run_id, "interrupted")
            # the task ends with its close committed (a stop waiting for it reads the end)
            await settle(self.close(run_id, failed(self._why(run_id, reason)), reason))
        except NotFound:
            return  # the automation was deleted while this run waited
        except _Ended:  # closed before it could start: its slot is free again
            self.task_automation.pop(run_id, None)
            slot = self.e.slots.get(run.automation_id) if isinstance(run, Run) else None
            if slot is not None and slot.active == run_id:
                slot.active = None
        except Exception as exc:  # a runner bug fails the run, never the engine
            log.exception("run %s crashed", run_id)
            await settle(self.close(run_id, Outcome(
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
                             claimed: Definition | None = None, *,
                             started: Run | None = None) -> RunContext:
        """scheduled -> running. Starts asked for in one loop turn share one transaction;
        ``started``: a run its claim's commit already made running (one commit less
        before a burst's children spawn)."""
        run_id = run.id
        if started is None:
            try:
                started = await self.e.ledger.start(run_id, attempt, self.e.clock.now())
            except Conflict as exc:
                if exc.code == "ended":  # a stop or an expiry closed it before it could start
                    raise _Ended(run_id) from exc
                raise
        assert started is not None
        self.e.events.publish("run_changed", automation_id=automation.id, run_id=run_id,
                            data={"state": "running", "attempt": attempt})
        d = claimed or automation.definition  # a resumed run's, as it was claimed
        workdir = Path(d.workdir) if d.workdir else workspace_path(self.e.data_dir, automation.id)
        event = started.payload
        if isinstance(event, dict) and "artifact" in event:  # (stored as a file: read back)
            from ..event_artifacts import load
            event = await asyncio.to_thread(load, self.e.data_dir, event)
        mail = None
        if d.runner.kind in ("agent", "script"):  # (the mail tools' account: a read, off the loop)
            mail = await self.e.read(mail_access, self.e.store, self.e.data_dir, d,
                                     started.fired_by())

        def on_started(pid: int) -> None:  # committed with the other writes of this loop turn
            def unrecorded(exc: BaseException) -> None:  # a crash could orphan it: end it now
                log.error("could not record the process of run %s (%s); ending it", run_id, exc)
                terminate_group(pid, None, grace=0)  # our own child, started a moment ago

            self.e.ledger.record_pid(run_id, pid, unrecorded)

        session_id, kind = session_for(d, automation.id, run_id, started.session_id)
        transcript = RunTranscript(self.e.ledger, self.e.clock.now,
                                   session_id=session_id, kind=kind, automation_id=automation.id,
                                   run_id=run_id, title=d.title,
                                   new=(started.session_id is None and attempt == 1
                                        and resume is None and session_id == f"r-{run_id}"),
                                   on_append=lambda: self._transcript_grew(automation.id,
                                                                           run_id))
        return RunContext(automation_id=automation.id, run_id=run_id, run_index=started.index,
                          attempt=attempt, scheduled_for=started.scheduled_for, definition=d,
                          workdir=workdir,
                          log_path=run_log_path(self.e.data_dir, automation.id, run_id),
                          timeout=d.policy.timeout, dry_run=started.dry_run,
                          on_started=on_started, revision=started.revision,
                          session=transcript, resume=resume, services=self.e.services,  # type: ignore[arg-type]
                          data_dir=self.e.data_dir, on_output=self._live(run_id, attempt),
                          trigger=started.fired_by(), event=event, mail=mail)

    def _transcript_grew(self, automation_id: str, run_id: str) -> None:
        self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                              data={"transcript": True})
        stream = self.e.live.get(run_id)
        if stream is not None:
            stream.touch()   # a follower of the run reads its transcript again

    def _live(self, run_id: str, attempt: int) -> Callable[[bytes], None]:
        """Where the attempt's output goes as it is printed: the run's live stream (a
        retry's output follows the attempts before it, under a line that says so)."""
        stream = self.e.live.open(run_id)
        if attempt > 1 and stream.end:
            stream.add(f"\n--- attempt {attempt} ---\n".encode())
        return stream.add

    async def _backoff(self, run_id: str, outcome: Outcome, retry_at: datetime,
                       allowed: int) -> None:
        """running -> scheduled, until its next attempt."""
        now = self.e.clock.now()

        def backed_off(automation_id: str) -> None:
            self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data={"state": "scheduled", "retry_at": format_instant(retry_at)})

        future = self.e.ledger.backoff(run_id, outcome, retry_at, now, allowed)
        interrupted = await settle(future)  # written whatever happens meanwhile, and said
        backed_off(future.result())
        if interrupted is not None:
            raise interrupted

    async def _park(self, run_id: str, outcome: Outcome) -> None:
        """running -> awaiting_input, with the blocker, until a decision or expiry."""
        now = self.e.clock.now()
        blocker = outcome.blocker or Blocker(
            kind="question", question=outcome.result or "The run needs your input to go on.")
        expires_at = now + self.e.settings.get("parked_expiry")
        slot = self.e.slots.get(self.task_automation.get(run_id, ""))
        title = slot.automation.title if slot is not None else None

        def parked(automation_id: str) -> None:
            self.expiries[run_id] = expires_at
            self.e.timer.kick()
            self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                                data={"state": "awaiting_input"})
            self.e.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)

        future = self.e.ledger.park(run_id, outcome, blocker, now, expires_at, title)
        interrupted = await settle(future)
        parked(future.result())
        if interrupted is not None:
            if self.cancel_reason.get(run_id) == "interrupted":  # a quit: it waits, parked,
                self.cancel_reason.pop(run_id, None)            # for the next start
                self.cancel_why.pop(run_id, None)
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
        elsewhere = await self.e.fleet.refuse_runs_elsewhere(run_ids)
        if elsewhere:  # (those resume only on an engine that runs their automation)
            kept = [r for r in run_ids if r not in elsewhere]
            decided = iter(await self._decide_runs(kept, decision, request_id, actor)
                           if kept else [])
            return [elsewhere[r] if r in elsewhere else next(decided) for r in run_ids]
        now = self.e.clock.now()

        def write() -> tuple[list[Run | ErrandsError], list[tuple[Run, Blocker]]]:
            return self.e.ledger.decide(run_ids, decision, request_id, actor, now)

        outcomes, resumed = await self.e.write(write, then=lambda done: self._resume(
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
            self.expiries.pop(record.id, None)
            slot = self.e.slots.get(record.automation_id)
            if slot is not None and not record.dry_run:
                slot.active = record.id
            self.e.events.publish("run_changed", automation_id=record.automation_id,
                                run_id=record.id,
                                data={"state": "scheduled", "decision": decision.kind})
            self.e.events.publish("attention_raised", automation_id=record.automation_id,
                                run_id=record.id, data={"read": "awaiting_input"})
            self.spawn(record.id, run=record, resume=Resume(asked, decision))

    async def _save_approval(self, automation_id: str, asked: Blocker, decision: Decision,
                             actor: str) -> None:
        """"Always allow": the automation gets a rule (an edit, with a new revision), so its
        later runs do not ask again. The run that asked goes on under its own revision."""
        automation = self.e.current(automation_id)
        d = automation.definition
        runner = self.e.runners.get(d.runner.kind) if d is not None else None
        make = getattr(runner, "saved_rule", None)
        workdir = (Path(d.workdir) if d.workdir else workspace_path(self.e.data_dir, automation_id)
                   ) if d is not None else None
        rule = make(asked, decision, workdir) if make is not None else None
        if d is None or rule is None or rule in d.permissions.rules:
            return
        rules = (*d.permissions.rules, rule)
        revised = replace(d, permissions=replace(d.permissions, rules=rules))
        await self.e.commands.revise(automation_id, revised.to_dict(), actor=actor)  # type: ignore[attr-defined]

    def expire_due(self, now: datetime) -> None:
        for run_id, at in list(self.expiries.items()):
            if at <= now:
                waited = format_duration(self.e.settings.get("parked_expiry"))
                self.expiries.pop(run_id, None)  # (closing: not expired twice meanwhile)
                self.close(run_id, Outcome(state="failed", error_code="expired",
                                            stop_reason="approval_expired",
                                            error_message=f"nobody decided within {waited}"),
                            "expired", only_from="awaiting_input")  # (not one decided since)

    def until_expiry(self, now: datetime) -> float | None:
        first = min(self.expiries.values(), default=None)
        return None if first is None else max(0.0, (first - now).total_seconds())

    def close(self, run_id: str, outcome: Outcome, state: str | None = None, *,
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
        at = at or self.e.clock.now()
        write = self.e.ledger.close(run_id, state, outcome, at, only_from)
        done = done or asyncio.get_running_loop().create_future()
        assert done is not None
        self._ending[run_id] = done

        def committed(future: asyncio.Future[Any]) -> None:
            if future.cancelled() or future.exception() is not None:
                why = "cancelled" if future.cancelled() else future.exception()
                if not self.e.stopping:
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
            if self._ending.get(run_id) is done:
                del self._ending[run_id]

        write.add_done_callback(committed)
        return done

    async def _close_again(self, run_id: str, outcome: Outcome, state: str,
                           only_from: str | None, at: datetime,
                           done: asyncio.Future[None]) -> None:
        try:
            await self.e.clock.sleep(RETRY_ADMISSION)
        except asyncio.CancelledError:
            pass  # the engine stops: one last try, now
        self.close(run_id, outcome, state, only_from=only_from, at=at, done=done)

    def _later(self, coro: Any) -> None:
        """A task the engine keeps (a close tried again) until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _email_result(self, automation_id: str, run_id: str, d: Definition) -> None:
        """``policy.email_result``: the run's result to the user's own address; a failure to
        send is said in the inbox (the run itself stands)."""
        from ..mail.accounts import get_password
        from ..mail.smtp import SendError, send
        try:
            access = await self.e.read(mail_access, self.e.store, self.e.data_dir, d, {})
            run = await self.e.read(self.e.store.get_run, run_id)
            if access.account is None:
                raise SendError(access.missing)
            password = await asyncio.to_thread(get_password, self.e.data_dir,
                                               access.account.name)
            words = {"succeeded": "succeeded", "failed": "failed"}.get(run.state, run.state)
            body = (run.result or "") + (f"\n\nError: {run.error_message}"
                                         if run.error_message else "")
            await send(access.account, password, [access.account.address],
                       f"{d.title} {words} (run #{run.index})", body or "(no result)")
        except (SendError, ErrandsError, OSError) as exc:
            if self.e.stopping:
                return
            log.warning("could not email the result of run %s: %s", run_id, exc)
            self.e.ledger.attention(kind="email_failed", title=f"{d.title}: the result "
                                    "could not be emailed", body=str(exc),
                                    now=self.e.clock.now(), automation_id=automation_id,
                                    run_id=run_id)
            self.e.events.publish("attention_raised", automation_id=automation_id,
                                  run_id=run_id)

    async def _close_ended(self, run_id: str, outcome: Outcome) -> None:
        """``_close`` for a run its runner ended. The run has ended whatever happens
        meanwhile, so a cancel arriving now (a stop, a quit) lets the close complete and
        changes nothing."""
        if await settle(self.close(run_id, outcome)) is not None:
            self.cancel_reason.pop(run_id, None)
            self.cancel_why.pop(run_id, None)

    def _closed(self, run_id: str, state: str, closed: Closed | None) -> None:
        """After the close committed: notices, the slot, and a queued fire's turn."""
        self.task_automation.pop(run_id, None)
        self.expiries.pop(run_id, None)
        self.e.live.finish(run_id)
        if closed is None:
            return
        automation_id, raised, snapshot = closed.automation_id, closed.raised, closed.automation
        self.e.events.publish("run_changed", automation_id=automation_id, run_id=run_id,
                            data={"state": state})
        for _ in raised:
            self.e.events.publish("attention_raised", automation_id=automation_id, run_id=run_id)
        if closed.followed:
            self.e.sources.followed()
        d = snapshot.definition if snapshot is not None else None
        if d is not None and d.policy.email_result and state in ("succeeded", "failed"):
            self._later(self._email_result(automation_id, run_id, d))
        slot = self.e.slots.get(automation_id)
        if slot is None:
            return
        if slot.active == run_id:
            slot.active = None
        if slot.queued == run_id:
            slot.queued = None
        self.e.take_in(automation_id, snapshot)
        self.e.retention.want(automation_id)  # its history may now be over its limit
        if slot.queued and slot.active is None and not self.e.stopping:
            queued, slot.queued = slot.queued, None
            if slot.automation.status != "active":  # paused meanwhile: its fire is dropped
                self.close(queued, failed(ARCHIVED if slot.automation.status == "archived"
                                            else PAUSED), "cancelled")
            else:
                slot.active = queued
                self.spawn(queued, run=automation_id)

    async def pause_unattended(self, now: datetime) -> None:
        """At start: pause each automation whose parked runs went unanswered for
        ``unattended_expiry`` while Errands was closed (the line is checked at each expiry
        while it runs), with its one attention item."""
        expiry = self.e.settings.get("unattended_expiry")
        try:
            changed = await self.e.write(lambda: self.e.ledger.pause_unattended(
                now, expiry, self.e.fleet.fires_here))
        except Exception:  # (another program's lock, a full disk): the expiries check on
            log.exception("could not check for automations nobody attends to")
            return
        for automation in changed:
            slot = self.e.slots.get(automation.id)
            if slot is not None:
                slot.automation = automation
            self.e.events.publish("automation_changed", automation_id=automation.id,
                                  data={"revision": automation.revision,
                                        "status": automation.status})
            self.e.events.publish("attention_raised", automation_id=automation.id)

    def cancel(self, run_id: str, why: tuple[str, str], state: str = "cancelled"
               ) -> asyncio.Future[None] | None:
        """Cancel a run's task (it closes itself), or close a run no task executes (parked
        or queued): the close's future then. A queued run leaves its slot at once, so no
        run ending meanwhile starts it. ``state``: what it ends as (``interrupted``: not
        by anyone's hand)."""
        task = self.tasks.get(run_id)
        if task is not None and not task.done():
            self.cancel_reason[run_id] = state
            self.cancel_why[run_id] = why
            task.cancel()
            return None
        slot = self.e.slots.get(self.task_automation.get(run_id, ""))
        for held in [slot] if slot is not None else self.e.slots.values():
            if held.queued == run_id:
                held.queued = None
                break
        return self.close(run_id, failed(why), state)

    async def cancel_and_wait(self, run_id: str, why: tuple[str, str],
                              state: str = "cancelled") -> None:
        task = self.tasks.get(run_id)
        closing = self.cancel(run_id, why, state)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        if closing is not None:
            await closing

    async def wait_run(self, run_id: str) -> Run:
        """Until the run is final (for ``run-now --wait``)."""
        task = self.tasks.get(run_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)
        # read off the loop: runs that end together would otherwise read in one turn
        return await self.e.read(self.e.store.get_run, run_id)
