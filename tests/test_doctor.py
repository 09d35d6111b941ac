"""``errands doctor``: every check, and each failure path with its advice."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest

from errands import doctor
from errands.cli import main
from errands.db.location import database_location
from errands.doctor import FAIL, OK, WARN, Check, run_checks
from errands.engine.lock import Owner
from errands.engine.service import EngineThread
from errands.store import Store
from openai_server import ScriptedServer, fail, say
from pg_support import location_for, on_postgresql


def _quiet_tray() -> Check:
    return Check("tray", OK, "not asked in tests")


def _by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    from errands.paths import data_dir
    path = data_dir(tmp_path / "data")
    Store(location_for(path))
    return path


def test_a_healthy_folder_has_no_failure_and_exit_0(data: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "check_tray", _quiet_tray)
    checks = _by_name(run_checks(data, tray=_quiet_tray))
    assert checks["versions"].status == OK and "httpx" in checks["versions"].detail
    assert checks["data folder"].status == OK and "mode 700" in checks["data folder"].detail
    assert checks["database"].status == OK and (
        "on PostgreSQL" if on_postgresql() else "integrity check ok") in checks["database"].detail
    assert checks["schema"].status == OK
    assert checks["keyring"].status == OK and "MemoryKeyring" in checks["keyring"].detail
    assert checks["provider"].status == WARN and "provider set" in checks["provider"].advice
    assert checks["engine"].status == OK and "no engine" in checks["engine"].detail
    assert checks["clock"].status in (OK, WARN) and "time zone" in checks["clock"].detail
    capsys.readouterr()
    assert main(["doctor", "--data-dir", str(data), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert all(set(c) == {"name", "status", "detail", "advice"} for c in doc["checks"])
    assert main(["doctor", "--data-dir", str(data)]) == 0
    assert "No check failed." in capsys.readouterr().out


@pytest.mark.catalogue_free
def test_versions_name_the_installed_libraries_and_a_missing_one_fails() -> None:
    import importlib.metadata
    import sys

    check = doctor.check_versions()
    assert check.status == OK
    for name in ("httpx", "SQLAlchemy", "PySide6-Essentials", "keyring", "alembic"):
        assert f"{name} {importlib.metadata.version(name)}" in check.detail
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}." in check.detail

    def without_qasync(name: str) -> str:
        if name == "qasync":
            raise importlib.metadata.PackageNotFoundError(name)
        return "1.0"
    broken = doctor.check_versions(without_qasync)
    assert broken.status == FAIL and "not installed: qasync" in broken.detail and broken.advice


@pytest.mark.catalogue_free
def test_a_folder_that_does_not_exist_yet_is_fine_and_not_created(tmp_path: Path) -> None:
    checks = _by_name(run_checks(tmp_path / "new", tray=_quiet_tray))
    assert checks["data folder"].status == OK and "created" in checks["data folder"].detail
    assert checks["database"].status == OK and not (tmp_path / "new").exists()


def test_an_unwritable_data_folder_fails_with_advice(data: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(doctor, "_writable", lambda path: False)  # (root writes anywhere)
    monkeypatch.setattr(doctor, "check_tray", _quiet_tray)
    check = doctor.check_data_dir(data)
    assert check.status == FAIL and "not writable" in check.detail
    assert "chmod u+rwx" in check.advice
    capsys.readouterr()
    assert main(["doctor", "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert "data folder: fix its permissions" in out and "Some checks failed." in out


def test_a_data_folder_that_is_a_file_or_open_to_others(tmp_path: Path, data: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    check = doctor.check_data_dir(file)
    assert check.status == FAIL and "is not a folder" in check.detail and check.advice
    below = doctor.check_data_dir(file / "inner")
    assert below.status == FAIL and "is a file" in below.detail
    data.chmod(0o755)
    wide = doctor.check_data_dir(data)
    assert wide.status == WARN and "chmod 700" in wide.advice


@pytest.mark.sqlite_only("a SQLite file that is not a database")
def test_a_corrupt_database_fails_with_advice(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    (root / "errands.sqlite3").write_bytes(b"this is not a database at all" * 100)
    checks = _by_name(run_checks(root, tray=_quiet_tray))
    assert checks["database"].status == FAIL and "not an SQLite database" in \
        checks["database"].detail
    assert "move" in checks["database"].advice and "aside" in checks["database"].advice
    assert checks["provider"].status == WARN and "not checked" in checks["provider"].detail


@pytest.mark.sqlite_only("a damaged page of the SQLite file")
def test_a_damaged_database_page_fails_the_integrity_check(data: Path) -> None:
    path = data / "errands.sqlite3"
    store = Store(path)
    store.checkpoint()
    blob = bytearray(path.read_bytes())
    page = 4096
    for offset in range(page * 2 + 100, min(len(blob), page * 6), 7):  # scribble on b-tree pages
        blob[offset] = 0xFF
    path.write_bytes(bytes(blob))
    for side in ("-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    database = doctor.check_database(data)[0]
    assert database.status == FAIL, database
    assert "aside" in database.advice


@pytest.mark.sqlite_only("rewinds the SQLite file's schema version (PostgreSQL's: tests/test_postgres_store.py)")
def test_a_schema_behind_warns_and_a_newer_one_fails(data: Path) -> None:
    path = data / "errands.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE alembic_version SET version_num = '0002'")
    schema = _by_name(doctor.check_database(data))["schema"]
    assert schema.status == WARN and "behind" in schema.detail
    assert "upgraded when" in schema.advice
    with sqlite3.connect(path) as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    schema = _by_name(doctor.check_database(data))["schema"]
    assert schema.status == FAIL and "update Errands" in schema.advice
    with sqlite3.connect(path) as db:  # doctor itself migrated nothing
        assert db.execute("SELECT version_num FROM alembic_version").fetchone() == ("9999",)


class BrokenKeyring(keyring.backends.fail.Keyring):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("the collection is locked")


def test_keyring_missing_warns_and_broken_fails(data: Path) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    missing = doctor.check_keyring(data)
    assert missing.status == WARN and "ERRANDS_API_KEY" in missing.advice
    keyring.set_keyring(BrokenKeyring())
    broken = doctor.check_keyring(data)
    assert broken.status == FAIL and "RuntimeError" in broken.detail
    assert "unlock" in broken.advice


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


def _provider(monkeypatch: pytest.MonkeyPatch, url: str, model: str = "scripted-model") -> None:
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", model)


def test_provider_ok_then_key_rejected(data: Path, model: ScriptedServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from openai_server import call
    _provider(monkeypatch, model.base_url)
    monkeypatch.setenv("ERRANDS_API_KEY", "sk-doctor-test-key")
    model.play(call("ping"))
    good = _by_name(doctor.check_provider(data))
    assert all(c.status == OK for c in good.values()), good
    model.play(fail(401, "Incorrect API key provided"))
    checks = _by_name(doctor.check_provider(data))
    rejected = checks["provider: key accepted"]
    assert rejected.status == FAIL and "--api-key-stdin" in rejected.advice


def test_provider_unreachable_fails_with_advice(data: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _provider(monkeypatch, f"http://127.0.0.1:{port}/v1")
    checks = _by_name(doctor.check_provider(data))
    reach = checks["provider: reachable"]
    assert reach.status == FAIL and "--base-url" in reach.advice
    assert checks["provider: model present"].status == WARN   # skipped


def test_provider_model_missing_fails_and_text_reply_warns(data: Path, model: ScriptedServer,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    _provider(monkeypatch, model.base_url, model="not-there")
    checks = _by_name(doctor.check_provider(data))
    missing = checks["provider: model present"]
    assert missing.status == FAIL and "ollama pull not-there" in missing.advice
    _provider(monkeypatch, model.base_url)
    model.play(say("I would rather talk."))
    tools = _by_name(doctor.check_provider(data))["provider: tool calling"]
    assert tools.status == WARN and "tool calling" in tools.advice


def test_tray_checks_without_qt_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doctor.check_tray().status == WARN  # offscreen, as conftest sets
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if doctor.sys.platform.startswith("linux"):
        headless = doctor.check_tray()
        assert headless.status == WARN and "no display" in headless.detail
    monkeypatch.setenv("DISPLAY", ":99")

    def answer(stdout: str, code: int = 0, stderr: str = "") -> Any:
        return lambda *a, **k: subprocess.CompletedProcess(a, code, stdout, stderr)
    assert doctor.check_tray(answer("tray\n")).status == OK
    none = doctor.check_tray(answer("no tray\n"))
    assert none.status == WARN and "AppIndicator" in none.advice
    broken = doctor.check_tray(answer("", 134, "qt.qpa.plugin: Could not load xcb"))
    assert broken.status == FAIL and "system-libraries" in broken.advice

    def hang(*a: Any, **k: Any) -> Any:
        raise subprocess.TimeoutExpired(a, 1)
    assert doctor.check_tray(hang).status == WARN


def test_clock_reports_the_zone_and_an_unsynchronised_clock(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(doctor.shutil, "which", lambda name: "/usr/bin/" + name)

    def answer(value: str) -> Any:
        return lambda *a, **k: subprocess.CompletedProcess(a, 0, value + "\n", "")
    off = doctor.check_clock(answer("no"))
    assert off.status == WARN and "set-ntp true" in off.advice and "UTC" in off.detail
    assert doctor.check_clock(answer("yes")).status == OK


async def test_engine_running_answers_and_a_silent_one_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    data = tmp_path / "data"
    host = EngineThread(data, role="serve")
    await host.start()
    try:
        check = await asyncio.to_thread(doctor.check_engine, data)
        assert check.status == OK and "answers" in check.detail
    finally:
        await host.close()
    silent = Owner(pid=999_999, role="engine", since="2026-01-01T00:00:00Z", host="here",
                   address=f"unix:{tmp_path / 'nobody.sock'}", hosted_by="serve")
    monkeypatch.setattr("errands.engine.lock.read_owner", lambda root: silent)
    check = await asyncio.to_thread(doctor.check_engine, data)
    assert check.status == FAIL and "does not answer" in check.detail and check.advice


def test_data_size_names_the_database_logs_and_worktrees(
        data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "check_tray", _quiet_tray)
    logs = data / "logs" / "runs" / "a-1"
    logs.mkdir(parents=True)
    (logs / "r-1.log").write_bytes(b"x" * 2000)
    (logs / "r-2.log").write_bytes(b"x" * 1000)
    (data / "worktrees" / "a-1" / "7").mkdir(parents=True)
    (data / "worktrees" / "a-1" / "7" / "file").write_bytes(b"y" * 2048)
    check = doctor.check_data_size(data)
    assert check.status == OK, check
    assert f"in {data}" in check.detail
    assert "run logs 2.9 KB" in check.detail and "worktrees 2.0 KB" in check.detail
    assert "database " in check.detail and "working folders 0 B" in check.detail
    assert doctor.check_data_size(data.parent / "nothing-here").detail == "nothing stored yet"
    Store(database_location(data)).set_setting("output_log_limit", "2KB")
    over = doctor.check_data_size(data)
    assert over.status == WARN and "1 automation(s)" in over.detail and "a-1" in over.detail
    assert "output_log_limit (2KB)" in over.detail and "next run" in over.advice
    (logs / "r-1.log").unlink()
    (logs / "r-2.log").write_bytes(b"x" * 5000)  # the newest log is kept however big
    assert doctor.check_data_size(data).status == OK
    assert main(["doctor", "--data-dir", str(data), "--json"]) in (0, 1)
    names = [c["name"] for c in json.loads(capsys.readouterr().out)["checks"]]
    # (after the catalogue's checks: on a shared one, its engines and clock too)
    last = "catalogue clock" if on_postgresql() else "schema"
    assert names.index("data size") == names.index(last) + 1
