"""What changed in a watched folder: the file-system side of the folder trigger, plain and
synchronous (it runs on a worker thread, never on the engine's loop).

A snapshot maps each matching file's path, relative to the folder and written with ``/``,
to ``[mtime_ns, size, inode]``. It is what the trigger remembers across restarts (changes
made while Errands was closed are the difference between the stored snapshot and a new
scan) and what tells a move from a deletion and a creation (the same inode)."""

from __future__ import annotations

import os
import stat
from fnmatch import fnmatchcase
from typing import Any, Iterable

from .event_triggers import FolderTrigger

MAX_FILES = 200_000          # a snapshot larger than this is cut (and says so)
MAX_LISTED = 1_000           # changes listed in a run's payload; the rest are counted
CREATED, MODIFIED, DELETED = 1, 2, 3   # watchfiles.Change's values

Snapshot = dict[str, list[int]]


def matches(rel: str, trigger: FolderTrigger) -> bool:
    """Whether a file, by its relative path, is one the trigger watches: a pattern with a
    ``/`` is matched against the whole relative path, one without against the name."""
    def hit(pattern: str) -> bool:
        return fnmatchcase(rel if "/" in pattern else rel.rsplit("/", 1)[-1], pattern)
    if trigger.include and not any(hit(p) for p in trigger.include):
        return False
    return not any(hit(p) for p in trigger.exclude)


def _relative(root: str, path: str) -> str | None:
    rel = os.path.relpath(path, root)
    if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
        return None
    return rel.replace(os.sep, "/")


def scan(trigger: FolderTrigger) -> tuple[Snapshot, bool]:
    """Every matching file under the folder now, and whether the snapshot was cut at
    ``MAX_FILES``. Raises OSError when the folder itself cannot be read."""
    root = trigger.path
    os.listdir(root)  # (a missing or unreadable folder raises here, with its reason)
    out: Snapshot = {}
    for folder, subfolders, files in os.walk(root):
        if not trigger.recursive:
            subfolders.clear()
        for name in files:
            path = os.path.join(folder, name)
            rel = _relative(root, path)
            if rel is None or not matches(rel, trigger):
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                out[rel] = [st.st_mtime_ns, st.st_size, st.st_ino]
                if len(out) >= MAX_FILES:
                    return out, True
    return out, False


def diff(old: Snapshot, new: Snapshot, trigger: FolderTrigger) -> list[tuple[str, str]]:
    """The changes from ``old`` to ``new``, as (change, path): a path gone and another come
    with the same inode is one ``moved`` (path ``old -> new``)."""
    gone = {p: v for p, v in old.items() if p not in new}
    come = {p: v for p, v in new.items() if p not in old}
    by_inode = {v[2]: p for p, v in gone.items()}
    changes: list[tuple[str, str]] = []
    for path, value in come.items():
        source = by_inode.pop(value[2], None)
        if source is not None:
            gone.pop(source, None)
            changes.append(("moved", f"{source} -> {path}"))
        else:
            changes.append(("created", path))
    changes += [("modified", p) for p, v in new.items() if p in old and old[p][:2] != v[:2]]
    changes += [("deleted", p) for p in gone]
    return [c for c in changes if c[0] in trigger.changes]


def apply(snapshot: Snapshot, raw: Iterable[tuple[Any, str]],
          trigger: FolderTrigger) -> tuple[list[tuple[str, str]], Snapshot]:
    """What a burst of watcher reports (watchfiles' (change, absolute path)) means for the
    trigger: its changes, and the snapshot after them. Each path is looked at once, as it
    is now, so a file made and removed within the burst is no change at all."""
    touched: dict[str, int] = {}
    for change, path in raw:
        rel = _relative(trigger.path, path)
        if rel is None or (not trigger.recursive and "/" in rel):
            continue
        touched[rel] = int(change)
    _folders(touched, snapshot, trigger)
    now: Snapshot = {}
    for rel in touched:
        if not matches(rel, trigger) and rel not in snapshot:
            continue
        try:
            st = os.lstat(os.path.join(trigger.path, rel))
        except OSError:
            continue  # gone
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            if matches(rel, trigger):
                now[rel] = [st.st_mtime_ns, st.st_size, st.st_ino]
    before = {rel: snapshot[rel] for rel in touched if rel in snapshot}
    changes = diff(before, now, trigger)
    after = dict(snapshot)
    for rel in touched:
        after.pop(rel, None)
    after.update(now)
    return changes, after


def _folders(touched: dict[str, int], snapshot: Snapshot, trigger: FolderTrigger) -> None:
    """A folder reported as come (moved in, made) brings the files under it, one reported
    as gone takes the files the snapshot had under it: the watcher names the folder
    only."""
    below: dict[str, list[str]] | None = None
    for rel in list(touched):
        full = os.path.join(trigger.path, rel)
        if os.path.isdir(full) and not os.path.islink(full):
            if trigger.recursive:
                for folder, _subfolders, files in os.walk(full):
                    for name in files:
                        inner = _relative(trigger.path, os.path.join(folder, name))
                        if inner is not None:
                            touched.setdefault(inner, CREATED)
            continue
        if rel in snapshot or os.path.lexists(full):
            continue
        if below is None:  # (built once, and only when a folder went)
            below = {}
            for key in snapshot:
                parts = key.split("/")
                for i in range(1, len(parts)):
                    below.setdefault("/".join(parts[:i]), []).append(key)
        for key in below.get(rel, ()):
            touched.setdefault(key, DELETED)


def payload(trigger: FolderTrigger, changes: list[tuple[str, str]],
            while_closed: bool = False) -> dict[str, Any]:
    """What a run started by these changes is given: the folder, the changes (at most
    ``MAX_LISTED``; ``count`` has them all) and whether Errands was closed meanwhile."""
    return {"folder": trigger.path, "count": len(changes),
            "changes": [{"change": c, "path": p} for c, p in changes[:MAX_LISTED]],
            "truncated": len(changes) > MAX_LISTED, "while_closed": while_closed}
