"""The Qt binding must not leak references to None: PySide6 6.12.0 on CPython 3.11 returns
None from every void method without taking a reference (``setText``, ``update``, each
``QPainter.drawLine``), so None's count falls by one per call and the app aborts with
"Fatal Python error: none_dealloc" after a few hours of painting. pyproject.toml keeps that
version off Python 3.11; this test fails if a binding with the fault is installed."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QLabel

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough


def test_void_methods_do_not_lose_references_to_none(qapp) -> None:  # type: ignore[no-untyped-def]
    label = QLabel()
    pixmap = QPixmap(8, 8)
    painter = QPainter(pixmap)
    try:
        calls = [lambda: label.setText("x"), lambda: label.setEnabled(True),
                 lambda: label.update(), lambda: painter.drawLine(0, 0, 1, 1)]
        for call in calls:
            before = sys.getrefcount(None)
            for _ in range(200):
                call()
            assert sys.getrefcount(None) - before > -50, (
                "this Qt binding loses a reference to None on every void call; the app "
                "would abort after a while: install another PySide6 version")
    finally:
        painter.end()
