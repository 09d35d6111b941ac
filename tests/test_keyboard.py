"""Every dialog works from the keyboard alone: Tab reaches every control that can be used
(and comes back round, so nothing traps it), each control says what it is to a screen
reader, and Esc closes. Walked with real key presses on the real dialogs, offscreen, in a
small window as in a large one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSpinBox,
                               QApplication, QComboBox, QDialog, QHeaderView, QLineEdit,
                               QPlainTextEdit, QRadioButton, QTabBar, QTextEdit, QWidget)

from errands.app.dialogs.approval import ApprovalDialog
from errands.app.dialogs.form import AutomationForm
from errands.app.dialogs.quick_create import QuickCreateDialog
from errands.app.dialogs.settings import SettingsDialog
from errands.app.dialogs.wizard import TemplateWizard
from errands.definition import ParseContext, parse_definition
from errands.drafts import draft_from_phrase
from errands.records import Automation, Blocker, Parked
from errands.settings import SPECS
from errands.timeutil import zone

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 12, 5, 7, 0, tzinfo=UTC)
ZONE = "Europe/Berlin"
USABLE = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QPlainTextEdit, QTextEdit,
          QAbstractItemView, QTabBar)
SIZES = ((480, 420), (1000, 760))


# controls a mouse can use that the keyboard reaches another way, by object name or type
NOT_TABBED = {"qt_calendar_navigationbar", "qt_scrollarea_viewport"}


def usable(root: QWidget) -> list[QWidget]:
    """The controls a person would use: shown and enabled, whatever focus they take (a
    box's own line edit and a spin box's buttons count as the box)."""
    out = []
    for w in root.findChildren(QWidget):
        if not isinstance(w, USABLE) or not w.isVisibleTo(root) or not w.isEnabled():
            continue
        if isinstance(w.parent(), (QComboBox, QAbstractSpinBox)) or \
                w.objectName() in NOT_TABBED or isinstance(w, QHeaderView):
            continue                # (a table's header: the table itself is reached)
        out.append(w)
    return out


def tab_walk(qtbot: Any, dialog: QWidget, steps: int = 200) -> list[QWidget]:
    """Press Tab until the focus comes back to where it started: the widgets it visited."""
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=2000)
    start = QApplication.focusWidget()
    seen: list[QWidget] = [start]
    for _ in range(steps):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        if now is start:
            return seen
        if now not in seen:
            seen.append(now)
    pytest.fail(f"Tab never came back round to {type(start).__name__} "
                f"{start.accessibleName()!r} (a focus trap)")


def owner(widget: QWidget) -> QWidget:
    """Focus that lands on a box's own line edit belongs to the box."""
    parent = widget.parentWidget()
    return parent if isinstance(parent, (QComboBox, QAbstractSpinBox)) else widget


def audit(qtbot: Any, dialog: QWidget, what: str) -> None:
    """Each usable control is reached by Tab and has an accessible name."""
    reached = {owner(w) for w in tab_walk(qtbot, dialog)}
    # Tab stops at the chosen radio button of a group; the arrow keys choose among them
    groups = {w.parentWidget() for w in reached if isinstance(w, QRadioButton)}
    missing = [f"{type(w).__name__} {w.accessibleName() or getattr(w, 'text', lambda: '')()!r}"
               for w in usable(dialog) if w not in reached
               and not (isinstance(w, QRadioButton) and w.parentWidget() in groups)]
    assert missing == [], f"{what}: Tab does not reach {missing}"
    unnamed = [f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
               for w in usable(dialog) if not w.accessibleName()
               and not isinstance(w, (QTabBar, QAbstractItemView))]
    assert unnamed == [], f"{what}: no accessible name on {unnamed}"


def closes_on_escape(qtbot: Any, dialog: QDialog) -> None:
    focus = QApplication.focusWidget() or dialog
    qtbot.keyClick(focus, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)


@pytest.mark.parametrize("size", SIZES)
def test_quick_create_with_its_card_is_keyboard_only(qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    d = QuickCreateDialog(None, clock=lambda: NOW, local_tz=zone(ZONE))
    qtbot.addWidget(d)
    d.resize(*size)
    d.show()
    audit(qtbot, d, "quick create, empty")
    draft = draft_from_phrase("every weekday at 8 run the tests in the repo", zone=ZONE,
                              now=NOW)
    d.show_draft(draft)
    d.card.ask_folder("the repo", None)
    d.card.set_needs_model(True)
    audit(qtbot, d, "quick create, a card asking for a folder and a model")
    d.show_refusal("could not read it", offer_form=True)
    audit(qtbot, d, "quick create, a refusal offering the form")
    closes_on_escape(qtbot, d)


@pytest.mark.parametrize("size", SIZES)
def test_every_tab_of_the_form_is_keyboard_only(qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    form = AutomationForm(None, zone_default=ZONE, clock=lambda: NOW)
    qtbot.addWidget(form)
    form.resize(*size)
    form.show()
    for mode in ("once", "every", "weekly", "monthly", "after", "advanced"):
        form.picker.set_mode(mode)
        for index in range(form.tabs.count()):
            form.tabs.setCurrentIndex(index)
            audit(qtbot, form, f"form, tab {form.tabs.tabText(index)!r}, schedule {mode}")
    for kind in ("command", "notify", "agent"):
        form.runner_box.setCurrentIndex(form.runner_box.findData(kind))
        form.tabs.setCurrentIndex(0)
        audit(qtbot, form, f"form, runs {kind}")
    ask = form.mode_buttons["ask"]                 # the arrow keys choose in a radio group
    ask.setFocus()
    qtbot.keyClick(ask, Qt.Key.Key_Down)
    assert form.permission_mode() == "allow_listed"
    # changed: Esc asks first; Esc again keeps editing; Tab to Discard and Space closes
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: form.discard_box is not None and form.discard_box.isVisible())
    box = form.discard_box
    qtbot.waitUntil(lambda: box.isAncestorOf(QApplication.focusWidget()))  # focus moves in
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not box.isVisible())
    assert form.isVisible()
    qtbot.waitUntil(lambda: form.isAncestorOf(QApplication.focusWidget()))
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: form.discard_box is not None and form.discard_box.isVisible())
    box = form.discard_box
    qtbot.waitUntil(lambda: box.isAncestorOf(QApplication.focusWidget()))
    for _ in range(4):
        if QApplication.focusWidget() is not None and \
                getattr(QApplication.focusWidget(), "text", lambda: "")() == "Discard":
            break
        qtbot.keyClick(QApplication.focusWidget() or box, Qt.Key.Key_Tab)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not form.isVisible())


@pytest.mark.parametrize("size", SIZES)
def test_each_page_of_the_template_wizard_is_keyboard_only(qtbot, size: tuple[int, int]  # type: ignore[no-untyped-def]
                                                           ) -> None:
    wizard = TemplateWizard(None, zone_default=ZONE, local_tz=zone(ZONE))
    qtbot.addWidget(wizard)
    wizard.resize(*size)
    wizard.show()
    pages = 0
    while True:
        audit(qtbot, wizard, f"wizard page {type(wizard.currentPage()).__name__}")
        pages += 1
        if not wizard.button(wizard.WizardButton.NextButton).isEnabled() or \
                wizard.currentId() == wizard.pageIds()[-1]:
            break
        wizard.next()
    assert pages >= 2
    closes_on_escape(qtbot, wizard)


@pytest.mark.parametrize("size", SIZES)
def test_every_page_of_the_settings_is_keyboard_only(qtbot, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    values = {k: s.default for k, s in SPECS.items()}
    d = SettingsDialog(None, values=values, key_stored=False, theme="system")
    qtbot.addWidget(d)
    d.resize(*size)
    d.show()
    tabs = getattr(d, "tabs", None)
    for index in range(tabs.count() if tabs is not None else 1):
        if tabs is not None:
            tabs.setCurrentIndex(index)
        audit(qtbot, d, f"settings page {index}")
    closes_on_escape(qtbot, d)


def parked(kind: str) -> tuple[Parked, Automation]:
    doc = {"title": "Deploy check", "runner": {"kind": "agent", "prompt": "check"},
           "trigger": {"kind": "manual"}, "workdir": "/srv/site"}
    d = parse_definition(doc, ParseContext(now=NOW))
    automation = Automation(id="a1", title=d.title, definition=d, revision=1, status="active",
                            next_fire_at=None, failure_streak=0, run_count=1, created_at=NOW,
                            updated_at=NOW)
    blocker = (Blocker("permission", tool="run_command",
                       arguments={"command": "git status --short"}) if kind == "permission"
               else Blocker("question", question="Deploy now?", choices=["yes", "no"]))
    return Parked("r1" + kind, "a1", 1, blocker, NOW, NOW + timedelta(days=1)), automation


@pytest.mark.parametrize("size", SIZES)
def test_the_approval_dialog_is_keyboard_only(qtbot, size: tuple[int, int],  # type: ignore[no-untyped-def]
                                              tmp_path: Path) -> None:
    d = ApprovalDialog(None, data_dir=tmp_path)
    qtbot.addWidget(d)
    d.resize(*size)
    d.set_queue([parked("permission"), parked("question")])
    d.show()
    audit(qtbot, d, "approval, a command")
    d.always_button.click()
    audit(qtbot, d, "approval, always allow with its rule")
    d.skip()
    audit(qtbot, d, "approval, a question")
    closes_on_escape(qtbot, d)
