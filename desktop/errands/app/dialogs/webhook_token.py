"""A new webhook token, shown once: the address to call and the token to send, each with
a Copy button. Errands keeps only the token's hash, so closing this loses it (a new one
can always be made)."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class TokenDialog(QDialog):
    def __init__(self, hooks: list[dict[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Its web address"))
        self.setMinimumWidth(720)
        intro = QLabel(self.tr("Send a POST with a JSON body to this address to start it, "
                               "with the header “Authorization: Bearer TOKEN”. The token is "
                               "shown only now: copy it before closing."))
        intro.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        self.fields: list[QLineEdit] = []
        for hook in hooks:
            form = QFormLayout()
            example = (f"curl -X POST -H 'Authorization: Bearer {hook['token']}' "
                       f"-H 'Content-Type: application/json' -d '{{}}' {hook['url']}")
            for label, value, name in ((self.tr("Address"), hook["url"],
                                        self.tr("Web address of trigger %1")),
                                       (self.tr("Token"), hook["token"],
                                        self.tr("Token of trigger %1")),
                                       (self.tr("Example"), example,
                                        self.tr("A command that calls trigger %1"))):
                field = QLineEdit(value)
                field.setReadOnly(True)
                field.setCursorPosition(0)
                field.setAccessibleName(name.replace("%1", hook["trigger"]))
                copy = QPushButton(self.tr("Copy"))
                copy.setAccessibleName(self.tr("Copy %1").replace("%1", field.accessibleName()))
                copy.clicked.connect(lambda _=False, f=field: self._copy(f))
                row = QWidget()
                line = QHBoxLayout(row)
                line.setContentsMargins(0, 0, 0, 0)
                line.addWidget(field, 1)
                line.addWidget(copy)
                form.addRow(label, row)
                self.fields.append(field)
            column.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        column.addWidget(buttons)

    @staticmethod
    def _copy(field: QLineEdit) -> None:
        QGuiApplication.clipboard().setText(field.text())
