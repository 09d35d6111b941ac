"""The task part of a phrase: normalised input, the prompt and a one-line title."""

from __future__ import annotations

import re

from .pieces import _TITLE_MAX
from .vocabulary import _EDGE_JUNK, _FILLER_PROMPTS


# --------------------------------------------------------------------------------------
# Prompt and title
# --------------------------------------------------------------------------------------

def _prompt(leftover: str) -> str | None:
    """The task text: connectors at the edges dropped; ``None`` if nothing meaningful is left."""
    text = leftover.strip(_EDGE_JUNK)
    text = re.sub(r"^(?:and|then|to)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+(?:and|then)$", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,;:.!?])", r"\1", text).strip(_EDGE_JUNK)
    quoted = re.fullmatch(r"(please[,\s]+)?([\"'])(.+)\2", text, flags=re.IGNORECASE)
    if quoted:
        text = (quoted.group(1) or "") + quoted.group(3).strip()
    if not re.search(r"\w", text) or text.lower().rstrip(".!") in _FILLER_PROMPTS:
        return None
    return text


def title_of(prompt: str | None) -> str | None:
    """A one-line title: "please" dropped, first letter capitalised, at most 120 characters."""
    if prompt is None:
        return None
    text = re.sub(r"^please[\s,]+", "", prompt.splitlines()[0], flags=re.IGNORECASE)
    text = text.rstrip(" .!,;:") or prompt.strip()
    text = text[0].upper() + text[1:]
    if len(text) > _TITLE_MAX:
        cut = text[:_TITLE_MAX - 1]
        cut = cut[:cut.rfind(" ")] if " " in cut else cut
        text = cut.rstrip(" ,;:") + "\u2026"
    return text


def _normalize(text: str) -> str:
    """Unify apostrophes, ``a.m.``, ``5p``, ISO ``T`` separators and spacing; keep the case."""
    text = text.replace("\u2019", "'").replace("\u00a0", " ")
    text = re.sub(r"(?<![a-z])([ap])\.\s?m\b\.?", r"\1m", text, flags=re.IGNORECASE)
    text = re.sub(r"(\d{4}-\d{2}-\d{2})[Tt](\d{1,2}:\d{2})", r"\1 \2", text)
    text = re.sub(r"\b(\d{1,2}(?::\d{2})?)([ap])\b(?!['.])", r"\1\2m", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    return text


_REMINDER = re.compile(r"^(?:please\s+)?(?:remind\s+(?:me|us)(?:\s+(?:to|that|about|of))?"
                       r"|reminder(?:\s+to)?)[\s:,-]+(?P<message>\S.*)$",
                       re.IGNORECASE | re.DOTALL)
_COMMAND = re.compile(r"^(?:run\s+(?:the\s+command\s+)?)?`([^`]+)`\s*$", re.IGNORECASE)


def task_runner(task: str) -> dict[str, str]:
    """What a phrase's task runs: a reminder ("remind me to call mom") shows its message as
    a notification with no model; a command in backticks runs that command; anything else
    is a prompt for an agent."""
    task = task.strip()
    reminder = _REMINDER.match(task)
    if reminder:
        message = reminder.group("message").strip().rstrip(".")
        return {"kind": "notify", "message": message[:1].upper() + message[1:]}
    command = _COMMAND.match(task)
    if command:
        return {"kind": "command", "command": command.group(1).strip()}
    return {"kind": "agent", "prompt": task}
