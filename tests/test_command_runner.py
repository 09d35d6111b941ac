"""The command runner and the process-group helpers, with real shells and real processes."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.definition import ParseContext, parse_definition
from errands.runners import processes
from errands.runners.command import (CommandRunner, DirectiveScanner, keep_tail,
                                           user_shell)
from errands.runners.contract import RunContext

pytestmark = [pytest.mark.catalogue_free,  # (opens no catalogue: one pass)
              pytest.mark.skipif(not sys.platform.startswith("linux")
                                or not Path("/proc/self/stat").exists(),
                                reason="process groups and /proc are Linux-first")]


# What a busy machine (two cores, other suites running) may add to any wait. An upper bound
# on elapsed time is what the behaviour needs (timeout, grace) plus this: it still catches
# a wait for the 300 s the commands below would otherwise take, without failing when the
# scheduler is slow. Waits for a process to vanish use it too and return as soon as it has.
LOAD_MARGIN = 5.0


def make_ctx(tmp_path: Path, command: str, **changes: object) -> RunContext:
    definition = parse_definition(
        {"title": "t", "runner": {"kind": "command", "command": command},
         "trigger": {"kind": "manual"}},
        ParseContext(now=datetime.now(timezone.utc)))
    fields: dict[str, object] = dict(
        automation_id="a-1", run_id="r-1", run_index=1, attempt=1, scheduled_for=None,
        definition=definition, workdir=tmp_path / "work", log_path=tmp_path / "logs" / "r-1.log",
        timeout=timedelta(seconds=30))
    fields.update(changes)
    return RunContext(**fields)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """Running, that is: neither gone nor a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def gone_soon(pid: int, within: float = LOAD_MARGIN) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


async def read_pid(path: Path, within: float = 30.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def until(predicate: Callable[[], object], what: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, f"not within {within:g} s: {what}"
        await asyncio.sleep(0.01)


# ------------------------------------------------------------------- plain runs

async def test_success_passes_output_and_variables(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_ENGINE_VARIABLE", "inherited")
    started: list[int] = []
    ctx = make_ctx(tmp_path, 'echo "id=$ERRANDS_AUTOMATION_ID run=$ERRANDS_RUN_ID '
                             'index=$ERRANDS_RUN_INDEX attempt=$ERRANDS_ATTEMPT"; '
                             'echo "for=$ERRANDS_SCHEDULED_FOR"; echo "env=$SOME_ENGINE_VARIABLE"; '
                             'read line; echo "stdin=[$line] $?"; echo oops >&2',
                   automation_id="auto-7", run_id="run-9", run_index=5, attempt=2,
                   scheduled_for=datetime(2026, 3, 29, 9, 0, tzinfo=timezone(timedelta(hours=2))),
                   on_started=started.append)
    outcome = await CommandRunner().run(ctx)
    assert outcome.state == "succeeded"
    assert outcome.error_code is None and outcome.error_message is None
    assert outcome.result == ("id=auto-7 run=run-9 index=5 attempt=2\n"
                              "for=2026-03-29T07:00:00Z\nenv=inherited\nstdin=[] 1\noops")
    assert outcome.output_tail == outcome.result + "\n"
    assert outcome.notify == [] and outcome.condition_met is False
    assert len(started) == 1 and isinstance(started[0], int) and not alive(started[0])


async def test_each_child_sees_the_environment_as_it_is_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Errands' environment is copied for its children only when it changed (a burst's
    thousand children share one copy): a change, an addition and a removal still reach the
    next child, and the provider's key never does."""
    script = 'echo "a=[$ERRANDS_T_A] b=[$ERRANDS_T_B] key=[$ERRANDS_API_KEY]"'
    monkeypatch.setenv("ERRANDS_T_A", "one")
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-never-shown")
    seen = []
    for change in (None, ("ERRANDS_T_A", "two"), ("ERRANDS_T_B", "new"),
                   ("ERRANDS_T_A", None)):
        if change is not None:
            name, value = change
            if value is None:
                monkeypatch.delenv(name)
            else:
                monkeypatch.setenv(name, value)
        seen.append((await CommandRunner().run(make_ctx(tmp_path, script))).result)
    assert seen == ["a=[one] b=[] key=[]", "a=[two] b=[] key=[]", "a=[two] b=[new] key=[]",
                    "a=[] b=[new] key=[]"]


async def test_manual_run_has_an_empty_scheduled_for(tmp_path: Path) -> None:
    outcome = await CommandRunner().run(make_ctx(
        tmp_path, 'echo "[${ERRANDS_SCHEDULED_FOR-unset}]"'))
    assert outcome.result == "[]"


async def test_nonzero_exit_names_status_and_last_line(tmp_path: Path) -> None:
    outcome = await CommandRunner().run(make_ctx(
        tmp_path, 'echo first; echo "  disk full  "; echo; echo "errands: notify x"; exit 3'))
    assert outcome.state == "failed"
    assert outcome.error_code == "exit_status"
    assert outcome.error_message == "exited with status 3: disk full"
    assert outcome.notify == ["x"]  # directives count whatever the status

    long = await CommandRunner().run(make_ctx(tmp_path, "printf '%0300d\\n' 0; exit 1"))
    assert long.error_message is not None
    assert long.error_message.startswith("exited with status 1: 000")
    assert len(long.error_message) == len("exited with status 1: ") + 200

    silent = await CommandRunner().run(make_ctx(tmp_path, "exit 42"))
    assert silent.error_message == "exited with status 42" and silent.result is None


async def test_killed_by_a_signal(tmp_path: Path) -> None:
    outcome = await CommandRunner().run(make_ctx(tmp_path, "echo bye; kill -KILL $$"))
    assert outcome.state == "failed"
    assert outcome.error_code == "signal"
    assert outcome.error_message == "killed by signal SIGKILL: bye"


async def test_runs_in_the_workdir_creating_it(tmp_path: Path) -> None:
    workdir = tmp_path / "deep" / "er" / "work"
    outcome = await CommandRunner().run(make_ctx(tmp_path, "pwd -P; echo made > here.txt",
                                                 workdir=workdir))
    assert outcome.state == "succeeded"
    assert outcome.result == str(workdir.resolve())
    assert (workdir / "here.txt").read_text() == "made\n"


def test_shell_is_shell_when_usable_else_bin_sh(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "not-executable"
    plain.write_text("")
    for value in ("", "/no/such/shell", str(plain), "bash"):
        monkeypatch.setenv("SHELL", value)
        assert user_shell() == "/bin/sh"
    monkeypatch.delenv("SHELL")
    assert user_shell() == "/bin/sh"
    sh = shutil.which("bash") or "/bin/sh"
    monkeypatch.setenv("SHELL", sh)
    assert user_shell() == sh


async def test_spawn_failure_is_a_failed_run(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    workdir.chmod(0o000)
    try:
        if os.access(workdir, os.X_OK):
            pytest.skip("running as root: permissions are not enforced")
        outcome = await CommandRunner().run(make_ctx(tmp_path, "true", workdir=workdir))
    finally:
        workdir.chmod(0o755)
    assert outcome.state == "failed" and outcome.error_code == "spawn"


async def test_an_unusable_workdir_is_a_failed_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    outcome = await CommandRunner().run(make_ctx(tmp_path, "true", workdir=blocker / "work"))
    assert outcome.state == "failed" and outcome.error_code == "workdir"
    assert outcome.error_message is not None and str(blocker / "work") in outcome.error_message


async def test_a_known_secret_never_reaches_the_log_the_tail_or_the_result(
        tmp_path: Path) -> None:
    """The API key (a secret Errands knows), printed whole or split across two writes of the
    command, is stored as [redacted] in the run's log, its tail and its result."""
    from errands import logs

    key = "sk-runner-0123456789abcdef-SECRET"
    logs.remember_secret(key)
    try:
        half = len(key) // 2
        command = (f"printf '%s\\n' 'start {key} mid'; printf '%s' '{key[:half]}'; sleep 0.2; "
                   f"printf '%s\\n' '{key[half:]} end'")
        ctx = make_ctx(tmp_path, command)
        outcome = await CommandRunner().run(ctx)
    finally:
        with logs._lock:
            logs._secrets.discard(key)
    assert outcome.state == "succeeded"
    stored = ctx.log_path.read_text()
    for text in (stored, outcome.output_tail or "", outcome.result or ""):
        assert key not in text and key[:8] not in text.replace("[redacted]", "")
    assert "start [redacted] mid" in stored and "[redacted] end" in stored


# ------------------------------------------------------------------- big output

async def test_log_has_everything_while_tail_and_result_stay_bounded(tmp_path: Path) -> None:
    command = ("for i in 1 2 3 4; do head -c 250000 /dev/zero | tr '\\0' x; "
               "echo \" piece $i\"; done; echo 'the end'")
    ctx = make_ctx(tmp_path, command)
    outcome = await CommandRunner().run(ctx)
    assert outcome.state == "succeeded"

    log = ctx.log_path.read_bytes()
    assert log.startswith(b"--- attempt 1 at 20") and b" ---\n" in log[:60]
    assert log.count(b"x") == 1_000_000
    assert b" piece 1\n" in log and log.endswith(b" piece 4\nthe end\n")

    assert outcome.output_tail is not None
    assert len(outcome.output_tail.encode()) <= 64 * 1024
    assert len(outcome.output_tail) > 60_000
    assert outcome.output_tail.endswith("x piece 4\nthe end\n")

    assert outcome.result is not None and len(outcome.result) <= 2000
    assert outcome.result.startswith("[…] xxx")
    assert outcome.result.endswith("x piece 4\nthe end")

    again = await CommandRunner().run(make_ctx(tmp_path, "printf 'no newline'", attempt=2))
    assert again.result == "no newline"
    third = await CommandRunner().run(make_ctx(tmp_path, "echo three", attempt=3))
    assert third.state == "succeeded"
    log = ctx.log_path.read_text()
    assert log.count("--- attempt ") == 3
    assert "\nthe end\n--- attempt 2 at " in log
    assert "no newline\n--- attempt 3 at " in log and log.endswith("three\n")


def test_keep_tail_marks_the_cut() -> None:
    assert keep_tail("short") == "short"
    cut = keep_tail("a" * 1000 + "b" * 3000)
    assert len(cut) == 2000 and cut == "[…] " + "b" * 1996
    assert keep_tail("abc", cut=True) == "[…] abc"
    assert keep_tail("x" * 2000) == "x" * 2000


# ------------------------------------------------------------------- directives

async def test_directives_are_parsed_and_left_out_of_the_summary(tmp_path: Path) -> None:
    command = "\n".join([
        "echo before",
        "echo 'errands: notify   hello there  '",
        "echo 'errands: result first'",
        "echo '  errands: done'",          # not at the start of a line
        "echo 'errands: notifyme no'",     # not a directive
        "echo 'say errands: done'",
        "echo 'errands: result the final word'",
        "printf 'errands: done\\r\\n'",
        "echo after",
    ])
    ctx = make_ctx(tmp_path, command)
    outcome = await CommandRunner().run(ctx)
    assert outcome.state == "succeeded"
    assert outcome.condition_met is True
    assert outcome.notify == ["hello there"]
    assert outcome.result == "the final word"
    assert outcome.output_tail is not None and "errands: result first" in outcome.output_tail
    assert "errands: notify   hello there" in ctx.log_path.read_text()

    implicit = await CommandRunner().run(make_ctx(
        tmp_path, "echo one; echo 'errands: notify hi'; echo '  errands: done'; "
                  "echo 'errands: doneish'; echo two; printf 'errands: done'"))
    assert implicit.condition_met is True
    assert implicit.result == "one\n  errands: done\nerrands: doneish\ntwo"
    assert implicit.notify == ["hi"]

    not_done = await CommandRunner().run(make_ctx(tmp_path, "echo 'errands: done now'"))
    assert not_done.condition_met is False and not_done.result == "errands: done now"

    cleared = await CommandRunner().run(make_ctx(
        tmp_path, "echo lots of output; echo 'errands: result'"))
    assert cleared.result is None


async def test_notify_is_bounded(tmp_path: Path) -> None:
    command = ("for i in $(seq 1 25); do echo \"errands: notify n$i\"; done; "
               "printf 'errands: notify %0700d\\n' 7; echo 'errands: notify    '")
    outcome = await CommandRunner().run(make_ctx(tmp_path, command))
    assert outcome.notify == [f"n{i}" for i in range(1, 21)]
    assert outcome.result is None

    long = await CommandRunner().run(make_ctx(tmp_path, "printf 'errands: notify %0700d\\n' 7"))
    assert len(long.notify) == 1 and len(long.notify[0]) == 500


def test_scanner_handles_directives_split_anywhere() -> None:
    stream = ("log line\nerrands: notify split me\nerrands: result R\nmid errands: done\n"
              "errands: done\ntail").encode()
    for size in (1, 2, 3, 7, len(stream)):
        clean = bytearray()
        scanner = DirectiveScanner(clean.extend)
        for i in range(0, len(stream), size):
            scanner.feed(stream[i:i + size])
        scanner.close()
        assert bytes(clean) == b"log line\nmid errands: done\ntail"
        assert scanner.notify == ["split me"]
        assert scanner.result == "R" and scanner.condition_met is True


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from([
    "plain", "", "errands: done", "errands: notify hi", "errands: result R", "errands:",
    "errands: don", "errands: done now", "  errands: done", "x errands: notify no",
    "errands: notify", "errands: result"]), max_size=12),
       cuts=st.lists(st.integers(0, 400), max_size=6), tail=st.booleans())
def test_property_chunks_of_any_size_scan_like_one_line_at_a_time(
        lines: list[str], cuts: list[int], tail: bool) -> None:
    """The block fast path (whole lines without a directive passed on at once) gives what
    feeding one byte at a time gives."""
    stream = ("\n".join(lines) + ("" if tail else "\n")).encode()
    results = []
    for chunks in ([stream[i:i + 1] for i in range(len(stream))],
                   [stream[a:b] for a, b in zip([0, *sorted(c for c in cuts if c < len(stream))],
                                                [*sorted(c for c in cuts if c < len(stream)),
                                                 len(stream)])]):
        clean = bytearray()
        scanner = DirectiveScanner(clean.extend)
        for chunk in chunks:
            scanner.feed(chunk)
        scanner.close()
        results.append((bytes(clean), scanner.notify, scanner.result, scanner.result_set,
                        scanner.condition_met))
    assert results[0] == results[1]


def test_scanner_does_not_hold_a_long_line() -> None:
    clean = bytearray()
    scanner = DirectiveScanner(clean.extend)
    scanner.feed(b"errands")
    scanner.feed(b"x" * 100_000)
    assert len(clean) == 100_007 and len(scanner._head) == 0
    scanner.feed(b"\nerrands: result " + b"y" * 100_000)
    assert len(scanner._head) <= 8 * 1024
    scanner.close()
    assert scanner.result is not None and len(scanner.result) <= 2000


# ---------------------------------------------------------- timeout and cancel

async def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    started: list[int] = []
    ctx = make_ctx(tmp_path, "echo waiting; sleep 300 & echo $! > child.pid; wait",
                   timeout=timedelta(seconds=1), on_started=started.append)
    begin = time.monotonic()
    outcome = await CommandRunner(kill_grace=1.0).run(ctx)
    assert time.monotonic() - begin < 1 + LOAD_MARGIN  # the timeout, not `sleep 300`
    assert outcome.state == "failed"
    assert outcome.error_code == "timeout"
    assert outcome.error_message == "timed out after 1s"
    assert outcome.result == "waiting"
    grandchild = int((ctx.workdir / "child.pid").read_text())
    assert gone_soon(grandchild) and not alive(started[0])


async def test_a_command_ignoring_sigterm_gets_sigkill(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, 'trap "" TERM; sleep 300 & echo $! > child.pid; wait',
                   timeout=timedelta(seconds=1))
    begin = time.monotonic()
    outcome = await CommandRunner(kill_grace=1.0).run(ctx)
    elapsed = time.monotonic() - begin
    assert outcome.error_code == "timeout"
    assert 1.9 < elapsed < 2 + LOAD_MARGIN  # timeout and grace, then SIGKILL
    assert gone_soon(int((ctx.workdir / "child.pid").read_text()))


async def test_background_leftovers_end_with_the_command(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, "sleep 300 & echo $! > child.pid; echo ok")
    begin = time.monotonic()
    outcome = await CommandRunner(kill_grace=1.0).run(ctx)
    assert time.monotonic() - begin < 1 + LOAD_MARGIN  # not held by the leftover's pipe
    assert outcome.state == "succeeded" and outcome.result == "ok"
    assert gone_soon(int((ctx.workdir / "child.pid").read_text()))


async def test_cancel_kills_the_group_and_reraises(tmp_path: Path) -> None:
    started: list[int] = []
    ctx = make_ctx(tmp_path, "sleep 300 & echo $! > child.pid; wait", on_started=started.append)
    task = asyncio.create_task(CommandRunner(kill_grace=1.0).run(ctx))
    grandchild = await read_pid(ctx.workdir / "child.pid")
    # The shell may write its pid file before the runner's loop turn reports the start.
    await until(lambda: started, "the runner reported the start")
    assert alive(grandchild) and alive(started[0])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone_soon(grandchild) and not alive(started[0])


@pytest.mark.parametrize("turns", [1, 2, 3, 4])
async def test_a_cancel_while_starting_leaves_asyncio_nothing_to_complain_about(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, turns: int) -> None:
    """A run cancelled while its child is being started (``run_now`` then ``stop`` at once)
    used to let asyncio close the half-started transport, reaping the child behind its child
    watcher's back: "Unknown child process pid …, will report returncode 255" (found by
    fuzz/fuzz_channel.py). The race is narrow, so each point is tried ten times."""
    caplog.set_level(logging.WARNING, logger="asyncio")
    runner = CommandRunner(kill_grace=1.0)
    for _ in range(10):
        await asyncio.sleep(0.05)  # an idle loop first: the window is widest then
        task = asyncio.create_task(runner.run(make_ctx(tmp_path, "true")))
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        try:
            outcome = await task
        except asyncio.CancelledError:
            pass
        else:
            assert outcome.state == "succeeded"
    await asyncio.sleep(0.05)  # the child watcher reports from its own thread
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


async def test_a_second_cancel_skips_the_grace(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, 'trap "" TERM; sleep 300 & echo $! > child.pid; wait')
    task = asyncio.create_task(CommandRunner(kill_grace=30.0).run(ctx))
    grandchild = await read_pid(ctx.workdir / "child.pid")
    begin = time.monotonic()
    task.cancel()
    await asyncio.sleep(0.2)
    assert not task.done() and alive(grandchild)  # still in its grace period
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - begin < 30.0 - LOAD_MARGIN  # well before the grace ended
    assert gone_soon(grandchild)


async def test_a_failing_on_started_leaves_nothing_running(tmp_path: Path) -> None:
    pids: list[int] = []

    def observer(pid: int) -> None:
        pids.append(pid)
        raise RuntimeError("store is down")

    ctx = make_ctx(tmp_path, "sleep 300", on_started=observer)
    with pytest.raises(RuntimeError):
        await CommandRunner(kill_grace=1.0).run(ctx)
    assert gone_soon(pids[0])


# ---------------------------------------------------------------------- dry run

async def test_dry_run_runs_nothing_and_says_what_would_run(tmp_path: Path) -> None:
    started: list[int] = []
    ctx = make_ctx(tmp_path, "touch created.txt && echo 'it''s'", dry_run=True,
                   automation_id="a-9", run_id="r-3", run_index=4, attempt=1,
                   scheduled_for=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
                   on_started=started.append)
    outcome = await CommandRunner().run(ctx)
    assert outcome.state == "succeeded" and started == []
    assert not ctx.workdir.exists() and not ctx.log_path.exists()
    assert outcome.result == (
        f"would run: {user_shell()} -c 'touch created.txt && echo '\"'\"'it'\"'\"''\"'\"'s'\"'\"''\n"
        f"in: {ctx.workdir}\n"
        "with: ERRANDS_AUTOMATION_ID=a-9 ERRANDS_RUN_ID=r-3 ERRANDS_RUN_INDEX=4 "
        "ERRANDS_SCHEDULED_FOR=2026-01-02T03:04:05Z ERRANDS_ATTEMPT=1")

    manual = await CommandRunner().run(make_ctx(tmp_path, "backup.sh", dry_run=True))
    assert manual.result is not None
    assert manual.result.startswith(f"would run: {user_shell()} -c 'backup.sh'\n")
    assert "ERRANDS_SCHEDULED_FOR='' " in manual.result


# -------------------------------------------------------------------- processes

def spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_start_ticks_survive_odd_process_names(tmp_path: Path) -> None:
    odd = tmp_path / "a) b (c"
    shutil.copy("/bin/sleep", odd)
    before = time.time()
    proc = spawn([str(odd), "300"])
    try:
        time.sleep(0.05)
        assert "(a) b (c)" in Path(f"/proc/{proc.pid}/stat").read_text()
        ticks = processes.process_start_ticks(proc.pid)
        assert ticks is not None and ticks == processes.process_start_ticks(proc.pid)
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        started_at = boot + ticks / os.sysconf("SC_CLK_TCK")
        assert before - 2 <= started_at <= time.time() + 2
    finally:
        proc.kill()
        proc.wait()
    assert processes.process_start_ticks(proc.pid) is None


def test_terminate_group_ends_a_detached_process() -> None:
    proc = spawn(["sleep", "300"])
    try:
        ticks = processes.process_start_ticks(proc.pid)
        assert ticks is not None
        assert processes.terminate_group(proc.pid, ticks + 1, grace=1.0) is False
        time.sleep(0.05)
        assert proc.poll() is None  # a pid that names another process is left alone
        assert processes.terminate_group(proc.pid, ticks, grace=1.0) is True
        assert proc.wait(timeout=LOAD_MARGIN) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert processes.terminate_group(proc.pid, ticks, grace=1.0) is False
    assert processes.terminate_group(proc.pid, None, grace=1.0) is False


def test_terminate_group_kills_what_ignores_sigterm(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    proc = spawn(["sh", "-c", f'trap "" TERM; sleep 300 & echo $! > {marker}; wait'])
    try:
        deadline = time.monotonic() + 30  # a shell start, on a busy machine
        while not (marker.exists() and marker.read_text().strip()):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        grandchild = int(marker.read_text())
        begin = time.monotonic()
        assert processes.terminate_group(proc.pid, None, grace=0.5) is True
        assert 0.45 < time.monotonic() - begin < 0.5 + LOAD_MARGIN  # the grace, then SIGKILL
        assert proc.wait(timeout=LOAD_MARGIN) == -signal.SIGKILL
        assert gone_soon(grandchild)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
