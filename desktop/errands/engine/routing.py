"""Which engine performs a client's operation, on a shared catalogue.

Several engines serve one shared catalogue, one per machine, and each automation is fired
by one of them (``Fleet.fires_here``): the engine of the machine it is bound to, or for
one that may run anywhere, the engine doing the common work. That engine alone changes the
automation's state and runs it, so an operation on an automation (a pause, an edit, a run
by hand, a decision on a parked run) is sent to it through the catalogue
(``remote_requests``, aimed at its machine) and answered as if performed here. An
operation whose engine is not running is performed here when it only changes the
definition (that machine's engine reads it at its start), and refused when it would run
something: nothing runs on a machine it was not meant for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..definition import ANY_MACHINE
from ..errors import Conflict, ErrandsError

if TYPE_CHECKING:
    from .core import Engine

BY_AUTOMATION = frozenset({"revise", "pause", "resume", "archive", "unarchive", "delete",
                           "run_now", "run_over_existing", "stop", "discuss",
                           "webhook_token"})
BY_RUN = frozenset({"decide"})
BY_RUNS = frozenset({"decide_many"})
BY_SESSION = frozenset({"reply", "discussion_say", "discussion_decide"})
RUNS_THERE = frozenset({"run_now", "run_over_existing", "discuss", "decide", "decide_many",
                        "reply", "discussion_say", "discussion_decide"})


def _automation_of(engine: Engine, op: str, args: dict[str, Any]) -> str | None:
    """(On a reader thread.) The automation ``op`` concerns, or None (none, or one that
    cannot be found: performed here, it is refused with the usual words)."""
    store = engine.store
    try:
        if op in BY_AUTOMATION and isinstance(args.get("id"), str):
            return store.resolve_id(args["id"])
        if op in BY_RUN and isinstance(args.get("run"), str):
            return store.get_run(store.resolve_run(args["run"])).automation_id
        if op in BY_RUNS and isinstance(args.get("runs"), list) and args["runs"] \
                and isinstance(args["runs"][0], str):
            return store.get_run(store.resolve_run(args["runs"][0])).automation_id
        if op in BY_SESSION and isinstance(args.get("session"), str):
            return store.session(args["session"]).automation_id
    except ErrandsError:
        return None
    return None


@dataclass(frozen=True)
class Forward:
    """Where an operation goes: ``target``, the machine whose engine performs it (None: the
    engine doing the common work, whichever it is), and whether that engine runs now."""

    target: str | None
    live: bool
    title: str

    @property
    def where(self) -> str:
        return self.target or "the machine doing the common work"


def _place(engine: Engine, op: str, args: dict[str, Any]) -> Forward | None:
    """(On a reader thread.) Where ``op`` goes, or None for here."""
    from ..db.engine_hold import common_held, live_machines, session_fetch

    if op == "create":
        doc = args.get("doc")
        runs_on = doc.get("runs_on") if isinstance(doc, dict) else None
        title = doc.get("title") if isinstance(doc, dict) else None
        if not isinstance(runs_on, str) or runs_on in (ANY_MACHINE, engine.fleet.machine):
            return None
    else:
        automation_id = _automation_of(engine, op, args)
        if automation_id is None:
            return None
        try:
            automation = engine.store.get(automation_id)
        except ErrandsError:
            return None
        if engine.fleet.fires_here(automation):
            return None
        runs_on, title = engine.fleet.runs_on(automation), automation.title
    with engine.store.db.read() as s:
        if runs_on == ANY_MACHINE:
            return Forward(None, common_held(session_fetch(s)), str(title or ""))
        live = runs_on in live_machines(session_fetch(s), [runs_on])
    return Forward(runs_on, live, str(title or ""))


async def route(engine: Engine, op: str, args: dict[str, Any]) -> Forward | None:
    """Where ``op`` is to be performed (None: by this engine). Raises :class:`Conflict`
    ``engine_elsewhere`` for an operation that would run something on a machine whose
    engine is not running; one that only changes the definition is then made here, and
    that machine's engine reads it at its start."""
    if not engine.fleet.shared or op not in (BY_AUTOMATION | BY_RUN | BY_RUNS | BY_SESSION
                                             | {"create"}):
        return None
    forward = await engine.read(_place, engine, op, args)
    if forward is None or forward.live:
        return forward
    if op in RUNS_THERE:
        raise Conflict("engine_elsewhere", f"“{forward.title}” runs on {forward.where}, and "
                       f"no Errands engine runs there now: start Errands on {forward.where}, "
                       "or let it run on any machine (errands edit ID --runs-on any)")
    return None
