"""Shared fixtures. Tests never touch the user's real data folder or environment."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# the two passes over the catalogue (SQLite, then --catalogue=postgresql)
pytest_plugins = ["catalogue_pass"]

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
    # webhook triggers listen on a port of their own in every test (the default, 47291,
    # would be taken by another test running beside it; test_webhooks.py sets its own)
    monkeypatch.setenv("ERRANDS_WEBHOOK_PORT", "0")
    # nor the user's log folder (errands serve logs there; platformdirs follows
    # XDG_STATE_HOME) or autostart folder, also in the processes a test starts
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    yield


@pytest.fixture(scope="session", autouse=True)
def _migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A new database starts as a copy of one migrated once per test process (SQLite's
    backup: a few milliseconds) instead of running every migration again (25-40 ms, a
    thousand times a suite). A file that holds anything (an older version, a damaged one)
    is migrated, or refused, as it always is; processes a test starts migrate as usual."""
    import sqlite3

    from errands.db import database
    from errands.store import Store

    from catalogue_pass import uncounted

    template = tmp_path_factory.mktemp("template") / "migrated.sqlite3"
    with uncounted():
        Store(template).close()
    migrate = database.Database._migrate

    def from_template(self: Any) -> None:
        if database.inspect_file(self.path, self.busy_ms) is not None:
            return migrate(self)  # (not a new file: its own migrations)
        source = sqlite3.connect(template)
        try:
            with self.write_engine.connect() as conn:
                source.backup(conn.connection.dbapi_connection)  # type: ignore[arg-type]
        finally:
            source.close()

    database.Database._migrate = from_template  # type: ignore[method-assign]
    try:
        yield
    finally:
        database.Database._migrate = migrate  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _qt_objects_end_with_their_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used Qt, what it left is collected and deleted now, while its
    objects still make sense together, not at a garbage collection in some later test
    (where a widget's C++ half, gone mid-event, crashed pytest-qt's event processing)."""
    yield
    if not {"qtbot", "qapp", "qloop"} & set(request.fixturenames):
        return
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is None:
        return
    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


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


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A PostgreSQL server of this test worker's own (``pg_support``), started the first
    time a test asks for it."""
    from pg_support import PostgresServer

    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_catalogue(postgres: Any) -> Iterator[Any]:
    """A fresh, migrated PostgreSQL catalogue (``ServerDatabase``), dropped afterwards."""
    location = postgres.fresh()
    try:
        yield location
    finally:
        postgres.drop(location)


@pytest.fixture(params=["sqlite", "postgresql"])
def catalogue_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Each store test twice: on the data folder's SQLite file, and on a PostgreSQL
    catalogue (the same models and migrations; the suite proves both)."""
    if request.param == "sqlite":
        yield tmp_path / "errands.sqlite3"
        return
    yield request.getfixturevalue("pg_catalogue")
