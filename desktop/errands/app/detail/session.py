"""One run in full: a command's output, or an agent's conversation with its tool calls, what
a parked run waits for, the tokens it used, and a box for a follow-up turn.

Passive: ``set_run(doc)`` takes the dict ``Api.run`` answers (the run, its ``output_tail``,
its ``transcript`` and its ``blocker``) and never asks the engine anything. A follow-up is
only emitted (``reply_requested(session_id, text)``); the text stays in the box until the
owner says ``reply_sent()`` (cleared) or ``reply_failed(message)`` (shown beside it).

The transcript is one rich-text document (selectable, copyable, Qt's own markdown): each
tool call is a line "▸ run_command: git status → exit 0" that opens, by click or Tab and
Enter, onto its arguments and result. Calling ``set_run`` again for the same run keeps the
scroll position (or stays at the end when it was there) and the calls that were open.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
    QTextLength,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...records import ACTIVE_STATES, run_time
from ...timeutil import utcnow
from .. import marks, words
from ..script_actions import actions_table, fill_actions

RESULT_CHARS = 20_000   # an opened result shows at most this much (the tools bound theirs)
SUMMARY_CHARS = 60      # the subject and the outcome on a call's one line, each
LIVE_CHARS = 16 * 1024  # of a running command's output, shown at most per piece (a flood: its end)
LIVE_LINES = 20_000     # lines the output page keeps (a command printing for hours stays bounded)


@dataclass
class ToolCallView:
    """One tool call as the transcript shows it."""

    call_id: str
    name: str
    arguments: str            # pretty JSON (or the raw text a model sent)
    result: str | None        # None: no result yet
    summary: str              # "run_command: git status → exit 0"
    expanded: bool = False


def _instant(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _escape(text: str) -> str:
    import html
    return html.escape(text, quote=True)


def _one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """The call's arguments as a dict (None when they are not a JSON object) and as text."""
    if isinstance(raw, dict):
        return raw, json.dumps(raw, indent=2, ensure_ascii=False)
    text = raw if isinstance(raw, str) else ""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return None, text
    if isinstance(value, dict):
        return value, json.dumps(value, indent=2, ensure_ascii=False)
    return None, text


_SUBJECT_KEYS = ("command", "path", "url", "question", "title", "pattern", "summary", "action")


def call_subject(args: dict[str, Any] | None, raw: str) -> str:
    """What a call is about in a few words: its command, path, URL, question…"""
    if args is None:
        return _one_line(raw) if raw else ""
    for key in _SUBJECT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return _one_line(value)
    return _one_line(", ".join(f"{k}={v}" for k, v in args.items()))


def result_outcome(name: str, result: str) -> str:
    """A result in a word or two: "exit 0", "denied", "error: …", "12 lines"."""
    first = result.strip().splitlines()[0] if result.strip() else ""
    if name == "run_command" and first.startswith("exit code "):
        return words.tr("exit %1").replace("%1", first[len("exit code "):].strip())
    if first.startswith("Denied"):
        return words.tr("denied")
    if first.startswith("Error:"):
        return words.tr("error: %1").replace("%1", _one_line(first[6:].strip(), 48))
    if first.startswith("The user answered:"):
        return words.tr("answered: %1").replace(
            "%1", _one_line(first[len("The user answered:"):].strip(), 40))
    lines = result.count("\n") + 1
    if lines > 1:
        return words.tr("%n lines", None, lines)
    return _one_line(first, 48) if first else words.tr("no output")


def exit_words(doc: dict[str, Any]) -> str:
    """How a command ended: "Exit status 0", "Exit status 3", "Killed by signal TERM"…"""
    state = doc.get("state")
    error = doc.get("error") or {}
    code, message = error.get("code"), error.get("message") or ""
    if state == "succeeded":
        return words.tr("Exit status 0")
    if code == "exit_status" and message.startswith("exited with status "):
        status = message[len("exited with status "):].split(":", 1)[0]
        return words.tr("Exit status %1").replace("%1", status)
    if code == "signal":
        return words.tr("Ended by a signal")
    if code == "timeout":
        return words.tr("Timed out")
    if state in ("running", "scheduled"):
        return words.tr("Still running")
    return words.state_words(state)


def usage_of(doc: dict[str, Any]) -> tuple[int, int]:
    """Tokens this run used (prompt, completion): the sum of its messages' ``usage``, or the
    run's own count when its transcript has none."""
    prompt = completion = 0
    found = False
    for m in doc.get("transcript") or ():
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, dict) or m.get("run_id") not in (None, doc.get("id")):
            continue
        usage = content.get("usage")
        if isinstance(usage, list) and len(usage) == 2:
            try:
                prompt += int(usage[0] or 0)
                completion += int(usage[1] or 0)
            except (TypeError, ValueError):
                continue
            found = True
    if not found and isinstance(doc.get("usage"), dict):
        prompt = int(doc["usage"].get("prompt_tokens") or 0)
        completion = int(doc["usage"].get("completion_tokens") or 0)
    return prompt, completion


class _FollowUpEdit(QPlainTextEdit):
    """The follow-up box: Ctrl+Return (or Ctrl+Enter) sends."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


def discussion_page(d: dict[str, Any]) -> dict[str, Any]:
    """A discussion (``Api.discussion``, or a draft of one: ``{"automation_id",
    "run_index"}``) in the shape :meth:`SessionView.set_run` shows."""
    waiting = d.get("waiting")
    state = ("running" if d.get("working") else "awaiting_input" if waiting else "succeeded")
    blocker = None
    if waiting:
        args = waiting.get("arguments") if isinstance(waiting.get("arguments"), dict) else {}
        blocker = {"blocker": {"kind": waiting.get("kind"), "tool": waiting.get("tool"),
                               "arguments": args, "question": args.get("question"),
                               "choices": args.get("choices")}}
    return {"id": d.get("session_id") or f"draft:{d.get('automation_id')}:{d.get('run_index')}",
            "session_id": d.get("session_id"), "automation_id": d.get("automation_id"),
            "state": state, "transcript": d.get("transcript") or [], "blocker": blocker,
            "discussion": d}


class SessionView(QWidget):
    """A run's output or conversation. Signals: ``reply_requested(session_id, text)``."""

    reply_requested = Signal(str, str)
    discuss_requested = Signal(str, int)          # automation id, run number
    discussion_requested = Signal(str)            # a discussion's session id
    discussion_decided = Signal(str, str, str)    # session id, approve_once|deny|answer, text

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionView")
        self.doc: dict[str, Any] | None = None
        self._live_id: str | None = None    # the run whose output came live (``add_output``)
        self._live_text = False
        self.tz: tzinfo = words.local_zone()
        self.now: datetime | None = None   # None: the clock's now at each set_run
        self._calls: dict[str, ToolCallView] = {}
        self._order: list[str] = []
        self._expanded: set[str] = set()
        self._signature: Any = None
        self._sending = False
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.mono = mono

        # header: state, run facts, tokens
        self.state_label = QLabel()
        self.state_label.setAccessibleName(self.tr("Run state"))
        bold = QFont(self.state_label.font())
        bold.setWeight(QFont.Weight.DemiBold)
        self.state_label.setFont(bold)
        self.facts_label = QLabel()
        self.facts_label.setAccessibleName(self.tr("Run"))
        self.facts_label.setWordWrap(True)
        self.usage_label = QLabel()
        self.usage_label.setAccessibleName(self.tr("Token usage"))
        self.discuss_button = QPushButton(self.tr("Discuss this run…"))
        self.discuss_button.setAccessibleName(self.tr("Discuss this run with its agent"))
        self.discuss_button.setToolTip(self.tr("Ask the agent about this run in a separate "
                                               "conversation: nothing of it goes into the "
                                               "automation's history"))
        self.discuss_button.clicked.connect(self._discuss)
        self.discuss_button.hide()
        head = QHBoxLayout()
        head.setSpacing(10)
        head.addWidget(self.state_label)
        head.addStretch(1)
        head.addWidget(self.usage_label)
        head.addWidget(self.discuss_button)

        # the discussions forked from this run
        self.discussions_label = QLabel()
        self.discussions_label.setWordWrap(True)
        self.discussions_label.setTextFormat(Qt.TextFormat.RichText)
        self.discussions_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.discussions_label.setAccessibleName(self.tr("Discussions of this run"))
        self.discussions_label.linkActivated.connect(self.discussion_requested)
        self.discussions_label.hide()

        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setAccessibleName(self.tr("Error"))

        # what fired it, and the event's payload (someone else's data) on demand
        self.event_label = QLabel()
        self.event_label.setWordWrap(True)
        self.event_label.setTextFormat(Qt.TextFormat.PlainText)
        self.event_label.setAccessibleName(self.tr("What started this run"))
        self.event_button = QPushButton(self.tr("Show the event"))
        self.event_button.setCheckable(True)
        self.event_button.setAccessibleName(self.tr("Show the event that started this run"))
        self.event_button.toggled.connect(self._show_event)
        self.event_text = QPlainTextEdit()
        self.event_text.setReadOnly(True)
        self.event_text.setFont(mono)
        self.event_text.setMaximumHeight(160)
        self.event_text.setAccessibleName(self.tr("The event, as received (untrusted)"))
        self.event_text.hide()
        event_row = QHBoxLayout()
        event_row.addWidget(self.event_label, 1)
        event_row.addWidget(self.event_button)

        # what a parked run waits for
        self.blocker_frame = QFrame()
        self.blocker_frame.setObjectName("blocker")
        self.blocker_title = QLabel()
        self.blocker_title.setFont(bold)
        self.blocker_title.setWordWrap(True)
        self.blocker_detail = QLabel()
        self.blocker_detail.setWordWrap(True)
        self.blocker_detail.setTextFormat(Qt.TextFormat.PlainText)
        self.blocker_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.blocker_detail.setAccessibleName(self.tr("What it waits for"))
        self.blocker_args = QLabel()
        self.blocker_args.setFont(mono)
        self.blocker_args.setWordWrap(True)
        self.blocker_args.setTextFormat(Qt.TextFormat.PlainText)
        self.blocker_args.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.blocker_args.setAccessibleName(self.tr("Arguments of the waiting call"))
        self.blocker_note = QLabel()
        self.blocker_note.setWordWrap(True)
        # a discussion decides here (a run's parked call is reviewed in the approval dialog)
        self.approve_button = QPushButton(self.tr("Approve"))
        self.approve_button.setAccessibleName(self.tr("Approve the call the discussion "
                                                      "waits for"))
        self.approve_button.clicked.connect(lambda: self._decide("approve_once"))
        self.deny_button = QPushButton(self.tr("Deny"))
        self.deny_button.setAccessibleName(self.tr("Deny the call the discussion waits for"))
        self.deny_button.clicked.connect(lambda: self._decide("deny"))
        self.decide_row = QWidget()
        decide_layout = QHBoxLayout(self.decide_row)
        decide_layout.setContentsMargins(0, 4, 0, 0)
        decide_layout.addWidget(self.approve_button)
        decide_layout.addWidget(self.deny_button)
        decide_layout.addStretch(1)
        self.decide_row.hide()
        blocker_layout = QVBoxLayout(self.blocker_frame)
        blocker_layout.setContentsMargins(10, 8, 10, 8)
        blocker_layout.setSpacing(4)
        for w in (self.blocker_title, self.blocker_detail, self.blocker_args, self.blocker_note,
                  self.decide_row):
            blocker_layout.addWidget(w)

        # a command's output
        self.exit_label = QLabel()
        self.exit_label.setFont(bold)
        self.exit_label.setAccessibleName(self.tr("Exit status"))
        output_note = QLabel(self.tr("Output (standard output and standard error, as printed; "
                                     "the last 64 KiB)"))
        output_note.setWordWrap(True)
        self.output_note = output_note
        self.output = QPlainTextEdit()
        self.output.setMaximumBlockCount(LIVE_LINES)
        self.output.setReadOnly(True)
        self.output.setFont(mono)
        self.output.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.output.setAccessibleName(self.tr("Command output"))
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        command_page = QWidget()
        command_layout = QVBoxLayout(command_page)
        command_layout.setContentsMargins(0, 0, 0, 0)
        command_layout.addWidget(self.exit_label)
        command_layout.addWidget(output_note)
        command_layout.addWidget(self.output, 1)

        # an agent's conversation
        self.expand_button = QPushButton(self.tr("Open all tool calls"))
        self.expand_button.setCheckable(True)
        self.expand_button.setAccessibleName(self.tr("Open all tool calls"))
        self.expand_button.setToolTip(self.tr("Show every tool call's arguments and result"))
        self.expand_button.toggled.connect(self.set_all_tools_expanded)
        self.calls_label = QLabel()
        tools_row = QHBoxLayout()
        tools_row.addWidget(self.calls_label, 1)
        tools_row.addWidget(self.expand_button)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.setAccessibleName(self.tr("Conversation"))
        self.browser.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.browser.anchorClicked.connect(self._anchor)
        agent_page = QWidget()
        agent_layout = QVBoxLayout(agent_page)
        agent_layout.setContentsMargins(0, 0, 0, 0)
        agent_layout.addLayout(tools_row)
        agent_layout.addWidget(self.browser, 1)

        # a script's record: how it ended, each action with its verdict, its log
        self.script_label = QLabel()
        self.script_label.setWordWrap(True)
        self.script_label.setTextFormat(Qt.TextFormat.PlainText)
        self.script_label.setAccessibleName(self.tr("How the script ran"))
        self.script_actions, self.script_model = actions_table(
            self.tr("The actions it proposed"), self.tr("Applied?"), self)
        self.script_empty = QLabel(self.tr("It proposed nothing."))
        self.script_log = QPlainTextEdit()
        self.script_log.setReadOnly(True)
        self.script_log.setFont(mono)
        self.script_log.setMaximumHeight(120)
        self.script_log.setAccessibleName(self.tr("The script's log"))
        script_page = QWidget()
        script_layout = QVBoxLayout(script_page)
        script_layout.setContentsMargins(0, 0, 0, 0)
        script_layout.addWidget(self.script_label)
        script_layout.addWidget(self.script_empty)
        script_layout.addWidget(self.script_actions, 1)
        script_layout.addWidget(self.script_log)
        script_layout.addStretch(0)   # (takes the room while there is no table)

        self.pages = QStackedWidget()
        self.pages.addWidget(command_page)
        self.pages.addWidget(agent_page)
        self.pages.addWidget(script_page)

        # the follow-up
        self.follow_up = QWidget()
        self.reply_edit = _FollowUpEdit()
        self.reply_edit.setAccessibleName(self.tr("Follow-up to the agent"))
        self.reply_edit.setTabChangesFocus(True)
        self.reply_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 14)
        self.reply_edit.submitted.connect(self.send)
        self.reply_edit.textChanged.connect(self._update_send)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setToolTip(self.tr("Send the follow-up (Ctrl+Return)"))
        self.send_button.setAccessibleName(self.tr("Send follow-up"))
        self.send_button.clicked.connect(self.send)
        self.reply_error = QLabel()
        self.reply_error.setWordWrap(True)
        self.reply_error.setTextFormat(Qt.TextFormat.PlainText)
        self.reply_error.setAccessibleName(self.tr("Follow-up problem"))
        self.reply_error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        side = QVBoxLayout()
        side.addWidget(self.send_button)
        side.addStretch(1)
        box = QHBoxLayout()
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.reply_edit, 1)
        box.addLayout(side)
        follow = QVBoxLayout(self.follow_up)
        follow.setContentsMargins(0, 0, 0, 0)
        follow.setSpacing(4)
        follow.addLayout(box)
        follow.addWidget(self.reply_error)

        self.placeholder = QLabel(self.tr("Select a run to see its output or conversation."))
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setMargin(24)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addWidget(self.facts_label)
        layout.addWidget(self.discussions_label)
        layout.addWidget(self.error_label)
        layout.addLayout(event_row)
        layout.addWidget(self.event_text)
        layout.addWidget(self.blocker_frame)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.follow_up)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)
        self._style()
        self.set_run(None)

    # ------------------------------------------------------------------- data in
    def set_run(self, doc: dict[str, Any] | None) -> None:
        """Show one run as ``Api.run`` gives it (None: the placeholder). The same run again
        refreshes it in place: scroll position and opened tool calls are kept."""
        same = doc is not None and self.doc is not None and doc.get("id") == self.doc.get("id")
        if not same:
            self._live_id, self._live_text = None, False
            self._expanded = set()
            self._signature = None
            if self.expand_button.isChecked():
                self._set_expand_button(False)
            if not self._sending:
                self.reply_error.clear()
            self.set_discussions([])
        self.doc = doc
        if doc is None:
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        self._fill_header(doc)
        self._fill_blocker(doc)
        if isinstance(doc.get("script"), dict):
            self.pages.setCurrentIndex(2)
            self._fill_script(doc["script"])
        elif doc.get("transcript") is None and not doc.get("session_id"):
            self.pages.setCurrentIndex(0)
            self._fill_output(doc, keep=same)
        else:
            self.pages.setCurrentIndex(1)
            self._fill_transcript(doc, keep=same)
        self._fill_follow_up(doc)
        self.discuss_button.setVisible(
            not doc.get("discussion") and doc.get("state") not in ACTIVE_STATES
            and not doc.get("dry_run") and doc.get("transcript") is not None
            and bool(doc.get("automation_id")) and isinstance(doc.get("index"), int))

    def set_discussions(self, found: list[dict[str, Any]]) -> None:
        """The discussions forked from the run shown, as links that open them."""
        if not found:
            self.discussions_label.clear()
            self.discussions_label.hide()
            return
        links = []
        for d in found:
            when = _instant(d.get("updated_at"))
            label = self.tr("%n turn(s)", None, int(d.get("turns") or 0))
            if when is not None:
                label += " · " + words.day_and_time(when, self.now or utcnow(), self.tz)
            if d.get("waiting"):
                label += " · " + self.tr("waits for you")
            links.append(f'<a href="{d["session_id"]}">{_escape(label)}</a>')
        self.discussions_label.setText(self.tr("Discussions of this run: %1").replace(
            "%1", ", ".join(links)))
        self.discussions_label.show()

    def _discuss(self) -> None:
        doc = self.doc or {}
        if doc.get("automation_id") and isinstance(doc.get("index"), int):
            self.discuss_requested.emit(str(doc["automation_id"]), int(doc["index"]))

    def _decide(self, kind: str) -> None:
        doc = self.doc or {}
        if doc.get("discussion") and doc.get("session_id"):
            self.approve_button.setEnabled(False)
            self.deny_button.setEnabled(False)
            self.discussion_decided.emit(str(doc["session_id"]), kind, "")

    def add_output(self, text: str, *, restart: bool) -> None:
        """What the running command printed since the last call (``restart``: all the
        engine holds, replacing what is shown; when some was dropped, or at the start).
        Only the last ``LIVE_CHARS`` of a piece are shown: the run's log has the rest."""
        if self.doc is None:
            return
        self._live_id = self.doc.get("id")
        if len(text) > LIVE_CHARS:
            text, restart = text[-LIVE_CHARS:], True
        if not text and not restart:
            return
        bar = self.output.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        value = bar.value()
        if restart:
            if not text:
                return
            self.output.setPlainText(text)
        else:
            if not self._live_text:
                self.output.clear()       # ("no output yet" goes)
            cursor = QTextCursor(self.output.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text)
        self._live_text = True
        bar.setValue(bar.maximum() if at_end else value)

    def set_now(self, now: datetime | None) -> None:
        """The instant durations are measured to (None: the clock's now): a running run's
        "took" moves on with it."""
        self.now = now
        if self.doc is not None:
            self._fill_header(self.doc)

    def append_transcript(self, doc: dict[str, Any]) -> None:
        """The same run, grown (new messages, a new state): shown in place."""
        self.set_run(doc)

    def reply_sent(self) -> None:
        """The follow-up was taken: the box empties."""
        self._sending = False
        self.reply_edit.clear()
        self.reply_error.clear()
        self.reply_error.hide()
        self._update_send()

    def reply_failed(self, message: str) -> None:
        """The follow-up was refused: its text stays, the reason is shown beside it."""
        self._sending = False
        self.reply_error.setText(self.tr("Not sent: %1").replace("%1", message))
        self.reply_error.show()
        self._update_send()

    def set_local_zone(self, tz: tzinfo) -> None:
        self.tz = tz
        if self.doc is not None:
            self._fill_header(self.doc)

    # ------------------------------------------------------------------ reading
    def run_id(self) -> str | None:
        return None if self.doc is None else self.doc.get("id")

    def tool_calls(self) -> list[ToolCallView]:
        return [self._calls[c] for c in self._order]

    def is_expanded(self, call_id: str) -> bool:
        return call_id in self._expanded

    def set_tool_expanded(self, call_id: str, expanded: bool) -> None:
        if call_id not in self._calls or (call_id in self._expanded) == expanded:
            return
        (self._expanded.add if expanded else self._expanded.discard)(call_id)
        self._render(keep=True)

    def set_all_tools_expanded(self, expanded: bool) -> None:
        self._expanded = set(self._order) if expanded else set()
        self._set_expand_button(expanded)
        self._render(keep=True)

    def _set_expand_button(self, checked: bool) -> None:
        self.expand_button.blockSignals(True)
        self.expand_button.setChecked(checked)
        self.expand_button.blockSignals(False)
        text = self.tr("Close all tool calls") if checked else self.tr("Open all tool calls")
        self.expand_button.setText(text)
        self.expand_button.setAccessibleName(text)

    def transcript_text(self) -> str:
        return self.browser.toPlainText()

    def usage(self) -> tuple[int, int]:
        return usage_of(self.doc) if self.doc else (0, 0)

    def blocker_text(self) -> str:
        if self.blocker_frame.isHidden():
            return ""
        return "\n".join(w.text() for w in (self.blocker_title, self.blocker_detail,
                                            self.blocker_args, self.blocker_note) if w.text())

    def scroll_value(self) -> int:
        return self.browser.verticalScrollBar().value()

    # ---------------------------------------------------------------- follow-up
    def send(self) -> None:
        """Emit the follow-up (what Send and Ctrl+Return do): in a discussion waiting on
        a question, the answer to it."""
        doc = self.doc
        text = self.reply_edit.toPlainText().strip()
        if doc is None or not text or not self.send_button.isEnabled():
            return
        self._sending = True
        self.reply_error.clear()
        self.reply_error.hide()
        self._update_send()
        if self._answering():
            self.discussion_decided.emit(str(doc.get("session_id")), "answer", text)
            return
        self.reply_requested.emit(str(doc.get("session_id") or ""), text)

    def _answering(self) -> bool:
        doc = self.doc or {}
        waiting = (doc.get("discussion") or {}).get("waiting")
        return bool(waiting and waiting.get("kind") == "question")

    def _can_reply(self) -> bool:
        doc = self.doc
        if doc and doc.get("discussion"):  # a draft has no session yet
            return doc.get("state") not in ("running",) and (
                doc.get("state") != "awaiting_input" or self._answering())
        return bool(doc and doc.get("session_id") and doc.get("state") not in ACTIVE_STATES)

    def _update_send(self) -> None:
        ok = self._can_reply() and not self._sending
        self.reply_edit.setEnabled(self._can_reply())
        self.send_button.setEnabled(ok and bool(self.reply_edit.toPlainText().strip()))

    def _fill_follow_up(self, doc: dict[str, Any]) -> None:
        has_session = bool(doc.get("session_id")) or bool(doc.get("discussion"))
        self.follow_up.setVisible(has_session)
        state = doc.get("state")
        discussion = doc.get("discussion")
        if discussion:
            if self._answering():
                hint = self.tr("Answer the agent's question… (Ctrl+Return sends)")
            elif state == "awaiting_input":
                hint = self.tr("Approve or deny the call above first.")
            elif state == "running":
                hint = self.tr("The agent is answering…")
            elif not doc.get("session_id"):
                hint = self.tr("Ask the agent about run #%1… (Ctrl+Return sends)").replace(
                    "%1", str(discussion.get("run_index")))
            else:
                hint = self.tr("Ask a follow-up… (Ctrl+Return sends)")
        elif state == "awaiting_input":
            hint = self.tr("Answer what the run waits for first; then you can follow up here.")
        elif state in ACTIVE_STATES:
            hint = self.tr("You can follow up once this run has ended.")
        else:
            hint = self.tr("Follow up: tell the agent what to do next… (Ctrl+Return sends)")
        self.reply_edit.setPlaceholderText(hint)
        self.reply_error.setVisible(bool(self.reply_error.text()))
        self._update_send()

    # ---------------------------------------------------------------- internals
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._style()
            if self.doc is not None:
                self._fill_header(self.doc)
                self._signature = None
                if self.pages.currentIndex() == 1:
                    self._render(keep=True)

    def _style(self) -> None:
        p = self.palette()
        parked = marks.tone(p, "attention")
        fill = QColor(parked)
        fill.setAlpha(28)
        self.blocker_frame.setStyleSheet(
            f"QFrame#blocker {{ border: 1px solid {parked.name()}; border-radius: 4px; "
            f"background: rgba({fill.red()}, {fill.green()}, {fill.blue()}, {fill.alpha()}); }}"
            f"QFrame#blocker QLabel {{ background: transparent; }}")
        self.blocker_title.setStyleSheet(f"color: {parked.name()}")
        error = marks.tone(p, "error")
        self.error_label.setStyleSheet(f"color: {error.name()}")
        self.reply_error.setStyleSheet(f"color: {error.name()}")
        muted = marks.muted(p).name()
        for label in (self.facts_label, self.usage_label, self.calls_label, self.output_note,
                      self.blocker_note):
            label.setStyleSheet(f"color: {muted}")

    def _fill_header(self, doc: dict[str, Any]) -> None:
        discussion = doc.get("discussion")
        if discussion:
            self._fill_discussion_header(doc, discussion)
            return
        state = doc.get("state")
        text = f"{words.glyph(state)} {words.state_words(state)}"
        if doc.get("dry_run"):
            text += " · " + self.tr("Dry run")
        self.state_label.setText(text)
        color = marks.state_color(self.palette(), state)
        self.state_label.setStyleSheet(f"color: {color.name()}")
        now = self.now or utcnow()
        facts = [self.tr("Run #%1").replace("%1", str(doc.get("index", "?")))]
        fired = doc.get("trigger")
        if isinstance(fired, dict) and fired.get("cause"):
            facts.append(words.trigger_words(fired["cause"]))
        started, finished = _instant(doc.get("started_at")), _instant(doc.get("finished_at"))
        if started is not None:
            facts.append(self.tr("started %1").replace(
                "%1", words.day_and_time(started, now, self.tz)))
            took = run_time(doc.get("attempts"), state, started, finished, now)
            if took is not None and (finished is not None or state == "running"):
                facts.append(self.tr("took %1").replace("%1", words.duration(took)))
        if (doc.get("attempt") or 1) > 1:
            facts.append(self.tr("attempt %1").replace("%1", str(doc["attempt"])))
        self.facts_label.setText(" · ".join(facts))
        self.facts_label.setToolTip(" · ".join(facts))
        prompt, completion = usage_of(doc)
        if prompt or completion:
            self.usage_label.setText(self.tr("%1 tokens").replace(
                "%1", f"{prompt + completion:,}"))
            self.usage_label.setToolTip(self.tr("%1 prompt tokens, %2 completion tokens").replace(
                "%1", f"{prompt:,}").replace("%2", f"{completion:,}"))
            self.usage_label.setAccessibleDescription(self.usage_label.toolTip())
        else:
            self.usage_label.setText("")
            self.usage_label.setToolTip("")
        self._fill_event(doc)
        error = doc.get("error")
        if error and (error.get("message") or error.get("code")):
            self.error_label.setText(self.tr("Error: %1").replace(
                "%1", error.get("message") or error.get("code")))
            self.error_label.show()
        else:
            self.error_label.clear()
            self.error_label.hide()

    def _fill_discussion_header(self, doc: dict[str, Any], d: dict[str, Any]) -> None:
        """A discussion: what it is about, how far it went; never a run's facts."""
        working = doc.get("state") == "running"
        self.state_label.setText(self.tr("Discussion — the agent is answering…")
                                 if working else self.tr("Discussion"))
        self.state_label.setStyleSheet("")
        facts = [self.tr("About run #%1").replace("%1", str(d.get("run_index", "?")))]
        if doc.get("session_id"):
            facts.append(self.tr("%n turn(s)", None, int(d.get("turns") or 0)))
        facts.append(self.tr("apart from the automation's history; its folder is read-only "
                             "here"))
        self.facts_label.setText(" · ".join(facts))
        self.facts_label.setToolTip(" · ".join(facts))
        self.usage_label.setText("")
        for w in (self.event_label, self.event_button, self.event_text):
            w.hide()
        error = d.get("error")
        if error:
            self.error_label.setText(self.tr("Error: %1").replace(
                "%1", error.get("message") or error.get("code") or ""))
            self.error_label.show()
        else:
            self.error_label.clear()
            self.error_label.hide()

    def _fill_event(self, doc: dict[str, Any]) -> None:
        """Which trigger fired the run; for an event, its payload behind a button."""
        fired = doc.get("trigger") if isinstance(doc.get("trigger"), dict) else {}
        payload = doc.get("payload")
        kind, ident = fired.get("kind"), fired.get("id")
        if not ident or kind == "manual":
            self.event_label.hide()
            self.event_button.hide()
            self.event_text.hide()
            return
        text = words.fired_words(kind, ident, fired.get("depth"))
        self.event_label.setText(text)
        self.event_label.show()
        shown = payload is not None
        self.event_button.setVisible(shown)
        if shown:
            body = json.dumps(payload, ensure_ascii=False, indent=1)
            if len(body) > 20_000:
                body = body[:20_000] + "\n…"
            if self.event_text.toPlainText() != body:
                self.event_text.setPlainText(body)
        self.event_text.setVisible(shown and self.event_button.isChecked())

    def _show_event(self, on: bool) -> None:
        self.event_button.setText(self.tr("Hide the event") if on else self.tr("Show the event"))
        self.event_text.setVisible(on and self.event_button.isVisible())

    def _fill_blocker(self, doc: dict[str, Any]) -> None:
        parked = doc.get("blocker") if doc.get("state") == "awaiting_input" else None
        blocker = parked.get("blocker") if isinstance(parked, dict) else None
        discussing = bool(doc.get("discussion"))
        asks = discussing and isinstance(blocker, dict) and blocker.get("kind") != "question"
        self.decide_row.setVisible(asks)
        self.approve_button.setEnabled(True)
        self.deny_button.setEnabled(True)
        if not isinstance(blocker, dict):
            self.blocker_frame.hide()
            for w in (self.blocker_title, self.blocker_detail, self.blocker_args,
                      self.blocker_note):
                w.clear()
            return
        self.blocker_frame.show()
        if blocker.get("kind") == "question":
            self.blocker_title.setText("⚑ " + self.tr("Waiting for your answer"))
            self.blocker_detail.setText(blocker.get("question") or self.tr("(no question text)"))
            choices = blocker.get("choices") or []
            self.blocker_args.setText(self.tr("Choices: %1").replace("%1", ", ".join(
                str(c) for c in choices)) if choices else "")
        else:
            tool = blocker.get("tool") or "?"
            self.blocker_title.setText("⚑ " + self.tr("Waiting for your permission"))
            self.blocker_detail.setText(self.tr("The agent wants to %1 (%2).").replace(
                "%1", words.tool_words(tool)).replace("%2", tool))
            args = blocker.get("arguments")
            self.blocker_args.setText(
                "\n".join(f"{k}: {v}" if isinstance(v, str) else f"{k}: {json.dumps(v)}"
                          for k, v in args.items()) if isinstance(args, dict) else "")
        self.blocker_args.setVisible(bool(self.blocker_args.text()))
        expires = _instant(parked.get("expires_at"))
        note = ""
        if expires is not None:
            note = self.tr("It waits until %1, then expires.").replace(
                "%1", words.day_and_time(expires, self.now or utcnow(), self.tz))
        self.blocker_note.setText(note)
        self.blocker_note.setVisible(bool(note))

    def _fill_script(self, record: dict[str, Any]) -> None:
        """A script run's record (seed 003 "Run records")."""
        parts = [words.script_status(record.get("status"), record.get("limit_hit"))]
        facts = []
        if record.get("duration_ms") is not None:
            facts.append(self.tr("%1 ms").replace("%1", f"{float(record['duration_ms']):.1f}"))
        if record.get("memory_peak"):
            facts.append(self.tr("memory peak %1 KB").replace(
                "%1", str(int(record["memory_peak"]) // 1024)))
        facts.append(self.tr("%n reads", None, int(record.get("reads") or 0)))
        if record.get("truncated"):
            facts.append(self.tr("a read was cut to its row limit"))
        parts.append(" · ".join(facts))
        self.script_label.setText("\n".join(parts))
        actions = record.get("actions") or []
        fill_actions(self.script_actions, self.script_model, actions, "applied")
        self.script_empty.setVisible(not actions)
        log = record.get("log") or []
        self.script_log.setPlainText("\n".join(map(str, log)))
        self.script_log.setVisible(bool(log))

    def _fill_output(self, doc: dict[str, Any], *, keep: bool) -> None:
        self.exit_label.setText(exit_words(doc))
        self.exit_label.setStyleSheet(
            f"color: {marks.state_color(self.palette(), doc.get('state')).name()}")
        if doc.get("id") == self._live_id and self._live_text \
                and doc.get("state") in ACTIVE_STATES:
            return   # still printing: what came live stays (the stored tail comes at the end)
        tail = doc.get("output_tail")
        if tail is None:
            text = self.tr("(no output yet)") if doc.get("state") in ACTIVE_STATES else \
                self.tr("(no output was kept)")
        else:
            text = tail or self.tr("(the command printed nothing)")
        if text == self.output.toPlainText():
            return
        bar = self.output.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        value = bar.value()
        self.output.setPlainText(text)
        if keep and not at_end:
            bar.setValue(value)
        else:
            bar.setValue(bar.maximum())
        self._calls, self._order = {}, []

    # ------------------------------------------------------------- the transcript
    def _fill_transcript(self, doc: dict[str, Any], *, keep: bool) -> None:
        messages = [m for m in doc.get("transcript") or () if isinstance(m, dict)]
        blocker = doc.get("blocker") or {}
        signature = (doc.get("state"), tuple(m.get("seq") for m in messages),
                     json.dumps(blocker, sort_keys=True, default=str))
        if keep and signature == self._signature:
            return
        self._signature = signature
        self._messages = messages
        self._index_calls(doc, messages)
        self._render(keep=keep)

    def _index_calls(self, doc: dict[str, Any], messages: list[dict[str, Any]]) -> None:
        results: dict[str, str] = {}
        for m in messages:
            c = m.get("content")
            if m.get("role") == "tool" and isinstance(c, dict) and c.get("tool_call_id"):
                results[str(c["tool_call_id"])] = str(c.get("content") or "")
        parked = doc.get("state") == "awaiting_input"
        kind = ((doc.get("blocker") or {}).get("blocker") or {}).get("kind")
        calls: dict[str, ToolCallView] = {}
        order: list[str] = []
        for m in messages:
            c = m.get("content")
            if m.get("role") != "assistant" or not isinstance(c, dict):
                continue
            for tc in c.get("tool_calls") or ():
                fn = tc.get("function") if isinstance(tc, dict) else None
                if not isinstance(fn, dict):
                    continue
                call_id = str(tc.get("id"))
                name = str(fn.get("name") or "?")
                args, text = _parse_arguments(fn.get("arguments"))
                result = results.get(call_id)
                if result is not None:
                    outcome = result_outcome(name, result)
                elif parked and m.get("run_id") == doc.get("id"):
                    outcome = (self.tr("waiting for your answer") if kind == "question"
                               else self.tr("waiting for your permission"))
                elif doc.get("state") == "running" and m.get("run_id") == doc.get("id"):
                    outcome = self.tr("running…")
                else:
                    outcome = self.tr("no result")
                subject = call_subject(args, text)
                summary = f"{name}: {subject} → {outcome}" if subject else f"{name} → {outcome}"
                calls[call_id] = ToolCallView(call_id, name, text, result, summary)
                order.append(call_id)
        self._expanded &= set(order)
        if self.expand_button.isChecked():
            self._expanded = set(order)
        for call_id in self._expanded:
            calls[call_id].expanded = True
        self._calls, self._order = calls, order
        count = len(order)
        self.calls_label.setText(self.tr("No tool calls") if not count else
                                 self.tr("1 tool call") if count == 1 else
                                 self.tr("%n tool calls", "", count))
        self.expand_button.setEnabled(bool(count))

    def _render(self, *, keep: bool) -> None:
        if self.doc is None or self.pages.currentIndex() != 1:
            return
        for call_id, view in self._calls.items():
            view.expanded = call_id in self._expanded
        bar = self.browser.verticalScrollBar()
        value, at_end = bar.value(), bar.value() >= bar.maximum() - 2
        document = self._document(self.doc, getattr(self, "_messages", []))
        self.browser.setDocument(document)  # the old one, the browser's child, goes with it
        document.setTextWidth(self.browser.viewport().width())
        bar.setRange(0, max(0, int(document.size().height()) - self.browser.viewport().height()))
        bar.setValue(value if keep and not at_end else bar.maximum())

    def _document(self, doc: dict[str, Any], messages: list[dict[str, Any]]) -> QTextDocument:
        p = self.palette()
        muted, link = marks.muted(p), p.color(QPalette.ColorRole.Link)
        document = QTextDocument(self.browser)
        document.setDefaultFont(self.browser.font())
        document.setDocumentMargin(8)
        cursor = QTextCursor(document)
        head = QTextCharFormat()
        head.setFontWeight(QFont.Weight.DemiBold)
        head.setForeground(muted)
        plain = QTextCharFormat()
        mono = QTextCharFormat()
        mono.setFont(self.mono)
        tool_line = QTextCharFormat()
        tool_line.setFont(self.mono)
        tool_line.setForeground(link)
        gap = QTextBlockFormat()
        gap.setTopMargin(10)
        tight = QTextBlockFormat()
        tight.setTopMargin(2)
        panel = QTextFrameFormat()
        panel.setBackground(p.color(QPalette.ColorRole.AlternateBase))
        panel.setBorder(1)
        panel.setBorderBrush(p.color(QPalette.ColorRole.Mid))
        panel.setPadding(6)
        panel.setMargin(2)
        panel.setLeftMargin(18)
        panel.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        now = self.now or utcnow()
        first = True
        last_run: Any = None
        this_run = doc.get("id")

        def block(fmt: QTextBlockFormat) -> None:
            nonlocal first
            if first:
                cursor.setBlockFormat(fmt)
                first = False
            else:
                cursor.insertBlock(fmt, plain)

        for m in messages:
            content = m.get("content")
            if not isinstance(content, dict):
                continue
            role, turn = m.get("role"), content.get("turn")
            run_id = (content.get("run_id") or m.get("run_id") if doc.get("discussion")
                      else m.get("run_id") or content.get("run_id"))
            if turn == "discussion":
                continue   # (a discussion's head: what it was forked from, shown above)
            if run_id != last_run and len({x.get("run_id") for x in messages}) > 1:
                block(gap)
                if doc.get("discussion"):
                    index = content.get("run_index")
                    label = (self.tr("run #%1 of the automation").replace("%1", str(index))
                             if str(run_id).startswith("seed-") else self.tr("discussion"))
                    if not str(run_id).startswith("seed-") or index is not None:
                        cursor.insertText("── " + label + " ──", head)
                else:
                    cursor.insertText(("── " + self.tr("this run") + " ──")
                                      if run_id == this_run
                                      else ("── " + self.tr("an earlier turn") + " ──"), head)
                last_run = run_id
            if role == "tool":
                if str(content.get("tool_call_id")) not in self._calls:  # answers no call shown
                    block(tight)
                    cursor.insertText(_one_line(str(content.get("content") or ""), 200), mono)
                continue
            when = _instant(m.get("created_at"))
            stamp = f" · {words.day_and_time(when, now, self.tz)}" if when else ""
            who = {"prompt": self.tr("Prompt"), "reply": self.tr("You"),
                   "final": self.tr("Agent — answer"), "step": self.tr("Agent")
                   }.get(turn or "", self.tr("You") if role == "user" else
                         self.tr("System") if role == "system" else self.tr("Agent"))
            text = content.get("shown", content.get("content"))  # (a discussion's first
            calls = content.get("tool_calls") or ()                # question: as typed)
            if not (isinstance(text, str) and text.strip()) and turn == "step":
                if not calls:
                    continue
                block(gap)
                cursor.insertText(who + stamp, head)
            else:
                block(gap)
                cursor.insertText(who + stamp, head)
                if isinstance(text, str) and text.strip():
                    cursor.insertBlock(tight, plain)
                    cursor.insertMarkdown(text)
            for tc in calls:
                call_id = str(tc.get("id")) if isinstance(tc, dict) else ""
                view = self._calls.get(call_id)
                if view is None:
                    continue
                cursor.insertBlock(tight, plain)
                anchor = QTextCharFormat(tool_line)
                anchor.setAnchor(True)
                anchor.setAnchorHref(f"tool:{call_id}")
                anchor.setToolTip(self.tr("Show or hide the arguments and the result"))
                cursor.insertText(("▾ " if view.expanded else "▸ ") + view.summary, anchor)
                if view.expanded:
                    frame = cursor.insertFrame(panel)
                    cursor.insertText(self.tr("Arguments"), head)
                    cursor.insertBlock(QTextBlockFormat(), mono)
                    cursor.insertText(view.arguments or "{}", mono)
                    cursor.insertBlock(gap, head)
                    cursor.insertText(self.tr("Result"), head)
                    cursor.insertBlock(QTextBlockFormat(), mono)
                    result = view.result
                    if result is None:
                        cursor.insertText(self.tr("(none yet)"), plain)
                    else:
                        if len(result) > RESULT_CHARS:
                            result = result[:RESULT_CHARS] + "\n… " + self.tr("(cut here)")
                        cursor.insertText(result, mono)
                    cursor = frame.lastCursorPosition()
                    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        if first:
            cursor.insertText(self.tr("The conversation is empty so far."), head)
        return document

    def _anchor(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("tool:"):
            call_id = text[5:]
            self.set_tool_expanded(call_id, call_id not in self._expanded)
