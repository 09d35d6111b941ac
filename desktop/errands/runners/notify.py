"""Reminders: a run that shows its message as a notification and succeeds.

The notice is the run's outcome (``Outcome.notify``), so the engine records it with the
run's end in one transaction: a crash never shows a reminder without its run, nor records
the run without the reminder. No model and no process are involved.
"""

from __future__ import annotations

from ..definition import NotifyTask
from .contract import Outcome, RunContext


class NotifyRunner:
    kind = "notify"
    needs_network = False

    async def run(self, ctx: RunContext) -> Outcome:
        task = ctx.definition.runner
        if not isinstance(task, NotifyTask):
            raise TypeError(f"not a reminder: runner kind {task.kind!r}")
        if ctx.dry_run:  # a rehearsal says what it would show, and shows nothing
            return Outcome(state="succeeded", result=f"Would show: {task.message}")
        return Outcome(state="succeeded", result=task.message, notify=[task.message])
