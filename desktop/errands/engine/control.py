"""The control channel: how the CLI (and later the UI) asks the running engine to act.

While an engine runs it is the only writer of its data directory; other processes send it
requests over a channel private to the user:

* **unix** (Linux, macOS): the socket ``data_dir / "control.sock"``, created with mode
  0600 (umask set around ``bind``, then ``chmod``). Address ``unix:/path/control.sock``.
  AF_UNIX paths are limited (104 bytes on macOS/BSD, 108 on Linux, terminator included);
  with ``transport="auto"`` a longer path puts the socket in a private folder of the
  temporary folder (``errands-<uid>-<hash of the data folder>``, 0700, checked to be the
  user's own), not on tcp: commands an agent starts may not open Unix sockets, while a
  port would be open to them; with ``transport="unix"`` it is refused.
* **tcp** (Windows, where AF_UNIX is not used, or a private folder cannot be had): ``127.0.0.1`` on a free
  port, address ``tcp:127.0.0.1:PORT``. Any local user can connect to a port, so every
  request must carry the token the server wrote to ``data_dir / "control.token"`` (mode
  0600; on Windows privacy rests on the ACL of the user's profile folder where the data
  folder lives). Wrong or missing token: error ``unauthorized`` (the request is not run).

Protocol: newline-delimited JSON. A request is ``{"id": n, "op": str, "args": {...},
"token": str|null}``; the answer ``{"id": n, "ok": true, "result": ...}`` or ``{"id": n,
"ok": false, "error": {"code", "field", "message", "expected", "example", "kind"}}`` where
``kind`` is the error class (``InvalidInput``, ``NotFound``, ``Conflict``, ``StoreError``,
``ErrandsError``). A connection carries any number of requests, answered in order. A
request line is limited to 4 MiB; a longer one is answered with ``request_too_large``
(``id`` null) and skipped. A line must be UTF-8 JSON with numbers of at most 100
characters (no NaN or Infinity), at most 32 levels deep, without duplicate keys or lone
surrogates; a malformed line gets ``invalid_input`` (field ``request``, or the envelope
field at fault: ``id``, ``op``, ``args``, ``token``) and the connection stays usable;
blank lines are ignored. Arguments are checked by :mod:`errands.engine.operations`. An
unexpected exception in the handler is answered as ``internal`` (and logged: it is a bug)
and the server keeps serving.

A connection that sends no complete line within ``IDLE_TIMEOUT`` (60 s), or does not read
an answer within it, is closed. The listen backlog (``BACKLOG``, 512) holds a burst of a
few hundred clients. On close, waiting connections end at once and a request being
answered gets ``CLOSE_GRACE`` (2 s) to send its answer; none of this is logged as an error.

The server does not take the data-directory lock: the engine holds
:class:`~errands.engine.lock.DataDirLock` before it starts a server (so two servers never
race for the same socket file) and publishes :attr:`ControlServer.address` with
``DataDirLock.set_address`` once listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import socket
import stat
import sys
from pathlib import Path
from collections.abc import AsyncIterator
from typing import Any, Awaitable, Callable, Literal

from ..channel import (MAX_REQUEST_BYTES, RESPONSE_LIMIT, TOKEN_FILE, EngineUnreachable,
                       answer_of, encode, error_payload, parse_address,
                       read_token, request_line)
from ..errors import Conflict, ErrandsError, InvalidInput, StoreError

log = logging.getLogger("errands.control")

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
Transport = Literal["auto", "unix", "tcp"]

SOCKET_FILE = "control.sock"
MAX_DEPTH = 32            # nesting of arrays and objects in one request
MAX_NUMBER_CHARS = 100    # characters of one number in a request
IDLE_TIMEOUT = 60.0       # seconds a request line may take to arrive, or an answer to be read
CLOSE_GRACE = 2.0         # seconds a request being answered may finish when the server closes
READ_GRACE = 0.1          # seconds an idle connection may still read a request sent before
BACKLOG = 512             # connections the kernel queues while the engine is busy
_READ_CHUNK = 64 * 1024
_REQUEST_FIELDS = ("id", "op", "args", "token")
def unix_available() -> bool:
    return sys.platform != "win32" and hasattr(socket, "AF_UNIX")


def _unix_path_limit() -> int:
    """Usable bytes in sun_path (without the terminating NUL)."""
    return 107 if sys.platform.startswith("linux") else 103


def unix_path_fits(path: Path) -> bool:
    return len(os.fsencode(str(path))) <= _unix_path_limit()


def short_socket_path(data_dir: Path) -> Path:
    """Where the control socket of a data folder with a long path lives: a folder of this
    user's own in the temporary folder, named after the data folder's path."""
    import hashlib
    import tempfile
    digest = hashlib.sha256(os.fsencode(str(Path(data_dir).resolve()))).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"errands-{os.getuid()}-{digest}" / SOCKET_FILE


def private_runtime_dir(folder: Path) -> None:
    """Create ``folder`` (0700) or check that the one there is ours, private and no link."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() \
            or stat.S_IMODE(info.st_mode) & 0o077:
        raise PermissionError(f"{folder} is not a private folder of this user")


# ---------------------------------------------------------------- error payloads

_REQUEST_EXAMPLE = '{"id": 1, "op": "ping", "args": {}}'


def describe(value: Any) -> str:
    """A value from the wire as a refusal mentions it: short, whatever its size."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value)
        return f"the number {text}" if len(text) <= 20 else f"a number of {len(text)} digits"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {ascii(value if len(value) <= 40 else value[:39] + '…')}" \
            if value else "an empty string"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def field_name(name: str) -> str:
    """A name from the wire used as an error's field: never empty, at most 64 characters."""
    if not name:
        return '""'
    return name if len(name) <= 64 else name[:63] + "…"


def _invalid(field: str, message: str, expected: str, example: str) -> InvalidInput:
    return InvalidInput(field, message, expected, example)


def _bad_request(message: str) -> InvalidInput:
    return _invalid("request", message, "one JSON object per line", _REQUEST_EXAMPLE)


# ---------------------------------------------------------------- decoding a request
# A minimal private gate, to be replaced by errands.jsondoc once it exists: strict UTF-8,
# numbers of at most MAX_NUMBER_CHARS characters (so int() never meets 4300 digits), no
# NaN or Infinity, no duplicate keys, at most MAX_DEPTH levels, no lone surrogates.

_SURROGATE = re.compile("[\ud800-\udfff]")


def _number(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise _bad_request(f"a number of {len(text)} characters; at most {MAX_NUMBER_CHARS}")
    return text


def _parse_int(text: str) -> int:
    return int(_number(text))


def _parse_float(text: str) -> float:
    value = float(_number(text))
    if not math.isfinite(value):
        raise _bad_request(f"the number {text} is out of range")
    return value


def _parse_constant(text: str) -> Any:
    raise _bad_request(f"{text} is not a JSON number")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _bad_request(f"the key {ascii(twice[:40])} appears twice in one object")
    return result


def _check_tree(value: Any) -> None:
    """Depth and lone surrogates, walked without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise _bad_request("a string holds a lone surrogate (an unpaired \\ud800-"
                                   "\\udfff escape), which is not text")
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise _bad_request(f"nested deeper than {MAX_DEPTH} levels")
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def decode_request(line: bytes) -> Any:
    """The JSON value of one request line, or ``InvalidInput`` saying why it is not one."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad_request(f"not UTF-8 text (byte {exc.start} is {line[exc.start]:#04x})") from None
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                           parse_constant=_parse_constant, object_pairs_hook=_object)
    except RecursionError:
        raise _bad_request(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise _bad_request(f"not a JSON request: {exc}") from None
    _check_tree(value)
    return value


# ---------------------------------------------------------------- line reading

class _TooLarge:
    pass


_TOO_LARGE = _TooLarge()


class _LineReader:
    """Lines of at most ``limit`` bytes; a longer line is reported once and skipped."""

    def __init__(self, reader: asyncio.StreamReader, limit: int) -> None:
        self._reader = reader
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0
        self._discarding = False
        self._eof = False

    async def next(self) -> bytes | _TooLarge | None:
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                self._scanned = 0
                if self._discarding:
                    self._discarding = False
                    continue  # the tail of a line already refused
                if len(line) > self._limit:
                    return _TOO_LARGE
                return line
            self._scanned = len(self._buffer)
            if self._discarding:
                self._buffer.clear()
                self._scanned = 0
            elif len(self._buffer) > self._limit:
                self._buffer.clear()
                self._scanned = 0
                self._discarding = True
                return _TOO_LARGE
            if self._eof:
                if self._buffer and not self._discarding:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            chunk = await self._reader.read(_READ_CHUNK)
            if not chunk:
                self._eof = True
            self._buffer += chunk


# ---------------------------------------------------------------- server

class ControlServer:
    """Serves ``handler(op, args)`` on the data directory's control channel."""

    def __init__(self, data_dir: Path, handler: Handler, *,
                 transport: Transport = "auto") -> None:
        if transport not in ("auto", "unix", "tcp"):
            raise ValueError(f"transport must be 'auto', 'unix' or 'tcp', not {transport!r}")
        self.data_dir = Path(data_dir)
        self.handler = handler
        self.transport: Transport = transport
        self.address: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._busy: set[asyncio.Task[Any]] = set()  # connections whose request is being answered
        self._closing = False
        self._socket_path: Path | None = None
        self._socket_id: tuple[int, int] | None = None
        self._token: str | None = None
        self._token_path: Path | None = None

    @property
    def socket_path(self) -> Path:
        """``control.sock`` in the data folder; when that path is too long for a socket, one
        in a private folder of the temporary folder named after the data folder (never the
        tcp fallback on a system with Unix sockets: a port is open to every program of this
        user, confined ones included, while Unix sockets are closed to those)."""
        path = self.data_dir / SOCKET_FILE
        if unix_path_fits(path) or not unix_available():
            return path
        return short_socket_path(self.data_dir)

    @property
    def token_path(self) -> Path:
        return self.data_dir / TOKEN_FILE

    def _choose(self) -> Literal["unix", "tcp"]:
        if self.transport == "tcp":
            return "tcp"
        if self.transport == "auto" and unix_available() and \
                not unix_path_fits(self.data_dir / SOCKET_FILE):
            try:
                private_runtime_dir(self.socket_path.parent)
            except OSError as exc:  # a stranger's folder in the way: tcp after all
                log.warning("cannot use %s for the control socket (%s); using tcp",
                            self.socket_path.parent, exc)
                return "tcp"
            return "unix"
        fits = unix_path_fits(self.data_dir / SOCKET_FILE)
        if self.transport == "unix":
            if not unix_available():
                raise StoreError("control_unavailable",
                                 "Unix sockets are not available on this platform")
            if not fits:
                raise StoreError("control_unavailable",
                                 f"the socket path {self.socket_path} is longer than "
                                 f"{_unix_path_limit()} bytes; use a shorter data folder "
                                 "or the tcp transport")
            return "unix"
        return "unix" if unix_available() and fits else "tcp"

    async def start(self) -> str:
        """Listen; returns the address (``unix:/…/control.sock`` or ``tcp:127.0.0.1:PORT``)."""
        if self._server is not None:
            raise RuntimeError("the control server is already started")
        self._closing = False
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self._choose() == "unix":
            self.address = await self._start_unix()
        else:
            self.address = await self._start_tcp()
        log.info("control channel listening on %s", self.address)
        return self.address

    async def _start_unix(self) -> str:
        path = self.socket_path
        self._clear_stale_socket(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old_umask = os.umask(0o177)
            try:
                sock.bind(str(path))
            finally:
                os.umask(old_umask)
            os.chmod(path, 0o600)
            info = os.stat(path)
            self._socket_path, self._socket_id = path, (info.st_dev, info.st_ino)
            sock.listen(BACKLOG)
            sock.setblocking(False)
            self._server = await asyncio.start_unix_server(self._serve, sock=sock,
                                                           backlog=BACKLOG)
        except OSError as exc:
            sock.close()
            self._remove_socket_file()
            raise StoreError("control_unavailable",
                             f"cannot listen on {path}: {exc}") from exc
        except BaseException:
            sock.close()
            self._remove_socket_file()
            raise
        return f"unix:{path}"

    @staticmethod
    def _clear_stale_socket(path: Path) -> None:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISDIR(mode):
            raise StoreError("control_unavailable",
                             f"{path} is a folder, not a socket; move it away")
        if not stat.S_ISSOCK(mode):  # debris (a crash, a copy of the folder): nobody listens
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            pass  # nobody listening: stale
        except OSError as exc:
            raise StoreError("control_unavailable",
                             f"cannot tell whether {path} is in use: {exc}") from exc
        else:
            raise Conflict("engine_running",
                           f"another Errands engine is already listening on {path}")
        finally:
            probe.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)

    async def _start_tcp(self) -> str:
        token = secrets.token_urlsafe(32)
        _write_private(self.token_path, token + "\n")
        self._token, self._token_path = token, self.token_path
        try:
            self._server = await asyncio.start_server(self._serve, host="127.0.0.1", port=0,
                                                      backlog=BACKLOG)
        except OSError as exc:
            self._remove_token_file()
            raise StoreError("control_unavailable", f"cannot listen on 127.0.0.1: {exc}") from exc
        port = self._server.sockets[0].getsockname()[1]
        return f"tcp:127.0.0.1:{port}"

    def stop_listening(self) -> None:
        """Refuse new connections; the open ones (subscribers among them) go on until
        ``close``, so they hear the engine's last notices."""
        if self._server is not None:
            self._server.close()

    async def close(self) -> None:
        """Stop listening, close open connections, remove the socket and token files."""
        server, self._server = self._server, None
        self._closing = True
        if server is not None:
            server.close()
        tasks = [task for task in self._connections if task is not asyncio.current_task()]
        idle = [task for task in tasks if task not in self._busy]
        if idle:  # a request already sent is read and answered (the host refuses it,
            await asyncio.wait(idle, timeout=READ_GRACE)  # retryably), never dropped unread
        for task in tasks:
            if task not in self._busy:
                task.cancel()  # waiting for a request: nothing is lost
        answering = [task for task in tasks if task in self._busy]
        if answering:  # let a request already being answered say so (a stop that just ended)
            await asyncio.wait(answering, timeout=CLOSE_GRACE)
        for task in answering:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self._remove_socket_file()
        self._remove_token_file()
        self.address = None

    async def __aenter__(self) -> "ControlServer":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _remove_socket_file(self) -> None:
        path, ident = self._socket_path, self._socket_id
        self._socket_path = self._socket_id = None
        if path is None:
            return
        try:
            info = os.lstat(path)
        except OSError:
            return
        if (info.st_dev, info.st_ino) == ident:  # still ours, not a successor's
            with contextlib.suppress(OSError):
                os.unlink(path)

    def _remove_token_file(self) -> None:
        path, token = self._token_path, self._token
        self._token_path = self._token = None
        if path is None:
            return
        try:
            if path.read_text(encoding="utf-8").strip() == token:
                os.unlink(path)
        except OSError:
            pass

    # ------------------------------------------------------------ connections

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            lines = _LineReader(reader, MAX_REQUEST_BYTES)
            while not self._closing:
                async with asyncio.timeout(IDLE_TIMEOUT):  # half-open: a line that never ends
                    line = await lines.next()
                if line is None:
                    break
                if isinstance(line, _TooLarge):
                    error = _invalid("request", f"a request line is limited to "
                                     f"{MAX_REQUEST_BYTES} bytes", "at most 4 MiB of JSON",
                                     _REQUEST_EXAMPLE)
                    error.code = "request_too_large"
                    answer = encode({"id": None, "ok": False, "error": error_payload(error)})
                elif not line.strip():
                    continue
                else:
                    self._busy.add(task)
                    try:
                        answer = await self._answer(line)
                    finally:
                        self._busy.discard(task)
                if isinstance(answer, tuple):  # a subscription: notices until either side ends
                    await self._stream(reader, writer, *answer)
                    break
                async with asyncio.timeout(IDLE_TIMEOUT):  # a client that never reads
                    await self._send(writer, answer)
        except (ConnectionError, TimeoutError):
            pass  # the client went away, or kept the connection half-open too long
        except asyncio.CancelledError:
            pass  # the server is closing: an ordinary end of this connection
        except Exception:  # pragma: no cover - a bug here must not take the engine down
            log.exception("control connection failed")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      first: bytes, stream: Any) -> None:
        """One JSON line per notice (``{"notice": {...}}``) after the first answer, until
        the client hangs up (or sends anything) or the server closes. A client too slow to
        keep up gets ``{"dropped": true}`` and the end of the stream."""
        gone = asyncio.ensure_future(reader.read(1))
        try:
            async with asyncio.timeout(IDLE_TIMEOUT):
                await self._send(writer, first)
            while not self._closing:
                following = asyncio.ensure_future(stream.next())
                done, _ = await asyncio.wait({following, gone},
                                             return_when=asyncio.FIRST_COMPLETED)
                if gone in done:
                    following.cancel()
                    return
                notice = following.result()
                async with asyncio.timeout(IDLE_TIMEOUT):
                    if notice is None:
                        await self._send(writer, encode({"dropped": True}))
                        return
                    await self._send(writer, encode({"notice": notice.to_dict()}))
        finally:
            gone.cancel()
            stream.close()

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    def _authorized(self, token: object) -> bool:
        if self._token is None:
            return True  # unix: the socket's 0600 mode is the access control
        if not isinstance(token, str):
            return False
        return hmac.compare_digest(token.encode("utf-8", "replace"), self._token.encode("ascii"))

    async def _answer(self, line: bytes) -> bytes | tuple[bytes, Any]:
        """The encoded response to one request line."""
        request_id: int | None = None

        def refuse(error: BaseException) -> bytes:
            try:
                return encode({"id": request_id, "ok": False, "error": error_payload(error)})
            except (TypeError, ValueError):  # an error carrying values that are not JSON
                return encode({"id": request_id, "ok": False,
                                "error": error_payload(RuntimeError(str(error)))})

        try:
            request = decode_request(line)
        except InvalidInput as exc:
            return refuse(exc)
        if not isinstance(request, dict):
            return refuse(_bad_request("a request is a JSON object"))
        raw_id = request.get("id")
        if isinstance(raw_id, int) and not isinstance(raw_id, bool):
            request_id = raw_id
        if not self._authorized(request.get("token")):
            error = ErrandsError("the request does not carry this engine's token "
                                 f"(read it from {self.token_path})")
            error.code = "unauthorized"
            return refuse(error)
        unknown = sorted(set(request) - set(_REQUEST_FIELDS))
        if unknown:
            return refuse(_invalid(field_name(unknown[0]),
                                   f"unknown request field {ascii(field_name(unknown[0]))}",
                                   "only " + ", ".join(_REQUEST_FIELDS), "id"))
        if raw_id is not None and request_id is None:
            return refuse(_invalid("id", f"id must be an integer, not {describe(raw_id)}",
                                   "an integer", "1"))
        op = request.get("op")
        if not isinstance(op, str) or not op:
            return refuse(_invalid("op", f"op must be a non-empty string, not {describe(op)}",
                                   "the name of an operation", "ping"))
        args = request.get("args")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return refuse(_invalid("args", "args must be a JSON object",
                                   "an object of named arguments", '{"id": "…"}'))
        token = request.get("token")
        if token is not None and not isinstance(token, str):
            return refuse(_invalid("token", "token must be a string or null",
                                   "the contents of control.token", "null"))
        try:
            result = await self.handler(op, args)
        except asyncio.CancelledError:
            raise
        except ErrandsError as exc:
            return refuse(exc)
        except Exception as exc:
            log.exception("control operation %s failed", ascii(field_name(op)))
            return refuse(exc)
        if getattr(result, "is_stream", False):
            return encode({"id": request_id, "ok": True, "result": result.first()}), result
        try:
            return encode({"id": request_id, "ok": True, "result": result})
        except (TypeError, ValueError, RecursionError) as exc:
            log.error("control operation %s returned a result that is not JSON: %s",
                      ascii(field_name(op)), exc)
            return refuse(TypeError(f"the result of {op!r} is not JSON-serializable: {exc}"))


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically with mode 0600."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------- client

class ControlConnection:
    """One client connection carrying sequential requests (``request`` opens one per call)."""

    def __init__(self, address: str, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, token: str | None) -> None:
        self.address = address
        self._reader = reader
        self._writer = writer
        self._token = token
        self._next_id = 1

    @classmethod
    async def open(cls, address: str, *, data_dir: Path | None = None) -> "ControlConnection":
        kind, where = parse_address(address)
        token = read_token(address, data_dir) if kind == "tcp" else None
        try:
            if kind == "unix":
                reader, writer = await asyncio.open_unix_connection(where, limit=RESPONSE_LIMIT)
            else:
                reader, writer = await asyncio.open_connection(*where, limit=RESPONSE_LIMIT)
        except TimeoutError:
            raise
        except OSError as exc:
            raise EngineUnreachable(f"no engine is listening on {address}: "
                                    f"{exc.strerror or exc}", address=address,
                                    reason="refused") from exc
        return cls(address, reader, writer, token)

    async def call(self, op: str, args: dict[str, Any] | None = None) -> Any:
        request_id, self._next_id = self._next_id, self._next_id + 1
        line = request_line(request_id, op, args, self._token)
        try:
            self._writer.write(line)
            await self._writer.drain()
        except ConnectionError as exc:  # a write that failed delivered no complete line
            raise EngineUnreachable(f"the engine at {self.address} did not take the request: "
                                    f"{exc}", address=self.address, reason="refused") from exc
        try:
            raw = await self._reader.readline()
        except ConnectionError as exc:
            raise EngineUnreachable(f"the engine at {self.address} closed the connection: "
                                    f"{exc}", address=self.address, reason="closed") from exc
        except ValueError as exc:  # longer than RESPONSE_LIMIT
            raise ErrandsError(f"the engine's answer to {op!r} is too large: {exc}") from exc
        return answer_of(raw, request_id, op, self.address)

    async def notices(self) -> AsyncIterator[dict[str, Any]]:
        """After ``call("subscribe")``: each notice as the engine sends it, until it stops."""
        while True:
            try:
                raw = await self._reader.readline()
            except (ConnectionError, ValueError):
                return
            if not raw.endswith(b"\n"):
                return
            message = json.loads(raw)
            if isinstance(message, dict) and message.get("dropped") is True:
                raise ErrandsError("the engine dropped this stream: its notices came faster "
                                   "than they were read")
            if isinstance(message, dict) and isinstance(message.get("notice"), dict):
                yield message["notice"]

    async def aclose(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)

    async def __aenter__(self) -> "ControlConnection":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def connect(address: str, *, timeout: float | None = 30.0,
                  data_dir: Path | None = None) -> ControlConnection:
    """Open a connection for several requests (``timeout`` bounds the connect only)."""
    try:
        async with asyncio.timeout(timeout):
            return await ControlConnection.open(address, data_dir=data_dir)
    except TimeoutError as exc:
        raise EngineUnreachable(f"the engine at {address} did not accept a connection "
                                f"within {timeout:g} s", address=address,
                                reason="timeout") from exc


async def request(address: str, op: str, args: dict[str, Any] | None = None, *,
                  timeout: float | None = 30.0, data_dir: Path | None = None) -> Any:
    """Send one request and return its result, or raise the error the handler raised.

    Raises :class:`EngineUnreachable` when nobody answers (including after ``timeout``
    seconds for the whole exchange), the handler's ``ErrandsError`` class otherwise.
    ``data_dir`` is needed for tcp addresses (it holds ``control.token``).
    """
    connection: ControlConnection | None = None
    try:
        async with asyncio.timeout(timeout):
            connection = await ControlConnection.open(address, data_dir=data_dir)
            return await connection.call(op, args)
    except TimeoutError as exc:
        raise EngineUnreachable(f"the engine at {address} did not answer {op!r} within "
                                f"{timeout:g} s", address=address, reason="timeout") from exc
    finally:
        if connection is not None:
            await connection.aclose()
