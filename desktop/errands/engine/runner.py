"""What the engine asks of a runner, and what a runner hands back.

A runner executes one attempt of one run. It never touches the store: the engine records
every transition. ``awaiting_input`` lets a runner (the agent, later) park a run and be
resumed afterwards, possibly by another process, from what it persisted in the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal, Protocol

from ..definition import Definition

OutcomeState = Literal["succeeded", "failed", "awaiting_input"]


@dataclass(frozen=True)
class RunContext:
    automation_id: str
    run_id: str
    run_index: int
    attempt: int
    scheduled_for: datetime | None
    definition: Definition
    workdir: Path
    log_path: Path
    timeout: timedelta
    dry_run: bool = False
    on_started: "ProcessObserver | None" = None


class ProcessObserver(Protocol):
    """Told the pid of a child right after it starts, so a crash can never orphan it."""

    def __call__(self, pid: int) -> None: ...


@dataclass
class Outcome:
    state: OutcomeState
    result: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    notify: list[str] = field(default_factory=list)
    condition_met: bool = False
    output_tail: str | None = None
    session_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Runner(Protocol):
    kind: str
    needs_network: bool

    async def run(self, ctx: RunContext) -> Outcome:
        """One attempt. Cancellation (stop, timeout, shutdown) arrives as CancelledError and
        must leave no child process behind."""
        ...
