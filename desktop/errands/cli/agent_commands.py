"""CLI commands for agent runs: what waits for approval, deciding it, transcripts, follow-up
turns, and the approvals an automation has saved ("always allow" rules)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from ..catalog import Catalog
from ..errors import InvalidInput
from ..records import Decision
from ..timeutil import format_instant
from . import render
from .commands import _dir, emit, open_store
from .observe import decide_run
from .routing import perform


def approvals(args: argparse.Namespace) -> int:
    store = open_store(args)
    ident = store.resolve_id(args.id) if getattr(args, "id", None) else None
    items = store.parked(ident)
    titles = {a.id: a.title for a in store.list()} if items else {}
    doc = {"approvals": [{"run_id": p.run_id, "automation_id": p.automation_id,
                          "run_index": p.run_index, "kind": p.blocker.kind,
                          "tool": p.blocker.tool, "arguments": p.blocker.arguments,
                          "question": p.blocker.question, "choices": p.blocker.choices,
                          "requested_at": format_instant(p.requested_at),
                          "expires_at": format_instant(p.expires_at)} for p in items]}
    text = (render.table(("RUN", "AUTOMATION", "#", "WAITS FOR", "EXPIRES"),
                         [(p.run_id[:8], titles.get(p.automation_id, p.automation_id[:8]),
                           p.run_index, p.blocker.summary()[:70], render.local(p.expires_at))
                          for p in items])
            + "\n\nDecide with: errands approve RUN [--always] | errands deny RUN | "
              "errands answer RUN TEXT"
            if items else "No run is waiting for a decision.")
    emit(args, doc, text)
    return 0


def approve(args: argparse.Namespace) -> int:
    kind = "approve_always" if args.always else "approve_once"
    return decide_run(args, Decision(kind, rule=args.rule))


def deny(args: argparse.Namespace) -> int:
    return decide_run(args, Decision("deny", text=args.note))


def answer(args: argparse.Namespace) -> int:
    return decide_run(args, Decision("answer", text=args.text))


# ------------------------------------------------------------------ sessions

def _content_text(role: str, content: dict[str, Any]) -> str:
    if role == "tool":
        return f"[{content.get('name', 'tool')} →] {content.get('content', '')}"
    lines = []
    if content.get("content"):
        lines.append(str(content["content"]))
    for call in content.get("tool_calls") or ():
        fn = call.get("function", {})
        lines.append(f"→ {fn.get('name')}({fn.get('arguments', '')})")
    return "\n".join(lines) or "(nothing)"


def message_line(role: str, content: dict[str, Any]) -> str:
    """One transcript message as a line: who said it, and what."""
    label = {"user": "You" if content.get("turn") == "reply" else "Errands",
             "assistant": "Agent", "tool": "Tool"}.get(role, role)
    return f"{label}: {_content_text(role, content)}"


def session_show(args: argparse.Namespace) -> int:
    store = open_store(args)
    info = store.session(args.session)
    messages = store.messages(info.id)
    doc = {"session": info.to_dict(), "messages": [m.to_dict() for m in messages]}
    lines = [f"{info.title} ({info.kind} session {info.id})"]
    run = None
    for m in messages:
        if m.run_id != run:
            run = m.run_id
            lines.append(f"\n— run {run[:8] if run else '?'} —")
        lines.append(message_line(m.role, m.content))
    if not messages:
        lines.append("(no messages yet)")
    emit(args, doc, "\n".join(lines))
    return 0


def session_reply(args: argparse.Namespace) -> int:
    store = open_store(args)
    store.session(args.session)  # a clear not_found before anything starts
    op_args = {"session": args.session, "text": args.text, "request_id": args.request_id,
               "wait": args.wait}

    def here() -> dict[str, Any]:
        from ..engine.service import EngineHost

        async def go() -> dict[str, Any]:
            host = EngineHost(_dir(args), automatic=False, role="cli")
            engine = await host.start()
            try:
                run = await engine.commands.reply(args.session, args.text, request_id=args.request_id)
                return (await engine.commands.wait_run(run.id)).to_dict(with_output=True)
            finally:
                await host.close()
        return asyncio.run(go())

    reply = perform(_dir(args), "reply", op_args, here, timeout=None if args.wait else 30.0,
                    local_takes_lock=True)
    run = store.get_run(reply["id"])
    text = f"Run #{run.index} {run.state}"
    if run.result:
        text += f"\n{run.result}"
    if run.error_code:
        text += f"\nerror: {run.error_code}: {run.error_message}"
    emit(args, reply, text)
    return 0


# ------------------------------------------------------------------ saved approvals

def _rules_doc(automation: Any) -> list[dict[str, Any]]:
    d = automation.definition
    if d is None:
        return []
    return [{"n": i + 1, "tool": r.tool, "pattern": r.pattern, "action": r.action}
            for i, r in enumerate(d.permissions.rules)]


def rules(args: argparse.Namespace) -> int:
    words = args.words
    if words[0] == "remove":
        if len(words) != 3 or not (words[2].isascii() and words[2].isdigit()):
            raise InvalidInput("N", "remove takes an automation id and a rule number",
                               "errands rules remove ID N", "errands rules remove 3f2a 1")
        return rules_remove(args, words[1], int(words[2]))
    if len(words) != 1:
        raise InvalidInput("ID", "give one automation id", "errands rules ID",
                           "errands rules 3f2a")
    store = open_store(args)
    automation = store.get(store.resolve_id(words[0]))
    items = _rules_doc(automation)
    mode = automation.definition.permissions.mode if automation.definition else None
    doc = {"id": automation.id, "mode": mode, "rules": items}
    text = (render.table(("N", "TOOL", "PATTERN", "ACTION"),
                         [(r["n"], r["tool"], r["pattern"][:60], r["action"]) for r in items])
            + f"\n\nRevoke one with: errands rules remove {automation.id[:8]} N"
            if items else f"{automation.title} has no saved approvals (permissions: {mode}).")
    emit(args, doc, text)
    return 0


def rules_remove(args: argparse.Namespace, ident: str, n: int) -> int:
    store = open_store(args)
    ident = store.resolve_id(ident)
    automation = store.get(ident)
    d = automation.definition
    count = len(d.permissions.rules) if d is not None else 0
    if not 1 <= n <= count:
        raise InvalidInput("N", f"{automation.title} has {count} saved rule(s)",
                           f"a number from 1 to {count}" if count else "no rule to remove",
                           f"errands rules remove {ident[:8]} 1")
    assert d is not None
    doc = d.to_dict()
    removed = doc["permissions"]["rules"].pop(n - 1)

    def local() -> dict[str, Any]:
        revised, changed = Catalog(store).revise(ident, doc, actor="user")
        return {"automation": revised.to_dict(), "changed": changed}

    reply = perform(_dir(args), "revise", {"id": ident, "doc": doc}, local)
    revision = reply["automation"]["revision"]
    emit(args, {"removed": removed, "revision": revision},
         f"Removed rule {n} ({removed['tool']} {removed['pattern']} → "
         f"{removed['action']}); {automation.title} is now at revision {revision}.")
    return 0


