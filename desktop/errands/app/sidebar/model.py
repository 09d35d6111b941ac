"""The Automations list model: one row per Summary (plain tuples), no widget per row.

The model keeps its rows in the order of the chosen sort key, so the filter proxy above it
never sorts in Python (ten thousand rows sort here in a few milliseconds; a proxy calling a
Python ``lessThan`` would take half a second). Snapshots and notices are applied by id with
the smallest change Qt allows: removed rows leave, new rows arrive, changed rows signal
``dataChanged``, and only when the order changed is the layout re-announced (selection and
persistent indexes follow their rows).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Iterable

from PySide6.QtCore import (QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt,
                            Signal)

from ...queries import SORT_KEYS, Summary
from ...timeutil import utcnow
from .. import words

MAX_CHANGED_ROWS = 48  # more changed rows than this: one layout change instead


class Roles:
    SUMMARY = Qt.ItemDataRole.UserRole + 1
    ID = Qt.ItemDataRole.UserRole + 2
    SEARCH = Qt.ItemDataRole.UserRole + 3   # the title in lower case


def _sort_key(key: str):  # type: ignore[no-untyped-def]
    if key == "title":
        return lambda s: (s.title.casefold(), s.id)
    if key == "last_run":
        return lambda s: (s.last_at is None, -(s.last_at.timestamp()) if s.last_at else 0.0,
                          s.id)
    return lambda s: (s.next_fire_at is None,
                      s.next_fire_at.timestamp() if s.next_fire_at else 0.0,
                      s.title.casefold(), s.id)


class AutomationListModel(QAbstractListModel):
    """Rows of ``Summary``. ``apply_snapshot`` replaces the whole set, ``apply_changes``
    updates the rows a notice names; both by id, never by a reset."""

    counts_changed = Signal(int)   # how many automations the model holds

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Summary] = []
        self._row_of: dict[str, int] = {}
        self._search: list[str] = []
        self._keys: list[Any] = []   # each row's sort key, kept beside it (see _reorder)
        self._sort = "next_fire"
        self._schedules: dict[tuple[str, int], str] = {}
        self.version = 0   # grows before every change of rows, order or data
        self.now: datetime = utcnow()
        self.tz = words.local_zone()

    # ---------------------------------------------------------------- Qt interface
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.title
        if role == Roles.SUMMARY:
            return row
        if role == Roles.ID:
            return row.id
        if role == Roles.SEARCH:
            return self._search[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.describe(row)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.describe(row)
        return None

    # ------------------------------------------------------------------- reading
    @property
    def sort_key(self) -> str:
        return self._sort

    def summaries(self) -> list[Summary]:
        return list(self._rows)

    def summaries_view(self) -> list[Summary]:
        """The rows themselves, in model order (do not change them)."""
        return self._rows

    def summary(self, automation_id: str) -> Summary | None:
        row = self._row_of.get(automation_id)
        return None if row is None else self._rows[row]

    def row_of(self, automation_id: str) -> int | None:
        return self._row_of.get(automation_id)

    def search_texts(self) -> list[str]:
        return self._search

    def schedule_text(self, s: Summary) -> str:
        """The schedule in words, in the chosen language, its instants in local time
        (cached per automation and revision)."""
        key = (s.id, s.revision)
        text = self._schedules.get(key)
        if text is None:
            if len(self._schedules) > 20_000:
                self._schedules.clear()
            if s.trigger is not None:
                text = words.trigger_sentence(s.trigger, self.now, self.tz, self._title)
            elif s.schedule.startswith("cannot run: "):  # the engine's reason stays English
                text = words.tr("cannot run: %1").replace("%1", s.schedule[12:])
            else:
                text = words.schedule_words(s.schedule, self.now, self.tz)
            self._schedules[key] = text
        return text

    def _title(self, automation_id: str) -> str | None:
        """Another automation's title (one an ``automation`` trigger follows)."""
        found = self.summary(automation_id)
        return found.title if found is not None else None

    def describe(self, s: Summary) -> str:
        """The row in one sentence (tooltip and screen readers)."""
        parts = [s.title, words.status_words("running" if s.running else s.status)]
        if s.running and s.running_since is not None:
            parts.append(words.tr("Running for %1").replace(
                "%1", words.duration(max(self.now - s.running_since, timedelta(0)))))
        if s.schedule:
            parts.append(self.schedule_text(s))
        if s.next_fire_at is not None and s.status == "active":
            parts.append(words.tr("next %1").replace(
                "%1", words.day_and_time(s.next_fire_at, self.now, self.tz)))
        if s.last_state:
            parts.append(words.tr("last run: %1").replace("%1", words.state_words(s.last_state)))
        if s.parked:
            parts.append(words.tr("%n waiting for you", None, s.parked))
        if s.failure_streak:
            parts.append(words.tr("%n failures in a row", None, s.failure_streak))
        return " · ".join(parts)

    # ------------------------------------------------------------------- writing
    def running(self) -> bool:
        return any(s.running for s in self._rows)

    def tick(self, now: datetime) -> None:
        """A second later, for the running rows' time: the instant moves, and the view
        repaints what it shows (no change signal: the proxy would sort and filter again)."""
        self.now = now

    def set_now(self, now: datetime) -> None:
        """The instant relative times are measured from ("in 3 h"); repaints every row."""
        self.now = now
        if self._rows:
            self.dataChanged.emit(self.index(0), self.index(len(self._rows) - 1),
                                  [Qt.ItemDataRole.DisplayRole])

    def set_sort_key(self, key: str) -> None:
        if key not in SORT_KEYS:
            raise ValueError(f"unknown sort key {key!r}")
        if key != self._sort:
            self._sort = key
            self._reorder(rekey=True)

    def apply_snapshot(self, rows: Iterable[Summary]) -> None:
        """Make the model hold exactly ``rows``, changing only what differs."""
        fresh = {s.id: s for s in rows}
        gone = [i for i, s in enumerate(self._rows) if s.id not in fresh]
        self._remove_rows(gone)
        self._upsert(fresh.values())

    def apply_changes(self, changed: Iterable[Summary] = (), deleted: Iterable[str] = ()) -> None:
        """Apply what a notice named: fresh summaries of changed automations, deleted ids."""
        self._remove_rows(sorted(self._row_of[i] for i in set(deleted) if i in self._row_of))
        self._upsert(changed)

    # ------------------------------------------------------------------ internals
    def _remove_rows(self, rows: list[int]) -> None:
        if not rows:
            return
        # contiguous ranges, from the bottom up so earlier rows keep their numbers
        ranges: list[list[int]] = []
        for r in rows:
            if ranges and r == ranges[-1][1] + 1:
                ranges[-1][1] = r
            else:
                ranges.append([r, r])
        for first, last in reversed(ranges):
            self.version += 1
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first:last + 1]
            del self._search[first:last + 1]
            del self._keys[first:last + 1]
            self.endRemoveRows()
        self._reindex()
        self.counts_changed.emit(len(self._rows))

    def _upsert(self, rows: Iterable[Summary]) -> None:
        new: list[Summary] = []
        changed: list[int] = []
        key = _sort_key(self._sort)
        for s in rows:
            at = self._row_of.get(s.id)
            if at is None:
                new.append(s)
            elif self._rows[at] != s:
                self._rows[at] = s
                self._search[at] = _search_text(s)
                self._keys[at] = key(s)
                changed.append(at)
        self.version += 1
        relayout = bool(changed) and not self._announce_changed(sorted(changed))
        if new:
            first = len(self._rows)
            self.version += 1
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            self._rows.extend(new)
            self._search.extend(_search_text(s) for s in new)
            self._keys.extend(key(s) for s in new)
            for i, s in enumerate(new, first):
                self._row_of[s.id] = i
            self.endInsertRows()
            self.counts_changed.emit(len(self._rows))
        if new or changed:
            self._reorder(relayout=relayout)

    def _announce_changed(self, rows: list[int]) -> bool:
        """One ``dataChanged`` per run of adjacent rows; False, with nothing sent, when the
        rows are many (a burst): the views then hear of them as one layout change. Qt
        handles each changed row with calls back into the model, each a trip into Python
        that waits for the interpreter lock while the engine's threads are busy; a layout
        change costs only the rows on screen."""
        if len(rows) > MAX_CHANGED_ROWS:
            return False
        runs: list[tuple[int, int]] = []
        start = prev = rows[0]
        for r in rows[1:]:
            if r != prev + 1:
                runs.append((start, prev))
                start = r
            prev = r
        runs.append((start, prev))
        for first, last in runs:
            self.dataChanged.emit(self.index(first), self.index(last))
        return True

    def _reorder(self, rekey: bool = False, relayout: bool = False) -> None:
        """Sort by the kept keys: a notice's few changed rows cost one nearly-sorted sort
        (a few ms over ten thousand rows), not ten thousand key computations. ``relayout``:
        announce a layout change even if the order stayed."""
        if rekey:
            key = _sort_key(self._sort)
            self._keys = [key(s) for s in self._rows]
        keys = self._keys
        order = sorted(range(len(self._rows)), key=keys.__getitem__)
        if order == list(range(len(self._rows))) and not relayout:
            return
        self.version += 1
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        new_row = {old: new for new, old in enumerate(order)}
        self._rows = [self._rows[i] for i in order]
        self._search = [self._search[i] for i in order]
        self._keys = [self._keys[i] for i in order]
        self._reindex()
        if old_persistent:
            self.changePersistentIndexList(
                old_persistent, [self.index(new_row[p.row()]) for p in old_persistent])
        self.layoutChanged.emit()

    def _reindex(self) -> None:
        self._row_of = {s.id: i for i, s in enumerate(self._rows)}


def _search_text(s: Summary) -> str:
    return s.title.casefold()
