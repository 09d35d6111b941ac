"""Upcoming: every fire due in the next 24 hours (or 7 days) across all automations, on one
timeline, with crowded minutes (many fires in one minute) marked.

Passive: ``set_forecast(forecast)`` takes a ``forecast.Forecast`` (worked out off the loop:
a week over 10,000 automations is a couple of hundred thousand fires, each decoded only
when its row is painted); ``range_changed(hours)`` asks for another window;
``automation_selected(id)`` follows a click on a fire.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex,
                            QPointF, QRectF, QSize, Qt, Signal)
from PySide6.QtGui import QHelpEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QButtonGroup, QHBoxLayout,
                               QHeaderView, QLabel, QRadioButton, QSizePolicy, QTableView,
                               QToolTip, QVBoxLayout, QWidget)

from ..forecast import Forecast, Minute, forecast
from ..timeutil import utcnow
from . import marks, words

CROWDED = 3   # fires in one minute from which the minute is marked as crowded
LABEL_ROOM = 28   # pixels between two crowded minutes' counts on the timeline


def crowded(minute: Minute) -> bool:
    return minute.count >= CROWDED


def nothing(after: datetime, hours: int = 24) -> Forecast:
    return forecast([], after, after + timedelta(hours=hours))


class UpcomingModel(QAbstractTableModel):
    """One row per fire: when, in, automation, and how many share its minute."""

    COLUMNS = (QT_TRANSLATE_NOOP("words", "When"), QT_TRANSLATE_NOOP("words", "In"), QT_TRANSLATE_NOOP("words", "Automation"),
               QT_TRANSLATE_NOOP("words", "Same minute"))
    ID_ROLE = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.forecast = nothing(utcnow())
        self.tz: tzinfo = words.local_zone()

    @property
    def now(self) -> datetime:
        return self.forecast.after

    def set_forecast(self, forecast_: Forecast) -> None:
        self.beginResetModel()
        self.forecast = forecast_
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.forecast)

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
        when, ident, title = self.forecast[index.row()]
        same = self.forecast.minute_of(index.row()).count
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

    minute_clicked = Signal(object)   # a forecast.Minute

    MARGIN = 14

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Upcoming fires on a timeline"))
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.forecast = nothing(utcnow())
        self.tz: tzinfo = words.local_zone()
        self._columns: tuple[int, list[tuple[int, Minute]]] = (-1, [])

    @property
    def after(self) -> datetime:
        return self.forecast.after

    @property
    def until(self) -> datetime:
        return self.forecast.asked_until

    def set_forecast(self, forecast_: Forecast) -> None:
        self.forecast = forecast_
        self._columns = (-1, [])
        minutes = forecast_.minutes
        self.setAccessibleDescription(
            words.tr("%n fires", None, len(forecast_)) + ", " +
            words.tr("%n crowded minutes", None, sum(1 for m in minutes if crowded(m))))
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(600, 92)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(200, 92)

    def x_of(self, when: datetime) -> float:
        span = (self.until - self.after).total_seconds() or 1.0
        part = (when - self.after).total_seconds() / span
        return self.MARGIN + max(0.0, min(1.0, part)) * (self.width() - 2 * self.MARGIN)

    def columns(self) -> list[tuple[int, Minute]]:
        """The busiest minute of each pixel column with fires, left to right: a week holds
        up to 10,080 minutes, the axis a few hundred pixels."""
        if self._columns[0] != self.width():
            best: dict[int, Minute] = {}
            for m in self.forecast.minutes:
                x = round(self.x_of(m.at))
                if x not in best or m.count > best[x].count:
                    best[x] = m
            self._columns = (self.width(), sorted(best.items()))
        return self._columns[1]

    def resizeEvent(self, e: Any) -> None:  # noqa: N802
        self._columns = (-1, [])
        super().resizeEvent(e)

    def _bar(self, x: int, minute: Minute, most: int) -> QRectF:
        base = self.height() - 24
        top_room = base - 22
        h = 8 + (top_room - 8) * (minute.count - 1) / max(1, most - 1) if most > 1 else 12
        return QRectF(x - 1.5, base - h, 3, h)

    def minute_at(self, x: float) -> Minute | None:
        best, best_d = None, 5.0
        for column, m in self.columns():
            d = abs(column - x)
            if d <= best_d:
                best, best_d = m, d
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
        columns = self.columns()
        if not columns:
            p.setPen(muted)
            p.drawText(QRectF(0, 0, self.width(), base), Qt.AlignmentFlag.AlignCenter,
                       self.tr("Nothing is due in this window."))
        normal, warning = marks.tone(pal, "running"), marks.tone(pal, "warning")
        most = max((m.count for _, m in columns), default=1)
        p.setPen(Qt.PenStyle.NoPen)
        for x, m in columns:
            r = self._bar(x, m, most)
            p.setBrush(warning if crowded(m) else normal)
            p.drawRoundedRect(r.adjusted(-1 if crowded(m) else 0, 0, 1 if crowded(m) else 0, 0),
                              1.5, 1.5)
        p.setPen(warning)
        for x, m in self.labelled(columns):
            r = self._bar(x, m, most)
            p.drawText(QRectF(x - LABEL_ROOM / 2, r.top() - 16, LABEL_ROOM, 14),
                       Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                       f"{m.count}")
        p.end()

    @staticmethod
    def labelled(columns: list[tuple[int, Minute]]) -> list[tuple[int, Minute]]:
        """The crowded columns whose counts are written above them: the busiest of each
        stretch of ``LABEL_ROOM`` pixels, so counts never run into each other."""
        out: list[tuple[int, Minute]] = []
        for x, m in sorted(((x, m) for x, m in columns if crowded(m)),
                           key=lambda c: -c[1].count):
            if all(abs(x - other) >= LABEL_ROOM for other, _ in out):
                out.append((x, m))
        return sorted(out)

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
            m = self.minute_at(e.pos().x())
            if m is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(e.globalPos(), tooltip(self.forecast, m, self.tz), self)
            return True
        return super().event(e)

    def mousePressEvent(self, e: QMouseEvent) -> None:  # noqa: N802
        m = self.minute_at(e.position().x())
        if m is not None:
            self.minute_clicked.emit(m)
        super().mousePressEvent(e)


def tooltip(forecast_: Forecast, minute: Minute, tz: tzinfo) -> str:
    head = words.day_and_time(minute.at, forecast_.after, tz)
    if minute.count == 1:
        return f"{head} · {forecast_[minute.first].title}"
    names = [forecast_[row].title for row in range(minute.first, minute.first + min(8, minute.count))]
    more = minute.count - len(names)
    text = words.tr("%1 · %2 fires at once").replace("%1", head).replace(
        "%2", str(minute.count)) + "\n" + "\n".join(names)
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
        self.timeline.minute_clicked.connect(self._minute_clicked)
        self.model = UpcomingModel(self)
        self.table = QTableView()
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
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
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.set_forecast(nothing(utcnow()))

    def set_local_zone(self, tz: tzinfo) -> None:
        self.model.tz = self.timeline.tz = tz

    @property
    def forecast(self) -> Forecast:
        return self.model.forecast

    def set_forecast(self, forecast_: Forecast) -> None:
        self.model.set_forecast(forecast_)
        self.timeline.set_forecast(forecast_)
        hours = round((forecast_.asked_until - forecast_.after).total_seconds() / 3600)
        (self.week if hours > 36 else self.day).setChecked(True)
        self.summary.setText(self.summary_text(forecast_))

    def summary_text(self, f: Forecast) -> str:
        if not len(f):
            return self.tr("Nothing is due in this window. Manual and paused automations do "
                           "not fire on their own.")
        text = words.tr("%n fires", None, len(f)) + " " + words.tr(
            "from %n automations", None, f.automations)
        busy = self.crowded_minutes()
        if busy:
            worst = max(busy, key=lambda m: m.count)
            text += " · " + words.tr("%n crowded minutes", None, len(busy)) + " " + \
                words.tr("(busiest: %1 fires, %2)").replace(
                    "%1", str(worst.count)).replace(
                    "%2", words.day_and_time(worst.at, f.after, self.model.tz))
        if f.shortened:
            text += "\n" + self.tr("Listed up to %1 only: this window holds more fires than "
                                    "one list can show. Choose the shorter window to see "
                                    "them all.").replace(
                "%1", words.day_and_time(f.until, f.after, self.model.tz))
        return text

    def crowded_minutes(self) -> list[Minute]:
        return [m for m in self.forecast.minutes if crowded(m)]

    def _minute_clicked(self, minute: Minute) -> None:
        self.table.selectRow(minute.first)
        self.table.scrollTo(self.model.index(minute.first, 0))
        owners = {self.forecast[row].automation_id
                  for row in range(minute.first, minute.first + minute.count)}
        if len(owners) == 1:
            self.automation_selected.emit(owners.pop())
