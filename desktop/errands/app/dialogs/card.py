"""The confirmation card: a definition document shown back in words before anything is
saved.

It shows what a draft (a sentence read by the phrase parser or the model), a filled template
or an agent's proposal would create: the title, what runs (monospace, the first lines with
"Show all"), the schedule in words with the next three fires (in the automation's zone and
here), the context, the stop rule, the folder, what runs without asking, the warnings and
where it came from. It never calls the engine: Create, Edit in form and Cancel are signals
(``create_requested(doc)``, ``edit_requested(doc)``, ``cancelled()``) and the owner answers
a refusal with ``show_error(text)``.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, tzinfo
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...definition import Definition, ParseContext, parse_definition
from ...schedule import iter_fires
from ...timeutil import utcnow
from .. import theme, words
from .fields import ErrorLabel

PREVIEW_LINES = 4         # what runs: this many lines before "Show all"
PREVIEW_CHARS = 320       # … or this many characters
FIRES = 3


def source_words(source: str | None, doc: dict[str, Any] | None = None) -> str:
    """Where a definition came from, in words: the draft's ``source`` ("phrase",
    "model") or, without one, the document's ``origin``."""
    if source == "phrase":
        return words.tr("Read from your sentence")
    if source == "model":
        return words.tr("Drafted by the model")
    origin = (doc or {}).get("origin") or {}
    kind = source or origin.get("kind")
    if kind == "template":
        name = origin.get("template") or ""
        return words.tr("From the template “%1”").replace("%1", name) if name else \
            words.tr("From a template")
    if kind == "agent":
        return words.tr("Proposed by an agent")
    return ""


def upcoming(definition: Definition, now: datetime, count: int = FIRES) -> list[datetime]:
    """The next ``count`` fires of a definition not yet created, within its stop rule (an
    ``after`` loop as if runs took no time, as the form's preview)."""
    if definition.trigger.kind == "manual":
        return []
    limit = count if definition.stop.max_runs is None else min(count, definition.stop.max_runs)
    out: list[datetime] = []
    for fire in iter_fires(definition.trigger, now - timedelta(microseconds=1)):
        if len(out) >= limit or (definition.stop.until is not None
                                 and fire >= definition.stop.until):
            break
        out.append(fire)
    return out


def shrinkable(label: QLabel) -> QLabel:
    """A label that may be narrower than its text (it wraps), keeping height-for-width so
    a layout gives it the lines it needs."""
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    policy.setHeightForWidth(label.wordWrap())
    label.setSizePolicy(policy)
    return label


def _value_label(name: str) -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setAccessibleName(name)
    shrinkable(label)
    label.setMinimumWidth(120)
    return label


class ConfirmationCard(QWidget):
    """A definition shown for confirmation. ``buttons=False`` leaves out Create, Edit in
    form and Cancel (the wizard's review page has its own)."""

    create_requested = Signal(dict)
    edit_requested = Signal(dict)
    cancelled = Signal()
    model_wanted = Signal()          # "Set up a model…": the owner opens the settings

    def __init__(self, parent: QWidget | None = None, *, buttons: bool = True,
                 clock: Callable[[], datetime] = utcnow,
                 local_tz: tzinfo | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("confirmationCard")
        self.setAccessibleName(self.tr("What will be created"))
        self.clock = clock
        self.local_tz: tzinfo = local_tz or words.local_zone()
        self.doc: dict[str, Any] = {}
        self.definition: Definition | None = None
        self.warnings: tuple[str, ...] = ()
        self.source: str | None = None
        self.busy = False
        self.asking_folder = False
        self._expanded = False
        self._what_full = ""

        self.title = QLabel()
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setAccessibleName(self.tr("Title"))
        shrinkable(self.title)
        self.origin = QLabel()
        self.origin.setAccessibleName(self.tr("Where it came from"))
        self.origin.setTextFormat(Qt.TextFormat.PlainText)
        self.origin.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.runner = QLabel()
        self.runner.setAccessibleName(self.tr("What runs"))
        self.what = QLabel()
        self.what.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.what.setWordWrap(True)
        self.what.setTextFormat(Qt.TextFormat.PlainText)
        self.what.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.what.setFrameShape(QFrame.Shape.StyledPanel)
        self.what.setMargin(6)
        self.what.setAutoFillBackground(True)
        self.what.setBackgroundRole(QPalette.ColorRole.Base)
        self.what.setAccessibleName(self.tr("What it runs"))
        shrinkable(self.what)
        self.what.setMinimumWidth(120)
        self.show_all = QPushButton(self.tr("Show all"))
        self.show_all.setFlat(True)
        self.show_all.setAccessibleName(self.tr("Show all of what it runs"))
        self.show_all.clicked.connect(self._toggle_what)
        show_row = QHBoxLayout()
        show_row.setContentsMargins(0, 0, 0, 0)
        show_row.addStretch(1)
        show_row.addWidget(self.show_all)

        self.facts = QFormLayout()
        self.facts.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.facts.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.facts.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.fact_labels: dict[str, QLabel] = {}
        for key, text in (("schedule", self.tr("When")), ("next", self.tr("Next runs")),
                          ("context", self.tr("Context")), ("stop", self.tr("Stops")),
                          ("workdir", self.tr("Folder")),
                          ("permissions", self.tr("Permissions"))):
            value = _value_label(text)
            self.fact_labels[key] = value
            self.facts.addRow(text, value)
            if key == "workdir":
                self._add_folder_row()

        self.warning_box = QFrame()
        self.warning_box.setObjectName("cardWarnings")
        self.warning_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.warning_box.setAccessibleName(self.tr("Check these"))
        self.warning_text = QLabel()
        self.warning_text.setWordWrap(True)
        self.warning_text.setTextFormat(Qt.TextFormat.PlainText)
        self.warning_text.setAccessibleName(self.tr("Warnings"))
        shrinkable(self.warning_text)
        self.warning_text.setMinimumWidth(120)
        box = QHBoxLayout(self.warning_box)
        box.setContentsMargins(8, 6, 8, 6)
        box.addWidget(self.warning_text, 1)

        self.model_box = QFrame()
        self.model_box.setObjectName("cardNeedsModel")
        self.model_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.model_box.setAccessibleName(self.tr("Needs a model"))
        self.model_text = QLabel(self.tr(
            "Needs a model: an agent follows this prompt, and no model is set up yet. "
            "Its runs fail until you set one up."))
        self.model_text.setWordWrap(True)
        self.model_text.setTextFormat(Qt.TextFormat.PlainText)
        shrinkable(self.model_text)
        self.model_text.setMinimumWidth(120)
        self.model_button = QPushButton(self.tr("Set up a &model…"))
        self.model_button.setAccessibleName(self.tr("Set up a model"))
        self.model_button.setToolTip(self.tr("Open the settings at the model provider"))
        self.model_button.clicked.connect(self.model_wanted.emit)
        needs = QHBoxLayout(self.model_box)
        needs.setContentsMargins(8, 6, 8, 6)
        needs.addWidget(self.model_text, 1)
        needs.addWidget(self.model_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.model_box.setVisible(False)

        self.error = ErrorLabel(None)
        self.error.setAccessibleName(self.tr("Not created"))

        self.create_button = QPushButton(self.tr("Create"))
        self.create_button.setAccessibleName(self.tr("Create"))
        self.create_button.setToolTip(self.tr("Create this automation"))
        self.create_button.setDefault(True)
        self.edit_button = QPushButton(self.tr("Edit in form…"))
        self.edit_button.setAccessibleName(self.tr("Edit in form"))
        self.edit_button.setToolTip(self.tr("Open the full form with this filled in"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setAccessibleName(self.tr("Cancel"))
        self.create_button.clicked.connect(self.request_create)
        self.edit_button.clicked.connect(self.request_edit)
        self.cancel_button.clicked.connect(self.cancelled.emit)
        self.button_row = QWidget()
        row = QHBoxLayout(self.button_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        row.addWidget(self.edit_button)
        row.addWidget(self.create_button)
        self.button_row.setVisible(buttons)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.origin)
        layout.addWidget(self.runner)
        layout.addWidget(self.what)
        layout.addLayout(show_row)
        layout.addLayout(self.facts)
        layout.addWidget(self.model_box)
        layout.addWidget(self.warning_box)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(self.button_row)
        self._style_warnings()

    def _add_folder_row(self) -> None:
        """The folder asked for when the task names one ("my project folder")."""
        self.folder_asker = QWidget()
        column = QVBoxLayout(self.folder_asker)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.folder_hint = QLabel()
        self.folder_hint.setWordWrap(True)
        self.folder_hint.setTextFormat(Qt.TextFormat.PlainText)
        shrinkable(self.folder_hint)
        self.folder_hint.setMinimumWidth(120)
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText(self.tr("Its own folder in Errands' data"))
        self.folder_edit.setAccessibleName(self.tr("The folder it works in"))
        self.folder_button = QPushButton(self.tr("C&hoose…"))
        self.folder_button.setAccessibleName(self.tr("Choose the folder it works in"))
        self.folder_button.clicked.connect(self._choose_folder)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.folder_edit, 1)
        line.addWidget(self.folder_button)
        self.folder_error = ErrorLabel(self.folder_edit)
        column.addWidget(self.folder_hint)
        column.addLayout(line)
        column.addWidget(self.folder_error)
        self.facts.addRow(self.tr("Folder"), self.folder_asker)
        self.facts.setRowVisible(self.folder_asker, False)

    # ------------------------------------------------------------------- showing

    def set_document(self, doc: dict[str, Any], definition: Definition | None = None, *,
                     warnings: Iterable[str] = (), source: str | None = None,
                     zone_default: str | None = None, origin_text: str | None = None
                     ) -> Definition:
        """Show ``doc``; ``definition`` is its parse (parsed here when not given, in
        ``zone_default``, raising ``InvalidInput`` as the engine would). ``source`` is a
        draft's ("phrase", "model"); ``origin_text`` replaces the words for where it came
        from."""
        if definition is None:
            definition = parse_definition(doc, ParseContext(
                now=self.clock(), min_interval=timedelta(0), default_timezone=zone_default))
        self.doc = copy.deepcopy(doc)
        self.definition = definition
        self.warnings = tuple(warnings)
        self.source = source
        self.clear_error()
        self.set_busy(False)
        d = definition
        self.title.setText(d.title)
        origin = origin_text if origin_text is not None else source_words(source, doc)
        self.origin.setText(origin)
        self.origin.setVisible(bool(origin))
        self.runner.setText({"command": self.tr("Runs a command:"),
                             "notify": self.tr("Reminds you with a notification:"),
                             "script": self.tr("Runs this script in a sandbox:")}.get(
            d.runner.kind, self.tr("An agent follows this prompt:")))
        self._what_full = words.runs_what(d)
        self._expanded = False
        self._show_what()

        now = self.clock()
        facts = self.fact_labels
        facts["schedule"].setText(words.trigger_sentence(d.trigger, now, self.local_tz))
        fires = upcoming(d, now)
        own = words.zone_of(d)
        if d.trigger.kind == "manual":
            facts["next"].setText(self.tr("Only when you run it."))
        elif not fires:
            facts["next"].setText(self.tr("No runs ahead."))
        else:
            lines = [words.fire_words(f, now, self.local_tz, own) for f in fires]
            if d.trigger.kind == "after":
                lines.append(self.tr("(later runs shift by how long each run takes)"))
            facts["next"].setText("\n".join(lines))
        facts["context"].setText(words.context_words(d))
        facts["stop"].setText(words.stop_words(d, self.local_tz))
        facts["workdir"].setText(d.workdir or self.tr("Its own folder in Errands' data"))
        facts["permissions"].setText("\n".join(self.permission_lines()))
        self.warning_text.setText("\n".join("⚠ " + words.warning_words(w)
                                             for w in self.warnings))
        self.warning_box.setVisible(bool(self.warnings))
        self.model_box.setVisible(False)
        self.asking_folder = False
        self.facts.setRowVisible(self.folder_asker, False)
        self.facts.setRowVisible(self.fact_labels["workdir"], True)
        self.folder_error.clear_message()
        return d

    def ask_folder(self, words_said: str, guess: str | None) -> None:
        """The task names a folder: ask which, with ``guess`` (a path) filled in when the
        words point at one; left empty, it works in its own folder."""
        self.asking_folder = True
        self.folder_hint.setText(self.tr(
            "The task names “%1”: choose the folder it works in, or leave this empty for "
            "its own folder in Errands' data.").replace("%1", words_said))
        self.folder_edit.setText(guess or "")
        self.folder_error.clear_message()
        self.facts.setRowVisible(self.fact_labels["workdir"], False)
        self.facts.setRowVisible(self.folder_asker, True)

    def chosen_folder(self) -> str | None:
        """The folder typed or chosen (``~`` expanded), None when left empty."""
        text = self.folder_edit.text().strip()
        return os.path.expanduser(text) if text else None

    def show_folder_error(self, text: str) -> None:
        self.set_busy(False)
        self.folder_error.show_message(text)
        self.folder_edit.setFocus()

    def _choose_folder(self) -> None:
        start = self.chosen_folder() or os.path.expanduser("~")
        chosen = QFileDialog.getExistingDirectory(self, self.tr("The folder it works in"),
                                                  start)
        if chosen:
            self.folder_edit.setText(chosen)

    def _with_folder(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """``doc`` with the asked folder in it, or None (said beside the field) when what
        was typed is not a full path."""
        if not self.asking_folder:
            return doc
        folder = self.chosen_folder()
        if folder is not None and not os.path.isabs(folder):
            self.show_folder_error(self.tr("Write the whole path, from / or ~, e.g. %1")
                                   .replace("%1", os.path.expanduser("~/projects/site")))
            return None
        return {**doc, "workdir": folder}

    def set_needs_model(self, missing: bool) -> None:
        """Say on the card that an agent prompt needs a model none is set up for (only an
        agent runner needs one)."""
        agent = self.definition is not None and self.definition.runner.kind == "agent"
        self.model_box.setVisible(missing and agent)

    def needs_model(self) -> bool:
        return not self.model_box.isHidden()

    def permission_lines(self) -> list[str]:
        """What runs without asking, in the detail pane's words (commands called out)."""
        d = self.definition
        if d is None:
            return []
        lines = words.permission_lines(d)
        if d.runner.kind == "agent":
            p = d.permissions
            if p.mode == "allow_all" or (p.mode == "allow_listed" and "run_command" in p.tools):
                lines.insert(0, self.tr("Runs commands without asking."))
        return lines

    def fact(self, key: str) -> str:
        """What one row reads: schedule, next, context, stop, workdir, permissions."""
        return self.fact_labels[key].text()

    def what_text(self) -> str:
        return self.what.text()

    def _show_what(self) -> None:
        full = self._what_full
        lines = full.splitlines() or [""]
        long = len(lines) > PREVIEW_LINES or len(full) > PREVIEW_CHARS
        if self._expanded or not long:
            self.what.setText(full)
        else:
            short = "\n".join(lines[:PREVIEW_LINES])
            if len(short) > PREVIEW_CHARS:
                short = short[:PREVIEW_CHARS].rstrip()
            self.what.setText(short + " …")
        self.show_all.setVisible(long)
        self.show_all.setText(self.tr("Show less") if self._expanded else self.tr("Show all"))
        self.show_all.setAccessibleName(self.tr("Show less of what it runs") if self._expanded
                                        else self.tr("Show all of what it runs"))

    def _toggle_what(self) -> None:
        self._expanded = not self._expanded
        self._show_what()

    def _style_warnings(self) -> None:
        color = theme.state_colors()["warning"]
        r, g, b = color.red(), color.green(), color.blue()
        for box, name in ((self.warning_box, "cardWarnings"),
                          (self.model_box, "cardNeedsModel")):
            box.setStyleSheet(
                f"QFrame#{name} {{ border: 1px solid {color.name()}; border-radius: 4px; "
                f"background: rgba({r}, {g}, {b}, 40); }}")

    # The card wraps its words to the width it gets: in a scroll area (quick create) it
    # asks for the height that width needs, so a narrow window scrolls instead of
    # squeezing rows over each other.
    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        layout = self.layout()
        return layout.totalHeightForWidth(width) if layout is not None else -1

    def changeEvent(self, event: Any) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self._style_warnings()

    # ------------------------------------------------------------------- buttons

    def request_create(self) -> bool:
        """Emit ``create_requested`` with the document (once: busy until answered)."""
        if self.busy or not self.doc:
            return False
        doc = self._with_folder(copy.deepcopy(self.doc))
        if doc is None:
            return False
        self.clear_error()
        self.set_busy(True)
        self.create_requested.emit(doc)
        return True

    def request_edit(self) -> None:
        """Emit ``edit_requested`` with every field the card showed: the parsed definition
        written out whole, so defaults the document left implicit (an ``after`` loop's
        continuing conversation) reach the form as they were shown."""
        if not self.doc:
            return
        doc = copy.deepcopy(self.doc)
        if self.definition is not None:
            doc.update(self.definition.to_dict())
        with_folder = self._with_folder(doc)
        if with_folder is not None:
            self.edit_requested.emit(with_folder)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.create_button.setEnabled(not busy)
        self.edit_button.setEnabled(not busy)
        self.create_button.setText(self.tr("Creating…") if busy else self.tr("Create"))

    def show_error(self, text: str) -> None:
        """The engine refused: say why under the card; the buttons work again."""
        self.set_busy(False)
        self.error.show_message(text)

    def clear_error(self) -> None:
        self.error.clear_message()

    def error_text(self) -> str:
        return self.error.text() if self.error.showing else ""
