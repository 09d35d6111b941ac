"""Whether one tool call may run: ``allow``, ``ask`` the person, or ``deny``. Pure: no I/O.

How a call is decided, in order:

1. The default of its effect class (:data:`DEFAULT_ACTIONS`): reading, notifying, asking
   the person and finishing are allowed; writing, executing, the network and creating
   automations ask.
2. The user's global rules (a setting), last match wins. A global ``deny`` is final:
   nothing an automation says can lift it.
3. The automation's mode: ``allow_all`` allows every tool, ``allow_listed`` the tools in
   ``permissions.tools``, ``ask`` adds nothing.
4. The automation's own rules (saved "always allow" answers among them), last match wins.
5. Untrusted escalation: once the run has read fetched web content, a ``run_command``,
   ``automate`` or ``fetch_url`` call that would be allowed asks instead, unless the tool
   is in ``permissions.untrusted_ok``. Text from outside must not be able to steer the
   run into executing or spreading on its own.

A rule's ``tool`` matches the tool's name, its effect class (``write``) or ``*``. Its
``pattern`` is a glob (:func:`fnmatch.fnmatchcase`, where ``*`` also crosses ``/``) on
the call's subject: the path, command or URL. ``*`` matches every call, one without a
subject too; any other pattern matches only calls that have one.

Commands are shell text, so a pattern that allows must not allow more than it says: an
``allow`` pattern matches a command only when every part of it (split at ``;``, ``&``,
``|``, ``&&``, ``||`` and line breaks) matches, and never one with ``$(…)``, backquotes or
redirections; ``git *`` allows ``git add . && git commit`` but not ``git log; rm -rf ~``.
An ``ask`` or ``deny`` pattern matches when the whole command or any part of it does.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from .. import jsondoc
from ..definition import TOOL_NAMES, Permissions, Rule
from ..definition import parse_rules as parse_rule_list
from .tools.base import EFFECTS, ToolSpec

Action = Literal["allow", "ask", "deny"]

DEFAULT_ACTIONS: Mapping[str, Action] = MappingProxyType({
    "read": "allow", "notify": "allow", "ask": "allow", "control": "allow",
    "write": "ask", "exec": "ask", "network": "ask", "automate": "ask"})
ESCALATED_TOOLS = ("run_command", "automate", "fetch_url")
# What a global rule may name: a tool, an effect class (notify and automate are both), or *.
RULE_TOOLS: tuple[str, ...] = tuple(dict.fromkeys((*TOOL_NAMES, *EFFECTS, "*")))

_PARTS = re.compile(r"&&|\|\||[;&|\n]")
_EXPANDS = re.compile(r"\$\(|[`<>]")


@dataclass(frozen=True)
class Verdict:
    action: Action
    reason: str     # which default or rule decided, for the person and the audit


def parse_rules(doc: object, field: str) -> tuple[Rule, ...]:
    """The global rules setting: a JSON list of ``{tool, pattern, action}`` (or its text),
    where ``tool`` may also be an effect class or ``*``. Refusals are
    :class:`~errands.errors.InvalidInput` naming ``field[i].key``."""
    if isinstance(doc, (str, bytes)):
        doc = jsondoc.loads(doc, field)
    return parse_rule_list(doc, field, RULE_TOOLS)


def subject_of(spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
    """The argument patterns match (``spec.subject``), None when the tool has none. A path
    is compared in its plain form (``./a//b`` as ``a/b``); no path is the workdir, ``.``."""
    if spec.subject == "path":
        value = arguments.get("path") or "."
        return posixpath.normpath(value) if isinstance(value, str) else None
    value = arguments.get(spec.subject) if spec.subject else None
    return value if isinstance(value, str) else None


def _command_matches(pattern: str, command: str, action: str) -> bool:
    parts = [p.strip() for p in _PARTS.split(command) if p.strip()]
    if action == "allow":
        return bool(parts) and not _EXPANDS.search(command) and all(
            fnmatch.fnmatchcase(p, pattern) for p in parts)
    return fnmatch.fnmatchcase(command.strip(), pattern) or any(
        fnmatch.fnmatchcase(p, pattern) for p in parts)


def rule_matches(rule: Rule, spec: ToolSpec, subject: str | None) -> bool:
    """Whether ``rule`` applies to a call of ``spec`` on ``subject`` (see the module text)."""
    if rule.tool not in (spec.name, spec.effect, "*"):
        return False
    if rule.pattern == "*":
        return True
    if subject is None:
        return False
    if spec.subject == "command":
        return _command_matches(rule.pattern, subject, rule.action)
    return fnmatch.fnmatchcase(subject, rule.pattern)


def _last_match(rules: Sequence[Rule], spec: ToolSpec,
                subject: str | None) -> tuple[int, Rule] | None:
    for index in range(len(rules) - 1, -1, -1):
        if rule_matches(rules[index], spec, subject):
            return index, rules[index]
    return None


def _named(whose: str, index: int, rule: Rule) -> str:
    return f'{whose} rule {index + 1} ({rule.tool} "{rule.pattern}": {rule.action})'


def decide(spec: ToolSpec, arguments: Mapping[str, Any], *, global_rules: Sequence[Rule],
           permissions: Permissions, untrusted: bool, subject: str | None = None) -> Verdict:
    """The verdict on one call of ``spec`` with ``arguments``. ``subject`` replaces the one
    read from the arguments when the caller has a truer form (a path with its links
    resolved, relative to the workdir)."""
    if subject is None:
        subject = subject_of(spec, arguments)
    action: Action = DEFAULT_ACTIONS.get(spec.effect, "ask")
    reason = f"the default for {spec.effect} tools"
    found = _last_match(global_rules, spec, subject)
    if found is not None:
        if found[1].action == "deny":
            return Verdict("deny", _named("your", *found))
        action, reason = found[1].action, _named("your", *found)
    if permissions.mode == "allow_all":
        action, reason = "allow", "this automation allows every tool"
    elif permissions.mode == "allow_listed" and spec.name in permissions.tools:
        action, reason = "allow", f"this automation allows {spec.name}"
    found = _last_match(permissions.rules, spec, subject)
    if found is not None:
        action, reason = found[1].action, _named("this automation's", *found)
    if (untrusted and action == "allow" and spec.name in ESCALATED_TOOLS
            and spec.name not in permissions.untrusted_ok):
        return Verdict("ask", f"this run has read web content, so {spec.name} asks first "
                              f"(otherwise allowed: {reason})")
    return Verdict(action, reason)
