"""``errands migrate --to``: the catalogue in use copied into another (``db.copy``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..db.location import (ServerDatabase, database_location, machine_name, parse_database_url,
                           saved_url_path)
from ..errors import Conflict, InvalidInput
from ..paths import database_path
from .commands import _dir, _open, emit
from .routing import engine_address


def _target(args: argparse.Namespace, data: Path) -> Path | ServerDatabase:
    """``local``: this data folder's own file; anything else is read as a shared
    catalogue's URL (refused as ``database use`` refuses it, naming ``--to``)."""
    if args.to.strip().lower() == "local":
        return database_path(data)
    return parse_database_url(args.to, "--to")


def _served(where: Path | ServerDatabase, data: Path) -> str | None:
    """Who runs an engine on ``where`` now: a local one (by the data folder), or a machine."""
    if isinstance(where, Path):
        return "this machine" if engine_address(data) is not None else None
    from ..db.postgres import engine_holder

    return engine_holder(where)


def migrate(args: argparse.Namespace) -> int:
    data = _dir(args)
    source = database_location(data)
    target = _target(args, data)
    if str(source) == str(target):
        raise InvalidInput("--to", f"is the catalogue in use already ({source})",
                           "another catalogue", "errands migrate --to local")
    for where, role in ((source, "copied from"), (target, "copied into")):
        holder = _served(where, data)
        if holder is not None:
            raise Conflict("engine_running", f"an Errands engine on {holder} serves {where}, "
                           f"which would be {role}: runs under way would be copied half "
                           "done, or the engine would not know what arrived. Quit the app "
                           "or stop errands serve there first, then migrate again.")
    from ..db.copy import copy_between, counted

    src_store, dest_store = _open(args, source), _open(args, target)
    try:
        copied = copy_between(src_store, dest_store, machine_name())
    finally:
        src_store.close()
        dest_store.close()
    doc: dict[str, Any] = {"from": str(source), "to": str(target), **copied.to_dict()}
    counts = [counted(name, n) for name, n in copied.rows.items() if n]
    lines = [f"Copied into {target}: " + (", ".join(counts) if counts else "nothing new") + "."]
    if copied.already_there:
        lines.append(f"{len(copied.already_there)} automation(s) were there already and "
                     "were left as they are there.")
    for ident, why in copied.damaged.items():
        lines.append(f"Not copied: automation {ident[:8]} (its stored rows cannot be read: "
                     f"{why}).")
    lines.append(f"Nothing was removed from {source}.")
    if not isinstance(target, Path):
        lines.append(f"To work on the copy from now on: errands database use {target}")
    elif saved_url_path(data).exists():
        lines.append("To work on the copy from now on: errands database use --local")
    else:  # (the source came from --database or the environment)
        lines.append("This data folder's own file holds the copy: commands use it unless "
                     "--database or ERRANDS_DATABASE_URL name another catalogue.")
    emit(args, doc, "\n".join(lines))
    return 0
