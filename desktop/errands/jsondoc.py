"""The one gate for JSON that Errands receives: a file, standard input, the control channel.

``json.loads`` alone lets through what later breaks far from the input: a 4,301-digit
integer (ValueError), nesting deep enough to exhaust the stack when decoded or encoded
again (RecursionError), a lone surrogate that cannot be written to SQLite, NaN, and
duplicate keys silently resolved last-wins. ``loads`` refuses each of these with the
field named (a dotted path, or ``document``), so a person or an agent can fix the input.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from .errors import InvalidInput
from .limits import MAX_INTEGER
from .timeutil import shown

MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_STRING_CHARS = 65_536
MAX_NUMBER_CHARS = 32
_DEPTH_TEXT = f"objects and lists nested at most {MAX_DEPTH} deep"
_NUMBER_TEXT = (f"a finite number of at most {MAX_NUMBER_CHARS} characters, an integer within "
                f"±{MAX_INTEGER:,}")

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = str.maketrans({"[": "1", "{": "1", "]": "2", "}": "2"})
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_EXAMPLE = '{"title": "Backup", "runner": {...}, "trigger": {...}}'


class _Number:
    """A number literal too large to keep; refused by ``check`` where its path is known."""

    def __init__(self, text: str) -> None:
        self.text = text


class _Object(dict):  # type: ignore[type-arg]
    """A decoded object that remembers the first key it saw twice."""

    duplicate: str | None = None


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    out = _Object()
    for key, value in pairs:
        if key in out and out.duplicate is None:
            out.duplicate = key
        out[key] = value
    return out


def _integer(text: str) -> int | _Number:
    if len(text) > MAX_NUMBER_CHARS:
        return _Number(text)
    value = int(text)
    return value if -MAX_INTEGER <= value <= MAX_INTEGER else _Number(text)


def _float(text: str) -> float | _Number:
    value = float(text)
    return value if len(text) <= MAX_NUMBER_CHARS and math.isfinite(value) else _Number(text)


def pretty(doc: Any) -> str:
    """How Errands prints a document (every ``--json``): two-space indent, text as is."""
    return json.dumps(doc, ensure_ascii=False, indent=2)


def key_path(path: str, key: object) -> str:
    """``path.key``, with a key that is not a plain name JSON-quoted (``runner.""``)."""
    name = key if isinstance(key, str) and _PLAIN_KEY.fullmatch(key) else json.dumps(key)
    return f"{path}.{name}" if path else str(name)


def loads(data: str | bytes, field: str = "document", *,
          max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """The decoded value of ``data``, or a refusal naming where it breaks a limit
    (``max_bytes``: an export file may be larger than one definition)."""
    if isinstance(data, bytes):
        if len(data) > max_bytes:
            raise _too_big(field, len(data), max_bytes)
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(field, f"is not UTF-8 text (byte {exc.start})",
                               "a JSON document in UTF-8", _EXAMPLE) from exc
    size = len(data) if len(data) > max_bytes else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise _too_big(field, size, max_bytes)
    depth = max(accumulate(1 if step == "1" else -1 for step in
                           _BRACKETS.sub("", _STRING.sub("", data)).translate(_STEP)),
                default=0)
    if depth > MAX_DEPTH:
        raise InvalidInput(field, f"nests {depth} deep, more than {MAX_DEPTH}", _DEPTH_TEXT,
                           _EXAMPLE)
    try:
        value = json.loads(data, object_pairs_hook=_pairs, parse_int=_integer,
                           parse_float=_float, parse_constant=_Number)
    except json.JSONDecodeError as exc:
        raise InvalidInput(field, f"not valid JSON: {exc.msg} (line {exc.lineno}, column "
                           f"{exc.colno})", "a JSON object like the output of "
                           "'errands show ID --json'", _EXAMPLE) from exc
    check(value, field)
    return value


def check(value: Any, field: str = "document") -> None:
    """Refuse a decoded value that breaks a limit, naming the path of the first offence.

    Walks without recursion, so it is safe on any value (one from the channel included).
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        where = path or field
        if isinstance(item, (dict, list)) and depth > MAX_DEPTH:
            raise InvalidInput(where, f"nests more than {MAX_DEPTH} deep", _DEPTH_TEXT, _EXAMPLE)
        if isinstance(item, dict):
            duplicate = getattr(item, "duplicate", None)
            if duplicate is not None:
                raise InvalidInput(key_path(path, duplicate), f"the key {json.dumps(duplicate)} "
                                   "appears more than once", "each key once per object",
                                   _EXAMPLE)
            for key, child in reversed(item.items()):
                if not isinstance(key, str):
                    raise InvalidInput(where, f"has a key that is not a string: {key!r}",
                                       "string keys", _EXAMPLE)
                _check_string(key, key_path(path, key), "key")
                stack.append((child, key_path(path, key), depth + 1))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]" if path else f"{field}[{i}]", depth + 1)
                         for i, child in reversed(list(enumerate(item))))
        elif isinstance(item, str):
            _check_string(item, where, "string")
        elif isinstance(item, _Number):
            raise InvalidInput(where, f"the number {shown(item.text, 24)} is too large or not "
                               "finite", _NUMBER_TEXT, "5")
        elif isinstance(item, float) and not math.isfinite(item):
            raise InvalidInput(where, f"{item} is not a finite number", _NUMBER_TEXT, "5")
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_INTEGER:
            raise InvalidInput(where, "the number is too large", _NUMBER_TEXT, "5")


def _check_string(text: str, where: str, what: str) -> None:
    if len(text) > MAX_STRING_CHARS:
        raise InvalidInput(where, f"the {what} is {len(text):,} characters long",
                           f"at most {MAX_STRING_CHARS:,} characters", "Backup")
    bad = _SURROGATE.search(text)
    if bad:
        raise InvalidInput(where, f"the {what} holds a lone surrogate "
                           f"U+{ord(bad.group()):04X} at position {bad.start()}, which is not "
                           "text", "valid Unicode text", "Backup")


def _too_big(field: str, size: int, limit: int = MAX_DOCUMENT_BYTES) -> InvalidInput:
    # a reader stops one byte past the limit: then all it knows is "more than"
    said = f"is more than {limit // 1024} KiB" if size == limit + 1 else \
        f"is {size:,} bytes, more than {limit // 1024} KiB"
    return InvalidInput(field, said, f"a JSON document of at most {limit // 1024} KiB",
                        _EXAMPLE)
