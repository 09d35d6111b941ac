"""The Settings dialog over a real engine (the app's own engine thread): changed settings
saved through the api, a refusal shown beside its field while the rest is saved, the API
key kept in the (test) keyring and nowhere in the data folder, the provider Test against a
scripted server and a closed port without blocking the loop, and the rules editor."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest
import qasync
from app_support import run, until
from errands.agent.permissions import RULE_TOOLS
from errands.agent.secrets import SERVICE
from errands.app.dialogs.settings import API_KEY, ENGINE_KEYS, SettingsDialog
from errands.app.dialogs.settings_flow import SettingsFlow, open_settings
from errands.app.notifications import RecordingBackend
from errands.app.shell import AppShell
from errands.settings import SPECS
from openai_server import ScriptedServer, call
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QLabel, QLineEdit,
                               QScrollArea)

KEY = "sk-test-DoNotLeak-7f3a9c21e8"


@pytest.fixture
def shell(qloop: qasync.QEventLoop, tmp_path: Path) -> Iterator[AppShell]:
    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    run(qloop, app.start())
    try:
        yield app
    finally:
        run(qloop, app.close())
        app.window.deleteLater()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


def open_flow(shell: AppShell, qloop: qasync.QEventLoop) -> SettingsFlow:
    assert shell.api is not None
    flow = run(qloop, open_settings(shell.window, shell.api, shell.adapter, shell.data_dir,
                                    "system"))
    assert flow.dialog.isVisible()
    return flow


def close(flow: SettingsFlow, qloop: qasync.QEventLoop) -> None:
    if flow.dialog.isVisible():
        flow.dialog.reject()
    run(qloop, flow.wait())


async def save(dialog: SettingsDialog) -> None:
    dialog.save_button.click()
    await until(lambda: dialog.save_button.isEnabled(), what="the save to end")


def stored(shell: AppShell, qloop: qasync.QEventLoop) -> dict[str, str]:
    assert shell.api is not None
    return run(qloop, shell.api.settings()).value


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------ saving

def test_the_dialog_shows_the_stored_settings_and_saves_only_what_changed(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    assert shell.api is not None
    before = stored(shell, qloop)
    assert before == {k: s.default for k, s in SPECS.items()}
    flow = open_flow(shell, qloop)
    d = flow.dialog
    assert d.fields["concurrency"].text() == "4" and d.fields["grace"].text() == "2m"
    sent: list[dict[str, str]] = []
    d.save_requested.connect(sent.append)
    heard: list[bool] = []
    assert shell.adapter is not None
    shell.adapter.settings_changed.connect(lambda: heard.append(True))

    d.fields["concurrency"].setText("7")
    d.fields["parked_expiry"].setText("48h")
    d.fields["provider_base_url"].setText("http://127.0.0.1:11434/v1/")
    d.fields["provider_model"].setText("llama3.2")
    d.rules.add_rule("write", "", "deny", select=False)
    run(qloop, save(d))

    assert set(sent[0]) == {"concurrency", "parked_expiry", "provider_base_url",
                            "provider_model", "permission_rules"}
    assert not d.isVisible() and d.result() == QDialog.DialogCode.Accepted
    after = stored(shell, qloop)
    assert after["concurrency"] == "7"
    assert after["parked_expiry"] == "2d"                       # the engine's canonical text
    assert after["provider_base_url"] == "http://127.0.0.1:11434/v1"
    assert after["permission_rules"] == '[{"tool": "write", "pattern": "*", "action": "deny"}]'
    assert {k: v for k, v in after.items() if k not in sent[0]} == \
        {k: v for k, v in before.items() if k not in sent[0]}
    assert shell.api.engine.settings.concurrency == 7          # applied at once
    run(qloop, until(lambda: heard, what="the settings notice"))
    close(flow, qloop)

    again = open_flow(shell, qloop)  # what was saved is what the next dialog shows
    assert again.dialog.fields["parked_expiry"].text() == "2d"
    assert again.dialog.rules.rules() == [{"tool": "write", "pattern": "*", "action": "deny"}]
    sent.clear()
    again.dialog.save_requested.connect(sent.append)
    run(qloop, save(again.dialog))  # nothing changed: nothing sent, the dialog closes
    assert sent == [] and not again.dialog.isVisible()
    close(again, qloop)


def test_a_refused_value_shows_beside_its_field_and_the_rest_is_still_saved(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    flow = open_flow(shell, qloop)
    d = flow.dialog
    sent: list[dict[str, str]] = []
    d.save_requested.connect(sent.append)
    d.fields["concurrency"].setText("0")
    d.fields["min_interval"].setText("abc")
    d.fields["grace"].setText("5m")
    d.fields["provider_model"].setText("qwen2.5")
    run(qloop, save(d))

    assert d.isVisible(), "a refusal keeps the dialog open"
    assert d.error_text("concurrency")
    assert "1 to 1000" in d.error_text("concurrency")
    assert not d.error_text("concurrency").startswith("concurrency:")
    assert d.error_text("min_interval") and "abc" in d.error_text("min_interval")
    assert not d.error_text("grace") and not d.error_text("provider_model")
    assert d.tabs.tabText(d.tabs.currentIndex()) == "Limits"  # where the first error is
    assert d.fields["concurrency"].accessibleDescription() == d.error_text("concurrency")
    assert d.fields["concurrency"].text() == "0"                 # what was typed is kept
    after = stored(shell, qloop)
    assert after["grace"] == "5m" and after["provider_model"] == "qwen2.5"
    assert after["concurrency"] == "4" and after["min_interval"] == "60s"

    d.fields["concurrency"].setText("5")
    assert not d.error_text("concurrency"), "a changed value loses the old error"
    assert d.error_text("min_interval"), "the others keep theirs"

    d.fields["min_interval"].setText("2m")
    run(qloop, save(d))
    assert sent[1] == {"concurrency": "5", "min_interval": "2m"}  # the saved ones not again
    assert not d.isVisible()
    after = stored(shell, qloop)
    assert after["concurrency"] == "5" and after["min_interval"] == "2m"
    close(flow, qloop)


RETENTION = ("run_history_limit", "output_log_limit", "unattended_expiry")


def test_history_output_and_unattended_limits_are_saved_like_the_others(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    """The three newer settings: typed, saved through the api, stored in the engine's
    canonical text, and shown again by the next dialog."""
    flow = open_flow(shell, qloop)
    d = flow.dialog
    assert [d.fields[k].text() for k in RETENTION] == ["1000", "50MB", "7d"]
    sent: list[dict[str, str]] = []
    d.save_requested.connect(sent.append)
    tabs = [d.tabs.tabText(i) for i in range(d.tabs.count())]
    assert tabs == ["General", "Model provider", "Permissions", "Tool servers", "Limits",
                    "History", "Catalogue"]
    d.tabs.setCurrentIndex(tabs.index("History"))      # where a person finds the two
    assert d.tabs.currentWidget().isAncestorOf(d.fields["run_history_limit"])
    assert d.tabs.currentWidget().isAncestorOf(d.fields["output_log_limit"])
    d.tabs.setCurrentIndex(tabs.index("Limits"))       # next to parked_expiry
    assert d.tabs.currentWidget().isAncestorOf(d.fields["unattended_expiry"])
    d.fields["run_history_limit"].setText("250")
    d.fields["output_log_limit"].setText("2gb")
    d.fields["unattended_expiry"].setText(" 72h ")
    run(qloop, save(d))

    assert sent == [{"run_history_limit": "250", "output_log_limit": "2gb",
                     "unattended_expiry": "72h"}]
    assert not d.isVisible() and d.result() == QDialog.DialogCode.Accepted
    after = stored(shell, qloop)
    assert after["run_history_limit"] == "250"
    assert after["output_log_limit"] == "2GB"          # the engine's canonical texts
    assert after["unattended_expiry"] == "3d"
    assert shell.api is not None
    assert shell.api.engine.settings.get("run_history_limit") == 250   # in force at once
    close(flow, qloop)

    again = open_flow(shell, qloop)
    assert [again.dialog.fields[k].text() for k in RETENTION] == ["250", "2GB", "3d"]
    close(again, qloop)


@pytest.mark.parametrize(("key", "bad", "words"), [
    ("run_history_limit", "0", "1 to 1000000"),
    ("run_history_limit", "lots", 'e.g. "500"'),
    ("output_log_limit", "5 parsecs", "50MB"),
    ("output_log_limit", "2TB", "1KB to 1TB"),
    ("unattended_expiry", "soon", "soon"),
])
def test_a_refused_retention_value_shows_beside_its_field_and_stores_nothing(
        shell: AppShell, qloop: qasync.QEventLoop, key: str, bad: str, words: str) -> None:
    before = stored(shell, qloop)
    flow = open_flow(shell, qloop)
    d = flow.dialog
    d.fields[key].setText(bad)
    run(qloop, save(d))

    assert d.isVisible(), "a refusal keeps the dialog open"
    error = d.error_text(key)
    assert error and words in error, error
    assert not error.startswith(key), "the place says which field; the text need not"
    assert d.errors[key].parent() is d.fields[key].parent()   # beside its field
    assert d.fields[key].accessibleDescription() == error
    assert d.fields[key].text() == bad                        # what was typed is kept
    assert d.tabs.currentWidget().isAncestorOf(d.fields[key])   # its tab is shown
    assert [k for k in RETENTION if d.error_text(k)] == [key]
    assert stored(shell, qloop) == before
    d.fields[key].setText(SPECS[key].default)
    assert not d.error_text(key), "a changed value loses the old error"
    close(flow, qloop)


@pytest.mark.catalogue_free
def test_the_retention_fields_speak_the_chosen_language(qtbot, qapp: QApplication) -> None:  # type: ignore[no-untyped-def]
    from errands.app import i18n

    i18n.install(qapp, "de")
    try:
        d = dialog(qtbot)
        labels = {label.text() for label in d.findChildren(QLabel)}
        assert {"Behaltene Läufe:", "Behaltene Ausgabe:",
                "Pausieren, wenn so lange unbeantwortet:"} <= labels
        assert any(text.startswith("Wie viele beendete Läufe") for text in labels)
        assert [d.tabs.tabText(i) for i in range(d.tabs.count())][-2:] == ["Verlauf", "Katalog"]
        assert d.fields["run_history_limit"].accessibleName() == "Behaltene Läufe"
    finally:
        i18n.uninstall(qapp)
    e = dialog(qtbot)
    assert e.fields["run_history_limit"].accessibleName() == "Runs kept"
    assert e.fields["output_log_limit"].accessibleName() == "Output kept"
    assert e.fields["unattended_expiry"].accessibleName() == "Pause if unanswered for"
    hints = {label.text() for label in e.findChildren(QLabel)}
    assert any("ended runs each automation keeps" in h for h in hints)
    assert any("run output each automation keeps on disk" in h for h in hints)
    assert any("before the automation is paused" in h for h in hints)


# --------------------------------------------------------------------------- key

def _files_holding(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_the_api_key_goes_to_the_keyring_and_nowhere_in_the_data_folder(
        shell: AppShell, qloop: qasync.QEventLoop, caplog: pytest.LogCaptureFixture) -> None:
    account = str(shell.data_dir.resolve())
    flow = open_flow(shell, qloop)
    d = flow.dialog
    assert d.key_field.echoMode() == QLineEdit.EchoMode.Password
    assert not d.key_remove_button.isEnabled() and "No key" in d.key_status.text()

    d.key_field.setText(KEY)
    d.key_save_button.click()
    run(qloop, until(lambda: d.key_stored, what="the key to be stored"))
    assert keyring.get_password(SERVICE, account) == KEY
    assert d.key_field.text() == "" and d.key_remove_button.isEnabled()
    assert d.key_status.text() == "A key is stored in the system keyring."
    d.fields["provider_model"].setText("llama3.2")   # and a save that writes the database
    run(qloop, save(d))
    close(flow, qloop)

    again = open_flow(shell, qloop)
    assert again.dialog.key_stored and again.dialog.key_field.text() == ""
    assert "stored in the system keyring" in again.dialog.key_status.text()
    assert KEY not in again.dialog.key_field.placeholderText()

    again.dialog.key_field.setText("two words")      # refused, and not echoed
    again.dialog.key_save_button.click()
    run(qloop, until(lambda: again.dialog.error_text(API_KEY), what="the key's refusal"))
    error = again.dialog.error_text(API_KEY)
    assert "spaces" in error and "two words" not in error
    assert keyring.get_password(SERVICE, account) == KEY

    again.dialog.key_remove_button.click()
    run(qloop, until(lambda: not again.dialog.key_stored, what="the key to go"))
    assert keyring.get_password(SERVICE, account) is None
    assert not again.dialog.key_remove_button.isEnabled()
    close(again, qloop)

    run(qloop, shell.close())  # everything flushed: the database, its WAL, app.ini
    assert _files_holding(shell.data_dir, KEY) == []
    assert KEY not in caplog.text


def test_a_key_typed_before_save_is_stored_with_the_settings(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    flow = open_flow(shell, qloop)
    d = flow.dialog
    d.key_field.setText(KEY)
    d.fields["provider_base_url"].setText("http://127.0.0.1:8080/v1")
    run(qloop, save(d))
    assert not d.isVisible()
    assert keyring.get_password(SERVICE, str(shell.data_dir.resolve())) == KEY
    assert stored(shell, qloop)["provider_base_url"] == "http://127.0.0.1:8080/v1"
    close(flow, qloop)


def test_without_a_keyring_the_key_field_says_so_and_the_rest_still_works(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # headless Linux (conftest resets)
    flow = open_flow(shell, qloop)
    d = flow.dialog
    assert not d.key_stored and not d.error_text(API_KEY)  # no keyring reads as no key
    d.key_field.setText(KEY)
    d.fields["concurrency"].setText("3")
    run(qloop, save(d))
    assert "no keyring" in d.error_text(API_KEY) and "ERRANDS_API_KEY" in d.error_text(API_KEY)
    assert KEY not in d.error_text(API_KEY)
    assert d.isVisible() and d.tabs.tabText(d.tabs.currentIndex()) == "Model provider"
    assert stored(shell, qloop)["concurrency"] == "3"
    close(flow, qloop)


# -------------------------------------------------------------------------- test

def test_the_test_button_checks_the_provider_without_blocking_the_loop(
        shell: AppShell, qloop: qasync.QEventLoop, server: ScriptedServer) -> None:
    def slow_ping(_body: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.6)  # a slow model: the UI loop must go on meanwhile
        return call("ping")

    keyring.set_password(SERVICE, str(shell.data_dir.resolve()), KEY)
    flow = open_flow(shell, qloop)
    d = flow.dialog
    d.fields["provider_base_url"].setText(server.base_url)
    d.fields["provider_model"].setText("scripted-model")
    server.play(slow_ping)

    async def scenario() -> None:
        ticks = 0

        async def heartbeat() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.02)
                ticks += 1

        beat = asyncio.ensure_future(heartbeat())
        d.test_button.click()
        assert not d.test_button.isEnabled() and "Testing" in d.test_result.text()
        await until(d.test_button.isEnabled, what="the test to end")
        beat.cancel()
        assert ticks >= 10, f"the loop ticked only {ticks} times during the test"

    run(qloop, scenario())
    assert d.test_result.text().startswith("It works")
    headers = {k.lower(): v for k, v in server.headers[-1].items()}
    assert headers["authorization"] == f"Bearer {KEY}"       # the stored key was used
    assert stored(shell, qloop)["provider_base_url"] == ""   # a test saves nothing

    d.fields["provider_base_url"].setText(f"http://127.0.0.1:{_closed_port()}/v1")
    d.test_button.click()
    run(qloop, until(d.test_button.isEnabled, what="the second test"))
    assert d.test_result.text().startswith("Unreachable: ")
    assert "cannot reach" in d.test_result.text()

    d.fields["provider_base_url"].setText("ftp://example.org")
    d.test_button.click()
    run(qloop, until(d.test_button.isEnabled))
    assert d.test_result.text().startswith("Cannot test:")
    d.fields["provider_model"].setText("")
    d.test_button.click()
    run(qloop, until(d.test_button.isEnabled))
    assert d.test_result.text() == "Give a base URL and a model first."
    close(flow, qloop)


# ------------------------------------------------------------------ rules editor

def dialog(qtbot, **kw: Any) -> SettingsDialog:  # type: ignore[no-untyped-def]
    values = {k: s.default for k, s in SPECS.items()}
    values.update(kw.pop("values", {}))
    d = SettingsDialog(None, values=values, key_stored=kw.pop("key_stored", False),
                       theme=kw.pop("theme", "system"), **kw)
    qtbot.addWidget(d)
    d.show()
    return d


@pytest.mark.catalogue_free
def test_rules_editor_adds_removes_and_validates(qtbot) -> None:  # type: ignore[no-untyped-def]
    d = dialog(qtbot, values={"permission_rules": '[{"tool": "run_command", "pattern": '
                                                  '"git *", "action": "allow"}]'})
    r = d.rules
    assert r.rules() == [{"tool": "run_command", "pattern": "git *", "action": "allow"}]
    tools = r.table.cellWidget(0, 0)
    assert isinstance(tools, QComboBox)
    assert [tools.itemText(i) for i in range(tools.count())] == list(RULE_TOOLS)
    assert tools.accessibleName() == "Tool of rule 1"
    sent: list[dict[str, str]] = []
    d.save_requested.connect(sent.append)

    row = r.add_rule("fetch_url", "https://*", "deny", select=False)
    r.table.item(row, 1).setText("x" * 1001)
    d.fields["grace"].setText("3m")
    d.save_button.click()
    assert d.error_text("permission_rules") and d.error_text("permission_rules").startswith("Rule 2: ")
    assert "1001 characters" in d.error_text("permission_rules")
    assert r.table.selectionModel().isRowSelected(1)
    assert d.tabs.tabText(d.tabs.currentIndex()) == "Permissions"
    assert sent == [{"grace": "3m"}]     # the valid changes still go; the rules do not
    d.saved()
    assert d.isVisible(), "the rules' error keeps the dialog open"

    r.table.item(row, 1).setText("line\nbreak")
    assert d.error_text("permission_rules") and "Rule 2" in d.error_text("permission_rules")
    r.table.item(row, 1).setText("https://*.example.org/*")
    assert not d.error_text("permission_rules"), "a fixed rule clears the error at once"

    r.table.selectRow(0)
    assert r.remove_button.isEnabled()
    r.remove_button.click()
    assert r.rules() == [{"tool": "fetch_url", "pattern": "https://*.example.org/*",
                          "action": "deny"}]
    d.save_button.click()
    assert sent[-1] == {"permission_rules": r.text()}
    d.show_field_error("permission_rules[0].action", "permission_rules[0].action: no")
    assert d.error_text("permission_rules") == "Rule 1: no"       # the engine's refusal, beside the table
    d.saved()
    assert d.isVisible()


@pytest.mark.catalogue_free
def test_the_app_choices_are_signals_and_escape_cancels(qtbot) -> None:  # type: ignore[no-untyped-def]
    d = dialog(qtbot, theme="dark")
    assert d.theme.currentData() == "dark" and d.language.currentData() == ""
    assert [d.language.itemText(i) for i in range(d.language.count())] == [
        "System default", "English", "Deutsch", "简体中文"]
    assert d.autostart.isEnabled() and not d.autostart.isChecked()
    got: list[tuple[str, object]] = []
    d.theme_chosen.connect(lambda v: got.append(("theme", v)))
    d.language_chosen.connect(lambda v: got.append(("language", v)))
    d.autostart_changed.connect(lambda v: got.append(("autostart", v)))
    d.save_requested.connect(lambda v: got.append(("save", v)))
    d.autostart.setChecked(True)
    d.theme.setCurrentIndex(d.theme.findData("light"))
    d.language.setCurrentIndex(d.language.findData("en"))
    assert got == [], "nothing is applied before Save"
    d.save_button.click()
    assert got == [("theme", "light"), ("language", "en"), ("autostart", True)]
    assert not d.isVisible() and d.result() == QDialog.DialogCode.Accepted

    e = dialog(qtbot)
    e.fields["concurrency"].setText("9")
    sent: list[object] = []
    e.save_requested.connect(sent.append)
    qtbot.keyClick(e, Qt.Key.Key_Escape)
    assert not e.isVisible() and e.result() == QDialog.DialogCode.Rejected and sent == []


@pytest.mark.catalogue_free
def test_every_control_has_an_accessible_name(qtbot) -> None:  # type: ignore[no-untyped-def]
    d = dialog(qtbot, key_stored=True)
    for key in ENGINE_KEYS:
        if key in d.fields:
            assert d.fields[key].accessibleName(), key
    for widget in (d.key_field, d.key_save_button, d.key_remove_button, d.test_button,
                   d.autostart, d.theme, d.language, d.rules.table, d.rules.add_button,
                   d.rules.remove_button, d.servers.table, d.servers.add_button,
                   d.servers.remove_button, d.servers.secret_button, d.save_button,
                   d.cancel_button):
        assert widget.accessibleName(), widget.objectName()
    assert d.key_status.text() == "A key is stored in the system keyring."
    assert d.key_field.text() == ""


@pytest.mark.catalogue_free
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_dialog_renders_small_and_large(qtbot, qapp: QApplication, scheme: str,  # type: ignore[no-untyped-def]
                                            tmp_path: Path) -> None:
    from errands.app.theme import Theme

    Theme(qapp, scheme)  # type: ignore[arg-type]
    try:
        d = dialog(qtbot, theme=scheme)
        d.show_field_error("concurrency", "not a whole number from 1 to 1000: '0'")
        d.show_field_error("unattended_expiry", "not a duration: 'soon'")
        d.show_field_error("run_history_limit", "not a whole number from 1 to 1000000: '0'")
        d.show_field_error("output_log_limit", "not a size: '5 parsecs'; expected a size "
                           "from 1KB to 1TB, such as 50MB")
        for width, height in ((d.minimumWidth(), d.minimumHeight()), (1000, 800)):
            d.resize(width, height)
            for index in range(d.tabs.count()):
                d.tabs.setCurrentIndex(index)
                qapp.processEvents()
                image = d.grab()
                assert image.width() >= d.minimumWidth()
                assert image.save(str(tmp_path / f"{scheme}-{width}-{index}.png"))
                page = d.tabs.currentWidget()
                if isinstance(page, QScrollArea):  # nothing cut off, nothing to scroll
                    inner, room = page.widget(), page.viewport().size()
                    assert inner.minimumSizeHint().width() <= room.width(), (index, width)
                    assert inner.heightForWidth(room.width()) <= room.height() + 1, \
                        f"tab {index} needs scrolling at {width}x{height}"
                else:
                    assert page.minimumSizeHint().height() <= page.height(), (index, width)
    finally:
        Theme(qapp, "light")


# ------------------------------------------------------------------ tool servers

def test_mcp_servers_are_added_checked_beside_the_table_and_their_secret_kept_in_the_keyring(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    from errands.tool_servers import SECRET_SERVICE, get_secret

    flow = open_flow(shell, qloop)
    d = flow.dialog
    d.tabs.setCurrentIndex(3)
    assert d.tabs.currentWidget().isAncestorOf(d.servers)
    editor = d.servers
    row = editor.add_server(select=False)
    editor.table.item(row, 0).setText("notes")
    editor.table.item(row, 1).setText("npx -y @modelcontextprotocol/server-filesystem '/home/me/my notes'")
    row = editor.add_server(select=False)
    editor.table.item(row, 0).setText("Deploy")                  # not a server name
    editor.table.item(row, 1).setText("http://deploy.example.com/mcp")
    run(qloop, save(d))
    assert d.isVisible() and "Server 2:" in d.error_text("mcp_servers")
    assert "server name" in d.error_text("mcp_servers")
    assert stored(shell, qloop)["mcp_servers"] == "[]"           # nothing half-saved
    editor.table.item(row, 0).setText("deploy")
    editor.table.item(row, 1).setText("https://deploy.example.com/mcp")
    editor.table.item(row, 2).setText("Authorization")
    editor.table.selectRow(row)
    assert editor.secret_button.isEnabled()
    run(qloop, flow.store_server_secret("deploy", "https://deploy.example.com/mcp",
                                        "Bearer s3cret-DoNotLeak"))
    assert get_secret(shell.data_dir, "deploy", "https://deploy.example.com/mcp") == \
        "Bearer s3cret-DoNotLeak"
    assert get_secret(shell.data_dir, "deploy", "https://elsewhere.example/mcp") is None
    assert "kept in the system keyring" in editor.status.text()
    run(qloop, save(d))
    assert not d.isVisible()
    kept = json.loads(stored(shell, qloop)["mcp_servers"])
    assert kept == [{"name": "notes", "command": ["npx", "-y",
                                                  "@modelcontextprotocol/server-filesystem",
                                                  "/home/me/my notes"]},
                    {"name": "deploy", "url": "https://deploy.example.com/mcp",
                     "header": "Authorization"}]
    close(flow, qloop)
    again = open_flow(shell, qloop)
    assert [s["name"] for s in again.dialog.servers.servers()] == ["notes", "deploy"]
    close(again, qloop)
    run(qloop, shell.close())
    assert _files_holding(shell.data_dir, "s3cret-DoNotLeak") == []
    assert keyring.get_password(
        SECRET_SERVICE, f"{shell.data_dir.resolve()}#deploy#https://deploy.example.com/mcp")


# --------------------------------------------------------------------- catalogue

@pytest.mark.sqlite_only("starts on this computer's catalogue to choose a shared one")
def test_the_catalogue_tab_checks_the_url_beside_it_and_keeps_the_password_in_the_keyring(
        shell: AppShell, qloop: qasync.QEventLoop, caplog: pytest.LogCaptureFixture) -> None:
    """A shared catalogue chosen in Settings: a URL with a password (or of another kind) is
    refused beside the field and nothing is saved; a good one is kept in the data folder
    for the next start; its password goes to the keyring, never to a file."""
    from errands.db.location import KEYRING_SERVICE, database_location

    flow = open_flow(shell, qloop)
    d = flow.dialog
    d.tabs.setCurrentIndex(0)
    tab = d.catalogue
    assert tab.in_use.text() == f"This computer: {shell.data_dir / 'errands.sqlite3'}"
    assert tab.url.text() == "" and not tab.password_button.isEnabled()

    tab.url.setText("postgresql://me:hunter2secret@homeserver/errands")
    d.save_button.click()
    assert d.isVisible() and d.tabs.currentIndex() == d._catalogue_tab
    assert tab.error.isVisible() and tab.error.text() == (
        "The URL holds a password: leave it out, and save the password below (it is kept "
        "in the keyring).")
    assert tab.url.accessibleDescription() == tab.error.text()
    assert not (shell.data_dir / "database.url").exists()
    tab.url.setText("mysql://me@homeserver/errands")   # typing clears the refusal
    assert not tab.error.isVisible()
    d.save_button.click()
    assert "PostgreSQL only" in tab.error.text()

    tab.url.setText("postgresql://me@homeserver/errands")
    tab.password.setText("hunter2secret")
    assert tab.password_button.isEnabled()
    tab.password_button.click()
    run(qloop, until(lambda: tab.status.text() == "A password is kept in the keyring.",
                     what="the password stored"))
    assert keyring.get_password(KEYRING_SERVICE, "me@homeserver:5432/errands") == "hunter2secret"
    assert tab.password.text() == ""
    run(qloop, save(d))
    kept = shell.data_dir / "database.url"
    run(qloop, until(lambda: "Errands uses this catalogue from its next start." in
                     tab.status.text(), what="the URL kept"))
    assert kept.read_text() == "postgresql://me@homeserver:5432/errands\n"
    assert (shell.data_dir / "database.url").stat().st_mode & 0o777 == 0o600
    assert str(database_location(shell.data_dir)) == "postgresql://me@homeserver:5432/errands"
    close(flow, qloop)

    again = open_flow(shell, qloop)   # still this computer's file until the next start
    assert again.dialog.catalogue.url.text() == "postgresql://me@homeserver:5432/errands"
    assert again.dialog.catalogue.in_use.text() == \
        "Shared: postgresql://me@homeserver:5432/errands"
    again.dialog.catalogue.url.setText("")          # back to this computer
    run(qloop, save(again.dialog))
    run(qloop, until(lambda: not (shell.data_dir / "database.url").exists(),
                     what="the URL removed"))
    close(again, qloop)
    run(qloop, shell.close())
    assert _files_holding(shell.data_dir, "hunter2secret") == []
    assert "hunter2secret" not in caplog.text
