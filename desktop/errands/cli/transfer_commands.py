"""``errands export [IDS…]`` and ``errands import FILE [--dry-run]`` (see :mod:`errands.transfer`).

``export ID --definition`` prints one automation's stored definition document as it is,
readable or not: the starting point of a repair (``edit --from-json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..catalog import Catalog
from ..errors import InvalidInput
from ..timeutil import utcnow
from ..transfer import (CREATE, MAX_FILE_BYTES, apply_import, export_document, plan_import, read_document,
                        read_entries)
from . import render
from ..jsondoc import pretty
from .commands import _dir, emit, open_store
from .routing import perform


def export(args: argparse.Namespace) -> int:
    store = open_store(args)
    if args.definition:
        if len(args.ids) != 1:
            raise InvalidInput("--definition", f"takes exactly one automation, not {len(args.ids)}",
                               "one ID", "errands export 3f2a91c0 --definition > fixed.json")
        return _stored_definition(args, store, store.resolve_id(args.ids[0]))
    ids = list(dict.fromkeys(store.resolve_id(i) for i in args.ids)) if args.ids else None
    doc, notes = export_document(store, ids, now=utcnow())
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    text = pretty(doc)
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        print(f"note: this export is larger than import reads ({MAX_FILE_BYTES // 1048576} MiB); "
              "export fewer at a time (errands export ID…)", file=sys.stderr)
    print(text)
    return 0


def _stored_definition(args: argparse.Namespace, store: Any, ident: str) -> int:
    text = store.stored_text(ident)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        print("note: the stored definition is not JSON; printed as it is", file=sys.stderr)
        emit(args, text, text)
        return 0
    emit(args, doc, pretty(doc))
    return 0


def _read(source: str) -> Any:
    return read_document(getattr(sys.stdin, "buffer", sys.stdin) if source == "-" else source)


def import_(args: argparse.Namespace) -> int:
    doc = _read(args.file)
    read_entries(doc)  # the file's shape, refused before bothering the engine
    store = open_store(args)
    catalog = Catalog(store)

    def local() -> dict[str, Any]:
        plan = plan_import(catalog, doc)
        if not args.dry_run:
            apply_import(catalog, plan, actor="user")
        return plan.to_dict(dry_run=args.dry_run)

    reply = perform(_dir(args), "import", {"doc": doc, "dry_run": args.dry_run}, local)
    reply.pop("stamp", None)
    emit(args, reply, _text(reply))
    return 0


def _text(reply: dict[str, Any]) -> str:
    dry = reply["dry_run"]
    if not reply["items"]:
        return "The file holds no automations; nothing to import."
    rows = []
    for item in reply["items"]:
        action = item["action"]
        shown_action = ("would create" if dry else "created") if action == CREATE else action
        rows.append((item["index"], shown_action, (item["automation_id"] or "")[:8],
                     item["title"], item["request_id"], item["reason"] or ""))
    table = render.table(("#", "ACTION", "ID", "TITLE", "REQUEST ID", "NOTE"), rows)
    if dry:
        summary = (f"Dry run: {reply['created']} would be created, {reply['unchanged']} "
                   "unchanged; nothing was changed.")
    else:
        summary = f"Imported: {reply['created']} created, {reply['unchanged']} unchanged."
    return f"{table}\n{summary}"


