"""Every operation's arguments are checked at the channel boundary: a wrong type is refused
as invalid_input naming the argument, a malformed line as invalid_input naming the request,
and nothing a client sends is answered ``internal`` or logs a traceback."""

from __future__ import annotations

import json

from typing import Any

import pytest

from errands.engine.control import request
from errands.engine.operations import OPERATIONS
from errands.engine.service import EngineHost

from channel_support import host, no_error_logs  # noqa: F401  (fixtures)
from errands.errors import InvalidInput
from errands.store import Store
from errands.db.location import database_location

DOC = {"title": "manual", "runner": {"kind": "command", "command": "true"},
       "trigger": {"kind": "manual"}}


async def ask(host: EngineHost, op: str, args: dict[str, Any]) -> Any:
    assert host.server is not None and host.server.address
    return await request(host.server.address, op, args, data_dir=host.data_dir)


async def raw_line(host: EngineHost, line: bytes) -> dict[str, Any]:
    assert host.server is not None
    return json.loads(await host.server._answer(line))


HUGE = 2 ** 70

WRONG = [  # op, args, the field named
    ("pause", {"id": [1]}, "id"),
    ("pause", {"id": {"a": 1}}, "id"),
    ("pause", {"id": HUGE}, "id"),
    ("resume", {"id": ""}, "id"),
    ("delete", {"id": "x" * 65}, "id"),
    ("stop", {"id": True}, "id"),
    ("create", {"doc": [1]}, "doc"),
    ("create", {"doc": "a document"}, "doc"),
    ("create", {"doc": DOC, "request_id": [1]}, "request_id"),
    ("create", {"doc": DOC, "request_id": "r" * 201}, "request_id"),
    ("create", {"doc": DOC, "actor": 7}, "actor"),
    ("create", {"doc": DOC, "actor": "engine"}, "actor"),
    ("create", {"doc": DOC, "actor": "cli"}, "actor"),
    ("revise", {"id": "x", "doc": 3}, "doc"),
    ("run_now", {"id": "x", "wait": "yes"}, "wait"),
    ("run_now", {"id": "x", "dry_run": 1}, "dry_run"),
    ("run_now", {"id": "x", "request_id": HUGE}, "request_id"),
    ("attention_read", {"item": "x"}, "item"),
    ("attention_read", {"item": HUGE}, "item"),
    ("attention_read", {"item": 0}, "item"),
    ("attention_read", {"item": True}, "item"),
    ("set_setting", {"key": [1], "value": "4"}, "key"),
    ("set_setting", {"key": "concurrency", "value": 5}, "value"),
    ("set_setting", {"value": "4"}, "key"),
    ("pause", {}, "id"),
    ("decide_many", {"runs": [], "decision": "approve_once"}, "runs"),
    ("decide_many", {"runs": "abc", "decision": "approve_once"}, "runs"),
    ("decide_many", {"runs": [7], "decision": "approve_once"}, "runs"),
    ("decide_many", {"runs": ["r"] * 1001, "decision": "approve_once"}, "runs"),
    ("decide_many", {"runs": ["r"], "decision": "maybe"}, "decision"),
    ("decide_many", {"runs": ["r"], "decision": "approve_once", "request_id": "x"},
     "request_id"),
    ("ping", {"bogus": 1}, "bogus"),
    ("pause", {"id": "x", "wait": True}, "wait"),
]


@pytest.mark.parametrize(("op", "args", "field"), WRONG)
async def test_a_wrong_argument_is_refused_naming_it(host: EngineHost, op: str,
                                                    args: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        await ask(host, op, args)
    error = refused.value
    assert error.code == "invalid_input" and error.field == field
    assert error.expected and error.example
    assert len(str(error)) < 400  # a huge value is described, not echoed


async def test_every_operation_declares_its_arguments(host: EngineHost) -> None:
    for name, operation in OPERATIONS.items():
        for arg, spec in operation.args.items():
            assert spec.shape.expected and spec.shape.example, (name, arg)
    with pytest.raises(InvalidInput) as unknown:
        await ask(host, "status", {})
    assert unknown.value.field == "op" and "ping" in (unknown.value.expected or "")


async def test_right_arguments_still_work_and_null_means_the_default(host: EngineHost) -> None:
    created = await ask(host, "create", {"doc": DOC, "request_id": None, "actor": None})
    ident = created["automation"]["id"]
    assert (await ask(host, "pause", {"id": ident, "actor": "agent"}))["status"] == "paused"
    run = await ask(host, "run_now", {"id": ident, "wait": True, "dry_run": None})
    assert run["state"] == "succeeded"
    answer = await ask(host, "attention_read", {"item": None})
    assert answer["marked"] == 0 and set(answer["stamp"]) == {"epoch", "revision"}
    assert (await ask(host, "set_setting", {"key": "concurrency", "value": "3"}))["value"] == "3"
    assert (await ask(host, "set_setting", {"key": "concurrency", "value": None}))["value"] == "4"
    with pytest.raises(InvalidInput) as unknown_key:  # the setting's own check, same field
        await ask(host, "set_setting", {"key": "bogus", "value": "1"})
    assert unknown_key.value.field == "key"


async def test_the_audit_trail_uses_one_actor_vocabulary(host: EngineHost) -> None:
    created = await ask(host, "create", {"doc": DOC})
    ident = created["automation"]["id"]
    await ask(host, "pause", {"id": ident, "actor": "agent"})
    await ask(host, "resume", {"id": ident})
    await ask(host, "run_now", {"id": ident, "wait": True, "actor": "agent"})
    trail = Store(database_location(host.data_dir)).audit(ident)
    assert [(e.action, e.actor) for e in trail] == [
        ("created", "user"), ("paused", "agent"), ("resumed", "user"),
        ("run_requested", "agent")]


MALFORMED = [
    b"this is not json",
    b"\xff\xfe{}",
    b'{"id": 1, "op": "ping", "args": {"x": "\xc3"}}',
    b'{"id": 1, "op": "ping", "args": {"x": "\\ud800"}}',
    b'{"id": 1, "op": "pause", "args": {"id": "\\udfff"}}',
    b'{"id": 1, "op": "ping", "args": {"\\ud800": 1}}',
    b"[" * 100_000,
    b"[" * 40 + b"]" * 40,
    b'{"id": 1, "op": "ping", "args": {"n": ' + b"9" * 5000 + b"}}",
    b'{"id": 1, "op": "ping", "args": {"n": 1e999}}',
    b'{"id": 1, "op": "ping", "args": {"n": NaN}}',
    b'{"id": 1, "op": "ping", "op": "delete"}',
    b"[1, 2]",
    b'"ping"',
    b"17",
    b"null",
]


@pytest.mark.parametrize("line", MALFORMED, ids=lambda line: repr(line[:30]))
async def test_a_malformed_line_is_invalid_input(host: EngineHost, line: bytes) -> None:
    reply = await raw_line(host, line)
    assert reply["ok"] is False and reply["id"] is None
    error = reply["error"]
    assert (error["code"], error["kind"], error["field"]) == ("invalid_input", "InvalidInput",
                                                              "request")
    assert error["expected"] and error["example"] and len(error["message"]) < 300


@pytest.mark.parametrize(("line", "field"), [
    (b'{"id": 1, "op": 5}', "op"),
    (b'{"id": 1, "op": ["ping"]}', "op"),
    (b'{"id": 1, "op": ""}', "op"),
    (b'{"id": "one", "op": "ping"}', "id"),
    (b'{"id": 1, "op": "ping", "args": [1]}', "args"),
    (b'{"id": 1, "op": "ping", "token": 7}', "token"),
    (b'{"id": 1, "op": "ping", "more": 1}', "more"),
])
async def test_a_malformed_envelope_names_its_field(host: EngineHost, line: bytes,
                                                    field: str) -> None:
    reply = await raw_line(host, line)
    assert reply["error"]["code"] == "invalid_input" and reply["error"]["field"] == field


async def test_one_connection_survives_every_malformed_line(host: EngineHost) -> None:
    import asyncio

    assert host.server is not None and host.server.address
    address = host.server.address
    if address.startswith("unix:"):
        reader, writer = await asyncio.open_unix_connection(address[5:])
    else:
        host_name, _, port = address[4:].rpartition(":")
        reader, writer = await asyncio.open_connection(host_name, int(port))
    token = (host.data_dir / "control.token").read_text().strip() \
        if address.startswith("tcp:") else None
    try:
        for n, line in enumerate(MALFORMED):
            writer.write(line + b"\n")
            ping = {"id": n, "op": "ping", "args": {}, "token": token}
            writer.write(json.dumps(ping).encode() + b"\n")
            await writer.drain()
            refused = json.loads(await asyncio.wait_for(reader.readline(), 10))
            assert refused["error"]["code"] == "invalid_input"
            answered = json.loads(await asyncio.wait_for(reader.readline(), 10))
            assert answered["id"] == n and answered["ok"] is True
    finally:
        writer.close()
