"""CLI commands that read the record and decide: ``history``, ``parked``, ``decide``."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from .. import queries
from ..channel import error_from_payload
from ..errors import ErrandsError, InvalidInput
from ..records import Decision
from . import render
from .commands import _dir, emit, open_store
from .routing import perform


# ------------------------------------------------------------------ history

def history(args: argparse.Namespace) -> int:
    if not args.id.strip():
        raise InvalidInput("id", "is empty", "an automation id (or a unique prefix of it)",
                           "errands history 3f2a91c0")
    store = open_store(args)
    try:
        ident = store.resolve_id(args.id)
    except ErrandsError:
        ident = args.id  # a deleted automation keeps its audit trail
    revisions, audit = queries.history(store, ident)
    doc = {"revisions": [r.to_dict() for r in revisions], "audit": [e.to_dict() for e in audit]}
    lines = ["Revisions:"] if revisions else ["No revisions are kept (it was deleted)."]
    for r in revisions:
        what = ", ".join(r.changed) if r.changed else "created"
        lines.append(f"  {r.revision:>3}  {render.local(r.created_at)}  {what}")
    lines.append("Trail:")
    for e in audit:
        detail = ", ".join(f"{k}={v}" for k, v in (e.detail or {}).items())
        rev = f"r{e.revision}" if e.revision else ""
        lines.append(f"  {render.local(e.at)}  {e.action:<14} {rev:<5} by {e.actor}"
                     + (f"  ({detail})" if detail else ""))
    emit(args, doc, "\n".join(lines))
    return 0


# -------------------------------------------------------------- parked runs

def _decision(args: argparse.Namespace) -> Decision:
    chosen = [name for name in ("approve", "always", "deny", "answer")
              if getattr(args, name) not in (None, False)]
    if len(chosen) != 1:
        raise InvalidInput("decision", "give exactly one of --approve, --always, --deny or "
                           "--answer TEXT", "one decision", "errands decide RUN --approve")
    kind = chosen[0]
    for flag, goes_with in (("rule", "always"), ("note", "deny")):
        if getattr(args, flag) is not None and kind != goes_with:
            raise InvalidInput(f"--{flag}", f"goes with --{goes_with} only",
                               f"--{flag} together with --{goes_with}",
                               f"errands decide RUN --{goes_with} --{flag} …")
    if kind == "answer":
        return Decision("answer", text=args.answer)
    if kind == "always":
        return Decision("approve_always", rule=args.rule)
    if kind == "deny":
        return Decision("deny", text=args.note)
    return Decision("approve_once")


def decide(args: argparse.Namespace) -> int:
    return decide_run(args, _decision(args))


BATCH = 1000  # runs per decide_many request (the channel's limit)


def decide_run(args: argparse.Namespace, decision: Decision) -> int:
    """Send a decision about one or more parked runs to the engine (or host one for them);
    print what each run did next. Several runs go in one request and one transaction; a
    run that cannot take the decision costs only itself (the exit status is its error's)."""
    store = open_store(args)
    given = args.run if isinstance(args.run, list) else [args.run]
    if getattr(args, "all", False):
        if given:
            raise InvalidInput("--all", "goes without run ids", "--all, or run ids",
                               "errands approve --all")
        scope = store.resolve_id(args.automation) if args.automation else None
        run_ids = [p.run_id for p in store.parked(scope)  # a question wants an answer
                   if decision.kind == "deny" or p.blocker.kind == "permission"]
        if not run_ids:
            emit(args, {"runs": []}, "No run is waiting for a decision.")
            return 0
    elif getattr(args, "automation", None):
        raise InvalidInput("--automation", "goes with --all only", "--all --automation ID",
                           "errands approve --all --automation 3f2a91c0")
    elif not given:
        raise InvalidInput("run", "is required", "run ids (or unique prefixes), or --all",
                           "errands approve 9b1f0c2e")
    else:
        run_ids = list(dict.fromkeys(store.resolve_run(r) for r in given))
    if len(run_ids) > 1 and args.request_id is not None:
        raise InvalidInput("--request-id", "goes with one run only", "one RUN with --request-id",
                           "errands approve 9b1f0c2e --request-id r1")

    def here() -> dict[str, Any]:
        """No engine runs: host one for these runs (it fires nothing else) until each ends
        or parks again."""
        from ..channel import error_payload
        from ..engine.service import EngineHost

        async def go() -> dict[str, Any]:
            host = EngineHost(_dir(args), automatic=False, role="cli")
            engine = await host.start()
            try:
                if len(run_ids) == 1:
                    decided: list[Any] = [await engine.commands.decide(
                        run_ids[0], decision, request_id=args.request_id)]
                else:
                    decided = await engine.commands.decide_many(run_ids, decision)
                done = [r if isinstance(r, ErrandsError) else await engine.commands.wait_run(r.id)
                        for r in decided]
                return {"hosted": True, "runs": [{"id": i, "refused": error_payload(r)}
                                                 if isinstance(r, ErrandsError) else r.to_dict()
                                                 for i, r in zip(run_ids, done)]}
            finally:
                await host.close()
        return asyncio.run(go())

    common = {"decision": decision.kind, "text": decision.text, "rule": decision.rule}
    replies: list[dict[str, Any]] = []
    if len(run_ids) == 1:
        reply = perform(_dir(args), "decide", {"run": run_ids[0], **common,
                                                "request_id": args.request_id},
                        here, local_takes_lock=True)
        replies = reply["runs"] if reply.get("hosted") else [reply]
    else:
        for i in range(0, len(run_ids), BATCH):  # a request carries at most BATCH runs
            reply = perform(_dir(args), "decide_many",
                            {"runs": run_ids[i:i + BATCH], **common}, here,
                            local_takes_lock=True)
            if reply.get("hosted"):  # no engine: the one hosted here decided them all
                replies = reply["runs"]
                break
            replies += reply["runs"]
    refusals = [error_from_payload(r["refused"]) for r in replies if "refused" in r]
    single = len(given) == 1 and not getattr(args, "all", False)
    if single and refusals:
        raise refusals[0]  # one run: reported as any refusal is
    what = decision.kind.replace("_", " ")
    lines = [f"Run {r['id'][:8]}: {error_from_payload(r['refused'])}" if "refused" in r
             else f"Run #{r['index']}: {what} → {r['state']}" for r in replies]
    emit(args, replies[0] if single else {"runs": replies}, "\n".join(lines))
    return refusals[0].exit_code if refusals else 0


