"""One function per CLI command. Each returns the exit code."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import jsondoc
from ..jsondoc import pretty
from ..catalog import Catalog, stale
from ..errors import ErrandsError, InvalidInput
from ..event_triggers import ids_of_kind
from ..db.location import ServerDatabase, database_location
from ..paths import run_log_path
from ..settings import Settings, check_key, env_name, normalize
from ..schedule import describe, next_fires
from ..records import Automation
from ..store import Store
from ..timeutil import format_instant, parse_instant, shown, system_zone_name, utcnow
from ..definition import parse_definition, ParseContext
from . import render
from ..schedule_spec import spec_to_trigger
from .options import build_document, phrase_locale
from .data_folder import _dir, _unusable
from .routing import perform


def emit(args: argparse.Namespace, doc: Any, text: str) -> None:
    if getattr(args, "json", False):
        print(pretty(doc))
    else:
        print(text)


def read_secret(from_stdin: bool, flag: str, prompt: str, example: str) -> str:
    """A secret from one line of standard input (``flag``), or typed unseen at a terminal;
    never from an argument (it would show in the process list and the shell's history)."""
    import getpass
    if from_stdin:
        text = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty():
        text = getpass.getpass(prompt)
    else:
        raise InvalidInput(flag, "nothing given", f"it on standard input with {flag}",
                           example)
    if not text:
        raise InvalidInput(flag, "it is empty", "one line", "(typed on standard input)")
    return text


def open_store(args: argparse.Namespace) -> Store:
    return _open(args, database_location(_dir(args)))


def _open(args: argparse.Namespace, path: "Path | ServerDatabase") -> Store:
    try:
        return Store(path)
    except OSError as exc:  # e.g. the database path is a folder
        raise _unusable(args, exc) from exc


def _catalog(args: argparse.Namespace) -> Catalog:
    return Catalog(open_store(args))


def _from_reply(store: Store, doc: dict[str, Any]) -> Automation:
    """The automation a reply describes, read back for the human rendering."""
    return store.get(doc["id"])


def _read_json(source: str) -> Any:
    """The document in a file or on standard input, read no further than the size limit."""
    limit = jsondoc.MAX_DOCUMENT_BYTES + 1
    try:
        if source == "-":
            stdin = getattr(sys.stdin, "buffer", sys.stdin)
            data = stdin.read(limit)
        else:
            with open(source, "rb") as f:
                data = f.read(limit)
    except (OSError, ValueError) as exc:  # ValueError: standard input is closed
        raise InvalidInput("--from-json", f"cannot read {source}: "
                           f"{getattr(exc, 'strerror', None) or exc}",
                           "a readable JSON file, or - for standard input", "automation.json")
    return jsondoc.loads(data)


# what ``add``/``edit --from-json`` may be given besides the document itself
_FROM_JSON_COMPATIBLE = {"from_json", "request_id", "data_dir", "json", "handler", "command_name",
                         "id", "tray"}


def _from_json_alone(args: argparse.Namespace, usage: str) -> Any:
    """The document of ``--from-json``, refusing options that would have to merge into it."""
    given = [name for name, value in vars(args).items()
             if value is not None and name not in _FROM_JSON_COMPATIBLE]
    if given:
        flag = "--" + sorted(given)[0].replace("_", "-")
        raise InvalidInput(flag, "cannot be combined with --from-json; put it in the "
                           "document instead", "--from-json FILE alone", usage)
    return _read_json(args.from_json)


def add(args: argparse.Namespace) -> int:
    catalog = _catalog(args)
    warnings: list[str] = []
    request_id = args.request_id
    if args.from_json:
        doc = _from_json_alone(args, "errands add --from-json automation.json")
        if isinstance(doc, dict) and "request_id" in doc:
            if request_id is not None and doc["request_id"] != request_id:
                raise InvalidInput("--request-id", "differs from the document's request_id",
                                   "the request id in one place only", "--request-id r-1")
            request_id = doc["request_id"]
            doc = {k: v for k, v in doc.items() if k != "request_id"}
    else:
        _resolve_followed(args, catalog)
        doc, warnings = build_document(args, None, catalog.clock())

    def local() -> dict[str, Any]:
        from ..scripts.compile import check_now
        check_now(doc)
        automation, created = catalog.create(doc, request_id=request_id, actor="user")
        return {"automation": automation.to_dict(), "created": created}

    reply = perform(_dir(args), "create", {"doc": doc, "request_id": request_id}, local)
    for w in warnings:
        print(f"note: {w}", file=sys.stderr)
    automation = _from_reply(catalog.store, reply["automation"])
    verb = "Created" if reply["created"] else "Already exists (same request id):"
    hooks = _issue_webhooks(args, catalog, automation)
    emit(args, _with_webhooks(reply["automation"], automation, hooks),
         f"{verb} {automation.id}\n{render.automation_detail(automation)}"
         + render.webhook_tokens(hooks))
    return 0


def _token_here(catalog: Any, automation_id: str, trigger_id: str) -> dict[str, str]:
    """A new webhook token made in this process (no engine runs): its hash stored."""
    from ..engine.webhooks import address, new_token
    token, digest = new_token()
    catalog.store.set_webhook_hash(automation_id, trigger_id, digest, catalog.clock())
    port = int(catalog.store.settings().get("webhook_port"))
    return {"trigger": trigger_id, "url": address(port, automation_id, trigger_id),
            "token": token}


def _with_webhooks(doc: dict[str, Any], automation: Any,
                   hooks: list[dict[str, str]]) -> dict[str, Any]:
    """An automation with webhook triggers is answered with ``webhooks``: a token for each
    one made now (empty when none was)."""
    d = automation.definition
    return {**doc, "webhooks": hooks} if d is not None and ids_of_kind(d.trigger, "webhook") \
        else doc


def _resolve_followed(args: argparse.Namespace, catalog: Any) -> None:
    """``--after-automation`` takes an id or its prefix, as every command does."""
    resolved = []
    for ident in getattr(args, "after_automation", None) or ():
        try:
            resolved.append(catalog.store.resolve_id(ident))
        except ErrandsError as exc:
            raise InvalidInput("--after-automation", str(exc), "an automation's id or a "
                               "unique prefix of it (errands list)", "3f2a91c0",
                               reason="not_found") from exc
    if resolved:
        args.after_automation = resolved


def _issue_webhooks(args: argparse.Namespace, catalog: Any, automation: Any
                    ) -> list[dict[str, str]]:
    """A token for each webhook trigger that has none yet (a new one): shown this once."""
    if automation.definition is None:
        return []
    wanted = ids_of_kind(automation.definition.trigger, "webhook")
    if not wanted:
        return []
    have = catalog.store.webhook_hashes()
    out = []
    for trigger_id in wanted:
        if (automation.id, trigger_id) in have:
            continue

        reply = perform(_dir(args), "webhook_token", {"id": automation.id,
                                                      "trigger": trigger_id},
                        lambda t=trigger_id: _token_here(catalog, automation.id, t))
        out.append({k: reply[k] for k in ("trigger", "url", "token")})
    return out


def edit(args: argparse.Namespace) -> int:
    """Revise the definition; then ``--paused``/``--no-paused`` pause or resume exactly as
    the ``pause`` and ``resume`` commands do (a resume resets the failure streak)."""
    catalog = _catalog(args)
    ident = catalog.store.resolve_id(args.id)
    current = catalog.store.get(ident)
    warnings: list[str] = []
    if args.from_json:
        doc = _from_json_alone(args, f"errands edit {ident[:8]} --from-json automation.json")
    elif current.definition is None:
        raise InvalidInput("--from-json", f"{current.title} is broken ({current.problem}), so "
                           "options cannot be merged into its stored definition; give a whole "
                           "valid definition instead", "--from-json FILE with a complete "
                           "definition document",
                           f"errands export {ident[:8]} --definition > fixed.json; correct it; "
                           f"errands edit {ident[:8]} --from-json fixed.json")
    else:
        _resolve_followed(args, catalog)
        doc, warnings = build_document(args, current.definition.to_dict(), catalog.clock())

    expected = getattr(args, "expect_revision", None)
    if expected is not None and current.revision != expected:
        raise stale(current, expected)

    def local() -> dict[str, Any]:
        from ..scripts.compile import check_now
        check_now(doc, current.definition.runner if current.definition else None)
        automation, changed = catalog.revise(ident, doc, actor="user",
                                             expected_revision=expected)
        return {"automation": automation.to_dict(), "changed": changed}

    request = {"id": ident, "doc": doc}
    if expected is not None:
        request["expected_revision"] = expected
    reply = perform(_dir(args), "revise", request, local)
    if args.paused is not None and args.paused != current.definition.paused:
        reply = {"automation": _pause(args, catalog, ident, args.paused), "changed": True}
    for w in warnings:
        print(f"note: {w}", file=sys.stderr)
    automation = _from_reply(catalog.store, reply["automation"])
    head = (("Repaired" if current.definition is None else "Revised")
            + f" to revision {automation.revision}" if reply["changed"] else "Nothing changed")
    hooks = _issue_webhooks(args, catalog, automation)
    emit(args, _with_webhooks(reply["automation"], automation, hooks),
         f"{head}\n{render.automation_detail(automation)}" + render.webhook_tokens(hooks))
    return 0


def list_(args: argparse.Namespace) -> int:
    """Every automation but the archived ones; ``--archived``: only those."""
    archived = bool(getattr(args, "archived", False))
    every = open_store(args).list()
    items = [a for a in every if (a.status == "archived") == archived]
    emit(args, {"automations": [a.to_dict() for a in items]},
         render.automation_list(items, archived=archived, others=len(every) - len(items)))
    return 0


def show(args: argparse.Namespace) -> int:
    store = open_store(args)
    automation = store.get(store.resolve_id(args.id))
    emit(args, automation.to_dict(), render.automation_detail(automation))
    return 0


def _pause(args: argparse.Namespace, catalog: Catalog, ident: str, paused: bool) -> Any:
    def local() -> Any:
        if not paused:  # a script is compiled again when it is switched on
            from ..scripts.compile import check_now
            d = catalog.store.get(ident).definition
            if d is not None:
                check_now(d.to_dict())
        return catalog.set_paused(ident, paused, actor="user").to_dict()
    return perform(_dir(args), "pause" if paused else "resume", {"id": ident}, local)


def _set_paused(args: argparse.Namespace, paused: bool) -> int:
    catalog = _catalog(args)
    ident = catalog.store.resolve_id(args.id)
    reply = _pause(args, catalog, ident, paused)
    automation = _from_reply(catalog.store, reply)
    if not paused and automation.status == "completed":  # a one-shot whose fire was missed
        emit(args, reply, f"Resumed {automation.title} — its fire passed while it was "
             "paused: recorded as skipped, and the automation completed")
        return 0
    emit(args, reply, f"{'Paused' if paused else 'Resumed'} {automation.title}"
         f" — next fire {render.local(automation.next_fire_at)}")
    return 0


def pause(args: argparse.Namespace) -> int:
    return _set_paused(args, True)


def resume(args: argparse.Namespace) -> int:
    return _set_paused(args, False)


def _set_archived(args: argparse.Namespace, archived: bool) -> int:
    catalog = _catalog(args)
    ident = catalog.store.resolve_id(args.id)

    def local() -> dict[str, Any]:
        automation, changed = catalog.set_archived(ident, archived, actor="user")
        return {"automation": automation.to_dict(), "changed": changed}

    reply = perform(_dir(args), "archive" if archived else "unarchive", {"id": ident}, local)
    automation = _from_reply(catalog.store, reply["automation"])
    emit(args, reply, render.archived(automation, archived, reply["changed"]))
    return 0


def archive(args: argparse.Namespace) -> int:
    return _set_archived(args, True)


def unarchive(args: argparse.Namespace) -> int:
    return _set_archived(args, False)


def delete(args: argparse.Namespace) -> int:
    """Delete, then say what went with it (runs, transcripts, revisions) and what stays
    (the output logs, in their folder); for one that had runs, that archive keeps them."""
    catalog = _catalog(args)
    ident = catalog.store.resolve_id(args.id)
    title = catalog.store.get(ident).title

    def local() -> dict[str, Any]:
        return {"deleted": ident, "destroyed": catalog.delete(ident, actor="user")}

    reply = perform(_dir(args), "delete", {"id": ident}, local)
    folder = run_log_path(_dir(args), ident, "-").parent
    logs = sum(1 for _ in folder.glob("*.log")) if folder.is_dir() else 0
    reply["output_logs"] = {"kept": logs, "folder": str(folder) if logs else None}
    destroyed = reply.get("destroyed") or {}
    emit(args, reply, render.deleted(title, ident, destroyed, logs, folder))
    if destroyed.get("runs") and not getattr(args, "json", False):
        print("note: to stop an automation for good and keep its runs, transcripts and "
              "logs, archive it instead (errands archive ID; errands unarchive ID brings it "
              "back)", file=sys.stderr)
    return 0


def runs(args: argparse.Namespace) -> int:
    store = open_store(args)
    ident = store.resolve_id(args.id)
    items, cursor = store.runs_page(ident, limit=args.limit, cursor=args.cursor)
    logs = {r.id: run_log(_dir(args), r.automation_id, r.id) for r in items}
    text = render.run_list(items, cursor)  # (the table alone: scripts read its lines)
    emit(args, {"runs": [{**r.to_dict(), "log": logs[r.id]} for r in items],
                "next_cursor": cursor}, text)
    return 0


def run_log(root: Path, automation_id: str, run_id: str) -> str | None:
    """The run's output log (a command run's whole output, every attempt), if it exists."""
    path = run_log_path(root, automation_id, run_id)
    return str(path) if path.is_file() else None


def schedule_preview(args: argparse.Namespace) -> int:
    now = utcnow()
    after = parse_instant(args.after, "--after") if args.after else now
    if args.cron is not None:
        trigger_doc = {"kind": "cron", "expression": args.cron, "timezone": args.tz or system_zone_name()}
    else:
        trigger_doc, _ = spec_to_trigger(args.spec, args.tz, now, locale=phrase_locale(args))
    trigger = _trigger(trigger_doc, now, after, _min_interval(args))
    fires = next_fires(trigger, after, args.count)
    emit(args, {"fires": [format_instant(f) for f in fires], "description": describe(trigger)},
         render.fires(fires, describe(trigger)))
    return 0


def _min_interval(args: argparse.Namespace) -> Any:
    """The interval floor in force, so a preview refuses exactly what ``add`` would.

    A preview only reads: without a database yet it uses the environment and the defaults
    rather than creating one.
    """
    path = database_location(_dir(args))
    if isinstance(path, Path) and not path.exists():
        return Settings().min_interval
    return _open(args, path).settings().min_interval


def _trigger(trigger_doc: dict[str, Any], now: Any, after: Any, min_interval: Any) -> Any:
    """Validate a trigger alone by wrapping it in a minimal definition (one parser for all)."""
    if trigger_doc.get("kind") in ("every", "after") and "start_at" not in trigger_doc:
        trigger_doc = {**trigger_doc, "start_at": format_instant(min(now, after))}
    ctx = ParseContext(now=min(now, after), min_interval=min_interval)
    doc = {"title": "preview", "runner": {"kind": "command", "command": "true"},
           "trigger": trigger_doc}
    return parse_definition(doc, ctx).trigger


def schedule_parse(args: argparse.Namespace) -> int:
    from ..phrases import parse_schedule_text

    now = parse_instant(args.now, "--now") if args.now else utcnow()
    tz = args.tz or system_zone_name()
    parsed = parse_schedule_text(" ".join(args.text), tz, now, phrase_locale(args))
    trigger = _trigger(dict(parsed.trigger), now, now, _min_interval(args))
    doc = {"trigger": parsed.trigger, "prompt": parsed.prompt, "title": parsed.title,
           "stop": parsed.stop, "description": describe(trigger), "warnings": parsed.warnings,
           "words": {"schedule": parsed.used, "prompt": parsed.prompt, "unused": parsed.unused}}
    lines = [f"schedule     {doc['description']}", f"trigger      {json.dumps(parsed.trigger)}",
             "words        " + " | ".join(parsed.used)]
    if parsed.prompt:
        lines += [f"prompt       {parsed.prompt}", f"title        {parsed.title}"]
    if parsed.unused:
        lines.append("not used     " + " | ".join(parsed.unused) + "  (see the notes)")
    if any(parsed.stop.values()):
        lines.append(f"stop         {json.dumps(parsed.stop)}")
    lines += [f"note         {w}" for w in parsed.warnings]
    emit(args, doc, "\n".join(lines))
    return 0


def _shown(settings: Settings, key: str) -> str:
    """The value in force in its canonical form (``60s`` reads ``1m``, as refusals say);
    an invalid environment value as it is, so that listing still works."""
    try:
        return normalize(key, settings.raw(key))
    except InvalidInput:
        return settings.raw(key)


def config_list(args: argparse.Namespace) -> int:
    settings = open_store(args).settings()
    rows = [{**r, "value": _shown(settings, r["key"])} for r in settings.as_rows()]
    emit(args, {"settings": rows},
         render.table(("KEY", "VALUE", "SOURCE", "MEANING"),
                      [(r["key"], r["value"], r["source"], r["help"]) for r in rows]))
    return 0


def config_get(args: argparse.Namespace) -> int:
    settings = open_store(args).settings()
    settings.get(args.key)  # validates the key and the value in force
    doc = {"key": args.key, "value": _shown(settings, args.key),
           "source": settings.source(args.key)}
    emit(args, doc, doc["value"])
    return 0


def config_set(args: argparse.Namespace) -> int:
    store = open_store(args)
    normalize(args.key, args.value)  # refuse a bad value before bothering the engine
    perform(_dir(args), "set_setting", {"key": args.key, "value": args.value},
            lambda: store.set_setting(args.key, args.value))
    settings = store.settings()
    value = settings.stored(args.key)
    doc = {"key": args.key, "value": value, "source": settings.source(args.key)}
    note = ("" if doc["source"] != "environment" else
            f" (but the environment's {env_name(args.key)} overrides it in this shell)")
    emit(args, doc, f"{args.key} = {value}{note}")
    return 0


def config_unset(args: argparse.Namespace) -> int:
    store = open_store(args)
    check_key(args.key)
    perform(_dir(args), "set_setting", {"key": args.key, "value": None},
            lambda: store.unset_setting(args.key))
    settings = store.settings()
    doc = {"key": args.key, "value": _shown(settings, args.key),
           "source": settings.source(args.key)}
    emit(args, doc, f"{args.key} = {doc['value']} ({doc['source']})")
    return 0


def webhook(args: argparse.Namespace) -> int:
    """List an automation's webhook triggers, or give one a new token (``--rotate``)."""
    catalog = _catalog(args)
    ident = catalog.store.resolve_id(args.id)
    automation = catalog.store.get(ident)
    from ..engine.webhooks import address, webhook_members
    members = webhook_members(automation)
    if args.rotate is not None:
        if args.rotate not in members:
            raise InvalidInput("--rotate", f"{automation.title} has no webhook trigger "
                               f"{args.rotate!r}", "one of: " + (", ".join(members) or
                                                                  "(it has none)"),
                               members[0] if members else "webhook", reason="not_found")

        reply = perform(_dir(args), "webhook_token", {"id": ident, "trigger": args.rotate},
                        lambda: _token_here(catalog, ident, args.rotate))
        hook = {k: reply[k] for k in ("trigger", "url", "token")}
        emit(args, hook, render.webhook_tokens([hook]).lstrip("\n"))
        return 0

    def listed() -> dict[str, Any]:
        have = catalog.store.webhook_hashes()
        port = int(catalog.store.settings().get("webhook_port"))
        return {"items": [{"trigger": t, "url": address(port, ident, t),
                           "has_token": (ident, t) in have, "problem": None} for t in members]}

    reply = perform(_dir(args), "webhooks", {"id": ident}, listed)
    items = reply["items"]
    lines = [f"{i['trigger']}: POST {i['url']}" + ("" if i["has_token"] else
                                                     "  (no token yet: --rotate makes one)")
             for i in items] or [f"{automation.title} has no webhook trigger."]
    problems = {i["problem"] for i in items if i.get("problem")}
    lines += [f"note: {p}" for p in problems]
    emit(args, {"webhooks": items}, "\n".join(lines))
    return 0
