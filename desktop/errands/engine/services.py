"""What the engine does for a run on its request (:class:`RunServices`): a notice for the user,
the agent's ``automate`` tool, and the user's global permission rules.

``automate`` goes through the same catalog as the CLI and the window, so its validation and
its refusals are theirs. The rules that are the agent's own ("made by a run, started by a
person"):

- a cascade is bounded (``origin.depth`` at most ``MAX_DEPTH``);
- what an unattended run creates starts paused and asks the user to review it, as does a
  change of what an automation runs (runner, workdir, worktree);
- no run resumes an automation, and no run starts one that is paused (``run_now``): a
  paused automation, made by a run or paused by a person, waits for a person;
- the permissions of what a run creates or changes never exceed those of the automation the
  run belongs to: no wider mode, no tool or allow rule or untrusted exception it does not
  have, and its deny and ask rules are carried over; an unattended run never grants
  ``allow_all`` at all;
- a run may schedule a later run of its own automation, unchanged (seed 002's "check back
  in ten minutes"): a one-shot with the same runner, folder and permissions, created
  active because it grants nothing new.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..definition import Permissions
from ..errors import ErrandsError, InvalidInput
from ..settings import Settings
from ..timeutil import format_instant
from ..runners.contract import RunContext

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)
MAX_DEPTH = 3
ACTIONS = ("create", "update", "pause", "resume", "delete", "list", "run_now")


class Services:
    """What a run asks of the engine (the :class:`RunServices` a runner is given)."""

    def __init__(self, engine: Engine) -> None:
        self.e = engine

    def notify(self, ctx: RunContext, title: str, body: str) -> None:
        """Queued with the engine's writes (the run goes on at once); the notice follows
        the commit."""
        now = self.e.clock.now()

        def written(future: asyncio.Future[None]) -> None:
            if future.cancelled() or future.exception() is not None:
                log.error("run %s's notice %r could not be recorded: %s", ctx.run_id, title,
                          "cancelled" if future.cancelled() else future.exception())
                return
            self.e.events.publish("attention_raised", automation_id=ctx.automation_id,
                                run_id=ctx.run_id, data={"notify": {"title": title, "body": body}})

        self.e.ledger.attention(kind="notify", title=title or ctx.definition.title, body=body,
                                now=now, automation_id=ctx.automation_id,
                                run_id=ctx.run_id).add_done_callback(written)

    def current_settings(self) -> Settings:
        """The settings as they are now (a run reads its provider's from them)."""
        return self.e.settings

    def permission_rules(self) -> tuple[Any, ...]:
        return tuple(self.e.settings.get("permission_rules"))

    async def automate(self, ctx: RunContext, action: str, arguments: dict[str, Any], *,
                       attended: bool = False) -> dict[str, Any]:
        """One ``automate`` call; refusals are :class:`InvalidInput` (the model reads them)."""
        actor = f"agent:{ctx.run_id}"
        if action not in ACTIONS:
            raise InvalidInput("action", f"unknown action {action!r}", "one of " + ", ".join(ACTIONS),
                               "create")
        if action == "list":
            return {"automations": [
                {"id": a.id, "title": a.title, "status": a.status,
                 "kind": a.definition.runner.kind if a.definition else None,
                 "next_fire_at": format_instant(a.next_fire_at)}
                for a in await self.e.read(self.e.store.list)]}
        if ctx.discussion is not None and (action in ("update", "pause", "delete", "run_now")
                                           and arguments.get("id") and await self.e.read(
                                               self.e.store.resolve_id, str(arguments["id"]))
                                           == ctx.automation_id):
            raise InvalidInput("id", "a discussion does not change or run the automation it "
                               "discusses; say what to change and the user edits it",
                               "another automation's id", '{"action": "list"}')
        if action == "create":
            follow_up = self._is_follow_up(ctx, arguments)
            if follow_up and ctx.discussion is not None:
                raise InvalidInput("runner", "a discussion does not schedule runs of the "
                                   "automation it discusses", "a runner of its own",
                                   '{"action": "create", "runner": {"kind": "command", '
                                   '"command": "…"}, "schedule": "in:10m"}')
            doc = self._document(ctx, arguments, base=None)
            depth = ctx.definition.origin.depth + 1
            if depth > MAX_DEPTH:
                raise InvalidInput("origin.depth", f"automations created by automations may "
                                   f"nest {MAX_DEPTH} deep; this one would be {depth} deep",
                                   f"at most {MAX_DEPTH}", "do the work in this run instead")
            if follow_up:
                own = ctx.definition.to_dict()
                for key in ("runner", "workdir", "worktree", "permissions"):
                    doc.pop(key, None)
                    if key in own:
                        doc[key] = own[key]
                if doc["trigger"].get("kind") != "at":
                    raise InvalidInput("schedule", "a later run of this automation is a "
                                       "one-shot", "in:… or at:…", "in:10m")
            elif doc.get("runner", {}).get("kind") == "agent":
                doc["permissions"] = self._within(ctx, doc.get("permissions"), attended)
            elif doc.get("runner", {}).get("kind") == "script":  # its folders: within the run's
                doc["permissions"] = {"rules": self._within(ctx, doc.get("permissions"),
                                                            attended)["rules"]}
                self._script_folder(ctx, doc)
            keep_session = arguments.get("continue_session", doc["trigger"].get("kind") == "at")
            if not isinstance(keep_session, bool):
                raise InvalidInput("continue_session", "must be true or false", "a boolean", "true")
            session = ctx.session.session_id if ctx.session is not None and keep_session else None
            if session is not None and session.startswith("d-"):  # a discussion is no run's
                session = None  # conversation to go on in: the follow-up starts afresh
            doc["origin"] = {"kind": "agent", "session_id": session, "depth": depth}
            if session is not None:
                doc["context"] = {**doc.get("context", {}), "mode": "continue"}
            # a script waits for a person to read it, whoever asked (seed 003); so do MCP
            # servers an agent named: programs it starts, outside any confinement
            script = doc.get("runner", {}).get("kind") == "script"
            servers = not follow_up and bool(doc.get("runner", {}).get("mcp_servers"))
            review = (not attended and not follow_up) or script or servers
            if review:
                doc["paused"] = True
            automation, _ = await self.e.commands.create(doc, actor=actor)  # type: ignore[attr-defined]
            if review:
                body = ("Created by an unattended run; it stays paused until you resume it."
                        if not script and not servers else
                        "An agent's run named MCP servers for it: programs it would start. "
                        "Read them (Edit…) and resume it to enable it." if servers else
                        "A script an agent's run proposed; read it (Edit…, or errands show "
                        f"{automation.id[:8]} --json) and resume it to enable it. It works "
                        f"in {doc.get('workdir') or 'its own folder in Errands data'}.")
                await self._review(ctx, automation.id,
                                   f"New automation to review: {automation.title}", body)
            return self._echo(automation, created=True)
        ident = arguments.get("id")
        if not isinstance(ident, str) or not ident:
            raise InvalidInput("id", "is required for " + action, "an automation id (see list)",
                               '{"action": "' + action + '", "id": "3f2a…"}')
        ident = await self.e.read(self.e.store.resolve_id, ident)
        if action == "delete" and ident == ctx.automation_id:  # it would wait for itself
            raise InvalidInput("id", "a run cannot delete its own automation; finish, and ask "
                               "the user to delete it", "another automation's id",
                               '{"action": "pause", "id": "…"}')
        if action == "resume":
            raise InvalidInput("action", "a run cannot resume an automation; the user "
                               "resumes it after looking at it", "pause, update, list, …",
                               '{"action": "list"}')
        if action == "update":
            current = await self.e.read(self.e.store.get, ident)
            base = current.definition.to_dict() if current.definition else {}
            doc = self._document(ctx, arguments, base=base)
            doc.pop("origin", None)  # where an automation came from is not the model's to say
            if "origin" in base:
                doc["origin"] = base["origin"]
            review = False
            if base.get("paused"):
                doc["paused"] = True  # resuming is the user's
            if doc.get("permissions") != base.get("permissions"):
                if not attended:
                    raise InvalidInput("permissions", "an unattended run cannot change what an "
                                       "automation may do; ask the user to", "leave permissions "
                                       "out", '{"action": "update", "id": "…", "title": "New title"}')
                doc["permissions"] = self._within(ctx, doc.get("permissions"), attended)
            script = (doc.get("runner") or {}).get("kind") == "script"
            if script:
                self._script_folder(ctx, doc)
            servers = ((doc.get("runner") or {}).get("mcp_servers")
                       != (base.get("runner") or {}).get("mcp_servers"))
            if not attended or script or servers:   # (a script or MCP servers changed wait
                review = any(doc.get(k) != base.get(k)  # for a person, always)
                             for k in ("runner", "workdir", "worktree", "permissions"))
                if review:  # what it runs changed: nobody has looked at that yet
                    doc["paused"] = True
            automation, _ = await self.e.commands.revise(ident, doc, actor=actor)  # type: ignore[attr-defined]
            if review:
                await self._review(ctx, ident, f"Changed automation to review: {automation.title}",
                                   "A run changed what it runs; it stays paused until you "
                                   "resume it." if not script and not servers else
                                   "A run changed the MCP servers (programs) it starts; read "
                                   "them and resume it to enable it again." if servers else
                                   "A run changed this script, its folder or its rules; read "
                                   "it and resume it to enable it again.")
            return self._echo(automation, created=False)
        if action in ("pause", "resume"):
            automation = await self.e.commands.set_paused(ident, action == "pause", actor=actor)  # type: ignore[attr-defined]
            return self._echo(automation, created=False)
        if action == "delete":
            await self.e.commands.delete(ident, actor=actor)  # type: ignore[attr-defined]
            return {"deleted": ident}
        target = await self.e.read(self.e.store.get, ident)
        if target.status != "active":
            raise InvalidInput("id", f"{target.title!r} is {target.status}; a run cannot start "
                               "an automation that is not active (one a run made or changed "
                               "waits for the user to look at it and resume it)",
                               "an active automation's id (see list)", '{"action": "list"}')
        run = await self.e.commands.run_now(ident, actor=actor)  # type: ignore[attr-defined]
        return {"run": {"id": run.id, "index": run.index, "state": run.state}}

    @staticmethod
    def _is_follow_up(ctx: RunContext, arguments: dict[str, Any]) -> bool:
        """A later run of the run's own automation, unchanged: no runner given (or the very
        same one), and nothing else that would change what runs or what it may do."""
        runner = arguments.get("runner")
        same = runner is None or runner == ctx.definition.to_dict().get("runner")
        return same and not any(k in arguments for k in ("permissions", "workdir", "worktree"))

    def _within(self, ctx: RunContext, doc: Any, attended: bool) -> dict[str, Any]:
        """``doc`` (a permissions document, or None) if it grants nothing beyond the run's
        own automation's permissions, with that automation's deny and ask rules carried
        over (last, so they win); else an :class:`InvalidInput` naming what is wider."""
        from ..definition import parse_permissions

        parent = ctx.definition.permissions
        child = parse_permissions(doc or {}, ctx.definition.runner)
        if not attended and parent.mode == "allow_all":
            # unattended, allow_all is no grant to pass on, in substance either: only what a
            # person listed by name (its tools are all, its rules its own)
            parent = replace(parent, mode="ask", tools=())
        wider = _wider(child, parent)
        if wider is not None:
            raise InvalidInput("permissions", f"a run cannot grant more than its own automation "
                               f"may do: {wider}", "permissions within this automation's own",
                               '{"mode": "ask"}')
        kept = [r for r in parent.rules if r.action != "allow" and r not in child.rules]
        rules = [*child.rules, *kept]
        return {"mode": child.mode, "tools": list(child.tools),
                "rules": [{"tool": r.tool, "pattern": r.pattern, "action": r.action}
                          for r in rules], "untrusted_ok": list(child.untrusted_ok)}

    def _document(self, ctx: RunContext, arguments: dict[str, Any],
                  base: dict[str, Any] | None) -> dict[str, Any]:
        from ..drafts import document_from_arguments  # (the phrase reader: 70 ms to import)

        zone = getattr(ctx.definition.trigger, "timezone", None)  # the creator's zone
        doc = document_from_arguments(arguments, now=self.e.clock.now(), zone=zone, base=base)
        if base is None:
            doc.setdefault("workdir", str(ctx.workdir) if ctx.definition.workdir else None)
            if doc.get("workdir") is None:
                doc.pop("workdir", None)
        return doc

    @staticmethod
    def _script_folder(ctx: RunContext, doc: dict[str, Any]) -> None:
        """A script an agent makes works in the agent's own folder or one inside it: its
        folder is a grant (it may change anything there), which a run cannot widen."""
        import os
        folder = doc.get("workdir")
        own = os.path.realpath(ctx.workdir)
        if folder is None:
            doc["workdir"] = str(ctx.workdir)
            return
        real = os.path.realpath(str(folder))
        if real != own and not real.startswith(own.rstrip(os.sep) + os.sep):
            raise InvalidInput("workdir", f"a script a run makes works in the run's own folder "
                               f"({ctx.workdir}) or one inside it", "a folder inside "
                               f"{ctx.workdir}", str(ctx.workdir))

    async def _review(self, ctx: RunContext, automation_id: str, title: str, body: str) -> None:
        now = self.e.clock.now()

        await self.e.ledger.attention(kind="review", title=title, body=body, now=now,
                                      automation_id=automation_id, run_id=ctx.run_id)
        self.e.events.publish("attention_raised", automation_id=automation_id,
                              run_id=ctx.run_id)

    @staticmethod
    def _echo(automation: Any, *, created: bool) -> dict[str, Any]:
        return {"id": automation.id, "status": automation.status, "created": created,
                "next_fire_at": format_instant(automation.next_fire_at),
                "definition": automation.definition.to_dict() if automation.definition else None}

    # ------------------------------------------------------------------ scripts

    async def script_inputs(self, automation_id: str, run_id: str, count: int
                            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A script's state and its automation's latest runs (newest first, not this one)."""
        def read() -> tuple[dict[str, Any], list[dict[str, Any]]]:
            state = self.e.store.script_state(automation_id)
            page, _ = self.e.store.runs_page(automation_id, limit=count + 1)
            runs = [{"index": r.index, "state": r.state, "at": format_instant(
                        r.scheduled_for or r.started_at),
                     "finished_at": format_instant(r.finished_at), "result": r.result,
                     "trigger": r.fired_by().get("kind")}
                    for r in page if r.id != run_id][:count]
            return state, runs
        return await self.e.read(read)

    async def script_target(self, ref: str) -> tuple[str | None, str]:
        """The automation a script's ``runAutomation`` names (an id, an id's start or an
        exact title), or why there is none to run."""
        def find() -> tuple[str | None, str]:
            try:
                ident = self.e.store.resolve_id(ref)
                found = self.e.store.get(ident)
            except ErrandsError:
                matches = [a for a in self.e.store.list()
                           if a.title.casefold() == ref.strip().casefold()]
                if len(matches) != 1:
                    return None, (f"no automation is called {ref!r}" if not matches else
                                  f"{len(matches)} automations are called {ref!r}; name it "
                                  "by its id")
                found = matches[0]
            if found.status != "active":
                return None, f"{found.title} is {found.status}; a script starts only an " \
                             "active automation"
            return found.id, ""
        return await self.e.read(find)

    async def start_for_script(self, ctx: RunContext, automation_id: str,
                               payload: Any) -> str | None:
        """Offer a run of ``automation_id`` with ``payload`` as its event, one cascade step
        deeper than ``ctx``'s run. None when it was admitted, else why not."""
        from ..ledger.admission import Offer
        fired = ctx.trigger or {}
        depth = int(fired.get("depth") or 0) + 1
        chain = tuple(fired.get("chain") or ()) + (ctx.automation_id,)
        offer = Offer(source="script", key=f"{ctx.run_id}:{uuid.uuid4().hex[:8]}",
                      at=self.e.clock.now(), payload={"input": payload,
                                                      "from": {"automation": ctx.automation_id,
                                                               "run": ctx.run_id}},
                      kind="script", depth=depth, chain=chain)
        try:
            answer = await self.e.sources.offer(automation_id, offer)
        except ErrandsError as exc:
            return str(exc)
        if isinstance(answer, str):
            return {"skipped": "it was skipped (see its runs)"}.get(answer, answer.replace("_", " "))
        return None

    async def mail_for_script(self, ctx: RunContext, subject: str, body: str) -> str | None:
        """``mailMe``: to the user's own address, through the run's mail account."""
        from ..mail.accounts import get_password
        from ..mail.smtp import SendError, send
        access = ctx.mail
        if access is None or access.account is None:
            return getattr(access, "missing", None) or "no mail account is set up"
        try:
            password = await asyncio.to_thread(get_password, self.e.data_dir,
                                               access.account.name)
            await send(access.account, password, [access.account.address],
                       f"{ctx.definition.title}: {subject}", body or "(empty)")
        except (SendError, ErrandsError, OSError) as exc:
            return f"the mail could not be sent: {exc}"
        return None


_MODES = {"ask": 0, "allow_listed": 1, "allow_all": 2}


def _wider(child: Permissions, parent: Permissions) -> str | None:
    """What ``child`` allows that ``parent`` does not, in words; None when nothing."""
    if _MODES[child.mode] > _MODES[parent.mode]:
        return f"mode {child.mode} (this automation's is {parent.mode})"
    if parent.mode != "allow_all":
        if child.mode == "allow_listed":
            extra = sorted(set(child.tools) - set(parent.tools))
            if extra:
                return "tools " + ", ".join(extra)
        allowed = {(r.tool, r.pattern) for r in parent.rules if r.action == "allow"}
        for rule in child.rules:
            if rule.action == "allow" and (rule.tool, rule.pattern) not in allowed:
                return f'the allow rule {rule.tool} "{rule.pattern}"'
    extra = sorted(set(child.untrusted_ok) - set(parent.untrusted_ok))
    if extra:
        return "untrusted_ok " + ", ".join(extra)
    return None
