"""CLI commands for agent runs: what waits for approval, deciding it, transcripts, follow-up
turns, and the approvals an automation has saved ("always allow" rules)."""

from __future__ import annotations

import argparse
import asyncio
import json
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
    said = content.get("shown", content.get("content"))  # (a discussion's question as typed)
    if said:
        lines.append(str(said))
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
        if isinstance(m.content, dict) and m.content.get("turn") == "discussion":
            forked = m.content
            lines.append(f"A discussion of run #{forked.get('run_index')} of "
                         f"{forked.get('title')}; its folder {forked.get('mount')} is "
                         "read-only here")
            continue
        if m.run_id != run:
            run = m.run_id
            lines.append(f"\n— run {run[:8] if run else '?'} —")
        lines.append(message_line(m.role, m.content))
    if not messages:
        lines.append("(no messages yet)")
    emit(args, doc, "\n".join(lines))
    return 0


def session_reply(args: argparse.Namespace) -> int:
    """A follow-up in a session: a discussion (its next turn, or one forked from the run)."""
    store = open_store(args)
    store.session(args.session)  # a clear not_found before anything starts
    op_args = {"session": args.session, "text": args.text, "request_id": args.request_id}
    doc = _discussion_op(args, "reply", op_args, lambda e: e.commands.reply(
        args.session, args.text, request_id=args.request_id))
    emit(args, doc, discussion_text(doc))
    return 0


def discuss(args: argparse.Namespace) -> int:
    """``errands discuss``: start, continue, decide or list discussions of agent runs."""
    target = args.target
    decided = [k for k in ("approve", "deny", "answer") if getattr(args, k)]
    if len(decided) > 1:
        raise InvalidInput("--" + decided[1], "give one decision", "--approve, --deny or "
                           "--answer TEXT", "errands discuss d-3f2a… --approve")
    if target.startswith("d-"):
        if args.run is not None or args.list:
            raise InvalidInput("--run", "a discussion is already forked from its run",
                               "errands discuss d-… \"question\"", "errands discuss d-3f2a… "
                               "\"and then?\"")
        if decided:
            kind = {"approve": "approve_once", "deny": "deny", "answer": "answer"}[decided[0]]
            text = args.answer if kind == "answer" else args.text
            op_args: dict[str, Any] = {"session": target, "decision": kind, "text": text}
            doc = _discussion_op(args, "discussion_decide", op_args, lambda e: e.discussions
                                 .decide(target, Decision(kind=kind, text=text)))  # type: ignore[arg-type]
        elif args.text:
            doc = _discussion_op(args, "discussion_say", {"session": target,
                                                           "text": args.text},
                                 lambda e: e.discussions.say(target, args.text))
        else:
            doc = _discussion_op(args, "discussion", {"session": target},
                                 lambda e: e.discussions.get(target))
        emit(args, doc, discussion_text(doc))
        return 0
    store = open_store(args)
    automation_id = store.resolve_id(target)
    if args.list or (not args.text and not decided):
        docs = _discussion_op(args, "discussions", {"id": automation_id, "run": args.run},
                              lambda e: e.discussions.of_automation(automation_id, args.run))
        docs = docs["discussions"] if isinstance(docs, dict) else docs
        lines = [f"{d['session_id']}  run #{d['run_index']}  {d['turns']} turn(s)"
                 + ("  waits for you" if d.get("waiting") else "") for d in docs]
        emit(args, {"discussions": docs}, "\n".join(lines) or "No discussions yet. Start one: "
             "errands discuss ID --run N \"question\"")
        return 0
    if decided:
        raise InvalidInput("--" + decided[0], "decides in a discussion", "a discussion's id "
                           "(d-…) before it", "errands discuss d-3f2a… --approve")
    if args.run is None:
        raise InvalidInput("--run", "is required to start a discussion", "the number of an "
                           "ended run of the automation", "errands discuss 3f2a --run 4 "
                           "\"why did it skip the tests?\"")
    doc = _discussion_op(args, "discuss", {"id": automation_id, "run": args.run,
                                           "text": args.text, "request_id": args.request_id},
                         lambda e: e.discussions.start(automation_id, args.run, args.text,
                                                       request_id=args.request_id))
    emit(args, doc, discussion_text(doc))
    return 0


def _discussion_op(args: argparse.Namespace, op: str, op_args: dict[str, Any],
                   here: Any) -> Any:
    """Ask the running engine; with none, host one for the moment (a turn needs the
    model and the tools), as ``run-now`` does."""
    from ..engine.service import EngineHost

    def local() -> Any:
        async def go() -> Any:
            host = EngineHost(_dir(args), automatic=False, role="cli")
            engine = await host.start()
            try:
                return await here(engine)
            finally:
                await host.close()
        return asyncio.run(go())

    answer = perform(_dir(args), op, op_args, local, timeout=None, local_takes_lock=True)
    return answer


def discussion_text(doc: dict[str, Any]) -> str:
    """A discussion's turn in words: its answer, or what it waits for and how to decide."""
    sid = doc.get("session_id", "?")
    lines = [f"Discussion {sid} of run #{doc.get('run_index')} · {doc.get('turns', 0)} "
             "turn(s)"]
    waiting = doc.get("waiting")
    error = doc.get("error")
    if error:
        lines.append(f"error: {error.get('code')}: {error.get('message')}")
    if waiting:
        if waiting.get("kind") == "question":
            question = (waiting.get("arguments") or {}).get("question", "")
            lines.append(f"The agent asks: {question}")
            lines.append(f"Answer: errands discuss {sid} --answer TEXT")
        else:
            lines.append(f"It waits for your approval to call {waiting.get('tool')} with "
                         f"{json.dumps(waiting.get('arguments'), ensure_ascii=False)}")
            lines.append(f"Decide: errands discuss {sid} --approve (or --deny)")
    elif doc.get("answer") and not error:
        lines.append(str(doc["answer"]))
    return "\n".join(lines)


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
        if len(words) != 3 or not (words[2].isascii() and words[2].isdigit()
                                   and len(words[2]) <= 9):  # (no rule list is longer)
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


