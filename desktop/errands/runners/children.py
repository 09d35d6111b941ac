"""Starting a run's child process, then hearing its output and its exit on the event loop.

Why not asyncio's ``subprocess_exec``: it forks in a task of its own, a loop turn after it
is asked, and hands the child over only once its pipes are connected, another turn later.
When a thousand runs start together, every fork then waits until every run has been
dispatched, and every pid until every fork has been made (``bench/bench_engine_burst.py``
measured the children starting about 250 ms later that way). Here the fork happens in the
caller's step and the pid is known when :func:`start_child` returns, so the engine records
it at once. Nothing awaits between the fork and the return either, so a cancellation can
never leave a child half started.

The output pipes are read on the loop, and the exit is seen through a pid file descriptor
(Linux). Where either cannot be watched on the loop (no ``pidfd_open``, or an event loop
without ``add_reader``, such as Windows' proactor), a thread waits instead, as asyncio's own
default does; a reader thread hands the loop a few chunks at a time, so a child that writes
faster than the loop listens waits on its pipe instead of filling memory.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import IO

log = logging.getLogger(__name__)

READ_BYTES = 256 * 1024  # per read, as asyncio's pipe transport
# A child printing faster than this is read at this pace (it waits on its full pipe): a
# flood of output must not keep the engine's loop, and the window's thread it shares the
# interpreter lock with, busy reading.
FLOOD_BYTES_PER_S = 48 * 1024 * 1024
FLOOD_WINDOW_S = 0.05
STDOUT, STDERR = 1, 2
IN_FLIGHT = 4  # a reader thread's chunks handed to the loop and not yet heard, at most


class Child:
    """A started child: ``pid``; ``returncode`` once ``exited`` is set; ``drained`` once
    every output pipe reached its end. ``on_output(stream, data)`` hears the output, stream
    1 (standard output, with standard error merged unless kept apart) or 2."""

    def __init__(self, popen: subprocess.Popen[bytes],
                 on_output: Callable[[int, bytes], None]) -> None:
        self.pid = popen.pid
        self.returncode: int | None = None
        self.exited = asyncio.Event()
        self.drained = asyncio.Event()
        self._popen = popen
        self._on_output = on_output
        self._loop = asyncio.get_running_loop()
        self._pipes: dict[int, IO[bytes]] = {
            number: stream for number, stream in ((STDOUT, popen.stdout), (STDERR, popen.stderr))
            if stream is not None}
        self._watched: set[int] = set()  # file descriptors with a reader on the loop
        self._window = (0.0, 0)           # (start, bytes read since): the flood meter
        self._threaded: set[int] = set()  # streams a thread reads (and closes at their end)
        self._closed = False
        self._in_flight = threading.Semaphore(IN_FLIGHT)
        self._close_pidfd: Callable[[], object] | None = None
        if not self._pipes:
            self.drained.set()
        # Watching starts at the loop's next turn: when a burst starts many children in one
        # turn, each fork then happens before any watching is set up, with fewer file
        # descriptors open (every open one makes a fork slower: 3,000 add ~0.2 ms here).
        # Nothing is missed meanwhile: the output waits in the pipe, an exit as a zombie.
        self._loop.call_soon(self._watch)

    def _watch(self) -> None:
        # A quick child has often ended by now (in a burst, every child started in the turn
        # before): its output is read and its exit collected at once, with nothing handed to
        # the loop's selector and no extra loop turn to hear them.
        if not self._closed:
            for number, stream in list(self._pipes.items()):
                if not self._drain_now(number, stream):
                    self._watch_pipe(number, stream)
        if not self._reap_now():
            self._watch_exit()  # even once closed: the exit is collected, so no zombie is left

    def _drain_now(self, number: int, stream: IO[bytes]) -> bool:
        """Read what the pipe holds without waiting; True when it reached its end."""
        if os.name != "posix":  # (a pipe cannot be made non-blocking there before 3.12)
            return False
        fd = stream.fileno()
        try:
            os.set_blocking(fd, False)
            for _ in range(IN_FLIGHT):  # a little at most: a busy child is read by the loop
                data = os.read(fd, READ_BYTES)
                if not data:
                    stream.close()
                    self._ended(number)
                    return True
                self._deliver(number, data)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:  # (as the loop's reader would meet it again, and end the stream)
            pass
        return False

    def _reap_now(self) -> bool:
        """Collect the exit if the child has already ended; False while it runs."""
        if os.name != "posix":
            return False
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False  # (the watcher then says it was reaped elsewhere)
        if pid == 0:
            return False
        self._reaped(os.waitstatus_to_exitcode(status))
        return True

    # ----------------------------------------------------------------------- output

    def _watch_pipe(self, number: int, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            os.set_blocking(fd, False)
            self._loop.add_reader(fd, self._readable, number, fd)
        except (NotImplementedError, ValueError, OSError):
            os.set_blocking(fd, True)
            self._threaded.add(number)
            threading.Thread(target=self._read_in_thread, args=(number, stream), daemon=True,
                             name=f"errands-child-{self.pid}-out{number}").start()
            return
        self._watched.add(fd)

    def _readable(self, number: int, fd: int) -> None:
        try:
            data = os.read(fd, READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:  # as an end of the stream: nothing more can come
            log.debug("reading the output of process %d failed: %s", self.pid, exc)
            data = b""
        if data:
            self._deliver(number, data)
            self._meter(number, fd, len(data))
        else:
            self._loop.remove_reader(fd)
            self._watched.discard(fd)
            self._pipes[number].close()
            self._ended(number)

    def _meter(self, number: int, fd: int, size: int) -> None:
        """Past the flood pace, stop reading until the window ends."""
        start, read = self._window
        now = self._loop.time()
        if now - start >= FLOOD_WINDOW_S:
            start, read = now, 0
        read += size
        self._window = (start, read)
        if read >= FLOOD_BYTES_PER_S * FLOOD_WINDOW_S and fd in self._watched:
            self._loop.remove_reader(fd)
            self._loop.call_at(start + FLOOD_WINDOW_S, self._resume, number, fd)

    def _resume(self, number: int, fd: int) -> None:
        if not self._closed and fd in self._watched and number in self._pipes:
            self._loop.add_reader(fd, self._readable, number, fd)

    def _read_in_thread(self, number: int, stream: IO[bytes]) -> None:
        """Reads to the end even after ``close``: closing a stream another thread is reading
        would wait for that read (and hold the loop)."""
        try:
            while data := stream.read1(READ_BYTES):  # type: ignore[attr-defined]
                # at the loop's pace, as a full pipe sets it when the loop reads: a child
                # faster than the loop must not pile its output up in memory
                while not self._in_flight.acquire(timeout=0.5):
                    if self._loop.is_closed():
                        break
                if not self._from_thread(self._deliver_posted, number, data):
                    self._in_flight.release()
        except (OSError, ValueError) as exc:
            log.debug("reading the output of process %d failed: %s", self.pid, exc)
        stream.close()
        self._from_thread(self._ended, number)

    def _deliver_posted(self, number: int, data: bytes) -> None:
        self._in_flight.release()
        self._deliver(number, data)

    def _deliver(self, number: int, data: bytes) -> None:
        if self._closed:
            return
        try:
            self._on_output(number, data)
        except Exception:  # a bug there must not stop the reading (the child would block)
            log.exception("could not handle the output of process %d", self.pid)

    def _ended(self, number: int) -> None:
        self._pipes.pop(number, None)  # (closed by whoever read it)
        if not self._pipes:
            self.drained.set()

    # ------------------------------------------------------------------------- exit

    def _watch_exit(self) -> None:
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            try:
                pidfd = pidfd_open(self.pid)
            except OSError:  # an old kernel, or a sandbox that forbids it
                pass
            else:
                try:
                    self._loop.add_reader(pidfd, self._pidfd_readable, pidfd)
                    # closed even if the loop closes before the exit is seen
                    self._close_pidfd = weakref.finalize(self, os.close, pidfd)
                    return
                except NotImplementedError:
                    os.close(pidfd)
        threading.Thread(target=self._wait_in_thread, daemon=True,
                         name=f"errands-child-{self.pid}").start()

    def _pidfd_readable(self, pidfd: int) -> None:
        self._loop.remove_reader(pidfd)
        if self._close_pidfd is not None:
            self._close_pidfd()  # once: the finalizer is then spent
        self._reaped(self._reap())

    def _reap(self) -> int:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:  # reaped elsewhere: the status is lost
            log.warning("child process %d was reaped elsewhere; its exit status is lost",
                        self.pid)
            return 255
        return os.waitstatus_to_exitcode(status)

    def _wait_in_thread(self) -> None:
        returncode = self._reap()
        self._popen.returncode = returncode  # now: the loop may have closed meanwhile
        self._from_thread(self._reaped, returncode)

    def _reaped(self, returncode: int) -> None:
        self.returncode = returncode
        self._popen.returncode = returncode  # so Popen never waits for it again
        self.exited.set()

    def _from_thread(self, fn: Callable[..., None], *args: object) -> bool:
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop has closed: nobody is left to tell
            return False
        return True

    # ------------------------------------------------------------------------ close

    def close(self) -> None:
        """Stop hearing the output and close the pipes the loop reads (the child is ended by
        the caller, never here; a thread reading a pipe closes it at its end). The exit is
        still collected, so no zombie is left."""
        self._closed = True
        for number, stream in list(self._pipes.items()):
            if number in self._threaded:
                continue
            fd = stream.fileno()
            if fd in self._watched:
                self._loop.remove_reader(fd)
                self._watched.discard(fd)
            stream.close()  # watched, or not yet (see ``_watch``)
        self._pipes.clear()
        self.drained.set()


def start_child(argv: list[str], *, cwd: str, env: Mapping[str, str] | Mapping[bytes, bytes],
                on_output: Callable[[int, bytes], None],
                stderr_apart: bool = False) -> Child:
    """Start ``argv`` now, in its own session (its pid names the group of everything it
    starts), with no input. Raises OSError when it cannot start (no such shell, a folder
    that cannot be entered)."""
    popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE if stderr_apart else subprocess.STDOUT,
                             cwd=cwd, env=env, start_new_session=True)
    return Child(popen, on_output)
