"""The app shell, offscreen, over a real engine and store: the window, the tray's state,
notifications, quitting, and (in real processes) single instance and the refusal of
``errands serve`` while the app runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QWidget

from app_support import command_doc, run, until
from errands.app import theme
from errands.app.adapter import Adapter
from errands.app.notifications import (FallbackBackend, Message, Notifier, RecordingBackend,
                                       compose)
from errands.app.shell import TOLD_ABOUT_TRAY, AppShell
from errands.catalog import Catalog
from errands.engine.control import request
from errands.engine.lock import read_owner
from errands.db.location import database_location
from errands.errors import StoreError
from errands.records import AttentionItem
from errands.store import Store
from errands.timeutil import utcnow
from pg_support import catalogue_sql, on_postgresql
from test_serve import ERRANDS, _env


@pytest.fixture
def notes() -> RecordingBackend:
    return RecordingBackend()


@pytest.fixture
def shell(qloop: qasync.QEventLoop, tmp_path: Path, notes: RecordingBackend
          ) -> Iterator[AppShell]:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=notes)
    run(qloop, app.start())
    try:
        yield app
    finally:
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()


# ----------------------------------------------------------------- in-process shell

def test_the_app_starts_its_engine_shows_the_window_and_owns_the_folder(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    w = shell.window
    assert w.isVisible() and w.windowTitle() == "Errands"
    assert w.engine_label.text() == "Engine running"
    assert not w.windowIcon().isNull() and not QApplication.windowIcon().isNull()
    owner = read_owner(shell.data_dir)
    assert owner is not None and owner.role == "engine" and owner.hosted_by == "app"
    ping = run(qloop, request(owner.address, "ping", {}, data_dir=shell.data_dir))
    assert ping["role"] == "app" and ping["pid"] == os.getpid()
    assert shell.tray.state == "idle" and shell.tray.tooltip() == "Errands · idle"


def test_the_tray_shows_runs_going_and_what_needs_the_user(
        shell: AppShell, qloop: qasync.QEventLoop, notes: RecordingBackend) -> None:
    api = shell.api
    assert api is not None
    seen: list[str] = []
    assert shell.adapter is not None
    shell.adapter.engine_state.connect(seen.append)

    async def scenario() -> None:
        slow = (await api.create(command_doc("Slow check", "sleep 0.6; exit 3"))).value[0]
        told = (await api.create(command_doc("Build", "echo 'errands: notify it is built'"))
                ).value[0]
        await until(lambda: shell._recent_dirty is True)
        await shell.refresh_recent()
        assert sorted(a.text() for a in shell.tray.run_menu.actions()) == ["Build", "Slow check"]
        shell.tray.run_now_requested.emit(slow.id)  # as the tray's Run now ▸ does
        await until(lambda: shell.tray.state == "running", what="the running mark")
        assert shell.window.running_label.text() == "1 running"
        assert "1 running" in shell.tray.tooltip()
        await until(lambda: shell.tray.state == "attention", what="the attention badge")
        assert shell.tray.attention == 1 and shell.window.running_label.text() == ""
        await until(lambda: notes.shown, what="a notification")
        assert notes.shown[0].title == "Slow check failed"
        await api.run_now(told.id)
        await until(lambda: len(notes.shown) == 2, what="the agent-style notify")
        assert notes.shown[1].body == "it is built"
        assert shell.tray.attention == 1  # a note is news, not a problem
        await api.mark_read()
        await until(lambda: shell.tray.state == "idle", what="the badge to clear")

    run(qloop, scenario())


def test_pause_all_and_resume_all_from_the_tray(shell: AppShell,
                                                qloop: qasync.QEventLoop) -> None:
    api = shell.api
    assert api is not None

    async def scenario() -> None:
        for n in range(3):
            await api.create(command_doc(f"Job {n}", "true", {"kind": "every", "every": "1h"}))
        await until(lambda: shell.tray.pause_action.isEnabled())
        shell.tray.pause_action.trigger()
        await until(lambda: shell.tray.state == "paused", what="everything paused")
        assert not shell.tray.pause_action.isEnabled() and shell.tray.resume_action.isEnabled()
        rows = (await api.summaries()).value[0]
        assert {r.status for r in rows} == {"paused"}
        shell.tray.resume_action.trigger()
        await until(lambda: shell.tray.state == "idle", what="everything resumed")
        rows = (await api.summaries()).value[0]
        assert {r.status for r in rows} == {"active"}

    run(qloop, scenario())


def test_closing_the_window_keeps_errands_in_the_tray_and_says_so_once(
        shell: AppShell, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[Message] = []
    monkeypatch.setattr(shell.tray, "show_message", told.append)
    for _ in range(2):
        shell.window.close()
        assert not shell.window.isVisible()
        assert shell.api is not None and not shell._quit.is_set()  # still running
        shell.activate()
        assert shell.window.isVisible()
    assert [m.title for m in told] == ["Errands is still running"]
    assert QSettings(str(shell.data_dir / "app.ini"), QSettings.Format.IniFormat).value(
        TOLD_ABOUT_TRAY, False, type=bool)


def test_without_a_tray_the_window_works_and_says_so(qloop: qasync.QEventLoop,
                                                      tmp_path: Path) -> None:
    app = AppShell(tmp_path / "data", tray_available=False, notifications=RecordingBackend())
    run(qloop, app.start())
    try:
        assert app.tray.icon is None and not app.window.keep_running_in_tray
        assert app.window.tray_label.isVisibleTo(app.window)
        assert "No system tray" in app.window.tray_label.text()
        app._show_balloon(Message("Deploy failed", "exit status 1", ()))
        assert "Deploy failed" in app.window.statusBar().currentMessage()
    finally:
        run(qloop, app.close())


def test_quit_stops_the_engine_cleanly_and_lets_go_of_the_folder(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    states: list[str] = []

    async def scenario() -> int:
        running = asyncio.ensure_future(app.run())
        await until(lambda: app.adapter is not None and app.window.engine_label.text()
                    == "Engine running")
        assert app.adapter is not None
        app.adapter.engine_state.connect(states.append)
        app.window.quit_action.trigger()
        return await running

    assert run(qloop, scenario()) == 0
    assert read_owner(tmp_path / "data") is None
    assert app.host.api is None and not app.host._thread.is_alive()
    assert not app.window.isVisible()
    assert "stopped" in states  # the engine's last notice reached the window
    assert app.window.engine_label.text() == "Engine stopped"


@pytest.mark.logs("is broken and will not run")
def test_the_list_shows_what_is_stored_while_the_engine_is_still_starting(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    """The sidebar fills from the database before the engine has loaded every automation;
    a row clicked meanwhile opens as soon as the engine runs, and the engine's own
    snapshot then says what the first look could not (a definition broken elsewhere)."""
    data = tmp_path / "data"
    data.mkdir()
    store = Store(database_location(data))
    catalog = Catalog(store, utcnow)
    backup, _ = catalog.create(command_doc("Backup", "true"))
    broken, _ = catalog.create(command_doc("Report", "true"))
    store.close()
    odd = ("CAST(jsonb_set(CAST(definition AS jsonb), '{overlap}', '\"sometimes\"') AS json)"
           if on_postgresql() else "json_set(definition, '$.overlap', 'sometimes')")
    catalogue_sql(data, f"UPDATE automations SET definition = {odd}, revision = 5 "  # broken
                  "WHERE id = :id", id=broken.id)  # outside runner and trigger
    app = AppShell(data, tray_available=True, notifications=RecordingBackend())
    assert app.controller is not None
    c = app.controller
    gate = qloop.create_future()   # (bound to the loop: Qt may step a task outside it,
    real_start = app.host.start    # where an asyncio.Event would find no running loop)

    async def held() -> Any:
        await gate
        return await real_start()
    app.host.start = held  # type: ignore[method-assign]
    starting = qloop.create_task(app.start())
    try:
        run(qloop, until(lambda: c.sidebar.model.rowCount() == 2, what="the first look"))
        assert app.window.engine_label.text() == "Starting the engine…"
        rows = {s.title: s for s in c.sidebar.model.summaries()}
        # not known to be broken yet (a shared catalogue's first look reads it all)
        assert rows["Report"].status == ("broken" if on_postgresql() else "active")
        assert c.sidebar.select(backup.id)        # the user clicks a row meanwhile
        run(qloop, asyncio.sleep(0.2))
        assert c.detail.automation is None        # waits for the engine, fails nothing
        assert c.detail.placeholder.text() == "Opening as soon as the engine has started…"
        app.window.settings_action.trigger()       # so does Settings
        with pytest.raises(AttributeError, match="before the engine runs"):
            app.adapter.api.stamp                  # nothing answers for it meanwhile
        assert app.adapter.api.data_dir == app.data_dir
        gate.set_result(None)
        run(qloop, starting)
        run(qloop, until(lambda: c.detail.automation is not None, what="detail shows"))
        assert c.detail.title.text() == "Backup"
        run(qloop, until(lambda: {s.title: s.status for s in c.sidebar.model.summaries()}
                         .get("Report") == "broken", what="the engine's snapshot"))
        assert app.window.engine_label.text() == "Engine running"
        run(qloop, until(lambda: getattr(app, "settings_flow", None) is not None
                         and app.settings_flow.dialog.isVisible(), what="Settings"))
    finally:
        if not gate.done():
            gate.set_result(None)
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()


def _stored(data: Path, *titles: str) -> list[str]:
    data.mkdir()
    store = Store(database_location(data))
    made = [Catalog(store, utcnow).create(command_doc(t, "true"))[0].id for t in titles]
    store.close()
    return made


def test_an_engine_that_fails_to_start_refuses_what_waited_for_it(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    """A command asked of the first list (Run now on a row) waits for the engine; when the
    engine cannot start, it is refused and the app can close (nothing waits for ever)."""
    data = tmp_path / "data"
    [backup] = _stored(data, "Backup")
    app = AppShell(data, tray_available=True, notifications=RecordingBackend())
    assert app.controller is not None and app.adapter is not None
    c = app.controller
    failed: list[tuple[str, str]] = []
    app.adapter.failed.connect(lambda what, why: failed.append((what, why)))
    gate = qloop.create_future()   # (bound to the loop: see the test above)

    async def broken() -> Any:
        await gate
        raise StoreError("locked", "the database stayed locked")
    app.host.start = broken  # type: ignore[method-assign]
    starting = qloop.create_task(app.start())
    try:
        run(qloop, until(lambda: c.sidebar.model.rowCount() == 1, what="the first look"))
        c.run_now(backup)
        gate.set_result(None)
        with pytest.raises(StoreError):
            run(qloop, starting)
        run(qloop, until(lambda: failed, what="the command refused"))
        assert "the engine did not start" in failed[0][1]
    finally:
        run(qloop, app.close(), timeout=15)
        app.window.deleteLater()
    assert read_owner(data) is None


def test_a_damaged_database_is_reported_as_such_not_as_a_crash(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    data = tmp_path / "data"
    _stored(data, "Backup")
    # the first look's join fails on the driver's cursor
    catalogue_sql(data, "DROP TABLE runs" + (" CASCADE" if on_postgresql() else ""))
    app = AppShell(data, tray_available=True, notifications=RecordingBackend())
    try:
        with pytest.raises(StoreError) as refused:
            run(qloop, app.start())
        assert ('relation "runs" does not exist' if on_postgresql() else
                "no such table: runs") in str(refused.value)
    finally:
        run(qloop, app.close(), timeout=15)
        app.window.deleteLater()


def test_quitting_before_the_engine_started_lets_go_of_the_folder(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    preview = run(qloop, app.host.open())
    assert run(qloop, preview.summaries()) == []
    preview.close()
    run(qloop, app.close())
    assert read_owner(tmp_path / "data") is None and not app.host._thread.is_alive()
    app.window.deleteLater()


# ------------------------------------------------------------------------ window

def test_the_window_has_the_shortcuts_accessible_names_and_plug_in_points(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    w = shell.window
    shortcuts = {a.shortcut().toString(): a for a in w.findChildren(type(w.new_action))
                 if not a.shortcut().isEmpty()}
    for key in ("Ctrl+N", "Ctrl+F", "Ctrl+R", "Ctrl+E", "Space", "Del", "Ctrl+,", "Esc",
                "Ctrl+Q"):
        assert key in shortcuts, key
    fired: list[str] = []
    for signal_name in ("new_requested", "find_requested", "run_now_requested",
                        "edit_requested", "toggle_pause_requested", "delete_requested",
                        "settings_requested", "escape_pressed"):
        getattr(w, signal_name).connect(lambda n=signal_name: fired.append(n))
    w.set_selection_actions_enabled(True)
    for key in ("Ctrl+N", "Ctrl+F", "Ctrl+R", "Ctrl+E", "Space", "Del", "Ctrl+,", "Esc"):
        shortcuts[key].trigger()
    assert len(fired) == 8
    run(qloop, shell.idle())  # the form and the settings dialog are open now
    assert shell.controller.form is not None and shell.controller.form.isVisible()
    assert shell.settings_flow.dialog.isVisible()
    for widget in w.findChildren(QWidget):
        if widget.isVisibleTo(w) and widget.focusPolicy().value and not widget.accessibleName():
            pytest.fail(f"{widget.objectName() or type(widget).__name__} has no accessible name")
    sidebar, detail = QWidget(), QWidget()
    w.set_sidebar(sidebar)
    w.set_detail(detail)
    assert w.splitter.widget(0) is sidebar and w.splitter.widget(1) is detail
    assert QKeySequence("Ctrl+,") == w.settings_action.shortcut()


def test_geometry_is_remembered(shell: AppShell, qloop: qasync.QEventLoop,
                                tmp_path: Path) -> None:
    shell.window.resize(700, 500)  # (the offscreen screen is 800×600)
    shell.window.save_geometry()
    from errands.app.window import MainWindow
    again = MainWindow(QSettings(str(shell.data_dir / "app.ini"), QSettings.Format.IniFormat))
    try:
        assert (again.width(), again.height()) == (700, 500)
    finally:
        again.deleteLater()


def test_the_theme_follows_the_choice_and_remembers_it(shell: AppShell) -> None:
    shell.set_theme("dark")
    assert theme.is_dark() and shell.window.theme_actions["dark"].isChecked()
    assert shell.settings.value("theme") == "dark"
    shell.set_theme("light")
    assert not theme.is_dark()
    shell.set_theme("system")  # offscreen reports no scheme: light
    assert not theme.is_dark() and theme.state_colors()["error"].isValid()


# ---------------------------------------------------------- adapter and notifier

def test_a_snapshot_overtaken_by_a_newer_request_is_not_applied(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    adapter = shell.adapter
    assert isinstance(adapter, Adapter)

    async def scenario() -> None:
        gate = asyncio.get_running_loop().create_future()

        async def slow() -> Any:
            await gate
            return await adapter.api.summaries()

        first = asyncio.ensure_future(adapter.latest("list", slow))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(adapter.summaries(key="list"))
        assert (await second) is not None
        gate.set_result(None)
        assert (await first) is None

    run(qloop, scenario())


def _item(ident: int, automation: str, title: str) -> AttentionItem:
    return AttentionItem(id=ident, automation_id=automation, run_id=None, kind="failure",
                         title=title, body="exit status 1", read=False, created_at=utcnow())


@pytest.mark.catalogue_free
def test_many_items_at_once_are_one_notification(qloop: qasync.QEventLoop) -> None:
    backend = RecordingBackend()
    notifier = Notifier(backend, window=0.2)
    notifier.baseline([_item(1, "old", "Old failed")])

    async def scenario() -> None:
        notifier.offer([_item(1, "old", "Old failed"), _item(2, "a", "A failed")])
        await until(lambda: len(backend.shown) == 1)
        notifier.offer([_item(i, f"x{i}", f"X{i} failed") for i in range(3, 8)])
        notifier.offer([_item(i, f"x{i}", f"X{i} failed") for i in range(3, 8)])  # again
        await asyncio.sleep(0.1)
        assert len(backend.shown) == 1  # held for the group
        await until(lambda: len(backend.shown) == 2)
        await asyncio.sleep(0.3)
        await notifier.close()

    run(qloop, scenario())
    first, group = backend.shown
    assert first.title == "A failed" and first.body == "exit status 1"
    assert group.title == "5 automations need you" and len(group.items) == 5
    assert group.body.endswith("… and 2 more")
    assert compose([_item(9, "a", "A failed"), _item(10, "a", "A failed")]).title == \
        "A failed: 2 new items"


@pytest.mark.catalogue_free
def test_a_notification_goes_out_when_qt_steps_its_task_outside_the_loops_run(
        qloop: qasync.QEventLoop, qapp: Any) -> None:
    """Qt may step the loop's callbacks where no loop counts as running (a nested event
    loop, a test driving Qt): the notification still goes out (it was lost to "no running
    event loop" once, in a CI run)."""
    backend = RecordingBackend()
    notifier = Notifier(backend, window=0.2)

    qloop.call_soon(notifier.offer, [_item(1, "a", "A failed")])  # for Qt to step
    deadline = time.monotonic() + 10
    while not backend.shown and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.005)
    assert [m.title for m in backend.shown] == ["A failed"]
    run(qloop, notifier.close())


@pytest.mark.catalogue_free
def test_notifications_fall_back_when_the_desktop_has_none() -> None:
    class Broken:
        def show(self, message: Message) -> None:
            raise NotImplementedError("No usable implementation found!")
    balloon = RecordingBackend()
    chain = FallbackBackend(Broken(), balloon)
    chain.show(Message("t", "b", ()))
    chain.show(Message("t2", "b", ()))
    assert [m.title for m in balloon.shown] == ["t", "t2"] and len(chain.backends) == 1


# ------------------------------------------------------------------ real processes

def _launch(data: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([ERRANDS, "--data-dir", str(data)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait_for_app(data: Path, proc: subprocess.Popen[str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        owner = read_owner(data)
        if owner is not None and owner.hosted_by == "app" and owner.address:
            return
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the app exited with {proc.returncode}: {out}{err}")
        time.sleep(0.05)
    pytest.fail("the app did not start")


def test_one_app_per_folder_serve_refused_and_sigterm_quits(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = _env(QT_QPA_PLATFORM="offscreen")
    first = _launch(data, env)
    try:
        _wait_for_app(data, first)
        second = subprocess.run([ERRANDS, "--data-dir", str(data)], env=env,
                                capture_output=True, text=True, timeout=30)
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stdout and "brought forward" in second.stdout
        served = subprocess.run([ERRANDS, "serve", "--data-dir", str(data)], env=env,
                                capture_output=True, text=True, timeout=30)
        assert served.returncode == 4
        assert "the Errands app (pid" in served.stderr and f"pid {first.pid}" in served.stderr
        added = subprocess.run([ERRANDS, "add", "--title", "Hello", "--command", "true",
                                "--schedule", "manual", "--json", "--data-dir", str(data)],
                               env=env, capture_output=True, text=True, timeout=30)
        assert added.returncode == 0, added.stderr  # the CLI talks to the app's engine
        assert json.loads(added.stdout)["title"] == "Hello"
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        out, err = first.communicate(timeout=30)
    assert first.returncode == 0, err
    assert read_owner(data) is None


def test_without_a_display_the_app_says_why_instead_of_aborting(tmp_path: Path) -> None:
    env = {k: v for k, v in _env().items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([ERRANDS, "--data-dir", str(tmp_path / "data")], env=env,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "no display" in out.stderr, out.stderr


def test_a_drafted_agent_prompt_says_it_needs_a_model_and_opens_the_settings(
        shell: AppShell, qloop: qasync.QEventLoop, qtbot: Any) -> None:
    """No model set up: the card of an agent prompt says so with a button to the
    settings; once a model is set up and the user is back, the note is gone. A command
    needs no model and says nothing."""
    from PySide6.QtCore import Qt
    flow = shell.controller.describe()
    d = flow.dialog

    def draft(text: str) -> None:
        d.line_edit.setText(text)
        qtbot.keyClick(d.line_edit, Qt.Key.Key_Return)
        run(qloop, until(lambda: d.draft is not None and d.draft.sentence == text,
                         what="the draft"))
        run(qloop, flow.tasks.idle())

    draft("every 5 minutes run `df -h`")
    assert not d.card.needs_model()
    draft("every day at 9 summarize my inbox")
    assert d.card.needs_model() and d.card.model_button.isVisible()
    assert "Needs a model" in d.card.model_text.text()
    d.card.model_button.click()
    run(qloop, until(lambda: getattr(shell, "settings_flow", None) is not None
                     and shell.settings_flow.dialog.isVisible(), what="Settings"))
    assert d.isVisible()                        # the draft waits behind the settings
    run(qloop, shell.api.set_setting("provider_base_url", "http://127.0.0.1:9/v1"))
    run(qloop, shell.api.set_setting("provider_model", "some-model"))
    shell.settings_flow.dialog.reject()
    d.activateWindow()
    run(qloop, until(lambda: not d.card.needs_model(), what="the note gone"))
    d.reject()
    run(qloop, flow.wait())


def test_a_reminder_in_words_becomes_a_notification_with_no_model(
        shell: AppShell, qloop: qasync.QEventLoop, qtbot: Any,
        notes: RecordingBackend) -> None:
    """"remind me … to call mom" drafts a reminder (no model asked, none needed); Create,
    then its run shows the message as a desktop notification; a dry run shows nothing."""
    from PySide6.QtCore import Qt
    flow = shell.controller.describe()
    d = flow.dialog
    created: list[str] = []
    flow.created.connect(created.append)
    d.line_edit.setText("tomorrow at 7pm remind me to call mom")
    qtbot.keyClick(d.line_edit, Qt.Key.Key_Return)
    run(qloop, until(lambda: d.draft is not None, what="the draft"))
    run(qloop, flow.tasks.idle())
    card = d.card
    assert card.runner.text() == "Reminds you with a notification:"
    assert card.what_text() == "Call mom" and card.title.text() == "Call mom"
    assert not card.needs_model()
    assert "uses no model" in card.fact("permissions")
    card.create_button.click()
    run(qloop, until(lambda: created, what="the reminder created"))
    run(qloop, flow.wait())
    api = shell.api
    rehearsal = run(qloop, api.run_now(created[0], dry_run=True, wait=True)).value
    assert rehearsal.state == "succeeded" and rehearsal.result == "Would show: Call mom"
    run(qloop, asyncio.sleep(0.2))
    assert notes.shown == []
    run(qloop, api.run_now(created[0]))
    run(qloop, until(lambda: notes.shown, what="the reminder shown"))
    assert (notes.shown[0].title, notes.shown[0].body) == ("Call mom", "Call mom")


@pytest.mark.catalogue_free
def test_a_shared_catalogue_out_of_reach_is_said_in_the_status_bar(qtbot: Any) -> None:
    """Short words that fit the smallest window, the whole story in the tooltip (and for a
    screen reader); back to the usual words when it is reachable again."""
    from errands.app.window import MINIMUM_SIZE, MainWindow

    w = MainWindow(None)
    qtbot.addWidget(w)
    w.resize(*MINIMUM_SIZE)
    w.show()
    for state, words, story in (
            ("unreachable", "Catalogue unreachable", "nothing runs until it is back"),
            ("replaced", "Engine stopped: served elsewhere", "took this computer's place")):
        w.show_engine_state(state)
        assert w.engine_label.text() == words and story in w.engine_label.toolTip()
        assert story in w.engine_label.accessibleDescription()
        assert w.engine_label.sizeHint().width() < MINIMUM_SIZE[0] // 2
    w.show_engine_state("running")
    assert w.engine_label.text() == "Engine running" and w.engine_label.toolTip() == ""


def test_the_form_on_a_shared_catalogue_says_which_computer_runs_it(
        qloop: qasync.QEventLoop, tmp_path: Path, pg_catalogue: Any, postgres: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The laptop's window over a catalogue the desk's engine serves too: the new form
    offers any computer, the laptop, and the desk; a command saved for the desk is bound
    to it, and editing it shows the desk again."""
    from errands.db.location import ENV
    from errands.engine.service import EngineHost

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", "desk")
    desk = EngineHost(tmp_path / "desk", listen=False)
    run(qloop, desk.start())
    monkeypatch.setenv("ERRANDS_MACHINE", "laptop")
    app = AppShell(tmp_path / "laptop", tray_available=True, notifications=RecordingBackend())
    try:
        run(qloop, app.start())
        c = app.controller
        assert c is not None
        form = c.open_form(None)
        run(qloop, until(lambda: form.runs_on_row.isVisible(), what="the Runs on row"))
        box = form.runs_on_box
        assert [box.itemText(i) for i in range(box.count())] == [
            "Any computer", "laptop (this computer)", "desk"]
        form.title_edit.setText("Desk backup")
        form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
        form.command_edit.setPlainText("true")
        form.picker.set_mode("manual")
        assert box.currentData() == "laptop"
        box.setCurrentIndex(box.findData("desk"))
        box.activated.emit(box.currentIndex())
        assert form.submit()
        run(qloop, until(lambda: [s.title for s in c.sidebar.model.summaries()] == [
            "Desk backup"], what="the new row"))
        store = Store(pg_catalogue)
        [made] = store.list()
        store.close()
        assert made.definition is not None and made.definition.runs_on == "desk"
        edit = c.open_form(made)
        run(qloop, until(lambda: edit.runs_on_row.isVisible(), what="the Runs on row"))
        assert edit.runs_on_box.currentData() == "desk" and not edit.has_changes()
        edit.done(0)
    finally:
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()
        run(qloop, desk.close())


def test_a_change_on_another_machine_shows_in_this_window_within_a_second(
        qloop: qasync.QEventLoop, tmp_path: Path, pg_catalogue: Any, postgres: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The laptop's window over a shared catalogue: an automation made, then paused, on a
    machine without an engine (a command typed there) shows in the list, then shows
    paused, each within a second (the change notices, through the laptop's engine)."""
    from errands.db.location import ENV

    monkeypatch.setenv(ENV, postgres.url(pg_catalogue.database))
    monkeypatch.setenv("ERRANDS_MACHINE", "laptop")
    app = AppShell(tmp_path / "laptop", tray_available=True, notifications=RecordingBackend())
    run(qloop, app.start())
    c = app.controller
    assert c is not None
    phone = Store(pg_catalogue)
    try:
        made, _ = Catalog(phone, utcnow).create({**command_doc("From the phone", "true"),
                                                "runs_on": "any"})
        began = time.monotonic()
        run(qloop, until(lambda: [s.title for s in c.sidebar.model.summaries()] == [
            "From the phone"], what="the new row", timeout=1.0))
        Catalog(phone, utcnow).set_paused(made.id, True)
        run(qloop, until(lambda: [s.status for s in c.sidebar.model.summaries()] == [
            "paused"], what="the pause", timeout=1.0))
        assert time.monotonic() - began < 2.5
    finally:
        phone.close()
        run(qloop, app.idle())
        run(qloop, app.close())
        app.window.deleteLater()
