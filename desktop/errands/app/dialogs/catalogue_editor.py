"""The Settings dialog's Catalogue tab: where automations and runs are kept, this
computer's file or a PostgreSQL database several machines share (docs/shared-catalogue.md).

A passive view: it shows what :func:`catalogue_info` read, checks a typed URL itself (a pure
check: the field, the shape, an example beside it), and asks its owner, through its signals,
to save the URL (``chosen``) or a password in the keyring (``password_requested``). A new
catalogue is used from the next start: the engine running now keeps the one it opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QVBoxLayout, QWidget)

from ...db.location import (ENV, EXAMPLE, ServerDatabase, database_location,
                            parse_database_url, password_for, saved_url_path)
from ...errors import InvalidInput


def catalogue_info(data_dir: Path) -> dict[str, Any]:
    """What the tab shows (reads files and the keyring: call it off the UI loop)."""
    import os

    saved = saved_url_path(Path(data_dir))
    try:
        saved_url = saved.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        saved_url = ""
    try:
        location: Any = database_location(Path(data_dir))
    except Exception as exc:  # a saved URL that no longer reads: shown, to be fixed here
        location = None
        problem = str(exc)
    else:
        problem = None
    return {"in_use": str(location) if location is not None else "",
            "shared": isinstance(location, ServerDatabase),
            "from_environment": bool(os.environ.get(ENV)),
            "saved_url": saved_url, "problem": problem,
            "password_stored": isinstance(location, ServerDatabase)
            and password_for(location) is not None}


class CatalogueEditor(QWidget):
    """See the module text."""

    chosen = Signal(str)                    # the URL to use from the next start ("": local)
    password_requested = Signal(str, str)   # URL, password: into the keyring

    def __init__(self, info: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("catalogue-editor")
        self._saved = str(info.get("saved_url") or "")
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr(
            "Automations and their runs are kept in this computer's own file, or in a "
            "PostgreSQL database that several computers share. One computer's Errands serves "
            "a shared catalogue at a time; the command line of the others hands it their "
            "changes."), self)
        intro.setWordWrap(True)
        _muted(intro)
        layout.addWidget(intro)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        in_use = (self.tr("Shared: %1") if info.get("shared") else
                  self.tr("This computer: %1")).replace("%1", str(info.get("in_use") or ""))
        self.in_use = QLabel(in_use, self)
        self.in_use.setObjectName("catalogue-in-use")
        self.in_use.setWordWrap(True)
        self.in_use.setAccessibleName(self.tr("Catalogue in use"))
        form.addRow(self.tr("In use:"), self.in_use)

        self.url = QLineEdit(self._saved, self)
        self.url.setObjectName("field-database_url")
        self.url.setAccessibleName(self.tr("Shared catalogue URL"))
        self.url.setPlaceholderText(EXAMPLE)
        self.url.textChanged.connect(lambda _text: self.clear_error())
        box = QWidget(self)
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.url)
        hint = QLabel(self.tr("Empty: this computer's own file. Used from the next start; "
                              "never with a password in it."), box)
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        _muted(hint)
        column.addWidget(hint)
        self.error = QLabel("", box)
        self.error.setObjectName("error-database_url")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        column.addWidget(self.error)
        form.addRow(self.tr("Shared catalogue:"), box)

        self.password = QLineEdit(self)
        self.password.setObjectName("field-database_password")
        self.password.setAccessibleName(self.tr("Password of the shared catalogue"))
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.textChanged.connect(self._password_typed)
        self.password_button = QPushButton(self.tr("Save password"), self)
        self.password_button.setObjectName("database-password-save")
        self.password_button.setAccessibleName(self.tr("Save the password in the keyring"))
        self.password_button.setAutoDefault(False)
        self.password_button.setEnabled(False)
        self.password_button.clicked.connect(self._save_password)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.password, 1)
        row.addWidget(self.password_button)
        form.addRow(self.tr("Password:"), row)
        self.status = QLabel("", self)
        self.status.setObjectName("database-status")
        self.status.setWordWrap(True)
        form.addRow("", self.status)
        layout.addLayout(form)
        layout.addStretch(1)
        if info.get("from_environment"):
            self.say(self.tr("ERRANDS_DATABASE_URL chooses the catalogue for this session; "
                             "what is saved here applies where it is not set."))
        elif info.get("shared"):
            self.say(self.tr("A password is kept in the keyring.") if info.get("password_stored")
                     else self.tr("No password is kept in the keyring (the server may not "
                                  "need one)."))
        if info.get("problem"):
            self.show_error(str(info["problem"]))

    # -------------------------------------------------------------------- state

    def changed(self) -> bool:
        return self.url.text().strip() != self._saved

    def request(self) -> bool:
        """Check the typed URL; ask for it to be saved when it changed. False (the error
        beside the field) when it does not read."""
        text = self.url.text().strip()
        if not self.changed():
            return True
        if text:
            try:
                text = parse_database_url(text, "url").display
            except InvalidInput as exc:
                self.show_error(self._refusal(exc))
                return False
        self._saved = text
        self.chosen.emit(text)
        return True

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(True)
        self.url.setAccessibleDescription(message)

    def clear_error(self) -> None:
        self.error.setVisible(False)
        self.url.setAccessibleDescription("")

    def say(self, text: str) -> None:
        self.status.setText(text)

    def _refusal(self, exc: InvalidInput) -> str:
        if "holds a password" in str(exc):  # (here the password has a field of its own)
            return self.tr("The URL holds a password: leave it out, and save the password "
                           "below (it is kept in the keyring).")
        return _words(exc)

    def _password_typed(self, text: str) -> None:
        self.password_button.setEnabled(bool(text))

    def _save_password(self) -> None:
        url = self.url.text().strip()
        if not url:
            self.show_error(self.tr("Give the shared catalogue's URL first."))
            return
        try:
            url = parse_database_url(url, "url").display
        except InvalidInput as exc:
            self.show_error(self._refusal(exc))
            return
        secret = self.password.text()
        self.password.clear()
        self.password_requested.emit(url, secret)


def _muted(label: QLabel) -> None:
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText,
                     palette.color(QPalette.ColorRole.PlaceholderText))
    label.setPalette(palette)


def _words(exc: InvalidInput) -> str:
    text = str(exc)
    return text[len("url: "):] if text.startswith("url: ") else text
