"""A sentence turned into an automation that is shown back before anything is saved.

``draft`` reads "every day at 9am, summarize today's email" with the offline phrase parser;
when that cannot read it and a model provider is configured, the model is asked to call the
``automate`` tool (the same tool and the same argument reading an agent run uses) in a draft
mode: its arguments become a definition document here and nothing is created. Either way
the result is a :class:`Draft`: the document, the parsed definition (so it is known to be
valid), the warnings to show ("I assumed your time zone Europe/Berlin") and where it came
from. The confirmation card shows it; only its Create button saves.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .definition import Definition, ParseContext, parse_definition, put_trigger, trigger_of
from .errors import InvalidInput
from .phrases import parse_schedule_text
from .phrases.text import title_of, task_runner
from .limits import SPEC_FORMS
from .schedule_spec import spec_to_trigger
from .timeutil import format_instant

EXAMPLE = "every day at 9am, summarize today's email"
NOT_FIELDS = ("action", "id", "schedule", "continue_session")
_SENTENCE_MAX = 2000


@dataclass(frozen=True)
class FolderMention:
    """A folder the task names, to be asked for on the card: the words ("my project
    folder", "~/notes") and what they point at when they say it: a path as written
    (``~`` not yet expanded), a user folder's name ("downloads"), or None (ask)."""

    words: str
    path: str | None = None
    user_folder: str | None = None


@dataclass(frozen=True)
class Draft:
    sentence: str
    doc: dict[str, Any]
    definition: Definition
    warnings: tuple[str, ...]
    source: Literal["phrase", "model"]
    folder: FolderMention | None = None


USER_FOLDERS = ("downloads", "documents", "desktop", "pictures", "music", "videos")
# a quoted path may hold spaces ("/srv/my site"); "~" alone, "~bob" or "~50" is no path
_QUOTED_PATH = re.compile(r"[\"'“‘]((?:~/|/(?!/))[^\"'”’]+)[\"'”’]")
_PATH = re.compile(r"(?<![\w/~.:])(~/[^\s,;:'\"`()]*|/(?!/)[^\s,;:'\"`()]+)")
_ENDS = (r"(?=\s*(?:$|[,.;:!?)]|\b(?:for|in|at|and|to|on|with|from|every|each|daily|"
         r"then|before|after|is|are|that|which)\b))")   # where a noun phrase ends
_USER_FOLDER = re.compile(  # "my downloads", "the Downloads folder" (not "the documents",
    # nor "my downloads count")
    r"\b(?:my\s+(?P<mine>" + "|".join(USER_FOLDERS) + r")(?:\s+(?:folder|directory|dir))?"
    r"|the\s+(?P<the>" + "|".join(USER_FOLDERS) + r")\s+(?:folder|directory|dir))\b" + _ENDS,
    re.IGNORECASE)
_NAMED_FOLDER = re.compile(
    r"\b(?:in|of|from|inside|under|to|into|across)?\s*(?:my|the|this|our|that)\s+"
    r"(?:[\w-]+\s+){0,2}(?:folder|directory|dir|repo|repository|project|codebase|"
    r"working\s+copy|checkout)s?\b(?:'s\b)?"  # … where the noun phrase ends ("the
    r"(?:(?<='s)|" + _ENDS + r")",            # project status" is not a folder)
    re.IGNORECASE)


_GERMAN_FOLDER = re.compile(  # "im Projektordner", "in meinem Repo", "den Download-Ordner"
    r"\b(?:im|in\s+(?:meinem|unserem|dem)|aus\s+(?:dem|meinem)|meinen|den|dem)\s+"
    r"(?:[\w-]*(?:ordner|verzeichnis)|repo(?:sitory)?|projekt)(?![\w-])", re.IGNORECASE)
_CHINESE_FOLDER = re.compile(  # 目录 alone is also a table of contents, 仓库 a warehouse
    r"(?:项目|代码|我的|下载|文档|桌面)?文件夹|(?:项目|代码|我的|下载|文档|桌面)目录"
    r"|代码仓库|代码库|git\s*仓库")


def folder_mention(task: str) -> FolderMention | None:
    """The folder an agent's task names, if any: a path ("/srv/site", "~/notes"), a user
    folder ("my downloads"), or words that need one ("the repo", "my project folder")."""
    path = _QUOTED_PATH.search(task) or _PATH.search(task)
    if path:
        text = path.group(1).rstrip(".!?")
        return FolderMention(text, path=text)
    named = _USER_FOLDER.search(task)
    if named:
        name = named.group("mine") or named.group("the")
        return FolderMention(named.group(0).strip(), user_folder=name.lower())
    vague = _NAMED_FOLDER.search(task) or _GERMAN_FOLDER.search(task) or \
        _CHINESE_FOLDER.search(task)
    if vague:
        words = re.sub(r"^(?:in|of|from|inside|under|to|into|across)\s+", "",
                       vague.group(0).strip(), flags=re.IGNORECASE)
        words = re.sub(r"'s$", "", words)
        return FolderMention(words)
    return None


def document_from_arguments(arguments: dict[str, Any], *, now: datetime, zone: str | None,
                            base: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ``automate`` call's arguments as a definition document: the fields as given,
    ``schedule`` (a spec or a phrase) read into a trigger in ``zone``, the short
    ``prompt`` form made a runner. Shared by agent runs and drafts."""
    doc = copy.deepcopy(base) if base else {}
    for key, value in arguments.items():
        if key not in NOT_FIELDS:
            doc[key] = value
    schedule = arguments.get("schedule")
    if schedule is not None:
        if not isinstance(schedule, str):
            raise InvalidInput("schedule", "must be text", SPEC_FORMS, "in:10m")
        if "trigger" in arguments:
            raise InvalidInput("schedule", "give schedule or trigger, not both", SPEC_FORMS,
                               "in:10m")
        trigger, _ = spec_to_trigger(schedule, None, now, previous=doc.get("trigger"))
        for one in trigger.get("triggers") or [trigger]:
            if one.get("kind") == "cron" and zone:
                one["timezone"] = zone
        put_trigger(doc, trigger)
    if base is None:
        if "trigger" not in doc and "triggers" not in doc:
            raise InvalidInput("schedule", "a new automation needs a schedule", SPEC_FORMS,
                               "in:10m")
        if "runner" not in doc and "prompt" in doc:  # the short form a model tends to use
            doc["runner"] = {"kind": "agent", "prompt": doc.pop("prompt")}
    return doc


def _check_sentence(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("sentence", "say when and what, in one sentence",
                           "a schedule and a task", EXAMPLE, reason="empty")
    if len(text) > _SENTENCE_MAX:
        raise InvalidInput("sentence", f"longer than {_SENTENCE_MAX} characters",
                           "one sentence", EXAMPLE, reason="too_long",
                           values={"max": _SENTENCE_MAX, "length": len(text)})
    return text.strip()


def _validate(doc: dict[str, Any], now: datetime, zone: str) -> Definition:
    return parse_definition(doc, ParseContext(now=now, default_timezone=zone))


def _zone_warning(doc: dict[str, Any], zone: str, used: list[str] | None = None) -> list[str]:
    """Wall-clock times (cron, a local day grid, a day and time) are read in the user's
    zone: say so, since the sentence did not."""
    whole = trigger_of(doc) or {}
    trigger = (whole.get("triggers") or [{}])[0] if whole.get("kind") == "set" else whole
    relative = used is not None and all(w.lower().startswith("in ") for w in used)
    if trigger.get("kind") == "cron" or trigger.get("timezone") or (
            trigger.get("kind") == "at" and used is not None and not relative):
        return [f"I assumed your time zone {trigger.get('timezone') or zone}."]
    return []


def draft_from_phrase(text: str, *, zone: str, now: datetime,
                      locale: str | None = None, language: str | None = None) -> Draft:
    """Offline: the phrase parser, on the sentence and on its German and Chinese schedule
    words rewritten into English (the window's ``language`` first: "de", "zh"). Refusals
    are :class:`InvalidInput` (field ``sentence`` or ``schedule``) with the parser's words,
    for the reading tried first (in the window's language when its words were found)."""
    from .phrases.foreign import LANGUAGES, rewritten

    sentence = _check_sentence(text)
    order = ((language,) if language in LANGUAGES else ()) + tuple(
        other for other in LANGUAGES if other != language)
    found = rewritten(sentence, order)
    # the window language's reading first; the sentence as typed; then the other language's
    own = [english for lang, english in found if lang == language]
    tries = own + [sentence] + [english for lang, english in found if lang != language]
    first: InvalidInput | None = None
    for attempt in tries:
        try:
            return _draft_from(sentence, attempt, zone=zone, now=now, locale=locale)
        except InvalidInput as exc:
            first = first or exc
    assert first is not None
    raise first   # how it was read first: the window's language, if it was that


def _draft_from(sentence: str, text: str, *, zone: str, now: datetime,
                locale: str | None) -> Draft:
    parsed = parse_schedule_text(text, zone, now, locale)
    task = (parsed.prompt or "").strip()
    if not task:
        raise InvalidInput("sentence", "says when but not what to do",
                           "a schedule and a task", EXAMPLE, reason="no_task")
    runner = task_runner(task)
    title = title_of(runner["message"]) if runner["kind"] == "notify" else parsed.title
    doc: dict[str, Any] = {"title": (title or task)[:120], "runner": runner}
    put_trigger(doc, parsed.trigger)
    stop = {k: v for k, v in parsed.stop.items() if v not in (None, False)}
    if stop:
        doc["stop"] = stop
    doc["origin"] = {"kind": "user"}
    definition = _validate(doc, now, zone)
    warnings = _zone_warning(doc, zone, parsed.used) + list(parsed.warnings)
    folder = folder_mention(task) if runner["kind"] == "agent" else None
    return Draft(sentence, doc, definition, tuple(warnings), "phrase", folder)


SYSTEM = ("You turn one sentence into an Errands automation. Call the automate tool exactly "
          "once with action \"create\": a short title, a runner ({{\"kind\": \"agent\", "
          "\"prompt\": …}} for work an assistant does, {{\"kind\": \"notify\", \"message\": "
          "…}} for a reminder that only needs showing, {{\"kind\": \"command\", "
          "\"command\": …}} only when the user gave a shell command) and a schedule (\"in:10m\", "
          "\"every:1h\", \"cron:0 9 * * 1-5\", \"at:2026-12-24T09:00:00Z\"). Nothing is saved: "
          "the user reviews your draft first. Do not ask questions; choose sensible values. "
          "Now is {now}; the user's time zone is {zone} (cron fields are read in it).")


async def draft_from_model(text: str, *, provider: Any, zone: str, now: datetime) -> Draft:
    """Ask the model for an ``automate`` call and read it into a draft. ``provider`` is an
    :class:`errands.agent.provider.Provider`; its faults (``ProviderError``) pass through;
    a reply that is not a usable call is :class:`InvalidInput` on ``sentence``."""
    from .agent.tools.base import ToolError, parse_arguments
    from .agent.tools.control import AUTOMATE

    sentence = _check_sentence(text)
    messages = [{"role": "system", "content": SYSTEM.format(now=format_instant(now), zone=zone)},
                {"role": "user", "content": sentence}]
    reply = await provider.complete(messages, [AUTOMATE.schema()])
    call = next((c for c in reply.tool_calls if c.name == AUTOMATE.name), None)
    if call is None:
        said = (reply.content or "").strip().replace("\n", " ")[:200]
        raise InvalidInput("sentence", "the model did not turn it into an automation"
                           + (f" (it said: {said})" if said else ""),
                           "a schedule and a task", EXAMPLE)
    try:
        arguments = parse_arguments(AUTOMATE, call.arguments)
    except ToolError as exc:
        raise InvalidInput("sentence", f"the model's draft was not usable: {exc}",
                           "a schedule and a task", EXAMPLE) from None
    if arguments.get("action") != "create":
        raise InvalidInput("sentence", "the model did not draft a new automation "
                           f"(it asked for {json.dumps(arguments.get('action'))})",
                           "a schedule and a task", EXAMPLE)
    try:
        doc = document_from_arguments(arguments, now=now, zone=zone)
        doc["origin"] = {"kind": "user"}
        definition = _validate(doc, now, zone)
    except InvalidInput as exc:
        raise InvalidInput(exc.field or "sentence", f"the model's draft: {exc}",
                           exc.expected, exc.example) from None
    warnings = ["The model wrote this draft; check it before you create it."]
    folder = (folder_mention(definition.runner.prompt)  # type: ignore[union-attr]
              if definition.runner.kind == "agent" and not definition.workdir else None)
    return Draft(sentence, doc, definition, tuple(warnings + _zone_warning(doc, zone)), "model",
                 folder)


async def draft(text: str, *, zone: str, now: datetime, provider: Any | None = None,
                locale: str | None = None, language: str | None = None) -> Draft:
    """The phrase parser first; the model only when the parser cannot read the sentence and
    a provider is given. Without one, the parser's refusal stands (it says why)."""
    try:
        return draft_from_phrase(text, zone=zone, now=now, locale=locale, language=language)
    except InvalidInput as refused:
        if provider is None or refused.field == "sentence" and not str(text).strip():
            raise
        try:
            return await draft_from_model(text, provider=provider, zone=zone, now=now)
        except InvalidInput as exc:
            raise InvalidInput(exc.field, f"{refused} — and {exc}", exc.expected,
                               exc.example) from None
