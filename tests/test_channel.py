"""The control channel over real sockets: privacy, errors re-raised as themselves, tokens."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from errands.channel import EngineUnreachable
from errands.engine.control import ControlServer, request
from errands.errors import Conflict, InvalidInput, NotFound

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough


async def handler(op: str, args: dict[str, Any]) -> Any:
    if op == "echo":
        return args
    if op == "invalid":
        raise InvalidInput("trigger.every", "not a duration", "a duration", "15m")
    if op == "missing":
        raise NotFound("no automation with id 'x'")
    if op == "busy":
        raise Conflict("busy", "a run is in progress")
    raise RuntimeError("a bug")


@pytest.mark.logs("control operation 'crash' failed")
@pytest.mark.parametrize("transport", ["unix", "tcp"])
async def test_round_trips_and_errors(tmp_path: Path, transport: str) -> None:
    server = ControlServer(tmp_path, handler, transport=transport)  # type: ignore[arg-type]
    address = await server.start()
    try:
        if transport == "unix":
            assert stat.S_IMODE((tmp_path / "control.sock").stat().st_mode) == 0o600
        else:
            assert stat.S_IMODE((tmp_path / "control.token").stat().st_mode) == 0o600
        assert await request(address, "echo", {"a": [1, "ü"]}, data_dir=tmp_path) == {"a": [1, "ü"]}
        with pytest.raises(InvalidInput) as info:
            await request(address, "invalid", data_dir=tmp_path)
        assert (info.value.field, info.value.example) == ("trigger.every", "15m")
        with pytest.raises(NotFound):
            await request(address, "missing", data_dir=tmp_path)
        with pytest.raises(Conflict) as conflict:
            await request(address, "busy", data_dir=tmp_path)
        assert conflict.value.code == "busy" and conflict.value.exit_code == 4
        with pytest.raises(Exception) as bug:
            await request(address, "crash", data_dir=tmp_path)
        assert "a bug" in str(bug.value)
        assert await request(address, "echo", {"still": "serving"}, data_dir=tmp_path)
    finally:
        await server.close()
    with pytest.raises(EngineUnreachable):
        await request(address, "echo", data_dir=tmp_path)


async def test_tcp_refuses_a_wrong_token(tmp_path: Path) -> None:
    server = ControlServer(tmp_path, handler, transport="tcp")
    address = await server.start()
    try:
        host, _, port = address[4:].rpartition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(json.dumps({"id": 1, "op": "echo", "args": {}, "token": "guess"}).encode() + b"\n")
        reply = json.loads(await reader.readline())
        assert reply["ok"] is False and reply["error"]["code"] == "unauthorized"
        writer.write(b"this is not json\n")
        reply = json.loads(await reader.readline())
        assert reply["error"]["code"] == "invalid_input"
        writer.close()
    finally:
        await server.close()


async def test_a_stale_socket_is_replaced_and_a_live_one_refused(tmp_path: Path) -> None:
    (tmp_path / "control.sock").write_text("left by a crash")
    first = ControlServer(tmp_path, handler, transport="unix")
    await first.start()
    try:
        with pytest.raises(Conflict):
            await ControlServer(tmp_path, handler, transport="unix").start()
    finally:
        await first.close()
    assert not (tmp_path / "control.sock").exists()
