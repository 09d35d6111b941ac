"""Restart after kill -9 with stubborn children left over: the new engine answers and fires
at once, and ends those children in the background (SIGKILL after their grace)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errands.channel import request_sync
from errands.engine.lock import read_owner
from errands.runners.processes import process_start_ticks
from pg_support import catalogue_sql, instant
from test_serve import ERRANDS, Serve, _alive, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups and signals")

STUBBORN = 4


def test_stubborn_leftovers_do_not_delay_the_next_engine(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "data", ERRANDS_CONCURRENCY="8")
    serve.start()
    try:
        pids = []
        stubborn = []
        children: list[int] = []
        for n in range(STUBBORN):
            pidfile = tmp_path / f"child{n}.pid"
            ident = serve.cli("add", "--title", f"stubborn {n}", "--command",
                              f"trap '' TERM; echo $$ > {pidfile}; sleep 600",
                              "--schedule", "manual", "--max-attempts", "1")["id"]
            serve.cli("run-now", ident)
            stubborn.append(ident)
            pids.append(pidfile)
        beat = serve.cli("add", "--title", "beat", "--command", "true",
                         "--schedule", "every:1s", "--misfire", "run-once",
                         "--max-attempts", "1")["id"]  # (one a crash cut short is not retried)
        children += [int(wait_for(lambda p=p: p.exists() and p.read_text().strip()))
                     for p in pids]
        # what the restart goes by: each child's pid and its start time, as /proc has them
        recorded = dict(wait_for(lambda: (rows := catalogue_sql(
            serve.data, "SELECT pid, pid_started FROM runs WHERE pid IS NOT NULL AND "
            "pid_started IS NOT NULL")) and len(rows) == STUBBORN and rows))
        assert recorded == {child: process_start_ticks(child) for child in children}
        serve.kill9()
        killed_wall = time.time()
        assert all(_alive(child) for child in children)  # orphans that ignore SIGTERM

        serve.proc = subprocess.Popen([ERRANDS, "serve", "--data-dir", str(serve.data)],
                                      env=serve.env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
        new_pid = serve.proc.pid
        deadline = time.monotonic() + 30
        while (owner := read_owner(serve.data)) is None or owner.pid != new_pid:
            assert time.monotonic() < deadline, "the engine did not start"
            time.sleep(0.01)
        locked, locked_wall = time.monotonic(), time.time()  # the engine is starting now
        address = wait_for(lambda: (o := read_owner(serve.data)) is not None and o.address,
                           timeout=30)
        pong = request_sync(address, "ping", data_dir=serve.data, timeout=5)
        answered = time.monotonic() - locked
        assert pong["pid"] == owner.pid
        # a wait for the leftovers would take their 5 s grace; 2.5 s leaves a loaded
        # machine room for its start-up (1.3 s seen with other test runs beside it)
        assert answered < 2.5, f"the control channel answered {answered:.1f} s after start"
        assert serve.cli("pause", stubborn[0])["status"] == "paused"  # a CLI call just works

        def first_start_after(wall: float) -> float | None:
            rows = catalogue_sql(serve.data, "SELECT started_at FROM runs WHERE automation_id "
                                 "= :a AND started_at IS NOT NULL", a=beat)
            stamps = sorted(instant(r[0]).timestamp() for r in rows)
            return next((s for s in stamps if s >= wall), None)

        fired = wait_for(lambda: first_start_after(killed_wall), timeout=10)
        assert fired - locked_wall < 2.5, "the first due fire waited for the leftovers"

        wait_for(lambda: not any(_alive(child) for child in children), timeout=15)
        for ident in stubborn:
            first = serve.runs(ident)[0]
            assert (first["state"], first["error"]["code"]) == ("interrupted", "interrupted")
        assert "Errands engine running" in serve.stop()
    finally:
        if serve.proc is not None and serve.proc.poll() is None:
            serve.kill9()
        for child in children:  # never leave a stubborn child behind, whatever failed
            if child > 1 and _alive(child):
                os.killpg(child, signal.SIGKILL)


def test_a_child_whose_pid_never_reached_its_row_is_found_and_ended(tmp_path: Path) -> None:
    """The engine dies between a spawn and the commit of its pid: the run's row says
    running with no pid, its child goes on. The next start finds the child by the run id
    it was given (``ERRANDS_RUN_ID``) and ends its group: no orphan."""
    serve = Serve(tmp_path / "data")
    serve.start()
    pidfile = tmp_path / "child.pid"
    ident = serve.cli("add", "--title", "long", "--command",
                      f"echo $$ > {pidfile}; sleep 300", "--schedule", "manual",
                      "--max-attempts", "1")["id"]
    run = serve.cli("run-now", ident)["id"]
    child = int(wait_for(lambda: pidfile.exists() and pidfile.read_text().strip()))
    def pid() -> object:
        return catalogue_sql(serve.data, "SELECT pid FROM runs WHERE id = :r", r=run)[0][0]

    try:
        wait_for(pid)
        serve.kill9()
        # as if the engine had died before its pid's commit
        catalogue_sql(serve.data, "UPDATE runs SET pid = NULL, pid_started = NULL WHERE id = :r",
                      r=run)
        assert _alive(child)
        serve.start()
        wait_for(lambda: not _alive(child), timeout=15)
        assert serve.runs(ident)[0]["state"] == "interrupted"
        wait_for(lambda: pid() is None)  # forgotten once ended
        serve.stop()
        assert "its pid was never recorded" in "".join(serve.output)  # (on standard error)
    finally:
        if serve.proc is not None and serve.proc.poll() is None:
            serve.stop()
