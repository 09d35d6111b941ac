"""The form's "also when something happens" list: the event triggers of an automation
(changed files, a call to its web address, new mail, another automation's end), each
worded in the window's language, added through a small dialog and removed by a button.

It holds trigger documents (as ``Definition.to_dict`` writes a set's members, with their
ids), so what it does not change is saved exactly as it was loaded."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...definition import ParseContext, parse_trigger
from shiboken6 import isValid

from ...errors import ErrandsError, InvalidInput
from ...timeutil import utcnow
from .. import words

EVENT_KINDS = ("folder", "webhook", "mail", "automation")
DOC_ROLE = Qt.ItemDataRole.UserRole + 1


def _sentence(doc: dict[str, Any], titles: dict[str, str]) -> str:
    try:
        trigger = parse_trigger({k: v for k, v in doc.items() if k != "id"},
                                ParseContext(now=utcnow()))
    except InvalidInput as exc:
        return str(exc)
    return words.event_words(trigger, titles.get)


class EventTriggers(QGroupBox):
    """Event triggers being edited; ``changed`` after each add or remove."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Also when something happens"), parent)
        self.setAccessibleName(self.tr("Event triggers"))
        self.accounts: list[str] = []
        # logs in to a mail account and says how that went (the controller's, on the engine)
        self.tester: Callable[[str], Awaitable[str]] | None = None
        self.automations: list[tuple[str, str]] = []   # (id, title), this one left out
        self.titles: dict[str, str] = {}
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Event triggers"))
        self.list.setMaximumHeight(120)
        self.list.currentRowChanged.connect(self._selected)
        self.empty = QLabel(self.tr("Nothing else starts it. Add a folder to watch, a web "
                                    "address, mail or another automation's end."))
        self.empty.setWordWrap(True)
        self.add_folder = QPushButton(self.tr("Folder…"))
        self.add_folder.setAccessibleName(self.tr("Add a folder to watch"))
        self.add_webhook = QPushButton(self.tr("Web address"))
        self.add_webhook.setAccessibleName(self.tr("Add a web address that starts it"))
        self.add_mail = QPushButton(self.tr("Mail…"))
        self.add_mail.setAccessibleName(self.tr("Add new mail as a trigger"))
        self.add_after = QPushButton(self.tr("Another automation…"))
        self.add_after.setAccessibleName(self.tr("Add another automation's end as a trigger"))
        self.remove = QPushButton(self.tr("Remove"))
        self.remove.setAccessibleName(self.tr("Remove the chosen event trigger"))
        self.remove.setEnabled(False)
        self.add_folder.clicked.connect(self._folder)
        self.add_webhook.clicked.connect(lambda: self.add({"kind": "webhook"}))
        self.add_mail.clicked.connect(self._mail)
        self.add_after.clicked.connect(self._after)
        self.remove.clicked.connect(self._remove)
        # two rows, so the buttons fit a small window in any language
        buttons = QGridLayout()
        buttons.addWidget(QLabel(self.tr("Add:")), 0, 0)
        buttons.addWidget(self.add_folder, 0, 1)
        buttons.addWidget(self.add_webhook, 0, 2)
        buttons.addWidget(self.add_mail, 1, 1)
        buttons.addWidget(self.add_after, 1, 2)
        buttons.setColumnStretch(3, 1)
        buttons.addWidget(self.remove, 0, 4)
        column = QVBoxLayout(self)
        column.addWidget(self.empty)
        column.addWidget(self.list)
        column.addLayout(buttons)
        self._refresh()

    # ------------------------------------------------------------------ data

    def set_choices(self, accounts: list[str], automations: list[tuple[str, str]]) -> None:
        self.accounts = list(accounts)
        self.automations = list(automations)
        self.titles = dict(automations)
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setText(_sentence(item.data(DOC_ROLE), self.titles))

    def load(self, members: list[dict[str, Any]]) -> None:
        self.list.clear()
        for doc in members:
            self._append(copy.deepcopy(doc))
        self._refresh()

    def members(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(self.list.item(row).data(DOC_ROLE))
                for row in range(self.list.count())]

    def add(self, doc: dict[str, Any]) -> None:
        self._append(doc)
        self.list.setCurrentRow(self.list.count() - 1)
        self._refresh()
        self.changed.emit()

    def _append(self, doc: dict[str, Any]) -> None:
        item = QListWidgetItem(_sentence(doc, self.titles))
        item.setData(DOC_ROLE, doc)
        self.list.addItem(item)

    def _refresh(self) -> None:
        empty = self.list.count() == 0
        self.empty.setVisible(empty)
        self.list.setVisible(not empty)
        self.remove.setEnabled(not empty and self.list.currentRow() >= 0)

    def _selected(self, row: int) -> None:
        self.remove.setEnabled(row >= 0)

    def _remove(self) -> None:
        row = self.list.currentRow()
        if row >= 0:
            self.list.takeItem(row)
            self._refresh()
            self.changed.emit()

    # ------------------------------------------------------------------ adding

    def _folder(self) -> None:
        dialog = FolderDialog(self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.add(dialog.trigger())

    def _mail(self) -> None:
        dialog = MailDialog(self.accounts, self, self.tester)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.add(dialog.trigger())

    def _after(self) -> None:
        dialog = AfterDialog(self.automations, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.add(dialog.trigger())


class _Dialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addLayout(self.form)
        column.addWidget(self.note)
        column.addWidget(self.buttons)

    def say(self, text: str) -> None:
        self.note.setText(text)
        self.note.show()


class FolderDialog(_Dialog):
    """A folder, which files, which changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Watch a folder"), parent)
        self.setMinimumWidth(520)
        self.path = QLineEdit()
        self.path.setAccessibleName(self.tr("Folder to watch"))
        self.path.setPlaceholderText(self.tr("/home/me/Downloads"))
        choose = QPushButton(self.tr("Choose…"))
        choose.setAccessibleName(self.tr("Choose the folder to watch"))
        choose.clicked.connect(self._choose)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.path, 1)
        line.addWidget(choose)
        self.globs = QLineEdit()
        self.globs.setAccessibleName(self.tr("Only files like"))
        self.globs.setPlaceholderText(self.tr("every file; or e.g. *.pdf *.csv"))
        self.only_added = QCheckBox(self.tr("Only when a file is added"))
        self.form.addRow(self.tr("&Folder"), row)
        self.form.addRow(self.tr("&Only files like"), self.globs)
        self.form.addRow("", self.only_added)

    def _choose(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Folder to watch"),
                                                  self.path.text())
        if chosen:
            self.path.setText(chosen)

    def trigger(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"kind": "folder", "path": self.path.text().strip()}
        globs = self.globs.text().split()
        if globs:
            doc["include"] = globs
        if self.only_added.isChecked():
            doc["changes"] = ["created", "moved"]
        return doc

    def accept(self) -> None:
        import os
        path = os.path.expanduser(self.path.text().strip())
        if not path or not os.path.isdir(path):
            self.say(self.tr("Choose a folder that exists."))
            self.path.setFocus()
            return
        self.path.setText(os.path.abspath(path))
        super().accept()


class MailDialog(_Dialog):
    """An account, and which mail."""

    def __init__(self, accounts: list[str], parent: QWidget | None = None,
                 tester: Callable[[str], Awaitable[str]] | None = None) -> None:
        super().__init__(self.tr("New mail"), parent)
        self.setMinimumWidth(460)
        self.tester = tester
        self.account = QComboBox()
        self.account.setAccessibleName(self.tr("Mail account"))
        for name in accounts:
            self.account.addItem(name, name)
        self.test_button = QPushButton(self.tr("Test"))
        self.test_button.setAccessibleName(self.tr("Test the mail account"))
        self.test_button.setEnabled(bool(accounts) and tester is not None)
        self.test_button.clicked.connect(self._test)
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        self.test_result.setAccessibleName(self.tr("How the test went"))
        chooser = QWidget()
        line = QHBoxLayout(chooser)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.account, 1)
        line.addWidget(self.test_button)
        self.sender = QLineEdit()
        self.sender.setAccessibleName(self.tr("Only mail from"))
        self.sender.setPlaceholderText(self.tr("anyone; or e.g. billing@example.com"))
        self.subject = QLineEdit()
        self.subject.setAccessibleName(self.tr("Only subjects with"))
        self.subject.setPlaceholderText(self.tr("any subject; or e.g. Invoice"))
        self.form.addRow(self.tr("&Account"), chooser)
        self.form.addRow("", self.test_result)
        self.form.addRow(self.tr("Only mail &from"), self.sender)
        self.form.addRow(self.tr("Only &subjects with"), self.subject)
        if not accounts:
            self.say(self.tr("No mail account is set up yet. Add one in a terminal with: "
                             "errands mail add NAME --address ME --imap-host HOST"))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def _test(self) -> None:
        if self.tester is None:
            return
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("Logging in…"))
        asyncio.ensure_future(self._tested(self.tester(self.account.currentData())))

    async def _tested(self, pending: Awaitable[str]) -> None:
        try:
            said = self.tr("It works: %1").replace("%1", await pending)
        except ErrandsError as exc:
            said = self.tr("It does not work: %1").replace("%1", str(exc))
        if isValid(self):
            self.test_result.setText(said)
            self.test_button.setEnabled(True)

    def trigger(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"kind": "mail", "account": self.account.currentData()}
        if self.sender.text().strip():
            doc["sender"] = self.sender.text().strip()
        if self.subject.text().strip():
            doc["subject"] = self.subject.text().strip()
        return doc


class AfterDialog(_Dialog):
    """Another automation, and which of its ends."""

    def __init__(self, automations: list[tuple[str, str]], parent: QWidget | None = None
                 ) -> None:
        super().__init__(self.tr("Another automation's end"), parent)
        self.setMinimumWidth(480)
        self.automation = QComboBox()
        self.automation.setAccessibleName(self.tr("Automation"))
        for ident, title in sorted(automations, key=lambda a: a[1].lower()):
            self.automation.addItem(title, ident)
        self.states = {state: QCheckBox(text) for state, text in (
            ("succeeded", self.tr("succeeds")), ("failed", self.tr("fails")),
            ("cancelled", self.tr("is stopped")), ("expired", self.tr("expires unanswered")))}
        self.states["succeeded"].setChecked(True)
        ends = QWidget()
        line = QHBoxLayout(ends)
        line.setContentsMargins(0, 0, 0, 0)
        for box in self.states.values():
            line.addWidget(box)
        line.addStretch(1)
        self.form.addRow(self.tr("&When"), self.automation)
        self.form.addRow("", ends)
        if not automations:
            self.say(self.tr("There is no other automation yet."))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def trigger(self) -> dict[str, Any]:
        return {"kind": "automation", "automation": self.automation.currentData(),
                "states": [s for s, box in self.states.items() if box.isChecked()]}

    def accept(self) -> None:
        if not any(box.isChecked() for box in self.states.values()):
            self.say(self.tr("Tick at least one way it may end."))
            return
        super().accept()


def split_members(trigger: dict[str, Any]) -> tuple[dict[str, Any] | None,
                                                     list[dict[str, Any]]]:
    """A definition's trigger document as (what the schedule picker shows, the event
    members): a set's clock members go to the picker (one as itself, several as a set),
    its event members to the list."""
    if trigger.get("kind") in EVENT_KINDS:
        return None, [{"id": trigger["kind"], **trigger}]
    if trigger.get("kind") != "set":
        return trigger, []
    members = list(trigger.get("triggers") or [])
    clock = [m for m in members if m.get("kind") not in EVENT_KINDS]
    events = [m for m in members if m.get("kind") in EVENT_KINDS]
    if not clock:
        return None, events
    if len(clock) == 1:
        return clock[0], events
    return {"kind": "set", "triggers": clock}, events


def join_members(clock: dict[str, Any], events: list[dict[str, Any]],
                 was_set: bool, clock_id: str | None) -> dict[str, Any]:
    """The trigger document the picker's ``clock`` and the event list make together
    ("manual" in the picker with events: the events alone)."""
    members: list[dict[str, Any]] = []
    if clock.get("kind") == "set":
        members = list(clock.get("triggers") or [])
    elif clock.get("kind") != "manual":
        members = [{**({"id": clock_id} if clock_id else {}),
                    **{k: v for k, v in clock.items() if k != "id"}}]
    members += events
    if not members:
        return {"kind": "manual"}
    if len(members) == 1 and not was_set:
        return {k: v for k, v in members[0].items() if k != "id"}
    return {"kind": "set", "triggers": members}
