"""Paints one Automations row: status mark, title, schedule in words, next fire, badges.

Two lines per row, one fixed height (the list uses uniform item sizes, so ten thousand
rows lay out at once). Colours come from the palette (app/marks.py).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ...queries import Summary
from .. import marks, words
from .model import AutomationListModel, Roles


def status_of(s: Summary) -> str:
    """The mark a row shows: running now wins, then the automation's own status."""
    return "running" if s.running else s.status


class AutomationDelegate(QStyledItemDelegate):
    PAD = 8

    def __init__(self, model: AutomationListModel, parent: Any = None) -> None:
        super().__init__(parent)
        self._model = model

    def sizeHint(self, option: QStyleOptionViewItem,  # noqa: N802 (Qt's name)
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        fm = option.fontMetrics  # as wide as the list: the row elides its text to fit
        return QSize(1, fm.height() * 2 + fm.leading() + 2 * self.PAD - 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        s: Summary | None = index.data(Roles.SUMMARY)
        if s is None:
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:  # selection and hover backgrounds, as the style draws them
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        palette: QPalette = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        text_role = (QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        text_color = palette.color(text_role)
        secondary = text_color if selected else marks.muted(palette)
        r = opt.rect.adjusted(self.PAD, self.PAD - 1, -self.PAD, -self.PAD + 1)
        fm = QFontMetrics(opt.font)
        line = fm.height()
        painter.save()
        state = status_of(s)
        # status mark
        mark_w = fm.horizontalAdvance("◐") + 6
        painter.setPen(text_color if selected else marks.state_color(palette, state))
        painter.setFont(opt.font)
        painter.drawText(QRect(r.left(), r.top(), mark_w, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         words.glyph(state))
        left = r.left() + mark_w
        # right column: next fire (first line), badges (second line)
        when = self._when(s)
        bold = QFont(opt.font)
        bold.setWeight(QFont.Weight.DemiBold)
        when_w = fm.horizontalAdvance(when) if when else 0
        painter.setPen(secondary if state != "running" else text_color)
        painter.drawText(QRect(r.right() - when_w, r.top(), when_w + 1, line),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, when)
        # title
        painter.setFont(bold)
        bfm = QFontMetrics(bold)
        title_w = max(0, r.right() - left - when_w - self.PAD)
        painter.setPen(text_color)
        painter.drawText(QRect(left, r.top(), title_w, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         bfm.elidedText(s.title, Qt.TextElideMode.ElideRight, title_w))
        # badges, right of the second line
        painter.setFont(opt.font)
        x = r.right()
        y2 = r.top() + line + fm.leading()
        for text, kind in self._badges(s):
            w = fm.horizontalAdvance(text) + 10
            box = QRect(x - w + 1, y2 + 1, w, line - 2)
            fill = marks.tone(palette, kind)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.drawRoundedRect(box, (line - 2) / 2, (line - 2) / 2)
            painter.setPen(marks.text_on(fill))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
            x -= w + 4
        # schedule in words
        sched_w = max(0, x - left - 4)
        painter.setPen(secondary)
        schedule = self._model.schedule_text(s)
        if state in ("paused", "completed", "archived"):
            schedule = words.status_words(state) + " · " + schedule
        painter.drawText(QRect(left, y2, sched_w, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         fm.elidedText(schedule, Qt.TextElideMode.ElideRight, sched_w))
        painter.restore()

    def _when(self, s: Summary) -> str:
        if s.running:
            if s.running_since is not None:   # how long, moving on each second
                return words.duration(max(self._model.now - s.running_since, timedelta(0)))
            return words.tr("running")
        if s.status != "active" or s.next_fire_at is None:
            return ""
        return words.relative(s.next_fire_at, self._model.now, self._model.tz)

    @staticmethod
    def _badges(s: Summary) -> list[tuple[str, str]]:
        out = []
        if s.parked:
            out.append((f"⚑ {s.parked}", "attention"))
        if s.failure_streak:
            out.append((f"{s.failure_streak} ✕", "error"))
        return out
