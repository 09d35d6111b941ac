"""The approval dialog: parked runs reviewed one after another.

Passive over a queue of ``(Parked, Automation | None)``: it shows the current one and emits
:attr:`ApprovalDialog.decided` with a :class:`~errands.records.Decision`; its owner (see
:mod:`errands.app.approvals`) applies the decision through the engine and then calls
:meth:`ApprovalDialog.next_item`, or :meth:`ApprovalDialog.show_error` when the engine
refused (the item stays). "Later" moves on without deciding. The dialog closes itself when
nothing is left to review.

For a permission: which automation and run, why it stopped, the tool and its arguments in
full (the subject, the exact command, path or URL, in its own box; any other argument, a
file's content say, below it, scrollable), where it would act, and Approve once / Always
allow… / Deny. "Always allow…" first shows the rule it would add, prefilled with exactly
this call's subject, editable to narrow or widen it; a pattern that would not match this
very call is refused beside the field (checked with the engine's own matching,
:func:`errands.agent.permissions.rule_matches`). For a question: the question, a button per
choice, or a text answer.

Enter approves nothing: no button is the default, so a stray Enter (a key held while the
dialog popped up) cannot let a command run, nor deny one and spoil the run's work. Every
decision is a click or its Alt mnemonic. Esc closes the dialog; the runs keep waiting.
"""

from __future__ import annotations

import json
import re
from datetime import tzinfo
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (QDialog, QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QPushButton, QStackedWidget,
                               QVBoxLayout, QWidget)

from ...agent import permissions, shell
from ...agent.mcp_tools import server_tool_pattern
from ...definition import Rule
from ...records import Automation, Decision, Parked
from ...timeutil import utcnow
from .. import theme, words
from ..words import home_short

Item = tuple[Parked, "Automation | None"]

SUBJECT_NAMES = {"command": QT_TRANSLATE_NOOP("ApprovalDialog", "Command"), "path": QT_TRANSLATE_NOOP("ApprovalDialog", "File"),
                 "url": QT_TRANSLATE_NOOP("ApprovalDialog", "Address"), "action": QT_TRANSLATE_NOOP("ApprovalDialog", "Action")}


def tool_specs() -> dict[str, Any]:
    """Every built-in tool an agent run may call, by name (the loop's own table)."""
    from ...agent.loop import SPECS
    return SPECS


def spec_of(tool: str | None) -> Any:
    """The spec a call of ``tool`` is judged by: a built-in tool's, or for an MCP server's
    tool (``mcp__server__tool``) one judged on ``server.tool``; None for anything else."""
    from ...agent.tools.base import ToolSpec
    found = tool_specs().get(tool or "")
    if found is None and tool and tool.startswith("mcp__") and "__" in tool[5:]:
        from ...agent.mcp_tools import subject_of
        found = ToolSpec(name=tool, effect="mcp", description="", parameters={},
                         fixed_subject=subject_of(tool))
    return found


def workdir_of(automation: Automation | None, data_dir: Path | None) -> str | None:
    """Where a run of ``automation`` acts: its workdir, else its own workspace folder."""
    if automation is None:
        return None
    d = automation.definition
    if d is not None and d.workdir:
        return d.workdir
    if data_dir is not None:
        return str(Path(data_dir) / "workspaces" / automation.id)
    return None


def judged_subject(tool: str | None, arguments: dict[str, Any] | None,
                   workdir: str | None) -> str | None:
    """The subject the engine judges this call on: a path as the workdir-relative file it
    leads to (links resolved) when the workdir is at hand, else as written; the command or
    URL as given."""
    spec = spec_of(tool)
    if spec is None:
        return None
    args = arguments or {}
    if spec.subject == "path" and workdir:
        from ...agent.tools.base import ToolEnv, ToolError
        from ...agent.tools.registry import call_subject
        try:
            return call_subject(spec, args, ToolEnv(workdir=Path(workdir)))
        except (ToolError, OSError):
            pass
    return permissions.subject_of(spec, args)


def exact_pattern(subject: str | None) -> str:
    """A pattern that matches exactly ``subject``: its own ``* ? [`` as characters (the
    engine's default "always" rule); ``*`` for a call without a subject."""
    if not subject:
        return "*"
    return re.sub(r"([*?[])", r"[\1]", subject)


def pattern_problem(tool: str | None, arguments: dict[str, Any] | None,
                    workdir: str | None, pattern: str) -> str | None:
    """Why ``pattern`` cannot be saved as an "always allow" rule for this call, or None.
    The rule must at least allow the call it is made from."""
    spec = spec_of(tool)
    if spec is None:
        return words.tr("This tool cannot be allowed by a rule.")
    if not pattern.strip():
        return words.tr("Give a pattern (* allows every call of this tool).")
    if pattern != pattern.strip():
        return words.tr("The pattern starts or ends with a space.")
    subject = judged_subject(tool, arguments, workdir)
    rule = Rule(tool=spec.name, pattern=pattern, action="allow")
    if not permissions.rule_matches(rule, spec, subject):
        parsed = shell.parse(subject) if spec.subject == "command" and subject else None
        if parsed is not None and not parsed.proven:
            return words.tr("A command with $(…), backquotes or redirections is never "
                            "allowed by a pattern; approve it once instead.")
        if parsed is not None and len(parsed.parts) > 1:
            return words.tr("This pattern does not match this call: every part of the "
                            "command (split at ;, &&, ||, | and &) must match it.")
        return words.tr("This pattern does not match this call, so it would not allow it.")
    return None


def why_words(parked: Parked, automation: Automation | None, untrusted: bool = False) -> str:
    """Why the run stopped, in a sentence."""
    b = parked.blocker
    if b.kind == "question":
        return words.tr("The agent asks you a question and waits for your answer.")
    spec = spec_of(b.tool)
    if spec is None:
        return words.tr("The agent wants to use a tool that needs your approval.")
    if untrusted and spec.name in permissions.ESCALATED_TOOLS:
        return words.tr("This run has read content from the web, so it asks before it may %1."
                        ).replace("%1", words.tool_words(spec.name))
    mode = automation.definition.permissions.mode if (
        automation is not None and automation.definition is not None) else "ask"
    if mode == "allow_listed":
        return words.tr("The agent wants to %1, which this automation does not allow "
                        "without asking.").replace("%1", words.tool_words(spec.name))
    return words.tr("The agent wants to %1; that needs your approval unless a rule "
                    "allows it.").replace("%1", words.tool_words(spec.name))


def rule_sentence(tool: str, pattern: str, workdir: str | None, action: str = "allow") -> str:
    """A rule in words: "May run `git pull` in ~/projects/site without asking"."""
    where = home_short(workdir) if workdir else ""
    what = {"run_command": words.tr("run %1"), "write_file": words.tr("write %1"),
            "edit_file": words.tr("edit %1"), "read_file": words.tr("read %1"),
            "list_files": words.tr("list %1"), "search_files": words.tr("search %1"),
            "fetch_url": words.tr("fetch %1"), "automate": words.tr("%1 automations")}
    if pattern == "*":
        anything = {"run_command": words.tr("run any command"),
                    "fetch_url": words.tr("fetch any address"),
                    "automate": words.tr("change any automation")}.get(
            tool, words.tr("%1 (anything)").replace("%1", words.tool_words(tool)))
        phrase = anything
    elif tool in what:
        phrase = what[tool].replace("%1", f"`{pattern}`")
    else:
        phrase = f"{words.tool_words(tool)} `{pattern}`"
    place = "" if tool in ("fetch_url", "automate", "notify", "ask_user") or not where \
        else " " + words.tr("in %1").replace("%1", where)
    if action == "deny":
        return words.tr("May never %1%2").replace("%1", phrase).replace("%2", place)
    if action == "ask":
        return words.tr("Asks before it may %1%2").replace("%1", phrase).replace("%2", place)
    return words.tr("May %1%2 without asking").replace("%1", phrase).replace("%2", place)


def _mono() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    return font


class ApprovalDialog(QDialog):
    """Review parked runs one after another (see the module text)."""

    decided = Signal(str, object)     # run id, Decision
    later = Signal(str)               # run id put off without a decision

    def __init__(self, parent: QWidget | None = None, *, data_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalDialog")
        self.setWindowTitle(self.tr("Waiting for you"))
        self.setAccessibleName(self.tr("Approvals"))
        self.setModal(False)
        self.data_dir = data_dir
        self.tz: tzinfo = words.local_zone()
        self.untrusted: set[str] = set()     # run ids that read web content before asking
        self._items: list[Item] = []
        self._handled: list[str] = []
        self._current: Item | None = None
        self._busy = False
        self._workdir: str | None = None

        # ---- header: where we are, which automation, which run, why
        self.position = QLabel()
        self.position.setAccessibleName(self.tr("Position in the queue"))
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.title.setAccessibleName(self.tr("Automation"))
        self.run_label = QLabel()
        self.run_label.setWordWrap(True)
        self.run_label.setAccessibleName(self.tr("Run"))
        self.why = QLabel()
        self.why.setWordWrap(True)
        self.why.setAccessibleName(self.tr("Why it stopped"))
        head = QVBoxLayout()
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.position, 0, Qt.AlignmentFlag.AlignTop)
        head.addLayout(top)
        head.addWidget(self.run_label)
        head.addWidget(self.why)

        # ---- the permission page
        self.tool_label = QLabel()
        self.tool_label.setWordWrap(True)
        self.tool_label.setAccessibleName(self.tr("Tool"))
        self.subject_caption = QLabel()
        self.subject_box = QPlainTextEdit()
        self.subject_box.setReadOnly(True)
        self.subject_box.setFont(_mono())
        self.subject_box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.subject_box.setAccessibleName(self.tr("The exact command, path or address"))
        self.subject_box.setTabChangesFocus(True)
        self.subject_caption.setBuddy(self.subject_box)
        self.args_caption = QLabel(self.tr("Other arguments:"))
        self.args_box = QPlainTextEdit()
        self.args_box.setReadOnly(True)
        self.args_box.setFont(_mono())
        self.args_box.setAccessibleName(self.tr("Other arguments"))
        self.args_box.setTabChangesFocus(True)
        self.args_caption.setBuddy(self.args_box)
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where.setAccessibleName(self.tr("Where it would act"))

        # "Always allow…": the rule it adds, editable, checked as typed
        self.rule_frame = QFrame()
        self.rule_frame.setFrameShape(QFrame.Shape.StyledPanel)
        self.rule_intro = QLabel()
        self.rule_intro.setWordWrap(True)
        self.rule_tool = QLabel()
        self.rule_tool.setFont(_mono())
        self.rule_edit = QLineEdit()
        self.rule_edit.setFont(_mono())
        self.rule_edit.setAccessibleName(self.tr("Pattern of the rule"))
        self.rule_edit.setToolTip(self.tr("* matches anything (also across /). A command "
                                          "matches only when every part of it (split at ; && "
                                          "|| | &) matches."))
        self.rule_edit.textChanged.connect(self._check_rule)
        self.rule_check = QLabel()
        self.rule_check.setWordWrap(True)
        self.rule_check.setAccessibleName(self.tr("Does the pattern match this call"))
        self.rule_words = QLabel()
        self.rule_words.setWordWrap(True)
        self.rule_words.setAccessibleName(self.tr("The rule in words"))
        self.save_rule = QPushButton(self.tr("Allow and &save rule"))
        self.save_rule.setAccessibleName(self.tr("Allow and save rule"))
        self.save_rule.clicked.connect(self._approve_always)
        self.cancel_rule = QPushButton(self.tr("Back"))
        self.cancel_rule.setAccessibleName(self.tr("Back to the choices, no rule saved"))
        self.cancel_rule.clicked.connect(lambda: self._show_rule(False))
        rule_grid = QGridLayout(self.rule_frame)
        rule_grid.addWidget(self.rule_intro, 0, 0, 1, 3)
        rule_grid.addWidget(self.rule_tool, 1, 0)
        rule_grid.addWidget(self.rule_edit, 1, 1, 1, 2)
        rule_grid.addWidget(self.rule_check, 2, 0, 1, 3)
        rule_grid.addWidget(self.rule_words, 3, 0, 1, 3)
        rule_buttons = QHBoxLayout()
        rule_buttons.addStretch(1)
        rule_buttons.addWidget(self.cancel_rule)
        rule_buttons.addWidget(self.save_rule)
        rule_grid.addLayout(rule_buttons, 4, 0, 1, 3)
        rule_grid.setColumnStretch(1, 1)

        # Deny: an optional note for the run
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText(self.tr("Why (optional; the agent is told)"))
        self.note_edit.setAccessibleName(self.tr("Note with the denial"))
        note_caption = QLabel(self.tr("&Note:"))
        note_caption.setBuddy(self.note_edit)

        permission = QWidget()
        p = QVBoxLayout(permission)
        p.setContentsMargins(0, 0, 0, 0)
        p.addWidget(self.tool_label)
        p.addWidget(self.subject_caption)
        p.addWidget(self.subject_box)
        p.addWidget(self.args_caption)
        p.addWidget(self.args_box, 100)
        p.addWidget(self.where)
        p.addWidget(self.rule_frame)
        note_row = QHBoxLayout()
        note_row.addWidget(note_caption)
        note_row.addWidget(self.note_edit, 1)
        p.addLayout(note_row)
        p.addStretch(1)  # short content stays at the top; the arguments box takes the room

        # ---- the question page
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.question.setAccessibleName(self.tr("Question"))
        qfont = QFont(self.question.font())
        qfont.setPointSizeF(qfont.pointSizeF() * 1.1)
        self.question.setFont(qfont)
        self.choices_box = QWidget()
        self.choices_layout = QVBoxLayout(self.choices_box)
        self.choices_layout.setContentsMargins(0, 0, 0, 0)
        self.choice_buttons: list[QPushButton] = []
        self.answer_edit = QLineEdit()
        self.answer_edit.setPlaceholderText(self.tr("Your answer"))
        self.answer_edit.setAccessibleName(self.tr("Your answer"))
        self.answer_edit.returnPressed.connect(self._answer_text)  # typed, then Enter: meant
        self.answer_button = QPushButton(self.tr("A&nswer"))
        self.answer_button.setAccessibleName(self.tr("Answer"))
        self.answer_button.clicked.connect(self._answer_text)
        self.answer_row = QWidget()
        a = QHBoxLayout(self.answer_row)
        a.setContentsMargins(0, 0, 0, 0)
        a.addWidget(self.answer_edit, 1)
        a.addWidget(self.answer_button)
        question = QWidget()
        q = QVBoxLayout(question)
        q.setContentsMargins(0, 0, 0, 0)
        q.addWidget(self.question)
        q.addWidget(self.choices_box)
        q.addWidget(self.answer_row)
        q.addStretch(1)

        self.pages = QStackedWidget()
        self.pages.addWidget(permission)
        self.pages.addWidget(question)

        # ---- the refusal, and the choices
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setAccessibleName(self.tr("Error"))
        self.error.setStyleSheet(f"color: {theme.state_colors()['error'].name()}")
        self.error.hide()

        self.later_button = QPushButton(self.tr("&Later"))
        self.later_button.setToolTip(self.tr("Go on to the next one; this run keeps waiting"))
        self.later_button.setAccessibleName(self.tr("Later"))
        self.later_button.clicked.connect(self.skip)
        self.deny_button = QPushButton(self.tr("&Deny"))
        self.deny_button.setToolTip(self.tr("Refuse; the agent is told and may go on without it"))
        self.deny_button.setAccessibleName(self.tr("Deny"))
        self.deny_button.clicked.connect(self._deny)
        self.always_button = QPushButton(self.tr("Al&ways allow…"))
        self.always_button.setToolTip(self.tr("Approve, and save a rule so this automation "
                                              "does not ask again for calls like it"))
        self.always_button.setAccessibleName(self.tr("Always allow for this automation"))
        self.always_button.clicked.connect(lambda: self._show_rule(True))
        self.once_button = QPushButton(self.tr("&Approve once"))
        self.once_button.setToolTip(self.tr("Let this one call run; the next one asks again"))
        self.once_button.setAccessibleName(self.tr("Approve once"))
        self.once_button.clicked.connect(self._approve_once)
        buttons = QHBoxLayout()
        buttons.addWidget(self.later_button)
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(self.always_button)
        buttons.addWidget(self.once_button)
        for b in (self.later_button, self.deny_button, self.always_button, self.once_button,
                  self.save_rule, self.cancel_rule, self.answer_button):
            b.setAutoDefault(False)
            b.setDefault(False)

        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        self.setMinimumWidth(520)
        self.resize(640, 520)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.reject)
        self._show_rule(False)

    # ------------------------------------------------------------------ the queue

    def set_queue(self, items: list[Item]) -> None:
        """The parked runs to review, oldest first. The one shown stays shown while it is in
        ``items``; one decided elsewhere leaves; new ones join at the end. Runs put off or
        decided here are not shown again."""
        handled = set(self._handled)
        self._items = [i for i in items if i[0].run_id not in handled]
        current = self._current
        keep = current is not None and any(i[0].run_id == current[0].run_id
                                           for i in self._items)
        if keep:
            assert current is not None
            fresh = next(i for i in self._items if i[0].run_id == current[0].run_id)
            self._items.remove(fresh)
            self._items.insert(0, fresh)
            if fresh[1] is not None and current[1] is not None \
                    and fresh[1].revision != current[1].revision:
                self._current = fresh  # its automation changed: show it as it is now
                self._show(fresh, keep_inputs=True)
            else:
                self._current = fresh
            self._update_position()
            return
        if self._busy and current is not None:  # decided here, applied before the reply
            self._handled.append(current[0].run_id)
        self._busy = False
        self._advance()

    def pending(self) -> list[Item]:
        """What is left to review, the one shown first."""
        return list(self._items)

    def current(self) -> Item | None:
        return self._current

    def current_run_id(self) -> str | None:
        return self._current[0].run_id if self._current else None

    def next_item(self, run_id: str | None = None) -> None:
        """The decision on the current item (or on ``run_id``) was applied: show the next
        one, or close when none is left. A run that is no longer the one shown (a refresh
        moved on meanwhile) is only noted as done."""
        done = run_id or self.current_run_id()
        if done is None:
            return
        if done not in self._handled:
            self._handled.append(done)
        self._items = [i for i in self._items if i[0].run_id != done]
        if self._current is not None and self._current[0].run_id != done:
            self._update_position()
            return
        self._busy = False
        self._advance()

    def skip(self) -> None:
        """"Later": move on without deciding; the run keeps waiting."""
        if self._current is None or self._busy:
            return
        run_id = self._current[0].run_id
        self.next_item()
        self.later.emit(run_id)

    def show_error(self, text: str, run_id: str | None = None) -> None:
        """The engine refused the decision: say why, and keep the item. About a run no
        longer shown (it left the queue meanwhile), nothing is said."""
        if run_id is not None and run_id != self.current_run_id():
            return
        self._busy = False
        self._set_enabled(True)
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def restart(self) -> None:
        """Forget what was put off or decided (a fresh review)."""
        self._handled = []
        self._current = None

    def _advance(self) -> None:
        self._current = self._items[0] if self._items else None
        if self._current is None:
            if self.isVisible():
                self.accept()
            return
        self._show(self._current)

    def _update_position(self) -> None:
        done, left = len(self._handled), len(self._items)
        total = done + left
        self.position.setText(self.tr("%1 of %2").replace("%1", str(done + 1)).replace(
            "%2", str(total)) if total > 1 else "")
        self.position.setVisible(total > 1)

    # ------------------------------------------------------------------ showing one

    def _show(self, item: Item, *, keep_inputs: bool = False) -> None:
        parked, automation = item
        b = parked.blocker
        self._update_position()
        self.error.hide()
        self._set_enabled(True)
        self.title.setText(automation.title if automation is not None
                           else self.tr("An automation that is gone"))
        now = utcnow()
        self.run_label.setText(self.tr("Run #%1 · asked %2 · waits until %3").replace(
            "%1", str(parked.run_index)).replace(
            "%2", words.day_and_time(parked.requested_at, now, self.tz)).replace(
            "%3", words.day_and_time(parked.expires_at, now, self.tz)))
        self.why.setText(why_words(parked, automation, parked.run_id in self.untrusted))
        permission = b.kind == "permission"
        self.pages.setCurrentIndex(0 if permission else 1)
        self.once_button.setVisible(permission)
        self.always_button.setVisible(permission)
        self.deny_button.setText(self.tr("&Deny") if permission else self.tr("&Decline"))
        self.deny_button.setAccessibleName(self.tr("Deny") if permission
                                           else self.tr("Decline to answer"))
        if permission:
            self._show_permission(parked, automation, keep_inputs)
        else:
            self._show_question(parked, keep_inputs)

    def _show_permission(self, parked: Parked, automation: Automation | None,
                         keep_inputs: bool) -> None:
        b = parked.blocker
        spec = spec_of(b.tool)
        args = dict(b.arguments or {})
        key = spec.subject if spec is not None else None
        subject = args.pop(key, None) if key else None
        self.tool_label.setText(self.tr("Tool: %1").replace("%1", b.tool or "?"))
        has_subject = isinstance(subject, str)
        self.subject_caption.setText(self.tr(SUBJECT_NAMES.get(key or "", QT_TRANSLATE_NOOP("ApprovalDialog", "Subject"))) + ":")
        self.subject_caption.setVisible(has_subject)
        self.subject_box.setVisible(has_subject)
        self.subject_box.setPlainText(subject if has_subject else "")
        self._fit_subject()
        if not has_subject and subject is not None:
            args[key or "?"] = subject  # not text: shown with the rest, as it came
        self.args_box.setPlainText("\n".join(_argument_text(k, v) for k, v in args.items()))
        self.args_box.setVisible(bool(args))
        self.args_caption.setVisible(bool(args))
        self.args_caption.setText(self.tr("Other arguments:") if has_subject
                                  else self.tr("Arguments:"))
        workdir = workdir_of(automation, self.data_dir)
        d = automation.definition if automation is not None else None
        if spec is not None and spec.effect in ("exec", "write", "read") and workdir:
            place = home_short(workdir)
            if d is not None and d.worktree:
                text = self.tr("Where: in a git worktree of %1 made for this run").replace(
                    "%1", place)
            else:
                text = self.tr("Where: %1").replace("%1", place)
        elif spec is not None and spec.effect == "network":
            text = self.tr("Where: on the network, from this computer")
        elif spec is not None and spec.effect == "mcp":
            text = self.tr("Where: the MCP server “%1”, which may do anything its tool "
                           "does").replace("%1", (spec.fixed_subject or "").split(".")[0])
        else:
            text = ""
        self.where.setText(text)
        self.where.setVisible(bool(text))
        if not keep_inputs:
            self.note_edit.clear()
            self._show_rule(False)
            self._workdir = workdir
            self.rule_edit.setText(
                server_tool_pattern(b.tool or "") if spec is not None and spec.effect == "mcp"
                else exact_pattern(judged_subject(b.tool, b.arguments, workdir)))
        self.rule_tool.setText(b.tool or "")
        self.rule_intro.setText(self.tr("This rule will be added to “%1” (a new revision); "
                                        "narrow or widen the pattern:").replace(
            "%1", automation.title if automation is not None else ""))
        self._check_rule()

    def _show_question(self, parked: Parked, keep_inputs: bool) -> None:
        b = parked.blocker
        self.question.setText(b.question or self.tr("The run needs your input to go on."))
        for button in self.choice_buttons:
            self.choices_layout.removeWidget(button)
            button.deleteLater()
        self.choice_buttons = []
        for n, choice in enumerate(b.choices or ()):
            button = QPushButton(choice)
            button.setAutoDefault(False)
            button.setAccessibleName(self.tr("Answer: %1").replace("%1", choice))
            if n < 9:
                button.setShortcut(QKeySequence(f"Alt+{n + 1}"))
                button.setToolTip(self.tr("Alt+%1").replace("%1", str(n + 1)))
            button.clicked.connect(lambda _=False, c=choice: self._answer(c))
            self.choices_layout.addWidget(button)
            self.choice_buttons.append(button)
        self.choices_box.setVisible(bool(b.choices))
        self.answer_row.setVisible(not b.choices)
        if not keep_inputs:
            self.answer_edit.clear()

    def _fit_subject(self) -> None:
        """The subject box as tall as its text (wrapped), two lines at least and twelve at
        most (then it scrolls): a short command does not sit in a tall empty box."""
        box = self.subject_box
        metrics = box.fontMetrics()
        shown = box.viewport().width() if box.isVisible() else self.width() - 60
        width = max(shown - metrics.horizontalAdvance("x") * 2, 200)  # room for a scrollbar
        per_line = max(1, width // max(1, metrics.horizontalAdvance("x")))
        lines = sum(max(1, -(-len(line) // per_line))
                    for line in (box.toPlainText() or " ").splitlines() or [" "])
        frame = 2 * box.frameWidth() + int(box.document().documentMargin() * 2) + 4
        if lines > 1:
            lines += 1  # words wrap earlier than characters would
        box.setFixedHeight(metrics.lineSpacing() * min(max(lines, 2), 12) + frame)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt's naming)
        super().resizeEvent(event)
        if self.subject_box.isVisible():
            self._fit_subject()

    # ------------------------------------------------------------------ "always"

    def _show_rule(self, shown: bool) -> None:
        self.rule_frame.setVisible(shown)
        self.always_button.setEnabled(not shown and not self._busy)
        if shown:
            self._check_rule()
            self.rule_edit.setFocus()
            self.rule_edit.selectAll()

    def rule_problem(self) -> str | None:
        """Why the pattern in the field cannot be saved for the current call, or None."""
        if self._current is None:
            return None
        b = self._current[0].blocker
        return pattern_problem(b.tool, b.arguments, self._workdir,
                               self.rule_edit.text())

    def _check_rule(self) -> None:
        if self._current is None or self._current[0].blocker.kind != "permission":
            return
        problem = self.rule_problem()
        colors = theme.state_colors()
        if problem:
            self.rule_check.setText("✕ " + problem)
            self.rule_check.setStyleSheet(f"color: {colors['error'].name()}")
            self.rule_words.setText("")
            self.rule_words.hide()
        else:
            self.rule_check.setText("✓ " + self.tr("Matches this call."))
            self.rule_check.setStyleSheet(f"color: {colors['success'].name()}")
            b = self._current[0].blocker
            self.rule_words.setText(rule_sentence(b.tool or "", self.rule_edit.text(),
                                                  self._workdir))
            self.rule_words.show()
        self.save_rule.setEnabled(problem is None and not self._busy)

    # ------------------------------------------------------------------ deciding

    def _set_enabled(self, enabled: bool) -> None:
        for b in (self.once_button, self.deny_button, self.save_rule, self.answer_button,
                  *self.choice_buttons):
            b.setEnabled(enabled)
        self.always_button.setEnabled(enabled and not self.rule_frame.isVisible())
        if enabled:
            self._check_rule()

    def _emit(self, decision: Decision) -> None:
        if self._current is None or self._busy:
            return
        self._busy = True
        self._set_enabled(False)
        self.error.hide()
        self.decided.emit(self._current[0].run_id, decision)

    def _approve_once(self) -> None:
        self._emit(Decision("approve_once"))

    def _approve_always(self) -> None:
        problem = self.rule_problem()
        if problem:
            self._check_rule()
            return
        self._emit(Decision("approve_always", rule=self.rule_edit.text()))

    def _deny(self) -> None:
        note = self.note_edit.text().strip() if self.pages.currentIndex() == 0 else ""
        self._emit(Decision("deny", text=note or None))

    def _answer(self, text: str) -> None:
        self._emit(Decision("answer", text=text))

    def _answer_text(self) -> None:
        text = self.answer_edit.text()
        if not text.strip():
            self.show_error(self.tr("Type an answer first (or Decline)."))
            return
        self._answer(text)


def _argument_text(key: str, value: Any) -> str:
    if isinstance(value, str):
        return f"{key}:\n{value}" if "\n" in value else f"{key}: {value}"
    return f"{key}: {json.dumps(value, ensure_ascii=False, indent=2)}"

