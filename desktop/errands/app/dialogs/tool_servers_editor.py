"""The MCP servers every agent run may use (the ``mcp_servers`` setting), as a table in
Settings: a name, the command that starts it or its URL, the header a URL's secret goes in,
and whether its answers count as trusted text.

Passive like the dialog it sits in: it turns rows into the setting's JSON and shows the
engine's refusal beside the row at fault. A header's value is never shown or stored here:
"Set header value…" asks for it and says so in :attr:`ToolServersEditor.secret_requested`;
the owner keeps it in the keyring.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QInputDialog,
                               QLabel, QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from ...errors import InvalidInput
from ...settings import normalize
from .table_errors import clear_table_error, show_table_error

SERVERS_KEY = "mcp_servers"
NAME, WHERE, HEADER, TRUSTED = range(4)
EXTRA = Qt.ItemDataRole.UserRole + 1   # what the table does not show (a stdio server's env)


def canonical_servers(text: str) -> str | None:
    """The setting's canonical text, None when it does not parse."""
    try:
        return normalize(SERVERS_KEY, text)
    except InvalidInput:
        return None


class ToolServersEditor(QWidget):
    changed = Signal()
    secret_requested = Signal(str, str, str)   # server name, its URL, the header's value

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("servers-editor")
        self.table = QTableWidget(0, 4, self)
        self.table.setTabKeyNavigation(False)
        self.table.setObjectName("servers-table")
        self.table.setAccessibleName(self.tr("MCP servers"))
        self.table.setHorizontalHeaderLabels([self.tr("Name"), self.tr("Command or URL"),
                                              self.tr("Secret header"), self.tr("Trusted")])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(WHERE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(HEADER, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TRUSTED, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.itemChanged.connect(lambda _item: self._edited())
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.setMinimumHeight(140)

        self.add_button = QPushButton(self.tr("Add server"))
        self.add_button.setObjectName("servers-add")
        self.add_button.setAccessibleName(self.tr("Add an MCP server"))
        self.add_button.clicked.connect(lambda: self.add_server())
        self.remove_button = QPushButton(self.tr("Remove server"))
        self.remove_button.setObjectName("servers-remove")
        self.remove_button.setAccessibleName(self.tr("Remove the selected MCP servers"))
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self.remove_selected)
        self.secret_button = QPushButton(self.tr("Set header value…"))
        self.secret_button.setObjectName("servers-secret")
        self.secret_button.setAccessibleName(self.tr("Set the secret header value of the "
                                                     "selected server"))
        self.secret_button.setEnabled(False)
        self.secret_button.clicked.connect(self._ask_secret)

        self.error = QLabel(self)
        self.error.setObjectName("servers-error")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setVisible(False)
        self.status = QLabel(self)
        self.status.setObjectName("servers-status")
        self.status.setWordWrap(True)
        self.status.setVisible(False)

        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.secret_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.status)

    # ----------------------------------------------------------------- contents

    def set_servers(self, text: str) -> None:
        try:
            servers = json.loads(text or "[]")
        except ValueError:
            servers = []
        self.table.setRowCount(0)
        for doc in servers if isinstance(servers, list) else []:
            if isinstance(doc, dict):
                self.add_server(doc, select=False)
        self.clear_error()

    def add_server(self, doc: dict[str, Any] | None = None, *, select: bool = True) -> int:
        doc = doc or {}
        row = self.table.rowCount()
        self.table.blockSignals(True)
        self.table.insertRow(row)
        command = doc.get("command")
        where = (shlex.join(command) if isinstance(command, list)
                 and all(isinstance(c, str) for c in command) else str(doc.get("url") or ""))
        name = QTableWidgetItem(str(doc.get("name") or ""))
        name.setData(EXTRA, doc.get("env"))
        self.table.setItem(row, NAME, name)
        self.table.setItem(row, WHERE, QTableWidgetItem(where))
        self.table.setItem(row, HEADER, QTableWidgetItem(str(doc.get("header") or "")))
        trusted = QTableWidgetItem()
        trusted.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled
                         | Qt.ItemFlag.ItemIsSelectable)
        trusted.setCheckState(Qt.CheckState.Checked if doc.get("trusted")
                              else Qt.CheckState.Unchecked)
        trusted.setToolTip(self.tr("Its answers are not treated as text from outside (which "
                                   "makes later commands ask)"))
        self.table.setItem(row, TRUSTED, trusted)
        self.table.blockSignals(False)
        if select:
            self.table.setCurrentCell(row, NAME)
            self.table.editItem(self.table.item(row, NAME))
        self._edited()
        return row

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self._edited()

    def servers(self) -> list[dict[str, Any]]:
        out = []
        for row in range(self.table.rowCount()):
            text = self._text(row, WHERE).strip()
            doc: dict[str, Any] = {"name": self._text(row, NAME).strip()}
            if text.startswith(("http://", "https://")):
                doc["url"] = text
                if self._text(row, HEADER).strip():
                    doc["header"] = self._text(row, HEADER).strip()
            else:
                doc["command"] = text
                env = self.table.item(row, NAME).data(EXTRA)  # type: ignore[union-attr]
                if env:
                    doc["env"] = env
            item = self.table.item(row, TRUSTED)
            if item is not None and item.checkState() == Qt.CheckState.Checked:
                doc["trusted"] = True
            out.append(doc)
        return out

    def text(self) -> str:
        return json.dumps(self.servers(), ensure_ascii=False)

    def validate(self) -> str | None:
        """The setting's canonical text, or None after showing what is wrong."""
        try:
            canonical = normalize(SERVERS_KEY, self.text())
        except InvalidInput as exc:
            self.show_error(exc.field, str(exc))
            return None
        self.clear_error()
        return canonical

    # ------------------------------------------------------------------- errors

    def show_error(self, field: str, message: str) -> None:
        """``field`` like ``mcp_servers[1].url`` selects that server's row."""
        show_table_error(self.table, self.error, field, message,
                         self.tr("Server {0}: {1}"))

    def clear_error(self) -> None:
        clear_table_error(self.table, self.error)

    def show_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    # ------------------------------------------------------------------ private

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""

    def _edited(self) -> None:
        self.clear_error()
        self._selection_changed()
        self.changed.emit()

    def _selected_row(self) -> int | None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        return rows.pop() if len(rows) == 1 else None

    def _selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectedIndexes()))
        row = self._selected_row()
        self.secret_button.setEnabled(row is not None and bool(self._text(row, HEADER).strip())
                                      and self._text(row, WHERE).strip().startswith(
                                          ("http://", "https://")))

    def _ask_secret(self) -> None:
        row = self._selected_row()
        if row is None:
            return
        name, header = self._text(row, NAME).strip(), self._text(row, HEADER).strip()
        url = self._text(row, WHERE).strip()
        value, ok = QInputDialog.getText(
            self, self.tr("Secret header value"),
            self.tr("The value of the {0} header for “{1}” (kept in the system keyring, "
                    "never shown again):").format(header, name),
            QLineEdit.EchoMode.Password)
        if ok and value:
            self.secret_requested.emit(name, url, value)
