"""Templates: ready-made automations with a few named blanks, one data file each.

A template file (``resources/templates/<name>.json``) holds a title, a description, an
icon, its parameters and a definition skeleton whose strings may name parameters as
``{name}`` (a time parameter also as ``{name:hour}`` and ``{name:minute}``). Filling it in
gives an ordinary definition document with ``origin`` ``{"kind": "template", "template":
name}``. Values put into a ``runner.command`` are shell-quoted, so a folder called
``x; rm -rf ~`` stays one argument; values put into a script's ``runner.source`` are
escaped for a JavaScript string in double quotes, where its blanks stand. Each file is checked on load by filling it with sample
values and parsing the result; a file with an error is reported (file, field, what is wrong)
and left out, and the others still load.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from .definition import ParseContext, parse_definition
from .errors import InvalidInput
from .resources_access import resource

FORMAT = 1
KINDS = ("text", "folder", "url", "time", "integer", "choice")
ParameterKind = Literal["text", "folder", "url", "time", "integer", "choice"]
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]{0,39})(?::(hour|minute))?\}")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_FIELDS = ("format", "title", "description", "icon", "runner", "parameters", "definition")
_PARAM_FIELDS = ("name", "label", "kind", "default", "required", "help", "choices",
                 "minimum", "maximum")
TEXT_MAX = 2000


@dataclass(frozen=True)
class Parameter:
    name: str
    label: str
    kind: ParameterKind
    default: str | int | None = None
    required: bool = True
    help: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: object) -> str | int | None:
        """The value in its normal form; a refusal names ``parameters.<name>``."""
        where = f"parameters.{self.name}"
        if value is None or value == "":
            if self.required:
                raise InvalidInput(where, f"{self.label} is required", _SHAPES[self.kind],
                                   self.example())
            return None
        if self.kind == "integer":
            if isinstance(value, str) and value.strip().lstrip("-").isascii() and \
                    value.strip().lstrip("-").isdigit():
                value = int(value.strip())
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInput(where, f"{self.label} is not a whole number",
                                   _SHAPES["integer"], self.example())
            low = self.minimum if self.minimum is not None else -10**9
            high = self.maximum if self.maximum is not None else 10**9
            if not low <= value <= high:
                raise InvalidInput(where, f"{self.label} must be from {low} to {high}",
                                   f"a whole number from {low} to {high}", str(low))
            return value
        if not isinstance(value, str):
            raise InvalidInput(where, f"{self.label} is not text", _SHAPES[self.kind],
                               self.example())
        text = value.strip()
        if _CONTROL.search(text) or len(text) > TEXT_MAX:
            raise InvalidInput(where, f"{self.label} must be one line of at most {TEXT_MAX} "
                               "characters", _SHAPES[self.kind], self.example())
        if self.kind == "folder":
            path = Path(text).expanduser()
            if not path.is_absolute():
                raise InvalidInput(where, f"{self.label} must be an absolute folder path",
                                   _SHAPES["folder"], self.example())
            if not path.is_dir():
                raise InvalidInput(where, f"{self.label}: no folder at {path}",
                                   "an existing folder", self.example())
            return str(path)
        if self.kind == "url":
            parts = urlsplit(text)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise InvalidInput(where, f"{self.label} must be a web address",
                                   _SHAPES["url"], self.example())
            return text
        if self.kind == "time":
            m = _TIME.match(text)
            if m is None:
                raise InvalidInput(where, f"{self.label} must be a time of day",
                                   _SHAPES["time"], self.example())
            return f"{int(m.group(1)):02d}:{m.group(2)}"
        if self.kind == "choice" and text not in self.choices:
            raise InvalidInput(where, f"{self.label} must be one of " + ", ".join(self.choices),
                               "one of " + ", ".join(self.choices), self.example())
        return text

    def example(self) -> str:
        if self.default not in (None, ""):
            return str(self.default)
        return {"text": "my notes", "folder": str(Path.home()), "url": "https://example.com",
                "time": "09:00", "integer": str(self.minimum or 1),
                "choice": self.choices[0] if self.choices else "x"}[self.kind]


_SHAPES = {"text": "one line of text", "folder": "an absolute path to a folder",
           "url": "an http or https address", "time": "a time of day HH:MM (24-hour clock)",
           "integer": "a whole number", "choice": "one of the listed choices"}


@dataclass(frozen=True)
class Template:
    name: str
    title: str
    description: str
    icon: str
    runner: Literal["agent", "command", "script"]
    parameters: tuple[Parameter, ...]
    skeleton: Mapping[str, Any] = field(repr=False)

    @property
    def needs_model(self) -> bool:
        return self.runner == "agent"

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, str | int | None]:
        return {p.name: p.default for p in self.parameters}

    @property
    def blanks(self) -> tuple[Parameter, ...]:
        """The parameters to ask for before the schedule: all but a time used only in the
        trigger, which the schedule step itself asks for (asking twice confused people)."""
        elsewhere = {name for key, value in self.skeleton.items() if key != "trigger"
                     for name in _placeholders(value)}
        return tuple(p for p in self.parameters
                     if p.kind != "time" or p.name in elsewhere)

    def check(self, values: Mapping[str, object]) -> dict[str, str | int | None]:
        """Every value checked; unknown names are refused."""
        unknown = sorted(set(values) - {p.name for p in self.parameters})
        if unknown:
            raise InvalidInput(f"parameters.{unknown[0]}", "this template has no such blank",
                               "one of " + ", ".join(p.name for p in self.parameters),
                               self.parameters[0].name if self.parameters else "")
        return {p.name: p.check(values.get(p.name, p.default)) for p in self.parameters}

    def fill(self, values: Mapping[str, object]) -> dict[str, Any]:
        """A definition document: the skeleton with the checked values put in."""
        checked = self.check(values)
        doc = _substitute(self.skeleton, checked, "")
        doc = _drop_empty(doc)
        if isinstance(doc.get("title"), str) and len(doc["title"]) > 120:  # a long blank
            doc["title"] = doc["title"][:119].rstrip() + "…"
        doc["origin"] = {"kind": "template", "template": self.name}
        return doc


def _substitute(node: Any, values: Mapping[str, str | int | None], path: str) -> Any:
    if isinstance(node, dict):
        return {k: _substitute(v, values, f"{path}.{k}" if path else k) for k, v in node.items()}
    if isinstance(node, list):
        return [_substitute(v, values, f"{path}[{i}]") for i, v in enumerate(node)]
    if not isinstance(node, str):
        return node
    quote = path == "runner.command"
    script = path == "runner.source"   # a value goes inside a JavaScript "…" string
    whole = _PLACEHOLDER.fullmatch(node)
    if whole and not whole.group(2) and not quote and not script:
        value = values[whole.group(1)]
        return value  # keeps an integer an integer, an empty blank None

    def put(m: re.Match[str]) -> str:
        value = values[m.group(1)]
        if value is None:
            return ""
        if m.group(2):
            hour, minute = str(value).split(":")
            return str(int(hour if m.group(2) == "hour" else minute))
        if script:
            return json.dumps(str(value), ensure_ascii=False)[1:-1]
        return shlex.quote(str(value)) if quote else str(value)
    return _PLACEHOLDER.sub(put, node)


def _drop_empty(doc: dict[str, Any]) -> dict[str, Any]:
    """An optional blank left empty leaves its field out (the default applies)."""
    return {k: (_drop_empty(v) if isinstance(v, dict) else v) for k, v in doc.items()
            if v is not None}


@dataclass(frozen=True)
class TemplateProblem:
    file: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


class _Bad(Exception):
    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where, self.message = where, message


def read_template(name: str, text: str, *, now: datetime | None = None,
                  icons: Iterable[str] | None = None) -> Template:
    """One template from its file's text; a problem raises :class:`InvalidInput` naming
    the field."""
    try:
        return _read(name, text, now, None if icons is None else set(icons))
    except _Bad as bad:
        raise InvalidInput(bad.where, bad.message, "a template file as docs/templates.md "
                           "describes", "resources/templates/daily-brief.json") from None


def _read(name: str, text: str, now: datetime | None, icons: set[str] | None) -> Template:
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _Bad("(file)", f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise _Bad("(file)", "must hold one JSON object")
    for key in doc:
        if key not in _FIELDS:
            raise _Bad(key, "unknown field (allowed: " + ", ".join(_FIELDS) + ")")
    if doc.get("format") != FORMAT:
        raise _Bad("format", f"must be {FORMAT}")
    title = _text(doc, "title", 80)
    description = _text(doc, "description", 400)
    icon = _text(doc, "icon", 40)
    if icons is not None and icon not in icons:
        raise _Bad("icon", f"no icon named {icon!r} in resources/icons/templates")
    runner = doc.get("runner")
    if runner not in ("agent", "command", "script"):
        raise _Bad("runner", "must be \"agent\", \"command\" or \"script\"")
    raw = doc.get("parameters", [])
    if not isinstance(raw, list) or len(raw) > 12:
        raise _Bad("parameters", "must be a list of at most 12 blanks")
    params = tuple(_parameter(p, f"parameters[{i}]") for i, p in enumerate(raw))
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise _Bad("parameters", "two blanks have the same name")
    skeleton = doc.get("definition")
    if not isinstance(skeleton, dict):
        raise _Bad("definition", "must be a definition document with {blanks}")
    if (skeleton.get("runner") or {}).get("kind") != runner:
        raise _Bad("definition.runner.kind", f"must match \"runner\": {runner}")
    used = set(_placeholders(skeleton))
    for missing in sorted(used - set(names)):
        raise _Bad("definition", f"names the blank {{{missing}}}, which is not a parameter")
    template = Template(name, title, description, icon, runner, params, skeleton)
    samples = {p.name: p.example() if p.kind != "integer" else int(p.example())
               for p in params}
    for p in params:  # a folder sample must exist for the check: the home folder does
        if p.kind == "folder":
            samples[p.name] = str(Path.home())
    try:
        filled = template.fill(samples)
        parse_definition(filled, ParseContext(now=now or datetime.now().astimezone()))
    except InvalidInput as exc:
        raise _Bad(f"definition.{exc.field}" if not exc.field.startswith("parameters")
                   else exc.field, exc.message) from None
    return template


def _placeholders(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        for v in node.values():
            yield from _placeholders(v)
    elif isinstance(node, list):
        for v in node:
            yield from _placeholders(v)
    elif isinstance(node, str):
        for m in _PLACEHOLDER.finditer(node):
            yield m.group(1)


def _text(doc: Mapping[str, Any], key: str, limit: int, where: str = "") -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit or \
            _CONTROL.search(value):
        raise _Bad(where + key, f"must be one line of 1 to {limit} characters")
    return value.strip()


def _parameter(raw: object, where: str) -> Parameter:
    if not isinstance(raw, dict):
        raise _Bad(where, "must be an object with name, label and kind")
    for key in raw:
        if key not in _PARAM_FIELDS:
            raise _Bad(f"{where}.{key}", "unknown field (allowed: " + ", ".join(_PARAM_FIELDS)
                       + ")")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise _Bad(f"{where}.name", "must be lower-case letters, digits and _ (a-z first)")
    label = _text(raw, "label", 60, f"{where}.")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise _Bad(f"{where}.kind", "must be one of " + ", ".join(KINDS))
    help_ = raw.get("help", "")
    if not isinstance(help_, str) or len(help_) > 300:
        raise _Bad(f"{where}.help", "must be text of at most 300 characters")
    required = raw.get("required", True)
    if not isinstance(required, bool):
        raise _Bad(f"{where}.required", "must be true or false")
    choices = raw.get("choices", [])
    if not isinstance(choices, list) or not all(isinstance(c, str) and c for c in choices) \
            or (kind == "choice") != bool(choices):
        raise _Bad(f"{where}.choices", "a choice blank needs a list of choices (and only it)")
    bounds = []
    for key in ("minimum", "maximum"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or kind != "integer"):
            raise _Bad(f"{where}.{key}", "only an integer blank has whole-number bounds")
        bounds.append(value)
    param = Parameter(name, label, kind, None, required, help_.strip(), tuple(choices),
                      bounds[0], bounds[1])
    default = raw.get("default")
    if default is not None:
        try:
            checked = param.check(default) if kind != "folder" else default
        except InvalidInput as exc:
            raise _Bad(f"{where}.default", exc.message) from None
        if kind == "folder" and not isinstance(default, str):
            raise _Bad(f"{where}.default", "must be a path")
        param = Parameter(name, label, kind, checked, required, help_.strip(), tuple(choices),
                          bounds[0], bounds[1])
    return param


def load_templates(folder: Path | None = None, *, now: datetime | None = None
                   ) -> tuple[list[Template], list[TemplateProblem]]:
    """Every template in ``folder`` (the shipped ones by default), sorted by title, and
    the files left out with why."""
    base: Any = folder if folder is not None else resource("templates")
    icon_dir: Any = resource("icons", "templates")
    icons = {p.name[:-4] for p in icon_dir.iterdir() if p.name.endswith(".svg")} \
        if icon_dir.is_dir() else set()
    templates, problems = [], []
    entries = sorted((p for p in base.iterdir() if p.name.endswith(".json")),
                     key=lambda p: p.name) if base.is_dir() else []
    for entry in entries:
        name = entry.name[:-5]
        try:
            text = entry.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(TemplateProblem(entry.name, "(file)", f"cannot be read: {exc}"))
            continue
        try:
            templates.append(read_template(name, text, now=now, icons=icons))
        except InvalidInput as exc:
            problems.append(TemplateProblem(entry.name, exc.field, exc.message))
    templates.sort(key=lambda t: t.title.casefold())
    return templates, problems


def icon_path(template: Template) -> Any:
    return resource("icons", "templates", f"{template.icon}.svg")
