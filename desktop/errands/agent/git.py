"""Running git for worktrees, and reading its machine output.

Every call is ``git -C DIR …`` (so a missing folder is git's complaint, not a missing git),
or, inside a worktree an agent has worked in, ``git --git-dir=ADMIN --work-tree=DIR …``
with the administrative folder Errands found in the repository itself: the worktree's own
``.git`` file is written by whoever writes in the worktree and is never trusted to say
where the repository is. git is never steered by what an agent could have written:

- no system or global configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL`` set to
  the null device), and no ``GIT_*`` variable of the caller's environment;
- the keys through which configuration runs programs are fixed on the command line, which
  wins over every file: no fsmonitor, no hooks, no pager, no external diff, no credential
  helper or askpass, no transport at all (``protocol.allow=never``), no ssh command; and
  every filter, diff and merge driver the repository's configuration names is neutralised
  (its clean and smudge are ``cat``, its process, textconv and commands empty), so the
  attributes in a tree cannot make git run one (Git LFS files are checked out as their
  pointers in a worktree);
- no terminal prompt and no optional locks (a status must never take the index lock from a
  person's own git).

Failures become :class:`WorktreeError` with git's own first line, never a traceback.
The parsers take bytes and never raise: a file name may hold spaces, quotes, newlines or
bytes that are not UTF-8, so machine output is always read in its ``-z`` form.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import ErrandsError

GIT_TIMEOUT = 120.0       # seconds: a status of a huge repository on a slow disk
CHECK_TIMEOUT = 10.0      # seconds: the one quick question asked while validating
NULL = os.devnull
# Configuration that runs programs, or reaches out, fixed on every call's command line
# (``-c`` wins over the repository's own files, which an agent may have written).
SAFE_CONFIG = (
    "core.fsmonitor=false", f"core.hooksPath={NULL}", "core.pager=cat",
    "core.untrackedCache=false", "core.askPass=", "core.sshCommand=", "core.editor=false",
    "core.alternateRefsCommand=", f"core.attributesFile={NULL}", "diff.external=",
    "credential.helper=", "protocol.allow=never", "submodule.recurse=false",
    "uploadpack.packObjectsHook=", "gc.auto=0", "maintenance.auto=false",
)


class WorktreeError(ErrandsError):
    """git could not do what a worktree needs; the message says what and where."""

    code = "worktree"


@dataclass(frozen=True)
class GitResult:
    code: int
    out: bytes
    err: bytes

    def text(self) -> str:
        """stdout as one value (a path, a commit): only the final newline removed."""
        return os.fsdecode(self.out[:-1] if self.out.endswith(b"\n") else self.out)


def git_env() -> dict[str, str]:
    """The environment of every git call: the caller's without any ``GIT_*`` variable (they
    could point git at another repository, a pager or a program), and no configuration
    but the repository's and the command line's."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=NULL, GIT_ATTR_NOSYSTEM="1", GIT_NO_REPLACE_OBJECTS="1",
               GIT_PAGER="cat", GIT_ASKPASS="", GIT_EXTERNAL_DIFF="", GIT_NO_LAZY_FETCH="1")
    return env


def first_line(err: bytes) -> str:
    """git's complaint, one line, without its ``fatal:``/``error:`` prefix."""
    for line in os.fsdecode(err).splitlines():
        line = line.strip()
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                line = line[len(prefix):]
        if line:
            return line
    return "no message"


_DRIVER = re.compile(r"(filter|diff|merge)\.(.+)\.[A-Za-z]+")


def _neutral(names: bytes) -> list[str]:
    """``-c`` settings that neutralise every driver ``git config --name-only -z`` listed."""
    found: set[tuple[str, str]] = set()
    for raw in names.split(b"\0"):
        match = _DRIVER.fullmatch(os.fsdecode(raw).strip())
        if match:
            found.add((match.group(1), match.group(2)))
    settings: list[str] = []
    for kind, name in sorted(found):
        keys = {"filter": ("process=", "smudge=cat", "clean=cat", "required=false"),
                "diff": ("textconv=", "command=", "cachetextconv=false"),
                "merge": ("driver=",)}[kind]
        settings += [f"{kind}.{name}.{key}" for key in keys]
    return settings


def _argv(where: Path | str, args: Sequence[str], git_dir: Path | None = None,
          neutral: Sequence[str] = ()) -> list[str]:
    safe = [item for pair in (("-c", c) for c in (*SAFE_CONFIG, *neutral)) for item in pair]
    located = ["-C", os.fspath(where)]
    if git_dir is not None:  # a worktree: its repository as Errands found it, not its .git
        located += [f"--git-dir={os.fspath(git_dir)}", f"--work-tree={os.fspath(where)}"]
    return ["git", "--no-pager", *safe, *located, *args]


async def git(where: Path | str, *args: str, check: bool = True,
              timeout: float = GIT_TIMEOUT, git_dir: Path | None = None) -> GitResult:
    """Run git in ``where`` without blocking the loop; cancelling the caller ends git.
    ``git_dir``: the worktree administrative folder to use instead of ``where/.git``."""
    neutral: list[str] = []
    if args and args[0] != "config":  # what the configuration names, neutralised first
        drivers = await git(where, "config", "--name-only", "-z", "--get-regexp",
                            r"^(filter|diff|merge)\.", check=False, timeout=timeout,
                            git_dir=git_dir)
        neutral = _neutral(drivers.out) if drivers.code == 0 else []
    try:
        proc = await asyncio.create_subprocess_exec(
            *_argv(where, args, git_dir, neutral), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=git_env())
    except OSError as exc:  # only git itself can be missing: -C does the changing of folder
        raise _not_runnable(exc) from exc
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate()
    except BaseException as exc:  # a timeout, or the run was cancelled: git must not linger
        if proc.returncode is None:
            try:
                proc.kill()
            except ProcessLookupError:
                pass
            await proc.wait()
        if isinstance(exc, TimeoutError):
            raise WorktreeError(f"git {args[0]} did not finish within {timeout:g} s in "
                                f"{where}") from exc
        raise
    result = GitResult(proc.returncode or 0, out, err)
    if check and result.code != 0:
        raise WorktreeError(f"git {args[0]} failed in {where}: {first_line(err)}")
    return result


def git_sync(where: Path | str, *args: str, timeout: float = CHECK_TIMEOUT) -> GitResult:
    """The same for synchronous callers (validation); never raises for git's exit code."""
    try:
        done = subprocess.run(_argv(where, args), stdin=subprocess.DEVNULL, capture_output=True,
                              env=git_env(), timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"git {args[0]} did not finish within {timeout:g} s in "
                            f"{where}") from exc
    except OSError as exc:
        raise _not_runnable(exc) from exc
    return GitResult(done.returncode, done.stdout, done.stderr)


def _not_runnable(exc: OSError) -> WorktreeError:
    return WorktreeError(f"cannot run git ({exc.strerror or exc}): worktrees need git "
                         "installed and on PATH")


# ------------------------------------------------------------------------- parsing

def parse_names_z(data: bytes) -> list[str]:
    """``--name-only -z`` output: NUL-terminated paths."""
    return [os.fsdecode(p) for p in data.split(b"\0") if p]


def parse_status_z(data: bytes) -> list[str]:
    """The paths in ``git status --porcelain=v1 -z``: ``XY PATH`` entries, each followed by
    the original path when X is R or C (a rename without ``--no-renames``). For a rename
    both names changed; for a copy only the new one. Malformed entries are skipped."""
    fields = data.split(b"\0")
    paths: list[str] = []
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4 or entry[2:3] != b" ":
            continue
        paths.append(os.fsdecode(entry[3:]))
        if entry[:1] in (b"R", b"C"):
            if i < len(fields) and fields[i] and entry[:1] == b"R":
                paths.append(os.fsdecode(fields[i]))
            i += 1
    return paths


@dataclass(frozen=True)
class WorktreeEntry:
    """One record of ``git worktree list --porcelain``."""

    path: str
    head: str | None = None
    branch: str | None = None          # a full ref: refs/heads/…
    bare: bool = False
    detached: bool = False
    locked: bool = False
    prunable: bool = False             # its folder is gone


def parse_worktree_list(data: bytes, sep: bytes = b"\0") -> list[WorktreeEntry]:
    """``git worktree list --porcelain`` (``-z`` when ``sep`` is NUL; git before 2.36 has
    no ``-z`` and ends lines with a newline). Records are separated by an empty line;
    attribute lines outside a record, and unknown ones, are ignored."""
    entries: list[WorktreeEntry] = []
    current: dict[str, object] | None = None
    for raw in data.split(sep):
        line = os.fsdecode(raw)
        if not line:
            if current is not None:
                entries.append(WorktreeEntry(**current))  # type: ignore[arg-type]
            current = None
            continue
        key, _, value = line.partition(" ")
        if key == "worktree":
            if current is not None:
                entries.append(WorktreeEntry(**current))  # type: ignore[arg-type]
            current = {"path": value}
        elif current is None:
            continue
        elif key == "HEAD":
            current["head"] = value
        elif key == "branch":
            current["branch"] = value
        elif key in ("bare", "detached", "locked", "prunable"):
            current[key] = True
    if current is not None:
        entries.append(WorktreeEntry(**current))  # type: ignore[arg-type]
    return entries
