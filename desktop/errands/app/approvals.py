"""Reviewing parked runs: the approval dialog fed from the engine, its decisions applied
through it.

:class:`ApprovalFlow` loads the parked runs (and their automations) through the adapter,
shows them in one :class:`~errands.app.dialogs.approval.ApprovalDialog`, sends each
decision to ``api.decide`` (a refusal is shown beside the item, which stays), and follows
the engine while the dialog is open: a run decided elsewhere (the CLI, another window)
leaves the queue, a run that parks meanwhile joins it. :attr:`ApprovalFlow.count_changed`
says how many runs wait, for the sidebar's and the tray's badges; it is said again the
moment a decision here is applied, before the engine's notice comes round.

Parked runs from before a restart are in the store like any other, so they appear the same.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from ..agent.permissions import ESCALATED_TOOLS
from ..errors import ErrandsError
from ..records import Automation, Decision, Parked, Run
from .adapter import Adapter
from .tasks import Tasks
from .dialogs.approval import ApprovalDialog, Item

log = logging.getLogger(__name__)


class ApprovalFlow(QObject):
    count_changed = Signal(int)           # parked runs, all automations
    applied = Signal(str, object)         # run id, the Run after the decision

    def __init__(self, window: QWidget | None, adapter: Adapter) -> None:
        super().__init__(window)
        self.window = window
        self.adapter = adapter
        self.dialog: ApprovalDialog | None = None
        self.automation_id: str | None = None   # the review's scope (None: every automation)
        self.count: int | None = None
        self._automations: dict[str, Automation | None] = {}
        self.tasks = Tasks("loading parked runs", loop_of=lambda: adapter.tasks.loop)
        self._again = False
        self._loading = False
        self._show_on_load = False
        adapter.parked_changed.connect(self.refresh)
        adapter.automations_changed.connect(self._automations_changed)
        adapter.automations_deleted.connect(self._automations_changed)

    # ------------------------------------------------------------------ opening

    def open(self, automation_id: str | None = None) -> ApprovalDialog:
        """Show the dialog over the runs waiting now (only ``automation_id``'s, if given)."""
        if self.dialog is None:
            data_dir = getattr(self.adapter.api, "data_dir", None)
            self.dialog = ApprovalDialog(self.window, data_dir=data_dir)
            self.dialog.decided.connect(self._decided)
            self.dialog.finished.connect(self._closed)
        if not self.dialog.isVisible() or self.automation_id != automation_id:
            self.dialog.restart()
        self.automation_id = automation_id
        self._show_on_load = True
        self.refresh()
        return self.dialog

    def is_open(self) -> bool:
        return self.dialog is not None and self.dialog.isVisible()

    def _closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.restart()

    # ------------------------------------------------------------------ loading

    def refresh(self) -> None:
        """Load the parked runs again (once more after the load in flight, if one is)."""
        if self._loading:
            self._again = True
            return
        self._spawn(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        self._loading = True
        try:
            while True:
                self._again = False
                await self.load()
                if not self._again:
                    break
        finally:
            self._loading = False

    async def load(self) -> list[Item] | None:
        """The parked runs with their automations; counted, and shown when the dialog is
        open (or being opened). None when a newer load superseded this one."""
        answer = await self.adapter.parked(key=("approvals", "all"))
        if answer is None:
            return None
        every = answer.value
        if self.count != len(every):
            self.count = len(every)
            self.count_changed.emit(self.count)
        dialog = self.dialog
        show = self._show_on_load
        if dialog is None or not (show or dialog.isVisible()):
            return None
        scoped = [p for p in every if self.automation_id in (None, p.automation_id)]
        items = [(p, await self._automation(p.automation_id)) for p in scoped]
        await self._note_untrusted(scoped)
        self._show_on_load = False
        dialog.set_queue(items)
        if show and dialog.current() is not None and not dialog.isVisible():
            dialog.show()
            dialog.raise_()
            dialog.activateWindow()
        return items

    async def _automation(self, automation_id: str) -> Automation | None:
        if automation_id not in self._automations:
            try:
                self._automations[automation_id] = (
                    await self.adapter.api.automation(automation_id)).value
            except ErrandsError:  # deleted meanwhile: its runs end with it
                self._automations[automation_id] = None
        return self._automations[automation_id]

    async def _note_untrusted(self, parked: list[Parked]) -> None:
        """Which of these runs read web content before asking (it is why they ask)."""
        assert self.dialog is not None
        for p in parked:
            if p.blocker.tool in ESCALATED_TOOLS and p.run_id not in self.dialog.untrusted:
                try:
                    doc = (await self.adapter.api.run(p.run_id)).value
                except ErrandsError:
                    continue
                if (doc.get("details") or {}).get("untrusted_content"):
                    self.dialog.untrusted.add(p.run_id)

    def _automations_changed(self, ids: set[str]) -> None:
        for automation_id in ids:
            self.forget(automation_id)
        if self.is_open() and any(p.automation_id in ids for p, _ in self.dialog.pending()):
            self.refresh()  # its title or rules changed: show it as it is now

    def forget(self, automation_id: str | None = None) -> None:
        """An automation changed (a saved rule, an edit): read it again when next shown."""
        if automation_id is None:
            self._automations.clear()
        else:
            self._automations.pop(automation_id, None)

    # ------------------------------------------------------------------ deciding

    def _decided(self, run_id: str, decision: Decision) -> None:
        self._spawn(self.apply(run_id, decision))

    async def apply(self, run_id: str, decision: Decision) -> Run | None:
        """Send one decision to the engine; the dialog moves on, or says why not."""
        dialog = self.dialog
        try:
            answer = await self.adapter.api.decide(run_id, decision,
                                                   request_id=f"app-{uuid.uuid4()}")
        except ErrandsError as exc:
            if dialog is not None:
                dialog.show_error(str(exc), run_id)
            return None
        run = answer.value
        if decision.kind == "approve_always":
            self.forget(run.automation_id)  # it has a new revision now
        if self.count:
            self.count -= 1  # the badge at once; the notice's reload confirms it
            self.count_changed.emit(self.count)
        if dialog is not None:
            dialog.next_item(run_id)
        self.applied.emit(run_id, run)
        return run

    # ------------------------------------------------------------------ tasks

    def _spawn(self, coro: Any) -> None:
        self.tasks.spawn(coro)

    async def idle(self) -> None:
        """Wait for the loads and decisions in flight (tests, quit)."""
        await self.tasks.idle()

    def close(self) -> None:
        """Nothing more starts; what is in flight is stopped."""
        if self.dialog is not None:
            self.dialog.close()
        self.tasks.stop()
