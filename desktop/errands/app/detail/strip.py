"""The run strip: one mark per recent run along a time axis, coloured by state.

A week of a noisy automation reads at a glance; hovering a mark says what happened,
clicking it emits ``run_selected(run_id)``. A skipped record that stands for many missed
fires is drawn as a hollow bar over the time it covers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any, Iterable

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QHelpEvent, QMouseEvent, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ...records import Run
from ...timeutil import utcnow
from .. import marks, words


@dataclass(frozen=True)
class Mark:
    run_id: str
    state: str
    at: datetime
    rect: QRectF
    until: datetime | None = None   # a skipped record's last missed fire


def run_instant(run: Run) -> datetime | None:
    return run.missed_first or run.scheduled_for or run.started_at or run.created_at


class RunStrip(QWidget):
    run_selected = Signal(str)

    MARGIN = 10
    AXIS = 16   # room for the time labels below the marks

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Recent runs"))
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._runs: list[Run] = []
        self._span = timedelta(days=7)
        self._end: datetime = utcnow()
        self._selected: str | None = None
        self.tz: tzinfo = words.local_zone()
        self._marks: list[Mark] | None = None

    # ------------------------------------------------------------------ data in
    def set_runs(self, runs: Iterable[Run], *, now: datetime | None = None,
                 span: timedelta | None = None) -> None:
        """The runs to show (any order); the axis ends at ``now`` and covers ``span``
        (by default 7 days, or less when all runs are newer)."""
        self._runs = sorted((r for r in runs if run_instant(r) is not None),
                            key=lambda r: run_instant(r))  # type: ignore[arg-type, return-value]
        self._end = now or utcnow()
        if span is None:
            oldest = run_instant(self._runs[0]) if self._runs else None
            span = timedelta(days=7)
            for candidate in (timedelta(hours=6), timedelta(days=1), timedelta(days=2),
                              timedelta(days=3)):
                if oldest is not None and self._end - oldest <= candidate * 0.95:
                    span = candidate
                    break
        self._span = span
        self._marks = None
        counts: dict[str, int] = {}
        for r in self.visible_runs():
            counts[r.state] = counts.get(r.state, 0) + 1
        self.setAccessibleDescription(", ".join(
            f"{n} {words.state_words(s).lower()}" for s, n in sorted(counts.items())))
        self.update()

    def select_run(self, run_id: str | None) -> None:
        self._selected = run_id
        self.update()

    # ----------------------------------------------------------------- reading
    @property
    def start(self) -> datetime:
        return self._end - self._span

    def visible_runs(self) -> list[Run]:
        start = self.start
        return [r for r in self._runs
                if (r.missed_last or run_instant(r)) >= start]  # type: ignore[operator]

    def marks(self) -> list[Mark]:
        if self._marks is None:
            self._marks = self._layout()
        return self._marks

    def mark_at(self, x: float, y: float) -> Mark | None:
        best, best_d = None, 7.0
        for m in self.marks():
            if m.rect.adjusted(-3, -3, 3, 3).contains(QPointF(x, y)):
                d = abs(m.rect.center().x() - x)
                if d <= best_d or m.until is not None:
                    best, best_d = m, d
        return best

    def tooltip_for(self, run_id: str) -> str:
        run = next(r for r in self._runs if r.id == run_id)
        when = words.day_and_time(run_instant(run), self._end, self.tz)  # type: ignore[arg-type]
        summary = words.run_summary(run, self.tz, self._end) or words.state_words(run.state)
        return f"#{run.index} · {when}\n{summary}"

    # --------------------------------------------------------------- geometry
    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(480, 30 + self.AXIS)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(160, 30 + self.AXIS)

    def _x(self, when: datetime) -> float:
        width = self.width() - 2 * self.MARGIN
        part = (when - self.start) / self._span if self._span else 1.0
        return self.MARGIN + max(0.0, min(1.0, part)) * width

    def _layout(self) -> list[Mark]:
        top, height = 6.0, float(self.height() - self.AXIS - 10)
        out = []
        for r in self.visible_runs():
            at = run_instant(r)
            assert at is not None
            x = self._x(at)
            if r.state == "skipped" and r.missed_last and r.missed_last > at:
                x2 = self._x(r.missed_last)
                rect = QRectF(x - 2, top + height * 0.25, max(4.0, x2 - x + 4), height * 0.5)
                out.append(Mark(r.id, words.run_state(r), at, rect, r.missed_last))
            else:
                out.append(Mark(r.id, words.run_state(r), at, QRectF(x - 2.5, top, 5, height)))
        return out

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        self._marks = None
        super().resizeEvent(event)

    # ------------------------------------------------------------------ events
    def paintEvent(self, _event: Any) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pal = self.palette()
        muted = marks.muted(pal)
        base_y = self.height() - self.AXIS - 3
        # axis and day ticks
        p.setPen(QPen(muted, 1))
        p.drawLine(QPointF(self.MARGIN, base_y), QPointF(self.width() - self.MARGIN, base_y))
        font = p.font()
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
        p.setFont(font)
        for at, label in self._ticks():
            x = self._x(at)
            p.drawLine(QPointF(x, base_y), QPointF(x, base_y + 3))
            p.drawText(QRectF(x - 40, base_y + 2, 80, self.AXIS),
                       Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, label)
        if not self._runs:
            p.drawText(QRectF(0, 0, self.width(), base_y), Qt.AlignmentFlag.AlignCenter,
                       self.tr("No runs yet"))
        for m in self.marks():
            color = marks.state_color(pal, m.state)
            if m.until is not None:  # missed fires: a hollow bar over the time they cover
                p.setPen(QPen(color, 1.5))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(m.rect, 2, 2)
            elif m.state == "dry_run":   # went through, did nothing: an outline, muted
                p.setPen(QPen(color, 1.5))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(m.rect.adjusted(0.75, m.rect.height() * 0.2, -0.75, -0.75),
                                  2, 2)
            elif m.state == "skipped":
                p.setPen(QPen(color, 1.5))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawEllipse(QRectF(m.rect.center().x() - 3, m.rect.center().y() - 3, 6, 6))
            else:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color)
                if m.state == "running":  # a pulse-like taller mark with a ring
                    p.drawRoundedRect(m.rect, 2, 2)
                else:
                    short = m.rect.adjusted(0, m.rect.height() * (0.0 if m.state == "failed"
                                                                  else 0.2), 0, 0)
                    p.drawRoundedRect(short, 2, 2)
            if m.run_id == self._selected:
                p.setPen(QPen(pal.color(QPalette.ColorRole.Highlight), 2))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(m.rect.adjusted(-3, -3, 3, 3), 3, 3)
        p.end()

    def _ticks(self) -> list[tuple[datetime, str]]:
        local_end = self._end.astimezone(self.tz)
        if self._span <= timedelta(days=1):
            step = timedelta(hours=6 if self._span > timedelta(hours=6) else 1)
            t = local_end.replace(minute=0, second=0, microsecond=0)
            out = []
            while t >= self.start:
                if t.hour % (step.seconds // 3600) == 0:
                    out.append((t, f"{t:%H:%M}"))
                t -= timedelta(hours=1)
            return out[::-1]
        out, day = [], local_end.replace(hour=0, minute=0, second=0, microsecond=0)
        while day >= self.start:
            out.append((day, f"{day:%a} {day.day}"))
            day = (day - timedelta(hours=12)).replace(hour=0)
        labels = out[::-1]
        if self.width() < 60 * len(labels):  # keep labels from crowding
            labels = labels[::2]
        return labels

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip:
            assert isinstance(e, QHelpEvent)
            m = self.mark_at(e.pos().x(), e.pos().y())
            if m is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), self.tooltip_for(m.run_id), self)
            return True
        return super().event(e)

    def mousePressEvent(self, e: QMouseEvent) -> None:  # noqa: N802
        m = self.mark_at(e.position().x(), e.position().y())
        if m is not None and e.button() == Qt.MouseButton.LeftButton:
            self.select_run(m.run_id)
            self.run_selected.emit(m.run_id)
        super().mousePressEvent(e)


__all__ = ["Mark", "RunStrip", "run_instant"]
