"""The whole window over a real engine and store, driven as a user would: the sidebar fills
from the store, a selection shows its detail, the keyboard shortcuts act on it, runs land in
the history with their output, missed fires read as one sentence, Upcoming shows the store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any
from datetime import time, timedelta
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from app_support import command_doc, run, until
from pg_support import catalogue_sql, location_for, stored_instant
from errands.app import words
from errands.app.words import home_short
from errands.app.detail.history import COLUMNS
from errands.app.shell import AppShell
from errands.app.notifications import RecordingBackend
from errands.timeutil import utcnow


def open_shell(qloop: qasync.QEventLoop, data: Path) -> AppShell:
    app = AppShell(data, tray_available=True, notifications=RecordingBackend())
    run(qloop, app.start())
    return app


def close_shell(qloop: qasync.QEventLoop, app: AppShell) -> None:
    run(qloop, app.idle())
    run(qloop, app.close())
    app.window.deleteLater()


@pytest.fixture
def shell(qloop: qasync.QEventLoop, tmp_path: Path) -> Iterator[AppShell]:
    app = open_shell(qloop, tmp_path / "data")
    try:
        yield app
    finally:
        close_shell(qloop, app)


def result_column(app: AppShell) -> list[str]:
    model = app.controller.detail.history
    return [model.index(r, COLUMNS.index("Result")).data() or ""
            for r in range(model.rowCount())]


def show_new(app: AppShell, qloop: qasync.QEventLoop, doc: dict[str, Any]) -> Any:
    """Create an automation and show it, as a click on its new row does."""
    c, api = app.controller, app.api
    assert c is not None and api is not None
    made = run(qloop, api.create(doc)).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None))
    return made


def states(app: AppShell) -> list[str]:
    return [r.state for r in app.controller.detail.history.runs()]


def test_the_sidebar_lists_what_the_store_holds_and_follows_changes(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    assert "No automations yet" in c.sidebar.empty_text()
    hourly = run(qloop, api.create(command_doc(
        "Hourly beat", "echo beat", {"kind": "every", "every": "1h"}))).value[0]
    run(qloop, until(lambda: c.sidebar.visible_ids() == [hourly.id], what="row appears"))
    # an interval fires first when created, then every hour: the row follows
    run(qloop, until(lambda: c.sidebar.model.summary(hourly.id).last_state == "succeeded",
                     what=lambda: f"its run to succeed (the row: "
                     f"{c.sidebar.model.summary(hourly.id)}; the runs: "
                     f"{[(r.state, r.error_code) for r in api.engine.store.runs_page(hourly.id)[0]]})"))
    stored = run(qloop, api.automation(hourly.id)).value
    row = c.sidebar.model.summary(hourly.id)
    assert row.next_fire_at == stored.next_fire_at
    assert timedelta(minutes=59) < row.next_fire_at - utcnow() <= timedelta(hours=1)
    c.sidebar.set_now(utcnow())
    assert words.relative(row.next_fire_at, c.sidebar.model.now, words.local_zone()) in (
        "in 59 min", "in 1 h")                                  # what the row draws
    text = c.sidebar.model.describe(row)                        # what a screen reader hears
    # (the next fire is an hour away: tomorrow when this runs in the day's last hour)
    local = words.local_zone()
    day = ("today" if row.next_fire_at.astimezone(local).date()
           == c.sidebar.model.now.astimezone(local).date() else "tomorrow")
    assert text.startswith("Hourly beat · Active · Every hour") and f"next {day}" in text, text

    c.sidebar.set_search_text("nothing like it")
    assert c.sidebar.visible_ids() == [] and "No automation matches" in c.sidebar.empty_text()
    c.sidebar.set_search_text("")

    run(qloop, api.delete(hourly.id))
    run(qloop, until(lambda: c.sidebar.visible_ids() == [], what="row goes"))


def test_select_run_now_pause_resume_delete_through_the_window(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api, w = shell.controller, shell.api, shell.window
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc(
        "Greeter", "echo hello from errands", {"kind": "every", "every": "6h"}))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    assert not w.run_now_action.isEnabled()  # nothing selected yet
    assert c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None, what="detail shows"))
    assert c.detail.title.text() == "Greeter"
    assert "Every 6 hours" in c.detail.fact("schedule")
    assert w.run_now_action.isEnabled()

    w.run_now_action.trigger()                                          # Ctrl+R
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="run lands in history"))
    assert "hello from errands" in result_column(shell)[0]
    assert [m.state for m in c.detail.strip.marks()] == ["succeeded"]

    w.pause_action.trigger()                                            # Space
    run(qloop, until(lambda: c.sidebar.model.summary(made.id).status == "paused"))
    run(qloop, until(lambda: c.detail.buttons["pause"].text() == "Resume"))
    assert c.detail.status.text().endswith("Paused (by you)")
    w.pause_action.trigger()
    run(qloop, until(lambda: c.sidebar.model.summary(made.id).status == "active"))

    w.delete_action.trigger()                                           # Del: asks first
    box = c.detail.delete_box
    assert isinstance(box, QMessageBox) and "Greeter" in box.text()
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    cancel.click()
    assert run(qloop, api.automation(made.id)).value.id == made.id      # still there
    w.delete_action.trigger()
    box = c.detail.delete_box
    next(b for b in box.buttons() if b.text() == "Delete").click()
    run(qloop, until(lambda: made.id not in c.sidebar.visible_ids(), what="deleted"))
    assert c.detail.automation is None and not w.run_now_action.isEnabled()


def test_archive_from_the_window_find_it_under_archived_and_unarchive(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api, w = shell.controller, shell.api, shell.window
    assert c is not None and api is not None
    keeper = run(qloop, api.create(command_doc(
        "Keeper", "echo kept output", {"kind": "every", "every": "6h"}))).value[0]
    other = run(qloop, api.create(command_doc("Other", "true"))).value[0]
    run(qloop, until(lambda: {keeper.id, other.id} <= set(c.sidebar.visible_ids())))
    assert c.sidebar.archived_button.isHidden()  # nothing archived: no filter to offer
    assert c.sidebar.select(keeper.id)
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="its first fire lands"))
    assert w.archive_action.isEnabled() and w.archive_action.text() == "Ar&chive"

    w.archive_action.trigger()                                          # Ctrl+Shift+A
    run(qloop, until(lambda: keeper.id not in c.sidebar.visible_ids(), what="row leaves"))
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.status == "archived", what="page says so"))
    assert c.selected == keeper.id  # its page stays open, not a neighbour's
    assert c.sidebar.visible_ids() == [other.id]
    assert "Archived" in c.detail.status.text()
    assert "it never fires" in c.detail.next_label.text()
    for key in ("run_now", "dry_run", "pause", "edit"):
        assert c.detail.buttons[key].isHidden(), key
    unarchive = c.detail.buttons["unarchive"]
    assert not unarchive.isHidden() and unarchive.accessibleName() == "Unarchive"
    assert not c.detail.more_actions["archive"].isVisible()
    assert states(shell) == ["succeeded"]  # its history is still there
    assert "kept output" in result_column(shell)[0]
    assert not w.run_now_action.isEnabled() and not w.pause_action.isEnabled()
    assert not w.edit_action.isEnabled() and w.archive_action.text() == "Un&archive"
    assert "Archived" in w.statusBar().currentMessage()

    button = c.sidebar.archived_button                                  # the Archived filter
    assert not button.isHidden() and button.text() == "Archived (1)"
    assert button.accessibleName() == "Show the archived automations, 1"
    button.click()
    assert w.show_archived_action.isChecked() and c.sidebar.title.text() == "Archived"
    assert c.sidebar.visible_ids() == [keeper.id]
    assert c.sidebar.summary(keeper.id).status == "archived"
    assert "Archived" in c.sidebar.archived_model.describe(c.sidebar.summary(keeper.id))
    assert c.sidebar.select(keeper.id)
    c.edit(keeper.id)                                       # a double click: no form for it
    run(qloop, until(lambda: "unarchive it to edit it" in w.statusBar().currentMessage()))
    assert c.form is None

    unarchive.click()                                                   # back, paused
    run(qloop, until(lambda: c.sidebar.archived_model.rowCount() == 0, what="row returns"))
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.status == "paused"))
    assert "No archived automations" in c.sidebar.empty_text()
    assert c.detail.buttons["pause"].text() == "Resume" and unarchive.isHidden()
    assert not c.detail.buttons["run_now"].isHidden()
    w.show_archived_action.trigger()                                    # View ▸ Show archived
    assert not button.isChecked() and c.sidebar.title.text() == "Automations"
    assert set(c.sidebar.visible_ids()) == {keeper.id, other.id}
    assert c.sidebar.model.summary(keeper.id).status == "paused"
    assert run(qloop, api.automation(keeper.id)).value.next_fire_at is None

    assert c.sidebar.select(keeper.id)                                  # Del offers archive
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == keeper.id and c.detail.run_count == 1))
    w.delete_action.trigger()
    box = c.detail.delete_box
    assert isinstance(box, QMessageBox) and "Archive instead" in box.text()
    next(b for b in box.buttons() if b.text() == "Archive instead").click()
    run(qloop, until(lambda: c.sidebar.archived_model.rowCount() == 1, what="archived"))
    assert run(qloop, api.automation(keeper.id)).value.status == "archived"
    runs, _ = run(qloop, api.runs(keeper.id)).value
    assert len(runs) == 1  # nothing was deleted
    c.select(other.id)                                                  # no runs: no offer
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == other.id))
    w.delete_action.trigger()
    box = c.detail.delete_box
    assert box is not None and "Archive instead" not in [b.text() for b in box.buttons()]
    box.button(QMessageBox.StandardButton.Cancel).click()


def test_a_failing_command_shows_its_error_and_a_dry_run_is_marked(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc(
        "Broken build", "echo compiling; echo 'error: no such file' >&2; exit 3"))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None))
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["failed"], what="the failure lands"))
    text = result_column(shell)[0]
    assert text.startswith("Failed:") and "3" in text, text
    run(qloop, until(lambda: c.sidebar.model.summary(made.id).failure_streak == 1))
    run(qloop, until(lambda: c.sidebar.unread_count == 1, what="inbox counts the failure"))

    c.detail.buttons["dry_run"].click()
    run(qloop, until(lambda: len(states(shell)) == 2 and states(shell)[0] != "running"))
    trigger = c.detail.history.index(0, COLUMNS.index("Trigger")).data()
    assert "dry run" in trigger


def test_duplicate_opens_the_copy(shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc(
        "Nightly", "true", {"kind": "cron", "expression": "0 2 * * *",
                            "timezone": "Europe/Berlin"}))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.duplicate(made.id)
    run(qloop, until(lambda: len(c.sidebar.visible_ids()) == 2, what="the copy appears"))
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.title == "Copy of Nightly"))
    copy = c.detail.automation
    assert copy.definition.trigger == made.definition.trigger


def test_missed_fires_while_closed_read_as_one_sentence(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    data = tmp_path / "data"
    # A daily fire twelve hours from now: its last fire is long past the two-minute grace
    # (a fire that late would run, not be skipped) and its next is hours away, whatever the
    # time the test runs at (an hourly one ran its top-of-hour fire in the hour's first
    # minutes and failed).
    now = utcnow()
    at = now - timedelta(hours=12)
    app = open_shell(qloop, data)
    made = run(qloop, app.api.create(command_doc(
        "Daily beat", "echo beat", {"kind": "cron", "expression": f"{at.minute} {at.hour} * * *",
                                    "timezone": "UTC"}))).value[0]
    close_shell(qloop, app)
    # Errands was closed for the last five days: their fires were missed.
    last = at.replace(second=0, microsecond=0)
    due = (last - timedelta(days=4)).replace(tzinfo=None).isoformat(sep=" ")
    assert catalogue_sql(data, f"UPDATE automations SET next_fire_at = {stored_instant('due')} "
                         "WHERE id = :id RETURNING id", due=due, id=made.id) == [(made.id,)]
    app = open_shell(qloop, data)
    try:
        c = app.controller
        run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
        c.sidebar.select(made.id)
        run(qloop, until(lambda: states(app) == ["skipped"],
                         what=lambda: f"the skipped record (the history shows {states(app)})"))
        text = result_column(app)[0]
        assert text.startswith("Skipped: Errands was not running — 5 fires between"), text
        skipped = c.detail.strip.marks()[0]
        assert skipped.state == "skipped"
    finally:
        close_shell(qloop, app)


@pytest.mark.sqlite_only("stores text that is not UTF-8, which PostgreSQL refuses")
def test_an_automation_that_cannot_be_read_says_so_where_its_detail_would_be(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    """A damaged run row (text that is not UTF-8) makes the automation's detail unreadable:
    the pane says why instead of asking for a selection, and the rest of the window works;
    once the row is mended, selecting the automation again opens it."""
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc("Damaged history", "echo hi"))).value[0]
    other = run(qloop, api.create(command_doc("Fine one", "true"))).value[0]
    run(qloop, api.run_now(made.id, wait=True))
    run(qloop, until(lambda: {made.id, other.id} <= set(c.sidebar.visible_ids())))
    with sqlite3.connect(shell.data_dir / "errands.sqlite3") as db:
        assert db.execute("UPDATE runs SET output_tail = CAST(x'6869ff' AS TEXT) "
                          "WHERE automation_id = ?", (made.id,)).rowcount == 1
    c.sidebar.select(made.id)
    run(qloop, until(lambda: "could not be read" in c.detail.placeholder.text(),
                     what="the unreadable detail"))
    assert "UTF-8" in c.detail.placeholder.text() and c.detail.automation is None
    c.sidebar.select(other.id)
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == other.id))
    with sqlite3.connect(shell.data_dir / "errands.sqlite3") as db:
        db.execute("UPDATE runs SET output_tail = 'hi' WHERE automation_id = ?", (made.id,))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == made.id, what="the mended detail"))
    run(qloop, c.idle())


def test_upcoming_shows_every_fire_of_the_day_and_leads_back(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    ids = [run(qloop, api.create(command_doc(
        f"Every {n} hours", "true", {"kind": "every", "every": f"{n}h"}))).value[0].id
        for n in (4, 6)]
    run(qloop, api.create(command_doc("By hand", "true")))
    run(qloop, until(lambda: len(c.sidebar.visible_ids()) == 3))
    c.sidebar.upcoming_requested.emit()
    run(qloop, until(lambda: c.upcoming.model.rowCount() > 0, what="upcoming fills"))
    fires = list(c.upcoming.forecast)
    assert {f.automation_id for f in fires} == set(ids)   # manual ones never fire
    assert len(fires) == 6 + 4                            # 24 h / 4 h and 24 h / 6 h
    c.upcoming.week.click()
    run(qloop, until(lambda: len(c.upcoming.forecast) == 7 * 10))
    index = c.upcoming.model.index(0, 0)
    c.upcoming.table.activated.emit(index)
    assert c.pages.current == "detail"
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == fires[0].automation_id))
    c.show_upcoming()
    shell.window.escape_action.trigger()
    assert c.pages.current == "detail"
    run(qloop, c.idle())


def test_an_empty_window_offers_the_three_ways_to_begin(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    run(qloop, until(lambda: c.pages.current == "welcome", what="the welcome page"))
    welcome = c.welcome
    assert [b.text() for b in welcome.buttons.values()] == [
        "Describe it in words…", "From a template…", "Blank form…"]
    # no model set up: it says so, and which templates work without one
    run(qloop, until(lambda: welcome.model_note.isVisibleTo(welcome),
                     what="the note about the model"))
    assert "Disk and memory report" in welcome.model_note.text()
    assert "Daily brief" not in welcome.model_note.text()      # (an agent template)
    assert welcome.model_button.isVisibleTo(welcome)
    welcome.buttons["describe"].click()
    assert c.quick is not None and c.quick.dialog.isVisible()
    c.quick.dialog.reject()
    welcome.buttons["form"].click()
    assert c.form is not None and c.form.isVisible()
    c.form.reject()
    made = run(qloop, api.create(command_doc("First", "true"))).value[0]
    run(qloop, until(lambda: c.pages.current == "detail" and made.id in c.sidebar.visible_ids(),
                     what="the detail back once there is an automation"))


def test_a_narrow_window_shows_one_pane_at_a_time(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api, w = shell.controller, shell.api, shell.window
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc("Narrow", "true"))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    w.show()
    w.resize(640, 560)
    QApplication.processEvents()
    assert w.narrow and c.sidebar.isVisible() and not c.pages.isVisible()
    row = c.sidebar.shown_model().index(0, 0)
    rect = c.sidebar.list.visualRect(row)
    QTest.mouseClick(c.sidebar.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=rect.center())                                  # open it
    run(qloop, until(lambda: c.detail.automation is not None))
    assert c.pages.isVisible() and not c.sidebar.isVisible() and w.narrow_back.isVisible()
    QApplication.processEvents()
    # nothing off the edge: the page fits the window; Dry run and Stop run went under ⋯
    assert c.detail.width() <= w.width()
    assert not c.detail.buttons["dry_run"].isVisibleTo(c.detail)
    assert c.detail.more_actions["dry_run"].isVisible()
    for button in c.detail.buttons.values():
        if button.isVisibleTo(c.detail):
            assert button.geometry().right() <= c.detail.width()
    w.narrow_back.click()                                                # ← Automations
    assert c.sidebar.isVisible() and not c.pages.isVisible()
    c.sidebar.inbox_button.click()
    assert c.pages.isVisible() and c.pages.current == "inbox"
    w.escape_action.trigger()                                            # Esc: the detail,
    w.escape_action.trigger()                                            # then the list
    assert c.sidebar.isVisible() and not c.pages.isVisible()
    w.resize(1100, 700)
    QApplication.processEvents()
    assert not w.narrow and c.sidebar.isVisible() and c.pages.isVisible()
    assert not w.narrow_back.isVisible()
    assert w.minimumWidth() <= 480


def test_find_focuses_the_filter(shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c = shell.controller
    assert c is not None
    w = shell.window
    w.show()
    w.activateWindow()
    run(qloop, until(lambda: QApplication.activeWindow() is w, what="the window active"))
    c.sidebar.list.setFocus()
    QTest.keyClick(QApplication.focusWidget() or w, Qt.Key.Key_F,
                   Qt.KeyboardModifier.ControlModifier)                 # the key itself
    assert QApplication.focusWidget() is c.sidebar.filter_edit
    QTest.keyClicks(c.sidebar.filter_edit, "zz")                        # typing filters,
    assert c.sidebar.filter_edit.text() == "zz"                         # not the selection
    assert shell.window.find_action.shortcut().toString() == "Ctrl+F"
    # Tab leaves the history table, rows in it (arrows move within it)
    c.sidebar.filter_edit.clear()
    made = run(qloop, shell.api.create(command_doc("Twice", "true"))).value[0]  # type: ignore[union-attr]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None))
    for _ in range(2):
        c.detail.buttons["run_now"].click()
        run(qloop, until(lambda: states(shell)[:1] == ["succeeded"]))
    run(qloop, until(lambda: len(states(shell)) == 2))
    table = c.detail.table
    table.setCurrentIndex(c.detail.history.index(0, 0))
    table.setFocus()
    run(qloop, until(lambda: QApplication.focusWidget() is table, what="the table focused"))
    QTest.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table
    assert shell.window.pause_action.shortcut().matches(Qt.Key.Key_Space)


# ------------------------------------------------------------ the form, a run, the inbox

def test_create_through_the_form_then_edit_with_a_revision_conflict(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api, w = shell.controller, shell.api, shell.window
    assert c is not None and api is not None
    w.new_action.trigger()                                              # Ctrl+N
    form = c.form
    assert form is not None and form.isVisible() and form.expected_revision() is None
    form.title_edit.setText("Weekday greeting")
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    form.command_edit.setPlainText("echo good morning")
    form.picker.set_mode("weekdays")
    form.picker.set_values({"time": time(8, 30), "zone": "Europe/Berlin"})
    assert form.submit()
    run(qloop, until(lambda: c.form is not form, what="form closes"))
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.title == "Weekday greeting", what="detail"))
    made = c.detail.automation
    assert made.definition.trigger.expression == "30 8 * * MON-FRI"
    assert made.definition.trigger.timezone == "Europe/Berlin"
    run(qloop, until(lambda: c.sidebar.model.summary(made.id) is not None, what="row"))
    assert c.sidebar.model.summary(made.id).next_fire_at == made.next_fire_at
    # the list selects what the detail shows
    run(qloop, until(lambda: c.sidebar.current_id() == made.id, what="the new row selected"))

    # Ctrl+R → the run lands in the history with its output
    w.run_now_action.trigger()
    run(qloop, until(lambda: states(shell) == ["succeeded"]))
    assert "good morning" in result_column(shell)[0]

    # a refused save keeps what was typed and says why beside the field
    w.edit_action.trigger()                                             # Ctrl+E
    run(qloop, until(lambda: c.form is not None and c.form.isVisible(), what="edit form"))
    form = c.form
    assert form.expected_revision() == 1 and form.title_edit.text() == "Weekday greeting"
    run(qloop, api.set_setting("min_interval", "10m"))
    form.title_edit.setText("Greeting, every five minutes")
    form.picker.set_mode("every")
    form.picker.set_values({"every": timedelta(minutes=5)})
    assert form.submit()  # the form has no floor of its own: the engine refuses it
    run(qloop, until(lambda: form.field_error("trigger.every") != "", what="refused"))
    assert "10m" in form.field_error("trigger.every") or "10 m" in \
        form.field_error("trigger.every"), form.field_error("trigger.every")
    assert form.isVisible() and form.title_edit.text() == "Greeting, every five minutes"
    form.picker.set_mode("weekdays")

    # someone else edits meanwhile: saving is refused as a conflict, nothing is lost
    newer = made.definition.to_dict()
    newer["title"] = "Changed elsewhere"
    run(qloop, api.edit(made.id, newer))
    form.title_edit.setText("Morning greeting")
    form.submit()
    run(qloop, until(lambda: form.conflict.isVisible(), what="conflict shown"))
    assert "revision 2" in form.conflict_text.text()
    assert form.title_edit.text() == "Morning greeting"
    assert run(qloop, api.automation(made.id)).value.title == "Changed elsewhere"
    form.overwrite_button.click()                                       # Save anyway
    run(qloop, until(lambda: c.form is not form, what="saved over: the form closes"))
    saved = run(qloop, api.automation(made.id)).value
    assert saved.title == "Morning greeting" and saved.revision == 3
    run(qloop, until(lambda: c.sidebar.model.summary(made.id).title == "Morning greeting"))


def test_a_run_opens_its_output_and_the_inbox_marks_read(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = run(qloop, api.create(command_doc("Disk check", "echo disk full >&2; exit 4"))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None))
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["failed"]))

    c.detail.table.activated.emit(c.detail.history.index(0, 0))        # Enter on the row
    assert c.pages.current == "session"
    run(qloop, until(lambda: c.session.run_id() is not None, what="run shown"))
    assert "disk full" in c.session.output.toPlainText()
    assert "Disk check" in c.session_back.label.text()
    c.session_back.button.click()
    assert c.pages.current == "detail"

    run(qloop, until(lambda: c.sidebar.unread_count == 1))
    c.sidebar.inbox_button.click()
    assert c.pages.current == "inbox"
    run(qloop, until(lambda: c.inbox.unread_count() == 1, what="inbox fills"))
    item = c.inbox.model.items()[0]
    assert item.run_id is not None and item.kind == "failure"
    c.inbox.select(item.id)
    c.inbox.mark_current_read()
    run(qloop, until(lambda: c.inbox.unread_count() == 0 and c.sidebar.unread_count == 0,
                     what="marked read"))

    # a clicked notification leads to its run
    c.open_item(item)
    assert c.pages.current == "session" and c.session_run == item.run_id
    run(qloop, shell.idle())


def test_a_running_command_prints_live_on_its_page_and_its_time_moves_on(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    """A command printing a line every 0.3 s: its page shows each line while it runs, and
    "took" grows, long before the run ends; at the end the page keeps what it printed."""
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = show_new(shell, qloop, command_doc(
        "Ticker", 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo "tick $i"; '
                  'sleep 0.4; done'))
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["running"], what="the run starts"))
    # the history row and the sidebar row count the seconds
    run(qloop, until(lambda: result_column(shell)[0].startswith("Running for"),
                     what="the history's running time"))
    history_before = result_column(shell)[0]
    assert c.sidebar.model.summary(made.id).running_since is not None
    described = c.sidebar.model.describe(c.sidebar.model.summary(made.id))
    assert "Running for" in described
    run(qloop, until(lambda: result_column(shell)[0] != history_before,
                     what="the history's running time moving on", timeout=5))
    run(qloop, until(lambda: c.sidebar.model.describe(c.sidebar.model.summary(made.id))
                     != described, what="the sidebar row's time moving on", timeout=5))
    # its page shows the output as it comes, and its time moving on
    c.detail.table.activated.emit(c.detail.history.index(0, 0))
    run(qloop, until(lambda: "tick 2" in c.session.output.toPlainText(),
                     what="output while it runs"))
    assert states(shell) == ["running"] and "tick 16" not in c.session.output.toPlainText()
    assert c.session.state_label.text().endswith("Running")
    took = c.session.facts_label.text()
    run(qloop, until(lambda: c.session.facts_label.text() != took and states(shell) == ["running"],
                     what="the run's time moving on", timeout=5))
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="the run ends"))
    run(qloop, until(lambda: c.session.doc is not None
                     and c.session.doc.get("state") == "succeeded"))
    assert c.session.output.toPlainText() == "".join(f"tick {i}\n" for i in range(1, 17))
    assert not c._ticking.isActive()
    run(qloop, shell.idle())


def test_a_run_page_left_while_it_printed_shows_all_of_it_when_reopened(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = show_new(shell, qloop, command_doc(
        "Short ticker", 'for i in 1 2 3 4 5 6; do echo "beat $i"; sleep 0.3; done'))
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["running"]))
    c.detail.table.activated.emit(c.detail.history.index(0, 0))
    run(qloop, until(lambda: "beat 2" in c.session.output.toPlainText()))
    c.session_back.button.click()                                    # away while it prints
    run(qloop, until(lambda: states(shell) == ["succeeded"]))
    c.detail.table.activated.emit(c.detail.history.index(0, 0))      # and back
    everything = "".join(f"beat {i}\n" for i in range(1, 7))
    run(qloop, until(lambda: c.session.output.toPlainText() == everything,
                     what=lambda: f"all of it ({c.session.output.toPlainText()!r})"))


def test_a_failed_attempt_waiting_to_retry_says_so_and_the_wait_is_not_run_time(
        shell: AppShell, qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    """Attempt 1 exits 3 and the next waits two seconds: the history says "Attempt 1 failed
    (exit 3) · retrying at HH:MM (2 of 3)", not "Queued"; the run's time counts only its
    two attempts, not the wait between them."""
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    flag = tmp_path / "second"
    doc = command_doc("Flaky", f'if [ -e {flag} ]; then echo ok; else touch {flag}; '
                               f'sleep 0.2; exit 3; fi')
    doc["policy"] = {"retry": {"max_attempts": 3, "backoff": {"initial": "2s"}}}
    made = show_new(shell, qloop, doc)
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["scheduled"], what="the wait before attempt 2"))
    waiting = c.detail.history.runs()[0]
    text = result_column(shell)[0]
    assert waiting.retry_at is not None
    local = waiting.retry_at.astimezone(c.detail.history.tz).strftime("%H:%M")
    assert text == f"Attempt 1 failed (exit 3) · retrying at {local} (2 of 3)", text
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="attempt 2 succeeds"))
    done = run(qloop, api.runs(made.id)).value[0][0]
    doc_ = done.to_dict()
    assert done.finished_at is not None and done.started_at is not None
    wall = (done.finished_at - done.started_at).total_seconds() * 1000
    assert doc_["run_time_ms"] is not None and wall >= 2000 > doc_["run_time_ms"] > 150
    assert [a["state"] for a in doc_["attempts"]] == ["failed", "succeeded"]
    run(qloop, until(lambda: c.detail.history.runs()[0].state == "succeeded"))
    took = c.detail.history.index(0, 5).data()            # the history's time column
    assert took == words.duration(done.run_time())
    assert took != words.duration(done.finished_at - done.started_at)   # the wait left out


def test_a_dry_run_has_its_own_mark_never_a_success(
        shell: AppShell, qloop: qasync.QEventLoop) -> None:
    from errands.app import marks
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made = show_new(shell, qloop, command_doc("Deploy", "echo deployed"))
    c.detail.buttons["dry_run"].click()
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="the dry run's row"))
    history = c.detail.history
    assert history.index(0, 1).data() == "◇ Dry run"
    colour = history.index(0, 1).data(Qt.ItemDataRole.ForegroundRole)
    assert colour != marks.state_color(QApplication.palette(), "succeeded")
    assert result_column(shell)[0].startswith("Dry run: would run:")
    run(qloop, until(lambda: [m.state for m in c.detail.strip.marks()] == ["dry_run"]))
    c.detail.buttons["run_now"].click()
    run(qloop, until(lambda: states(shell) == ["succeeded", "succeeded"]))
    run(qloop, until(lambda: [m.state for m in c.detail.strip.marks()] == ["dry_run", "succeeded"]))
    assert history.index(0, 1).data() == "✓ Succeeded"


def test_a_parked_agent_run_is_reviewed_from_the_window(
        qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openai_server import ScriptedServer, call, say

    model = ScriptedServer().start()
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")
    work = tmp_path / "work"
    work.mkdir()
    app = open_shell(qloop, tmp_path / "data")
    try:
        c, api = app.controller, app.api
        made = run(qloop, api.create({
            "title": "Site builder", "runner": {"kind": "agent", "prompt": "Build it."},
            "trigger": {"kind": "manual"}, "workdir": str(work),
            "policy": {"retry": {"max_attempts": 1}}})).value[0]
        model.play(call("run_command", {"command": "echo built > out.txt"}), say("Built."))
        run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
        c.sidebar.select(made.id)
        run(qloop, until(lambda: c.detail.automation is not None))
        assert c.detail.saved.isVisible() and c.detail.saved.sentences() == []
        c.detail.buttons["run_now"].click()
        run(qloop, until(lambda: c.sidebar.parked_count == 1, what="the waiting badge"))
        assert c.sidebar.approvals_button.isVisible()
        assert c.sidebar.approvals_button.text() == "⚑ 1 waiting"
        run(qloop, until(lambda: app.tray.state == "attention", what="tray asks for you"))
        run(qloop, until(lambda: c.sidebar.model.summary(made.id).parked == 1))

        c.detail.table.activated.emit(c.detail.history.index(0, 0))   # open the parked run
        run(qloop, until(lambda: c.review_button.isVisible(), what="Review… offered"))
        assert "echo built > out.txt" in c.session.blocker_text()
        c.review_button.click()
        dialog = c.approvals.dialog
        run(qloop, until(lambda: dialog is not None and dialog.current() is not None))
        dialog.once_button.click()
        run(qloop, until(lambda: states(app) == ["succeeded"], what="the run resumes"))
        assert (work / "out.txt").read_text() == "built\n"
        run(qloop, until(lambda: c.sidebar.parked_count == 0
                         and not c.sidebar.approvals_button.isVisible()))
        run(qloop, until(lambda: app.tray.state == "idle", what="tray calm again"))
        # the inbox says how the request ended, not that it still asks
        c.sidebar.inbox_button.click()
        run(qloop, until(lambda: any(i.kind == "awaiting_input" for i in c.inbox.model.items()),
                         what="the request in the inbox"))
        asked = next(i for i in c.inbox.model.items() if i.kind == "awaiting_input")
        run(qloop, until(lambda: next(i for i in c.inbox.model.items()
                                      if i.id == asked.id).outcome is not None,
                         what="its outcome"))
        asked = next(i for i in c.inbox.model.items() if i.id == asked.id)
        assert asked.outcome is not None and asked.outcome["kind"] == "approve_once"
        assert c.inbox.model.meta(asked).startswith("Approved once · ")
        # what it asked, in words (and so the desktop notification said it)
        sentence = f"Site builder wants to run `echo built > out.txt` in {home_short(work)}"
        assert c.inbox.model.body(asked) == sentence
        shown = [m for m in app.notifier.backend.shown if sentence == m.title]
        assert shown and "errands " not in shown[0].body.lower()
    finally:
        close_shell(qloop, app)
        model.close()


def test_a_parked_loop_says_it_fires_again_after_you_decide(
        qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``after`` loop whose run waits for a decision has no next fire yet: its page says
    why, not "No more fires"."""
    from openai_server import ScriptedServer, call, say

    model = ScriptedServer().start()
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")
    app = open_shell(qloop, tmp_path / "data")
    try:
        c, api = app.controller, app.api
        # (played first: a loop's first run starts the moment it is created)
        model.play(call("run_command", {"command": "git status"}), say("Looked."))
        made = run(qloop, api.create({
            "title": "Watcher", "runner": {"kind": "agent", "prompt": "Look."},
            "trigger": {"kind": "after", "interval": "10m"},
            "policy": {"retry": {"max_attempts": 1}}})).value[0]
        run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
        c.sidebar.select(made.id)
        run(qloop, until(lambda: c.detail.automation is not None))
        run(qloop, until(lambda: states(app)[:1] == ["awaiting_input"],
                         what=lambda: f"the loop's run to park (runs: {states(app)})"))
        run(qloop, until(lambda: "fires again after you decide" in c.detail.next_label.text(),
                         what=lambda: f"the loop's words ({c.detail.next_label.text()!r})"))
        assert c.detail.next_label.text() == "Waiting for you; fires again after you decide."
    finally:
        close_shell(qloop, app)
        model.close()


def test_the_three_ways_to_create_from_the_window_and_the_tray(
        shell: AppShell, qloop: qasync.QEventLoop, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QWizard

    c, w = shell.controller, shell.window
    assert c is not None
    # the tray's New automation… opens the sentence box
    shell.tray.new_requested.emit()
    flow = c.quick
    assert flow is not None and flow.dialog.isVisible()
    qtbot.keyClicks(flow.dialog.line_edit, "every weekday at 9am run `echo standup`")
    qtbot.keyClick(flow.dialog.line_edit, Qt.Key.Key_Return)
    run(qloop, until(lambda: flow.dialog.card_scroll.isVisible(), what="the card"))
    assert flow.dialog.card.fact("schedule")
    flow.dialog.card.create_button.click()
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.definition.runner.command == "echo standup",
                     what="created and shown"))
    assert c.detail.automation.definition.trigger.expression == "0 9 * * MON-FRI"

    # Ctrl+T: the wizard; a template through to a shown automation
    w.template_action.trigger()
    wizard = c.wizard.wizard
    assert wizard.isVisible()
    wizard.select_template("remind-me")
    wizard.next()
    wizard.set_value("message", "stretch")
    wizard.next()
    wizard.next()
    wizard.button(QWizard.WizardButton.FinishButton).click()
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.title == "Remind me: stretch", what="from template"))
    assert c.detail.automation.definition.origin.template == "remind-me"

    # from the sentence box, "From a template…" and "Blank form…" hand over
    w.describe_action.trigger()
    c.quick.dialog.template_button.click()
    assert not c.quick.dialog.isVisible() and c.wizard.wizard.isVisible()
    c.wizard.wizard.reject()
    w.describe_action.trigger()
    c.quick.dialog.form_button.click()
    assert c.form is not None and c.form.isVisible() and c.form.expected_revision() is None
    c.form.reject()
    run(qloop, shell.idle())


def test_an_automation_an_agent_created_shows_as_a_card_in_its_run(
        qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openai_server import ScriptedServer, call, say

    model = ScriptedServer().start()
    monkeypatch.setenv("ERRANDS_PROVIDER_BASE_URL", model.base_url)
    monkeypatch.setenv("ERRANDS_PROVIDER_MODEL", "scripted-model")
    app = open_shell(qloop, tmp_path / "data")
    try:
        c, api = app.controller, app.api
        made = run(qloop, api.create({
            "title": "Planner", "runner": {"kind": "agent", "prompt": "Plan my checks."},
            "trigger": {"kind": "manual"}, "permissions": {"mode": "allow_listed",
                                                           "tools": ["automate"]},
            "policy": {"retry": {"max_attempts": 1}}})).value[0]
        model.play(call("automate", {"action": "create", "title": "Check the deploy",
                                     "runner": {"kind": "command", "command": "echo green"},
                                     "schedule": "every:2h"}),
                   say("I set up a check every two hours."))
        run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
        c.sidebar.select(made.id)
        run(qloop, until(lambda: c.detail.automation is not None))
        c.detail.buttons["run_now"].click()
        run(qloop, until(lambda: states(app) == ["succeeded"], what="the run ends"))
        run(qloop, until(lambda: len(c.sidebar.visible_ids()) == 2, what="the new one"))
        c.detail.table.activated.emit(c.detail.history.index(0, 0))
        run(qloop, until(lambda: c.created_box.isVisible(), what="the card"))
        (ident, holder), = c.created_cards.items()
        from errands.app.dialogs.card import ConfirmationCard
        card = holder.findChild(ConfirmationCard)
        assert card.title.text() == "Check the deploy"
        assert "echo green" in card.what_text()
        assert "2 hours" in card.fact("schedule")
        assert card.origin.text() == "Created by this run’s agent"
        button = next(b for b in holder.findChildren(QPushButton) if b.text() == "Open it")
        button.click()
        run(qloop, until(lambda: c.detail.automation is not None
                         and c.detail.automation.id == ident, what="opened"))
    finally:
        close_shell(qloop, app)
        model.close()


def test_export_then_import_through_the_window_menu(
        qloop: qasync.QEventLoop, tmp_path: Path) -> None:
    import json

    first = open_shell(qloop, tmp_path / "one")
    try:
        for n in range(3):
            run(qloop, first.api.create(command_doc(f"Job {n}", f"echo {n}",
                                                    {"kind": "every", "every": "6h"})))
        dialog = first.controller.choose_export()          # File ▸ Export… asks where
        assert dialog.isVisible()
        dialog.reject()
        path = tmp_path / "out.json"
        run(qloop, first.controller.export_to(path))
        doc = json.loads(path.read_text())
        assert doc["format"] == "errands-export" and len(doc["automations"]) == 3
        assert "Exported 3 automations" in first.window.statusBar().currentMessage()
    finally:
        close_shell(qloop, first)

    location_for(tmp_path / "two")  # (in the PostgreSQL pass, another catalogue: the env's)
    second = open_shell(qloop, tmp_path / "two")
    try:
        c = second.controller
        run(qloop, c.import_from(path))                    # shows what it would do first
        box = c.import_box
        assert box is not None and box.isVisible() and "3 new automations" in box.text()
        assert "• Job 0" in box.informativeText()
        assert run(qloop, second.api.summaries()).value[1] == 0   # nothing written yet
        next(b for b in box.buttons() if b.text() == "Import").click()
        run(qloop, until(lambda: len(c.sidebar.visible_ids()) == 3, what="imported"))
        c.import_box = None
        run(qloop, c.import_from(path))                    # a second import changes nothing
        assert c.import_box is None and "here already" in c.told.text()
        c.told.close()

        bad = tmp_path / "bad.json"
        doc["automations"][1]["definition"]["trigger"] = {"kind": "cron", "expression": "61 * * * *"}
        doc["automations"][1]["request_id"] = "other"
        bad.write_text(json.dumps(doc))
        run(qloop, c.import_from(bad))                     # refused whole, naming the field
        assert "automations[1].definition.trigger.expression" in c.told.text()
        assert len(c.sidebar.visible_ids()) == 3
        c.told.close()
        run(qloop, second.idle())
    finally:
        close_shell(qloop, second)


def test_keyboard_and_markup_details_a_hostile_user_found(
        shell: AppShell, qloop: qasync.QEventLoop, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Space on a focused button clicks it (it pauses only in the list); a title that
    looks like HTML shows as text; Esc on a changed form asks first; Save then Esc at once
    logs nothing; the inbox counts every unread item, not a page of them."""
    from PySide6.QtWidgets import QAbstractButton

    c, api, w = shell.controller, shell.api, shell.window
    made = run(qloop, api.create(command_doc("<b>bold</b> &amp; <i>x</i>", "echo hi"))).value[0]
    run(qloop, until(lambda: made.id in c.sidebar.visible_ids()))
    c.sidebar.select(made.id)
    run(qloop, until(lambda: c.detail.automation is not None))
    assert c.detail.title.textFormat() == Qt.TextFormat.PlainText
    assert c.detail.title.text() == "<b>bold</b> &amp; <i>x</i>"

    w.activateWindow()
    c.detail.buttons["run_now"].setFocus()
    qtbot.keyClick(c.detail.buttons["run_now"], Qt.Key.Key_Space)
    run(qloop, until(lambda: states(shell) == ["succeeded"], what="Space ran it"))
    assert run(qloop, api.automation(made.id)).value.status == "active"   # not paused
    c.sidebar.list.setFocus()
    qtbot.keyClick(c.sidebar.list, Qt.Key.Key_Space)
    run(qloop, until(lambda: c.sidebar.model.summary(made.id).status == "paused",
                     what="Space in the list pauses"))

    w.new_action.trigger()
    form = c.form
    form.title_edit.setText("Half done")
    form.reject()                                                       # Esc
    assert form.isVisible() and form.discard_box is not None
    keep = next(b for b in form.discard_box.buttons() if b.text() == "Keep editing")
    keep.click()
    assert form.isVisible() and form.title_edit.text() == "Half done"
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    form.command_edit.setPlainText("true")
    form.picker.set_mode("manual")
    assert form.submit()
    form.done(0)  # closed before the engine answers (as Esc right after Save)
    run(qloop, shell.idle())
    run(qloop, until(lambda: any(r.title == "Half done" for r in c.sidebar.model.summaries())))
    assert all(isinstance(b, QAbstractButton) for b in [keep])

    # 600 unread failures: the inbox button and the tray count them all
    catalogue_sql(shell.data_dir, "INSERT INTO attention (automation_id, run_id, kind, title, "
                  "body, read, created_at) VALUES (:a, NULL, 'failure', :t, NULL, FALSE, "
                  f"{stored_instant('at')})",
                  *({"a": made.id, "t": f"failed {n}", "at": "2026-12-01 10:00:00"}
                    for n in range(600)))
    c.refresh("unread", c._refresh_unread)
    shell._refresh("needs_you", shell.refresh_needs_you)
    run(qloop, until(lambda: c.sidebar.unread_count == 600, what="every unread item"))
    run(qloop, until(lambda: "600" in shell.tray.tooltip(), what="the tray counts them"))
    c.show_inbox()                      # the list is a page; its count says so
    run(qloop, until(lambda: c.inbox.model.rowCount() == 500, what="the inbox page"))
    assert c.inbox.count_label.text() == "600 unread · the newest 500 shown"
    run(qloop, shell.idle())


def test_a_web_address_added_in_the_form_shows_its_token_once(
        shell: AppShell, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    """The form adds a webhook beside the schedule; after saving, the address and its
    token are shown once, with Copy buttons, and the call they make starts a run."""
    import httpx
    from errands.app.dialogs.webhook_token import TokenDialog
    from PySide6.QtGui import QGuiApplication
    monkeypatch.setenv("ERRANDS_WEBHOOK_PORT", "0")  # (tests run side by side)
    c, w = shell.controller, shell.window
    assert c is not None
    w.new_action.trigger()
    form = c.form
    assert form is not None
    form.title_edit.setText("Deploy")
    form.runner_box.setCurrentIndex(form.runner_box.findData("command"))
    form.command_edit.setPlainText("grep ref \"$ERRANDS_EVENT_FILE\"")
    form.picker.set_mode("manual")
    form.events.add_webhook.click()
    assert form.submit()
    run(qloop, until(lambda: any(isinstance(x, TokenDialog) and x.isVisible()
                                 for x in QApplication.topLevelWidgets()), what="the token"))
    [dialog] = [x for x in QApplication.topLevelWidgets()
                if isinstance(x, TokenDialog) and x.isVisible()]
    url, token, example = (f.text() for f in dialog.fields)
    assert example.startswith("curl -X POST") and token in example and url in example
    assert "/hooks/" in url and len(token) > 30
    copy = [b for b in dialog.findChildren(QPushButton) if b.text() == "Copy"][1]
    copy.click()
    assert QGuiApplication.clipboard().text() == token
    dialog.reject()
    run(qloop, until(lambda: c.detail.automation is not None, what="its page"))
    made = c.detail.automation
    async def call() -> httpx.Response:
        async with httpx.AsyncClient() as client:
            return await client.post(url, json={"ref": "v2"},
                                     headers={"Authorization": f"Bearer {token}"})
    answer = run(qloop, call())
    assert answer.status_code == 202
    run(qloop, until(lambda: states(shell) == ["succeeded"]))
    assert '"v2"' in result_column(shell)[0]
    assert made.definition.trigger.kind == "webhook"


def test_a_new_token_for_a_web_address_is_asked_for_then_shown(
        shell: AppShell, qloop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    from errands.app.dialogs.webhook_token import TokenDialog
    monkeypatch.setenv("ERRANDS_WEBHOOK_PORT", "0")
    c, api = shell.controller, shell.api
    assert c is not None and api is not None
    made, _ = run(qloop, api.create(command_doc("Hooked", "true", {"kind": "webhook"}))).value
    first = run(qloop, api.webhook_token(made.id, "webhook")).value["token"]
    c.open_automation(made.id)
    run(qloop, until(lambda: c.detail.automation is not None
                     and c.detail.automation.id == made.id, what="detail"))
    action = c.detail.more_actions["webhook"]
    assert action.isVisible()
    action.trigger()
    box = c.told
    assert box is not None and box.isVisible()
    make = next(b for b in box.buttons() if b.text() == "Make a new token")
    make.click()
    run(qloop, until(lambda: any(isinstance(x, TokenDialog) and x.isVisible()
                                 for x in QApplication.topLevelWidgets()), what="the token"))
    [dialog] = [x for x in QApplication.topLevelWidgets()
                if isinstance(x, TokenDialog) and x.isVisible()]
    assert dialog.fields[1].text() != first
    dialog.reject()


def test_the_mail_dialog_tests_the_chosen_account(shell: AppShell, qloop: qasync.QEventLoop,
                                                  tmp_path: Path) -> None:
    from errands.app.dialogs.event_triggers import MailDialog
    from errands.mail.accounts import set_password
    from mail_support import PASSWORD, USER, Dovecot
    server = Dovecot()
    try:
        c, api = shell.controller, shell.api
        assert c is not None and api is not None
        run(qloop, api.save_mail_account({"name": "work", "address": USER,
                                          "imap_host": "127.0.0.1", "imap_port": server.port,
                                          "imap_security": "none"}))
        set_password(tmp_path / "data", "work", PASSWORD)
        dialog = MailDialog(["work"], shell.window, c._test_mail)
        dialog.test_button.click()
        run(qloop, until(lambda: dialog.test_result.text().startswith("It works"),
                         what=lambda: dialog.test_result.text()))
        assert "INBOX has 0 messages" in dialog.test_result.text()
        set_password(tmp_path / "data", "work", "wrong")
        dialog.test_button.click()
        run(qloop, until(lambda: dialog.test_result.text().startswith("It does not work"),
                         what=lambda: dialog.test_result.text()))
        assert "refused the login" in dialog.test_result.text()
        dialog.account.setCurrentIndex(0)
        dialog.sender.setText("billing@example.com")
        assert dialog.trigger() == {"kind": "mail", "account": "work",
                                    "sender": "billing@example.com"}
        dialog.reject()
        dialog.deleteLater()
    finally:
        server.stop()
