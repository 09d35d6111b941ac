"""Upcoming: every fire due in the next 24 hours (or 7 days) across all automations, on one
timeline, with crowded minutes (many fires in one minute) marked.

Passive: ``set_fires(fires, after, until)`` takes ``queries.upcoming``'s (instant, id,
title) tuples; ``range_changed(hours)`` asks for another window; ``automation_selected(id)``
follows a click on a fire.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any, Iterable

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex,
                            QPointF, QRectF, QSize, Qt, Signal)
from PySide6.QtGui import QHelpEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QButtonGroup, QHBoxLayout,
                               QHeaderView, QLabel, QRadioButton, QSizePolicy, QTableView,
                               QToolTip, QVBoxLayout, QWidget)

from ..timeutil import utcnow
from . import marks, words

CROWDED = 3   # fires in one minute from which the minute is marked as crowded


def _minute(when: datetime) -> datetime:
    return when.replace(second=0, microsecond=0)


@dataclass(frozen=True)
class Slot:
    """The fires of one minute."""
    minute: datetime
    fires: tuple[tuple[datetime, str, str], ...]

    @property
    def crowded(self) -> bool:
        return len(self.fires) >= CROWDED


def slots(fires: Iterable[tuple[datetime, str, str]]) -> list[Slot]:
    grouped: dict[datetime, list[tuple[datetime, str, str]]] = {}
    for fire in fires:
        grouped.setdefault(_minute(fire[0]), []).append(fire)
    return [Slot(m, tuple(f)) for m, f in sorted(grouped.items())]


class UpcomingModel(QAbstractTableModel):
    """One row per fire: when, in, automation, and how many share its minute."""

    COLUMNS = (QT_TRANSLATE_NOOP("words", "When"), QT_TRANSLATE_NOOP("words", "In"), QT_TRANSLATE_NOOP("words", "Automation"),
               QT_TRANSLATE_NOOP("words", "Same minute"))
    ID_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._fires: list[tuple[datetime, str, str]] = []
        self._per_minute: Counter[datetime] = Counter()
        self.now: datetime = utcnow()
        self.tz: tzinfo = words.local_zone()

    def set_fires(self, fires: Iterable[tuple[datetime, str, str]], now: datetime) -> None:
        self.beginResetModel()
        self._fires = sorted(fires)
        self._per_minute = Counter(_minute(f[0]) for f in self._fires)
        self.now = now
        self.endResetModel()

    def fires(self) -> list[tuple[datetime, str, str]]:
        return list(self._fires)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._fires)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return words.tr(self.COLUMNS[section])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        when, ident, title = self._fires[index.row()]
        same = self._per_minute[_minute(when)]
        if role == Qt.ItemDataRole.DisplayRole:
            return (words.day_and_time(when, self.now, self.tz),
                    words.relative(when, self.now, self.tz), title,
                    words.tr("%n at once", None, same) if same > 1 else "")[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 3 and same >= CROWDED:
            return marks.tone(QApplication.palette(), "warning")
        if role == self.ID_ROLE:
            return ident
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            text = f"{title} · {words.day_and_time(when, self.now, self.tz)}"
            return text + (" · " + words.tr("%n fires in this minute", None, same) if same > 1 else "")
        return None


class Timeline(QWidget):
    """The window as one axis: a tick per minute with fires, its height by how many; crowded
    minutes in the warning colour with their count."""

    slot_clicked = Signal(object)   # a Slot

    MARGIN = 14

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Upcoming fires on a timeline"))
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._slots: list[Slot] = []
        self.after = utcnow()
        self.until = self.after + timedelta(hours=24)
        self.tz: tzinfo = words.local_zone()

    def set_slots(self, slots_: list[Slot], after: datetime, until: datetime) -> None:
        self._slots, self.after, self.until = slots_, after, until
        crowded = sum(1 for s in slots_ if s.crowded)
        self.setAccessibleDescription(
            words.tr("%n fires", None, sum(len(s.fires) for s in slots_)) + ", " +
            words.tr("%n crowded minutes", None, crowded))
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(600, 92)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(200, 92)

    def x_of(self, when: datetime) -> float:
        span = (self.until - self.after).total_seconds() or 1.0
        part = (when - self.after).total_seconds() / span
        return self.MARGIN + max(0.0, min(1.0, part)) * (self.width() - 2 * self.MARGIN)

    def _bar(self, slot: Slot) -> QRectF:
        base = self.height() - 24
        most = max((len(s.fires) for s in self._slots), default=1)
        top_room = base - 22
        h = 8 + (top_room - 8) * (len(slot.fires) - 1) / max(1, most - 1) if most > 1 else 12
        x = self.x_of(slot.minute)
        return QRectF(x - 1.5, base - h, 3, h)

    def slot_at(self, x: float) -> Slot | None:
        best, best_d = None, 5.0
        for s in self._slots:
            d = abs(self.x_of(s.minute) - x)
            if d <= best_d:
                best, best_d = s, d
        return best

    def paintEvent(self, _event: Any) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pal = self.palette()
        muted = marks.muted(pal)
        base = self.height() - 24
        p.setPen(QPen(muted, 1))
        p.drawLine(QPointF(self.MARGIN, base), QPointF(self.width() - self.MARGIN, base))
        font = p.font()
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
        p.setFont(font)
        for at, label in self._ticks():
            x = self.x_of(at)
            p.drawLine(QPointF(x, base), QPointF(x, base + 3))
            p.drawText(QRectF(x - 40, base + 4, 80, 18),
                       Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, label)
        now_x = self.x_of(self.after)
        p.setPen(QPen(pal.color(pal.ColorRole.Highlight), 2))
        p.drawLine(QPointF(now_x, 6), QPointF(now_x, base))
        if not self._slots:
            p.setPen(muted)
            p.drawText(QRectF(0, 0, self.width(), base), Qt.AlignmentFlag.AlignCenter,
                       self.tr("Nothing is due in this window."))
        normal, crowded = marks.tone(pal, "running"), marks.tone(pal, "warning")
        p.setPen(Qt.PenStyle.NoPen)
        for s in self._slots:
            r = self._bar(s)
            p.setBrush(crowded if s.crowded else normal)
            p.drawRoundedRect(r.adjusted(-1 if s.crowded else 0, 0, 1 if s.crowded else 0, 0),
                              1.5, 1.5)
        p.setPen(crowded)
        for s in self._slots:
            if s.crowded:
                r = self._bar(s)
                p.drawText(QRectF(r.center().x() - 20, r.top() - 16, 40, 14),
                           Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                           f"{len(s.fires)}")
        p.end()

    def _ticks(self) -> list[tuple[datetime, str]]:
        span = self.until - self.after
        local = self.after.astimezone(self.tz)
        out = []
        if span <= timedelta(hours=36):
            step = 3 if self.width() >= 420 else 6
            t = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
            while t <= self.until:
                if t.hour % step == 0:
                    out.append((t, f"{t:%H:%M}"))
                t += timedelta(hours=1)
            return out
        day = local.replace(hour=0, minute=0, second=0, microsecond=0)
        while day <= self.until:
            day = (day + timedelta(hours=36)).replace(hour=0)
            if day <= self.until:
                out.append((day, f"{day:%a} {day.day}"))
        return out

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip:
            assert isinstance(e, QHelpEvent)
            s = self.slot_at(e.pos().x())
            if s is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(e.globalPos(), tooltip(s, self.after, self.tz), self)
            return True
        return super().event(e)

    def mousePressEvent(self, e: QMouseEvent) -> None:  # noqa: N802
        s = self.slot_at(e.position().x())
        if s is not None:
            self.slot_clicked.emit(s)
        super().mousePressEvent(e)


def tooltip(slot: Slot, now: datetime, tz: tzinfo) -> str:
    head = words.day_and_time(slot.minute, now, tz)
    if len(slot.fires) == 1:
        return f"{head} · {slot.fires[0][2]}"
    names = [f[2] for f in slot.fires[:8]]
    more = len(slot.fires) - len(names)
    text = words.tr("%1 · %2 fires at once").replace("%1", head).replace(
        "%2", str(len(slot.fires))) + "\n" + "\n".join(names)
    return text + ("\n" + words.tr("and %n more", None, more) if more else "")


class UpcomingView(QWidget):
    automation_selected = Signal(str)
    range_changed = Signal(int)   # hours: 24 or 168

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("upcomingView")
        self.title = QLabel(self.tr("Upcoming"))
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setWeight(font.Weight.DemiBold)
        self.title.setFont(font)
        self.day = QRadioButton(self.tr("Next 24 hours"))
        self.week = QRadioButton(self.tr("Next 7 days"))
        self.day.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.day, 24)
        group.addButton(self.week, 168)
        group.idClicked.connect(self.range_changed)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.timeline = Timeline()
        self.timeline.slot_clicked.connect(self._slot_clicked)
        self.model = UpcomingModel(self)
        self.table = QTableView()
        self.table.setAccessibleName(self.tr("Upcoming fires"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 130)
        header.resizeSection(1, 80)
        self.table.activated.connect(
            lambda i: self.automation_selected.emit(i.data(UpcomingModel.ID_ROLE)))
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.day)
        top.addWidget(self.week)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.timeline)
        layout.addWidget(self.table, 1)
        self._slots: list[Slot] = []
        self.set_fires([], utcnow(), utcnow() + timedelta(hours=24))

    def set_local_zone(self, tz: tzinfo) -> None:
        self.model.tz = self.timeline.tz = tz

    def set_fires(self, fires: Iterable[tuple[datetime, str, str]], after: datetime,
                  until: datetime) -> None:
        fires = sorted(fires)
        self._slots = slots(fires)
        self.model.set_fires(fires, after)
        self.timeline.set_slots(self._slots, after, until)
        hours = round((until - after).total_seconds() / 3600)
        (self.week if hours > 36 else self.day).setChecked(True)
        crowded = [s for s in self._slots if s.crowded]
        if not fires:
            text = self.tr("Nothing is due in this window. Manual and paused automations do "
                           "not fire on their own.")
        else:
            automations = len({f[1] for f in fires})
            text = words.tr("%n fires", None, len(fires)) + " " + words.tr(
                "from %n automations", None, automations)
            if crowded:
                worst = max(crowded, key=lambda s: len(s.fires))
                text += " · " + words.tr("%n crowded minutes", None, len(crowded)) + " " + \
                    words.tr("(busiest: %1 fires, %2)").replace(
                        "%1", str(len(worst.fires))).replace(
                        "%2", words.day_and_time(worst.minute, after, self.model.tz))
        self.summary.setText(text)

    def crowded_slots(self) -> list[Slot]:
        return [s for s in self._slots if s.crowded]

    def _slot_clicked(self, slot: Slot) -> None:
        for row, fire in enumerate(self.model.fires()):
            if fire in slot.fires:
                self.table.selectRow(row)
                self.table.scrollTo(self.model.index(row, 0))
                break
        if len({f[1] for f in slot.fires}) == 1:
            self.automation_selected.emit(slot.fires[0][1])
