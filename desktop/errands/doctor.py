"""``errands doctor``: what works here, what does not, and what to do about it. No Qt.

Each check gives a name, a status (``ok``, ``warn``: Errands works but something is
missing or odd, ``fail``: something Errands needs is broken), what it found, and advice
when it is not ok. Nothing is changed: the data folder and database are only looked at
(the database opened read-only), the keyring only read, the tray asked about in a child
process with a timeout (a broken Qt platform plugin aborts a process).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .db.location import ServerDatabase
    from .settings import Settings

from platformdirs import user_data_path

OK, WARN, FAIL = "ok", "warn", "fail"
PROVIDER_TIMEOUT = timedelta(seconds=15)   # doctor waits at most this long per request
TRAY_TIMEOUT = 20.0


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str
    advice: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data folder as ``errands`` would choose it, without creating it."""
    if explicit:
        path = Path(explicit)
    elif os.environ.get("ERRANDS_DATA_DIR"):
        path = Path(os.environ["ERRANDS_DATA_DIR"])
    else:
        path = user_data_path("errands", appauthor=False)
    return path.expanduser().resolve()


# ------------------------------------------------------------------ the checks

def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK | os.X_OK)


def check_data_dir(root: Path) -> Check:
    name = "data folder"
    if not root.exists():
        parent = next((p for p in root.parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            return Check(name, FAIL, f"{root} cannot be created: {parent} is a file",
                         "move that file aside, or choose another folder with --data-dir or "
                         "ERRANDS_DATA_DIR")
        if parent is not None and not _writable(parent):
            return Check(name, FAIL, f"{root} does not exist and {parent} is not writable",
                         f"create {root} yourself (mkdir -p), or choose another folder with "
                         "--data-dir or ERRANDS_DATA_DIR")
        return Check(name, OK, f"{root} does not exist yet; it is created (private, 0700) on "
                     "first use")
    if not root.is_dir():
        return Check(name, FAIL, f"{root} is not a folder",
                     "move it aside, or choose another folder with --data-dir or "
                     "ERRANDS_DATA_DIR")
    if not _writable(root):
        return Check(name, FAIL, f"{root} is not writable by you",
                     f"fix its permissions (chmod u+rwx {root}; check its owner with ls -ld), "
                     "or choose another folder with --data-dir")
    info = root.stat()
    mode = stat.S_IMODE(info.st_mode)
    if os.name == "posix" and mode & 0o077:
        owner_note = "" if info.st_uid == os.geteuid() else " (and another user owns it)"
        return Check(name, WARN, f"{root} can be read by others (mode {mode:o}){owner_note}; "
                     "it holds prompts, commands and results",
                     f"chmod 700 {root} (Errands tightens it itself when it opens a folder "
                     "you own)")
    free = shutil.disk_usage(root).free
    if free < 50 * 1024 * 1024:
        return Check(name, WARN, f"{root}: only {free // (1024 * 1024)} MB free",
                     "free some disk space: runs and logs need room")
    return Check(name, OK, f"{root} (mode {mode:o}, writable, {free // (1024 * 1024):,} MB "
                 "free)")


def _location(root: Path) -> "Path | ServerDatabase":
    from .db.location import database_location
    return database_location(root)


def check_server_database(server: "ServerDatabase") -> list[Check]:
    """A shared catalogue, read without changing it: reachable, the server's version, the
    schema, which machines' engines serve it (and which does the common work)."""
    import psycopg

    from .db.location import password_for
    from .db.engine_hold import engines_running, psycopg_fetch
    from .db.postgres import (CONNECT_TIMEOUT_S, MAX_CLOCK_SKEW_S, OLDEST_SERVER, clock_offset,
                              clock_words, conninfo)
    from .migrations import HEAD, KNOWN_REVISIONS

    name = "database"
    has_password = password_for(server) is not None
    try:
        with psycopg.connect(conninfo(server),
                             autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            number = int(conn.execute("SHOW server_version_num").fetchone()[0])  # type: ignore[index]
            tables = {r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
            version = (conn.execute("SELECT version_num FROM alembic_version").fetchone()
                       if "alembic_version" in tables else None)
            offset, trip = clock_offset(conn)
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        hint = ("is the server running, and is the URL right? (errands database show)"
                if "password" not in first else
                "keep its password in the keyring: errands database password")
        return [Check(name, FAIL, f"cannot reach the shared catalogue {server}: {first}", hint),
                Check("schema", WARN, "not checked: the catalogue cannot be reached",
                      "fix the connection first (see above)")]
    release = f"{number // 10000}.{number % 10000}"
    checks = [Check(name, OK if number >= OLDEST_SERVER else FAIL,
                    f"shared catalogue {server} on PostgreSQL {release}"
                    + ("" if has_password else " (no password in the keyring: trust, "
                       "PGPASSWORD or ~/.pgpass)"),
                    None if number >= OLDEST_SERVER else "Errands needs PostgreSQL 12 or later")]
    current = version[0] if version else None
    if current is None:
        checks.append(Check("schema", FAIL, "the database holds tables that are not Errands'",
                            "name another database") if tables else
                      Check("schema", OK, f"empty; it starts at schema {HEAD}"))
    elif current == HEAD:
        checks.append(Check("schema", OK, f"schema {current}, the newest this Errands knows"))
    elif current in KNOWN_REVISIONS:
        checks.append(Check("schema", WARN, f"schema {current}, behind this Errands' {HEAD}",
                            "it is upgraded when an engine next opens it: every machine "
                            "sharing it needs this Errands or newer then"))
    else:
        checks.append(Check("schema", FAIL, f"schema {current} was written by a newer Errands "
                            f"(this one knows up to {HEAD})",
                            "update Errands on this machine; until then it leaves the "
                            "catalogue alone"))
    try:
        with psycopg.connect(conninfo(server), autocommit=True,
                             connect_timeout=CONNECT_TIMEOUT_S) as conn:
            running = engines_running(psycopg_fetch(conn))
    except Exception:  # (reached a moment ago: say nothing rather than guess)
        running = []
    checks.append(Check("engines", OK, ", ".join(
        machine + (" (the common work)" if common else "") for machine, common in running)
        if running else "no engine serves it right now"))
    skewed = abs(offset) - trip / 2 > MAX_CLOCK_SKEW_S
    checks.append(Check("catalogue clock", FAIL if skewed else OK,
                        f"this machine's clock is {clock_words(offset)} the server's",
                        f"an engine here refuses to serve it beyond {MAX_CLOCK_SKEW_S:g} s: set "
                        "the clock right (on Linux: timedatectl set-ntp true)" if skewed
                        else None))
    return checks


def check_database(root: Path) -> list[Check]:
    from .db.database import SQLITE_HEADER
    from .db.location import ServerDatabase
    from .migrations import HEAD, KNOWN_REVISIONS

    path = _location(root)
    if isinstance(path, ServerDatabase):
        return check_server_database(path)
    name = "database"
    if not path.exists():
        return [Check(name, OK, f"{path} does not exist yet; it is created on first use"),
                Check("schema", OK, f"a new database starts at schema {HEAD}")]
    if not path.is_file():
        return [Check(name, FAIL, f"{path} is not a file",
                      "move it aside; Errands creates a new database on next start")]
    aside = (f"stop Errands, move {path} (and any -wal/-shm beside it) aside and start "
             "again for a fresh one, or restore a backup; 'errands export' from a copy that "
             "still opens saves the definitions")
    try:
        with path.open("rb") as fh:
            header = fh.read(16)
    except OSError as exc:
        return [Check(name, FAIL, f"{path} cannot be read: {exc.strerror or exc}",
                      f"fix its permissions (chmod 600 {path})")]
    if path.stat().st_size and header != SQLITE_HEADER:
        return [Check(name, FAIL, f"{path} is not an SQLite database (damaged?)", aside)]
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check(20)")]
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            version = (conn.execute("SELECT version_num FROM alembic_version").fetchone()
                       if "alembic_version" in tables else None)
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return [Check(name, WARN, f"{path} is locked by another program right now",
                          "try again in a moment; if it stays locked, close the program "
                          "holding it")]
        return [Check(name, FAIL, f"{path} cannot be read: {exc}", aside)]
    except sqlite3.DatabaseError as exc:
        return [Check(name, FAIL, f"{path} is damaged: {exc}", aside)]
    checks = []
    if rows != ["ok"]:
        checks.append(Check(name, FAIL, f"{path}: integrity check found "
                            f"{len(rows)} problem(s): {'; '.join(rows[:3])}", aside))
    else:
        size = path.stat().st_size
        checks.append(Check(name, OK, f"{path} ({size // 1024:,} KiB), integrity check ok"))
    current = version[0] if version else None
    if current is None:
        if tables - {"sqlite_sequence"}:
            checks.append(Check("schema", FAIL, "the database holds tables that are not "
                                "Errands'", "choose another --data-dir"))
        else:
            checks.append(Check("schema", OK, f"empty; it starts at schema {HEAD}"))
    elif current == HEAD:
        checks.append(Check("schema", OK, f"schema {current}, the newest this Errands knows"))
    elif current in KNOWN_REVISIONS:
        checks.append(Check("schema", WARN, f"schema {current}, behind this Errands' {HEAD}",
                            "it is upgraded when 'errands serve' or the app next opens it; "
                            f"to be safe, copy {path} somewhere first"))
    else:
        checks.append(Check("schema", FAIL, f"schema {current} was written by a newer Errands "
                            f"(this one knows up to {HEAD})",
                            "update Errands; until then this version leaves the file alone"))
    return checks


def _tree_size(top: Path) -> tuple[int, bool]:
    """Bytes of the files under ``top`` (links not followed), and whether all could be read."""
    total, complete = 0, True
    stack = [top]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        else:
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        complete = False
        except FileNotFoundError:
            continue
        except OSError:
            complete = False
    return total, complete


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def check_data_size(root: Path) -> Check:
    """What the data folder takes: the database (with its write-ahead log), the run logs,
    the worktrees and the default working folders; and whether any automation keeps more
    run output than ``output_log_limit`` (the engine trims it after its next run or start)."""
    from .paths import database_path

    name = "data size"
    if not root.is_dir():
        return Check(name, OK, "nothing stored yet")
    database = 0
    for path in (database_path(root), *(Path(f"{database_path(root)}{side}")
                                        for side in ("-wal", "-shm"))):
        try:
            database += path.stat().st_size
        except OSError:
            pass
    parts = {"database": database}
    complete = True
    for label, folder in (("run logs", "logs"), ("worktrees", "worktrees"),
                          ("working folders", "workspaces")):
        parts[label], whole = _tree_size(root / folder)
        complete = complete and whole
    total, whole = _tree_size(root)
    complete = complete and whole
    detail = f"{_bytes(total)} in {root}: " + ", ".join(
        f"{label} {_bytes(size)}" for label, size in parts.items())
    if not complete:
        detail += " (some files could not be read)"
    try:
        limit = _stored_settings(root).get("output_log_limit")
    except Exception:  # the settings cannot be read: the database check says why
        return Check(name, OK, detail)
    from .history import logs_size

    over = []  # automations whose logs the engine would trim (it keeps the newest however big)
    try:
        with os.scandir(root / "logs" / "runs") as entries:
            for entry in entries:
                logs = logs_size(root, entry.name) if entry.is_dir(follow_symlinks=False) \
                    else []
                if len(logs) > 1 and sum(size for _, _, size in logs) > limit:
                    over.append(entry.name)
    except OSError:
        pass
    if over:
        from .settings import _show_size
        return Check(name, WARN, detail + f"; {len(over)} automation(s) keep more run output "
                     f"than output_log_limit ({_show_size(limit)}), e.g. {over[0]}",
                     "the engine deletes their oldest logs after their next run or its next "
                     "start ('errands serve' or the app); lower run_history_limit or "
                     "output_log_limit (errands config set …) to keep less")
    return Check(name, OK, detail)


def check_keyring(root: Path) -> Check:
    import keyring
    import keyring.errors

    from .agent.secrets import ENV_VAR, NO_KEYRING_HINT, SERVICE

    name = "keyring"
    backend = keyring.get_keyring()
    label = f"{type(backend).__module__}.{type(backend).__name__}"
    env = " (ERRANDS_API_KEY is set and wins over it)" if os.environ.get(ENV_VAR) else ""
    if "fail" in type(backend).__module__.split(".") or label.endswith("fail.Keyring"):
        return Check(name, WARN, f"no keyring backend on this machine{env}",
                     "an API key cannot be stored; " + NO_KEYRING_HINT +
                     " (local providers such as Ollama need no key)")
    try:
        keyring.get_password(SERVICE, str(root))
    except Exception as exc:  # backends raise their own (D-Bus, locked, denied)
        return Check(name, FAIL, f"{label} cannot be read ({type(exc).__name__}){env}",
                     "unlock the keyring (log in to it), or " + NO_KEYRING_HINT)
    return Check(name, OK, f"{label}, readable{env}")


def check_notifications() -> Check:
    import importlib.util

    name = "notifications"
    plyer = importlib.util.find_spec("plyer") is not None
    if sys.platform.startswith("linux"):
        notify_send = shutil.which("notify-send")
        dbus = importlib.util.find_spec("dbus") is not None
        if plyer and (notify_send or dbus):
            how = f"notify-send ({notify_send})" if notify_send else "the dbus module"
            return Check(name, OK, f"desktop notifications through plyer and {how}")
        missing = "plyer" if not plyer else "notify-send (and the dbus module)"
        return Check(name, WARN, f"{missing} is missing: notifications fall back to the "
                     "tray icon's balloon", "install libnotify-bin (Debian, Ubuntu) or "
                     "libnotify (Fedora, Arch) for notify-send")
    if plyer:
        return Check(name, OK, "desktop notifications through plyer")
    return Check(name, WARN, "plyer is missing: notifications fall back to the tray balloon",
                 "reinstall Errands (plyer is one of its dependencies)")


def check_tray(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> Check:
    name = "tray"
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform in ("offscreen", "minimal"):
        return Check(name, WARN, f"QT_QPA_PLATFORM={platform}: the app runs headless, with no "
                     "tray icon and no window on screen", "unset QT_QPA_PLATFORM to use the "
                     "desktop")
    if sys.platform.startswith("linux") and not platform and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return Check(name, WARN, "no display (DISPLAY and WAYLAND_DISPLAY are unset): the "
                     "window and tray cannot open here; 'errands serve' and the command line "
                     "work", "run Errands from a desktop session to use the app")
    code = ("from PySide6.QtWidgets import QApplication, QSystemTrayIcon\n"
            "app = QApplication([])\n"
            "print('tray' if QSystemTrayIcon.isSystemTrayAvailable() else 'no tray')\n")
    try:
        out = run([sys.executable, "-c", code], capture_output=True, text=True,
                  timeout=TRAY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Check(name, WARN, f"Qt did not answer within {TRAY_TIMEOUT:g} s",
                     "check that the desktop session works; Errands' window may not open")
    except OSError as exc:
        return Check(name, WARN, f"could not ask Qt: {exc}", "")
    answer = (out.stdout or "").strip().splitlines()[-1:] or [""]
    if out.returncode != 0:
        last = (out.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return Check(name, FAIL, f"Qt could not start here: {last[0][:200]}",
                     "install the libraries Qt needs (python3 dev.py system-libraries on "
                     "Debian or Ubuntu; see the README)")
    if answer[0] == "tray":
        return Check(name, OK, "the desktop has a system tray")
    return Check(name, WARN, "the desktop has no system tray: Errands works as a normal "
                 "window (closing it quits)", "on GNOME, install and enable the "
                 "AppIndicator extension")


def _stored_settings(root: Path) -> "Settings":
    """The settings in force, read without opening the store (which would migrate)."""
    from .db.location import ServerDatabase
    from .settings import Settings

    path = _location(root)
    if isinstance(path, ServerDatabase):
        from .store import Store
        store = Store(path)
        try:
            return store.settings()
        finally:
            store.close()
    if not path.is_file():
        return Settings()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        rows = conn.execute("SELECT key, value FROM settings").fetchall() \
            if "settings" in tables else []
    finally:
        conn.close()
    return Settings({str(k): str(v) for k, v in rows})


def check_provider(root: Path) -> list[Check]:
    from .agent.check import FAILED, OK as CHECK_OK, check_provider as run_checks
    from .agent.config import load_provider_config
    from .agent.provider import ProviderError
    from .errors import InvalidInput
    name = "provider"
    try:
        settings = _stored_settings(root)
        config = load_provider_config(settings, root)
    except InvalidInput as exc:
        return [Check(name, FAIL, str(exc), "fix or unset that environment variable")]
    except ProviderError as exc:
        return [Check(name, FAIL, exc.message, "unlock the keyring, or set ERRANDS_API_KEY")]
    except Exception as exc:  # the database did not open: its own check says why
        return [Check(name, WARN, f"not checked: the settings cannot be read ({exc})",
                      "fix the database first (see above)")]
    if config is None:
        return [Check(name, WARN, "no model provider is configured: agent automations "
                      "cannot run (command automations can)",
                      "errands provider set --base-url http://127.0.0.1:11434/v1 --model "
                      "llama3.2 (see docs/agent.md)")]
    quick = replace(config, timeout=min(config.timeout, PROVIDER_TIMEOUT))
    checks = asyncio.run(run_checks(quick))
    advice = {
        "reachable": f"is the provider running at {config.base_url}? Check the URL with "
                     "'errands provider show' and fix it with 'errands provider set "
                     "--base-url …'",
        "key_accepted": "store the right key: errands provider set --api-key-stdin (or set "
                        "ERRANDS_API_KEY)",
        "model_present": f"pick a model the provider lists (errands provider set --model …), "
                         f"or fetch it (ollama pull {config.model})",
        "tool_calling": "pick a model that supports tool calling",
    }
    out = []
    for c in checks:
        label = f"provider: {c.check.replace('_', ' ')}"
        if c.status == CHECK_OK:
            out.append(Check(label, OK, c.detail))
        elif c.status == FAILED:
            status = WARN if c.check == "tool_calling" else FAIL
            out.append(Check(label, status, c.detail, advice[c.check]))
        else:
            out.append(Check(label, WARN, c.detail, "fix the check before it"))
    return out


def check_clock(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run
                ) -> Check:
    from .timeutil import system_zone_name

    name = "clock"
    zone = system_zone_name()
    now = datetime.now().astimezone()
    offset = now.strftime("%z")
    detail = f"time zone {zone}, UTC{offset[:3]}:{offset[3:]}, local time " \
             f"{now.strftime('%Y-%m-%d %H:%M:%S')}"
    if zone == "UTC" and offset != "+0000":
        return Check(name, WARN, detail + "; the zone name could not be determined",
                     "set the system time zone (timedatectl set-timezone Europe/Berlin, or "
                     "TZ=…); cron schedules use it")
    timedatectl = shutil.which("timedatectl")
    if timedatectl is None:
        return Check(name, OK, detail)
    try:
        out = run([timedatectl, "show", "-p", "NTPSynchronized", "--value"],
                  capture_output=True, text=True, timeout=5)
    except (subprocess.TimeoutExpired, OSError):
        return Check(name, OK, detail + "; synchronisation unknown")
    value = (out.stdout or "").strip()
    if out.returncode != 0 or value not in ("yes", "no"):
        return Check(name, OK, detail + "; synchronisation unknown")
    if value == "no":
        return Check(name, WARN, detail + "; the clock is not synchronised (NTP)",
                     "turn on network time: timedatectl set-ntp true; a wrong clock fires "
                     "schedules at the wrong moment")
    return Check(name, OK, detail + "; synchronised (NTP)")


def check_engine(root: Path) -> Check:
    from .channel import EngineUnreachable, request_sync
    from .engine.lock import read_owner

    name = "engine"
    if not root.is_dir():
        return Check(name, OK, "no engine is running (nothing fires until the app or "
                     "'errands serve' runs)")
    try:
        owner = read_owner(root)
    except Exception as exc:
        return Check(name, WARN, f"the lock cannot be read: {exc}", "")
    if owner is None:
        return Check(name, OK, "no engine is running: automations fire only while the app "
                     "or 'errands serve' runs")
    who = owner.describe()
    if owner.role != "engine":
        return Check(name, OK, f"{who} holds the folder for a moment")
    if not owner.address:
        return Check(name, WARN, f"{who} runs but has no control channel yet",
                     "wait a moment and run doctor again")
    try:
        answer = request_sync(owner.address, "ping", {}, timeout=5, data_dir=root)
    except (EngineUnreachable, OSError) as exc:
        return Check(name, FAIL, f"{who} holds the folder but does not answer ({exc})",
                     "if it hangs, stop it (Ctrl-C where it runs, or end its process); "
                     "the next start recovers")
    except Exception as exc:
        return Check(name, FAIL, f"{who} holds the folder but its answer was refused: {exc}",
                     "stop it and start it again (Ctrl-C where it runs, or end its process)")
    return Check(name, OK, f"{who} answers on its control channel (pid {answer.get('pid')}, "
                 f"role {answer.get('role')})")


def check_confinement() -> Check:
    """Whether the commands an agent starts run confined (Landlock, Linux)."""
    from .confine import status

    available, sentence = status()
    if available:
        return Check("confinement", OK, sentence)
    if sys.platform.startswith("linux"):
        advice = ("use a Linux kernel 5.13 or newer (6.7 or newer to confine the network too) "
                  "with landlock in its lsm= list: most distributions' kernels have it built "
                  "in; add it to the kernel command line (for example lsm=landlock,lockdown,"
                  "yama,integrity,apparmor) if it is missing. Until then allow run_command only "
                  "for commands you would run yourself")
    else:
        advice = ("not confined: on this platform the commands an agent starts can do what "
                  "you can; allow run_command only for commands you would run yourself")
    return Check("confinement", WARN, sentence, advice)


# The libraries whose behaviour Errands depends on: the model provider's wire (httpx), the
# store, the window and its loop, the keyring. pyproject.toml bounds their majors.
LIBRARIES = ("httpx", "SQLAlchemy", "alembic", "PySide6-Essentials", "qasync", "keyring",
             "cron-descriptor", "platformdirs")


def check_versions(version: Callable[[str], str] | None = None) -> Check:
    """Which releases of the libraries that matter are installed: the first thing to
    compare when something works on one machine and not on another."""
    import importlib.metadata
    from . import __version__

    look = version or importlib.metadata.version
    found, missing = [], []
    for name in LIBRARIES:
        try:
            found.append(f"{name} {look(name)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    python = ".".join(map(str, sys.version_info[:3]))
    detail = f"Errands {__version__} on Python {python}; " + ", ".join(found)
    if missing:
        return Check("versions", FAIL, detail + f"; not installed: {', '.join(missing)}",
                     "install Errands again (python3 dev.py app, or the bundle)")
    return Check("versions", OK, detail)


def run_checks(explicit_dir: str | os.PathLike[str] | None = None, *,
               tray: Callable[[], Check] | None = None) -> list[Check]:
    root = resolve_data_dir(explicit_dir)
    checks = [check_versions(), check_data_dir(root), *check_database(root),
              check_data_size(root), check_keyring(root),
              check_notifications(), (tray or check_tray)()]
    database_ok = all(c.status != FAIL for c in checks if c.name in ("database", "schema"))
    if database_ok:
        checks += check_provider(root)
    else:
        checks.append(Check("provider", WARN, "not checked: the database cannot be used",
                            "fix the database first (see above)"))
    checks += [check_clock(), check_engine(root), check_confinement()]
    return checks
