"""Triggers through the command line, in-process (``errands.cli.main``): several schedules,
folders with globs, a webhook, mail, another automation's end, and the refusals of each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from errands.cli import main
from errands.db.location import database_location


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str], data: Path) -> None:
        self.capsys, self.data = capsys, data

    def __call__(self, *argv: str, expect: int = 0) -> tuple[str, str]:
        self.capsys.readouterr()
        code = main([*argv, "--data-dir", str(self.data)])
        out, err = self.capsys.readouterr()
        assert code == expect, (argv, code, out, err)
        return out, err

    def json(self, *argv: str) -> Any:
        return json.loads(self(*argv, "--json")[0])

    def error(self, *argv: str) -> dict[str, Any]:
        out, err = self(*argv, "--json", expect=2)
        assert out == ""
        return json.loads(err)["error"]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.setenv("TZ", "UTC")
    return Cli(capsys, tmp_path / "data")


def test_schedule_given_twice_and_a_phrase_with_two_times_make_one_automation(cli: Cli) -> None:
    made = cli.json("add", "--title", "Twice", "--command", "true",
                    "--schedule", "cron:15 9 * * *", "--schedule", "every day at 17:30",
                    "--tz", "Europe/Berlin")
    assert [(t["id"], t["expression"]) for t in made["triggers"]] == [
        ("cron", "15 9 * * *"), ("cron-2", "30 17 * * *")]
    assert "webhooks" not in made  # (none of its triggers is one)
    phrased = cli.json("add", "--title", "Phrase", "--command", "true",
                       "--schedule", "every day at 9:15 and 17:30", "--tz", "Europe/Berlin")
    assert [t["expression"] for t in phrased["triggers"]] == ["15 9 * * *", "30 17 * * *"]
    out, _ = cli("list")
    assert "Every day at 09:15 (Europe/Berlin); every day at 17:30 (Europe/Berlin)" in out


def test_event_options_build_their_triggers(cli: Cli, tmp_path: Path) -> None:
    up = cli.json("add", "--title", "Upstream", "--command", "true", "--schedule", "manual")
    from errands.mail.accounts import parse_account
    from errands.store import Store
    from errands.timeutil import utcnow
    store = Store(database_location(cli.data))
    store.save_mail_account(parse_account({"name": "work", "address": "me@example.com",
                                           "imap_host": "imap.example.com"}), utcnow())
    store.close()
    assert cli.error("add", "--title", "X", "--command", "true", "--on-mail", "nosuch")[
        "reason"] == "no_account"
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    made = cli.json("add", "--title", "On everything", "--command", "true",
                    "--on-folder", str(inbox), "--glob", "*.pdf", "--glob", "*.csv",
                    "--on-mail", "work", "--mail-from", "billing@example.com",
                    "--after-automation", up["id"][:8], "--after-states", "succeeded,failed",
                    "--on-webhook")
    kinds = {t["kind"]: t for t in made["triggers"]}
    assert kinds["folder"]["path"] == str(inbox)
    assert kinds["folder"]["include"] == ["*.pdf", "*.csv"]
    assert kinds["mail"]["account"] == "work" and kinds["mail"]["sender"] == "billing@example.com"
    assert kinds["automation"] == {"id": "automation", "kind": "automation",
                                   "automation": up["id"], "states": ["succeeded", "failed"]}
    [hook] = made["webhooks"]
    assert hook["trigger"] == "webhook" and hook["url"].endswith(f"/{made['id']}/webhook")
    assert len(hook["token"]) >= 40
    # edited: the triggers given replace the old ones; a kept webhook prints no new token
    edited = cli.json("edit", made["id"], "--on-webhook", "--schedule", "every:2h")
    assert [t["kind"] for t in edited["triggers"]] == ["every", "webhook"]
    assert edited["webhooks"] == []
    listed = cli.json("webhook", made["id"])
    assert [w["has_token"] for w in listed["webhooks"]] == [True]


def test_runs_json_says_which_trigger_fired_each_run(cli: Cli) -> None:
    made = cli.json("add", "--title", "By hand", "--command", "echo hi", "--schedule", "manual")
    cli("run-now", made["id"], "--wait")
    [run] = cli.json("runs", made["id"])["runs"]
    assert run["trigger"] == {"id": None, "kind": "manual", "cause": "manual"}
    assert run["payload"] is None


@pytest.mark.parametrize("argv, field, words", [
    (["--glob", "*.pdf", "--schedule", "manual"], "--glob", "--on-folder"),
    (["--mail-from", "x@example.com", "--schedule", "manual"], "--mail-from", "--on-mail"),
    (["--after-states", "failed", "--schedule", "manual"], "--after-states",
     "--after-automation"),
    (["--after-automation", "nope"], "--after-automation", "no automation"),
    (["--on-folder", "/tmp", "--after-automation", "{up}", "--after-states", "won"],
     "--after-states", "not a run's end"),
    (["--on-folder", "no-such-folder"], "trigger.path", "not a folder"),
])
def test_bad_trigger_options_are_refused_naming_the_option(cli: Cli, argv: list[str],
                                                           field: str, words: str) -> None:
    up = cli.json("add", "--title", "Up", "--command", "true", "--schedule", "manual")["id"]
    argv = [a.replace("{up}", up) for a in argv]
    error = cli.error("add", "--title", "T", "--command", "true", *argv)
    assert error["field"] == field and words in error["message"]


def test_email_result_and_allowed_recipients_from_the_command_line(cli: Cli) -> None:
    made = cli.json("add", "--title", "Digest", "--prompt", "Summarize", "--schedule", "manual",
                    "--email-result", "--allow-recipient", "team@example.com")
    assert made["policy"]["email_result"] is True
    assert made["permissions"]["email_allowed_recipients"] == ["team@example.com"]
    edited = cli.json("edit", made["id"], "--no-email-result")
    assert edited["policy"]["email_result"] is False
    error = cli.error("add", "--title", "X", "--prompt", "p", "--schedule", "manual",
                      "--allow-recipient", "not-an-address")
    assert error["field"] == "permissions.email_allowed_recipients[0]"


def test_a_folder_phrase_makes_a_folder_trigger_and_its_task(cli: Cli, tmp_path: Path) -> None:
    inbox = tmp_path / "My Inbox"
    inbox.mkdir()
    made = cli.json("add", "--command", "true",
                    "--schedule", f'when a PDF lands in "{inbox}", file the invoices')
    assert made["trigger"] == {"kind": "folder", "path": str(inbox), "recursive": True,
                               "include": ["*.pdf"], "exclude": [],
                               "changes": ["created", "moved"], "debounce": "2s"}
    assert made["title"] == "File the invoices"
    parsed = cli.json("schedule", "parse", f'whenever "{inbox}" changes, back it up')
    assert parsed["trigger"]["kind"] == "folder" and parsed["prompt"] == "back it up"
    error = cli.error("add", "--command", "true", "--schedule",
                      f"when a file is added to {tmp_path}/nowhere, do it")
    assert error["field"] == "trigger.path" and "not a folder" in error["message"]
