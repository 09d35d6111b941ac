"""Approvals in the app over a real engine (on its own thread, as the app runs it) and a
scripted OpenAI-compatible server on 127.0.0.1: an agent run calls a tool or asks, parks,
the approval dialog shows it, a click decides it through the engine, the run goes on.
Also: "Always allow" with a narrowed pattern saves a rule (a new revision) the next run
uses; several parked runs one after another; parked runs from before a restart; the saved
approvals listed in words and revoked as an edit."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from app_support import run, until
from errands.app.adapter import Adapter
from errands.app.approvals import ApprovalFlow
from errands.app.detail.approvals import (SavedApprovalsView, load_rule_origins,
                                          revoke_rule)
from errands.app.dialogs.approval import (ApprovalDialog, home_short, pattern_problem,
                                          rule_sentence)
from errands.engine.api import Api
from errands.engine.service import EngineThread
from errands.errors import Conflict
from errands.records import Decision
from openai_server import ScriptedServer, call, say


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    qapp.setQuitOnLastWindowClosed(False)  # as the app: closing the dialog ends nothing
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)  # as conftest's: Qt may step a task between turns
    try:
        yield loop
    finally:
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


class App:
    """The engine as the app hosts it, an adapter, and the approval flow."""

    def __init__(self, loop: qasync.QEventLoop, data: Path, workdir: Path) -> None:
        self.loop, self.data, self.workdir = loop, data, workdir
        self.host = EngineThread(data, role="app")
        self.api: Api = run(loop, self.host.start())
        self.adapter: Adapter = run(loop, self._adapter())
        self.flow = ApprovalFlow(None, self.adapter)
        self.counts: list[int] = []
        self.flow.count_changed.connect(self.counts.append)

    async def _adapter(self) -> Adapter:
        adapter = Adapter(self.api)
        adapter.attach()
        return adapter

    def close(self) -> None:
        self.flow.close()
        run(self.loop, self.flow.idle())
        run(self.loop, self.adapter.drain())
        run(self.loop, self.host.close())
        self.adapter.detach()
        if self.flow.dialog is not None:
            self.flow.dialog.deleteLater()
        self.flow.deleteLater()
        self.adapter.deleteLater()
        QApplication.processEvents()

    def agent(self, title: str = "builder", **extra: Any) -> str:
        doc = {"title": title, "runner": {"kind": "agent", "prompt": "Do it."},
               "trigger": {"kind": "manual"}, "workdir": str(self.workdir),
               "policy": {"retry": {"max_attempts": 1}}, **extra}
        return str(run(self.loop, self.api.create(doc)).value[0].id)

    def start(self, automation_id: str) -> str:
        return str(run(self.loop, self.api.run_now(automation_id)).value.id)

    def state(self, run_id: str) -> str:
        return str(run(self.loop, self.api.run(run_id)).value["state"])

    def wait_state(self, run_id: str, *states: str) -> dict[str, Any]:
        async def reached() -> dict[str, Any]:
            while True:
                doc = (await self.api.run(run_id)).value
                if doc["state"] in states:
                    return doc
                await asyncio.sleep(0.02)
        return run(self.loop, reached(), timeout=20)

    def wait_parked(self, count: int) -> None:
        async def parked() -> None:
            while len((await self.api.parked()).value) != count:
                await asyncio.sleep(0.02)
        run(self.loop, parked(), timeout=20)

    def open(self, automation_id: str | None = None) -> ApprovalDialog:
        dialog = self.flow.open(automation_id)
        run(self.loop, until(lambda: dialog.isVisible() and dialog.current() is not None,
                             what="the dialog shows a parked run"))
        return dialog

    def settle(self) -> None:
        run(self.loop, self.flow.idle())


@pytest.fixture
def app(qloop: qasync.QEventLoop, tmp_path: Path, model: ScriptedServer,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")
    work = tmp_path / "work"
    work.mkdir()
    a = App(qloop, tmp_path / "data", work)
    try:
        yield a
    finally:
        a.close()


def tool_results(model: ScriptedServer, index: int = -1) -> list[str]:
    return [m["content"] for m in model.requests[index]["messages"] if m["role"] == "tool"]


# ------------------------------------------------------------------ approve once

def test_approve_once_resumes_the_run_and_the_badge_drops(app: App,
                                                          model: ScriptedServer) -> None:
    a = app.agent("Site builder")
    long_command = "echo built > out.txt && " + " && ".join(
        f"echo step-{n} >> log.txt" for n in range(40))
    model.play(call("run_command", {"command": long_command}), say("Built."))
    run_id = app.start(a)
    app.wait_state(run_id, "awaiting_input")
    dialog = app.open()
    parked, automation = dialog.current()  # type: ignore[misc]
    assert parked.run_id == run_id and automation is not None
    assert dialog.title.text() == "Site builder"
    assert dialog.run_label.text().startswith("Run #1 · asked ")
    assert "run commands" in dialog.why.text()
    assert dialog.subject_box.toPlainText() == long_command      # in full, not cut
    assert dialog.subject_caption.text() == "Command:"
    assert not dialog.args_box.isVisible()                        # nothing else to show
    assert dialog.where.text() == f"Where: {home_short(app.workdir)}"
    assert not dialog.position.isVisible()                        # one only: no "1 of 1"
    # no default button: Enter approves nothing
    assert not any(b.isDefault() or b.autoDefault() for b in (
        dialog.once_button, dialog.always_button, dialog.deny_button, dialog.later_button))
    assert app.flow.count == 1

    dialog.once_button.click()
    done = app.wait_state(run_id, "succeeded", "failed")
    assert done["state"] == "succeeded" and done["result"] == "Built."
    assert (app.workdir / "out.txt").read_text() == "built\n"
    run(app.loop, until(lambda: not dialog.isVisible(), what="the dialog closes"))
    run(app.loop, until(lambda: app.counts and app.counts[-1] == 0, what="badge at 0"))
    assert run(app.loop, app.api.automation(a)).value.revision == 1  # once saves nothing


# ------------------------------------------------------------------ always, narrowed

def test_always_with_a_narrowed_pattern_saves_a_rule_the_next_run_uses(
        app: App, model: ScriptedServer) -> None:
    a = app.agent()
    model.play(call("run_command", {"command": "echo one"}), say("one"))
    first = app.start(a)
    app.wait_state(first, "awaiting_input")
    dialog = app.open()
    assert not dialog.rule_frame.isVisible()
    dialog.always_button.click()
    assert dialog.rule_frame.isVisible()
    assert dialog.rule_edit.text() == "echo one"                 # exactly this call
    assert dialog.save_rule.isEnabled() and dialog.rule_check.text().startswith("✓")
    assert dialog.rule_words.text() == rule_sentence("run_command", "echo one",
                                                     str(app.workdir))
    dialog.rule_edit.setText("git *")                            # would not allow this call
    assert not dialog.save_rule.isEnabled()
    assert "does not match this call" in dialog.rule_check.text()
    dialog.rule_edit.setText("echo *")
    assert dialog.save_rule.isEnabled()
    assert "May run `echo *` in " in dialog.rule_words.text()
    dialog.save_rule.click()
    assert app.wait_state(first, "succeeded", "failed")["state"] == "succeeded"
    saved = run(app.loop, app.api.automation(a)).value
    assert saved.revision == 2
    assert [(r.tool, r.pattern, r.action) for r in saved.definition.permissions.rules] == [
        ("run_command", "echo *", "allow")]
    revisions, _audit = run(app.loop, app.api.history(a)).value
    assert revisions[-1].changed == ["permissions.rules"]

    model.play(call("run_command", {"command": "echo two"}), say("two"))
    second = app.start(a)
    done = app.wait_state(second, "succeeded", "failed", "awaiting_input")
    assert done["state"] == "succeeded" and done["result"] == "two"  # did not park
    assert "two" in tool_results(model)[-1]


@pytest.mark.catalogue_free
def test_a_pattern_must_match_the_call_it_is_made_from(tmp_path: Path) -> None:
    assert pattern_problem("run_command", {"command": "git pull"}, None, "git pull") is None
    assert pattern_problem("run_command", {"command": "git pull"}, None, "git *") is None
    assert pattern_problem("run_command", {"command": "git pull"}, None, "*") is None
    assert pattern_problem("run_command", {"command": "git pull"}, None, "make *")
    assert pattern_problem("run_command", {"command": "git pull"}, None, "")
    # an allow rule never covers a command with an expansion, as the engine judges
    assert pattern_problem("run_command", {"command": "echo $(id)"}, None, "echo *")
    # a path is judged as the workdir-relative file, as the engine does
    (tmp_path / "notes").mkdir()
    args = {"path": str(tmp_path / "notes" / "a.md"), "content": "x"}
    assert pattern_problem("write_file", args, str(tmp_path), "notes/*") is None
    assert pattern_problem("write_file", args, str(tmp_path), "secrets/*")
    assert rule_sentence("run_command", "git pull", str(Path.home() / "projects" / "site")
                         ) == "May run `git pull` in ~/projects/site without asking"
    assert rule_sentence("fetch_url", "https://example.org/*", None) == \
        "May fetch `https://example.org/*` without asking"


# ------------------------------------------------------------------ deny, answer

def test_deny_with_a_note_tells_the_run_which_goes_on(app: App,
                                                      model: ScriptedServer) -> None:
    a = app.agent()
    model.play(call("run_command", {"command": "rm -rf build"}), say("Left it alone."))
    run_id = app.start(a)
    app.wait_state(run_id, "awaiting_input")
    dialog = app.open()
    dialog.note_edit.setText("not today")
    dialog.deny_button.click()
    done = app.wait_state(run_id, "succeeded", "failed")
    assert done["state"] == "succeeded" and done["result"] == "Left it alone."
    assert tool_results(model)[-1] == "Denied by the user. Their note: not today"
    run(app.loop, until(lambda: not dialog.isVisible()))


def test_a_question_is_answered_by_its_choice_or_in_words(app: App,
                                                          model: ScriptedServer) -> None:
    a = app.agent("Deployer")
    model.play(call("ask_user", {"question": "Which branch?", "choices": ["main", "dev"]}),
               say("Using dev."))
    run_id = app.start(a)
    app.wait_state(run_id, "awaiting_input")
    dialog = app.open()
    assert dialog.pages.currentIndex() == 1
    assert dialog.question.text() == "Which branch?"
    assert [b.text() for b in dialog.choice_buttons] == ["main", "dev"]
    assert not dialog.answer_row.isVisible()
    assert not dialog.once_button.isVisible() and dialog.deny_button.text() == "&Decline"
    dialog.choice_buttons[1].click()
    done = app.wait_state(run_id, "succeeded", "failed")
    assert done["result"] == "Using dev."
    assert tool_results(model)[-1] == "The user answered: dev"

    model.play(call("ask_user", {"question": "What tag?"}), say("Tagged."))
    second = app.start(a)
    app.wait_state(second, "awaiting_input")
    dialog = app.open()
    assert dialog.answer_row.isVisible() and not dialog.choices_box.isVisible()
    dialog.answer_button.click()                                   # empty: refused here
    assert dialog.error.isVisible() and dialog.current() is not None
    dialog.answer_edit.setText("v1.2")
    dialog.answer_edit.returnPressed.emit()
    assert app.wait_state(second, "succeeded", "failed")["result"] == "Tagged."
    assert tool_results(model)[-1] == "The user answered: v1.2"


# ------------------------------------------------------------------ several

def test_several_parked_runs_are_reviewed_one_after_another(app: App,
                                                            model: ScriptedServer) -> None:
    first, second, third = (app.agent(t) for t in ("First", "Second", "Third"))
    model.play(call("run_command", {"command": "echo 1"}))
    r1 = app.start(first)
    app.wait_state(r1, "awaiting_input")
    model.play(call("ask_user", {"question": "Go on?", "choices": ["yes", "no"]}))
    r2 = app.start(second)
    app.wait_state(r2, "awaiting_input")
    dialog = app.open()
    assert dialog.position.text() == "1 of 2" and dialog.title.text() == "First"

    # a run that parks while the dialog is open joins the end of the queue
    model.play(call("run_command", {"command": "echo 3"}))
    r3 = app.start(third)
    app.wait_state(r3, "awaiting_input")
    run(app.loop, until(lambda: dialog.position.text() == "1 of 3", what="the third joins"))

    model.play(say("did 1"))
    dialog.once_button.click()
    run(app.loop, until(lambda: dialog.current_run_id() == r2, what="the second is shown"))
    assert dialog.position.text() == "2 of 3" and dialog.question.text() == "Go on?"
    assert app.wait_state(r1, "succeeded")["result"] == "did 1"

    # decided elsewhere (the CLI, say): it leaves the queue without a click here
    model.play(say("did 3"))
    run(app.loop, app.api.decide(r3, Decision("deny")))
    run(app.loop, until(lambda: dialog.position.text() == "2 of 2", what="the third leaves"))
    assert [p.run_id for p, _ in dialog.pending()] == [r2]
    assert app.wait_state(r3, "succeeded")["result"] == "did 3"

    dialog.later_button.click()                                   # put off: it keeps waiting
    run(app.loop, until(lambda: not dialog.isVisible()))
    assert app.state(r2) == "awaiting_input"
    app.settle()
    run(app.loop, until(lambda: app.flow.count == 1, what="one still waits"))
    dialog = app.open()                                           # asked again: it is back
    assert dialog.current_run_id() == r2
    model.play(say("went on"))
    dialog.choice_buttons[0].click()
    assert app.wait_state(r2, "succeeded")["result"] == "went on"
    run(app.loop, until(lambda: app.counts[-1] == 0))


def test_a_refused_decision_is_shown_and_the_item_stays(app: App,
                                                        model: ScriptedServer) -> None:
    a = app.agent()
    model.play(call("run_command", {"command": "echo x"}))
    run_id = app.start(a)
    app.wait_state(run_id, "awaiting_input")
    dialog = app.open()
    # the engine refuses an answer to a permission ask, whatever sends it
    run(app.loop, app.flow.apply(run_id, Decision("answer", text="yes")))
    assert dialog.error.isVisible() and "asks for an approval" in dialog.error.text()
    assert dialog.current_run_id() == run_id and dialog.once_button.isEnabled()
    model.play(say("ok"))
    dialog.once_button.click()
    assert app.wait_state(run_id, "succeeded")["result"] == "ok"


# ------------------------------------------------------------------ restart

def test_parked_runs_from_before_a_restart_appear_the_same_way(
        qloop: qasync.QEventLoop, tmp_path: Path, model: ScriptedServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")
    work = tmp_path / "work"
    work.mkdir()
    before = App(qloop, tmp_path / "data", work)
    a = before.agent("Survivor")
    model.play(call("run_command", {"command": "echo kept > kept.txt"}), say("Kept."))
    run_id = before.start(a)
    before.wait_state(run_id, "awaiting_input")
    before.close()

    after = App(qloop, tmp_path / "data", work)
    try:
        dialog = after.open()
        assert dialog.current_run_id() == run_id and dialog.title.text() == "Survivor"
        assert dialog.subject_box.toPlainText() == "echo kept > kept.txt"
        dialog.once_button.click()
        assert after.wait_state(run_id, "succeeded", "failed")["result"] == "Kept."
        assert (work / "kept.txt").read_text() == "kept\n"
    finally:
        after.close()


# ------------------------------------------------------------------ saved approvals

def test_saved_approvals_read_in_words_and_revoke_makes_a_new_revision(
        app: App, model: ScriptedServer, qtbot: Any) -> None:
    a = app.agent()
    model.play(call("run_command", {"command": "git status"}), say("clean"))
    run_id = app.start(a)
    app.wait_state(run_id, "awaiting_input")
    dialog = app.open()
    dialog.always_button.click()
    dialog.save_rule.click()                                       # the exact call
    app.wait_state(run_id, "succeeded")
    automation = run(app.loop, app.api.automation(a)).value
    assert automation.revision == 2

    view = SavedApprovalsView()
    qtbot.addWidget(view)
    origins = run(app.loop, load_rule_origins(app.api, automation))
    view.set_automation(automation, origins)
    assert view.sentences() == [rule_sentence("run_command", "git status", str(app.workdir))]
    assert view.sentences()[0].startswith("May run `git status` in ")
    origin = origins[0]
    assert origin.revision == 2 and origin.run_id == run_id and origin.run_index == 1
    assert "for run #1" in view.rows[0][1].text()
    asked: list[tuple[str, int]] = []
    view.revoke_requested.connect(lambda i, n: asked.append((i, n)))
    view.rows[0][2].click()
    assert asked == [(a, 0)]

    with pytest.raises(Conflict):                                  # changed meanwhile
        run(app.loop, revoke_rule(app.api, a, 0, expected_revision=1))
    revised = run(app.loop, revoke_rule(app.api, a, 0, expected_revision=2))
    assert revised.revision == 3 and revised.definition.permissions.rules == ()
    view.set_automation(revised)
    assert view.sentences() == [] and not view.empty.isHidden()
    revisions, _ = run(app.loop, app.api.history(a)).value
    assert [r.revision for r in revisions] == [1, 2, 3]

    model.play(call("run_command", {"command": "git status"}))    # asks again
    again = app.start(a)
    assert app.wait_state(again, "awaiting_input", "succeeded")["state"] == "awaiting_input"


# ------------------------------------------------------------------ an MCP server's tool

def test_an_mcp_servers_tool_is_shown_in_words_and_always_allowed_by_server_and_tool(
        app: App, model: ScriptedServer, tmp_path: Path) -> None:
    import sys
    server = {"name": "desk", "command": [sys.executable, str(Path(__file__).with_name(
        "mcp_tool_server.py"))], "env": {"MCP_TEST_LOG": str(tmp_path / "log.txt")}}
    a = app.agent("Desk", runner={"kind": "agent", "prompt": "Do it.", "mcp_servers": [server]})
    model.play(call("mcp__desk__add", {"a": 20, "b": 22}), say("42"))
    first = app.start(a)
    app.wait_state(first, "awaiting_input")
    dialog = app.open()
    assert "use add of the MCP server desk" in dialog.why.text()
    assert dialog.where.text().startswith("Where: the MCP server “desk”")
    assert dialog.tool_label.text() == "Tool: mcp__desk__add"
    dialog.always_button.click()
    assert dialog.rule_edit.text() == "desk.add"
    assert dialog.save_rule.isEnabled(), dialog.rule_check.text()
    dialog.rule_edit.setText("other.*")
    assert not dialog.save_rule.isEnabled()
    dialog.rule_edit.setText("desk.*")
    dialog.save_rule.click()
    assert app.wait_state(first, "succeeded", "failed")["state"] == "succeeded"
    assert tool_results(model)[-1] == "20 + 22 = 42"
    saved = run(app.loop, app.api.automation(a)).value
    assert [(r.tool, r.pattern) for r in saved.definition.permissions.rules] == [
        ("mcp", "desk.*")]
