"""The app shell: the engine, the adapter, the window, the tray and the notifier, wired.

:class:`AppShell` is what ``run_app`` runs and what the tests drive: ``await shell.start()``
shows the window, starts the engine and starts listening; ``request_quit()`` (the Quit
menu, SIGTERM) ends ``run()`` after ``close()`` stopped the engine cleanly.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QApplication, QMessageBox

from .. import __version__, heap
from ..engine.api import Api
from ..errors import ErrandsError
from ..engine.service import EngineThread
from ..paths import data_dir as open_data_dir
from . import i18n
from .adapter import Adapter
from .controller import WindowController
from .crash import CrashReporter
from .tasks import Tasks
from .icons import app_icon, icon_path
from .notifications import (Backend, FallbackBackend, Message, Notifier, PlyerBackend,
                            SignalBackend)
from .theme import Theme, parse_choice
from .tray import RECENT, Tray
from .window import MainWindow

log = logging.getLogger(__name__)

SETTINGS_FILE = "app.ini"
TOLD_ABOUT_TRAY = "tray/told_closing_keeps_running"


def configure_application(app: QApplication) -> None:
    app.setApplicationName("Errands")
    app.setApplicationDisplayName("Errands")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("Errands")
    app.setDesktopFileName("errands")
    app.setWindowIcon(app_icon())
    app.setQuitOnLastWindowClosed(False)  # closing the window leaves Errands in the tray


def app_settings(data_dir: Path) -> QSettings:
    """The app's own small settings (window geometry, theme, one-time notes), beside the
    data they belong to: one data folder, one window state."""
    return QSettings(str(Path(data_dir) / SETTINGS_FILE), QSettings.Format.IniFormat)


class AppShell(QObject):
    item_opened = Signal(object)   # an AttentionItem the user clicked in a notification
    started = Signal()
    activated = Signal()           # the window was brought forward (second launch, tray)

    def __init__(self, data_dir: Path, *, tray_available: bool | None = None,
                 notifications: Backend | None = None,
                 settings: QSettings | None = None, language: str | None = None,
                 show_window: bool = True) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication), "create the QApplication first"
        super().__init__()
        self.app = app
        configure_application(app)
        self.data_dir = open_data_dir(data_dir)  # made private (0700) if new
        self.settings = settings or app_settings(self.data_dir)
        # the words before the window: the chosen language (Settings), else the system's
        self.language = i18n.install(app, str(self.settings.value("language", ""))
                                     if language is None else language)
        self.host = EngineThread(self.data_dir, role="app", on_activate=self.activate)
        self.api: Api | None = None
        self.adapter: Adapter | None = None
        self.controller: WindowController | None = None
        self._quit = asyncio.Event()
        self._closed = False
        self.tasks = Tasks("a window task")
        self._opening_settings = False
        # Qt may call us between the loop's turns (a test, a modal): tasks go to the loop
        # start() ran on
        self.loop: asyncio.AbstractEventLoop | None = None
        self._recent_dirty = True
        self.show_window = show_window  # False: start in the tray (errands --tray)

        self.theme = Theme(app, parse_choice(self.settings.value("theme", "system")))
        self.window = MainWindow(self.settings)
        self.window.set_theme_choice(self.theme.choice)
        self.tray = Tray(self, available=tray_available)
        if not self.tray.available:
            self.window.show_no_tray()
        self.balloon = SignalBackend(self)
        self.balloon.message.connect(self._show_balloon, Qt.ConnectionType.QueuedConnection)
        if notifications is None:
            ways: list[Backend] = [PlyerBackend(icon_path("errands"))] if PlyerBackend.usable() \
                else []
            notifications = FallbackBackend(*ways, self.balloon)
        self.notifier = Notifier(notifications, parent=self)
        self.crash = CrashReporter(lambda: self.window)
        self._wire_ui()
        # the whole window now, the engine's facade later (start): the first frame shows
        # the sidebar saying it is loading, and building it stalls nothing that runs
        self.adapter = Adapter(None, self, data_dir=self.data_dir)
        self.controller = WindowController(self.window, self.adapter)
        self._wire_engine(self.adapter)

    # ------------------------------------------------------------------- wiring

    def _wire_ui(self) -> None:
        w, t = self.window, self.tray
        w.quit_requested.connect(self.request_quit)
        w.theme_chosen.connect(self.set_theme)
        w.close_to_tray.connect(self._closed_to_tray)
        w.close_without_tray.connect(self._closed_without_tray)
        w.settings_requested.connect(lambda: self._spawn(self.open_settings()))
        t.open_requested.connect(self.activate)
        t.new_requested.connect(self._new_from_tray)
        t.run_now_requested.connect(self.run_now)
        t.pause_all_requested.connect(lambda: self._spawn(self._set_all_paused(True)))
        t.resume_all_requested.connect(lambda: self._spawn(self._set_all_paused(False)))
        t.quit_requested.connect(self.request_quit)
        t.recent_wanted.connect(lambda: self._spawn(self.refresh_recent()))
        t.message_clicked.connect(self._message_clicked)

    def _wire_engine(self, adapter: Adapter) -> None:
        adapter.engine_state.connect(self.window.show_engine_state)
        adapter.running_count.connect(self._running_changed)
        adapter.attention_changed.connect(self._attention_changed)
        adapter.parked_changed.connect(
            lambda: self._refresh("needs_you", self.refresh_needs_you))
        adapter.automations_changed.connect(self._automations_changed)
        adapter.automations_deleted.connect(self._automations_changed)
        adapter.failed.connect(lambda what, why: self.window.statusBar().showMessage(
            f"{what}: {why}", 15_000))

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Show the window at once, then start the engine and listen to it."""
        self.loop = self.tasks.loop = asyncio.get_running_loop()
        self.crash.install(self.loop)
        self.window.show_engine_state("starting")
        if self.show_window or not self.tray.available:
            self.window.show()
        assert self.adapter is not None and self.controller is not None
        try:
            preview = await self.host.open()
            try:  # the stored list first: with thousands of automations the engine takes longer
                await self.controller.show_preview(await preview.summaries())
            except ErrandsError as exc:  # busy: the engine's own snapshot follows anyway
                log.info("the first look at the automations was refused: %s", exc)
            finally:
                await asyncio.to_thread(preview.close)
            self.api = await self.host.start()
        except BaseException as exc:  # what waits for the engine is told, not left waiting
            self.adapter.abandon(f"the engine did not start: {exc}")
            raise
        self.adapter.bind(self.api, self.loop)
        self.controller.bind(self.loop)
        self.adapter.attach()
        self.window.show_engine_state("running")
        items = await self.api.attention()
        self.notifier.baseline(items.value)  # what was there before we opened is no news
        await asyncio.gather(self.controller.load(), self.refresh_needs_you(),
                             self.refresh_paused(), self.refresh_recent())
        heap.settle()  # the loaded window's rows, like the engine's heap, out of the collector's view
        self.started.emit()

    async def run(self) -> int:
        """Start, wait for Quit, close; the exit code."""
        try:
            await self.start()
            await self._quit.wait()
        finally:
            await self.close()
        return 0

    async def idle(self) -> None:
        """Wait until nothing the window started is in flight (tests, screenshots)."""
        await self.tasks.idle()
        if self.controller is not None:
            await self.controller.idle()

    def request_quit(self) -> None:
        self._quit.set()

    async def close(self) -> None:
        """Stop everything, the engine last but one (its runs get their grace period)."""
        if self._closed:
            return
        self._closed = True
        self.window.quitting = True
        self.window.show_engine_state("stopping")
        self.window.save_geometry()
        self.window.close()
        self.tray.hide()
        # from here on nothing new starts: the engine's last notices (it stops below) find
        # no refresh to run on a loop that will not turn again
        self.tasks.close()
        if self.adapter is not None:  # quit before the engine ran: nothing waits for it
            self.adapter.abandon("Errands is quitting")
        await self.tasks.cancel()
        if self.controller is not None:
            await self.controller.close()
        if self.adapter is not None:
            await self.adapter.drain()
        await self.notifier.close()
        await self.host.close()
        if self.adapter is not None:
            self.adapter.detach()
        self.crash.uninstall()
        self.settings.sync()

    def _refresh(self, name: str, make: Any) -> None:
        """Run ``make()`` now, or once more after the one in flight (a burst of notices
        asks the reader threads one question at a time, not one per notice)."""
        self.tasks.refresh(name, make)

    def _spawn(self, coro: Any) -> None:
        self.tasks.spawn(coro)

    # ------------------------------------------------------------------- window

    def activate(self) -> None:
        """Bring the window forward (tray, a second launch, a clicked notification)."""
        w = self.window
        if w.isMinimized():
            w.showNormal()
        w.show()
        w.raise_()
        w.activateWindow()
        self.activated.emit()

    def _new_from_tray(self) -> None:
        """The tray's New automation…: the quick-create box (a sentence is the fastest
        way; it offers the template wizard and the form too)."""
        self.activate()
        self.window.describe_requested.emit()

    async def open_settings(self) -> Any:
        """The Settings dialog (one at a time: asking again brings it forward)."""
        if self._opening_settings:  # asked twice quickly: the first is on its way
            return None
        if self.api is None:  # asked while the engine starts: open once it runs
            assert self.adapter is not None
            self._opening_settings = True
            try:
                await self.adapter.ready()
            finally:
                self._opening_settings = False
        current = getattr(self, "settings_flow", None)
        if current is not None and current.dialog.isVisible():
            current.dialog.raise_()
            current.dialog.activateWindow()
            return current
        from .. import autostart
        from .dialogs.settings_flow import open_settings
        self._opening_settings = True
        try:
            try:  # the entry on disk is the record of the choice
                starting = (await asyncio.to_thread(autostart.status)).enabled
            except (OSError, ErrandsError):
                starting = False
            flow = await open_settings(self.window, self.api, self.adapter, self.data_dir,
                                       self.theme.choice, autostart=starting,
                                       language=str(self.settings.value("language", "")))
        finally:
            self._opening_settings = False
        flow.dialog.theme_chosen.connect(self.set_theme)
        flow.dialog.language_chosen.connect(self.set_language)
        flow.dialog.autostart_changed.connect(self.set_autostart)
        self.settings_flow = flow
        return flow

    def set_language(self, language: str) -> None:
        self.settings.setValue("language", language)
        self.settings.sync()

    def set_autostart(self, on: bool) -> None:
        """Start at login (in the tray) or not: the platform's entry, written off the loop;
        a refusal (an entry Errands did not write) is said in the status bar."""
        from .. import autostart
        from ..paths import default_data_dir

        explicit = None if self.data_dir == default_data_dir() else self.data_dir

        async def go() -> None:
            try:
                if on:
                    await asyncio.to_thread(autostart.enable, autostart.launch_command(explicit))
                else:
                    await asyncio.to_thread(autostart.disable)
            except (OSError, ErrandsError) as exc:
                self.window.statusBar().showMessage(
                    self.tr("Start at login: %1").replace("%1", str(exc)), 30_000)
                return
            self.window.statusBar().showMessage(
                self.tr("Errands will start at login, in the tray") if on
                else self.tr("Errands will not start at login"), 10_000)
        self._spawn(go())

    def set_theme(self, choice: str) -> None:
        self.theme.set_choice(parse_choice(choice))
        self.settings.setValue("theme", self.theme.choice)
        self.window.set_theme_choice(self.theme.choice)

    def _closed_to_tray(self) -> None:
        if self.settings.value(TOLD_ABOUT_TRAY, False, type=bool):
            return
        self.settings.setValue(TOLD_ABOUT_TRAY, True)
        self.settings.sync()
        self._show_balloon(Message(self.tr("Errands is still running"),
                                   self.tr("It keeps running your automations from the tray. "
                                           "Choose Quit in the tray menu to stop it."), ()))

    def _closed_without_tray(self) -> None:
        """No tray to keep Errands reachable: ask whether to quit or keep it minimised."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Quit Errands?"),
                          self.tr("This desktop has no system tray. Quit Errands (automations "
                                  "stop firing), or keep it running minimised?"),
                          parent=self.window)
        quit_button = box.addButton(self.tr("Quit"), QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton(self.tr("Keep running"), QMessageBox.ButtonRole.RejectRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(keep)

        def chosen() -> None:
            if box.clickedButton() is quit_button:
                self.request_quit()
            elif box.clickedButton() is keep:
                self.window.showMinimized()
        box.finished.connect(chosen)
        box.open()

    def _show_balloon(self, message: Message) -> None:
        if self.tray.available:
            self.tray.show_message(message)
        else:
            self.window.statusBar().showMessage(
                f"{message.title} — {message.body}".strip(" —"), 30_000)

    def _message_clicked(self, message: Message) -> None:
        self.activate()
        if message.items:
            self.item_opened.emit(message.items[0])
            if self.controller is not None:
                self.controller.open_item(message.items[0])

    # -------------------------------------------------------------- engine state

    def _running_changed(self, count: int) -> None:
        self.tray.set_state(running=count)
        self.window.show_running(count)

    def _attention_changed(self) -> None:
        self._refresh("needs_you", self.refresh_needs_you)
        self._refresh("notify", self.notify_new)

    def _automations_changed(self, _ids: object) -> None:
        self._recent_dirty = True
        self._refresh("paused", self.refresh_paused)

    async def refresh_needs_you(self) -> None:
        assert self.adapter is not None
        count = await self.adapter.needs_you()
        if count is not None:
            self.tray.set_state(attention=count)

    async def notify_new(self) -> None:
        assert self.adapter is not None
        answer = await self.adapter.attention(key="notify", unread_only=True)
        if answer is not None:
            self.notifier.offer(answer.value)

    async def refresh_paused(self) -> None:
        """Whether everything is paused (the tray greys, Resume all is what is offered)."""
        assert self.adapter is not None
        active = await self.adapter.summaries(key="tray-active", status="active", limit=1)
        paused = await self.adapter.summaries(key="tray-paused", status="paused", limit=1)
        if active is None or paused is None:
            return
        has_active, has_paused = active.value[1] > 0, paused.value[1] > 0
        self.tray.set_state(all_paused=has_paused and not has_active)
        self.tray.pause_action.setEnabled(has_active)
        self.tray.resume_action.setEnabled(has_paused)

    async def refresh_recent(self) -> None:
        """The automations Run now ▸ offers: the most recently run first."""
        if self.api is None or self.adapter is None or not self._recent_dirty:
            return
        answer = await self.adapter.summaries(key="tray-recent", sort="last_run", limit=RECENT)
        if answer is None:
            return
        rows, _total = answer.value
        self._recent_dirty = False
        self.tray.set_recent([(r.id, r.title) for r in rows
                              if r.status not in ("broken", "archived")])

    def run_now(self, automation_id: str) -> None:
        assert self.adapter is not None and self.api is not None
        self.adapter.submit(self.tr("Run now"), self.api.run_now(automation_id))

    async def _set_all_paused(self, paused: bool) -> None:
        assert self.adapter is not None
        self.window.statusBar().showMessage(self.tr("Pausing everything…") if paused
                                            else self.tr("Resuming everything…"))
        changed = await self.adapter.set_all_paused(paused)
        self.window.statusBar().showMessage(
            (self.tr("Paused %n automation", "", changed) if changed == 1
             else self.tr("Paused %n automations", "", changed)) if paused else
            (self.tr("Resumed %n automation", "", changed) if changed == 1
             else self.tr("Resumed %n automations", "", changed)), 10_000)


