"""Start Errands at login, minimised to the tray (``errands --tray``): no Qt here.

- Linux and other freedesktop systems: the XDG autostart entry
  ``$XDG_CONFIG_HOME/autostart/errands.desktop`` (default ``~/.config``);
- macOS: the LaunchAgent ``~/Library/LaunchAgents/org.errands.Errands.plist``
  (``RunAtLoad``), written with :mod:`plistlib`;
- Windows: the value ``Errands`` under ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run``,
  written through a :class:`RegistryWriter` (``winreg`` by default; tests pass their own).

The entry itself is the record of the choice: :func:`status` reads it, so the Settings
dialog and ``errands autostart status`` always agree with what the system will do at the
next login. :func:`enable` (re)writes it with the command that starts this installation;
:func:`disable` removes it and nothing else (a file of the same name that Errands did not
write is left alone, and said so).
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol, Sequence

from .errors import Conflict

DESKTOP_NAME = "errands.desktop"
MARKER = "X-Errands-Autostart=true"
LABEL = "org.errands.Errands"
RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
VALUE_NAME = "Errands"


@dataclass(frozen=True)
class Status:
    enabled: bool
    platform: str                 # linux | macos | windows
    where: str                    # the file, or the registry value
    command: list[str] | None     # what runs at login (None when disabled)
    problem: str | None = None    # e.g. the program it starts is gone

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class RegistryWriter(Protocol):
    """The one registry key the Windows entry lives under (HKCU ... Run)."""

    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> None: ...
    def delete(self, name: str) -> bool: ...


class WinregWriter:
    """``HKCU\\...\\Run`` through :mod:`winreg` (Windows only)."""

    def _key(self, access: int) -> object:
        import winreg  # type: ignore[import-not-found]
        return winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, access)

    def get(self, name: str) -> str | None:
        import winreg  # type: ignore[import-not-found]
        with self._key(winreg.KEY_READ) as key:  # type: ignore[attr-defined]
            try:
                value, _ = winreg.QueryValueEx(key, name)
            except FileNotFoundError:
                return None
        return str(value)

    def set(self, name: str, value: str) -> None:
        import winreg  # type: ignore[import-not-found]
        with self._key(winreg.KEY_SET_VALUE) as key:  # type: ignore[attr-defined]
            winreg.SetValueEx(key, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> bool:
        import winreg  # type: ignore[import-not-found]
        with self._key(winreg.KEY_SET_VALUE) as key:  # type: ignore[attr-defined]
            try:
                winreg.DeleteValue(key, name)
            except FileNotFoundError:
                return False
        return True


def current_platform() -> str:
    if sys.platform == "darwin":
        return "macos"
    if sys.platform.startswith("win"):
        return "windows"
    return "linux"


def launch_command(data_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """How this installation starts the app in the tray: the bundle itself when frozen,
    else the ``errands`` script beside this interpreter, else ``python -m errands.cli``."""
    if getattr(sys, "frozen", False):
        argv = [sys.executable]
    else:
        script = Path(sys.executable).parent / ("errands.exe" if os.name == "nt" else "errands")
        argv = [str(script)] if script.exists() else [sys.executable, "-m", "errands.cli"]
    argv.append("--tray")
    if data_dir is not None:
        argv += ["--data-dir", str(Path(data_dir).expanduser().resolve())]
    return argv


# --------------------------------------------------------------------- Linux

def desktop_path(env: dict[str, str] | None = None, home: Path | None = None) -> Path:
    env = os.environ if env is None else env  # type: ignore[assignment]
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if os.path.isabs(base) else (home or Path.home()) / ".config"
    return root / "autostart" / DESKTOP_NAME


def _exec_quote(arg: str) -> str:
    """One argument of a desktop entry's ``Exec`` key (Desktop Entry spec, "The Exec key")."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`="):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{escaped}"'


def desktop_entry(command: Sequence[str]) -> str:
    """The text of the XDG autostart entry."""
    exec_line = " ".join(_exec_quote(a) for a in command)
    # the whole string value is escaped again as a desktop-file string (backslashes doubled)
    exec_line = exec_line.replace("\\", "\\\\")
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=Errands",
        "Comment=Runs your automations; starts in the tray",
        f"Exec={exec_line}",
        "Icon=errands",
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
        MARKER,
        "",
    ])


def _read_exec(text: str) -> list[str] | None:
    """The argv of the entry's ``Exec`` key, unquoted as the spec says (None if damaged)."""
    for line in text.splitlines():
        if line.startswith("Exec="):
            return _split_exec(line[len("Exec="):].replace("\\\\", "\\"))
    return None


def _split_exec(value: str) -> list[str] | None:
    out: list[str] = []
    current, quoted, started, i = "", False, False, 0
    while i < len(value):
        c = value[i]
        if quoted:
            if c == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
                current += value[i + 1]
                i += 1
            elif c == '"':
                quoted = False
            else:
                current += c
        elif c == '"':
            quoted = started = True
        elif c == " ":
            if started:
                out.append(current)
            current, started = "", False
        else:
            current += c
            started = True
        i += 1
    if quoted:
        return None
    if started:
        out.append(current)
    return [a.replace("%%", "%") for a in out]


# --------------------------------------------------------------------- macOS

def plist_path(home: Path | None = None) -> Path:
    return (home or Path.home()) / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def launch_agent(command: Sequence[str]) -> bytes:
    """The LaunchAgent property list: run once at login, as an interactive app."""
    return plistlib.dumps({"Label": LABEL, "ProgramArguments": list(command),
                           "RunAtLoad": True, "ProcessType": "Interactive"})


# --------------------------------------------------------------------- the three actions

class Autostart:
    """Start-at-login for one platform; every location is injectable for tests."""

    def __init__(self, platform: str | None = None, *, env: dict[str, str] | None = None,
                 home: Path | None = None, registry: RegistryWriter | None = None) -> None:
        self.platform = platform or current_platform()
        self.env = dict(os.environ) if env is None else env
        self.home = home
        self._registry = registry

    @property
    def registry(self) -> RegistryWriter:
        if self._registry is None:
            self._registry = WinregWriter()
        return self._registry

    def where(self) -> str:
        if self.platform == "macos":
            return str(plist_path(self.home))
        if self.platform == "windows":
            return f"HKEY_CURRENT_USER\\{RUN_KEY}\\{VALUE_NAME}"
        return str(desktop_path(self.env, self.home))

    def enable(self, command: Sequence[str] | None = None) -> Status:
        command = list(command or launch_command())
        if self.platform == "windows":
            self.registry.set(VALUE_NAME, subprocess.list2cmdline(command))
        else:
            path = Path(self.where())
            self._refuse_foreign(path)
            data = (launch_agent(command) if self.platform == "macos"
                    else desktop_entry(command).encode())
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        return self.status()

    def disable(self) -> Status:
        if self.platform == "windows":
            self.registry.delete(VALUE_NAME)
        else:
            path = Path(self.where())
            if path.exists():
                self._refuse_foreign(path)
                path.unlink()
        return self.status()

    def status(self) -> Status:
        where = self.where()
        if self.platform == "windows":
            value = self.registry.get(VALUE_NAME)
            if value is None:
                return Status(False, self.platform, where, None)
            command = _split_windows(value)
        else:
            path = Path(where)
            if not path.exists():
                return Status(False, self.platform, where, None)
            command = self._read_command(path)
            if command is None:
                return Status(True, self.platform, where, None,
                              "the entry exists but Errands did not write it (or it is "
                              "damaged); remove it by hand or with 'errands autostart off'")
        return Status(True, self.platform, where, command, _stale(command))

    def _read_command(self, path: Path) -> list[str] | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if self.platform == "macos":
            try:
                doc = plistlib.loads(data)
            except Exception:  # plistlib raises several kinds on a damaged file
                return None
            if not isinstance(doc, dict) or doc.get("Label") != LABEL:
                return None
            args = doc.get("ProgramArguments")
            return [str(a) for a in args] if isinstance(args, list) else None
        text = data.decode("utf-8", "replace")
        if MARKER not in text:
            return None
        return _read_exec(text)

    def _refuse_foreign(self, path: Path) -> None:
        if path.exists() and self._read_command(path) is None:
            raise Conflict("not_ours", f"{path} exists but was not written by Errands; "
                           "move it aside (or remove it) and try again")


def _split_windows(value: str) -> list[str]:
    """The argv of a ``Run`` value (quoted as :func:`subprocess.list2cmdline` quotes)."""
    out, current, quoted, backslashes, started = [], "", False, 0, False
    for c in value:
        if c == "\\":
            backslashes += 1
            continue
        if c == '"':
            current += "\\" * (backslashes // 2)
            if backslashes % 2:
                current += '"'
            else:
                quoted = not quoted
            backslashes, started = 0, True
            continue
        current += "\\" * backslashes
        backslashes = 0
        if c in " \t" and not quoted:
            if started or current:
                out.append(current)
            current, started = "", False
        else:
            current += c
            started = True
    current += "\\" * backslashes
    if started or current:
        out.append(current)
    return out


def _stale(command: list[str]) -> str | None:
    """Why the entry would fail at login (its program is gone), or None."""
    if not command:
        return "the entry runs nothing"
    program = command[0]
    if os.path.isabs(program):
        if not os.path.exists(program):
            return (f"it starts {program}, which no longer exists (moved or uninstalled?); "
                    "run 'errands autostart on' again")
    elif shutil.which(program) is None:
        return f"it starts {program}, which is not on PATH; run 'errands autostart on' again"
    return None


def enable(command: Sequence[str] | None = None) -> Status:
    return Autostart().enable(command)


def disable() -> Status:
    return Autostart().disable()


def status() -> Status:
    return Autostart().status()
