"""Optional isolation of fresh agent runs: each run works in its own git worktree.

A run of an automation with ``worktree: true`` gets a worktree of its workdir's repository,
``git worktree add -b errands/<automation id>/<run index> <data dir>/worktrees/<automation
id>/<run index> <HEAD>``, so what it writes never touches the person's checkout. When the
run ends, a worktree whose files equal the commit it started from (nothing modified, added,
deleted or untracked; ignored files do not count) is removed with its branch: nothing is
lost. One with changes is kept, branch and all, for a person to review, merge or drop
(``errands worktrees``).

Names, decided: a retry or a resumed (parked) run of the same run index finds the worktree
it left, registered on its own branch, and reuses it, so it goes on from the files it had
written (a parked run's transcript describes them). When the name is taken otherwise (a
kept branch whose folder was deleted, or a stray folder), the next free suffix is used:
``<run index>-2``, ``-3`` …; an existing branch is never reset or overwritten.

The commit a worktree started from is written beside git's own records of it
(``.git/worktrees/<name>/errands-base``), which git removes with the worktree; without it
the fork point with the repository's HEAD stands in.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Iterable

from ..definition import WORKTREE_EXAMPLE, WORKTREE_EXPECTED
from ..errors import InvalidInput
from ..paths import private_dir, worktrees_path
from .git import (WorktreeEntry, WorktreeError, first_line, git, git_sync, parse_names_z,
                  parse_status_z, parse_worktree_list)

BRANCH_PREFIX = "errands/"
BASE_FILE = "errands-base"
MAX_SUFFIX = 100
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,199}")   # a folder and a ref component
_OURS = re.compile(r"refs/heads/(errands/([A-Za-z0-9][A-Za-z0-9_-]*)/([0-9]+)(?:-([0-9]+))?)")

__all__ = ["Worktree", "KeptWorktree", "WorktreeError", "check_repository", "open_worktree",
           "changed_files", "close_worktree", "list_worktrees", "remove_worktree",
           "prune_worktrees", "BRANCH_PREFIX"]


@dataclass(frozen=True)
class Worktree:
    """A run's worktree while the run uses it."""

    repo: Path            # the top of the repository it was made from
    path: Path            # the worktree's own top folder
    workdir: Path         # where the run works: the automation's workdir's place in ``path``
    branch: str           # errands/<automation id>/<run index>[-n]
    base: str             # the commit it started from
    automation_id: str
    run_index: int
    reused: bool = False  # a retry or resumed run found it as it was left


# --------------------------------------------------------------------- validation

def check_repository(workdir: str) -> None:
    """Refuse ``worktree: true`` unless ``workdir`` is inside a git work tree. Asked of git
    (``rev-parse --is-inside-work-tree``) when an automation is created or edited, quickly
    and with a time limit; a stored definition is never re-checked, so an automation whose
    repository moved still loads, and its runs say what is wrong."""
    try:
        done = git_sync(workdir, "rev-parse", "--is-inside-work-tree")
    except WorktreeError as exc:
        raise InvalidInput("worktree", f"cannot check the workdir {workdir}: {exc}",
                           WORKTREE_EXPECTED, WORKTREE_EXAMPLE) from exc
    if done.code != 0:
        raise InvalidInput("worktree", f"the workdir {workdir} is not inside a git repository "
                           f"({first_line(done.err)})", WORKTREE_EXPECTED, WORKTREE_EXAMPLE)
    if done.text() != "true":
        raise InvalidInput("worktree", f"the workdir {workdir} is not inside a git work tree "
                           "(a bare repository, or inside .git)", WORKTREE_EXPECTED,
                           WORKTREE_EXAMPLE)


# ----------------------------------------------------------------- open and close

async def open_worktree(repo: Path, automation_id: str, run_index: int, base: Path) -> Worktree:
    """A worktree for one run, made from ``repo``'s HEAD (a branch or a detached commit)
    under ``base`` (the Errands data folder): ``worktrees/<automation id>/<run index>``."""
    if not _SAFE_ID.fullmatch(automation_id) or run_index < 0:
        raise WorktreeError(f"cannot name a worktree after automation {automation_id!r}, run "
                            f"{run_index}: ids are letters, digits, - and _")
    top_result = await git(repo, "rev-parse", "--show-toplevel", check=False)
    if top_result.code != 0:
        raise WorktreeError(f"the workdir {repo} is not inside a git repository "
                            f"({first_line(top_result.err)})")
    top = Path(top_result.text())
    prefix = (await git(repo, "rev-parse", "--show-prefix")).text()
    head = await git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    if head.code != 0 or not head.text():
        raise WorktreeError(f"the repository {top} has no commits yet, and a worktree starts "
                            "from one: make a first commit there")
    start = head.text()
    folder = worktrees_path(base) / automation_id
    try:
        private_dir(folder)
        folder = folder.resolve()
    except OSError as exc:
        raise WorktreeError(f"cannot create the folder {folder} for worktrees: "
                            f"{exc.strerror or exc}") from exc
    registered = {_resolved(e.path): e for e in await _entries(top)}
    for n in range(1, MAX_SUFFIX + 1):
        name = str(run_index) if n == 1 else f"{run_index}-{n}"
        path, branch = folder / name, f"{BRANCH_PREFIX}{automation_id}/{name}"
        entry = registered.get(path)
        if entry is not None and entry.branch == f"refs/heads/{branch}" and path.is_dir():
            found = await _base_of(path, top, entry.head) or start
            return _made(top, path, prefix, branch, found, automation_id, run_index, True)
        if entry is not None or path.exists() or path.is_symlink() or await _has_branch(top, branch):
            continue  # taken: a kept branch, a stray folder; never overwritten
        await git(top, "worktree", "add", "-b", branch, os.fspath(path), start)
        await _write_base(path, start)
        return _made(top, path, prefix, branch, start, automation_id, run_index, False)
    raise WorktreeError(f"run {run_index} of {automation_id} already has {MAX_SUFFIX} "
                        f"worktrees or branches in {top}; remove some (errands worktrees)")


def _made(top: Path, path: Path, prefix: str, branch: str, start: str, automation_id: str,
          run_index: int, reused: bool) -> Worktree:
    workdir = path / prefix if prefix else path
    try:
        workdir.mkdir(parents=True, exist_ok=True)  # an untracked workdir is not in the commit
    except OSError as exc:
        raise WorktreeError(f"cannot create {workdir} in the worktree: "
                            f"{exc.strerror or exc}") from exc
    return Worktree(repo=top, path=path, workdir=workdir, branch=branch, base=start,
                    automation_id=automation_id, run_index=run_index, reused=reused)


async def changed_files(wt: Worktree) -> list[str]:
    """The files that differ from the commit the worktree started from, relative to its
    top: modified, added, deleted and untracked, and what the run committed."""
    files, _ = await _changes(wt.path, wt.repo, wt.base, None)
    return files


async def close_worktree(wt: Worktree) -> list[str]:
    """End a run's use of its worktree: the changed files (relative paths, sorted). With
    none, the worktree and its branch are removed; otherwise both are kept."""
    if not wt.path.is_dir():  # deleted behind our back: only its branch can hold work
        await git(wt.repo, "worktree", "prune")
        tip = await git(wt.repo, "rev-parse", "--verify", "--quiet",
                        f"refs/heads/{wt.branch}^{{commit}}", check=False)
        files = (await _committed(wt.repo, wt.base, tip.text())) if tip.code == 0 else []
        if tip.code == 0 and not files:
            await git(wt.repo, "branch", "-D", wt.branch)
        _drop_empty(wt.path.parent)
        return files
    files = await changed_files(wt)
    if not files:
        # --force: the check just made is what decides; git's own would refuse a worktree
        # with submodules even when nothing in it changed.
        await git(wt.repo, "worktree", "remove", "--force", os.fspath(wt.path))
        await git(wt.repo, "branch", "-D", wt.branch)
        _drop_empty(wt.path.parent)
    return files


async def _changes(path: Path | None, repo: Path, base: str | None,
                   tip: str | None) -> tuple[list[str], bool]:
    """(changed files, whether any is uncommitted) of a worktree at ``path`` (None: its
    folder is gone and only its branch tip ``tip`` is left)."""
    uncommitted: list[str] = []
    if path is not None:
        status = await git(path, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                           "--no-renames", "--ignore-submodules=none")
        uncommitted = parse_status_z(status.out)
        tip = (await git(path, "rev-parse", "--verify", "HEAD^{commit}")).text()
    committed = await _committed(repo, base, tip) if tip else []
    return sorted(set(uncommitted) | set(committed)), bool(uncommitted)


async def _committed(repo: Path, base: str | None, tip: str) -> list[str]:
    """What the commits from ``base`` to ``tip`` changed (plumbing: no diff configuration
    or external diff tool is involved)."""
    if not base or base == tip:
        return []
    diff = await git(repo, "diff-tree", "-r", "-z", "--name-only", "--no-renames", base, tip)
    return parse_names_z(diff.out)


async def _entries(repo: Path) -> list[WorktreeEntry]:
    listed = await git(repo, "worktree", "list", "--porcelain", "-z", check=False)
    if listed.code == 0:
        return parse_worktree_list(listed.out)
    if listed.code == 129:  # git before 2.36: no -z (paths with a newline would confuse it)
        listed = await git(repo, "worktree", "list", "--porcelain")
        return parse_worktree_list(listed.out, b"\n")
    raise WorktreeError(f"git worktree list failed in {repo}: {first_line(listed.err)}")


async def _has_branch(repo: Path, branch: str) -> bool:
    found = await git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}",
                      check=False)
    return found.code == 0


async def _admin_dir(path: Path) -> Path | None:
    found = await git(path, "rev-parse", "--absolute-git-dir", check=False)
    return Path(found.text()) if found.code == 0 else None


async def _write_base(path: Path, start: str) -> None:
    admin = await _admin_dir(path)
    if admin is not None:
        try:
            (admin / BASE_FILE).write_text(start + "\n")
        except OSError:
            pass  # the fork point stands in (see the module's docstring)


async def _base_of(path: Path | None, repo: Path, tip: str | None) -> str | None:
    """The commit a worktree started from: as recorded, else the fork point of its tip
    and the repository's HEAD."""
    admin = await _admin_dir(path) if path is not None and path.is_dir() else None
    if admin is not None:
        try:
            text = (admin / BASE_FILE).read_text().strip()
        except OSError:
            text = ""
        if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", text):
            return text
    if not tip:
        return None
    fork = await git(repo, "merge-base", tip, "HEAD", check=False)
    return fork.text() if fork.code == 0 and fork.text() else None


def _resolved(path: str) -> Path:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(path)


def _drop_empty(folder: Path) -> None:
    try:
        folder.rmdir()  # only when empty: the automation's other kept worktrees stay
    except OSError:
        pass


# ------------------------------------------------------------- kept worktrees (CLI)

@dataclass(frozen=True)
class KeptWorktree:
    """An Errands worktree found in a repository (kept, or in use by an unfinished run)."""

    repo: Path                 # the repository's main worktree (or its bare folder)
    path: Path
    branch: str                # errands/<automation id>/<run index>[-n]
    automation_id: str
    run_index: int
    head: str | None
    base: str | None
    changed: tuple[str, ...] = ()
    uncommitted: bool = False  # some change is not committed (or is an untracked file)
    merged: bool = False       # the branch's tip is in the repository's HEAD
    missing: bool = False      # its folder is gone; only the branch is left

    @property
    def disposable(self) -> bool:
        """Removing it loses nothing: no changes, or all of them committed and merged."""
        return not self.changed or (not self.uncommitted and self.merged)

    def to_dict(self) -> dict[str, object]:
        return {"automation_id": self.automation_id, "run_index": self.run_index,
                "branch": self.branch, "path": os.fspath(self.path),
                "repository": os.fspath(self.repo), "changed_files": len(self.changed),
                "uncommitted": self.uncommitted, "merged": self.merged,
                "missing": self.missing}


@dataclass
class Listing:
    worktrees: list[KeptWorktree] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # folders that could not be looked at


async def list_worktrees(folders: Iterable[Path]) -> Listing:
    """The Errands worktrees (branches ``errands/<id>/<index>``, never a main worktree) of
    the repositories the ``folders`` are in, each repository once. A folder that is not in
    a repository, or one git cannot read, becomes a note rather than an error."""
    listing = Listing()
    seen: set[Path] = set()      # main worktrees listed
    known: set[Path] = set()     # every worktree of those: no need to ask git again
    for folder in folders:
        if _resolved(os.fspath(folder)) in known:
            continue
        try:
            entries = await _entries(folder)
        except WorktreeError as exc:
            listing.notes.append(str(exc))
            continue
        if not entries:
            continue
        main = _resolved(entries[0].path)
        known.update(_resolved(e.path) for e in entries)
        if main in seen:
            continue
        seen.add(main)
        for entry in entries[1:]:
            try:
                kept = await _kept(main, entry)
            except WorktreeError as exc:
                listing.notes.append(str(exc))
                continue
            if kept is not None:
                listing.worktrees.append(kept)
    return listing


async def _kept(main: Path, entry: WorktreeEntry) -> KeptWorktree | None:
    ours = _OURS.fullmatch(entry.branch or "")
    if ours is None:
        return None
    path = Path(entry.path)
    missing = entry.prunable or not path.is_dir()
    base = await _base_of(None if missing else path, main, entry.head)
    files, uncommitted = await _changes(None if missing else path, main, base, entry.head)
    merged = False
    if entry.head:
        merged = (await git(main, "merge-base", "--is-ancestor", entry.head, "HEAD",
                            check=False)).code == 0
    return KeptWorktree(repo=main, path=path, branch=ours.group(1),
                        automation_id=ours.group(2), run_index=int(ours.group(3)),
                        head=entry.head, base=base, changed=tuple(files),
                        uncommitted=uncommitted, merged=merged, missing=missing)


async def remove_worktree(kept: KeptWorktree) -> None:
    """Remove a worktree and its branch, whatever they hold (callers decide that)."""
    if kept.missing:
        await git(kept.repo, "worktree", "prune")
    else:
        await git(kept.repo, "worktree", "remove", "--force", os.fspath(kept.path))
    if await _has_branch(kept.repo, kept.branch):
        await git(kept.repo, "branch", "-D", kept.branch)
    _drop_empty(kept.path.parent)


async def prune_worktrees(kept: Iterable[KeptWorktree], busy: Collection[tuple[str, int]] = ()
                          ) -> tuple[list[KeptWorktree], list[tuple[KeptWorktree, str]]]:
    """Remove those whose removal loses nothing (no changes, or everything committed and
    merged into the repository's HEAD) and that no unfinished run uses (``busy`` holds
    (automation id, run index) pairs). Returns (removed, [(kept, why)])."""
    removed: list[KeptWorktree] = []
    left: list[tuple[KeptWorktree, str]] = []
    for item in kept:
        why = keep_reason(item, busy)
        if why is None:
            try:
                await remove_worktree(item)
            except WorktreeError as exc:
                left.append((item, str(exc)))
                continue
            removed.append(item)
        else:
            left.append((item, why))
    return removed, left


def keep_reason(item: KeptWorktree, busy: Collection[tuple[str, int]] = ()) -> str | None:
    """Why ``--prune`` leaves it, or None when it may go."""
    if (item.automation_id, item.run_index) in busy:
        return "its run has not finished"
    if item.disposable:
        return None
    n = len(item.changed)
    what = f"{n} changed file{'s' if n != 1 else ''}"
    if item.uncommitted:
        return f"{what}, not all committed"
    return f"{what} on a branch not merged into HEAD"
