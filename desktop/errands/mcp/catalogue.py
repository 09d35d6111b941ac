"""What each MCP tool does, as plain Python over one data folder.

Reads come from the store (as ``errands list`` reads it). Changes go to the running engine
over its channel, or, with no engine running, are made under the data folder's lock, as
the command line makes them (:func:`errands.cli.routing.perform`). A run by hand needs the
engine (only a script's dry run, milliseconds long, is hosted here without one). Nothing
here approves a parked run: decisions stay with the person.

What a client creates is registered paused and marked as proposed by it (``origin``
``{"kind": "mcp", "client": NAME}``). A client is *trusted* only when the person said so
twice: its configuration starts ``errands mcp --as NAME`` (what the person pasted, not the
name the client gives itself) and the setting ``mcp_trusted_clients`` names NAME. An
untrusted client's rules, as an agent run's ("made by a run, started by a person"):

- what it creates starts paused, and any change it makes to an automation pauses it;
- it never resumes an automation: the person enables it;
- it runs by hand only an active automation (a dry run of any), and only while Errands
  runs: a run is the engine's to host, not this short-lived process's.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from ..catalog import Catalog
from ..cli.routing import perform
from ..errors import InvalidInput, NotFound
from ..store import Store
from ..timeutil import format_instant, system_zone_name, utcnow

ACTOR = "agent"          # who the audit trail says acted: another agent, through MCP
# what a client's name may not hold: control characters, and the bidirectional controls
# that would make "proposed by …" read as another name
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def client_name(name: object, fallback: str = "an MCP client") -> str:
    """A client's name as it may be shown and stored: one printable line, 100 characters."""
    text = _UNSHOWN.sub("", str(name or "")).strip()[:100]
    return text or fallback
PAGE = 100               # automations a list gives at most
DEFINITION_EXAMPLE = ('{"title": "Deploy check", "runner": {"kind": "command", "command": '
                      '"./check-deploy.sh"}, "trigger": {"kind": "cron", "expression": '
                      '"0 9 * * *"}}')


class Catalogue:
    def __init__(self, data_dir: Path, client: str = "an MCP client", *,
                 named: bool = False) -> None:
        """``named``: the name is the person's (``errands mcp --as NAME``), not the one the
        client gave itself; only such a name can be trusted."""
        self.data_dir = data_dir
        self.client = client_name(client)
        self.named = named
        self._store: Store | None = None

    # -------------------------------------------------------------- the store
    @property
    def store(self) -> Store:
        if self._store is None:
            from ..db.location import database_location
            self._store = Store(database_location(self.data_dir))
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def _id(self, ident: str) -> str:
        return self.store.resolve_id(ident)

    def _perform(self, op: str, args: dict[str, Any], local: Any, **kw: Any) -> Any:
        return perform(self.data_dir, op, args, local, **kw)

    # -------------------------------------------------------------- reads
    def list_automations(self, status: str | None = None, offset: int = 0) -> dict[str, Any]:
        every = [a for a in self.store.list() if status is None or a.status == status]
        page = every[offset:offset + PAGE]
        return {"automations": [_summary(a) for a in page], "total": len(every),
                "next_offset": offset + PAGE if offset + PAGE < len(every) else None}

    def get_automation(self, ident: str) -> dict[str, Any]:
        a = self.store.get(self._id(ident))
        doc = a.to_dict()
        doc["reading"] = _reading(a)
        doc["proposed_by"] = _proposed_by(a)
        return doc

    def describe_schedule(self, phrase: str, timezone: str | None = None) -> dict[str, Any]:
        """The card's reading of a schedule phrase; nothing is created."""
        from ..schedule_spec import spec_to_trigger
        from ..definition import ParseContext, parse_definition
        from ..schedule import describe, next_fires
        now = utcnow()
        try:
            trigger_doc, _ = spec_to_trigger(phrase, timezone, now, locale=None)
        except InvalidInput as exc:   # (the command line's names for these two)
            field = {"--schedule": "phrase", "--tz": "timezone"}.get(exc.field or "", exc.field)
            raise InvalidInput(field, exc.message, exc.expected, exc.example, exc.code,
                               exc.words, exc.reason, exc.values) from None
        doc = {"title": "reading", "runner": {"kind": "command", "command": "true"}}
        from ..definition import put_trigger
        put_trigger(doc, trigger_doc)
        settings = self.store.settings() if self._has_database() else None
        ctx = ParseContext(now=now, min_interval=settings.min_interval if settings else
                           ParseContext(now=now).min_interval,
                           default_timezone=timezone or system_zone_name())
        trigger = parse_definition(doc, ctx).trigger
        return {"reading": describe(trigger), "trigger": trigger_doc,
                "next_fires": [format_instant(f) for f in next_fires(trigger, now, 5)]}

    def _has_database(self) -> bool:
        from ..db.location import database_location
        where = database_location(self.data_dir)
        return not isinstance(where, Path) or where.exists()

    def list_runs(self, ident: str, limit: int = 20, cursor: str | None = None
                  ) -> dict[str, Any]:
        runs, next_cursor = self.store.runs_page(self._id(ident), limit=limit, cursor=cursor)
        return {"runs": [r.to_dict() for r in runs], "next_cursor": next_cursor}

    def get_run(self, run_ident: str) -> dict[str, Any]:
        """A run with its output (a command's) or its transcript (an agent's)."""
        run = self.store.get_run(self.store.resolve_run(run_ident))
        doc = run.to_dict(with_output=True)
        if run.session_id:
            try:
                doc["transcript"] = [m.to_dict() for m in
                                     self.store.messages(run.session_id)
                                     if m.run_id in (None, run.id)]
            except NotFound:
                doc["transcript"] = []
        return doc

    def waiting(self) -> dict[str, Any]:
        """What waits for the person: parked runs (only they decide) and unread items."""
        return {"parked": [p.to_dict() for p in self.store.parked()],
                "attention": [i.to_dict() for i in self.store.attention(unread_only=True)],
                "note": "decisions on parked runs are the person's: approve them in the "
                        "Errands window or with 'errands approve'"}

    # -------------------------------------------------------------- changes
    def _trusted(self) -> bool:
        if not self.named:
            return False
        names = str(self.store.settings().get("mcp_trusted_clients") or "")
        return self.client in [n.strip() for n in names.split(",") if n.strip()]

    def create_automation(self, definition: Any) -> dict[str, Any]:
        if not isinstance(definition, dict):
            raise InvalidInput("definition", "expected an object", "a definition document",
                               DEFINITION_EXAMPLE)
        doc = copy.deepcopy(definition)
        doc["origin"] = {"kind": "mcp", "client": self.client[:100]}
        trusted = self._trusted()
        if not trusted:
            doc["paused"] = True   # a person reads it and enables it

        def local() -> dict[str, Any]:
            from ..scripts.compile import check_now
            check_now(doc)
            automation, created = Catalog(self.store).create(doc, actor=ACTOR)
            return {"automation": automation.to_dict(), "created": created}

        reply = self._perform("create", {"doc": doc, "request_id": None, "actor": ACTOR}, local)
        automation = reply["automation"]
        return {"automation": automation, "status": automation.get("status"),
                "note": None if trusted else f"registered paused, proposed by {self.client}: "
                        "the person reads it in Errands and enables it"}

    def update_automation(self, ident: str, changes: Any, expected_revision: int
                          ) -> dict[str, Any]:
        """Only the fields given change (a trigger given replaces its triggers); refused when
        it is no longer at ``expected_revision``."""
        if not isinstance(changes, dict) or not changes:
            raise InvalidInput("changes", "expected an object with the fields to change",
                               "some fields of a definition", '{"title": "New title"}')
        automation_id = self._id(ident)
        current = self.store.get(automation_id)
        if current.definition is None:
            raise InvalidInput("id", "this automation is broken; a person repairs it",
                               "a working automation", "errands show ID")
        doc = current.definition.to_dict()
        for key, value in changes.items():
            if key in ("origin", "paused"):
                raise InvalidInput(f"changes.{key}", "is not a client's to change (pausing "
                                   "and enabling are pause_automation and the person's)",
                                   "other fields", '{"title": "New title"}')
            if key in ("trigger", "triggers"):
                doc.pop("trigger", None)
                doc.pop("triggers", None)
            doc[key] = value
        if not self._trusted():
            doc["paused"] = True   # changed by a client: the person looks again, and enables

        def local() -> dict[str, Any]:
            from ..scripts.compile import check_now
            check_now(doc, current.definition.runner if current.definition else None)
            revised, changed = Catalog(self.store).revise(
                automation_id, doc, actor=ACTOR, expected_revision=expected_revision)
            return {"automation": revised.to_dict(), "changed": changed}

        try:
            reply = self._perform("revise", {"id": automation_id, "doc": doc,
                                             "expected_revision": expected_revision,
                                             "actor": ACTOR}, local)
        except InvalidInput as exc:   # (a field the client gave is named as it gave it)
            top = (exc.field or "").split(".")[0].split("[")[0]
            raise exc.with_prefix("changes") if top in changes else exc from None
        if not self._trusted() and reply["automation"].get("paused") and \
                not current.definition.paused:
            reply["note"] = (f"paused: a change by {self.client} waits for the person, who "
                             "enables it again in Errands")
        return reply

    def set_paused(self, ident: str, paused: bool) -> dict[str, Any]:
        automation_id = self._id(ident)
        if not paused and not self._trusted():
            raise InvalidInput("id", "a client does not enable automations: the person "
                               "resumes them, in Errands (or a trusted client: see "
                               "mcp_trusted_clients)", "pause_automation, or ask the person",
                               "pause_automation")

        def local() -> Any:
            if not paused:
                from ..scripts.compile import check_now
                d = self.store.get(automation_id).definition
                if d is not None:
                    check_now(d.to_dict())
            return Catalog(self.store).set_paused(automation_id, paused, actor=ACTOR).to_dict()

        return self._perform("pause" if paused else "resume",
                             {"id": automation_id, "actor": ACTOR}, local)

    def archive(self, ident: str) -> dict[str, Any]:
        automation_id = self._id(ident)

        def local() -> dict[str, Any]:
            automation, changed = Catalog(self.store).set_archived(automation_id, True,
                                                                   actor=ACTOR)
            return {"automation": automation.to_dict(), "changed": changed}

        return self._perform("archive", {"id": automation_id, "actor": ACTOR}, local)

    def run_now(self, ident: str, dry_run: bool = False, wait: bool = False
                ) -> dict[str, Any]:
        """A run by hand (a script's dry run: what it would do, nothing recorded)."""
        automation_id = self._id(ident)
        a = self.store.get(automation_id)
        if not dry_run and not self._trusted() and a.status != "active":
            raise InvalidInput("id", f"{a.title!r} is {a.status}; a client runs by hand only "
                               "an active automation (one it proposed waits for the person "
                               "to enable it); a dry run works on any", "an active "
                               "automation's id, or dry_run: true", "list_automations")
        script_trial = (dry_run and a.definition is not None
                        and a.definition.runner.kind == "script")
        if script_trial:   # (milliseconds: hosted here when Errands is not running)
            return self._perform("try_script", {"id": automation_id, "doc": None,
                                                "event": None},
                                 lambda: self._hosted(lambda e: e.scripts.try_script(
                                     automation_id)), timeout=None, local_takes_lock=True)

        def not_running() -> Any:
            raise InvalidInput("id", "Errands is not running here: start the app (or "
                               "'errands serve'), then run it; a run is the engine's to host",
                               "Errands running", "errands serve")

        return self._perform("run_now", {"id": automation_id, "request_id": None,
                                         "dry_run": dry_run, "wait": wait, "actor": ACTOR},
                             not_running, timeout=None if wait else 30.0,
                             local_takes_lock=True)

    def _hosted(self, work: Any) -> Any:
        import asyncio

        from ..engine.service import EngineHost

        async def go() -> Any:
            host = EngineHost(self.data_dir, automatic=False, role="cli")
            engine = await host.start()
            try:
                return await work(engine)
            finally:
                await host.close()
        return asyncio.run(go())


def _summary(a: Any) -> dict[str, Any]:
    d = a.definition
    return {"id": a.id, "title": a.title, "status": a.status,
            "kind": d.runner.kind if d is not None else None,
            "reading": _reading(a), "next_fire_at": format_instant(a.next_fire_at),
            "proposed_by": _proposed_by(a), "revision": a.revision}


def _reading(a: Any) -> str | None:
    from ..schedule import describe
    return describe(a.definition.trigger) if a.definition is not None else None


def _proposed_by(a: Any) -> str | None:
    d = a.definition
    return d.origin.client if d is not None and d.origin.kind == "mcp" else None
