"""An error nobody caught, in the window: logged with its context, shown once in a dialog
with "Copy details", and the app (and its engine) keeps going.

Python calls ``sys.excepthook`` for an exception that escapes a Qt slot (PySide prints it
and carries on), ``threading.excepthook`` for one that ends a thread, and the event loop's
exception handler for one in a task nobody awaited. :class:`CrashReporter` takes all three.
The dialog is shown once per session (a loop of failures must not bury the user in
dialogs); later errors are only logged, and the status bar says how many there were.
"""

from __future__ import annotations

import asyncio
import logging
import platform
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from .. import __version__

log = logging.getLogger("errands.app.crash")


def details(kind: type[BaseException], value: BaseException,
            tb: TracebackType | None, where: str) -> str:
    """What a bug report needs: versions, where it happened, the traceback."""
    from PySide6 import __version__ as pyside

    lines = [f"Errands {__version__} · Python {platform.python_version()} · PySide6 {pyside} · "
             f"{platform.system()} {platform.release()}",
             f"Where: {where}", ""]
    lines += traceback.format_exception(kind, value, tb)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip()


class CrashReporter(QObject):
    """Installs the hooks; ``reported`` carries (summary, details) on the UI thread."""

    reported = Signal(str, str)

    def __init__(self, parent_window: Callable[[], QWidget | None]) -> None:
        super().__init__()
        self.parent_window = parent_window
        self.count = 0
        self.shown: QMessageBox | None = None
        self._told = False
        self._previous: dict[str, Any] = {}
        self.reported.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._previous = {"sys": sys.excepthook, "thread": threading.excepthook}
        sys.excepthook = self._sys_hook
        threading.excepthook = self._thread_hook
        if loop is not None:
            self._previous["loop"] = loop.get_exception_handler()
            self._loop = loop
            loop.set_exception_handler(self._loop_hook)

    def uninstall(self) -> None:
        if "sys" in self._previous:
            sys.excepthook = self._previous["sys"]
            threading.excepthook = self._previous["thread"]
        if "loop" in self._previous:
            self._loop.set_exception_handler(self._previous["loop"])
        self._previous = {}

    # --------------------------------------------------------------------- hooks

    def _sys_hook(self, kind: type[BaseException], value: BaseException,
                  tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        self.report(kind, value, tb, "the window")

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.report(args.exc_type, args.exc_value, args.exc_traceback, f"thread {name}")

    def _loop_hook(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if exc is None:  # a message, not an error: the loop's own logging says it
            loop.default_exception_handler(context)
            return
        where = context.get("message") or "a background task"
        task = context.get("task") or context.get("future")
        if task is not None:
            where += f" ({task!r:.200})"
        self.report(type(exc), exc, exc.__traceback__, where)

    # -------------------------------------------------------------------- report

    def report(self, kind: type[BaseException], value: BaseException,
               tb: TracebackType | None, where: str) -> None:
        """Log it with its context, then (once per session) show it; any thread."""
        self.count += 1
        text = details(kind, value, tb, where)
        log.error("an error nobody caught, in %s:\n%s", where, text)
        summary = f"{kind.__name__}: {value}".strip()
        self.reported.emit(summary[:500], text)

    def _show(self, summary: str, text: str) -> None:
        if self._told:
            window = self.parent_window()
            if window is not None and hasattr(window, "statusBar"):
                window.statusBar().showMessage(  # type: ignore[attr-defined]
                    self.tr("%n unexpected errors this session; details are in the log", "",
                            self.count), 30_000)
            return
        self._told = True
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Something went wrong"),
                          self.tr("Errands hit an error it did not expect. Your automations "
                                  "keep running; what you were doing may not have finished."),
                          QMessageBox.StandardButton.Close, self.parent_window())
        box.setInformativeText(summary)
        box.setDetailedText(text)
        copy = QPushButton(self.tr("Copy details"), box)  # owned by the box, not by Python
        copy.setAccessibleName(self.tr("Copy the error details"))
        box.addButton(copy, QMessageBox.ButtonRole.ActionRole)
        copy.clicked.disconnect()  # an action button closes the box; this one only copies
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(text))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shown = box
        box.finished.connect(lambda _r: setattr(self, "shown", None))
        box.open()
