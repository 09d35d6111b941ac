"""``errands worktrees``: the git worktrees Errands kept for runs of automations with
``worktree: true``, pruning those whose removal loses nothing, and removing one by path.

The repositories looked at are the workdirs of the automations with ``worktree: true`` and
the repositories of the folders under ``<data dir>/worktrees`` (so the worktrees of an
automation since deleted, or no longer isolated, are found too). Nothing here writes the
store; git does all the work, in one event loop per command.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from ..agent.worktree import (KeptWorktree, Listing, keep_reason, list_worktrees,
                              prune_worktrees, remove_worktree)
from ..errors import Conflict, InvalidInput, NotFound
from ..paths import worktrees_path
from ..store import Store
from . import render
from .commands import _dir, emit, open_store

Busy = set[tuple[str, int]]


def _folders(store: Store, data_dir: Path) -> list[Path]:
    folders = [Path(a.definition.workdir) for a in store.list()
               if a.definition is not None and a.definition.worktree and a.definition.workdir]
    root = worktrees_path(data_dir)
    try:
        automations = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        automations = []
    for folder in automations:
        try:
            folders += sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
    return list(dict.fromkeys(folders))


def _look(args: argparse.Namespace) -> tuple[Store, Listing, Busy, dict[str, str]]:
    store = open_store(args)
    listing = asyncio.run(list_worktrees(_folders(store, _dir(args)),
                                         worktrees_path(_dir(args))))
    busy = {(r.automation_id, r.index) for r in store.active_runs()}
    titles = {a.id: a.title for a in store.list()}
    return store, listing, busy, titles


def _state(item: KeptWorktree, busy: Busy) -> str:
    if (item.automation_id, item.run_index) in busy:
        return "in use"
    if item.tampered:
        return "tampered"
    if item.missing:
        return "folder gone"
    if not item.changed:
        return "no changes"
    if item.uncommitted:
        return "uncommitted"
    return "merged" if item.merged else "not merged"


def _doc(item: KeptWorktree, busy: Busy, titles: dict[str, str]) -> dict[str, Any]:
    return {**item.to_dict(), "title": titles.get(item.automation_id),
            "in_use": (item.automation_id, item.run_index) in busy,
            "state": _state(item, busy)}


def _notes(listing: Listing) -> None:
    for note in listing.notes:
        print(f"note: {note}", file=sys.stderr)


def worktrees(args: argparse.Namespace) -> int:
    _, listing, busy, titles = _look(args)
    if args.prune:
        return _prune(args, listing, busy, titles)
    docs = [_doc(w, busy, titles) for w in listing.worktrees]
    _notes(listing)
    if not docs:
        text = "No worktrees kept by Errands."
    else:
        text = render.table(
            ("AUTOMATION", "TITLE", "RUN", "CHANGED", "STATE", "BRANCH", "PATH"),
            [(d["automation_id"][:8], d["title"] or "(deleted)", d["run_index"],
              d["changed_files"], d["state"], d["branch"], d["path"]) for d in docs])
    emit(args, {"worktrees": docs, "notes": listing.notes}, text)
    return 0


def _prune(args: argparse.Namespace, listing: Listing, busy: Busy,
           titles: dict[str, str]) -> int:
    removed, kept = asyncio.run(prune_worktrees(listing.worktrees, busy))  # never a tampered one
    _notes(listing)
    lines = [f"Removed {w.path} (branch {w.branch}, {_state(w, busy)})" for w in removed]
    lines += [f"Kept {w.path}: {why}" for w, why in kept]
    if any(w.changed for w, _ in kept):
        lines.append("Merge what you want, then prune again; or discard one with "
                     "'errands worktrees remove PATH --force'.")
    doc = {"removed": [_doc(w, busy, titles) for w in removed],
           "kept": [{**_doc(w, busy, titles), "reason": why} for w, why in kept],
           "notes": listing.notes}
    emit(args, doc, "\n".join(lines) if lines else "No worktrees kept by Errands.")
    return 0


def remove(args: argparse.Namespace) -> int:
    if args.prune:
        raise InvalidInput("--prune", "cannot be combined with remove",
                           "either --prune or remove PATH", "errands worktrees --prune")
    _, listing, busy, titles = _look(args)
    wanted = Path(os.path.abspath(os.path.expanduser(args.path)))
    item = next((w for w in listing.worktrees if _same(w.path, wanted)), None)
    if item is None:
        raise NotFound(f"no worktree kept by Errands at {wanted}; 'errands worktrees' lists "
                       "them")
    if (item.automation_id, item.run_index) in busy:
        raise Conflict("busy", f"{item.path} is used by run {item.run_index} of "
                       f"{titles.get(item.automation_id, item.automation_id)}, which has not "
                       "finished; stop it first")
    if not item.disposable and not args.force:
        shown = ", ".join(item.changed[:5]) + (" …" if len(item.changed) > 5 else "")
        raise Conflict("has_changes", f"{item.path} has {keep_reason(item)} ({shown}); add "
                       "--force to discard them with its branch")
    asyncio.run(remove_worktree(item, worktrees_path(_dir(args))))
    emit(args, {"removed": _doc(item, busy, titles)},
         f"Removed {item.path} and its branch {item.branch}"
         + ("" if item.disposable else f", discarding {len(item.changed)} changed file(s)"))
    return 0


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return a == b


