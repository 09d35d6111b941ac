"""The ``errands`` command line, end to end: its contract (arguments, output, exit codes)
through ``errands.cli.main`` in this process, as the console script calls it, and real
subprocesses of the installed console script where a process matters (``serve``, a
follow, an engine another invocation talks to, a keyring backend of the test's own, and
the smoke tests that say ``process=True``).

Every test passes its own data folder (``--data-dir`` or, once, ``ERRANDS_DATA_DIR``) and
runs with a copy of the environment that has no ``ERRANDS_*`` variables, so nothing here
reads or writes the user's real data.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import Result, errands
from pg_support import catalogue_sql, handed_on, on_postgresql, stored_instant, stored_json

ERRANDS = Path(sys.executable).parent / "errands"
READ_ONLY = ("id", "revision", "status", "next_fire_at", "failure_streak", "created_at",
             "updated_at", "run_count", "counted_runs")
FUTURE = "2099-01-01T00:00:00+01:00"

pytestmark = pytest.mark.skipif(not ERRANDS.exists(), reason="the errands console script "
                                "is not installed next to this interpreter")


# ----------------------------------------------------------------------------- helpers

@pytest.fixture(scope="session")
def base_env(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    # Byte-code caching in a folder of its own (never the source tree) makes each start
    # about three times faster than with PYTHONDONTWRITEBYTECODE.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cache = getattr(pytestconfig, "cache", None)
    pycache = (cache.mkdir("errands-cli-pycache") if cache is not None
               else tmp_path_factory.mktemp("pycache"))
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    home = tmp_path_factory.mktemp("home")
    env["HOME"] = str(home)                      # the platform data folder, should any
    env["XDG_DATA_HOME"] = str(home / "data")    # invocation forget its --data-dir
    env["TZ"] = "UTC"                            # the machine zone: cron default, human output
    return env


@pytest.fixture
def cli(base_env: dict[str, str], tmp_path: Path) -> "Cli":
    return Cli(base_env, tmp_path)


class Cli:
    def __init__(self, env: dict[str, str], tmp_path: Path) -> None:
        self.base_env = env
        self.tmp = tmp_path
        self.data = tmp_path / "data"

    @property
    def env(self) -> dict[str, str]:
        """For the commands a test starts: in the PostgreSQL pass with its catalogue."""
        return handed_on(self.base_env)

    def call(self, *args: str, expect: int | None = 0, data: Path | None | bool = True,
             env: dict[str, str] | None = None, stdin: str | None = None,
             cwd: Path | None = None, process: bool = False) -> Result:
        """One invocation; ``data=True`` adds ``--data-dir`` for this test's folder;
        ``process``: a real subprocess of the console script, whatever the command."""
        argv = list(args)
        if data is True:
            argv += ["--data-dir", str(self.data)]
        elif data:
            argv += ["--data-dir", str(data)]
        result = errands(argv, {**self.env, **(env or {})}, stdin=stdin, cwd=cwd or self.tmp,
                         process=process)
        if expect is not None:
            assert result.code == expect, str(result)
        return result

    def many(self, calls: Sequence[tuple[Sequence[str], dict[str, Any]]]) -> list[Result]:
        """Independent invocations, run concurrently; by default they share this test's data
        folder, so none of them may depend on another's writes."""
        def one(call: tuple[Sequence[str], dict[str, Any]]) -> Result:
            args, kw = call
            return self.call(*args, **kw)
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            return list(pool.map(one, calls))


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _definition(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in READ_ONLY}


# ------------------------------------------------------------------------------- tests

def test_help_and_version(cli: Cli) -> None:
    # (with no arguments at all, errands opens the app: tests/test_app.py)
    bare, version = cli.many([(("--help",), {"data": False, "process": True}),
                              (("--version",), {"data": False, "process": True})])
    assert bare.out.startswith("usage: errands") and bare.err == ""
    for command in ("add", "edit", "list", "show", "pause", "resume", "archive", "unarchive",
                    "delete", "runs", "schedule", "config"):
        assert f"\n    {command} " in bare.out
    name, number = version.out.split()
    assert name == "errands" and number[0].isdigit()


def test_lifecycle_add_show_list_edit_pause_resume_runs_delete(cli: Cli) -> None:
    add = ("add", "--title", "Backup", "--command", "backup.sh", "--schedule", "every:1h",
           "--request-id", "req-1", "--json")
    created = cli.call(*add).json()
    ident, prefix = created["id"], created["id"][:8]
    assert created["revision"] == 1 and created["status"] == "active"
    assert created["runner"] == {"kind": "command", "command": "backup.sh"}
    assert created["trigger"]["kind"] == "every" and created["trigger"]["every"] == "1h"
    assert created["origin"]["kind"] == "cli" and created["failure_streak"] == 0
    start = _instant(created["trigger"]["start_at"])
    first = _instant(created["next_fire_at"])
    assert first >= start and (first - start) % timedelta(hours=1) == timedelta(0)

    again, conflict, listed, table, shown = cli.many([
        # the same request id and definition: the same automation, unchanged
        (add, {}),
        # the same request id, another definition: a conflict
        (("add", "--title", "Other", *add[3:]), {"expect": 4}),
        (("list", "--json"), {}),
        (("list",), {}),
        (("show", prefix), {}),   # an id prefix (8 characters) finds it
    ])
    assert again.json() == created
    assert conflict.error()["code"] == "identity_conflict"
    assert listed.json() == {"automations": [created]}
    rows = table.out.splitlines()
    assert rows[0].split()[:3] == ["ID", "STATUS", "NEXT"] and len(rows) == 2
    assert rows[1].startswith(prefix) and "Backup" in rows[1] and "active" in rows[1]
    assert shown.out.startswith("Backup\n") and ident in shown.out
    assert "command: backup.sh" in shown.out and "revision     1" in shown.out

    edited = cli.call("edit", prefix, "--title", "Nightly backup")
    assert edited.out.startswith("Revised to revision 2")
    # the same title and the same schedule again (60m is 1h): nothing changes
    same = cli.call("edit", prefix, "--title", "Nightly backup", "--schedule", "every:60m",
                    "--json").json()
    assert same["revision"] == 2 and same["title"] == "Nightly backup"
    assert same["trigger"] == created["trigger"] and same["next_fire_at"] == created["next_fire_at"]

    paused = cli.call("pause", prefix, "--json").json()
    assert paused["status"] == "paused" and paused["next_fire_at"] is None
    assert paused["paused"] is True and paused["revision"] == 3
    resumed, runs, runs_human = cli.many([(("resume", prefix, "--json"), {}),
                                          (("runs", prefix, "--json"), {}),
                                          (("runs", prefix), {})])
    doc = resumed.json()
    assert doc["status"] == "active" and doc["paused"] is False and doc["revision"] == 4
    nxt = _instant(doc["next_fire_at"])
    assert nxt > datetime.now(timezone.utc) - timedelta(minutes=1)
    assert (nxt - start) % timedelta(hours=1) == timedelta(0)  # still on the same grid
    assert runs.json() == {"runs": [], "next_cursor": None}
    assert runs_human.out.strip() == "No runs yet."

    # the human forms of pause and resume, on a second automation
    other = cli.call("add", "--title", "Other", "--command", "x", "--schedule", "every:2h",
                     "--json").json()["id"]
    paused_text, deleted = cli.many([(("pause", other), {}), (("delete", prefix), {})])
    assert paused_text.out.strip() == "Paused Other — next fire —"
    assert deleted.out.splitlines() == [
        f"Deleted Nightly backup ({ident})",
        "  destroyed    0 runs, 0 transcripts, 4 revisions",
        f"  kept         the audit trail (errands history {ident})"]
    assert deleted.err == ""  # no runs: nothing to suggest
    resumed_text, gone, shown_json = cli.many([(("resume", other), {}),
                                               (("show", ident), {"expect": 3}),
                                               (("show", ident, "--json"), {"expect": 3})])
    assert resumed_text.out.startswith("Resumed Other — next fire 20")
    assert gone.out == "" and gone.err.strip() == f"error: no automation with id {ident!r}"
    assert shown_json.error()["code"] == "not_found"


def test_edit_with_an_expected_revision_refuses_a_stale_edit(cli: Cli) -> None:
    """A script reads an automation, then edits it: an edit someone made meanwhile is not
    overwritten (without an engine, and through a running one alike)."""
    created = cli.call("add", "--title", "Backup", "--command", "b.sh", "--schedule", "manual",
                       "--json").json()
    ident = created["id"]
    shown = cli.call("show", ident, "--json").json()
    assert shown["revision"] == 1
    cli.call("edit", ident, "--title", "Backup 2", "--expect-revision", "1")
    stale = cli.call("edit", ident, "--title", "Backup 3", "--expect-revision", "1", "--json",
                     expect=4)
    assert stale.error()["code"] == "stale_revision"
    assert "revision 1, now 2" in stale.error()["message"]
    assert cli.call("show", ident, "--json").json()["title"] == "Backup 2"
    bad = cli.call("edit", ident, "--title", "x", "--expect-revision", "0", "--json", expect=2)
    assert bad.error()["field"] == "--expect-revision"
    # through a running engine: the same refusal, from the engine's own check
    serve = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(cli.data)], env=cli.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (cli.data / "control.sock").exists():
            assert serve.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        stale = cli.call("edit", ident, "--title", "Backup 4", "--expect-revision", "1",
                         "--json", expect=4)
        assert stale.error()["code"] == "stale_revision"
        cli.call("edit", ident, "--title", "Backup 4", "--expect-revision", "2")
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    assert cli.call("show", ident, "--json").json()["revision"] == 3


def test_from_json_round_trip_and_edits_of_an_agent(cli: Cli) -> None:
    full = cli.call(
        "add", "--title", "Briefing", "--prompt", "Summarize my inbox",
        "--schedule", "cron:0 9 * * MON-FRI", "--tz", "Europe/Berlin", "--context", "continue",
        "--max-runs", "5", "--until", FUTURE, "--until-condition", "--misfire", "run-once",
        "--overlap", "queue-one", "--model", "small-model", "--max-steps", "7",
        "--timeout", "5m", "--max-attempts", "2", "--notify", "on-change",
        "--permissions", "allow-listed", "--allow", "read_file", "--allow", "fetch_url",
        "--allow", "read_file", "--workdir", "projects/site", "--paused", "--json").json()
    assert full["runner"] == {"kind": "agent", "prompt": "Summarize my inbox",
                              "model": "small-model"}
    assert full["trigger"] == {"kind": "cron", "expression": "0 9 * * MON-FRI",
                               "timezone": "Europe/Berlin"}
    assert full["context"]["mode"] == "continue"
    assert full["stop"] == {"max_runs": 5, "until": "2098-12-31T23:00:00Z",
                            "when_condition_met": True}
    assert (full["misfire"], full["overlap"]) == ("run_once", "queue_one")
    policy = full["policy"]
    assert (policy["max_steps"], policy["timeout"], policy["notify"]) == (7, "5m", "on_change")
    assert policy["retry"]["max_attempts"] == 2
    # --permissions and --allow are accepted with --prompt (repeats are dropped)
    assert full["permissions"]["mode"] == "allow_listed"
    assert full["permissions"]["tools"] == ["read_file", "fetch_url"]
    # a relative --workdir is made absolute against the current folder
    assert full["workdir"] == str((cli.tmp / "projects" / "site").resolve())
    assert full["paused"] is True and full["status"] == "paused"
    assert full["next_fire_at"] is None

    shown = cli.call("show", full["id"], "--json").json()
    assert shown == full
    document = _definition(shown)
    file = cli.tmp / "definition.json"
    file.write_text(json.dumps({**document, "title": "From a file", "paused": False}))
    bad_nested = {**document, "policy": {**document["policy"], "retry": {
        **document["policy"]["retry"], "bogus": 1}}}
    results = cli.many([
        (("add", "--from-json", "-", "--json"), {"stdin": json.dumps(document)}),
        (("add", "--from-json", str(file), "--json"), {}),
        (("add", "--from-json", "-", "--json"), {"stdin": json.dumps(bad_nested), "expect": 2}),
        (("add", "--from-json", "-", "--json"), {"stdin": json.dumps(shown), "expect": 2}),
        (("add", "--from-json", "-", "--json"),
         {"stdin": json.dumps({**document, "revision": 3}), "expect": 2}),
        (("add", "--from-json", str(file), "--title", "X", "--json"), {"expect": 2}),
    ])
    copy = results[0].json()
    assert copy["id"] != full["id"] and copy["revision"] == 1
    assert _definition(copy) == document
    from_file = results[1].json()
    assert from_file["title"] == "From a file" and from_file["status"] == "active"
    assert from_file["next_fire_at"] is not None
    fields = [r.error()["field"] for r in results[2:]]
    assert fields == ["policy.retry.bogus", "id", "revision", "--title"]
    assert results[2].error()["message"] == "unknown field 'bogus'"
    assert "read-only" in results[3].error()["message"]
    assert "read-only" in results[4].error()["message"]

    # editing the agent: repeating its cron schedule keeps the zone and changes nothing
    prefix = full["id"][:8]
    same = cli.call("edit", prefix, "--schedule", "cron:0 9 * * MON-FRI", "--json").json()
    assert same["revision"] == 1 and same["trigger"] == full["trigger"]
    assert same["updated_at"] == full["updated_at"]
    moved = cli.call("edit", prefix, "--tz", "UTC", "--max-runs", "none",
                     "--command", "make report", "--json")
    doc = moved.json()
    assert doc["revision"] == 2 and doc["trigger"]["timezone"] == "UTC"
    assert doc["stop"]["max_runs"] is None and doc["stop"]["when_condition_met"] is True
    assert doc["status"] == "paused" and doc["next_fire_at"] is None  # still paused
    assert doc["runner"] == {"kind": "command", "command": "make report"}
    assert doc["permissions"]["mode"] == "ask" and doc["permissions"]["tools"] == []
    assert "permissions were dropped" in moved.err


def test_invalid_input_exits_2_naming_the_field(cli: Cli) -> None:
    add = ("add", "--title", "T", "--command", "x")
    cases: list[tuple[tuple[str, ...], int, str | None, str]] = [
        ((*add, "--schedule", "cron:30 9 * *"), 2, "trigger.expression", "invalid_input"),
        ((*add, "--schedule", "every:30s"), 2, "trigger.every", "invalid_input"),
        ((*add, "--schedule", "at:2098-01-01T00:00:00Z", "--max-runs", "3"), 2, "stop",
         "invalid_input"),
        ((*add, "--schedule", "every:1h", "--until", "2098-01-01T00:00:00"), 2, "stop.until",
         "invalid_input"),
        ((*add, "--schedule", "every:1h", "--permissions", "allow-all", "--allow", "read_file"),
         2, "permissions", "invalid_input"),
        (("add", "--title", "T", "--prompt", "p", "--schedule", "every:1h",
          "--allow", "bogus"), 2, "permissions.tools[0]", "invalid_input"),
        ((*add, "--schedule", "every:1h", "--tz", "Europe/Berlin"), 2, "--tz", "invalid_input"),
        ((*add, "--schedule", "every:1h", "--context", "bogus"), 2, "--context",
         "invalid_input"),
        (("schedule", "preview", "--spec", "every:30s"), 2, "trigger.every", "invalid_input"),
        (("config", "set", "concurrency", "0"), 2, "concurrency", "invalid_input"),
    ]
    human = [cases[0]]  # without --json: one line on stderr
    results = cli.many([((*argv, "--json"), {"expect": code}) for argv, code, _, _ in cases]
                       + [(argv, {"expect": code}) for argv, code, _, _ in human])
    for (argv, _, field, code), result in zip(cases, results):
        error = result.error()
        assert (error["field"], error["code"]) == (field, code), str(result)
        assert error["message"]
    for (argv, _, field, code), result in zip(human, results[len(cases):]):
        assert result.out == "", str(result)
        line = result.err.strip()
        assert "\n" not in line, str(result)
        assert line.startswith(f"error: {field}: " if field else "error: "), str(result)
    cron = results[0].error()
    assert cron["message"].startswith(
        'expected five fields "minute hour day-of-month month day-of-week"')
    assert cron["expected"] == 'five fields "minute hour day-of-month month day-of-week"'
    assert cron["example"] == "30 9 * * MON-FRI"
    cron_line = results[len(cases)].err.strip()
    assert cron_line.startswith('error: trigger.expression: expected five fields '
                                '"minute hour day-of-month month day-of-week"')
    assert cron_line.endswith('e.g. "30 9 * * MON-FRI"')


def test_history_limit_is_set_shown_changed_cleared_and_checked(cli: Cli) -> None:
    """``--history-limit``: how many ended runs one automation keeps, back to the
    run_history_limit setting with ``default``; a bad value names the flag and its shape."""
    created = cli.call("add", "--title", "Chatty", "--command", "x", "--schedule", "every:1h",
                       "--history-limit", "20", "--json").json()
    ident = created["id"]
    assert created["policy"]["history_limit"] == 20
    shown, human = cli.many([(("show", ident, "--json"), {}), (("show", ident), {})])
    assert shown.json()["policy"]["history_limit"] == 20
    assert "history      keeps its newest 20 ended runs" in human.out

    changed = cli.call("edit", ident, "--history-limit", "1000000", "--json").json()
    assert changed["revision"] == 2 and changed["policy"]["history_limit"] == 1_000_000
    # (an edit of something else keeps it)
    kept = cli.call("edit", ident, "--title", "Chatty 2", "--json").json()
    assert kept["policy"]["history_limit"] == 1_000_000
    cleared = cli.call("edit", ident, "--history-limit", "Default", "--json").json()
    assert cleared["revision"] == 4 and cleared["policy"]["history_limit"] is None
    shown, human = cli.many([(("show", ident, "--json"), {}), (("show", ident), {})])
    assert shown.json()["policy"]["history_limit"] is None
    assert "history " not in human.out

    expected = ("a whole number from 1 to 1000000, or default (the run_history_limit "
                "setting)")
    bad = ["0", "1000001", "-5", "ten", "", " 5", "1_000", "٥", "9" * 400]
    results = cli.many([(("edit", ident, "--history-limit", value, "--json"), {"expect": 2})
                        for value in bad]
                       + [(("add", "--title", "T", "--command", "x", "--schedule", "manual",
                            "--history-limit", "0"), {"expect": 2})])
    for value, result in zip(bad, results):
        error = result.error()
        assert (error["field"], error["code"]) == ("--history-limit", "invalid_input"), value
        assert error["expected"] == expected and error["example"] == "500"
        assert ("out of range" if value.lstrip("-").isascii() and value.lstrip("-").isdigit()
                else "not a whole number") in error["message"], (value, error)
    line = results[-1].err.strip()
    assert results[-1].out == "" and "\n" not in line
    assert line == (f"error: --history-limit: '0' is out of range; expected {expected}, "
                    'e.g. "500"')
    # nothing was changed by the refusals, and no automation made
    after = cli.call("list", "--json").json()["automations"]
    assert [(a["id"], a["revision"]) for a in after] == [(ident, 4)]
    helped = cli.call("edit", "--help", data=False).out
    assert "--history-limit N" in helped and "run_history_limit" in helped


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.integers().map(str),
                 st.sampled_from(["default", "DEFAULT", "none", "None", "+7", "007", "1e3",
                                  "0x10", "\u0661", "５", "1000000", "1000001"])))
def test_the_history_limit_parser_takes_any_text(text: str) -> None:
    """Whatever the text, ``--history-limit`` gives a limit in range, None for the words
    that mean the setting, or a refusal naming the flag, its shape and an example."""
    from errands.cli.options import HISTORY_LIMIT_WORDS, history_limit
    from errands.definition import MAX_HISTORY_LIMIT
    from errands.errors import InvalidInput

    try:
        value = history_limit(text)
    except InvalidInput as exc:
        assert exc.field == "--history-limit" and exc.code == "invalid_input"
        assert "1 to 1000000" in (exc.expected or "") and "default" in (exc.expected or "")
        assert exc.example == "500" and history_limit(exc.example) == 500
        assert text.lower() not in HISTORY_LIMIT_WORDS
        if text.isascii() and text.lstrip("+-").isdigit() and text.lstrip("+-"):
            assert "out of range" in exc.message
        return
    if value is None:
        assert text.lower() in HISTORY_LIMIT_WORDS
    else:
        assert 1 <= value <= MAX_HISTORY_LIMIT and value == int(text)
        assert text.isascii() and text.lstrip("+-").isdigit()


def test_bytes_that_are_not_utf8_and_usage_errors_are_refused_naming_the_flag(cli: Cli) -> None:
    """Real argv bytes: Python decodes them with surrogateescape, the CLI refuses them."""
    cases: list[tuple[list[str | bytes], str]] = [
        (["add", "--title", b"a\xffb", "--command", "true", "--schedule", "manual"], "--title"),
        (["add", "--title", "T", "--command", "true", "--schedule", b"every day at 9\xff"],
         "--schedule"),
        (["add", "--title", "T", "--command", "true", "--schedule", "manual",
          "--request-id", b"r\xfe"], "--request-id"),
        (["edit", "abcd", "--bogus"], "arguments"),
        (["bogus"], "COMMAND"),
    ]

    def one(case: tuple[list[str | bytes], str]) -> subprocess.CompletedProcess[bytes]:
        argv = [str(ERRANDS), *case[0], "--data-dir", str(cli.data), "--json"]
        return subprocess.run(argv, capture_output=True, env=cli.env, timeout=120)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, cases))
    for (argv, field), proc in zip(cases, results):
        assert proc.returncode == 2 and proc.stdout == b"", proc
        error = json.loads(proc.stderr)["error"]
        assert error["field"] == field, error
        if field in ("arguments", "COMMAND"):
            assert error["example"] == f"errands {'edit ' if field == 'arguments' else ''}--help"


def test_minimum_interval_and_its_environment_override(cli: Cli) -> None:
    fast = {"ERRANDS_MIN_INTERVAL": "1s"}
    # (without the override both are refused naming trigger.every: see the test above)
    every_30s, preview_fast = cli.many([
        (("add", "--title", "Fast", "--command", "x", "--schedule", "every:30s", "--json"),
         {"env": fast}),
        (("schedule", "preview", "--spec", "every:30s", "--after", "2026-01-01T00:00:00Z",
          "--count", "2", "--json"), {"data": cli.tmp / "other", "env": fast}),
    ])
    assert every_30s.json()["trigger"]["every"] == "30s"
    assert preview_fast.json()["fires"] == ["2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"]


def test_schedule_preview(cli: Cli) -> None:
    after = ("--after", "2026-03-28T00:00:00Z")
    spring, human, fall, every, loop, at, in_, manual = cli.many([
        (("schedule", "preview", "--cron", "30 2 * * *", "--tz", "Europe/Berlin", *after,
          "--count", "3", "--json"), {}),
        (("schedule", "preview", "--spec", "cron:30 2 * * *", "--tz", "Europe/Berlin",
          *after, "--count", "3"), {}),
        (("schedule", "preview", "--cron", "30 2 * * *", "--tz", "Europe/Berlin",
          "--after", "2026-10-24T00:00:00Z", "--count", "3", "--json"), {}),
        (("schedule", "preview", "--spec", "every:90m", *after, "--count", "3", "--json"), {}),
        (("schedule", "preview", "--spec", "after:2h", *after, "--count", "2", "--json"), {}),
        (("schedule", "preview", "--spec", "at:2098-06-01T10:00:00+02:00", *after,
          "--count", "5", "--json"), {}),
        (("schedule", "preview", "--spec", "in:1h", "--json"), {}),
        (("schedule", "preview", "--spec", "manual", "--json"), {}),
    ])
    # 02:30 does not exist in Berlin on 29 March 2026: no fire that day
    assert spring.json()["fires"] == ["2026-03-28T01:30:00Z", "2026-03-30T00:30:00Z",
                                      "2026-03-31T00:30:00Z"]
    assert "Europe/Berlin" in spring.json()["description"]
    lines = human.out.splitlines()
    assert len(lines) == 4 and "Europe/Berlin" in lines[0]
    assert [line.split()[0] for line in lines[1:]] == spring.json()["fires"]
    # 02:30 happens twice on 25 October 2026: it fires at each (as cron.py documents)
    assert fall.json()["fires"] == ["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z",
                                    "2026-10-25T01:30:00Z"]
    # the grid starts at --after; fires are strictly after it, so 00:00 itself is not listed
    assert every.json()["fires"] == ["2026-03-28T01:30:00Z", "2026-03-28T03:00:00Z",
                                     "2026-03-28T04:30:00Z"]
    assert loop.json()["fires"] == ["2026-03-28T02:00:00Z", "2026-03-28T04:00:00Z"]
    assert at.json()["fires"] == ["2098-06-01T08:00:00Z"]
    (fire,) = in_.json()["fires"]
    delta = _instant(fire) - datetime.now(timezone.utc)
    assert timedelta(minutes=55) < delta <= timedelta(hours=1)
    assert manual.json()["fires"] == [] and manual.json()["description"]
    assert not cli.data.joinpath("errands.sqlite3").exists()  # a preview only reads


def test_config_list_get_set_unset_and_environment(cli: Cli) -> None:
    stored = cli.call("config", "set", "grace", "3600s", "--json").json()
    assert stored == {"key": "grace", "value": "1h", "source": "stored"}
    listed, table, human_get, env_list, env_set, bad_env, bad_value = cli.many([
        (("config", "list", "--json"), {}),
        (("config", "list"), {}),
        (("config", "get", "grace"), {}),
        (("config", "list", "--json"), {"env": {"ERRANDS_MIN_INTERVAL": "1s"}}),
        (("config", "set", "min_interval", "5m"),
         {"data": cli.tmp / "other", "env": {"ERRANDS_MIN_INTERVAL": "1s"}}),
        (("config", "get", "min_interval", "--json"),
         {"env": {"ERRANDS_MIN_INTERVAL": "soon"}, "expect": 2}),
        (("config", "set", "grace", "soon", "--json"), {"expect": 2}),
    ])
    rows = {row["key"]: row for row in listed.json()["settings"]}
    assert {"min_interval", "grace", "concurrency"} <= set(rows)
    assert all(set(row) == {"key", "value", "source", "help"} for row in rows.values())
    assert (rows["grace"]["value"], rows["grace"]["source"]) == ("1h", "stored")
    assert rows["concurrency"]["source"] == "default"
    assert rows["min_interval"]["source"] == "default"
    lines = table.out.splitlines()
    assert lines[0].split() == ["KEY", "VALUE", "SOURCE", "MEANING"]
    assert any(line.split()[:3] == ["grace", "1h", "stored"] for line in lines[1:])
    assert human_get.out.strip() == "1h"
    env_rows = {row["key"]: row for row in env_list.json()["settings"]}
    assert env_rows["min_interval"]["value"] == "1s"
    assert env_rows["min_interval"]["source"] == "environment"
    assert env_set.out.startswith("min_interval = 5m")
    assert "ERRANDS_MIN_INTERVAL" in env_set.out  # the stored value is shadowed in this shell
    assert bad_env.error()["field"] == "ERRANDS_MIN_INTERVAL"
    assert bad_value.error()["field"] == "grace"

    unset = cli.call("config", "unset", "grace", "--json").json()
    assert unset == {"key": "grace", "value": "2m", "source": "default"}


def test_unattended_expiry_is_set_and_checked_like_parked_expiry(cli: Cli) -> None:
    default, stored, bad, too_long = cli.many([
        (("config", "get", "unattended_expiry"), {"data": cli.tmp / "fresh"}),
        (("config", "set", "unattended_expiry", "3d", "--json"), {}),
        (("config", "set", "unattended_expiry", "2w", "--json"), {"expect": 2}),
        (("config", "set", "unattended_expiry", "367d", "--json"), {"expect": 2}),
    ])
    assert default.out.strip() == "7d"
    assert stored.json() == {"key": "unattended_expiry", "value": "3d", "source": "stored"}
    for refused in (bad, too_long):
        error = refused.error()
        assert (error["field"], error["code"]) == ("unattended_expiry", "invalid_input")
    rows = {r["key"]: r for r in cli.call("config", "list", "--json").json()["settings"]}
    assert rows["unattended_expiry"]["value"] == "3d"
    assert "unanswered" in rows["unattended_expiry"]["help"]


def test_a_one_shot_resumed_after_its_instant_without_an_engine(cli: Cli) -> None:
    at = (datetime.now(timezone.utc) + timedelta(seconds=3)).replace(microsecond=0)
    made = cli.call("add", "--title", "Once", "--command", "x", "--schedule",
                    f"at:{at.isoformat()}", "--paused", "--json").json()
    time.sleep(max(0.0, (at - datetime.now(timezone.utc)).total_seconds()) + 0.2)
    resumed = cli.call("resume", made["id"])  # no engine: the CLI writes it itself
    assert resumed.out.strip() == ("Resumed Once — its fire passed while it was paused: "
                                   "recorded as skipped, and the automation completed")
    shown, runs, again = cli.many([(("show", made["id"], "--json"), {}),
                                   (("runs", made["id"], "--json"), {}),
                                   (("resume", made["id"], "--json"), {"expect": 4})])
    assert (shown.json()["status"], shown.json()["next_fire_at"]) == ("completed", None)
    [run] = runs.json()["runs"]
    assert (run["state"], run["skip_reason"], run["missed_count"]) == (
        "skipped", "automation_paused", 1)
    assert _instant(run["scheduled_for"]) == at
    assert again.error()["code"] == "completed"


@pytest.mark.sqlite_only("the catalogue's file in the folder the environment names")
def test_data_dir_from_the_environment(cli: Cli) -> None:
    folder = cli.tmp / "from-env"
    made = cli.call("add", "--title", "Env", "--command", "x", "--schedule", "manual",
                    "--json", data=False, env={"ERRANDS_DATA_DIR": str(folder)}).json()
    assert (folder / "errands.sqlite3").is_file()
    # --data-dir before the command works too, and wins over the environment
    here, elsewhere = cli.many([
        (("--data-dir", str(folder), "list", "--json"),
         {"data": False, "env": {"ERRANDS_DATA_DIR": str(cli.tmp / "unused")}}),
        (("list", "--json"), {"env": {"ERRANDS_DATA_DIR": str(folder)}}),
    ])
    assert [a["id"] for a in here.json()["automations"]] == [made["id"]]
    assert elsewhere.json() == {"automations": []}
    assert not (cli.tmp / "unused").exists()


def test_a_reader_that_goes_away_is_not_an_error(cli: Cli) -> None:
    """errands list | head: the pipe closes before Errands writes; that is not a failure."""
    proc = subprocess.Popen([str(ERRANDS), "schedule", "preview", "--spec", "every:1m",
                             "--count", "1000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli.env, cwd=cli.tmp)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the child has started, so its first write finds no reader
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert err == b""


# ------------------------------------------------------------- stored data, hardened

def _sql(path: Path, statement: str, *params: Any) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(statement, params)
    conn.close()


def _break_three(cli: Cli) -> tuple[str, str, str, str]:
    """A good automation and three whose stored definitions no longer load: a zone that a
    tzdata update removed, a wrong type, and text that is not JSON (on PostgreSQL, whose
    json column refuses that: JSON that is not a definition, :data:`NOT_A_DEFINITION`)."""
    made = cli.many([(("add", "--title", title, "--command", "echo hi", "--schedule", spec,
                       "--json"), {}) for title, spec in
                     (("Good", "every:1h"), ("Zone", "cron:0 9 * * *"), ("Typed", "every:1h"),
                      ("Text", "every:1h"))])
    good, zone, typed, text = (r.json()["id"] for r in made)
    if on_postgresql():
        def setting(path: str, value: str) -> str:
            return (f"CAST(jsonb_set(CAST(definition AS jsonb), '{{{path}}}', '{value}') "
                    "AS json)")
        zone_sql = setting("trigger,timezone", '"Gone/Removed"')
        typed_sql = setting("policy,timeout", "42")
    else:
        zone_sql = "json_set(definition, '$.trigger.timezone', 'Gone/Removed')"
        typed_sql = "json_set(definition, '$.policy.timeout', 42)"
    for ident, sql in ((zone, zone_sql), (typed, typed_sql),
                       (text, stored_json("text"))):
        catalogue_sql(cli.data, f"UPDATE automations SET definition = {sql} WHERE id = :id",
                      id=ident, **({"text": NOT_A_DEFINITION if on_postgresql()
                                    else "{not json"} if ident == text else {}))
    return good, zone, typed, text


NOT_A_DEFINITION = '"only words"'


def test_broken_rows_are_listed_shown_exported_repaired_and_deleted(cli: Cli) -> None:
    good, zone, typed, text = _break_three(cli)
    listed, table, shown, raw, raw_json, options, paused, run_now = cli.many([
        (("list", "--json"), {}),
        (("list",), {}),
        (("show", zone[:8]), {}),
        (("export", text[:8], "--definition"), {}),
        (("export", text[:8], "--definition", "--json"), {}),
        (("edit", typed[:8], "--title", "Typed again", "--json"), {"expect": 2}),
        (("pause", zone[:8], "--json"), {"expect": 4}),
        (("run-now", typed[:8], "--json"), {"expect": 4}),
    ])
    docs = {a["id"]: a for a in listed.json()["automations"]}
    assert docs[good]["status"] == "active" and "problem" not in docs[good]
    assert docs[zone]["problem"].startswith("trigger.timezone: unknown time zone 'Gone/Removed'")
    assert docs[typed]["problem"].startswith("policy.timeout: not a duration: 42")
    assert docs[text]["problem"].startswith(
        "definition" if on_postgresql() else "the stored definition is not JSON")
    for ident, title in ((zone, "Zone"), (typed, "Typed"), (text, "Text")):
        assert docs[ident]["status"] == "broken" and docs[ident]["title"] == title
        assert docs[ident]["next_fire_at"] is None and "trigger" not in docs[ident]
        row = next(line for line in table.out.splitlines() if line.startswith(ident[:8]))
        assert "broken" in row and title in row and "cannot be loaded: " in row
    assert "problem      trigger.timezone: unknown time zone 'Gone/Removed'" in shown.out
    assert f"errands edit {zone[:8]} --from-json fixed.json" in shown.out
    assert f"errands delete {zone[:8]}" in shown.out
    if on_postgresql():  # (exported as stored: JSON, so as JSON)
        assert raw.out == NOT_A_DEFINITION + "\n" and raw_json.json() == "only words"
    else:
        assert raw.out == "{not json\n" and "not JSON" in raw.err
        assert raw_json.json() == "{not json"
    refusal = options.error()
    assert refusal["field"] == "--from-json" and "cannot be merged" in refusal["message"]
    assert paused.error()["code"] == "broken" and run_now.error()["code"] == "broken"

    # repair: export, correct, edit --from-json; it is then an ordinary automation again
    exported = json.loads(cli.call("export", zone[:8], "--definition").out)
    assert exported["trigger"]["timezone"] == "Gone/Removed"  # the stored document as it is
    exported["trigger"]["timezone"] = "Europe/Berlin"
    fixed = cli.tmp / "fixed.json"
    fixed.write_text(json.dumps(exported))
    repaired = cli.call("edit", zone[:8], "--from-json", str(fixed))
    assert repaired.out.startswith("Repaired to revision 2")
    again, deleted, good_export = cli.many([(("show", zone[:8], "--json"), {}),
                                            (("delete", text[:8]), {}),
                                            (("export", good[:8], "--definition"), {})])
    doc = again.json()
    assert doc["status"] == "active" and doc["trigger"]["timezone"] == "Europe/Berlin"
    assert doc["next_fire_at"] is not None
    assert deleted.out.splitlines()[0] == f"Deleted Text ({text})"
    # an export of a good automation is a document add --from-json takes as it is
    copy = cli.tmp / "copy.json"
    copy.write_text(good_export.out)
    assert cli.call("add", "--from-json", str(copy), "--json").json()["title"] == "Good"


@pytest.mark.sqlite_only("stores text that is not an instant, which a PostgreSQL timestamp column refuses")
def test_a_bad_run_row_costs_that_row_only(cli: Cli) -> None:
    ident = cli.call("add", "--title", "R", "--command", "echo hi", "--schedule", "manual",
                     "--json").json()["id"]
    for _ in range(3):
        cli.call("run-now", ident[:8], "--wait")
    db = cli.data / "errands.sqlite3"
    _sql(db, 'UPDATE runs SET started_at = ? WHERE "index" = 2', "garbage")
    _sql(db, 'UPDATE runs SET attempts = ? WHERE "index" = 3', "[oops")
    listed, table = cli.many([(("runs", ident[:8], "--json"), {}), (("runs", ident[:8]), {})])
    third, second, first = listed.json()["runs"]
    assert first["error"] is None and first["result"] == "hi"
    assert second["started_at"] is None and second["error"]["code"] == "unreadable"
    assert "started_at" in second["error"]["message"] and "garbage" in second["error"]["message"]
    assert third["attempts"] == [] and "attempts" in third["error"]["message"]
    assert third["result"] == "hi" and second["state"] == "succeeded"
    assert len(table.out.splitlines()) == 4


@pytest.mark.sqlite_only("stores text that is not an instant, which a PostgreSQL timestamp column refuses")
def test_serve_closes_damaged_leftover_runs_and_a_repair_mends_timestamps(cli: Cli) -> None:
    """A crash left runs active whose rows are damaged (a timestamp that is not one, an
    automation that no longer loads): the engine still starts, closes them, fires the rest."""
    made = cli.many([(("add", "--title", t, "--command", "echo hi", "--schedule", "manual",
                       "--json"), {}) for t in ("Odd run", "Broken", "Odd clock")])
    odd, broken, clock = (r.json()["id"] for r in made)
    for ident in (odd, broken):
        cli.call("run-now", ident[:8], "--wait")
    db = cli.data / "errands.sqlite3"
    _sql(db, "UPDATE runs SET state = 'running', started_at = 'later', attempts = '[1]' "
         "WHERE automation_id = ?", odd)
    _sql(db, "UPDATE runs SET state = 'running' WHERE automation_id = ?", broken)
    _sql(db, "UPDATE automations SET definition = '{bad' WHERE id = ?", broken)
    _sql(db, "UPDATE automations SET updated_at = 'soon', paused_at = 7 WHERE id = ?", clock)
    out = _Serve(cli).stop()
    assert "internal" not in out and out.count("is broken and will not run") == 2
    first, second, listed = cli.many([(("runs", odd[:8], "--json"), {}),
                                      (("runs", broken[:8], "--json"), {}),
                                      (("list", "--json"), {})])
    run = first.json()["runs"][0]
    assert run["state"] == "interrupted" and run["started_at"] is None
    assert run["error"]["code"] == "interrupted"
    assert "Errands stopped while this run was active" in run["error"]["message"]
    assert "started_at ('later' is not an instant" in run["error"]["message"]
    assert second.json()["runs"][0]["state"] == "interrupted"
    status = {a["title"]: a for a in listed.json()["automations"]}
    assert status["Odd clock"]["status"] == "broken"
    assert "the stored paused_at '7' is not an instant" in status["Odd clock"]["problem"]
    assert "the stored updated_at 'soon'" in status["Odd clock"]["problem"]
    exported = cli.tmp / "clock.json"
    exported.write_text(cli.call("export", clock[:8], "--definition").out)
    assert cli.call("edit", clock[:8], "--from-json", str(exported)).out.startswith("Repaired")
    mended = cli.call("show", clock[:8], "--json").json()
    assert mended["status"] == "active" and mended["updated_at"] is not None
    assert cli.call("run-now", clock[:8], "--wait").out.startswith("Run #1 succeeded")


class _Serve:
    """``errands serve`` as a real process on the test's data folder."""

    def __init__(self, cli: Cli, env: dict[str, str] | None = None, umask: int | None = None):
        self.proc = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(cli.data)],
                                     env={**cli.env, "ERRANDS_SHUTDOWN_GRACE": "1s",
                                          **(env or {})},
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, umask=-1 if umask is None else umask)
        assert self.proc.stdout is not None
        self.lines = [self.proc.stdout.readline()]  # warnings first, then the banner
        while self.lines[-1] and "Errands engine running" not in self.lines[-1]:
            self.lines.append(self.proc.stdout.readline())
        assert self.lines[-1], self.stop()

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT, as Ctrl-C
        out, _ = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, out
        return "".join(self.lines) + out


def _closed_for_hours(cli: Cli, misfire: str, hours: float) -> str:
    """An hourly automation created ``hours`` ago, while no engine has run since: its cursor
    still points at its first fire."""
    start = (datetime.now(timezone.utc) - timedelta(hours=hours)).replace(microsecond=0)
    path = cli.tmp / f"{misfire}.json"
    path.write_text(json.dumps({
        "title": misfire, "runner": {"kind": "command", "command": "echo caught"},
        "trigger": {"kind": "every", "every": "1h", "start_at": start.isoformat()},
        "misfire": misfire}))
    ident = cli.call("add", "--from-json", str(path), "--json").json()["id"]
    catalogue_sql(cli.data, f"UPDATE automations SET next_fire_at = {stored_instant('at')} "
                  "WHERE id = :id", at=start.replace(tzinfo=None).isoformat(sep=" "), id=ident)
    return ident


def test_serve_with_broken_rows_fires_the_rest_and_counts_missed_fires(cli: Cli) -> None:
    good, zone, typed, text = _break_three(cli)
    cli.call("edit", good[:8], "--schedule", "every:1s", env={"ERRANDS_MIN_INTERVAL": "1s"})
    late = {m: _closed_for_hours(cli, m, 4.9) for m in ("skip", "run_once")}  # five fires
    serve = _Serve(cli, {"ERRANDS_MIN_INTERVAL": "1s"})

    def settled() -> bool:  # the good one fired twice, the catch-up run ended (not a sleep:
        [(fires, open_, caught)] = catalogue_sql(  # a slow machine takes longer)
            cli.data, "SELECT (SELECT count(*) FROM runs WHERE automation_id = :good AND "
            "state = 'succeeded'), (SELECT count(*) FROM runs WHERE automation_id = :late AND "
            "state IN ('scheduled', 'running')), (SELECT count(*) FROM runs WHERE "
            "automation_id = :late)", good=good, late=late["run_once"])
        return fires >= 2 and caught >= 1 and not open_  # type: ignore[operator]
    deadline = time.monotonic() + 30
    while not settled() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert serve.stop().count("is broken and will not run") == 3
    results = cli.many([(("runs", good[:8], "--json"), {}), (("attention", "--json"), {})]
                       + [(("runs", late[m][:8], *extra), {}) for m in ("skip", "run_once")
                          for extra in (("--json",), ())])
    runs = results[0].json()["runs"]
    assert len(runs) >= 2 and {r["state"] for r in runs} <= {"succeeded", "skipped"}
    fired = catalogue_sql(cli.data, "SELECT count(*) FROM runs WHERE automation_id IN "  # the
                          "(:a, :b, :c)", a=zone, b=typed, c=text)  # broken never fire
    assert fired == [(0,)]
    items = results[1].json()["items"]
    broken = sorted(i["automation_id"] for i in items if i["kind"] == "broken")
    assert broken == sorted([zone, typed, text])

    skipped, skipped_text, caught, caught_text = results[2:]
    row = skipped.json()["runs"][-1]
    assert (row["state"], row["skip_reason"], row["missed_count"]) == (
        "skipped", "app_not_running", 5)
    row = caught.json()["runs"][-1]
    assert (row["trigger"]["cause"], row["state"], row["missed_count"]) == ("catch_up", "succeeded", 5)
    for table, detail in ((skipped_text, "app_not_running (fires "),
                          (caught_text, "caught up fires ")):
        lines = table.out.splitlines()
        assert "MISSED" in lines[0].split()
        cells = [c.strip() for c in lines[-1].split("  ") if c.strip()]
        assert "5" in cells and detail in lines[-1]
        stamps = [c for c in cells if c.startswith("20")]  # to the second, with the offset
        assert len(stamps) >= 2 and all(len(c) == len("2026-01-01 09:00:00 +0000")
                                        for c in stamps), lines[-1]


def _without_privilege(cli: Cli, *args: str) -> Result:
    """Run so that file permissions hold: as root, without the capabilities that let root
    write anywhere (the same user, so the checkout's interpreter is as reachable as ever;
    another user may not be able to run it at all, when the checkout or Python lives in a
    private folder)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.fail("running as root without setpriv (util-linux): permissions cannot "
                        "be enforced for this test")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    proc = subprocess.run([*prefix, str(ERRANDS), *args], capture_output=True, text=True,
                          env=cli.env, cwd="/", timeout=60)
    return Result(list(args), proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.sqlite_only("the SQLite file's own path and side files")
def test_an_unusable_store_path_is_named_with_what_is_wrong(cli: Cli) -> None:
    folder_db, fifo_db, side, as_file = (cli.tmp / n for n in ("a", "b", "c", "d"))
    (folder_db / "errands.sqlite3").mkdir(parents=True)
    fifo_db.mkdir()
    os.mkfifo(fifo_db / "errands.sqlite3")
    (side / "errands.sqlite3-wal").mkdir(parents=True)
    as_file.write_text("not a folder")
    locked = cli.tmp / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    results = cli.many([
        (("list", "--json"), {"data": folder_db, "expect": 1}),
        (("list", "--json"), {"data": fifo_db, "expect": 1}),   # never blocks on the fifo
        (("list",), {"data": side, "expect": 1}),
        (("list", "--json"), {"data": as_file / "inside", "expect": 1}),
    ])
    messages = [r.error()["message"] if r.out == "" and r.err.startswith("{") else r.err
                for r in results]
    assert all(r.err.count("store_unusable") == 1 for r in results if "--json" in r.argv)
    assert f"{folder_db / 'errands.sqlite3'} is a folder" in messages[0]
    assert f"{fifo_db / 'errands.sqlite3'} is a named pipe (fifo)" in messages[1]
    assert f"{side / 'errands.sqlite3-wal'} is a folder" in messages[2]
    assert f"{as_file} is a file, not a folder" in messages[3]
    assert not any("internal error" in m for m in messages)
    unwritable = _without_privilege(cli, "list", "--data-dir", str(locked))
    cannot_create = _without_privilege(cli, "list", "--data-dir", str(locked / "new"))
    assert unwritable.code == cannot_create.code == 1
    assert unwritable.err.strip() == (f"error: the data folder {locked} is not writable by you; "
                                      "fix its permissions or choose another --data-dir.")
    assert f"cannot create the data folder {locked / 'new'}: Permission denied" in cannot_create.err


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_the_data_folder_is_private_whatever_the_umask(cli: Cli, umask: int) -> None:
    data = cli.data / "nested"  # the folder and its missing parent

    def call(*args: str) -> Any:
        proc = subprocess.run([str(ERRANDS), *args, "--data-dir", str(data), "--json"],
                              capture_output=True, text=True, env=cli.env, umask=umask,
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    ident = call("add", "--title", "M", "--command", "echo hi", "--schedule", "manual")["id"]
    run = call("run-now", ident, "--wait")
    proc = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(data)], env=cli.env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            umask=umask)
    try:
        assert proc.stdout is not None and "Errands engine running" in proc.stdout.readline()
        db = data / "errands.sqlite3"  # (on a shared catalogue, the logs alone)
        files = [*([] if on_postgresql() else [db, db.with_name(db.name + "-wal"),
                                               db.with_name(db.name + "-shm")]),
                 data / "logs" / "runs" / ident / f"{run['id']}.log"]
        logs = data / "logs" / "runs"
        folders = [cli.data, data, data / "logs", logs, logs / ident, data / "workspaces",
                   data / "workspaces" / ident]
        assert {str(f): _mode(f) for f in files} == {str(f): 0o600 for f in files}
        assert {str(f): _mode(f) for f in folders} == {str(f): 0o700 for f in folders}
    finally:
        proc.send_signal(2)
        proc.communicate(timeout=30)


@pytest.mark.sqlite_only("the SQLite file's permissions")
def test_an_existing_wider_folder_is_tightened(cli: Cli) -> None:
    cli.call("list")
    db = cli.data / "errands.sqlite3"
    cli.data.chmod(0o755)
    db.chmod(0o644)
    (cli.data / "logs").mkdir(mode=0o755)
    cli.call("list")
    assert (_mode(cli.data), _mode(db), _mode(cli.data / "logs")) == (0o700, 0o600, 0o700)
    if os.geteuid() != 0:
        return  # only root can hand a file to another user
    db.chmod(0o644)
    os.chown(db, 65534, 65534)
    shown = cli.call("list", process=True)  # (its warning on the process's standard error)
    assert _mode(db) == 0o644 and "belongs to another user" in shown.err


def test_attention_read_says_which_items_it_marked(cli: Cli) -> None:
    ident = cli.call("add", "--title", "N", "--command", "for n in 1 2 3; do echo "
                     "\"errands: notify look $n\"; done", "--schedule", "manual",
                     "--json").json()["id"]
    cli.call("run-now", ident[:8], "--wait")  # three attention items
    first = min(i["id"] for i in cli.call("attention", "--json").json()["items"])
    marked = cli.call("attention", "read", str(first))
    assert marked.out.strip() == f"Marked item {first} as read."
    again, unknown = cli.many([(("attention", "read", str(first)), {}),
                               (("attention", "read", "999", "--json"), {"expect": 3})])
    assert again.out.strip() == f"Item {first} was already read; nothing changed."
    assert unknown.error()["code"] == "not_found"
    everything = cli.call("attention", "read", "--all")
    assert everything.out.strip() == "Marked 2 items as read."
    nothing = cli.call("attention", "read", "--all")
    assert nothing.out.strip() == "Nothing to mark: no unread items."


def test_config_shows_durations_as_refusals_write_them(cli: Cli) -> None:
    table, listed, got, refused = cli.many([
        (("config", "list"), {}), (("config", "list", "--json"), {}),
        (("config", "get", "min_interval"), {}),
        (("add", "--title", "T", "--command", "x", "--schedule", "every:30s", "--json"),
         {"expect": 2})])
    row = next(line for line in table.out.splitlines() if line.startswith("min_interval"))
    assert row.split()[1] == "1m" and got.out.strip() == "1m"
    assert {r["key"]: r["value"] for r in listed.json()["settings"]}["min_interval"] == "1m"
    assert "minimum interval of 1m" in refused.error()["message"]


# ------------------------------------------------------------------ archive

def _serve(cli: Cli) -> subprocess.Popen[bytes]:
    """``errands serve`` on this test's folder, answering on its channel."""
    serve = subprocess.Popen([str(ERRANDS), "serve", "--data-dir", str(cli.data)], env=cli.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (cli.data / "control.sock").exists():
        assert serve.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    return serve


def test_archive_keeps_the_history_readable_and_unarchive_brings_it_back_paused(
        cli: Cli) -> None:
    """Without an engine, then through a running one: an archived automation is out of the
    list, refuses to run, pause, resume or change, and its runs, output log, transcript and
    trail stay readable; unarchived it is paused, and a resume arms it again."""
    from openai_server import ScriptedServer, say

    model = ScriptedServer().start()
    provider = {"ERRANDS_PROVIDER_BASE_URL": model.base_url,
                "ERRANDS_PROVIDER_MODEL": "scripted-model"}
    try:
        model.play(say("Three new mails."))
        brief = cli.call("add", "--title", "Brief", "--prompt", "Summarize my mail.",
                         "--schedule", "manual", "--max-attempts", "1", "--json").json()["id"]
        backup = cli.call("add", "--title", "Backup", "--command", "echo saved it",
                          "--schedule", "every:1h", "--json").json()["id"]
        talk = cli.call("run-now", brief, "--wait", "--json", env=provider)
        ran = cli.call("run-now", backup, "--wait", "--json")  # (each hosts an engine)
        session = talk.json()["session_id"]
        assert talk.json()["state"] == "succeeded" and session
        log = ran.json()["log"]
        assert ran.json()["state"] == "succeeded" and "saved it" in Path(log).read_text()
    finally:
        model.close()

    archived = cli.call("archive", backup[:8], "--json").json()
    assert archived["changed"] is True
    doc = archived["automation"]
    assert doc["status"] == "archived" and doc["next_fire_at"] is None
    assert doc["revision"] == 1 and doc["paused"] is False  # the definition is untouched
    said = cli.call("archive", brief[:8])
    assert said.out.startswith("Archived Brief: it will not fire or run again")
    assert f"errands unarchive {brief[:8]}" in said.out

    (listed, table, only, only_table, run_now, pause, resume, edit, shown, runs, history,
     transcript, reply, again) = cli.many([
        (("list", "--json"), {}),
        (("list",), {}),
        (("list", "--archived", "--json"), {}),
        (("list", "--archived"), {}),
        (("run-now", backup[:8], "--json"), {"expect": 4}),
        (("pause", backup[:8], "--json"), {"expect": 4}),
        (("resume", backup[:8], "--json"), {"expect": 4}),
        (("edit", backup[:8], "--title", "Other", "--json"), {"expect": 4}),
        (("show", backup[:8]), {}),
        (("runs", backup[:8], "--json"), {}),
        (("history", backup, "--json"), {}),
        (("session", "show", session, "--json"), {}),
        (("session", "reply", session, "And now?", "--json"), {"expect": 4}),
        (("archive", backup[:8], "--json"), {}),
    ])
    assert listed.json() == {"automations": []}
    assert table.out.strip() == "No automations but 2 archived (errands list --archived)."
    assert {a["id"]: a["status"] for a in only.json()["automations"]} == {
        brief: "archived", backup: "archived"}
    assert [line.split()[1] for line in only_table.out.splitlines()[1:]] == ["archived"] * 2
    for refused in (run_now, pause, resume, edit, reply):
        error = refused.error()
        assert error["code"] == "archived", refused
        assert "unarchive it first" in error["message"] and "errands unarchive" in error["message"]
    assert "status       archived (it never fires;" in shown.out
    [kept] = runs.json()["runs"]
    assert kept["state"] == "succeeded" and kept["log"] == log
    assert "saved it" in Path(log).read_text()  # its output log, still there
    assert [e["action"] for e in history.json()["audit"]][-1] == "archived"
    assert history.json()["audit"][-1]["detail"] == {"status": "active"}
    assert [m["content"].get("content") for m in transcript.json()["messages"]][-1] == \
        "Three new mails."
    assert again.json()["changed"] is False

    serve = _serve(cli)  # the same, through a running engine
    try:
        run_now = cli.call("run-now", backup[:8], "--json", expect=4)
        assert run_now.error()["code"] == "archived"
        back = cli.call("unarchive", backup[:8], "--json").json()
        assert back["changed"] is True
        doc = back["automation"]
        assert doc["status"] == "paused" and doc["paused"] is True and doc["revision"] == 2
        assert doc["next_fire_at"] is None  # paused: a person resumes it
        listed = cli.call("list", "--json").json()["automations"]
        assert [a["id"] for a in listed] == [backup]
        said = cli.call("unarchive", backup[:8])
        assert said.out.strip() == "Backup is not archived; nothing changed"
        resumed = cli.call("resume", backup[:8], "--json").json()
        assert resumed["status"] == "active"
        assert _instant(resumed["next_fire_at"]) > datetime.now(timezone.utc)
        assert len(cli.call("runs", backup[:8], "--json").json()["runs"]) == 1
        archived = cli.call("archive", backup[:8], "--json").json()["automation"]
        assert archived["status"] == "archived" and archived["next_fire_at"] is None
        trail = [e["action"] for e in cli.call("history", backup, "--json").json()["audit"]]
        assert trail[-4:] == ["archived", "unarchived", "resumed", "archived"]
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    assert cli.call("show", backup, "--json").json()["status"] == "archived"  # after a stop


def test_delete_says_what_it_destroys_and_suggests_archive(cli: Cli) -> None:
    """Through a running engine and without one alike: the runs, transcripts and revisions
    it destroyed, the output logs it kept, and (for one with runs) that archive keeps all."""
    ran = cli.call("add", "--title", "Ran", "--command", "echo out", "--schedule", "manual",
                   "--json").json()["id"]
    idle = cli.call("add", "--title", "Idle", "--command", "true", "--schedule", "manual",
                    "--json").json()["id"]
    cli.call("run-now", ran, "--wait")
    cli.call("run-now", ran, "--wait")
    cli.call("edit", ran, "--title", "Ran twice")
    serve = _serve(cli)
    try:
        gone = cli.call("delete", ran[:8], "--json").json()
        assert gone["deleted"] == ran
        assert gone["destroyed"] == {"runs": 2, "transcripts": 0, "revisions": 2}
        folder = cli.data / "logs" / "runs" / ran
        assert gone["output_logs"] == {"kept": 2, "folder": str(folder)}
        assert len(list(folder.glob("*.log"))) == 2  # kept, as the answer says
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    said = cli.call("delete", idle[:8])  # no engine now
    assert said.out.splitlines()[0] == f"Deleted Idle ({idle})"
    assert "destroyed    0 runs, 0 transcripts, 1 revision" in said.out and said.err == ""
    again = cli.call("add", "--title", "Again", "--command", "echo x", "--schedule", "manual",
                     "--json").json()["id"]
    cli.call("run-now", again, "--wait")
    said = cli.call("delete", again[:8])
    assert "destroyed    1 run, 0 transcripts, 1 revision" in said.out
    assert f"kept         1 output log in {cli.data / 'logs' / 'runs' / again}" in said.out
    assert said.err.startswith("note: to stop an automation for good and keep its runs")
    assert "errands archive ID" in said.err
    trail = cli.call("history", again, "--json").json()["audit"]
    assert trail[-1]["action"] == "deleted"
    assert trail[-1]["detail"] == {"title": "Again", "runs": 1, "transcripts": 0,
                                   "revisions": 1}
    missing = cli.call("delete", again, "--json", expect=3)  # gone: as before
    assert missing.error()["code"] == "not_found"


def test_a_reminder_from_the_command_line_and_from_a_phrase(cli: Cli) -> None:
    """``--remind`` makes a reminder; a phrase whose task says "remind me to …" is one
    too; ``show`` says what it shows; a dry run says what it would show."""
    made = cli.call("add", "--title", "Stretch", "--remind", "Stand up and stretch",
                    "--schedule", "manual", "--json").json()
    assert made["runner"] == {"kind": "notify", "message": "Stand up and stretch"}
    phrased = cli.call("add", "--schedule", "tomorrow at 7pm remind me to call mom",
                       "--json").json()
    assert phrased["title"] == "Call mom"
    assert phrased["runner"] == {"kind": "notify", "message": "Call mom"}
    shown = cli.call("show", made["id"]).out
    assert "notify: Stand up and stretch" in shown
    both = cli.call("add", "--title", "x", "--remind", "a", "--command", "b", "--schedule",
                    "manual", expect=2)
    assert "not allowed with argument" in both.err
    empty = cli.call("add", "--title", "x", "--remind", " ", "--schedule", "manual", "--json",
                     expect=2)
    assert empty.error()["field"] == "runner.message"


def test_a_reminder_is_not_an_agent_on_the_command_line(cli: Cli, tmp_path: Path) -> None:
    """An agent edited into a reminder loses its permissions and worktree, saying so; an
    explicit --prompt wins over the phrase's "remind me"; a reminder takes no permissions."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    agent = cli.call("add", "--title", "Fix", "--prompt", "fix it", "--schedule", "manual",
                     "--workdir", str(repo), "--worktree", "--permissions", "allow-all",
                     "--json").json()
    edited = cli.call("edit", agent["id"], "--remind", "stand up", "--json")
    doc = edited.json()
    assert doc["runner"] == {"kind": "notify", "message": "stand up"}
    assert doc["worktree"] is False and doc["permissions"]["mode"] == "ask"
    assert "only agent runs work in a worktree" in edited.err
    explicit = cli.call("add", "--prompt", "do stuff", "--schedule",
                        "tomorrow at 7pm remind me to call mom", "--title", "Stuff",
                        "--json").json()
    assert explicit["runner"]["kind"] == "agent" and explicit["title"] == "Stuff"
    refused = cli.call("add", "--title", "X", "--remind", "hi", "--schedule", "in:10m",
                       "--permissions", "allow-all", "--json", expect=2)
    assert refused.error()["field"] == "permissions"
