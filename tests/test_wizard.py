"""The New from template wizard over a real engine: every shipped template picked, filled,
scheduled, reviewed and created (the command ones also run), the blanks checked beside
their fields with Next held back, a changed schedule keeping the template origin, a broken
template file reported and left out, an engine refusal on the review card, the keyboard,
and each page rendered light and dark, small and large."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import time, timedelta
from pathlib import Path
from typing import Any

import pytest
import qasync
from app_support import run, until
from template_support import first_run, page  # noqa: F401  (page: a fixture)
from errands.app.dialogs.card import ConfirmationCard
from errands.app.dialogs.wizard import (
    FILL,
    PICK,
    REVIEW,
    SCHEDULE,
    TemplateWizard,
    TemplateWizardFlow,
    problems_note,
)
from errands.engine.api import Api
from errands.engine.service import EngineThread
from errands.resources_access import resource
from errands.templates import load_templates
from errands.timeutil import zone
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QScrollArea,
    QWidget,
    QWizard,
)

ZONE = "Europe/Berlin"
NAMES = sorted(t.name for t in load_templates()[0])


@pytest.fixture
def api(qloop: qasync.QEventLoop, qapp: QApplication, tmp_path: Path) -> Iterator[Api]:
    qapp.setQuitOnLastWindowClosed(False)  # as the app: closing the wizard ends nothing
    host = EngineThread(tmp_path / "data", listen=False, role="app")
    facade = run(qloop, host.start())
    try:
        yield facade
    finally:
        run(qloop, host.close())






def open_flow(api: Api, folder: Path | None = None) -> TemplateWizardFlow:
    flow = TemplateWizardFlow(None, api, ZONE, folder=folder)
    flow.wizard.schedule.picker.local_tz = zone(ZONE)
    flow.open()
    return flow


def finish(flow: TemplateWizardFlow, qloop: qasync.QEventLoop) -> str:
    """Press Create on the review page and wait for the automation."""
    ids: list[str] = []
    flow.created.connect(ids.append)
    wizard = flow.wizard
    assert wizard.currentId() == REVIEW
    create = wizard.button(QWizard.WizardButton.FinishButton)
    assert create.text() == "Create" and create.isEnabled()
    create.click()
    run(qloop, until(lambda: ids or wizard.review.card.error_text(), what="the creation"))
    assert ids, wizard.review.card.error_text()
    run(qloop, flow.wait())
    assert not wizard.isVisible()
    return ids[0]


def values_for(name: str, tmp_path: Path, page: str) -> tuple[dict[str, Any], str | None]:
    """Blanks to type for each template, and what a run of a command one prints."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "Makefile").write_text("test:\n\t@echo 3 passed\n")
    folder = str(project)
    if name == "project-monitor":
        command = "make test" if shutil.which("make") else "echo 3 passed"
        return {"folder": folder, "test_command": command, "minutes": 15}, "3 passed"
    if name == "remind-me":
        return {"message": "water the plants; don't `rm` anything", "at": "07:45"}, \
            "water the plants; don't `rm` anything"
    if name == "watch-web-page":
        return {"url": page, "minutes": 30}, "Widget: 12 EUR"
    if name == "disk-memory-report":
        return {"at": "06:15"}, "Filesystem"
    if name == "loop-until-tests-pass":
        return {"folder": folder, "test_command": "pytest -q", "wait": 5, "rounds": 7}, None
    if name == "daily-brief":
        return {"folder": folder, "topics": "the garden", "at": "07:00"}, None
    if name == "file-invoices":
        dest = tmp_path / "invoices"
        dest.mkdir(exist_ok=True)
        return {"downloads": folder, "dest": str(dest)}, None
    if name == "log-new-files":
        return {"folder": folder}, None
    if name == "stale-backup":
        return {"folder": folder, "hours": 30, "at": "08:15"}, None
    return {"folder": folder, "at": "17:30"}, None


# --------------------------------------------------------- every template, end to end

@pytest.mark.parametrize("name", NAMES)
def test_each_template_through_the_wizard_to_a_created_automation(
        name: str, api: Api, qloop: qasync.QEventLoop, tmp_path: Path, page: str) -> None:
    flow = open_flow(api)
    wizard = flow.wizard
    assert wizard.currentId() == PICK and not wizard.pick.note.isVisible()
    wizard.select_template(name)
    template = wizard.template()
    assert template is not None and template.name == name
    wizard.next()
    values, printed = values_for(name, tmp_path, page)
    blanks = {p.name for p in template.blanks}
    if blanks:
        assert wizard.currentId() == FILL
        for key, value in values.items():
            if key in blanks:
                wizard.set_value(key, value)
        assert wizard.fill_page.errors() == {}
        assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()
        wizard.next()
    assert wizard.currentId() == SCHEDULE
    picker = wizard.schedule.picker
    for key, value in values.items():
        if key not in blanks:   # a time only the schedule uses: asked here, once
            hour, minute = map(int, str(value).split(":"))
            picker.set_values({"time": time(hour, minute)})
    expected = template.fill(values)["trigger"]
    if expected["kind"] == "folder":   # an event: the template's, kept as it is
        assert picker.mode() == "kept" and picker.trigger() == expected, picker.trigger()
    else:
        assert picker.mode() in ("daily", "weekdays", "weekly", "every", "after")
    shown = picker.trigger()
    for key in ("expression", "every", "interval"):
        if key in expected:
            assert shown[key] == expected[key] or key != "expression", (shown, expected)
    wizard.next()
    assert wizard.currentId() == REVIEW
    card = wizard.review.card
    assert card.title.text() and card.fact("schedule") and card.fact("permissions")
    assert card.origin.text() == f"From the template “{template.title}”"
    assert not card.button_row.isVisible()
    automation_id = finish(flow, qloop)

    automation = run(qloop, api.automation(automation_id)).value
    d = automation.definition
    assert d is not None
    assert d.origin.kind == "template" and d.origin.template == name
    assert d.runner.kind == template.runner
    if "dest" in values:
        assert d.workdir == values["dest"]
    elif "folder" in values:
        assert d.workdir == values["folder"]
    trigger = d.to_dict()["trigger"]
    if expected["kind"] == "cron":
        assert trigger["expression"] == expected["expression"]
        assert trigger["timezone"] == ZONE
    else:
        assert trigger["kind"] == expected["kind"]
    if name == "loop-until-tests-pass":
        assert d.stop.max_runs == 7 and d.trigger.kind == "after"
    if printed is not None:
        ran = run(qloop, first_run(api, automation_id))
        assert ran.state == "succeeded", (name, ran.error_message, ran.output_tail)
        assert printed in (ran.output_tail or ""), (name, ran.output_tail)


def test_a_changed_schedule_keeps_the_template_origin(
        api: Api, qloop: qasync.QEventLoop) -> None:
    flow = open_flow(api)
    wizard = flow.wizard
    wizard.select_template("remind-me")
    wizard.next()
    wizard.set_value("message", "call mum")
    wizard.next()
    picker = wizard.schedule.picker
    assert picker.mode() == "weekdays" and picker.values()["time"] == time(15, 0)
    picker.set_values({"mode": "weekly", "time": time(18, 30), "days": (5, 6)})
    wizard.next()
    card = wizard.review.card
    assert "18:30" in card.fact("schedule")
    assert len(card.fact("next").splitlines()) == 3
    automation_id = finish(flow, qloop)
    d = run(qloop, api.automation(automation_id)).value.definition
    assert d.origin.kind == "template" and d.origin.template == "remind-me"
    assert d.to_dict()["trigger"]["expression"] == "30 18 * * SAT,SUN"
    assert d.title == "Remind me: call mum"


def test_going_back_keeps_what_was_typed_and_the_schedule_follows_the_blanks(
        api: Api, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    flow = open_flow(api)
    wizard = flow.wizard
    wizard.select_template("project-monitor")
    wizard.next()
    wizard.set_value("folder", str(tmp_path))
    wizard.set_value("minutes", 20)
    wizard.next()
    assert wizard.schedule.picker.trigger()["every"] == "20m"
    wizard.back()
    assert wizard.fill_page.values()["minutes"] == 20
    wizard.set_value("minutes", 45)
    wizard.next()
    assert wizard.schedule.picker.trigger()["every"] == "45m"
    wizard.reject()
    run(qloop, flow.wait())


def test_a_time_only_the_schedule_uses_is_asked_once(
        api: Api, qloop: qasync.QEventLoop) -> None:
    """The Disk and memory report's one blank is its time: the wizard goes from the pick
    straight to the schedule, which asks for it (starting at the template's 09:00)."""
    flow = open_flow(api)
    wizard = flow.wizard
    wizard.select_template("disk-memory-report")
    wizard.next()
    assert wizard.currentId() == SCHEDULE
    assert wizard.schedule.picker.values()["time"] == time(9, 0)
    wizard.schedule.picker.set_values({"time": time(6, 40)})
    assert wizard.schedule.picker.trigger()["expression"] == "40 6 * * *"
    wizard.reject()
    run(qloop, flow.wait())


# ------------------------------------------------------------------- the blanks

def test_blanks_are_checked_beside_their_field_and_next_waits(
        api: Api, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    flow = open_flow(api)
    wizard = flow.wizard
    wizard.select_template("project-monitor")
    wizard.next()
    page = wizard.fill_page
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    assert "Project folder is required" in page.field_error("folder")
    assert not next_button.isEnabled()
    wizard.set_value("folder", "relative/path")
    assert "absolute" in page.field_error("folder") and not next_button.isEnabled()
    wizard.set_value("folder", str(tmp_path / "missing"))
    assert "no folder" in page.field_error("folder") and not next_button.isEnabled()
    wizard.set_value("folder", str(tmp_path))
    assert page.field_error("folder") == "" and next_button.isEnabled()
    wizard.set_value("test_command", "")
    assert "required" in page.field_error("test_command") and not next_button.isEnabled()
    wizard.set_value("test_command", "make check")
    spin = page.fields["minutes"].spin
    assert spin is not None and (spin.minimum(), spin.maximum()) == (5, 1440)
    assert next_button.isEnabled()
    # the error line is the field's accessible description while it shows
    line = page.fields["folder"].line
    assert line is not None
    wizard.set_value("folder", "nope")
    assert "absolute" in line.accessibleDescription()
    wizard.reject()
    run(qloop, flow.wait())


@pytest.mark.catalogue_free
def test_each_kind_of_blank_has_its_widget(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "kinds.json").write_text(json.dumps({
        "format": 1, "title": "Every kind", "description": "One blank of each kind.",
        "icon": "bell", "runner": "command",
        "parameters": [
            {"name": "words", "label": "Words", "kind": "text", "default": "hello"},
            {"name": "where", "label": "Where", "kind": "folder"},
            {"name": "page", "label": "Page", "kind": "url", "default": "https://example.com/"},
            {"name": "at", "label": "At", "kind": "time", "default": "10:15"},
            {"name": "count", "label": "Count", "kind": "integer", "default": 3,
             "minimum": 1, "maximum": 9},
            {"name": "colour", "label": "Colour", "kind": "choice", "default": "green",
             "choices": ["red", "green", "blue"]},
            {"name": "note", "label": "Note", "kind": "text", "required": False}],
        "definition": {
            "title": "{words} {colour} {count} {note} at {at}",
            "runner": {"kind": "command", "command": "echo {words} {page} {colour}"},
            "trigger": {"kind": "cron", "expression": "{at:minute} {at:hour} * * *"},
            "workdir": "{where}"}}))
    wizard = TemplateWizard(None, zone_default=ZONE, folder=folder)
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    page = wizard.fill_page
    kinds = {name: type(f.focus_widget()).__name__ for name, f in page.fields.items()}
    assert kinds == {"words": "QLineEdit", "where": "QLineEdit", "page": "QLineEdit",
                     "at": "QTimeEdit", "count": "QSpinBox", "colour": "QComboBox",
                     "note": "QLineEdit"}
    assert page.fields["where"].button is not None       # a folder has its Choose… button
    assert [page.fields["colour"].combo.itemText(i)      # type: ignore[union-attr]
            for i in range(3)] == ["red", "green", "blue"]
    wizard.set_value("where", str(tmp_path))
    wizard.set_value("page", "ftp://example.com")
    assert "web address" in page.field_error("page")
    wizard.set_value("page", "https://example.org/a")
    wizard.set_value("colour", "blue")
    assert page.errors() == {}
    assert page.values() == {"words": "hello", "where": str(tmp_path),
                             "page": "https://example.org/a", "at": "10:15", "count": 3,
                             "colour": "blue", "note": ""}
    wizard.next()
    doc = wizard.document()
    assert doc["title"].strip() == "hello blue 3  at 10:15" and doc["runner"]["command"] == \
        "echo hello https://example.org/a blue"
    assert doc["trigger"] == {"kind": "cron", "expression": "15 10 * * *", "timezone": ZONE}
    assert doc["origin"] == {"kind": "template", "template": "kinds"}


# --------------------------------------------------------------- broken templates

def test_a_broken_template_file_is_reported_and_the_others_still_listed(
        api: Api, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    for name in ("remind-me", "disk-memory-report"):
        (folder / f"{name}.json").write_text(
            resource("templates", f"{name}.json").read_text(encoding="utf-8"))
    bad = json.loads(resource("templates", "remind-me.json").read_text(encoding="utf-8"))
    bad["definition"]["trigger"]["expression"] = "{at:minute} {at:hour} * * FUNDAY"
    (folder / "bad.json").write_text(json.dumps(bad))
    flow = open_flow(api, folder)
    wizard = flow.wizard
    pick = wizard.pick
    assert pick.list.count() == 2
    assert sorted(t.name for t in wizard.templates) == ["disk-memory-report", "remind-me"]
    assert pick.note.isVisible()
    note = pick.note.text()
    assert note.startswith("1 template could not be loaded: bad.json: definition.trigger")
    assert "FUNDAY" in note or "day" in note
    # the listed ones still work
    wizard.select_template("disk-memory-report")
    wizard.next()   # (no blanks to fill: straight to the schedule)
    wizard.next()
    automation_id = finish(flow, qloop)
    assert run(qloop, api.automation(automation_id)).value.definition.origin.template == \
        "disk-memory-report"


@pytest.mark.catalogue_free
def test_several_problems_are_listed_one_a_line() -> None:
    from errands.templates import TemplateProblem

    text = problems_note([TemplateProblem("a.json", "title", "must be one line"),
                          TemplateProblem("b.json", "(file)", "not JSON")])
    assert text.splitlines() == ["2 templates could not be loaded:",
                                 "• a.json: title: must be one line", "• b.json: (file): not JSON"]


# ---------------------------------------------------------------- refusals

def test_an_engine_refusal_is_shown_on_the_review_card_and_create_works_again(
        api: Api, qloop: qasync.QEventLoop, page: str) -> None:
    run(qloop, api.set_setting("min_interval", "2h"))
    flow = open_flow(api)
    wizard = flow.wizard
    wizard.select_template("watch-web-page")
    wizard.next()
    wizard.set_value("url", page)
    wizard.next()
    wizard.next()
    create = wizard.button(QWizard.WizardButton.FinishButton)
    create.click()
    card = wizard.review.card
    run(qloop, until(lambda: card.error_text(), what="the refusal"))
    assert "interval" in card.error_text() or "2h" in card.error_text()
    assert wizard.isVisible() and wizard.currentId() == REVIEW
    assert create.isEnabled()
    # fix it: back to the schedule, every 3 hours, Create again
    wizard.back()
    wizard.schedule.picker.set_values({"mode": "every", "every": timedelta(hours=3)})
    wizard.next()
    automation_id = finish(flow, qloop)
    d = run(qloop, api.automation(automation_id)).value.definition
    trigger = d.to_dict()["trigger"]
    assert (trigger["kind"], trigger["every"]) == ("every", "3h")


# ------------------------------------------------------------------- keyboard

def test_the_wizard_is_usable_from_the_keyboard(qtbot, api: Api,  # type: ignore[no-untyped-def]
                                                qloop: qasync.QEventLoop) -> None:
    flow = open_flow(api)
    wizard = flow.wizard
    pick = wizard.pick
    qtbot.keyClicks(pick.search, "web page")
    visible = [i for i in range(pick.list.count()) if not pick.list.item(i).isHidden()]
    assert len(visible) == 1 and wizard.template().name == "watch-web-page"
    pick.search.clear()
    qtbot.keyClicks(pick.search, "model needed")           # the descriptions are searched
    assert all(not t.needs_model for i, t in enumerate(pick.templates)
               if not pick.list.item(i).isHidden())
    pick.search.clear()
    qtbot.keyClicks(pick.search, "zzz nothing")
    assert pick.selected() is None and pick.empty.isVisible()
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    pick.search.clear()
    pick.search.setFocus()
    first = pick.selected()
    qtbot.keyClick(pick.search, Qt.Key.Key_Down)           # arrows move through the list
    assert pick.selected() is not None and pick.selected() != first
    qtbot.keyClick(pick.search, Qt.Key.Key_Up)
    assert pick.selected() == first
    qtbot.keyClicks(pick.search, "remind")
    qtbot.keyClick(pick.search, Qt.Key.Key_Return)         # Enter is Next
    assert wizard.currentId() == FILL
    for page_ in (wizard.pick, wizard.fill_page, wizard.schedule, wizard.review):
        for widget in page_.findChildren(QWidget):
            if not isinstance(widget, (QLineEdit, QAbstractButton, QComboBox,
                                       QAbstractSpinBox)) or \
                    isinstance(widget.parent(), (QComboBox, QAbstractSpinBox, QLineEdit)):
                continue            # a box's own line edit (a field's clear button) is named
                                    # by the box
            assert widget.accessibleName(), (type(page_).__name__, type(widget).__name__,
                                             getattr(widget, "text", lambda: "")())
    for which in (QWizard.WizardButton.NextButton, QWizard.WizardButton.BackButton,
                  QWizard.WizardButton.CancelButton, QWizard.WizardButton.FinishButton):
        assert wizard.button(which).accessibleName()
    wizard.reject()
    run(qloop, flow.wait())


# ----------------------------------------------------------------------- look

@pytest.mark.catalogue_free
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_page_renders_small_and_large(qtbot, qapp: QApplication,  # type: ignore[no-untyped-def]
                                           scheme: str, tmp_path: Path) -> None:
    from errands.app.theme import Theme

    Theme(qapp, scheme)  # type: ignore[arg-type]
    try:
        for width, height in ((540, 480), (960, 760)):
            wizard = TemplateWizard(None, zone_default=ZONE, local_tz=zone(ZONE))
            qtbot.addWidget(wizard)
            wizard.resize(width, height)
            wizard.show()
            wizard.select_template("loop-until-tests-pass")
            for step in range(4):
                qapp.processEvents()
                page = wizard.currentPage()
                image = wizard.grab()
                assert image.save(str(tmp_path / f"{scheme}-{width}-{step}.png"))
                assert page.minimumSizeHint().width() <= page.width(), (step, width)
                for scroll in page.findChildren(QScrollArea):   # nothing cut off sideways
                    if scroll.isVisibleTo(page) and scroll.widget() is not None:
                        assert scroll.widget().minimumSizeHint().width() <= \
                            scroll.viewport().width(), (step, width)
                if step == 1:
                    wizard.set_value("folder", str(tmp_path))
                if step < 3:
                    wizard.next()
            card = wizard.review.card
            assert isinstance(card, ConfirmationCard) and card.title.text()
            wizard.close()
    finally:
        Theme(qapp, "light")
