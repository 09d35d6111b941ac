"""Who did something: one vocabulary wherever an action is recorded.

``user`` is a person (at the command line or in the window), ``agent`` an agent's automate
tool, ``engine`` Errands acting on its own (a failure streak pausing an automation, a
one-shot completing). The audit trail's ``actor`` and a stopped run's message use these
words; a client of the control channel may claim ``user`` or ``agent``, never ``engine``.
"""

from __future__ import annotations

from typing import Literal

Actor = Literal["user", "agent", "engine"]
NAMES: dict[Actor, str] = {"user": "the user", "agent": "an agent", "engine": "Errands"}
CLIENT_ACTORS: tuple[Actor, ...] = ("user", "agent")


def stopped_by(actor: str) -> str:
    """The message of a run stopped on someone's request."""
    return f"stopped by {NAMES.get(actor, actor)}"
