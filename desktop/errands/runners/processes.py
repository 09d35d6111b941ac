"""Child processes that never outlive their run, not even across a crash.

Every command runs as the leader of its own session and process group, so its pid is also
the id of the group that holds everything it started (``sleep 100 & wait`` included). The
engine records the pid and its start time (``process_start_ticks``) as soon as the child
starts; after a crash, the next engine ends that group (``begin_termination`` at start,
``await_termination`` in the background), but only if the pid still names the same
process, so a pid the system has since reused for something else is left alone.

Termination is always the same: SIGTERM to the whole group, a grace period for it to exit
(polled every 50 ms), then SIGKILL to whatever is left.

Linux first. Start times come from ``/proc``; without ``/proc`` (macOS, the BSDs)
``process_start_ticks`` returns None and the pid check is skipped, so a reused pid cannot be
told apart there. Without ``os.killpg`` (Windows) only the process itself is signalled, not
its descendants.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.05
KILL_WAIT = 1.0  # how long to watch SIGKILL take effect before returning
EXIT_WAIT = 2.0  # for a child's exit to be seen after its group was ended
_PROC = Path("/proc")
_SIGKILL = getattr(signal, "SIGKILL", signal.SIGTERM)
_HAS_GROUPS = hasattr(os, "killpg")


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the ``(comm)`` field, which may hold spaces and
    parentheses; field 3 of stat(5) is index 0 here."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    end = raw.rfind(b")")
    if end < 0:
        return None
    return raw[end + 1:].decode("ascii", "replace").split()


def process_start_ticks(pid: int) -> float | None:
    """When ``pid`` started, in clock ticks since boot (field 22 of /proc/<pid>/stat).

    None when the process is gone or /proc is unavailable. The value only serves to tell
    whether a pid still names the same process later, so its unit does not matter."""
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 20:
        return None
    try:
        return float(fields[19])  # field 22; fields[0] is field 3
    except ValueError:
        return None


def children_of_runs(run_ids: set[str]) -> dict[str, list[int]]:
    """The process groups a run started but whose pid was never recorded (a crash between
    the spawn and its pid's commit), found by the ``ERRANDS_RUN_ID`` each child of a run
    is given: run id -> the leaders of those groups (a run's child leads its own session).
    Only this user's processes can be read; on systems without /proc, nothing is found."""
    if not run_ids or not _PROC.is_dir():
        return {}
    wanted = {f"ERRANDS_RUN_ID={run_id}".encode(): run_id for run_id in run_ids}
    found: dict[str, list[int]] = {}
    uid = os.geteuid()
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            if entry.stat().st_uid != uid or os.getsid(pid) != pid:
                continue  # another user's, or not a group a run started
            variables = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, ProcessLookupError):
            continue  # gone meanwhile, or not ours to read
        for variable in variables:
            run_id = wanted.get(variable)
            if run_id is not None:
                found.setdefault(run_id, []).append(pid)
                break
    return found


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (zombies included), on every platform.

    On Windows ``os.kill(pid, 0)`` would terminate the process, so it asks the kernel."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # pragma: no cover - Windows only
        # os.kill(pid, 0) would *terminate* the process on Windows.
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return kernel32.GetLastError() == 5  # ERROR_ACCESS_DENIED: exists, not ours
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # pragma: no cover
        return False
    return True


def _is_zombie(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and bool(fields) and fields[0] in ("Z", "X")


def _group_members(pgid: int) -> list[int] | None:
    """Live (not zombie) processes in group ``pgid``; None when /proc cannot tell."""
    if not _PROC.is_dir():
        return None
    members = []
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return None
    for entry in entries:
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        # fields[0] state (field 3), fields[2] pgrp (field 5)
        if fields and len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (zombies waiting to be reaped do not
    count). Without process groups: whether the process ``pgid`` itself still runs."""
    if not _HAS_GROUPS:
        return pid_alive(pgid) and not _is_zombie(pgid)
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, though it is not ours to signal
    except OSError:
        return False
    members = _group_members(pgid)
    return True if members is None else bool(members)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the group; False when there was nothing (left) to signal."""
    try:
        if _HAS_GROUPS:
            os.killpg(pgid, sig)
        else:
            os.kill(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def kill_group_now(pgid: int) -> bool:
    """SIGKILL the group at once; True if something received it. Never raises."""
    try:
        return _signal_group(pgid, _SIGKILL)
    except OSError:
        return False


def _same_process(pid: int, started: float | None) -> bool:
    """Whether group ``pid`` is still the one whose leader started at ``started``.

    While the leader lives its start time must match. A group whose leader has exited but
    whose members still run (the leader's pid cannot be reused while its group exists) is
    accepted when every member started no earlier than the leader did."""
    if started is None:
        return True
    ticks = process_start_ticks(pid)
    if ticks is not None and not _is_zombie(pid):
        return ticks == started
    if pid_alive(pid) and ticks is None:
        return False  # it runs, but we cannot verify which process it is
    members = _group_members(pid)
    if not members:
        return False
    member_ticks = [process_start_ticks(m) for m in members]
    return all(t is not None and t >= started for t in member_ticks)


def _ending(pid: int, grace: float) -> Iterator[float]:
    """The steps of ending group ``pid`` (already sent SIGTERM): yields each pause to take,
    sending SIGKILL once ``grace`` has passed. Shared by the blocking and the async form."""
    deadline = time.monotonic() + max(grace, 0.0)
    while time.monotonic() < deadline:
        if not group_alive(pid):
            return
        yield POLL_INTERVAL
    if group_alive(pid):
        _signal_group(pid, _SIGKILL)
        deadline = time.monotonic() + KILL_WAIT
        while group_alive(pid) and time.monotonic() < deadline:
            yield POLL_INTERVAL


def begin_termination(pid: int, started: float | None) -> bool:
    """SIGTERM the group led by ``pid``, at once and without waiting; True if it was sent.

    Nothing is sent unless the group still exists and, when ``started`` is given, ``pid``
    is still the process that started at those ticks. Never raises (a group of another
    user, PermissionError, counts as nothing sent)."""
    try:
        return group_alive(pid) and _same_process(pid, started) \
            and _signal_group(pid, signal.SIGTERM)
    except OSError:
        return False


def terminate_group(pid: int, started: float | None, grace: float = 5.0) -> bool:
    """End the process group led by ``pid``: SIGTERM, up to ``grace`` seconds, then SIGKILL.

    Synchronous (it sleeps). Checks as :func:`begin_termination` does; returns True if it
    signalled something."""
    if not begin_termination(pid, started):
        return False
    try:
        for pause in _ending(pid, grace):
            time.sleep(pause)
    except OSError:
        pass
    return True


async def await_termination(pid: int, grace: float = 5.0) -> None:
    """The rest of ending a group already sent SIGTERM, with asyncio sleeps: SIGKILL after
    ``grace``. Cancelled meanwhile (the engine stops), it SIGKILLs the group at once, so
    nothing outlives the wait."""
    import asyncio  # (loaded already where this runs; the module stays light)
    try:
        for pause in _ending(pid, grace):
            await asyncio.sleep(pause)
    except asyncio.CancelledError:
        kill_group_now(pid)
        raise
    except OSError:
        pass


async def terminate_group_async(pid: int, grace: float = 5.0) -> bool:
    """``terminate_group`` for a child the caller itself started (no pid check), waiting with
    asyncio sleeps. Returns True if it signalled something."""
    if not begin_termination(pid, None):
        return False
    await await_termination(pid, grace)
    return True


async def wait_event(event: asyncio.Event, timeout: float | None) -> bool:
    """Whether ``event`` was set within ``timeout`` (cancellation propagates)."""
    import asyncio  # (loaded already where this runs; the module stays light)
    if event.is_set():
        return True
    # a timeout scope on the caller's own task: no extra task per wait (a burst of a
    # thousand runs waits twice each)
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return event.is_set()
    return True


async def settle(job: "asyncio.Future[Any]") -> asyncio.CancelledError | None:
    """Wait for ``job`` to finish even when cancelled meanwhile; the cancellation is returned
    for the caller to re-raise once it has cleaned up. Used for a write that must land
    whatever happens to its caller (a run-now's claim, a run's end)."""
    import asyncio  # (loaded already where this runs; the module stays light)
    interrupted: asyncio.CancelledError | None = None
    while not job.done():
        try:
            await asyncio.wait({job})
        except asyncio.CancelledError as exc:
            interrupted = exc
    return interrupted


async def stop_group(pid: int, exited: asyncio.Event, grace: float, *,
                     at_once: bool = False) -> None:
    """End the group of a child the caller started, on the way out of its supervision
    (cancelled, or something failed): SIGTERM, ``grace``, SIGKILL, then a wait for the
    child's exit (``exited``) to be seen. ``at_once`` (termination had already begun) and
    any further cancellation meanwhile skip straight to SIGKILL; this never returns with
    the group still running, and swallows the cancellation (the caller re-raises its own)."""
    import asyncio  # (loaded already where this runs; the module stays light)
    if at_once:
        kill_group_now(pid)

    async def terminate() -> None:
        await terminate_group_async(pid, grace)
        await wait_event(exited, EXIT_WAIT)
        if group_alive(pid):
            kill_group_now(pid)

    job = asyncio.ensure_future(terminate())
    while not job.done():
        try:
            await asyncio.shield(job)
        except asyncio.CancelledError:
            kill_group_now(pid)
        except Exception:
            log.exception("could not terminate process group %s", pid)
            kill_group_now(pid)
            return
