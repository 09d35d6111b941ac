"""The tray icon: its look says the state (idle, running, needs you), its menu is the quick
way in: Open Errands, New automation…, Run now ▸, Pause all / Resume all, Quit.

Where the desktop has no system tray (``available`` False) nothing is shown and the window
says so in its status bar; every action stays reachable from the window's menus.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from .icons import app_icon, tray_icon
from .notifications import Message

RECENT = 8  # automations in the Run now ▸ menu


class Tray(QObject):
    open_requested = Signal()
    new_requested = Signal()
    run_now_requested = Signal(str)        # automation id
    pause_all_requested = Signal()
    resume_all_requested = Signal()
    quit_requested = Signal()
    recent_wanted = Signal()               # the Run now ▸ menu is about to show
    message_clicked = Signal(object)       # the Message whose balloon was clicked

    def __init__(self, parent: QObject | None = None, *, available: bool | None = None) -> None:
        super().__init__(parent)
        self.available = (QSystemTrayIcon.isSystemTrayAvailable() if available is None
                          else available)
        self.running = 0
        self.attention = 0
        self.all_paused = False
        self._last_message: Message | None = None

        self.menu = QMenu()
        self.menu.setAccessibleName(self.tr("Errands tray menu"))
        self.open_action = self._action(self.tr("Open Errands"), self.open_requested)
        self.new_action = self._action(self.tr("New automation…"), self.new_requested)
        self.run_menu = QMenu(self.tr("Run now"), self.menu)
        self.run_menu.setAccessibleName(self.tr("Run now: recent automations"))
        self.run_menu.aboutToShow.connect(self.recent_wanted)
        self.menu.addMenu(self.run_menu)
        self.set_recent([])
        self.menu.addSeparator()
        self.pause_action = self._action(self.tr("Pause all"), self.pause_all_requested)
        self.resume_action = self._action(self.tr("Resume all"), self.resume_all_requested)
        self.menu.addSeparator()
        self.quit_action = self._action(self.tr("Quit Errands"), self.quit_requested)

        self.icon: QSystemTrayIcon | None = None
        if self.available:
            self.icon = QSystemTrayIcon(tray_icon(), self)
            self.icon.setContextMenu(self.menu)
            self.icon.activated.connect(self._activated)
            self.icon.messageClicked.connect(self._clicked)
            self._refresh()
            self.icon.show()

    def _action(self, text: str, signal: Signal) -> QAction:  # type: ignore[type-arg]
        action = QAction(text, self.menu)
        action.triggered.connect(lambda _checked=False: signal.emit())
        self.menu.addAction(action)
        return action

    # ------------------------------------------------------------------- state

    def set_state(self, *, running: int | None = None, attention: int | None = None,
                  all_paused: bool | None = None) -> None:
        if running is not None:
            self.running = running
        if attention is not None:
            self.attention = attention
        if all_paused is not None:
            self.all_paused = all_paused
        self._refresh()

    @property
    def state(self) -> str:
        """``attention``, ``running``, ``paused`` or ``idle``: what the icon shows."""
        if self.attention:
            return "attention"
        if self.running:
            return "running"
        return "paused" if self.all_paused else "idle"

    def tooltip(self) -> str:
        parts = ["Errands"]
        if self.running:
            parts.append(self.tr("%n running", "", self.running))
        if self.attention:
            parts.append(self.tr("%n needs you", "", self.attention) if self.attention == 1
                         else self.tr("%n need you", "", self.attention))
        if self.all_paused and not self.running:
            parts.append(self.tr("everything paused"))
        if len(parts) == 1:
            parts.append(self.tr("idle"))
        return " · ".join(parts)

    def _refresh(self) -> None:
        if self.icon is None:
            return
        self.icon.setIcon(tray_icon(running=self.running, attention=self.attention,
                                    paused=self.all_paused))
        self.icon.setToolTip(self.tooltip())

    def set_recent(self, automations: Sequence[tuple[str, str]]) -> None:
        """(id, title) of the automations Run now ▸ offers, most recent first."""
        self.run_menu.clear()
        for ident, title in list(automations)[:RECENT]:
            action = QAction(title.replace("&", "&&"), self.run_menu)
            action.triggered.connect(lambda _c=False, i=ident: self.run_now_requested.emit(i))
            self.run_menu.addAction(action)
        if not automations:
            empty = QAction(self.tr("No automations yet"), self.run_menu)
            empty.setEnabled(False)
            self.run_menu.addAction(empty)

    # ---------------------------------------------------------------- messages

    def show_message(self, message: Message) -> None:
        """A balloon (the fallback for desktop notifications)."""
        if self.icon is None:
            return
        self._last_message = message
        self.icon.showMessage(message.title, message.body, app_icon(), 10_000)

    def _clicked(self) -> None:
        if self._last_message is not None:
            self.message_clicked.emit(self._last_message)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger,
                      QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_requested.emit()

    def hide(self) -> None:
        if self.icon is not None:
            self.icon.hide()
