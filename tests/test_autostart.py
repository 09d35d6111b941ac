"""Start at login: the XDG autostart entry (a temporary XDG_CONFIG_HOME, through the CLI),
the macOS LaunchAgent and the Windows Run value (their writers, on what they write), and
``errands --tray`` opening the app without its window."""

from __future__ import annotations

import json
import plistlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands import autostart
from errands.autostart import (LABEL, MARKER, Autostart, _read_exec, _split_windows,
                               desktop_entry, launch_command)
from errands.cli import main
from errands.errors import Conflict


def _cli(capsys: pytest.CaptureFixture[str], *argv: str, expect: int = 0) -> Any:
    capsys.readouterr()
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == expect, (argv, code, out, err)
    return json.loads(out) if out else json.loads(err)


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setattr(autostart, "current_platform", lambda: "linux")
    return home


def test_linux_autostart_on_status_off_through_the_cli(config_home: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    entry = config_home / "autostart" / "errands.desktop"
    assert _cli(capsys, "autostart", "status") == {
        "enabled": False, "platform": "linux", "where": str(entry), "command": None,
        "problem": None}
    data = tmp_path / "my data"
    on = _cli(capsys, "autostart", "on", "--data-dir", str(data))
    assert on["enabled"] and on["where"] == str(entry) and on["problem"] is None
    assert on["command"][-3:] == ["--tray", "--data-dir", str(data.resolve())]
    text = entry.read_text()
    assert text.startswith("[Desktop Entry]\nType=Application\n") and MARKER in text
    assert "Exec=" in text and '"' in text  # the folder with a space is quoted
    assert "Terminal=false" in text and "X-GNOME-Autostart-enabled=true" in text
    assert _cli(capsys, "autostart", "status")["command"] == on["command"]
    assert _cli(capsys, "autostart", "on", "--data-dir", str(data))["enabled"]  # again: same
    off = _cli(capsys, "autostart", "off")
    assert not off["enabled"] and not entry.exists()
    assert entry.parent.is_dir()                                  # only our file goes
    assert not _cli(capsys, "autostart", "off")["enabled"]        # off twice is fine
    capsys.readouterr()
    assert main(["autostart"]) == 0
    assert "does not start at login" in capsys.readouterr().out


@pytest.mark.catalogue_free
def test_the_default_config_home_and_a_foreign_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    linux = Autostart("linux", env={}, home=tmp_path)
    assert linux.where() == str(tmp_path / ".config" / "autostart" / "errands.desktop")
    relative = Autostart("linux", env={"XDG_CONFIG_HOME": "relative/dir"}, home=tmp_path)
    assert relative.where() == linux.where()  # the spec ignores a relative XDG_CONFIG_HOME
    path = Path(linux.where())
    path.parent.mkdir(parents=True)
    path.write_text("[Desktop Entry]\nExec=something-else\n")
    state = linux.status()
    assert state.enabled and state.problem and "did not write it" in state.problem
    with pytest.raises(Conflict) as refused:
        linux.enable(["/bin/true", "--tray"])
    assert refused.value.code == "not_ours"
    with pytest.raises(Conflict):
        linux.disable()
    assert path.read_text() == "[Desktop Entry]\nExec=something-else\n"


@pytest.mark.catalogue_free
def test_a_stale_entry_says_so(tmp_path: Path) -> None:
    linux = Autostart("linux", env={"XDG_CONFIG_HOME": str(tmp_path)})
    state = linux.enable([str(tmp_path / "gone" / "errands"), "--tray"])
    assert state.enabled and "no longer exists" in (state.problem or "")


@pytest.mark.catalogue_free
@settings(max_examples=200, deadline=None, database=None)
@given(args=st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12),
                     min_size=1, max_size=4))
def test_desktop_exec_quoting_round_trips(args: list[str]) -> None:
    text = desktop_entry(["/opt/errands", *args])
    assert _read_exec(text) == ["/opt/errands", *args]
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert "\n" not in exec_line


@pytest.mark.catalogue_free
def test_desktop_exec_line_is_what_a_desktop_would_run() -> None:
    text = desktop_entry(["/home/me/my apps/errands", "--tray", "--data-dir", "/d/100%$x"])
    line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert line == 'Exec="/home/me/my apps/errands" --tray --data-dir "/d/100%%\\\\$x"'
    # string unescape, then the Exec quoting rules, then %% -> %
    assert _read_exec(text) == ["/home/me/my apps/errands", "--tray", "--data-dir", "/d/100%$x"]


@pytest.mark.catalogue_free
def test_macos_launch_agent_is_written_and_removed(tmp_path: Path) -> None:
    mac = Autostart("macos", home=tmp_path)
    path = tmp_path / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    assert mac.where() == str(path) and not mac.status().enabled
    command = ["/Applications/Errands.app/Contents/MacOS/Errands", "--tray"]
    state = mac.enable(command)
    doc = plistlib.loads(path.read_bytes())
    assert doc == {"Label": LABEL, "ProgramArguments": command, "RunAtLoad": True,
                   "ProcessType": "Interactive"}
    assert state.enabled and state.command == command
    assert "no longer exists" in (state.problem or "")  # no such app on this machine
    assert not mac.disable().enabled and not path.exists()
    path.write_bytes(plistlib.dumps({"Label": "com.other.thing"}))
    with pytest.raises(Conflict):
        mac.enable(command)


class FakeRegistry:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> bool:
        return self.values.pop(name, None) is not None


@pytest.mark.catalogue_free
def test_windows_run_value_is_written_and_removed() -> None:
    registry = FakeRegistry()
    win = Autostart("windows", registry=registry)
    assert win.where() == ("HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion"
                           "\\Run\\Errands")
    assert not win.status().enabled
    command = [r"C:\Program Files\Errands\errands.exe", "--tray", "--data-dir",
               r"C:\Users\me\Errands data"]
    state = win.enable(command)
    assert registry.values == {"Errands": r'"C:\Program Files\Errands\errands.exe" --tray '
                                          r'--data-dir "C:\Users\me\Errands data"'}
    assert state.enabled and state.command == command
    assert not win.disable().enabled and registry.values == {}
    assert not win.disable().enabled


@settings(max_examples=200, deadline=None, database=None)
@given(args=st.lists(st.text(st.sampled_from('ab \\"\t'), max_size=8), min_size=1, max_size=4))
def test_windows_command_line_round_trips(args: list[str]) -> None:
    assert _split_windows(subprocess.list2cmdline(args)) == args


def test_the_launch_command_starts_this_installation_in_the_tray(tmp_path: Path) -> None:
    argv = launch_command(tmp_path)
    assert argv[-3:] == ["--tray", "--data-dir", str(tmp_path.resolve())]
    assert Path(argv[0]).is_absolute()
    assert launch_command()[-1] == "--tray"
    out = subprocess.run([*argv[:-3], "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "--tray" in out.stdout


def test_tray_flag_opens_the_app_without_its_window(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    from errands.app import main as app_main

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(app_main, "run_app",
                        lambda data_dir, argv=None, **kw: calls.append(kw) or 0)
    assert main(["--tray", "--data-dir", str(tmp_path)]) == 0
    assert main(["--data-dir", str(tmp_path)]) == 0
    assert calls == [{"show_window": False}, {}]
    assert main(["--tray", "list", "--data-dir", str(tmp_path)]) == 2


def test_the_shell_started_for_the_tray_keeps_its_window_hidden(qloop: Any,
                                                                tmp_path: Path) -> None:
    from app_support import run
    from errands.app.notifications import RecordingBackend
    from errands.app.shell import AppShell

    app = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend(),
                   show_window=False)
    run(qloop, app.start())
    try:
        assert not app.window.isVisible()
        app.activate()  # the tray's Open (or a second launch) shows it
        assert app.window.isVisible()
    finally:
        run(qloop, app.close())
        app.window.deleteLater()


if sys.platform.startswith("win"):  # pragma: no cover - the real registry, on Windows only
    def test_winreg_writer_round_trip() -> None:
        writer = autostart.WinregWriter()
        writer.set("ErrandsTest", "x")
        assert writer.get("ErrandsTest") == "x" and writer.delete("ErrandsTest")


def test_the_settings_toggle_writes_and_removes_the_login_entry(
        qloop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Settings ▸ Start at login: the XDG entry appears (starting the tray, naming this
    data folder), the dialog shows it on when opened again, and turning it off removes it."""
    from app_support import run, until
    from errands.app.notifications import RecordingBackend
    from errands.app.shell import AppShell

    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    entry = config / "autostart" / "errands.desktop"
    shell = AppShell(tmp_path / "data", tray_available=True, notifications=RecordingBackend())
    run(qloop, shell.start())
    try:
        flow = run(qloop, shell.open_settings())
        assert not flow.dialog.autostart.isChecked()
        shell.set_autostart(True)
        run(qloop, until(lambda: entry.exists(), what="the login entry"))
        text = entry.read_text()
        assert "--tray" in text and str(shell.data_dir) in text
        flow.dialog.reject()
        run(qloop, shell.idle())
        flow = run(qloop, shell.open_settings())
        assert flow.dialog.autostart.isChecked()
        flow.dialog.reject()
        shell.set_autostart(False)
        run(qloop, until(lambda: not entry.exists(), what="the entry removed"))
        run(qloop, shell.idle())
    finally:
        run(qloop, shell.idle())
        run(qloop, shell.close())
        shell.window.deleteLater()
