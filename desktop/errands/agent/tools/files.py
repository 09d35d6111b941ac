"""The file tools: read, list, search, write and edit files inside the run's workdir.

Confinement is decided here, not by the permission model: whatever a rule allows, a path
that leaves the workdir is refused with a :class:`ToolError`. ``..`` is refused outright
(a path inside never needs it); any other path, absolute or relative, is resolved with its
symbolic links (intermediate folders included) and refused unless it lands inside the
workdir's own resolved path. Links that stay inside are followed.

Resolving and then opening by name would leave a window in which a link swapped into the
path (by a command the model started, say) leads outside after all. So on systems with
``dir_fd`` (Linux, macOS) every open walks down from the workdir one component at a time
with ``O_NOFOLLOW``, reading, writing and listing relative to the folder descriptor it
reached: a link that appeared since the check makes the call fail instead of escaping.
Elsewhere the resolved path is opened by name.

Nothing is written into git's own files: a path with a ``.git`` component (in any case,
and with the trailing dots and spaces Windows ignores), or inside any folder that is a git
directory (``HEAD``, ``objects/`` and ``refs/`` in it, a bare repository or a worktree's
records), is refused for writing, whatever the rules say. A run that could write a
repository's configuration or hooks could make the next git a person or Errands runs
execute a program of its choosing.

All file I/O runs in a worker thread (``asyncio.to_thread``) so a slow disk never stalls
the engine's loop. A cancelled call stops waiting at once; a search also stops its thread
at its next line, while a single read or write still in progress finishes in the background.
"""

from __future__ import annotations

import asyncio
import errno
import fnmatch
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ...definition import ANY_TEXT
from .base import MAX_RESULT_CHARS, Handler, ToolEnv, ToolError, ToolResult, ToolSpec, bounded

MAX_PATH_CHARS = 4096
MAX_READ_BYTES = 8 * 1024 * 1024      # of one file read_file looks at
MAX_WRITE_BYTES = 8 * 1024 * 1024     # of one file written or edited
MAX_LIST_ENTRIES = 500                # shown by one list_files
MAX_WALK_ENTRIES = 100_000            # looked at by one list_files or search_files
MAX_MATCHES = 200                     # shown by one search_files
MAX_SEARCH_FILE_BYTES = 4 * 1024 * 1024
MAX_SEARCH_LINE_CHARS = 4000          # of a line a pattern is tried on
MAX_SHOWN_LINE_CHARS = 300            # of a matching line as shown
MAX_PATTERN_CHARS = 1000
SEARCH_SECONDS = 20.0
SNIFF_BYTES = 8192                    # looked at to tell text from binary
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)   # a FIFO must not block the open
_BINARY = getattr(os, "O_BINARY", 0)
_DIR_FD = (os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd
           and os.scandir in os.supports_fd and bool(_NOFOLLOW) and bool(_DIRECTORY))
_SEPARATORS = re.compile("[/\\\\]" if os.sep == "\\" else "/")


# ----------------------------------------------------------------------- confinement

@dataclass(frozen=True)
class Location:
    """A path inside the workdir, its symbolic links resolved (it may not exist yet)."""

    root: str      # the workdir, resolved
    target: str    # the path asked for, resolved
    rel: str       # ``target`` relative to ``root`` with ``/`` separators; ``.`` is the root

    @property
    def parts(self) -> tuple[str, ...]:
        return () if self.rel == "." else tuple(self.rel.split("/"))


def _within(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def locate(workdir: Path, path: str) -> Location:
    """Where ``path`` (relative to ``workdir``, or absolute) leads, or a :class:`ToolError`
    when it is not a path or leads outside the workdir, through ``..`` or a symbolic link."""
    bad = ANY_TEXT.search(path)
    if bad:
        raise ToolError(f"the path holds the character U+{ord(bad.group()):04X}, which no "
                        "file name can hold")
    if len(path) > MAX_PATH_CHARS:
        raise ToolError(f"the path is {len(path):,} characters long; at most "
                        f"{MAX_PATH_CHARS:,}")
    if ".." in _SEPARATORS.split(path):
        raise ToolError(f"{path!r}: '..' is not allowed; give a path inside the workdir, "
                        "relative to it (like 'notes/todo.md')")
    root = os.path.realpath(workdir)
    if not os.path.isdir(root):
        raise ToolError(f"the workdir {workdir} does not exist")
    joined = os.path.join(root, path or ".")
    target = os.path.realpath(joined)
    if not _within(root, target):
        if _within(root, os.path.normpath(joined)):
            raise ToolError(f"{path!r} leads outside the workdir through a symbolic link; "
                            "only files inside the workdir can be used")
        raise ToolError(f"{path!r} is outside the workdir; give a path inside it, relative "
                        "to it (like 'notes/todo.md')")
    rel = os.path.relpath(target, root)
    return Location(root, target, rel.replace(os.sep, "/") if os.sep != "/" else rel)


def mounted(mounts: Sequence[Path], path: str) -> tuple[Path, str] | None:
    """(the mount, the path inside it) when ``path`` is absolute and inside one of the
    read-only ``mounts``; None otherwise (a path of the workdir)."""
    if not mounts or not os.path.isabs(path) or ANY_TEXT.search(path):
        return None
    normal = os.path.normpath(path)
    for mount in mounts:
        root = os.path.realpath(mount)
        for base in dict.fromkeys((os.path.normpath(str(mount)), root)):
            if _within(base, normal):
                return Path(root), os.path.relpath(normal, base)
    return None


def _reading(env: ToolEnv, path: str) -> tuple[Path, str]:
    """Where a read looks: a read-only mount for a path inside one, else the workdir."""
    found = mounted(env.mounts, path)
    return found if found is not None else (env.workdir, path)


def refuse_mounted(env: ToolEnv, path: str) -> None:
    found = mounted(env.mounts, path)
    if found is not None:
        raise ToolError(f"{path!r} is in {found[0]}, the automation's folder, which is "
                        "mounted read-only here: it can be read, never changed; write in "
                        f"your own workspace {env.workdir} instead")


def _open_dir(root: str, parts: Sequence[str], create: bool) -> int:
    """A descriptor of ``root/parts…``, reached one component at a time without following
    links (``locate`` resolved them all, so a link met here appeared since)."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for part in parts:
            flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW
            try:
                step = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, dir_fd=fd)
                except FileExistsError:
                    pass
                step = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Dir:
    """An open folder inside the workdir; everything in it is reached relative to it (see
    the module text). Without ``dir_fd`` support it is its checked path."""

    def __init__(self, root: str, parts: Sequence[str], *, create: bool = False) -> None:
        self.path = os.path.join(root, *parts)
        self.fd: int | None = None
        if _DIR_FD:
            self.fd = _open_dir(root, parts, create)
        elif create:
            os.makedirs(self.path, exist_ok=True)
        elif not os.path.isdir(self.path):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), self.path)

    def __enter__(self) -> "_Dir":
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _at(self, name: str) -> tuple[str, dict[str, Any]]:
        if self.fd is not None:
            return name, {"dir_fd": self.fd}
        return os.path.join(self.path, name), {}

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        where, kw = self._at(name)
        return os.open(where, flags | _NOFOLLOW | _BINARY, mode, **kw)

    def lstat(self, name: str) -> os.stat_result | None:
        where, kw = self._at(name)
        try:
            return os.stat(where, follow_symlinks=False, **kw)
        except FileNotFoundError:
            return None

    def scan(self) -> list[os.DirEntry[str]]:
        with os.scandir(self.fd if self.fd is not None else self.path) as entries:
            return sorted(entries, key=lambda e: e.name)

    def replace(self, source: str, name: str) -> None:
        if self.fd is not None:
            os.replace(source, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(os.path.join(self.path, source), os.path.join(self.path, name))

    def unlink(self, name: str) -> None:
        where, kw = self._at(name)
        os.unlink(where, **kw)


def _refusal(exc: OSError, shown: str) -> ToolError:
    """An OS error as the model reads it: what went wrong with which workdir path."""
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"{shown}: no such file or folder")
    if isinstance(exc, IsADirectoryError):
        return ToolError(f"{shown} is a folder, not a file")
    if isinstance(exc, PermissionError):
        return ToolError(f"{shown}: permission denied")
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return ToolError(f"{shown}: a part of this path is not a folder (or became a link "
                         "while it was opened)")
    return ToolError(f"{shown}: {exc.strerror or exc}")


# --------------------------------------------------------------------------- reading

def _read_regular(loc: Location, limit: int) -> tuple[bytes, int]:
    """Up to ``limit`` bytes of the regular file at ``loc``, and its size."""
    if not loc.parts:
        raise ToolError(f"{loc.rel} is the workdir itself, a folder; use list_files")
    with _Dir(loc.root, loc.parts[:-1]) as folder:
        fd = folder.open(loc.parts[-1], os.O_RDONLY | _NONBLOCK)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise ToolError(f"{loc.rel} is a folder, not a file; use list_files")
            if not stat.S_ISREG(info.st_mode):
                raise ToolError(f"{loc.rel} is not a regular file")
            return _read_fd(fd, limit), info.st_size
        finally:
            os.close(fd)


def _read_fd(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1024 * 1024, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def is_binary(data: bytes) -> bool:
    """Whether ``data`` looks like anything but text: a NUL byte, or mostly not UTF-8, in
    its first 8 KiB."""
    head = data[:SNIFF_BYTES]
    if b"\0" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    return text.count("\ufffd") > max(8, len(text) // 10)


def _is_utf8(data: bytes, *, cut: bool) -> bool:
    """Whether ``data`` is UTF-8, allowing a character cut in two at its end when ``cut``."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return cut and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data"
    return True


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def _lines(text: str) -> list[str]:
    """Lines as search_files numbers them: split at ``\\n`` only."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _read_file(workdir: Path, path: str, offset: int, limit: int | None) -> ToolResult:
    loc = locate(workdir, path)
    try:
        data, size = _read_regular(loc, MAX_READ_BYTES)
    except OSError as exc:
        raise _refusal(exc, loc.rel) from None
    if is_binary(data):
        return ToolResult(text=f"{loc.rel} is a binary file ({size:,} bytes); not shown")
    text = data.decode("utf-8", errors="replace")
    notes = []
    if size > len(data):
        notes.append(f"only the first {MAX_READ_BYTES // (1024 * 1024)} MiB of {size:,} "
                     "bytes were read")
    if not _is_utf8(data, cut=size > len(data)):
        notes.append("not valid UTF-8: undecodable bytes are shown as \ufffd")
    lines = _lines(text)
    if not lines:
        return ToolResult(text=f"{loc.rel} is empty")
    if offset > len(lines):
        raise ToolError(f"{loc.rel} has {len(lines)} lines; offset {offset} is past its end")
    budget = MAX_RESULT_CHARS - 400
    shown: list[str] = []
    used = 0
    end = len(lines) if limit is None else min(len(lines), offset - 1 + limit)
    for line in lines[offset - 1:end]:
        if shown and used + len(line) + 1 > budget:
            break
        shown.append(line if len(line) <= budget else bounded(line, budget))
        used += len(line) + 1
    last = offset - 1 + len(shown)
    body = "\n".join(shown)
    if offset > 1 or last < len(lines):
        more = (f"; read on with offset={last + 1}" if last < len(lines) else "")
        notes.insert(0, f"lines {offset}–{last} of {len(lines)} shown{more}")
    return ToolResult(text=body + "".join(f"\n[{n}]" for n in notes))


READ_FILE = ToolSpec(
    name="read_file", effect="read", subject="path",
    description="Read a text file in the workdir. A long file comes in pieces: the result "
                "says which lines it shows; give offset (first line, from 1) and limit (how "
                "many lines) to read another piece.",
    parameters={"type": "object", "properties": {
        "path": {"type": "string", "description": "the file, relative to the workdir"},
        "offset": {"type": "integer", "description": "first line to show, from 1"},
        "limit": {"type": "integer", "description": "how many lines to show at most"}},
        "required": ["path"], "additionalProperties": False,
        "examples": [{"path": "notes/todo.md"}]})


async def read_file(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    offset, limit = args.get("offset", 1), args.get("limit")
    if offset < 1:
        raise ToolError("read_file: offset counts lines from 1")
    if limit is not None and limit < 1:
        raise ToolError("read_file: limit must be at least 1")
    return await asyncio.to_thread(_read_file, *_reading(env, _path(args, "path")), offset,
                                   limit)


def _path(args: dict[str, Any], key: str) -> str:
    path = args.get(key) or ""
    if not path.strip():
        raise ToolError(f"{key} is empty; give a path relative to the workdir")
    return path


# --------------------------------------------------------------------------- walking

@dataclass
class _Budget:
    """What stops a walk: enough entries, the deadline, or the caller gave up."""

    deadline: float
    cancel: threading.Event
    entries: int = 0
    stopped: str | None = None
    skipped: set[str] = field(default_factory=set)   # SKIP_DIRS met on the way

    def spend(self) -> bool:
        self.entries += 1
        if self.entries > MAX_WALK_ENTRIES:
            self.stopped = f"stopped after {MAX_WALK_ENTRIES:,} entries"
        elif self.cancel.is_set():
            self.stopped = "cancelled"
        elif time.monotonic() > self.deadline:
            self.stopped = f"stopped after {SEARCH_SECONDS:g} s"
        return self.stopped is None


def _walk(loc: Location, budget: _Budget) -> Iterator[tuple[str, os.DirEntry[str], _Dir]]:
    """Every entry below the folder ``loc`` (its workdir-relative path, the entry and the
    open folder it is in), depth first in name order, not following links into folders
    and not entering :data:`SKIP_DIRS`."""
    stack = [loc.parts]
    while stack:
        parts = stack.pop()
        try:
            folder = _Dir(loc.root, parts)
        except OSError:
            continue  # gone or unreadable since it was listed: skip it
        with folder:
            try:
                entries = folder.scan()
            except OSError:
                continue
            below = []
            for entry in entries:
                if not budget.spend():
                    return
                yield "/".join((*parts, entry.name)), entry, folder
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in SKIP_DIRS:
                        budget.skipped.add(entry.name)
                    else:
                        below.append((*parts, entry.name))
            stack.extend(reversed(below))


def _describe(rel: str, entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return f"{rel}@ (link)"
    if entry.is_dir(follow_symlinks=False):
        return f"{rel}/"
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return rel
    if stat.S_ISREG(info.st_mode):
        return f"{rel} ({info.st_size:,} bytes)"
    return f"{rel} (special file)"


def _glob(pattern: str, rel: str, name: str) -> bool:
    """A file name pattern (``*.py``) matches names; one with ``/`` the path below the
    listed folder, ``*`` matching across folders (``**/`` matches none, too)."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(name, pattern)
    return fnmatch.fnmatchcase(rel, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatchcase(rel, pattern[3:]))


def _list_files(workdir: Path, path: str, pattern: str | None,
                cancel: threading.Event) -> ToolResult:
    loc = locate(workdir, path or ".")
    shown: list[str] = []
    found = 0
    budget = _Budget(time.monotonic() + SEARCH_SECONDS, cancel)
    prefix = "" if loc.rel == "." else loc.rel + "/"
    try:
        if pattern is None:
            with _Dir(loc.root, loc.parts) as folder:
                for entry in folder.scan():
                    found += 1
                    if len(shown) < MAX_LIST_ENTRIES:
                        shown.append(_describe(prefix + entry.name, entry))
        else:
            for rel, entry, _ in _walk(loc, budget):
                if _glob(pattern, rel[len(prefix):], entry.name):
                    found += 1
                    if len(shown) < MAX_LIST_ENTRIES:
                        shown.append(_describe(rel, entry))
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and os.path.isfile(loc.target):
            raise ToolError(f"{loc.rel} is a file, not a folder; use read_file") from None
        raise _refusal(exc, loc.rel) from None
    if not found:
        what = f"nothing matches {pattern!r} in" if pattern is not None else "empty folder:"
        text = f"{what} {loc.rel}"
    else:
        text = "\n".join(shown)
        if found > len(shown):
            text += (f"\n[{found - len(shown):,} more not shown; "
                     f"{'narrow the pattern' if pattern else 'give a pattern'} or a folder]")
    if budget.stopped:
        text += f"\n[listing incomplete: {budget.stopped}]"
    if budget.skipped:
        text += "\n[folders not entered: " + ", ".join(sorted(budget.skipped)) + "]"
    return ToolResult(text=bounded(text))


LIST_FILES = ToolSpec(
    name="list_files", effect="read", subject="path",
    description="List a folder of the workdir (default: the workdir itself). With pattern, "
                "list everything below the folder whose name matches a glob such as '*.py' "
                "(a pattern with '/' matches the path below the folder; '*' crosses "
                "folders). Folders end in '/', links in '@'.",
    parameters={"type": "object", "properties": {
        "path": {"type": "string", "description": "a folder relative to the workdir"},
        "pattern": {"type": "string", "description": "a glob such as '*.md'"}},
        "required": [], "additionalProperties": False,
        "examples": [{"path": "src", "pattern": "*.py"}]})


async def list_files(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    pattern = args.get("pattern")
    if pattern is not None and not pattern:
        pattern = None
    if pattern is not None and len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"list_files: the pattern is longer than {MAX_PATTERN_CHARS} "
                        "characters")
    return await _cancellable(_list_files, *_reading(env, args.get("path") or "."), pattern)


async def _cancellable(fn: Callable[..., ToolResult], *args: Any) -> ToolResult:
    """``fn(*args, cancel)`` in a worker thread; when the caller is cancelled the event is
    set, and the walk in the thread stops at its next step."""
    cancel = threading.Event()
    try:
        return await asyncio.to_thread(fn, *args, cancel)
    finally:
        cancel.set()


# -------------------------------------------------------------------------- searching

def _matcher(pattern: str) -> tuple[Callable[[str], bool], str]:
    """A line test for ``pattern``: a regular expression, or plain text when it is not one."""
    try:
        regex = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        literal = pattern
        return (lambda line: literal in line,
                f"not a regular expression ({exc}); searched as plain text")
    return (lambda line: regex.search(line) is not None), ""


def _search_file(folder: _Dir, name: str, rel: str, test: Callable[[str], bool],
                 matches: list[tuple[str, str]], budget: _Budget) -> bool:
    """Append the matching lines of one file; False when it was skipped as binary."""
    fd = folder.open(name, os.O_RDONLY | _NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return True
        data = _read_fd(fd, MAX_SEARCH_FILE_BYTES)
    finally:
        os.close(fd)
    if is_binary(data):
        return False
    for number, line in enumerate(_lines(data.decode("utf-8", errors="replace")), 1):
        if number % 1000 == 0 and not budget.spend():
            return True
        if test(line[:MAX_SEARCH_LINE_CHARS]):
            shown = line.strip()
            if len(shown) > MAX_SHOWN_LINE_CHARS:
                shown = shown[:MAX_SHOWN_LINE_CHARS - 1] + "…"
            matches.append((rel, f"{rel}:{number}: {shown}"))
            if len(matches) > MAX_MATCHES:
                return True
    return True


def _search(workdir: Path, path: str, pattern: str, cancel: threading.Event) -> ToolResult:
    loc = locate(workdir, path or ".")
    test, note = _matcher(pattern)
    budget = _Budget(time.monotonic() + SEARCH_SECONDS, cancel)
    matches: list[tuple[str, str]] = []   # (file, line shown)
    searched = binary = 0
    try:
        if os.path.isdir(loc.target):
            for rel, entry, folder in _walk(loc, budget):
                if len(matches) > MAX_MATCHES or budget.stopped:
                    break
                if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                    continue
                try:
                    searched += 1
                    if not _search_file(folder, entry.name, rel, test, matches, budget):
                        binary += 1
                except OSError:
                    continue  # gone or unreadable: a search goes on
        else:
            if not loc.parts:
                raise ToolError("search_files: the workdir is not a folder")
            with _Dir(loc.root, loc.parts[:-1]) as folder:
                searched = 1
                binary = 0 if _search_file(folder, loc.parts[-1], loc.rel, test, matches,
                                           budget) else 1
    except OSError as exc:
        raise _refusal(exc, loc.rel) from None
    lines = [shown for _, shown in matches[:MAX_MATCHES]]
    files = len({source for source, _ in matches[:MAX_MATCHES]})
    if not lines:
        lines.append(f"no matches for {pattern!r} in {loc.rel} "
                     f"({plural(searched, 'file')} searched)")
    elif len(matches) > MAX_MATCHES:
        lines.append(f"[first {MAX_MATCHES} matches shown; narrow the pattern or the path]")
    else:
        lines.append(f"[{plural(len(matches), 'match', 'matches')} in "
                     f"{plural(files, 'file')}]")
    if binary:
        lines.append(f"[{plural(binary, 'binary file')} skipped]")
    if budget.skipped:
        lines.append("[folders not searched: " + ", ".join(sorted(budget.skipped)) + "]")
    if budget.stopped:
        lines.append(f"[search incomplete: {budget.stopped}]")
    if note:
        lines.append(f"[{note}]")
    return ToolResult(text=bounded("\n".join(lines)))


SEARCH_FILES = ToolSpec(
    name="search_files", effect="read", subject="path",
    description="Search the text files of the workdir (or of one folder or file in it) for "
                "a regular expression, line by line (plain text if it is not a valid one). "
                "Shows each matching line as path:line: text. Skips binary files, links and "
                "the folders " + ", ".join(sorted(SKIP_DIRS)) + ".",
    parameters={"type": "object", "properties": {
        "pattern": {"type": "string", "description": "a Python regular expression"},
        "path": {"type": "string", "description": "a folder or file relative to the workdir"}},
        "required": ["pattern"], "additionalProperties": False,
        "examples": [{"pattern": "TODO|FIXME", "path": "src"}]})


async def search_files(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    pattern = args["pattern"]
    if not pattern:
        raise ToolError("search_files: the pattern is empty")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"search_files: the pattern is longer than {MAX_PATTERN_CHARS} "
                        "characters")
    return await _cancellable(_search, *_reading(env, args.get("path") or "."), pattern)


# --------------------------------------------------------------------------- writing

def _is_git_name(part: str) -> bool:
    name = part.rstrip(". ").casefold()
    return name == ".git" or name.startswith(".git:") or name == "git~1"


def _is_git_dir(path: str) -> bool:
    try:
        return (os.path.isfile(os.path.join(path, "HEAD"))
                and os.path.isdir(os.path.join(path, "objects"))
                and os.path.isdir(os.path.join(path, "refs")))
    except (OSError, ValueError):
        return False


def _refuse_git(loc: Location) -> None:
    """Refuse a write into git's own files (see the module text)."""
    parts = [*Path(loc.root).parts, *loc.parts]
    if any(_is_git_name(part) for part in parts):
        raise ToolError(f"{loc.rel}: files named .git, and anything inside a .git folder, "
                        "are git's own; Errands does not let a run write them")
    folder = loc.root
    for part in ("", *loc.parts[:-1]):
        folder = os.path.join(folder, part) if part else folder
        if _is_git_dir(folder):
            raise ToolError(f"{loc.rel}: this is inside a git directory "
                            f"({os.path.relpath(folder, loc.root)}); Errands does not let a "
                            "run write git's own files")



def _write_bytes(loc: Location, data: bytes) -> int | None:
    """Replace the file at ``loc`` with ``data`` through a temporary file beside it, so a
    reader never sees half a file; keeps an existing file's permissions, creates missing
    folders. Returns the size of the file replaced, None when it is new."""
    if not loc.parts:
        raise ToolError(f"{loc.rel} is the workdir itself, a folder")
    name = loc.parts[-1]
    with _Dir(loc.root, loc.parts[:-1], create=True) as folder:
        old = folder.lstat(name)
        if old is not None and stat.S_ISDIR(old.st_mode):
            raise ToolError(f"{loc.rel} is a folder, not a file")
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise ToolError(f"{loc.rel} is not a regular file")
        temp = f".errands-{secrets.token_hex(6)}.tmp"
        fd = folder.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if old is not None and hasattr(os, "fchmod"):
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))
            finally:
                os.close(fd)
            folder.replace(temp, name)
        except BaseException:
            try:
                folder.unlink(temp)
            except OSError:
                pass
            raise
    return None if old is None else old.st_size


def _write_file(workdir: Path, path: str, data: bytes, dry_run: bool) -> ToolResult:
    loc = locate(workdir, path)
    _refuse_git(loc)
    if dry_run:
        if os.path.isdir(loc.target):
            raise ToolError(f"{loc.rel} is a folder, not a file")
        proposed = f"would write {len(data):,} bytes to {loc.rel}"
        return ToolResult(text=f"dry run: {proposed}; nothing was written", proposed=proposed)
    try:
        old = _write_bytes(loc, data)
    except OSError as exc:
        raise _refusal(exc, loc.rel) from None
    done = (f"created {loc.rel} ({len(data):,} bytes)" if old is None else
            f"wrote {len(data):,} bytes to {loc.rel} (it had {old:,})")
    return ToolResult(text=done, changed=[loc.rel])


def _encoded(text: str, what: str) -> bytes:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(f"{what} is not valid Unicode text") from None
    if len(data) > MAX_WRITE_BYTES:
        raise ToolError(f"{what} is {len(data):,} bytes; at most {MAX_WRITE_BYTES:,}")
    return data


WRITE_FILE = ToolSpec(
    name="write_file", effect="write", subject="path",
    description="Create a file in the workdir, or replace all of an existing one, with the "
                "given text (UTF-8). Missing folders are created. To change part of a file "
                "use edit_file.",
    parameters={"type": "object", "properties": {
        "path": {"type": "string", "description": "the file, relative to the workdir"},
        "content": {"type": "string", "description": "the whole new text of the file"}},
        "required": ["path", "content"], "additionalProperties": False,
        "examples": [{"path": "notes/summary.md", "content": "# Summary\n"}]})


async def write_file(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    data = _encoded(args["content"], "content")
    refuse_mounted(env, _path(args, "path"))
    return await asyncio.to_thread(_write_file, env.workdir, _path(args, "path"), data,
                                   env.dry_run)


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _edit_file(workdir: Path, path: str, old: str, new: str, dry_run: bool) -> ToolResult:
    loc = locate(workdir, path)
    _refuse_git(loc)
    try:
        data, size = _read_regular(loc, MAX_WRITE_BYTES + 1)
    except OSError as exc:
        raise _refusal(exc, loc.rel) from None
    if size > MAX_WRITE_BYTES or len(data) > MAX_WRITE_BYTES:
        raise ToolError(f"{loc.rel} is {size:,} bytes, too large to edit (at most "
                        f"{MAX_WRITE_BYTES:,}); rewrite it with a command instead")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{loc.rel} is not UTF-8 text; it cannot be edited safely") from None
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old:  # the model wrote \n for \r\n
        old, new = (s.replace("\r\n", "\n").replace("\n", "\r\n") for s in (old, new))
        count = text.count(old)
    if count == 0:
        raise ToolError(f"old text not found in {loc.rel}; it must match exactly, spaces, "
                        "indentation and line breaks included (read_file shows the text)")
    if count > 1:
        lines, start = [], 0
        for _ in range(min(count, 10)):
            start = text.index(old, start)
            lines.append(str(_line_of(text, start)))
            start += max(len(old), 1)
        raise ToolError(f"old text occurs {count} times in {loc.rel} (at lines "
                        f"{', '.join(lines)}{', …' if count > 10 else ''}); include more of "
                        "the surrounding text so that it occurs exactly once")
    at = _line_of(text, text.index(old))
    if dry_run:
        proposed = (f"would replace {len(old):,} characters at line {at} of {loc.rel} with "
                    f"{len(new):,} characters")
        return ToolResult(text=f"dry run: {proposed}; nothing was changed", proposed=proposed)
    result = _encoded(text.replace(old, new, 1), f"{loc.rel} after the edit")
    try:
        _write_bytes(loc, result)
    except OSError as exc:
        raise _refusal(exc, loc.rel) from None
    return ToolResult(text=f"edited {loc.rel} at line {at}", changed=[loc.rel])


EDIT_FILE = ToolSpec(
    name="edit_file", effect="write", subject="path",
    description="Change part of a text file in the workdir: replace the text old, which must "
                "occur exactly once in the file (copy it exactly, with enough surrounding "
                "lines to be unique), with new.",
    parameters={"type": "object", "properties": {
        "path": {"type": "string", "description": "the file, relative to the workdir"},
        "old": {"type": "string", "description": "the exact text to replace"},
        "new": {"type": "string", "description": "the text to put in its place"}},
        "required": ["path", "old", "new"], "additionalProperties": False,
        "examples": [{"path": "notes/todo.md", "old": "- [ ] backup", "new": "- [x] backup"}]})


async def edit_file(env: ToolEnv, args: dict[str, Any]) -> ToolResult:
    old, new = args["old"], args["new"]
    if not old:
        raise ToolError("edit_file: old is empty; to write a whole file use write_file")
    if old == new:
        raise ToolError("edit_file: old and new are the same; nothing would change")
    refuse_mounted(env, _path(args, "path"))
    return await asyncio.to_thread(_edit_file, env.workdir, _path(args, "path"), old, new,
                                   env.dry_run)


TOOLS: tuple[tuple[ToolSpec, Handler], ...] = (
    (READ_FILE, read_file), (LIST_FILES, list_files), (SEARCH_FILES, search_files),
    (WRITE_FILE, write_file), (EDIT_FILE, edit_file))
