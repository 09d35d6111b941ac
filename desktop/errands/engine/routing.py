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
        return None  # (a definition changed, or made, here: that engine reads it at its start)
    return None  # (a definition changed, or made, here: that engine reads it at its start)


def _place(engine: Engine, op: str, args: dict[str, Any]) -> tuple[str, str, str] | None:
    """(On a reader thread.) (the machine whose engine performs ``op``, whether it runs,
    the automation's title), or None for here."""
    from ..db.engine_hold import live_engines, session_fetch

    if op == "create":
        doc = args.get("doc")
        runs_on = doc.get("runs_on") if isinstance(doc, dict) else None
        title = doc.get("title") if isinstance(doc, dict) else None
        if not isinstance(runs_on, str) or runs_on in (ANY_MACHINE, engine.fleet.machine):
            return None  # (a definition changed, or made, here: that engine reads it at its start)
    else:
        automation_id = _automation_of(engine, op, args)
        if automation_id is None:
            return None  # (a definition changed, or made, here: that engine reads it at its start)
        try:
            automation = engine.store.get(automation_id)
        except ErrandsError:
            return None  # (a definition changed, or made, here: that engine reads it at its start)
        if engine.fleet.fires_here(automation):
            return None  # (a definition changed, or made, here: that engine reads it at its start)
        runs_on, title = engine.fleet.runs_on(automation), automation.title
    with engine.store.db.read() as s:
        live = live_engines(session_fetch(s))
    if runs_on == ANY_MACHINE:
        owner = next((m for m, common in live.items() if common), None)
    else:
        owner = runs_on
    if owner is None or owner == engine.fleet.machine:
        return None  # (a definition changed, or made, here: that engine reads it at its start)
    return owner, "live" if owner in live else "gone", str(title or "")


async def route(engine: Engine, op: str, args: dict[str, Any]) -> str | None:
    """The machine whose engine is to perform ``op`` (None: this engine). Raises
    :class:`Conflict` ``engine_elsewhere`` for an operation that would run something on a
    machine whose engine is not running."""
    if not engine.fleet.shared or op not in (BY_AUTOMATION | BY_RUN | BY_RUNS | BY_SESSION
                                       | {"create"}):
        return None  # (a definition changed, or made, here: that engine reads it at its start)
    place = await engine.read(_place, engine, op, args)
    if place is None:
        return None  # (a definition changed, or made, here: that engine reads it at its start)
    owner, state, title = place
    if state == "live":
        return owner
    if op in RUNS_THERE:
        raise Conflict("engine_elsewhere", f"“{title}” runs on {owner}, and no Errands "
                       f"engine runs there now: start Errands on {owner}, or let it run on "
                       "any machine (errands edit ID --runs-on any)")
    return None  # (a definition changed, or made, here: that engine reads it at its start)
