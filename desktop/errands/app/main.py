"""Starting the app: a QApplication on a qasync event loop, the engine hosted in this
process, and the shell that wires the engine to the window, the tray and notifications.

The engine runs in-process on a thread and loop of its own (:class:`EngineThread`, role
``app``): its disk writes, timer and child processes never stall the window's loop, its
timer keeps the stdlib loop's precision (qasync's coarse Qt timers wake early), and the
window's loop sees it only through the :class:`~errands.engine.api.Api` facade. While the
app runs it owns the data folder: the CLI talks to its engine over the control channel,
``errands serve`` is refused naming the app, and a second ``errands`` asks the first to
bring its window forward and exits.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from ..channel import EngineUnreachable, request_sync
from ..engine.lock import read_owner
from ..errors import Conflict, ErrandsError

log = logging.getLogger(__name__)


def hand_over(data_dir: Path, *, out: Any = None) -> int | None:
    """If an engine already owns ``data_dir``: ask it to show its window. Returns the exit
    code for this launch (0 when the running app came forward), or None when nothing
    runs there and this launch should start the app."""
    out = out or sys.stdout
    owner = read_owner(data_dir)
    if owner is None or owner.role != "engine" or not owner.address:
        return None
    try:
        answer = request_sync(owner.address, "activate", {}, timeout=10, data_dir=data_dir)
    except (EngineUnreachable, ErrandsError, OSError):
        return None  # it is stopping; starting here will wait for it or say who holds it
    if answer.get("shown"):
        print(f"Errands is already running on {data_dir}; its window was brought forward.",
              file=out, flush=True)
        return 0
    print(f"error: {owner.describe()} already runs the engine on {data_dir}; stop it "
          "(Ctrl-C where it runs) to open the app there, or choose another --data-dir.",
          file=sys.stderr, flush=True)
    return Conflict.exit_code


def _platform_missing() -> str | None:
    """Why Qt could not open a window here (it would abort the process), or None."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("there is no display (DISPLAY and WAYLAND_DISPLAY are unset); Errands needs a "
            "desktop session, or QT_QPA_PLATFORM=offscreen for a headless check")


def run_app(data_dir: Path, argv: list[str] | None = None, *, show_window: bool = True) -> int:
    """Open the app on ``data_dir`` and run until Quit; the process exit code.
    ``show_window=False`` (``errands --tray``, start at login) opens only the tray icon,
    unless there is no tray to open."""
    code = hand_over(data_dir)
    if code is not None:
        return code
    problem = _platform_missing()
    if problem:
        print(f"error: cannot open the Errands window: {problem}", file=sys.stderr)
        return 1
    from ..logs import setup_logging
    setup_logging("app")

    import qasync
    from PySide6.QtWidgets import QApplication

    from .shell import AppShell, configure_application

    app = QApplication.instance() or QApplication([sys.argv[0], *(argv or [])])
    configure_application(app)  # type: ignore[arg-type]
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)  # the app's one loop, also between its turns
    shell = AppShell(Path(data_dir), show_window=show_window)
    try:
        with _quit_on_signals(shell, loop):
            return loop.run_until_complete(shell.run())
    except Conflict as exc:
        if exc.code == "engine_running":  # another launch won the race: hand over to it
            code = hand_over(data_dir)
            if code is not None:
                return code
        print(f"error: {exc}", file=sys.stderr)
        _tell_in_a_window(app, str(exc))
        return exc.exit_code
    except ErrandsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        _tell_in_a_window(app, str(exc))
        return exc.exit_code
    finally:
        loop.close()


def startup_problem_box(message: str) -> Any:
    """Why the app cannot open, for someone who started it from a menu, where nobody reads
    standard error (a database another machine's engine serves, one that is damaged …)."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    title = QCoreApplication.translate("Startup", "Errands cannot open")
    box = QMessageBox(QMessageBox.Icon.Critical, title,
                      QCoreApplication.translate("Startup", "Errands cannot open its data."),
                      QMessageBox.StandardButton.Close)
    box.setInformativeText(message[:1].upper() + message[1:])
    box.setAccessibleName(title)
    box.setStyleSheet("QLabel#qt_msgbox_label, QLabel#qt_msgbox_informativelabel "
                      "{ min-width: 28em; }")  # (a URL in it would wrap at each /)
    return box


def _tell_in_a_window(app: Any, message: str) -> None:
    """Show ``message`` in a dialog when a person is at a screen (not from a terminal,
    where it was printed, nor on Qt's offscreen platform)."""
    if sys.stderr is not None and sys.stderr.isatty():
        return
    if app.platformName() in ("offscreen", "minimal"):
        return
    startup_problem_box(message).exec()


class _quit_on_signals:
    """SIGINT and SIGTERM quit the app the way the Quit menu does. Qt's loop runs in C++, so
    a signal is noticed through a wake-up socket watched by a QSocketNotifier."""

    def __init__(self, shell: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.shell = shell
        self.loop = loop
        self._old: dict[int, Any] = {}
        self._pair: tuple[socket.socket, socket.socket] | None = None
        self._old_fd = -1
        self._notifier: Any = None

    def __enter__(self) -> "_quit_on_signals":
        if os.name != "posix":
            return self
        from PySide6.QtCore import QSocketNotifier

        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        self._pair = (reader, writer)
        self._old_fd = signal.set_wakeup_fd(writer.fileno())
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, lambda *_: None)
        self._notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._woke)
        return self

    def _woke(self, *_: Any) -> None:
        assert self._pair is not None
        try:
            while self._pair[0].recv(64):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        self.shell.request_quit()

    def __exit__(self, *exc: object) -> None:
        if self._pair is None:
            return
        self._notifier.setEnabled(False)
        signal.set_wakeup_fd(self._old_fd)
        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        for s in self._pair:
            s.close()


__all__ = ["run_app", "hand_over"]
