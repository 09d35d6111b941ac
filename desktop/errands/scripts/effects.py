"""Checking a script's proposed file changes and applying the survivors together.

The check walks the actions in order over an overlay of the disk, so each sees what the
ones before it did (a file written, then appended to; a file moved, then its old name free).
An action whose effect already holds (the same text already there, a file already gone)
is recorded as holding, not as a failure. Applying stages every new text as a temporary
file beside its target first; only when all are staged are moves, replacements and
deletions done, so a full disk or a refused folder leaves nothing half-changed.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scope import Refused, Scope

FILE_ACTIONS = ("writeFile", "appendFile", "moveFile", "deleteFile")
MAX_APPEND_BASE = 8 * 1024 * 1024   # a file appended to is read whole: at most this big


class _Gone:
    """An overlay entry: the path will not exist."""


GONE = _Gone()


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


def _exists(plan: Plan, path: Path) -> bool:
    if path in plan.final:
        return plan.final[path] is not GONE
    return path.exists()


def _text(plan: Plan, path: Path) -> str:
    entry = plan.final.get(path)
    if isinstance(entry, str):
        return entry
    real = entry if isinstance(entry, Path) else path
    if entry is GONE or not real.exists():
        return ""
    if real.is_dir():
        raise Refused(f"{path} is a folder")
    if real.stat().st_size > MAX_APPEND_BASE:
        raise Refused(f"{path} is larger than the {MAX_APPEND_BASE // (1024 * 1024)} MB a "
                      "script may append to")
    try:
        return real.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not a UTF-8 text file") from None


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
            verdict.ok, verdict.reason = False, f"{exc.strerror or exc}: {exc.filename or ''}"
    return verdicts, plan


def _check_one(scope: Scope, plan: Plan, action: dict[str, Any], verdict: Verdict) -> None:
    kind = action["type"]
    if kind == "moveFile":
        source, target = scope.resolve(action["from"]), scope.resolve(action["to"])
        scope.check(source, "write")
        scope.check(target, "write")
        if not _exists(plan, source):
            if _exists(plan, target):
                verdict.holds, verdict.reason = True, "already holds: nothing to move, and " \
                    f"{target.name} is there"
                return
            raise Refused(f"{source} does not exist")
        if source.is_dir() and source not in plan.final:
            raise Refused(f"{source} is a folder; a script moves files")
        if _exists(plan, target):
            raise Refused(f"{target} already exists; a script does not overwrite by moving "
                          "(delete it first, or move to another name)")
        plan.final[target] = plan.final.get(source, source)
        plan.final[source] = GONE
        return
    path = scope.resolve(action["path"])
    scope.check(path, "write")
    if path.is_dir() and path not in plan.final:
        raise Refused(f"{path} is a folder")
    if kind == "deleteFile":
        if not _exists(plan, path):
            verdict.holds, verdict.reason = True, "already holds: it is not there"
            return
        plan.final[path] = GONE
        return
    current = _text(plan, path) if _exists(plan, path) else None
    new = action["text"] if kind == "writeFile" else (current or "") + action["text"]
    if current is not None and current == new:
        verdict.holds, verdict.reason = True, "already holds: the file has this text"
        return
    plan.final[path] = new


def apply(plan: Plan, tag: str) -> None:
    """Carry out ``plan``: stage, then commit. Raises ``OSError`` naming what failed; when
    staging fails nothing has changed."""
    staged: dict[Path, Path] = {}
    try:
        for path, entry in plan.final.items():
            if isinstance(entry, str):
                path.parent.mkdir(parents=True, exist_ok=True)
                temp = path.parent / f".errands-{tag}-{uuid.uuid4().hex[:8]}.tmp"
                with open(temp, "x", encoding="utf-8", newline="") as f:
                    f.write(entry)
                    f.flush()
                    os.fsync(f.fileno())
                staged[path] = temp
    except OSError:
        for temp in staged.values():
            temp.unlink(missing_ok=True)
        raise
    moved = {entry for entry in plan.final.values() if isinstance(entry, Path)}
    for path, entry in plan.final.items():   # real files first: their sources may be reused
        if isinstance(entry, Path):
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(entry, path)
    for path, temp in staged.items():
        os.replace(temp, path)
    for path, entry in plan.final.items():
        if entry is GONE and path not in moved and path.exists():
            path.unlink()
