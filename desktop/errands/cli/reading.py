"""``list``, ``show`` and ``runs``: answered by the running engine over its channel when
one runs (the standard library and one round trip: no database driver, no asyncio), read
from the database otherwise (``commands``). Both give the same documents."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..channel import EngineUnreachable, request_sync
from ..errors import InvalidInput
from ..jsondoc import pretty
from ..paths import data_dir


def _root(args: argparse.Namespace) -> Path:
    return data_dir(getattr(args, "data_dir", None))


def _ask(args: argparse.Namespace, op: str, op_args: dict[str, Any]) -> Any:
    """The engine's answer, or None when no engine answers (the caller reads the database,
    which says what is wrong with a data folder that cannot be used)."""
    from ..engine.lock import read_owner

    try:
        root = _root(args)
        owner = read_owner(root)
    except OSError:
        return None
    if owner is None or owner.role != "engine" or not owner.address:
        return None
    try:
        answer = request_sync(owner.address, op, op_args, timeout=30.0, data_dir=root)
    except EngineUnreachable:  # stopping, or gone mid-answer: a read of the database
        return None            # answers as well
    except InvalidInput as exc:
        if exc.field == "op" or (exc.field in op_args
                                 and exc.message.startswith("unknown argument")):
            return None        # an engine from before this operation or argument (the app
        raise                  # still open after an update): the database answers
    if isinstance(answer, dict):
        answer.pop("stamp", None)
    return answer


def _print(doc: Any) -> None:
    print(pretty(doc))


def list_(args: argparse.Namespace) -> int:
    """Every automation but the archived ones; ``--archived``: only those. With ``--json``
    the engine hands over the whole text, rendered once and kept until a record changes."""
    archived = bool(getattr(args, "archived", False))
    as_json = bool(getattr(args, "json", False))
    answer = _ask(args, "automations", {"archived": archived, "rendered": True} if as_json
                  else {"archived": archived})
    if answer is None:
        from .commands import list_ as from_database
        return from_database(args)
    if as_json:
        sys.stdout.write(answer["text"] + "\n")
    else:
        from . import render
        print(render.automation_docs(answer["automations"], archived=archived,
                                     others=answer["others"]))
    return 0


def show(args: argparse.Namespace) -> int:
    answer = _ask(args, "automation", {"id": args.id}) if getattr(args, "json", False) \
        else None
    if answer is None:  # (the text form is rendered from the stored record)
        from .commands import show as from_database
        return from_database(args)
    _print(answer)
    return 0


def runs(args: argparse.Namespace) -> int:
    answer = None
    if getattr(args, "json", False):
        answer = _ask(args, "runs", {"id": args.id, "limit": args.limit,
                                     "cursor": args.cursor})
    if answer is None:
        from .commands import runs as from_database
        return from_database(args)
    from ..paths import run_log_path

    root = _root(args)

    def log(run: dict[str, Any]) -> str | None:
        path = run_log_path(root, run["automation_id"], run["id"])
        return str(path) if path.is_file() else None

    _print({"runs": [{**r, "log": log(r)} for r in answer["items"]],
            "next_cursor": answer["next_cursor"]})
    return 0


FOLLOW_WAIT = 10.0   # seconds each request of --follow waits for more output


def output(args: argparse.Namespace) -> int:
    """A run's output so far (an agent run's transcript); ``--follow``: then what it prints,
    as it prints it, until the run ends. Asked of the running engine, which holds what a
    running command printed; with no engine, the run's kept output is read from the
    database."""
    follow = bool(getattr(args, "follow", False))
    as_json = bool(getattr(args, "json", False))
    answer = _ask(args, "output", {"run": args.run})
    if answer is None:
        answer = _stored_output(args)
        follow = False
    shown_messages = 0
    while True:
        shown_messages = _show_output(answer, as_json, shown_messages, follow)
        if not follow or answer["ended"]:
            return 0
        position = answer["position"]
        nxt = _ask(args, "output", {"run": answer["run"], "wait": FOLLOW_WAIT,
                                    **({"after": position} if position is not None else {})})
        if nxt is None:   # the engine went away before the run ended: say so, never "done"
            print(f"error: the engine stopped before run {answer['run']} ended; "
                  f"'errands output {answer['run']}' shows what was kept", file=sys.stderr)
            return 1
        if position is not None and nxt["position"] is None:
            # no longer live: what is kept is the end of what it printed, and some of it
            # was shown already; rather than again, say where the whole of it is
            nxt = {**nxt, "output": "", "cut": True}
        answer = nxt


CUT_NOTE = ("[output dropped here: it was printed faster than it was read; the run's log "
            "has all of it]")


def _show_output(answer: dict[str, Any], as_json: bool, shown_messages: int,
                 following: bool) -> int:
    """Print one answer (with ``--json --follow``, one line of JSON each); returns how many
    transcript messages have been printed."""
    messages = answer.get("transcript") or []
    if as_json:
        doc = {"run": answer["run"], "state": answer["state"], "output": answer["output"],
               "transcript": (messages[shown_messages:] if answer.get("transcript") is not None
                              else None),
               "ended": answer["ended"]}
        if following:   # (where a follower is, and whether bytes were skipped before it)
            doc.update(position=answer.get("position"), cut=bool(answer.get("cut")))
        print(json.dumps(doc, ensure_ascii=False) if following else pretty(doc), flush=True)
        return len(messages)
    if messages:
        from .agent_commands import message_line
        for message in messages[shown_messages:]:
            print(message_line(message["role"], message["content"]), flush=True)
        return len(messages)
    if following and answer.get("cut"):
        sys.stdout.flush()
        print(CUT_NOTE, file=sys.stderr, flush=True)
    if answer["output"]:
        sys.stdout.write(answer["output"])
        sys.stdout.flush()
    return shown_messages


def _stored_output(args: argparse.Namespace) -> dict[str, Any]:
    from ..records import ACTIVE_STATES
    from .commands import open_store

    store = open_store(args)
    run = store.get_run(store.resolve_run(args.run))
    return {"run": run.id, "automation_id": run.automation_id, "state": run.state,
            "output": run.output_tail or "", "position": None, "cut": False,
            "ended": run.state not in ACTIVE_STATES,
            "transcript": ([m.to_dict() for m in store.messages(run.session_id)]
                           if run.session_id else None)}
