"""Quick create: one sentence in a box, the automation it means shown on a card, Create.

:class:`QuickCreateDialog` is passive: Enter (or a clicked example) emits
``draft_requested(text)``; the owner answers ``show_draft(draft)``, ``show_refusal(text)``
(beside the box, the typed text kept) or ``show_busy(True)`` while a model is asked. The
card's Create and Edit in form are re-emitted as ``create_requested(doc)`` and
``edit_requested(doc)``; the owner answers Create with ``created()`` or ``show_error(text)``.

:class:`QuickCreateFlow` is that owner over the engine: the phrase parser first, the model
(the provider configured in Settings) when the parser cannot read the sentence, Create
through ``api.create``, Edit in form as its ``edit_in_form(doc)`` signal for the window to
open the form pre-filled.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QFrame,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
    QWidgetItem,
)

from ...drafts import EXAMPLE, Draft, FolderMention
from ...errors import ErrandsError, InvalidInput
from ...timeutil import utcnow
from .. import words
from ..tasks import Tasks, current_loop
from .card import ConfirmationCard
from .fields import ErrorLabel

log = logging.getLogger(__name__)

EXAMPLES = (
    EXAMPLE,
    "every weekday at 8:30 check the build",
    "every 5 minutes run `df -h`",
    "in 10 minutes remind me to stretch",
    "every monday at 10 write the weekly report",
    "on the 1st of every month at 9 pay the rent",
)


class FlowLayout(QLayout):
    """Items left to right, wrapping to the next line when the width runs out (chips)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802
        self._items.append(item)

    def addWidget(self, widget: QWidget) -> None:  # noqa: N802
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            if item.widget() is not None and item.widget().isHidden():
                continue
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line > 0:
                x, y, line = area.x(), y + line + self._spacing, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line = max(line, hint.height())
        return y + line - rect.y() + m.bottom()


def refusal_words(exc: BaseException) -> str:
    """A refusal of the sentence in words (without ``sentence: ``), with its example; an
    engine refusal with a reason the window words itself, in its language, after the
    field's name."""
    if isinstance(exc, InvalidInput):
        own = words.refusal_words(exc, words.local_zone())
        if own is not None:
            label = words.field_words(exc.field)
            return f"{label}: {own}" if label else own
        text = str(exc)
        if exc.field in ("sentence", "schedule") and text.startswith(exc.field + ": "):
            text = text[len(exc.field) + 2:]
        return text[:1].upper() + text[1:]
    if isinstance(exc, ErrandsError):
        return exc.message
    return str(exc) or type(exc).__name__


def resolve_folder(mention: FolderMention) -> str | None:
    """The folder the task's words point at, when they do (a path as written, a user
    folder such as Downloads that exists); None leaves the question open. Reads the disk:
    call it off the event loop."""
    if mention.path is not None:   # filled in only when it is a folder (not /etc/hosts)
        path = os.path.expanduser(mention.path)
        return path if os.path.isabs(path) and os.path.isdir(path) else None
    if mention.user_folder is not None:
        import platformdirs
        find = getattr(platformdirs, f"user_{mention.user_folder}_dir", None)
        path = find() if find is not None else None
        return path if path and os.path.isdir(path) else None
    return None


class QuickCreateDialog(QDialog):
    """A sentence box, example chips and the confirmation card of its draft."""

    draft_requested = Signal(str)
    create_requested = Signal(dict)
    edit_requested = Signal(dict)
    template_wanted = Signal()       # "From a template…": the owner opens the wizard
    form_wanted = Signal()           # "Blank form…": the owner opens an empty form
    model_wanted = Signal()          # the card's "Set up a model…"
    picker_wanted = Signal(str)      # "Choose the time in the form…" with the sentence
    activated = Signal()             # the dialog came to the front again (a model set up?)

    def __init__(self, parent: QWidget | None = None, *,
                 clock: Callable[[], datetime] = utcnow, local_tz: tzinfo | None = None,
                 examples: tuple[str, ...] = EXAMPLES) -> None:
        super().__init__(parent)
        self.setObjectName("quickCreate")
        self.setWindowTitle(self.tr("Quick create"))
        self.setSizeGripEnabled(True)
        self.resize(640, 560)
        self.busy = False
        self.draft: Draft | None = None

        prompt = QLabel(self.tr("&Describe it: when, and what to do"))
        self.line_edit = QLineEdit()
        self.line_edit.setPlaceholderText(self.tr("e.g. %1").replace("%1", EXAMPLE))
        self.line_edit.setAccessibleName(self.tr("Describe the automation"))
        self.line_edit.setAccessibleDescription(self.tr(
            "Say when and what in one sentence, then press Enter"))
        self.line_edit.setMaxLength(2000)
        self.line_edit.setClearButtonEnabled(True)
        prompt.setBuddy(self.line_edit)
        self.draft_button = QPushButton(self.tr("Draft"))
        self.draft_button.setAccessibleName(self.tr("Draft it"))
        self.draft_button.setToolTip(self.tr("Read the sentence (Enter)"))
        self.line_edit.returnPressed.connect(self.request_draft)
        self.draft_button.clicked.connect(self.request_draft)
        box_row = QHBoxLayout()
        box_row.addWidget(self.line_edit, 1)
        box_row.addWidget(self.draft_button)

        self.refusal = ErrorLabel(self.line_edit)
        self.refusal.setAccessibleName(self.tr("Could not read it"))
        self.picker_button = QPushButton(self.tr("Choose the time in the &form…"))
        self.picker_button.setAccessibleName(self.tr("Choose the time in the form"))
        self.picker_button.setToolTip(self.tr("Open the form with this as the task, at its "
                                              "schedule"))
        self.picker_button.clicked.connect(
            lambda: self._hand_over_text(self.picker_wanted))
        self.picker_button.setVisible(False)
        picker_row = QHBoxLayout()
        picker_row.addWidget(self.picker_button)
        picker_row.addStretch(1)

        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.setAccessibleName(self.tr("Asking the model"))
        self.busy_text = QLabel(self.tr("The sentence did not read as a schedule: asking the "
                                        "model to draft it…"))
        self.busy_text.setWordWrap(True)
        self.busy_row = QWidget()
        busy = QVBoxLayout(self.busy_row)
        busy.setContentsMargins(0, 0, 0, 0)
        busy.addWidget(self.busy_text)
        busy.addWidget(self.progress)
        self.busy_row.setVisible(False)

        self.examples_label = QLabel(self.tr("Examples:"))
        self.chips: list[QPushButton] = []
        self.chip_box = QWidget()
        chips = FlowLayout(self.chip_box)
        for text in examples:
            chip = QPushButton(text)
            chip.setObjectName("exampleChip")
            chip.setAccessibleName(self.tr("Example: %1").replace("%1", text))
            chip.setToolTip(self.tr("Use this example"))
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.clicked.connect(lambda _=False, t=text: self.use_example(t))
            self.chips.append(chip)
            chips.addWidget(chip)
        self.chip_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

        self.card = ConfirmationCard(clock=clock, local_tz=local_tz)
        self.card.cancel_button.setVisible(False)      # the dialog's own Cancel is there
        self.card.create_requested.connect(self.create_requested.emit)
        self.card.edit_requested.connect(self.edit_requested.emit)
        self.card.model_wanted.connect(self.model_wanted.emit)
        self.card_scroll = QScrollArea()
        self.card_scroll.setWidgetResizable(True)
        self.card_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.card_scroll.setWidget(self.card)
        self.card_scroll.setAccessibleName(self.tr("The draft"))
        self.card_scroll.setVisible(False)
        self.spacer = QWidget()
        self.spacer.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setAccessibleName(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Close without creating anything (Esc)"))
        self.cancel_button.clicked.connect(self.reject)
        self.template_button = QPushButton(self.tr("From a &template…"))
        self.template_button.setAccessibleName(self.tr("Start from a template"))
        self.template_button.setToolTip(self.tr("Pick a ready-made automation and fill in "
                                                "its blanks"))
        self.template_button.clicked.connect(lambda: self._hand_over(self.template_wanted))
        self.form_button = QPushButton(self.tr("Blank &form…"))
        self.form_button.setAccessibleName(self.tr("Open the full form"))
        self.form_button.setToolTip(self.tr("Set every field yourself"))
        self.form_button.clicked.connect(lambda: self._hand_over(self.form_wanted))
        bottom = QHBoxLayout()
        bottom.addWidget(self.template_button)
        bottom.addWidget(self.form_button)
        bottom.addWidget(self.cancel_button)
        # the card's Edit in form and Create sit beside Cancel, outside its scroll area
        self.card.layout().removeWidget(self.card.button_row)
        bottom.addWidget(self.card.button_row, 1)
        self.card.button_row.setVisible(False)

        layout = QVBoxLayout(self)
        layout.addWidget(prompt)
        layout.addLayout(box_row)
        layout.addWidget(self.refusal)
        layout.addLayout(picker_row)
        layout.addWidget(self.busy_row)
        layout.addWidget(self.examples_label)
        layout.addWidget(self.chip_box)
        layout.addWidget(self.card_scroll, 1)
        layout.addWidget(self.spacer, 1)
        layout.addLayout(bottom)

        # Enter belongs to the box (draft), never to a default button
        for button in [self.draft_button, self.cancel_button, self.template_button,
                       self.picker_button,
                       self.form_button, *self.chips,
                       self.card.create_button, self.card.edit_button,
                       self.card.cancel_button, self.card.show_all, self.card.model_button,
                       self.card.folder_button]:
            button.setAutoDefault(False)
            button.setDefault(False)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(self._shortcut_create)
        self.line_edit.setFocus()

    def changeEvent(self, event: Any) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == event.Type.ActivationChange and self.isActiveWindow():
            self.activated.emit()

    # ---------------------------------------------------------------- the box

    def _hand_over(self, signal: Any) -> None:
        """Leave the sentence for another way of creating: close, then say which."""
        self.reject()
        signal.emit()

    def _hand_over_text(self, signal: Any) -> None:
        text = self.line_edit.text().strip()
        self.reject()
        signal.emit(text)

    def text(self) -> str:
        return self.line_edit.text()

    def set_text(self, text: str) -> None:
        self.line_edit.setText(text)

    def request_draft(self) -> bool:
        """Emit ``draft_requested`` with the sentence (nothing when the box is empty)."""
        text = self.line_edit.text().strip()
        if not text:
            self.show_refusal(self.tr("Say when and what in one sentence, e.g. “%1”").replace(
                "%1", EXAMPLE))
            return False
        self.refusal.clear_message()
        self.draft_requested.emit(text)
        return True

    def use_example(self, text: str) -> None:
        self.line_edit.setText(text)
        self.line_edit.setFocus()
        self.request_draft()

    # ------------------------------------------------------------- the answers

    def show_busy(self, busy: bool) -> None:
        """While the model is asked: a progress bar; the box stays editable and Cancel
        still closes (the owner drops the question)."""
        self.busy = busy
        self.busy_row.setVisible(busy)
        self.draft_button.setEnabled(not busy)

    def show_draft(self, draft: Draft) -> None:
        """Show the draft on the card (the typed sentence stays in the box)."""
        self.picker_button.setVisible(False)
        self.show_busy(False)
        self.refusal.clear_message()
        self.draft = draft
        self.card.set_document(draft.doc, draft.definition, warnings=draft.warnings,
                               source=draft.source)
        self.card_scroll.setVisible(True)
        self.card.button_row.setVisible(True)
        self.spacer.setVisible(False)
        self.examples_label.setVisible(False)
        self.chip_box.setVisible(False)
        self.card.create_button.setFocus()

    def show_refusal(self, text: str, *, offer_form: bool = False) -> None:
        """The sentence could not be read: why, beside the box; the text is kept.
        ``offer_form`` adds "Choose the time in the form…"."""
        self.picker_button.setVisible(offer_form)
        self.show_busy(False)
        self.draft = None
        self.card_scroll.setVisible(False)
        self.card.button_row.setVisible(False)
        self.spacer.setVisible(True)
        self.examples_label.setVisible(True)
        self.chip_box.setVisible(True)
        self.refusal.show_message(text)
        self.line_edit.setFocus()

    def refusal_text(self) -> str:
        return self.refusal.text() if self.refusal.showing else ""

    def show_error(self, text: str) -> None:
        """The engine refused to create the draft: on the card, which stays."""
        self.card.show_error(text)

    def created(self) -> None:
        """The owner created it: close."""
        self.card.set_busy(False)
        self.accept()

    def _shortcut_create(self) -> None:
        if self.card_scroll.isVisible() and self.draft is not None:
            self.card.request_create()


class QuickCreateFlow(QObject):
    """Owns one :class:`QuickCreateDialog` and answers it with the drafts module and the
    engine. ``open()`` shows it; ``wait()`` returns once it closed and its work ended."""

    created = Signal(str)           # the new automation's id
    edit_in_form = Signal(dict)     # open the form with this document
    template_wanted = Signal()      # the user chose a template instead
    form_wanted = Signal()          # the user chose the blank form instead
    model_wanted = Signal()         # open the settings at the model provider
    picker_wanted = Signal(dict)    # open the form at its schedule with this document
    finished = Signal()

    def __init__(self, parent: QWidget | None, api: Any, data_dir: Path, zone: str, *,
                 clock: Callable[[], datetime] = utcnow, local_tz: tzinfo | None = None,
                 language: str | None = None) -> None:
        super().__init__(parent)
        self.api = api
        self.data_dir = Path(data_dir)
        self.zone = zone
        self.clock = clock
        self.language = language if language is not None else \
            words.locale().name().split("_")[0]
        self.dialog = QuickCreateDialog(parent, clock=clock, local_tz=local_tz)
        self.tasks = Tasks("a quick-create action")
        self.tasks.loop = current_loop()
        self._done = self.tasks.loop.create_future()
        self._draft_task: asyncio.Task[Any] | None = None
        self._provider: Any = None
        self.dialog.draft_requested.connect(self._draft_requested)
        self.dialog.create_requested.connect(
            lambda doc: self._spawn(self.create(doc)))
        self.dialog.edit_requested.connect(self._edit)
        self.dialog.template_wanted.connect(self.template_wanted)
        self.dialog.form_wanted.connect(self.form_wanted)
        self.dialog.model_wanted.connect(self.model_wanted)
        self.dialog.picker_wanted.connect(self._to_picker)
        self.dialog.activated.connect(self._recheck_model)
        self.dialog.finished.connect(lambda _result: self._spawn(self._closing()))

    def open(self) -> QuickCreateDialog:
        self.dialog.open()
        self.dialog.line_edit.setFocus()
        return self.dialog

    # ------------------------------------------------------------------ drafting

    def _draft_requested(self, text: str) -> None:
        if self._draft_task is not None:
            self._draft_task.cancel()        # the newer sentence wins
        self._draft_task = self._spawn(self.draft(text))

    async def draft(self, text: str) -> Draft | None:
        """Read the sentence (the model only when the parser cannot and one is set up) and
        show the draft or the refusal. The draft, or None."""
        from ...drafts import draft as make_draft
        from ...drafts import draft_from_phrase

        now = self.clock()
        try:
            result = draft_from_phrase(text, zone=self.zone, now=now, language=self.language)
        except InvalidInput as refused:
            said, foreign = self._refusal_text(refused)
            try:
                provider = await self.provider()
            except ErrandsError as exc:
                self.dialog.show_refusal(said + "\n" + self.tr(
                    "The model could not be asked: %1").replace("%1", refusal_words(exc)),
                    offer_form=foreign)
                return None
            except Exception as exc:  # a provider fault (no key in a broken keyring)
                self.dialog.show_refusal(said + "\n" + self.tr(
                    "The model could not be asked: %1").replace(
                    "%1", getattr(exc, "message", str(exc))), offer_form=foreign)
                return None
            if provider is None or not text.strip():
                self.dialog.show_refusal(said, offer_form=foreign)
                return None
            self.dialog.show_busy(True)
            try:
                result = await make_draft(text, zone=self.zone, now=now, provider=provider,
                                          language=self.language)
            except asyncio.CancelledError:
                self.dialog.show_busy(False)
                raise
            except InvalidInput as exc:
                # the parser's and the model's reasons, or (German, Chinese) the forms read
                self.dialog.show_refusal(said if foreign else refusal_words(exc),
                                         offer_form=foreign)
                return None
            except Exception as exc:  # ProviderError: unreachable, refused key, timeout
                message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
                self.dialog.show_refusal(refusal_words(refused) + "\n" + self.tr(
                    "The model could not draft it: %1").replace("%1", message))
                return None
        # (asked before the card is shown, so the card and its note come in one step: a
        # newer draft cancelling this one in between cannot leave the note out)
        agent = result.definition.runner.kind == "agent"
        missing = agent and not await self.has_model()
        self.dialog.show_draft(result)
        if agent:
            self.dialog.card.set_needs_model(missing)
        if result.folder is not None:   # asked at once (Ctrl+Enter cannot skip it) ...
            card = self.dialog.card
            card.ask_folder(result.folder.words, None)
            guess = await asyncio.to_thread(resolve_folder, result.folder)
            if guess and card.asking_folder and not card.folder_edit.text():
                card.folder_edit.setText(guess)   # ... and filled in once known
        return result

    def _refusal_text(self, refused: InvalidInput) -> tuple[str, bool]:
        """Why the sentence was not read, and whether to offer the form's picker: in a
        German or Chinese window, which forms are read, in that language (the parser's
        reasons are English and name English words)."""
        if self.language in ("de", "zh") and refused.field == "schedule":
            text = self.tr(
                "This sentence could not be read. Besides English, these forms are read: "
                "every day at 9, every weekday at 8:30, every Monday at 10, every month on "
                "the 1st, in 10 minutes, tomorrow at 7pm, every 2 hours, remind me to … . "
                "Write the time in one of them, or choose it in the form.")
            if refused.words:   # what it could not use, in the sentence's own words
                text += "\n" + self.tr("Not understood: %1").replace(
                    "%1", ", ".join(f"“{w}”" for w in refused.words))
            return text, True
        if self.language in ("de", "zh"):
            own = words.refusal_words(refused, words.local_zone())
            if own is not None:
                return own, False
        return refusal_words(refused), False

    def _to_picker(self, sentence: str) -> None:
        """The form, with the sentence as the task, at its schedule."""
        text = sentence.strip()
        self.picker_wanted.emit({"title": text.splitlines()[0][:120] if text else "",
                                 "runner": {"kind": "agent", "prompt": text},
                                 "trigger": {"kind": "manual"}})

    async def has_model(self) -> bool:
        """Whether a model provider is set up (a provider that cannot be built, such as a
        key missing from a broken keyring, is set up: its run says what is wrong)."""
        try:
            return await self.provider() is not None
        except Exception:  # noqa: BLE001 - any fault here is the run's to report
            return True

    def _recheck_model(self) -> None:
        """Back from the settings: the card's "needs a model" goes once one is set up."""
        if self.dialog.card.needs_model():
            self._spawn(self._model_check())

    async def _model_check(self) -> None:
        if await self.has_model():
            self.dialog.card.set_needs_model(False)

    async def provider(self) -> Any:
        """The model provider configured in Settings (built once), or None."""
        if self._provider is not None:
            return self._provider
        from ...agent.config import load_provider_config
        from ...agent.provider import Provider
        from ...settings import Settings

        stored = (await self.api.settings()).value
        settings = Settings(stored)
        config = await asyncio.to_thread(load_provider_config, settings, self.data_dir)
        if config is None:
            return None
        self._provider = Provider(config)
        return self._provider

    # ------------------------------------------------------------------ creating

    async def create(self, doc: dict[str, Any]) -> str | None:
        """Create ``doc`` through the engine; its id, or None (the refusal on the card)."""
        folder = doc.get("workdir") if self.dialog.card.asking_folder else None
        if folder and not await asyncio.to_thread(os.path.isdir, folder):
            self.dialog.card.show_folder_error(self.tr("There is no folder at %1").replace(
                "%1", folder))
            return None
        try:
            automation, _created = (await self.api.create(doc)).value
        except ErrandsError as exc:
            self.dialog.show_error(refusal_words(exc))
            return None
        self.dialog.created()
        self.created.emit(automation.id)
        return str(automation.id)

    def _edit(self, doc: dict[str, Any]) -> None:
        self.edit_in_form.emit(doc)
        self.dialog.accept()

    # ----------------------------------------------------------------- lifecycle

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.tasks.spawn(coro)  # type: ignore[return-value]

    async def _closing(self) -> None:
        if self._draft_task is not None:
            self._draft_task.cancel()       # nobody is there to read the draft
        await self.tasks.idle()
        if self._provider is not None:
            provider, self._provider = self._provider, None
            await provider.close()
        if not self._done.done():
            self._done.set_result(None)
        self.finished.emit()

    async def wait(self) -> None:
        """Until the dialog closed and what it started has ended."""
        await asyncio.shield(self._done)
