"""Starting a child and hearing it on the loop (errands.runners.children), in real processes:
the loop's own watching (pipes read on the loop, the exit through a pid file descriptor)
and the threads that stand in where the loop cannot watch (no pidfd, a proactor loop)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from errands.runners import children
from errands.runners.children import STDERR, STDOUT, Child, start_child

pytestmark = [pytest.mark.catalogue_free,  # (opens no catalogue: one pass)
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX shells")]

WAIT = 30.0  # a shell start on a busy machine


@pytest.fixture(params=["loop", "threads"])
def watching(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``threads``: an event loop that cannot watch a file descriptor (as Windows' proactor)
    and no pid file descriptors, so every child is heard through threads."""
    if request.param == "threads":
        def refuse(*_args: object, **_kwargs: object) -> None:
            raise NotImplementedError

        monkeypatch.setattr(asyncio.BaseEventLoop, "add_reader", refuse, raising=False)
        monkeypatch.setattr(asyncio.SelectorEventLoop, "add_reader", refuse)
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    return request.param


def sh(script: str, **kwargs: object) -> tuple[Child, dict[int, bytearray]]:
    out: dict[int, bytearray] = {STDOUT: bytearray(), STDERR: bytearray()}
    child = start_child(["/bin/sh", "-c", script], cwd=kwargs.pop("cwd", "/"),  # type: ignore[arg-type]
                        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                        on_output=lambda stream, data: out[stream].extend(data),
                        **kwargs)  # type: ignore[arg-type]
    return child, out


async def ended(child: Child) -> None:
    await asyncio.wait_for(asyncio.gather(child.exited.wait(), child.drained.wait()), WAIT)


async def test_output_and_exit_status_are_heard(watching: str) -> None:
    child, out = sh("echo out; echo err >&2; exit 3")
    assert child.pid > 0 and child.returncode is None
    await ended(child)
    assert child.returncode == 3
    assert bytes(out[STDOUT]) == b"out\nerr\n"  # merged unless kept apart
    child.close()


async def test_standard_error_kept_apart(watching: str) -> None:
    child, out = sh("echo out; echo err >&2", stderr_apart=True)
    await ended(child)
    assert (bytes(out[STDOUT]), bytes(out[STDERR])) == (b"out\n", b"err\n")
    assert child.returncode == 0
    child.close()


async def test_a_large_output_arrives_whole_and_in_order(watching: str) -> None:
    child, out = sh("i=0; while [ $i -lt 3000 ]; do printf '%0199d\\n' $i; i=$((i+1)); done")
    await ended(child)
    lines = bytes(out[STDOUT]).split(b"\n")[:-1]
    assert len(lines) == 3000 and [int(x) for x in lines] == list(range(3000))
    child.close()


async def test_a_signal_reads_as_a_negative_status(watching: str) -> None:
    child, _ = sh("kill -KILL $$")
    await ended(child)
    assert child.returncode == -9
    child.close()


async def test_the_child_leads_its_own_session_with_no_input(watching: str,
                                                             tmp_path: Path) -> None:
    child, out = sh("ps -o sid= -p $$; cat; pwd", cwd=str(tmp_path))
    await ended(child)
    sid, *rest = bytes(out[STDOUT]).decode().split()
    assert int(sid) == child.pid          # its pid names its group and session
    assert rest == [str(tmp_path)]        # cat read nothing: stdin is /dev/null
    child.close()


async def test_a_folder_that_cannot_be_entered_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        sh("true", cwd=str(tmp_path / "missing"))


async def test_many_children_without_a_thread_each() -> None:
    """On Linux the loop watches every child itself: a burst starts no thread per child."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pid file descriptors here")
    before = threading.active_count()
    started = [sh(f"exit {i % 3}") for i in range(40)]
    assert threading.active_count() == before
    for child, _ in started:
        await ended(child)
        child.close()
    assert [child.returncode for child, _ in started] == [i % 3 for i in range(40)]


async def test_close_before_the_end_still_collects_the_exit(watching: str) -> None:
    """Closing stops the hearing (a caller that gave up); the exit is still collected, so
    no zombie is left behind. A pipe the loop read is closed at once (a later write meets
    SIGPIPE); a thread reading one reads on to its end."""
    child, out = sh("sleep 0.3; echo late")
    await asyncio.sleep(0)  # the watching starts at the loop's next turn
    child.close()
    assert child.drained.is_set()
    await asyncio.wait_for(child.exited.wait(), WAIT)
    assert child.returncode == (-signal.SIGPIPE if watching == "loop" else 0)
    await asyncio.sleep(0.1)
    assert not out[STDOUT]  # nothing heard after close
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # already reaped


async def test_close_in_the_step_that_started_it(watching: str) -> None:
    """Closed before any watching began (a run cancelled the moment its child started): the
    pipe is closed at once in either mode, and the exit is still collected."""
    child, out = sh("sleep 0.3; echo late")
    child.close()
    assert child.drained.is_set()
    await asyncio.wait_for(child.exited.wait(), WAIT)
    assert child.returncode == -signal.SIGPIPE
    assert not out[STDOUT]
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)  # already reaped


@pytest.mark.logs("could not handle the output")
async def test_a_failing_output_handler_does_not_stop_the_reading(
        watching: str, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[bytes] = []

    def handler(_stream: int, data: bytes) -> None:
        seen.append(data)
        if len(seen) == 1:
            raise RuntimeError("a bug in the handler")

    child = start_child(["/bin/sh", "-c", "echo one; sleep 0.2; echo two"], cwd="/",
                        env=dict(os.environ), on_output=handler)
    await ended(child)
    assert b"".join(seen) == b"one\ntwo\n" and child.returncode == 0
    assert "could not handle the output" in caplog.text
    child.close()


def test_the_loop_path_is_the_default_on_linux() -> None:
    """Guards the fixture: without the patch, Linux watches on the loop."""
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    assert hasattr(os, "pidfd_open") and children.READ_BYTES >= 64 * 1024


async def test_a_child_faster_than_the_loop_is_held_back(watching: str) -> None:
    """Output waits in the pipe, not in memory, while the loop is slower than the child:
    the loop reads a pipe once a turn, and a reader thread hands over only a few chunks
    at a time (without that, hundreds of 256 KiB chunks piled up on the loop)."""
    loop = asyncio.get_running_loop()
    waiting = [0]
    total = [0]

    def slow(_stream: int, data: bytes) -> None:
        waiting[0] = max(waiting[0], len(loop._ready))  # type: ignore[attr-defined]
        total[0] += len(data)
        threading.Event().wait(0.002)  # a handler slower than the pipe

    child = start_child(["/bin/sh", "-c", "head -c 16777216 /dev/zero"], cwd="/",
                        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                        on_output=slow)
    await ended(child)
    child.close()
    assert total[0] == 16 * 1024 * 1024 and child.returncode == 0
    assert waiting[0] <= children.IN_FLIGHT + 4


def _open_pidfds() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += "pidfd" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return count


@pytest.mark.filterwarnings("ignore::ResourceWarning")  # Popen's own, for the pipe left open
def test_a_loop_closed_while_its_child_runs_leaves_no_pid_descriptor() -> None:
    """The loop ends (the app quits) before a child's exit is seen: once nothing refers to
    the child any more, its pid file descriptor is closed all the same."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pid file descriptors here")
    import gc

    before = _open_pidfds()
    loop = asyncio.new_event_loop()

    async def start() -> Child:
        child, _ = sh("sleep 0.2")
        await asyncio.sleep(0.05)  # watching has begun
        return child

    child = loop.run_until_complete(start())
    assert _open_pidfds() == before + 1
    loop.close()
    child.close()  # its pipe: what a caller does with a child it gives up on
    pid = child.pid
    del child
    gc.collect()
    assert _open_pidfds() == before
    try:
        os.waitpid(pid, 0)  # what Popen would do later
    except ChildProcessError:
        pass


async def test_a_flood_of_output_is_read_at_a_pace_and_arrives_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A child printing faster than the flood pace waits on its pipe: the loop reads at
    about that pace (so it and the window stay free), and nothing is lost."""
    import time
    monkeypatch.setattr(children, "FLOOD_BYTES_PER_S", 8 * 1024 * 1024)
    size = 12 * 1024 * 1024
    started = time.perf_counter()
    child, out = sh(f"head -c {size} /dev/zero")
    await ended(child)
    took = time.perf_counter() - started
    assert len(out[STDOUT]) == size and child.returncode == 0
    assert took >= 1.2, took             # 12 MiB at 8 MiB/s: at least about 1.5 s
    child.close()


async def test_a_child_that_ended_before_it_was_watched_is_heard_without_the_selector(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In a burst every child starts in one loop turn: a quick one has ended when the next
    turn sets up its watching, so its output and exit are taken at once."""
    added: list[int] = []
    loop = asyncio.get_running_loop()
    real = loop.add_reader
    monkeypatch.setattr(loop, "add_reader", lambda fd, *a: (added.append(fd), real(fd, *a)))
    child, out = sh("echo done; exit 4")
    for _ in range(200):  # the loop held, as by the rest of a burst, until the child ended
        if Path(f"/proc/{child.pid}/stat").read_text().split(") ")[1][0] == "Z":
            break
        threading.Event().wait(0.01)
    await ended(child)
    assert child.returncode == 4 and bytes(out[STDOUT]) == b"done\n"
    assert added == []
    child.close()


async def test_output_kept_open_by_a_grandchild_is_read_to_its_end(watching: str) -> None:
    """The shell has ended when watching starts, but what it left running still holds the
    pipe: the output is read on to the end, as before."""
    child, out = sh("(sleep 0.3; echo late) & echo early")
    threading.Event().wait(0.15)  # the loop held: the shell ends meanwhile
    await ended(child)
    assert child.returncode == 0
    assert bytes(out[STDOUT]) == b"early\nlate\n"
    child.close()
