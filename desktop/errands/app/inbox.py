"""The attention inbox: failures, parked runs, expired ones, messages and results, newest
first, unread in bold.

Passive: ``set_items(items, titles)`` takes :class:`~errands.records.AttentionItem` records
(``Api.attention``) and, when known, the automations' titles by id. Its buttons and keys
only emit: ``mark_read_requested(item_id)``, ``mark_all_read_requested()``, and on
activating an item (Enter, double-click, Open) ``run_opened(run_id)`` or, for an item with
no run, ``automation_opened(automation_id)``. The owner marks items read through the engine
and hands the new list back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime, tzinfo
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from ..records import AttentionItem
from ..timeutil import utcnow
from . import marks, words

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
UNREAD_ROLE = Qt.ItemDataRole.UserRole + 3
META_ROLE = Qt.ItemDataRole.UserRole + 4
BODY_ROLE = Qt.ItemDataRole.UserRole + 5
_ROOT = QModelIndex()
_CODE = re.compile(r"^[a-z_]+: ")
_CODED = ("failure", "expired")


class InboxModel(QAbstractListModel):
    """Attention items, newest first, as the store lists them."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[AttentionItem] = []
        self._titles: dict[str, str] = {}
        self.now: datetime = utcnow()
        self.tz: tzinfo = words.local_zone()

    # ---------------------------------------------------------------- data in
    def set_items(self, items: Iterable[AttentionItem],
                  titles: Mapping[str, str] | None = None) -> None:
        self.beginResetModel()
        self._items = list(items)
        if titles is not None:
            self._titles = dict(titles)
        self.endResetModel()

    def set_now(self, now: datetime) -> None:
        self.now = now
        if self._items:
            self.dataChanged.emit(self.index(0), self.index(len(self._items) - 1))

    # ------------------------------------------------------------------ reading
    def items(self) -> list[AttentionItem]:
        return list(self._items)

    def item(self, row: int) -> AttentionItem:
        return self._items[row]

    def row_of(self, item_id: int) -> int | None:
        for row, item in enumerate(self._items):
            if item.id == item_id:
                return row
        return None

    def unread_count(self) -> int:
        return sum(1 for i in self._items if not i.read)

    def automation_title(self, item: AttentionItem) -> str | None:
        return self._titles.get(item.automation_id) if item.automation_id else None

    def meta(self, item: AttentionItem) -> str:
        """The second line: "Failed · today 12:40", with the automation's title when the
        item's own title does not already say it."""
        parts = [words.attention_words(item.kind)]
        if item.outcome:   # a request decided (or gone): how it ended, not that it asks
            parts = [words.outcome_words(item.outcome)]
        title = self.automation_title(item)
        if title and title not in item.title:
            parts.append(title)
        parts.append(words.day_and_time(item.created_at, self.now, self.tz))
        return " · ".join(parts)

    @staticmethod
    def body(item: AttentionItem) -> str:
        """The body in one line, without the machine's error code in front
        ("exit_status: exited with status 3" reads "exited with status 3"); what a parked
        run asks, in words ("Deploy check wants to run `git status` in ~/site")."""
        if item.request:
            return words.request_sentence(item.request)
        text = " ".join((item.body or "").split())
        return _CODE.sub("", text, count=1) if item.kind in _CODED else text

    def describe(self, item: AttentionItem) -> str:
        """The whole item in words (tooltip and screen readers)."""
        text = (words.tr("Unread") + ". " if not item.read else "") + item.title + ". " + \
            self.meta(item) + "."
        if item.body:
            text += "\n" + self.body(item)
        return text

    # ---------------------------------------------------------------- Qt interface
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{words.ATTENTION_GLYPHS.get(item.kind, '•')} {item.title}"
        if role == Qt.ItemDataRole.FontRole:
            font = QFont(QApplication.font())
            font.setBold(not item.read)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.describe(item)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.describe(item).replace("\n", " ")
        if role == ITEM_ROLE:
            return item
        if role == ID_ROLE:
            return item.id
        if role == UNREAD_ROLE:
            return not item.read
        if role == META_ROLE:
            return self.meta(item)
        if role == BODY_ROLE:
            return self.body(item)
        return None


class InboxDelegate(QStyledItemDelegate):
    """Two lines an item: a coloured glyph and the title (bold while unread), then its kind,
    automation, time and body in a muted tone."""

    PAD = 6

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # type: ignore[override]
        bold = QFont(option.font)
        bold.setBold(True)
        lines = 2 if index.data(BODY_ROLE) else 1
        height = QFontMetrics(bold).height() + (option.fontMetrics.height() + 2) * lines
        return QSize(200, height + self.PAD * 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,  # type: ignore[override]
              index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        item: AttentionItem = index.data(ITEM_ROLE)
        style = opt.widget.style() if opt.widget else QApplication.style()
        text_role = QPalette.ColorRole.Text
        opt.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        if selected:
            text_role = QPalette.ColorRole.HighlightedText
        palette = opt.palette
        rect = opt.rect.adjusted(self.PAD + 2, self.PAD, -self.PAD, -self.PAD)
        painter.save()
        title_font = QFont(opt.font)
        title_font.setBold(not item.read)
        fm = QFontMetrics(title_font)
        glyph = words.ATTENTION_GLYPHS.get(item.kind, "•")
        tone = marks.tone(palette, words.ATTENTION_TONES.get(item.kind, "neutral"))
        painter.setFont(title_font)
        painter.setPen(palette.color(text_role) if selected else tone)
        glyph_w = fm.horizontalAdvance("✕ ") + 2
        line1 = QRect(rect.left(), rect.top(), rect.width(), fm.height())
        painter.drawText(line1, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, glyph)
        text_color = palette.color(text_role)
        if item.read and not selected:
            text_color = marks.muted(palette)
        painter.setPen(text_color)
        title_rect = line1.adjusted(glyph_w, 0, 0, 0)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         fm.elidedText(item.title, Qt.TextElideMode.ElideRight,
                                       title_rect.width()))
        plain = QFont(opt.font)
        plain.setBold(False)
        painter.setFont(plain)
        small = QFontMetrics(plain)
        muted = palette.color(text_role) if selected else marks.muted(palette)
        top = line1.bottom() + 2
        for key, role in (("meta", META_ROLE), ("body", BODY_ROLE)):
            text = str(index.data(role) or "")
            if not text:
                continue
            painter.setPen(muted if key == "meta" else palette.color(text_role) if not item.read
                           or selected else muted)
            line = QRect(title_rect.left(), top, title_rect.width(), small.height())
            painter.drawText(line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             small.elidedText(text, Qt.TextElideMode.ElideRight, line.width()))
            top = line.bottom() + 2
        painter.restore()


class InboxView(QWidget):
    """The inbox: the list, Open / Mark read / Mark all read, and an empty state."""

    mark_read_requested = Signal(int)
    mark_all_read_requested = Signal()
    run_opened = Signal(str)
    automation_opened = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("inboxView")
        self.model = InboxModel(self)
        title = QLabel(self.tr("Inbox"))
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setWeight(QFont.Weight.DemiBold)
        title.setFont(font)
        self.title = title
        self.count_label = QLabel()
        self.count_label.setAccessibleName(self.tr("Unread items"))
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.count_label)
        head.addStretch(1)

        self.list = QListView()
        self.list.setAccessibleName(self.tr("Inbox items"))
        self.list.setModel(self.model)
        self.list.setItemDelegate(InboxDelegate(self.list))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setAlternatingRowColors(True)
        self.list.activated.connect(self._activated)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._update_buttons())

        self.open_button = QPushButton(self.tr("Open"))
        self.open_button.setAccessibleName(self.tr("Open the item's run"))
        self.open_button.setToolTip(self.tr("Show the run (or automation) this item is about "
                                            "(Enter)"))
        self.open_button.clicked.connect(lambda: self._activated(self.list.currentIndex()))
        self.read_button = QPushButton(self.tr("Mark read"))
        self.read_button.setAccessibleName(self.tr("Mark read"))
        self.read_button.setToolTip(self.tr("Mark the selected item read"))
        self.read_button.clicked.connect(self.mark_current_read)
        self.all_button = QPushButton(self.tr("Mark all read"))
        self.all_button.setAccessibleName(self.tr("Mark all read"))
        self.all_button.setToolTip(self.tr("Mark every item read"))
        self.all_button.clicked.connect(self.mark_all_read_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        buttons.addWidget(self.read_button)
        buttons.addWidget(self.all_button)

        self.empty = QLabel(self.tr("Nothing needs you. Failures, parked runs and results you "
                                    "asked to hear about appear here."))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(24)
        self.empty.setAccessibleName(self.tr("Inbox is empty"))
        self.stack = QStackedWidget()
        self.stack.addWidget(self.list)
        self.stack.addWidget(self.empty)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addLayout(head)
        layout.addWidget(self.stack, 1)
        layout.addLayout(buttons)
        self.setFocusProxy(self.list)
        self._style()
        self.set_items([])

    # ------------------------------------------------------------------- data in
    def set_items(self, items: Iterable[AttentionItem],
                  titles: Mapping[str, str] | None = None, *, unread: int | None = None,
                  complete: bool = True) -> None:
        """The inbox as the store has it (newest first); the selection stays on its item.
        ``unread``: every unread item, listed or not; ``complete``: False when the store
        gave only its newest page (the count then says so)."""
        current = self.current_item()
        self.model.set_items(items, titles)
        row = self.model.row_of(current.id) if current is not None else None
        if row is None and self.model.rowCount():
            row = 0
        if row is not None:
            self.list.setCurrentIndex(self.model.index(row))
        self.stack.setCurrentIndex(0 if self.model.rowCount() else 1)
        count = self.unread_count() if unread is None else unread
        text = self.tr("%1 unread").replace("%1", str(count)) if count else ""
        if not complete:
            text = (text + " · " if text else "") + self.tr("the newest %1 shown").replace(
                "%1", str(self.model.rowCount()))
        self.count_label.setText(text)
        self._update_buttons()

    def set_now(self, now: datetime) -> None:
        self.model.set_now(now)

    # ------------------------------------------------------------------ reading
    def unread_count(self) -> int:
        return self.model.unread_count()

    def current_item(self) -> AttentionItem | None:
        index = self.list.currentIndex()
        return index.data(ITEM_ROLE) if index.isValid() else None

    def select(self, item_id: int) -> bool:
        row = self.model.row_of(item_id)
        if row is None:
            return False
        self.list.setCurrentIndex(self.model.index(row))
        return True

    def empty_text(self) -> str:
        return self.empty.text() if self.stack.currentIndex() == 1 else ""

    # ------------------------------------------------------------------ actions
    def mark_current_read(self) -> None:
        item = self.current_item()
        if item is not None and not item.read:
            self.mark_read_requested.emit(item.id)

    def _activated(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        item: AttentionItem = index.data(ITEM_ROLE)
        if item.run_id:
            self.run_opened.emit(item.run_id)
        elif item.automation_id:
            self.automation_opened.emit(item.automation_id)

    def _update_buttons(self) -> None:
        item = self.current_item()
        self.open_button.setEnabled(item is not None and bool(item.run_id or item.automation_id))
        self.read_button.setEnabled(item is not None and not item.read)
        self.all_button.setEnabled(self.unread_count() > 0)

    def changeEvent(self, event: Any) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._style()

    def _style(self) -> None:
        muted = marks.muted(self.palette()).name()
        self.count_label.setStyleSheet(f"color: {muted}")
        self.empty.setStyleSheet(f"color: {muted}")
