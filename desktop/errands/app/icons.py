"""SVG icons from ``resources/icons``, and the tray icon drawn for a state."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from ..resources_access import resource

SIZES = (16, 22, 24, 32, 48, 64)


def icon_path(name: str) -> str:
    return str(resource("icons", f"{name}.svg"))


@lru_cache(maxsize=None)
def _renderer(name: str) -> QSvgRenderer:
    renderer = QSvgRenderer(icon_path(name))
    if not renderer.isValid():
        raise FileNotFoundError(f"no valid SVG icon {icon_path(name)}")
    return renderer


def svg_icon(name: str) -> QIcon:
    """An icon from ``resources/icons/<name>.svg`` (crisp at any scale)."""
    return QIcon(icon_path(name))


def app_icon() -> QIcon:
    return svg_icon("errands")


def tray_pixmap(size: int, *, running: int = 0, attention: int = 0,
                paused: bool = False) -> QPixmap:
    """The tray mark at ``size`` pixels: greyed when everything is paused, a green dot while
    runs are going, a red badge with the count when something needs the user."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    box = QRectF(0, 0, size, size)
    _renderer("tray-paused" if paused else "tray").render(painter, box)
    if running:
        _renderer("badge-running").render(painter, box)
    if attention:
        _renderer("badge-attention").render(painter, box)
        if size >= 22:  # the count reads from 22 px up; below, the disc alone says it
            text = str(attention) if attention < 10 else "9+"
            font = QFont()
            font.setBold(True)
            font.setPixelSize(max(7, round(size * (0.30 if len(text) == 1 else 0.24))))
            painter.setFont(font)
            painter.setPen(QColor("#ffffff"))
            scale = size / 64
            painter.drawText(QRectF(29 * scale, 1 * scale, 34 * scale, 34 * scale),
                             Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def tray_icon(*, running: int = 0, attention: int = 0, paused: bool = False) -> QIcon:
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(tray_pixmap(size, running=running, attention=attention, paused=paused))
    return icon
