"""The detail pane of one automation: what it runs and when, its policies in plain words,
the actions, the run strip and the run history.

Passive: ``set_automation``, ``set_runs``, ``append_runs``, ``update_runs`` and ``set_now``
feed it plain records; every button only emits a signal carrying the automation's id.
"""

from __future__ import annotations

import itertools
from datetime import datetime, tzinfo
from typing import Any, Iterable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QFrame, QHBoxLayout,
                               QHeaderView, QLabel, QMenu, QMessageBox, QPushButton,
                               QSizePolicy, QToolButton,
                               QStackedWidget, QTableView, QVBoxLayout, QWidget)

from ...event_triggers import ids_of_kind
from ...records import Automation, Run
from ...schedule import iter_fires
from ...timeutil import utcnow
from .. import marks, words
from .approvals import SavedApprovalsView
from .history import ID_ROLE, RunHistoryModel
from .strip import RunStrip


def upcoming_fires(automation: Automation, count: int = 5) -> list[datetime]:
    """The next ``count`` automatic fires, from the stored next fire on, within the stop
    rules (a preview: an ``after`` loop is shown as if runs took no time)."""
    d = automation.definition
    if d is None or automation.status != "active" or automation.next_fire_at is None:
        return []
    left = None if d.stop.max_runs is None else max(0, d.stop.max_runs - automation.run_count)
    out: list[datetime] = []
    for fire in itertools.chain([automation.next_fire_at],
                                iter_fires(d.trigger, automation.next_fire_at)):
        if len(out) >= count or left == len(out) or (
                d.stop.until is not None and fire >= d.stop.until):
            break
        out.append(fire)
    return out


def delete_confirmation(automation: Automation, run_count: int | None = None) -> str:
    """What deleting removes and what it keeps, in words."""
    runs = (words.tr("its %n runs in the history", None, run_count) if run_count is not None
            else words.tr("its run history"))
    return words.tr(
        "Delete “%1”?\n\nRemoved: its definition and revisions, %2, its conversations and "
        "its inbox items. A run going on now is stopped first.\n\nKept: the run logs in the "
        "data folder and the audit trail of its changes.").replace(
        "%1", automation.title).replace("%2", runs)


class DetailPane(QWidget):
    edit_requested = Signal(str)
    pause_requested = Signal(str)
    resume_requested = Signal(str)
    run_now_requested = Signal(str)
    dry_run_requested = Signal(str)
    stop_requested = Signal(str)
    duplicate_requested = Signal(str)
    webhook_requested = Signal(str)         # a new token for its web address
    existing_requested = Signal(str)        # a folder script over the files already there
    archive_requested = Signal(str)
    unarchive_requested = Signal(str)
    delete_requested = Signal(str)
    run_selected = Signal(str)              # a run id
    more_runs_wanted = Signal(str, str)     # automation id, cursor
    revoke_requested = Signal(str, int)     # automation id, saved rule index (0-based)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("detailPane")
        self.automation: Automation | None = None
        self.running = False
        self.run_count: int | None = None
        self.now: datetime = utcnow()
        self.tz: tzinfo = words.local_zone()
        self.delete_box: QMessageBox | None = None
        self._room = 10_000           # the width the page has (``fit``)
        self._ticker = QTimer(self)   # a running run's time in the history, each second
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)

        # header
        self.title = QLabel()
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # a title is text, never markup
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status = QLabel()
        self.status.setAccessibleName(self.tr("Status"))
        self.streak = QLabel()   # failures in a row, in the failure colour beside the status
        self.streak.setAccessibleName(self.tr("Failures in a row"))
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.status)
        head.addWidget(self.streak)
        self.subtitle = QLabel()
        self.subtitle.setWordWrap(True)
        self.next_label = QLabel()
        self.next_label.setWordWrap(True)
        self.next_label.setAccessibleName(self.tr("Next fires"))
        self.next_label.setTextFormat(Qt.TextFormat.PlainText)

        # what another agent proposed (errands mcp): said, with the way to enable it
        self.proposal = QFrame()
        self.proposal.setObjectName("proposal")
        self.proposal.setFrameShape(QFrame.Shape.StyledPanel)
        self.proposal_text = QLabel()
        self.proposal_text.setWordWrap(True)
        self.proposal_text.setTextFormat(Qt.TextFormat.PlainText)
        self.proposal_text.setAccessibleName(self.tr("Proposed by another agent"))
        self.enable_button = QPushButton(self.tr("&Enable"))
        self.enable_button.setAccessibleName(self.tr("Enable the proposed automation"))
        self.enable_button.setToolTip(self.tr("Let it fire on its schedule from now on"))
        self.enable_button.clicked.connect(lambda: self.automation is not None
                                           and self.resume_requested.emit(self.automation.id))
        proposal_row = QHBoxLayout(self.proposal)
        proposal_row.setContentsMargins(10, 8, 10, 8)
        proposal_row.addWidget(self.proposal_text, 1)
        proposal_row.addWidget(self.enable_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.proposal.hide()

        # actions: the everyday ones as buttons, the rare ones under "More"
        self.buttons: dict[str, QPushButton] = {}
        self.more_actions: dict[str, QAction] = {}
        actions = QHBoxLayout()
        for key, text, tip in (
                ("run_now", QT_TRANSLATE_NOOP("DetailPane", "Run now"), QT_TRANSLATE_NOOP("DetailPane", "Run it now (Ctrl+R)")),
                ("dry_run", QT_TRANSLATE_NOOP("DetailPane", "Dry run"),
                 QT_TRANSLATE_NOOP("DetailPane", "Show what a run would do, without effects")),
                ("pause", QT_TRANSLATE_NOOP("DetailPane", "Pause"), QT_TRANSLATE_NOOP("DetailPane", "Pause or resume its schedule (Space)")),
                ("stop", QT_TRANSLATE_NOOP("DetailPane", "Stop run"), QT_TRANSLATE_NOOP("DetailPane", "Stop the run going on now")),
                ("edit", QT_TRANSLATE_NOOP("DetailPane", "Edit…"), QT_TRANSLATE_NOOP("DetailPane", "Edit the automation (Ctrl+E)")),
                ("unarchive", QT_TRANSLATE_NOOP("DetailPane", "Unarchive"),
                 QT_TRANSLATE_NOOP("DetailPane", "Bring it back, paused; resume it to fire "
                                   "again (Ctrl+Shift+A)"))):
            button = QPushButton(self.tr(text))
            button.setToolTip(self.tr(tip))
            button.setAccessibleName(self.tr(text).rstrip("…"))
            button.clicked.connect(lambda _=False, k=key: self._clicked(k))
            self.buttons[key] = button
            actions.addWidget(button)
        self.buttons["unarchive"].hide()  # only an archived automation's page offers it
        actions.addStretch(1)
        self.more_button = QToolButton()
        self.more_button.setText("⋯")
        self.more_button.setToolTip(self.tr("More actions"))
        self.more_button.setAccessibleName(self.tr("More actions"))
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.more_button)
        for key in self.TUCKED:   # the buttons a compact page moves in here
            action = menu.addAction(self.buttons[key].text())
            action.triggered.connect(lambda _=False, k=key: self._clicked(k))
            action.setVisible(False)
            self.more_actions[key] = action
        for key, text in (("webhook", QT_TRANSLATE_NOOP("DetailPane", "New web address token…")),
                          ("existing", QT_TRANSLATE_NOOP("DetailPane",
                                                         "Run over the files already there…")),
                          ("duplicate", QT_TRANSLATE_NOOP("DetailPane", "Duplicate")),
                          ("archive", QT_TRANSLATE_NOOP("DetailPane", "Archive")),
                          ("delete", QT_TRANSLATE_NOOP("DetailPane", "Delete…"))):
            action = menu.addAction(self.tr(text))
            if key == "archive":  # (Ctrl+Shift+A is the window's Automation menu's)
                action.setToolTip(self.tr("Stop it for good and keep its runs, "
                                          "conversations and logs (Ctrl+Shift+A)"))
                action.setStatusTip(action.toolTip())
            action.triggered.connect(lambda _=False, k=key: self._clicked(k))
            self.more_actions[key] = action
        self.more_button.setMenu(menu)
        actions.addWidget(self.more_button)

        # what it runs and the policies
        self.what = QLabel()
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.what.setFont(mono)
        self.what.setWordWrap(True)
        self.what.setTextFormat(Qt.TextFormat.PlainText)
        self.what.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.what.setFrameShape(QFrame.Shape.StyledPanel)
        self.what.setMargin(6)
        self.what.setAccessibleName(self.tr("What it runs"))
        self.what.setAutoFillBackground(True)
        self.what.setBackgroundRole(QPalette.ColorRole.Base)
        self.facts = QFormLayout()
        self.facts.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.facts.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.fact_labels: dict[str, QLabel] = {}
        for key, text in (("schedule", QT_TRANSLATE_NOOP("DetailPane", "Schedule")), ("context", QT_TRANSLATE_NOOP("DetailPane", "Context")),
                          ("stop", QT_TRANSLATE_NOOP("DetailPane", "Stops")), ("misfire", QT_TRANSLATE_NOOP("DetailPane", "Missed fires")),
                          ("overlap", QT_TRANSLATE_NOOP("DetailPane", "Overlap")), ("permissions", QT_TRANSLATE_NOOP("DetailPane", "Permissions")),
                          ("workdir", QT_TRANSLATE_NOOP("DetailPane", "Folder"))):
            value = QLabel()
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setAccessibleName(self.tr(text))
            self.fact_labels[key] = value
            self.facts.addRow(self.tr(text), value)

        # the rules "Always allow" added (agent runs), each with Revoke
        self.saved = SavedApprovalsView()
        self.saved.revoke_requested.connect(self.revoke_requested)
        self.saved.hide()

        # runs
        self.strip = RunStrip()
        self.strip.run_selected.connect(self._strip_selected)
        self.history = RunHistoryModel(self)
        self.history.more_wanted.connect(self._more_wanted)
        self.table = QTableView()
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
        self.table.setAccessibleName(self.tr("Run history"))
        self.table.setModel(self.history)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        for column, width in enumerate((40, 112, 96, 104, 104, 72, 64)):
            header.resizeSection(column, width)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.selectionModel().currentRowChanged.connect(self._row_selected)
        runs_title = QLabel(self.tr("Runs"))
        runs_title.setFont(QFont(font.family(), int(self.font().pointSizeF() * 1.1),
                                 QFont.Weight.DemiBold))

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addLayout(head)
        layout.addWidget(self.subtitle)
        layout.addWidget(self.next_label)
        layout.addWidget(self.proposal)
        layout.addLayout(actions)
        layout.addWidget(self.what)
        layout.addLayout(self.facts)
        layout.addWidget(self.saved)
        layout.addWidget(runs_title)
        layout.addWidget(self.strip)
        layout.addWidget(self.table, 1)

        self.placeholder = QLabel(self._nothing_selected())
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setMargin(24)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)
        self.set_automation(None)

    # ------------------------------------------------------------------- data in
    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._tick()

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        self._ticker.stop()
        super().hideEvent(event)

    def set_automation(self, automation: Automation | None, *, running: bool = False,
                       run_count: int | None = None) -> None:
        """Show one automation (None: the placeholder). ``running``: a run is going on now
        (enables Stop); ``run_count``: how many runs its history holds (for the delete
        confirmation)."""
        changed = automation is None or self.automation is None or \
            automation.id != self.automation.id
        self.automation, self.running, self.run_count = automation, running, run_count
        if automation is None:
            self.placeholder.setText(self._nothing_selected())
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        if changed:
            self.history.set_runs([], None)
            self.strip.set_runs([], now=self.now)
        self._fill()

    def show_waiting(self) -> None:
        """A row was chosen while the engine is still starting: it opens once it runs."""
        self.automation = None
        self.placeholder.setText(self.tr("Opening as soon as the engine has started…"))
        self.stack.setCurrentIndex(0)

    def show_unreadable(self, why: str) -> None:
        """The chosen automation could not be read (the database busy or damaged): say so
        where its detail would be, rather than leave the pane asking for a selection."""
        self.automation = None
        self.placeholder.setText(self.tr("This automation could not be read: %1\n\nIt is "
                                         "read again when it changes, or when you select "
                                         "it again.").replace("%1", why))
        self.stack.setCurrentIndex(0)

    def _nothing_selected(self) -> str:
        return self.tr("Select an automation on the left to see what it runs, when, and how "
                       "its runs went — or press Ctrl+N to create one.")

    def set_runs(self, runs: Iterable[Run], cursor: str | None = None) -> None:
        """The newest page of runs (newest first, as ``store.runs_page`` gives them)."""
        page = list(runs)
        self.history.set_runs(page, cursor)
        self.strip.set_runs(page, now=self.now)
        self._fill_next()   # (a loop's words follow its run)
        self._tick()

    def append_runs(self, runs: Iterable[Run], cursor: str | None) -> None:
        page = list(runs)
        self.history.append_page(page, cursor)
        self.strip.set_runs(self.history.runs(), now=self.now)

    def update_runs(self, runs: Iterable[Run]) -> None:
        self.history.update_runs(runs)
        self.strip.set_runs(self.history.runs(), now=self.now)
        self._fill_next()
        self._tick()

    def _tick(self) -> None:
        """Each second while a run in the history runs: its "Running for" moves on."""
        if self.isVisible() and any(r.state == "running" for r in self.history.runs()):
            self.history.set_now(utcnow())
            if not self._ticker.isActive():
                self._ticker.start()
        else:
            self._ticker.stop()

    def set_now(self, now: datetime) -> None:
        self.now = now
        self.history.set_now(now)
        self.strip.set_runs(self.history.runs(), now=now)
        if self.automation is not None:
            self._fill()

    def set_local_zone(self, tz: tzinfo) -> None:
        self.tz = self.history.tz = self.strip.tz = tz
        if self.automation is not None:
            self._fill()

    def select_run(self, run_id: str) -> bool:
        row = self.history.row_of(run_id)
        self.strip.select_run(run_id)
        if row is None:
            return False
        self.table.selectRow(row)
        self.table.scrollTo(self.history.index(row, 0))
        return True

    # ------------------------------------------------------------------ reading
    def fact(self, key: str) -> str:
        return self.fact_labels[key].text()

    def next_fires(self) -> list[datetime]:
        return upcoming_fires(self.automation) if self.automation else []

    NARROW = 720    # below this width the table drops trigger, started and attempts
    COMPACT = 640   # below this width Dry run and Stop run move under "⋯"
    TUCKED = ("dry_run", "stop")

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit(self.width())

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
        """The page in a scroll area: the room it has is the viewport's width (its own
        cannot go below what its widest row needs)."""
        if event.type() == QEvent.Type.Resize:
            self.fit(watched.width())
        return False

    def fit(self, width: int) -> None:
        """Fit the page to ``width``: fewer columns, then fewer buttons (their actions
        under "⋯"), so nothing is cut off in a small window."""
        narrow = width < self.NARROW
        for column in (2, 4, 6):
            self.table.setColumnHidden(column, narrow)
        self._room = width
        compact = width < self.COMPACT
        archived = self.automation is not None and self.automation.status == "archived"
        for key in self.TUCKED:
            shown = not (archived and key == "dry_run")   # (an archived one does not run)
            self.buttons[key].setVisible(shown and not compact)
            self.more_actions[key].setVisible(shown and compact)
            self.more_actions[key].setEnabled(self.buttons[key].isEnabled())

    # ---------------------------------------------------------------- internals
    def _fill_next(self) -> None:
        """The next fires, or why there are none (a loop waits for its run to end)."""
        a = self.automation
        d = a.definition if a is not None else None
        if a is None or d is None:
            return
        archived = a.status == "archived"
        own = words.zone_of(d)
        fires = upcoming_fires(a)
        if fires:
            texts = [words.fire_words(f, self.now, self.tz, own) for f in fires]
            self.next_label.setText(words.tr("Next: %1").replace("%1", texts[0]) + (
                "\n" + words.tr("then %1").replace("%1", ", ".join(texts[1:]))
                if len(texts) > 1 else ""))
        elif archived:
            self.next_label.setText(words.archived_words())
        elif a.status == "paused":
            self.next_label.setText(words.tr("No fires while paused."))
        elif a.status == "completed":
            self.next_label.setText(words.tr("Done — it will not fire again."))
        elif d.trigger.kind == "manual":
            self.next_label.setText(words.tr("Runs only when you press Run now."))
        elif d.trigger.kind == "after" and any(r.state == "awaiting_input"
                                              for r in self.history.runs()):
            self.next_label.setText(words.tr("Waiting for you; fires again after you decide."))
        elif d.trigger.kind == "after" and (self.running or any(
                r.state in ("running", "scheduled") for r in self.history.runs())):
            self.next_label.setText(words.tr("Fires again %1 after this run ends.").replace(
                "%1", words.duration(d.trigger.interval)))   # type: ignore[union-attr]
        else:
            self.next_label.setText(words.tr("No more fires."))

    def _fill(self) -> None:
        a = self.automation
        assert a is not None
        d = a.definition
        self.title.setText(a.title)
        state = "running" if self.running else a.status
        words_ = words.status_words(state)
        if a.status == "paused":
            by = words.tr("by you")
            if d is not None and d.origin.kind == "mcp" and not a.paused_reason:
                by = self.tr("proposed by %1").replace("%1", d.origin.client or "?")
            words_ = words.tr("Paused (%1)").replace("%1", a.paused_reason or by)
        self.status.setText(f"{words.glyph(state)} {words_}")
        color = marks.state_color(self.palette(), state)
        self.status.setStyleSheet(f"color: {color.name()}")
        self.streak.setText("· " + words.tr("%n failures in a row", None, a.failure_streak)
                            if a.failure_streak else "")
        self.streak.setStyleSheet(f"color: {marks.state_color(self.palette(), 'failed').name()}")
        self.streak.setVisible(bool(a.failure_streak))
        proposed = (d is not None and d.origin.kind == "mcp" and a.status == "paused")
        if proposed:
            self.proposal_text.setText(self.tr(
                "Proposed by %1, waiting for you. It would run: %2. Read what it runs "
                "below; Enable lets it fire.").replace("%1", d.origin.client or
                                                       self.tr("another agent")).replace(
                "%2", words.trigger_sentence(d.trigger, self.now, self.tz)))
        self.proposal.setVisible(proposed)
        self.buttons["pause"].setText(self.tr("Resume") if a.status == "paused"
                                      else self.tr("Pause"))
        self.buttons["pause"].setAccessibleName(self.buttons["pause"].text())
        self.buttons["stop"].setEnabled(self.running)
        self.more_actions["stop"].setEnabled(self.running)
        broken = d is None
        archived = a.status == "archived"
        for key in ("run_now", "dry_run", "pause", "edit"):
            self.buttons[key].setEnabled(not broken and (key != "pause" or a.status != "completed"))
            self.buttons[key].setVisible(not archived)  # an archived one only comes back
        self.buttons["unarchive"].setVisible(archived)
        self.fit(self._room)   # (which buttons fit the room it has)
        self.more_actions["archive"].setVisible(not archived)
        self.more_actions["archive"].setEnabled(not broken)
        self.more_actions["duplicate"].setEnabled(not broken)
        self.more_actions["webhook"].setVisible(
            a.definition is not None and not archived
            and bool(ids_of_kind(a.definition.trigger, "webhook")))
        self.more_actions["existing"].setVisible(
            a.definition is not None and not archived and a.definition.runner.kind == "script"
            and bool(ids_of_kind(a.definition.trigger, "folder")))
        if d is None:
            self.subtitle.setText(words.tr("This automation cannot run: %1").replace(
                "%1", a.problem or ""))
            self.next_label.setText("")
            self.what.setText("")
            for label in self.fact_labels.values():
                label.setText("—")
            self.saved.hide()
            return
        schedule = words.trigger_sentence(d.trigger, self.now, self.tz)
        parts = [words.runner_words(d)]
        if d.workdir:
            parts.append(d.workdir)
        parts.append(schedule)
        self.subtitle.setText(" · ".join(parts))
        self._fill_next()
        text = words.runs_what(d)
        lines = text.splitlines()
        if len(lines) > 8:
            text = "\n".join(lines[:8]) + "\n…"
        self.what.setText(text)
        self.fact_labels["schedule"].setText(schedule)
        self.fact_labels["context"].setText(words.context_words(d))
        self.fact_labels["stop"].setText(words.stop_words(d, self.tz))
        self.fact_labels["misfire"].setText(words.misfire_words(d))
        self.fact_labels["overlap"].setText(words.overlap_words(d))
        self.fact_labels["permissions"].setText("\n".join(words.permission_lines(d)))
        self.fact_labels["workdir"].setText(d.workdir or words.tr(
            "Errands' own workspace for this automation"))
        agent = d.runner.kind == "agent"
        self.saved.setVisible(agent)
        if agent:
            self.saved.set_automation(a)

    def _clicked(self, key: str) -> None:
        a = self.automation
        if a is None:
            return
        if key == "pause":
            (self.resume_requested if a.status == "paused" else self.pause_requested).emit(a.id)
        elif key in ("archive", "unarchive"):
            (self.archive_requested if key == "archive" else self.unarchive_requested).emit(a.id)
        elif key == "delete":
            self.confirm_delete()
        else:
            getattr(self, f"{key}_requested").emit(a.id)

    def confirm_delete(self) -> QMessageBox:
        """Ask before deleting (window-modal, not blocking); Delete emits
        ``delete_requested``. For one with runs, **Archive instead** (``archive_requested``)
        stops it for good and keeps them."""
        a = self.automation
        assert a is not None
        offer = bool(self.run_count) and a.status != "archived" and a.definition is not None
        text = delete_confirmation(a, self.run_count)
        if offer:
            text += "\n\n" + self.tr("Archive instead to stop it for good and keep all of it: "
                                      "its runs, conversations, revisions and logs.")
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete automation"),
                          text, QMessageBox.StandardButton.NoButton, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        delete = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        archive = box.addButton(self.tr("Archive instead"),
                                QMessageBox.ButtonRole.ActionRole) if offer else None
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        ident = a.id

        def done() -> None:
            if box.clickedButton() is delete:
                self.delete_requested.emit(ident)
            elif archive is not None and box.clickedButton() is archive:
                self.archive_requested.emit(ident)
            self.delete_box = None

        box.finished.connect(lambda _: done())
        self.delete_box = box
        box.open()
        return box

    def _strip_selected(self, run_id: str) -> None:
        self.select_run(run_id)
        self.run_selected.emit(run_id)

    def _row_selected(self, current: Any, _previous: Any) -> None:
        if current.isValid():
            run_id = current.siblingAtColumn(0).data(ID_ROLE)
            self.strip.select_run(run_id)
            self.run_selected.emit(run_id)

    def _more_wanted(self, cursor: str) -> None:
        if self.automation is not None:
            self.more_runs_wanted.emit(self.automation.id, cursor)
