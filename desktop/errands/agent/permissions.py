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
5. Unchecked commands: a ``run_command`` that would be allowed asks instead when the
   command is unproven (below) and any deny rule, global or the automation's, names
   ``run_command`` (by name, ``exec`` or ``*``): a deny rule makes any command it cannot
   check ask, never run, whatever the mode or a later allow rule says.
6. Untrusted escalation: once the run has read fetched web content, and from the start
   in a run an event started (its payload is someone else's text), a ``run_command``,
   ``automate``, ``fetch_url``, ``send_mail`` or MCP server tool call that would be
   allowed asks instead, unless the tool is in ``permissions.untrusted_ok`` (an MCP tool
   as ``mcp:server.tool``). Text from outside must not be able to steer the run into
   executing or spreading on its own.

An MCP server's tool (effect ``mcp``, asked by default) is judged on ``server.tool``: a
rule ``{"tool": "mcp", "pattern": "deploy.*", "action": "allow"}`` allows every tool of
the server ``deploy``.

A rule's ``tool`` matches the tool's name, its effect class (``write``) or ``*``. Its
``pattern`` is a glob (:func:`fnmatch.fnmatchcase`, where ``*`` also crosses ``/``) on
the call's subject: the path, command or URL. ``*`` matches every call, one without a
subject too; any other pattern matches only calls that have one.

Commands
--------

A command is shell text; :func:`errands.agent.shell.parse` reads it. It is *proven* when it
is nothing but simple commands of plain words, ``'…'`` and ``"…"`` (without ``$``,
backquotes or backslashes), joined by ``;``, ``&&``, ``||``, ``|`` and line breaks, none of
them a wrapper that runs another command or code (``env``, ``sudo``, ``xargs``, ``bash``,
``eval``, ``find -exec``/``-delete``, ``git -c`` …; the list is :mod:`~errands.agent.shell`'s).
Anything else is *unproven*, with the reason: ``$`` in any form, backquotes, backslashes,
redirections, ``&``, subshells and braces, unquoted globs, ``~``, comments, ``NAME=value``
before a command, keywords (``if``, ``for`` …). A part of a proven command is judged as its
words after quote removal, rejoined with :func:`shlex.join`: ``r''m x`` is ``rm x``.

- An ``allow`` pattern matches a command when the command is proven and every part of it
  matches (``git *`` allows ``git add . && git commit -m 'a b'``; not ``git log; rm x``, not
  ``git log $(id)``, not ``git -c core.pager=sh log``, not ``GIT_PAGER=sh git log``), or
  when the pattern is literal and, its escapes undone, equals the whole command (both
  stripped). Literal: no ``*``, ``?`` or ``[`` other than the escapes ``[*]``, ``[?]`` and
  ``[[]``; it is what an "always allow" saves (:meth:`~errands.runners.agent.AgentRunner.saved_rule`),
  so ``echo a >> log.txt && echo b`` approved always is allowed again, exactly that text.
  The pattern ``*`` matches every command, proven or not.
- An ``ask`` or ``deny`` pattern matches when the whole command matches, or any part: on a
  proven command each part's words, also with the program as its base name (``/bin/rm -rf
  x`` is ``rm -rf x``); on any command, also its text split at ``;``, ``&``, ``|`` and line
  breaks as written. A proven ``r''m x`` or ``/bin/rm x`` meets a global deny ``rm *``:
  denied, finally.
- An unproven command cannot be checked against a deny rule, so any deny rule for
  ``run_command`` (global or the automation's) makes it ask instead of running (step 5),
  naming the rule and why: ``bash -c 'rm x'``, ``echo $(rm x)``, ``command rm x``,
  ``FOO=1 rm x``, ``find . -delete``, ``\\rm x`` all ask under a deny ``rm *``, in mode
  ``allow_all`` too.

Where a deny rule is weaker than it looks: it names a program, and another program with the
same effect is not that program: ``unlink x``, ``git rm x``, ``python3 -c …`` or a script
are not ``rm``, and run where they are allowed. To stop an effect, keep ``run_command`` on
ask; confinement (:mod:`errands.confine`) limits where any command may write. Likewise an
``allow`` rule allows all that the programs it names do: ``make *`` runs what the Makefile
says, ``python3 *`` any code, ``git *`` a repository's hooks and aliases.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from .. import jsondoc
from ..definition import TOOL_NAMES, Permissions, Rule
from ..definition import parse_rules as parse_rule_list
from . import shell
from .tools.base import EFFECTS, ToolSpec

Action = Literal["allow", "ask", "deny"]

DEFAULT_ACTIONS: Mapping[str, Action] = MappingProxyType({
    "read": "allow", "notify": "allow", "ask": "allow", "control": "allow",
    "write": "ask", "exec": "ask", "network": "ask", "automate": "ask", "send": "ask",
    "mcp": "ask"})
ESCALATED_TOOLS = ("run_command", "automate", "fetch_url", "send_mail")
# What a global rule may name: a tool, an effect class (notify and automate are both), or *.
RULE_TOOLS: tuple[str, ...] = tuple(dict.fromkeys((*TOOL_NAMES, *EFFECTS, "*")))

# A command's text split at its separators, and what no allow pattern passes: kept for the
# approval dialog's explanations; the judgement itself is shell.parse's.
_PARTS = re.compile(r"&&|\|\||[;&|\n]")   # the parts of a command as written
_ESCAPES = {"[*]": "*", "[?]": "?", "[[]": "["}


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
    is compared in its plain form (``./a//b`` as ``a/b``); no path is the workdir, ``.``;
    an MCP tool is ``server.tool``, whatever its arguments."""
    if spec.fixed_subject is not None:
        return spec.fixed_subject
    if spec.subject == "path":
        value = arguments.get("path") or "."
        return posixpath.normpath(value) if isinstance(value, str) else None
    value = arguments.get(spec.subject) if spec.subject else None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)  # (send_mail's recipients)
    return value if isinstance(value, str) else None


def literal(pattern: str) -> str | None:
    """The one text ``pattern`` matches when it has no wildcard (``*``, ``?``, ``[``, but the
    escapes ``[*]``, ``[?]``, ``[[]`` stand for their character), else None."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        escape = _ESCAPES.get(pattern[i:i + 3])
        if escape is not None:
            out.append(escape)
            i += 3
        elif pattern[i] in "*?[":
            return None
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def _spellings(words: tuple[str, ...]) -> tuple[str, ...]:
    """A part as deny and ask patterns see it: its words, and with its program's base name."""
    joined = shlex.join(words)
    name = shell.program(words)
    found = [joined]
    for spelled in (name, name.casefold()):  # (RM runs rm on a case-insensitive disk)
        if spelled != words[0]:
            found.append(shlex.join((spelled, *words[1:])))
    return tuple(dict.fromkeys(found))


def _command_matches(pattern: str, command: str, action: str) -> bool:
    parsed = shell.parse(command)
    if action == "allow":
        text = literal(pattern)
        if text is not None and text.strip() == command.strip():
            return True
        return parsed.proven and bool(parsed.parts) and all(
            fnmatch.fnmatchcase(shlex.join(words), pattern) for words in parsed.parts)
    texts = [command.strip()]
    for part in _PARTS.split(command):  # as written, for an unproven command too
        part = part.strip()
        if part:
            first = part.split(maxsplit=1)[0]
            texts.append(part)
            if posixpath.basename(first) != first:
                texts.append(posixpath.basename(first) + part[len(first):])
    for words in parsed.parts:
        texts.extend(_spellings(words))
    return any(fnmatch.fnmatchcase(text, pattern) for text in texts)


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
    elif permissions.mode == "allow_listed" and spec.grant in permissions.tools:
        action, reason = "allow", f"this automation allows {spec.grant}"
    found = _last_match(permissions.rules, spec, subject)
    if found is not None:
        action, reason = found[1].action, _named("this automation's", *found)
    if action == "allow" and spec.subject == "command" and isinstance(subject, str):
        unchecked = _unchecked_deny(spec, subject, global_rules, permissions.rules)
        if unchecked is not None:
            return unchecked
    if (untrusted and action == "allow" and escalated(spec)
            and spec.grant not in permissions.untrusted_ok):
        return Verdict("ask", f"this run has read untrusted content (a web page, or the "
                              f"event that started it), so {spec.grant} asks first "
                              f"(otherwise allowed: {reason})")
    return Verdict(action, reason)


def escalated(spec: ToolSpec) -> bool:
    """Whether text from outside makes a call of ``spec`` ask: commands, automating, the
    network, sending, and every MCP server's tool (it may do any of those)."""
    return spec.name in ESCALATED_TOOLS or spec.effect == "mcp"


def _unchecked_deny(spec: ToolSpec, command: str, global_rules: Sequence[Rule],
                    automation_rules: Sequence[Rule]) -> Verdict | None:
    """Ask, naming the first deny rule for this tool, when ``command`` is unproven: what it
    runs cannot be checked against the rule, so it must not run unseen."""
    parsed = shell.parse(command)
    if parsed.proven:
        return None
    for whose, rules in (("your", global_rules), ("this automation's", automation_rules)):
        for index, rule in enumerate(rules):
            if rule.action == "deny" and rule.tool in (spec.name, spec.effect, "*"):
                return Verdict("ask", f"{_named(whose, index, rule)} cannot be checked on "
                                      f"this command, so it asks first: {parsed.why}")
    return None
