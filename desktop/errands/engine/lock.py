"""The data-directory lock: at most one writer (an engine, or a CLI with no engine) at a time.

``data_dir / "errands.lock"`` is locked with ``fcntl.flock(LOCK_EX | LOCK_NB)`` (Windows:
``msvcrt.locking`` on its first byte). The kernel drops the lock when the holder's process
dies, however it dies (``kill -9`` included), so a crash never leaves the folder locked.
The lock file itself is never deleted: deleting it would let two processes lock two
different inodes of the same name.

Who holds the lock is described by ``data_dir / "errands.owner.json"``, written atomically
(temporary file + ``os.replace``) by the holder right after it took the lock, and removed
by the holder just before it lets go. A crashed holder leaves that file behind, so the
file alone proves nothing: :func:`read_owner` first probes the lock and only believes the
file while the lock is really held and the process it names is alive.

Locks are per open file, not per process: two :class:`DataDirLock` objects in the same
process conflict just as two processes do.

``acquire`` sleeps in the calling thread; from a running event loop call it through
``asyncio.to_thread`` (or use ``try_acquire``).

Limitations: on network file systems where ``flock`` is emulated with POSIX record locks
(Linux NFS), closing *any* descriptor of the lock file in the holder's process releases
the lock, so :func:`read_owner` must not be called by the holder there. Keep the data
folder on a local disk.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import Conflict, StoreError
from ..timeutil import format_instant, utcnow
from ..runners.processes import pid_alive

Role = Literal["engine", "cli"]
ROLES: tuple[str, ...] = ("engine", "cli")

LOCK_FILE = "errands.lock"
OWNER_FILE = "errands.owner.json"

RETRY_INTERVAL = 0.05
# How long read_owner waits for a holder that has the lock but has not yet written (or
# has just removed) its owner record. That window is a few microseconds in practice.
IDENTIFY_WAIT = 1.0
# try_acquire retries this often, this far apart, so that a reader probing the lock in
# read_owner (it holds the lock for microseconds) does not make it fail spuriously.
_PROBE_RETRIES = 3
_PROBE_GAP = 0.005

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock_fd(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock_fd(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            return False
        return True

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@dataclass(frozen=True)
class Owner:
    """The holder of a data-directory lock, as it described itself."""

    pid: int
    role: Role
    since: str  # RFC 3339, UTC
    host: str
    address: str | None = None  # the control address, when role == "engine" and listening
    hosted_by: str | None = None  # for an engine: "app", "serve" or "cli" (who hosts it)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def identified(self) -> bool:
        """False for the placeholder :func:`read_owner` returns for a silent holder."""
        return self.pid > 0

    def describe(self) -> str:
        if not self.identified:
            return "another process (it has not identified itself)"
        where = "" if self.host == _hostname() else f" on {self.host}"
        return f"{self.title} (pid {self.pid}{where}, since {self.since})"

    @property
    def title(self) -> str:
        """Who it is in words: "the Errands app", "the Errands engine (errands serve)"."""
        if self.role == "engine" and self.hosted_by == "app":
            return "the Errands app"
        if self.role == "engine" and self.hosted_by in ("serve", "cli"):
            return f"the Errands engine (errands {self.hosted_by})"
        return f"the Errands {self.role}"


def _hostname() -> str:
    try:
        return socket.gethostname()
    except OSError:  # pragma: no cover
        return ""


def _open_lock_file(path: Path) -> int:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
    return os.open(path, flags, 0o600)


def _parse_owner(raw: object) -> Owner | None:
    if not isinstance(raw, dict):
        return None
    pid, role, since = raw.get("pid"), raw.get("role"), raw.get("since")
    host, address = raw.get("host", ""), raw.get("address")
    hosted_by = raw.get("hosted_by")
    if (not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or role not in ROLES
            or not isinstance(since, str) or not isinstance(host, str)
            or not (address is None or isinstance(address, str))):
        return None
    if not (isinstance(hosted_by, str) and 0 < len(hosted_by) <= 16):
        hosted_by = None  # an older record, or nonsense: it only colours a message
    return Owner(pid=pid, role=role, since=since, host=host, address=address,
                 hosted_by=hosted_by)


def _load_owner(data_dir: Path) -> Owner | None:
    path = Path(data_dir) / OWNER_FILE
    for _ in range(5):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except PermissionError:  # Windows: being replaced right now
            time.sleep(0.01)
            continue
        except OSError:
            return None
        try:
            return _parse_owner(json.loads(text))
        except ValueError:
            return None
    return None


def _write_owner(data_dir: Path, owner: Owner) -> None:
    target = Path(data_dir) / OWNER_FILE
    tmp = target.with_name(f"{OWNER_FILE}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    data = (json.dumps(owner.to_dict(), indent=2) + "\n").encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        for attempt in range(20):
            try:
                os.replace(tmp, target)
                return
            except PermissionError:  # Windows: a reader has the old file open
                if attempt == 19:
                    raise
                time.sleep(0.01)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _remove_owner(data_dir: Path, pid: int, since: str) -> None:
    """Remove the owner record if it is still ours."""
    current = _load_owner(data_dir)
    if current is None or (current.pid == pid and current.since == since):
        try:
            os.unlink(Path(data_dir) / OWNER_FILE)
        except OSError:
            pass


def _unknown_owner() -> Owner:
    return Owner(pid=0, role="cli", since="", host="", address=None)


def read_owner(data_dir: Path) -> Owner | None:
    """Who holds the lock on ``data_dir`` now, or None if nobody does.

    The lock is probed first (taken without waiting and released at once): if it can be
    taken, nobody holds it and any owner record left on disk is stale. A record naming a
    dead process is never returned. If the lock is held but its holder has not identified
    itself within :data:`IDENTIFY_WAIT` seconds, an :class:`Owner` with ``pid == 0``
    (``identified`` False) is returned.
    """
    data_dir = Path(data_dir)
    lock_path = data_dir / LOCK_FILE
    deadline = time.monotonic() + IDENTIFY_WAIT
    while True:
        try:
            fd = os.open(lock_path, os.O_RDWR | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            return None
        try:
            if _lock_fd(fd):
                _unlock_fd(fd)
                return None
        finally:
            os.close(fd)
        owner = _load_owner(data_dir)
        if owner is not None and (owner.host != _hostname() or pid_alive(owner.pid)):
            return owner
        if time.monotonic() >= deadline:
            return _unknown_owner()
        time.sleep(0.01)


def engine_refusal(owner: Owner, data_dir: Path) -> Conflict:
    """The refusal a second engine reports when ``owner`` already owns ``data_dir``."""
    if owner.role == "engine" and owner.identified and owner.hosted_by == "app":
        return Conflict("engine_running",
                        f"the Errands app (pid {owner.pid}, since {owner.since}) is running on "
                        f"{data_dir} and already runs its automations; other errands commands "
                        "talk to it. Quit the app (tray menu: Quit) before starting another "
                        "engine there")
    if owner.role == "engine" and owner.identified:
        by = f", errands {owner.hosted_by}" if owner.hosted_by else ""
        return Conflict("engine_running",
                        f"another Errands engine (pid {owner.pid}{by}, since {owner.since}) "
                        f"already owns {data_dir}")
    return Conflict("locked", f"{data_dir} is in use by {owner.describe()}; "
                              "try again when it has finished")


class DataDirLock:
    """An exclusive lock on a data directory, held by an engine or by a CLI command.

    ``with DataDirLock(dir, "cli"):`` waits up to ``timeout`` seconds (``acquire``).
    """

    def __init__(self, data_dir: Path, role: Role, *, timeout: float = 10.0,
                 hosted_by: str | None = None) -> None:
        if role not in ROLES:
            raise ValueError(f"role must be 'engine' or 'cli', not {role!r}")
        self.data_dir = Path(data_dir)
        self.role: Role = role
        self.hosted_by = hosted_by
        self.timeout = timeout
        self.path = self.data_dir / LOCK_FILE
        self._fd: int | None = None
        self._owner: Owner | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def owner(self) -> Owner | None:
        """The record this lock published while held, else None."""
        return self._owner

    def _check_address(self, address: str | None) -> None:
        if address is not None and self.role != "engine":
            raise ValueError("only an engine publishes a control address")

    def _attempt(self, address: str | None) -> bool:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = _open_lock_file(self.path)
        try:
            if not _lock_fd(fd):
                os.close(fd)
                return False
        except BaseException:
            os.close(fd)
            raise
        owner = Owner(pid=os.getpid(), role=self.role, since=format_instant(utcnow()) or "",
                      host=_hostname(), address=address, hosted_by=self.hosted_by)
        try:
            _write_owner(self.data_dir, owner)
        except OSError as exc:
            _unlock_fd(fd)
            os.close(fd)
            raise StoreError("lock_owner_unwritable",
                             f"cannot write {self.data_dir / OWNER_FILE}: {exc}") from exc
        self._fd, self._owner = fd, owner
        return True

    def try_acquire(self, address: str | None = None) -> bool:
        """Take the lock without waiting; False if someone else holds it."""
        self._check_address(address)
        if self.held:
            if address is not None:
                self.set_address(address)
            return True
        for attempt in range(_PROBE_RETRIES):
            if self._attempt(address):
                return True
            if attempt + 1 < _PROBE_RETRIES:
                time.sleep(_PROBE_GAP)
        return False

    def acquire(self, timeout: float, address: str | None = None) -> None:
        """Take the lock, retrying every 50 ms for up to ``timeout`` seconds.

        Raises ``Conflict("locked")`` naming the holder (role, pid, since) if it is still
        held then.
        """
        self._check_address(address)
        if self.held:
            if address is not None:
                self.set_address(address)
            return
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if self._attempt(address):
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(min(RETRY_INTERVAL, max(0.0, deadline - time.monotonic())) or 0.001)
        owner = read_owner(self.data_dir)
        if owner is None and self._attempt(address):  # let go of just now
            return
        holder = owner.describe() if owner is not None else "another process"
        raise Conflict("locked", f"{self.data_dir} is in use by {holder}; waited "
                                 f"{timeout:g} s, try again when it has finished")

    def set_address(self, address: str) -> None:
        """Publish the control address (after the server is listening)."""
        self._check_address(address)
        if self._owner is None:
            raise RuntimeError("set_address needs the lock to be held")
        owner = Owner(pid=self._owner.pid, role=self._owner.role, since=self._owner.since,
                      host=self._owner.host, address=address, hosted_by=self._owner.hosted_by)
        try:
            _write_owner(self.data_dir, owner)
        except OSError as exc:
            raise StoreError("lock_owner_unwritable",
                             f"cannot write {self.data_dir / OWNER_FILE}: {exc}") from exc
        self._owner = owner

    def release(self) -> None:
        """Remove the owner record and let go. Does nothing if not held."""
        fd, owner = self._fd, self._owner
        if fd is None:
            return
        self._fd = self._owner = None
        try:
            if owner is not None:
                _remove_owner(self.data_dir, owner.pid, owner.since)
        finally:
            try:
                _unlock_fd(fd)
            finally:
                os.close(fd)

    def __enter__(self) -> "DataDirLock":
        if not self.held:
            self.acquire(self.timeout)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def __del__(self) -> None:  # closing the descriptor releases the lock anyway
        fd = getattr(self, "_fd", None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
