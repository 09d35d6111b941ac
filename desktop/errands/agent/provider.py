"""The model provider: any OpenAI-compatible Chat Completions endpoint, spoken over httpx.

Errands owns this wire path outright (see docs/agent.md, "Why Errands speaks to the provider
itself"): a POST of plain JSON to ``{base_url}/chat/completions`` and a GET of ``/models``,
with no model SDK in between, so a new SDK release can neither break runs nor slow them.
Every fault a provider can produce becomes a :class:`ProviderError` with one of a few stable
codes, so a run records *why* it failed (and the retry policy decides what happens next)
instead of carrying a traceback. The API key is handed in by the caller (from the keyring
or ``ERRANDS_API_KEY``) and never appears in an error message.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import math
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # httpx takes a while to import: only a run that talks to a model pays
    import httpx

# Codes a provider fault is recorded with on the run (``error_code``).
UNREACHABLE = "provider_unreachable"
TIMEOUT = "provider_timeout"
KEY_REJECTED = "key_rejected"
MODEL_NOT_FOUND = "model_not_found"
RATE_LIMITED = "rate_limited"
SERVER_ERROR = "provider_error"
CONTEXT_TOO_LONG = "context_too_long"
BAD_REPLY = "bad_reply"
NO_KEY = "no_api_key"

MAX_RETRY_AFTER = 60.0     # longest Retry-After honoured within one attempt, in seconds
RATE_LIMIT_TRIES = 3       # requests per step while the provider says "too many"
MAX_REPLY_BYTES = 32 * 1024 * 1024  # a reply larger than this is refused, not buffered
CONNECT_TIMEOUT = 10.0     # seconds to open a connection (the whole request has config.timeout)


@dataclass(frozen=True)
class ProviderConfig:
    base_url: str
    model: str
    timeout: timedelta = timedelta(seconds=120)
    api_key: str | None = None

    def __repr__(self) -> str:  # never the key, not even in a traceback's locals
        return (f"ProviderConfig(base_url={self.base_url!r}, model={self.model!r}, "
                f"timeout={self.timeout!r}, api_key={'set' if self.api_key else None})")


class ProviderError(Exception):
    def __init__(self, code: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # as the model wrote it: may not be JSON at all

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class Reply:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None

    def to_message(self) -> dict[str, Any]:
        """The assistant turn as it goes back to the provider on the next request."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [c.to_message() for c in self.tool_calls]
        return message


def _is_context_error(text: str) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in ("context length", "context_length", "maximum context",
                                      "too many tokens", "context window", "prompt is too long"))


class _Status(Exception):
    """A reply whose HTTP status is not 2xx: the status, its headers and what it said."""

    def __init__(self, status: int, headers: "httpx.Headers", body: bytes) -> None:
        super().__init__(status)
        self.status = status
        self.headers = headers
        self.body = body


class _Malformed(Exception):
    """A 2xx reply that is not what the wire format promises (not JSON, too large, ...)."""


def _detail(body: bytes) -> str:
    """What the provider said about its refusal: ``{"error": {"message": …}}`` as OpenAI
    sends it, ``{"error": "…"}`` or ``{"message": …}`` as some local servers do, else the
    start of the text."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body[:300].decode("utf-8", "replace").strip()
    if isinstance(data, dict):
        inner = data.get("error", data)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"][:300]
        if isinstance(inner, str):
            return inner[:300]
    return ""


def _retry_after(headers: "httpx.Headers") -> float | None:
    """Retry-After in seconds (or OpenAI's ``retry-after-ms``); an HTTP date is not
    honoured (no clock arithmetic on a remote clock): the step's own back-off applies."""
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def classify(exc: BaseException, config: ProviderConfig) -> ProviderError:
    """One transport fault or refusal → one of the codes above, with a message a user can
    act on."""
    import httpx

    where = config.base_url
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout):
            return ProviderError(UNREACHABLE, f"cannot reach the provider at {where} (no "
                                 f"connection within {CONNECT_TIMEOUT:g} s); is it running, "
                                 "and is the base URL right? (errands provider show)")
        return ProviderError(TIMEOUT, f"the provider at {where} did not answer within "
                             f"{config.timeout.total_seconds():g} s")
    if isinstance(exc, httpx.TransportError | OSError):
        return ProviderError(UNREACHABLE, f"cannot reach the provider at {where}; is it "
                             "running, and is the base URL right? (errands provider show)")
    if isinstance(exc, _Status):
        status, detail = exc.status, _detail(exc.body)
        if status in (401, 403):
            return ProviderError(KEY_REJECTED, f"the provider at {where} refused the API key "
                                 f"({status}); store a valid one with "
                                 "'errands provider set --api-key-stdin'")
        if status == 404:
            return ProviderError(MODEL_NOT_FOUND, f"the provider at {where} has no model "
                                 f"{config.model!r} (or no chat endpoint there): {detail}")
        if status == 429:
            return ProviderError(RATE_LIMITED, f"the provider at {where} is rate limiting: "
                                 f"{detail}", retry_after=_retry_after(exc.headers))
        if status in (400, 413, 422) and _is_context_error(detail):
            return ProviderError(CONTEXT_TOO_LONG, "the conversation is longer than the "
                                 f"model's context window: {detail}")
        if 300 <= status < 400:
            target = exc.headers.get("location", "elsewhere")
            return ProviderError(BAD_REPLY, f"the provider at {where} redirects to {target}; "
                                 "set that address as the base URL (Errands does not follow "
                                 "a provider's redirects: the key would go with them)")
        if status >= 500:
            return ProviderError(SERVER_ERROR, f"the provider at {where} failed "
                                 f"({status}): {detail}")
        return ProviderError(BAD_REPLY, f"the provider at {where} refused the request "
                             f"({status}): {detail}")
    if isinstance(exc, _Malformed):
        return ProviderError(BAD_REPLY, f"the provider at {where} sent a reply that is not "
                             f"an OpenAI-compatible answer: {exc}")
    return ProviderError(SERVER_ERROR, f"the provider at {where} failed: {type(exc).__name__}")


_wire_lock = threading.Lock()
_wire_loop: asyncio.AbstractEventLoop | None = None


def _wire() -> asyncio.AbstractEventLoop:
    """The event loop, on a thread of its own, that every provider request runs on.

    Sending a request and reading its reply through httpx costs a millisecond or so of
    CPU; on the engine's loop, fifty runs stepping at once added that up within one turn
    of the loop and held it (timers, the control channel, every other run) for a few
    hundred milliseconds. Here it competes for the interpreter only: the engine's loop
    gets it back within the switch interval."""
    global _wire_loop
    with _wire_lock:
        if _wire_loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="errands-provider",
                             daemon=True).start()
            _wire_loop = loop
        return _wire_loop


_tls: Any = None  # ssl.SSLContext, made once on the provider thread (_tls_context)


def _tls_context() -> Any:
    """One TLS context for every client (httpx's default: the CA bundle, or SSL_CERT_FILE
    / SSL_CERT_DIR). Making one loads the bundle, some 20 ms that hold the interpreter and
    so stall the engine's loop, once per client otherwise."""
    global _tls
    if _tls is None:
        import httpx
        _tls = httpx.create_ssl_context()
    return _tls


_FIRST_CONNECTION = ("concurrent.futures.thread", "anyio._backends._asyncio",
                     "anyio._core._sockets", "anyio._core._streams",
                     "anyio._core._synchronization", "anyio.streams.memory",
                     "anyio.streams.stapled", "httpcore._async.http11", "h11")


def warm_up() -> None:
    """Import the HTTP client on the provider thread now, in the background. The first
    request after a start would otherwise wait for it, and so would every run approved at
    the same moment as that one."""
    def load() -> None:
        import httpx

        from . import secrets  # noqa: F401  (the keyring, read for each run's key)
        _tls_context()
        # a client loads more on its first making; this one is never used (it opens no
        # connection) and is simply dropped
        httpx.AsyncClient(verify=_tls_context())
        # and the first connection imports the rest of its transport (measured); loaded
        # now, when fifty runs start together none waits on it
        for name in _FIRST_CONNECTION:
            try:
                importlib.import_module(name)
            except ImportError:  # another version of the library: it loads what it needs
                pass
        if gc.get_freeze_count():  # the host settled its heap (errands.heap): these
            gc.freeze()            # modules live as long, and a full collection skips them
    _wire().call_soon_threadsafe(load)


async def _on_wire(coro: Any) -> Any:
    """Await ``coro`` on the provider thread; cancelling the caller cancels it there."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, _wire()))


def _user_agent() -> str:
    from .. import __version__
    return f"errands/{__version__}"


class Provider:
    """One HTTP client per configuration, with no retries of its own (the run's retry
    policy and the bounded Retry-After wait below are the only retries) and no redirects
    followed (the key would go with them). The client is used on the provider thread only
    (:func:`_wire`): its connections belong to that loop."""

    def __init__(self, config: ProviderConfig, *, sleep: Any = asyncio.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._client: "httpx.AsyncClient | None" = None  # made on the provider thread

    def _on_thread(self) -> "httpx.AsyncClient":
        """The client, made on first use there: making one loads the TLS certificates,
        tens of milliseconds of CPU the engine's loop does not wait for."""
        if self._client is None:
            import httpx

            headers = {"Accept": "application/json", "User-Agent": _user_agent()}
            if self.config.api_key:
                headers["Authorization"] = f"Bearer {self.config.api_key}"
            self._client = httpx.AsyncClient(
                verify=_tls_context(), headers=headers, follow_redirects=False,
                timeout=httpx.Timeout(self.config.timeout.total_seconds(),
                                      connect=CONNECT_TIMEOUT))
        return self._client

    def _url(self, endpoint: str) -> "httpx.URL":
        """``base_url`` + ``/endpoint``, keeping the base's own path and query as they were
        written: a percent-encoded byte in the path (``%00``) stays encoded instead of
        being decoded into a path no URL may carry."""
        from urllib.parse import urlsplit, urlunsplit

        import httpx

        base = urlsplit(self.config.base_url)
        return httpx.URL(urlunsplit(base._replace(path=base.path.rstrip("/") + "/" + endpoint)))

    async def close(self) -> None:
        if self._client is None:  # never used: nothing to close
            return

        async def closing() -> None:
            if self._client is not None:
                await self._client.aclose()

        await _on_wire(closing())

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                       model: str | None = None, *, deadline: float | None = None) -> Reply:
        """One request. A rate limit is waited out (Retry-After, at most
        ``MAX_RETRY_AFTER`` and never past ``deadline`` on the monotonic clock)."""
        for attempt in range(1, RATE_LIMIT_TRIES + 1):
            try:
                return await self._complete_once(messages, tools, model or self.config.model)
            except ProviderError as exc:
                if exc.code != RATE_LIMITED or attempt == RATE_LIMIT_TRIES:
                    raise
                wait = exc.retry_after if exc.retry_after is not None else 2.0 ** attempt
                if wait > MAX_RETRY_AFTER or (deadline is not None
                                               and time.monotonic() + wait > deadline):
                    raise
                await self._sleep(wait)
        raise AssertionError("unreachable")

    async def _complete_once(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                             model: str) -> Reply:
        body: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            body["tools"] = tools
        try:
            completion = await _on_wire(self._request("POST", "chat/completions", body))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise classify(exc, self.config) from None
        return _reply(completion, self.config)

    async def _request(self, method: str, endpoint: str, body: Any = None) -> Any:
        """One request on the provider thread: the decoded JSON of a 2xx reply; a refusal
        as :class:`_Status`, a reply that is not JSON (or too large) as :class:`_Malformed`."""
        client = self._on_thread()
        content = None
        headers = {}
        if body is not None:
            content = json.dumps(body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        request = client.build_request(method, self._url(endpoint), content=content,
                                       headers=headers)
        response = await client.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
                raise _Malformed(f"a reply of {int(declared):,} bytes (at most "
                                 f"{MAX_REPLY_BYTES:,} are read)")
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise _Malformed(f"a reply of more than {MAX_REPLY_BYTES:,} bytes")
                chunks.append(chunk)
        finally:
            await response.aclose()
        raw = b"".join(chunks)
        if not 200 <= response.status_code < 300:
            raise _Status(response.status_code, response.headers, raw)
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise _Malformed("its body is not JSON") from None

    async def list_models(self) -> list[str]:
        try:
            page = await _on_wire(self._request("GET", "models"))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise classify(exc, self.config) from None
        data = page.get("data") if isinstance(page, dict) else None
        if not isinstance(data, list):
            raise classify(_Malformed("no 'data' list of models"), self.config)
        return [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _reply(completion: Any, config: ProviderConfig) -> Reply:
    """The decoded JSON of a chat completion → a :class:`Reply`, checking each field's
    shape: a provider's reply is untrusted input like any other."""
    def bad(what: str) -> ProviderError:
        return ProviderError(BAD_REPLY, f"the provider at {config.base_url} answered {what}")

    if not isinstance(completion, dict):
        raise bad("with JSON that is not an object")
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices:
        raise bad("with no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise bad("with no message")
    finish_reason = choice.get("finish_reason")
    finish_reason = finish_reason if isinstance(finish_reason, str) else None
    content = message.get("content")
    content = content if isinstance(content, str) else None
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise bad("with tool_calls that are not a list")
    if finish_reason == "length" and not raw_calls and not content:
        raise ProviderError(CONTEXT_TOO_LONG, "the model stopped at its length limit before "
                            "saying anything")
    calls = []
    for i, call in enumerate(raw_calls):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise ProviderError(BAD_REPLY, "the model asked for a tool without a name")
        arguments = function.get("arguments")  # type: ignore[union-attr]
        if isinstance(arguments, dict | list):  # some local servers send an object
            arguments = json.dumps(arguments)
        call_id = call.get("id")  # type: ignore[union-attr]
        calls.append(ToolCall(id=call_id if isinstance(call_id, str) and call_id
                              else f"call_{i}", name=name,
                              arguments=arguments if isinstance(arguments, str) else ""))
    usage = completion.get("usage")
    usage = usage if isinstance(usage, dict) else {}

    def tokens(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
            else 0

    return Reply(content=content, tool_calls=calls, prompt_tokens=tokens("prompt_tokens"),
                 completion_tokens=tokens("completion_tokens"), finish_reason=finish_reason)
