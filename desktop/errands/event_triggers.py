"""Triggers that fire on something happening rather than on a clock, and the set that
lets one automation hold several triggers of any kind.

Plain frozen records: :mod:`errands.definition` reads and writes them, the engine's
trigger sources (``engine/sources.py``) watch for them. An event trigger has no next
fire: an automation whose triggers are all events waits, active, until one happens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Literal, Union

if TYPE_CHECKING:
    from .definition import Trigger

FOLDER_CHANGES = ("created", "modified", "deleted", "moved")
RUN_END_STATES = ("succeeded", "failed", "cancelled", "expired")
DEFAULT_DEBOUNCE = timedelta(seconds=2)
MAX_WEBHOOK_BODY = 256 * 1024        # the largest body a webhook trigger accepts by default
MAX_MEMBERS = 20
TRIGGER_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
TRIGGER_ID_TEXT = ("1 to 40 lower-case letters, digits, '-' or '_', starting with a letter "
                   "or digit")
EVENT_KINDS = ("folder", "webhook", "mail", "automation")
MAX_CASCADE = 3                      # a run caused by a run caused by a run: no further


@dataclass(frozen=True)
class FolderTrigger:
    """Changes under ``path`` (recursive unless told), matched by ``include`` globs (all
    files when empty) and not by ``exclude``; a burst within ``debounce`` is one fire."""

    path: str
    recursive: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    changes: tuple[str, ...] = FOLDER_CHANGES
    debounce: timedelta = DEFAULT_DEBOUNCE
    kind: Literal["folder"] = "folder"


@dataclass(frozen=True)
class WebhookTrigger:
    """An authenticated POST to the local webhook server; its token is kept as a hash
    outside the definition (``webhook_tokens``)."""

    max_body: int = MAX_WEBHOOK_BODY
    kind: Literal["webhook"] = "webhook"


@dataclass(frozen=True)
class MailTrigger:
    """New mail in ``folder`` of the IMAP account ``account``, filtered by sender and
    subject, batched no more often than ``batch`` (None: the runner's default)."""

    account: str
    folder: str = "INBOX"
    sender: str | None = None
    subject: str | None = None
    batch: timedelta | None = None
    kind: Literal["mail"] = "mail"


@dataclass(frozen=True)
class AutomationTrigger:
    """Another automation's run ended in one of ``states``."""

    automation: str
    states: tuple[str, ...] = ("succeeded",)
    kind: Literal["automation"] = "automation"


EventTrigger = Union[FolderTrigger, WebhookTrigger, MailTrigger, AutomationTrigger]


@dataclass(frozen=True)
class Member:
    """One trigger of a set, with the id runs record and webhook addresses name."""

    id: str
    trigger: "Trigger"


@dataclass(frozen=True)
class TriggerSet:
    """Several triggers; any of them fires the automation. Clock members' fires merge
    (two at one instant are one fire, recorded against the first member)."""

    members: tuple[Member, ...]
    kind: Literal["set"] = "set"

    def member(self, member_id: str) -> Member | None:
        return next((m for m in self.members if m.id == member_id), None)

    @property
    def clock(self) -> tuple[Member, ...]:
        return tuple(m for m in self.members if m.trigger.kind not in EVENT_KINDS)

    @property
    def events(self) -> tuple[Member, ...]:
        return tuple(m for m in self.members if m.trigger.kind in EVENT_KINDS)


def members_of(trigger: "Trigger") -> tuple[Member, ...]:
    """A trigger's members: a set's own, or a lone trigger as one member named by its
    kind (so a lone webhook trigger's address ends in ``/webhook``)."""
    if isinstance(trigger, TriggerSet):
        return trigger.members
    return (Member(trigger.kind, trigger),)


def waits_for_events(trigger: "Trigger") -> bool:
    """Whether some member fires on events: such an automation never completes for want
    of clock fires."""
    return any(m.trigger.kind in EVENT_KINDS for m in members_of(trigger))


def ids_of_kind(trigger: "Trigger", kind: str) -> list[str]:
    """The ids of a trigger's members of ``kind`` ("webhook": the addresses it has)."""
    return [m.id for m in members_of(trigger) if m.trigger.kind == kind]
