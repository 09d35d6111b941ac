"""What clients ask of script automations beyond any automation's commands: a dry run
against a real or chosen event (also of a form's unsaved script), and a run over the files
already in a folder trigger's scope (seed 003 "Running by hand").

A dry run is nothing but a rehearsal: the script runs in its sandbox, every proposal is
checked as a real run's would be, and nothing is applied or recorded.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..definition import Definition
from ..errors import InvalidInput
from ..event_triggers import FolderTrigger, members_of
from ..ledger.admission import Offer
from ..scripts.events import event_of
from .runs import mail_access

if TYPE_CHECKING:
    from .core import Engine

PAGE = 200      # files a run over what is already there takes per call
EVENT_EXAMPLE = '{"trigger": {"kind": "folder"}, "payload": {"changes": [{"change": "created", "path": "a.pdf"}]}}'


class ScriptCommands:
    def __init__(self, engine: Engine) -> None:
        self.e = engine

    def _runner(self) -> Any:
        runner = self.e.runners.get("script")
        if runner is None:
            raise InvalidInput("runner.kind", "this engine runs no scripts", "another kind",
                               "command")
        return runner

    async def _definition(self, automation_id: str | None, doc: Any) -> tuple[Definition, str]:
        if doc is not None:
            await self.e.commands.check_script(doc)
            definition = await self.e.read(self.e.catalog.validate, doc, self.e.clock.now())
            return definition, automation_id or "draft"
        if automation_id is None:
            raise InvalidInput("id", "give an automation or a definition", "an automation id",
                               "3f2a9c1e")
        slot = await self.e.slot(automation_id)
        if slot.automation.definition is None:
            raise InvalidInput("id", "this automation's definition is damaged", "a script "
                               "automation", "errands show ID")
        return slot.automation.definition, automation_id

    def _folder(self, d: Definition, automation_id: str) -> str:
        """The folder a script's run works in: its workdir, else its own (as the engine's)."""
        from ..paths import workspace_path
        return d.workdir or str(workspace_path(self.e.data_dir, automation_id))

    async def _event(self, automation_id: str, d: Definition, event: Any) -> dict[str, Any]:
        """The event a dry run is handed: the one of an earlier run (``{"run": N}``), one
        given (``{"trigger": {...}, "payload": ...}``), or a run by hand."""
        now = self.e.clock.now()
        if event is None:
            return event_of("dry-run", now, {"kind": "manual"}, None)
        if not isinstance(event, dict):
            raise InvalidInput("event", "expected an object", 'a run\'s number ({"run": 3}) '
                               "or an event", EVENT_EXAMPLE)
        if "run" in event:
            index = event["run"]
            if isinstance(index, bool) or not isinstance(index, int) or index < 1:
                raise InvalidInput("event.run", "expected a run's number", "a whole number "
                                   "from 1", '{"run": 3}')
            run = await self.e.read(self.e.store.run_by_index, automation_id, index)
            payload = run.payload
            if isinstance(payload, dict) and "artifact" in payload:
                from ..event_artifacts import load
                payload = await asyncio.to_thread(load, self.e.data_dir, payload)
            return event_of(run.id, run.scheduled_for or run.started_at or now,
                            run.fired_by(), payload)
        unknown = [k for k in event if k not in ("trigger", "payload", "at")]
        if unknown:
            raise InvalidInput(f"event.{unknown[0]}", "unknown field", "trigger, payload, at",
                               EVENT_EXAMPLE)
        trigger = event.get("trigger") or {"kind": "manual"}
        if not isinstance(trigger, dict) or not isinstance(trigger.get("kind", "manual"), str):
            raise InvalidInput("event.trigger", "expected an object with a kind",
                               '{"kind": "folder", "id": "inbox"}', EVENT_EXAMPLE)
        at = now
        if event.get("at") is not None:
            from ..timeutil import parse_instant
            at = parse_instant(event["at"], "event.at")
        return event_of("dry-run", at, {"kind": trigger.get("kind", "manual"),
                                         "id": trigger.get("id")}, event.get("payload"))

    async def try_script(self, automation_id: str | None = None, *, doc: Any = None,
                         event: Any = None) -> dict[str, Any]:
        """A dry run: ``{"status", "limit_hit", …, "actions": [{"type", "would_apply",
        "reason"}]}``. Nothing is applied or recorded."""
        d, ident = await self._definition(automation_id, doc)
        if d.runner.kind != "script":
            raise InvalidInput("runner.kind", f"a dry run of this kind is a run: errands "
                               f"run-now ID --dry-run (this is a {d.runner.kind})", "script",
                               "script")
        happened = await self._event(ident, d, event)
        mail = await self.e.read(mail_access, self.e.store, self.e.data_dir, d,
                                 happened["trigger"])
        return await self._runner().rehearse(d, self.e.services, ident, happened, mail,
                                             self._folder(d, ident))

    async def run_over_existing(self, automation_id: str, *, offset: int = 0,
                                dry_run: bool = False) -> dict[str, Any]:
        """Once for every file already in its folder trigger's scope, in name order, up to
        :data:`PAGE` a call; each as if the file had just been created. Real runs go one
        after another (each waits for the one before), so overlap never skips one."""
        slot = await self.e.slot(automation_id)
        self.e.fleet.refuse_elsewhere(slot.automation)  # (its folder is that machine's)
        d = slot.automation.definition
        folders = [m for m in members_of(d.trigger) if isinstance(m.trigger, FolderTrigger)] \
            if d is not None else []
        if d is None or d.runner.kind != "script" or not folders:
            raise InvalidInput("id", "runs over what is already there only for a script "
                               "automation with a folder trigger", "such an automation",
                               "errands run-now ID --over-existing")
        if offset < 0:
            raise InvalidInput("offset", "must be 0 or more", "a whole number", "200")
        member = folders[0]
        trigger = member.trigger
        assert isinstance(trigger, FolderTrigger)
        from ..folder_changes import payload, scan
        try:
            snapshot, _ = await asyncio.to_thread(scan, trigger)
        except OSError as exc:
            raise InvalidInput("trigger.path", f"cannot read {trigger.path}: "
                               f"{exc.strerror or exc}", "a folder", "~/Downloads") from None
        names = sorted(snapshot)
        page = names[offset:offset + PAGE]
        results: list[dict[str, Any]] = []
        for rel in page:
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:   # (a name that is not text: no script can use it)
                results.append({"path": rel.encode("utf-8", "replace").decode("utf-8"),
                                "run": None, "state": "not_text"})
                continue
            doc = {**payload(trigger, [("created", rel)]), "existing": True}
            if dry_run:
                happened = event_of("dry-run", self.e.clock.now(),
                                    {"kind": "folder", "id": member.id}, doc)
                mail = await self.e.read(mail_access, self.e.store, self.e.data_dir, d,
                                         {"kind": "folder"})
                answer = await self._runner().rehearse(d, self.e.services, automation_id,
                                                       happened, mail,
                                                       self._folder(d, automation_id))
                results.append({"path": rel, "status": answer["status"],
                                "actions": answer["actions"]})
                continue
            now = self.e.clock.now()
            offer = Offer("existing", f"{member.id}:{rel}:{now.timestamp():.6f}", now, doc,
                          trigger_id=member.id, kind="folder")
            answer = await self.e.sources.offer(automation_id, offer)
            if isinstance(answer, str):
                results.append({"path": rel, "run": None, "state": answer})
                continue
            run = await self.e.commands.wait_run(answer.id)
            results.append({"path": rel, "run": run.id, "index": run.index, "state": run.state})
        more = offset + len(page) < len(names)
        return {"total": len(names), "offset": offset, "results": results, "more": more,
                "next_offset": offset + len(page) if more else None}
