"""Discussions in the window, offscreen over a real engine and a scripted model: "Discuss
this run…" on an agent run's page, the first question starts the discussion, a call it
waits for is approved on the page, the run's page lists its discussions, and the
automation's history is untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync

from app_support import run, shell, until  # noqa: F401 (fixture)
from errands.app.detail.session import SessionView
from openai_server import ScriptedServer, call, say


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def provider(model: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted model as the provider (autouse: set before the shell starts)."""
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")


def test_a_run_is_discussed_from_its_page_and_its_history_stays_as_it_was(
        shell: Any, qloop: qasync.QEventLoop, model: ScriptedServer, tmp_path: Path) -> None:
    api, controller = shell.api, shell.controller
    work = tmp_path / "work"
    work.mkdir()
    made, _ = run(qloop, api.create({"title": "Notes", "runner": {"kind": "agent", "prompt":
                                                                   "Tidy the notes."},
                                     "trigger": {"kind": "manual"}, "workdir": str(work)})).value
    model.play(say("Tidied three notes."))
    first = run(qloop, api.run_now(made.id, wait=True)).value
    controller.select(made.id)
    controller.open_run(first.id)
    page = shell.window.findChild(SessionView)
    run(qloop, until(lambda: page.discuss_button.isVisible(), what="the Discuss button"))
    page.discuss_button.click()
    run(qloop, until(lambda: (page.doc or {}).get("discussion") is not None))
    assert "Discussion" in page.state_label.text()
    assert "About run #1" in page.facts_label.text()
    assert page.reply_edit.isEnabled() and "Ask the agent about run #1" in \
        page.reply_edit.placeholderText()

    model.play(say("I merged two duplicates."))
    page.reply_edit.setPlainText("Which notes did you change?")
    page.send_button.click()
    run(qloop, until(lambda: "I merged two duplicates." in page.transcript_text(),
                     what=lambda: page.transcript_text()))
    assert controller.session_run.startswith("d-")
    assert "Tidied three notes." in page.transcript_text()   # the seed: run #1
    assert page.reply_edit.toPlainText() == ""

    model.play(call("write_file", {"path": "summary.md", "content": "two merged\n"}))
    page.reply_edit.setPlainText("Write that down in your folder.")
    page.send_button.click()
    run(qloop, until(lambda: page.approve_button.isVisible(), what="the Approve button"))
    assert "write files" in page.blocker_detail.text()
    assert not page.send_button.isEnabled()
    model.play(say("Written."))
    page.approve_button.click()
    run(qloop, until(lambda: "Written." in page.transcript_text(),
                     what=lambda: page.transcript_text()))
    sid = controller.session_run
    d = run(qloop, api.discussion(sid)).value
    assert (Path(d["workspace"]) / "summary.md").read_text() == "two merged\n"
    assert not (work / "summary.md").exists()

    controller.open_run(first.id)   # the run's page lists it
    run(qloop, until(lambda: page.discussions_label.isVisible(), what="the discussions"))
    assert "2 turns" in page.discussions_label.text()
    page.discussions_label.linkActivated.emit(sid)
    run(qloop, until(lambda: controller.session_run == sid and "Written." in
                     page.transcript_text()))
    runs, _ = run(qloop, api.runs(made.id)).value
    assert [r.index for r in runs] == [1]
    assert run(qloop, api.automation(made.id)).value.run_count == 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_discussion_page_renders(shell: Any, qloop: qasync.QEventLoop,
                                     model: ScriptedServer, tmp_path: Path, scheme: str,
                                     qapp: Any) -> None:
    from errands.app.theme import Theme
    Theme(qapp, scheme)
    try:
        api, controller = shell.api, shell.controller
        made, _ = run(qloop, api.create({"title": "Deploy check", "runner": {
            "kind": "agent", "prompt": "Check the deploy."}, "trigger": {"kind": "manual"},
            "workdir": str(tmp_path)})).value
        model.play(say("The deploy is green."))
        first = run(qloop, api.run_now(made.id, wait=True)).value
        model.play(say("It checked **three** services."),
                   call("run_command", {"command": "curl -s https://status.example.com"}))
        d = run(qloop, api.discuss(made.id, 1, "What did you check?")).value
        run(qloop, api.discussion_say(d["session_id"], "Check again now."))
        controller.select(made.id)
        controller.open_discussion(d["session_id"])
        page = shell.window.findChild(SessionView)
        run(qloop, until(lambda: page.approve_button.isVisible()))
        for size in ((560, 520), (1100, 800)):
            shell.window.resize(*size)
            qapp.processEvents()
            image = shell.window.grab()
            assert image.save(str(tmp_path / f"discussion-{scheme}-{size[0]}.png"))
        assert first.index == 1
    finally:
        Theme(qapp, "light")
