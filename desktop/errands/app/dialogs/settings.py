"""The Settings dialog: the model provider and its key, the global permission rules, the
guardrail numbers, how much history each automation keeps, and the app's own choices
(start at login, theme, language).

A "Tool servers" tab lists the MCP servers every agent run may use
(:mod:`.tool_servers_editor`). The dialog is passive. It shows the values it is given and says what the person asked for
in signals; whoever owns it (:mod:`.settings_flow`) talks to the engine and the keyring and
answers with :meth:`SettingsDialog.show_field_error`, :meth:`~SettingsDialog.set_key_stored`,
:meth:`~SettingsDialog.show_test_result` and :meth:`~SettingsDialog.saved`.

Engine settings are sent as the text the person typed: the engine checks them and a
refusal, which names the setting, comes back beside that field. Only the permission rules
are checked here as well, because the table has to become the JSON the engine stores. The
API key is never shown: the field only says whether one is stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...errors import InvalidInput
from ...settings import normalize
from .. import i18n
from ..theme import CHOICES, parse_choice, state_colors
from .table_errors import clear_table_error, show_table_error, without_field
from .catalogue_editor import CatalogueEditor
from .tool_servers_editor import SERVERS_KEY, ToolServersEditor, canonical_servers

# The engine settings this dialog edits, in the order they appear.
PROVIDER_KEYS = ("provider_base_url", "provider_model", "provider_timeout")
LIMIT_KEYS = ("concurrency", "min_interval", "grace", "parked_expiry", "unattended_expiry")
HISTORY_KEYS = ("run_history_limit", "output_log_limit")
RULES_KEY = "permission_rules"
ENGINE_KEYS = (*PROVIDER_KEYS, RULES_KEY, SERVERS_KEY, *LIMIT_KEYS, *HISTORY_KEYS)
API_KEY = "api_key"        # the field name errors about the key use (never a setting)
ACTIONS = ("allow", "ask", "deny")
# (code, name): the first two translated where shown, the others in their own language
LANGUAGES = (("", QT_TRANSLATE_NOOP("SettingsDialog", "System default")),
             ("en", QT_TRANSLATE_NOOP("SettingsDialog", "English")), *i18n.LANGUAGES)


def _rule_tools() -> tuple[str, ...]:
    from ...agent.permissions import RULE_TOOLS
    return RULE_TOOLS


def _canonical_rules(text: str) -> str | None:
    """The rules' canonical text, None when they do not parse."""
    try:
        return normalize(RULES_KEY, text)
    except InvalidInput:
        return None


class RulesEditor(QWidget):
    """The global permission rules as a table: tool, pattern, action; last match wins."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rules-editor")
        self.table = QTableWidget(0, 3, self)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
        self.table.setObjectName("rules-table")
        self.table.setAccessibleName(self.tr("Permission rules"))
        self.table.setHorizontalHeaderLabels([self.tr("Tool"), self.tr("Pattern"),
                                              self.tr("Action")])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.itemChanged.connect(lambda _item: self.changed.emit())
        self.table.itemSelectionChanged.connect(self._selection_changed)

        self.add_button = QPushButton(self.tr("Add rule"))
        self.add_button.setObjectName("rules-add")
        self.add_button.setAccessibleName(self.tr("Add a permission rule"))
        self.add_button.clicked.connect(lambda: self.add_rule())
        self.remove_button = QPushButton(self.tr("Remove rule"))
        self.remove_button.setObjectName("rules-remove")
        self.remove_button.setAccessibleName(self.tr("Remove the selected permission rules"))
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self.remove_selected)

        self.error = _error_label("rules-error", self)

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)

    # ----------------------------------------------------------------- contents

    def set_rules(self, text: str) -> None:
        try:
            rules = json.loads(text or "[]")
        except ValueError:
            rules = []
        self.table.setRowCount(0)
        for rule in rules if isinstance(rules, list) else []:
            if isinstance(rule, dict):
                self.add_rule(str(rule.get("tool", "*")), str(rule.get("pattern", "*")),
                              str(rule.get("action", "ask")), select=False)
        self.clear_error()

    def add_rule(self, tool: str = "run_command", pattern: str = "*", action: str = "ask", *,
                 select: bool = True) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        tools = QComboBox()
        tools.addItems(list(_rule_tools()))
        if tools.findText(tool) < 0:
            tools.addItem(tool)
        tools.setCurrentText(tool)
        actions = QComboBox()
        actions.addItems(list(ACTIONS))
        if actions.findText(action) < 0:
            actions.addItem(action)
        actions.setCurrentText(action)
        for combo in (tools, actions):
            combo.currentTextChanged.connect(lambda _text: self.changed.emit())
        self.table.setCellWidget(row, 0, tools)
        self.table.setItem(row, 1, QTableWidgetItem(pattern))
        self.table.setCellWidget(row, 2, actions)
        self._name_rows(row)  # a new row at the end: only it needs its name
        if select:
            self.table.setCurrentCell(row, 1)
            self.table.editItem(self.table.item(row, 1))
        self.changed.emit()
        return row

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}
                      | ({self.table.currentRow()} if self.table.currentRow() >= 0
                         and not self.table.selectedIndexes() else set()), reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self._name_rows(min(rows, default=0))
        self.changed.emit()

    def rules(self) -> list[dict[str, str]]:
        out = []
        for row in range(self.table.rowCount()):
            tool = self.table.cellWidget(row, 0)
            action = self.table.cellWidget(row, 2)
            item = self.table.item(row, 1)
            out.append({"tool": tool.currentText() if isinstance(tool, QComboBox) else "",
                        "pattern": item.text() if item is not None else "",
                        "action": action.currentText() if isinstance(action, QComboBox)
                        else ""})
        return out

    def text(self) -> str:
        return json.dumps(self.rules())

    def validate(self) -> str | None:
        """The rules' canonical text, or None after showing what is wrong (and selecting
        the rule at fault)."""
        try:
            canonical = normalize(RULES_KEY, self.text())
        except InvalidInput as exc:
            self.show_error(exc.field, str(exc))
            return None
        self.clear_error()
        return canonical

    # ------------------------------------------------------------------- errors

    def show_error(self, field: str, message: str) -> None:
        """``field`` like ``permission_rules[2].pattern`` selects that rule."""
        show_table_error(self.table, self.error, field, message, self.tr("Rule {0}: {1}"))

    def clear_error(self) -> None:
        clear_table_error(self.table, self.error)

    def _name_rows(self, first: int = 0) -> None:
        """Rows ``first`` and below get their names ("Tool of rule 3"), which say the row's
        number: a screen reader hears where it is."""
        for row in range(first, self.table.rowCount()):
            for column, what in ((0, self.tr("Tool of rule {0}")),
                                 (2, self.tr("Action of rule {0}"))):
                widget = self.table.cellWidget(row, column)
                if widget is not None:
                    widget.setAccessibleName(what.format(row + 1))

    def _selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectedIndexes()))


def _error_label(name: str, parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setVisible(False)
    _colour(label, "error")
    return label


def _colour(label: QLabel, state: str) -> None:
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, state_colors()[state])
    label.setPalette(palette)


def _scrolling(page: QWidget) -> QScrollArea:
    """A form page that scrolls rather than clips when errors make it taller."""
    area = QScrollArea()
    area.setObjectName(page.objectName() + "-scroll" if page.objectName() else "page-scroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(page)
    area.setAccessibleName(page.accessibleName() or QApplication.translate("Settings", "Page"))
    return area


def _hint(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText,
                     palette.color(QPalette.ColorRole.PlaceholderText))
    label.setPalette(palette)
    return label


class SettingsDialog(QDialog):
    """Settings, edited here and applied by the owner (see the module text)."""

    save_requested = Signal(dict)             # {setting key: text}, only what changed
    key_save_requested = Signal(str)          # store this API key in the keyring
    key_remove_requested = Signal()
    test_requested = Signal(str, str)         # base URL, model (as typed)
    theme_chosen = Signal(str)                # "system", "light" or "dark"
    language_chosen = Signal(str)             # "" (system default) or a language code
    autostart_changed = Signal(bool)          # start at login: the owner decides how
    server_secret_requested = Signal(str, str, str)  # an MCP server's name, URL, header value
    catalogue_chosen = Signal(str)            # the catalogue's URL from the next start ("")
    catalogue_password_requested = Signal(str, str)  # its URL, a password for the keyring

    def __init__(self, parent: QWidget | None = None, *, values: Mapping[str, str],
                 key_stored: bool, theme: str, autostart: bool = False,
                 language: str = "", catalogue: Mapping[str, object] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle(self.tr("Settings"))
        self.setAccessibleName(self.tr("Settings"))
        self.setModal(True)
        self._values = {k: str(values.get(k, "")) for k in ENGINE_KEYS}
        self._theme = parse_choice(theme)
        self._autostart = autostart
        self._language = language
        self._saving = False
        self.fields: dict[str, QLineEdit] = {}
        self.errors: dict[str, QLabel] = {}
        self._tab_of: dict[str, int] = {}

        self.tabs = QTabWidget(self)
        self.tabs.tabBar().setAccessibleName(self.tr("Sections of the settings"))
        self.tabs.setObjectName("settings-tabs")
        self.tabs.setAccessibleName(self.tr("Settings sections"))
        self.tabs.addTab(_scrolling(self._general_page()), self.tr("General"))
        self.tabs.addTab(_scrolling(self._provider_page(key_stored)),
                         self.tr("Model provider"))
        self.tabs.addTab(self._rules_page(), self.tr("Permissions"))
        self.tabs.addTab(self._servers_page(), self.tr("Tool servers"))
        self.tabs.addTab(_scrolling(self._limits_page()), self.tr("Limits"))
        self.tabs.addTab(_scrolling(self._history_page()), self.tr("History"))
        self.catalogue = CatalogueEditor(dict(catalogue or {}))
        _colour(self.catalogue.error, "error")
        self.catalogue.chosen.connect(self.catalogue_chosen)
        self.catalogue.password_requested.connect(self.catalogue_password_requested)
        self._catalogue_tab = self.tabs.count()
        self.tabs.addTab(_scrolling(self.catalogue), self.tr("Catalogue"))

        self.general_error = _error_label("general-error", self)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText(self.tr("Save"))
        self.save_button.setAccessibleName(self.tr("Save the settings"))
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setAccessibleName(self.tr("Close without saving"))
        self.buttons.accepted.connect(self.request_save)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.general_error)
        layout.addWidget(self.buttons)
        self.setMinimumSize(560, 500)
        self.resize(640, 560)

    # -------------------------------------------------------------------- pages

    def _form(self) -> tuple[QWidget, QFormLayout]:
        page = QWidget()
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return page, form

    def _field(self, form: QFormLayout, key: str, label: str, hint: str, *,
               placeholder: str = "", width: int | None = None) -> QLineEdit:
        edit = QLineEdit(self._values.get(key, ""))
        edit.setObjectName(f"field-{key}")
        edit.setAccessibleName(label.rstrip(":"))
        edit.setPlaceholderText(placeholder)
        edit.setClearButtonEnabled(False)
        if width is not None:
            edit.setMaximumWidth(width)
        edit.textChanged.connect(lambda _text, k=key: self.clear_field_error(k))
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(edit)
        if hint:
            column.addWidget(_hint(hint, box))
        error = _error_label(f"error-{key}", box)
        column.addWidget(error)
        form.addRow(label, box)
        self.fields[key] = edit
        self.errors[key] = error
        self._tab_of[key] = self.tabs.count()
        return edit

    def _general_page(self) -> QWidget:
        page, form = self._form()
        self.autostart = QCheckBox(self.tr("Start Errands when I log in"))
        self.autostart.setObjectName("autostart")
        self.autostart.setAccessibleName(self.tr("Start at login"))
        self.autostart.setChecked(self._autostart)
        form.addRow(self.tr("Start at login:"), self.autostart)

        self.theme = QComboBox()
        self.theme.setObjectName("theme")
        self.theme.setAccessibleName(self.tr("Theme"))
        names = {"system": self.tr("System"), "light": self.tr("Light"),
                 "dark": self.tr("Dark")}
        for choice in CHOICES:
            self.theme.addItem(names[choice], choice)
        self.theme.setCurrentIndex(max(0, self.theme.findData(self._theme)))
        form.addRow(self.tr("Theme:"), self.theme)

        self.language = QComboBox()
        self.language.setObjectName("language")
        self.language.setAccessibleName(self.tr("Language"))
        for code, name in LANGUAGES:
            self.language.addItem(self.tr(name) if code in ("", "en") else name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(self._language)))
        form.addRow(self.tr("Language:"), self.language)
        form.addRow("", _hint(self.tr("A new language applies the next time Errands starts."),
                              page))
        return page

    def _provider_page(self, key_stored: bool) -> QWidget:
        page, form = self._form()
        form.addRow(_hint(self.tr("Agent runs talk to an OpenAI-compatible API: a local "
                                  "server such as Ollama, or a hosted one."), page))
        self._field(form, "provider_base_url", self.tr("Base URL:"),
                    self.tr("The API root; the chat path is added to it."),
                    placeholder="http://127.0.0.1:11434/v1")
        self._field(form, "provider_model", self.tr("Model:"),
                    self.tr("Used by agent runs unless an automation names its own."),
                    placeholder="llama3.2")
        self._field(form, "provider_timeout", self.tr("Request timeout:"),
                    self.tr("How long one model request may take, e.g. 2m."), width=160)

        self.key_field = QLineEdit()
        self.key_field.setObjectName("field-api_key")
        self.key_field.setAccessibleName(self.tr("API key"))
        self.key_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_field.textChanged.connect(self._key_text_changed)
        self.key_field.returnPressed.connect(self._save_key)
        self.key_save_button = QPushButton(self.tr("Save key"))
        self.key_save_button.setObjectName("key-save")
        self.key_save_button.setAccessibleName(self.tr("Save the API key in the keyring"))
        self.key_save_button.setAutoDefault(False)
        self.key_save_button.setEnabled(False)
        self.key_save_button.clicked.connect(self._save_key)
        self.key_remove_button = QPushButton(self.tr("Remove key"))
        self.key_remove_button.setObjectName("key-remove")
        self.key_remove_button.setAccessibleName(self.tr("Remove the API key from the keyring"))
        self.key_remove_button.setAutoDefault(False)
        self.key_remove_button.clicked.connect(self._remove_key)
        self.key_status = _hint("", page)
        self.key_status.setObjectName("key-status")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.key_field, 1)
        row.addWidget(self.key_save_button)
        row.addWidget(self.key_remove_button)
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.key_status)
        self.errors[API_KEY] = _error_label("error-api_key", box)
        column.addWidget(self.errors[API_KEY])
        self._tab_of[API_KEY] = self.tabs.count()
        form.addRow(self.tr("API key:"), box)
        self.set_key_stored(key_stored)

        self.test_button = QPushButton(self.tr("Test"))
        self.test_button.setObjectName("provider-test")
        self.test_button.setAccessibleName(self.tr("Test the model provider"))
        self.test_button.setAutoDefault(False)
        self.test_button.clicked.connect(self._request_test)
        self.test_result = QLabel()
        self.test_result.setObjectName("test-result")
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.test_result.setAccessibleName(self.tr("Test result"))
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignTop)
        test_row.addWidget(self.test_result, 1)
        form.addRow("", test_row)
        return page

    def _rules_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(_hint(self.tr(
            "What agent runs may do without asking. A rule names a tool (or an effect such "
            "as write, or * for all), a pattern for the path, command or URL (* for every "
            "call) and an action. The last rule that matches a call decides; a deny here "
            "cannot be lifted by an automation."), page))
        self.rules = RulesEditor(page)
        self.rules.set_rules(self._values.get(RULES_KEY, "[]"))
        self.rules.changed.connect(self._rules_changed)
        layout.addWidget(self.rules, 1)
        self._tab_of[RULES_KEY] = self.tabs.count()
        return page

    def _servers_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(_hint(self.tr(
            "MCP servers whose tools every agent run may use, beside its own. Give a command "
            "that starts one (npx -y @modelcontextprotocol/server-filesystem ~/notes) or the "
            "URL of one that runs elsewhere. Each call of their tools asks you first unless "
            "a permission rule for mcp allows it (pattern server.tool)."), page))
        self.servers = ToolServersEditor(page)
        _colour(self.servers.error, "error")
        self.servers.set_servers(self._values.get(SERVERS_KEY, "[]"))
        self.servers.secret_requested.connect(self.server_secret_requested)
        layout.addWidget(self.servers, 1)
        self._tab_of[SERVERS_KEY] = self.tabs.count()
        return page

    def _limits_page(self) -> QWidget:
        page, form = self._form()
        self._field(form, "concurrency", self.tr("Runs at once:"),
                    self.tr("How many runs may be active at the same time (1 to 1000)."),
                    width=160)
        self._field(form, "min_interval", self.tr("Minimum interval:"),
                    self.tr("The shortest gap allowed between two fires, e.g. 60s or 5m."),
                    width=160)
        self._field(form, "grace", self.tr("Grace window:"),
                    self.tr("How late a due fire may still run normally, e.g. 2m."),
                    width=160)
        self._field(form, "parked_expiry", self.tr("Parked runs expire after:"),
                    self.tr("How long a run waiting for your decision waits before it "
                            "expires, e.g. 24h."), width=160)
        self._field(form, "unattended_expiry", self.tr("Pause if unanswered for:"),
                    self.tr("How long an automation's runs may wait for a decision nobody "
                            "gives before the automation is paused, e.g. 7d."), width=160)
        return page

    def _history_page(self) -> QWidget:
        """What each automation keeps: its own page, so Limits fits without scrolling."""
        page, form = self._form()
        form.addRow(_hint(self.tr("Errands keeps each automation's newest runs and output "
                                  "logs; older ones are deleted as new runs end."), page))
        self._field(form, "run_history_limit", self.tr("Runs kept:"),
                    self.tr("How many ended runs each automation keeps, 1 to 1,000,000; "
                            "older ones are deleted with their output and conversations. An "
                            "automation's own history limit overrides it."), width=160)
        self._field(form, "output_log_limit", self.tr("Output kept:"),
                    self.tr("How much run output each automation keeps on disk, e.g. 50MB "
                            "(1KB to 1TB); its oldest logs are deleted first."), width=160)
        return page

    # ------------------------------------------------------------------ reading

    def changes(self) -> dict[str, str]:
        """The engine settings whose text differs from what was given (rules: only when
        they are valid; see :meth:`request_save`)."""
        out = {}
        for key, edit in self.fields.items():
            text = edit.text().strip()
            if text != self._values.get(key, ""):
                out[key] = text
        rules = self.rules.text()
        if _canonical_rules(rules) != _canonical_rules(self._values.get(RULES_KEY, "[]")):
            out[RULES_KEY] = rules
        servers = self.servers.text()
        if canonical_servers(servers) != canonical_servers(self._values.get(SERVERS_KEY)
                                                           or "[]"):
            out[SERVERS_KEY] = servers
        return out

    def theme_choice(self) -> str:
        return str(self.theme.currentData())

    def language_choice(self) -> str:
        return str(self.language.currentData())

    # ----------------------------------------------------------------- actions

    def request_save(self) -> None:
        """Send what changed: the engine settings (all but invalid rules), the key when
        one is typed, and the app's own choices. Closes once :meth:`saved` finds no error."""
        if self._saving:
            return
        self.general_error.setVisible(False)
        for key in self.fields:  # what is sent again is judged again
            self.clear_field_error(key)
        if not self.catalogue.request():  # (checked here: nothing is saved while it is wrong)
            self.tabs.setCurrentIndex(self._catalogue_tab)
            self.catalogue.url.setFocus()
            return
        if self.theme_choice() != self._theme:
            self._theme = parse_choice(self.theme_choice())
            self.theme_chosen.emit(self._theme)
        if self.language_choice() != self._language:
            self._language = self.language_choice()
            self.language_chosen.emit(self._language)
        if self.autostart.isChecked() != self._autostart:
            self._autostart = self.autostart.isChecked()
            self.autostart_changed.emit(self._autostart)
        changes = self.changes()
        if RULES_KEY in changes and self.rules.validate() is None:
            del changes[RULES_KEY]
            self.tabs.setCurrentIndex(self._tab_of[RULES_KEY])
        if SERVERS_KEY in changes and self.servers.validate() is None:
            del changes[SERVERS_KEY]
            self.tabs.setCurrentIndex(self._tab_of[SERVERS_KEY])
        key = self.key_field.text()
        if not changes and not key:
            self.saved()
            return
        self._set_saving(True)
        if key:
            self.key_save_requested.emit(key)
        self.save_requested.emit(changes)

    def saved(self) -> None:
        """The owner applied the last save: what shows no error is now the baseline; the
        dialog closes unless an error is shown."""
        self._set_saving(False)
        for key, edit in self.fields.items():
            if self.errors[key].isHidden():
                self._values[key] = edit.text().strip()
        if self.rules.error.isHidden():
            self._values[RULES_KEY] = self.rules.text()
        if self.servers.error.isHidden():
            self._values[SERVERS_KEY] = self.servers.text()
        if self.has_errors():
            self._show_first_error()
        elif self.isVisible():  # (not when it was cancelled while saving)
            self.accept()

    def has_errors(self) -> bool:
        return (any(not e.isHidden() for e in self.errors.values())
                or not self.rules.error.isHidden() or not self.servers.error.isHidden()
                or not self.catalogue.error.isHidden() or not self.general_error.isHidden())

    def error_text(self, key: str) -> str:
        """The error shown beside a field (``permission_rules`` for the table), or ""."""
        label = (self.rules.error if key == RULES_KEY else self.servers.error
                 if key == SERVERS_KEY else self.errors.get(key))
        return label.text() if label is not None and not label.isHidden() else ""

    def show_field_error(self, key: str, message: str) -> None:
        """A refusal beside its field: ``key`` is the setting (``concurrency``), a rule
        (``permission_rules[1].tool``), ``api_key``, or anything else (shown below)."""
        base = key.split("[", 1)[0].split(".", 1)[0]
        if base == RULES_KEY:
            self.rules.show_error(key, message)
        elif base == SERVERS_KEY:
            self.servers.show_error(key, message)
        elif base in self.errors:
            label = self.errors[base]
            label.setText(without_field(message) if message.startswith(key + ":")
                          else message)
            label.setVisible(True)
            field = self.fields.get(base, self.key_field if base == API_KEY else None)
            if field is not None:
                field.setAccessibleDescription(label.text())
        else:
            self.general_error.setText(message)
            self.general_error.setVisible(True)
        if not self._saving:
            self._show_first_error()

    def clear_field_error(self, key: str) -> None:
        label = self.errors.get(key)
        if label is not None:
            label.clear()
            label.setVisible(False)
        field = self.fields.get(key, self.key_field if key == API_KEY else None)
        if field is not None:
            field.setAccessibleDescription("")

    def set_key_stored(self, stored: bool) -> None:
        """Whether the keyring holds a key (the field is emptied: the key is never shown)."""
        self.key_stored = stored
        self.key_field.clear()
        if stored:
            self.key_status.setText(self.tr("A key is stored in the system keyring."))
            self.key_field.setPlaceholderText(self.tr("Type a new key to replace it"))
        else:
            self.key_status.setText(self.tr("No key is stored. Local providers need none."))
            self.key_field.setPlaceholderText(self.tr("Paste the provider's API key"))
        self.key_remove_button.setEnabled(stored)
        self.clear_field_error(API_KEY)

    def show_test_result(self, ok: bool, text: str) -> None:
        self.test_button.setEnabled(True)
        self.test_result.setText(text)
        _colour(self.test_result, "success" if ok else "error")
        self.test_result.setAccessibleDescription(text)

    # ---------------------------------------------------------------- internals

    def _save_key(self) -> None:
        key = self.key_field.text()
        if key:
            self.clear_field_error(API_KEY)
            self.key_save_requested.emit(key)

    def _remove_key(self) -> None:
        self.clear_field_error(API_KEY)
        self.key_remove_requested.emit()

    def _key_text_changed(self, text: str) -> None:
        self.key_save_button.setEnabled(bool(text))
        self.clear_field_error(API_KEY)

    def _request_test(self) -> None:
        self.test_button.setEnabled(False)
        self.test_result.setText(self.tr("Testing the provider…"))
        palette = self.test_result.palette()
        palette.setColor(QPalette.ColorRole.WindowText,
                         self.palette().color(QPalette.ColorRole.WindowText))
        self.test_result.setPalette(palette)
        self.test_requested.emit(self.fields["provider_base_url"].text().strip(),
                                 self.fields["provider_model"].text().strip())

    def _rules_changed(self) -> None:
        if not self.rules.error.isHidden():
            self.rules.validate()  # the error goes as soon as the rules are right

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self.save_button.setEnabled(not saving)
        self.save_button.setText(self.tr("Saving…") if saving else self.tr("Save"))

    def _show_first_error(self) -> None:
        for key, label in self.errors.items():
            if not label.isHidden():
                self.tabs.setCurrentIndex(self._tab_of[key])
                return
        if not self.rules.error.isHidden():
            self.tabs.setCurrentIndex(self._tab_of[RULES_KEY])
        elif not self.servers.error.isHidden():
            self.tabs.setCurrentIndex(self._tab_of[SERVERS_KEY])
