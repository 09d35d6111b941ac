"""Every tool a model may call: its spec (what the model sees, what the permission model
judges) and its handler, by name.

Each family module ends with ``TOOLS``, pairs of spec and handler; :func:`register` adds
them here. A family built elsewhere (notify, ask_user, finish, automate) registers the same
way: add its module to :data:`FAMILIES`, or call :func:`register` for each pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...definition import TOOL_NAMES
from . import commands, files, mail, web
from .base import EFFECTS, Handler, ToolEnv, ToolSpec

SPECS: dict[str, ToolSpec] = {}
HANDLERS: dict[str, Handler] = {}


def register(spec: ToolSpec, handler: Handler) -> None:
    """Add one tool. Its name must be one definitions may name (``TOOL_NAMES``, the
    contract with permissions and saved rules) and not yet taken."""
    if spec.name not in TOOL_NAMES:
        raise ValueError(f"{spec.name!r} is not in definition.TOOL_NAMES; add it there first")
    if spec.effect not in EFFECTS:
        raise ValueError(f"{spec.name}: unknown effect class {spec.effect!r}")
    if spec.name in SPECS:
        raise ValueError(f"the tool {spec.name!r} is registered twice")
    SPECS[spec.name] = spec
    HANDLERS[spec.name] = handler


def register_all(pairs: Iterable[tuple[ToolSpec, Handler]]) -> None:
    for spec, handler in pairs:
        register(spec, handler)


FAMILIES = (files, commands, web, mail)
for _family in FAMILIES:
    register_all(_family.TOOLS)


def call_subject(spec: ToolSpec, arguments: Mapping[str, Any], env: ToolEnv) -> str | None:
    """The subject to judge a call on (``permissions.decide(..., subject=…)``): a path as
    the workdir-relative file it leads to, links resolved, so a rule on ``secrets/*``
    also holds for a link to it or an absolute spelling. A path leading outside raises
    the tool's own :class:`~.base.ToolError`, before anyone is asked; no path is the
    workdir, ``.``. Other subjects as given. Touches the file system (resolving links), so not part of the pure decision."""
    if spec.fixed_subject is not None:
        return spec.fixed_subject
    if spec.subject == "path":
        path = arguments.get("path") or "."
        if not isinstance(path, str):
            return None
        found = files.mounted(env.mounts, path)
        if found is not None:  # a read-only mount's file: judged by its absolute path
            if spec.effect != "read":  # refused before anyone is asked
                files.refuse_mounted(env, path)
            return files.locate(*found).target
        return files.locate(env.workdir, path).rel
    value = arguments.get(spec.subject) if spec.subject else None
    return value if isinstance(value, str) else None
