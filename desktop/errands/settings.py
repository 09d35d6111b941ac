"""User settings: the guardrail numbers and the model provider, stored in the database,
overridable per process.

Each key has a type, a default and a validator; ``ERRANDS_<KEY>`` in the environment wins
over the stored value (``ERRANDS_MIN_INTERVAL=1s`` lets tests fire every second). A key
whose default is empty (the provider's URL and model) reads as "not configured" while
empty; storing an empty value is refused (``config unset`` clears it).
"""

from __future__ import annotations

import os
import re
import string
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from .limits import MAX_HISTORY_LIMIT
from .errors import InvalidInput
from .timeutil import format_duration, parse_duration, shown


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: str
    help: str
    parse: Callable[[str, str], Any]
    show: Callable[[Any], str] | None = None  # the canonical text of a parsed value


def _duration(text: str, field: str) -> timedelta:
    return parse_duration(text, field)


def _int_range(low: int, high: int, example: str | None = None) -> Callable[[str, str], int]:
    """A whole number from ``low`` to ``high``; ``example`` shows a typical one in a refusal
    (a history limit of 4 would be a strange thing to suggest)."""
    example = example or str(max(low, 4))

    def parse(text: str, field: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            value = None
        if value is None or not low <= value <= high:
            raise InvalidInput(field, f"not a whole number from {low} to {high}: {text!r}",
                               f"a whole number from {low} to {high}", example)
        return value
    return parse


def _tool_servers(text: str, field: str) -> Any:
    from .tool_servers import parse_servers
    return parse_servers(text, field)


def _show_tool_servers(value: Any) -> str:
    from .tool_servers import show_servers
    return show_servers(value)


def _rules(text: str, field: str) -> Any:
    """The user's global permission rules: a JSON list of {tool, pattern, action}."""
    from .agent.permissions import parse_rules  # the agent layer owns what a rule means
    from .jsondoc import loads
    return parse_rules(loads(text, field), field)


def _show_rules(rules: Any) -> str:
    import json
    return json.dumps([{"tool": r.tool, "pattern": r.pattern, "action": r.action} for r in rules])


MAX_TEXT = 200  # what the control channel carries for a setting's value
URL_EXAMPLE = "http://127.0.0.1:11434/v1"
_URL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")


def _bounded_duration(low: timedelta, high: timedelta) -> Callable[[str, str], timedelta]:
    def parse(text: str, field: str) -> timedelta:
        value = parse_duration(text, field)
        if not low <= value <= high:
            bounds = f"from {format_duration(low)} to {format_duration(high)}"
            raise InvalidInput(field, f"{text} is out of range", f"a duration {bounds}", "2m")
        return value
    return parse


_UNITS = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}
_SIZE = re.compile(r"([0-9]{1,16})\s*([KMGT]?B)?", re.IGNORECASE)


def _bounded_size(low: int, high: int) -> Callable[[str, str], int]:
    """A number of bytes, written with a unit (``50MB``; units of 1024: B, KB, MB, GB, TB;
    a bare number is bytes)."""
    def parse(text: str, field: str) -> int:
        expected = f"a size from {_show_size(low)} to {_show_size(high)}, such as 50MB"
        found = _SIZE.fullmatch(text.strip()) if isinstance(text, str) else None
        if found is None:
            raise InvalidInput(field, f"not a size: {shown(text)}", expected, "50MB")
        value = int(found.group(1)) * _UNITS[(found.group(2) or "B").upper()]
        if not low <= value <= high:
            raise InvalidInput(field, f"{text} is out of range", expected, "50MB")
        return value
    return parse


def _show_size(value: int) -> str:
    """The largest unit that states ``value`` exactly: 52428800 → ``50MB``."""
    for unit in ("TB", "GB", "MB", "KB"):
        if value and value % _UNITS[unit] == 0:
            return f"{value // _UNITS[unit]}{unit}"
    return f"{value}B"


# a host (a name, an IPv4 address, or an IPv6 one in brackets), then an optional port
_NETLOC = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\[\]:@]+)(:[0-9]*)?")


def _base_url(text: str, field: str) -> str:
    """An http(s) URL with a host, the provider's API root (the SDK appends
    ``/chat/completions``). ASCII only, no credentials: the key lives in the keyring,
    never in a setting that is stored in the database."""
    expected = f"an http:// or https:// URL of at most {MAX_TEXT} characters"
    if not isinstance(text, str) or not text:
        raise InvalidInput(field, "is empty", expected, URL_EXAMPLE)
    if len(text) > MAX_TEXT:
        raise InvalidInput(field, f"is longer than {MAX_TEXT} characters", expected, URL_EXAMPLE)
    bad = next((c for c in text if c not in _URL_CHARACTERS), None)
    if bad is not None:
        raise InvalidInput(field, f"{shown(text)} contains {shown(bad)}, which a URL may not "
                           "hold as it is", expected + " (percent-encode other characters)",
                           URL_EXAMPLE)
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:  # a bracketed host that is no IPv6 address
        host, parts = None, None
    if parts is not None and (parts.username is not None or parts.password is not None):
        raise InvalidInput(field, "holds a user name or password; give the API key with "
                           "'errands provider set --api-key-stdin' instead", expected + " without "
                           "credentials", URL_EXAMPLE)
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        raise InvalidInput(field, f"not an http(s) URL with a host: {shown(text)}", expected,
                           URL_EXAMPLE)
    if not _NETLOC.fullmatch(parts.netloc):  # ("[::1]]", "[v1.x]", "[::1]x": the client
        raise InvalidInput(field, f"not an http(s) URL with a host: {shown(text)}", expected,
                           URL_EXAMPLE)                          # refuses what urlsplit takes)
    try:
        _ = parts.port
    except ValueError:
        raise InvalidInput(field, f"the port of {shown(text)} is not a whole number from 0 to "
                           "65535", expected, URL_EXAMPLE) from None
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise InvalidInput(field, "has a query or fragment; give the API root only", expected,
                           URL_EXAMPLE)
    return text.rstrip("/")


def _one_line(text: str, field: str) -> str:
    expected = f"one line of 1 to {MAX_TEXT} characters"
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(field, "is empty", expected, "llama3.2")
    if len(text) > MAX_TEXT:
        raise InvalidInput(field, f"is longer than {MAX_TEXT} characters", expected, "llama3.2")
    if any(not c.isprintable() for c in text) or text != text.strip():
        raise InvalidInput(field, f"{shown(text)} has control characters or surrounding "
                           "spaces", expected, "llama3.2")
    return text


def _client_names(text: str, field: str) -> str:
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if len(name) > 100 or any(not c.isprintable() for c in name):
            raise InvalidInput(field, f"{shown(name)} is not a client name", "comma-separated "
                               "names of 1 to 100 printable characters", "claude-code,codex")
    return ",".join(dict.fromkeys(names))


SPECS: dict[str, SettingSpec] = {s.key: s for s in (
    SettingSpec("min_interval", "60s", "shortest allowed gap between two fires", _duration),
    SettingSpec("grace", "2m", "how late a due fire may still run normally", _duration),
    SettingSpec("concurrency", "4", "how many runs may be active at once", _int_range(1, 1000)),
    SettingSpec("shutdown_grace", "5s", "how long running work may finish on quit", _duration),
    SettingSpec("catch_up_stagger", "2s", "spacing between catch-up runs after start or wake",
                _duration),
    SettingSpec("network_wait", "2m", "how long a catch-up waits for the network", _duration),
    SettingSpec("parked_expiry", "24h", "how long a parked run waits for a decision before it "
                "expires", _duration),
    SettingSpec("run_history_limit", "1000", "how many ended runs each automation keeps (the "
                "oldest beyond it are deleted with their logs and transcripts; skipped fires "
                "are merged into one record); policy.history_limit overrides it",
                _int_range(1, MAX_HISTORY_LIMIT, "500")),
    SettingSpec("output_log_limit", "50MB", "how many bytes of run output logs each automation "
                "keeps (the oldest logs beyond it are deleted)",
                _bounded_size(1024, 1024 ** 4), _show_size),
    SettingSpec("unattended_expiry", "7d", "how long an automation's parked runs may go "
                "unanswered before it is paused", _duration),
    SettingSpec("permission_rules", "[]", "what agent runs may do unasked: a JSON list of "
                '{"tool", "pattern", "action"}; the last rule that matches a call decides', _rules,
                _show_rules),
    SettingSpec("provider_base_url", "", "the OpenAI-compatible API the agent talks to "
                "(empty: none configured)", _base_url),
    SettingSpec("provider_model", "", "the model agent runs use unless an automation names "
                "one (empty: none configured)", _one_line),
    SettingSpec("provider_timeout", "2m", "how long one model request may take",
                _bounded_duration(timedelta(seconds=1), timedelta(hours=1))),
    SettingSpec("webhook_port", "47291", "the loopback port webhook triggers listen on (0: "
                "any free port; the server runs only while an automation has a webhook "
                "trigger)", _int_range(0, 65535, "47291")),
    SettingSpec("mcp_trusted_clients", "", "MCP clients that may create active automations "
                "and enable and run them (comma-separated names, as 'errands mcp --as NAME' "
                "in their configuration gives them, such as claude-code); the others' wait "
                "for you", _client_names),
    SettingSpec("mcp_servers", "[]", "MCP servers whose tools every agent run may use (each "
                "call asks unless a rule allows it): a JSON list of {name, command} or {name, "
                "url, header}; an automation's runner.mcp_servers adds its own", _tool_servers,
                _show_tool_servers),
    SettingSpec("webhook_rate_limit", "120", "how many calls a minute one webhook trigger "
                "accepts (more are answered 429)", _int_range(1, 1_000_000, "120")),
)}


def env_name(key: str) -> str:
    return "ERRANDS_" + key.upper()


def check_key(key: str) -> SettingSpec:
    spec = SPECS.get(key)
    if spec is None:
        raise InvalidInput("key", f"unknown setting {key!r}",
                           "one of " + ", ".join(sorted(SPECS)), "min_interval")
    return spec


def normalize(key: str, value: str) -> str:
    """The canonical text of a value, after checking it (``90m`` → ``90m``, ``3600s`` → ``1h``)."""
    spec = check_key(key)
    parsed = spec.parse(value, key)
    if spec.show is not None:
        return spec.show(parsed)
    return format_duration(parsed) if isinstance(parsed, timedelta) else str(parsed)


class Settings:
    """Resolved settings: environment, then stored values, then defaults."""

    def __init__(self, stored: Mapping[str, str] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self._stored = dict(stored or {})
        self._environ = os.environ if environ is None else environ

    def source(self, key: str) -> str:
        check_key(key)
        if env_name(key) in self._environ:
            return "environment"
        return "stored" if key in self._stored else "default"

    def stored(self, key: str) -> str:
        """The value kept in the database (or the default), ignoring the environment."""
        spec = check_key(key)
        return self._stored.get(key, spec.default)

    def raw(self, key: str) -> str:
        spec = check_key(key)
        return self._environ.get(env_name(key), self._stored.get(key, spec.default))

    def get(self, key: str) -> Any:
        """The parsed value in force; ``""`` for an empty key whose default is empty (not
        configured)."""
        spec = check_key(key)
        if spec.default == "" and self.raw(key) == "":
            return ""
        field = env_name(key) if self.source(key) == "environment" else key
        return spec.parse(self.raw(key), field)

    @property
    def min_interval(self) -> timedelta:
        return self.get("min_interval")

    @property
    def grace(self) -> timedelta:
        return self.get("grace")

    @property
    def concurrency(self) -> int:
        return self.get("concurrency")

    def as_rows(self) -> list[dict[str, str]]:
        return [{"key": k, "value": self.raw(k), "source": self.source(k), "help": s.help}
                for k, s in sorted(SPECS.items())]
