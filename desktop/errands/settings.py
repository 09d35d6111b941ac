"""User settings: the guardrail numbers, stored in the database, overridable per process.

Each key has a type, a default and a validator; ``ERRANDS_<KEY>`` in the environment wins
over the stored value (``ERRANDS_MIN_INTERVAL=1s`` lets tests fire every second).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping

from .errors import InvalidInput
from .timeutil import format_duration, parse_duration


@dataclass(frozen=True)
class SettingSpec:
    key: str
    default: str
    help: str
    parse: Callable[[str, str], Any]
    show: Callable[[Any], str] | None = None  # the canonical text of a parsed value


def _duration(text: str, field: str) -> timedelta:
    return parse_duration(text, field)


def _int_range(low: int, high: int) -> Callable[[str, str], int]:
    def parse(text: str, field: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            value = None
        if value is None or not low <= value <= high:
            raise InvalidInput(field, f"not a whole number from {low} to {high}: {text!r}",
                               f"a whole number from {low} to {high}", str(max(low, 4)))
        return value
    return parse


def _rules(text: str, field: str) -> Any:
    """The user's global permission rules: a JSON list of {tool, pattern, action}."""
    from .agent.permissions import parse_rules  # the agent layer owns what a rule means
    from .jsondoc import loads
    return parse_rules(loads(text, field), field)


def _show_rules(rules: Any) -> str:
    import json
    return json.dumps([{"tool": r.tool, "pattern": r.pattern, "action": r.action} for r in rules])


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
    SettingSpec("permission_rules", "[]", "what agent runs may do unasked: a JSON list of "
                '{"tool", "pattern", "action"}; the last rule that matches a call decides', _rules,
                _show_rules),
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
        spec = check_key(key)
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
