"""The client side of the control channel, with the standard library alone.

A command that a running engine answers (``errands list`` while the app is open, every
change while it runs) costs an interpreter, this module and one round trip: no asyncio, no
SQLAlchemy. The protocol (newline-delimited JSON over a private Unix socket, or a token on
a loopback port) is described in :mod:`errands.engine.control`, the server side, which
shares this module's pieces (addresses, the token, errors on the wire).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

from .errors import (Conflict, EngineUnreachable, ErrandsError, InvalidInput, NotFound,
                     StoreError)

TOKEN_FILE = "control.token"
MAX_REQUEST_BYTES = 4 * 1024 * 1024
RESPONSE_LIMIT = 1 << 30  # the client trusts the engine; a guard, not a policy
KINDS: dict[str, type[ErrandsError]] = {
    "InvalidInput": InvalidInput, "NotFound": NotFound, "Conflict": Conflict,
    "StoreError": StoreError, "ErrandsError": ErrandsError,
}


def parse_address(address: str) -> tuple[str, Any]:
    if isinstance(address, str) and address.startswith("unix:") and len(address) > 5:
        return "unix", address[5:]
    if isinstance(address, str) and address.startswith("tcp:"):
        host, sep, port = address[4:].rpartition(":")
        if sep and host and port.isdigit():
            return "tcp", (host, int(port))
    raise InvalidInput("address", f"not a control address: {address!r}",
                       "unix:<path> or tcp:<host>:<port>", "tcp:127.0.0.1:50123")


def read_token(address: str, data_dir: Path | None) -> str:
    if data_dir is None:
        raise ValueError("a tcp control address needs data_dir to find control.token")
    path = Path(data_dir) / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError as exc:
        raise EngineUnreachable(f"no engine is listening on {address} ({path} is missing)",
                                address=address, reason="refused") from exc
    except OSError as exc:
        raise EngineUnreachable(f"cannot read {path}: {exc}", address=address,
                                reason="refused") from exc
    if not token:
        raise EngineUnreachable(f"no engine is listening on {address} ({path} is empty)",
                                address=address, reason="refused")
    return token


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


def request_line(request_id: int, op: str, args: dict[str, Any] | None,
                 token: str | None) -> bytes:
    """One request, refused here when the engine would refuse its size."""
    line = encode({"id": request_id, "op": op, "args": args or {}, "token": token})
    if len(line) - 1 > MAX_REQUEST_BYTES:
        raise InvalidInput("args", f"the request is {len(line) - 1} bytes; the engine "
                           f"accepts at most {MAX_REQUEST_BYTES}", "at most 4 MiB of JSON",
                           "a smaller file or fewer items per call")
    return line


def answer_of(raw: bytes, request_id: int, op: str, address: str) -> Any:
    """The result in an answer line, or the error the handler raised."""
    if not raw.endswith(b"\n"):
        raise EngineUnreachable(f"the engine at {address} closed the connection "
                                f"before answering {op!r}", address=address, reason="closed")
    try:
        response = json.loads(raw)
    except ValueError as exc:
        raise ErrandsError(f"the engine sent a malformed answer: {exc}") from exc
    if not isinstance(response, dict) or response.get("id") not in (request_id, None):
        raise ErrandsError(f"the engine sent an answer to another request: {raw[:200]!r}")
    if response.get("ok") is True:
        return response.get("result")
    raise error_from_payload(response.get("error"))


def error_payload(exc: BaseException) -> dict[str, Any]:
    """The wire form of an error: ``to_dict()`` plus ``kind``."""
    if isinstance(exc, ErrandsError):
        kind = next(cls.__name__ for cls in type(exc).__mro__ if cls.__name__ in KINDS
                    and issubclass(cls, ErrandsError))
        body = dict(exc.to_dict())
        body["kind"] = kind
        return body
    return {"code": "internal", "field": None,
            "message": f"internal error: {type(exc).__name__}: {exc}",
            "expected": None, "example": None, "kind": "ErrandsError"}


def error_from_payload(body: object) -> ErrandsError:
    """Rebuild the error a handler raised, so the CLI reports it as if it ran locally."""
    if not isinstance(body, dict):
        return ErrandsError(f"malformed error from the engine: {body!r}")
    kind = body.get("kind")
    code = body.get("code") if isinstance(body.get("code"), str) else "internal"
    message = body.get("message")
    message = message if isinstance(message, str) else str(message or code)
    error: ErrandsError
    if kind == "InvalidInput":
        said = body.get("words")
        reason = body.get("reason")
        values = body.get("values")
        return InvalidInput(body.get("field"), message, body.get("expected"),  # type: ignore[arg-type]
                            body.get("example"), code=code,
                            words=tuple(w for w in said if isinstance(w, str))
                            if isinstance(said, list) else (),
                            reason=reason if isinstance(reason, str) else None,
                            values={k: v for k, v in values.items() if isinstance(k, str)
                                    and isinstance(v, (str, int)) and not isinstance(v, bool)}
                            if isinstance(values, dict) else None)
    if kind == "Conflict":
        return Conflict(code, message)
    if kind == "StoreError":
        return StoreError(code, message)
    error = NotFound(message) if kind == "NotFound" else ErrandsError(message)
    if error.code != code:
        error.code = code
    return error


def request_sync(address: str, op: str, args: dict[str, Any] | None = None, *,
                 timeout: float | None = 30.0, data_dir: Path | None = None) -> Any:
    """Send one request and return its result, or raise the error the handler raised;
    blocking, from any thread. Raises :class:`EngineUnreachable` when nobody answers
    (including after ``timeout`` seconds for the whole exchange). ``data_dir`` is needed
    for tcp addresses (it holds ``control.token``)."""
    kind, where = parse_address(address)
    token = read_token(address, data_dir) if kind == "tcp" else None
    deadline = None if timeout is None else time.monotonic() + timeout

    def left() -> float | None:
        if deadline is None:
            return None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise EngineUnreachable(f"the engine at {address} did not answer {op!r} within "
                                    f"{timeout:g} s", address=address, reason="timeout")
        return remaining

    family = socket.AF_UNIX if kind == "unix" else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:  # (a confined command may open no socket at all)
        raise EngineUnreachable(f"no engine is listening on {address}: "
                                f"{exc.strerror or exc}", address=address,
                                reason="refused") from exc
    def step(call: Any, late: str, failed: str, reason: str) -> Any:
        """One socket call within what is left of ``timeout``; a failure says which."""
        try:
            sock.settimeout(left())
            return call()
        except socket.timeout as exc:
            raise EngineUnreachable(f"the engine at {address} did not {late} within "
                                    f"{timeout:g} s", address=address, reason="timeout") from exc
        except OSError as exc:  # (refused: nothing was delivered, so trying again is safe)
            raise EngineUnreachable(f"{failed}: {exc.strerror or exc}", address=address,
                                    reason=reason) from exc

    with sock:
        step(lambda: sock.connect(where), "accept a connection",
             f"no engine is listening on {address}", "refused")
        step(lambda: sock.sendall(request_line(1, op, args, token)), f"take {op!r}",
             f"the engine at {address} did not take the request", "refused")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = step(lambda: sock.recv(256 * 1024), f"answer {op!r}",
                         f"the engine at {address} closed the connection", "closed")
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if b"\n" in chunk:
                break
            if size > RESPONSE_LIMIT:
                raise ErrandsError(f"the engine's answer to {op!r} is too large")
        raw = b"".join(chunks)
        line, newline, _ = raw.partition(b"\n")
        return answer_of(line + newline, 1, op, address)
