"""The control channel over real sockets, and the data-directory lock across processes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import errands
from errands.engine import lock as lockmod
from errands.channel import MAX_REQUEST_BYTES, EngineUnreachable, encode, request_sync
from errands.engine.control import ControlServer, connect, request, unix_path_fits
from errands.engine.lock import DataDirLock, Owner, engine_refusal, read_owner
from errands.errors import Conflict, ErrandsError, InvalidInput, NotFound, StoreError

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

UNIX = sys.platform != "win32" and hasattr(socket, "AF_UNIX")
needs_unix = pytest.mark.skipif(not UNIX, reason="Unix sockets only")


# What a busy machine (two cores, other suites running) may add to any wait. Upper bounds
# on elapsed time are the time the behaviour needs plus this: they still catch a wait that
# never ends or ignores its timeout, without failing when the scheduler is slow.
LOAD_MARGIN = 5.0


class Gate:
    """Holds a ``hold`` operation until the test opens it: an operation that is slow for
    exactly as long as the test needs, whatever the machine's speed."""

    gates: dict[str, "Gate"] = {}

    def __init__(self, name: str) -> None:
        self.entered = asyncio.Event()  # the handler is answering
        self.opened = asyncio.Event()
        Gate.gates[name] = self


async def handler(op: str, args: dict[str, Any]) -> Any:
    if op == "echo":
        return args
    if op == "hold":
        gate = Gate.gates[args["gate"]]
        gate.entered.set()
        await gate.opened.wait()
        return "released"
    if op == "invalid":
        raise InvalidInput("trigger.every", "not a duration: '15'", "a duration", "15m",
                           code="bad_duration")
    if op == "missing":
        raise NotFound("no automation with id 'x'")
    if op == "busy":
        raise Conflict("busy", "a run is in progress")
    if op == "corrupt":
        raise StoreError("corrupt", "the database is damaged")
    if op == "unjson":
        return {"when": object()}
    raise RuntimeError(f"a bug in {op}")


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """A data folder whose socket path fits AF_UNIX everywhere (macOS temp paths are long)."""
    if unix_path_fits(tmp_path / "control.sock") or not UNIX:
        yield tmp_path
        return
    short = Path(tempfile.mkdtemp(prefix="erc", dir="/tmp"))
    try:
        yield short
    finally:
        shutil.rmtree(short, ignore_errors=True)


@pytest.fixture
async def unix_server(data_dir: Path) -> AsyncIterator[ControlServer]:
    if not UNIX:
        pytest.skip("Unix sockets only")
    server = ControlServer(data_dir, handler, transport="unix")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def raw(address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if address.startswith("unix:"):
        return await asyncio.open_unix_connection(address[5:])
    host, _, port = address[4:].rpartition(":")
    return await asyncio.open_connection(host, int(port))


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   line: bytes) -> dict[str, Any]:
    writer.write(line)
    await writer.drain()
    return json.loads(await asyncio.wait_for(reader.readline(), 30))  # a guard against a hang


async def close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    await writer.wait_closed()


# ---------------------------------------------------------------- unix transport

@needs_unix
async def test_unix_socket_is_private_and_round_trips(unix_server: ControlServer,
                                                      data_dir: Path) -> None:
    path = data_dir / "control.sock"
    assert unix_server.address == f"unix:{path}"
    assert stat.S_ISSOCK(path.stat().st_mode)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    args = {"text": "ü ✓", "n": [1, 2.5, None, True], "nested": {"a": {}}}
    assert await request(unix_server.address, "echo", args) == args
    assert await request(unix_server.address, "echo") == {}


@needs_unix
async def test_errors_come_back_as_the_same_class(unix_server: ControlServer) -> None:
    address = unix_server.address
    assert address
    with pytest.raises(InvalidInput) as invalid:
        await request(address, "invalid")
    err = invalid.value
    assert (err.field, err.expected, err.example, err.code) == (
        "trigger.every", "a duration", "15m", "bad_duration")
    assert err.exit_code == 2 and "not a duration" in str(err)
    with pytest.raises(NotFound) as missing:
        await request(address, "missing")
    assert missing.value.code == "not_found" and missing.value.exit_code == 3
    assert str(missing.value) == "no automation with id 'x'"
    with pytest.raises(Conflict) as busy:
        await request(address, "busy")
    assert busy.value.code == "busy" and busy.value.exit_code == 4
    with pytest.raises(StoreError) as corrupt:
        await request(address, "corrupt")
    assert corrupt.value.code == "corrupt"


@needs_unix
@pytest.mark.logs("control operation 'explode' failed", "'unjson' returned a result that is not JSON")
async def test_an_unexpected_exception_does_not_stop_the_server(
        unix_server: ControlServer) -> None:
    address = unix_server.address
    assert address
    with pytest.raises(ErrandsError) as bug:
        await request(address, "explode")
    assert type(bug.value) is ErrandsError
    assert bug.value.code == "internal" and "a bug in explode" in str(bug.value)
    with pytest.raises(ErrandsError) as unjson:
        await request(address, "unjson")
    assert unjson.value.code == "internal" and "JSON" in str(unjson.value)
    assert await request(address, "echo", {"still": "serving"}) == {"still": "serving"}


@needs_unix
async def test_several_requests_and_malformed_lines_on_one_connection(
        unix_server: ControlServer) -> None:
    assert unix_server.address
    reader, writer = await raw(unix_server.address)
    try:
        reply = await exchange(reader, writer, b'{"id": 1, "op": "echo", "args": {"a": 1}}\n')
        assert reply == {"id": 1, "ok": True, "result": {"a": 1}}
        reply = await exchange(reader, writer, b"this is not json\n")
        assert reply["id"] is None and reply["ok"] is False
        assert reply["error"]["code"] == "invalid_input"
        assert reply["error"]["kind"] == "InvalidInput"
        reply = await exchange(reader, writer, b'{"id": 2, "op": "echo", "bogus": 1}\n')
        assert reply["id"] == 2 and reply["error"]["code"] == "invalid_input"
        assert reply["error"]["field"] == "bogus"
        reply = await exchange(reader, writer, b'{"id": 3, "op": "echo", "args": [1]}\n')
        assert reply["error"]["field"] == "args"
        reply = await exchange(reader, writer, b'{"id": 4, "args": {}}\n')
        assert reply["error"]["field"] == "op"
        reply = await exchange(reader, writer, b"[1, 2]\n")
        assert reply["error"]["code"] == "invalid_input"
        reply = await exchange(reader, writer, b'\n{"id": 5, "op": "missing"}\n')  # blank skipped
        assert reply["id"] == 5 and reply["error"]["kind"] == "NotFound"
        for n in range(6, 9):
            line = json.dumps({"id": n, "op": "echo", "args": {"n": n}}).encode() + b"\n"
            assert (await exchange(reader, writer, line))["result"] == {"n": n}
    finally:
        await close(writer)


@needs_unix
async def test_an_oversized_request_is_refused_and_the_connection_survives(
        unix_server: ControlServer) -> None:
    assert unix_server.address
    reader, writer = await raw(unix_server.address)
    try:
        big = b'{"id": 1, "op": "echo", "args": {"x": "' + b"a" * MAX_REQUEST_BYTES + b'"}}\n'
        reply = await exchange(reader, writer, big)
        assert reply["ok"] is False and reply["error"]["code"] == "request_too_large"
        reply = await exchange(reader, writer, b'{"id": 2, "op": "echo", "args": {"ok": 1}}\n')
        assert reply == {"id": 2, "ok": True, "result": {"ok": 1}}
    finally:
        await close(writer)
    with pytest.raises(InvalidInput) as refused:  # the client refuses before sending
        await request(unix_server.address, "echo", {"x": "a" * MAX_REQUEST_BYTES})
    assert refused.value.field == "args"


@needs_unix
async def test_a_slow_operation_times_out_and_blocks_nobody(unix_server: ControlServer) -> None:
    address = unix_server.address
    assert address
    slow, stuck = Gate("slow"), Gate("stuck")
    held = asyncio.ensure_future(request(address, "hold", {"gate": "slow"}))
    await asyncio.wait_for(slow.entered.wait(), 30)  # the slow one is being answered ...
    assert await request(address, "echo", {"quick": 1}) == {"quick": 1}  # ... others too
    assert not held.done()  # it cannot be: its gate is still closed
    slow.opened.set()
    assert await held == "released"
    with pytest.raises(EngineUnreachable) as late:
        await request(address, "hold", {"gate": "stuck"}, timeout=0.2)
    assert late.value.reason == "timeout" and "0.2" in str(late.value)
    stuck.opened.set()  # its answer finds the client gone: nothing to wait for at close
    assert await request(address, "echo", {"after": 1}) == {"after": 1}


@needs_unix
async def test_request_sync_from_a_thread(unix_server: ControlServer) -> None:
    address = unix_server.address
    assert address
    assert await asyncio.to_thread(request_sync, address, "echo", {"t": 1}) == {"t": 1}
    with pytest.raises(Conflict):
        await asyncio.to_thread(request_sync, address, "busy")


@needs_unix
async def test_a_stale_socket_file_is_removed_on_start(data_dir: Path) -> None:
    path = data_dir / "control.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # bound and closed without unlinking: what a crash leaves
    dead.close()
    assert path.exists()
    server = ControlServer(data_dir, handler)
    address = await server.start()
    try:
        assert address == f"unix:{path}"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert await request(address, "echo", {"fresh": 1}) == {"fresh": 1}
    finally:
        await server.close()
    assert not path.exists()


@needs_unix
async def test_a_second_server_on_the_same_folder_is_refused(
        unix_server: ControlServer, data_dir: Path) -> None:
    with pytest.raises(Conflict) as refused:
        await ControlServer(data_dir, handler, transport="unix").start()
    assert refused.value.code == "engine_running"
    assert unix_server.address  # the first one still serves, its socket untouched
    assert await request(unix_server.address, "echo", {"first": 1}) == {"first": 1}


@needs_unix
async def test_close_ends_open_connections_and_then_nobody_answers(data_dir: Path) -> None:
    server = ControlServer(data_dir, handler, transport="unix")
    address = await server.start()
    reader, writer = await raw(address)
    gate = Gate("never")  # never opened: the request is still being answered at close
    pending = asyncio.ensure_future(request(address, "hold", {"gate": "never"}))
    await asyncio.wait_for(gate.entered.wait(), 30)
    await server.close()
    assert await asyncio.wait_for(reader.read(), LOAD_MARGIN) == b""
    await close(writer)
    with pytest.raises(EngineUnreachable) as cut:
        await pending
    assert cut.value.reason == "closed"
    with pytest.raises(EngineUnreachable) as gone:
        await request(address, "echo")
    assert gone.value.reason == "refused"
    with pytest.raises(EngineUnreachable):
        await asyncio.to_thread(request_sync, address, "echo")


@needs_unix
async def test_a_request_sent_as_the_server_closes_is_answered_not_dropped(
        data_dir: Path) -> None:
    """A request written to an open connection just before the server closes is read and
    answered (the engine's host refuses it as ``engine_stopping``, which a client may
    repeat), never dropped unread: dropped, the client could not know whether it acted."""
    server = ControlServer(data_dir, handler, transport="unix")
    address = await server.start()
    reader, writer = await raw(address)
    await asyncio.sleep(0.05)   # (the connection is accepted and waits for a request)
    writer.write(encode({"id": 1, "op": "echo", "args": {"late": True}, "token": None}))
    await writer.drain()
    await server.close()        # in the same turn: the request is not read yet
    answer = json.loads(await asyncio.wait_for(reader.readline(), LOAD_MARGIN))
    assert answer["ok"] is True and answer["result"] == {"late": True}
    await close(writer)


@needs_unix
async def test_a_too_long_socket_path_uses_a_private_short_one(tmp_path: Path) -> None:
    """Not tcp: a port is open to every program of the user, confined commands included,
    and the token file is readable to them; a Unix socket is closed to them."""
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    server = ControlServer(deep, handler)
    address = await server.start()
    try:
        assert address.startswith("unix:") and not (deep / "control.sock").exists()
        folder = Path(address[len("unix:"):]).parent
        assert folder.name.startswith(f"errands-{os.getuid()}-")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert await request(address, "echo", {"x": 1}, data_dir=deep) == {"x": 1}
    finally:
        await server.close()
    assert not Path(address[len("unix:"):]).exists()


# ---------------------------------------------------------------- tcp transport

async def test_tcp_with_a_private_token(tmp_path: Path) -> None:
    server = ControlServer(tmp_path, handler, transport="tcp")
    address = await server.start()
    token_file = tmp_path / "control.token"
    try:
        assert address.startswith("tcp:127.0.0.1:") and int(address.rsplit(":", 1)[1]) > 0
        if sys.platform != "win32":
            assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 40
        assert await request(address, "echo", {"a": 1}, data_dir=tmp_path) == {"a": 1}
        with pytest.raises(NotFound):
            await request(address, "missing", data_dir=tmp_path)
        with pytest.raises(ValueError):
            await request(address, "echo")  # tcp needs the folder holding the token

        reader, writer = await raw(address)
        try:
            for wrong in ({"token": "guess"}, {"token": None}, {}, {"token": 7},
                          {"token": token[:-1] + "ü"}):
                line = json.dumps({"id": 1, "op": "echo", "args": {}, **wrong}).encode() + b"\n"
                reply = await exchange(reader, writer, line)
                assert reply["ok"] is False and reply["error"]["code"] == "unauthorized"
            line = json.dumps({"id": 2, "op": "echo", "args": {"b": 2}, "token": token})
            reply = await exchange(reader, writer, line.encode() + b"\n")
            assert reply == {"id": 2, "ok": True, "result": {"b": 2}}
        finally:
            await close(writer)

        token_file.write_text("stale-token\n")  # a token from an earlier engine
        with pytest.raises(ErrandsError) as refused:
            await request(address, "echo", data_dir=tmp_path)
        assert refused.value.code == "unauthorized"
        token_file.write_text(token)
    finally:
        await server.close()
    assert not token_file.exists()
    with pytest.raises(EngineUnreachable):
        await request(address, "echo", data_dir=tmp_path)
    with pytest.raises(EngineUnreachable):  # a token left behind, nobody on the port
        token_file.write_text(token)
        await request(address, "echo", data_dir=tmp_path)


async def test_a_connection_carries_several_requests(tmp_path: Path) -> None:
    server = ControlServer(tmp_path, handler, transport="tcp")
    address = await server.start()
    try:
        async with await connect(address, data_dir=tmp_path) as connection:
            assert await connection.call("echo", {"n": 1}) == {"n": 1}
            with pytest.raises(Conflict):
                await connection.call("busy")
            assert await connection.call("echo", {"n": 2}) == {"n": 2}
    finally:
        await server.close()


async def test_nothing_listening_is_unreachable(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "control.token").write_text("t")
    with pytest.raises(EngineUnreachable) as refused:
        await request(f"tcp:127.0.0.1:{port}", "echo", data_dir=tmp_path)
    assert isinstance(refused.value, ConnectionError) and refused.value.reason == "refused"
    if UNIX:
        with pytest.raises(EngineUnreachable):
            await request(f"unix:{tmp_path / 'nothing.sock'}", "echo")
    with pytest.raises(InvalidInput):
        await request("carrier-pigeon:1", "echo")


# ---------------------------------------------------------------- the lock

def test_two_locks_in_one_process_conflict(tmp_path: Path) -> None:
    first = DataDirLock(tmp_path, "engine")
    second = DataDirLock(tmp_path, "cli")
    assert read_owner(tmp_path) is None
    assert first.try_acquire()
    try:
        assert first.held and not second.try_acquire()
        owner = read_owner(tmp_path)
        assert owner is not None
        assert (owner.pid, owner.role, owner.address) == (os.getpid(), "engine", None)
        assert owner.since.endswith("Z") and owner == first.owner
        first.set_address("unix:/somewhere/control.sock")
        again = read_owner(tmp_path)
        assert again is not None and again.address == "unix:/somewhere/control.sock"
        assert again.since == owner.since
        with pytest.raises(ValueError):
            second.set_address("tcp:127.0.0.1:1")  # a CLI publishes no address
    finally:
        first.release()
    assert read_owner(tmp_path) is None
    assert not (tmp_path / "errands.owner.json").exists()
    with second:
        assert second.held and not first.try_acquire()
        owner = read_owner(tmp_path)
        assert owner is not None and owner.role == "cli"
    assert not second.held and read_owner(tmp_path) is None


def test_acquire_waits_then_names_the_holder(tmp_path: Path) -> None:
    holder = DataDirLock(tmp_path, "cli")
    holder.acquire(1)
    try:
        waiter = DataDirLock(tmp_path, "engine")
        started = time.monotonic()
        with pytest.raises(Conflict) as refused:
            waiter.acquire(0.3)
        assert 0.25 <= time.monotonic() - started < 0.3 + LOAD_MARGIN  # waited, then gave up
        assert refused.value.code == "locked" and refused.value.exit_code == 4
        assert f"pid {os.getpid()}" in str(refused.value) and "cli" in str(refused.value)
    finally:
        holder.release()
    waiter.acquire(0.3)
    waiter.release()


def test_engine_refusal_names_the_engine(tmp_path: Path) -> None:
    owner = Owner(pid=4321, role="engine", since="2026-01-05T08:00:00Z", host="h",
                  address="unix:/x")
    refusal = engine_refusal(owner, tmp_path)
    assert refusal.code == "engine_running"
    assert "pid 4321" in str(refusal) and "2026-01-05T08:00:00Z" in str(refusal)
    assert str(tmp_path) in str(refusal)


def test_engine_refusal_names_the_app_when_the_app_hosts_it(tmp_path: Path) -> None:
    lock = DataDirLock(tmp_path, "engine", hosted_by="app")
    assert lock.try_acquire()
    try:
        owner = read_owner(tmp_path)
        assert owner is not None and owner.hosted_by == "app"
        refusal = engine_refusal(owner, tmp_path)
        assert refusal.code == "engine_running" and "the Errands app" in str(refusal)
        assert f"pid {os.getpid()}" in str(refusal) and "Quit" in str(refusal)
        assert owner.describe().startswith("the Errands app (pid")
    finally:
        lock.release()


def test_a_stale_owner_record_is_never_returned(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(gone.stdout)
    record = {"pid": dead_pid, "role": "engine", "since": "2026-01-01T00:00:00Z",
              "host": socket.gethostname(), "address": "unix:/gone"}
    (tmp_path / "errands.owner.json").write_text(json.dumps(record))
    (tmp_path / "errands.lock").touch()
    assert read_owner(tmp_path) is None  # lock free: the record is debris
    monkeypatch.setattr(lockmod, "IDENTIFY_WAIT", 0.1)
    holder = DataDirLock(tmp_path, "cli")
    assert holder.try_acquire()
    try:
        (tmp_path / "errands.owner.json").write_text(json.dumps(record))
        owner = read_owner(tmp_path)  # held, but the record names a dead process
        assert owner is not None and owner.pid == 0 and not owner.identified
    finally:
        holder.release()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_holder_leaves_the_folder_free(tmp_path: Path) -> None:
    source = str(Path(errands.__file__).resolve().parents[1])
    script = ("import sys, time; sys.path.insert(0, sys.argv[1])\n"
              "from pathlib import Path\n"
              "from errands.engine.lock import DataDirLock\n"
              "lock = DataDirLock(Path(sys.argv[2]), 'engine')\n"
              "lock.acquire(5, address='unix:/child')\n"
              "time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script, source, str(tmp_path)])
    try:
        deadline = time.monotonic() + 30  # a Python start and an import, on a busy machine
        while True:
            owner = read_owner(tmp_path)
            if owner is not None and owner.pid == child.pid:
                break
            assert child.poll() is None, "the child died before taking the lock"
            assert time.monotonic() < deadline, "the child never reported holding the lock"
            time.sleep(0.02)
        assert owner.role == "engine" and owner.address == "unix:/child"
        mine = DataDirLock(tmp_path, "cli")
        assert not mine.try_acquire()
        with pytest.raises(Conflict) as refused:
            mine.acquire(0.1)
        assert f"pid {child.pid}" in str(refused.value)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(5)
    assert (tmp_path / "errands.owner.json").exists()  # the record outlives its writer …
    assert read_owner(tmp_path) is None  # … but is not believed
    assert mine.try_acquire()
    try:
        owner = read_owner(tmp_path)
        assert owner is not None and owner.pid == os.getpid() and owner.role == "cli"
    finally:
        mine.release()
