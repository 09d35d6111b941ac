"""Colours for states, taken from the palette so light and dark themes both read.

The palette has no "success" or "error" role, so each state has a hue and the lightness
is chosen against the palette's base colour: darker marks on a light base, lighter marks
on a dark one. Glyphs (words.STATE_GLYPHS) carry the meaning; colour only helps.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

# hue, saturation for each kind of mark; None: a neutral tone from the palette
_HUES: dict[str, tuple[int, int] | None] = {
    "success": (130, 150), "error": (2, 190), "warning": (36, 220), "attention": (275, 130),
    "running": None, "neutral": None, "disabled": None,
}
KIND_OF_STATE = {
    "active": "success", "succeeded": "success", "completed": "neutral",
    "failed": "error", "broken": "error", "interrupted": "warning", "expired": "warning",
    "awaiting_input": "attention", "paused": "disabled", "skipped": "disabled",
    "cancelled": "disabled", "running": "running", "scheduled": "running",
    "archived": "disabled",
}


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def tone(palette: QPalette, kind: str) -> QColor:
    """A readable colour for a kind of mark on this palette's base."""
    hue = _HUES.get(kind)
    if kind == "running":
        return palette.color(QPalette.ColorRole.Highlight)
    if kind == "neutral":
        return palette.color(QPalette.ColorRole.Text)
    if hue is None:  # disabled: between text and base
        return muted(palette)
    h, s = hue
    return QColor.fromHsl(h, s, 170 if is_dark(palette) else 95)


def state_color(palette: QPalette, state: str | None) -> QColor:
    return tone(palette, KIND_OF_STATE.get(state or "", "disabled"))


def muted(palette: QPalette) -> QColor:
    """Secondary text: halfway between the text and the base colour."""
    text, base = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base)
    return QColor((text.red() * 3 + base.red() * 2) // 5, (text.green() * 3 + base.green() * 2) // 5,
                  (text.blue() * 3 + base.blue() * 2) // 5)




def text_on(color: QColor) -> QColor:
    """Black or white, whichever reads on ``color`` (badges with a filled background)."""
    return QColor(0, 0, 0) if color.lightness() > 150 else QColor(255, 255, 255)
