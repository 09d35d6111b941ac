"""``errands provider set | show | test``: the model provider agent runs talk to.

The URL, model and timeout are settings, written like ``config set`` (through the engine
when one runs); the API key goes to the keyring and is never printed, only whether one is
present and where it comes from.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import getpass
import sys
from pathlib import Path
from typing import Any

from ..errors import Conflict, InvalidInput
from ..settings import SPECS, Settings, env_name
from . import render
from .commands import _dir, _shown, emit, open_store
from .routing import perform

# (name in output, setting key, flag)
FIELDS = (("base_url", "provider_base_url", "--base-url"),
          ("model", "provider_model", "--model"),
          ("timeout", "provider_timeout", "--timeout"))
SET_EXAMPLE = "errands provider set --base-url http://127.0.0.1:11434/v1 --model llama3.2"


def _read_key(field: str) -> str:
    """One line of standard input (asked for without echo at a terminal). A refusal says
    what is wrong with the key, never what it is."""
    from ..agent.secrets import MAX_KEY, check_api_key

    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return check_api_key(getpass.getpass("API key: "), field)
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        line = stdin.readline(MAX_KEY + 2)
    except (AttributeError, EOFError, OSError, ValueError):  # no or closed standard input
        raise InvalidInput(field, "cannot read standard input", "the key on standard input",
                           "printf '%s\\n' \"$KEY\" | errands provider set --api-key-stdin"
                           ) from None
    try:
        text = line.decode("ascii") if isinstance(line, bytes) else line
    except UnicodeDecodeError:
        raise InvalidInput(field, "the key holds non-ASCII bytes",
                           "printable ASCII characters", "sk-...") from None
    return check_api_key(text, field)


def describe(settings: Settings, data_dir: Path) -> dict[str, Any]:
    """What ``provider show`` prints: the settings in force and, for the key, only whether
    one is present and where it comes from."""
    from ..agent.secrets import KeyringUnavailable, get_api_key

    doc: dict[str, Any] = {}
    sources: dict[str, str] = {}
    problems: list[str] = []
    for name, key, _ in FIELDS:
        try:
            settings.get(key)
        except InvalidInput as exc:
            problems.append(str(exc))
        doc[name] = _shown(settings, key) or None
        sources[name] = settings.source(key)
    api_key: dict[str, Any] = {"present": False, "source": None}
    try:
        present, source = get_api_key(data_dir)
        api_key = {"present": present is not None, "source": source}
    except KeyringUnavailable as exc:
        problems.append(exc.message)
    return {"configured": bool(doc["base_url"] and doc["model"]), **doc, "sources": sources,
            "api_key": api_key, "problems": problems}


def _describe_text(doc: dict[str, Any]) -> str:
    key = doc["api_key"]
    where = {"environment": "from ERRANDS_API_KEY in the environment",
             "keyring": "stored in the keyring"}
    key_text = where[key["source"]] if key["present"] else "none (local providers need none)"
    rows = [(label, doc[name] or "not set", doc["sources"][name])
            for label, (name, _, _) in zip(("base URL", "model", "timeout"), FIELDS)]
    lines = [render.table(("SETTING", "VALUE", "SOURCE"), rows + [("API key", key_text, "")])]
    lines += [f"problem: {p}" for p in doc["problems"]]
    if not doc["configured"]:
        lines.append(f"Agent runs need a base URL and a model: {SET_EXAMPLE}")
    return "\n".join(lines)


def provider_show(args: argparse.Namespace) -> int:
    doc = describe(open_store(args).settings(), _dir(args))
    emit(args, doc, _describe_text(doc))
    return 0


def provider_set(args: argparse.Namespace) -> int:
    from ..agent.secrets import ENV_VAR, delete_api_key, set_api_key

    given = {key: getattr(args, name) for name, key, _ in FIELDS
             if getattr(args, name) is not None}
    if not given and not args.api_key_stdin and not args.forget_key:
        raise InvalidInput("arguments", "nothing to set", "at least one of --base-url, --model, "
                           "--timeout, --api-key-stdin, --forget-key", SET_EXAMPLE)
    for name, key, flag in FIELDS:  # every value checked before anything is written
        if key in given:
            SPECS[key].parse(given[key], flag)
    data = _dir(args)
    if args.api_key_stdin or args.forget_key:
        from .routing import secrets_stay_here
        secrets_stay_here(data, "the model provider's API key")
    api_key = _read_key("--api-key-stdin") if args.api_key_stdin else None
    store = open_store(args)
    notes = []
    if api_key is not None:
        set_api_key(data, api_key)
        notes.append("The API key is stored in the keyring.")
    elif args.forget_key:
        notes.append("The API key was removed from the keyring." if delete_api_key(data)
                     else "No API key was stored in the keyring.")
    for key, value in given.items():
        perform(data, "set_setting", {"key": key, "value": value},
                functools.partial(store.set_setting, key, value))
    settings = store.settings()
    doc = describe(settings, data)
    shadowed = [env_name(k) for k in given if settings.source(k) == "environment"]
    if (api_key is not None or args.forget_key) and doc["api_key"]["source"] == "environment":
        shadowed.append(ENV_VAR)
    if shadowed:
        notes.append(f"Note: {', '.join(shadowed)} in the environment overrides what was "
                     "stored, in this shell.")
    emit(args, doc, "\n".join([*notes, _describe_text(doc)]))
    return 0


def provider_test(args: argparse.Namespace) -> int:
    from ..agent.check import OK, check_provider
    from ..agent.config import load_provider_config

    config = load_provider_config(open_store(args).settings(), _dir(args))
    if config is None:
        raise Conflict("not_configured", f"no provider is configured; {SET_EXAMPLE}")
    checks = asyncio.run(check_provider(config))
    ok = all(c.status == OK for c in checks)
    doc = {"ok": ok, "base_url": config.base_url, "model": config.model,
           "checks": [c.to_dict() for c in checks]}
    text = render.table(("CHECK", "RESULT", "DETAIL"),
                        [(c.check.replace("_", " "), c.status, c.detail) for c in checks])
    emit(args, doc, text)
    return 0 if ok else 1


