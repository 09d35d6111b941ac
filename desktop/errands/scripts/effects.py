"""Checking a script's proposed file changes and applying the survivors together.

The check walks the actions in order over an overlay of the disk, so each sees what the
ones before it did (a file written, then appended to; a file moved, then its old name free).
An action whose effect already holds (the same text already there, a file already gone)
is recorded as holding, not as a failure. Only regular files are read, moved or replaced:
a pipe or a device is refused, never opened.

Applying is undoable until its last step. Every new text is first written to a temporary
file beside its target (keeping the mode of the file it replaces); every file that moves is
first renamed aside, so two files may trade names; a replaced or deleted file is renamed
aside too. Only when all of that worked are the moved files put in place (never over an
existing file) and the new texts renamed over their targets; the files set aside are then
removed. A failure before the end puts back everything already done. Before each step the
path is resolved again: a folder swapped for a link since the check stops it.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scope import Refused, Scope

FILE_ACTIONS = ("writeFile", "appendFile", "moveFile", "deleteFile")
MAX_APPEND_BASE = 8 * 1024 * 1024   # a file appended to is read whole: at most this big


class _Gone:
    """An overlay entry: the path will not exist."""


GONE = _Gone()


class ApplyError(OSError):
    """Applying failed; ``undone`` says whether everything done so far was put back."""

    def __init__(self, cause: BaseException, undone: bool) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.undone = undone


@dataclass
class Verdict:
    action: dict[str, Any]
    ok: bool = True
    reason: str | None = None   # why refused, or "already holds"
    holds: bool = False


@dataclass
class Plan:
    """What the surviving file actions leave on disk, path by path: new text (``str``), a
    real file moved there (``Path``), or :data:`GONE`."""

    final: dict[Path, Any] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.final


def _kind(path: Path) -> int | None:
    """The file type bits of ``path`` (not following a last link), None when absent."""
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _exists(plan: Plan, path: Path) -> bool:
    if path in plan.final:
        return plan.final[path] is not GONE
    return _kind(path) is not None


def _regular(path: Path, shown: object) -> None:
    kind = _kind(path)
    if kind == stat.S_IFDIR:
        raise Refused(f"{shown} is a folder; a script changes files")
    if kind is not None and kind != stat.S_IFREG:
        raise Refused(f"{shown} is not a regular file (a pipe, a device or a socket)")


def _parents_ok(plan: Plan, path: Path, shown: object) -> None:
    """Refuse a path under one that is, or will be, a file."""
    for parent in path.parents:
        entry = plan.final.get(parent)
        if isinstance(entry, (str, Path)):
            raise Refused(f"{shown}: {parent} will be a file, not a folder")
        kind = _kind(parent)
        if kind is not None and kind != stat.S_IFDIR:
            raise Refused(f"{shown}: {parent} is a file, not a folder")
        if kind == stat.S_IFDIR:
            return


def read_text(path: Path | str, shown: object, limit: int = MAX_APPEND_BASE,
              purpose: str = "a script may append to") -> str:
    """A regular file's text, exactly (no newline translation), at most ``limit`` bytes;
    never blocks (a pipe or a device is refused, not opened for reading and waited on)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused(f"{shown} is not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        size = f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit // 1024} KB"
        raise Refused(f"{shown} is larger than the {size} {purpose}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{shown} is not a UTF-8 text file") from None


def _text(plan: Plan, path: Path, shown: object) -> str:
    entry = plan.final.get(path)
    if isinstance(entry, str):
        return entry
    if entry is GONE:
        return ""
    real = entry if isinstance(entry, Path) else path
    if _kind(real) is None:
        return ""
    _regular(real, shown)
    return read_text(real, shown)


def check_files(scope: Scope, actions: list[dict[str, Any]]) -> tuple[list[Verdict], Plan]:
    """Verdicts on the file actions among ``actions`` (others pass through as ok), and the
    plan of the survivors. Reads the disk: call it off the loop."""
    plan = Plan()
    verdicts = []
    for action in actions:
        verdict = Verdict(action)
        verdicts.append(verdict)
        if action["type"] not in FILE_ACTIONS:
            continue
        try:
            _check_one(scope, plan, action, verdict)
        except Refused as exc:
            verdict.ok, verdict.reason = False, str(exc)
        except OSError as exc:
            verdict.ok, verdict.reason = False, f"{exc.strerror or exc}"
    return verdicts, plan


def _check_one(scope: Scope, plan: Plan, action: dict[str, Any], verdict: Verdict) -> None:
    kind = action["type"]
    if kind == "moveFile":
        source, target = scope.resolve(action["from"]), scope.resolve(action["to"])
        scope.check(source, "write", given=action["from"])
        scope.check(target, "write", given=action["to"])
        if source == target:
            verdict.holds, verdict.reason = True, "already holds: it is its own target"
            return
        if not _exists(plan, source):
            if _exists(plan, target):
                verdict.holds, verdict.reason = True, "already holds: nothing to move, and " \
                    f"{target.name} is there"
                return
            raise Refused(f"{action['from']} does not exist")
        if source not in plan.final:
            _regular(source, action["from"])
        if _exists(plan, target):
            raise Refused(f"{action['to']} already exists; a script does not overwrite by "
                          "moving (delete it first, or move to another name)")
        _parents_ok(plan, target, action["to"])
        plan.final[target] = plan.final.get(source, source)
        plan.final[source] = GONE
        return
    path = scope.resolve(action["path"])
    scope.check(path, "write", given=action["path"])
    if kind != "deleteFile":
        _parents_ok(plan, path, action["path"])
    if path not in plan.final:
        _regular(path, action["path"])
    if kind == "deleteFile":
        if not _exists(plan, path):
            verdict.holds, verdict.reason = True, "already holds: it is not there"
            return
        plan.final[path] = GONE
        return
    current = _text(plan, path, action["path"]) if _exists(plan, path) else None
    new = action["text"] if kind == "writeFile" else (current or "") + action["text"]
    if current is not None and current == new:
        verdict.holds, verdict.reason = True, "already holds: the file has this text"
        return
    plan.final[path] = new


def _aside(path: Path, tag: str, what: str) -> Path:
    return path.parent / f".errands-{tag}-{uuid.uuid4().hex[:8]}.{what}"


def _unchanged(path: Path) -> None:
    """Refuse to act where a link has appeared on the way since the check."""
    if os.path.realpath(path.parent) != str(path.parent):
        raise OSError(errno.ELOOP, "a folder on its way was changed since the check", str(path))


def _place(source: Path, target: Path) -> None:
    """Move ``source`` to ``target``, never over an existing file."""
    try:
        os.link(source, target)      # fails with EEXIST when the target is there
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            raise
        if os.path.lexists(target):  # (no hard links here, or another file system)
            raise FileExistsError(errno.EEXIST, "already exists", str(target)) from None
        shutil.move(source, target)
        return
    os.unlink(source)


def apply(plan: Plan, tag: str) -> None:
    """Carry out ``plan`` (see the module text). Raises :class:`ApplyError`."""
    undo: list[Callable[[], None]] = []
    cleanup: list[Path] = []          # what is set aside, removed once all is done
    staged: dict[Path, Path] = {}
    try:
        for path, entry in plan.final.items():   # new texts, beside their targets
            if isinstance(entry, str):
                path.parent.mkdir(parents=True, exist_ok=True)
                _unchanged(path)
                temp = _aside(path, tag, "new")
                mode = os.lstat(path).st_mode & 0o7777 if _kind(path) == stat.S_IFREG \
                    else None
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                staged[path] = temp
                with os.fdopen(fd, "wb") as f:
                    f.write(entry.encode("utf-8"))
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(temp, mode if mode is not None else 0o666 & ~_UMASK)
        parked: dict[Path, Path] = {}
        for path, entry in plan.final.items():   # files that move: aside first
            if isinstance(entry, Path):
                _unchanged(entry)
                park = _aside(entry, tag, "move")
                os.rename(entry, park)
                undo.append(lambda e=entry, p=park: os.rename(p, e))
                parked[path] = park
        for path, entry in plan.final.items():   # replaced and deleted files: aside too
            if (isinstance(entry, str) or entry is GONE) and _kind(path) is not None:
                _unchanged(path)
                old = _aside(path, tag, "old")
                os.rename(path, old)
                undo.append(lambda p=path, o=old: os.rename(o, p))
                cleanup.append(old)
        for path, park in parked.items():        # then into place, over nothing
            path.parent.mkdir(parents=True, exist_ok=True)
            _unchanged(path)
            _place(park, path)
            undo.append(lambda p=path, k=park: _place(p, k))
        for path, temp in staged.items():
            _unchanged(path)
            os.rename(temp, path)
            undo.append(lambda p=path, t=temp: os.rename(p, t))
    except (OSError, ValueError) as exc:
        undone = True
        for step in reversed(undo):
            try:
                step()
            except OSError:
                undone = False
        for temp in staged.values():
            _remove(temp)
        raise ApplyError(exc, undone) from exc
    for old in cleanup:
        _remove(old)


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        pass   # (a leftover ".errands-…" file is harmless, and says what it was)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()   # (read once, at import: umask is the whole process's)
