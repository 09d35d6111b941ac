"""MCP servers' tools inside agent runs: a real stdio MCP server (``mcp_tool_server.py``)
started by the run, the real agent loop against a scripted model, approvals that park and
resume (the server started again), untrusted triggers, dry runs and broken servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from errands.errors import InvalidInput
from errands.records import Decision
from errands.tool_servers import parse_servers
from agent_support import AgentHarness, h, last_tool_result, server  # noqa: F401 (fixtures)
from event_support import until
from openai_server import ScriptedServer, call, say

SERVER = str(Path(__file__).with_name("mcp_tool_server.py"))


def tools_server(log: Path, *extra: str, name: str = "desk") -> dict[str, Any]:
    return {"name": name, "command": [sys.executable, SERVER, *extra],
            "env": {"MCP_TEST_LOG": str(log)}}


async def mcp_agent(h: AgentHarness, log: Path, *extra: str, **kw: Any) -> str:
    return await h.agent("desk", runner={"mcp_servers": [tools_server(log, *extra)]}, **kw)


def offered(server: ScriptedServer, index: int = -1) -> list[str]:
    return sorted(t["function"]["name"] for t in server.requests[index]["tools"])


async def test_a_tool_of_a_real_mcp_server_parks_is_approved_and_its_result_is_in_the_transcript(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    log = tmp_path / "remembered.txt"
    a = await mcp_agent(h, log)
    server.play(call("mcp__desk__remember", {"line": "milk"}), say("noted"))
    run = await h.run(a)
    assert run.state == "awaiting_input"  # an MCP tool asks by default
    blocker = h.store.parked()[0].blocker
    assert (blocker.tool, blocker.arguments) == ("mcp__desk__remember", {"line": "milk"})
    assert "mcp__desk__add" in offered(server) and "run_command" in offered(server)
    assert not log.exists()  # nothing called before the person said so
    run = await h.decide(run, "approve_once")  # the run resumes: the server starts again
    assert run.state == "succeeded" and run.result == "noted"
    assert log.read_text() == "milk\n"
    tool = [m for m in h.transcript(run) if m["role"] == "tool"]
    assert tool[-1]["content"] == "remembered" and tool[-1]["name"] == "mcp__desk__remember"
    assert last_tool_result(server) == "remembered"


async def test_approve_always_saves_a_rule_on_server_and_tool(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    a = await mcp_agent(h, tmp_path / "log.txt")
    server.play(call("mcp__desk__add", {"a": 2, "b": 40}), say("42"))
    run = await h.decide(await h.run(a), "approve_always")
    assert run.state == "succeeded" and last_tool_result(server) == "2 + 40 = 42"
    rules = h.store.get(a).definition.permissions.rules  # type: ignore[union-attr]
    assert [(r.tool, r.pattern, r.action) for r in rules] == [("mcp", "desk.add", "allow")]
    server.play(call("mcp__desk__add", {"a": 1, "b": 1}), say("2"))
    assert (await h.run(a)).result == "2"  # allowed now, no parking
    server.play(call("mcp__desk__remember", {"line": "x"}))  # another tool still asks
    assert (await h.run(a)).state == "awaiting_input"


async def test_rules_and_global_rules_judge_server_tools(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    await h.engine.commands.set_setting("permission_rules", json.dumps(
        [{"tool": "mcp", "pattern": "desk.remember", "action": "deny"}]))
    a = await mcp_agent(h, tmp_path / "log.txt", permissions={
        "mode": "allow_all"})
    server.play(call("mcp__desk__remember", {"line": "x"}), call("mcp__desk__add",
                                                                   {"a": 1, "b": 2}), say("ok"))
    run = await h.run(a)
    assert run.state == "succeeded"
    results = [m["content"] for m in h.transcript(run) if m["role"] == "tool"]
    assert results[0].startswith("Denied by the user's rules (your rule 1 (mcp")
    assert results[1] == "1 + 2 = 3"  # allow_all lets the rest through
    assert not (tmp_path / "log.txt").exists()


async def test_the_setting_offers_servers_to_every_agent_run(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    await h.engine.commands.set_setting("mcp_servers", json.dumps(
        [tools_server(tmp_path / "log.txt", name="everywhere")]))
    a = await h.agent("plain", permissions={"rules": [
        {"tool": "mcp", "pattern": "everywhere.*", "action": "allow"}]})
    server.play(call("mcp__everywhere__add", {"a": 3, "b": 4}), say("7"))
    run = await h.run(a)
    assert run.state == "succeeded" and last_tool_result(server) == "3 + 4 = 7"


async def test_a_run_an_event_started_is_not_offered_server_tools_unless_named(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    from errands.ledger import Offer
    hook = {"triggers": [{"id": "hook", "kind": "webhook"}]}
    a = await mcp_agent(h, tmp_path / "log.txt", permissions={"mode": "allow_all"})
    doc = h.store.get(a).definition.to_dict()
    doc.pop("trigger")
    await h.engine.commands.revise(a, {**doc, **hook})
    server.play(call("mcp__desk__add", {"a": 1, "b": 1}), say("done"))
    await h.engine.sources.offer(a, Offer("webhook", "e1", h.clock.now(), {"body": "x"},
                                          trigger_id="hook", kind="webhook"))
    runs = await _ended(h, a, 1)
    assert not any(name.startswith("mcp__") for name in offered(server, 0))
    assert "there is no tool named 'mcp__desk__add'" in last_tool_result(server)
    assert runs[-1].state == "succeeded"
    # named one by one, it is offered, and asks (untrusted) although allow_all allows it
    doc = h.store.get(a).definition.to_dict()
    doc["permissions"]["untrusted_ok"] = []
    doc["permissions"]["tools"] = []
    await h.engine.commands.revise(a, {**doc, "permissions": {
        "mode": "allow_all", "untrusted_ok": ["mcp:desk.add"]}})
    server.play(call("mcp__desk__add", {"a": 2, "b": 2}), say("four"))
    await h.engine.sources.offer(a, Offer("webhook", "e2", h.clock.now(), {"body": "y"},
                                          trigger_id="hook", kind="webhook"))
    runs = await _ended(h, a, 2)
    names = offered(server)
    assert "mcp__desk__add" in names and "mcp__desk__remember" not in names
    assert runs[-1].state == "succeeded" and last_tool_result(server) == "2 + 2 = 4"


async def _ended(h: AgentHarness, a: str, count: int) -> list[Any]:
    await until(lambda: len([r for r in h.runs(a) if not r.active]) >= count, "the event run")
    return [r for r in h.runs(a) if not r.active]


async def test_a_server_result_is_untrusted_text_unless_the_server_is_trusted(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    a = await mcp_agent(h, tmp_path / "log.txt", permissions={"mode": "allow_all"})
    server.play(call("mcp__desk__peek"), call("run_command", {"command": "true"}))
    run = await h.run(a)
    assert run.state == "awaiting_input" and h.store.parked()[0].blocker.tool == "run_command"
    doc = h.store.get(a).definition.to_dict()
    doc["runner"]["mcp_servers"][0]["trusted"] = True
    await h.decide(run, "deny")
    await h.engine.commands.revise(a, doc)
    server.play(call("mcp__desk__peek"), call("run_command", {"command": "true"}), say("ok"))
    assert (await h.run(a)).state == "succeeded"


async def test_a_dry_run_calls_only_what_says_it_reads(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    a = await mcp_agent(h, log, permissions={"mode": "allow_all"})
    server.play(call("mcp__desk__remember", {"line": "x"}), call("mcp__desk__peek"),
                say("looked"))
    run = await h.run(a, dry_run=True)
    assert run.state == "succeeded" and not log.exists()
    results = [m["content"] for m in h.transcript(run) if m["role"] == "tool"]
    assert results[0].startswith("(dry run) not called") and results[1] == "(empty)"
    assert "would call desk.remember" in " ".join(run.details["proposed"])  # type: ignore[index]


async def test_a_tool_error_is_the_models_to_read(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    a = await mcp_agent(h, tmp_path / "log.txt", permissions={"mode": "allow_all"})
    server.play(call("mcp__desk__fail"), call("mcp__desk__add", {"a": "x", "b": 1}),
                say("could not"))
    run = await h.run(a)
    assert run.state == "succeeded"
    results = [m["content"] for m in h.transcript(run) if m["role"] == "tool"]
    assert "the deploy API said 503" in results[0]
    assert results[1].startswith("Error: mcp__desk__add: argument 'a' must be a whole number")


@pytest.mark.parametrize("extra, said", [
    (("--die-on-start",), "cannot open the database: permission denied"),
    (("--no-such-flag",), None)])
async def test_a_server_that_will_not_start_fails_the_run_with_mcp_server(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path, extra: tuple[str, ...],
        said: str | None) -> None:
    a = await mcp_agent(h, tmp_path / "log.txt", *extra)
    if not said:  # (a server that starts: this case is a missing program)
        doc = h.store.get(a).definition.to_dict()
        doc["runner"]["mcp_servers"][0]["command"] = ["errands-no-such-mcp-server"]
        await h.engine.commands.revise(a, doc)
        said = "No such file or directory"
    run = await h.run(a)
    assert run.state == "failed" and run.error_code == "mcp_server"
    assert "MCP server 'desk'" in (run.error_message or "") and said in (run.error_message or "")
    assert server.requests == []  # no model call was made


async def test_a_server_that_dies_mid_call_fails_the_run_with_mcp_server(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    a = await mcp_agent(h, tmp_path / "log.txt", permissions={"mode": "allow_all"})
    server.play(call("mcp__desk__crash"), say("unreachable"))
    run = await h.run(a)
    assert run.state == "failed" and run.error_code == "mcp_server"
    assert "closed the connection during crash" in (run.error_message or "")
    tools = [m for m in h.transcript(run) if m["role"] == "assistant"]
    assert tools  # the transcript up to the call is kept


@pytest.mark.catalogue_free
def test_an_always_allow_names_exactly_the_tool_offered() -> None:
    """Rules name a tool as offered (``server.tool`` in the function's alphabet); what an
    "always" saves matches that one tool and no other, whatever characters it holds."""
    from errands.agent.mcp_tools import function_name, server_tool_pattern, subject_of
    import fnmatch
    names = [("desk", "add"), ("gh", "repos.list"), ("x", "a" * 80), ("d", "we*ird?[1]"),
             ("evil", "read_file"), ("evil", "read-file")]
    for server, tool in names:
        function = function_name(server, tool)
        pattern = server_tool_pattern(function)
        assert fnmatch.fnmatchcase(subject_of(function), pattern), pattern
        others = {subject_of(function_name(s, t)) for s, t in names} - {subject_of(function)}
        assert not any(fnmatch.fnmatchcase(o, pattern) for o in others), (pattern, others)
    assert server_tool_pattern("mcp__desk__add") == "desk.add"
    assert subject_of(function_name("gh", "repos.list")) == "gh.repos_list"


@pytest.mark.catalogue_free
def test_server_definitions_are_checked_with_field_and_example() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_servers([{"name": "Bad Name", "command": ["x"]}], "mcp_servers")
    assert info.value.field == "mcp_servers[0].name"
    with pytest.raises(InvalidInput) as info:
        parse_servers([{"name": "a", "url": "http://example.com/mcp"}], "mcp_servers")
    assert info.value.field == "mcp_servers[0].url" and "clear" in info.value.expected
    with pytest.raises(InvalidInput) as info:
        parse_servers([{"name": "a", "command": ["x"]}, {"name": "a", "command": ["y"]}], "s")
    assert info.value.field == "s[1].name"
    with pytest.raises(InvalidInput) as info:
        parse_servers([{"name": "a", "command": ["x"], "url": "https://a.example/mcp"}], "s")
    assert info.value.field == "s[0]"
    assert parse_servers('[{"name": "g", "command": "uvx mcp-server-git --repo \'a b\'"}]',
                         "s")[0].command == ("uvx", "mcp-server-git", "--repo", "a b")


SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
VALUES = SCALARS | st.lists(SCALARS, max_size=4) | st.dictionaries(st.text(max_size=8),
                                                                  SCALARS, max_size=3)
SERVER_DOCS = st.dictionaries(st.sampled_from(["name", "command", "url", "env", "header",
                                               "trusted", "x"]), VALUES, max_size=5)


@pytest.mark.catalogue_free
@given(SCALARS | st.lists(SERVER_DOCS | VALUES, max_size=4) | SERVER_DOCS)
def test_any_server_document_is_parsed_or_refused_with_a_field(doc: Any) -> None:
    try:
        servers = parse_servers(doc, "mcp_servers")
    except InvalidInput as exc:
        assert exc.field.startswith("mcp_servers") and exc.expected
    else:
        assert parse_servers([s.to_dict() for s in servers], "again") == servers


def test_from_the_command_line_a_server_is_added_its_call_approved_across_a_restart(
        tmp_path: Path) -> None:
    """As a user: ``errands add --mcp-server``, a run parks on the server's tool, Errands
    restarts, ``errands approve`` lets it go on, the server is started again for it."""
    from test_serve import Serve, wait_for
    model = ScriptedServer().start()
    log = tmp_path / "log.txt"
    serve = Serve(tmp_path / "data", ERRANDS_PROVIDER_BASE_URL=model.base_url,
                  ERRANDS_PROVIDER_MODEL="scripted-model", MCP_TEST_LOG=str(log))
    try:
        serve.start()
        spec = json.dumps({"name": "desk", "command": [sys.executable, SERVER],
                           "env": {"MCP_TEST_LOG": str(log)}})
        a = serve.cli("add", "--title", "desk", "--prompt", "Note it.", "--schedule",
                      "manual", "--max-attempts", "1", "--mcp-server", spec)["id"]
        bad = serve.cli("add", "--title", "x", "--prompt", "p", "--schedule", "manual",
                        "--mcp-server", "Desk=uvx x", check=False)
        assert bad.returncode != 0
        assert "runner.mcp_servers[0].name" in bad.stdout + bad.stderr
        model.play(call("mcp__desk__remember", {"line": "call mom"}), say("Noted."))
        run = serve.cli("run-now", a)
        wait_for(lambda: serve.cli("approvals")["approvals"] != []
                 or serve.cli("runs", a)["runs"][0]["state"] not in ("scheduled", "running"))
        (waiting,) = serve.cli("approvals")["approvals"]
        assert (waiting["tool"], waiting["arguments"]) == ("mcp__desk__remember",
                                                           {"line": "call mom"})
        assert serve.stop()
        serve.start()
        serve.cli("approve", run["id"])
        wait_for(lambda: serve.cli("runs", a)["runs"][0]["state"] == "succeeded")
        assert log.read_text() == "call mom\n"
        assert serve.cli("runs", a)["runs"][0]["result"] == "Noted."
        serve.stop()
    finally:
        if serve.proc is not None and serve.proc.poll() is None:
            serve.kill9()
        model.close()


async def test_a_server_over_streamable_http_gets_its_header_from_the_keyring(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    import socket
    import subprocess

    from errands.tool_servers import set_secret
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**__import__("os").environ, "MCP_TEST_LOG": str(tmp_path / "log.txt")}
    proc = subprocess.Popen([sys.executable, SERVER, "--http", str(port), "s3cret-token"],
                            env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "listening"
        await _until_port(port)
        remote = {"name": "remote", "url": f"http://127.0.0.1:{port}/mcp",
                  "header": "Authorization"}
        a = await h.agent("remote", runner={"mcp_servers": [remote]},
                          permissions={"mode": "allow_all"})
        run = await h.run(a)  # no value kept yet: the server refuses, the run says so
        assert run.state == "failed" and run.error_code == "mcp_server"
        assert "MCP server 'remote'" in (run.error_message or "")
        set_secret(h.tmp_path, "remote", "https://elsewhere.example/mcp", "Bearer wrong")
        run = await h.run(a)  # a secret kept for another address is not sent here
        assert run.state == "failed" and run.error_code == "mcp_server"
        set_secret(h.tmp_path, "remote", remote["url"], "Bearer s3cret-token")
        server.play(call("mcp__remote__add", {"a": 5, "b": 6}), say("11"))
        run = await h.run(a)
        assert run.state == "succeeded" and last_tool_result(server) == "5 + 6 = 11"
        stored = json.dumps(h.store.get(a).definition.to_dict())
        assert "s3cret" not in stored
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


async def _until_port(port: int) -> None:
    import asyncio
    for _ in range(200):
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise AssertionError("the HTTP MCP server did not listen")


# ------------------------------------------------------------------ hostile servers

RAW = str(Path(__file__).with_name("mcp_raw_server.py"))


def raw_server(name: str = "raw", **env: str) -> dict[str, Any]:
    return {"name": name, "command": [sys.executable, RAW], "env": env}


@pytest.mark.parametrize("tool, arguments", [
    ("t4", {}), ("t4", {"q": 1}),
    ("t5", {"a": ["y"]}), ("t8", {}), ("t8", {"q": {"any": 1}}), ("t9", {"z": 1})])
async def test_a_server_schema_of_any_shape_is_a_readable_answer_never_internal(
        h: AgentHarness, server: ScriptedServer, tool: str, arguments: dict[str, Any]) -> None:
    a = await h.agent("raw", runner={"mcp_servers": [raw_server(MODE="badschema")]},
                      permissions={"mode": "allow_all"})
    server.play(call(f"mcp__raw__{tool}", arguments), say("done"))
    run = await h.run(a)
    assert run.state == "succeeded", (run.error_code, run.error_message)
    result = last_tool_result(server)
    assert result.startswith("ok ") or result.startswith("Error: "), result


async def test_a_tool_list_the_sdk_cannot_read_fails_the_run_with_mcp_server(
        h: AgentHarness, server: ScriptedServer) -> None:
    a = await h.agent("raw", runner={"mcp_servers": [raw_server(MODE="invalid")]})
    run = await h.run(a)
    assert run.state == "failed" and run.error_code == "mcp_server"
    assert "validation error" in (run.error_message or "")


async def test_starting_servers_counts_against_the_runs_time(
        h: AgentHarness, server: ScriptedServer) -> None:
    slow = [raw_server(f"s{i}", MODE="slowstart", SLEEP="2") for i in range(3)]
    a = await h.agent("slow", runner={"mcp_servers": slow}, policy={"timeout": "3s"})
    run = await h.run(a)
    assert run.state == "failed" and run.error_code == "mcp_server"
    assert "did not start and list its tools within" in (run.error_message or "")
    assert server.requests == []


async def test_what_a_server_left_running_in_its_group_ends_with_the_run(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    import os
    import signal
    pids = tmp_path / "pids"
    a = await h.agent("kids", runner={"mcp_servers": [raw_server(MODE="child",
                                                                 PIDFILE=str(pids))]})
    server.play(say("nothing to do"))
    assert (await h.run(a)).state == "succeeded"
    _server_pid, child = map(int, pids.read_text().split())
    for _ in range(100):
        try:
            os.kill(child, 0)
            with open(f"/proc/{child}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break  # (ended; only its parent's reaping is left)
        except (ProcessLookupError, FileNotFoundError):
            break
        import asyncio
        await asyncio.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the server's child outlived the run")


async def test_an_agent_naming_mcp_servers_leaves_the_automation_paused_for_review(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    """A server is a program: one an agent adds waits for a person, attended or not."""
    a = await h.agent("maker", permissions={"mode": "allow_listed", "tools": ["automate"]})
    server.play(call("automate", {"action": "create", "title": "with tools", "runner": {
        "kind": "agent", "prompt": "p", "mcp_servers": [tools_server(tmp_path / "l")]},
        "schedule": "every:1h"}), say("made"))
    await h.run(a)
    made = h.store.get(json.loads(last_tool_result(server))["id"])
    assert made.status == "paused"
    server.play(say("Hi."))
    first = await h.run(a)
    # in a discussion (attended), updating an automation's servers still waits for review
    server.play(call("automate", {"action": "update", "id": made.id, "runner": {
        "kind": "agent", "prompt": "p", "mcp_servers": [raw_server()]}}))
    d = await h.engine.commands.reply(first.session_id, "Give it another server.")  # type: ignore[arg-type]
    server.play(say("Updated."))
    await h.engine.discussions.decide(d["session_id"], Decision(kind="approve_once"))
    assert h.store.get(made.id).status == "paused"
    # and a discussion never changes the automation it discusses
    server.play(call("automate", {"action": "update", "id": a, "title": "renamed"}))
    d = await h.engine.discussions.say(d["session_id"], "Rename yourself.")
    server.play(say("I may not."))
    await h.engine.discussions.decide(d["session_id"], Decision(kind="approve_once"))
    assert "does not change or run the automation it discusses" in last_tool_result(server)
    assert h.store.get(a).definition.title == "maker"


async def test_a_discussion_is_offered_no_server_tools(
        h: AgentHarness, server: ScriptedServer, tmp_path: Path) -> None:
    await h.engine.commands.set_setting("mcp_servers", json.dumps([raw_server("global")]))
    a = await mcp_agent(h, tmp_path / "log.txt")
    server.play(say("ran"))
    await h.run(a)
    assert any(n.startswith("mcp__") for n in offered(server))
    server.play(say("talked"))
    await h.engine.discussions.start(a, 1, "Hello")
    assert not any(n.startswith("mcp__") for n in offered(server))
