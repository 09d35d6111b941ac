"""The main window's frame: the Automations sidebar on the left, the detail of what is
selected on the right (in a splitter), menus with the keyboard shortcuts, a status bar.

The sidebar and detail widgets are built elsewhere (``app/sidebar``, ``app/detail``) and
plugged in with :meth:`MainWindow.set_sidebar` and :meth:`MainWindow.set_detail`; until then
clearly named placeholders hold their places. The window only emits what the user asked
for (``new_requested``, ``run_now_requested``, ...); whoever owns the selection acts on it.
"""

from __future__ import annotations

import html

from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (QLabel, QMainWindow, QMenu, QPushButton, QSplitter, QVBoxLayout,
                               QWidget)

from .icons import app_icon

DEFAULT_SIZE = (1100, 720)
NARROW_WIDTH = 900          # below it the window shows one pane at a time
MINIMUM_SIZE = (480, 420)


class Placeholder(QWidget):
    """Holds a place in the window until the real widget is plugged in."""

    def __init__(self, name: str, text: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setAccessibleName(name.replace("-", " "))
        layout = QVBoxLayout(self)
        label = QLabel(text)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setEnabled(False)
        layout.addWidget(label)


class MainWindow(QMainWindow):
    new_requested = Signal()
    describe_requested = Signal()     # quick-create: a sentence, shown back as a card
    template_requested = Signal()     # the template wizard
    find_requested = Signal()
    run_now_requested = Signal()
    edit_requested = Signal()
    toggle_pause_requested = Signal()
    toggle_archive_requested = Signal()
    show_archived_toggled = Signal(bool)  # View ▸ Show archived
    delete_requested = Signal()
    settings_requested = Signal()
    import_requested = Signal()
    export_requested = Signal()
    escape_pressed = Signal()
    quit_requested = Signal()
    theme_chosen = Signal(str)        # "system", "light" or "dark"
    close_to_tray = Signal()          # the window was closed but Errands keeps running
    close_without_tray = Signal()     # closed where there is no tray: the shell decides

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.keep_running_in_tray = True  # the shell sets False where there is no tray
        self.quitting = False             # closing for real: no tray hand-off
        self.setObjectName("main-window")
        self.setWindowTitle("Errands")
        self.setWindowIcon(app_icon())
        self.setAccessibleName(self.tr("Errands"))
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(*MINIMUM_SIZE)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("main-splitter")
        self.splitter.setAccessibleName(self.tr("Automations and detail"))
        self.splitter.setChildrenCollapsible(False)
        self.sidebar: QWidget = Placeholder("sidebar-placeholder", self.tr(
            "Automations\n\n(the list of automations goes here)"))
        self.detail: QWidget = Placeholder("detail-placeholder", self.tr(
            "Select an automation to see what it runs, when, and its history."))
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([320, DEFAULT_SIZE[0] - 320])
        central = QWidget()   # the panes, under a way back to the list in a narrow window
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.narrow_back = QPushButton(self.tr("← Automations"))
        self.narrow_back.setAccessibleName(self.tr("Back to the list of automations"))
        self.narrow_back.setFlat(True)
        self.narrow_back.clicked.connect(self.show_list)
        self.narrow_back.hide()
        column.addWidget(self.narrow_back, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

        self._build_status_bar()
        self._build_menus()
        self.restore_geometry()

    # ------------------------------------------------------------------ plug-in

    def set_sidebar(self, widget: QWidget) -> None:
        self.sidebar = self._replace(0, widget)

    def set_detail(self, widget: QWidget) -> None:
        self.detail = self._replace(1, widget)
        self._apply_width()

    # ------------------------------------------------------------ narrow windows

    @property
    def narrow(self) -> bool:
        """Below ``NARROW_WIDTH`` one pane shows at a time: the list, or what was opened
        from it (with a way back)."""
        return self.width() < NARROW_WIDTH

    def show_detail(self) -> None:
        """Something was opened: in a narrow window, its pane takes the window."""
        self._showing_detail = True
        self._apply_width()

    def show_list(self) -> None:
        self._showing_detail = False
        self._apply_width()
        if self.narrow:
            self.sidebar.setFocus()

    def _apply_width(self) -> None:
        narrow = self.narrow
        detail = getattr(self, "_showing_detail", False)
        self.sidebar.setVisible(not narrow or not detail)
        self.detail.setVisible(not narrow or detail)
        self.narrow_back.setVisible(narrow and detail)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if (self.width() < NARROW_WIDTH) != getattr(self, "_was_narrow", None):
            self._was_narrow = self.width() < NARROW_WIDTH
            self._apply_width()

    def _replace(self, index: int, widget: QWidget) -> QWidget:
        sizes = self.splitter.sizes()
        old = self.splitter.replaceWidget(index, widget)
        if old is not None:
            old.deleteLater()
        self.splitter.setSizes(sizes)
        return widget

    # ------------------------------------------------------------------- menus

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu(self.tr("&File"))
        self.new_action = self._add(file, self.tr("&New automation…"), "Ctrl+N",
                                    self.new_requested,
                                    self.tr("Create a new automation with the full form"))
        self.describe_action = self._add(file, self.tr("&Describe it…"), "Ctrl+Shift+N",
                                         self.describe_requested,
                                         self.tr("Say what and when in a sentence; see it "
                                                 "before it is created"))
        self.template_action = self._add(file, self.tr("New from &template…"), "Ctrl+T",
                                         self.template_requested,
                                         self.tr("Start from a ready-made automation"))
        file.addSeparator()
        self.import_action = self._add(file, self.tr("&Import…"), "Ctrl+I",
                                       self.import_requested,
                                       self.tr("Add the automations of an export file"))
        self.export_action = self._add(file, self.tr("E&xport…"), "Ctrl+Shift+E",
                                       self.export_requested,
                                       self.tr("Save every automation's definition to a file "
                                               "(no secrets, no history)"))
        file.addSeparator()
        self.settings_action = self._add(file, self.tr("&Settings…"), "Ctrl+,",
                                         self.settings_requested, self.tr("Open the settings"))
        file.addSeparator()
        self.close_action = self._add(file, self.tr("&Close window"), "Ctrl+W", None,
                                      self.tr("Close the window; Errands keeps running"))
        self.close_action.triggered.connect(self.close)
        self.quit_action = self._add(file, self.tr("&Quit Errands"), "Ctrl+Q",
                                     self.quit_requested, self.tr("Stop the engine and quit"))

        automation = bar.addMenu(self.tr("&Automation"))
        self.run_now_action = self._add(automation, self.tr("&Run now"), "Ctrl+R", self.run_now_requested,
                                        self.tr("Run the selected automation now"))
        self.edit_action = self._add(automation, self.tr("&Edit…"), "Ctrl+E", self.edit_requested,
                                     self.tr("Edit the selected automation"))
        self.pause_action = self._add(automation, self.tr("&Pause / Resume"), "Space",
                                      self.toggle_pause_requested,
                                      self.tr("Pause or resume the selected automation"))
        # Space pauses only where no button, box or text field wants it: the views that
        # hold a selection add this action (use_space_in); elsewhere Space clicks and types
        self.pause_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        automation.addSeparator()
        self.archive_action = self._add(automation, self.tr("Ar&chive"),
                                        "Ctrl+Shift+A", self.toggle_archive_requested,
                                        self.tr("Archive the selected automation: it stops "
                                                "for good and keeps its runs; or bring an "
                                                "archived one back, paused"))
        self.delete_action = self._add(automation, self.tr("&Delete…"), "Del", self.delete_requested,
                                       self.tr("Delete the selected automation"))
        self.selection_actions = [self.run_now_action, self.edit_action, self.pause_action,
                                  self.archive_action, self.delete_action]
        self.set_selection_actions_enabled(False)

        view = bar.addMenu(self.tr("&View"))
        self.find_action = self._add(view, self.tr("&Find…"), "Ctrl+F",
                                     self.find_requested, self.tr("Filter the automations"))
        self.show_archived_action = QAction(self.tr("Show &archived"), self, checkable=True)
        tip = self.tr("List only the archived automations instead of the others")
        self.show_archived_action.setStatusTip(tip)
        self.show_archived_action.setToolTip(tip)
        self.show_archived_action.toggled.connect(self.show_archived_toggled)
        view.addAction(self.show_archived_action)
        theme = QMenu(self.tr("&Theme"), view)
        theme.setAccessibleName(self.tr("Theme"))
        view.addMenu(theme)
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for choice, text in (("system", self.tr("Follow the &system")), ("light", self.tr("&Light")),
                             ("dark", self.tr("&Dark"))):
            action = QAction(text, theme, checkable=True)
            action.setData(choice)
            action.triggered.connect(lambda _c=False, c=choice: self.theme_chosen.emit(c))
            self.theme_group.addAction(action)
            theme.addAction(action)
            self.theme_actions[choice] = action
        self.theme_actions["system"].setChecked(True)

        # Esc: leave the filter, close a sheet; dialogs close themselves on Esc.
        self.escape_action = QAction(self.tr("Back"), self)
        self.escape_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.escape_action.triggered.connect(lambda _c=False: self.escape_pressed.emit())
        self.addAction(self.escape_action)

    def _add(self, menu: QMenu, text: str, shortcut: object, signal: Signal | None,
             tip: str) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))  # type: ignore[arg-type]
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setStatusTip(tip)
        action.setToolTip(tip)
        if signal is not None:
            action.triggered.connect(lambda _c=False, s=signal: s.emit())
        menu.addAction(action)
        return action

    def use_space_in(self, *views: QWidget) -> None:
        """Space pauses or resumes the selection while one of ``views`` has the focus."""
        for view in views:
            view.addAction(self.pause_action)

    def set_selection_actions_enabled(self, enabled: bool) -> None:
        """Run now, Edit, Pause/Resume, Archive and Delete act on a selected automation."""
        for action in self.selection_actions:
            action.setEnabled(enabled)

    def show_selected_status(self, status: str) -> None:
        """What the selected automation is: an archived one can only be unarchived or
        deleted (Run now, Edit and Pause/Resume wait for its unarchiving)."""
        archived = status == "archived"
        for action in (self.run_now_action, self.edit_action, self.pause_action):
            action.setEnabled(not archived)
        self.archive_action.setEnabled(True)
        self.archive_action.setText(self.tr("Un&archive") if archived else self.tr("Ar&chive"))

    def set_theme_choice(self, choice: str) -> None:
        if choice in self.theme_actions:
            self.theme_actions[choice].setChecked(True)

    # --------------------------------------------------------------- status bar

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        bar.setAccessibleName(self.tr("Status"))
        self.engine_label = QLabel(self.tr("Starting the engine…"))
        self.engine_label.setObjectName("engine-state")
        self.engine_label.setAccessibleName(self.tr("Engine state"))
        self.running_label = QLabel("")
        self.running_label.setObjectName("running-count")
        self.running_label.setAccessibleName(self.tr("Runs going now"))
        self.tray_label = QLabel("")
        self.tray_label.setObjectName("no-tray-note")
        self.tray_label.setAccessibleName(self.tr("System tray"))
        self.tray_label.hide()
        bar.addPermanentWidget(self.tray_label)
        bar.addPermanentWidget(self.running_label)
        bar.addPermanentWidget(self.engine_label)

    def show_engine_state(self, state: str) -> None:
        words = {"running": self.tr("Engine running"), "stopping": self.tr("Engine stopping…"),
                 "stopped": self.tr("Engine stopped"), "starting": self.tr("Starting the engine…"),
                 "unreachable": self.tr("Catalogue unreachable"),
                 "replaced": self.tr("Engine stopped: served elsewhere")}
        # the status bar has room for a few words; the whole story is the label's tooltip
        details = {"unreachable": self.tr("Shared catalogue unreachable: nothing runs until "
                                          "it is back (retrying)"),
                   "replaced": self.tr("Engine stopped: another Errands engine took this "
                                       "computer's place on the shared catalogue, or this "
                                       "computer's clock is off; the log says which")}
        self.engine_label.setText(words.get(state, self.tr("Engine %1").replace("%1", state)))
        detail = details.get(state, "")  # (as rich text, which a tooltip word-wraps)
        self.engine_label.setToolTip(f"<p>{html.escape(detail, quote=False)}</p>"
                                     if detail else "")
        self.engine_label.setAccessibleDescription(details.get(state, ""))
        from PySide6.QtGui import QPalette

        from .theme import state_colors
        palette = self.engine_label.palette()
        palette.setColor(QPalette.ColorRole.WindowText,
                         state_colors()["error"] if state in details
                         else self.palette().color(QPalette.ColorRole.WindowText))
        self.engine_label.setPalette(palette)

    def show_running(self, count: int) -> None:
        self.running_label.setText(self.tr("%n running", "", count) if count else "")

    def show_no_tray(self) -> None:
        self.keep_running_in_tray = False
        self.tray_label.setText(self.tr("No system tray on this desktop: Errands runs while "
                                        "this window is open"))
        self.tray_label.show()

    # ---------------------------------------------------------------- geometry

    def restore_geometry(self) -> None:
        if self.settings is None:
            return
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        splitter = self.settings.value("window/splitter")
        if isinstance(splitter, QByteArray) and not splitter.isEmpty():
            self.splitter.restoreState(splitter)

    def save_geometry(self) -> None:
        if self.settings is None:
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/splitter", self.splitter.saveState())
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_geometry()
        if self.quitting:
            event.accept()
        elif self.keep_running_in_tray:
            event.accept()  # hidden; the tray keeps Errands reachable
            self.close_to_tray.emit()
        else:
            event.ignore()
            self.close_without_tray.emit()
