"""Event triggers across kill -9 of ``errands serve``: mail is never taken twice nor
skipped, and folder changes made while the engine was dead are found at its next start."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from mail_support import PASSWORD, USER, Dovecot, dovecot  # noqa: F401 (fixture)
from test_serve import ERRANDS, Serve

TESTS = Path(__file__).resolve().parent


def waited(what: str, condition: Callable[[], Any], within: float = 40) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {within:g} s: {what}"
        time.sleep(0.1)


def test_mail_and_folder_changes_survive_kill_9(tmp_path: Path, dovecot: Dovecot) -> None:
    keyring = {"PYTHON_KEYRING_BACKEND": "keyring_backend.FileKeyring",
               "KEYRING_TEST_FILE": str(tmp_path / "keyring.json"),
               "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
               .rstrip(os.pathsep)}
    serve = Serve(tmp_path / "data", **keyring)
    subprocess.run([ERRANDS, "mail", "add", "work", "--address", USER, "--imap-host",
                    "127.0.0.1", "--imap-port", str(dovecot.port), "--imap-security", "none",
                    "--password-stdin", "--data-dir", str(serve.data)], input=PASSWORD + "\n",
                   env=serve.env, check=True, capture_output=True, text=True, timeout=60)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    serve.start()
    try:
        mail = serve.cli("add", "--title", "Mail", "--command", "true", "--on-mail", "work",
                         "--mail-batch", "10s")
        folder = serve.cli("add", "--title", "Folder", "--command", "true",
                           "--on-folder", str(inbox), "--misfire", "run-once")
        # (each trigger holds its starting point before anything arrives)
        time.sleep(1.5)
        dovecot.deliver(subject="first")
        (inbox / "a.txt").write_text("a")
        waited("both fired", lambda: len(serve.runs(mail["id"])) == 1
               and len(serve.runs(folder["id"])) == 1
               and serve.runs(folder["id"])[0]["state"] == "succeeded")
        serve.kill9()
        dovecot.deliver(subject="while dead")
        (inbox / "b.txt").write_text("b")
        serve.start()
        runs = waited("the second mail batch and the missed change",
                      lambda: (serve.runs(mail["id"]), serve.runs(folder["id"]))
                      if len(serve.runs(mail["id"])) == 2
                      and len(serve.runs(folder["id"])) == 2 else None, within=60)
        mails, folders = runs
        subjects = [[m["subject"] for m in r["payload"]["messages"]] for r in mails]
        assert subjects == [["first"], ["while dead"]]   # each once, none lost
        assert folders[1]["payload"]["while_closed"] is True
        assert folders[1]["payload"]["changes"] == [{"change": "created", "path": "b.txt"}]
    finally:
        serve.stop()
