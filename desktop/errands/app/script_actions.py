"""A script's actions as a table: what it proposed, on what, and whether it applied (a run's
record) or would apply (a dry run). One table for the run page and the dry runs."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QHeaderView, QTableView

from . import theme, words
from .words import tr   # (context "words")


def actions_table(name: str, verdict_header: str, parent: Any = None
                  ) -> tuple[QTableView, QStandardItemModel]:
    """A read-only table (Action, On, ``verdict_header``) named ``name`` for screen readers."""
    model = QStandardItemModel(0, 3, parent)
    model.setHorizontalHeaderLabels([tr("Action"), tr("On"), verdict_header])
    table = QTableView()
    table.setModel(model)
    table.setAccessibleName(name)
    table.verticalHeader().hide()
    table.setCornerButtonEnabled(False)
    for corner in table.findChildren(QAbstractButton):  # (the table's corner)
        corner.setAccessibleName(tr("Select all"))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setWordWrap(True)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    return table, model


def fill_actions(table: QTableView, model: QStandardItemModel, actions: list[dict[str, Any]],
                 key: str) -> None:
    """One row per action; ``key`` is ``applied`` (a run) or ``would_apply`` (a dry run)."""
    model.removeRows(0, model.rowCount())
    colours = theme.state_colors()
    for action in actions:
        reason = str(action.get("reason") or "")
        holds = reason.startswith("already holds")
        verdict = (tr("Yes") if action.get(key) else tr("Already so") if holds
                   else tr("No: %1").replace("%1", reason))
        row = [QStandardItem(words.script_action(str(action.get("type")))),
               QStandardItem(words.action_target(action, short=True)), QStandardItem(verdict)]
        row[1].setToolTip(words.action_target(action))
        row[2].setToolTip(verdict)
        row[2].setForeground(colours["success" if action.get(key) else
                                     "disabled" if holds else "error"])
        model.appendRow(row)
    table.setVisible(bool(actions))
    table.resizeRowsToContents()
