"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for driving the real openai SDK.

Each request to ``/v1/chat/completions`` takes the next entry of the script:

- ``say("text")``: an assistant message;
- ``call("tool", {...}, ...)`` / ``calls([...])``: tool calls (``arguments`` may be a raw
  string, to play a model that writes broken JSON);
- ``fail(status, message, headers=...)``: an HTTP error with an OpenAI-shaped body;
- ``stall(seconds)``: answer nothing for that long (timeouts);
- ``raw(body)``: this JSON body as it is, status 200 (a reply that is no completion);
- a callable taking the request body and returning one of the above (a model that keeps
  calling tools forever, say).

An exhausted script answers 500 "script exhausted", which fails the run loudly. Every
request body is kept in ``requests`` for assertions.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable

Entry = dict[str, Any]
_ids = itertools.count(1)


def say(text: str, *, prompt_tokens: int = 10, completion_tokens: int = 5) -> Entry:
    return {"message": {"role": "assistant", "content": text},
            "usage": (prompt_tokens, completion_tokens)}


def calls(items: Iterable[tuple[str, Any]], *, text: str | None = None) -> Entry:
    tool_calls = []
    for name, arguments in items:
        tool_calls.append({"id": f"call_{next(_ids)}", "type": "function",
                           "function": {"name": name, "arguments": arguments
                                        if isinstance(arguments, str) else json.dumps(arguments)}})
    return {"message": {"role": "assistant", "content": text, "tool_calls": tool_calls},
            "usage": (10, 5), "finish_reason": "tool_calls"}


def call(name: str, arguments: Any = None, *, text: str | None = None) -> Entry:
    return calls([(name, {} if arguments is None else arguments)], text=text)


def fail(status: int, message: str, *, headers: dict[str, str] | None = None,
         code: str | None = None) -> Entry:
    return {"status": status, "error": {"message": message, "type": "error", "code": code},
            "headers": headers or {}}


def stall(seconds: float) -> Entry:
    return {"stall": seconds}


def raw(body: Any) -> Entry:
    return {"raw": body}


def octets(data: bytes, *, status: int = 200, headers: dict[str, str] | None = None) -> Entry:
    """A reply of exactly these bytes (not JSON, or a redirect with a Location header)."""
    return {"octets": data, "status": status, "headers": headers or {}}


class ScriptedServer:
    def __init__(self, models: tuple[str, ...] = ("scripted-model",)) -> None:
        self.models = list(models)
        self.script: list[Entry | Callable[[dict[str, Any]], Entry]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []  # of the POSTs, with their query
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                server.headers.append(dict(self.headers))
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "test"}
                        for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "no such path"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    entry = server.script.pop(0) if server.script else None
                if callable(entry):
                    entry = entry(body)
                server.paths.append(self.path)
                if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "no such path"}})
                    return
                if entry is None:
                    self._send(500, {"error": {"message": "script exhausted"}})
                    return
                if "stall" in entry:
                    server._stop.wait(entry["stall"])
                    try:
                        self._send(200, _completion(say("too late"), body))
                    except OSError:
                        pass
                    return
                if "raw" in entry:
                    self._send(200, entry["raw"])
                    return
                if "octets" in entry:
                    self.send_response(entry["status"])
                    self.send_header("Content-Length", str(len(entry["octets"])))
                    for k, v in entry["headers"].items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(entry["octets"])
                    return
                if "status" in entry:
                    self._send(entry["status"], {"error": entry["error"]}, entry["headers"])
                    return
                if body.get("model") not in server.models:
                    self._send(404, {"error": {"message": f"model {body.get('model')!r} not found",
                                               "code": "model_not_found"}})
                    return
                self._send(200, _completion(entry, body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def play(self, *entries: Entry | Callable[[dict[str, Any]], Entry]) -> "ScriptedServer":
        with self._lock:
            self.script.extend(entries)
        return self

    def wait_requests(self, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.requests)} requests, expected {count}")
            time.sleep(0.01)


def _completion(entry: Entry, request: dict[str, Any]) -> dict[str, Any]:
    prompt, completion = entry.get("usage", (10, 5))
    return {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": 0,
            "model": request.get("model", "scripted-model"),
            "choices": [{"index": 0, "message": entry["message"],
                         "finish_reason": entry.get("finish_reason", "stop")}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}
