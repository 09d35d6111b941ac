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
from ..errors import ErrandsError, InvalidInput
from ..event_triggers import TRIGGER_ID as TRIGGER_ID_PATTERN, TRIGGER_ID_TEXT
from ..records import DECISION_KINDS, Decision
from ..timeutil import format_instant
from .api import Api, Stamped, Subscription
from ..channel import error_payload
from .control import describe, field_name

_INT64 = 2 ** 63 - 1


MAX_OUTPUT_WAIT = 20.0   # seconds one "output" request may wait (a follower asks again;
                         # below the clients' 30 s for a whole exchange)


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
TRIGGER_ID = Shape("a trigger's id (or a mail account's name): " + TRIGGER_ID_TEXT, "deploy",
                   lambda v: isinstance(v, str) and bool(TRIGGER_ID_PATTERN.fullmatch(v)))
MAIL_ACCOUNT = Shape("a mail account (a JSON object)", '{"name": "work", "address": '
                     '"me@example.com", "imap_host": "imap.example.com"}',
                     lambda v: isinstance(v, dict))
ACTOR = Shape("one of " + ", ".join(CLIENT_ACTORS), "user", lambda v: v in CLIENT_ACTORS)
DOCUMENT = Shape("a definition document (a JSON object)",
                 '{"title": "Backup", "runner": {...}, "trigger": {...}}',
                 lambda v: isinstance(v, dict))
EXPORT = Shape("an export document (a JSON object, what 'errands export' prints)",
               '{"format": "errands-export", "version": 1, "automations": [...]}',
               lambda v: isinstance(v, dict))
FLAG = Shape("true or false", "true", lambda v: isinstance(v, bool))
ITEM = Shape(f"an attention item id (a whole number from 1 to {_INT64}), or null for all",
             "12", _whole)
SETTING_KEY = Shape("a setting name (a string of 1 to 64 characters)", "concurrency", _text(64))
SETTING_VALUE = Shape("a string of 1 to 20000 characters, or null to unset", "4", _text(20_000))
RUN_ID = Shape("a run id: a string of 1 to 64 characters",
               "9b1f0c2e-7d3a-4e5b-8c6d-0a1b2c3d4e5f", _text(64))
SESSION_ID = Shape("a session id: a string of 1 to 64 characters (r-…, a-… or d-…)",
                   "r-9b1f0c2e-7d3a-4e5b-8c6d-0a1b2c3d4e5f", _text(64))
DECISION = Shape("one of " + ", ".join(DECISION_KINDS), "approve_once",
                 lambda v: v in DECISION_KINDS)
RUN_IDS = Shape("a list of 1 to 1000 run ids (strings of 1 to 64 characters)",
                '["9b1f0c2e-7d3a-4e5b-8c6d-0a1b2c3d4e5f"]',
                lambda v: isinstance(v, list) and 0 < len(v) <= 1000
                and all(_text(64)(i) for i in v))
RUN_INDEX = Shape("a run's number (a whole number from 1)", "3", _whole)
ANSWER = Shape("text of 1 to 10000 characters, or null", "yes", _text(10_000))
RULE = Shape("a rule pattern of 1 to 500 characters, or null", "git status*", _text(500))
REVISION = Shape("a revision number (a whole number from 1), or null", "3", _whole)
TEXT = Shape("search text of 1 to 200 characters, or null", "backup", _text(200))
STATUS = Shape("one of active, paused, completed, archived, broken, or null", "active",
               lambda v: v in ("active", "paused", "completed", "archived", "broken"))
SORT = Shape("one of next_fire, title, last_run", "next_fire",
             lambda v: v in ("next_fire", "title", "last_run"))
OFFSET = Shape("a whole number from 0", "0",
               lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10**9)
LIMIT = Shape("a whole number from 1 to 10000", "100",
              lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10_000)
RUN_LIMIT = Shape("a whole number from 1 to 1000", "50",
                  lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1000)
COUNT = Shape("a whole number from 1 to 100", "5",
              lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 100)
POSITION = Shape("a byte position: a whole number from 0, or null for all that is kept",
                 "0", lambda v: isinstance(v, int) and not isinstance(v, bool)
                 and 0 <= v <= 2**62)
WAIT = Shape(f"seconds to wait for more output: a number from 0 to {MAX_OUTPUT_WAIT:g}", "10",
             lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
             and 0 <= v <= MAX_OUTPUT_WAIT)
EVENT = Shape("an event to try a script on: a run's number or a trigger and payload",
              '{"run": 3}', lambda v: isinstance(v, dict))
CURSOR = Shape("a page cursor such as r120, or null", "r120",
               lambda v: isinstance(v, str) and 2 <= len(v) <= 21 and v[0] == "r"
               and v[1:].isascii() and v[1:].isdigit())


@dataclass(frozen=True)
class Arg:
    shape: Shape
    required: bool = False
    default: Any = None


# ---------------------------------------------------------------- the operations

Act = Callable[[Api, dict[str, Any]], Awaitable[Any]]


def _stamped(answer: Stamped[Any], result: Any) -> Any:
    """A result with the (epoch, revision) it reflects, under ``stamp``."""
    if isinstance(result, dict):
        return {**result, "stamp": answer.stamp.to_dict()}
    return {"items": result, "stamp": answer.stamp.to_dict()}


async def _create(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.create(a["doc"], request_id=a["request_id"], actor=a["actor"])
    automation, created = answer.value
    return _stamped(answer, {"automation": automation.to_dict(), "created": created})


async def _import(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.import_document(a["doc"], dry_run=a["dry_run"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict(dry_run=a["dry_run"]))


async def _revise(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.edit(a["id"], a["doc"], expected_revision=a["expected_revision"],
                            actor=a["actor"])
    automation, changed = answer.value
    return _stamped(answer, {"automation": automation.to_dict(), "changed": changed})


async def _pause(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.pause(a["id"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict())


async def _resume(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.resume(a["id"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict())


async def _archive(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.archive(a["id"], actor=a["actor"])
    automation, changed = answer.value
    return _stamped(answer, {"automation": automation.to_dict(), "changed": changed})


async def _unarchive(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.unarchive(a["id"], actor=a["actor"])
    automation, changed = answer.value
    return _stamped(answer, {"automation": automation.to_dict(), "changed": changed})


async def _delete(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.delete(a["id"], actor=a["actor"])
    return _stamped(answer, {"deleted": a["id"], "destroyed": answer.value})


async def _run_now(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.run_now(a["id"], request_id=a["request_id"], dry_run=a["dry_run"],
                               wait=a["wait"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict(with_output=a["wait"]))


async def _reply(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.reply(a["session"], a["text"], request_id=a["request_id"],
                             actor=a["actor"])
    return _stamped(answer, answer.value)


async def _discuss(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.discuss(a["id"], a["run"], a["text"], request_id=a["request_id"])
    return _stamped(answer, answer.value)


async def _discussion_say(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.discussion_say(a["session"], a["text"])
    return _stamped(answer, answer.value)


async def _discussion_decide(api: Api, a: dict[str, Any]) -> Any:
    decision = Decision(kind=a["decision"], text=a["text"])
    answer = await api.discussion_decide(a["session"], decision)
    return _stamped(answer, answer.value)


async def _discussion(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.discussion(a["session"])
    return _stamped(answer, answer.value)


async def _discussions(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.discussions(a["id"], a["run"])
    return _stamped(answer, {"discussions": answer.value})


async def _try_script(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.try_script(a["id"], doc=a["doc"], event=a["event"])
    return _stamped(answer, answer.value)


async def _run_over_existing(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.run_over_existing(a["id"], offset=a["offset"], dry_run=a["dry_run"])
    return _stamped(answer, answer.value)


async def _stop(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.stop(a["id"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict())


async def _decide(api: Api, a: dict[str, Any]) -> Any:
    decision = Decision(kind=a["decision"], text=a["text"], rule=a["rule"])
    answer = await api.decide(a["run"], decision, request_id=a["request_id"], actor=a["actor"])
    return _stamped(answer, answer.value.to_dict())


async def _decide_many(api: Api, a: dict[str, Any]) -> Any:
    decision = Decision(kind=a["decision"], text=a["text"], rule=a["rule"])
    answer = await api.decide_many(a["runs"], decision, actor=a["actor"])
    return _stamped(answer, {"runs": [
        {"id": run_id, "refused": error_payload(outcome)} if isinstance(outcome, ErrandsError)
        else outcome.to_dict() for run_id, outcome in zip(
            dict.fromkeys(a["runs"]), answer.value)]})


async def _attention_read(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.mark_read(a["item"])
    return _stamped(answer, {"marked": answer.value})


async def _set_setting(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.set_setting(a["key"], a["value"])
    return _stamped(answer, {"value": answer.value})


async def _summaries(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.summaries(text=a["text"], status=a["status"], sort=a["sort"],
                                 offset=a["offset"], limit=a["limit"])
    items, total = answer.value
    return _stamped(answer, {"items": [i.to_dict() for i in items], "total": total})


async def _automations(api: Api, a: dict[str, Any]) -> Any:
    if a["rendered"]:
        text = await api.automations_json(archived=a["archived"])
        return _stamped(text, {"text": text.value})
    answer = await api.automations(archived=a["archived"])
    items, others = answer.value
    return _stamped(answer, {"automations": [i.to_dict() for i in items], "others": others})


async def _automation(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.automation(await api.resolve_id(a["id"]))
    return _stamped(answer, answer.value.to_dict())


async def _runs(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.runs(await api.resolve_id(a["id"]), limit=a["limit"],
                            cursor=a["cursor"])
    runs, cursor = answer.value
    return _stamped(answer, {"items": [r.to_dict() for r in runs], "next_cursor": cursor})


async def _run(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.run(a["run"])
    return _stamped(answer, answer.value)


async def _output(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.output(a["run"], after=a["after"], wait=float(a["wait"]))
    return _stamped(answer, answer.value)


async def _attention(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.attention(unread_only=a["unread"])
    return _stamped(answer, [i.to_dict() for i in answer.value])


async def _parked(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.parked(a["id"])
    return _stamped(answer, [p.to_dict() for p in answer.value])


async def _webhook_token(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.webhook_token(a["id"], a["trigger"])
    return _stamped(answer, answer.value)


async def _webhooks(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.webhooks(a["id"])
    return _stamped(answer, answer.value)


async def _mail_account_save(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.save_mail_account(a["account"])
    return _stamped(answer, answer.value)


async def _mail_account_delete(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.delete_mail_account(a["name"])
    return _stamped(answer, {"deleted": answer.value})


async def _next_fires(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.next_fires(a["id"], a["count"])
    return _stamped(answer, [format_instant(f) for f in answer.value])


async def _history(api: Api, a: dict[str, Any]) -> Any:
    answer = await api.history(a["id"])
    revisions, audit = answer.value
    return _stamped(answer, {"revisions": [r.to_dict() for r in revisions],
                             "audit": [e.to_dict() for e in audit]})


async def _activate(api: Api, a: dict[str, Any]) -> Any:
    return {"role": api.role, **await api.activate()}


async def _subscribe(api: Api, a: dict[str, Any]) -> Any:
    return Subscription(api)


async def _ping(api: Api, a: dict[str, Any]) -> Any:
    return {"pid": os.getpid(), "data_dir": str(api.data_dir), "role": api.role,
            **api.stamp().to_dict()}


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
    "import": Operation(_import, {"doc": Arg(EXPORT, required=True),
                                  "dry_run": Arg(FLAG, default=False), "actor": _ACTOR}),
    "revise": Operation(_revise, {"id": _ID, "doc": Arg(DOCUMENT, required=True),
                                  "expected_revision": Arg(REVISION), "actor": _ACTOR}),
    "pause": Operation(_pause, {"id": _ID, "actor": _ACTOR}),
    "resume": Operation(_resume, {"id": _ID, "actor": _ACTOR}),
    "archive": Operation(_archive, {"id": _ID, "actor": _ACTOR}),
    "unarchive": Operation(_unarchive, {"id": _ID, "actor": _ACTOR}),
    "delete": Operation(_delete, {"id": _ID, "actor": _ACTOR}),
    "run_now": Operation(_run_now, {"id": _ID, "request_id": Arg(REQUEST_ID),
                                    "dry_run": Arg(FLAG, default=False),
                                    "wait": Arg(FLAG, default=False), "actor": _ACTOR}),
    "try_script": Operation(_try_script, {"id": Arg(AUTOMATION_ID), "doc": Arg(DOCUMENT),
                                          "event": Arg(EVENT)}),
    "run_over_existing": Operation(_run_over_existing, {
        "id": _ID, "offset": Arg(OFFSET, default=0), "dry_run": Arg(FLAG, default=False)}),
    "stop": Operation(_stop, {"id": _ID, "actor": _ACTOR}),
    "reply": Operation(_reply, {"session": Arg(SESSION_ID, required=True),
                                "text": Arg(ANSWER, required=True), "request_id": Arg(REQUEST_ID),
                                "actor": _ACTOR}),
    "discuss": Operation(_discuss, {"id": Arg(AUTOMATION_ID, required=True),
                                    "run": Arg(RUN_INDEX, required=True),
                                    "text": Arg(ANSWER, required=True),
                                    "request_id": Arg(REQUEST_ID)}),
    "discussion_say": Operation(_discussion_say, {"session": Arg(SESSION_ID, required=True),
                                                  "text": Arg(ANSWER, required=True)}),
    "discussion_decide": Operation(_discussion_decide, {
        "session": Arg(SESSION_ID, required=True), "decision": Arg(DECISION, required=True),
        "text": Arg(ANSWER)}),
    "discussion": Operation(_discussion, {"session": Arg(SESSION_ID, required=True)}),
    "discussions": Operation(_discussions, {"id": Arg(AUTOMATION_ID, required=True),
                                            "run": Arg(RUN_INDEX)}),
    "attention_read": Operation(_attention_read, {"item": Arg(ITEM)}),
    "set_setting": Operation(_set_setting, {"key": Arg(SETTING_KEY, required=True),
                                            "value": Arg(SETTING_VALUE)}),
    "decide": Operation(_decide, {"run": Arg(RUN_ID, required=True),
                                  "decision": Arg(DECISION, required=True), "text": Arg(ANSWER),
                                  "rule": Arg(RULE), "request_id": Arg(REQUEST_ID),
                                  "actor": _ACTOR}),
    "decide_many": Operation(_decide_many, {"runs": Arg(RUN_IDS, required=True),
                                            "decision": Arg(DECISION, required=True),
                                            "text": Arg(ANSWER), "rule": Arg(RULE),
                                            "actor": _ACTOR}),
    "summaries": Operation(_summaries, {"text": Arg(TEXT), "status": Arg(STATUS),
                                        "sort": Arg(SORT, default="next_fire"),
                                        "offset": Arg(OFFSET, default=0),
                                        "limit": Arg(LIMIT, default=10_000)}),
    "automations": Operation(_automations, {"archived": Arg(FLAG, default=False),
                                            "rendered": Arg(FLAG, default=False)}),
    "automation": Operation(_automation, {"id": _ID}),
    "runs": Operation(_runs, {"id": _ID, "limit": Arg(RUN_LIMIT, default=50),
                              "cursor": Arg(CURSOR)}),
    "run": Operation(_run, {"run": Arg(RUN_ID, required=True)}),
    "output": Operation(_output, {"run": Arg(RUN_ID, required=True), "after": Arg(POSITION),
                                  "wait": Arg(WAIT, default=0)}),
    "attention": Operation(_attention, {"unread": Arg(FLAG, default=False)}),
    "parked": Operation(_parked, {"id": Arg(AUTOMATION_ID)}),
    "webhook_token": Operation(_webhook_token, {"id": _ID,
                                                "trigger": Arg(TRIGGER_ID, required=True)}),
    "webhooks": Operation(_webhooks, {"id": _ID}),
    "mail_account_save": Operation(_mail_account_save,
                                   {"account": Arg(MAIL_ACCOUNT, required=True)}),
    "mail_account_delete": Operation(_mail_account_delete,
                                     {"name": Arg(TRIGGER_ID, required=True)}),
    "next_fires": Operation(_next_fires, {"id": _ID, "count": Arg(COUNT, default=5)}),
    "history": Operation(_history, {"id": _ID}),
    "activate": Operation(_activate, {}),
    "subscribe": Operation(_subscribe, {}),
    "ping": Operation(_ping, {}),
}


async def perform(api: Api, op: str, args: dict[str, Any]) -> Any:
    """Run ``op`` with ``args`` once they have the declared shapes."""
    operation = OPERATIONS.get(op)
    if operation is None:
        raise InvalidInput("op", f"unknown operation {describe(op)}",
                           "one of " + ", ".join(OPERATIONS), "ping")
    return await operation.run(api, operation.bind(args))
