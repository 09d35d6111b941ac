"""What an MCP client proposed, in the window: paused, saying who proposed it and how its
schedule reads, with an Enable button that lets it fire."""

from __future__ import annotations

from pathlib import Path

import qasync

from app_support import run, shell, until  # noqa: F401 (fixture)
from errands.app.shell import AppShell


def test_a_proposal_shows_who_and_when_and_enable_starts_it(
        shell: AppShell, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    api, controller = shell.api, shell.controller
    assert api is not None and controller is not None
    made, _ = run(qloop, api.create({
        "title": "Deploy check", "runner": {"kind": "command", "command": "true"},
        "trigger": {"kind": "cron", "expression": "0 9 * * *", "timezone": "Europe/Berlin"},
        "paused": True, "origin": {"kind": "mcp", "client": "claude-code"}})).value
    controller.open_automation(made.id)
    pane = controller.detail
    run(qloop, until(lambda: pane.automation is not None and pane.automation.id == made.id))
    assert pane.proposal.isVisibleTo(pane)
    text = pane.proposal_text.text()
    assert "Proposed by claude-code" in text and "Every day at 09:00" in text
    pane.enable_button.click()
    run(qloop, until(lambda: not pane.proposal.isVisibleTo(pane)))
    assert run(qloop, api.automation(made.id)).value.status == "active"
