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
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from shiboken6 import isValid
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..errors import ErrandsError, NotFound
from ..records import AttentionItem, Automation, Decision
from ..timeutil import system_zone_name, utcnow
from . import words
from .adapter import Adapter
from .detail.history import ID_ROLE
from .detail.pane import DetailPane
from .detail.session import SessionView, discussion_page
from .approvals import ApprovalFlow
from .detail.approvals import load_rule_origins, revoke_rule
from .dialogs.form import AutomationForm
from .inbox import InboxView
from .sidebar.view import AutomationSidebar
from .tasks import Tasks
from .upcoming import UpcomingView
from .welcome import WelcomeView
from .window import MainWindow

log = logging.getLogger(__name__)

PAGE_SIZE = 50   # runs per history page
INBOX_PAGE = 500  # the newest attention items the store hands over (Store.attention)
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
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.label, 1)


LIVE_WAIT = 5.0        # seconds one request for a running command's output waits for more
LIVE_INTERVAL = 0.15   # seconds at least between two pieces of live output on the run page


class WindowController(QObject):
    """Feeds the views from the engine and turns their requests into engine commands."""

    selection_changed = Signal(str)        # the automation shown ("" for none)
    refreshed = Signal(str)                # a refresh named here finished (tests wait on it)
    form_opened = Signal(object)           # the AutomationForm just shown (tests drive it)

    def __init__(self, window: MainWindow, adapter: Adapter) -> None:
        super().__init__(window)
        self.window = window
        self.adapter = adapter
        self.tz = words.local_zone()
        self.selected: str = ""
        self.automation: Automation | None = None
        self.upcoming_hours = 24
        self._pending_ids: set[str] = set()
        self._gone: set[str] | None = None   # ids deleted while the first load goes on
        self.tasks = Tasks("a window refresh")

        self.sidebar = AutomationSidebar()
        self.detail = DetailPane()
        self.detail.set_local_zone(self.tz)
        self.upcoming = UpcomingView()
        self.upcoming.set_local_zone(self.tz)
        self.session = SessionView()
        self.session.set_local_zone(self.tz)
        self.session_back = BackBar(self.tr("Run"))
        session_page = QWidget()
        session_page.setAccessibleName(self.tr("Run"))
        column = QVBoxLayout(session_page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.session_back)
        self.created_box = QWidget()      # what the run's agent created, as cards
        self.created_box.setAccessibleName(self.tr("Automations this run created"))
        self.created_layout = QVBoxLayout(self.created_box)
        self.created_layout.setContentsMargins(12, 0, 12, 0)
        self.created_box.hide()
        column.addWidget(self.created_box)
        column.addWidget(self.session, 1)
        self.created_cards: dict[str, QWidget] = {}
        self.inbox = InboxView()
        self.pages = Pages()
        detail_scroll = QScrollArea()   # a short window scrolls the page, never squeezes it
        detail_scroll.setWidget(self.detail)
        detail_scroll.setWidgetResizable(True)
        detail_scroll.setFrameShape(QFrame.Shape.NoFrame)
        detail_scroll.viewport().installEventFilter(self.detail)   # (it fits the room)
        self.pages.add("detail", detail_scroll)
        self.pages.add("upcoming", self.upcoming)
        self.pages.add("session", session_page)
        self.pages.add("inbox", self.inbox)
        self.welcome = WelcomeView()       # the first start: the ways to begin
        self.pages.add("welcome", self.welcome)
        self.welcome.describe_requested.connect(self.describe)
        self.welcome.template_requested.connect(self.from_template)
        self.welcome.form_requested.connect(lambda: self.new())
        self.welcome.model_requested.connect(window.settings_requested)
        self.session_run: str = ""        # the run (or d-… discussion, or draft:…) shown
        self._discussion_run: str | None = None  # the run the discussion shown is about
        self._following: str | None = None  # the running command whose output comes live
        self._follow_token: object | None = None  # the follower that may write (the newest)
        self._ticking = QTimer(self)       # a running run's "took" moves on, once a second
        self._ticking.setInterval(1000)
        self._ticking.timeout.connect(self._tick)
        self.approvals = ApprovalFlow(window, adapter)
        self.review_button = QPushButton(self.tr("Review…"))
        self.review_button.setAccessibleName(self.tr("Review what this run waits for"))
        self.review_button.hide()
        self.session_back.layout().addWidget(self.review_button)
        self.form: AutomationForm | None = None
        self.quick: Any = None     # the quick-create flow while its dialog is open
        self.import_box: QMessageBox | None = None   # "Import N new automations?"
        self.told: QMessageBox | None = None         # the last message box shown
        self.wizard: Any = None    # the template wizard's flow
        window.set_sidebar(self.sidebar)
        window.set_detail(self.pages)
        # a click or Enter on a row opens it (in a narrow window, over the list); moving
        # through the list with the arrows only selects
        self.sidebar.list.clicked.connect(lambda _index: self.window.show_detail())
        self.sidebar.list.activated.connect(lambda _index: self.window.show_detail())
        self._wire()

    # ------------------------------------------------------------------- wiring

    def _wire(self) -> None:
        s, d, w, a = self.sidebar, self.detail, self.window, self.adapter
        s.automation_selected.connect(self.select)
        s.automation_activated.connect(lambda i: self.edit(i))
        s.new_requested.connect(self.describe)
        self._new_menu()
        s.upcoming_requested.connect(self.show_upcoming)
        s.inbox_requested.connect(self.show_inbox)
        self.inbox.mark_read_requested.connect(
            lambda item_id: self.command(self.tr("Mark read"), self.api.mark_read(item_id)))
        self.inbox.mark_all_read_requested.connect(
            lambda: self.command(self.tr("Mark all read"), self.api.mark_read(None)))
        self.inbox.run_opened.connect(self.open_run)
        self.inbox.automation_opened.connect(self.open_automation)
        self.session.reply_requested.connect(self.reply)
        self.session.discuss_requested.connect(self.start_discussion)
        self.session.discussion_requested.connect(self.open_discussion)
        self.session.discussion_decided.connect(self.decide_discussion)
        self.session_back.back.connect(self._back_from_session)
        self.detail.table.activated.connect(self._history_activated)
        self.detail.revoke_requested.connect(self.revoke)
        s.approvals_requested.connect(lambda: self.approvals.open())
        self.approvals.count_changed.connect(s.set_parked_count)
        self.review_button.clicked.connect(self._review_session_run)
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
        d.webhook_requested.connect(self.rotate_webhook_tokens)
        d.existing_requested.connect(self.run_over_existing)
        d.archive_requested.connect(self.archive)
        d.unarchive_requested.connect(self.unarchive)
        d.delete_requested.connect(self.delete)
        d.edit_requested.connect(lambda i: self.edit(i))
        d.more_runs_wanted.connect(self._more_runs)

        w.use_space_in(self.sidebar.list, self.detail.table, self.detail.strip)
        w.new_requested.connect(self.new)
        w.import_requested.connect(self.choose_import)
        w.export_requested.connect(self.choose_export)
        w.describe_requested.connect(self.describe)
        w.template_requested.connect(self.from_template)
        w.find_requested.connect(self._find)
        w.run_now_requested.connect(lambda: self.selected and self.run_now(self.selected))
        w.edit_requested.connect(lambda: self.selected and self.edit(self.selected))
        w.toggle_pause_requested.connect(self.toggle_pause)
        w.toggle_archive_requested.connect(self.toggle_archive)
        w.show_archived_toggled.connect(s.show_archived)
        s.archived_toggled.connect(w.show_archived_action.setChecked)
        w.delete_requested.connect(lambda: self.automation and self.detail.confirm_delete())
        w.escape_pressed.connect(self._escape)

        a.automations_changed.connect(self._changed)
        a.automations_deleted.connect(self._deleted)
        a.attention_changed.connect(self._attention_changed)
        a.runs_changed.connect(self._runs_changed)

    # ---------------------------------------------------------------- start

    async def load(self) -> None:
        """The first snapshot: every automation, the unread count."""
        self.approvals.refresh()
        await asyncio.gather(self._load_all(), self._refresh_unread())

    async def show_preview(self, rows: list[Any]) -> None:
        """What is stored, before the engine runs (its snapshot in :meth:`load` then
        changes only the rows that differ)."""
        if not self.sidebar.model.rowCount():
            await self._fill(rows)

    async def _load_all(self) -> None:
        answer = await self.adapter.summaries(key="sidebar")
        if answer is not None:
            rows, _total = answer.value
            if self.sidebar.model.rowCount():
                self.sidebar.set_summaries(rows)
            else:
                await self._fill(rows)
            self._maybe_welcome()
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
        """Run ``make()`` now, or once more after the one in flight (``refreshed`` says
        when it ended)."""
        self.tasks.refresh(name, make, self.refreshed.emit)

    @property
    def api(self) -> Any:
        return self.adapter.api

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The engine runs: the loop tasks go to, and where its data lives."""
        self.tasks.loop = loop
        self.detail.saved.data_dir = self.api.data_dir

    def spawn(self, coro: Any) -> asyncio.Task[Any] | None:
        return self.tasks.spawn(coro)

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
        self._maybe_welcome()   # (the last one gone: the ways to begin again)

    async def _refresh_rows(self) -> None:
        ids, self._pending_ids = self._pending_ids, set()
        if not ids:
            return
        # one at a time already (refresh "rows"): no newer answer can overtake this one
        rows, _total = (await self.api.summaries(ids=ids)).value
        found = {r.id for r in rows}
        self.sidebar.apply_changes(rows, deleted=ids - found)
        if self.selected in found and self.sidebar.current_id() != self.selected \
                and self.pages.current == "detail":
            self.sidebar.select(self.selected)   # (one just saved: the list shows it too)
        self._maybe_welcome()

    def _maybe_welcome(self) -> None:
        """An empty catalogue shows the ways to begin where the detail would be; the first
        automation puts the detail back."""
        empty = not self.sidebar.model.rowCount() and not self.sidebar.archived_model.rowCount()
        if empty and self.pages.current == "detail" and not self.selected:
            self.pages.show_page("welcome")
            self.window.show_detail()   # (a narrow window shows it rather than the empty list)
            self.refresh("welcome", self._refresh_welcome)
        elif not empty and self.pages.current == "welcome":
            self.pages.show_page("detail")
            self.window.show_list()   # (a narrow window: the list, which has it now)

    async def _refresh_welcome(self) -> None:
        from ..templates import load_templates

        settings = (await self.api.settings()).value
        ready = bool(settings.get("provider_base_url") and settings.get("provider_model"))
        # (get_event_loop: the window's tasks may be stepped by Qt between its loop's turns)
        templates, _problems = await asyncio.get_event_loop().run_in_executor(
            None, load_templates)
        self.welcome.set_model(ready, [t.title for t in templates if not t.needs_model])

    async def _refresh_unread(self) -> None:
        answer = await self.adapter.latest("unread", self.api.unread_counts)
        if answer is not None:
            self.sidebar.set_unread_count(sum(answer.value.values()))

    def _attention_changed(self) -> None:
        self.refresh("unread", self._refresh_unread)
        if self.pages.current == "inbox":
            self.refresh("inbox", self._refresh_inbox)

    def _runs_changed(self, states: dict[str, str]) -> None:
        if self.pages.current != "session" or not self.session_run:
            return
        if self.session_run in states or (self._discussion_run and self._discussion_run
                                          in states):
            self.refresh("session", self._refresh_session)

    # ----------------------------------------------------------- the selection

    def select(self, automation_id: str) -> None:
        """Show an automation (from the sidebar; "" shows nothing)."""
        if automation_id == self.selected and self.pages.current == "detail" \
                and self.automation is not None:  # (one that could not be read: try again)
            return
        self.selected = automation_id
        self.window.set_selection_actions_enabled(bool(automation_id))
        self.selection_changed.emit(automation_id)
        if not automation_id:
            self._show_nothing()
            return
        self.pages.show_page("detail")
        if not self.adapter.bound:
            self.detail.show_waiting()
        self.refresh("detail", self._refresh_detail)

    def open_automation(self, automation_id: str) -> None:
        """Select it in the sidebar (which shows it), or show it when filtered out."""
        self.window.show_detail()
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
        except ErrandsError as exc:  # busy or damaged: said where the detail would be
            if self.selected == wanted:
                self.automation = None
                self.detail.show_unreadable(str(exc))
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
        self.window.show_selected_status(automation.status)
        if automation.definition is not None and automation.definition.runner.kind == "agent" \
                and automation.definition.permissions.rules:
            self.spawn(self._load_origins(automation))
        if same and self.detail.history.runs():
            self.detail.update_runs(page)  # keeps the pages already loaded below
            if not self.detail.history.runs() or page and \
                    self.detail.history.row_of(page[0].id) is None:
                self.detail.set_runs(page, cursor)
        else:
            self.detail.set_runs(page, cursor)

    async def _load_origins(self, automation: Automation) -> None:
        origins = await load_rule_origins(self.api, automation)
        shown = self.detail.saved.automation
        if shown is not None and shown.id == automation.id and \
                shown.revision == automation.revision:
            self.detail.saved.set_origins(origins)

    def revoke(self, automation_id: str, index: int) -> None:
        """Remove a saved approval: an edit with a new revision (refused when the
        automation changed since it was shown)."""
        shown = self.automation
        if shown is None or shown.id != automation_id:
            return

        def done(_automation: Any) -> None:
            self.window.statusBar().showMessage(self.tr("Approval revoked"), 5000)
        self.command(self.tr("Revoke"), revoke_rule(self.api, automation_id, index,
                                                    expected_revision=shown.revision), done)

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
        self.window.show_detail()
        self.pages.show_page("upcoming")
        self.refresh("upcoming", self._refresh_upcoming)

    def _upcoming_range(self, hours: int) -> None:
        self.upcoming_hours = hours
        self.refresh("upcoming", self._refresh_upcoming)

    async def _refresh_upcoming(self) -> None:
        hours = self.upcoming_hours
        answer = await self.adapter.latest("upcoming", lambda: self.api.upcoming(hours))
        if answer is not None:
            self.upcoming.set_forecast(answer.value)

    # ----------------------------------------------------------------- commands

    def command(self, what: str, command: Awaitable[Any],
                done: Callable[[Any], None] | None = None) -> asyncio.Task[Any]:
        return self.adapter.submit(what, command, done)

    def run_now(self, automation_id: str, *, dry_run: bool = False) -> None:
        what = self.tr("Dry run") if dry_run else self.tr("Run now")
        held = self.pane_automation(automation_id)
        if dry_run and held is not None and held.definition is not None \
                and held.definition.runner.kind == "script":
            self.try_script(automation_id, held.title)  # (nothing recorded: a dialog says it)
            return

        def started(answer: Any) -> None:
            self.window.statusBar().showMessage(
                self.tr("Dry run started") if dry_run else self.tr("Run started"), 5000)
        self.command(what, self.api.run_now(automation_id, dry_run=dry_run), started)

    def toggle_pause(self) -> None:
        a = self.automation
        if a is None or a.status in ("completed", "archived") or a.definition is None:
            return
        if a.status == "paused":
            self.command(self.tr("Resume"), self.api.resume(a.id))
        else:
            self.command(self.tr("Pause"), self.api.pause(a.id))

    def toggle_archive(self) -> None:
        """Ctrl+Shift+A: archive the selected automation, or unarchive an archived one."""
        a = self.automation
        if a is None:
            return
        if a.status == "archived":
            self.unarchive(a.id)
        elif a.definition is not None:  # (a broken one: repair it, or delete it)
            self.archive(a.id)

    def archive(self, automation_id: str) -> None:
        """It stops for good and keeps everything; its page stays open and says so, and
        its row moves to the Archived filter."""
        def done(answer: Any) -> None:
            automation, _changed = answer.value
            self.window.statusBar().showMessage(
                self.tr("Archived “%1”: it no longer fires; its runs are kept. "
                        "View ▸ Show archived lists it.").replace("%1", automation.title),
                10_000)
        self.command(self.tr("Archive"), self.api.archive(automation_id), done)

    def unarchive(self, automation_id: str) -> None:
        def done(answer: Any) -> None:
            automation, _changed = answer.value
            self.window.statusBar().showMessage(
                (self.tr("Unarchived “%1”: it has completed, as before.")
                 if automation.status == "completed" else
                 self.tr("Unarchived “%1”: it is paused; resume it to fire again."))
                .replace("%1", automation.title), 10_000)
        self.command(self.tr("Unarchive"), self.api.unarchive(automation_id), done)

    def delete(self, automation_id: str) -> None:
        def gone(_answer: Any) -> None:
            self.window.statusBar().showMessage(self.tr("Automation deleted"), 5000)
        self.command(self.tr("Delete"), self.api.delete(automation_id), gone)

    def pane_automation(self, automation_id: str) -> Any:
        """The automation the detail pane shows, when it is this one (None otherwise)."""
        shown = self.detail.automation
        return shown if shown is not None and shown.id == automation_id else None

    def try_script(self, automation_id: str, title: str) -> Any:
        """A script's dry run in a dialog: what it would do now; nothing applied or
        recorded."""
        from .dialogs.script_editor import TrialDialog
        dialog = TrialDialog(title, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.told = dialog

        async def go() -> None:
            try:
                answer = (await self.api.try_script(automation_id)).value
            except ErrandsError as exc:
                if isValid(dialog):
                    dialog.trial.say(str(exc))
                return
            if isValid(dialog):
                dialog.trial.show_answer(answer)
        dialog.open()
        self.spawn(go())
        return dialog

    def run_over_existing(self, automation_id: str) -> None:
        """A folder script once for each file already in its folder, after asking; page
        after page (each a real run, one after another)."""
        held = self.pane_automation(automation_id)
        title = held.title if held is not None else ""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Run over the files already there"),
                          self.tr("Run “%1” once for each file already in its folder, as if "
                                  "each had just arrived? Each is a real run, and what it "
                                  "proposes is applied.").replace("%1", title),
                          QMessageBox.StandardButton.Cancel, self.window)
        go_button = box.addButton(self.tr("Run over them"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.told = box

        async def go() -> None:
            done, offset = 0, 0
            try:
                while True:
                    page = (await self.api.run_over_existing(automation_id,
                                                             offset=offset)).value
                    done += len(page["results"])
                    self.window.statusBar().showMessage(
                        self.tr("Ran over %1 of %2 files…").replace("%1", str(done)).replace(
                            "%2", str(page["total"])))
                    if not page["more"]:
                        break
                    offset = page["next_offset"]
            except ErrandsError as exc:
                self.window.statusBar().showMessage(str(exc), 10000)
                return
            self.window.statusBar().showMessage(
                self.tr("Ran over %1 files").replace("%1", str(done)), 8000)

        def answered(button: Any) -> None:
            if button is go_button:
                self.spawn(go())
        box.buttonClicked.connect(answered)
        box.open()

    def rotate_webhook_tokens(self, automation_id: str) -> None:
        """New tokens for the automation's web addresses, after asking (the old ones stop
        working at once); shown once."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("New web address token"),
                          self.tr("Make a new token for its web address? Whatever calls it "
                                  "with the old token is refused from now on."),
                          QMessageBox.StandardButton.Cancel, self.window)
        make = box.addButton(self.tr("Make a new token"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.told = box

        def answered(button: Any) -> None:
            if button is make:
                self.spawn(self._rotate(automation_id))
        box.buttonClicked.connect(answered)
        box.open()

    async def _rotate(self, automation_id: str) -> None:
        issued = await self._issue_tokens(automation_id, only_new=False)
        if not issued:
            return
        from .dialogs.webhook_token import TokenDialog
        dialog = TokenDialog(issued, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def duplicate(self, automation_id: str) -> None:
        async def go() -> Any:
            source = (await self.api.automation(automation_id)).value
            if source.definition is None:
                raise NotFound("automation", self.tr("a broken automation cannot be duplicated; "
                                                     "repair it first"))
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

        def opened(automation: Automation) -> None:
            if automation.status == "archived":  # (a double click in the Archived list)
                self.window.statusBar().showMessage(
                    self.tr("“%1” is archived: unarchive it to edit it").replace(
                        "%1", automation.title), 8000)
                return
            self.open_form(automation)
        self.command(self.tr("Edit"), go(), opened)

    def new(self, doc: dict[str, Any] | None = None) -> AutomationForm:
        """The form for a new automation (pre-filled from ``doc``: a draft, a template)."""
        busy = self.form is not None and self.form.isVisible() and self.form.has_changes()
        form = self.open_form(None)
        if doc is not None and not busy:  # never over what someone is typing
            form.load_document(doc)
        return form

    def _new_menu(self) -> None:
        """The sidebar's + offers the three ways to create."""
        menu = QMenu(self.sidebar.new_button)
        menu.setAccessibleName(self.tr("New automation"))
        for text, slot in ((self.tr("Describe it in a sentence…"), self.describe),
                           (self.tr("From a template…"), self.from_template),
                           (self.tr("Blank form…"), lambda: self.new())):
            menu.addAction(text).triggered.connect(lambda _c=False, f=slot: f())
        self.sidebar.new_button.setMenu(menu)
        self.sidebar.new_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.sidebar.new_button.setToolTip(self.tr("New automation: in a sentence, from a "
                                                   "template or with the form"))

    def describe(self) -> Any:
        """Quick create: a sentence → a confirmation card → Create (or the form)."""
        from .dialogs.quick_create import QuickCreateFlow

        if self.quick is not None and self.quick.dialog.isVisible():
            self.quick.dialog.raise_()
            self.quick.dialog.activateWindow()
            return self.quick
        flow = QuickCreateFlow(self.window, self.api, self.api.data_dir, system_zone_name())
        flow.created.connect(self._created)
        flow.edit_in_form.connect(lambda doc: self.new(doc))
        flow.template_wanted.connect(self.from_template)
        flow.form_wanted.connect(lambda: self.new())
        flow.model_wanted.connect(self.window.settings_requested)
        flow.picker_wanted.connect(lambda doc: self.new(doc).show_schedule())
        self.quick = flow
        flow.open()
        return flow

    def from_template(self) -> Any:
        """The template wizard: pick, fill in, adjust the schedule, review, create."""
        from .dialogs.wizard import TemplateWizardFlow

        if self.wizard is not None and self.wizard.wizard.isVisible():
            self.wizard.wizard.raise_()
            self.wizard.wizard.activateWindow()
            return self.wizard
        flow = TemplateWizardFlow(self.window, self.api, system_zone_name())
        flow.created.connect(self._created)
        self.wizard = flow
        flow.open()
        return flow

    def _created(self, automation_id: str) -> None:
        self.window.statusBar().showMessage(self.tr("Automation created"), 5000)
        self.open_automation(automation_id)

    def open_form(self, automation: Automation | None) -> AutomationForm:
        """One form at a time: asking again brings it forward (what is typed stays)."""
        if self.form is not None and self.form.isVisible():
            showing = self.form.automation
            same = (showing is None) == (automation is None) and (
                automation is None or showing.id == automation.id)  # type: ignore[union-attr]
            if same or self.form.has_changes():  # unsaved work: it comes forward, untouched
                self.form.raise_()
                self.form.activateWindow()
                if not same:
                    self.window.statusBar().showMessage(
                        self.tr("Save or discard the open form first"), 8000)
                return self.form
            self.form.done(0)
        form = AutomationForm(self.window, zone_default=system_zone_name(),
                              automation=automation)
        form.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        editing = automation.id if automation is not None else None
        form.submitted.connect(lambda doc, revision: self._save(form, editing, doc, revision))
        form.script.tester = self._try_script
        if editing is not None:
            form.reload_requested.connect(lambda: self._reload_form(form, editing))
        form.destroyed.connect(lambda *_: self._form_gone(form))
        self.form = form
        self.spawn(self._form_choices(form, editing))
        form.open()
        self.form_opened.emit(form)
        return form

    async def _form_choices(self, form: AutomationForm, editing: str | None) -> None:
        """What the form's event triggers may name (the mail accounts, the automations) and,
        on a shared catalogue, the computers it may run on."""
        try:
            accounts = (await self.api.mail_accounts()).value
            automations, _ = (await self.api.automations()).value
        except ErrandsError as exc:
            log.info("the form's choices could not be read: %s", exc)
        else:
            if isValid(form):
                form.events.tester = self._test_mail
                form.events.set_choices([a.name for a in accounts],
                                        [(a.id, a.title) for a in automations if a.id != editing])
        try:
            machines = (await self.api.machines()).value
        except ErrandsError as exc:  # (the row stays hidden: saving keeps where it runs)
            log.info("the computers an automation may run on could not be read: %s", exc)
            return
        if isValid(form):
            form.set_machines(machines)

    async def _test_mail(self, name: str) -> str:
        return (await self.api.test_mail_account(name)).value

    async def _try_script(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The form's "Try it": a dry run of its script as it is, unsaved."""
        return (await self.api.try_script(doc=doc)).value

    def _form_gone(self, form: AutomationForm) -> None:
        if self.form is form:
            self.form = None

    def _save(self, form: AutomationForm, editing: str | None, doc: dict[str, Any],
              revision: int | None) -> None:
        async def go() -> None:
            if isValid(form):  # Save, then Esc at once: the save still goes ahead
                form.set_busy(True)
            try:
                if editing is None:
                    automation, _created = (await self.api.create(doc)).value
                else:
                    automation, _changed = (await self.api.edit(
                        editing, doc, expected_revision=revision)).value
            except ErrandsError as exc:
                if isValid(form):  # closed meanwhile: nobody to show it to but the log
                    form.set_busy(False)
                    form.show_errors(exc)
                else:
                    log.info("a save refused after its form closed: %s", exc)
                return
            if isValid(form):
                form.set_busy(False)
                form.accept_saved()
            self.window.statusBar().showMessage(
                self.tr("Saved “%1”").replace("%1", automation.title), 5000)
            self.open_automation(automation.id)
            await self._new_webhook_tokens(automation.id)
        self.spawn(go())

    async def _issue_tokens(self, automation_id: str, *, only_new: bool
                            ) -> list[dict[str, str]]:
        """New tokens for its webhook triggers (those without one, or all): what was issued,
        even when an error stopped the rest (said in the status bar)."""
        issued: list[dict[str, str]] = []
        try:
            for hook in (await self.api.webhooks(automation_id)).value:
                if not only_new or not hook["has_token"]:
                    issued.append((await self.api.webhook_token(automation_id,
                                                                hook["trigger"])).value)
        except ErrandsError as exc:
            self.window.statusBar().showMessage(str(exc), 10000)
        return issued

    async def _new_webhook_tokens(self, automation_id: str) -> None:
        """Each webhook trigger without a token gets one, shown once (``TokenDialog``)."""
        issued = await self._issue_tokens(automation_id, only_new=True)
        if issued:
            from .dialogs.webhook_token import TokenDialog
            dialog = TokenDialog(issued, self.window)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.open()

    def _reload_form(self, form: AutomationForm, automation_id: str) -> None:
        async def go() -> None:
            try:
                automation = (await self.api.automation(automation_id)).value
            except ErrandsError as exc:
                form.show_errors(exc)
                return
            form.load(automation)
        self.spawn(go())

    # ------------------------------------------------------------ runs and sessions

    def _history_activated(self, index: Any) -> None:
        run_id = index.siblingAtColumn(0).data(ID_ROLE)
        if run_id:
            self.open_run(run_id)

    def open_run(self, run_id: str) -> None:
        """A run's conversation or command output, on a page of its own."""
        self.window.show_detail()
        self.session_run = run_id
        self.pages.show_page("session")
        self.refresh("session", self._refresh_session)

    async def _refresh_session(self) -> None:
        wanted = self.session_run
        if not wanted:
            return
        if wanted.startswith(("d-", "draft:")):
            await self._refresh_discussion(wanted)
            return
        self._discussion_run = None
        try:
            answer = await self.adapter.latest("session", lambda: self.api.run(wanted))
        except NotFound:
            self.session.set_run(None)
            return
        if answer is None or self.session_run != wanted:
            return
        doc = answer.value
        self.session.set_run(doc)
        running = doc.get("state") == "running"
        if running and not self._ticking.isActive():
            self._ticking.start()
        elif not running and self._ticking.isActive():
            self._ticking.stop()
            self.session.set_now(None)
        if running and doc.get("transcript") is None and not doc.get("session_id"):
            self._follow_output(wanted)
        self.review_button.setVisible(doc.get("state") == "awaiting_input")
        self._show_created(doc)
        title = self.tr("Run %1").replace("%1", str(doc.get("index", "")))
        if self.automation is not None and self.automation.id == doc.get("automation_id"):
            title = f"{self.automation.title} · {title}"
        self.session_back.label.setText(title)
        if doc.get("transcript") is not None and isinstance(doc.get("index"), int):
            try:
                found = (await self.api.discussions(doc["automation_id"], doc["index"])).value
            except ErrandsError:
                found = []
            if self.session_run == wanted:
                self.session.set_discussions(found)

    def _tick(self) -> None:
        if self.pages.current != "session":
            self._ticking.stop()
            self.session.set_now(None)
            return
        self.session.set_now(utcnow())

    def _follow_output(self, run_id: str) -> None:
        """Show what the running command prints as it prints it, while its page is open:
        one request at a time, each waiting for the next output (never more often than
        ``LIVE_INTERVAL``, so a command printing as fast as it can is shown in a few
        pieces a second, never a paint per chunk)."""
        if self._following == run_id:
            return
        self._following = run_id
        token = self._follow_token = object()   # a newer follower ends this one

        async def follow() -> None:
            position: int | None = None
            try:
                while self._follow_token is token and self.session_run == run_id \
                        and self.pages.current == "session":
                    answer = (await self.api.output(run_id, after=position,
                                                    wait=LIVE_WAIT)).value
                    if self._follow_token is not token or self.session_run != run_id \
                            or answer["position"] is None:
                        return   # another page, or no longer live: the stored run is shown
                    self.session.add_output(answer["output"],
                                            restart=position is None or answer["cut"])
                    position = answer["position"]
                    if answer["ended"]:
                        return
                    await asyncio.sleep(LIVE_INTERVAL)
            except ErrandsError:
                return   # gone (deleted) or the engine stopping: the page says what it can
            finally:
                if self._follow_token is token:
                    self._following = None
        if self.spawn(follow()) is None:   # (no loop yet: the next refresh tries again)
            self._following = None

    def _show_created(self, doc: dict[str, Any]) -> None:
        """An automation the agent created in this run, shown with the same card the
        quick-create box uses (what will run, when, with which permissions)."""
        from .dialogs.card import ConfirmationCard

        made = created_by_run(doc)
        for ident in list(self.created_cards):
            if ident not in made:
                self.created_cards.pop(ident).deleteLater()
        for ident, definition_doc in made.items():
            if ident in self.created_cards:
                continue
            holder = QWidget()
            row = QVBoxLayout(holder)
            row.setContentsMargins(0, 6, 0, 6)
            card = ConfirmationCard(buttons=False)
            try:
                card.set_document(definition_doc, source="agent",
                                  origin_text=self.tr("Created by this run’s agent"))
            except ErrandsError:
                card.deleteLater()
                holder.deleteLater()
                continue
            open_button = QPushButton(self.tr("Open it"))
            open_button.setAccessibleName(self.tr("Open the automation this run created"))
            open_button.clicked.connect(lambda _c=False, i=ident: self.open_automation(i))
            row.addWidget(card)
            row.addWidget(open_button, 0, Qt.AlignmentFlag.AlignLeft)
            self.created_layout.addWidget(holder)
            self.created_cards[ident] = holder
        self.created_box.setVisible(bool(self.created_cards))

    def _review_session_run(self) -> None:
        doc = self.session.doc if hasattr(self.session, "doc") else None
        automation_id = (doc or {}).get("automation_id")
        self.approvals.open(automation_id)

    def reply(self, session_id: str, text: str) -> None:
        """A follow-up: a discussion's next turn, or a discussion forked from the run shown
        (or the draft's first question); the page follows the discussion."""
        shown = self.session_run
        draft = shown.startswith("draft:")
        if draft or shown.startswith("d-"):
            self._show_working()

        async def go() -> None:
            try:
                if draft:
                    _, automation_id, index = shown.split(":", 2)
                    d = (await self.api.discuss(automation_id, int(index), text)).value
                else:
                    d = (await self.api.reply(session_id, text)).value
            except ErrandsError as exc:
                self.session.reply_failed(str(exc))
                if draft or shown.startswith("d-"):
                    self.refresh("session", self._refresh_session)
                return
            self.session.reply_sent()
            self.open_discussion(d["session_id"])
        self.spawn(go())

    def start_discussion(self, automation_id: str, run_index: int) -> None:
        """"Discuss this run…": an empty discussion whose first question starts it."""
        self.session_run = f"draft:{automation_id}:{run_index}"
        self._discussion_run = None
        self.pages.show_page("session")
        self.refresh("session", self._refresh_session)
        self.session.reply_edit.setFocus()

    def open_discussion(self, session_id: str) -> None:
        self.window.show_detail()
        self.session_run = session_id
        self.pages.show_page("session")
        self.refresh("session", self._refresh_session)

    def decide_discussion(self, session_id: str, kind: str, text: str) -> None:
        """Approve, deny or answer what a discussion waits for; its turn goes on."""
        self._show_working()

        async def go() -> None:
            try:
                await self.api.discussion_decide(session_id, Decision(
                    kind=kind, text=text or None))  # type: ignore[arg-type]
            except ErrandsError as exc:
                self.session.reply_failed(str(exc))
            else:
                if kind == "answer":
                    self.session.reply_sent()
            self.refresh("session", self._refresh_session)
        self.spawn(go())

    def _show_working(self) -> None:
        doc = self.session.doc
        if doc and doc.get("discussion") is not None:
            self.session.set_run(discussion_page({**doc["discussion"], "working": True,
                                                  "waiting": None}))

    async def _refresh_discussion(self, wanted: str) -> None:
        self.review_button.hide()
        self._show_created({})
        if wanted.startswith("draft:"):
            _, automation_id, index = wanted.split(":", 2)
            d: dict[str, Any] = {"automation_id": automation_id, "run_index": int(index),
                                 "session_id": None, "turns": 0}
        else:
            try:
                answer = await self.adapter.latest("session", lambda: self.api.discussion(
                    wanted))
            except ErrandsError:
                self.session.set_run(None)
                return
            if answer is None or self.session_run != wanted:
                return
            d = answer.value
            self._discussion_run = d.get("run_id")
        if self.session_run != wanted:
            return
        self.session.set_run(discussion_page(d))
        title = self.tr("Discussion of run %1").replace("%1", str(d.get("run_index")))
        if self.automation is not None and self.automation.id == d.get("automation_id"):
            title = f"{self.automation.title} · {title}"
        self.session_back.label.setText(title)

    def _back_from_session(self) -> None:
        self.pages.show_page("detail")

    # -------------------------------------------------------------------- inbox

    def show_inbox(self) -> None:
        self.window.show_detail()
        self.pages.show_page("inbox")
        self.refresh("inbox", self._refresh_inbox)

    async def _refresh_inbox(self) -> None:
        answer, counts = await asyncio.gather(self.adapter.attention(key="inbox"),
                                              self.api.unread_counts())
        if answer is None:
            return
        titles = {s.id: s.title for s in self.sidebar.all_summaries()}
        self.inbox.set_now(utcnow())
        self.inbox.set_items(answer.value, titles, unread=sum(counts.value.values()),
                             complete=len(answer.value) < INBOX_PAGE)

    def open_item(self, item: AttentionItem) -> None:
        """What a clicked notification leads to: its run, else its automation, else the
        inbox."""
        if item.kind in ("awaiting_input", "question") and item.run_id:
            self.open_run(item.run_id)
            self.approvals.open(item.automation_id)
        elif item.run_id:
            self.open_run(item.run_id)
        elif item.automation_id:
            self.open_automation(item.automation_id)
        else:
            self.show_inbox()

    # --------------------------------------------------------- import and export

    def choose_export(self) -> QFileDialog:
        dialog = QFileDialog(self.window, self.tr("Export automations"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(self.tr("Errands export (*.json)"))
        dialog.setDefaultSuffix("json")
        dialog.selectFile("errands-export.json")
        dialog.fileSelected.connect(lambda path: self.spawn(self.export_to(Path(path))))
        dialog.open()  # not exec(): the loop goes on while it is open
        return dialog

    async def export_to(self, path: Path) -> None:
        """Every automation's definition to ``path`` (written off the loop)."""
        import json
        try:
            doc, notes = (await self.api.export()).value
            text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
            await asyncio.to_thread(_write_whole, path, text)
        except (OSError, ErrandsError) as exc:
            self._tell(QMessageBox.Icon.Warning, self.tr("Export failed"), str(exc))
            return
        message = self.tr("Exported %n automations to %1", "", len(doc["automations"])
                          ).replace("%1", str(path))
        if notes:
            self._tell(QMessageBox.Icon.Information, self.tr("Exported"),
                       message + "\n\n" + "\n".join(notes))
        else:
            self.window.statusBar().showMessage(message, 10_000)

    def choose_import(self) -> QFileDialog:
        dialog = QFileDialog(self.window, self.tr("Import automations"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter(self.tr("Errands export (*.json)"))
        dialog.fileSelected.connect(lambda path: self.spawn(self.import_from(Path(path))))
        dialog.open()
        return dialog

    async def import_from(self, path: Path) -> None:
        """Read the file, show what it would do (nothing written yet), import on Import."""
        from ..transfer import read_document
        try:  # read and checked as the command line does, off the loop
            doc = await asyncio.to_thread(read_document, path)
            plan = (await self.api.import_document(doc, dry_run=True)).value
        except ErrandsError as exc:
            self._tell(QMessageBox.Icon.Warning, self.tr("Nothing was imported"),
                       self.tr("%1 cannot be imported: %2").replace("%1", path.name)
                       .replace("%2", str(exc)))
            return
        counts = plan.counts()
        new, same = counts.get("create", 0), counts.get("unchanged", 0)
        if not new:
            self._tell(QMessageBox.Icon.Information, self.tr("Nothing to import"),
                       self.tr("Every automation in %1 is here already.").replace(
                           "%1", path.name))
            return
        titles = [i.title for i in plan.items if i.action == "create"]
        listing = "\n".join(f"• {t}" for t in titles[:12])
        if len(titles) > 12:
            listing += "\n" + self.tr("… and %n more", "", len(titles) - 12)
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Import automations"),
                          self.tr("Import %n new automations from %1?", "", new).replace(
                              "%1", path.name), QMessageBox.StandardButton.Cancel,
                          self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText(listing + ("\n\n" + self.tr("%n already here, left as they "
                                                            "are.", "", same) if same else ""))
        informative = box.findChild(QLabel, "qt_msgbox_informativelabel")
        if informative is not None:  # titles are text, never markup
            informative.setTextFormat(Qt.TextFormat.PlainText)
        go = box.addButton(self.tr("Import"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.import_box = box

        def chosen() -> None:
            if box.clickedButton() is go:
                self.spawn(self._import(doc, path))
        box.finished.connect(lambda _r: chosen())
        box.open()

    async def _import(self, doc: Any, path: Path) -> None:
        try:
            plan = (await self.api.import_document(doc)).value
        except ErrandsError as exc:
            self._tell(QMessageBox.Icon.Warning, self.tr("Nothing was imported"), str(exc))
            return
        created = plan.counts().get("create", 0)
        self.window.statusBar().showMessage(
            self.tr("Imported %n automations from %1", "", created).replace("%1", path.name),
            10_000)

    def _tell(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.told = box
        box.open()
        return box

    # ------------------------------------------------------------------ keyboard

    def _find(self) -> None:
        self.sidebar.focus_filter()

    def _escape(self) -> None:
        if self.form is not None and self.form.isVisible():
            return  # the dialog closes itself on Esc
        if self.pages.current != "detail":
            self.pages.show_page("detail")
        elif self.window.narrow and not self.sidebar.isVisible():
            self.window.show_list()   # a narrow window: back to the list
        elif self.sidebar.filter_edit.hasFocus() and self.sidebar.filter_edit.text():
            self.sidebar.filter_edit.clear()

    def set_now(self) -> None:
        self.sidebar.set_now(utcnow())

    async def idle(self) -> None:
        """Wait until no refresh or command of the window's is in flight."""
        while len(self.tasks) or len(self.adapter.tasks):
            await self.tasks.idle()
            await self.adapter.tasks.idle()
        await self.approvals.idle()

    async def close(self) -> None:
        self.tasks.close()
        self.approvals.close()
        await self.tasks.cancel()
        await self.approvals.idle()


def _write_whole(path: Path, text: str) -> None:
    """Write beside the target, then rename over it: a crash or a full disk half-way
    leaves the older file as it was, never half a file."""
    import os
    import tempfile

    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def created_by_run(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The automations a run's agent created (``automate`` results that say
    ``created``), by id, with their definition documents; this run's turns only."""
    import json

    out: dict[str, dict[str, Any]] = {}
    for message in doc.get("transcript") or ():
        if not isinstance(message, dict):  # a damaged row costs only itself
            continue
        content = message.get("content")
        if message.get("role") != "tool" or not isinstance(content, dict) or \
                content.get("name") != "automate" or message.get("run_id") != doc.get("id"):
            continue
        try:
            echo = json.loads(str(content.get("content") or ""))
        except ValueError:
            continue
        if isinstance(echo, dict) and echo.get("created") and isinstance(echo.get("id"), str) \
                and isinstance(echo.get("definition"), dict):
            out[echo["id"]] = echo["definition"]
    return out
