"""What the window shows and what its buttons do: the passive views fed from the adapter.

Mu's ``logic.py`` in spirit: the views (sidebar, detail pane, Upcoming, inbox, session)
only show what they are given and emit what the user asked; this controller asks the engine
through the :class:`~errands.app.adapter.Adapter` and hands the answers over. Each refresh
is named and coalesced (a burst of notices asks one question at a time, the last one with
every id that was named meanwhile), so the window keeps up with a thousand-run burst.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QWidget,
)

from ..errors import ErrandsError, NotFound
from ..records import Automation
from ..timeutil import utcnow
from . import words
from .adapter import Adapter
from .detail.pane import DetailPane
from .sidebar.view import AutomationSidebar
from .upcoming import UpcomingView
from .window import MainWindow

log = logging.getLogger(__name__)

PAGE_SIZE = 50   # runs per history page
LOAD_SLICE = 2_000   # sidebar rows handed over per loop turn at the first load


class Pages(QStackedWidget):
    """The right side: one page at a time (an automation, Upcoming, the inbox, a run)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("pages")
        self._pages: dict[str, QWidget] = {}

    def add(self, name: str, widget: QWidget) -> None:
        self._pages[name] = widget
        self.addWidget(widget)

    def show_page(self, name: str) -> None:
        self.setCurrentWidget(self._pages[name])

    @property
    def current(self) -> str:
        for name, widget in self._pages.items():
            if widget is self.currentWidget():
                return name
        return ""


class BackBar(QWidget):
    """A page's header with a way back to the automation it came from."""

    back = Signal()

    def __init__(self, title: str) -> None:
        super().__init__()
        self.button = QPushButton(self.tr("← Back"))
        self.button.setAccessibleName(self.tr("Back to the automation"))
        self.button.setToolTip(self.tr("Back (Esc)"))
        self.button.setFlat(True)
        self.button.clicked.connect(self.back)
        self.label = QLabel(title)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.label, 1)


class WindowController(QObject):
    """Feeds the views from the engine and turns their requests into engine commands."""

    selection_changed = Signal(str)        # the automation shown ("" for none)
    refreshed = Signal(str)                # a refresh named here finished (tests wait on it)
    edit_wanted = Signal(object)           # an Automation to edit (the form's owner opens it)
    new_wanted = Signal()

    def __init__(self, window: MainWindow, adapter: Adapter) -> None:
        super().__init__(window)
        self.window = window
        self.adapter = adapter
        self.api = adapter.api
        self.tz = words.local_zone()
        self.selected: str = ""
        self.automation: Automation | None = None
        self.upcoming_hours = 24
        self._pending_ids: set[str] = set()
        self._gone: set[str] | None = None   # ids deleted while the first load goes on
        self._refreshing: dict[str, bool] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        # Qt calls us between loop turns too (a test, a nested dialog): tasks go to this loop
        self.loop = asyncio.get_event_loop()

        self.sidebar = AutomationSidebar()
        self.detail = DetailPane()
        self.detail.set_local_zone(self.tz)
        self.upcoming = UpcomingView()
        self.upcoming.set_local_zone(self.tz)
        self.pages = Pages()
        self.pages.add("detail", self.detail)
        self.pages.add("upcoming", self.upcoming)
        window.set_sidebar(self.sidebar)
        window.set_detail(self.pages)
        self._wire()

    # ------------------------------------------------------------------- wiring

    def _wire(self) -> None:
        s, d, w, a = self.sidebar, self.detail, self.window, self.adapter
        s.automation_selected.connect(self.select)
        s.automation_activated.connect(lambda i: self.edit(i))
        s.new_requested.connect(self.new_wanted)
        s.upcoming_requested.connect(self.show_upcoming)
        self.upcoming.range_changed.connect(self._upcoming_range)
        self.upcoming.automation_selected.connect(self.open_automation)

        d.run_now_requested.connect(lambda i: self.run_now(i))
        d.dry_run_requested.connect(lambda i: self.run_now(i, dry_run=True))
        d.pause_requested.connect(lambda i: self.command(
            self.tr("Pause"), self.api.pause(i)))
        d.resume_requested.connect(lambda i: self.command(
            self.tr("Resume"), self.api.resume(i)))
        d.stop_requested.connect(lambda i: self.command(self.tr("Stop run"), self.api.stop(i)))
        d.duplicate_requested.connect(self.duplicate)
        d.delete_requested.connect(self.delete)
        d.edit_requested.connect(lambda i: self.edit(i))
        d.more_runs_wanted.connect(self._more_runs)

        w.new_requested.connect(self.new_wanted)
        w.find_requested.connect(self._find)
        w.run_now_requested.connect(lambda: self.selected and self.run_now(self.selected))
        w.edit_requested.connect(lambda: self.selected and self.edit(self.selected))
        w.toggle_pause_requested.connect(self.toggle_pause)
        w.delete_requested.connect(lambda: self.automation and self.detail.confirm_delete())
        w.escape_pressed.connect(self._escape)

        a.automations_changed.connect(self._changed)
        a.automations_deleted.connect(self._deleted)
        a.attention_changed.connect(lambda: self.refresh("unread", self._refresh_unread))

    # ---------------------------------------------------------------- start

    async def load(self) -> None:
        """The first snapshot: every automation, the unread count."""
        await asyncio.gather(self._load_all(), self._refresh_unread())

    async def _load_all(self) -> None:
        answer = await self.adapter.summaries(key="sidebar")
        if answer is not None:
            rows, _total = answer.value
            if self.sidebar.model.rowCount():
                self.sidebar.set_summaries(rows)
            else:
                await self._fill(rows)
        self.refreshed.emit("sidebar")

    async def _fill(self, rows: list[Any]) -> None:
        """The first snapshot into the empty list a slice per loop turn: ten thousand rows
        at once would hold the window 30 ms or more; the first slice (the top of the list)
        shows at once. A row a notice refreshed or deleted meanwhile keeps its newer state."""
        self._gone = set()
        try:
            self.sidebar.set_summaries(rows[:LOAD_SLICE])
            model = self.sidebar.model
            for i in range(LOAD_SLICE, len(rows), LOAD_SLICE):
                await asyncio.sleep(0)
                gone = self._gone
                self.sidebar.apply_changes([s for s in rows[i:i + LOAD_SLICE]
                                            if model.row_of(s.id) is None and s.id not in gone])
        finally:
            self._gone = None

    # --------------------------------------------------------------- refreshes

    def refresh(self, name: str, make: Callable[[], Awaitable[None]]) -> None:
        """Run ``make()`` now, or once more after the one in flight."""
        if name in self._refreshing:
            self._refreshing[name] = True
            return
        self._refreshing[name] = False

        async def go() -> None:
            try:
                while True:
                    try:
                        await make()
                    except ErrandsError as exc:  # deleted meanwhile, database busy: next time
                        log.info("refresh %s refused: %s", name, exc)
                    if not self._refreshing.get(name):
                        break
                    self._refreshing[name] = False
            finally:
                self._refreshing.pop(name, None)
                self.refreshed.emit(name)
        self.spawn(go())

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = self.loop.create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_report)
        return task

    def _changed(self, ids: set[str]) -> None:
        self._pending_ids |= ids
        self.refresh("rows", self._refresh_rows)
        if self.selected in ids:
            self.refresh("detail", self._refresh_detail)
        if self.pages.current == "upcoming":
            self.refresh("upcoming", self._refresh_upcoming)

    def _deleted(self, ids: set[str]) -> None:
        if self._gone is not None:
            self._gone |= ids
        self.sidebar.apply_changes(deleted=ids)
        if self.selected in ids:
            self._show_nothing()

    async def _refresh_rows(self) -> None:
        ids, self._pending_ids = self._pending_ids, set()
        if not ids:
            return
        answer = await self.adapter.summaries(key=("rows", id(ids)), ids=ids)
        if answer is None:
            self._pending_ids |= ids
            return
        rows, _total = answer.value
        found = {r.id for r in rows}
        self.sidebar.apply_changes(rows, deleted=ids - found)

    async def _refresh_unread(self) -> None:
        answer = await self.adapter.attention(key="unread", unread_only=True)
        if answer is not None:
            self.sidebar.set_unread_count(len(answer.value))

    # ----------------------------------------------------------- the selection

    def select(self, automation_id: str) -> None:
        """Show an automation (from the sidebar; "" shows nothing)."""
        if automation_id == self.selected and self.pages.current == "detail":
            return
        self.selected = automation_id
        self.window.set_selection_actions_enabled(bool(automation_id))
        self.selection_changed.emit(automation_id)
        if not automation_id:
            self._show_nothing()
            return
        self.pages.show_page("detail")
        self.refresh("detail", self._refresh_detail)

    def open_automation(self, automation_id: str) -> None:
        """Select it in the sidebar (which shows it), or show it when filtered out."""
        if not self.sidebar.select(automation_id):
            self.select(automation_id)
        self.pages.show_page("detail")

    def _show_nothing(self) -> None:
        self.selected = ""
        self.automation = None
        self.detail.set_automation(None)
        self.window.set_selection_actions_enabled(False)

    async def _refresh_detail(self) -> None:
        wanted = self.selected
        if not wanted:
            return
        try:
            got, runs = await asyncio.gather(
                self.adapter.latest("detail", lambda: self.api.automation(wanted)),
                self.adapter.runs(wanted, key="detail-runs", limit=PAGE_SIZE))
        except NotFound:
            if self.selected == wanted:
                self._show_nothing()
            return
        if got is None or runs is None or self.selected != wanted:
            return
        automation = got.value
        page, cursor = runs.value
        running = any(r.state == "running" for r in page)
        same = self.automation is not None and self.automation.id == automation.id
        self.automation = automation
        self.detail.set_now(utcnow())
        self.detail.set_automation(automation, running=running, run_count=automation.run_count)
        if same and self.detail.history.runs():
            self.detail.update_runs(page)  # keeps the pages already loaded below
            if not self.detail.history.runs() or page and \
                    self.detail.history.row_of(page[0].id) is None:
                self.detail.set_runs(page, cursor)
        else:
            self.detail.set_runs(page, cursor)

    def _more_runs(self, automation_id: str, cursor: str) -> None:
        async def go() -> None:
            answer = await self.adapter.runs(automation_id, key="more-runs", limit=PAGE_SIZE,
                                             cursor=cursor)
            if answer is not None and self.selected == automation_id:
                page, after = answer.value
                self.detail.append_runs(page, after)
        self.spawn(go())

    # ------------------------------------------------------------------ Upcoming

    def show_upcoming(self) -> None:
        self.pages.show_page("upcoming")
        self.refresh("upcoming", self._refresh_upcoming)

    def _upcoming_range(self, hours: int) -> None:
        self.upcoming_hours = hours
        self.refresh("upcoming", self._refresh_upcoming)

    async def _refresh_upcoming(self) -> None:
        hours = self.upcoming_hours
        answer = await self.adapter.latest("upcoming", lambda: self.api.upcoming(hours))
        if answer is not None:
            now = utcnow()
            self.upcoming.set_fires(answer.value, now, now + timedelta(hours=hours))

    # ----------------------------------------------------------------- commands

    def command(self, what: str, command: Awaitable[Any],
                done: Callable[[Any], None] | None = None) -> asyncio.Task[Any]:
        return self.adapter.submit(what, command, done)

    def run_now(self, automation_id: str, *, dry_run: bool = False) -> None:
        what = self.tr("Dry run") if dry_run else self.tr("Run now")

        def started(answer: Any) -> None:
            self.window.statusBar().showMessage(
                self.tr("Dry run started") if dry_run else self.tr("Run started"), 5000)
        self.command(what, self.api.run_now(automation_id, dry_run=dry_run), started)

    def toggle_pause(self) -> None:
        a = self.automation
        if a is None or a.status == "completed" or a.definition is None:
            return
        if a.status == "paused":
            self.command(self.tr("Resume"), self.api.resume(a.id))
        else:
            self.command(self.tr("Pause"), self.api.pause(a.id))

    def delete(self, automation_id: str) -> None:
        def gone(_answer: Any) -> None:
            self.window.statusBar().showMessage(self.tr("Automation deleted"), 5000)
        self.command(self.tr("Delete"), self.api.delete(automation_id), gone)

    def duplicate(self, automation_id: str) -> None:
        async def go() -> Any:
            source = (await self.api.automation(automation_id)).value
            if source.definition is None:
                raise NotFound("automation", "a broken automation cannot be duplicated; "
                               "repair it first")
            doc = source.definition.to_dict()
            doc["title"] = (self.tr("Copy of %1").replace("%1", source.title))[:120]
            doc["origin"] = {"kind": "user"}
            doc.pop("paused", None)
            return await self.api.create(doc)

        def made(answer: Any) -> None:
            automation, _created = answer.value
            self.open_automation(automation.id)
        self.command(self.tr("Duplicate"), go(), made)

    def edit(self, automation_id: str) -> None:
        async def go() -> Automation:
            return (await self.api.automation(automation_id)).value
        self.command(self.tr("Edit"), go(), self.edit_wanted.emit)

    # ------------------------------------------------------------------ keyboard

    def _find(self) -> None:
        self.sidebar.focus_filter()

    def _escape(self) -> None:
        if self.pages.current != "detail":
            self.pages.show_page("detail")
        elif self.sidebar.filter_edit.hasFocus() and self.sidebar.filter_edit.text():
            self.sidebar.filter_edit.clear()

    def set_now(self) -> None:
        self.sidebar.set_now(utcnow())

    async def idle(self) -> None:
        """Wait until no refresh or command of the window's is in flight."""
        while self._tasks or self.adapter._tasks:
            await asyncio.gather(*self._tasks, *self.adapter._tasks, return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _report(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a window task failed", exc_info=task.exception())

