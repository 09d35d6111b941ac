"""The control channel under load and misuse: a burst of clients, a stop with many
connected, half-open connections. Nothing here may log an error, asyncio's logger included."""

from __future__ import annotations

import asyncio
import json
import time

from pathlib import Path
from typing import Any

import pytest


from errands.channel import EngineUnreachable
from errands.engine import control
from errands.engine.control import ControlServer, request
from errands.engine.service import EngineHost

from channel_support import host, no_error_logs  # noqa: F401  (fixtures)


async def open_raw(address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if address.startswith("unix:"):
        return await asyncio.open_unix_connection(address[5:])
    host_name, _, port = address[4:].rpartition(":")
    return await asyncio.open_connection(host_name, int(port))


@pytest.mark.catalogue_free
@pytest.mark.parametrize("transport", ["unix", "tcp"])
async def test_three_hundred_clients_at_once_are_all_answered(tmp_path: Path,
                                                              transport: str) -> None:
    async def pong(op: str, args: dict[str, Any]) -> Any:
        return "pong"

    server = ControlServer(tmp_path, pong, transport=transport)  # type: ignore[arg-type]
    address = await server.start()
    try:
        replies = await asyncio.gather(*[request(address, "ping", data_dir=tmp_path, timeout=30)
                                         for _ in range(300)], return_exceptions=True)
    finally:
        await server.close()
    assert [r for r in replies if r != "pong"] == []


async def test_the_engine_answers_a_burst_of_clients(host: EngineHost) -> None:
    assert host.server is not None and host.server.address
    replies = await asyncio.gather(*[request(host.server.address, "ping", data_dir=host.data_dir,
                                             timeout=30) for _ in range(300)])
    assert {r["pid"] for r in replies} == {replies[0]["pid"]}


async def test_stopping_with_fifty_clients_connected_logs_nothing(tmp_path: Path) -> None:
    host = EngineHost(tmp_path / "d")
    await host.start()
    assert host.server is not None and host.server.address
    address = host.server.address
    created = await request(address, "create", {"doc": {
        "title": "long", "runner": {"kind": "command", "command": "sleep 30"},
        "trigger": {"kind": "manual"}}}, data_dir=host.data_dir)
    ident = created["automation"]["id"]
    idle = [await open_raw(address) for _ in range(45)]
    partial = [await open_raw(address) for _ in range(4)]
    for _, writer in partial:
        writer.write(b'{"id": 1, "op": "pi')  # half a request
    waiting = asyncio.ensure_future(request(address, "run_now", {"id": ident, "wait": True},
                                            data_dir=host.data_dir, timeout=None))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    await host.close()
    assert time.monotonic() - started < 10
    for reader, writer in idle + partial:
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()
    try:  # a request being answered as the engine stops hears how its run ended
        answer = await waiting
    except EngineUnreachable:
        pass
    else:
        assert answer["state"] == "interrupted"
    await asyncio.sleep(0.1)  # the loop reports a connection task that died only now


async def test_a_half_open_client_is_dropped_after_the_idle_timeout(
        host: EngineHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "IDLE_TIMEOUT", 0.3)
    assert host.server is not None and host.server.address
    silent_reader, silent = await open_raw(host.server.address)
    reader, writer = await open_raw(host.server.address)
    writer.write(b'{"id": 1, "op": "ping", "ar')  # never finished
    await writer.drain()
    started = time.monotonic()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert await asyncio.wait_for(silent_reader.read(), 5) == b""
    assert 0.2 < time.monotonic() - started < 3
    writer.close()
    silent.close()
    assert (await request(host.server.address, "ping", data_dir=host.data_dir))["pid"]


@pytest.mark.catalogue_free
async def test_a_client_that_never_reads_is_dropped(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "IDLE_TIMEOUT", 0.3)

    async def big(op: str, args: dict[str, Any]) -> Any:
        return "x" * 1_000_000

    server = ControlServer(tmp_path, big, transport="tcp")
    address = await server.start()
    try:
        token = (tmp_path / "control.token").read_text().strip()
        _, writer = await open_raw(address)
        line = json.dumps({"id": 1, "op": "big", "args": {}, "token": token}).encode() + b"\n"
        writer.write(line * 20)  # 20 MB of answers that nobody reads
        await writer.drain()
        deadline = time.monotonic() + 5
        while server._connections and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not server._connections
        writer.close()
        assert await request(address, "ping", data_dir=tmp_path) == "x" * 1_000_000
    finally:
        await server.close()
