"""What a client may ask the engine: one table of operations, each with its arguments' shapes.

The control channel hands every request to :func:`perform`, which checks the arguments
against the operation's declared shapes before anything runs, so a wrong type is refused
as ``invalid_input`` naming the argument (with the expected shape and an example), never
answered ``internal`` or ``database``. Unknown arguments are refused too. An optional
argument may be left out or given as ``null``; both mean its default.

Who asks is the ``actor`` (:mod:`errands.actors`): ``user`` or ``agent``; ``engine`` is what
Errands does on its own and no client may claim it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from ..actors import CLIENT_ACTORS
from ..errors import InvalidInput
from .control import describe, field_name
from .core import Engine

_INT64 = 2 ** 63 - 1


@dataclass(frozen=True)
class Shape:
    """What an argument must look like, said the way a refusal says it."""

    expected: str
    example: str
    accepts: Callable[[Any], bool]


def _text(limit: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and 0 < len(v) <= limit


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= _INT64


AUTOMATION_ID = Shape("an automation id: a string of 1 to 64 characters",
                      "3f2a91c0-5b7e-4c1d-9a0e-2f6d8b1c4e7a", _text(64))
REQUEST_ID = Shape("a string of 1 to 200 characters, or null",
                   "nightly-2026-03-30", _text(200))
ACTOR = Shape("one of " + ", ".join(CLIENT_ACTORS), "user", lambda v: v in CLIENT_ACTORS)
DOCUMENT = Shape("a definition document (a JSON object)",
                 '{"title": "Backup", "runner": {...}, "trigger": {...}}',
                 lambda v: isinstance(v, dict))
FLAG = Shape("true or false", "true", lambda v: isinstance(v, bool))
ITEM = Shape(f"an attention item id (a whole number from 1 to {_INT64}), or null for all",
             "12", _whole)
SETTING_KEY = Shape("a setting name (a string of 1 to 64 characters)", "concurrency", _text(64))
SETTING_VALUE = Shape("a string of 1 to 200 characters, or null to unset", "4", _text(200))


@dataclass(frozen=True)
class Arg:
    shape: Shape
    required: bool = False
    default: Any = None


# ---------------------------------------------------------------- the operations

Act = Callable[[Engine, dict[str, Any]], Awaitable[Any]]


async def _create(e: Engine, a: dict[str, Any]) -> Any:
    automation, created = await e.create(a["doc"], request_id=a["request_id"], actor=a["actor"])
    return {"automation": automation.to_dict(), "created": created}


async def _revise(e: Engine, a: dict[str, Any]) -> Any:
    automation, changed = await e.revise(a["id"], a["doc"], actor=a["actor"])
    return {"automation": automation.to_dict(), "changed": changed}


async def _pause(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.set_paused(a["id"], True, actor=a["actor"])).to_dict()


async def _resume(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.set_paused(a["id"], False, actor=a["actor"])).to_dict()


async def _delete(e: Engine, a: dict[str, Any]) -> Any:
    await e.delete(a["id"], actor=a["actor"])
    return {"deleted": a["id"]}


async def _run_now(e: Engine, a: dict[str, Any]) -> Any:
    run = await e.run_now(a["id"], request_id=a["request_id"], dry_run=a["dry_run"],
                          actor=a["actor"])
    if a["wait"]:
        run = await e.wait_run(run.id)
    return run.to_dict(with_output=a["wait"])


async def _stop(e: Engine, a: dict[str, Any]) -> Any:
    return (await e.stop_current(a["id"], actor=a["actor"])).to_dict()


async def _attention_read(e: Engine, a: dict[str, Any]) -> Any:
    return {"marked": e.mark_attention_read(a["item"])}


async def _set_setting(e: Engine, a: dict[str, Any]) -> Any:
    return {"value": e.set_setting(a["key"], a["value"])}


async def _ping(e: Engine, a: dict[str, Any]) -> Any:
    return {"pid": os.getpid(), "data_dir": str(e.data_dir), "revision": e.events.last_revision}


@dataclass(frozen=True)
class Operation:
    run: Act
    args: dict[str, Arg]

    def bind(self, given: dict[str, Any]) -> dict[str, Any]:
        """The arguments checked against their shapes, defaults filled in."""
        unknown = sorted(set(given) - set(self.args), key=str)
        if unknown:
            name = unknown[0]
            known = ", ".join(self.args) or "none"
            raise InvalidInput(field_name(name),
                               f"unknown argument {ascii(field_name(name))}", f"only: {known}",
                               next(iter(self.args), "{}"))
        bound: dict[str, Any] = {}
        for name, arg in self.args.items():
            value = given.get(name)
            if value is None:
                if arg.required:
                    raise InvalidInput(name, "is required", arg.shape.expected, arg.shape.example)
                bound[name] = arg.default
            elif not arg.shape.accepts(value):
                raise InvalidInput(name, f"must be {arg.shape.expected}, not {describe(value)}",
                                   arg.shape.expected, arg.shape.example)
            else:
                bound[name] = value
        return bound


_ID = Arg(AUTOMATION_ID, required=True)
_ACTOR = Arg(ACTOR, default="user")

OPERATIONS: dict[str, Operation] = {
    "create": Operation(_create, {"doc": Arg(DOCUMENT, required=True),
                                  "request_id": Arg(REQUEST_ID), "actor": _ACTOR}),
    "revise": Operation(_revise, {"id": _ID, "doc": Arg(DOCUMENT, required=True),
                                  "actor": _ACTOR}),
    "pause": Operation(_pause, {"id": _ID, "actor": _ACTOR}),
    "resume": Operation(_resume, {"id": _ID, "actor": _ACTOR}),
    "delete": Operation(_delete, {"id": _ID, "actor": _ACTOR}),
    "run_now": Operation(_run_now, {"id": _ID, "request_id": Arg(REQUEST_ID),
                                    "dry_run": Arg(FLAG, default=False),
                                    "wait": Arg(FLAG, default=False), "actor": _ACTOR}),
    "stop": Operation(_stop, {"id": _ID, "actor": _ACTOR}),
    "attention_read": Operation(_attention_read, {"item": Arg(ITEM)}),
    "set_setting": Operation(_set_setting, {"key": Arg(SETTING_KEY, required=True),
                                            "value": Arg(SETTING_VALUE)}),
    "ping": Operation(_ping, {}),
}


async def perform(engine: Engine, op: str, args: dict[str, Any]) -> Any:
    """Run ``op`` with ``args`` once they have the declared shapes."""
    operation = OPERATIONS.get(op)
    if operation is None:
        raise InvalidInput("op", f"unknown operation {describe(op)}",
                           "one of " + ", ".join(OPERATIONS), "ping")
    return await operation.run(engine, operation.bind(args))
