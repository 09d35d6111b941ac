"""What the engine asks of a runner, and what a runner hands back.

A runner executes one attempt of one run. It never touches the store: the engine records
every transition. A runner that needs a person returns ``awaiting_input`` with a
:class:`Blocker`; the engine parks the run durably. When someone decides, the engine starts
the runner again for the same run (a new segment of the same attempt, in this process or
another, under the revision the run was claimed with) with ``ctx.resume`` set, and the
runner picks up from what it persisted through ``ctx.session``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from ..definition import Definition
from ..records import Blocker, Decision
from ..settings import Settings

OutcomeState = Literal["succeeded", "failed", "awaiting_input"]


@dataclass(frozen=True)
class Resume:
    """Handed to a runner that continues a parked run."""

    blocker: Blocker
    decision: Decision


class Transcript(Protocol):
    """Where a runner keeps its progress. Appends are committed with the engine's group
    commit (in order, before the run's next transition), so a crash loses none that a
    later transition depends on."""

    @property
    def session_id(self) -> str: ...

    def append(self, role: str, content: dict[str, Any]) -> None: ...

    async def messages(self) -> list[dict[str, Any]]: ...


class RunServices(Protocol):
    """What the engine offers a run beyond its transcript: raising a notice for the user,
    acting on automations (the agent's ``automate`` tool) and the user's permission rules.
    Each call is recorded by the engine; a runner still never touches the store."""

    def notify(self, ctx: "RunContext", title: str, body: str) -> None: ...

    async def automate(self, ctx: "RunContext", action: str,
                       arguments: dict[str, Any]) -> dict[str, Any]: ...

    def permission_rules(self) -> tuple[Any, ...]: ...

    def current_settings(self) -> Settings: ...


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
    revision: int = 1
    session: Transcript | None = None
    resume: Resume | None = None
    services: RunServices | None = None
    data_dir: Path | None = None
    on_output: "OutputObserver | None" = None   # output as it is printed (secrets taken out)
    trigger: dict[str, Any] | None = None   # what fired it: id, kind, cause (Run.fired_by)
    mounts: tuple[Path, ...] = ()   # folders its tools may read, never change (a discussion)
    discussion: str | None = None   # the discussion this turn belongs to (not a run)
    event: Any = None                       # the event's payload: untrusted input
    mail: Any = None                        # the mail tools' account (agent/tools/mail.py)


class ProcessObserver(Protocol):
    """Told the pid of a child right after it starts, so a crash can never orphan it."""

    def __call__(self, pid: int) -> None: ...


class OutputObserver(Protocol):
    """Told each chunk of a run's output as it comes, so clients can watch a run live. It
    must return at once (it runs on the loop, once per chunk)."""

    def __call__(self, chunk: bytes) -> None: ...


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
    blocker: Blocker | None = None      # with awaiting_input: what the run waits for
    stop_reason: str | None = None      # a runner's own reason to stop (``step_cap``)
    details: dict[str, Any] | None = None  # merged into the run's details (changed files …)
    script_state: dict[str, Any] | None = None  # a script's setState changes, with the close


class Runner(Protocol):
    kind: str
    needs_network: bool

    async def run(self, ctx: RunContext) -> Outcome:
        """One attempt. Cancellation (stop, timeout, shutdown) arrives as CancelledError and
        must leave no child process behind."""
        ...
