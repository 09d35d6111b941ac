"""Soak: ``errands serve`` under load, killed with SIGKILL at a random instant, restarted.

Run from the repository root (no install needed):

    .venv/bin/python bench/soak_kill9.py                # 200 cycles, about 7 minutes
    .venv/bin/python bench/soak_kill9.py --cycles 20    # a quick look
    .venv/bin/python bench/soak_kill9.py --keep         # keep the data folder afterwards
    .venv/bin/python bench/soak_kill9.py --stubborn-sleep 0   # no 30 s SIGTERM-ignorers

Only the public interfaces are used: the ``errands`` command (``import``, ``config set``,
``serve``, ``run-now``) and, once every engine is dead or stopped, the SQLite file read with
the standard ``sqlite3`` module (read-only). Nothing of Errands is imported beyond what
``bench/_common.py`` does (it byte-compiles the package so every process starts as an
installed Errands does), so the soak keeps working while the engine's internals move.
``errands`` is run as ``python -c 'from errands.cli import main ...'`` with ``PYTHONPATH``
set to the ``desktop/`` beside this ``bench/``: the soak tests the checkout it sits in (a
copy of the tree elsewhere too), not whatever the virtual environment's editable install
points at.

Set-up (a fresh data folder, ``ERRANDS_*`` cleared from the environment, the keyring
disabled as the tests do, Errands' own log in the soak's folder): settings stored with
``errands config set``: ``min_interval 1s`` (the shortest allowed gap), ``concurrency 8``,
``grace 1s`` (``--grace``; with the default 2 minutes the newest fire missed while the
engine was down always runs on time at the restart, so no catch-up run is ever made; with
``1s`` a ``catchup`` automation's fire more than 1 s late at the restart is caught up),
``run_history_limit 1000000`` (so pruning never merges or deletes a record the checks
read). Then one ``errands import`` of ``--automations`` command automations (default 30),
``every:1s`` unless said otherwise, in these kinds (in turn):

* ``quick``: writes its markers and exits;
* ``sleep``: ``sleep 0.3``;
* ``term``: ``trap '' TERM; sleep 2 & ...; wait``: a child that ignores SIGTERM and ends
  by itself within 2 s;
* ``stubborn`` (one in fourteen; none with ``--stubborn-sleep 0``): the same with
  ``sleep 30``: it outlives the next engine's 5 s leftover grace, so only an engine's
  SIGKILL ends it before the final check;
* ``fail``: ``exit 3`` with two attempts, retried 1 s later (retries across kills);
* ``catchup``: ``sleep 0.3``, ``every:3s`` with ``misfire: run_once``: when its newest
  fire missed while the engine was down is more than ``grace`` late at the restart, it
  runs once as a ``catch_up`` run carrying the missed counts (with ``every:1s`` the newest
  missed fire is never a whole second late, and ``grace`` is at least ``1s``);
* ``manual`` (two of them): no schedule; each cycle asks ``errands run-now`` of them
  (unique ``--request-id``), and every third cycle of a random scheduled one too, without
  waiting for the answers: the CLIs overlap the kill, and one that finds no engine hosts
  the run itself, as documented.

Every command first appends ``S run_id attempt automation_id scheduled_for pid cycle`` to
one marker file (one short ``write``, so lines never interleave), the pid of each child
it spawns (``C run_id attempt pid``) and, if it gets to its end, ``E run_id attempt``.
``ERRANDS_RUN_ID`` etc. come from the runner; ``SOAK_TAG`` (unique per soak) and
``SOAK_CYCLE`` from the engine's environment, which commands inherit.

A cycle: start ``errands serve`` (retried while something else owns the folder, exit 4:
a run-now CLI that found no engine and hosts its run; the refusals are counted, with who
held the folder), read its "Errands engine running" line (time-to-ready is measured from the
start of the process to that line), send the run-now calls, wait a random 0.2-2.5 s,
SIGKILL it and reap it; in one cycle in twelve or so (``DOWN_CHANCE``) the next start
waits 1-3 s more, so that fires come due while no engine runs (otherwise the restart is
quicker than the 1 s interval and no fire is ever missed). After the last cycle every CLI is waited for, one last engine is
started and, after ``FINAL_RUN_S`` seconds (recovery of the last killed engine's runs and
children, a few ordinary fires), stopped with SIGTERM and waited for. Then the soak waits
the documented leftover grace (SIGKILL 5 s after SIGTERM) plus a second before looking for
orphans, and reads the database.

Besides the checks, the figures count the run-now answers by outcome (accepted, ``busy``,
``engine_running``: another run-now CLI won the folder first, ``engine_unreachable``: the
engine died while answering) and list the unexpected ones, naming who owned the folder.

Checks (each finding is listed, the first ones with their evidence):

duplicates
  (a) two run rows of one automation with the same ``scheduled_for`` among the scheduled
  ones (``trigger`` ``schedule`` or ``catch_up``, skipped records included); (b) a marker
  ``S`` line twice for the same (run id, attempt) - a command executed twice for one run
  (a retry is the same run id with the next attempt number, so attempts are told apart);
  (c) two different run ids whose commands started for the same (automation, scheduled
  instant) of a scheduled run; (d) a schedule slot accounted for twice (see the cursor
  check below), off the ``every`` grid, or at or after the automation's cursor.

lost
  (a) after the final clean start and stop, a run left in an active state (``scheduled``,
  ``running``, ``awaiting_input``: ``ACTIVE_STATES`` in ``errands/records.py``; a retry
  waiting for its attempt is a ``scheduled`` row); (b) a run whose command started (an
  ``S`` marker) without a row, or whose row is not in a state a started run ends in
  (``succeeded``, ``failed``, ``cancelled``, ``interrupted``, ``expired``); (c) a run-now
  the CLI reported accepted (a run id in its answer) without a row; (d) the cursor: for
  each scheduled automation, every slot of its ``every`` grid from its ``start_at`` up to
  (not including) its final ``next_fire_at`` (the durable cursor, ``automations``) must be
  accounted for exactly once, either as a run row's ``scheduled_for`` or inside a skipped
  record's ``missed_first``..``missed_last`` (columns of ``runs``, ``db/schema.py``; a
  catch-up run carrying counts covers its range the same way). A grid slot nobody
  accounted for is lost; a record whose ``missed_count`` differs from the slots of its
  range is listed as lost too (the count under-states what was missed). This is robust
  because the set-up keeps every record (no retention merging) and the grid is exact
  (``every`` whole seconds from a whole-second ``start_at``, no jitter, no edits or
  pauses).

orphans
  after the final stop plus the leftover grace, a live (not zombie) process that a command
  recorded (``S``'s pid, a ``C`` child) and whose ``/proc/PID/environ`` still carries that
  run's ``ERRANDS_RUN_ID`` (so a reused pid is not mistaken for one), or any other live
  process carrying this soak's ``SOAK_TAG`` and an ``ERRANDS_RUN_ID`` (a command's
  process that had not recorded itself yet). Linux only (``/proc``). Each orphan is shown
  with its run's row (state, and the ``pid`` column the next engine's recovery reads) and
  how long the engines after the one that started it lived after their ready line: the
  next engine finds the run left ``running``, closes it ``interrupted`` and sends its
  group SIGTERM, and SIGKILLs what ignores SIGTERM 5 s later (or at once when it stops).
  The soak SIGKILLs the orphans it found before it ends.

Prints a progress line every 20 cycles, then the figures and a PASS/FAIL verdict for each
check. Exit status 1 if any check found something, 0 otherwise.

Several engines (``--engines 3``): a shared catalogue instead of one engine's file. A
PostgreSQL server is started on loopback as the tests start one (``tests/pg_support.py``),
with a database ``soak``; engines ``m1`` .. ``mN`` (``ERRANDS_MACHINE``), each with a data
folder of its own, serve it together. The automations are those above (``--every``, default
3 s, for the scheduled ones; concurrency 64), half of them ``runs_on: any`` and the rest
bound to the machines in turn. For ``--minutes`` (default 5) every ``--kill-every`` seconds
(default 30) one engine in turn is killed with SIGKILL, after the manual run-now calls of
that moment were sent through a random machine's folder, and started again after 0.5-3 s;
then all are stopped with SIGTERM and the same checks are made on the shared catalogue,
plus **misplaced**: a run started by an engine of a machine other than the one its
automation is bound to. A run-now of a machine's automation asked while that machine's
engine is down is refused (``engine_elsewhere``) as documented, and only counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (ROOT, byte_code, clean_environment, percentile,  # noqa: E402
                     temp_data_dir, verdict)

READY_TEXT = "Errands engine running"
KILL_AFTER = (0.2, 2.5)        # seconds after the ready line
DOWN_CHANCE = 0.08             # a cycle whose engine stays down a while before the restart
DOWN_FOR = (1.0, 3.0)          # seconds: fires come due while no engine runs
LEFTOVER_GRACE_S = 5.0         # docs/engine.md, "Crash safety and shutdown"
FINAL_RUN_S = 3.0              # the last, clean engine's life before SIGTERM
ACTIVE_STATES = ("scheduled", "running", "awaiting_input")
STARTED_END_STATES = ("succeeded", "failed", "cancelled", "interrupted", "expired")
SCHEDULED_TRIGGERS = ("schedule", "catch_up")
CATCHUP_EVERY = "3s"           # the 'catchup' kind's interval (see the docstring)
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
SHOW = 8                       # findings shown per check
UTC = timezone.utc


# ----------------------------------------------------------------------------- set-up

def errands_argv() -> list[str]:
    """The ``errands`` command of the checkout this script sits in (``PYTHONPATH`` is set to
    its ``desktop/``), whatever the virtual environment's editable install points at."""
    return [sys.executable, "-c", "import sys; from errands.cli import main; sys.exit(main())"]


def command_text(kind: str, marks: Path, stubborn_s: float) -> str:
    log = shlex.quote(str(marks))
    start = (f'echo "S $ERRANDS_RUN_ID $ERRANDS_ATTEMPT $ERRANDS_AUTOMATION_ID '
             f'$ERRANDS_SCHEDULED_FOR $$ $SOAK_CYCLE" >> {log}')
    end = f'echo "E $ERRANDS_RUN_ID $ERRANDS_ATTEMPT" >> {log}'
    child = f'echo "C $ERRANDS_RUN_ID $ERRANDS_ATTEMPT $!" >> {log}'
    body = {
        "quick": "echo ok",
        "sleep": "sleep 0.3",
        "catchup": "sleep 0.3",
        "term": f"trap '' TERM; sleep 2 & {child}; wait",
        "stubborn": f"trap '' TERM; sleep {stubborn_s:g} & {child}; wait",
        "fail": "exit 3",
        "manual": "sleep 0.2",
    }[kind]
    return f"{start}; {body}; {end}"


def plan(n: int, stubborn: bool) -> list[str]:
    """The kinds of ``n`` automations: two manual ones, the rest in turn."""
    cycle = ["quick", "sleep", "term", "quick", "sleep", "term",
             "stubborn" if stubborn else "term", "fail", "catchup", "quick", "sleep", "term",
             "quick", "sleep"]
    kinds = ["manual", "manual"]
    while len(kinds) < n:
        kinds.append(cycle[(len(kinds) - 2) % len(cycle)])
    return kinds


def definition(kind: str, i: int, marks: Path, stubborn_s: float, every: str = "1s",
               runs_on: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "title": f"soak {i:02d} {kind}",
        "runner": {"kind": "command", "command": command_text(kind, marks, stubborn_s)},
        "trigger": ({"kind": "manual"} if kind == "manual" else
                    {"kind": "every", "every": CATCHUP_EVERY if kind == "catchup" else every}),
        "policy": {"retry": {"max_attempts": 1, "backoff": {"initial": "1s", "factor": 2,
                                                            "max": "2s"}}},
    }
    if kind == "fail":
        doc["policy"]["retry"]["max_attempts"] = 2
    if kind == "catchup":
        doc["misfire"] = "run_once"
    if runs_on is not None:
        doc["runs_on"] = runs_on
    return doc


@dataclass
class Soak:
    data: Path
    marks: Path
    env: dict[str, str]
    cli: list[str]
    ready_s: list[float] = field(default_factory=list)
    refused_starts: int = 0                       # serve exit 4: a CLI held the folder
    pending: list[tuple[subprocess.Popen[str], str, str]] = field(default_factory=list)
    run_now: Counter[str] = field(default_factory=Counter)
    accepted: dict[str, str] = field(default_factory=dict)   # run id -> request id
    cli_errors: list[str] = field(default_factory=list)
    engine_output: list[str] = field(default_factory=list)
    lived: dict[int, float] = field(default_factory=dict)    # cycle -> s from ready to kill
    engine_pids: dict[int, int] = field(default_factory=dict)  # serve pid -> cycle
    refusals: dict[int, tuple[int, str]] = field(default_factory=dict)  # pid -> cycle, text
    cli_pids: dict[int, str] = field(default_factory=dict)   # run-now pid -> request id
    outlived: set[int] = field(default_factory=set)          # see ``outliving``
    outlived_peak: int = 0
    downtime: list[float] = field(default_factory=list)     # the longer pauses, seconds
    final_cycle: int = 0
    url: str | None = None    # several engines: the shared catalogue (PostgreSQL)

    def errands(self, *args: str, timeout: float = 120) -> Any:
        out = subprocess.run([*self.cli, *args, "--data-dir", str(self.data), "--json"],
                             env=self.env, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise SystemExit(f"errands {' '.join(args)} failed ({out.returncode}): "
                             f"{out.stderr.strip()}")
        return json.loads(out.stdout)

    # ----------------------------------------------------------------- one engine

    def folder(self, machine: str | None) -> Path:
        """An engine's data folder: the soak's, or (several engines) its machine's."""
        return self.data if machine is None else self.data.parent / machine

    def start(self, cycle: int, machine: str | None = None) -> subprocess.Popen[bytes]:
        env = dict(self.env, SOAK_CYCLE=str(cycle))
        if machine is not None:
            env["ERRANDS_MACHINE"] = machine
        deadline = time.monotonic() + 60
        while True:
            t0 = time.monotonic()
            proc = subprocess.Popen([*self.cli, "serve", "--data-dir",
                                     str(self.folder(machine))],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    bufsize=0)  # unbuffered: ``drain`` reads the descriptor
            assert proc.stdout is not None
            line = proc.stdout.readline().decode(errors="replace")
            if READY_TEXT in line:
                self.ready_s.append(time.monotonic() - t0)
                self.engine_pids[proc.pid] = cycle
                return proc
            rest = self.drain(proc, wait=True)
            if proc.returncode == 4 and time.monotonic() < deadline:  # another owner (a
                self.refused_starts += 1                           # run-now hosting a run)
                self.refusals[proc.pid] = (cycle, (line + rest).strip())
                time.sleep(0.1)
                continue
            raise SystemExit(f"errands serve did not start (cycle {cycle}, exit status "
                             f"{proc.returncode}): {line}{rest}")

    def drain(self, proc: subprocess.Popen[bytes], *, wait: bool) -> str:
        """What a dead engine printed after its ready line. Never blocks on a pipe that a
        leftover child might still hold open."""
        if wait:
            proc.wait(timeout=60)
        assert proc.stdout is not None
        chunks = []
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        while select.select([fd], [], [], 0)[0]:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            chunks.append(data.decode(errors="replace"))
        proc.stdout.close()
        text = "".join(chunks)
        if text.strip():
            self.engine_output.append(text)
        return text

    def kill9(self, proc: subprocess.Popen[bytes]) -> None:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        self.drain(proc, wait=False)

    def stop(self, proc: subprocess.Popen[bytes]) -> tuple[int, float, str]:
        """SIGTERM, wait: (exit status, seconds it took, what it printed meanwhile)."""
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            self.cli_errors.append("the final engine did not stop within 90 s of SIGTERM")
        took = time.monotonic() - t0
        return proc.returncode, took, self.drain(proc, wait=False)

    # ------------------------------------------------------------------ run-now calls

    def ask_run_now(self, automation_id: str, request_id: str,
                    machine: str | None = None) -> None:
        env = self.env if machine is None else dict(self.env, ERRANDS_MACHINE=machine)
        proc = subprocess.Popen([*self.cli, "run-now", automation_id, "--request-id",
                                 request_id, "--data-dir", str(self.folder(machine)), "--json"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        self.pending.append((proc, automation_id, request_id))
        self.cli_pids[proc.pid] = request_id

    def collect(self, *, block: bool = False) -> None:
        left = []
        for proc, automation_id, request_id in self.pending:
            if proc.poll() is None and not block:
                left.append((proc, automation_id, request_id))
                continue
            try:
                out, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                self.cli_errors.append(f"run-now {request_id} hung for 120 s")
            self.run_now["asked"] += 1
            if proc.returncode == 0:
                try:
                    run_id = json.loads(out)["id"]
                except (ValueError, KeyError, TypeError):
                    self.run_now["unreadable"] += 1
                    self.cli_errors.append(f"run-now {request_id}: answer {out[:200]!r}")
                    continue
                self.run_now["accepted"] += 1
                self.accepted[run_id] = request_id
                continue
            code, message = "unknown", err.strip()[-300:]
            try:
                error = json.loads(err)["error"]
                code, message = error["code"], error["message"]
            except (ValueError, KeyError, TypeError):
                pass
            self.run_now[code] += 1
            if code == "busy" or (code == "engine_elsewhere" and self.url is not None):
                continue  # (several engines: a run-now of a machine's automation, asked
                # while that machine's engine was down, is refused as documented)
            asked_in = request_id.split("-")[1]
            owner = re.search(r"\(pid (\d+)", message)
            pid = int(owner.group(1)) if owner else 0
            if pid in self.engine_pids:
                message += (f" [that engine is cycle {self.engine_pids[pid]}'s;"
                            f" the request was sent in cycle {asked_in}]")
            elif pid in self.cli_pids:
                message += (f" [pid {pid} is the run-now CLI {self.cli_pids[pid]}, hosting its "
                            f"run with no engine running]")
            elif pid in self.refusals:
                message += (f" [pid {pid} is a serve of cycle {self.refusals[pid][0]} that "
                            f"exited 4 at its start: {self.refusals[pid][1][:200]!r}; the "
                            f"request was sent in cycle {asked_in}]")
            self.cli_errors.append(f"run-now {request_id} exit {proc.returncode} {code}: "
                                   f"{message}")
        self.pending = left


# ------------------------------------------------------------------------ the checks

def parse_instant(text: str) -> datetime:
    """An instant as Errands prints (``...Z``) or stores it (naive UTC)."""
    text = text.strip().replace("Z", "+00:00")
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass
class Marks:
    starts: dict[tuple[str, str], list[dict[str, str]]] = field(default_factory=dict)
    ends: set[tuple[str, str]] = field(default_factory=set)
    pids: dict[int, str] = field(default_factory=dict)   # pid -> run id
    lines: int = 0
    torn: int = 0


def read_marks(path: Path) -> Marks:
    m = Marks()
    if not path.exists():
        return m
    for raw in path.read_text(errors="replace").splitlines():
        parts = raw.split()
        m.lines += 1
        if parts[:1] == ["S"] and len(parts) == 7:
            _, run_id, attempt, automation_id, scheduled_for, pid, cycle = parts
            m.starts.setdefault((run_id, attempt), []).append(
                {"automation_id": automation_id, "scheduled_for": scheduled_for,
                 "pid": pid, "cycle": cycle})
            m.pids[int(pid)] = run_id
        elif parts[:1] == ["C"] and len(parts) == 4:
            m.pids[int(parts[3])] = parts[1]
        elif parts[:1] == ["E"] and len(parts) == 3:
            m.ends.add((parts[1], parts[2]))
        else:
            m.torn += 1
    return m


def proc_environ(pid: int) -> dict[str, str] | None:
    """A live, non-zombie process's initial environment, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(") ", 1)[1][:1] in ("Z", "X"):
            return None
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except (OSError, IndexError):
        return None
    env = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            env[key.decode(errors="replace")] = value.decode(errors="replace")
    return env


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return "?"


def find_orphans(marks: Marks, tag: str) -> list[dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for pid, run_id in marks.pids.items():
        env = proc_environ(pid)
        if env is not None and env.get("ERRANDS_RUN_ID") == run_id:
            found[pid] = {"pid": pid, "run_id": run_id, "recorded": True}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in found:
            continue
        env = proc_environ(int(entry))
        if env is not None and env.get("SOAK_TAG") == tag and "ERRANDS_RUN_ID" in env:
            found[int(entry)] = {"pid": int(entry), "run_id": env["ERRANDS_RUN_ID"],
                                 "recorded": False}
    for item in found.values():
        item["cmdline"] = cmdline(item["pid"])
    return sorted(found.values(), key=lambda o: o["pid"])


def outliving(tag: str, cycle: int) -> set[int]:
    """Command processes of this soak started under an engine before ``cycle``'s, still
    alive once ``cycle``'s engine is dead: that engine found their runs, sent them SIGTERM
    and died before their SIGKILL was due (or they were already past its recovery)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        env = proc_environ(int(entry))
        if (env is not None and env.get("SOAK_TAG") == tag and "ERRANDS_RUN_ID" in env
                and env.get("SOAK_CYCLE", "0").isdigit()
                and 0 < int(env["SOAK_CYCLE"]) < cycle):
            found.add(int(entry))
    return found


def open_read_only(db_path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
        db.execute("SELECT count(*) FROM runs").fetchone()
    except sqlite3.OperationalError:  # a WAL index to rebuild: a plain reader, query-only
        db = sqlite3.connect(db_path, timeout=10)
        db.execute("PRAGMA query_only = ON")
    db.row_factory = sqlite3.Row
    return db


def duration(text: str) -> timedelta:
    """``every`` as stored (``1s``, ``3s``, ``5m`` ...)."""
    match = re.fullmatch(r"(\d+)([smhd])", text.strip())
    if match is None:
        raise ValueError(f"not a duration: {text!r}")
    return timedelta(seconds=int(match.group(1)) * UNITS[match.group(2)])


def grid(first: datetime, last: datetime, step: timedelta) -> list[datetime]:
    out, t = [], first
    while t <= last:
        out.append(t)
        t += step
    return out


RUN_COLUMNS = ('id, automation_id, "index", slot, trigger, scheduled_for, state, attempt, '
               "skip_reason, missed_count, missed_first, missed_last, error_code, "
               "error_message, stop_reason, request_id, pid, machine")


def read_rows(soak: Soak) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(automations by id, runs) as the SQLite file holds them (text), from either store."""
    if soak.url is None:
        db = open_read_only(soak.data / "errands.sqlite3")
        try:
            autos = {r["id"]: dict(r) for r in db.execute(
                "SELECT id, title, definition, next_fire_at FROM automations")}
            runs = [dict(r) for r in db.execute(f"SELECT {RUN_COLUMNS} FROM runs")]
        finally:
            db.close()
        return autos, runs
    import psycopg
    from psycopg.rows import dict_row

    def text(row: dict[str, Any]) -> dict[str, Any]:
        return {k: (v.isoformat() if isinstance(v, datetime) else
                    json.dumps(v) if isinstance(v, (dict, list)) else v)
                for k, v in row.items()}

    with psycopg.connect(soak.url, row_factory=dict_row) as conn:
        autos = {r["id"]: text(r) for r in conn.execute(
            "SELECT id, title, definition, next_fire_at FROM automations")}
        runs = [text(r) for r in conn.execute(f"SELECT {RUN_COLUMNS} FROM runs")]
    return autos, runs


def check(soak: Soak, marks: Marks, orphans: list[dict[str, Any]]
          ) -> tuple[dict[str, list[str]], dict[str, Any]]:
    findings: dict[str, list[str]] = {"duplicates": [], "lost": [], "orphans": [],
                                      "misplaced": []}
    dup, lost = findings["duplicates"], findings["lost"]
    autos, runs = read_rows(soak)
    by_id = {r["id"]: r for r in runs}
    # misplaced: a run of an automation bound to one machine, started by another's engine
    for r in runs:
        bound = json.loads(autos[r["automation_id"]]["definition"]).get("runs_on", "any") \
            if r["automation_id"] in autos else "any"
        if bound != "any" and r["machine"] and r["machine"] != bound:
            findings["misplaced"].append(f"{autos[r['automation_id']]['title']} "
                                         f"#{r['index']}: bound to {bound}, ran on "
                                         f"{r['machine']}")
    title = {a: autos[a]["title"] for a in autos}

    # duplicates (a): the same scheduled instant twice
    seen: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        if r["trigger"] in SCHEDULED_TRIGGERS and r["scheduled_for"]:
            seen[(r["automation_id"], r["scheduled_for"])].append(r)
    for (a, when), rows in seen.items():
        if len(rows) > 1:
            dup.append(f"{title.get(a, a)}: {len(rows)} rows for {when}: "
                       + ", ".join(f"#{x['index']} {x['state']}" for x in rows))
    # duplicates (b): a command executed twice for one (run, attempt)
    for (run_id, attempt), starts in marks.starts.items():
        if len(starts) > 1:
            dup.append(f"run {run_id} attempt {attempt} started {len(starts)} times "
                       f"(pids {[s['pid'] for s in starts]}, cycles "
                       f"{[s['cycle'] for s in starts]})")
    # duplicates (c): two runs' commands for one scheduled instant
    slot_runs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (run_id, _attempt), starts in marks.starts.items():
        row = by_id.get(run_id)
        if row is not None and row["trigger"] in SCHEDULED_TRIGGERS:
            slot_runs[(starts[0]["automation_id"], starts[0]["scheduled_for"])].add(run_id)
    for (a, when), ids in slot_runs.items():
        if len(ids) > 1:
            dup.append(f"{title.get(a, a)}: commands of {len(ids)} runs for {when}: "
                       f"{sorted(ids)}")

    # lost (a): active after a clean stop
    for r in runs:
        if r["state"] in ACTIVE_STATES:
            lost.append(f"{title.get(r['automation_id'])} run #{r['index']} ({r['trigger']}, "
                        f"{r['scheduled_for']}) left {r['state']} after the final stop")
    # lost (b): a command started, its run not recorded as a started run
    interrupted_after_end = 0
    for (run_id, attempt), starts in marks.starts.items():
        row = by_id.get(run_id)
        s = starts[0]
        if row is None:
            lost.append(f"run {run_id} ({title.get(s['automation_id'])}, attempt {attempt}, "
                        f"cycle {s['cycle']}) started its command but has no row")
        elif row["state"] not in STARTED_END_STATES:
            lost.append(f"run {run_id} ({title.get(s['automation_id'])} #{row['index']}) "
                        f"started its command but its row is {row['state']}")
        elif row["state"] == "interrupted" and (run_id, attempt) in marks.ends:
            interrupted_after_end += 1
    # lost (c): a run-now accepted without a row
    for run_id, request_id in soak.accepted.items():
        if run_id not in by_id:
            lost.append(f"run-now {request_id} was accepted as run {run_id}, which has no row")

    # the cursor: each grid slot accounted for exactly once
    slots_checked = 0
    for a, auto in autos.items():
        try:
            trigger = json.loads(auto["definition"])["trigger"]
        except (ValueError, KeyError, TypeError):
            lost.append(f"{auto['title']}: definition unreadable")
            continue
        if trigger.get("kind") != "every":
            continue
        start = parse_instant(trigger["start_at"])
        step = duration(trigger["every"])
        cursor = parse_instant(auto["next_fire_at"]) if auto["next_fire_at"] else None
        if cursor is None:
            lost.append(f"{auto['title']}: no cursor (next_fire_at) after the final stop")
            continue
        covered: Counter[datetime] = Counter()
        for r in runs:
            if r["automation_id"] != a or r["trigger"] not in SCHEDULED_TRIGGERS:
                continue
            if r["missed_first"] and r["missed_last"]:
                span = grid(parse_instant(r["missed_first"]), parse_instant(r["missed_last"]),
                            step)
                if r["missed_count"] != len(span):
                    lost.append(f"{auto['title']} #{r['index']} ({r['state']}): missed_count "
                                f"{r['missed_count']} but {r['missed_first']}.."
                                f"{r['missed_last']} spans {len(span)} slots")
                if r["scheduled_for"] and parse_instant(r["scheduled_for"]) not in span:
                    dup.append(f"{auto['title']} #{r['index']}: scheduled_for "
                               f"{r['scheduled_for']} outside its missed range")
                covered.update(span)
            elif r["scheduled_for"]:
                covered[parse_instant(r["scheduled_for"])] += 1
        expected = grid(start, cursor - step, step)
        slots_checked += len(expected)
        expected_set = set(expected)
        missing = [t for t in expected if covered[t] == 0]
        if missing:
            lost.append(f"{auto['title']}: {len(missing)} slot(s) before the cursor neither "
                        f"run nor skipped, first {missing[0].isoformat()}")
        twice = sorted(t for t, n in covered.items() if n > 1)
        if twice:
            dup.append(f"{auto['title']}: {len(twice)} slot(s) accounted for twice, first "
                       f"{twice[0].isoformat()}")
        extra = sorted(t for t in covered if t not in expected_set)
        if extra:
            dup.append(f"{auto['title']}: {len(extra)} slot(s) recorded off the grid or at/"
                       f"after the cursor {cursor.isoformat()}, first {extra[0].isoformat()}")

    # orphans, with the life of the engines after the one that started them: the next
    # engine finds the run left running (it records it interrupted and sends its group
    # SIGTERM), and ends a child that ignores SIGTERM 5 s later if it lives that long
    for o in orphans:
        row = by_id.get(o["run_id"])
        s = next((v[0] for (rid, _), v in marks.starts.items() if rid == o["run_id"]), None)
        where = (f"{title.get(row['automation_id'])} #{row['index']} {row['state']}, "
                 f"row pid {row['pid']}" if row else "no row")
        text = (f"pid {o['pid']} `{o['cmdline'][:40]}` alive, run {o['run_id'][:8]} ({where}),"
                f" started in cycle {s['cycle'] if s else '?'}")
        if s and s["cycle"].isdigit():
            after = [(c, soak.lived.get(c)) for c in range(int(s["cycle"]) + 1,
                                                           int(s["cycle"]) + 3)]
            text += "; engines after it lived " + ", ".join(
                f"{c}: {t:.2f} s" if t is not None else f"{c}: (final, clean stop)"
                for c, t in after if c in soak.lived or c == soak.final_cycle)
        findings["orphans"].append(text + ("" if o["recorded"] else ", unrecorded"))

    states = Counter(r["state"] for r in runs)
    skipped = [r for r in runs if r["state"] == "skipped"]
    figures = {
        "rows": len(runs), "states": dict(states),
        "runs": len(runs) - len(skipped), "skipped_records": len(skipped),
        "skipped_fires": sum(r["missed_count"] or 1 for r in skipped),
        "skip_reasons": dict(Counter(r["skip_reason"] for r in skipped)),
        "triggers": dict(Counter(r["trigger"] for r in runs)),
        "slots_checked": slots_checked,
        "interrupted_after_end": interrupted_after_end,
    }
    return findings, figures


# ------------------------------------------------------------------------------ main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--automations", type=int, default=30,
                        help="command automations (two of them manual), default 30")
    parser.add_argument("--stubborn-sleep", type=float, default=30.0,
                        help="seconds the SIGTERM-ignoring 'stubborn' children sleep "
                             "(0: none, 'term' automations instead)")
    parser.add_argument("--grace", default="1s",
                        help="the grace setting (default 1s: a 'catchup' automation's fire "
                             "over 1 s late at a restart is missed and caught up)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the data folder")
    parser.add_argument("--engines", type=int, default=1,
                        help="several engines (one per machine name) on one PostgreSQL "
                             "catalogue, one killed every --kill-every seconds: see "
                             "'Several engines' in the module text")
    parser.add_argument("--minutes", type=float, default=5.0,
                        help="several engines: how long they run (default 5)")
    parser.add_argument("--kill-every", type=float, default=30.0,
                        help="several engines: seconds between kills (default 30)")
    parser.add_argument("--every", default="3s",
                        help="several engines: the scheduled automations' interval (default 3s)")
    args = parser.parse_args()
    if args.keep:
        os.environ["ERRANDS_BENCH_KEEP"] = "1"
    clean_environment()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    if args.engines > 1:
        return several(args, seed, rng)
    wall0 = time.monotonic()
    setup_s = 0.0
    tag = uuid.uuid4().hex

    with temp_data_dir("errands-soak-") as root:
        byte_code(root / "pycache", "errands.cli, errands.engine.service")
        data, marks_path = root / "data", root / "marks.log"
        env = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                   ERRANDS_DATA_DIR=str(data), ERRANDS_LOG_DIR=str(root / "log"),
                   SOAK_TAG=tag, SOAK_CYCLE="0",
                   PYTHONPATH=os.pathsep.join(
                       p for p in (str(ROOT / "desktop"), os.environ.get("PYTHONPATH")) if p))
        soak = Soak(data, marks_path, env, errands_argv())
        for key, value in (("min_interval", "1s"), ("concurrency", "8"), ("grace", args.grace),
                           ("run_history_limit", "1000000")):
            soak.errands("config", "set", key, value)
        kinds = plan(args.automations, args.stubborn_sleep > 0)
        doc = {"format": "errands-export", "version": 1, "automations": [
            {"request_id": f"soak:{i}", "definition": definition(k, i, marks_path,
                                                                   args.stubborn_sleep)}
            for i, k in enumerate(kinds)]}
        (root / "automations.json").write_text(json.dumps(doc))
        made = soak.errands("import", str(root / "automations.json"))["items"]
        ids = [item["automation_id"] for item in made]
        manual = [i for i, k in zip(ids, kinds) if k == "manual"]
        scheduled = [i for i, k in zip(ids, kinds) if k != "manual"]
        print(f"soak_kill9: {args.cycles} cycles, {len(ids)} automations "
              f"({dict(Counter(kinds))}), seed {seed}, data {root}", flush=True)

        setup_s = time.monotonic() - wall0
        for cycle in range(1, args.cycles + 1):
            proc = soak.start(cycle)
            for n, target in enumerate(manual):
                soak.ask_run_now(target, f"soak-{cycle}-{n}")
            if cycle % 3 == 0:
                soak.ask_run_now(rng.choice(scheduled), f"soak-{cycle}-s")
            delay = rng.uniform(*KILL_AFTER)
            time.sleep(delay)
            soak.kill9(proc)
            soak.lived[cycle] = delay
            alive = outliving(tag, cycle)
            soak.outlived |= alive
            soak.outlived_peak = max(soak.outlived_peak, len(alive))
            soak.collect()
            if rng.random() < DOWN_CHANCE:
                down = rng.uniform(*DOWN_FOR)
                soak.downtime.append(down)
                time.sleep(down)
            if cycle % 20 == 0 or cycle == args.cycles:
                m = read_marks(marks_path)
                print(f"  cycle {cycle:4d}/{args.cycles}  {time.monotonic() - wall0:6.1f} s  "
                      f"ready mean {sum(soak.ready_s) / len(soak.ready_s):.3f} s  "
                      f"commands started {len(m.starts)}  run-now {dict(soak.run_now)}",
                      flush=True)

        cycles_s = time.monotonic() - wall0 - setup_s
        soak.collect(block=True)
        soak.final_cycle = args.cycles + 1
        proc = soak.start(soak.final_cycle)   # the final, clean start and stop
        time.sleep(FINAL_RUN_S)
        final_status, final_took, final_said = soak.stop(proc)
        time.sleep(LEFTOVER_GRACE_S + 1.0)
        marks = read_marks(marks_path)
        orphans = find_orphans(marks, tag)
        findings, fig = check(soak, marks, orphans)
        log_errors, leftover_lines = [], []
        for log in sorted((root / "log").glob("*.log*")):
            for line in log.read_text(errors="replace").splitlines():
                if " ERROR " in line or "Traceback" in line:
                    log_errors.append(line)
                if "left by a previous engine" in line:
                    leftover_lines.append(line)
        for o in orphans:  # the soak leaves nothing behind
            try:
                os.kill(o["pid"], signal.SIGKILL)
            except OSError:
                pass

    wall_s = time.monotonic() - wall0
    ready = soak.ready_s
    restarts = ready[1:]  # the first start found nothing to recover
    print()
    print(f"cycles                     {args.cycles} (seed {seed})")
    holders = Counter()
    for _cycle, text in soak.refusals.values():
        owner = re.search(r"\(pid (\d+)", text)
        pid = int(owner.group(1)) if owner else 0
        holders["a run-now CLI" if pid in soak.cli_pids else
                f"cycle {soak.engine_pids[pid]}'s serve" if pid in soak.engine_pids else
                "unknown"] += 1
    refusal_sample = next(iter(soak.refusals.values()), (0, ""))[1]
    print(f"engine starts              {len(ready)}  (refused, exit 4: {soak.refused_starts}, "
          f"the folder held by {dict(holders)})")
    if refusal_sample:
        print(f"  a refusal said           {refusal_sample[:200]}")
    print(f"restart time-to-ready      mean {sum(restarts) / max(1, len(restarts)):.3f} s  "
          f"p95 {percentile(restarts, 95):.3f} s  max {max(restarts, default=float('nan')):.3f} s")
    print(f"longer pauses before a restart: {len(soak.downtime)} "
          f"({sum(soak.downtime):.1f} s in all)")
    print(f"runs recorded              {fig['runs']}  {fig['states']}")
    print(f"  by trigger               {fig['triggers']}")
    print(f"skipped records            {fig['skipped_records']} standing for "
          f"{fig['skipped_fires']} fires  {fig['skip_reasons']}")
    print(f"commands started           {len(marks.starts)} (run, attempt) pairs; "
          f"ended {len(marks.ends)}; marker lines {marks.lines} (torn {marks.torn})")
    print(f"  ended, recorded interrupted (killed before the end was written): "
          f"{fig['interrupted_after_end']}")
    print(f"run-now calls              {dict(soak.run_now)}")
    print(f"schedule slots checked     {fig['slots_checked']}")
    print(f"final stop (SIGTERM)       exit status {final_status} after {final_took:.1f} s, "
          f"said {' / '.join(final_said.split(chr(10))).strip(' /')!r}")
    print(f"command processes alive after the engine that recovered their run was killed: "
          f"{len(soak.outlived)} distinct, at most {soak.outlived_peak} at once")
    print(f"starts ending a dead engine's process groups (Errands' log): "
          f"{len(leftover_lines)}")
    problems(log_errors, soak.cli_errors)
    print(f"wall time                  {wall_s:.1f} s (set-up {setup_s:.1f} s, cycles "
          f"{cycles_s:.1f} s, final start/stop and checks {wall_s - setup_s - cycles_s:.1f} s)")
    print()
    return verdicts(findings, ("duplicates", "lost", "orphans"))


def problems(log_errors: list[str], cli_errors: list[str]) -> None:
    print(f"errors in Errands' log     {len(log_errors)}")
    for line in log_errors[:SHOW]:
        print(f"    {line[:240]}")
    if cli_errors:
        print(f"CLI problems               {len(cli_errors)}")
        for line in cli_errors[:SHOW]:
            print(f"    {line[:240]}")


def verdicts(findings: dict[str, list[str]], names: tuple[str, ...]) -> int:
    """PASS/FAIL for each check, its first findings shown; the exit status."""
    failed = False
    for name in names:
        items = findings[name]
        failed |= bool(items)
        print(f"{verdict(not items)}: {name} {len(items)}")
        for line in items[:SHOW]:
            print(f"    {line}")
        if len(items) > SHOW:
            print(f"    ... and {len(items) - SHOW} more")
    return 1 if failed else 0


# -------------------------------------------------------------------- several engines

def several(args: argparse.Namespace, seed: int, rng: random.Random) -> int:
    """Several engines (``m1`` .. ``mN``) on one PostgreSQL catalogue for ``--minutes``;
    every ``--kill-every`` seconds one of them in turn is killed with SIGKILL and started
    again after a pause; then all are stopped with SIGTERM and the same checks are made,
    plus ``misplaced``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_support import PostgresServer  # noqa: E402 (Debian's server, as the tests use)

    wall0 = time.monotonic()
    tag = uuid.uuid4().hex
    machines = [f"m{n + 1}" for n in range(args.engines)]
    server = PostgresServer()
    try:
        server.admin("CREATE DATABASE soak")
        url = server.url("soak")
        with temp_data_dir("errands-soak-") as root:
            byte_code(root / "pycache", "errands.cli, errands.engine.service")
            marks_path = root / "marks.log"
            env = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                       ERRANDS_LOG_DIR=str(root / "log"), ERRANDS_DATABASE_URL=url,
                       SOAK_TAG=tag, SOAK_CYCLE="0", ERRANDS_MACHINE=machines[0],
                       PYTHONPATH=os.pathsep.join(
                           p for p in (str(ROOT / "desktop"), os.environ.get("PYTHONPATH"))
                           if p))
            soak = Soak(root / machines[0], marks_path, env, errands_argv(), url=url)
            for key, value in (("min_interval", "1s"), ("concurrency", "64"),
                               ("grace", args.grace), ("run_history_limit", "1000000")):
                soak.errands("config", "set", key, value)
            kinds = plan(args.automations, args.stubborn_sleep > 0)
            # half may run anywhere, the rest are bound to the machines in turn
            places = [("any" if i % 2 == 0 else machines[(i // 2) % len(machines)])
                      for i in range(len(kinds))]
            doc = {"format": "errands-export", "version": 1, "automations": [
                {"request_id": f"soak:{i}", "definition": definition(
                    k, i, marks_path, args.stubborn_sleep, args.every, place)}
                for i, (k, place) in enumerate(zip(kinds, places))]}
            (root / "automations.json").write_text(json.dumps(doc))
            made = soak.errands("import", str(root / "automations.json"))["items"]
            ids = [item["automation_id"] for item in made]
            manual = [i for i, k in zip(ids, kinds) if k == "manual"]
            print(f"soak_kill9: {len(machines)} engines on PostgreSQL for {args.minutes:g} "
                  f"min, one killed every {args.kill_every:g} s; {len(ids)} automations "
                  f"({dict(Counter(kinds))}, every {args.every}; "
                  f"{dict(Counter(places))}), seed {seed}, data {root}", flush=True)
            setup_s = time.monotonic() - wall0
            cycle = 0
            engines: dict[str, subprocess.Popen[bytes]] = {}
            for machine in machines:
                cycle += 1
                engines[machine] = soak.start(cycle, machine)
            end = time.monotonic() + args.minutes * 60
            kills = 0
            while True:
                next_kill = time.monotonic() + args.kill_every
                while time.monotonic() < min(next_kill, end):
                    time.sleep(min(2.0, max(0.0, min(next_kill, end) - time.monotonic())))
                    soak.collect()
                if time.monotonic() >= end:
                    break
                victim = machines[kills % len(machines)]
                kills += 1
                for n, target in enumerate(manual):  # asked across the kill
                    soak.ask_run_now(target, f"soak-{cycle}-{n}", rng.choice(machines))
                time.sleep(rng.uniform(0.0, 0.5))
                soak.kill9(engines[victim])
                down = rng.uniform(0.5, 3.0)
                soak.downtime.append(down)
                time.sleep(down)
                cycle += 1
                engines[victim] = soak.start(cycle, victim)
                m = read_marks(marks_path)
                print(f"  {time.monotonic() - wall0:6.1f} s  killed {victim} (down "
                      f"{down:.1f} s)  commands started {len(m.starts)}  "
                      f"run-now {dict(soak.run_now)}", flush=True)
            cycles_s = time.monotonic() - wall0 - setup_s
            soak.collect(block=True)
            soak.final_cycle = cycle + 1
            stops = [soak.stop(proc) for proc in engines.values()]
            time.sleep(LEFTOVER_GRACE_S + 1.0)
            marks = read_marks(marks_path)
            orphans = find_orphans(marks, tag)
            findings, fig = check(soak, marks, orphans)
            log_errors = [line for log in sorted((root / "log").glob("*.log*"))
                          for line in log.read_text(errors="replace").splitlines()
                          if " ERROR " in line or "Traceback" in line]
            rows = read_rows(soak)[1]
            by_machine = Counter(r["machine"] for r in rows if r["machine"])
            interrupted = Counter(r["error_message"] for r in rows if r["state"] == "interrupted")
            for o in orphans:
                try:
                    os.kill(o["pid"], signal.SIGKILL)
                except OSError:
                    pass
    finally:
        if args.keep:
            print(f"(kept the PostgreSQL server: {server.url('soak')}, folder {server.root})")
        else:
            server.stop()
    wall_s = time.monotonic() - wall0
    restarts = soak.ready_s[len(machines):]
    print()
    print(f"engines                    {len(machines)} (seed {seed}); killed {kills} times")
    print(f"restart time-to-ready      mean {sum(restarts) / max(1, len(restarts)):.3f} s  "
          f"max {max(restarts, default=float('nan')):.3f} s")
    print(f"runs recorded              {fig['runs']}  {fig['states']}")
    print(f"  by machine               {dict(sorted(by_machine.items()))}")
    print(f"  by trigger               {fig['triggers']}")
    print(f"  interrupted, why         {dict(interrupted.most_common(4))}")
    print(f"skipped records            {fig['skipped_records']} standing for "
          f"{fig['skipped_fires']} fires  {fig['skip_reasons']}")
    print(f"commands started           {len(marks.starts)} (run, attempt) pairs; "
          f"ended {len(marks.ends)}; marker lines {marks.lines} (torn {marks.torn})")
    print(f"run-now calls              {dict(soak.run_now)}")
    print(f"schedule slots checked     {fig['slots_checked']}")
    print("final stops (SIGTERM)      " + ", ".join(
        f"exit {status} after {took:.1f} s" for status, took, _ in stops))
    problems(log_errors, soak.cli_errors)
    print(f"wall time                  {wall_s:.1f} s (set-up {setup_s:.1f} s, running "
          f"{cycles_s:.1f} s)")
    print()
    return verdicts(findings, ("duplicates", "lost", "orphans", "misplaced"))


if __name__ == "__main__":
    sys.exit(main())
