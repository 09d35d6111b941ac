"""A table editor's refusal shown beside it: the row the refusal's field names
(``permission_rules[2].pattern`` is the third row) selected, and its words without that
field (the row's number says which)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTableWidget


def row_of(field: str) -> int | None:
    start = field.find("[")
    end = field.find("]", start)
    if start < 0 or end < 0:
        return None
    try:
        return int(field[start + 1:end])
    except ValueError:
        return None


def without_field(message: str) -> str:
    """A refusal's text without its leading ``field: `` (the place says which field)."""
    head, sep, rest = message.partition(": ")
    return rest if sep and " " not in head else message


def show_table_error(table: QTableWidget, label: QLabel, field: str, message: str,
                     row_words: str) -> None:
    """``row_words`` ("Rule {0}: {1}") says it of the row ``field`` names, when it names
    one of the table's."""
    row = row_of(field)
    if row is not None and 0 <= row < table.rowCount():
        table.selectRow(row)
        message = row_words.format(row + 1, without_field(message))
    label.setText(message)
    label.setVisible(True)
    table.setAccessibleDescription(message)


def clear_table_error(table: QTableWidget, label: QLabel) -> None:
    label.clear()
    label.setVisible(False)
    table.setAccessibleDescription("")
