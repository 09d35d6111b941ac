"""Phrases for a folder trigger: "when a file is added to ~/Downloads, file the invoices",
"when a PDF lands in ~/Scans sort it", "whenever something changes in /srv/site deploy".

The path is the words after "to", "in" or "into" up to a comma, " then ", or the end of a
path-like run (a quoted path may hold spaces); ``~`` is expanded. What follows is the task.
Nothing here touches the disk: whether the folder exists is checked when the automation is
made, beside the field."""

from __future__ import annotations

import os
import re

from .result import ParsedSchedule
from .text import title_of

_KINDS = r"(?:pdfs?|csvs?|images?|photos?|files?|documents?|something|anything)"
_ADDED = r"(?:is|are|gets?)?\s*(?:added|created|saved|dropped|put|placed|lands?|appears?|arrives?)"
_CHANGED = r"(?:changes?|is changed|is modified|is edited|is updated|changed|modified)"
_PATH = r"(?P<path>\"[^\"]+\"|'[^']+'|~?/[^\s,;]*|~)"
_HEAD = re.compile(
    rf"^\s*(?:when(?:ever)?|each time|every time)\s+(?:a |an |any |new |some |the )*"
    rf"(?P<what>{_KINDS})\s+(?:(?P<added>{_ADDED})|(?P<changed>{_CHANGED}))\s+"
    rf"(?:to|in|into|under|inside)\s+{_PATH}\s*(?:,|;|then\b|:)?\s*", re.IGNORECASE)
_CHANGES_IN = re.compile(
    rf"^\s*(?:when(?:ever)?|each time|every time)\s+{_PATH}\s+(?:changes?|is changed)\s*"
    rf"(?:,|;|then\b|:)?\s*", re.IGNORECASE)
_GLOBS = {"pdf": "*.pdf", "csv": "*.csv", "image": "*.{png,jpg,jpeg,gif,webp}",
          "photo": "*.{jpg,jpeg,heic,png}"}


def _folder(text: str) -> str:
    if text[:1] in "\"'":
        text = text[1:-1]
    return os.path.normpath(os.path.expanduser(text.rstrip(".")))


def parse_event_phrase(text: str) -> ParsedSchedule | None:
    """A folder trigger read from ``text``, or None when it does not start like one."""
    found = _HEAD.match(text)
    what = None
    if found is not None:
        what = found.group("what").lower().rstrip("s")
        changes = (["created", "moved"] if found.group("added")
                   else ["created", "modified", "deleted", "moved"])
    else:
        found = _CHANGES_IN.match(text)
        if found is None:
            return None
        changes = ["created", "modified", "deleted", "moved"]
    trigger: dict = {"kind": "folder", "path": _folder(found.group("path")),
                     "changes": changes}
    if what in ("pdf", "csv"):
        trigger["include"] = [_GLOBS[what]]
    elif what in ("image", "photo"):
        extensions = _GLOBS[what][3:-1].split(",")
        trigger["include"] = [f"*.{e}" for e in extensions]
    task = text[found.end():].strip() or None
    words = re.sub(r"(?:\s*(?:then|[,;:]))+\s*$", "", text[:found.end()], flags=re.IGNORECASE)
    return ParsedSchedule(trigger, task, title_of(task) if task else None,
                          {"max_runs": None, "until": None, "when_condition_met": False},
                          [], [words], [])
