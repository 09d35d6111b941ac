"""What the engine's parts share: the in-memory slot of each automation, the reasons a run
ends without its runner, and the engine's timing constants."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..paths import private_dir
from ..records import Automation
from ..runners.contract import Outcome

if TYPE_CHECKING:
    from .core import Engine

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0          # seconds: a sleeping machine or a clock jump is noticed within this
JUMP_THRESHOLD = 30.0     # seconds the wall clock may run ahead of the monotonic one
FINAL_STRETCH = 0.25      # seconds: the last, short sleep before a fire (see _sleep_for)
CHECKPOINT_EVERY = 10.0   # seconds: at most one write-ahead-log checkpoint before fires
CHECKPOINT_LEAD = 1.5     # seconds before a fire that checkpoint starts
RETRY_ADMISSION = 5.0     # seconds before admission is tried again after the store failed
LEFTOVER_GRACE = 5.0      # seconds a child left by a dead engine has after SIGTERM
PREPARE_AHEAD = timedelta(minutes=10)  # a fire this close gets its run's folders made now
CancelReason = Literal["cancelled", "interrupted"]
# Why a run was cancelled, as its error (code, message), when nobody asked for it by name;
# a stop or a delete says who asked (``stopped_by``).
REPLACED = ("replaced", "a newer fire replaced it (overlap: cancel_previous)")
PAUSED = ("paused", "dropped because the automation was paused")
ARCHIVED = ("archived", "ended because the automation was archived")
SHUTDOWN = ("interrupted", "Errands quit before this run could start")
CRASHED = ("interrupted", "Errands stopped while this run was active")
SHUTDOWN_RUNNING = ("interrupted", "Errands quit while this run was active")


@dataclass
class Slot:
    """In-memory view of one automation: what the timer needs, nothing more."""

    automation: Automation
    due: datetime | None = None        # cursor + jitter: when the timer should wake for it
    active: str | None = None          # the run running, parked or in backoff
    queued: str | None = None          # queue_one: the one fire waiting behind it
    version: int = 0


def failed(why: tuple[str, str]) -> Outcome:
    code, message = why
    return Outcome(state="failed", error_code=code, error_message=message)


def make_folders(folders: list[Path]) -> None:
    """Create (0700) what does not exist yet; a folder that cannot be made is left for the
    run, which reports why."""
    for folder in folders:
        try:
            private_dir(folder)
        except OSError:
            pass


def say_trouble(engine: Engine, automation_id: str, what: str, problem: str) -> None:
    """A trigger that cannot watch what it should: logged, and one inbox item (kind
    ``trigger_problem``) titled "<automation>: <what>"."""
    slot = engine.slots.get(automation_id)
    title = slot.automation.title if slot is not None else automation_id
    log.warning("%s: %s: %s", title, what, problem)
    engine.ledger.attention(kind="trigger_problem", title=f"{title}: {what}", body=problem,
                            now=engine.clock.now(), automation_id=automation_id, run_id=None)
    engine.events.publish("attention_raised", automation_id=automation_id)
