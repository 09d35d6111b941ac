"""A run's transcript as the runner sees it: appends ride the engine's group commit.

A ``fresh`` automation gets a session per run; a ``continue`` one keeps a single session
for the automation, so a later run can replay earlier turns.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..definition import Definition

if TYPE_CHECKING:
    from .book import Ledger


def session_for(definition: Definition, automation_id: str, run_id: str,
                existing: str | None) -> tuple[str, str]:
    """(session id, kind) for a run: its own, or its automation's continuing one."""
    if existing:
        return existing, ("automation" if existing.startswith("a-") else "run")
    if definition.context.mode == "continue":
        joined = definition.origin.session_id if definition.origin.kind == "agent" else None
        if joined:  # "check back in 10 minutes": the follow-up goes on in its creator's session
            return joined, ("automation" if joined.startswith("a-") else "run")
        return f"a-{automation_id}", "automation"
    return f"r-{run_id}", "run"


class RunTranscript:
    def __init__(self, ledger: Ledger, now: Callable[[], datetime], *,
                 session_id: str, kind: str, automation_id: str, run_id: str,
                 title: str, on_append: Callable[[], None] | None = None,
                 new: bool = False) -> None:
        """``new``: the session is this run's own and holds nothing yet (its first attempt):
        what it holds is then known here, and reading it costs no commit and no query."""
        self._ledger = ledger
        self._now = now
        self._id = session_id
        self._head = (session_id, automation_id, kind, title, run_id)
        self._on_append = on_append
        self._known: list[dict[str, Any]] | None = [] if new else None

    @property
    def session_id(self) -> str:
        return self._id

    def append(self, role: str, content: dict[str, Any]) -> None:
        self._ledger.append_message((*self._head, role, content, self._now()))
        if self._known is not None:
            self._known.append({"role": role, **content})
        if self._on_append is not None:  # a session view open on it refreshes
            self._on_append()

    async def messages(self) -> list[dict[str, Any]]:
        """Everything appended so far (by this run and, continuing, by earlier ones)."""
        if self._known is not None:
            return list(self._known)
        await self._ledger.group.settled()
        found = await self._ledger.read(self._ledger.store.messages, self._id)
        return [{"role": m.role, **m.content} for m in found
                if isinstance(m.content, dict)]  # a damaged row costs only itself
