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

Trust: whatever a run writes in its worktree, git is never steered by it. The worktree's
``.git`` file names its repository, and an agent can rewrite it (to point at a repository
of its own making whose configuration runs a program). So Errands finds a worktree's
administrative folder from the repository's side (``<common dir>/worktrees/*/gitdir``
pointing back at the worktree) and runs git in a worktree only with that folder given
explicitly (``--git-dir``, ``--work-tree``), under the fixed configuration of
:mod:`errands.agent.git`. Submodules are not entered (``--ignore-submodules=dirty``: git
would run a second git inside them, steered by their own files); a worktree with any is
kept for a person rather than removed. A worktree whose ``.git`` no longer points at its
folder is listed as *tampered* and removed by deleting its folder, never by asking git in it.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
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
    admin: Path | None = None  # its administrative folder, found from the repository's side


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
    common = await common_dir(top)
    registered = {_resolved(e.path): e for e in await _entries(top)}
    for n in range(1, MAX_SUFFIX + 1):
        name = str(run_index) if n == 1 else f"{run_index}-{n}"
        path, branch = folder / name, f"{BRANCH_PREFIX}{automation_id}/{name}"
        entry = registered.get(path)
        if entry is not None and entry.branch == f"refs/heads/{branch}" and path.is_dir():
            admin = admin_dir(common, path)
            if admin is None or not points_back(path, admin):
                raise WorktreeError(f"the worktree {path} was tampered with (its .git no "
                                    "longer points at its repository); Errands runs no git "
                                    "in it. Look at it, then remove it: errands worktrees "
                                    f"remove {path}")
            found = await _base_of(path, top, entry.head, admin) or start
            return _made(top, path, prefix, branch, found, automation_id, run_index, True,
                         admin)
        if entry is not None or path.exists() or path.is_symlink() or await _has_branch(top, branch):
            continue  # taken: a kept branch, a stray folder; never overwritten
        await git(top, "worktree", "add", "-b", branch, os.fspath(path), start)
        admin = admin_dir(common, path)
        if admin is None:
            raise WorktreeError(f"git made the worktree {path} but its records cannot be "
                                f"found in {common / 'worktrees'}")
        _write_base(admin, start)
        return _made(top, path, prefix, branch, start, automation_id, run_index, False, admin)
    raise WorktreeError(f"run {run_index} of {automation_id} already has {MAX_SUFFIX} "
                        f"worktrees or branches in {top}; remove some (errands worktrees)")


def _made(top: Path, path: Path, prefix: str, branch: str, start: str, automation_id: str,
          run_index: int, reused: bool, admin: Path) -> Worktree:
    workdir = path / prefix if prefix else path
    try:
        workdir.mkdir(parents=True, exist_ok=True)  # an untracked workdir is not in the commit
    except OSError as exc:
        raise WorktreeError(f"cannot create {workdir} in the worktree: "
                            f"{exc.strerror or exc}") from exc
    return Worktree(repo=top, path=path, workdir=workdir, branch=branch, base=start,
                    automation_id=automation_id, run_index=run_index, reused=reused,
                    admin=admin)


async def changed_files(wt: Worktree) -> list[str]:
    """The files that differ from the commit the worktree started from, relative to its
    top: modified, added, deleted and untracked, and what the run committed."""
    files, _ = await _changes(wt.path, wt.repo, wt.base, None, wt.admin)
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
    if wt.admin is None or not points_back(wt.path, wt.admin):
        raise WorktreeError(f"the run rewrote the worktree's .git ({wt.path / '.git'}); "
                            "Errands runs no git in it and keeps it for you to look at "
                            "(errands worktrees)")
    files = await changed_files(wt)
    if not files and wt.admin is not None and await _has_submodules(wt.path, wt.admin):
        files = ["(submodules: not looked into; kept for you to check)"]
    if not files:
        # --force: the check just made is what decides; git's own would refuse a worktree
        # with submodules even when nothing in it changed.
        await git(wt.repo, "worktree", "remove", "--force", os.fspath(wt.path))
        await git(wt.repo, "branch", "-D", wt.branch)
        _drop_empty(wt.path.parent)
    return files


async def _changes(path: Path | None, repo: Path, base: str | None,
                   tip: str | None, admin: Path | None) -> tuple[list[str], bool]:
    """(changed files, whether any is uncommitted) of a worktree at ``path`` (None: its
    folder is gone and only its branch tip ``tip`` is left) whose administrative folder is
    ``admin`` (found from the repository's side; never the worktree's own .git)."""
    uncommitted: list[str] = []
    if path is not None:
        if admin is None:
            raise WorktreeError(f"the worktree {path} has no records in its repository; "
                                "Errands runs no git in it")
        status = await git(path, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                           "--no-renames", "--ignore-submodules=dirty", git_dir=admin)
        uncommitted = parse_status_z(status.out)
        tip = (await git(path, "rev-parse", "--verify", "HEAD^{commit}", git_dir=admin)).text()
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


async def common_dir(repo: Path) -> Path:
    """The repository's common git folder (``.git`` of its main worktree), absolute."""
    found = await git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
    return Path(found.text())


MAX_GITDIR_FILE = 4096


def _small_text(path: Path) -> str | None:
    """A small regular file's text (never following a link), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_GITDIR_FILE:
            return None
        return os.read(fd, MAX_GITDIR_FILE).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def admin_dir(common: Path, path: Path) -> Path | None:
    """The administrative folder (``<common>/worktrees/<name>``) whose ``gitdir`` file
    points at ``path/.git``: the repository's own record of the worktree, which nothing
    written inside the worktree can change."""
    want = os.path.join(os.path.realpath(path), ".git")
    try:
        candidates = sorted((common / "worktrees").iterdir())
    except OSError:
        return None
    for admin in candidates:
        if admin.is_symlink() or not admin.is_dir():
            continue
        text = _small_text(admin / "gitdir")
        if text is not None and os.path.normpath(text.strip()) == want:
            return admin
    return None


def points_back(path: Path, admin: Path) -> bool:
    """Whether the worktree's own ``.git`` is still the file git wrote: ``gitdir: ADMIN``.
    When it is not, something rewrote it; Errands then treats the worktree as tampered."""
    text = _small_text(path / ".git")
    if text is None or not text.startswith("gitdir:"):
        return False
    pointed = text[len("gitdir:"):].strip()
    return os.path.realpath(pointed) == os.path.realpath(admin)


def _write_base(admin: Path, start: str) -> None:
    try:
        (admin / BASE_FILE).write_text(start + "\n")
    except OSError:
        pass  # the fork point stands in (see the module's docstring)


async def _has_submodules(path: Path, admin: Path) -> bool:
    """Whether the worktree's index holds a submodule (a gitlink, mode 160000)."""
    staged = await git(path, "ls-files", "--stage", "-z", git_dir=admin, check=False)
    return any(entry.startswith(b"160000 ") for entry in staged.out.split(b"\0"))


async def _base_of(path: Path | None, repo: Path, tip: str | None,
                   admin: Path | None) -> str | None:
    """The commit a worktree started from: as recorded, else the fork point of its tip
    and the repository's HEAD."""
    if admin is not None:
        text = (_small_text(admin / BASE_FILE) or "").strip()
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
    tampered: bool = False     # its .git no longer points at its records: git is not run in it
    admin: Path | None = None  # its records in the repository (None when tampered or gone)

    @property
    def disposable(self) -> bool:
        """Removing it loses nothing: no changes, or all of them committed and merged. A
        tampered worktree is never disposable: nobody knows what it holds."""
        return not self.tampered and (not self.changed or (not self.uncommitted and self.merged))

    def to_dict(self) -> dict[str, object]:
        return {"automation_id": self.automation_id, "run_index": self.run_index,
                "branch": self.branch, "path": os.fspath(self.path),
                "repository": os.fspath(self.repo), "changed_files": len(self.changed),
                "uncommitted": self.uncommitted, "merged": self.merged,
                "missing": self.missing, "tampered": self.tampered}


@dataclass
class Listing:
    worktrees: list[KeptWorktree] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # folders that could not be looked at


async def list_worktrees(folders: Iterable[Path], root: Path | None = None) -> Listing:
    """The Errands worktrees (branches ``errands/<id>/<index>``, never a main worktree) of
    the repositories the ``folders`` are in, each repository once. A folder that is not in
    a repository, or one git cannot read, becomes a note rather than an error.

    A folder under ``root`` (the data folder's ``worktrees``) is one of Errands' own
    worktrees, where a run wrote: its repository is found through the records that point
    back at it, never by letting git read its ``.git``. One whose records cannot be found
    is listed as tampered."""
    listing = Listing()
    seen: set[Path] = set()      # main worktrees listed
    known: set[Path] = set()     # every worktree of those: no need to ask git again
    inside = os.path.realpath(root) if root is not None else None
    for folder in folders:
        resolved = _resolved(os.fspath(folder))
        if resolved in known:
            continue
        where: Path = folder
        if inside is not None and _within(os.fspath(resolved), inside):
            common = _repository_of(resolved, inside)
            if common is None:
                listing.worktrees.append(_tampered(resolved, inside))
                known.add(resolved)
                continue
            where = common
        try:
            entries = await _entries(where)
            common = await common_dir(where)
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
                kept = await _kept(main, entry, common)
            except WorktreeError as exc:
                listing.notes.append(str(exc))
                continue
            if kept is not None:
                listing.worktrees.append(kept)
    return listing


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _repository_of(folder: Path, root: str) -> Path | None:
    """The common git folder of one of Errands' worktrees, from records outside ``root``
    that point back at it; None when there are none (its .git was rewritten or removed)."""
    text = _small_text(folder / ".git")
    if text is None or not text.startswith("gitdir:"):
        return None
    admin = Path(os.path.realpath(os.path.join(folder, text[len("gitdir:"):].strip())))
    if _within(os.fspath(admin), root) or admin.parent.name != "worktrees":
        return None  # records inside the worktrees folder are a run's making
    common = admin.parent.parent
    if admin_dir(common, folder) != admin or not (common / "HEAD").is_file():
        return None
    return common


def _tampered(folder: Path, root: str) -> KeptWorktree:
    """One of Errands' worktrees whose repository cannot be trusted: named from its folder
    (``<root>/<automation id>/<run index>``), nothing else asked."""
    rel = os.path.relpath(folder, root).replace(os.sep, "/").split("/")
    automation_id = rel[0] if rel else "?"
    index = rel[1].split("-")[0] if len(rel) > 1 else ""
    return KeptWorktree(repo=folder, path=folder, branch=f"{BRANCH_PREFIX}{'/'.join(rel)}",
                        automation_id=automation_id,
                        run_index=int(index) if index.isdigit() else -1, head=None,
                        base=None, tampered=True)


async def _kept(main: Path, entry: WorktreeEntry, common: Path) -> KeptWorktree | None:
    ours = _OURS.fullmatch(entry.branch or "")
    if ours is None:
        return None
    path = Path(entry.path)
    missing = entry.prunable or not path.is_dir()
    admin = None if missing else admin_dir(common, path)
    tampered = not missing and (admin is None or not points_back(path, admin))
    base = await _base_of(None if missing else path, main, entry.head, admin)
    files: list[str] = []
    uncommitted = False
    if not tampered:
        files, uncommitted = await _changes(None if missing else path, main, base, entry.head,
                                            admin)
        if not missing and admin is not None and await _has_submodules(path, admin):
            files.append("(submodules: not looked into)")
            uncommitted = True
    merged = False
    if entry.head:
        merged = (await git(main, "merge-base", "--is-ancestor", entry.head, "HEAD",
                            check=False)).code == 0
    return KeptWorktree(repo=main, path=path, branch=ours.group(1),
                        automation_id=ours.group(2), run_index=int(ours.group(3)),
                        head=entry.head, base=base, changed=tuple(files),
                        uncommitted=uncommitted, merged=merged, missing=missing,
                        tampered=tampered, admin=admin)


async def remove_worktree(kept: KeptWorktree, root: Path | None = None) -> None:
    """Remove a worktree and its branch, whatever they hold (callers decide that). A
    tampered one is removed by deleting its folder (links are removed, never followed),
    only inside ``root``, the data folder's worktrees; git is not run in it."""
    if kept.tampered:
        inside = os.path.realpath(root) if root is not None else None
        real = os.path.realpath(kept.path)
        if inside is None or not _within(real, inside) or real == inside:
            raise WorktreeError(f"{kept.path} is not in Errands' worktrees folder; remove it "
                                "yourself")
        try:
            shutil.rmtree(real)
        except OSError as exc:
            raise WorktreeError(f"cannot remove {kept.path}: {exc.strerror or exc}") from exc
        if kept.repo != kept.path:
            await git(kept.repo, "worktree", "prune", check=False)
            if await _has_branch(kept.repo, kept.branch):
                await git(kept.repo, "branch", "-D", kept.branch)
        _drop_empty(kept.path.parent)
        return
    if kept.missing:
        await git(kept.repo, "worktree", "prune")
    else:
        await git(kept.repo, "worktree", "remove", "--force", os.fspath(kept.path))
    if await _has_branch(kept.repo, kept.branch):
        await git(kept.repo, "branch", "-D", kept.branch)
    _drop_empty(kept.path.parent)


async def prune_worktrees(kept: Iterable[KeptWorktree], busy: Collection[tuple[str, int]] = ()
                          ) -> tuple[list[KeptWorktree], list[tuple[KeptWorktree, str]]]:
    # (a tampered worktree is never disposable: prune leaves it for remove)
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
    if item.tampered:
        return ("tampered with: its .git no longer points at its repository, so Errands "
                "runs no git in it; look at it, then 'errands worktrees remove PATH --force'")
    if item.disposable:
        return None
    n = len(item.changed)
    what = f"{n} changed file{'s' if n != 1 else ''}"
    if item.uncommitted:
        return f"{what}, not all committed"
    return f"{what} on a branch not merged into HEAD"
