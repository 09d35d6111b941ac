"""`errands serve` as a real process: firing, live edits, a second engine, kill -9, sleep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from channel_support import NoticeWatch
from cli_support import errands
from errands.db.location import database_location
from pg_support import catalogue_rows, catalogue_sql, handed_on, instant, on_postgresql
from errands.store import Store

ERRANDS = str(Path(sys.executable).parent / "errands")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env.update({"ERRANDS_MIN_INTERVAL": "1s", "ERRANDS_SHUTDOWN_GRACE": "1s"})
    env.update(extra)
    return handed_on(env)  # (and the PostgreSQL pass's catalogue)


class Serve:
    def __init__(self, data: Path, **env: str) -> None:
        self.data = data
        self.env = _env(**env)
        self.proc: subprocess.Popen[str] | None = None
        self.output: list[str] = []  # what stopped engines printed

    def start(self) -> "Serve":
        self.proc = subprocess.Popen([ERRANDS, "serve", "--data-dir", str(self.data)],
                                     env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        said = []  # (what it says before it runs: warnings, a broken row, leftovers ended)
        while "Errands engine running" not in (line := self.proc.stdout.readline()):
            said.append(line)
            if not line:  # ended without running
                raise AssertionError("".join(said))
        self.output.append("".join(said))
        return self

    def cli(self, *args: str, check: bool = True, process: bool = False) -> Any:
        """A command beside the engine (in this process, as ``cli_support`` says)."""
        out = errands([*args, "--data-dir", str(self.data), "--json"], self.env,
                      process=process, timeout=60)
        if check:
            assert out.returncode == 0, out.stderr
            return json.loads(out.stdout)
        return out

    def stop(self) -> str:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=30)
        self.output.append(out)
        return out

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        out, _ = self.proc.communicate(timeout=10)  # reap it and close its pipe
        self.output.append(out or "")

    def runs(self, ident: str) -> list[dict[str, Any]]:
        return list(reversed(self.cli("runs", ident, "--limit", "1000")["runs"]))

    def watch(self) -> NoticeWatch:
        """The running engine's change notices (subscribe after ``start``)."""
        return NoticeWatch(self.data)

    def ledger(self, automation_id: str) -> list[dict[str, Any]]:
        """The runs of an automation as the engine committed them, oldest first, read
        straight from the catalogue: works while the engine is frozen, costs no CLI start."""
        return catalogue_rows(self.data, 'SELECT id, "index", state, skip_reason, '
                              'missed_count, scheduled_for FROM runs WHERE automation_id = :a '
                              'ORDER BY "index"', a=automation_id)

    def next_fire_at(self, automation_id: str) -> datetime:
        [(stored,)] = catalogue_sql(self.data, "SELECT next_fire_at FROM automations WHERE "
                                    "id = :a", a=automation_id)
        return instant(stored)


def _sleep_until(instant: datetime) -> None:
    """Let wall time pass up to ``instant`` (for fires that must come due meanwhile)."""
    left = (instant - datetime.now(UTC)).total_seconds()
    if left > 0:
        time.sleep(left)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    s = Serve(tmp_path / "data")
    yield s
    if s.proc is not None and s.proc.poll() is None:
        s.kill9()
    _report(s)


def _report(s: Serve) -> None:
    """What the engine printed and recorded: shown by pytest only when the test failed."""
    print("engine output:\n" + "\n".join(s.output))
    if (s.data / "errands.sqlite3").exists() or on_postgresql():
        for row in catalogue_rows(s.data, "SELECT automation_id, \"index\", state, "
                                  "skip_reason, error_code, error_message, scheduled_for, "
                                  "started_at FROM runs ORDER BY created_at"):
            print(row)


def wait_for(predicate: Any, timeout: float = 30.0) -> Any:
    """Poll a condition no notice announces (a file, a process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


def test_serve_fires_every_two_seconds_and_edits_apply_at_once(serve: Serve, tmp_path: Path) -> None:
    serve.start()
    watch = serve.watch()
    out = tmp_path / "out.txt"
    a = serve.cli("add", "--title", "tick", "--command",
                  f'echo "$ERRANDS_RUN_INDEX $ERRANDS_SCHEDULED_FOR" >> {out}',
                  "--schedule", "every:2s")["id"]
    watch.until(lambda: [r for r in serve.ledger(a) if r["state"] == "succeeded"][3:],
                "four runs of the automation succeeded")
    runs = serve.runs(a)
    fired = [r for r in runs if r["state"] == "succeeded"]
    stamps = [r["scheduled_for"] for r in fired]
    from errands.timeutil import parse_instant
    gaps = {(parse_instant(b) - parse_instant(a_)).total_seconds() for a_, b in zip(stamps, stamps[1:])}
    assert gaps == {2.0}
    lines = out.read_text().splitlines()
    assert lines[0].split() == ["1", stamps[0]]
    # an edit made with the CLI reaches the running engine at once
    serve.cli("edit", a, "--command", f"echo edited >> {out}")
    watch.until(lambda: "edited" in out.read_text(), "a run of the edited command")
    serve.cli("pause", a)
    count = len(serve.ledger(a))
    # Nothing announces a fire that does not happen: this sleep is wall time passing, more
    # than one period of the schedule, in which a paused automation must record no run.
    time.sleep(3)
    assert len(serve.ledger(a)) in (count, count + 1)  # at most one already admitted
    assert serve.cli("show", a)["status"] == "paused"
    watch.close()
    text = serve.stop()
    assert "Stopped." in text


def test_second_engine_is_refused(serve: Serve) -> None:
    serve.start()
    second = subprocess.run([ERRANDS, "serve", "--data-dir", str(serve.data)], env=serve.env,
                            capture_output=True, text=True, timeout=30)
    assert second.returncode == 4
    assert f"pid {serve.proc.pid}" in second.stderr  # type: ignore[union-attr]
    serve.stop()


def test_run_now_wait_and_busy_through_the_engine(serve: Serve, tmp_path: Path) -> None:
    serve.start()
    a = serve.cli("add", "--title", "manual", "--command", "echo hello; sleep 1",
                  "--schedule", "manual")["id"]
    run = serve.cli("run-now", a, "--wait", "--request-id", "one")
    assert run["state"] == "succeeded" and run["result"] == "hello"
    again = serve.cli("run-now", a, "--request-id", "one")
    assert again["id"] == run["id"]
    serve.cli("edit", a, "--command", "sleep 20")
    serve.cli("run-now", a)
    busy = serve.cli("run-now", a, check=False)
    assert busy.returncode == 4 and json.loads(busy.stderr)["error"]["code"] == "busy"
    stopped = serve.cli("stop", a)
    assert stopped["state"] == "cancelled"
    serve.stop()


def test_kill_9_then_restart_loses_nothing_and_leaves_no_orphan(serve: Serve, tmp_path: Path) -> None:
    serve.start()
    watch = serve.watch()
    pidfile = tmp_path / "child.pid"
    a = serve.cli("add", "--title", "long", "--command",  # (no retry: see the next test)
                  f"echo $$ > {pidfile}; exec sleep 300", "--schedule", "every:2s",
                  "--max-attempts", "1")["id"]
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip())
    child = int(pidfile.read_text())
    watch.until(lambda: [r for r in serve.ledger(a) if r["skip_reason"] == "previous_run_active"],
                "an overlapping fire skipped while the first run goes on")
    watch.close()
    serve.kill9()
    os.kill(child, 0)  # the child outlived its engine: an orphan, for now
    # Fires come due while nothing runs: wall time must pass, until two fires are due (the
    # next one the engine had planned, and the one after). At the restart the latest runs
    # and the older can only be recorded as missed while no engine ran.
    _sleep_until(serve.next_fire_at(a) + timedelta(seconds=2 + 0.5))
    serve.start()
    watch = serve.watch()
    wait_for(lambda: not _alive(child))
    watch.until(lambda: [r for r in serve.ledger(a) if r["skip_reason"] == "app_not_running"],
                "the fires missed while no engine ran recorded")
    watch.close()
    runs = serve.runs(a)
    first = runs[0]
    assert first["state"] == "interrupted"
    slots = [r["scheduled_for"] for r in runs]
    assert len(slots) == len(set(slots))  # no slot twice
    assert not [r for r in runs if r["state"] == "running" and r["index"] == first["index"]]
    reasons = {r["skip_reason"] for r in runs if r["state"] == "skipped"}
    assert "app_not_running" in reasons
    serve.stop()
    assert catalogue_sql(serve.data, "SELECT count(*) FROM runs WHERE state IN ('running', "
                         "'scheduled')") == [(0,)]
    dupes = catalogue_sql(serve.data, "SELECT slot, count(*) FROM runs GROUP BY automation_id, "
                          "slot HAVING count(*) > 1")
    assert dupes == []


def test_a_run_its_engines_crash_cut_short_is_retried_as_its_policy_says(
        serve: Serve, tmp_path: Path) -> None:
    """kill -9 during a run whose policy allows another attempt: the next engine ends the
    dead one's child, and the run (the same run) waits its backoff and runs its next
    attempt, which finishes it; its attempts say what happened to the first."""
    serve.start()
    marks = tmp_path / "attempts"
    doc = {"title": "Retried", "trigger": {"kind": "manual"},
           "runner": {"kind": "command",
                      "command": f"echo $ERRANDS_ATTEMPT >> {marks}; "
                                 f"if [ $ERRANDS_ATTEMPT = 1 ]; then exec sleep 300; fi"},
           "policy": {"retry": {"max_attempts": 2,
                                "backoff": {"initial": "1s", "factor": 2, "max": "2s"}}}}
    (tmp_path / "retried.json").write_text(json.dumps(doc))
    a = serve.cli("add", "--from-json", str(tmp_path / "retried.json"))["id"]
    run = serve.cli("run-now", a)
    wait_for(lambda: marks.exists() and marks.read_text().split() == ["1"])
    serve.kill9()
    serve.start()
    wait_for(lambda: serve.cli("runs", a)["runs"][0]["state"] == "succeeded", timeout=30)
    [done] = serve.cli("runs", a)["runs"]
    assert done["id"] == run["id"] and done["attempt"] == 2
    assert marks.read_text().split() == ["1", "2"]
    assert [x["state"] for x in done["attempts"]] == ["interrupted", "succeeded"]
    serve.stop()


def test_a_stubborn_child_never_outlives_a_chain_of_crashes(serve: Serve,
                                                            tmp_path: Path) -> None:
    """A child that ignores SIGTERM, left by a killed engine: the next engine sends it
    SIGTERM and would SIGKILL it after its grace, but is itself killed first. The run
    keeps the child's pid until the child has ended, so the engine after that ends it."""
    serve.start()
    pidfile = tmp_path / "child.pid"
    a = serve.cli("add", "--title", "stubborn", "--command",
                  f"trap '' TERM; echo $$ > {pidfile}; sleep 300 & wait",
                  "--schedule", "every:1h", "--max-attempts", "1")["id"]

    def pid_on_row() -> int | None:
        found = catalogue_sql(serve.data, "SELECT pid FROM runs WHERE automation_id = :a", a=a)
        return None if not found else found[0][0]  # type: ignore[return-value]

    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip())
    child = int(pidfile.read_text())
    # (the child's pid is committed a moment after it started: the crashes come after)
    wait_for(lambda: pid_on_row() is not None)
    serve.kill9()
    serve.start()  # recovery: SIGTERM (ignored), SIGKILL due in 5 s ...
    serve.kill9()  # ... which this engine never gets to send
    assert _alive(child)
    [row] = serve.ledger(a)
    assert row["state"] == "interrupted"
    assert pid_on_row() is not None  # the ended run still names the child
    serve.start()
    wait_for(lambda: not _alive(child), timeout=15)
    wait_for(lambda: pid_on_row() is None)  # forgotten once it has ended
    serve.stop()


def test_a_frozen_engine_records_missed_fires_as_asleep(serve: Serve) -> None:
    """SIGSTOP freezes the engine as a suspended laptop would; fires due meanwhile are
    accounted for when it thaws. (The wall-clock jump itself is covered with the fake clock.)"""
    serve.env["ERRANDS_GRACE"] = "1s"
    serve.start()
    watch = serve.watch()
    a = serve.cli("add", "--title", "beat", "--command", "true", "--schedule", "every:1s")["id"]
    watch.until(lambda: len(serve.ledger(a)) >= 2, "two runs recorded")
    assert serve.proc is not None
    os.kill(serve.proc.pid, signal.SIGSTOP)
    wait_for(lambda: _state(serve.proc.pid) == "T")  # type: ignore[union-attr]
    # Only what is recorded from now on counts: on a busy machine a fire may already have
    # been more than the 1 s grace late, and recorded as missed, before the freeze.
    before = len(serve.ledger(a))
    # A freeze is wall time passing. It lasts until five fires are due, from the next one
    # the engine had planned (read from the file: the frozen engine cannot answer); one of
    # them may be claimed by an admission the freeze interrupted. On thaw the latest runs
    # (or, thawed late, is missed too) and the three or more before it can only be missed.
    _sleep_until(serve.next_fire_at(a) + timedelta(seconds=4 + 0.5))
    os.kill(serve.proc.pid, signal.SIGCONT)
    skipped = watch.until(lambda: [r for r in serve.ledger(a)[before:] if r["state"] == "skipped"
                                   and r["skip_reason"] == "machine_asleep"],
                          "the fires missed while frozen recorded")
    assert skipped[0]["missed_count"] >= 3
    watch.close()
    serve.stop()


def _state(pid: int) -> str:
    """The one-letter state of a process (R, S, T for stopped, Z ...)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of a dead parent counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def test_without_an_engine_run_now_runs_here_and_attention_lists_its_note(serve: Serve) -> None:
    a = serve.cli("add", "--title", "noter", "--command",
                  "echo working; echo 'errands: notify disk almost full'; echo 'errands: result 93%'",
                  "--schedule", "manual")["id"]
    run = serve.cli("run-now", a, "--wait")
    assert (run["state"], run["result"]) == ("succeeded", "93%")
    assert "errands: notify disk almost full" in run["output_tail"]
    items = serve.cli("attention", "--unread")["items"]
    assert [(i["kind"], i["body"], i["run_id"]) for i in items] == [
        ("notify", "disk almost full", run["id"])]
    assert serve.cli("attention", "read", "--all")["marked"] == 1
    assert serve.cli("attention", "--unread")["items"] == []
    dry = serve.cli("run-now", a, "--dry-run")
    assert dry["dry_run"] is True and dry["result"].startswith("would run: ")
    assert serve.cli("show", a)["status"] == "active"


@pytest.mark.parametrize("wait", [False, True])
def test_stop_reaches_a_run_hosted_by_run_now_without_an_engine(serve: Serve, wait: bool,
                                                               tmp_path: Path) -> None:
    marker = tmp_path / "started"
    a = serve.cli("add", "--title", "long", "--command", f"touch {marker}; sleep 30",
                  "--schedule", "manual")["id"]
    hosted = subprocess.Popen([ERRANDS, "run-now", a, "--data-dir", str(serve.data),
                               *(["--wait"] if wait else [])], env=serve.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def running() -> bool:  # a file, not `errands runs`: no reader races the start
            assert hosted.poll() is None, hosted.communicate()
            return marker.exists()

        wait_for(running, timeout=40)
        stopped = serve.cli("stop", a, check=False)
        assert stopped.returncode == 0, stopped.stderr
        reply = json.loads(stopped.stdout)
        assert reply["state"] == "cancelled"
        assert reply["error"] == {"code": "cancelled", "message": "stopped by the user"}
        out, err = hosted.communicate(timeout=30)
    finally:
        if hosted.poll() is None:
            hosted.kill()
            hosted.communicate()
    assert "Traceback" not in err and "Error" not in err, err
    assert "Run #1 cancelled" in out and "stopped by the user" in out, (hosted.returncode, out, err)
    assert hosted.returncode == (1 if wait else 0)  # --wait: the outcome; else: accepted
    trail = [(e.action, e.actor) for e in Store(database_location(serve.data)).audit(a)]
    assert trail == [("created", "user"), ("run_requested", "user")]  # written by the CLI


def test_a_repeated_request_id_returns_the_recorded_run(serve: Serve) -> None:
    serve.start()
    a = serve.cli("add", "--title", "long", "--command", "sleep 30", "--schedule", "manual")["id"]
    first = serve.cli("run-now", a, "--request-id", "X")
    assert serve.cli("stop", a)["state"] == "cancelled"
    again = serve.cli("run-now", a, "--request-id", "X", check=False)
    assert again.returncode == 0, again.stderr
    assert (json.loads(again.stdout)["id"], json.loads(again.stdout)["state"]) == (
        first["id"], "cancelled")
    waited = serve.cli("run-now", a, "--request-id", "X", "--wait", check=False)
    assert waited.returncode == 1 and json.loads(waited.stdout)["state"] == "cancelled"
    serve.stop()
    local = serve.cli("run-now", a, "--request-id", "X", check=False)  # no engine now
    assert local.returncode == 0 and json.loads(local.stdout)["id"] == first["id"]
    trail = [(e.action, e.actor) for e in Store(database_location(serve.data)).audit(a)]
    assert trail == [("created", "user"), ("run_requested", "user")]


def test_a_subscriber_hears_the_engine_stop(serve: Serve) -> None:
    serve.start()
    watch = serve.watch()
    assert "Stopped." in serve.stop()
    wait_for(lambda: watch.ended, timeout=10)
    states = [n.get("engine_state") for n in watch.received]
    assert "stopped" in states, watch.received
    watch.close()
