"""`errands mcp` driven by the official MCP client of the same SDK over real stdio (issue 31),
beside a real `errands serve`: every tool's schema is valid JSON Schema, what a client
creates is paused and marked as proposed by it, a client never enables an automation nor
runs a paused one and its changes wait for the person, a refusal names the field with the
shape expected and an example, a run by hand with its output and an agent run's transcript
come back, and a hostile client (huge arguments, wrong types, a thousand calls at once)
never meets an internal error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from errands.cli import main as cli_main
from openai_server import ScriptedServer, say
from test_serve import Serve, _env


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


class Client:
    def __init__(self, session: ClientSession, data: Path) -> None:
        self.session, self.data = session, data

    async def ok(self, tool: str, **args: Any) -> Any:
        result = await self.session.call_tool(tool, args)
        assert not result.is_error, (tool, result.content)
        return result.structured_content

    async def refused(self, tool: str, **args: Any) -> str:
        result = await self.session.call_tool(tool, args)
        assert result.is_error, (tool, result.structured_content)
        text = result.content[0].text
        assert "internal" not in text.lower(), text
        return text


@contextlib.asynccontextmanager
async def connect(tmp_path: Path, model: ScriptedServer, *extra: str,
                  engine: bool = True) -> AsyncIterator[Client]:
    """``errands mcp`` started by the SDK's client (a context of the test's own task: the
    SDK's task groups must end in the task that began them), beside ``errands serve``."""
    data = tmp_path / "data"
    env = dict(ERRANDS_PROVIDER_BASE_URL=model.base_url, ERRANDS_PROVIDER_MODEL="scripted-model")
    serve = Serve(data, **env).start() if engine else None
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "errands", "mcp", "--data-dir", str(data), *extra],
        env=_env(**env))
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield Client(session, data)
    finally:
        if serve is not None:
            serve.stop()


COMMAND = {"title": "Deploy check", "runner": {"kind": "command", "command": "echo all green"},
           "trigger": {"kind": "cron", "expression": "0 9 * * MON-FRI",
                       "timezone": "Europe/Berlin"}}


async def test_the_tools_their_schemas_and_a_proposal_that_waits_for_the_person(tmp_path: Path, model: ScriptedServer) -> None:
    async with connect(tmp_path, model) as client:
        await _test_the_tools_their_schemas_and_a_proposal_that_waits_for_the_person(client)


async def _test_the_tools_their_schemas_and_a_proposal_that_waits_for_the_person(client: Client) -> None:
    tools = (await client.session.list_tools()).tools
    assert {t.name for t in tools} == {
        "list_automations", "get_automation", "describe_schedule", "create_automation",
        "update_automation", "pause_automation", "resume_automation", "archive_automation",
        "run_now", "list_runs", "get_run", "list_waiting"}
    assert not any("approve" in t.name or "decide" in t.name for t in tools)
    for t in tools:
        Draft202012Validator.check_schema(t.input_schema)
        assert t.description and t.input_schema["type"] == "object"
    reading = await client.ok("describe_schedule", phrase="every weekday at 9am",
                              timezone="Europe/Berlin")
    assert reading["reading"] == "Every weekday at 09:00 (Europe/Berlin)"
    assert len(reading["next_fires"]) == 5
    assert (await client.ok("list_automations"))["automations"] == []  # (nothing created)
    made = await client.ok("create_automation", definition=COMMAND)
    automation = made["automation"]
    assert automation["status"] == "paused" and automation["origin"]["kind"] == "mcp"
    assert "proposed by" in made["note"]
    listed = (await client.ok("list_automations"))["automations"]
    assert listed[0]["proposed_by"] == automation["origin"]["client"]
    assert listed[0]["reading"] == "Every weekday at 09:00 (Europe/Berlin)"
    refusal = await client.refused("resume_automation", id=automation["id"])
    assert "the person resumes them" in refusal
    refusal = await client.refused("run_now", id=automation["id"], wait=True)
    assert "is paused" in refusal    # not even by hand: a proposal waits for the person
    _cli(client.data, "resume", automation["id"])   # the person enables it
    done = await client.ok("run_now", id=automation["id"], wait=True)
    assert done["state"] == "succeeded" and "all green" in done["output_tail"]
    run = await client.ok("get_run", run_id=done["id"])
    assert run["output_tail"].strip() == "all green"
    runs = await client.ok("list_runs", id=automation["id"][:8])
    assert [r["id"] for r in runs["runs"]] == [done["id"]]
    # the person enabled it, and it still says who proposed it
    out = _cli(client.data, "show", automation["id"])
    assert out["status"] == "active" and out["origin"]["client"] == "mcp"


async def test_refusals_name_the_field_the_shape_and_an_example(tmp_path: Path, model: ScriptedServer) -> None:
    async with connect(tmp_path, model) as client:
        await _test_refusals_name_the_field_the_shape_and_an_example(client)


async def _test_refusals_name_the_field_the_shape_and_an_example(client: Client) -> None:
    text = await client.refused("create_automation", definition={
        "title": "x", "runner": {"kind": "command", "command": "true"},
        "trigger": {"kind": "cron", "expression": "99 * * * *"}})
    assert text.count("trigger.expression") and "e.g." in text and "expected" in text
    text = await client.refused("describe_schedule", phrase="whenever it feels right")
    assert text.startswith("phrase: ")
    text = await client.refused("get_automation", id="no-such-automation")
    assert "no automation" in text
    person = _cli(client.data, "add", "--title", "Backup", "--command", "echo mine",
                  "--schedule", "every 1h")
    changed = await client.ok("update_automation", id=person["id"],
                              changes={"runner": {"kind": "command", "command": "echo theirs"}},
                              expected_revision=1)
    assert changed["automation"]["status"] == "paused" and "waits for the person" in \
        changed["note"]
    assert "the person resumes" in await client.refused("resume_automation", id=person["id"])
    assert "is paused" in await client.refused("run_now", id=person["id"])
    text = await client.refused("run_now", id=person["id"], dryRun=True)
    assert text.startswith("dryRun: this tool takes no such argument")
    made = await client.ok("create_automation", definition=COMMAND)
    ident = made["automation"]["id"]
    text = await client.refused("update_automation", id=ident, changes={"title": "New"},
                                expected_revision=7)
    assert "revision" in text
    changed = await client.ok("update_automation", id=ident, changes={"title": "Renamed"},
                              expected_revision=1)
    assert changed["automation"]["title"] == "Renamed" and changed["automation"]["revision"] == 2
    text = await client.refused("update_automation", id=ident, changes={"paused": False},
                                expected_revision=2)
    assert "changes.paused" in text
    text = await client.refused("list_runs", id=ident, limit=5000)
    assert "limit" in text
    text = await client.refused("get_automation", id=12)
    assert text == 'id: got 12; expected a string, e.g. 3f2a9c1e'
    text = await client.refused("update_automation", id=ident, changes={"title": "x"})
    assert text.startswith("expected_revision: is required; expected a whole number, e.g. 3")
    text = await client.refused("list_automations", status="sleeping")
    assert text.startswith("status: got \"sleeping\"; expected one of active, paused")


async def test_an_agent_run_and_its_transcript(model: ScriptedServer, tmp_path: Path) -> None:
    async with connect(tmp_path, model) as client:
        await _agent_run(client, model, tmp_path)


async def _agent_run(client: Client, model: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    made = await client.ok("create_automation", definition={
        "title": "Summary", "runner": {"kind": "agent", "prompt": "Say hello."},
        "trigger": {"kind": "manual"}, "workdir": str(tmp_path / "work")})
    _cli(client.data, "resume", made["automation"]["id"])
    model.play(say("Hello from the scripted model."))
    done = await client.ok("run_now", id=made["automation"]["id"], wait=True)
    assert done["state"] == "succeeded", done
    run = await client.ok("get_run", run_id=done["id"])
    said = [m["content"] for m in run["transcript"] if m["role"] == "assistant"]
    assert any("Hello from the scripted model." in json.dumps(c) for c in said)
    waiting = await client.ok("list_waiting")
    assert waiting["parked"] == [] and "the person" in waiting["note"]


async def test_a_hostile_client_never_meets_an_internal_error(tmp_path: Path, model: ScriptedServer) -> None:
    async with connect(tmp_path, model) as client:
        await _test_a_hostile_client_never_meets_an_internal_error(client)


async def _test_a_hostile_client_never_meets_an_internal_error(client: Client) -> None:
    await client.refused("create_automation",
                         definition={"title": "x" * 5_000_000, "runner": {}})
    for tool, args in [("get_automation", {"id": 12}), ("list_automations", {"offset": "a"}),
                       ("list_automations", {"status": "sleeping"}),
                       ("run_now", {"id": None}), ("create_automation", {"definition": []}),
                       ("update_automation", {"id": "x"}),
                       ("describe_schedule", {"phrase": "\x00" * 10}),
                       ("get_run", {"run_id": "r" * 10_000}),
                       ("list_runs", {"id": "x", "cursor": "zz"})]:
        await client.refused(tool, **args)
    made = await client.ok("create_automation", definition=COMMAND)
    ident = made["automation"]["id"]
    answers = await asyncio.gather(*(
        client.session.call_tool("get_automation" if i % 2 else "describe_schedule",
                                 {"id": ident} if i % 2 else {"phrase": f"every {i % 50 + 1} "
                                                                         "hours"})
        for i in range(1000)))
    assert all(not a.is_error for a in answers), [a.content for a in answers if a.is_error][:3]


def _cli(data: Path, *argv: str) -> Any:
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main([*argv, "--data-dir", str(data),
                         *(() if "--json" in argv else ("--json",))])
    assert code == 0
    return json.loads(out.getvalue())


@pytest.mark.catalogue_free
@pytest.mark.parametrize("name, words", [("claude-code", "claude mcp add errands -- "),
                                         ("codex", "[mcp_servers.errands]"),
                                         ("goose", "type: stdio"),
                                         ("cursor", '"mcpServers"')])
def test_config_prints_each_clients_snippet_and_writes_nothing(
        name: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["mcp", "config", "--client", name, "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert words in out and "mcp" in out and str(tmp_path) in out and f"--as" in out
    assert not any(tmp_path.iterdir())


async def test_trust_is_the_persons_configuration_not_the_clients_word(
        tmp_path: Path, model: ScriptedServer) -> None:
    data = tmp_path / "data"
    assert cli_main(["config", "set", "mcp_trusted_clients", "mcp,claude-code",
                     "--data-dir", str(data)]) == 0
    # the SDK's client calls itself "mcp": a name a client gives itself is never trusted
    async with connect(tmp_path, model, engine=False) as client:
        made = await client.ok("create_automation", definition=COMMAND)
        assert made["automation"]["status"] == "paused"
        assert "is paused" in await client.refused("run_now", id=made["automation"]["id"])
    async with connect(tmp_path, model, "--as", "claude-code", engine=False) as client:
        made = await client.ok("create_automation", definition=COMMAND)
        assert made["automation"]["status"] == "active"
        assert made["automation"]["origin"]["client"] == "claude-code"
        # a run is the engine's to host: none runs here, so none is started
        text = await client.refused("run_now", id=made["automation"]["id"], wait=True)
        assert "Errands is not running" in text
    async with connect(tmp_path, model, "--as", "codex", engine=False) as client:
        made = await client.ok("create_automation", definition=COMMAND)
        assert made["automation"]["status"] == "paused"   # (not named in the setting)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10)


@pytest.mark.catalogue_free
@settings(max_examples=200, deadline=None)
@given(arguments=st.one_of(JSON, st.dictionaries(
    st.sampled_from(["id", "changes", "expected_revision", "status", "offset", "limit",
                     "phrase", "definition", "extra"]), JSON, max_size=4)))
def test_any_arguments_get_an_answer_naming_the_field_or_none(arguments: Any) -> None:
    from errands.mcp.server import argument_problem
    schema = {"type": "object", "properties": {
        "id": {"type": "string"}, "changes": {"type": "object"},
        "expected_revision": {"type": "integer"},
        "status": {"anyOf": [{"enum": ["active", "paused"]}, {"type": "null"}]},
        "offset": {"type": "integer"}}, "required": ["id", "expected_revision"]}
    problem = argument_problem(schema, arguments)
    if problem is not None:
        assert problem.split(":")[0] in ("arguments", "id", "changes", "expected_revision",
                                         "status", "offset"), problem


async def test_a_proposed_script_is_compiled_and_waits_paused(tmp_path: Path,
                                                              model: ScriptedServer) -> None:
    async with connect(tmp_path, model) as client:
        text = await client.refused("create_automation", definition={
            "title": "Bad", "trigger": {"kind": "manual"},
            "runner": {"kind": "script", "source": "export default function () {\n  1 +;\n}"}})
        assert text.startswith("runner.source: line 2:")
        made = await client.ok("create_automation", definition={
            "title": "Notes", "trigger": {"kind": "manual"}, "workdir": str(tmp_path),
            "runner": {"kind": "script", "source":
                       "export default function ({ actions }) { actions.writeFile('n.txt', 'x') }"}})
        assert made["automation"]["status"] == "paused"
        trial = await client.ok("run_now", id=made["automation"]["id"], dry_run=True)
        assert trial["actions"][0]["would_apply"] is True and not (tmp_path / "n.txt").exists()
