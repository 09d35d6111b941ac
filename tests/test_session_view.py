"""The session view and the inbox over real data: agent runs of the real agent runner
against the scripted OpenAI-compatible server (a tool loop ending in markdown, a run parked
on a permission, one parked on a question, a follow-up turn), real shell commands, and the
attention items a real engine raised, all read through the facade as the window reads them."""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from errands.app import words
from errands.app.detail.session import SessionView
from errands.app.inbox import InboxView
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextCursor, QTextFormat
from pg_support import copy_of
from session_support import Docs, build


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docs]:
    """Built once: an engine, a scripted model server and real commands (about 2 s)."""
    import keyring
    from keyring_backend import MemoryKeyring

    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):
            if key.startswith("ERRANDS_"):
                mp.delenv(key)
        keyring.set_keyring(MemoryKeyring())
        yield build(tmp_path_factory.mktemp("session"))


def view_for(qtbot: Any, doc: dict[str, Any] | None, size: tuple[int, int] = (900, 700)
             ) -> SessionView:
    v = SessionView()
    qtbot.addWidget(v)
    v.resize(*size)
    v.show()
    v.set_run(doc)
    return v


def long_transcript(doc: dict[str, Any], count: int) -> dict[str, Any]:
    """``doc`` with ``count`` messages: its own real messages (after the prompt) repeated,
    each tool call with an id of its own."""
    doc = copy.deepcopy(doc)
    base = doc["transcript"]
    messages = [base[0]]
    for i in range(1, count):
        m = copy.deepcopy(base[1 + (i - 1) % (len(base) - 1)])
        m["seq"] = i + 1
        content = m["content"]
        for tc in content.get("tool_calls") or ():
            tc["id"] = f"{tc['id']}-{i}"
        if content.get("tool_call_id"):
            content["tool_call_id"] = f"{content['tool_call_id']}-{i - 1}"
        messages.append(m)
    doc["transcript"] = messages
    return doc


# ------------------------------------------------------------------ agent runs

def test_an_agent_run_shows_its_markdown_answer_and_collapsed_tool_calls(qtbot, docs: Docs) -> None:
    doc = docs.runs["agent"]
    v = view_for(qtbot, doc)
    assert v.pages.currentIndex() == 1 and v.state_label.text() == "✓ Succeeded"
    assert [c.summary for c in v.tool_calls()] == [
        "run_command: echo clean; exit 0 → exit 0", "read_file: notes.txt → the answer is 42"]
    assert not any(c.expanded for c in v.tool_calls())
    text = v.transcript_text()
    assert "Is the repository clean?" in text and "Disk report" in text
    assert "stdout:" not in text and "## " not in text and "**" not in text
    # the answer is rendered markdown: a heading (larger, bold), bold text, a list, a table
    document = v.browser.document()
    block = document.begin()
    headings, bold, lists = [], [], 0
    while block.isValid():
        if block.textList() is not None:
            lists += 1
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            f = fragment.charFormat()
            if f.intProperty(QTextFormat.Property.FontSizeAdjustment) > 0:
                headings.append(fragment.text())
            elif f.fontWeight() >= 700 and fragment.text() == "clean":
                bold.append(fragment.text())
            it += 1
        block = block.next()
    assert headings == ["Disk report"] and bold == ["clean"] and lists == 2
    cursor = document.find("volume")
    assert not cursor.isNull() and cursor.currentTable() is not None


def test_a_tool_call_opens_by_click_and_by_keyboard(qtbot, docs: Docs) -> None:
    v = view_for(qtbot, docs.runs["agent"])
    first, second = v.tool_calls()
    v.browser.anchorClicked.emit(QUrl(f"tool:{first.call_id}"))  # what a click on it does
    assert v.is_expanded(first.call_id) and not v.is_expanded(second.call_id)
    text = v.transcript_text()
    assert '"command": "echo clean; exit 0"' in text and "stdout:\nclean" in text
    assert "the answer is 42" not in text.split("read_file:")[1].split("\n", 1)[1]
    # Tab reaches the links, Enter opens one
    v.browser.setFocus()
    v.browser.moveCursor(QTextCursor.MoveOperation.Start)
    qtbot.keyClick(v.browser, Qt.Key.Key_Tab)
    qtbot.keyClick(v.browser, Qt.Key.Key_Tab)
    qtbot.keyClick(v.browser, Qt.Key.Key_Return)
    assert v.is_expanded(second.call_id)
    v.set_all_tools_expanded(False)
    assert not v.is_expanded(first.call_id) and "stdout:" not in v.transcript_text()
    v.expand_button.click()
    assert all(v.is_expanded(c.call_id) for c in v.tool_calls())
    assert v.expand_button.text() == "Close all tool calls"
    v.expand_button.click()
    assert not any(v.is_expanded(c.call_id) for c in v.tool_calls())
    assert v.expand_button.text() == "Open all tool calls"


def test_token_usage_is_the_sum_of_the_transcript(qtbot, docs: Docs) -> None:
    doc = docs.runs["agent"]
    v = view_for(qtbot, doc)
    summed = [m["content"]["usage"] for m in doc["transcript"] if m["content"].get("usage")]
    assert summed == [[10, 5], [10, 5], [120, 40]]
    assert v.usage() == (140, 50)
    assert doc["usage"] == {"prompt_tokens": 140, "completion_tokens": 50}  # the engine agrees
    assert v.usage_label.text() == "190 tokens"
    assert v.usage_label.toolTip() == "140 prompt tokens, 50 completion tokens"
    # a follow-up is a discussion of the run: the run's turn, then the question
    follow = view_for(qtbot, docs.runs["follow_up"])
    assert follow.state_label.text() == "Discussion"
    assert follow.facts_label.text().startswith("About run #1 · 1 turn")
    text = follow.transcript_text()
    assert "── run #1 of the automation ──" in text and "── discussion ──" in text
    assert text.index("Disk report") < text.index("Anything else?") < text.index("nothing else")
    assert not follow.discuss_button.isVisibleTo(follow)


def test_a_run_parked_on_a_permission_says_what_it_waits_for(qtbot, docs: Docs) -> None:
    v = view_for(qtbot, docs.runs["permission"])
    assert not v.blocker_frame.isHidden()
    blocker = v.blocker_text()
    assert "Waiting for your permission" in blocker
    assert "The agent wants to run commands (run_command)." in blocker
    assert "command: echo built > site.txt" in blocker and "expires" in blocker
    assert [c.summary for c in v.tool_calls()] == [
        "run_command: echo built > site.txt → waiting for your permission"]
    assert v.state_label.text() == "⚑ Waiting for you"
    assert not v.reply_edit.isEnabled() and not v.send_button.isEnabled()
    assert "Answer what the run waits for first" in v.reply_edit.placeholderText()


def test_a_run_parked_on_a_question_shows_the_question_and_choices(qtbot, docs: Docs) -> None:
    v = view_for(qtbot, docs.runs["question"])
    blocker = v.blocker_text()
    assert "Waiting for your answer" in blocker and "Which branch?" in blocker
    assert "Choices: main, dev" in blocker
    assert v.tool_calls()[0].summary == "ask_user: Which branch? → waiting for your answer"


def test_refreshing_the_same_run_keeps_open_calls_and_drops_the_blocker(qtbot, docs: Docs) -> None:
    v = view_for(qtbot, docs.runs["permission"])
    call_id = v.tool_calls()[0].call_id
    v.set_tool_expanded(call_id, True)
    v.append_transcript(docs.runs["approved"])  # the same run, approved and finished
    assert v.is_expanded(call_id) and v.blocker_frame.isHidden()
    assert v.tool_calls()[0].summary == "run_command: echo built > site.txt → exit 0"
    assert "Built the site." in v.transcript_text()
    assert v.reply_edit.isEnabled()
    v.set_run(docs.runs["agent"])  # another run starts closed
    assert not any(v.is_expanded(c.call_id) for c in v.tool_calls())


def test_five_hundred_messages_set_quickly_and_refresh_in_place(qtbot, docs: Docs) -> None:
    big = long_transcript(docs.runs["agent"], 500)
    v = view_for(qtbot, None)
    times = []
    for _ in range(3):
        v.set_run(None)
        start = time.perf_counter()
        v.set_run(big)
        times.append(time.perf_counter() - start)
    print(f"\nset_run with 500 messages: best {min(times) * 1000:.0f} ms, "
          f"worst {max(times) * 1000:.0f} ms")
    # a guard against a page that freezes the window (quadratic work, a layout per message),
    # not a timing figure: about 0.1 s here on a quiet machine, several times that under a
    # full suite on two cores
    assert min(times) < 1.0, times
    calls = v.tool_calls()
    assert len(calls) == 200  # two calls in every five messages
    bar = v.browser.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()  # a new run opens at its end
    bar.setValue(bar.maximum() // 3)
    middle = bar.value()
    v.set_tool_expanded(calls[10].call_id, True)
    assert bar.value() == middle
    grown = copy.deepcopy(big)
    extra = copy.deepcopy(grown["transcript"][-1])
    extra["seq"] = 501
    grown["transcript"].append(extra)
    v.set_run(grown)
    assert v.scroll_value() == middle and v.is_expanded(calls[10].call_id)
    bar.setValue(bar.maximum())  # at the end it follows the end
    grown = copy.deepcopy(grown)
    extra = copy.deepcopy(extra)
    extra["seq"] = 502
    grown["transcript"].append(extra)
    v.set_run(grown)
    assert bar.value() == bar.maximum()


# ------------------------------------------------------------------ command runs

def test_a_command_run_shows_its_output_and_exit_status(qtbot, docs: Docs) -> None:
    v = view_for(qtbot, docs.runs["command"])
    assert v.pages.currentIndex() == 0
    assert v.output.toPlainText() == "hello\nwarning\n"  # stderr too, in order
    assert v.exit_label.text() == "Exit status 0" and v.error_label.isHidden()
    assert v.follow_up.isHidden() and v.usage_label.text() == ""
    failed = view_for(qtbot, docs.runs["failed_command"])
    assert failed.exit_label.text() == "Exit status 3"
    assert failed.output.toPlainText() == "copying\ndisk full\n"
    assert failed.error_label.text() == "Error: exited with status 3: disk full"
    assert not failed.error_label.isHidden() and failed.state_label.text() == "✕ Failed"


# ------------------------------------------------------------------ the follow-up

def test_a_follow_up_is_emitted_and_kept_until_the_owner_says(qtbot, docs: Docs) -> None:
    doc = docs.runs["agent"]
    v = view_for(qtbot, doc)
    assert v.reply_edit.isEnabled() and not v.send_button.isEnabled()  # nothing to send yet
    v.reply_edit.setFocus()
    qtbot.keyClicks(v.reply_edit, "Now list the files.")
    assert v.send_button.isEnabled()
    with qtbot.waitSignal(v.reply_requested) as sent:
        qtbot.keyClick(v.reply_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent.args == [doc["session_id"], "Now list the files."]
    assert v.reply_edit.toPlainText() == "Now list the files."
    assert not v.send_button.isEnabled()  # not twice while it is on its way
    v.reply_failed(docs.refusal)  # the engine's own refusal, in its words
    assert v.reply_edit.toPlainText() == "Now list the files."
    assert not v.reply_error.isHidden() and docs.refusal in v.reply_error.text()
    assert v.send_button.isEnabled()
    v.set_run(doc)  # a refresh meanwhile keeps the text and the reason
    assert v.reply_edit.toPlainText() == "Now list the files."
    assert docs.refusal in v.reply_error.text()
    with qtbot.waitSignal(v.reply_requested):
        v.send_button.click()
    v.reply_sent()
    assert v.reply_edit.toPlainText() == "" and v.reply_error.isHidden()
    # a plain Return is a new line, not a send
    qtbot.keyClicks(v.reply_edit, "one")
    with qtbot.assertNotEmitted(v.reply_requested):
        qtbot.keyClick(v.reply_edit, Qt.Key.Key_Return)
    assert v.reply_edit.toPlainText() == "one\n"


def test_every_control_has_an_accessible_name(qtbot, docs: Docs) -> None:
    from PySide6.QtWidgets import QAbstractButton, QPlainTextEdit, QTextBrowser

    v = view_for(qtbot, docs.runs["agent"])
    controls = [w for kind in (QAbstractButton, QPlainTextEdit, QTextBrowser)
                for w in v.findChildren(kind)]
    assert controls and all(w.accessibleName() for w in controls), \
        [type(w).__name__ for w in controls if not w.accessibleName()]


def test_the_placeholder_before_a_run_is_chosen(qtbot) -> None:
    v = view_for(qtbot, None)
    assert v.stack.currentIndex() == 0 and v.run_id() is None


# ------------------------------------------------------------------ the inbox

def inbox_for(qtbot: Any, docs: Docs, items: list[Any] | None = None) -> InboxView:
    v = InboxView()
    qtbot.addWidget(v)
    v.resize(480, 360)
    v.show()
    v.set_items(docs.attention if items is None else items, docs.titles)
    return v


def test_the_inbox_lists_what_the_engine_raised(qtbot, docs: Docs) -> None:
    v = inbox_for(qtbot, docs)
    kinds = [(i.kind, i.title, i.read) for i in v.model.items()]
    assert kinds == [("failure", "Nightly backup failed", False),
                     ("awaiting_input", "Branch picker waits for you", False),
                     ("awaiting_input", "Builder waits for you", True)]  # decided: read
    assert v.unread_count() == 2 and v.count_label.text() == "2 unread"
    fonts = [v.model.index(r).data(Qt.ItemDataRole.FontRole).bold() for r in range(3)]
    assert fonts == [True, True, False]
    failure = v.model.item(0)
    meta = v.model.meta(failure)
    assert meta.startswith("Failed · ") and "Nightly backup ·" not in meta  # the title says it
    assert v.model.body(failure) == "exited with status 3: disk full"  # no machine code
    assert v.model.index(0).data(Qt.ItemDataRole.AccessibleTextRole).startswith(
        "Unread. Nightly backup failed. Failed · ")
    assert words.attention_words("awaiting_input") == "Waiting for you"
    assert v.empty_text() == ""


def test_the_inbox_marks_read_through_its_owner(qtbot, docs: Docs, tmp_path: Path) -> None:
    import shutil

    from errands.store import Store

    data = tmp_path / "copy"
    shutil.copytree(docs.data_dir, data)  # this test's own copy of the real store
    assert docs.catalogue is not None
    store = Store(copy_of(docs.catalogue, data))
    try:
        v = inbox_for(qtbot, docs, store.attention())
        v.mark_read_requested.connect(lambda item_id: (store.mark_attention_read(item_id),
                                                       v.set_items(store.attention())))
        v.mark_all_read_requested.connect(lambda: (store.mark_attention_read(None),
                                                   v.set_items(store.attention())))
        assert v.current_item().kind == "failure"
        with qtbot.waitSignal(v.mark_read_requested) as asked:
            v.read_button.click()
        assert asked.args == [v.model.item(0).id]
        assert v.unread_count() == 1 and v.model.item(0).read
        assert v.current_item().kind == "failure"  # the selection stayed on its item
        assert not v.read_button.isEnabled()       # it is read now
        v.select(v.model.item(2).id)
        with qtbot.assertNotEmitted(v.mark_read_requested):
            v.mark_current_read()                  # a read item asks nothing
        with qtbot.waitSignal(v.mark_all_read_requested):
            v.all_button.click()
        assert v.unread_count() == 0 and not v.all_button.isEnabled()
        assert v.count_label.text() == ""
    finally:
        store.close()


def test_activating_an_item_opens_its_run_or_automation(qtbot, docs: Docs) -> None:
    v = inbox_for(qtbot, docs)
    v.list.setFocus()
    v.select(docs.attention[0].id)
    with qtbot.waitSignal(v.run_opened) as opened:
        qtbot.keyClick(v.list, Qt.Key.Key_Return)
    assert opened.args == [docs.runs["failed_command"]["id"]]
    with qtbot.waitSignal(v.run_opened):
        v.open_button.click()
    no_run = replace(docs.attention[0], id=1000, kind="review", run_id=None,
                     title="Review a new automation")
    v.set_items([no_run, *docs.attention])
    v.select(1000)
    with qtbot.waitSignal(v.automation_opened) as opened:
        qtbot.keyClick(v.list, Qt.Key.Key_Return)
    assert opened.args == [docs.attention[0].automation_id]


def test_the_empty_inbox_says_what_would_appear(qtbot, docs: Docs) -> None:
    v = inbox_for(qtbot, docs, [])
    assert v.empty_text() == ("Nothing needs you. Failures, parked runs and results you asked "
                              "to hear about appear here.")
    assert v.stack.currentIndex() == 1 and v.unread_count() == 0
    assert not v.read_button.isEnabled() and not v.all_button.isEnabled()
    assert not v.open_button.isEnabled()
    v.set_items(docs.attention, docs.titles)
    assert v.empty_text() == "" and v.stack.currentIndex() == 0
    for button in (v.open_button, v.read_button, v.all_button):
        assert button.accessibleName()
    assert v.list.accessibleName() == "Inbox items"


def test_a_run_an_event_started_says_so_and_shows_the_event_on_demand(qtbot, docs: Docs) -> None:
    doc = copy.deepcopy(docs.runs["command"])
    doc["trigger"] = {"id": "inbox", "kind": "folder", "cause": "event", "source": "folder"}
    doc["payload"] = {"folder": "/srv/drop", "count": 1,
                      "changes": [{"change": "created", "path": "a.pdf"}]}
    v = view_for(qtbot, doc)
    assert v.event_label.text() == "Started by changed files (trigger “inbox”)"
    assert v.event_text.isHidden() and not v.event_button.isHidden()
    v.event_button.click()
    assert not v.event_text.isHidden() and '"a.pdf"' in v.event_text.toPlainText()
    assert v.event_button.text() == "Hide the event"
    by_hand = view_for(qtbot, docs.runs["command"])
    assert by_hand.event_label.isHidden() and by_hand.event_button.isHidden()


def test_the_inbox_words_the_event_triggers_troubles() -> None:
    assert words.attention_words("trigger_problem") == "A trigger cannot work"
    assert words.attention_words("email_failed") == "Mail not sent"
