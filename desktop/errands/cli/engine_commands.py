"""CLI commands that need the engine: ``serve``, ``run-now``, ``stop``, ``attention``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ..errors import Conflict
from . import render
from .commands import _dir, emit, open_store, run_log
from .routing import perform


def serve(args: argparse.Namespace) -> int:
    from ..engine.service import serve as run_engine
    from ..logs import setup_logging

    setup_logging("serve")
    try:
        asyncio.run(run_engine(_dir(args), announce=lambda text: print(text, flush=True),
                               standby=bool(getattr(args, "standby", False))))
    except KeyboardInterrupt:
        pass
    return 0


def _run_here(args: argparse.Namespace, ident: str) -> dict[str, Any]:
    """No engine runs: host one just for this run (it fires nothing on its own) and wait."""
    from ..engine.service import EngineHost

    async def go() -> dict[str, Any]:
        host = EngineHost(_dir(args), automatic=False, role="cli")
        engine = await host.start()
        try:
            run = await engine.commands.run_now(ident, request_id=args.request_id, dry_run=args.dry_run)
            return (await engine.commands.wait_run(run.id)).to_dict(with_output=True)
        finally:
            await host.close()

    from ..catalog import refuse_archived

    store = open_store(args)
    stored = store.get(ident)
    refuse_archived(ident, stored.title, stored.status)  # (before saying it runs here)
    d = stored.definition
    if store.dialect != "sqlite" and d is not None and d.runs_on not in ("any", store.machine):
        raise Conflict("engine_elsewhere", f"“{stored.title}” runs on {d.runs_on}, and no "
                       f"Errands engine runs there now: start Errands on {d.runs_on}, or let "
                       "it run on any machine (errands edit ID --runs-on any)")
    if not args.wait and not getattr(args, "json", False):
        print("note: no engine is running, so this run happens here; waiting for it …",
              file=sys.stderr)
    return asyncio.run(go())


def _hosted(args: argparse.Namespace, work: Any) -> Any:
    """No engine runs: host one for this one request (it fires nothing on its own)."""
    from ..engine.service import EngineHost

    async def go() -> Any:
        host = EngineHost(_dir(args), automatic=False, role="cli")
        engine = await host.start()
        try:
            return await work(engine)
        finally:
            await host.close()
    return asyncio.run(go())


def _event_arg(args: argparse.Namespace) -> Any:
    """``--event`` (JSON, or @FILE) or ``--event-run N`` as a dry run's event."""
    if args.event_run is not None:
        return {"run": args.event_run}
    if args.event is None:
        return None
    from .. import jsondoc
    from ..errors import InvalidInput
    text = args.event
    if text.startswith("@"):
        try:
            with open(text[1:], "rb") as f:
                text = f.read(1024 * 1024 + 1).decode("utf-8", "replace")
        except OSError as exc:
            raise InvalidInput("--event", f"cannot read {text[1:]}: {exc.strerror or exc}",
                               "JSON, or @FILE", "@event.json") from None
    return jsondoc.loads(text, "--event")


def _try_script(args: argparse.Namespace, ident: str) -> int:
    event = _event_arg(args)
    op_args = {"id": ident, "doc": None, "event": event}
    reply = perform(_dir(args), "try_script", op_args,
                    lambda: _hosted(args, lambda e: e.scripts.try_script(ident, event=event)),
                    timeout=None, local_takes_lock=True)
    reply.pop("stamp", None)
    emit(args, reply, render.script_trial(reply))
    return 0 if reply.get("status") == "ok" else 1


def _over_existing(args: argparse.Namespace, ident: str) -> int:
    op_args = {"id": ident, "offset": args.offset, "dry_run": args.dry_run}
    reply = perform(_dir(args), "run_over_existing", op_args,
                    lambda: _hosted(args, lambda e: e.scripts.run_over_existing(
                        ident, offset=args.offset, dry_run=args.dry_run)),
                    timeout=None, local_takes_lock=True)
    reply.pop("stamp", None)
    emit(args, reply, render.over_existing(reply))
    return 0


def run_now(args: argparse.Namespace) -> int:
    store = open_store(args)
    ident = store.resolve_id(args.id)
    if args.over_existing:
        return _over_existing(args, ident)
    stored = store.get(ident)
    if stored.definition is not None and stored.definition.runner.kind == "script" \
            and args.dry_run:
        return _try_script(args, ident)
    if args.event is not None or args.event_run is not None:
        from ..errors import InvalidInput
        raise InvalidInput("--event", "applies to a script's dry run", "--dry-run with "
                           "--event, on a script automation", "--dry-run --event-run 3")
    op_args = {"id": ident, "request_id": args.request_id, "dry_run": args.dry_run,
               "wait": args.wait}
    reply = perform(_dir(args), "run_now", op_args, lambda: _run_here(args, ident),
                    timeout=None if args.wait else 30.0, local_takes_lock=True)
    run = store.get_run(reply["id"])
    text = f"Run #{run.index} {run.state}" + (" (dry run)" if run.dry_run else "")
    if run.result:
        text += f"\n{run.result}"
    if run.error_code:
        text += f"\nerror: {run.error_code}: {run.error_message}"
    log = run_log(_dir(args), run.automation_id, run.id)
    if log:
        text += f"\nlog: {log}"
    emit(args, {**reply, "log": log}, text)
    if not args.wait:  # the run was accepted (or, repeated, is what was recorded): done
        return 0
    return 0 if run.state == "succeeded" else 1


def stop(args: argparse.Namespace) -> int:
    store = open_store(args)
    ident = store.resolve_id(args.id)

    def local() -> Any:
        raise Conflict("not_running", f"{store.get(ident).title} has no active run "
                       "(no engine is running)")

    reply = perform(_dir(args), "stop", {"id": ident}, local)
    emit(args, reply, f"Stopped run #{reply['index']} ({reply['state']})")
    return 0


def attention(args: argparse.Namespace) -> int:
    items = open_store(args).attention(unread_only=args.unread)
    emit(args, {"items": [i.to_dict() for i in items]},
         render.table(("ID", "", "WHEN", "KIND", "TITLE", "DETAIL"),
                      [(i.id, " " if i.read else "•", render.local(i.created_at), i.kind,
                        i.title, (i.body or "").replace("\n", " ")[:60]) for i in items])
         if items else "Nothing needs your attention.")
    return 0


def attention_read(args: argparse.Namespace) -> int:
    store = open_store(args)
    if args.all == (args.item is not None):
        from ..errors import InvalidInput
        raise InvalidInput("ID", "give an item id or --all", "an attention item id, or --all",
                           "errands attention read --all")
    reply = perform(_dir(args), "attention_read", {"item": args.item},
                    lambda: {"marked": store.mark_attention_read(args.item)})
    emit(args, reply, render.marked(args.item, reply["marked"]))
    return 0


