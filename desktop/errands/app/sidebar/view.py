"""The Automations sidebar: header with the inbox count, filter box, sort choice, the list,
and an empty state that says what to do next. Archived automations are not in the list:
they have a model of their own, shown instead of it under the **Archived** filter.

Passive: it shows what it is given (``set_summaries``, ``apply_changes``,
``set_unread_count``) and emits signals for what the user asks; it never calls the engine.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QItemSelectionModel, QModelIndex,
                            QSortFilterProxyModel, Qt, QTimer, Signal)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QLineEdit,
                               QListView, QPushButton, QStackedWidget, QToolButton,
                               QVBoxLayout, QWidget)

from ...queries import Summary
from ...timeutil import utcnow
from .delegate import AutomationDelegate
from .model import AutomationListModel, Roles
from .proxy import AutomationFilterProxy

SORTS = (("next_fire", QT_TRANSLATE_NOOP("AutomationSidebar", "Next fire")), ("title", QT_TRANSLATE_NOOP("AutomationSidebar", "Title")),
         ("last_run", QT_TRANSLATE_NOOP("AutomationSidebar", "Last run")))


class AutomationSidebar(QWidget):
    """Signals: ``automation_selected(id)`` (empty id: nothing selected),
    ``automation_activated(id)`` (double click / Enter), ``new_requested()``,
    ``inbox_requested()``, ``upcoming_requested()``, ``archived_toggled(shown)``."""

    automation_selected = Signal(str)
    automation_activated = Signal(str)
    new_requested = Signal()
    inbox_requested = Signal()
    upcoming_requested = Signal()
    approvals_requested = Signal()
    archived_toggled = Signal(bool)     # the Archived filter was turned on or off

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("automationSidebar")
        self.model = AutomationListModel(self)
        # Two models over the rows, only one shown: the filter proxy asks Python about every
        # row each time the rows reorder, and with ten thousand rows that is ten thousand
        # calls from Qt into Python, each waiting for the interpreter lock while the engine's
        # threads are busy (a burst of runs). Unfiltered, the list shows a plain proxy that
        # asks nothing (kept, not the model itself, so both views of the rows behave alike).
        self.proxy = AutomationFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._plain = QSortFilterProxyModel(self)
        self._plain.setDynamicSortFilter(False)
        self._plain.setSourceModel(self.model)
        # the archived automations: a list of their own (a few, usually), always filtered
        self.archived_model = AutomationListModel(self)
        self.archived_proxy = AutomationFilterProxy(self)
        self.archived_proxy.setSourceModel(self.archived_model)
        self._archived = False     # the Archived filter is on: the list shows those
        self._quiet = False        # a row moving between the two lists: no new selection
        self._unread = 0
        self._loaded = False

        # header: title, new, upcoming, inbox
        self.title = QLabel(self.tr("Automations"))
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.new_button = QToolButton()
        self.new_button.setText("+")
        self.new_button.setToolTip(self.tr("New automation (Ctrl+N)"))
        self.new_button.setAccessibleName(self.tr("New automation"))
        self.new_button.clicked.connect(self.new_requested)
        self.upcoming_button = QPushButton(self.tr("Upcoming"))
        self.upcoming_button.setFlat(True)
        self.upcoming_button.setAccessibleName(self.tr("Upcoming fires"))
        self.upcoming_button.clicked.connect(self.upcoming_requested)
        self.inbox_button = QPushButton(self.tr("Inbox"))
        self.inbox_button.setFlat(True)
        self.inbox_button.clicked.connect(self.inbox_requested)
        self.approvals_button = QPushButton()
        self.approvals_button.setObjectName("approvals-button")
        self.approvals_button.setToolTip(self.tr("Runs waiting for your approval or answer"))
        self.approvals_button.clicked.connect(self.approvals_requested)
        self.approvals_button.hide()
        self._parked = 0
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.new_button)
        entries = QHBoxLayout()
        entries.addWidget(self.upcoming_button)
        entries.addWidget(self.inbox_button)
        entries.addWidget(self.approvals_button)
        entries.addStretch(1)

        # filter and sort
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(self.tr("Filter…"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName(self.tr("Filter automations"))
        self.filter_edit.textChanged.connect(self._filter_changed)
        self.sort_box = QComboBox()
        self.sort_box.setAccessibleName(self.tr("Sort automations by"))
        for key, label in SORTS:
            self.sort_box.addItem(self.tr(label), key)
        self.sort_box.currentIndexChanged.connect(
            lambda _: self.set_sort_key(self.sort_box.currentData()))
        self.archived_button = QToolButton()
        self.archived_button.setObjectName("archived-filter")
        self.archived_button.setCheckable(True)
        self.archived_button.setToolTip(self.tr("Show only the archived automations "
                                                "(View ▸ Show archived)"))
        self.archived_button.toggled.connect(self.show_archived)
        tools = QHBoxLayout()
        tools.addWidget(self.filter_edit, 1)
        tools.addWidget(self.sort_box)
        tools.addWidget(self.archived_button)

        # the list
        self.list = QListView()
        self.list.setAccessibleName(self.tr("Automations"))
        self.list.setUniformItemSizes(True)
        # rows elide their text to the width there is: never a sideways scroll bar
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setModel(self._plain)
        self.delegate = AutomationDelegate(self.model, self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.proxy.filter_changed.connect(self._show_filtered_or_not)
        self.list.activated.connect(self._activated)

        # empty states: none at all, or none matching the filter
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.empty_button = QPushButton()
        self.empty_button.clicked.connect(self._empty_action)
        empty = QWidget()
        box = QVBoxLayout(empty)
        box.addStretch(1)
        box.addWidget(self.empty_label)
        box.addWidget(self.empty_button, 0, Qt.AlignmentFlag.AlignHCenter)
        box.addStretch(2)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.list)
        self.stack.addWidget(empty)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(head)
        layout.addLayout(entries)
        layout.addLayout(tools)
        layout.addWidget(self.stack, 1)

        # (Ctrl+F is the window's Find action alone: a second shortcut here made it
        # ambiguous, and Qt then ran neither)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset,
                       self.proxy.filter_changed, self.archived_model.rowsInserted,
                       self.archived_model.rowsRemoved, self.archived_proxy.filter_changed):
            signal.connect(self._update_empty_state)
        self.archived_model.counts_changed.connect(self._show_archived_count)
        self._show_archived_count(0)
        self._clock = QTimer(self)  # relative times ("in 3 h") move on while shown
        self._clock.setInterval(30_000)
        self._clock.timeout.connect(lambda: self.set_now(utcnow()))
        self._ticker = QTimer(self)  # a running automation's time moves on each second
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self.set_unread_count(0)
        self._update_empty_state()

    # ------------------------------------------------------------------ data in
    def set_summaries(self, rows: Iterable[Summary]) -> None:
        """A fresh snapshot of every automation (queries.summaries)."""
        self._loaded = True
        plain, archived = _split(rows)
        self._moving({s.id for s in archived} if not self._archived else {s.id for s in plain})
        self.model.apply_snapshot(plain)
        self.archived_model.apply_snapshot(archived)
        self._update_empty_state()
        self._tick()

    def apply_changes(self, changed: Iterable[Summary] = (), deleted: Iterable[str] = ()) -> None:
        """What a change notice named: fresh summaries for changed ids, deleted ids. A row
        archived or unarchived moves to the other list; when it was the one selected, the
        selection goes quietly (its page stays open, and says what became of it)."""
        self._loaded = True
        plain, archived = _split(changed)
        gone = set(deleted)
        self._moving({s.id for s in archived} if not self._archived else {s.id for s in plain})
        self.model.apply_changes(plain, gone | {s.id for s in archived})
        self.archived_model.apply_changes(archived, gone | {s.id for s in plain})
        self._update_empty_state()
        self._tick()

    def show_archived(self, shown: bool) -> None:
        """The Archived filter: the list shows the archived automations instead."""
        if shown == self._archived:
            return
        self._archived = shown
        if self.archived_button.isChecked() != shown:
            self.archived_button.setChecked(shown)
        self.title.setText(self.tr("Archived") if shown else self.tr("Automations"))
        self._show_filtered_or_not()
        self._show_archived_count(self.archived_model.rowCount())
        self._update_empty_state()
        self.archived_toggled.emit(shown)

    @property
    def archived_shown(self) -> bool:
        return self._archived

    def summary(self, automation_id: str) -> Summary | None:
        """The row of an automation, archived or not."""
        return self.model.summary(automation_id) or self.archived_model.summary(automation_id)

    def all_summaries(self) -> list[Summary]:
        return self.model.summaries() + self.archived_model.summaries()

    def set_unread_count(self, count: int) -> None:
        self._unread = count
        self.inbox_button.setText(self.tr("Inbox (%n)", "", count) if count else self.tr("Inbox"))
        self.inbox_button.setAccessibleName(
            self.tr("Inbox, %n unread", "", count) if count else self.tr("Inbox, nothing unread"))

    def set_parked_count(self, count: int) -> None:
        """Runs waiting for a decision: a highlighted button that opens the review."""
        self._parked = count
        self.approvals_button.setText(self.tr("⚑ %n waiting", "", count))
        self.approvals_button.setAccessibleName(
            self.tr("%n runs waiting for you; review them", "", count))
        self.approvals_button.setVisible(count > 0)

    @property
    def parked_count(self) -> int:
        return self._parked

    def set_now(self, now: datetime) -> None:
        self.model.set_now(now)
        self.archived_model.set_now(now)

    def set_sort_key(self, key: str) -> None:
        current = self.current_id()
        self.proxy.set_sort_key(key)
        self.archived_proxy.set_sort_key(key)
        i = self.sort_box.findData(key)
        if i != self.sort_box.currentIndex():
            self.sort_box.setCurrentIndex(i)
        if current:
            self.list.scrollTo(self.list.currentIndex())

    def set_search_text(self, text: str) -> None:
        self.filter_edit.setText(text)

    # ----------------------------------------------------------------- reading
    @property
    def unread_count(self) -> int:
        return self._unread

    def shown_model(self) -> QSortFilterProxyModel:
        """The proxy the list shows: the filter while one is set, else the plain one."""
        model = self.list.model()
        assert isinstance(model, QSortFilterProxyModel)
        return model

    def visible_ids(self) -> list[str]:
        shown = self.shown_model()
        return [shown.index(r, 0).data(Roles.ID) for r in range(shown.rowCount())]

    def current_id(self) -> str | None:
        index = self.list.currentIndex()
        return index.data(Roles.ID) if index.isValid() else None

    def select(self, automation_id: str) -> bool:
        index = self._index_of(automation_id)
        if not index.isValid():
            return False
        self.list.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.list.scrollTo(index)
        return True

    def empty_text(self) -> str:
        return self.empty_label.text() if self.stack.currentIndex() == 1 else ""

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    # --------------------------------------------------------------- internals
    def _index_of(self, automation_id: str) -> QModelIndex:
        model = self.archived_model if self._archived else self.model
        source_row = model.row_of(automation_id)
        if source_row is None:
            return QModelIndex()
        return self.shown_model().mapFromSource(model.index(source_row))

    def _filter_changed(self, text: str) -> None:
        self.proxy.set_search_text(text)
        self.archived_proxy.set_search_text(text)

    def _moving(self, ids: set[str]) -> None:
        """The selected row is about to leave the shown list for the other one: unselect
        it without a signal (the list would otherwise select a neighbour, and open it)."""
        current = self.current_id()
        if current is not None and current in ids:
            self._quiet = True
            try:
                self.list.selectionModel().clear()
            finally:
                self._quiet = False

    def _show_archived_count(self, count: int) -> None:
        self.archived_button.setText(self.tr("Archived (%n)", "", count) if count
                                     else self.tr("Archived"))
        self.archived_button.setAccessibleName(
            self.tr("Show the archived automations, %n", "", count))
        self.archived_button.setVisible(bool(count) or self._archived)

    def _show_filtered_or_not(self) -> None:
        """Swap the shown proxy when a filter starts or ends, keeping the selection (and
        so the open detail) and the selected row in view."""
        if self._archived:
            wanted: QSortFilterProxyModel = self.archived_proxy
        else:
            wanted = self.proxy if self.proxy.filtering() else self._plain
        if self.list.model() is wanted:
            return
        current = self.current_id()
        old_selection = self.list.selectionModel()
        old_selection.currentChanged.disconnect(self._current_changed)  # it lives on a while
        self.list.setModel(wanted)
        old_selection.deleteLater()
        selection = self.list.selectionModel()
        index = self._index_of(current) if current else QModelIndex()
        if index.isValid():
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.list.scrollTo(index)
        selection.currentChanged.connect(self._current_changed)
        if current and not index.isValid():  # filtered out: nothing is selected any more
            self.automation_selected.emit("")

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._quiet:
            self.automation_selected.emit(current.data(Roles.ID) if current.isValid() else "")

    def _activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.automation_activated.emit(index.data(Roles.ID))

    def _empty_action(self) -> None:
        if self._archived:
            if self.archived_model.rowCount():
                self.filter_edit.clear()
            else:
                self.show_archived(False)
        elif self.model.rowCount():
            self.filter_edit.clear()
            self.proxy.set_status(None)
        elif self.archived_model.rowCount():
            self.show_archived(True)
        else:
            self.new_requested.emit()

    def _update_empty_state(self) -> None:
        if self._archived:
            self._update_archived_empty_state()
        elif self.model.rowCount() == 0 and self.archived_model.rowCount():
            self.empty_label.setText(self.tr(
                "No automations here: the %n archived ones are under Archived.", "",
                self.archived_model.rowCount()))
            self.empty_button.setText(self.tr("Show archived"))
            self.empty_button.setAccessibleName(self.tr("Show the archived automations"))
            self.empty_button.setVisible(True)
            self.stack.setCurrentIndex(1)
        elif self.model.rowCount() == 0:
            if self._loaded:
                self.empty_label.setText(self.tr(
                    "No automations yet — press Ctrl+N to create one.\n\n"
                    "While Errands is closed nothing runs; missed fires are noted in the "
                    "history, never all at once when it opens."))
            else:
                self.empty_label.setText(self.tr("Loading automations…"))
            self.empty_button.setText(self.tr("New automation…"))
            self.empty_button.setVisible(self._loaded)
            self.empty_button.setAccessibleName(self.tr("Create a new automation"))
            self.stack.setCurrentIndex(1)
        elif self.proxy.filtering() and self.proxy.rowCount() == 0:
            self._show_empty(self.tr("No automation matches “%1”.").replace(
                "%1", self.filter_edit.text().strip()), self.tr("Clear the filter"))
        else:
            self.stack.setCurrentIndex(0)

    def _update_archived_empty_state(self) -> None:
        if self.archived_model.rowCount() == 0:
            self._show_empty(self.tr("No archived automations. Archive one (in its ⋯ menu) "
                                     "to stop it for good and keep its runs."),
                             self.tr("Show all automations"))
        elif self.archived_proxy.filtering() and self.archived_proxy.rowCount() == 0:
            self._show_empty(self.tr("No archived automation matches “%1”.").replace(
                "%1", self.filter_edit.text().strip()), self.tr("Clear the filter"))
        else:
            self.stack.setCurrentIndex(0)

    def _show_empty(self, text: str, button: str) -> None:
        """The empty state: what is (not) here, and the one button that helps."""
        self.empty_label.setText(text)
        self.empty_button.setText(button)
        self.empty_button.setAccessibleName(button)
        self.empty_button.setVisible(True)
        self.stack.setCurrentIndex(1)

    def _tick(self) -> None:
        """Each second while something runs and the list is shown: those rows again."""
        if self.isVisible() and self.model.running():
            self.model.tick(utcnow())
            self.list.viewport().update()
            if not self._ticker.isActive():
                self._ticker.start()
        else:
            self._ticker.stop()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._clock.start()
        self._tick()

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        self._clock.stop()
        self._ticker.stop()
        super().hideEvent(event)


def _split(rows: Iterable[Summary]) -> tuple[list[Summary], list[Summary]]:
    """The rows of the plain list and those of the archived one."""
    plain: list[Summary] = []
    archived: list[Summary] = []
    for s in rows:
        (archived if s.status == "archived" else plain).append(s)
    return plain, archived
