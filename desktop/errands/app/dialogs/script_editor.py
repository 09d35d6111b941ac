"""The form's script editor: JavaScript with line numbers and highlighting, an error shown
at its line, and "Try it", a dry run whose verdicts are listed under the code.

The dry run is the engine's (``tester``: the controller's, through the API): the script runs
in its sandbox against a run by hand, and each action it proposes comes back with whether it
would apply or why not. Nothing is applied or recorded. The list is a model/view table.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import (QColor, QFontDatabase, QKeySequence, QPainter, QShortcut,
                           QSyntaxHighlighter,
                           QTextCharFormat, QTextCursor, QTextDocument, QTextFormat)
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHBoxLayout, QLabel,
                               QPlainTextEdit, QPushButton, QTextEdit,
                               QVBoxLayout, QWidget)
from shiboken6 import isValid

from ...errors import ErrandsError
from .. import theme, words
from ..script_actions import actions_table, fill_actions

STARTER = """\
// Runs in a sandbox: it can read its folder and propose actions; Errands checks
// each action against this automation's folder and rules before applying it.
export default function ({ event, files, state, actions }) {
  actions.notify("Fired: " + event.type + " at " + event.at);
}
"""
KEYWORDS = ("break case catch class const continue default delete do else export extends "
            "false finally for function if import in instanceof let new null of return "
            "static super switch this throw true try typeof undefined var void while yield")


class JsHighlighter(QSyntaxHighlighter):
    """Keywords, strings, numbers and comments, in colours of the current theme."""

    _TOKENS = re.compile(r"//[^\n]*|/\*|\"(?:[^\"\\\n]|\\.)*\"?|'(?:[^'\\\n]|\\.)*'?"
                         r"|`(?:[^`\\]|\\.)*`?|\b\d[\d_.eExXa-fA-F]*\b|\b[A-Za-z_$][\w$]*\b")
    _KEYWORDS = frozenset(KEYWORDS.split())

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        self.recolour()

    def recolour(self) -> None:
        dark = theme.is_dark()
        colours = {"keyword": "#c678dd" if dark else "#8b2fc9",
                   "string": "#98c379" if dark else "#1f7a3a",
                   "number": "#d19a66" if dark else "#a0521c",
                   "comment": "#7f8896" if dark else "#6b7280"}
        for name, colour in colours.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            if name == "keyword":
                fmt.setFontWeight(600)
            if name == "comment":
                fmt.setFontItalic(True)
            self.formats[name] = fmt
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        start = 0
        if self.previousBlockState() == 1:  # inside a /* comment */
            end = text.find("*/")
            if end < 0:
                self.setFormat(0, len(text), self.formats["comment"])
                self.setCurrentBlockState(1)
                return
            self.setFormat(0, end + 2, self.formats["comment"])
            start = end + 2
        self.setCurrentBlockState(0)
        for match in self._TOKENS.finditer(text, start):
            token, at = match.group(0), match.start()
            if token == "/*":
                end = text.find("*/", at + 2)
                if end < 0:
                    self.setFormat(at, len(text) - at, self.formats["comment"])
                    self.setCurrentBlockState(1)
                    return
                self.setFormat(at, end + 2 - at, self.formats["comment"])
            elif token.startswith("//"):
                self.setFormat(at, len(token), self.formats["comment"])
            elif token[0] in "\"'`":
                self.setFormat(at, len(token), self.formats["string"])
            elif token[0].isdigit():
                self.setFormat(at, len(token), self.formats["number"])
            elif token in self._KEYWORDS:
                self.setFormat(at, len(token), self.formats["keyword"])


class _Gutter(QWidget):
    def __init__(self, editor: "CodeEdit") -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        self.editor.paint_gutter(event)


class CodeEdit(QPlainTextEdit):
    """A monospace editor with line numbers; ``mark_error(line)`` shades that line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self.gutter = _Gutter(self)
        self.error_line: int | None = None
        self._marked_text = ""
        self.blockCountChanged.connect(self._gutter_changed)
        self.updateRequest.connect(self._gutter_scrolled)
        self.textChanged.connect(self._text_changed)
        self._gutter_changed()

    def gutter_width(self) -> int:
        digits = max(3, len(str(self.blockCount())))
        return 10 + self.fontMetrics().horizontalAdvance("9") * digits

    def _gutter_changed(self, *_: object) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _gutter_scrolled(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        area = self.contentsRect()
        self.gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(),
                                      area.height()))

    def paint_gutter(self, event: Any) -> None:
        painter = QPainter(self.gutter)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.alternateBase())
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        errors = theme.state_colors()["error"]
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible():
                number = block.blockNumber() + 1
                painter.setPen(errors if number == self.error_line
                               else palette.placeholderText().color())
                painter.drawText(0, top, self.gutter.width() - 5, height,
                                 Qt.AlignmentFlag.AlignRight, str(number))
            block = block.next()
            top += round(self.blockBoundingRect(block).height()) if block.isValid() else 0

    def mark_error(self, line: int | None) -> None:
        """Shade ``line`` (from 1) and put the cursor on it; None clears."""
        self.error_line = line
        self._marked_text = self.toPlainText()
        selections = []
        if line is not None and 1 <= line <= self.blockCount():
            selection = QTextEdit.ExtraSelection()
            colour = QColor(theme.state_colors()["error"])
            colour.setAlpha(60)
            selection.format.setBackground(colour)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(self.document().findBlockByNumber(line - 1))
            selection.cursor = cursor
            selections.append(selection)
            self.blockSignals(True)
            self.setTextCursor(cursor)
            self.blockSignals(False)
            self.ensureCursorVisible()
        self.setExtraSelections(selections)
        self.gutter.update()

    def _text_changed(self) -> None:
        # (a new colouring also says "changed": only an edit makes the mark stale)
        if self.error_line is not None and self.toPlainText() != self._marked_text:
            self.mark_error(None)

    def clear_error(self) -> None:
        if self.error_line is not None:
            self.mark_error(None)


class TrialView(QWidget):
    """What a dry run found: a sentence, and each proposed action with its verdict."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(self.tr("Try it runs the script in its sandbox and lists what "
                                      "it would do; nothing is applied."))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName(self.tr("What the dry run found"))
        self.results, self.model = actions_table(self.tr("Proposed actions"),
                                                 self.tr("Would it apply?"), self)
        self.results.setMinimumHeight(150)
        self.results.hide()
        self.head = QHBoxLayout()
        self.head.setContentsMargins(0, 0, 0, 0)
        self.head.addWidget(self.summary, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.head)
        column.addWidget(self.results, 1)

    def say(self, text: str) -> None:
        self.summary.setText(text)
        self.model.removeRows(0, self.model.rowCount())
        self.results.hide()

    def show_answer(self, answer: dict[str, Any]) -> None:
        """Show a dry run's answer (``{"status", "actions", "log", …}``)."""
        status = answer.get("status")
        head = words.script_status(status, answer.get("limit_hit"))
        if answer.get("error"):
            head += " " + str(answer["error"])
            if answer.get("line"):
                head += " " + self.tr("(line %1)").replace("%1", str(answer["line"]))
        actions = answer.get("actions") or []
        would = sum(1 for a in actions if a.get("would_apply"))
        if actions:
            head += " " + self.tr("It would apply %1 of %2 actions.").replace(
                "%1", str(would)).replace("%2", str(len(actions)))
        elif status == "ok":
            head += " " + self.tr("It proposes nothing.")
        log = answer.get("log") or []
        if log:
            head += "\n" + self.tr("Log: %1").replace("%1", " · ".join(map(str, log[:5])))
        self.summary.setText(head + "\n" + self.tr("Nothing was applied."))
        fill_actions(self.results, self.model, actions, "would_apply")


class ScriptEditor(QWidget):
    """The editor, "Try it", and the dry run's verdicts."""

    tried = Signal(dict)   # a dry run's answer, once shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # the dry run of a definition document (the controller's, on the engine)
        self.tester: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
        self.document: Callable[[], dict[str, Any]] | None = None  # the form's, as it is
        self.editor = CodeEdit()
        self.editor.setAccessibleName(self.tr("Script"))
        self.editor.setAccessibleDescription(self.tr(
            "JavaScript: a default export that proposes actions"))
        self.editor.setMinimumHeight(160)
        self.editor.setPlainText(STARTER)
        self.highlighter = JsHighlighter(self.editor.document())
        self.try_button = QPushButton(self.tr("&Try it"))
        self.try_button.setAccessibleName(self.tr("Try the script: a dry run"))
        self.try_button.setToolTip(self.tr("Runs the script now without applying anything "
                                           "(Ctrl+Enter)"))
        self.try_button.clicked.connect(self.try_it)
        QShortcut(QKeySequence("Ctrl+Return"), self.editor, activated=self.try_it)
        self.trial = TrialView()
        self.trial.head.addWidget(self.try_button, 0, Qt.AlignmentFlag.AlignTop)
        self.summary, self.model, self.results = (self.trial.summary, self.trial.model,
                                                  self.trial.results)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.editor, 3)
        column.addWidget(self.trial, 1)
        self.setFocusProxy(self.editor)

    def source(self) -> str:
        return self.editor.toPlainText()

    def set_source(self, text: str) -> None:
        self.editor.setPlainText(text)

    def try_it(self) -> None:
        if self.tester is None or self.document is None or not self.try_button.isEnabled():
            return
        try:
            doc = self.document()
        except ErrandsError as exc:
            self.trial.say(str(exc))
            return
        self.try_button.setEnabled(False)
        self.summary.setText(self.tr("Trying…"))
        asyncio.ensure_future(self._tried(self.tester(doc)))

    async def _tried(self, pending: Awaitable[dict[str, Any]]) -> None:
        try:
            answer: dict[str, Any] | None = await pending
            error = None
        except ErrandsError as exc:
            answer, error = None, exc
        if not isValid(self):
            return
        self.try_button.setEnabled(True)
        if answer is None:
            line = (getattr(error, "values", None) or {}).get("line")
            self.editor.mark_error(line if isinstance(line, int) else None)
            self.trial.say(words.refusal_words(error, words.local_zone()) or str(error))  # type: ignore[arg-type]
            return
        self.show_answer(answer)

    def show_answer(self, answer: dict[str, Any]) -> None:
        line = answer.get("line")
        self.editor.mark_error(line if isinstance(line, int) and answer.get("error") else None)
        self.trial.show_answer(answer)
        self.tried.emit(answer)


class TrialDialog(QDialog):
    """The page's Dry run of a script automation: what it would do now, nothing applied
    and nothing recorded."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Dry run of “%1”").replace("%1", title))
        self.setMinimumSize(620, 360)
        self.trial = TrialView()
        self.trial.say(self.tr("Running it in its sandbox…"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(self.trial, 1)
        column.addWidget(buttons)
