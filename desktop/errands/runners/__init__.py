"""What executes a run: one runner per kind of task, behind one contract (``contract``).

The engine knows runners only through that contract and this registry; a runner never
touches the store (the engine records every transition). ``command`` runs a shell command
(``command``, with ``children`` and ``processes`` for the child's life); ``agent`` works a
prompt through with a model and tools (``agent``, over :mod:`errands.agent`); ``notify``
shows a reminder (``notify``); ``script`` runs JavaScript in a sandbox worker and applies
what it proposes once checked (``script``, over :mod:`errands.scripts`). A new kind is one
more entry in ``RUNNERS``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _command() -> Any:
    from .command import CommandRunner
    return CommandRunner()


def _agent() -> Any:
    from .agent import AgentRunner  # (imported only when an engine is made: the SDK is big)
    return AgentRunner()


def _notify() -> Any:
    from .notify import NotifyRunner
    return NotifyRunner()


def _script() -> Any:
    from .script import ScriptRunner
    return ScriptRunner()


RUNNERS: dict[str, Callable[[], Any]] = {"command": _command, "agent": _agent,
                                         "notify": _notify, "script": _script}


def default_runners() -> dict[str, Any]:
    """One runner of each registered kind, for an engine."""
    return {kind: make() for kind, make in RUNNERS.items()}
