"""``errands migrate --to``: a local catalogue into a shared PostgreSQL one and back, as a
user does it from the command line (real SQLite file, real server, the real CLI)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cli_support import Result, errands
from openai_server import ScriptedServer, call, say
from test_serve import Serve
from errands.db.location import ENV, ServerDatabase


def _env(machine: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERRANDS_")}
    env.update(ERRANDS_MACHINE=machine, **extra)
    return env


def _on(data: Path, env: dict[str, str], *args: str, expect: int = 0) -> Any:
    done = errands(["--data-dir", str(data), *args, "--json"], env)
    assert done.code == expect, done
    return json.loads(done.out or done.err)


def _laptop_catalogue(data: Path, env: dict[str, str], model: ScriptedServer) -> dict[str, str]:
    """Three automations: a command run twice, one never run, an agent whose run waits
    for an approval (a transcript and a parked run); a setting of its own."""
    backup = _on(data, env, "add", "--title", "Backup", "--command", "echo saved",
                 "--schedule", "manual")["id"]
    idle = _on(data, env, "add", "--title", "Idle", "--command", "true",
               "--schedule", "every:1h")["id"]
    work = data.parent / "work"
    work.mkdir(exist_ok=True)
    agent = _on(data, env, "add", "--title", "Builder", "--prompt", "Build it.", "--schedule",
                "manual", "--workdir", str(work), "--max-attempts", "1")["id"]
    _on(data, env, "edit", backup, "--title", "Nightly backup")
    for _ in range(2):
        assert _on(data, env, "run-now", backup, "--wait")["state"] == "succeeded"
    model.play(call("run_command", {"command": "echo built > out.txt"}), say("Built it."))
    parked = _on(data, env, "run-now", agent, "--wait", expect=1)  # (not done: it waits)
    assert parked["state"] == "awaiting_input", parked
    _on(data, env, "config", "set", "concurrency", "3")
    return {"backup": backup, "idle": idle, "agent": agent, "parked": parked["id"]}


@pytest.fixture
def model() -> Any:
    server = ScriptedServer().start()
    yield server
    server.close()


def test_a_local_catalogue_moves_into_a_shared_one_and_back_adding_only_what_is_missing(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        model: ScriptedServer) -> None:
    url = postgres.url(pg_catalogue.database)
    provider = {"ERRANDS_PROVIDER_BASE_URL": model.base_url,
                "ERRANDS_PROVIDER_MODEL": "scripted-model"}
    laptop, env = tmp_path / "laptop", _env("laptop", **provider)
    ids = _laptop_catalogue(laptop, env, model)
    before = {name: _on(laptop, env, *argv) for name, argv in (
        ("list", ["list"]), ("runs", ["runs", ids["backup"]]),
        ("parked", ["runs", ids["agent"]]), ("history", ["history", ids["backup"]]))}

    moved = _on(laptop, env, "migrate", "--to", url)
    assert moved["copied"]["automations"] == 3 and moved["copied"]["runs"] == 3
    assert moved["copied"]["revisions"] == 4 and moved["copied"]["blockers"] == 1
    assert moved["copied"]["sessions"] >= 1 and moved["copied"]["messages"] >= 2
    assert moved["copied"]["settings"] >= 1 and moved["already_there"] == []
    text = errands(["--data-dir", str(laptop), "migrate", "--to", url], env)
    assert text.code == 0 and "Copied into" in text.out and "nothing new" in text.out
    assert "3 automation(s) were there already" in text.out
    assert f"errands database use {pg_catalogue}" in text.out

    # the shared catalogue, from another machine's data folder: the same documents
    desk, desk_env = tmp_path / "desk", _env("desk", **{ENV: url}, **provider)
    after = {name: _on(desk, desk_env, *argv) for name, argv in (
        ("list", ["list"]), ("runs", ["runs", ids["backup"]]),
        ("parked", ["runs", ids["agent"]]), ("history", ["history", ids["backup"]]))}
    def by_id(listed: dict[str, Any]) -> dict[str, Any]:
        return {a["id"]: a for a in listed["automations"]}

    # the same, but that a command (or a folder-bound one) now runs on the machine it
    # came from, as one made on that machine would
    bound = {i: a.pop("runs_on", "any") for i, a in by_id(after["list"]).items()}
    assert by_id(after["list"]) == by_id(before["list"])
    assert bound == {i: "laptop" if a["runner"]["kind"] == "command" or a.get("workdir")
                     else "any" for i, a in by_id(before["list"]).items()}
    assert [r["machine"] for r in after["runs"]["runs"]] == ["laptop", "laptop"]
    for was, now in zip(before["runs"]["runs"], after["runs"]["runs"], strict=True):
        # (its output log is a file in the laptop's data folder: the desk has none)
        assert {k: v for k, v in now.items() if v != was.get(k)} == {"log": None}, was
    assert after["parked"]["runs"][0]["state"] == "awaiting_input"
    for revision in after["history"]["revisions"]:  # (bound too: the trail reads the same)
        assert revision["definition"].pop("runs_on") == "laptop"
    assert after["history"]["revisions"] == before["history"]["revisions"]
    assert [e["action"] for e in after["history"]["audit"]] == [
        e["action"] for e in before["history"]["audit"]]
    assert _on(desk, desk_env, "config", "get", "concurrency")["value"] in (3, "3")
    approvals = _on(desk, desk_env, "approvals")["approvals"]
    assert [a["run_id"] for a in approvals] == [ids["parked"]]
    session = after["parked"]["runs"][0]["session_id"]
    shown = _on(desk, desk_env, "session", "show", session)
    assert [m["content"].get("turn") for m in shown["messages"]][:2] == ["prompt", "step"]

    # the parked run is bound to the laptop (its folder is there): approved on the desk it
    # is refused, saying so; let run anywhere, it is approved there, and finishes there
    refused = errands(["--data-dir", str(desk), "approve", ids["parked"], "--json"], desk_env)
    assert refused.code == 4 and "is run by the engine of laptop" in refused.err, refused
    _on(desk, desk_env, "edit", ids["agent"], "--runs-on", "any")
    model.play(say("Built it."))
    done = _on(desk, desk_env, "approve", ids["parked"])
    assert done["runs"][0]["state"] == "succeeded" if "runs" in done else done["state"]

    # and back: a third data folder takes the shared catalogue into a file of its own
    home = tmp_path / "home-server"
    back = _on(home, _env("home"), "--database", url, "migrate", "--to", "local")
    assert back["copied"]["automations"] == 3 and back["copied"]["runs"] == 3
    again = errands(["--data-dir", str(home), "--database", url, "migrate", "--to", "local"],
                    _env("home"))
    assert again.code == 0 and "nothing new" in again.out
    assert "This data folder's own file holds the copy" in again.out
    local = _on(home, _env("home"), "list")
    assert sorted(a["id"] for a in local["automations"]) == sorted(
        a["id"] for a in before["list"]["automations"])
    assert [r["state"] for r in _on(home, _env("home"), "runs", ids["agent"])["runs"]] == [
        "succeeded"]


def test_a_copy_that_fails_midway_is_rolled_back_and_says_so(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path,
        model: ScriptedServer) -> None:
    url = postgres.url(pg_catalogue.database)
    laptop, env = tmp_path / "laptop", _env("laptop", ERRANDS_PROVIDER_BASE_URL=model.base_url,
                                            ERRANDS_PROVIDER_MODEL="scripted-model")
    ids = _laptop_catalogue(laptop, env, model)
    with sqlite3.connect(laptop / "errands.sqlite3") as db:
        (session,) = db.execute("SELECT session_id FROM runs WHERE id = ?",
                                (ids["parked"],)).fetchone()
    # the shared catalogue already holds a transcript by that id (of nothing copied here):
    # the copy reaches it after automations, revisions and runs were written
    postgres.admin_in(pg_catalogue.database,
                      "INSERT INTO sessions (id, automation_id, kind, title, created_at, "
                      f"updated_at) VALUES ('{session}', NULL, 'run', 'x', now(), now())")
    failed = errands(["--data-dir", str(laptop), "migrate", "--to", url, "--json"], env)
    assert failed.code == 1, failed
    error = json.loads(failed.err)["error"]
    assert error["code"] == "copy_failed" and "rolled back" in error["message"]
    assert "nothing was written" in error["message"]
    counts = postgres.admin_in(pg_catalogue.database,
                               "SELECT (SELECT count(*) FROM automations), "
                               "(SELECT count(*) FROM runs), (SELECT count(*) FROM revisions)")
    assert counts == [(0, 0, 0)]


def test_what_cannot_be_copied_is_refused_or_named(
        pg_catalogue: ServerDatabase, postgres: Any, tmp_path: Path) -> None:
    url = postgres.url(pg_catalogue.database)
    data, env = tmp_path / "laptop", _env("laptop")
    good = _on(data, env, "add", "--title", "Good", "--command", "true",
               "--schedule", "manual")["id"]
    bad = _on(data, env, "add", "--title", "Bad", "--command", "true",
              "--schedule", "manual")["id"]

    def refused(*argv: str, code: int) -> dict[str, Any]:
        done: Result = errands(["--data-dir", str(data), *argv, "--json"], env)
        assert done.code == code, done
        return dict(json.loads(done.err)["error"])

    engine = Serve(data).start()  # runs under way would be copied half done: refused
    try:
        error = refused("migrate", "--to", url, code=4)
        assert error["code"] == "engine_running" and "this machine" in error["message"]
        assert "stop errands serve" in error["message"]
    finally:
        engine.stop()
    db = sqlite3.connect(data / "errands.sqlite3")
    with db:
        db.execute("UPDATE automations SET definition = '{not json' WHERE id = ?", (bad,))
    db.close()

    assert refused("migrate", "--to", "mysql://me@h/db", code=2)["field"] == "--to"
    assert refused("migrate", "--to", "postgresql://me:secret@h/db", code=2)["field"] == "--to"
    assert refused("migrate", "--to", "local", code=2)["field"] == "--to"  # (in use already)

    moved = _on(data, env, "migrate", "--to", url)
    assert moved["copied"]["automations"] == 1 and moved["not_copied"][0]["id"] == bad
    assert "not JSON" in moved["not_copied"][0]["why"]
    assert [a["id"] for a in _on(data, env, "--database", url, "list")["automations"]] == [good]
