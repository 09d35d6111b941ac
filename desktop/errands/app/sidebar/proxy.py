"""Search and sort over the Automations model.

Filtering asks one Python question per row (a substring test on a prepared lower-case
text), which keeps a keystroke on ten thousand rows well under 50 ms. Sorting is done by the
source model in one Python ``sorted`` call; the proxy keeps the source's order (it never
calls a Python ``lessThan``), so a new search does not re-sort.

Qt asks that question again for every row whenever the rows reorder, so the sidebar shows
this proxy only while a filter is set (see ``AutomationSidebar._show_filtered_or_not``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Signal

from ...queries import Summary
from .model import AutomationListModel, Roles


class AutomationFilterProxy(QSortFilterProxyModel):
    """``set_search_text`` (every word must appear in the title or start the id),
    ``set_status`` (active, paused, completed, broken, running, attention or None) and
    ``set_sort_key`` (next_fire, title, last_run)."""

    filter_changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self._status: str | None = None
        self._accept: list[bool] | None = None
        self._accept_version = -1
        self._model: AutomationListModel | None = None
        self.setDynamicSortFilter(False)

    def setSourceModel(self, model: Any) -> None:  # noqa: N802 (Qt's name)
        assert isinstance(model, AutomationListModel)
        self._model = model
        self._accept = None
        super().setSourceModel(model)

    def source(self) -> AutomationListModel:
        model = self.sourceModel()
        assert isinstance(model, AutomationListModel)
        return model

    @property
    def search_text(self) -> str:
        return " ".join(self._words)

    def set_search_text(self, text: str) -> None:
        words = text.casefold().split()
        if words != self._words:
            self._words = words
            self._refilter()

    def set_status(self, status: str | None) -> None:
        if status != self._status:
            self._status = status
            self._refilter()

    def set_sort_key(self, key: str) -> None:
        self.source().set_sort_key(key)

    def filtering(self) -> bool:
        return bool(self._words) or self._status is not None

    def _refilter(self) -> None:
        self._accept = self._decide_all()
        self._accept_version = self._model.version if self._model is not None else -1
        if hasattr(self, "beginFilterChange"):  # Qt 6.9 and later
            self.beginFilterChange()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()
        self.filter_changed.emit()

    def _decide_all(self) -> list[bool] | None:
        """Every row's answer at once, in plain Python (one list comprehension), so the
        per-row call from Qt is a list lookup."""
        if not self.filtering() or self.sourceModel() is None:
            return None
        model = self.source()
        rows, titles = model.summaries_view(), model.search_texts()
        accept = [True] * len(rows)
        for w in self._words:
            accept = [a and (w in t or s.id.startswith(w))
                      for a, t, s in zip(accept, titles, rows)]
        if self._status is not None:
            accept = [a and self._status_ok(s) for a, s in zip(accept, rows)]
        return accept

    def _decide(self, s: Summary, title: str) -> bool:
        if not all(w in title or s.id.startswith(w) for w in self._words):
            return False
        return self._status is None or self._status_ok(s)

    def _status_ok(self, s: Summary) -> bool:
        if self._status == "running":
            return s.running
        if self._status == "attention":
            return bool(s.parked or s.failure_streak)
        return s.status == self._status

    def filterAcceptsRow(self, source_row: int,  # noqa: N802 (Qt's name)
                         source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        accept = self._accept
        if accept is None:
            return True
        model = self._model
        if self._accept_version == model.version:
            return accept[source_row]
        # the rows changed since the last search: answer for this one
        return self._decide(model.summaries_view()[source_row], model.search_texts()[source_row])

    def automation_id(self, row: int) -> str | None:
        index = self.index(row, 0)
        return index.data(Roles.ID) if index.isValid() else None

    def row_of(self, automation_id: str) -> int | None:
        source_row = self.source().row_of(automation_id)
        if source_row is None:
            return None
        index = self.mapFromSource(self.source().index(source_row))
        return index.row() if index.isValid() else None
