"""``errands provider test``: four checks that tell a person what to fix before a run fails.

Each check ends ``ok``, ``failed`` (with the provider's own fault code and message) or
``skipped`` (an earlier failure made it meaningless). The requests go through
:class:`Provider`, so the faults read exactly as a run would record them.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from .provider import (KEY_REJECTED, MODEL_NOT_FOUND, TIMEOUT, UNREACHABLE, Provider,
                       ProviderConfig, ProviderError)

OK, FAILED, SKIPPED = "ok", "failed", "skipped"
CHECKS = ("reachable", "key_accepted", "model_present", "tool_calling")
PING_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": "ping", "description": "Call this to show that you can call tools.",
    "parameters": {"type": "object", "properties": {}, "required": []}}}
PING_PROMPT = "Call the ping tool now. Do not reply with text."


@dataclass(frozen=True)
class Check:
    check: str
    status: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def _fault(exc: ProviderError) -> str:
    return f"{exc.code}: {exc.message}"


def _model_listing(model: str, models: list[str]) -> Check:
    if model in models:
        return Check("model_present", OK, f"{model!r} is among the {len(models)} models listed")
    sample = ", ".join(sorted(models)[:8]) + (", …" if len(models) > 8 else "")
    return Check("model_present", FAILED, f"{model!r} is not among the {len(models)} models "
                 f"the provider lists" + (f": {sample}" if models else ""))


def _tool_calling(reply: Any, chat: ProviderError | None) -> Check:
    if chat is not None:
        return Check("tool_calling", FAILED, _fault(chat))
    names = [c.name for c in reply.tool_calls]
    if "ping" in names:
        return Check("tool_calling", OK, "the model called the tool it was offered")
    if names:
        return Check("tool_calling", FAILED, f"the model called {names[0]!r}, a tool it was "
                     "not offered")
    said = (reply.content or "").strip().replace("\n", " ")[:80]
    return Check("tool_calling", FAILED, "the model answered in text instead of calling the "
                 f"tool ({said!r}); it may not support tool calling (pick a model that does)")


async def check_provider(config: ProviderConfig) -> list[Check]:
    """The four checks, in order: reachable (GET /models), key accepted, model present in
    the list, and one tiny chat completion offering a trivial tool."""
    provider = Provider(config)
    try:
        return await _checks(provider, config)
    finally:
        await provider.close()


async def _checks(provider: Provider, config: ProviderConfig) -> list[Check]:
    models: list[str] | None = None
    listing: ProviderError | None = None
    try:
        models = await provider.list_models()
    except ProviderError as exc:
        listing = exc
    if listing is not None and listing.code in (UNREACHABLE, TIMEOUT):
        why = "not tried: the provider cannot be reached"
        return [Check("reachable", FAILED, _fault(listing))] + [
            Check(name, SKIPPED, why) for name in CHECKS[1:]]
    if listing is not None and listing.code == KEY_REJECTED:
        why = "not tried: the key was refused"
        return [Check("reachable", OK, "it answered GET /models, refusing the key"),
                Check("key_accepted", FAILED, _fault(listing)),
                Check("model_present", SKIPPED, why), Check("tool_calling", SKIPPED, why)]
    if models is not None:
        reach = Check("reachable", OK, f"it answered GET /models ({len(models)} models)")
    elif listing is not None and listing.code == MODEL_NOT_FOUND:
        reach = Check("reachable", OK, "it answered, but has no model list at GET /models")
    else:
        assert listing is not None
        reach = Check("reachable", FAILED, "GET /models: " + _fault(listing))

    reply, chat = None, None
    try:
        reply = await provider.complete([{"role": "user", "content": PING_PROMPT}], [PING_TOOL],
                                        deadline=time.monotonic()
                                        + config.timeout.total_seconds())
    except ProviderError as exc:
        chat = exc

    if chat is not None and chat.code == KEY_REJECTED:
        key = Check("key_accepted", FAILED, _fault(chat))
    elif models is None and chat is not None:
        key = Check("key_accepted", FAILED, "could not be checked: " + _fault(chat))
    elif config.api_key:
        key = Check("key_accepted", OK, "the provider accepted the key")
    else:
        key = Check("key_accepted", OK, "no key is set, and the provider asked for none")

    if models is not None:
        model = _model_listing(config.model, models)
    elif chat is None:
        model = Check("model_present", OK, f"{config.model!r} answered (the provider lists "
                      "no models)")
    elif chat.code == MODEL_NOT_FOUND:
        model = Check("model_present", FAILED, _fault(chat))
    else:
        model = Check("model_present", FAILED, "could not be checked: " + _fault(chat))
    return [reach, key, model, _tool_calling(reply, chat)]
