"""Light and dark: follow the system (Qt 6 ``QStyleHints.colorScheme``) unless the user
chose one (the ``theme`` app setting: ``system``, ``light`` or ``dark``).

Where the platform reports no scheme (offscreen, some Linux desktops) "system" means light.
A chosen scheme, or a platform that cannot switch its own palette, gets the Fusion style
with the palettes below, so both themes look the same everywhere. Views that paint their own
marks (the run strip, state glyphs) take their colours from :func:`state_colors`.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

Choice = Literal["system", "light", "dark"]
CHOICES: tuple[Choice, ...] = ("system", "light", "dark")

_LIGHT = {
    "window": "#f6f7f9", "base": "#ffffff", "alternate": "#f0f2f5", "text": "#1d2129",
    "muted": "#6b7280", "button": "#eef0f3", "highlight": "#2f6fdb", "highlighted_text": "#ffffff",
    "link": "#1f5fc9", "tooltip": "#ffffdc", "border": "#d5d9e0",
}
_DARK = {
    "window": "#1e2026", "base": "#2a2e36", "alternate": "#30343d", "text": "#e6e8eb",
    "muted": "#9aa1ac", "button": "#2a2d35", "highlight": "#4a86f0", "highlighted_text": "#ffffff",
    "link": "#7aa7ff", "tooltip": "#2a2d35", "border": "#3a3e48",
}
# What the UI says about states, in colour (glyphs carry the meaning; colour helps).
_STATES_LIGHT = {"success": "#1f9d55", "error": "#d93025", "warning": "#b7791f",
                 "running": "#2f6fdb", "parked": "#b7791f", "disabled": "#9aa1ac",
                 "skipped": "#9aa1ac"}
_STATES_DARK = {"success": "#48c78e", "error": "#ff6b5f", "warning": "#f0b429",
                "running": "#6ea1ff", "parked": "#f0b429", "disabled": "#6b7280",
                "skipped": "#6b7280"}


def palette(dark: bool) -> QPalette:
    c = {k: QColor(v) for k, v in (_DARK if dark else _LIGHT).items()}
    p = QPalette()
    R = QPalette.ColorRole
    for role, key in ((R.Window, "window"), (R.WindowText, "text"), (R.Base, "base"),
                      (R.AlternateBase, "alternate"), (R.Text, "text"), (R.Button, "button"),
                      (R.ButtonText, "text"), (R.Highlight, "highlight"),
                      (R.HighlightedText, "highlighted_text"), (R.Link, "link"),
                      (R.ToolTipBase, "tooltip"), (R.ToolTipText, "text"),
                      (R.PlaceholderText, "muted"), (R.BrightText, "highlighted_text")):
        p.setColor(role, c[key])
    for role in (R.Light, R.Midlight):
        p.setColor(role, c["button"].lighter(115 if not dark else 130))
    p.setColor(R.Mid, c["border"])
    p.setColor(R.Dark, c["border"].darker(130))
    p.setColor(R.Shadow, QColor("#000000"))
    disabled = QPalette.ColorGroup.Disabled
    for role in (R.WindowText, R.Text, R.ButtonText):
        p.setColor(disabled, role, c["muted"])
    return p


def state_colors(dark: bool | None = None) -> dict[str, QColor]:
    """Colours for success, error, warning, running, parked, disabled, skipped."""
    if dark is None:
        dark = is_dark()
    return {k: QColor(v) for k, v in (_STATES_DARK if dark else _STATES_LIGHT).items()}


def system_is_dark() -> bool:
    app = QGuiApplication.instance()
    if app is None:
        return False
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def is_dark() -> bool:
    """Whether what is shown now is dark (from the palette in use)."""
    app = QApplication.instance()
    if app is None:
        return False
    return QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def parse_choice(text: object) -> Choice:
    return text if text in CHOICES else "system"  # type: ignore[return-value]


class Theme(QObject):
    """Applies the chosen scheme and follows the system's while the choice is "system"."""

    changed = Signal(bool)  # dark

    def __init__(self, app: QApplication, choice: Choice = "system") -> None:
        super().__init__(app)
        self.app = app
        self.choice: Choice = parse_choice(choice)
        self.dark = False
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)
        self.apply()

    def set_choice(self, choice: Choice) -> None:
        self.choice = parse_choice(choice)
        self.apply()

    def _system_changed(self, _scheme: object) -> None:
        if self.choice == "system":
            self.apply()

    def apply(self) -> None:
        dark = system_is_dark() if self.choice == "system" else self.choice == "dark"
        if self.app.style().name().lower() != "fusion":
            self.app.setStyle("Fusion")
        self.app.setPalette(palette(dark))
        changed = dark != self.dark
        self.dark = dark
        if changed:
            self.changed.emit(dark)
