"""The local control channel: how a CLI (or a second app window) talks to the running engine.

Newline-delimited JSON over a stream private to the user: a Unix socket with mode 0600,
or, where Unix sockets are unavailable (Windows) or the path is too long (macOS), a
loopback TCP port whose every request must carry the token kept in a 0600 file.

Request ``{"id", "op", "args", "token"}``; reply ``{"id", "ok": true, "result"}`` or
``{"id", "ok": false, "error": {code, field, message, expected, example, kind}}``. The
client re-raises the same error class, so a command behaves exactly as if run locally.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import secrets
import socket
from pathlib import Path
from typing import Any, Awaitable, Callable, Literal

from ..errors import Conflict, ErrandsError, InvalidInput, NotFound, StoreError

log = logging.getLogger(__name__)

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
MAX_LINE = 4 * 1024 * 1024
SOCKET_NAME = "control.sock"
TOKEN_NAME = "control.token"
_UNIX_PATH_LIMIT = 100
_REQUEST_FIELDS = {"id", "op", "args", "token"}


class EngineUnreachable(ConnectionError):
    """Nobody answers at the address: the engine stopped, or is just starting."""


def _error_doc(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, ErrandsError):
        doc = exc.to_dict()
    else:
        doc = {"code": "internal", "field": None, "message": f"{type(exc).__name__}: {exc}",
               "expected": None, "example": None}
    doc["kind"] = type(exc).__name__ if isinstance(exc, ErrandsError) else "ErrandsError"
    return doc


def _raise_from(doc: dict[str, Any]) -> None:
    kind, code, message = doc.get("kind"), doc.get("code") or "internal", doc.get("message") or ""
    if kind == "InvalidInput":
        raise InvalidInput(doc.get("field") or "", message, doc.get("expected"),
                           doc.get("example"), code)
    if kind == "NotFound":
        raise NotFound(message)
    if kind == "Conflict":
        raise Conflict(code, message)
    if kind == "StoreError":
        raise StoreError(code, message)
    err = ErrandsError(message)
    err.code = code
    raise err


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o600)


class ControlServer:
    def __init__(self, data_dir: Path, handler: Handler, *,
                 transport: Literal["auto", "unix", "tcp"] = "auto") -> None:
        self.data_dir = data_dir
        self.handler = handler
        self.transport = transport
        self.address: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._token: str | None = None
        self._connections: set[asyncio.Task[None]] = set()

    def _use_unix(self) -> bool:
        if self.transport == "tcp" or not hasattr(socket, "AF_UNIX"):
            return False
        return self.transport == "unix" or len(str(self.data_dir / SOCKET_NAME)) < _UNIX_PATH_LIMIT

    async def start(self) -> str:
        if self._use_unix():
            path = self.data_dir / SOCKET_NAME
            if path.exists():
                if await _answers(f"unix:{path}"):
                    raise Conflict("engine_running", f"an engine already listens on {path}")
                path.unlink()
            old = os.umask(0o177)
            try:
                self._server = await asyncio.start_unix_server(self._serve, path=str(path),
                                                               limit=MAX_LINE)
            finally:
                os.umask(old)
            os.chmod(path, 0o600)
            self.address = f"unix:{path}"
        else:
            self._token = secrets.token_urlsafe(32)
            _write_private(self.data_dir / TOKEN_NAME, self._token)
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_LINE)
            port = self._server.sockets[0].getsockname()[1]
            self.address = f"tcp:127.0.0.1:{port}"
        return self.address

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self.address and self.address.startswith("unix:"):
            with contextlib.suppress(FileNotFoundError):
                Path(self.address[5:]).unlink()
        if self._token is not None:
            with contextlib.suppress(FileNotFoundError):
                (self.data_dir / TOKEN_NAME).unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    await _send(writer, {"id": None, "ok": False, "error": _error_doc(
                        InvalidInput("request", "request larger than 4 MiB", "a smaller request",
                                     "{}", "invalid_request"))})
                    break
                if not line:
                    break
                await _send(writer, await self._answer(line))
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        request_id = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or not isinstance(request.get("op"), str) \
                    or set(request) - _REQUEST_FIELDS or not isinstance(request.get("args", {}), dict):
                raise ValueError("not a request object")
            request_id = request.get("id")
        except ValueError as exc:
            return {"id": request_id, "ok": False, "error": _error_doc(InvalidInput(
                "request", f"malformed request: {exc}", '{"id", "op", "args", "token"}',
                '{"id": 1, "op": "ping", "args": {}}', "invalid_request"))}
        if self._token is not None and not hmac.compare_digest(
                str(request.get("token") or ""), self._token):
            return {"id": request_id, "ok": False,
                    "error": _error_doc(Conflict("unauthorized", "wrong or missing token"))}
        try:
            result = await self.handler(request["op"], request.get("args") or {})
            return {"id": request_id, "ok": True, "result": result}
        except ErrandsError as exc:
            return {"id": request_id, "ok": False, "error": _error_doc(exc)}
        except Exception as exc:  # keep serving whatever one operation does
            log.exception("control operation %s failed", request.get("op"))
            return {"id": request_id, "ok": False, "error": _error_doc(exc)}


async def _send(writer: asyncio.StreamWriter, doc: dict[str, Any]) -> None:
    writer.write(json.dumps(doc).encode() + b"\n")
    await writer.drain()


async def _open(address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if address.startswith("unix:"):
        return await asyncio.open_unix_connection(address[5:], limit=MAX_LINE)
    if address.startswith("tcp:"):
        host, _, port = address[4:].rpartition(":")
        return await asyncio.open_connection(host, int(port), limit=MAX_LINE)
    raise EngineUnreachable(f"not a control address: {address!r}")


async def _answers(address: str) -> bool:
    try:
        _, writer = await asyncio.wait_for(_open(address), 2)
    except (OSError, asyncio.TimeoutError):
        return False
    writer.close()
    return True


async def request(address: str, op: str, args: dict[str, Any] | None = None, *,
                  timeout: float | None = 30.0, data_dir: Path | None = None) -> Any:
    token = None
    if address.startswith("tcp:"):
        if data_dir is None:
            raise EngineUnreachable("a tcp control address needs the data folder for its token")
        try:
            token = (data_dir / TOKEN_NAME).read_text().strip()
        except OSError as exc:
            raise EngineUnreachable(f"cannot read the control token: {exc}") from exc
    try:
        reader, writer = await asyncio.wait_for(_open(address), 5)
    except (OSError, asyncio.TimeoutError) as exc:
        raise EngineUnreachable(f"the engine at {address} does not answer ({exc})") from exc
    try:
        await _send(writer, {"id": 1, "op": op, "args": args or {}, "token": token})
        line = await asyncio.wait_for(reader.readline(), timeout)
    except asyncio.TimeoutError as exc:
        raise EngineUnreachable(f"the engine did not answer {op!r} within {timeout:g} s") from exc
    except OSError as exc:
        raise EngineUnreachable(f"the connection to the engine broke ({exc})") from exc
    finally:
        writer.close()
    if not line:
        raise EngineUnreachable("the engine closed the connection without answering")
    reply = json.loads(line)
    if not reply.get("ok"):
        _raise_from(reply.get("error") or {})
    return reply.get("result")


def request_sync(address: str, op: str, args: dict[str, Any] | None = None, *,
                 timeout: float | None = 30.0, data_dir: Path | None = None) -> Any:
    return asyncio.run(request(address, op, args, timeout=timeout, data_dir=data_dir))
