"""Errands' rotating log, the redaction of secrets, and the per-run output logs: a real
``errands serve`` with an API key set runs an agent run (against the scripted provider)
and a command run, then every log file is scanned for the key."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from errands import logs
from errands.logs import Redactor, redact, remember_secret, setup_logging, teardown_logging
from openai_server import ScriptedServer, call, say
from test_serve import Serve

KEY = "sk-test-0123456789abcdefSECRET"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("ERRANDS_LOG_DIR", str(tmp_path / "logs"))
    teardown_logging()
    path = setup_logging("test")
    assert path is not None
    yield path
    teardown_logging()


@pytest.mark.catalogue_free
def test_the_log_goes_to_the_log_dir_private_and_rotating(installed: Path,
                                                          tmp_path: Path) -> None:
    assert installed == tmp_path / "logs" / "errands.log"
    handler = logs._installed
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert (handler.maxBytes, handler.backupCount) == (1024 * 1024, 5)
    logging.getLogger("errands.test").info("hello %s", "there")
    handler.flush()
    assert "errands.test: hello there" in installed.read_text()
    assert "errands test started" in installed.read_text()
    if os.name == "posix":
        assert stat.S_IMODE(installed.stat().st_mode) == 0o600
        assert stat.S_IMODE(installed.parent.stat().st_mode) == 0o700
    handler.maxBytes = 2000   # rotate now: the next files are private too
    for i in range(40):
        logging.getLogger("errands.test").info("line %d %s", i, "x" * 80)
    rotated = installed.with_name("errands.log.1")
    assert rotated.exists()
    if os.name == "posix":
        assert stat.S_IMODE(installed.stat().st_mode) == 0o600
    assert setup_logging("again") == installed  # once per process


@pytest.mark.catalogue_free
def test_secrets_and_bearer_tokens_are_redacted(installed: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    remember_secret("keyring-value-123456")
    monkeypatch.setenv("ERRANDS_API_KEY", KEY)
    assert redact(f"key {KEY} and keyring-value-123456") == "key *** and ***"
    assert redact("Authorization: Bearer abc.def-ghi") == "Authorization: Bearer ***"
    assert redact("{'authorization': 'Bearer zzz'}") == "{'authorization': 'Bearer ***'}"
    assert redact('"api_key": "plain-secret"') == '"api_key": "***"'
    assert redact("short ab") == "short ab"
    log = logging.getLogger("errands.test")
    log.info("sending %s with headers %r", KEY, {"Authorization": f"Bearer {KEY}"})
    try:
        raise RuntimeError(f"provider said no to {KEY}")
    except RuntimeError:
        log.info("failed", exc_info=True)
    assert logs._installed is not None
    logs._installed.flush()
    text = installed.read_text()
    assert KEY not in text and "keyring-value-123456" not in text
    assert "Bearer ***" in text and "provider said no to ***" in text


@pytest.mark.catalogue_free
def test_a_record_with_a_bad_format_is_still_logged_redacted() -> None:
    record = logging.LogRecord("errands.x", logging.INFO, __file__, 1, "%d " + KEY, ("x",),
                               None)
    remember_secret(KEY)
    assert Redactor().filter(record) and KEY not in record.getMessage()


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


def test_no_log_file_holds_the_key_after_agent_and_command_runs(
        tmp_path: Path, model: ScriptedServer) -> None:
    log_dir = tmp_path / "logs"
    serve = Serve(tmp_path / "data", ERRANDS_PROVIDER_BASE_URL=model.base_url,
                  ERRANDS_PROVIDER_MODEL="scripted-model", ERRANDS_API_KEY=KEY,
                  ERRANDS_LOG_DIR=str(log_dir))
    work = tmp_path / "work"
    work.mkdir()
    serve.start()
    try:
        agent = serve.cli("add", "--title", "agent", "--prompt", "Look around.", "--schedule",
                          "manual", "--workdir", str(work), "--permissions", "allow-all",
                          "--max-attempts", "1")["id"]
        command = serve.cli("add", "--title", "command", "--command",
                            'echo "key=[$ERRANDS_API_KEY]"; echo done', "--schedule",
                            "manual", "--max-attempts", "1")["id"]
        model.play(call("run_command", {"command": 'echo "agent sees [$ERRANDS_API_KEY]"'}),
                   say("Looked."))
        ran = serve.cli("run-now", agent, "--wait")
        assert ran["state"] == "succeeded", ran
        done = serve.cli("run-now", command, "--wait")
        assert done["state"] == "succeeded" and done["log"]
        assert "key=[]" in Path(done["log"]).read_text()   # the command never had the key
        runs = serve.cli("runs", command)["runs"]
        assert runs[0]["log"] == done["log"]
        assert serve.cli("runs", agent)["runs"][0]["log"] is None
        # the provider did get the key: it is in use, only never written down
        assert any({k.lower(): v for k, v in h.items()}.get("authorization") == f"Bearer {KEY}"
               for h in model.headers)
        tool_result = str(model.requests[-1]["messages"])
        assert "agent sees []" in tool_result and KEY not in tool_result
    finally:
        out = serve.stop()
    assert KEY not in out
    files = [p for p in [*log_dir.rglob("*"), *(tmp_path / "data").rglob("*")] if p.is_file()]
    assert log_dir / "errands.log" in files
    assert any(p.suffix == ".log" and "runs" in p.parts for p in files)
    main_log = (log_dir / "errands.log").read_text()
    assert "errands serve started" in main_log
    for path in files:
        if path.suffix == ".log" or path.name.startswith("errands.log"):
            assert KEY.encode() not in path.read_bytes(), path
