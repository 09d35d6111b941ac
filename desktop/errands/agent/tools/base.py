"""What every tool is: a spec the model sees, an effect class the permission model judges,
and an async function from checked arguments to a bounded, model-readable result."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Literal

Effect = Literal["read", "write", "exec", "network", "notify", "ask", "control", "automate",
                 "send", "mcp"]
EFFECTS: tuple[str, ...] = ("read", "write", "exec", "network", "notify", "ask", "control",
                            "automate", "send", "mcp")
MAX_RESULT_CHARS = 16_000  # what one tool result may put into the conversation
_SURROGATE = re.compile("[\ud800-\udfff]")


class ToolError(Exception):
    """A refusal the model reads and may recover from (a wrong argument, a missing file, a
    path outside the workdir). It never fails the run by itself."""


@dataclass
class ToolResult:
    text: str                                   # what the model reads
    untrusted: bool = False                     # the text came from outside (fetched web page)
    changed: list[str] = field(default_factory=list)   # workdir-relative files written
    proposed: str | None = None                 # a dry run's "would have …"


@dataclass
class ToolEnv:
    """What a tool may touch: the run's workdir, and whether this is a dry run."""

    workdir: Path
    dry_run: bool = False
    run_id: str = ""
    automation_id: str = ""
    on_started: Callable[[int], None] | None = None   # told each child pid (crash safety)
    max_command_seconds: float = 600.0
    # The permission model's verdict on fetching one URL (each redirect hop is judged
    # again); None: no rules (tests of the tool alone), every URL allowed.
    judge_url: Callable[[str], "UrlJudgement"] | None = None
    command_network: bool = False    # whether run_command's children may use the network
    secrets: tuple[str, ...] = ()    # values never shown to the model or stored (the API key)
    mail: Any = None                 # the mail account the mail tools use (``tools/mail.py``)
    # folders read tools may reach by their absolute path, never change (a discussion's
    # view of its automation's folder)
    mounts: tuple[Path, ...] = ()


@dataclass(frozen=True)
class UrlJudgement:
    """What the rules say about fetching one URL."""

    action: str          # "allow", "ask" or "deny"
    reason: str          # which default or rule decided
    names_host: bool     # an allow rule names this URL's host literally (no wildcard in it)


Handler = Callable[[ToolEnv, dict[str, Any]], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    effect: Effect
    description: str
    parameters: dict[str, Any]        # JSON schema of the arguments object
    subject: str | None = None        # the argument permission patterns match (path, command, url)
    fixed_subject: str | None = None  # or what every call is judged on (an MCP tool: server.tool)

    @property
    def grant(self) -> str:
        """How ``permissions.tools`` and ``untrusted_ok`` name it: an MCP server's tool as
        ``mcp:server.tool``, any other tool by its name."""
        return f"mcp:{self.fixed_subject}" if self.effect == "mcp" else self.name

    def schema(self) -> dict[str, Any]:
        """The tool as the Chat Completions API wants it."""
        return {"type": "function", "function": {"name": self.name,
                                                 "description": self.description,
                                                 "parameters": self.parameters}}


def parse_arguments(spec: ToolSpec, text: str) -> dict[str, Any]:
    """The model's argument text → a checked dict, or a :class:`ToolError` naming the field,
    the expected shape and an example (the model reads it and tries again)."""
    try:
        args = json.loads(text, parse_constant=_no_constant,
                                 parse_float=_finite) if text.strip() else {}
    except (ValueError, RecursionError):  # ValueError: bad JSON, NaN, a 5,000-digit number
        raise ToolError(f"the arguments of {spec.name} are not valid JSON; expected an "
                        f"object like {example(spec)}") from None
    if not isinstance(args, dict):
        raise ToolError(f"the arguments of {spec.name} must be a JSON object, like "
                        f"{example(spec)}")
    props = spec.parameters.get("properties", {})
    if not isinstance(props, dict):
        props = {}
    required = spec.parameters.get("required", [])
    for name in required if isinstance(required, list) else ():
        if name not in args:
            raise ToolError(f"{spec.name}: missing argument {name!r}; expected "
                            f"{example(spec)}")
    for name, value in args.items():
        shape = props.get(name)
        if shape is None:
            if spec.parameters.get("additionalProperties", False) is False:
                raise ToolError(f"{spec.name}: unknown argument {name!r}; it takes "
                                f"{', '.join(props) or 'no arguments'}")
            continue
        if not _fits(value, shape):
            raise ToolError(f"{spec.name}: argument {name!r} must be {_shape(shape)}; "
                            f"example {example(spec)}")
        if not _valid_text(value):
            raise ToolError(f"{spec.name}: argument {name!r} holds a lone surrogate "
                            "(\\ud800–\\udfff alone), which is not text")
    return args


def _no_constant(name: str) -> float:
    """NaN and Infinity are not JSON, though :func:`json.loads` accepts them."""
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number too large for a float (``1e999``) is refused, not made infinite."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large")
    return value


def _valid_text(value: Any) -> bool:
    """Whether every string in ``value`` is valid Unicode (no lone surrogate, which no file
    name, file or process argument can hold). Walks without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _fits(value: Any, shape: Any) -> bool:
    if not isinstance(shape, dict):
        return True   # (a schema of "true": anything)
    kind = shape.get("type")
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "array":
        item = shape.get("items")
        return isinstance(value, list) and (item is None or all(_fits(v, item) for v in value))
    if kind == "object":
        return isinstance(value, dict)
    return True


def _shape(shape: Any) -> str:
    kind = shape.get("type", "a value") if isinstance(shape, dict) else "a value"
    if not isinstance(kind, str):
        return "one of " + ", ".join(map(str, kind)) if isinstance(kind, list) else "a value"
    if kind == "array":
        items = shape.get("items")
        return f"a list of {items.get('type', 'value') if isinstance(items, dict) else 'value'}s"
    return {"string": "a string", "boolean": "true or false", "integer": "a whole number",
            "number": "a number", "object": "an object"}.get(kind, kind)


def example(spec: ToolSpec) -> str:
    sample = spec.parameters.get("examples")
    if isinstance(sample, list) and sample:
        return json.dumps(sample[0], default=str)
    props = spec.parameters.get("properties", {})
    required = spec.parameters.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return "{}"
    return json.dumps({k: {"string": "…", "boolean": True, "integer": 1, "number": 1,
                           "array": [], "object": {}}.get(
                               v.get("type") if isinstance(v, dict)
                               and isinstance(v.get("type"), str) else "", None)
                       for k, v in props.items() if k in required})


def bounded(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """Text cut to ``limit`` characters, saying so when cut (the model must know)."""
    if len(text) <= limit:
        return text
    head = limit - 200
    return (text[:head] + f"\n… [cut: {len(text) - head} more characters not shown; "
            "narrow the request to see them]")
