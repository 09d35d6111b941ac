"""The model provider: any OpenAI-compatible Chat Completions endpoint, through the openai SDK.

Every fault a provider can produce becomes a :class:`ProviderError` with one of a few stable
codes, so a run records *why* it failed (and the retry policy decides what happens next)
instead of carrying an SDK traceback. The API key is handed in by the caller (from the
keyring or ``ERRANDS_API_KEY``) and never appears in an error message.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK takes a second to import: only a run that talks to a model pays
    import openai
    from openai.types.chat import ChatCompletion

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
NO_KEY_PLACEHOLDER = "not-needed"  # the SDK insists on a key; local servers ignore it


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


def _detail(exc: "openai.APIStatusError") -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"][:300]
        if isinstance(inner, str):
            return inner[:300]
    return (exc.message or "")[:300]


def _retry_after(exc: "openai.APIStatusError") -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def classify(exc: BaseException, config: ProviderConfig) -> ProviderError:
    """One SDK exception → one of the codes above, with a message a user can act on."""
    where = config.base_url
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(TIMEOUT, f"the provider at {where} did not answer within "
                             f"{config.timeout.total_seconds():g} s")
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(UNREACHABLE, f"cannot reach the provider at {where}; is it "
                             "running, and is the base URL right? (errands provider show)")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ProviderError(KEY_REJECTED, f"the provider at {where} refused the API key "
                             f"({exc.status_code}); store a valid one with "
                             "'errands provider set --api-key-stdin'")
    if isinstance(exc, openai.NotFoundError):
        return ProviderError(MODEL_NOT_FOUND, f"the provider at {where} has no model "
                             f"{config.model!r} (or no chat endpoint there): {_detail(exc)}")
    if isinstance(exc, openai.RateLimitError):
        return ProviderError(RATE_LIMITED, f"the provider at {where} is rate limiting: "
                             f"{_detail(exc)}", retry_after=_retry_after(exc))
    if isinstance(exc, openai.APIStatusError):
        detail = _detail(exc)
        if exc.status_code in (400, 413, 422) and _is_context_error(detail):
            return ProviderError(CONTEXT_TOO_LONG, "the conversation is longer than the "
                                 f"model's context window: {detail}")
        if exc.status_code >= 500:
            return ProviderError(SERVER_ERROR, f"the provider at {where} failed "
                                 f"({exc.status_code}): {detail}")
        return ProviderError(BAD_REPLY, f"the provider at {where} refused the request "
                             f"({exc.status_code}): {detail}")
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError | ValueError):
        return ProviderError(BAD_REPLY, f"the provider at {where} sent a reply that is not "
                             "an OpenAI-compatible chat completion")
    return ProviderError(SERVER_ERROR, f"the provider at {where} failed: {type(exc).__name__}")


_wire_lock = threading.Lock()
_wire_loop: asyncio.AbstractEventLoop | None = None


def _wire() -> asyncio.AbstractEventLoop:
    """The event loop, on a thread of its own, that every provider request runs on.

    Sending a request and reading its reply through the SDK and httpx costs a millisecond
    or two of CPU; on the engine's loop, fifty runs stepping at once added that up within
    one turn of the loop and held it (timers, the control channel, every other run) for a
    few hundred milliseconds. Here it competes for the interpreter only: the engine's loop
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
                     "anyio.streams.stapled")


def warm_up() -> None:
    """Import the SDK on the provider thread now, in the background. The first request
    after a start would otherwise wait for it (half a second even from byte-code), and so
    would every run approved at the same moment as that one."""
    def load() -> None:
        import openai
        from openai.types.chat import ChatCompletion  # noqa: F401

        from . import config  # noqa: F401  (the keyring, read for each run's key)
        # a client loads more on its first making (platform details); this one is never
        # used (it opens no connection) and is simply dropped
        openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key=NO_KEY_PLACEHOLDER,
                           http_client=openai.DefaultAsyncHttpxClient(verify=_tls_context()))
        # and the first connection imports the rest of its transport (measured); loaded
        # now, when fifty runs start together none waits on it
        for name in _FIRST_CONNECTION:
            try:
                importlib.import_module(name)
            except ImportError:  # another version of the library: it loads what it needs
                pass
        if gc.get_freeze_count():  # the host settled its heap (errands.heap): the SDK's
            gc.freeze()            # modules live as long, and a full collection skips them
    _wire().call_soon_threadsafe(load)


async def _on_wire(coro: Any) -> Any:
    """Await ``coro`` on the provider thread; cancelling the caller cancels it there."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, _wire()))


class Provider:
    """One client per configuration; the SDK's own retries are off (the run's retry policy
    and the bounded Retry-After wait below are the only retries). The client is used on
    the provider thread only (:func:`_wire`): its connections belong to that loop."""

    def __init__(self, config: ProviderConfig, *, sleep: Any = asyncio.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._client: "openai.AsyncOpenAI | None" = None  # made on the provider thread

    def _on_thread(self) -> "openai.AsyncOpenAI":
        """The client, made on first use there: making one loads the TLS certificates,
        tens of milliseconds of CPU the engine's loop does not wait for."""
        if self._client is None:
            import httpx
            import openai

            timeout = httpx.Timeout(self.config.timeout.total_seconds(), connect=10.0)
            self._client = openai.AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key or NO_KEY_PLACEHOLDER,
                timeout=timeout, max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(verify=_tls_context(),
                                                           timeout=timeout))
        return self._client

    async def close(self) -> None:
        if self._client is None:  # never used: nothing to close
            return

        async def closing() -> None:
            if self._client is not None:
                await self._client.close()

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
            # Posted as it is, not through chat.completions.create(): that walks every
            # message and tool schema through the SDK's typed-dict transform (a no-op for
            # plain JSON like ours) on the event loop, ~0.2 ms a message: tens of ms a
            # request once a transcript is long, which stalls every other run. The client's
            # own post() still sends, authenticates, maps errors and parses the reply.
            completion = await _on_wire(self._post(body))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise classify(exc, self.config) from None
        return _reply(completion, self.config)

    async def _post(self, body: dict[str, Any]) -> "ChatCompletion":
        from openai.types.chat import ChatCompletion

        return await self._on_thread().post("/chat/completions", body=body,
                                            cast_to=ChatCompletion)

    async def list_models(self) -> list[str]:
        async def listing() -> Any:
            return await self._on_thread().models.list()

        try:
            page = await _on_wire(listing())
            return [m.id for m in page.data]
        except Exception as exc:
            raise classify(exc, self.config) from None


def _reply(completion: Any, config: ProviderConfig) -> Reply:
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ProviderError(BAD_REPLY, f"the provider at {config.base_url} answered with no "
                            "choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise ProviderError(BAD_REPLY, f"the provider at {config.base_url} answered with no "
                            "message")
    if choice.finish_reason == "length" and not message.tool_calls and not message.content:
        raise ProviderError(CONTEXT_TOO_LONG, "the model stopped at its length limit before "
                            "saying anything")
    calls = []
    for i, call in enumerate(message.tool_calls or []):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if not isinstance(name, str) or not name:
            raise ProviderError(BAD_REPLY, "the model asked for a tool without a name")
        arguments = getattr(function, "arguments", None)
        calls.append(ToolCall(id=getattr(call, "id", None) or f"call_{i}", name=name,
                              arguments=arguments if isinstance(arguments, str) else ""))
    usage = getattr(completion, "usage", None)
    content = message.content if isinstance(message.content, str) else None
    return Reply(content=content, tool_calls=calls,
                 prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                 completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                 finish_reason=choice.finish_reason)
