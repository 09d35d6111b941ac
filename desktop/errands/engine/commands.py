"""What clients ask of the engine (through :mod:`errands.engine.api`): create, revise, pause
and resume, archive and unarchive, run now, stop, delete, attention and settings.

Every command's storage work runs off the loop: its writes on the writer thread after the
writes queued before it (``_write``), its reads on a worker (``_read``). The engine's memory
follows on the loop once the write committed."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..actors import stopped_by
from ..catalog import refuse_archived, refuse_broken, stale
from ..errors import Conflict, InvalidInput, NotFound
from ..records import Automation, Run
from ..settings import Settings
from ..ledger import Ledger
from ..store import new_id
from .base import ARCHIVED, PAUSED, REPLACED, SHUTDOWN, Slot, failed
from ..runners.processes import settle

if TYPE_CHECKING:
    from .core import Engine


class Commands:
    """What clients ask; ``_claims`` holds the run-now claims being written,
    (automation, request id or run id) -> the run, so a repeat waits for the first."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine
        self._claims: dict[tuple[str, str], asyncio.Future[Run]] = {}

    async def settle(self) -> None:
        """The engine stops: run-now claims being written end (as interrupted)."""
        if self._claims:
            await asyncio.wait(list(self._claims.values()))  # (wait cancels none of them)

    async def check_script(self, doc: Any, previous: Any = None) -> None:
        """Compile ``doc``'s script when it is new or changed (``scripts.compile``)."""
        from ..scripts.compile import limits_of, refuse, to_check
        task = to_check(doc, previous)
        checker = self.e.runners.get("script")
        if task is not None and checker is not None:
            refuse(await checker.check(task.source, limits_of(task)))  # type: ignore[attr-defined]

    async def create(self, doc: Any, *, request_id: str | None = None,
                     actor: str = "user") -> tuple[Automation, bool]:
        from ..remote_requests import ASKING_MACHINE
        made_on = ASKING_MACHINE.get()  # (the catalogue binds it there, ``Catalog.create``)
        if isinstance(doc, dict) and isinstance(doc.get("runner"), dict) \
                and doc["runner"].get("kind") == "script":
            origin = doc.get("origin") if isinstance(doc.get("origin"), dict) else {}
            if actor.startswith(("agent:", "mcp:")) or origin.get("kind") in ("agent", "import"):
                doc = {**doc, "paused": True}  # a person reads it and enables it
            await self.check_script(doc)
        automation, created = await self.e.write(
            lambda: self.e.catalog.create(doc, request_id=request_id, actor=actor,
                                          made_on=made_on),
            then=lambda made: self.e.take_in(made[0].id, made[0]))
        return automation, created

    def bind_to_machine(self, doc: Any) -> Any:
        """``doc`` as ``create`` will make it (``definition.bind_to``, on a shared
        catalogue): where it runs is known before a request is sent to the engine that is
        to make it (``routing``)."""
        if not self.e.fleet.shared:
            return doc
        from ..definition import bind_to
        from ..remote_requests import ASKING_MACHINE
        return bind_to(doc, ASKING_MACHINE.get() or self.e.store.machine)

    async def import_document(self, doc: Any, *, dry_run: bool = False,
                              actor: str = "user") -> Any:
        """An export document (:mod:`errands.transfer`): every entry checked, then all new
        ones created in one transaction (none when ``dry_run``). The plan is the answer."""
        from ..transfer import apply_import, plan_import

        from ..remote_requests import ASKING_MACHINE
        made_on = ASKING_MACHINE.get()
        if dry_run:  # writes nothing: checked off the loop, so fires and requests go on
            await self.e.ledger.group.settled()
            return await self.e.read(plan_import, self.e.catalog, doc)

        def write() -> tuple[Any, list[Automation]]:
            plan = plan_import(self.e.catalog, doc)  # on the writer: what it finds it creates
            apply_import(self.e.catalog, plan, actor=actor, made_on=made_on)
            ids = [item.automation_id for item, _, _ in plan.creates]
            return plan, [self.e.store.get(i) for i in ids if i is not None]

        def take_in(done: tuple[Any, list[Automation]]) -> None:
            for automation in done[1]:
                self.e.take_in(automation.id, automation)

        plan, _ = await self.e.write(write, then=take_in)
        return plan

    async def revise(self, automation_id: str, doc: Any, *, actor: str = "user",
                     expected_revision: int | None = None) -> tuple[Automation, bool]:
        """Replace the definition. With ``expected_revision``, refuse when someone else
        changed it since the caller read it (a form open while the CLI edited)."""
        await self.e.ledger.group.settled()  # act on the store as it is, queued run starts included
        held = await self.e.slot(automation_id)
        current = held.automation
        if expected_revision is not None and current.revision != expected_revision:
            raise stale(current, expected_revision)
        moving = (self.e.fleet.shared and isinstance(doc, dict) and current.definition
                  is not None and doc.get("runs_on", current.definition.runs_on)
                  != current.definition.runs_on)
        if moving and (held.active is not None or held.queued is not None):
            raise Conflict("busy", f"{current.title} has a run in progress; wait for it or "
                           "stop it (errands stop ID) before moving it to another machine")
        await self.check_script(doc, current.definition.runner if current.definition else None)

        def take_in(done: tuple[Automation, bool]) -> None:
            if done[1]:
                self.e.take_in(automation_id, done[0])

        return await self.e.write(lambda: self.e.catalog.revise(
            automation_id, doc, actor=actor, expected_revision=expected_revision), then=take_in)

    async def set_paused(self, automation_id: str, paused: bool, *, actor: str = "user") -> Automation:
        """Pause or resume (``Catalog.set_paused``). A one-shot resumed after its instant
        may record its missed fire and complete, or leave it due for the timer."""
        held = self.e.slots.get(automation_id)
        engine_paused = held is not None and held.automation.paused_reason is not None
        if not paused and held is not None and held.automation.definition is not None \
                and held.automation.definition.runner.kind == "script":
            await self.check_script(held.automation.definition.to_dict())  # "switched on"

        def take_in(done: tuple[Automation, Run | None]) -> None:
            automation, missed = done
            self.e.take_in(automation_id, automation)
            if missed is not None:
                self.e.events.publish("run_changed", automation_id=automation_id,
                                    run_id=missed.id, data={"state": missed.state})
            if not paused and engine_paused:  # its pause's attention item was read
                self.e.events.publish("attention_raised", automation_id=automation_id,
                                    data={"read": "unattended"})

        automation, _ = await self.e.write(
            lambda: self.e.catalog.change_paused(automation_id, paused, actor=actor),
            then=take_in)
        if paused:  # a pending retry of an automatic fire is dropped, quietly
            slot = self.e.slots[automation_id]
            for run_id in (slot.active, slot.queued):
                if run_id is None:
                    continue
                try:
                    run = await self.e.read(self.e.store.get_run, run_id)
                except NotFound:   # (a run by hand being claimed now: not a fire to drop)
                    continue
                if run.trigger != "manual" and run.state == "scheduled":
                    closing = self.e.runs.cancel(run_id, PAUSED)
                    if closing is not None:
                        await closing
        return automation

    async def set_archived(self, automation_id: str, archived: bool, *,
                           actor: str = "user") -> tuple[Automation, bool]:
        """Archive (or unarchive: it comes back paused, see ``Catalog.set_archived``). As
        with a pause, a run going on now finishes (no retry follows it, and one that asks
        for a decision ends instead of parking); what waits is ended now, as ``cancelled``
        with the error ``archived``: a queued fire, a pending retry (run by hand too: an
        archived automation cannot be run) and a run parked for a decision."""
        await self.e.ledger.group.settled()  # act on the store as it is, queued run starts included
        done = await self.e.write(
            lambda: self.e.catalog.set_archived(automation_id, archived, actor=actor),
            then=lambda made: self.e.take_in(automation_id, made[0]))
        slot = self.e.slots.get(automation_id)
        if archived and done[1] and slot is not None:
            for run_id in (slot.queued, slot.active):
                if run_id is None:
                    continue
                run = await self.e.read(self.e.store.get_run, run_id)
                if run.state in ("scheduled", "awaiting_input"):
                    closing = self.e.runs.cancel(run_id, ARCHIVED)
                    if closing is not None:
                        await closing
        return done

    async def reply(self, session_id: str, text: str, *, request_id: str | None = None,
                    actor: str = "user") -> dict[str, Any]:
        """A follow-up in a session is a discussion (seed 000), never a run of the
        automation: in a discussion, its next turn; in a run's conversation, a discussion
        forked from the newest ended run in it (``request_id``: the same discussion when
        repeated)."""
        if not text.strip():
            raise InvalidInput("text", "is empty", "what to say to the agent", "Now fix it.")
        session = await self.e.read(self.e.store.session, session_id)
        if session.kind == "discussion":
            return await self.e.discussions.say(session_id, text)
        if session.automation_id is None:
            raise Conflict("no_automation", f"session {session_id} has no automation left to "
                           "answer in it")
        run = await self.e.read(self.e.store.last_run_in_session, session.automation_id,
                                session_id)
        if run is None:
            raise InvalidInput("session", "no run of this conversation has ended yet",
                               "the session of an ended agent run", "errands session reply "
                               "r-… 'why?'")
        return await self.e.discussions.start(session.automation_id, run.index, text,
                                              request_id=request_id)

    async def run_now(self, automation_id: str, *, request_id: str | None = None,
                      dry_run: bool = False, actor: str = "user") -> Run:
        """Run by hand, paused or not. Idempotent by ``request_id`` (a repeat sent while
        the first is still being written gets the same run); refused while busy."""
        slot = await self.e.slot(automation_id)
        refuse_broken(slot.automation)
        refuse_archived(automation_id, slot.automation.title, slot.automation.status)
        self.e.fleet.refuse_elsewhere(slot.automation)
        if slot.active is not None:
            await self.e.runs.ended(slot.active)  # an end being written: a moment, not busy
        if request_id:
            writing = self._claims.get((automation_id, request_id))
            if writing is not None:
                return await asyncio.shield(writing)
            existing = await self.e.read(self.e.store.run_by_request, automation_id, request_id)
            writing = self._claims.get((automation_id, request_id))  # (sent while it read)
            if writing is not None:
                return await asyncio.shield(writing)
            if existing is not None:
                return existing
        if self.e.stopping:
            raise Conflict("stopping", "Errands is quitting; run it after the next start")
        if slot.active is not None and not dry_run and request_id:
            # the same request, claimed and let go while this one read the store: its run
            existing = await self.e.read(self.e.store.run_by_request, automation_id, request_id)
            writing = self._claims.get((automation_id, request_id))
            if writing is not None:
                return await asyncio.shield(writing)
            if existing is not None:
                return existing
        if slot.active is not None and not dry_run:
            raise Conflict("busy", f"{slot.automation.title} has a run in progress; wait for it "
                           "or stop it first (errands stop ID)")
        run_id = new_id()
        if not dry_run:
            slot.active = run_id  # taken now: the claim is written while the loop goes on
        done: asyncio.Future[Run] = asyncio.get_running_loop().create_future()
        key = (automation_id, request_id or run_id)
        self._claims[key] = done
        try:
            run = await self._claim_manual(slot, run_id, request_id, dry_run, actor,
                                           done)
        except BaseException as exc:
            if not done.done():
                if isinstance(exc, asyncio.CancelledError):
                    done.cancel()
                else:
                    done.set_exception(exc)
                    done.exception()  # (retrieved: a repeat request that waits re-raises it)
            raise
        else:
            if not done.done():
                done.set_result(run)
        finally:
            self._claims.pop(key, None)
        return run

    async def _claim_manual(self, slot: Slot, run_id: str, request_id: str | None,
                            dry_run: bool, actor: str,
                            done: asyncio.Future[Run]) -> Run:
        """Write run-now's claim (on the writer thread), then start the run, unless the
        engine stopped, the automation went or a fire replaced it meanwhile. A cancelled
        caller does not undo a claim once written: the run starts, then it is told."""
        automation_id = slot.automation.id
        now = self.e.clock.now()

        future = self.e.ledger.claim_manual(automation_id, run_id, request_id, dry_run, actor,
                                            now, f"manual:{request_id or uuid.uuid4()}")
        interrupted = await settle(future)  # written whatever happens meanwhile
        error = future.exception()
        if error is not None:
            if slot.active == run_id:
                slot.active = None
            if Ledger.repeated(error):  # the same request id, sent before
                existing = await self.e.read(self.e.store.run_by_request, automation_id,
                                            request_id or "")
                if existing is not None:
                    return existing
            raise error
        run: Run = future.result()
        if self.e.slots.get(automation_id) is not slot:
            raise NotFound(f"{slot.automation.title} was deleted before its run could start")
        why = SHUTDOWN if self.e.stopping else None
        if not dry_run and slot.active != run_id:
            why = why or REPLACED  # a fire with overlap cancel_previous took the slot
        if why is not None:  # never started: it ends here, with its reason
            if slot.active == run_id:
                slot.active = None
            await settle(self.e.runs.close(run_id, failed(why),
                                     "interrupted" if why is SHUTDOWN else "cancelled"))
            run = await self.e.read(self.e.store.get_run, run_id)
            if interrupted is not None:
                done.set_result(run)
                raise interrupted
            return run
        slot.automation = replace(slot.automation, last_index=run.index)
        self.e.events.publish("run_changed", automation_id=automation_id, run_id=run.id,
                            data={"state": "scheduled"})
        self.e.runs.spawn(run.id, run=run)  # the record just written: no read back
        if interrupted is not None:
            done.set_result(run)
            raise interrupted
        return run

    async def stop_current(self, automation_id: str, *, actor: str = "user") -> Run:
        slot = await self.e.slot(automation_id)
        run_id = slot.active
        if run_id is None:
            raise Conflict("not_running", f"{slot.automation.title} has no active run")
        why = ("cancelled", stopped_by(actor))
        if slot.queued:
            closing = self.e.runs.cancel(slot.queued, why)  # (no task: a close, queued run gone)
            if closing is not None:
                await closing
        await self.e.runs.cancel_and_wait(run_id, why)
        return await self.e.read(self.e.store.get_run, run_id)

    async def delete(self, automation_id: str, *, actor: str = "user") -> dict[str, int]:
        """Cancel what runs, then delete the definition and its run ledger (logs are kept);
        what was destroyed, counted (``Catalog.delete``)."""
        await self.e.ledger.group.settled()  # act on the store as it is, queued run starts included
        slot = await self.e.slot(automation_id)
        for run_id in (slot.queued, slot.active):
            if run_id is not None:
                await self.e.runs.cancel_and_wait(run_id, ("cancelled", stopped_by(actor)))
        folders = await self.e.discussions.forget(automation_id)

        def gone(_: dict[str, int]) -> None:
            held = self.e.slots.pop(automation_id, None)
            if held is not None:  # its trigger sources let go of it
                self.e.sources.changed(replace(held.automation, definition=None))
            from ..event_artifacts import forget
            asyncio.get_running_loop().run_in_executor(None, forget, self.e.data_dir,
                                                       automation_id)
            for folder in folders:  # its discussions' own folders go with them
                asyncio.get_running_loop().run_in_executor(
                    None, lambda f=folder: shutil.rmtree(f, ignore_errors=True))
            self.e.events.publish("automation_deleted", automation_id=automation_id)

        return await self.e.write(lambda: self.e.catalog.delete(automation_id, actor=actor),
                                 then=gone)

    async def mark_attention_read(self, item_id: int | None = None) -> int:
        count = await self.e.write(lambda: self.e.store.mark_attention_read(item_id),
                                  then=lambda _: self.e.events.publish(
                                      "attention_raised",
                                      data={"read": item_id if item_id else "all"}))
        return count

    async def set_setting(self, key: str, value: str | None) -> str:
        """Store a setting (None: back to the default) and apply it at once."""
        def write() -> Settings:
            if value is None:
                self.e.store.unset_setting(key)
            else:
                self.e.store.set_setting(key, value)
            return self.e.store.settings()

        def apply(settings: Settings) -> None:
            self.e.configure(settings)
            self.e.timer.kick()
            self.e.events.publish("settings_changed", data={"key": key})

        return (await self.e.write(write, then=apply)).raw(key)

    async def decide(self, run_id: str, decision: Any, *, request_id: str | None = None,
                     actor: str = "user") -> Run:
        """Resume a parked run with a decision (``Runs.decide``)."""
        return await self.e.runs.decide(run_id, decision, request_id=request_id, actor=actor)

    async def decide_many(self, run_ids: Any, decision: Any, *, actor: str = "user") -> list[Any]:
        """One decision for several parked runs, in one transaction (``Runs.decide_many``)."""
        return await self.e.runs.decide_many(run_ids, decision, actor=actor)

    async def wait_run(self, run_id: str) -> Run:
        """Until the run is final (for ``run-now --wait``)."""
        return await self.e.runs.wait_run(run_id)

