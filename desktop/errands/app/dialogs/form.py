"""The create/edit form: one dialog that builds an automation's definition document.

It never calls the engine. Save (or Ctrl+Return) checks the document with the same parser
the engine uses and emits ``submitted(doc, expected_revision)``; the owner calls the engine
and answers with ``accept_saved()``, ``show_errors(exc)`` or ``show_conflict(revision)``.
A refusal lands under the field it names, and nothing typed is lost.

Fields the form does not show (permission rules, retry backoff, origin, worktree, paused)
are carried over unchanged from the automation being edited.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...definition import (
    ANY_MACHINE,
    RECURRING,
    TOOL_NAMES,
    AgentTask,
    Definition,
    ManualTrigger,
    ParseContext,
    Permissions,
    parse_definition,
    parse_rules,
    put_trigger,
    trigger_of,
)
from ...errors import Conflict, ErrandsError, InvalidInput
from .event_triggers import EventTriggers, join_members, split_members
from ...records import Automation, Machines
from ...schedule import wall_clock
from ...tool_servers import server_from_line, server_line
from ...timeutil import (
    format_duration,
    format_instant,
    parse_duration,
    parse_instant,
    utcnow,
    zone,
)
from .. import words
from .fields import DurationEdit, ErrorLabel
from .schedule_picker import SchedulePicker
from .script_editor import ScriptEditor

# Which row a refusal's field belongs under (the longest matching prefix wins).
FIELD_SLOTS = {
    "title": "title", "runner": "runner", "runner.kind": "runner",
    "runner.prompt": "prompt", "runner.model": "model", "runner.command": "command",
    "runner.message": "message", "runner.source": "script", "runner.limits": "script",
    "runner.mcp_servers": "servers",
    "workdir": "workdir", "runs_on": "runs_on",
    "context": "context", "context.max_history_tokens": "history",
    "stop": "stop", "stop.max_runs": "max_runs", "stop.until": "until",
    "misfire": "misfire", "catch_up_max_age": "catch_up", "overlap": "overlap",
    "policy": "policies", "policy.retry": "retry", "policy.timeout": "timeout",
    "policy.max_steps": "max_steps", "policy.notify": "notify",
    "policy.failure_notify_after": "failure_notify", "policy.pause_after_failures": "pause_after",
    "policy.jitter": "jitter", "permissions": "permissions",
}
DEFAULT_PERMISSIONS = {"mode": "ask", "tools": [], "rules": [], "untrusted_ok": []}
_NOW_REVISION = re.compile(r"now (\d+)\)")


def _fixed(widget: QWidget) -> QWidget:
    """A field that keeps its natural width in a form whose fields grow."""
    widget.setSizePolicy(QSizePolicy.Policy.Fixed, widget.sizePolicy().verticalPolicy())
    return widget


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class AutomationForm(QDialog):
    """Create an automation (``automation=None``) or edit one."""

    submitted = Signal(dict, object)    # the definition document, expected revision or None
    reload_requested = Signal()         # the user chose to discard and reload after a conflict

    def __init__(self, parent: QWidget | None = None, *, zone_default: str,
                 automation: Automation | None = None,
                 clock: Callable[[], datetime] = utcnow) -> None:
        super().__init__(parent)
        self.setObjectName("automationForm")
        self.zone_default = zone_default
        self.clock = clock
        self.automation: Automation | None = None
        self.busy = False
        self.conflict_revision: int | None = None
        self._base: dict[str, Any] = {}
        self._context_touched = False
        self._was_set = False            # the loaded trigger was a set (its ids are kept)
        self._clock_id: str | None = None
        self._machines: Machines | None = None  # (a shared catalogue's: set_machines)
        self._runs_on_touched = False
        self.slots: dict[str, tuple[ErrorLabel, int, QWidget]] = {}
        self.setWindowTitle(self.tr("New automation"))
        self.setSizeGripEnabled(True)
        self.resize(720, 640)

        # -- top: what is being edited, refusals without a field, the conflict banner
        self.heading = QLabel()
        self.heading.setAccessibleName(self.tr("Revision"))
        self.general_error = ErrorLabel(None)
        self.general_error.setAccessibleName(self.tr("Problem"))
        self.conflict = QFrame()
        self.conflict.setFrameShape(QFrame.Shape.StyledPanel)
        self.conflict.setAccessibleName(self.tr("Changed elsewhere"))
        self.conflict_text = QLabel()
        self.conflict_text.setWordWrap(True)
        self.conflict_text.setTextFormat(Qt.TextFormat.PlainText)
        self.reload_button = QPushButton(self.tr("Reload"))
        self.reload_button.setAccessibleName(self.tr("Reload, discarding my changes"))
        self.overwrite_button = QPushButton(self.tr("Save anyway"))
        self.overwrite_button.setAccessibleName(self.tr("Save anyway, overwriting the other "
                                                        "change"))
        self.reload_button.clicked.connect(self._reload_clicked)
        self.overwrite_button.clicked.connect(self._overwrite_clicked)
        banner = QHBoxLayout(self.conflict)
        banner.addWidget(self.conflict_text, 1)
        banner.addWidget(self.reload_button)
        banner.addWidget(self.overwrite_button)
        self.conflict.setVisible(False)

        self.tabs = QTabWidget()
        self.tabs.tabBar().setAccessibleName(self.tr("Sections of the form"))
        self.tabs.setAccessibleName(self.tr("Sections"))
        self.tabs.setDocumentMode(True)
        self._build_task_tab()
        self._build_schedule_tab()
        self._build_permissions_tab()
        self._build_policies_tab()

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setToolTip(self.tr("Save (Ctrl+Return)"))
        self.save_button.setAccessibleName(self.tr("Save"))
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAccessibleName(self.tr("Cancel"))
        cancel.setToolTip(self.tr("Close without saving (Esc)"))
        self.save_button.clicked.connect(lambda: self.submit())
        self.buttons.rejected.connect(self.reject)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda: self.submit())

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.general_error)
        layout.addWidget(self.conflict)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.buttons)

        self._runner_changed()
        self._permissions_changed()
        self._stop_changed()
        self._schedule_changed()
        self._discarding = False
        self.discard_box: QMessageBox | None = None
        if automation is not None:
            self.load(automation)
        else:
            self.heading.setVisible(False)
        self.mark_clean()
        self.title_edit.setFocus()

    # ------------------------------------------------------------------ building

    def _tab(self, title: str, name: str) -> tuple[QWidget, int]:
        page = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(page)
        scroll.setAccessibleName(name)
        index = self.tabs.addTab(scroll, title)
        return page, index

    def _slot(self, key: str, widget: QWidget, tab: int, extra: QWidget | None = None
              ) -> QWidget:
        """``widget`` with an error line under it, registered under ``key``."""
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        if extra is not None:
            column.addWidget(extra)
        error = ErrorLabel(widget)
        column.addWidget(error)
        holder.setFocusProxy(widget)
        self.slots[key] = (error, tab, widget)
        return holder

    def _form(self, parent: QWidget) -> QFormLayout:
        form = QFormLayout(parent)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return form

    def _build_task_tab(self) -> None:
        page, tab = self._tab(self.tr("Task"), self.tr("Task"))
        form = self._form(page)
        self.title_edit = QLineEdit()
        self.title_edit.setMaxLength(120)
        self.title_edit.setPlaceholderText(self.tr("e.g. Morning briefing"))
        self.title_edit.setAccessibleName(self.tr("Title"))
        form.addRow(self.tr("&Title"), self._slot("title", self.title_edit, tab))

        self.runner_box = QComboBox()
        self.runner_box.addItem(self.tr("An agent, following a prompt"), "agent")
        self.runner_box.addItem(self.tr("A command"), "command")
        self.runner_box.addItem(self.tr("A reminder (a notification)"), "notify")
        self.runner_box.addItem(self.tr("A script (JavaScript in a sandbox)"), "script")
        self.runner_box.setAccessibleName(self.tr("What to run"))
        self.runner_box.currentIndexChanged.connect(self._runner_changed)
        form.addRow(self.tr("&Runs"), self._slot("runner", self.runner_box, tab))

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setPlaceholderText(self.tr("What the agent should do, e.g. "
                                                    "Summarize today's email"))
        self.prompt_edit.setAccessibleName(self.tr("Prompt"))
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setMinimumHeight(90)
        self.model_edit = QLineEdit()
        self.model_edit.setPlaceholderText(self.tr("Default model"))
        self.model_edit.setAccessibleName(self.tr("Model"))
        self.command_edit = QPlainTextEdit()
        self.command_edit.setFont(mono)
        self.command_edit.setPlaceholderText(self.tr("e.g. ./backup.sh --quiet"))
        self.command_edit.setAccessibleName(self.tr("Command"))
        self.command_edit.setTabChangesFocus(True)
        self.command_edit.setMinimumHeight(90)
        self.message_edit = QPlainTextEdit()
        self.message_edit.setPlaceholderText(self.tr("What the notification says, e.g. "
                                                     "Call mom"))
        self.message_edit.setAccessibleName(self.tr("Message"))
        self.message_edit.setTabChangesFocus(True)
        self.message_edit.setMinimumHeight(60)
        self.script = ScriptEditor()
        self.script.document = self.document
        self.servers_edit = QPlainTextEdit()
        self.servers_edit.setPlaceholderText(self.tr(
            "MCP servers whose tools this agent may use, one a line: name=command or "
            "name=https://…/mcp (each call asks first; servers for every run are in "
            "Settings)"))
        self.servers_edit.setAccessibleName(self.tr("MCP servers"))
        self.servers_edit.setTabChangesFocus(True)
        self.servers_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 14)
        self.task_form = form
        self.prompt_row = self._slot("prompt", self.prompt_edit, tab)
        self.model_row = self._slot("model", self.model_edit, tab)
        self.command_row = self._slot("command", self.command_edit, tab)
        self.message_row = self._slot("message", self.message_edit, tab)
        self.script_row = self._slot("script", self.script, tab)
        self.servers_row = self._slot("servers", self.servers_edit, tab)
        self.servers_row.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Maximum)  # (the prompt grows)
        form.addRow(self.tr("&Prompt"), self.prompt_row)
        form.addRow(self.tr("&Model"), self.model_row)
        form.addRow(self.tr("&Command"), self.command_row)
        form.addRow(self.tr("M&essage"), self.message_row)
        form.addRow(self.tr("&Script"), self.script_row)
        form.addRow(self.tr("MCP ser&vers"), self.servers_row)

        self.workdir_edit = QLineEdit()
        self.workdir_edit.setPlaceholderText(self.tr("Its own folder in Errands' data"))
        self.workdir_edit.setAccessibleName(self.tr("Project folder"))
        self.workdir_button = QPushButton(self.tr("Choose…"))
        self.workdir_button.setAccessibleName(self.tr("Choose the project folder"))
        self.workdir_button.clicked.connect(self._choose_folder)
        folder = QWidget()
        row = QHBoxLayout(folder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.workdir_edit, 1)
        row.addWidget(self.workdir_button)
        folder.setFocusProxy(self.workdir_edit)
        form.addRow(self.tr("&Folder"), self._slot("workdir", folder, tab))

        # (shown on a shared catalogue only: set_machines)
        self.runs_on_box = QComboBox()
        self.runs_on_box.setAccessibleName(self.tr("Runs on"))
        self.runs_on_box.setToolTip(self.tr(
            "The computer whose Errands runs it. A command or a folder belongs to one "
            "computer; an agent or a reminder can run on any."))
        self.runs_on_box.activated.connect(self._runs_on_chosen)
        self.runs_on_row = self._slot("runs_on", self.runs_on_box, tab)
        form.addRow(self.tr("Runs &on"), self.runs_on_row)
        form.setRowVisible(self.runs_on_row, False)
        self.workdir_edit.textChanged.connect(self._runs_on_default)

        self.notify_box = QComboBox()
        for value, text in (("quiet", self.tr("Quietly: results wait in the history")),
                            ("every_run", self.tr("Tell me after every run")),
                            ("on_change", self.tr("Tell me when the result changes"))):
            self.notify_box.addItem(text, value)
        self.notify_box.setAccessibleName(self.tr("Notifications"))
        form.addRow(self.tr("&Notify"), self._slot("notify", self.notify_box, tab))

    def _build_schedule_tab(self) -> None:
        page, tab = self._tab(self.tr("Schedule"), self.tr("Schedule"))
        column = QVBoxLayout(page)
        self.picker = SchedulePicker(zone_default=self.zone_default, clock=self.clock)
        self.picker.changed.connect(self._schedule_changed)
        self.slots["trigger"] = (self.picker.errors["mode"], tab, self.picker.mode_box)
        column.addWidget(self.picker)
        self.events = EventTriggers()
        self.events.changed.connect(self._schedule_changed)
        column.addWidget(self.events)

        self.stop_group = QGroupBox(self.tr("Stop"))
        self.stop_group.setAccessibleName(self.tr("When it stops"))
        stop = QVBoxLayout(self.stop_group)
        self.stop_never = QLabel()
        self.stop_never.setWordWrap(True)
        self.max_runs_check = QCheckBox(self.tr("After"))
        self.max_runs_check.setAccessibleName(self.tr("Stop after a number of runs"))
        self.max_runs_spin = QSpinBox()
        self.max_runs_spin.setRange(1, 1_000_000)
        self.max_runs_spin.setValue(10)
        self.max_runs_spin.setSuffix(self.tr(" runs"))
        self.max_runs_spin.setAccessibleName(self.tr("Number of runs"))
        runs_row = QWidget()
        line = QHBoxLayout(runs_row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.max_runs_check)
        line.addWidget(self.max_runs_spin)
        line.addStretch(1)
        self.until_check = QCheckBox(self.tr("On"))
        self.until_check.setAccessibleName(self.tr("Stop at a date and time"))
        self.until_edit = QDateTimeEdit()
        self.until_edit.setTimeZone(self.picker.once_edit.timeZone())
        self.until_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.until_edit.setCalendarPopup(True)
        self.until_edit.setAccessibleName(self.tr("Stop date and time"))
        self.until_zone = QLabel()
        until_row = QWidget()
        line = QHBoxLayout(until_row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.until_check)
        line.addWidget(self.until_edit)
        line.addWidget(self.until_zone, 1)
        self.condition_check = QCheckBox(self.tr("When a run says its condition is met"))
        self.condition_check.setAccessibleName(self.tr("Stop when a run says its condition "
                                                       "is met"))
        stop.addWidget(self.stop_never)
        stop.addWidget(self._slot("max_runs", runs_row, tab))
        stop.addWidget(self._slot("until", until_row, tab))
        stop.addWidget(self._slot("stop", self.condition_check, tab))
        until = (self.clock() + timedelta(days=7)).astimezone(zone(self.picker.zone_name()))
        self._set_until_wall(until.replace(hour=9, minute=0, second=0, microsecond=0,
                                           tzinfo=None))
        for check in (self.max_runs_check, self.until_check, self.condition_check):
            check.toggled.connect(self._stop_changed)
        self.max_runs_spin.valueChanged.connect(self._stop_changed)
        self.until_edit.dateTimeChanged.connect(self._stop_changed)
        column.addWidget(self.stop_group)
        column.addStretch(1)

    def _build_permissions_tab(self) -> None:
        page, tab = self._tab(self.tr("Permissions"), self.tr("Permissions"))
        self.permissions_tab = tab
        column = QVBoxLayout(page)
        self.command_consent = QLabel(self.tr(
            "A command runs as it is, without asking: creating it is the consent. The "
            "choices below apply to agent runs."))
        self.command_consent.setWordWrap(True)
        column.addWidget(self.command_consent)
        self.mode_group = QButtonGroup(self)
        modes = QWidget()
        mode_column = QVBoxLayout(modes)
        mode_column.setContentsMargins(0, 0, 0, 0)
        self.mode_buttons: dict[str, QRadioButton] = {}
        for value, text in (
                ("ask", self.tr("Ask me before it runs commands or changes files")),
                ("allow_listed", self.tr("Let it use the tools ticked below without asking")),
                ("allow_all", self.tr("Let it do anything without asking, commands "
                                      "included"))):
            button = QRadioButton(text)
            button.setAccessibleName(text)
            self.mode_group.addButton(button)
            self.mode_buttons[value] = button
            mode_column.addWidget(button)
        self.mode_buttons["ask"].setChecked(True)
        column.addWidget(self._slot("permissions", modes, tab))
        self.tool_group = QGroupBox(self.tr("Tools it may use without asking"))
        grid = QGridLayout(self.tool_group)
        self.tool_checks: dict[str, QCheckBox] = {}
        for i, tool in enumerate(TOOL_NAMES):
            check = QCheckBox(_cap(words.tool_words(tool)))
            check.setAccessibleName(_cap(words.tool_words(tool)))
            check.toggled.connect(self._permissions_changed)
            self.tool_checks[tool] = check
            grid.addWidget(check, i // 3, i % 3)
        column.addWidget(self.tool_group)
        self.consent = QLabel()
        self.consent.setWordWrap(True)
        self.consent.setTextFormat(Qt.TextFormat.PlainText)
        self.consent.setAccessibleName(self.tr("What runs without asking"))
        self.consent.setFrameShape(QFrame.Shape.StyledPanel)
        self.consent.setMargin(8)
        self.consent.setAutoFillBackground(True)
        self.consent.setBackgroundRole(QPalette.ColorRole.Base)
        consent_title = QLabel(self.tr("In plain words"))
        bold = QFont(consent_title.font())
        bold.setWeight(QFont.Weight.DemiBold)
        consent_title.setFont(bold)
        column.addWidget(consent_title)
        column.addWidget(self.consent)
        column.addStretch(1)
        self.mode_group.buttonToggled.connect(lambda *_: self._permissions_changed())

    def _build_policies_tab(self) -> None:
        page, tab = self._tab(self.tr("Policies"), self.tr("Policies"))
        form = self._form(page)

        self.context_box = QComboBox()
        self.context_box.addItem(self.tr("Start each run fresh"), "fresh")
        self.context_box.addItem(self.tr("Continue one conversation across runs"), "continue")
        self.context_box.setAccessibleName(self.tr("Conversation"))
        self.context_box.activated.connect(self._context_chosen)
        self.history_spin = QSpinBox()
        self.history_spin.setRange(1, 10_000_000)
        self.history_spin.setSingleStep(10_000)
        self.history_spin.setValue(50_000)
        self.history_spin.setGroupSeparatorShown(True)
        self.history_spin.setSuffix(self.tr(" tokens"))
        self.history_spin.setAccessibleName(self.tr("History budget"))
        self.history_spin.setToolTip(self.tr("How much of the conversation a continuing "
                                             "run keeps"))
        self.context_box.currentIndexChanged.connect(self._context_changed)
        form.addRow(self.tr("Conversation"), self._slot("context", self.context_box, tab))
        history = self._slot("history", _fixed(self.history_spin), tab)
        form.addRow(self.tr("History kept"), history)
        self.history_label = form.labelForField(history)

        self.misfire_box = QComboBox()
        self.misfire_box.addItem(self.tr("Skip them (noted in the history)"), "skip")
        self.misfire_box.addItem(self.tr("Run once when Errands is back"), "run_once")
        self.misfire_box.setAccessibleName(self.tr("Missed runs"))
        self.misfire_box.setToolTip(self.tr("Runs missed while Errands was closed or the "
                                            "computer slept"))
        self.catch_up_edit = DurationEdit(("m", "h", "d"), name=self.tr("Catch up at most"))
        self.catch_up_edit.set_value(timedelta(hours=24))
        self.misfire_box.currentIndexChanged.connect(self._misfire_changed)
        form.addRow(self.tr("Missed runs"), self._slot("misfire", self.misfire_box, tab))
        catch_up = self._slot("catch_up", self.catch_up_edit, tab)
        form.addRow(self.tr("Catch up within"), catch_up)
        self.catch_up_label = form.labelForField(catch_up)

        self.overlap_box = QComboBox()
        for value, text in (("skip", self.tr("Skip the new run")),
                            ("queue_one", self.tr("Start it when the running one ends "
                                                  "(one waits at most)")),
                            ("cancel_previous", self.tr("Stop the running one and start "
                                                        "anew"))):
            self.overlap_box.addItem(text, value)
        self.overlap_box.setAccessibleName(self.tr("When a run is still going"))
        form.addRow(self.tr("Still running"), self._slot("overlap", self.overlap_box, tab))

        self.attempts_spin = QSpinBox()
        self.attempts_spin.setRange(1, 10)
        self.attempts_spin.setValue(3)
        self.attempts_spin.setAccessibleName(self.tr("Attempts per run"))
        self.attempts_spin.setToolTip(self.tr("A failed attempt is tried again, up to this "
                                              "many attempts in all"))
        form.addRow(self.tr("Attempts"), self._slot("retry", _fixed(self.attempts_spin), tab))

        self.timeout_edit = DurationEdit(("s", "m", "h"), name=self.tr("Time limit"))
        self.timeout_edit.set_value(timedelta(minutes=30))
        form.addRow(self.tr("Time limit"), self._slot("timeout", self.timeout_edit, tab))

        self.steps_spin = QSpinBox()
        self.steps_spin.setRange(1, 10_000)
        self.steps_spin.setValue(50)
        self.steps_spin.setAccessibleName(self.tr("Most steps an agent run takes"))
        form.addRow(self.tr("Agent steps"), self._slot("max_steps", _fixed(self.steps_spin), tab))

        self.failure_spin = QSpinBox()
        self.failure_spin.setRange(1, 1000)
        self.failure_spin.setValue(3)
        self.failure_spin.setSuffix(self.tr(" failures in a row"))
        self.failure_spin.setAccessibleName(self.tr("Tell me after this many failures in "
                                                    "a row"))
        form.addRow(self.tr("Tell me after"), self._slot("failure_notify", _fixed(self.failure_spin),
                                                         tab))

        self.pause_check = QCheckBox(self.tr("Pause itself after"))
        self.pause_check.setAccessibleName(self.tr("Pause itself after failures"))
        self.pause_spin = QSpinBox()
        self.pause_spin.setRange(2, 100)
        self.pause_spin.setValue(5)
        self.pause_spin.setSuffix(self.tr(" failures in a row"))
        self.pause_spin.setAccessibleName(self.tr("Failures in a row before pausing"))
        self.pause_check.toggled.connect(self.pause_spin.setEnabled)
        self.pause_spin.setEnabled(False)
        pause = QWidget()
        line = QHBoxLayout(pause)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.pause_check)
        line.addWidget(self.pause_spin)
        line.addStretch(1)
        pause.setFocusProxy(self.pause_check)
        form.addRow(self.tr("Failing"), self._slot("pause_after", pause, tab))

        self.jitter_check = QCheckBox(self.tr("Spread the start by up to"))
        self.jitter_check.setAccessibleName(self.tr("Spread the start"))
        self.jitter_edit = DurationEdit(("s", "m"), name=self.tr("Spread"))
        self.jitter_edit.set_value(timedelta(minutes=5))
        self.jitter_edit.setEnabled(False)
        self.jitter_check.toggled.connect(self.jitter_edit.setEnabled)
        jitter = QWidget()
        line = QHBoxLayout(jitter)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.jitter_check)
        line.addWidget(self.jitter_edit)
        line.addStretch(1)
        jitter.setFocusProxy(self.jitter_check)
        form.addRow(self.tr("Start"), self._slot("jitter", jitter, tab))
        self.slots["policies"] = (self.slots["retry"][0], tab, self.attempts_spin)

    # ------------------------------------------------------------------ reacting

    def _runner_changed(self, _index: int = 0) -> None:
        kind = self.runner_kind()
        agent = kind == "agent"
        self.task_form.setRowVisible(self.prompt_row, agent)
        self.task_form.setRowVisible(self.model_row, agent)
        self.task_form.setRowVisible(self.servers_row, agent)
        self.task_form.setRowVisible(self.command_row, kind == "command")
        self.task_form.setRowVisible(self.message_row, kind == "notify")
        self.task_form.setRowVisible(self.script_row, kind == "script")
        for widget in (self.context_box, self.history_spin, self.steps_spin,
                       self.tool_group, *self.mode_buttons.values()):
            widget.setEnabled(agent)
        self.command_consent.setVisible(kind == "command")
        self._runs_on_default()
        self._context_changed()
        self._permissions_changed()

    def _context_chosen(self, _index: int) -> None:
        self._context_touched = True

    # ----------------------------------------------------------- where it runs

    def set_machines(self, machines: Machines | None) -> None:
        """On a shared catalogue, offer where the automation runs: any computer, this one,
        or another known one. An automation being edited shows where it runs now; a new
        one follows the rule (a command or a folder: this computer) until it is chosen."""
        if machines is None:
            return
        clean = not self.has_changes()
        self._machines = machines
        box = self.runs_on_box
        box.clear()
        box.addItem(self.tr("Any computer"), ANY_MACHINE)
        box.addItem(self.tr("%1 (this computer)").replace("%1", machines.here), machines.here)
        for name in sorted(set(machines.others) - {ANY_MACHINE, machines.here}):
            box.addItem(name, name)
        self._show_runs_on()
        self.task_form.setRowVisible(self.runs_on_row, True)
        if clean:
            self.mark_clean()

    def _show_runs_on(self) -> None:
        """Where the loaded automation runs (it stays there until moved); for a new one, or
        one whose stored definition no longer loads, the rule's default."""
        if self._machines is None:
            return
        if self.automation is None or self.automation.definition is None:
            self._runs_on_touched = False
            self._runs_on_default()
            return
        self._runs_on_touched = True
        stored = self._base.get("runs_on") or ANY_MACHINE
        box = self.runs_on_box
        if box.findData(stored) < 0:
            box.addItem(stored, stored)
        box.setCurrentIndex(box.findData(stored))

    def _runs_on_chosen(self, _index: int) -> None:
        self._runs_on_touched = True

    def _runs_on_default(self, *_args: object) -> None:
        if self._machines is None or self._runs_on_touched:
            return
        here = self.runner_kind() == "command" or bool(self.workdir_edit.text().strip())
        self.runs_on_box.setCurrentIndex(self.runs_on_box.findData(
            self._machines.here if here else ANY_MACHINE))

    def _context_changed(self, _index: int = 0) -> None:
        on = self.runner_kind() == "agent" and self.context_box.currentData() == "continue"
        self.history_spin.setEnabled(on)
        self.history_label.setEnabled(on)

    def _misfire_changed(self, _index: int = 0) -> None:
        on = self.misfire_box.currentData() == "run_once"
        self.catch_up_edit.setEnabled(on)
        self.catch_up_label.setEnabled(on)

    def _schedule_changed(self) -> None:
        mode = self.picker.mode()
        if not self._context_touched:
            after = mode == "after" or (mode == "kept" and self.picker.trigger().get("kind")
                                        == "after")
            self.context_box.setCurrentIndex(self.context_box.findData(
                "continue" if after else "fresh"))
        self._stop_changed()
        self._misfire_changed()

    def _stop_changed(self, *_args: object) -> None:
        recurring = self._recurring()
        for widget in (self.max_runs_check, self.until_check, self.condition_check):
            widget.setEnabled(recurring)
        self.max_runs_spin.setEnabled(recurring and self.max_runs_check.isChecked())
        self.until_edit.setEnabled(recurring and self.until_check.isChecked())
        self.until_zone.setText(self.picker.zone_name())
        if not recurring:
            self.stop_never.setText(self.tr("A one-time or hand-run schedule needs no stop "
                                            "rule."))
        elif not (self.max_runs_check.isChecked() or self.until_check.isChecked()
                  or self.condition_check.isChecked()):
            self.stop_never.setText(self.tr("Runs until you pause or delete it, unless "
                                            "you tick a rule below."))
        else:
            self.stop_never.setText(self.tr("Stops at whichever comes first:"))
        max_runs = self.max_runs_spin.value() if recurring and self.max_runs_check.isChecked() \
            else None
        until = None
        if recurring and self.until_check.isChecked():
            try:
                until = self._until_instant()
            except InvalidInput:
                until = None
        self.picker.set_limits(max_runs, until)

    def _permissions_changed(self, *_args: object) -> None:
        listed = self.permission_mode() == "allow_listed"
        agent = self.runner_kind() == "agent"
        self.tool_group.setEnabled(agent and listed)
        self.consent.setText("\n".join("• " + line for line in self.permission_words()))

    def _choose_folder(self) -> None:
        start = self.workdir_edit.text().strip() or ""
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Project folder"), start)
        if chosen:
            self.workdir_edit.setText(chosen)

    # ------------------------------------------------------------------- reading

    def runner_kind(self) -> str:
        return str(self.runner_box.currentData())

    def permission_mode(self) -> str:
        for value, button in self.mode_buttons.items():
            if button.isChecked():
                return value
        return "ask"

    def _permissions_doc(self) -> dict[str, Any]:
        base = self._base.get("permissions") or {}
        ticked = [t for t in TOOL_NAMES if self.tool_checks[t].isChecked()]
        # the stored order first, so opening and saving changes nothing
        tools = [t for t in base.get("tools") or [] if t in ticked]
        tools += [t for t in ticked if t not in tools]
        return {"mode": self.permission_mode(), "tools": tools,
                "rules": copy.deepcopy(base.get("rules") or []),
                "untrusted_ok": list(base.get("untrusted_ok") or [])}

    def permission_words(self) -> list[str]:
        """What the agent will do without asking, in the detail pane's sentences."""
        if self.runner_kind() == "command":
            return [self.tr("Runs its command without asking (creating it was the consent)")]
        if self.runner_kind() == "notify":
            return [self.tr("Only shows its message: it runs nothing and uses no model")]
        if self.runner_kind() == "script":
            return [self.tr("Runs its script in a sandbox: it proposes, Errands checks each "
                            "action against its folder and rules before applying it")]
        doc = self._permissions_doc()
        try:
            rules = parse_rules(doc["rules"], "permissions.rules")
        except InvalidInput:
            rules = ()
        perms = Permissions(mode=doc["mode"], tools=tuple(doc["tools"]), rules=rules,
                            untrusted_ok=tuple(t for t in doc["untrusted_ok"] if t in TOOL_NAMES))
        lines = words.permission_lines(Definition(title="-", runner=AgentTask(prompt="-"),
                                                  trigger=ManualTrigger(), permissions=perms))
        if perms.mode == "allow_listed" and not perms.tools:
            lines.insert(0, self.tr("Nothing is ticked: it asks before every tool."))
        if perms.mode == "allow_all" or "run_command" in perms.tools and \
                perms.mode == "allow_listed":
            lines.insert(0, self.tr("Runs commands without asking."))
        return lines

    def _recurring(self) -> bool:
        if self.events.members():  # (an automation that waits for events recurs)
            return True
        mode = self.picker.mode()
        if mode == "kept":
            return self.picker.trigger().get("kind") in RECURRING
        return mode in ("every", "after", "daily", "weekdays", "weekly", "monthly", "advanced")

    def _set_until_wall(self, wall: datetime) -> None:
        self.until_edit.setDateTime(QDateTime(QDate(wall.year, wall.month, wall.day),
                                              QTime(wall.hour, wall.minute),
                                              self.picker.once_edit.timeZone()))

    def _until_instant(self) -> datetime:
        d, t = self.until_edit.date(), self.until_edit.time()
        wall = datetime(d.year(), d.month(), d.day(), t.hour(), t.minute())
        if not self.picker.zone_box.valid():
            raise InvalidInput("trigger.timezone", self.tr("unknown time zone"),
                               self.tr("a time zone from the list"), "Europe/Berlin")
        return wall_clock(wall.date(), wall.time(), self.picker.zone_name())

    def document(self) -> dict[str, Any]:
        """The definition document of what the form shows, over the fields it does not show
        (kept from the automation being edited). Raises ``InvalidInput`` for what is locally
        wrong (a weekly schedule with no day, an unreadable cron expression)."""
        doc = copy.deepcopy(self._base)
        doc["title"] = self.title_edit.text()
        if self.runner_kind() == "agent":
            model = self.model_edit.text().strip()
            doc["runner"] = {"kind": "agent", "prompt": self.prompt_edit.toPlainText(),
                             "model": model or None}
            lines = [line for line in self.servers_edit.toPlainText().splitlines()
                     if line.strip()]
            if lines:
                doc["runner"]["mcp_servers"] = [
                    server_from_line(line, f"runner.mcp_servers[{i}]")
                    for i, line in enumerate(lines)]
        elif self.runner_kind() == "notify":
            doc["runner"] = {"kind": "notify", "message": self.message_edit.toPlainText()}
        elif self.runner_kind() == "script":
            was = (self._base.get("runner") or {})
            doc["runner"] = {"kind": "script", "source": self.script.source(),
                             **({"limits": was["limits"]} if was.get("kind") == "script"
                                and was.get("limits") else {})}
        else:
            doc["runner"] = {"kind": "command", "command": self.command_edit.toPlainText()}
        trigger = join_members(self.picker.trigger(), self.events.members(),
                               self._was_set, self._clock_id)
        put_trigger(doc, trigger)
        doc["context"] = {"mode": self.context_box.currentData(),
                          "max_history_tokens": self.history_spin.value()}
        if trigger["kind"] in RECURRING:
            doc["stop"] = {
                "max_runs": self.max_runs_spin.value() if self.max_runs_check.isChecked()
                else None,
                "until": format_instant(self._until_instant()) if self.until_check.isChecked()
                else None,
                "when_condition_met": self.condition_check.isChecked()}
        else:
            doc["stop"] = {"max_runs": None, "until": None, "when_condition_met": False}
        doc["misfire"] = self.misfire_box.currentData()
        doc["catch_up_max_age"] = format_duration(self.catch_up_edit.value())
        doc["overlap"] = self.overlap_box.currentData()
        policy = dict(doc.get("policy") or {})
        retry = dict(policy.get("retry") or {})
        retry["max_attempts"] = self.attempts_spin.value()
        policy.update({
            "retry": retry,
            "timeout": format_duration(self.timeout_edit.value()),
            "max_steps": self.steps_spin.value(),
            "notify": self.notify_box.currentData(),
            "failure_notify_after": self.failure_spin.value(),
            "pause_after_failures": self.pause_spin.value() if self.pause_check.isChecked()
            else None,
            "jitter": format_duration(self.jitter_edit.value()) if self.jitter_check.isChecked()
            else None})
        doc["policy"] = policy
        was_script = (self._base.get("runner") or {}).get("kind") == "script"
        doc["permissions"] = (self._permissions_doc() if self.runner_kind() == "agent"
                              else {"rules": copy.deepcopy((self._base.get("permissions")
                                                            or {}).get("rules") or [])}
                              if self.runner_kind() == "script" and was_script
                              else dict(DEFAULT_PERMISSIONS))
        doc["workdir"] = self.workdir_edit.text().strip() or None
        if self._machines is not None:
            doc["runs_on"] = self.runs_on_box.currentData()
        return doc

    def check(self, doc: dict[str, Any]) -> Definition:
        """The document through the engine's parser (no interval floor: that setting is the
        engine's to apply)."""
        previous = self.automation.definition if self.automation is not None else None
        ctx = ParseContext(now=self.clock(), min_interval=timedelta(0),
                           default_timezone=self.picker.zone_name(), previous=previous)
        return parse_definition(doc, ctx)

    # ------------------------------------------------------------------- loading

    def load(self, automation: Automation) -> None:
        """Show ``automation`` (again, after a conflict's Reload): everything on screen is
        replaced by its current definition."""
        self.automation = automation
        self.conflict_revision = None
        self.conflict.setVisible(False)
        self.clear_errors()
        self.set_busy(False)
        self.setWindowTitle(self.tr("Edit “%1”").replace("%1", automation.title))
        self.heading.setText(self.tr("Editing revision %1").replace(
            "%1", str(automation.revision)))
        self.heading.setVisible(True)
        d = automation.definition
        if d is None:
            self._base = {}
            self.title_edit.setText(automation.title)
            self.general_error.show_message(self.tr(
                "Its stored definition no longer loads (%1). Saving replaces it with what "
                "this form shows.").replace("%1", automation.problem or "?"))
            return
        self.load_document(d.to_dict())

    def load_document(self, doc: dict[str, Any]) -> None:
        """Show a definition document (as ``Definition.to_dict`` writes it)."""
        self._base = copy.deepcopy(doc)
        self.title_edit.setText(doc.get("title", ""))
        runner = doc.get("runner") or {}
        self.servers_edit.clear()
        self.runner_box.setCurrentIndex(self.runner_box.findData(runner.get("kind", "agent")))
        if runner.get("kind") == "command":
            self.command_edit.setPlainText(runner.get("command") or "")
        elif runner.get("kind") == "notify":
            self.message_edit.setPlainText(runner.get("message") or "")
        elif runner.get("kind") == "script":
            self.script.set_source(runner.get("source") or "")
        else:
            self.prompt_edit.setPlainText(runner.get("prompt") or "")
            self.model_edit.setText(runner.get("model") or "")
            servers = runner.get("mcp_servers") or []
            self.servers_edit.setPlainText("\n".join(
                server_line(d) for d in servers if isinstance(d, dict)))
        self.workdir_edit.setText(doc.get("workdir") or "")
        whole = trigger_of(doc) or {"kind": "manual"}
        clock, events = split_members(whole)
        self._was_set = whole.get("kind") == "set"
        self._clock_id = clock.get("id") if clock is not None else None
        trigger = {k: v for k, v in (clock or {"kind": "manual"}).items() if k != "id"}
        if trigger.get("kind") != "cron":
            self.picker.zone_box.set_zone(self.zone_default)
        self.picker.load_trigger(trigger)
        self.events.load(events)
        context = doc.get("context") or {}
        self._context_touched = True
        implied = "continue" if trigger.get("kind") == "after" else "fresh"  # as the parser
        self.context_box.setCurrentIndex(self.context_box.findData(context.get("mode",
                                                                                implied)))
        self.history_spin.setValue(int(context.get("max_history_tokens") or 50_000))
        stop = doc.get("stop") or {}
        self.max_runs_check.setChecked(stop.get("max_runs") is not None)
        if stop.get("max_runs") is not None:
            self.max_runs_spin.setValue(int(stop["max_runs"]))
        self.until_check.setChecked(stop.get("until") is not None)
        if stop.get("until"):
            local = parse_instant(stop["until"]).astimezone(
                zone(self.picker.zone_name()))
            self._set_until_wall(local.replace(tzinfo=None))
        self.condition_check.setChecked(bool(stop.get("when_condition_met")))
        self.misfire_box.setCurrentIndex(self.misfire_box.findData(doc.get("misfire", "skip")))
        self.catch_up_edit.set_value(parse_duration(doc.get("catch_up_max_age") or "24h"))
        self.overlap_box.setCurrentIndex(self.overlap_box.findData(doc.get("overlap", "skip")))
        policy = doc.get("policy") or {}
        self.attempts_spin.setValue(int((policy.get("retry") or {}).get("max_attempts", 3)))
        self.timeout_edit.set_value(parse_duration(policy.get("timeout") or "30m"))
        self.steps_spin.setValue(int(policy.get("max_steps", 50)))
        self.notify_box.setCurrentIndex(self.notify_box.findData(policy.get("notify",
                                                                            "quiet")))
        self.failure_spin.setValue(int(policy.get("failure_notify_after", 3)))
        self.pause_check.setChecked(policy.get("pause_after_failures") is not None)
        if policy.get("pause_after_failures") is not None:
            self.pause_spin.setValue(int(policy["pause_after_failures"]))
        self.jitter_check.setChecked(bool(policy.get("jitter")))
        if policy.get("jitter"):
            self.jitter_edit.set_value(parse_duration(policy["jitter"]))
        perms = doc.get("permissions") or {}
        self.mode_buttons.get(perms.get("mode", "ask"), self.mode_buttons["ask"]).setChecked(True)
        for tool, check in self.tool_checks.items():
            check.setChecked(tool in (perms.get("tools") or []))
        self._runner_changed()
        self._stop_changed()
        self._permissions_changed()
        self._show_runs_on()  # (a Reload after a conflict: where it runs now)
        self.mark_clean()

    # ------------------------------------------------------------ unsaved changes

    def _state(self) -> str:
        """What the form says now, to compare with what it was given."""
        try:
            return json.dumps(self.document(), sort_keys=True, default=str)
        except (InvalidInput, ValueError):  # half-typed: the raw fields
            return repr((self.title_edit.text(), self.prompt_edit.toPlainText(),
                         self.command_edit.toPlainText(), self.message_edit.toPlainText(),
                         self.workdir_edit.text(), self.runs_on_box.currentData(),
                         self.runner_kind(), self.picker.values()))

    def mark_clean(self) -> None:
        self._clean = self._state()

    def has_changes(self) -> bool:
        return self._state() != getattr(self, "_clean", None)

    def reject(self) -> None:
        """Esc, Cancel or the window's close button: ask before throwing away edits."""
        if self._discarding or not self.has_changes():
            super().reject()
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Discard your changes?"),
                          self.tr("This form has changes that are not saved."),
                          QMessageBox.StandardButton.NoButton, self)
        discard = box.addButton(self.tr("Discard"), QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton(self.tr("Keep editing"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        self.discard_box = box
        before = QApplication.focusWidget()

        def chosen() -> None:
            self.discard_box = None
            if box.clickedButton() is discard:
                self._discarding = True
                super(AutomationForm, self).reject()
                return
            # keep editing: the keyboard goes back to where it was
            self.activateWindow()
            (before if before is not None and self.isAncestorOf(before)
             else self.title_edit).setFocus()
        box.finished.connect(lambda _r: chosen())
        box.open()

    # -------------------------------------------------------------------- saving

    def expected_revision(self) -> int | None:
        return self.automation.revision if self.automation is not None else None

    def submit(self, expected_revision: int | None = None) -> bool:
        """Check and emit ``submitted``; False (with the refusal shown) when the document
        is locally wrong or a save is already under way."""
        if self.busy:
            return False
        self.clear_errors()
        try:
            doc = self.document()
            self.check(doc)
        except InvalidInput as exc:
            self.show_errors(exc)
            return False
        self.set_busy(True)
        revision = expected_revision if expected_revision is not None else \
            self.expected_revision()
        self.submitted.emit(doc, revision)
        return True

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.save_button.setEnabled(not busy)
        self.save_button.setText(self.tr("Saving…") if busy else self.tr("Save"))

    def accept_saved(self) -> None:
        """The owner saved the document: close."""
        self.set_busy(False)
        self.accept()

    def show_schedule(self) -> None:
        """Bring the schedule forward (a sentence whose time could not be read)."""
        self.tabs.setCurrentIndex(self.slots["trigger"][1])
        self.picker.mode_box.setFocus()

    def show_errors(self, error: BaseException) -> None:
        """Show the engine's (or the parser's) refusal next to the field it names."""
        self.set_busy(False)
        if isinstance(error, InvalidInput):
            text = words.refusal_words(error, words.local_zone()) or str(error)
            if error.field and text.startswith(error.field + ": "):
                text = text[len(error.field) + 2:]
            self.show_field_error(error.field, text)
            line = (error.values or {}).get("line") if error.field == "runner.source" else None
            if isinstance(line, int):
                self.script.editor.mark_error(line)
            return
        if isinstance(error, Conflict) and error.code == "stale_revision":
            found = _NOW_REVISION.search(error.message)
            if found:
                self.show_conflict(int(found.group(1)))
                return
        message = error.message if isinstance(error, ErrandsError) else str(error)
        self.general_error.show_message(message or type(error).__name__)

    def _error_slot(self, field: str) -> str | None:
        """The slot a refusal of ``field`` belongs under: "trigger" for the picker, a key of
        ``slots``, or None (no row shows it now: the top of the form)."""
        plain = re.sub(r"\[\d+\]", "", field or "")
        if plain in ("trigger", "triggers") or plain.startswith(("trigger.", "triggers.")):
            return "trigger"
        parts = plain.split(".")
        for n in range(len(parts), 0, -1):
            key = FIELD_SLOTS.get(".".join(parts[:n]))
            if key is not None:
                holder = self.slots[key][0].parentWidget()
                # a row not shown now (a command's, for an agent) cannot show it
                return None if holder is not None and holder.isHidden() else key
        return None

    def show_field_error(self, field: str, message: str) -> None:
        """Put ``message`` under the widget ``field`` (a dotted document path) names, and
        bring its tab forward; a field no widget shows goes to the top of the form."""
        key = self._error_slot(field)
        if key == "trigger":
            holder = self.picker.show_error(re.sub(r"\[\d+\]", "", field), message)
            self.tabs.setCurrentIndex(self.slots["trigger"][1])
            holder.setFocus()
        elif key is not None:
            label, tab, widget = self.slots[key]
            label.show_message(message)
            self.tabs.setCurrentIndex(tab)
            if widget.isEnabled():
                widget.setFocus()
        else:
            self.general_error.show_message(f"{field}: {message}" if field else message)

    def clear_errors(self) -> None:
        self.general_error.clear_message()
        for label, _tab, _widget in self.slots.values():
            label.clear_message()
        self.picker.clear_errors()

    def field_error(self, field: str) -> str:
        """The refusal shown for ``field`` ("" when none): what a person reads there."""
        key = self._error_slot(field)
        if key == "trigger":
            label = self.picker.errors[self.picker.error_key(field)]
        elif key is not None:
            label = self.slots[key][0]
        else:
            label = self.general_error
        return label.text() if label.showing else ""

    # ------------------------------------------------------------------ conflict

    def show_conflict(self, current_revision: int) -> None:
        """Someone else saved it meanwhile: say so, keep what is typed, offer both ways."""
        self.set_busy(False)
        self.conflict_revision = current_revision
        self.conflict_text.setText(self.tr(
            "This automation was changed elsewhere (now revision %1) after you opened it. "
            "Your changes are still here. Reload shows the other version and discards "
            "yours; Save anyway replaces it with yours.").replace("%1", str(current_revision)))
        self.conflict.setVisible(True)
        self.overwrite_button.setFocus()

    def _reload_clicked(self) -> None:
        self.reload_requested.emit()

    def _overwrite_clicked(self) -> None:
        if self.conflict_revision is None:
            return
        revision = self.conflict_revision
        if self.submit(expected_revision=revision):
            self.conflict.setVisible(False)
