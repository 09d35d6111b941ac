"""The run history table: one row per run, newest first, loaded a page at a time.

Passive: ``set_runs(page, cursor)`` shows the first page; when the view scrolls near the
end Qt calls ``fetchMore`` and the model emits ``more_wanted(cursor)``; whoever holds the
store answers with ``append_page(page, cursor)``. ``update_runs`` applies runs a notice
named (by id: changed rows in place, new runs on top).
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any, Iterable

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt,
                            Signal)
from PySide6.QtWidgets import QApplication

from ...records import Run
from ...timeutil import utcnow
from .. import marks, words

COLUMNS = ("#", QT_TRANSLATE_NOOP("words", "State"), QT_TRANSLATE_NOOP("words", "Trigger"), QT_TRANSLATE_NOOP("words", "Scheduled"), QT_TRANSLATE_NOOP("words", "Started"),
           QT_TRANSLATE_NOOP("words", "Duration"), QT_TRANSLATE_NOOP("words", "Attempts"), QT_TRANSLATE_NOOP("words", "Result"))
RUN_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2


class RunHistoryModel(QAbstractTableModel):
    more_wanted = Signal(str)   # the cursor to continue below

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._runs: list[Run] = []
        self._row_of: dict[str, int] = {}
        self._cursor: str | None = None
        self._asked: str | None = None
        self.now: datetime = utcnow()
        self.tz: tzinfo = words.local_zone()

    # ---------------------------------------------------------------- Qt interface
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return words.tr(COLUMNS[section])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        run = self._runs[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(run, column)
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.describe(run) if column != 7 else (
                words.run_summary(run, self.tz, self.now) or self.describe(run))
        if role == Qt.ItemDataRole.ForegroundRole and column in (1, 7):
            if column == 7 and run.state not in ("failed", "skipped"):
                return None
            return marks.state_color(QApplication.palette(), words.run_state(run))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == RUN_ROLE:
            return run
        if role == ID_ROLE:
            return run.id
        return None

    def cell(self, run: Run, column: int) -> str:
        if column == 0:
            return str(run.index)
        if column == 1:
            state = words.run_state(run)
            return f"{words.glyph(state)} {words.state_words(state)}"
        if column == 2:
            text = words.trigger_words(run.trigger)
            return text + (" · " + words.tr("dry run") if run.dry_run else "")
        if column == 3:
            return words.day_and_time(run.scheduled_for, self.now, self.tz) \
                if run.scheduled_for else "—"
        if column == 4:
            return words.day_and_time(run.started_at, self.now, self.tz) \
                if run.started_at else "—"
        if column == 5:
            if run.started_at is None:
                return ""
            if run.finished_at is None and run.state != "running":
                return ""   # (parked or waiting to retry: it has not finished)
            took = run.run_time(self.now)   # the time it ran: waits left out
            return words.duration(took) if took is not None else ""
        if column == 6:
            count = len(run.attempts) if run.attempts else (0 if run.state == "skipped" else 1)
            return str(count) if count else ""
        if column == 7:
            note = words.missed_note(run)
            text = words.run_summary(run, self.tz, self.now)
            return f"{note} · {text}" if note and text else (note or text)
        return ""

    def describe(self, run: Run) -> str:
        return words.tr("Run %1: %2").replace("%1", str(run.index)).replace(
            "%2", words.run_summary(run, self.tz, self.now) or words.state_words(run.state))

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        return not parent.isValid() and self._cursor is not None and self._asked != self._cursor

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        if self.canFetchMore(parent):
            self._asked = self._cursor
            self.more_wanted.emit(self._cursor)

    # ------------------------------------------------------------------- reading
    def runs(self) -> list[Run]:
        return list(self._runs)

    def row_of(self, run_id: str) -> int | None:
        return self._row_of.get(run_id)

    @property
    def cursor(self) -> str | None:
        return self._cursor

    # ------------------------------------------------------------------- writing
    def set_runs(self, runs: Iterable[Run], cursor: str | None = None) -> None:
        """The first page (newest first) and the cursor of the next one (None: no more)."""
        self.beginResetModel()
        self._runs = list(runs)
        self._cursor, self._asked = cursor, None
        self._reindex()
        self.endResetModel()

    def append_page(self, runs: Iterable[Run], cursor: str | None) -> None:
        page = [r for r in runs if r.id not in self._row_of]
        self._cursor, self._asked = cursor, None
        if page:
            first = len(self._runs)
            self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
            self._runs.extend(page)
            self._reindex()
            self.endInsertRows()

    def update_runs(self, runs: Iterable[Run]) -> None:
        """Runs a notice named: known ones change in place, newer ones go on top."""
        new = []
        for run in runs:
            row = self._row_of.get(run.id)
            if row is None:
                new.append(run)
            elif self._runs[row] != run:
                self._runs[row] = run
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
        top = self._runs[0].index if self._runs else 0
        new = sorted((r for r in new if r.index > top), key=lambda r: -r.index)
        if new:
            self.beginInsertRows(QModelIndex(), 0, len(new) - 1)
            self._runs[:0] = new
            self._reindex()
            self.endInsertRows()

    def set_now(self, now: datetime) -> None:
        self.now = now
        if self._runs:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self._runs) - 1, len(COLUMNS) - 1))

    def _reindex(self) -> None:
        self._row_of = {r.id: i for i, r in enumerate(self._runs)}


