"""New from template: pick a template, fill in its blanks, adjust the schedule, review.

:class:`TemplateWizard` never calls the engine. Finish (labelled Create) on the review page
emits ``create_requested(doc)`` and keeps the wizard open; the owner answers ``created()``
(it closes) or ``show_error(text)`` (shown on the review card). The document is
``Template.fill`` of the blanks with the trigger the schedule page shows, so its ``origin``
still names the template.

Permissions are shown read-only in words on the schedule page (what the template allows
without asking); the full permission editor is the form's (Edit it after creating).

:class:`TemplateWizardFlow` is that owner over the engine: ``api.create``, then its
``created(id)`` signal.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSize, Qt, QTime, Signal
from PySide6.QtGui import QFont, QIcon, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from ...definition import ParseContext, parse_definition, put_trigger, trigger_of
from ...errors import ErrandsError, InvalidInput
from ...templates import Parameter, Template, TemplateProblem, icon_path, load_templates
from ...timeutil import utcnow
from .. import words
from ..tasks import Tasks, current_loop
from .card import ConfirmationCard, shrinkable
from .fields import ErrorLabel
from .schedule_picker import SchedulePicker

log = logging.getLogger(__name__)

PICK, FILL, SCHEDULE, REVIEW = range(4)
_INT_LIMIT = 2**31 - 1


def problems_note(problems: list[TemplateProblem]) -> str:
    """"1 template could not be loaded: bad.json: definition.trigger: …"."""
    if not problems:
        return ""
    if len(problems) == 1:
        return words.tr("1 template could not be loaded: %1").replace("%1", str(problems[0]))
    head = words.tr("%1 templates could not be loaded:").replace("%1", str(len(problems)))
    return head + "\n" + "\n".join(f"• {p}" for p in problems)


def _words(exc: InvalidInput) -> str:
    text = str(exc)
    return text[len(exc.field) + 2:] if exc.field and text.startswith(exc.field + ": ") \
        else text


class TemplateCard(QWidget):
    """One template in the list: icon, title, description, whether it needs a model."""

    def __init__(self, template: Template, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.template = template
        icon = QLabel()
        icon.setPixmap(QIcon(str(icon_path(template))).pixmap(32, 32))
        icon.setFixedSize(40, 40)
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        icon.setAutoFillBackground(True)
        icon.setBackgroundRole(QPalette.ColorRole.Base)
        self.title = QLabel(template.title)
        font = QFont(self.title.font())
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.tag = QLabel(self.tr("Needs a model") if template.needs_model
                          else self.tr("No model needed"))
        self.tag.setObjectName("templateTag")
        self.description = QLabel(template.description)
        self.description.setWordWrap(True)
        self.description.setTextFormat(Qt.TextFormat.PlainText)
        shrinkable(self.description)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        head.addWidget(self.tag)
        text = QVBoxLayout()
        text.setContentsMargins(0, 0, 0, 0)
        text.setSpacing(2)
        text.addLayout(head)
        text.addWidget(self.description)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 6, 8, 6)
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(text, 1)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.set_selected(False)

    def set_selected(self, selected: bool) -> None:
        """Readable on the selection colour too."""
        R = QPalette.ColorRole
        for label in (self.title, self.description):
            label.setForegroundRole(R.HighlightedText if selected else R.WindowText)
        self.tag.setForegroundRole(R.HighlightedText if selected else R.PlaceholderText)


class PickPage(QWizardPage):
    def __init__(self, templates: list[Template], problems: list[TemplateProblem]) -> None:
        super().__init__()
        self.setTitle(self.tr("Pick a template"))
        self.setSubTitle(self.tr("A ready-made automation with a few blanks to fill in."))
        self.templates = templates
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search templates"))
        self.search.setAccessibleName(self.tr("Search templates"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Templates"))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(2)
        self.cards: dict[str, TemplateCard] = {}
        for t in templates:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, t.name)
            tag = self.tr("needs a model") if t.needs_model else self.tr("no model needed")
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{t.title} ({tag})")
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, t.description)
            item.setToolTip(t.description)
            self.list.addItem(item)
            card = TemplateCard(t)
            self.cards[t.name] = card
            self.list.setItemWidget(item, card)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.itemDoubleClicked.connect(lambda _item: self.wizard().next())
        self.empty = QLabel(self.tr("No template matches."))
        self.empty.setVisible(False)
        self.note = QLabel(problems_note(problems))
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.setAccessibleName(self.tr("Templates left out"))
        self.note.setVisible(bool(problems))
        shrinkable(self.note)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.note)
        self.search.installEventFilter(self)
        if templates:
            self.list.setCurrentRow(0)

    def _current_changed(self, current: QListWidgetItem | None,
                         previous: QListWidgetItem | None) -> None:
        for item, selected in ((previous, False), (current, True)):
            card = self.list.itemWidget(item) if item is not None else None
            if isinstance(card, TemplateCard):
                card.set_selected(selected)
        self.completeChanged.emit()

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
        # Up and Down in the search box move through the list (type, arrow, Enter)
        if watched is self.search and event.type() == event.Type.KeyPress and \
                event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            rows = [i for i in range(self.list.count()) if not self.list.item(i).isHidden()]
            if rows:
                current = self.list.currentRow()
                at = rows.index(current) if current in rows else -1
                step = 1 if event.key() == Qt.Key.Key_Down else -1
                self.list.setCurrentRow(rows[max(0, min(len(rows) - 1, at + step))])
            return True
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_cards()

    def showEvent(self, event: Any) -> None:  # noqa: N802
        super().showEvent(event)
        self.fit_cards()

    def fit_cards(self) -> None:
        """Each card as tall as its wrapped description at the list's width."""
        width = max(200, self.list.viewport().width() - 2 * self.list.spacing())
        for i in range(self.list.count()):
            item = self.list.item(i)
            card = self.list.itemWidget(item)
            height = card.layout().totalHeightForWidth(width) if card is not None else 40
            item.setSizeHint(QSize(width, max(height, 48)))

    def filter(self, text: str) -> None:
        needle = text.strip().casefold()
        first = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            t = self.template_at(i)
            hidden = bool(needle) and needle not in f"{t.title} {t.description}".casefold()
            item.setHidden(hidden)
            if not hidden and first is None:
                first = i
        current = self.list.currentItem()
        if current is None or current.isHidden():
            self.list.setCurrentRow(first if first is not None else -1)
        self.empty.setVisible(first is None)
        self.completeChanged.emit()

    def template_at(self, row: int) -> Template:
        name = self.list.item(row).data(Qt.ItemDataRole.UserRole)
        return next(t for t in self.templates if t.name == name)

    def selected(self) -> Template | None:
        item = self.list.currentItem()
        if item is None or item.isHidden():
            return None
        return self.template_at(self.list.row(item))

    def select(self, name: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(i)
                return
        raise KeyError(name)

    def isComplete(self) -> bool:  # noqa: N802
        return self.selected() is not None


class BlankField:
    """One parameter's widget, its value and the error line beside it."""

    def __init__(self, page: "FillPage", p: Parameter) -> None:
        self.parameter = p
        self.page = page
        self.error = ErrorLabel(None)
        self.line: QLineEdit | None = None
        self.time: QTimeEdit | None = None
        self.spin: QSpinBox | None = None
        self.combo: QComboBox | None = None
        self.button: QPushButton | None = None
        tr = page.tr
        if p.kind in ("text", "url", "folder"):
            self.line = QLineEdit(str(p.default or ""))
            self.line.setAccessibleName(p.label)
            self.line.setMaxLength(2000)
            if p.kind == "url":
                self.line.setPlaceholderText("https://example.com/")
                self.line.setInputMethodHints(Qt.InputMethodHint.ImhUrlCharactersOnly)
            elif p.kind == "folder":
                self.line.setPlaceholderText(tr("An existing folder, e.g. %1").replace(
                    "%1", str(Path.home())))
            self.line.textChanged.connect(page.validate)
            widget: QWidget = self.line
            if p.kind == "folder":
                self.button = QPushButton(tr("Choose…"))
                self.button.setAccessibleName(tr("Choose the folder for %1").replace(
                    "%1", p.label))
                self.button.setAutoDefault(False)
                self.button.clicked.connect(self.choose_folder)
                widget = QWidget()
                row = QHBoxLayout(widget)
                row.setContentsMargins(0, 0, 0, 0)
                row.addWidget(self.line, 1)
                row.addWidget(self.button)
                widget.setFocusProxy(self.line)
        elif p.kind == "time":
            hour, minute = (str(p.default or "09:00")).split(":")
            self.time = QTimeEdit(QTime(int(hour), int(minute)))
            self.time.setDisplayFormat("HH:mm")
            self.time.setAccessibleName(p.label)
            self.time.timeChanged.connect(page.validate)
            widget = self.time
        elif p.kind == "integer":
            self.spin = QSpinBox()
            self.spin.setRange(max(-_INT_LIMIT, p.minimum if p.minimum is not None else 0),
                               min(_INT_LIMIT, p.maximum if p.maximum is not None
                                   else _INT_LIMIT))
            self.spin.setValue(int(p.default) if p.default is not None else self.spin.minimum())
            self.spin.setAccessibleName(p.label)
            self.spin.valueChanged.connect(page.validate)
            widget = self.spin
        else:
            self.combo = QComboBox()
            if not p.required:
                self.combo.addItem("—", "")
            for choice in p.choices:
                self.combo.addItem(choice, choice)
            if p.default is not None:
                self.combo.setCurrentIndex(max(0, self.combo.findData(p.default)))
            self.combo.setAccessibleName(p.label)
            self.combo.currentIndexChanged.connect(page.validate)
            widget = self.combo
        if p.kind in ("time", "integer", "choice"):
            widget.setSizePolicy(QSizePolicy.Policy.Fixed, widget.sizePolicy().verticalPolicy())
        self.error.field = self.focus_widget()
        self.holder = QWidget()
        column = QVBoxLayout(self.holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        if p.help:
            self.help = QLabel(p.help)
            self.help.setWordWrap(True)
            self.help.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            shrinkable(self.help)
            self.help.setMinimumWidth(160)
            self.focus_widget().setAccessibleDescription(p.help)
            self.error._description = p.help
            column.addWidget(self.help)
        column.addWidget(self.error)
        self.holder.setFocusProxy(widget)

    def focus_widget(self) -> QWidget:
        return self.line or self.time or self.spin or self.combo  # type: ignore[return-value]

    def value(self) -> str | int:
        if self.line is not None:
            return self.line.text()
        if self.time is not None:
            return self.time.time().toString("HH:mm")
        if self.spin is not None:
            return self.spin.value()
        assert self.combo is not None
        return str(self.combo.currentData())

    def set_value(self, value: object) -> None:
        if self.line is not None:
            self.line.setText(str(value))
        elif self.time is not None:
            hour, minute = str(value).split(":")
            self.time.setTime(QTime(int(hour), int(minute)))
        elif self.spin is not None:
            self.spin.setValue(int(value))  # type: ignore[call-overload]
        elif self.combo is not None:
            self.combo.setCurrentIndex(self.combo.findData(value))

    def choose_folder(self) -> None:
        assert self.line is not None
        start = self.line.text().strip() or str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self.page, words.tr("Choose %1").replace(
            "%1", self.parameter.label), start)
        if chosen:
            self.line.setText(chosen)

    def check(self) -> str:
        """The refusal of the value as it is now ("" when it is fine)."""
        try:
            self.parameter.check(self.value())
        except InvalidInput as exc:
            return _words(exc)
        return ""


class FillPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle(self.tr("Fill in the blanks"))
        self.template: Template | None = None
        self.fields: dict[str, BlankField] = {}
        self.body = QWidget()
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.body)
        self.scroll.setAccessibleName(self.tr("Blanks"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)

    def build(self, template: Template) -> None:
        """The fields for ``template`` (kept as typed while it stays the one picked)."""
        if self.template is not None and self.template.name == template.name:
            return
        self.template = template
        self.setSubTitle(template.description)
        self.fields = {}
        body = QWidget()
        form = QFormLayout(body)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for p in template.blanks:   # (a time only the schedule uses: the next page asks)
            field = BlankField(self, p)
            self.fields[p.name] = field
            label = QLabel(p.label + ("" if p.required else " " + self.tr("(optional)")))
            label.setBuddy(field.focus_widget())
            form.addRow(label, field.holder)
        self.body = body
        old = self.scroll.takeWidget()
        if old is not None:
            old.deleteLater()
        self.scroll.setWidget(body)
        self.validate()

    def values(self) -> dict[str, Any]:
        """The blanks as typed, and the template's defaults for those not asked here."""
        asked = {name: f.value() for name, f in self.fields.items()}
        if self.template is None:
            return asked
        return {**{k: v for k, v in self.template.defaults().items() if k not in asked}, **asked}

    def errors(self) -> dict[str, str]:
        """Each blank's refusal now, by name (only those refused)."""
        out = {}
        for name, field in self.fields.items():
            message = field.check()
            if message:
                out[name] = message
        return out

    def validate(self, *_args: object) -> None:
        refused = self.errors()
        for name, field in self.fields.items():
            if name in refused:
                field.error.show_message(refused[name])
            else:
                field.error.clear_message()
        self.completeChanged.emit()

    def field_error(self, name: str) -> str:
        label = self.fields[name].error
        return label.text() if label.showing else ""

    def isComplete(self) -> bool:  # noqa: N802
        if self.template is None or self.errors():
            return False
        try:
            self.template.check(self.values())
        except InvalidInput:
            return False
        return True

    def initializePage(self) -> None:  # noqa: N802
        wizard: TemplateWizard = self.wizard()  # type: ignore[assignment]
        template = wizard.pick.selected()
        if template is not None:
            self.build(template)
        first = next(iter(self.fields.values()), None)
        if first is not None:
            first.focus_widget().setFocus()


class SchedulePage(QWizardPage):
    def __init__(self, zone_default: str, clock: Callable[[], datetime]) -> None:
        super().__init__()
        self.setTitle(self.tr("When it runs, and what it may do"))
        self.setSubTitle(self.tr("The template's schedule; change it if you like."))
        self.zone_default = zone_default
        self.clock = clock
        self.doc: dict[str, Any] = {}
        self._loaded: dict[str, Any] | None = None
        self.picker = SchedulePicker(zone_default=zone_default, clock=clock)
        self.picker.changed.connect(self._changed)
        self.permissions = QLabel()
        self.permissions.setWordWrap(True)
        self.permissions.setTextFormat(Qt.TextFormat.PlainText)
        self.permissions.setAccessibleName(self.tr("What it may do without asking"))
        shrinkable(self.permissions)
        self.permissions.setMinimumWidth(160)
        self.permissions_note = QLabel(self.tr("These come with the template; change them in "
                                               "the automation's form after creating it."))
        self.permissions_note.setWordWrap(True)
        self.permissions_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        shrinkable(self.permissions_note)
        self.permissions_note.setMinimumWidth(160)
        heading = QLabel(self.tr("Permissions"))
        font = QFont(heading.font())
        font.setWeight(QFont.Weight.DemiBold)
        heading.setFont(font)
        body = QWidget()
        column = QVBoxLayout(body)
        column.addWidget(self.picker)
        column.addSpacing(8)
        column.addWidget(heading)
        column.addWidget(self.permissions)
        column.addWidget(self.permissions_note)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        scroll.setAccessibleName(self.tr("Schedule and permissions"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

    def load(self, doc: dict[str, Any]) -> None:
        """Show a filled document's schedule (again only when the blanks changed it)."""
        trigger = trigger_of(doc) or {"kind": "manual"}
        if trigger.get("kind") == "cron" and not trigger.get("timezone"):
            trigger["timezone"] = self.zone_default    # the engine reads it in this zone
        self.doc = copy.deepcopy(doc)
        if trigger != self._loaded:
            self._loaded = trigger
            self.picker.load_trigger(trigger)
        stop = doc.get("stop") or {}
        self.picker.set_limits(stop.get("max_runs"), None)
        try:
            d = parse_definition(doc, ParseContext(now=self.clock(),
                                                   min_interval=timedelta(0),
                                                   default_timezone=self.zone_default))
        except InvalidInput as exc:
            self.permissions.setText(str(exc))
            return
        lines = words.permission_lines(d)
        p = d.permissions
        if d.runner.kind == "agent" and (p.mode == "allow_all" or (
                p.mode == "allow_listed" and "run_command" in p.tools)):
            lines.insert(0, self.tr("Runs commands without asking."))
        self.permissions.setText("\n".join(lines))
        self.permissions_note.setVisible(d.runner.kind == "agent")

    def document(self) -> dict[str, Any]:
        """The filled document with the trigger the picker shows (the origin kept);
        raises ``InvalidInput`` when the picker's choice cannot be read."""
        doc = copy.deepcopy(self.doc)
        put_trigger(doc, self.picker.trigger())
        return doc

    def _changed(self) -> None:
        self.picker.clear_errors()
        self.completeChanged.emit()

    def initializePage(self) -> None:  # noqa: N802
        wizard: TemplateWizard = self.wizard()  # type: ignore[assignment]
        self.load(wizard.filled())
        self.picker.mode_box.setFocus()

    def isComplete(self) -> bool:  # noqa: N802
        try:
            self.picker.trigger()
        except InvalidInput:
            return False
        return True

    def validatePage(self) -> bool:  # noqa: N802
        try:
            self.picker.preview_fires(1)
        except InvalidInput as exc:
            self.picker.show_error(exc.field, _words(exc))
            return False
        return True


class ReviewPage(QWizardPage):
    def __init__(self, zone_default: str, clock: Callable[[], datetime],
                 local_tz: tzinfo | None) -> None:
        super().__init__()
        self.setTitle(self.tr("Review"))
        self.setSubTitle(self.tr("Nothing is created until you press Create."))
        self.zone_default = zone_default
        self.card = ConfirmationCard(buttons=False, clock=clock, local_tz=local_tz)
        self.problem = ErrorLabel(None)
        self.problem.setAccessibleName(self.tr("Problem"))
        self.valid = False
        self.answered = False       # the owner said created(): Finish may close
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.card)
        scroll.setAccessibleName(self.tr("What will be created"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.problem)
        layout.addWidget(scroll, 1)

    def initializePage(self) -> None:  # noqa: N802
        wizard: TemplateWizard = self.wizard()  # type: ignore[assignment]
        self.problem.clear_message()
        self.valid = False
        try:
            doc = wizard.schedule.document()
            template = wizard.template()
            self.card.set_document(doc, zone_default=self.zone_default, origin_text=self.tr(
                "From the template “%1”").replace("%1", template.title) if template else None)
            self.valid = True
        except InvalidInput as exc:
            self.problem.show_message(str(exc))
        self.completeChanged.emit()

    def isComplete(self) -> bool:  # noqa: N802
        return self.valid and not self.card.busy

    def validatePage(self) -> bool:  # noqa: N802
        if self.answered:
            return True
        wizard: TemplateWizard = self.wizard()  # type: ignore[assignment]
        if self.card.busy or not self.valid:
            return False
        self.card.clear_error()
        self.card.set_busy(True)
        self.completeChanged.emit()
        wizard.create_requested.emit(copy.deepcopy(self.card.doc))
        return False


class TemplateWizard(QWizard):
    """The New from template wizard. ``folder`` (default: the shipped templates) is where
    the template files are read from; ``templates``/``problems`` may be given instead."""

    create_requested = Signal(dict)

    def __init__(self, parent: QWidget | None = None, *, zone_default: str,
                 folder: Path | None = None,
                 templates: list[Template] | None = None,
                 problems: list[TemplateProblem] | None = None,
                 clock: Callable[[], datetime] = utcnow,
                 local_tz: tzinfo | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("templateWizard")
        self.setWindowTitle(self.tr("New from template"))
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setSizeGripEnabled(True)
        self.resize(680, 600)
        if templates is None:
            templates, found = load_templates(folder, now=clock())
            problems = found if problems is None else problems
        self.templates = templates
        self.problems = list(problems or [])
        self.zone_default = zone_default
        self.pick = PickPage(templates, self.problems)
        self.fill_page = FillPage()
        self.schedule = SchedulePage(zone_default, clock)
        self.review = ReviewPage(zone_default, clock, local_tz)
        if local_tz is not None:
            self.schedule.picker.local_tz = local_tz
        for page_id, page in ((PICK, self.pick), (FILL, self.fill_page),
                              (SCHEDULE, self.schedule), (REVIEW, self.review)):
            self.setPage(page_id, page)
        self.setStartId(PICK)
        self.setButtonText(QWizard.WizardButton.FinishButton, self.tr("Create"))
        self.setButtonText(QWizard.WizardButton.NextButton, self.tr("Next"))
        self.setButtonText(QWizard.WizardButton.BackButton, self.tr("Back"))
        self.setButtonText(QWizard.WizardButton.CancelButton, self.tr("Cancel"))
        for which, name in ((QWizard.WizardButton.FinishButton, self.tr("Create")),
                            (QWizard.WizardButton.NextButton, self.tr("Next")),
                            (QWizard.WizardButton.BackButton, self.tr("Back")),
                            (QWizard.WizardButton.CancelButton, self.tr("Cancel"))):
            self.button(which).setAccessibleName(name)

    # ------------------------------------------------------------------ reading

    def template(self) -> Template | None:
        return self.pick.selected()

    def filled(self) -> dict[str, Any]:
        """The template filled with the blanks as typed (``InvalidInput`` when refused)."""
        template = self.pick.selected()
        assert template is not None
        if self.fill_page.template is None or self.fill_page.template.name != template.name:
            self.fill_page.build(template)
        return template.fill(self.fill_page.values())

    def document(self) -> dict[str, Any]:
        """What Create would send: the filled template with the chosen schedule."""
        return self.schedule.document()

    def nextId(self) -> int:  # noqa: N802
        current = self.currentId()
        if current == PICK:
            template = self.pick.selected()
            return FILL if template is not None and template.blanks else SCHEDULE
        return super().nextId()

    # ------------------------------------------------------------------ driving

    def select_template(self, name: str) -> None:
        self.pick.select(name)

    def set_value(self, name: str, value: object) -> None:
        """Type a blank's value (after the fill page was shown)."""
        self.fill_page.fields[name].set_value(value)

    # ------------------------------------------------------------------ answers

    def created(self) -> None:
        """The owner created it: close."""
        self.review.answered = True
        self.review.card.set_busy(False)
        self.accept()

    def show_error(self, text: str) -> None:
        """The engine refused: say so on the review card; Create works again."""
        self.review.card.show_error(text)
        self.review.completeChanged.emit()


class TemplateWizardFlow(QObject):
    """Owns one :class:`TemplateWizard` and creates what it asks through the engine."""

    created = Signal(str)
    finished = Signal()

    def __init__(self, parent: QWidget | None, api: Any, zone: str, *,
                 folder: Path | None = None, clock: Callable[[], datetime] = utcnow,
                 local_tz: tzinfo | None = None) -> None:
        super().__init__(parent)
        self.api = api
        self.wizard = TemplateWizard(parent, zone_default=zone, folder=folder, clock=clock,
                                     local_tz=local_tz)
        self.tasks = Tasks("a template wizard action")
        self.tasks.loop = current_loop()
        self._done = self.tasks.loop.create_future()
        self.wizard.create_requested.connect(lambda doc: self._spawn(self.create(doc)))
        self.wizard.finished.connect(lambda _result: self._spawn(self._closing()))

    def open(self) -> TemplateWizard:
        self.wizard.open()
        return self.wizard

    async def create(self, doc: dict[str, Any]) -> str | None:
        try:
            automation, _created = (await self.api.create(doc)).value
        except ErrandsError as exc:
            text = _words(exc) if isinstance(exc, InvalidInput) else exc.message
            self.wizard.show_error(text)
            return None
        self.wizard.created()
        self.created.emit(automation.id)
        return str(automation.id)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.tasks.spawn(coro)  # type: ignore[return-value]

    async def _closing(self) -> None:
        await self.tasks.idle()
        if not self._done.done():
            self._done.set_result(None)
        self.finished.emit()

    async def wait(self) -> None:
        await asyncio.shield(self._done)
