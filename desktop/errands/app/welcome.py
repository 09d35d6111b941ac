"""The first start: an empty catalogue shows the three ways to begin, and, while no model is
set up, which templates work without one.

Passive: ``set_model(ready, templates)`` says whether agent runs have a model and names the
templates that run without one; ``describe_requested``, ``template_requested``,
``form_requested`` and ``model_requested`` say which button was pressed.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from . import marks


class WelcomeView(QWidget):
    describe_requested = Signal()
    template_requested = Signal()
    form_requested = Signal()
    model_requested = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomeView")
        self.setAccessibleName(self.tr("Getting started"))
        self.title = QLabel(self.tr("Nothing to run yet. Start with one of these:"))
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setWeight(font.Weight.DemiBold)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.setSpacing(10)
        layout.addStretch(1)
        layout.addWidget(self.title)
        for key, text, hint, signal in (
                ("describe", self.tr("Describe it in words…"),
                 self.tr("Say what should happen and when, e.g. “every weekday at 9am check "
                         "the disk”; you confirm it on a card."), self.describe_requested),
                ("template", self.tr("From a template…"),
                 self.tr("Pick a ready-made automation and fill in a few blanks."),
                 self.template_requested),
                ("form", self.tr("Blank form…"),
                 self.tr("Set every field yourself: what runs, when, and its rules."),
                 self.form_requested)):
            button = QPushButton(text)
            button.setAccessibleName(text.rstrip("…"))
            button.setAccessibleDescription(hint)
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(220)
            button.clicked.connect(signal)
            note = QLabel(hint)
            note.setWordWrap(True)
            note.setObjectName("welcomeHint")
            self.buttons[key] = button
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
            layout.addWidget(note)
        self.model_note = QLabel()
        self.model_note.setWordWrap(True)
        self.model_button = QPushButton(self.tr("Set up a model…"))
        self.model_button.setAccessibleName(self.tr("Set up a model for agent automations"))
        self.model_button.clicked.connect(self.model_requested)
        layout.addSpacing(8)
        layout.addWidget(self.model_note)
        layout.addWidget(self.model_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(2)
        self.set_model(True, ())

    def set_model(self, ready: bool, templates: Sequence[str]) -> None:
        """Whether agent runs have a model; ``templates``: the titles of those that run
        without one."""
        if ready:
            self.model_note.setText("")
        elif templates:
            self.model_note.setText(self.tr(
                "No model is set up yet: automations that ask an AI agent need one. These "
                "templates work without: %1.").replace("%1", ", ".join(templates)))
        else:
            self.model_note.setText(self.tr(
                "No model is set up yet: automations that ask an AI agent need one; "
                "shell commands work without."))
        self.model_note.setVisible(not ready)
        self.model_button.setVisible(not ready)
        muted = marks.muted(self.palette()).name()
        for note in self.findChildren(QLabel, "welcomeHint"):
            note.setStyleSheet(f"color: {muted}")
