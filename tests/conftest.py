"""Shared fixtures. Tests never touch the user's real data folder or environment."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Qt never opens a real window in tests (no display here, and none wanted elsewhere): set
# before pytest-qt creates the QApplication, and inherited by the app processes tests start.
os.environ["QT_QPA_PLATFORM"] = "offscreen"
# The window speaks the system's language when it has words for it: tests expect English
# (tests/test_i18n.py asks for German and Chinese by name), whatever the machine's locale.
os.environ["LC_ALL"] = "C.UTF-8"
os.environ.pop("LANGUAGE", None)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for key in list(os.environ):
        if key.startswith("ERRANDS_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("ERRANDS_DATA_DIR", str(tmp_path / "default-data"))
    # nor the user's log folder (errands serve logs there; platformdirs follows
    # XDG_STATE_HOME) or autostart folder, also in the processes a test starts
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    yield


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    """A test that installed another language's words leaves English behind."""
    yield
    if "errands.app.i18n" in __import__("sys").modules:
        from errands.app import i18n
        i18n.uninstall()


@pytest.fixture(autouse=True)
def _no_real_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nor the OS keyring: each test gets an empty in-memory one, and processes it starts
    find none unless the test names a backend (``PYTHON_KEYRING_BACKEND``)."""
    import keyring
    from keyring_backend import MemoryKeyring

    keyring.set_keyring(MemoryKeyring())
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture(autouse=True)
def _no_unexpected_warnings(request: pytest.FixtureRequest,
                            caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """A test fails if Errands logged a warning or error it did not declare with
    ``@pytest.mark.logs("substring", ...)``: a silent failure is still a failure."""
    yield
    marker = request.node.get_closest_marker("logs")
    allowed = marker.args if marker else ()
    records = caplog.get_records("setup") + caplog.get_records("call") + caplog.records
    unexpected = [r for r in records
                  if r.levelno >= logging.WARNING and r.name.startswith("errands")
                  and not any(text in r.getMessage() for text in allowed)]
    if unexpected:
        lines = "\n".join(f"{r.levelname} {r.name}: {r.getMessage()}" for r in unexpected)
        pytest.fail(f"unexpected log records:\n{lines}", pytrace=False)


@pytest.fixture
def qloop(qapp: Any) -> Iterator[Any]:
    """A qasync loop over pytest-qt's QApplication, set as the thread's event loop: Qt may
    step a task between ``run_until_complete`` calls, and what it awaits must find this
    loop then too (as in the app, where the loop never stops)."""
    import asyncio

    import qasync

    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        asyncio.set_event_loop(None)
        loop.close()
